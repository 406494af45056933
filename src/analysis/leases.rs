//! How fast a coordination service notices a dead node or a dead leader:
//! etcd's lease and election timings, as numbers a learner can work out
//! with pencil and paper (DDIA 2nd ed. ch. 9, "Leases"; ch. 10, leader
//! election).
//!
//! ```
//! use reshard::analysis::leases::EtcdTimings;
//! let defaults = EtcdTimings::default();
//! assert_eq!((defaults.min_lease_ttl(), defaults.granted_ttl(1)?), (2, 2));
//! assert_eq!(defaults.keepalive_period(2)?, 1.0);
//! assert_eq!(defaults.expiry_window(2, true)?, (2.0, 2.5));
//! let fast = EtcdTimings::new(20, 200)?;
//! assert_eq!((fast.granted_ttl(1)?, fast.keepalive_period(1)?), (1, 0.5));
//! assert_eq!(fast.leader_loss_window(), (0.18, 0.6));
//! assert_eq!(fast.with_pre_vote(true).term_rise(), (1, 1));
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! Everything here follows etcd 3.4's code, and the live driver
//! (`live::Etcd`, feature `etcd`) measures each figure against a real
//! cluster:
//!
//! * **the granted TTL**: etcd grants at least its minimum lease TTL,
//!   `⌈(3 × ticks / 2) × heartbeat⌉` in whole seconds, where `ticks =
//!   election / heartbeat` (integer divisions, as in `etcdserver/server.go`):
//!   2 s under the default 100/1000 ms, 1 s under 20/200 ms. A lease asked
//!   for 1 s is granted 2 s under the defaults;
//! * **the keep-alive period**: `etcdctl lease keep-alive` (clientv3) renews
//!   TTL/3 after each answer, on a loop that wakes every 0.5 s: the first
//!   0.5 s tick after TTL/3, so every 1.0 s for a 2 s lease, every 0.5 s for
//!   1 s;
//! * **the expiry window**: a lease runs TTL seconds from its last renewal,
//!   and the leader looks for expired leases every 0.5 s (`lessor.runLoop`),
//!   so a key under a lease whose keep-alive stops right after a renewal is
//!   gone TTL to TTL + 0.5 s later (and from TTL − period if the keep-alive
//!   stopped at any moment);
//! * **a dead leader**: a follower that hears nothing for its randomised
//!   election timeout, `[election, 2 × election)`, stands for election; the
//!   last heartbeat came up to one heartbeat before the leader died. A vote
//!   can be ignored ("lease is not expired": the other follower heard the
//!   old leader less than an election timeout ago), and the candidate tries
//!   again in the next term, so without pre-vote the term rises by 1 or 2
//!   (2 in 1 of 20 kills here, 4 of 20 in the issue's runs); with
//!   `--pre-vote` an ignored pre-vote costs no term, and it rises by 1 —
//!   unless both survivors stand for the same term at once and split the
//!   vote, which adds 1 under either setting (1 of 30 kills here).

use crate::{Error, Result};

/// How often etcd's leader looks for expired leases (`lessor.runLoop`), in
/// seconds.
pub const LESSOR_TICK: f64 = 0.5;

/// How often clientv3's keep-alive loop wakes (`retryConnWait`), in seconds.
pub const KEEPALIVE_TICK: f64 = 0.5;

/// How far a live key's delete may fall outside
/// [`expiry_window`](EtcdTimings::expiry_window) before a check of a live
/// run calls it wrong, in seconds: (before, after). The heartbeat is paused
/// a few milliseconds after the renewal it follows, so the lease can run
/// out that much before TTL after the pause; after the leader's check come
/// the revoke's commit, its watch event and the scheduling of the processes,
/// a few milliseconds on an idle machine and more on one running other labs.
pub const EXPIRY_SLACK: (f64, f64) = (0.05, 0.25);

/// Whether a live delete `g` seconds after the pause falls in the window
/// `lo` … `hi` widened by [`EXPIRY_SLACK`] (the live checks of lab 11).
#[cfg(feature = "etcd")]
pub(crate) fn within_expiry_slack(g: f64, lo: f64, hi: f64) -> bool {
    g >= lo - EXPIRY_SLACK.0 && g <= hi + EXPIRY_SLACK.1
}

