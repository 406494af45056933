//! Replicas: the `rf` distinct nodes that hold copies of a key.
//!
//! Every key is stored on `rf` nodes (the replication factor), the owner
//! first. Each scheme that has a natural way to name the next nodes for a
//! key implements [`Replicas`]:
//!
//! * [`Ring`]: the first `rf` distinct nodes met walking clockwise from the
//!   key (Dynamo's preference list; Cassandra's `SimpleStrategy`). Points
//!   of a node already chosen are skipped.
//! * [`Rendezvous`]: the `rf` highest scores (the owner and the runners-up).
//! * [`FixedShards`]: a shard's copies go to the first `rf` distinct nodes
//!   in shard-table order from the key's shard — the nodes of shards
//!   `s, s+1, s+2, …` (wrapping). The table is a ring of shards: clients
//!   need nothing but the table, shard `s`'s copies follow the nodes that
//!   serve the shards after it, and moving one shard changes the replica
//!   sets of that shard and of the up to `rf − 1` shards before it only.
//! * [`Maglev`]: the same walk over the lookup table (entries `e, e+1, …`
//!   from the key's entry): the table is a ring of `M` slots.
//! * [`Jump`]: jump hash names one bucket and nothing more; the copies go to
//!   the next buckets, `b+1, b+2, …` mod `n` (chain replication in bucket
//!   order). This is a convention, not part of the paper, and it pays for
//!   it: a key that moves to a new last bucket takes its chain along, so
//!   its other copies move to buckets `0 … rf−2` as well.
//!
//! `hash % N`, Redis slots, ketama and bounded loads get no replica rule
//! here: slots and ketama would walk their tables like fixed shards and
//! the ring, `hash % N` reshuffles everything anyway, and under bounded
//! loads a key's owner depends on the keys placed before it.
//!
//! ```
//! use reshard::prelude::*;
//! use reshard::schemes::replicas::Replicas;
//! let key = Key::new("key7", HashWidth::Bits128);
//! let ring = Ring::new(10)?.with_vnodes(150)?;
//! let copies = ring.replicas(key, 3)?;
//! assert_eq!(copies.len(), 3);
//! assert_eq!(copies[0], ring.locate(key)); // the owner comes first
//! assert!(copies[0] != copies[1] && copies[1] != copies[2] && copies[0] != copies[2]);
//! assert!(ring.replicas(key, 11).is_err()); // 10 nodes cannot hold 11 copies
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::limits;
use crate::schemes::ring::Sorted;
use crate::schemes::{FixedShards, Jump, Key, Locate, Maglev, NodeId, Placement, Rendezvous, Ring, CHUNK};
use crate::{Error, HashWidth, Result};
use rayon::prelude::*;

