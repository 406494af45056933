//! What one index lookup or one insert costs under a secondary index: the
//! shards asked, and what each returns or writes.
//!
//! [`IndexQuery`] is a query `attribute = value`: under a local index one
//! step (every shard looks in its own index and returns its own rows),
//! under a global index two (the shards of the term's postings, then the
//! shards that hold the rows they name). [`IndexWrite`] is the insert of
//! one row: under a local index its own shard alone, under a global index
//! that shard and the postings shard of each of its terms. Both come from
//! [`LocalIndex`](crate::analysis::LocalIndex) and
//! [`GlobalIndex`](crate::analysis::GlobalIndex), whose docs have the
//! examples.
//!
//! ```
//! use reshard::analysis::{IndexKind, LocalIndex, Rows};
//! use reshard::prelude::*;
//! let rows = Rows::new(&KeySet::new("item:", 4))?.with_attribute("colour", ["red", "blue", "red", "red"])?;
//! let local = LocalIndex::build(&rows, KeyRanges::named(letters("AB"))?.with_boundaries(["item:2"])?)?;
//! let q = local.query("colour", "red")?;
//! assert_eq!((q.kind(), q.requests(), q.matches()), (IndexKind::Local, 2, 3));
//! assert_eq!(q.index_step()[1].rows, 2); // B holds item:2 and item:3
//! # Ok::<(), reshard::Error>(())
//! ```

use std::fmt;

/// Which index: document-partitioned or term-partitioned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum IndexKind {
    /// Each shard indexes its own rows (DDIA: "local secondary indexes",
    /// document-partitioned).
    Local,
    /// The index is its own table, sharded by term (DDIA: "global secondary
    /// indexes", term-partitioned).
    Global,
}

impl fmt::Display for IndexKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IndexKind::Local => "local index (by document)",
            IndexKind::Global => "global index (by term)",
        })
    }
}

/// One shard a query asks, and what it returns.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct ShardRead {
    /// The shard (node) name.
    pub node: String,
    /// The ranges of it the request reads: under a local index all the
    /// node's ranges; for a global index's postings, the term's ranges on
    /// it; for a fetch, the ranges holding the rows fetched.
    pub ranges: Vec<usize>,
    /// Index entries it reads and returns (local entries, or postings).
    pub entries: u64,
    /// Rows it returns.
    pub rows: u64,
}

/// A query `attribute = value` through an index: the shards asked, step
/// by step, and what each returns.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct IndexQuery {
    pub(crate) kind: IndexKind,
    pub(crate) term: String,
    pub(crate) layout: String,
    pub(crate) shards: usize,
    pub(crate) index: Vec<ShardRead>,
    pub(crate) fetch: Vec<ShardRead>,
}

impl IndexQuery {
    /// Local or global.
    pub fn kind(&self) -> IndexKind {
        self.kind
    }

    /// The term asked for, `attribute:value`.
    pub fn term(&self) -> &str {
        &self.term
    }

    /// The first step. Local: every shard that owns a range (a router
    /// cannot tell which shards hold matching rows), in node order, each
    /// returning its matching rows. Global: the shards of the term layout
    /// whose ranges meet the term's postings interval `[t/, t0)` (usually
    /// one; two when a boundary cuts the term), each returning postings.
    pub fn index_step(&self) -> &[ShardRead] {
        &self.index
    }

    /// The second step of a global index: the shards holding the rows the
    /// postings name, in node order, each returning its rows. Empty for a
    /// local index (its first step returned the rows) and for a term no row
    /// has.
    pub fn fetch_step(&self) -> &[ShardRead] {
        &self.fetch
    }

    /// Requests sent: one per shard per step.
    pub fn requests(&self) -> usize {
        self.index.len() + self.fetch.len()
    }

    /// Rows that match.
    pub fn matches(&self) -> u64 {
        match self.kind {
            IndexKind::Local => self.index.iter().map(|r| r.rows).sum(),
            IndexKind::Global => self.fetch.iter().map(|r| r.rows).sum(),
        }
    }

    /// Shards of the layout the first step could have asked (local: the
    /// row layout's nodes; global: the term layout's).
    pub fn shards_total(&self) -> usize {
        self.shards
    }

    /// The layout(s), in words, for titles.
    pub fn describe(&self) -> &str {
        &self.layout
    }
}

/// One shard an insert writes, and what it writes there.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct ShardWrite {
    /// The shard (node) name.
    pub node: String,
    /// The row's key, if the row itself is written here.
    pub row: Option<String>,
    /// The index entries written here, each as its postings key
    /// `attribute:value/rowkey` (a local entry holds the same term and key,
    /// beside the row).
    pub entries: Vec<String>,
}

/// The insert of one row through an index: every shard it writes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct IndexWrite {
    pub(crate) kind: IndexKind,
    pub(crate) key: String,
    pub(crate) writes: Vec<ShardWrite>,
}

impl IndexWrite {
    /// Local or global.
    pub fn kind(&self) -> IndexKind {
        self.kind
    }

    /// The inserted row's key (bytes escaped).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Each shard written: the row's own shard first, then the postings
    /// shards in the order of the attributes that first name them.
    pub fn writes(&self) -> &[ShardWrite] {
        &self.writes
    }

    /// The nodes written, in the order of [`writes`](Self::writes).
    pub fn nodes(&self) -> Vec<&str> {
        self.writes.iter().map(|w| w.node.as_str()).collect()
    }

    /// Rows written on each of `nodes` (the row itself, and each index
    /// entry), in their order: 0 for a node the insert does not touch.
    ///
    /// ```
    /// use reshard::analysis::{LocalIndex, Rows};
    /// use reshard::prelude::*;
    /// let rows = Rows::new(&KeySet::new("k", 2))?.with_attribute("colour", ["red", "blue"])?;
    /// let local = LocalIndex::build(&rows, KeyRanges::named(letters("AB"))?.with_boundaries(["k1"])?)?;
    /// let w = local.insert("k9", ["red"])?; // "k9" sorts after "k1": B
    /// assert_eq!(w.rows_per_node(&letters("AB")), [0, 2]); // the row and its entry
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn rows_per_node<S: AsRef<str>>(&self, nodes: &[S]) -> Vec<u64> {
        nodes
            .iter()
            .map(|n| {
                self.writes
                    .iter()
                    .filter(|w| w.node == n.as_ref())
                    .map(|w| w.entries.len() as u64 + u64::from(w.row.is_some()))
                    .sum()
            })
            .collect()
    }

    /// Index entries written, all shards together (one per attribute).
    pub fn entries(&self) -> usize {
        self.writes.iter().map(|w| w.entries.len()).sum()
    }

    /// Add `entry` to the write on `node` (appending the shard if new).
    pub(crate) fn add(&mut self, node: &str, row: Option<String>, entry: Option<String>) {
        let i = match self.writes.iter().position(|w| w.node == node) {
            Some(i) => i,
            None => {
                self.writes.push(ShardWrite { node: node.to_string(), row: None, entries: Vec::new() });
                self.writes.len() - 1
            }
        };
        let w = &mut self.writes[i];
        if row.is_some() {
            w.row = row;
        }
        w.entries.extend(entry);
    }
}
