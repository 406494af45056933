//! Exercise (lab 04): a consistent bucket function of your own, graded on
//! what it must keep, not on matching one algorithm.
//!
//! The learner writes `fn bucket(key: u64, n: u32) -> Option<u32>` from
//! the idea of jump hash alone: buckets are the numbers `0 … n−1`, and as
//! the buckets go from `n` to `n + 1` a key moves to the new bucket `n`
//! with probability `1/(n + 1)`, else it stays. `key` is already a 64-bit
//! hash of the real key. With no buckets there is no answer: `n = 0` gives
//! `None` (the contract; the crate's [`jump_hash`](crate::jump_hash)
//! returns an error there). Any function that keeps the properties passes:
//! a loop over the steps with a generator seeded by the key, the paper's
//! jump hash, a highest-score (rendezvous) choice among the n buckets.
//!
//! [`consistent_bucket`] calls it on [`KEYS`] keys for every `n` from 0 to
//! [`MAX_N`] + 1, and on a few keys at [`LARGE_N`], and grades six
//! properties, each named in the report with its smallest counterexample
//! (the smallest `n`, and at that `n` the smallest key):
//!
//! 1. **no bucket when n = 0**: `bucket(key, 0)` is `None`;
//! 2. **in range**: for `n ≥ 1`, `bucket(key, n)` is `Some(b)` with `b < n`;
//! 3. **deterministic**: the same `(key, n)` asked again, in another order,
//!    gives the same answer;
//! 4. **moves only to the new bucket**: from `n` to `n + 1` buckets a key
//!    stays where it was or goes to bucket `n`, never to another old bucket;
//! 5. **moves about 1/(n + 1)**: the share of keys that move from `n` to
//!    `n + 1` buckets is within [`SDS`] standard deviations of `1/(n + 1)`;
//! 6. **balanced**: with `n` buckets each bucket holds a share of the keys
//!    within [`SDS`] standard deviations of `1/n`.
//!
//! The tolerance of 5 and 6: a share of `K` keys that each land somewhere
//! with probability `p` is a binomial count over `K`, whose standard
//! deviation is `√(p·(1 − p)/K)`; at `K` = 20,000 and `p` = 1/3 that is
//! 0.33 points, so the band is ± 1.67 points. A function whose choices are
//! truly random leaves a band of 5 sd with probability 5.7·10⁻⁷; the check
//! tests 525 shares (every bucket of n = 2 … 31, and 30 steps), so it
//! fails a correct function less than once in 3,000 (and then every time,
//! since the keys are fixed: another generator or seed fixes it).
//!
//! A panic in the learner's function is caught and reported as the answer
//! it gave (and not printed as well); a panic at some `n ≥ 1` leaves the
//! properties that need every answer (3–6) "not checked", which is not a
//! pass.
//!
//! ```
//! use reshard::tutor::exercises;
//! // The idea, step by step: going from m to m + 1 buckets, the key moves
//! // to bucket m with probability 1/(m + 1); the draws are the key's own.
//! fn bucket(key: u64, n: u32) -> Option<u32> {
//!     if n == 0 {
//!         return None;
//!     }
//!     let (mut state, mut b) = (key, 0);
//!     for m in 1..n {
//!         state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
//!         if ((state >> 11) as f64) / ((1u64 << 53) as f64) < 1.0 / f64::from(m + 1) {
//!             b = m;
//!         }
//!     }
//!     Some(b)
//! }
//! let report = exercises::consistent_bucket(bucket);
//! assert!(report.passed(), "{report}");
//! // The paper's jump hash keeps the same properties.
//! assert!(exercises::consistent_bucket(|key, n| reshard::jump_hash(key, n).ok()).passed());
//! // `hash % n` is in range, deterministic and balanced, but it moves keys between old buckets.
//! let modulo = exercises::consistent_bucket(|key, n| (n > 0).then(|| (key % u64::from(n)) as u32));
//! assert_eq!(modulo.failed(), ["moves only to the new bucket", "moves about 1/(n + 1)"]);
//! ```

