//! Predict 6 live: automation meets failure detection.

use super::seen::FailoverSeen;
use super::{check_live_ttl, controller_move, count_at_owners, node_key, Conns, ShardLab, NODES_PREFIX};
use crate::analysis::auto_failover::AutoFailover;
use crate::live::etcd::{EtcdClient, EventKind, Heartbeat, Lease, Watch};
use crate::live::fenced::FencedNodes;
use crate::schemes::shard_map::{ShardMap, ShardMove};
use crate::{limits, Error, Result};
use std::time::{Duration, Instant};

impl ShardLab {
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
