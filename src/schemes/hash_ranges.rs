//! Hash ranges: the key's md5 hash, not the key, cut into ranges (DDIA 2nd
//! ed. ch. 7, "Sharding by hash range": DynamoDB, YugabyteDB, MongoDB's
//! hashed sharding, Cassandra's token ranges).
//!
//! The hash space is `[0, 2^32)` for [`HashWidth::Bits32`] (md5 mod 2^32,
//! [`Key::hash`] at that width) or `[0, 2^128)`. As with
//! [`KeyRanges`](crate::KeyRanges), `k − 1` increasing boundaries make `k`
//! ranges, each on one node, and ranges split, merge and move whole; but
//! neighbouring keys are scattered over all ranges, so keys written in
//! order spread out, and a scan of a key interval must ask every range.
//! A hash-range system can split a range at the middle of its hash
//! interval without looking at the keys ([`HashRanges::split_middle`]).
//! Hash the keys at 128 bits or at the scheme's width: a key's hash is
//! reduced to the scheme's width, and a 32-bit hash under a 128-bit scheme
//! has no high bits, so every such key would land in the first ranges (the
//! measurements refuse such a key set: [`Placement::check_cost`]).
//!
//! ```
//! use reshard::prelude::*;
//! let r = HashRanges::named(letters("ABC"))?.with_width(HashWidth::Bits32)?.with_even_split(4)?;
//! assert_eq!(r.boundaries(), [1 << 30, 1 << 31, 3 << 30]);
//! assert_eq!(r.table(), [0, 1, 2, 0]); // round-robin
//! let key = Key::new("user:0", HashWidth::Bits32); // hash 0x3f381411, below 2^30
//! assert_eq!(r.owner(key), "A");
//! let halves = r.split_middle(0)?; // [0, 2^30) becomes [0, 2^29) and [2^29, 2^30)
//! assert_eq!(halves.boundaries()[0], 1 << 29);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::numbers::grouped;
use crate::schemes::range_table::{check_bounds, check_ranges, owner_ids, BoundKind, RangeSpan, RangeTable};
use crate::schemes::{
    assign_each, check_names, index_of, numbered, with_added, without, Key, Locate, NodeId, Placement,
};
use crate::{Error, HashWidth, Result};

/// One range of a [`HashRanges`] table: `[lower, upper)` in hash values.
pub type HashRange = RangeSpan<u128>;

/// Ranges of md5 hash values at a [`HashWidth`], each owned by one node.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HashRanges {
    nodes: Vec<String>,
    width: HashWidth,
    table: RangeTable<u128>,
}

/// Hash boundaries: shown in decimal; 0 is the lowest.
pub(crate) struct Hashes;

impl BoundKind for Hashes {
    type B = u128;
    fn show(b: &u128) -> String {
        grouped(*b)
    }
    fn is_lowest(b: &u128) -> bool {
        *b == 0
    }
}

/// The largest hash of a width: `2^w − 1`.
pub(crate) fn top(width: HashWidth) -> u128 {
    width.reduce(u128::MAX)
}

/// Refuse a hash outside `[0, 2^w)`.
fn check_in_space(value: u128, width: HashWidth) -> Result<()> {
    if value > top(width) {
        return Err(Error::HashOutOfRange { value, bits: width.bits() });
    }
    Ok(())
}

impl HashRanges {
    /// One range `[0, 2^32)` on node `"0"` of `n` nodes named `"0"` …
    /// `"{n-1}"`.
    pub fn new(n: usize) -> Result<Self> {
        HashRanges::named(numbered(n)?)
    }

