//! Fixed shards at several shard counts S, each grown from one node count
//! to several others: how many shards and keys move, beside the floor, and
//! how far the fullest node sits above the mean afterwards.
//!
//! [`ShardCountSweep::measure`] lays out S shards over `from` nodes `"0"` …
//! (shard `s` on node `s % from`, as [`FixedShards::with_shards`] does) and
//! rebalances that table onto `"0"` … `"{to-1}"` for every `to`, with
//! [`FixedShards::rebalance_to`] (document `004`'s procedure, seeded). A
//! key's shard `h % S` never changes, so the keys that move are exactly the
//! keys of the shards that changed node: the sweep counts the keys per shard
//! once for each S and adds up the moved shards' counts, without placing
//! every key again for every `to`.
//!
//! ```
//! use reshard::analysis::ShardCountSweep;
//! use reshard::prelude::*;
//! let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128)?;
//! let sweep = ShardCountSweep::measure(&keys, 10, &[11, 20], &[20, 1000], 42)?;
//! let few = sweep.row(20, 11).unwrap(); // 20 shards: the new node gets ⌊20/11⌋ = 1
//! assert_eq!(few.moved_shards, 1);
//! let many = sweep.row(1000, 11).unwrap();
//! assert_eq!(many.moved_shards, 90);
//! // The keys of the moved shards are the keys that move:
//! let before = FixedShards::new(10)?.with_shards(1000)?.with_seed(42);
//! let after = before.rebalance_to(numbered(11)?)?;
//! assert_eq!(many.moved, Movement::measure(&keys, &before, &after)?.moved());
//! assert!((many.floor - 1.0 / 11.0).abs() < 1e-12);
//! // 20 shards over 11 nodes: nine nodes serve 2 shards, two serve 1.
//! assert!(few.fullest_excess() > 0.05 && many.fullest_excess() < 0.05);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::limits;
use crate::schemes::{numbered, FixedShards, Placement};
use crate::{Error, Result};

/// One row of [`ShardCountSweep`]: S shards grown from `from` to `to` nodes.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct ShardCountRow {
    /// The shard count S.
    pub shards: usize,
    /// Nodes before.
    pub from: usize,
    /// Nodes after.
    pub to: usize,
    /// Shards whose node changed.
    pub moved_shards: usize,
    /// Keys whose node changed: the keys of the moved shards.
    pub moved: u64,
    /// Keys placed.
    pub keys: u64,
    /// The floor |Δ| ÷ max(from, to): the share any scheme must move.
    pub floor: f64,
    /// Keys on the node that holds the most, after.
    pub fullest: u64,
}

impl ShardCountRow {
    /// `moved` over the key count.
    pub fn share(&self) -> f64 {
        self.moved as f64 / self.keys.max(1) as f64
    }

    /// How far the fullest node sits above the mean keys ÷ `to`, after, as a
    /// share of the mean (0.10 is 10% above).
    pub fn fullest_excess(&self) -> f64 {
        let mean = self.keys as f64 / self.to.max(1) as f64;
        if mean == 0.0 {
            return 0.0;
        }
        self.fullest as f64 / mean - 1.0
    }
}

/// Fixed shards at several shard counts, grown to several node counts: see
/// the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ShardCountSweep {
    pub(crate) from: usize,
    pub(crate) seed: u64,
    pub(crate) rows: Vec<ShardCountRow>,
}

