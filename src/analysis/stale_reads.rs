//! Reads through an index that is updated asynchronously (DDIA 2nd ed.
//! ch. 7: DynamoDB's global secondary indexes are updated after the base
//! table, so a read of the index just after a write may not see it).
//!
//! **Model.** A background job drains the queue of index updates every
//! `period` ms, at times `k · period`; a drain applies every write queued
//! before it started, and its updates become visible `d` ms later, `d`
//! uniform on `[0, jitter]` (`jitter = 0`: at once). A write lands at a
//! uniformly random phase `φ ∈ [0, period)` after the last drain started,
//! so the next drain picks it up. A read of the written term issued `lag`
//! ms after the write misses the row iff it comes before the row is
//! visible: `φ + lag < period + d`.
//!
//! **Exact.** Without jitter, `P(miss) = P(φ < period − lag) =
//! max(0, 1 − lag / period)`: a read at once (`lag = 0`) always misses, a
//! read a full period later (`lag ≥ period`) never does. With jitter `J`
//! it is the mean of `clamp((period − lag + d) / period, 0, 1)` over `d`
//! uniform on `[0, J]`, integrated in closed form; a read `period + J` or
//! more later never misses.
//!
//! ```
//! use reshard::analysis::{AsyncIndex, Simulation};
//! let index = AsyncIndex::new(100.0)?; // drained every 100 ms
//! assert_eq!((index.miss_probability(0.0)?, index.miss_probability(25.0)?, index.miss_probability(150.0)?), (1.0, 0.75, 0.0));
//! let slow = index.with_jitter(50.0)?; // each drain visible 0–50 ms after it starts
//! assert_eq!(slow.miss_probability(150.0)?, 0.0);
//! assert!((slow.miss_probability(100.0)? - 0.25).abs() < 1e-12); // ∫₀⁵⁰ d/100 dd / 50
//! let run = index.simulate(25.0, &Simulation::new(100_000).seed(3))?;
//! assert!((run.miss_simulated - 0.75).abs() < 0.01);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::simulation::Simulation;
use crate::{Error, Result};

/// The largest period, jitter or lag accepted, in milliseconds (about
/// 31,700 years): sums of two stay far from overflow.
pub const MAX_MS: f64 = 1e15;

/// The shortest period accepted, in milliseconds (a picosecond): far above
/// the smallest floats, where the formula's products lost their digits (a
/// period, jitter and lag of 5e-324 ms gave a miss chance of 0, not ½).
pub const MIN_PERIOD_MS: f64 = 1e-9;

fn check(what: &'static str, x: f64, positive: bool) -> Result<f64> {
    let ok = x.is_finite() && x <= MAX_MS && if positive { x >= MIN_PERIOD_MS } else { x >= 0.0 };
    if ok {
        return Ok(x + 0.0);
    }
    Err(Error::BadNumber {
        what,
        value: x.to_string(),
        expected: if positive {
            "a finite number of milliseconds > 0, from 1e-9 to 1e15"
        } else {
            "a finite number of milliseconds ≥ 0 (at most 1e15)"
        },
        hint: if positive {
            "the index is drained every period ms: use e.g. 100.0"
        } else {
            "give a time in milliseconds, e.g. 25.0 (0 for none)"
        },
    })
}

/// An index brought up to date in batches every `period` ms, each batch
/// visible up to `jitter` ms after it starts.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AsyncIndex {
    period: f64,
    jitter: f64,
}

/// One lag: the exact chance that a read misses the write, and the
/// simulation's share.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct StaleRow {
    /// Time from the write to the read, in milliseconds.
    pub lag_ms: f64,
    /// `P(miss)` by the formula.
    pub miss_exact: f64,
    /// The share of simulated reads that missed.
    pub miss_simulated: f64,
    /// Simulated reads that missed.
    pub misses: u64,
    /// Simulated reads (one per write).
    pub reads: u64,
}

impl StaleRow {
    /// The binomial standard deviation of the simulated share around the
    /// exact one, `√(p(1 − p) / reads)`.
    pub fn sd(&self) -> f64 {
        let p = self.miss_exact;
        (p * (1.0 - p) / self.reads.max(1) as f64).sqrt()
    }
}

