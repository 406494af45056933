//! twemproxy (nutcracker 0.5.0): which backend a pool sends a key to.
//!
//! A twemproxy pool lists its servers as `host:port:weight [name]` and picks
//! one per key in four steps, reproduced here key for key:
//!
//! 1. **hash tag** (`hash_tag: "{}"`, exactly two characters): if the key
//!    has the open character, and the close character somewhere after that
//!    first open, with at least one byte between them, only those bytes
//!    are hashed; an empty tag (`{}`) or a missing close leaves the whole
//!    key (twemproxy does not look for a later tag);
//! 2. **hash** ([`TwemHash`], `hash:`, default `fnv1a_64`) of those bytes to
//!    32 bits (an empty key hashes to 0);
//! 3. **server order**: nutcracker sorts the servers by name — shorter
//!    names first, then byte by byte — before it builds anything, so the
//!    order in the config file does not count; a server's name is its
//!    `name` if the line has one, else `host:port` (just `host` when the
//!    port is 11211, as libmemcached did);
//! 4. **distribution** ([`TwemDistribution`]):
//!    * `ketama`: each server gets `⌊f32(f32(w/Σw) · 160 / 4 · N) + 10⁻¹⁰⌋ · 4`
//!      points (160 with equal weights; the float rounding can cost a
//!      server 4 points), 4 per md5 digest of `"{name}-{k}"`, `k = 0, 1, …`
//!      (bytes `4h … 4h+3` little-endian, as libketama); the key goes to the
//!      first point at or after its hash, wrapping to the first point;
//!    * `modula`: the servers, in that order, each repeated `weight` times;
//!      the key goes to entry `hash % Σw`.
//!
//! With `auto_eject_hosts: true` a server that fails `server_failure_limit`
//! times in a row is taken out for `server_retry_timeout` and the
//! distribution is built again over the live servers — points and shares
//! computed afresh from the live weights — which is exactly
//! [`Placement::remove_node`] here. (`distribution: random` is not a
//! placement: it draws a server per request.)
//!
//! ```
//! use reshard::{HashWidth, Key, Locate, Placement, TwemDistribution, TwemHash, Twemproxy};
//! let pool = Twemproxy::from_servers(["127.0.0.1:6001:1 alpha", "127.0.0.1:6002:1 beta"])?;
//! assert_eq!(pool.nodes(), ["alpha", "beta"]);
//! assert_eq!(pool.points().len(), 320);
//! let modula = pool.with_distribution(TwemDistribution::Modula).with_hash(TwemHash::Crc32a);
//! // nutcracker's order puts the shorter name first: beta, then alpha
//! assert_eq!(modula.server_order(), [1, 0]);
//! // crc32a("foo") = 0x8c736521 (zlib), odd → the second in that order
//! assert_eq!(modula.owner(Key::new("foo", HashWidth::Bits32)), "alpha");
//! let tagged = modula.with_hash_tag("{}")?;
//! assert_eq!(tagged.owner(Key::new("user:{foo}:1", HashWidth::Bits32)), "alpha");
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::{push_decimal, HashedKeys};
use crate::schemes::hashkit::TwemHash;
use crate::schemes::{assign_each, check_names, numbered, with_added, without, Key, Locate, NodeId, Placement};
use crate::{Error, Result};
use md5::{Digest, Md5};
use std::cmp::Ordering;

/// Longest point name nutcracker hashes (`snprintf` into 273 bytes).
const MAX_POINT_NAME: usize = 272;

/// The largest weight nutcracker reads: its config keeps a weight in a C
/// `int` (2,147,483,647).
pub const MAX_WEIGHT: u32 = i32::MAX as u32;

/// How a twemproxy pool spreads keys (`distribution:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TwemDistribution {
    /// `ketama`: a ring of md5 points, 160 per server of average weight.
    Ketama,
    /// `modula`: `hash % Σweight` over the servers repeated by weight.
    Modula,
}

/// A twemproxy server pool: servers, hash, hash tag and distribution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Twemproxy {
    nodes: Vec<String>,
    addresses: Vec<String>,
    weights: Vec<u32>,
    hash: TwemHash,
    distribution: TwemDistribution,
    tag: Option<[u8; 2]>,
    /// Server indices in nutcracker's order (by name: length, then bytes).
    order: Vec<NodeId>,
    /// The ketama continuum, `(point, server)` ascending.
    points: Vec<(u32, NodeId)>,
    /// Running weight totals in `order` (for modula).
    cumulative: Vec<u64>,
}

