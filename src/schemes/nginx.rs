//! nginx's `hash` upstream (1.22): `hash $key;` and `hash $key consistent;`.
//!
//! nginx's `ngx_http_upstream_hash_module` picks an upstream server from a
//! key (`$arg_key`, `$request_uri`, …, the value's bytes as nginx holds
//! them: `$arg_key` is the query argument *as sent*, percent-escapes not
//! decoded). Both methods are reproduced here, for servers that are all up:
//!
//! * **`hash $key consistent;`** (Cache::Memcached::Fast's ring): each
//!   server, named as the `server` line writes it (`127.0.0.1:8001`), is
//!   split into host and port (the digits after the last `:`; a name
//!   without them is all host), and gets `160 × weight` points: point `j`
//!   is the standard CRC-32 of `host`, one zero byte, `port`, and the
//!   previous point's value as 4 little-endian bytes (zero for the
//!   first). The points are sorted and a value already taken is dropped
//!   (the server listed first keeps it). A key goes to the first point at
//!   or above `crc32(key)`, wrapping to the first point.
//! * **`hash $key;`** (Cache::Memcached's): `h = (crc32(key) >> 16) & 0x7fff`
//!   (15 bits), then `w = h % Σweight` walks the servers in config order,
//!   each covering `weight` values.
//!
//! What this does not model: a server that is `down` or has failed
//! `max_fails` times. The consistent method then tries the next point
//! (skipping servers already tried), which is the ring without that
//! server's points — [`Placement::remove_node`] here, since a server's
//! points do not depend on the others. The plain method instead
//! *rehashes*: try `t` adds `(crc32("{t}" ++ key) >> 16) & 0x7fff` to the
//! running value and walks again, which differs from removing the server.
//! Both give up after 20 tries and fall back to round robin, as they do for
//! an empty key or a single server.
//!
//! ```
//! use reshard::{HashWidth, Key, Locate, NginxHash};
//! let servers = ["127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003"];
//! let plain = NginxHash::named(servers)?;
//! // crc32("foo") = 0x8c736521 (zlib): (0x8c73 & 0x7fff) % 3 = 3187 % 3 = 1
//! assert_eq!(plain.owner(Key::new("foo", HashWidth::Bits32)), "127.0.0.1:8002");
//! let ring = plain.with_consistent(true);
//! assert_eq!(ring.points().len(), 480);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::schemes::hashkit::{crc32, crc32_update};
use crate::schemes::{assign_each, check_names, numbered, with_added, without, Key, Locate, NodeId, Placement};
use crate::{Error, Result};

/// Ring points per unit of weight.
const POINTS_PER_WEIGHT: u64 = 160;

/// An nginx upstream with `hash $key [consistent];`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NginxHash {
    nodes: Vec<String>,
    weights: Vec<u32>,
    consistent: bool,
    /// The consistent ring, `(point, server)` ascending, values distinct.
    points: Vec<(u32, NodeId)>,
    /// Running weight totals in config order (for the plain method).
    cumulative: Vec<u64>,
}

/// A server's host and port as nginx splits them for its ring.
///
/// ```
/// use reshard::schemes::nginx::host_and_port;
/// assert_eq!(host_and_port("127.0.0.1:8001"), ("127.0.0.1", "8001"));
/// assert_eq!(host_and_port("[::1]:80"), ("[::1]", "80"));
/// assert_eq!(host_and_port("cache.local"), ("cache.local", ""));
/// assert_eq!(host_and_port("unix:/tmp/s.sock"), ("/tmp/s.sock", ""));
/// ```
pub fn host_and_port(server: &str) -> (&str, &str) {
    if server.len() >= 5 && server.as_bytes()[..5].eq_ignore_ascii_case(b"unix:") {
        return (&server[5..], "");
    }
    let digits = server.bytes().rev().take_while(u8::is_ascii_digit).count();
    let cut = server.len() - digits;
    if cut > 0 && server.as_bytes()[cut - 1] == b':' {
        (&server[..cut - 1], &server[cut..])
    } else {
        (server, "")
    }
}

impl NginxHash {
    /// `n` servers named `"0"` … `"{n-1}"`, weight 1, plain `hash`.
    pub fn new(n: usize) -> Result<Self> {
        NginxHash::named(numbered(n))
    }

    /// Servers as the `server` lines write their addresses
    /// (`"127.0.0.1:8001"`, `"cache1.local:11211"`), weight 1, in config
    /// order, with plain `hash $key;` (see [`with_consistent`](Self::with_consistent)).
    pub fn named<I, S>(servers: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(servers)?;
        let n = nodes.len();
        NginxHash::build(nodes, vec![1; n], false)
    }

    /// `true`: `hash $key consistent;` (the CRC-32 ring); `false`: plain
    /// `hash $key;`.
    pub fn with_consistent(self, consistent: bool) -> Self {
        NginxHash { consistent, ..self }
    }

