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
//! let keys = KeySet::plain(10_000).hashed(HashWidth::Bits128).unwrap();
//! let first = UnstableShards::new(1000, 10).unwrap();   // "process 1"
//! let second = UnstableShards::new(1000, 10).unwrap();  // "process 2"
//! let m = Movement::measure(&keys, &first, &second).unwrap();
//! assert!(m.share() > 0.5); // the same keys, scattered anew
//! ```

use crate::placement::{check_names, numbered, Key, NodeId, Placement};
use crate::{Error, Result};
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
    /// `shards` shards on `nodes` numbered nodes (shard `s` on node
    /// `s % nodes`), with a fresh random seed.
    pub fn new(shards: usize, nodes: usize) -> Result<Self> {
        let nodes = check_names(numbered(nodes))?;
        if shards == 0 {
            return Err(Error::ZeroShards);
        }
        if nodes.len() > shards {
            return Err(Error::MoreNodesThanShards { nodes: nodes.len(), shards });
        }
        Ok(UnstableShards { nodes, shards, state: RandomState::new() })
    }

    /// The shard of `key` under this process's seed.
    pub fn shard_of(&self, key: &str) -> usize {
        (self.state.hash_one(key.as_bytes()) % self.shards as u64) as usize
    }
}

impl Placement for UnstableShards {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    fn hash_only(&self) -> bool {
        false
    }

    fn locate(&self, key: Key<'_>) -> NodeId {
        let shard = self.state.hash_one(key.bytes) % self.shards as u64;
        (shard % self.nodes.len() as u64) as NodeId
    }
}
