//! Where a failed node's requests go: its heirs on the ring (few, with
//! few points per node) or everyone (rendezvous).
//!
//! ```
//! use reshard::analysis::NodeFailure;
//! use reshard::prelude::*;
//! let keys = KeySet::plain(2_000).hashed(HashWidth::Bits128)?;
//! let flat = Workload::zipf(keys.len(), 0.0, 20_000, 1)?;
//! let f = NodeFailure::measure(&keys, &flat, &Rendezvous::new(4)?, "0")?;
//! assert_eq!((f.failed(), f.survivors().len()), ("0", 3));
//! // its load lands on the survivors
//! assert_eq!(f.after().iter().sum::<u64>(), f.before().iter().sum::<u64>() + f.failed_load());
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::requests::{check_workload, max_over_mean, RequestLoad};
use crate::analysis::workload::Workload;
use crate::keys::HashedKeys;
use crate::limits;
use crate::schemes::{Placement, Rendezvous, Ring};
use crate::{Error, Result};

/// Where a failed node's requests go: every node's load before, and every
/// survivor's after the node is removed.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeFailure {
    pub(crate) label: String,
    pub(crate) failed: String,
    pub(crate) failed_load: u64,
    pub(crate) survivors: Vec<String>,
    pub(crate) before: Vec<u64>,
    pub(crate) after: Vec<u64>,
}

impl NodeFailure {
    /// Remove node `failed` from `placement` and measure requests per
    /// node before and after.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::prelude::*;
    /// use reshard::NodeFailure;
    /// let keys = KeySet::users(1_000).hashed(HashWidth::Bits32)?;
    /// let one_each = Workload::from_counts(vec![1; 1_000], 0.0, 0)?; // one request per key
    /// // one point per node, md5 mod 2^32 of "C#0" < "B#0" < "A#0" (Python's hashlib):
    /// // 567,359,856 < 1,021,159,618 < 3,555,415,914, so A serves (B's point, A's point]
    /// let ring = Ring::named(["A", "B", "C"])?;
    /// let f = NodeFailure::measure(&keys, &one_each, &ring, "A")?;
    /// let on_a = keys.hashes().iter().filter(|&&h| h > 1_021_159_618 && h <= 3_555_415_914).count();
    /// assert_eq!(f.failed_load(), on_a as u64);
    /// // A's keys walk on clockwise, past the top, to C's point: C is the only heir
    /// assert_eq!(f.survivors(), ["B", "C"]);
    /// assert_eq!(f.after(), [f.before()[0], f.before()[1] + f.failed_load()]);
    /// assert_eq!((f.heirs(), f.biggest_heir_share()), (1, 1.0));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure<P: Placement>(
        keys: &HashedKeys,
        workload: &Workload,
        placement: &P,
        failed: &str,
    ) -> Result<NodeFailure> {
        let after_p = placement.remove_node(failed)?;
        let before = RequestLoad::measure(keys, workload, placement)?;
        let after = RequestLoad::measure(keys, workload, &after_p)?;
        let gone = before.nodes.iter().position(|n| n == failed).unwrap_or(0);
        let survivors = after.nodes.clone();
        let before_of = survivors
            .iter()
            .map(|s| before.nodes.iter().position(|n| n == s).map_or(0, |i| before.requests[i]))
            .collect();
        Ok(NodeFailure {
            label: String::new(),
            failed: failed.to_string(),
            failed_load: before.requests[gone],
            survivors,
            before: before_of,
            after: after.requests,
        })
    }

    /// The same, labelled (the label names the scheme in tables and charts).
    pub fn labelled(mut self, label: impl Into<String>) -> NodeFailure {
        self.label = label.into();
        self
    }

    /// The label.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The node that failed.
    pub fn failed(&self) -> &str {
        &self.failed
    }

    /// The failed node's requests before it failed.
    pub fn failed_load(&self) -> u64 {
        self.failed_load
    }

    /// The surviving nodes.
    pub fn survivors(&self) -> &[String] {
        &self.survivors
    }

    /// Each survivor's requests before the failure.
    pub fn before(&self) -> &[u64] {
        &self.before
    }

    /// Each survivor's requests after the failure.
    pub fn after(&self) -> &[u64] {
        &self.after
    }

    /// The fair share of the requests among the survivors.
    pub fn fair_after(&self) -> f64 {
        self.after.iter().sum::<u64>() as f64 / self.after.len().max(1) as f64
    }

    /// The busiest survivor's requests over the survivors' fair share.
    pub fn worst_overload(&self) -> f64 {
        max_over_mean(&self.after)
    }

    /// The largest part of the failed node's requests one survivor took.
    pub fn biggest_heir_share(&self) -> f64 {
        let most = self.before.iter().zip(&self.after).map(|(b, a)| a.saturating_sub(*b)).max().unwrap_or(0);
        if self.failed_load == 0 {
            0.0
        } else {
            most as f64 / self.failed_load as f64
        }
    }

    /// How many survivors took some of the failed node's requests.
    pub fn heirs(&self) -> usize {
        self.before.iter().zip(&self.after).filter(|(b, a)| a > b).count()
    }
}

