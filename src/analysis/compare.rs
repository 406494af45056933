//! One workload, every scheme, side by side.
//!
//! [`Comparison::measure`] grows (or shrinks) a cluster from `from` to `to`
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
//! * **lookup time** — nanoseconds per [`Locate::locate`] call, timed
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
//! `new(n)` do), so the nodes before and after are matched by name, and
//! every scheme changes one node at a time with [`Placement::add_node`]
//! (new nodes `"{from}"`, `"{from+1}"`, …) or [`Placement::remove_node`]
//! (the last nodes first).
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
//! use reshard::{CompareSettings, Comparison, HashWidth, KeySet, Scheme};
//! let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128)?;
//! let c = Comparison::measure(&keys, 10, 11, &CompareSettings::default())?;
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

use crate::analysis::{LoadReport, MemoryEstimate, Movement};
use crate::keys::HashedKeys;
use crate::schemes::{
    Bounded, FixedShards, Jump, Ketama, Key, Locate, Maglev, Modulo, Placement, Rendezvous, Ring, Slots,
};
use crate::{limits, HashWidth, Result};
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
/// How many keys (the first ones) [`Comparison::measure`] times lookups
/// over by default.
pub const TIMING_SAMPLE: usize = 100_000;

/// The free parameters of a [`Comparison`]; [`Default`] gives the
/// constants above (150 points, 1000 shards with seed 42, ε = 0.25,
/// M = 65537) and times lookups over [`TIMING_SAMPLE`] keys.
///
/// ```
/// use reshard::{CompareSettings, Comparison, Scheme};
/// use reshard::{HashWidth, KeySet};
/// let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128)?;
/// let s = CompareSettings { vnodes: 40, epsilon: 0.1, maglev_m: 10_007, timed_keys: 0, ..Default::default() };
/// let c = Comparison::measure(&keys, 10, 11, &s)?;
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
            maglev_m: crate::schemes::maglev::DEFAULT_TABLE_SIZE,
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

/// One scheme's row of a [`Comparison`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
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
    /// Nanoseconds per lookup (machine-dependent); `None` for bounded
    /// loads, whose owners depend on the whole key set.
    pub lookup_ns: Option<f64>,
    /// Estimated bytes of the lookup structure after ([`MemoryEstimate`]).
    pub memory_bytes: u64,
}

/// Every scheme over one workload: see the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Comparison {
    pub(crate) keys: u64,
    pub(crate) prefix: String,
    /// Serialized as the bit count, 32 or 128.
    #[cfg_attr(feature = "serde", serde(serialize_with = "width_bits"))]
    pub(crate) width: HashWidth,
    pub(crate) from: usize,
    pub(crate) to: usize,
    pub(crate) floor: f64,
    pub(crate) timed_keys: usize,
    pub(crate) rows: Vec<SchemeRow>,
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
        let mut w = keys.keys().writer();
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
        Key::hashed(&self.bytes[start..self.ends[i]], self.hashes[i], self.width)
    }

    /// Nanoseconds per `locate`, single-threaded, after a short warm-up;
    /// `None` when no keys are timed.
    fn time<P: Locate>(&self, p: &P) -> Option<f64> {
        let n = self.ends.len();
        if n == 0 {
            return None;
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
        Some(ns)
    }
}

