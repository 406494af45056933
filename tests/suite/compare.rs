//! `compare`: every scheme over one workload, the ring's load spread
//! against the jump hash paper, and removing a node from the middle.
//!
//! The movement invariants are properties the schemes promise (minimal
//! disruption, bounded loads), not numbers taken from a run of this crate.
//! The load-spread values are Lamping & Veach's (2014) table and the
//! closed form `√((N − 1)/(kN + 1))`; the simulation must land within 10%.

use reshard::analysis::spread::{ring_spread_predicted, PAPER_RING_SPREAD};
use reshard::analysis::{LoadSpread, MemoryEstimate, MiddleRemoval};
#[allow(unused_imports)]
use reshard::prelude::*;
use reshard::{numbered, Bounded, Comparison, Error, HashWidth, HashedKeys, KeySet, Scheme};
use std::sync::OnceLock;

/// The default settings, timing lookups over the first `keys` keys.
fn timed(keys: usize) -> CompareSettings {
    CompareSettings { timed_keys: keys, ..Default::default() }
}

/// The documentation's default workload: 100,000 keys `key{i}`, 128 bits.
fn keys() -> &'static HashedKeys {
    static KEYS: OnceLock<HashedKeys> = OnceLock::new();
    KEYS.get_or_init(|| KeySet::plain(100_000).hashed(HashWidth::Bits128).unwrap())
}

/// 10 → 11 nodes; lookups timed over 2,000 keys only (debug builds).
fn comparison() -> &'static Comparison {
    static C: OnceLock<Comparison> = OnceLock::new();
    C.get_or_init(|| Comparison::measure(keys(), 10, 11, &timed(2_000)).unwrap())
}

#[test]
fn every_scheme_has_one_row_in_order() {
    let c = comparison();
    let schemes: Vec<Scheme> = c.rows().iter().map(|r| r.scheme).collect();
    assert_eq!(schemes, Scheme::ALL);
    assert_eq!(c.keys(), 100_000);
    assert_eq!((c.from(), c.to()), (10, 11));
    assert!((c.floor() - 1.0 / 11.0).abs() < 1e-12);
    assert_eq!(c.timed_keys(), 2_000);
    for r in c.rows() {
        assert_eq!(r.moved, r.to_added + r.between_kept + r.from_removed, "{}", r.name);
        assert_eq!(r.from_removed, 0, "{}: nothing is removed when growing", r.name);
        match r.scheme {
            Scheme::Bounded => assert_eq!(r.lookup_ns, None, "bounded loads have no per-key lookup"),
            _ => assert!(r.lookup_ns.is_some_and(|ns| ns > 0.0), "{}", r.name),
        }
        assert!(r.memory_bytes > 0, "{}", r.name);
    }
}

#[test]
fn minimal_disruption_schemes_move_nothing_between_old_nodes() {
    let c = comparison();
    for s in [
        Scheme::Rendezvous,
        Scheme::WeightedRendezvous,
        Scheme::Ring,
        Scheme::RingOnePoint,
        Scheme::Jump,
        Scheme::Ketama,
        Scheme::Slots,
        Scheme::FixedShards,
    ] {
        let r = c.row(s).unwrap();
        assert_eq!(r.between_kept, 0, "{s}");
        assert_eq!(r.to_added, r.moved, "{s}: every mover goes to node 10");
    }
    // The schemes that keep the load even move about the floor, 1/11.
    for s in [Scheme::Rendezvous, Scheme::FixedShards, Scheme::Jump, Scheme::Slots, Scheme::Maglev] {
        let x = c.row(s).unwrap().over_floor.unwrap();
        assert!((0.9..1.1).contains(&x), "{s}: {x:.3}× the floor");
    }
    // Equal weights give the same owners as plain rendezvous.
    assert_eq!(c.row(Scheme::WeightedRendezvous).unwrap().moved, c.row(Scheme::Rendezvous).unwrap().moved);
}

#[test]
fn modulo_churns_and_maglev_churns_a_little() {
    let c = comparison();
    let m = c.row(Scheme::Modulo).unwrap();
    // 1 − min/lcm = 10/11 of the keys move; 10/11 of those stay among old nodes.
    assert!((m.share - 10.0 / 11.0).abs() < 0.01, "{}", m.share);
    assert!(m.between_kept > 80_000, "{}", m.between_kept);
    let g = c.row(Scheme::Maglev).unwrap();
    assert!(g.between_kept > 0, "Maglev is not minimally disruptive");
    assert!(g.between_kept < g.moved / 10, "but nearly: {} of {}", g.between_kept, g.moved);
}

#[test]
fn bounded_loads_respect_the_bound() {
    let c = comparison();
    let b = c.row(Scheme::Bounded).unwrap();
    let cap = Bounded::named(numbered(11).unwrap())
        .and_then(|b| b.with_vnodes(150))
        .and_then(|b| b.with_epsilon(0.25))
        .unwrap()
        .capacity(100_000);
    let mean = 100_000.0 / 11.0;
    assert!(b.max_over_mean <= cap as f64 / mean + 1e-12, "{} > {}", b.max_over_mean, cap as f64 / mean);
    assert!(b.max_over_mean <= 1.25 + 11.0 / 100_000.0);
    // One point per node is far from even; Maglev and slots are close to it.
    assert!(c.row(Scheme::RingOnePoint).unwrap().max_over_mean > 1.5);
    assert!(c.row(Scheme::Maglev).unwrap().max_over_mean < 1.05);
}

