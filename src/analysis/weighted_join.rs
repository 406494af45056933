//! Nodes join a weighted rendezvous placement: how the keys spread over
//! the nodes, and how many move, at each weight the newcomers might get.
//!
//! [`WeightedJoin::measure`] places one key set on a (weighted)
//! [`Rendezvous`] placement, then again after nodes join it, once for each
//! weight of a list (every joining node gets that weight). Each (key, node)
//! pair is hashed once for the whole list, so a grid of weights costs about
//! what one [`Movement::measure`](crate::Movement::measure) does; the counts
//! are those `Movement::measure` gives for each weight.
//!
//! ```
//! use reshard::analysis::WeightedJoin;
//! use reshard::prelude::*;
//! let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128)?;
//! let three = Rendezvous::new(3)?.with_weights([1.0, 1.0, 2.0])?;
//! let join = WeightedJoin::measure(&keys, &three, &["3".to_string()], &[1.0, 4.0])?;
//! let heavy = join.row(4.0).expect("measured");
//! // node "3" wins about 4/8 of the keys, every one of them a key that moved
//! assert!((heavy.share(3) - 0.5).abs() < 0.02);
//! assert_eq!(heavy.moved, heavy.counts[3]);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::schemes::{Placement, Rendezvous};
use crate::{Error, Result};

/// One weight of a [`WeightedJoin`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct WeightedJoinRow {
    /// The weight of each joining node.
    pub weight: f64,
    /// The weight of every node after the join, in node order.
    pub weights: Vec<f64>,
    /// The keys on each node after the join (the old nodes, then the new).
    pub counts: Vec<u64>,
    /// The keys that changed node.
    pub moved: u64,
    /// How many keys were placed.
    pub keys: u64,
}

impl WeightedJoinRow {
    /// The share of the keys node `i` (after the join) holds; 0 for no such node.
    pub fn share(&self, i: usize) -> f64 {
        self.counts.get(i).map_or(0.0, |&c| c as f64 / self.keys.max(1) as f64)
    }

    /// The share of the keys that changed node.
    pub fn moved_share(&self) -> f64 {
        self.moved as f64 / self.keys.max(1) as f64
    }

    /// Node `i`'s share of the weight, `wᵢ / Σw` (after the join).
    pub fn weight_share(&self, i: usize) -> f64 {
        let total: f64 = self.weights.iter().sum();
        self.weights.get(i).map_or(0.0, |w| w / total)
    }
}

/// A weighted rendezvous placement before and after nodes join, at several
/// weights of the joining nodes: see the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WeightedJoin {
    pub(crate) nodes: Vec<String>,
    pub(crate) added: usize,
    pub(crate) before: Vec<u64>,
    pub(crate) rows: Vec<WeightedJoinRow>,
}

impl WeightedJoin {
    /// Places `keys` on `before`, then on `before` with the nodes `added`
    /// joined, once per weight of `weights` (each joining node gets that
    /// weight; an unweighted `before` counts as every node of weight 1).
    /// The weights are measured in increasing order, each once.
    ///
    /// Fails on no added node, a name `before` already has
    /// ([`Error::DuplicateNode`]), no weight or one that is not finite and
    /// > 0 ([`Error::BadWeight`]), no keys, or work over the crate's limits.
    pub fn measure(keys: &HashedKeys, before: &Rendezvous, added: &[String], weights: &[f64]) -> Result<Self> {
        if keys.is_empty() {
            return Err(Error::NoKeys);
        }
        let mut grid = weights.to_vec();
        grid.sort_by(f64::total_cmp);
        grid.dedup();
        let (counts_before, counts) = before.join_counts(keys, added, &grid)?;
        let old: Vec<f64> = before.weights().map_or_else(|| vec![1.0; before.nodes().len()], <[f64]>::to_vec);
        let rows = grid
            .iter()
            .zip(counts)
            .map(|(&weight, c)| WeightedJoinRow {
                weight,
                weights: old.iter().copied().chain(added.iter().map(|_| weight)).collect(),
                counts: c.after,
                moved: c.moved,
                keys: keys.len() as u64,
            })
            .collect();
        let nodes = before.nodes().iter().chain(added).cloned().collect();
        Ok(WeightedJoin { nodes, added: added.len(), before: counts_before, rows })
    }

    /// Every node after the join: the old ones, then the added ones.
    pub fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// How many nodes joined.
    pub fn added(&self) -> usize {
        self.added
    }

    /// The keys on each old node before the join.
    pub fn before(&self) -> &[u64] {
        &self.before
    }

    /// One row per weight, in increasing order.
    pub fn rows(&self) -> &[WeightedJoinRow] {
        &self.rows
    }

    /// The row of weight `weight`, if it was measured.
    pub fn row(&self, weight: f64) -> Option<&WeightedJoinRow> {
        self.rows.iter().find(|r| r.weight == weight)
    }
}
