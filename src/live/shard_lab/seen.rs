//! What each live run of the lab saw, with the crate's prediction beside
//! it: the result types of [`ShardLab`](super::ShardLab)'s calls.

use crate::analysis::auto_failover::{Expiry, FailoverRun};
use crate::analysis::leases::{within_expiry_slack, EtcdTimings};
use crate::analysis::refresh::{RefreshPolicy, RoutingRun, ScheduledMove};
use crate::analysis::zombie::ZombieRun;
use crate::schemes::shard_map::{ShardMap, ShardMove};

/// Two or more controllers racing to move one shard, from one revision.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Race {
    /// The shard.
    pub shard: usize,
    /// Per controller: the node it moves the shard to, the member it asked,
    /// the mod revision it read, whether it won, and (a loser) the owner
    /// etcd answered with.
    pub racers: Vec<Racer>,
    /// The store's revision before the race.
    pub revision_before: u64,
    /// The store's revision after.
    pub revision_after: u64,
    /// The entry's version before and after.
    pub version_before: u64,
    /// The entry's version after.
    pub version_after: u64,
    /// The owner after.
    pub owner_after: String,
}

/// One racing controller.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Racer {
    /// The node it moves the shard to.
    pub target: String,
    /// The etcd member it asked.
    pub member: String,
    /// The entry's mod revision it read.
    pub read: u64,
    /// Whether its compare-and-swap won.
    pub won: bool,
    /// A loser: the owner etcd answered with.
    pub saw: Option<String>,
}

impl Race {
    /// How many controllers won (predicted: 1).
    pub fn winners(&self) -> usize {
        self.racers.iter().filter(|r| r.won).count()
    }

    /// How much the store's revision rose (predicted: 1, the one write).
    pub fn revision_rise(&self) -> u64 {
        self.revision_after.saturating_sub(self.revision_before)
    }

    /// Every loser was answered with the winner's node.
    pub fn losers_saw_winner(&self) -> bool {
        let winner = self.racers.iter().find(|r| r.won).map(|r| r.target.clone());
        self.racers.iter().filter(|r| !r.won).all(|r| r.saw == winner)
    }

    /// Exactly one winner, the revision +1, the version +1, the losers
    /// answered with the winner's node.
    pub fn as_predicted(&self) -> bool {
        self.winners() == 1
            && self.revision_rise() == 1
            && self.version_after == self.version_before + 1
            && self.losers_saw_winner()
    }
}

/// Moves made one after another: the map the crate predicts beside the
/// map read back from etcd.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScriptedMoves {
    /// The map before (as read from etcd).
    pub before: ShardMap,
    /// The moves.
    pub moves: Vec<ShardMove>,
    /// The crate's map after them.
    pub predicted: ShardMap,
    /// The map read back from etcd after them.
    pub observed: ShardMap,
}

impl ScriptedMoves {
    /// The two maps agree: owners, versions, mod revisions, revision.
    pub fn all_match(&self) -> bool {
        self.predicted == self.observed
    }
}

/// A lease's granted TTL and when its key went after its heartbeat
/// paused, over several trials, beside the prediction.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LeaseWindow {
    /// The timings etcd runs with.
    pub timings: EtcdTimings,
    /// The TTL asked for, s.
    pub asked: u64,
    /// The TTL etcd granted, s.
    pub granted: u64,
    /// The TTL the crate predicted, s.
    pub predicted_granted: u64,
    /// Renewals of the heartbeat before its pause, per trial.
    pub renewals: Vec<u64>,
    /// Seconds between the pause (right after a renewal) and the key's
    /// delete reaching a watch, per trial.
    pub gone_after: Vec<f64>,
    /// The predicted window: [TTL, TTL + 0.5 s].
    pub predicted_window: (f64, f64),
}

impl LeaseWindow {
    /// The granted TTL as predicted, and every trial within the window
    /// widened by [`EXPIRY_SLACK`](crate::analysis::leases::EXPIRY_SLACK)
    /// (what the table marks ✓).
    pub fn as_predicted(&self) -> bool {
        let (lo, hi) = self.predicted_window;
        self.granted == self.predicted_granted && self.gone_after.iter().all(|&g| within_expiry_slack(g, lo, hi))
    }

    /// The granted TTL as predicted, and every trial within the window
    /// widened by `slack` seconds each side.
    pub fn within(&self, slack: f64) -> bool {
        let (lo, hi) = self.predicted_window;
        self.granted == self.predicted_granted && self.gone_after.iter().all(|&g| g >= lo - slack && g <= hi + slack)
    }
}

