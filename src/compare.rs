//! One workload, every scheme, side by side.
//!
//! [`Comparison::run`] grows (or shrinks) a cluster from `from` to `to`
//! nodes under every placement scheme of this crate and measures, over the
//! same hashed keys:
//!
//! * **keys moved** — the count, the share, and the share over the floor
//!   `|to − from| / max(from, to)` (the least any scheme that keeps the
//!   load even must move);
//! * **movers between old nodes** ([`Movement::between_kept`]): keys that
//!   hop between two nodes that were there before and after — churn that
//!   buys no capacity;
//! * **load after** — the busiest node over the fair share, and the
//!   standard deviation of the per-node counts over their mean;
//! * **lookup time** — nanoseconds per [`Placement::locate`] call, timed
//!   single-threaded over the first [`TIMING_SAMPLE`] keys with
//!   [`std::time::Instant`]. **Machine-dependent**: it changes from run to
//!   run and from machine to machine, so it has its own table
//!   ([`Comparison::timing_table`]) and [`Comparison::table_without_timing`]
//!   leaves it out;
//! * **memory** — an estimate, in bytes, of the lookup structure a real
//!   implementation would keep beyond the list of node names
//!   ([`MemoryEstimate`]).
//!
//! Every scheme numbers its nodes `"0"` … `"{n-1}"` (as the schemes'
//! `new(n)` do), so the nodes before and after are matched by name.
//!
//! The schemes ([`Scheme`]): `hash % N`; the ring with 150 and with 1 point
//! per node; rendezvous hashing, plain and weighted with equal weights;
//! 1000 fixed shards rebalanced with seed 42; jump hash; Redis Cluster's
//! 16384 slots (new nodes join one at a time with `add_node`); Maglev with
//! `M = 65537`; the libketama ring (160 points per server); and bounded
//! loads (`ε = 0.25` over the 150-point ring).
//!
//! The documentation's default workload is 100,000 keys `key0 …
//! key99999`, 128-bit md5, 10 → 11 nodes; the example below uses fewer
//! keys so that it runs quickly.
//!
//! ```
//! use reshard::{Comparison, HashWidth, KeySet, Scheme};
//! let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128)?;
//! let c = Comparison::run(&keys, 10, 11)?;
//! assert_eq!(c.rows().len(), Scheme::ALL.len());
//! let modulo = c.row(Scheme::Modulo).unwrap();
//! let jump = c.row(Scheme::Jump).unwrap();
//! assert!(modulo.share > 0.85 && modulo.between_kept > 4_000);
//! assert_eq!(jump.between_kept, 0);
//! assert!((jump.over_floor.unwrap() - 1.0).abs() < 0.15);
//! // The deterministic columns only (for notebooks whose outputs are compared):
//! assert!(!c.table_without_timing().to_text().contains("machine-dependent"));
//! assert!(c.table().to_text().contains("machine-dependent"));
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! ## The ring's load spread, as in the jump hash paper
//!
//! Lamping & Veach (2014, "A Fast, Minimal Memory, Consistent Hash
//! Algorithm") compare how evenly the key space is divided among the
//! buckets by the ring of Karger et al. with `k` points per bucket: the
//! standard error (standard deviation over the mean) of the bucket sizes
//! is 0.3152 with 10 points, 0.0997 with 100 and 0.0316 with 1000 —
//! about `1/√k` ([`PAPER_RING_SPREAD`]). For `N` nodes with `k` random
//! points each, a node's share of the circle is a sum of `k` of the `kN`
//! gaps and its relative variance is exactly `(N − 1)/(kN + 1)`, which is
//! within 0.3% of the paper's three values for `N = 1000`.
//!
//! [`LoadSpread::ring`] measures it on salted rings (salts `"0:"`, `"1:"`,
//! …): per ring, the relative standard deviation over the nodes of (a)
//! each node's share of the circle ([`Ring::arc_shares`], the key space:
//! what the paper's table measures) and (b) each node's count of the
//! given keys, which adds the sampling noise of a finite key set,
//! `(N − 1)/m` for `m` keys, to the variance. Over several arrangements
//! the variances are averaged (the root mean square is reported).
//! [`LoadSpread::jump`] measures jump hash's key counts, which only have
//! that sampling noise: the binomial floor `√((N − 1)/m)`.
//! [`ring_spread`] does both; its default setup, used by the tests, is
//! `N = 1000` nodes, `k = 10, 100, 1000`, 2 arrangements and 1,000,000
//! keys `key{i}`.
//!
//! ```
//! use reshard::compare::LoadSpread;
//! use reshard::{HashWidth, KeySet};
//! let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128)?;
//! let s = LoadSpread::ring(&keys, 200, &[10, 100], 1)?;
//! for r in s.rows() {
//!     let k = r.points_per_node.unwrap() as f64;
//!     assert!((r.key_space.unwrap() * k.sqrt() - 1.0).abs() < 0.15); // ≈ 1/√k
//! }
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! ## Removing a node from the middle
//!
//! [`middle_removal`] removes node `"{remove}"` of `0 … n−1` under the
//! schemes that have named nodes (ring, rendezvous, Maglev, fixed shards,
//! slots, ketama): only the removed node's keys need to move. Jump hash and
//! `hash % N` number their nodes `0 … n−1` and can only lose the last one;
//! removing a middle node means renumbering the nodes after it (old node
//! `i > remove` becomes bucket `i − 1`), and then far more keys move. Both
//! readings get a row: the middle node removed by renumbering, and the last
//! node removed instead.
//!
//! ```
//! use reshard::compare::middle_removal;
//! use reshard::{HashWidth, KeySet};
//! let keys = KeySet::plain(10_000).hashed(HashWidth::Bits128)?;
//! let r = middle_removal(&keys, 10, 4)?;
//! let ring = r.rows().iter().find(|x| x.label.starts_with("ring")).unwrap();
//! assert_eq!(ring.between_kept, 0);
//! let renumbered = r.rows().iter().find(|x| x.label.starts_with("jump, node 4")).unwrap();
//! assert!(renumbered.between_kept > 2_000);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::{HashedKeys, KeyWriter};
use crate::load::LoadReport;
use crate::placement::{numbered, Key, NodeId, Placement};
use crate::plot::{self, BarChart, LineChart, Series, Style};
use crate::sweep::salt;
use crate::table::{pct, shows_as_table, thousands, Table};
use crate::{
    Bounded, Error, FixedShards, HashWidth, Jump, Ketama, Maglev, Modulo, Movement, Rendezvous, Result, Ring, Slots,
};
use rayon::prelude::*;
use std::hint::black_box;
use std::time::Instant;

