//! A cache behind a placement that changes: which reads hit, which miss,
//! and which return a copy older than the database's.
//!
//! **Model.** The application keeps every key in a database and a copy in
//! a cache server. A write (`SET` through a proxy) stores the key's new
//! version in the database and on the server the placement names for it
//! *now*; nothing deletes the copies other servers still hold. A read
//! goes to the server the placement names now: no copy there is a
//! **miss**, a copy of the database's version is **fresh**, an older one
//! is **stale**. Servers are told apart by name, so a server that leaves
//! the placement keeps its copies, and finds them again if it comes back.
//!
//! When a server joins, the keys it takes miss until written again; their
//! old copies stay, unread, on the servers that held them. Write every key
//! while the new server is in, then take it out again: each moved key is
//! read from its old server once more, which still holds the old copy.
//!
//! ```
//! use reshard::analysis::CacheCopies;
//! use reshard::{HashWidth, KeySet, Placement, Ring};
//! let keys = KeySet::users(10_000).hashed(HashWidth::Bits32)?;
//! let abc = Ring::named(["A", "B", "C"])?.with_vnodes(150)?;
//! let abcd = abc.add_node("D")?;
//! let mut cache = CacheCopies::new(&keys);
//! cache.write(&keys, &abc, 1)?;                    // version 1 of every key, on A, B, C
//! let joined = cache.read(&keys, &abcd)?;          // D joins: D's keys miss
//! cache.write(&keys, &abcd, 2)?;                   // version 2, with D in
//! let left = cache.read(&keys, &abc)?;             // D leaves: the old copies are read again
//! assert_eq!(left.missed(), 0);
//! assert_eq!(left.stale(), joined.missed());       // every key D took
//! assert_eq!(left.fresh() + left.stale(), 10_000);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::schemes::Placement;
use crate::{Error, Result};

/// What one read returned, against the database's version of the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReadOutcome {
    /// The server had a copy of the database's version.
    Fresh,
    /// The server had a copy of an older (or other) version.
    Stale,
    /// The server had no copy.
    Miss,
    /// The read got an error reply (a server down and not yet ejected).
    Failed,
}

impl std::fmt::Display for ReadOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ReadOutcome::Fresh => "fresh",
            ReadOutcome::Stale => "stale",
            ReadOutcome::Miss => "miss",
            ReadOutcome::Failed => "failed",
        })
    }
}

/// The outcome of reading every key once, in key order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheReads {
    outcomes: Vec<ReadOutcome>,
}

impl CacheReads {
    /// Classify reads: `read[i]` is the version a read of key `i` returned
    /// (`None`: no copy), `latest[i]` the database's version of it. Fails
    /// when the two lists differ in length.
    ///
    /// ```
    /// use reshard::analysis::{CacheReads, ReadOutcome};
    /// let r = CacheReads::from_versions(&[Some(2), Some(1), None], &[2, 2, 2])?;
    /// assert_eq!((r.fresh(), r.stale(), r.missed()), (1, 1, 1));
    /// assert_eq!(r.outcomes()[1], ReadOutcome::Stale);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn from_versions(read: &[Option<u32>], latest: &[u32]) -> Result<CacheReads> {
        if read.len() != latest.len() {
            return Err(Error::LengthMismatch {
                what: "versions read, one per key",
                expected: latest.len(),
                given: read.len(),
            });
        }
        let outcomes = read
            .iter()
            .zip(latest)
            .map(|(r, &l)| match r {
                None => ReadOutcome::Miss,
                Some(v) if *v == l => ReadOutcome::Fresh,
                Some(_) => ReadOutcome::Stale,
            })
            .collect();
        Ok(CacheReads { outcomes })
    }

    /// Reads already classified, in key order.
    pub fn from_outcomes(outcomes: Vec<ReadOutcome>) -> CacheReads {
        CacheReads { outcomes }
    }

    /// Each key's outcome, in key order.
    pub fn outcomes(&self) -> &[ReadOutcome] {
        &self.outcomes
    }

    /// Keys read.
    pub fn len(&self) -> usize {
        self.outcomes.len()
    }

    /// True when no key was read.
    pub fn is_empty(&self) -> bool {
        self.outcomes.is_empty()
    }

    /// Reads with this outcome.
    pub fn count(&self, outcome: ReadOutcome) -> u64 {
        self.outcomes.iter().filter(|&&o| o == outcome).count() as u64
    }

    /// Reads that returned the database's version.
    pub fn fresh(&self) -> u64 {
        self.count(ReadOutcome::Fresh)
    }

    /// Reads that returned an older version: a hit, and wrong.
    pub fn stale(&self) -> u64 {
        self.count(ReadOutcome::Stale)
    }

    /// Reads that found no copy.
    pub fn missed(&self) -> u64 {
        self.count(ReadOutcome::Miss)
    }

    /// Reads answered with an error.
    pub fn failed(&self) -> u64 {
        self.count(ReadOutcome::Failed)
    }
}

