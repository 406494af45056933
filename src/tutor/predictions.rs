//! The reader's predictions, kept: each guess beside its measurement, in the
//! notebook's kernel (a `Predictions` variable) and in a small file beside
//! the notebook, so a restarted kernel or a later session still has them.
//! A lab closes with [`Predictions::table`]: "your predictions".
//!
//! ```
//! use reshard::tutor::{Guess, Predictions};
//! let mut book = Predictions::in_memory("01");
//! let line = book.share("share moved, 10 → 11", Guess::percent(40.0), 0.9091);
//! assert_eq!(line, "prediction · share moved, 10 → 11: your guess 40% · measured 90.9%\n");
//! let line = book.count("keys on the emptiest node", Guess::none(), 1_234);
//! assert_eq!(line, "prediction · keys on the emptiest node: no guess written · measured 1,234\n");
//! let table = book.table().to_string();
//! assert!(table.contains("−50.9 points"), "{table}");
//! ```
//!
//! A figure that a model gives, not a measurement (a formula, a simulation), is recorded as the
//! model's, and the live system's figure can be set beside it later, when a cell has measured it:
//!
//! ```
//! use reshard::tutor::{Guess, Predictions};
//! let mut book = Predictions::in_memory("10");
//! let line = book.model_share("slow queries, 4 nodes", Guess::percent(1.0), 0.0394);
//! assert_eq!(line, "prediction · slow queries, 4 nodes: your guess 1% · model 3.9%\n");
//! let line = book.live_share("slow queries, 4 nodes", 0.038);
//! assert_eq!(line, "live · slow queries, 4 nodes: 3.8% (the model: 3.9%)\n");
//! let table = book.table().to_string();
//! assert!(table.contains("3.9% (model)") && table.contains("3.8%"), "{table}");
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::present::tables::{shows_as_table, Table};
use crate::present::{pct, thousands};
use crate::tutor::guess::{short_pct, Guess};

/// The most bytes [`Predictions::at`] reads of a predictions file (a lab's
/// file holds a few hundred).
pub const MAX_BOOK_BYTES: usize = 1 << 20;

/// What a prediction was measured against: a share or a count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Measured {
    /// A share of the keys (0.0909 is 9.09%).
    Share(f64),
    /// A number of keys, nodes, shards…
    Count(u64),
}

/// Where a prediction's answer comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Source {
    /// Counted or measured by this run (the crate's exact count, or a live system's).
    #[default]
    Measured,
    /// A model's figure (a formula, a seeded simulation), which a live run can be set beside
    /// ([`Predictions::live_share`]).
    Model,
}

/// One prediction: what was asked (a short label), the guess, the answer, and the live
/// system's figure when one was measured beside a model.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Prediction {
    /// A short label of the question, e.g. "share moved, 10 → 11".
    pub label: String,
    /// The reader's guess (`Guess::None` when none was written).
    pub guess: Guess,
    /// This run's figure (the answer the guess is graded against).
    pub measured: Measured,
    /// Whether `measured` is a measurement or a model's figure.
    pub source: Source,
    /// The live system's figure, set beside a model's ([`Predictions::live_share`]).
    pub live: Option<Measured>,
}

/// The reader's predictions in one lab, in the order first asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Predictions {
    lab: String,
    file: Option<PathBuf>,
    rows: Vec<Prediction>,
    trouble: Option<String>,
}

impl Predictions {
    /// The predictions of lab `lab` (e.g. `"01"`), kept in
    /// `{lab}.predictions.tsv` in the current folder (the notebook's own,
    /// in Jupyter): earlier guesses found there are read back. A file that
    /// cannot be read or written is reported in [`Predictions::table`]'s
    /// note, and the guesses are then kept in the kernel only.
    ///
    /// With `RESHARD_PREDICTIONS_DIR` set, the file is kept in that folder
    /// instead: the notebook tests point it at a fresh folder, so a run
    /// never reads guesses an earlier run (or a reader) left beside the
    /// committed notebooks.
    pub fn open(lab: &str) -> Predictions {
        let name = format!("{}.predictions.tsv", file_safe(lab));
        match std::env::var_os("RESHARD_PREDICTIONS_DIR") {
            Some(dir) if !dir.is_empty() => Predictions::at(lab, PathBuf::from(dir).join(name)),
            _ => Predictions::at(lab, PathBuf::from(name)),
        }
    }