/// Points per node of the ring (and of the bounded-load ring).
pub const RING_VNODES: usize = 150;
/// Fixed shards: the shard count.
pub const SHARDS: usize = 1000;
/// Fixed shards: the seed of the rebalancing shuffle.
pub const SHARD_SEED: u64 = 42;
/// Bounded loads: each node holds at most `⌈(1 + ε) · m / n⌉` keys.
pub const EPSILON: f64 = 0.25;
/// How many keys (the first ones) [`Comparison::run`] times lookups over.
pub const TIMING_SAMPLE: usize = 100_000;

/// The free parameters of a [`Comparison`]; [`Default`] gives the
/// constants above (150 points, 1000 shards with seed 42, ε = 0.25,
/// M = 65537) and times lookups over [`TIMING_SAMPLE`] keys.
///
/// ```
/// use reshard::compare::{CompareSettings, Comparison, Scheme};
/// use reshard::{HashWidth, KeySet};
/// let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128)?;
/// let s = CompareSettings { vnodes: 40, epsilon: 0.1, maglev_m: 10_007, timed_keys: 0, ..Default::default() };
/// let c = Comparison::run_with(&keys, 10, 11, &s)?;
/// assert_eq!(c.row(Scheme::Ring).unwrap().name, "ring (40 points/node)");
/// assert_eq!(c.row(Scheme::Maglev).unwrap().name, "Maglev (M = 10007)");
/// # Ok::<(), reshard::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CompareSettings {
    /// Points per node of the ring and of the bounded-load ring.
    pub vnodes: usize,
    /// Fixed shards: the shard count.
    pub shards: usize,
    /// Fixed shards: the seed of the rebalancing shuffle.
    pub seed: u64,
    /// Bounded loads: ε.
    pub epsilon: f64,
    /// Maglev's table size (a prime).
    pub maglev_m: usize,
    /// How many keys (the first ones) lookups are timed over; 0: no timing.
    pub timed_keys: usize,
}

impl Default for CompareSettings {
    fn default() -> Self {
        CompareSettings {
            vnodes: RING_VNODES,
            shards: SHARDS,
            seed: SHARD_SEED,
            epsilon: EPSILON,
            maglev_m: crate::maglev::DEFAULT_TABLE_SIZE,
            timed_keys: TIMING_SAMPLE,
        }
    }
}

impl CompareSettings {
    /// The name of `scheme`'s row under these settings.
    pub fn label(&self, scheme: Scheme) -> String {
        match scheme {
            Scheme::Ring => format!("ring ({} point{}/node)", self.vnodes, if self.vnodes == 1 { "" } else { "s" }),
            Scheme::FixedShards => format!("fixed shards ({}, seed {})", self.shards, self.seed),
            Scheme::Maglev => format!("Maglev (M = {})", self.maglev_m),
            Scheme::Bounded => format!("bounded loads (ε = {})", self.epsilon),
            other => other.label().to_string(),
        }
    }
}

/// The standard error of the ring's bucket sizes with `k` points per
/// bucket, `(k, value)`, from the table of Lamping & Veach (2014).
pub const PAPER_RING_SPREAD: [(usize, f64); 3] = [(10, 0.3152), (100, 0.0997), (1000, 0.0316)];

/// The node count of the simulation the paper's values are set beside.
pub const PAPER_NODES: usize = 1000;

// ---------------------------------------------------------------- schemes

/// The placement schemes a [`Comparison`] runs, in table order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Scheme {
    /// `hash % N` ([`Modulo`]).
    Modulo,
    /// The ring with [`RING_VNODES`] points per node ([`Ring`]).
    Ring,
    /// The ring with 1 point per node.
    RingOnePoint,
    /// Rendezvous hashing ([`Rendezvous`]).
    Rendezvous,
    /// Weighted rendezvous hashing, every weight 1.
    WeightedRendezvous,
    /// [`SHARDS`] fixed shards, rebalanced with seed [`SHARD_SEED`]
    /// ([`FixedShards`]).
    FixedShards,
    /// Jump consistent hash ([`Jump`]).
    Jump,
    /// Redis Cluster's 16384 slots ([`Slots`]).
    Slots,
    /// Maglev with `M = 65537` ([`Maglev`]).
    Maglev,
    /// The libketama ring ([`Ketama`]).
    Ketama,
    /// Bounded loads, `ε =` [`EPSILON`], over the 150-point ring ([`Bounded`]).
    Bounded,
}

impl Scheme {
    /// Every scheme, in table order.
    pub const ALL: [Scheme; 11] = [
        Scheme::Modulo,
        Scheme::Ring,
        Scheme::RingOnePoint,
        Scheme::Rendezvous,
        Scheme::WeightedRendezvous,
        Scheme::FixedShards,
        Scheme::Jump,
        Scheme::Slots,
        Scheme::Maglev,
        Scheme::Ketama,
        Scheme::Bounded,
    ];

