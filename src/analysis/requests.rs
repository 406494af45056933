//! Load in requests, not keys: what a skewed workload does to each node,
//! what bounded loads can do about it, what splitting a hot key buys, and
//! where a failed node's load goes.
//!
//! Every placement here counts two things per node: the keys it holds and
//! the requests those keys receive under a [`Workload`]. Balanced key
//! counts say nothing about the second when a few keys are hot.
//!
//! ```
//! use reshard::prelude::*;
//! let keys = KeySet::plain(10_000).hashed(HashWidth::Bits128)?;
//! let flat = Workload::zipf(keys.len(), 0.0, 100_000, 1)?;
//! let hot = Workload::zipf(keys.len(), 1.1, 100_000, 1)?;
//! let ring = Ring::new(10)?.with_vnodes(150)?;
//! let a = RequestLoad::measure(&keys, &flat, &ring)?;
//! let b = RequestLoad::measure(&keys, &hot, &ring)?;
//! assert_eq!(a.keys(), b.keys()); // same keys on the same nodes …
//! assert!(b.requests_max_over_mean() > a.requests_max_over_mean()); // … not the same load
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::workload::Workload;
use crate::keys::HashedKeys;
use crate::limits;
use crate::schemes::{NodeId, Placement, Replicated};
use crate::{Error, Result};

/// The workload must have one request count per key.
pub(crate) fn check_workload(keys: &HashedKeys, workload: &Workload) -> Result<()> {
    if workload.keys() != keys.len() {
        return Err(Error::LengthMismatch {
            what: "workload keys (one count per key)",
            expected: keys.len(),
            given: workload.keys(),
        });
    }
    Ok(())
}

/// The largest count over the mean count (0 when all are 0).
pub(crate) fn max_over_mean(v: &[u64]) -> f64 {
    let total: u64 = v.iter().sum();
    if total == 0 {
        return 0.0;
    }
    *v.iter().max().unwrap_or(&0) as f64 / (total as f64 / v.len().max(1) as f64)
}

/// Keys and requests per node for one placement and one workload.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestLoad {
    pub(crate) nodes: Vec<String>,
    pub(crate) keys: Vec<u64>,
    pub(crate) requests: Vec<u64>,
}

impl RequestLoad {
    /// Place every key and add up, per node, its keys and their requests.
    /// Fails when the workload is over a different number of keys.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, KeySet, Modulo, RequestLoad, Workload};
    /// let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128)?;
    /// let hot = Workload::zipf(keys.len(), 1.0, 10_000, 1)?;
    /// let load = RequestLoad::measure(&keys, &hot, &Modulo::new(3)?)?;
    /// // by hand: key i's requests go to node h_i % 3
    /// let mut by_hand = [0u64; 3];
    /// for (&h, &c) in keys.hashes().iter().zip(hot.counts()) {
    ///     by_hand[(h % 3) as usize] += c;
    /// }
    /// assert_eq!(load.requests(), by_hand);
    /// assert_eq!(load.total_requests(), 10_000);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure<P: Placement + ?Sized>(
        keys: &HashedKeys,
        workload: &Workload,
        placement: &P,
    ) -> Result<RequestLoad> {
        check_workload(keys, workload)?;
        placement.check_cost(keys)?;
        let owners = placement.assign(keys);
        Ok(RequestLoad::from_owners(placement.nodes(), &owners, workload))
    }

    /// From owners already computed (`owners[i]` indexes `nodes`).
    pub(crate) fn from_owners(nodes: &[String], owners: &[NodeId], workload: &Workload) -> RequestLoad {
        let mut keys = vec![0u64; nodes.len()];
        let mut requests = vec![0u64; nodes.len()];
        for (&o, &c) in owners.iter().zip(workload.counts()) {
            keys[o as usize] += 1;
            requests[o as usize] += c;
        }
        RequestLoad { nodes: nodes.to_vec(), keys, requests }
    }

    /// Node names, in the placement's order.
    pub fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// Keys per node.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Requests per node.
    pub fn requests(&self) -> &[u64] {
        &self.requests
    }

    /// All requests.
    pub fn total_requests(&self) -> u64 {
        self.requests.iter().sum()
    }

    /// The busiest node's keys over the fair share of keys.
    pub fn keys_max_over_mean(&self) -> f64 {
        max_over_mean(&self.keys)
    }

    /// The busiest node's requests over the fair share of requests.
    pub fn requests_max_over_mean(&self) -> f64 {
        max_over_mean(&self.requests)
    }
}

