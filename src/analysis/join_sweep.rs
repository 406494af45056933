//! One node joins clusters of every size: each node's keys after the join
//! and the keys moved, on a ring (at several numbers of points per node)
//! and under `hash % N`.
//!
//! [`JoinSweep::measure`] takes node names `A, B, C, …` and, for each
//! cluster size N from 1 to one less than the names, grows the first N
//! names to the first N + 1: on the unsalted ring
//! [`Ring::named`](crate::Ring::named) builds, once per points-per-node
//! value, and under `hash % N` (node i of `hash % N` is the i-th name).
//! Each ring is placed once and serves as the "after" of N − 1 and the
//! "before" of N, so the counts are [`Movement::measure`](crate::Movement::measure)'s
//! for the same two rings.
//!
//! ```
//! use reshard::analysis::JoinSweep;
//! use reshard::prelude::*;
//! let keys = KeySet::users(100_000).hashed(HashWidth::Bits32)?;
//! let s = JoinSweep::measure(&keys, &letters("ABCD"), &[1, 150])?;
//! // D joins A, B, C: the article's 28,024 keys (1 point) and 25,347 (150 points)
//! assert_eq!(s.row(3, 1).unwrap().ring_moved, 28_024);
//! assert_eq!(s.row(3, 150).unwrap().ring_moved, 25_347);
//! assert_eq!(s.row(3, 150).unwrap().ring_after, [25_136, 24_419, 25_098, 25_347]);
//! assert_eq!(s.row(3, 150).unwrap().modulo_moved, 74_961); // hash % N, 3 → 4
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::schemes::{Modulo, NodeId, Placement, Ring};
use crate::{limits, Error, Result};
use rayon::prelude::*;

/// One cluster size and points-per-node value of a [`JoinSweep`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct JoinRow {
    /// N, the nodes before one joins.
    pub nodes: usize,
    /// Points per node on the ring.
    pub vnodes: usize,
    /// The keys on each of the N + 1 nodes of the ring after the join.
    pub ring_after: Vec<u64>,
    /// Keys the ring moved.
    pub ring_moved: u64,
    /// The keys on each of the N + 1 nodes under `hash % (N + 1)`.
    pub modulo_after: Vec<u64>,
    /// Keys `hash % N` moved (N → N + 1).
    pub modulo_moved: u64,
    /// How many keys were placed.
    pub keys: u64,
}

impl JoinRow {
    fn of(&self, count: u64) -> f64 {
        count as f64 / self.keys.max(1) as f64
    }

    /// The share of the keys the ring moved.
    pub fn ring_share(&self) -> f64 {
        self.of(self.ring_moved)
    }

    /// The share of the keys `hash % N` moved.
    pub fn modulo_share(&self) -> f64 {
        self.of(self.modulo_moved)
    }

    /// Node `i`'s share of the keys on the ring after the join (0 for no such node).
    pub fn ring_node_share(&self, i: usize) -> f64 {
        self.ring_after.get(i).map_or(0.0, |&c| self.of(c))
    }

    /// Node `i`'s share of the keys under `hash % (N + 1)` (0 for no such node).
    pub fn modulo_node_share(&self, i: usize) -> f64 {
        self.modulo_after.get(i).map_or(0.0, |&c| self.of(c))
    }

    /// The floor, `1 / (N + 1)`: what a scheme that ends balanced must move.
    pub fn floor(&self) -> f64 {
        1.0 / (self.nodes + 1) as f64
    }
}

/// One node joining clusters of 1 … n − 1 nodes, on rings and under
/// `hash % N`: see the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct JoinSweep {
    pub(crate) names: Vec<String>,
    pub(crate) points: Vec<usize>,
    pub(crate) rows: Vec<JoinRow>,
}

/// Keys per node (of `nodes`) and, against `before`, how many changed node.
fn counts(after: &[NodeId], nodes: usize, before: Option<&[NodeId]>) -> (Vec<u64>, u64) {
    let mut load = vec![0u64; nodes];
    for &a in after {
        load[a as usize] += 1;
    }
    let moved = before.map_or(0, |b| b.iter().zip(after).filter(|(x, y)| x != y).count() as u64);
    (load, moved)
}