use super::properties::{catch_quietly, Properties, Property};
use crate::hash::md5_u128;
use crate::numbers::thousands;
use crate::present::pct;

/// How many keys the check asks about at every `n` up to [`MAX_N`] + 1.
pub const KEYS: usize = 20_000;
/// Balance is checked for `n = 1 …` `MAX_N + 1`, movement for every step
/// `n → n + 1` with `n = 1 …` `MAX_N`.
pub const MAX_N: u32 = 30;
/// Large bucket counts, asked on the first [`LARGE_N_KEYS`] keys: in range,
/// deterministic, and 1,000 → 1,001 and 65,536 → 65,537 move keys only to
/// the new bucket (65,536 buckets do not fit in a `u16`).
pub const LARGE_N: [u32; 4] = [1_000, 1_001, 65_536, 65_537];
/// How many keys are asked about at [`LARGE_N`].
pub const LARGE_N_KEYS: usize = 10;
/// How many keys are asked again, in the other order, for determinism.
pub const REPEATED_KEYS: usize = 2_000;
/// The tolerance of a share, in binomial standard deviations.
pub const SDS: f64 = 5.0;

const NAMES: [&str; 6] = [
    "no bucket when n = 0",
    "in range",
    "deterministic",
    "moves only to the new bucket",
    "moves about 1/(n + 1)",
    "balanced",
];

/// The keys the check asks about, in ascending order: the first 8 bytes
/// of md5("key0") … md5("key19999"), read big-endian, as the lab's jump
/// hash reads its keys.
pub fn keys() -> Vec<u64> {
    let mut k: Vec<u64> = (0..KEYS).map(|i| (md5_u128(format!("key{i}").as_bytes()) >> 64) as u64).collect();
    k.sort_unstable();
    k
}

/// The keys `bucket(key, 0)` is asked about: 0, 1, the five smallest of
/// [`keys`] and `u64::MAX`, in ascending order.
fn zero_keys(keys: &[u64]) -> Vec<u64> {
    let mut z = vec![0, 1];
    z.extend(keys.iter().take(5));
    z.push(u64::MAX);
    z.sort_unstable();
    z.dedup();
    z
}

/// One answer: what the function returned, or a panic's message.
type Answer = Result<Option<u32>, String>;

fn ask<F: FnMut(u64, u32) -> Option<u32>>(bucket: &mut F, key: u64, n: u32) -> Answer {
    catch_quietly(|| bucket(key, n))
}

fn show(a: &Answer) -> String {
    match a {
        Ok(Some(b)) => format!("Some({b})"),
        Ok(None) => "None".to_string(),
        Err(m) => format!("a panic ({m})"),
    }
}

fn call(key: u64, n: u32) -> String {
    format!("bucket(0x{key:016x}, {n})")
}

/// A share against its expected value, with the band of [`SDS`] sd.
fn band(p: f64, of: usize) -> f64 {
    SDS * (p * (1.0 - p) / of as f64).sqrt()
}

/// Answers at one `n`, key by key (in the order of [`keys`]).
struct Row {
    n: u32,
    answers: Vec<Answer>,
}

