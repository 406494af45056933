//! A local etcd cluster, the crate's shard map store: who owns each shard,
//! decided without split brain, watched by routers, with leases for the
//! nodes' heartbeats (DDIA 2nd ed. ch. 7, "Request Routing").
//!
//! ```
//! use reshard::live::{etcd_version, Cas, Etcd};
//! # if etcd_version().is_err() { return Ok(()); } // not installed here
//! let etcd = Etcd::start()?; // 3 members on 127.0.0.1, ready in about 2.5 s
//! let rev = etcd.put(b"/shards/07", b"B")?;
//! let kv = etcd.get(b"/shards/07")?.expect("just written");
//! assert_eq!((kv.value.as_slice(), kv.mod_revision, kv.version), (&b"B"[..], rev, 1));
//! // Two controllers read revision `rev` and race to move shard 7: one wins.
//! assert!(etcd.compare_and_swap(b"/shards/07", rev, b"C")?.won());
//! match etcd.compare_and_swap(b"/shards/07", rev, b"A")? {
//!     Cas::Lost { current, .. } => assert_eq!(current.expect("still there").value, b"C"),
//!     Cas::Won { .. } => unreachable!("the entry changed since rev"),
//! }
//! let lease = etcd.grant(1)?; // asked 1 s, granted 2 s under the default timings
//! assert_eq!((lease.asked, lease.granted), (1, 2));
//! let status = etcd.status(0)?;
//! assert!(status.leader.is_some() && status.term >= 2);
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! **Who decides the map.** DDIA names three ways to route a request:
//! any node forwards it, a routing tier forwards it, or the client knows
//! the map. All three need one map that every router agrees on, and a
//! controller that changes it without two controllers undoing each
//! other: a coordination service (ZooKeeper for HBase and SolrCloud, etcd
//! for Kubernetes and Vitess, MongoDB's config servers, built-in Raft in
//! Kafka, TiDB, YugabyteDB). Here it is etcd: each shard's owner is one
//! key, a move is a compare-and-swap on the key's `mod_revision` (of two
//! controllers that read the same revision exactly one wins; the loser
//! gets the current value back), and every write raises the store's
//! revision by exactly 1.
//!
//! **How routers learn of a change**: they read the map again when a node
//! says they are stale, they poll it, or they watch it
//! ([`watch`](Etcd::watch): every change from a revision on, pushed).
//! [`analysis::refresh`](crate::analysis::refresh) counts what each costs.
//!
//! **Fencing tokens.** A key's `mod_revision` rises every time it is
//! written, so it serves as a fencing token: a storage node that remembers
//! the highest it has seen for a shard refuses a write carrying a lower one
//! (see [`FencedNodes`](crate::live::FencedNodes)).
//!
//! **The driver.** [`Etcd::start_with`] starts 1 to 7 members (`etcd`
//! 3.4), each on two ports of 127.0.0.1 (client, peer) and in its own
//! directory, under the crate's watchdog: stopped, directory and all, when
//! the `Etcd` is dropped, on a panic, or when this process dies (SIGKILL
//! included). Timings are [`EtcdTimings`]: etcd's defaults (100/1000 ms),
//! or faster (20/200 ms) for tests that kill a leader, with or without
//! `--pre-vote`. The crate speaks etcd's v3 JSON gateway (`/v3/kv/range`,
//! `/v3/kv/put`, `/v3/kv/txn`, `/v3/lease/grant`, `/v3/watch`,
//! `/v3/maintenance/status`) over its own HTTP client: keys and values are
//! sent in base64, so any bytes round-trip. Heartbeats are `etcdctl lease
//! keep-alive` children ([`Heartbeat`]), which a lab pauses with SIGSTOP.
//!
//! **Errors name the member.** A member that refuses, closes or has
//! stopped is [`Error::ServerFailed`] or [`Error::ServerTimeout`]; an error
//! etcd answers is [`Error::ServerRefused`] with etcd's own message; each
//! names the member and its port.

mod base64;
mod client;
mod heartbeat;
pub(crate) mod json;
mod leader;
mod logs;
mod watch;

pub use crate::analysis::leases::EtcdTimings;
pub use client::{Cas, EtcdClient, Kv, Lease, Status, MAX_KEY_BYTES, MAX_RANGE_KEYS, MAX_TXN_PUTS, MAX_VALUE_BYTES};
pub use heartbeat::Heartbeat;
pub use leader::LeaderLoss;
pub use watch::{EventKind, Watch, WatchEvent};

