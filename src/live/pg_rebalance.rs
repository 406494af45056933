//! Rebalancing a range-sharded table on the live servers, as DDIA's
//! "Rebalancing key-range sharded data" does it: split a range, move a
//! range to another node, merge two neighbours.
//!
//! PostgreSQL 15 has no `SPLIT PARTITION` or `MERGE PARTITIONS`, so each
//! operation does what an operator does, in one transaction of the
//! coordinator: detach the partitions concerned, create the new table on
//! its node, move the rows there through the coordinator (`DELETE …
//! RETURNING` into `INSERT`), attach the result. Each reports the rows it
//! moved; a statement that fails rolls back the coordinator's part and
//! drops the table it had made.
//!
//! **What that transaction does not promise.** The coordinator's own part
//! (the catalog: detach, attach) commits atomically. The rows do not:
//! `postgres_fdw` keeps one remote transaction per node and, when the
//! coordinator commits, sends `COMMIT` to each node one after another, with
//! no two-phase commit. A coordinator that dies between two of those commits
//! leaves one node's part committed (the rows deleted from the old node, or
//! inserted on the new one) and the other's rolled back:
//! [`PgShards::insert_indexed_until_crash`] shows it on a row and its
//! postings. And from `DETACH PARTITION` to `COMMIT` the coordinator holds an
//! `ACCESS EXCLUSIVE` lock on the partitioned table, so every read and write
//! of the table waits for the rows to move.

use crate::error::PartitionProblem;
use crate::live::pg_shards::PgShards;
use crate::live::pg_table::{check_text, Bound, RangeOf};
use crate::{Error, Result};

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
    /// The node of the lower half.
    pub from: String,
    /// The node of the upper half.
    pub to: String,
    /// Rows moved into the new partition.
    pub moved: u64,
    /// Rows left in the old one.
    pub kept: u64,
}

impl Split {
    /// Rows moved into the new partition (to another node, or to a new
    /// table on the same node).
    pub fn moved(&self) -> u64 {
        self.moved
    }
}

/// What [`PgShards::move_partition`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Moved {
    /// The partition moved (dropped: its rows are in `new_partition`).
    pub partition: String,
    /// Its new partition, with the same range, on `to`.
    pub new_partition: String,
    /// The node it left.
    pub from: String,
    /// The node it went to.
    pub to: String,
    /// Rows moved.
    pub moved: u64,
}

/// What [`PgShards::merge`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Merged {
    /// The partition kept: the lower of the two, its range now both ranges.
    pub partition: String,
    /// The upper partition, dropped.
    pub dropped: String,
    /// Rows moved from the upper partition into the lower.
    pub moved: u64,
}

impl PgShards {
    /// Move partition `partition` of `table` to node `to`: a new partition
    /// with the same range on `to` takes every row, and the old one is
    /// dropped on both servers. Moving to the node it is on, or to the
    /// coordinator (which holds no rows), is refused before anything runs.
    pub fn move_partition(&mut self, table: &str, partition: &str, to: &str) -> Result<Moved> {
        let spec = self.spec(table)?.clone();
        self.node(to)?;
        let parts = self.partitions(table)?;
        let Some(old) = parts.iter().find(|p| p.name == partition).cloned() else {
            return Err(Error::UnknownName {
                what: "partition",
                given: partition.to_string(),
                choices: parts.iter().map(|p| p.name.clone()).collect::<Vec<_>>().join(", "),
            });
        };
        if old.node == to {
            return Err(Error::BadPartition {
                table: table.to_string(),
                problem: Box::new(PartitionProblem::OnShardAlready { partition: old.name, shard: old.node }),
            });
        }
        let new = self.partition_name(table);
        let cols = spec.columns_sql();
        let names = spec.column_names().join(", ");
        self.node(to)?.run(&format!("CREATE TABLE {new} ({cols}, PRIMARY KEY (key));\n"))?;
        let script = format!(
            "BEGIN;\nALTER TABLE {table} DETACH PARTITION {old};\n\
             CREATE FOREIGN TABLE {new} ({cols}) SERVER \"node_{to}\" OPTIONS (table_name '{new}');\n\
             WITH gone AS (DELETE FROM {old} RETURNING {names}), \
             landed AS (INSERT INTO {new} ({names}) SELECT {names} FROM gone RETURNING 1) SELECT count(*) FROM landed;\n\
             DROP FOREIGN TABLE {old};\n\
             ALTER TABLE {table} ATTACH PARTITION {new} FOR VALUES FROM ({lo}) TO ({hi});\nCOMMIT;\n",
            old = old.name,
            lo = old.lower.sql(),
            hi = old.upper.sql(),
        );
        let moved = self.rebalance_step(&script, to, &new)?;
        self.node(&old.node)?.run(&format!("DROP TABLE {};\n", old.name))?;
        let [moved] = moved[..] else {
            return Err(self.coordinator.failed(format!("the move printed {moved:?}, not one count")));
        };
        Ok(Moved { partition: old.name, new_partition: new, from: old.node, to: to.to_string(), moved })
    }

