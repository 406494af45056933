//! The notebook checks itself: a document's printed figure beside the
//! figure measured in this run.
//!
//! A [`Check`] compares the two as the document printed them (same
//! rounding) and shows "reference 89,813 · measured 89,813 ✓".
//!
//! A row stays honest when a reader edits the parameters: it names the
//! parameters its figure depends on ([`Check::under`], from a [`Params`]),
//! and when this run's differ from the document's it says which, sets the
//! two figures under their own conditions, and shows what theory expects
//! for this run where there is a formula ([`Check::theory`]). A figure the
//! document got wrong is marked [`Check::corrected`], not ≠.
//!
//! ```
//! use reshard::tutor::{Check, Checks, Params};
//! let mut c = Checks::new("document 004");
//! c.push(Check::count("keys moved by fixed shards", 89_813, 89_813));
//! c.push(Check::percent("share moved", "8.98%", 0.089813));
//! assert!(c.all_match());
//! assert_eq!(c.checks()[0].line(), "reference 89,813 · measured 89,813 ✓");
//!
//! // A reader ran 40 points per node on 20,000 keys instead:
//! let p = Params::new().param("points per node", 150, 40).param("keys", 100_000, 20_000);
//! let row = Check::percent("A,B,C → A,B,C,D: share moved", "25.3%", 0.188)
//!     .under(&p, &["points per node", "keys"])
//!     .theory("1/4 ± 3σ", 0.25, 0.03);
//! assert_eq!(
//!     row.line(),
//!     "reference (points per node 150, keys 100,000): 25.3% · this run (points per node 40, keys 20,000): 18.8% · \
//!      theory for this run: 1/4 ± 3σ = 25.0% ± 3.0%, this run is outside ≠ (points per node, keys differ)"
//! );
//! ```

use crate::present::tables::{shows_as_table, Table};
use crate::present::thousands;
use crate::tutor::params::Params;

/// One figure: what the document printed and what this run measured,
/// both as text in the document's format, and under which conditions.
///
/// With the `serde` feature it serializes as `label`, `document`,
/// `measured`, `matches` and `verdict`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Check {
    /// What the figure is.
    pub label: String,
    /// The document's value, as printed.
    pub document: String,
    /// This run's value, printed the same way.
    pub measured: String,
    /// This run's value as a number (a share for percentages), when it is one.
    pub value: Option<f64>,
    /// The parameters the figure depends on: the document's and this run's.
    pub params: Params,
    /// What theory expects for this run, where there is a formula.
    pub theory: Option<Theory>,
    /// Why the document's figure is wrong, when it is.
    pub corrected: Option<String>,
    /// For a figure that changes from run to run ([`Check::share_within`]):
    /// the predicted value and how far a run may stray from it. The row
    /// then matches when the measurement is within, not when the two print
    /// the same.
    pub within: Option<(f64, f64)>,
}

/// What a formula expects for this run's parameters: `expected ± tolerance`
/// (both in the figure's own unit; shares as fractions).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Theory {
    /// The formula, as the reader should recognise it (e.g. "1/4 ± 3σ").
    pub formula: String,
    /// Its value for this run.
    pub expected: f64,
    /// How far this run may stray from it.
    pub tolerance: f64,
    /// Whether the value is a share (printed as a percentage).
    pub share: bool,
}

/// How a row ends: the verdict a reader reads first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Same parameters, same figure.
    Match,
    /// Same parameters, a different figure: something is wrong.
    Differs,
    /// The document's figure is wrong, and this run shows the right one.
    Corrected,
    /// This run's parameters differ from the document's, so the figures
    /// need not agree (the theory column says whether this run is sound).
    OtherParameters,
}

/// How a measurement that is not a finite number prints, or `None`.
fn not_finite(x: f64) -> Option<String> {
    if x.is_nan() {
        Some("not a number (NaN: the measurement divided 0 by 0; check its inputs)".into())
    } else if x.is_infinite() {
        Some(format!("{x} (the measurement divided by 0; check its inputs)"))
    } else {
        None
    }
}

