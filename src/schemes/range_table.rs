//! The sorted-boundary table behind [`KeyRanges`](crate::KeyRanges) and
//! [`HashRanges`](crate::HashRanges): `k − 1` strictly increasing
//! boundaries cut the ordered space into `k` ranges, and each range has an
//! owner.
//!
//! Range 0 is `[−∞, b1)`, range `i` is `[bi, b(i+1))`, the last is
//! `[b(k−1), +∞)`: a value's range is the number of boundaries at or below
//! it, found by binary search. Splitting, merging and moving a range edit
//! the table and nothing else; growing and shrinking the cluster hands
//! whole ranges over, by the two rules of [`RangeTable::with_node_added`]
//! and [`RangeTable::with_node_removed`].
//!
//! ```
//! use reshard::prelude::*;
//! let r = KeyRanges::named(letters("AB"))?.with_boundaries(["g", "p"])?;
//! assert_eq!(r.table(), [0, 1, 0]); // round-robin: A, B, A
//! assert_eq!((r.range_of("a"), r.range_of("g"), r.range_of("zz")), (0, 1, 2));
//! let spans = r.ranges();
//! assert_eq!((spans[1].lower.as_deref(), spans[1].upper.as_deref()), (Some(&b"g"[..]), Some(&b"p"[..])));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::limits;
use crate::schemes::{index_of, NodeId};
use crate::{Error, Result};
use std::borrow::Borrow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One range of a [`KeyRanges`](crate::KeyRanges) or
/// [`HashRanges`](crate::HashRanges) table: `[lower, upper)`, `None`
/// standing for −∞ (below every value) and +∞ (above every value).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct RangeSpan<B> {
    /// The range's index, in key order.
    pub index: usize,
    /// Its lowest value, included (`None`: −∞).
    pub lower: Option<B>,
    /// The lower bound of the next range, excluded (`None`: +∞).
    pub upper: Option<B>,
    /// The node that owns it (an index into `nodes()`).
    pub owner: NodeId,
}

/// Strictly increasing boundaries and one owner per range
/// (`owners.len() == bounds.len() + 1`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub(crate) struct RangeTable<B> {
    bounds: Vec<B>,
    owners: Vec<NodeId>,
}

/// How a scheme prints its boundaries (keys escaped and quoted, hashes in
/// decimal) and which value is the lowest of its space (the empty key,
/// hash 0), which cannot be a boundary.
pub(crate) trait BoundKind {
    /// The boundary type.
    type B: Ord + Clone;
    /// The boundary as an error message shows it.
    fn show(b: &Self::B) -> String;
    /// True for the lowest value of the space.
    fn is_lowest(b: &Self::B) -> bool;
}

/// Refuse a range count over [`Limits::max_shards`](crate::limits::Limits::max_shards).
pub(crate) fn check_ranges(ranges: u128) -> Result<()> {
    limits::check_hint(
        "ranges (shards)",
        ranges,
        limits::current().max_shards,
        "use fewer ranges (or raise limits::Limits::max_shards)",
    )
}

impl<B: Ord + Clone> RangeTable<B> {
    /// One range, `[−∞, +∞)`, owned by node 0.
    pub(crate) fn single() -> Self {
        RangeTable { bounds: Vec::new(), owners: vec![0] }
    }

    /// These boundaries, checked, with range `i` owned by node `i % nodes`.
    pub(crate) fn round_robin<K: BoundKind<B = B>>(bounds: Vec<B>, nodes: usize) -> Result<Self> {
        check_ranges(bounds.len() as u128 + 1)?;
        check_bounds::<K>(&bounds)?;
        let n = nodes.max(1);
        let owners = (0..=bounds.len()).map(|i| (i % n) as NodeId).collect();
        Ok(RangeTable { bounds, owners })
    }

    /// A table from parts already known to be valid (boundaries strictly
    /// increasing, none the lowest value, one owner more than boundaries,
    /// each a node): the range-split simulation's final layout.
    pub(crate) fn from_raw(bounds: Vec<B>, owners: Vec<NodeId>) -> Self {
        debug_assert_eq!(owners.len(), bounds.len() + 1);
        debug_assert!(bounds.windows(2).all(|w| w[0] < w[1]));
        RangeTable { bounds, owners }
    }