/// Check a learner's `bucket(key, n)` on the six properties (see the module
/// documentation): ✓ per property that holds, or the property's name and
/// its smallest counterexample. A panic is caught and reported, never raised.
pub fn consistent_bucket<F: FnMut(u64, u32) -> Option<u32>>(mut bucket: F) -> Properties {
    let keys = keys();
    let title = format!(
        "bucket(key, n) on {} keys, n = 0 … {} ({} keys up to n = {})",
        thousands(KEYS as u64),
        MAX_N + 1,
        LARGE_N_KEYS,
        thousands(u64::from(LARGE_N[LARGE_N.len() - 1]))
    );
    let mut report = Properties::new(title);

    // 1. No bucket when n = 0.
    let zero = zero_keys(&keys);
    let mut first = Property::new(NAMES[0], "bucket(key, 0) is None: with no buckets there is no answer", "");
    for &k in &zero {
        let a = ask(&mut bucket, k, 0);
        if a != Ok(None) {
            first = first.fails(format!("{} = {}", call(k, 0), show(&a)));
            break;
        }
    }
    report = report.with(first);

    // The answers, n outer and key inner, so the first bad one found is the smallest (n, key).
    let mut rows: Vec<Row> = Vec::new();
    let mut panicked: Option<(u64, u32)> = None;
    'main: for n in 1..=MAX_N + 1 {
        let mut answers = Vec::with_capacity(keys.len());
        for &k in &keys {
            let a = ask(&mut bucket, k, n);
            if a.is_err() {
                panicked = Some((k, n));
                answers.push(a);
                rows.push(Row { n, answers });
                break 'main;
            }
            answers.push(a);
        }
        rows.push(Row { n, answers });
    }
    let few = &keys[..LARGE_N_KEYS.min(keys.len())];
    let mut large: Vec<Row> = Vec::new();
    'large: for n in LARGE_N {
        let mut answers = Vec::with_capacity(few.len());
        for &k in few {
            let a = ask(&mut bucket, k, n);
            let stop = a.is_err();
            answers.push(a);
            if stop {
                large.push(Row { n, answers });
                break 'large;
            }
        }
        large.push(Row { n, answers });
    }

    // 2. In range.
    let mut in_range = Property::new(NAMES[1], "for n ≥ 1, bucket(key, n) is Some(b) with b < n", "");
    'range: for row in rows.iter().chain(&large) {
        for (a, &k) in row.answers.iter().zip(&keys) {
            let bad = match a {
                Ok(Some(b)) if *b < row.n => continue,
                Ok(Some(_)) => format!("not below {}", row.n),
                Ok(None) => format!("but there are {} buckets", row.n),
                Err(_) => "instead of an answer".to_string(),
            };
            in_range = in_range.fails(format!("{} = {}, {bad}", call(k, row.n), show(a)));
            break 'range;
        }
    }
    report = report.with(in_range);

    let mut rest = [
        Property::new(NAMES[2], "the same (key, n) asked again, in another order, gives the same answer", ""),
        Property::new(NAMES[3], "from n to n + 1 buckets a key stays, or goes to bucket n", ""),
        Property::new(
            NAMES[4],
            format!("from n to n + 1 buckets, 1/(n + 1) of the keys move, give or take {SDS} sd"),
            "",
        ),
        Property::new(NAMES[5], format!("each of n buckets holds 1/n of the keys, give or take {SDS} sd"), ""),
    ];
    if let Some((k, n)) = panicked {
        let why = format!("{} panicked first (see in range)", call(k, n));
        for p in &mut rest {
            *p = p.clone().not_checked(why.clone());
        }
        for p in rest {
            report = report.with(p);
        }
        return report;
    }
    let [det, moves, share, balance] = rest;
    let det = deterministic(det, &mut bucket, &rows, &large, &keys);
    let moves = only_to_new(moves, rows.iter().chain(&large), &keys);
    let share = moved_share(share, &rows);
    let balance = balanced(balance, &rows);
    report.with(det).with(moves).with(share).with(balance)
}

/// Property 3: ask the first [`REPEATED_KEYS`] keys again, n from the largest down and keys from the
/// last, then the large n the same way; report the smallest (n, key) whose answer changed.
fn deterministic<F: FnMut(u64, u32) -> Option<u32>>(
    p: Property,
    bucket: &mut F,
    rows: &[Row],
    large: &[Row],
    keys: &[u64],
) -> Property {
    let mut changed: Option<(u32, u64, String)> = None;
    for row in rows.iter().rev().chain(large.iter().rev()) {
        let upto = row.answers.len().min(REPEATED_KEYS);
        for (i, first) in row.answers[..upto].iter().enumerate().rev() {
            let again = ask(bucket, keys[i], row.n);
            if &again != first {
                let case = (row.n, keys[i]);
                if changed.as_ref().is_none_or(|(n, k, _)| case < (*n, *k)) {
                    let text = format!(
                        "{} = {} the first time, {} when asked again",
                        call(keys[i], row.n),
                        show(first),
                        show(&again)
                    );
                    changed = Some((row.n, keys[i], text));
                }
                if again.is_err() {
                    return p.fails(changed.map(|c| c.2).unwrap_or_default());
                }
            }
        }
    }
    match changed {
        Some((_, _, text)) => p.fails(text),
        None => p,
    }
}

