//! Fixed shards: keys map to a fixed number of shards, shards map to nodes.
//!
//! A key's shard is `h % S` and never changes while `S` stays the same.
//! A small shard→node table says who serves each shard; growing the
//! cluster edits only that table, moving whole shards to the new node, so
//! only the keys inside those shards move.
//!
//! Document `004` starts with shard `s` on node `s % 10` and grows to 11
//! nodes by shuffling each old node's shard list with Python's
//! `random.Random(42)` and handing the first 9 of each to node 10;
//! [`FixedShards::rebalance_to`] does exactly that (see [`PyRandom`]).
//!
//! ```
//! use reshard::{FixedShards, HashWidth, KeySet, Movement};
//! let ten = FixedShards::new(1000, 10).unwrap();
//! let eleven = ten.grow_to(11, 42).unwrap();
//! assert_eq!(ten.moved_shards(&eleven).len(), 90);
//! assert_eq!(eleven.shard_counts(), [91, 91, 91, 91, 91, 91, 91, 91, 91, 91, 90]);
//! let keys = KeySet::plain(100_000).hashed(HashWidth::Bits128).unwrap();
//! let m = Movement::measure(&keys, &ten, &eleven).unwrap();
//! assert_eq!(m.to_added(), m.moved()); // only the new node receives keys
//! ```

use crate::placement::{check_names, check_table, index_of, numbered, Key, NodeId, Placement};
use crate::{Error, PyRandom, Result};

/// A fixed number of shards and the node that serves each.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FixedShards {
    nodes: Vec<String>,
    table: Vec<NodeId>,
}

impl FixedShards {
    /// `shards` shards over `nodes` nodes named `"0"` … , shard `s` on node
    /// `s % nodes`.
    pub fn new(shards: usize, nodes: usize) -> Result<Self> {
        FixedShards::with_nodes(shards, numbered(nodes))
    }

    /// `shards` shards over these named nodes, shard `s` on node `s % N`.
    pub fn with_nodes<I, S>(shards: usize, names: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(names)?;
        check_counts(shards, nodes.len())?;
        let n = nodes.len();
        Ok(FixedShards { table: (0..shards).map(|s| (s % n) as NodeId).collect(), nodes })
    }

