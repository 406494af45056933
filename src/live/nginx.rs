//! nginx with a `hash $request_body` upstream, started on this machine, and which
//! backend answered each key.
//!
//! [`Nginx::start`] writes one nginx.conf into a private temporary
//! directory (error log, pid file and every `*_temp_path` inside it; one
//! worker; `user root;` when run as root, so the workers can use the
//! directory) and runs `nginx -p DIR -c DIR/nginx.conf -e DIR/error.log`
//! (`-e` from nginx 1.19.5 on) under the watchdog of
//! [`process`](super::process). The backends are `server`
//! blocks of the same nginx, one per name, each on its own port of
//! 127.0.0.1 answering every request with its name; the proxy's `server` block
//! passes every request to an `upstream` of those ports with `hash
//! $request_body consistent;` (or `hash $request_body;`) and each server's
//! `weight=`: the key is the request's body, so it keeps every byte.
//!
//! [`where_answered`](Nginx::where_answered) sends `POST /` with each key as
//! the body, pipelined over one keep-alive connection, and reads which
//! backend answered. (nginx hashes a key the same way whatever variable
//! holds it, `$arg_key` of `/?key=K` as well: the body only spares the key
//! URL escapes, which `$arg_key` would hash as sent.)
//! [`reload_with`](Nginx::reload_with) rewrites the config and reloads it
//! the way an operator does (SIGHUP to the master), then waits until the
//! new config answers. When the driver is dropped, or this
//! process dies, the watchdog sends SIGTERM to the master, which stops its
//! workers before it exits; then the directory is removed.
//!
//! The upstream lists servers by address (`server 127.0.0.1:PORT
//! weight=W;`) and nginx's consistent hash places a server by that text, so
//! a prediction needs [`upstream_servers`](Nginx::upstream_servers).
//!
//! ```
//! use reshard::live::{Nginx, NginxConfig};
//! use reshard::KeySet;
//! # if reshard::live::nginx_version().is_err() { return Ok(()); } // not installed here
//! let keys = KeySet::users(20_000);
//! let config = NginxConfig::named(["A", "B", "C"])?;
//! let mut nginx = Nginx::start(&config)?;
//! let before = nginx.where_answered(&keys)?;
//! println!("{:?}", nginx.upstream_servers()); // [("A", "127.0.0.1:41234", 1), …]
//! nginx.reload_with(&config.add_server("D", 1)?)?;
//! let after = nginx.where_answered(&keys)?;
//! println!("{} keys moved", before.movement_to(&after)?.moved());
//! # Ok::<(), reshard::Error>(())
//! ```

use super::client::{node_error, REPLY_WITHIN};
use super::http;
use super::observed::{key_list, Keys, Observed};
use super::ports::PortLease;
use super::process::{children_of, find_program, is_root, log_tail, new_dir, next_number, version_text};
use super::process::{process_alive, system, Supervised, HOST};
use crate::schemes::NodeId;
use crate::{Error, Result};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod config;
pub use config::NginxConfig;

/// How long nginx may take to start or reload (its new config answering,
/// its old workers gone).
const PATIENCE: Duration = Duration::from_secs(15);

/// The longest key [`Nginx::where_answered`] sends (nginx keeps a request
/// body up to this size in memory, where `$request_body` reads it).
pub const MAX_KEY_BYTES: usize = 1 << 20;

/// The installed nginx version (`nginx -v`), e.g. `"1.22.1"`; else
/// [`Error::ProgramMissing`], whose message says how to install it.
pub fn nginx_version() -> Result<String> {
    let text = version_text(&find_program("nginx")?, "-v")?;
    // "nginx version: nginx/1.22.1"
    Ok(text.split_whitespace().find_map(|w| w.strip_prefix("nginx/")).unwrap_or(text.trim()).to_string())
}

