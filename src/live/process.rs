//! A program the crate starts under the watchdog of [`redis`](super::redis),
//! on 127.0.0.1 ports this process reserves for it.
//!
//! [`Supervised::start`] runs one program (redis-server, nutcracker, nginx)
//! under the same `sh` watchdog as the Redis Cluster's servers: when the
//! [`Supervised`] is dropped, or this process dies in any way (panic,
//! kernel restart, `kill -9`), the watchdog reads end-of-file on its pipe,
//! sends SIGTERM to the program, waits for it (nginx's master waits for its
//! workers before it exits) and removes the program's directory.
//!
//! [`PortLease::take`] hands out a port that the kernel says is free and
//! that no other lease of this process holds, so two drivers started at
//! once never pick the same port; a program that still finds its port taken
//! (by another process) is restarted on another one by its driver.

use super::server::{process_alive, HOST, WATCHDOG};
use crate::{Error, Result};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Ports held by a [`PortLease`] of this process.
static LEASED: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());

/// Numbers the directories and instances of this process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh number, distinct within this process.
pub(crate) fn next_number() -> u64 {
    COUNTER.fetch_add(1, Ordering::Relaxed)
}

/// An error of a live proxy.
pub(crate) fn fail(what: impl std::fmt::Display) -> Error {
    Error::Proxy(what.to_string())
}

/// A port of 127.0.0.1 reserved in this process until dropped.
#[derive(Debug)]
pub(crate) struct PortLease(u16);

impl PortLease {
    /// A port the kernel just gave out as free and no lease holds.
    pub(crate) fn take() -> Result<PortLease> {
        for _ in 0..200 {
            let l = TcpListener::bind((HOST, 0)).map_err(|e| fail(format!("find a free port: {e}")))?;
            let port = l.local_addr().map_err(|e| fail(format!("find a free port: {e}")))?.port();
            let mut leased = LEASED.lock().unwrap_or_else(|p| p.into_inner());
            if port >= 1_024 && leased.insert(port) {
                return Ok(PortLease(port));
            }
        }
        Err(fail(format!("no free port on {HOST}")))
    }

    /// The port.
    pub(crate) fn port(&self) -> u16 {
        self.0
    }
}

impl Drop for PortLease {
    fn drop(&mut self) {
        LEASED.lock().unwrap_or_else(|p| p.into_inner()).remove(&self.0);
    }
}

/// The path of `program` on `PATH`, else in the `sbin` directories where
/// Debian installs nginx and nutcracker (often not on a user's `PATH`),
/// else [`Error::ProxyMissing`].
pub(crate) fn locate(program: &'static str) -> Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let sbin = ["/usr/sbin", "/usr/local/sbin", "/sbin"].map(PathBuf::from);
    std::env::split_paths(&path)
        .chain(sbin)
        .map(|dir| dir.join(program))
        .find(|p| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
        .ok_or(Error::ProxyMissing { program })
}

/// What `program flag` prints (standard output and error together).
pub(crate) fn version_text(program: &Path, flag: &str) -> Result<String> {
    let out = Command::new(program)
        .arg(flag)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| fail(format!("run {} {flag}: {e}", program.display())))?;
    Ok(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// A new empty private directory for one program, `reshard-<what>-<pid>-<n>`
/// in the temporary directory.
pub(crate) fn new_dir(what: &str) -> Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = std::env::temp_dir().join(format!("reshard-{what}-{}-{}", std::process::id(), next_number()));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .recursive(true)
        .create(&dir)
        .map_err(|e| fail(format!("create {}: {e}", dir.display())))?;
    Ok(dir)
}

/// True when this process runs as root (the owner of a directory it just
/// created is uid 0).
pub(crate) fn is_root(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    dir.metadata().is_ok_and(|m| m.uid() == 0)
}

/// One program under its watchdog, with its own directory.
#[derive(Debug)]
pub(crate) struct Supervised {
    pid: u32,
    dir: PathBuf,
    watchdog: Child,
    guard: Option<ChildStdin>,
}

impl Supervised {
    /// Run `program args…` under a watchdog that owns `dir` (created by
    /// the caller, holding the program's files). The program's output goes
    /// nowhere: it writes its own log in `dir`. On failure `dir` is removed.
    pub(crate) fn start(dir: PathBuf, program: &Path, args: &[OsString]) -> Result<Supervised> {
        let spawned = Command::new("sh")
            .arg("-c")
            .arg(WATCHDOG)
            .arg("reshard-watchdog")
            .arg(&dir)
            .arg(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0) // a Ctrl-C or a kernel's killpg does not reach it
            .spawn();
        let mut watchdog = match spawned {
            Ok(w) => w,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(fail(format!("start sh for {}: {e}", program.display())));
            }
        };
        let mut first = String::new();
        let read = watchdog.stdout.take().map(|out| BufReader::new(out).read_line(&mut first));
        let guard = watchdog.stdin.take();
        let mut s = Supervised { pid: 0, dir, watchdog, guard };
        match read.and_then(|r| r.ok()).and_then(|_| first.trim().parse().ok()) {
            Some(pid) => {
                s.pid = pid;
                Ok(s)
            }
            None => Err(fail(format!("the watchdog of {} did not start", program.display()))),
        }
    }

    /// The program's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// The program's directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// True while the program runs (not a zombie).
    pub(crate) fn alive(&self) -> bool {
        self.pid != 0 && process_alive(self.pid)
    }

    /// Tell the watchdog to stop the program, without waiting; dropping
    /// waits. Stopping several at once: `release` each, then drop them.
    pub(crate) fn release(&mut self) {
        drop(self.guard.take());
    }
}