/// Every cache server's copies, by server name, and the database's
/// version of every key (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheCopies {
    servers: Vec<String>,
    /// `held[s][i]`: the version of key `i` server `s` holds, 0 for none.
    held: Vec<Vec<u32>>,
    /// The database's version of each key, 0 before the first write.
    latest: Vec<u32>,
}

impl CacheCopies {
    /// An empty cache and an empty database for the keys of `keys`.
    pub fn new(keys: &HashedKeys) -> CacheCopies {
        CacheCopies { servers: Vec::new(), held: Vec::new(), latest: vec![0; keys.len()] }
    }

    fn check_keys(&self, keys: &HashedKeys) -> Result<()> {
        if keys.len() != self.latest.len() {
            return Err(Error::LengthMismatch {
                what: "keys, as many as the cache was made for",
                expected: self.latest.len(),
                given: keys.len(),
            });
        }
        Ok(())
    }

    fn server(&mut self, name: &str) -> usize {
        match self.servers.iter().position(|s| s == name) {
            Some(s) => s,
            None => {
                self.servers.push(name.to_string());
                self.held.push(vec![0; self.latest.len()]);
                self.servers.len() - 1
            }
        }
    }

    /// Write `version` of every key: to the database, and to the server
    /// `placement` names for the key. `version` is 1 or more (0 means "no
    /// copy"); the keys are those the cache was made for.
    pub fn write<P: Placement + ?Sized>(&mut self, keys: &HashedKeys, placement: &P, version: u32) -> Result<()> {
        self.check_keys(keys)?;
        if version == 0 {
            return Err(Error::OutOfRange {
                what: "version written",
                given: "0".into(),
                allowed: "1 or more (0 means no copy)".into(),
            });
        }
        let ids: Vec<usize> = placement.nodes().iter().map(|n| self.server(n)).collect();
        for (i, owner) in placement.assign(keys).into_iter().enumerate() {
            self.held[ids[owner as usize]][i] = version;
            self.latest[i] = version;
        }
        Ok(())
    }

    /// Read every key from the server `placement` names for it.
    pub fn read<P: Placement + ?Sized>(&self, keys: &HashedKeys, placement: &P) -> Result<CacheReads> {
        self.check_keys(keys)?;
        let ids: Vec<Option<usize>> =
            placement.nodes().iter().map(|n| self.servers.iter().position(|s| s == n)).collect();
        let read: Vec<Option<u32>> = placement
            .assign(keys)
            .into_iter()
            .enumerate()
            .map(|(i, owner)| ids[owner as usize].map(|s| self.held[s][i]).filter(|&v| v > 0))
            .collect();
        CacheReads::from_versions(&read, &self.latest)
    }

