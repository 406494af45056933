//! The ring's load spread, as in the jump hash paper.
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
//! [`LoadSpread::measure_ring`] measures it on salted rings (salts `"0:"`, `"1:"`,
//! …): per ring, the relative standard deviation over the nodes of (a)
//! each node's share of the circle ([`Ring::arc_shares`], the key space:
//! what the paper's table measures) and (b) each node's count of the
//! given keys, which adds the sampling noise of a finite key set,
//! `(N − 1)/m` for `m` keys, to the variance. Over several arrangements
//! the variances are averaged (the root mean square is reported).
//! [`LoadSpread::measure_jump`] measures jump hash's key counts, which only have
//! that sampling noise: the binomial floor `√((N − 1)/m)`.
//! [`LoadSpread::measure`] does both; its default setup, used by the tests, is
//! `N = 1000` nodes, `k = 10, 100, 1000`, 2 arrangements and 1,000,000
//! keys `key{i}`.
//!
//! ```
//! use reshard::analysis::LoadSpread;
//! use reshard::{HashWidth, KeySet};
//! let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128)?;
//! let s = LoadSpread::measure_ring(&keys, 200, &[10, 100], 1)?;
//! for r in s.rows() {
//!     let k = r.points_per_node.unwrap() as f64;
//!     assert!((r.key_space.unwrap() * k.sqrt() - 1.0).abs() < 0.15); // ≈ 1/√k
//! }
//! # Ok::<(), reshard::Error>(())
//! ```
//!

use crate::analysis::sweep::salt;
use crate::analysis::LoadReport;
use crate::keys::HashedKeys;
use crate::schemes::{Jump, Ring};
use crate::{limits, Error, Result};
use rayon::prelude::*;

/// The standard error of the ring's bucket sizes with `k` points per
/// bucket, `(k, value)`, from the table of Lamping & Veach (2014).
pub const PAPER_RING_SPREAD: [(usize, f64); 3] = [(10, 0.3152), (100, 0.0997), (1000, 0.0316)];

/// The node count of the simulation the paper's values are set beside.
pub const PAPER_NODES: usize = 1000;

/// One row of a [`LoadSpread`]: a scheme (and for the ring, a number of
/// points per node) and how uneven its per-node load is.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
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
    pub(crate) rows: Vec<SpreadRow>,
}

/// `√((N − 1)/(kN + 1))`: the relative std dev of a node's share of the
/// circle when `N` nodes have `k` uniformly random points each.
pub fn ring_spread_predicted(nodes: usize, k: usize) -> f64 {
    let (n, k) = (nodes as f64, k as f64);
    ((n - 1.0).max(0.0) / (k * n + 1.0)).sqrt()
}

