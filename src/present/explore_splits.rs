//! The splits of a growing range-sharded table as an explorable (lab 09):
//! for each split threshold on a slider, the splits made so far as the keys
//! arrive, one line per arrival order.
//!
//! Every point is a [`RangeGrowth`] run's: the splits whose arrival is at or
//! before that point, counted after every twentieth of the keys.
//!
//! ```
//! use reshard::notebook::*;
//! let keys = KeySet::new("event", 4_000);
//! let one = KeyRanges::named(letters("ABCD"))?; // one range, on A
//! let settings = GrowthSettings::new(400).balance(2.0);
//! let ways = [("in order", Arrival::KeyOrder), ("at random", Arrival::Shuffled(42))];
//! let ex = RangeGrowth::explorable_splits("Splits so far", &keys, &one, &settings, &[200, 400, 800], &ways)?;
//! let in_order = RangeGrowth::run(&keys, &one, &settings)?;
//! assert_eq!(ex.value(&[400], "in order", 4_000), Some(in_order.splits().len() as f64));
//! assert_eq!(ex.value(&[400], "at random", 0), Some(0.0));
//! assert_eq!(ex.points(), 3 * 2 * 21);
//! // The lab's threshold joins the slider's values; a threshold of 0 is an error:
//! let ex = RangeGrowth::explorable_splits("t", &keys, &one, &settings, &[200], &ways)?;
//! assert_eq!((ex.defaults(), ex.points()), (vec![("threshold", 400.0)], 2 * 2 * 21));
//! assert!(RangeGrowth::explorable_splits("t", &keys, &one, &settings, &[0, 400], &ways).is_err());
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::splits::{check_arrivals, check_ranges};
use crate::analysis::{Arrival, GrowthSettings, RangeGrowth, RangeLayout};
use crate::keys::KeySet;
use crate::present::explorable::{repeated, Explorable, Format, MAX_POINTS};
use crate::{limits, Error, Result};

/// Points per line, after the start: the splits are counted after every
/// twentieth of the keys.
const STEPS: usize = 20;

impl RangeGrowth {
    /// An explorable line chart (slider `threshold`, the lab's parameter
    /// name): for each split threshold in `thresholds`, the splits made so
    /// far against the keys arrived (after every twentieth of `keys`), one
    /// line per `(name, arrival order)` of `arrivals`. Each run is
    /// [`RangeGrowth::run`] of `keys` into `start` with `settings`' balancer,
    /// the threshold and the arrival order replaced; the slider starts at
    /// `settings`' threshold (added to `thresholds` if it is not there).
    ///
    /// Fails on no keys, more keys than a run takes, no arrival orders, two
    /// named alike ([`Error::NameTaken`]: each is a line), a threshold of 0
    /// and more points than an explorable holds (before any run), and as
    /// [`RangeGrowth::run`] does.
    pub fn explorable_splits(
        title: &str,
        keys: &KeySet,
        start: impl Into<RangeLayout>,
        settings: &GrowthSettings,
        thresholds: &[u64],
        arrivals: &[(&str, Arrival)],
    ) -> Result<Explorable> {
        let start = start.into();
        if arrivals.is_empty() {
            return Err(Error::OutOfRange {
                what: "arrival orders",
                given: "none".into(),
                allowed: "one or more, e.g. [(\"time order\", Arrival::KeyOrder)]".into(),
            });
        }
        if keys.is_empty() {
            return Err(Error::NoKeys);
        }
        check_arrivals(keys.len())?;
        if thresholds.contains(&0) || settings.threshold() == 0 {
            return Err(Error::OutOfRange {
                what: "split threshold",
                given: "0".into(),
                allowed: "1 or more rows (a range splits when it holds more than this)".into(),
            });
        }
        let mut grid: Vec<u64> = thresholds.iter().copied().chain([settings.threshold()]).collect();
        grid.sort_unstable();
        grid.dedup();
        let ex = Explorable::line(title, "keys arrived", "splits so far")
            .slider("threshold", grid.iter().copied(), settings.threshold())?
            .format(Format::Count);
        let n = keys.len();
        // k · n / STEPS exactly (n is within the key limit, the product within u128)
        let mut at: Vec<usize> = (0..=STEPS).map(|k| (k as u128 * n as u128 / STEPS as u128) as usize).collect();
        at.dedup();
        limits::check_hint(
            "points in one explorable (thresholds × arrival orders × 21)",
            (grid.len() as u128) * (arrivals.len() as u128) * (at.len() as u128),
            MAX_POINTS as u128,
            "explore fewer thresholds or fewer arrival orders",
        )?;
        // the smallest threshold makes the most ranges: refused before any run
        check_ranges(start.table().len(), n, grid[0])?;
        if let Some(name) = repeated(arrivals.iter().map(|a| a.0)) {
            return Err(Error::NameTaken {
                what: "arrival order",
                name: name.to_string(),
                by: "another arrival order of this chart (each order is a line, named by its name)",
            });
        }
        let mut ex = ex;
        for &t in &grid {
            for &(name, arrival) in arrivals {
                let mut s = GrowthSettings::new(t).arrival(arrival).sample_every(n);
                if let Some(f) = settings.balance_factor() {
                    s = s.balance(f);
                }
                let run = RangeGrowth::run(keys, start.clone(), &s)?;
                let splits = run.splits();
                let ys: Vec<f64> =
                    at.iter().map(|&a| splits.partition_point(|x| x.arrival <= a as u64) as f64).collect();
                ex.series_row(name, &[t], at.iter().copied(), &ys)?;
            }
        }
        Ok(ex)
    }
}
