//! The zombie router: a router paused before shards move and resumed
//! after, still holding the old map, writes keys of the moved shards. With
//! no fence, the nodes the shards left accept the writes: acknowledged, and
//! lost (the new owners never see them). With a fence, those nodes refuse
//! them (DDIA 2nd ed. ch. 9, "Fencing tokens"; MongoDB's `StaleConfig`,
//! TiKV's `EpochNotMatch`), and the router refreshes and retries.
//!
//! ```
//! use reshard::analysis::{RefreshPolicy, ZombieRouter};
//! use reshard::schemes::{ShardMap, ShardMove};
//! let map = ShardMap::new(12, ["A", "B", "C"])?;
//! let moves = [ShardMove::new(7, "C"), ShardMove::new(3, "B"), ShardMove::new(10, "C")];
//! let zombie = ZombieRouter::new(&map, &moves, 10)?; // 10 writes: shards 7, 3, 10, 7, 3, …
//! let off = zombie.run(RefreshPolicy::WholeMap, false)?;
//! assert_eq!((off.acknowledged, off.lost, off.refused), (10, 10, 0));
//! let on = zombie.run(RefreshPolicy::WholeMap, true)?;
//! assert_eq!((on.acknowledged, on.lost, on.refused, on.retried), (10, 0, 1, 1));
//! let on = zombie.run(RefreshPolicy::Entry, true)?;
//! assert_eq!((on.refused, on.lost), (3, 0));
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! **The model.** The router holds the map from before the moves. After
//! every move, it writes `k` keys: write `j` to the `j % m`-th moved shard
//! (the `m` shards the moves touched, in order of their first move), each
//! carrying the epoch (the entry's mod revision) the router holds for it.
//!
//! * **Fence off**: a node stores whatever it is sent. Every write is
//!   acknowledged by the node the router thinks owns the shard; a write is
//!   lost when that node is not the shard's owner now (it is absent at the
//!   new owner).
//! * **Fence on**: a node refuses a write whose epoch is below the shard's
//!   fence (raised to the new epoch on every move, at the node the shard
//!   left and the one it went to). A refused write is retried after a
//!   refresh as the [`RefreshPolicy`] says — the whole map: the first
//!   refusal only; one entry: one refusal per moved shard written — and is
//!   served by the new owner. Nothing is lost.
//!
//! A router with a [`Watch`](RefreshPolicy::Watch) applies the changes its
//! watch queued while it was paused before it writes: nothing is refused
//! or lost. A paused router does not poll, so `Poll` is not part of the
//! model.

use crate::analysis::refresh::RefreshPolicy;
use crate::analysis::request_trace::MAX_TRACE_REQUESTS;
use crate::schemes::shard_map::{ShardMap, ShardMove};
use crate::{limits, Error, Result};

/// A router paused across some moves, and the writes it makes when it
/// resumes (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct ZombieRouter {
    before: ShardMap,
    after: ShardMap,
    moved: Vec<usize>,
    writes: usize,
}

/// What the zombie's writes came to.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ZombieRun {
    /// How the router refreshes.
    pub policy: RefreshPolicy,
    /// Whether the nodes fence.
    pub fence: bool,
    /// Writes made.
    pub writes: u64,
    /// Writes a node acknowledged (a retried write counts once).
    pub acknowledged: u64,
    /// Writes refused by a node's fence (each then retried).
    pub refused: u64,
    /// Refused writes sent again after a refresh.
    pub retried: u64,
    /// Acknowledged writes absent at the shard's owner now.
    pub lost: u64,
    /// The positions of the refused writes.
    pub refused_writes: Vec<usize>,
    /// The positions of the lost writes.
    pub lost_writes: Vec<usize>,
}

