//! Lab 11's live half: a shard map in etcd, fenced storage nodes, and the
//! crate's own controller and routers driving both — each run beside the
//! crate's prediction of it (the models of
//! [`analysis::refresh`](crate::analysis::refresh),
//! [`analysis::zombie`](crate::analysis::zombie),
//! [`analysis::auto_failover`](crate::analysis::auto_failover) and
//! [`analysis::leases`](crate::analysis::leases)).
//!
//! ```
//! use reshard::live::{etcd_version, redis_version, ShardLab};
//! use reshard::analysis::{RefreshPolicy, RequestTrace, ScheduledMove};
//! # if etcd_version().is_err() || redis_version().is_err() { return Ok(()); } // not installed here
//! let mut lab = ShardLab::start(12, ["A", "B", "C"])?; // etcd ×3, three fenced redis-servers, the map
//! let race = lab.race(7, &["A", "C"])?; // two controllers move shard 7 from one revision
//! assert_eq!((race.winners(), race.revision_rise()), (1, 1));
//! let moves = [ScheduledMove::at(1.03, 7, "C")?, ScheduledMove::at(1.03, 3, "B")?, ScheduledMove::at(1.03, 10, "C")?];
//! let trace = RequestTrace::round_robin(12, 300, 100)?;
//! let seen = lab.stale_routers(&moves, &trace, &[RefreshPolicy::WholeMap, RefreshPolicy::Entry])?;
//! assert!(seen.all_match(), "{seen}"); // 1 and 3 stale replies, counted by the nodes and by the routers
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! **The map** is one etcd key per shard, `/reshard/shards/07` → `"B"`,
//! written in one transaction when the lab starts and after every
//! [`reset`](ShardLab::reset) (so every entry starts at version 1 with one
//! mod revision). **The controller** moves a shard in four steps: read the
//! entry, compare-and-swap it to the new owner on the mod revision it read
//! (the new revision is the move's epoch), raise the shard's fence to that
//! epoch at the node it leaves and the node it goes to, then move the
//! shard's keys. **A router** reads the map, writes each request to the
//! owner its map names with the epoch its map holds, and on a stale reply
//! refreshes as its [`RefreshPolicy`] says. Every scenario runs on the
//! trace's own clock: moves, polls and requests happen in the order of
//! their times (moves, then polls, then requests at one instant), as fast
//! as the servers answer; a watching router gets each change from its
//! watch before its next request, and the time the change took to arrive
//! is reported.

use crate::analysis::auto_failover::{AutoFailover, FailoverRun};
use crate::analysis::leases::EtcdTimings;
use crate::analysis::refresh::{RefreshPolicy, RoutingRun, ScheduledMove, StaleRouting};
use crate::analysis::request_trace::RequestTrace;
use crate::analysis::zombie::{ZombieRouter, ZombieRun};
use crate::live::etcd::{Cas, Etcd, EtcdClient, EventKind, Heartbeat, Lease, Watch};
use crate::live::fenced::{move_keys, Fenced, FencedNodes, NodeConn};
use crate::schemes::shard_map::{ShardMap, ShardMove};
use crate::{limits, Error, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// Where the map's entries live in etcd.
pub const MAP_PREFIX: &[u8] = b"/reshard/shards/";

/// Where the nodes' lease keys live in etcd.
pub const NODES_PREFIX: &[u8] = b"/reshard/nodes/";

/// The most shards a lab's map has: one etcd transaction writes it.
pub const MAX_LAB_SHARDS: usize = crate::live::etcd::MAX_TXN_PUTS;

/// The most polls one live run makes.
pub const MAX_LIVE_POLLS: u128 = 10_000;

/// The most requests one live run sends.
pub const MAX_LIVE_REQUESTS: usize = 20_000;

/// The most controllers in one race.
pub const MAX_RACERS: usize = 16;

/// etcd, fenced nodes and a shard map (see the [module docs](self));
/// everything stopped when dropped.
pub struct ShardLab {
    etcd: Etcd,
    nodes: FencedNodes,
    base: ShardMap,
    map: ShardMap,
}

impl std::fmt::Debug for ShardLab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardLab").field("etcd", &self.etcd).field("nodes", &self.nodes).finish()
    }
}

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
        let expired = matches!(p.expiry, crate::analysis::Expiry::Expired);
        let window = match (p.key_gone_within, self.gone_after) {
            (Some((lo, hi)), Some(g)) => g >= lo - 0.05 && g <= hi + 0.25,
            (None, None) => true,
            _ => false,
        };
        matches!(p.expiry, crate::analysis::Expiry::TooClose)
            || (expired == self.expired
                && window
                && p.shards_moved == Some(self.shards_moved)
                && p.keys_moved == Some(self.keys_moved)
                && p.acknowledged == Some(self.acknowledged)
                && p.refused == Some(self.refused)
                && p.lost == Some(self.lost))
    }
}