    /// The name shown in tables.
    pub fn label(self) -> &'static str {
        match self {
            Scheme::Modulo => "hash % N",
            Scheme::Ring => "ring (150 points/node)",
            Scheme::RingOnePoint => "ring (1 point/node)",
            Scheme::Rendezvous => "rendezvous",
            Scheme::WeightedRendezvous => "rendezvous, weighted (all 1)",
            Scheme::FixedShards => "fixed shards (1000, seed 42)",
            Scheme::Jump => "jump",
            Scheme::Slots => "Redis slots (16384)",
            Scheme::Maglev => "Maglev (M = 65537)",
            Scheme::Ketama => "ketama (160 points/server)",
            Scheme::Bounded => "bounded loads (ε = 0.25)",
        }
    }

    /// A short name for chart axes.
    pub fn short(self) -> &'static str {
        match self {
            Scheme::Modulo => "mod N",
            Scheme::Ring => "ring 150",
            Scheme::RingOnePoint => "ring 1",
            Scheme::Rendezvous => "HRW",
            Scheme::WeightedRendezvous => "HRW wtd",
            Scheme::FixedShards => "shards",
            Scheme::Jump => "jump",
            Scheme::Slots => "slots",
            Scheme::Maglev => "Maglev",
            Scheme::Ketama => "ketama",
            Scheme::Bounded => "bounded",
        }
    }
}

impl std::fmt::Display for Scheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

// ----------------------------------------------------------------- memory

/// An estimate of the memory a scheme's lookup structure takes, in bytes,
/// beyond the list of node names (which every scheme keeps).
///
/// The estimates count what a compact implementation stores, from the
/// structure's public sizes:
///
/// | scheme | estimate |
/// |---|---|
/// | `hash % N`, jump | 8 (the node count) |
/// | rendezvous | 8 per node (a seed or name hash per node); weighted: 16 (plus an `f64` weight) |
/// | ring | per point, the hash (16 bytes at 128 bits, 4 at 32) + a 4-byte node index |
/// | bounded loads | the ring, plus an 8-byte load counter per node |
/// | ketama | 8 per point (`u32` point + `u32` server) |
/// | fixed shards, slots | 4 per shard/slot (a `u32` node index) |
/// | Maglev | 4 per table entry + 8 per backend (offset, skip) |
///
/// ```
/// use reshard::compare::MemoryEstimate;
/// use reshard::{numbered, HashWidth, Maglev, Ring};
/// let ring = Ring::new(numbered(10), 150)?;
/// assert_eq!(ring.memory_bytes(HashWidth::Bits128), 1500 * 20);
/// assert_eq!(Maglev::new(numbered(10))?.memory_bytes(HashWidth::Bits128), 65_537 * 4 + 80);
/// # Ok::<(), reshard::Error>(())
/// ```
pub trait MemoryEstimate {
    /// Estimated bytes of the lookup structure at this hash width.
    fn memory_bytes(&self, width: HashWidth) -> u64;
}

fn hash_bytes(width: HashWidth) -> u64 {
    match width {
        HashWidth::Bits32 => 4,
        HashWidth::Bits128 => 16,
    }
}

impl MemoryEstimate for Modulo {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        8
    }
}

impl MemoryEstimate for Jump {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        8
    }
}

impl MemoryEstimate for Ring {
    fn memory_bytes(&self, width: HashWidth) -> u64 {
        (self.nodes().len() * self.vnodes()) as u64 * (hash_bytes(width) + 4)
    }
}

impl MemoryEstimate for Rendezvous {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        let per = if self.weights().is_some() { 16 } else { 8 };
        self.nodes().len() as u64 * per
    }
}

impl MemoryEstimate for FixedShards {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        self.shard_count() as u64 * 4
    }
}

impl MemoryEstimate for Slots {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        self.table().len() as u64 * 4
    }
}

impl MemoryEstimate for Maglev {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        self.table_size() as u64 * 4 + self.nodes().len() as u64 * 8
    }
}

impl MemoryEstimate for Ketama {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        self.points().len() as u64 * 8
    }
}

impl MemoryEstimate for Bounded {
    fn memory_bytes(&self, width: HashWidth) -> u64 {
        self.ring().memory_bytes(width) + self.nodes().len() as u64 * 8
    }
}

// ------------------------------------------------------------- comparison

/// One scheme's row of a [`Comparison`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SchemeRow {
    /// Which scheme.
    pub scheme: Scheme,
    /// Its table name.
    pub name: String,
    /// Keys whose node changed.
    pub moved: u64,
    /// `moved` over the key count.
    pub share: f64,
    /// `share` over the floor `|to − from| / max(from, to)`; `None` when
    /// the node count does not change (the floor is 0).
    pub over_floor: Option<f64>,
    /// Movers that landed on an added node.
    pub to_added: u64,
    /// Movers between two nodes present before and after.
    pub between_kept: u64,
    /// Movers that left a removed node.
    pub from_removed: u64,
    /// Busiest node after the change over the fair share.
    pub max_over_mean: f64,
    /// Standard deviation of the per-node counts after, over their mean.
    pub relative_std_dev: f64,
    /// Nanoseconds per lookup (machine-dependent).
    pub lookup_ns: f64,
    /// Estimated bytes of the lookup structure after ([`MemoryEstimate`]).
    pub memory_bytes: u64,
}

/// Every scheme over one workload: see the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Comparison {
    keys: u64,
    prefix: String,
    /// Serialized as the bit count, 32 or 128.
    #[cfg_attr(feature = "serde", serde(serialize_with = "width_bits"))]
    width: HashWidth,
    from: usize,
    to: usize,
    floor: f64,
    timed_keys: usize,
    rows: Vec<SchemeRow>,
}

/// The first keys, spelled once, for timing lookups.
struct Sample<'a> {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    hashes: &'a [u128],
    width: HashWidth,
}

impl<'a> Sample<'a> {
    fn new(keys: &'a HashedKeys, count: usize) -> Self {
        let n = count.min(keys.len());
        let mut w = KeyWriter::new(keys.keys().prefix());
        let mut bytes = Vec::with_capacity(n * (keys.keys().prefix().len() + 7));
        let mut ends = Vec::with_capacity(n);
        for i in 0..n {
            bytes.extend_from_slice(w.key(i));
            ends.push(bytes.len());
        }
        Sample { bytes, ends, hashes: &keys.hashes()[..n], width: keys.width() }
    }