/// nginx, its backends and its proxy on 127.0.0.1; the master and its
/// workers stopped and the directory removed when dropped (see the
/// [module docs](self)).
pub struct Nginx {
    config: NginxConfig,
    nginx: PathBuf,
    master: Option<Supervised>,
    listen: PortLease,
    /// A port per backend name (the running config's, and while a
    /// reload is tried, the new one's).
    backends: Vec<(String, PortLease)>,
    token: String,
    generation: u64,
    conf: String,
    timings: Vec<(String, f64)>,
}

impl Nginx {
    /// Start nginx with `config`; returns once the proxy answers.
    pub fn start(config: &NginxConfig) -> Result<Nginx> {
        let nginx = find_program("nginx")?;
        // `-e` (nginx ≥ 1.19.5) keeps even the first log lines, written
        // before the config is read, inside the directory.
        let early_log = version_at_least(&nginx_version()?, [1, 19, 5]);
        let t0 = Instant::now();
        let (mut last, mut last_port) = (String::new(), 0);
        for _ in 0..8 {
            let mut n = Nginx {
                config: config.clone(),
                nginx: nginx.clone(),
                master: None,
                listen: PortLease::take()?,
                backends: Vec::new(),
                token: format!("reshard-{}-{}", std::process::id(), next_number()),
                generation: 0,
                conf: String::new(),
                timings: Vec::new(),
            };
            for (name, _) in config.servers() {
                n.backends.push((name.clone(), PortLease::take()?));
            }
            let dir = new_dir("nginx")?;
            n.write_conf(&dir)?;
            let mut args: Vec<OsString> = Vec::new();
            if early_log {
                args.extend(["-e".into(), dir.join("error.log").into()]);
            }
            args.extend(["-p".into(), dir.clone().into(), "-c".into(), dir.join("nginx.conf").into()]);
            n.master = Some(Supervised::start("nginx", &n.nginx, &args, dir)?);
            match n.wait_generation(0) {
                Ok(()) => {
                    n.timings.push(("nginx".into(), t0.elapsed().as_secs_f64()));
                    return Ok(n);
                }
                Err(e) => (last, last_port) = (e.to_string(), n.port()),
            }
            if !last.contains("in use") {
                break;
            }
        }
        Err(Error::ServerFailed {
            node: "nginx".into(),
            port: last_port,
            problem: format!("did not start: {last}"),
            source: None,
        })
    }

    /// The config nginx runs with now.
    pub fn config(&self) -> &NginxConfig {
        &self.config
    }

    /// The nginx.conf nginx runs with now.
    pub fn config_text(&self) -> &str {
        &self.conf
    }

