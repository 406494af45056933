//! PostgreSQL servers the crate starts, and `psql` to talk to them.
//!
//! [`pg_version`] finds PostgreSQL: the folder of the `postgres` on
//! `PATH`, else Debian's `/usr/lib/postgresql/<major>/bin` (the newest),
//! else the usual Homebrew and source-build folders — the first that holds
//! `postgres`, `initdb` and `psql` — or only the folder
//! `RESHARD_PG_BINDIR` names, when it is set. A missing PostgreSQL is
//! [`Error::ProgramMissing`], saying how to install it.
//!
//! **One `initdb`, copied, in memory.** `initdb` is the slow step, so
//! `Template` initialises one data directory and every server starts from a
//! copy of it, made by the server's own watchdog (from the moment a
//! directory exists, a watchdog owns it). The directories are in `/dev/shm`
//! where there is one (the data is thrown away anyway), else in the
//! temporary directory. Measured on 2 cores: one `initdb` takes 1.0 s on
//! disk and 0.33 s in memory; five side by side, 1.1 s in memory; five
//! copies of its 39 MB side by side 2.0 s on disk and 0.13 s in memory. A
//! coordinator and four nodes start in about 0.6 s
//! (`cargo run --release --features postgres --example pg_shards`).
//!
//! **Run as `postgres` when root.** `postgres` refuses to run as root. A
//! root process (CI, a container) runs `initdb`, the copies and the servers
//! as the unprivileged user `postgres` that the distribution's package
//! creates, and gives it their directories; a missing user is
//! [`Error::RunAsRoot`].
//!
//! **Bound to 127.0.0.1.** Each server listens on a port the kernel gave
//! (`listen_addresses = 127.0.0.1`, no Unix socket), trusts connections
//! from there (`initdb -A trust`: anyone on this machine may connect while
//! it runs, as with the Redis servers), and is stopped with a fast
//! shutdown (SIGINT) when dropped, on a panic, or when this process dies
//! (see [`live::process`](crate::live::process)); its directory goes with
//! it, and so does its shared memory, even when the server was killed: its
//! dynamic segments are files of its data directory
//! (`dynamic_shared_memory_type = mmap`, not `/dev/shm/PostgreSQL.*`), and
//! the watchdog removes the System V segment a killed server leaves.
//!
//! **psql.** The crate sends SQL through PostgreSQL's own client, `psql`
//! (from the same folder), one run per call: no client library to compile
//! into a notebook's first cell. A run reads its script on standard input,
//! stops at the first error (`ON_ERROR_STOP`) and prints rows as CSV;
//! [`Error::ServerFailed`] names the server and carries PostgreSQL's
//! message.

use crate::live::pg_text::{first_line, parse_csv};
use crate::live::ports::PortLease;
use crate::live::process::{
    find_program, is_root, log_tail, new_dir, new_dir_in, run_to_end_with, version_text, Launch, OsUser, Supervised,
    HOST,
};
use crate::{Error, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long one `psql` run may take (loading a few hundred thousand rows
/// through a coordinator takes seconds; a query, milliseconds).
pub const SQL_WITHIN: Duration = Duration::from_secs(300);

/// How long `initdb` may take.
const INITDB_WITHIN: Duration = Duration::from_secs(120);

/// The installed PostgreSQL's version (from `postgres --version`), e.g.
/// `"15.18"`. Fails with [`Error::ProgramMissing`] when PostgreSQL is not
/// found: a notebook calls this first and says how to install it.
pub fn pg_version() -> Result<String> {
    let bins = PgBins::find()?;
    let text = version_text(&bins.postgres, "--version")?;
    // "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
    Ok(text.split_whitespace().nth(2).unwrap_or(text.trim()).to_string())
}

/// Where PostgreSQL's programs are: `postgres`, `initdb`, `psql`.
#[derive(Debug, Clone)]
pub(crate) struct PgBins {
    pub(crate) postgres: PathBuf,
    pub(crate) initdb: PathBuf,
    pub(crate) psql: PathBuf,
}

impl PgBins {
    /// The first folder, in the order the module documentation gives,
    /// that holds `postgres`, `initdb` and `psql`.
    /// `RESHARD_PG_BINDIR`, when set, is the only folder looked in.
    pub(crate) fn find() -> Result<PgBins> {
        let has_all = |dir: &Path| ["postgres", "initdb", "psql"].iter().all(|p| is_executable(&dir.join(p)));
        let found = match std::env::var_os("RESHARD_PG_BINDIR") {
            Some(dir) => Some(PathBuf::from(dir)).filter(|d| has_all(d)),
            None => {
                let on_path = find_program("postgres").ok().and_then(|p| p.parent().map(Path::to_path_buf));
                on_path
                    .into_iter()
                    .chain(versioned("/usr/lib/postgresql", ""))
                    .chain(fixed_places())
                    .find(|d| has_all(d))
            }
        };
        match found {
            Some(dir) => {
                Ok(PgBins { postgres: dir.join("postgres"), initdb: dir.join("initdb"), psql: dir.join("psql") })
            }
            None => Err(Error::ProgramMissing {
                program: "postgres",
                install: crate::live::process::install_hint("postgres"),
            }),
        }
    }
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `{root}/<major>{suffix}/bin` for every numbered folder of `root`, newest first.
fn versioned(root: &str, suffix: &str) -> Vec<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let major = name.strip_suffix(suffix).unwrap_or(&name).parse::<u32>().ok()?;
            Some((major, e.path().join("bin")))
        })
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    found.into_iter().map(|(_, p)| p).collect()
}

