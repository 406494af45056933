//! Consistent hashing with bounded loads (Mirrokni, Thorup & Zadimoghaddam,
//! 2018).
//!
//! A plain ring can give one node far more than its share. Bounded loads
//! caps every node at `c = ⌈(1 + ε) · m / n⌉` keys for `m` keys, `n` nodes
//! and a chosen `ε > 0`: keys are placed one after another, each starting at
//! its ring position and walking clockwise, point by point, to the first
//! node that still has room. No node exceeds `c`, so the busiest node holds
//! at most about `1 + ε` times the fair share; a small `ε` evens the load
//! and moves more keys when the cluster changes, a large one behaves like
//! the plain ring (with `ε ≥ n − 1` no node can fill up at all).
//!
//! The owner of a key depends on all the keys placed before it, so this is
//! not a per-key rule and `Bounded` does not implement
//! [`Locate`](crate::Locate): [`Placement::assign`] places the whole key
//! set, in key index order (key 0 first), and that order is part of the
//! result.
//!
//! ```
//! use reshard::{letters, Bounded, HashWidth, KeySet, LoadReport, Ring};
//! let keys = KeySet::users(100_000).hashed(HashWidth::Bits32)?;
//! let plain = LoadReport::measure(&keys, &Ring::named(letters("ABCD"))?)?;
//! assert_eq!(plain.max(), 31_186); // document 000: one point per node
//! let bounded = Bounded::named(letters("ABCD"))?.with_epsilon(0.25)?;
//! let load = LoadReport::measure(&keys, &bounded)?;
//! assert_eq!(bounded.capacity(keys.len()), 31_250);
//! assert!(load.max() <= 31_250);
//! let tight = bounded.with_epsilon(0.01)?;
//! assert!(LoadReport::measure(&keys, &tight)?.max() <= 25_250);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::schemes::{NodeId, Placement};
use crate::{Error, Result, Ring};

/// The ε of [`Bounded::new`] and [`Bounded::named`]: each node holds at
/// most 1.25 times its fair share.
pub const DEFAULT_EPSILON: f64 = 0.25;

/// A consistent-hash ring whose nodes hold at most `⌈(1 + ε) · m / n⌉` keys.
#[derive(Debug, Clone)]
pub struct Bounded {
    ring: Ring,
    epsilon: f64,
}

impl Bounded {
    /// `n` nodes named `"0"` … `"{n-1}"` on a ring with one point each,
    /// bounded by [`DEFAULT_EPSILON`].
    pub fn new(n: usize) -> Result<Self> {
        Ok(Bounded { ring: Ring::new(n)?, epsilon: DEFAULT_EPSILON })
    }

