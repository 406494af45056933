//! A floor beside [`schemes`](crate::schemes) and
//! [`analysis`](crate::analysis): real servers whose placement the crate
//! predicts. Behind the `redis` feature.
//!
//! * [`redis`] — a local Redis Cluster (`redis-server` processes on
//!   127.0.0.1, formed, grown and shrunk with `redis-cli --cluster`), read
//!   back slot by slot and compared with [`Slots`](crate::Slots).

pub mod redis;

pub use redis::{redis_version, Agreement, CliRun, Loaded, RedisCluster, Reply, Snapshot};
