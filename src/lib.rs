//! # reshard — what moves when a cluster grows
//!
//! A small library for measuring, exactly, how many keys change node when a
//! cluster of machines gains or loses one, under the placement schemes of
//! *Designing Data-Intensive Applications* ch. 7 and the tutorials built on
//! it: `hash % N` ([`Modulo`]), the consistent-hash [`Ring`] with virtual
//! nodes, [`Rendezvous`] hashing, [`FixedShards`], and what real systems
//! use ([`Jump`], Redis [`Slots`], [`Maglev`], [`Ketama`], [`Bounded`] loads,
//! twemproxy's pools as [`Twemproxy`] and nginx's `hash` upstreams as [`NginxHash`]),
//! and range sharding: ranges of keys ([`KeyRanges`]) or of their hashes
//! ([`HashRanges`]), split, merged and moved whole, and a table that grows
//! and splits at a size threshold ([`RangeGrowth`](analysis::RangeGrowth)).
//!
//! The crate has three floors, and a lower floor never imports a higher one:
//!
//! * [`schemes`] — who owns a key ([`Locate`]) and every key of a set
//!   ([`Placement`]); every scheme is built with `new(n)` or `named(names)`
//!   and changes with `add_node`/`remove_node`;
//! * [`analysis`] — what moved ([`Movement`]), load per node
//!   ([`LoadReport`]), sweeps over arrangements and parameters, all schemes
//!   side by side; requests per node under a skewed [`Workload`]
//!   ([`RequestLoad`]), hot keys, failures, and replica copies moved
//!   ([`CopyMovement`]); secondary indexes, local and global
//!   ([`LocalIndex`](analysis::LocalIndex), [`GlobalIndex`](analysis::GlobalIndex)), the
//!   tail of a query that asks every shard ([`FanOut`](analysis::FanOut)) and reads
//!   of an index updated late ([`AsyncIndex`](analysis::AsyncIndex));
//! * [`present`] — tables and their display in the evcxr Jupyter kernel
//!   ([`show!`] shows several in one cell), and charts drawn with plotters
//!   (feature `charts`).
//!
//! Beside them, [`tutor`] sets each source document's figures beside this
//! crate's ("reference 89,813 · measured 89,813 ✓"), and `live` (features
//! `redis`, `proxies`, `postgres` and `etcd`) starts real servers — a Redis
//! Cluster, twemproxy, nginx, PostgreSQL, etcd — to watch the predictions
//! come true. Keys are
//! hashed once with md5 ([`HashWidth`]) into [`HashedKeys`], which carry
//! their width.
//!
//! ```
//! use reshard::prelude::*;
//! // Document 002 (below): 200,000 keys, 10 → 11 nodes.
//! let keys = KeySet::plain(200_000).hashed(HashWidth::Bits128)?;
//! let modulo = Movement::measure(&keys, &Modulo::new(10)?, &Modulo::new(11)?)?;
//! let hrw = Movement::measure(&keys, &Rendezvous::new(10)?, &Rendezvous::new(11)?)?;
//! assert_eq!((modulo.moved(), modulo.between_kept()), (181_745, 163_493));
//! assert_eq!((hrw.moved(), hrw.between_kept()), (17_986, 0));
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! [`prelude`] holds the core in 31 names; [`notebook`] adds display,
//! charts and the tutor for a notebook cell (`use reshard::notebook::*;`).
//!
//! # The documents
//!
//! The figures the tests and [`tutor`] check come from three short texts
//! about resharding, numbered by their file (the numbers appear in docs,
//! tests and `reshard reproduce --doc`); [`tutor::reproduce::title`] gives the titles:
//!
//! * **000**, *"I Added a Fourth Shard in Python and 75% of the Keys Moved"*:
//!   100,000 keys `user:0 … user:99999`, md5 mod 2^32, nodes A, B, C → A, B,
//!   C, D with `hash % N` and a ring of one to 150 points per node;
//! * **002**, DDIA 2nd ed. ch. 7, *"Consistent hashing"*: 200,000 keys
//!   `key0 … key199999`, 128-bit md5, 10 → 11 nodes, `hash % N` against
//!   rendezvous hashing;
//! * **004**, *"DDIA Ch. 7: `hash % N` moves 91% of keys to add one node;
//!   fixed shards move 9%"*: 1,000,000 keys, 10 → 11 nodes, `hash % N`
//!   against 1,000 fixed shards.
//!
//! # Features
//!
//! | feature | default | what it adds | crates it adds to the build |
//! |---|---|---|---|
//! | `charts` | yes | `present::charts`, `present::figures` and every result's chart methods: SVG drawn with plotters 0.3, shown as `<img>` data URIs; `present::explorable`: charts with a slider, Vega-Lite specs built with serde_json | 10: plotters, plotters-backend, plotters-svg, num-traits, base64, serde_json, serde_core, itoa, memchr, zmij |
//! | `cli` | yes | the `reshard` binary (it draws nothing, so it does not need `charts`); turns on `serde` | 24: clap and its 12, serde's 7, serde_json and its 3 |
//! | `serde` | no | `Serialize`/`Deserialize` on the result types | 7: serde, serde_core, serde_derive, proc-macro2, quote, syn, unicode-ident |
//! | `redis` | no | `reshard::live`: a local Redis Cluster (`redis-server`, `redis-cli` on `PATH`) | none (std only) |
//! | `proxies` | no | `live`'s twemproxy and nginx (turns on `redis`) | none (std only) |
//! | `postgres` | no | `live`'s PostgreSQL shards through `psql` (turns on `redis`) | none (std only) |
//! | `etcd` | no | `live`'s etcd cluster, fenced storage nodes (`redis-server` with a Lua fence) and lab 11's controller and routers (`etcd`, `etcdctl`, `redis-server` on `PATH`; turns on `redis`) | none (std only) |
//! | `live` | no | `redis`, `proxies`, `postgres` and `etcd` together | none (std only) |
//!
//! Without features the crate builds 15 crates (itself, md-5, rayon, libm
//! and their dependencies); the default build 44. A
//! notebook's first cell takes `default-features = false, features =
//! ["charts"]` (25 crates): `:dep reshard = { path = "..",
//! default-features = false, features = ["charts"] }`; the labs that start
//! servers take `["charts", "live"]`, the same 25 crates.
//!
//! plotters is part of this crate's API only under `charts`, and only in one
//! place: `present::charts::draw` hands its closure a plotters drawing
//! area, so `reshard::present::charts::plotters` re-exports the plotters the
//! crate was built with (`use reshard::present::charts::plotters::prelude::*;`
//! in a cell that draws its own chart). A new major version of plotters is
//! a breaking change of that module; nothing else names a plotters type.

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod analysis;
pub mod error;
pub mod hash;
pub mod keys;
pub mod limits;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub mod live;
mod numbers;
pub mod present;
pub mod pyrandom;
pub mod schemes;
pub mod tutor;

