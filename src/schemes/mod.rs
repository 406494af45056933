//! The placement schemes: which node owns a key.
//!
//! Every scheme is built the same way — `new(n)` names its nodes `"0"` …
//! `"{n-1}"`, `named(names)` takes the names, and `with_*` methods set its
//! own parameters (points per node, shard count, weights…) — and every
//! scheme grows and shrinks the same way, with [`Placement::add_node`] and
//! [`Placement::remove_node`] (the only way to add or remove a node; a
//! [`SlotPlan`] is a list of redis-cli commands, not another way). Nodes are
//! compared by name before and after.
//!
//! Sizes are slice lengths: a scheme's node count is `nodes().len()`, and a
//! scheme with a table ([`Slots`], [`FixedShards`], [`Maglev`], [`KeyRanges`],
//! [`HashRanges`]) has its size
//! as `table().len()` (slots, shards S, Maglev's M) — no per-scheme name for
//! the same number. A public method takes a node by its name (`&str`);
//! [`NodeId`] (an index into `nodes()`) appears only in results and tables.
//!
//! Two questions, two traits:
//!
//! * [`Locate::locate`] — *who owns this key?* — answered by every scheme
//!   whose owner depends on the key alone, which is all of them but
//!   [`Bounded`] loads (there a key's owner depends on the keys placed
//!   before it);
//! * [`Placement::assign`] — *who owns each of these keys?* — answered by
//!   every scheme (spread over all cores, except the ring's one merge walk
//!   over keys sorted once per key set, and bounded loads, which place keys
//!   one after another); the analysis is written once against it.
//!
//! ```
//! use reshard::prelude::*;
//! let width = HashWidth::Bits32;
//! let ring = Ring::named(letters("ABC"))?.with_vnodes(150)?;
//! let modulo = Modulo::new(3)?;
//! let key = Key::new("user:0", width);
//! assert!(["A", "B", "C"].contains(&ring.owner(key)));
//! assert_eq!(modulo.owner(key), (key.hash() % 3).to_string());
//! let bigger = ring.add_node("D")?;
//! assert_eq!(bigger.nodes(), ["A", "B", "C", "D"]);
//! # Ok::<(), reshard::Error>(())
//! ```

pub mod bounded;
pub mod hash_ranges;
pub mod hashkit;
pub mod jump;
pub mod ketama;
pub mod key_ranges;
pub mod maglev;
pub mod modulo;
pub mod nginx;
pub(crate) mod range_table;
pub mod rendezvous;
pub mod replicas;
pub mod ring;
pub mod shard_map;
pub mod shards;
pub mod slots;
pub mod slots_rebalance;
pub mod twemproxy;
pub mod unstable;

pub use bounded::Bounded;
pub use hash_ranges::{HashRange, HashRanges};
pub use hashkit::TwemHash;
pub use jump::Jump;
pub use ketama::Ketama;
pub use key_ranges::{KeyRange, KeyRanges};
pub use maglev::Maglev;
pub use modulo::Modulo;
pub use nginx::NginxHash;
pub use range_table::RangeSpan;
pub use rendezvous::Rendezvous;
pub use replicas::{Replicas, Replicated};
pub use ring::Ring;
pub use shard_map::{MapEntry, ShardMap, ShardMove};
pub use shards::FixedShards;
pub use slots::Slots;
pub use slots_rebalance::{SlotMove, SlotPlan};
pub use twemproxy::{TwemDistribution, Twemproxy};
pub use unstable::UnstableShards;

use crate::keys::HashedKeys;
use crate::{Error, HashWidth, Result};
use rayon::prelude::*;
use std::collections::HashSet;

/// The index of a node in its placement's [`Placement::nodes`] list.
pub type NodeId = u32;

/// One key as a placement sees it: its bytes and its md5 hash at the
/// experiment's width (the width travels with the hash).
///
/// The fields are private so that the hash always belongs to the bytes:
/// [`Key::new`] hashes them. [`Key::from_hash`] makes a key of a hash alone,
/// for the schemes that read only the hash; a scheme that reads the bytes
/// (rendezvous, slots, ketama, `std`'s hasher) must be given a key made by
/// [`Key::new`] — see [`Key::has_bytes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key<'a> {
    bytes: &'a [u8],
    hash: u128,
    width: HashWidth,
    spelled: bool,
}

impl<'a> Key<'a> {
    /// A key, hashed with md5 at `width`.
    ///
    /// ```
    /// use reshard::{HashWidth, Key};
    /// assert_eq!(Key::new("user:0", HashWidth::Bits32).hash(), 0x3f38_1411);
    /// ```
    pub fn new<K: AsRef<[u8]> + ?Sized>(key: &'a K, width: HashWidth) -> Self {
        let bytes = key.as_ref();
        Key { bytes, hash: width.hash(bytes), width, spelled: true }
    }

