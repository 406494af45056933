//! The reader's guesses, set beside the measurement, and a short quiz the
//! crate grades.
//!
//! A Predict cell is followed by a guess cell the reader fills in
//! (`let guess = Guess::percent(p);` for p percent, or `Guess::none()` by default), and
//! the Observe cell prints the guess beside this run's figure — nothing
//! when no guess was given. A notebook ends with a [`Quiz`] on new
//! parameters whose answers the crate measures and grades.
//!
//! ```
//! use reshard::prelude::*;
//! use reshard::tutor::{Guess, Quiz};
//! assert_eq!(Guess::percent(40.0).versus_share(0.91049), "your guess 40% · measured 91.0%\n");
//! assert_eq!(Guess::none().versus_share(0.91049), "");
//!
//! let keys = KeySet::plain(10_000).hashed(HashWidth::Bits128)?;
//! let quiz = Quiz::new("hash % N").ask_modulo(&keys, 10, 15)?;
//! let graded = quiz.grade(&[Guess::percent(66.7)]);
//! assert_eq!(graded.correct(), 1); // 10 → 15 moves 1 − 10/30 ≈ 66.7%
//! assert!(!quiz.table().to_string().contains("66")); // the sheet shows no answer
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::ModuloSweep;
use crate::keys::HashedKeys;
use crate::present::tables::{shows_as_table, Table};
use crate::present::{pct, thousands};
use crate::Result;

/// A reader's guess: a share (given in percent), a count, or none.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Guess {
    /// No guess given: the Observe cell stays silent.
    #[default]
    None,
    /// A share, as a fraction (`Guess::percent(40.0)` is 0.4).
    Share(f64),
    /// A number of keys, shards, nodes…
    Count(u64),
}

impl Guess {
    /// No guess (the default of a guess cell).
    pub fn none() -> Guess {
        Guess::None
    }

    /// A guess in percent: `Guess::percent(40.0)` is 40%.
    /// A guess that is not a finite number (NaN, ±∞) says so beside the
    /// measurement and is never graded right:
    ///
    /// ```
    /// use reshard::tutor::Guess;
    /// let line = Guess::percent(f64::NAN).versus_share(0.9);
    /// assert!(line.contains("not a percentage") && !line.contains("NaN%"), "{line}");
    /// ```
    pub fn percent(p: f64) -> Guess {
        Guess::Share(p / 100.0)
    }

    /// A guessed count.
    pub fn count(n: u64) -> Guess {
        Guess::Count(n)
    }

    /// `"your guess 9% · measured 91.0%\n"`, or `""` with no guess.
    pub fn versus_share(&self, measured: f64) -> String {
        match self {
            Guess::None => String::new(),
            Guess::Share(g) => format!("your guess {} · measured {}\n", short_pct(*g), measured_pct(measured)),
            Guess::Count(n) => format!("your guess {} · measured {}\n", thousands(*n), measured_pct(measured)),
        }
    }

    /// `"your guess 90 · measured 89\n"`, or `""` with no guess.
    pub fn versus_count(&self, measured: u64) -> String {
        match self {
            Guess::None => String::new(),
            Guess::Share(g) => format!("your guess {} · measured {}\n", short_pct(*g), thousands(measured)),
            Guess::Count(n) => format!("your guess {} · measured {}\n", thousands(*n), thousands(measured)),
        }
    }
}

/// A measured share to one decimal, or what is wrong with it.
fn measured_pct(share: f64) -> String {
    if (100.0 * share).is_finite() {
        pct(share, 1)
    } else {
        format!("{share} (not a share: the measurement divided by 0; check its inputs)")
    }
}

/// A share as the reader wrote it: `0.09` → `"9%"`, `0.095` → `"9.5%"`.
pub(crate) fn short_pct(share: f64) -> String {
    let p = 100.0 * share;
    if !p.is_finite() {
        return format!("{p} (not a percentage: write Guess::percent(p) with p a number of percent, 0 to 100)");
    }
    if (p - p.round()).abs() < 1e-9 {
        format!("{}%", p.round())
    } else {
        format!("{}%", (p * 100.0).round() / 100.0)
    }
}