/// One points-per-node count of [`FailureSweep`], over the arrangements.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FailureRow {
    /// Points per node.
    pub vnodes: usize,
    /// The worst survivor's overload, mean over the arrangements.
    pub mean_overload: f64,
    /// … and the largest.
    pub max_overload: f64,
    /// The largest share of the failed node's load one survivor took, mean
    /// over the arrangements.
    pub mean_heir_share: f64,
}

/// The worst survivor's overload after a node fails, as the points per
/// node grow, over several arrangements (salts `"0:"`, `"1:"`, …) of the
/// ring; rendezvous beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct FailureSweep {
    pub(crate) failed: String,
    pub(crate) nodes: usize,
    pub(crate) arrangements: usize,
    pub(crate) rows: Vec<FailureRow>,
    pub(crate) rendezvous: NodeFailure,
}

impl FailureSweep {
    /// `n` nodes; node `failed` fails; for each count in `vnode_counts`,
    /// `arrangements` rings.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::prelude::*;
    /// use reshard::FailureSweep;
    /// let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128)?;
    /// let flat = Workload::zipf(keys.len(), 0.0, 10_000, 1)?;
    /// let s = FailureSweep::measure(&keys, &flat, 5, "0", &[1], 3)?;
    /// // one point per node: in every arrangement the failed node's arc falls whole
    /// // to the next point clockwise, one heir taking all of it
    /// assert_eq!(s.rows()[0].mean_heir_share, 1.0);
    /// let hrw = s.rendezvous(); // rendezvous deals it out to the others
    /// assert_eq!((hrw.survivors().len(), hrw.heirs()), (4, 4));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure(
        keys: &HashedKeys,
        workload: &Workload,
        n: usize,
        failed: &str,
        vnode_counts: &[usize],
        arrangements: usize,
    ) -> Result<FailureSweep> {
        check_workload(keys, workload)?;
        if arrangements == 0 {
            return Err(Error::OutOfRange { what: "arrangements", given: "0".into(), allowed: "at least 1".into() });
        }
        limits::check_hint(
            "key placements (keys × 2 × point counts × arrangements)",
            limits::product(keys.len(), 2 * vnode_counts.len()).saturating_mul(arrangements as u128),
            limits::current().max_placements,
            "use fewer keys, point counts or arrangements",
        )?;
        // every arrangement hashes the points of its ring before and after
        // the failure (n and n − 1 nodes), each point one md5
        let points: u128 = vnode_counts.iter().map(|&v| limits::product(v, (2 * n).saturating_sub(1))).sum();
        limits::check_hint(
            "ring points hashed (points per node × (2n − 1) nodes, over every count and arrangement)",
            points.saturating_mul(arrangements as u128),
            limits::current().max_hashes,
            "use fewer arrangements, nodes or points per node",
        )?;
        let mut rows = Vec::with_capacity(vnode_counts.len());
        for &v in vnode_counts {
            let mut over = Vec::with_capacity(arrangements);
            let mut heir = 0.0;
            for a in 0..arrangements {
                let ring = Ring::new(n)?.with_vnodes(v)?.with_salt(format!("{a}:"))?;
                let f = NodeFailure::measure(keys, workload, &ring, failed)?;
                over.push(f.worst_overload());
                heir += f.biggest_heir_share();
            }
            rows.push(FailureRow {
                vnodes: v,
                mean_overload: over.iter().sum::<f64>() / arrangements as f64,
                max_overload: over.iter().copied().fold(0.0, f64::max),
                mean_heir_share: heir / arrangements as f64,
            });
        }
        let rendezvous = NodeFailure::measure(keys, workload, &Rendezvous::new(n)?, failed)?.labelled("rendezvous");
        Ok(FailureSweep { failed: failed.to_string(), nodes: n, arrangements, rows, rendezvous })
    }

    /// One row per points-per-node count.
    pub fn rows(&self) -> &[FailureRow] {
        &self.rows
    }

    /// Rendezvous hashing after the same failure.
    pub fn rendezvous(&self) -> &NodeFailure {
        &self.rendezvous
    }
}
