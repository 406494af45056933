//! Tables and charts for range sharding: a [`KeyRanges`] or [`HashRanges`]
//! table, a [`RangeGrowth`] run (per node, its splits, moves and final
//! ranges; rows per node over the arrivals and rows or writes per range as
//! charts) and a [`RangeQuery`].
//!
//! A long list shows its first 25 rows and its last 5, and says so.
//!
//! ```
//! use reshard::analysis::{GrowthSettings, RangeGrowth};
//! use reshard::notebook::*;
//! let r = KeyRanges::named(letters("AB"))?.with_boundaries(["m"])?;
//! assert!(r.to_string().contains("−∞"));
//! let g = RangeGrowth::run(&KeySet::plain(5_000), &r, &GrowthSettings::new(500))?;
//! assert!(g.table().to_text().contains("share of writes"));
//! assert!(g.splits_table().to_html().starts_with("<table"));
//! # #[cfg(feature = "charts")]
//! assert!(g.rows_chart("rows per node as keys arrive, in key order").build().svg().contains("keys arrived"));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::{Arrival, Boundary, GrownRange, RangeGrowth, RangeQuery};
use crate::keys::escape;
#[cfg(feature = "charts")]
use crate::present::charts::{self as plot, BarChart, LineChart, Series};
use crate::present::tables::{shows_as_table, Table};
use crate::present::{fixed, pct, thousands};
use crate::schemes::{HashRanges, KeyRanges, NodeId, Placement};
use crate::HashWidth;

/// Rows of a long list shown from its start, and from its end.
const HEAD: usize = 25;
const TAIL: usize = 5;

/// The indices of a list of `n` rows to show (`None`: the "…" row).
fn shown(n: usize) -> Vec<Option<usize>> {
    if n <= HEAD + TAIL {
        return (0..n).map(Some).collect();
    }
    (0..HEAD).map(Some).chain([None]).chain((n - TAIL..n).map(Some)).collect()
}

/// Fill `t` with one row per shown item (a "…" row for the gap) and say
/// in a note how many there are when some are left out.
pub(crate) fn fill(
    t: &mut Table,
    n: usize,
    what: &str,
    cols: usize,
    mut row: impl FnMut(usize) -> Vec<String>,
) -> Option<String> {
    for i in shown(n) {
        match i {
            Some(i) => t.row(row(i)),
            None => t.row(std::iter::once("…".to_string()).chain(std::iter::repeat_n(String::new(), cols - 1))),
        };
    }
    (n > HEAD + TAIL).then(|| format!("{} {what}: the first {HEAD} and the last {TAIL} shown", thousands(n as u64)))
}

fn name(nodes: &[String], id: NodeId) -> String {
    nodes.get(id as usize).cloned().unwrap_or_else(|| format!("node {id}"))
}

fn key_text(k: Option<&[u8]>, low: bool) -> String {
    match k {
        Some(k) => format!("\"{}\"", escape(k)),
        None if low => "−∞".into(),
        None => "+∞".into(),
    }
}

/// The end of the hash space, as a bound is printed.
fn space_end(width: HashWidth) -> String {
    format!("2^{}", width.bits())
}

fn boundary_text(b: Option<&Boundary>, low: bool, width: Option<HashWidth>) -> String {
    match (b, width) {
        (Some(b), _) => b.to_string(),
        (None, Some(_)) if low => "0".into(),
        (None, Some(w)) => space_end(w),
        (None, None) => key_text(None, low),
    }
}

/// "A 3 · B 2": ranges per node.
fn per_node(nodes: &[String], counts: &[usize]) -> String {
    nodes.iter().zip(counts).map(|(n, c)| format!("{n} {}", thousands(*c as u64))).collect::<Vec<_>>().join(" · ")
}

pub(crate) fn with_note(mut t: Table, parts: Vec<Option<String>>) -> Table {
    let note: Vec<String> = parts.into_iter().flatten().collect();
    if !note.is_empty() {
        t.note(note.join("; "));
    }
    t
}

