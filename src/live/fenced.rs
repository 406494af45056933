//! Fenced storage nodes: standalone `redis-server`s that refuse a write
//! whose epoch (fencing token) is below the shard's fence, as MongoDB's
//! shards answer `StaleConfig` and TiKV's regions `EpochNotMatch` (DDIA 2nd
//! ed. ch. 9, "Fencing tokens").
//!
//! Each node keeps, per shard, the highest epoch it was told of (its
//! **fence**, in the hash `reshard:fence`), and a Lua script does the
//! write: if the request's epoch is below the fence, it counts a stale
//! reply (in the hash `reshard:stale`, per shard) and answers `STALE epoch
//! 5 < 9`, leaving the value as it was; otherwise it stores the value.
//! Epochs are compared as whole numbers of any size (as decimal strings,
//! so no 2^53 limit). A controller that moves a shard raises its fence, at
//! the node it leaves and the node it goes to, to the move's revision in
//! etcd. A write with [`write_unfenced`](FencedNodes::write_unfenced) is
//! a plain `SET`: the fence off.
//!
//! A shard's key `k` is stored as `s{shard}:k`, so a shard's keys can be
//! listed and moved together ([`move_shard`](FencedNodes::move_shard)).
//! Every byte of a key and of a value is kept.
//!
//! ```
//! use reshard::live::{redis_version, Fenced, FencedNodes};
//! # if redis_version().is_err() { return Ok(()); } // not installed here
//! let nodes = FencedNodes::start(["A", "B"])?;
//! assert_eq!(nodes.write("A", 7, 5, b"user:1", b"v1")?, Fenced::Ok);
//! nodes.raise_fence("A", 7, 9)?; // shard 7 moved at revision 9
//! assert_eq!(nodes.write("A", 7, 5, b"user:1", b"v2")?, Fenced::Stale { epoch: 5, fence: 9 });
//! assert_eq!(nodes.get("A", 7, b"user:1")?.as_deref(), Some(&b"v1"[..])); // unchanged
//! assert_eq!(nodes.stale_replies("A")?, 1);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::live::client::{Conn, Reply, REPLY_WITHIN};
use crate::live::ports::{check_servers, PortLease};
use crate::live::process::{find_program, new_dir, Supervised, HOST, PROBE_WITHIN};
use crate::{limits, Error, Result};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The hash that holds each shard's fence.
pub const FENCE_KEY: &str = "reshard:fence";

/// The hash that counts each shard's stale replies.
pub const STALE_KEY: &str = "reshard:stale";

/// The longest key or value a fenced node takes, bytes.
pub const MAX_BYTES: usize = 1 << 20;

/// The write: `KEYS` the data key, the fence hash, the stale counter;
/// `ARGV` the shard, the epoch (decimal, no leading zeros), the value.
const WRITE: &str = r#"
local function below(a, b)
  if #a ~= #b then return #a < #b end
  return a < b
end
local fence = redis.call('HGET', KEYS[2], ARGV[1]) or '0'
if below(ARGV[2], fence) then
  redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
  return redis.error_reply('STALE epoch ' .. ARGV[2] .. ' < ' .. fence)
end
redis.call('SET', KEYS[1], ARGV[3])
return redis.status_reply('OK')
"#;

/// Raise a fence: `KEYS` the fence hash; `ARGV` the shard, the epoch. The
/// fence becomes the larger of the two; the answer is the fence now.
const RAISE: &str = r#"
local function below(a, b)
  if #a ~= #b then return #a < #b end
  return a < b
end
local fence = redis.call('HGET', KEYS[1], ARGV[1]) or '0'
if below(fence, ARGV[2]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  fence = ARGV[2]
end
return fence
"#;

/// What a fenced node answered a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fenced {
    /// Stored.
    Ok,
    /// Refused: the write's epoch is below the shard's fence.
    Stale {
        /// The write's epoch.
        epoch: u64,
        /// The shard's fence.
        fence: u64,
    },
}

impl Fenced {
    /// True when stored.
    pub fn is_ok(&self) -> bool {
        matches!(self, Fenced::Ok)
    }
}

struct Node {
    name: String,
    lease: PortLease,
    server: Supervised,
    write_sha: String,
    raise_sha: String,
}

/// Standalone `redis-server`s with a fence (see the [module docs](self));
/// stopped, with their directories, when dropped.
pub struct FencedNodes {
    nodes: Vec<Node>,
    reply_within: Duration,
}

impl std::fmt::Debug for FencedNodes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.nodes.iter().map(|n| (&n.name, n.lease.port()))).finish()
    }
}

impl Drop for FencedNodes {
    fn drop(&mut self) {
        for n in &mut self.nodes {
            n.server.release();
        }
        self.nodes.clear();
    }
}

