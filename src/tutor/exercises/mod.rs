//! Exercises: the learner writes a placement step themselves, and the crate
//! runs it on thousands of inputs (edge cases first: the wrap-around, an
//! empty hash tag, ties) beside its own answer.
//!
//! A check returns a [`Report`]: ✓ with the count of inputs that agree, or
//! the first input where the two answers differ, with both. A notebook's
//! check cell prints it and asserts it passed, so a grader counts a wrong
//! answer (and a `todo!()` stub) as a failure:
//!
//! ```
//! use reshard::tutor::exercises::Report;
//! let cases = (0u64..1000).map(|n| (format!("n = {n}"), n % 7));
//! let right = Report::compare("n % 7", cases.clone(), |i| i as u64 % 7);
//! assert!(right.passed());
//! assert_eq!(right.to_string(), "✓ n % 7: your function agrees with the crate on all 1,000 inputs\n");
//! let wrong = Report::compare("n % 7", cases, |i| (i as u64 + 1) % 7);
//! assert!(!wrong.passed());
//! assert!(wrong.to_string().contains("n = 0: yours 1, the crate's 0"), "{wrong}");
//! ```

// One exercise per lab: 01 ring, 02 rendezvous, 03 controller (a shard controller, graded on its
// invariants), 04 bucket (graded on properties: `properties`), 05 bounded, 06 keyslot, 07 replicas,
// 08 nginx; ranges for the range-sharding lab, fanout for the secondary-index lab, router (a router's
// retry loop, graded on its invariants) for the shard-map lab.
pub mod bounded;
pub mod bucket;
pub mod controller;
pub mod fanout;
pub mod keyslot;
pub mod nginx;
pub mod properties;
pub mod ranges;
pub mod rendezvous;
pub mod replicas;
pub mod ring;
pub mod router;

pub use bounded::bounded_owner;
pub use bucket::consistent_bucket;
pub use controller::{shard_controller, Assignment, Counterexample, Invariant, InvariantReport, Op, ShardController};
pub use fanout::fanout_quantile;
pub use keyslot::key_slot;
pub use nginx::nginx_backend;
pub use ranges::{range_of, Boundaries};
pub use rendezvous::rendezvous_owner;
pub use replicas::replica_set;
pub use ring::ring_owner;
pub use router::stale_router;

use std::fmt;

use crate::present::thousands;
use crate::schemes::ring::Sorted;
use properties::catch_quietly;

/// The first input on which the learner's answer and the crate's differ.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Difference {
    /// The input, described (e.g. `key "user:17" (hash 0x1f…)`).
    pub input: String,
    /// The learner's answer, or what went wrong (a panic's message).
    pub yours: String,
    /// The crate's answer.
    pub expected: String,
    /// How many inputs agreed before this one.
    pub agreed_before: usize,
    /// Why the input is rejected when it is not a wrong answer: the answer is right but got
    /// the wrong way (a binary search that compared every boundary). `None` for a plain
    /// difference of answers.
    pub why: Option<String>,
    /// What a wrong answer looks like it came from, when the check recognises it ("the
    /// largest of the shards' own quantiles"): shown after the difference.
    pub hint: Option<String>,
}

/// The outcome of an exercise's check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    title: String,
    inputs: usize,
    difference: Option<Difference>,
    note: Option<String>,
}

impl Report {
    /// Run `yours` on every input, in order, against the expected answers:
    /// `cases` yields (a description of input i, the crate's answer), and
    /// `yours(i)` is the learner's answer for input i. Stops at the first
    /// difference. A panic in `yours` (a `todo!()`, an index out of bounds)
    /// is caught and reported as the difference, without also being printed.
    /// An answer is shown in at most [`MAX_SHOWN`] characters.
    pub fn compare<T, I, F>(title: &str, cases: I, mut yours: F) -> Report
    where
        T: PartialEq + fmt::Debug,
        I: IntoIterator<Item = (String, T)>,
        F: FnMut(usize) -> T,
    {
        let mut inputs = 0;
        for (i, (input, expected)) in cases.into_iter().enumerate() {
            inputs += 1;
            let yours = match catch_quietly(|| yours(i)) {
                Ok(v) if v == expected => continue,
                Ok(v) => clip(format!("{v:?}")),
                Err(message) => clip(format!("panicked: {message}")),
            };
            let expected = clip(format!("{expected:?}"));
            let difference = Difference { input, yours, expected, agreed_before: i, why: None, hint: None };
            return Report { title: title.to_string(), inputs, difference: Some(difference), note: None };
        }
        Report { title: title.to_string(), inputs, difference: None, note: None }
    }

