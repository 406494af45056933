//! Sweeps: the same experiment over many arrangements or parameters.
//!
//! One set of node names is one arrangement of points on the ring, and one
//! arrangement can be lucky. [`ArrangementSweep`] repeats a ring change over
//! salted arrangements (document `000` salts point names with `"{s}:"`,
//! `s = 0..30`) and reports the spread of the share moved and of the load.
//! [`ModuloSweep`] sets the measured `hash % N` share beside the
//! `min/lcm` rule and the `1/(N+1)` floor.
//!
//! ```
//! use reshard::{letters, ArrangementSweep, HashWidth, KeySet};
//! let keys = KeySet::users(100_000).hashed(HashWidth::Bits32)?;
//! let s = ArrangementSweep::measure(&keys, &letters("ABC"), &letters("ABCD"), 150, 30)?;
//! assert_eq!(format!("{:.1}%–{:.1}%", 100.0 * s.min_share(), 100.0 * s.max_share()), "21.5%–28.2%");
//! assert_eq!((s.smallest_node(), s.largest_node()), (21_055, 29_917));
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! A sweep never builds per-key owner lists: keys sorted by hash once and
//! each pair of rings' sorted points are walked together, counting the
//! movers and the loads in one pass per arrangement, arrangements on all
//! cores.

use crate::analysis::modulo::modulo_rule;
use crate::keys::HashedKeys;
use crate::schemes::ring::{node_points, sort_points, Ring, Sorted};
use crate::schemes::NodeId;
use crate::{limits, Error, HashWidth, Result};
use rayon::prelude::*;

/// One arrangement of a sweep.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Arrangement {
    /// The salt in front of every point name.
    pub salt: String,
    /// Share of keys that moved from the old ring to the new.
    pub moved_share: f64,
    /// Keys that moved.
    pub moved: u64,
    /// Fewest keys on one node of the new ring.
    pub min_load: u64,
    /// Most keys on one node of the new ring.
    pub max_load: u64,
}

/// A ring change repeated over salted arrangements.
///
/// With the `serde` feature it serializes as `vnodes`, `old_nodes`,
/// `new_nodes`, the summary (`min_share`, `max_share`, `mean_share`,
/// `std_dev_share`, `ideal_share`, `smallest_node`, `largest_node`) and
/// `rows`, one [`Arrangement`] each.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrangementSweep {
    pub(crate) vnodes: usize,
    pub(crate) old_nodes: Vec<String>,
    pub(crate) new_nodes: Vec<String>,
    pub(crate) rows: Vec<Arrangement>,
}

/// The salt of arrangement `s` as document `000` writes it: `"{s}:"`.
pub fn salt(s: usize) -> String {
    format!("{s}:")
}

/// Refuse, before any work, a sweep over the crate's limits or with bad
/// parameters.
fn check_sweep(keys: &HashedKeys, old: &[String], new: &[String], vnodes: usize, count: usize) -> Result<()> {
    ArrangementSweep::check_cost(keys.len(), old.len(), new.len(), vnodes, count)
}

impl ArrangementSweep {
    /// Refuse, before any key is hashed, a sweep of `keys` keys from `old`
    /// to `new` nodes that [`measure`](ArrangementSweep::measure) would refuse
    /// (0 arrangements, or over the crate's limits; the nodes are counted
    /// as if none were shared).
    pub fn check_cost(keys: usize, old: usize, new: usize, vnodes: usize, count: usize) -> Result<()> {
        if count == 0 {
            return Err(Error::OutOfRange {
                what: "arrangements",
                given: "0".into(),
                allowed: "a count of at least 1 (document 000 uses 30)".into(),
            });
        }
        limits::check_hint(
            "key placements (keys × arrangements × 2 rings)",
            limits::product(keys, count).saturating_mul(2),
            limits::current().max_placements,
            "use fewer keys or fewer arrangements",
        )?;
        limits::check_hint(
            "ring points hashed (nodes before and after × vnodes × arrangements)",
            limits::product(old + new, vnodes).saturating_mul(count as u128),
            limits::current().max_hashes,
            "use fewer arrangements, nodes or points per node",
        )
    }
}

