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
//! The draws are portable. The uniform numbers come from ChaCha with 8
//! rounds, the 64-bit outputs of `rand_chacha` 0.9's
//! `ChaCha8Rng::seed_from_u64(seed)` bit for bit (ChaCha's output is
//! specified bit for bit; a uniform float is the top 53 bits of a 64-bit
//! output, exact), computed by the crate's own few lines (`chacha.rs`) so
//! that a notebook's build has no `rand_chacha`, `ppv-lite86` or `zerocopy`
//! for the kernel's rust-analyzer to read. The Zipf draw from them is the rejection
//! sampler of `rand_distr::Zipf` 0.5 (Jason Crease's inversion of the
//! continuous Zipf law, accepted with the ratio of the discrete to the
//! continuous density), written out here on the pure-Rust [`libm`] crate's
//! `pow`, `log` and `exp`. `rand_distr`'s own copy is not used: it takes its
//! float functions from `num-traits`, which are the platform's C library's
//! whenever anything in the build turns on `num-traits/std` (plotters does),
//! and a C library's `pow` may differ from another's in the last bit, which
//! can flip an accept/reject and shift every draw after it. `libm`'s are the
//! same code everywhere, so the same seed gives the same stream on every
//! platform. `tests/suite/hot.rs` pins the first draws; the unit tests here pin
//! the sampler's arithmetic against python3's.
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

use super::chacha::ChaCha8;
use crate::{limits, Error, Result};

/// The seed of the notebooks' workloads unless they say otherwise.
pub const DEFAULT_SEED: u64 = 2026;

fn check(keys: usize, s: f64) -> Result<()> {
    if keys == 0 {
        return Err(Error::NoKeys);
    }
    limits::check_hint("keys in a workload", keys as u128, limits::current().max_keys, "use fewer keys")?;
    check_s(s)
}

fn check_s(s: f64) -> Result<()> {
    if !(s.is_finite() && s >= 0.0) {
        return Err(Error::BadNumber {
            what: "Zipf exponent s =",
            value: s.to_string(),
            expected: "a finite number ≥ 0",
            hint: "use 0 for uniform requests, about 1 for a strong skew",
        });
    }
    Ok(())
}

/// The Zipf law over ranks `1 ..= n` with exponent `s`, sampled by
/// rejection from the continuous law (the algorithm of `rand_distr::Zipf`
/// 0.5, on `libm`'s functions).
///
/// Near `s = 1` that algorithm's formulas divide by `1 − s`: its total
/// `(n^(1−s) − s) / (1 − s)` and its inverse `(p·t·(1−s) + s)^(1/(1−s))`
/// subtract numbers that agree in almost every bit, and at `1 − s` of a
/// few units in the last place (`0.1` added ten times is `1 − 2^−53`) they
/// are garbage. Within [`NEAR_ONE`] of 1 the same two quantities are
/// computed in a form that loses nothing there, with `ε = 1 − s`: the total
/// `1 + expm1(ε·ln n) / ε` and the inverse `exp(log1p((p·t − 1)·ε) / ε)`,
/// which tend to `1 + ln n` and `exp(p·t − 1)`, the formulas at `s = 1`.
/// Outside the band the published formulas are kept bit for bit, so every
/// seeded stream there is unchanged.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ZipfLaw {
    s: f64,
    /// The continuous law's normalising total, `(n^(1−s) − s) / (1 − s)`,
    /// or `1 + ln n` at `s = 1`.
    t: f64,
    /// `1 / (1 − s)` (unused at and near `s = 1`).
    q: f64,
    /// `1 − s` within [`NEAR_ONE`] of 1 (the stable formulas), else 0.
    near: f64,
}

/// How close to 1 an exponent must be for [`ZipfLaw`]'s stable formulas.
/// There the published ones lose about `2^−53 / |1 − s|` of their value
/// (0.00000001% at `|1 − s| = 10^−6`); in the band the stable ones lose
/// nothing, and at its edge the two agree to 10 digits.
const NEAR_ONE: f64 = 1e-6;

impl ZipfLaw {
    /// `n ≥ 1`, `s ≥ 0` finite (checked by the caller).
    fn new(n: f64, s: f64) -> ZipfLaw {
        let eps = 1.0 - s;
        if s == 1.0 {
            ZipfLaw { s, t: 1.0 + libm::log(n), q: 0.0, near: 0.0 }
        } else if eps.abs() < NEAR_ONE {
            ZipfLaw { s, t: 1.0 + libm::expm1(eps * libm::log(n)) / eps, q: 0.0, near: eps }
        } else {
            let q = 1.0 / eps;
            ZipfLaw { s, t: (libm::pow(n, eps) - s) * q, q, near: 0.0 }
        }
    }