/// Property 4: every key, every step n → n + 1 in the table (consecutive rows): it stays or goes to n.
///
/// Answers out of range are the business of "in range" and are skipped here.
fn only_to_new<'a>(p: Property, rows: impl Iterator<Item = &'a Row>, keys: &[u64]) -> Property {
    let rows: Vec<&Row> = rows.collect();
    for pair in rows.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if b.n != a.n + 1 {
            continue;
        }
        for ((x, y), &k) in a.answers.iter().zip(&b.answers).zip(keys) {
            let (Ok(Some(x)), Ok(Some(y))) = (x, y) else { continue };
            if *x >= a.n || *y >= b.n || y == x || *y == a.n {
                continue;
            }
            return p.fails(format!(
                "key 0x{k:016x}, n = {} → {}: Some({x}) → Some({y}), a move between two old buckets",
                a.n, b.n
            ));
        }
    }
    p
}

/// Property 5: the share of keys whose answer differs between n and n + 1 buckets, against 1/(n + 1).
fn moved_share(p: Property, rows: &[Row]) -> Property {
    for pair in rows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let moved = a.answers.iter().zip(&b.answers).filter(|(x, y)| x != y).count();
        let of = a.answers.len();
        let (share, expected) = (moved as f64 / of as f64, 1.0 / f64::from(b.n));
        let tol = band(expected, of);
        if (share - expected).abs() > tol {
            return p.fails(format!(
                "{} → {} buckets: {} of the {} keys moved, 1/{} = {} ± {}",
                a.n,
                b.n,
                pct(share, 2),
                thousands(of as u64),
                b.n,
                pct(expected, 2),
                pct(tol, 2)
            ));
        }
    }
    p
}

/// Property 6: each row's buckets against 1/n: at the smallest n out of the band, the bucket farthest out.
fn balanced(p: Property, rows: &[Row]) -> Property {
    for row in rows {
        let n = row.n as usize;
        let mut counts = vec![0usize; n];
        for a in &row.answers {
            if let Ok(Some(b)) = a {
                if let Some(c) = counts.get_mut(*b as usize) {
                    *c += 1;
                }
            }
        }
        let of = row.answers.len();
        let expected = 1.0 / n as f64;
        let tol = band(expected, of);
        let worst = counts
            .iter()
            .enumerate()
            .map(|(b, &c)| (b, c as f64 / of as f64))
            .filter(|&(_, s)| (s - expected).abs() > tol)
            .max_by(|x, y| (x.1 - expected).abs().total_cmp(&(y.1 - expected).abs()));
        if let Some((b, s)) = worst {
            return p.fails(format!(
                "n = {n}: bucket {b} holds {} of the {} keys, 1/{n} = {} ± {}",
                pct(s, 2),
                thousands(of as u64),
                pct(expected, 2),
                pct(tol, 2)
            ));
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_are_md5_prefixes_sorted() {
        let k = keys();
        assert_eq!(k.len(), KEYS);
        assert!(k.windows(2).all(|w| w[0] < w[1]), "distinct and ascending");
        // python3: int(hashlib.md5(b"key0").hexdigest()[:16], 16)
        assert!(k.contains(&0x21f4_02f2_5b1a_0fd7));
    }

    #[test]
    fn the_tolerance_is_five_binomial_sd() {
        // p = 1/3, K = 20,000: √(p(1 − p)/K) = 0.003333…; 5 sd = 0.01667
        assert!((band(1.0 / 3.0, 20_000) - 0.016_667).abs() < 1e-5);
        // 525 shares: the buckets of n = 2 … 31 and the 30 steps
        let shares: u32 = (2..=MAX_N + 1).sum::<u32>() + MAX_N;
        assert_eq!(shares, 525);
    }
}
