//! The tail of a scatter/gather query (DDIA 2nd ed. ch. 7: a query through
//! a local index asks every shard; DDIA calls the effect "tail latency
//! amplification"): a query that waits for `N` shards is as slow as the
//! slowest.
//!
//! With shard latencies independent, the fan-out latency is `max` over the
//! shards, so `P(max ≤ t) = Π Fᵢ(t)` ([`FanOut::cdf`]). Its quantiles use
//! [`Latency`]'s convention: the `q`-quantile is the smallest value `t` of
//! any shard's support with `Π Fᵢ(t) ≥ q`, the product taken in shard
//! order in `f64` (for samples, always a sample value). For `N` copies of
//! [`Latency::two_point`] the share of queries that wait for a slow shard
//! is `1 − (1 − p)^N` ([`share_slow`]): at `p = 1%`, 1% of one-shard
//! queries but 15% of 16-shard ones, and the p99 of the fan-out is the
//! slow time while each shard's own p99 is the fast one.
//!
//! [`FanOut::simulate`] draws the same queries (one latency per shard per
//! query, seeded) to set beside the formula; [`FanOutSweep`] does both for
//! several `N`.
//!
//! A fan-out over shards that each have their own latencies (`Π Fᵢ` of
//! different `Fᵢ`, from measured samples) is what lab 10's exercise asks the
//! learner to write (`tutor::exercises::fanout_quantile`), so the crate keeps
//! that constructor to itself: publicly a fan-out is `N` copies of one
//! shard's distribution ([`FanOut::copies`]).
//!
//! ```
//! use reshard::analysis::{share_slow, FanOut, Latency, Simulation};
//! let shard = Latency::two_point(10.0, 200.0, 0.01)?;
//! let sixteen = FanOut::copies(&shard, 16)?;
//! assert!((sixteen.share_slower(10.0) - share_slow(0.01, 16)?).abs() < 1e-12); // 14.9%
//! assert_eq!((shard.quantile(0.99)?, sixteen.p50(), sixteen.p99()), (10.0, 10.0, 200.0));
//! let run = sixteen.simulate(&Simulation::new(100_000).seed(1))?;
//! assert!((run.share_slower(10.0) - 0.149).abs() < 0.01);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::latency::{check_ms, check_q, sorted_samples, Latency};
use crate::analysis::simulation::Simulation;
use crate::{limits, Error, Result};
use std::sync::Arc;

/// `1 − (1 − p)^n`: the share of fan-out queries over `n` shards that meet
/// at least one slow shard, each slow with probability `p` on its own
/// (computed as `−expm1(n · log1p(−p))`, exact to the last bits even for
/// tiny `p`). Fails unless `0 ≤ p ≤ 1`.
pub fn share_slow(p: f64, n: u64) -> Result<f64> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::BadNumber {
            what: "p",
            value: p.to_string(),
            expected: "a probability in [0, 1]",
            hint: "use 0.01 for one slow response in a hundred",
        });
    }
    if n == 0 || p == 0.0 {
        return Ok(0.0);
    }
    if p == 1.0 {
        return Ok(1.0);
    }
    Ok(-libm::expm1(n as f64 * libm::log1p(-p)))
}

/// `N` shards a query waits for, each with its latency distribution.
#[derive(Debug, Clone, PartialEq)]
pub struct FanOut {
    shards: Vec<Latency>,
    /// Every value of any shard's support, ascending, each once.
    candidates: Arc<[f64]>,
}