pub use analysis::modulo::{keys_changing_shard, modulo_rule};
pub use analysis::{
    ArrangementSweep, CompareSettings, Comparison, CopyMovement, FailureSweep, HotKeySplit, LoadReport, LoadSpread,
    LoadUnderSkew, MiddleRemoval, ModuloSweep, Movement, NodeFailure, RequestBounds, RequestLoad, Scheme, VnodeSweep,
    WeightedShares, Workload,
};
pub use error::{Error, Result};
pub use hash::{md5_u128, HashWidth};
pub use keys::{HashedKeys, KeySet};
pub use pyrandom::PyRandom;
pub use schemes::jump::{guava_consistent_hash, jump_hash};
pub use schemes::ketama::ketama_hash;
pub use schemes::slots::{crc16, key_slot};
pub use schemes::{
    letters, numbered, prefixed, Bounded, FixedShards, HashRanges, Jump, Ketama, Key, KeyRanges, Locate, Maglev,
    Modulo, NodeId, Placement, Rendezvous, Replicas, Replicated, Ring, Slots, UnstableShards,
};
pub use schemes::{NginxHash, TwemDistribution, TwemHash, Twemproxy};
pub use tutor::{Check, Checks};

/// The core of the crate in one glob import, for a program or a test:
/// key sets and hashing, the schemes and the two traits every scheme
/// answers through, what moved, load, and the error type.
/// `use reshard::prelude::*;` shadows nothing of `std` (no `Result`).
/// A notebook wants [`notebook`] instead: this, plus display and the tutor.
///
/// ```
/// use reshard::prelude::*;
/// // a reader's own Result in the same cell still means std's
/// fn parse(s: &str) -> Result<u32, String> {
///     s.parse().map_err(|_| format!("{s:?} is not a number"))
/// }
/// assert_eq!(parse("7"), Ok(7));
/// // and the crate's errors convert as any std error does
/// fn build() -> Result<Ring, Box<dyn std::error::Error>> {
///     Ok(Ring::new(3)?.with_vnodes(150)?)
/// }
/// assert!(build().is_ok());
/// ```
///
/// The crate root's `Result` has `Error` as a default, so `use reshard::*;`
/// leaves `Result<T, String>` working too:
///
/// ```
/// use reshard::*;
/// fn parse(s: &str) -> Result<u32, String> {
///     s.parse().map_err(|_| format!("{s:?} is not a number"))
/// }
/// assert!(parse("x").is_err());
/// ```
pub mod prelude {
    // keys, hashed once
    pub use crate::{HashWidth, HashedKeys, Key, KeySet};
    // who owns a key: the traits, the schemes, node names
    pub use crate::schemes::{letters, numbered, prefixed, Locate, Placement, Replicas};
    pub use crate::schemes::{Bounded, FixedShards, Jump, Ketama, Maglev, Modulo, Rendezvous, Replicated, Ring, Slots};
    pub use crate::schemes::{HashRanges, KeyRanges};
    // what moves, and the load
    pub use crate::analysis::{
        CompareSettings, Comparison, CopyMovement, LoadReport, Movement, RequestLoad, Scheme, Workload,
    };
    // bad input
    pub use crate::Error;
}