    /// Like [`Predictions::open`], with the file given. At most
    /// [`MAX_BOOK_BYTES`] of it are read: a longer file (or a device such
    /// as `/dev/zero`) is not a predictions file, so it is neither read
    /// further nor written, and the note says so.
    pub fn at(lab: &str, file: impl AsRef<Path>) -> Predictions {
        use std::io::Read as _;
        let file = file.as_ref().to_path_buf();
        let mut book = Predictions { lab: lab.to_string(), file: Some(file.clone()), rows: Vec::new(), trouble: None };
        let mut text = Vec::new();
        let read =
            std::fs::File::open(&file).and_then(|f| f.take(MAX_BOOK_BYTES as u64 + 1).read_to_end(&mut text).map(drop));
        match read {
            Ok(()) if text.len() > MAX_BOOK_BYTES => {
                book.file = None;
                book.trouble = Some(format!(
                    "{} is over {} bytes, so not a predictions file: it was left alone, and the guesses are kept \
                     in the kernel only",
                    file.display(),
                    thousands(MAX_BOOK_BYTES as u64)
                ));
            }
            Ok(()) => book.rows = String::from_utf8_lossy(&text).lines().filter_map(parse_row).collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => book.trouble = Some(format!("could not read {}: {e}", file.display())),
        }
        book
    }

    /// Predictions kept in the kernel only (no file).
    pub fn in_memory(lab: &str) -> Predictions {
        Predictions { lab: lab.to_string(), file: None, rows: Vec::new(), trouble: None }
    }

    /// Record a guessed share against the measured one and return the line
    /// an Observe cell prints: `"prediction · {label}: your guess 9% ·
    /// measured 90.9%\n"` (or `no guess written`). Asking the same label
    /// again replaces the earlier row.
    pub fn share(&mut self, label: &str, guess: Guess, measured: f64) -> String {
        self.record(label, guess, Measured::Share(measured), Source::Measured)
    }

    /// Record a guessed count against the measured one (see [`Predictions::share`]).
    pub fn count(&mut self, label: &str, guess: Guess, measured: u64) -> String {
        self.record(label, guess, Measured::Count(measured), Source::Measured)
    }

    /// Record a guessed share against a model's figure (a formula's, a simulation's), not a
    /// measurement: the line says `· model 3.9%`, and the table marks it "(model)". A live
    /// system's figure can follow with [`Predictions::live_share`].
    pub fn model_share(&mut self, label: &str, guess: Guess, model: f64) -> String {
        self.record(label, guess, Measured::Share(model), Source::Model)
    }

    /// Record a guessed count against a model's figure (see [`Predictions::model_share`]).
    pub fn model_count(&mut self, label: &str, guess: Guess, model: u64) -> String {
        self.record(label, guess, Measured::Count(model), Source::Model)
    }

    /// Set the live system's share beside the answer of question `label` (recorded before
    /// with [`Predictions::model_share`] or [`Predictions::share`]), and return the line a cell
    /// prints: `"live · {label}: 3.8% (the model: 3.9%)\n"`. A label not asked before is added
    /// with the live figure as its answer and no guess.
    pub fn live_share(&mut self, label: &str, live: f64) -> String {
        self.set_live(label, Measured::Share(live))
    }

    /// Set the live system's count beside the answer of question `label` (see
    /// [`Predictions::live_share`]).
    pub fn live_count(&mut self, label: &str, live: u64) -> String {
        self.set_live(label, Measured::Count(live))
    }

    fn set_live(&mut self, label: &str, live: Measured) -> String {
        let label = label.replace(['\t', '\n'], " ");
        let beside = match self.rows.iter_mut().find(|r| r.label == label) {
            Some(r) => {
                r.live = Some(live);
                let what = if r.source == Source::Model { "the model" } else { "the crate" };
                format!(" ({what}: {})", show_measured(r.measured))
            }
            None => {
                let row = Prediction {
                    label: label.clone(),
                    guess: Guess::None,
                    measured: live,
                    source: Source::Measured,
                    live: None,
                };
                self.rows.push(row);
                String::new()
            }
        };
        self.save();
        format!("live · {label}: {}{beside}\n", show_measured(live))
    }

    /// The predictions recorded so far.
    pub fn rows(&self) -> &[Prediction] {
        &self.rows
    }

    fn record(&mut self, label: &str, guess: Guess, measured: Measured, source: Source) -> String {
        let label = label.replace(['\t', '\n'], " ");
        let row = Prediction { label: label.clone(), guess, measured, source, live: None };
        match self.rows.iter_mut().find(|r| r.label == label) {
            Some(r) => *r = row,
            None => self.rows.push(row),
        }
        self.save();
        let yours = match guess {
            Guess::None => "no guess written".to_string(),
            g => format!("your guess {}", show_guess(g)),
        };
        let kind = if source == Source::Model { "model" } else { "measured" };
        format!("prediction · {label}: {yours} · {kind} {}\n", show_measured(measured))
    }

