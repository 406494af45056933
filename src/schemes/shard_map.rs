//! A shard map with revisions: which node owns each of S shards, as a
//! coordination service such as etcd or ZooKeeper holds it (DDIA 2nd ed.
//! ch. 7, "Request Routing").
//!
//! ```
//! use reshard::schemes::shard_map::{ShardMap, ShardMove};
//! let map = ShardMap::new(12, ["A", "B", "C"])?; // shard s on node s % 3, revision 1
//! assert_eq!(map.owner(7)?, "B");
//! let after = map.apply(&[ShardMove::new(7, "C"), ShardMove::new(3, "B"), ShardMove::new(7, "A")])?;
//! assert_eq!(after.revision(), 4); // three changes
//! assert_eq!((after.owner(7)?, after.entry(7)?.version, after.entry(7)?.mod_revision), ("A", 3, 4));
//! assert_eq!((after.entry(3)?.version, after.entry(3)?.mod_revision), (2, 3));
//! assert_eq!((after.entry(0)?.version, after.entry(0)?.mod_revision), (1, 1)); // never moved
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! The map is what a controller writes and every router reads. It counts
//! its changes the way etcd counts them, so the crate's map and one read
//! back from etcd can be compared number for number:
//!
//! * the map's **revision** rises by exactly 1 per change (etcd's store
//!   revision, when nothing else is written to the store);
//! * each entry has a **version**, the times it was written (1 when the map
//!   is created, +1 per move of that shard: etcd's `version`), and a
//!   **mod revision**, the revision of the change that last wrote it
//!   (etcd's `mod_revision`);
//! * the whole map is created in one change (one etcd transaction), so
//!   every entry starts at version 1 with the same mod revision.
//!
//! An entry's mod revision is a **fencing token** (DDIA ch. 9, "Fencing
//! tokens"): it rises every time the shard moves, never falls, and a node
//! that remembers the highest one it has seen for a shard can refuse a
//! request carrying a lower one, a request from a router (or a node) that
//! has not heard of the move.

use crate::schemes::{check_names, index_of, NodeId};
use crate::{limits, Error, Result};

/// The highest revision a map may reach: etcd keeps revisions in a signed
/// 64-bit integer.
pub const MAX_REVISION: u64 = i64::MAX as u64;

/// One entry of a [`ShardMap`]: the shard, its owner, and how often and
/// when it was last written.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MapEntry {
    /// The shard, from 0.
    pub shard: usize,
    /// The node that owns it.
    pub owner: String,
    /// How many times the entry was written: 1 when created, +1 per move.
    pub version: u64,
    /// The map revision of the change that last wrote it (its fencing token).
    pub mod_revision: u64,
}

/// Shard `shard` goes to node `to`: one change of a [`ShardMap`]. Built
/// with [`ShardMove::new`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ShardMove {
    /// The shard.
    pub shard: usize,
    /// The node it goes to.
    pub to: String,
}

impl ShardMove {
    /// Shard `shard` goes to node `to`.
    pub fn new(shard: usize, to: impl Into<String>) -> ShardMove {
        ShardMove { shard, to: to.into() }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    owner: NodeId,
    version: u64,
    mod_revision: u64,
}

/// Which node owns each shard, with a revision per change and a version
/// and mod revision per entry (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardMap {
    nodes: Vec<String>,
    slots: Vec<Slot>,
    revision: u64,
}

/// `Ok` for 1 to the limit's shards.
pub(crate) fn check_shards(shards: usize) -> Result<()> {
    if shards == 0 {
        return Err(Error::ZeroShards);
    }
    limits::check_hint(
        "shards in a shard map",
        shards as u128,
        limits::current().max_shards,
        "use fewer shards (12 show every effect; or raise limits::Limits::max_shards)",
    )
}