/// The digits of the largest shard number: entries sort in shard order.
fn width(shards: usize) -> usize {
    shards.saturating_sub(1).to_string().len()
}

/// The etcd key of shard `shard`'s entry.
pub fn entry_key(shards: usize, shard: usize) -> Vec<u8> {
    let mut k = MAP_PREFIX.to_vec();
    k.extend_from_slice(format!("{shard:0w$}", w = width(shards)).as_bytes());
    k
}

/// A router's map: per shard, the owner and the epoch.
type Cached = Vec<(String, u64)>;

impl ShardLab {
    /// etcd (three members, default timings), one fenced node per name, and
    /// a map of `shards` shards (1 to [`MAX_LAB_SHARDS`]), shard `s` on node
    /// `s % n`.
    pub fn start<I, S>(shards: usize, nodes: I) -> Result<ShardLab>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ShardLab::start_with(shards, nodes, EtcdTimings::default())
    }

    /// The same, with etcd's timings given.
    pub fn start_with<I, S>(shards: usize, nodes: I, timings: EtcdTimings) -> Result<ShardLab>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        limits::check_hint(
            "shards of a live map",
            shards as u128,
            MAX_LAB_SHARDS as u128,
            "use at most 128 shards (one etcd transaction writes the map; 12 show every effect)",
        )?;
        let names = crate::live::ports::check_servers(nodes)?;
        let base = ShardMap::new(shards, names.clone())?;
        let fenced = FencedNodes::start(names)?;
        let etcd = Etcd::start_with(3, timings)?;
        let mut lab = ShardLab { etcd, nodes: fenced, map: base.clone(), base };
        lab.reset()?;
        Ok(lab)
    }

    /// The etcd cluster.
    pub fn etcd(&self) -> &Etcd {
        &self.etcd
    }

    /// The etcd cluster, to kill and restart members.
    pub fn etcd_mut(&mut self) -> &mut Etcd {
        &mut self.etcd
    }

    /// The fenced nodes.
    pub fn nodes(&self) -> &FencedNodes {
        &self.nodes
    }

    /// The map as the lab last wrote it (at its start or last reset).
    pub fn map(&self) -> &ShardMap {
        &self.map
    }

    /// Every process of the lab (etcd members, redis-servers) and its
    /// directory.
    pub fn footprint(&self) -> Vec<(u32, PathBuf)> {
        let mut f = self.etcd.footprint();
        f.extend(self.nodes.footprint());
        f
    }

    /// Empty the nodes (data, fences, counts), delete the map and the node
    /// keys in etcd, and write the map again in one transaction (shard `s`
    /// on node `s % n`, every entry at version 1): the map, at etcd's
    /// revision.
    pub fn reset(&mut self) -> Result<ShardMap> {
        self.nodes.flush()?;
        let c = self.etcd.client()?;
        c.delete_prefix(MAP_PREFIX)?;
        c.delete_prefix(NODES_PREFIX)?;
        let shards = self.base.shards();
        let items: Vec<(Vec<u8>, Vec<u8>)> = (0..shards)
            .map(|s| Ok((entry_key(shards, s), self.base.owner(s)?.as_bytes().to_vec())))
            .collect::<Result<_>>()?;
        let rev = c.put_all(&items)?;
        self.map = self.base.clone().created_at(rev)?;
        Ok(self.map.clone())
    }

    /// The map as etcd holds it: per shard its owner, version and mod
    /// revision; the map's revision is the store's when read.
    pub fn read_map(&self) -> Result<ShardMap> {
        read_map(&self.etcd.client()?, &self.base)
    }

    /// Predict 1: `targets.len()` controllers (2 to [`MAX_RACERS`]), each
    /// on its own thread and etcd member, read shard `shard`'s entry, wait
    /// for each other, then compare-and-swap it to their own target node on
    /// the mod revision they read.
    pub fn race(&mut self, shard: usize, targets: &[&str]) -> Result<Race> {
        if !(2..=MAX_RACERS).contains(&targets.len()) {
            return Err(Error::OutOfRange {
                what: "racing controllers",
                given: targets.len().to_string(),
                allowed: format!("2 to {MAX_RACERS}"),
            });
        }
        for t in targets {
            self.base.shards_of(t)?;
        }
        self.base.owner(shard)?;
        let key = entry_key(self.base.shards(), shard);
        let c = self.etcd.client()?;
        let before = c.get(&key)?.ok_or_else(|| c.unexpected("get the entry", "no entry: reset the lab"))?;
        let (_, revision_before) = c.get_prefix(MAP_PREFIX)?;
        let clients: Vec<EtcdClient> =
            (0..targets.len()).map(|i| self.etcd.client_of(i % self.etcd.members())).collect::<Result<_>>()?;
        let barrier = Arc::new(Barrier::new(targets.len()));
        let mut threads = Vec::new();
        for (client, target) in clients.into_iter().zip(targets) {
            let (barrier, key, target) = (barrier.clone(), key.clone(), target.to_string());
            threads.push(
                std::thread::Builder::new()
                    .name("reshard-controller".into())
                    .spawn(move || -> Result<Racer> {
                        let read = client.get(&key);
                        barrier.wait(); // everyone has read before anyone writes
                        let read = read?.map_or(0, |kv| kv.mod_revision);
                        barrier.wait();
                        let (won, saw) = match client.compare_and_swap(&key, read, target.as_bytes())? {
                            Cas::Won { .. } => (true, None),
                            Cas::Lost { current, .. } => {
                                (false, current.map(|kv| String::from_utf8_lossy(&kv.value).into_owned()))
                            }
                        };
                        Ok(Racer { target, member: client.member().to_string(), read, won, saw })
                    })
                    .map_err(crate::live::process::system("start a controller's thread"))?,
            );
        }
        let racers = threads
            .into_iter()
            .map(|t| t.join().map_err(|_| Error::ThreadPanicked { task: "racing to move a shard" })?)
            .collect::<Result<Vec<Racer>>>()?;
        let after = c.get(&key)?.ok_or_else(|| c.unexpected("get the entry", "the entry is gone"))?;
        let (_, revision_after) = c.get_prefix(MAP_PREFIX)?;
        Ok(Race {
            shard,
            racers,
            revision_before,
            revision_after,
            version_before: before.version,
            version_after: after.version,
            owner_after: String::from_utf8_lossy(&after.value).into_owned(),
        })
    }

    /// Predict 1, second part: make `moves` one after another as the
    /// controller does (compare-and-swap, fences, keys), from the map as
    /// etcd holds it now; the crate's map after them beside etcd's.
    pub fn scripted_moves(&mut self, moves: &[ShardMove]) -> Result<ScriptedMoves> {
        let before = self.read_map()?;
        let predicted = before.apply(moves)?;
        let c = self.etcd.client()?;
        for m in moves {
            controller_move(&c, &self.nodes, &before, m)?;
        }
        let observed = self.read_map()?;
        Ok(ScriptedMoves { before, moves: moves.to_vec(), predicted, observed })
    }

    /// Predict 2: ask for a lease of `ttl` seconds (1 to 60), `trials`
    /// times (1 to 20); each time keep it alive with an etcdctl child,
    /// pause the child right after a renewal, and time the key's delete as
    /// a watch receives it.
    pub fn lease_window(&self, ttl: u64, trials: usize) -> Result<LeaseWindow> {
        check_live_ttl(ttl)?;
        if !(1..=20).contains(&trials) {
            return Err(Error::OutOfRange { what: "trials", given: trials.to_string(), allowed: "1 to 20".into() });
        }
        let timings = self.etcd.timings();
        let c = self.etcd.client()?;
        let (mut gone, mut renewals, mut granted) = (Vec::new(), Vec::new(), 0);
        for t in 0..trials {
            let lease = c.grant(ttl)?;
            granted = lease.granted;
            let key = format!("/reshard/lease/{t}").into_bytes();
            let rev = c.put_lease(&key, b"alive", Some(&lease))?;
            let watch = c.watch(&key, rev + 1)?;
            let hb = self.etcd.keep_alive(&lease)?;
            let t0 = hb.pause()?;
            renewals.push(hb.renewals());
            let limit = Duration::from_secs(lease.granted + 5);
            let deleted = loop {
                match watch.next(limit.saturating_sub(t0.elapsed()))? {
                    Some(e) if e.kind == EventKind::Delete => break e,
                    Some(_) => {}
                    None => {
                        return Err(Error::NotSettled {
                            waited: limit,
                            why: format!("the key under lease {:x} was not deleted", lease.id),
                        })
                    }
                }
            };
            gone.push(deleted.received.saturating_duration_since(t0).as_secs_f64());
        }
        Ok(LeaseWindow {
            timings,
            asked: ttl,
            granted,
            predicted_granted: timings.granted_ttl(ttl)?,
            renewals,
            gone_after: gone,
            predicted_window: timings.expiry_window(timings.granted_ttl(ttl)?, true)?,
        })
    }

    /// Predict 4: for each policy, reset the lab, then run a router over
    /// `trace` while the controller makes `moves` at their times; the
    /// crate's counts beside the router's and the nodes'.
    pub fn stale_routers(
        &mut self,
        moves: &[ScheduledMove],
        trace: &RequestTrace,
        policies: &[RefreshPolicy],
    ) -> Result<StaleRouters> {
        if policies.is_empty() {
            return Err(Error::OutOfRange {
                what: "refresh policies",
                given: "none".into(),
                allowed: "at least one, e.g. RefreshPolicy::all(&[0.5])?".into(),
            });
        }
        limits::check_hint(
            "requests sent to live nodes",
            trace.len() as u128,
            MAX_LIVE_REQUESTS as u128,
            "use a shorter trace (300 requests show every effect)",
        )?;
        let sim = StaleRouting::new(&self.base, moves, trace)?;
        for p in policies {
            if let RefreshPolicy::Poll(period) = p {
                limits::check_hint(
                    "polls of the map in one live run",
                    trace.periods_before(trace.len() - 1, period.micros()),
                    MAX_LIVE_POLLS,
                    "poll less often, or use a shorter trace",
                )?;
            }
        }
        let mut runs = Vec::new();
        for &p in policies {
            let predicted = sim.run(p)?;
            self.reset()?;
            let seen = self.route(&sim, p)?;
            runs.push((predicted, seen));
        }
        Ok(StaleRouters { moves: moves.to_vec(), requests: trace.len(), rate: trace.rate(), runs })
    }

    fn route(&mut self, sim: &StaleRouting, policy: RefreshPolicy) -> Result<RouterSeen> {
        let c = self.etcd.client()?;
        let trace = sim.trace();
        let moves = sim.moves();
        let mut router = Router::new(&c, &self.nodes, &self.base)?;
        let watch = match policy {
            RefreshPolicy::Watch => Some(c.watch(MAP_PREFIX, self.map.revision() + 1)?),
            _ => None,
        };
        let mut seen = RouterSeen {
            policy,
            stale_router: 0,
            stale_nodes: 0,
            stale_requests: Vec::new(),
            failed: 0,
            map_reads: 1,
            entry_reads: 0,
            watch_events: 0,
            watch_ms: Vec::new(),
            served: 0,
            at_owner: 0,
        };
        let (mut next_move, mut next_poll) = (0usize, 1u128);
        let mut served: Vec<(usize, usize)> = Vec::new(); // (request, shard)
        for i in 0..trace.len() {
            loop {
                let move_at =
                    moves.get(next_move).filter(|m| trace.at_or_after(i, m.micros())).map(|m| u128::from(m.micros()));
                let poll_at = match policy {
                    RefreshPolicy::Poll(p) => {
                        let at = next_poll.saturating_mul(u128::from(p.micros()));
                        (at <= u128::from(u64::MAX) && trace.at_or_after(i, at as u64)).then_some(at)
                    }
                    _ => None,
                };
                match (move_at, poll_at) {
                    (Some(m), p) if p.is_none_or(|p| m <= p) => {
                        let mv = moves[next_move].as_move();
                        let (rev, _) = controller_move(&c, &self.nodes, &self.base, mv)?;
                        let done = Instant::now();
                        next_move += 1;
                        if let Some(w) = &watch {
                            for e in w.until(rev, Duration::from_secs(5))? {
                                seen.watch_events += 1;
                                let ms = if e.received >= done {
                                    e.received.duration_since(done).as_secs_f64() * 1e3
                                } else {
                                    -(done.duration_since(e.received).as_secs_f64() * 1e3)
                                };
                                seen.watch_ms.push(ms);
                                router.apply(&e.kv.key, &e.kv.value, e.kv.mod_revision)?;
                            }
                        }
                    }
                    (_, Some(_)) => {
                        router.read_map()?;
                        seen.map_reads += 1;
                        next_poll += 1;
                    }
                    _ => break,
                }
            }
            let s = trace.shard(i)?;
            let (key, value) = (format!("r{i}").into_bytes(), format!("v{i}").into_bytes());
            match router.write(s, &key, &value, true)? {
                Fenced::Ok => {}
                Fenced::Stale { .. } => {
                    seen.stale_router += 1;
                    seen.stale_requests.push(i);
                    match policy {
                        RefreshPolicy::WholeMap => {
                            router.read_map()?;
                            seen.map_reads += 1;
                        }
                        RefreshPolicy::Entry => {
                            router.read_entry(s)?;
                            seen.entry_reads += 1;
                        }
                        _ => {
                            seen.failed += 1;
                            continue;
                        }
                    }
                    if let Fenced::Stale { epoch, fence } = router.write(s, &key, &value, true)? {
                        return Err(Error::NotSettled {
                            waited: Duration::ZERO,
                            why: format!("request {i}'s retry was refused too (epoch {epoch} < {fence})"),
                        });
                    }
                }
            }
            seen.served += 1;
            served.push((i, s));
        }
        let after = self.read_map()?;
        for n in self.nodes.names() {
            seen.stale_nodes += self.nodes.stale_replies(&n)?;
        }
        seen.at_owner =
            count_at_owners(&self.nodes, &after, served.iter().map(|&(i, s)| (s, format!("r{i}").into_bytes())))?;
        Ok(seen)
    }

    /// Predict 5: a router reads the map, is paused while `moves` happen,
    /// then writes `writes` keys of the moved shards (see
    /// [`ZombieRouter`]); with the nodes' fence on or off.
    pub fn zombie(
        &mut self,
        moves: &[ShardMove],
        writes: usize,
        policy: RefreshPolicy,
        fence: bool,
    ) -> Result<ZombieSeen> {
        let model = ZombieRouter::new(&self.base, moves, writes)?;
        let predicted = model.run(policy, fence)?;
        limits::check_hint("writes sent to live nodes", writes as u128, MAX_LIVE_REQUESTS as u128, "use fewer writes")?;
        self.reset()?;
        let c = self.etcd.client()?;
        let mut router = Router::new(&c, &self.nodes, &self.base)?; // reads the map, then pauses
        let watch = match policy {
            RefreshPolicy::Watch => Some(c.watch(MAP_PREFIX, self.map.revision() + 1)?),
            _ => None,
        };
        let mut last = 0;
        for m in moves {
            last = controller_move(&c, &self.nodes, &self.base, m)?.0;
        }
        // the router wakes up
        if let Some(w) = &watch {
            for e in w.until(last, Duration::from_secs(5))? {
                router.apply(&e.kv.key, &e.kv.value, e.kv.mod_revision)?;
            }
        }
        let (mut acknowledged, mut refused_router, mut retried) = (0, 0, 0);
        let mut refused_writes = Vec::new();
        let mut written = Vec::new();
        for (j, s) in model.shards_written().into_iter().enumerate() {
            let (key, value) = (format!("z{j}").into_bytes(), format!("zombie {j}").into_bytes());
            match router.write(s, &key, &value, fence)? {
                Fenced::Ok => {}
                Fenced::Stale { .. } => {
                    refused_router += 1;
                    refused_writes.push(j);
                    match policy {
                        RefreshPolicy::WholeMap => router.read_map()?,
                        _ => router.read_entry(s)?,
                    }
                    retried += 1;
                    if !router.write(s, &key, &value, fence)?.is_ok() {
                        return Err(Error::NotSettled {
                            waited: Duration::ZERO,
                            why: format!("write {j}'s retry was refused too"),
                        });
                    }
                }
            }
            acknowledged += 1;
            written.push((j, s));
        }
        let after = self.read_map()?;
        let mut refused_nodes = 0;
        for n in self.nodes.names() {
            refused_nodes += self.nodes.stale_replies(&n)?;
        }
        let mut lost_writes = Vec::new();
        let mut conns = Conns::new(&self.nodes);
        for &(j, s) in &written {
            if conns.get(after.owner(s)?)?.get(s, format!("z{j}").as_bytes())?.is_none() {
                lost_writes.push(j);
            }
        }
        Ok(ZombieSeen {
            predicted,
            acknowledged,
            refused_router,
            refused_nodes,
            retried,
            lost: lost_writes.len() as u64,
            lost_writes,
            refused_writes,
        })
    }

    /// Predict 6: every node holds a lease of `ttl` seconds (1 to 60, as
    /// asked; etcd may grant more) kept alive by an etcdctl child, and a key
    /// under it; each shard holds `keys_per_shard` keys (0 to 1,000). Node
    /// `node`'s heartbeat pauses for `pause` seconds (0 to 60) right after a
    /// renewal; the controller, watching the node keys, moves the node's
    /// shards the moment its key goes. When the heartbeat is resumed, the
    /// node writes `writes` keys (0 to 10,000) of its old shards with its
    /// old epochs, to itself — fenced or not.
    pub fn auto_failover(
        &mut self,
        node: &str,
        pause: f64,
        ttl: u64,
        keys_per_shard: u64,
        fence: bool,
        writes: u64,
    ) -> Result<FailoverSeen> {
        check_live_ttl(ttl)?;
        limits::check_hint("keys per shard (live)", u128::from(keys_per_shard), 1_000, "use at most 1,000")?;
        limits::check_hint("writes (live)", u128::from(writes), 10_000, "use at most 10,000")?;
        if !(pause.is_finite() && (0.0..=60.0).contains(&pause)) {
            return Err(Error::BadNumber {
                what: "pause (s)",
                value: pause.to_string(),
                expected: "a number of seconds from 0 to 60",
                hint: "pause a little below or above the lease's TTL, e.g. 1.0 or 3.0 for 2 s",
            });
        }
        let granted = self.etcd.timings().granted_ttl(ttl)?;
        let predicted = AutoFailover::new(&self.base, node, keys_per_shard, granted)?.run(pause, fence, writes)?;
        let map = self.reset()?;
        let c = self.etcd.client()?;
        // the keys, each at its shard's owner
        let mut conns = Conns::new(&self.nodes);
        for s in 0..map.shards() {
            let conn = conns.get(map.owner(s)?)?;
            for j in 0..keys_per_shard {
                conn.write(s, map.epoch(s)?, format!("k{j}").as_bytes(), b"preloaded")?;
            }
        }
        // leases, node keys, heartbeats
        let names = self.nodes.names();
        let mut beats: Vec<(String, Lease, Heartbeat)> = Vec::new();
        let mut last = 0;
        for n in &names {
            let lease = c.grant(ttl)?;
            last = c.put_lease(&node_key(n), b"alive", Some(&lease))?;
            let hb = self.etcd.keep_alive(&lease)?;
            beats.push((n.clone(), lease, hb));
        }
        let watch = c.watch(NODES_PREFIX, last + 1)?;
        let own: Vec<usize> = map.shards_of(node)?;
        let plan = AutoFailover::new(&self.base, node, keys_per_shard, granted)?.plan()?;
        let hb = &beats.iter().find(|b| b.0 == node).ok_or_else(|| Error::UnknownNode(node.to_string()))?.2;
        let mut failover = Failover {
            c: &c,
            nodes: &self.nodes,
            base: &self.base,
            watch: &watch,
            key: node_key(node),
            plan: &plan,
            done: None,
            shards: 0,
            keys: 0,
        };
        let t0 = hb.pause()?;
        let until = t0 + Duration::from_secs_f64(pause);
        failover.run_until(t0, until)?;
        hb.resume()?;
        let renewals = hb.renewals();
        let settle = Instant::now() + Duration::from_secs_f64(granted as f64 + 1.0);
        let heartbeat = loop {
            failover.run_until(t0, Instant::now() + Duration::from_millis(10))?;
            if hb.expired() || !hb.running() {
                break "said the lease expired (or was revoked) and exited".to_string();
            }
            if hb.renewals() > renewals && failover.done.is_none() {
                break "renewed the lease".to_string();
            }
            if Instant::now() > settle {
                break format!("neither renewed nor exited within {} s", granted + 1);
            }
        };
        // the node wakes and writes its old shards with its old epochs, to itself
        let mut acknowledged = 0;
        let mut refused = 0;
        let mut written = Vec::new();
        if !own.is_empty() {
            let conn = conns.get(node)?;
            for j in 0..writes {
                let s = own[(j % own.len() as u64) as usize];
                let key = format!("w{j}").into_bytes();
                let ok = if fence {
                    conn.write(s, map.epoch(s)?, &key, b"after the pause")?.is_ok()
                } else {
                    conn.write_unfenced(s, &key, b"after the pause")?;
                    true
                };
                if ok {
                    acknowledged += 1;
                    written.push((s, key));
                } else {
                    refused += 1;
                }
            }
        }
        let after = self.read_map()?;
        let at_owner = count_at_owners(&self.nodes, &after, written.iter().cloned())?;
        for (_, lease, _) in &beats {
            let _ = c.revoke(lease);
        }
        Ok(FailoverSeen {
            predicted,
            asked: ttl,
            expired: failover.done.is_some(),
            gone_after: failover.done,
            heartbeat,
            shards_moved: failover.shards,
            keys_moved: failover.keys,
            acknowledged,
            refused,
            lost: acknowledged - at_owner,
        })
    }
}

