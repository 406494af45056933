//! Secondary indexes over a sharded table (DDIA 2nd ed. ch. 7, "Sharding
//! and Secondary Indexes"): a local index on each shard, or a global index
//! sharded by term.
//!
//! The table's rows are placed by a range layout ([`KeyRanges`], or
//! [`HashRanges`](crate::HashRanges)): each row lives on the node of the
//! range holding its key.
//!
//! * [`LocalIndex`] (document-partitioned, DDIA's "local secondary
//!   indexes"; MongoDB, Cassandra, Elasticsearch): every shard indexes the
//!   rows it holds, so a shard holds one index entry per row and attribute.
//!   An insert writes one shard; a query `colour = red` must ask every
//!   shard that owns a range (scatter/gather), since any of them may hold
//!   red rows.
//! * [`GlobalIndex`] (term-partitioned, DDIA's "global secondary indexes";
//!   DynamoDB's GSIs, CockroachDB, Spanner): the index is a table of its
//!   own, one posting per row and attribute keyed `attribute:value/rowkey`
//!   ([`postings_key`](crate::analysis::postings_key)) and sharded by a
//!   second [`KeyRanges`] over those keys. One term's postings are
//!   contiguous, so a query reads the range (usually one shard, two when a
//!   boundary cuts the term) and then fetches the rows from their shards;
//!   an insert writes its row's shard and the postings shard of each term.
//!
//! Every figure here is counted exactly over the rows.
//!
//! ```
//! use reshard::analysis::{GlobalIndex, LocalIndex, Rows};
//! use reshard::prelude::*;
//! let colours = ["red", "blue", "green", "white"];
//! let rows = Rows::new(&KeySet::new("item:", 1_000))?
//!     .with_attribute("colour", (0..1_000).map(|i| colours[i % 4]))?;
//! let by_key = KeyRanges::named(letters("ABCD"))?.with_boundaries(["item:3", "item:5", "item:7"])?;
//! let local = LocalIndex::build(&rows, &by_key)?;
//! let q = local.query("colour", "red")?;
//! assert_eq!((q.requests(), q.matches()), (4, 250)); // every shard asked
//! assert_eq!(local.insert("item:1000", ["red"])?.nodes(), ["A"]);
//! // the index sharded by term: colour:blue … colour:green on E, colour:red … on F
//! let by_term = KeyRanges::named(letters("EF"))?.with_boundaries(["colour:red"])?;
//! let global = GlobalIndex::build(&rows, &by_key, &by_term)?;
//! let q = global.query("colour", "red")?;
//! assert_eq!((q.index_step().len(), q.fetch_step().len(), q.matches()), (1, 4, 250));
//! assert_eq!(global.insert("item:1000", ["red"])?.nodes(), ["A", "F"]);
//! assert_eq!(global.postings_per_node(), [500, 500]);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::index_access::{IndexKind, IndexQuery, IndexWrite, ShardRead};
use crate::analysis::range_layout::RangeLayout;
use crate::analysis::rows::{check_value, term, term_interval, write_postings_key, Rows};
use crate::keys::{escape, KeyBytes};
use crate::schemes::{KeyRanges, NodeId, Placement};
use crate::{Error, Result};
use rayon::prelude::*;

/// The range of each row under `layout`.
fn place(kb: &KeyBytes<'_>, layout: &RangeLayout) -> Vec<u32> {
    match layout {
        RangeLayout::Keys(k) => (0..kb.len()).into_par_iter().map(|i| k.range_of(kb.get(i)) as u32).collect(),
        RangeLayout::Hashes(h) => {
            (0..kb.len()).into_par_iter().map(|i| h.range_of(h.width().hash(kb.get(i))) as u32).collect()
        }
    }
}

/// The range of one key under `layout`.
fn range_of(layout: &RangeLayout, key: &[u8]) -> usize {
    match layout {
        RangeLayout::Keys(k) => k.range_of(key),
        RangeLayout::Hashes(h) => h.range_of(h.width().hash(key)),
    }
}

/// A node's name, for results.
fn name(nodes: &[String], id: NodeId) -> String {
    nodes.get(id as usize).cloned().unwrap_or_default()
}

/// Per node, in node order, the ranges (of `table`) in `ranges` it owns
/// and the counts summed over them; nodes with none are left out.
fn by_node(nodes: &[String], table: &[NodeId], ranges: &[(usize, u64)], rows: bool) -> Vec<ShardRead> {
    let mut out: Vec<ShardRead> = Vec::new();
    for (id, n) in nodes.iter().enumerate() {
        let mine: Vec<&(usize, u64)> = ranges.iter().filter(|(r, _)| table[*r] as usize == id).collect();
        if mine.is_empty() {
            continue;
        }
        let count = mine.iter().map(|(_, c)| c).sum();
        let ranges = mine.iter().map(|(r, _)| *r).collect();
        let (entries, rows) = if rows { (0, count) } else { (count, 0) };
        out.push(ShardRead { node: n.clone(), ranges, entries, rows });
    }
    out
}