/// What a notebook needs, in one glob import: `use reshard::notebook::*;`.
///
/// The [`prelude`], plus what the labs take apart (more schemes, the hash
/// functions, the analysis types of each lab), display (tables, [`show!`],
/// number formats), charts (feature `charts`) and the tutor's checks and
/// quizzes. Like the prelude it shadows nothing of `std`:
///
/// ```
/// use reshard::notebook::*;
/// fn parse(s: &str) -> Result<u32, String> {
///     s.parse().map_err(|_| format!("{s:?} is not a number"))
/// }
/// assert_eq!(parse("7"), Ok(7));
/// let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128)?;
/// let m = Movement::measure(&keys, &Modulo::new(10)?, &Modulo::new(11)?)?;
/// assert_eq!(show![m].len(), 1);
/// assert_eq!(thousands(89_813), "89,813");
/// # Ok::<(), reshard::Error>(())
/// ```
pub mod notebook {
    pub use crate::prelude::*;
    // more schemes, and the hash functions the labs rebuild by hand
    pub use crate::schemes::{jump, shards, slots};
    pub use crate::schemes::{NginxHash, TwemDistribution, TwemHash, Twemproxy, UnstableShards};
    pub use crate::{crc16, guava_consistent_hash, jump_hash, ketama_hash, key_slot, md5_u128, PyRandom};
    // each lab's measurements
    pub use crate::analysis::{
        resized, ring_share_sd, ArrangementSweep, BoundedLoads, FailureSweep, HotKeySplit, LoadSpread, LoadUnderSkew,
        MiddleRemoval, Migrations, ModuloSweep, NodeFailure, RequestBounds, VnodeSweep, WeightedShares,
    };
    // fixed shards at several shard counts, Maglev at several table sizes (labs 03, 04)
    pub use crate::analysis::{MaglevSizeSweep, ShardCountSweep};
    // range sharding: a table that grows and splits, and what a scan costs
    pub use crate::analysis::{Arrival, Boundary, GrowthSettings, RangeGrowth, RangeLayout, RangeQuery};
    // a cache behind a proxy: which reads miss, which are stale
    pub use crate::analysis::{CacheCopies, CacheReads, ReadOutcome};
    // who owns shard 7: a shard map with revisions, routers that go stale, fencing (lab 11)
    pub use crate::analysis::{
        AutoFailover, EtcdTimings, Expiry, RefreshPolicy, RequestTrace, ScheduledMove, StaleRouting, ZombieRouter,
    };
    pub use crate::schemes::{ShardMap, ShardMove};
    // secondary indexes: local and global, the tail of a query that asks every shard, stale reads
    pub use crate::analysis::{
        postings_key, share_slow, term, AsyncIndex, FanOut, FanOutRun, FanOutSweep, GlobalIndex, IndexKind, IndexQuery,
        IndexWrite, Latency, LocalIndex, Rows, Simulation, StaleReadSweep,
    };
    #[cfg(feature = "postgres")]
    pub use crate::present::postgres::partitions_table;
    pub use crate::{keys_changing_shard, modulo_rule};
    // display: tables, several results in one cell, numbers
    pub use crate::present::{fixed, pct, thousands, Show, Shown, Table};
    pub use crate::show;
    // charts
    #[cfg(feature = "charts")]
    pub use crate::present::charts::{self, Series, Style};
    #[cfg(feature = "charts")]
    pub use crate::present::{failure_chart, load_chart, Explorable, Figure, Format};
    // the tutor: the documents' figures beside this crate's, guesses, quizzes
    pub use crate::tutor::{exercises, Check, Checks, Guess, Params, Predictions, Quiz};
}
