//! A range-sharded table on real PostgreSQL servers: one coordinator, N
//! nodes, joined by `postgres_fdw`.
//!
//! [`PgShards::start`] starts one `postgres` per node and one coordinator
//! (see [`live::postgres`](crate::live::postgres): 127.0.0.1, free ports,
//! gone on drop, panic or kill), and tells the coordinator about every
//! node (`CREATE SERVER "node_A" FOREIGN DATA WRAPPER postgres_fdw …`).
//! [`PgShards::create`] then builds a table from a [`TableSpec`]: on the
//! coordinator `CREATE TABLE … PARTITION BY RANGE (key)` (or `(h)`, a hash
//! of the key), and for each range a partition that is a
//! `FOREIGN TABLE … PARTITION OF … SERVER "node_X"`, whose rows live in a
//! plain table of the same name on node X. So PostgreSQL itself routes
//! every row and every query:
//!
//! * an `INSERT` on the coordinator goes to the partition whose range holds
//!   the row's key (tuple routing), and from there to its node;
//! * a query on a key or a key range is planned against only the
//!   partitions that can hold it (partition pruning): [`PgShards::explain`]
//!   reads which nodes it touches from `EXPLAIN`;
//! * `SELECT count(*)` on each node directly ([`PgShards::rows_per_node`])
//!   says where each row really is.
//!
//! The table's columns and ranges are a [`TableSpec`]
//! ([`live::pg_table`](crate::live::pg_table)); a partition splits on the
//! live servers with [`PgShards::split`] ([`live::pg_rebalance`](crate::live::pg_rebalance)).
//!
//! ```
//! use reshard::live::{pg_version, Bound, PgShards, TableSpec};
//! use reshard::KeySet;
//! # if pg_version().is_err() { return Ok(()); } // not installed here
//! let mut pg = PgShards::start(["A", "B"])?;
//! let spec = TableSpec::by_key("orders", [(Bound::Min, Bound::text("key5"), "A"), (Bound::text("key5"), Bound::Max, "B")])?;
//! pg.create(&spec)?;
//! pg.insert("orders", &KeySet::new("key", 10))?;
//! // key0 … key4 sort below "key5": here bytes and numbers agree
//! let rows: Vec<u64> = pg.rows_per_node("orders")?.into_iter().map(|(_, n)| n).collect();
//! assert_eq!(rows, [5, 5]);
//! let split = pg.split("orders", &Bound::text("key7"), "A")?; // key7, key8, key9 go back to A
//! assert_eq!(split.moved(), 3);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::live::pg_table::{split_bounds, Bound, Partition, TableSpec};
use crate::live::pg_text::{hex_text, literal, unhex};
use crate::live::postgres::{PgBins, PgServer, Template};
use crate::{limits, Error, Result};
use std::path::PathBuf;
use std::time::Instant;

/// The most node servers one [`PgShards`] starts (each is a `postgres`
/// with its own memory).
pub const MAX_PG_NODES: usize = 16;

/// The most rows one [`PgShards::insert`] sends (they travel as text
/// through `psql`, then row by row through the coordinator).
pub const MAX_PG_ROWS: usize = 2_000_000;

/// The name of the coordinator among the servers.
pub const COORDINATOR: &str = "coordinator";
/// What [`PgShards::insert`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Inserted {
    /// Rows inserted through the coordinator.
    pub rows: u64,
    /// How long it took, in seconds (run-dependent).
    pub seconds: f64,
}

/// A query's plan on the coordinator, and what it touches.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Plan {
    /// `EXPLAIN`'s text.
    pub text: String,
    /// The partitions it scans, in plan order.
    pub scans: Vec<Scan>,
}

/// One foreign scan in a plan: a partition, on its node.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Scan {
    /// The partition scanned.
    pub partition: String,
    /// The node that holds it.
    pub node: String,
    /// Rows it returned, when the plan was run
    /// ([`PgShards::explain_analyze`]).
    pub rows: Option<u64>,
    /// Scanned concurrently with the others (`Async Foreign Scan`: the
    /// node's server is `async_capable`, [`PgShards::set_async`]).
    pub concurrent: bool,
}

impl Plan {
    /// The nodes the query touches, each once, in node order as given to
    /// [`PgShards::start`].
    pub fn nodes(&self, all: &[String]) -> Vec<String> {
        all.iter().filter(|s| self.scans.iter().any(|c| c.node == **s)).cloned().collect()
    }