/// One quiz question: its text and the answer this run measured (a share),
/// with how close a guess must be to count as right.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Question {
    /// The question, e.g. "10 → 12 nodes with hash % N: what share of the keys moves?".
    pub text: String,
    /// The measured answer, a share.
    pub answer: f64,
    /// A guess within this many (as a share: 0.02 is two points) is right.
    pub tolerance: f64,
}

/// A few questions on new parameters, answered by the crate.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Quiz {
    title: String,
    questions: Vec<Question>,
}

impl Quiz {
    /// An empty quiz.
    pub fn new(title: impl Into<String>) -> Quiz {
        Quiz { title: title.into(), questions: Vec::new() }
    }

    /// A question whose answer is the share `answer`, right within
    /// `tolerance` (a share: 0.02 is two percentage points).
    pub fn ask(mut self, text: impl Into<String>, answer: f64, tolerance: f64) -> Quiz {
        self.questions.push(Question { text: text.into(), answer, tolerance });
        self
    }

    /// "old → new nodes with hash % N: what share of the keys moves?",
    /// measured on `keys`, right within two percentage points.
    pub fn ask_modulo(self, keys: &HashedKeys, old: usize, new: usize) -> Result<Quiz> {
        let r = ModuloSweep::measure(keys, &[(old, new)])?;
        let measured = r.rows()[0].measured;
        Ok(self.ask(format!("{old} → {new} nodes with hash % N: what share of the keys moves?"), measured, 0.02))
    }

    /// The question sheet: one numbered row per question, without the
    /// answers (what a quiz cell shows before the reader answers).
    pub fn table(&self) -> Table {
        let mut t = Table::new(self.title.clone(), ["#", "question", "right within"]);
        for (i, q) in self.questions.iter().enumerate() {
            t.row([(i + 1).to_string(), q.text.clone(), format!("± {}", short_pct(q.tolerance))]);
        }
        t.note("answer in percent, in order: `quiz.grade(&[Guess::percent(…), …])`");
        t
    }

    /// The questions.
    pub fn questions(&self) -> &[Question] {
        &self.questions
    }

    /// The reader's answers (one guess per question, in order; missing
    /// ones count as no answer), graded.
    pub fn grade(&self, guesses: &[Guess]) -> Graded {
        let rows = self
            .questions
            .iter()
            .enumerate()
            .map(|(i, q)| {
                let g = guesses.get(i).copied().unwrap_or_default();
                let right = match g {
                    Guess::Share(s) => Some((s - q.answer).abs() <= q.tolerance),
                    _ => None,
                };
                (q.clone(), g, right)
            })
            .collect();
        Graded { title: self.title.clone(), rows }
    }
}

/// A graded quiz.
#[derive(Debug, Clone, PartialEq)]
pub struct Graded {
    title: String,
    rows: Vec<(Question, Guess, Option<bool>)>,
}

impl Graded {
    /// How many answers were right.
    pub fn correct(&self) -> usize {
        self.rows.iter().filter(|r| r.2 == Some(true)).count()
    }

    /// One row per question: the question, the reader's answer, the
    /// measured one, and the verdict.
    pub fn table(&self) -> Table {
        let mut t = Table::new(self.title.clone(), ["question", "your answer", "measured", ""]);
        for (q, g, right) in &self.rows {
            let yours = match g {
                Guess::Share(s) => short_pct(*s),
                Guess::Count(n) => format!("{} (give a percent)", thousands(*n)),
                Guess::None => "—".to_string(),
            };
            let verdict = match right {
                Some(true) => "✓",
                Some(false) => "✗",
                None => "no answer",
            };
            t.row([q.text.as_str(), &yours, &pct(q.answer, 1), verdict]);
        }
        t.note(format!("{} of {} right (within the tolerance of each question)", self.correct(), self.rows.len()));
        t
    }
}

shows_as_table!(Quiz);
shows_as_table!(Graded);
