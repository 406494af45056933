//! Exercise (range sharding): which range holds a key?
//!
//! `k − 1` sorted boundaries `b1 < … < b(k−1)` cut the keys into `k`
//! ranges: range 0 is `[−∞, b1)`, range `i` is `[bi, b(i+1))`, the last is
//! `[b(k−1), +∞)`. Keys compare as byte strings, unsigned, as `memcmp`
//! does (`"ab" < "abc"`, and `0x80` is above `0x7f`). The learner writes
//! `fn range_of(boundaries: &Boundaries, key: &[u8]) -> usize`, where
//! [`Boundaries`] gives the number of boundaries and compares one of them
//! with the key ([`Boundaries::compare`]), counting every comparison. A
//! table may hold millions of ranges, so a router must not look at each:
//! [`range_of`] runs the learner's function beside the crate's answer on the
//! edge cases first (no boundaries, a key equal to a boundary, below the
//! first and above the last, the empty key, a key that is a prefix of a
//! boundary and the other way round, bytes ≥ 0x80, ten thousand boundaries),
//! then thousands of random boundary sets and keys, and refuses a right
//! answer found with more than ⌈log₂(n + 1)⌉ + 1 comparisons on `n`
//! boundaries ([`max_comparisons`]), saying how many it took. The
//! boundaries' bytes are not handed out, so the answer cannot come from
//! the crate's own router ([`KeyRanges::range_of`](crate::KeyRanges::range_of))
//! either.
//!
//! ```
//! use reshard::tutor::exercises::{self, Boundaries};
//! use std::cmp::Ordering;
//! fn range_of(boundaries: &Boundaries, key: &[u8]) -> usize {
//!     // the number of boundaries at or below the key, found by halving
//!     let (mut lo, mut hi) = (0, boundaries.len());
//!     while lo < hi {
//!         let mid = lo + (hi - lo) / 2;
//!         match boundaries.compare(mid, key) {
//!             Ordering::Less | Ordering::Equal => lo = mid + 1,
//!             Ordering::Greater => hi = mid,
//!         }
//!     }
//!     lo
//! }
//! let b = Boundaries::new(["g", "p"])?;
//! assert_eq!((range_of(&b, b"a"), range_of(&b, b"g"), range_of(&b, b"z")), (0, 1, 2));
//! let report = exercises::range_of(range_of);
//! assert!(report.passed(), "{report}");
//! // a count of every boundary at or below the key is right, and refused
//! let linear = exercises::range_of(|b: &Boundaries, key: &[u8]| (0..b.len()).filter(|&i| b.compare(i, key).is_le()).count());
//! assert!(!linear.passed() && linear.to_string().contains("comparisons"), "{linear}");
//! # Ok::<(), reshard::Error>(())
//! ```

use super::properties::catch_quietly;
use super::{clip, Difference, Report};
use crate::keys::escape;
use crate::numbers::thousands;
use crate::schemes::KeyRanges;
use crate::Result;
use std::cell::Cell;
use std::cmp::Ordering;
use std::fmt;

/// A range table's boundaries as a learner's `range_of` gets them: how many there are, and one
/// comparison at a time, each counted. The bytes themselves are not handed out.
///
/// ```
/// use reshard::tutor::exercises::Boundaries;
/// use std::cmp::Ordering;
/// let b = Boundaries::new(["g", "p"])?;
/// assert_eq!(b.len(), 2);
/// assert_eq!(b.compare(0, b"k"), Ordering::Less); // "g" is below "k"
/// assert_eq!(b.compare(1, b"p"), Ordering::Equal);
/// assert_eq!(b.comparisons(), 2);
/// # Ok::<(), reshard::Error>(())
/// ```
pub struct Boundaries {
    bounds: Vec<Vec<u8>>,
    compared: Cell<u64>,
}

impl Boundaries {
    /// Boundaries in strictly increasing byte order (as
    /// [`KeyRanges::with_boundaries`](crate::KeyRanges::with_boundaries) takes them, and refused
    /// as it refuses them).
    pub fn new<I>(bounds: I) -> Result<Boundaries>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let bounds: Vec<Vec<u8>> = KeyRanges::new(1)?.with_boundaries(bounds)?.boundaries().to_vec();
        Ok(Boundaries { bounds, compared: Cell::new(0) })
    }

    /// How many boundaries there are (one fewer than the ranges).
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// True when there are none (one range holds every key).
    pub fn is_empty(&self) -> bool {
        self.bounds.is_empty()
    }

    /// Boundary `i` compared with `key`, as byte strings compare (unsigned bytes, a prefix
    /// first): `Less` when the boundary sorts below the key, `Equal`, or `Greater`. Each call
    /// counts as one comparison. Panics, as indexing a slice does, when `i` is not below
    /// [`len`](Boundaries::len).
    pub fn compare(&self, i: usize, key: &[u8]) -> Ordering {
        let Some(b) = self.bounds.get(i) else {
            panic!(
                "boundary {i} asked of {} boundaries (0 to {})",
                self.bounds.len(),
                self.bounds.len().saturating_sub(1)
            )
        };
        self.compared.set(self.compared.get() + 1);
        b.as_slice().cmp(key)
    }

    /// The comparisons made so far.
    pub fn comparisons(&self) -> u64 {
        self.compared.get()
    }
}

