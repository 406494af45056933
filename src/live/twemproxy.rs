//! twemproxy (`nutcracker`) in front of `redis-server` backends, started on
//! this machine, and where each key really went.
//!
//! [`Nutcracker::start`] starts one `redis-server` per backend (`--bind
//! 127.0.0.1 --save "" --appendonly no`) and one `nutcracker` whose YAML
//! config is written from a [`NutcrackerConfig`]: `distribution` (ketama,
//! modula, random), `hash` (fnv1a_64, md5, crc32a, murmur, …), `hash_tag`,
//! the servers `127.0.0.1:PORT:WEIGHT NAME`, `auto_eject_hosts`,
//! `server_failure_limit`, `server_retry_timeout`, `preconnect`. Every
//! process binds 127.0.0.1 only, runs in its own temporary directory under
//! the watchdog of [`process`](super::process), and is stopped, its
//! directory removed, when the driver is dropped or this process dies.
//!
//! The driver predicts nothing; it observes:
//!
//! * [`set_keys`](Nutcracker::set_keys) writes keys through the proxy;
//! * [`where_stored`](Nutcracker::where_stored) reads every backend directly
//!   (`KEYS *`) and names, per key, the backends that hold it;
//! * [`where_routed`](Nutcracker::where_routed) sends `GET key` through the
//!   proxy while each backend runs `MONITOR`, and names, per key, the
//!   backend the proxy sent it to — without writing anything, so it works
//!   after a restart with the old keys still in place, and after a backend
//!   is stopped (a key whose backend is down and not yet ejected is routed
//!   nowhere: its `GET` gets an error reply).
//!
//! * [`write_version`](Nutcracker::write_version) and
//!   [`read_versions`](Nutcracker::read_versions) write every key with a
//!   version number and read them back through the proxy, as a cache's
//!   application would: a miss, the latest version or an older copy.
//!
//! [`restart_with`](Nutcracker::restart_with) restarts only `nutcracker` with
//! another config (twemproxy 0.5 cannot reload); the backends keep running
//! with their keys, and a server new in the config gets a new empty backend.
//! [`stop_backend`](Nutcracker::stop_backend) stops one backend, to watch
//! `auto_eject_hosts` eject it.
//!
//! ```
//! use reshard::live::{Nutcracker, NutcrackerConfig};
//! use reshard::KeySet;
//! # if reshard::live::nutcracker_version().is_err() { return Ok(()); } // not installed here
//! let keys = KeySet::users(20_000);
//! let config = NutcrackerConfig::named(["A", "B", "C"])?.with_hash("fnv1a_64")?.with_distribution("ketama")?;
//! let mut proxy = Nutcracker::start(&config)?;
//! proxy.set_keys(&keys)?;
//! let before = proxy.where_stored(&keys)?;          // per key: the backend holding it
//! proxy.restart_with(&config.add_server("D", 1)?)?;  // D starts empty; A, B, C keep their keys
//! let after = proxy.where_routed(&keys)?;           // per key: where a GET goes now
//! println!("{} of 20,000 keys now go elsewhere", before.movement_to(&after)?.moved());
//! # Ok::<(), reshard::Error>(())
//! ```

use super::client::{node_error, Conn, Reply, CONNECT_WITHIN, REPLY_WITHIN};
use super::observed::{key_list, Keys, Observed};
use super::ports::PortLease;
use super::process::{find_program, log_tail, new_dir, next_number, version_text, Supervised};
use super::process::{system, HOST, PROBE_WITHIN, START_WITHIN};
use crate::schemes::NodeId;
use crate::{Error, Result};
use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Read;
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

mod config;
mod monitor;
mod versions;
pub use config::{NutcrackerConfig, DISTRIBUTIONS, HASHES};
pub use versions::Versions;

/// The installed twemproxy version (`nutcracker -V`), e.g. `"0.5.0"`,
/// after checking that `redis-server` is there too; else
/// [`Error::ProgramMissing`], whose message says how to install it.
pub fn nutcracker_version() -> Result<String> {
    find_program("redis-server")?;
    let text = version_text(&find_program("nutcracker")?, "-V")?;
    // "This is nutcracker-0.5.0"
    Ok(text.split_whitespace().find_map(|w| w.strip_prefix("nutcracker-")).unwrap_or(text.trim()).to_string())
}

