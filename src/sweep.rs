//! Sweeps: the same experiment over many arrangements or parameters.
//!
//! One set of node names is one arrangement of points on the ring, and one
//! arrangement can be lucky. [`ArrangementSweep`] repeats a ring change over
//! salted arrangements (document `000` salts point names with `"{s}:"`,
//! `s = 0..30`) and reports the spread of the share moved and of the load.
//! [`ModuloSweep`] sets the measured `hash % N` share beside the
//! `min/lcm` rule and the `1/(N+1)` floor.
//!
//! ```
//! use reshard::{letters, ArrangementSweep, HashWidth, KeySet};
//! let keys = KeySet::users(100_000).hashed(HashWidth::Bits32).unwrap();
//! let s = ArrangementSweep::run(&keys, &letters("ABC"), &letters("ABCD"), 150, 30).unwrap();
//! assert_eq!(format!("{:.1}%–{:.1}%", 100.0 * s.min_share(), 100.0 * s.max_share()), "21.5%–28.2%");
//! assert_eq!((s.smallest_node(), s.largest_node()), (21_055, 29_917));
//! ```

use crate::keys::HashedKeys;
use crate::load::LoadReport;
use crate::modulo::{modulo_rule, Modulo};
use crate::movement::Movement;
use crate::ring::Ring;
use crate::table::{pct, shows_as_table, thousands, Table};
use crate::{Error, Result};
use rayon::prelude::*;

/// One arrangement of a sweep.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Arrangement {
    /// The salt in front of every point name.
    pub salt: String,
    /// Share of keys that moved from the old ring to the new.
    pub moved_share: f64,
    /// Keys that moved.
    pub moved: u64,
    /// Fewest keys on one node of the new ring.
    pub min_load: u64,
    /// Most keys on one node of the new ring.
    pub max_load: u64,
}

/// A ring change repeated over salted arrangements.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ArrangementSweep {
    vnodes: usize,
    old_nodes: Vec<String>,
    new_nodes: Vec<String>,
    rows: Vec<Arrangement>,
}

/// The salt of arrangement `s` as document `000` writes it: `"{s}:"`.
pub fn salt(s: usize) -> String {
    format!("{s}:")
}

impl ArrangementSweep {
    /// Old ring → new ring, `vnodes` points per node, over the
    /// arrangements with salts `"0:"` … `"{count-1}:"`. Loads are measured
    /// on the new ring.
    pub fn run(keys: &HashedKeys, old_nodes: &[String], new_nodes: &[String], vnodes: usize, count: usize) -> Result<Self> {
        ArrangementSweep::with_salts(keys, old_nodes, new_nodes, vnodes, (0..count).map(salt).collect())
    }

    /// The same over any list of salts.
    pub fn with_salts(keys: &HashedKeys, old_nodes: &[String], new_nodes: &[String], vnodes: usize, salts: Vec<String>) -> Result<Self> {
        if salts.is_empty() {
            return Err(Error::Invalid("no arrangements: use a count of at least 1 (document 000 uses 30)".into()));
        }
        // validate once, with the user's own names, before the parallel part
        Ring::new(old_nodes.iter().cloned(), vnodes)?;
        Ring::new(new_nodes.iter().cloned(), vnodes)?;
        keys.sorted_order();
        let rows = salts
            .into_par_iter()
            .map(|salt| -> Result<Arrangement> {
                let old = Ring::salted(old_nodes.iter().cloned(), vnodes, &salt)?;
                let new = Ring::salted(new_nodes.iter().cloned(), vnodes, &salt)?;
                let m = Movement::measure(keys, &old, &new)?;
                let load = m.load_after();
                let on_new: Vec<u64> = new_nodes
                    .iter()
                    .map(|n| m.nodes().iter().position(|x| x == n).map_or(0, |i| load[i]))
                    .collect();
                let report = LoadReport::from_counts(new_nodes.to_vec(), on_new);
                Ok(Arrangement { salt, moved_share: m.share(), moved: m.moved(), min_load: report.min(), max_load: report.max() })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ArrangementSweep { vnodes, old_nodes: old_nodes.to_vec(), new_nodes: new_nodes.to_vec(), rows })
    }

    /// Points per node.
    pub fn vnodes(&self) -> usize {
        self.vnodes
    }

    /// One row per arrangement, in salt order.
    pub fn rows(&self) -> &[Arrangement] {
        &self.rows
    }

    /// The smallest share moved over all arrangements.
    pub fn min_share(&self) -> f64 {
        self.rows.iter().map(|r| r.moved_share).fold(f64::INFINITY, f64::min)
    }

    /// The largest share moved over all arrangements.
    pub fn max_share(&self) -> f64 {
        self.rows.iter().map(|r| r.moved_share).fold(f64::NEG_INFINITY, f64::max)
    }

    /// The mean share moved.
    pub fn mean_share(&self) -> f64 {
        self.rows.iter().map(|r| r.moved_share).sum::<f64>() / self.rows.len() as f64
    }

    /// Standard deviation of the share moved over the arrangements.
    pub fn std_dev_share(&self) -> f64 {
        let m = self.mean_share();
        (self.rows.iter().map(|r| (r.moved_share - m).powi(2)).sum::<f64>() / self.rows.len() as f64).sqrt()
    }

    /// The fewest keys any node held in any arrangement.
    pub fn smallest_node(&self) -> u64 {
        self.rows.iter().map(|r| r.min_load).min().unwrap_or(0)
    }

    /// The most keys any node held in any arrangement.
    pub fn largest_node(&self) -> u64 {
        self.rows.iter().map(|r| r.max_load).max().unwrap_or(0)
    }

    /// The ideal share: what one added node should take, `1/N_new` for
    /// one node added.
    pub fn ideal_share(&self) -> f64 {
        let added = self.new_nodes.iter().filter(|n| !self.old_nodes.contains(n)).count();
        added as f64 / self.new_nodes.len() as f64
    }

    /// The summary line of document `000`'s sweep as a table row set.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!(
                "{} → {} nodes, {} point(s) per node, {} arrangements",
                self.old_nodes.len(),
                self.new_nodes.len(),
                self.vnodes,
                self.rows.len()
            ),
            ["", "value"],
        );
        t.row(["moved, least", &pct(self.min_share(), 1)]);
        t.row(["moved, most", &pct(self.max_share(), 1)]);
        t.row(["moved, mean", &pct(self.mean_share(), 1)]);
        t.row(["ideal", &pct(self.ideal_share(), 2)]);
        t.row(["smallest node held", &thousands(self.smallest_node())]);
        t.row(["largest node held", &thousands(self.largest_node())]);
        t
    }
}

