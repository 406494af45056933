//! The consistent-hash ring, with virtual nodes.
//!
//! Node names are hashed onto a circle, `vnodes` points per node: point `v`
//! of node `n` is md5 of `"{salt}{n}#{v}"`. A key belongs to the first
//! point at or after its own hash, wrapping past the top back to the first
//! point. Adding a node only takes the arcs in front of its new points, so
//! about `1/(N+1)` of the keys move, and all of them to the new node. One
//! point per node gives very uneven arcs; many points average them out.
//!
//! Points are hashed at the width of the keys they are compared with, and
//! only when first needed; a 32-bit ring stores 8 bytes per point.
//!
//! ```
//! use reshard::{letters, HashWidth, KeySet, Movement, Ring};
//! let keys = KeySet::users(100_000).hashed(HashWidth::Bits32)?;
//! let abc = Ring::named(letters("ABC"))?.with_vnodes(150)?;
//! let abcd = Ring::named(letters("ABCD"))?.with_vnodes(150)?;
//! let m = Movement::measure(&keys, &abc, &abcd)?;
//! assert_eq!(format!("{:.1}%", 100.0 * m.share()), "25.3%");
//! assert_eq!(m.to_added(), m.moved()); // every mover goes to D
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::{push_decimal, HashedKeys};
use crate::limits::{self, product};
use crate::schemes::{check_names, numbered, with_added, without, Key, Locate, NodeId, Placement};
use crate::{md5_u128, Error, HashWidth, Result};
use std::sync::OnceLock;

/// One point on the ring: where it sits and which node it stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct RingPoint {
    /// The point's hash (its position on the circle).
    pub hash: u128,
    /// The node it belongs to.
    pub node: NodeId,
}

/// A ring's points at one width, in ring order: `hashes[i]` belongs to
/// `nodes[i]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sorted<H> {
    pub(crate) hashes: Vec<H>,
    pub(crate) nodes: Vec<NodeId>,
}

impl<H: Ord + Copy> Sorted<H> {
    /// The node of the first point at or after `h`, wrapping round.
    #[inline]
    pub(crate) fn owner(&self, h: H) -> NodeId {
        let i = self.hashes.partition_point(|&p| p < h);
        self.nodes[if i == self.hashes.len() { 0 } else { i }]
    }
}

/// The full md5 of node `name`'s points `"{salt}{name}#{v}"`, `v` ascending.
pub(crate) fn node_points(salt: &str, name: &str, vnodes: usize) -> Vec<u128> {
    let mut buf = Vec::with_capacity(salt.len() + name.len() + 8);
    buf.extend_from_slice(salt.as_bytes());
    buf.extend_from_slice(name.as_bytes());
    buf.push(b'#');
    let prefix = buf.len();
    (0..vnodes)
        .map(|v| {
            buf.truncate(prefix);
            push_decimal(&mut buf, v as u64);
            md5_u128(&buf)
        })
        .collect()
}

/// Points of `names[i]` (full md5 in `per_node[i]`) reduced and sorted by
/// `(hash, node name)`.
pub(crate) fn sort_points<H: Ord + Copy, P: AsRef<[u128]>>(
    names: &[String],
    per_node: &[P],
    reduce: impl Fn(u128) -> H,
) -> Sorted<H> {
    let mut pts: Vec<(H, NodeId)> = per_node
        .iter()
        .enumerate()
        .flat_map(|(id, hs)| hs.as_ref().iter().map(move |&h| (h, id as NodeId)))
        .map(|(h, n)| (reduce(h), n))
        .collect();
    pts.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| names[a.1 as usize].cmp(&names[b.1 as usize])));
    Sorted { hashes: pts.iter().map(|p| p.0).collect(), nodes: pts.iter().map(|p| p.1).collect() }
}

