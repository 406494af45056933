//! Exercise: the owner of a key under consistent hashing with bounded loads
//! (Mirrokni, Thorup & Zadimoghaddam), one key at a time.
//!
//! The learner writes
//! `fn(points: &[(u32, usize)], hash: u32, loads: &[usize], cap: usize) -> usize`:
//! `points` is the ring in ring order (sorted by hash, then node name, as
//! [`Ring::points`](crate::Ring::points) gives it), each a (32-bit position,
//! node index); `loads[node]` is how many keys each node holds so far; `cap`
//! is the most keys a node may hold. The answer is the node of the first
//! point at or after `hash`, wrapping past the top to the first point, whose
//! node holds fewer than `cap` keys.
//!
//! [`bounded_owner`] places keys in order with the crate's [`Bounded`] and
//! asks the learner's function about each key with the crate's loads so far
//! (so one wrong answer does not spoil the ones after it). The edge cases
//! come first: keys that hit a point exactly, keys past the last point (the
//! wrap-around), a full node skipped, every node but one full; then two
//! rings with thousands of keys, one of them with two points at the same
//! position (the tie goes to the point first in ring order).
//!
//! ```
//! use reshard::tutor::exercises::bounded_owner;
//! fn mine(points: &[(u32, usize)], hash: u32, loads: &[usize], cap: usize) -> usize {
//!     let start = points.partition_point(|&(p, _)| p < hash);
//!     (0..points.len())
//!         .map(|step| points[(start + step) % points.len()].1)
//!         .find(|&node| loads[node] < cap)
//!         .unwrap_or(usize::MAX)
//! }
//! assert!(bounded_owner(mine).passed());
//! ```

use crate::schemes::Placement;
use crate::tutor::exercises::Report;
use crate::{Bounded, HashWidth, HashedKeys, Result};

/// One question: which node gets this key, given the loads so far?
struct Case {
    ring: usize,
    hash: u32,
    loads: Vec<usize>,
    cap: usize,
    expected: usize,
    input: String,
}

/// The rings of the check, as the learner sees them: (position, node).
type Points = Vec<(u32, usize)>;

/// Check a learner's bounded-loads owner against the crate's [`Bounded`] on
/// 8,020 keys: 18 edge cases on a three-node ring first, then 3,002 keys on
/// 8 nodes × 10,000 points (two of which share a position) with ε = 0.1,
/// then 5,000 keys on 10 nodes with one point each and ε = 0.05. Prints the
/// first key placed differently, with both answers.
pub fn bounded_owner<F>(mut yours: F) -> Report
where
    F: FnMut(&[(u32, usize)], u32, &[usize], usize) -> usize,
{
    let title = "bounded_owner";
    let (rings, cases) = match cases() {
        Ok(built) => built,
        Err(_) => return Report::compare(title, Vec::<(String, usize)>::new(), |_| 0),
    };
    let expected: Vec<(String, usize)> = cases.iter().map(|c| (c.input.clone(), c.expected)).collect();
    Report::compare(title, expected, |i| {
        let c = &cases[i];
        yours(&rings[c.ring], c.hash, &c.loads, c.cap)
    })
}

/// The three rings and every case, in order.
fn cases() -> Result<(Vec<Points>, Vec<Case>)> {
    let mut rings = Vec::new();
    let mut cases = Vec::new();
    let edge = Bounded::named(["A", "B", "C"])?.with_epsilon(0.1)?;
    let keys = HashedKeys::from_keys(edge_keys(&edge)?, HashWidth::Bits32)?;
    place(&mut rings, &mut cases, "A, B, C, 1 point each, ε = 0.1", &edge, &keys)?;
    let tie = Bounded::new(8)?.with_vnodes(10_000)?.with_epsilon(0.1)?;
    // "2#2606" and "6#9670" are points of nodes 2 and 6, both at 0xDFD4_FD2A
    // (md5's low 32 bits): a key named like a point sits exactly on it.
    let named = ["2#2606".to_string(), "6#9670".to_string()];
    let keys =
        HashedKeys::from_keys(named.into_iter().chain((0..3_000).map(|i| format!("key{i}"))), HashWidth::Bits32)?;
    place(&mut rings, &mut cases, "8 nodes, 10,000 points each, ε = 0.1", &tie, &keys)?;
    let ten = Bounded::new(10)?.with_epsilon(0.05)?;
    let keys = HashedKeys::from_keys((0..5_000).map(|i| format!("user:{i}")), HashWidth::Bits32)?;
    place(&mut rings, &mut cases, "10 nodes, 1 point each, ε = 0.05", &ten, &keys)?;
    Ok((rings, cases))
}