impl fmt::Debug for Boundaries {
    /// The count and the comparisons, not the bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Boundaries").field("len", &self.len()).field("comparisons", &self.comparisons()).finish()
    }
}

/// The most comparisons a lookup among `n` boundaries may take: ⌈log₂(n + 1)⌉ + 1. A binary
/// search halves the `n + 1` possible answers with each comparison, so ⌈log₂(n + 1)⌉ suffice;
/// the one more allows a first look at an end.
///
/// ```
/// use reshard::tutor::exercises::ranges::max_comparisons;
/// assert_eq!((max_comparisons(0), max_comparisons(1), max_comparisons(10_000)), (1, 2, 15));
/// ```
pub fn max_comparisons(n: usize) -> u64 {
    let answers = n as u128 + 1;
    let mut bits = 0u64;
    while (1u128 << bits) < answers {
        bits += 1;
    }
    bits + 1
}

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

/// The answer: how many boundaries are at or below the key (the crate's router,
/// [`KeyRanges::range_of`], answers the same; a unit test checks it on every input).
fn reference(bounds: &[Vec<u8>], key: &[u8]) -> usize {
    bounds.partition_point(|b| b.as_slice() <= key)
}

/// Check the learner's `range_of` on the edge cases, then on [`RANDOM_SETS`] random boundary
/// sets with [`KEYS_PER_SET`] keys each: each answer against the crate's, and each lookup's
/// comparisons against [`max_comparisons`]. A right answer found with more comparisons is
/// refused, with the count and the bound; a panic in `yours` is reported as the difference
/// (see [`Report::compare`]). A report that passes says the most comparisons a lookup took.
pub fn range_of<F: Fn(&Boundaries, &[u8]) -> usize>(yours: F) -> Report {
    const TITLE: &str = "range_of by binary search";
    let cases: Vec<Case> = edge_cases().into_iter().chain(random_cases()).collect();
    let (mut most, mut most_on_many) = (0u64, 0u64);
    for (i, c) in cases.iter().enumerate() {
        let expected = reference(&c.bounds, &c.key);
        let b = Boundaries { bounds: c.bounds.clone(), compared: Cell::new(0) };
        let answer = match catch_quietly(|| yours(&b, &c.key)) {
            Ok(v) if v == expected => v,
            wrong => {
                let yours = match wrong {
                    Ok(v) => v.to_string(),
                    Err(message) => clip(format!("panicked: {message}")),
                };
                let d = Difference {
                    input: describe(c),
                    yours,
                    expected: expected.to_string(),
                    agreed_before: i,
                    why: None,
                    hint: None,
                };
                return Report { title: TITLE.into(), inputs: i + 1, difference: Some(d), note: None };
            }
        };
        let (used, limit) = (b.comparisons(), max_comparisons(c.bounds.len()));
        if used > limit {
            let n = c.bounds.len();
            return Report::rejected(
                TITLE,
                i + 1,
                describe(c),
                format!(
                    "your answer, {}, is right, but it took {} comparisons",
                    thousands(answer as u64),
                    thousands(used)
                ),
                format!(
                    "a binary search of {} boundaries needs at most {limit} (⌈log₂({})⌉ + 1): compare the key with \
                     the middle boundary and keep the half that holds it, since a table can hold millions of ranges",
                    thousands(n as u64),
                    thousands(n as u64 + 1)
                ),
            );
        }
        most = most.max(used);
        if c.label == "many boundaries" {
            most_on_many = most_on_many.max(used);
        }
    }
    let note = format!(
        "at most {most} comparisons a lookup, {most_on_many} on {} boundaries, where a binary search's bound is {}",
        thousands(MANY as u64),
        max_comparisons(MANY)
    );
    Report { title: TITLE.into(), inputs: cases.len(), difference: None, note: Some(note) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A binary search over the counted comparisons: the model solution.
    fn binary(b: &Boundaries, key: &[u8]) -> usize {
        let (mut lo, mut hi) = (0, b.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if b.compare(mid, key).is_le() {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The definition, written as a count: every boundary at or below the key.
    fn count(b: &Boundaries, key: &[u8]) -> usize {
        (0..b.len()).filter(|&i| b.compare(i, key).is_le()).count()
    }

    #[test]
    fn a_binary_search_passes_on_every_input_and_the_note_says_how_many_comparisons() {
        let r = range_of(binary);
        assert!(r.passed(), "{r}");
        assert_eq!(r.inputs(), edge_cases().len() + RANDOM_SETS * KEYS_PER_SET);
        let shown = r.to_string();
        assert!(
            shown.contains("comparisons a lookup, 14 on 10,000 boundaries, where a binary search's bound is 15"),
            "{shown}"
        );
        assert!(shown.lines().all(|l| l.chars().count() <= 100), "{shown}");
    }

    #[test]
    fn the_reference_is_the_crates_router_on_every_input() {
        for c in edge_cases().into_iter().chain(random_cases()) {
            let router = KeyRanges::new(1).unwrap().with_boundaries(&c.bounds).unwrap();
            assert_eq!(reference(&c.bounds, &c.key), router.range_of(&c.key), "{}", describe(&c));
        }
    }

    #[test]
    fn a_linear_count_is_right_and_refused_for_its_comparisons() {
        let r = range_of(count);
        assert!(!r.passed(), "{r}");
        let d = r.difference().unwrap();
        assert!(d.input.starts_with("10,000 boundaries"), "{}", d.input);
        let shown = r.to_string();
        assert!(
            shown.split_whitespace().collect::<Vec<_>>().join(" ").contains("is right, but it took 10,000 comparisons"),
            "{shown}"
        );
        let flat = shown.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("needs at most 15 (⌈log₂(10,001)⌉ + 1)"), "{shown}");
        assert!(shown.lines().skip(1).all(|l| l.chars().count() <= 100), "{shown}");
    }

    #[test]
    fn a_scan_that_stops_early_is_refused_too() {
        // from the bottom, stopping at the first boundary above the key: right, and O(n)
        let r =
            range_of(|b: &Boundaries, key: &[u8]| (0..b.len()).find(|&i| b.compare(i, key).is_gt()).unwrap_or(b.len()));
        let d = r.difference().expect("a scan must be refused");
        assert!(d.why.as_deref().is_some_and(|w| w.contains("binary search")), "{r}");
    }

    #[test]
    fn two_comparisons_a_step_are_within_the_bound_only_on_small_tables() {
        // `<` then `==` on each step: 2 per halving, so about 28 on 10,000 boundaries
        let r = range_of(|b: &Boundaries, key: &[u8]| {
            let (mut lo, mut hi) = (0, b.len());
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if b.compare(mid, key).is_lt() || b.compare(mid, key).is_eq() {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo
        });
        assert!(!r.passed(), "{r}");
    }

    #[test]
    fn every_random_set_is_a_valid_table() {
        for c in random_cases() {
            assert!(Boundaries::new(&c.bounds).is_ok(), "{}", describe(&c));
        }
    }

    #[test]
    fn strictly_below_instead_of_at_or_below_fails_at_a_key_equal_to_a_boundary() {
        let r = range_of(|b: &Boundaries, key: &[u8]| {
            let (mut lo, mut hi) = (0, b.len());
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if b.compare(mid, key).is_lt() {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo
        });
        let d = r.difference().expect("an off-by-one at a boundary must be caught");
        assert_eq!(d.input, "boundaries [\"m\"], key \"m\" (a key equal to a boundary)");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("0", "1"));
        assert!(r.to_string().contains("a key equal to a boundary"), "{r}");
    }

    #[test]
    fn an_index_out_of_bounds_is_a_difference_not_a_crash() {
        let r = range_of(|b: &Boundaries, key: &[u8]| b.compare(b.len(), key) as usize);
        assert!(r.to_string().contains("panicked: boundary 0 asked of 0 boundaries"), "{r}");
        assert!(r.to_string().contains("no boundaries at all"), "{r}");
    }

    #[test]
    fn a_search_off_by_one_at_the_top_fails_above_the_last_boundary() {
        let r = range_of(|b: &Boundaries, key: &[u8]| {
            let (mut lo, mut hi) = (0, b.len().saturating_sub(1)); // never answers len()
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if b.compare(mid, key).is_le() {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo
        });
        let d = r.difference().expect("the top range must be reachable");
        assert!(d.input.contains("a key equal to a boundary") || d.input.contains("above"), "{}", d.input);
    }

    #[test]
    fn boundaries_show_no_bytes_and_refuse_what_key_ranges_refuse() {
        let b = Boundaries::new(["secret-a", "secret-b"]).unwrap();
        let _ = b.compare(0, b"x");
        assert_eq!(format!("{b:?}"), "Boundaries { len: 2, comparisons: 1 }");
        assert!(Boundaries::new(["b", "a"]).is_err());
        assert!(Boundaries::new(["a", "a"]).is_err());
        assert!(Boundaries::new(Vec::<&str>::new()).unwrap().is_empty());
    }

    #[test]
    fn the_bound_is_log2_of_the_answers_plus_one() {
        for (n, want) in [(0, 1), (1, 2), (2, 3), (3, 3), (4, 4), (7, 4), (8, 5), (10_000, 15), (1 << 20, 22)] {
            assert_eq!(max_comparisons(n), want, "n = {n}");
        }
    }
}