    /// The same servers with `weight=` values (each ≥ 1; all together at
    /// most 62,500, the crate's limit of 10,000,000 ring points).
    ///
    /// ```
    /// use reshard::NginxHash;
    /// let up = NginxHash::named(["a:1", "b:1"])?.with_weights([1, 2])?.with_consistent(true);
    /// assert_eq!(up.points().len(), 480);
    /// assert!(NginxHash::new(2)?.with_weights([0, 1]).is_err());
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
        NginxHash::build(self.nodes, weights, self.consistent)
    }

    fn build(nodes: Vec<String>, weights: Vec<u32>, consistent: bool) -> Result<Self> {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        crate::limits::check_hint(
            "ring points (160 per unit of weight)",
            u128::from(total) * u128::from(POINTS_PER_WEIGHT),
            crate::limits::MAX_RING_POINTS,
            "use smaller weights",
        )?;
        let mut points = Vec::with_capacity((total * POINTS_PER_WEIGHT) as usize);
        for (id, (server, &w)) in nodes.iter().zip(&weights).enumerate() {
            let (host, port) = host_and_port(server);
            let base = crc32_update(crc32_update(crc32_update(!0, host.as_bytes()), &[0]), port.as_bytes());
            let mut prev = 0u32;
            for _ in 0..u64::from(w) * POINTS_PER_WEIGHT {
                prev = !crc32_update(base, &prev.to_le_bytes());
                points.push((prev, id as NodeId));
            }
        }
        // a stable sort, then the first of equal values kept, as nginx's
        // qsort (glibc's merge sort) and its dedup loop do
        points.sort_by_key(|&(p, _)| p);
        points.dedup_by_key(|&mut (p, _)| p);
        let cumulative = weights
            .iter()
            .scan(0u64, |acc, &w| {
                *acc += u64::from(w);
                Some(*acc)
            })
            .collect();
        Ok(NginxHash { nodes, weights, consistent, points, cumulative })
    }

    /// Whether this is `hash $key consistent;`.
    pub fn is_consistent(&self) -> bool {
        self.consistent
    }

    /// The weights, in config order.
    pub fn weights(&self) -> &[u32] {
        &self.weights
    }

    /// The consistent ring's points, `(point, server)` ascending (built
    /// whether or not the method is consistent).
    pub fn points(&self) -> &[(u32, NodeId)] {
        &self.points
    }

    /// The server for the raw key bytes, all servers up.
    ///
    /// ```
    /// use reshard::NginxHash;
    /// let plain = NginxHash::named(["a:1", "b:1"])?.with_weights([1, 2])?;
    /// // crc32("foo") = 0x8c736521: 0x0c73 % 3 = 3187 % 3 = 1, inside b's two values (1, 2)
    /// assert_eq!(plain.server_of(b"foo"), 1);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn server_of(&self, key: &[u8]) -> NodeId {
        let h = crc32(key);
        if self.consistent {
            let i = self.points.partition_point(|&(p, _)| p < h);
            self.points[i % self.points.len()].1
        } else {
            let total = *self.cumulative.last().unwrap_or(&1);
            let w = u64::from((h >> 16) & 0x7fff) % total;
            self.cumulative.partition_point(|&c| c <= w) as NodeId
        }
    }
}

impl Locate for NginxHash {
    fn hash_only(&self) -> bool {
        false
    }

    fn locate(&self, key: Key<'_>) -> NodeId {
        self.server_of(key.bytes)
    }
}

impl Placement for NginxHash {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        assign_each(self, keys)
    }

    /// One more `server` line, weight 1, at the end.
    fn add_node(&self, name: &str) -> Result<Self> {
        let mut weights = self.weights.clone();
        weights.push(1);
        NginxHash::build(with_added(&self.nodes, name)?, weights, self.consistent)
    }

    /// The upstream without that `server` line.
    fn remove_node(&self, name: &str) -> Result<Self> {
        let (nodes, gone) = without(&self.nodes, name)?;
        let mut weights = self.weights.clone();
        weights.remove(gone as usize);
        NginxHash::build(nodes, weights, self.consistent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_keeps_its_points_when_another_joins() {
        let three = NginxHash::named(["a:1", "b:2", "c:3"]).unwrap().with_consistent(true);
        let four = three.add_node("d:4").unwrap();
        let of = |r: &NginxHash, id: NodeId| -> Vec<u32> {
            r.points().iter().filter(|&&(_, s)| s == id).map(|&(p, _)| p).collect()
        };
        assert_eq!(of(&three, 0), of(&four, 0));
        assert_eq!(four.points().len(), 640);
    }

    #[test]
    fn too_much_weight_is_refused() {
        let err = NginxHash::new(2).unwrap().with_weights([40_000, 40_000]).unwrap_err();
        assert!(matches!(err, Error::TooLarge { .. }), "{err}");
    }
}