/// nutcracker's name order: shorter first, then byte by byte.
fn by_name(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

/// Parse one `servers:` entry, `host:port:weight [name]` (or
/// `/unix/path:weight [name]`), into (name, address, weight) the way
/// nutcracker's config reader splits it, from the end.
fn parse_server(line: &str) -> Result<(String, String, u32)> {
    let bad = |problem: &'static str| Error::BadServerLine { line: line.to_string(), problem };
    let (spec, name) = match line.rsplit_once(' ') {
        Some((spec, name)) if !name.is_empty() => (spec, Some(name)),
        Some(_) => return Err(bad("ends with a space")),
        None => (line, None),
    };
    let (rest, weight) = spec.rsplit_once(':').ok_or_else(|| bad("has no weight"))?;
    let weight: u32 = match weight.parse::<i32>() {
        Ok(w) if w > 0 && weight.bytes().all(|c| c.is_ascii_digit()) => w as u32,
        _ => return Err(bad("has a weight that is not a whole number from 1 to 2147483647")),
    };
    let (address, default_name) = if rest.starts_with('/') {
        // a unix socket: nutcracker's default name keeps the ':' after the path
        (rest.to_string(), format!("{rest}:"))
    } else {
        let (host, port) = rest.rsplit_once(':').ok_or_else(|| bad("has no port"))?;
        match port.parse::<u16>() {
            Ok(p) if p > 0 && port.bytes().all(|c| c.is_ascii_digit()) => {}
            _ => return Err(bad("has a port that is not from 1 to 65535")),
        }
        let default = if port == "11211" { host.to_string() } else { rest.to_string() };
        (rest.to_string(), default)
    };
    Ok((name.map_or(default_name, str::to_string), address, weight))
}

impl Twemproxy {
    /// `n` servers named `"0"` … `"{n-1}"`, weight 1, `fnv1a_64`, ketama.
    pub fn new(n: usize) -> Result<Self> {
        Twemproxy::named(numbered(n)?)
    }

    /// Servers by their twemproxy names (the `name` of each `servers:`
    /// line, or `host:port` without one), weight 1, `hash: fnv1a_64`,
    /// `distribution: ketama`, no hash tag (twemproxy's defaults).
    ///
    /// # Examples
    ///
    /// The continuum built by hand gives the same owners:
    ///
    /// ```
    /// use reshard::{md5_u128, HashWidth, Key, Locate, Twemproxy};
    /// let pool = Twemproxy::named(["alpha", "beta"])?;
    /// let mut points = Vec::new(); // equal weights: 40 digests of "{name}-{k}", 4 points each
    /// for s in ["alpha", "beta"] {
    ///     for k in 0..40 {
    ///         let d = md5_u128(format!("{s}-{k}").as_bytes()).to_be_bytes();
    ///         points.extend(d.chunks(4).map(|b| (u32::from_le_bytes([b[0], b[1], b[2], b[3]]), s)));
    ///     }
    /// }
    /// points.sort();
    /// // fnv1a_64, low 32 bits (ASCII keys, so the signed-char reading changes nothing)
    /// let fnv = |key: &str| key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)) as u32;
    /// assert_eq!(fnv("foo"), 0xfed9_d577); // FNV-1a 64 of "foo" is 0xdcb27518fed9d577
    /// for key in ["foo", "bar", "user:0", "user:1"] {
    ///     let owner = points.iter().find(|p| p.0 >= fnv(key)).unwrap_or(&points[0]).1;
    ///     assert_eq!(pool.owner(Key::new(key, HashWidth::Bits32)), owner);
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
        Twemproxy::build(nodes.clone(), nodes, vec![1; n], TwemHash::Fnv1a64, TwemDistribution::Ketama, None)
    }

    /// Servers as a config's `servers:` list writes them,
    /// `"host:port:weight [name]"`; names and weights are read as
    /// nutcracker reads them (no name: `host:port`, or `host` on port 11211).
    ///
    /// ```
    /// use reshard::{Placement, Twemproxy};
    /// let p = Twemproxy::from_servers(["10.0.0.1:6379:2", "10.0.0.2:11211:1", "10.0.0.3:6379:1 c"])?;
    /// assert_eq!(p.nodes(), ["10.0.0.1:6379", "10.0.0.2", "c"]);
    /// assert_eq!(p.addresses(), ["10.0.0.1:6379", "10.0.0.2:11211", "10.0.0.3:6379"]);
    /// assert_eq!(p.weights(), [2, 1, 1]);
    /// assert!(Twemproxy::from_servers(["10.0.0.1:6379"]).is_err()); // no weight
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn from_servers<I, S>(lines: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let parsed = lines.into_iter().map(|l| parse_server(l.as_ref().trim())).collect::<Result<Vec<_>>>()?;
        let nodes = check_names(parsed.iter().map(|p| p.0.clone()))?;
        let addresses = parsed.iter().map(|p| p.1.clone()).collect();
        let weights = parsed.iter().map(|p| p.2).collect();
        Twemproxy::build(nodes, addresses, weights, TwemHash::Fnv1a64, TwemDistribution::Ketama, None)
    }

    /// The same pool with these weights (`weight` of each server line,
    /// 1 to 2³¹−1, in [`nodes`](Placement::nodes) order).
    ///
    /// Why `u32`: nutcracker's config writes a server as `host:port:weight`
    /// with an integer weight, and keeps the weights' total in 32 bits.
    ///
    /// ```
    /// use reshard::Twemproxy;
    /// let p = Twemproxy::named(["a", "b", "c"])?.with_weights([1, 2, 3])?;
    /// // shares 1/6, 2/6, 3/6 of 40 digests × 3 servers
    /// assert_eq!(p.points_per_server(), [80, 160, 240]);
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
        if let Some(i) = weights.iter().position(|&w| w > MAX_WEIGHT) {
            return Err(Error::WeightTooLarge {
                node: self.nodes[i].clone(),
                weight: u64::from(weights[i]),
                max: u64::from(MAX_WEIGHT),
                program: "twemproxy",
            });
        }
        Twemproxy::build(self.nodes, self.addresses, weights, self.hash, self.distribution, self.tag)
    }

    /// The same pool with another key hash (`hash:`).
    pub fn with_hash(self, hash: TwemHash) -> Self {
        Twemproxy { hash, ..self }
    }

    /// The same pool with another distribution (`distribution:`).
    pub fn with_distribution(self, distribution: TwemDistribution) -> Self {
        Twemproxy { distribution, ..self }
    }

    /// The same pool with a hash tag (`hash_tag:`): exactly two characters,
    /// the open and the close, as `"{}"` or `"::"`.
    ///
    /// ```
    /// use reshard::Twemproxy;
    /// let p = Twemproxy::new(3)?.with_hash_tag("{}")?;
    /// assert_eq!(p.hashed_part(b"user:{42}:cart"), b"42");
    /// assert_eq!(p.hashed_part(b"x{}{7}"), b"x{}{7}"); // empty tag: whole key
    /// assert_eq!(p.hashed_part(b"a{b"), b"a{b"); // no close: whole key
    /// assert!(Twemproxy::new(3)?.with_hash_tag("{").is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn with_hash_tag(self, tag: &str) -> Result<Self> {
        match tag.as_bytes() {
            &[open, close] => Ok(Twemproxy { tag: Some([open, close]), ..self }),
            _ => Err(Error::UnknownName {
                what: "hash tag (two single-byte characters)",
                given: tag.to_string(),
                choices: "an open and a close character, e.g. \"{}\" or \"[]\"".into(),
            }),
        }
    }

    fn build(
        nodes: Vec<String>,
        addresses: Vec<String>,
        weights: Vec<u32>,
        hash: TwemHash,
        distribution: TwemDistribution,
        tag: Option<[u8; 2]>,
    ) -> Result<Self> {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        if total > u64::from(u32::MAX) {
            return Err(Error::Overflow {
                what: "the total of the weights (nutcracker keeps it in 32 bits, at most 4,294,967,295)",
                hint: "use smaller weights",
            });
        }
        let mut order: Vec<NodeId> = (0..nodes.len() as NodeId).collect();
        order.sort_by(|&a, &b| by_name(&nodes[a as usize], &nodes[b as usize]));
        let per_server = ketama_counts(&weights);
        let mut points = Vec::with_capacity(per_server.iter().map(|&p| p as usize).sum());
        let mut buf = Vec::new();
        for &id in &order {
            for k in 0..per_server[id as usize] / 4 {
                buf.clear();
                buf.extend_from_slice(nodes[id as usize].as_bytes());
                buf.push(b'-');
                push_decimal(&mut buf, u64::from(k));
                buf.truncate(MAX_POINT_NAME);
                let d: [u8; 16] = Md5::digest(&buf).into();
                for h in d.chunks_exact(4) {
                    points.push((u32::from_le_bytes([h[0], h[1], h[2], h[3]]), id));
                }
            }
        }
        if points.is_empty() {
            // no server has a point (nutcracker's ketama would have nothing to dispatch to)
            let i = per_server.iter().position(|&p| p < 4).unwrap_or(0);
            return Err(Error::WeightsTooUneven { node: nodes[i].clone(), weight: u64::from(weights[i]), total });
        }
        // equal points (rare) in name order: nutcracker's qsort leaves them open
        let rank: Vec<usize> = {
            let mut r = vec![0; nodes.len()];
            for (i, &id) in order.iter().enumerate() {
                r[id as usize] = i;
            }
            r
        };
        points.sort_by_key(|&(p, id)| (p, rank[id as usize]));
        let cumulative = order
            .iter()
            .scan(0u64, |acc, &id| {
                *acc += u64::from(weights[id as usize]);
                Some(*acc)
            })
            .collect();
        Ok(Twemproxy { nodes, addresses, weights, hash, distribution, tag, order, points, cumulative })
    }

    /// The key hash in use.
    pub fn hash(&self) -> TwemHash {
        self.hash
    }

    /// The distribution in use.
    pub fn distribution(&self) -> TwemDistribution {
        self.distribution
    }

    /// The hash tag's two characters, if one is set.
    pub fn hash_tag(&self) -> Option<[u8; 2]> {
        self.tag
    }

    /// The weights, in [`nodes`](Placement::nodes) order.
    pub fn weights(&self) -> &[u32] {
        &self.weights
    }

    /// Each server's address: `host:port` from [`from_servers`](Self::from_servers),
    /// else its name.
    pub fn addresses(&self) -> &[String] {
        &self.addresses
    }

    /// The servers (indices into [`nodes`](Placement::nodes)) in the order
    /// nutcracker keeps them: by name, shorter names first.
    ///
    /// ```
    /// use reshard::Twemproxy;
    /// let p = Twemproxy::named(["server10", "server9", "a"])?;
    /// assert_eq!(p.server_order(), [2, 1, 0]); // a, server9, server10
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn server_order(&self) -> &[NodeId] {
        &self.order
    }

    /// How many ketama points each server has, in [`nodes`](Placement::nodes) order.
    pub fn points_per_server(&self) -> Vec<u32> {
        ketama_counts(&self.weights)
    }

    /// The ketama continuum, `(point, server)` ascending (built whatever
    /// the distribution).
    pub fn points(&self) -> &[(u32, NodeId)] {
        &self.points
    }

    /// The bytes twemproxy hashes for `key`: the hash tag's inside if there
    /// is a non-empty one, else the whole key.
    pub fn hashed_part<'k>(&self, key: &'k [u8]) -> &'k [u8] {
        let Some([open, close]) = self.tag else { return key };
        if let Some(o) = key.iter().position(|&c| c == open) {
            if let Some(len) = key[o + 1..].iter().position(|&c| c == close) {
                if len > 0 {
                    return &key[o + 1..o + 1 + len];
                }
            }
        }
        key
    }

    /// The 32-bit number the distribution receives for `key`: the hash of
    /// [`hashed_part`](Self::hashed_part), 0 for an empty key.
    ///
    /// ```
    /// use reshard::{TwemHash, Twemproxy};
    /// let p = Twemproxy::new(2)?.with_hash(TwemHash::Fnv1a32);
    /// assert_eq!(p.key_hash(b"a"), 0xe40c_292c); // FNV-1a 32 of "a"
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn key_hash(&self, key: &[u8]) -> u32 {
        let part = self.hashed_part(key);
        if part.is_empty() {
            0
        } else {
            self.hash.hash(part)
        }
    }

    /// The server for a distribution input `h` (a [`key_hash`](Self::key_hash)).
    pub fn server_of_hash(&self, h: u32) -> NodeId {
        match self.distribution {
            TwemDistribution::Ketama => {
                let i = self.points.partition_point(|&(p, _)| p < h);
                self.points[if i == self.points.len() { 0 } else { i }].1
            }
            TwemDistribution::Modula => {
                let total = *self.cumulative.last().unwrap_or(&1);
                let slot = u64::from(h) % total;
                self.order[self.cumulative.partition_point(|&c| c <= slot)]
            }
        }
    }
}

