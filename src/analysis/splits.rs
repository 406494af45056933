//! A range-sharded table that grows: keys arrive one at a time, a range
//! that passes a size threshold splits at its median key, and (if asked) a
//! balancer moves whole ranges from the fullest node to the emptiest (DDIA
//! 2nd ed. ch. 7, "Rebalancing key-range sharded data": pre-splitting,
//! splitting at a size threshold; TinyKV's balance-region scheduler).
//!
//! The simulation is exact and deterministic. Every key is ranked once by
//! its position (its bytes for [`KeyRanges`](crate::KeyRanges), `(hash, bytes)` for
//! [`HashRanges`](crate::HashRanges)); the ranks present are kept in a Fenwick tree, so a
//! range's median is found in `O(log n)`, and ranges in a map by their
//! first rank. A million keys take well under a second.
//!
//! * **Arrivals.** Key `i` of the set is written at arrival `i + 1`
//!   ([`Arrival::KeyOrder`], e.g. timestamps written as they happen), or in
//!   the order of Python's `random.Random(seed).shuffle(list(range(n)))`
//!   ([`Arrival::Shuffled`], via [`PyRandom`](crate::PyRandom)). A key
//!   written again is an update: a write, not a new row.
//! * **Splits.** When a range holds more than `threshold` rows, it splits:
//!   with its `n` rows in order `k0 … k(n−1)`, the boundary is `k(n/2)`
//!   (integer division), so the lower part keeps `n/2` rows. Under hash
//!   ranges the rows are in hash order and the boundary is the median
//!   row's hash; rows sharing that hash go up with it, so the lower part
//!   keeps the rows whose hash is below it (`n/2` unless hashes repeat).
//!   When the median's hash is also the range's lowest row hash, the
//!   boundary is the next higher row hash instead; a range whose rows all
//!   share one hash cannot split and stays over the threshold. Both parts
//!   stay on the node, and both count as new ranges (their writes start
//!   at 0).
//! * **Balancing** ([`GrowthSettings::balance`], off by default). After
//!   every split, while the fullest node's rows minus the emptiest node's
//!   rows is more than `factor ×` the rows of some range with rows on the
//!   fullest node, that node's largest such range (ties: the lowest key)
//!   moves to the emptiest node (ties between nodes: the lowest index).
//!   It runs after splits only, never after an arrival that split nothing.
//!   The factor must be at least 1 (TinyKV uses 2), so that every move
//!   narrows the gap and the balancer stops.
//!
//! ```
//! use reshard::analysis::{Arrival, GrowthSettings, RangeGrowth};
//! use reshard::prelude::*;
//! let keys = KeySet::new("user", 10_000);
//! let one = KeyRanges::named(letters("ABC"))?; // one range, on A
//! let grown = RangeGrowth::run(&keys, &one, &GrowthSettings::new(1_000).balance(2.0))?;
//! assert!(grown.ranges().len() >= 10);
//! assert!(grown.ranges().iter().all(|r| r.rows <= 1_000));
//! assert_eq!(grown.rows_per_node().iter().sum::<u64>(), 10_000);
//! let shuffled = GrowthSettings::new(1_000).arrival(Arrival::Shuffled(7));
//! let hashed = RangeGrowth::run(&keys, &HashRanges::named(letters("ABC"))?, &shuffled)?;
//! assert_eq!(hashed.splits().len() + 1, hashed.ranges().len());
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::range_layout::{Boundary, RangeLayout};
mod engine;
use crate::keys::KeySet;
use crate::schemes::NodeId;
use crate::{limits, Error, Result};

/// The order in which the keys arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Arrival {
    /// Key `i` of the set arrives `i + 1`-th (e.g. timestamps, as written).
    #[default]
    KeyOrder,
    /// Shuffled as Python's `random.Random(seed).shuffle` shuffles
    /// `list(range(n))`.
    Shuffled(u64),
}

impl Arrival {
    /// The key indices in arrival order, for a set of `n` keys: `0 … n−1`,
    /// or shuffled as [`Arrival::Shuffled`] says.
    ///
    /// Fails, before anything is allocated, when `n` is more keys than
    /// [`RangeGrowth::run`] takes ([`Limits::max_keys`](limits::Limits::max_keys),
    /// and at most 2^32 − 1: each index is a `u32`), or a shuffle of `n`
    /// draws more than [`PyRandom::shuffle`](crate::PyRandom::shuffle) allows.
    ///
    /// ```
    /// use reshard::analysis::Arrival;
    /// assert_eq!(Arrival::KeyOrder.order(3)?, [0, 1, 2]);
    /// // Python: x = list(range(5)); random.Random(7).shuffle(x); x == [4, 0, 3, 1, 2]
    /// assert_eq!(Arrival::Shuffled(7).order(5)?, [4, 0, 3, 1, 2]);
    /// assert!(Arrival::KeyOrder.order(usize::MAX).is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn order(self, n: usize) -> Result<Vec<u32>> {
        check_arrivals(n)?;
        let mut order: Vec<u32> = (0..n as u32).collect();
        if let Arrival::Shuffled(seed) = self {
            crate::PyRandom::new(seed).shuffle(&mut order)?;
        }
        Ok(order)
    }
}

