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
use crate::schemes::{Bounded, Key, Locate, NodeId, Placement, Rendezvous, Replicated, Ring};
use crate::{Error, Result};

fn check_workload(keys: &HashedKeys, workload: &Workload) -> Result<()> {
    if workload.keys() != keys.len() {
        return Err(Error::LengthMismatch {
            what: "workload keys (one count per key)",
            expected: keys.len(),
            given: workload.keys(),
        });
    }
    Ok(())
}

fn max_over_mean(v: &[u64]) -> f64 {
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
    pub fn run(keys: &HashedKeys, schemes: &[Replicated], workloads: &[Workload]) -> Result<LoadUnderSkew> {
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

/// One line of [`RequestBounds`]: the plain ring or one ε.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundRow {
    /// `None` for the plain ring (no bound).
    pub epsilon: Option<f64>,
    /// The most requests a node may serve, if bounded.
    pub capacity: Option<u64>,
    /// Requests on the busiest node.
    pub busiest: u64,
    /// Keys not on their plain-ring owner (the price of the bound).
    pub displaced_keys: u64,
    /// Keys that change node when the new node joins.
    pub moved_keys: u64,
    /// The requests of those keys.
    pub moved_requests: u64,
}

/// Bounded loads with the bound on requests (each key weighs its requests),
/// for several ε, beside the plain ring; and what each moves when a node
/// joins.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestBounds {
    pub(crate) nodes: usize,
    pub(crate) vnodes: usize,
    pub(crate) new_node: String,
    pub(crate) keys: u64,
    pub(crate) requests: u64,
    pub(crate) hottest: u64,
    pub(crate) rows: Vec<BoundRow>,
}

impl RequestBounds {
    /// `n` nodes on a ring with `vnodes` points each; the plain ring, then
    /// [`Bounded::assign_weighted`] for each ε; before and after node
    /// `new_node` joins.
    pub fn run(
        keys: &HashedKeys,
        workload: &Workload,
        n: usize,
        vnodes: usize,
        epsilons: &[f64],
        new_node: &str,
    ) -> Result<RequestBounds> {
        check_workload(keys, workload)?;
        limits::check_hint(
            "key placements (keys × 2 × (ε values + 1))",
            limits::product(keys.len(), 2 * (epsilons.len() + 1)),
            limits::current().max_placements,
            "use fewer keys or fewer ε values",
        )?;
        let ring = Ring::new(n)?.with_vnodes(vnodes)?;
        let grown = ring.add_node(new_node)?;
        let plain_before = ring.assign(keys);
        let plain_after = grown.assign(keys);
        let w = workload.counts();
        let row = |epsilon, capacity, before: &[NodeId], after: &[NodeId]| {
            let mut load = vec![0u64; n];
            let (mut displaced, mut moved, mut moved_req) = (0, 0, 0);
            for i in 0..before.len() {
                load[before[i] as usize] += w[i];
                displaced += u64::from(before[i] != plain_before[i]);
                // add_node appends the new node, so equal ids are equal names
                if ring.nodes().get(before[i] as usize) != grown.nodes().get(after[i] as usize) {
                    moved += 1;
                    moved_req += w[i];
                }
            }
            BoundRow {
                epsilon,
                capacity,
                busiest: load.iter().copied().max().unwrap_or(0),
                displaced_keys: displaced,
                moved_keys: moved,
                moved_requests: moved_req,
            }
        };
        let mut rows = vec![row(None, None, &plain_before, &plain_after)];
        for &e in epsilons {
            let b = Bounded::new(n)?.with_vnodes(vnodes)?.with_epsilon(e)?;
            let before = b.assign_weighted(keys, w)?;
            let after = b.add_node(new_node)?.assign_weighted(keys, w)?;
            rows.push(row(Some(e), Some(b.weighted_capacity(workload.requests())), &before, &after));
        }
        Ok(RequestBounds {
            nodes: n,
            vnodes,
            new_node: new_node.to_string(),
            keys: keys.len() as u64,
            requests: workload.requests(),
            hottest: workload.hottest().1,
            rows,
        })
    }

    /// The plain ring first, then one row per ε.
    pub fn rows(&self) -> &[BoundRow] {
        &self.rows
    }

    /// A node's fair share of the requests.
    pub fn fair(&self) -> f64 {
        self.requests as f64 / self.nodes as f64
    }

    /// Requests of the hottest key.
    pub fn hottest(&self) -> u64 {
        self.hottest
    }
}

/// One way count of [`HotKeySplit`].
#[derive(Debug, Clone, PartialEq)]
pub struct SplitRow {
    /// Sub-keys each hot key is split into.
    pub ways: usize,
    /// Distinct nodes holding a sub-key of the hottest key: the nodes one
    /// read of it must ask.
    pub nodes_per_read: usize,
    /// Requests per node after the split.
    pub loads: Vec<u64>,
    /// Requests the split keys now cost the cluster: their writes, plus
    /// each read once per node it must ask.
    pub hot_cost: u64,
}

impl SplitRow {
    /// Requests on the busiest node.
    pub fn busiest(&self) -> u64 {
        self.loads.iter().copied().max().unwrap_or(0)
    }
}

