//! The shape of a range-sharded PostgreSQL table: its columns, what its
//! ranges are ranges of, and each range's bounds and node ([`TableSpec`]),
//! as [`PgShards::create`](crate::live::PgShards::create) builds it, and
//! each partition as the coordinator's catalog reads back ([`Partition`]).
//!
//! Every table has the columns `key text COLLATE "C"` (text compared byte
//! by byte, as the crate compares keys), `h bigint` (the key's md5 mod 2^32,
//! `HashWidth::Bits32`, computed by the crate when it inserts) and
//! `seq bigint` (the row's place in the order it was inserted), plus any
//! columns the spec adds with [`TableSpec::column`].
//!
//! ```
//! use reshard::live::{Bound, TableSpec};
//! let spec = TableSpec::by_key("orders", [(Bound::Min, Bound::text("m"), "A"), (Bound::text("m"), Bound::Max, "B")])?;
//! assert_eq!(spec.ranges().len(), 2);
//! // Ranges must meet: a gap is refused, saying where.
//! let gap = TableSpec::by_key("orders", [(Bound::Min, Bound::text("m"), "A"), (Bound::text("n"), Bound::Max, "B")]);
//! assert!(gap.unwrap_err().to_string().contains("make them meet"));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::RangeLayout;
use crate::error::RangeProblem;
use crate::live::pg_text::{check_identifier, literal};
use crate::{limits, Error, HashWidth, Result};
use std::fmt;

/// The most ranges (partitions) one table has: each is a table on its
/// node and a foreign table on the coordinator.
pub const MAX_PARTITIONS: usize = 10_000;

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

    pub(crate) fn sql(&self) -> String {
        match self {
            Bound::Min => "MINVALUE".into(),
            Bound::Max => "MAXVALUE".into(),
            Bound::Text(s) => literal(s),
            Bound::Int(n) => n.to_string(),
        }
    }

    /// The bound as PostgreSQL prints it in `pg_get_expr(relpartbound)`:
    /// `MINVALUE`, `MAXVALUE`, or a quoted literal (quotes doubled) — text
    /// for a table of [`RangeOf::Key`], a number for [`RangeOf::Hash`]
    /// (PostgreSQL quotes those too: `('1073741824')`).
    pub(crate) fn parse(s: &str, by: RangeOf) -> Option<Bound> {
        let s = s.trim();
        let literal = match s {
            "MINVALUE" => return Some(Bound::Min),
            "MAXVALUE" => return Some(Bound::Max),
            _ if s.starts_with('\'') => unquote(s)?,
            _ => s.to_string(),
        };
        match by {
            RangeOf::Key => Some(Bound::Text(literal)),
            RangeOf::Hash => literal.parse().ok().map(Bound::Int),
        }
    }
}

/// `'it''s'` (or `'it''s'::text`) as `it's`.
fn unquote(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.strip_prefix('\'')?.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\'' {
            out.push(c);
        } else if chars.peek() == Some(&'\'') {
            out.push('\'');
            chars.next();
        } else {
            return Some(out);
        }
    }
    None
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
    pub(crate) fn column(self) -> &'static str {
        match self {
            RangeOf::Key => "key",
            RangeOf::Hash => "h",
        }
    }
}