    fn save(&mut self) {
        let Some(file) = &self.file else { return };
        let mut text = String::from("# label\tguess\tmeasured\tlive (written by reshard::tutor::Predictions)\n");
        for r in &self.rows {
            let model = if r.source == Source::Model { "model-" } else { "" };
            let live = r.live.map_or("-".to_string(), measured_field);
            let (guess, measured) = (guess_field(r.guess), measured_field(r.measured));
            let _ = writeln!(text, "{}\t{guess}\t{model}{measured}\t{live}", r.label);
        }
        if let Err(e) = std::fs::write(file, text) {
            self.trouble = Some(format!("could not write {}: {e}", file.display()));
        }
    }

    /// "Your predictions": every question asked so far, the guess, the
    /// measurement and how far off the guess was.
    ///
    /// A lab that sets a model's figures beside live ones heads the answers "answer" (each
    /// model's marked "(model)") and adds a column "live"; otherwise the table is as above.
    pub fn table(&self) -> Table {
        let models = self.rows.iter().any(|r| r.source == Source::Model);
        let live = self.rows.iter().any(|r| r.live.is_some());
        let mut head = vec!["question", "your guess", if models { "answer" } else { "measured" }, "off by"];
        if live {
            head.push("live");
        }
        let mut t = Table::new(format!("your predictions · lab {}", self.lab), head);
        for r in &self.rows {
            let off = match (r.guess, r.measured) {
                (Guess::None, _) => String::new(),
                (Guess::Share(g), Measured::Share(m)) => format!("{} points", signed(100.0 * (g - m), 1)),
                (Guess::Count(g), Measured::Count(m)) => count_off(g, m),
                (Guess::Share(_), Measured::Count(_)) => "(a share guessed for a count)".into(),
                (Guess::Count(_), Measured::Share(_)) => "(a count guessed for a share)".into(),
            };
            let yours = if r.guess == Guess::None { "—".to_string() } else { show_guess(r.guess) };
            let answer = match r.source {
                Source::Model => format!("{} (model)", show_measured(r.measured)),
                Source::Measured => show_measured(r.measured),
            };
            let mut row = vec![r.label.clone(), yours, answer, off];
            if live {
                row.push(r.live.map_or(String::new(), show_measured));
            }
            t.row(row);
        }
        if self.rows.is_empty() {
            t.note("no prediction recorded yet: run the cells under each Predict");
        }
        match (&self.trouble, &self.file) {
            (Some(trouble), _) => t.note(format!("{trouble}; the guesses are kept in this kernel only")),
            (None, Some(file)) => t.note(format!("kept in {}", shown(file))),
            (None, None) => t.note("kept in this kernel only"),
        };
        t
    }
}

shows_as_table!(Predictions);

/// A file as the table names it: its name, where it sits beside the notebook; the whole path
/// when it was put elsewhere (`Predictions::at`) but not under `RESHARD_PREDICTIONS_DIR`.
fn shown(file: &Path) -> String {
    let elsewhere = std::env::var_os("RESHARD_PREDICTIONS_DIR").is_some_and(|d| !d.is_empty() && file.starts_with(&d));
    match file.file_name() {
        Some(name) if elsewhere => name.to_string_lossy().into_owned(),
        _ => file.display().to_string(),
    }
}

fn file_safe(lab: &str) -> String {
    let s: String =
        lab.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    if s.is_empty() {
        "lab".into()
    } else {
        s
    }
}

fn show_guess(g: Guess) -> String {
    match g {
        Guess::None => "—".into(),
        Guess::Share(s) => short_pct(s),
        Guess::Count(n) => thousands(n),
    }
}

fn show_measured(m: Measured) -> String {
    match m {
        Measured::Share(s) if (100.0 * s).is_finite() => pct(s, 1),
        Measured::Share(s) => format!("{s} (not a share)"),
        Measured::Count(n) => thousands(n),
    }
}

fn signed(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let s = format!("{:.*}", decimals, x.abs());
    if s.chars().all(|c| c == '0' || c == '.') {
        s
    } else if x < 0.0 {
        format!("−{s}")
    } else {
        format!("+{s}")
    }
}

fn count_off(g: u64, m: u64) -> String {
    let d = if g >= m { format!("+{}", thousands(g - m)) } else { format!("−{}", thousands(m - g)) };
    if g == m {
        "0".into()
    } else if m == 0 {
        d
    } else {
        format!("{d} ({}×)", fixed_ratio(g as f64 / m as f64))
    }
}

fn fixed_ratio(r: f64) -> String {
    if r >= 10.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.2}")
    }
}

fn guess_field(g: Guess) -> String {
    match g {
        Guess::None => "-".into(),
        Guess::Share(s) => format!("share:{s}"),
        Guess::Count(n) => format!("count:{n}"),
    }
}