/// `Ok` for a node name of 1 to 64 `A–Z a–z 0–9 _ - .`.
fn check_name(name: &str) -> Result<()> {
    let ok = (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(Error::BadBackendName { name: name.to_string() })
    }
}

/// The key a node stores shard `shard`'s key `key` under: `s{shard}:key`.
pub fn data_key(shard: usize, key: &[u8]) -> Vec<u8> {
    let mut k = format!("s{shard}:").into_bytes();
    k.extend_from_slice(key);
    k
}

fn check_bytes(what: &'static str, b: &[u8]) -> Result<()> {
    limits::check_hint(what, b.len() as u128, MAX_BYTES as u128, "use a shorter one")
}

impl FencedNodes {
    /// One `redis-server` per name (1 to 64 letters, digits, `_ - .`;
    /// distinct; at most [`MAX_SERVERS`](crate::live::MAX_SERVERS)), the
    /// fence scripts loaded.
    pub fn start<I, S>(names: I) -> Result<FencedNodes>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let names = check_servers(names)?;
        if names.is_empty() {
            return Err(Error::NoNodes);
        }
        for (i, n) in names.iter().enumerate() {
            check_name(n)?;
            if names[..i].contains(n) {
                return Err(Error::DuplicateNode(n.clone()));
            }
        }
        let redis = find_program("redis-server")?;
        let mut nodes = FencedNodes { nodes: Vec::new(), reply_within: REPLY_WITHIN };
        for n in names {
            let node = start_node(&n, &redis)?;
            nodes.nodes.push(node);
        }
        for n in &mut nodes.nodes {
            let mut c = Conn::open_within(&n.name, n.lease.port(), REPLY_WITHIN)?;
            n.write_sha = c.call(&["SCRIPT", "LOAD", WRITE])?.text();
            n.raise_sha = c.call(&["SCRIPT", "LOAD", RAISE])?.text();
        }
        Ok(nodes)
    }

    fn node(&self, name: &str) -> Result<&Node> {
        self.nodes.iter().find(|n| n.name == name).ok_or_else(|| Error::UnknownNode(name.to_string()))
    }

    /// The nodes' names, in the order started.
    pub fn names(&self) -> Vec<String> {
        self.nodes.iter().map(|n| n.name.clone()).collect()
    }

    /// Node `name`'s port on 127.0.0.1.
    pub fn port(&self, name: &str) -> Result<u16> {
        Ok(self.node(name)?.lease.port())
    }

    /// Every process (one `redis-server` per node) and its directory.
    pub fn footprint(&self) -> Vec<(u32, PathBuf)> {
        self.nodes.iter().map(|n| (n.server.pid(), n.server.dir().to_path_buf())).collect()
    }

    pub(crate) fn conn(&self, name: &str) -> Result<NodeConn> {
        let n = self.node(name)?;
        Ok(NodeConn {
            conn: Conn::open_within(&n.name, n.lease.port(), self.reply_within)?,
            write_sha: n.write_sha.clone(),
            raise_sha: n.raise_sha.clone(),
            name: n.name.clone(),
            port: n.lease.port(),
        })
    }

    /// Write `value` at shard `shard`'s key `key` on node `node`, carrying
    /// `epoch`: stored, or refused as stale.
    pub fn write(&self, node: &str, shard: usize, epoch: u64, key: &[u8], value: &[u8]) -> Result<Fenced> {
        self.conn(node)?.write(shard, epoch, key, value)
    }

    /// Write with the fence off: a plain `SET`, whatever the epoch.
    pub fn write_unfenced(&self, node: &str, shard: usize, key: &[u8], value: &[u8]) -> Result<()> {
        self.conn(node)?.write_unfenced(shard, key, value)
    }

    /// Raise shard `shard`'s fence on node `node` to `epoch` (never
    /// lowers it); the fence now.
    pub fn raise_fence(&self, node: &str, shard: usize, epoch: u64) -> Result<u64> {
        self.conn(node)?.raise_fence(shard, epoch)
    }

    /// Shard `shard`'s fence on node `node` (0: none).
    pub fn fence(&self, node: &str, shard: usize) -> Result<u64> {
        let mut c = self.conn(node)?;
        let s = shard.to_string();
        let r = c.conn.call(&["HGET", FENCE_KEY, &s])?;
        number(&r, &c.name, c.port, "HGET reshard:fence")
    }

    /// The value of shard `shard`'s key `key` on node `node`.
    pub fn get(&self, node: &str, shard: usize, key: &[u8]) -> Result<Option<Vec<u8>>> {
        check_bytes("bytes in a key", key)?;
        let mut c = self.conn(node)?;
        match c.conn.call(&[&b"GET"[..], &data_key(shard, key)])? {
            Reply::Bulk(v) => Ok(v),
            other => Err(Error::UnexpectedReply {
                node: c.name,
                port: c.port,
                doing: "GET".into(),
                got: format!("{other:?}"),
            }),
        }
    }

    /// Stale replies node `node` gave, all shards together.
    pub fn stale_replies(&self, node: &str) -> Result<u64> {
        Ok(self.stale_by_shard(node)?.values().sum())
    }

    /// Stale replies node `node` gave, per shard (shards with none left out).
    pub fn stale_by_shard(&self, node: &str) -> Result<BTreeMap<usize, u64>> {
        self.conn(node)?.stale_by_shard()
    }

    /// The keys of shard `shard` on node `node`, sorted.
    pub fn keys(&self, node: &str, shard: usize) -> Result<Vec<Vec<u8>>> {
        self.conn(node)?.shard_keys(shard)
    }

    /// Move every key of shard `shard` from node `from` to node `to` (copy,
    /// then delete at `from`); how many.
    pub fn move_shard(&self, shard: usize, from: &str, to: &str) -> Result<u64> {
        if from == to {
            return Err(Error::SameNode(from.to_string()));
        }
        let (mut a, mut b) = (self.conn(from)?, self.conn(to)?);
        move_keys(&mut a, &mut b, shard)
    }

    /// Empty every node: data, fences and stale counts.
    pub fn flush(&self) -> Result<()> {
        for n in &self.nodes {
            self.conn(&n.name)?.conn.call(&["FLUSHALL"])?;
        }
        Ok(())
    }
}

