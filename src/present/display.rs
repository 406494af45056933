//! Every result of the analysis as a table: in a terminal (`Display`) and in
//! the evcxr kernel (`evcxr_display`, HTML with a text form).
//!
//! ```
//! use reshard::prelude::*;
//! let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128)?;
//! let m = Movement::measure(&keys, &Modulo::new(10)?, &Modulo::new(11)?)?;
//! assert!(m.to_string().contains("churn: old node → old node"));
//! assert_eq!(keys.keys().to_string(), "1,000 keys (key0 … key999)");
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::{
    ArrangementSweep, BoundedLoads, Comparison, LoadReport, LoadSpread, MiddleRemoval, ModuloSweep, Movement,
    VnodeSweep, WeightedShares,
};
use crate::keys::KeySet;
use crate::present::tables::{shows_as_table, Table};
use crate::present::{fixed, pct, thousands};
use crate::schemes::{Placement, SlotPlan};
use std::fmt;

impl fmt::Display for KeySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.prefix();
        if self.is_listed() && !self.is_empty() {
            let n = self.len();
            return write!(
                f,
                "{} listed keys ({} … {})",
                thousands(n as u64),
                self.get(0).unwrap_or_default(),
                self.get(n - 1).unwrap_or_default()
            );
        }
        match self.len() {
            0 => write!(f, "no keys"),
            1 => write!(f, "1 key ({p}0)"),
            n => write!(f, "{} keys ({p}0 … {p}{})", thousands(n as u64), n - 1),
        }
    }
}

impl Movement {
    /// A one-row-per-figure summary table.
    pub fn table(&self) -> Table {
        let mut t = Table::new("keys moved", ["", "keys", "share"]);
        let share = |x: u64| pct(x as f64 / self.keys.max(1) as f64, 2);
        t.row(["compared", &thousands(self.keys), ""]);
        t.row(["moved", &thousands(self.moved), &share(self.moved)]);
        if !self.added_nodes().is_empty() {
            t.row(["  to an added node", &thousands(self.to_added), &share(self.to_added)]);
        }
        if !self.removed_nodes().is_empty() {
            t.row(["  from a removed node", &thousands(self.from_removed), &share(self.from_removed)]);
        }
        t.row(["  churn: old node → old node", &thousands(self.between_kept), &share(self.between_kept)]);
        t
    }

    /// The old→new matrix as a table (rows: before; columns: after).
    pub fn matrix_table(&self) -> Table {
        let mut headers = vec!["before \\ after".to_string()];
        headers.extend(self.nodes.iter().cloned());
        let mut t = Table::new("keys by node before (rows) and after (columns)", headers);
        for (i, r) in self.matrix.iter().enumerate() {
            let mut row = vec![self.nodes[i].clone()];
            row.extend(r.iter().map(|&c| thousands(c)));
            t.row(row);
        }
        t
    }
}

shows_as_table!(Movement);

impl LoadReport {
    /// Each node's count and share, then the summary.
    pub fn table(&self) -> Table {
        let mut t = Table::new("keys per node", ["node", "keys", "share"]);
        let total = self.total().max(1) as f64;
        for (n, &c) in self.nodes.iter().zip(&self.counts) {
            t.row([n.as_str(), &thousands(c), &format!("{:.1}%", 100.0 * c as f64 / total)]);
        }
        t.note(format!(
            "min {} · max {} · mean {} · max/mean {:.3} · std dev {:.1} ({:.1}% of mean)",
            thousands(self.min()),
            thousands(self.max()),
            fixed(self.mean(), 1),
            self.max_over_mean(),
            self.std_dev(),
            100.0 * self.relative_std_dev()
        ));
        t
    }
}

shows_as_table!(LoadReport);

impl ArrangementSweep {
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
        t.row(["floor", &pct(self.ideal_share(), 2)]);
        t.row(["smallest node held", &thousands(self.smallest_node())]);
        t.row(["largest node held", &thousands(self.largest_node())]);
        t
    }
}

shows_as_table!(ArrangementSweep);

impl VnodeSweep {
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
            t.note(format!("floor {}", pct(s.ideal_share(), 2)));
        }
        t
    }
}

shows_as_table!(VnodeSweep);

