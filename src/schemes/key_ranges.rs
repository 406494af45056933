//! Key ranges: the keys, in order, cut into ranges, each range on one node
//! (DDIA 2nd ed. ch. 7, "Sharding by Key Range": Bigtable, HBase, TiKV,
//! CockroachDB, MongoDB's range sharding).
//!
//! Keys compare as byte strings, unsigned, as `memcmp` and PostgreSQL's
//! `COLLATE "C"` do: `"ab" < "abc" < "b"`, and a byte `0x80` is above
//! `0x7f`. `k − 1` boundaries `b1 < … < b(k−1)` make `k` ranges: range 0 is
//! `[−∞, b1)`, range `i` is `[bi, b(i+1))`, the last is `[b(k−1), +∞)`.
//! Neighbouring keys sit together, so a scan of a key interval asks only
//! the ranges it touches ([`KeyRanges::touching`]) — and keys written in
//! order (timestamps) all land in the last range.
//!
//! A fresh table is one range on the first node; it grows by
//! [`split_at`](KeyRanges::split_at) (or starts pre-split at a sample's
//! quantiles, [`presplit`](KeyRanges::presplit)), and ranges move between
//! nodes whole ([`move_range`](KeyRanges::move_range),
//! [`Placement::add_node`], [`Placement::remove_node`]).
//!
//! ```
//! use reshard::prelude::*;
//! let r = KeyRanges::named(letters("ABC"))?.with_boundaries(["g", "p"])?;
//! assert_eq!(r.owner(Key::new("apple", HashWidth::Bits32)), "A");
//! assert_eq!(r.owner(Key::new("grape", HashWidth::Bits32)), "B"); // "g" ≤ "grape" < "p"
//! assert_eq!(r.touching(Some("c".as_bytes()), Some("h".as_bytes())), 0..2);
//! let split = r.split_at("k")?; // [g, p) becomes [g, k) and [k, p), both on B
//! assert_eq!(split.table(), [0, 1, 1, 2]);
//! let four = split.add_node("D")?; // D takes a whole range from the node with the most
//! assert_eq!(four.table(), [0, 1, 3, 2]);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::{escape, HashedKeys, KeySet};
use crate::limits;
use crate::schemes::range_table::{check_bounds, check_ranges, owner_ids, BoundKind, RangeSpan, RangeTable};
use crate::schemes::{
    assign_each, check_names, index_of, numbered, with_added, without, Key, Locate, NodeId, Placement,
};
use crate::{Error, Result};
use rayon::prelude::*;

/// One range of a [`KeyRanges`] table: `[lower, upper)` in key bytes.
pub type KeyRange = RangeSpan<Vec<u8>>;

/// Ranges of byte-string keys, each owned by one node.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct KeyRanges {
    nodes: Vec<String>,
    table: RangeTable<Vec<u8>>,
}

/// Key boundaries: shown escaped and quoted; the empty key is the lowest.
pub(crate) struct Bytes;

impl BoundKind for Bytes {
    type B = Vec<u8>;
    fn show(b: &Vec<u8>) -> String {
        format!("\"{}\"", escape(b))
    }
    fn is_lowest(b: &Vec<u8>) -> bool {
        b.is_empty()
    }
}

impl KeyRanges {
    /// One range `[−∞, +∞)` on node `"0"` of `n` nodes named `"0"` …
    /// `"{n-1}"`.
    pub fn new(n: usize) -> Result<Self> {
        KeyRanges::named(numbered(n)?)
    }

