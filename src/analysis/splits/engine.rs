//! The engine of [`RangeGrowth::run`](crate::analysis::RangeGrowth::run):
//! keys ranked once, rows present kept in a Fenwick tree, live ranges in a
//! map by their first rank.
//!
//! A boundary `b` is a rank: the number of distinct key positions below
//! it. A range `[b, c)` holds the ranks `rank(b) .. rank(c)`; ranges of
//! the starting layout that hold no key of the set at all (two boundaries
//! with no key between them) never hold a row, never split and never
//! move: they are kept aside ("keyless") and only counted in range indices.
//! Every other range ("live") has a first rank of its own.

use crate::analysis::fenwick::Fenwick;
use crate::analysis::range_layout::{Boundary, RangeLayout};
use crate::analysis::splits::{
    max_ranges, too_many_ranges, GrownRange, GrowthSettings, RangeGrowth, RangeMove, Sample, Split,
};
use crate::keys::{KeyBytes, KeySet};
use crate::schemes::range_table::RangeTable;
use crate::schemes::{HashRanges, KeyRanges, NodeId};
use crate::Result;
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

/// Where the ranks come from: key bytes, or (hash, bytes).
enum Space<'a> {
    /// `rep[r]` is a key of rank `r`.
    Keys { bytes: KeyBytes<'a>, rep: Vec<u32> },
    /// `hash_at[r]` is the hash of rank `r` (ascending).
    Hashes { hash_at: Vec<u128> },
}

/// Every key's rank (equal keys share one), and how many ranks.
struct Ranked<'a> {
    rank: Vec<u32>,
    distinct: usize,
    space: Space<'a>,
}

fn rank_keys<'a>(bytes: KeyBytes<'a>, hashes: Option<Vec<u128>>) -> Ranked<'a> {
    let n = bytes.len();
    let mut order: Vec<u32> = (0..n as u32).collect();
    let key = |i: u32| bytes.get(i as usize);
    match &hashes {
        None => order.par_sort_unstable_by(|&a, &b| key(a).cmp(key(b))),
        Some(h) => {
            order.par_sort_unstable_by(|&a, &b| h[a as usize].cmp(&h[b as usize]).then_with(|| key(a).cmp(key(b))))
        }
    }
    let mut rank = vec![0u32; n];
    let (mut rep, mut hash_at) = (Vec::new(), Vec::new());
    let mut distinct = 0usize;
    for (p, &i) in order.iter().enumerate() {
        let same = p > 0 && {
            let j = order[p - 1];
            hashes.as_ref().is_none_or(|h| h[i as usize] == h[j as usize]) && key(i) == key(j)
        };
        if !same {
            distinct += 1;
            match &hashes {
                None => rep.push(i),
                Some(h) => hash_at.push(h[i as usize]),
            }
        }
        rank[i as usize] = (distinct - 1) as u32;
    }
    let space = match hashes {
        None => Space::Keys { bytes, rep },
        Some(_) => Space::Hashes { hash_at },
    };
    Ranked { rank, distinct, space }
}

impl Ranked<'_> {
    /// The number of ranks below boundary `b`.
    fn rank_of(&self, b: &Boundary) -> usize {
        match (&self.space, b) {
            (Space::Keys { bytes, rep }, Boundary::Key(k)) => {
                let (mut lo, mut hi) = (0usize, rep.len());
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if bytes.get(rep[mid] as usize) < k.as_slice() {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                lo
            }
            (Space::Hashes { hash_at }, Boundary::Hash(h)) => hash_at.partition_point(|x| x < h),
            _ => 0,
        }
    }
}

/// A range that can hold rows.
struct Live {
    owner: NodeId,
    rows: u64,
    writes: u64,
    created: u64,
    lower: Option<Boundary>,
}

