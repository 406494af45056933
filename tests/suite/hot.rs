//! Independent checks of the hot-key and replica analysis: the Zipf
//! sampler against the exact law, replica sets, and copy movement against
//! a brute-force count written here from the definitions.

use reshard::analysis::workload::{Workload, ZipfStream};
use reshard::notebook::*;
use reshard::schemes::replicas::replica_sets;
use reshard::{md5_u128, Error, NodeId};
use std::collections::BTreeSet;

/// The first draws of the notebooks' stream, pinned: the same seed must
/// give the same requests on every platform and every build.
#[test]
fn the_stream_is_pinned() {
    let first: Vec<usize> = ZipfStream::new(100_000, 1.1, 2026).unwrap().take(12).collect();
    assert_eq!(first, PINNED_1_1);
    let flat: Vec<usize> = ZipfStream::new(100_000, 0.0, 2026).unwrap().take(6).collect();
    assert_eq!(flat, PINNED_0);
    let w = Workload::zipf(1000, 0.8, 10_000, 7).unwrap();
    assert_eq!(&w.counts()[..5], PINNED_COUNTS);
}

const PINNED_1_1: [usize; 12] = [101, 0, 2, 28576, 0, 2861, 13266, 6759, 12, 1024, 2, 0];
const PINNED_0: [usize; 6] = [59965, 4222, 24968, 94616, 8973, 82782];
const PINNED_COUNTS: [u64; 5] = [667, 420, 255, 198, 164];

/// The exact Zipf probabilities, written out here.
fn exact(n: usize, s: f64) -> Vec<f64> {
    let h: f64 = (1..=n).map(|r| 1.0 / (r as f64).powf(s)).sum();
    (1..=n).map(|r| 1.0 / (r as f64).powf(s) / h).collect()
}

/// The chi-square critical value for `df` degrees of freedom at the upper
/// tail z (Wilson–Hilferty): z = 3.29 is a one-sided 0.05%.
fn chi2_critical(df: f64, z: f64) -> f64 {
    let a = 2.0 / (9.0 * df);
    df * (1.0 - a + z * a.sqrt()).powi(3)
}

#[test]
fn zipf_frequencies_match_the_exact_law() {
    for (n, s, draws, seed) in
        [(100, 1.1, 200_000u64, 1u64), (100, 0.8, 200_000, 2), (100, 0.0, 200_000, 3), (1000, 1.1, 400_000, 4)]
    {
        let w = Workload::zipf(n, s, draws, seed).unwrap();
        let p = exact(n, s);
        let chi2: f64 = w
            .counts()
            .iter()
            .zip(&p)
            .map(|(&c, &p)| {
                let e = p * draws as f64;
                assert!(e >= 5.0, "expected count {e} too small for chi-square");
                (c as f64 - e).powi(2) / e
            })
            .sum();
        let crit = chi2_critical((n - 1) as f64, 3.29);
        assert!(chi2 < crit, "n={n} s={s}: chi-square {chi2:.1} over {crit:.1}");
        // and the hottest key within 5 binomial standard deviations
        let e = p[0] * draws as f64;
        let sd = (e * (1.0 - p[0])).sqrt();
        assert!((w.counts()[0] as f64 - e).abs() < 5.0 * sd, "n={n} s={s}: key 0 {} vs {e:.0}", w.counts()[0]);
    }
}

#[test]
fn workload_refuses_bad_parameters() {
    assert!(matches!(Workload::zipf(10, -1.0, 10, 1), Err(Error::BadNumber { .. })));
    assert!(matches!(Workload::zipf(10, f64::NAN, 10, 1), Err(Error::BadNumber { .. })));
    assert!(matches!(Workload::zipf(0, 1.0, 10, 1), Err(Error::NoKeys)));
    assert!(matches!(Workload::zipf(10, 1.0, 0, 1), Err(Error::OutOfRange { what: "requests", .. })));
    assert!(matches!(Workload::zipf(10, 1.0, 1 << 40, 1), Err(Error::TooLarge { .. })));
    assert!(matches!(Workload::zipf(100_000_000, 1.0, 10, 1), Err(Error::TooLarge { .. })));
}

fn schemes(n: usize) -> Vec<Replicated> {
    Replicated::lineup(n, 20).unwrap()
}

