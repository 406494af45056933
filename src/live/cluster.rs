//! A local Redis Cluster the crate starts, grows, shrinks and stops.
//!
//! [`RedisCluster::start`] starts one `redis-server` per master in cluster
//! mode on free ports of 127.0.0.1 (`--bind 127.0.0.1`, `--appendonly no`,
//! `--save ""`, each in its own temporary directory) and forms the cluster
//! with `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes`.
//! [`add_node`](RedisCluster::add_node), [`rebalance`](RedisCluster::rebalance),
//! [`reshard`](RedisCluster::reshard) and [`del_node`](RedisCluster::del_node)
//! run the matching `redis-cli --cluster` subcommands, so what happens is
//! what an operator would get; the crate predicts it beforehand with
//! [`Slots::rebalance`] and [`Slots::reshard_from`].
//!
//! **No stray servers.** Every server, and every `redis-cli` run, runs
//! under the watchdog of [`live::process`](crate::live::process): when the
//! cluster is dropped, or this process dies in any way — a failed cell, a
//! panic, a kernel restart, `kill -9` — each is stopped and its directory
//! removed. `Drop` waits for them, so when a `RedisCluster` is gone, its
//! servers and directories are gone.
//!
//! **Errors name the node.** A node that refuses, closes, or has exited is
//! [`Error::ServerFailed`]; one that does not answer in time (stopped with
//! SIGSTOP, overloaded) is [`Error::ServerTimeout`]; both name the node and
//! its port. Every wait has a limit, stated in its message: a reply
//! [`REPLY_WITHIN`] (10 s; [`set_reply_timeout`](RedisCluster::set_reply_timeout)
//! changes it), the nodes agreeing [`AGREE_WITHIN`] (60 s), a `redis-cli`
//! run [`CLI_WITHIN`](crate::live::cli::CLI_WITHIN) (300 s), a start 15 s.
//!
//! The crate talks to the servers itself ([`live::client`](crate::live::client));
//! `redis-cli` is used only for the `--cluster` subcommands.
//!
//! Where `redis-server` or `redis-cli` is missing, every constructor
//! returns [`Error::ProgramMissing`], whose message says how to install them.
//!
//! ```no_run
//! use reshard::live::RedisCluster;
//! use reshard::tutor::Checks;
//! use reshard::{HashWidth, KeySet, Movement};
//! let keys = KeySet::users(100_000);
//! let hashed = keys.hashed(HashWidth::Bits32)?;
//! let mut cluster = RedisCluster::start(["A", "B", "C"])?;
//! cluster.load(&keys)?;
//! let before = cluster.snapshot()?;
//! cluster.add_node("D")?;                        // joins with no slots
//! let plan = cluster.slots()?.rebalance(true)?;  // redis-cli's plan, before it runs
//! cluster.rebalance(100)?;                       // redis-cli --cluster rebalance
//! let after = cluster.snapshot()?;
//! let predicted = Movement::measure(&hashed, before.slots(), &plan.after().ordered_as(cluster.names())?)?;
//! let checks = Checks::movements("3 → 4", &predicted, &before.movement_to(&after)?);
//! assert!(checks.all_match(), "{}", checks.table());
//! # Ok::<(), reshard::Error>(())
//! ```

