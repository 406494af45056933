//! Tables and charts for load in requests, hot keys, failures and replicas.
//!
//! ```
//! use reshard::notebook::*;
//! let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128)?;
//! let w = [Workload::zipf(keys.len(), 0.0, 50_000, 1)?, Workload::zipf(keys.len(), 1.1, 50_000, 1)?];
//! let skew = LoadUnderSkew::measure(&keys, &Replicated::lineup(10, 150)?, &w)?;
//! assert!(skew.table().to_text().contains("rendezvous"));
//! # #[cfg(feature = "charts")]
//! assert!(skew.chart(0, "keys and requests per node").build().svg().contains("mean load"));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::hot::{FailureSweep, HotKeySplit, LoadUnderSkew, NodeFailure, RequestBounds};
use crate::analysis::replicas::CopyMovement;
#[cfg(feature = "charts")]
use crate::present::charts::{self as plot, BarChart, LineChart, Series, Style};
use crate::present::tables::{shows_as_table, Table};
use crate::present::{fixed, pct, thousands};

/// `1.23×`
fn times(x: f64) -> String {
    format!("{}×", fixed(x, 2))
}

fn s_label(s: f64) -> String {
    format!("s = {s}")
}

impl LoadUnderSkew {
    /// The busiest node over the fair share, by keys and by requests under
    /// each workload, one row per scheme.
    pub fn table(&self) -> Table {
        let mut headers = vec!["scheme".to_string(), "keys".to_string()];
        headers.extend(self.s.iter().map(|&s| format!("requests, {}", s_label(s))));
        let mut t = Table::new("the busiest node over the mean load (1.00× is even)", headers);
        for r in &self.rows {
            let mut cells = vec![r.scheme.clone(), times(r.keys_max_over_mean())];
            cells.extend((0..self.s.len()).map(|w| times(r.requests_max_over_mean(w))));
            t.row(cells);
        }
        t.note(format!(
            "the hottest key takes {} of the requests; a node's mean load is {}",
            self.s
                .iter()
                .zip(&self.hottest)
                .map(|(&s, &h)| format!("{} at {}", pct(h, 1), s_label(s)))
                .collect::<Vec<_>>()
                .join(", "),
            pct(self.fair_share(), 1)
        ));
        t
    }

    /// The hottest key's share of the requests beside a node's fair share.
    pub fn hottest_table(&self) -> Table {
        let fair = self.fair_share();
        let mut t = Table::new(
            "one key against one node",
            ["workload", "hottest key's share", "a node's mean load", "key / mean load"],
        );
        for (&s, &h) in self.s.iter().zip(&self.hottest) {
            t.row([s_label(s), pct(h, 1), pct(fair, 1), times(h / fair)]);
        }
        t
    }

    /// Keys and requests per node for scheme `row`, as multiples of the
    /// fair share, in grouped bars.
    #[cfg(feature = "charts")]
    #[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
    pub fn chart(&self, row: usize, title: &str) -> BarChart {
        let r = &self.rows[row.min(self.rows.len().saturating_sub(1))];
        let rel = |v: &[u64]| {
            let mean = v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
            v.iter().map(|&x| if mean == 0.0 { 0.0 } else { x as f64 / mean }).collect::<Vec<f64>>()
        };
        let mut series = vec![("keys".to_string(), rel(&r.keys))];
        for (w, &s) in self.s.iter().enumerate() {
            series.push((format!("requests, {}", s_label(s)), rel(&r.requests[w])));
        }
        plot::bar_chart(title, "× the mean load", &r.nodes, &series)
            .reference(1.0, "mean load")
            .subtitle(&format!("{}: each node's keys and requests over the mean load", r.scheme))
    }
}
shows_as_table!(LoadUnderSkew);