fn check_live_ttl(ttl: u64) -> Result<()> {
    if (1..=60).contains(&ttl) {
        Ok(())
    } else {
        Err(Error::OutOfRange {
            what: "lease TTL of a live lab (s)",
            given: ttl.to_string(),
            allowed: "1 to 60 s (a node's lease is a few seconds; 2 is etcd's least under its defaults)".into(),
        })
    }
}

/// The etcd key of node `name`'s lease.
pub fn node_key(name: &str) -> Vec<u8> {
    let mut k = NODES_PREFIX.to_vec();
    k.extend_from_slice(name.as_bytes());
    k
}

/// The controller watching the node keys during a pause.
struct Failover<'a> {
    c: &'a EtcdClient,
    nodes: &'a FencedNodes,
    base: &'a ShardMap,
    watch: &'a Watch,
    key: Vec<u8>,
    plan: &'a [ShardMove],
    done: Option<f64>,
    shards: u64,
    keys: u64,
}

impl Failover<'_> {
    /// Handle the node keys' changes until `until`: on the paused node's
    /// delete, move its shards.
    fn run_until(&mut self, t0: Instant, until: Instant) -> Result<()> {
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let Some(e) = self.watch.next(left)? else { return Ok(()) };
            if e.kind == EventKind::Delete && e.kv.key == self.key && self.done.is_none() {
                self.done = Some(e.received.saturating_duration_since(t0).as_secs_f64());
                for m in self.plan {
                    let (_, keys) = controller_move(self.c, self.nodes, self.base, m)?;
                    self.shards += 1;
                    self.keys += keys;
                }
            }
            if Instant::now() >= until {
                return Ok(());
            }
        }
    }
}

