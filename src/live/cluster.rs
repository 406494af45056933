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
//! **No stray servers.** Every server runs under the watchdog of
//! [`live::server`](crate::live::server): when the cluster is dropped, or
//! this process dies in any way — a failed cell, a panic, a kernel
//! restart, `kill -9` — each server is stopped and its directory removed.
//! `Drop` waits for them, so when a `RedisCluster` is gone, its servers and
//! directories are gone.
//!
//! The crate talks to the servers itself ([`live::client`](crate::live::client));
//! `redis-cli` is used only for the `--cluster` subcommands.
//!
//! Where `redis-server` or `redis-cli` is missing, every constructor
//! returns [`Error::RedisMissing`], whose message says how to install them.
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

use crate::live::client::{Conn, Reply};
use crate::live::server::{find_program, free_port, io_err, Server, HOST};
use crate::schemes::slots::{Slots, SLOT_COUNT};
use crate::schemes::NodeId;
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long to wait for the cluster to agree.
const PATIENCE: Duration = Duration::from_secs(60);

/// The installed Redis version (from `redis-server --version`), e.g.
/// `"7.0.15"`, after checking that `redis-cli` is there too. Fails with
/// [`Error::RedisMissing`] otherwise: a notebook calls this first and says
/// how to install Redis instead of failing.
pub fn redis_version() -> Result<String> {
    let server = find_program("redis-server")?;
    find_program("redis-cli")?;
    let out = Command::new(server).arg("--version").output().map_err(io_err("run redis-server --version"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    // "Redis server v=7.0.15 sha=… malloc=… bits=64 build=…"
    Ok(text.split_whitespace().find_map(|w| w.strip_prefix("v=")).unwrap_or(text.trim()).to_string())
}

/// `s` without terminal colour codes (`ESC [ … m`).
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// One cluster-mode `redis-server` under its watchdog.
struct RedisNode {
    server: Server,
    port: u16,
    id: String,
}

impl RedisNode {
    /// Start one cluster-mode server on a free port (retrying on another
    /// port if the one picked was taken meanwhile).
    fn start(name: &str, redis_server: &std::path::Path) -> Result<RedisNode> {
        let mut last = None;
        for _ in 0..8 {
            let port = free_port(true)?;
            let dir = Server::fresh_dir("redis", port)?;
            let log = dir.join("redis.log");
            let mut args: Vec<OsString> = ["--port", &port.to_string(), "--bind", HOST, "--cluster-enabled", "yes"]
                .iter()
                .chain(&["--cluster-config-file", "nodes.conf", "--appendonly", "no", "--save", ""])
                .chain(&["--daemonize", "no", "--protected-mode", "yes"])
                .map(OsString::from)
                .collect();
            args.extend(["--dir".into(), dir.clone().into(), "--logfile".into(), log.clone().into()]);
            let ready =
                || matches!(Conn::open(port).and_then(|mut c| c.call(&["PING"])), Ok(Reply::Status(s)) if s == "PONG");
            match Server::start(name, redis_server, &args, &dir, Some(&log), ready) {
                Ok(server) => {
                    let mut node = RedisNode { server, port, id: String::new() };
                    node.id = node.call(&["CLUSTER", "MYID"])?.text();
                    return Ok(node);
                }
                Err(e) if e.to_string().contains("Address already in use") => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| Error::Redis("redis-server did not start".into())))
    }

    fn name(&self) -> &str {
        self.server.name()
    }

    fn call(&self, args: &[&str]) -> Result<Reply> {
        Conn::open(self.port)
            .and_then(|mut c| c.call(args))
            .map_err(|e| Error::Redis(format!("{} ({HOST}:{}): {}: {e}", self.name(), self.port, args.join(" "))))
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        // Tell every watchdog at once, then wait for each.
        for s in &mut self.servers {
            s.server.signal_stop();
        }
        self.servers.clear();
    }
}

// ---------------------------------------------------------------------------

/// What a `redis-cli --cluster` run printed and how long it took.
#[derive(Debug, Clone)]
pub struct CliRun {
    /// The command line after `redis-cli`.
    pub args: Vec<String>,
    /// Its standard output, node addresses replaced by node names.
    pub output: String,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl CliRun {
    /// The "Moving N slots from A to B" lines: (from, to, N).
    pub fn moves(&self) -> Vec<(String, String, usize)> {
        self.output
            .lines()
            .filter_map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                match w.as_slice() {
                    ["Moving", n, "slots", "from", a, "to", b] => Some((a.to_string(), b.to_string(), n.parse().ok()?)),
                    _ => None,
                }
            })
            .collect()
    }
}

/// A local Redis Cluster of masters only, on 127.0.0.1; stopped, with its
/// files removed, when dropped (see the [module docs](self)).
pub struct RedisCluster {
    servers: Vec<RedisNode>,
    /// The name of the node `redis-cli` is pointed at.
    entry: String,
    redis_server: PathBuf,
    redis_cli: PathBuf,
}

impl std::fmt::Debug for RedisCluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.servers.iter().map(|s| (s.name(), s.port, &s.id))).finish()
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
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        Slots::named(names.clone())?; // the same checks: some nodes, distinct names
        if names.len() < 3 {
            return Err(Error::Invalid(format!(
                "{} masters: redis-cli --cluster create needs at least 3; name 3 or more nodes",
                names.len()
            )));
        }
        let redis_server = find_program("redis-server")?;
        let redis_cli = find_program("redis-cli")?;
        let entry = names[0].clone();
        let mut cluster = RedisCluster { servers: Vec::new(), entry, redis_server, redis_cli };
        for n in &names {
            let s = RedisNode::start(n, &cluster.redis_server)?;
            cluster.servers.push(s);
        }
        let mut args = vec!["--cluster".to_string(), "create".to_string()];
        args.extend(cluster.servers.iter().map(|s| format!("{HOST}:{}", s.port)));
        args.extend(["--cluster-replicas", "0", "--cluster-yes"].map(String::from));
        cluster.cli(args)?;
        cluster.wait_agreed()?;
        Ok(cluster)
    }

    /// The node names, in the order they were started.
    pub fn names(&self) -> Vec<String> {
        self.servers.iter().map(|s| s.name().to_string()).collect()
    }

    fn server(&self, name: &str) -> Result<&RedisNode> {
        self.servers.iter().find(|s| s.name() == name).ok_or_else(|| Error::UnknownNode(name.to_string()))
    }

    /// The port node `name` listens on.
    pub fn port(&self, name: &str) -> Result<u16> {
        Ok(self.server(name)?.port)
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
    fn entry(&self) -> &RedisNode {
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
            t = t.replace(&format!("{HOST}:{}", s.port), s.name()).replace(&s.id, s.name());
        }
        t
    }

    /// Run one command on node `name` (no redirects followed).
    pub fn command(&self, name: &str, args: &[&str]) -> Result<Reply> {
        self.server(name)?.call(args)
    }

    /// Run commands on node `name` over one connection (`ASKING` then a
    /// command needs that), returning every reply.
    pub fn commands(&self, name: &str, commands: &[&[&str]]) -> Result<Vec<Reply>> {
        let s = self.server(name)?;
        let mut out = Vec::new();
        Conn::open(s.port)
            .and_then(|mut c| c.pipeline(commands.iter(), |r| out.push(r)))
            .map_err(|e| Error::Redis(format!("{name}: {e}")))?;
        Ok(out)
    }

    /// Run `redis-cli` with these arguments; fails on a non-zero exit.
    fn cli(&self, args: Vec<String>) -> Result<CliRun> {
        let t0 = Instant::now();
        let out =
            Command::new(&self.redis_cli).args(&args).stdin(Stdio::null()).output().map_err(io_err("run redis-cli"))?;
        let seconds = t0.elapsed().as_secs_f64();
        let text = strip_ansi(&self.named_text(&String::from_utf8_lossy(&out.stdout)));
        let ok = out.status.success() && !text.contains("[ERR]");
        if !ok {
            let err = strip_ansi(&self.named_text(&String::from_utf8_lossy(&out.stderr)));
            let tail: Vec<&str> = text.lines().chain(err.lines()).rev().take(12).collect();
            return Err(Error::Redis(format!(
                "redis-cli {} failed ({}):\n{}",
                self.named_text(&args.join(" ")),
                out.status,
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            )));
        }
        Ok(CliRun { args, output: text, seconds })
    }

    fn entry_addr(&self) -> String {
        format!("{HOST}:{}", self.entry().port)
    }

    /// `CLUSTER NODES` as node `name` sees it: (id, flags, slots) per line,
    /// in the order of the lines.
    fn cluster_nodes(&self, server: &RedisNode) -> Result<Vec<(String, String, Vec<u16>)>> {
        let text = server.call(&["CLUSTER", "NODES"])?.text();
        let mut out = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let w: Vec<&str> = line.split_whitespace().collect();
            if w.len() < 8 {
                return Err(Error::Redis(format!("unexpected CLUSTER NODES line {line:?}")));
            }
            let mut slots = Vec::new();
            for r in &w[8..] {
                if r.starts_with('[') {
                    continue; // a slot being migrated or imported
                }
                let (a, b) = r.split_once('-').unwrap_or((r, r));
                let (a, b): (u16, u16) = match (a.parse(), b.parse()) {
                    (Ok(a), Ok(b)) => (a, b),
                    _ => return Err(Error::Redis(format!("unexpected slot range {r:?}"))),
                };
                slots.extend(a..=b);
            }
            out.push((w[0].to_string(), w[2].to_string(), slots));
        }
        Ok(out)
    }

    /// The slot table as `redis-cli` will see it: read with `CLUSTER NODES`
    /// from the node it is pointed at, that node first, then the others in
    /// the order it lists them — redis-cli's node order, which
    /// [`Slots::rebalance`] needs to break ties exactly as redis-cli will.
    pub fn slots(&self) -> Result<Slots> {
        let lines = self.cluster_nodes(self.entry())?;
        let mut order: Vec<&(String, String, Vec<u16>)> = lines.iter().filter(|l| l.1.contains("myself")).collect();
        order.extend(lines.iter().filter(|l| !l.1.contains("myself")));
        let mut names = Vec::new();
        let mut table = vec![NodeId::MAX; SLOT_COUNT];
        for (i, (id, _, slots)) in order.iter().enumerate() {
            let s = self.servers.iter().find(|s| &s.id == id).ok_or_else(|| {
                Error::Redis(format!("CLUSTER NODES lists node {id}, which this cluster did not start"))
            })?;
            names.push(s.name().to_string());
            for &slot in slots {
                table[usize::from(slot)] = i as NodeId;
            }
        }
        if let Some(s) = table.iter().position(|&t| t == NodeId::MAX) {
            return Err(Error::Redis(format!("slot {s} is served by no node")));
        }
        Slots::from_table(names, table)
    }

    /// Wait until every node reports `cluster_state:ok`, knows every node
    /// (no handshake, no failure flags) and sees the same slot table.
    pub fn wait_agreed(&self) -> Result<()> {
        let deadline = Instant::now() + PATIENCE;
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
                Err(e) => why = e.to_string(),
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(Error::Redis(format!("the cluster did not settle within {} s: {why}", PATIENCE.as_secs())))
    }

    fn agreed(&self, ids: &[&String]) -> Result<Option<String>> {
        let mut first: Option<BTreeMap<String, Vec<u16>>> = None;
        for s in &self.servers {
            let info = s.call(&["CLUSTER", "INFO"])?.text();
            if !info.contains("cluster_state:ok") {
                return Ok(Some(format!("{} reports the cluster not ok", s.name())));
            }
            let lines = self.cluster_nodes(s)?;
            let mut seen: Vec<&String> = lines.iter().map(|l| &l.0).collect();
            seen.sort();
            if seen != ids {
                return Ok(Some(format!("{} knows {} nodes of {}", s.name(), seen.len(), ids.len())));
            }
            if let Some(l) =
                lines.iter().find(|l| l.1.contains("handshake") || l.1.contains("fail") || l.1.contains("noaddr"))
            {
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

    /// Start a new empty server `name` and join it to the cluster with
    /// `redis-cli --cluster add-node`: it serves no slots yet. Returns when
    /// every node knows it.
    pub fn add_node(&mut self, name: &str) -> Result<CliRun> {
        if self.servers.iter().any(|s| s.name() == name) {
            return Err(Error::DuplicateNode(name.to_string()));
        }
        let s = RedisNode::start(name, &self.redis_server)?;
        let new = format!("{HOST}:{}", s.port);
        self.servers.push(s);
        let run = self.cli(vec!["--cluster".into(), "add-node".into(), new, self.entry_addr()])?;
        self.wait_agreed()?;
        Ok(run)
    }

    /// `redis-cli --cluster rebalance <entry> --cluster-use-empty-masters`
    /// (weights 1, threshold 2%, `--cluster-pipeline` keys per `MIGRATE`),
    /// then wait for the nodes to agree.
    pub fn rebalance(&self, pipeline: usize) -> Result<CliRun> {
        let run = self.cli(vec![
            "--cluster".into(),
            "rebalance".into(),
            self.entry_addr(),
            "--cluster-use-empty-masters".into(),
            "--cluster-pipeline".into(),
            pipeline.max(1).to_string(),
        ])?;
        self.wait_agreed()?;
        Ok(run)
    }

    /// `redis-cli --cluster reshard <entry> --cluster-from <from>
    /// --cluster-to <to> --cluster-slots <count> --cluster-yes` (by node
    /// ids), then wait for the nodes to agree.
    pub fn reshard(&self, from: &str, to: &str, count: usize, pipeline: usize) -> Result<CliRun> {
        let run = self.cli(vec![
            "--cluster".into(),
            "reshard".into(),
            self.entry_addr(),
            "--cluster-from".into(),
            self.id(from)?,
            "--cluster-to".into(),
            self.id(to)?,
            "--cluster-slots".into(),
            count.to_string(),
            "--cluster-yes".into(),
            "--cluster-pipeline".into(),
            pipeline.max(1).to_string(),
        ])?;
        self.wait_agreed()?;
        Ok(run)
    }

    /// `redis-cli --cluster del-node <entry> <id>`: the other nodes forget
    /// node `name` and it shuts down; it must serve no slots. Its watchdog
    /// then removes its directory.
    pub fn del_node(&mut self, name: &str) -> Result<CliRun> {
        self.server(name)?;
        if self.servers.len() == 1 {
            return Err(Error::LastNode(name.to_string()));
        }
        if self.entry == name {
            // redis-cli is pointed at this node: point it at the first other.
            self.entry = self.servers.iter().find(|s| s.name() != name).expect("another node").name().to_string();
        }
        let id = self.id(name)?;
        let run = self.cli(vec!["--cluster".into(), "del-node".into(), self.entry_addr(), id])?;
        let at = self.servers.iter().position(|s| s.name() == name).expect("still listed");
        let gone = self.servers.remove(at);
        let deadline = Instant::now() + Duration::from_secs(10);
        while gone.server.alive() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        drop(gone);
        self.wait_agreed()?;
        Ok(run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_moves_and_ansi() {
        let run = CliRun { args: vec![], output: "x\nMoving 1366 slots from B to D\n####\n".into(), seconds: 0.0 };
        assert_eq!(run.moves(), [("B".to_string(), "D".to_string(), 1366)]);
        assert_eq!(strip_ansi("\u{1b}[31;1m*** ERR\u{1b}[0m"), "*** ERR");
    }
}