#[test]
fn memory_estimates_follow_the_structure_sizes() {
    let c = comparison();
    let mem = |s| c.row(s).unwrap().memory_bytes;
    assert_eq!(mem(Scheme::Ring), 11 * 150 * 20);
    assert_eq!(mem(Scheme::RingOnePoint), 11 * 20);
    assert_eq!(mem(Scheme::FixedShards), 1000 * 4);
    assert_eq!(mem(Scheme::Slots), 16_384 * 4);
    assert_eq!(mem(Scheme::Maglev), 65_537 * 4 + 11 * 8);
    assert_eq!(mem(Scheme::Ketama), 11 * 160 * 8);
    assert_eq!(mem(Scheme::Jump), 8);
    let ring32 = reshard::Ring::named(numbered(11).unwrap()).and_then(|r| r.with_vnodes(150)).unwrap();
    assert_eq!(ring32.memory_bytes(HashWidth::Bits32), 11 * 150 * 8);
}

#[test]
fn deterministic_table_leaves_timing_out_and_repeats_exactly() {
    let c = comparison();
    let again = Comparison::measure(keys(), 10, 11, &timed(500)).unwrap();
    assert_eq!(c.table_without_timing().to_text(), again.table_without_timing().to_text());
    assert_eq!(c.table_without_timing().to_html(), again.table_without_timing().to_html());
    let det = c.table_without_timing().to_text();
    assert!(!det.contains("machine-dependent") && !det.contains("ns/lookup"), "{det}");
    let full = c.table().to_text();
    assert!(full.contains("ns/lookup (machine-dependent)"), "{full}");
    for s in Scheme::ALL {
        assert!(full.contains(s.label()), "{s} missing:\n{full}");
        assert!(det.contains(s.label()), "{s} missing:\n{det}");
    }
    let timing = c.timing_table().to_text();
    assert!(timing.contains("machine-dependent") && timing.contains("2,000"), "{timing}");
    assert!(format!("{c}").contains("jump"));
}

#[cfg(feature = "serde")]
#[test]
fn serializes() {
    let c = comparison();
    let v = serde_json::to_value(c).unwrap();
    assert_eq!(v["rows"].as_array().unwrap().len(), Scheme::ALL.len());
    assert_eq!(v["rows"][6]["scheme"], "jump");
}

#[test]
fn shrinking_and_standing_still() {
    let k = KeySet::plain(5_000).hashed(HashWidth::Bits128).unwrap();
    let c = Comparison::measure(&k, 11, 10, &timed(100)).unwrap();
    for s in [Scheme::Rendezvous, Scheme::Ring, Scheme::Jump, Scheme::Slots, Scheme::FixedShards, Scheme::Ketama] {
        let r = c.row(s).unwrap();
        assert_eq!(r.between_kept, 0, "{s}");
        assert_eq!(r.from_removed, r.moved, "{s}");
    }
    let same = Comparison::measure(&k, 7, 7, &timed(0)).unwrap();
    for r in same.rows() {
        assert_eq!((r.moved, r.over_floor), (0, None), "{}", r.name);
        assert_eq!(r.lookup_ns, None);
    }
    assert!(same.table().to_text().contains('—'));
}

#[test]
fn bad_input_gives_typed_errors() {
    let k = KeySet::plain(100).hashed(HashWidth::Bits128).unwrap();
    assert_eq!(Comparison::measure(&k, 0, 11, &CompareSettings::default()).unwrap_err(), Error::NoNodes);
    assert_eq!(Comparison::measure(&k, 10, 0, &CompareSettings::default()).unwrap_err(), Error::NoNodes);
    assert_eq!(
        Comparison::measure(&k, 1000, 1001, &CompareSettings::default()).unwrap_err(),
        Error::MoreNodesThanShards { nodes: 1001, shards: 1000 }
    );
    assert_eq!(LoadSpread::measure_ring(&k, 0, &[10], 1).unwrap_err(), Error::NoNodes);
    assert_eq!(LoadSpread::measure_ring(&k, 10, &[10, 0], 1).unwrap_err(), Error::ZeroVnodes);
    assert!(matches!(LoadSpread::measure_ring(&k, 10, &[], 1), Err(Error::OutOfRange { .. })));
    assert!(matches!(LoadSpread::measure_ring(&k, 10, &[10], 0), Err(Error::OutOfRange { .. })));
    assert!(matches!(LoadSpread::measure_ring(&k, 1_000_000, &[1000], 1), Err(Error::TooLarge { .. })));
    assert_eq!(LoadSpread::measure_jump(&k, 0).unwrap_err(), Error::NoNodes);
    assert!(matches!(MiddleRemoval::measure(&k, 1, 0), Err(Error::OutOfRange { what: "node count", .. })));
    assert_eq!(MiddleRemoval::measure(&k, 10, 10).unwrap_err(), Error::UnknownNode("10".into()));
}

