//! A write across nodes whose coordinator dies between the nodes' commits
//! (DDIA ch. 7, "Global Secondary Indexes": keeping a global index exact
//! "would require a distributed transaction").
//!
//! A row and its postings live on several nodes. The coordinator writes
//! them in one of its own transactions, and `postgres_fdw` holds one remote
//! transaction per node it touched. At `COMMIT` it sends `COMMIT` to those
//! nodes one after another and waits for each; there is no two-phase
//! commit, so nothing makes the nodes commit together.
//! [`PgShards::insert_indexed_until_crash`] stops the coordinator in the
//! middle, on purpose and every time at the same place: a deferred trigger
//! on each node's tables makes a node's `COMMIT` wait at a gate (an advisory
//! lock the driver holds on that node), the first node to reach its gate is
//! the first `postgres_fdw` asked to commit, and while it waits there the
//! coordinator's backend is killed (`SIGKILL`, as an out-of-memory killer
//! would). Then the gates open: that node finishes the `COMMIT` it was
//! given, and every other node, whose `COMMIT` never came, rolls back when
//! the connection drops. PostgreSQL restarts the coordinator's backends
//! (crash recovery, a moment), and each node is asked what it holds.

use super::{literal, postings_key_of};
use crate::keys::KeySet;
use crate::live::pg_shards::PgShards;
use crate::live::pg_table::Bound;
use crate::{Error, Result};
use std::time::{Duration, Instant};

/// The advisory lock the gates take (any number no other session uses).
const GATE: u64 = 740_517;
/// The application name of the coordinator's session that is killed.
const VICTIM: &str = "reshard-crash";
/// The application name of the driver's sessions that hold the gates.
const KEEPER: &str = "reshard-gate";
/// How long to wait for each step (a gate taken, a commit reaching a gate, the coordinator back).
const WITHIN: Duration = Duration::from_secs(30);

/// What a write left on each node when its coordinator died between the
/// nodes' commits ([`PgShards::insert_indexed_until_crash`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HalfDone {
    /// The table written (its rows), and its global indexes (their postings).
    pub table: String,
    /// Each node the write touched, in node order: the node, the rows of the
    /// table and the postings the write sent there, and how many of each the
    /// node holds afterwards.
    pub nodes: Vec<NodeLeft>,
    /// The node whose `COMMIT` `postgres_fdw` sent first, and which alone got it.
    pub committed_first: String,
    /// How long it took, crash recovery included, in seconds (run-dependent).
    pub seconds: f64,
}

/// One node's part of a write that its coordinator died in the middle of.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NodeLeft {
    /// The node.
    pub node: String,
    /// Rows of the table the write sent to it.
    pub rows_sent: u64,
    /// Postings the write sent to it.
    pub postings_sent: u64,
    /// Rows of the table it holds afterwards, of those sent.
    pub rows_left: u64,
    /// Postings it holds afterwards, of those sent.
    pub postings_left: u64,
}

impl NodeLeft {
    /// True when the node holds everything the write sent it.
    pub fn committed(&self) -> bool {
        self.rows_left == self.rows_sent && self.postings_left == self.postings_sent
    }
}

impl HalfDone {
    /// Rows and postings the write sent, all nodes together.
    pub fn sent(&self) -> u64 {
        self.nodes.iter().map(|n| n.rows_sent + n.postings_sent).sum()
    }

    /// Rows and postings the nodes hold afterwards, all nodes together.
    pub fn left(&self) -> u64 {
        self.nodes.iter().map(|n| n.rows_left + n.postings_left).sum()
    }

    /// The nodes that hold their whole part of the write.
    pub fn committed(&self) -> Vec<&str> {
        self.nodes.iter().filter(|n| n.committed()).map(|n| n.node.as_str()).collect()
    }

    /// True when some of the write is on the nodes and some is not: neither
    /// committed nor rolled back as a whole.
    pub fn is_half_done(&self) -> bool {
        self.left() > 0 && self.left() < self.sent()
    }
}

