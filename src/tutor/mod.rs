//! Beside the three floors: the source documents' figures and this run's,
//! side by side ("reference 89,813 · measured 89,813 ✓"); the reader's
//! guesses, kept with their measurements ([`Predictions`]); and each lab's
//! exercise, the learner's function checked against the crate's
//! ([`exercises`]).
//!
//! The tutor uses every floor below it; nothing uses the tutor.

pub mod check;
pub mod exercises;
pub mod guess;
pub mod observed;
pub mod observed_cache;
#[cfg(feature = "postgres")]
pub mod observed_pg;
pub mod params;
pub mod predictions;
pub mod reproduce;

pub use check::{Check, Checks, Theory, Verdict};
pub use guess::{Guess, Quiz};
pub use params::{Param, Params};
pub use predictions::{Measured, Prediction, Predictions, Source};
