//! The one question every scheme answers: which node owns this key?
//!
//! A [`Placement`] has a list of node names and, for a key (its bytes and
//! its hash), returns the index of the owning node in that list. The
//! analysis ([`Movement`](crate::Movement), [`LoadReport`](crate::LoadReport))
//! is written once against this trait.
//!
//! ```
//! use reshard::{HashWidth, KeySet, Modulo, Placement};
//! let keys = KeySet::plain(5).hashed(HashWidth::Bits128).unwrap();
//! let three = Modulo::new(3).unwrap();
//! let owners = three.assign(&keys);
//! assert_eq!(owners.len(), 5);
//! assert!(owners.iter().all(|&n| n < 3));
//! assert_eq!(three.nodes(), ["0", "1", "2"]);
//! ```

use crate::keys::HashedKeys;
use crate::{Error, HashWidth, Result};
use rayon::prelude::*;
use std::collections::HashSet;

/// The index of a node in its placement's [`Placement::nodes`] list.
pub type NodeId = u32;

/// One key as a placement sees it: its bytes and its md5 hash (already
/// reduced to the experiment's width).
#[derive(Debug, Clone, Copy)]
pub struct Key<'a> {
    /// The key's bytes, e.g. `b"user:17"`.
    pub bytes: &'a [u8],
    /// md5 of the bytes at the experiment's width.
    pub hash: u128,
    /// The width `hash` was reduced to; schemes that hash more (ring
    /// points, rendezvous scores) use the same width.
    pub width: HashWidth,
}

/// Keys per parallel work item: large enough to amortise scheduling.
pub(crate) const CHUNK: usize = 1 << 14;

/// A rule that assigns every key to one of a fixed list of named nodes.
pub trait Placement: Sync {
    /// The node names; a [`NodeId`] indexes this list.
    fn nodes(&self) -> &[String];

    /// The owner of one key.
    fn locate(&self, key: Key<'_>) -> NodeId;

    /// True when [`locate`](Placement::locate) reads only the hash, so the
    /// key bytes need not be spelled out.
    fn hash_only(&self) -> bool {
        true
    }

    /// The owner of every key, in key order (on all cores).
    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        let mut out = vec![0; keys.len()];
        let hash_only = self.hash_only();
        let width = keys.width();
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
            let base = c * CHUNK;
            let hashes = &keys.hashes()[base..base + out.len()];
            if hash_only {
                for (slot, &hash) in out.iter_mut().zip(hashes) {
                    *slot = self.locate(Key { bytes: &[], hash, width });
                }
            } else {
                let mut w = keys.keys().writer();
                for (j, (slot, &hash)) in out.iter_mut().zip(hashes).enumerate() {
                    *slot = self.locate(Key { bytes: w.key(base + j), hash, width });
                }
            }
        });
        out
    }

    /// The owners of every key before (`self`) and after (`after`) a change.
    /// Schemes that can share work between the two override this.
    fn assign_pair(&self, after: &Self, keys: &HashedKeys) -> (Vec<NodeId>, Vec<NodeId>)
    where
        Self: Sized,
    {
        (self.assign(keys), after.assign(keys))
    }
}

/// Check a list of node names: at least one, none twice.
pub(crate) fn check_names<I, S>(names: I) -> Result<Vec<String>>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let names: Vec<String> = names.into_iter().map(Into::into).collect();
    if names.is_empty() {
        return Err(Error::NoNodes);
    }
    if names.len() > u32::MAX as usize {
        return Err(Error::Invalid(format!(
            "{} nodes is more than this crate handles: use at most {}",
            names.len(),
            u32::MAX
        )));
    }
    let mut seen = HashSet::with_capacity(names.len());
    for n in &names {
        if !seen.insert(n.as_str()) {
            return Err(Error::DuplicateNode(n.clone()));
        }
    }
    Ok(names)
}

/// The index of node `name` in `nodes`, or [`Error::UnknownNode`].
pub(crate) fn index_of(nodes: &[String], name: &str) -> Result<NodeId> {
    nodes
        .iter()
        .position(|n| n == name)
        .map(|i| i as NodeId)
        .ok_or_else(|| Error::UnknownNode(name.to_string()))
}

/// Check that every entry of a `what` table (e.g. "shard") names one of
/// `nodes` node indices.
pub(crate) fn check_table(table: &[NodeId], nodes: usize, what: &str) -> Result<()> {
    match table.iter().find(|&&t| t as usize >= nodes) {
        Some(&bad) => Err(Error::Invalid(format!(
            "the {what} table names node index {bad}, but there are only {nodes} nodes: use indices below {nodes}"
        ))),
        None => Ok(()),
    }
}

/// The names `"0"`, `"1"`, … `"{n-1}"`, used when nodes are numbered.
pub fn numbered(n: usize) -> Vec<String> {
    (0..n).map(|i| i.to_string()).collect()
}

/// Node names from a prefix: `named("S", 3)` is `["S0", "S1", "S2"]`.
pub fn named(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

/// The letters of a string as node names: `letters("ABC")` is
/// `["A", "B", "C"]`, as document `000` names its ring nodes.
pub fn letters(s: &str) -> Vec<String> {
    s.chars().map(|c| c.to_string()).collect()
}