/// Connections to the fenced nodes, opened when first needed.
struct Conns<'a> {
    nodes: &'a FencedNodes,
    open: BTreeMap<String, NodeConn>,
}

impl<'a> Conns<'a> {
    fn new(nodes: &'a FencedNodes) -> Conns<'a> {
        Conns { nodes, open: BTreeMap::new() }
    }

    fn get(&mut self, node: &str) -> Result<&mut NodeConn> {
        if !self.open.contains_key(node) {
            let c = self.nodes.conn(node)?;
            self.open.insert(node.to_string(), c);
        }
        Ok(self.open.get_mut(node).expect("just opened"))
    }
}

/// How many of `keys` (shard, key) are at their shard's owner in `map`.
fn count_at_owners(nodes: &FencedNodes, map: &ShardMap, keys: impl Iterator<Item = (usize, Vec<u8>)>) -> Result<u64> {
    let mut have: BTreeMap<usize, BTreeSet<Vec<u8>>> = BTreeMap::new();
    let mut conns = Conns::new(nodes);
    let mut n = 0;
    for (s, k) in keys {
        if let std::collections::btree_map::Entry::Vacant(e) = have.entry(s) {
            e.insert(conns.get(map.owner(s)?)?.shard_keys(s)?.into_iter().collect());
        }
        if have[&s].contains(&k) {
            n += 1;
        }
    }
    Ok(n)
}

/// The map in etcd: one entry per shard of `base`, owners among its nodes.
fn read_map(c: &EtcdClient, base: &ShardMap) -> Result<ShardMap> {
    let (kvs, revision) = c.get_prefix(MAP_PREFIX)?;
    let shards = base.shards();
    let mut entries = vec![None; shards];
    for kv in kvs {
        let s = std::str::from_utf8(&kv.key[MAP_PREFIX.len()..]).ok().and_then(|t| t.parse::<usize>().ok());
        match s {
            Some(s) if s < shards && kv.key == entry_key(shards, s) => {
                entries[s] = Some((String::from_utf8_lossy(&kv.value).into_owned(), kv.version, kv.mod_revision))
            }
            _ => {
                return Err(c.unexpected(
                    "read the map",
                    &format!("a key that is not a shard's entry: {}", crate::keys::escape(&kv.key)),
                ))
            }
        }
    }
    let entries: Vec<(String, u64, u64)> = entries
        .into_iter()
        .enumerate()
        .map(|(s, e)| e.ok_or_else(|| c.unexpected("read the map", &format!("no entry for shard {s}: reset the lab"))))
        .collect::<Result<_>>()?;
    ShardMap::from_entries(base.nodes().to_vec(), &entries)?.with_revision(revision)
}

/// The controller moves one shard: read its entry, compare-and-swap it to
/// `m.to` on the mod revision read, raise the shard's fence to the new
/// revision at both nodes, move its keys. The new revision and the keys
/// moved.
fn controller_move(c: &EtcdClient, nodes: &FencedNodes, base: &ShardMap, m: &ShardMove) -> Result<(u64, u64)> {
    let key = entry_key(base.shards(), m.shard);
    base.shards_of(&m.to)?;
    let kv = c.get(&key)?.ok_or_else(|| c.unexpected("read an entry", "no entry: reset the lab"))?;
    let from = String::from_utf8_lossy(&kv.value).into_owned();
    if from == m.to {
        return Err(Error::SameNode(m.to.clone()));
    }
    let rev = match c.compare_and_swap(&key, kv.mod_revision, m.to.as_bytes())? {
        Cas::Won { revision } => revision,
        Cas::Lost { .. } => {
            return Err(Error::NotSettled {
                waited: Duration::ZERO,
                why: format!("another controller moved shard {} first", m.shard),
            })
        }
    };
    let (mut a, mut b) = (nodes.conn(&from)?, nodes.conn(&m.to)?);
    a.raise_fence(m.shard, rev)?;
    b.raise_fence(m.shard, rev)?;
    let keys = move_keys(&mut a, &mut b, m.shard)?;
    Ok((rev, keys))
}

/// A router: its map (owner and epoch per shard), its connections.
struct Router<'a> {
    c: &'a EtcdClient,
    base: &'a ShardMap,
    cache: Cached,
    conns: Conns<'a>,
}

