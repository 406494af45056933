//! What `redis-cli --cluster rebalance` and `redis-cli --cluster reshard
//! --cluster-from <id>` will do to a slot table, computed before they run.
//!
//! Both follow `src/redis-cli.c` of Redis 7.0 (`clusterManagerCommandRebalance`,
//! `clusterManagerCommandReshard`, `clusterManagerComputeReshardTable`):
//!
//! * **rebalance**: every master that takes part (with
//!   `--cluster-use-empty-masters`, also those with no slots) has weight 1;
//!   its *expected* share is `(int)(16384 / total_weight · weight)` computed
//!   in `f32`, and its *balance* is `slots − expected` (positive: it gives,
//!   negative: it receives). Nothing happens unless some node is off its
//!   expected share by more than the threshold (2%). Rounding leftovers are
//!   taken from nodes with balance ≤ 0, in node order, one slot each per
//!   round. The nodes are then sorted by balance, ascending (a stable sort:
//!   ties keep node order); the most negative receives from the most positive,
//!   `min(|dst|, |src|)` slots at a time, and a source always gives its
//!   lowest-numbered slots. Moves are done one source → one destination.
//! * **reshard from one node**: the source gives its `count` lowest-numbered
//!   slots to the destination.
//!
//! *Node order* is redis-cli's: the node it was pointed at first, then the
//! others in the order that node lists them in `CLUSTER NODES`. It only
//! decides ties, so [`Slots::rebalance`] reads it from [`Placement::nodes`]:
//! build the table with the nodes in that order (the live cluster in
//! `reshard::live` does).
//!
//! **One way to add, one way to remove.** A node joins or leaves a table
//! only through [`Placement::add_node`] and [`Placement::remove_node`]
//! (`add-node` + `reshard` of the new node's share from all; the crate's
//! even split + `del-node`). What this module adds are *plans* of redis-cli
//! commands, not other ways to add a node: [`Slots::rebalance_joining`]
//! (`add-node` for each newcomer, then `rebalance`), [`Slots::rebalance`],
//! [`Slots::reshard_from`] and [`Slots::drain`] (one `reshard` per target,
//! then `del-node`); each plan lists its steps as redis-cli prints them.
//!
//! ```
//! use reshard::{Placement, Slots};
//! let three = Slots::named(["A", "B", "C"])?;
//! // add-node D (it joins with no slots), then rebalance
//! let plan = three.rebalance_joining(&["D"], true)?;
//! assert_eq!(plan.moves().len(), 3);
//! // B has 5,462 slots, the others 5,461; each should keep 4,096.
//! assert_eq!(plan.moves()[0].slots.len(), 1366);
//! assert_eq!((plan.moves()[0].from.as_str(), plan.moves()[0].to.as_str()), ("B", "D"));
//! assert_eq!(plan.after().slot_counts(), [4096, 4096, 4096, 4096]);
//! assert_eq!(plan.after().ranges_of("D")?, [(0, 1364), (5461, 6826), (10923, 12287)]);
//! // Then B leaves: three reshard calls empty it, then del-node.
//! let gone = plan.after().drain("B", &["A", "C", "D"])?;
//! assert_eq!(gone.moves().iter().map(|m| m.slots.len()).collect::<Vec<_>>(), [1366, 1365, 1365]);
//! assert_eq!(gone.after().nodes(), ["A", "C", "D"]);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::schemes::slots::{Slots, SLOT_COUNT};
use crate::schemes::{index_of, NodeId, Placement};
use crate::{Error, Result};

/// redis-cli's default `--cluster-threshold`, in percent.
pub const REBALANCE_THRESHOLD: f32 = 2.0;

/// One step of a plan: `slots` go from node `from` to node `to`, in this
/// order (redis-cli prints "Moving N slots from … to …").
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct SlotMove {
    /// The node giving the slots.
    pub from: String,
    /// The node receiving them.
    pub to: String,
    /// The slots, ascending.
    pub slots: Vec<u16>,
}