/// A range-sharded table to create: its name, what its ranges are of, each
/// range and the node it lives on, and any columns beyond `key`, `h`,
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
    /// node), lower inclusive, upper exclusive, in key order, each lower
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
            ranges.into_iter().take(MAX_PARTITIONS + 1).map(|(a, b, s)| (a, b, s.into())).collect();
        let problem =
            |problem: RangeProblem| Err(Error::BadRanges { table: name.to_string(), problem: Box::new(problem) });
        if ranges.is_empty() {
            return problem(RangeProblem::NoRanges);
        }
        limits::check_hint(
            "ranges of a table (each a partition; counted up to one past the limit)",
            ranges.len() as u128,
            MAX_PARTITIONS as u128,
            "give fewer ranges",
        )?;
        let (first, last) = (&ranges[0].0, &ranges[ranges.len() - 1].1);
        if *first != Bound::Min || *last != Bound::Max {
            return problem(RangeProblem::Ends { first: first.to_string(), last: last.to_string() });
        }
        for (i, (lo, hi, _)) in ranges.iter().enumerate() {
            let kind_ok = |b: &Bound| {
                matches!(
                    (b, by),
                    (Bound::Min | Bound::Max, _) | (Bound::Text(_), RangeOf::Key) | (Bound::Int(_), RangeOf::Hash)
                )
            };
            let (lower, upper) = (lo.to_string(), hi.to_string());
            if !kind_ok(lo) || !kind_ok(hi) {
                let want = if by == RangeOf::Key { "Bound::Text" } else { "Bound::Int" };
                return problem(RangeProblem::MixedKinds { index: i, lower, upper, want });
            }
            if lo >= hi {
                return problem(RangeProblem::Inverted { index: i, lower, upper });
            }
            if let Some((next_lo, _, _)) = ranges.get(i + 1) {
                if next_lo != hi {
                    return problem(RangeProblem::Gap { index: i, end: upper, next: next_lo.to_string() });
                }
            }
            if let Bound::Text(t) = lo {
                check_text("a bound", t)?;
            }
        }
        Ok(TableSpec { name: name.to_string(), by, ranges, extra: Vec::new() })
    }

    /// The table a crate layout describes: one partition per range of a
    /// [`KeyRanges`](crate::KeyRanges) (its boundaries must be text, as
    /// PostgreSQL's `text` holds them: UTF-8 without NUL) or of a
    /// [`HashRanges`](crate::HashRanges) at
    /// [`HashWidth::Bits32`] (the column `h`), each on the node named like
    /// its node.
    pub fn from_layout(name: &str, layout: impl Into<RangeLayout>) -> Result<TableSpec> {
        let layout = layout.into();
        let nodes = layout.nodes();
        let owners: Vec<String> = layout.table().iter().map(|&o| nodes[o as usize].clone()).collect();
        let inner: Vec<Bound> = match &layout {
            RangeLayout::Keys(k) => k
                .boundaries()
                .iter()
                .map(|b| match std::str::from_utf8(b) {
                    Ok(t) => Ok(Bound::text(t)),
                    Err(_) => Err(Error::NotPgText { what: "boundary", text: crate::keys::escape(b) }),
                })
                .collect::<Result<_>>()?,
            RangeLayout::Hashes(h) => {
                if h.width() != HashWidth::Bits32 {
                    return Err(Error::UnknownName {
                        what: "hash width for a PostgreSQL table",
                        given: format!("{:?}", h.width()),
                        choices: "HashWidth::Bits32 (the column h holds md5 mod 2^32)".into(),
                    });
                }
                h.boundaries().iter().map(|&b| Bound::Int(b as i64)).collect()
            }
        };
        let mut bounds = vec![Bound::Min];
        bounds.extend(inner);
        bounds.push(Bound::Max);
        let ranges: Vec<(Bound, Bound, String)> =
            bounds.windows(2).zip(owners).map(|(w, o)| (w[0].clone(), w[1].clone(), o)).collect();
        match layout {
            RangeLayout::Keys(_) => TableSpec::by_key(name, ranges),
            RangeLayout::Hashes(_) => TableSpec::by_hash(name, ranges),
        }
    }

    /// The same table with one more column, `name` of SQL type `sql_type`
    /// (`text`, `integer`, `bigint`, `boolean`, …): [`PgShards::insert_with`](crate::live::PgShards::insert_with)
    /// fills it. Fails on a name that is not a plain SQL identifier, a name
    /// taken ([`Error::NameTaken`]: one of the columns every table has,
    /// `key`, `h` and `seq`, or a column added before) and a type not in
    /// the list.
    pub fn column(mut self, name: &str, sql_type: &str) -> Result<TableSpec> {
        check_identifier("column name", name)?;
        let taken = if ["key", "h", "seq"].contains(&name) {
            Some("one of the columns every table has (key, h and seq)")
        } else if self.extra.iter().any(|(n, _)| n == name) {
            Some("a column added to this spec before")
        } else {
            None
        };
        if let Some(by) = taken {
            return Err(Error::NameTaken { what: "column", name: name.to_string(), by });
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

    /// Each range: lower bound, upper bound, node.
    pub fn ranges(&self) -> &[(Bound, Bound, String)] {
        &self.ranges
    }

    /// The columns beyond `key`, `h` and `seq`: (name, SQL type).
    pub fn extra_columns(&self) -> &[(String, String)] {
        &self.extra
    }

    pub(crate) fn columns_sql(&self) -> String {
        let mut cols = vec![
            "key text COLLATE \"C\" NOT NULL".to_string(),
            "h bigint NOT NULL".into(),
            "seq bigint NOT NULL".into(),
        ];
        cols.extend(self.extra.iter().map(|(n, t)| format!("{n} {t}")));
        cols.join(", ")
    }

    pub(crate) fn column_names(&self) -> Vec<&str> {
        ["key", "h", "seq"].into_iter().chain(self.extra.iter().map(|(n, _)| n.as_str())).collect()
    }
}

/// Text PostgreSQL's `text` can hold: no NUL byte.
pub(crate) fn check_text(what: &'static str, s: &str) -> Result<()> {
    if s.contains('\0') {
        return Err(Error::NotPgText { what, text: crate::keys::escape(s.as_bytes()) });
    }
    Ok(())
}

/// One partition of a table, as the coordinator's catalog says: its name,
/// its range and the node that holds its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Partition {
    /// The partition's table name (the same on the coordinator and on its node).
    pub name: String,
    /// Its lower bound (inclusive).
    pub lower: Bound,
    /// Its upper bound (exclusive).
    pub upper: Bound,
    /// The node whose table holds its rows.
    pub node: String,
}

