//! The simulated cluster a learner's router writes through: the map's
//! store, the storage nodes and their fences, and the log of every call
//! (what a failure shows and what determinism compares).

use std::collections::BTreeSet;
use std::fmt;

use super::{NodeReply, Route, MAX_CALLS_PER_WRITE};
use crate::schemes::shard_map::{ShardMap, ShardMove};

/// One call of the learner's router, with its answer (what a failure shows,
/// and what determinism compares).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Call {
    Send { node: String, shard: usize, epoch: u64, key: String, reply: NodeReply },
    ReadMap { revision: u64 },
    ReadEntry { shard: usize, route: Route },
    Returned,
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Call::Send { node, shard, epoch, key, reply } => {
                write!(f, "send({node}, shard {shard}, epoch {epoch}, {key:?}) → ")?;
                match reply {
                    NodeReply::Stored => write!(f, "stored"),
                    NodeReply::Stale { epoch, fence } => write!(f, "stale (epoch {epoch} < fence {fence})"),
                }
            }
            Call::ReadMap { revision } => write!(f, "read_map() → the map at revision {revision}"),
            Call::ReadEntry { shard, route } => {
                write!(f, "read_entry({shard}) → {}, epoch {}", route.node, route.epoch)
            }
            Call::Returned => write!(f, "returned"),
        }
    }
}

/// What the current write has done so far.
#[derive(Debug, Default)]
pub(super) struct InWrite {
    pub(super) calls: Vec<Call>,
    pub(super) reads: usize,
    pub(super) stale: usize,
    pub(super) landed: bool,
}

/// The first thing found wrong, per invariant (determinism compares logs):
/// what, and the position in the write's calls of the call that did it.
#[derive(Debug, Default)]
pub(super) struct Problems {
    pub(super) lost: Option<(String, usize)>,
    pub(super) misroute: Option<(String, usize)>,
    pub(super) fence: Option<(String, usize)>,
}

/// The map's store and the storage nodes, as a learner's router sees them:
/// [`send`](Cluster::send), [`read_entry`](Cluster::read_entry) and
/// [`read_map`](Cluster::read_map). Only the checker makes one; it shows
/// nothing of where the shards are but through those reads.
pub struct Cluster {
    pub(super) names: Vec<String>,
    pub(super) map: ShardMap,
    /// `fence[node][shard]`: the highest epoch the node was told of.
    pub(super) fence: Vec<Vec<u64>>,
    /// `stored[node]`: (shard, key) pairs the node holds.
    pub(super) stored: Vec<BTreeSet<(usize, String)>>,
    /// Every epoch each shard has had.
    pub(super) given: Vec<Vec<u64>>,
    /// Per shard, the newest revision the router has read, or been told by a stale reply.
    pub(super) told: Vec<u64>,
    /// Per shard, the highest fence a node has answered with.
    pub(super) answered: Vec<u64>,
    /// A move that lands right after the current write's first read.
    pub(super) pending: Option<ShardMove>,
    pub(super) now: InWrite,
    pub(super) log: Vec<Call>,
    pub(super) problems: Problems,
}

impl fmt::Debug for Cluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cluster").field("nodes", &self.names).field("shards", &self.map.shards()).finish()
    }
}

impl Cluster {
    /// `shards` shards on `nodes` nodes named A, B, …, shard `s` on node
    /// `s % nodes`, the map at revision 1 (every epoch 1), every fence 0.
    pub(super) fn new(shards: usize, nodes: usize) -> Cluster {
        let names: Vec<String> = (0..nodes).map(node_name).collect();
        let map =
            ShardMap::new(shards, names.clone()).expect("the checker's traces have 2 to 26 nodes and a few shards");
        Cluster {
            fence: vec![vec![0; shards]; nodes],
            stored: vec![BTreeSet::new(); nodes],
            given: vec![vec![1]; shards],
            told: vec![1; shards],
            answered: vec![0; shards],
            names,
            map,
            pending: None,
            now: InWrite::default(),
            log: Vec::new(),
            problems: Problems::default(),
        }
    }

