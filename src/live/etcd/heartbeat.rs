//! A node's heartbeat: an `etcdctl lease keep-alive` child that renews one
//! lease, paused with SIGSTOP and resumed with SIGCONT.
//!
//! Why a child process and not a loop in the crate: a heartbeat is a
//! process of its own on a real node, and a pause is the DDIA process pause
//! (ch. 9: a GC pause, a VM suspended, `kill -STOP`), which a learner can
//! also cause from a terminal with the pid the lab prints. etcdctl renews
//! with etcd's own client (clientv3: TTL/3 after each answer, on a loop
//! that wakes every 0.5 s), over every member, so it lives through a
//! leader change; the crate's notebook cell may block meanwhile. Each
//! renewal prints a line, which the crate counts, so a pause can start
//! right after a renewal.

use super::client::Lease;
use crate::live::process::{find_program, log_tail, new_dir, signal, Supervised};
use crate::{Error, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Runs etcdctl (`"$@"`) with its output in `$0/keepalive.log`.
const RUN: &str = r#"exec "$@" >"$0/keepalive.log" 2>&1"#;

/// A node's heartbeat: an `etcdctl lease keep-alive` child that renews one
/// lease, paused with SIGSTOP and resumed with SIGCONT; stopped, with its
/// directory, when dropped.
///
/// A child process and not a loop in the crate: a heartbeat is a process of
/// its own on a real node, and a pause is DDIA's process pause (a GC pause,
/// a VM suspended, `kill -STOP`), which a learner can also cause from a
/// terminal with [`pid`](Heartbeat::pid). etcdctl renews with etcd's own
/// client (TTL/3 after each answer, on a loop that wakes every 0.5 s), over
/// every member, so it lives through a leader change, and a notebook cell
/// may block meanwhile. Each renewal prints a line, which the crate counts,
/// so [`pause`](Heartbeat::pause) can start right after a renewal.
#[derive(Debug)]
pub struct Heartbeat {
    child: Supervised,
    lease: Lease,
}

impl Heartbeat {
    pub(crate) fn start(endpoints: &str, lease: &Lease) -> Result<Heartbeat> {
        let etcdctl = find_program("etcdctl")?;
        let dir = new_dir("keepalive")?;
        let args: Vec<OsString> = vec![
            "-c".into(),
            RUN.into(),
            dir.clone().into(),
            etcdctl.into(),
            format!("--endpoints={endpoints}").into(),
            "lease".into(),
            "keep-alive".into(),
            format!("{:x}", lease.id).into(),
        ];
        let name = format!("etcdctl lease keep-alive {:x}", lease.id);
        let child = Supervised::start(&name, Path::new("sh"), &args, dir)?;
        let h = Heartbeat { child, lease: *lease };
        let deadline = Instant::now() + Duration::from_secs(10);
        while h.renewals() == 0 {
            if !h.child.alive() || Instant::now() > deadline {
                return Err(Error::ServerFailed {
                    node: name,
                    port: 0,
                    problem: format!("it renewed nothing; it printed:\n{}", log_tail(&h.log(), 5)),
                    source: None,
                });
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        Ok(h)
    }

    fn log(&self) -> PathBuf {
        self.child.dir().join("keepalive.log")
    }

    fn text(&self) -> String {
        std::fs::read_to_string(self.log()).unwrap_or_default()
    }

    /// The lease it keeps alive.
    pub fn lease(&self) -> &Lease {
        &self.lease
    }

    /// The pid of the etcdctl child (`kill -STOP` it from a terminal).
    pub fn pid(&self) -> u32 {
        self.child.pid()
    }

    /// Its directory (its output; removed when it stops).
    pub fn dir(&self) -> &Path {
        self.child.dir()
    }

    /// Renewals so far (etcdctl prints "lease … keepalived with TTL(2)").
    pub fn renewals(&self) -> u64 {
        self.text().matches("keepalived with TTL").count() as u64
    }

    /// True once etcdctl said the lease is gone ("lease … expired or
    /// revoked."; it exits then).
    pub fn expired(&self) -> bool {
        self.text().contains("expired or revoked")
    }

    /// True while etcdctl runs (or is paused).
    pub fn running(&self) -> bool {
        self.child.alive()
    }

    /// What etcdctl printed, last `lines` lines.
    pub fn output(&self, lines: usize) -> String {
        log_tail(&self.log(), lines)
    }

    /// Wait for the next renewal, then stop etcdctl with SIGSTOP at once:
    /// the lease then runs out TTL seconds after that renewal. Returns when
    /// it was stopped. Fails when no renewal comes within the keep-alive
    /// period and 2 s, or etcdctl has exited.
    pub fn pause(&self) -> Result<Instant> {
        let log = self.log();
        let len = || std::fs::metadata(&log).map_or(0, |m| m.len());
        let (before, n) = (len(), self.renewals());
        let deadline = Instant::now() + Duration::from_secs(self.lease.granted.min(60) + 2);
        loop {
            if len() != before && self.renewals() > n {
                return self.stop_now();
            }
            if !self.running() || Instant::now() > deadline {
                return Err(self.gone("be paused after a renewal"));
            }
            std::thread::sleep(Duration::from_micros(500));
        }
    }

    /// Stop etcdctl with SIGSTOP now, wherever it is between renewals.
    pub fn pause_now(&self) -> Result<Instant> {
        if !self.running() {
            return Err(self.gone("be paused"));
        }
        self.stop_now()
    }

    fn stop_now(&self) -> Result<Instant> {
        signal(self.pid(), "STOP")?;
        Ok(Instant::now())
    }

    /// Resume etcdctl with SIGCONT: it renews at once — or learns the lease
    /// expired, prints so and exits.
    pub fn resume(&self) -> Result<Instant> {
        if !self.running() {
            return Err(self.gone("be resumed"));
        }
        signal(self.pid(), "CONT")?;
        Ok(Instant::now())
    }

    fn gone(&self, doing: &str) -> Error {
        Error::NotRunning {
            node: self.child.name().to_string(),
            port: 0,
            doing: format!("{doing} (it printed: {})", self.output(2).replace('\n', " / ")),
        }
    }
}