/// Points per server, as nutcracker's `ketama_update` counts them.
fn ketama_counts(weights: &[u32]) -> Vec<u32> {
    let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
    let live = weights.len() as f32;
    weights
        .iter()
        .map(|&w| {
            let pct = w as f32 / total as f32;
            let x = pct * 160.0_f32 / 4.0_f32 * live;
            let y = (f64::from(x) + 0.000_000_000_1) as f32;
            y.floor() as u32 * 4
        })
        .collect()
}

impl Locate for Twemproxy {
    fn hash_only(&self) -> bool {
        false
    }

    fn locate(&self, key: Key<'_>) -> NodeId {
        if self.nodes.len() == 1 {
            return 0;
        }
        self.server_of_hash(self.key_hash(key.bytes))
    }
}

impl Placement for Twemproxy {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// The continuum is built again: 40 md5 digests per server.
    fn change_cost(&self, nodes: usize) -> u128 {
        40 * nodes as u128
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        assign_each(self, keys)
    }

    /// A new server of weight 1 whose name (and address) is `name`.
    fn add_node(&self, name: &str) -> Result<Self> {
        let nodes = with_added(&self.nodes, name)?;
        let mut addresses = self.addresses.clone();
        addresses.push(name.to_string());
        let mut weights = self.weights.clone();
        weights.push(1);
        Twemproxy::build(nodes, addresses, weights, self.hash, self.distribution, self.tag)
    }

