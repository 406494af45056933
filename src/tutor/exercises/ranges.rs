//! Exercise (range sharding): which range holds a key?
//!
//! `k − 1` sorted boundaries `b1 < … < b(k−1)` cut the keys into `k`
//! ranges: range 0 is `[−∞, b1)`, range `i` is `[bi, b(i+1))`, the last is
//! `[b(k−1), +∞)`. Keys compare as byte strings, unsigned, as `memcmp`
//! does (`"ab" < "abc"`, and `0x80` is above `0x7f`). The learner writes
//! `fn range_of(boundaries: &[Vec<u8>], key: &[u8]) -> usize` — a binary
//! search, since a table may have millions of boundaries — and
//! [`range_of`] runs it beside the crate's
//! [`KeyRanges::range_of`](crate::KeyRanges::range_of): the edge cases first
//! (no boundaries, a key equal to a boundary, below the first and above the
//! last, the empty key, a key that is a prefix of a boundary and the other
//! way round, bytes ≥ 0x80, ten thousand boundaries), then thousands of
//! random boundary sets and keys.
//!
//! ```
//! use reshard::tutor::exercises;
//! fn range_of(boundaries: &[Vec<u8>], key: &[u8]) -> usize {
//!     // the number of boundaries at or below the key
//!     let (mut lo, mut hi) = (0, boundaries.len());
//!     while lo < hi {
//!         let mid = lo + (hi - lo) / 2;
//!         if boundaries[mid].as_slice() <= key {
//!             lo = mid + 1;
//!         } else {
//!             hi = mid;
//!         }
//!     }
//!     lo
//! }
//! let report = exercises::range_of(range_of);
//! assert!(report.passed(), "{report}");
//! ```

use super::Report;
use crate::keys::escape;
use crate::numbers::thousands;
use crate::schemes::KeyRanges;

const ALPHABET: [u8; 7] = [0x00, b'a', b'b', b'z', 0x7f, 0x80, 0xff];

/// How many random boundary sets follow the edge cases (each tried with
/// [`KEYS_PER_SET`] keys).
pub const RANDOM_SETS: usize = 3_000;
/// Keys tried on each random boundary set.
pub const KEYS_PER_SET: usize = 4;
/// Boundaries in the "many boundaries" edge cases.
const MANY: usize = 10_000;

/// One input: what it tests, the boundaries, the key.
struct Case {
    label: &'static str,
    bounds: Vec<Vec<u8>>,
    key: Vec<u8>,
}

fn case(label: &'static str, bounds: &[&[u8]], key: &[u8]) -> Case {
    Case { label, bounds: bounds.iter().map(|b| b.to_vec()).collect(), key: key.to_vec() }
}

/// The edge cases, in the order they are tried.
fn edge_cases() -> Vec<Case> {
    let gp: &[&[u8]] = &[b"g", b"p"];
    let mut cases = vec![
        case("no boundaries at all", &[], b"user:1"),
        case("no boundaries at all, the empty key", &[], b""),
        case("a key equal to a boundary", &[b"m"], b"m"),
        case("a key equal to the first boundary", gp, b"g"),
        case("a key equal to the last boundary", gp, b"p"),
        case("a key below the first boundary", gp, b"a"),
        case("a key above the last boundary", gp, b"z"),
        case("a key between two boundaries", gp, b"k"),
        case("the empty key", gp, b""),
        case("a key that is a prefix of a boundary", &[b"abc"], b"ab"),
        case("a boundary that is a prefix of the key", &[b"ab"], b"abc"),
        case("a byte ≥ 0x80 against 0x7f (bytes are unsigned)", &[b"\x7f"], b"\x80"),
        case("a byte ≥ 0x80 against 0x7f (bytes are unsigned)", &[b"\x80"], b"\x7f"),
        case("a byte ≥ 0x80 (bytes are unsigned)", &[b"a", b"\xff"], "é".as_bytes()),
        case("a key equal to a boundary of one zero byte", &[b"\x00"], b"\x00"),
    ];
    let many: Vec<Vec<u8>> = (0..MANY).map(|i| format!("k{i:05}").into_bytes()).collect();
    for key in ["j", "k00000", "k05000", "k05000\x00", "k04999~", "k09999", "k1"] {
        cases.push(Case { label: "many boundaries", bounds: many.clone(), key: key.as_bytes().to_vec() });
    }
    cases
}