impl KeyRanges {
    /// Each range's bounds and node.
    pub fn ranges_table(&self) -> Table {
        let nodes = self.nodes();
        let mut t = Table::new(
            format!("{} key ranges on {} nodes", thousands(self.table().len() as u64), nodes.len()),
            ["range", "from (included)", "to (excluded)", "node"],
        );
        let spans = self.ranges();
        let cut = fill(&mut t, spans.len(), "ranges", 4, |i| {
            let s = &spans[i];
            vec![
                i.to_string(),
                key_text(s.lower.as_deref(), true),
                key_text(s.upper.as_deref(), false),
                name(nodes, s.owner),
            ]
        });
        with_note(t, vec![cut, Some(format!("ranges per node: {}", per_node(nodes, &self.range_counts())))])
    }
}
shows_as_table!(KeyRanges, ranges_table);

impl HashRanges {
    /// Each range's bounds, its share of the hash space, and its node.
    pub fn ranges_table(&self) -> Table {
        let (nodes, w) = (self.nodes(), self.width());
        let mut t = Table::new(
            format!("{} hash ranges ({w}) on {} nodes", thousands(self.table().len() as u64), nodes.len()),
            ["range", "from (included)", "to (excluded)", "share of the hash space", "node"],
        );
        let spans = self.ranges();
        let cut = fill(&mut t, spans.len(), "ranges", 5, |i| {
            let s = &spans[i];
            let lo = s.lower.unwrap_or(0);
            // hi − lo, with the end of a 128-bit space (2^128) written as u128::MAX − lo + 1
            let width = match s.upper {
                Some(hi) => (hi - lo) as f64,
                None => (w.reduce(u128::MAX) - lo) as f64 + 1.0,
            };
            vec![
                i.to_string(),
                thousands_u128(lo),
                s.upper.map_or_else(|| space_end(w), thousands_u128),
                pct(width / w.space(), 2),
                name(nodes, s.owner),
            ]
        });
        with_note(t, vec![cut, Some(format!("ranges per node: {}", per_node(nodes, &self.range_counts())))])
    }
}
shows_as_table!(HashRanges, ranges_table);

fn thousands_u128(x: u128) -> String {
    Boundary::Hash(x).to_string()
}

impl RangeGrowth {
    fn kind(&self) -> Option<HashWidth> {
        self.start_layout().width()
    }

    /// What the run did, in words: "key ranges, 10,000 keys in key-set
    /// order, split above 1,000 rows, balancer off".
    pub fn describe(&self) -> String {
        let s = self.settings();
        let order = match s.arrival_order() {
            Arrival::KeyOrder => "in key-set order".to_string(),
            Arrival::Shuffled(seed) => format!("shuffled (seed {seed})"),
        };
        let balance = s.balance_factor().map_or("balancer off".to_string(), |f| format!("balancer factor {f}"));
        format!(
            "{}, {} keys {order}, split above {} rows, {balance}",
            self.start_layout().describe(),
            thousands(self.arrivals()),
            thousands(s.threshold())
        )
    }

    /// Per node: its ranges, rows and writes at the end.
    pub fn table(&self) -> Table {
        let nodes = self.nodes();
        let mut counts = vec![0usize; nodes.len()];
        for r in self.ranges() {
            counts[r.owner as usize] += 1;
        }
        let mut t =
            Table::new(self.describe(), ["node", "ranges", "rows", "share of rows", "writes", "share of writes"]);
        let (rows, writes) = (self.rows().max(1) as f64, self.arrivals().max(1) as f64);
        for (i, n) in nodes.iter().enumerate() {
            let (r, w) = (self.rows_per_node()[i], self.writes_per_node()[i]);
            t.row([
                n.clone(),
                thousands(counts[i] as u64),
                thousands(r),
                pct(r as f64 / rows, 1),
                thousands(w),
                pct(w as f64 / writes, 1),
            ]);
        }
        t.note(format!(
            "{} splits → {} ranges · balancer: {} moves, {} rows moved · busiest node / mean: rows {}×, writes {}× · \
             {} rows ({} writes; a key written again is an update)",
            thousands(self.splits().len() as u64),
            thousands(self.ranges().len() as u64),
            thousands(self.moves().len() as u64),
            thousands(self.rows_moved()),
            fixed(self.max_over_mean_rows(), 3),
            fixed(self.max_over_mean_writes(), 3),
            thousands(self.rows()),
            thousands(self.arrivals())
        ));
        t
    }

