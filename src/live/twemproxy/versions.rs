//! A cache's contents through the proxy: every key written with a version
//! number ([`Nutcracker::write_version`]) and read back
//! ([`Nutcracker::read_versions`]), so a read tells a miss, the latest
//! version and an older copy apart. Observations only: the crate's
//! [`CacheCopies`](crate::analysis::CacheCopies) predicts them.

use super::{Nutcracker, Written};
use crate::analysis::{CacheReads, ReadOutcome};
use crate::live::client::{Conn, Reply};
use crate::live::observed::{key_list, Keys};
use crate::{Error, Result};
use std::time::Instant;

/// What a `GET` of every key through the proxy returned, key by key.
#[derive(Debug, Clone, PartialEq)]
pub struct Versions {
    /// Per key: the version read, `None` for nil (no copy) or a failed read.
    values: Vec<Option<u32>>,
    /// Per key: an error reply, or a value that is not a version number.
    failed: Vec<bool>,
    first_error: Option<String>,
    seconds: f64,
}

impl Versions {
    /// Per key, the version read (`None`: a miss, or a failed read).
    pub fn values(&self) -> &[Option<u32>] {
        &self.values
    }

    /// Reads answered with an error, or with a value that is not a version
    /// number, and the first such answer.
    pub fn errors(&self) -> (u64, Option<&str>) {
        (self.failed.iter().filter(|&&f| f).count() as u64, self.first_error.as_deref())
    }

    /// Wall-clock seconds the reads took.
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// Each read against the database's version of its key (`latest[i]`,
    /// e.g. [`CacheCopies::latest`](crate::analysis::CacheCopies::latest)):
    /// fresh, stale, a miss, or failed.
    pub fn against(&self, latest: &[u32]) -> Result<CacheReads> {
        let classified = CacheReads::from_versions(&self.values, latest)?;
        let outcomes = classified
            .outcomes()
            .iter()
            .zip(&self.failed)
            .map(|(&o, &f)| if f { ReadOutcome::Failed } else { o })
            .collect();
        Ok(CacheReads::from_outcomes(outcomes))
    }
}

impl Nutcracker {
    /// `SET key version` for every key through the proxy, pipelined over
    /// one connection: the version number is the value. Version 0 is
    /// refused (it means "no copy" to [`CacheCopies`](crate::analysis::CacheCopies)).
    pub fn write_version<K: Keys + ?Sized>(&self, keys: &K, version: u32) -> Result<Written> {
        if version == 0 {
            return Err(Error::OutOfRange {
                what: "version written",
                given: "0".into(),
                allowed: "1 or more (0 means no copy)".into(),
            });
        }
        let keys = key_list(keys)?;
        let bytes = keys.key_bytes()?;
        let t0 = Instant::now();
        let mut w = Written { keys: keys.len() as u64, ok: 0, errors: 0, first_error: None, seconds: 0.0 };
        let value = version.to_string().into_bytes();
        let mut conn = Conn::open("nutcracker", self.port())?;
        let commands = (0..keys.len()).map(|i| [&b"SET"[..], bytes.get(i), &value[..]]);
        conn.pipeline(commands, |r| match r {
            Reply::Status(_) => w.ok += 1,
            other => {
                w.errors += 1;
                w.first_error.get_or_insert(other.text());
            }
        })?;
        w.seconds = t0.elapsed().as_secs_f64();
        Ok(w)
    }

    /// `GET key` for every key through the proxy, pipelined: per key the
    /// version it returned, nil as a miss. Writes nothing.
    pub fn read_versions<K: Keys + ?Sized>(&self, keys: &K) -> Result<Versions> {
        let keys = key_list(keys)?;
        let bytes = keys.key_bytes()?;
        let t0 = Instant::now();
        let (mut values, mut failed, mut first_error) = (Vec::with_capacity(keys.len()), Vec::new(), None);
        let mut conn = Conn::open("nutcracker", self.port())?;
        conn.pipeline((0..keys.len()).map(|i| [&b"GET"[..], bytes.get(i)]), |r| {
            let version = match &r {
                Reply::Bulk(None) => Ok(None),
                Reply::Bulk(Some(v)) => {
                    std::str::from_utf8(v).ok().and_then(|t| t.parse::<u32>().ok()).map(Some).ok_or(())
                }
                _ => Err(()),
            };
            match version {
                Ok(v) => {
                    values.push(v);
                    failed.push(false);
                }
                Err(()) => {
                    values.push(None);
                    failed.push(true);
                    first_error.get_or_insert_with(|| match &r {
                        Reply::Bulk(_) => format!("not a version number: {:?}", r.text()),
                        _ => r.text(),
                    });
                }
            }
        })?;
        Ok(Versions { values, failed, first_error, seconds: t0.elapsed().as_secs_f64() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_read_is_its_own_outcome() {
        let v = Versions {
            values: vec![Some(2), Some(1), None, None],
            failed: vec![false, false, false, true],
            first_error: Some("ERR".into()),
            seconds: 0.0,
        };
        let r = v.against(&[2, 2, 2, 2]).unwrap();
        assert_eq!((r.fresh(), r.stale(), r.missed(), r.failed()), (1, 1, 1, 1));
        assert_eq!(v.errors(), (1, Some("ERR")));
        assert!(matches!(v.against(&[2]), Err(Error::LengthMismatch { .. })));
    }
}
