//! What a range query costs: a scan of the key interval `[lo, hi)` asks
//! the ranges that may hold its keys, and each returns its rows.
//!
//! Under [`KeyRanges`](crate::KeyRanges) the interval's keys sit together:
//! the query asks only the ranges it touches
//! ([`KeyRanges::touching`](crate::KeyRanges::touching)), each returning
//! the keys of the set that fall in both. Under
//! [`HashRanges`](crate::HashRanges) neighbouring keys are scattered by
//! their hashes: a router cannot tell which ranges hold them and must ask
//! all; the ranges that return rows are counted here exactly, by hashing
//! every key of the set that lies in the interval.
//!
//! ```
//! use reshard::analysis::RangeQuery;
//! use reshard::prelude::*;
//! let keys = KeySet::new("k", 1_000); // k0 … k999, in byte order k0, k1, k10, k100, …
//! let by_key = KeyRanges::named(letters("ABCD"))?.with_boundaries(["k3", "k5", "k7"])?;
//! let q = RangeQuery::measure(&keys, &by_key, Some("k40".as_bytes()), Some("k45".as_bytes()))?;
//! assert_eq!((q.rows(), q.parts().len(), q.nodes_asked().len()), (55, 1, 1)); // k40…k44, k400…k449
//! let by_hash = HashRanges::named(letters("ABCD"))?.with_even_split(4)?;
//! let h = RangeQuery::measure(&keys, &by_hash, Some("k40".as_bytes()), Some("k45".as_bytes()))?;
//! assert_eq!((h.rows(), h.parts().len()), (55, 4)); // the same rows, from every range
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::range_layout::RangeLayout;
use crate::keys::KeySet;
use crate::schemes::NodeId;
use crate::{Error, Result};

/// One range a query asks, and the rows it returns.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct QueryPart {
    /// The range's index.
    pub range: usize,
    /// Its node.
    pub node: NodeId,
    /// Rows of the interval it holds.
    pub rows: u64,
}

/// The ranges and nodes a scan of `[lo, hi)` asks, and the rows each returns.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RangeQuery {
    pub(crate) nodes: Vec<String>,
    pub(crate) layout: String,
    pub(crate) hashed: bool,
    pub(crate) lo: Option<Vec<u8>>,
    pub(crate) hi: Option<Vec<u8>>,
    pub(crate) ranges: usize,
    pub(crate) parts: Vec<QueryPart>,
    pub(crate) owners: Vec<NodeId>,
}

impl RangeQuery {
    /// The cost of scanning `[lo, hi)` (`None`: unbounded) over the keys of
    /// `keys` (each distinct key one row) under `layout`: for key ranges
    /// every range the interval touches, rows or not; for hash ranges every
    /// range holding a row of the interval.
    ///
    /// Fails on an empty key set and on keys over the limits.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::analysis::RangeQuery;
    /// use reshard::prelude::*;
    /// use std::collections::BTreeSet;
    /// let keys = KeySet::new("k", 1_000); // k0 … k999
    /// let (lo, hi) = ("k40", "k45");
    /// // the rows of [k40, k45) in byte order, found by hand: k40 … k44 and k400 … k449
    /// let rows: Vec<String> = keys.iter().filter(|k| k.as_str() >= lo && k.as_str() < hi).collect();
    /// assert_eq!(rows.len(), 55);
    /// let by_key = KeyRanges::named(letters("ABCD"))?.with_boundaries(["k3", "k5", "k7"])?;
    /// let q = RangeQuery::measure(&keys, &by_key, Some(lo.as_bytes()), Some(hi.as_bytes()))?;
    /// assert_eq!((q.rows(), q.parts().len(), q.parts()[0].range), (55, 1, 1)); // all in [k3, k5)
    /// // four even hash ranges of [0, 2^32): a row's range is its hash's top 2 bits
    /// let by_hash = HashRanges::named(letters("ABCD"))?.with_even_split(4)?;
    /// let h = RangeQuery::measure(&keys, &by_hash, Some(lo.as_bytes()), Some(hi.as_bytes()))?;
    /// let held: BTreeSet<usize> = rows.iter().map(|k| (HashWidth::Bits32.hash(k.as_bytes()) >> 30) as usize).collect();
    /// assert_eq!(h.parts().iter().map(|p| p.range).collect::<BTreeSet<_>>(), held);
    /// assert_eq!(h.nodes_routed().len(), 4); // a router must ask every range's node
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure(
        keys: &KeySet,
        layout: impl Into<RangeLayout>,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
    ) -> Result<RangeQuery> {
        if keys.is_empty() {
            return Err(Error::NoKeys);
        }
        let layout = layout.into();
        let kb = keys.key_bytes()?;
        let inside = |k: &[u8]| lo.is_none_or(|l| k >= l) && hi.is_none_or(|h| k < h);
        let mut rows: Vec<&[u8]> = (0..kb.len()).map(|i| kb.get(i)).filter(|k| inside(k)).collect();
        rows.sort_unstable();
        rows.dedup();
        let table = layout.table();
        let mut counts = vec![0u64; table.len()];
        let parts = match &layout {
            RangeLayout::Keys(k) => {
                for r in &rows {
                    counts[k.range_of(r)] += 1;
                }
                let touched = k.touching(lo, hi);
                touched.map(|r| QueryPart { range: r, node: table[r], rows: counts[r] }).collect()
            }
            RangeLayout::Hashes(h) => {
                for r in &rows {
                    counts[h.range_of(h.width().hash(r))] += 1;
                }
                let held = (0..table.len()).filter(|&r| counts[r] > 0);
                held.map(|r| QueryPart { range: r, node: table[r], rows: counts[r] }).collect()
            }
        };
        Ok(RangeQuery {
            nodes: layout.nodes().to_vec(),
            layout: layout.describe(),
            hashed: layout.width().is_some(),
            lo: lo.map(<[u8]>::to_vec),
            hi: hi.map(<[u8]>::to_vec),
            ranges: table.len(),
            parts,
            owners: table.to_vec(),
        })
    }