/// What writing keys through the proxy did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Written {
    /// Keys written.
    pub keys: u64,
    /// `SET`s answered `+OK`.
    pub ok: u64,
    /// `SET`s answered with an error (a backend down and not yet ejected).
    pub errors: u64,
    /// The first error reply.
    pub first_error: Option<String>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// One `redis-server` backend; `process` is `None` while it is stopped.
struct Backend {
    name: String,
    port: PortLease,
    process: Option<Supervised>,
}

/// twemproxy and its redis backends on 127.0.0.1; every process stopped and
/// every directory removed when dropped (see the [module docs](self)).
pub struct Nutcracker {
    config: NutcrackerConfig,
    pool: String,
    redis_server: PathBuf,
    nutcracker: PathBuf,
    backends: Vec<Backend>,
    proxy: Option<Supervised>,
    listen: PortLease,
    stats: PortLease,
    yaml: String,
    timings: Vec<(String, f64)>,
}

impl Nutcracker {
    /// Start a backend per server of `config`, then `nutcracker` in front of
    /// them; returns once the proxy answers `PING`.
    pub fn start(config: &NutcrackerConfig) -> Result<Nutcracker> {
        let redis_server = find_program("redis-server")?;
        let nutcracker = find_program("nutcracker")?;
        let mut t = Nutcracker {
            config: config.clone(),
            pool: format!("reshard_{}_{}", std::process::id(), next_number()),
            redis_server,
            nutcracker,
            backends: Vec::new(),
            proxy: None,
            listen: PortLease::take()?,
            stats: PortLease::take()?,
            yaml: String::new(),
            timings: Vec::new(),
        };
        t.start_backends(config)?;
        t.start_proxy("nutcracker")?;
        Ok(t)
    }

    /// The config nutcracker runs with now.
    pub fn config(&self) -> &NutcrackerConfig {
        &self.config
    }

    /// The YAML nutcracker runs with now, as written to its config file.
    pub fn config_text(&self) -> &str {
        &self.yaml
    }

    /// The proxy's port on 127.0.0.1 (clients connect here).
    pub fn port(&self) -> u16 {
        self.listen.port()
    }

    /// Every backend started so far, running or stopped, in the order they
    /// were first configured; [`Observed`] names them in this order.
    pub fn backends(&self) -> Vec<String> {
        self.backends.iter().map(|b| b.name.clone()).collect()
    }

    /// The port of backend `name` on 127.0.0.1 (the `PORT` of its
    /// `127.0.0.1:PORT:WEIGHT` server line).
    pub fn backend_port(&self, name: &str) -> Result<u16> {
        Ok(self.backend(name)?.port.port())
    }

    /// True while backend `name` runs.
    pub fn is_running(&self, name: &str) -> Result<bool> {
        Ok(self.backend(name)?.process.as_ref().is_some_and(Supervised::alive))
    }

    /// Seconds each start took: the backends, nutcracker, each restart.
    pub fn timings(&self) -> &[(String, f64)] {
        &self.timings
    }

    /// Every running process (backends, nutcracker) and its directory.
    pub fn footprint(&self) -> Vec<(u32, PathBuf)> {
        let running = self.backends.iter().filter_map(|b| b.process.as_ref()).chain(self.proxy.as_ref());
        running.map(|s| (s.pid(), s.dir().to_path_buf())).collect()
    }

    /// The last `lines` lines of nutcracker's log (its start, errors; a
    /// Debian build logs no ejections: [`stats`](Nutcracker::stats) counts them).
    pub fn log(&self, lines: usize) -> String {
        self.proxy.as_ref().map_or(String::new(), |p| log_tail(&p.dir().join("nutcracker.log"), lines))
    }

    /// nutcracker's statistics (JSON from its stats port, refreshed every
    /// second): per server `server_ejected_at`, `requests`, `server_err`, …
    pub fn stats(&self) -> Result<String> {
        self.stats_within(REPLY_WITHIN)
    }

    fn stats_within(&self, within: Duration) -> Result<String> {
        let port = self.stats.port();
        let connect = |e| node_error("nutcracker's stats", port, "connect", CONNECT_WITHIN, e);
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let mut s = TcpStream::connect_timeout(&addr, CONNECT_WITHIN).map_err(connect)?;
        let named = |e| node_error("nutcracker's stats", port, "read the stats", within, e);
        s.set_read_timeout(Some(within)).map_err(named)?;
        let mut text = String::new();
        s.read_to_string(&mut text).map_err(named)?;
        Ok(text)
    }

