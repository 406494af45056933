//! What a node of a [`RedisCluster`] has run: `INFO commandstats`, the
//! calls of each command since the server started (or since `CONFIG
//! RESETSTAT`). Read before and after a step, it counts the commands the
//! step cost on that node — e.g. the `MIGRATE`s `redis-cli` sent a source
//! while it moved slots, set beside
//! [`Migrations`](crate::analysis::Migrations) by the tutor.

use crate::live::client::Reply;
use crate::live::cluster::RedisCluster;
use crate::{Error, Result};

/// The longest command name asked about (Redis's longest, with a
/// subcommand, are about 30 characters: `cluster|countkeysinslot`).
const LONGEST_COMMAND: usize = 64;

impl RedisCluster {
    /// How many times node `name` has run `command` (any case: `"MIGRATE"`,
    /// `"migrate"`), from its `INFO commandstats` line
    /// `cmdstat_<command>:calls=N,…`; 0 when the node has not run it yet
    /// (the line is missing). A subcommand is named as Redis 7 counts it,
    /// `"client|list"`. Reading the counters runs `INFO` (and `COMMAND
    /// INFO`) on the node, so those two count the reads themselves.
    ///
    /// Fails with [`Error::UnknownName`] on a name the node does not know as
    /// a command (`COMMAND INFO` answers nil for it): its counter would read
    /// 0 for ever, whatever ran.
    ///
    /// ```
    /// use reshard::live::{redis_version, RedisCluster};
    /// use reshard::KeySet;
    /// # if redis_version().is_err() { return Ok(()); } // not installed here
    /// let cluster = RedisCluster::start(["A", "B", "C"])?;
    /// let loaded = cluster.load(&KeySet::users(300))?;
    /// let sets: u64 = ["A", "B", "C"].iter().map(|n| cluster.command_calls(n, "SET")).sum::<Result<_, _>>()?;
    /// assert_eq!(sets, 300); // one SET per key, each sent to its node
    /// assert_eq!(cluster.command_calls("A", "migrate")?, 0);
    /// assert!(cluster.command_calls("A", "MIGRAT").is_err()); // no such command
    /// assert!(cluster.command_calls("A", "client|list").is_ok()); // a subcommand, as Redis 7 names it
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn command_calls(&self, name: &str, command: &str) -> Result<u64> {
        let unknown = || Error::UnknownName {
            what: "Redis command",
            given: command.chars().take(LONGEST_COMMAND).collect(),
            choices: "a command this redis-server runs (COMMAND INFO answers it), e.g. \"SET\", \"MIGRATE\" \
                      or \"client|list\""
                .into(),
        };
        let plain = |c: char| c.is_ascii_graphic() && c != ':' && c != ',';
        if command.is_empty() || command.len() > LONGEST_COMMAND || !command.chars().all(plain) {
            return Err(unknown());
        }
        match self.command(name, &["COMMAND", "INFO", command])? {
            Reply::Array(Some(items)) if matches!(items.first(), Some(Reply::Array(Some(_)))) => {}
            _ => return Err(unknown()),
        }
        let text = self.command(name, &["INFO", "commandstats"])?.text();
        let prefix = format!("cmdstat_{}:", command.to_ascii_lowercase());
        let Some(line) = text.lines().find_map(|l| l.trim().strip_prefix(prefix.as_str())) else {
            return Ok(0);
        };
        let calls = line.split(',').find_map(|f| f.strip_prefix("calls=")).and_then(|n| n.parse().ok());
        calls.ok_or_else(|| Error::UnexpectedReply {
            node: name.to_string(),
            port: self.port(name).unwrap_or(0),
            doing: "INFO commandstats".into(),
            got: format!("{prefix}{line}"),
        })
    }
}