    #[inline]
    fn key(&self, i: usize) -> Key<'_> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Key { bytes: &self.bytes[start..self.ends[i]], hash: self.hashes[i], width: self.width }
    }

    /// Nanoseconds per `locate`, single-threaded, after a short warm-up.
    fn time<P: Placement>(&self, p: &P) -> f64 {
        let n = self.ends.len();
        if n == 0 {
            return 0.0;
        }
        let mut acc: u64 = 0;
        for i in 0..n.min(1000) {
            acc = acc.wrapping_add(u64::from(p.locate(self.key(i))));
        }
        let start = Instant::now();
        for i in 0..n {
            acc = acc.wrapping_add(u64::from(p.locate(black_box(self.key(i)))));
        }
        let ns = start.elapsed().as_nanos() as f64 / n as f64;
        black_box(acc);
        ns
    }
}

/// Load after a change, over `after`'s nodes, from a movement's counts.
fn load_after(m: &Movement, after: &[String]) -> LoadReport {
    let load = m.load_after();
    let counts = after.iter().map(|n| m.nodes().iter().position(|x| x == n).map_or(0, |i| load[i])).collect();
    LoadReport::from_counts(after.to_vec(), counts)
}

#[cfg(feature = "serde")]
fn width_bits<S: serde::Serializer>(w: &HashWidth, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_u32(match w {
        HashWidth::Bits32 => 32,
        HashWidth::Bits128 => 128,
    })
}

fn floor_share(from: usize, to: usize) -> f64 {
    from.abs_diff(to) as f64 / from.max(to).max(1) as f64
}

impl Comparison {
    /// Every scheme from `from` to `to` nodes over `keys`, timing lookups
    /// over the first [`TIMING_SAMPLE`] keys.
    ///
    /// Fails (with the constructors' errors) on 0 nodes, more nodes than
    /// some scheme takes (e.g. more than 1000 for the fixed shards), or a
    /// change too large for a movement matrix.
    pub fn run(keys: &HashedKeys, from: usize, to: usize) -> Result<Comparison> {
        Comparison::run_timed(keys, from, to, TIMING_SAMPLE)
    }

    /// The same, timing lookups over the first `timed_keys` keys (0: no
    /// timing, every lookup time is 0).
    pub fn run_timed(keys: &HashedKeys, from: usize, to: usize, timed_keys: usize) -> Result<Comparison> {
        Comparison::run_with(keys, from, to, &CompareSettings { timed_keys, ..Default::default() })
    }

    /// Every scheme with the given settings (points per node, shards and
    /// seed, ε, Maglev's M, how many lookups to time).
    pub fn run_with(keys: &HashedKeys, from: usize, to: usize, settings: &CompareSettings) -> Result<Comparison> {
        let set = settings;
        // Cheap checks first, so bad input fails before any hashing.
        Modulo::new(from)?;
        Modulo::new(to)?;
        let shards = FixedShards::new(set.shards, from)?;
        let grown = shards.grow_to(to, set.seed)?;
        let slots = Slots::new(from)?;
        let resharded = slots_to(&slots, from, to)?;
        let (a, b) = (numbered(from), numbered(to));
        let (mb, ma) = (Maglev::with_table_size(a.clone(), set.maglev_m)?, Maglev::with_table_size(b.clone(), set.maglev_m)?);
        let (bb, ba) = (Bounded::new(a.clone(), set.vnodes, set.epsilon)?, Bounded::new(b.clone(), set.vnodes, set.epsilon)?);
        let floor = floor_share(from, to);
        let sample = Sample::new(keys, set.timed_keys);
        let s = &sample;
        let mut rows = Vec::with_capacity(Scheme::ALL.len());
        rows.push(row(Scheme::Modulo, set, keys, &Modulo::new(from)?, &Modulo::new(to)?, s, floor)?);
        let (rb, ra) = (Ring::new(a.clone(), set.vnodes)?, Ring::new(b.clone(), set.vnodes)?);
        rows.push(row(Scheme::Ring, set, keys, &rb, &ra, s, floor)?);
        let (rb, ra) = (Ring::new(a.clone(), 1)?, Ring::new(b.clone(), 1)?);
        rows.push(row(Scheme::RingOnePoint, set, keys, &rb, &ra, s, floor)?);
        rows.push(row(Scheme::Rendezvous, set, keys, &Rendezvous::new(from)?, &Rendezvous::new(to)?, s, floor)?);
        let wb = Rendezvous::weighted(a.clone(), vec![1.0; from])?;
        let wa = Rendezvous::weighted(b.clone(), vec![1.0; to])?;
        rows.push(row(Scheme::WeightedRendezvous, set, keys, &wb, &wa, s, floor)?);
        rows.push(row(Scheme::FixedShards, set, keys, &shards, &grown, s, floor)?);
        rows.push(row(Scheme::Jump, set, keys, &Jump::new(from)?, &Jump::new(to)?, s, floor)?);
        rows.push(row(Scheme::Slots, set, keys, &slots, &resharded, s, floor)?);
        rows.push(row(Scheme::Maglev, set, keys, &mb, &ma, s, floor)?);
        rows.push(row(Scheme::Ketama, set, keys, &Ketama::new(a)?, &Ketama::new(b)?, s, floor)?);
        rows.push(row(Scheme::Bounded, set, keys, &bb, &ba, s, floor)?);
        Ok(Comparison {
            keys: keys.len() as u64,
            prefix: keys.keys().prefix().to_string(),
            width: keys.width(),
            from,
            to,
            floor,
            timed_keys: sample.ends.len(),
            rows,
        })
    }

    /// The rows, in [`Scheme::ALL`] order.
    pub fn rows(&self) -> &[SchemeRow] {
        &self.rows
    }

    /// The row of one scheme.
    pub fn row(&self, scheme: Scheme) -> Option<&SchemeRow> {
        self.rows.iter().find(|r| r.scheme == scheme)
    }

    /// Nodes before.
    pub fn from(&self) -> usize {
        self.from
    }

    /// Nodes after.
    pub fn to(&self) -> usize {
        self.to
    }

    /// How many keys were placed.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// The floor `|to − from| / max(from, to)`: the least share any scheme
    /// that keeps the load even must move.
    pub fn floor(&self) -> f64 {
        self.floor
    }

    /// How many keys the lookups were timed over.
    pub fn timed_keys(&self) -> usize {
        self.timed_keys
    }