impl JoinSweep {
    /// For N = 1 … `names.len()` − 1 and each value of `points` (points per
    /// node, measured in increasing order, each once): the first N names
    /// grow to the first N + 1, on a ring and under `hash % N`.
    ///
    /// Fails on fewer than 2 names, no points value, 0 points, a name given
    /// twice, no keys, or work over the crate's limits.
    pub fn measure(keys: &HashedKeys, names: &[String], points: &[usize]) -> Result<Self> {
        if keys.is_empty() {
            return Err(Error::NoKeys);
        }
        if names.len() < 2 {
            return Err(Error::OutOfRange {
                what: "node names for a join sweep",
                given: names.len().to_string(),
                allowed: "at least 2: the first N grow to the first N + 1, for N = 1 … names − 1".into(),
            });
        }
        let mut grid = points.to_vec();
        grid.sort_unstable();
        grid.dedup();
        if grid.is_empty() {
            return Err(Error::OutOfRange {
                what: "points per node to sweep:",
                given: "none".into(),
                allowed: "at least one count of points per node (e.g. [1, 150])".into(),
            });
        }
        let all = names.len();
        limits::check_hint("distinct nodes", all as u128, limits::current().max_nodes, "use fewer names")?;
        limits::check_hint(
            "key placements (keys × (points values + 1) × names)",
            limits::product(keys.len(), grid.len() + 1).saturating_mul(all as u128),
            limits::current().max_placements,
            "use fewer keys, names or points values",
        )?;
        let per_value = (1..=all as u128).sum::<u128>();
        limits::check_hint(
            "ring points hashed (points values × Σ n × points per node)",
            grid.iter().map(|&v| per_value.saturating_mul(v as u128)).fold(0u128, u128::saturating_add),
            limits::current().max_hashes,
            "use fewer names or points per node",
        )?;
        // every ring once (each checks its names and points), then hash % n for n = 1 … all
        let rings = grid
            .iter()
            .flat_map(|&v| (1..=all).map(move |n| (v, n)))
            .map(|(v, n)| Ring::named(names[..n].to_vec())?.with_vnodes(v))
            .collect::<Result<Vec<_>>>()?;
        let placed: Vec<Vec<NodeId>> = rings.par_iter().map(|r| r.assign(keys)).collect();
        let modulo: Vec<Vec<NodeId>> =
            (1..=all).map(|n| Modulo::new(n).map(|m| m.assign(keys))).collect::<Result<Vec<_>>>()?;
        let mut rows = Vec::with_capacity(grid.len() * (all - 1));
        for (g, &vnodes) in grid.iter().enumerate() {
            let ring = &placed[g * all..(g + 1) * all];
            for n in 1..all {
                let (ring_after, ring_moved) = counts(&ring[n], n + 1, Some(&ring[n - 1]));
                let (modulo_after, modulo_moved) = counts(&modulo[n], n + 1, Some(&modulo[n - 1]));
                rows.push(JoinRow {
                    nodes: n,
                    vnodes,
                    ring_after,
                    ring_moved,
                    modulo_after,
                    modulo_moved,
                    keys: keys.len() as u64,
                });
            }
        }
        Ok(JoinSweep { names: names.to_vec(), points: grid, rows })
    }

    /// The node names; N nodes are the first N.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The points-per-node values, in increasing order.
    pub fn points(&self) -> &[usize] {
        &self.points
    }

    /// Every (points per node, N) row: by points per node, then by N.
    pub fn rows(&self) -> &[JoinRow] {
        &self.rows
    }

    /// The row for N = `nodes` before the join at `vnodes` points per node.
    pub fn row(&self, nodes: usize, vnodes: usize) -> Option<&JoinRow> {
        self.rows.iter().find(|r| r.nodes == nodes && r.vnodes == vnodes)
    }
}