    /// Write every key through the proxy (`SET key i`, `i` its position),
    /// pipelined over one connection.
    pub fn set_keys<K: Keys + ?Sized>(&self, keys: &K) -> Result<Written> {
        let keys = key_list(keys)?;
        let bytes = keys.key_bytes()?;
        let t0 = Instant::now();
        let mut w = Written { keys: keys.len() as u64, ok: 0, errors: 0, first_error: None, seconds: 0.0 };
        let mut conn = Conn::open("nutcracker", self.port())?;
        let commands = (0..keys.len()).map(|i| [b"SET".to_vec(), bytes.get(i).to_vec(), i.to_string().into_bytes()]);
        conn.pipeline(commands, |r| match r {
            Reply::Status(_) => w.ok += 1,
            other => {
                w.errors += 1;
                w.first_error.get_or_insert(other.text());
            }
        })?;
        w.seconds = t0.elapsed().as_secs_f64();
        Ok(w)
    }

    /// `FLUSHALL` on every running backend: the keys written so far are gone.
    pub fn flush(&self) -> Result<()> {
        for b in self.running() {
            self.call(b, &["FLUSHALL"])?;
        }
        Ok(())
    }

    /// Per key, the running backends that hold it, read from each backend
    /// directly with `KEYS *` (keys not asked about are ignored).
    pub fn where_stored<K: Keys + ?Sized>(&self, keys: &K) -> Result<Observed> {
        let keys = key_list(keys)?;
        let bytes = keys.key_bytes()?;
        let t0 = Instant::now();
        let index: HashMap<&[u8], usize> = (0..keys.len()).map(|i| (bytes.get(i), i)).collect();
        let mut holders: Vec<Vec<NodeId>> = vec![Vec::new(); keys.len()];
        for (n, b) in self.backends.iter().enumerate() {
            if b.process.is_none() {
                continue;
            }
            if let Reply::Array(Some(items)) = self.call(b, &["KEYS", "*"])? {
                for item in items {
                    if let Reply::Bulk(Some(k)) = item {
                        if let Some(&i) = index.get(k.as_slice()) {
                            holders[i].push(n as NodeId);
                        }
                    }
                }
            }
        }
        Ok(Observed::from_holders("stored", &self.backends(), &keys, holders)?.with_errors(
            0,
            None,
            t0.elapsed().as_secs_f64(),
        ))
    }

    /// Per key, the backend the proxy sends it to now: `GET key` through the
    /// proxy, pipelined, while every running backend reports the commands
    /// it receives (`MONITOR`). Writes nothing. A `GET` answered with an
    /// error (its backend is down and not ejected yet) reaches no backend.
    pub fn where_routed<K: Keys + ?Sized>(&self, keys: &K) -> Result<Observed> {
        let keys = key_list(keys)?;
        let bytes = keys.key_bytes()?;
        let t0 = Instant::now();
        let running: Vec<(usize, String, u16)> = self
            .backends
            .iter()
            .enumerate()
            .filter(|(_, b)| b.process.is_some())
            .map(|(n, b)| (n, format!("backend {}", b.name), b.port.port()))
            .collect();
        let seen = monitor::watch(&running, || {
            let (mut errors, mut first) = (0u64, None);
            let mut conn = Conn::open("nutcracker", self.port())?;
            conn.pipeline((0..keys.len()).map(|i| [&b"GET"[..], bytes.get(i)]), |r| {
                if r.is_error() {
                    errors += 1;
                    first.get_or_insert(r.text());
                }
            })?;
            Ok((errors, first))
        })?;
        let ((errors, first), received) = seen;
        let index: HashMap<&[u8], usize> = (0..keys.len()).map(|i| (bytes.get(i), i)).collect();
        let mut holders: Vec<Vec<NodeId>> = vec![Vec::new(); keys.len()];
        for (n, got) in received {
            for k in got {
                if let Some(&i) = index.get(k.as_slice()) {
                    if !holders[i].contains(&(n as NodeId)) {
                        holders[i].push(n as NodeId);
                    }
                }
            }
        }
        Ok(Observed::from_holders("routed", &self.backends(), &keys, holders)?.with_errors(
            errors,
            first,
            t0.elapsed().as_secs_f64(),
        ))
    }

