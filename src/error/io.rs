//! An I/O error inside an [`Error`](super::Error).

use std::fmt;

/// An I/O error inside an [`Error`](super::Error), shared so that `Error` stays `Clone`;
/// two are equal when their kind and text are.
#[derive(Debug, Clone)]
pub struct IoError(std::sync::Arc<std::io::Error>);

impl IoError {
    /// The I/O error itself.
    pub fn io(&self) -> &std::io::Error {
        &self.0
    }
}

impl From<std::io::Error> for IoError {
    fn from(e: std::io::Error) -> IoError {
        IoError(std::sync::Arc::new(e))
    }
}

impl PartialEq for IoError {
    fn eq(&self, other: &IoError) -> bool {
        self.0.kind() == other.0.kind() && self.0.to_string() == other.0.to_string()
    }
}

impl Eq for IoError {}

impl fmt::Display for IoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