    /// One range, the whole hash space `[0, 2^32)`, on the first of these
    /// nodes (width [`HashWidth::Bits32`] unless
    /// [`with_width`](HashRanges::with_width) says otherwise).
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashRanges, HashWidth, Key, Locate};
    /// let halves = HashRanges::named(["A", "B"])?.with_even_split(2)?; // [0, 2^31) on A, [2^31, 2^32) on B
    /// assert_eq!(halves.boundaries(), [1 << 31]);
    /// // md5 mod 2^32 (Python's hashlib): user:0 1,060,639,761 < 2^31 ≤ user:1 3,519,597,778
    /// assert_eq!(halves.owner(Key::new("user:0", HashWidth::Bits32)), "A");
    /// assert_eq!(halves.owner(Key::new("user:1", HashWidth::Bits32)), "B");
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn named<I, S>(names: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Ok(HashRanges { nodes: check_names(names)?, width: HashWidth::Bits32, table: RangeTable::single() })
    }

    /// The same ranges over the hash space of `width`. Fails with
    /// [`Error::HashOutOfRange`] if a boundary does not fit it.
    pub fn with_width(self, width: HashWidth) -> Result<Self> {
        if let Some(&b) = self.table.bounds().last() {
            check_in_space(b, width)?;
        }
        Ok(HashRanges { width, ..self })
    }

    /// `k` ranges of equal width: boundary `j` is `⌊j·2^w/k⌋`, range `i` on
    /// node `i % N`. Fails on `k = 0`, `k` over the range limit, or `k`
    /// larger than the hash space.
    pub fn with_even_split(self, k: usize) -> Result<Self> {
        let space_fits = self.width.bits() >= 64 || (k as u128) <= top(self.width) + 1;
        if k == 0 || !space_fits {
            return Err(Error::OutOfRange {
                what: "ranges of an even split",
                given: k.to_string(),
                allowed: format!("1 to {} (the hash space's size)", grouped(top(self.width).saturating_add(1))),
            });
        }
        check_ranges(k as u128)?;
        let kk = k as u128;
        // 2^w = q·k + r, so ⌊j·2^w/k⌋ = j·q + ⌊j·r/k⌋ (j, r < k: no overflow)
        let (q, r) = match top(self.width).checked_add(1) {
            _ if k == 1 => (0, 0), // no boundaries
            Some(space) => (space / kk, space % kk),
            None if u128::MAX % kk == kk - 1 => (u128::MAX / kk + 1, 0),
            None => (u128::MAX / kk, u128::MAX % kk + 1),
        };
        let bounds: Vec<u128> = (1..kk).map(|j| j * q + j * r / kk).collect();
        let table = RangeTable::round_robin::<Hashes>(bounds, self.nodes.len())?;
        Ok(HashRanges { table, ..self })
    }

    /// The same nodes with these boundaries, range `i` on node `i % N`.
    /// Fails on boundaries out of order, given twice, 0 (range 0 would be
    /// empty), outside the hash space ([`Error::HashOutOfRange`]), or more
    /// ranges than the [`limits`](crate::limits) allow.
    pub fn with_boundaries(self, hashes: &[u128]) -> Result<Self> {
        check_ranges(hashes.len() as u128 + 1)?;
        check_bounds::<Hashes>(hashes)?;
        if let Some(&b) = hashes.last() {
            check_in_space(b, self.width)?;
        }
        let table = RangeTable::round_robin::<Hashes>(hashes.to_vec(), self.nodes.len())?;
        Ok(HashRanges { table, ..self })
    }

    /// The same ranges with these owners, one node name per range. Fails
    /// with [`Error::LengthMismatch`] unless there is exactly one per range,
    /// and with [`Error::UnknownNode`] on a name that is not a node.
    pub fn with_owners<I, S>(self, owners: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let ids = owner_ids(&self.nodes, owners, self.table.len())?;
        Ok(HashRanges { table: self.table.with_owners(ids)?, ..self })
    }

    /// The width of the hash space.
    pub fn width(&self) -> HashWidth {
        self.width
    }

    /// The boundaries, ascending (one fewer than the ranges).
    pub fn boundaries(&self) -> &[u128] {
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

    /// The range holding `hash` (first reduced to this scheme's width).
    #[inline]
    pub fn range_of(&self, hash: u128) -> usize {
        self.table.range_of(&self.width.reduce(hash))
    }

    /// Every range: its index, bounds (a `None` lower bound is 0, a `None`
    /// upper bound the end of the space, 2^w) and owner.
    pub fn ranges(&self) -> Vec<HashRange> {
        self.table.spans()
    }

    /// The range holding `hash` cut in two at `hash`, both parts on its
    /// owner. Fails on a hash that is already a boundary, 0, or outside the
    /// hash space.
    pub fn split_at(&self, hash: u128) -> Result<Self> {
        check_in_space(hash, self.width)?;
        Ok(HashRanges { table: self.table.cut::<Hashes>(hash)?, ..self.clone() })
    }

    /// Range `i` cut at the middle of its hash interval `[lo, hi)`, at
    /// `lo + ⌈(hi − lo − 1)/2⌉` (so `[0, 2^32)` splits at 2^31), without
    /// looking at any key. Fails on a range that does not exist or holds a
    /// single hash value ([`Error::RangeTooNarrow`]).
    pub fn split_middle(&self, i: usize) -> Result<Self> {
        let bounds = self.table.bounds();
        if i >= self.table.len() {
            return Err(Error::NoSuchRange { index: i, ranges: self.table.len() });
        }
        let lo = i.checked_sub(1).map_or(0, |j| bounds[j]);
        let last = bounds.get(i).map_or(top(self.width), |&b| b - 1);
        let d = last - lo;
        if d == 0 {
            return Err(Error::RangeTooNarrow { index: i, hash: lo });
        }
        self.split_at(lo + d / 2 + (d & 1))
    }

    /// Ranges `i` and `i + 1` as one. Fails when there is no range `i + 1`
    /// or the two are on different nodes ([`Error::MergeAcrossNodes`]).
    pub fn merge(&self, i: usize) -> Result<Self> {
        Ok(HashRanges { table: self.table.merge(i, &self.nodes)?, ..self.clone() })
    }

    /// Range `i` on node `to`. Fails on a range or node that does not exist.
    pub fn move_range(&self, i: usize, to: &str) -> Result<Self> {
        let to = index_of(&self.nodes, to)?;
        Ok(HashRanges { table: self.table.moved(i, to)?, ..self.clone() })
    }

    pub(crate) fn from_parts(nodes: Vec<String>, width: HashWidth, table: RangeTable<u128>) -> Self {
        HashRanges { nodes, width, table }
    }
}

