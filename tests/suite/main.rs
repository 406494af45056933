//! The integration tests, compiled and linked as one test binary.
//!
//! Each file here was a test binary of its own (`tests/<name>.rs`); as
//! modules of one crate they build once, link once and share their threads.
//! Run one file's tests with a filter: `cargo test --test suite documents::`.
//!
//! Kept as binaries of their own, beside this directory:
//! - `limits.rs` and `raised_limits.rs` change the process-wide limits;
//! - `exercise_reports.rs` counts the panics that reach the process's panic
//!   hook, which must be its own before the crate first silences a
//!   learner's panic;
//! - `cli.rs` and `cli_keys.rs` run the `reshard` binary (feature `cli`);
//! - `redis.rs`, `proxies_live.rs` and `postgres_live.rs` start servers
//!   (features `redis`, `proxies`, `postgres`), each run on its own.

#[path = "../common/mod.rs"]
mod common;
#[cfg(feature = "charts")]
#[path = "../common/spec.rs"]
mod spec;

mod beyond;
mod bucket_exercise;
mod compare;
mod documents;
mod errors;
mod explorable;
mod explorables_labs_01_02;
mod explorables_labs_03;
mod explorables_labs_04;
mod explorables_labs_05;
mod explorables_labs_06_08;
mod explorables_labs_0910;
mod fanout;
mod hot;
mod hot_range_splits;
mod independent;
mod layout;
mod no_panic;
mod non_exhaustive;
mod own_keys;
mod prelude;
mod proxies;
mod range_growth;
mod ranges;
mod reproduce;
mod robust;
mod secondary;
mod shard_controller;
mod stale_reads;
mod stale_router;