impl Check {
    /// Compare two strings as printed.
    pub fn new(label: impl Into<String>, document: impl Into<String>, measured: impl Into<String>) -> Self {
        Check {
            label: label.into(),
            document: document.into(),
            measured: measured.into(),
            value: None,
            params: Params::new(),
            theory: None,
            corrected: None,
            within: None,
        }
    }

    /// A share that changes from run to run (a latency, a race) beside its
    /// prediction: ✓ when the measurement lies within `tolerance` of
    /// `predicted` (both fractions), ≠ otherwise. The reference column says
    /// the tolerance, so a reader sees how loose the check is, and why
    /// (`why`, e.g. "3σ of 1,000 queries").
    ///
    /// ```
    /// use reshard::Check;
    /// let c = Check::share_within("slow fan-out queries", 0.0394, 0.0186, "3σ of 1,000 queries", 0.045);
    /// assert!(c.matches());
    /// assert_eq!(c.document, "3.9% ± 1.9 points (3σ of 1,000 queries)");
    /// assert!(!Check::share_within("x", 0.0394, 0.0186, "3σ", 0.08).matches());
    /// ```
    pub fn share_within(label: impl Into<String>, predicted: f64, tolerance: f64, why: &str, measured: f64) -> Self {
        let document = format!("{:.1}% ± {:.1} points ({why})", 100.0 * predicted, 100.0 * tolerance);
        let shown = not_finite(measured).unwrap_or_else(|| format!("{:.1}%", 100.0 * measured));
        Check { value: Some(measured), within: Some((predicted, tolerance)), ..Check::new(label, document, shown) }
    }

    /// A count, printed with thousands separators.
    pub fn count(label: impl Into<String>, document: u64, measured: u64) -> Self {
        Check { value: Some(measured as f64), ..Check::new(label, thousands(document), thousands(measured)) }
    }

    /// A prediction beside an observation, item by item: `items` gives, for
    /// each thing compared (a key, a slot, a step), its name, what was
    /// predicted and what was observed. The row reads the count compared
    /// beside the count that agree, ✓ when all do; otherwise the
    /// observation names how many differ and the first that does, with
    /// both answers. A mismatch is a result to show, not an error.
    ///
    /// It takes plain data, so any lab can use it (a Redis cluster's slot
    /// owners, a proxy's choice of server per key):
    ///
    /// ```
    /// use reshard::tutor::Check;
    /// let same = Check::placements("node of each key", [("k1", "A", "A"), ("k2", "B", "B")]);
    /// assert_eq!(same.line(), "reference 2 · measured 2 ✓");
    /// let differ = Check::placements("node of each key", [("k1", "A", "A"), ("k2", "B", "C"), ("k3", "A", "B")]);
    /// assert!(!differ.matches());
    /// assert_eq!(differ.measured, "1 (2 differ; first k2: predicted B, observed C)");
    /// ```
    pub fn placements<K, V, I>(label: impl Into<String>, items: I) -> Self
    where
        I: IntoIterator<Item = (K, V, V)>,
        K: std::fmt::Display,
        V: PartialEq + std::fmt::Display,
    {
        let (mut n, mut differ) = (0u64, 0u64);
        let mut first: Option<String> = None;
        for (what, predicted, observed) in items {
            n += 1;
            if predicted != observed {
                differ += 1;
                if first.is_none() {
                    first = Some(format!("{what}: predicted {predicted}, observed {observed}"));
                }
            }
        }
        let agree = n - differ;
        let mut c = Check::count(label, n, agree);
        if let Some(first) = first {
            c.measured = format!("{} ({} differ; first {first})", thousands(agree), thousands(differ));
        }
        c
    }

    /// A share printed as a percentage with as many decimals as the
    /// document's `"90.87%"` has.
    ///
    /// A share that is not a number (NaN, ±∞: a measurement over nothing)
    /// prints as such and never matches:
    ///
    /// ```
    /// use reshard::Check;
    /// let c = Check::percent("share moved", "9.09%", f64::NAN);
    /// assert!(c.measured.starts_with("not a number"), "{}", c.measured);
    /// assert!(!c.matches());
    /// ```
    pub fn percent(label: impl Into<String>, document: &str, measured_share: f64) -> Self {
        if let Some(bad) = not_finite(measured_share) {
            return Check::new(label, document, bad);
        }
        let decimals = document.trim_end_matches('%').split('.').nth(1).map_or(0, str::len);
        let measured = format!("{:.*}%", decimals, 100.0 * measured_share);
        Check { value: Some(measured_share), ..Check::new(label, document, measured) }
    }