    /// The routes of every shard, as the map holds them now.
    pub(super) fn routes(&self) -> Vec<Route> {
        self.map.entries().into_iter().map(|e| Route { node: e.owner, epoch: e.mod_revision }).collect()
    }

    pub(super) fn index(&self, node: &str) -> Option<usize> {
        self.names.iter().position(|n| n == node)
    }

    /// A controller's move: the entry compare-and-swapped, both fences
    /// raised to the new revision, the shard's keys carried along.
    pub(super) fn apply(&mut self, m: &ShardMove) {
        let from = self.map.owner_index(m.shard).map_or(0, |i| i as usize);
        let Ok(next) = self.map.moved(m) else { return };
        let to = self.map.nodes().iter().position(|n| *n == m.to).unwrap_or(0);
        self.map = next;
        let rev = self.map.revision();
        for n in [from, to] {
            let f = &mut self.fence[n][m.shard];
            *f = (*f).max(rev);
        }
        self.given[m.shard].push(rev);
        let moving: Vec<(usize, String)> = self.stored[from].iter().filter(|(s, _)| *s == m.shard).cloned().collect();
        for k in moving {
            self.stored[from].remove(&k);
            self.stored[to].insert(k);
        }
    }

    /// Stop the learner's function (the checker catches it and reports the
    /// message) after [`MAX_CALLS_PER_WRITE`] calls for one write.
    pub(super) fn count_call(&self) {
        if self.now.calls.len() >= MAX_CALLS_PER_WRITE {
            panic!(
                "{MAX_CALLS_PER_WRITE} calls for one write and still going: the cluster stopped your router \
                 (does it refresh its route before each retry?)"
            );
        }
    }

    pub(super) fn check_shard(&self, shard: usize) {
        if shard >= self.map.shards() {
            panic!("there is no shard {shard}: the shards are 0 to {}", self.map.shards() - 1);
        }
    }

    /// Write `key` of shard `shard` to node `node`, carrying `epoch`: the
    /// node stores it unless `epoch` is below its fence for the shard, and
    /// then answers [`NodeReply::Stale`]. (An unknown node or shard, or more
    /// than [`MAX_CALLS_PER_WRITE`] calls for one write, stops the
    /// learner's function: the checker reports it.)
    pub fn send(&mut self, node: &str, shard: usize, epoch: u64, key: &str) -> NodeReply {
        self.count_call();
        self.check_shard(shard);
        let Some(n) = self.index(node) else {
            panic!("there is no node {node:?}: the nodes are {}", self.names.join(", "));
        };
        let here = self.now.calls.len();
        if self.problems.fence.is_none() {
            if epoch < self.answered[shard] {
                self.problems.fence = Some((
                    format!(
                    "a request for shard {shard} carries epoch {epoch}, below the fence {} a node already answered \
                     with: after a stale reply, refresh the route before you retry",
                    self.answered[shard]
                ),
                    here,
                ));
            } else if !self.given[shard].contains(&epoch) {
                self.problems.fence = Some((
                    format!(
                        "epoch {epoch} was never shard {shard}'s (it has had {}): a fencing token comes from the map, \
                     never made up",
                        list(&self.given[shard])
                    ),
                    here,
                ));
            }
        }
        let fence = self.fence[n][shard];
        let reply = if epoch < fence {
            NodeReply::Stale { epoch, fence }
        } else {
            self.stored[n].insert((shard, key.to_string()));
            NodeReply::Stored
        };
        if let NodeReply::Stale { fence, .. } = reply {
            self.now.stale += 1;
            self.answered[shard] = self.answered[shard].max(fence);
            let now = self.map.epoch(shard).unwrap_or(0);
            if now <= self.told[shard] && self.problems.misroute.is_none() {
                self.problems.misroute = Some((
                    format!(
                        "a stale reply for shard {shard} with no move your router had not read or been told of \
                     (its entry is at epoch {now} since before): a second misroute for one move"
                    ),
                    here,
                ));
            }
            self.told[shard] = self.told[shard].max(now);
        }
        self.record(Call::Send { node: node.to_string(), shard, epoch, key: key.to_string(), reply });
        reply
    }

