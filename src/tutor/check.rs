//! The notebook checks itself: a document's printed figure beside the
//! figure measured in this run.
//!
//! A [`Check`] compares the two as the document printed them (same
//! rounding) and shows "document 89,813 · measured 89,813 ✓". When a reader
//! has changed a parameter, the row says so instead of failing.
//!
//! ```
//! use reshard::{Check, Checks};
//! let mut c = Checks::new("document 004");
//! c.push(Check::count("keys moved by fixed shards", 89_813, 89_813));
//! c.push(Check::percent("share moved", "8.98%", 0.089813));
//! assert!(c.all_match());
//! assert_eq!(c.checks()[0].line(), "document 89,813 · measured 89,813 ✓");
//! ```

use crate::present::tables::{shows_as_table, Table};
use crate::present::thousands;

/// One figure: what the document printed and what this run measured,
/// both as text in the document's format.
///
/// With the `serde` feature it serializes as `label`, `document`,
/// `measured` and `matches`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// What the figure is.
    pub label: String,
    /// The document's value, as printed.
    pub document: String,
    /// This run's value, printed the same way.
    pub measured: String,
}

impl Check {
    /// Compare two strings as printed.
    pub fn new(label: impl Into<String>, document: impl Into<String>, measured: impl Into<String>) -> Self {
        Check { label: label.into(), document: document.into(), measured: measured.into() }
    }

    /// A count, printed with thousands separators.
    pub fn count(label: impl Into<String>, document: u64, measured: u64) -> Self {
        Check::new(label, thousands(document), thousands(measured))
    }

    /// A share printed as a percentage with as many decimals as the
    /// document's `"90.87%"` has.
    pub fn percent(label: impl Into<String>, document: &str, measured_share: f64) -> Self {
        let decimals = document.trim_end_matches('%').split('.').nth(1).map_or(0, str::len);
        Check::new(label, document, format!("{:.*}%", decimals, 100.0 * measured_share))
    }

    /// A plain number printed with the document's decimals and suffix
    /// (e.g. `"10.1×"`).
    pub fn ratio(label: impl Into<String>, document: &str, measured: f64) -> Self {
        let num: String = document.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
        let suffix = &document[num.len()..];
        let decimals = num.split('.').nth(1).map_or(0, str::len);
        Check::new(label, document, format!("{:.*}{}", decimals, measured, suffix))
    }

    /// True when the two print the same.
    pub fn matches(&self) -> bool {
        self.document == self.measured
    }

    /// `"document 89,813 · measured 89,813 ✓"`.
    pub fn line(&self) -> String {
        format!(
            "document {} · measured {} {}",
            self.document,
            self.measured,
            if self.matches() { "✓" } else { "≠" }
        )
    }
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.label, self.line())
    }
}

impl Check {
    /// Show in the evcxr kernel.
    pub fn evcxr_display(&self) {
        Checks { checks: vec![self.clone()], ..Default::default() }.evcxr_display()
    }
}

/// A list of checks shown as one table.
///
/// With the `serde` feature it serializes as `title`, `all_match` and
/// `checks` (and `reference`, the reference column's name, when set).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Checks {
    title: String,
    checks: Vec<Check>,
    note: Option<String>,
    reference: Option<String>,
}

impl Checks {
    /// An empty list with a title.
    pub fn new(title: impl Into<String>) -> Self {
        Checks { title: title.into(), ..Default::default() }
    }

    /// Add one check.
    pub fn push(&mut self, check: Check) -> &mut Self {
        self.checks.push(check);
        self
    }

    /// Add a check and return the list (for chaining).
    pub fn with(mut self, check: Check) -> Self {
        self.checks.push(check);
        self
    }

    /// Name the reference column something other than "document" (e.g.
    /// "Python" or "rule") when the reference is not a document's figure.
    pub fn reference_label(mut self, label: impl Into<String>) -> Self {
        self.reference = Some(label.into());
        self
    }

    /// Explain what a mismatch means (shown only when one does not match).
    pub fn on_mismatch(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// The checks.
    pub fn checks(&self) -> &[Check] {
        &self.checks
    }

    /// True when every figure matches the document.
    pub fn all_match(&self) -> bool {
        self.checks.iter().all(Check::matches)
    }

    /// One row per figure.
    pub fn table(&self) -> Table {
        let reference = self.reference.as_deref().unwrap_or("document");
        let mut t = Table::new(self.title.clone(), ["figure", reference, "measured", ""]);
        for c in &self.checks {
            t.row([c.label.as_str(), &c.document, &c.measured, if c.matches() { "✓" } else { "≠" }]);
        }
        if !self.all_match() {
            t.note(self.note.clone().unwrap_or_else(|| {
                "≠: this run differs from the document — expected when you changed a value in the parameters cell; the document's figures are for its own parameters".to_string()
            }));
        }
        t
    }
}

shows_as_table!(Checks);

#[cfg(feature = "serde")]
impl serde::Serialize for Check {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("Check", 4)?;
        m.serialize_field("label", &self.label)?;
        m.serialize_field("document", &self.document)?;
        m.serialize_field("measured", &self.measured)?;
        m.serialize_field("matches", &self.matches())?;
        m.end()
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Checks {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("Checks", 4)?;
        m.serialize_field("title", &self.title)?;
        m.serialize_field("all_match", &self.all_match())?;
        if let Some(r) = &self.reference {
            m.serialize_field("reference", r)?;
        }
        m.serialize_field("checks", &self.checks)?;
        m.end()
    }
}