/// Keys (ascending hashes) against two rings at once: how many change
/// node (by name: `same[j]` is the old index of new node `j`) and how many
/// each new node holds.
fn walk<H: Ord + Copy>(
    sorted: &[u128],
    reduce: impl Fn(u128) -> H,
    old: &Sorted<H>,
    new: &Sorted<H>,
    same: &[NodeId],
) -> (u64, Vec<u64>) {
    let (mut i, mut j) = (0, 0);
    let mut moved = 0u64;
    let mut load = vec![0u64; same.len()];
    for &h in sorted {
        let h = reduce(h);
        while i < old.hashes.len() && old.hashes[i] < h {
            i += 1;
        }
        while j < new.hashes.len() && new.hashes[j] < h {
            j += 1;
        }
        let a = old.nodes[if i == old.hashes.len() { 0 } else { i }];
        let b = new.nodes[if j == new.hashes.len() { 0 } else { j }];
        moved += u64::from(same[b as usize] != a);
        load[b as usize] += 1;
    }
    (moved, load)
}

impl ArrangementSweep {
    /// Old ring → new ring, `vnodes` points per node, over the
    /// arrangements with salts `"0:"` … `"{count-1}:"`. Loads are measured
    /// on the new ring.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::prelude::*;
    /// use reshard::ArrangementSweep;
    /// let keys = KeySet::users(2_000).hashed(HashWidth::Bits32)?;
    /// let (abc, abcd) = (letters("ABC"), letters("ABCD"));
    /// let s = ArrangementSweep::measure(&keys, &abc, &abcd, 10, 3)?;
    /// // arrangement 1 is the rings salted "1:", measured one at a time
    /// let old = Ring::named(abc)?.with_vnodes(10)?.with_salt("1:")?;
    /// let new = Ring::named(abcd)?.with_vnodes(10)?.with_salt("1:")?;
    /// let (m, load) = (Movement::measure(&keys, &old, &new)?, LoadReport::measure(&keys, &new)?);
    /// let row = &s.rows()[1];
    /// assert_eq!((row.salt.as_str(), row.moved, row.min_load, row.max_load), ("1:", m.moved(), load.min(), load.max()));
    /// assert_eq!(m.between_kept(), 0); // a ring that grows moves keys to the new node only
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure(
        keys: &HashedKeys,
        old_nodes: &[String],
        new_nodes: &[String],
        vnodes: usize,
        count: usize,
    ) -> Result<Self> {
        check_sweep(keys, old_nodes, new_nodes, vnodes, count)?;
        ArrangementSweep::measure_salted(keys, old_nodes, new_nodes, vnodes, (0..count).map(salt).collect())
    }

    /// The same over any list of salts.
    pub fn measure_salted(
        keys: &HashedKeys,
        old_nodes: &[String],
        new_nodes: &[String],
        vnodes: usize,
        salts: Vec<String>,
    ) -> Result<Self> {
        check_sweep(keys, old_nodes, new_nodes, vnodes, salts.len())?;
        // hashing the points costs more with long salts or names
        let longest = old_nodes.iter().chain(new_nodes).map(String::len).max().unwrap_or(0);
        let blocks: u128 =
            salts.iter().map(|s| limits::md5_blocks(s.len().saturating_add(longest).saturating_add(21))).sum();
        limits::check_hint(
            "md5 blocks to hash the rings' points (points × blocks, every salt)",
            limits::product(old_nodes.len() + new_nodes.len(), vnodes).saturating_mul(blocks),
            limits::current().max_hashes,
            "use shorter salts or names, fewer salts, or fewer points",
        )?;
        // the same checks a ring makes, before the parallel part
        Ring::named(old_nodes.iter().cloned())?.with_vnodes(vnodes)?;
        Ring::named(new_nodes.iter().cloned())?.with_vnodes(vnodes)?;
        // new node index -> old node index of the same name
        let same: Vec<NodeId> = new_nodes
            .iter()
            .map(|n| old_nodes.iter().position(|o| o == n).map_or(NodeId::MAX, |i| i as NodeId))
            .collect();
        // every name once: the nodes before, then those only after
        let union: Vec<&String> = old_nodes.iter().chain(new_nodes.iter().filter(|n| !old_nodes.contains(n))).collect();
        let index = |n: &String| union.iter().position(|u| *u == n).unwrap_or(0);
        let (old_at, new_at): (Vec<usize>, Vec<usize>) =
            (old_nodes.iter().map(index).collect(), new_nodes.iter().map(index).collect());
        let width = keys.width();
        let sorted = keys.sorted_hashes();
        let rows = salts
            .into_par_iter()
            .map(|salt| {
                // each name's points hashed once, for both rings
                let points: Vec<Vec<u128>> = union.iter().map(|n| node_points(&salt, n, vnodes)).collect();
                let (a, b): (Vec<&Vec<u128>>, Vec<&Vec<u128>>) =
                    (old_at.iter().map(|&i| &points[i]).collect(), new_at.iter().map(|&i| &points[i]).collect());
                let (moved, load) = match width {
                    HashWidth::Bits32 => {
                        let r = |h: u128| h as u32;
                        walk(sorted, r, &sort_points(old_nodes, &a, r), &sort_points(new_nodes, &b, r), &same)
                    }
                    HashWidth::Bits128 => {
                        let r = |h: u128| h;
                        walk(sorted, r, &sort_points(old_nodes, &a, r), &sort_points(new_nodes, &b, r), &same)
                    }
                };
                Arrangement {
                    salt,
                    moved_share: moved as f64 / keys.len() as f64,
                    moved,
                    min_load: load.iter().copied().min().unwrap_or(0),
                    max_load: load.iter().copied().max().unwrap_or(0),
                }
            })
            .collect();
        Ok(ArrangementSweep { vnodes, old_nodes: old_nodes.to_vec(), new_nodes: new_nodes.to_vec(), rows })
    }

