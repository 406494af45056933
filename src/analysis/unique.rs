//! A unique constraint under a local index (DDIA 2nd ed. ch. 7, "Local
//! Secondary Indexes"): each node's index sees the rows of that node only,
//! so a node refuses a new row whose value it holds, and takes one whose
//! value another node holds. Keeping a value unique across the table takes
//! a global index on it (one lookup, on the node of the value's term), and
//! so a write across nodes.
//!
//! ```
//! use reshard::analysis::{LocalIndex, Rows};
//! use reshard::prelude::*;
//! let keys = KeySet::new("car", 4); // car0 … car3
//! let rows = Rows::new(&keys)?.with_attribute("plate", ["P0", "P1", "P2", "P3"])?;
//! let by_key = KeyRanges::named(letters("AB"))?.with_boundaries(["car2"])?; // car0, car1 on A
//! let local = LocalIndex::build(&rows, &by_key)?;
//! // car1x sorts on A, beside P0's car0: refused; car3x on B, where no P1 is: taken
//! let new = [("car1x", "P0"), ("car3x", "P1")];
//! let u = local.unique_inserts("plate", new)?;
//! assert_eq!((u.taken(), u.refused()), (1, 1));
//! assert_eq!(u.per_node(), [("A".to_string(), 0, 1), ("B".to_string(), 1, 0)]);
//! assert_eq!(u.duplicates_taken(), 1); // P1 is now on A and on B
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::range_layout::RangeLayout;
use crate::analysis::secondary::LocalIndex;
use crate::{Error, Result};
use std::collections::BTreeSet;

/// New rows offered to a table whose nodes each keep one attribute unique
/// among their own rows ([`LocalIndex::unique_inserts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct UniqueInserts {
    attribute: String,
    per_node: Vec<(String, u64, u64)>,
    duplicates: u64,
}

impl LocalIndex {
    /// Offer the rows `new` (key, value of `attribute`), in order, to a table
    /// whose every node keeps `attribute` unique among its own rows: a row is
    /// refused when its node holds its value already (a row of the index, or
    /// a new row taken before it), and taken otherwise. Fails on an attribute
    /// the rows do not have.
    pub fn unique_inserts<I, K, V>(&self, attribute: &str, new: I) -> Result<UniqueInserts>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<[u8]>,
        V: AsRef<str>,
    {
        let names = self.rows().attributes();
        if !names.contains(&attribute) {
            return Err(Error::UnknownName {
                what: "attribute",
                given: attribute.to_string(),
                choices: names.join(", "),
            });
        }
        let layout = self.layout();
        let table = layout.table();
        let node_of = |key: &[u8]| -> usize { table[range_of(layout, key)] as usize };
        // (node, value) of every row now, and the values anywhere
        let mut held: BTreeSet<(usize, String)> = BTreeSet::new();
        let mut anywhere: BTreeSet<String> = BTreeSet::new();
        let keys = self.rows().keys();
        let mut w = keys.writer();
        for i in 0..keys.len() {
            if let Some(v) = self.rows().value(i, attribute) {
                held.insert((node_of(w.key(i)), v.to_string()));
                anywhere.insert(v.to_string());
            }
        }
        let mut per_node: Vec<(String, u64, u64)> = layout.nodes().iter().map(|n| (n.clone(), 0, 0)).collect();
        let mut duplicates = 0;
        for (key, value) in new {
            let (node, value) = (node_of(key.as_ref()), value.as_ref().to_string());
            if held.insert((node, value.clone())) {
                per_node[node].1 += 1;
                duplicates += u64::from(!anywhere.insert(value));
            } else {
                per_node[node].2 += 1;
            }
        }
        Ok(UniqueInserts { attribute: attribute.to_string(), per_node, duplicates })
    }
}

fn range_of(layout: &RangeLayout, key: &[u8]) -> usize {
    match layout {
        RangeLayout::Keys(k) => k.range_of(key),
        RangeLayout::Hashes(h) => h.range_of(h.width().hash(key)),
    }
}

impl UniqueInserts {
    /// The attribute kept unique per node.
    pub fn attribute(&self) -> &str {
        &self.attribute
    }

    /// Each node, in node order: (node, rows taken, rows refused).
    pub fn per_node(&self) -> &[(String, u64, u64)] {
        &self.per_node
    }

    /// Rows taken, all nodes together.
    pub fn taken(&self) -> u64 {
        self.per_node.iter().map(|n| n.1).sum()
    }

    /// Rows refused, all nodes together.
    pub fn refused(&self) -> u64 {
        self.per_node.iter().map(|n| n.2).sum()
    }

    /// Rows taken whose value some row on another node held already: the
    /// duplicates the table holds now, which a global unique index would
    /// have refused.
    pub fn duplicates_taken(&self) -> u64 {
        self.duplicates
    }
}
