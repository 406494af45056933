//! A node joins: the [`JoinSweep`] (clusters of every size, rings and
//! `hash % N`) and the [`WeightedJoin`] (weighted rendezvous at several
//! weights of the newcomer) as tables and, with the `charts` feature, as
//! explorables: a chart whose slider is the lab's parameter (`vnodes`,
//! `nodes`, `new_weight`), every value on it the crate's.
//!
//! ```
//! use reshard::analysis::JoinSweep;
//! use reshard::prelude::*;
//! let keys = KeySet::users(2_000).hashed(HashWidth::Bits32)?;
//! let s = JoinSweep::measure(&keys, &letters("ABCD"), &[1, 10])?;
//! assert!(s.table().to_string().contains("hash % N"));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::{JoinSweep, WeightedJoin};
use crate::present::tables::{shows_as_table, Table};
use crate::present::{pct, thousands};

impl JoinSweep {
    /// One row per cluster size: the ring's share moved at each number of
    /// points per node, `hash % N`'s and the floor.
    pub fn table(&self) -> Table {
        let mut head = vec!["N → N + 1".to_string()];
        head.extend(self.points.iter().map(|v| format!("ring, {v} pt")));
        head.extend(["hash % N".to_string(), "floor".to_string()]);
        let mut t = Table::new("share of the keys moved when one node joins N nodes", head);
        for n in 1..self.names.len() {
            let mut cells = vec![format!("{n} → {}", n + 1)];
            let rows: Vec<_> = self.rows.iter().filter(|r| r.nodes == n).collect();
            cells.extend(rows.iter().map(|r| pct(r.ring_share(), 1)));
            if let Some(r) = rows.first() {
                cells.extend([pct(r.modulo_share(), 1), pct(r.floor(), 1)]);
            }
            t.row(cells);
        }
        t.note(format!("nodes: the first N + 1 of {}", self.names.join(", ")));
        t
    }
}

shows_as_table!(JoinSweep);

impl WeightedJoin {
    /// One row per node: its keys before, then its weight and share of the
    /// keys after the join at each weight of the newcomers.
    pub fn table(&self) -> Table {
        let mut head = vec!["node".to_string(), "keys before".to_string()];
        head.extend(self.rows.iter().map(|r| format!("after, weight {}", r.weight)));
        let mut t = Table::new("weighted rendezvous: share of the keys per node after the join", head);
        for (i, node) in self.nodes.iter().enumerate() {
            let mut cells = vec![node.clone(), self.before.get(i).map_or_else(|| "—".into(), |&c| thousands(c))];
            cells.extend(self.rows.iter().map(|r| pct(r.share(i), 1)));
            t.row(cells);
        }
        let moved: Vec<String> =
            self.rows.iter().map(|r| format!("{} {}", r.weight, pct(r.moved_share(), 2))).collect();
        t.note(format!("share moved, by weight: {}", moved.join(" · ")));
        t
    }
}

shows_as_table!(WeightedJoin);

#[cfg(feature = "charts")]
mod explorables {
    use crate::analysis::{JoinSweep, WeightedJoin};
    use crate::present::{Explorable, Format};
    use crate::{Error, Result};

    /// The x of the bars that show the keys moved.
    pub(crate) const MOVED: &str = "keys moved";