    /// The boundaries, ascending.
    pub(crate) fn bounds(&self) -> &[B] {
        &self.bounds
    }

    /// The owner of each range, in range order.
    pub(crate) fn owners(&self) -> &[NodeId] {
        &self.owners
    }

    /// How many ranges.
    pub(crate) fn len(&self) -> usize {
        self.owners.len()
    }

    /// The range holding `x`: the number of boundaries at or below it.
    #[inline]
    pub(crate) fn range_of<Q: Ord + ?Sized>(&self, x: &Q) -> usize
    where
        B: Borrow<Q>,
    {
        self.bounds.partition_point(|b| b.borrow() <= x)
    }

    /// The owner of the range holding `x`.
    #[inline]
    pub(crate) fn owner_of<Q: Ord + ?Sized>(&self, x: &Q) -> NodeId
    where
        B: Borrow<Q>,
    {
        self.owners[self.range_of(x)]
    }

    /// The ranges the interval `[lo, hi)` touches (`None`: unbounded); empty
    /// when the interval is (`hi ≤ lo`, or `hi` the lowest value).
    pub(crate) fn touching<Q: Ord + ?Sized>(
        &self,
        lo: Option<&Q>,
        hi: Option<&Q>,
        is_lowest: impl Fn(&Q) -> bool,
    ) -> std::ops::Range<usize>
    where
        B: Borrow<Q>,
    {
        let start = lo.map_or(0, |lo| self.range_of(lo));
        let Some(hi) = hi else { return start..self.len() };
        if is_lowest(hi) || lo.is_some_and(|lo| hi <= lo) {
            return start..start;
        }
        // the ranges whose lower bound is below hi
        let end = self.bounds.partition_point(|b| b.borrow() < hi) + 1;
        start..end.max(start)
    }

    /// Every range with its bounds and owner.
    pub(crate) fn spans(&self) -> Vec<RangeSpan<B>> {
        (0..self.len())
            .map(|i| RangeSpan {
                index: i,
                lower: i.checked_sub(1).map(|j| self.bounds[j].clone()),
                upper: self.bounds.get(i).cloned(),
                owner: self.owners[i],
            })
            .collect()
    }

    /// The same boundaries with these owners (one per range).
    pub(crate) fn with_owners(&self, owners: Vec<NodeId>) -> Result<Self> {
        if owners.len() != self.len() {
            return Err(Error::LengthMismatch { what: "owners for ranges", expected: self.len(), given: owners.len() });
        }
        Ok(RangeTable { bounds: self.bounds.clone(), owners })
    }

    /// The range holding `at` cut in two at `at`, both parts on its owner.
    pub(crate) fn cut<K: BoundKind<B = B>>(&self, at: B) -> Result<Self> {
        if K::is_lowest(&at) {
            return Err(Error::EmptyBoundary { value: K::show(&at) });
        }
        let i = self.range_of(&at);
        if i > 0 && self.bounds[i - 1] == at {
            return Err(Error::AlreadyBoundary { value: K::show(&at), range: i });
        }
        check_ranges(self.len() as u128 + 1)?;
        let mut out = self.clone();
        out.bounds.insert(i, at);
        out.owners.insert(i + 1, self.owners[i]);
        Ok(out)
    }

    /// Ranges `i` and `i + 1` as one; they must have the same owner.
    pub(crate) fn merge(&self, i: usize, nodes: &[String]) -> Result<Self> {
        let ranges = self.len();
        if i.checked_add(1).is_none_or(|next| next >= ranges) {
            return Err(Error::NoSuchRange { index: i.saturating_add(1), ranges });
        }
        let (a, b) = (self.owners[i], self.owners[i + 1]);
        if a != b {
            let name = |id: NodeId| nodes.get(id as usize).cloned().unwrap_or_default();
            return Err(Error::MergeAcrossNodes { index: i, left: name(a), right: name(b) });
        }
        let mut out = self.clone();
        out.bounds.remove(i);
        out.owners.remove(i + 1);
        Ok(out)
    }

    /// Range `i` given to node `to`.
    pub(crate) fn moved(&self, i: usize, to: NodeId) -> Result<Self> {
        if i >= self.len() {
            return Err(Error::NoSuchRange { index: i, ranges: self.len() });
        }
        let mut out = self.clone();
        out.owners[i] = to;
        Ok(out)
    }