/// Load after a change, over `after`'s nodes, from a movement's counts.
fn load_after(m: &Movement, after: &[String]) -> Result<LoadReport> {
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
    /// Every scheme from `from` to `to` nodes over `keys`, with the given
    /// settings (points per node, shards and seed, ε, Maglev's M, how many
    /// lookups to time); `&CompareSettings::default()` gives the constants
    /// of this module and times lookups over the first [`TIMING_SAMPLE`]
    /// keys.
    ///
    /// Fails (with the constructors' errors) on 0 nodes, more nodes than
    /// some scheme takes (e.g. more than 1000 for the fixed shards), or a
    /// change too large for a movement matrix.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{jump_hash, CompareSettings, Comparison, HashWidth, KeySet, Scheme};
    /// let keys = KeySet::plain(2_000).hashed(HashWidth::Bits128)?;
    /// let no_timing = CompareSettings { timed_keys: 0, ..Default::default() };
    /// let c = Comparison::measure(&keys, 10, 11, &no_timing)?;
    /// assert_eq!(c.floor(), 1.0 / 11.0); // |11 − 10| / 11
    /// // hash % N and jump, counted by hand (jump reads the top 64 bits of a 128-bit hash)
    /// let modulo = keys.hashes().iter().filter(|&&h| h % 10 != h % 11).count() as u64;
    /// let mut jump = 0;
    /// for &h in keys.hashes() {
    ///     jump += u64::from(jump_hash((h >> 64) as u64, 10)? != jump_hash((h >> 64) as u64, 11)?);
    /// }
    /// assert_eq!(c.row(Scheme::Modulo).unwrap().moved, modulo);
    /// assert_eq!(c.row(Scheme::Jump).unwrap().moved, jump);
    /// assert_eq!(c.row(Scheme::Jump).unwrap().lookup_ns, None); // nothing timed
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure(keys: &HashedKeys, from: usize, to: usize, settings: &CompareSettings) -> Result<Comparison> {
        let set = settings;
        // Every scheme built before any keys are placed, so bad input fails at once.
        let modulo = Modulo::new(from)?;
        let ring = Ring::new(from)?.with_vnodes(set.vnodes)?;
        let ring1 = Ring::new(from)?;
        let hrw = Rendezvous::new(from)?;
        let weighted = Rendezvous::new(from)?.with_weights(vec![1.0; from])?;
        let shards = FixedShards::new(from)?.with_shards(set.shards)?.with_seed(set.seed);
        let jump = Jump::new(from)?;
        let slots = Slots::new(from)?;
        let maglev = Maglev::new(from)?.with_table_size(set.maglev_m)?;
        let ketama = Ketama::new(from)?;
        let bounded = Bounded::new(from)?.with_vnodes(set.vnodes)?.with_epsilon(set.epsilon)?;
        Ring::new(to)?.with_vnodes(set.vnodes)?;
        FixedShards::new(to)?.with_shards(set.shards)?;
        Maglev::new(to)?.with_table_size(set.maglev_m)?;
        limits::check_hint(
            "rendezvous scores (keys × nodes, two rendezvous rows)",
            limits::product(keys.len(), from.max(to) + 1).saturating_mul(2),
            limits::current().max_hashes,
            "use fewer keys or nodes",
        )?;
        let floor = floor_share(from, to);
        let sample = Sample::new(keys, set.timed_keys);
        let s = &sample;
        let c = Context { keys, from, to, floor, settings: set };
        let rows = vec![
            row(Scheme::Modulo, &c, &modulo, |p| s.time(p))?,
            row(Scheme::Ring, &c, &ring, |p| s.time(p))?,
            row(Scheme::RingOnePoint, &c, &ring1, |p| s.time(p))?,
            row(Scheme::Rendezvous, &c, &hrw, |p| s.time(p))?,
            // every weight 1: the new nodes of weight 1 too (add_node cannot choose a weight)
            row_to(
                Scheme::WeightedRendezvous,
                &c,
                &weighted,
                &Rendezvous::new(to)?.with_weights(vec![1.0; to])?,
                |p| s.time(p),
            )?,
            row(Scheme::FixedShards, &c, &shards, |p| s.time(p))?,
            row(Scheme::Jump, &c, &jump, |p| s.time(p))?,
            row(Scheme::Slots, &c, &slots, |p| s.time(p))?,
            row(Scheme::Maglev, &c, &maglev, |p| s.time(p))?,
            row(Scheme::Ketama, &c, &ketama, |p| s.time(p))?,
            row(Scheme::Bounded, &c, &bounded, |_| None)?,
        ];
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

    /// [`Comparison::measure`], under its old name.
    #[doc(hidden)]
    #[deprecated(note = "use Comparison::measure(keys, from, to, &settings)")]
    pub fn measure_with(keys: &HashedKeys, from: usize, to: usize, settings: &CompareSettings) -> Result<Comparison> {
        Comparison::measure(keys, from, to, settings)
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
}

/// `p` (over nodes `"0"` … `"{from-1}"`) changed to `to` nodes one node at
/// a time: nodes `"{from}"`, `"{from+1}"`, … join in order, or the last
/// nodes leave, last first.
///
/// Fails at once when `from` or `to` is over the node limit, or when the changes
/// together would cost more than
/// [`Limits::max_hashes`](limits::Limits::max_hashes) by each step's
/// [`Placement::change_cost`] (10,000,000 fixed shards grown from 1 to
/// 4,096 nodes shuffle shard lists for hours).
///
/// ```
/// use reshard::analysis::resized;
/// use reshard::{Error, FixedShards, Placement};
/// let grown = resized(&FixedShards::new(3)?, 3, 5)?;
/// assert_eq!(grown.nodes(), ["0", "1", "2", "3", "4"]);
/// let huge = FixedShards::new(1)?.with_shards(10_000_000)?;
/// assert!(matches!(resized(&huge, 1, 4096), Err(Error::TooLarge { .. })));
/// # Ok::<(), reshard::Error>(())
/// ```
pub fn resized<P: Placement + Clone>(p: &P, from: usize, to: usize) -> Result<P> {
    limits::check_nodes(from)?;
    limits::check_nodes(to)?;
    let max = limits::current().max_hashes;
    // Summed only until the limit is passed: the steps can be many.
    let mut cost = 0u128;
    for n in from.min(to)..from.max(to) {
        cost = cost.saturating_add(p.change_cost(n + 1));
        if cost > max {
            break;
        }
    }
    limits::check_hint(
        "md5-equivalents of work to change the placement one node at a time (each step's change_cost)",
        cost,
        max,
        "change fewer nodes, or build the placement at its new size",
    )?;
    let mut out = p.clone();
    for i in from..to {
        out = out.add_node(&i.to_string())?;
    }
    for i in (to..from).rev() {
        out = out.remove_node(&i.to_string())?;
    }
    Ok(out)
}

/// One scheme's row: `before` changed to `to` nodes, lookups timed on the
/// result with `time` (bounded loads have no per-key lookup to time).
fn row<P: Placement + MemoryEstimate + Clone>(
    scheme: Scheme,
    c: &Context<'_>,
    before: &P,
    time: impl Fn(&P) -> Option<f64>,
) -> Result<SchemeRow> {
    row_to(scheme, c, before, &resized(before, c.from, c.to)?, time)
}

/// One scheme's row: `before` against `after`.
fn row_to<P: Placement + MemoryEstimate + Clone>(
    scheme: Scheme,
    c: &Context<'_>,
    before: &P,
    after: &P,
    time: impl Fn(&P) -> Option<f64>,
) -> Result<SchemeRow> {
    let after = after.clone();
    let m = Movement::measure(c.keys, before, &after)?;
    let load = load_after(&m, after.nodes())?;
    Ok(SchemeRow {
        scheme,
        name: c.settings.label(scheme),
        moved: m.moved(),
        share: m.share(),
        over_floor: (c.floor > 0.0).then(|| m.share() / c.floor),
        to_added: m.to_added(),
        between_kept: m.between_kept(),
        from_removed: m.from_removed(),
        max_over_mean: load.max_over_mean(),
        relative_std_dev: load.relative_std_dev(),
        lookup_ns: time(&after),
        memory_bytes: after.memory_bytes(c.keys.width()),
    })
}

/// What every row of one comparison shares.
struct Context<'a> {
    keys: &'a HashedKeys,
    from: usize,
    to: usize,
    floor: f64,
    settings: &'a CompareSettings,
}
