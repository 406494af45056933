//! Tables for lab 11's models: a shard map with its revisions, stale
//! routers under each refresh policy, the zombie router, and automation
//! meeting failure detection.
//!
//! ```
//! use reshard::analysis::{RefreshPolicy, RequestTrace, ScheduledMove, StaleRouting};
//! use reshard::schemes::ShardMap;
//! let map = ShardMap::new(12, ["A", "B", "C"])?;
//! let moves = [ScheduledMove::at(1.03, 7, "C")?];
//! let sim = StaleRouting::new(&map, &moves, &RequestTrace::round_robin(12, 300, 100)?)?;
//! let table = sim.compare(&RefreshPolicy::all(&[0.5])?)?.to_string();
//! assert!(table.contains("poll the map every 0.5 s") && table.contains("103"), "{table}");
//! assert!(map.to_string().contains("revision 1"));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::auto_failover::{Expiry, FailoverRun};
use crate::analysis::refresh::RoutingComparison;
use crate::analysis::zombie::ZombieRun;
use crate::present::tables::{shows_as_table, Table};
use crate::present::{fixed, thousands};
use crate::schemes::shard_map::ShardMap;

/// Positions as "103, 106, 111", the first `most` and a count of the rest.
pub(crate) fn positions(list: &[usize], most: usize) -> String {
    if list.is_empty() {
        return "–".into();
    }
    let shown: Vec<String> = list.iter().take(most).map(|i| i.to_string()).collect();
    if list.len() > most {
        format!("{}, … ({} in all)", shown.join(", "), thousands(list.len() as u64))
    } else {
        shown.join(", ")
    }
}

/// An optional count: the number, or "–" (the model does not say).
pub(crate) fn maybe(n: Option<u64>) -> String {
    n.map_or("–".into(), thousands)
}

impl ShardMap {
    /// Per shard: owner, version, mod revision (its epoch).
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("shard map of {} shards over {} nodes", self.shards(), self.nodes().len()),
            ["shard", "owner", "version", "mod revision (epoch)"],
        );
        for e in self.entries() {
            t.row([e.shard.to_string(), e.owner, thousands(e.version), thousands(e.mod_revision)]);
        }
        t.note(format!("revision {}", thousands(self.revision())));
        t
    }
}

shows_as_table!(ShardMap);

impl RoutingComparison {
    /// One row per policy: stale requests, failed, reads, watch events.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!(
                "a router over {} requests ({} per second) to {} shards while {} shards move",
                thousands(self.requests as u64),
                thousands(u64::from(self.rate)),
                self.shards,
                self.moves
            ),
            [
                "refresh policy",
                "stale (misrouted)",
                "failed",
                "map reads",
                "entry reads",
                "watch events",
                "stale requests",
            ],
        );
        for r in &self.runs {
            t.row([
                r.policy.label(),
                thousands(r.stale),
                thousands(r.failed),
                thousands(r.map_reads),
                thousands(r.entry_reads),
                thousands(r.watch_events),
                positions(&r.stale_requests, 8),
            ]);
        }
        t.note("map reads count the router's first read at time 0; a poll router gives a stale request up (failed)");
        t
    }
}

shows_as_table!(RoutingComparison);

impl ZombieRun {
    /// The zombie's writes: acknowledged, refused, retried, lost.
    pub fn table(&self) -> Table {
        let fence = if self.fence { "fence on" } else { "fence off" };
        let mut t = Table::new(
            format!("a zombie router ({}) writes {} keys of moved shards, {fence}", self.policy.label(), self.writes),
            ["writes", "acknowledged", "refused", "retried", "lost"],
        );
        t.row([self.writes, self.acknowledged, self.refused, self.retried, self.lost].map(thousands));
        t.note(format!(
            "refused writes: {}; lost writes: {}",
            positions(&self.refused_writes, 8),
            positions(&self.lost_writes, 8)
        ));
        t
    }
}

shows_as_table!(ZombieRun);

/// "kept", "expired", "too close to call".
pub(crate) fn expiry_text(e: Expiry) -> &'static str {
    match e {
        Expiry::Kept => "kept (the heartbeat woke in time)",
        Expiry::Expired => "expired (the key is deleted)",
        Expiry::TooClose => "too close to call",
    }
}

impl FailoverRun {
    /// The lease, the shards and keys moved, the node's writes on waking.
    pub fn table(&self) -> Table {
        let fence = if self.fence { "fence on" } else { "fence off" };
        let mut t = Table::new(
            format!("node {}'s heartbeat pauses {} s (lease {} s), {fence}", self.node, fixed(self.pause, 2), self.ttl),
            ["what", "predicted"],
        );
        t.row(["lease", expiry_text(self.expiry)]);
        if let Some((lo, hi)) = self.key_gone_within {
            t.row(["key gone after (s)".to_string(), format!("{} – {}", fixed(lo, 1), fixed(hi, 1))]);
        }
        t.row(["shards moved".to_string(), maybe(self.shards_moved)]);
        t.row(["keys moved".to_string(), maybe(self.keys_moved)]);
        t.row([format!("its {} writes on waking: acknowledged", self.writes), maybe(self.acknowledged)]);
        t.row(["refused".to_string(), maybe(self.refused)]);
        t.row(["lost".to_string(), maybe(self.lost)]);
        t.row(["shards moved back if it rejoins".to_string(), maybe(self.moved_back_on_rejoin)]);
        t
    }
}

shows_as_table!(FailoverRun);