impl Placement for HashRanges {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// Keys hashed at 32 bits are refused by a 128-bit table: their hashes
    /// have no high bits, so every key would fall in the ranges below 2^32
    /// (the first, for any split of the 128-bit space into fewer than 2^96
    /// ranges). Keys hashed at 128 bits on a 32-bit table are read at 32
    /// bits, the same hash a 32-bit key set holds.
    fn check_cost(&self, keys: &HashedKeys) -> Result<()> {
        if self.width == HashWidth::Bits128 && keys.width() == HashWidth::Bits32 {
            return Err(Error::OutOfRange {
                what: "hash width of the keys",
                given: "32 bits".into(),
                allowed: "128 bits under a 128-bit hash range table: a 32-bit hash has no high bits, so every key \
                          would land in the first range (hash the keys with HashWidth::Bits128, or give the table \
                          with_width(HashWidth::Bits32))"
                    .into(),
            });
        }
        Ok(())
    }

    /// The range table is copied and walked: a quarter of an md5 per range.
    fn change_cost(&self, nodes: usize) -> u128 {
        (self.table().len() as u128).div_ceil(4) + nodes as u128
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        assign_each(self, keys)
    }

    /// As [`KeyRanges`](crate::KeyRanges): the new node takes whole ranges,
    /// one at a time, from the node holding the most ranges (ties: the
    /// lowest index), which gives its highest-numbered range, while that
    /// node holds at least 2 more ranges than the new one. Only the new
    /// node receives ranges. Fails if the name is taken.
    fn add_node(&self, name: &str) -> Result<Self> {
        let nodes = with_added(&self.nodes, name)?;
        Ok(HashRanges { table: self.table.with_node_added(self.nodes.len()), nodes, width: self.width })
    }

    /// The node's ranges, in hash order, each go to the remaining node then
    /// holding the fewest ranges (ties: the lowest index); no other range
    /// moves. Fails on an unknown node or the last one.
    fn remove_node(&self, name: &str) -> Result<Self> {
        let (nodes, gone) = without(&self.nodes, name)?;
        Ok(HashRanges { table: self.table.with_node_removed(gone, self.nodes.len()), nodes, width: self.width })
    }
}

impl Locate for HashRanges {
    /// The owner of the range holding the key's hash, reduced to this
    /// scheme's width (hash the keys at this width or at 128 bits).
    #[inline]
    fn locate(&self, key: Key<'_>) -> NodeId {
        self.table.owner_of(&self.width.reduce(key.hash()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_splits_are_floor_of_j_times_the_space_over_k() {
        for width in [HashWidth::Bits32, HashWidth::Bits128] {
            for k in [1usize, 2, 3, 7, 10, 1000] {
                let r = HashRanges::new(3).unwrap().with_width(width).unwrap().with_even_split(k).unwrap();
                assert_eq!(r.table().len(), k);
                for (j, &b) in r.boundaries().iter().enumerate() {
                    let j = j as u128 + 1;
                    // j·2^w/k by long division in two 64-bit halves, independent of the code's
                    let want = match width {
                        HashWidth::Bits32 => (j << 32) / k as u128,
                        HashWidth::Bits128 => {
                            let k = k as u128;
                            let hi = (j << 64) / k; // j·2^64 / k
                            let rem = (j << 64) % k;
                            (hi << 64) + (rem << 64) / k
                        }
                    };
                    assert_eq!(b, want, "{width} k={k} j={j}");
                }
            }
        }
    }

    #[test]
    fn the_last_range_of_128_bits_splits_in_the_middle() {
        let r = HashRanges::new(1).unwrap().with_width(HashWidth::Bits128).unwrap();
        assert_eq!(r.split_middle(0).unwrap().boundaries(), [1u128 << 127]);
        let r = HashRanges::new(1).unwrap().with_width(HashWidth::Bits128).unwrap();
        let r = r.with_boundaries(&[u128::MAX]).unwrap();
        assert_eq!(r.split_middle(1).unwrap_err(), Error::RangeTooNarrow { index: 1, hash: u128::MAX });
        assert_eq!(r.range_of(u128::MAX), 1);
    }

    #[test]
    fn out_of_space_and_width_changes() {
        let r = HashRanges::new(2).unwrap();
        let e = r.clone().with_boundaries(&[1 << 32]).unwrap_err();
        assert_eq!(e, Error::HashOutOfRange { value: 1 << 32, bits: 32 });
        assert!(e.to_string().contains("below 4,294,967,296"), "{e}");
        let wide = r.clone().with_width(HashWidth::Bits128).unwrap().with_boundaries(&[1 << 40]).unwrap();
        assert!(wide.clone().with_width(HashWidth::Bits32).is_err());
        assert_eq!(r.split_at(0).unwrap_err(), Error::EmptyBoundary { value: "0".into() });
    }
}