/// What a rebalance or a series of reshards will do: the steps, the table
/// before and the table after.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SlotPlan {
    pub(crate) before: Slots,
    pub(crate) after: Slots,
    pub(crate) moves: Vec<SlotMove>,
    /// Balance per node (in `before.nodes()` order) before any move; empty
    /// for a reshard.
    pub(crate) balances: Vec<i64>,
}

impl SlotPlan {
    /// The table before.
    pub fn before(&self) -> &Slots {
        &self.before
    }

    /// The table after every step.
    pub fn after(&self) -> &Slots {
        &self.after
    }

    /// The steps in the order they run.
    pub fn moves(&self) -> &[SlotMove] {
        &self.moves
    }

    /// How many slots change node in all.
    pub fn slots_moved(&self) -> usize {
        self.moves.iter().map(|m| m.slots.len()).sum()
    }

    /// Each node's balance as redis-cli computes it (slots to give if
    /// positive, to receive if negative), in node order; empty for a
    /// reshard.
    pub fn balances(&self) -> &[i64] {
        &self.balances
    }

    /// True when nothing moves (e.g. every node is within the threshold).
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// Append the steps of `next`, which must start from this plan's table.
    pub fn then(mut self, next: SlotPlan) -> Result<SlotPlan> {
        if let Some(&slot) = self.after.moved_slots(&next.before).first() {
            let on = |t: &Slots| t.nodes()[t.table()[slot] as usize].clone();
            return Err(Error::PlansDoNotJoin { slot, ends_on: on(&self.after), starts_on: on(&next.before) });
        }
        self.moves.extend(next.moves);
        self.after = next.after;
        Ok(self)
    }
}

impl Slots {
    /// The same table with one more node that owns no slots, as
    /// `redis-cli --cluster add-node` leaves it (the first step of
    /// [`Placement::add_node`] and of [`Slots::rebalance_joining`]). Fails
    /// if the name is taken.
    pub(crate) fn joined(&self, name: &str) -> Result<Slots> {
        if self.nodes().len() >= SLOT_COUNT {
            return Err(Error::MoreNodesThanShards { nodes: self.nodes().len() + 1, shards: SLOT_COUNT });
        }
        let names: Vec<String> = self.nodes().iter().cloned().chain([name.to_string()]).collect();
        Slots::from_table(names, self.table().to_vec())
    }