/// The standard deviation of one node's share of `keys` keys on a ring of
/// `nodes` nodes with `k` random points each: `√(p(1−p)·(1/(kN+1) + 1/m))`
/// for `p = 1/N` — the spread of its arcs ([`ring_spread_predicted`]) plus
/// the sampling noise of `m` keys. When a node joins a ring the keys that
/// move are the keys it takes, so this is also the spread of the share moved
/// (`nodes` = the count after it joined). 0 for no nodes.
///
/// ```
/// use reshard::analysis::spread::{ring_share_sd, ring_spread_predicted};
/// let (n, k, m) = (5, 100, 100_000);
/// let by_parts = (ring_spread_predicted(n, k).powi(2) + (n as f64 - 1.0) / m as f64).sqrt() / n as f64;
/// assert!((ring_share_sd(n, k, m) - by_parts).abs() < 1e-15);
/// assert!((ring_share_sd(5, 1, 100_000) - 0.1633).abs() < 1e-4); // one point each: 20% ± 16%
/// ```
pub fn ring_share_sd(nodes: usize, k: usize, keys: usize) -> f64 {
    if nodes == 0 {
        return 0.0;
    }
    let p = 1.0 / nodes as f64;
    (p * (1.0 - p) * (1.0 / (k as f64 * nodes as f64 + 1.0) + 1.0 / keys.max(1) as f64)).sqrt()
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
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::analysis::LoadSpread;
    /// use reshard::{HashWidth, KeySet, LoadReport, Ring};
    /// let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128)?;
    /// let s = LoadSpread::measure_ring(&keys, 50, &[20], 1)?;
    /// let row = s.ring_row(20).unwrap();
    /// // one arrangement: the ring salted "0:", measured by hand
    /// let ring = Ring::new(50)?.with_vnodes(20)?.with_salt("0:")?;
    /// let rel_sd = |v: &[f64]| {
    ///     let mean = v.iter().sum::<f64>() / v.len() as f64;
    ///     (v.iter().map(|x| (x / mean - 1.0).powi(2)).sum::<f64>() / v.len() as f64).sqrt()
    /// };
    /// let counts: Vec<f64> = LoadReport::measure(&keys, &ring)?.counts().iter().map(|&c| c as f64).collect();
    /// assert!((row.key_space.unwrap() - rel_sd(&ring.arc_shares(HashWidth::Bits128))).abs() < 1e-12);
    /// assert!((row.key_counts - rel_sd(&counts)).abs() < 1e-12);
    /// assert_eq!(row.key_space_predicted, Some((49.0_f64 / (20.0 * 50.0 + 1.0)).sqrt())); // √((N − 1)/(kN + 1))
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure_ring(
        keys: &HashedKeys,
        nodes: usize,
        k_values: &[usize],
        arrangements: usize,
    ) -> Result<LoadSpread> {
        if nodes == 0 {
            return Err(Error::NoNodes);
        }
        if k_values.is_empty() {
            return Err(Error::OutOfRange {
                what: "points-per-node values (count)",
                given: "0".into(),
                allowed: "at least one k (e.g. 10, 100, 1000)".into(),
            });
        }
        if arrangements == 0 {
            return Err(Error::OutOfRange { what: "arrangements", given: "0".into(), allowed: "at least 1".into() });
        }
        for &k in k_values {
            Ring::new(nodes)?.with_vnodes(k)?; // 0 points, too many points
        }
        let points: u128 = k_values.iter().map(|&k| limits::product(nodes, k)).sum();
        limits::check_hint(
            "ring points hashed (nodes × points per node, over every k and arrangement)",
            points.saturating_mul(arrangements as u128),
            limits::current().max_hashes,
            "use fewer arrangements, nodes or points per node",
        )?;
        limits::check_hint(
            "key placements (keys × k values × arrangements)",
            limits::product(keys.len(), k_values.len()).saturating_mul(arrangements as u128),
            limits::current().max_placements,
            "use fewer keys, k values or arrangements",
        )?;
        let width = keys.width();
        keys.sorted_order();
        let mut rows = Vec::with_capacity(k_values.len());
        for &k in k_values {
            let vars = (0..arrangements)
                .into_par_iter()
                .map(|s| -> Result<(f64, f64)> {
                    let ring = Ring::new(nodes)?.with_vnodes(k)?.with_salt(salt(s))?;
                    let space = relative_variance(ring.arc_shares(width).into_iter());
                    let load = LoadReport::measure(keys, &ring)?;
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
                key_counts_predicted: nodes as f64 * ring_share_sd(nodes, k, keys.len()),
                // the paper's figures are for the setup simulated here with
                // 1000 nodes; other node counts have no published value
                paper: if nodes == PAPER_NODES {
                    PAPER_RING_SPREAD.iter().find(|p| p.0 == k).map(|p| p.1)
                } else {
                    None
                },
            });
        }
        Ok(LoadSpread { rows })
    }

    /// Jump hash with `nodes` buckets over `keys`: the spread of the key
    /// counts, beside the binomial floor `√((N − 1)/m)`. Fails on 0 nodes.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::analysis::LoadSpread;
    /// use reshard::{jump_hash, HashWidth, KeySet};
    /// let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128)?;
    /// let row = LoadSpread::measure_jump(&keys, 8)?.rows()[0].clone();
    /// // by hand: jump buckets of the hashes' top 64 bits, then sd over mean
    /// let mut counts = [0.0_f64; 8];
    /// for &h in keys.hashes() {
    ///     counts[jump_hash((h >> 64) as u64, 8)? as usize] += 1.0;
    /// }
    /// let mean = 5_000.0 / 8.0;
    /// let sd = (counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / 8.0).sqrt();
    /// assert!((row.key_counts - sd / mean).abs() < 1e-12);
    /// assert_eq!(row.key_counts_predicted, (7.0_f64 / 5_000.0).sqrt()); // √((N − 1)/m)
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure_jump(keys: &HashedKeys, nodes: usize) -> Result<LoadSpread> {
        let jump = Jump::new(nodes)?;
        let load = LoadReport::measure(keys, &jump)?;
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
}

impl LoadSpread {
    /// The jump paper's comparison: [`LoadSpread::measure_ring`] for `k_values` and
    /// [`LoadSpread::measure_jump`], over the same keys and node count.
    ///
    /// ```
    /// use reshard::analysis::LoadSpread;
    /// use reshard::{HashWidth, KeySet};
    /// let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128)?;
    /// let s = LoadSpread::measure(&keys, 100, &[10], 1)?;
    /// let jump = s.jump_row().unwrap();
    /// assert!((jump.key_counts / jump.key_counts_predicted - 1.0).abs() < 0.2);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure(keys: &HashedKeys, nodes: usize, k_values: &[usize], arrangements: usize) -> Result<LoadSpread> {
        Ok(LoadSpread::measure_ring(keys, nodes, k_values, arrangements)?.and(LoadSpread::measure_jump(keys, nodes)?))
    }
}