impl Drop for Supervised {
    fn drop(&mut self) {
        self.release();
        let _ = self.watchdog.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The processes whose parent is `pid` (nginx's workers), read from
/// `/proc`; empty where there is no `/proc`.
pub(crate) fn children_of(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let Some(child) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        // "pid (comm) state ppid …": the fields after the last ')'.
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let mut rest = stat.rsplit(')').next().unwrap_or("").split_whitespace();
        let (state, ppid) = (rest.next(), rest.next().and_then(|p| p.parse::<u32>().ok()));
        if ppid == Some(pid) && state != Some("Z") {
            out.push(child);
        }
    }
    out.sort_unstable();
    out
}

/// The last `n` lines of a log file (empty if it cannot be read).
pub(crate) fn log_tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// `name` is usable as a backend name: 1 to 64 characters of
/// `A–Z a–z 0–9 _ - .` (it goes into config files and HTTP bodies as is).
pub(crate) fn check_name(name: &str) -> Result<()> {
    let ok = (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "backend name {name:?}: use 1 to 64 letters, digits, '_', '-' or '.' (it is written into the \
             proxy's config file as is)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_never_repeat_while_held() {
        let held: Vec<PortLease> = (0..50).map(|_| PortLease::take().unwrap()).collect();
        let ports: BTreeSet<u16> = held.iter().map(PortLease::port).collect();
        assert_eq!(ports.len(), 50);
        drop(held);
        let leased = LEASED.lock().unwrap();
        assert!(ports.iter().all(|p| !leased.contains(p)));
    }

    #[test]
    fn names_and_programs() {
        assert!(check_name("A").is_ok() && check_name("cache-01.b_2").is_ok());
        for bad in ["", "a b", "a:b", "a\"", &"x".repeat(65)] {
            assert!(matches!(check_name(bad), Err(Error::Invalid(_))), "{bad:?}");
        }
        assert_eq!(locate("reshard-no-such-program"), Err(Error::ProxyMissing { program: "reshard-no-such-program" }));
        assert!(locate("sh").is_ok());
    }

    #[test]
    fn a_supervised_program_and_its_directory_go_with_it() {
        let dir = new_dir("test").unwrap();
        let s = Supervised::start(dir.clone(), Path::new("sleep"), &["60".into()]).unwrap();
        let pid = s.pid();
        assert!(s.alive() && dir.exists());
        assert_eq!(children_of(s.watchdog.id()), vec![pid]);
        drop(s);
        assert!(!process_alive(pid) && !dir.exists());
    }
}
