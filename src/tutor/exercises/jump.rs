//! Exercise: jump consistent hash from the paper's loop (Lamping & Veach
//! 2014, figure 1), checked against the crate's [`jump_hash`](crate::jump_hash).
//!
//! The learner writes `fn jump(key: u64, buckets: u32) -> u32`: a 64-bit
//! linear congruential generator seeded with the key, and a walk that jumps
//! from bucket to bucket until the next jump would land at or beyond
//! `buckets`. [`jump_hash`] runs it on edge cases first (one bucket, key 0,
//! key `u64::MAX`, `u32::MAX` buckets, Guava's published values, a key on
//! which Guava's rounding and the paper's part ways), then on thousands of
//! pseudo-random (key, buckets) pairs, and reports the first pair where the
//! two answers differ.
//!
//! ```
//! use reshard::tutor::exercises;
//! // Lamping & Veach's loop, written out.
//! fn jump(mut key: u64, buckets: u32) -> u32 {
//!     let (mut b, mut j) = (-1i64, 0i64);
//!     while j < i64::from(buckets) {
//!         b = j;
//!         key = key.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(1);
//!         j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
//!     }
//!     b as u32
//! }
//! let report = exercises::jump_hash(jump);
//! assert!(report.passed(), "{report}");
//! ```

use crate::PyRandom;

use super::Report;

/// How many pseudo-random (key, buckets) pairs follow the edge cases.
const RANDOM_CASES: usize = 6_000;

/// Run the learner's `jump(key, buckets)` on edge cases and then thousands
/// of pseudo-random pairs (every `buckets` at least 1), against the crate's
/// [`jump_hash`](crate::jump_hash): ✓ with the count, or the first pair
/// where the answers differ, with both. A panic in `yours` (a `todo!()`)
/// counts as a difference.
pub fn jump_hash<F: FnMut(u64, u32) -> u32>(mut yours: F) -> Report {
    let inputs = cases();
    let expected = inputs.iter().filter_map(|&(key, buckets)| {
        // Every case has buckets ≥ 1, which the crate accepts.
        let b = crate::jump_hash(key, buckets).ok()?;
        Some((format!("jump({key}, {buckets})"), b))
    });
    Report::compare("jump hash", expected, |i| {
        let (key, buckets) = inputs[i];
        yours(key, buckets)
    })
}