    /// A table given shard by shard (`table[s]` is the index of the node of
    /// shard `s` in `names`).
    pub fn from_table<I, S>(names: I, table: Vec<NodeId>) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(names)?;
        if table.is_empty() {
            return Err(Error::ZeroShards);
        }
        check_table(&table, nodes.len(), "shard")?;
        Ok(FixedShards { nodes, table })
    }

    /// The number of shards S.
    pub fn shard_count(&self) -> usize {
        self.table.len()
    }

    /// `table()[s]` is the node of shard `s`.
    pub fn table(&self) -> &[NodeId] {
        &self.table
    }

    /// The shard of a key with this hash: `hash % S`.
    #[inline]
    pub fn shard_of(&self, hash: u128) -> usize {
        (hash % self.table.len() as u128) as usize
    }

    /// How many shards each node serves, in node order.
    pub fn shard_counts(&self) -> Vec<usize> {
        let mut c = vec![0; self.nodes.len()];
        for &t in &self.table {
            c[t as usize] += 1;
        }
        c
    }

    /// The shards of node `id`, ascending.
    pub fn shards_of(&self, id: NodeId) -> Vec<usize> {
        (0..self.table.len()).filter(|&s| self.table[s] == id).collect()
    }

    /// How many of `keys` fall in each shard (`h % S`), in shard order.
    pub fn keys_per_shard(&self, keys: &crate::HashedKeys) -> Vec<u64> {
        let mut c = vec![0u64; self.table.len()];
        for &h in keys.hashes() {
            c[self.shard_of(h)] += 1;
        }
        c
    }

    /// The shards whose node (by name) differs between `self` and `other`;
    /// both must have the same shard count, else every shard is listed.
    pub fn moved_shards(&self, other: &FixedShards) -> Vec<usize> {
        if other.table.len() != self.table.len() {
            return (0..self.table.len().max(other.table.len())).collect();
        }
        (0..self.table.len())
            .filter(|&s| {
                self.nodes[self.table[s] as usize] != other.nodes[other.table[s] as usize]
            })
            .collect()
    }

    /// Grow or shrink to `n` nodes named `"0"` … `"{n-1}"` (numbered nodes
    /// above `n` leave, new numbers join), rebalancing evenly with `seed`.
    pub fn grow_to(&self, n: usize, seed: u64) -> Result<FixedShards> {
        let mut names: Vec<String> = self.nodes.iter().take(n).cloned().collect();
        for i in names.len()..n {
            let mut name = i.to_string();
            while names.contains(&name) {
                name.push('\'');
            }
            names.push(name);
        }
        self.rebalance_to(names, seed)
    }

    /// Remove one node; only its shards move. They are taken in the order
    /// of a shuffle with `PyRandom::new(seed)` of its ascending list, each
    /// to the remaining node that then serves the fewest shards (lowest
    /// index on ties). Every other shard stays where it is.
    pub fn remove_node(&self, name: &str, seed: u64) -> Result<FixedShards> {
        let gone = index_of(&self.nodes, name)?;
        if self.nodes.len() == 1 {
            return Err(Error::NoNodes);
        }
        let nodes: Vec<String> = self.nodes.iter().filter(|n| *n != name).cloned().collect();
        let renumber = |id: NodeId| if id > gone { id - 1 } else { id };
        let mut table: Vec<NodeId> = self.table.iter().map(|&t| if t == gone { t } else { renumber(t) }).collect();
        let mut counts = vec![0usize; nodes.len()];
        for (s, &t) in self.table.iter().enumerate() {
            if t != gone {
                counts[table[s] as usize] += 1;
            }
        }
        let mut list = self.shards_of(gone);
        PyRandom::new(seed).shuffle(&mut list);
        for s in list {
            let to = (0..counts.len()).min_by_key(|&i| (counts[i], i)).unwrap_or(0);
            counts[to] += 1;
            table[s] = to as NodeId;
        }
        Ok(FixedShards { nodes, table })
    }

    /// Rebalance onto a new node list (nodes may join and leave) with the
    /// fewest shard moves that leave every node within one shard of even.
    ///
    /// Targets: every node gets `S / N` shards and the `S % N` extra shards
    /// go first to the nodes that already hold the most (lowest index on
    /// ties), so kept nodes lose as little as possible. Shards of leaving
    /// nodes are pooled in ascending order; then each kept node above its
    /// target, in node order, shuffles its ascending shard list with one
    /// generator `PyRandom::new(seed)` and gives the first surplus shards
    /// to the pool. The pool fills the nodes below target in node order.
    pub fn rebalance_to<I, S>(&self, names: I, seed: u64) -> Result<FixedShards>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(names)?;
        let shards = self.table.len();
        check_counts(shards, nodes.len())?;
        // old index -> new index, if kept
        let new_of_old: Vec<Option<NodeId>> = self
            .nodes
            .iter()
            .map(|o| nodes.iter().position(|n| n == o).map(|i| i as NodeId))
            .collect();
        let mut owned: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        let mut pool = Vec::new();
        for (s, &old) in self.table.iter().enumerate() {
            match new_of_old[old as usize] {
                Some(n) => owned[n as usize].push(s),
                None => pool.push(s),
            }
        }
        let m = nodes.len();
        let (base, extra) = (shards / m, shards % m);
        let mut by_load: Vec<usize> = (0..m).collect();
        by_load.sort_by_key(|&i| (std::cmp::Reverse(owned[i].len()), i));
        let mut target = vec![base; m];
        for &i in by_load.iter().take(extra) {
            target[i] += 1;
        }
        let mut rng = PyRandom::new(seed);
        for i in 0..m {
            let surplus = owned[i].len().saturating_sub(target[i]);
            if surplus > 0 {
                let mut list = std::mem::take(&mut owned[i]);
                rng.shuffle(&mut list);
                pool.extend_from_slice(&list[..surplus]);
                let mut keep = list[surplus..].to_vec();
                keep.sort_unstable();
                owned[i] = keep;
            }
        }
        let mut pool = pool.into_iter();
        for i in 0..m {
            while owned[i].len() < target[i] {
                match pool.next() {
                    Some(s) => owned[i].push(s),
                    None => break,
                }
            }
        }
        let mut table = vec![0 as NodeId; shards];
        for (i, list) in owned.iter().enumerate() {
            for &s in list {
                table[s] = i as NodeId;
            }
        }
        Ok(FixedShards { nodes, table })
    }

    /// Move `count` shards from node `from` to node `to`, chosen by
    /// shuffling `from`'s ascending shard list with `PyRandom::new(seed)`.
    pub fn move_shards(&self, from: &str, to: &str, count: usize, seed: u64) -> Result<FixedShards> {
        let f = index_of(&self.nodes, from)?;
        let t = index_of(&self.nodes, to)?;
        let mut list = self.shards_of(f);
        if count > list.len() {
            return Err(Error::NotEnoughShards { node: from.to_string(), has: list.len(), asked: count });
        }
        PyRandom::new(seed).shuffle(&mut list);
        let mut out = self.clone();
        for &s in &list[..count] {
            out.table[s] = t;
        }
        Ok(out)
    }

    /// Change the shard count by splitting: every shard `s` becomes the
    /// shards `s, s + S, …, s + (factor−1)·S`, all on `s`'s node. No key
    /// changes node, but a `1 − 1/factor` share of keys changes shard.
    pub fn split(&self, factor: usize) -> Result<FixedShards> {
        if factor == 0 {
            return Err(Error::Invalid("split factor is 0: use 1 or more (2 doubles the shards)".into()));
        }
        let table = (0..factor).flat_map(|_| self.table.iter().copied()).collect();
        Ok(FixedShards { nodes: self.nodes.clone(), table })
    }

    /// The same nodes with a different shard count laid out afresh (shard
    /// `s` on node `s % N`): what happens when `S` is changed naively.
    pub fn relaid(&self, shards: usize) -> Result<FixedShards> {
        FixedShards::with_nodes(shards, self.nodes.clone())
    }

}

