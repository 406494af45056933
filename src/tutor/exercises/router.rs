//! Exercise (lab 11): a router's side of a move — the retry loop of a router
//! that holds a cached shard map — graded on what must hold rather than on
//! matching one output.
//!
//! The learner writes
//! `fn write(map: &mut Vec<Route>, cluster: &mut Cluster, shard: usize, key: &str)`:
//! `map[s]` is the router's cached [`Route`] for shard `s` (the node its
//! map names and the epoch, the entry's mod revision, that a request
//! carries as its fencing token); `cluster` is the way to the nodes and to
//! the map's store: [`Cluster::send`] writes `key` to a node, which answers
//! [`NodeReply::Stored`] or, when the epoch is below its fence for the shard,
//! [`NodeReply::Stale`]; [`Cluster::read_entry`] and [`Cluster::read_map`]
//! read the store. When the function returns, the router tells its client
//! the write is done. The checker's shards move under the router, between
//! writes and in the middle of one (right after its first read), as a
//! controller moves them: the map's entry changes with a compare-and-swap,
//! the shard's fence is raised to the new revision at the node it leaves
//! and the node it joins, and its keys go along.
//!
//! Nothing compares the learner's router with one of the crate's; four
//! invariants are checked, each on its own (one grade each):
//!
//! - **no lost write**: every write the function returns from is stored at
//!   its shard's owner;
//! - **one misroute per move**: a node answers stale at most once per move
//!   the router had not read, and the router reads the store (an entry or
//!   the whole map) only after a stale reply;
//! - **never below the fence**: once a node has answered that a shard's
//!   fence is `f`, no request for that shard carries an epoch below `f`,
//!   and no request carries an epoch the map never gave its shard;
//! - **determinism**: the same map, moves and writes give the same
//!   requests and reads, whatever ran before.
//!
//! Each check runs every trace of up to three events on one or two shards
//! and two or three nodes, smallest first, then thousands of seeded random
//! ones; a failure names the invariant, the smallest trace that breaks it
//! (random ones are shrunk), what the router did on the write that broke
//! it, and what is wrong. A panic in the learner's function (a `todo!()`, a
//! router that retries without end: the cluster stops it after
//! [`MAX_CALLS_PER_WRITE`] calls for one write) is caught and reported as
//! a failure of the invariant checked.
//!
//! ```
//! use reshard::tutor::exercises::{self, router::{Cluster, NodeReply, Route}};
//! fn write(map: &mut Vec<Route>, cluster: &mut Cluster, shard: usize, key: &str) {
//!     loop {
//!         let route = map[shard].clone();
//!         match cluster.send(&route.node, shard, route.epoch, key) {
//!             NodeReply::Stored => return,
//!             NodeReply::Stale { .. } => map[shard] = cluster.read_entry(shard),
//!         }
//!     }
//! }
//! let report = exercises::stale_router(write).no_lost_write();
//! assert!(report.passed(), "{report}");
//! // a router that gives up on a stale reply tells its client a write is done that no node holds
//! let gives_up = exercises::stale_router(|map: &mut Vec<Route>, c: &mut Cluster, s: usize, k: &str| {
//!     c.send(&map[s].node.clone(), s, map[s].epoch, k);
//! });
//! assert!(!gives_up.no_lost_write().passed());
//! ```

use std::fmt;

use super::properties::catch_quietly;
use crate::schemes::shard_map::ShardMove;

mod cases;
mod cluster;
mod report;
use cases::*;
pub use cluster::Cluster;
use cluster::{node_name, Call};
pub use report::{RouterCounterexample, RouterInvariant, RouterReport};

/// The most calls (sends and reads) one write may make before the cluster
/// stops the learner's function: a router that retries without end.
pub const MAX_CALLS_PER_WRITE: usize = 16;

/// The random traces' seed unless [`StaleRouter::seed`] changes it.
pub const DEFAULT_SEED: u64 = 1103;
/// How many random traces follow the small ones (at scale 1).
pub const RANDOM_TRACES: usize = 2_000;
/// The largest scale [`StaleRouter::scale`] takes.
pub const MAX_SCALE: usize = 10;

/// A router's cached entry for one shard: the node its map names and the
/// epoch (the entry's mod revision) a request carries as its fencing token.
/// Only the cluster makes them ([`Cluster::read_entry`], [`Cluster::read_map`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Route {
    /// The node the map names.
    pub node: String,
    /// The entry's mod revision.
    pub epoch: u64,
}