    /// Restart nutcracker with `config` (same port). Backends keep running
    /// with their keys — also those `config` no longer lists; a server new
    /// in `config` (or stopped) gets a fresh empty backend first.
    pub fn restart_with(&mut self, config: &NutcrackerConfig) -> Result<()> {
        self.start_backends(config)?;
        if let Some(p) = self.proxy.take() {
            drop(p); // waits until it is gone and its directory removed
        }
        self.config = config.clone();
        self.start_proxy("nutcracker restart")
    }

    /// Stop backend `name` (its keys go with it); nutcracker is not told.
    /// With `auto_eject_hosts`, after `server_failure_limit` failed
    /// requests it ejects the server and sends its keys elsewhere.
    pub fn stop_backend(&mut self, name: &str) -> Result<()> {
        let at = self.position(name)?;
        drop(self.backends[at].process.take());
        Ok(())
    }

    /// Start stopped backend `name` again, empty, on its old port (when
    /// free): nutcracker uses it again once `server_retry_timeout` passed.
    pub fn start_backend(&mut self, name: &str) -> Result<()> {
        let at = self.position(name)?;
        if self.backends[at].process.is_none() {
            let started = self.spawn_and_wait(at)?;
            self.backends[at].process = Some(started);
        }
        Ok(())
    }

    fn backend(&self, name: &str) -> Result<&Backend> {
        self.backends.iter().find(|b| b.name == name).ok_or_else(|| Error::UnknownNode(name.to_string()))
    }

    fn position(&self, name: &str) -> Result<usize> {
        self.backends.iter().position(|b| b.name == name).ok_or_else(|| Error::UnknownNode(name.to_string()))
    }

    fn running(&self) -> impl Iterator<Item = &Backend> {
        self.backends.iter().filter(|b| b.process.is_some())
    }

    fn call(&self, b: &Backend, args: &[&str]) -> Result<Reply> {
        Conn::open(&format!("backend {}", b.name), b.port.port())?.call(args)
    }

    /// Start every server of `config` that has no running backend: all
    /// spawned first, then each awaited.
    fn start_backends(&mut self, config: &NutcrackerConfig) -> Result<()> {
        let t0 = Instant::now();
        let mut todo = Vec::new();
        for (name, _) in config.servers() {
            let at = match self.backends.iter().position(|b| &b.name == name) {
                Some(at) => at,
                None => {
                    self.backends.push(Backend { name: name.clone(), port: PortLease::take()?, process: None });
                    self.backends.len() - 1
                }
            };
            if self.backends[at].process.is_none() {
                self.backends[at].process = Some(self.spawn_redis(at)?);
                todo.push(at);
            }
        }
        for &at in &todo {
            let b = &self.backends[at];
            let ok = wait_redis(b.process.as_ref().expect("just started"), b.port.port());
            if ok.is_err() {
                drop(self.backends[at].process.take());
                self.backends[at].port = PortLease::take()?;
                let started = self.spawn_and_wait(at)?;
                self.backends[at].process = Some(started);
            }
        }
        if !todo.is_empty() {
            self.timings.push((format!("redis-server ×{}", todo.len()), t0.elapsed().as_secs_f64()));
        }
        Ok(())
    }

    /// Start backend `at` and wait for it, on another port whenever its
    /// port turns out taken.
    fn spawn_and_wait(&mut self, at: usize) -> Result<Supervised> {
        for attempt in 0..8 {
            if attempt > 0 {
                self.backends[at].port = PortLease::take()?;
            }
            let port = self.backends[at].port.port();
            let s = self.spawn_redis(at)?;
            match wait_redis(&s, port) {
                Ok(()) => return Ok(s),
                Err(e) if e.to_string().contains("Address already in use") => {}
                Err(e) => return Err(e),
            }
        }
        Err(Error::NoFreePort { node: format!("backend {}", self.backends[at].name), tries: 8 })
    }