    /// A plain number printed with the document's decimals and suffix
    /// (e.g. `"10.1×"`).
    pub fn ratio(label: impl Into<String>, document: &str, measured: f64) -> Self {
        if let Some(bad) = not_finite(measured) {
            return Check::new(label, document, bad);
        }
        let num: String = document.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
        let suffix = &document[num.len()..];
        let decimals = num.split('.').nth(1).map_or(0, str::len);
        Check { value: Some(measured), ..Check::new(label, document, format!("{:.*}{}", decimals, measured, suffix)) }
    }

    /// The figure depends on these of `params` (by name): each row then
    /// names its conditions when this run's differ from the document's.
    pub fn under(mut self, params: &Params, names: &[&str]) -> Self {
        self.params = params.only(names);
        self
    }

    /// What a formula expects for this run: `expected ± tolerance`, in the
    /// figure's unit (a share for [`Check::percent`]).
    pub fn theory(mut self, formula: impl Into<String>, expected: f64, tolerance: f64) -> Self {
        let share = self.measured.ends_with('%');
        self.theory = Some(Theory { formula: formula.into(), expected, tolerance, share });
        self
    }

    /// The document's figure is wrong; `why` says how in one line.
    pub fn corrected(mut self, why: impl Into<String>) -> Self {
        self.corrected = Some(why.into());
        self
    }

    /// True when the two print the same (for [`Check::share_within`]: when
    /// the measurement lies within the tolerance).
    pub fn matches(&self) -> bool {
        match (self.within, self.value) {
            (Some((p, tol)), Some(v)) => v.is_finite() && (v - p).abs() <= tol,
            (Some(_), None) => false,
            _ => self.document == self.measured,
        }
    }

    /// How the row ends.
    pub fn verdict(&self) -> Verdict {
        if !self.params.differing().is_empty() {
            Verdict::OtherParameters
        } else if self.matches() {
            Verdict::Match
        } else if self.corrected.is_some() {
            Verdict::Corrected
        } else {
            Verdict::Differs
        }
    }

    /// Whether this run is within the theory's tolerance, if there is one.
    pub fn within_theory(&self) -> Option<bool> {
        let t = self.theory.as_ref()?;
        Some((self.value? - t.expected).abs() <= t.tolerance)
    }

    /// The verdict's mark: ✓, ≠, "corrected", or ≠ naming the parameters
    /// that differ.
    pub fn mark(&self) -> String {
        match self.verdict() {
            Verdict::Match => "✓".into(),
            Verdict::Differs => "≠".into(),
            Verdict::Corrected => "corrected".into(),
            Verdict::OtherParameters => {
                let d = self.params.differing();
                format!("≠ ({} {})", d.join(", "), if d.len() == 1 { "differs" } else { "differ" })
            }
        }
    }

    /// The theory for this run, printed: `"1/4 = 25.0% ± 1.4%, this run is within"`.
    pub fn theory_text(&self) -> Option<String> {
        let t = self.theory.as_ref()?;
        let f = |x: f64| if t.share { format!("{:.1}%", 100.0 * x) } else { crate::present::fixed(x, 1) };
        let place = match self.within_theory() {
            Some(true) => ", this run is within",
            Some(false) => ", this run is outside",
            None => "",
        };
        Some(format!("{} = {} ± {}{place}", t.formula, f(t.expected), f(t.tolerance)))
    }

