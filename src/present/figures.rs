//! Pictures of the results: each result type draws itself with [`charts`](crate::present::charts).
//!
//! Every method returns a chart builder from [`charts`](crate::present::charts); end a
//! notebook cell with it to see the picture, or call `.build()` for the
//! SVG. The titles say what to look for; change them with `.subtitle(..)`.
//!
//! ```
//! use reshard::{HashWidth, KeySet, Modulo, Movement};
//! let keys = KeySet::plain(11_000).hashed(HashWidth::Bits128)?;
//! let m = Movement::measure(&keys, &Modulo::new(10)?, &Modulo::new(11)?)?;
//! let fig = m.heatmap_chart("hash % N scatters keys between old nodes").build();
//! assert!(fig.to_img_tag().starts_with("<img src=\"data:image/svg+xml;base64,"));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::{
    ArrangementSweep, Comparison, LoadReport, LoadSpread, MiddleRemoval, ModuloSweep, Movement, SpreadRow, VnodeSweep,
    WeightedShares,
};
use crate::present::charts::{self as plot, BarChart, Heatmap, LineChart, RingDiagram, Series, ShardMap, Style};
use crate::present::{pct, thousands};
use crate::schemes::{FixedShards, Placement, Ring};
use crate::HashedKeys;

impl Movement {
    /// The old→new matrix as a heatmap: rows are the node before, columns
    /// the node after; the diagonal (keys that stayed) is outlined.
    pub fn heatmap_chart(&self, title: &str) -> Heatmap {
        plot::heatmap(title, self.nodes(), self.nodes(), self.matrix(), "node after", "node before")
            .mark_diagonal(true)
            .unit("keys")
    }
}

/// Keys per node for several placements of the same nodes, as grouped bars
/// with the mean load drawn across.
///
/// ```
/// use reshard::{present::load_chart, letters, HashWidth, KeySet, LoadReport, Ring};
/// let keys = KeySet::users(1000).hashed(HashWidth::Bits32)?;
/// let one = LoadReport::measure(&keys, &Ring::named(letters("ABCD"))?)?;
/// let many = LoadReport::measure(&keys, &Ring::named(letters("ABCD"))?.with_vnodes(150)?)?;
/// let fig = load_chart("keys per node", &[("1 point", &one), ("150 points", &many)]).build();
/// assert!(fig.svg().contains("mean load"));
/// # Ok::<(), reshard::Error>(())
/// ```
pub fn load_chart(title: &str, reports: &[(&str, &LoadReport)]) -> BarChart {
    let nodes: Vec<String> = reports.first().map(|(_, r)| r.nodes().to_vec()).unwrap_or_default();
    let series: Vec<(String, Vec<f64>)> =
        reports.iter().map(|(name, r)| (name.to_string(), r.counts().iter().map(|&c| c as f64).collect())).collect();
    let mean = reports.first().map_or(0.0, |(_, r)| r.mean());
    plot::bar_chart(title, "keys", &nodes, &series)
        .x_label("node")
        .reference(mean, &format!("mean load ({})", thousands(mean.round() as u64)))
}

impl LoadReport {
    /// Keys per node as bars, with the mean load drawn across.
    pub fn chart(&self, title: &str) -> BarChart {
        load_chart(title, &[("keys", self)])
    }
}

impl Ring {
    /// The ring as a circle, at the width of `keys`: each node's points
    /// and the arcs it owns, and the first `sample` keys drawn inside the
    /// ring (0: none).
    pub fn ring_chart(&self, title: &str, keys: &HashedKeys, sample: usize) -> RingDiagram {
        let width = keys.width();
        let points: Vec<(f64, usize)> =
            self.points(width).iter().map(|p| (width.position(p.hash), p.node as usize)).collect();
        let key_pos: Vec<f64> = keys.hashes().iter().take(sample).map(|&h| width.position(h)).collect();
        let keys = (sample > 0).then_some(key_pos.as_slice());
        plot::ring_diagram(title, &points, self.nodes(), keys).label_points(self.vnodes() == 1)
    }
}

impl FixedShards {
    /// The shard→node table before (`self`) and `after`, moved shards
    /// outlined. Nodes are matched by name.
    pub fn map_chart(&self, after: &FixedShards, title: &str) -> ShardMap {
        let mut names: Vec<String> = self.nodes().to_vec();
        let mut at: std::collections::HashMap<&str, usize> =
            self.nodes().iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
        for n in after.nodes() {
            if !at.contains_key(n.as_str()) {
                at.insert(n, names.len());
                names.push(n.clone());
            }
        }
        // each node id's place in `names`, then one lookup per shard
        let index = |p: &FixedShards| -> Vec<usize> {
            let of: Vec<usize> = p.nodes().iter().map(|n| at.get(n.as_str()).copied().unwrap_or(0)).collect();
            p.table().iter().map(|&t| of[t as usize]).collect()
        };
        let (b, a) = (index(self), index(after));
        plot::shard_map(title, &b, &a, &names)
    }
}

