//! What a [`RedisCluster`] holds: keys written routed by the crate
//! ([`RedisCluster::load`]), the cluster read back slot by slot
//! ([`RedisCluster::snapshot`]), and sampled keys asked of the node the
//! crate names ([`RedisCluster::sample`]). Observations only: the
//! tutor (`Checks`) sets the crate's predictions beside them.

use crate::analysis::Movement;
use crate::keys::KeySet;
use crate::live::client::Reply;
use crate::live::cluster::RedisCluster;
use crate::live::ports::check_live_keys;
use crate::schemes::slots::{key_slot, Slots, SLOT_COUNT};
use crate::schemes::{NodeId, Placement};
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::time::Instant;

/// What loading a key set did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Loaded {
    /// Keys written.
    pub keys: u64,
    /// Writes answered `+OK`.
    pub ok: u64,
    /// Writes answered `-MOVED` or `-ASK`: sent to a node the crate
    /// wrongly thought served the key's slot.
    pub redirected: u64,
    /// Other error replies.
    pub errors: u64,
    /// Keys sent to each node (in the cluster's node order).
    pub per_node: Vec<(String, u64)>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// The cluster at one moment, read from the servers: who serves each slot
/// and how many keys each slot and each node holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub(crate) slots: Slots,
    pub(crate) keys_per_slot: Vec<u64>,
    pub(crate) keys_per_node: Vec<u64>,
}

impl Snapshot {
    /// The slot table, nodes in the cluster's (start) order.
    pub fn slots(&self) -> &Slots {
        &self.slots
    }

    /// `CLUSTER COUNTKEYSINSLOT` for every slot, asked of its node.
    pub fn keys_per_slot(&self) -> &[u64] {
        &self.keys_per_slot
    }

    /// `DBSIZE` of every node, in `slots().nodes()` order.
    pub fn keys_per_node(&self) -> &[u64] {
        &self.keys_per_node
    }

    /// The keys in all slots.
    pub fn keys(&self) -> u64 {
        self.keys_per_slot.iter().sum()
    }

    /// What moved between this snapshot and `later`, as observed: every
    /// key of a slot whose node changed moved with it (counted in `later`).
    pub fn movement_to(&self, later: &Snapshot) -> Result<Movement> {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for s in 0..SLOT_COUNT {
            let n = later.keys_per_slot[s] as usize;
            a.extend(std::iter::repeat_n(self.slots.table()[s], n));
            b.extend(std::iter::repeat_n(later.slots.table()[s], n));
        }
        Movement::from_assignments(self.slots.nodes(), &a, later.slots.nodes(), &b)
    }
}

/// One sampled key, as the servers answered for it
/// ([`RedisCluster::sample`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Sampled {
    /// The key, e.g. `"user:97"` (bytes escaped with [`crate::keys::escape`]).
    pub key: String,
    /// The node it was sent to: the one the crate predicts.
    pub asked: String,
    /// The slot `CLUSTER KEYSLOT` reported (`None`: not an integer reply).
    pub slot: Option<u16>,
    /// The node that answered `GET` with the value written: `asked`, or
    /// a redirect with node names (`"MOVED 866 D"`), or `asked` with what
    /// else it said.
    pub answered_by: String,
}