    /// The same table with its nodes listed in another order (`names` must
    /// be exactly this table's node names). Tables compare equal only with
    /// the same order; [`Movement`](crate::Movement) lists nodes in it.
    pub fn ordered_as<I, S>(&self, names: I) -> Result<Slots>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        if names.len() != self.nodes().len() {
            return Err(Error::LengthMismatch { what: "node names", expected: self.nodes().len(), given: names.len() });
        }
        let map: Vec<NodeId> = self.nodes().iter().map(|n| index_of(&names, n)).collect::<Result<_>>()?;
        let table = self.table().iter().map(|&t| map[t as usize]).collect();
        Slots::from_table(names, table)
    }

    /// The same table without node `name`, which must own no slots (as
    /// `redis-cli --cluster del-node` requires): the last step of
    /// [`Slots::drain`]. On a node without slots, [`Placement::remove_node`]
    /// gives the same table.
    pub(crate) fn deleted(&self, name: &str) -> Result<Slots> {
        let gone = index_of(self.nodes(), name)?;
        let own = self.slot_counts()[gone as usize];
        if own > 0 {
            return Err(Error::NodeStillServes { node: name.to_string(), slots: own });
        }
        if self.nodes().len() == 1 {
            return Err(Error::LastNode(name.to_string()));
        }
        let names: Vec<String> = self.nodes().iter().filter(|n| *n != name).cloned().collect();
        let table = self.table().iter().map(|&t| if t > gone { t - 1 } else { t }).collect();
        Slots::from_table(names, table)
    }

    /// Nodes `joining` join with no slots (`redis-cli --cluster add-node`,
    /// once per name, in order), then [`Slots::rebalance`] runs: the plan's
    /// [`before`](SlotPlan::before) is the table with the empty newcomers.
    /// With no names this is [`Slots::rebalance`].
    ///
    /// Fails on a name already taken ([`Error::DuplicateNode`]).
    ///
    /// ```
    /// use reshard::{Placement, Slots};
    /// let plan = Slots::named(["A", "B", "C"])?.rebalance_joining(&["D", "E"], true)?;
    /// assert_eq!(plan.before().nodes(), ["A", "B", "C", "D", "E"]);
    /// assert_eq!(plan.before().slot_counts()[3..], [0, 0]);
    /// assert_eq!(plan.after().slot_counts().iter().sum::<usize>(), 16_384);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn rebalance_joining<S: AsRef<str>>(&self, joining: &[S], use_empty_masters: bool) -> Result<SlotPlan> {
        let mut table = self.clone();
        for name in joining {
            table = table.joined(name.as_ref())?;
        }
        table.rebalance(use_empty_masters)
    }

    /// What `redis-cli --cluster rebalance` does to this table, with every
    /// weight 1 and the default threshold (2%); `use_empty_masters` is
    /// `--cluster-use-empty-masters`. Ties are broken by node order (see the
    /// [module docs](self)).
    pub fn rebalance(&self, use_empty_masters: bool) -> Result<SlotPlan> {
        self.rebalance_with(&vec![1.0; self.nodes().len()], use_empty_masters, REBALANCE_THRESHOLD)
    }

    /// [`Slots::rebalance`] with a weight per node (`--cluster-weight`, in
    /// node order) and a threshold in percent (`--cluster-threshold`).
    ///
    /// Why `f32`: redis-cli reads `--cluster-weight` with `atof` into a
    /// `float` and computes each share in `f32`; the same type gives the same
    /// rounding, hence the same plan.
    ///
    /// Fails on a threshold that is NaN, infinite or negative, on a weight
    /// that is, and on weights whose total is not a finite number the slot
    /// count can be divided by (redis-cli computes in `f32`: a total over
    /// 3.4e38 or under 4.8e-35 gives it no answer either).
    ///
    /// ```
    /// use reshard::{Error, Slots};
    /// let s = Slots::new(3)?;
    /// assert!(matches!(s.rebalance_with(&[1.0; 3], true, f32::NAN), Err(Error::BadNumber { .. })));
    /// assert!(s.rebalance_with(&[f32::MAX; 3], true, 2.0).is_err());
    /// assert!(s.rebalance_with(&[1e-45; 3], true, 2.0).is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn rebalance_with(&self, weights: &[f32], use_empty_masters: bool, threshold: f32) -> Result<SlotPlan> {
        if !(threshold.is_finite() && threshold >= 0.0) {
            return Err(Error::BadNumber {
                what: "the rebalance threshold (percent)",
                value: threshold.to_string(),
                expected: "a finite number ≥ 0",
                hint: "use e.g. 2.0 (redis-cli's default)",
            });
        }
        let n = self.nodes().len();
        if weights.len() != n {
            return Err(Error::LengthMismatch { what: "weights for nodes", expected: n, given: weights.len() });
        }
        if let Some((i, w)) = weights.iter().enumerate().find(|(_, w)| !w.is_finite() || **w < 0.0) {
            return Err(Error::BadWeight { node: self.nodes()[i].clone(), weight: w.to_string() });
        }
        let counts = self.slot_counts();
        // Nodes without slots take no part unless use_empty_masters.
        let involved: Vec<usize> = (0..n).filter(|&i| use_empty_masters || counts[i] > 0).collect();
        let total_weight: f32 = involved.iter().map(|&i| weights[i]).sum();
        if total_weight <= 0.0 {
            return Err(Error::BadNumber {
                what: "the total weight of the nodes taking part",
                value: total_weight.to_string(),
                expected: "a number > 0",
                hint: "give at least one node taking part a weight > 0 (e.g. 1.0 each)",
            });
        }
        if !(SLOT_COUNT as f32 / total_weight).is_finite() || !total_weight.is_finite() {
            return Err(Error::BadNumber {
                what: "the total weight of the nodes taking part",
                value: total_weight.to_string(),
                expected: "a total that 16,384 slots can be shared by in f32 (redis-cli's arithmetic)",
                hint: "use weights between about 1e-30 and 1e30 (e.g. 1.0 each)",
            });
        }
        let mut balance = vec![0i64; n];
        let (mut total_balance, mut reached) = (0i64, false);
        for &i in &involved {
            let expected = ((SLOT_COUNT as f32 / total_weight) * weights[i]) as i64;
            balance[i] = counts[i] as i64 - expected;
            total_balance += balance[i];
            if threshold > 0.0 {
                if counts[i] > 0 {
                    let err = (100.0 - (100.0 * expected as f64 / counts[i] as f64)).abs();
                    reached |= err > f64::from(threshold);
                } else {
                    reached |= expected > 1;
                }
            }
        }
        let mut plan =
            SlotPlan { before: self.clone(), after: self.clone(), moves: Vec::new(), balances: balance.clone() };
        if !reached {
            return Ok(plan);
        }
        while total_balance > 0 {
            let left = total_balance;
            for &i in &involved {
                if balance[i] <= 0 && total_balance > 0 {
                    balance[i] -= 1;
                    total_balance -= 1;
                }
            }
            if total_balance == left {
                // every node is over its share (f32 rounding): redis-cli
                // would loop for ever here
                return Err(Error::RebalanceStuck { over: total_balance });
            }
        }
        plan.balances = balance.clone();
        let mut sorted = involved.clone();
        sorted.sort_by_key(|&i| balance[i]); // stable, as glibc's qsort (merge sort) is
        let (mut dst_idx, mut src_idx) = (0usize, sorted.len().saturating_sub(1));
        let mut table = self.table().to_vec();
        while dst_idx < src_idx {
            let (dst, src) = (sorted[dst_idx], sorted[src_idx]);
            let numslots = balance[dst].abs().min(balance[src].abs());
            if numslots > 0 {
                let slots = lowest_slots(&table, src as NodeId, numslots as usize);
                if slots.len() != numslots as usize {
                    return Err(Error::NotEnoughShards {
                        node: self.nodes()[src].clone(),
                        has: slots.len(),
                        asked: numslots as usize,
                    });
                }
                for &s in &slots {
                    table[usize::from(s)] = dst as NodeId;
                }
                plan.moves.push(SlotMove { from: self.nodes()[src].clone(), to: self.nodes()[dst].clone(), slots });
            }
            balance[dst] += numslots;
            balance[src] -= numslots;
            if balance[dst] == 0 {
                dst_idx += 1;
            }
            if balance[src] == 0 {
                src_idx = src_idx.saturating_sub(1);
            }
        }
        plan.after = Slots::from_table(self.nodes().to_vec(), table)?;
        Ok(plan)
    }

    /// What `redis-cli --cluster reshard --cluster-from <from> --cluster-to
    /// <to> --cluster-slots <count>` does: `from` gives its `count`
    /// lowest-numbered slots to `to`. Fails if `from` owns fewer.
    pub fn reshard_from(&self, from: &str, to: &str, count: usize) -> Result<Slots> {
        Ok(self.reshard_from_plan(from, to, count)?.after)
    }

    /// [`Slots::reshard_from`] as a one-step [`SlotPlan`].
    pub fn reshard_from_plan(&self, from: &str, to: &str, count: usize) -> Result<SlotPlan> {
        let (src, dst) = (index_of(self.nodes(), from)?, index_of(self.nodes(), to)?);
        if src == dst {
            return Err(Error::SameNode(from.to_string()));
        }
        let has = self.slot_counts()[src as usize];
        if count == 0 || count > has {
            return Err(Error::NotEnoughShards { node: from.to_string(), has, asked: count });
        }
        let slots = lowest_slots(self.table(), src, count);
        let mut table = self.table().to_vec();
        for &s in &slots {
            table[usize::from(s)] = dst;
        }
        let after = Slots::from_table(self.nodes().to_vec(), table)?;
        Ok(SlotPlan {
            before: self.clone(),
            after,
            moves: vec![SlotMove { from: from.to_string(), to: to.to_string(), slots }],
            balances: Vec::new(),
        })
    }

    /// Empty node `name` with one `reshard --cluster-from name --cluster-to
    /// t` per target `t` of `to`, in that order, splitting its slots as
    /// evenly as possible (the first `own % targets` take one more; each
    /// call takes the lowest-numbered slots left), then remove it
    /// (`del-node`). The plan's `after` no longer has the node.
    ///
    /// Fails on an unknown node, no targets, or `name` among them.
    pub fn drain<S: AsRef<str>>(&self, name: &str, to: &[S]) -> Result<SlotPlan> {
        let gone = index_of(self.nodes(), name)? as usize;
        if to.is_empty() {
            return Err(Error::LastNode(name.to_string()));
        }
        for t in to {
            index_of(self.nodes(), t.as_ref())?;
            if t.as_ref() == name {
                return Err(Error::SameNode(name.to_string()));
            }
        }
        let own = self.slot_counts()[gone];
        let (base, extra) = (own / to.len(), own % to.len());
        let mut plan = SlotPlan { before: self.clone(), after: self.clone(), moves: Vec::new(), balances: Vec::new() };
        for (k, t) in to.iter().enumerate() {
            let count = base + usize::from(k < extra);
            if count > 0 {
                let step = plan.after.reshard_from_plan(name, t.as_ref(), count)?;
                plan = plan.then(step)?;
            }
        }
        plan.after = plan.after.deleted(name)?;
        Ok(plan)
    }
}

