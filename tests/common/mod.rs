//! Helpers shared by the integration tests.

use reshard::Error;
use std::panic::{catch_unwind, UnwindSafe};

/// Run `f` (it must not panic), check the error variant and that the
/// message contains `hint`.
pub fn expect_err<T: std::fmt::Debug>(
    what: &str,
    f: impl FnOnce() -> reshard::Result<T> + UnwindSafe,
    is: impl Fn(&Error) -> bool,
    hint: &str,
) {
    let res = catch_unwind(f).unwrap_or_else(|_| panic!("{what}: panicked instead of returning an error"));
    let err = res.expect_err(what);
    assert!(is(&err), "{what}: wrong variant {err:?}");
    let msg = err.to_string();
    assert!(msg.contains(hint), "{what}: message {msg:?} does not contain {hint:?}");
    // std::error::Error is implemented
    let _: &dyn std::error::Error = &err;
}