/// `Ok` when `n` keys can arrive: within [`Limits::max_keys`](limits::Limits::max_keys)
/// and a `u32` index each.
pub(crate) fn check_arrivals(n: usize) -> Result<()> {
    limits::check_hint(
        "keys arriving (each ranked by a 32-bit index)",
        n as u128,
        limits::current().max_keys.min(u128::from(u32::MAX)),
        "use fewer keys",
    )
}

/// How many layout ranges (shards) of [`Limits::max_shards`](limits::Limits::max_shards)
/// one range of a growth counts for. A growth keeps each range it makes as a
/// split, a final range with both its bounds, and a range of the final
/// layout, about 500 bytes in all, where a layout's range takes about 60
/// (measured: 1,000,000 ranges of a growth took 510 MB; 10,000,000
/// boundaries of `KeyRanges`, 550 MB). So a growth makes at most an eighth
/// of `max_shards` ranges: 1,250,000 by default, about 650 MB.
const RANGE_WEIGHT: u128 = 8;

/// The most ranges one growth may make (see [`RANGE_WEIGHT`]).
pub(crate) fn max_ranges() -> u128 {
    limits::current().max_shards / RANGE_WEIGHT
}

/// The error of a growth that may make `asked` ranges, over [`max_ranges`].
pub(crate) fn too_many_ranges(asked: u128) -> Error {
    Error::TooLarge {
        what: "ranges a growth may make (the start's, and one more per split, each part of a split keeping \
               ⌈threshold / 2⌉ rows or more)",
        asked,
        limit: max_ranges(),
        hint: "raise the split threshold or use fewer keys (each range of a growth takes about 500 bytes: a growth \
               makes at most an eighth of limits::Limits::max_shards)",
    }
}

/// `Ok` when a growth of `keys` keys from `start` ranges, splitting above
/// `threshold` rows (1 or more), cannot make more than [`max_ranges`]
/// ranges, checked before any work. A range splits at `threshold + 1` rows
/// into parts of ⌊(threshold + 1) / 2⌋ = ⌈threshold / 2⌉ rows or more, and
/// rows only come: so every range a split made holds that many at the end,
/// and `s` splits leave at least `s + 1` such ranges, of the `keys` rows at
/// most — `s ≤ keys / ⌈threshold / 2⌉ − 1`. (Under hash ranges, keys
/// sharing a hash can make a smaller part; a run that reaches the limit
/// then stops with the same error.)
pub(crate) fn check_ranges(start: usize, keys: usize, threshold: u64) -> Result<()> {
    let part = u128::from(threshold.div_ceil(2).max(1));
    let splits = (keys as u128 / part).saturating_sub(1);
    let asked = start as u128 + splits;
    if asked > max_ranges() {
        return Err(too_many_ranges(asked));
    }
    Ok(())
}

/// What a [`RangeGrowth`] run does: the split threshold, the arrival
/// order, the balancing rule and how often node sizes are sampled.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GrowthSettings {
    threshold: u64,
    arrival: Arrival,
    balance: Option<f64>,
    sample_every: Option<usize>,
}

impl GrowthSettings {
    /// A range splits when it holds more than `threshold` rows; keys arrive
    /// in key order, no balancing, about 100 samples of node sizes. (A
    /// threshold of 0 is refused when the run starts.)
    pub fn new(threshold: u64) -> Self {
        GrowthSettings { threshold, arrival: Arrival::KeyOrder, balance: None, sample_every: None }
    }

    /// The same with another arrival order.
    pub fn arrival(self, arrival: Arrival) -> Self {
        GrowthSettings { arrival, ..self }
    }

    /// The same with the balancer on: a range of `r` rows moves from the
    /// fullest node to the emptiest when their gap is more than
    /// `factor × r` (TinyKV: 2.0). A factor below 1, NaN or infinite is
    /// refused when the run starts.
    pub fn balance(self, factor: f64) -> Self {
        GrowthSettings { balance: Some(factor), ..self }
    }

