//! The programs the crate starts — `redis-server`, `redis-cli`,
//! `nutcracker`, `nginx` — each under a watchdog, on ports of 127.0.0.1
//! this process reserves for it. Every driver uses this one module.
//!
//! **Program lookup.** [`find_program`] searches `PATH`, then the `sbin`
//! directories where Debian installs nginx and nutcracker (often not on a
//! user's `PATH`); a missing program is [`Error::ProgramMissing`], whose
//! message names the program and how to install it.
//!
//! **Ports** come from [`live::ports`](crate::live::ports): a port the
//! kernel says is free and no other driver of this process holds.
//!
//! **Supervision.** `Supervised::start` runs a program under a watchdog: a
//! small `sh -c` parent, in a process group of its own, that holds the read
//! end of a pipe whose write end only this process has (close-on-exec, so
//! no other child inherits it). When the `Supervised` is dropped, or this
//! process dies in any way — a failed cell, a panic, a kernel restart,
//! `kill -9` — the pipe closes and the watchdog stops the program: SIGTERM
//! (and SIGCONT, so a stopped program sees it), SIGKILL after
//! 10 s (`STOP_WITHIN`) if it is still there, then SIGTERM to its whole process
//! group (whatever the program forked and left behind, such as nginx
//! workers whose master was killed), runs the program's own clean-up of
//! what it keeps outside its directory (PostgreSQL's shared memory), and
//! removes the program's directory.
//! `Drop` waits for the watchdog, so when a `Supervised` is gone, its
//! processes and directory are gone. `run_to_end` runs a short-lived
//! program (`redis-cli`) the same way and collects its output.

use crate::{Error, Result};
use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The only address the servers bind to.
pub const HOST: &str = "127.0.0.1";

/// How long a started program may take to answer.
pub(crate) const START_WITHIN: Duration = Duration::from_secs(15);

/// How long one readiness probe of a starting program (a `PING`, a `GET`)
/// may wait for its answer, so a start never overruns [`START_WITHIN`] by
/// more than this.
pub(crate) const PROBE_WITHIN: Duration = Duration::from_secs(1);

/// How long the watchdog waits after SIGTERM before it sends SIGKILL.
pub(crate) const STOP_WITHIN: Duration = Duration::from_secs(10);

/// The path of `program` on `PATH`, else in `/usr/local/sbin`, `/usr/sbin`
/// or `/sbin`; else [`Error::ProgramMissing`], naming the program and how
/// to install it.
pub fn find_program(program: &'static str) -> Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let sbin = ["/usr/local/sbin", "/usr/sbin", "/sbin"].map(PathBuf::from);
    std::env::split_paths(&path)
        .chain(sbin)
        .map(|dir| dir.join(program))
        .find(|p| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
        .ok_or(Error::ProgramMissing { program, install: install_hint(program) })
}

/// What to install for `program`, and how.
pub(crate) fn install_hint(program: &str) -> &'static str {
    match program {
        "redis-server" | "redis-cli" => {
            "Redis 7 (Debian/Ubuntu: `sudo apt-get install redis-server`; macOS: `brew install redis`; \
             conda: `conda install -c conda-forge redis-server`)"
        }
        "nutcracker" => "twemproxy (Debian/Ubuntu: `sudo apt-get install nutcracker`; macOS: `brew install twemproxy`)",
        "nginx" => "nginx (Debian/Ubuntu: `sudo apt-get install nginx`; macOS: `brew install nginx`)",
        "etcd" | "etcdctl" => {
            "etcd 3.4 or newer with etcdctl (Debian/Ubuntu: `sudo apt-get install etcd-server etcd-client`, then \
             `sudo service etcd stop` so the packaged one frees ports 2379 and 2380; macOS: `brew install etcd`)"
        }
        "postgres" | "initdb" | "psql" => {
            "PostgreSQL 15 or newer with postgres_fdw (Debian/Ubuntu: `sudo apt-get install postgresql \
             postgresql-contrib`; macOS: `brew install postgresql@15`)"
        }
        _ => "the package that provides it",
    }
}