/// The longest lease etcd grants, in seconds (`lease.MaxLeaseTTL`).
pub const MAX_LEASE_TTL: u64 = 9_000_000_000;

/// The longest election timeout etcd accepts, in milliseconds.
pub const MAX_ELECTION_MS: u64 = 50_000;

/// etcd's raft timings: the heartbeat interval, the election timeout, and
/// whether pre-vote is on (the flags `--heartbeat-interval`,
/// `--election-timeout`, `--pre-vote`). Default 100/1000 ms, no pre-vote,
/// etcd's own defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EtcdTimings {
    heartbeat_ms: u64,
    election_ms: u64,
    pre_vote: bool,
}

impl Default for EtcdTimings {
    fn default() -> Self {
        EtcdTimings { heartbeat_ms: 100, election_ms: 1_000, pre_vote: false }
    }
}

impl EtcdTimings {
    /// A heartbeat every `heartbeat_ms`, an election timeout of
    /// `election_ms`: etcd wants the election timeout at least 5 heartbeats
    /// and at most 50 s, and a heartbeat of at least 1 ms.
    pub fn new(heartbeat_ms: u64, election_ms: u64) -> Result<EtcdTimings> {
        if heartbeat_ms == 0 || heartbeat_ms > MAX_ELECTION_MS / 5 {
            return Err(Error::OutOfRange {
                what: "heartbeat interval (ms)",
                given: heartbeat_ms.to_string(),
                allowed: format!("1 to {} ms (etcd's default is 100; 20 is fast)", MAX_ELECTION_MS / 5),
            });
        }
        if election_ms < heartbeat_ms.saturating_mul(5) || election_ms > MAX_ELECTION_MS {
            return Err(Error::OutOfRange {
                what: "election timeout (ms)",
                given: election_ms.to_string(),
                allowed: format!(
                    "{} to {MAX_ELECTION_MS} ms: etcd wants at least 5 heartbeats (10 is its default ratio)",
                    heartbeat_ms.saturating_mul(5)
                ),
            });
        }
        Ok(EtcdTimings { heartbeat_ms, election_ms, pre_vote: false })
    }

    /// 20/200 ms: elections ten times faster than the defaults, for tests
    /// that kill a leader.
    pub fn fast() -> EtcdTimings {
        EtcdTimings { heartbeat_ms: 20, election_ms: 200, pre_vote: false }
    }

    /// The same timings with pre-vote on or off.
    pub fn with_pre_vote(mut self, on: bool) -> EtcdTimings {
        self.pre_vote = on;
        self
    }

    /// The heartbeat interval, ms.
    pub fn heartbeat_ms(&self) -> u64 {
        self.heartbeat_ms
    }

    /// The election timeout, ms.
    pub fn election_ms(&self) -> u64 {
        self.election_ms
    }

    /// Whether pre-vote is on.
    pub fn pre_vote(&self) -> bool {
        self.pre_vote
    }

    /// "100/1000 ms" or "20/200 ms, pre-vote".
    pub fn label(&self) -> String {
        let pv = if self.pre_vote { ", pre-vote" } else { "" };
        format!("{}/{} ms{pv}", self.heartbeat_ms, self.election_ms)
    }

    /// The shortest lease etcd grants, in whole seconds:
    /// `⌈(3 × ticks / 2) × heartbeat⌉`, `ticks = election / heartbeat`.
    pub fn min_lease_ttl(&self) -> u64 {
        let ticks = self.election_ms / self.heartbeat_ms;
        let ms = (3 * ticks / 2) * self.heartbeat_ms;
        ms.div_ceil(1_000).max(1)
    }

    /// The TTL etcd grants when asked for `asked` seconds: at least
    /// [`min_lease_ttl`](Self::min_lease_ttl). `asked` from 1 to
    /// [`MAX_LEASE_TTL`].
    pub fn granted_ttl(&self, asked: u64) -> Result<u64> {
        check_ttl(asked)?;
        Ok(asked.max(self.min_lease_ttl()))
    }