    /// The continuous law's inverse distribution function at `p` in [0, 1).
    fn inverse(&self, p: f64) -> f64 {
        let pt = p * self.t;
        if pt <= 1.0 {
            pt
        } else if self.near != 0.0 {
            libm::exp(libm::log1p((pt - 1.0) * self.near) / self.near)
        } else if self.s != 1.0 {
            libm::pow(pt * (1.0 - self.s) + self.s, self.q)
        } else {
            libm::exp(pt - 1.0)
        }
    }

    /// One rank in `1 ..= n` (as a float) from uniform draws: `next` is
    /// called twice per attempt, first for the candidate, then to accept.
    fn sample(&self, mut next: impl FnMut() -> f64) -> f64 {
        loop {
            let inv = self.inverse(next());
            let x = libm::floor(inv + 1.0);
            let mut ratio = libm::pow(x, -self.s);
            if x > 1.0 {
                ratio *= libm::pow(inv, self.s);
            }
            if next() < ratio {
                return x;
            }
        }
    }
}

/// The endless request stream: each item is the index of the requested
/// key (0 is the hottest).
#[derive(Debug, Clone)]
pub struct ZipfStream {
    rng: ChaCha8,
    zipf: ZipfLaw,
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
        Ok(ZipfStream { rng: ChaCha8::seed_from_u64(seed), zipf: ZipfLaw::new(keys as f64, s), keys })
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
        let rng = &mut self.rng;
        // rand's StandardUniform f64, bit for bit: the top 53 bits of a u64,
        // times 2^−53 (exact)
        let x = self.zipf.sample(|| (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64));
        // x is an integer in [1, keys]; clamp guards the float edge
        (x as usize).clamp(1, self.keys) - 1
    }
}