impl ModuloSweep {
    /// Measured share moved against the new node count, with the min/lcm
    /// rule and the floor (the least any scheme must move).
    pub fn chart(&self, title: &str) -> LineChart {
        let rows = self.rows();
        let measured = Series::new("hash % N, measured", rows.iter().map(|r| (r.new as f64, r.measured)))
            .style(Style::Points)
            .ink(0);
        let rule =
            Series::new("1 − min/lcm rule", rows.iter().map(|r| (r.new as f64, r.rule))).style(Style::Line).ink(1);
        let floor =
            Series::new("floor |Δ|/max", rows.iter().map(|r| (r.new as f64, r.floor))).style(Style::Line).ink(2);
        plot::line_chart(title, "nodes after", "share of keys moved", &[measured, rule, floor])
            .y_percent(true)
            .include_zero(true)
    }
}

impl ArrangementSweep {
    /// Share moved in each arrangement, with the floor drawn across.
    pub fn chart(&self, title: &str) -> LineChart {
        let pts = self.rows().iter().enumerate().map(|(i, r)| (i as f64, r.moved_share));
        let s = Series::new(format!("{} point(s) per node", self.vnodes()), pts).style(Style::Points).ink(0);
        plot::line_chart(title, "arrangement (salt)", "share of keys moved", &[s])
            .y_percent(true)
            .include_zero(true)
            .reference(self.ideal_share(), &format!("floor {:.2}%", 100.0 * self.ideal_share()))
    }
}

impl VnodeSweep {
    /// Least–most share moved (band) and the mean, against points per node
    /// on a log axis, with the floor drawn across.
    pub fn chart(&self, title: &str) -> LineChart {
        let s = self.sweeps();
        let mean = Series::new("mean over arrangements", s.iter().map(|w| (w.vnodes() as f64, w.mean_share())))
            .band(s.iter().map(|w| (w.vnodes() as f64, w.min_share(), w.max_share())))
            .ink(0);
        let ideal = s.first().map_or(0.0, ArrangementSweep::ideal_share);
        plot::line_chart(title, "points per node (log scale)", "share of keys moved", &[mean])
            .log_x(true)
            .y_percent(true)
            .include_zero(true)
            .reference(ideal, &format!("floor {:.2}%", 100.0 * ideal))
    }

    /// The spread (std dev) of the share moved against points per node, on
    /// log–log axes, beside a `c/√v` line fitted to all sweeps (least
    /// squares in log space): with `v` points per node the spread shrinks
    /// like `1/√v`.
    pub fn spread_chart(&self, title: &str) -> LineChart {
        let s = self.sweeps();
        let measured = Series::new("std dev of share moved", s.iter().map(|w| (w.vnodes() as f64, w.std_dev_share())))
            .style(Style::LinePoints)
            .ink(0);
        let logs: Vec<f64> = s
            .iter()
            .filter(|w| w.std_dev_share() > 0.0)
            .map(|w| (w.std_dev_share() * (w.vnodes() as f64).sqrt()).ln())
            .collect();
        let c = if logs.is_empty() { 0.0 } else { (logs.iter().sum::<f64>() / logs.len() as f64).exp() };
        let trend = Series::new("c / √v", s.iter().map(|w| (w.vnodes() as f64, c / (w.vnodes() as f64).sqrt())))
            .style(Style::Line)
            .ink(1);
        plot::line_chart(title, "points per node (log scale)", "std dev of share moved", &[measured, trend])
            .log_x(true)
            .log_y(true)
            .y_percent(true)
    }
}