    /// Points per node.
    pub fn vnodes(&self) -> usize {
        self.vnodes
    }

    /// One row per arrangement, in salt order.
    pub fn rows(&self) -> &[Arrangement] {
        &self.rows
    }

    /// The smallest share moved over all arrangements.
    pub fn min_share(&self) -> f64 {
        self.rows.iter().map(|r| r.moved_share).fold(f64::INFINITY, f64::min)
    }

    /// The largest share moved over all arrangements.
    pub fn max_share(&self) -> f64 {
        self.rows.iter().map(|r| r.moved_share).fold(f64::NEG_INFINITY, f64::max)
    }

    /// The mean share moved.
    pub fn mean_share(&self) -> f64 {
        self.rows.iter().map(|r| r.moved_share).sum::<f64>() / self.rows.len() as f64
    }

    /// Standard deviation of the share moved over the arrangements.
    pub fn std_dev_share(&self) -> f64 {
        let m = self.mean_share();
        (self.rows.iter().map(|r| (r.moved_share - m).powi(2)).sum::<f64>() / self.rows.len() as f64).sqrt()
    }

    /// The fewest keys any node held in any arrangement.
    pub fn smallest_node(&self) -> u64 {
        self.rows.iter().map(|r| r.min_load).min().unwrap_or(0)
    }

    /// The most keys any node held in any arrangement.
    pub fn largest_node(&self) -> u64 {
        self.rows.iter().map(|r| r.max_load).max().unwrap_or(0)
    }

    /// The ideal share: what one added node should take, `1/N_new` for
    /// one node added.
    pub fn ideal_share(&self) -> f64 {
        let added = self.new_nodes.iter().filter(|n| !self.old_nodes.contains(n)).count();
        added as f64 / self.new_nodes.len() as f64
    }
}

/// Arrangement sweeps over several vnode counts.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct VnodeSweep {
    pub(crate) sweeps: Vec<ArrangementSweep>,
}

impl VnodeSweep {
    /// One [`ArrangementSweep`] per vnode count.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{letters, ArrangementSweep, HashWidth, KeySet, VnodeSweep};
    /// let keys = KeySet::users(2_000).hashed(HashWidth::Bits32)?;
    /// let (abc, abcd) = (letters("ABC"), letters("ABCD"));
    /// let v = VnodeSweep::measure(&keys, &abc, &abcd, &[1, 10], 2)?;
    /// assert_eq!(v.sweeps().iter().map(|s| s.vnodes()).collect::<Vec<_>>(), [1, 10]);
    /// assert_eq!(v.sweeps()[1], ArrangementSweep::measure(&keys, &abc, &abcd, 10, 2)?);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure(
        keys: &HashedKeys,
        old_nodes: &[String],
        new_nodes: &[String],
        vnodes: &[usize],
        count: usize,
    ) -> Result<Self> {
        for &v in vnodes {
            check_sweep(keys, old_nodes, new_nodes, v, count)?;
        }
        let sweeps = vnodes
            .iter()
            .map(|&v| ArrangementSweep::measure(keys, old_nodes, new_nodes, v, count))
            .collect::<Result<Vec<_>>>()?;
        Ok(VnodeSweep { sweeps })
    }

    /// The same over any list of salts (one arrangement per salt).
    pub fn measure_salted(
        keys: &HashedKeys,
        old_nodes: &[String],
        new_nodes: &[String],
        vnodes: &[usize],
        salts: Vec<String>,
    ) -> Result<Self> {
        let sweeps = vnodes
            .iter()
            .map(|&v| ArrangementSweep::measure_salted(keys, old_nodes, new_nodes, v, salts.clone()))
            .collect::<Result<Vec<_>>>()?;
        Ok(VnodeSweep { sweeps })
    }

    /// Put together sweeps already run.
    pub fn from_sweeps(sweeps: Vec<ArrangementSweep>) -> Self {
        VnodeSweep { sweeps }
    }

    /// The sweeps, in the order of the vnode counts given.
    pub fn sweeps(&self) -> &[ArrangementSweep] {
        &self.sweeps
    }
}

