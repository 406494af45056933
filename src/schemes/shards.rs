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
//! [`FixedShards::rebalance_to`] (and so [`Placement::add_node`]) does
//! exactly that (see [`PyRandom`]).
//!
//! ```
//! use reshard::{FixedShards, HashWidth, KeySet, Movement, Placement};
//! let ten = FixedShards::new(10)?.with_shards(1000)?.with_seed(42);
//! let eleven = ten.add_node("10")?;
//! assert_eq!(ten.moved_shards_to(&eleven)?.len(), 90);
//! assert_eq!(eleven.shard_counts(), [91, 91, 91, 91, 91, 91, 91, 91, 91, 91, 90]);
//! let keys = KeySet::plain(100_000).hashed(HashWidth::Bits128)?;
//! let m = Movement::measure(&keys, &ten, &eleven)?;
//! assert_eq!(m.to_added(), m.moved()); // only the new node receives keys
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::limits;
use crate::schemes::{
    assign_each, check_names, check_table, count_per_node, index_of, numbered, with_added, without, Key, Locate,
    NodeId, Placement,
};
use crate::{Error, PyRandom, Result};

/// The shard count of [`FixedShards::new`] and [`FixedShards::named`]
/// (document `004`'s).
pub const DEFAULT_SHARDS: usize = 1000;
/// The seed of the rebalancing shuffle unless [`FixedShards::with_seed`]
/// says otherwise (document `004`'s).
pub const DEFAULT_SEED: u64 = 42;

/// A fixed number of shards, the node that serves each, and the seed of
/// the shuffle that picks which shards move when nodes change.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FixedShards {
    nodes: Vec<String>,
    table: Vec<NodeId>,
    seed: u64,
}

impl FixedShards {
    /// [`DEFAULT_SHARDS`] shards (or `n` when `n` is larger) over `n` nodes
    /// named `"0"` … `"{n-1}"`, shard `s` on node `s % n`.
    pub fn new(n: usize) -> Result<Self> {
        FixedShards::named(numbered(n)?)
    }

    /// [`DEFAULT_SHARDS`] shards (or one per node when there are more
    /// nodes) over these named nodes, shard `s` on node `s % N`.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{FixedShards, HashWidth, Key, Locate};
    /// let abc = FixedShards::named(["A", "B", "C"])?;
    /// // md5 mod 2^32 of user:0 is 1,060,639,761 (Python's hashlib): shard 761 of 1000,
    /// // and 761 = 3 · 253 + 2, so the third node
    /// assert_eq!(abc.table()[761], 2);
    /// assert_eq!(abc.owner(Key::new("user:0", HashWidth::Bits32)), "C");
    /// // user:1: 3,519,597,778 → shard 778 = 3 · 259 + 1
    /// assert_eq!(abc.owner(Key::new("user:1", HashWidth::Bits32)), "B");
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn named<I, S>(names: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(names)?;
        let shards = DEFAULT_SHARDS.max(nodes.len());
        FixedShards::laid_out(nodes, shards, DEFAULT_SEED)
    }

    /// The same nodes with `shards` shards, laid out afresh: shard `s` on
    /// node `s % N`. Fails on 0 shards or fewer shards than nodes.
    pub fn with_shards(self, shards: usize) -> Result<Self> {
        FixedShards::laid_out(self.nodes, shards, self.seed)
    }

    /// The same table with another seed for the shuffles of
    /// [`rebalance_to`](FixedShards::rebalance_to),
    /// [`remove_node`](Placement::remove_node) and
    /// [`move_shards`](FixedShards::move_shards).
    pub fn with_seed(self, seed: u64) -> Self {
        FixedShards { seed, ..self }
    }

    fn laid_out(nodes: Vec<String>, shards: usize, seed: u64) -> Result<Self> {
        check_counts(shards, nodes.len())?;
        let n = nodes.len();
        Ok(FixedShards { table: (0..shards).map(|s| (s % n) as NodeId).collect(), nodes, seed })
    }

