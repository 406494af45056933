//! Automation meets failure detection: a controller that moves a node's
//! shards away the moment the node's lease expires, and a node that was
//! only paused (DDIA 2nd ed. ch. 7, "Operations: Automatic or Manual
//! Rebalancing": automatic moves combined with failure detection can make
//! things worse; ch. 9, "Process Pauses").
//!
//! ```
//! use reshard::analysis::{AutoFailover, Expiry};
//! use reshard::schemes::ShardMap;
//! let map = ShardMap::new(12, ["A", "B", "C"])?;
//! let model = AutoFailover::new(&map, "C", 10, 2)?; // 10 keys per shard, a 2 s lease
//! let short = model.run(1.0, true, 5)?;
//! assert_eq!((short.expiry, short.shards_moved, short.acknowledged), (Expiry::Kept, Some(0), Some(5)));
//! let long = model.run(3.0, true, 5)?;
//! assert_eq!((long.expiry, long.shards_moved, long.keys_moved), (Expiry::Expired, Some(4), Some(40)));
//! assert_eq!((long.refused, long.lost, long.moved_back_on_rejoin), (Some(5), Some(0), Some(4)));
//! assert_eq!(model.run(3.0, false, 5)?.lost, Some(5));
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! **The model.** Every node holds a lease of `ttl` seconds (as granted),
//! kept alive by a heartbeat, and a key under it. Node X's heartbeat
//! pauses for `p` seconds, right after a renewal. Its lease runs out `ttl`
//! seconds after that renewal unless the heartbeat renews it first:
//!
//! * `p < ttl`: the heartbeat wakes in time; the lease and its key stay,
//!   nothing moves, and X's writes when it wakes are accepted;
//! * `p > ttl`: the lease expires; the leader deletes the key within
//!   [`LESSOR_TICK`] (0.5 s), and the
//!   controller, watching the keys, moves every shard X owned to the other
//!   nodes in turn (X's shards in order, to the others in node order):
//!   `shards_moved` shards and their keys. When X wakes it still holds the
//!   old map and writes its shards with their old epochs: with the fence
//!   on, each write is refused by X's own storage (its fence was raised
//!   when the shard left); with it off, each is acknowledged and lost;
//! * `|p − ttl| ≤` [`EXPIRY_MARGIN`]: too close to call on a busy machine
//!   (the renewal and the pause are a few milliseconds apart, the
//!   processes are scheduled late): the model does not say.
//!
//! And if X then rejoins and the controller evens the load again,
//! `⌊S / N⌋` shards move back: a pause of a few seconds moved data twice.
//! That is why DDIA suggests a human commit the plan.

use crate::analysis::leases::{check_ttl, LESSOR_TICK};
use crate::analysis::request_trace::micros;
use crate::schemes::shard_map::{ShardMap, ShardMove};
use crate::{limits, Error, Result};

/// How close (seconds) a pause may come to the TTL before the model calls
/// it too close: the renewal before the pause, the processes' scheduling
/// and the wake-up's first renewal take a few milliseconds each.
pub const EXPIRY_MARGIN: f64 = 0.1;

/// The most keys per shard the model takes.
pub const MAX_KEYS_PER_SHARD: u64 = 1_000_000_000;

/// Whether a paused node's lease expired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Expiry {
    /// The heartbeat woke before the lease ran out.
    Kept,
    /// The lease ran out: the key was deleted and the shards moved.
    Expired,
    /// The pause is within [`EXPIRY_MARGIN`] of the TTL.
    TooClose,
}

/// A node whose heartbeat pauses, and a controller that moves its shards
/// when its lease expires (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct AutoFailover {
    map: ShardMap,
    node: String,
    keys_per_shard: u64,
    ttl: u64,
}

/// What a pause came to.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FailoverRun {
    /// The node paused.
    pub node: String,
    /// The pause, seconds.
    pub pause: f64,
    /// The lease's TTL as granted, seconds.
    pub ttl: u64,
    /// Whether the lease expired.
    pub expiry: Expiry,
    /// When the key is gone, seconds after the pause began (`Expired`): TTL
    /// to TTL + 0.5.
    pub key_gone_within: Option<(f64, f64)>,
    /// Shards moved (`None`: too close to call).
    pub shards_moved: Option<u64>,
    /// Keys moved with them.
    pub keys_moved: Option<u64>,
    /// The moves the controller makes (empty unless `Expired`).
    pub moves: Vec<ShardMove>,
    /// Whether the nodes fence.
    pub fence: bool,
    /// Writes the node makes when it wakes (0 when it owns no shard).
    pub writes: u64,
    /// Of them, acknowledged.
    pub acknowledged: Option<u64>,
    /// Refused by the fence.
    pub refused: Option<u64>,
    /// Acknowledged but absent at the shard's owner now.
    pub lost: Option<u64>,
    /// Shards that move back if the node rejoins and the load is evened.
    pub moved_back_on_rejoin: Option<u64>,
}