pub use crate::live::client::REPLY_WITHIN;
use crate::live::client::{Conn, Reply};
use crate::live::ports::{check_servers, PortLease};
use crate::live::process::{find_program, new_dir, version_text, Supervised, HOST, PROBE_WITHIN};
use crate::schemes::slots::{Slots, SLOT_COUNT};
use crate::schemes::NodeId;
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long the nodes may take to agree on the cluster (state ok, every
/// node known, one slot table).
pub const AGREE_WITHIN: Duration = Duration::from_secs(60);

/// The installed Redis version (from `redis-server --version`), e.g.
/// `"7.0.15"`, after checking that `redis-cli` is there too. Fails with
/// [`Error::ProgramMissing`] otherwise: a notebook calls this first and
/// says how to install Redis instead of failing.
pub fn redis_version() -> Result<String> {
    let server = find_program("redis-server")?;
    find_program("redis-cli")?;
    let text = version_text(&server, "--version")?;
    // "Redis server v=7.0.15 sha=… malloc=… bits=64 build=…"
    Ok(text.split_whitespace().find_map(|w| w.strip_prefix("v=")).unwrap_or(text.trim()).to_string())
}

/// True when `CLUSTER NODES` flags (then the link state, space-separated)
/// say a node is down: flag `fail` or `fail?`, or link `disconnected`.
fn flagged_down(flags_link: &str) -> bool {
    let (flags, link) = flags_link.split_once(' ').unwrap_or((flags_link, ""));
    flags.split(',').any(|f| f == "fail" || f == "fail?") || link == "disconnected"
}

/// One cluster-mode `redis-server` under its watchdog.
pub(super) struct RedisNode {
    pub(super) server: Supervised,
    pub(super) lease: PortLease,
    pub(super) id: String,
}

impl RedisNode {
    /// Start one cluster-mode server on a free port whose bus port is free
    /// too (retrying on another pair if the one picked was taken meanwhile).
    pub(super) fn start(name: &str, redis_server: &std::path::Path, within: Duration) -> Result<RedisNode> {
        let mut last = None;
        for _ in 0..8 {
            let lease = PortLease::take_with_bus()?;
            let port = lease.port();
            let dir = new_dir("redis")?;
            let log = dir.join("redis.log");
            let mut args: Vec<OsString> = ["--port", &port.to_string(), "--bind", HOST, "--cluster-enabled", "yes"]
                .iter()
                .chain(&["--cluster-config-file", "nodes.conf", "--appendonly", "no", "--save", ""])
                .chain(&["--daemonize", "no", "--protected-mode", "yes"])
                .map(OsString::from)
                .collect();
            args.extend(["--dir".into(), dir.clone().into(), "--logfile".into(), log.clone().into()]);
            let server = Supervised::start(name, redis_server, &args, dir)?;
            let ping = || Conn::open_within(name, port, PROBE_WITHIN).and_then(|mut c| c.call(&["PING"]));
            let ready = || matches!(ping(), Ok(Reply::Status(s)) if s == "PONG");
            match server.wait_ready(port, Some(&log), ready) {
                Ok(()) => {
                    let mut node = RedisNode { server, lease, id: String::new() };
                    node.id = node.call(within, &["CLUSTER", "MYID"])?.text();
                    return Ok(node);
                }
                Err(e) if e.to_string().contains("Address already in use") => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| Error::NoFreePort { node: name.to_string(), tries: 8 }))
    }

    pub(super) fn name(&self) -> &str {
        self.server.name()
    }

    pub(super) fn port(&self) -> u16 {
        self.lease.port()
    }

    /// One command, on a connection of its own whose reply may take `within`.
    pub(super) fn call(&self, within: Duration, args: &[&str]) -> Result<Reply> {
        Conn::open_within(self.name(), self.port(), within)?.call(args)
    }

    /// The error for a node whose process has exited.
    pub(super) fn exited(&self, doing: &str) -> Error {
        Error::ServerFailed {
            node: self.name().to_string(),
            port: self.port(),
            problem: format!(
                "its redis-server (pid {}) has exited, so {doing}; a Redis Cluster node that left this way \
                 cannot come back: drop the cluster and start a new one",
                self.server.pid()
            ),
            source: None,
        }
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        // Tell every watchdog at once, then wait for each.
        for s in &mut self.servers {
            s.server.release();
        }
        self.servers.clear();
    }
}

/// A local Redis Cluster of masters only, on 127.0.0.1; stopped, with its
/// files removed, when dropped (see the [module docs](self)).
pub struct RedisCluster {
    pub(super) servers: Vec<RedisNode>,
    /// The nodes `del_node` removed, for a clear error if one is named.
    pub(super) removed: Vec<String>,
    /// How long a reply may take (see [`REPLY_WITHIN`]).
    pub(super) reply_within: Duration,
    /// The name of the node `redis-cli` is pointed at.
    pub(super) entry: String,
    pub(super) redis_server: PathBuf,
    pub(super) redis_cli: PathBuf,
}

impl std::fmt::Debug for RedisCluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.servers.iter().map(|s| (s.name(), s.port(), &s.id))).finish()
    }
}