/// True while process `pid` exists and is not a zombie (reads `/proc`,
/// falls back to `kill -0` where there is none). A stopped process
/// (SIGSTOP) exists.
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

/// Send signal `sig` (`"STOP"`, `"CONT"`, `"KILL"`, `"USR1"`) to process
/// `pid` with `kill`; `Ok(false)` when there is no such process.
#[cfg(feature = "etcd")]
pub(crate) fn signal(pid: u32, sig: &str) -> Result<bool> {
    if pid == 0 {
        return Ok(false);
    }
    let status = Command::new("kill")
        .args([format!("-{sig}"), pid.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(system(format!("send SIG{sig} to process {pid}")))?;
    Ok(status.success())
}

/// An `io::Error` as [`Error::System`], saying what was being done.
pub(crate) fn system(doing: impl std::fmt::Display) -> impl Fn(std::io::Error) -> Error {
    move |e| Error::System { doing: doing.to_string(), source: e.into() }
}

/// Numbers the directories and instances of this process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh number, distinct within this process.
pub(crate) fn next_number() -> u64 {
    COUNTER.fetch_add(1, Ordering::Relaxed)
}

/// A new empty private directory for one program, `reshard-<kind>-<pid>-<n>`
/// in the temporary directory: the first `n` not taken. (In the evcxr
/// kernel every cell links its own copy of this crate, so this process's
/// counter starts again at 0 in each cell: a name already on disk, another
/// cell's server's directory, is skipped, never reused.)
pub(crate) fn new_dir(kind: &str) -> Result<PathBuf> {
    new_dir_in(&std::env::temp_dir(), kind)
}

/// [`new_dir`] in the folder `base` instead of the temporary directory.
pub(crate) fn new_dir_in(base: &Path, kind: &str) -> Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    loop {
        let dir = base.join(format!("reshard-{kind}-{}-{}", std::process::id(), next_number()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(system(format!("create {}", dir.display()))(e)),
        }
    }
}

/// The watchdog: start the program in the background, print its pid, block
/// until stdin closes (this process dropped it or died), then stop it
/// (signal `$3`, SIGTERM for most programs, and SIGCONT; SIGKILL after `$2`
/// seconds), SIGTERM and SIGCONT to its own process group (the watchdog
/// ignores TERM by then) for whatever the program left behind, run the
/// program's own clean-up (`$4`, a shell snippet that sees `$dir` and the
/// program's `$pid`: what the program leaves outside its directory when it
/// was killed), and remove its directory. `$1` is the directory, the rest
/// the program's command line.
const WATCHDOG: &str = r#"dir=$1; stop_within=$2; stop=$3; cleanup=$4; shift 4
trap '' INT HUP
"$@" >/dev/null 2>&1 </dev/null &
pid=$!
echo "$pid"
while read -r _; do :; done
kill -"$stop" "$pid" 2>/dev/null
kill -CONT "$pid" 2>/dev/null
sleep "$stop_within" && kill -KILL "$pid" 2>/dev/null &
wait "$pid" 2>/dev/null
trap '' TERM
kill -TERM 0 2>/dev/null
kill -CONT 0 2>/dev/null
eval "$cleanup"
rm -rf "$dir"
"#;

/// One program under its watchdog, with its own directory.
#[derive(Debug)]
pub(crate) struct Supervised {
    name: String,
    pid: u32,
    dir: PathBuf,
    watchdog: Child,
    guard: Option<ChildStdin>,
}

/// An unprivileged account a program runs as when this process is root
/// (`postgres` refuses to run as root): its user and group ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OsUser {
    pub(crate) uid: u32,
    pub(crate) gid: u32,
}

impl OsUser {
    /// The account `name` from `/etc/passwd`, if there is one.
    #[cfg(feature = "postgres")]
    pub(crate) fn lookup(name: &str) -> Option<OsUser> {
        let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
        passwd.lines().find_map(|line| {
            let f: Vec<&str> = line.split(':').collect();
            (f.len() >= 4 && f[0] == name).then(|| Some(OsUser { uid: f[2].parse().ok()?, gid: f[3].parse().ok()? }))?
        })
    }

    /// Give `path` (a directory this process made) to this account.
    pub(crate) fn take(&self, path: &Path) -> Result<()> {
        std::os::unix::fs::chown(path, Some(self.uid), Some(self.gid)).map_err(system(format!(
            "give {} to user id {}",
            path.display(),
            self.uid
        )))
    }
}

/// How a supervised program is run: as whom, and the signal that stops it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Launch {
    /// Run the watchdog and the program as this account (`None`: as this
    /// process runs). The program's directory must belong to it.
    pub(crate) user: Option<OsUser>,
    /// The signal that asks the program to stop, e.g. `"TERM"`; PostgreSQL
    /// takes `"INT"` (a fast shutdown: open sessions are ended, not waited for).
    pub(crate) stop: &'static str,
    /// A shell snippet the watchdog runs once the program has ended, before
    /// it removes the directory: it removes what the program keeps outside
    /// its directory and leaves behind when killed (PostgreSQL's System V
    /// shared memory). `$dir` is the directory, `$pid` the program's process
    /// id; `""` for nothing.
    pub(crate) cleanup: &'static str,
}