use crate::live::client::REPLY_WITHIN;
use crate::live::ports::PortLease;
use crate::live::process::{
    find_program, log_tail, new_dir, next_number, process_alive, signal, version_text, Supervised, HOST, START_WITHIN,
};
use crate::{Error, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The most members one cluster has.
pub const MAX_MEMBERS: usize = 7;

/// The installed etcd version (`etcd --version`), e.g. `"3.4.23"`, after
/// checking that `etcdctl` is there too; else [`Error::ProgramMissing`],
/// whose message says how to install them.
pub fn etcd_version() -> Result<String> {
    let etcd = find_program("etcd")?;
    find_program("etcdctl")?;
    let text = version_text(&etcd, "--version")?;
    // "etcd Version: 3.4.23\nGit SHA: …"
    Ok(text
        .lines()
        .find_map(|l| l.strip_prefix("etcd Version:"))
        .map_or_else(|| text.trim().to_string(), |v| v.trim().to_string()))
}

/// Runs etcd, and again after it is killed when asked (SIGUSR1); on
/// SIGTERM (the watchdog stopping it) kills etcd at once (its data goes
/// with its directory: nothing to shut down cleanly) and waits for it, so
/// the watchdog removes the directory only after etcd is gone. Writes each
/// etcd's pid to `$dir/pid`.
const RUNNER: &str = r#"dir=$1; shift
pid=
trap 'kill -KILL "$pid" 2>/dev/null; kill -CONT "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; exit 0' TERM
trap 'restart=1' USR1
restart=1
while :; do
  if [ -n "$restart" ] && { [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; }; then
    restart=
    "$@" >>"$dir/etcd.out" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$dir/pid.new" && mv "$dir/pid.new" "$dir/pid"
  fi
  restart=
  if kill -0 "$pid" 2>/dev/null; then wait "$pid"; else sleep 1 & wait $!; fi
done
"#;

/// One member: its ports, and the runner (under the watchdog) that runs
/// its etcd.
#[derive(Debug)]
struct Member {
    name: String,
    client: PortLease,
    peer: PortLease,
    runner: Supervised,
    id: u64,
}

impl Member {
    fn dir(&self) -> &Path {
        self.runner.dir()
    }

    /// The pid of its etcd now (0 before the first start).
    fn etcd_pid(&self) -> u32 {
        std::fs::read_to_string(self.dir().join("pid")).ok().and_then(|p| p.trim().parse().ok()).unwrap_or(0)
    }

    fn running(&self) -> bool {
        let pid = self.etcd_pid();
        pid != 0 && process_alive(pid)
    }

    fn log_path(&self) -> PathBuf {
        self.dir().join("etcd.log")
    }

    fn client(&self, within: Duration) -> EtcdClient {
        EtcdClient::new(&self.name, self.client.port(), within)
    }

    /// The last lines of its log and of what it printed.
    fn tail(&self) -> String {
        let out = log_tail(&self.dir().join("etcd.out"), 3);
        let log = log_tail(&self.log_path(), 5);
        [out, log].into_iter().filter(|t| !t.trim().is_empty()).collect::<Vec<_>>().join("\n")
    }
}

/// A local etcd cluster on 127.0.0.1 (see the [module docs](self));
/// stopped, with its directories, when dropped.
pub struct Etcd {
    members: Vec<Member>,
    timings: EtcdTimings,
    reply_within: Duration,
    started_in: f64,
}

impl std::fmt::Debug for Etcd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Etcd")
            .field("members", &self.members.iter().map(|m| (&m.name, m.client.port())).collect::<Vec<_>>())
            .field("timings", &self.timings.label())
            .finish()
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        for m in &mut self.members {
            m.runner.release();
        }
        self.members.clear();
    }
}

impl Etcd {
    /// Three members with etcd's default timings (100/1000 ms, no
    /// pre-vote); returns when every member is healthy (has a leader).
    pub fn start() -> Result<Etcd> {
        Etcd::start_with(3, EtcdTimings::default())
    }