/// The fullest and the emptiest node (ties: the lowest index), kept in two
/// tournament trees over the nodes' rows.
struct Extremes {
    size: usize,
    max: Vec<u32>,
    min: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Extremes {
    fn new(rows: &[u64]) -> Self {
        let size = rows.len().next_power_of_two().max(1);
        let mut e = Extremes { size, max: vec![NONE; 2 * size], min: vec![NONE; 2 * size] };
        for i in 0..rows.len() {
            e.max[size + i] = i as u32;
            e.min[size + i] = i as u32;
        }
        for j in (1..size).rev() {
            e.pull(j, rows);
        }
        e
    }

    fn pick(a: u32, b: u32, rows: &[u64], fuller: bool) -> u32 {
        match (a, b) {
            (NONE, x) | (x, NONE) => x,
            _ => {
                let (ra, rb) = (rows[a as usize], rows[b as usize]);
                let a_wins = if fuller { ra > rb || (ra == rb && a < b) } else { ra < rb || (ra == rb && a < b) };
                if a_wins {
                    a
                } else {
                    b
                }
            }
        }
    }

    fn pull(&mut self, j: usize, rows: &[u64]) {
        self.max[j] = Extremes::pick(self.max[2 * j], self.max[2 * j + 1], rows, true);
        self.min[j] = Extremes::pick(self.min[2 * j], self.min[2 * j + 1], rows, false);
    }

    fn update(&mut self, node: NodeId, rows: &[u64]) {
        let mut j = (self.size + node as usize) / 2;
        while j >= 1 {
            self.pull(j, rows);
            j /= 2;
        }
    }

    fn fullest(&self) -> u32 {
        self.max[1.min(self.max.len() - 1)]
    }

    fn emptiest(&self) -> u32 {
        self.min[1.min(self.min.len() - 1)]
    }
}

struct Sim<'a> {
    ranked: &'a Ranked<'a>,
    threshold: u64,
    factor: Option<f64>,
    live: BTreeMap<u32, Live>,
    keyless: Vec<u32>,
    starts: Fenwick,
    present: Fenwick,
    seen: Vec<bool>,
    node_rows: Vec<u64>,
    node_writes: Vec<u64>,
    by_node: Vec<BTreeSet<(u64, Reverse<u32>)>>,
    extremes: Option<Extremes>,
    splits: Vec<Split>,
    moves: Vec<RangeMove>,
    /// The most ranges there may be ([`max_ranges`]), and whether a split
    /// was refused for it (keys sharing a hash made parts smaller than
    /// `run` counted on).
    max_ranges: usize,
    over: bool,
}