impl RedisCluster {
    /// Start one server per name and form a cluster of masters with
    /// `redis-cli --cluster create`, which gives the nodes one contiguous
    /// range of slots each, in this order (as [`Slots::named`] does).
    /// Returns when every node reports `cluster_state:ok` and all agree
    /// on the slot table.
    pub fn start<I, S>(names: I) -> Result<RedisCluster>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        // the same checks as Slots::named (some nodes, distinct names), on at
        // most MAX_SERVERS + 1 names however many the iterator holds
        let names = check_servers(names)?;
        Slots::named(names.clone())?;
        if names.len() < 3 {
            return Err(Error::OutOfRange {
                what: "masters",
                given: names.len().to_string(),
                allowed: "3 or more: redis-cli --cluster create needs at least 3; name 3 or more nodes".into(),
            });
        }
        let redis_server = find_program("redis-server")?;
        let redis_cli = find_program("redis-cli")?;
        let entry = names[0].clone();
        let mut cluster = RedisCluster {
            servers: Vec::new(),
            removed: Vec::new(),
            reply_within: REPLY_WITHIN,
            entry,
            redis_server,
            redis_cli,
        };
        for n in &names {
            let s = RedisNode::start(n, &cluster.redis_server, cluster.reply_within)?;
            cluster.servers.push(s);
        }
        let mut args = vec!["--cluster".to_string(), "create".to_string()];
        args.extend(cluster.servers.iter().map(|s| format!("{HOST}:{}", s.port())));
        args.extend(["--cluster-replicas", "0", "--cluster-yes"].map(String::from));
        cluster.cli(args)?;
        cluster.wait_agreed()?;
        Ok(cluster)
    }

    /// The node names, in the order they were started.
    pub fn names(&self) -> Vec<String> {
        self.servers.iter().map(|s| s.name().to_string()).collect()
    }

    /// How long every reply of a node may take, from now on (default
    /// [`REPLY_WITHIN`], 10 s): a node that does not answer within it fails
    /// with [`Error::ServerTimeout`], which states this limit. Must be more
    /// than 0.
    pub fn set_reply_timeout(&mut self, within: Duration) -> Result<()> {
        self.reply_within = super::client::reply_timeout(within)?;
        Ok(())
    }

    /// How long every reply of a node may take.
    pub fn reply_timeout(&self) -> Duration {
        self.reply_within
    }

    pub(super) fn server(&self, name: &str) -> Result<&RedisNode> {
        self.servers.iter().find(|s| s.name() == name).ok_or_else(|| {
            if self.removed.iter().any(|r| r == name) {
                Error::NodeRemoved { node: name.to_string(), remaining: self.names() }
            } else {
                Error::UnknownNode(name.to_string())
            }
        })
    }

    /// A connection to node `s`, whose replies may take the reply timeout.
    pub(crate) fn conn(&self, name: &str) -> Result<Conn> {
        let s = self.server(name)?;
        Conn::open_within(s.name(), s.port(), self.reply_within)
    }

    /// The port node `name` listens on.
    pub fn port(&self, name: &str) -> Result<u16> {
        Ok(self.server(name)?.port())
    }

    /// The node id of node `name` (40 hex digits, random at each start).
    pub fn id(&self, name: &str) -> Result<String> {
        Ok(self.server(name)?.id.clone())
    }

    /// The process id of node `name`'s `redis-server`.
    pub fn pid(&self, name: &str) -> Result<u32> {
        Ok(self.server(name)?.server.pid())
    }

    /// The directory of node `name` (removed when the node stops).
    pub fn dir(&self, name: &str) -> Result<PathBuf> {
        Ok(self.server(name)?.server.dir().to_path_buf())
    }

    /// The node `redis-cli` is pointed at: the first one started (the
    /// first one left, after it leaves).
    pub(super) fn entry(&self) -> &RedisNode {
        self.servers.iter().find(|s| s.name() == self.entry).unwrap_or(&self.servers[0])
    }

    /// The name of the node `redis-cli` is pointed at.
    pub fn entry_name(&self) -> &str {
        self.entry().name()
    }

    /// `text` with every `127.0.0.1:port` (and bare node id) of a node
    /// replaced by the node's name, so printed replies don't change from
    /// run to run: `MOVED 866 127.0.0.1:30467` → `MOVED 866 D`.
    pub fn named_text(&self, text: &str) -> String {
        let mut t = text.to_string();
        for s in &self.servers {
            t = t.replace(&format!("{HOST}:{}", s.port()), s.name()).replace(&s.id, s.name());
        }
        t
    }

    /// Run one command on node `name` (no redirects followed).
    pub fn command(&self, name: &str, args: &[&str]) -> Result<Reply> {
        self.server(name)?.call(self.reply_within, args)
    }

    /// Run commands on node `name` over one connection (`ASKING` then a
    /// command needs that), returning every reply.
    pub fn commands(&self, name: &str, commands: &[&[&str]]) -> Result<Vec<Reply>> {
        let mut out = Vec::new();
        self.conn(name)?.pipeline(commands.iter(), |r| out.push(r))?;
        Ok(out)
    }

    /// `CLUSTER NODES` as node `name` sees it: (id, flags, slots) per line,
    /// in the order of the lines.
    pub(super) fn cluster_nodes(&self, server: &RedisNode) -> Result<Vec<(String, String, Vec<u16>)>> {
        let text = server.call(self.reply_within, &["CLUSTER", "NODES"])?.text();
        let mut out = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let w: Vec<&str> = line.split_whitespace().collect();
            let unexpected = |what: &str| Error::UnexpectedReply {
                node: server.name().to_string(),
                port: server.port(),
                doing: "CLUSTER NODES".into(),
                got: format!("{what} {line:?}"),
            };
            if w.len() < 8 {
                return Err(unexpected("the line"));
            }
            let mut slots = Vec::new();
            for r in &w[8..] {
                if r.starts_with('[') {
                    continue; // a slot being migrated or imported
                }
                let (a, b) = r.split_once('-').unwrap_or((r, r));
                let (a, b): (u16, u16) = match (a.parse(), b.parse()) {
                    (Ok(a), Ok(b)) => (a, b),
                    _ => return Err(unexpected(&format!("the slot range {r:?} in"))),
                };
                slots.extend(a..=b);
            }
            // Flags, then the link state (field 8) after them.
            out.push((w[0].to_string(), format!("{} {}", w[2], w[7]), slots));
        }
        Ok(out)
    }

    /// The slot table as `redis-cli` will see it: read with `CLUSTER NODES`
    /// from the node it is pointed at, that node first, then the others in
    /// the order it lists them — redis-cli's node order, which
    /// [`Slots::rebalance`] needs to break ties exactly as redis-cli will.
    ///
    /// A node that is down — its process has exited, or the entry node
    /// flags it `fail` or `fail?` or lists its link `disconnected` — is left
    /// out of the table, as redis-cli leaves it out, when it serves no slot;
    /// when it serves slots, no table is true and the error names it.
    pub fn slots(&self) -> Result<Slots> {
        let lines = self.cluster_nodes(self.entry())?;
        let mut order: Vec<&(String, String, Vec<u16>)> = lines.iter().filter(|l| l.1.contains("myself")).collect();
        order.extend(lines.iter().filter(|l| !l.1.contains("myself")));
        let mut names = Vec::new();
        let mut table = vec![NodeId::MAX; SLOT_COUNT];
        for (id, flags, slots) in order {
            let s = self
                .servers
                .iter()
                .find(|s| &s.id == id)
                .ok_or_else(|| Error::StrangerNode { id: id.clone(), seen_by: self.entry().name().to_string() })?;
            let down = !s.server.alive() || flagged_down(flags);
            if down && slots.is_empty() {
                continue;
            }
            if down {
                let serves = format!("its {} slots have no running node", slots.len());
                if !s.server.alive() {
                    return Err(s.exited(&serves));
                }
                return Err(Error::ServerFailed {
                    node: s.name().to_string(),
                    port: s.port(),
                    problem: format!("is down as {} sees it ({flags}): {serves}", self.entry().name()),
                    source: None,
                });
            }
            for &slot in slots {
                table[usize::from(slot)] = names.len() as NodeId;
            }
            names.push(s.name().to_string());
        }
        if let Some(s) = table.iter().position(|&t| t == NodeId::MAX) {
            return Err(Error::SlotUnserved { slot: s });
        }
        Slots::from_table(names, table)
    }

    /// Wait until every node reports `cluster_state:ok`, knows every node
    /// (no handshake, no failure flags) and sees the same slot table, for
    /// at most [`AGREE_WITHIN`]. A node that has exited, refuses, or does
    /// not answer within the reply timeout ends the wait at once, named.
    pub fn wait_agreed(&self) -> Result<()> {
        let deadline = Instant::now() + AGREE_WITHIN;
        let ids: Vec<&String> = {
            let mut v: Vec<&String> = self.servers.iter().map(|s| &s.id).collect();
            v.sort();
            v
        };
        let mut why = String::new();
        while Instant::now() < deadline {
            match self.agreed(&ids) {
                Ok(None) => return Ok(()),
                Ok(Some(w)) => why = w,
                Err(e @ (Error::ServerFailed { .. } | Error::ServerTimeout { .. })) => return Err(e),
                Err(e) => why = e.to_string(),
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(Error::NotSettled { waited: AGREE_WITHIN, why })
    }

    fn agreed(&self, ids: &[&String]) -> Result<Option<String>> {
        let mut first: Option<BTreeMap<String, Vec<u16>>> = None;
        for s in &self.servers {
            if !s.server.alive() {
                return Err(s.exited("the cluster cannot agree"));
            }
            let info = s.call(self.reply_within, &["CLUSTER", "INFO"])?.text();
            if !info.contains("cluster_state:ok") {
                return Ok(Some(format!("{} reports the cluster not ok", s.name())));
            }
            let lines = self.cluster_nodes(s)?;
            let mut seen: Vec<&String> = lines.iter().map(|l| &l.0).collect();
            seen.sort();
            if seen != ids {
                return Ok(Some(format!("{} knows {} nodes of {}", s.name(), seen.len(), ids.len())));
            }
            let unsettled = |f: &str| matches!(f, "handshake" | "fail" | "fail?" | "noaddr");
            if let Some(l) = lines.iter().find(|l| l.1.split([' ', ',']).any(unsettled)) {
                return Ok(Some(format!("{} flags a node {}", s.name(), l.1)));
            }
            let table: BTreeMap<String, Vec<u16>> = lines.into_iter().map(|(id, _, slots)| (id, slots)).collect();
            match &first {
                None => first = Some(table),
                Some(t) if *t != table => return Ok(Some(format!("{} sees another slot table", s.name()))),
                Some(_) => {}
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn down_flags() {
        // Flags and link states as redis-server 7.0 prints them in CLUSTER NODES.
        assert!(flagged_down("master,fail connected") && flagged_down("master,fail? connected"));
        assert!(flagged_down("master disconnected") && flagged_down("myself,master,fail connected"));
        assert!(!flagged_down("master,nofailover connected") && !flagged_down("myself,master connected"));
    }
}