/// A connection to one fenced node (for a router making many writes).
pub(crate) struct NodeConn {
    conn: Conn,
    write_sha: String,
    raise_sha: String,
    pub(crate) name: String,
    port: u16,
}

fn number(r: &Reply, node: &str, port: u16, doing: &str) -> Result<u64> {
    match r {
        Reply::Bulk(None) => Some(0),
        Reply::Bulk(Some(b)) => std::str::from_utf8(b).ok().and_then(|t| t.parse().ok()),
        Reply::Integer(i) => u64::try_from(*i).ok(),
        _ => None,
    }
    .map_or_else(
        || Err(Error::UnexpectedReply { node: node.into(), port, doing: doing.into(), got: format!("{r:?}") }),
        Ok,
    )
}

impl NodeConn {
    pub(crate) fn write(&mut self, shard: usize, epoch: u64, key: &[u8], value: &[u8]) -> Result<Fenced> {
        check_bytes("bytes in a key", key)?;
        check_bytes("bytes in a value", value)?;
        let (s, e) = (shard.to_string(), epoch.to_string());
        let args: [&[u8]; 9] = [
            b"EVALSHA",
            self.write_sha.as_bytes(),
            b"3",
            &data_key(shard, key),
            FENCE_KEY.as_bytes(),
            STALE_KEY.as_bytes(),
            s.as_bytes(),
            e.as_bytes(),
            value,
        ];
        match self.conn.call(&args)? {
            Reply::Status(s) if s == "OK" => Ok(Fenced::Ok),
            Reply::Error(text) if text.starts_with("STALE ") => {
                // "STALE epoch 5 < 9"
                let fence = text.rsplit(' ').next().and_then(|f| f.parse().ok());
                match fence {
                    Some(fence) => Ok(Fenced::Stale { epoch, fence }),
                    None => Err(self.unexpected("EVALSHA (a fenced write)", &text)),
                }
            }
            Reply::Error(text) => Err(Error::ServerRefused {
                node: self.name.clone(),
                port: self.port,
                doing: "a fenced write".into(),
                message: text,
            }),
            other => Err(self.unexpected("EVALSHA (a fenced write)", &format!("{other:?}"))),
        }
    }

    pub(crate) fn write_unfenced(&mut self, shard: usize, key: &[u8], value: &[u8]) -> Result<()> {
        check_bytes("bytes in a key", key)?;
        check_bytes("bytes in a value", value)?;
        match self.conn.call(&[&b"SET"[..], &data_key(shard, key), value])? {
            Reply::Status(s) if s == "OK" => Ok(()),
            other => Err(self.unexpected("SET", &format!("{other:?}"))),
        }
    }

    pub(crate) fn raise_fence(&mut self, shard: usize, epoch: u64) -> Result<u64> {
        let (s, e) = (shard.to_string(), epoch.to_string());
        let r = self.conn.call(&["EVALSHA", &self.raise_sha.clone(), "1", FENCE_KEY, &s, &e])?;
        number(&r, &self.name, self.port, "EVALSHA (raise a fence)")
    }