    /// Rows each node returned, in the order of `all` (0 for a node not
    /// scanned); only for a plan that was run.
    pub fn rows_per_node(&self, all: &[String]) -> Vec<(String, u64)> {
        all.iter()
            .map(|s| (s.clone(), self.scans.iter().filter(|c| c.node == *s).filter_map(|c| c.rows).sum()))
            .collect()
    }
}

/// A global index of a table (made by `live::pg_index`): the postings
/// table of `table`'s `attributes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GlobalIndex {
    pub(crate) name: String,
    pub(crate) table: String,
    pub(crate) attributes: Vec<String>,
}

/// A coordinator and its nodes: see the [module documentation](self).
#[derive(Debug)]
pub struct PgShards {
    pub(crate) coordinator: PgServer,
    pub(crate) nodes: Vec<PgServer>,
    pub(crate) tables: Vec<TableSpec>,
    pub(crate) indexes: Vec<GlobalIndex>,
    next_partition: u64,
}

impl PgShards {
    /// Start one server per node name (1 to [`MAX_PG_NODES`], each
    /// letters, digits or `_`) and a coordinator that knows them all.
    pub fn start<I, S>(names: I) -> Result<PgShards>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let names: Vec<String> = names.into_iter().take(MAX_PG_NODES + 1).map(Into::into).collect();
        if names.is_empty() {
            return Err(Error::NoNodes);
        }
        limits::check_hint(
            "PostgreSQL servers (nodes)",
            names.len() as u128,
            MAX_PG_NODES as u128,
            "start at most 16 nodes; model more with the crate's schemes",
        )?;
        for (i, n) in names.iter().enumerate() {
            let plain = !n.is_empty() && n.len() <= 32 && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !plain || n == COORDINATOR {
                return Err(Error::UnknownName {
                    what: "node name",
                    given: n.clone(),
                    choices: "1 to 32 letters, digits or _, not \"coordinator\" (e.g. A, B, shard1)".into(),
                });
            }
            if names[..i].contains(n) {
                return Err(Error::DuplicateNode(n.clone()));
            }
        }
        let bins = PgBins::find()?;
        let template = Template::create(&bins)?;
        // The servers start side by side: each copies the template, then starts.
        let started: Vec<Result<PgServer>> = std::thread::scope(|s| {
            let all: Vec<&str> = std::iter::once(COORDINATOR).chain(names.iter().map(String::as_str)).collect();
            let handles: Vec<_> = all.iter().map(|n| s.spawn(|| PgServer::start(n, &bins, &template))).collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| Err(Error::ThreadPanicked { task: "starting a PostgreSQL server" }))
                })
                .collect()
        });
        drop(template);
        let mut servers = Vec::with_capacity(started.len());
        for s in started {
            servers.push(s?); // an error drops (stops) the servers already started
        }
        let coordinator = servers.remove(0);
        let pg = PgShards { coordinator, nodes: servers, tables: Vec::new(), indexes: Vec::new(), next_partition: 0 };
        let mut setup = String::from("CREATE EXTENSION postgres_fdw;\n");
        for s in &pg.nodes {
            setup += &format!(
                "CREATE SERVER \"node_{n}\" FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '{p}', \
                 dbname 'postgres', batch_size '1000', fetch_size '10000', async_capable 'false');\n\
                 CREATE USER MAPPING FOR CURRENT_USER SERVER \"node_{n}\" OPTIONS (user 'postgres');\n",
                n = s.name(),
                p = s.port()
            );
        }
        pg.coordinator_run(&setup).map_err(|e| match e {
            Error::ServerFailed { problem, .. } if problem.contains("postgres_fdw") => Error::ProgramMissing {
                program: "postgres_fdw",
                install: "PostgreSQL's contrib modules (Debian/Ubuntu: `sudo apt-get install postgresql-contrib`)",
            },
            e => e,
        })?;
        Ok(pg)
    }

    /// The node names, in the order given.
    pub fn names(&self) -> Vec<String> {
        self.nodes.iter().map(|s| s.name().to_string()).collect()
    }

    pub(crate) fn server(&self, name: &str) -> Result<&PgServer> {
        if name == COORDINATOR {
            return Ok(&self.coordinator);
        }
        self.node(name)
    }

    /// Node `name`, where a table's rows go: never the coordinator, which
    /// routes rows and holds none of them.
    pub(crate) fn node(&self, name: &str) -> Result<&PgServer> {
        if name == COORDINATOR {
            return Err(Error::UnknownName {
                what: "node",
                given: name.to_string(),
                choices: format!(
                    "a node: {} (the coordinator routes rows to the nodes and holds none)",
                    self.names().join(", ")
                ),
            });
        }
        self.nodes.iter().find(|s| s.name() == name).ok_or_else(|| Error::UnknownNode(name.to_string()))
    }

    /// Run `script` on the coordinator (see [`PgServer::run`]), naming the
    /// node that failed when one did (see [`blame`](Self::blame)).
    pub(crate) fn coordinator_run(&self, script: &str) -> Result<String> {
        self.coordinator.run(script).map_err(|e| self.blame(e))
    }

    /// The rows of one query on the coordinator (see [`PgServer::rows`]),
    /// naming the node that failed when one did.
    pub(crate) fn coordinator_rows(&self, query: &str) -> Result<Vec<Vec<String>>> {
        self.coordinator.rows(query).map_err(|e| self.blame(e))
    }

    /// The error of a coordinator's statement that failed, as the error of
    /// the node whose server has exited, if one has (and the coordinator
    /// lives): the coordinator only relays that its connection to some
    /// node closed, naming itself and a partition, while the cause is the
    /// node's server. The coordinator's own message follows.
    fn blame(&self, e: Error) -> Error {
        if !self.coordinator.alive() {
            return e;
        }
        match self.nodes.iter().find(|s| !s.alive()) {
            Some(dead) => dead.failed(format!(
                "its process has exited, and the coordinator's statement through it (foreign server \"node_{}\") \
                 failed: {e}",
                dead.name()
            )),
            None => e,
        }
    }

    /// The port of server `name` (a node, or [`COORDINATOR`]) on 127.0.0.1.
    pub fn port(&self, name: &str) -> Result<u16> {
        self.server(name).map(PgServer::port)
    }

    /// The process id and data directory of every server, the coordinator
    /// first: what must be gone once this value is dropped.
    pub fn footprint(&self) -> Vec<(u32, PathBuf)> {
        std::iter::once(&self.coordinator).chain(&self.nodes).map(|s| (s.pid(), s.dir().to_path_buf())).collect()
    }

    /// Run one SQL query on server `name` (a node or [`COORDINATOR`]) and
    /// return its rows, each a list of fields as text (NULL as "", other
    /// text as psql prints it). When a statement of the coordinator fails
    /// because a node's server has exited, the error is that node's
    /// ([`Error::ServerFailed`] naming it and its port), with the
    /// coordinator's message; so for every call of this driver.
    pub fn query(&self, name: &str, sql: &str) -> Result<Vec<Vec<String>>> {
        if name == COORDINATOR {
            return self.coordinator_rows(sql);
        }
        self.node(name)?.rows(sql)
    }

    /// Run SQL statements on server `name` and return what they printed
    /// (the rows of any query, as CSV).
    pub fn execute(&self, name: &str, sql: &str) -> Result<String> {
        if name == COORDINATOR {
            return self.coordinator_run(sql);
        }
        self.node(name)?.run(sql)
    }

    pub(crate) fn spec(&self, table: &str) -> Result<&TableSpec> {
        self.tables.iter().find(|t| t.name() == table).ok_or_else(|| Error::UnknownName {
            what: "table",
            given: table.to_string(),
            choices: if self.tables.is_empty() {
                "none yet: create one with PgShards::create".into()
            } else {
                self.tables.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ")
            },
        })
    }

    pub(crate) fn partition_name(&mut self, table: &str) -> String {
        self.next_partition += 1;
        format!("{table}__p{}", self.next_partition)
    }

    /// Create the table of `spec`: its partitions' tables on their nodes,
    /// then the partitioned table and its foreign partitions on the
    /// coordinator.
    pub fn create(&mut self, spec: &TableSpec) -> Result<()> {
        if self.tables.iter().any(|t| t.name() == spec.name()) {
            return Err(Error::NameTaken {
                what: "table",
                name: spec.name().to_string(),
                by: "a table these servers have already (PgShards::create made it)",
            });
        }
        for (_, _, node) in spec.ranges() {
            self.node(node)?;
        }
        let cols = spec.columns_sql();
        let names: Vec<String> = spec.ranges().iter().map(|_| self.partition_name(spec.name())).collect();
        for node in self.names() {
            let mine: Vec<&String> =
                names.iter().zip(spec.ranges()).filter(|(_, r)| r.2 == node).map(|(n, _)| n).collect();
            if !mine.is_empty() {
                let ddl: String =
                    mine.iter().map(|n| format!("CREATE TABLE {n} ({cols}, PRIMARY KEY (key));\n")).collect();
                self.node(&node)?.run(&ddl)?;
            }
        }
        let mut ddl = format!("CREATE TABLE {} ({cols}) PARTITION BY RANGE ({});\n", spec.name(), spec.by().column());
        for (n, (lo, hi, node)) in names.iter().zip(spec.ranges()) {
            ddl += &format!(
                "CREATE FOREIGN TABLE {n} PARTITION OF {} FOR VALUES FROM ({}) TO ({}) SERVER \"node_{node}\" \
                 OPTIONS (table_name '{n}');\n",
                spec.name(),
                lo.sql(),
                hi.sql()
            );
        }
        self.coordinator_run(&ddl)?;
        self.tables.push(spec.clone());
        Ok(())
    }

    /// The partitions of `table`, in range order, as the coordinator's
    /// catalog has them. A text bound comes back as it was given, every
    /// code point: it is read as the hex of its bytes, which psql prints as
    /// they are (psql drops some code points of text it prints, U+10FFFF
    /// among them).
    pub fn partitions(&self, table: &str) -> Result<Vec<Partition>> {
        let by = self.spec(table)?.by();
        let rows = self.coordinator_rows(&format!(
            "SELECT c.relname, {}, s.srvname FROM pg_inherits i \
             JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_foreign_table f ON f.ftrelid = c.oid \
             JOIN pg_foreign_server s ON s.oid = f.ftserver WHERE i.inhparent = {}::regclass",
            hex_text("pg_get_expr(c.relpartbound, c.oid)"),
            literal(table)
        ))?;
        let mut parts = Vec::with_capacity(rows.len());
        for r in rows {
            let [name, hex, server] = <[String; 3]>::try_from(r)
                .map_err(|r| self.coordinator.failed(format!("catalog row {r:?} is not (name, bound, server)")))?;
            let bound = unhex(&hex)
                .ok_or_else(|| self.coordinator.failed(format!("partition bound of {name} is not hex: {hex:?}")))?;
            let bad = || self.coordinator.failed(format!("cannot read partition bound {bound:?} of {name}"));
            // "FOR VALUES FROM ('a') TO ('b')"
            let inner = bound.strip_prefix("FOR VALUES FROM (").ok_or_else(bad)?;
            let (lo, hi) = split_bounds(inner).ok_or_else(bad)?;
            let (lower, upper) = (Bound::parse(lo, by).ok_or_else(bad)?, Bound::parse(hi, by).ok_or_else(bad)?);
            let node = server.strip_prefix("node_").unwrap_or(&server).to_string();
            parts.push(Partition { name, lower, upper, node });
        }
        parts.sort_by(|a, b| a.lower.cmp(&b.lower));
        Ok(parts)
    }

    /// Rows of each partition of `table`, counted on its node directly.
    pub fn rows_per_partition(&self, table: &str) -> Result<Vec<(Partition, u64)>> {
        let parts = self.partitions(table)?;
        let mut counts = std::collections::BTreeMap::new();
        for node in &self.nodes {
            let mine: Vec<&Partition> = parts.iter().filter(|p| p.node == node.name()).collect();
            if mine.is_empty() {
                continue;
            }
            let q: Vec<String> =
                mine.iter().map(|p| format!("SELECT {}, count(*) FROM {}", literal(&p.name), p.name)).collect();
            for r in node.rows(&q.join(" UNION ALL "))? {
                if let [name, n] = &r[..] {
                    counts.insert(name.clone(), n.parse::<u64>().unwrap_or(0));
                }
            }
        }
        Ok(parts
            .into_iter()
            .map(|p| {
                let n = counts.get(&p.name).copied().unwrap_or(0);
                (p, n)
            })
            .collect())
    }

    /// Rows of `table` on each node (in the order given to
    /// [`start`](PgShards::start)), counted on the node directly.
    pub fn rows_per_node(&self, table: &str) -> Result<Vec<(String, u64)>> {
        let per = self.rows_per_partition(table)?;
        Ok(self
            .names()
            .into_iter()
            .map(|s| {
                let n = per.iter().filter(|(p, _)| p.node == s).map(|(_, n)| n).sum();
                (s, n)
            })
            .collect())
    }

    /// Every key of `table` and the node that holds it, read from each
    /// node directly, in key order. Each key comes back as it was stored,
    /// every code point: it is read as the hex of its bytes (see
    /// [`partitions`](Self::partitions)).
    pub fn node_of_each(&self, table: &str) -> Result<Vec<(String, String)>> {
        let parts = self.partitions(table)?;
        let mut out = Vec::new();
        for node in &self.nodes {
            let mine: Vec<String> = parts
                .iter()
                .filter(|p| p.node == node.name())
                .map(|p| format!("SELECT {} FROM {}", hex_text("key"), p.name))
                .collect();
            if mine.is_empty() {
                continue;
            }
            for r in node.rows(&mine.join(" UNION ALL "))? {
                let hex = r.into_iter().next().unwrap_or_default();
                let key = unhex(&hex).ok_or_else(|| node.failed(format!("a key of {table} is not hex: {hex:?}")))?;
                out.push((key, node.name().to_string()));
            }
        }
        out.sort();
        Ok(out)
    }

    /// The coordinator's plan for `query` (`EXPLAIN (COSTS OFF)`) and the
    /// partitions and nodes it scans.
    pub fn explain(&self, query: &str) -> Result<Plan> {
        self.plan(&format!("EXPLAIN (COSTS OFF) {query}"))
    }

    /// [`explain`](PgShards::explain) with the query run
    /// (`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)`): each scan
    /// also says how many rows its node returned.
    pub fn explain_analyze(&self, query: &str) -> Result<Plan> {
        self.plan(&format!("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) {query}"))
    }

    fn plan(&self, explain: &str) -> Result<Plan> {
        let text: String = self.coordinator_rows(explain)?.into_iter().map(|r| r.join(",") + "\n").collect();
        let mut where_is = std::collections::BTreeMap::new();
        for t in &self.tables {
            for p in self.partitions(t.name())? {
                where_is.insert(p.name, p.node);
            }
        }
        let scans = text
            .lines()
            .filter_map(|l| {
                let (before, rest) = l.split_once("Foreign Scan on ")?;
                // "public.items__p1 items_1 (actual rows=1388 loops=1)" with VERBOSE, "items__p1 items_1" without
                let rel = rest.split_whitespace().next()?.rsplit('.').next()?;
                let rows = rest
                    .split_once("rows=")
                    .and_then(|(_, r)| r.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok());
                let node = where_is.get(rel)?.clone();
                Some(Scan { partition: rel.to_string(), node, rows, concurrent: before.trim_end().ends_with("Async") })
            })
            .collect();
        Ok(Plan { text, scans })
    }

    /// Rows inserted so far into `table`'s partitions on each node, by the
    /// node's own counter (`pg_stat_user_tables.n_tup_ins`, which counts
    /// rows a split moved in as well). PostgreSQL publishes a session's
    /// counts when the session ends, moments after the coordinator's: this
    /// waits (at most 5 s) until two reads 50 ms apart agree.
    pub fn inserts_per_node(&self, table: &str) -> Result<Vec<(String, u64)>> {
        self.spec(table)?;
        let pattern = literal(&format!("{}\\_\\_p%", table));
        let read = || -> Result<Vec<(String, u64)>> {
            self.nodes
                .iter()
                .map(|s| {
                    let n = s.number(&format!(
                        "SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_user_tables WHERE relname LIKE {pattern}"
                    ))?;
                    Ok((s.name().to_string(), n))
                })
                .collect()
        };
        let deadline = Instant::now() + std::time::Duration::from_secs(5);
        let mut last = read()?;
        loop {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let now = read()?;
            if now == last || Instant::now() > deadline {
                return Ok(now);
            }
            last = now;
        }
    }
}

impl Drop for PgShards {
    fn drop(&mut self) {
        // Ask every server to stop at once, then wait for each.
        self.coordinator.release();
        for s in &mut self.nodes {
            s.release();
        }
    }
}