// -------------------------------------------------------------- spread --

/// Lamping & Veach's table: standard error 0.3152, 0.0997, 0.0316 for
/// k = 10, 100, 1000 points per bucket. Simulated with 1000 nodes, two
/// salted rings per k and 1,000,000 keys.
#[test]
fn ring_spread_matches_the_jump_paper() {
    let keys = KeySet::plain(1_000_000).hashed(HashWidth::Bits128).unwrap();
    let s = LoadSpread::measure(&keys, 1000, &[10, 100, 1000], 2).unwrap();
    for (k, paper) in PAPER_RING_SPREAD {
        let r = s.ring_row(k).unwrap();
        assert_eq!(r.paper, Some(paper));
        let measured = r.key_space.unwrap();
        assert!((measured / paper - 1.0).abs() < 0.10, "k = {k}: measured {measured:.4}, paper {paper}");
        // The closed form is within 0.3% of the paper's values.
        assert!((ring_spread_predicted(1000, k) / paper - 1.0).abs() < 0.003, "k = {k}");
        // Key counts add the sampling noise of 1,000,000 keys.
        assert!((r.key_counts / r.key_counts_predicted - 1.0).abs() < 0.10, "k = {k}: {r:?}");
        assert!(r.key_counts > measured);
    }
    let j = s.jump_row().unwrap();
    let floor = (999.0f64 / 1_000_000.0).sqrt();
    assert!((j.key_counts / floor - 1.0).abs() < 0.10, "jump {:.4} vs binomial floor {floor:.4}", j.key_counts);
    let text = s.table().to_text();
    assert!(text.contains("0.3152") && text.contains("0.0997") && text.contains("0.0316"), "{text}");
    #[cfg(feature = "charts")]
    {
        let svg = s.chart("ring load spread").build();
        assert!(svg.svg().contains("1/√k") && svg.svg().contains("Lamping"));
    }
}

// ------------------------------------------------------- middle removal --

#[test]
fn removing_a_middle_node() {
    let r = MiddleRemoval::measure(keys(), 10, 4).unwrap();
    assert_eq!(r.rows().len(), 10);
    for prefix in ["ring", "rendezvous", "fixed shards", "Redis slots", "ketama"] {
        let row = r.row(prefix).unwrap();
        assert_eq!(row.removed, "4");
        assert_eq!(row.between_kept, 0, "{prefix}");
        assert_eq!(row.from_removed, row.moved, "{prefix}: only node 4's keys move");
    }
    let maglev = r.row("Maglev").unwrap();
    assert!(maglev.between_kept > 0 && maglev.between_kept < maglev.moved / 10, "{maglev:?}");
    // Jump: renumbering 5…9 to 4…8 moves every key of nodes 4…9 that does
    // not happen to keep its number: far more than removing the last bucket.
    let renumbered = r.row("jump, node 4").unwrap();
    let last = r.row("jump, last node (9)").unwrap();
    assert_eq!(last.removed, "9");
    assert_eq!(last.between_kept, 0);
    assert!((last.share - 0.1).abs() < 0.01, "{last:?}");
    assert!(renumbered.moved > 5 * last.moved, "{renumbered:?} vs {last:?}");
    assert!(renumbered.between_kept > 40_000, "{renumbered:?}");
    let modulo = r.row("hash % N, node 4").unwrap();
    assert!(modulo.share > 0.8, "{modulo:?}");
    assert!(r.row("hash % N, last node").unwrap().share > 0.8);
    let text = r.table().to_text();
    assert!(text.contains("renumbered 4…8"), "{text}");
    #[cfg(feature = "charts")]
    assert!(r.chart("removing node 4").build().svg().contains("floor"));
}

#[test]
fn settings_drive_the_table() {
    // With 1 point per node the "ring" row must be the one-point ring row,
    // and with a huge ε bounded loads must equal that same ring.
    let s = CompareSettings { vnodes: 1, epsilon: 100.0, timed_keys: 0, ..Default::default() };
    let c = Comparison::measure(keys(), 10, 11, &s).unwrap();
    let (ring, one, bounded) =
        (c.row(Scheme::Ring).unwrap(), c.row(Scheme::RingOnePoint).unwrap(), c.row(Scheme::Bounded).unwrap());
    assert_eq!(ring.name, "ring (1 point/node)");
    assert_eq!((ring.moved, ring.max_over_mean), (one.moved, one.max_over_mean));
    assert_eq!((bounded.moved, bounded.max_over_mean), (one.moved, one.max_over_mean));
    // A bad Maglev size is refused before any work.
    let bad = CompareSettings { maglev_m: 10_000, ..Default::default() };
    assert!(matches!(
        Comparison::measure(keys(), 10, 11, &bad),
        Err(reshard::Error::OutOfRange { what: "table size (not prime)", .. })
    ));
}