/// One `hash % N` change, measured and predicted.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct ModuloRow {
    /// Nodes before.
    pub old: usize,
    /// Nodes after.
    pub new: usize,
    /// Keys moved.
    pub moved: u64,
    /// Measured share moved.
    pub measured: f64,
    /// `1 − min/lcm`, the rule.
    pub rule: f64,
    /// `1 − 1/old`, the formula a lesson used (it does not fit).
    pub lesson: f64,
    /// The least any scheme must move: `|new − old| / max(old, new)`.
    pub floor: f64,
}

/// Keys whose `h % old` and `h % new` differ, on all cores.
fn moved_modulo(hashes: &[u128], old: usize, new: usize) -> u64 {
    let (o, n) = (old as u128, new as u128);
    hashes.par_chunks(1 << 14).map(|c| c.iter().filter(|&&h| h % o != h % n).count() as u64).sum()
}

/// `hash % N` over several (old, new) node counts.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ModuloSweep {
    pub(crate) rows: Vec<ModuloRow>,
}

impl ModuloSweep {
    /// Measure each `(old, new)` pair on the same keys.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, KeySet, ModuloSweep};
    /// let keys = KeySet::plain(2_000).hashed(HashWidth::Bits128)?;
    /// let s = ModuloSweep::measure(&keys, &[(3, 4), (4, 8)])?;
    /// // the rule 1 − min/lcm: 1 − 3/12 and 1 − 4/8
    /// assert_eq!((s.rows()[0].rule, s.rows()[1].rule), (0.75, 0.5));
    /// // the keys moved, counted by hand
    /// let moved = |a: u128, b: u128| keys.hashes().iter().filter(|&&h| h % a != h % b).count() as u64;
    /// assert_eq!((s.rows()[0].moved, s.rows()[1].moved), (moved(3, 4), moved(4, 8)));
    /// assert_eq!(s.rows()[1].floor, 0.5); // |8 − 4| / 8
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure(keys: &HashedKeys, pairs: &[(usize, usize)]) -> Result<Self> {
        for &(old, new) in pairs {
            if old == 0 || new == 0 {
                return Err(Error::NoNodes);
            }
        }
        ModuloSweep::check_cost(keys.len(), pairs.len())?;
        let rows = pairs
            .iter()
            .map(|&(old, new)| {
                let moved = moved_modulo(keys.hashes(), old, new);
                Ok(ModuloRow {
                    old,
                    new,
                    moved,
                    measured: moved as f64 / keys.len() as f64,
                    rule: modulo_rule(old, new)?,
                    lesson: 1.0 - 1.0 / old as f64,
                    floor: old.abs_diff(new) as f64 / old.max(new) as f64,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ModuloSweep { rows })
    }

    /// Refuse, before any key is hashed, a sweep of `keys` keys over
    /// `pairs` node-count pairs that [`measure`](ModuloSweep::measure) would refuse
    /// as over the crate's limits.
    pub fn check_cost(keys: usize, pairs: usize) -> Result<()> {
        limits::check_hint(
            "key placements (keys × node-count pairs)",
            limits::product(keys, pairs),
            limits::current().max_placements,
            "use fewer keys or fewer pairs",
        )
    }

    /// The rows, in the order given.
    pub fn rows(&self) -> &[ModuloRow] {
        &self.rows
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for ArrangementSweep {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("ArrangementSweep", 11)?;
        m.serialize_field("vnodes", &self.vnodes)?;
        m.serialize_field("old_nodes", &self.old_nodes)?;
        m.serialize_field("new_nodes", &self.new_nodes)?;
        m.serialize_field("min_share", &self.min_share())?;
        m.serialize_field("max_share", &self.max_share())?;
        m.serialize_field("mean_share", &self.mean_share())?;
        m.serialize_field("std_dev_share", &self.std_dev_share())?;
        m.serialize_field("ideal_share", &self.ideal_share())?;
        m.serialize_field("smallest_node", &self.smallest_node())?;
        m.serialize_field("largest_node", &self.largest_node())?;
        m.serialize_field("rows", &self.rows)?;
        m.end()
    }
}