    impl JoinSweep {
        /// Bars: a group for the share of the keys that moved when one node
        /// joins N nodes, then one group per node after the join (its share
        /// of the keys; the keys moved come first so that the bars keep
        /// their order as the slider adds and removes nodes): the ring (the first series) beside `hash % N`. Two
        /// sliders: `nodes` (N, from 1 to one less than the names), starting
        /// at `nodes`, and `vnodes` (the ring's points per node, its values
        /// [`points`](JoinSweep::points)), starting at `vnodes`, which must
        /// be one of them. Fails on those, and on a node named
        /// `"keys moved"`, the first group's label ([`Error::NameTaken`]).
        ///
        /// ```
        /// use reshard::analysis::JoinSweep;
        /// use reshard::prelude::*;
        /// let keys = KeySet::users(2_000).hashed(HashWidth::Bits32)?;
        /// let ex = JoinSweep::measure(&keys, &letters("ABCDE"), &[1, 10, 100])?.explorable(3, 10)?;
        /// // points values × Σ (N + 1 nodes + the keys moved) for N = 1 … 4 × two series
        /// assert_eq!(ex.points(), 3 * (3 + 4 + 5 + 6) * 2);
        /// assert!(JoinSweep::measure(&keys, &letters("ABC"), &[1])?.explorable(2, 7).is_err());
        /// assert!(JoinSweep::measure(&keys, &letters("ABC"), &[1])?.explorable(3, 1).is_err());
        /// # Ok::<(), reshard::Error>(())
        /// ```
        pub fn explorable(&self, nodes: usize, vnodes: usize) -> Result<Explorable> {
            if let Some(name) = self.names.iter().find(|n| *n == MOVED) {
                return Err(Error::NameTaken {
                    what: "node",
                    name: name.clone(),
                    by: "this chart's group of bars for the keys moved (its nodes' groups sit beside it)",
                });
            }
            let mut ex = Explorable::bars(
                "Share of the keys on each node after one node joins N nodes, and share moved",
                "the keys moved, then each node after the join",
                "share of the keys",
            )
            .slider("nodes", 1..self.names.len(), nodes)?
            .slider("vnodes", self.points.iter().copied(), vnodes)?
            .format(Format::Percent(1))
            .size(760, 320);
            for r in &self.rows {
                let xs = [MOVED].into_iter().chain(self.names[..=r.nodes].iter().map(String::as_str));
                let ring: Vec<f64> =
                    [r.ring_share()].into_iter().chain((0..=r.nodes).map(|i| r.ring_node_share(i))).collect();
                ex.series_row("ring, vnodes points per node", &[r.nodes, r.vnodes], xs, &ring)?;
            }
            for r in &self.rows {
                let xs = [MOVED].into_iter().chain(self.names[..=r.nodes].iter().map(String::as_str));
                let m: Vec<f64> =
                    [r.modulo_share()].into_iter().chain((0..=r.nodes).map(|i| r.modulo_node_share(i))).collect();
                ex.series_row("hash % N", &[r.nodes, r.vnodes], xs, &m)?;
            }
            Ok(ex)
        }
    }

    impl WeightedJoin {
        /// Bars, one group per node after the join: its share of the keys
        /// (the first series) and of the weight, `w / Σw`; the slider
        /// `new_weight` picks the newcomers' weight (the measured weights),
        /// starting at `new_weight`, which must be one of them. The
        /// newcomers' bars are the share that moved.
        ///
        /// ```
        /// use reshard::analysis::WeightedJoin;
        /// use reshard::prelude::*;
        /// let keys = KeySet::plain(2_000).hashed(HashWidth::Bits128)?;
        /// let join = WeightedJoin::measure(&keys, &Rendezvous::new(3)?, &["3".to_string()], &[1.0, 3.0])?;
        /// let ex = join.explorable(3.0)?;
        /// assert_eq!(ex.value(&[3.0], "share of the weight", "3"), Some(0.5));
        /// assert!(join.explorable(2.0).is_err());
        /// # Ok::<(), reshard::Error>(())
        /// ```
        pub fn explorable(&self, new_weight: f64) -> Result<Explorable> {
            let joined = self.nodes[self.nodes.len() - self.added..].join(", ");
            let who = if self.added == 1 { format!("node {joined} joins") } else { format!("nodes {joined} join") };
            let title = format!("Share of the keys on each node after {who}, weighted rendezvous");
            let mut ex = Explorable::bars(&title, "node", "share")
                .slider("new_weight", self.rows.iter().map(|r| r.weight), new_weight)?
                .format(Format::Percent(1))
                .size(720, 320);
            let n = self.nodes.len();
            for r in &self.rows {
                let keys: Vec<f64> = (0..n).map(|i| r.share(i)).collect();
                ex.series_row("share of the keys", &[r.weight], &self.nodes, &keys)?;
            }
            for r in &self.rows {
                let weight: Vec<f64> = (0..n).map(|i| r.weight_share(i)).collect();
                ex.series_row("share of the weight", &[r.weight], &self.nodes, &weight)?;
            }
            Ok(ex)
        }
    }
}