/// Keys whose shard id differs between `a` and `b` shards (`h % a` vs
/// `h % b`): the keys that must be rewritten into a new shard when the
/// shard count changes, even if they stay on the same node.
///
/// ```
/// use reshard::{shards::keys_changing_shard, HashWidth, KeySet};
/// let keys = KeySet::plain(10_000).hashed(HashWidth::Bits128).unwrap();
/// let n = keys_changing_shard(&keys, 1000, 2000);
/// assert!((4_800..5_200).contains(&n)); // h % 2000 ≥ 1000 half the time
/// ```
pub fn keys_changing_shard(keys: &crate::HashedKeys, a: usize, b: usize) -> u64 {
    let (a, b) = (a.max(1) as u128, b.max(1) as u128);
    keys.hashes().iter().filter(|&&h| h % a != h % b).count() as u64
}

fn check_counts(shards: usize, nodes: usize) -> Result<()> {
    if shards == 0 {
        return Err(Error::ZeroShards);
    }
    if shards > u32::MAX as usize {
        return Err(Error::Invalid(format!("{shards} shards is too many: use at most {}", u32::MAX)));
    }
    if nodes > shards {
        return Err(Error::MoreNodesThanShards { nodes, shards });
    }
    Ok(())
}

impl Placement for FixedShards {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    #[inline]
    fn locate(&self, key: Key<'_>) -> NodeId {
        self.table[self.shard_of(key.hash)]
    }
}
