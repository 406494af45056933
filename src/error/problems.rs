//! What exactly is wrong, for the errors of the PostgreSQL tables
//! ([`Error::BadRanges`](super::Error::BadRanges),
//! [`Error::BadPartition`](super::Error::BadPartition)).

use std::fmt;

/// What is wrong with a table's ranges.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RangeProblem {
    /// No ranges at all.
    NoRanges,
    /// The ranges do not run from `Bound::Min` to `Bound::Max`.
    Ends {
        /// The first range's lower bound, printed.
        first: String,
        /// The last range's upper bound, printed.
        last: String,
    },
    /// A range with a bound of the other kind (text in a table by hash, a
    /// number in a table by key).
    MixedKinds {
        /// The range.
        index: usize,
        /// Its lower bound, printed.
        lower: String,
        /// Its upper bound, printed.
        upper: String,
        /// The kind the table needs, e.g. `"Bound::Text"`.
        want: &'static str,
    },
    /// A range whose lower bound does not sort below its upper.
    Inverted {
        /// The range.
        index: usize,
        /// Its lower bound, printed.
        lower: String,
        /// Its upper bound, printed.
        upper: String,
    },
    /// Two neighbouring ranges that do not meet.
    Gap {
        /// The first of the two.
        index: usize,
        /// Where it ends, printed.
        end: String,
        /// Where the next starts, printed.
        next: String,
    },
}

impl fmt::Display for RangeProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RangeProblem::NoRanges => write!(f, "no ranges: give at least one, from Bound::Min to Bound::Max"),
            RangeProblem::Ends { first, last } => {
                write!(f, "the ranges run from {first} to {last}: start at Bound::Min and end at Bound::Max")
            }
            RangeProblem::MixedKinds { index, lower, upper, want } => {
                write!(f, "range {index} ({lower} to {upper}) mixes kinds: use {want} bounds for this table")
            }
            RangeProblem::Inverted { index, lower, upper } => {
                write!(f, "range {index} runs from {lower} to {upper}: each lower bound must sort below its upper")
            }
            RangeProblem::Gap { index, end, next } => write!(
                f,
                "range {index} ends at {end} but range {} starts at {next}: make them meet",
                index.saturating_add(1)
            ),
        }
    }
}

/// What is wrong with a split, a merge or a replay of a table's partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PartitionProblem {
    /// A merge of the last partition, which has none above it.
    NoneAbove {
        /// The partition.
        partition: String,
    },
    /// A merge of two partitions on different shards.
    AcrossShards {
        /// The lower partition.
        lower: String,
        /// The one above it.
        upper: String,
        /// The lower one's shard.
        lower_shard: String,
        /// The upper one's shard.
        upper_shard: String,
    },
    /// A split point of the other kind than the table's bounds.
    WrongKind {
        /// The split point, printed.
        at: String,
        /// The kind the table needs, e.g. `"Bound::Text"`.
        want: &'static str,
    },
    /// A key or split point that no partition holds.
    NoneHolds {
        /// The key or point, printed.
        at: String,
    },
    /// A growth replayed on keys or a layout other than its own.
    NotItsGrowth {
        /// Keys the growth ran.
        arrivals: u64,
        /// Keys given.
        keys: usize,
        /// The growth's starting layout, described.
        layout: String,
    },
    /// A growth replayed on a table that is not empty, or not laid out as
    /// the growth started.
    NotItsLayout {
        /// The growth's starting ranges.
        ranges: usize,
        /// Their shards, in range order.
        shards: Vec<String>,
        /// The table's partitions now.
        partitions: usize,
        /// Their shards, in range order.
        on: Vec<String>,
    },
    /// A split at a partition's lower bound.
    AlreadyBound {
        /// The split point, printed.
        at: String,
        /// The partition it is the lower bound of.
        partition: String,
    },
    /// A move of a partition to the shard that holds it already.
    OnShardAlready {
        /// The partition.
        partition: String,
        /// Its shard.
        shard: String,
    },
    /// A growth that moves a range the table does not have.
    NoSuchRange {
        /// The range.
        range: usize,
        /// The partitions the table has.
        partitions: usize,
    },
}

impl fmt::Display for PartitionProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartitionProblem::NoneAbove { partition } => {
                write!(f, "merge {partition}: it is the last partition, with none above it; merge the one below it")
            }
            PartitionProblem::AcrossShards { lower, upper, lower_shard, upper_shard } => write!(
                f,
                "merge {lower} with {upper}: they are on nodes {lower_shard} and {upper_shard}; move one to the \
                 other's node first"
            ),
            PartitionProblem::WrongKind { at, want } => write!(f, "split at {at}: give a {want} inside a partition"),
            PartitionProblem::NoneHolds { at } => {
                write!(f, "no partition holds {at}: give a key or split point inside the table's ranges")
            }
            PartitionProblem::NotItsGrowth { arrivals, keys, layout } => write!(
                f,
                "replay of a growth that ran {arrivals} keys over {layout}, given {keys} keys: give it the same keys \
                 and a table made with TableSpec::from_layout from its starting layout"
            ),
            PartitionProblem::NotItsLayout { ranges, shards, partitions, on } => write!(
                f,
                "a replay needs the table empty and laid out as the growth started ({ranges} ranges on {}), not \
                 {partitions} partitions on {}: create it with TableSpec::from_layout and replay into it first",
                shards.join(", "),
                on.join(", ")
            ),
            PartitionProblem::AlreadyBound { at, partition } => {
                write!(f, "split at {at}: it is already the lower bound of {partition}; split inside a partition")
            }
            PartitionProblem::OnShardAlready { partition, shard } => {
                write!(f, "move {partition} to {shard}: it is on {shard} already; move it to another node")
            }
            PartitionProblem::NoSuchRange { range, partitions } => write!(
                f,
                "the growth moves range {range}, but the table has {partitions} partitions: replay it on a table made \
                 from its starting layout"
            ),
        }
    }
}
