//! Load: how many keys each node holds, and how even that is.
//!
//! ```
//! use reshard::{letters, HashWidth, KeySet, LoadReport, Ring};
//! let keys = KeySet::users(100_000).hashed(HashWidth::Bits32).unwrap();
//! let one = LoadReport::measure(&keys, &Ring::new(letters("ABCD"), 1).unwrap());
//! assert_eq!(one.counts(), [31_186, 10_531, 30_259, 28_024]);   // document 000
//! assert_eq!(one.min(), 10_531);
//! assert!((one.max_over_mean() - 31_186.0 / 25_000.0).abs() < 1e-12);
//! ```

use crate::keys::HashedKeys;
use crate::placement::Placement;
use crate::table::{shows_as_table, thousands, Table};

/// Keys per node, with the summary numbers that say how even it is.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LoadReport {
    nodes: Vec<String>,
    counts: Vec<u64>,
}

impl LoadReport {
    /// Place every key and count per node.
    pub fn measure<P: Placement>(keys: &HashedKeys, placement: &P) -> LoadReport {
        let owners = placement.assign(keys);
        let mut counts = vec![0u64; placement.nodes().len()];
        for o in owners {
            counts[o as usize] += 1;
        }
        LoadReport { nodes: placement.nodes().to_vec(), counts }
    }

    /// A report from counts already made.
    pub fn from_counts(nodes: Vec<String>, counts: Vec<u64>) -> LoadReport {
        LoadReport { nodes, counts }
    }

    /// Node names, in the placement's order.
    pub fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// Keys per node, in node order.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Total keys.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The fewest keys on one node.
    pub fn min(&self) -> u64 {
        self.counts.iter().copied().min().unwrap_or(0)
    }

    /// The most keys on one node.
    pub fn max(&self) -> u64 {
        self.counts.iter().copied().max().unwrap_or(0)
    }

    /// The mean keys per node (the fair share).
    pub fn mean(&self) -> f64 {
        self.total() as f64 / self.counts.len().max(1) as f64
    }

    /// The busiest node over the fair share: 1.0 is perfectly even.
    pub fn max_over_mean(&self) -> f64 {
        if self.mean() == 0.0 { 0.0 } else { self.max() as f64 / self.mean() }
    }

    /// Population standard deviation of the counts.
    pub fn std_dev(&self) -> f64 {
        let m = self.mean();
        let n = self.counts.len().max(1) as f64;
        (self.counts.iter().map(|&c| (c as f64 - m).powi(2)).sum::<f64>() / n).sqrt()
    }

    /// Standard deviation over the mean (coefficient of variation).
    pub fn relative_std_dev(&self) -> f64 {
        if self.mean() == 0.0 { 0.0 } else { self.std_dev() / self.mean() }
    }

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
            fmt_mean(self.mean()),
            self.max_over_mean(),
            self.std_dev(),
            100.0 * self.relative_std_dev()
        ));
        t
    }
}

shows_as_table!(LoadReport);

/// A mean with thousands separators and one decimal: `25000.0` → `"25,000.0"`.
fn fmt_mean(m: f64) -> String {
    let whole = m.trunc() as u64;
    format!("{}.{}", thousands(whole), ((m - m.trunc()) * 10.0).round().min(9.0) as u64)
}