impl PgShards {
    /// Write the rows of `keys` into `table` with their postings, as
    /// [`insert_indexed`](PgShards::insert_indexed) does, and kill the
    /// coordinator's backend once `postgres_fdw` has sent `COMMIT` to the
    /// first node and before it sends the next (`postgres_fdw` commits node
    /// by node: there is no two-phase commit).
    /// Returns what each node holds afterwards. The tables must be ranges
    /// of keys ([`RangeOf::Key`](crate::live::RangeOf::Key)), and the write
    /// must touch two nodes or more; the coordinator is back, and the
    /// gates gone, when this returns, whether it succeeds or fails.
    pub fn insert_indexed_until_crash(
        &self,
        table: &str,
        keys: &KeySet,
        extra: impl Fn(usize) -> Vec<String>,
    ) -> Result<HalfDone> {
        let t0 = Instant::now();
        let planned = self.planned(table, keys, &extra)?;
        let touched: Vec<&str> =
            self.names_ref().into_iter().filter(|n| planned.iter().any(|(node, _, _)| node == n)).collect();
        if touched.len() < 2 {
            return Err(Error::UnknownName {
                what: "write across nodes",
                given: format!("{} row(s) of {table}, all on {}", keys.len(), touched.join(", ")),
                choices: "rows or postings on two nodes or more: the crash falls between two nodes' commits".into(),
            });
        }
        let tables = self.written_tables(table);
        self.install_gates(&tables)?;
        let crashed = self.crash_in_commit(table, keys, &extra);
        let cleaned = self.remove_gates(&tables);
        let first = crashed?;
        cleaned?;
        let mut nodes = Vec::new();
        for n in touched {
            let mine = |posting: bool| planned.iter().filter(move |(node, p, _)| node == n && *p == posting);
            let (rows, postings): (Vec<&str>, Vec<&str>) =
                (mine(false).map(|(_, _, k)| k.as_str()).collect(), mine(true).map(|(_, _, k)| k.as_str()).collect());
            nodes.push(NodeLeft {
                node: n.to_string(),
                rows_sent: rows.len() as u64,
                postings_sent: postings.len() as u64,
                rows_left: self.held(n, &[table.to_string()], &rows)?,
                postings_left: self.held(n, &tables[1..], &postings)?,
            });
        }
        Ok(HalfDone { table: table.to_string(), nodes, committed_first: first, seconds: t0.elapsed().as_secs_f64() })
    }

    fn names_ref(&self) -> Vec<&str> {
        self.nodes.iter().map(|s| s.name()).collect()
    }

    /// `table` and its global indexes' tables.
    fn written_tables(&self, table: &str) -> Vec<String> {
        std::iter::once(table.to_string())
            .chain(self.indexes.iter().filter(|ix| ix.table == table).map(|ix| ix.name.clone()))
            .collect()
    }

    /// Where each row and posting of the write goes: (node, is a posting, key).
    fn planned(
        &self,
        table: &str,
        keys: &KeySet,
        extra: &dyn Fn(usize) -> Vec<String>,
    ) -> Result<Vec<(String, bool, String)>> {
        let spec = self.spec(table)?;
        let columns: Vec<&str> = spec.extra_columns().iter().map(|(c, _)| c.as_str()).collect();
        let mut out = Vec::new();
        let node_of = |t: &str, key: &str| -> Result<String> {
            let parts = self.partitions(t)?;
            let at = Bound::text(key);
            parts.into_iter().find(|p| p.lower <= at && at < p.upper).map(|p| p.node).ok_or_else(|| {
                Error::UnknownName {
                    what: "table of key ranges",
                    given: t.to_string(),
                    choices: "a table made with TableSpec::by_key or from a KeyRanges layout".into(),
                }
            })
        };
        let mut w = keys.writer();
        for i in 0..keys.len() {
            let key = String::from_utf8_lossy(w.key(i)).into_owned();
            out.push((node_of(table, &key)?, false, key.clone()));
            let values = extra(i);
            for ix in self.indexes.iter().filter(|ix| ix.table == table) {
                for a in &ix.attributes {
                    let Some(v) = columns.iter().position(|c| c == a).and_then(|c| values.get(c)) else { continue };
                    if v.is_empty() {
                        continue;
                    }
                    let posting = postings_key_of(a, v, &key);
                    out.push((node_of(&ix.name, &posting)?, true, posting));
                }
            }
        }
        Ok(out)
    }

