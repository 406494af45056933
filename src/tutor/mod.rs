//! Beside the three floors: the source documents' figures and this run's,
//! side by side ("document 89,813 · measured 89,813 ✓").
//!
//! The tutor uses every floor below it; nothing uses the tutor.

pub mod check;
pub mod reproduce;

pub use check::{Check, Checks};