    fn title(&self) -> String {
        format!(
            "{} → {} nodes · {} keys ({}0 …) · {}",
            self.from,
            self.to,
            thousands(self.keys),
            self.prefix,
            self.width
        )
    }

    fn floor_note(&self) -> String {
        format!(
            "× floor: share moved over |{} − {}| / max = {}; between old nodes: movers from a node that stayed to another old node; load after: max/mean and std dev over mean; memory: estimated bytes of the lookup structure",
            self.to,
            self.from,
            pct(self.floor, 2)
        )
    }

    fn build_table(&self, timing: bool) -> Table {
        let mut headers = vec![
            "scheme",
            "keys moved",
            "share",
            "× floor",
            "between old nodes",
            "max/mean",
            "std dev",
            "memory (bytes)",
        ];
        if timing {
            headers.push("ns/lookup (machine-dependent)");
        }
        let mut t = Table::new(self.title(), headers);
        for r in &self.rows {
            let mut cells = vec![
                r.name.clone(),
                thousands(r.moved),
                pct(r.share, 2),
                r.over_floor.map_or("—".to_string(), |x| format!("{x:.2}×")),
                thousands(r.between_kept),
                format!("{:.3}", r.max_over_mean),
                pct(r.relative_std_dev, 2),
                thousands(r.memory_bytes),
            ];
            if timing {
                cells.push(format!("{:.1}", r.lookup_ns));
            }
            t.row(cells);
        }
        let mut note = self.floor_note();
        if timing {
            note.push_str(&format!("; {}", self.timing_note()));
        }
        t.note(note);
        t
    }

    fn timing_note(&self) -> String {
        format!(
            "ns/lookup: one locate() call, timed single-threaded over the first {} keys on this machine — it varies between runs and machines (bounded loads: the plain ring's lookup; the bounded assignment needs the whole key set)",
            thousands(self.timed_keys as u64)
        )
    }

    /// Every column, the lookup time included (marked machine-dependent).
    pub fn table(&self) -> Table {
        self.build_table(true)
    }

    /// Every deterministic column: the same output on every run and machine.
    pub fn table_without_timing(&self) -> Table {
        self.build_table(false)
    }

    /// The lookup times alone (machine-dependent).
    pub fn timing_table(&self) -> Table {
        let mut t = Table::new(
            format!("lookup time · {} (machine-dependent)", self.title()),
            ["scheme", "ns per lookup", "keys timed"],
        );
        for r in &self.rows {
            t.row([r.name.clone(), format!("{:.1}", r.lookup_ns), thousands(self.timed_keys as u64)]);
        }
        t.note(self.timing_note());
        t
    }

    fn groups(&self) -> Vec<&'static str> {
        self.rows.iter().map(|r| r.scheme.short()).collect()
    }

    fn bars(&self, title: &str, y_label: &str, series: &str, values: Vec<f64>) -> BarChart {
        plot::bar_chart(title, y_label, &self.groups(), &[(series, values)]).size(960, 420).x_label("scheme")
    }

    /// Share of keys moved per scheme, with the floor drawn across.
    pub fn chart_moved(&self, title: &str) -> BarChart {
        let v = self.rows.iter().map(|r| r.share).collect();
        self.bars(title, "share of keys moved", "moved", v)
            .y_percent(true)
            .reference(self.floor, &format!("floor |Δ|/max = {}", pct(self.floor, 2)))
    }

    /// Movers between old nodes (churn) per scheme, as a share of the keys.
    pub fn chart_churn(&self, title: &str) -> BarChart {
        let v = self.rows.iter().map(|r| r.between_kept as f64 / self.keys.max(1) as f64).collect();
        self.bars(title, "share of keys moved between old nodes", "between old nodes", v).y_percent(true)
    }

    /// Busiest node over the fair share after the change, with 1 drawn across.
    pub fn chart_balance(&self, title: &str) -> BarChart {
        let v = self.rows.iter().map(|r| r.max_over_mean).collect();
        self.bars(title, "max / mean load", "max/mean", v).reference(1.0, "perfectly even")
    }

    /// Nanoseconds per lookup (machine-dependent).
    pub fn chart_lookup(&self, title: &str) -> BarChart {
        let v = self.rows.iter().map(|r| r.lookup_ns).collect();
        self.bars(title, "ns per lookup (machine-dependent)", "ns/lookup", v)
    }

    /// Estimated bytes of the lookup structure.
    pub fn chart_memory(&self, title: &str) -> BarChart {
        let v = self.rows.iter().map(|r| r.memory_bytes as f64).collect();
        self.bars(title, "bytes (estimate)", "memory", v)
    }
}

shows_as_table!(Comparison);

/// Slots from `from` to `to` nodes: new nodes join one at a time with
/// [`Slots::add_node`]; leaving nodes go last first with
/// [`Slots::remove_node`].
fn slots_to(slots: &Slots, from: usize, to: usize) -> Result<Slots> {
    let mut s = slots.clone();
    if to > from {
        for i in from..to {
            s = s.add_node(&i.to_string())?;
        }
    } else {
        for i in (to..from).rev() {
            s = s.remove_node(&i.to_string())?;
        }
    }
    Ok(s)
}

fn row<P: Placement + MemoryEstimate>(
    scheme: Scheme,
    settings: &CompareSettings,
    keys: &HashedKeys,
    before: &P,
    after: &P,
    sample: &Sample<'_>,
    floor: f64,
) -> Result<SchemeRow> {
    let m = Movement::measure(keys, before, after)?;
    let load = load_after(&m, after.nodes());
    let lookup_ns = sample.time(after);
    Ok(SchemeRow {
        scheme,
        name: settings.label(scheme),
        moved: m.moved(),
        share: m.share(),
        over_floor: (floor > 0.0).then(|| m.share() / floor),
        to_added: m.to_added(),
        between_kept: m.between_kept(),
        from_removed: m.from_removed(),
        max_over_mean: load.max_over_mean(),
        relative_std_dev: load.relative_std_dev(),
        lookup_ns,
        memory_bytes: after.memory_bytes(keys.width()),
    })
}