impl ModuloSweep {
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

impl Comparison {
    fn title(&self) -> String {
        format!(
            "{} → {} nodes · {} keys ({}0 …) · {}",
            self.from,
            self.to,
            thousands(self.keys),
            self.prefix,
            self.width
        )
    }

    fn floor_note(&self) -> String {
        format!(
            "× floor: share moved over |{} − {}| / max = {}; churn: movers from one old node to another old node; load after: max/mean and std dev over mean; memory: estimated bytes of the lookup structure",
            self.to,
            self.from,
            pct(self.floor, 2)
        )
    }

    fn build_table(&self, timing: bool) -> Table {
        let mut headers = vec![
            "scheme",
            "keys moved",
            "share",
            "× floor",
            "between old nodes",
            "max/mean",
            "std dev",
            "memory (bytes)",
        ];
        if timing {
            headers.push("ns/lookup (machine-dependent)");
        }
        let mut t = Table::new(self.title(), headers);
        for r in &self.rows {
            let mut cells = vec![
                r.name.clone(),
                thousands(r.moved),
                pct(r.share, 2),
                r.over_floor.map_or("—".to_string(), |x| format!("{x:.2}×")),
                thousands(r.between_kept),
                format!("{:.3}", r.max_over_mean),
                pct(r.relative_std_dev, 2),
                thousands(r.memory_bytes),
            ];
            if timing {
                cells.push(ns(r.lookup_ns));
            }
            t.row(cells);
        }
        let mut note = self.floor_note();
        if timing {
            note.push_str(&format!("; {}", self.timing_note()));
        }
        t.note(note);
        t
    }

    fn timing_note(&self) -> String {
        format!(
            "ns/lookup: one locate() call, timed single-threaded over the first {} keys on this machine — it varies between runs and machines (bounded loads: —, a key's owner depends on the whole key set)",
            thousands(self.timed_keys as u64)
        )
    }

    /// Every column, the lookup time included (marked machine-dependent).
    pub fn table(&self) -> Table {
        self.build_table(true)
    }

    /// Every deterministic column: the same output on every run and machine.
    pub fn table_without_timing(&self) -> Table {
        self.build_table(false)
    }

    /// The lookup times alone (machine-dependent).
    pub fn timing_table(&self) -> Table {
        let mut t = Table::new(
            format!("lookup time · {} (machine-dependent)", self.title()),
            ["scheme", "ns per lookup", "keys timed"],
        );
        for r in &self.rows {
            t.row([r.name.clone(), ns(r.lookup_ns), thousands(self.timed_keys as u64)]);
        }
        t.note(self.timing_note());
        t
    }
}

shows_as_table!(Comparison);

impl LoadSpread {
    /// Measured beside predicted and the paper's values.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            self.title(),
            [
                "scheme",
                "points/node k",
                "arrangements",
                "key space: measured",
                "√((N−1)/(kN+1))",
                "paper",
                "keys: measured",
                "keys: expected",
            ],
        );
        for r in &self.rows {
            t.row([
                r.scheme.clone(),
                r.points_per_node.map_or("—".into(), |k| thousands(k as u64)),
                r.arrangements.to_string(),
                four_places(r.key_space),
                four_places(r.key_space_predicted),
                four_places(r.paper),
                format!("{:.4}", r.key_counts),
                format!("{:.4}", r.key_counts_predicted),
            ]);
        }
        t.note(
            "key space: each node's share of the circle (what Lamping & Veach's table measures); keys: each node's count of the keys, \
which adds the sampling noise (N−1)/m of m keys to the variance — all jump hash has (the binomial floor √((N−1)/m)); paper: \
Lamping & Veach 2014, standard error of the ring's bucket sizes",
        );
        t
    }
}

shows_as_table!(LoadSpread);

/// A spread to four decimals, or "—" where a row has none.
fn four_places(x: Option<f64>) -> String {
    x.map_or("—".to_string(), |v| format!("{v:.4}"))
}

impl LoadSpread {
    /// The measured columns of [`table`](Self::table) only — no formula, no
    /// paper — for showing a result before it is compared.
    pub fn measured_table(&self) -> Table {
        let mut t = Table::new(
            self.title(),
            ["scheme", "points/node k", "arrangements", "key space: measured", "keys: measured"],
        );
        for r in &self.rows {
            t.row([
                r.scheme.clone(),
                r.points_per_node.map_or("—".into(), |k| thousands(k as u64)),
                r.arrangements.to_string(),
                four_places(r.key_space),
                format!("{:.4}", r.key_counts),
            ]);
        }
        t.note("key space: each node's share of the circle; keys: each node's count of the keys");
        t
    }

