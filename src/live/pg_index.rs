//! Secondary indexes on the live nodes (DDIA ch. 7, "Sharding and
//! Secondary Indexes"), and the costs a query by an attribute pays.
//!
//! * **Local** (document-partitioned): [`PgShards::create_local_index`]
//!   builds an index on each partition's table on its own node. (PostgreSQL
//!   would make one index per partition from an index on the partitioned
//!   table, but it skips foreign partitions, whose tables live on other
//!   servers: so the driver builds each on its node.) A query by the
//!   attribute goes to every node: scatter/gather. A unique index built
//!   this way ([`PgShards::create_local_unique_index`]) is unique on each
//!   node only: [`PgShards::insert_unless_taken`] counts what it refuses.
//! * **Global** (term-partitioned): [`PgShards::create_global_index`] builds
//!   a postings table by hand, keyed `attribute:value/rowkey`, itself
//!   range-sharded over the same servers by a layout of terms, so that one
//!   term's postings sit together. [`PgShards::insert_indexed`] writes a
//!   row and its postings in one transaction of the coordinator, which
//!   `postgres_fdw` commits on the row's node and on each term's node one
//!   after another, with no two-phase commit: a coordinator that dies in
//!   between leaves the write half done
//!   ([`PgShards::insert_indexed_until_crash`] shows it).
//! * **Slow nodes**: [`PgShards::slow_down`] puts a view in front of every
//!   partition that sleeps, on a share of the scans, before answering, so
//!   a fan-out query waits for the slowest node; [`PgShards::time_queries`]
//!   measures queries one after another in one session (psql's `\timing`);
//!   [`PgShards::set_async`] lets the coordinator scan the nodes
//!   concurrently (`async_capable`), or one after another.
//! * **An index updated later**: [`PgShards::stale_reads`] writes rows one
//!   at a time while a second session applies the queued postings to the
//!   global index every so often, and reads each new row back through the
//!   index a set time after its write.

use crate::keys::KeySet;
use crate::live::pg_shards::{GlobalIndex, PgShards};
use crate::live::pg_text::{check_identifier, literal};
use crate::live::{Bound, TableSpec};
use crate::schemes::KeyRanges;
use crate::{limits, Error, Result};
use std::time::Instant;

#[path = "pg_crash.rs"]
mod crash;
pub use crash::{HalfDone, NodeLeft};

/// The most queries one [`PgShards::time_queries`] runs.
pub const MAX_TIMED: usize = 100_000;

/// The most rows one [`PgShards::stale_reads`] writes (each is a few
/// transactions and a sleep).
pub const MAX_STALE_WRITES: usize = 10_000;

/// What [`PgShards::stale_reads`] saw.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct StaleReads {
    /// Rows written, each read back once.
    pub writes: u64,
    /// Reads that did not find their row through the index.
    pub misses: u64,
    /// How long the reader waited after each write, in ms.
    pub lag_ms: f64,
    /// The sleep between two drains of the queue, in ms (as asked).
    pub period_ms: f64,
    /// Drains made, and the mean time from one drain's start to the next's,
    /// in ms (the period plus a drain's own time, as measured).
    pub drains: u64,
    /// The measured mean interval between drain starts, in ms.
    pub drain_interval_ms: f64,
    /// The measured mean time a drain took from its start to the end of its
    /// commit (on the coordinator and the index's nodes), in ms.
    pub drain_ms: f64,
    /// Reads that no drain reached in time by the coordinator's clock: no
    /// drain started after the row's write had committed and finished its
    /// commit before the read began. Every miss is one of these, so
    /// `misses <= unserved`; the few that were found anyway had a drain
    /// within microseconds of their write or read.
    pub unserved: u64,
    /// Reads whose outcome the drains' recorded times rule out: a row found
    /// although every drain ended before its write began or started after
    /// its read ended, or missed although a drain ran wholly between the
    /// two. Zero whenever the queue and the index behave as described; a
    /// test can assert it exactly, whatever the machine's load.
    pub contradictions: u64,
    /// How long it all took, in seconds (run-dependent).
    pub seconds: f64,
}

