//! Maglev at several table sizes M and backend counts N, one backend
//! leaving: how many entries and keys change hands between two backends
//! that both stay, and how even the table is.
//!
//! [`MaglevSizeSweep::measure`] builds, for each M and N, the table of
//! backends `"0"` … `"{N-1}"` ([`Maglev::with_table_size`]) and the table
//! without backend `remove` ([`Placement::remove_node`]), and compares them
//! entry by entry. A key's entry is `hash mod M` in both tables, so the keys
//! that move are exactly the keys of the entries that changed owner: the
//! sweep counts the keys per entry once for each M and adds up.
//!
//! ```
//! use reshard::analysis::MaglevSizeSweep;
//! use reshard::prelude::*;
//! let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128)?;
//! let sweep = MaglevSizeSweep::measure(&keys, &[251, 65_537], &[10], 4)?;
//! let big = sweep.row(65_537, 10).unwrap();
//! assert_eq!(big.most_entries, 6554); // ⌈65,537 / 10⌉
//! // The keys of the changed entries are the keys that move:
//! let ten = Maglev::new(10)?.with_table_size(65_537)?;
//! let m = Movement::measure(&keys, &ten, &ten.remove_node("4")?)?;
//! assert_eq!((big.moved, big.between_kept), (m.moved(), m.between_kept()));
//! assert!(sweep.row(251, 10).unwrap().entry_excess() > big.entry_excess());
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::limits;
use crate::schemes::{Maglev, NodeId, Placement};
use crate::{Error, Result};

/// One row of [`MaglevSizeSweep`]: a table of `size` entries over `nodes`
/// backends, backend `removed` leaving.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct MaglevSizeRow {
    /// The table size M.
    pub size: usize,
    /// Backends before one leaves.
    pub nodes: usize,
    /// The backend that leaves.
    pub removed: String,
    /// Entries whose owner changed.
    pub entries_changed: usize,
    /// Entries whose owner changed between two backends that both stay.
    pub entries_between: usize,
    /// Keys whose backend changed.
    pub moved: u64,
    /// Keys moved between two backends that both stay (churn).
    pub between_kept: u64,
    /// Keys placed.
    pub keys: u64,
    /// Entries of the backend that owns the most, before one leaves.
    pub most_entries: usize,
}

impl MaglevSizeRow {
    /// `between_kept` over the key count: the churn as a share of the keys.
    pub fn churn_share(&self) -> f64 {
        self.between_kept as f64 / self.keys.max(1) as f64
    }

    /// How far the backend with the most entries sits above the mean M/N,
    /// as a share of the mean (0.01 is 1% above), before one leaves.
    pub fn entry_excess(&self) -> f64 {
        let mean = self.size as f64 / self.nodes.max(1) as f64;
        self.most_entries as f64 / mean - 1.0
    }
}

/// Maglev tables of several sizes and backend counts, one backend leaving:
/// see the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MaglevSizeSweep {
    pub(crate) rows: Vec<MaglevSizeRow>,
}

impl MaglevSizeSweep {
    /// For each table size in `sizes` (ascending, each once) and each
    /// backend count in `nodes` (ascending, each once): backends `"0"` …
    /// `"{N-1}"`, then the same without backend `remove`.
    ///
    /// Fails on an empty `sizes` or `nodes`, a size that is not prime or is
    /// smaller than a backend count, a backend count not above `remove` (no
    /// such backend to remove), or over the crate's limits.
    pub fn measure(keys: &HashedKeys, sizes: &[usize], nodes: &[usize], remove: usize) -> Result<Self> {
        let (sizes, nodes) = (sorted(sizes, "table sizes (sizes)")?, sorted(nodes, "backend counts (nodes)")?);
        if nodes[0] <= remove {
            return Err(Error::OutOfRange {
                what: "backend counts (nodes)",
                given: format!("{} with backend {remove} leaving", nodes[0]),
                allowed: format!("counts above {remove}, so that backend {remove} exists"),
            });
        }
        limits::check_nodes(nodes[nodes.len() - 1])?;
        limits::check_hint(
            "key placements (keys × table sizes)",
            limits::product(keys.len(), sizes.len()),
            limits::current().max_placements,
            "use fewer keys or table sizes",
        )?;
        // Every row fills two tables of M entries.
        let filled = sizes.iter().map(|&m| m as u128).sum::<u128>().saturating_mul(2 * nodes.len() as u128);
        limits::check_hint(
            "table entries filled (2 × sizes × backend counts)",
            filled,
            limits::current().max_placements,
            "use fewer or smaller table sizes, or fewer backend counts",
        )?;
        let gone = remove.to_string();
        let mut rows = Vec::with_capacity(sizes.len() * nodes.len());
        for &m in &sizes {
            let mut per_entry: Vec<u64> = Vec::new(); // keys per entry, counted once M is known good
            for &n in &nodes {
                let before = Maglev::new(n)?.with_table_size(m)?;
                if per_entry.is_empty() {
                    per_entry = vec![0; m];
                    keys.hashes().iter().for_each(|&h| per_entry[(h % m as u128) as usize] += 1);
                }
                let after = before.remove_node(&gone)?;
                // Backend i of `before` is backend kept[i] of `after` (None: the one that left).
                let kept: Vec<Option<NodeId>> = before
                    .nodes()
                    .iter()
                    .map(|b| after.nodes().iter().position(|a| a == b).map(|i| i as NodeId))
                    .collect();
                let mut row = MaglevSizeRow {
                    size: m,
                    nodes: n,
                    removed: gone.clone(),
                    entries_changed: 0,
                    entries_between: 0,
                    moved: 0,
                    between_kept: 0,
                    keys: keys.len() as u64,
                    most_entries: before.entry_counts().into_iter().max().unwrap_or(0),
                };
                for (e, (&was, &now)) in before.table().iter().zip(after.table()).enumerate() {
                    match kept[was as usize] {
                        Some(same) if same == now => {}
                        stayed => {
                            row.entries_changed += 1;
                            row.moved += per_entry[e];
                            if stayed.is_some() {
                                row.entries_between += 1;
                                row.between_kept += per_entry[e];
                            }
                        }
                    }
                }
                rows.push(row);
            }
        }
        Ok(MaglevSizeSweep { rows })
    }

    /// Every row: sizes ascending, and for each the backend counts ascending.
    pub fn rows(&self) -> &[MaglevSizeRow] {
        &self.rows
    }

    /// The row for a table of `size` entries over `nodes` backends.
    pub fn row(&self, size: usize, nodes: usize) -> Option<&MaglevSizeRow> {
        self.rows.iter().find(|r| r.size == size && r.nodes == nodes)
    }

    /// The table sizes, ascending.
    pub fn sizes(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.rows.iter().map(|r| r.size).collect();
        v.dedup();
        v
    }

    /// The backend counts, ascending.
    pub fn node_counts(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.rows.iter().map(|r| r.nodes).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// The values ascending, each once; an empty list is an error naming `what`.
fn sorted(values: &[usize], what: &'static str) -> Result<Vec<usize>> {
    let mut v = values.to_vec();
    v.sort_unstable();
    v.dedup();
    if v.is_empty() {
        return Err(Error::OutOfRange { what, given: "none".into(), allowed: "at least one value".into() });
    }
    Ok(v)
}
