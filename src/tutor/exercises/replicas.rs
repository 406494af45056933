//! Exercise: a key's replica set on the ring. Walk clockwise from the key's
//! hash, starting at the first point at or after it (past the last point,
//! back to the first), and keep the first `r` *distinct* nodes met: a node
//! whose point comes round again is skipped. When `r` is more than the
//! ring's nodes, the walk ends after one full turn with every node once.
//! This is [`Replicas`] for [`Ring`] (Dynamo's preference list).
//!
//! ```
//! use reshard::tutor::exercises::replica_set;
//! fn replicas(points: &[(u32, usize)], hash: u32, r: usize) -> Vec<usize> {
//!     let start = points.partition_point(|&(p, _)| p < hash);
//!     let mut set = Vec::new();
//!     for k in 0..points.len() {
//!         let node = points[(start + k) % points.len()].1;
//!         if set.len() < r && !set.contains(&node) {
//!             set.push(node);
//!         }
//!     }
//!     set
//! }
//! let report = replica_set(replicas);
//! assert!(report.passed(), "{report}");
//! ```

use super::Report;
use crate::schemes::replicas::Replicas;
use crate::schemes::{Key, Placement, Ring};
use crate::{md5_u128, HashWidth};

/// How many hashed keys each ring is checked on, after its edge cases.
const KEYS_PER_RING: usize = 1_000;

/// One input: a ring (by index), the key's hash, `r`, what the case is.
struct Case {
    ring: usize,
    hash: u32,
    r: usize,
    what: String,
}

/// The rings the check walks: (label, ring). Small ones first, so that the
/// first difference is easy to follow by hand.
fn rings() -> Vec<(String, Ring)> {
    let mut out = Vec::new();
    let specs: [(usize, usize); 4] = [(3, 1), (4, 3), (5, 40), (10, 150)];
    for (nodes, vnodes) in specs {
        let ring = Ring::new(nodes).and_then(|r| r.with_vnodes(vnodes));
        if let Ok(ring) = ring {
            out.push((format!("{nodes} nodes × {vnodes} point(s)"), ring));
        }
    }
    out
}

/// The ring's points as the learner gets them: (hash, node), in ring order.
fn points_of(ring: &Ring) -> Vec<(u32, usize)> {
    super::ring_points(ring.sorted32())
}

/// The crate's replica set for `hash` on `ring`: `min(r, nodes)` nodes.
fn crate_set(ring: &Ring, hash: u32, r: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(r);
    ring.fill_replicas(Key::from_hash(u128::from(hash), HashWidth::Bits32), r, &mut out);
    out.into_iter().map(|n| n as usize).collect()
}

/// The edge cases of one ring, then its hashed keys.
fn cases_for(ring: usize, points: &[(u32, usize)], nodes: usize) -> Vec<Case> {
    let r = 3.min(nodes);
    let mut out = Vec::new();
    let mut add = |hash: u32, r: usize, what: &str| out.push(Case { ring, hash, r, what: what.to_string() });
    let (first, last) = (points[0].0, points[points.len() - 1].0);
    // wrap-around: past the last point the walk starts again at the first
    if last < u32::MAX {
        add(last + 1, r, "just past the last point (wrap-around)");
        add(u32::MAX, r, "the top of the circle (wrap-around)");
    }
    add(last, r, "exactly on the last point");
    add(0, r, "hash 0");
    add(first, r, "exactly on the first point");
    // a walk that must skip a node whose points come one after the other
    if let Some(i) = (0..points.len()).find(|&i| points[i].1 == points[(i + 1) % points.len()].1) {
        add(points[i].0, r, "on a point followed by another point of the same node");
    }
    // exact hits and one past them, in the middle of the ring
    let mid = points.len() / 2;
    add(points[mid].0, r, "exactly on a point");
    add(points[mid].0.wrapping_add(1), r, "one past a point");
    add(points[mid].0, 1, "r = 1 (the owner alone)");
    add(points[mid].0, nodes, "r = the number of nodes (every node once)");
    add(last.wrapping_add(1), nodes, "r = the number of nodes, from the wrap-around");
    add(points[mid].0, nodes + 2, "r above the number of nodes (every node once)");
    for k in 0..KEYS_PER_RING {
        let hash = md5_u128(format!("key{k}").as_bytes()) as u32;
        add(hash, 1 + k % nodes, "key");
    }
    out
}

