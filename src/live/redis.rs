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
//! **No stray servers.** Every server runs under a watchdog, a small
//! `sh -c` parent that holds the read end of a pipe whose write end only
//! this process has (close-on-exec, so no other child inherits it). When
//! the cluster is dropped, or this process dies in any way — a failed
//! cell, a panic, a kernel restart, `kill -9` — the pipe closes, the
//! watchdog reads end-of-file, stops its server (SIGTERM, then waits) and
//! removes the server's directory. `Drop` also waits for each watchdog, so
//! when a `RedisCluster` is gone, its servers and directories are gone.
//!
//! The crate talks to the servers itself, over a few lines of RESP on a
//! `TcpStream` (std only: nothing to compile in a notebook's first cell),
//! pipelining commands in batches; `redis-cli` is used only for the
//! `--cluster` subcommands.
//!
//! Where `redis-server` or `redis-cli` is missing, every constructor
//! returns [`Error::RedisMissing`], whose message says how to install them.
//!
//! ```no_run
//! use reshard::live::{Agreement, RedisCluster};
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
//! Agreement::movements("3 → 4", &predicted, &before.movement_to(&after)?).ensure()?;
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::Movement;
use crate::keys::{HashedKeys, KeySet};
use crate::present::format::thousands;
use crate::schemes::slots::{key_slot, Slots, SLOT_COUNT};
use crate::schemes::slots_rebalance::SlotPlan;
use crate::schemes::{NodeId, Placement};
use crate::{Error, Result};
use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// The only address the servers bind to.
pub const HOST: &str = "127.0.0.1";

/// Commands written before their replies are read, when pipelining.
const BATCH: usize = 4096;

/// How long to wait for servers to start or the cluster to agree.
const PATIENCE: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------
// Programs
// ---------------------------------------------------------------------------

/// The path of `program` on `PATH`, or [`Error::RedisMissing`].
pub fn find_program(program: &'static str) -> Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false))
        .ok_or(Error::RedisMissing { program })
}

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

fn io_err(what: &'static str) -> impl Fn(io::Error) -> Error {
    move |e| Error::Redis(format!("{what}: {e}"))
}

// ---------------------------------------------------------------------------
// RESP
// ---------------------------------------------------------------------------

/// A reply from a Redis server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `+OK`
    Status(String),
    /// `-MOVED 3999 127.0.0.1:6381`
    Error(String),
    /// `:42`
    Integer(i64),
    /// `$…`: a string, or nil.
    Bulk(Option<Vec<u8>>),
    /// `*…`: replies, or nil.
    Array(Option<Vec<Reply>>),
}

impl Reply {
    /// The reply as text (nil prints as `(nil)`, arrays one item a line).
    pub fn text(&self) -> String {
        match self {
            Reply::Status(s) | Reply::Error(s) => s.clone(),
            Reply::Integer(i) => i.to_string(),
            Reply::Bulk(Some(b)) => String::from_utf8_lossy(b).into_owned(),
            Reply::Bulk(None) | Reply::Array(None) => "(nil)".into(),
            Reply::Array(Some(items)) => items.iter().map(Reply::text).collect::<Vec<_>>().join("\n"),
        }
    }

    /// True for an error reply (`-ERR …`, `-MOVED …`, `-ASK …`).
    pub fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }

    /// The integer of an integer reply, else an error.
    pub fn integer(&self) -> Result<i64> {
        match self {
            Reply::Integer(i) => Ok(*i),
            other => Err(Error::Redis(format!("expected an integer reply, got {other:?}"))),
        }
    }
}

/// One connection to one server.
struct Conn {
    reader: BufReader<TcpStream>,
    writer: BufWriter<TcpStream>,
}

impl Conn {
    fn open(port: u16) -> io::Result<Conn> {
        let addr: SocketAddr = format!("{HOST}:{port}").parse().expect("a valid address");
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
        stream.set_read_timeout(Some(Duration::from_secs(120)))?;
        stream.set_nodelay(true)?;
        Ok(Conn {
            reader: BufReader::with_capacity(1 << 16, stream.try_clone()?),
            writer: BufWriter::with_capacity(1 << 16, stream),
        })
    }