    /// Seconds between two renewals by `etcdctl lease keep-alive` of a lease
    /// of `ttl` seconds: the first 0.5 s tick after TTL/3 (1.0 for 2 s, 0.5
    /// for 1 s, 1.5 for 3 s).
    pub fn keepalive_period(&self, ttl: u64) -> Result<f64> {
        check_ttl(ttl)?;
        // ticks of 0.5 s in TTL/3 s, whole ones, plus the one after: (2·TTL) / 3 + 1
        let ticks = (u128::from(ttl) * 2 / 3 + 1) as f64;
        Ok(ticks * KEEPALIVE_TICK)
    }

    /// When a key under a lease of `ttl` seconds is gone, in seconds after
    /// its keep-alive stopped: from TTL (`after_renewal`: it stopped right
    /// after a renewal) or TTL − the keep-alive period (at any moment), to
    /// TTL + 0.5 s (the leader's check every [`LESSOR_TICK`]). The commit of
    /// the revoke and the notice of it take a few milliseconds more.
    pub fn expiry_window(&self, ttl: u64, after_renewal: bool) -> Result<(f64, f64)> {
        let period = self.keepalive_period(ttl)?;
        let t = ttl as f64;
        Ok((if after_renewal { t } else { (t - period).max(0.0) }, t + LESSOR_TICK))
    }

    /// When a new leader is elected after the leader dies, in seconds: from
    /// one election timeout less one heartbeat (the first follower's
    /// timeout ran from the last heartbeat it heard), to three election
    /// timeouts (a randomised timeout of up to two, then a vote ignored and
    /// a second try). Writes fail until then.
    pub fn leader_loss_window(&self) -> (f64, f64) {
        let (hb, et) = (self.heartbeat_ms as f64 / 1_000.0, self.election_ms as f64 / 1_000.0);
        (round_ms(et - hb), round_ms(3.0 * et))
    }

    /// How much the raft term rises when a leader dies: (least, most
    /// usually seen). 1 with pre-vote; 1 or 2 without (2 when the first
    /// vote is ignored). A split vote (both survivors standing at once,
    /// rare) adds 1 under either.
    pub fn term_rise(&self) -> (u64, u64) {
        if self.pre_vote {
            (1, 1)
        } else {
            (1, 2)
        }
    }
}

fn round_ms(s: f64) -> f64 {
    (s * 1_000.0).round() / 1_000.0
}

/// `Ok` for a TTL from 1 to [`MAX_LEASE_TTL`] seconds.
pub(crate) fn check_ttl(ttl: u64) -> Result<()> {
    if (1..=MAX_LEASE_TTL).contains(&ttl) {
        Ok(())
    } else {
        Err(Error::OutOfRange {
            what: "lease TTL (s)",
            given: ttl.to_string(),
            allowed: format!("1 to {MAX_LEASE_TTL} s (etcd's longest lease); a node's lease is a few seconds"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_follow_etcd() {
        assert_eq!(EtcdTimings::new(100, 1_000).unwrap(), EtcdTimings::default());
        assert_eq!(EtcdTimings::new(50, 1_000).unwrap().min_lease_ttl(), 2); // 20 ticks → 30 × 50 ms
        assert_eq!(EtcdTimings::new(100, 3_000).unwrap().min_lease_ttl(), 5); // 4.5 s → 5
        assert_eq!(EtcdTimings::new(10, 50).unwrap().min_lease_ttl(), 1); // 75 ms → 1 s
        assert!(EtcdTimings::new(0, 100).is_err() && EtcdTimings::new(100, 499).is_err());
        assert!(EtcdTimings::new(100, 50_001).is_err() && EtcdTimings::new(u64::MAX, u64::MAX).is_err());
        let d = EtcdTimings::default();
        assert_eq!(d.keepalive_period(3).unwrap(), 1.5);
        assert_eq!(d.keepalive_period(5).unwrap(), 2.0);
        assert!(d.granted_ttl(0).is_err() && d.granted_ttl(MAX_LEASE_TTL + 1).is_err());
        assert_eq!(d.granted_ttl(MAX_LEASE_TTL).unwrap(), MAX_LEASE_TTL);
        assert_eq!(d.expiry_window(2, false).unwrap(), (1.0, 2.5));
        assert_eq!(d.leader_loss_window(), (0.9, 3.0));
        assert_eq!(d.term_rise(), (1, 2));
    }
}