impl RequestBounds {
    /// One row per ε (the plain ring first): the bound, the busiest node,
    /// the keys it displaces, and what moves when a node joins.
    pub fn table(&self) -> Table {
        let fair = self.fair();
        let mut t = Table::new(
            format!(
                "bounded loads on requests: {} nodes, {} points each, then node {} joins",
                self.nodes, self.vnodes, self.new_node
            ),
            ["ε", "bound / fair", "busiest / fair", "keys off their ring node", "keys moved", "requests moved"],
        );
        for r in &self.rows {
            t.row([
                r.epsilon.map_or("none (ring)".to_string(), |e| format!("{e}")),
                r.capacity.map_or("–".to_string(), |c| times(c as f64 / fair)),
                times(r.busiest as f64 / fair),
                pct(r.displaced_keys as f64 / self.keys as f64, 1),
                pct(r.moved_keys as f64 / self.keys as f64, 1),
                pct(r.moved_requests as f64 / self.requests as f64, 1),
            ]);
        }
        t.note(format!("the hottest key alone is {} of the mean load", times(self.hottest as f64 / fair)));
        t
    }
}
shows_as_table!(RequestBounds);

impl HotKeySplit {
    /// One row per way count: the busiest node, the nodes a read asks, and
    /// what the hot key costs the cluster.
    pub fn table(&self) -> Table {
        let fair = self.fair();
        let what = if self.split == 1 { self.key.clone() } else { format!("the {} hottest keys", self.split) };
        let mut t = Table::new(
            format!(
                "{what} split into sub-keys ({} requests, {} of them reads)",
                thousands(self.hot),
                thousands(self.reads)
            ),
            ["sub-keys each", "nodes a read asks", "busiest / fair", "requests they cost"],
        );
        for r in &self.rows {
            t.row([
                r.ways.to_string(),
                r.nodes_per_read.to_string(),
                times(r.busiest() as f64 / fair),
                times(r.hot_cost as f64 / self.hot.max(1) as f64),
            ]);
        }
        t.note(format!(
            "nodes a read asks: for {}; requests they cost: writes plus each read once per node it asks, over the unsplit requests",
            self.key
        ));
        t
    }

    /// Requests per node after each split, as multiples of the fair share.
    #[cfg(feature = "charts")]
    #[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
    pub fn chart(&self, title: &str) -> BarChart {
        let fair = self.fair();
        let series: Vec<(String, Vec<f64>)> = self
            .rows
            .iter()
            .map(|r| {
                (
                    format!("{} sub-key{}", r.ways, if r.ways == 1 { "" } else { "s" }),
                    r.loads.iter().map(|&l| l as f64 / fair).collect(),
                )
            })
            .collect();
        plot::bar_chart(title, "requests × the mean load", &self.nodes, &series).reference(1.0, "mean load")
    }
}
shows_as_table!(HotKeySplit);

impl NodeFailure {
    /// Each survivor's requests before and after, and what it took over.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!(
                "{}node {} fails ({} requests): where they go",
                if self.label.is_empty() { String::new() } else { format!("{}: ", self.label) },
                self.failed,
                thousands(self.failed_load)
            ),
            ["node", "before", "after", "took over"],
        );
        for ((n, &b), &a) in self.survivors.iter().zip(&self.before).zip(&self.after) {
            t.row([
                n.clone(),
                thousands(b),
                thousands(a),
                pct(a.saturating_sub(b) as f64 / self.failed_load.max(1) as f64, 1),
            ]);
        }
        t.note(format!("busiest survivor: {} of the survivors' mean load", times(self.worst_overload())));
        t
    }
}
shows_as_table!(NodeFailure);

/// The survivors' requests after the same failure under several placements,
/// as multiples of the survivors' mean load.
#[cfg(feature = "charts")]
#[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
pub fn failure_chart(title: &str, failures: &[&NodeFailure]) -> BarChart {
    let nodes: Vec<String> = failures.first().map(|f| f.survivors().to_vec()).unwrap_or_default();
    let series: Vec<(String, Vec<f64>)> = failures
        .iter()
        .map(|f| {
            let fair = f.fair_after();
            (f.label().to_string(), f.after().iter().map(|&a| a as f64 / fair).collect())
        })
        .collect();
    plot::bar_chart(title, "requests × the survivors' mean load", &nodes, &series).reference(1.0, "mean load")
}

