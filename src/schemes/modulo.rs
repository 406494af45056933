//! `hash % N`: the owner of a key is its hash modulo the node count.
//!
//! Even and simple, and a disaster when N changes: a key stays on its node
//! only when `h % old == h % new`. Among any `lcm(old, new)` consecutive
//! hashes exactly `min(old, new)` satisfy that, so the share that moves is
//! `1 − min(old, new) / lcm(old, new)` — see [`modulo_rule`].
//!
//! ```
//! use reshard::{modulo_rule, HashWidth, KeySet, Modulo, Movement};
//! let keys = KeySet::users(100_000).hashed(HashWidth::Bits32)?;
//! let m = Movement::measure(&keys, &Modulo::new(3)?, &Modulo::new(4)?)?;
//! assert_eq!(format!("{:.1}%", 100.0 * m.share()), "75.0%");
//! assert_eq!(modulo_rule(3, 4), 0.75);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::{HashedKeys, KeySet};
use crate::schemes::{assign_each, check_names, numbered, with_added, without, Key, Locate, NodeId, Placement};
use crate::{Error, HashWidth, Result};
use rayon::prelude::*;

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
    pub fn named<I, S>(names: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Ok(Modulo { nodes: check_names(names)? })
    }

    /// The node count N.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Never true: a `Modulo` has at least one node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
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

/// The share of keys that `hash % N` moves from `old` to `new` nodes for
/// uniformly spread hashes: `1 − min(old, new) / lcm(old, new)`.
///
/// ```
/// use reshard::modulo_rule;
/// assert_eq!(modulo_rule(10, 20), 0.5);
/// assert!((modulo_rule(10, 11) - 10.0 / 11.0).abs() < 1e-12);
/// assert_eq!(modulo_rule(7, 7), 0.0);
/// ```
pub fn modulo_rule(old: usize, new: usize) -> f64 {
    if old == 0 || new == 0 {
        return 1.0;
    }
    // both below 2^64, so the lcm fits u128
    let lcm = lcm(old as u128, new as u128).unwrap_or(u128::MAX);
    1.0 - old.min(new) as f64 / lcm as f64
}

/// Greatest common divisor.
pub fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Least common multiple (0 when either is 0). Fails when it does not fit
/// in `u128`.
///
/// ```
/// use reshard::schemes::modulo::lcm;
/// assert_eq!(lcm(10, 11)?, 110);
/// assert_eq!(lcm(0, 7)?, 0);
/// assert!(lcm(u128::MAX, u128::MAX - 1).is_err());
/// # Ok::<(), reshard::Error>(())
/// ```
pub fn lcm(a: u128, b: u128) -> Result<u128> {
    if a == 0 || b == 0 {
        return Ok(0);
    }
    (a / gcd(a, b))
        .checked_mul(b)
        .ok_or(Error::Overflow { what: "the least common multiple", hint: "use smaller counts" })
}

/// Count, without storing any hash, the keys whose `hash % old` and
/// `hash % new` differ: memory stays flat however many keys there are.
/// Used for the 100-million-key benchmark. Fails on no keys, no nodes, or
/// more md5 work than [`Limits::max_streamed`](crate::limits::Limits::max_streamed)
/// (a billion short keys).
///
/// ```
/// use reshard::{schemes::modulo::count_moved_streaming, HashWidth, KeySet};
/// let moved = count_moved_streaming(&KeySet::users(1000), HashWidth::Bits32, 3, 4).unwrap();
/// assert!(moved > 700 && moved < 800);
/// ```
pub fn count_moved_streaming(keys: &KeySet, width: HashWidth, old: usize, new: usize) -> Result<u64> {
    if keys.is_empty() {
        return Err(Error::NoKeys);
    }
    if old == 0 || new == 0 {
        return Err(Error::NoNodes);
    }
    crate::limits::check_streamed(keys.prefix().len(), keys.len())?;
    const BLOCK: usize = 1 << 16;
    let blocks = keys.len().div_ceil(BLOCK);
    let (o, n) = (old as u128, new as u128);
    Ok((0..blocks)
        .into_par_iter()
        .map(|b| {
            let mut w = keys.writer();
            let end = (b + 1).saturating_mul(BLOCK).min(keys.len());
            let mut moved = 0u64;
            for i in b * BLOCK..end {
                let h = width.hash(w.key(i));
                moved += (h % o != h % n) as u64;
            }
            moved
        })
        .sum())
}
