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
//! A `server` name that resolves to several addresses becomes several peers
//! sharing one name (and one set of points); that is not modelled: give
//! each server once.
//!
//! A server marked `down` (or one that failed `max_fails` times within
//! `fail_timeout`, which nginx treats the same way until the timeout ends)
//! is modelled by [`NginxHash::with_down`]:
//!
//! * the consistent method tries the next point, and the next, until one
//!   belongs to a server that is up: the ring without the down server's
//!   points, so the same as [`Placement::remove_node`] (a server's points
//!   do not depend on the others);
//! * the plain method *rehashes*: try `t = 1, 2, …` adds
//!   `(crc32("{t}" ++ key) >> 16) & 0x7fff` to the running value and walks
//!   again over **all** the weights, down servers included. That is not
//!   removing the server: a key of the down server lands on a server picked
//!   afresh, and the other keys stay (removing it instead moves most keys,
//!   since `Σweight` changes).
//!
//! Both give up after 21 tries and fall back to round robin (as nginx does
//! for an empty key or a single server), which depends on the requests
//! before; this module then answers the first server that is up, in config
//! order. With one server of three down that happens to about one key in
//! 3²¹ ≈ 10¹⁰.
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

use crate::keys::{push_decimal, HashedKeys};
use crate::schemes::hashkit::{crc32, crc32_update};
use crate::schemes::{
    assign_each, check_names, index_of, numbered, with_added, without, Key, Locate, NodeId, Placement,
};
use crate::{Error, Result};

/// Ring points per unit of weight.
const POINTS_PER_WEIGHT: u64 = 160;

/// Servers nginx tries before it falls back to round robin.
const TRIES: usize = 21;