/// A consistent-hash ring over named nodes.
#[derive(Debug, Clone)]
pub struct Ring {
    nodes: Vec<String>,
    vnodes: usize,
    salt: String,
    p32: OnceLock<Sorted<u32>>,
    p128: OnceLock<Sorted<u128>>,
}

impl Ring {
    /// `n` nodes named `"0"` … `"{n-1}"`, one point each, no salt.
    pub fn new(n: usize) -> Result<Self> {
        Ring::named(numbered(n)?)
    }

    /// Nodes with these names, one point each, no salt.
    ///
    /// Fails on no nodes or a repeated name.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, Key, Locate, Ring};
    /// let ring = Ring::named(["A", "B", "C"])?;
    /// // md5 mod 2^32 (Python's hashlib) of the points "A#0", "B#0", "C#0":
    /// // 3,555,415,914 · 1,021,159,618 · 567,359,856
    /// // user:0 hashes to 1,060,639,761: the first point at or after it is A's
    /// assert_eq!(ring.owner(Key::new("user:0", HashWidth::Bits32)), "A");
    /// // user:2 hashes to 4,009,813,293, past every point: it wraps to C's, the lowest
    /// assert_eq!(ring.owner(Key::new("user:2", HashWidth::Bits32)), "C");
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn named<I, S>(nodes: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Ring::build(check_names(nodes)?, 1, String::new())
    }

    /// The same nodes with `vnodes` points each. Fails on 0, or when nodes
    /// × vnodes is over [`Limits::max_ring_points`](limits::Limits::max_ring_points).
    pub fn with_vnodes(self, vnodes: usize) -> Result<Self> {
        Ring::build(self.nodes, vnodes, self.salt)
    }

    /// The same nodes with `salt` in front of every point name: a different
    /// salt is a different arrangement of the same nodes (document `000`
    /// uses `"{s}:"` for `s` in `0..30`, see [`salt`](crate::analysis::sweep::salt)).
    ///
    /// Fails when hashing the points with this salt would be over
    /// [`Limits::max_hashes`](limits::Limits::max_hashes) md5 blocks (a
    /// salt of megabytes on a ring of millions of points): the points are
    /// hashed on the first lookup, which cannot fail.
    pub fn with_salt(self, salt: impl Into<String>) -> Result<Self> {
        let ring = Ring { salt: salt.into(), p32: OnceLock::new(), p128: OnceLock::new(), ..self };
        ring.check_points_cost()?;
        Ok(ring)
    }

    /// Refuse a ring whose points cost more md5 blocks than the limit.
    fn check_points_cost(&self) -> Result<()> {
        let longest = self.nodes.iter().map(String::len).max().unwrap_or(0);
        let per_point = limits::md5_blocks(self.salt.len().saturating_add(longest).saturating_add(21));
        limits::check_hint(
            "md5 blocks to hash the ring's points (points × blocks each)",
            product(self.nodes.len(), self.vnodes).saturating_mul(per_point),
            limits::current().max_hashes,
            "use a shorter salt or node names, or fewer points",
        )
    }

    fn build(nodes: Vec<String>, vnodes: usize, salt: String) -> Result<Self> {
        if vnodes == 0 {
            return Err(Error::ZeroVnodes);
        }
        limits::check_hint(
            "ring points (nodes × vnodes)",
            product(nodes.len(), vnodes),
            limits::current().max_ring_points,
            "use fewer nodes or fewer points per node",
        )?;
        let ring = Ring { nodes, vnodes, salt, p32: OnceLock::new(), p128: OnceLock::new() };
        ring.check_points_cost()?;
        Ok(ring)
    }

    /// Points per node.
    pub fn vnodes(&self) -> usize {
        self.vnodes
    }

    /// The salt in front of every point name.
    pub fn salt(&self) -> &str {
        &self.salt
    }

