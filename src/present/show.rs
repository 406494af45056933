//! Several results shown by one notebook cell.
//!
//! evcxr keeps one output of each kind per cell: a cell that calls
//! `evcxr_display()` on a table and then on a chart shows only the chart, because
//! both are HTML and the second replaces the first. [`show!`](crate::show) joins
//! tables, checks and charts into one output, top to bottom, so one cell can
//! show a measurement's table and the chart drawn from it (and a reader runs one
//! cell instead of two: every cell costs about half a second to compile).
//!
//! ```
//! use reshard::notebook::*;
//! let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128)?;
//! let m = Movement::measure(&keys, &Modulo::new(10)?, &Modulo::new(11)?)?;
//! # #[cfg(feature = "charts")] {
//! let both = show![m, m.heatmap_chart("hash % N: 10 → 11")];
//! assert_eq!(both.len(), 2);
//! assert!(both.to_html().contains("<table") && both.to_html().contains("<img"));
//! assert!(both.to_string().contains("churn: old node → old node"));
//! # }
//! # Ok::<(), reshard::Error>(())
//! ```

use std::fmt;

/// Something a notebook cell can show: a plain-text form and an HTML form.
///
/// Every table-like result of the crate, [`Table`](crate::present::Table), and (feature `charts`) every chart and figure
/// implement it, and so do [`Check`](crate::tutor::Check),
/// [`Checks`](crate::tutor::Checks) and [`Params`](crate::tutor::Params).
pub trait Show {
    /// The text form (what a terminal, or a plain-text export, shows).
    fn text_form(&self) -> String;
    /// The HTML form (what JupyterLab and the handouts show).
    fn html_form(&self) -> String;
}

/// Print one rich output for the evcxr kernel, in two forms. Each is a
/// part that no line of its own can end: a line of `text` or `html` that
/// reads `EVCXR_END_CONTENT` (or evcxr's panic marker) is written with a
/// space before it.
pub fn emit(text: &str, html: &str) {
    use crate::present::evcxr::part;
    print!("{}{}", part("text/plain", text), part("text/html", html));
}

/// Results joined into one cell output, in order; built by [`show!`](crate::show).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shown {
    parts: Vec<(String, String)>,
}

impl Shown {
    /// Nothing yet.
    pub fn new() -> Self {
        Self::default()
    }
    /// `item` below what is already there.
    pub fn and(mut self, item: &impl Show) -> Self {
        self.parts.push((item.text_form(), item.html_form()));
        self
    }
    /// How many results.
    pub fn len(&self) -> usize {
        self.parts.len()
    }
    /// No results.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }
    /// The text forms, a blank line between them.
    pub fn to_text(&self) -> String {
        self.parts.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>().join("\n\n")
    }
    /// The HTML forms, one after the other.
    pub fn to_html(&self) -> String {
        self.parts.iter().map(|(_, h)| format!("<div>{h}</div>")).collect()
    }
    /// Show everything in the evcxr kernel as one output (HTML with a text form).
    pub fn evcxr_display(&self) {
        emit(&self.to_text(), &self.to_html());
    }
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

impl Show for Shown {
    fn text_form(&self) -> String {
        self.to_text()
    }
    fn html_form(&self) -> String {
        self.to_html()
    }
}

impl<T: Show + ?Sized> Show for &T {
    fn text_form(&self) -> String {
        (**self).text_form()
    }
    fn html_form(&self) -> String {
        (**self).html_form()
    }
}

/// Show several results as one cell output, top to bottom: tables, checks,
/// charts (anything that implements [`Show`](crate::present::show::Show)).
///
/// ```
/// use reshard::notebook::*;
/// let mut t = Table::new("two rows", ["a", "b"]);
/// t.row(["1", "2"]);
/// let shown = show![t, Table::new("empty", ["c"])];
/// assert_eq!(shown.len(), 2);
/// ```
#[macro_export]
macro_rules! show {
    ($($item:expr),+ $(,)?) => {
        $crate::present::Shown::new()$(.and(&$item))+
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result with two forms, standing for a table or a chart.
    struct Two(&'static str);

    impl Show for Two {
        fn text_form(&self) -> String {
            format!("text {}", self.0)
        }
        fn html_form(&self) -> String {
            format!("<table><tr><td>{}</td></tr></table>", self.0)
        }
    }

    #[test]
    fn keeps_the_order_and_both_forms() {
        let s = crate::show![Two("first"), Two("second")];
        let (text, html) = (s.to_text(), s.to_html());
        assert!(text.find("first").unwrap() < text.find("second").unwrap());
        assert!(html.find("first").unwrap() < html.find("second").unwrap());
        assert_eq!(html.matches("<table").count(), 2);
        assert_eq!(text, "text first\n\ntext second");
    }
}
