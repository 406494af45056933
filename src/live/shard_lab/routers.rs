//! Predicts 4 and 5 live: routers over a trace while the controller moves
//! shards, and the zombie router.

use super::seen::{RouterSeen, StaleRouters, ZombieSeen};
use super::{controller_move, count_at_owners, entry_key, read_map, Conns, ShardLab, MAP_PREFIX};
use super::{MAX_LIVE_POLLS, MAX_LIVE_REQUESTS};
use crate::analysis::refresh::{RefreshPolicy, ScheduledMove, StaleRouting};
use crate::analysis::request_trace::RequestTrace;
use crate::analysis::zombie::ZombieRouter;
use crate::live::etcd::EtcdClient;
use crate::live::fenced::{Fenced, FencedNodes};
use crate::schemes::shard_map::{ShardMap, ShardMove};
use crate::{limits, Error, Result};
use std::time::{Duration, Instant};

/// A router's map: per shard, the owner and the epoch.
type Cached = Vec<(String, u64)>;

impl ShardLab {
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