/// Place `keys` with the crate and record one case per key.
fn place(rings: &mut Vec<Points>, cases: &mut Vec<Case>, name: &str, b: &Bounded, keys: &HashedKeys) -> Result<()> {
    let points: Points = super::ring_points(b.ring().sorted32());
    let owners = b.assign(keys);
    let cap = usize::try_from(b.capacity(keys.len())).unwrap_or(usize::MAX);
    let mut loads = vec![0usize; b.nodes().len()];
    for (i, (&h, &owner)) in keys.hashes().iter().zip(&owners).enumerate() {
        let loads_shown = if loads.len() <= 10 { format!("{loads:?}") } else { "…".to_string() };
        cases.push(Case {
            ring: rings.len(),
            hash: h as u32,
            loads: loads.clone(),
            cap,
            expected: owner as usize,
            input: format!(
                "{name}: key {:?} (#{i}, hash {:#010x}), loads {loads_shown}, cap {cap}",
                keys.keys().get(i).unwrap_or_default(),
                h as u32
            ),
        });
        loads[owner as usize] += 1;
    }
    rings.push(points);
    Ok(())
}

/// 18 keys for the ring of A, B and C (ε = 0.1, so the cap is ⌈1.1 · 18 / 3⌉ = 7), in this order:
/// a key on each point exactly (the last point first), keys past the last point until the
/// first point's node is full, three more past the last point (they skip it), keys at or
/// before the first point until the second point's node is full too, then keys that only
/// the third node can take (past the last point, and in the first two arcs).
fn edge_keys(b: &Bounded) -> Result<Vec<String>> {
    const KEYS: usize = 18;
    let pts = b.ring().points(HashWidth::Bits32);
    let names = b.nodes();
    let name_of = |i: usize| names[pts[i].node as usize].clone();
    let (first, last) = (pts[0].hash, pts[pts.len() - 1].hash);
    let second = pts[1.min(pts.len() - 1)].hash;
    let pool: Vec<String> = (0..400).map(|i| format!("edge:{i}")).collect();
    let hashed = HashedKeys::from_keys(&pool, HashWidth::Bits32)?;
    let pick = |want: &dyn Fn(u128) -> bool| -> Vec<String> {
        pool.iter().zip(hashed.hashes()).filter(|&(_, &h)| want(h)).map(|(k, _)| k.clone()).collect()
    };
    let (mut past_last, mut up_to_first, mut in_second) = (
        pick(&|h| h > last).into_iter(),
        pick(&|h| h <= first).into_iter(),
        pick(&|h| h > first && h <= second).into_iter(),
    );
    let cap = usize::try_from(b.capacity(KEYS)).unwrap_or(usize::MAX);
    let mut out: Vec<String> = [pts.len() - 1, 0, 1].iter().map(|&i| format!("{}#0", name_of(i))).collect();
    out.extend(past_last.by_ref().take(cap - 1)); // the first point's node fills up
    out.extend(past_last.by_ref().take(3)); // …and is skipped
    out.extend(up_to_first.by_ref().take(cap.saturating_sub(4))); // the second point's node fills up
    while out.len() < KEYS {
        let next = match out.len() % 3 {
            0 => past_last.next(),
            1 => in_second.next(),
            _ => up_to_first.next(),
        };
        out.extend(next);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(points: &[(u32, usize)], hash: u32, loads: &[usize], cap: usize) -> usize {
        let start = points.partition_point(|&(p, _)| p < hash);
        for step in 0..points.len() {
            let node = points[(start + step) % points.len()].1;
            if loads[node] < cap {
                return node;
            }
        }
        usize::MAX
    }

    #[test]
    fn the_model_passes_on_every_case() {
        let r = bounded_owner(model);
        assert!(r.passed(), "{r}");
        assert_eq!(r.inputs(), 18 + 3_002 + 5_000);
    }

    #[test]
    fn the_edge_cases_are_there() {
        let (rings, cases) = cases().unwrap();
        let edge: Vec<&Case> = cases.iter().filter(|c| c.ring == 0).collect();
        assert_eq!(edge.len(), 18);
        // ⌈1.1 · 18 / 3⌉ = ⌈6.6⌉ = 7, by hand
        assert!(edge.iter().all(|c| c.cap == 7));
        let last = rings[0][2].0;
        // keys exactly on the three points, then a key past the last point
        let on_points: Vec<u32> = edge[..3].iter().map(|c| c.hash).collect();
        assert_eq!(on_points, vec![rings[0][2].0, rings[0][0].0, rings[0][1].0]);
        assert!(edge[3].hash > last);
        // a key whose first node is full, and keys with every node but one full
        let full = |c: &Case| c.loads.iter().filter(|&&l| l >= c.cap).count();
        assert!(edge.iter().any(|c| full(c) == 1 && c.hash > last));
        assert!(edge.iter().filter(|c| full(c) == 2).count() >= 3);
        // the tie: two points of the second ring at one position, the key on it first
        let tie = cases.iter().find(|c| c.ring == 1).unwrap();
        assert_eq!(tie.hash, 0xDFD4_FD2A);
        assert_eq!(rings[1].iter().filter(|p| p.0 == tie.hash).count(), 2);
    }

    #[test]
    fn room_up_to_and_including_the_cap_fails_where_the_first_node_fills() {
        let wrong = |p: &[(u32, usize)], h: u32, l: &[usize], c: usize| model(p, h, l, c + 1);
        let r = bounded_owner(wrong);
        let d = r.difference().expect("a `<=` cap must fail");
        // 3 keys on the points, then 6 past the last point fill the first point's node to 7;
        // that node is C (md5("C#0") has the lowest low 32 bits of the three, by python3)
        assert_eq!(d.agreed_before, 9, "{r}");
        assert!(d.input.contains("loads [1, 1, 7]"), "{r}");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("2", "1"));
    }

    #[test]
    fn no_wrap_around_fails_at_the_first_key_past_the_last_point() {
        let wrong = |p: &[(u32, usize)], h: u32, l: &[usize], c: usize| {
            let start = p.partition_point(|&(x, _)| x < h);
            (start..p.len()).map(|i| p[i].1).find(|&n| l[n] < c).unwrap_or(usize::MAX)
        };
        let r = bounded_owner(wrong);
        let d = r.difference().expect("no wrap must fail");
        assert_eq!(d.agreed_before, 3, "{r}");
        assert_eq!(d.yours, format!("{}", usize::MAX));
    }

    #[test]
    fn starting_after_a_point_hit_exactly_fails_on_the_first_key() {
        let wrong = |p: &[(u32, usize)], h: u32, l: &[usize], c: usize| model(p, h.wrapping_add(1), l, c);
        let r = bounded_owner(wrong);
        assert_eq!(r.difference().map(|d| d.agreed_before), Some(0), "{r}");
    }

    #[test]
    fn the_tie_goes_to_the_point_first_in_ring_order() {
        // pick the later of two points at one position: right everywhere but on the tie
        let wrong = |p: &[(u32, usize)], h: u32, l: &[usize], c: usize| {
            let s = p.partition_point(|&(x, _)| x < h);
            if s + 1 < p.len() && p[s].0 == h && p[s + 1].0 == h {
                return p[s + 1].1;
            }
            model(p, h, l, c)
        };
        let r = bounded_owner(wrong);
        let d = r.difference().expect("the later tied point must fail");
        assert_eq!(d.agreed_before, 18, "{r}");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("6", "2"));
    }
}