/// Random boundary sets over bytes that make the edges likely (0x00, 0x7f,
/// 0x80, 0xff, short strings that are prefixes of each other), each with
/// keys: a random one, a boundary, a boundary with a byte more, and a
/// boundary with its last byte cut.
fn random_cases() -> Vec<Case> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64; // xorshift64*: the same cases every run
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    fn word(next: &mut dyn FnMut() -> u64) -> Vec<u8> {
        let len = 1 + (next() % 4) as usize;
        (0..len).map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize]).collect()
    }
    let mut cases = Vec::with_capacity(RANDOM_SETS * KEYS_PER_SET);
    for _ in 0..RANDOM_SETS {
        let count = (next() % 30) as usize;
        let mut bounds: Vec<Vec<u8>> = (0..count).map(|_| word(&mut next)).collect();
        bounds.sort();
        bounds.dedup();
        let pick = |r: u64| bounds.get((r % bounds.len().max(1) as u64) as usize).cloned().unwrap_or_default();
        let boundary = pick(next());
        let mut longer = pick(next());
        longer.push(ALPHABET[(next() % ALPHABET.len() as u64) as usize]);
        let mut shorter = pick(next());
        shorter.pop();
        for key in [word(&mut next), boundary, longer, shorter] {
            cases.push(Case { label: "random boundaries", bounds: bounds.clone(), key });
        }
    }
    cases
}

/// An input as the report names it: `boundaries ["g", "p"], key "g"
/// (a key equal to the first boundary)`.
fn describe(c: &Case) -> String {
    let q = |b: &[u8]| format!("\"{}\"", escape(b));
    let bounds = match c.bounds.len() {
        0 => "no boundaries".to_string(),
        n if n <= 6 => format!("boundaries [{}]", c.bounds.iter().map(|b| q(b)).collect::<Vec<_>>().join(", ")),
        n => format!("{} boundaries ({} … {})", thousands(n as u64), q(&c.bounds[0]), q(&c.bounds[n - 1])),
    };
    format!("{bounds}, key {} ({})", q(&c.key), c.label)
}

/// Check the learner's `range_of` against the crate's on the edge cases,
/// then on [`RANDOM_SETS`] random boundary sets with [`KEYS_PER_SET`] keys
/// each. A panic in `yours` is reported as the difference (see
/// [`Report::compare`]).
pub fn range_of<F: Fn(&[Vec<u8>], &[u8]) -> usize>(yours: F) -> Report {
    let cases: Vec<Case> = edge_cases().into_iter().chain(random_cases()).collect();
    let expected = cases.iter().map(|c| {
        let answer = KeyRanges::new(1).and_then(|r| r.with_boundaries(&c.bounds)).map(|r| r.range_of(&c.key));
        (describe(c), answer.unwrap_or(usize::MAX))
    });
    Report::compare("range_of by binary search", expected, |i| yours(&cases[i].bounds, &cases[i].key))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, written as a count: the boundaries at or below the key.
    fn count(bounds: &[Vec<u8>], key: &[u8]) -> usize {
        bounds.iter().filter(|b| b.as_slice() <= key).count()
    }

    #[test]
    fn the_definition_passes_on_every_input() {
        let r = range_of(count);
        assert!(r.passed(), "{r}");
        assert_eq!(r.inputs(), edge_cases().len() + RANDOM_SETS * KEYS_PER_SET);
    }

    #[test]
    fn every_random_set_is_a_valid_table() {
        for c in random_cases() {
            assert!(KeyRanges::new(1).unwrap().with_boundaries(&c.bounds).is_ok(), "{}", describe(&c));
        }
    }

    #[test]
    fn strictly_below_instead_of_at_or_below_fails_at_a_key_equal_to_a_boundary() {
        let r = range_of(|bounds, key| bounds.partition_point(|b| b.as_slice() < key));
        let d = r.difference().expect("an off-by-one at a boundary must be caught");
        assert_eq!(d.input, "boundaries [\"m\"], key \"m\" (a key equal to a boundary)");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("0", "1"));
        assert!(r.to_string().contains("a key equal to a boundary"), "{r}");
    }

    #[test]
    fn signed_bytes_fail_at_the_first_byte_above_0x7f() {
        let signed = |a: &[u8], b: &[u8]| a.iter().map(|&x| x as i8).cmp(b.iter().map(|&x| x as i8));
        let r = range_of(|bounds, key| bounds.partition_point(|b| signed(b, key).is_le()));
        let d = r.difference().expect("a signed comparison must be caught");
        assert_eq!(d.input, "boundaries [\"\\x7f\"], key \"\\x80\" (a byte ≥ 0x80 against 0x7f (bytes are unsigned))");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("0", "1"));
    }

    #[test]
    fn an_index_out_of_bounds_is_a_difference_not_a_crash() {
        let r = range_of(|bounds, _| bounds[0].len());
        assert!(r.to_string().contains("panicked"), "{r}");
        assert!(r.to_string().contains("no boundaries at all"), "{r}");
    }

    #[test]
    fn comparing_only_the_first_byte_fails_at_a_prefix() {
        let r = range_of(|bounds, key| bounds.partition_point(|b| b.first() <= key.first()));
        let d = r.difference().expect("comparing the first byte alone must be caught");
        assert!(d.input.contains("prefix"), "{}", d.input);
    }
}
