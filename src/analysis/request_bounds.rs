//! Bounded loads with the bound on requests rather than keys: how much a
//! hot key's node can be relieved, and what each ε moves when a node joins.
//!
//! ```
//! use reshard::analysis::RequestBounds;
//! use reshard::prelude::*;
//! let keys = KeySet::plain(2_000).hashed(HashWidth::Bits128)?;
//! let hot = Workload::zipf(keys.len(), 1.1, 20_000, 1)?;
//! let b = RequestBounds::measure(&keys, &hot, 4, 20, &[0.25], "4")?;
//! assert_eq!(b.rows().len(), 2); // the plain ring, then ε = 0.25
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::requests::check_workload;
use crate::analysis::workload::Workload;
use crate::keys::HashedKeys;
use crate::limits;
use crate::schemes::{Bounded, NodeId, Placement, Ring};
use crate::Result;

/// One line of [`RequestBounds`]: the plain ring or one ε.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
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
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::prelude::*;
    /// use reshard::RequestBounds;
    /// let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128)?;
    /// let w = Workload::zipf(keys.len(), 0.5, 10_000, 1)?;
    /// let b = RequestBounds::measure(&keys, &w, 4, 10, &[0.5], "4")?;
    /// let (plain, bounded) = (&b.rows()[0], &b.rows()[1]);
    /// // the plain row is the 10-point ring grown 4 → 5 (the new node is "4")
    /// let m = Movement::measure(&keys, &Ring::new(4)?.with_vnodes(10)?, &Ring::new(5)?.with_vnodes(10)?)?;
    /// assert_eq!((plain.displaced_keys, plain.moved_keys, plain.capacity), (0, m.moved(), None));
    /// assert_eq!((b.fair(), bounded.capacity), (2_500.0, Some(3_750))); // ⌈1.5 · 10,000 / 4⌉
    /// assert!(bounded.busiest <= 3_750);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure(
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
        limits::check_hint(
            "ring points hashed (points per node × (2n + 1) nodes × (ε values + 1))",
            limits::product(vnodes, n.saturating_mul(2).saturating_add(1)).saturating_mul(epsilons.len() as u128 + 1),
            limits::current().max_hashes,
            "use fewer nodes, points per node or ε values",
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