    /// One line: `"reference 89,813 · measured 89,813 ✓"`, or with its
    /// conditions when this run's parameters differ from the document's.
    pub fn line(&self) -> String {
        match self.verdict() {
            Verdict::OtherParameters => {
                let theory = self.theory_text().map_or(String::new(), |t| format!(" · theory for this run: {t}"));
                let differ = self.params.differing_only();
                format!(
                    "reference ({}): {} · this run ({}): {}{theory} {}",
                    differ.document_conditions(),
                    self.document,
                    differ.run_conditions(),
                    self.measured,
                    self.mark()
                )
            }
            _ => format!("reference {} · measured {} {}", self.document, self.measured, self.mark()),
        }
    }
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.label, self.line())
    }
}

impl Check {
    /// Show in the evcxr kernel (as a table of one row).
    pub fn evcxr_display(&self) {
        self.as_checks().evcxr_display()
    }
    fn as_checks(&self) -> Checks {
        Checks { checks: vec![self.clone()], ..Default::default() }
    }
}

impl crate::present::Show for Check {
    fn text_form(&self) -> String {
        self.as_checks().table().to_text()
    }
    fn html_form(&self) -> String {
        self.as_checks().table().to_html()
    }
}

/// A list of checks shown as one table.
///
/// With the `serde` feature it serializes as `title`, `all_match` and
/// `checks` (and `reference`, the reference column's name, when set).
#[derive(Debug, Clone, PartialEq, Default)]
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

    /// Append the checks of `other` (its title and notes are dropped).
    pub fn and(mut self, other: Checks) -> Self {
        self.checks.extend(other.checks);
        self
    }

    /// Name the reference column (default "reference"): "article" for a
    /// source article's figure, "Python", "rule", "published", "predicted"…
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

    /// True when no row shows ≠ under the document's own parameters: every
    /// row matches or records a document error as corrected. The notebook
    /// gate asks this of the committed notebooks.
    pub fn sound(&self) -> bool {
        self.checks.iter().all(|c| c.verdict() != Verdict::Differs)
    }

    /// One row per figure; rows whose parameters differ from the
    /// document's carry their conditions and the theory for this run.
    pub fn table(&self) -> Table {
        let reference = self.reference.as_deref().unwrap_or("reference");
        let other = self.checks.iter().any(|c| c.verdict() == Verdict::OtherParameters);
        let mut t = if other {
            Table::new(self.title.clone(), ["figure", reference, "this run", "theory for this run", ""])
        } else {
            Table::new(self.title.clone(), ["figure", reference, "measured", ""])
        };
        for c in &self.checks {
            let mark = match (&c.corrected, c.verdict()) {
                (Some(why), Verdict::Corrected) => format!("corrected: {why}"),
                (Some(why), Verdict::OtherParameters) => {
                    format!("{} · the {reference} figure is corrected: {why}", c.mark())
                }
                _ => c.mark(),
            };
            if other {
                let (doc, run) = if c.verdict() == Verdict::OtherParameters {
                    let differ = c.params.differing_only();
                    (
                        format!("{} ({})", c.document, differ.document_conditions()),
                        format!("{} ({})", c.measured, differ.run_conditions()),
                    )
                } else {
                    (c.document.clone(), c.measured.clone())
                };
                let theory = c.theory_text().unwrap_or_else(|| "—".into());
                t.row([c.label.as_str(), &doc, &run, &theory, &mark]);
            } else {
                t.row([c.label.as_str(), &c.document, &c.measured, &mark]);
            }
        }
        let mut notes: Vec<String> = Vec::new();
        if self.checks.iter().any(|c| c.verdict() == Verdict::Differs) {
            notes.push(self.note.clone().unwrap_or_else(|| {
                format!("≠ under the {reference} column's own parameters: this run disagrees with it")
            }));
        }
        if other {
            notes.push(format!(
                "≠ (… differs): this run's parameters are not the {reference} column's, so its figures need not agree; \
                 the theory column says where this run should land"
            ));
        }
        if !notes.is_empty() {
            t.note(notes.join(" · "));
        }
        t
    }
}

shows_as_table!(Checks);

#[cfg(feature = "serde")]
impl serde::Serialize for Check {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("Check", 5)?;
        m.serialize_field("label", &self.label)?;
        m.serialize_field("document", &self.document)?;
        m.serialize_field("measured", &self.measured)?;
        m.serialize_field("matches", &self.matches())?;
        m.serialize_field("verdict", &self.mark())?;
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