impl FanOut {
    /// A query over these shards, one distribution each. Fails on none
    /// ([`Error::NoNodes`]), more shards than [`Limits::max_nodes`](crate::limits::Limits::max_nodes)
    /// (an endless iterator is read one past it), and more distinct
    /// samples, all shards together, than [`Limits::max_keys`](crate::limits::Limits::max_keys).
    /// Crate-only: see the [module documentation](self).
    pub(crate) fn new(shards: impl IntoIterator<Item = Latency>) -> Result<FanOut> {
        let cap = usize::try_from(limits::current().max_nodes).unwrap_or(usize::MAX).saturating_add(1);
        let shards: Vec<Latency> = shards.into_iter().take(cap).collect();
        if shards.is_empty() {
            return Err(Error::NoNodes);
        }
        limits::check_nodes(shards.len())?;
        // each distinct distribution once: copies share their samples
        let mut seen: Vec<&Latency> = Vec::new();
        let mut total = 0u128;
        for s in &shards {
            let same = |o: &&Latency| match (s.shared(), o.shared()) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                _ => *o == s,
            };
            if !seen.iter().any(same) {
                total += s.samples().map_or(2, <[f64]>::len) as u128;
                limits::check_hint(
                    "latency samples, all shards together",
                    total,
                    limits::current().max_keys,
                    "give fewer samples per shard, or fewer shards with their own samples",
                )?;
                seen.push(s);
            }
        }
        let mut candidates: Vec<f64> = seen.iter().flat_map(|s| s.support()).collect();
        candidates.sort_unstable_by(f64::total_cmp);
        candidates.dedup();
        Ok(FanOut { shards, candidates: candidates.into() })
    }

    /// `n` shards with the same distribution.
    pub fn copies(latency: &Latency, n: usize) -> Result<FanOut> {
        limits::check_nodes(n)?;
        FanOut::new(std::iter::repeat_n(latency, n).cloned())
    }

    /// One shard per list of samples (milliseconds, any order). Fails as
    /// [`Latency::from_samples`] does, naming the shard, and on no shards.
    /// Crate-only: see the [module documentation](self).
    pub(crate) fn from_samples<S: AsRef<[f64]>>(shards: &[S]) -> Result<FanOut> {
        limits::check_nodes(shards.len())?;
        let mut list = Vec::with_capacity(shards.len());
        for (i, s) in shards.iter().enumerate() {
            list.push(Latency::from_sorted(sorted_samples(s.as_ref(), Some(i))?));
        }
        FanOut::new(list)
    }

    /// The shards' distributions, in shard order.
    pub fn shards(&self) -> &[Latency] {
        &self.shards
    }

    /// `P(max ≤ t) = Π Fᵢ(t)`, multiplied in shard order.
    pub fn cdf(&self, t: f64) -> f64 {
        self.shards.iter().map(|s| s.cdf(t)).product()
    }

    /// The share of queries slower than `t`: `1 − Π Fᵢ(t)`.
    pub fn share_slower(&self, t: f64) -> f64 {
        1.0 - self.cdf(t)
    }

    /// The smallest value `t` of any shard's support with `Π Fᵢ(t) ≥ q`
    /// (a binary search: the product never falls as `t` grows). Fails
    /// unless `0 < q ≤ 1`.
    pub fn quantile(&self, q: f64) -> Result<f64> {
        check_q(q)?;
        let i = self.candidates.partition_point(|&t| self.cdf(t) < q);
        // at the largest candidate every Fᵢ is 1, so i is in range
        Ok(self.candidates.get(i).or(self.candidates.last()).copied().unwrap_or(0.0))
    }

    /// The median fan-out latency.
    pub fn p50(&self) -> f64 {
        self.quantile(0.5).unwrap_or(f64::NAN)
    }

    /// The 99th percentile.
    pub fn p99(&self) -> f64 {
        self.quantile(0.99).unwrap_or(f64::NAN)
    }

    /// In words: "16 shards, each 10 ms, or 200 ms with p = 0.01".
    pub fn describe(&self) -> String {
        let n = self.shards.len();
        let first = &self.shards[0];
        if self.shards.iter().all(|s| s == first) {
            format!("{n} shard{}, each {}", if n == 1 { "" } else { "s" }, first.describe())
        } else {
            format!("{n} shards with their own latencies")
        }
    }

    /// `sim.trials()` queries, each drawing one latency per shard (shard by
    /// shard, query after query, from `PyRandom::new(seed)`: a uniformly
    /// chosen sample via `randbelow`, or slow when `random() < p`) and
    /// keeping the largest. Fails on 0 queries and on queries × shards over
    /// [`Limits::max_requests`](crate::limits::Limits::max_requests).
    pub fn simulate(&self, sim: &Simulation) -> Result<FanOutRun> {
        sim.check(limits::product(sim.trials(), self.shards.len()))?;
        let mut rng = sim.rng();
        let mut maxima: Vec<f64> =
            (0..sim.trials()).map(|_| self.shards.iter().map(|s| s.draw(&mut rng)).fold(0.0, f64::max)).collect();
        maxima.sort_unstable_by(f64::total_cmp);
        Ok(FanOutRun { simulation: *sim, maxima: Latency::from_sorted(maxima.into()), formula: self.clone() })
    }
}

/// A simulated run of fan-out queries: the empirical distribution of their
/// latencies, beside the formula's.
#[derive(Debug, Clone, PartialEq)]
pub struct FanOutRun {
    simulation: Simulation,
    maxima: Latency,
    formula: FanOut,
}

impl FanOutRun {
    /// The settings it ran with.
    pub fn simulation(&self) -> &Simulation {
        &self.simulation
    }

    /// The fan-out it simulated (whose methods give the formula).
    pub fn fan_out(&self) -> &FanOut {
        &self.formula
    }

    /// The queries' latencies as an empirical distribution.
    pub fn latencies(&self) -> &Latency {
        &self.maxima
    }

    /// The share of simulated queries no slower than `t`.
    pub fn cdf(&self, t: f64) -> f64 {
        self.maxima.cdf(t)
    }

    /// The share of simulated queries slower than `t`.
    pub fn share_slower(&self, t: f64) -> f64 {
        self.maxima.share_slower(t)
    }

    /// The `q`-quantile of the simulated latencies (the same convention:
    /// the smallest simulated latency with at least a share `q` at or
    /// below it). Fails unless `0 < q ≤ 1`.
    pub fn quantile(&self, q: f64) -> Result<f64> {
        self.maxima.quantile(q)
    }

