//! Lab 11's explorable: how many requests a router misroutes while shards
//! move, against how often it polls the map, for each request rate (the
//! slider) — beside the three policies that do not poll, all counted
//! exactly by the crate over the same round-robin trace
//! ([`StaleRouting`]). A live run's counts go beside them as the series
//! [`LIVE`] ([`add_live`]).
//!
//! ```
//! use reshard::analysis::{ScheduledMove, StaleRouting};
//! use reshard::present::explore_routing::{add_live, POLL, WHOLE_MAP};
//! use reshard::schemes::ShardMap;
//! let map = ShardMap::new(12, ["A", "B", "C"])?;
//! let moves = [ScheduledMove::at(1.03, 7, "C")?, ScheduledMove::at(1.03, 3, "B")?, ScheduledMove::at(1.03, 10, "C")?];
//! let mut ex = StaleRouting::explorable(&map, &moves, 3.0, &[50, 100, 200], 100, &[0.1, 0.2, 0.5, 1.0])?;
//! assert_eq!(ex.value(&[100], POLL, 0.5), Some(12.0)); // requests 103 … 149 for shards 3, 7, 10
//! assert_eq!(ex.value(&[100], WHOLE_MAP, 0.5), Some(1.0));
//! add_live(&mut ex, 100, 0.5, 12)?; // what a live router and the fenced nodes counted
//! assert!(ex.output()?.text().contains("poll every T"));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::refresh::{RefreshPolicy, ScheduledMove, StaleRouting};
use crate::analysis::request_trace::{micros, RequestTrace, MAX_RATE, MAX_TRACE_REQUESTS};
use crate::present::explorable::{Explorable, Format, MAX_POINTS};
use crate::schemes::shard_map::ShardMap;
use crate::{limits, Error, Result};

/// The series of a router that polls every T (the x axis).
pub const POLL: &str = "poll every T";
/// The series of a router that reads the whole map on a stale reply.
pub const WHOLE_MAP: &str = "whole map on a stale reply";
/// The series of a router that reads one entry per stale reply.
pub const ENTRY: &str = "one entry per stale reply";
/// The series of a router that watches the map.
pub const WATCH: &str = "watch";
/// The series of live runs' counts.
pub const LIVE: &str = "live: poll every T (etcd + fenced nodes)";

/// The most requests (all rates, all policies) one explorable counts.
const MAX_WORK: u128 = 50_000_000;

impl StaleRouting {
    /// A line chart: stale requests (misroutes) against the poll period T
    /// (`periods`, seconds), one slider `rate` over `rates` (requests per
    /// second; starts at `rate`, added if missing). For each rate the trace
    /// is round-robin over `map`'s shards for `seconds` seconds
    /// (`round(seconds × rate)` requests, at least 1); `moves` happen at
    /// their times. Four series: [`POLL`] over the periods, and the
    /// policies without a period, flat: [`WHOLE_MAP`], [`ENTRY`],
    /// [`WATCH`].
    ///
    /// Fails on no periods or rates, a period or `seconds` that is not a
    /// finite number above 0, a rate of 0, traces over
    /// [`MAX_TRACE_REQUESTS`], too many points, or moves that do not apply.
    pub fn explorable(
        map: &ShardMap,
        moves: &[ScheduledMove],
        seconds: f64,
        rates: &[u32],
        rate: u32,
        periods: &[f64],
    ) -> Result<Explorable> {
        micros("seconds of requests", seconds, true)?;
        if periods.is_empty() {
            return Err(Error::OutOfRange {
                what: "poll periods",
                given: "none".into(),
                allowed: "at least one, e.g. [0.1, 0.2, 0.5, 1.0]".into(),
            });
        }
        let mut grid: Vec<u32> = rates.iter().copied().chain([rate]).collect();
        grid.sort_unstable();
        grid.dedup();
        if let Some(&bad) = grid.iter().find(|&&r| r == 0 || r > MAX_RATE) {
            return Err(Error::OutOfRange {
                what: "request rate (per second)",
                given: bad.to_string(),
                allowed: format!("1 to {MAX_RATE}"),
            });
        }
        let polls = periods.iter().map(|&p| RefreshPolicy::poll(p)).collect::<Result<Vec<_>>>()?;
        limits::check_hint(
            "points in one explorable (rates × (periods × 4))",
            (grid.len() as u128) * (periods.len() as u128) * 4,
            MAX_POINTS as u128,
            "explore fewer rates or periods",
        )?;
        let sizes: Vec<usize> = grid.iter().map(|&r| ((seconds * f64::from(r)).round() as usize).max(1)).collect();
        for &n in &sizes {
            limits::check_hint(
                "requests in a trace (seconds × rate)",
                n as u128,
                MAX_TRACE_REQUESTS as u128,
                "use fewer seconds or lower rates",
            )?;
        }
        let work: u128 = sizes.iter().map(|&n| n as u128 * (polls.len() as u128 + 3)).sum();
        limits::check_hint("requests counted in all", work, MAX_WORK, "use fewer seconds, rates or periods")?;
        let title = format!(
            "Requests a router misroutes while {} shard{} move, against its poll period",
            moves.len(),
            if moves.len() == 1 { "" } else { "s" }
        );
        let mut ex = Explorable::line(&title, "poll period T (s)", "stale requests (misrouted)")
            .slider("rate", grid.iter().copied(), rate)?
            .format(Format::Count)
            .size(720, 320);
        let xs: Vec<f64> = polls
            .iter()
            .map(|p| match p {
                RefreshPolicy::Poll(period) => period.as_seconds(),
                _ => 0.0,
            })
            .collect();
        for (&r, &n) in grid.iter().zip(&sizes) {
            let sim = StaleRouting::new(map, moves, &RequestTrace::round_robin(map.shards(), n, r)?)?;
            let poll: Vec<f64> =
                polls.iter().map(|&p| sim.run(p).map(|run| run.stale as f64)).collect::<Result<_>>()?;
            ex.series_row(POLL, &[r], xs.iter().copied(), &poll)?;
            for (name, policy) in
                [(WHOLE_MAP, RefreshPolicy::WholeMap), (ENTRY, RefreshPolicy::Entry), (WATCH, RefreshPolicy::Watch)]
            {
                let stale = sim.run(policy)?.stale as f64;
                ex.series_row(name, &[r], xs.iter().copied(), &vec![stale; xs.len()])?;
            }
        }
        Ok(ex)
    }
}

/// Add a live run's count of stale requests at request rate `rate` and
/// poll period `period` (seconds) as a point of the series [`LIVE`].
pub fn add_live(ex: &mut Explorable, rate: u32, period: f64, stale: u64) -> Result<()> {
    let x = RefreshPolicy::poll(period).map(|p| match p {
        RefreshPolicy::Poll(p) => p.as_seconds(),
        _ => period,
    })?;
    ex.series_point(LIVE, &[rate], x, stale as f64)
}
