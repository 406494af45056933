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
//!   [`cli`]), read back slot by slot ([`contents`]).
//! * [`twemproxy`] and [`nginx`] (feature `proxies`) — twemproxy over
//!   `redis-server` backends and nginx with a `hash` upstream, each key's
//!   backend read back as an [`Observed`].

pub mod cli;
pub mod client;
pub mod cluster;
pub mod contents;
#[cfg(feature = "proxies")]
mod http;
#[cfg(feature = "proxies")]
pub mod nginx;
#[cfg(feature = "proxies")]
pub mod observed;
pub mod process;
#[cfg(feature = "proxies")]
pub mod twemproxy;

pub use cli::CliRun;
pub use client::Reply;
pub use cluster::{redis_version, RedisCluster};
pub use contents::{Loaded, Sampled, Snapshot};
#[cfg(feature = "proxies")]
pub use nginx::{nginx_version, Nginx, NginxConfig};
#[cfg(feature = "proxies")]
pub use observed::{Keys, Observed};
pub use process::{find_program, process_alive, HOST};
#[cfg(feature = "proxies")]
pub use twemproxy::{nutcracker_version, Nutcracker, NutcrackerConfig, Written};

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
