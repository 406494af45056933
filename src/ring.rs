//! The consistent-hash ring, with virtual nodes.
//!
//! Node names are hashed onto a circle, `vnodes` points per node: point `v`
//! of node `n` is md5 of `"{salt}{n}#{v}"`. A key belongs to the first
//! point at or after its own hash, wrapping past the top back to the first
//! point. Adding a node only takes the arcs in front of its new points, so
//! about `1/(N+1)` of the keys move, and all of them to the new node. One
//! point per node gives very uneven arcs; many points average them out.
//!
//! ```
//! use reshard::{letters, HashWidth, KeySet, Movement, Ring};
//! let keys = KeySet::users(100_000).hashed(HashWidth::Bits32).unwrap();
//! let abc = Ring::new(letters("ABC"), 150).unwrap();
//! let abcd = Ring::new(letters("ABCD"), 150).unwrap();
//! let m = Movement::measure(&keys, &abc, &abcd).unwrap();
//! assert_eq!(format!("{:.1}%", 100.0 * m.share()), "25.3%");
//! assert_eq!(m.to_added(), m.moved()); // every mover goes to D
//! ```

use crate::keys::{push_decimal, HashedKeys};
use crate::placement::{check_names, Key, NodeId, Placement};
use crate::{md5_u128, Error, HashWidth, Result};
use std::sync::OnceLock;

/// One point on the ring: where it sits and which node it stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RingPoint {
    /// The point's hash (its position on the circle).
    pub hash: u128,
    /// The node it belongs to.
    pub node: NodeId,
}

/// A consistent-hash ring over named nodes.
#[derive(Debug, Clone)]
pub struct Ring {
    nodes: Vec<String>,
    vnodes: usize,
    salt: String,
    full: Vec<(u128, NodeId)>,
    by_width: [OnceLock<Vec<RingPoint>>; 2],
}

impl Ring {
    /// A ring with `vnodes` points per node and no salt.
    ///
    /// Fails on no nodes, a repeated name, or `vnodes == 0`.
    pub fn new<I, S>(nodes: I, vnodes: usize) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Ring::salted(nodes, vnodes, "")
    }

    /// A ring whose point names start with `salt`: a different salt is a
    /// different arrangement of the same nodes (document `000` uses
    /// `"{s}:"` for `s` in `0..30`).
    pub fn salted<I, S>(nodes: I, vnodes: usize, salt: &str) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(nodes)?;
        if vnodes == 0 {
            return Err(Error::ZeroVnodes);
        }
        let total = nodes.len().checked_mul(vnodes).filter(|&t| t <= 50_000_000).ok_or_else(|| {
            Error::Invalid(format!(
                "{} nodes × {vnodes} points is too many ring points: keep nodes × vnodes at most 50,000,000",
                nodes.len()
            ))
        })?;
        let mut full = Vec::with_capacity(total);
        let mut buf = Vec::new();
        for (id, name) in nodes.iter().enumerate() {
            for v in 0..vnodes {
                buf.clear();
                buf.extend_from_slice(salt.as_bytes());
                buf.extend_from_slice(name.as_bytes());
                buf.push(b'#');
                push_decimal(&mut buf, v as u64);
                full.push((md5_u128(&buf), id as NodeId));
            }
        }
        Ok(Ring { nodes, vnodes, salt: salt.to_string(), full, by_width: Default::default() })
    }

    /// Points per node.
    pub fn vnodes(&self) -> usize {
        self.vnodes
    }

    /// The salt in front of every point name.
    pub fn salt(&self) -> &str {
        &self.salt
    }

    /// The points in ring order at `width`: sorted by `(hash, node name)`.
    pub fn points(&self, width: HashWidth) -> &[RingPoint] {
        let slot = match width {
            HashWidth::Bits32 => 0,
            HashWidth::Bits128 => 1,
        };
        self.by_width[slot].get_or_init(|| {
            let mut pts: Vec<RingPoint> = self
                .full
                .iter()
                .map(|&(h, node)| RingPoint { hash: width.reduce(h), node })
                .collect();
            pts.sort_unstable_by(|a, b| {
                a.hash
                    .cmp(&b.hash)
                    .then_with(|| self.nodes[a.node as usize].cmp(&self.nodes[b.node as usize]))
            });
            pts
        })
    }

    /// The owner of the key with this hash: the first point at or after it.
    #[inline]
    pub fn owner_of_hash(&self, hash: u128, width: HashWidth) -> NodeId {
        let pts = self.points(width);
        let i = pts.partition_point(|p| p.hash < hash);
        pts[if i == pts.len() { 0 } else { i }].node
    }

    /// The name of the node that owns `key`.
    ///
    /// ```
    /// use reshard::{letters, HashWidth, Ring};
    /// let ring = Ring::new(letters("ABC"), 150).unwrap();
    /// assert!(["A", "B", "C"].contains(&ring.lookup("user:0", HashWidth::Bits32)));
    /// ```
    pub fn lookup(&self, key: &str, width: HashWidth) -> &str {
        &self.nodes[self.owner_of_hash(width.hash(key.as_bytes()), width) as usize]
    }

    /// Each node's share of the circle (the total length of the arcs it
    /// owns), in node order, at `width`. The shares add up to 1.
    pub fn arc_shares(&self, width: HashWidth) -> Vec<f64> {
        let pts = self.points(width);
        let mut share = vec![0.0; self.nodes.len()];
        for (i, p) in pts.iter().enumerate() {
            let here = width.position(p.hash);
            let prev = if i == 0 { width.position(pts[pts.len() - 1].hash) - 1.0 } else { width.position(pts[i - 1].hash) };
            share[p.node as usize] += here - prev;
        }
        share
    }
}

impl Placement for Ring {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    #[inline]
    fn locate(&self, key: Key<'_>) -> NodeId {
        self.owner_of_hash(key.hash, key.width)
    }

    /// One merge pass over the keys in hash order and the points in ring
    /// order, instead of a binary search per key.
    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        let pts = self.points(keys.width());
        let hashes = keys.hashes();
        let mut out = vec![0; keys.len()];
        let mut p = 0;
        for &i in keys.sorted_order() {
            let h = hashes[i as usize];
            while p < pts.len() && pts[p].hash < h {
                p += 1;
            }
            out[i as usize] = pts[if p == pts.len() { 0 } else { p }].node;
        }
        out
    }
}
