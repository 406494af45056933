//! The libketama ring: memcached clients' consistent hashing.
//!
//! libketama (last.fm, 2007) is the consistent-hash ring most memcached
//! clients agree on, so that clients written in different languages send a
//! key to the same server. Each server of weight `w` gets
//! `⌊40 · N · w / Σw⌋` md5 digests, of `"{server}-{k}"` for `k = 0, 1, …`,
//! and each 16-byte digest gives 4 points on a 32-bit circle: bytes
//! `4h … 4h+3` read little-endian, `h = 0…3`. With equal weights that is
//! 160 points per server. A key hashes to the first 4 bytes of its md5,
//! little-endian, and belongs to the first point at or after that value,
//! wrapping past the top to the first point.
//!
//! The point count follows the C library's float arithmetic exactly: the
//! share `w / Σw` in `f32`, times `40 · N` in `f64`, truncated to `f32` and
//! floored. Points with equal values (rare: 1600 points on 2^32 values)
//! are ordered by server order; libketama's `qsort` leaves that open.
//! One corner differs between ports: dgryski/go-ketama, which copies the
//! search of Perl's Algorithm::ConsistentHash::Ketama unsigned underflow
//! included, sends a key whose hash is exactly 0 to the last point;
//! libketama (signed indices) and this module send it to the first.
//!
//! ```
//! use reshard::{prefixed, HashWidth, Ketama, KeySet, LoadReport};
//! let ring = Ketama::named(prefixed("server", 10)?)?;
//! assert_eq!(ring.points().len(), 1600);
//! let keys = KeySet::new("foo", 100_000).hashed(HashWidth::Bits128)?;
//! let load = LoadReport::measure(&keys, &ring)?;
//! assert_eq!(load.counts()[0], 9478); // dgryski/go-ketama's test
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::{push_decimal, HashedKeys};
use crate::schemes::{check_names, numbered, with_added, without, Key, Locate, NodeId, Placement, CHUNK};
use crate::{Error, HashWidth, Result};
use md5::{Digest, Md5};
use rayon::prelude::*;

/// Digests per server of average weight (4 points each).
const DIGESTS: f64 = 40.0;

/// The most servers one ring takes (at most 50,000,000 points).
pub const MAX_SERVERS: usize = 312_500;

/// The libketama hash of a key: the first 4 bytes of its md5, read
/// little-endian.
///
/// ```
/// // md5("foo0") begins 94 d8 05 cf (checked with Python's hashlib).
/// assert_eq!(reshard::ketama_hash(b"foo0"), 0xcf05_d894);
/// ```
#[inline]
pub fn ketama_hash(key: &[u8]) -> u32 {
    let d: [u8; 16] = Md5::digest(key).into();
    u32::from_le_bytes([d[0], d[1], d[2], d[3]])
}

/// The libketama hash from a key's md5 integer at 128 bits (whose first 4
/// bytes, big-endian, are its top 32 bits).
#[inline]
fn from_md5(hash: u128) -> u32 {
    ((hash >> 96) as u32).swap_bytes()
}

/// A libketama-compatible ring over weighted servers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ketama {
    nodes: Vec<String>,
    weights: Vec<u32>,
    /// `(point, server)`, ascending by point, then by server index.
    points: Vec<(u32, NodeId)>,
}

impl Ketama {
    /// `n` servers named `"0"` … `"{n-1}"`, all of weight 1 (160 points each).
    pub fn new(n: usize) -> Result<Self> {
        Ketama::named(numbered(n)?)
    }

    /// Servers with these names, all of weight 1 (160 points each).
    ///
    /// # Examples
    ///
    /// The ring built by hand, as libketama builds it, gives the same owners:
    ///
    /// ```
    /// use reshard::{ketama_hash, md5_u128, HashWidth, Ketama, Key, Locate};
    /// let ring = Ketama::named(["a", "b"])?;
    /// let mut points = Vec::new(); // 40 digests of "{server}-{k}", 4 points each
    /// for s in ["a", "b"] {
    ///     for k in 0..40 {
    ///         let d = md5_u128(format!("{s}-{k}").as_bytes()).to_be_bytes();
    ///         points.extend(d.chunks(4).map(|b| (u32::from_le_bytes([b[0], b[1], b[2], b[3]]), s)));
    ///     }
    /// }
    /// points.sort();
    /// for key in ["foo", "bar", "user:0", "user:1"] {
    ///     let h = ketama_hash(key.as_bytes()); // first point at or after h, else the first
    ///     let owner = points.iter().find(|p| p.0 >= h).unwrap_or(&points[0]).1;
    ///     assert_eq!(ring.owner(Key::new(key, HashWidth::Bits32)), owner);
    /// }
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn named<I, S>(names: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(names)?;
        let n = nodes.len();
        Ketama::build(nodes, vec![1; n])
    }

