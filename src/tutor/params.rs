//! An experiment's parameters beside the document's: which differ, and
//! what that means for the numbers a reader sees.
//!
//! A notebook's parameters cell ends with a [`Params`]: each parameter's
//! name, the document's value and this run's. Shown, it says whether this
//! run is the document's (and so the bold numbers in the prose are this
//! run's too) or which values differ; [`Check::under`](crate::tutor::Check::under)
//! gives each check row the parameters its figure depends on.
//!
//! ```
//! use reshard::tutor::Params;
//! let same = Params::new().param("keys", 100_000, 100_000).param("points per node", 150, 150);
//! assert!(same.differing().is_empty());
//! let edited = Params::new().param("keys", 100_000, 20_000).param("points per node", 150, 150);
//! assert_eq!(edited.differing(), ["keys"]);
//! assert!(edited.to_string().contains("keys 20,000 (text 100,000)"));
//! // a lab names its source instead of "document"
//! let named = edited.reference_label("study exercise");
//! assert!(named.to_string().contains("keys 20,000 (study exercise 100,000)"));
//! ```

use crate::present::escape::html;
use crate::present::tables::emit;
use std::fmt;

/// One parameter: its name, the document's value and this run's, printed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Param {
    /// What the parameter is, e.g. "points per node".
    pub name: String,
    /// The document's value, printed.
    pub document: String,
    /// This run's value, printed.
    pub run: String,
}

/// A set of parameters, in the order given.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Params {
    params: Vec<Param>,
    /// What the reference values are called when shown; "text" (the lab's own) if none.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    reference: Option<String>,
}

/// A value as a reader writes it: integers with thousands separators, lists
/// joined by commas.
pub trait ParamValue {
    /// The value, printed.
    fn show(&self) -> String;
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl ParamValue for $t {
            fn show(&self) -> String {
                crate::present::thousands(*self as u64)
            }
        }
    )*};
}
integers!(u8, u16, u32, u64, usize);

macro_rules! signed {
    ($($t:ty),*) => {$(
        impl ParamValue for $t {
            fn show(&self) -> String {
                let sign = if *self < 0 { "-" } else { "" };
                format!("{sign}{}", crate::present::thousands(self.unsigned_abs() as u64))
            }
        }
    )*};
}
signed!(i8, i16, i32, i64, isize);

impl ParamValue for f64 {
    fn show(&self) -> String {
        format!("{self}")
    }
}

impl ParamValue for &str {
    fn show(&self) -> String {
        (*self).to_string()
    }
}

impl ParamValue for String {
    fn show(&self) -> String {
        self.clone()
    }
}

impl ParamValue for crate::HashWidth {
    fn show(&self) -> String {
        self.to_string()
    }
}

impl<T: ParamValue> ParamValue for Vec<T> {
    fn show(&self) -> String {
        self.iter().map(ParamValue::show).collect::<Vec<_>>().join(",")
    }
}

impl<T: ParamValue> ParamValue for &[T] {
    fn show(&self) -> String {
        self.iter().map(ParamValue::show).collect::<Vec<_>>().join(",")
    }
}

impl Params {
    /// No parameters yet.
    pub fn new() -> Self {
        Params::default()
    }

    /// Add a parameter: its name, the document's value and this run's.
    pub fn param<D: ParamValue, R: ParamValue>(mut self, name: &str, document: D, run: R) -> Self {
        self.params.push(Param { name: name.to_string(), document: document.show(), run: run.show() });
        self
    }

    /// Name the source of the reference values something other than
    /// "text" (the lab's prose) when shown (e.g. "study exercise": "These are the study
    /// exercise's parameters …", "keys 20,000 (study exercise 200,000)").
    pub fn reference_label(mut self, label: impl Into<String>) -> Self {
        self.reference = Some(label.into());
        self
    }

    /// The parameters, in order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// Only the parameters named (in the order of `names`; unknown names
    /// are left out).
    pub fn only(&self, names: &[&str]) -> Params {
        let params = names.iter().filter_map(|n| self.params.iter().find(|p| p.name == *n).cloned()).collect();
        Params { params, reference: self.reference.clone() }
    }

    /// The names of the parameters whose run value differs from the document's.
    pub fn differing(&self) -> Vec<&str> {
        self.params.iter().filter(|p| p.document != p.run).map(|p| p.name.as_str()).collect()
    }

    /// Only the parameters whose run value differs from the document's.
    pub fn differing_only(&self) -> Params {
        let params = self.params.iter().filter(|p| p.document != p.run).cloned().collect();
        Params { params, reference: self.reference.clone() }
    }

    /// `"points per node 150, keys 100,000"`: the document's conditions.
    pub fn document_conditions(&self) -> String {
        self.params.iter().map(|p| format!("{} {}", p.name, p.document)).collect::<Vec<_>>().join(", ")
    }

    /// `"points per node 40, keys 20,000"`: this run's conditions.
    pub fn run_conditions(&self) -> String {
        self.params.iter().map(|p| format!("{} {}", p.name, p.run)).collect::<Vec<_>>().join(", ")
    }

    /// Show in the evcxr kernel (one line of text).
    pub fn evcxr_display(&self) {
        use crate::present::Show;
        emit(&self.text_form(), &self.html_form());
    }
}

impl crate::present::Show for Params {
    fn text_form(&self) -> String {
        self.to_string()
    }
    fn html_form(&self) -> String {
        format!("<p>{}</p>", html(&self.to_string()))
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.reference.as_deref().unwrap_or("text");
        let differ: Vec<String> = self
            .params
            .iter()
            .filter(|p| p.document != p.run)
            .map(|p| format!("{} {} ({r} {})", p.name, p.run, p.document))
            .collect();
        if differ.is_empty() {
            write!(f, "These are the {r}'s parameters: the bold numbers in the text are this run's too.")
        } else {
            write!(
                f,
                "This run differs from the {r}: {}. The bold numbers in the text are the {r}'s; \
                 the tables and checks below are this run's.",
                differ.join(", ")
            )
        }
    }
}