#[test]
fn replica_sets_are_distinct_and_start_with_the_owner() {
    let keys = KeySet::plain(3_000).hashed(HashWidth::Bits128).unwrap();
    for p in schemes(10) {
        let owners = p.assign(&keys);
        for rf in [1, 3, 10] {
            let sets = replica_sets(&p, &keys, rf).unwrap();
            for (i, set) in sets.chunks(rf).enumerate() {
                assert_eq!(set[0], owners[i], "{}: key {i}'s first copy is not its owner", p.label());
                let distinct: BTreeSet<NodeId> = set.iter().copied().collect();
                assert_eq!(distinct.len(), rf, "{}: key {i}: {set:?}", p.label());
            }
        }
        assert!(matches!(replica_sets(&p, &keys, 0), Err(Error::OutOfRange { what: "replication factor", .. })));
        assert!(matches!(replica_sets(&p, &keys, 11), Err(Error::OutOfRange { what: "replication factor", .. })));
    }
}

/// Rendezvous and the ring: when an unrelated node joins, a key's copies
/// on the old nodes keep their order, and at most the last one is pushed
/// out (by the new node).
#[test]
fn replica_sets_are_stable_when_a_node_joins() {
    let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128).unwrap();
    let rf = 3;
    for p in [
        Replicated::Rendezvous(Rendezvous::new(10).unwrap()),
        Replicated::Ring(Ring::new(10).unwrap().with_vnodes(20).unwrap()),
    ] {
        let q = p.add_node("new").unwrap();
        let new = q.nodes().iter().position(|n| n == "new").unwrap() as NodeId;
        let (a, b) = (replica_sets(&p, &keys, rf).unwrap(), replica_sets(&q, &keys, rf).unwrap());
        let mut unchanged = 0;
        for (old, after) in a.chunks(rf).zip(b.chunks(rf)) {
            let kept: Vec<NodeId> = after.iter().copied().filter(|&n| n != new).collect();
            assert_eq!(kept[..], old[..kept.len()], "{}: {old:?} → {after:?}", p.label());
            unchanged += usize::from(old == after);
        }
        // about 8/11 of the keys don't have the new node among their 3
        assert!((3_400..3_900).contains(&unchanged), "{}: {unchanged}", p.label());
    }
}

/// Rendezvous replica sets, from the definition: the `rf` nodes with the
/// highest md5("{key}:{node}").
fn brute_rendezvous(key: &str, nodes: &[String], rf: usize) -> Vec<String> {
    let mut scored: Vec<(u128, &String)> =
        nodes.iter().map(|n| (md5_u128(format!("{key}:{n}").as_bytes()), n)).collect();
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    scored.into_iter().take(rf).map(|(_, n)| n.clone()).collect()
}

/// Ring replica sets, from the definition: points md5("{node}#{v}"), the
/// first `rf` distinct nodes at or after the key's md5, clockwise.
fn brute_ring(key: &str, nodes: &[String], vnodes: usize, rf: usize) -> Vec<String> {
    let mut points: Vec<(u128, &String)> =
        nodes.iter().flat_map(|n| (0..vnodes).map(move |v| (md5_u128(format!("{n}#{v}").as_bytes()), n))).collect();
    points.sort();
    let h = md5_u128(key.as_bytes());
    let start = points.iter().position(|p| p.0 >= h).unwrap_or(0);
    let mut out: Vec<String> = Vec::new();
    for i in 0..points.len() {
        let n = points[(start + i) % points.len()].1;
        if !out.contains(n) {
            out.push(n.clone());
        }
        if out.len() == rf {
            break;
        }
    }
    out
}

fn copies_made(before: &[String], after: &[String]) -> u64 {
    after.iter().filter(|n| !before.contains(n)).count() as u64
}

#[test]
fn copy_movement_matches_a_brute_force_count() {
    let n_keys = 2_000;
    let keys = KeySet::plain(n_keys).hashed(HashWidth::Bits128).unwrap();
    let (ten, eleven): (Vec<String>, Vec<String>) =
        ((0..10).map(|i| i.to_string()).collect(), (0..11).map(|i| i.to_string()).collect());
    let vnodes = 20;
    let lineup = vec![
        Replicated::Ring(Ring::new(10).unwrap().with_vnodes(vnodes).unwrap()),
        Replicated::Rendezvous(Rendezvous::new(10).unwrap()),
    ];
    let m = CopyMovement::measure(&keys, &lineup, 3, "10").unwrap();
    let (mut ring, mut hrw, mut ring_new, mut ring_owners) = (0, 0, 0, 0);
    for i in 0..n_keys {
        let key = format!("key{i}");
        let (a, b) = (brute_ring(&key, &ten, vnodes, 3), brute_ring(&key, &eleven, vnodes, 3));
        ring += copies_made(&a, &b);
        ring_new += u64::from(b.contains(&"10".to_string()));
        ring_owners += u64::from(a[0] != b[0]);
        hrw += copies_made(&brute_rendezvous(&key, &ten, 3), &brute_rendezvous(&key, &eleven, 3));
    }
    assert_eq!(m.rows()[0].copies_moved, ring);
    assert_eq!(m.rows()[0].to_added, ring_new);
    assert_eq!(m.rows()[0].primaries_moved, ring_owners);
    assert_eq!(m.rows()[1].copies_moved, hrw);
    assert_eq!(m.rows()[1].to_old, 0);
    assert_eq!(m.copies(), 3 * n_keys as u64);
    // both near the floor, 1/11 of the copies
    for r in m.rows() {
        let share = r.copies_moved as f64 / m.copies() as f64;
        assert!((0.06..0.12).contains(&share), "{}: {share}", r.scheme);
    }
}

