//! Bounded loads beside the plain ring: what a cap on the busiest node buys,
//! and what it costs in keys moved.
//!
//! [`BoundedLoads::measure`] grows a cluster from `from` to `to` nodes once with
//! the plain ring and once with a bounded-loads ring ([`Bounded`]) for each
//! ε, for each number of points per node. Each row keeps the cap
//! ⌈(1 + ε)·m/n⌉ after the growth, the busiest node, the keys moved and the
//! churn (movers between two old nodes).
//!
//! ```
//! use reshard::analysis::BoundedLoads;
//! use reshard::prelude::*;
//! let keys = KeySet::plain(10_000).hashed(HashWidth::Bits128)?;
//! let b = BoundedLoads::measure(&keys, 10, 11, &[1], &[0.05])?;
//! let (plain, tight) = (b.row(1, None).unwrap(), b.row(1, Some(0.05)).unwrap());
//! assert_eq!(tight.cap, Some(955)); // ⌈1.05 · 10,000 / 11⌉
//! assert!(tight.busiest <= 955 && plain.busiest > 955);
//! assert_eq!(plain.between_kept, 0); // the plain ring has no churn
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::{resized, LoadReport, Movement};
use crate::keys::HashedKeys;
use crate::limits::product as limits_product;
use crate::schemes::{Bounded, Placement, Ring};
use crate::Result;

/// One row of [`BoundedLoads`]: a ring with `points` per node, plain
/// (`epsilon` `None`) or bounded, grown from `from` to `to` nodes.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct BoundedRow {
    /// Points per node.
    pub points: usize,
    /// ε of the cap, or `None` for the plain ring.
    pub epsilon: Option<f64>,
    /// The cap ⌈(1 + ε)·m/n⌉ after the growth (`None` for the plain ring).
    pub cap: Option<u64>,
    /// Keys on the busiest node after the growth.
    pub busiest: u64,
    /// `busiest` over the mean load after the growth.
    pub max_over_mean: f64,
    /// Keys whose node changed.
    pub moved: u64,
    /// Movers between two old nodes (churn).
    pub between_kept: u64,
    /// Keys placed.
    pub keys: u64,
}

impl BoundedRow {
    /// `moved` over the key count.
    pub fn share(&self) -> f64 {
        self.moved as f64 / self.keys.max(1) as f64
    }
}

/// The plain ring and bounded loads, grown from `from` to `to` nodes: see the
/// [module docs](self).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct BoundedLoads {
    pub(crate) from: usize,
    pub(crate) to: usize,
    pub(crate) rows: Vec<BoundedRow>,
}

impl BoundedLoads {
    /// For each count in `points`: the plain ring, then bounded loads for each
    /// ε in `epsilons`, nodes `"0"` … grown from `from` to `to`.
    ///
    /// Fails like [`Ring::new`], [`Ring::with_vnodes`] and
    /// [`Bounded::with_epsilon`] do (0 nodes, 0 points per node, ε ≤ 0).
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::analysis::BoundedLoads;
    /// use reshard::prelude::*;
    /// let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128)?;
    /// let b = BoundedLoads::measure(&keys, 4, 5, &[10], &[0.5])?;
    /// let (plain, bounded) = (&b.rows()[0], &b.rows()[1]); // the plain ring, then ε = 0.5
    /// // the plain row is the 10-point ring grown 4 → 5, as Movement measures it
    /// let m = Movement::measure(&keys, &Ring::new(4)?.with_vnodes(10)?, &Ring::new(5)?.with_vnodes(10)?)?;
    /// assert_eq!((plain.moved, plain.between_kept, plain.cap), (m.moved(), 0, None));
    /// assert_eq!(bounded.cap, Some(300)); // ⌈(1 + 0.5) · 1,000 / 5⌉
    /// assert!(bounded.busiest <= 300);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure(keys: &HashedKeys, from: usize, to: usize, points: &[usize], epsilons: &[f64]) -> Result<Self> {
        let rings = epsilons.len() as u128 + 1;
        crate::limits::check_hint(
            "key placements (keys × 2 × point counts × (ε values + 1))",
            limits_product(keys.len(), 2 * points.len()).saturating_mul(rings),
            crate::limits::current().max_placements,
            "use fewer keys, point counts or ε values",
        )?;
        // each row hashes the points of its ring before and after
        let hashed: u128 = points.iter().map(|&v| limits_product(v, from.saturating_add(to))).sum();
        crate::limits::check_hint(
            "ring points hashed (points per node × nodes before and after, for every row)",
            hashed.saturating_mul(rings),
            crate::limits::current().max_hashes,
            "use fewer nodes, point counts or ε values",
        )?;
        let mut rows = Vec::new();
        for &v in points {
            let ring = Ring::new(from)?.with_vnodes(v)?;
            rows.push(grow(keys, &ring, (from, to), v, None, |_| None)?);
            for &e in epsilons {
                let b = Bounded::new(from)?.with_vnodes(v)?.with_epsilon(e)?;
                rows.push(grow(keys, &b, (from, to), v, Some(e), |g| Some(g.capacity(keys.len())))?);
            }
        }
        Ok(BoundedLoads { from, to, rows })
    }

    /// Every row, in the order run made them.
    pub fn rows(&self) -> &[BoundedRow] {
        &self.rows
    }

    /// The row for `points` per node and `epsilon` (`None`: the plain ring).
    pub fn row(&self, points: usize, epsilon: Option<f64>) -> Option<&BoundedRow> {
        self.rows.iter().find(|r| r.points == points && r.epsilon == epsilon)
    }

    /// Nodes before and after.
    pub fn nodes(&self) -> (usize, usize) {
        (self.from, self.to)
    }
}

