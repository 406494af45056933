//! Exercise of lab 01: the ring's owner of a hash.
//!
//! The learner writes `fn ring_owner(points: &[(u32, usize)], hash: u32) -> usize`:
//! `points` are a ring's points in ring order (position on the 32-bit
//! circle, node index), sorted by position; the owner is the node of the
//! first point at or after `hash`, wrapping round to the first point when
//! `hash` is past the last one. [`ring_owner`] runs it against the crate's
//! own [`Ring`] lookup on several rings, edge cases first.
//!
//! ```
//! use reshard::tutor::exercises;
//! fn ring_owner(points: &[(u32, usize)], hash: u32) -> usize {
//!     let i = points.partition_point(|&(p, _)| p < hash);
//!     points[if i == points.len() { 0 } else { i }].1
//! }
//! assert!(exercises::ring_owner(ring_owner).passed());
//! ```

use super::Report;
use crate::schemes::ring::Sorted;
use crate::schemes::{letters, NodeId};
use crate::{md5_u128, Ring};

/// Keys `user:0` … hashed onto each ring after its edge cases.
const KEYS_PER_RING: usize = 1_500;

/// One ring of the check: its name, its node names and its points.
struct Case {
    name: String,
    nodes: Vec<String>,
    sorted: Sorted<u32>,
}

impl Case {
    fn from_ring(name: &str, ring: Option<Ring>) -> Option<Case> {
        let ring = ring?;
        let nodes = crate::Placement::nodes(&ring).to_vec();
        Some(Case { name: name.to_string(), nodes, sorted: ring.sorted32().clone() })
    }

    /// The points as the learner gets them: (position, node index), in ring order.
    fn points(&self) -> Vec<(u32, usize)> {
        super::ring_points(&self.sorted)
    }

    fn node(&self, n: NodeId) -> String {
        self.nodes.get(n as usize).map_or_else(|| format!("node {n}"), |s| format!("{n} ({s})"))
    }

    /// Edge cases first, then keys `user:i`: (what the hash is, the hash).
    fn hashes(&self) -> Vec<(String, u32)> {
        let h = &self.sorted.hashes;
        let last = h.len() - 1;
        let mut out = vec![("the bottom of the circle".to_string(), 0)];
        for i in (0..h.len().min(8)).chain((last >= 8).then_some(last)) {
            let p = h[i];
            out.push((format!("exactly on point {i}, of node {}", self.node(self.sorted.nodes[i])), p));
            out.push((format!("one before point {i}"), p.wrapping_sub(1)));
            if i < last {
                out.push((format!("one after point {i}"), p.wrapping_add(1)));
            }
        }
        out.push(("one past the last point: wraps round to the first".to_string(), h[last].wrapping_add(1)));
        out.push(("u32::MAX, the top of the circle".to_string(), u32::MAX));
        for i in 0..KEYS_PER_RING {
            let key = format!("user:{i}");
            out.push((format!("key {key:?}"), md5_u128(key.as_bytes()) as u32));
        }
        out
    }
}

/// The rings of the check: the lab's A,B,C with one point each, A,B,C,D
/// with 150, a salted 11-node ring, a one-point ring and a hand-made ring
/// with tied points at 0 and at `u32::MAX`.
fn cases() -> Vec<Case> {
    let named = |n: &str, v: usize| Ring::named(letters(n)).and_then(|r| r.with_vnodes(v)).ok();
    let big =
        crate::schemes::prefixed("S", 11).and_then(Ring::named).and_then(|r| r.with_vnodes(10)?.with_salt("7:")).ok();
    let mut out: Vec<Case> = [
        ("ring A,B,C, 1 point each", named("ABC", 1)),
        ("ring A,B,C,D, 150 points each", named("ABCD", 150)),
        ("ring S0…S10, 10 points each, salt \"7:\"", big),
        ("ring A alone, 1 point", named("A", 1)),
    ]
    .into_iter()
    .filter_map(|(name, ring)| Case::from_ring(name, ring))
    .collect();
    // Two points at one position: the first in ring order owns the hashes up to it.
    let tied = [(0, 2), (1_000, 1), (1_000, 0), (1_000, 3), (4_000_000_000, 1), (u32::MAX, 3)];
    out.push(Case {
        name: "hand-made ring, 3 points tied at 1000".into(),
        nodes: letters("ABCD"),
        sorted: Sorted { hashes: tied.iter().map(|p| p.0).collect(), nodes: tied.iter().map(|p| p.1).collect() },
    });
    out
}

