//! What the schemes do to a key set: what moves, where the load lands, and
//! the same over many arrangements and parameters.
//!
//! Everything here is computed; nothing here draws or prints (the
//! [`present`](crate::present) floor shows these results as tables and
//! charts).

pub mod auto_failover;
pub mod bounded;
pub mod cache_copies;
mod chacha;
pub mod compare;
pub mod failure;
pub mod fanout;
pub(crate) mod fenwick;
pub mod hot_split;
pub mod index_access;
pub mod join_sweep;
pub mod latency;
pub mod leases;
pub mod load;
pub mod load_split;
pub mod maglev_size;
pub mod memory;
pub mod migrations;
pub mod modulo;
pub mod movement;
pub mod range_layout;
pub mod range_query;
pub mod refresh;
pub mod removal;
pub mod replicas;
pub mod request_bounds;
pub mod request_trace;
pub mod requests;
pub mod rows;
pub mod secondary;
pub mod shard_count;
pub mod simulation;
pub mod splits;
pub mod spread;
pub mod stale_reads;
pub mod sweep;
pub mod unique;
pub mod weighted_join;
pub mod weights;
pub mod workload;
pub mod zombie;

pub use auto_failover::{AutoFailover, Expiry, FailoverRun};
pub use bounded::{BoundedLoads, BoundedRow};
pub use cache_copies::{CacheCopies, CacheReads, ReadOutcome};
pub use compare::{resized, CompareSettings, Comparison, Scheme, SchemeRow};
pub use failure::{FailureRow, FailureSweep, NodeFailure};
pub use fanout::{share_slow, FanOut, FanOutRow, FanOutRun, FanOutSweep};
pub use hot_split::{HotKeySplit, SplitRow, MAX_SPLIT};
pub use index_access::{IndexKind, IndexQuery, IndexWrite, ShardRead, ShardWrite};
pub use join_sweep::{JoinRow, JoinSweep};
pub use latency::Latency;
pub use leases::EtcdTimings;
pub use load::LoadReport;
pub use load_split::LoadSplit;
pub use maglev_size::{MaglevSizeRow, MaglevSizeSweep};
pub use memory::MemoryEstimate;
pub use migrations::Migrations;
pub use modulo::{count_moved_streaming, keys_changing_shard, modulo_period, modulo_rule};
pub use movement::Movement;
pub use range_layout::{Boundary, RangeLayout};
pub use range_query::{QueryPart, RangeQuery};
pub use refresh::{Period, RefreshPolicy, RoutingComparison, RoutingRun, ScheduledMove, StaleRouting};
pub use removal::{MiddleRemoval, RemovalRow};
pub use replicas::{CopyMovement, CopyRow};
pub use request_bounds::{BoundRow, RequestBounds};
pub use request_trace::RequestTrace;
pub use requests::{LoadUnderSkew, RequestLoad, SkewRow};
pub use rows::{postings_key, term, Rows};
pub use secondary::{GlobalIndex, LocalIndex, TermPostings};
pub use shard_count::{ShardCountRow, ShardCountSweep};
pub use simulation::Simulation;
pub use splits::{Arrival, GrownRange, GrowthSettings, RangeGrowth, RangeMove, Sample, Split};
pub use spread::{ring_share_sd, LoadSpread, SpreadRow};
pub use stale_reads::{AsyncIndex, StaleReadSweep, StaleRow};
pub use sweep::{salt, Arrangement, ArrangementSweep, ModuloRow, ModuloSweep, VnodeSweep};
pub use unique::UniqueInserts;
pub use weighted_join::{WeightedJoin, WeightedJoinRow};
pub use weights::{WeightRow, WeightedShares};
pub use workload::{Workload, ZipfStream};
pub use zombie::{ZombieRouter, ZombieRun};

/// The old home of requests per node, bounds on requests, hot-key splits and
/// failures (now [`requests`], [`request_bounds`], [`hot_split`] and
/// [`failure`]): its paths keep working.
#[doc(hidden)]
pub mod hot {
    pub use super::failure::{FailureRow, FailureSweep, NodeFailure};
    pub use super::hot_split::{HotKeySplit, SplitRow, MAX_SPLIT};
    pub use super::request_bounds::{BoundRow, RequestBounds};
    pub use super::requests::{LoadUnderSkew, RequestLoad, SkewRow};
}