    /// A table given shard by shard (`table[s]` is the index of the node of
    /// shard `s` in `names`), with [`DEFAULT_SEED`].
    pub fn from_table<I, S>(names: I, table: Vec<NodeId>) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(names)?;
        if table.is_empty() {
            return Err(Error::ZeroShards);
        }
        limits::check("shards", table.len() as u128, limits::current().max_shards)?;
        check_table(&table, nodes.len())?;
        Ok(FixedShards { nodes, table, seed: DEFAULT_SEED })
    }

    /// The seed of the rebalancing shuffles.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// `table()[s]` is the node of shard `s`; its length is the shard
    /// count S (`table().len()`).
    pub fn table(&self) -> &[NodeId] {
        &self.table
    }

    /// The shard of a key: its hash mod S.
    #[inline]
    pub fn shard(&self, key: Key<'_>) -> usize {
        (key.hash % self.table.len() as u128) as usize
    }

    /// How many shards each node serves, in node order.
    pub fn shard_counts(&self) -> Vec<usize> {
        count_per_node(&self.table, self.nodes.len())
    }

    /// The shards of node `name`, ascending. Fails on a name the table
    /// does not have ([`Error::UnknownNode`]).
    pub fn shards_of(&self, name: &str) -> Result<Vec<usize>> {
        Ok(self.shards_of_id(index_of(&self.nodes, name)?))
    }

    fn shards_of_id(&self, id: NodeId) -> Vec<usize> {
        (0..self.table.len()).filter(|&s| self.table[s] == id).collect()
    }

    /// How many of `keys` fall in each shard (`h % S`), in shard order.
    pub fn keys_per_shard(&self, keys: &HashedKeys) -> Vec<u64> {
        let mut c = vec![0u64; self.table.len()];
        let s = self.table.len() as u128;
        for &h in keys.hashes() {
            c[(h % s) as usize] += 1;
        }
        c
    }

    /// The shards whose node (by name) differs between `self` and `after`,
    /// ascending. Both must have the same shard count: across counts a
    /// shard number is not the same keys ([`Error::ShardCountsDiffer`];
    /// [`Movement::measure`](crate::Movement::measure) compares them key
    /// by key).
    ///
    /// ```
    /// use reshard::{Error, FixedShards, Placement};
    /// let ten = FixedShards::new(10)?;
    /// assert_eq!(ten.moved_shards_to(&ten.add_node("10")?)?.len(), 90);
    /// let finer = ten.split(2)?;
    /// assert_eq!(ten.moved_shards_to(&finer), Err(Error::ShardCountsDiffer { left: 1000, right: 2000 }));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn moved_shards_to(&self, after: &FixedShards) -> Result<Vec<usize>> {
        if after.table.len() != self.table.len() {
            return Err(Error::ShardCountsDiffer { left: self.table.len(), right: after.table.len() });
        }
        Ok((0..self.table.len())
            .filter(|&s| self.nodes[self.table[s] as usize] != after.nodes[after.table[s] as usize])
            .collect())
    }

    /// See [`Placement::remove_node`].
    fn removed(&self, name: &str) -> Result<FixedShards> {
        let (nodes, gone) = without(&self.nodes, name)?;
        let renumber = |id: NodeId| if id > gone { id - 1 } else { id };
        let mut table: Vec<NodeId> = self.table.iter().map(|&t| if t == gone { t } else { renumber(t) }).collect();
        let mut counts = vec![0usize; nodes.len()];
        for (s, &t) in self.table.iter().enumerate() {
            if t != gone {
                counts[table[s] as usize] += 1;
            }
        }
        let mut list = self.shards_of_id(gone);
        PyRandom::new(self.seed).shuffle(&mut list)?;
        for s in list {
            let to = (0..counts.len()).min_by_key(|&i| (counts[i], i)).unwrap_or(0);
            counts[to] += 1;
            table[s] = to as NodeId;
        }
        Ok(FixedShards { nodes, table, seed: self.seed })
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
    /// Growing by one node this is document `004`'s procedure.
    pub fn rebalance_to<I, S>(&self, names: I) -> Result<FixedShards>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(names)?;
        let shards = self.table.len();
        check_counts(shards, nodes.len())?;
        // old index -> new index, if kept
        let new_of_old: Vec<Option<NodeId>> =
            self.nodes.iter().map(|o| nodes.iter().position(|n| n == o).map(|i| i as NodeId)).collect();
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
        let mut rng = PyRandom::new(self.seed);
        for i in 0..m {
            let surplus = owned[i].len().saturating_sub(target[i]);
            if surplus > 0 {
                let mut list = std::mem::take(&mut owned[i]);
                rng.shuffle(&mut list)?;
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
        Ok(FixedShards { nodes, table, seed: self.seed })
    }

    /// Move `count` shards from node `from` to node `to`, chosen by
    /// shuffling `from`'s ascending shard list with `PyRandom::new(seed)`.
    pub fn move_shards(&self, from: &str, to: &str, count: usize) -> Result<FixedShards> {
        let f = index_of(&self.nodes, from)?;
        let t = index_of(&self.nodes, to)?;
        let mut list = self.shards_of_id(f);
        if count > list.len() {
            return Err(Error::NotEnoughShards { node: from.to_string(), has: list.len(), asked: count });
        }
        PyRandom::new(self.seed).shuffle(&mut list)?;
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
            return Err(Error::OutOfRange {
                what: "split factor",
                given: "0".into(),
                allowed: "1 or more (2 doubles the shards)".into(),
            });
        }
        limits::check("shards", limits::product(self.table.len(), factor), limits::current().max_shards)?;
        let table = (0..factor).flat_map(|_| self.table.iter().copied()).collect();
        Ok(FixedShards { nodes: self.nodes.clone(), table, seed: self.seed })
    }
}

