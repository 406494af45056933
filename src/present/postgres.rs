//! Tables for the live PostgreSQL shards (feature `postgres`): a table's
//! partitions and their rows, a query's plan, a split, a replayed growth.
//! (Predictions beside observations are the tutor's `Checks`.)

use crate::live::{Bound, Inserted, Partition, Plan, Replayed, Split, Step};
use crate::present::tables::{shows_as_table, Table};
use crate::present::thousands;

/// A bound as a reader writes it: text quoted, a hash with separators.
fn bound(b: &Bound) -> String {
    match b {
        Bound::Int(h) => thousands(*h as u64),
        b => b.to_string(),
    }
}

/// The partitions of a table, each with its range, its shard and the rows
/// its shard holds ([`PgShards::rows_per_partition`](crate::live::PgShards::rows_per_partition)).
pub fn partitions_table(title: &str, parts: &[(Partition, u64)]) -> Table {
    let mut t = Table::new(title, ["partition", "from", "to (excluded)", "shard", "rows"]);
    for (p, n) in parts {
        t.row([p.name.clone(), bound(&p.lower), bound(&p.upper), p.shard.clone(), thousands(*n)]);
    }
    t.note("read from the coordinator's catalog; rows counted on each shard directly");
    t
}

impl Plan {
    /// The partitions the plan scans and their shards, the plan below.
    pub fn table(&self) -> Table {
        let ran = self.scans.iter().any(|s| s.rows.is_some());
        let head: &[&str] =
            if ran { &["partition", "shard", "scan", "rows returned"] } else { &["partition", "shard", "scan"] };
        let mut t = Table::new("EXPLAIN on the coordinator: the partitions it scans", head.iter().copied());
        for s in &self.scans {
            let how = if s.concurrent { "concurrent (async)" } else { "one after another" };
            let mut row = vec![s.partition.clone(), s.shard.clone(), how.to_string()];
            if ran {
                row.push(s.rows.map_or("—".into(), thousands));
            }
            t.row(row);
        }
        t.note(format!("plan: {}", self.text.lines().map(str::trim).collect::<Vec<_>>().join(" · ")));
        t
    }
}

shows_as_table!(Plan);

impl Split {
    /// What moved where.
    pub fn table(&self) -> Table {
        let mut t = Table::new(format!("split at {}", bound(&self.at)), ["partition", "shard", "rows"]);
        t.row([format!("{} (below {})", self.partition, bound(&self.at)), self.from.clone(), thousands(self.kept)]);
        t.row([format!("{} (from {})", self.new_partition, bound(&self.at)), self.to.clone(), thousands(self.moved)]);
        t.note(format!(
            "{} rows moved into the new partition, in one transaction of the coordinator",
            thousands(self.moved)
        ));
        t
    }
}

shows_as_table!(Split);

impl Inserted {
    /// Rows and time.
    pub fn table(&self) -> Table {
        let mut t = Table::new("inserted through the coordinator", ["rows", "seconds"]);
        t.row([thousands(self.rows), format!("{:.2}", self.seconds)]);
        t
    }
}

shows_as_table!(Inserted);

impl Replayed {
    /// Every split and move as PostgreSQL saw it, then the rows per shard.
    pub fn table(&self) -> Table {
        let mut t = Table::new("replayed on the live shards", ["arrival", "step", "partition", "shard", "rows"]);
        for s in &self.steps {
            match s {
                Step::Split { arrival, partition, shard, rows, at, moved } => t.row([
                    thousands(*arrival),
                    format!("split at median {}", bound(at)),
                    partition.clone(),
                    shard.clone(),
                    format!("{} ({} to the upper half)", thousands(*rows), thousands(*moved)),
                ]),
                Step::Move { arrival, partition, from, to, moved } => t.row([
                    thousands(*arrival),
                    "moved whole".to_string(),
                    partition.clone(),
                    format!("{from} → {to}"),
                    thousands(*moved),
                ]),
            };
        }
        let per: Vec<String> = self.rows_per_shard.iter().map(|(s, n)| format!("{s} {}", thousands(*n))).collect();
        t.note(format!("rows per shard at the end: {}", per.join(" · ")));
        t
    }
}

shows_as_table!(Replayed);