    /// Every split: when, which range, where, and how its rows fell.
    pub fn splits_table(&self) -> Table {
        let mut t = Table::new(
            format!("splits above {} rows", thousands(self.settings().threshold())),
            ["arrival", "range", "boundary", "rows below", "rows from it", "node"],
        );
        let s = self.splits();
        let cut = fill(&mut t, s.len(), "splits", 6, |i| {
            let x = &s[i];
            vec![
                thousands(x.arrival),
                x.range.to_string(),
                x.boundary.to_string(),
                thousands(x.left_rows),
                thousands(x.right_rows),
                name(self.nodes(), x.node),
            ]
        });
        with_note(t, vec![cut])
    }

    /// Every move of the balancer.
    pub fn moves_table(&self) -> Table {
        let mut t = Table::new("balancing moves", ["arrival", "range", "from", "to", "rows"]);
        let m = self.moves();
        let cut = fill(&mut t, m.len(), "moves", 5, |i| {
            let x = &m[i];
            let n = self.nodes();
            vec![thousands(x.arrival), x.range.to_string(), name(n, x.from), name(n, x.to), thousands(x.rows)]
        });
        with_note(t, vec![cut, self.settings().balance_factor().is_none().then(|| "the balancer is off".into())])
    }

    /// The ranges at the end: bounds, node, rows, and writes since each was created.
    pub fn ranges_table(&self) -> Table {
        let mut t = Table::new(
            format!("{} ranges at the end", thousands(self.ranges().len() as u64)),
            ["range", "from (included)", "to (excluded)", "node", "rows", "writes since created", "created at"],
        );
        let (r, w) = (self.ranges(), self.kind());
        let cut = fill(&mut t, r.len(), "ranges", 7, |i| {
            let x: &GrownRange = &r[i];
            vec![
                i.to_string(),
                boundary_text(x.lower.as_ref(), true, w),
                boundary_text(x.upper.as_ref(), false, w),
                name(self.nodes(), x.owner),
                thousands(x.rows),
                thousands(x.writes),
                if x.created == 0 { "start".into() } else { format!("arrival {}", thousands(x.created)) },
            ]
        });
        with_note(t, vec![cut])
    }

    /// Rows on each node as the keys arrive, one line per node (more than
    /// eight nodes reuse the eight line styles; past
    /// [`MAX_LINES`](crate::present::charts::MAX_LINES) nodes the first are
    /// drawn and the chart says so, and the points are thinned as
    /// [`line_chart`](crate::present::charts::line_chart) says).
    #[cfg(feature = "charts")]
    #[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
    pub fn rows_chart(&self, title: &str) -> LineChart {
        use crate::present::charts::MAX_LINES;
        // the lines past MAX_LINES are not drawn: named (the chart counts them), not copied
        let series: Vec<Series> = self
            .nodes()
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let samples = if i < MAX_LINES { self.samples() } else { &[] };
                Series::new(n.clone(), samples.iter().map(|s| (s.arrival as f64, s.rows[i] as f64)))
            })
            .collect();
        plot::line_chart(title, "keys arrived", "rows on the node", &series).subtitle(&self.describe())
    }

    /// Rows per range at the end, in key (or hash) order, with the split
    /// threshold drawn across.
    #[cfg(feature = "charts")]
    #[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
    pub fn range_rows_chart(&self, title: &str) -> BarChart {
        let t = self.settings().threshold();
        self.per_range_chart(title, "rows", "rows in the range", |r| r.rows)
            .reference(t as f64, &format!("split threshold ({} rows)", thousands(t)))
    }

    /// Writes each range took since it was created, in key (or hash) order.
    #[cfg(feature = "charts")]
    #[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
    pub fn range_writes_chart(&self, title: &str) -> BarChart {
        self.per_range_chart(title, "writes", "writes since the range was created", |r| r.writes)
    }

    #[cfg(feature = "charts")]
    fn per_range_chart(&self, title: &str, what: &str, y: &str, value: impl Fn(&GrownRange) -> u64) -> BarChart {
        let groups: Vec<String> = (0..self.ranges().len()).map(|i| i.to_string()).collect();
        let values: Vec<f64> = self.ranges().iter().map(|r| value(r) as f64).collect();
        let order = if self.kind().is_some() { "range, in hash order" } else { "range, in key order" };
        plot::bar_chart(title, y, &groups, &[(what, values)]).x_label(order).subtitle(&self.describe())
    }
}
shows_as_table!(RangeGrowth);