    /// How many ranges each of `nodes` nodes owns.
    pub(crate) fn counts(&self, nodes: usize) -> Vec<usize> {
        crate::schemes::count_per_node(&self.owners, nodes)
    }

    /// The table after node `nodes` (a new index) joins: it takes whole
    /// ranges, one at a time, from the node holding the most ranges (ties:
    /// the lowest index), which gives its highest-numbered range, while
    /// that node holds at least 2 more ranges than the new one. Only the
    /// new node receives ranges.
    pub(crate) fn with_node_added(&self, nodes: usize) -> Self {
        let new = nodes as NodeId;
        let mut lists: Vec<Vec<usize>> = vec![Vec::new(); nodes];
        for (r, &o) in self.owners.iter().enumerate() {
            lists[o as usize].push(r);
        }
        let mut heap: BinaryHeap<(usize, Reverse<usize>)> =
            lists.iter().enumerate().map(|(n, l)| (l.len(), Reverse(n))).collect();
        let mut out = self.clone();
        let mut taken = 0usize;
        while let Some(&(count, Reverse(donor))) = heap.peek() {
            if count < taken + 2 {
                break;
            }
            heap.pop();
            let Some(r) = lists[donor].pop() else { break };
            out.owners[r] = new;
            taken += 1;
            heap.push((count - 1, Reverse(donor)));
        }
        out
    }

    /// The table after node `gone` (of `nodes`) leaves: its ranges, in key
    /// order, each go to the remaining node that then holds the fewest
    /// ranges (ties: the lowest index); the nodes after `gone` are
    /// renumbered down by one. Only its ranges change owner.
    pub(crate) fn with_node_removed(&self, gone: NodeId, nodes: usize) -> Self {
        let counts = self.counts(nodes);
        let mut heap: BinaryHeap<Reverse<(usize, NodeId)>> =
            (0..nodes as NodeId).filter(|&n| n != gone).map(|n| Reverse((counts[n as usize], n))).collect();
        let mut out = self.clone();
        for o in out.owners.iter_mut() {
            if *o == gone {
                if let Some(Reverse((c, n))) = heap.pop() {
                    *o = n;
                    heap.push(Reverse((c + 1, n)));
                }
            }
        }
        for o in out.owners.iter_mut() {
            if *o > gone {
                *o -= 1;
            }
        }
        out
    }
}

/// Check boundaries: none the lowest value, each above the one before.
pub(crate) fn check_bounds<K: BoundKind>(bounds: &[K::B]) -> Result<()> {
    for (i, b) in bounds.iter().enumerate() {
        if K::is_lowest(b) {
            return Err(Error::EmptyBoundary { value: K::show(b) });
        }
        if let Some(prev) = i.checked_sub(1).map(|j| &bounds[j]) {
            if b == prev {
                return Err(Error::DuplicateBoundary { index: i, value: K::show(b) });
            }
            if b < prev {
                return Err(Error::UnsortedBoundaries { index: i, previous: K::show(prev), value: K::show(b) });
            }
        }
    }
    Ok(())
}

