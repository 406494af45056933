//! `redis-cli --cluster`: the runs that form, grow and shrink a
//! [`RedisCluster`] — `create` (from [`RedisCluster::start`]), `add-node`,
//! `rebalance`, `reshard`, `del-node` — and what each printed.
//!
//! Each run is a child process under the watchdog of
//! [`live::process`](crate::live::process), so it stops when this process
//! dies, and may take at most [`CLI_WITHIN`].

use crate::live::cluster::{RedisCluster, RedisNode};
use crate::live::process::{run_to_end, HOST};
use crate::{Error, Result};
use std::ffi::OsString;
use std::time::{Duration, Instant};

/// How long one `redis-cli --cluster` run may take.
pub const CLI_WITHIN: Duration = Duration::from_secs(300);

/// How long a node removed by `del_node` may take to shut down.
const LEAVE_WITHIN: Duration = Duration::from_secs(10);

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

/// What a `redis-cli --cluster` run printed and how long it took.
#[derive(Debug, Clone)]
#[non_exhaustive]
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

impl RedisCluster {
    /// Run `redis-cli` with these arguments under a watchdog (it stops if
    /// this process dies), for at most [`CLI_WITHIN`]; fails on a non-zero
    /// exit or an `[ERR]` line.
    pub(super) fn cli(&self, args: Vec<String>) -> Result<CliRun> {
        let t0 = Instant::now();
        let shown = self.named_text(&args.join(" "));
        let os: Vec<OsString> = args.iter().map(OsString::from).collect();
        let Some(out) = run_to_end(&self.redis_cli, &os, CLI_WITHIN)? else {
            let e = self.entry();
            return Err(Error::ServerTimeout {
                node: e.name().to_string(),
                port: e.port(),
                doing: format!("redis-cli {shown}"),
                waited: CLI_WITHIN,
            });
        };
        let seconds = t0.elapsed().as_secs_f64();
        let text = strip_ansi(&self.named_text(&out.stdout));
        if out.code != Some(0) || text.contains("[ERR]") {
            let err = strip_ansi(&self.named_text(&out.stderr));
            let tail: Vec<&str> = text.lines().chain(err.lines()).rev().take(12).collect();
            return Err(Error::CliFailed {
                command: shown,
                code: out.code,
                output: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
            });
        }
        Ok(CliRun { args, output: text, seconds })
    }

    fn entry_addr(&self) -> String {
        format!("{HOST}:{}", self.entry().port())
    }

    /// Start a new empty server `name` and join it to the cluster with
    /// `redis-cli --cluster add-node`: it serves no slots yet. Returns when
    /// every node knows it.
    pub fn add_node(&mut self, name: &str) -> Result<CliRun> {
        if self.servers.iter().any(|s| s.name() == name) {
            return Err(Error::DuplicateNode(name.to_string()));
        }
        let s = RedisNode::start(name, &self.redis_server, self.reply_within)?;
        let new = format!("{HOST}:{}", s.port());
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
    /// then removes its directory. A node whose process has exited cannot
    /// be removed this way: the error says so, by name.
    pub fn del_node(&mut self, name: &str) -> Result<CliRun> {
        let s = self.server(name)?;
        if !s.server.alive() {
            return Err(s.exited("redis-cli cannot remove it from the cluster"));
        }
        if self.servers.len() == 1 {
            return Err(Error::LastNode(name.to_string()));
        }
        if self.entry == name {
            // redis-cli is pointed at this node: point it at the first other.
            self.entry = self.servers.iter().find(|s| s.name() != name).expect("another node").name().to_string();
        }
        let id = self.id(name)?;
        let run =
            self.cli(vec!["--cluster".into(), "del-node".into(), self.entry_addr(), id]).map_err(|e| {
                match self.server(name) {
                    Ok(s) if e.to_string().contains("No such node ID") => Error::NotInCluster {
                        node: name.to_string(),
                        port: s.port(),
                        seen_by: self.entry().name().to_string(),
                    },
                    _ => e,
                }
            })?;
        let at = self.servers.iter().position(|s| s.name() == name).expect("still listed");
        let gone = self.servers.remove(at);
        self.removed.push(name.to_string());
        let deadline = Instant::now() + LEAVE_WITHIN;
        while gone.server.alive() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        drop(gone); // stops it (SIGTERM, SIGKILL after 10 s) if it did not leave
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
