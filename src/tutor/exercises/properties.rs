//! A report graded on properties, not on one answer: each property a
//! learner's function must keep is named, with the rule and what it was
//! tried on, and a property that fails shows its smallest counterexample.
//! A property that could not be tried (the function panicked first) says
//! so instead of passing.
//!
//! ```
//! use reshard::tutor::exercises::properties::{Outcome, Properties, Property};
//! let report = Properties::new("your bucket function")
//!     .with(Property::new("in range", "bucket(key, n) < n", "1,000 keys × n = 1 … 40"))
//!     .with(Property::new("balanced", "every bucket holds about 1/n of the keys", "n = 1 … 40")
//!         .fails("n = 3: bucket 0 holds 50.0% of the keys, 1/n = 33.3% ± 1.7%"));
//! assert!(!report.passed());
//! assert_eq!(report.failed(), ["balanced"]);
//! assert!(matches!(report.get("in range").map(|p| p.outcome()), Some(Outcome::Holds)));
//! let text = report.to_string();
//! assert!(text.starts_with("✗ your bucket function: 1 of 2 properties hold"), "{text}");
//! assert!(text.contains("smallest counterexample: n = 3: bucket 0"), "{text}");
//! ```

use std::cell::Cell;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

use super::panic_message;

/// What became of one property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It held on every input tried.
    Holds,
    /// It broke; the smallest counterexample, described.
    Fails(String),
    /// It could not be tried; why (e.g. the function panicked on an input it needs).
    NotChecked(String),
}

/// One property: its name, the rule, what it was tried on, and the outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    name: String,
    rule: String,
    tried: String,
    outcome: Outcome,
}

impl Property {
    /// A property that held: `name` (short), `rule` (what must hold) and
    /// `tried` (on which inputs).
    pub fn new(name: impl Into<String>, rule: impl Into<String>, tried: impl Into<String>) -> Property {
        Property { name: name.into(), rule: rule.into(), tried: tried.into(), outcome: Outcome::Holds }
    }

    /// The same property, broken by `counterexample` (the smallest one found).
    pub fn fails(mut self, counterexample: impl Into<String>) -> Property {
        self.outcome = Outcome::Fails(counterexample.into());
        self
    }

    /// The same property, not tried, for the reason given.
    pub fn not_checked(mut self, why: impl Into<String>) -> Property {
        self.outcome = Outcome::NotChecked(why.into());
        self
    }

    /// Its short name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The rule, in words.
    pub fn rule(&self) -> &str {
        &self.rule
    }

    /// What it was tried on.
    pub fn tried(&self) -> &str {
        &self.tried
    }

    /// Held, failed (with the smallest counterexample) or not checked.
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// True when it held.
    pub fn holds(&self) -> bool {
        self.outcome == Outcome::Holds
    }
}

/// Every property of one exercise, in the order checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Properties {
    title: String,
    properties: Vec<Property>,
}

impl Properties {
    /// An empty report titled `title` (what was checked: "your bucket function").
    pub fn new(title: impl Into<String>) -> Properties {
        Properties { title: title.into(), properties: Vec::new() }
    }

    /// The report with one more property.
    pub fn with(mut self, property: Property) -> Properties {
        self.properties.push(property);
        self
    }

    /// True when there is at least one property and every one held.
    pub fn passed(&self) -> bool {
        !self.properties.is_empty() && self.properties.iter().all(Property::holds)
    }

    /// The properties, in the order checked.
    pub fn properties(&self) -> &[Property] {
        &self.properties
    }

    /// The property named `name`.
    pub fn get(&self, name: &str) -> Option<&Property> {
        self.properties.iter().find(|p| p.name == name)
    }

    /// The names of the properties that failed, in order.
    pub fn failed(&self) -> Vec<&str> {
        self.properties.iter().filter(|p| matches!(p.outcome, Outcome::Fails(_))).map(|p| p.name()).collect()
    }

    /// The names of the properties that could not be checked, in order.
    pub fn not_checked(&self) -> Vec<&str> {
        self.properties.iter().filter(|p| matches!(p.outcome, Outcome::NotChecked(_))).map(|p| p.name()).collect()
    }
}

