//! A floor beside [`schemes`](crate::schemes) and
//! [`analysis`](crate::analysis): real servers whose placement the crate
//! predicts. Behind the `redis` feature. It reports what the servers say;
//! the tutor (`Checks`) sets the crate's predictions beside it.
//!
//! * [`process`] — the programs the crate starts: found on `PATH` or in
//!   `/usr/sbin`, on ports no other driver holds, each under a watchdog that
//!   stops it and removes its directory when dropped, on a panic, or when
//!   this process is killed (shared by every driver);
//! * [`client`] — a few lines of RESP over a `TcpStream`;
//! * [`cluster`] — a local Redis Cluster (`redis-server` processes on
//!   127.0.0.1, formed, grown and shrunk with `redis-cli --cluster`:
//!   [`cli`]), read back slot by slot ([`contents`]), its nodes' command
//!   counts read from `INFO commandstats` ([`RedisCluster::command_calls`]).
//! * [`twemproxy`] and [`nginx`] (feature `proxies`) — twemproxy over
//!   `redis-server` backends and nginx with a `hash` upstream, each key's
//!   backend read back as an [`Observed`];
//! * [`postgres`] and [`pg_shards`] (feature `postgres`) — PostgreSQL
//!   servers, and a table sharded by ranges over them: a coordinator whose
//!   partitions are `postgres_fdw` foreign tables on the shards.
//! * [`etcd`], [`fenced`] and [`shard_lab`] (feature `etcd`) — an etcd
//!   cluster holding a shard map (compare-and-swap, leases and their
//!   `etcdctl` heartbeats, watches, members killed and restarted), storage
//!   nodes that refuse a write below a shard's fencing token, and lab 11's
//!   controller and routers run against both, beside the crate's models.
//!
//! Every driver needs its programs on `PATH` and fails with a typed error
//! saying how to install them when they are missing (the examples below
//! return early then, so they pass on a machine without them). Three Redis
//! nodes, 1,000 keys: each node holds exactly the keys the crate's own
//! [`Slots`](crate::Slots), read back from the cluster, gives it:
//!
//! ```
//! use reshard::live::{redis_version, RedisCluster};
//! use reshard::prelude::*;
//! # if redis_version().is_err() { return Ok(()); } // not installed here
//! let keys = KeySet::users(1_000);
//! let cluster = RedisCluster::start(["A", "B", "C"])?;
//! cluster.load(&keys)?;
//! let seen = cluster.snapshot()?;
//! let predicted = LoadReport::measure(&keys.hashed(HashWidth::Bits32)?, seen.slots())?;
//! assert_eq!(predicted.counts(), seen.keys_per_node());
//! assert_eq!(seen.keys(), 1_000);
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! With the `proxies` feature, twemproxy routes keys the way the crate's
//! [`Twemproxy`](crate::Twemproxy) scheme predicts (the running proxy is
//! `live::Nutcracker`, its config `live::NutcrackerConfig`):
//!
//! ```
//! # #[cfg(feature = "proxies")] {
//! use reshard::live::{nutcracker_version, Nutcracker, NutcrackerConfig};
//! use reshard::prelude::*;
//! use reshard::Twemproxy;
//! # if nutcracker_version().is_err() { return Ok(()); } // not installed here
//! let keys = KeySet::users(2_000);
//! let config = NutcrackerConfig::named(["A", "B", "C"])?;
//! let proxy = Nutcracker::start(&config)?;
//! proxy.set_keys(&keys)?;
//! let routed = proxy.where_routed(&keys)?;
//! let scheme = Twemproxy::named(["A", "B", "C"])?; // twemproxy's defaults: fnv1a_64, ketama
//! let mut w = keys.writer();
//! for i in 0..keys.len() {
//!     assert_eq!(routed.owner(i), Some(scheme.owner(Key::new(w.key(i), HashWidth::Bits32))));
//! }
//! # }
//! # Ok::<(), reshard::Error>(())
//! ```

#[cfg(feature = "proxies")]
mod backends;
pub mod cli;
pub mod client;
pub mod cluster;
pub mod contents;
#[cfg(feature = "etcd")]
pub mod etcd;
#[cfg(feature = "etcd")]
pub mod fenced;
#[cfg(any(feature = "proxies", feature = "etcd"))]
mod http;
#[cfg(feature = "proxies")]
pub mod nginx;
#[cfg(feature = "proxies")]
pub mod observed;
#[cfg(feature = "postgres")]
pub mod pg_grow;
#[cfg(feature = "postgres")]
pub mod pg_index;
#[cfg(feature = "postgres")]
mod pg_insert;
#[cfg(feature = "postgres")]
pub mod pg_rebalance;
#[cfg(feature = "postgres")]
pub mod pg_shards;
#[cfg(feature = "postgres")]
pub mod pg_table;
#[cfg(feature = "postgres")]
mod pg_text;
pub mod ports;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod process;
#[cfg(feature = "etcd")]
pub mod shard_lab;
mod stats;
#[cfg(feature = "proxies")]
pub mod twemproxy;

pub use cli::CliRun;
pub use client::Reply;
pub use cluster::{redis_version, RedisCluster};
pub use contents::{Loaded, Sampled, Snapshot};
#[cfg(feature = "etcd")]
pub use etcd::{
    etcd_version, Cas, Etcd, EtcdClient, EventKind, Heartbeat, Kv, LeaderLoss, Lease, Status, Watch, WatchEvent,
};
#[cfg(feature = "etcd")]
pub use fenced::{Fenced, FencedNodes};
#[cfg(feature = "proxies")]
pub use nginx::{nginx_version, Nginx, NginxConfig};
#[cfg(feature = "proxies")]
pub use observed::{Keys, Observed};
#[cfg(feature = "postgres")]
pub use pg_grow::{Replayed, Step};
#[cfg(feature = "postgres")]
pub use pg_index::StaleReads;
#[cfg(feature = "postgres")]
pub use pg_rebalance::{Merged, Moved, Split};
#[cfg(feature = "postgres")]
pub use pg_shards::{Inserted, PgShards, Plan, Scan, COORDINATOR};
#[cfg(feature = "postgres")]
pub use pg_table::{Bound, Partition, RangeOf, TableSpec};
pub use ports::{MAX_LIVE_KEYS, MAX_SERVERS};
#[cfg(feature = "postgres")]
pub use postgres::pg_version;
pub use process::{find_program, process_alive, HOST};
#[cfg(feature = "etcd")]
pub use shard_lab::{FailoverSeen, LeaseWindow, Race, ScriptedMoves, ShardLab, StaleRouters, ZombieSeen};
#[cfg(feature = "proxies")]
pub use twemproxy::{nutcracker_version, Nutcracker, NutcrackerConfig, Versions, Written};

/// The old single-file home of the Redis driver: its paths keep working.
#[doc(hidden)]
pub mod redis {
    pub use super::cli::CliRun;
    pub use super::client::Reply;
    pub use super::cluster::{redis_version, RedisCluster};
    pub use super::contents::{Loaded, Sampled, Snapshot};
    pub use super::process::{find_program, process_alive, HOST};
}

/// The old home of the watchdog and the program lookup, now
/// [`process`]: its paths keep working.
#[doc(hidden)]
pub mod server {
    pub use super::process::{find_program, process_alive, HOST};
}