/// One scheme's keys per node and requests per node under each workload.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SkewRow {
    /// The scheme's label.
    pub scheme: String,
    /// Node names.
    pub nodes: Vec<String>,
    /// Keys per node.
    pub keys: Vec<u64>,
    /// `requests[w][n]`: requests of node `n` under workload `w`.
    pub requests: Vec<Vec<u64>>,
}

impl SkewRow {
    /// The busiest node's keys over the fair share.
    pub fn keys_max_over_mean(&self) -> f64 {
        max_over_mean(&self.keys)
    }

    /// The busiest node's requests over the fair share, under workload `w`.
    pub fn requests_max_over_mean(&self, w: usize) -> f64 {
        self.requests.get(w).map_or(0.0, |r| max_over_mean(r))
    }
}

/// Several schemes under several workloads over the same keys.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadUnderSkew {
    pub(crate) s: Vec<f64>,
    pub(crate) hottest: Vec<f64>,
    pub(crate) rows: Vec<SkewRow>,
}

impl LoadUnderSkew {
    /// Place the keys once per scheme, then add up each workload's requests.
    ///
    /// Fails on no schemes or no workloads ([`Error::OutOfRange`]: there
    /// is nothing to measure), and as [`RequestLoad::measure`] does.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::prelude::*;
    /// use reshard::{jump_hash, LoadUnderSkew};
    /// let keys = KeySet::plain(100).hashed(HashWidth::Bits128)?;
    /// let even = Workload::from_counts(vec![10; 100], 0.0, 0)?;
    /// let mut counts = vec![1; 100];
    /// counts[0] = 901; // key0 takes 901 of the 1,000 requests
    /// let skewed = Workload::from_counts(counts, 1.0, 0)?;
    /// let l = LoadUnderSkew::measure(&keys, &Replicated::lineup(4, 10)?, &[even, skewed])?;
    /// assert_eq!((l.exponents(), l.hottest_shares(), l.fair_share()), (&[0.0, 1.0][..], &[0.01, 0.901][..], 0.25));
    /// // jump's row, by hand: md5("key0") (Python's hashlib) read at its top 64 bits
    /// let key0 = (45_131_504_060_613_900_271_599_024_054_269_708_792u128 >> 64) as u64;
    /// let b = jump_hash(key0, 4)? as usize;
    /// let jump = &l.rows()[3];
    /// assert_eq!(jump.requests[0][b], 10 * jump.keys[b]);
    /// assert_eq!(jump.requests[1][b], jump.keys[b] + 900);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure(keys: &HashedKeys, schemes: &[Replicated], workloads: &[Workload]) -> Result<LoadUnderSkew> {
        for (what, n) in [("schemes to compare (count)", schemes.len()), ("workloads (count)", workloads.len())] {
            if n == 0 {
                return Err(Error::OutOfRange { what, given: "0".into(), allowed: "at least one".into() });
            }
        }
        for w in workloads {
            check_workload(keys, w)?;
        }
        limits::check_hint(
            "key placements (keys × schemes)",
            limits::product(keys.len(), schemes.len()),
            limits::current().max_placements,
            "use fewer keys or fewer schemes",
        )?;
        let mut rows = Vec::with_capacity(schemes.len());
        for p in schemes {
            p.check_cost(keys)?;
            let owners = p.assign(keys);
            let loads: Vec<RequestLoad> =
                workloads.iter().map(|w| RequestLoad::from_owners(p.nodes(), &owners, w)).collect();
            let mut keys_per = vec![0u64; p.nodes().len()];
            for &o in &owners {
                keys_per[o as usize] += 1;
            }
            rows.push(SkewRow {
                scheme: p.label(),
                nodes: p.nodes().to_vec(),
                keys: keys_per,
                requests: loads.into_iter().map(|l| l.requests).collect(),
            });
        }
        Ok(LoadUnderSkew {
            s: workloads.iter().map(Workload::s).collect(),
            hottest: workloads.iter().map(Workload::hottest_share).collect(),
            rows,
        })
    }

    /// The exponents of the workloads, in order.
    pub fn exponents(&self) -> &[f64] {
        &self.s
    }

    /// The hottest key's share of the requests, per workload.
    pub fn hottest_shares(&self) -> &[f64] {
        &self.hottest
    }

    /// One row per scheme.
    pub fn rows(&self) -> &[SkewRow] {
        &self.rows
    }

    /// A node's fair share of the requests, `1/N` (of the first scheme).
    pub fn fair_share(&self) -> f64 {
        1.0 / self.rows.first().map_or(1, |r| r.nodes.len()).max(1) as f64
    }
}