    fn send<A: AsRef<[u8]>>(&mut self, args: &[A]) -> io::Result<()> {
        write!(self.writer, "*{}\r\n", args.len())?;
        for a in args {
            let a = a.as_ref();
            write!(self.writer, "${}\r\n", a.len())?;
            self.writer.write_all(a)?;
            self.writer.write_all(b"\r\n")?;
        }
        Ok(())
    }

    fn read(&mut self) -> io::Result<Reply> {
        let mut line = Vec::with_capacity(64);
        self.reader.read_until(b'\n', &mut line)?;
        if line.len() < 3 || !line.ends_with(b"\r\n") {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed the connection"));
        }
        let body = String::from_utf8_lossy(&line[1..line.len() - 2]).into_owned();
        let number = |s: &str| {
            s.parse::<i64>().map_err(|_| io::Error::new(io::ErrorKind::InvalidData, format!("bad length {s:?}")))
        };
        Ok(match line[0] {
            b'+' => Reply::Status(body),
            b'-' => Reply::Error(body),
            b':' => Reply::Integer(number(&body)?),
            b'$' => match number(&body)? {
                n if n < 0 => Reply::Bulk(None),
                n => {
                    let mut buf = vec![0; n as usize + 2];
                    self.reader.read_exact(&mut buf)?;
                    buf.truncate(n as usize);
                    Reply::Bulk(Some(buf))
                }
            },
            b'*' => match number(&body)? {
                n if n < 0 => Reply::Array(None),
                n => Reply::Array(Some((0..n).map(|_| self.read()).collect::<io::Result<_>>()?)),
            },
            other => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("unknown reply type {:?}", other as char),
                ))
            }
        })
    }

    fn call<A: AsRef<[u8]>>(&mut self, args: &[A]) -> io::Result<Reply> {
        self.send(args)?;
        self.writer.flush()?;
        self.read()
    }

    /// Send every command, `BATCH` at a time before reading their replies,
    /// and give each reply to `each` in order.
    fn pipeline<I, C, A>(&mut self, commands: I, mut each: impl FnMut(Reply)) -> io::Result<()>
    where
        I: IntoIterator<Item = C>,
        C: AsRef<[A]>,
        A: AsRef<[u8]>,
    {
        let mut pending = 0;
        for c in commands {
            self.send(c.as_ref())?;
            pending += 1;
            if pending == BATCH {
                self.writer.flush()?;
                for _ in 0..pending {
                    each(self.read()?);
                }
                pending = 0;
            }
        }
        self.writer.flush()?;
        for _ in 0..pending {
            each(self.read()?);
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// One server under its watchdog
// ---------------------------------------------------------------------------

/// The watchdog: start the server in the background, print its pid, block
/// until stdin closes (this process dropped the server or died), then stop
/// the server and remove its directory. `$1` is the directory, the rest is
/// the server's command line.
const WATCHDOG: &str = r#"dir=$1; shift
trap '' INT HUP
"$@" >/dev/null 2>&1 </dev/null &
pid=$!
echo "$pid"
while read -r _; do :; done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
rm -rf "$dir"
"#;

struct Server {
    name: String,
    port: u16,
    id: String,
    dir: PathBuf,
    pid: u32,
    watchdog: Child,
    guard: Option<ChildStdin>,
}

impl Server {
    /// Start one cluster-mode server on a free port (retrying on another
    /// port if the one picked was taken meanwhile).
    fn start(name: &str, redis_server: &Path) -> Result<Server> {
        let mut last = String::new();
        for _ in 0..8 {
            let port = free_port()?;
            let dir = std::env::temp_dir().join(format!("reshard-redis-{}-{port}", std::process::id()));
            std::fs::create_dir_all(&dir).map_err(io_err("create the server's directory"))?;
            let log = dir.join("redis.log");
            let mut watchdog = Command::new("sh")
                .arg("-c")
                .arg(WATCHDOG)
                .arg("reshard-redis-watchdog")
                .arg(&dir)
                .arg(redis_server)
                .args(["--port", &port.to_string(), "--bind", HOST, "--cluster-enabled", "yes"])
                .args(["--cluster-config-file", "nodes.conf", "--appendonly", "no", "--save", ""])
                .args(["--daemonize", "no", "--protected-mode", "yes", "--dir"])
                .arg(&dir)
                .arg("--logfile")
                .arg(&log)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .process_group(0) // a Ctrl-C in a terminal stops us, and we stop them
                .spawn()
                .map_err(io_err("start sh for redis-server"))?;
            let mut first = String::new();
            let read = BufReader::new(watchdog.stdout.take().expect("piped")).read_line(&mut first);
            let pid: u32 = match read.ok().and_then(|_| first.trim().parse().ok()) {
                Some(pid) => pid,
                None => {
                    let _ = watchdog.wait();
                    return Err(Error::Redis("the redis-server watchdog did not start".into()));
                }
            };
            let mut server =
                Server { name: name.to_string(), port, id: String::new(), dir, pid, watchdog, guard: None };
            server.guard = server.watchdog.stdin.take();
            let deadline = Instant::now() + Duration::from_secs(15);
            while Instant::now() < deadline {
                if let Ok(Reply::Status(s)) = Conn::open(port).and_then(|mut c| c.call(&["PING"])) {
                    if s == "PONG" {
                        server.id = server.call(&["CLUSTER", "MYID"])?.text();
                        return Ok(server);
                    }
                }
                if !server.alive() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            last = std::fs::read_to_string(&log).unwrap_or_default();
            drop(server); // stops it and removes its directory
            if !last.contains("Address already in use") {
                break;
            }
        }
        let tail: Vec<&str> = last.lines().rev().take(5).collect();
        Err(Error::Redis(format!(
            "redis-server did not start on {HOST}; its log ends:\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        )))
    }

    /// True while the server process exists (and is not a zombie).
    fn alive(&self) -> bool {
        process_alive(self.pid)
    }

    fn call(&self, args: &[&str]) -> Result<Reply> {
        Conn::open(self.port)
            .and_then(|mut c| c.call(args))
            .map_err(|e| Error::Redis(format!("{} ({HOST}:{}): {}: {e}", self.name, self.port, args.join(" "))))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.guard.take()); // end of file: the watchdog stops the server
        let _ = self.watchdog.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
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

/// True while process `pid` exists and is not a zombie (reads `/proc`,
/// falls back to `kill -0` where there is none).
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit(')').next().and_then(|r| r.split_whitespace().next()).is_some_and(|s| s != "Z"),
        Err(_) if Path::new("/proc/self").exists() => false,
        Err(_) => Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success()),
    }
}

/// A port whose cluster bus port (port + 10000) is free too.
fn free_port() -> Result<u16> {
    for _ in 0..200 {
        let l = TcpListener::bind((HOST, 0)).map_err(io_err("find a free port"))?;
        let port = l.local_addr().map_err(io_err("find a free port"))?.port();
        if !(1_024..=55_000).contains(&port) {
            continue;
        }
        if TcpListener::bind((HOST, port + 10_000)).is_ok() {
            return Ok(port);
        }
    }
    Err(Error::Redis("no free port pair (p, p + 10000) on 127.0.0.1".into()))
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        // Tell every watchdog at once, then wait for each.
        for s in &mut self.servers {
            drop(s.guard.take());
        }
        self.servers.clear();
    }
}

// ---------------------------------------------------------------------------
// The cluster
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
    /// The "Moving N slots from A to B" lines of a rebalance beside a
    /// plan's steps.
    pub fn agreement(&self, plan: &SlotPlan) -> Agreement {
        let said = self.moves();
        let mut a = Agreement::new("redis-cli's \"Moving N slots from … to …\" lines beside the plan");
        for k in 0..said.len().max(plan.moves().len()) {
            let p = plan
                .moves()
                .get(k)
                .map_or("–".to_string(), |m| format!("{} from {} to {}", m.slots.len(), m.from, m.to));
            let o = said.get(k).map_or("–".to_string(), |(f, t, n)| format!("{n} from {f} to {t}"));
            a.row(format!("step {}", k + 1), p, o);
        }
        a
    }

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

/// What loading a key set did.
#[derive(Debug, Clone, PartialEq)]
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

/// Predicted beside observed, row by row, with ✓ or ≠.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Agreement {
    pub(crate) title: String,
    pub(crate) rows: Vec<(String, String, String)>,
}

impl Agreement {
    /// An empty comparison.
    pub fn new(title: impl Into<String>) -> Self {
        Agreement { title: title.into(), rows: Vec::new() }
    }

    /// A row of two texts.
    pub fn row(
        &mut self,
        what: impl Into<String>,
        predicted: impl Into<String>,
        observed: impl Into<String>,
    ) -> &mut Self {
        self.rows.push((what.into(), predicted.into(), observed.into()));
        self
    }

    /// A row of two counts (printed with thousands separators).
    pub fn count(&mut self, what: impl Into<String>, predicted: u64, observed: u64) -> &mut Self {
        self.row(what, thousands(predicted), thousands(observed))
    }

    /// The title.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The rows: (what, predicted, observed).
    pub fn rows(&self) -> &[(String, String, String)] {
        &self.rows
    }

    /// True when every row's two sides are equal.
    pub fn all_agree(&self) -> bool {
        self.rows.iter().all(|(_, p, o)| p == o)
    }

    /// Itself when every row agrees; else prints itself and returns the
    /// error of [`ensure`](Agreement::ensure). A notebook cell ending in
    /// `agreement.checked()?` shows the ✓ table, or fails.
    pub fn checked(self) -> Result<Agreement> {
        if let Err(e) = self.ensure() {
            for (w, p, o) in &self.rows {
                println!("{} {w}: predicted {p}, observed {o}", if p == o { "✓" } else { "≠" });
            }
            return Err(e);
        }
        Ok(self)
    }

    /// Append the rows of `other`.
    pub fn and(mut self, other: Agreement) -> Agreement {
        self.rows.extend(other.rows);
        self
    }

    /// The table read from the servers beside the predicted one: slots and
    /// keys (`DBSIZE`) per node, and slot by slot.
    pub fn tables(
        title: impl Into<String>,
        predicted: &Slots,
        observed: &Snapshot,
        keys: &HashedKeys,
    ) -> Result<Agreement> {
        let names = observed.slots.nodes().to_vec();
        let predicted = predicted.ordered_as(names.clone())?;
        let mut load = vec![0u64; names.len()];
        for n in predicted.assign(keys) {
            load[n as usize] += 1;
        }
        let (ps, os) = (predicted.slot_counts(), observed.slots.slot_counts());
        let mut a = Agreement::new(title);
        for (i, n) in names.iter().enumerate() {
            a.count(format!("{n}: slots"), ps[i] as u64, os[i] as u64);
        }
        for (i, n) in names.iter().enumerate() {
            a.count(format!("{n}: keys (DBSIZE)"), load[i], observed.keys_per_node[i]);
        }
        let differ = predicted.moved_slots(&observed.slots).len();
        a.count("slots on the predicted node", SLOT_COUNT as u64, (SLOT_COUNT - differ) as u64);
        Ok(a)
    }

    /// The slots that changed node between two snapshots, per (from, to),
    /// beside a plan's.
    pub fn slot_moves(title: impl Into<String>, plan: &SlotPlan, before: &Snapshot, after: &Snapshot) -> Agreement {
        let mut predicted: BTreeMap<(String, String), u64> = BTreeMap::new();
        for m in plan.moves() {
            *predicted.entry((m.from.clone(), m.to.clone())).or_default() += m.slots.len() as u64;
        }
        let mut observed: BTreeMap<(String, String), u64> = BTreeMap::new();
        for s in 0..SLOT_COUNT {
            let a = &before.slots.nodes()[before.slots.table()[s] as usize];
            let b = &after.slots.nodes()[after.slots.table()[s] as usize];
            if a != b {
                *observed.entry((a.clone(), b.clone())).or_default() += 1;
            }
        }
        let mut pairs: Vec<&(String, String)> = predicted.keys().chain(observed.keys()).collect();
        pairs.sort();
        pairs.dedup();
        let mut a = Agreement::new(title);
        for p in pairs {
            a.count(
                format!("slots {} → {}", p.0, p.1),
                predicted.get(p).copied().unwrap_or(0),
                observed.get(p).copied().unwrap_or(0),
            );
        }
        a.count("slots moved", predicted.values().sum(), observed.values().sum());
        a
    }

    /// Two movements, figure by figure: keys moved, and keys per
    /// (from, to) pair of nodes.
    pub fn movements(title: impl Into<String>, predicted: &Movement, observed: &Movement) -> Agreement {
        let mut a = Agreement::new(title);
        a.count("keys compared", predicted.keys(), observed.keys());
        let cells = |m: &Movement| -> BTreeMap<(String, String), u64> {
            let mut c = BTreeMap::new();
            for (i, row) in m.matrix().iter().enumerate() {
                for (j, &k) in row.iter().enumerate() {
                    if i != j && k > 0 {
                        c.insert((m.nodes()[i].clone(), m.nodes()[j].clone()), k);
                    }
                }
            }
            c
        };
        let (p, o) = (cells(predicted), cells(observed));
        let mut pairs: Vec<&(String, String)> = p.keys().chain(o.keys()).collect();
        pairs.sort();
        pairs.dedup();
        for pair in pairs {
            a.count(
                format!("keys {} → {}", pair.0, pair.1),
                p.get(pair).copied().unwrap_or(0),
                o.get(pair).copied().unwrap_or(0),
            );
        }
        a.count("keys moved", predicted.moved(), observed.moved());
        a.count("keys that stayed", predicted.keys() - predicted.moved(), observed.keys() - observed.moved());
        a
    }

    /// `Ok` when every row agrees, else an error naming the rows that
    /// don't (a notebook cell that ends in `.ensure()?` fails on a mismatch).
    pub fn ensure(&self) -> Result<()> {
        let bad: Vec<String> = self
            .rows
            .iter()
            .filter(|(_, p, o)| p != o)
            .map(|(w, p, o)| format!("{w}: predicted {p}, observed {o}"))
            .collect();
        if bad.is_empty() {
            Ok(())
        } else {
            Err(Error::Redis(format!("{}: prediction ≠ observation\n{}", self.title, bad.join("\n"))))
        }
    }
}

/// A local Redis Cluster of masters only, on 127.0.0.1; stopped, with its
/// files removed, when dropped (see the [module docs](self)).
pub struct RedisCluster {
    servers: Vec<Server>,
    /// The name of the node `redis-cli` is pointed at.
    entry: String,
    redis_server: PathBuf,
    redis_cli: PathBuf,
}

impl std::fmt::Debug for RedisCluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.servers.iter().map(|s| (&s.name, s.port, &s.id))).finish()
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
            let s = Server::start(n, &cluster.redis_server)?;
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
        self.servers.iter().map(|s| s.name.clone()).collect()
    }

    fn server(&self, name: &str) -> Result<&Server> {
        self.servers.iter().find(|s| s.name == name).ok_or_else(|| Error::UnknownNode(name.to_string()))
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
        Ok(self.server(name)?.pid)
    }

    /// The directory of node `name` (removed when the node stops).
    pub fn dir(&self, name: &str) -> Result<PathBuf> {
        Ok(self.server(name)?.dir.clone())
    }

    /// The node `redis-cli` is pointed at: the first one started (the
    /// first one left, after it leaves).
    fn entry(&self) -> &Server {
        self.servers.iter().find(|s| s.name == self.entry).unwrap_or(&self.servers[0])
    }

    /// The name of the node `redis-cli` is pointed at.
    pub fn entry_name(&self) -> &str {
        &self.entry().name
    }

    /// `text` with every `127.0.0.1:port` (and bare node id) of a node
    /// replaced by the node's name, so printed replies don't change from
    /// run to run: `MOVED 866 127.0.0.1:30467` → `MOVED 866 D`.
    pub fn named_text(&self, text: &str) -> String {
        let mut t = text.to_string();
        for s in &self.servers {
            t = t.replace(&format!("{HOST}:{}", s.port), &s.name).replace(&s.id, &s.name);
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
    fn cluster_nodes(&self, server: &Server) -> Result<Vec<(String, String, Vec<u16>)>> {
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
            names.push(s.name.clone());
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
                return Ok(Some(format!("{} reports the cluster not ok", s.name)));
            }
            let lines = self.cluster_nodes(s)?;
            let mut seen: Vec<&String> = lines.iter().map(|l| &l.0).collect();
            seen.sort();
            if seen != ids {
                return Ok(Some(format!("{} knows {} nodes of {}", s.name, seen.len(), ids.len())));
            }
            if let Some(l) =
                lines.iter().find(|l| l.1.contains("handshake") || l.1.contains("fail") || l.1.contains("noaddr"))
            {
                return Ok(Some(format!("{} flags a node {}", s.name, l.1)));
            }
            let table: BTreeMap<String, Vec<u16>> = lines.into_iter().map(|(id, _, slots)| (id, slots)).collect();
            match &first {
                None => first = Some(table),
                Some(t) if *t != table => return Ok(Some(format!("{} sees another slot table", s.name))),
                Some(_) => {}
            }
        }
        Ok(None)
    }

    /// Write every key of `keys` (value: its number, `user:7` → `"7"`),
    /// routed by the crate: each key goes to the node that
    /// [`slots`](RedisCluster::slots) says serves its slot, as pipelined
    /// `SET`s over one connection per node, all nodes at once. A wrong
    /// route would come back as a `MOVED` error, counted in
    /// [`Loaded::redirected`].
    pub fn load(&self, keys: &KeySet) -> Result<Loaded> {
        let slots = self.slots()?;
        let t0 = Instant::now();
        let mut by_node: Vec<Vec<usize>> = vec![Vec::new(); slots.nodes().len()];
        let mut w = keys.writer();
        for i in 0..keys.len() {
            by_node[slots.table()[usize::from(key_slot(w.key(i)))] as usize].push(i);
        }
        let results: Vec<Result<(u64, u64, u64)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = by_node
                .iter()
                .enumerate()
                .map(|(n, idx)| {
                    let port = self.server(&slots.nodes()[n]).map(|s| s.port);
                    scope.spawn(move || -> Result<(u64, u64, u64)> {
                        let mut conn = Conn::open(port?).map_err(io_err("connect"))?;
                        let mut w = keys.writer();
                        let (mut ok, mut redirected, mut errors) = (0, 0, 0);
                        let commands = idx.iter().map(|&i| {
                            let key = w.key(i).to_vec();
                            [b"SET".to_vec(), key, i.to_string().into_bytes()]
                        });
                        conn.pipeline(commands, |r| match r {
                            Reply::Status(_) => ok += 1,
                            Reply::Error(e) if e.starts_with("MOVED") || e.starts_with("ASK") => redirected += 1,
                            _ => errors += 1,
                        })
                        .map_err(io_err("load keys"))?;
                        Ok((ok, redirected, errors))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(Error::Redis("a loader thread panicked".into()))))
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
            let s = self.server(name)?;
            let own: Vec<usize> = (0..SLOT_COUNT).filter(|&x| slots.table()[x] == n as NodeId).collect();
            let mut conn = Conn::open(s.port).map_err(io_err("connect"))?;
            let mut counts = Vec::with_capacity(own.len());
            let commands = own.iter().map(|x| ["CLUSTER".to_string(), "COUNTKEYSINSLOT".to_string(), x.to_string()]);
            conn.pipeline(commands, |r| counts.push(r)).map_err(io_err("count keys"))?;
            for (&x, r) in own.iter().zip(counts) {
                keys_per_slot[x] = r.integer()? as u64;
            }
            keys_per_node.push(conn.call(&["DBSIZE"]).map_err(io_err("DBSIZE"))?.integer()? as u64);
        }
        Ok(Snapshot { slots, keys_per_slot, keys_per_node })
    }

    /// Start a new empty server `name` and join it to the cluster with
    /// `redis-cli --cluster add-node`: it serves no slots yet. Returns when
    /// every node knows it.
    pub fn add_node(&mut self, name: &str) -> Result<CliRun> {
        if self.servers.iter().any(|s| s.name == name) {
            return Err(Error::DuplicateNode(name.to_string()));
        }
        let s = Server::start(name, &self.redis_server)?;
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
            self.entry = self.servers.iter().find(|s| s.name != name).expect("another node").name.clone();
        }
        let id = self.id(name)?;
        let run = self.cli(vec!["--cluster".into(), "del-node".into(), self.entry_addr(), id])?;
        let at = self.servers.iter().position(|s| s.name == name).expect("still listed");
        let gone = self.servers.remove(at);
        let deadline = Instant::now() + Duration::from_secs(10);
        while gone.alive() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        drop(gone);
        self.wait_agreed()?;
        Ok(run)
    }

    /// Check a sample of keys (every `step`-th of `keys`) against the
    /// crate: the slot Redis computes (`CLUSTER KEYSLOT`) equals
    /// [`key_slot`], and `GET` at the node the crate names for it answers
    /// the value written by [`load`](RedisCluster::load), not a redirect.
    pub fn check_sample(&self, keys: &KeySet, step: usize, predicted: &Slots) -> Result<Agreement> {
        let step = step.max(1);
        let sample: Vec<usize> = (0..keys.len()).step_by(step).collect();
        let mut by_node: HashMap<&str, Vec<usize>> = HashMap::new();
        for &i in &sample {
            let key = keys.key(i);
            by_node
                .entry(predicted.nodes()[predicted.table()[usize::from(key_slot(key.as_bytes()))] as usize].as_str())
                .or_default()
                .push(i);
        }
        let (mut slot_ok, mut served, mut redirects) = (0u64, 0u64, 0u64);
        for (node, idx) in &by_node {
            let s = self.server(node)?;
            let mut conn = Conn::open(s.port).map_err(io_err("connect"))?;
            let mut replies = Vec::new();
            let commands = idx.iter().flat_map(|&i| {
                let k = keys.key(i);
                [vec!["CLUSTER".to_string(), "KEYSLOT".to_string(), k.clone()], vec!["GET".to_string(), k]]
            });
            conn.pipeline(commands, |r| replies.push(r)).map_err(io_err("check keys"))?;
            for (&i, pair) in idx.iter().zip(replies.chunks(2)) {
                if pair[0] == Reply::Integer(i64::from(key_slot(keys.key(i).as_bytes()))) {
                    slot_ok += 1;
                }
                match &pair[1] {
                    Reply::Bulk(Some(v)) if *v == i.to_string().into_bytes() => served += 1,
                    Reply::Error(e) if e.starts_with("MOVED") || e.starts_with("ASK") => redirects += 1,
                    _ => {}
                }
            }
        }
        let n = sample.len() as u64;
        let mut a =
            Agreement::new(format!("{} sampled keys (every {step}th) asked of the node the crate names", thousands(n)));
        a.count("CLUSTER KEYSLOT = the crate's key_slot", n, slot_ok);
        a.count("GET answered with the value written", n, served);
        a.count("MOVED/ASK redirects", 0, redirects);
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_is_a_typed_error() {
        assert_eq!(
            find_program("reshard-no-such-program"),
            Err(Error::RedisMissing { program: "reshard-no-such-program" })
        );
        assert!(find_program("sh").is_ok());
    }

    #[test]
    fn cli_moves_and_ansi() {
        let run = CliRun { args: vec![], output: "x\nMoving 1366 slots from B to D\n####\n".into(), seconds: 0.0 };
        assert_eq!(run.moves(), [("B".to_string(), "D".to_string(), 1366)]);
        assert_eq!(strip_ansi("\u{1b}[31;1m*** ERR\u{1b}[0m"), "*** ERR");
    }

    #[test]
    fn agreement_fails_on_a_mismatch() {
        let mut a = Agreement::new("t");
        a.count("same", 1, 1);
        assert!(a.ensure().is_ok());
        a.count("differs", 1, 2);
        assert!(matches!(a.ensure(), Err(Error::Redis(m)) if m.contains("differs: predicted 1, observed 2")));
    }
}