/// The hottest keys, each split into sub-keys `"{key}#0"` … `"{key}#{k-1}"`
/// (the book's "add a random number to the key"): a write picks one
/// sub-key at random (so writes spread evenly), a read must ask every node
/// that holds a sub-key and combine the answers.
#[derive(Debug, Clone, PartialEq)]
pub struct HotKeySplit {
    pub(crate) nodes: Vec<String>,
    pub(crate) key: String,
    pub(crate) split: usize,
    pub(crate) hot: u64,
    pub(crate) reads: u64,
    pub(crate) total: u64,
    pub(crate) before: Vec<u64>,
    pub(crate) rows: Vec<SplitRow>,
}

/// The most sub-keys one key may be split into.
pub const MAX_SPLIT: usize = 100_000;

impl HotKeySplit {
    /// Split the workload's `hot` hottest keys `ways[j]` ways each under
    /// `placement`. A share `read_share` of their requests are reads (each
    /// asks every node that holds a sub-key of its key once), the rest
    /// writes (each goes to one sub-key). One way is the keys unsplit.
    pub fn run<P: Locate + ?Sized>(
        keys: &HashedKeys,
        workload: &Workload,
        placement: &P,
        hot: usize,
        ways: &[usize],
        read_share: f64,
    ) -> Result<HotKeySplit> {
        check_workload(keys, workload)?;
        if !(0.0..=1.0).contains(&read_share) {
            return Err(Error::Invalid(format!("read share {read_share} is not between 0 and 1: use e.g. 0.5")));
        }
        if hot == 0 || hot > keys.len() {
            return Err(Error::Invalid(format!("{hot} hot keys to split: use 1 to {} (the key count)", keys.len())));
        }
        if let Some(&bad) = ways.iter().find(|&&k| k == 0 || k > MAX_SPLIT) {
            return Err(Error::Invalid(format!("{bad} sub-keys: split into 1 to {MAX_SPLIT} (1 is unsplit)")));
        }
        limits::check_hint(
            "sub-key lookups (hot keys × sum of ways)",
            limits::product(hot, ways.iter().sum()),
            limits::current().max_hashes,
            "split fewer keys or into fewer sub-keys",
        )?;
        let base = RequestLoad::measure(keys, workload, placement)?;
        let counts = workload.counts();
        let mut order: Vec<usize> = (0..counts.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(counts[i]), i));
        order.truncate(hot);
        let width = keys.width();
        let names: Vec<String> = order.iter().map(|&i| keys.keys().key(i)).collect();
        let mut rest = base.requests.clone();
        for (&i, name) in order.iter().zip(&names) {
            rest[placement.locate(Key::new(name, width)) as usize] -= counts[i];
        }
        let reads_of = |c: u64| (c as f64 * read_share).round() as u64;
        let rows = ways
            .iter()
            .map(|&k| {
                let mut loads = rest.clone();
                let (mut cost, mut first_d) = (0, 0);
                for (n, (&i, name)) in order.iter().zip(&names).enumerate() {
                    let (reads, writes) = (reads_of(counts[i]), counts[i] - reads_of(counts[i]));
                    let mut holds = vec![false; loads.len()];
                    for j in 0..k {
                        let sub = if k == 1 { name.clone() } else { format!("{name}#{j}") };
                        let o = placement.locate(Key::new(&sub, width)) as usize;
                        loads[o] += writes / k as u64 + u64::from((j as u64) < writes % k as u64);
                        holds[o] = true;
                    }
                    let d = holds.iter().filter(|&&x| x).count();
                    for (l, _) in loads.iter_mut().zip(&holds).filter(|(_, &x)| x) {
                        *l += reads;
                    }
                    cost += writes + reads * d as u64;
                    if n == 0 {
                        first_d = d;
                    }
                }
                SplitRow { ways: k, nodes_per_read: first_d, loads, hot_cost: cost }
            })
            .collect();
        let hot_total: u64 = order.iter().map(|&i| counts[i]).sum();
        Ok(HotKeySplit {
            nodes: placement.nodes().to_vec(),
            key: names[0].clone(),
            split: hot,
            hot: hot_total,
            reads: order.iter().map(|&i| reads_of(counts[i])).sum(),
            total: workload.requests(),
            before: base.requests,
            rows,
        })
    }

    /// The hottest key's name.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// How many of the hottest keys are split.
    pub fn split_keys(&self) -> usize {
        self.split
    }

    /// The split keys' requests before splitting.
    pub fn hot_requests(&self) -> u64 {
        self.hot
    }

    /// Of those, the reads.
    pub fn reads(&self) -> u64 {
        self.reads
    }

    /// A node's fair share of the requests before splitting.
    pub fn fair(&self) -> f64 {
        self.total as f64 / self.nodes.len() as f64
    }

    /// Requests per node before splitting.
    pub fn before(&self) -> &[u64] {
        &self.before
    }

    /// One row per way count.
    pub fn rows(&self) -> &[SplitRow] {
        &self.rows
    }

    /// Node names.
    pub fn nodes(&self) -> &[String] {
        &self.nodes
    }
}

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
    pub fn run(
        keys: &HashedKeys,
        workload: &Workload,
        n: usize,
        failed: &str,
        vnode_counts: &[usize],
        arrangements: usize,
    ) -> Result<FailureSweep> {
        check_workload(keys, workload)?;
        if arrangements == 0 {
            return Err(Error::Invalid("0 arrangements: use at least 1".into()));
        }
        limits::check_hint(
            "key placements (keys × 2 × point counts × arrangements)",
            limits::product(keys.len(), 2 * vnode_counts.len()).saturating_mul(arrangements as u128),
            limits::current().max_placements,
            "use fewer keys, point counts or arrangements",
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