/// The (key, buckets) pairs, edge cases first.
fn cases() -> Vec<(u64, u32)> {
    let mut c: Vec<(u64, u32)> = Vec::with_capacity(RANDOM_CASES + 64);
    // One bucket: every key lands in bucket 0.
    c.extend([(0, 1), (1, 1), (u64::MAX, 1)]);
    // Key 0 and the largest key, from few buckets to the most a u32 holds.
    for buckets in [2, 3, 10, 11, 100, 1_000_000, u32::MAX] {
        c.extend([(0, buckets), (u64::MAX, buckets)]);
    }
    // Guava's golden values (HashingTest): consistentHash(i, 100), i < 20,
    // and consistentHash(2201, 100_001) = 22_152.
    c.extend((0..20).map(|i| (i, 100)));
    c.push((2201, 100_001));
    // A key where Guava's division order rounds differently: the paper's
    // loop gives 63, Guava's 48.
    c.push((1_673_232_497_983_283_878, 64));
    // One key as the buckets grow one at a time (it moves only to the new one).
    c.extend((1..=40).map(|n| (0x9E37_79B9_7F4A_7C15, n)));
    let mut rng = PyRandom::new(2014);
    for i in 0..RANDOM_CASES {
        let key = rng.getrandbits(64).unwrap_or(0);
        let most: u32 = match i % 3 {
            0 => 16,
            1 => 100_000,
            _ => u32::MAX,
        };
        c.push((key, rng.randbelow(most).map_or(1, |b| b + 1)));
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    const MUL: u64 = 2_862_933_555_777_941_757;

    /// The paper's loop, written in the test (not the crate's).
    fn model(mut key: u64, buckets: u32) -> u32 {
        let (mut b, mut j) = (-1i64, 0i64);
        while j < i64::from(buckets) {
            b = j;
            key = key.wrapping_mul(MUL).wrapping_add(1);
            j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
        }
        b as u32
    }

    #[test]
    fn the_papers_loop_passes() {
        let r = jump_hash(model);
        assert!(r.passed(), "{r}");
        assert!(r.inputs() > RANDOM_CASES, "{r}");
    }

    #[test]
    fn the_cases_hold_guavas_published_values() {
        // HashingTest.testConsistentHash_correctness / golden values, typed in
        // from Guava's sources (outside this crate).
        let golden = [0, 55, 62, 8, 45, 59, 86, 97, 82, 59, 73, 37, 17, 56, 86, 21, 90, 37, 38, 83];
        for (i, want) in golden.into_iter().enumerate() {
            assert_eq!(model(i as u64, 100), want, "consistentHash({i}, 100)");
        }
        assert_eq!(model(2201, 100_001), 22_152);
        let c = cases();
        assert!(c.contains(&(2201, 100_001)) && (0..20).all(|i| c.contains(&(i, 100))));
        assert!(c.iter().all(|&(_, b)| b >= 1), "buckets 0 has no answer");
    }

    #[test]
    fn integer_division_fails_at_its_first_wrong_pair() {
        // (b + 1) · ⌊2^31 / (r + 1)⌋ in integers: the first case it gets
        // wrong (computed with python3 from the paper's loop) is key
        // u64::MAX with 10 buckets: the paper's loop gives 9, this one 8.
        let wrong = |mut key: u64, buckets: u32| -> u32 {
            let (mut b, mut j) = (-1i64, 0i64);
            while j < i64::from(buckets) {
                b = j;
                key = key.wrapping_mul(MUL).wrapping_add(1);
                j = (b + 1) * ((1i64 << 31) / ((key >> 33) + 1) as i64);
            }
            b as u32
        };
        let r = jump_hash(wrong);
        assert!(!r.passed(), "{r}");
        let d = r.difference().expect("a difference");
        assert_eq!(d.input, "jump(18446744073709551615, 10)", "{r}");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("8", "9"), "{r}");
    }

    #[test]
    fn b_where_j_belongs_fails_at_the_first_case() {
        // The loop tests the bucket it stands on instead of the next jump, so
        // it steps once too far: with one bucket and key 0 it answers 2^31.
        let wrong = |mut key: u64, buckets: u32| -> u32 {
            let (mut b, mut j) = (-1i64, 0i64);
            while b < i64::from(buckets) {
                b = j;
                key = key.wrapping_mul(MUL).wrapping_add(1);
                j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
            }
            b as u32
        };
        let r = jump_hash(wrong);
        let d = r.difference().expect("a difference");
        assert_eq!((d.input.as_str(), d.expected.as_str()), ("jump(0, 1)", "0"), "{r}");
        assert_eq!(d.yours, "2147483648", "{r}");
        assert_eq!(d.agreed_before, 0);
    }

    #[test]
    fn guavas_division_order_is_caught_by_its_edge_case() {
        // (b + 1) / ((r + 1) / 2^31): Guava's form; it parts from the paper
        // on 1,673,232,497,983,283,878 with 64 buckets (Guava's jar: 48).
        let guava = |mut key: u64, buckets: u32| -> u32 {
            let (mut b, mut j) = (-1i64, 0i64);
            while j < i64::from(buckets) {
                b = j;
                key = key.wrapping_mul(MUL).wrapping_add(1);
                j = ((b + 1) as f64 / (((key >> 33) + 1) as f64 / (1u64 << 31) as f64)) as i64;
            }
            b as u32
        };
        let d = jump_hash(guava).difference().cloned().expect("a difference");
        assert_eq!(d.input, "jump(1673232497983283878, 64)");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("48", "63"));
    }

    #[test]
    fn a_todo_stub_fails_without_panicking() {
        let r = jump_hash(|_, _| todo!("the paper's loop"));
        assert!(!r.passed());
        assert!(r.to_string().contains("jump(0, 1)"), "{r}");
    }
}