    fn title(&self) -> String {
        match self.rows.first() {
            Some(r) => format!(
                "load spread: std dev of per-node load over its mean · {} nodes · {} keys",
                thousands(r.nodes as u64),
                thousands(r.keys)
            ),
            None => "load spread".into(),
        }
    }
}

impl MiddleRemoval {
    /// Moved keys, those from the removed node, and those between nodes
    /// that stayed.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("removing node {} of 0…{} · {} keys", self.removed, self.nodes - 1, thousands(self.keys)),
            ["scheme", "removed", "keys moved", "share", "× 1/n", "from removed node", "churn"],
        );
        for r in &self.rows {
            t.row([
                r.label.clone(),
                r.removed.clone(),
                thousands(r.moved),
                pct(r.share, 2),
                format!("{:.2}×", r.over_ideal),
                thousands(r.from_removed),
                thousands(r.between_kept),
            ]);
        }
        t.note(format!(
            "× 1/n: share moved over the floor 1/{} (the removed node's keys); jump and hash % N number their nodes, so a middle node can only go by renumbering the ones after it",
            self.nodes
        ));
        t
    }
}

shows_as_table!(MiddleRemoval);

impl BoundedLoads {
    /// Per ring: the cap, the busiest node, and what growing moved.
    pub fn table(&self) -> Table {
        let (from, to) = self.nodes();
        let mut t = Table::new(
            format!("bounded loads beside the plain ring, {from} → {to} nodes"),
            ["points/node", "ε", "cap c", "busiest", "max/mean", "moved", "share", "churn"],
        );
        for r in &self.rows {
            t.row([
                r.points.to_string(),
                r.epsilon.map_or("ring".into(), |e| e.to_string()),
                r.cap.map_or("—".into(), thousands),
                thousands(r.busiest),
                format!("{:.3}", r.max_over_mean),
                thousands(r.moved),
                pct(r.share(), 2),
                thousands(r.between_kept),
            ]);
        }
        t.note("ring: no cap · cap c = ⌈(1 + ε)·m/n⌉ after growing · churn: movers between two old nodes");
        t
    }
}

shows_as_table!(BoundedLoads);

impl WeightedShares {
    /// Per node: its weight, the share that weight asks for, and the share of
    /// the keys each scheme gave it.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("weighted placement of {} keys: share of the keys per node", thousands(self.keys)),
            ["node", "weight", "weight share", "rendezvous, weighted", "ketama", "ketama points"],
        );
        for r in &self.rows {
            t.row([
                r.node.clone(),
                r.weight.to_string(),
                pct(r.weight_share, 2),
                pct(r.rendezvous, 2),
                pct(r.ketama, 2),
                thousands(r.ketama_points as u64),
            ]);
        }
        t.note(format!(
            "weight share = w / Σw · largest gap from it, in percentage points: rendezvous {:.2}, ketama {:.2}",
            100.0 * self.rendezvous_gap(),
            100.0 * self.ketama_gap()
        ));
        t
    }
}

shows_as_table!(WeightedShares);

/// A lookup time, or "—" where there is none.
fn ns(x: Option<f64>) -> String {
    x.map_or_else(|| "—".to_string(), |v| format!("{v:.1}"))
}

impl SlotPlan {
    /// One row per step: from, to, how many slots, which.
    pub fn table(&self) -> Table {
        let mut t = Table::new("the plan, step by step", ["step", "from", "to", "slots", "which slots"]);
        for (k, m) in self.moves().iter().enumerate() {
            t.row([
                (k + 1).to_string(),
                m.from.clone(),
                m.to.clone(),
                thousands(m.slots.len() as u64),
                crate::present::slot_ranges(&m.slots),
            ]);
        }
        let mut after: Vec<String> = self
            .after()
            .nodes()
            .iter()
            .zip(self.after().slot_counts())
            .map(|(n, c)| format!("{n} {}", thousands(c as u64)))
            .collect();
        after.sort();
        t.note(format!(
            "{} slots move; slots per node after: {}",
            thousands(self.slots_moved() as u64),
            after.join(" · ")
        ));
        t
    }
}

shows_as_table!(SlotPlan);
