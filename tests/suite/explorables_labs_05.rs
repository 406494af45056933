//! Lab 05's explorable (bounded loads, 10 → 11 nodes, a slider over ε): the
//! chart's data, read back from the emitted spec, are recomputed here by a
//! placement of the test's own — each key in order walks clockwise from its
//! position on the crate's ring points to the first node under the cap
//! ⌈(1 + ε)·m/n⌉, computed in integers — not through `Bounded::assign`.
#![cfg(feature = "charts")]

use reshard::analysis::BoundedLoads;
use reshard::notebook::*;

use crate::spec;

/// Each key's node (by name) under bounded loads with `n` nodes "0" … and
/// `v` points each, ε = `hundredths`/100: the test's own walk.
fn place(keys: &HashedKeys, n: usize, v: usize, hundredths: u64) -> Vec<usize> {
    let ring = Ring::new(n).unwrap().with_vnodes(v).unwrap();
    let points = ring.points(HashWidth::Bits128); // in ring order
    let names: Vec<usize> = ring.nodes().iter().map(|s| s.parse().unwrap()).collect();
    let m = keys.len() as u64;
    let cap = ((100 + hundredths) * m).div_ceil(100 * n as u64); // ⌈(1 + ε)·m/n⌉
    let mut loads = vec![0u64; n];
    keys.hashes()
        .iter()
        .map(|&h| {
            let start = points.partition_point(|p| p.hash < h);
            let node = (0..points.len())
                .map(|i| points[(start + i) % points.len()].node as usize)
                .find(|&node| loads[node] < cap)
                .expect("n·cap ≥ m: some node has room");
            loads[node] += 1;
            names[node]
        })
        .collect()
}

/// (busiest above the mean, share moved, share moved between old nodes), 10 → 11 nodes.
fn by_hand(keys: &HashedKeys, v: usize, hundredths: u64) -> (f64, f64, f64) {
    let (before, after) = (place(keys, 10, v, hundredths), place(keys, 11, v, hundredths));
    let m = keys.len() as f64;
    let moved = before.iter().zip(&after).filter(|(b, a)| b != a).count() as f64;
    let between = before.iter().zip(&after).filter(|(b, a)| b != a && **a < 10).count() as f64;
    let mut loads = [0u64; 11];
    after.iter().for_each(|&a| loads[a] += 1);
    let busiest = *loads.iter().max().unwrap() as f64;
    (busiest / (m / 11.0) - 1.0, moved / m, between / m)
}

#[test]
fn grid_points_are_an_own_placement() {
    let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128).unwrap();
    let eps = [0.01, 0.05, 0.25, 1.0];
    let b = BoundedLoads::measure(&keys, 10, 11, &[1, 150], &eps).unwrap();
    let out = b.explorable("epsilon", 0.25).unwrap().output().unwrap();
    for (e, h) in [(0.01, 1), (0.05, 5), (0.25, 25)] {
        for (v, x) in [(1, "1 point/node"), (150, "150 points/node")] {
            let (over, moved, between) = by_hand(&keys, v, h);
            let close = |series: &str, want: f64| {
                let got = spec::value(&out, &[("epsilon", e)], series, x);
                assert!((got - want).abs() < 1e-12, "ε = {e}, {x}, {series}: chart {got}, by hand {want}");
            };
            close("busiest above the mean", over);
            close("keys moved", moved);
            close("moved between old nodes", between);
        }
    }
    // The cap holds: at ε the busiest node is at most ⌈(1 + ε)·m/n⌉, about ε above the mean.
    for e in eps {
        let over = spec::value(&out, &[("epsilon", e)], "busiest above the mean", "1 point/node");
        assert!(over <= e + 11.0 / 20_000.0, "ε = {e}: busiest {over} above the mean");
    }
    assert!(out.text().contains("epsilon = 0.25"), "{}", out.text());
}

#[test]
fn bad_settings_are_typed_errors() {
    let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128).unwrap();
    let none = BoundedLoads::measure(&keys, 10, 11, &[1], &[]).unwrap();
    assert!(none.explorable("epsilon", 0.25).is_err());
    let some = BoundedLoads::measure(&keys, 10, 11, &[1], &[0.05, 0.25]).unwrap();
    let err = some.explorable("epsilon", 0.3).unwrap_err();
    // The lab's ε may already be in its grid, and `vnodes` may be 1: each point is drawn once.
    let twice = BoundedLoads::measure(&keys, 10, 11, &[1, 1], &[0.1, 0.1, 0.25]).unwrap();
    assert_eq!(twice.explorable("epsilon", 0.1).unwrap().points(), 3 * 2);
    assert!(err.to_string().contains("0.3"), "{err}");
}