    /// A report that rejects input `agreed_before` (0-based; `inputs` were tried) for a reason
    /// other than a wrong answer: `why` says what was wrong, `yours` what the function did.
    pub(crate) fn rejected(title: &str, inputs: usize, input: String, yours: String, why: String) -> Report {
        let agreed_before = inputs.saturating_sub(1);
        let difference =
            Difference { input, yours, expected: String::new(), agreed_before, why: Some(why), hint: None };
        Report { title: title.to_string(), inputs, difference: Some(difference), note: None }
    }

    /// The same report with `hint(input index)` set on its difference, if it has one (a
    /// check that recognises a common wrong answer says so).
    pub(crate) fn with_hint(mut self, hint: impl FnOnce(usize) -> Option<String>) -> Report {
        if let Some(d) = &mut self.difference {
            d.hint = hint(d.agreed_before);
        }
        self
    }

    /// True when every input agreed (and there was at least one).
    pub fn passed(&self) -> bool {
        self.difference.is_none() && self.inputs > 0
    }

    /// The first difference, if any.
    pub fn difference(&self) -> Option<&Difference> {
        self.difference.as_ref()
    }

    /// How many inputs were tried (up to and including the first difference).
    pub fn inputs(&self) -> usize {
        self.inputs
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.difference {
            None if self.inputs == 0 => writeln!(f, "✗ {}: nothing was checked (no inputs)", self.title),
            None => {
                writeln!(
                    f,
                    "✓ {}: your function agrees with the crate on all {} inputs",
                    self.title,
                    thousands(self.inputs as u64)
                )?;
                match &self.note {
                    Some(note) => f.write_str(&indented(note)),
                    None => Ok(()),
                }
            }
            Some(d) if d.why.is_some() => {
                writeln!(f, "✗ {}: at {}:", self.title, d.input)?;
                let why = d.why.as_deref().unwrap_or_default();
                f.write_str(&indented(&format!(
                    "{}; {why} ({} inputs agreed before it)",
                    d.yours,
                    thousands(d.agreed_before as u64)
                )))
            }
            Some(d) => {
                writeln!(
                    f,
                    "✗ {}: first difference at {}: yours {}, the crate's {} ({} inputs agreed before it)",
                    self.title,
                    d.input,
                    d.yours,
                    d.expected,
                    thousands(d.agreed_before as u64)
                )?;
                match &d.hint {
                    Some(hint) => f.write_str(&indented(hint)),
                    None => Ok(()),
                }
            }
        }
    }
}

/// `text` as lines of at most 100 columns, each indented by two spaces (a report's second
/// lines: a page prints 100 columns).
fn indented(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::from(" ");
    for word in text.split_whitespace() {
        if line.chars().count() + 1 + word.chars().count() > 100 && !line.trim().is_empty() {
            out.push_str(&line);
            out.push('\n');
            line = String::from(" ");
        }
        line.push(' ');
        line.push_str(word);
    }
    if !line.trim().is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// A ring's points as a learner's function gets them: (32-bit position, node index), in ring
/// order (the exercises of labs 01, 05 and 07).
fn ring_points(sorted: &Sorted<u32>) -> Vec<(u32, usize)> {
    sorted.hashes.iter().zip(&sorted.nodes).map(|(&h, &n)| (h, n as usize)).collect()
}

/// The most characters of an answer a report shows: a learner's function
/// that answers a million items would otherwise print megabytes into the
/// notebook.
pub const MAX_SHOWN: usize = 1_000;

/// `text`, cut after [`MAX_SHOWN`] characters, saying how long it was.
pub(crate) fn clip(text: String) -> String {
    match text.char_indices().nth(MAX_SHOWN) {
        None => text,
        Some((cut, _)) => {
            let all = thousands(text.chars().count() as u64);
            format!("{} … (cut: {all} characters in all)", &text[..cut])
        }
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a message)".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_todo_stub_is_a_difference_not_a_crash() {
        let r = Report::compare("stub", [("x".to_string(), 1u32)], |_| -> u32 { todo!() });
        assert!(!r.passed());
        assert!(r.to_string().contains("panicked: not yet implemented"), "{r}");
    }

    #[test]
    fn no_inputs_is_not_a_pass() {
        let r = Report::compare("empty", Vec::<(String, u8)>::new(), |_| 0);
        assert!(!r.passed());
    }
}