// ------------------------------------------------------------ load spread

/// One row of a [`LoadSpread`]: a scheme (and for the ring, a number of
/// points per node) and how uneven its per-node load is.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SpreadRow {
    /// `"ring"` or `"jump"`.
    pub scheme: String,
    /// Points per node (the ring's `k`); `None` for jump.
    pub points_per_node: Option<usize>,
    /// Nodes (buckets).
    pub nodes: usize,
    /// Keys placed.
    pub keys: u64,
    /// Arrangements (salted rings) pooled; 1 for jump.
    pub arrangements: usize,
    /// Measured: std dev of the nodes' shares of the circle over the mean
    /// share (root mean square over the arrangements). `None` for jump.
    pub key_space: Option<f64>,
    /// Predicted: `√((N − 1)/(kN + 1))`. `None` for jump.
    pub key_space_predicted: Option<f64>,
    /// Measured: std dev of the per-node key counts over their mean (root
    /// mean square over the arrangements).
    pub key_counts: f64,
    /// Predicted: `√(key_space_predicted² + (N − 1)/m)` for `m` keys; for
    /// jump the binomial floor `√((N − 1)/m)`.
    pub key_counts_predicted: f64,
    /// The paper's standard error for this `k`, if its table has one
    /// ([`PAPER_RING_SPREAD`]).
    pub paper: Option<f64>,
}

/// How evenly the ring (with `k` points per node) and jump hash spread
/// the load: see the [module docs](self#the-rings-load-spread-as-in-the-jump-hash-paper).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LoadSpread {
    rows: Vec<SpreadRow>,
}

/// `√((N − 1)/(kN + 1))`: the relative std dev of a node's share of the
/// circle when `N` nodes have `k` uniformly random points each.
pub fn ring_spread_predicted(nodes: usize, k: usize) -> f64 {
    let (n, k) = (nodes as f64, k as f64);
    ((n - 1.0).max(0.0) / (k * n + 1.0)).sqrt()
}

/// Relative variance of a list of values around their mean.
fn relative_variance(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let (sum, count) = values.clone().fold((0.0, 0usize), |(s, c), v| (s + v, c + 1));
    if count == 0 || sum == 0.0 {
        return 0.0;
    }
    let mean = sum / count as f64;
    values.map(|v| (v / mean - 1.0).powi(2)).sum::<f64>() / count as f64
}

impl LoadSpread {
    /// Salted rings (salts `"0:"`, `"1:"`, …, `arrangements` of them) of
    /// `nodes` nodes named `"0"` … with `k` points per node for each `k` in
    /// `k_values`: the spread of the nodes' key-space shares and of their
    /// counts of `keys`.
    ///
    /// Fails on 0 nodes, an empty `k_values`, a `k` of 0, 0 arrangements,
    /// or more than 50,000,000 points on one ring.
    pub fn ring(keys: &HashedKeys, nodes: usize, k_values: &[usize], arrangements: usize) -> Result<LoadSpread> {
        if nodes == 0 {
            return Err(Error::NoNodes);
        }
        if k_values.is_empty() {
            return Err(Error::Invalid("no points-per-node values: give at least one k (e.g. 10, 100, 1000)".into()));
        }
        if arrangements == 0 {
            return Err(Error::Invalid("no arrangements: use a count of at least 1".into()));
        }
        for &k in k_values {
            if k == 0 {
                return Err(Error::ZeroVnodes);
            }
            if nodes.checked_mul(k).is_none_or(|t| t > 50_000_000) {
                return Err(Error::Invalid(format!(
                    "{nodes} nodes × {k} points is too many ring points: keep nodes × points at most 50,000,000"
                )));
            }
        }
        let names = numbered(nodes);
        let width = keys.width();
        keys.sorted_order();
        let m = keys.len() as f64;
        let mut rows = Vec::with_capacity(k_values.len());
        for &k in k_values {
            let vars = (0..arrangements)
                .into_par_iter()
                .map(|s| -> Result<(f64, f64)> {
                    let ring = Ring::salted(names.iter().cloned(), k, &salt(s))?;
                    let space = relative_variance(ring.arc_shares(width).into_iter());
                    let load = LoadReport::measure(keys, &ring);
                    Ok((space, load.relative_std_dev().powi(2)))
                })
                .collect::<Result<Vec<_>>>()?;
            let a = vars.len() as f64;
            let space = (vars.iter().map(|v| v.0).sum::<f64>() / a).sqrt();
            let counts = (vars.iter().map(|v| v.1).sum::<f64>() / a).sqrt();
            let predicted = ring_spread_predicted(nodes, k);
            rows.push(SpreadRow {
                scheme: "ring".into(),
                points_per_node: Some(k),
                nodes,
                keys: keys.len() as u64,
                arrangements,
                key_space: Some(space),
                key_space_predicted: Some(predicted),
                key_counts: counts,
                key_counts_predicted: (predicted.powi(2) + (nodes as f64 - 1.0) / m).sqrt(),
                // the paper's figures are for the setup simulated here with
                // 1000 nodes; other node counts have no published value
                paper: if nodes == PAPER_NODES { PAPER_RING_SPREAD.iter().find(|p| p.0 == k).map(|p| p.1) } else { None },
            });
        }
        Ok(LoadSpread { rows })
    }

    /// Jump hash with `nodes` buckets over `keys`: the spread of the key
    /// counts, beside the binomial floor `√((N − 1)/m)`. Fails on 0 nodes.
    pub fn jump(keys: &HashedKeys, nodes: usize) -> Result<LoadSpread> {
        let jump = Jump::new(nodes)?;
        let load = LoadReport::measure(keys, &jump);
        Ok(LoadSpread {
            rows: vec![SpreadRow {
                scheme: "jump".into(),
                points_per_node: None,
                nodes,
                keys: keys.len() as u64,
                arrangements: 1,
                key_space: None,
                key_space_predicted: None,
                key_counts: load.relative_std_dev(),
                key_counts_predicted: ((nodes as f64 - 1.0) / keys.len().max(1) as f64).sqrt(),
                paper: None,
            }],
        })
    }