#[test]
fn bounded_on_requests_keeps_every_node_under_the_bound() {
    let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128).unwrap();
    let w = Workload::zipf(keys.len(), 0.8, 100_000, 9).unwrap();
    for eps in [0.05, 0.25, 1.0] {
        let b = Bounded::new(10).unwrap().with_vnodes(20).unwrap().with_epsilon(eps).unwrap();
        let owners = b.assign_weighted(&keys, w.counts()).unwrap();
        let mut load = [0u64; 10];
        for (o, c) in owners.iter().zip(w.counts()) {
            load[*o as usize] += c;
        }
        let cap = ((1.0 + eps) * 100_000.0 / 10.0_f64).ceil() as u64;
        assert_eq!(b.weighted_capacity(100_000), cap);
        assert!(load.iter().all(|&l| l <= cap), "ε={eps}: {load:?} over {cap}");
    }
}

#[test]
fn a_failed_nodes_load_goes_to_its_successor_on_a_one_point_ring() {
    let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128).unwrap();
    let w = Workload::zipf(keys.len(), 0.8, 100_000, 5).unwrap();
    let one = NodeFailure::measure(&keys, &w, &Ring::new(10).unwrap(), "3").unwrap();
    assert_eq!(one.heirs(), 1);
    assert!((one.biggest_heir_share() - 1.0).abs() < 1e-12);
    let hrw = NodeFailure::measure(&keys, &w, &Rendezvous::new(10).unwrap(), "3").unwrap();
    assert_eq!(hrw.heirs(), 9);
    assert_eq!(hrw.after().iter().sum::<u64>(), 100_000);
}

#[test]
fn hot_entry_points_refuse_bad_parameters() {
    let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128).unwrap();
    let w = Workload::zipf(keys.len(), 1.0, 10_000, 1).unwrap();
    let other = Workload::zipf(999, 1.0, 10_000, 1).unwrap();
    let hrw = Rendezvous::new(10).unwrap();
    let lineup = Replicated::lineup(10, 10).unwrap();
    assert!(matches!(RequestLoad::measure(&keys, &other, &hrw), Err(Error::LengthMismatch { .. })));
    assert!(matches!(HotKeySplit::measure(&keys, &w, &hrw, 1, &[0], 0.1), Err(Error::OutOfRange { .. })));
    assert!(matches!(HotKeySplit::measure(&keys, &w, &hrw, 1, &[2], 1.5), Err(Error::OutOfRange { .. })));
    assert!(matches!(HotKeySplit::measure(&keys, &w, &hrw, 0, &[2], 0.1), Err(Error::OutOfRange { .. })));
    assert!(matches!(CopyMovement::measure(&keys, &lineup, 11, "10"), Err(Error::OutOfRange { .. })));
    assert!(matches!(CopyMovement::measure(&keys, &lineup, 3, "9"), Err(Error::DuplicateNode(_))));
    assert!(matches!(NodeFailure::measure(&keys, &w, &hrw, "x"), Err(Error::UnknownNode(_))));
    assert!(matches!(
        FailureSweep::measure(&keys, &w, 10, "3", &[1], 0),
        Err(Error::OutOfRange { what: "arrangements", .. })
    ));
    assert!(matches!(FailureSweep::measure(&keys, &w, 10, "3", &[1; 1000], 5000), Err(Error::TooLarge { .. })));
    assert!(matches!(
        RequestBounds::measure(&keys, &w, 10, 10, &[0.0], "10"),
        Err(Error::BadNumber { what: "epsilon", .. })
    ));
}
