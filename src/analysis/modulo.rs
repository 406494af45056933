//! What `hash % N` moves, by arithmetic: a key keeps its place when
//! `h % old == h % new`. Among any `lcm(old, new)` consecutive hashes
//! exactly `min(old, new)` do, so for evenly spread hashes the share that
//! moves is `1 − min(old, new) / lcm(old, new)` ([`modulo_rule`]). The same
//! test, `h % a ≠ h % b`, counts the keys a shard-count change rewrites
//! ([`keys_changing_shard`]), and counts moves over more keys than fit in
//! memory ([`count_moved_streaming`]).
//!
//! ```
//! use reshard::analysis::modulo::{modulo_period, modulo_rule};
//! use reshard::{HashWidth, KeySet, Modulo, Movement};
//! let keys = KeySet::users(100_000).hashed(HashWidth::Bits32)?;
//! let m = Movement::measure(&keys, &Modulo::new(3)?, &Modulo::new(4)?)?;
//! assert_eq!(format!("{:.1}%", 100.0 * m.share()), "75.0%");
//! assert_eq!(modulo_period(3, 4)?, 12); // 3 of every 12 hashes stay
//! assert_eq!(modulo_rule(3, 4)?, 0.75);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::{HashedKeys, KeySet};
use crate::limits;
use crate::{Error, HashWidth, Result};
use rayon::prelude::*;

/// The share of keys that `hash % N` moves from `old` to `new` nodes for
/// evenly spread hashes: `1 − min(old, new) / lcm(old, new)`. Fails with
/// [`Error::NoNodes`] when either count is 0.
///
/// ```
/// use reshard::modulo_rule;
/// assert_eq!(modulo_rule(10, 20)?, 0.5);
/// assert!((modulo_rule(10, 11)? - 10.0 / 11.0).abs() < 1e-12);
/// assert_eq!(modulo_rule(7, 7)?, 0.0);
/// assert!(modulo_rule(0, 10).is_err());
/// # Ok::<(), reshard::Error>(())
/// ```
pub fn modulo_rule(old: usize, new: usize) -> Result<f64> {
    let period = modulo_period(old, new)?;
    Ok(1.0 - old.min(new) as f64 / period as f64)
}

/// `lcm(old, new)`: the run of consecutive hashes after which the pattern
/// of keys that stay repeats (exactly `min(old, new)` of them stay in each
/// run). Fails with [`Error::NoNodes`] when either count is 0.
///
/// ```
/// use reshard::analysis::modulo::modulo_period;
/// assert_eq!(modulo_period(10, 11)?, 110);
/// assert_eq!(modulo_period(1000, 2000)?, 2000);
/// // two usize counts never overflow the u128 it returns
/// assert_eq!(modulo_period(usize::MAX, usize::MAX - 1)?, (usize::MAX as u128) * (usize::MAX as u128 - 1));
/// # Ok::<(), reshard::Error>(())
/// ```
pub fn modulo_period(old: usize, new: usize) -> Result<u128> {
    if old == 0 || new == 0 {
        return Err(Error::NoNodes);
    }
    lcm(old as u128, new as u128)
        .ok_or(Error::Overflow { what: "lcm(old, new), over 2^128,", hint: "use smaller node counts" })
}

/// Greatest common divisor (`gcd(0, b) = b`).
fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Least common multiple of two positive numbers; `None` for a 0 or when
/// it is over `u128::MAX`.
fn lcm(a: u128, b: u128) -> Option<u128> {
    if a == 0 || b == 0 {
        return None;
    }
    (a / gcd(a, b)).checked_mul(b)
}

/// Keys whose shard id differs between `a` and `b` shards (`h % a` vs
/// `h % b`): the keys that must be rewritten into a new shard when the
/// shard count changes, even if they stay on the same node. Fails with
/// [`Error::ZeroShards`] when either count is 0.
///
/// ```
/// use reshard::analysis::modulo::keys_changing_shard;
/// use reshard::{HashWidth, KeySet};
/// let keys = KeySet::plain(10_000).hashed(HashWidth::Bits128)?;
/// let n = keys_changing_shard(&keys, 1000, 2000)?;
/// assert!((4_800..5_200).contains(&n)); // h % 2000 ≥ 1000 half the time
/// assert!(keys_changing_shard(&keys, 0, 7).is_err());
/// # Ok::<(), reshard::Error>(())
/// ```
pub fn keys_changing_shard(keys: &HashedKeys, a: usize, b: usize) -> Result<u64> {
    if a == 0 || b == 0 {
        return Err(Error::ZeroShards);
    }
    let (a, b) = (a as u128, b as u128);
    Ok(keys.hashes().iter().filter(|&&h| h % a != h % b).count() as u64)
}

/// Count, without storing any hash, the keys whose `hash % old` and
/// `hash % new` differ: memory stays flat however many keys there are
/// (used for the 100-million-key benchmark). Each key is hashed once, so
/// the md5 work is limited by
/// [`Limits::max_streamed`](crate::limits::Limits::max_streamed) (300
/// million short keys, about half a minute on two cores); more give
/// [`Error::TooLarge`] at once.
///
/// ```
/// use reshard::analysis::modulo::count_moved_streaming;
/// use reshard::{HashWidth, KeySet};
/// let moved = count_moved_streaming(&KeySet::users(1000), HashWidth::Bits32, 3, 4)?;
/// assert!(moved > 700 && moved < 800);
/// # Ok::<(), reshard::Error>(())
/// ```
pub fn count_moved_streaming(keys: &KeySet, width: HashWidth, old: usize, new: usize) -> Result<u64> {
    if keys.is_empty() {
        return Err(Error::NoKeys);
    }
    if old == 0 || new == 0 {
        return Err(Error::NoNodes);
    }
    limits::check_streamed(keys.len(), keys.byte_len())?;
    const BLOCK: usize = 1 << 16;
    let blocks = keys.len().div_ceil(BLOCK);
    let (o, n) = (old as u128, new as u128);
    Ok((0..blocks)
        .into_par_iter()
        .map(|b| {
            let mut w = keys.writer();
            let end = ((b + 1) * BLOCK).min(keys.len());
            let mut moved = 0u64;
            for i in b * BLOCK..end {
                let h = width.hash(w.key(i));
                moved += u64::from(h % o != h % n);
            }
            moved
        })
        .sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcd_and_lcm_never_panic() {
        // Python: math.gcd(12, 18), math.lcm(12, 18)
        assert_eq!((gcd(12, 18), lcm(12, 18)), (6, Some(36)));
        assert_eq!((gcd(0, 0), lcm(0, 0), lcm(0, 5)), (0, None, None));
        assert_eq!(lcm(u128::MAX, u128::MAX - 1), None);
        assert_eq!(lcm(u128::MAX, u128::MAX), Some(u128::MAX));
    }

    #[test]
    fn zero_counts_are_typed_errors() {
        assert_eq!(modulo_rule(0, 10), Err(Error::NoNodes));
        assert_eq!(modulo_rule(10, 0), Err(Error::NoNodes));
        assert_eq!(modulo_period(0, 0), Err(Error::NoNodes));
    }

    #[test]
    fn streaming_refuses_more_keys_than_the_limit() {
        let keys = KeySet::plain(limits::MAX_STREAMED as usize + 1);
        let err = count_moved_streaming(&keys, HashWidth::Bits32, 10, 11).unwrap_err();
        assert!(matches!(err, Error::TooLarge { .. }), "{err}");
    }
}