    /// These rows followed by `other`'s.
    pub fn and(mut self, other: LoadSpread) -> LoadSpread {
        self.rows.extend(other.rows);
        self
    }

    /// The rows: ring rows in the order of `k_values`, then jump's.
    pub fn rows(&self) -> &[SpreadRow] {
        &self.rows
    }

    /// The ring row with `k` points per node, if measured.
    pub fn ring_row(&self, k: usize) -> Option<&SpreadRow> {
        self.rows.iter().find(|r| r.points_per_node == Some(k))
    }

    /// The jump row, if measured.
    pub fn jump_row(&self) -> Option<&SpreadRow> {
        self.rows.iter().find(|r| r.scheme == "jump")
    }

    /// Measured beside predicted and the paper's values.
    pub fn table(&self) -> Table {
        let title = match self.rows.first() {
            Some(r) => format!(
                "load spread: std dev of per-node load over its mean · {} nodes · {} keys",
                thousands(r.nodes as u64),
                thousands(r.keys)
            ),
            None => "load spread".into(),
        };
        let mut t = Table::new(
            title,
            [
                "scheme",
                "points/node k",
                "arrangements",
                "key space: measured",
                "√((N−1)/(kN+1))",
                "paper",
                "keys: measured",
                "keys: expected",
            ],
        );
        let f = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.4}"));
        for r in &self.rows {
            t.row([
                r.scheme.clone(),
                r.points_per_node.map_or("—".into(), |k| thousands(k as u64)),
                r.arrangements.to_string(),
                f(r.key_space),
                f(r.key_space_predicted),
                f(r.paper),
                format!("{:.4}", r.key_counts),
                format!("{:.4}", r.key_counts_predicted),
            ]);
        }
        t.note(
            "key space: each node's share of the circle (what Lamping & Veach's table measures); keys: each node's count of the keys, \
which adds the sampling noise (N−1)/m of m keys to the variance — all jump hash has (the binomial floor √((N−1)/m)); paper: \
Lamping & Veach 2014, standard error of the ring's bucket sizes",
        );
        t
    }

    /// Log–log chart: the ring's measured spread against `k`, the `1/√k`
    /// line, the paper's values, and jump's spread drawn across.
    pub fn chart(&self, title: &str) -> LineChart {
        let ring: Vec<&SpreadRow> = self.rows.iter().filter(|r| r.points_per_node.is_some()).collect();
        let k = |r: &SpreadRow| r.points_per_node.unwrap_or(1) as f64;
        let mut series = vec![
            Series::new("ring: key space, measured", ring.iter().filter_map(|r| r.key_space.map(|v| (k(r), v))))
                .style(Style::LinePoints)
                .ink(0),
            Series::new("ring: keys, measured", ring.iter().map(|r| (k(r), r.key_counts))).style(Style::Points).ink(1),
            Series::new("1/√k", ring.iter().map(|r| (k(r), 1.0 / k(r).sqrt()))).style(Style::Line).ink(2),
        ];
        let paper: Vec<(f64, f64)> = ring.iter().filter_map(|r| r.paper.map(|p| (k(r), p))).collect();
        if !paper.is_empty() {
            series.push(Series::new("Lamping & Veach 2014", paper).style(Style::Points).ink(3));
        }
        let mut chart = plot::line_chart(title, "points per node k (log scale)", "std dev / mean (log scale)", &series)
            .log_x(true)
            .log_y(true);
        if let Some(j) = self.jump_row() {
            chart = chart.reference(j.key_counts, &format!("jump: keys, measured ({:.4})", j.key_counts));
        }
        chart
    }
}

shows_as_table!(LoadSpread);

/// The jump paper's comparison: [`LoadSpread::ring`] for `k_values` and
/// [`LoadSpread::jump`], over the same keys and node count.
///
/// ```
/// use reshard::compare::ring_spread;
/// use reshard::{HashWidth, KeySet};
/// let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128)?;
/// let s = ring_spread(&keys, 100, &[10], 1)?;
/// let jump = s.jump_row().unwrap();
/// assert!((jump.key_counts / jump.key_counts_predicted - 1.0).abs() < 0.2);
/// # Ok::<(), reshard::Error>(())
/// ```
pub fn ring_spread(keys: &HashedKeys, nodes: usize, k_values: &[usize], arrangements: usize) -> Result<LoadSpread> {
    Ok(LoadSpread::ring(keys, nodes, k_values, arrangements)?.and(LoadSpread::jump(keys, nodes)?))
}

// --------------------------------------------------------- middle removal

/// A placement with its node list renamed: the owner's index is kept, the
/// names change. Models renumbering the buckets of jump hash or `hash % N`.
struct Relabeled<P> {
    inner: P,
    names: Vec<String>,
}

impl<P: Placement> Placement for Relabeled<P> {
    fn nodes(&self) -> &[String] {
        &self.names
    }

    fn locate(&self, key: Key<'_>) -> NodeId {
        self.inner.locate(key)
    }

    fn hash_only(&self) -> bool {
        self.inner.hash_only()
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        self.inner.assign(keys)
    }
}

/// One row of a [`MiddleRemoval`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RemovalRow {
    /// What was done, e.g. `"jump, node 4 removed (5…9 renumbered 4…8)"`.
    pub label: String,
    /// A short name for charts.
    pub short: String,
    /// The node that left.
    pub removed: String,
    /// Keys whose node changed.
    pub moved: u64,
    /// `moved` over the key count.
    pub share: f64,
    /// Movers that left the removed node.
    pub from_removed: u64,
    /// Movers between two nodes that stayed.
    pub between_kept: u64,
    /// `share` over the ideal `1/n` (the removed node's fair share).
    pub over_ideal: f64,
}

/// Removing one node from the middle of `0 … n−1`: see [`middle_removal`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MiddleRemoval {
    nodes: usize,
    removed: String,
    keys: u64,
    rows: Vec<RemovalRow>,
}