/// Check the learner's `ring_owner(points, hash)` against the crate's ring
/// lookup (the first point at or after the hash, wrapping round), on five
/// rings: each ring's edge cases first (hash 0, a hash exactly on a point
/// and one either side of it, past the last point, `u32::MAX`, tied
/// points), then 1,500 keys `user:i`. Answers are node indices.
pub fn ring_owner<F>(mut yours: F) -> Report
where
    F: FnMut(&[(u32, usize)], u32) -> usize,
{
    let rings = cases();
    let points: Vec<Vec<(u32, usize)>> = rings.iter().map(Case::points).collect();
    let mut inputs: Vec<(usize, u32)> = Vec::new();
    let mut expected: Vec<(String, usize)> = Vec::new();
    for (r, case) in rings.iter().enumerate() {
        for (what, h) in case.hashes() {
            inputs.push((r, h));
            let label = format!("{}: hash {h} ({what})", case.name);
            expected.push((label, case.sorted.owner(h) as usize));
        }
    }
    Report::compare("the ring's owner (node index)", expected, |i| {
        let (r, h) = inputs[i];
        yours(&points[r], h)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written apart from the crate: a linear walk clockwise.
    fn walk(points: &[(u32, usize)], hash: u32) -> usize {
        points.iter().find(|p| p.0 >= hash).unwrap_or(&points[0]).1
    }

    fn model(points: &[(u32, usize)], hash: u32) -> usize {
        let i = points.partition_point(|&(p, _)| p < hash);
        points[if i == points.len() { 0 } else { i }].1
    }

    #[test]
    fn right_answers_pass_on_every_input() {
        for f in [walk, model] {
            let r = ring_owner(f);
            assert!(r.passed(), "{r}");
            assert!(r.inputs() > 5 * KEYS_PER_RING, "{r}");
        }
    }

    #[test]
    fn the_labs_ring_is_what_the_python_of_document_000_builds() {
        // python3: int(md5(b"C#0").hexdigest(), 16) % 2**32 and the same for B#0, A#0.
        let abc = &cases()[0];
        assert_eq!(abc.points(), vec![(567_359_856, 2), (1_021_159_618, 1), (3_555_415_914, 0)]);
    }

    #[test]
    fn wrapping_to_the_last_point_fails_past_the_last_point() {
        let wrong = |pts: &[(u32, usize)], h: u32| pts.iter().find(|p| p.0 >= h).unwrap_or(&pts[pts.len() - 1]).1;
        let r = ring_owner(wrong);
        let d = r.difference().expect("a wrong wrap-around must fail");
        assert!(d.input.starts_with("ring A,B,C, 1 point each: hash 3555415915 (one past the last point"), "{r}");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("0", "2"), "{r}");
    }

    #[test]
    fn strictly_after_fails_on_a_point() {
        let wrong = |pts: &[(u32, usize)], h: u32| pts.iter().find(|p| p.0 > h).unwrap_or(&pts[0]).1;
        let r = ring_owner(wrong);
        let d = r.difference().expect("`>` for `>=` must fail");
        assert!(d.input.contains("hash 567359856 (exactly on point 0, of node 2 (C))"), "{r}");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("1", "2"), "{r}");
    }

    #[test]
    fn any_of_tied_points_is_not_enough() {
        // binary_search may land on any of equal positions; the first in ring order owns the hash.
        let wrong = |pts: &[(u32, usize)], h: u32| match pts.binary_search_by_key(&h, |p| p.0) {
            Ok(i) => pts[i].1,
            Err(i) => pts[i % pts.len()].1,
        };
        let r = ring_owner(wrong);
        let d = r.difference().expect("ties must be broken by ring order");
        assert!(d.input.starts_with("hand-made ring, 3 points tied at 1000: hash 1000"), "{r}");
    }

    #[test]
    fn a_panic_is_a_difference() {
        let r = ring_owner(|_: &[(u32, usize)], _: u32| -> usize { todo!() });
        assert!(!r.passed());
        assert!(r.to_string().contains("hash 0 (the bottom of the circle)"), "{r}");
    }
}