impl ShardMap {
    /// `shards` shards over `nodes`, shard `s` on node `s % n`, created in
    /// one change at revision 1: every entry at version 1, mod revision 1.
    /// Fails on 0 shards, no nodes, a name given twice, or sizes over the
    /// [`limits`].
    pub fn new<I, S>(shards: usize, nodes: I) -> Result<ShardMap>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        check_shards(shards)?;
        let nodes = check_names(nodes)?;
        let n = nodes.len();
        let slots = (0..shards).map(|s| Slot { owner: (s % n) as NodeId, version: 1, mod_revision: 1 }).collect();
        Ok(ShardMap { nodes, slots, revision: 1 })
    }

    /// A map with these owners, one node name per shard (each one of
    /// `nodes`), created in one change at revision 1.
    pub fn from_owners<I, S, O, T>(nodes: I, owners: O) -> Result<ShardMap>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
        O: IntoIterator<Item = T>,
        T: AsRef<str>,
    {
        let nodes = check_names(nodes)?;
        let max = usize::try_from(limits::current().max_shards).unwrap_or(usize::MAX);
        let mut slots = Vec::new();
        for o in owners.into_iter().take(max.saturating_add(1)) {
            slots.push(Slot { owner: index_of(&nodes, o.as_ref())?, version: 1, mod_revision: 1 });
        }
        check_shards(slots.len())?;
        Ok(ShardMap { nodes, slots, revision: 1 })
    }

    /// The same map, created at revision `revision` instead of 1 (the
    /// revision etcd gave the transaction that wrote it): every entry's mod
    /// revision is `revision`. Only for a map not changed since its
    /// creation; `revision` from 1 to [`MAX_REVISION`].
    pub fn created_at(mut self, revision: u64) -> Result<ShardMap> {
        check_revision("revision", revision)?;
        if self.slots.iter().any(|s| s.version != 1) {
            return Err(Error::OutOfRange {
                what: "created_at on a map with moves:",
                given: format!("revision {}", self.revision),
                allowed: "a map as created (call created_at before apply)".into(),
            });
        }
        self.revision = revision;
        self.slots.iter_mut().for_each(|s| s.mod_revision = revision);
        Ok(self)
    }

    /// A map as read back from a store: the nodes, and per shard its
    /// owner, version and mod revision; the map's revision is the highest
    /// mod revision (the change that last wrote it). Fails on an owner that
    /// is not one of `nodes`, a version of 0, or a revision outside 1 to
    /// [`MAX_REVISION`].
    pub fn from_entries<I, S>(nodes: I, entries: &[(String, u64, u64)]) -> Result<ShardMap>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(nodes)?;
        check_shards(entries.len())?;
        let mut slots = Vec::with_capacity(entries.len());
        for (owner, version, mod_revision) in entries {
            check_revision("mod revision", *mod_revision)?;
            if *version == 0 {
                return Err(Error::OutOfRange {
                    what: "entry version",
                    given: "0".into(),
                    allowed: "1 or more (an entry is written at least once)".into(),
                });
            }
            slots.push(Slot { owner: index_of(&nodes, owner)?, version: *version, mod_revision: *mod_revision });
        }
        let revision = slots.iter().map(|s| s.mod_revision).max().unwrap_or(1);
        Ok(ShardMap { nodes, slots, revision })
    }

    /// The same map at store revision `revision`: a map read from a store
    /// where other keys were written after its last change. At least the
    /// highest mod revision, at most [`MAX_REVISION`].
    pub fn with_revision(mut self, revision: u64) -> Result<ShardMap> {
        check_revision("revision", revision)?;
        let last = self.slots.iter().map(|s| s.mod_revision).max().unwrap_or(1);
        if revision < last {
            return Err(Error::OutOfRange {
                what: "revision",
                given: revision.to_string(),
                allowed: format!("{last} or more: an entry of the map was written at revision {last}"),
            });
        }
        self.revision = revision;
        Ok(self)
    }

    /// The same map with one more node (owning nothing yet).
    pub fn with_node(&self, name: &str) -> Result<ShardMap> {
        let nodes = crate::schemes::with_added(&self.nodes, name)?;
        Ok(ShardMap { nodes, ..self.clone() })
    }

    /// How many shards (S).
    pub fn shards(&self) -> usize {
        self.slots.len()
    }

    /// The nodes, in the order given.
    pub fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// The revision of the last change (1 for a new map).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The owner of `shard`.
    pub fn owner(&self, shard: usize) -> Result<&str> {
        Ok(&self.nodes[self.slot(shard)?.owner as usize])
    }

    /// The index in [`nodes`](Self::nodes) of the owner of `shard`.
    pub fn owner_index(&self, shard: usize) -> Result<NodeId> {
        Ok(self.slot(shard)?.owner)
    }

    /// Shard `shard`'s entry: owner, version, mod revision.
    pub fn entry(&self, shard: usize) -> Result<MapEntry> {
        let s = self.slot(shard)?;
        Ok(MapEntry {
            shard,
            owner: self.nodes[s.owner as usize].clone(),
            version: s.version,
            mod_revision: s.mod_revision,
        })
    }

    /// Every entry, shard by shard.
    pub fn entries(&self) -> Vec<MapEntry> {
        (0..self.shards()).filter_map(|s| self.entry(s).ok()).collect()
    }

    /// The mod revision of `shard`'s entry: the fencing token a request
    /// for it carries.
    pub fn epoch(&self, shard: usize) -> Result<u64> {
        Ok(self.slot(shard)?.mod_revision)
    }

    /// The shards node `name` owns, in shard order.
    pub fn shards_of(&self, name: &str) -> Result<Vec<usize>> {
        let n = index_of(&self.nodes, name)?;
        Ok((0..self.shards()).filter(|&s| self.slots[s].owner == n).collect())
    }

    /// The map after one move: shard `m.shard` on node `m.to`, its version
    /// +1, the revision +1 and the entry's mod revision the new revision.
    /// Fails on an unknown shard or node, a move to the shard's own owner
    /// (a change that changes nothing), or the revision past
    /// [`MAX_REVISION`].
    pub fn moved(&self, m: &ShardMove) -> Result<ShardMap> {
        let mut next = self.clone();
        next.move_in_place(m)?;
        Ok(next)
    }

    /// The map after each move in turn (one change each).
    pub fn apply(&self, moves: &[ShardMove]) -> Result<ShardMap> {
        let mut next = self.clone();
        for m in moves {
            next.move_in_place(m)?;
        }
        Ok(next)
    }

    /// A compare-and-swap of one entry, as a controller does it: the move
    /// happens only if the entry's mod revision is still `expected` (the
    /// one the controller read). `Ok(Ok(map))` is the map after the move;
    /// `Ok(Err(entry))`, the entry as it is now, when someone else wrote it
    /// first.
    pub fn compare_and_move(&self, m: &ShardMove, expected: u64) -> Result<std::result::Result<ShardMap, MapEntry>> {
        let now = self.entry(m.shard)?;
        if now.mod_revision != expected {
            return Ok(Err(now));
        }
        self.moved(m).map(Ok)
    }

    pub(crate) fn move_in_place(&mut self, m: &ShardMove) -> Result<()> {
        let to = index_of(&self.nodes, &m.to)?;
        let shards = self.shards();
        let revision = self.revision;
        let slot = self.slots.get_mut(m.shard).ok_or(Error::NoSuchShard { shard: m.shard, shards })?;
        if slot.owner == to {
            return Err(Error::SameNode(m.to.clone()));
        }
        let next = revision.checked_add(1).filter(|&r| r <= MAX_REVISION).ok_or(Error::Overflow {
            what: "the map's revision",
            hint: "start the map at a lower revision (etcd's revisions are signed 64-bit)",
        })?;
        slot.owner = to;
        slot.version = slot.version.saturating_add(1);
        slot.mod_revision = next;
        self.revision = next;
        Ok(())
    }

    fn slot(&self, shard: usize) -> Result<&Slot> {
        self.slots.get(shard).ok_or(Error::NoSuchShard { shard, shards: self.shards() })
    }
}

