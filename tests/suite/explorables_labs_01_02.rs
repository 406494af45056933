//! The explorables of labs 01 and 02, built as their cells build them: the
//! chart's data are the crate's values, recomputed here another way (the
//! articles' counts, `Movement::measure` on the same schemes, `h % N` counted
//! by hand, `w / Σw`), and the default view is the lab's setting.
#![cfg(feature = "charts")]

use reshard::analysis::{JoinSweep, WeightedJoin};
use reshard::notebook::*;
use reshard::present::ExplorableOutput;

use crate::spec;

/// A point of the chart: at the sliders' values (name, value), in `series`, at `x`, the value `y`.
struct Pt<const S: usize> {
    sliders: [(&'static str, f64); S],
    series: &'static str,
    x: String,
    y: f64,
}

fn pt(slider: (&'static str, f64), series: &'static str, x: impl ToString, y: f64) -> Pt<1> {
    Pt { sliders: [slider], series, x: x.to_string(), y }
}

/// Each point must be in the chart's data, bit for bit.
fn check_points<const S: usize>(out: &ExplorableOutput, points: &[Pt<S>]) {
    for p in points {
        let got = spec::value(out, &p.sliders, p.series, &p.x);
        assert_eq!(
            got.to_bits(),
            p.y.to_bits(),
            "at {:?}, {}, x = {}: chart {got}, computed {}",
            p.sliders,
            p.series,
            p.x,
            p.y
        );
    }
}

// ---- lab 01: one node joins N nodes, ring and hash % N ------------------------------------

const RING: &str = "ring, vnodes points per node";
const MODULO: &str = "hash % N";
const MOVED: &str = "keys moved";

/// Lab 01's cell: the article's keys, nodes A … K, the grid of points per node, `nodes` and `vnodes`.
fn lab01() -> (HashedKeys, JoinSweep) {
    let keys = KeySet::new("user:", 100_000).hashed(HashWidth::Bits32).unwrap();
    let vnodes = 150;
    let grid = [1, 2, 5, 10, 20, 50, 100, 200, vnodes];
    let sweep = JoinSweep::measure(&keys, &letters("ABCDEFGHIJK"), &grid).unwrap();
    (keys, sweep)
}

/// The ring's keys per node after the join and keys moved, first N of A … K → first N + 1,
/// through `Movement::measure`.
fn ring_join(keys: &HashedKeys, n: usize, v: usize) -> (Vec<u64>, u64) {
    let names = letters("ABCDEFGHIJK");
    let ring = |k: usize| Ring::named(names[..k].to_vec()).unwrap().with_vnodes(v).unwrap();
    let m = Movement::measure(keys, &ring(n), &ring(n + 1)).unwrap();
    (m.load_after(), m.moved())
}

/// `hash % N`, N → N + 1, counted by hand: keys per node after, and keys moved.
fn modulo_join(keys: &HashedKeys, n: u128) -> (Vec<u64>, u64) {
    let mut after = vec![0u64; n as usize + 1];
    let mut moved = 0;
    for &h in keys.hashes() {
        after[(h % (n + 1)) as usize] += 1;
        moved += u64::from(h % n != h % (n + 1));
    }
    (after, moved)
}

#[test]
fn lab01_grid_points_are_the_articles_and_the_crates_values() {
    let (keys, sweep) = lab01();
    let out = sweep.explorable(3, 150).unwrap().output().unwrap();
    let settings: usize = (1..=10).map(|n| n + 2).sum();
    assert_eq!(spec::rows(&out).len(), 9 * settings * 2, "9 vnodes × Σ (N + 1 nodes + moved) × 2 series");
    assert!(out.bytes() <= 150_000, "{} bytes", out.bytes());
    let k = 100_000.0;
    let at = |n: f64, v: f64, series: &'static str, x: &str, y: f64| Pt {
        sliders: [("nodes", n), ("vnodes", v)],
        series,
        x: x.to_string(),
        y,
    };
    // The article (document 000): D joins A, B, C: 28,024 keys move at 1 point, 25,347 at 150, the
    // loads after [31186, 10531, 30259, 28024] and [25136, 24419, 25098, 25347]; hash % N moves
    // 74,961 keys 3 → 4 and 91,049 keys 10 → 11.
    let mut points = vec![
        at(3.0, 1.0, RING, MOVED, 28_024.0 / k),
        at(3.0, 150.0, RING, MOVED, 25_347.0 / k),
        at(3.0, 150.0, MODULO, MOVED, 74_961.0 / k),
        at(10.0, 20.0, MODULO, MOVED, 91_049.0 / k),
    ];
    for (v, loads) in [(1.0, [31_186, 10_531, 30_259, 28_024]), (150.0, [25_136, 24_419, 25_098, 25_347])] {
        for (node, c) in ["A", "B", "C", "D"].into_iter().zip(loads) {
            points.push(at(3.0, v, RING, node, c as f64 / k));
        }
    }
    check_points(&out, &points);
    // Elsewhere on the grid: the ring through Movement::measure, hash % N counted by hand.
    let names = letters("ABCDEFGHIJK");
    let mut points = Vec::new();
    for (n, v) in [(1, 1), (2, 5), (7, 5), (10, 200), (6, 50)] {
        let (after, moved) = ring_join(&keys, n, v);
        points.push(at(n as f64, v as f64, RING, MOVED, moved as f64 / k));
        for i in [0, n / 2, n] {
            points.push(at(n as f64, v as f64, RING, &names[i], after[i] as f64 / k));
        }
    }
    for (n, v) in [(1, 2), (6, 10), (9, 100)] {
        let (after, moved) = modulo_join(&keys, n as u128);
        points.push(at(n as f64, v as f64, MODULO, MOVED, moved as f64 / k));
        for i in [0, n] {
            points.push(at(n as f64, v as f64, MODULO, &names[i], after[i] as f64 / k));
        }
    }
    check_points(&out, &points);
    // The default view is the lab's `nodes` and `vnodes`: A, B, C, D and the keys moved.
    let text = out.text();
    assert!(text.contains("nodes = 3") && text.contains("vnodes = 150"), "{text}");
    assert!(text.contains(&pct(25_347.0 / k, 1)), "{text}");
    assert!(!text.contains(" E "), "only the four nodes of the default view: {text}");
}

#[test]
fn lab01_a_setting_off_the_grid_is_an_error_that_says_so() {
    let keys = KeySet::users(500).hashed(HashWidth::Bits32).unwrap();
    let sweep = JoinSweep::measure(&keys, &letters("ABC"), &[1, 10]).unwrap();
    let err = sweep.explorable(2, 40).unwrap_err().to_string();
    assert!(err.contains("40") && err.contains("1, 10"), "{err}");
    let err = sweep.explorable(3, 10).unwrap_err().to_string();
    assert!(err.contains("nodes = 3") && err.contains("1, 2"), "{err}");
    assert!(JoinSweep::measure(&keys, &letters("A"), &[1]).is_err());
    assert!(JoinSweep::measure(&keys, &letters("AB"), &[]).is_err());
    assert!(JoinSweep::measure(&keys, &letters("AB"), &[0]).is_err());
    assert!(JoinSweep::measure(&keys, &letters("ABA"), &[1]).is_err());
    // A node named as the chart's own group of bars is refused, saying so (it said "point given twice").
    let names = ["A".to_string(), "keys moved".to_string(), "C".to_string()];
    let err = JoinSweep::measure(&keys, &names, &[1, 10]).unwrap().explorable(1, 10).unwrap_err();
    assert!(matches!(&err, Error::NameTaken { what: "node", name, .. } if name == "keys moved"), "{err:?}");
    assert!(err.to_string().contains("keys moved") && !err.to_string().contains("given twice"), "{err}");
}

// ---- lab 02: node 10 joins weighted rendezvous at each weight ------------------------------

const KEYS: &str = "share of the keys";
const WEIGHT: &str = "share of the weight";

#[test]
fn lab02_grid_points_are_the_crates_values() {
    // Lab 02's parameters: 200,000 keys key0 …, md5 as 128 bits, nodes 0 … 9 of these weights
    // (cycled), node 10 joining with `new_weight`; the grid 1 … 20 and new_weight.
    let keys = KeySet::new("key", 200_000).hashed(HashWidth::Bits128).unwrap();
    let weights = [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 3.0, 4.0];
    let new_weight = 4.0;
    let w_old = Rendezvous::new(10).unwrap().with_weights(weights).unwrap();
    let w_new = Rendezvous::new(11).unwrap().with_weights(weights.into_iter().chain([new_weight])).unwrap();
    let grid: Vec<f64> = (1..=20).map(f64::from).chain([new_weight]).collect();
    let added = &w_new.nodes()[10..];
    let join = WeightedJoin::measure(&keys, &w_old, added, &grid).unwrap();
    let out = join.explorable(new_weight).unwrap().output().unwrap();
    assert_eq!(spec::rows(&out).len(), 20 * 11 * 2, "20 weights × 11 nodes × 2 series");

    // The same placements through Movement::measure (each key scored again, per placement).
    let n = keys.len() as f64;
    let mut points = Vec::new();
    for w in [1.0, 4.0, 20.0] {
        let after = Rendezvous::new(11).unwrap().with_weights(weights.into_iter().chain([w])).unwrap();
        let m = Movement::measure(&keys, &w_old, &after).unwrap();
        let load = m.load_after();
        assert_eq!(join.row(w).unwrap().moved, m.moved(), "moved at weight {w}");
        assert_eq!(m.moved(), load[10], "every mover lands on node 10 (churn 0)");
        for node in [0usize, 9, 10] {
            points.push(pt(("new_weight", w), KEYS, node, load[node] as f64 / n));
        }
        let total: f64 = weights.iter().sum::<f64>() + w;
        points.push(pt(("new_weight", w), WEIGHT, 10, w / total));
        points.push(pt(("new_weight", w), WEIGHT, 9, 4.0 / total));
    }
    check_points(&out, &points);
    let text = out.text();
    assert!(
        text.starts_with("Share of the keys on each node after node 10 joins, weighted rendezvous · new_weight = 4: "),
        "{text}"
    );
}

#[test]
fn lab02_bad_input_is_an_error_that_says_so() {
    let keys = KeySet::plain(300).hashed(HashWidth::Bits128).unwrap();
    let r = Rendezvous::new(3).unwrap();
    let added = ["3".to_string()];
    let join = WeightedJoin::measure(&keys, &r, &added, &[1.0, 2.0]).unwrap();
    let err = join.explorable(1.5).unwrap_err().to_string();
    assert!(err.contains("new_weight = 1.5") && err.contains("1, 2"), "{err}");
    assert!(matches!(WeightedJoin::measure(&keys, &r, &added, &[0.0]), Err(Error::BadWeight { .. })));
    assert!(matches!(WeightedJoin::measure(&keys, &r, &added, &[f64::INFINITY]), Err(Error::BadWeight { .. })));
    assert!(WeightedJoin::measure(&keys, &r, &added, &[]).is_err());
    assert!(WeightedJoin::measure(&keys, &r, &[], &[1.0]).is_err());
    assert!(WeightedJoin::measure(&keys, &r, &["2".to_string()], &[1.0]).is_err(), "a name taken");
}