fn measured_field(m: Measured) -> String {
    match m {
        Measured::Share(s) => format!("share:{s}"),
        Measured::Count(n) => format!("count:{n}"),
    }
}

fn parse_row(line: &str) -> Option<Prediction> {
    if line.starts_with('#') {
        return None;
    }
    let mut f = line.split('\t');
    let (label, guess, measured) = (f.next()?, f.next()?, f.next()?);
    let parse_measured = |field: &str| -> Option<Measured> {
        match field.split_once(':')? {
            ("share", v) => Some(Measured::Share(v.parse().ok()?)),
            ("count", v) => Some(Measured::Count(v.parse().ok()?)),
            _ => None,
        }
    };
    let (source, measured) = match measured.strip_prefix("model-") {
        Some(m) => (Source::Model, m),
        None => (Source::Measured, measured),
    };
    let live = match f.next() {
        None | Some("-") => None,
        Some(field) => Some(parse_measured(field)?),
    };
    let guess = match guess.split_once(':') {
        None => Guess::None,
        Some(("share", v)) => Guess::Share(v.parse().ok()?),
        Some(("count", v)) => Guess::Count(v.parse().ok()?),
        Some(_) => return None,
    };
    let measured = parse_measured(measured)?;
    Some(Prediction { label: label.to_string(), guess, measured, source, live })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_in_a_file_and_read_back() {
        let dir = std::env::temp_dir().join(format!("reshard-predictions-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("01.predictions.tsv");
        let _ = std::fs::remove_file(&file);
        let mut book = Predictions::at("01", &file);
        book.share("share moved", Guess::percent(25.0), 0.75);
        book.count("emptiest node", Guess::count(90), 100);
        book.share("share moved", Guess::percent(70.0), 0.75); // asked again: replaced
        let again = Predictions::at("01", &file);
        assert_eq!(again.rows(), book.rows());
        assert_eq!(again.rows().len(), 2);
        assert_eq!(again.rows()[0].guess, Guess::Share(0.7));
        let t = again.table().to_string();
        assert!(t.contains("−5.0 points") && t.contains("−10 (0.90×)"), "{t}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_model_and_its_live_figure_are_kept_and_read_back() {
        let dir = std::env::temp_dir().join(format!("reshard-predictions-live-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("10.predictions.tsv");
        let _ = std::fs::remove_file(&file);
        let mut book = Predictions::at("10", &file);
        book.model_share("slow, 4 nodes", Guess::percent(4.0), 0.0394);
        book.count("nodes asked", Guess::none(), 4);
        assert_eq!(book.live_share("slow, 4 nodes", 0.038), "live · slow, 4 nodes: 3.8% (the model: 3.9%)\n");
        assert_eq!(book.live_count("rows left", 2), "live · rows left: 2\n"); // not asked before: added
        let again = Predictions::at("10", &file);
        assert_eq!(again.rows(), book.rows());
        assert_eq!(again.rows()[0].source, Source::Model);
        assert_eq!(again.rows()[0].live, Some(Measured::Share(0.038)));
        let t = again.table().to_string();
        assert!(t.contains("answer") && t.contains("live") && t.contains("3.9% (model)"), "{t}");
        assert!(t.contains("+0.1 points"), "{t}"); // graded against the model
                                                   // a book without models or live figures keeps its old columns
        let mut plain = Predictions::in_memory("01");
        plain.count("x", Guess::none(), 1);
        let t = plain.table().to_string();
        assert!(t.contains("measured") && !t.contains("live") && !t.contains("answer"), "{t}");
        // a file of the old three fields still reads
        std::fs::write(&file, "# old\nshare moved\tshare:0.25\tshare:0.75\n").unwrap();
        let old = Predictions::at("01", &file);
        assert_eq!(old.rows().len(), 1);
        assert_eq!((old.rows()[0].source, old.rows()[0].live), (Source::Measured, None));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_unwritable_file_keeps_the_guess_in_the_kernel() {
        let mut book = Predictions::at("02", "/nonexistent-dir/02.predictions.tsv");
        book.count("churn", Guess::count(0), 0);
        assert_eq!(book.rows().len(), 1);
        assert!(book.table().to_string().contains("kernel only"));
    }

    #[test]
    fn odd_labels_and_values_never_panic() {
        let mut book = Predictions::in_memory("");
        book.share("a\tb\nc", Guess::percent(f64::NAN), f64::INFINITY);
        book.count("x", Guess::count(u64::MAX), 0);
        book.count("y", Guess::percent(3.0), 7);
        let t = book.table().to_string();
        assert!(t.contains("a b c") && t.contains("a share guessed for a count"), "{t}");
    }
}