impl StaleReads {
    /// The share of reads that missed.
    pub fn share_missed(&self) -> f64 {
        if self.writes == 0 {
            0.0
        } else {
            self.misses as f64 / self.writes as f64
        }
    }
}

impl PgShards {
    /// Let the coordinator scan the nodes of a query concurrently
    /// (`async_capable` on every node's server: `Async Foreign Scan`), or
    /// one after another (the default).
    pub fn set_async(&self, on: bool) -> Result<()> {
        let sql: String = self
            .names()
            .iter()
            .map(|s| format!("ALTER SERVER \"node_{s}\" OPTIONS (SET async_capable '{on}');\n"))
            .collect();
        self.coordinator_run(&sql).map(drop)
    }

    /// An index on `column` of every partition of `table`, each on its
    /// node: a local (document-partitioned) index. Returns the index
    /// entries (rows with a value in `column`) on each node, in node order.
    pub fn create_local_index(&self, table: &str, column: &str) -> Result<Vec<(String, u64)>> {
        self.local_index(table, column, false)
    }

    /// A unique index on `column` of every partition of `table`, each on its
    /// node: each node refuses a second row with a value it holds already,
    /// and knows nothing of the others' values. Returns the entries on each
    /// node, as [`create_local_index`](PgShards::create_local_index). Fails
    /// when a node holds a value twice already.
    pub fn create_local_unique_index(&self, table: &str, column: &str) -> Result<Vec<(String, u64)>> {
        self.local_index(table, column, true)
    }

    /// Insert the rows of `keys` into `table` through the coordinator (extra
    /// columns from `extra`, as [`insert_with`](PgShards::insert_with)),
    /// each unless a unique index of its node holds its value already
    /// (`ON CONFLICT DO NOTHING`, which `postgres_fdw` passes to the node).
    /// Returns the rows each node took and refused, in node order:
    /// `(node, taken, refused)`.
    pub fn insert_unless_taken(
        &self,
        table: &str,
        keys: &KeySet,
        extra: impl Fn(usize) -> Vec<String>,
    ) -> Result<Vec<(String, u64, u64)>> {
        let load = self.incoming(table, keys, (0..keys.len()).map(|i| (i, i as u64)), keys.len(), extra)?;
        let spec = self.spec(table)?;
        let (cols, col) = (spec.column_names().join(", "), spec.by().column());
        // each row's node by its partition, then the rows the insert returned, per node
        let node_of: Vec<String> = self
            .partitions(table)?
            .iter()
            .map(|p| {
                let mut c = Vec::new();
                if p.lower != Bound::Min {
                    c.push(format!("i.{col} >= {}", p.lower.sql()));
                }
                if p.upper != Bound::Max {
                    c.push(format!("i.{col} < {}", p.upper.sql()));
                }
                let c = if c.is_empty() { "true".to_string() } else { c.join(" AND ") };
                format!("WHEN {c} THEN {}", literal(&p.node))
            })
            .collect();
        let script = format!(
            "{load}CREATE TEMP TABLE taken (key text COLLATE \"C\");\n\
             WITH ins AS (INSERT INTO {table} ({cols}) SELECT {cols} FROM incoming ORDER BY seq \
               ON CONFLICT DO NOTHING RETURNING key) INSERT INTO taken SELECT key FROM ins;\n\
             SELECT node, count(*) FILTER (WHERE t.key IS NOT NULL), count(*) FILTER (WHERE t.key IS NULL) FROM \
               (SELECT i.key, CASE {} END AS node FROM incoming i) r LEFT JOIN taken t USING (key) GROUP BY node;\n",
            node_of.join(" ")
        );
        let rows = crate::live::pg_text::parse_csv(&self.coordinator_run(&script)?);
        let count = |r: &[String], i: usize| r.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        Ok(self
            .names()
            .into_iter()
            .map(|n| {
                let r = rows.iter().find(|r| r.first() == Some(&n));
                (n, r.map_or(0, |r| count(r, 1)), r.map_or(0, |r| count(r, 2)))
            })
            .collect())
    }

