//! Tables for lab 11's live runs (feature `etcd`): what etcd, the fenced
//! nodes and the crate's routers did, beside what the crate predicted,
//! row by row with ✓ or ≠.

use crate::analysis::leases::{within_expiry_slack, EXPIRY_SLACK};
use crate::live::etcd::LeaderLoss;
use crate::live::shard_lab::{FailoverSeen, LeaseWindow, Race, ScriptedMoves, StaleRouters, ZombieSeen};
use crate::present::routing::{expiry_text, maybe, positions};
use crate::present::tables::{shows_as_table, Table};
use crate::present::{fixed, thousands};

fn mark(ok: bool) -> &'static str {
    if ok {
        "✓"
    } else {
        "≠"
    }
}

/// "2.00 – 2.50 (+ 0.25)": the window and the slack after it.
fn window_text(lo: f64, hi: f64) -> String {
    format!("{} – {} (+ {})", fixed(lo, 2), fixed(hi, 2), fixed(EXPIRY_SLACK.1, 2))
}

/// Why a live delete gets slack, for a table's note.
const SLACK_WHY: &str = "a delete counts ✓ up to 0.05 s before the window (the pause follows the renewal by a few \
                         ms) and 0.25 s after it (the revoke's commit, the watch and the machine's scheduling)";

fn count_row(t: &mut Table, what: &str, predicted: u64, observed: u64) {
    t.row([what.to_string(), thousands(predicted), thousands(observed), mark(predicted == observed).into()]);
}

impl Race {
    /// One row per controller, then the revision and the version.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("{} controllers race to move shard {} from one revision", self.racers.len(), self.shard),
            ["controller", "asked", "read mod revision", "moves it to", "won", "etcd answered the loser"],
        );
        for (i, r) in self.racers.iter().enumerate() {
            t.row([
                format!("#{}", i + 1),
                r.member.clone(),
                thousands(r.read),
                r.target.clone(),
                if r.won { "won".into() } else { "lost".into() },
                r.saw.clone().unwrap_or_else(|| "–".into()),
            ]);
        }
        t.note(format!(
            "winners {} (predicted 1) {} · store revision {} → {} (+{}, predicted +1) {} · entry version {} → {} · owner now {} · every loser got the winner's node: {}",
            self.winners(),
            mark(self.winners() == 1),
            thousands(self.revision_before),
            thousands(self.revision_after),
            self.revision_rise(),
            mark(self.revision_rise() == 1),
            self.version_before,
            self.version_after,
            self.owner_after,
            mark(self.losers_saw_winner()),
        ));
        t
    }
}

shows_as_table!(Race);

impl ScriptedMoves {
    /// Per shard: owner, version and mod revision, predicted and read back.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("{} moves, one after another: the crate's map beside etcd's", self.moves.len()),
            ["shard", "owner", "version (predicted · etcd)", "mod revision (predicted · etcd)", ""],
        );
        let (p, o) = (self.predicted.entries(), self.observed.entries());
        for (a, b) in p.iter().zip(&o) {
            let owner = if a.owner == b.owner { a.owner.clone() } else { format!("{} · {}", a.owner, b.owner) };
            t.row([
                a.shard.to_string(),
                owner,
                format!("{} · {}", a.version, b.version),
                format!("{} · {}", thousands(a.mod_revision), thousands(b.mod_revision)),
                mark(a == b).into(),
            ]);
        }
        t.note(format!(
            "map revision: predicted {} (from {} and {} changes) · etcd {} {}",
            thousands(self.predicted.revision()),
            thousands(self.before.revision()),
            self.moves.len(),
            thousands(self.observed.revision()),
            mark(self.predicted.revision() == self.observed.revision())
        ));
        t
    }
}

shows_as_table!(ScriptedMoves);

impl LeaseWindow {
    /// The granted TTL, then each trial's time to the key's delete.
    pub fn table(&self) -> Table {
        let (lo, hi) = self.predicted_window;
        let mut t = Table::new(
            format!("a lease of {} s asked ({}): its key after the heartbeat pauses", self.asked, self.timings.label()),
            ["what", "predicted", "observed", ""],
        );
        count_row(&mut t, "TTL granted (s)", self.predicted_granted, self.granted);
        for (i, g) in self.gone_after.iter().enumerate() {
            t.row([
                format!("trial {}: key gone after (s)", i + 1),
                window_text(lo, hi),
                fixed(*g, 3),
                mark(within_expiry_slack(*g, lo, hi)).into(),
            ]);
        }
        t.note(format!(
            "the heartbeat (etcdctl) is paused right after a renewal: the lease runs TTL from it, and the leader \
             looks for expired leases every 0.5 s; {}",
            SLACK_WHY
        ));
        t
    }
}

shows_as_table!(LeaseWindow);

impl LeaderLoss {
    /// The election window, the writes, the term.
    pub fn table(&self) -> Table {
        let (lo, hi) = self.predicted_window;
        let (least, most) = self.predicted_term_rise;
        let mut t = Table::new(
            format!("the leader {} killed (SIGKILL), {}", self.killed, self.timings.label()),
            ["what", "predicted", "observed", ""],
        );
        let inside = self.elected_after >= lo && self.elected_after <= hi;
        t.row([
            format!("new leader ({}) after (s)", self.new_leader),
            format!("{} – {}", fixed(lo, 2), fixed(hi, 2)),
            fixed(self.elected_after, 3),
            mark(inside).into(),
        ]);
        t.row([
            format!("writes to {} acknowledged again after (s)", self.asked),
            "just after the new leader".into(),
            fixed(self.writable_after, 3),
            String::new(),
        ]);
        t.row(["writes failed meanwhile".into(), String::new(), thousands(self.failed_writes), String::new()]);
        let rise = self.term_rise();
        let predicted = if least == most { least.to_string() } else { format!("{least} or {most}") };
        let verdict = if rise >= least && rise <= most {
            "✓"
        } else if rise == most + 1 {
            "✓ (one round more: a split vote)"
        } else {
            "≠"
        };
        t.row([
            format!("term rise ({} → {})", self.term_before, self.term_after),
            predicted,
            rise.to_string(),
            verdict.into(),
        ]);
        let log: Vec<&str> =
            self.leader_log.iter().map(String::as_str).filter(|l| l.contains("term")).take(8).collect();
        t.note(format!(
            "writes failed with: {} · the new leader's log: {}",
            if self.errors.is_empty() { "–".into() } else { self.errors.join("; ") },
            log.join(" | ")
        ));
        t
    }
}