impl Sim<'_> {
    /// The index, among all ranges, of the live range starting at rank `s`.
    fn index_of(&self, s: u32) -> usize {
        self.starts.below(s as usize) as usize + self.keyless.partition_point(|&k| k <= s)
    }

    fn arrive(&mut self, t: u64, r: u32) {
        let Some((&s, live)) = self.live.range_mut(..=r).next_back() else { return };
        live.writes += 1;
        let owner = live.owner as usize;
        self.node_writes[owner] += 1;
        if std::mem::replace(&mut self.seen[r as usize], true) {
            return;
        }
        self.present.mark(r as usize);
        live.rows += 1;
        let rows = live.rows;
        self.node_rows[owner] += 1;
        if let Some(ex) = &mut self.extremes {
            self.by_node[owner].remove(&(rows - 1, Reverse(s)));
            self.by_node[owner].insert((rows, Reverse(s)));
            ex.update(owner as NodeId, &self.node_rows);
        }
        if rows > self.threshold {
            // Splits that leave a part over the threshold (only under hash ranges, once a range
            // that could not split can) go on, lower part first: in key order.
            let mut work = vec![s];
            while let Some(s) = work.pop() {
                if self.live.get(&s).is_some_and(|l| l.rows > self.threshold) {
                    if let Some(upper) = self.split(t, s) {
                        work.extend([upper, s]);
                        self.balance(t);
                    }
                }
            }
        }
    }

    /// Split the live range starting at `s`; the upper part's first rank.
    fn split(&mut self, t: u64, s: u32) -> Option<u32> {
        if self.live.len() + self.keyless.len() >= self.max_ranges {
            self.over = true;
            return None;
        }
        let n = self.live.get(&s)?.rows;
        let end = self.live.range(s + 1..).next().map_or(self.ranked.distinct, |(&k, _)| k as usize);
        let before = self.present.below(s as usize);
        let median = self.present.kth(before + n / 2);
        let (upper, boundary) = match &self.ranked.space {
            Space::Keys { bytes, rep } => (median, Boundary::Key(bytes.get(rep[median] as usize).to_vec())),
            Space::Hashes { hash_at } => {
                let mut h = hash_at[median];
                if h == hash_at[self.present.kth(before)] {
                    // the median shares the lowest row's hash: the next higher row hash
                    let p = hash_at.partition_point(|&x| x <= h);
                    let q = self.present.kth(self.present.below(p));
                    if q >= end {
                        return None;
                    }
                    h = hash_at[q];
                }
                (hash_at.partition_point(|&x| x < h), Boundary::Hash(h))
            }
        };
        let left = self.present.below(upper) - before;
        let index = self.index_of(s);
        let live = self.live.get_mut(&s)?;
        let owner = live.owner;
        (live.rows, live.writes, live.created) = (left, 0, t);
        let upper = upper as u32;
        self.live.insert(upper, Live { owner, rows: n - left, writes: 0, created: t, lower: Some(boundary.clone()) });
        self.starts.mark(upper as usize);
        if self.extremes.is_some() {
            let set = &mut self.by_node[owner as usize];
            set.remove(&(n, Reverse(s)));
            set.insert((left, Reverse(s)));
            set.insert((n - left, Reverse(upper)));
        }
        self.splits.push(Split {
            arrival: t,
            range: index,
            boundary,
            left_rows: left,
            right_rows: n - left,
            node: owner,
        });
        Some(upper)
    }

    /// Move ranges from the fullest node to the emptiest while one qualifies.
    fn balance(&mut self, t: u64) {
        let (Some(f), Some(ex)) = (self.factor, &self.extremes) else { return };
        let (mut hi, mut lo) = (ex.fullest(), ex.emptiest());
        while hi != NONE && lo != NONE {
            let gap = self.node_rows[hi as usize] - self.node_rows[lo as usize];
            let g = gap as f64;
            // the most rows r with gap > f·r
            let mut r = (g / f).floor() as u64;
            while r > 0 && g <= f * r as f64 {
                r -= 1;
            }
            while g > f * (r + 1) as f64 {
                r += 1;
            }
            let pick = self.by_node[hi as usize].range(..=(r, Reverse(0))).next_back().copied();
            let Some((rows, Reverse(s))) = pick.filter(|p| p.0 > 0 && r > 0) else { return };
            self.by_node[hi as usize].remove(&(rows, Reverse(s)));
            self.by_node[lo as usize].insert((rows, Reverse(s)));
            if let Some(l) = self.live.get_mut(&s) {
                l.owner = lo;
            }
            self.node_rows[hi as usize] -= rows;
            self.node_rows[lo as usize] += rows;
            let index = self.index_of(s);
            self.moves.push(RangeMove { arrival: t, range: index, from: hi, to: lo, rows });
            let Some(ex) = &mut self.extremes else { return };
            ex.update(hi, &self.node_rows);
            ex.update(lo, &self.node_rows);
            (hi, lo) = (ex.fullest(), ex.emptiest());
        }
    }
}