/// An inserted row, checked: its key is new and it has one value per
/// attribute, none holding `/`.
fn checked_insert<I, S>(rows: &Rows, key: &[u8], values: I) -> Result<Vec<String>>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    if let Some(first) = rows.find(key)? {
        return Err(Error::DuplicateKey { key: escape(key), first, second: rows.len() });
    }
    let want = rows.attrs().len();
    let values: Vec<String> = values.into_iter().take(want.saturating_add(1)).map(|v| v.as_ref().to_string()).collect();
    if values.len() != want {
        return Err(Error::LengthMismatch { what: "values for attributes", expected: want, given: values.len() });
    }
    values.iter().try_for_each(|v| check_value(v))?;
    Ok(values)
}

/// The row `attribute = value` matches: the attribute's index and the
/// value's (`None`: no row has it).
fn lookup(rows: &Rows, attribute: &str, value: &str) -> Result<(usize, Option<u32>)> {
    let a = rows.attribute_index(attribute)?;
    Ok((a, rows.attrs()[a].values.iter().position(|v| v == value).map(|v| v as u32)))
}

/// A local (document-partitioned) index: each shard indexes its own rows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LocalIndex {
    rows: Rows,
    layout: RangeLayout,
    row_range: Vec<u32>,
}

impl LocalIndex {
    /// The rows placed by `layout`, each shard indexing its own. Fails on
    /// keys over the limits.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::analysis::{LocalIndex, Rows};
    /// use reshard::prelude::*;
    /// let keys = KeySet::new("item:", 100); // item:0 … item:99
    /// let sizes = ["S", "M", "L"];
    /// let rows = Rows::new(&keys)?.with_attribute("size", (0..100).map(|i| sizes[i % 3]))?;
    /// let by_key = KeyRanges::named(letters("AB"))?.with_boundaries(["item:5"])?;
    /// let local = LocalIndex::build(&rows, &by_key)?;
    /// // A holds the keys below "item:5" in byte order, counted by hand
    /// let on_a = keys.iter().filter(|k| k.as_str() < "item:5").count() as u64;
    /// assert_eq!(local.rows_per_node(), [on_a, 100 - on_a]);
    /// // size M is i % 3 = 1: 33 rows of 100, which may sit on either shard, so both are asked
    /// let q = local.query("size", "M")?;
    /// assert_eq!((q.requests(), q.matches()), (2, 33));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn build(rows: &Rows, layout: impl Into<RangeLayout>) -> Result<LocalIndex> {
        let layout = layout.into();
        let row_range = place(&rows.key_bytes()?, &layout);
        Ok(LocalIndex { rows: rows.clone(), layout, row_range })
    }

    /// The rows.
    pub fn rows(&self) -> &Rows {
        &self.rows
    }

    /// The layout placing them.
    pub fn layout(&self) -> &RangeLayout {
        &self.layout
    }

    /// The node names.
    pub fn nodes(&self) -> &[String] {
        self.layout.nodes()
    }

    /// Rows on each node, in node order.
    pub fn rows_per_node(&self) -> Vec<u64> {
        rows_per_node(&self.layout, &self.row_range)
    }

    /// Index entries on each node: its rows × the attributes.
    pub fn entries_per_node(&self) -> Vec<u64> {
        let k = self.rows.attrs().len() as u64;
        self.rows_per_node().into_iter().map(|r| r * k).collect()
    }

    /// The query `attribute = value`: every node that owns a range, each
    /// returning its matching rows. Fails on an attribute that is not
    /// indexed ([`Error::UnknownName`]); a value no row has matches none.
    pub fn query(&self, attribute: &str, value: &str) -> Result<IndexQuery> {
        let (a, v) = lookup(&self.rows, attribute, value)?;
        let table = self.layout.table();
        let mut counts = vec![0u64; table.len()];
        if let Some(v) = v {
            for (&r, &x) in self.row_range.iter().zip(&self.rows.attrs()[a].of_row) {
                counts[r as usize] += u64::from(x == v);
            }
        }
        let all: Vec<(usize, u64)> = counts.into_iter().enumerate().collect();
        Ok(IndexQuery {
            kind: IndexKind::Local,
            term: term(attribute, value),
            layout: format!("a local index over {}", self.layout.describe()),
            shards: self.nodes().len(),
            index: by_node(self.nodes(), table, &all, true)
                .into_iter()
                .map(|mut s| {
                    s.entries = s.rows;
                    s
                })
                .collect(),
            fetch: Vec::new(),
        })
    }

    /// The insert of a row with key `key` and one value per attribute, in
    /// attribute order: its own shard writes the row and its entries.
    ///
    /// Fails on a key the rows already have ([`Error::DuplicateKey`]), a
    /// count of values other than the attributes'
    /// ([`Error::LengthMismatch`]) and a value holding `/`.
    pub fn insert<I, S>(&self, key: impl AsRef<[u8]>, values: I) -> Result<IndexWrite>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let key = key.as_ref();
        let values = checked_insert(&self.rows, key, values)?;
        let node = name(self.nodes(), self.layout.table()[range_of(&self.layout, key)]);
        let mut w = IndexWrite { kind: IndexKind::Local, key: escape(key), writes: Vec::new() };
        w.add(&node, Some(escape(key)), None);
        for (a, v) in self.rows.attrs().iter().zip(&values) {
            w.add(&node, None, Some(format!("{}/{}", term(&a.name, v), escape(key))));
        }
        Ok(w)
    }
}