impl ZombieRouter {
    /// A router holding `before` while `moves` happen, then making
    /// `writes` writes (1 to [`MAX_TRACE_REQUESTS`]). Fails on no moves or
    /// a move that does not apply.
    pub fn new(before: &ShardMap, moves: &[ShardMove], writes: usize) -> Result<ZombieRouter> {
        if moves.is_empty() {
            return Err(Error::OutOfRange {
                what: "moves while the router is paused:",
                given: "none".into(),
                allowed: "at least one (a zombie needs a map that changed under it)".into(),
            });
        }
        limits::check_hint(
            "moves",
            moves.len() as u128,
            crate::analysis::refresh::MAX_MOVES as u128,
            "use fewer moves",
        )?;
        if writes == 0 {
            return Err(Error::OutOfRange {
                what: "writes",
                given: "0".into(),
                allowed: "at least 1 (e.g. 10)".into(),
            });
        }
        limits::check_hint("writes", writes as u128, MAX_TRACE_REQUESTS as u128, "use fewer writes")?;
        let after = before.apply(moves)?;
        let mut moved: Vec<usize> = Vec::new();
        for m in moves {
            if !moved.contains(&m.shard) {
                moved.push(m.shard);
            }
        }
        Ok(ZombieRouter { before: before.clone(), after, moved, writes })
    }

    /// The map the router holds.
    pub fn before(&self) -> &ShardMap {
        &self.before
    }

    /// The map after the moves.
    pub fn after(&self) -> &ShardMap {
        &self.after
    }

    /// The shard of each write, in order: the moved shards in turn.
    pub fn shards_written(&self) -> Vec<usize> {
        (0..self.writes).map(|j| self.moved[j % self.moved.len()]).collect()
    }

    /// The moved shards, in order of their first move.
    pub fn moved_shards(&self) -> &[usize] {
        &self.moved
    }

    /// The zombie's writes under `policy` (`WholeMap`, `Entry` or `Watch`)
    /// with the nodes' fence on or off.
    pub fn run(&self, policy: RefreshPolicy, fence: bool) -> Result<ZombieRun> {
        if let RefreshPolicy::Poll(_) = policy {
            return Err(Error::OutOfRange {
                what: "refresh policy of a zombie router:",
                given: policy.label(),
                allowed: "WholeMap, Entry or Watch (a paused router does not poll)".into(),
            });
        }
        let shards = self.before.shards();
        // the epoch the router holds for each shard
        let mut held: Vec<u64> = (0..shards).map(|s| self.before.epoch(s)).collect::<Result<_>>()?;
        if policy == RefreshPolicy::Watch {
            held = (0..shards).map(|s| self.after.epoch(s)).collect::<Result<_>>()?;
        }
        let mut run = ZombieRun {
            policy,
            fence,
            writes: self.writes as u64,
            acknowledged: 0,
            refused: 0,
            retried: 0,
            lost: 0,
            refused_writes: Vec::new(),
            lost_writes: Vec::new(),
        };
        for (j, s) in self.shards_written().into_iter().enumerate() {
            let now = self.after.epoch(s)?;
            let stale = held[s] < now;
            run.acknowledged += 1;
            if !stale {
                continue;
            }
            if fence {
                run.refused += 1;
                run.retried += 1;
                run.refused_writes.push(j);
                match policy {
                    RefreshPolicy::WholeMap => {
                        held = (0..shards).map(|t| self.after.epoch(t)).collect::<Result<_>>()?;
                    }
                    _ => held[s] = now,
                }
            } else {
                // sent to the node the router holds; lost unless that node owns the shard now
                if self.before.owner_index(s)? != self.after.owner_index(s)? {
                    run.lost += 1;
                    run.lost_writes.push(j);
                }
            }
        }
        Ok(run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_moved_away_and_back_loses_nothing_without_a_fence() {
        let map = ShardMap::new(4, ["A", "B"]).unwrap();
        let moves = [ShardMove::new(0, "B"), ShardMove::new(0, "A"), ShardMove::new(1, "A")];
        let z = ZombieRouter::new(&map, &moves, 4).unwrap();
        assert_eq!(z.shards_written(), [0, 1, 0, 1]);
        let off = z.run(RefreshPolicy::Entry, false).unwrap();
        assert_eq!((off.acknowledged, off.lost, off.lost_writes.as_slice()), (4, 2, &[1usize, 3][..]));
        let on = z.run(RefreshPolicy::Entry, true).unwrap();
        assert_eq!((on.refused, on.refused_writes.as_slice(), on.lost), (2, &[0usize, 1][..], 0));
        assert_eq!(z.run(RefreshPolicy::Watch, false).unwrap().lost, 0);
        assert!(z.run(RefreshPolicy::poll(1.0).unwrap(), true).is_err());
        assert!(ZombieRouter::new(&map, &[], 4).is_err() && ZombieRouter::new(&map, &moves, 0).is_err());
    }
}