impl Default for Launch {
    fn default() -> Self {
        Launch { user: None, stop: "TERM", cleanup: "" }
    }
}

impl Supervised {
    /// Run `program args…` as server `name` under a watchdog that owns
    /// `dir` (from [`new_dir`], holding the program's files). Its output
    /// goes nowhere: it writes its own log in `dir`. On failure `dir` is
    /// removed.
    pub(crate) fn start(name: &str, program: &Path, args: &[OsString], dir: PathBuf) -> Result<Supervised> {
        Supervised::launch(name, program, args, dir, Launch::default())
    }

    /// [`start`](Supervised::start), run as `how` says.
    pub(crate) fn launch(
        name: &str,
        program: &Path,
        args: &[OsString],
        dir: PathBuf,
        how: Launch,
    ) -> Result<Supervised> {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(WATCHDOG)
            .arg("reshard-watchdog")
            .arg(&dir)
            .arg(STOP_WITHIN.as_secs().to_string())
            .arg(how.stop)
            .arg(how.cleanup)
            .arg(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0); // a Ctrl-C or a kernel's killpg does not reach it
        if let Some(u) = how.user {
            command.uid(u.uid).gid(u.gid);
        }
        let mut watchdog = match command.spawn() {
            Ok(w) => w,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(system(format!("start sh for {}", program.display()))(e));
            }
        };
        let mut first = String::new();
        let read = watchdog.stdout.take().map(|out| BufReader::new(out).read_line(&mut first));
        let guard = watchdog.stdin.take();
        let mut s = Supervised { name: name.to_string(), pid: 0, dir, watchdog, guard };
        match read.and_then(|r| r.ok()).and_then(|_| first.trim().parse().ok()) {
            Some(pid) => {
                s.pid = pid;
                Ok(s)
            }
            None => Err(Error::System {
                doing: format!("start the watchdog of {}", program.display()),
                source: std::io::Error::other("it printed no process id").into(),
            }),
        }
    }

    /// Poll `ready` every 10 ms until it says the program answers on
    /// `port`. Fails, naming the server, its port and the last lines of
    /// `log` (a file the program writes in its directory), when the program
    /// exits or does not answer within [`START_WITHIN`]; a caller can tell
    /// "Address already in use" from the rest.
    pub(crate) fn wait_ready(&self, port: u16, log: Option<&Path>, mut ready: impl FnMut() -> bool) -> Result<()> {
        let deadline = Instant::now() + START_WITHIN;
        let why = loop {
            if ready() {
                return Ok(());
            }
            if !self.alive() {
                break "exited before it answered".to_string();
            }
            if Instant::now() > deadline {
                break format!("did not answer within {} s of its start", START_WITHIN.as_secs());
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let tail = log.map(|l| log_tail(l, 5)).unwrap_or_default();
        Err(Error::ServerFailed {
            node: self.name.clone(),
            port,
            problem: format!("{why}; its log ends:\n{tail}"),
            source: None,
        })
    }

    /// The name the driver gave it.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The program's process id (not the watchdog's).
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// The program's directory (removed when it stops).
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// True while the program's process exists (not a zombie).
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

/// How a program run by [`run_to_end`] ended.
#[derive(Debug)]
pub(crate) struct Finished {
    /// Its exit code (`None`: killed by a signal).
    pub(crate) code: Option<i32>,
    /// Its standard output and error.
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Runs the program inside the watchdog, its standard input the file
/// `stdin` of the directory (`$1`) when there is one, and records its output
/// and exit code there.
const RECORD: &str = r#"out=$1; shift
input=/dev/null; [ -f "$out/stdin" ] && input="$out/stdin"
"$@" >"$out/stdout" 2>"$out/stderr" <"$input"
echo "$?" >"$out/status""#;

/// Run `program args…` to its end under a watchdog (so it stops if this
/// process dies), for at most `limit`; `None` if it ran out of time (it is
/// stopped then).
pub(crate) fn run_to_end(program: &Path, args: &[OsString], limit: Duration) -> Result<Option<Finished>> {
    run_to_end_with(program, args, None, Launch::default(), limit)
}

/// [`run_to_end`] with `stdin` as the program's standard input (written to
/// a file in its directory first), run as `how` says.
pub(crate) fn run_to_end_with(
    program: &Path,
    args: &[OsString],
    stdin: Option<&[u8]>,
    how: Launch,
    limit: Duration,
) -> Result<Option<Finished>> {
    let what = program.file_name().map_or("run".into(), |f| f.to_string_lossy().into_owned());
    let dir = new_dir(&what)?;
    let prepared = (|| {
        if let Some(input) = stdin {
            std::fs::write(dir.join("stdin"), input).map_err(system(format!("write the input of {what}")))?;
        }
        match how.user {
            Some(u) => u.take(&dir),
            None => Ok(()),
        }
    })();
    if let Err(e) = prepared {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(e);
    }
    let mut all: Vec<OsString> = vec!["-c".into(), RECORD.into(), "sh".into(), dir.clone().into(), program.into()];
    all.extend(args.iter().cloned());
    let s = Supervised::launch(&what, Path::new("sh"), &all, dir, how)?;
    let deadline = Instant::now() + limit;
    while s.alive() {
        if Instant::now() > deadline {
            return Ok(None); // dropping `s` stops it
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let read = |f: &str| std::fs::read_to_string(s.dir().join(f)).unwrap_or_default();
    let code = read("status").trim().parse::<i32>().ok().filter(|&c| c < 128);
    Ok(Some(Finished { code, stdout: read("stdout"), stderr: read("stderr") }))
}

/// What `program flag` prints (standard output and error together).
pub(crate) fn version_text(program: &Path, flag: &str) -> Result<String> {
    let out = Command::new(program)
        .arg(flag)
        .stdin(Stdio::null())
        .output()
        .map_err(system(format!("run {} {flag}", program.display())))?;
    Ok(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// The last `n` lines of a log file (empty if it cannot be read).
pub(crate) fn log_tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// True when this process runs as root (the owner of a directory it just
/// created is uid 0).
#[cfg(any(feature = "proxies", feature = "postgres"))]
pub(crate) fn is_root(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    dir.metadata().is_ok_and(|m| m.uid() == 0)
}

/// The processes whose parent is `pid` (nginx's workers), read from
/// `/proc`; empty where there is no `/proc`.
#[cfg(any(test, feature = "proxies"))]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_is_named_with_its_own_install_command() {
        let e = find_program("reshard-no-such-program").unwrap_err();
        assert!(matches!(e, Error::ProgramMissing { program: "reshard-no-such-program", .. }), "{e:?}");
        let nginx = Error::ProgramMissing { program: "nginx", install: install_hint("nginx") }.to_string();
        assert!(nginx.contains("apt-get install nginx") && !nginx.contains("Redis"), "{nginx}");
        let redis = Error::ProgramMissing { program: "redis-cli", install: install_hint("redis-cli") }.to_string();
        assert!(redis.contains("apt-get install redis-server") && redis.contains("brew install redis"), "{redis}");
        assert!(find_program("sh").is_ok());
    }

    #[test]
    fn a_directory_on_disk_is_skipped_not_reused() {
        // another copy of this crate (an earlier evcxr cell) made these
        let next = COUNTER.load(Ordering::Relaxed);
        let taken: Vec<PathBuf> = (next..next + 20)
            .map(|n| std::env::temp_dir().join(format!("reshard-skip-{}-{n}", std::process::id())))
            .collect();
        for d in &taken {
            std::fs::create_dir_all(d).unwrap();
            std::fs::write(d.join("nodes.conf"), "someone else's").unwrap();
        }
        let dir = new_dir("skip").unwrap();
        let fresh = !taken.contains(&dir) && std::fs::read_dir(&dir).unwrap().next().is_none();
        for d in taken.iter().chain([&dir]) {
            std::fs::remove_dir_all(d).unwrap();
        }
        assert!(fresh, "{} was reused", dir.display());
    }

    #[test]
    fn a_supervised_program_and_its_directory_go_with_it() {
        let dir = new_dir("test").unwrap();
        std::fs::write(dir.join("x"), "x").unwrap();
        let s = Supervised::start("s", Path::new("sleep"), &["60".into()], dir.clone()).unwrap();
        let pid = s.pid();
        assert!(s.alive() && dir.exists());
        assert_eq!(children_of(s.watchdog.id()), vec![pid]);
        drop(s);
        assert!(!process_alive(pid) && !dir.exists());
    }

    #[test]
    fn a_stopped_program_and_its_strays_are_stopped_too() {
        // The program forks a child that outlives it, then both are stopped
        // (SIGSTOP): dropping still ends both, and fast.
        let dir = new_dir("test").unwrap();
        let script = "sleep 300 & echo $! > \"$0/stray\"; exec sleep 300";
        let args = ["-c".into(), script.into(), dir.clone().into_os_string()];
        let s = Supervised::start("s", Path::new("sh"), &args, dir.clone()).unwrap();
        let pid = s.pid();
        s.wait_ready(0, None, || dir.join("stray").exists()).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let stray: u32 = std::fs::read_to_string(dir.join("stray")).unwrap().trim().parse().unwrap();
        for p in [pid, stray] {
            Command::new("kill").args(["-STOP", &p.to_string()]).status().unwrap();
        }
        let t0 = Instant::now();
        drop(s);
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
        assert!(!process_alive(pid) && !process_alive(stray) && !dir.exists());
    }

    #[test]
    fn a_program_that_never_gets_ready_is_named_with_its_log() {
        let dir = new_dir("test").unwrap();
        let log = dir.join("log");
        let script = format!("echo 'Address already in use' > {}; exit 1", log.display());
        let s = Supervised::start("B", Path::new("sh"), &["-c".into(), script.into()], dir.clone()).unwrap();
        let err = s.wait_ready(4321, Some(&log), || false).unwrap_err();
        assert!(matches!(&err, Error::ServerFailed { node, port: 4321, .. } if node == "B"), "{err:?}");
        assert!(err.to_string().contains("Address already in use"), "{err}");
        drop(s);
        assert!(!dir.exists());
    }

    #[test]
    fn run_to_end_collects_output_and_code_and_stops_on_time() {
        let sh = find_program("sh").unwrap();
        let f =
            run_to_end(&sh, &["-c".into(), "echo out; echo err >&2; exit 3".into()], START_WITHIN).unwrap().unwrap();
        assert_eq!((f.code, f.stdout.as_str(), f.stderr.as_str()), (Some(3), "out\n", "err\n"));
        let t0 = Instant::now();
        let late = run_to_end(&sh, &["-c".into(), "sleep 30".into()], Duration::from_millis(200)).unwrap();
        assert!(late.is_none() && t0.elapsed() < Duration::from_secs(5));
    }
}
