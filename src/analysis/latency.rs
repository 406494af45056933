//! One shard's response time as a distribution: measured samples, or a
//! stated two-point law (fast, or slow with probability `p`).
//!
//! The distribution function is `F(t) = P(latency ≤ t)`: for samples the
//! empirical one, `F(t) = (samples ≤ t) / n`, computed as `count as f64 /
//! n as f64`; for [`Latency::two_point`] `0` below `fast`, `1 − p` from
//! `fast` up to `slow`, `1` from `slow` on.
//!
//! **Quantiles.** The `q`-quantile (`0 < q ≤ 1`) is the smallest value `t`
//! of the support (a sample, or `fast`/`slow`) with `F(t) ≥ q`: the lower
//! empirical quantile, with no interpolation (Hyndman and Fan's type 1).
//! For `n` samples sorted `x₁ ≤ … ≤ xₙ` that is `x⌈q·n⌉` — with `q·n`
//! compared in floating point as `F(t) ≥ q`, so the median of 4 samples is
//! the 2nd (`F = 0.5 ≥ 0.5`) and the p99 of 100 samples the 99th. The
//! answer is always a sample value.
//!
//! ```
//! use reshard::analysis::Latency;
//! let measured = Latency::from_samples(&[12.0, 3.0, 5.0, 5.0, 40.0])?;
//! assert_eq!((measured.cdf(5.0), measured.quantile(0.5)?, measured.quantile(0.99)?), (0.6, 5.0, 40.0));
//! let stated = Latency::two_point(10.0, 200.0, 0.01)?; // 10 ms, or 200 ms one time in a hundred
//! assert_eq!((stated.cdf(10.0), stated.quantile(0.99)?, stated.quantile(0.995)?), (0.99, 10.0, 200.0));
//! assert!(Latency::from_samples(&[1.0, f64::NAN]).is_err());
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::{limits, Error, PyRandom, Result};
use std::sync::Arc;

/// A latency distribution, in milliseconds. Cheap to clone (samples are
/// shared).
#[derive(Debug, Clone, PartialEq)]
pub struct Latency {
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// Sorted ascending, `-0.0` read as `0.0`.
    Samples(Arc<[f64]>),
    TwoPoint {
        fast: f64,
        slow: f64,
        p_slow: f64,
    },
}

/// `Ok` when `x` is a finite number of milliseconds ≥ 0.
pub(crate) fn check_ms(what: &'static str, x: f64) -> Result<f64> {
    if x.is_finite() && x >= 0.0 {
        Ok(x + 0.0)
    } else {
        Err(Error::BadNumber {
            what,
            value: x.to_string(),
            expected: "a finite number of milliseconds ≥ 0",
            hint: "give a time in milliseconds, e.g. 10.0",
        })
    }
}

/// `Ok` when `q` is a quantile level in `(0, 1]`.
pub(crate) fn check_q(q: f64) -> Result<()> {
    if q > 0.0 && q <= 1.0 {
        Ok(())
    } else {
        Err(Error::BadNumber {
            what: "quantile q =",
            value: q.to_string(),
            expected: "a share in (0, 1]",
            hint: "use 0.5 for the median, 0.99 for p99, 1.0 for the maximum",
        })
    }
}

/// Check a list of samples (of `shard`, if one of several) and sort it.
pub(crate) fn sorted_samples(samples: &[f64], shard: Option<usize>) -> Result<Arc<[f64]>> {
    if samples.is_empty() {
        return Err(Error::NoSamples { shard });
    }
    limits::check_hint(
        "latency samples held in memory",
        samples.len() as u128,
        limits::current().max_keys.min(u128::from(u32::MAX)),
        "give fewer samples (a sample of 100,000 pins p99 well)",
    )?;
    if let Some((index, x)) = samples.iter().enumerate().find(|(_, x)| !(x.is_finite() && **x >= 0.0)) {
        return Err(Error::BadSample { shard, index, value: x.to_string() });
    }
    let mut v: Vec<f64> = samples.iter().map(|x| x + 0.0).collect();
    v.sort_unstable_by(f64::total_cmp);
    Ok(v.into())
}

