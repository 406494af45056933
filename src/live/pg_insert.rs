//! Rows sent to the nodes through the coordinator: the keys go to a
//! temporary table by `COPY` (one `psql` run), then `INSERT … SELECT` into
//! the partitioned table, which PostgreSQL routes row by row to each
//! partition's node.

use crate::keys::KeySet;
use crate::live::pg_shards::{Inserted, PgShards, MAX_PG_ROWS};
use crate::live::pg_text::{copy_field, first_line};
use crate::{limits, Error, HashWidth, Result};
use std::time::Instant;

impl PgShards {
    /// Insert every key of `keys` into `table` through the coordinator, in
    /// key-set order: `key`, `h` (its md5 mod 2^32) and `seq` (its place,
    /// from 0). PostgreSQL routes each row to its partition's node.
    pub fn insert(&self, table: &str, keys: &KeySet) -> Result<Inserted> {
        self.insert_with(table, keys, |_| Vec::new())
    }

    /// [`insert`](PgShards::insert), with the spec's extra columns of row
    /// `i` given by `extra(i)`, as text in column order ("" is NULL).
    pub fn insert_with(&self, table: &str, keys: &KeySet, extra: impl Fn(usize) -> Vec<String>) -> Result<Inserted> {
        self.insert_rows(table, keys, (0..keys.len()).map(|i| (i, i as u64)), keys.len(), extra)
    }

    /// The SQL that loads the keys `keys.get(i)` for each `(i, seq)` of
    /// `rows` (`count` of them) into a temporary table `incoming` with the
    /// columns of `table`, `seq` as each row's `seq`: what
    /// [`insert_rows`](PgShards::insert_rows) and the indexed inserts send
    /// before their own statements.
    pub(crate) fn incoming(
        &self,
        table: &str,
        keys: &KeySet,
        rows: impl Iterator<Item = (usize, u64)>,
        count: usize,
        extra: impl Fn(usize) -> Vec<String>,
    ) -> Result<String> {
        let spec = self.spec(table)?;
        limits::check_hint(
            "rows sent to PostgreSQL at once",
            count as u128,
            MAX_PG_ROWS as u128,
            "insert fewer keys, or in several calls",
        )?;
        let mut data = String::with_capacity(count.saturating_mul(40).min(1 << 28));
        let mut w = keys.writer();
        for (i, seq) in rows.take(count) {
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
            data += &format!("\t{}\t{seq}", HashWidth::Bits32.hash(bytes));
            let values = extra(i);
            if values.len() != spec.extra_columns().len() {
                return Err(Error::LengthMismatch {
                    what: "extra column values for a row",
                    expected: spec.extra_columns().len(),
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
        Ok(format!(
            "CREATE TEMP TABLE incoming ({}) ;\nCOPY incoming ({cols}) FROM STDIN;\n{data}\\.\n",
            spec.columns_sql()
        ))
    }

    /// Insert the keys `keys.get(i)` for each `(i, seq)` of `rows` (`count`
    /// of them), in that order, with `seq` as the row's `seq`.
    pub(crate) fn insert_rows(
        &self,
        table: &str,
        keys: &KeySet,
        rows: impl Iterator<Item = (usize, u64)>,
        count: usize,
        extra: impl Fn(usize) -> Vec<String>,
    ) -> Result<Inserted> {
        let load = self.incoming(table, keys, rows, count, extra)?;
        let cols = self.spec(table)?.column_names().join(", ");
        let script = format!(
            "{load}INSERT INTO {table} ({cols}) SELECT {cols} FROM incoming ORDER BY seq;\nSELECT count(*) FROM incoming;\n"
        );
        let t0 = Instant::now();
        let out = self.coordinator_run(&script)?;
        let rows = out
            .trim()
            .parse()
            .map_err(|_| self.coordinator.failed(format!("insert printed {:?}", first_line(&out))))?;
        Ok(Inserted { rows, seconds: t0.elapsed().as_secs_f64() })
    }
}
