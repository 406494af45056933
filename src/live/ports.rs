//! Ports of 127.0.0.1 the crate's servers listen on.
//!
//! `PortLease` (crate-internal) hands out a port the kernel says is free
//! and that no other lease of this process holds, so the Redis Cluster,
//! the proxies and the PostgreSQL shards, started at once, never pick the
//! same port. A Redis Cluster node's lease also holds its bus port,
//! port + 10000.

use crate::live::process::{system, HOST};
use crate::{limits, Error, Result};
use std::collections::BTreeSet;
use std::net::TcpListener;
use std::sync::Mutex;

/// The most servers one driver starts: Redis Cluster masters, a proxy's
/// backends (each is a process with its own port and memory; 32 start
/// in a few seconds on two cores).
pub const MAX_SERVERS: usize = 32;

/// At most [`MAX_SERVERS`] + 1 names from `names` (an endless iterator
/// included), refused with [`Error::TooLarge`] when there are more than
/// [`MAX_SERVERS`]: no name past that is taken.
pub(crate) fn check_servers<I, S>(names: I) -> Result<Vec<String>>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let names: Vec<String> = names.into_iter().take(MAX_SERVERS + 1).map(Into::into).collect();
    limits::check_hint(
        "servers started by one driver (counted up to one past the limit)",
        names.len() as u128,
        MAX_SERVERS as u128,
        "start fewer servers (model more with the crate's schemes)",
    )?;
    Ok(names)
}

/// The most keys one call of a live driver sends (a million keys through a
/// proxy take half a minute or more).
pub const MAX_LIVE_KEYS: usize = 1_000_000;

/// `Ok` for 1 to [`MAX_LIVE_KEYS`] keys: checked before any key is spelled.
pub(crate) fn check_live_keys(count: usize) -> Result<()> {
    if count == 0 {
        return Err(Error::NoKeys);
    }
    crate::limits::check_hint(
        "keys sent to live servers",
        count as u128,
        MAX_LIVE_KEYS as u128,
        "use fewer keys (20,000 show every effect)",
    )
}

/// Ports held by a [`PortLease`] of this process (bus ports included).
static LEASED: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());

/// A port of 127.0.0.1 (with its bus port, for a Redis Cluster node)
/// reserved in this process until dropped.
#[derive(Debug)]
pub(crate) struct PortLease {
    port: u16,
    bus: Option<u16>,
}

impl PortLease {
    /// A port the kernel just gave out as free and no lease holds.
    #[cfg(any(test, feature = "proxies", feature = "postgres", feature = "etcd"))]
    pub(crate) fn take() -> Result<PortLease> {
        PortLease::find(false)
    }

    /// A port `p` as [`take`](PortLease::take) gives, whose cluster bus port
    /// `p + 10000` is free and unleased too (held by the lease as well).
    pub(crate) fn take_with_bus() -> Result<PortLease> {
        PortLease::find(true)
    }

    fn find(with_bus: bool) -> Result<PortLease> {
        for _ in 0..200 {
            let l = TcpListener::bind((HOST, 0)).map_err(system("find a free port"))?;
            let port = l.local_addr().map_err(system("find a free port"))?.port();
            let bus = match (with_bus, port.checked_add(10_000)) {
                (false, _) => None,
                (true, Some(b)) if TcpListener::bind((HOST, b)).is_ok() => Some(b),
                (true, _) => continue,
            };
            let mut leased = LEASED.lock().unwrap_or_else(|p| p.into_inner());
            if port < 1_024 || leased.contains(&port) || bus.is_some_and(|b| leased.contains(&b)) {
                continue;
            }
            leased.extend(std::iter::once(port).chain(bus));
            return Ok(PortLease { port, bus });
        }
        let what = if with_bus { "port pair (p, p + 10000)" } else { "port" };
        Err(Error::System {
            doing: format!("find a free {what} on {HOST}"),
            source: std::io::Error::from(std::io::ErrorKind::AddrInUse).into(),
        })
    }

    /// The port.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }
}

impl Drop for PortLease {
    fn drop(&mut self) {
        let mut leased = LEASED.lock().unwrap_or_else(|p| p.into_inner());
        leased.remove(&self.port);
        if let Some(b) = self.bus {
            leased.remove(&b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_never_repeat_while_held_bus_ports_included() {
        let buses: Vec<PortLease> = (0..10).map(|_| PortLease::take_with_bus().unwrap()).collect();
        let held: Vec<PortLease> = (0..50).map(|_| PortLease::take().unwrap()).collect();
        let mut ports: BTreeSet<u16> = held.iter().map(PortLease::port).collect();
        for b in &buses {
            assert!(ports.insert(b.port()) && ports.insert(b.port() + 10_000), "{b:?} shared");
        }
        assert_eq!(ports.len(), 70);
        drop((held, buses));
        let leased = LEASED.lock().unwrap();
        assert!(ports.iter().all(|p| !leased.contains(p)));
    }
}
