//! A floor beside [`schemes`](crate::schemes) and
//! [`analysis`](crate::analysis): real servers whose placement the crate
//! predicts. Behind the `redis` feature.
//!
//! * [`redis`] — a local Redis Cluster (`redis-server` processes on
//!   127.0.0.1, formed, grown and shrunk with `redis-cli --cluster`), read
//!   back slot by slot and compared with [`Slots`](crate::Slots).
//! * [`twemproxy`] and [`nginx`] (feature `proxies`) — twemproxy over
//!   `redis-server` backends and nginx with a `hash` upstream, each key's
//!   backend read back as an [`Observed`].

#[cfg(feature = "proxies")]
mod http;
#[cfg(feature = "proxies")]
pub mod nginx;
#[cfg(feature = "proxies")]
pub mod observed;
#[cfg(feature = "proxies")]
mod process;
pub mod redis;
#[cfg(feature = "proxies")]
pub mod twemproxy;

#[cfg(feature = "proxies")]
pub use nginx::{nginx_version, Nginx, NginxConfig};
#[cfg(feature = "proxies")]
pub use observed::{Keys, Observed};
pub use redis::{redis_version, Agreement, CliRun, Loaded, RedisCluster, Reply, Snapshot};
#[cfg(feature = "proxies")]
pub use twemproxy::{nutcracker_version, Twemproxy, TwemproxyConfig, Written};
