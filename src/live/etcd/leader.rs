//! Kill the leader: how long until a new one is elected and writes are
//! taken again, and by how much the raft term rose.

use super::{Etcd, EtcdClient, EtcdTimings};
use crate::{Error, Result};
use std::time::{Duration, Instant};

/// The key the writes during a leader's loss go to.
pub const PROBE_KEY: &[u8] = b"/reshard/probe/leader";

/// What killing the leader did (from [`Etcd::kill_leader`]), measured from
/// the SIGKILL, with the crate's prediction beside it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LeaderLoss {
    /// The timings the cluster runs with.
    pub timings: EtcdTimings,
    /// The leader killed.
    pub killed: String,
    /// Its index, for [`Etcd::restart`].
    pub killed_index: usize,
    /// The member the writes were sent to (a survivor).
    pub asked: String,
    /// The raft term before.
    pub term_before: u64,
    /// The raft term once a new leader was known.
    pub term_after: u64,
    /// The new leader.
    pub new_leader: String,
    /// Seconds until the member asked named a new leader.
    pub elected_after: f64,
    /// Seconds until a write was acknowledged again (each write is given up
    /// after a quarter of an election timeout, 50 ms at least, and sent
    /// again: this is known to within that).
    pub writable_after: f64,
    /// Writes that failed (refused or timed out) in between.
    pub failed_writes: u64,
    /// What they failed with (each message once, at most three).
    pub errors: Vec<String>,
    /// The predicted window for a new leader, seconds (see
    /// [`EtcdTimings::leader_loss_window`]).
    pub predicted_window: (f64, f64),
    /// The predicted rise of the term: (least, most).
    pub predicted_term_rise: (u64, u64),
    /// The new leader's raft lines since the kill (candidacies, votes
    /// ignored, "became leader"), member ids replaced by names.
    pub leader_log: Vec<String>,
}

impl LeaderLoss {
    /// How much the term rose.
    pub fn term_rise(&self) -> u64 {
        self.term_after.saturating_sub(self.term_before)
    }

    /// True when the new leader came within the predicted window, give or
    /// take `slack` seconds, and the term rose by the predicted least to
    /// one more than the predicted most (a split vote, rare, adds 1).
    pub fn as_predicted(&self, slack: f64) -> bool {
        let (lo, hi) = self.predicted_window;
        let (least, most) = self.predicted_term_rise;
        let rise = self.term_rise();
        self.elected_after >= lo - slack && self.elected_after <= hi + slack && rise >= least && rise <= most + 1
    }
}