    /// The simulated median.
    pub fn p50(&self) -> f64 {
        self.quantile(0.5).unwrap_or(f64::NAN)
    }

    /// The simulated 99th percentile.
    pub fn p99(&self) -> f64 {
        self.quantile(0.99).unwrap_or(f64::NAN)
    }
}

/// One shard count of a [`FanOutSweep`]: formula and simulation.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct FanOutRow {
    /// Shards the query waits for.
    pub shards: usize,
    /// `1 − Π Fᵢ(t)`: the share of queries slower than `t`.
    pub share_slower: f64,
    /// `1 − (1 − p)^N` ([`share_slow`]) when the latency is two-point and
    /// `fast ≤ t < slow` (slower than `t` is then "met a slow shard").
    pub share_closed_form: Option<f64>,
    /// The share of simulated queries slower than `t`.
    pub share_simulated: f64,
    /// The formula's median.
    pub p50: f64,
    /// The simulation's median.
    pub p50_simulated: f64,
    /// The formula's 99th percentile.
    pub p99: f64,
    /// The simulation's 99th percentile.
    pub p99_simulated: f64,
}

/// Fan-out queries over several shard counts, formula beside simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct FanOutSweep {
    latency: Latency,
    slower_than: f64,
    simulation: Simulation,
    rows: Vec<FanOutRow>,
}

impl FanOutSweep {
    /// For each count `N` in `shards`, `N` shards of `latency`: the share
    /// of queries slower than `slower_than_ms`, p50 and p99, by formula and
    /// by simulation (each `N` simulated with `sim`, from its seed).
    ///
    /// Fails on an empty list ([`Error::OutOfRange`]), a count of 0
    /// ([`Error::NoNodes`]), a `slower_than_ms` that is not a finite number
    /// ≥ 0, and on all counts' draws together (queries × shards, each count
    /// at least 624: a seeded generator makes its first 624 at once) over
    /// [`Limits::max_requests`](crate::limits::Limits::max_requests).
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::analysis::{FanOutSweep, Latency, Simulation};
    /// let shard = Latency::two_point(10.0, 200.0, 0.01)?;
    /// let sweep = FanOutSweep::run(&shard, &[1, 10], 10.0, &Simulation::new(20_000).seed(1))?;
    /// for row in sweep.rows() {
    ///     let formula = 1.0 - 0.99_f64.powi(row.shards as i32); // 1 − (1 − p)^N
    ///     assert!((row.share_slower - formula).abs() < 1e-12);
    ///     // the simulation lands within 4 binomial standard deviations of it
    ///     assert!((row.share_simulated - formula).abs() < 4.0 * (formula * (1.0 - formula) / 20_000.0).sqrt());
    /// }
    /// // ten shards: P(max ≤ 10 ms) = 0.99^10 < 0.99, so the p99 is the slow time
    /// assert_eq!((sweep.rows()[1].p50, sweep.rows()[1].p99), (10.0, 200.0));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn run(latency: &Latency, shards: &[usize], slower_than_ms: f64, sim: &Simulation) -> Result<FanOutSweep> {
        if shards.is_empty() {
            return Err(Error::OutOfRange {
                what: "list of shard counts",
                given: "[]".into(),
                allowed: "one count or more, e.g. [1, 4, 16]".into(),
            });
        }
        let t = check_ms("slower_than_ms", slower_than_ms)?;
        sim.check_runs(shards.iter().map(|&n| limits::product(n, sim.trials())))?;
        let mut rows = Vec::with_capacity(shards.len());
        for &n in shards {
            let f = FanOut::copies(latency, n)?;
            let run = f.simulate(sim)?;
            let closed = match latency.two_point_parts() {
                Some((fast, slow, p)) if fast <= t && t < slow => Some(share_slow(p, n as u64)?),
                _ => None,
            };
            rows.push(FanOutRow {
                shards: n,
                share_slower: f.share_slower(t),
                share_closed_form: closed,
                share_simulated: run.share_slower(t),
                p50: f.p50(),
                p50_simulated: run.p50(),
                p99: f.p99(),
                p99_simulated: run.p99(),
            });
        }
        Ok(FanOutSweep { latency: latency.clone(), slower_than: t, simulation: *sim, rows })
    }

    /// One row per shard count, in the order given.
    pub fn rows(&self) -> &[FanOutRow] {
        &self.rows
    }

    /// Each shard's latency.
    pub fn latency(&self) -> &Latency {
        &self.latency
    }

    /// The threshold `t` of the shares, in milliseconds.
    pub fn slower_than(&self) -> f64 {
        self.slower_than
    }

    /// The simulation settings.
    pub fn simulation(&self) -> &Simulation {
        &self.simulation
    }
}

#[cfg(test)]
#[path = "fanout_tests.rs"]
mod tests;