/// Owner names as node indices: exactly `ranges` of them, each a node of
/// `nodes`. An iterator is read no further than one past `ranges`.
pub(crate) fn owner_ids<I, S>(nodes: &[String], owners: I, ranges: usize) -> Result<Vec<NodeId>>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let owners = owners.into_iter();
    let hint = owners.size_hint().0;
    let mut ids = Vec::with_capacity(hint.min(ranges));
    for name in owners.take(ranges.saturating_add(1)) {
        ids.push(index_of(nodes, name.as_ref())?);
    }
    if ids.len() != ranges {
        let given = if ids.len() > ranges { ids.len().max(hint) } else { ids.len() };
        return Err(Error::LengthMismatch { what: "owners for ranges", expected: ranges, given });
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Ints;
    impl BoundKind for Ints {
        type B = u32;
        fn show(b: &u32) -> String {
            b.to_string()
        }
        fn is_lowest(b: &u32) -> bool {
            *b == 0
        }
    }

    fn table(bounds: &[u32], nodes: usize) -> RangeTable<u32> {
        RangeTable::round_robin::<Ints>(bounds.to_vec(), nodes).unwrap()
    }

    #[test]
    fn lookup_is_a_count_of_boundaries_at_or_below() {
        let t = table(&[10, 20, 30], 2);
        for x in 0..40u32 {
            let linear = t.bounds().iter().filter(|&&b| b <= x).count();
            assert_eq!(t.range_of(&x), linear, "{x}");
        }
        assert_eq!(t.owners(), [0, 1, 0, 1]);
    }

    #[test]
    fn touching_stops_before_a_range_that_starts_at_hi() {
        let t = table(&[10, 20, 30], 1);
        let low = |x: &u32| *x == 0;
        assert_eq!(t.touching(Some(&10), Some(&20), low), 1..2);
        assert_eq!(t.touching(Some(&10), Some(&21), low), 1..3);
        assert_eq!(t.touching(Some(&9), Some(&10), low), 0..1);
        assert_eq!(t.touching(None, None, low), 0..4);
        assert_eq!(t.touching(None, Some(&0), low), 0..0);
        assert_eq!(t.touching(Some(&25), Some(&25), low), 2..2);
        assert_eq!(t.touching(Some(&25), Some(&5), low), 2..2);
        assert_eq!(t.touching(Some(&35), None, low), 3..4);
    }

    #[test]
    fn bad_boundaries_are_named() {
        assert_eq!(check_bounds::<Ints>(&[0, 3]), Err(Error::EmptyBoundary { value: "0".into() }));
        assert_eq!(check_bounds::<Ints>(&[3, 3]), Err(Error::DuplicateBoundary { index: 1, value: "3".into() }));
        assert_eq!(
            check_bounds::<Ints>(&[1, 5, 4]),
            Err(Error::UnsortedBoundaries { index: 2, previous: "5".into(), value: "4".into() })
        );
    }

    #[test]
    fn adding_takes_from_the_fullest_node_its_highest_range() {
        // 7 ranges on 2 nodes: 0 holds 0, 2, 4, 6; 1 holds 1, 3, 5
        let t = table(&[1, 2, 3, 4, 5, 6], 2);
        let grown = t.with_node_added(2);
        // node 0 (4 ≥ 0 + 2) gives 6; then node 0 and 1 hold 3 each, tie to 0 (3 ≥ 1 + 2) gives 4;
        // then node 1 holds 3, the new node 2: 3 < 2 + 2, stop
        assert_eq!(grown.owners(), [0, 1, 0, 1, 2, 1, 2]);
        assert_eq!(grown.counts(3), [2, 3, 2]);
    }

    #[test]
    fn removing_gives_each_range_to_the_emptiest_node() {
        let t = table(&[1, 2, 3, 4, 5], 3).with_owners(vec![1, 1, 1, 0, 2, 1]).unwrap();
        // node 1's ranges 0, 1, 2, 5 go, in order, to the node then holding the fewest
        let shrunk = t.with_node_removed(1, 3);
        // before: node 0 holds 1 range, node 2 holds 1; 0 → node 0 (tie, lowest), 1 → node 2
        // (now 2 vs 1), 2 → node 0 (2, 2: tie), 5 → node 2 (old index 2 = new index 1)
        assert_eq!(shrunk.owners(), [0, 1, 0, 0, 1, 1]);
    }

    #[test]
    fn split_merge_and_move() {
        let t = table(&[10], 2);
        let s = t.cut::<Ints>(5).unwrap();
        assert_eq!((s.bounds(), s.owners()), (&[5, 10][..], &[0, 0, 1][..]));
        assert_eq!(s.cut::<Ints>(10), Err(Error::AlreadyBoundary { value: "10".into(), range: 2 }));
        assert_eq!(s.cut::<Ints>(0), Err(Error::EmptyBoundary { value: "0".into() }));
        let names = ["A".to_string(), "B".to_string()];
        assert_eq!(s.merge(0, &names).unwrap(), t);
        assert_eq!(s.merge(1, &names), Err(Error::MergeAcrossNodes { index: 1, left: "A".into(), right: "B".into() }));
        assert_eq!(s.merge(2, &names), Err(Error::NoSuchRange { index: 3, ranges: 3 }));
        assert_eq!(s.merge(usize::MAX, &names), Err(Error::NoSuchRange { index: usize::MAX, ranges: 3 }));
        assert_eq!(s.moved(2, 0).unwrap().owners(), [0, 0, 0]);
        assert_eq!(s.moved(3, 0), Err(Error::NoSuchRange { index: 3, ranges: 3 }));
    }
}
