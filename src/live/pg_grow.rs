//! A range-sharded table that grows on the live servers as the crate
//! predicted it would: [`PgShards::replay`] writes the keys of a
//! [`RangeGrowth`] run through the coordinator, in the run's arrival order,
//! and performs its schedule — each split when the crate says a range
//! passed the threshold, each balancing move after it — while asking
//! PostgreSQL, at every step, what it holds.
//!
//! The schedule (when, which node) is the crate's; what is observed is
//! PostgreSQL's: at a split, the rows the partition holds (counted on its
//! node) and its median key (`ORDER BY key … OFFSET n/2`, or the median
//! row's `h` for hash ranges), which is where the partition is then split;
//! at a move, the rows that moved; at the end, the partitions and the rows
//! on each node. If PostgreSQL disagreed with the crate at one step, every
//! later step would show it.
//!
//! ```
//! use reshard::analysis::{GrowthSettings, RangeGrowth};
//! use reshard::live::{pg_version, PgShards, TableSpec};
//! use reshard::prelude::*;
//! # if pg_version().is_err() { return Ok(()); } // not installed here
//! let keys = KeySet::new("k", 600);
//! let start = KeyRanges::named(letters("AB"))?; // one range, on A
//! let grown = RangeGrowth::run(&keys, &start, &GrowthSettings::new(100).balance(2.0))?;
//! let mut pg = PgShards::start(["A", "B"])?;
//! pg.create(&TableSpec::from_layout("t", &start)?)?;
//! let seen = pg.replay("t", &keys, &grown)?;
//! assert_eq!(seen.splits().count(), grown.splits().len());
//! let rows: Vec<u64> = seen.rows_per_node.iter().map(|(_, n)| *n).collect();
//! assert_eq!(rows, grown.rows_per_node());
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::{RangeGrowth, RangeLayout};
use crate::error::PartitionProblem;
use crate::keys::KeySet;
use crate::live::pg_shards::PgShards;
use crate::live::pg_table::{Bound, Partition, RangeOf};
use crate::live::pg_text::{hex_text, unhex};
use crate::{Error, Result};
use std::time::Instant;

/// One step of a replay, as PostgreSQL saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step {
    /// A partition split.
    Split {
        /// The arrival (from 1) after which it split.
        arrival: u64,
        /// The partition split.
        partition: String,
        /// Its node (both halves stay there).
        node: String,
        /// Rows it held then, counted on its node.
        rows: u64,
        /// Its median as PostgreSQL sorts it: where it was split.
        at: Bound,
        /// Rows that went into the upper half's new table.
        moved: u64,
    },
    /// A partition moved whole to another node.
    Move {
        /// The arrival after whose split it moved.
        arrival: u64,
        /// The partition moved (its new name on the new node).
        partition: String,
        /// The node it left.
        from: String,
        /// The node it went to.
        to: String,
        /// Rows moved.
        moved: u64,
    },
}

/// What [`PgShards::replay`] saw.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Replayed {
    /// Every split and move, in order.
    pub steps: Vec<Step>,
    /// The partitions at the end, with the rows each holds on its node.
    pub partitions: Vec<(Partition, u64)>,
    /// Rows on each node at the end, in node order.
    pub rows_per_node: Vec<(String, u64)>,
    /// How long it took, in seconds (run-dependent).
    pub seconds: f64,
}

impl Replayed {
    /// The split steps.
    pub fn splits(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(|s| matches!(s, Step::Split { .. }))
    }

    /// The move steps.
    pub fn moves(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(|s| matches!(s, Step::Move { .. }))
    }
}

