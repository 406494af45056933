//! Rendezvous (highest-random-weight) hashing.
//!
//! Every node gets a score for every key, md5 of `"{key}:{node}"`, and the
//! node with the highest score owns the key (the lowest node id wins a
//! tie). Adding a node adds one score per key and changes none of the
//! others, so a key either moves to the new node or stays: no key ever
//! moves between two old nodes.
//!
//! The weighted variant scores `−w / ln(u)`, with `u` the score scaled into
//! (0, 1): a node of weight `w` then wins a `w / Σw` share of the keys and
//! the minimal-movement property is kept.
//!
//! ```
//! use reshard::{HashWidth, KeySet, Movement, Rendezvous};
//! let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128)?;
//! let ten = Rendezvous::new(10)?;
//! let eleven = Rendezvous::new(11)?;
//! let m = Movement::measure(&keys, &ten, &eleven)?;
//! assert_eq!(m.between_kept(), 0);          // nobody hops between old nodes
//! assert_eq!(m.to_added(), m.moved());      // every mover lands on node 10
//! # Ok::<(), reshard::Error>(())
//! ```

mod join;

use crate::keys::HashedKeys;
use crate::schemes::{check_names, index_of, numbered, with_added, without, Key, Locate, NodeId, Placement, CHUNK};
use crate::{md5_u128, Error, HashWidth, Result};
use rayon::prelude::*;

/// Rendezvous hashing over named nodes, optionally weighted.
#[derive(Debug, Clone)]
pub struct Rendezvous {
    nodes: Vec<String>,
    /// `":{name}"` for each node, appended to the key before hashing.
    suffixes: Vec<Vec<u8>>,
    weights: Option<Vec<f64>>,
    /// The weights as scored: each times one power of two, so that the
    /// largest lies in [1, 2). Scaling by a power of two is exact, so every
    /// score is the unscaled one times that power and every comparison
    /// comes out the same, except that weights near `f64::MAX` no longer
    /// overflow to ∞ (every key a tie, won by the first node) and weights
    /// near the smallest subnormal no longer lose their digits.
    scaled: Option<Vec<f64>>,
}

impl Rendezvous {
    /// `n` nodes named `"0"` … `"{n-1}"`, as in document `002`.
    pub fn new(n: usize) -> Result<Self> {
        Rendezvous::named(numbered(n)?)
    }

    /// Nodes with these names, all of weight 1.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, Key, Locate, Rendezvous};
    /// let abc = Rendezvous::named(["A", "B", "C"])?;
    /// // the highest md5 mod 2^32 of "{key}:{node}" wins (Python's hashlib):
    /// // user:0:A 1,362,314,271 · user:0:B 1,317,213,634 · user:0:C 2,771,136,116
    /// assert_eq!(abc.owner(Key::new("user:0", HashWidth::Bits32)), "C");
    /// // user:1:A 4,234,465,217 · user:1:B 1,134,675,594 · user:1:C 31,719,640
    /// assert_eq!(abc.owner(Key::new("user:1", HashWidth::Bits32)), "A");
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn named<I, S>(names: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Ok(Rendezvous::build(check_names(names)?, None))
    }

    fn build(nodes: Vec<String>, weights: Option<Vec<f64>>) -> Self {
        let suffixes = nodes.iter().map(|n| format!(":{n}").into_bytes()).collect();
        let scaled = weights.as_ref().map(|w| {
            let top = w.iter().copied().fold(0.0, f64::max);
            // top = m · 2^e with m in [0.5, 1): times 2^(1 − e), it is in [1, 2)
            let e = libm::frexp(top).1;
            w.iter().map(|&x| libm::scalbn(x, 1 - e)).collect()
        });
        Rendezvous { nodes, suffixes, weights, scaled }
    }