/// One row: `before` grown from `from` to `to` nodes; `cap` reads the grown
/// placement's cap, if it has one.
fn grow<P: Placement + Clone>(
    keys: &HashedKeys,
    before: &P,
    (from, to): (usize, usize),
    points: usize,
    epsilon: Option<f64>,
    cap: impl Fn(&P) -> Option<u64>,
) -> Result<BoundedRow> {
    let after = resized(before, from, to)?;
    let (m, load) = (Movement::measure(keys, before, &after)?, LoadReport::measure(keys, &after)?);
    Ok(BoundedRow {
        points,
        epsilon,
        cap: cap(&after),
        busiest: load.max(),
        max_over_mean: load.max_over_mean(),
        moved: m.moved(),
        between_kept: m.between_kept(),
        keys: m.keys(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schemes::NodeId;
    use crate::{HashWidth, KeySet};

    /// Keys moved (by node name) and the busiest node's keys, growing `before` from 4 to 5 nodes.
    fn by_hand<P: Placement + Clone>(before: &P, keys: &HashedKeys) -> (u64, u64) {
        let after = resized(before, 4, 5).unwrap();
        let (old, new) = (before.assign(keys), after.assign(keys));
        let name = |p: &P, n: &NodeId| p.nodes()[*n as usize].clone();
        let moved = old.iter().zip(&new).filter(|(a, b)| name(before, a) != name(&after, b)).count();
        let mut load = vec![0u64; after.nodes().len()];
        for &n in &new {
            load[n as usize] += 1;
        }
        (moved as u64, *load.iter().max().unwrap())
    }

    #[test]
    fn each_row_is_what_the_schemes_give_by_hand() {
        let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128).unwrap();
        let b = BoundedLoads::measure(&keys, 4, 5, &[1, 20], &[0.1, 0.5]).unwrap();
        assert_eq!(b.rows().len(), 6);
        for r in b.rows() {
            let (moved, busiest) = match r.epsilon {
                None => by_hand(&Ring::new(4).unwrap().with_vnodes(r.points).unwrap(), &keys),
                Some(e) => {
                    by_hand(&Bounded::new(4).unwrap().with_vnodes(r.points).unwrap().with_epsilon(e).unwrap(), &keys)
                }
            };
            assert_eq!((r.moved, r.busiest), (moved, busiest));
            if let Some(e) = r.epsilon {
                let cap = ((1.0 + e) * 5_000.0 / 5.0_f64).ceil() as u64;
                assert_eq!(r.cap, Some(cap));
                assert!(r.busiest <= cap);
            }
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        let keys = KeySet::plain(100).hashed(HashWidth::Bits128).unwrap();
        assert!(BoundedLoads::measure(&keys, 0, 1, &[1], &[0.1]).is_err());
        assert!(BoundedLoads::measure(&keys, 3, 4, &[0], &[0.1]).is_err());
        assert!(BoundedLoads::measure(&keys, 3, 4, &[1], &[0.0]).is_err());
    }
}