fn rows_per_node(layout: &RangeLayout, row_range: &[u32]) -> Vec<u64> {
    let (table, mut out) = (layout.table(), vec![0u64; layout.nodes().len()]);
    for &r in row_range {
        out[table[r as usize] as usize] += 1;
    }
    out
}

/// A global (term-partitioned) index: postings keyed
/// `attribute:value/rowkey` in a key-range table of their own.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GlobalIndex {
    rows: Rows,
    layout: RangeLayout,
    terms: KeyRanges,
    row_range: Vec<u32>,
    postings: Vec<u64>,
}

/// One term of a [`GlobalIndex`]: its postings and the ranges they lie in.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct TermPostings {
    /// The term, `attribute:value`.
    pub term: String,
    /// Its postings: the rows with that value.
    pub postings: u64,
    /// The term layout's ranges its interval `[t/, t0)` meets (a query
    /// reads them all).
    pub ranges: Vec<usize>,
    /// The nodes of those ranges, each once, in node order.
    pub nodes: Vec<String>,
}

impl GlobalIndex {
    /// The rows placed by `layout`, and their postings by `terms`, a key
    /// range table over postings keys `attribute:value/rowkey`. Fails on
    /// keys over the limits.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::analysis::{GlobalIndex, Rows};
    /// use reshard::prelude::*;
    /// let sizes = ["S", "M", "L"];
    /// let rows = Rows::new(&KeySet::new("item:", 100))?.with_attribute("size", (0..100).map(|i| sizes[i % 3]))?;
    /// let by_key = KeyRanges::named(letters("AB"))?.with_boundaries(["item:5"])?;
    /// let by_term = KeyRanges::named(letters("EF"))?.with_boundaries(["size:M"])?;
    /// let global = GlobalIndex::build(&rows, &by_key, &by_term)?;
    /// // postings "size:L/…" sort below "size:M": L's 33 rows (i % 3 = 2) on E,
    /// // M's 33 and S's 34 on F
    /// assert_eq!(global.postings_per_node(), [33, 67]);
    /// let q = global.query("size", "M")?;
    /// assert_eq!((q.index_step().len(), q.matches()), (1, 33)); // one postings shard read
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn build(rows: &Rows, layout: impl Into<RangeLayout>, terms: &KeyRanges) -> Result<GlobalIndex> {
        let layout = layout.into();
        let kb = rows.key_bytes()?;
        let row_range = place(&kb, &layout);
        let mut postings = vec![0u64; terms.table().len()];
        let mut buf = Vec::new();
        for a in rows.attrs() {
            // a term whose interval lies in one range needs no search per row
            let spans: Vec<std::ops::Range<usize>> = a
                .values
                .iter()
                .map(|v| {
                    let (lo, hi) = term_interval(&term(&a.name, v));
                    terms.touching(Some(&lo), Some(&hi))
                })
                .collect();
            for (i, &v) in a.of_row.iter().enumerate() {
                let span = &spans[v as usize];
                let r = if span.len() == 1 {
                    span.start
                } else {
                    write_postings_key(&mut buf, &a.name, &a.values[v as usize], kb.get(i));
                    terms.range_of(&buf)
                };
                postings[r] += 1;
            }
        }
        drop(kb);
        Ok(GlobalIndex { rows: rows.clone(), layout, terms: terms.clone(), row_range, postings })
    }

    /// The rows.
    pub fn rows(&self) -> &Rows {
        &self.rows
    }