    /// A key known only by its hash (reduced to `width`), for the schemes
    /// that read only the hash ([`Locate::hash_only`]: modulo, the ring,
    /// jump, fixed shards, Maglev, bounded loads). It has no bytes; a scheme
    /// that reads the bytes gets the hash's 16 big-endian bytes instead, so
    /// two different hashes never look like the same key.
    ///
    /// ```
    /// use reshard::{HashWidth, Key, Locate, Modulo};
    /// let k = Key::new("user:0", HashWidth::Bits32);
    /// let h = Key::from_hash(k.hash(), HashWidth::Bits32);
    /// assert!(!h.has_bytes());
    /// assert_eq!(Modulo::new(7)?.locate(h), Modulo::new(7)?.locate(k));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn from_hash(hash: u128, width: HashWidth) -> Key<'static> {
        Key { bytes: &[], hash: width.reduce(hash), width, spelled: false }
    }

    /// The key's bytes, e.g. `b"user:17"` (empty for a key made by
    /// [`Key::from_hash`]).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// md5 of the bytes at [`width`](Key::width).
    pub fn hash(&self) -> u128 {
        self.hash
    }

    /// The width the hash was reduced to; schemes that hash more (ring
    /// points, rendezvous scores) use the same width.
    pub fn width(&self) -> HashWidth {
        self.width
    }

    /// True for a key made by [`Key::new`] (its bytes are known), false for
    /// one made by [`Key::from_hash`].
    pub fn has_bytes(&self) -> bool {
        self.spelled
    }

    /// What a scheme that reads key bytes hashes: the bytes, or for a key
    /// made from its hash alone the hash's 16 big-endian bytes.
    pub(crate) fn spelling(&self) -> std::borrow::Cow<'a, [u8]> {
        if self.spelled {
            std::borrow::Cow::Borrowed(self.bytes)
        } else {
            std::borrow::Cow::Owned(self.hash.to_be_bytes().to_vec())
        }
    }

    /// A key whose bytes are `bytes` and whose hash was already computed
    /// (the hot loops hash each key once).
    pub(crate) fn hashed(bytes: &'a [u8], hash: u128, width: HashWidth) -> Self {
        Key { bytes, hash, width, spelled: true }
    }
}

/// Keys per parallel work item: large enough to amortise scheduling.
pub(crate) const CHUNK: usize = 1 << 14;

/// What every scheme does: name its nodes, place a whole key set, and
/// change by one node.
pub trait Placement: Sync {
    /// The node names; a [`NodeId`] indexes this list.
    fn nodes(&self) -> &[String];

    /// The owner of every key, in key order. Most schemes spread the keys
    /// over all cores; [`Ring`] walks them on one core in hash order (the
    /// sort, done once per key set, runs on all cores), and [`Bounded`]
    /// places them one after another, since each owner depends on the keys
    /// placed before it.
    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId>;

    /// Refuse, before any work, a key set this scheme cannot place within
    /// the crate's [`limits`](crate::limits) (rendezvous hashing scores every
    /// key with every node).
    fn check_cost(&self, _keys: &HashedKeys) -> Result<()> {
        Ok(())
    }

    /// The owners of every key before (`self`) and after (`after`) a change.
    /// Schemes that can share work between the two override this.
    fn assign_pair(&self, after: &Self, keys: &HashedKeys) -> (Vec<NodeId>, Vec<NodeId>)
    where
        Self: Sized,
    {
        (self.assign(keys), after.assign(keys))
    }

    /// An estimate of the work one [`add_node`](Placement::add_node) or
    /// [`remove_node`](Placement::remove_node) does when the placement has
    /// `nodes` nodes, in md5 computations of a short key (about 0.2 µs
    /// each on one core): what a loop of changes
    /// ([`resized`](crate::analysis::resized)) checks against
    /// [`Limits::max_hashes`](crate::limits::Limits::max_hashes) before it
    /// starts. The default, `nodes`, fits a scheme that only copies its node
    /// list; a scheme with a table or points counts them.
    fn change_cost(&self, nodes: usize) -> u128 {
        nodes as u128
    }

    /// The same placement with one more node, `name`; the scheme decides
    /// what it takes over. Fails if the name is taken.
    fn add_node(&self, name: &str) -> Result<Self>
    where
        Self: Sized;

    /// The same placement without node `name`. Fails if there is no such
    /// node or it is the last one.
    fn remove_node(&self, name: &str) -> Result<Self>
    where
        Self: Sized;
}