    fn spawn_redis(&self, at: usize) -> Result<Supervised> {
        let (name, port) = (format!("backend {}", self.backends[at].name), self.backends[at].port.port());
        let dir = new_dir("twemproxy-redis")?;
        let mut args: Vec<OsString> = ["--port", &port.to_string(), "--bind", HOST, "--save", "", "--appendonly", "no"]
            .iter()
            .map(OsString::from)
            .collect();
        args.extend(["--daemonize", "no", "--protected-mode", "yes", "--dir"].map(OsString::from));
        args.push(dir.clone().into());
        args.push("--logfile".into());
        args.push(dir.join("redis.log").into());
        Supervised::start(&name, &self.redis_server, &args, dir)
    }

    /// Write the YAML and start nutcracker; on a port taken by another
    /// process, take other ports and try again.
    fn start_proxy(&mut self, label: &str) -> Result<()> {
        let t0 = Instant::now();
        let mut last = String::new();
        for attempt in 0..8 {
            if attempt > 0 {
                (self.listen, self.stats) = (PortLease::take()?, PortLease::take()?);
            }
            let ports: HashMap<&str, u16> = self.backends.iter().map(|b| (b.name.as_str(), b.port.port())).collect();
            self.yaml = self.config.yaml(&self.pool, self.listen.port(), &ports);
            let dir = new_dir("twemproxy")?;
            let conf = dir.join("nutcracker.yml");
            std::fs::write(&conf, &self.yaml).map_err(system(format!("write {}", conf.display())))?;
            let mut args: Vec<OsString> =
                vec!["-c".into(), conf.into(), "-o".into(), dir.join("nutcracker.log").into()];
            args.extend(["-p".into(), dir.join("nutcracker.pid").into(), "-v".into(), "6".into()]);
            args.extend(["-s", &self.stats.port().to_string(), "-a", HOST, "-i", "1000"].map(OsString::from));
            let s = Supervised::start("nutcracker", &self.nutcracker, &args, dir)?;
            match self.wait_proxy(&s) {
                Ok(()) => {
                    self.proxy = Some(s);
                    self.timings.push((label.to_string(), t0.elapsed().as_secs_f64()));
                    return Ok(());
                }
                Err(why) => {
                    last = format!("{why}; nutcracker's log ends:\n{}", log_tail(&s.dir().join("nutcracker.log"), 5));
                    if !last.contains("in use") {
                        break;
                    }
                }
            }
        }
        Err(Error::ServerFailed {
            node: "nutcracker".into(),
            port: self.listen.port(),
            problem: format!("did not start: {last}\nits config:\n{}", self.yaml),
            source: None,
        })
    }

    /// Ours and ready: its stats name our pool, the proxy port answers
    /// `PING`, and it is still running.
    fn wait_proxy(&self, s: &Supervised) -> std::result::Result<(), String> {
        let deadline = Instant::now() + START_WITHIN;
        while Instant::now() < deadline {
            if !s.alive() {
                return Err("nutcracker exited".into());
            }
            let ours = self.stats_within(PROBE_WITHIN).is_ok_and(|t| t.contains(&format!("\"{}\"", self.pool)));
            let pong = ours
                && Conn::open_within("nutcracker", self.port(), PROBE_WITHIN)
                    .and_then(|mut c| c.call(&["PING"]))
                    .is_ok_and(|r| r.text() == "PONG");
            if pong && s.alive() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Err(format!("nutcracker did not answer within {} s", START_WITHIN.as_secs()))
    }
}

/// Wait until the redis-server of `s` answers on `port` (its `INFO` naming
/// its own process id); else an error naming it, with its log's last lines.
fn wait_redis(s: &Supervised, port: u16) -> Result<()> {
    let mine = format!("process_id:{}", s.pid());
    s.wait_ready(port, Some(&s.dir().join("redis.log")), || {
        let info = Conn::open_within(s.name(), port, PROBE_WITHIN).and_then(|mut c| c.call(&["INFO", "server"]));
        info.is_ok_and(|r| r.text().lines().any(|l| l.trim() == mine))
    })
}

impl Drop for Nutcracker {
    fn drop(&mut self) {
        // Tell every watchdog at once, then wait for each.
        for s in self.backends.iter_mut().filter_map(|b| b.process.as_mut()).chain(self.proxy.as_mut()) {
            s.release();
        }
        self.proxy = None;
        self.backends.clear();
    }
}