/// `"'a') TO ('b')"` as (`'a'`, `'b'`), quotes inside literals respected.
pub(crate) fn split_bounds(s: &str) -> Option<(&str, &str)> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_read_back_as_postgres_prints_them() {
        assert_eq!(Bound::parse("MINVALUE", RangeOf::Key), Some(Bound::Min));
        assert_eq!(Bound::parse("'it''s'", RangeOf::Key), Some(Bound::text("it's")));
        assert_eq!(Bound::parse("'a'::text", RangeOf::Key), Some(Bound::text("a")));
        assert_eq!(Bound::parse("'1073741824'", RangeOf::Hash), Some(Bound::Int(1 << 30)));
        assert_eq!(Bound::parse("'1073741824'", RangeOf::Key), Some(Bound::text("1073741824")));
        assert_eq!(Bound::parse("MAXVALUE", RangeOf::Hash), Some(Bound::Max));
        assert_eq!(Bound::parse("'x'", RangeOf::Hash), None);
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
        // a taken column name says what holds it, never "node name … appears twice"
        let key = spec.clone().column("key", "text").unwrap_err();
        assert!(matches!(&key, Error::NameTaken { what: "column", name, .. } if name == "key"), "{key:?}");
        assert!(key.to_string().contains("every table has (key, h and seq)"), "{key}");
        let twice = spec.clone().column("colour", "text").unwrap().column("colour", "bigint").unwrap_err();
        assert!(twice.to_string().contains("added to this spec before") && !twice.to_string().contains("node"));
        assert!(spec.clone().column("colour", "varchar(3); drop").is_err());
        assert_eq!(spec.column("colour", "text").unwrap().column_names(), ["key", "h", "seq", "colour"]);
    }

    #[test]
    fn hostile_specs_are_refused_not_panicked() {
        let bounds = [
            Bound::Min,
            Bound::Max,
            Bound::text(""),
            Bound::text("\0"),
            Bound::text("'; DROP TABLE x; --"),
            Bound::text("é\u{10ffff}"),
            Bound::text("z".repeat(10_000)),
            Bound::Int(i64::MIN),
            Bound::Int(-1),
            Bound::Int(i64::MAX),
        ];
        let names = ["", "t", "T", "1", "a-b", "_", "tbl_ok", "é", &"x".repeat(41)];
        for name in names {
            for a in &bounds {
                for b in &bounds {
                    for c in &bounds {
                        let r = [(a.clone(), b.clone(), "A"), (b.clone(), c.clone(), "B")];
                        let _ = TableSpec::by_key(name, r.clone());
                        let _ = TableSpec::by_hash(name, r);
                    }
                }
            }
        }
        let spec = TableSpec::by_key("t", [(Bound::Min, Bound::Max, "A")]).unwrap();
        for (col, ty) in [("", "text"), ("x", ""), ("x", "text; drop"), ("h", "text"), ("é", "text"), ("ok", "bigint")]
        {
            let _ = spec.clone().column(col, ty);
        }
        for s in ["", "'", "''", "'a", "MIN", "'1'::bigint", "1e9", "99999999999999999999", "'x''", "(')"] {
            let _ = (Bound::parse(s, RangeOf::Key), Bound::parse(s, RangeOf::Hash), split_bounds(s));
        }
        assert!(TableSpec::by_key("t", std::iter::repeat((Bound::Min, Bound::Max, "A"))).is_err());
        // endless
    }
}