shows_as_table!(ArrangementSweep);

/// Arrangement sweeps over several vnode counts.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct VnodeSweep {
    sweeps: Vec<ArrangementSweep>,
}

impl VnodeSweep {
    /// One [`ArrangementSweep`] per vnode count.
    pub fn run(keys: &HashedKeys, old_nodes: &[String], new_nodes: &[String], vnodes: &[usize], count: usize) -> Result<Self> {
        let sweeps = vnodes
            .iter()
            .map(|&v| ArrangementSweep::run(keys, old_nodes, new_nodes, v, count))
            .collect::<Result<Vec<_>>>()?;
        Ok(VnodeSweep { sweeps })
    }

    /// The same over any list of salts (one arrangement per salt).
    pub fn with_salts(
        keys: &HashedKeys,
        old_nodes: &[String],
        new_nodes: &[String],
        vnodes: &[usize],
        salts: Vec<String>,
    ) -> Result<Self> {
        let sweeps = vnodes
            .iter()
            .map(|&v| ArrangementSweep::with_salts(keys, old_nodes, new_nodes, v, salts.clone()))
            .collect::<Result<Vec<_>>>()?;
        Ok(VnodeSweep { sweeps })
    }

    /// Put together sweeps already run.
    pub fn from_sweeps(sweeps: Vec<ArrangementSweep>) -> Self {
        VnodeSweep { sweeps }
    }

    /// The sweeps, in the order of the vnode counts given.
    pub fn sweeps(&self) -> &[ArrangementSweep] {
        &self.sweeps
    }

    /// One row per vnode count.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            "share moved over arrangements, by points per node",
            ["points", "least", "mean", "most", "std dev", "smallest node", "largest node"],
        );
        for s in &self.sweeps {
            t.row([
                s.vnodes().to_string(),
                pct(s.min_share(), 1),
                pct(s.mean_share(), 1),
                pct(s.max_share(), 1),
                pct(s.std_dev_share(), 2),
                thousands(s.smallest_node()),
                thousands(s.largest_node()),
            ]);
        }
        if let Some(s) = self.sweeps.first() {
            t.note(format!("ideal share {}", pct(s.ideal_share(), 2)));
        }
        t
    }
}

shows_as_table!(VnodeSweep);

/// One `hash % N` change, measured and predicted.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ModuloRow {
    /// Nodes before.
    pub old: usize,
    /// Nodes after.
    pub new: usize,
    /// Keys moved.
    pub moved: u64,
    /// Measured share moved.
    pub measured: f64,
    /// `1 − min/lcm`, the rule.
    pub rule: f64,
    /// `1 − 1/old`, the formula a lesson used (it does not fit).
    pub lesson: f64,
    /// The least any scheme must move: `|new − old| / max(old, new)`.
    pub floor: f64,
}

/// `hash % N` over several (old, new) node counts.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ModuloSweep {
    rows: Vec<ModuloRow>,
}

impl ModuloSweep {
    /// Measure each `(old, new)` pair on the same keys.
    pub fn run(keys: &HashedKeys, pairs: &[(usize, usize)]) -> Result<Self> {
        let rows = pairs
            .iter()
            .map(|&(old, new)| {
                let m = Movement::measure(keys, &Modulo::new(old)?, &Modulo::new(new)?)?;
                Ok(ModuloRow {
                    old,
                    new,
                    moved: m.moved(),
                    measured: m.share(),
                    rule: modulo_rule(old, new),
                    lesson: 1.0 - 1.0 / old as f64,
                    floor: old.abs_diff(new) as f64 / old.max(new) as f64,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ModuloSweep { rows })
    }

    /// The rows, in the order given.
    pub fn rows(&self) -> &[ModuloRow] {
        &self.rows
    }

    /// Measured beside the rule, the lesson's formula and the floor.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            "hash % N: measured share moved vs the min/lcm rule",
            ["old → new", "moved", "measured", "1 − min/lcm", "1 − 1/old", "floor"],
        );
        for r in &self.rows {
            t.row([
                format!("{} → {}", r.old, r.new),
                thousands(r.moved),
                pct(r.measured, 1),
                pct(r.rule, 1),
                pct(r.lesson, 1),
                pct(r.floor, 1),
            ]);
        }
        t
    }
}

shows_as_table!(ModuloSweep);
