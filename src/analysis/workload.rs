//! Requests: a seeded, portable stream of requests over a key set, skewed
//! by a Zipf law.
//!
//! Real traffic is not spread evenly over the keys: a few keys (a
//! celebrity's timeline, a flash-sale item) get most of the requests. A
//! Zipf law with exponent `s` models that: the key of rank `r` (1 = the
//! hottest) is asked for with probability `r^−s / H(n, s)`, where
//! `H(n, s) = Σ_{r=1..n} r^−s`. `s = 0` is uniform; around `s = 1` the
//! hottest key alone takes a sizeable share.
//!
//! Key `i` of the key set has rank `i + 1`: key 0 is the hottest. The keys'
//! hashes are unrelated to their numbers, so the hot keys land wherever
//! the placement puts them.
//!
//! The draws come from [`rand_distr::Zipf`] driven by
//! [`rand_chacha::ChaCha8Rng`] seeded with [`SeedableRng::seed_from_u64`]:
//! ChaCha's output is specified bit for bit, and `rand_distr` is built
//! without `std_math`, so its `powf`/`ln`/`exp` are the pure-Rust `libm`
//! ones (as long as nothing else in the build turns on `num-traits/std`):
//! the same seed gives the same stream on every platform. `tests/hot.rs`
//! pins the first draws.
//!
//! ```
//! use reshard::analysis::workload::{zipf_probabilities, Workload};
//! let w = Workload::zipf(1000, 1.1, 100_000, 7)?;
//! assert_eq!(w.counts().iter().sum::<u64>(), 100_000);
//! let p = zipf_probabilities(1000, 1.1)?;
//! assert!((w.share(0) - p[0]).abs() < 0.01); // the hottest key: about p[0]
//! let same = Workload::zipf(1000, 1.1, 100_000, 7)?;
//! assert_eq!(w.counts(), same.counts()); // same seed, same requests
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::{limits, Error, Result};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Zipf};

/// The seed of the notebooks' workloads unless they say otherwise.
pub const DEFAULT_SEED: u64 = 2026;

fn check(keys: usize, s: f64) -> Result<()> {
    if keys == 0 {
        return Err(Error::NoKeys);
    }
    limits::check_hint("keys in a workload", keys as u128, limits::MAX_KEYS, "use fewer keys")?;
    if !(s.is_finite() && s >= 0.0) {
        return Err(Error::Invalid(format!(
            "Zipf exponent s = {s} is not a finite number ≥ 0: use 0 for uniform requests, about 1 for a strong skew"
        )));
    }
    Ok(())
}

/// The endless request stream: each item is the index of the requested
/// key (0 is the hottest).
#[derive(Debug, Clone)]
pub struct ZipfStream {
    rng: ChaCha8Rng,
    zipf: Zipf<f64>,
    keys: usize,
}

impl ZipfStream {
    /// Requests over `keys` keys with exponent `s`, from `seed`. Fails on
    /// no keys, too many keys, or an `s` that is negative or not finite.
    ///
    /// ```
    /// use reshard::analysis::workload::ZipfStream;
    /// let first: Vec<usize> = ZipfStream::new(100, 1.0, 1)?.take(5).collect();
    /// assert!(first.iter().all(|&k| k < 100));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn new(keys: usize, s: f64, seed: u64) -> Result<ZipfStream> {
        check(keys, s)?;
        let zipf = Zipf::new(keys as f64, s).map_err(|e| Error::Invalid(format!("Zipf({keys}, {s}): {e}")))?;
        Ok(ZipfStream { rng: ChaCha8Rng::seed_from_u64(seed), zipf, keys })
    }
}

impl Iterator for ZipfStream {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        Some(self.draw())
    }
}

impl ZipfStream {
    /// One draw (the same as `next()`, without the `Option`).
    #[inline]
    pub fn draw(&mut self) -> usize {
        let x: f64 = self.zipf.sample(&mut self.rng);
        // x is an integer in [1, keys]; clamp guards the float edge
        (x as usize).clamp(1, self.keys) - 1
    }
}

/// The exact Zipf probabilities of the `keys` ranks, hottest first. Fails
/// as [`ZipfStream::new`] does.
pub fn zipf_probabilities(keys: usize, s: f64) -> Result<Vec<f64>> {
    check(keys, s)?;
    let w: Vec<f64> = (1..=keys).map(|r| (r as f64).powf(-s)).collect();
    // sum the small terms first
    let h: f64 = w.iter().rev().sum();
    Ok(w.into_iter().map(|x| x / h).collect())
}

/// A number of requests drawn from a [`ZipfStream`], counted per key.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    s: f64,
    seed: u64,
    requests: u64,
    counts: Vec<u64>,
}

impl Workload {
    /// Draw `requests` requests over `keys` keys with exponent `s` from
    /// `seed`, and count them per key.
    ///
    /// Fails as [`ZipfStream::new`] does, on 0 requests, or on more than
    /// [`limits::MAX_REQUESTS`].
    pub fn zipf(keys: usize, s: f64, requests: u64, seed: u64) -> Result<Workload> {
        let mut stream = ZipfStream::new(keys, s, seed)?;
        if requests == 0 {
            return Err(Error::Invalid("0 requests: draw at least 1 (a million is plenty for 10 nodes)".into()));
        }
        limits::check_hint("requests drawn", u128::from(requests), limits::MAX_REQUESTS, "draw fewer requests")?;
        let mut counts = vec![0u64; keys];
        for _ in 0..requests {
            counts[stream.draw()] += 1;
        }
        Ok(Workload { s, seed, requests, counts })
    }

    /// A workload from counts already made, one per key (`s` is recorded as
    /// given). Fails on no keys.
    pub fn from_counts(counts: Vec<u64>, s: f64, seed: u64) -> Result<Workload> {
        if counts.is_empty() {
            return Err(Error::NoKeys);
        }
        let requests = counts.iter().sum();
        Ok(Workload { s, seed, requests, counts })
    }

    /// The Zipf exponent.
    pub fn s(&self) -> f64 {
        self.s
    }

    /// The seed of the stream.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Total requests.
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// How many keys the requests are spread over.
    pub fn keys(&self) -> usize {
        self.counts.len()
    }

    /// Requests per key, in key order.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Key `i`'s share of the requests.
    pub fn share(&self, i: usize) -> f64 {
        self.counts.get(i).map_or(0.0, |&c| c as f64 / self.requests.max(1) as f64)
    }

    /// The most requested key (the lowest index on ties) and its requests.
    pub fn hottest(&self) -> (usize, u64) {
        let mut best = (0, 0);
        for (i, &c) in self.counts.iter().enumerate() {
            if c > best.1 {
                best = (i, c);
            }
        }
        best
    }

    /// The hottest key's share of all requests.
    pub fn hottest_share(&self) -> f64 {
        self.hottest().1 as f64 / self.requests.max(1) as f64
    }
}