/// The `count` lowest-numbered slots that node `src` serves in `table`.
fn lowest_slots(table: &[NodeId], src: NodeId, count: usize) -> Vec<u16> {
    (0..SLOT_COUNT).filter(|&s| table[s] == src).take(count).map(|s| s as u16).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebalance_three_to_four_matches_add_node() {
        let three = Slots::named(["A", "B", "C"]).unwrap();
        let plan = three.rebalance_joining(&["D"], true).unwrap();
        let counts: Vec<(String, usize)> = plan.moves().iter().map(|m| (m.from.clone(), m.slots.len())).collect();
        assert_eq!(counts, [("B".into(), 1366), ("C".into(), 1365), ("A".into(), 1365)]);
        // Same slots as reshard with `all` (each source gives its lowest).
        let via_all = three.add_node("D").unwrap();
        assert!(plan.after().moved_slots(&via_all).is_empty());
        assert_eq!(plan.balances(), [1365, 1366, 1365, -4096]);
    }

    #[test]
    fn rebalance_without_empty_masters_ignores_the_new_node() {
        let plan = Slots::named(["A", "B", "C"]).unwrap().rebalance_joining(&["D"], false).unwrap();
        assert!(plan.is_empty());
    }

    #[test]
    fn rebalance_rounding_and_many_receivers() {
        // 3 -> 5: expected 3276 each (16384/5 = 3276.8); the 4 left over
        // go to the nodes with balance <= 0 (the receivers), one per round.
        let plan = Slots::named(["A", "B", "C"]).unwrap().rebalance_joining(&["D", "E"], true).unwrap();
        let c = plan.after().slot_counts();
        assert_eq!(c.iter().sum::<usize>(), SLOT_COUNT);
        assert_eq!(c, [3276, 3276, 3276, 3278, 3278]);
        // Balanced already: nothing to do.
        assert!(plan.after().rebalance(true).unwrap().is_empty());
    }

    #[test]
    fn drain_then_remove() {
        let four = Slots::named(["A", "B", "C"]).unwrap().rebalance_joining(&["D"], true).unwrap();
        let plan = four.after().drain("B", &["A", "C", "D"]).unwrap();
        assert_eq!(plan.after().nodes(), ["A", "C", "D"]);
        assert_eq!(plan.moves().iter().map(|m| m.slots.len()).collect::<Vec<_>>(), [1366, 1365, 1365]);
        assert_eq!(plan.after().slot_counts().iter().sum::<usize>(), SLOT_COUNT);
        assert!(Slots::named(["A"]).unwrap().drain("A", &[] as &[&str]).is_err());
        assert!(four.after().drain("B", &["B"]).is_err());
        assert!(four.after().deleted("A").is_err());
    }
}