    pub(crate) fn stale_by_shard(&mut self) -> Result<BTreeMap<usize, u64>> {
        let r = self.conn.call(&["HGETALL", STALE_KEY])?;
        let Reply::Array(Some(items)) = r else {
            return Err(self.unexpected("HGETALL reshard:stale", &format!("{r:?}")));
        };
        let mut out = BTreeMap::new();
        for pair in items.chunks(2) {
            let shard = pair[0]
                .text()
                .parse::<usize>()
                .map_err(|_| self.unexpected("HGETALL reshard:stale", &pair[0].text()))?;
            out.insert(shard, number(&pair[1], &self.name, self.port, "HGETALL reshard:stale")?);
        }
        Ok(out)
    }

    pub(crate) fn get(&mut self, shard: usize, key: &[u8]) -> Result<Option<Vec<u8>>> {
        match self.conn.call(&[&b"GET"[..], &data_key(shard, key)])? {
            Reply::Bulk(v) => Ok(v),
            other => Err(self.unexpected("GET", &format!("{other:?}"))),
        }
    }

    /// The data keys (`s{shard}:…`) of one shard, whole.
    fn scan(&mut self, shard: usize) -> Result<Vec<Vec<u8>>> {
        let pattern = format!("s{shard}:*");
        let mut cursor = "0".to_string();
        let mut out = Vec::new();
        loop {
            let r = self.conn.call(&["SCAN", &cursor, "MATCH", &pattern, "COUNT", "1000"])?;
            let Reply::Array(Some(parts)) = &r else {
                return Err(self.unexpected("SCAN", &format!("{r:?}")));
            };
            let (Some(next), Some(Reply::Array(Some(keys)))) = (parts.first(), parts.get(1)) else {
                return Err(self.unexpected("SCAN", &format!("{r:?}")));
            };
            for k in keys {
                if let Reply::Bulk(Some(b)) = k {
                    out.push(b.clone());
                }
            }
            cursor = next.text();
            if cursor == "0" {
                break;
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    pub(crate) fn shard_keys(&mut self, shard: usize) -> Result<Vec<Vec<u8>>> {
        let cut = format!("s{shard}:").len();
        Ok(self.scan(shard)?.into_iter().map(|k| k[cut..].to_vec()).collect())
    }

    fn unexpected(&self, doing: &str, got: &str) -> Error {
        Error::UnexpectedReply {
            node: self.name.clone(),
            port: self.port,
            doing: doing.to_string(),
            got: got.chars().take(200).collect(),
        }
    }
}

/// Copy shard `shard`'s keys from `a` to `b`, then delete them at `a`.
pub(crate) fn move_keys(a: &mut NodeConn, b: &mut NodeConn, shard: usize) -> Result<u64> {
    let keys = a.scan(shard)?;
    if keys.is_empty() {
        return Ok(0);
    }
    let mut values = Vec::with_capacity(keys.len());
    a.conn.pipeline(keys.iter().map(|k| [&b"GET"[..], k.as_slice()]), |r| values.push(r))?;
    let mut sets = Vec::with_capacity(keys.len());
    for (k, v) in keys.iter().zip(&values) {
        if let Reply::Bulk(Some(v)) = v {
            sets.push([b"SET".to_vec(), k.clone(), v.clone()]);
        }
    }
    let mut bad = None;
    b.conn.pipeline(sets.iter(), |r| {
        if r.is_error() {
            bad.get_or_insert(r.text());
        }
    })?;
    if let Some(text) = bad {
        return Err(Error::ServerRefused {
            node: b.name.clone(),
            port: b.port,
            doing: "SET (moving a shard's keys)".into(),
            message: text,
        });
    }
    a.conn.pipeline(keys.iter().map(|k| [&b"DEL"[..], k.as_slice()]), |_| {})?;
    Ok(sets.len() as u64)
}

fn start_node(name: &str, redis: &Path) -> Result<Node> {
    let mut last = None;
    for _ in 0..8 {
        let lease = PortLease::take()?;
        let port = lease.port();
        let dir = new_dir("fenced")?;
        let log = dir.join("redis.log");
        let mut args: Vec<OsString> = ["--port", &port.to_string(), "--bind", HOST, "--save", "", "--appendonly", "no"]
            .iter()
            .chain(&["--daemonize", "no", "--protected-mode", "yes"])
            .map(OsString::from)
            .collect();
        args.extend(["--dir".into(), dir.clone().into(), "--logfile".into(), log.clone().into()]);
        let server = Supervised::start(name, redis, &args, dir)?;
        let ping = || Conn::open_within(name, port, PROBE_WITHIN).and_then(|mut c| c.call(&["PING"]));
        match server.wait_ready(port, Some(&log), || matches!(ping(), Ok(Reply::Status(s)) if s == "PONG")) {
            Ok(()) => {
                return Ok(Node {
                    name: name.to_string(),
                    lease,
                    server,
                    write_sha: String::new(),
                    raise_sha: String::new(),
                })
            }
            Err(e) if e.to_string().contains("Address already in use") => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| Error::NoFreePort { node: name.to_string(), tries: 8 }))
}