    /// Nodes with these names on a ring with one point each, bounded by
    /// [`DEFAULT_EPSILON`].
    ///
    /// # Examples
    ///
    /// A key's owner depends on the keys placed before it, so the whole key
    /// set is placed at once ([`Placement::assign`]):
    ///
    /// ```
    /// use reshard::{Bounded, HashWidth, Key, KeySet, Locate, Placement};
    /// let keys = KeySet::users(1_000).hashed(HashWidth::Bits32)?;
    /// let b = Bounded::named(["A", "B", "C", "D"])?;
    /// let owners = b.assign(&keys);
    /// let cap = (1.25_f64 * 1_000.0 / 4.0).ceil() as usize; // ⌈(1 + ε) · m / n⌉ = 313
    /// assert_eq!(b.capacity(keys.len()), cap as u64);
    /// for node in 0..4 {
    ///     assert!(owners.iter().filter(|&&o| o == node).count() <= cap);
    /// }
    /// // the first key finds every node empty: it stays with its ring owner
    /// let first = Key::from_hash(keys.hashes()[0], HashWidth::Bits32);
    /// assert_eq!(owners[0], b.ring().locate(first));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn named<I, S>(nodes: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Ok(Bounded { ring: Ring::named(nodes)?, epsilon: DEFAULT_EPSILON })
    }

    /// The same, with `vnodes` points per node on the ring.
    pub fn with_vnodes(self, vnodes: usize) -> Result<Self> {
        Ok(Bounded { ring: self.ring.with_vnodes(vnodes)?, ..self })
    }

    /// The same, bounded by `epsilon`. Fails on an `epsilon` that is not a
    /// finite number above 0.
    pub fn with_epsilon(self, epsilon: f64) -> Result<Self> {
        if !(epsilon.is_finite() && epsilon > 0.0) {
            return Err(Error::BadNumber {
                what: "epsilon",
                value: epsilon.to_string(),
                expected: "a finite number above 0",
                hint: "use e.g. 0.25 (each node holds at most 1 + epsilon times the fair share)",
            });
        }
        Ok(Bounded { epsilon, ..self })
    }

    /// The ε of the bound.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// The underlying ring: the owners before any node fills up.
    pub fn ring(&self) -> &Ring {
        &self.ring
    }

    /// The most keys one node may hold when `keys` keys are placed:
    /// `⌈(1 + ε) · keys / n⌉`. It is computed in `f64`, and a product
    /// within a relative 1e-12 of an integer counts as that integer, so
    /// that ε = 0.01 (not exactly 0.01 in binary) still gives
    /// `⌈1.01 · 100000 / 4⌉ = 25250`, not 25251.
    pub fn capacity(&self, keys: usize) -> u64 {
        u64::try_from(self.bound(keys as f64)).unwrap_or(u64::MAX)
    }

    /// The most requests one node may serve under
    /// [`assign_weighted`](Bounded::assign_weighted) when the keys carry
    /// `total` requests: `⌈(1 + ε) · total / n⌉`.
    pub fn weighted_capacity(&self, total: u64) -> u64 {
        u64::try_from(self.bound(total as f64)).unwrap_or(u64::MAX)
    }

    /// `⌈(1 + ε) · total / n⌉`, at least 1, in `u128` (a total of requests
    /// can pass `u64::MAX`; the cast from `f64` saturates).
    fn bound(&self, total: f64) -> u128 {
        let x = (1.0 + self.epsilon) * total / self.ring.nodes().len() as f64;
        let near = x.round();
        let x = if (x - near).abs() <= 1e-12 * x { near } else { x };
        // Never 0: every node may take at least one key.
        (x.ceil() as u128).max(1)
    }
}