    fn local_index(&self, table: &str, column: &str, unique: bool) -> Result<Vec<(String, u64)>> {
        let spec = self.spec(table)?;
        self.check_column(spec, column)?;
        let parts = self.partitions(table)?;
        let mut out = Vec::new();
        for node in self.names() {
            let mine: Vec<&str> = parts.iter().filter(|p| p.node == node).map(|p| p.name.as_str()).collect();
            let mut sql: String = mine
                .iter()
                .map(|p| {
                    format!(
                        "CREATE {u}INDEX {p}_{column} ON {p} ({column});\n",
                        u = if unique { "UNIQUE " } else { "" }
                    )
                })
                .collect();
            let counts: Vec<String> = mine.iter().map(|p| format!("SELECT count({column}) AS n FROM {p}")).collect();
            sql += &if counts.is_empty() {
                "SELECT 0;\n".to_string()
            } else {
                format!("SELECT sum(n) FROM ({}) c;\n", counts.join(" UNION ALL "))
            };
            let n = self.node(&node)?.run(&sql)?.trim().parse().unwrap_or(0);
            out.push((node, n));
        }
        Ok(out)
    }

    fn check_column(&self, spec: &TableSpec, column: &str) -> Result<()> {
        if spec.extra_columns().iter().any(|(c, _)| c == column) {
            return Ok(());
        }
        Err(Error::UnknownName {
            what: "column",
            given: column.to_string(),
            choices: spec.extra_columns().iter().map(|(c, _)| c.clone()).collect::<Vec<_>>().join(", "),
        })
    }

    /// A global (term-partitioned) index `index` on `attributes` of
    /// `table`: a table of postings keyed `attribute:value/rowkey`, laid
    /// out as `terms` (a key-range layout over postings keys, its nodes
    /// this cluster's nodes), filled from the rows `table` holds now.
    /// Later rows reach it through [`insert_indexed`](PgShards::insert_indexed).
    pub fn create_global_index(
        &mut self,
        index: &str,
        table: &str,
        attributes: &[&str],
        terms: &KeyRanges,
    ) -> Result<()> {
        let spec = self.spec(table)?.clone();
        for a in attributes {
            self.check_column(&spec, a)?;
        }
        if attributes.is_empty() {
            return Err(Error::NoKeys);
        }
        self.create(&TableSpec::from_layout(index, terms)?)?;
        let fill: String = attributes
            .iter()
            .map(|a| format!("INSERT INTO {index} (key, h, seq) {};\n", postings_of(table, a)))
            .collect();
        self.coordinator_run(&fill)?;
        let attributes = attributes.iter().map(|a| a.to_string()).collect();
        self.indexes.push(GlobalIndex { name: index.to_string(), table: table.to_string(), attributes });
        Ok(())
    }

    /// Insert the rows of `keys` into `table` (extra columns from `extra`,
    /// as [`insert_with`](PgShards::insert_with)) and, in the same
    /// transaction of the coordinator, their postings into every global
    /// index of `table`. The nodes commit their parts one after another
    /// (see the [module documentation](self)).
    pub fn insert_indexed(&self, table: &str, keys: &KeySet, extra: impl Fn(usize) -> Vec<String>) -> Result<u64> {
        let load = self.incoming(table, keys, (0..keys.len()).map(|i| (i, i as u64)), keys.len(), extra)?;
        let script = self.indexed_script(table, &load)? + "SELECT count(*) FROM incoming;\n";
        let out = self.coordinator_run(&script)?;
        out.trim().parse().map_err(|_| self.coordinator.failed(format!("insert printed {out:?}")))
    }

