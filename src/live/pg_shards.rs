//! A range-sharded table on real PostgreSQL servers: one coordinator, N
//! shards, joined by `postgres_fdw`.
//!
//! [`PgShards::start`] starts one `postgres` per shard and one coordinator
//! (see [`live::postgres`](crate::live::postgres): 127.0.0.1, free ports,
//! gone on drop, panic or kill), and tells the coordinator about every
//! shard (`CREATE SERVER "shard_A" FOREIGN DATA WRAPPER postgres_fdw …`).
//! [`PgShards::create`] then builds a table from a [`TableSpec`]: on the
//! coordinator `CREATE TABLE … PARTITION BY RANGE (key)` (or `(h)`, a hash
//! of the key), and for each range a partition that is a
//! `FOREIGN TABLE … PARTITION OF … SERVER "shard_X"`, whose rows live in a
//! plain table of the same name on shard X. So PostgreSQL itself routes
//! every row and every query:
//!
//! * an `INSERT` on the coordinator goes to the partition whose range holds
//!   the row's key (tuple routing), and from there to its shard;
//! * a query on a key or a key range is planned against only the
//!   partitions that can hold it (partition pruning): [`PgShards::explain`]
//!   reads which shards it touches from `EXPLAIN`;
//! * `SELECT count(*)` on each shard directly ([`PgShards::rows_per_shard`])
//!   says where each row really is.
//!
//! Every table has the columns `key text COLLATE "C"` (text compared byte
//! by byte, as the crate compares keys), `h bigint` (the key's md5 mod 2^32,
//! `HashWidth::Bits32`, computed by the crate when it inserts) and
//! `seq bigint` (the row's place in the order it was inserted), plus any
//! columns the spec adds.
//!
//! PostgreSQL 15 has no `SPLIT PARTITION`, so [`PgShards::split`] does what
//! an operator does: detach the partition, create the upper half on its
//! shard, move the rows at or above the split point there, and attach both
//! halves, in one transaction of the coordinator; it counts the rows that
//! moved.
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
//! let rows: Vec<u64> = pg.rows_per_shard("orders")?.into_iter().map(|(_, n)| n).collect();
//! assert_eq!(rows, [5, 5]);
//! let split = pg.split("orders", &Bound::text("key7"), "A")?; // key7, key8, key9 go back to A
//! assert_eq!(split.moved(), 3);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::KeySet;
use crate::live::postgres::{check_identifier, copy_field, first_line, literal, PgBins, PgServer, Template};
use crate::{Error, HashWidth, Result};
use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

/// The most shard servers one [`PgShards`] starts (each is a `postgres`
/// with its own memory).
pub const MAX_PG_SHARDS: usize = 16;

/// The most rows one [`PgShards::insert`] sends (they travel as text
/// through `psql`, then row by row through the coordinator).
pub const MAX_PG_ROWS: usize = 2_000_000;

/// The name of the coordinator among the servers.
pub const COORDINATOR: &str = "coordinator";

/// One end of a partition's range, as PostgreSQL writes it in
/// `FOR VALUES FROM (…) TO (…)`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Bound {
    /// `MINVALUE`: below every key.
    Min,
    /// A text key (compared byte by byte).
    Text(String),
    /// A number (a value of the hash column `h`).
    Int(i64),
    /// `MAXVALUE`: above every key.
    Max,
}

impl Bound {
    /// A text bound.
    pub fn text(s: impl Into<String>) -> Bound {
        Bound::Text(s.into())
    }

    fn sql(&self) -> String {
        match self {
            Bound::Min => "MINVALUE".into(),
            Bound::Max => "MAXVALUE".into(),
            Bound::Text(s) => literal(s),
            Bound::Int(n) => n.to_string(),
        }
    }

