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
//! refreshes as its [`RefreshPolicy`](crate::analysis::RefreshPolicy) says. Every scenario runs on the
//! trace's own clock: moves, polls and requests happen in the order of
//! their times (moves, then polls, then requests at one instant), as fast
//! as the servers answer; a watching router gets each change from its
//! watch before its next request, and the time the change took to arrive
//! is reported.

use crate::analysis::leases::EtcdTimings;
use crate::live::etcd::{Cas, Etcd, EtcdClient, EventKind};
use crate::live::fenced::{move_keys, FencedNodes, NodeConn};
use crate::schemes::shard_map::{ShardMap, ShardMove};
use crate::{limits, Error, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Barrier};
use std::time::Duration;

mod failover;
mod routers;
mod seen;
pub use seen::{FailoverSeen, LeaseWindow, Race, Racer, RouterSeen, ScriptedMoves, StaleRouters, ZombieSeen};

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