impl Latency {
    /// The empirical distribution of these samples (milliseconds, any
    /// order). Fails on an empty list ([`Error::NoSamples`]), a sample that
    /// is NaN, infinite or negative ([`Error::BadSample`], naming its
    /// position), and more samples than the limits allow.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::analysis::Latency;
    /// let samples = [12.0, 3.0, 5.0, 5.0, 40.0, 7.0, 9.0, 1.0];
    /// let l = Latency::from_samples(&samples)?;
    /// let mut sorted = samples;
    /// sorted.sort_by(f64::total_cmp);
    /// for q in [0.1, 0.25, 0.5, 0.9, 1.0] {
    ///     let rank = (q * 8.0_f64).ceil() as usize; // x⌈q·n⌉, counted from 1
    ///     assert_eq!(l.quantile(q)?, sorted[rank - 1]);
    /// }
    /// assert_eq!(l.cdf(5.0), 4.0 / 8.0); // 1, 3, 5, 5
    /// assert!(Latency::from_samples(&[]).is_err() && Latency::from_samples(&[-1.0]).is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn from_samples(samples: &[f64]) -> Result<Latency> {
        Ok(Latency { kind: Kind::Samples(sorted_samples(samples, None)?) })
    }

    pub(crate) fn from_sorted(samples: Arc<[f64]>) -> Latency {
        Latency { kind: Kind::Samples(samples) }
    }

    /// `fast_ms` with probability `1 − p_slow`, `slow_ms` with `p_slow`.
    /// Fails unless both are finite and ≥ 0 with `fast_ms ≤ slow_ms`, and
    /// `p_slow` is in `[0, 1]` ([`Error::BadNumber`]).
    pub fn two_point(fast_ms: f64, slow_ms: f64, p_slow: f64) -> Result<Latency> {
        let fast = check_ms("fast_ms", fast_ms)?;
        let slow = check_ms("slow_ms", slow_ms)?;
        if slow < fast {
            return Err(Error::BadNumber {
                what: "slow_ms",
                value: slow.to_string(),
                expected: "at least fast_ms",
                hint: "give the fast time first: two_point(fast_ms, slow_ms, p_slow)",
            });
        }
        if !(0.0..=1.0).contains(&p_slow) {
            return Err(Error::BadNumber {
                what: "p_slow",
                value: p_slow.to_string(),
                expected: "a probability in [0, 1]",
                hint: "use 0.01 for one slow response in a hundred",
            });
        }
        Ok(Latency { kind: Kind::TwoPoint { fast, slow, p_slow } })
    }

    /// `P(latency ≤ t)` (NaN for a NaN `t`).
    pub fn cdf(&self, t: f64) -> f64 {
        if t.is_nan() {
            return f64::NAN;
        }
        match &self.kind {
            Kind::Samples(s) => s.partition_point(|&x| x <= t) as f64 / s.len() as f64,
            Kind::TwoPoint { fast, slow, p_slow } => {
                if t < *fast {
                    0.0
                } else if t < *slow {
                    1.0 - p_slow
                } else {
                    1.0
                }
            }
        }
    }

    /// `P(latency > t)`, `1 − cdf(t)`.
    pub fn share_slower(&self, t: f64) -> f64 {
        1.0 - self.cdf(t)
    }

    /// The smallest value `t` of the support with `cdf(t) ≥ q` (see the
    /// module docs). Fails unless `0 < q ≤ 1`.
    pub fn quantile(&self, q: f64) -> Result<f64> {
        check_q(q)?;
        let support = self.support();
        let i = support.partition_point(|&t| self.cdf(t) < q);
        // cdf is 1 at the last value, so i is in range; the fallback is never taken
        Ok(support.get(i).or(support.last()).copied().unwrap_or(0.0))
    }

    /// The mean.
    pub fn mean(&self) -> f64 {
        match &self.kind {
            Kind::Samples(s) => s.iter().sum::<f64>() / s.len() as f64,
            Kind::TwoPoint { fast, slow, p_slow } => fast + p_slow * (slow - fast),
        }
    }

    /// The values with positive probability, ascending, each once.
    pub fn support(&self) -> Vec<f64> {
        match &self.kind {
            Kind::Samples(s) => {
                let mut v = s.to_vec();
                v.dedup();
                v
            }
            Kind::TwoPoint { fast, slow, p_slow } => {
                let mut v = Vec::with_capacity(2);
                if *p_slow < 1.0 {
                    v.push(*fast);
                }
                if *p_slow > 0.0 && slow > fast || *p_slow == 1.0 {
                    v.push(*slow);
                }
                v
            }
        }
    }

    /// The samples, sorted (`None` for a stated distribution).
    pub fn samples(&self) -> Option<&[f64]> {
        match &self.kind {
            Kind::Samples(s) => Some(s),
            Kind::TwoPoint { .. } => None,
        }
    }

    /// `(fast, slow, p_slow)` of a two-point distribution.
    pub fn two_point_parts(&self) -> Option<(f64, f64, f64)> {
        match self.kind {
            Kind::TwoPoint { fast, slow, p_slow } => Some((fast, slow, p_slow)),
            Kind::Samples(_) => None,
        }
    }

    /// In words: "10 ms, or 200 ms with p = 0.01", "1,000 samples, 3 to 250 ms".
    pub fn describe(&self) -> String {
        match &self.kind {
            Kind::TwoPoint { fast, slow, p_slow } => {
                format!("{} ms, or {} ms with p = {p_slow}", ms(*fast), ms(*slow))
            }
            Kind::Samples(s) => format!(
                "{} samples, {} to {} ms",
                crate::numbers::thousands(s.len() as u64),
                ms(s[0]),
                ms(s[s.len() - 1])
            ),
        }
    }

    /// One draw: a uniformly chosen sample, or slow when `random() < p`.
    pub(crate) fn draw(&self, rng: &mut PyRandom) -> f64 {
        match &self.kind {
            Kind::Samples(s) => s[rng.randbelow(s.len() as u32).unwrap_or(0) as usize],
            Kind::TwoPoint { fast, slow, p_slow } => {
                if rng.random() < *p_slow {
                    *slow
                } else {
                    *fast
                }
            }
        }
    }

    /// The shared samples, to tell copies of one distribution apart from
    /// another's.
    pub(crate) fn shared(&self) -> Option<&Arc<[f64]>> {
        match &self.kind {
            Kind::Samples(s) => Some(s),
            Kind::TwoPoint { .. } => None,
        }
    }
}

/// Milliseconds in words: Rust's shortest form of the number (`10`, `0.25`).
pub(crate) fn ms(x: f64) -> String {
    format!("{x}")
}