impl PgShards {
    /// Write `keys` into `table` as `growth` ran them (its arrival order)
    /// and perform its splits and moves on the live servers, observing
    /// each (see the [module](self)). `table` must be empty and have the
    /// growth's starting layout (make it with
    /// [`TableSpec::from_layout`](crate::live::TableSpec::from_layout)), and
    /// `keys` must be the keys `growth` ran.
    pub fn replay(&mut self, table: &str, keys: &KeySet, growth: &RangeGrowth) -> Result<Replayed> {
        let t0 = Instant::now();
        let by = self.spec(table)?.by();
        let want = if matches!(growth.start_layout(), RangeLayout::Keys(_)) { RangeOf::Key } else { RangeOf::Hash };
        if by != want || growth.arrivals() != keys.len() as u64 {
            return Err(Error::BadPartition {
                table: table.to_string(),
                problem: Box::new(PartitionProblem::NotItsGrowth {
                    arrivals: growth.arrivals(),
                    keys: keys.len(),
                    layout: growth.start_layout().describe(),
                }),
            });
        }
        let parts = self.partitions(table)?;
        let shape: Vec<&str> = parts.iter().map(|p| p.node.as_str()).collect();
        let nodes = growth.nodes();
        let start: Vec<&str> = growth.start_layout().table().iter().map(|&o| nodes[o as usize].as_str()).collect();
        if shape != start || self.rows_per_node(table)?.iter().any(|(_, n)| *n > 0) {
            return Err(Error::BadPartition {
                table: table.to_string(),
                problem: Box::new(PartitionProblem::NotItsLayout {
                    ranges: start.len(),
                    shards: start.iter().map(|s| s.to_string()).collect(),
                    partitions: shape.len(),
                    on: shape.iter().map(|s| s.to_string()).collect(),
                }),
            });
        }
        let order = growth.settings().arrival_order().order(keys.len())?;
        let mut steps = Vec::new();
        let mut written = 0usize;
        let mut moves = growth.moves().iter().peekable();
        for split in growth.splits() {
            let upto = usize::try_from(split.arrival).unwrap_or(usize::MAX).min(order.len());
            self.write(table, keys, &order, written, upto)?;
            written = upto;
            // The partition that took the last row is the one over the threshold.
            let Some(&last) = upto.checked_sub(1).and_then(|j| order.get(j)) else { continue };
            // the key's own text (written just now, so UTF-8), not its escaped display
            let last = String::from_utf8_lossy(keys.writer().key(last as usize)).into_owned();
            steps.push(self.split_at_median(table, by, &last, split.arrival)?);
            while let Some(m) = moves.next_if(|m| m.arrival == split.arrival) {
                let parts = self.partitions(table)?;
                let Some(p) = parts.get(m.range) else {
                    return Err(Error::BadPartition {
                        table: table.to_string(),
                        problem: Box::new(PartitionProblem::NoSuchRange { range: m.range, partitions: parts.len() }),
                    });
                };
                let to = nodes[m.to as usize].clone();
                let done = self.move_partition(table, &p.name.clone(), &to)?;
                steps.push(Step::Move {
                    arrival: m.arrival,
                    partition: done.new_partition,
                    from: done.from,
                    to: done.to,
                    moved: done.moved,
                });
            }
        }
        self.write(table, keys, &order, written, order.len())?;
        let partitions = self.rows_per_partition(table)?;
        let rows_per_node = self.rows_per_node(table)?;
        Ok(Replayed { steps, partitions, rows_per_node, seconds: t0.elapsed().as_secs_f64() })
    }

    /// Insert the arrivals `from..to` of `order` (their `seq` is their arrival, from 1).
    fn write(&self, table: &str, keys: &KeySet, order: &[u32], from: usize, to: usize) -> Result<()> {
        if to > from {
            let rows = (from..to).map(|j| (order[j] as usize, j as u64 + 1));
            self.insert_rows(table, keys, rows, to - from, |_| Vec::new())?;
        }
        Ok(())
    }

    /// The rows of partition `partition` of `table` and its median as
    /// PostgreSQL sorts them, both asked of its node directly: with `n`
    /// rows, the key at offset `n / 2` in key order (for a table of hash
    /// ranges, the `h` of the row at that offset in `(h, key)` order). The
    /// lower half of a split there keeps `n / 2` rows.
    pub fn median(&self, table: &str, partition: &str) -> Result<(u64, Bound)> {
        let by = self.spec(table)?.by();
        let parts = self.partitions(table)?;
        let Some(p) = parts.iter().find(|p| p.name == partition) else {
            return Err(Error::UnknownName {
                what: "partition",
                given: partition.to_string(),
                choices: parts.iter().map(|p| p.name.clone()).collect::<Vec<_>>().join(", "),
            });
        };
        let node = self.node(&p.node)?;
        let rows = node.number(&format!("SELECT count(*) FROM {}", p.name))?;
        // a key is read as the hex of its bytes, to come back whole (see PgShards::partitions)
        let (column, order) = if by == RangeOf::Key { (hex_text("key"), "key") } else { ("h".into(), "h, key") };
        let median =
            node.rows(&format!("SELECT {column} FROM {} ORDER BY {order} OFFSET {} LIMIT 1", p.name, rows / 2))?;
        let field = median.first().and_then(|r| r.first()).cloned().unwrap_or_default();
        let at = match by {
            RangeOf::Key => {
                Bound::Text(unhex(&field).ok_or_else(|| node.failed(format!("median key of {partition}: {field:?}")))?)
            }
            RangeOf::Hash => {
                Bound::Int(field.parse().map_err(|_| node.failed(format!("median h {field:?} of {partition}")))?)
            }
        };
        Ok((rows, at))
    }

    /// Split the partition holding `key` at its median as PostgreSQL
    /// sorts it, the upper half staying on its node.
    fn split_at_median(&mut self, table: &str, by: RangeOf, key: &str, arrival: u64) -> Result<Step> {
        let h = crate::HashWidth::Bits32.hash(key.as_bytes()) as i64;
        let probe = match by {
            RangeOf::Key => Bound::text(key),
            RangeOf::Hash => Bound::Int(h),
        };
        let parts = self.partitions(table)?;
        let Some(p) = parts.into_iter().find(|p| p.lower <= probe && probe < p.upper) else {
            return Err(Error::BadPartition {
                table: table.to_string(),
                problem: Box::new(PartitionProblem::NoneHolds { at: format!("{key:?}") }),
            });
        };
        let (rows, at) = self.median(table, &p.name)?;
        let done = self.split(table, &at, &p.node)?;
        Ok(Step::Split { arrival, partition: p.name, node: p.node, rows, at, moved: done.moved })
    }
}