impl AutoFailover {
    /// Node `node` of `map` pauses; every shard holds `keys_per_shard`
    /// keys; the leases are `ttl` seconds as granted. Fails on an unknown
    /// node, a map with one node (nowhere to move to), a TTL outside 1 to
    /// etcd's longest, or more than [`MAX_KEYS_PER_SHARD`] keys.
    pub fn new(map: &ShardMap, node: &str, keys_per_shard: u64, ttl: u64) -> Result<AutoFailover> {
        map.shards_of(node)?;
        if map.nodes().len() < 2 {
            return Err(Error::LastNode(node.to_string()));
        }
        check_ttl(ttl)?;
        limits::check_hint(
            "keys per shard",
            u128::from(keys_per_shard),
            u128::from(MAX_KEYS_PER_SHARD),
            "use fewer keys per shard",
        )?;
        Ok(AutoFailover { map: map.clone(), node: node.to_string(), keys_per_shard, ttl })
    }

    /// The moves the controller makes when the node's lease expires: its
    /// shards, in order, to the other nodes in turn.
    pub fn plan(&self) -> Result<Vec<ShardMove>> {
        let others: Vec<&String> = self.map.nodes().iter().filter(|n| **n != self.node).collect();
        let mine = self.map.shards_of(&self.node)?;
        Ok(mine.iter().enumerate().map(|(i, &s)| ShardMove::new(s, others[i % others.len()].clone())).collect())
    }

    /// Whether a pause of `pause` seconds expires the lease.
    pub fn expiry(&self, pause: f64) -> Result<Expiry> {
        let us = micros("pause (s)", pause, false)? as f64 / 1e6;
        let ttl = self.ttl as f64;
        Ok(if (us - ttl).abs() <= EXPIRY_MARGIN {
            Expiry::TooClose
        } else if us < ttl {
            Expiry::Kept
        } else {
            Expiry::Expired
        })
    }

    /// A pause of `pause` seconds (0 to a day), the nodes fencing or not,
    /// and `writes` writes by the node when it wakes (to its old shards).
    pub fn run(&self, pause: f64, fence: bool, writes: u64) -> Result<FailoverRun> {
        let expiry = self.expiry(pause)?;
        limits::check_hint(
            "writes",
            u128::from(writes),
            crate::analysis::request_trace::MAX_TRACE_REQUESTS as u128,
            "use fewer writes",
        )?;
        // a node that owns no shard has none to write when it wakes
        let writes = if self.map.shards_of(&self.node)?.is_empty() { 0 } else { writes };
        let mut run = FailoverRun {
            node: self.node.clone(),
            pause,
            ttl: self.ttl,
            expiry,
            key_gone_within: None,
            shards_moved: None,
            keys_moved: None,
            moves: Vec::new(),
            fence,
            writes,
            acknowledged: None,
            refused: None,
            lost: None,
            moved_back_on_rejoin: None,
        };
        match expiry {
            Expiry::TooClose => {}
            Expiry::Kept => {
                run.shards_moved = Some(0);
                run.keys_moved = Some(0);
                run.acknowledged = Some(writes);
                run.refused = Some(0);
                run.lost = Some(0);
                run.moved_back_on_rejoin = Some(0);
            }
            Expiry::Expired => {
                run.moves = self.plan()?;
                let shards = run.moves.len() as u64;
                run.key_gone_within = Some((self.ttl as f64, self.ttl as f64 + LESSOR_TICK));
                run.shards_moved = Some(shards);
                run.keys_moved = Some(shards.saturating_mul(self.keys_per_shard));
                let (acked, refused, lost) = if fence { (0, writes, 0) } else { (writes, 0, writes) };
                run.acknowledged = Some(acked);
                run.refused = Some(refused);
                run.lost = Some(lost);
                run.moved_back_on_rejoin = Some((self.map.shards() / self.map.nodes().len()) as u64);
            }
        }
        Ok(run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_spreads_the_shards_in_turn() {
        let map = ShardMap::new(12, ["A", "B", "C", "D"]).unwrap();
        let m = AutoFailover::new(&map, "B", 1, 2).unwrap();
        let plan: Vec<(usize, String)> = m.plan().unwrap().into_iter().map(|m| (m.shard, m.to)).collect();
        assert_eq!(plan, [(1, "A".into()), (5, "C".into()), (9, "D".into())]);
        assert_eq!(m.expiry(2.05).unwrap(), Expiry::TooClose);
        assert_eq!(m.expiry(1.85).unwrap(), Expiry::Kept);
        assert!(m.expiry(f64::NAN).is_err() && m.expiry(-1.0).is_err());
        assert!(AutoFailover::new(&map, "Z", 1, 2).is_err() && AutoFailover::new(&map, "A", 1, 0).is_err());
        let one = ShardMap::new(3, ["A"]).unwrap();
        assert_eq!(AutoFailover::new(&one, "A", 1, 2).unwrap_err(), Error::LastNode("A".into()));
        // D owns nothing of 3 shards over 4 nodes: nothing moves, it has nothing to write
        let idle = AutoFailover::new(&ShardMap::new(3, ["A", "B", "C", "D"]).unwrap(), "D", 5, 2).unwrap();
        let r = idle.run(3.0, false, 7).unwrap();
        assert_eq!((r.shards_moved, r.writes, r.acknowledged, r.lost), (Some(0), 0, Some(0), Some(0)));
    }
}