    /// Sort points by `(hash, node name)`, as document `000`'s Python does.
    fn sorted<H: Ord + Copy>(&self, reduce: impl Fn(u128) -> H) -> Sorted<H> {
        let per_node: Vec<Vec<u128>> = self.nodes.iter().map(|n| node_points(&self.salt, n, self.vnodes)).collect();
        sort_points(&self.nodes, &per_node, reduce)
    }

    pub(crate) fn sorted32(&self) -> &Sorted<u32> {
        self.p32.get_or_init(|| self.sorted(|h| h as u32))
    }

    pub(crate) fn sorted128(&self) -> &Sorted<u128> {
        self.p128.get_or_init(|| self.sorted(|h| h))
    }

    /// The points in ring order at `width`: sorted by `(hash, node name)`.
    pub fn points(&self, width: HashWidth) -> Vec<RingPoint> {
        match width {
            HashWidth::Bits32 => {
                let s = self.sorted32();
                s.hashes.iter().zip(&s.nodes).map(|(&h, &node)| RingPoint { hash: u128::from(h), node }).collect()
            }
            HashWidth::Bits128 => {
                let s = self.sorted128();
                s.hashes.iter().zip(&s.nodes).map(|(&hash, &node)| RingPoint { hash, node }).collect()
            }
        }
    }

    /// The owner of a hash at `width`: the first point at or after it.
    #[inline]
    fn owner_of(&self, hash: u128, width: HashWidth) -> NodeId {
        match width {
            HashWidth::Bits32 => self.sorted32().owner(hash as u32),
            HashWidth::Bits128 => self.sorted128().owner(hash),
        }
    }

    /// Each node's share of the circle (the total length of the arcs it
    /// owns), in node order, at `width`. The shares add up to 1.
    pub fn arc_shares(&self, width: HashWidth) -> Vec<f64> {
        let pts = self.points(width);
        let mut share = vec![0.0; self.nodes.len()];
        for (i, p) in pts.iter().enumerate() {
            let here = width.position(p.hash);
            let prev =
                if i == 0 { width.position(pts[pts.len() - 1].hash) - 1.0 } else { width.position(pts[i - 1].hash) };
            share[p.node as usize] += here - prev;
        }
        share
    }
}

impl Placement for Ring {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// Hashing the points costs one md5 each, longer with a long salt or
    /// long names: refused over [`Limits::max_hashes`](limits::Limits::max_hashes)
    /// md5 blocks.
    fn check_cost(&self, _keys: &HashedKeys) -> Result<()> {
        self.check_points_cost()
    }

    /// One merge pass over the keys in hash order and the points in ring
    /// order, instead of a binary search per key.
    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        fn walk<H: Ord + Copy>(s: &Sorted<H>, keys: &HashedKeys, h: impl Fn(u128) -> H) -> Vec<NodeId> {
            let hashes = keys.hashes();
            let mut out = vec![0; keys.len()];
            let mut p = 0;
            for &i in keys.sorted_order() {
                let k = h(hashes[i as usize]);
                while p < s.hashes.len() && s.hashes[p] < k {
                    p += 1;
                }
                out[i as usize] = s.nodes[if p == s.hashes.len() { 0 } else { p }];
            }
            out
        }
        match keys.width() {
            HashWidth::Bits32 => walk(self.sorted32(), keys, |h| h as u32),
            HashWidth::Bits128 => walk(self.sorted128(), keys, |h| h),
        }
    }

    /// The new node's points take the arcs in front of them.
    fn add_node(&self, name: &str) -> Result<Self> {
        Ring::build(with_added(&self.nodes, name)?, self.vnodes, self.salt.clone())
    }

    /// The node's points go; their arcs fall to the next points clockwise.
    fn remove_node(&self, name: &str) -> Result<Self> {
        Ring::build(without(&self.nodes, name)?.0, self.vnodes, self.salt.clone())
    }
}

impl Locate for Ring {
    #[inline]
    fn locate(&self, key: Key<'_>) -> NodeId {
        self.owner_of(key.hash, key.width)
    }
}