/// Remove node `"{remove}"` of `n` nodes `"0"` … `"{n-1}"` under the ring
/// (150 points), rendezvous, Maglev, fixed shards (1000, seed 42), slots and
/// ketama, and under jump hash and `hash % N` both by renumbering the nodes
/// after it and by removing the last node instead: see the
/// [module docs](self#removing-a-node-from-the-middle).
///
/// Fails when `n < 2`, `remove ≥ n`, or `n` is more than a scheme takes
/// (1000 for the fixed shards).
pub fn middle_removal(keys: &HashedKeys, n: usize, remove: usize) -> Result<MiddleRemoval> {
    if n < 2 {
        return Err(Error::Invalid(format!("{n} node(s): removing one needs at least 2 nodes (use n of 2 or more)")));
    }
    if remove >= n {
        return Err(Error::UnknownNode(remove.to_string()));
    }
    let all = numbered(n);
    let name = remove.to_string();
    let kept: Vec<String> = all.iter().filter(|x| **x != name).cloned().collect();
    let last = (n - 1).to_string();
    let ideal = 1.0 / n as f64;
    let mut rows = Vec::new();
    let mut push = |label: String, short: &str, removed: &str, m: Movement| {
        rows.push(RemovalRow {
            label,
            short: short.to_string(),
            removed: removed.to_string(),
            moved: m.moved(),
            share: m.share(),
            from_removed: m.from_removed(),
            between_kept: m.between_kept(),
            over_ideal: m.share() / ideal,
        });
    };
    let ring = Ring::new(all.clone(), RING_VNODES)?;
    push(
        Scheme::Ring.label().into(),
        "ring",
        &name,
        Movement::measure(keys, &ring, &Ring::new(kept.clone(), RING_VNODES)?)?,
    );
    let hrw = Rendezvous::new(n)?;
    push("rendezvous".into(), "HRW", &name, Movement::measure(keys, &hrw, &Rendezvous::with_nodes(kept.clone())?)?);
    let maglev = Maglev::new(all.clone())?;
    push(
        Scheme::Maglev.label().into(),
        "Maglev",
        &name,
        Movement::measure(keys, &maglev, &maglev.remove_node(&name)?)?,
    );
    let shards = FixedShards::new(SHARDS, n)?;
    let fewer = shards.remove_node(&name, SHARD_SEED)?;
    push(Scheme::FixedShards.label().into(), "shards", &name, Movement::measure(keys, &shards, &fewer)?);
    let slots = Slots::new(n)?;
    push(Scheme::Slots.label().into(), "slots", &name, Movement::measure(keys, &slots, &slots.remove_node(&name)?)?);
    let ketama = Ketama::new(all.clone())?;
    push(
        Scheme::Ketama.label().into(),
        "ketama",
        &name,
        Movement::measure(keys, &ketama, &Ketama::new(kept.clone())?)?,
    );
    let renumbered = if remove + 1 < n {
        format!("{}…{} renumbered {}…{}", remove + 1, n - 1, remove, n - 2)
    } else {
        "no node after it to renumber".to_string()
    };
    let jb = Relabeled { inner: Jump::new(n)?, names: all.clone() };
    let ja = Relabeled { inner: Jump::new(n - 1)?, names: kept.clone() };
    push(format!("jump, node {name} removed ({renumbered})"), "jump ren.", &name, Movement::measure(keys, &jb, &ja)?);
    push(
        format!("jump, last node ({last}) removed instead"),
        "jump last",
        &last,
        Movement::measure(keys, &Jump::new(n)?, &Jump::new(n - 1)?)?,
    );
    push(
        format!("hash % N, node {name} removed ({renumbered})"),
        "mod ren.",
        &name,
        Movement::measure(keys, &Modulo::new(n)?, &Modulo::with_nodes(kept)?)?,
    );
    push(
        format!("hash % N, last node ({last}) removed instead"),
        "mod last",
        &last,
        Movement::measure(keys, &Modulo::new(n)?, &Modulo::new(n - 1)?)?,
    );
    Ok(MiddleRemoval { nodes: n, removed: name, keys: keys.len() as u64, rows })
}

impl MiddleRemoval {
    /// The rows, named-node schemes first, then jump and `hash % N`.
    pub fn rows(&self) -> &[RemovalRow] {
        &self.rows
    }

    /// The row whose label starts with `prefix`.
    pub fn row(&self, prefix: &str) -> Option<&RemovalRow> {
        self.rows.iter().find(|r| r.label.starts_with(prefix))
    }

    /// Moved keys, those from the removed node, and those between nodes
    /// that stayed.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("removing node {} of 0…{} · {} keys", self.removed, self.nodes - 1, thousands(self.keys)),
            ["scheme", "removed", "keys moved", "share", "× 1/n", "from removed node", "between nodes that stayed"],
        );
        for r in &self.rows {
            t.row([
                r.label.clone(),
                r.removed.clone(),
                thousands(r.moved),
                pct(r.share, 2),
                format!("{:.2}×", r.over_ideal),
                thousands(r.from_removed),
                thousands(r.between_kept),
            ]);
        }
        t.note(format!(
            "× 1/n: share moved over the removed node's fair share 1/{}; jump and hash % N number their nodes, so a middle node can only go by renumbering the ones after it",
            self.nodes
        ));
        t
    }

    /// Share moved and share moved between nodes that stayed, per row, with
    /// the ideal `1/n` drawn across.
    pub fn chart(&self, title: &str) -> BarChart {
        let groups: Vec<&str> = self.rows.iter().map(|r| r.short.as_str()).collect();
        let k = self.keys.max(1) as f64;
        let series = [
            ("moved", self.rows.iter().map(|r| r.share).collect::<Vec<f64>>()),
            ("between nodes that stayed", self.rows.iter().map(|r| r.between_kept as f64 / k).collect()),
        ];
        let ideal = 1.0 / self.nodes as f64;
        plot::bar_chart(title, "share of keys", &groups, &series)
            .size(960, 420)
            .y_percent(true)
            .reference(ideal, &format!("ideal 1/{} = {}", self.nodes, pct(ideal, 2)))
    }
}

shows_as_table!(MiddleRemoval);