shows_as_table!(LeaderLoss);

impl StaleRouters {
    /// One row per policy: stale requests predicted, seen by the router,
    /// counted by the nodes; failures, reads, served keys.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!(
                "routers over {} requests ({} per second) while {} shards move: the crate beside etcd and the fenced nodes",
                thousands(self.requests as u64),
                thousands(u64::from(self.rate)),
                self.moves.len()
            ),
            ["refresh policy", "stale: predicted", "router", "nodes", "failed", "map reads", "entry reads", "served at owner", ""],
        );
        for (p, o) in &self.runs {
            let ok = p.stale == o.stale_router
                && p.stale == o.stale_nodes
                && p.stale_requests == o.stale_requests
                && p.failed == o.failed
                && p.map_reads == o.map_reads
                && p.entry_reads == o.entry_reads
                && o.at_owner == o.served
                && o.served == p.requests - p.failed;
            t.row([
                p.policy.label(),
                thousands(p.stale),
                thousands(o.stale_router),
                thousands(o.stale_nodes),
                format!("{} · {}", p.failed, o.failed),
                format!("{} · {}", p.map_reads, o.map_reads),
                format!("{} · {}", p.entry_reads, o.entry_reads),
                format!("{} of {}", thousands(o.at_owner), thousands(o.served)),
                mark(ok).into(),
            ]);
        }
        let first = self.runs.first().map(|(p, _)| positions(&p.stale_requests, 6)).unwrap_or_default();
        let watched = self.runs.iter().any(|(p, _)| p.policy == crate::analysis::RefreshPolicy::Watch);
        t.note(format!(
            "two numbers: predicted · live. Stale requests of the first policy: {first}.{}",
            if watched {
                " The watching router took each change from its watch before its next request (the times are \
                 in each run's watch_ms)"
            } else {
                ""
            }
        ));
        t
    }
}

shows_as_table!(StaleRouters);

impl ZombieSeen {
    /// The zombie's writes, predicted beside live.
    pub fn table(&self) -> Table {
        let p = &self.predicted;
        let fence = if p.fence { "fence on" } else { "fence off" };
        let mut t = Table::new(
            format!("a zombie router ({}) writes {} keys of moved shards, {fence}", p.policy.label(), p.writes),
            ["what", "predicted", "observed", ""],
        );
        count_row(&mut t, "acknowledged", p.acknowledged, self.acknowledged);
        count_row(&mut t, "refused (router)", p.refused, self.refused_router);
        count_row(&mut t, "refused (nodes' counts)", p.refused, self.refused_nodes);
        count_row(&mut t, "retried", p.retried, self.retried);
        count_row(&mut t, "lost (absent at the new owner)", p.lost, self.lost);
        t.note(format!("lost writes: {}", positions(&self.lost_writes, 10)));
        t
    }
}

shows_as_table!(ZombieSeen);

impl FailoverSeen {
    /// The lease, the moves, the node's writes on waking: predicted beside live.
    pub fn table(&self) -> Table {
        let p = &self.predicted;
        let fence = if p.fence { "fence on" } else { "fence off" };
        let mut t = Table::new(
            format!(
                "node {}'s heartbeat pauses {} s (lease {} s asked, {} s granted), {fence}",
                p.node,
                fixed(p.pause, 2),
                self.asked,
                p.ttl
            ),
            ["what", "predicted", "observed", ""],
        );
        let expired = matches!(p.expiry, crate::analysis::Expiry::Expired);
        let seen = if self.expired { "expired (the key was deleted)" } else { "kept" };
        let sure = !matches!(p.expiry, crate::analysis::Expiry::TooClose);
        t.row([
            "lease".into(),
            expiry_text(p.expiry).to_string(),
            seen.to_string(),
            if sure { mark(expired == self.expired) } else { "" }.into(),
        ]);
        if let (Some((lo, hi)), Some(g)) = (p.key_gone_within, self.gone_after) {
            t.row([
                "key gone after (s)".into(),
                window_text(lo, hi),
                fixed(g, 3),
                mark(within_expiry_slack(g, lo, hi)).into(),
            ]);
        }
        let rows = [
            ("shards moved", p.shards_moved, self.shards_moved),
            ("keys moved", p.keys_moved, self.keys_moved),
            ("its writes on waking: acknowledged", p.acknowledged, self.acknowledged),
            ("refused", p.refused, self.refused),
            ("lost", p.lost, self.lost),
        ];
        for (what, pr, ob) in rows {
            t.row([what.to_string(), maybe(pr), thousands(ob), pr.map_or("", |v| mark(v == ob)).into()]);
        }
        let slack = if p.key_gone_within.is_some() { format!("; {SLACK_WHY}") } else { String::new() };
        t.note(format!("the heartbeat, resumed: {}{slack}", self.heartbeat));
        t
    }
}

shows_as_table!(FailoverSeen);