/// Homebrew's and a source build's folders.
fn fixed_places() -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("/usr/local/pgsql/bin")];
    for brew in ["/opt/homebrew/opt", "/usr/local/opt"] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(brew)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("postgresql"))
            .map(|e| e.path().join("bin"))
            .collect();
        v.sort();
        v.reverse();
        out.extend(v);
    }
    out
}

/// A new directory for PostgreSQL's files: in memory (`/dev/shm`) where
/// there is one to write in, else in the temporary directory. The data is
/// thrown away when the server stops, and here copying the template into
/// memory for five servers took 0.13 s, against 2.0 s onto the disk.
fn new_data_dir(kind: &str) -> Result<PathBuf> {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(dir) = new_dir_in(shm, kind) {
            return Ok(dir);
        }
    }
    new_dir(kind)
}

/// Who runs the servers: this process, or `postgres` when this process is
/// root. Decided from a directory this process just made (root owns it).
pub(crate) fn server_user(made: &Path) -> Result<Option<OsUser>> {
    if !is_root(made) {
        return Ok(None);
    }
    let user = OsUser::lookup("postgres").ok_or(Error::RunAsRoot { program: "postgres", user: "postgres" })?;
    // The account must reach the directory: every folder above it must let others through.
    let mut dir = made.parent();
    while let Some(d) = dir {
        use std::os::unix::fs::PermissionsExt;
        if d.metadata().is_ok_and(|m| m.permissions().mode() & 0o001 == 0) {
            return Err(Error::System {
                doing: format!(
                    "let the user postgres reach {} (run as root, PostgreSQL runs as postgres, which cannot \
                     enter {}): set TMPDIR to a folder others may enter, such as /tmp",
                    made.display(),
                    d.display()
                ),
                source: std::io::Error::from(std::io::ErrorKind::PermissionDenied).into(),
            });
        }
        dir = d.parent();
    }
    Ok(Some(user))
}

/// One initialised data directory, `data/` in a directory its watchdog
/// owns, that servers copy at their start; dropped once they have.
pub(crate) struct Template {
    held: Supervised,
    user: Option<OsUser>,
}