    /// Make every partition of `table` answer slowly on a share of its
    /// scans: each node then sleeps `delay_ms` before a scan with
    /// probability `share` (its own `random()`, independent of the other
    /// nodes'). `share` 0 makes them fast again.
    pub fn slow_down(&self, table: &str, share: f64, delay_ms: f64) -> Result<()> {
        for (what, v) in [("share", share), ("delay_ms", delay_ms)] {
            if !v.is_finite() || v < 0.0 || (what == "share" && v > 1.0) {
                return Err(Error::BadNumber {
                    what: if what == "share" { "share of slow scans" } else { "delay of a slow scan, in ms" },
                    value: v.to_string(),
                    expected: if what == "share" { "a number from 0 to 1" } else { "a finite number ≥ 0" },
                    hint: "e.g. slow_down(\"items\", 0.01, 50.0): 1% of scans wait 50 ms",
                });
            }
        }
        let parts = self.partitions(table)?;
        for p in &parts {
            // One uncorrelated subquery: evaluated once per scan (an InitPlan), and the view stays a
            // simple one that PostgreSQL can insert through.
            let sql = format!(
                "CREATE OR REPLACE VIEW {n}_slow AS SELECT * FROM {n} WHERE (SELECT true FROM \
                 pg_sleep(CASE WHEN random() < {share} THEN {secs} ELSE 0 END));\n",
                n = p.name,
                secs = delay_ms / 1000.0
            );
            self.node(&p.node)?.run(&sql)?;
        }
        let target = |n: &str| if share > 0.0 { format!("{n}_slow") } else { n.to_string() };
        let sql: String = parts
            .iter()
            .map(|p| format!("ALTER FOREIGN TABLE {} OPTIONS (SET table_name '{}');\n", p.name, target(&p.name)))
            .collect();
        self.coordinator_run(&sql).map(drop)
    }

    /// Run `query` `times` times, one after another in one session of the
    /// coordinator, and return each one's time in ms as psql's `\timing`
    /// measures it (from sending to the last row).
    pub fn time_queries(&self, query: &str, times: usize) -> Result<Vec<f64>> {
        limits::check_hint(
            "timed queries",
            times as u128,
            MAX_TIMED as u128,
            "time at most 100,000 queries in one call",
        )?;
        let one = format!("{};\n", query.trim_end().trim_end_matches(';'));
        let script = format!("\\timing on\n{}", one.repeat(times));
        let out = self.coordinator_run(&script)?;
        let ms: Vec<f64> =
            out.lines().filter_map(|l| l.strip_prefix("Time: ")?.split_whitespace().next()?.parse().ok()).collect();
        if ms.len() != times {
            return Err(self.coordinator.failed(format!("timed {times} queries but psql printed {} times", ms.len())));
        }
        Ok(ms)
    }