impl Bounded {
    /// Bound the load in requests instead of keys: key `i` carries
    /// `weights[i]` requests and every node may serve at most
    /// [`weighted_capacity`](Bounded::weighted_capacity) of them.
    ///
    /// Why `u64`: these are not node weights but each key's request count
    /// (how often it is asked for), a count like every other count here.
    ///
    /// Keys are placed in key index order; each walks clockwise from its
    /// ring position to the first node whose load plus the key's weight
    /// stays within the bound. A key too heavy for every node's room (a key
    /// hotter than the bound itself, say) goes to the least loaded node
    /// (the lowest id on ties): no placement can split one key.
    ///
    /// Fails when the lengths differ, or when keys × ring points (the walk's
    /// length at worst) is over
    /// [`Limits::max_placements`](crate::limits::Limits::max_placements).
    ///
    /// ```
    /// use reshard::{Bounded, HashWidth, KeySet};
    /// let keys = KeySet::plain(1000).hashed(HashWidth::Bits128)?;
    /// let mut weights = vec![1u64; 1000];
    /// weights[0] = 500; // one key with a third of the requests
    /// let b = Bounded::new(4)?.with_epsilon(0.1)?;
    /// let owners = b.assign_weighted(&keys, &weights)?;
    /// let mut load = [0u64; 4];
    /// for (o, w) in owners.iter().zip(&weights) { load[*o as usize] += w; }
    /// assert_eq!(b.weighted_capacity(1499), 413);
    /// assert_eq!(load[owners[0] as usize], 500); // over the bound: nothing can fix that
    /// assert_eq!(load.iter().filter(|&&l| l > 413).count(), 1);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn assign_weighted(&self, keys: &HashedKeys, weights: &[u64]) -> Result<Vec<NodeId>> {
        if weights.len() != keys.len() {
            return Err(Error::LengthMismatch { what: "weights for keys", expected: keys.len(), given: weights.len() });
        }
        let n = self.ring.nodes().len();
        crate::limits::check_hint(
            "ring steps (keys × ring points, at worst)",
            crate::limits::product(keys.len(), n.saturating_mul(self.ring.vnodes())),
            crate::limits::current().max_placements,
            "use fewer keys or fewer points per node",
        )?;
        let pts = self.ring.points(keys.width());
        // in u128: the weights may add up past u64::MAX
        let total: u128 = weights.iter().map(|&w| u128::from(w)).sum();
        let cap = self.bound(total as f64);
        let mut load = vec![0u128; n];
        // seen[node] == stamp: node already refused the current key
        let mut seen = vec![usize::MAX; n];
        let mut out = Vec::with_capacity(keys.len());
        for (i, (&h, &w)) in keys.hashes().iter().zip(weights).enumerate() {
            let w = u128::from(w);
            let start = pts.partition_point(|p| p.hash < h);
            let mut refused = 0;
            let mut chosen = None;
            for step in 0..pts.len() {
                let node = pts[(start + step) % pts.len()].node as usize;
                if seen[node] == i {
                    continue;
                }
                if load[node] + w <= cap {
                    chosen = Some(node);
                    break;
                }
                seen[node] = i;
                refused += 1;
                if refused == n {
                    break;
                }
            }
            let node = chosen.unwrap_or_else(|| (0..n).min_by_key(|&j| (load[j], j)).unwrap_or(0));
            load[node] += w;
            out.push(node as NodeId);
        }
        Ok(out)
    }
}

/// The first point at or after `p` (clockwise) whose node has room, with
/// path compression. Full nodes' points link to the next point; while keys
/// remain some node has room, so every chain ends.
#[inline]
fn next_open(link: &mut [u32], p: usize) -> usize {
    let mut root = p;
    while link[root] as usize != root {
        root = link[root] as usize;
    }
    let mut q = p;
    while link[q] as usize != root {
        let next = link[q] as usize;
        link[q] = root as u32;
        q = next;
    }
    root
}

impl Placement for Bounded {
    fn nodes(&self) -> &[String] {
        self.ring.nodes()
    }

    fn change_cost(&self, nodes: usize) -> u128 {
        self.ring.change_cost(nodes)
    }

    /// The ring gains the node; the bound is recomputed for one more node.
    fn add_node(&self, name: &str) -> Result<Self> {
        Ok(Bounded { ring: self.ring.add_node(name)?, epsilon: self.epsilon })
    }

    /// The ring loses the node; the bound is recomputed for one node fewer.
    fn remove_node(&self, name: &str) -> Result<Self> {
        Ok(Bounded { ring: self.ring.remove_node(name)?, epsilon: self.epsilon })
    }

    /// Place the keys in key index order, each on the first node at or
    /// after its ring position that holds fewer than
    /// [`capacity`](Bounded::capacity) keys.
    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        let pts = self.ring.points(keys.width());
        let cap = self.capacity(keys.len());
        let n = self.ring.nodes().len();
        let mut points_of: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, p) in pts.iter().enumerate() {
            points_of[p.node as usize].push(i as u32);
        }
        let mut link: Vec<u32> = (0..pts.len() as u32).collect();
        let mut load = vec![0u64; n];
        let mut out = Vec::with_capacity(keys.len());
        for &h in keys.hashes() {
            let start = pts.partition_point(|p| p.hash < h);
            let p = next_open(&mut link, if start == pts.len() { 0 } else { start });
            let node = pts[p].node;
            out.push(node);
            load[node as usize] += 1;
            if load[node as usize] == cap {
                for &q in &points_of[node as usize] {
                    link[q as usize] = ((q as usize + 1) % pts.len()) as u32;
                }
            }
        }
        out
    }
}
