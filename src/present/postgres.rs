//! Tables for the live PostgreSQL nodes (feature `postgres`): a table's
//! partitions and their rows, a query's plan, a split, a replayed growth.
//! (Predictions beside observations are the tutor's `Checks`.)

use crate::live::pg_index::HalfDone;
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

/// The partitions of a table, each with its range, its node and the rows
/// its node holds ([`PgShards::rows_per_partition`](crate::live::PgShards::rows_per_partition)).
pub fn partitions_table(title: &str, parts: &[(Partition, u64)]) -> Table {
    let mut t = Table::new(title, ["partition", "from", "to (excluded)", "node", "rows"]);
    for (p, n) in parts {
        t.row([p.name.clone(), bound(&p.lower), bound(&p.upper), p.node.clone(), thousands(*n)]);
    }
    t.note("read from the coordinator's catalog; rows counted on each node directly");
    t
}

impl Plan {
    /// The partitions the plan scans and their nodes, the plan below.
    pub fn table(&self) -> Table {
        let ran = self.scans.iter().any(|s| s.rows.is_some());
        let head: &[&str] =
            if ran { &["partition", "node", "scan", "rows returned"] } else { &["partition", "node", "scan"] };
        let mut t = Table::new("EXPLAIN on the coordinator: the partitions it scans", head.iter().copied());
        for s in &self.scans {
            let how = if s.concurrent { "concurrent (async)" } else { "one after another" };
            let mut row = vec![s.partition.clone(), s.node.clone(), how.to_string()];
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
        let mut t = Table::new(format!("split at {}", bound(&self.at)), ["partition", "node", "rows"]);
        t.row([format!("{} (below {})", self.partition, bound(&self.at)), self.from.clone(), thousands(self.kept)]);
        t.row([format!("{} (from {})", self.new_partition, bound(&self.at)), self.to.clone(), thousands(self.moved)]);
        t.note(format!(
            "{} rows moved through the coordinator: deleted on {} and inserted on {}, two remote commits \
             one after the other (postgres_fdw has no two-phase commit)",
            thousands(self.moved),
            self.from,
            self.to
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
    /// Every split and move as PostgreSQL saw it, then the rows per node.
    pub fn table(&self) -> Table {
        let mut t = Table::new("replayed on the live nodes", ["arrival", "step", "partition", "node", "rows"]);
        for s in &self.steps {
            match s {
                Step::Split { arrival, partition, node, rows, at, moved } => t.row([
                    thousands(*arrival),
                    format!("split at median {}", bound(at)),
                    partition.clone(),
                    node.clone(),
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
        let per: Vec<String> = self.rows_per_node.iter().map(|(s, n)| format!("{s} {}", thousands(*n))).collect();
        t.note(format!("rows per node at the end: {}", per.join(" · ")));
        t
    }
}

shows_as_table!(Replayed);

impl HalfDone {
    /// Each node the write touched: what it was sent, what it holds now, and whether its
    /// part committed.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("one write to {} and its postings, the coordinator killed between the nodes' commits", self.table),
            ["node", "rows sent", "postings sent", "rows there now", "postings there now", "its part"],
        );
        for n in &self.nodes {
            let part = if n.committed() {
                "committed"
            } else if n.rows_left + n.postings_left == 0 {
                "rolled back"
            } else {
                "partly there"
            };
            t.row([
                n.node.clone(),
                thousands(n.rows_sent),
                thousands(n.postings_sent),
                thousands(n.rows_left),
                thousands(n.postings_left),
                part.to_string(),
            ]);
        }
        t.note(format!(
            "postgres_fdw sent COMMIT to {} first; the coordinator died before the next: {} of {} rows and postings \
             are there{}",
            self.committed_first,
            thousands(self.left()),
            thousands(self.sent()),
            if self.is_half_done() { ", the write half done" } else { "" }
        ));
        t
    }
}

shows_as_table!(HalfDone);
