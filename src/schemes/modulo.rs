//! `hash % N`: the owner of a key is its hash modulo the node count.
//!
//! Even and simple, and a disaster when N changes: a key stays on its node
//! only when `h % old == h % new`. Among any `lcm(old, new)` consecutive
//! hashes exactly `min(old, new)` satisfy that, so the share that moves is
//! `1 − min(old, new) / lcm(old, new)` — see
//! [`analysis::modulo`](crate::analysis::modulo).
//!
//! ```
//! use reshard::{HashWidth, KeySet, Modulo, Movement};
//! let keys = KeySet::users(100_000).hashed(HashWidth::Bits32)?;
//! let m = Movement::measure(&keys, &Modulo::new(3)?, &Modulo::new(4)?)?;
//! assert_eq!(format!("{:.1}%", 100.0 * m.share()), "75.0%");
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::schemes::{assign_each, check_names, numbered, with_added, without, Key, Locate, NodeId, Placement};
use crate::Result;

/// `hash % N` over named nodes (by default `"0"` … `"{N-1}"`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Modulo {
    nodes: Vec<String>,
}

impl Modulo {
    /// `n` nodes named `"0"` … `"{n-1}"`. Fails on `n == 0`.
    pub fn new(n: usize) -> Result<Self> {
        Modulo::named(numbered(n)?)
    }

    /// Nodes with these names; node `i` owns the keys with `h % N == i`.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, Key, Locate, Modulo};
    /// let abc = Modulo::named(["A", "B", "C"])?;
    /// // md5 mod 2^32 (Python's hashlib): user:0 → 1,060,639,761 = 3 · 353,546,587,
    /// // user:1 → 3,519,597,778 = 3 · 1,173,199,259 + 1
    /// assert_eq!(abc.owner(Key::new("user:0", HashWidth::Bits32)), "A");
    /// assert_eq!(abc.owner(Key::new("user:1", HashWidth::Bits32)), "B");
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn named<I, S>(names: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Ok(Modulo { nodes: check_names(names)? })
    }
}

impl Placement for Modulo {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        assign_each(self, keys)
    }

    /// Node `name` becomes node N: every key with `h % (N + 1) ≠ h % N` moves.
    fn add_node(&self, name: &str) -> Result<Self> {
        Ok(Modulo { nodes: with_added(&self.nodes, name)? })
    }

    /// The nodes after `name` move down one place, so their keys move too.
    fn remove_node(&self, name: &str) -> Result<Self> {
        Ok(Modulo { nodes: without(&self.nodes, name)?.0 })
    }
}

impl Locate for Modulo {
    #[inline]
    fn locate(&self, key: Key<'_>) -> NodeId {
        (key.hash % self.nodes.len() as u128) as NodeId
    }
}
