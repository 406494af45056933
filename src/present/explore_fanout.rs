//! The tail of a scatter/gather query as an explorable (lab 10): for each
//! shard's chance of a slow answer on a slider, the share of queries that
//! wait for a slow shard against the shards asked, by formula and by
//! simulation.
//!
//! ```
//! use reshard::notebook::*;
//! use reshard::present::explore_fanout::FORMULA;
//! let ps = [0.01, 0.05];
//! let sim = Simulation::new(2_000).seed(42);
//! let ex = FanOutSweep::explorable_p_slow("Queries waiting for a slow shard", 50.0, &ps, 0.01, &[1, 4, 16], &sim)?;
//! assert_eq!(ex.value(&[0.01], FORMULA, 16), Some(share_slow(0.01, 16)?)); // 14.9%
//! let simulated = ex.value(&[0.05], "simulated, 2,000 queries", 4).expect("computed");
//! assert!((simulated - share_slow(0.05, 4)?).abs() < 0.03);
//! assert_eq!(ex.points(), 2 * 3 * 2);
//! // A chance outside [0, 1] is an error, not a panic:
//! assert!(FanOutSweep::explorable_p_slow("t", 50.0, &[0.01, 1.5], 0.01, &[4], &sim).is_err());
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::{share_slow, FanOutSweep, Latency, Simulation};
use crate::present::explorable::{Explorable, Format, MAX_POINTS};
use crate::present::thousands;
use crate::{limits, Error, Result};

/// The formula's series: `1 − (1 − p)^N` ([`share_slow`]).
pub const FORMULA: &str = "1 − (1 − p_slow)^N";

impl FanOutSweep {
    /// An explorable line chart (slider `p_slow`, the lab's parameter name):
    /// for each chance `p` in `ps` that a shard answers `slow_ms` late
    /// (else at once: [`Latency::two_point`]`(0, slow_ms, p)`), the share of
    /// fan-out queries slower than `slow_ms / 2` (those that wait for a slow
    /// shard) against the shards asked, for each count in `shards`. Two
    /// series: [`FORMULA`], `1 − (1 − p)^N` ([`share_slow`]), and
    /// "simulated, 10,000 queries" (with `sim`'s query count: the
    /// [`FanOutSweep::run`] of that `p` with `sim`). The slider starts at
    /// `p_slow` (added to `ps` if it is not there).
    ///
    /// Fails on a `slow_ms` that is not a finite number above 0, more
    /// points than an explorable holds (before any simulation), and as [`Latency::two_point`] and [`FanOutSweep::run`]
    /// do (a `p` outside [0, 1], a count of 0, too many draws).
    pub fn explorable_p_slow(
        title: &str,
        slow_ms: f64,
        ps: &[f64],
        p_slow: f64,
        shards: &[usize],
        sim: &Simulation,
    ) -> Result<Explorable> {
        if !(slow_ms.is_finite() && slow_ms > 0.0) {
            return Err(Error::BadNumber {
                what: "slow_ms",
                value: slow_ms.to_string(),
                expected: "a finite number of milliseconds above 0",
                hint: "use the lab's slow_ms, e.g. 50.0",
            });
        }
        let mut grid: Vec<f64> = ps.iter().copied().chain([p_slow]).collect();
        grid.sort_by(f64::total_cmp);
        grid.dedup();
        let mut counts: Vec<usize> = shards.to_vec();
        counts.sort_unstable();
        counts.dedup();
        let t = slow_ms / 2.0;
        let ex = Explorable::line(title, "shards the query waits for (N)", &format!("queries slower than {t} ms"))
            .slider("p_slow", grid.iter().copied(), p_slow)?
            .format(Format::Percent(1));
        limits::check_hint(
            "points in one explorable (values of p_slow × shard counts × 2)",
            (grid.len() as u128) * (counts.len() as u128) * 2,
            MAX_POINTS as u128,
            "explore fewer values of p_slow or fewer shard counts",
        )?;
        // Every chance checked, and the draws of all simulations together, before the first.
        let latencies = grid.iter().map(|&p| Latency::two_point(0.0, slow_ms, p)).collect::<Result<Vec<_>>>()?;
        let per_p = counts.iter().fold(0u128, |a, &n| a.saturating_add(limits::product(n, sim.trials())));
        sim.check(per_p.saturating_mul(grid.len() as u128))?;
        let simulated = format!("simulated, {} queries", thousands(sim.trials() as u64));
        let mut ex = ex;
        let mut sweeps = Vec::with_capacity(grid.len());
        for latency in &latencies {
            sweeps.push(FanOutSweep::run(latency, &counts, t, sim)?);
        }
        // The formula's series first: its values are the ones written on the line.
        for (&p, _) in grid.iter().zip(&sweeps) {
            let ys = counts.iter().map(|&n| share_slow(p, n as u64)).collect::<Result<Vec<f64>>>()?;
            ex.series_row(FORMULA, &[p], counts.iter().copied(), &ys)?;
        }
        for (&p, sweep) in grid.iter().zip(&sweeps) {
            let ys: Vec<f64> = sweep.rows().iter().map(|r| r.share_simulated).collect();
            ex.series_row(&simulated, &[p], counts.iter().copied(), &ys)?;
        }
        Ok(ex)
    }
}