    /// The node names.
    pub fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// The interval `[lo, hi)` (`None`: unbounded).
    pub fn interval(&self) -> (Option<&[u8]>, Option<&[u8]>) {
        (self.lo.as_deref(), self.hi.as_deref())
    }

    /// The ranges asked, in range order, with their rows: for key ranges
    /// those the interval touches, for hash ranges those holding a row of it.
    pub fn parts(&self) -> &[QueryPart] {
        &self.parts
    }

    /// The distinct nodes of [`parts`](Self::parts), ascending.
    pub fn nodes_asked(&self) -> Vec<NodeId> {
        let mut n: Vec<NodeId> = self.parts.iter().map(|p| p.node).collect();
        n.sort_unstable();
        n.dedup();
        n
    }

    /// The nodes a router must ask, each once, in node order: under key
    /// ranges the nodes of the ranges the interval touches; under hash
    /// ranges every node that owns a range, since neighbouring keys are
    /// scattered over all of them and no range can be ruled out. An empty
    /// interval ([`is_empty_interval`](Self::is_empty_interval)) asks no
    /// node under either.
    ///
    /// ```
    /// use reshard::analysis::RangeQuery;
    /// use reshard::prelude::*;
    /// let keys = KeySet::new("k", 100);
    /// let by_hash = HashRanges::new(4)?.with_even_split(4)?;
    /// let all = RangeQuery::measure(&keys, &by_hash, Some(b"k5"), Some(b"k6"))?;
    /// assert_eq!(all.nodes_routed(), [0, 1, 2, 3]);
    /// let none = RangeQuery::measure(&keys, &by_hash, Some(b"k5"), Some(b"k5"))?; // [k5, k5)
    /// assert!(none.is_empty_interval() && none.nodes_routed().is_empty());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn nodes_routed(&self) -> Vec<NodeId> {
        if self.is_empty_interval() {
            return Vec::new();
        }
        let mut n: Vec<NodeId> =
            if self.hashed { self.owners.clone() } else { self.parts.iter().map(|p| p.node).collect() };
        n.sort_unstable();
        n.dedup();
        n
    }

    /// True when no key can lie in `[lo, hi)`, whatever the keys: `hi` is
    /// the empty key (no key is below it), or `lo ≥ hi`. A router knows so
    /// from the interval alone, and asks no range.
    pub fn is_empty_interval(&self) -> bool {
        match (&self.lo, &self.hi) {
            (_, Some(hi)) if hi.is_empty() => true,
            (Some(lo), Some(hi)) => lo >= hi,
            _ => false,
        }
    }

    /// Rows the query returns, all ranges together.
    pub fn rows(&self) -> u64 {
        self.parts.iter().map(|p| p.rows).sum()
    }

    /// How many ranges the layout has (what a hash-range router, which
    /// cannot tell where an interval's keys are, asks).
    pub fn ranges_total(&self) -> usize {
        self.ranges
    }

    /// True for a hash-range layout.
    pub fn is_hashed(&self) -> bool {
        self.hashed
    }
}