/// `Ok` for a revision from 1 to [`MAX_REVISION`].
pub(crate) fn check_revision(what: &'static str, revision: u64) -> Result<()> {
    if (1..=MAX_REVISION).contains(&revision) {
        Ok(())
    } else {
        Err(Error::OutOfRange {
            what,
            given: revision.to_string(),
            allowed: format!("1 to {MAX_REVISION} (etcd's revisions start at 1 and are signed 64-bit)"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_counts_changes_as_etcd_does() {
        let map = ShardMap::new(4, ["A", "B"]).unwrap().created_at(5).unwrap();
        assert_eq!(map.revision(), 5);
        let m = map.moved(&ShardMove::new(1, "A")).unwrap();
        assert_eq!((m.revision(), m.entry(1).unwrap().version, m.epoch(1).unwrap()), (6, 2, 6));
        assert_eq!(m.shards_of("A").unwrap(), [0, 1, 2]);
        assert_eq!(map.moved(&ShardMove::new(1, "B")), Err(Error::SameNode("B".into())));
        assert_eq!(map.moved(&ShardMove::new(4, "A")), Err(Error::NoSuchShard { shard: 4, shards: 4 }));
        assert_eq!(map.moved(&ShardMove::new(0, "Z")), Err(Error::UnknownNode("Z".into())));
        let cas = map.compare_and_move(&ShardMove::new(1, "A"), 5).unwrap();
        assert_eq!(cas.unwrap().revision(), 6);
        let lost = map.compare_and_move(&ShardMove::new(1, "A"), 4).unwrap().unwrap_err();
        assert_eq!((lost.owner.as_str(), lost.mod_revision), ("B", 5));
        let top = ShardMap::new(2, ["A", "B"]).unwrap().created_at(MAX_REVISION).unwrap();
        assert!(matches!(top.moved(&ShardMove::new(0, "B")), Err(Error::Overflow { .. })));
        assert!(ShardMap::new(2, ["A"]).unwrap().created_at(0).is_err());
        assert!(ShardMap::new(2, ["A"]).unwrap().created_at(u64::MAX).is_err());
        assert_eq!(ShardMap::new(0, ["A"]), Err(Error::ZeroShards));
        assert_eq!(ShardMap::new(3, Vec::<String>::new()), Err(Error::NoNodes));
        let read = ShardMap::from_entries(["A", "B"], &[("B".into(), 2, 9), ("A".into(), 1, 3)]).unwrap();
        assert_eq!((read.revision(), read.owner(0).unwrap()), (9, "B"));
    }
}