    /// The proxy's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.listen.port()
    }

    /// The backends of the running config, in its order; [`Observed`]
    /// names them in this order.
    pub fn backends(&self) -> Vec<String> {
        self.config.servers().iter().map(|(n, _)| n.clone()).collect()
    }

    /// The port of backend `name` on 127.0.0.1.
    pub fn backend_port(&self, name: &str) -> Result<u16> {
        self.config.servers().iter().find(|(n, _)| n == name).ok_or_else(|| Error::UnknownNode(name.into()))?;
        Ok(self.port_of(name))
    }

    fn port_of(&self, name: &str) -> u16 {
        self.backends.iter().find(|(n, _)| n == name).map_or(0, |(_, p)| p.port())
    }

    /// The upstream's servers as nginx.conf lists them — (name, the
    /// address text after `server`, weight) — in config order: nginx's
    /// consistent hash places each server by that address text.
    pub fn upstream_servers(&self) -> Vec<(String, String, u32)> {
        let addr = |n: &str| format!("{HOST}:{}", self.port_of(n));
        self.config.servers().iter().map(|(n, w)| (n.clone(), addr(n), *w)).collect()
    }

    /// Seconds the start and each reload took.
    pub fn timings(&self) -> &[(String, f64)] {
        &self.timings
    }

    /// The master and every worker (their parent is the master), each with
    /// the directory.
    pub fn footprint(&self) -> Vec<(u32, PathBuf)> {
        let Some(m) = &self.master else { return Vec::new() };
        let mut out = vec![(m.pid(), m.dir().to_path_buf())];
        out.extend(children_of(m.pid()).into_iter().map(|p| (p, m.dir().to_path_buf())));
        out
    }

    /// The last `lines` lines of nginx's error log.
    pub fn error_log(&self, lines: usize) -> String {
        self.master.as_ref().map_or(String::new(), |m| log_tail(&m.dir().join("error.log"), lines))
    }

    /// `POST /` through the proxy for every key, the key's bytes as the
    /// request body, pipelined over one keep-alive connection; per key, the
    /// backend that answered. nginx hashes `$request_body`, the body exactly
    /// as sent, so a key keeps every byte (NUL, newlines, `\\`, bytes that
    /// are not UTF-8) up to [`MAX_KEY_BYTES`].
    pub fn where_answered<K: Keys + ?Sized>(&self, keys: &K) -> Result<Observed> {
        let keys = key_list(keys)?;
        let bytes = keys.key_bytes()?;
        let longest = (0..keys.len()).map(|i| bytes.get(i).len()).max().unwrap_or(0);
        crate::limits::check_hint(
            "bytes in one key sent to nginx",
            longest as u128,
            MAX_KEY_BYTES as u128,
            "use shorter keys (nginx hashes a request body it holds in memory)",
        )?;
        let t0 = Instant::now();
        let port = self.port();
        let answers = http::post_all(port, keys.len(), |i| bytes.get(i))
            .map_err(|e| node_error("nginx", port, "POST / (a key as the body)", REPLY_WITHIN, e))?;
        let names = self.backends();
        let (mut errors, mut first) = (0u64, None);
        let mut holders: Vec<Vec<NodeId>> = Vec::with_capacity(keys.len());
        for (i, r) in answers.into_iter().enumerate() {
            let who = (r.status == 200).then(|| names.iter().position(|n| n.as_bytes() == r.body)).flatten();
            match who {
                Some(n) => holders.push(vec![n as NodeId]),
                None => {
                    errors += 1;
                    let body = String::from_utf8_lossy(&r.body);
                    first.get_or_insert_with(|| format!("{}: {} {body}", keys.get(i).unwrap_or_default(), r.status));
                    holders.push(Vec::new());
                }
            }
        }
        drop(bytes);
        Ok(Observed::from_holders("answered", &names, &keys, holders)?.with_errors(
            errors,
            first,
            t0.elapsed().as_secs_f64(),
        ))
    }

    /// nginx failed as a whole: its config, its start or its reload.
    fn failed(&self, problem: String) -> Error {
        Error::ServerFailed { node: "nginx".into(), port: self.port(), problem, source: None }
    }

    /// Rewrite nginx.conf for `config` and reload it (SIGHUP to the master:
    /// new workers take the new upstream, the old ones finish and exit);
    /// returns once the proxy answers with the new config and the old
    /// workers have exited. A server new in `config` gets a new port; one it
    /// drops is gone.
    pub fn reload_with(&mut self, config: &NginxConfig) -> Result<()> {
        let t0 = Instant::now();
        let old_config = std::mem::replace(&mut self.config, config.clone());
        let mut last = String::new();
        for _ in 0..4 {
            // A port for every new name (a new one after a failed attempt).
            for (name, _) in config.servers() {
                if old_config.servers().iter().all(|(n, _)| n != name) {
                    self.backends.retain(|(n, _)| n != name);
                    self.backends.push((name.clone(), PortLease::take()?));
                }
            }
            self.generation += 1;
            let master = self.master.as_ref().ok_or_else(|| self.failed("is not running".into()))?;
            let (dir, pid) = (master.dir().to_path_buf(), master.pid());
            self.write_conf(&dir)?;
            let old_workers = children_of(pid);
            let hup = Command::new("kill").args(["-HUP", &pid.to_string()]).stderr(Stdio::null()).status();
            if !hup.is_ok_and(|s| s.success()) {
                last = format!("could not send SIGHUP to nginx (pid {pid})");
                break;
            }
            match self.wait_generation(self.generation).and_then(|()| wait_gone(&old_workers, self.port())) {
                Ok(()) => {
                    let keep: Vec<&String> = config.servers().iter().map(|(n, _)| n).collect();
                    self.backends.retain(|(n, _)| keep.contains(&n));
                    self.timings.push(("nginx reload".into(), t0.elapsed().as_secs_f64()));
                    return Ok(());
                }
                Err(e) => last = e.to_string(),
            }
            if !last.contains("in use") {
                break;
            }
        }
        // nginx kept the old config: so do we.
        self.config = old_config;
        if let Some(dir) = self.master.as_ref().map(|m| m.dir().to_path_buf()) {
            self.write_conf(&dir)?;
        }
        Err(self.failed(format!("did not reload: {last}")))
    }

    fn write_conf(&mut self, dir: &std::path::Path) -> Result<()> {
        let ports: Vec<u16> = self.config.servers().iter().map(|(n, _)| self.port_of(n)).collect();
        let token = format!("{}-{}", self.token, self.generation);
        self.conf = self.config.nginx_conf(dir, self.listen.port(), &ports, &token, is_root(dir));
        let path = dir.join("nginx.conf");
        std::fs::write(&path, &self.conf).map_err(system(format!("write {}", path.display())))
    }

    /// Wait until the proxy answers `/reshard-generation` with this
    /// generation's token; fail early if nginx exits or logs an `[emerg]`
    /// after the wait began.
    fn wait_generation(&self, generation: u64) -> Result<()> {
        let master = self.master.as_ref().ok_or_else(|| self.failed("is not running".into()))?;
        let log = master.dir().join("error.log");
        let logged = std::fs::metadata(&log).map_or(0, |m| m.len()) as usize;
        let want = format!("{}-{generation}", self.token);
        let deadline = Instant::now() + PATIENCE;
        while Instant::now() < deadline {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let emerg = text.get(logged..).and_then(|new| new.lines().find(|l| l.contains("[emerg]")));
            if let Some(e) = emerg {
                return Err(self.failed(format!("refused its config: {e}")));
            }
            if !master.alive() {
                return Err(self.failed(format!("exited; its error log ends:\n{}", log_tail(&log, 5))));
            }
            if http::get(self.port(), "/reshard-generation").is_ok_and(|r| r.status == 200 && r.body == want.as_bytes())
            {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Err(self.failed(format!(
            "did not answer within {} s; its error log ends:\n{}",
            PATIENCE.as_secs(),
            log_tail(&log, 5)
        )))
    }
}

/// True when version text `v` ("1.22.1") is at least `min`.
fn version_at_least(v: &str, min: [u32; 3]) -> bool {
    let mut parts = v.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let have = [(); 3].map(|_| parts.next().unwrap_or(0));
    have >= min
}

/// Wait until these processes (the workers of the config before a reload)
/// have exited: until then one of them may still accept a connection and
/// answer with the old upstream.
fn wait_gone(pids: &[u32], port: u16) -> Result<()> {
    let deadline = Instant::now() + PATIENCE;
    while pids.iter().any(|&p| process_alive(p)) {
        if Instant::now() > deadline {
            return Err(Error::ServerFailed {
                node: "nginx".into(),
                port,
                problem: format!("its old workers {pids:?} did not exit within {} s", PATIENCE.as_secs()),
                source: None,
            });
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_number() {
        assert!(version_at_least("1.22.1", [1, 19, 5]));
        assert!(version_at_least("1.19.5", [1, 19, 5]));
        assert!(!version_at_least("1.18.0", [1, 19, 5]));
        assert!(!version_at_least("1.9.15", [1, 19, 5]));
    }
}