impl ShardCountSweep {
    /// For each shard count in `shards` (ascending, each once) and each node
    /// count in `to` (ascending, each once): S shards laid out over `from`
    /// nodes, rebalanced onto `to` nodes with the shuffles of `seed`.
    ///
    /// Fails on an empty `shards` or `to`, 0 nodes, a shard count of 0 or
    /// below the largest node count ([`Error::MoreNodesThanShards`]: a
    /// table cannot give every node a shard), or over the crate's limits.
    pub fn measure(keys: &HashedKeys, from: usize, to: &[usize], shards: &[usize], seed: u64) -> Result<Self> {
        let (to, shards) = (sorted(to, "node counts after (to)")?, sorted(shards, "shard counts (shards)")?);
        let most_nodes = to.iter().copied().chain([from]).max().unwrap_or(from);
        limits::check_nodes(most_nodes)?;
        for &s in &shards {
            if s == 0 {
                return Err(Error::ZeroShards);
            }
            limits::check("shards", s as u128, limits::current().max_shards)?;
            if s < most_nodes {
                return Err(Error::MoreNodesThanShards { nodes: most_nodes, shards: s });
            }
        }
        // Each shard count reads every key once; each row walks its table once.
        limits::check_hint(
            "key placements (keys × shard counts)",
            limits::product(keys.len(), shards.len()),
            limits::current().max_placements,
            "use fewer keys or shard counts",
        )?;
        let tables: u128 = shards.iter().map(|&s| s as u128).sum::<u128>().saturating_mul(to.len() as u128);
        limits::check_hint(
            "shard table entries rebalanced (shards × node counts)",
            tables,
            limits::current().max_placements,
            "use fewer or smaller shard counts, or fewer node counts",
        )?;
        let mut rows = Vec::with_capacity(shards.len() * to.len());
        for &s in &shards {
            let before = FixedShards::new(from)?.with_shards(s)?.with_seed(seed);
            let per_shard = before.keys_per_shard(keys);
            for &n in &to {
                let after = before.rebalance_to(numbered(n)?)?;
                let moved_list = before.moved_shards_to(&after)?;
                let mut per_node = vec![0u64; after.nodes().len()];
                for (&node, &c) in after.table().iter().zip(&per_shard) {
                    if let Some(sum) = per_node.get_mut(node as usize) {
                        *sum += c;
                    }
                }
                rows.push(ShardCountRow {
                    shards: s,
                    from,
                    to: n,
                    moved_shards: moved_list.len(),
                    moved: moved_list.iter().map(|&i| per_shard[i]).sum(),
                    keys: keys.len() as u64,
                    floor: from.abs_diff(n) as f64 / from.max(n) as f64,
                    fullest: per_node.into_iter().max().unwrap_or(0),
                });
            }
        }
        Ok(ShardCountSweep { from, seed, rows })
    }

    /// Every row: shard counts ascending, and for each the node counts ascending.
    pub fn rows(&self) -> &[ShardCountRow] {
        &self.rows
    }

    /// The row for `shards` shards grown to `to` nodes.
    pub fn row(&self, shards: usize, to: usize) -> Option<&ShardCountRow> {
        self.rows.iter().find(|r| r.shards == shards && r.to == to)
    }

    /// Nodes before.
    pub fn from(&self) -> usize {
        self.from
    }

    /// The seed of the rebalancing shuffles.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The shard counts, ascending.
    pub fn shard_counts(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.rows.iter().map(|r| r.shards).collect();
        v.dedup();
        v
    }

    /// The node counts after, ascending.
    pub fn sizes(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.rows.iter().map(|r| r.to).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// For `shards` shards: the largest distance, in share of the keys,
    /// between the share moved and the floor over every node count (`None`
    /// for a shard count the sweep did not measure).
    pub fn largest_gap(&self, shards: usize) -> Option<f64> {
        self.rows.iter().filter(|r| r.shards == shards).map(|r| (r.share() - r.floor).abs()).reduce(f64::max)
    }
}

/// The values ascending, each once; an empty list is an error naming `what`.
fn sorted(values: &[usize], what: &'static str) -> Result<Vec<usize>> {
    let mut v = values.to_vec();
    v.sort_unstable();
    v.dedup();
    if v.is_empty() {
        return Err(Error::OutOfRange { what, given: "none".into(), allowed: "at least one value".into() });
    }
    Ok(v)
}