    /// The bound as PostgreSQL prints it in `pg_get_expr(relpartbound)`:
    /// `MINVALUE`, `MAXVALUE`, `'text'` (quotes doubled) or a number.
    fn parse(s: &str) -> Option<Bound> {
        let s = s.trim();
        match s {
            "MINVALUE" => Some(Bound::Min),
            "MAXVALUE" => Some(Bound::Max),
            _ if s.starts_with('\'') => {
                let inner = s.strip_prefix('\'')?;
                // `'text'::text` in some versions: cut at the closing quote.
                let mut out = String::new();
                let mut chars = inner.chars().peekable();
                while let Some(c) = chars.next() {
                    if c == '\'' {
                        if chars.peek() == Some(&'\'') {
                            out.push('\'');
                            chars.next();
                        } else {
                            return Some(Bound::Text(out));
                        }
                    } else {
                        out.push(c);
                    }
                }
                None
            }
            _ => s.parse().ok().map(Bound::Int),
        }
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Min => f.write_str("−∞"),
            Bound::Max => f.write_str("+∞"),
            Bound::Text(s) => write!(f, "{s:?}"),
            Bound::Int(n) => write!(f, "{n}"),
        }
    }
}

/// Which column a table's ranges are ranges of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeOf {
    /// The key itself (`key`, text): key-range sharding.
    Key,
    /// The key's hash (`h`, md5 mod 2^32): hash-range sharding.
    Hash,
}

impl RangeOf {
    fn column(self) -> &'static str {
        match self {
            RangeOf::Key => "key",
            RangeOf::Hash => "h",
        }
    }
}

/// A range-sharded table to create: its name, what its ranges are of, each
/// range and the shard it lives on, and any columns beyond `key`, `h`,
/// `seq`.
#[derive(Debug, Clone, PartialEq)]
pub struct TableSpec {
    name: String,
    by: RangeOf,
    ranges: Vec<(Bound, Bound, String)>,
    extra: Vec<(String, String)>,
}

impl TableSpec {
    /// A table sharded by ranges of its key: `ranges` are (lower, upper,
    /// shard), lower inclusive, upper exclusive, in key order, each lower
    /// the previous upper, from [`Bound::Min`] to [`Bound::Max`].
    pub fn by_key<I, S>(name: &str, ranges: I) -> Result<TableSpec>
    where
        I: IntoIterator<Item = (Bound, Bound, S)>,
        S: Into<String>,
    {
        TableSpec::new(name, RangeOf::Key, ranges)
    }

    /// A table sharded by ranges of its key's hash `h` (md5 mod 2^32, from 0
    /// to 4,294,967,295), bounds [`Bound::Int`].
    pub fn by_hash<I, S>(name: &str, ranges: I) -> Result<TableSpec>
    where
        I: IntoIterator<Item = (Bound, Bound, S)>,
        S: Into<String>,
    {
        TableSpec::new(name, RangeOf::Hash, ranges)
    }

    fn new<I, S>(name: &str, by: RangeOf, ranges: I) -> Result<TableSpec>
    where
        I: IntoIterator<Item = (Bound, Bound, S)>,
        S: Into<String>,
    {
        check_identifier("table name", name)?;
        let ranges: Vec<(Bound, Bound, String)> =
            ranges.into_iter().take(crate::limits::MAX_SHARDS as usize).map(|(a, b, s)| (a, b, s.into())).collect();
        let problem = |p: String| Err(Error::Invalid(format!("table {name}: {p}")));
        if ranges.is_empty() {
            return problem("no ranges: give at least one, from Bound::Min to Bound::Max".into());
        }
        if ranges.len() > 10_000 {
            return problem(format!("{} ranges: give at most 10,000 (each is a partition)", ranges.len()));
        }
        let (first, last) = (&ranges[0].0, &ranges[ranges.len() - 1].1);
        if *first != Bound::Min || *last != Bound::Max {
            return problem(format!(
                "the ranges run from {first} to {last}: start at Bound::Min and end at Bound::Max"
            ));
        }
        for (i, (lo, hi, _)) in ranges.iter().enumerate() {
            let kind_ok = |b: &Bound| {
                matches!(
                    (b, by),
                    (Bound::Min | Bound::Max, _) | (Bound::Text(_), RangeOf::Key) | (Bound::Int(_), RangeOf::Hash)
                )
            };
            if !kind_ok(lo) || !kind_ok(hi) {
                let want = if by == RangeOf::Key { "Bound::Text" } else { "Bound::Int" };
                return problem(format!("range {i} ({lo} to {hi}) mixes kinds: use {want} bounds for this table"));
            }
            if lo >= hi {
                return problem(format!(
                    "range {i} runs from {lo} to {hi}: each lower bound must sort below its upper"
                ));
            }
            if let Some((next_lo, _, _)) = ranges.get(i + 1) {
                if next_lo != hi {
                    return problem(format!(
                        "range {i} ends at {hi} but range {} starts at {next_lo}: make them meet",
                        i + 1
                    ));
                }
            }
            if let Bound::Text(t) = lo {
                check_text("a bound", t)?;
            }
        }
        Ok(TableSpec { name: name.to_string(), by, ranges, extra: Vec::new() })
    }