    /// The same nodes with these weights (one finite weight > 0 each).
    ///
    /// Why `f64`: weighted rendezvous scores `−w / ln(u)`, a formula over real
    /// numbers, and no program's config dictates an integer; a weight may be
    /// any finite number > 0 (`0.5`, `2.75`).
    ///
    /// ```
    /// use reshard::{Error, Rendezvous};
    /// assert!(Rendezvous::named(["a", "b"])?.with_weights([1.0, 3.0]).is_ok());
    /// assert!(matches!(Rendezvous::new(2)?.with_weights([1.0, 0.0]), Err(Error::BadWeight { .. })));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn with_weights<W: IntoIterator<Item = f64>>(self, weights: W) -> Result<Self> {
        let weights: Vec<f64> = weights.into_iter().collect();
        if weights.len() != self.nodes.len() {
            return Err(Error::LengthMismatch {
                what: "weights for nodes",
                expected: self.nodes.len(),
                given: weights.len(),
            });
        }
        for (n, &w) in self.nodes.iter().zip(&weights) {
            if !(w.is_finite() && w > 0.0) {
                return Err(Error::BadWeight { node: n.clone(), weight: format!("{w}") });
            }
        }
        Ok(Rendezvous::build(self.nodes, Some(weights)))
    }

    /// The same nodes and one more, `name`, of weight `weight` (a finite
    /// number > 0); an unweighted placement becomes weighted, every other
    /// node of weight 1. Only keys move to the new node, as with
    /// [`add_node`](Placement::add_node).
    ///
    /// ```
    /// use reshard::{Error, Placement, Rendezvous};
    /// let two = Rendezvous::new(2)?.with_weights([1000.0, 1000.0])?;
    /// assert_eq!(two.add_node("2").unwrap_err(), Error::WeightNeeded { node: "2".into() });
    /// let three = two.add_weighted_node("2", 1000.0)?;
    /// assert_eq!(three.weights(), Some(&[1000.0, 1000.0, 1000.0][..]));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn add_weighted_node(&self, name: &str, weight: f64) -> Result<Self> {
        let nodes = with_added(&self.nodes, name)?;
        let mut weights = self.weights.clone().unwrap_or_else(|| vec![1.0; self.nodes.len()]);
        weights.push(weight);
        Rendezvous::build(nodes, None).with_weights(weights)
    }

    /// The weights, if this is the weighted variant.
    pub fn weights(&self) -> Option<&[f64]> {
        self.weights.as_deref()
    }

    /// The raw score of node `node` for a key: md5 of `"{key}:{node}"` at
    /// the key's width. Fails on an unknown node.
    ///
    /// ```
    /// use reshard::{HashWidth, Key, Locate, Rendezvous};
    /// let r = Rendezvous::new(3)?;
    /// let key = Key::new("key7", HashWidth::Bits128);
    /// let best = ["0", "1", "2"].into_iter().max_by_key(|n| r.score(key, n).unwrap()).unwrap();
    /// assert_eq!(r.owner(key), best);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn score(&self, key: Key<'_>, node: &str) -> Result<u128> {
        let i = index_of(&self.nodes, node)? as usize;
        let mut buf = key.spelling().into_owned();
        buf.extend_from_slice(&self.suffixes[i]);
        Ok(key.width.hash(&buf))
    }

    /// The argmax over `raw` scores (one per node, in node order), applying
    /// the weights if any. Strictly greater wins, so the lowest id wins ties.
    #[inline]
    fn best(&self, raw: impl Iterator<Item = u128>, width: HashWidth) -> NodeId {
        match &self.scaled {
            None => {
                let mut best = (0, 0u128);
                for (i, s) in raw.enumerate() {
                    if i == 0 || s > best.1 {
                        best = (i, s);
                    }
                }
                best.0 as NodeId
            }
            Some(w) => {
                let mut best = (0, f64::NEG_INFINITY);
                for (i, s) in raw.enumerate() {
                    let score = -w[i] / unit(s, width).ln();
                    if i == 0 || score > best.1 {
                        best = (i, score);
                    }
                }
                best.0 as NodeId
            }
        }
    }
}

impl Rendezvous {
    /// The first `rf` nodes by score for `key`, best first: the owner,
    /// then the runners-up (the natural replica set of rendezvous hashing).
    /// Ties go to the lower node id, as in [`Locate::locate`].
    pub(crate) fn ranked(&self, key: Key<'_>, rf: usize, out: &mut Vec<NodeId>) {
        let mut buf = key.spelling().into_owned();
        let klen = buf.len();
        let raw: Vec<u128> = self.suffixes.iter().map(|s| raw_score(&mut buf, klen, s, key.width)).collect();
        let mut ids: Vec<usize> = (0..self.nodes.len()).collect();
        match &self.scaled {
            None => ids.sort_unstable_by(|&a, &b| raw[b].cmp(&raw[a]).then(a.cmp(&b))),
            Some(w) => {
                let score: Vec<f64> = raw.iter().zip(w).map(|(&r, &w)| -w / unit(r, key.width).ln()).collect();
                ids.sort_unstable_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
            }
        }
        out.extend(ids.into_iter().take(rf).map(|i| i as NodeId));
    }
}

/// A hash scaled into the open interval (0, 1).
#[inline]
fn unit(h: u128, width: HashWidth) -> f64 {
    match width {
        HashWidth::Bits32 => (h as f64 + 0.5) / 4_294_967_296.0,
        HashWidth::Bits128 => ((h >> 75) as f64 + 0.5) / 9_007_199_254_740_992.0,
    }
}

/// Hash `"{key}:{node}"` for one key and one node suffix.
#[inline]
fn raw_score(buf: &mut Vec<u8>, key_len: usize, suffix: &[u8], width: HashWidth) -> u128 {
    buf.truncate(key_len);
    buf.extend_from_slice(suffix);
    width.reduce(md5_u128(buf))
}

impl Locate for Rendezvous {
    fn hash_only(&self) -> bool {
        false
    }

