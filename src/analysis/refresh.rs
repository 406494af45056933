//! Routers that go stale: how many requests a router with a cached shard
//! map sends to the wrong node while shards move, under each way it can
//! learn of the moves — counted exactly over a [`RequestTrace`].
//!
//! ```
//! use reshard::analysis::{RefreshPolicy, RequestTrace, ScheduledMove, StaleRouting};
//! use reshard::schemes::ShardMap;
//! let map = ShardMap::new(12, ["A", "B", "C"])?; // shard s on node s % 3: 7 on B, 3 on A, 10 on B
//! let moves = [ScheduledMove::at(1.03, 7, "C")?, ScheduledMove::at(1.03, 3, "B")?, ScheduledMove::at(1.03, 10, "C")?];
//! let trace = RequestTrace::round_robin(12, 300, 100)?; // request i → shard i % 12 at i/100 s
//! let sim = StaleRouting::new(&map, &moves, &trace)?;
//! let stale = |p| sim.run(p).map(|r| r.stale_requests);
//! // the first request after 1.03 s is 103, for shard 7: then the router has every move
//! assert_eq!(stale(RefreshPolicy::WholeMap)?, [103]);
//! // one stale reply per moved shard: 103 (shard 7), 106 (shard 10), 111 (shard 3)
//! assert_eq!(stale(RefreshPolicy::Entry)?, [103, 106, 111]);
//! assert!(stale(RefreshPolicy::Watch)?.is_empty());
//! // poll every 0.5 s: requests 103 … 149 (before the poll at 1.5 s) for shards 3, 7 or 10
//! assert_eq!(stale(RefreshPolicy::poll(0.5)?)?.len(), 12);
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! DDIA (2nd ed. ch. 7, "Request Routing") leaves open how routers learn
//! that the map changed. Four answers, the [`RefreshPolicy`]s:
//!
//! * [`WholeMap`](RefreshPolicy::WholeMap): on the first stale reply, read
//!   the whole map again (MongoDB's routers refresh their routing table on
//!   `StaleConfig`);
//! * [`Entry`](RefreshPolicy::Entry): on a stale reply, read that shard's
//!   entry only (a TiKV client reloads the region on `EpochNotMatch`; Redis
//!   Cluster's `MOVED` names the new owner of one slot);
//! * [`Watch`](RefreshPolicy::Watch): the map's store pushes every change
//!   the moment it is made (Vitess's routers watch the map in etcd);
//! * [`Poll`](RefreshPolicy::Poll): read the whole map every `T` seconds
//!   and never on a stale reply.
//!
//! **The model.** A map (at time 0), moves at given times
//! ([`ScheduledMove`]), and a trace: request `i` to shard `s` at `i / rate`
//! s. A router reads the whole map at time 0. A request is **stale** (a
//! misroute) when the router's entry for its shard is older than the map's
//! — it goes to the node the shard has left (or with an old epoch), which
//! refuses it (the node's fence: see `live::FencedNodes`). Then:
//!
//! * `WholeMap` reads the map and retries: one stale reply per burst of
//!   moves it had not seen, however many shards moved;
//! * `Entry` reads the entry and retries: one stale reply per moved shard
//!   requested after its move;
//! * `Watch` is never stale;
//! * `Poll(T)` reads the map at `T, 2T, …`; a stale request **fails** (the
//!   router does not refresh on it; its client may try again later), so
//!   every request for a moved shard between the move and the next poll is
//!   stale.
//!
//! At one instant, moves come first, then a poll, then the request: a
//! request at the very time of a move sees the new map at the node. Times
//! are exact (see [`RequestTrace`]).

use crate::analysis::request_trace::{micros, RequestTrace};
use crate::schemes::shard_map::{ShardMap, ShardMove};
use crate::{limits, Error, Result};

/// The most moves one model takes.
pub const MAX_MOVES: usize = 100_000;

/// A poll period: a whole number of microseconds, at least 1 µs and at
/// most a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Period {
    us: u64,
}

impl Period {
    /// `seconds` (finite, above 0, at most a day), to the microsecond.
    pub fn seconds(seconds: f64) -> Result<Period> {
        Ok(Period { us: micros("poll period (s)", seconds, true)? })
    }