    /// The same table with one more column, `name` of SQL type `sql_type`
    /// (`text`, `integer`, `bigint`, `boolean`, …): [`PgShards::insert_with`]
    /// fills it.
    pub fn column(mut self, name: &str, sql_type: &str) -> Result<TableSpec> {
        check_identifier("column name", name)?;
        if ["key", "h", "seq"].contains(&name) || self.extra.iter().any(|(n, _)| n == name) {
            return Err(Error::DuplicateNode(format!("column {name}")));
        }
        const TYPES: [&str; 6] = ["text", "integer", "bigint", "boolean", "double precision", "timestamp"];
        if !TYPES.contains(&sql_type) {
            return Err(Error::UnknownName { what: "column type", given: sql_type.into(), choices: TYPES.join(", ") });
        }
        self.extra.push((name.to_string(), sql_type.to_string()));
        Ok(self)
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the ranges are ranges of.
    pub fn by(&self) -> RangeOf {
        self.by
    }

    fn columns_sql(&self) -> String {
        let mut cols = vec![
            "key text COLLATE \"C\" NOT NULL".to_string(),
            "h bigint NOT NULL".into(),
            "seq bigint NOT NULL".into(),
        ];
        cols.extend(self.extra.iter().map(|(n, t)| format!("{n} {t}")));
        cols.join(", ")
    }

    fn column_names(&self) -> Vec<&str> {
        ["key", "h", "seq"].into_iter().chain(self.extra.iter().map(|(n, _)| n.as_str())).collect()
    }
}

/// Text PostgreSQL's `text` can hold: no NUL byte.
fn check_text(what: &str, s: &str) -> Result<()> {
    if s.contains('\0') {
        return Err(Error::Invalid(format!(
            "{what} {s:?} holds a NUL byte, which PostgreSQL text cannot store: remove it"
        )));
    }
    Ok(())
}

/// One partition of a table, as the coordinator's catalog says: its name,
/// its range and the shard that holds its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Partition {
    /// The partition's table name (the same on the coordinator and on its shard).
    pub name: String,
    /// Its lower bound (inclusive).
    pub lower: Bound,
    /// Its upper bound (exclusive).
    pub upper: Bound,
    /// The shard whose table holds its rows.
    pub shard: String,
}

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
    /// `EXPLAIN (COSTS OFF)`'s text.
    pub text: String,
    /// The partitions it scans, in plan order, with their shards.
    pub scans: Vec<(String, String)>,
}

impl Plan {
    /// The shards the query touches, each once, in shard order as given to
    /// [`PgShards::start`].
    pub fn shards(&self, all: &[String]) -> Vec<String> {
        all.iter().filter(|s| self.scans.iter().any(|(_, t)| t == *s)).cloned().collect()
    }
}

/// What [`PgShards::split`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Split {
    /// The partition split: it keeps the lower half.
    pub partition: String,
    /// The new partition, holding the upper half.
    pub new_partition: String,
    /// The split point: the new partition's lower bound.
    pub at: Bound,
    /// The shard of the lower half.
    pub from: String,
    /// The shard of the upper half.
    pub to: String,
    /// Rows moved into the new partition.
    pub moved: u64,
    /// Rows left in the old one.
    pub kept: u64,
}

impl Split {
    /// Rows moved into the new partition (to another shard, or to a new
    /// table on the same shard).
    pub fn moved(&self) -> u64 {
        self.moved
    }
}

/// A coordinator and its shards: see the [module documentation](self).
#[derive(Debug)]
pub struct PgShards {
    coordinator: PgServer,
    shards: Vec<PgServer>,
    tables: Vec<TableSpec>,
    next_partition: u64,
}