impl Comparison {
    fn groups(&self) -> Vec<&'static str> {
        self.rows.iter().map(|r| r.scheme.short()).collect()
    }

    fn bars(&self, title: &str, y_label: &str, series: &str, values: Vec<f64>) -> BarChart {
        plot::bar_chart(title, y_label, &self.groups(), &[(series, values)]).size(960, 420).x_label("scheme")
    }

    /// Share of keys moved per scheme, with the floor drawn across.
    pub fn moved_chart(&self, title: &str) -> BarChart {
        let v = self.rows.iter().map(|r| r.share).collect();
        self.bars(title, "share of keys moved", "moved", v)
            .y_percent(true)
            .reference(self.floor, &format!("floor |Δ|/max = {}", pct(self.floor, 2)))
    }

    /// Movers between old nodes (churn) per scheme, as a share of the keys.
    pub fn churn_chart(&self, title: &str) -> BarChart {
        let v = self.rows.iter().map(|r| r.between_kept as f64 / self.keys.max(1) as f64).collect();
        self.bars(title, "share of keys moved between old nodes", "between old nodes", v).y_percent(true)
    }

    /// Busiest node over the fair share after the change, with 1 drawn across.
    pub fn balance_chart(&self, title: &str) -> BarChart {
        let v = self.rows.iter().map(|r| r.max_over_mean).collect();
        self.bars(title, "max / mean load", "max/mean", v).reference(1.0, "perfectly even")
    }

    /// Nanoseconds per lookup (machine-dependent).
    pub fn lookup_chart(&self, title: &str) -> BarChart {
        let v = self.rows.iter().map(|r| r.lookup_ns.unwrap_or(0.0)).collect();
        self.bars(title, "ns per lookup (machine-dependent)", "ns/lookup", v)
    }

    /// Estimated bytes of the lookup structure.
    pub fn memory_chart(&self, title: &str) -> BarChart {
        let v = self.rows.iter().map(|r| r.memory_bytes as f64).collect();
        self.bars(title, "bytes (estimate)", "memory", v)
    }
}

impl LoadSpread {
    /// Log–log chart: the ring's measured spread against `k`, the `1/√k`
    /// line, the paper's values, and jump's spread drawn across.
    pub fn chart(&self, title: &str) -> LineChart {
        let ring: Vec<&SpreadRow> = self.rows.iter().filter(|r| r.points_per_node.is_some()).collect();
        let k = |r: &SpreadRow| r.points_per_node.unwrap_or(1) as f64;
        let mut series = vec![
            Series::new("ring: key space, measured", ring.iter().filter_map(|r| r.key_space.map(|v| (k(r), v))))
                .style(Style::LinePoints)
                .ink(0),
            Series::new("ring: keys, measured", ring.iter().map(|r| (k(r), r.key_counts))).style(Style::Points).ink(1),
            Series::new("1/√k", ring.iter().map(|r| (k(r), 1.0 / k(r).sqrt()))).style(Style::Line).ink(2),
        ];
        let paper: Vec<(f64, f64)> = ring.iter().filter_map(|r| r.paper.map(|p| (k(r), p))).collect();
        if !paper.is_empty() {
            series.push(Series::new("Lamping & Veach 2014", paper).style(Style::Points).ink(3));
        }
        let mut chart = plot::line_chart(title, "points per node k (log scale)", "std dev / mean (log scale)", &series)
            .log_x(true)
            .log_y(true);
        if let Some(j) = self.jump_row() {
            chart = chart.reference(j.key_counts, &format!("jump: keys, measured ({:.4})", j.key_counts));
        }
        chart
    }
}

impl WeightedShares {
    /// Each node's share of the keys against its share of the weight, one
    /// dot per node and scheme, with the line `y = x` a fair scheme sits on.
    pub fn chart(&self, title: &str) -> LineChart {
        let dots = |f: fn(&crate::analysis::WeightRow) -> f64| -> Vec<(f64, f64)> {
            self.rows.iter().map(|r| (r.weight_share, f(r))).collect()
        };
        let top = self.rows.iter().map(|r| r.weight_share).fold(0.0, f64::max) * 1.1;
        let series = [
            Series::new("rendezvous, weighted", dots(|r| r.rendezvous)).style(Style::Points).ink(0),
            Series::new("ketama (points ∝ weight)", dots(|r| r.ketama)).style(Style::Points).ink(1),
            Series::new("y = x", [(0.0, 0.0), (top, top)]).style(Style::Line).ink(7),
        ];
        plot::line_chart(title, "weight share w / Σw", "share of the keys", &series)
    }
}

impl MiddleRemoval {
    /// Share moved and churn (old node → old node), per row, with the
    /// floor `1/n` drawn across.
    pub fn chart(&self, title: &str) -> BarChart {
        let groups: Vec<&str> = self.rows.iter().map(|r| r.short.as_str()).collect();
        let k = self.keys.max(1) as f64;
        let series = [
            ("moved", self.rows.iter().map(|r| r.share).collect::<Vec<f64>>()),
            ("churn: old node → old node", self.rows.iter().map(|r| r.between_kept as f64 / k).collect()),
        ];
        let ideal = 1.0 / self.nodes as f64;
        plot::bar_chart(title, "share of keys", &groups, &series)
            .size(960, 420)
            .y_percent(true)
            .reference(ideal, &format!("floor 1/{} = {}", self.nodes, pct(ideal, 2)))
    }
}