    /// The same, sampling the rows per node every `arrivals` arrivals (and
    /// at the start and the end). 0 is refused when the run starts.
    pub fn sample_every(self, arrivals: usize) -> Self {
        GrowthSettings { sample_every: Some(arrivals), ..self }
    }

    /// The split threshold, in rows.
    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// The arrival order.
    pub fn arrival_order(&self) -> Arrival {
        self.arrival
    }

    /// The balancer's factor, if it is on.
    pub fn balance_factor(&self) -> Option<f64> {
        self.balance
    }
}

/// One split: at which arrival, which range, where, and how the rows fell.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Split {
    /// The arrival (counted from 1) whose row pushed the range over.
    pub arrival: u64,
    /// The range split, by its index at that moment (its upper part is
    /// range `range + 1` from then on).
    pub range: usize,
    /// The new boundary: the lower part ends below it, the upper starts at it.
    pub boundary: Boundary,
    /// Rows the lower part keeps.
    pub left_rows: u64,
    /// Rows the upper part takes.
    pub right_rows: u64,
    /// The node holding both parts.
    pub node: NodeId,
}

/// One move of the balancer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct RangeMove {
    /// The arrival after whose split the move happened.
    pub arrival: u64,
    /// The range moved, by its index at that moment.
    pub range: usize,
    /// The node it left (the fullest).
    pub from: NodeId,
    /// The node it went to (the emptiest).
    pub to: NodeId,
    /// Its rows.
    pub rows: u64,
}

/// One range at the end of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct GrownRange {
    /// Its index, in key (or hash) order.
    pub index: usize,
    /// Its lowest value (`None`: −∞, or hash 0).
    pub lower: Option<Boundary>,
    /// The next range's lower bound (`None`: +∞, or the end of the hash space).
    pub upper: Option<Boundary>,
    /// Its node.
    pub owner: NodeId,
    /// Rows it holds.
    pub rows: u64,
    /// Writes (new rows and updates) it took since it was created.
    pub writes: u64,
    /// The arrival whose split created it (0: it was in the starting layout).
    pub created: u64,
}

/// The rows on each node after some arrivals.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Sample {
    /// Arrivals so far.
    pub arrival: u64,
    /// Rows per node, in node order.
    pub rows: Vec<u64>,
}

/// What happened to a range-sharded table as its keys arrived: every split
/// and balancing move, the final ranges, and rows and writes per node.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RangeGrowth {
    pub(crate) settings: GrowthSettings,
    pub(crate) sample_every: usize,
    pub(crate) start: RangeLayout,
    pub(crate) end: RangeLayout,
    pub(crate) arrivals: u64,
    pub(crate) splits: Vec<Split>,
    pub(crate) moves: Vec<RangeMove>,
    pub(crate) ranges: Vec<GrownRange>,
    pub(crate) node_rows: Vec<u64>,
    pub(crate) node_writes: Vec<u64>,
    pub(crate) samples: Vec<Sample>,
}