    /// The pool after nutcracker ejects `name` (`auto_eject_hosts`): the
    /// distribution built again over the others.
    fn remove_node(&self, name: &str) -> Result<Self> {
        let (nodes, gone) = without(&self.nodes, name)?;
        let mut addresses = self.addresses.clone();
        addresses.remove(gone as usize);
        let mut weights = self.weights.clone();
        weights.remove(gone as usize);
        Twemproxy::build(nodes, addresses, weights, self.hash, self.distribution, self.tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_lines_are_split_from_the_end() {
        let (name, addr, w) = parse_server("127.0.0.1:6379:10 cache-a").unwrap();
        assert_eq!((name.as_str(), addr.as_str(), w), ("cache-a", "127.0.0.1:6379", 10));
        let (name, _, _) = parse_server("/tmp/r.sock:1").unwrap();
        assert_eq!(name, "/tmp/r.sock:");
        for bad in ["127.0.0.1:6379:0", "127.0.0.1:6379:x", "127.0.0.1:0:1", "127.0.0.1:1", "a:1:1 "] {
            assert!(parse_server(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn oversized_totals_and_zero_weights_are_refused() {
        let p = Twemproxy::new(2).unwrap();
        assert!(matches!(p.clone().with_weights([0, 1]), Err(Error::BadWeight { .. })));
        let big = p.clone().with_weights([1 << 31, 1]).unwrap_err();
        assert!(matches!(big, Error::WeightTooLarge { max: 2_147_483_647, .. }), "{big:?}");
        assert!(big.to_string().contains("over 2,147,483,647, the most twemproxy reads"), "{big}");
        assert!(p.clone().with_weights([i32::MAX as u32, i32::MAX as u32]).is_ok());
        assert!(Twemproxy::new(3).unwrap().with_weights([i32::MAX as u32; 3]).is_err());
        assert!(matches!(p.with_weights([1]), Err(Error::LengthMismatch { .. })));
    }
}