impl Template {
    /// `initdb` into a new directory: superuser `postgres`, trust on
    /// 127.0.0.1, UTF8 and the C locale (text sorts by bytes, messages in
    /// English).
    pub(crate) fn create(bins: &PgBins) -> Result<Template> {
        let dir = new_data_dir("postgres-template")?;
        let user = match server_user(&dir).and_then(|u| u.map(|u| u.take(&dir).map(|()| u)).transpose()) {
            Ok(u) => u,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(e);
            }
        };
        // initdb, its exit status recorded, then wait to be stopped: the directory lives as long as `held`.
        let script = r#"dir=$1; shift
"$@" -D "$dir/data" >"$dir/initdb.log" 2>&1; echo "$?" >"$dir/initdb.status"
exec sleep 2147483647"#;
        let args: Vec<OsString> = vec![
            "-c".into(),
            script.into(),
            "sh".into(),
            dir.clone().into(),
            bins.initdb.clone().into(),
            "-U".into(),
            "postgres".into(),
            "-A".into(),
            "trust".into(),
            "-E".into(),
            "UTF8".into(),
            "--locale=C".into(),
            "--no-sync".into(),
        ];
        let held = Supervised::launch(
            "initdb",
            Path::new("sh"),
            &args,
            dir.clone(),
            Launch { user, stop: "TERM", cleanup: "" },
        )?;
        let status = dir.join("initdb.status");
        let deadline = Instant::now() + INITDB_WITHIN;
        while !status.exists() {
            if Instant::now() > deadline || !held.alive() {
                return Err(Error::ServerFailed {
                    node: "initdb".into(),
                    port: 0,
                    problem: format!(
                        "did not finish within {} s; its log ends:\n{}",
                        INITDB_WITHIN.as_secs(),
                        log_tail(&dir.join("initdb.log"), 5)
                    ),
                    source: None,
                });
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(5)); // the status line is written after the file appears
        let code = std::fs::read_to_string(&status).unwrap_or_default();
        if code.trim() != "0" {
            return Err(Error::ServerFailed {
                node: "initdb".into(),
                port: 0,
                problem: format!(
                    "exited with status {}; its log ends:\n{}",
                    code.trim(),
                    log_tail(&dir.join("initdb.log"), 8)
                ),
                source: None,
            });
        }
        Ok(Template { held, user })
    }

    fn data(&self) -> PathBuf {
        self.held.dir().join("data")
    }
}

/// One `postgres` server under its watchdog, on a port of 127.0.0.1.
#[derive(Debug)]
pub(crate) struct PgServer {
    server: Supervised,
    lease: PortLease,
    psql: PathBuf,
}

impl PgServer {
    /// Start server `name` from a copy of `template`, on a free port
    /// (another one if the one picked was taken meanwhile).
    pub(crate) fn start(name: &str, bins: &PgBins, template: &Template) -> Result<PgServer> {
        // The watchdog copies the template, then runs postgres in its place.
        let script = r#"dir=$1; template=$2; shift 2
cp -a "$template" "$dir/data" && exec "$@" -D "$dir/data" 2>"$dir/postgres.log""#;
        let mut last = None;
        for _ in 0..8 {
            let lease = PortLease::take()?;
            let dir = new_data_dir("postgres")?;
            if let Some(u) = template.user {
                if let Err(e) = u.take(&dir) {
                    let _ = std::fs::remove_dir_all(&dir);
                    return Err(e);
                }
            }
            let port = lease.port().to_string();
            let mut args: Vec<OsString> = vec!["-c".into(), script.into(), "sh".into(), dir.clone().into()];
            args.extend([template.data().into_os_string(), bins.postgres.clone().into_os_string()]);
            args.extend(["-p", &port].map(OsString::from));
            for setting in SETTINGS {
                args.extend(["-c".into(), OsString::from(setting)]);
            }
            let how = Launch { user: template.user, stop: "INT", cleanup: SHARED_MEMORY_CLEANUP };
            let server = Supervised::launch(name, Path::new("sh"), &args, dir.clone(), how)?;
            let log = dir.join("postgres.log");
            let ready = || std::fs::read_to_string(&log).is_ok_and(|l| l.contains("ready to accept connections"));
            match server.wait_ready(lease.port(), Some(&log), ready) {
                Ok(()) => return Ok(PgServer { server, lease, psql: bins.psql.clone() }),
                Err(e) if e.to_string().contains("already in use") => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| Error::ServerFailed {
            node: name.into(),
            port: 0,
            problem: "no free port was found in 8 tries".into(),
            source: None,
        }))
    }

    /// The name the driver gave it ("coordinator", "A", …).
    pub(crate) fn name(&self) -> &str {
        self.server.name()
    }

    pub(crate) fn port(&self) -> u16 {
        self.lease.port()
    }

    pub(crate) fn pid(&self) -> u32 {
        self.server.pid()
    }

    pub(crate) fn dir(&self) -> &Path {
        self.server.dir()
    }

    /// Stop it without waiting (dropping waits); stopping several at
    /// once: `release` each, then drop them.
    pub(crate) fn release(&mut self) {
        self.server.release();
    }