/// The leader and the term, once every running member has named the same
/// leader at the same term for two election timeouts in a row (under load,
/// fast timings can change leaders on their own).
fn settled(etcd: &Etcd) -> Result<(usize, u64)> {
    let et = Duration::from_millis(etcd.timings().election_ms());
    let limit = Duration::from_secs(10) + et * 10;
    let t0 = Instant::now();
    let mut seen: Option<((usize, u64), Instant)> = None;
    let mut why = String::new();
    while t0.elapsed() < limit {
        let now = etcd.leader().and_then(|l| {
            let terms = (0..etcd.members())
                .filter(|&i| etcd.running(i).unwrap_or(false))
                .map(|i| etcd.status(i).map(|s| s.term))
                .collect::<Result<Vec<u64>>>()?;
            let term = terms.iter().copied().max().unwrap_or(0);
            if terms.iter().any(|&t| t != term) {
                return Err(Error::NotSettled {
                    waited: Duration::ZERO,
                    why: format!("the members are at terms {terms:?}"),
                });
            }
            Ok((l, term))
        });
        match (now, seen) {
            (Ok(n), Some((s, since))) if n == s => {
                if since.elapsed() >= et * 2 {
                    return Ok(n);
                }
            }
            (Ok(n), _) => seen = Some((n, Instant::now())),
            (Err(e), _) => {
                why = e.to_string();
                seen = None;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Err(Error::NotSettled { waited: limit, why: format!("no steady leader: {why}") })
}

pub(super) fn kill_leader(etcd: &mut Etcd) -> Result<LeaderLoss> {
    let (leader, term_before) = settled(etcd)?;
    let survivor = (0..etcd.members()).find(|&i| i != leader && etcd.running(i).unwrap_or(false)).ok_or_else(|| {
        Error::OutOfRange {
            what: "running members besides the leader:",
            given: "none".into(),
            allowed: "at least one more (and a majority of the cluster) so that a new leader can be elected".into(),
        }
    })?;
    let offsets: Vec<u64> = (0..etcd.members()).map(|i| etcd.log_len(i).unwrap_or(0)).collect();
    let client = etcd.client_of(survivor)?;
    client.put(PROBE_KEY, b"before")?; // writable before
    let timings = etcd.timings();
    let et = Duration::from_millis(timings.election_ms());
    let limit = et * 10 + Duration::from_secs(5);
    // a write that waits for a leader is given up after a quarter of an election timeout and
    // sent again, so the first acknowledged write comes at most that long after writes work again
    let per_write = (et / 4).max(Duration::from_millis(50));
    let writer = EtcdClient::new(client.member(), client.port(), per_write);
    let killed_id = etcd.member_id(leader)?;
    etcd.kill(leader)?;
    let t0 = Instant::now();
    let writes = std::thread::Builder::new()
        .name("reshard-etcd-writes".into())
        .spawn(move || {
            let (mut failed, mut errors) = (0u64, Vec::<String>::new());
            let mut i = 0u64;
            while t0.elapsed() < limit {
                i += 1;
                match writer.put(PROBE_KEY, format!("write {i}").as_bytes()) {
                    Ok(_) => return (Some(t0.elapsed()), failed, errors),
                    Err(e) => {
                        failed += 1;
                        let text = match &e {
                            Error::ServerRefused { message, .. } => message.clone(),
                            Error::ServerTimeout { waited, .. } => {
                                format!("no answer within {} ms", waited.as_millis())
                            }
                            other => other.to_string(),
                        };
                        if errors.len() < 3 && !errors.contains(&text) {
                            errors.push(text);
                        }
                        std::thread::sleep(Duration::from_millis(2));
                    }
                }
            }
            (None, failed, errors)
        })
        .map_err(crate::live::process::system("start a thread for writes"))?;
    let mut elected = None;
    while t0.elapsed() < limit {
        if let Ok(s) = client.status_raw() {
            // a status is a snapshot of two fields updated apart: a new leader comes with a new term
            if s.leader_id != 0 && s.leader_id != killed_id && s.term > term_before {
                elected = Some((t0.elapsed(), s.leader_id, s.term));
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let (writable, failed_writes, errors) =
        writes.join().map_err(|_| Error::ThreadPanicked { task: "writing while the leader was down" })?;
    let names = etcd.names();
    let Some((elected_after, new_id, term_after)) = elected else {
        return Err(Error::NotSettled {
            waited: limit,
            why: format!("no new leader after {} was killed", names[leader]),
        });
    };
    let Some(writable) = writable else {
        return Err(Error::NotSettled {
            waited: limit,
            why: "no write was acknowledged after the leader was killed".into(),
        });
    };
    let new_at = (0..etcd.members()).find(|&i| etcd.member_id(i).ok() == Some(new_id)).unwrap_or(survivor);
    let leader_log = etcd.raft_log(new_at, offsets[new_at])?;
    Ok(LeaderLoss {
        timings,
        killed: names[leader].clone(),
        killed_index: leader,
        asked: names[survivor].clone(),
        term_before,
        term_after,
        new_leader: names[new_at].clone(),
        elected_after: elected_after.as_secs_f64(),
        writable_after: writable.as_secs_f64(),
        failed_writes,
        errors,
        predicted_window: timings.leader_loss_window(),
        predicted_term_rise: timings.term_rise(),
        leader_log,
    })
}