    /// `members` members (1 to [`MAX_MEMBERS`]; 3 or 5 is usual) with these
    /// timings.
    pub fn start_with(members: usize, timings: EtcdTimings) -> Result<Etcd> {
        if !(1..=MAX_MEMBERS).contains(&members) {
            return Err(Error::OutOfRange {
                what: "etcd members",
                given: members.to_string(),
                allowed: format!("1 to {MAX_MEMBERS} (3 is usual: it survives one failure)"),
            });
        }
        let etcd = find_program("etcd")?;
        let mut last = None;
        for _ in 0..3 {
            match Etcd::try_start(&etcd, members, timings) {
                Ok(e) => return Ok(e),
                Err(e) if e.to_string().contains("address already in use") => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| Error::NoFreePort { node: "etcd".into(), tries: 3 }))
    }

    fn try_start(etcd: &Path, n: usize, timings: EtcdTimings) -> Result<Etcd> {
        let t0 = Instant::now();
        let token = format!("reshard-{}-{}", std::process::id(), next_number());
        let ports: Vec<(PortLease, PortLease)> =
            (0..n).map(|_| Ok((PortLease::take()?, PortLease::take()?))).collect::<Result<_>>()?;
        let names: Vec<String> = (0..n).map(|i| format!("etcd{i}")).collect();
        let initial: Vec<String> =
            names.iter().zip(&ports).map(|(name, (_, p))| format!("{name}=http://{HOST}:{}", p.port())).collect();
        let mut e = Etcd { members: Vec::new(), timings, reply_within: REPLY_WITHIN, started_in: 0.0 };
        for (name, (client, peer)) in names.into_iter().zip(ports) {
            let dir = new_dir("etcd")?;
            let url = |p: &PortLease| format!("http://{HOST}:{}", p.port());
            let mut args: Vec<OsString> = ["-c", RUNNER, "reshard-etcd"].iter().map(OsString::from).collect::<Vec<_>>();
            args.push(dir.clone().into());
            args.push(etcd.into());
            let flags = [
                ("--name", name.clone()),
                ("--data-dir", dir.join("data").display().to_string()),
                ("--listen-client-urls", url(&client)),
                ("--advertise-client-urls", url(&client)),
                ("--listen-peer-urls", url(&peer)),
                ("--initial-advertise-peer-urls", url(&peer)),
                ("--initial-cluster", initial.join(",")),
                ("--initial-cluster-state", "new".into()),
                ("--initial-cluster-token", token.clone()),
                ("--heartbeat-interval", timings.heartbeat_ms().to_string()),
                ("--election-timeout", timings.election_ms().to_string()),
                ("--pre-vote", timings.pre_vote().to_string()),
                ("--logger", "zap".into()),
                ("--log-outputs", dir.join("etcd.log").display().to_string()),
            ];
            for (flag, value) in flags {
                args.push(format!("{flag}={value}").into());
            }
            let runner = Supervised::start(&name, Path::new("sh"), &args, dir)?;
            e.members.push(Member { name, client, peer, runner, id: 0 });
        }
        for i in 0..n {
            e.wait_healthy(i, t0 + START_WITHIN)?;
        }
        for i in 0..n {
            let s = e.members[i].client(e.reply_within).status_raw()?;
            e.members[i].id = s.member_id;
        }
        e.started_in = t0.elapsed().as_secs_f64();
        Ok(e)
    }