    /// Read shard `shard`'s entry from the map's store: its owner and its
    /// mod revision (the epoch).
    pub fn read_entry(&mut self, shard: usize) -> Route {
        self.count_call();
        self.check_shard(shard);
        self.a_read("read_entry", shard);
        let e = self.map.entry(shard).expect("checked above");
        let route = Route { node: e.owner, epoch: e.mod_revision };
        self.told[shard] = self.told[shard].max(route.epoch);
        self.record(Call::ReadEntry { shard, route: route.clone() });
        self.land();
        route
    }

    /// Read the whole map from the store: one route per shard.
    pub fn read_map(&mut self) -> Vec<Route> {
        self.count_call();
        self.a_read("read_map", 0);
        let routes = self.routes();
        for (t, r) in self.told.iter_mut().zip(&routes) {
            *t = (*t).max(r.epoch);
        }
        self.record(Call::ReadMap { revision: self.map.revision() });
        self.land();
        routes
    }

    /// A read: allowed only after a stale reply not yet answered by a read.
    pub(super) fn a_read(&mut self, what: &str, shard: usize) {
        self.now.reads += 1;
        if self.now.reads > self.now.stale && self.problems.misroute.is_none() {
            let call = if what == "read_map" { "read_map()".to_string() } else { format!("read_entry({shard})") };
            let here = self.now.calls.len();
            let what = if self.now.stale == 0 {
                format!(
                    "{call} before any stale reply: a router reads the store only when a node answers that its \
                     map is stale (a read per request would cost the store as many reads as the nodes get writes)"
                )
            } else {
                format!(
                    "{call} is read number {} after {} stale replies: one read per stale reply",
                    self.now.reads, self.now.stale
                )
            };
            self.problems.misroute = Some((what, here));
        }
    }

    /// The move that lands in the middle of this write, after its first read.
    pub(super) fn land(&mut self) {
        if !self.now.landed {
            self.now.landed = true;
            if let Some(m) = self.pending.take() {
                self.apply(&m);
            }
        }
    }

    pub(super) fn record(&mut self, call: Call) {
        self.now.calls.push(call.clone());
        self.log.push(call);
    }

    /// Start a write: a move to land after its first read, if any.
    pub(super) fn begin(&mut self, mid: Option<ShardMove>) {
        self.now = InWrite::default();
        self.pending = mid;
    }

    /// The write returned: its pending move lands if no read came; then
    /// its key must be at its shard's owner.
    pub(super) fn end(&mut self, shard: usize, key: &str) {
        self.record(Call::Returned);
        self.land();
        let owner = self.map.owner_index(shard).map_or(0, |i| i as usize);
        let held = |n: usize| self.stored[n].contains(&(shard, key.to_string()));
        if !held(owner) && self.problems.lost.is_none() {
            let at: Vec<&str> = (0..self.names.len()).filter(|&n| held(n)).map(|n| self.names[n].as_str()).collect();
            let owner = &self.names[owner];
            let what = if at.is_empty() {
                format!("your function returned, so the client was told {key:?} is written, but no node stored it")
            } else {
                format!(
                    "your function returned, but {key:?} is not at {owner}, shard {shard}'s owner: it is at {}, \
                     where no reader will look",
                    at.join(", ")
                )
            };
            self.problems.lost = Some((what, self.now.calls.len().saturating_sub(1)));
        }
    }
}

/// Node `i`'s name: A, B, … Z.
pub(super) fn node_name(i: usize) -> String {
    char::from(b'A' + (i % 26) as u8).to_string()
}

pub(super) fn list(xs: &[u64]) -> String {
    xs.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}