impl FailureSweep {
    /// The worst survivor's overload and the biggest heir, per points per node.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!(
                "node {} of {} fails: the busiest survivor, over {} arrangements",
                self.failed, self.nodes, self.arrangements
            ),
            ["points per node", "busiest / fair (mean)", "busiest / fair (worst)", "biggest heir's part"],
        );
        for r in &self.rows {
            t.row([r.vnodes.to_string(), times(r.mean_overload), times(r.max_overload), pct(r.mean_heir_share, 1)]);
        }
        let z = &self.rendezvous;
        t.row([
            "rendezvous".to_string(),
            times(z.worst_overload()),
            times(z.worst_overload()),
            pct(z.biggest_heir_share(), 1),
        ]);
        t
    }

    /// The busiest survivor over the fair share against points per node
    /// (log axis), mean and worst over the arrangements, with rendezvous
    /// drawn across.
    #[cfg(feature = "charts")]
    #[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
    pub fn chart(&self, title: &str) -> LineChart {
        let mean = Series::new("mean over arrangements", self.rows.iter().map(|r| (r.vnodes as f64, r.mean_overload)))
            .style(Style::LinePoints);
        let worst = Series::new("worst arrangement", self.rows.iter().map(|r| (r.vnodes as f64, r.max_overload)))
            .style(Style::Points);
        plot::line_chart(title, "points per node (log scale)", "busiest survivor × mean load", &[mean, worst])
            .log_x(true)
            .reference(
                self.rendezvous.worst_overload(),
                &format!("rendezvous ({})", times(self.rendezvous.worst_overload())),
            )
            .reference(1.0, "mean load")
    }
}
shows_as_table!(FailureSweep);

impl CopyMovement {
    /// Copies made when the node joins, per scheme, beside the floor.
    pub fn table(&self) -> Table {
        let copies = self.copies() as f64;
        let mut t = Table::new(
            format!(
                "node {} joins: copies to make, {} copies per key ({} in all)",
                self.new_node,
                self.rf,
                thousands(self.copies())
            ),
            ["scheme", "replicas on", "owners moved", "copies to make", "share", "on the new node", "on old nodes"],
        );
        for r in &self.rows {
            t.row([
                r.scheme.clone(),
                r.rule.clone(),
                thousands(r.primaries_moved),
                thousands(r.copies_moved),
                pct(r.copies_moved as f64 / copies, 1),
                thousands(r.to_added),
                thousands(r.to_old),
            ]);
        }
        t.note(format!(
            "floor: the new node's share, 1/{} of the copies = {} ({})",
            self.nodes + 1,
            thousands((copies * self.floor()).round() as u64),
            pct(self.floor(), 1)
        ));
        t
    }

    /// Share of the copies made per scheme, split by where they go, with the
    /// floor drawn across.
    #[cfg(feature = "charts")]
    #[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
    pub fn chart(&self, title: &str) -> BarChart {
        let copies = self.copies() as f64;
        let groups: Vec<&str> = self.rows.iter().map(|r| r.scheme.as_str()).collect();
        let series = [
            ("on the new node", self.rows.iter().map(|r| r.to_added as f64 / copies).collect::<Vec<f64>>()),
            ("on old nodes", self.rows.iter().map(|r| r.to_old as f64 / copies).collect()),
        ];
        plot::bar_chart(title, "share of all copies made anew", &groups, &series)
            .y_percent(true)
            .reference(self.floor(), &format!("floor 1/{} = {}", self.nodes + 1, pct(self.floor(), 1)))
    }
}
shows_as_table!(CopyMovement);