/// Check a learner's `replicas(points, hash, r)` against the crate's ring
/// ([`Replicas`] for [`Ring`], at 32 bits) on four rings (3 nodes × 1
/// point up to 10 nodes × 150 points): edge cases first (the wrap-around,
/// exact hits, consecutive points of one node, `r` = 1, `r` = the number
/// of nodes and above it), then 1,000 hashed keys per ring with `r` from 1
/// to the number of nodes. `points` is the ring's (hash, node) list sorted
/// by hash; the answer is the first `r` distinct nodes clockwise from the
/// first point at or after `hash`, owner first (every node once when `r`
/// is larger than the number of nodes).
pub fn replica_set<F>(mut learner: F) -> Report
where
    F: FnMut(&[(u32, usize)], u32, usize) -> Vec<usize>,
{
    let rings = rings();
    let points: Vec<Vec<(u32, usize)>> = rings.iter().map(|(_, r)| points_of(r)).collect();
    let cases: Vec<Case> = rings
        .iter()
        .enumerate()
        .filter(|(i, _)| !points[*i].is_empty())
        .flat_map(|(i, (_, ring))| cases_for(i, &points[i], ring.nodes().len()))
        .collect();
    let expected = cases.iter().map(|c| {
        let what = format!("{}, hash {} ({}), r = {}", rings[c.ring].0, c.hash, c.what, c.r);
        (what, crate_set(&rings[c.ring].1, c.hash, c.r))
    });
    Report::compare("replicas on the ring", expected, |i| {
        let c = &cases[i];
        learner(&points[c.ring], c.hash, c.r)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A right implementation, written apart from the crate's: a linear
    /// scan for the start, then the walk.
    fn model(points: &[(u32, usize)], hash: u32, r: usize) -> Vec<usize> {
        let start = points.iter().position(|&(p, _)| p >= hash).unwrap_or(0);
        let mut set: Vec<usize> = Vec::new();
        for k in 0..points.len() {
            let node = points[(start + k) % points.len()].1;
            if set.len() < r && !set.contains(&node) {
                set.push(node);
            }
        }
        set
    }

    #[test]
    fn the_model_passes_on_thousands_of_inputs() {
        let report = replica_set(model);
        assert!(report.passed(), "{report}");
        // 4 rings × 1,000 keys, plus at least 10 edge cases each
        assert!(report.inputs() >= 4 * (KEYS_PER_RING + 10), "{report}");
    }

    #[test]
    fn a_small_ring_by_hand() {
        // Three points of A (0), B (1), A (0) at 10, 20, 30: from 25, r = 2,
        // the walk meets A at 30, wraps to A at 10 (skipped), then B at 20.
        let points = [(10, 0), (20, 1), (30, 0)];
        assert_eq!(model(&points, 25, 2), vec![0, 1]);
        assert_eq!(model(&points, 20, 2), vec![1, 0]); // exactly on B's point
        assert_eq!(model(&points, 31, 5), vec![0, 1]); // past the top, every node once
    }

    #[test]
    fn not_skipping_repeats_fails_where_a_node_comes_round_again() {
        let repeats = |points: &[(u32, usize)], hash: u32, r: usize| -> Vec<usize> {
            let start = points.iter().position(|&(p, _)| p >= hash).unwrap_or(0);
            (0..r).map(|k| points[(start + k) % points.len()].1).collect()
        };
        let report = replica_set(repeats);
        assert!(!report.passed());
        let d = report.difference().unwrap();
        // 3 nodes × 1 point repeat only when r is over 3; 4 nodes × 3 points
        // has the case "followed by another point of the same node".
        assert!(d.input.contains("r above the number of nodes") || d.input.contains("same node"), "{report}");
    }

    #[test]
    fn no_wrap_around_fails_just_past_the_last_point() {
        let no_wrap = |points: &[(u32, usize)], hash: u32, r: usize| -> Vec<usize> {
            let start = points.iter().position(|&(p, _)| p >= hash).unwrap_or(points.len());
            let mut set: Vec<usize> = Vec::new();
            for &(_, node) in &points[start..] {
                if set.len() < r && !set.contains(&node) {
                    set.push(node);
                }
            }
            set
        };
        let report = replica_set(no_wrap);
        assert!(!report.passed());
        assert!(report.difference().unwrap().input.contains("just past the last point (wrap-around)"), "{report}");
    }

    #[test]
    fn strictly_after_fails_on_an_exact_hit() {
        let after = |points: &[(u32, usize)], hash: u32, r: usize| -> Vec<usize> {
            let start = points.iter().position(|&(p, _)| p > hash).unwrap_or(0);
            model(&points[start..].iter().chain(&points[..start]).copied().collect::<Vec<_>>(), 0, r)
        };
        let report = replica_set(after);
        assert!(!report.passed());
        assert!(report.difference().unwrap().input.contains("exactly on the last point"), "{report}");
    }

    #[test]
    fn a_todo_stub_fails_without_a_crash() {
        let report = replica_set(|_: &[(u32, usize)], _: u32, _: usize| -> Vec<usize> { todo!() });
        assert!(!report.passed());
        assert!(report.to_string().contains("panicked"), "{report}");
    }
}
