//! One server process under a watchdog, so that none is left behind.
//!
//! `Server::start` (crate-internal) runs a program (`redis-server`, and for other drivers
//! `nutcracker` or `nginx`) under a watchdog: a small `sh -c` parent that
//! holds the read end of a pipe whose write end only this process has
//! (close-on-exec, so no other child inherits it). When the `Server` is
//! dropped, or this process dies in any way — a failed cell, a panic, a
//! kernel restart, `kill -9` — the pipe closes, the watchdog reads
//! end-of-file, stops its server (SIGTERM, then waits) and removes the
//! server's directory. `Drop` also waits for the watchdog, so when a
//! `Server` is gone, its process and directory are gone.
//!
//! A driver for another program needs four things from here:
//!
//! ```ignore
//! use crate::live::server::{find_program, free_port, Server, HOST};
//! let program = find_program("nutcracker")?;           // Error::RedisMissing if absent
//! let port = free_port(false)?;                          // a free port on 127.0.0.1
//! let dir = Server::fresh_dir("nutcracker", port)?;      // created; removed with the server
//! let args = ["-c".into(), dir.join("nutcracker.yml").into_os_string()];
//! let server = Server::start("proxy", &program, &args, &dir, None, || port_answers(port))?;
//! ```
//!
//! The program must stay in the foreground (no daemonizing) and stop on
//! SIGTERM; the ready check is polled every 20 ms for up to 15 s while the
//! process lives.

use crate::{Error, Result};
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader};
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// The only address the servers bind to.
pub const HOST: &str = "127.0.0.1";

/// How long [`Server::start`] waits for the ready check.
const READY_WITHIN: Duration = Duration::from_secs(15);

/// The path of `program` on `PATH`, or [`Error::RedisMissing`].
pub fn find_program(program: &'static str) -> Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false))
        .ok_or(Error::RedisMissing { program })
}