/// What a node answers a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeReply {
    /// Stored.
    Stored,
    /// Refused: the request's epoch is below the node's fence for the shard
    /// (the shard moved since the router's map was read).
    Stale {
        /// The request's epoch.
        epoch: u64,
        /// The node's fence for the shard.
        fence: u64,
    },
}

/// The checks of a learner's router, one invariant at a time:
/// `exercises::stale_router(write).no_lost_write()`.
pub struct StaleRouter<F> {
    write: F,
    seed: u64,
    scale: usize,
}

/// Check a learner's `write(map, cluster, shard, key)`; call one of
/// [`no_lost_write`](StaleRouter::no_lost_write),
/// [`one_misroute_per_move`](StaleRouter::one_misroute_per_move),
/// [`never_below_fence`](StaleRouter::never_below_fence) or
/// [`determinism`](StaleRouter::determinism) on the result.
pub fn stale_router<F>(write: F) -> StaleRouter<F>
where
    F: FnMut(&mut Vec<Route>, &mut Cluster, usize, &str),
{
    StaleRouter { write, seed: DEFAULT_SEED, scale: 1 }
}

/// Where a trace broke: how many of its events, what the router did on the
/// write that broke it, and what is wrong.
struct Broke {
    upto: usize,
    calls: Vec<Call>,
    problem: String,
}

/// A run of one trace: every call, and the writes made.
struct Run {
    log: Vec<Call>,
    writes: usize,
}