/// One router's run, live: what the router and the nodes counted.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RouterSeen {
    /// The policy.
    pub policy: RefreshPolicy,
    /// Stale replies the router got.
    pub stale_router: u64,
    /// Stale replies the nodes counted (their fence's counters, summed).
    pub stale_nodes: u64,
    /// The positions in the trace of the stale requests.
    pub stale_requests: Vec<usize>,
    /// Stale requests given up (poll).
    pub failed: u64,
    /// Whole-map reads (the first included).
    pub map_reads: u64,
    /// Entry reads.
    pub entry_reads: u64,
    /// Changes the watch delivered.
    pub watch_events: u64,
    /// Per change: milliseconds from the compare-and-swap's answer to the
    /// watch's delivery (negative: the watch was first).
    pub watch_ms: Vec<f64>,
    /// Requests served (stored at the shard's owner).
    pub served: u64,
    /// Served requests whose key is at the shard's owner at the end (moved
    /// with the shard when it moved after).
    pub at_owner: u64,
}

/// Stale routers under each policy: predicted beside live.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct StaleRouters {
    /// The moves.
    pub moves: Vec<ScheduledMove>,
    /// Requests in the trace, and their rate per second.
    pub requests: usize,
    /// Requests per second.
    pub rate: u32,
    /// Per policy: the crate's count and what the router and the nodes saw.
    pub runs: Vec<(RoutingRun, RouterSeen)>,
}

impl StaleRouters {
    /// Every policy's stale requests, failures and reads as predicted,
    /// counted alike by router and nodes, and every served key at its
    /// shard's owner.
    pub fn all_match(&self) -> bool {
        self.runs.iter().all(|(p, o)| {
            p.stale == o.stale_router
                && p.stale == o.stale_nodes
                && p.stale_requests == o.stale_requests
                && p.failed == o.failed
                && p.map_reads == o.map_reads
                && p.entry_reads == o.entry_reads
                && p.watch_events == o.watch_events
                && o.served == p.requests - p.failed
                && o.at_owner == o.served
        })
    }
}

/// The zombie router, live, beside the crate's prediction.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ZombieSeen {
    /// The crate's prediction.
    pub predicted: ZombieRun,
    /// Writes acknowledged.
    pub acknowledged: u64,
    /// Writes refused, as the router counted them.
    pub refused_router: u64,
    /// Stale replies the nodes counted.
    pub refused_nodes: u64,
    /// Writes retried after a refresh.
    pub retried: u64,
    /// Acknowledged writes absent at the shard's owner.
    pub lost: u64,
    /// Their positions.
    pub lost_writes: Vec<usize>,
    /// The refused writes' positions.
    pub refused_writes: Vec<usize>,
}

impl ZombieSeen {
    /// Everything as predicted.
    pub fn all_match(&self) -> bool {
        let p = &self.predicted;
        p.acknowledged == self.acknowledged
            && p.refused == self.refused_router
            && p.refused == self.refused_nodes
            && p.retried == self.retried
            && p.lost == self.lost
            && p.lost_writes == self.lost_writes
            && p.refused_writes == self.refused_writes
    }
}

/// A node's heartbeat paused, live, beside the crate's prediction.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FailoverSeen {
    /// The crate's prediction (with the TTL etcd granted).
    pub predicted: FailoverRun,
    /// The TTL asked for.
    pub asked: u64,
    /// Whether the node's key was deleted (its lease expired).
    pub expired: bool,
    /// Seconds from the pause to the delete reaching the controller.
    pub gone_after: Option<f64>,
    /// What the heartbeat did when resumed: renewed, or said the lease
    /// expired and exited.
    pub heartbeat: String,
    /// Shards the controller moved.
    pub shards_moved: u64,
    /// Keys it moved with them.
    pub keys_moved: u64,
    /// The node's writes on waking: acknowledged.
    pub acknowledged: u64,
    /// Refused by the fence.
    pub refused: u64,
    /// Acknowledged and absent at the shard's owner.
    pub lost: u64,
}

impl FailoverSeen {
    /// Everything as predicted (nothing to compare when the prediction is
    /// "too close to call").
    pub fn all_match(&self) -> bool {
        let p = &self.predicted;
        let expired = matches!(p.expiry, Expiry::Expired);
        let window = match (p.key_gone_within, self.gone_after) {
            (Some((lo, hi)), Some(g)) => within_expiry_slack(g, lo, hi),
            (None, None) => true,
            _ => false,
        };
        matches!(p.expiry, Expiry::TooClose)
            || (expired == self.expired
                && window
                && p.shards_moved == Some(self.shards_moved)
                && p.keys_moved == Some(self.keys_moved)
                && p.acknowledged == Some(self.acknowledged)
                && p.refused == Some(self.refused)
                && p.lost == Some(self.lost))
    }
}