    /// The layout placing the rows.
    pub fn layout(&self) -> &RangeLayout {
        &self.layout
    }

    /// The layout placing the postings.
    pub fn term_layout(&self) -> &KeyRanges {
        &self.terms
    }

    /// Rows on each node of the row layout, in node order.
    pub fn rows_per_node(&self) -> Vec<u64> {
        rows_per_node(&self.layout, &self.row_range)
    }

    /// Postings in each range of the term layout.
    pub fn postings_per_range(&self) -> &[u64] {
        &self.postings
    }

    /// Postings on each node of the term layout, in node order.
    pub fn postings_per_node(&self) -> Vec<u64> {
        let mut out = vec![0u64; self.terms.nodes().len()];
        for (r, &p) in self.postings.iter().enumerate() {
            out[self.terms.table()[r] as usize] += p;
        }
        out
    }

    /// Every term some row has, in byte order, with its postings and the
    /// ranges and nodes a query for it reads.
    pub fn terms(&self) -> Vec<TermPostings> {
        self.rows
            .terms()
            .into_iter()
            .map(|(t, postings)| {
                let (lo, hi) = term_interval(&t);
                let ranges: Vec<usize> = self.terms.touching(Some(&lo), Some(&hi)).collect();
                let mut ids: Vec<NodeId> = ranges.iter().map(|&r| self.terms.table()[r]).collect();
                ids.sort_unstable();
                ids.dedup();
                let nodes = ids.into_iter().map(|id| name(self.terms.nodes(), id)).collect();
                TermPostings { term: t, postings, ranges, nodes }
            })
            .collect()
    }

    /// The query `attribute = value`: first the term layout's ranges that
    /// meet `[t/, t0)`, by node, each returning its postings of `t`; then
    /// the nodes holding the rows they name, each returning its rows.
    /// Fails on an attribute that is not indexed ([`Error::UnknownName`]).
    pub fn query(&self, attribute: &str, value: &str) -> Result<IndexQuery> {
        let (a, v) = lookup(&self.rows, attribute, value)?;
        let t = term(attribute, value);
        let (lo, hi) = term_interval(&t);
        let touched = self.terms.touching(Some(&lo), Some(&hi));
        let mut postings = vec![0u64; touched.len()];
        let mut rows = vec![0u64; self.layout.table().len()];
        if let Some(v) = v {
            let (kb, attr, mut buf) = (self.rows.key_bytes()?, &self.rows.attrs()[a], Vec::new());
            for (i, _) in attr.of_row.iter().enumerate().filter(|&(_, &x)| x == v) {
                let r = if touched.len() == 1 {
                    touched.start
                } else {
                    write_postings_key(&mut buf, attribute, value, kb.get(i));
                    self.terms.range_of(&buf)
                };
                postings[r - touched.start] += 1;
                rows[self.row_range[i] as usize] += 1;
            }
        }
        let step1: Vec<(usize, u64)> = touched.clone().zip(postings).collect();
        let step2: Vec<(usize, u64)> = rows.into_iter().enumerate().filter(|&(_, c)| c > 0).collect();
        Ok(IndexQuery {
            kind: IndexKind::Global,
            term: t,
            layout: format!("a global index (postings by key range) over {}", self.layout.describe()),
            shards: self.terms.nodes().len(),
            index: by_node(self.terms.nodes(), self.terms.table(), &step1, false),
            fetch: by_node(self.layout.nodes(), self.layout.table(), &step2, true),
        })
    }

    /// The insert of a row with key `key` and one value per attribute, in
    /// attribute order: its row's shard writes the row, and the shard of
    /// each posting `attribute:value/key` writes the posting.
    ///
    /// Fails on a key the rows already have ([`Error::DuplicateKey`]), a
    /// count of values other than the attributes'
    /// ([`Error::LengthMismatch`]) and a value holding `/`.
    pub fn insert<I, S>(&self, key: impl AsRef<[u8]>, values: I) -> Result<IndexWrite>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let key = key.as_ref();
        let values = checked_insert(&self.rows, key, values)?;
        let node = name(self.layout.nodes(), self.layout.table()[range_of(&self.layout, key)]);
        let mut w = IndexWrite { kind: IndexKind::Global, key: escape(key), writes: Vec::new() };
        w.add(&node, Some(escape(key)), None);
        let mut buf = Vec::new();
        for (a, v) in self.rows.attrs().iter().zip(&values) {
            write_postings_key(&mut buf, &a.name, v, key);
            let p = name(self.terms.nodes(), self.terms.table()[self.terms.range_of(&buf)]);
            w.add(&p, None, Some(format!("{}/{}", term(&a.name, v), escape(key))));
        }
        Ok(w)
    }
}