    /// Merge partition `partition` of `table` with the one above it: the
    /// upper one's rows move into it, its range grows to cover both, and the
    /// upper one is dropped. Both must be on the same node (move one
    /// first): a merge on one server moves rows between its tables only.
    pub fn merge(&mut self, table: &str, partition: &str) -> Result<Merged> {
        let spec = self.spec(table)?.clone();
        let parts = self.partitions(table)?;
        let Some(i) = parts.iter().position(|p| p.name == partition) else {
            return Err(Error::UnknownName {
                what: "partition",
                given: partition.to_string(),
                choices: parts.iter().map(|p| p.name.clone()).collect::<Vec<_>>().join(", "),
            });
        };
        let Some(upper) = parts.get(i + 1) else {
            return Err(Error::BadPartition {
                table: table.to_string(),
                problem: Box::new(PartitionProblem::NoneAbove { partition: partition.to_string() }),
            });
        };
        let lower = &parts[i];
        if lower.node != upper.node {
            return Err(Error::BadPartition {
                table: table.to_string(),
                problem: Box::new(PartitionProblem::AcrossShards {
                    lower: lower.name.clone(),
                    upper: upper.name.clone(),
                    lower_shard: lower.node.clone(),
                    upper_shard: upper.node.clone(),
                }),
            });
        }
        let names = spec.column_names().join(", ");
        let script = format!(
            "BEGIN;\nALTER TABLE {table} DETACH PARTITION {lo_name};\nALTER TABLE {table} DETACH PARTITION {up_name};\n\
             WITH gone AS (DELETE FROM {up_name} RETURNING {names}), \
             landed AS (INSERT INTO {lo_name} ({names}) SELECT {names} FROM gone RETURNING 1) SELECT count(*) FROM landed;\n\
             DROP FOREIGN TABLE {up_name};\n\
             ALTER TABLE {table} ATTACH PARTITION {lo_name} FOR VALUES FROM ({lo}) TO ({hi});\nCOMMIT;\n",
            lo_name = lower.name,
            up_name = upper.name,
            lo = lower.lower.sql(),
            hi = upper.upper.sql(),
        );
        let out = self.coordinator_run(&script)?;
        self.node(&upper.node)?.run(&format!("DROP TABLE {};\n", upper.name))?;
        let moved = out.lines().find_map(|l| l.trim().parse().ok()).unwrap_or(0);
        Ok(Merged { partition: lower.name.clone(), dropped: upper.name.clone(), moved })
    }

    /// Run a coordinator script that fills the new table `new` on node
    /// `on`, returning the counts it printed; on failure drop `new` there.
    fn rebalance_step(&self, script: &str, on: &str, new: &str) -> Result<Vec<u64>> {
        match self.coordinator_run(script) {
            Ok(out) => Ok(out.lines().filter_map(|l| l.trim().parse().ok()).collect()),
            Err(e) => {
                let _ = self.node(on)?.run(&format!("DROP TABLE IF EXISTS {new};\n"));
                Err(e)
            }
        }
    }

    /// Split the partition of `table` that holds `at` into [lower, at) and
    /// [at, upper), the upper half on node `upper_to`: detach it, create
    /// the new partition's table on its node, move the rows at or above
    /// `at` there, and attach both halves, in one transaction of the
    /// coordinator (whose remote commits are not atomic: see the
    /// [module documentation](self)). Fails, changing nothing, when `at` is
    /// already a bound.
    pub fn split(&mut self, table: &str, at: &Bound, upper_to: &str) -> Result<Split> {
        let spec = self.spec(table)?.clone();
        self.node(upper_to)?;
        let kind_ok = matches!((at, spec.by()), (Bound::Text(_), RangeOf::Key) | (Bound::Int(_), RangeOf::Hash));
        if !kind_ok {
            let want = if spec.by() == RangeOf::Key { "Bound::Text" } else { "Bound::Int" };
            return Err(Error::BadPartition {
                table: table.to_string(),
                problem: Box::new(PartitionProblem::WrongKind { at: at.to_string(), want }),
            });
        }
        if let Bound::Text(t) = at {
            check_text("the split point", t)?;
        }
        let parts = self.partitions(table)?;
        let Some(old) = parts.iter().find(|p| p.lower <= *at && *at < p.upper).cloned() else {
            return Err(Error::BadPartition {
                table: table.to_string(),
                problem: Box::new(PartitionProblem::NoneHolds { at: at.to_string() }),
            });
        };
        if old.lower == *at {
            return Err(Error::BadPartition {
                table: table.to_string(),
                problem: Box::new(PartitionProblem::AlreadyBound { at: at.to_string(), partition: old.name }),
            });
        }
        let new = self.partition_name(table);
        let cols = spec.columns_sql();
        self.node(upper_to)?.run(&format!("CREATE TABLE {new} ({cols}, PRIMARY KEY (key));\n"))?;
        let col = spec.by().column();
        let names = spec.column_names().join(", ");
        let script = format!(
            "BEGIN;\nALTER TABLE {table} DETACH PARTITION {old};\n\
             CREATE FOREIGN TABLE {new} ({cols}) SERVER \"node_{upper_to}\" OPTIONS (table_name '{new}');\n\
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
        let nums = self.rebalance_step(&script, upper_to, &new)?;
        let [moved, kept] = nums[..] else {
            return Err(self.coordinator.failed(format!("the split printed {nums:?}, not two counts")));
        };
        Ok(Split {
            partition: old.name,
            new_partition: new,
            at: at.clone(),
            from: old.node,
            to: upper_to.to_string(),
            moved,
            kept,
        })
    }
}
