//! What goes wrong with a per-process hash: `std`'s `RandomState`.
//!
//! Rust's `HashMap` hasher is seeded randomly for every process (and every
//! `RandomState::new()`), exactly like Python's `hash()` for strings or the
//! Java `hashCode` warning in DDIA. Two processes that shard with it put the
//! same key in different shards. [`UnstableShards`] is fixed sharding with
//! such a hash; building two of them plays the part of two processes.
//! Never use it for placement: it exists to show why.
//!
//! ```
//! use reshard::{HashWidth, KeySet, Movement, UnstableShards};
//! let keys = KeySet::plain(10_000).hashed(HashWidth::Bits128)?;
//! let first = UnstableShards::new(10)?;   // "process 1"
//! let second = UnstableShards::new(10)?;  // "process 2"
//! let m = Movement::measure(&keys, &first, &second)?;
//! assert!(m.share() > 0.5); // the same keys, scattered anew
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::schemes::shards::DEFAULT_SHARDS;
use crate::schemes::{assign_each, check_names, numbered, with_added, without, Key, Locate, NodeId, Placement};
use crate::{limits, Error, Result};
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

/// Fixed shards whose key→shard hash is `std`'s randomly seeded SipHash.
#[derive(Debug, Clone)]
pub struct UnstableShards {
    nodes: Vec<String>,
    shards: usize,
    state: RandomState,
}

impl UnstableShards {
    /// [`DEFAULT_SHARDS`] shards on `n` numbered nodes (shard `s` on node
    /// `s % n`), with a fresh random seed.
    pub fn new(n: usize) -> Result<Self> {
        UnstableShards::named(numbered(n)?)
    }

    /// The same over named nodes.
    ///
    /// # Examples
    ///
    /// One placement answers the same for a key every time; a second one
    /// (another process) draws its own seed:
    ///
    /// ```
    /// use reshard::{HashWidth, Key, Locate, UnstableShards};
    /// let first = UnstableShards::named(["A", "B", "C"])?;
    /// let key = Key::new("user:0", HashWidth::Bits32);
    /// assert_eq!(first.owner(key), first.clone().owner(key));
    /// assert_eq!(first.locate(key) as usize, first.shard(key) % 3); // shard s on node s % N
    /// // of 20 keys, each on one of 1000 shards, a fresh seed keeps them all in place
    /// // with probability 1/1000^20: in practice never
    /// let second = UnstableShards::named(["A", "B", "C"])?;
    /// let keys: Vec<String> = (0..20).map(|i| format!("user:{i}")).collect();
    /// assert!(keys.iter().any(|k| first.shard(Key::new(k, HashWidth::Bits32)) != second.shard(Key::new(k, HashWidth::Bits32))));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn named<I, S>(names: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(names)?;
        UnstableShards { nodes, shards: 1, state: RandomState::new() }.with_shards(DEFAULT_SHARDS)
    }

    /// The same nodes and seed with `shards` shards.
    pub fn with_shards(self, shards: usize) -> Result<Self> {
        if shards == 0 {
            return Err(Error::ZeroShards);
        }
        limits::check("shards", shards as u128, limits::current().max_shards)?;
        if self.nodes.len() > shards {
            return Err(Error::MoreNodesThanShards { nodes: self.nodes.len(), shards });
        }
        Ok(UnstableShards { shards, ..self })
    }

    /// The shard of `key` under this process's seed.
    pub fn shard(&self, key: Key<'_>) -> usize {
        (self.state.hash_one(&*key.spelling()) % self.shards as u64) as usize
    }
}

impl Placement for UnstableShards {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        assign_each(self, keys)
    }

    /// Same seed, one more node (shard `s` on node `s % (N + 1)`).
    fn add_node(&self, name: &str) -> Result<Self> {
        UnstableShards { nodes: with_added(&self.nodes, name)?, ..self.clone() }.with_shards(self.shards)
    }

    /// Same seed, one node fewer.
    fn remove_node(&self, name: &str) -> Result<Self> {
        UnstableShards { nodes: without(&self.nodes, name)?.0, ..self.clone() }.with_shards(self.shards)
    }
}

impl Locate for UnstableShards {
    fn hash_only(&self) -> bool {
        false
    }

    fn locate(&self, key: Key<'_>) -> NodeId {
        (self.shard(key) % self.nodes.len()) as NodeId
    }
}