impl<F> StaleRouter<F>
where
    F: FnMut(&mut Vec<Route>, &mut Cluster, usize, &str),
{
    /// Another seed for the random traces (a grader's hidden cases).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Random traces up to `scale` times longer, over up to `scale` times
    /// the shards (and `1/scale` as many of them); 1 is the default, values
    /// are kept within 1 … [`MAX_SCALE`].
    pub fn scale(mut self, scale: usize) -> Self {
        self.scale = scale.clamp(1, MAX_SCALE);
        self
    }

    /// Every write the function returns from is at its shard's owner.
    pub fn no_lost_write(self) -> RouterReport {
        self.check(RouterInvariant::NoLostWrite)
    }

    /// One stale reply per unread move; a read only after a stale reply.
    pub fn one_misroute_per_move(self) -> RouterReport {
        self.check(RouterInvariant::OneMisroutePerMove)
    }

    /// No epoch below a fence a node has answered with, none made up.
    pub fn never_below_fence(self) -> RouterReport {
        self.check(RouterInvariant::NeverBelowFence)
    }

    /// The same trace gives the same calls.
    pub fn determinism(self) -> RouterReport {
        self.check(RouterInvariant::Determinism)
    }

    /// Check one invariant on the small traces, then the random ones.
    pub fn check(mut self, invariant: RouterInvariant) -> RouterReport {
        let small = small_cases();
        let random = random_cases(self.seed, self.scale);
        let (mut traces, mut writes) = (0, 0);
        let mut first_logs: Vec<(usize, Vec<Call>)> = Vec::new();
        for (i, case) in small.iter().chain(random.iter()).enumerate() {
            match self.run_checked(case, invariant) {
                Ok(run) => {
                    traces += 1;
                    writes += run.writes;
                    if invariant == RouterInvariant::Determinism && first_logs.len() < REPLAYED {
                        first_logs.push((i, run.log));
                    }
                }
                Err(broke) => {
                    let (case, broke) = if i < small.len() {
                        (case.clone(), broke)
                    } else {
                        self.shrink(case.clone(), broke, invariant)
                    };
                    return RouterReport::broken(
                        invariant,
                        traces,
                        writes,
                        &case,
                        broke.upto,
                        &broke.calls,
                        broke.problem,
                    );
                }
            }
        }
        // Determinism again: the first traces, run once more after all the others.
        let all: Vec<&Case> = small.iter().chain(random.iter()).collect();
        for (i, first) in first_logs {
            let case = all[i];
            if let Err(broke) = self.replay(case, &first, "again after all the other traces") {
                return RouterReport::broken(invariant, traces, writes, case, broke.upto, &broke.calls, broke.problem);
            }
        }
        RouterReport::held(invariant, traces, writes)
    }

    /// Run one trace under `invariant`: once, or twice for determinism.
    fn run_checked(&mut self, case: &Case, invariant: RouterInvariant) -> Result<Run, Broke> {
        let run = self.run(case, invariant)?;
        if invariant == RouterInvariant::Determinism {
            self.replay(case, &run.log, "twice in a row")?;
        }
        Ok(run)
    }

    /// Run `case` again and compare its calls with `first`.
    fn replay(&mut self, case: &Case, first: &[Call], when: &str) -> Result<(), Broke> {
        let again = self.run(case, RouterInvariant::Determinism)?;
        let at = match first.iter().zip(&again.log).position(|(a, b)| a != b) {
            Some(at) => at,
            None if first.len() == again.log.len() => return Ok(()),
            None => first.len().min(again.log.len()),
        };
        // the write the differing call belongs to, and where its calls start
        let ends: Vec<usize> = (0..first.len()).filter(|&i| first[i] == Call::Returned).collect();
        let w = ends.iter().filter(|&&e| e < at).count();
        let start = if w == 0 { 0 } else { ends[w - 1] + 1 };
        let shown = |log: &[Call]| log.get(at).map_or("nothing more".to_string(), Call::to_string);
        Err(Broke {
            upto: case.write_event(w) + 1,
            calls: first[start.min(at)..at.min(first.len())].to_vec(),
            problem: format!(
                "the same trace, run {when}, made another call here: first {}; then {}",
                shown(first),
                shown(&again.log)
            ),
        })
    }

    /// Run one trace; `Ok` with its calls, or where it broke.
    fn run(&mut self, case: &Case, invariant: RouterInvariant) -> Result<Run, Broke> {
        let mut cluster = Cluster::new(case.shards, case.nodes);
        let mut map = cluster.routes(); // the router's first read, when it starts
        let mut writes = 0;
        for (k, event) in case.events.iter().enumerate() {
            let (shard, mid) = match event {
                Event::Move { shard, to } => {
                    cluster.apply(&ShardMove::new(*shard, node_name(*to)));
                    continue;
                }
                Event::Write { shard, mid } => (*shard, mid.map(|(s, to)| ShardMove::new(s, node_name(to)))),
            };
            let key = format!("k{writes}");
            writes += 1;
            cluster.begin(mid);
            let write = &mut self.write;
            let outcome = catch_quietly(|| write(&mut map, &mut cluster, shard, &key));
            if outcome.is_ok() {
                cluster.end(shard, &key);
            }
            let found = match invariant {
                RouterInvariant::NoLostWrite => cluster.problems.lost.take(),
                RouterInvariant::OneMisroutePerMove => cluster.problems.misroute.take(),
                RouterInvariant::NeverBelowFence => cluster.problems.fence.take(),
                RouterInvariant::Determinism => None,
            };
            let mut calls = std::mem::take(&mut cluster.now.calls);
            let problem = match (found, outcome) {
                (Some((problem, at)), _) => {
                    calls.truncate(at + 1);
                    problem
                }
                (None, Err(msg)) => format!("your function panicked: {msg}"),
                (None, Ok(())) => continue,
            };
            return Err(Broke { upto: k + 1, calls, problem });
        }
        Ok(Run { log: cluster.log, writes })
    }

    /// A smaller trace that still breaks `invariant`: fewer events, a write
    /// without its move in the middle, fewer shards, fewer nodes, until
    /// none of them helps. Every step makes the trace smaller, so it ends.
    fn shrink(&mut self, mut case: Case, mut broke: Broke, invariant: RouterInvariant) -> (Case, Broke) {
        case.events.truncate(broke.upto);
        loop {
            let better = case
                .smaller()
                .into_iter()
                .filter(Case::well_formed)
                .find_map(|c| self.run_checked(&c, invariant).err().map(|b| (c, b)));
            match better {
                Some((mut c, b)) => {
                    c.events.truncate(b.upto);
                    case = c;
                    broke = b;
                }
                None => return (case, broke),
            }
        }
    }
}

/// How many traces determinism runs once more after all the others.
const REPLAYED: usize = 50;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_raises_both_fences_and_carries_the_keys() {
        let mut c = Cluster::new(2, 2); // shard 0 on A, shard 1 on B
        c.begin(None);
        assert_eq!(c.send("A", 0, 1, "k0"), NodeReply::Stored);
        c.apply(&ShardMove::new(0, "B"));
        assert_eq!((c.fence[0][0], c.fence[1][0], c.map.revision()), (2, 2, 2));
        assert!(c.stored[1].contains(&(0, "k0".to_string())) && c.stored[0].is_empty());
        assert_eq!(c.send("A", 0, 1, "k1"), NodeReply::Stale { epoch: 1, fence: 2 });
        assert!(c.problems.misroute.is_none(), "the first stale reply of a move is not an error");
        assert_eq!(c.send("A", 0, 1, "k1"), NodeReply::Stale { epoch: 1, fence: 2 });
        assert!(c.problems.misroute.is_some() && c.problems.fence.is_some());
        // a node that never held the shard has no fence for it: it takes anything
        assert_eq!(c.send("B", 1, 1, "k2"), NodeReply::Stored);
    }
}