impl RangeQuery {
    /// Each range the scan asks, its node and the rows it returns.
    pub fn table(&self) -> Table {
        let (lo, hi) = self.interval();
        let mut t = Table::new(
            format!("a scan of [{}, {}) over {}", key_text(lo, true), key_text(hi, false), self.layout),
            ["range", "node", "rows returned"],
        );
        let p = self.parts();
        let cut = fill(&mut t, p.len(), "ranges", 3, |i| {
            vec![p[i].range.to_string(), name(self.nodes(), p[i].node), thousands(p[i].rows)]
        });
        let asked = format!(
            "{} of {} ranges, on {} of {} nodes; {} rows in all",
            thousands(p.len() as u64),
            thousands(self.ranges_total() as u64),
            self.nodes_asked().len(),
            self.nodes().len(),
            thousands(self.rows())
        );
        let hashed = if self.is_empty_interval() {
            Some("the interval is empty: no key lies in it, and a router asks no range".to_string())
        } else {
            self.is_hashed().then(|| {
                format!(
                    "a router cannot tell which hash ranges hold an interval's keys, so it asks all {}: these are \
                     the ones that hold rows",
                    thousands(self.ranges_total() as u64)
                )
            })
        };
        with_note(t, vec![cut, Some(asked), hashed])
    }
}
shows_as_table!(RangeQuery);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::GrowthSettings;
    use crate::{letters, KeySet};

    #[test]
    fn long_lists_are_cut_and_say_so() {
        let r = KeyRanges::new(3).unwrap().with_boundaries((1..100).map(|i| format!("k{i:03}"))).unwrap();
        let text = r.ranges_table().to_text();
        assert!(text.contains("100 ranges: the first 25 and the last 5 shown"), "{text}");
        assert!(text.contains("\"k099\"") && !text.contains("\"k050\""), "{text}");
        assert!(text.contains("ranges per node: 0 34 · 1 33 · 2 33"), "{text}");
    }

    #[test]
    fn hash_ranges_show_their_share_of_the_space() {
        let r = HashRanges::named(letters("AB")).unwrap().with_even_split(4).unwrap();
        let text = r.to_string();
        assert!(text.contains("25.00%") && text.contains("2^32") && text.contains("1,073,741,824"), "{text}");
        let wide = HashRanges::new(1).unwrap().with_width(HashWidth::Bits128).unwrap();
        assert!(wide.to_string().contains("100.00%"), "{wide}");
    }

    #[test]
    fn a_run_names_its_settings() {
        let keys = KeySet::plain(3_000);
        let s = GrowthSettings::new(400).arrival(Arrival::Shuffled(3)).balance(2.0);
        let g = RangeGrowth::run(&keys, HashRanges::named(letters("ABC")).unwrap(), &s).unwrap();
        let title = g.describe();
        assert_eq!(
            title,
            "hash ranges (md5 mod 2^32), 3,000 keys shuffled (seed 3), split above 400 rows, balancer factor 2"
        );
        assert!(g.ranges_table().to_text().contains("2^32"), "{}", g.ranges_table());
        assert!(g.moves_table().to_text().contains("balancing moves"));
    }
}