    /// One range `[−∞, +∞)` on the first of these nodes: a fresh table.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, Key, KeyRanges, Locate};
    /// let fresh = KeyRanges::named(["A", "B"])?;
    /// assert_eq!(fresh.owner(Key::new("zebra", HashWidth::Bits32)), "A"); // one range, on A
    /// let halves = fresh.with_boundaries(["m"])?; // [−∞, "m") on A, ["m", +∞) on B
    /// for key in ["apple", "m", "mango", "zebra", "Zebra", ""] {
    ///     // keys compare as unsigned bytes: "Z" (0x5a) sorts before "m" (0x6d)
    ///     let want = if key.as_bytes() >= "m".as_bytes() { "B" } else { "A" };
    ///     assert_eq!(halves.owner(Key::new(key, HashWidth::Bits32)), want);
    /// }
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn named<I, S>(names: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Ok(KeyRanges { nodes: check_names(names)?, table: RangeTable::single() })
    }

    /// The same nodes with these boundaries (`k − 1` of them make `k`
    /// ranges), range `i` on node `i % N`.
    ///
    /// Fails on boundaries out of order ([`Error::UnsortedBoundaries`],
    /// naming the index and both keys), a boundary given twice
    /// ([`Error::DuplicateBoundary`]), the empty key
    /// ([`Error::EmptyBoundary`]: range 0 would be empty), and more ranges
    /// or boundary bytes than the [`limits`] allow.
    pub fn with_boundaries<I>(self, bounds: I) -> Result<Self>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let bounds = bounds.into_iter();
        check_ranges(bounds.size_hint().0 as u128 + 1)?;
        // read no further than one boundary past the limit, and stop at the first bad one
        let cap = usize::try_from(limits::current().max_shards).unwrap_or(usize::MAX);
        let (mut list, mut bytes): (Vec<Vec<u8>>, u128) = (Vec::new(), 0);
        for b in bounds.take(cap) {
            let b = b.as_ref();
            bytes += b.len() as u128;
            limits::check_hint(
                "bytes of range boundaries",
                bytes,
                limits::current().max_key_bytes,
                "use fewer or shorter boundaries",
            )?;
            list.push(b.to_vec());
            let tail = &list[list.len().saturating_sub(2)..];
            check_bounds::<Bytes>(tail).map_err(|e| renumber(e, list.len() - tail.len()))?;
            check_ranges(list.len() as u128 + 1)?;
        }
        let table = RangeTable::round_robin::<Bytes>(list, self.nodes.len())?;
        Ok(KeyRanges { table, ..self })
    }

    /// The same ranges with these owners, one node name per range in key
    /// order. Fails with [`Error::LengthMismatch`] unless there is exactly
    /// one per range, and with [`Error::UnknownNode`] on a name that is not
    /// a node.
    pub fn with_owners<I, S>(self, owners: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let ids = owner_ids(&self.nodes, owners, self.table.len())?;
        Ok(KeyRanges { table: self.table.with_owners(ids)?, ..self })
    }

    /// `k` ranges cut at the sample's quantiles, range `i` on node `i % N`
    /// (a table pre-split before it is loaded, as HBase's `SPLITS` and
    /// MongoDB's initial chunks do): the `m` sample keys sorted by their
    /// bytes, boundary `j` is the key at position `⌊j·m/k⌋`, `j = 1 … k−1`.
    ///
    /// ```
    /// use reshard::prelude::*;
    /// let sample = KeySet::from_keys(["a", "b", "c", "d", "e", "f"])?;
    /// let r = KeyRanges::new(3)?.presplit(&sample, 3)?;
    /// assert_eq!(r.boundaries(), [b"c".to_vec(), b"e".to_vec()]);
    /// let few = KeyRanges::new(3)?.presplit(&KeySet::from_keys(["a", "a", "a", "b"])?, 3);
    /// assert!(matches!(few, Err(Error::TooFewDistinctKeys { distinct: 2, .. })));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    ///
    /// Fails on `k = 0`, with [`Error::TooFewDistinctKeys`] when two
    /// quantiles are the same key or one is the empty key (a sample with
    /// too few distinct keys for `k` ranges), and over the limits.
    pub fn presplit(self, sample: &KeySet, k: usize) -> Result<Self> {
        if k == 0 {
            return Err(Error::OutOfRange {
                what: "ranges to pre-split into",
                given: "0".into(),
                allowed: "1 or more (1 is one range, unsplit)".into(),
            });
        }
        check_ranges(k as u128)?;
        let kb = sample.key_bytes()?;
        let m = kb.len();
        let mut order: Vec<u32> = (0..m as u32).collect();
        order.par_sort_unstable_by(|&a, &b| kb.get(a as usize).cmp(kb.get(b as usize)));
        let key = |p: usize| kb.get(order[p] as usize);
        let distinct = (0..m).filter(|&p| p == 0 || key(p) != key(p - 1)).count();
        let too_few = Error::TooFewDistinctKeys { ranges: k, sample: m, distinct };
        let mut bounds: Vec<Vec<u8>> = Vec::with_capacity(k - 1);
        for j in 1..k {
            let p = (j as u128 * m as u128 / k as u128) as usize;
            let b = match order.get(p) {
                Some(&i) => kb.get(i as usize),
                None => return Err(too_few),
            };
            if b.is_empty() || bounds.last().is_some_and(|l| l.as_slice() >= b) {
                return Err(too_few);
            }
            bounds.push(b.to_vec());
        }
        let table = RangeTable::round_robin::<Bytes>(bounds, self.nodes.len())?;
        Ok(KeyRanges { table, ..self })
    }

    /// The boundaries, ascending (one fewer than the ranges).
    pub fn boundaries(&self) -> &[Vec<u8>] {
        self.table.bounds()
    }

    /// `table()[i]` is the node of range `i`; its length is the range count.
    pub fn table(&self) -> &[NodeId] {
        self.table.owners()
    }

    /// How many ranges each node owns, in node order.
    pub fn range_counts(&self) -> Vec<usize> {
        self.table.counts(self.nodes.len())
    }

    /// The range holding `key`: the number of boundaries at or below it
    /// (binary search).
    #[inline]
    pub fn range_of(&self, key: impl AsRef<[u8]>) -> usize {
        self.table.range_of(key.as_ref())
    }

    /// Every range: its index, bounds (`None` for −∞ and +∞) and owner.
    pub fn ranges(&self) -> Vec<KeyRange> {
        self.table.spans()
    }

    /// The ranges a scan of the key interval `[lo, hi)` touches (`None`:
    /// unbounded), as a span of range indices: empty when `hi ≤ lo` or
    /// `hi` is the empty key, and a `hi` equal to a boundary does not touch
    /// the range that starts there.
    pub fn touching(&self, lo: Option<&[u8]>, hi: Option<&[u8]>) -> std::ops::Range<usize> {
        self.table.touching(lo, hi, <[u8]>::is_empty)
    }

    /// The range holding `at` cut in two, `[lower, at)` and `[at, upper)`,
    /// both on its owner. Fails when `at` is already a boundary
    /// ([`Error::AlreadyBoundary`]) or the empty key ([`Error::EmptyBoundary`]).
    pub fn split_at(&self, at: impl AsRef<[u8]>) -> Result<Self> {
        Ok(KeyRanges { nodes: self.nodes.clone(), table: self.table.cut::<Bytes>(at.as_ref().to_vec())? })
    }

    /// Ranges `i` and `i + 1` as one. Fails when there is no range `i + 1`
    /// ([`Error::NoSuchRange`]) or the two are on different nodes
    /// ([`Error::MergeAcrossNodes`], naming both: move one first).
    pub fn merge(&self, i: usize) -> Result<Self> {
        Ok(KeyRanges { nodes: self.nodes.clone(), table: self.table.merge(i, &self.nodes)? })
    }

    /// Range `i` on node `to`. Fails on a range or node that does not exist.
    pub fn move_range(&self, i: usize, to: &str) -> Result<Self> {
        let to = index_of(&self.nodes, to)?;
        Ok(KeyRanges { nodes: self.nodes.clone(), table: self.table.moved(i, to)? })
    }

    pub(crate) fn from_parts(nodes: Vec<String>, table: RangeTable<Vec<u8>>) -> Self {
        KeyRanges { nodes, table }
    }
}