    /// Write the rows of `keys` into `table` one at a time while the global
    /// index `index` is kept up to date *later*: each write queues its
    /// postings on the coordinator, and a second session drains the queue
    /// into the index every `period_ms` (then sleeps again). `lag_ms` after
    /// each write, the writer looks its row up through the index by its
    /// first indexed attribute, and counts a miss when it is not there yet.
    /// Between writes it waits a random share of `period_ms`, so the writes
    /// fall at every phase of the drains. Each lookup is also judged by the
    /// coordinator's clock against the drains' recorded times
    /// ([`StaleReads::unserved`], [`StaleReads::contradictions`]), which no
    /// load on the machine can blur.
    pub fn stale_reads(
        &self,
        table: &str,
        index: &str,
        keys: &KeySet,
        extra: impl Fn(usize) -> Vec<String>,
        lag_ms: f64,
        period_ms: f64,
    ) -> Result<StaleReads> {
        let ix = self.indexes.iter().find(|ix| ix.name == index && ix.table == table).cloned().ok_or_else(|| {
            Error::UnknownName { what: "global index", given: index.to_string(), choices: self.index_names() }
        })?;
        for (what, v) in [("lag_ms", lag_ms), ("period_ms", period_ms)] {
            if !v.is_finite() || v < 0.0 || (what == "period_ms" && v == 0.0) {
                return Err(Error::BadNumber {
                    what: if what == "lag_ms" { "read lag, in ms" } else { "drain period, in ms" },
                    value: v.to_string(),
                    expected: if what == "lag_ms" { "a finite number ≥ 0" } else { "a finite number > 0" },
                    hint: "e.g. a read 20 ms after each write, the queue drained every 50 ms",
                });
            }
        }
        limits::check_hint(
            "rows written one at a time",
            keys.len() as u128,
            MAX_STALE_WRITES as u128,
            "write at most 10,000 rows (each costs a few transactions and a sleep)",
        )?;
        check_identifier("index name", &format!("{index}_queue"))?;
        let spec = self.spec(table)?;
        let cols = spec.column_names().join(", ");
        let values: String = spec.column_names().iter().map(|c| format!("r.{c}")).collect::<Vec<_>>().join(", ");
        let first = &ix.attributes[0];
        let queue_all: String = ix
            .attributes
            .iter()
            .map(|a| format!("INSERT INTO {index}_queue {};\n", postings_where("incoming i", a, "i.seq = r.seq")))
            .collect();
        let setup = format!(
            "DROP TABLE IF EXISTS {index}_queue, {index}_reads, {index}_drains, {index}_done;\n\
             CREATE TABLE {index}_queue (key text COLLATE \"C\", h bigint, seq bigint);\n\
             CREATE TABLE {index}_reads (seq bigint, found boolean, wrote_from timestamptz, \
               wrote_by timestamptz, read_from timestamptz, read_by timestamptz);\n\
             CREATE TABLE {index}_drains (started timestamptz, done timestamptz);\n\
             CREATE TABLE {index}_done (x int);\n"
        );
        self.coordinator_run(&setup)?;
        let load = self.incoming(table, keys, (0..keys.len()).map(|i| (i, i as u64)), keys.len(), extra)?;
        let (lag, period) = (lag_ms / 1000.0, period_ms / 1000.0);
        let writer = format!(
            "{load}DO $$ DECLARE r record; n bigint; w0 timestamptz; w1 timestamptz; r0 timestamptz; BEGIN\n\
             FOR r IN SELECT * FROM incoming ORDER BY seq LOOP\n\
               INSERT INTO {table} ({cols}) VALUES ({values});\n{queue_all}\
               w0 := clock_timestamp();\n\
               COMMIT;\n\
               w1 := clock_timestamp();\n\
               PERFORM pg_sleep({lag});\n\
               r0 := clock_timestamp();\n\
               SELECT count(*) INTO n FROM {index} WHERE key = {lit} || r.{first} || '/' || r.key;\n\
               INSERT INTO {index}_reads VALUES (r.seq, n > 0, w0, w1, r0, clock_timestamp());\n\
               COMMIT;\n\
               PERFORM pg_sleep(random() * {period});\n\
             END LOOP;\n\
             INSERT INTO {index}_done VALUES (1);\n\
             END $$;\n",
            lit = literal(&format!("{first}:")),
        );
        let drainer = format!(
            "DO $$ DECLARE t timestamptz; BEGIN\n\
             LOOP\n\
               t := clock_timestamp();\n\
               WITH q AS (DELETE FROM {index}_queue RETURNING key, h, seq) INSERT INTO {index} (key, h, seq) \
                 SELECT key, h, seq FROM q;\n\
               COMMIT;\n\
               INSERT INTO {index}_drains VALUES (t, clock_timestamp());\n\
               COMMIT;\n\
               EXIT WHEN EXISTS (SELECT 1 FROM {index}_done);\n\
               PERFORM pg_sleep({period});\n\
             END LOOP;\n\
             END $$;\n"
        );
        let t0 = Instant::now();
        let (w, d) = std::thread::scope(|s| {
            let d = s.spawn(|| self.coordinator_run(&drainer));
            let w = self.coordinator_run(&writer);
            if w.is_err() {
                let _ = self.coordinator_run(&format!("INSERT INTO {index}_done VALUES (1);\n"));
            }
            (w, d.join().unwrap_or(Err(Error::ThreadPanicked { task: "draining the index queue" })))
        });
        w?;
        d?;
        let seconds = t0.elapsed().as_secs_f64();
        // A drain's queue snapshot is taken after `started`, its commit ends
        // before `done`; a write commits between `wrote_from` and `wrote_by`, a
        // read takes its snapshot between `read_from` and `read_by`. So a drain
        // surely serves a read when it starts after `wrote_by` and is done
        // before `read_from`, and can only serve it when it overlaps the span
        // from `wrote_from` to `read_by`. Two stamps in the same microsecond
        // may be in either order: `sure` wants strictly later, `can` allows equal.
        let stats = self.coordinator_rows(&format!(
            "SELECT reads.*, drains.*, judged.* FROM \
             (SELECT count(*), count(*) FILTER (WHERE NOT found) FROM {index}_reads) reads, \
             (SELECT count(*), coalesce(extract(epoch FROM max(started) - min(started)) * 1000 / nullif(count(*) - 1, 0), 0), \
               coalesce(avg(extract(epoch FROM done - started) * 1000), 0) FROM {index}_drains) drains, \
             (SELECT count(*) FILTER (WHERE NOT sure), \
               count(*) FILTER (WHERE (found AND NOT can) OR (NOT found AND sure)) FROM \
               (SELECT found, \
                 EXISTS (SELECT 1 FROM {index}_drains d WHERE d.started > r.wrote_by AND d.done < r.read_from) AS sure, \
                 EXISTS (SELECT 1 FROM {index}_drains d WHERE d.done >= r.wrote_from AND d.started <= r.read_by) AS can \
               FROM {index}_reads r) v) judged"
        ))?;
        let row = stats.first().cloned().unwrap_or_default();
        let num = |i: usize| row.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        self.coordinator_run(&format!("DROP TABLE {index}_queue, {index}_reads, {index}_drains, {index}_done;\n"))?;
        Ok(StaleReads {
            writes: num(0) as u64,
            misses: num(1) as u64,
            lag_ms,
            period_ms,
            drains: num(2) as u64,
            drain_interval_ms: num(3),
            drain_ms: num(4),
            unserved: num(5) as u64,
            contradictions: num(6) as u64,
            seconds,
        })
    }

    fn index_names(&self) -> String {
        if self.indexes.is_empty() {
            "none yet: create one with PgShards::create_global_index".into()
        } else {
            self.indexes.iter().map(|ix| ix.name.clone()).collect::<Vec<_>>().join(", ")
        }
    }
}

/// The postings key of value `v` of attribute `a` of the row `key`: `a:v/key`.
fn postings_key_of(a: &str, v: &str, key: &str) -> String {
    format!("{a}:{v}/{key}")
}

/// `SELECT` of the postings of attribute `a` of the rows of `from`: key
/// `a:value/rowkey`, `h` that key's md5 mod 2^32 (computed by PostgreSQL,
/// as the crate computes it), the row's `seq`.
fn postings_of(from: &str, a: &str) -> String {
    postings_where(from, a, "")
}

/// [`postings_of`] with `and` added to its condition (`""`: nothing more).
fn postings_where(from: &str, a: &str, and: &str) -> String {
    let key = format!("{} || {a} || '/' || key", literal(&format!("{a}:")));
    let more = if and.is_empty() { String::new() } else { format!(" AND {and}") };
    format!("SELECT {key}, ('x' || right(md5({key}), 8))::bit(32)::bigint, seq FROM {from} WHERE {a} IS NOT NULL{more}")
}