    /// On every node, a deferred trigger on each partition of `tables` that waits at the gate.
    fn install_gates(&self, tables: &[String]) -> Result<()> {
        for n in self.names_ref() {
            let mut sql = format!(
                "CREATE OR REPLACE FUNCTION reshard_gate() RETURNS trigger LANGUAGE plpgsql AS $$ \
                 BEGIN PERFORM pg_advisory_xact_lock({GATE}); RETURN NULL; END $$;\n"
            );
            for t in tables {
                for p in self.partitions(t)?.into_iter().filter(|p| p.node == n) {
                    sql += &format!(
                        "CREATE CONSTRAINT TRIGGER reshard_gate AFTER INSERT OR UPDATE OR DELETE ON {} \
                         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION reshard_gate();\n",
                        p.name
                    );
                }
            }
            self.node(n)?.run(&sql)?;
        }
        Ok(())
    }

    fn remove_gates(&self, tables: &[String]) -> Result<()> {
        for n in self.names_ref() {
            let mut sql = String::new();
            for t in tables {
                for p in self.partitions(t)?.into_iter().filter(|p| p.node == n) {
                    sql += &format!("DROP TRIGGER IF EXISTS reshard_gate ON {};\n", p.name);
                }
            }
            sql += "DROP FUNCTION IF EXISTS reshard_gate();\n";
            self.node(n)?.run(&sql)?;
        }
        Ok(())
    }

    /// Hold the gates, start the write, kill the coordinator's backend while the first node's
    /// `COMMIT` waits at its gate, open the gates, wait for the coordinator to come back.
    /// Returns the node that got the `COMMIT`.
    fn crash_in_commit(&self, table: &str, keys: &KeySet, extra: &dyn Fn(usize) -> Vec<String>) -> Result<String> {
        let load = self.incoming(table, keys, (0..keys.len()).map(|i| (i, i as u64)), keys.len(), extra)?;
        let script = format!("SET application_name = '{VICTIM}';\n{}", self.indexed_script(table, &load)?);
        let names = self.names_ref();
        std::thread::scope(|s| {
            let keepers: Vec<_> = names
                .iter()
                .map(|&n| {
                    s.spawn(move || {
                        let hold = format!(
                            "SET application_name = '{KEEPER}';\nSELECT pg_advisory_lock({GATE});\nSELECT pg_sleep(280);\n"
                        );
                        self.node(n).and_then(|node| node.run(&hold))
                    })
                })
                .collect();
            let outcome = (|| -> Result<String> {
                for &n in &names {
                    self.wait_for(
                        n,
                        &format!(
                            "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) \
                                               WHERE l.locktype = 'advisory' AND l.objid = {GATE} AND l.granted \
                                               AND a.application_name = '{KEEPER}'"
                        ),
                        "the driver to hold the gate",
                    )?;
                }
                let writer = s.spawn(|| self.coordinator.run(&script));
                let first = self.first_at_gate(&names, &writer)?;
                let pid = self
                    .coordinator
                    .number(&format!("SELECT pid FROM pg_stat_activity WHERE application_name = '{VICTIM}'"))?;
                let killed = std::process::Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .stderr(std::process::Stdio::null())
                    .status()
                    .is_ok_and(|st| st.success());
                if !killed {
                    return Err(self.coordinator.failed(format!("could not kill its backend {pid}")));
                }
                let _ = writer.join(); // its psql fails: the server closed the connection
                Ok(first)
            })();
            // open the gates whatever happened, then wait for the coordinator and the nodes
            for &n in &names {
                if let Ok(node) = self.node(n) {
                    let _ = node.run(&format!(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '{KEEPER}';\n"
                    ));
                }
            }
            for k in keepers {
                let _ = k.join();
            }
            let back = self.coordinator_back();
            let settled = names.iter().try_for_each(|&n| {
                self.wait_for(
                    n,
                    "SELECT CASE WHEN count(*) = 0 THEN 1 ELSE 0 END FROM pg_stat_activity \
                                  WHERE application_name = 'postgres_fdw'",
                    "the dead coordinator's sessions to end",
                )
            });
            let first = outcome?;
            back?;
            settled?;
            Ok(first)
        })
    }