    fn locate(&self, key: Key<'_>) -> NodeId {
        // spell "{key}:{node}" on the stack when it fits (no allocation)
        let mut stack = [0u8; 128];
        let mut heap = Vec::new();
        let spelled = key.spelling();
        let n = spelled.len();
        let longest = self.suffixes.iter().map(Vec::len).max().unwrap_or(0);
        let buf: &mut [u8] = if n + longest <= stack.len() {
            &mut stack[..]
        } else {
            heap.resize(n + longest, 0);
            &mut heap[..]
        };
        buf[..n].copy_from_slice(&spelled);
        let raw = self.suffixes.iter().map(|s| {
            buf[n..n + s.len()].copy_from_slice(s);
            key.width.reduce(md5_u128(&buf[..n + s.len()]))
        });
        self.best(raw, key.width)
    }
}

impl Placement for Rendezvous {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        self.assign_both(None, keys).0
    }

    fn check_cost(&self, keys: &HashedKeys) -> Result<()> {
        use crate::limits::{self, md5_blocks};
        // one md5 of "{key}{suffix}" per key and node, counted in 64-byte
        // blocks: a long key or node name costs more (keys of average length)
        let n = keys.len().max(1) as u128;
        let key_len = usize::try_from(keys.keys().byte_len().div_ceil(n)).unwrap_or(usize::MAX);
        let per_key: u128 = self.suffixes.iter().map(|s| md5_blocks(key_len.saturating_add(s.len()))).sum();
        limits::check_hint(
            "rendezvous scores (keys × nodes, in md5 blocks)",
            (keys.len() as u128).saturating_mul(per_key),
            limits::current().max_hashes,
            "use fewer keys or fewer nodes (or shorter names)",
        )
    }

    /// A new node adds one score per key; it wins only the keys where its
    /// score is the highest. A weighted placement cannot choose the new
    /// node's weight: it fails with [`Error::WeightNeeded`] (use
    /// [`Rendezvous::add_weighted_node`]).
    fn add_node(&self, name: &str) -> Result<Self> {
        if self.weights.is_some() {
            return Err(Error::WeightNeeded { node: name.to_string() });
        }
        Ok(Rendezvous::build(with_added(&self.nodes, name)?, None))
    }

    /// The node's scores go; only its keys move.
    fn remove_node(&self, name: &str) -> Result<Self> {
        let (nodes, gone) = without(&self.nodes, name)?;
        let weights = self.weights.clone().map(|mut w| {
            w.remove(gone as usize);
            w
        });
        Ok(Rendezvous::build(nodes, weights))
    }

    /// Hashes each `(key, node)` pair once even when both placements score
    /// the same node: scores are computed over the union of the node names.
    fn assign_pair(&self, after: &Self, keys: &HashedKeys) -> (Vec<NodeId>, Vec<NodeId>) {
        self.assign_both(Some(after), keys)
    }
}

impl Rendezvous {
    /// Owners under `self` and, if given, under `after`, scoring each
    /// distinct node name once per key. Without `after` the second vector
    /// is empty.
    fn assign_both(&self, after: Option<&Self>, keys: &HashedKeys) -> (Vec<NodeId>, Vec<NodeId>) {
        let mut union: Vec<&[u8]> = self.suffixes.iter().map(Vec::as_slice).collect();
        let mut after_idx = Vec::new();
        if let Some(after) = after {
            for s in &after.suffixes {
                match union.iter().position(|u| *u == s.as_slice()) {
                    Some(i) => after_idx.push(i),
                    None => {
                        union.push(s);
                        after_idx.push(union.len() - 1);
                    }
                }
            }
        }
        let width = keys.width();
        let mut before = vec![0; keys.len()];
        let mut later = vec![0; if after.is_some() { keys.len() } else { 0 }];
        let job = |c: usize, out_b: &mut [NodeId], mut out_a: Option<&mut [NodeId]>| {
            let mut w = keys.keys().writer();
            let mut raw = vec![0u128; union.len()];
            let mut buf = Vec::with_capacity(64);
            let base = c * CHUNK;
            for j in 0..out_b.len() {
                buf.clear();
                buf.extend_from_slice(w.key(base + j));
                let klen = buf.len();
                for (r, s) in raw.iter_mut().zip(&union) {
                    *r = raw_score(&mut buf, klen, s, width);
                }
                out_b[j] = self.best(raw[..self.nodes.len()].iter().copied(), width);
                if let (Some(a), Some(after)) = (out_a.as_deref_mut(), after) {
                    a[j] = after.best(after_idx.iter().map(|&i| raw[i]), width);
                }
            }
        };
        if after.is_some() {
            before
                .par_chunks_mut(CHUNK)
                .zip(later.par_chunks_mut(CHUNK))
                .enumerate()
                .for_each(|(c, (b, a))| job(c, b, Some(a)));
        } else {
            before.par_chunks_mut(CHUNK).enumerate().for_each(|(c, b)| job(c, b, None));
        }
        (before, later)
    }
}