/// Who owns this one key: every scheme whose answer depends on the key
/// alone.
pub trait Locate: Placement {
    /// The index (in [`Placement::nodes`]) of the node that owns `key`.
    fn locate(&self, key: Key<'_>) -> NodeId;

    /// The name of the node that owns `key`.
    fn owner(&self, key: Key<'_>) -> &str {
        &self.nodes()[self.locate(key) as usize]
    }

    /// True when [`locate`](Locate::locate) reads only the hash, so the key
    /// bytes need not be spelled out.
    fn hash_only(&self) -> bool {
        true
    }
}

/// [`Placement::assign`] for a [`Locate`] scheme: every key through
/// `locate`, on all cores, spelling the keys only when the scheme reads them.
pub fn assign_each<P: Locate + ?Sized>(p: &P, keys: &HashedKeys) -> Vec<NodeId> {
    let mut out = vec![0; keys.len()];
    let hash_only = p.hash_only();
    let width = keys.width();
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
        let base = c * CHUNK;
        let hashes = &keys.hashes()[base..base + out.len()];
        if hash_only {
            for (slot, &hash) in out.iter_mut().zip(hashes) {
                *slot = p.locate(Key::from_hash(hash, width));
            }
        } else {
            let mut w = keys.keys().writer();
            for (j, (slot, &hash)) in out.iter_mut().zip(hashes).enumerate() {
                *slot = p.locate(Key::hashed(w.key(base + j), hash, width));
            }
        }
    });
    out
}

/// Check a list of node names: at least one, none twice, within the
/// [`limits`](crate::limits) (count and bytes). An iterator that says it
/// holds more names than allowed is refused before any name is collected.
pub(crate) fn check_names<I, S>(names: I) -> Result<Vec<String>>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let names = names.into_iter();
    crate::limits::check_nodes(names.size_hint().0)?;
    let max = crate::limits::current().max_nodes;
    let cap = usize::try_from(max).unwrap_or(usize::MAX).saturating_add(1);
    let names: Vec<String> = names.take(cap).map(Into::into).collect();
    if names.is_empty() {
        return Err(Error::NoNodes);
    }
    crate::limits::check_names(&names)?;
    let mut seen = HashSet::with_capacity(names.len());
    for n in &names {
        if !seen.insert(n.as_str()) {
            return Err(Error::DuplicateNode(n.clone()));
        }
    }
    Ok(names)
}

/// `nodes` with `name` appended, checked (the name must be new).
pub(crate) fn with_added(nodes: &[String], name: &str) -> Result<Vec<String>> {
    check_names(nodes.iter().cloned().chain([name.to_string()]))
}

/// `nodes` without `name`, and the index it had. Fails on an unknown name
/// or the last node.
pub(crate) fn without(nodes: &[String], name: &str) -> Result<(Vec<String>, NodeId)> {
    let gone = index_of(nodes, name)?;
    if nodes.len() == 1 {
        return Err(Error::LastNode(name.to_string()));
    }
    Ok((nodes.iter().filter(|n| *n != name).cloned().collect(), gone))
}

/// The index of node `name` in `nodes`, or [`Error::UnknownNode`].
pub(crate) fn index_of(nodes: &[String], name: &str) -> Result<NodeId> {
    nodes.iter().position(|n| n == name).map(|i| i as NodeId).ok_or_else(|| Error::UnknownNode(name.to_string()))
}

/// Check that every entry of a table names one of `nodes` node indices.
pub(crate) fn check_table(table: &[NodeId], nodes: usize) -> Result<()> {
    match table.iter().find(|&&t| t as usize >= nodes) {
        Some(&bad) => Err(Error::NodeOutOfRange { index: u64::from(bad), nodes }),
        None => Ok(()),
    }
}

/// How many entries of `table` each of `nodes` nodes has.
pub(crate) fn count_per_node(table: &[NodeId], nodes: usize) -> Vec<usize> {
    let mut c = vec![0; nodes];
    for &t in table {
        c[t as usize] += 1;
    }
    c
}

/// The names `"0"`, `"1"`, … `"{n-1}"`, used when nodes are numbered.
/// Fails, before building any name, when `n` is over the node limit.
///
/// ```
/// assert_eq!(reshard::numbered(3)?, ["0", "1", "2"]);
/// assert!(reshard::numbered(usize::MAX).is_err());
/// # Ok::<(), reshard::Error>(())
/// ```
pub fn numbered(n: usize) -> Result<Vec<String>> {
    crate::limits::check_nodes(n)?;
    Ok((0..n).map(|i| i.to_string()).collect())
}

/// Node names from a prefix: `prefixed("S", 3)` is `["S0", "S1", "S2"]`.
/// Fails, before building any name, when `n` or the names' bytes are over
/// the limits.
pub fn prefixed(prefix: &str, n: usize) -> Result<Vec<String>> {
    crate::limits::check_nodes(n)?;
    crate::limits::check_hint(
        "bytes of node names",
        crate::limits::product(prefix.len().saturating_add(20), n),
        crate::limits::current().max_name_bytes,
        "use a shorter prefix or fewer nodes",
    )?;
    Ok((0..n).map(|i| format!("{prefix}{i}")).collect())
}

/// The letters of a string as node names: `letters("ABC")` is
/// `["A", "B", "C"]`, as document `000` names its ring nodes.
pub fn letters(s: &str) -> Vec<String> {
    s.chars().map(|c| c.to_string()).collect()
}
