//! A fixed request trace over the shards of a shard map: request `i` goes
//! to one shard at time `i / rate` seconds. The same trace, replayed by
//! the crate's model and by a live router, gives the same counts.
//!
//! Two traces a learner can follow with pencil and paper, and one that
//! looks like traffic:
//!
//! * [`RequestTrace::round_robin`]: request `i` to shard `i % S`;
//! * [`RequestTrace::from_shards`]: the shards listed, in order;
//! * [`RequestTrace::seeded`]: each shard drawn as Python's
//!   `random.Random(seed).randrange(S)` draws it.
//!
//! Times are exact: request `i` is at `i / rate` s with `rate` a whole
//! number of requests per second, and every other time (a move, a poll) is
//! a whole number of microseconds, so "before", "at" and "after" never
//! depend on floating-point rounding.
//!
//! ```
//! use reshard::analysis::RequestTrace;
//! let t = RequestTrace::round_robin(12, 300, 100)?; // 3 s of requests, 100 per second
//! assert_eq!((t.len(), t.shard(31)?, t.time(31)?), (300, 7, 0.31));
//! let py = RequestTrace::seeded(12, 5, 100, 42)?; // Python: [random.Random(42).randrange(12) ...]
//! assert_eq!(py.shards_requested(), [10, 1, 0, 11, 4]);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::schemes::shard_map::check_shards;
use crate::{limits, Error, PyRandom, Result};

/// The most requests in one trace.
pub const MAX_TRACE_REQUESTS: usize = 1_000_000;

/// The highest request rate, requests per second.
pub const MAX_RATE: u32 = 1_000_000;

/// The longest time a model accepts (a move, a poll period, a pause): one
/// day, in seconds.
pub const MAX_SECONDS: f64 = 86_400.0;

/// A time in seconds as whole microseconds: finite, at least 0 (above 0
/// when `positive`), at most [`MAX_SECONDS`].
pub(crate) fn micros(what: &'static str, seconds: f64, positive: bool) -> Result<u64> {
    let ok = seconds.is_finite() && seconds <= MAX_SECONDS && if positive { seconds > 0.0 } else { seconds >= 0.0 };
    let us = (seconds * 1e6).round();
    if !ok || (positive && us < 1.0) {
        return Err(Error::BadNumber {
            what,
            value: seconds.to_string(),
            expected: if positive {
                "a number of seconds above 0 (at least 1 µs) and at most a day (86,400)"
            } else {
                "a number of seconds from 0 to a day (86,400)"
            },
            hint: "give seconds as a plain number, e.g. 0.5",
        });
    }
    Ok(us as u64)
}

/// Requests over the shards, one at each `1 / rate` seconds (see the
/// [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestTrace {
    shards: usize,
    rate: u32,
    shard_of: Vec<u32>,
}

fn check_trace(shards: usize, requests: usize, rate: u32) -> Result<()> {
    check_shards(shards)?;
    limits::check_hint("shards of a request trace", shards as u128, u128::from(u32::MAX), "use fewer shards")?;
    if requests == 0 {
        return Err(Error::OutOfRange {
            what: "requests in a trace",
            given: "0".into(),
            allowed: "at least 1 (300 requests at 100 per second are 3 s of traffic)".into(),
        });
    }
    limits::check_hint(
        "requests in a trace",
        requests as u128,
        MAX_TRACE_REQUESTS as u128,
        "use fewer requests (a few hundred show every effect)",
    )?;
    if rate == 0 || rate > MAX_RATE {
        return Err(Error::OutOfRange {
            what: "request rate (per second)",
            given: rate.to_string(),
            allowed: format!("1 to {MAX_RATE} requests per second (e.g. 100)"),
        });
    }
    Ok(())
}

impl RequestTrace {
    /// `requests` requests at `rate` per second, request `i` to shard
    /// `i % shards`.
    pub fn round_robin(shards: usize, requests: usize, rate: u32) -> Result<RequestTrace> {
        check_trace(shards, requests, rate)?;
        Ok(RequestTrace { shards, rate, shard_of: (0..requests).map(|i| (i % shards) as u32).collect() })
    }