impl<'a> Router<'a> {
    fn new(c: &'a EtcdClient, nodes: &'a FencedNodes, base: &'a ShardMap) -> Result<Router<'a>> {
        let mut r = Router { c, base, cache: Vec::new(), conns: Conns::new(nodes) };
        r.read_map()?;
        Ok(r)
    }

    fn read_map(&mut self) -> Result<()> {
        let m = read_map(self.c, self.base)?;
        self.cache = (0..m.shards()).map(|s| Ok((m.owner(s)?.to_string(), m.epoch(s)?))).collect::<Result<_>>()?;
        Ok(())
    }

    fn read_entry(&mut self, s: usize) -> Result<()> {
        let kv = self
            .c
            .get(&entry_key(self.base.shards(), s))?
            .ok_or_else(|| self.c.unexpected("read an entry", "no entry"))?;
        self.cache[s] = (String::from_utf8_lossy(&kv.value).into_owned(), kv.mod_revision);
        Ok(())
    }

    /// A change from a watch.
    fn apply(&mut self, key: &[u8], value: &[u8], rev: u64) -> Result<()> {
        let s = (0..self.base.shards()).find(|&s| entry_key(self.base.shards(), s) == key);
        match s {
            Some(s) => {
                self.cache[s] = (String::from_utf8_lossy(value).into_owned(), rev);
                Ok(())
            }
            None => Err(self.c.unexpected("watch the map", "a change to a key that is not a shard's entry")),
        }
    }

    /// Write to the owner the router's map names, with its epoch (fenced),
    /// or a plain SET there (not fenced).
    fn write(&mut self, s: usize, key: &[u8], value: &[u8], fenced: bool) -> Result<Fenced> {
        let (owner, epoch) = self.cache[s].clone();
        let conn = self.conns.get(&owner)?;
        if fenced {
            conn.write(s, epoch, key, value)
        } else {
            conn.write_unfenced(s, key, value).map(|()| Fenced::Ok)
        }
    }
}