impl RangeGrowth {
    /// Write every key of `keys` into a table laid out as `layout` (one
    /// range on one node, or pre-split), on the layout's nodes, under
    /// `settings` (see the [module](self) for the rules).
    ///
    /// Fails, before any work, on no keys ([`Error::NoKeys`]), a threshold
    /// of 0 or `sample_every` of 0 ([`Error::OutOfRange`]), a balancing
    /// factor below 1 or not finite ([`Error::BadNumber`]), and keys,
    /// bytes or samples over the [`limits`], or more ranges than a growth
    /// may make ([`Error::TooLarge`]: with `n` keys, the start's ranges and
    /// up to `n / ⌈threshold / 2⌉ − 1` splits, within an eighth of
    /// [`Limits::max_shards`](limits::Limits::max_shards), 1,250,000 by
    /// default; each range of a growth takes about 500 bytes).
    ///
    /// # Examples
    ///
    /// Keys written in key order (`k0000` … `k0999` sort as they arrive),
    /// splitting above 100 rows: the first split comes with row 101 and
    /// keeps 101 / 2 = 50 rows below the median; from then on every row
    /// lands in the last range, which splits again at 101 rows, 50 rows
    /// later each time — at arrivals 101, 151, …, 951: 18 splits.
    ///
    /// ```
    /// use reshard::analysis::{GrowthSettings, RangeGrowth};
    /// use reshard::prelude::*;
    /// let keys = KeySet::from_keys((0..1_000).map(|i| format!("k{i:04}")))?;
    /// let grown = RangeGrowth::run(&keys, &KeyRanges::named(letters("ABC"))?, &GrowthSettings::new(100))?;
    /// let at: Vec<u64> = grown.splits().iter().map(|s| s.arrival).collect();
    /// assert_eq!(at, (0..18).map(|j| 101 + 50 * j).collect::<Vec<u64>>());
    /// let rows: Vec<u64> = grown.ranges().iter().map(|r| r.rows).collect();
    /// assert_eq!(rows, [vec![50; 18], vec![100]].concat()); // 1,000 − 18 · 50 in the last
    /// assert_eq!(grown.rows_per_node(), [1_000, 0, 0]); // no balancer: all still on A
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn run(keys: &KeySet, layout: impl Into<RangeLayout>, settings: &GrowthSettings) -> Result<RangeGrowth> {
        let layout = layout.into();
        let n = keys.len();
        if n == 0 {
            return Err(Error::NoKeys);
        }
        if settings.threshold == 0 {
            return Err(Error::OutOfRange {
                what: "split threshold",
                given: "0".into(),
                allowed: "1 or more rows (a range splits when it holds more than this)".into(),
            });
        }
        if let Some(f) = settings.balance {
            if !(f.is_finite() && f >= 1.0) {
                return Err(Error::BadNumber {
                    what: "balancing factor",
                    value: f.to_string(),
                    expected: "a finite number ≥ 1",
                    hint: "use 2.0, TinyKV's (below 1 a range could move back and forth for ever)",
                });
            }
        }
        let every = match settings.sample_every {
            Some(0) => {
                return Err(Error::OutOfRange {
                    what: "sample_every",
                    given: "0".into(),
                    allowed: "1 or more arrivals between samples".into(),
                })
            }
            Some(e) => e,
            None => n.div_ceil(100).max(1),
        };
        check_arrivals(n)?;
        let samples = (n / every) as u128 + 2;
        limits::check_hint(
            "per-node samples kept (samples × nodes)",
            samples.saturating_mul(layout.nodes().len() as u128),
            limits::current().max_keys,
            "sample less often (a larger sample_every)",
        )?;
        check_ranges(layout.table().len(), n, settings.threshold)?;
        engine::simulate(keys, layout, settings, every)
    }

    /// The settings of the run.
    pub fn settings(&self) -> &GrowthSettings {
        &self.settings
    }

    /// Arrivals between two samples of [`samples`](Self::samples).
    pub fn sample_every(&self) -> usize {
        self.sample_every
    }

    /// The node names.
    pub fn nodes(&self) -> &[String] {
        self.start.nodes()
    }

    /// The layout the table started with.
    pub fn start_layout(&self) -> &RangeLayout {
        &self.start
    }

    /// The layout at the end: every boundary and owner, as a scheme.
    pub fn final_layout(&self) -> &RangeLayout {
        &self.end
    }

    /// How many keys arrived (writes in all).
    pub fn arrivals(&self) -> u64 {
        self.arrivals
    }

    /// Every split, in order.
    pub fn splits(&self) -> &[Split] {
        &self.splits
    }

    /// Every balancing move, in order.
    pub fn moves(&self) -> &[RangeMove] {
        &self.moves
    }

    /// The ranges at the end, in key (or hash) order.
    pub fn ranges(&self) -> &[GrownRange] {
        &self.ranges
    }

    /// Rows per node at the end, in node order.
    pub fn rows_per_node(&self) -> &[u64] {
        &self.node_rows
    }

    /// Writes (new rows and updates) each node took, in node order.
    pub fn writes_per_node(&self) -> &[u64] {
        &self.node_writes
    }

    /// Rows per node at arrival 0, every [`sample_every`](Self::sample_every)
    /// arrivals, and at the end.
    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }

    /// Rows in the table at the end (distinct keys).
    pub fn rows(&self) -> u64 {
        self.node_rows.iter().sum()
    }

    /// Rows moved by the balancer, all moves together.
    pub fn rows_moved(&self) -> u64 {
        self.moves.iter().map(|m| m.rows).sum()
    }

    /// The busiest node's rows over the mean node's: 1.0 is even.
    pub fn max_over_mean_rows(&self) -> f64 {
        max_over_mean(&self.node_rows)
    }

    /// The busiest node's writes over the mean node's: 1.0 is even.
    pub fn max_over_mean_writes(&self) -> f64 {
        max_over_mean(&self.node_writes)
    }
}

fn max_over_mean(v: &[u64]) -> f64 {
    let mean = v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
    if mean == 0.0 {
        0.0
    } else {
        v.iter().copied().max().unwrap_or(0) as f64 / mean
    }
}
