//! Small tables that show themselves in a notebook and in a terminal.
//!
//! Every result type builds a [`Table`]; the evcxr kernel calls
//! `evcxr_display`, which emits an HTML table and a plain-text form.
//!
//! ```
//! use reshard::present::{thousands, Table};
//! let mut t = Table::new("keys per node", ["node", "keys"]);
//! t.row(["A", &thousands(31_186)]);
//! assert!(t.to_text().contains("31,186"));
//! assert!(t.to_html().starts_with("<table"));
//! ```

use crate::present::escape::{html, one_line};
use std::fmt::Write as _;

/// A titled table of strings with an optional footnote.
#[derive(Debug, Clone, Default)]
pub struct Table {
    title: String,
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
    note: Option<String>,
}

impl Table {
    /// An empty table with a title and column headers.
    pub fn new<I, S>(title: impl Into<String>, headers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Table { title: title.into(), headers: headers.into_iter().map(Into::into).collect(), ..Default::default() }
    }

    /// Append a row.
    pub fn row<I, S>(&mut self, cells: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.rows.push(cells.into_iter().map(|c| c.as_ref().to_string()).collect());
        self
    }

    /// Set a footnote shown under the table.
    pub fn note(&mut self, note: impl Into<String>) -> &mut Self {
        self.note = Some(note.into());
        self
    }

    /// The table as aligned plain text: the title, one line per row and
    /// the note, each on one line (a line break in them is written as a
    /// space).
    pub fn to_text(&self) -> String {
        let cols = self.headers.len().max(self.rows.iter().map(Vec::len).max().unwrap_or(0));
        let mut w = vec![0; cols];
        for r in std::iter::once(&self.headers).chain(&self.rows) {
            for (i, c) in r.iter().enumerate() {
                w[i] = w[i].max(one_line(c).chars().count());
            }
        }
        let mut s = String::new();
        if !self.title.is_empty() {
            let _ = writeln!(s, "{}", one_line(&self.title));
        }
        let line = |s: &mut String, r: &[String]| {
            let cells: Vec<String> = (0..cols)
                .map(|i| {
                    let c = one_line(r.get(i).map(String::as_str).unwrap_or(""));
                    let pad = w[i] - c.chars().count();
                    if i == 0 {
                        format!("{c}{}", " ".repeat(pad))
                    } else {
                        format!("{}{c}", " ".repeat(pad))
                    }
                })
                .collect();
            let _ = writeln!(s, "  {}", cells.join("  ").trim_end());
        };
        if !self.headers.is_empty() {
            line(&mut s, &self.headers);
        }
        for r in &self.rows {
            line(&mut s, r);
        }
        if let Some(n) = &self.note {
            let _ = writeln!(s, "  {}", one_line(n));
        }
        s.trim_end().to_string()
    }

    /// The table as an HTML fragment.
    pub fn to_html(&self) -> String {
        let mut s = String::from("<table style=\"border-collapse:collapse;font-variant-numeric:tabular-nums\">");
        if !self.title.is_empty() {
            let _ = write!(s, "<caption style=\"text-align:left;font-weight:bold\">{}</caption>", html(&self.title));
        }
        if !self.headers.is_empty() {
            s.push_str("<thead><tr>");
            for h in &self.headers {
                let _ = write!(s, "<th style=\"text-align:right;padding:2px 8px\">{}</th>", html(h));
            }
            s.push_str("</tr></thead>");
        }
        s.push_str("<tbody>");
        for r in &self.rows {
            s.push_str("<tr>");
            for (i, c) in r.iter().enumerate() {
                let align = if i == 0 { "left" } else { "right" };
                let _ = write!(s, "<td style=\"text-align:{align};padding:2px 8px\">{}</td>", html(c));
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table>");
        if let Some(n) = &self.note {
            let _ = write!(s, "<p style=\"margin-top:2px\"><small>{}</small></p>", html(n));
        }
        s
    }

    /// Print the table for the evcxr kernel: HTML plus a plain-text form.
    pub fn evcxr_display(&self) {
        emit(&self.to_text(), &self.to_html());
    }
}

impl std::fmt::Display for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_text())
    }
}

pub use crate::present::show::emit;

impl crate::present::show::Show for Table {
    fn text_form(&self) -> String {
        self.to_text()
    }
    fn html_form(&self) -> String {
        self.to_html()
    }
}

/// Implement `Display`, `evcxr_display` and [`Show`](crate::present::Show) for a
/// type with a `fn table(&self) -> Table` (or the method named second, for a
/// scheme whose `table()` is its node table).
macro_rules! shows_as_table {
    ($t:ty) => {
        $crate::present::tables::shows_as_table!($t, table);
    };
    ($t:ty, $method:ident) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.$method().to_text())
            }
        }
        impl $t {
            /// Show in the evcxr kernel as an HTML table (with a text form).
            pub fn evcxr_display(&self) {
                self.$method().evcxr_display()
            }
        }
        impl $crate::present::show::Show for $t {
            fn text_form(&self) -> String {
                self.$method().to_text()
            }
            fn html_form(&self) -> String {
                self.$method().to_html()
            }
        }
    };
}
pub(crate) use shows_as_table;