    /// The period in seconds.
    pub fn as_seconds(&self) -> f64 {
        self.us as f64 / 1e6
    }

    /// The period in microseconds.
    pub fn micros(&self) -> u64 {
        self.us
    }
}

/// How a router with a cached map learns that the map changed (see the
/// [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RefreshPolicy {
    /// Read the whole map again on a stale reply, then retry.
    WholeMap,
    /// Read the stale shard's entry on a stale reply, then retry.
    Entry,
    /// Every change arrives the moment it is made.
    Watch,
    /// Read the whole map every period; a stale request fails.
    Poll(Period),
}

impl RefreshPolicy {
    /// `Poll` every `seconds` (finite, above 0).
    pub fn poll(seconds: f64) -> Result<RefreshPolicy> {
        Ok(RefreshPolicy::Poll(Period::seconds(seconds)?))
    }

    /// The three policies without a period and a poll for each of
    /// `periods`, in that order.
    pub fn all(periods: &[f64]) -> Result<Vec<RefreshPolicy>> {
        let mut out = vec![RefreshPolicy::WholeMap, RefreshPolicy::Entry, RefreshPolicy::Watch];
        for &p in periods {
            out.push(RefreshPolicy::poll(p)?);
        }
        Ok(out)
    }

    /// A short name: "whole map", "one entry", "watch", "poll 0.5 s".
    pub fn name(&self) -> String {
        match self {
            RefreshPolicy::WholeMap => "whole map".into(),
            RefreshPolicy::Entry => "one entry".into(),
            RefreshPolicy::Watch => "watch".into(),
            RefreshPolicy::Poll(p) => format!("poll {} s", p.as_seconds()),
        }
    }

    /// What the router does, in a few words.
    pub fn label(&self) -> String {
        match self {
            RefreshPolicy::WholeMap => "refresh the whole map on a stale reply".into(),
            RefreshPolicy::Entry => "refresh one entry per stale reply".into(),
            RefreshPolicy::Watch => "watch the map (changes pushed at once)".into(),
            RefreshPolicy::Poll(p) => format!("poll the map every {} s", p.as_seconds()),
        }
    }
}

impl std::fmt::Display for RefreshPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// A move at a given time: shard `shard` goes to `to` at `seconds`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScheduledMove {
    us: u64,
    mv: ShardMove,
}

impl ScheduledMove {
    /// Shard `shard` goes to node `to` at `seconds` (from 0 to a day; a
    /// move at 0 is in the router's first read).
    pub fn at(seconds: f64, shard: usize, to: impl Into<String>) -> Result<ScheduledMove> {
        Ok(ScheduledMove { us: micros("move time (s)", seconds, false)?, mv: ShardMove::new(shard, to) })
    }

    /// When, in seconds.
    pub fn seconds(&self) -> f64 {
        self.us as f64 / 1e6
    }

    /// When, in microseconds.
    pub fn micros(&self) -> u64 {
        self.us
    }

    /// The move itself.
    pub fn as_move(&self) -> &ShardMove {
        &self.mv
    }

    /// The shard.
    pub fn shard(&self) -> usize {
        self.mv.shard
    }

    /// The node it goes to.
    pub fn to(&self) -> &str {
        &self.mv.to
    }
}

/// A map, its moves and a trace, checked once; [`run`](Self::run) counts
/// the stale requests of a router under one policy (see the [module
/// docs](self)).
#[derive(Debug, Clone)]
pub struct StaleRouting {
    before: ShardMap,
    after: ShardMap,
    moves: Vec<ScheduledMove>,
    trace: RequestTrace,
    /// Per shard, the positions in `moves` of its moves, in order.
    per_shard: Vec<Vec<usize>>,
}