/// An error about the boundaries `list[offset..]` with its index counted in
/// the whole list.
fn renumber(e: Error, offset: usize) -> Error {
    match e {
        Error::UnsortedBoundaries { index, previous, value } => {
            Error::UnsortedBoundaries { index: index + offset, previous, value }
        }
        Error::DuplicateBoundary { index, value } => Error::DuplicateBoundary { index: index + offset, value },
        e => e,
    }
}

impl Placement for KeyRanges {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// The range table is copied and walked: a quarter of an md5 per range,
    /// and its boundaries' bytes.
    fn change_cost(&self, nodes: usize) -> u128 {
        let bytes: u128 = self.boundaries().iter().map(|b| b.len() as u128).sum();
        (self.table().len() as u128).div_ceil(4) + bytes / 64 + nodes as u128
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        assign_each(self, keys)
    }

    /// The new node takes whole ranges, one at a time, from the node
    /// holding the most ranges (ties: the lowest node index), which gives
    /// its highest-numbered range, while that node holds at least 2 more
    /// ranges than the new one. Only the new node receives ranges (no key
    /// moves between the nodes already there); a one-range table gives
    /// nothing — split it first. Fails if the name is taken.
    fn add_node(&self, name: &str) -> Result<Self> {
        let nodes = with_added(&self.nodes, name)?;
        Ok(KeyRanges { table: self.table.with_node_added(self.nodes.len()), nodes })
    }