    /// Run `script` (statements separated by `;`, `COPY … FROM STDIN` data
    /// inline) in one session and return what it printed: the rows of its
    /// queries as CSV, without headers.
    pub(crate) fn run(&self, script: &str) -> Result<String> {
        if !self.server.alive() {
            return Err(self.failed("its process has exited".into()));
        }
        let conninfo = format!(
            "host={HOST} port={} user=postgres dbname=postgres connect_timeout=10 application_name=reshard",
            self.port()
        );
        let args: Vec<OsString> = ["-X", "-q", "-t", "--csv", "-v", "ON_ERROR_STOP=1", "-d", &conninfo, "-f", "-"]
            .map(OsString::from)
            .to_vec();
        let t0 = Instant::now();
        let done = run_to_end_with(&self.psql, &args, Some(script.as_bytes()), Launch::default(), SQL_WITHIN)?;
        let Some(out) = done else {
            return Err(Error::ServerTimeout {
                node: self.name().into(),
                port: self.port(),
                doing: format!("psql: {}", first_line(script)),
                waited: t0.elapsed(),
            });
        };
        if out.code == Some(0) {
            return Ok(out.stdout);
        }
        let said = out.stderr.lines().map(|l| l.trim_start_matches("psql:<stdin>:")).collect::<Vec<_>>().join("\n");
        let said = if said.trim().is_empty() { format!("psql exited with {:?}", out.code) } else { said };
        Err(self.failed(format!("SQL failed: {}", said.trim())))
    }

    /// The rows one query returns, each a list of fields (NULL is "").
    pub(crate) fn rows(&self, query: &str) -> Result<Vec<Vec<String>>> {
        let out = self.run(&format!("{};\n", query.trim_end().trim_end_matches(';')))?;
        Ok(parse_csv(&out))
    }

    /// A query's one number (a `count(*)`).
    pub(crate) fn number(&self, query: &str) -> Result<u64> {
        let rows = self.rows(query)?;
        let field = rows.first().and_then(|r| r.first()).map(String::as_str).unwrap_or("");
        field.parse().map_err(|_| self.failed(format!("expected a number from `{}`, got {field:?}", first_line(query))))
    }

    /// True while its `postgres` process runs.
    pub(crate) fn alive(&self) -> bool {
        self.server.alive()
    }

    pub(crate) fn failed(&self, problem: String) -> Error {
        Error::ServerFailed { node: self.name().into(), port: self.port(), problem, source: None }
    }
}

/// The settings every server starts with: loopback only, no Unix socket, no
/// durability (the data is thrown away), messages in English, no background
/// work that would change plans or counters between runs, and dynamic
/// shared memory in files of the data directory (`mmap`, under
/// `pg_dynshmem/`), not in `/dev/shm/PostgreSQL.*` (`posix`, Linux's
/// default), which a killed server would leave behind: the watchdog removes
/// them with the directory.
const SETTINGS: [&str; 13] = [
    "listen_addresses=127.0.0.1",
    "dynamic_shared_memory_type=mmap",
    "unix_socket_directories=",
    "fsync=off",
    "synchronous_commit=off",
    "full_page_writes=off",
    "shared_buffers=32MB",
    "max_connections=50",
    "autovacuum=off",
    "jit=off",
    "lc_messages=C",
    "logging_collector=off",
    "max_worker_processes=4",
];

/// What the watchdog of a server runs once `postgres` has ended (see
/// [`Launch::cleanup`]). A server stopped as asked removes its shared memory
/// itself; one that was killed (`kill -9`, out of memory) leaves its System V
/// interlock segment, which outlives its data directory. Line 7 of
/// `postmaster.pid` holds that segment's key and id; the segment is removed
/// only when `/proc/sysvipc/shm` says this very server (its process id,
/// `$pid`) created it, so another server's segment is never touched.
const SHARED_MEMORY_CLEANUP: &str = r#"f="$dir/data/postmaster.pid"
if [ -f "$f" ]; then
  { read -r _; read -r _; read -r _; read -r _; read -r _; read -r _; read -r _ shmid; } <"$f"
  [ -n "$shmid" ] && while read -r _ id _ _ cpid _; do
    [ "$id" = "$shmid" ] && [ "$cpid" = "$pid" ] && ipcrm -m "$id" 2>/dev/null
  done </proc/sysvipc/shm 2>/dev/null
fi
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_folders_are_newest_first() {
        let root = new_dir("pgtest").unwrap();
        for v in ["13", "15", "9", "x"] {
            std::fs::create_dir_all(root.join(v).join("bin")).unwrap();
        }
        let found = versioned(root.to_str().unwrap(), "");
        std::fs::remove_dir_all(&root).unwrap();
        let majors: Vec<String> =
            found.iter().map(|p| p.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(majors, ["15", "13", "9"]);
    }
}