/// A scheme that names the `rf` distinct nodes holding a key's copies.
pub trait Replicas: Locate {
    /// Append the first `min(rf, nodes)` distinct nodes for `key` to `out`,
    /// the owner ([`Locate::locate`]) first.
    fn fill_replicas(&self, key: Key<'_>, rf: usize, out: &mut Vec<NodeId>);

    /// One line saying how this scheme picks the copies.
    fn replica_rule(&self) -> &'static str;

    /// How many distinct nodes can hold a copy: every node, except in a
    /// table (fixed shards, Maglev) that leaves some node out.
    fn holders(&self) -> usize {
        self.nodes().len()
    }

    /// The `rf` nodes holding copies of `key`, the owner first. Fails on
    /// `rf` = 0 or more copies than nodes.
    fn replicas(&self, key: Key<'_>, rf: usize) -> Result<Vec<NodeId>> {
        check_rf(rf, self.holders())?;
        let mut out = Vec::with_capacity(rf);
        self.fill_replicas(key, rf, &mut out);
        Ok(out)
    }
}

/// `Ok` when `1 ≤ rf ≤ nodes`, the number of nodes that can hold a copy.
pub fn check_rf(rf: usize, nodes: usize) -> Result<()> {
    if rf == 0 {
        return Err(Error::OutOfRange {
            what: "replication factor",
            given: "0".into(),
            allowed: "1 or more: every key needs at least 1 copy (3 is common)".into(),
        });
    }
    if rf > nodes {
        return Err(Error::OutOfRange {
            what: "replication factor",
            given: rf.to_string(),
            allowed: format!(
                "at most {nodes}, the nodes that can hold a copy: copies must be on distinct nodes \
                 (or give more nodes a part of the table)"
            ),
        });
    }
    Ok(())
}

/// The replica sets of every key, `rf` entries per key in key order (key
/// `i`'s copies are `out[i·rf .. (i+1)·rf]`, owner first), on all cores.
///
/// Fails on a bad `rf`, or when keys × rf is over
/// [`Limits::max_placements`](limits::Limits::max_placements) or the scheme's own cost limit.
pub fn replica_sets<P: Replicas + ?Sized>(p: &P, keys: &HashedKeys, rf: usize) -> Result<Vec<NodeId>> {
    check_rf(rf, p.holders())?;
    limits::check_hint(
        "replica placements (keys × rf)",
        limits::product(keys.len(), rf),
        limits::current().max_placements,
        "use fewer keys or a smaller replication factor",
    )?;
    p.check_cost(keys)?;
    let mut out = vec![0 as NodeId; keys.len() * rf];
    let hash_only = p.hash_only();
    let width = keys.width();
    out.par_chunks_mut(CHUNK * rf).enumerate().for_each(|(c, out)| {
        let base = c * CHUNK;
        let mut w = keys.keys().writer();
        let mut set = Vec::with_capacity(rf);
        for (j, slot) in out.chunks_mut(rf).enumerate() {
            let hash = keys.hashes()[base + j];
            let key = if hash_only { Key::from_hash(hash, width) } else { Key::hashed(w.key(base + j), hash, width) };
            set.clear();
            p.fill_replicas(key, rf, &mut set);
            slot.copy_from_slice(&set);
        }
    });
    Ok(out)
}

/// Walk `owners` from `start` (wrapping), keeping the first `rf` distinct.
#[inline]
fn walk(owners: &[NodeId], start: usize, rf: usize, out: &mut Vec<NodeId>) {
    let base = out.len();
    let len = owners.len();
    for step in 0..len {
        let node = owners[(start + step) % len];
        if !out[base..].contains(&node) {
            out.push(node);
            if out.len() - base == rf {
                return;
            }
        }
    }
}

fn successors<H: Ord + Copy>(s: &Sorted<H>, h: H, rf: usize, out: &mut Vec<NodeId>) {
    let i = s.hashes.partition_point(|&p| p < h);
    walk(&s.nodes, if i == s.hashes.len() { 0 } else { i }, rf, out);
}

impl Replicas for Ring {
    fn fill_replicas(&self, key: Key<'_>, rf: usize, out: &mut Vec<NodeId>) {
        match key.width() {
            HashWidth::Bits32 => successors(self.sorted32(), key.hash() as u32, rf, out),
            HashWidth::Bits128 => successors(self.sorted128(), key.hash(), rf, out),
        }
    }

    fn replica_rule(&self) -> &'static str {
        "the first distinct nodes clockwise"
    }
}

impl Replicas for Rendezvous {
    fn fill_replicas(&self, key: Key<'_>, rf: usize, out: &mut Vec<NodeId>) {
        self.ranked(key, rf, out);
    }

    fn replica_rule(&self) -> &'static str {
        "the highest scores"
    }
}

impl Replicas for FixedShards {
    fn fill_replicas(&self, key: Key<'_>, rf: usize, out: &mut Vec<NodeId>) {
        walk(self.table(), self.shard(key), rf, out);
    }

    fn holders(&self) -> usize {
        self.shard_counts().iter().filter(|&&c| c > 0).count()
    }

    fn replica_rule(&self) -> &'static str {
        "the nodes of the next shards in the table"
    }
}

impl Replicas for Maglev {
    fn fill_replicas(&self, key: Key<'_>, rf: usize, out: &mut Vec<NodeId>) {
        walk(self.table(), (key.hash() % self.table().len() as u128) as usize, rf, out);
    }

    fn holders(&self) -> usize {
        self.entry_counts().iter().filter(|&&c| c > 0).count()
    }

    fn replica_rule(&self) -> &'static str {
        "the nodes of the next table entries"
    }
}

impl Replicas for Jump {
    fn fill_replicas(&self, key: Key<'_>, rf: usize, out: &mut Vec<NodeId>) {
        let n = self.nodes().len();
        let b = self.locate(key) as usize;
        out.extend((0..rf.min(n)).map(|i| ((b + i) % n) as NodeId));
    }

    fn replica_rule(&self) -> &'static str {
        "the next buckets (a convention)"
    }
}

/// One of the schemes with a replica rule, so that a list of them can be
/// measured side by side.
#[derive(Debug, Clone)]
pub enum Replicated {
    /// A consistent-hash ring.
    Ring(Ring),
    /// Rendezvous hashing.
    Rendezvous(Rendezvous),
    /// Fixed shards.
    Shards(FixedShards),
    /// Jump consistent hash.
    Jump(Jump),
    /// Maglev.
    Maglev(Maglev),
}