    /// A server's stay, as the lab follows it: every key written (version 1)
    /// under `before`; read once `during` (the change made); written again
    /// (version 2) `during`; read under `before` again (the change undone).
    /// Returns the two reads.
    ///
    /// ```
    /// use reshard::analysis::CacheCopies;
    /// use reshard::{HashWidth, KeySet, Modulo, Movement};
    /// let keys = KeySet::users(10_000).hashed(HashWidth::Bits32)?;
    /// let (three, four) = (Modulo::new(3)?, Modulo::new(4)?);
    /// let (joined, left) = CacheCopies::round_trip(&keys, &three, &four)?;
    /// let moved = Movement::measure(&keys, &three, &four)?.moved(); // 3/4 of the keys
    /// assert_eq!((joined.missed(), left.stale(), left.missed()), (moved, moved, 0));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn round_trip<P: Placement + ?Sized>(
        keys: &HashedKeys,
        before: &P,
        during: &P,
    ) -> Result<(CacheReads, CacheReads)> {
        let mut cache = CacheCopies::new(keys);
        cache.write(keys, before, 1)?;
        let joined = cache.read(keys, during)?;
        cache.write(keys, during, 2)?;
        Ok((joined, cache.read(keys, before)?))
    }

    /// The database's version of each key (0: never written).
    pub fn latest(&self) -> &[u32] {
        &self.latest
    }

    /// Copies held on servers other than the one `placement` names for
    /// their key: no read through `placement` reaches them.
    pub fn unread_copies<P: Placement + ?Sized>(&self, keys: &HashedKeys, placement: &P) -> Result<u64> {
        self.check_keys(keys)?;
        let owner_of: Vec<Option<usize>> =
            placement.nodes().iter().map(|n| self.servers.iter().position(|s| s == n)).collect();
        let owners = placement.assign(keys);
        let mut n = 0u64;
        for (s, copies) in self.held.iter().enumerate() {
            n += copies.iter().zip(&owners).filter(|&(&v, &o)| v > 0 && owner_of[o as usize] != Some(s)).count() as u64;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HashWidth, KeySet, Modulo, Movement, Ring};

    fn keys() -> HashedKeys {
        KeySet::users(5_000).hashed(HashWidth::Bits32).unwrap()
    }

    #[test]
    fn a_joining_server_misses_exactly_the_keys_it_takes() {
        let keys = keys();
        let abc = Ring::named(["A", "B", "C"]).unwrap().with_vnodes(100).unwrap();
        let abcd = abc.add_node("D").unwrap();
        let mut cache = CacheCopies::new(&keys);
        cache.write(&keys, &abc, 1).unwrap();
        let joined = cache.read(&keys, &abcd).unwrap();
        let moved = Movement::measure(&keys, &abc, &abcd).unwrap().moved();
        assert_eq!((joined.missed(), joined.fresh(), joined.stale()), (moved, 5_000 - moved, 0));
        // the copies D took are still on A, B, C, out of reach
        assert_eq!(cache.unread_copies(&keys, &abcd).unwrap(), moved);
    }

    #[test]
    fn taking_the_server_out_again_serves_the_old_copies() {
        // under hash % N every key that moved, also between old servers, comes back stale
        let keys = keys();
        let (three, four) = (Modulo::new(3).unwrap(), Modulo::new(4).unwrap());
        let moved = Movement::measure(&keys, &three, &four).unwrap().moved();
        let mut cache = CacheCopies::new(&keys);
        cache.write(&keys, &three, 1).unwrap();
        cache.write(&keys, &four, 2).unwrap();
        let back = cache.read(&keys, &three).unwrap();
        assert_eq!((back.stale(), back.missed(), back.fresh()), (moved, 0, 5_000 - moved));
        // written again while back on three servers, nothing is stale
        cache.write(&keys, &three, 3).unwrap();
        assert_eq!(cache.read(&keys, &three).unwrap().fresh(), 5_000);
    }

    #[test]
    fn bad_input_is_an_error() {
        let keys = keys();
        let ring = Ring::named(["A"]).unwrap();
        let mut cache = CacheCopies::new(&keys);
        assert!(matches!(cache.write(&keys, &ring, 0), Err(Error::OutOfRange { .. })));
        let fewer = KeySet::users(10).hashed(HashWidth::Bits32).unwrap();
        assert!(matches!(cache.read(&fewer, &ring), Err(Error::LengthMismatch { .. })));
        assert!(matches!(CacheReads::from_versions(&[None], &[]), Err(Error::LengthMismatch { .. })));
        // never written: every read misses, none is stale
        assert_eq!(cache.read(&keys, &ring).unwrap().missed(), 5_000);
    }
}
