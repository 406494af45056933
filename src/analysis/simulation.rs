//! The settings of a seeded simulation: how many trials (queries, writes)
//! and the seed of the generator that draws them.
//!
//! Every simulation of the crate draws from [`PyRandom`] (Python's
//! `random.Random(seed)`, MT19937), one trial after another, so the same
//! settings give the same figures on every machine, and a Python cell with
//! the same seed can draw the same numbers (`random()`, `randrange(n)`).
//!
//! ```
//! use reshard::analysis::Simulation;
//! let s = Simulation::new(100_000).seed(7);
//! assert_eq!((s.trials(), s.seed_value()), (100_000, 7));
//! assert_eq!(Simulation::new(10).seed_value(), reshard::analysis::workload::DEFAULT_SEED);
//! ```

use crate::analysis::workload::DEFAULT_SEED;
use crate::{limits, Error, PyRandom, Result};

/// The draws one seeded run costs at least: MT19937 makes its outputs 624
/// at a time, the first 624 when the generator is first asked.
pub(crate) const SEEDED_DRAWS: u128 = 624;

/// Trials and seed of a simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Simulation {
    trials: usize,
    seed: u64,
}

impl Simulation {
    /// `trials` trials (queries, writes) with the notebooks' seed
    /// ([`DEFAULT_SEED`]).
    pub fn new(trials: usize) -> Simulation {
        Simulation { trials, seed: DEFAULT_SEED }
    }

    /// The same trials with another seed.
    pub fn seed(self, seed: u64) -> Simulation {
        Simulation { seed, ..self }
    }

    /// How many trials.
    pub fn trials(&self) -> usize {
        self.trials
    }

    /// The seed.
    pub fn seed_value(&self) -> u64 {
        self.seed
    }

    /// A fresh generator, `random.Random(seed)`.
    pub(crate) fn rng(&self) -> PyRandom {
        PyRandom::new(self.seed)
    }

    /// `Ok` when there is at least one trial and the runs' draws together
    /// are within [`Limits::max_requests`](crate::limits::Limits::max_requests),
    /// `runs` giving each run's draws: a run costs at least
    /// [`SEEDED_DRAWS`], however few trials it has (a sweep of forty
    /// million lags of one trial each seeded forty million generators).
    pub(crate) fn check_runs(&self, runs: impl IntoIterator<Item = u128>) -> Result<()> {
        let total = runs.into_iter().fold(0u128, |a, d| a.saturating_add(d.max(SEEDED_DRAWS)));
        self.check(0)?;
        limits::check_hint(
            "random draws of the simulations (each run at least 624: a seeded generator makes its first 624 at once)",
            total,
            limits::current().max_requests,
            "simulate fewer trials or runs (or raise limits::Limits::max_requests)",
        )
    }

    /// `Ok` when there is at least one trial and `draws` random draws in
    /// all are within [`Limits::max_requests`](crate::limits::Limits::max_requests).
    pub(crate) fn check(&self, draws: u128) -> Result<()> {
        if self.trials == 0 {
            return Err(Error::OutOfRange {
                what: "simulated trials",
                given: "0".into(),
                allowed: "1 or more (100,000 gives shares to about ±0.3 percentage points)".into(),
            });
        }
        limits::check_hint(
            "random draws of a simulation (trials × draws per trial)",
            draws,
            limits::current().max_requests,
            "simulate fewer trials (or raise limits::Limits::max_requests)",
        )
    }
}