impl fmt::Display for Properties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let held = self.properties.iter().filter(|p| p.holds()).count();
        let total = self.properties.len();
        let mark = if self.passed() { '✓' } else { '✗' };
        let of = if held == total {
            format!("all {total} properties hold")
        } else {
            format!("{held} of {total} properties hold")
        };
        write!(f, "{}", wrapped(&format!("{mark} {}: {of}", self.title), "    "))?;
        for p in &self.properties {
            let (mark, note) = match &p.outcome {
                Outcome::Holds => ('✓', None),
                Outcome::Fails(c) => ('✗', Some(format!("smallest counterexample: {c}"))),
                Outcome::NotChecked(why) => ('?', Some(format!("not checked: {why}"))),
            };
            write!(f, "{}", wrapped(&format!("  {mark} {}: {}", p.name, p.rule), "      "))?;
            if let Some(note) = note {
                write!(f, "{}", wrapped(&format!("      {note}"), "      "))?;
            }
        }
        Ok(())
    }
}

/// The most columns a report line takes (a notebook prints it; a page holds 100).
pub const WIDTH: usize = 100;

/// `line` broken at spaces into lines of at most [`WIDTH`] columns (a word longer than that
/// stays whole), the lines after the first indented by `indent`; each ends with a newline.
fn wrapped(line: &str, indent: &str) -> String {
    let body = line.trim_start_matches(' ');
    let mut current = line[..line.len() - body.len()].to_string();
    let mut out = String::new();
    for (i, word) in body.split(' ').enumerate() {
        if i > 0 && current.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(&current);
            out.push('\n');
            current = format!("{indent}{word}");
        } else {
            if i > 0 {
                current.push(' ');
            }
            current.push_str(word);
        }
    }
    out.push_str(&current);
    out.push('\n');
    out
}

thread_local! {
    /// True while this thread runs a learner's function under [`catch_quietly`].
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

static QUIET_HOOK: Once = Once::new();

/// Run `f` (a learner's function), catching a panic as its message. The panic is not also
/// printed: the report names it, and evcxr would show the printed one late or under the next
/// cell. The silence holds for this thread and this call only (a panic hook installed once
/// passes every other panic on to the hook that was there before it).
pub(crate) fn catch_quietly<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    QUIET_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    result.map_err(|p| panic_message(&*p))
}

/// `first` then `text`, broken at spaces into lines of at most 98
/// columns, the lines after the first indented by six spaces (the
/// reports of the properties-graded checks, lab 03's controller and lab 11's router).
pub(crate) fn wrap(first: &str, text: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut fresh = true; // nothing of `text` on this line yet
    for word in text.split(' ') {
        if !fresh && line.chars().count() + 1 + word.chars().count() > 98 {
            out.push_str(&line);
            out.push('\n');
            line = " ".repeat(6);
            fresh = true;
        }
        if !fresh {
            line.push(' ');
        }
        line.push_str(word);
        fresh = false;
    }
    out.push_str(&line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_property_is_not_a_pass() {
        assert!(!Properties::new("nothing").passed());
        assert!(Properties::new("nothing").to_string().starts_with("✗ nothing: all 0 properties hold"));
    }

    #[test]
    fn a_property_not_checked_is_not_a_pass() {
        let r = Properties::new("f").with(Property::new("a", "rule", "x").not_checked("f panicked first"));
        assert!(!r.passed());
        assert_eq!(r.not_checked(), ["a"]);
        assert!(r.failed().is_empty());
        assert!(r.to_string().contains("not checked: f panicked first"), "{r}");
    }

    #[test]
    fn a_caught_panic_is_its_message_and_later_panics_still_unwind() {
        assert_eq!(catch_quietly(|| -> u32 { panic!("learner's bug") }), Err("learner's bug".to_string()));
        assert_eq!(catch_quietly(|| 7), Ok(7));
        assert!(!QUIET.with(Cell::get), "the silence ends with the call");
        assert!(catch_unwind(|| panic!("not the learner's")).is_err());
    }

    #[test]
    fn long_lines_wrap_at_the_width_and_keep_every_word() {
        let long = ["word"; 60].join(" ");
        let r = Properties::new("f").with(Property::new("a", long.clone(), "").fails(long.clone()));
        let text = r.to_string();
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        assert_eq!(text.split_whitespace().filter(|w| *w == "word").count(), 120, "{text}");
        assert!(text.lines().skip(2).all(|l| l.starts_with("      ")), "{text}");
    }
}