    /// `requests` requests at `rate` per second, each to a shard drawn with
    /// Python's `random.Random(seed).randrange(shards)`.
    pub fn seeded(shards: usize, requests: usize, rate: u32, seed: u64) -> Result<RequestTrace> {
        check_trace(shards, requests, rate)?;
        let mut rng = PyRandom::new(seed);
        let n = shards as u32; // checked above: shards fit u32
        let shard_of = (0..requests).map(|_| rng.randbelow(n)).collect::<Result<Vec<u32>>>()?;
        Ok(RequestTrace { shards, rate, shard_of })
    }

    /// The requests to these shards, in this order, at `rate` per second.
    pub fn from_shards(shards: usize, requested: &[usize], rate: u32) -> Result<RequestTrace> {
        check_trace(shards, requested.len(), rate)?;
        let mut shard_of = Vec::with_capacity(requested.len());
        for &s in requested {
            if s >= shards {
                return Err(Error::NoSuchShard { shard: s, shards });
            }
            shard_of.push(s as u32);
        }
        Ok(RequestTrace { shards, rate, shard_of })
    }

    /// How many requests.
    pub fn len(&self) -> usize {
        self.shard_of.len()
    }

    /// Never true: a trace has at least one request.
    pub fn is_empty(&self) -> bool {
        self.shard_of.is_empty()
    }

    /// The shards of the map the trace is over.
    pub fn shards(&self) -> usize {
        self.shards
    }

    /// Requests per second.
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// The shard of request `i`.
    pub fn shard(&self, i: usize) -> Result<usize> {
        self.shard_of.get(i).map(|&s| s as usize).ok_or(Error::OutOfRange {
            what: "request index",
            given: i.to_string(),
            allowed: format!("0 to {} (the trace has {} requests)", self.len().saturating_sub(1), self.len()),
        })
    }

    /// The time of request `i`, seconds: `i / rate`.
    pub fn time(&self, i: usize) -> Result<f64> {
        self.shard(i)?;
        Ok(i as f64 / f64::from(self.rate))
    }

    /// The shard of every request, in order.
    pub fn shards_requested(&self) -> Vec<usize> {
        self.shard_of.iter().map(|&s| s as usize).collect()
    }

    /// Seconds from the first request to the last.
    pub fn seconds(&self) -> f64 {
        self.len().saturating_sub(1) as f64 / f64::from(self.rate)
    }

    pub(crate) fn shard_u32(&self, i: usize) -> usize {
        self.shard_of[i] as usize
    }

    /// True when request `i` is at or after `us` microseconds:
    /// `i / rate ≥ us / 10⁶`, compared in whole numbers.
    pub(crate) fn at_or_after(&self, i: usize, us: u64) -> bool {
        (i as u128) * 1_000_000 >= u128::from(us) * u128::from(self.rate)
    }

    /// The number of whole periods of `period_us` up to request `i`:
    /// `⌊(i / rate) / period⌋`.
    pub(crate) fn periods_before(&self, i: usize, period_us: u64) -> u128 {
        (i as u128) * 1_000_000 / (u128::from(period_us) * u128::from(self.rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_traces_are_refused() {
        assert_eq!(RequestTrace::round_robin(0, 10, 1), Err(Error::ZeroShards));
        assert!(RequestTrace::round_robin(3, 0, 1).is_err());
        assert!(RequestTrace::round_robin(3, MAX_TRACE_REQUESTS + 1, 1).is_err());
        assert!(RequestTrace::round_robin(3, usize::MAX, 1).is_err());
        assert!(RequestTrace::round_robin(3, 10, 0).is_err());
        assert_eq!(RequestTrace::from_shards(3, &[0, 3], 1), Err(Error::NoSuchShard { shard: 3, shards: 3 }));
        assert!(micros("t", f64::NAN, false).is_err() && micros("t", -1.0, false).is_err());
        assert!(micros("t", 0.0, true).is_err() && micros("t", 1e-9, true).is_err());
        assert_eq!(micros("t", 0.3, true).unwrap(), 300_000);
        let t = RequestTrace::round_robin(4, 10, 3).unwrap();
        assert!(t.at_or_after(3, 1_000_000) && !t.at_or_after(2, 1_000_000));
        assert_eq!(t.periods_before(9, 1_000_000), 3);
    }
}