fn check_counts(shards: usize, nodes: usize) -> Result<()> {
    if shards == 0 {
        return Err(Error::ZeroShards);
    }
    limits::check("shards", shards as u128, limits::current().max_shards)?;
    if nodes > shards {
        return Err(Error::MoreNodesThanShards { nodes, shards });
    }
    Ok(())
}

impl Placement for FixedShards {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// Every shard's list is walked and a node's surplus shuffled: about a
    /// third of an md5 per shard (0.7 s for 10,000,000 shards).
    fn change_cost(&self, nodes: usize) -> u128 {
        (self.table.len() as u128).div_ceil(3) + nodes as u128
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        assign_each(self, keys)
    }

    /// Rebalance onto the nodes plus `name` ([`rebalance_to`](FixedShards::rebalance_to)):
    /// each old node above its new fair count gives shards to the new one.
    fn add_node(&self, name: &str) -> Result<Self> {
        self.rebalance_to(with_added(&self.nodes, name)?)
    }

    /// Only the node's shards move. They are taken in the order of a
    /// shuffle with `PyRandom::new(seed)` of its ascending list, each to the
    /// remaining node that then serves the fewest shards (lowest index on
    /// ties). Every other shard stays where it is.
    fn remove_node(&self, name: &str) -> Result<Self> {
        self.removed(name)
    }
}

impl Locate for FixedShards {
    #[inline]
    fn locate(&self, key: Key<'_>) -> NodeId {
        self.table[self.shard(key)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table after one node joins `table` (nodes `0 … nodes − 1`), seed 42.
    fn grown(table: Vec<NodeId>, nodes: usize) -> Vec<NodeId> {
        let before = FixedShards::from_table(numbered(nodes).unwrap(), table).unwrap().with_seed(42);
        before.rebalance_to(numbered(nodes + 1).unwrap()).unwrap().table().to_vec()
    }

    fn laid_out(shards: usize, nodes: usize) -> Vec<NodeId> {
        (0..shards).map(|s| (s % nodes) as NodeId).collect()
    }

    #[test]
    fn growing_by_one_node_is_pythons_shuffle() {
        // python3, document 004's procedure with random.Random(42): each old node in turn shuffles
        // its ascending shard list and gives the first ones to the new node; a node with nothing to
        // give does not shuffle
        assert_eq!(grown(laid_out(2, 1), 1), [0, 1]);
        assert_eq!(grown(laid_out(7, 1), 1), [0, 1, 0, 1, 1, 0, 0]);
        assert_eq!(grown(laid_out(4, 3), 3), [0, 1, 2, 3]);
        assert_eq!(grown(laid_out(10, 3), 3), [0, 1, 2, 0, 1, 3, 3, 1, 2, 0]);
        assert_eq!(grown(laid_out(13, 5), 5), [0, 1, 2, 3, 4, 0, 5, 2, 3, 4, 0, 1, 5]);
        let eleven = grown(laid_out(1000, 10), 10);
        let node_0: Vec<usize> = (0..1000).filter(|&s| s % 10 == 0 && eleven[s] == 10).collect();
        assert_eq!(node_0, [10, 90, 150, 410, 420, 500, 650, 700, 910]);
        // python3: 11 → 12 from that table moves 83 shards, the first of them these
        let twelve = grown(eleven, 11);
        let to_12: Vec<usize> = (0..1000).filter(|&s| twelve[s] == 11).collect();
        assert_eq!(to_12.len(), 83);
        assert_eq!(to_12[..6], [15, 18, 20, 21, 28, 52]);
    }
}