impl PgShards {
    /// Start one server per shard name (1 to [`MAX_PG_SHARDS`], each
    /// letters, digits or `_`) and a coordinator that knows them all.
    pub fn start<I, S>(names: I) -> Result<PgShards>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let names: Vec<String> = names.into_iter().take(MAX_PG_SHARDS + 1).map(Into::into).collect();
        if names.is_empty() {
            return Err(Error::NoNodes);
        }
        if names.len() > MAX_PG_SHARDS {
            return Err(Error::TooLarge {
                what: "PostgreSQL shard servers",
                asked: names.len() as u128,
                limit: MAX_PG_SHARDS as u128,
                hint: "start at most 16 shards; model more with the crate's schemes",
            });
        }
        for (i, n) in names.iter().enumerate() {
            let plain = !n.is_empty() && n.len() <= 32 && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !plain || n == COORDINATOR {
                return Err(Error::UnknownName {
                    what: "shard name",
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
                .map(|h| h.join().unwrap_or_else(|_| Err(Error::Invalid("a server start panicked".into()))))
                .collect()
        });
        drop(template);
        let mut servers = Vec::with_capacity(started.len());
        for s in started {
            servers.push(s?); // an error drops (stops) the servers already started
        }
        let coordinator = servers.remove(0);
        let pg = PgShards { coordinator, shards: servers, tables: Vec::new(), next_partition: 0 };
        let mut setup = String::from("CREATE EXTENSION postgres_fdw;\n");
        for s in &pg.shards {
            setup += &format!(
                "CREATE SERVER \"shard_{n}\" FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '{p}', \
                 dbname 'postgres', batch_size '1000', fetch_size '10000');\n\
                 CREATE USER MAPPING FOR CURRENT_USER SERVER \"shard_{n}\" OPTIONS (user 'postgres');\n",
                n = s.name(),
                p = s.port()
            );
        }
        pg.coordinator.run(&setup).map_err(|e| match e {
            Error::ServerFailed { problem, .. } if problem.contains("postgres_fdw") => Error::ProgramMissing {
                program: "postgres_fdw",
                install: "PostgreSQL's contrib modules (Debian/Ubuntu: `sudo apt-get install postgresql-contrib`)",
            },
            e => e,
        })?;
        Ok(pg)
    }

    /// The shard names, in the order given.
    pub fn names(&self) -> Vec<String> {
        self.shards.iter().map(|s| s.name().to_string()).collect()
    }

    fn server(&self, name: &str) -> Result<&PgServer> {
        if name == COORDINATOR {
            return Ok(&self.coordinator);
        }
        self.shards.iter().find(|s| s.name() == name).ok_or_else(|| Error::UnknownNode(name.to_string()))
    }

    /// The port of server `name` (a shard, or [`COORDINATOR`]) on 127.0.0.1.
    pub fn port(&self, name: &str) -> Result<u16> {
        self.server(name).map(PgServer::port)
    }

    /// The process id and data directory of every server, the coordinator
    /// first: what must be gone once this value is dropped.
    pub fn footprint(&self) -> Vec<(u32, PathBuf)> {
        std::iter::once(&self.coordinator).chain(&self.shards).map(|s| (s.pid(), s.dir().to_path_buf())).collect()
    }

    /// Run one SQL query on server `name` (a shard or [`COORDINATOR`]) and
    /// return its rows, each a list of fields as text (NULL as "").
    pub fn query(&self, name: &str, sql: &str) -> Result<Vec<Vec<String>>> {
        self.server(name)?.rows(sql)
    }

    /// Run SQL statements on server `name` and return what they printed
    /// (the rows of any query, as CSV).
    pub fn execute(&self, name: &str, sql: &str) -> Result<String> {
        self.server(name)?.run(sql)
    }

    fn spec(&self, table: &str) -> Result<&TableSpec> {
        self.tables.iter().find(|t| t.name == table).ok_or_else(|| Error::UnknownName {
            what: "table",
            given: table.to_string(),
            choices: if self.tables.is_empty() {
                "none yet: create one with PgShards::create".into()
            } else {
                self.tables.iter().map(|t| t.name.clone()).collect::<Vec<_>>().join(", ")
            },
        })
    }

    fn partition_name(&mut self, table: &str) -> String {
        self.next_partition += 1;
        format!("{table}__p{}", self.next_partition)
    }

    /// Create the table of `spec`: its partitions' tables on their shards,
    /// then the partitioned table and its foreign partitions on the
    /// coordinator.
    pub fn create(&mut self, spec: &TableSpec) -> Result<()> {
        if self.tables.iter().any(|t| t.name == spec.name) {
            return Err(Error::DuplicateNode(format!("table {}", spec.name)));
        }
        for (_, _, shard) in &spec.ranges {
            self.server(shard)?;
        }
        let cols = spec.columns_sql();
        let names: Vec<String> = spec.ranges.iter().map(|_| self.partition_name(&spec.name)).collect();
        for shard in self.names() {
            let mine: Vec<&String> =
                names.iter().zip(&spec.ranges).filter(|(_, r)| r.2 == shard).map(|(n, _)| n).collect();
            if !mine.is_empty() {
                let ddl: String =
                    mine.iter().map(|n| format!("CREATE TABLE {n} ({cols}, PRIMARY KEY (key));\n")).collect();
                self.server(&shard)?.run(&ddl)?;
            }
        }
        let mut ddl = format!("CREATE TABLE {} ({cols}) PARTITION BY RANGE ({});\n", spec.name, spec.by.column());
        for (n, (lo, hi, shard)) in names.iter().zip(&spec.ranges) {
            ddl += &format!(
                "CREATE FOREIGN TABLE {n} PARTITION OF {} FOR VALUES FROM ({}) TO ({}) SERVER \"shard_{shard}\" \
                 OPTIONS (table_name '{n}');\n",
                spec.name,
                lo.sql(),
                hi.sql()
            );
        }
        self.coordinator.run(&ddl)?;
        self.tables.push(spec.clone());
        Ok(())
    }

    /// Insert every key of `keys` into `table` through the coordinator, in
    /// key-set order: `key`, `h` (its md5 mod 2^32) and `seq` (its place,
    /// from 0). PostgreSQL routes each row to its partition's shard.
    pub fn insert(&self, table: &str, keys: &KeySet) -> Result<Inserted> {
        self.insert_with(table, keys, |_| Vec::new())
    }

    /// [`insert`](PgShards::insert), with the spec's extra columns of row
    /// `i` given by `extra(i)`, as text in column order ("" is NULL).
    pub fn insert_with(&self, table: &str, keys: &KeySet, extra: impl Fn(usize) -> Vec<String>) -> Result<Inserted> {
        let spec = self.spec(table)?;
        if keys.len() > MAX_PG_ROWS {
            return Err(Error::TooLarge {
                what: "rows sent to PostgreSQL at once",
                asked: keys.len() as u128,
                limit: MAX_PG_ROWS as u128,
                hint: "insert fewer keys, or in several calls",
            });
        }
        let mut data = String::with_capacity(keys.len() * 40);
        let mut w = keys.writer();
        for i in 0..keys.len() {
            let bytes = w.key(i);
            let key = std::str::from_utf8(bytes).map_err(|_| Error::BadKey {
                line: i + 1,
                reason: "is not UTF-8, which PostgreSQL text needs: use text keys".into(),
            })?;
            if key.contains('\0') {
                return Err(Error::BadKey {
                    line: i + 1,
                    reason: "holds a NUL byte, which PostgreSQL text cannot store".into(),
                });
            }
            copy_field(key, &mut data);
            data += &format!("\t{}\t{i}", HashWidth::Bits32.hash(bytes));
            let values = extra(i);
            if values.len() != spec.extra.len() {
                return Err(Error::LengthMismatch {
                    what: "extra column values for a row",
                    expected: spec.extra.len(),
                    given: values.len(),
                });
            }
            for v in values {
                data.push('\t');
                if v.is_empty() {
                    data.push_str("\\N");
                } else {
                    copy_field(&v, &mut data);
                }
            }
            data.push('\n');
        }
        let cols = spec.column_names().join(", ");
        let script = format!(
            "CREATE TEMP TABLE incoming ({}) ;\nCOPY incoming ({cols}) FROM STDIN;\n{data}\\.\n\
             INSERT INTO {table} ({cols}) SELECT {cols} FROM incoming ORDER BY seq;\nSELECT count(*) FROM incoming;\n",
            spec.columns_sql()
        );
        let t0 = Instant::now();
        let out = self.coordinator.run(&script)?;
        let rows = out
            .trim()
            .parse()
            .map_err(|_| self.coordinator.failed(format!("insert printed {:?}", first_line(&out))))?;
        Ok(Inserted { rows, seconds: t0.elapsed().as_secs_f64() })
    }

    /// The partitions of `table`, in range order, as the coordinator's
    /// catalog has them.
    pub fn partitions(&self, table: &str) -> Result<Vec<Partition>> {
        self.spec(table)?;
        let rows = self.coordinator.rows(&format!(
            "SELECT c.relname, pg_get_expr(c.relpartbound, c.oid), s.srvname FROM pg_inherits i \
             JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_foreign_table f ON f.ftrelid = c.oid \
             JOIN pg_foreign_server s ON s.oid = f.ftserver WHERE i.inhparent = {}::regclass",
            literal(table)
        ))?;
        let mut parts = Vec::with_capacity(rows.len());
        for r in rows {
            let [name, bound, server] = <[String; 3]>::try_from(r)
                .map_err(|r| self.coordinator.failed(format!("catalog row {r:?} is not (name, bound, server)")))?;
            let bad = || self.coordinator.failed(format!("cannot read partition bound {bound:?} of {name}"));
            // "FOR VALUES FROM ('a') TO ('b')"
            let inner = bound.strip_prefix("FOR VALUES FROM (").ok_or_else(bad)?;
            let (lo, hi) = split_bounds(inner).ok_or_else(bad)?;
            let (lower, upper) = (Bound::parse(lo).ok_or_else(bad)?, Bound::parse(hi).ok_or_else(bad)?);
            let shard = server.strip_prefix("shard_").unwrap_or(&server).to_string();
            parts.push(Partition { name, lower, upper, shard });
        }
        parts.sort_by(|a, b| a.lower.cmp(&b.lower));
        Ok(parts)
    }

    /// Rows of each partition of `table`, counted on its shard directly.
    pub fn rows_per_partition(&self, table: &str) -> Result<Vec<(Partition, u64)>> {
        let parts = self.partitions(table)?;
        let mut counts = std::collections::BTreeMap::new();
        for shard in &self.shards {
            let mine: Vec<&Partition> = parts.iter().filter(|p| p.shard == shard.name()).collect();
            if mine.is_empty() {
                continue;
            }
            let q: Vec<String> =
                mine.iter().map(|p| format!("SELECT {}, count(*) FROM {}", literal(&p.name), p.name)).collect();
            for r in shard.rows(&q.join(" UNION ALL "))? {
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

    /// Rows of `table` on each shard (in the order given to
    /// [`start`](PgShards::start)), counted on the shard directly.
    pub fn rows_per_shard(&self, table: &str) -> Result<Vec<(String, u64)>> {
        let per = self.rows_per_partition(table)?;
        Ok(self
            .names()
            .into_iter()
            .map(|s| {
                let n = per.iter().filter(|(p, _)| p.shard == s).map(|(_, n)| n).sum();
                (s, n)
            })
            .collect())
    }

    /// Every key of `table` and the shard that holds it, read from each
    /// shard directly, in key order.
    pub fn shard_of_each(&self, table: &str) -> Result<Vec<(String, String)>> {
        let parts = self.partitions(table)?;
        let mut out = Vec::new();
        for shard in &self.shards {
            let mine: Vec<String> = parts
                .iter()
                .filter(|p| p.shard == shard.name())
                .map(|p| format!("SELECT key FROM {}", p.name))
                .collect();
            if !mine.is_empty() {
                out.extend(
                    shard
                        .rows(&mine.join(" UNION ALL "))?
                        .into_iter()
                        .map(|r| (r.into_iter().next().unwrap_or_default(), shard.name().to_string())),
                );
            }
        }
        out.sort();
        Ok(out)
    }

    /// The coordinator's plan for `query` (`EXPLAIN (COSTS OFF)`) and the
    /// partitions and shards it scans.
    pub fn explain(&self, query: &str) -> Result<Plan> {
        let text: String = self
            .coordinator
            .rows(&format!("EXPLAIN (COSTS OFF) {query}"))?
            .into_iter()
            .map(|r| r.join(",") + "\n")
            .collect();
        let mut where_is = std::collections::BTreeMap::new();
        for t in &self.tables {
            for p in self.partitions(&t.name)? {
                where_is.insert(p.name, p.shard);
            }
        }
        let scans = text
            .lines()
            .filter_map(|l| {
                l.split_once("Foreign Scan on ").map(|(_, rest)| rest.split_whitespace().next().unwrap_or(""))
            })
            .filter_map(|rel| where_is.get(rel).map(|s| (rel.to_string(), s.clone())))
            .collect();
        Ok(Plan { text, scans })
    }

    /// Rows inserted so far into `table`'s partitions on each shard, by the
    /// shard's own counter (`pg_stat_user_tables.n_tup_ins`, which counts
    /// rows a split moved in as well). PostgreSQL publishes a session's
    /// counts when the session ends, moments after the coordinator's: this
    /// waits (at most 5 s) until two reads 50 ms apart agree.
    pub fn inserts_per_shard(&self, table: &str) -> Result<Vec<(String, u64)>> {
        self.spec(table)?;
        let pattern = literal(&format!("{}\\_\\_p%", table));
        let read = || -> Result<Vec<(String, u64)>> {
            self.shards
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

    /// Split the partition of `table` that holds `at` into [lower, at) and
    /// [at, upper), the upper half on shard `upper_to`: detach it, create
    /// the new partition's table on its shard, move the rows at or above
    /// `at` there, and attach both halves, all in one transaction of the
    /// coordinator. Fails, changing nothing, when `at` is already a bound.
    pub fn split(&mut self, table: &str, at: &Bound, upper_to: &str) -> Result<Split> {
        let spec = self.spec(table)?.clone();
        self.server(upper_to)?;
        let kind_ok = matches!((at, spec.by), (Bound::Text(_), RangeOf::Key) | (Bound::Int(_), RangeOf::Hash));
        if !kind_ok {
            let want = if spec.by == RangeOf::Key { "Bound::Text" } else { "Bound::Int" };
            return Err(Error::Invalid(format!("split {table} at {at}: give a {want} inside a partition")));
        }
        if let Bound::Text(t) = at {
            check_text("the split point", t)?;
        }
        let parts = self.partitions(table)?;
        let Some(old) = parts.iter().find(|p| p.lower <= *at && *at < p.upper).cloned() else {
            return Err(Error::Invalid(format!("split {table} at {at}: no partition holds it")));
        };
        if old.lower == *at {
            return Err(Error::Invalid(format!(
                "split {table} at {at}: {at} is already the lower bound of {}: split inside a partition",
                old.name
            )));
        }
        let new = self.partition_name(table);
        let cols = spec.columns_sql();
        self.server(upper_to)?.run(&format!("CREATE TABLE {new} ({cols}, PRIMARY KEY (key));\n"))?;
        let col = spec.by.column();
        let names = spec.column_names().join(", ");
        let script = format!(
            "BEGIN;\nALTER TABLE {table} DETACH PARTITION {old};\n\
             CREATE FOREIGN TABLE {new} ({cols}) SERVER \"shard_{upper_to}\" OPTIONS (table_name '{new}');\n\
             WITH gone AS (DELETE FROM {old} WHERE {col} >= {at} RETURNING {names}), \
             landed AS (INSERT INTO {new} ({names}) SELECT {names} FROM gone RETURNING 1) SELECT count(*) FROM landed;\n\
             SELECT count(*) FROM {old};\n\
             ALTER TABLE {table} ATTACH PARTITION {old} FOR VALUES FROM ({lo}) TO ({at});\n\
             ALTER TABLE {table} ATTACH PARTITION {new} FOR VALUES FROM ({at}) TO ({hi});\nCOMMIT;\n",
            old = old.name,
            at = at.sql(),
            lo = old.lower.sql(),
            hi = old.upper.sql(),
        );
        let out = match self.coordinator.run(&script) {
            Ok(out) => out,
            Err(e) => {
                let _ = self.server(upper_to)?.run(&format!("DROP TABLE IF EXISTS {new};\n"));
                return Err(e);
            }
        };
        let nums: Vec<u64> = out.lines().filter_map(|l| l.trim().parse().ok()).collect();
        let [moved, kept] = nums[..] else {
            return Err(self.coordinator.failed(format!("the split printed {out:?}, not two counts")));
        };
        Ok(Split {
            partition: old.name,
            new_partition: new,
            at: at.clone(),
            from: old.shard,
            to: upper_to.to_string(),
            moved,
            kept,
        })
    }
}

/// `"'a') TO ('b')"` as (`'a'`, `'b'`), quotes inside literals respected.
fn split_bounds(s: &str) -> Option<(&str, &str)> {
    let mut in_quote = false;
    for (i, c) in s.char_indices() {
        match c {
            '\'' => in_quote = !in_quote,
            ')' if !in_quote => {
                let lo = &s[..i];
                let rest = s[i..].strip_prefix(") TO (")?;
                let hi = rest.strip_suffix(')')?;
                return Some((lo, hi));
            }
            _ => {}
        }
    }
    None
}

impl Drop for PgShards {
    fn drop(&mut self) {
        // Ask every server to stop at once, then wait for each.
        self.coordinator.release();
        for s in &mut self.shards {
            s.release();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_read_back_as_postgres_prints_them() {
        assert_eq!(Bound::parse("MINVALUE"), Some(Bound::Min));
        assert_eq!(Bound::parse("'it''s'"), Some(Bound::text("it's")));
        assert_eq!(Bound::parse("'a'::text"), Some(Bound::text("a")));
        assert_eq!(Bound::parse("1073741824"), Some(Bound::Int(1 << 30)));
        assert_eq!(split_bounds("'a) TO (b') TO (MAXVALUE)"), Some(("'a) TO (b'", "MAXVALUE")));
        assert_eq!(Bound::Min.sql(), "MINVALUE");
        assert_eq!(Bound::text("o'k").sql(), "'o''k'");
        assert!(Bound::Min < Bound::text("") && Bound::text("zz") < Bound::Max && Bound::Int(-1) < Bound::Max);
    }

    #[test]
    fn specs_refuse_gaps_overlaps_and_mixed_kinds() {
        let ok = TableSpec::by_key("t", [(Bound::Min, Bound::text("m"), "A"), (Bound::text("m"), Bound::Max, "B")]);
        assert!(ok.is_ok());
        let gap = TableSpec::by_key("t", [(Bound::Min, Bound::text("m"), "A"), (Bound::text("n"), Bound::Max, "B")]);
        assert!(gap.unwrap_err().to_string().contains("make them meet"));
        let back =
            TableSpec::by_key("t", [(Bound::Min, Bound::text("m"), "A"), (Bound::text("m"), Bound::text("a"), "B")]);
        assert!(back.is_err());
        let open = TableSpec::by_key("t", [(Bound::Min, Bound::text("m"), "A")]);
        assert!(open.unwrap_err().to_string().contains("Bound::Max"));
        let mixed = TableSpec::by_hash("t", [(Bound::Min, Bound::text("m"), "A"), (Bound::text("m"), Bound::Max, "B")]);
        assert!(mixed.unwrap_err().to_string().contains("Bound::Int"));
        assert!(TableSpec::by_key("T", [(Bound::Min, Bound::Max, "A")]).is_err());
        let nul =
            TableSpec::by_key("t", [(Bound::Min, Bound::text("a\0"), "A"), (Bound::text("a\0"), Bound::Max, "A")]);
        assert!(nul.unwrap_err().to_string().contains("NUL"));
        let spec = TableSpec::by_key("t", [(Bound::Min, Bound::Max, "A")]).unwrap();
        assert!(spec.clone().column("key", "text").is_err());
        assert!(spec.clone().column("colour", "varchar(3); drop").is_err());
        assert_eq!(spec.column("colour", "text").unwrap().column_names(), ["key", "h", "seq", "colour"]);
    }
}