    /// The same servers with integer weights (libketama's memory sizes):
    /// one weight ≥ 1 per server.
    ///
    /// Why `u32`: libketama reads each server's weight from its server file
    /// as an unsigned integer, and the point counts follow from integer
    /// weights; fractional weights are not something it can be told.
    ///
    /// ```
    /// use reshard::{Error, Ketama};
    /// let r = Ketama::named(["a", "b"])?.with_weights([1, 3])?;
    /// assert_eq!(r.digests(), [20, 60]); // ⌊40·2·¼⌋ and ⌊40·2·¾⌋
    /// assert!(matches!(Ketama::new(2)?.with_weights([1, 0]), Err(Error::BadWeight { .. })));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn with_weights<W: IntoIterator<Item = u32>>(self, weights: W) -> Result<Self> {
        let weights: Vec<u32> = weights.into_iter().collect();
        if weights.len() != self.nodes.len() {
            return Err(Error::LengthMismatch {
                what: "weights for servers",
                expected: self.nodes.len(),
                given: weights.len(),
            });
        }
        if let Some(i) = weights.iter().position(|&w| w == 0) {
            return Err(Error::BadWeight { node: self.nodes[i].clone(), weight: "0".into() });
        }
        Ketama::build(self.nodes, weights)
    }

    fn build(nodes: Vec<String>, weights: Vec<u32>) -> Result<Self> {
        let n = nodes.len();
        crate::limits::check_hint("servers", n as u128, MAX_SERVERS as u128, "use fewer servers (160 points each)")?;
        let digests = digest_counts(&weights);
        // libketama would leave such a server in the list with no point,
        // never sent a key: refused, as the weights are too far apart
        if let Some(i) = digests.iter().position(|&d| d == 0) {
            return Err(Error::WeightsTooUneven {
                node: nodes[i].clone(),
                weight: u64::from(weights[i]),
                total: weights.iter().map(|&w| u64::from(w)).sum(),
            });
        }
        let mut points = Vec::with_capacity(digests.iter().sum::<usize>() * 4);
        let mut buf = Vec::new();
        for (id, name) in nodes.iter().enumerate() {
            for k in 0..digests[id] {
                buf.clear();
                buf.extend_from_slice(name.as_bytes());
                buf.push(b'-');
                push_decimal(&mut buf, k as u64);
                let d: [u8; 16] = Md5::digest(&buf).into();
                for h in 0..4 {
                    let p = u32::from_le_bytes([d[4 * h], d[4 * h + 1], d[4 * h + 2], d[4 * h + 3]]);
                    points.push((p, id as NodeId));
                }
            }
        }
        points.sort_unstable();
        Ok(Ketama { nodes, weights, points })
    }

    /// The weights, in server order.
    pub fn weights(&self) -> &[u32] {
        &self.weights
    }

    /// How many md5 digests (of 4 points each) each server has.
    pub fn digests(&self) -> Vec<usize> {
        digest_counts(&self.weights)
    }

    /// The points in ring order: `(point, server)`, ascending by point.
    pub fn points(&self) -> &[(u32, NodeId)] {
        &self.points
    }

    /// The server owning a libketama key hash: the first point at or after
    /// it, wrapping to the first point.
    #[inline]
    fn owner_of_hash(&self, h: u32) -> NodeId {
        let i = self.points.partition_point(|&(p, _)| p < h);
        self.points[if i == self.points.len() { 0 } else { i }].1
    }
}

/// `⌊f32(f64(f32(w / Σw)) · 40 · N)⌋` per server, as libketama computes it.
fn digest_counts(weights: &[u32]) -> Vec<usize> {
    let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
    let n = weights.len() as f64;
    weights
        .iter()
        .map(|&w| {
            let pct = w as f32 / total as f32;
            (f64::from(pct) * DIGESTS * n) as f32 as usize
        })
        .collect()
}

impl Locate for Ketama {
    /// At 128 bits the ketama hash comes from the key's md5 hash; at 32
    /// bits those bytes were dropped, so the key is hashed again.
    fn hash_only(&self) -> bool {
        false
    }

    #[inline]
    fn locate(&self, key: Key<'_>) -> NodeId {
        let h = match key.width {
            HashWidth::Bits128 => from_md5(key.hash),
            HashWidth::Bits32 => ketama_hash(&key.spelling()),
        };
        self.owner_of_hash(h)
    }
}

impl Placement for Ketama {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// Every server's points are hashed again: 40 md5 digests per server.
    fn change_cost(&self, nodes: usize) -> u128 {
        40 * nodes as u128
    }

    /// A new server of weight 1; every server's point count is computed
    /// again from its share of the total weight.
    fn add_node(&self, name: &str) -> Result<Self> {
        let mut weights = self.weights.clone();
        weights.push(1);
        Ketama::build(with_added(&self.nodes, name)?, weights)
    }

    /// The server's points go (the others' counts are computed again).
    fn remove_node(&self, name: &str) -> Result<Self> {
        let (nodes, gone) = without(&self.nodes, name)?;
        let mut weights = self.weights.clone();
        weights.remove(gone as usize);
        Ketama::build(nodes, weights)
    }

    /// At 128 bits, read the ketama hash off the stored md5 hashes without
    /// spelling the keys.
    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        let mut out = vec![0; keys.len()];
        let hashes = keys.hashes();
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
            let base = c * CHUNK;
            let len = out.len();
            match keys.width() {
                HashWidth::Bits128 => {
                    for (slot, &h) in out.iter_mut().zip(&hashes[base..base + len]) {
                        *slot = self.owner_of_hash(from_md5(h));
                    }
                }
                HashWidth::Bits32 => {
                    let mut w = keys.keys().writer();
                    for (j, slot) in out.iter_mut().enumerate() {
                        *slot = self.owner_of_hash(ketama_hash(w.key(base + j)));
                    }
                }
            }
        });
        out
    }
}