    /// The node's ranges, in key order, each go to the remaining node then
    /// holding the fewest ranges (ties: the lowest node index); no other
    /// range moves. Fails on an unknown node or the last one.
    fn remove_node(&self, name: &str) -> Result<Self> {
        let (nodes, gone) = without(&self.nodes, name)?;
        Ok(KeyRanges { table: self.table.with_node_removed(gone, self.nodes.len()), nodes })
    }
}

impl Locate for KeyRanges {
    /// Reads the key's bytes (a key made from its hash alone reads as the
    /// hash's 16 big-endian bytes).
    #[inline]
    fn locate(&self, key: Key<'_>) -> NodeId {
        self.table.owner_of(&*key.spelling())
    }

    fn hash_only(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_compare_unsigned() {
        let r = KeyRanges::new(2).unwrap().with_boundaries([&b"\x80"[..]]).unwrap();
        assert_eq!((r.range_of(b"\x7f"), r.range_of(b"\x80"), r.range_of(b"\xff")), (0, 1, 1));
        assert_eq!(r.range_of(b""), 0);
    }

    #[test]
    fn errors_name_what_to_change() {
        let r = KeyRanges::new(2).unwrap();
        let e = r.clone().with_boundaries(["b", "a"]).unwrap_err();
        assert_eq!(e, Error::UnsortedBoundaries { index: 1, previous: "\"b\"".into(), value: "\"a\"".into() });
        assert!(e.to_string().contains("increasing order"), "{e}");
        let e = r.clone().with_boundaries([&b"\xff"[..], b"\x01"]).unwrap_err();
        assert!(e.to_string().contains("\"\\xff\""), "{e}");
        assert_eq!(r.clone().with_boundaries(["", "a"]).unwrap_err(), Error::EmptyBoundary { value: "\"\"".into() });
        let r3 = r.with_boundaries(["m", "t"]).unwrap();
        assert_eq!(
            r3.clone().with_owners(["0"]).unwrap_err(),
            Error::LengthMismatch { what: "owners for ranges", expected: 3, given: 1 }
        );
        assert_eq!(r3.clone().with_owners(["0", "1", "9"]).unwrap_err(), Error::UnknownNode("9".into()));
        let e = r3.merge(0).unwrap_err();
        assert!(e.to_string().contains("move one first"), "{e}");
    }
}