/// An nginx upstream with `hash $key [consistent];`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NginxHash {
    nodes: Vec<String>,
    weights: Vec<u32>,
    consistent: bool,
    /// Servers marked `down`, in config order.
    down: Vec<bool>,
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
        NginxHash::named(numbered(n)?)
    }

    /// Servers as the `server` lines write their addresses
    /// (`"127.0.0.1:8001"`, `"cache1.local:11211"`), weight 1, in config
    /// order, with plain `hash $key;` (see [`with_consistent`](Self::with_consistent)).
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, Key, Locate, NginxHash};
    /// let up = NginxHash::named(["10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80"])?;
    /// // (crc32(key) >> 16) & 0x7fff, mod 3 servers (CRC-32 from Python's zlib):
    /// // key0 0x5b5b54c6 → 23,387 % 3 = 2 · key1 0x2c5c6450 → 11,356 % 3 = 1
    /// // key2 0xb55535ea → 13,653 % 3 = 0
    /// let owners: Vec<&str> = ["key0", "key1", "key2"].iter().map(|k| up.owner(Key::new(k, HashWidth::Bits32))).collect();
    /// assert_eq!(owners, ["10.0.0.3:80", "10.0.0.2:80", "10.0.0.1:80"]);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn named<I, S>(servers: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(servers)?;
        let n = nodes.len();
        NginxHash::build(nodes, vec![1; n], false, vec![false; n])
    }

    /// `true`: `hash $key consistent;` (the CRC-32 ring); `false`: plain
    /// `hash $key;`.
    pub fn with_consistent(self, consistent: bool) -> Self {
        NginxHash { consistent, ..self }
    }

    /// The same servers with `weight=` values (each ≥ 1; all together at
    /// most 62,500, the crate's limit of 10,000,000 ring points).
    ///
    /// Why `u32`: nginx's `server … weight=N;` takes a positive integer.
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
        NginxHash::build(self.nodes, weights, self.consistent, self.down)
    }

    /// The same upstream with these servers marked `down` (and the others
    /// up); at least one must stay up (else nginx answers 502).
    ///
    /// ```
    /// use reshard::{NginxHash, Placement};
    /// let up = NginxHash::named(["a:1", "b:1", "c:1"])?;
    /// let b_down = up.clone().with_down(["b:1"])?;
    /// // plain hash: b's keys are rehashed, everyone else's stay
    /// for i in 0..1000 {
    ///     let key = format!("key:{i}");
    ///     let (before, after) = (up.server_of(key.as_bytes()), b_down.server_of(key.as_bytes()));
    ///     assert!(after != 1 && (before == 1 || before == after));
    /// }
    /// assert!(up.with_down(["a:1", "b:1", "c:1"]).is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn with_down<I, S>(self, names: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut down = vec![false; self.nodes.len()];
        for name in names {
            down[index_of(&self.nodes, name.as_ref())? as usize] = true;
        }
        if down.iter().all(|&d| d) {
            return Err(Error::AllServersDown);
        }
        Ok(NginxHash { down, ..self })
    }

    fn build(nodes: Vec<String>, weights: Vec<u32>, consistent: bool, down: Vec<bool>) -> Result<Self> {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        crate::limits::check_hint(
            "ring points (160 per unit of weight)",
            u128::from(total) * u128::from(POINTS_PER_WEIGHT),
            crate::limits::current().max_ring_points,
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
        Ok(NginxHash { nodes, weights, consistent, down, points, cumulative })
    }

    /// Whether this is `hash $key consistent;`.
    pub fn is_consistent(&self) -> bool {
        self.consistent
    }

    /// The weights, in config order.
    pub fn weights(&self) -> &[u32] {
        &self.weights
    }

    /// Which servers are marked `down`, in config order.
    pub fn down(&self) -> &[bool] {
        &self.down
    }

    /// The consistent ring's points, `(point, server)` ascending (built
    /// whether or not the method is consistent).
    pub fn points(&self) -> &[(u32, NodeId)] {
        &self.points
    }

    /// The server for the raw key bytes (see the module docs for servers
    /// that are down).
    ///
    /// ```
    /// use reshard::NginxHash;
    /// let plain = NginxHash::named(["a:1", "b:1"])?.with_weights([1, 2])?;
    /// // crc32("foo") = 0x8c736521: 0x0c73 % 3 = 3187 % 3 = 1, inside b's two values (1, 2)
    /// assert_eq!(plain.server_of(b"foo"), 1);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn server_of(&self, key: &[u8]) -> NodeId {
        let up = |id: NodeId| !self.down[id as usize];
        let found = if self.consistent {
            let first = self.points.partition_point(|&(p, _)| p < crc32(key));
            (0..TRIES).map(|t| self.points[(first + t) % self.points.len()].1).find(|&id| up(id))
        } else {
            let total = *self.cumulative.last().unwrap_or(&1);
            let mut value = 0u64;
            let mut buf = Vec::with_capacity(key.len() + 20);
            (0..TRIES).find_map(|t| {
                buf.clear();
                if t > 0 {
                    push_decimal(&mut buf, t as u64);
                }
                buf.extend_from_slice(key);
                value += u64::from((crc32(&buf) >> 16) & 0x7fff);
                let id = self.cumulative.partition_point(|&c| c <= value % total) as NodeId;
                up(id).then_some(id)
            })
        };
        // nginx's round-robin fallback depends on earlier requests
        found.unwrap_or_else(|| self.down.iter().position(|&d| !d).unwrap_or(0) as NodeId)
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

    /// The points are computed again: 160 CRC-32s per unit of weight
    /// (each about a tenth of an md5), when the hash is consistent.
    fn change_cost(&self, nodes: usize) -> u128 {
        let weight: u128 = self.weights.iter().map(|&w| u128::from(w)).sum::<u128>().max(nodes as u128);
        if self.consistent {
            16 * weight
        } else {
            nodes as u128
        }
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        assign_each(self, keys)
    }

    /// One more `server` line, weight 1, up, at the end.
    fn add_node(&self, name: &str) -> Result<Self> {
        let mut weights = self.weights.clone();
        weights.push(1);
        let mut down = self.down.clone();
        down.push(false);
        NginxHash::build(with_added(&self.nodes, name)?, weights, self.consistent, down)
    }

    /// The upstream without that `server` line.
    fn remove_node(&self, name: &str) -> Result<Self> {
        let (nodes, gone) = without(&self.nodes, name)?;
        let mut weights = self.weights.clone();
        weights.remove(gone as usize);
        let mut down = self.down.clone();
        down.remove(gone as usize);
        if down.iter().all(|&d| d) {
            return Err(Error::AllServersDown);
        }
        NginxHash::build(nodes, weights, self.consistent, down)
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