/// What one router did over a trace under one policy.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RoutingRun {
    /// The policy.
    pub policy: RefreshPolicy,
    /// Requests in the trace.
    pub requests: u64,
    /// Stale requests (misroutes): each got a stale reply.
    pub stale: u64,
    /// Stale requests given up (`Poll`: the router does not refresh on a
    /// stale reply); the others were retried after a refresh and served.
    pub failed: u64,
    /// Whole-map reads, the first one at time 0 included.
    pub map_reads: u64,
    /// Single-entry reads (`Entry`).
    pub entry_reads: u64,
    /// Changes pushed to the router (`Watch`): the moves after its first read.
    pub watch_events: u64,
    /// The positions in the trace of the stale requests.
    pub stale_requests: Vec<usize>,
    /// Stale requests per shard.
    pub stale_per_shard: Vec<u64>,
}

/// Runs under several policies over one trace (from
/// [`StaleRouting::compare`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RoutingComparison {
    /// One run per policy, in the order asked.
    pub runs: Vec<RoutingRun>,
    /// Requests in the trace.
    pub requests: usize,
    /// Requests per second.
    pub rate: u32,
    /// Moves.
    pub moves: usize,
    /// Shards.
    pub shards: usize,
}

impl StaleRouting {
    /// The router starts from `map` at time 0; `moves` happen at their
    /// times (in order of time; at one time, in the order given: one change
    /// each); `trace` runs over the map's shards. Fails when the trace has
    /// another shard count, moves are out of order in time, a move does
    /// not apply (unknown shard or node, a shard to its own owner), or
    /// there are more than [`MAX_MOVES`].
    pub fn new(map: &ShardMap, moves: &[ScheduledMove], trace: &RequestTrace) -> Result<StaleRouting> {
        if trace.shards() != map.shards() {
            return Err(Error::LengthMismatch {
                what: "shards of the trace and of the map",
                expected: map.shards(),
                given: trace.shards(),
            });
        }
        limits::check_hint("moves", moves.len() as u128, MAX_MOVES as u128, "use fewer moves")?;
        if let Some(w) = moves.windows(2).position(|w| w[1].us < w[0].us) {
            return Err(Error::OutOfRange {
                what: "move times:",
                given: format!(
                    "move {} at {} s comes after move {} at {} s",
                    w + 1,
                    moves[w + 1].seconds(),
                    w,
                    moves[w].seconds()
                ),
                allowed: "moves in order of time".into(),
            });
        }
        let plain: Vec<ShardMove> = moves.iter().map(|m| m.mv.clone()).collect();
        let after = map.apply(&plain)?;
        let mut per_shard = vec![Vec::new(); map.shards()];
        for (j, m) in moves.iter().enumerate() {
            per_shard[m.mv.shard].push(j);
        }
        Ok(StaleRouting { before: map.clone(), after, moves: moves.to_vec(), trace: trace.clone(), per_shard })
    }

    /// The map at time 0.
    pub fn before(&self) -> &ShardMap {
        &self.before
    }

    /// The map after every move.
    pub fn after(&self) -> &ShardMap {
        &self.after
    }

    /// The moves.
    pub fn moves(&self) -> &[ScheduledMove] {
        &self.moves
    }

    /// The trace.
    pub fn trace(&self) -> &RequestTrace {
        &self.trace
    }

    /// Moves of `shard` among the first `g` moves.
    fn known(&self, shard: usize, g: usize) -> usize {
        self.per_shard[shard].partition_point(|&j| j < g)
    }

    /// Moves at or before `us` microseconds.
    fn moves_by(&self, us: u128) -> usize {
        self.moves.partition_point(|m| u128::from(m.us) <= us)
    }