    /// The script `insert_indexed` sends after loading `incoming`, without its count.
    pub(super) fn indexed_script(&self, table: &str, load: &str) -> Result<String> {
        let cols = self.spec(table)?.column_names().join(", ");
        let mut script =
            format!("{load}BEGIN;\nINSERT INTO {table} ({cols}) SELECT {cols} FROM incoming ORDER BY seq;\n");
        for ix in self.indexes.iter().filter(|ix| ix.table == table) {
            for a in &ix.attributes {
                script += &format!("INSERT INTO {} (key, h, seq) {};\n", ix.name, super::postings_of("incoming", a));
            }
        }
        Ok(script + "COMMIT;\n")
    }

    /// Wait until `probe` (one number) says 1 or more on node `n`.
    fn wait_for(&self, n: &str, probe: &str, what: &str) -> Result<()> {
        let node = self.node(n)?;
        let t0 = Instant::now();
        while node.number(probe)? == 0 {
            if t0.elapsed() > WITHIN {
                return Err(Error::ServerTimeout {
                    node: n.into(),
                    port: node.port(),
                    doing: format!("waiting for {what}"),
                    waited: t0.elapsed(),
                });
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    }

    /// The node where a backend waits at the gate: the first `COMMIT` `postgres_fdw` sent.
    fn first_at_gate<T>(&self, names: &[&str], writer: &std::thread::ScopedJoinHandle<'_, T>) -> Result<String> {
        let probe =
            format!("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = {GATE} AND NOT granted");
        let t0 = Instant::now();
        loop {
            for &n in names {
                if self.node(n)?.number(&probe)? > 0 {
                    return Ok(n.to_string());
                }
            }
            if writer.is_finished() || t0.elapsed() > WITHIN {
                return Err(self.coordinator.failed(
                    "the write reached no node's commit gate (it ended, or took too long): nothing was stopped".into(),
                ));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Wait until the coordinator, restarted after its backend was killed, answers again.
    fn coordinator_back(&self) -> Result<()> {
        let t0 = Instant::now();
        loop {
            match self.coordinator.run("SELECT 1;\n") {
                Ok(_) => return Ok(()),
                Err(e) if t0.elapsed() > WITHIN => return Err(e),
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }

    /// How many of `keys` the partitions of `tables` on node `n` hold.
    fn held(&self, n: &str, tables: &[String], keys: &[&str]) -> Result<u64> {
        if keys.is_empty() {
            return Ok(0);
        }
        let list = keys.iter().map(|k| literal(k)).collect::<Vec<_>>().join(", ");
        let mut parts = Vec::new();
        for t in tables {
            parts.extend(self.partitions(t)?.into_iter().filter(|p| p.node == n).map(|p| p.name));
        }
        let mut total = 0;
        for p in parts {
            total += self.node(n)?.number(&format!("SELECT count(*) FROM {p} WHERE key IN ({list})"))?;
        }
        Ok(total)
    }
}