macro_rules! each {
    ($self:expr, $p:ident => $e:expr) => {
        match $self {
            Replicated::Ring($p) => $e,
            Replicated::Rendezvous($p) => $e,
            Replicated::Shards($p) => $e,
            Replicated::Jump($p) => $e,
            Replicated::Maglev($p) => $e,
        }
    };
}

impl Replicated {
    /// The line-up the notebooks compare, over `n` nodes `"0"` … `"{n-1}"`:
    /// the ring with `vnodes` points per node, rendezvous, 1000 fixed
    /// shards, jump and Maglev (M = 65537).
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::prelude::*;
    /// let lineup = Replicated::lineup(100, 10)?;
    /// let labels: Vec<String> = lineup.iter().map(Replicated::label).collect();
    /// assert_eq!(labels, ["ring (10 points)", "rendezvous", "fixed shards (1000)", "jump", "Maglev"]);
    /// // At 128 bits jump reads a hash's top 64 bits: 1 << 64 is the 64-bit key 1, whose
    /// // bucket of 100 is 55 (Guava's golden value); its copies take the next buckets.
    /// let key = Key::from_hash(1 << 64, HashWidth::Bits128);
    /// assert_eq!(lineup[3].replicas(key, 3)?, [55, 56, 57]);
    /// for scheme in &lineup {
    ///     assert_eq!(scheme.replicas(key, 3)?[0], scheme.locate(key)); // the owner first
    /// }
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn lineup(n: usize, vnodes: usize) -> Result<Vec<Replicated>> {
        Ok(vec![
            Replicated::Ring(Ring::new(n)?.with_vnodes(vnodes)?),
            Replicated::Rendezvous(Rendezvous::new(n)?),
            Replicated::Shards(FixedShards::new(n)?),
            Replicated::Jump(Jump::new(n)?),
            Replicated::Maglev(Maglev::new(n)?),
        ])
    }

    /// A short name: `"ring (150 points)"`, `"rendezvous"`, …
    pub fn label(&self) -> String {
        match self {
            Replicated::Ring(r) => format!("ring ({} point{})", r.vnodes(), if r.vnodes() == 1 { "" } else { "s" }),
            Replicated::Rendezvous(_) => "rendezvous".into(),
            Replicated::Shards(s) => format!("fixed shards ({})", s.table().len()),
            Replicated::Jump(_) => "jump".into(),
            Replicated::Maglev(_) => "Maglev".into(),
        }
    }
}

impl Placement for Replicated {
    fn nodes(&self) -> &[String] {
        each!(self, p => p.nodes())
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        each!(self, p => p.assign(keys))
    }

    fn check_cost(&self, keys: &HashedKeys) -> Result<()> {
        each!(self, p => p.check_cost(keys))
    }

    fn change_cost(&self, nodes: usize) -> u128 {
        each!(self, p => p.change_cost(nodes))
    }

    fn add_node(&self, name: &str) -> Result<Self> {
        Ok(match self {
            Replicated::Ring(p) => Replicated::Ring(p.add_node(name)?),
            Replicated::Rendezvous(p) => Replicated::Rendezvous(p.add_node(name)?),
            Replicated::Shards(p) => Replicated::Shards(p.add_node(name)?),
            Replicated::Jump(p) => Replicated::Jump(p.add_node(name)?),
            Replicated::Maglev(p) => Replicated::Maglev(p.add_node(name)?),
        })
    }

    fn remove_node(&self, name: &str) -> Result<Self> {
        Ok(match self {
            Replicated::Ring(p) => Replicated::Ring(p.remove_node(name)?),
            Replicated::Rendezvous(p) => Replicated::Rendezvous(p.remove_node(name)?),
            Replicated::Shards(p) => Replicated::Shards(p.remove_node(name)?),
            Replicated::Jump(p) => Replicated::Jump(p.remove_node(name)?),
            Replicated::Maglev(p) => Replicated::Maglev(p.remove_node(name)?),
        })
    }
}

impl Locate for Replicated {
    fn locate(&self, key: Key<'_>) -> NodeId {
        each!(self, p => p.locate(key))
    }

    fn hash_only(&self) -> bool {
        each!(self, p => p.hash_only())
    }
}

impl Replicas for Replicated {
    fn fill_replicas(&self, key: Key<'_>, rf: usize, out: &mut Vec<NodeId>) {
        each!(self, p => p.fill_replicas(key, rf, out))
    }

    fn replica_rule(&self) -> &'static str {
        each!(self, p => p.replica_rule())
    }
}