    /// Count the stale requests of a router under `policy`.
    pub fn run(&self, policy: RefreshPolicy) -> Result<RoutingRun> {
        let (n, shards) = (self.trace.len(), self.before.shards());
        let mut cur = vec![0usize; shards]; // moves of each shard done so far
        let mut entry_known = vec![0usize; shards];
        let mut whole_at = self.moves_by(0); // moves in the first read
        let mut g = 0;
        let mut run = RoutingRun {
            policy,
            requests: n as u64,
            stale: 0,
            failed: 0,
            map_reads: 1,
            entry_reads: 0,
            watch_events: 0,
            stale_requests: Vec::new(),
            stale_per_shard: vec![0; shards],
        };
        for i in 0..n {
            while g < self.moves.len() && self.trace.at_or_after(i, self.moves[g].us) {
                cur[self.moves[g].mv.shard] += 1;
                g += 1;
            }
            let s = self.trace.shard_u32(i);
            let known = match policy {
                RefreshPolicy::Watch => cur[s],
                RefreshPolicy::Poll(p) => {
                    let k = self.trace.periods_before(i, p.us);
                    self.known(s, self.moves_by(k.saturating_mul(u128::from(p.us))))
                }
                RefreshPolicy::WholeMap | RefreshPolicy::Entry => self.known(s, whole_at).max(entry_known[s]),
            };
            if known < cur[s] {
                run.stale += 1;
                run.stale_requests.push(i);
                run.stale_per_shard[s] += 1;
                match policy {
                    RefreshPolicy::WholeMap => {
                        whole_at = g;
                        run.map_reads += 1;
                    }
                    RefreshPolicy::Entry => {
                        entry_known[s] = cur[s];
                        run.entry_reads += 1;
                    }
                    RefreshPolicy::Poll(_) => run.failed += 1,
                    RefreshPolicy::Watch => {}
                }
            }
        }
        let last = n.saturating_sub(1);
        match policy {
            RefreshPolicy::Poll(p) => {
                run.map_reads += u64::try_from(self.trace.periods_before(last, p.us)).unwrap_or(u64::MAX);
            }
            RefreshPolicy::Watch => run.watch_events = (g - self.moves_by(0)) as u64,
            _ => {}
        }
        Ok(run)
    }

    /// [`run`](Self::run) under each policy, in order: a table with a row
    /// per policy.
    pub fn compare(&self, policies: &[RefreshPolicy]) -> Result<RoutingComparison> {
        let runs = policies.iter().map(|&p| self.run(p)).collect::<Result<_>>()?;
        Ok(RoutingComparison {
            runs,
            requests: self.trace.len(),
            rate: self.trace.rate(),
            moves: self.moves.len(),
            shards: self.before.shards(),
        })
    }

    /// The map as it is at request `i` (every move at or before its time
    /// applied), for a live router to check against.
    pub fn map_at(&self, i: usize) -> Result<ShardMap> {
        self.trace.shard(i)?;
        let g = self.moves.partition_point(|m| self.trace.at_or_after(i, m.us));
        let plain: Vec<ShardMove> = self.moves[..g].iter().map(|m| m.mv.clone()).collect();
        self.before.apply(&plain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_put_moves_before_polls_before_requests() {
        let map = ShardMap::new(2, ["A", "B"]).unwrap();
        let trace = RequestTrace::round_robin(2, 6, 1).unwrap(); // t = 0..5 s, shards 0,1,0,1,0,1
                                                                 // shard 0 moves at 2 s, exactly when request 2 (shard 0) is sent
        let sim = StaleRouting::new(&map, &[ScheduledMove::at(2.0, 0, "B").unwrap()], &trace).unwrap();
        assert_eq!(sim.run(RefreshPolicy::WholeMap).unwrap().stale_requests, [2]);
        assert_eq!(sim.run(RefreshPolicy::poll(2.0).unwrap()).unwrap().stale, 0); // the poll at 2 s sees it
        let poll3 = sim.run(RefreshPolicy::poll(3.0).unwrap()).unwrap();
        assert_eq!((poll3.stale_requests.as_slice(), poll3.failed, poll3.map_reads), (&[2usize][..], 1, 2));
        let watch = sim.run(RefreshPolicy::Watch).unwrap();
        assert_eq!((watch.stale, watch.watch_events), (0, 1));
        // a move at 0 is in the first read
        let at0 = StaleRouting::new(&map, &[ScheduledMove::at(0.0, 0, "B").unwrap()], &trace).unwrap();
        assert_eq!(at0.run(RefreshPolicy::Entry).unwrap().stale, 0);
        let late = [ScheduledMove::at(3.0, 0, "B").unwrap(), ScheduledMove::at(1.0, 1, "A").unwrap()];
        assert!(StaleRouting::new(&map, &late, &trace).is_err());
        assert!(RefreshPolicy::poll(f64::NAN).is_err() && RefreshPolicy::poll(0.0).is_err());
        assert!(ScheduledMove::at(-1.0, 0, "B").is_err());
    }
}