/// An `io::Error` as [`Error::Redis`], saying what was being done.
pub(crate) fn io_err(what: &'static str) -> impl Fn(io::Error) -> Error {
    move |e| Error::Redis(format!("{what}: {e}"))
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

/// A free port on [`HOST`]; with `bus`, one whose cluster bus port
/// (port + 10000) is free too, as a Redis Cluster node needs.
pub(crate) fn free_port(bus: bool) -> Result<u16> {
    for _ in 0..200 {
        let l = TcpListener::bind((HOST, 0)).map_err(io_err("find a free port"))?;
        let port = l.local_addr().map_err(io_err("find a free port"))?.port();
        if !(1_024..=55_000).contains(&port) {
            continue;
        }
        if !bus || TcpListener::bind((HOST, port + 10_000)).is_ok() {
            return Ok(port);
        }
    }
    Err(Error::Redis(format!("no free port{} on {HOST}", if bus { " pair (p, p + 10000)" } else { "" })))
}

/// The watchdog: start the server in the background, print its pid, block
/// until stdin closes (this process dropped the server or died), then stop
/// the server and remove its directory. `$1` is the directory, the rest is
/// the server's command line. Last, SIGTERM to its own process group (the
/// watchdog ignores it) stops whatever the server forked and left behind,
/// such as nginx workers whose master was killed.
pub(crate) const WATCHDOG: &str = r#"dir=$1; shift
trap '' INT HUP
"$@" >/dev/null 2>&1 </dev/null &
pid=$!
echo "$pid"
while read -r _; do :; done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
trap '' TERM
kill -TERM 0 2>/dev/null
rm -rf "$dir"
"#;

/// One server process under its watchdog; stopped, with its directory
/// removed, when dropped (see the [module docs](self)).
pub(crate) struct Server {
    name: String,
    dir: PathBuf,
    pid: u32,
    watchdog: Child,
    guard: Option<ChildStdin>,
}

impl Server {
    /// A new directory for one server, `reshard-{kind}-{pid}-{port}` in the
    /// temporary directory (created here; the watchdog removes it).
    pub(crate) fn fresh_dir(kind: &str, port: u16) -> Result<PathBuf> {
        let dir = std::env::temp_dir().join(format!("reshard-{kind}-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(io_err("create the server's directory"))?;
        Ok(dir)
    }

    /// Start `program args…` under a watchdog that owns `dir`, then poll
    /// `ready` (every 20 ms, up to 15 s) until it says the server answers.
    ///
    /// If the process exits or never gets ready, it is stopped, its
    /// directory removed, and the error carries the last lines of `log`
    /// (a file in `dir` the program writes, read before the directory
    /// goes), so a caller can tell "address already in use" from the rest.
    pub(crate) fn start(
        name: &str,
        program: &Path,
        args: &[OsString],
        dir: &Path,
        log: Option<&Path>,
        mut ready: impl FnMut() -> bool,
    ) -> Result<Server> {
        let what = program.file_name().map_or_else(|| program.display().to_string(), |f| f.to_string_lossy().into());
        let mut watchdog = Command::new("sh")
            .arg("-c")
            .arg(WATCHDOG)
            .arg("reshard-watchdog")
            .arg(dir)
            .arg(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0) // a Ctrl-C in a terminal stops us, and we stop them
            .spawn()
            .map_err(|e| Error::Redis(format!("start sh for {what}: {e}")))?;
        let mut first = String::new();
        let read = match watchdog.stdout.take() {
            Some(out) => BufReader::new(out).read_line(&mut first).ok(),
            None => None,
        };
        let Some(pid) = read.and_then(|_| first.trim().parse::<u32>().ok()) else {
            drop(watchdog.stdin.take());
            let _ = watchdog.wait();
            let _ = std::fs::remove_dir_all(dir);
            return Err(Error::Redis(format!("the {what} watchdog did not start")));
        };
        let guard = watchdog.stdin.take();
        let server = Server { name: name.to_string(), dir: dir.to_path_buf(), pid, watchdog, guard };
        let deadline = Instant::now() + READY_WITHIN;
        while Instant::now() < deadline {
            if ready() {
                return Ok(server);
            }
            if !server.alive() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let last = log.and_then(|l| std::fs::read_to_string(l).ok()).unwrap_or_default();
        drop(server); // stops it and removes its directory
        let tail: Vec<&str> = last.lines().rev().take(5).collect();
        Err(Error::Redis(format!(
            "{what} did not start on {HOST}; its log ends:\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        )))
    }

    /// The name the driver gave it.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The server's process id (not the watchdog's).
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// Its directory (removed when it stops).
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// True while the server process exists (and is not a zombie).
    pub(crate) fn alive(&self) -> bool {
        process_alive(self.pid)
    }

    /// Tell the watchdog to stop the server now, without waiting for it
    /// (drop waits): a driver stopping many servers signals all, then
    /// drops them.
    pub(crate) fn signal_stop(&mut self) {
        drop(self.guard.take());
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.signal_stop(); // end of file: the watchdog stops the server
        let _ = self.watchdog.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
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
    fn the_watchdog_stops_the_process_and_removes_its_directory() {
        let sleep = find_program("sleep").unwrap();
        let port = free_port(false).unwrap();
        let dir = Server::fresh_dir("test", port).unwrap();
        std::fs::write(dir.join("x"), "x").unwrap();
        let s = Server::start("s", &sleep, &["300".into()], &dir, None, || true).unwrap();
        let pid = s.pid();
        assert!(process_alive(pid) && dir.exists());
        drop(s);
        assert!(!process_alive(pid), "sleep {pid} survived its server");
        assert!(!dir.exists());
    }

    #[test]
    fn a_server_that_never_gets_ready_is_stopped_with_its_log() {
        let sh = find_program("sh").unwrap();
        let dir = Server::fresh_dir("test", free_port(false).unwrap()).unwrap();
        let log = dir.join("log");
        let script = format!("echo 'Address already in use' > {}; exit 1", log.display());
        let err = Server::start("s", &sh, &["-c".into(), script.into()], &dir, Some(&log), || false).err().unwrap();
        assert!(err.to_string().contains("Address already in use"), "{err}");
        assert!(!dir.exists());
    }
}
