//! What a subcommand hands back: text or JSON and an exit code, or an
//! error to print as `error: <message>` with exit code 2.

use serde::Serialize;
use std::io::Write as _;

/// What a command produced: its text and its exit code.
pub struct Output {
    pub text: String,
    pub code: u8,
}

impl Output {
    /// Exit code 0.
    pub fn ok(text: String) -> Self {
        Output { text, code: 0 }
    }

    /// `value` as pretty JSON (with `json`) or `text()` (without). The
    /// JSON is written straight to standard output, never held whole in
    /// memory (a 4096-node movement matrix is hundreds of megabytes of it).
    pub fn either<T: Serialize>(json: bool, value: &T, text: impl FnOnce() -> String) -> Run {
        if !json {
            return Ok(Output::ok(text()));
        }
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let written = serde_json::to_writer_pretty(&mut out, value)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        match written {
            // `reshard … | head` closes the pipe early: not an error.
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure(format!("cannot write JSON: {e}"))),
            _ => Ok(Output::ok(String::new())),
        }
    }
}

/// An error to print as `error: <message>` with exit code 2.
#[derive(Debug)]
pub struct Failure(pub String);

impl From<reshard::Error> for Failure {
    fn from(e: reshard::Error) -> Self {
        Failure(e.to_string())
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure(format!("cannot read or write: {e}"))
    }
}

/// What every subcommand returns.
pub type Run = Result<Output, Failure>;

/// Name the flag a library error came from, for the errors where it is not
/// obvious (node lists, weights): `"<message> (in --to)"`.
pub fn from_flag(flag: &'static str) -> impl Fn(reshard::Error) -> Failure {
    use reshard::Error as E;
    move |e| match e {
        E::NoNodes
        | E::DuplicateNode(_)
        | E::MoreNodesThanShards { .. }
        | E::BadWeight { .. }
        | E::LengthMismatch { .. }
        | E::TooLarge { .. } => Failure(format!("{e} (in {flag})")),
        other => Failure::from(other),
    }
}

/// Pretty JSON.
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, Failure> {
    serde_json::to_string_pretty(value).map_err(|e| Failure(format!("cannot write JSON: {e}")))
}