    /// Wait until member `i` says it is healthy (it has a leader and
    /// answers a read), until `deadline`; fails, with its log, if its etcd
    /// exits first.
    fn wait_healthy(&self, i: usize, deadline: Instant) -> Result<()> {
        let m = &self.members[i];
        let mut started = false;
        loop {
            let pid = m.etcd_pid();
            started |= pid != 0;
            if pid != 0 && health(m.client.port()) {
                return Ok(());
            }
            let why = if started && !process_alive(pid) {
                Some("its etcd exited before it was healthy")
            } else if Instant::now() > deadline {
                Some("it was not healthy (no leader, or no answer) in time")
            } else {
                None
            };
            if let Some(why) = why {
                return Err(Error::ServerFailed {
                    node: m.name.clone(),
                    port: m.client.port(),
                    problem: format!("{why}; its log ends:\n{}", m.tail()),
                    source: None,
                });
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn member(&self, i: usize) -> Result<&Member> {
        self.members.get(i).ok_or(Error::NodeOutOfRange { index: i as u64, nodes: self.members.len() })
    }

    /// How many members.
    pub fn members(&self) -> usize {
        self.members.len()
    }

    /// The members' names: `etcd0`, `etcd1`, …
    pub fn names(&self) -> Vec<String> {
        self.members.iter().map(|m| m.name.clone()).collect()
    }

    /// The timings the members run with.
    pub fn timings(&self) -> EtcdTimings {
        self.timings
    }

    /// Seconds from the start until every member was healthy.
    pub fn start_seconds(&self) -> f64 {
        self.started_in
    }

    /// Member `i`'s client port on 127.0.0.1.
    pub fn port(&self, i: usize) -> Result<u16> {
        Ok(self.member(i)?.client.port())
    }

    /// Member `i`'s peer port (raft traffic between members).
    pub fn peer_port(&self, i: usize) -> Result<u16> {
        Ok(self.member(i)?.peer.port())
    }

    /// Member `i`'s raft id (as its status and its log print it, in hex).
    pub fn member_id(&self, i: usize) -> Result<u64> {
        Ok(self.member(i)?.id)
    }

    /// Member `i`'s directory (its data and log; removed when it stops).
    pub fn dir(&self, i: usize) -> Result<PathBuf> {
        Ok(self.member(i)?.dir().to_path_buf())
    }

    /// The pid of member `i`'s etcd, while it runs.
    pub fn pid(&self, i: usize) -> Result<Option<u32>> {
        let m = self.member(i)?;
        Ok(m.running().then(|| m.etcd_pid()))
    }

    /// Whether member `i`'s etcd runs.
    pub fn running(&self, i: usize) -> Result<bool> {
        Ok(self.member(i)?.running())
    }

    /// Every process of the cluster (each member's runner and etcd) and
    /// its directory: what must be gone once the cluster is.
    pub fn footprint(&self) -> Vec<(u32, PathBuf)> {
        let mut out = Vec::new();
        for m in &self.members {
            out.push((m.runner.pid(), m.dir().to_path_buf()));
            if m.running() {
                out.push((m.etcd_pid(), m.dir().to_path_buf()));
            }
        }
        out
    }

    /// The client endpoints of the running members, `127.0.0.1:port`
    /// each, comma-separated (as `etcdctl --endpoints` takes them).
    pub fn endpoints(&self) -> String {
        let running = self.members.iter().filter(|m| m.running());
        running.map(|m| format!("{HOST}:{}", m.client.port())).collect::<Vec<_>>().join(",")
    }

    /// How long every call may wait for its answer, from now on (default
    /// 10 s; more than 0).
    pub fn set_reply_timeout(&mut self, within: Duration) -> Result<()> {
        self.reply_within = super::client::reply_timeout(within)?;
        Ok(())
    }

    /// A client of member `i` (it fails, naming the member, while the
    /// member is down).
    pub fn client_of(&self, i: usize) -> Result<EtcdClient> {
        Ok(self.member(i)?.client(self.reply_within))
    }

    /// A client of the first running member.
    pub fn client(&self) -> Result<EtcdClient> {
        match self.members.iter().find(|m| m.running()) {
            Some(m) => Ok(m.client(self.reply_within)),
            None => {
                let m = &self.members[0];
                Err(Error::NotRunning {
                    node: m.name.clone(),
                    port: m.client.port(),
                    doing: "answer (no member runs)".into(),
                })
            }
        }
    }

    /// Put `value` at `key` (through the first running member); the new
    /// revision.
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<u64> {
        self.client()?.put(key, value)
    }

    /// The key-value at `key`, if there is one.
    pub fn get(&self, key: &[u8]) -> Result<Option<Kv>> {
        self.client()?.get(key)
    }

    /// Every key-value whose key starts with `prefix`, in key order, and
    /// the store's revision when read.
    pub fn get_prefix(&self, prefix: &[u8]) -> Result<(Vec<Kv>, u64)> {
        self.client()?.get_prefix(prefix)
    }

    /// Put `value` at `key` only if the key's mod revision is still
    /// `expected` (0: only if the key does not exist).
    pub fn compare_and_swap(&self, key: &[u8], expected: u64, value: &[u8]) -> Result<Cas> {
        self.client()?.compare_and_swap(key, expected, value)
    }

    /// A lease of `ttl` seconds (1 to etcd's longest); etcd may grant more.
    pub fn grant(&self, ttl: u64) -> Result<Lease> {
        self.client()?.grant(ttl)
    }

    /// Every change to keys under `prefix` from revision `from` on (0:
    /// from now), pushed as it happens.
    pub fn watch(&self, prefix: &[u8], from: u64) -> Result<Watch> {
        self.client()?.watch(prefix, from)
    }

    /// Keep `lease` alive with an `etcdctl lease keep-alive` child (over
    /// every running member), which [`Heartbeat::pause`] stops with
    /// SIGSTOP.
    pub fn keep_alive(&self, lease: &Lease) -> Result<Heartbeat> {
        Heartbeat::start(&self.endpoints(), lease)
    }

    /// Member `i`'s status: its leader, raft term and index, revision.
    pub fn status(&self, i: usize) -> Result<Status> {
        let m = self.member(i)?;
        if !m.running() {
            return Err(Error::NotRunning {
                node: m.name.clone(),
                port: m.client.port(),
                doing: "give its status".into(),
            });
        }
        let mut s = m.client(self.reply_within).status_raw()?;
        s.leader = self.members.iter().find(|o| o.id == s.leader_id && s.leader_id != 0).map(|o| o.name.clone());
        Ok(s)
    }

    /// The index of the member every running member names as leader;
    /// fails when they do not agree or there is none.
    pub fn leader(&self) -> Result<usize> {
        let mut seen = None;
        for i in 0..self.members.len() {
            if !self.members[i].running() {
                continue;
            }
            let s = self.status(i)?;
            let at = self.members.iter().position(|m| m.id == s.leader_id && s.leader_id != 0);
            match (seen, at) {
                (_, None) => {
                    return Err(Error::NotSettled {
                        waited: Duration::ZERO,
                        why: format!("{} has no leader", s.member),
                    })
                }
                (None, Some(a)) => seen = Some(a),
                (Some(b), Some(a)) if a != b => {
                    return Err(Error::NotSettled {
                        waited: Duration::ZERO,
                        why: format!(
                            "{} names {} as leader, another member names {}",
                            s.member, self.members[a].name, self.members[b].name
                        ),
                    })
                }
                _ => {}
            }
        }
        seen.ok_or_else(|| Error::NotRunning {
            node: self.members[0].name.clone(),
            port: self.members[0].client.port(),
            doing: "name a leader (no member runs)".into(),
        })
    }

    /// Kill member `i`'s etcd with SIGKILL (as a crash would); its data
    /// stays for [`restart`](Self::restart). Fails when it is not running.
    pub fn kill(&mut self, i: usize) -> Result<()> {
        let m = self.member(i)?;
        let pid = m.etcd_pid();
        if !m.running() {
            return Err(Error::NotRunning { node: m.name.clone(), port: m.client.port(), doing: "be killed".into() });
        }
        signal(pid, "KILL")?;
        let deadline = Instant::now() + Duration::from_secs(5);
        while process_alive(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    }

    /// Start member `i`'s etcd again on its data and ports; returns when it
    /// is healthy again. Fails when it runs.
    pub fn restart(&mut self, i: usize) -> Result<()> {
        let m = self.member(i)?;
        if m.running() {
            return Err(Error::AlreadyRunning { node: m.name.clone(), port: m.client.port() });
        }
        let old = m.etcd_pid();
        signal(m.runner.pid(), "USR1")?;
        let deadline = Instant::now() + START_WITHIN;
        while m.etcd_pid() == old {
            if Instant::now() > deadline || !m.runner.alive() {
                return Err(Error::ServerFailed {
                    node: m.name.clone(),
                    port: m.client.port(),
                    problem: "its etcd did not start again".into(),
                    source: None,
                });
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.wait_healthy(i, deadline)
    }

    /// Kill the leader and measure what the cluster does: see
    /// [`LeaderLoss`].
    pub fn kill_leader(&mut self) -> Result<LeaderLoss> {
        leader::kill_leader(self)
    }
}

/// True when the member on `port` answers `/health` with `"health":"true"`.
fn health(port: u16) -> bool {
    crate::live::http::get(port, "/health").is_ok_and(|r| {
        r.status == 200
            && json::Json::parse(&r.body).is_ok_and(|v| v.get("health").and_then(|h| h.text()) == Some("true"))
    })
}