/// The exact Zipf probabilities of the `keys` ranks, hottest first. Fails
/// as [`ZipfStream::new`] does.
pub fn zipf_probabilities(keys: usize, s: f64) -> Result<Vec<f64>> {
    check(keys, s)?;
    let w: Vec<f64> = (1..=keys).map(|r| libm::pow(r as f64, -s)).collect();
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
    /// [`Limits::max_requests`](limits::Limits::max_requests).
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::Workload;
    /// let w = Workload::zipf(10, 1.0, 100_000, 7)?;
    /// assert_eq!((w.keys(), w.requests(), w.counts().iter().sum::<u64>()), (10, 100_000, 100_000));
    /// // key i has rank i + 1: probability (1/(i + 1)) / H(10), H(10) = 1 + 1/2 + … + 1/10
    /// let h: f64 = (1..=10).map(|r| 1.0 / r as f64).sum();
    /// for i in [0, 1, 9] {
    ///     let p = 1.0 / (i as f64 + 1.0) / h;
    ///     assert!((w.share(i) - p).abs() < 5.0 * (p * (1.0 - p) / 100_000.0).sqrt()); // 5 sd
    /// }
    /// assert_eq!(w.counts(), Workload::zipf(10, 1.0, 100_000, 7)?.counts()); // same seed, same draws
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn zipf(keys: usize, s: f64, requests: u64, seed: u64) -> Result<Workload> {
        let mut stream = ZipfStream::new(keys, s, seed)?;
        if requests == 0 {
            return Err(Error::OutOfRange {
                what: "requests",
                given: "0".into(),
                allowed: "at least 1 (a million is plenty for 10 nodes)".into(),
            });
        }
        limits::check_hint(
            "requests drawn",
            u128::from(requests),
            limits::current().max_requests,
            "draw fewer requests",
        )?;
        let mut counts = vec![0u64; keys];
        for _ in 0..requests {
            counts[stream.draw()] += 1;
        }
        Ok(Workload { s, seed, requests, counts })
    }

    /// A workload from counts already made, one per key (`s` is recorded as
    /// given). Fails on no keys, more keys than
    /// [`Limits::max_keys`](limits::Limits::max_keys), no requests at all, a
    /// total over `u64::MAX`, or an `s` that is negative or not finite.
    ///
    /// ```
    /// use reshard::{Error, Workload};
    /// assert_eq!(Workload::from_counts(vec![3, 1], 1.0, 0)?.requests(), 4);
    /// let err = Workload::from_counts(vec![u64::MAX, 1], 1.0, 0).unwrap_err();
    /// assert!(matches!(err, Error::Overflow { .. }));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn from_counts(counts: Vec<u64>, s: f64, seed: u64) -> Result<Workload> {
        check(counts.len(), s)?;
        let requests = counts.iter().try_fold(0u64, |a, &c| a.checked_add(c)).ok_or(Error::Overflow {
            what: "the sum of the counts (all requests)",
            hint: "give counts that add up to at most 18,446,744,073,709,551,615",
        })?;
        if requests == 0 {
            return Err(Error::OutOfRange {
                what: "total of the request counts",
                given: "0".into(),
                allowed: "at least 1 request in all".into(),
            });
        }
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

#[cfg(test)]
mod tests {
    use super::{ZipfLaw, NEAR_ONE};

    /// The sampler on fixed uniforms `(37k mod 97) / 97`, k = 1, 2, …,
    /// against the same algorithm in python3 (`math.pow`, `math.log`,
    /// `math.exp`): eight draws each, and the normaliser `t`.
    #[test]
    fn sampler_matches_python() {
        let cases: [(f64, f64, f64, [u32; 8]); 5] = [
            (1000.0, 1.1, 5.988127663727275, [4, 1, 350, 37, 6, 619, 57, 9]),
            (100_000.0, 0.8, 45.99999999999998, [1487, 44, 64011, 16391, 2505, 120, 82417, 22784]),
            (100_000.0, 1.0, 12.512925464970229, [44, 3, 31318, 1612, 83, 5, 59691, 3072]),
            (10.0, 0.0, 10.0, [4, 2, 10, 7, 5, 2, 10, 8]),
            (50.0, 2.5, 1.6647810485835024, [1, 1, 3, 2, 1, 1, 5, 2]),
        ];
        for (n, s, t, want) in cases {
            let law = ZipfLaw::new(n, s);
            assert!((law.t - t).abs() <= 4.0 * f64::EPSILON * t, "t({n}, {s}) = {} vs python {t}", law.t);
            let mut us = (1..200u32).map(|k| f64::from(k * 37 % 97) / 97.0);
            let got: Vec<u32> = (0..8).map(|_| law.sample(|| us.next().unwrap()) as u32).collect();
            assert_eq!(got, want, "n = {n}, s = {s}");
        }
    }

    /// Near s = 1 the total and the inverse tend to the formulas at s = 1
    /// (`1 + ln n`, `exp(p·t − 1)`): exponents a few units in the last place
    /// from 1 (`0.1` added ten times is `1 − 2^−53`) and up to the band's
    /// edge, from both sides. The published formulas gave `t` = 0 or twice
    /// the right value there.
    #[test]
    fn near_one_the_law_is_the_law_at_one() {
        let n = 10.0_f64;
        let at_one = ZipfLaw::new(n, 1.0);
        let ten_tenths = (0..10).fold(0.0, |s, _| s + 0.1);
        assert_eq!(ten_tenths, 1.0 - f64::EPSILON / 2.0);
        for s in [ten_tenths, 1.0 + f64::EPSILON, 1.0 - 1e-15, 1.0 + 1e-15, 1.0 - 1e-9, 1.0 + 9.9e-7] {
            let law = ZipfLaw::new(n, s);
            // t(s) = 1 + ln n + (1 − s)·ln² n / 2 + …: within that of t(1)
            let slope = (1.0 - s).abs() * libm::log(n).powi(2);
            assert!((law.t - at_one.t).abs() <= slope + 1e-12, "t({s}) = {} vs {}", law.t, at_one.t);
            for p in [0.2, 0.5, 0.9, 0.999] {
                let (a, b) = (law.inverse(p), at_one.inverse(p));
                assert!((a - b).abs() <= 1e-5 * b, "inverse({p}) at {s}: {a} vs {b}");
            }
        }
        // at the band's edge the two forms agree
        for s in [1.0 - NEAR_ONE, 1.0 + NEAR_ONE] {
            let stable = ZipfLaw { near: 1.0 - s, ..ZipfLaw::new(n, s) };
            let stable = ZipfLaw { t: 1.0 + libm::expm1((1.0 - s) * libm::log(n)) / (1.0 - s), ..stable };
            let published = ZipfLaw::new(n, s);
            assert!((stable.t - published.t).abs() < 1e-9 * published.t, "{s}: {} vs {}", stable.t, published.t);
            let (a, b) = (stable.inverse(0.9), published.inverse(0.9));
            assert!((a - b).abs() < 1e-9 * b, "{s}: {a} vs {b}");
        }
    }

    /// libm's functions against python3's values (printed with repr, the
    /// shortest string that reads back to the same double).
    #[test]
    fn libm_values() {
        // python3: math.pow(100000, -0.2), math.log(100000), math.exp(2.5), math.pow(7.3, 1.1)
        assert_eq!(libm::pow(100_000.0, -0.2), 0.09999999999999999);
        assert_eq!(libm::log(100_000.0), 11.512925464970229);
        assert_eq!(libm::exp(2.5), 12.182493960703473);
        assert_eq!(libm::pow(7.3, 1.1), 8.905435164394056);
    }
}