impl AsyncIndex {
    /// Drained every `period_ms`, each drain visible at once. Fails unless
    /// `1e-9 ≤ period_ms ≤ 1e15` ([`Error::BadNumber`]; see [`MIN_PERIOD_MS`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::analysis::AsyncIndex;
    /// let index = AsyncIndex::new(40.0)?;
    /// for lag in [0.0, 10.0, 30.0, 40.0, 90.0] {
    ///     let formula = (1.0 - lag / 40.0_f64).max(0.0); // max(0, 1 − lag / period)
    ///     assert_eq!(index.miss_probability(lag)?, formula);
    /// }
    /// assert!(AsyncIndex::new(0.0).is_err() && AsyncIndex::new(f64::NAN).is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn new(period_ms: f64) -> Result<AsyncIndex> {
        Ok(AsyncIndex { period: check("period_ms", period_ms, true)?, jitter: 0.0 })
    }

    /// The same period, each drain's updates visible a uniformly random
    /// `0 ..= jitter_ms` after it starts. Fails unless `0 ≤ jitter_ms ≤ 1e15`.
    pub fn with_jitter(self, jitter_ms: f64) -> Result<AsyncIndex> {
        Ok(AsyncIndex { jitter: check("jitter_ms", jitter_ms, false)?, ..self })
    }

    /// The period, in milliseconds.
    pub fn period_ms(&self) -> f64 {
        self.period
    }

    /// The jitter, in milliseconds.
    pub fn jitter_ms(&self) -> f64 {
        self.jitter
    }

    /// The chance that a read issued `lag_ms` after a write misses it (see
    /// the module docs). Fails unless `0 ≤ lag_ms ≤ 1e15`.
    pub fn miss_probability(&self, lag_ms: f64) -> Result<f64> {
        let lag = check("lag_ms", lag_ms, false)?;
        let p = self.period;
        let c = |x: f64| (x / p).clamp(0.0, 1.0);
        let (lo, hi) = (p - lag, p - lag + self.jitter);
        if hi <= lo {
            return Ok(c(lo));
        }
        // ∫ of clamp(x / p, 0, 1) over [lo, hi]: the part in [0, p], then the part above p
        let (x1, x2) = (lo.clamp(0.0, p), hi.clamp(0.0, p));
        let mid = (x2 - x1) * ((x1 + x2) / (2.0 * p));
        let above = hi.max(p) - lo.max(p);
        Ok(((mid + above) / (hi - lo)).clamp(0.0, 1.0))
    }

    /// `sim.trials()` writes, each at phase `φ = random() · period` and
    /// (with jitter) its drain visible `d = random() · jitter` later, drawn
    /// write by write from `PyRandom::new(seed)`; each read `lag_ms` later
    /// misses iff `φ + lag < period + d`. Fails on a bad lag, 0 writes, and
    /// draws over [`Limits::max_requests`](crate::limits::Limits::max_requests).
    ///
    /// # Examples
    ///
    /// The same draws replayed by hand ([`PyRandom`](crate::PyRandom) is
    /// Python's `random.Random`):
    ///
    /// ```
    /// use reshard::analysis::{AsyncIndex, Simulation};
    /// use reshard::PyRandom;
    /// let index = AsyncIndex::new(100.0)?.with_jitter(50.0)?;
    /// let row = index.simulate(80.0, &Simulation::new(1_000).seed(5))?;
    /// let mut rng = PyRandom::new(5);
    /// let mut misses = 0;
    /// for _ in 0..1_000 {
    ///     let phase = rng.random() * 100.0; // φ, then the drain's delay d
    ///     let delay = rng.random() * 50.0;
    ///     misses += u64::from(phase + 80.0 < 100.0 + delay);
    /// }
    /// assert_eq!((row.misses, row.reads), (misses, 1_000));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn simulate(&self, lag_ms: f64, sim: &Simulation) -> Result<StaleRow> {
        let exact = self.miss_probability(lag_ms)?;
        let draws = if self.jitter > 0.0 { 2 } else { 1 };
        sim.check(crate::limits::product(sim.trials(), draws))?;
        let mut rng = sim.rng();
        let mut misses = 0u64;
        for _ in 0..sim.trials() {
            let phase = rng.random() * self.period;
            let delay = if self.jitter > 0.0 { rng.random() * self.jitter } else { 0.0 };
            misses += u64::from(phase + lag_ms < self.period + delay);
        }
        let reads = sim.trials() as u64;
        Ok(StaleRow {
            lag_ms: lag_ms + 0.0,
            miss_exact: exact,
            miss_simulated: misses as f64 / reads as f64,
            misses,
            reads,
        })
    }

    /// [`simulate`](Self::simulate) for each lag, each from the same seed.
    /// Fails on an empty list ([`Error::OutOfRange`]), on a bad lag, and on
    /// all lags' draws together over the limit (each lag at least 624: a
    /// seeded generator makes its first 624 at once).
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::analysis::{AsyncIndex, Simulation};
    /// let index = AsyncIndex::new(100.0)?;
    /// let sim = Simulation::new(2_000).seed(9);
    /// let sweep = index.sweep(&[0.0, 50.0, 100.0], &sim)?;
    /// let exact: Vec<f64> = sweep.rows().iter().map(|r| r.miss_exact).collect();
    /// assert_eq!(exact, [1.0, 0.5, 0.0]); // max(0, 1 − lag / period)
    /// assert_eq!(sweep.rows()[1], index.simulate(50.0, &sim)?); // each lag from the same seed
    /// assert!(index.sweep(&[], &sim).is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn sweep(&self, lags_ms: &[f64], sim: &Simulation) -> Result<StaleReadSweep> {
        if lags_ms.is_empty() {
            return Err(Error::OutOfRange {
                what: "list of lags",
                given: "[]".into(),
                allowed: "one lag or more, in milliseconds, e.g. [0.0, 25.0, 50.0, 100.0]".into(),
            });
        }
        let draws = if self.jitter > 0.0 { 2 } else { 1 };
        let per_lag = crate::limits::product(sim.trials(), draws);
        sim.check_runs(std::iter::repeat_n(per_lag, lags_ms.len()))?;
        let rows = lags_ms.iter().map(|&l| self.simulate(l, sim)).collect::<Result<Vec<_>>>()?;
        Ok(StaleReadSweep { index: *self, simulation: *sim, rows })
    }
}

/// Reads through an [`AsyncIndex`] at several lags: exact and simulated.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct StaleReadSweep {
    index: AsyncIndex,
    simulation: Simulation,
    rows: Vec<StaleRow>,
}

impl StaleReadSweep {
    /// The index.
    pub fn index(&self) -> &AsyncIndex {
        &self.index
    }

    /// The simulation settings.
    pub fn simulation(&self) -> &Simulation {
        &self.simulation
    }

    /// One row per lag, in the order given.
    pub fn rows(&self) -> &[StaleRow] {
        &self.rows
    }
}