impl RedisCluster {
    /// Write every key of `keys` (value: its number, `user:7` → `"7"`),
    /// routed by the crate: each key goes to the node that
    /// [`slots`](RedisCluster::slots) says serves its slot, as pipelined
    /// `SET`s over one connection per node, all nodes at once. A wrong
    /// route would come back as a `MOVED` error, counted in
    /// [`Loaded::redirected`].
    ///
    /// Every key keeps its bytes (a [`KeySet`] from your own keys may hold
    /// any). Refused before anything is sent, with [`Error::TooLarge`], when
    /// `keys` holds more than [`MAX_LIVE_KEYS`](crate::live::MAX_LIVE_KEYS) keys or its bytes are over
    /// [`Limits::max_key_bytes`](crate::limits::Limits::max_key_bytes).
    pub fn load(&self, keys: &KeySet) -> Result<Loaded> {
        check_live_keys(keys.len())?;
        let bytes = keys.key_bytes()?;
        let slots = self.slots()?;
        let t0 = Instant::now();
        let mut by_node: Vec<Vec<usize>> = vec![Vec::new(); slots.nodes().len()];
        for i in 0..keys.len() {
            by_node[slots.table()[usize::from(key_slot(bytes.get(i)))] as usize].push(i);
        }
        let bytes = &bytes;
        let results: Vec<Result<(u64, u64, u64)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = by_node
                .iter()
                .enumerate()
                .map(|(n, idx)| {
                    let conn = self.conn(&slots.nodes()[n]);
                    scope.spawn(move || -> Result<(u64, u64, u64)> {
                        let mut conn = conn?;
                        let (mut ok, mut redirected, mut errors) = (0, 0, 0);
                        let commands =
                            idx.iter().map(|&i| [b"SET".to_vec(), bytes.get(i).to_vec(), i.to_string().into_bytes()]);
                        conn.pipeline(commands, |r| match r {
                            Reply::Status(_) => ok += 1,
                            Reply::Error(e) if e.starts_with("MOVED") || e.starts_with("ASK") => redirected += 1,
                            _ => errors += 1,
                        })?;
                        Ok((ok, redirected, errors))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or(Err(Error::ThreadPanicked { task: "loading keys into a node" })))
                .collect()
        });
        let mut loaded =
            Loaded { keys: keys.len() as u64, ok: 0, redirected: 0, errors: 0, per_node: Vec::new(), seconds: 0.0 };
        for (n, r) in results.into_iter().enumerate() {
            let (ok, redirected, errors) = r?;
            loaded.ok += ok;
            loaded.redirected += redirected;
            loaded.errors += errors;
            loaded.per_node.push((slots.nodes()[n].clone(), by_node[n].len() as u64));
        }
        loaded.seconds = t0.elapsed().as_secs_f64();
        let order = self.names();
        loaded.per_node.sort_by_key(|(n, _)| order.iter().position(|m| m == n));
        Ok(loaded)
    }

    /// Read the cluster: slot table (nodes in start order),
    /// `CLUSTER COUNTKEYSINSLOT` of every slot at its node, `DBSIZE` of
    /// every node. Waits for the nodes to agree first.
    pub fn snapshot(&self) -> Result<Snapshot> {
        self.wait_agreed()?;
        let slots = self.slots()?.ordered_as(self.names())?;
        let mut keys_per_slot = vec![0u64; SLOT_COUNT];
        let mut keys_per_node = Vec::new();
        for (n, name) in slots.nodes().iter().enumerate() {
            let own: Vec<usize> = (0..SLOT_COUNT).filter(|&x| slots.table()[x] == n as NodeId).collect();
            let mut conn = self.conn(name)?;
            let mut counts = Vec::with_capacity(own.len());
            let commands = own.iter().map(|x| ["CLUSTER".to_string(), "COUNTKEYSINSLOT".to_string(), x.to_string()]);
            conn.pipeline(commands, |r| counts.push(r))?;
            let port = self.port(name)?;
            for (&x, r) in own.iter().zip(counts) {
                keys_per_slot[x] = r.integer_from(name, port, "CLUSTER COUNTKEYSINSLOT")? as u64;
            }
            keys_per_node.push(conn.call(&["DBSIZE"])?.integer_from(name, port, "DBSIZE")? as u64);
        }
        Ok(Snapshot { slots, keys_per_slot, keys_per_node })
    }

    /// Ask a sample of keys (every `step`-th of `keys`, written by
    /// [`load`](RedisCluster::load)) of the node `predicted` names for each:
    /// the slot Redis computes (`CLUSTER KEYSLOT`) and who answers `GET`.
    /// What the servers said, key by key; the crate's own answers are set
    /// beside them by the tutor's `Check::placements`.
    ///
    /// Each key is sent with its bytes as they are; [`Sampled::key`] shows
    /// it with [`crate::keys::escape`]'s escapes. Refused at once, like
    /// [`load`](RedisCluster::load), for more than [`MAX_LIVE_KEYS`](crate::live::MAX_LIVE_KEYS) keys.
    pub fn sample(&self, keys: &KeySet, step: usize, predicted: &Slots) -> Result<Vec<Sampled>> {
        check_live_keys(keys.len())?;
        let bytes = keys.key_bytes()?;
        let step = step.max(1);
        let mut by_node: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for i in (0..keys.len()).step_by(step) {
            let slot = usize::from(key_slot(bytes.get(i)));
            by_node.entry(predicted.nodes()[predicted.table()[slot] as usize].as_str()).or_default().push(i);
        }
        let mut out: Vec<(usize, Sampled)> = Vec::new();
        for (node, idx) in &by_node {
            let mut conn = self.conn(node)?;
            let mut replies = Vec::new();
            let commands = idx.iter().flat_map(|&i| {
                let k = bytes.get(i).to_vec();
                [vec![b"CLUSTER".to_vec(), b"KEYSLOT".to_vec(), k.clone()], vec![b"GET".to_vec(), k]]
            });
            conn.pipeline(commands, |r| replies.push(r))?;
            for (&i, pair) in idx.iter().zip(replies.chunks(2)) {
                let slot = match &pair[0] {
                    Reply::Integer(s) => u16::try_from(*s).ok(),
                    _ => None,
                };
                let answered_by = match &pair[1] {
                    Reply::Bulk(Some(v)) if *v == i.to_string().into_bytes() => node.to_string(),
                    Reply::Bulk(_) => format!("{node} (another value)"),
                    Reply::Error(e) => self.named_text(e),
                    other => format!("{node} ({})", other.text()),
                };
                out.push((
                    i,
                    Sampled { key: keys.get(i).unwrap_or_default(), asked: node.to_string(), slot, answered_by },
                ));
            }
        }
        out.sort_by_key(|(i, _)| *i);
        Ok(out.into_iter().map(|(_, s)| s).collect())
    }
}