/// Run the simulation; the settings and limits are checked by the caller.
pub(crate) fn simulate(
    keys: &KeySet,
    start: RangeLayout,
    settings: &GrowthSettings,
    every: usize,
) -> Result<RangeGrowth> {
    let bytes = keys.key_bytes()?;
    let hashes = match &start {
        RangeLayout::Keys(_) => None,
        RangeLayout::Hashes(h) => Some(keys.hashed(h.width())?.hashes().to_vec()),
    };
    let ranked = rank_keys(bytes, hashes);
    let (bounds, owners): (Vec<Boundary>, &[NodeId]) = match &start {
        RangeLayout::Keys(k) => (k.boundaries().iter().map(|b| Boundary::Key(b.clone())).collect(), k.table()),
        RangeLayout::Hashes(h) => (h.boundaries().iter().map(|&b| Boundary::Hash(b)).collect(), h.table()),
    };
    let nodes = start.nodes().len();
    let firsts: Vec<u32> = std::iter::once(0).chain(bounds.iter().map(|b| ranked.rank_of(b) as u32)).collect();
    let lowers: Vec<Option<Boundary>> = std::iter::once(None).chain(bounds.into_iter().map(Some)).collect();
    let mut sim = Sim {
        ranked: &ranked,
        threshold: settings.threshold(),
        factor: settings.balance_factor(),
        live: BTreeMap::new(),
        keyless: Vec::new(),
        starts: Fenwick::new(ranked.distinct + 1),
        present: Fenwick::new(ranked.distinct),
        seen: vec![false; ranked.distinct],
        node_rows: vec![0; nodes],
        node_writes: vec![0; nodes],
        by_node: vec![BTreeSet::new(); if settings.balance_factor().is_some() { nodes } else { 0 }],
        extremes: settings.balance_factor().map(|_| Extremes::new(&vec![0; nodes])),
        splits: Vec::new(),
        moves: Vec::new(),
        max_ranges: usize::try_from(max_ranges()).unwrap_or(usize::MAX),
        over: false,
    };
    // (first rank, range) of the ranges that hold no key at all, in order
    let mut keyless: Vec<(u32, Option<Boundary>, NodeId)> = Vec::new();
    for (i, lower) in lowers.into_iter().enumerate() {
        let owner = owners[i];
        if firsts.get(i + 1) == Some(&firsts[i]) {
            keyless.push((firsts[i], lower, owner));
            continue;
        }
        sim.live.insert(firsts[i], Live { owner, rows: 0, writes: 0, created: 0, lower });
        sim.starts.mark(firsts[i] as usize);
        if let Some(set) = sim.by_node.get_mut(owner as usize) {
            set.insert((0, Reverse(firsts[i])));
        }
    }
    sim.keyless = keyless.iter().map(|k| k.0).collect();
    let n = keys.len();
    let order = settings.arrival_order().order(n)?;
    let mut samples = vec![Sample { arrival: 0, rows: vec![0; nodes] }];
    for (j, &i) in order.iter().enumerate() {
        let t = j as u64 + 1;
        sim.arrive(t, ranked.rank[i as usize]);
        if sim.over {
            return Err(too_many_ranges(max_ranges() + 1));
        }
        if (j + 1) % every == 0 || j + 1 == n {
            samples.push(Sample { arrival: t, rows: sim.node_rows.clone() });
        }
    }
    // the final ranges, keyless ones before the live range of the same first rank
    let mut ranges: Vec<GrownRange> = Vec::with_capacity(sim.live.len() + keyless.len());
    let mut rest = keyless.into_iter().peekable();
    let grown =
        |lower, owner, rows, writes, created| GrownRange { index: 0, lower, upper: None, owner, rows, writes, created };
    for (&s, l) in &sim.live {
        while let Some((_, lower, owner)) = rest.next_if(|k| k.0 <= s) {
            ranges.push(grown(lower, owner, 0, 0, 0));
        }
        ranges.push(grown(l.lower.clone(), l.owner, l.rows, l.writes, l.created));
    }
    ranges.extend(rest.map(|(_, lower, owner)| grown(lower, owner, 0, 0, 0)));
    let uppers: Vec<Option<Boundary>> = ranges.iter().skip(1).map(|r| r.lower.clone()).chain([None]).collect();
    for (i, (r, upper)) in ranges.iter_mut().zip(uppers).enumerate() {
        (r.index, r.upper) = (i, upper);
    }
    let end = final_layout(&start, &ranges);
    Ok(RangeGrowth {
        settings: *settings,
        sample_every: every,
        start,
        end,
        arrivals: n as u64,
        splits: sim.splits,
        moves: sim.moves,
        ranges,
        node_rows: sim.node_rows,
        node_writes: sim.node_writes,
        samples,
    })
}

/// The layout the final ranges make, as a scheme of the starting kind.
fn final_layout(start: &RangeLayout, ranges: &[GrownRange]) -> RangeLayout {
    let owners: Vec<NodeId> = ranges.iter().map(|r| r.owner).collect();
    let nodes = start.nodes().to_vec();
    match start {
        RangeLayout::Keys(_) => {
            let bounds = ranges.iter().filter_map(|r| match &r.lower {
                Some(Boundary::Key(k)) => Some(k.clone()),
                _ => None,
            });
            RangeLayout::Keys(KeyRanges::from_parts(nodes, RangeTable::from_raw(bounds.collect(), owners)))
        }
        RangeLayout::Hashes(h) => {
            let bounds = ranges.iter().filter_map(|r| match r.lower {
                Some(Boundary::Hash(x)) => Some(x),
                _ => None,
            });
            let table = RangeTable::from_raw(bounds.collect(), owners);
            RangeLayout::Hashes(HashRanges::from_parts(nodes, h.width(), table))
        }
    }
}
