//! Every figure the three source documents print, recomputed through the
//! public API and compared with the number as the document prints it.
//!
//! The expected values are copied from the documents in
//! `/work/shared/seeds/` (000, 002, 004), never from this crate's output.
//! Percentages are compared after formatting with the document's number of
//! decimals, the way the documents print them.

#[allow(unused_imports)]
use reshard::prelude::*;
use reshard::{
    letters, modulo_rule, numbered, prefixed, ArrangementSweep, FixedShards, HashWidth, HashedKeys, KeySet, LoadReport,
    Modulo, Movement, Placement, Rendezvous, Ring,
};
use std::sync::OnceLock;

/// Document 000's keys: `user:0 … user:99999`, md5 mod 2^32.
fn users_100k() -> &'static HashedKeys {
    static K: OnceLock<HashedKeys> = OnceLock::new();
    K.get_or_init(|| KeySet::users(100_000).hashed(HashWidth::Bits32).unwrap())
}

/// Document 002's keys: `key0 … key199999`, full 128-bit md5.
fn plain_200k() -> &'static HashedKeys {
    static K: OnceLock<HashedKeys> = OnceLock::new();
    K.get_or_init(|| KeySet::plain(200_000).hashed(HashWidth::Bits128).unwrap())
}

/// Document 004's keys: `key0 … key999999`, full 128-bit md5.
fn plain_1m() -> &'static HashedKeys {
    static K: OnceLock<HashedKeys> = OnceLock::new();
    K.get_or_init(|| KeySet::plain(1_000_000).hashed(HashWidth::Bits128).unwrap())
}

/// A share printed like the documents print it: `{:.1%}` → "75.0%".
fn pct(share: f64, decimals: usize) -> String {
    format!("{:.*}%", decimals, 100.0 * share)
}

fn modulo_move(keys: &HashedKeys, old: usize, new: usize) -> Movement {
    Movement::measure(keys, &Modulo::new(old).unwrap(), &Modulo::new(new).unwrap()).unwrap()
}

fn ring(nodes: &str, vnodes: usize) -> Ring {
    Ring::named(letters(nodes)).and_then(|r| r.with_vnodes(vnodes)).unwrap()
}

// ---------------------------------------------------------------- 000 --

/// 000: "hash(key) % N, 100,000 keys" — 75.0% / 91.0% / 50.0% / 89.9%.
#[test]
fn doc000_modulo_shares() {
    let keys = users_100k();
    assert_eq!(keys.len(), 100_000);
    for (a, b, doc) in [(3, 4, "75.0%"), (10, 11, "91.0%"), (10, 20, "50.0%"), (10, 9, "89.9%")] {
        let m = modulo_move(keys, a, b);
        assert_eq!(pct(m.share(), 1), doc, "hash % N, {a} -> {b}");
        assert_eq!(m.keys(), 100_000);
    }
    // The rule the document states: a key stays only when h % old == h % new,
    // so min(old, new) / lcm(old, new) stay. 3 → 4: 3/12 stay, 75% move.
    assert_eq!(modulo_rule(3, 4), Ok(0.75));
}

/// 000: "ring, add a 4th node to 3" — 28.0% (1 point), 25.3% (150 points).
#[test]
fn doc000_ring_abc_to_abcd() {
    let keys = users_100k();
    for (v, doc) in [(1, "28.0%"), (150, "25.3%")] {
        let m = Movement::measure(keys, &ring("ABC", v), &ring("ABCD", v)).unwrap();
        assert_eq!(pct(m.share(), 1), doc, "{v} point(s) per node");
        // "Only keys that now sit between D and its counterclockwise
        // neighbour change owner": every mover goes to D.
        assert_eq!(m.to_added(), m.moved());
        assert_eq!(m.between_kept(), 0);
        assert_eq!(m.added_nodes(), ["D"]);
    }
}

/// 000: "keys per node with 4 nodes".
#[test]
fn doc000_load_abcd() {
    let keys = users_100k();
    for (v, doc) in [(1, [31186, 10531, 30259, 28024]), (150, [25136, 24419, 25098, 25347])] {
        let l = LoadReport::measure(keys, &ring("ABCD", v)).unwrap();
        assert_eq!(l.nodes(), ["A", "B", "C", "D"]);
        assert_eq!(l.counts(), doc, "{v} point(s) per node");
        assert_eq!(l.total(), 100_000);
    }
    // "With 150 points per node the four counts sit between 24.4k and 25.3k."
    let l = LoadReport::measure(keys, &ring("ABCD", 150)).unwrap();
    assert_eq!((l.min(), l.max()), (24_419, 25_347));
}

/// 000: "remove C from 3 nodes: moved keys that lived on C: 33830 of 33830".
#[test]
fn doc000_remove_c() {
    let keys = users_100k();
    let full = ring("ABC", 150);
    let minus_c = ring("AB", 150);
    let m = Movement::measure(keys, &full, &minus_c).unwrap();
    assert_eq!(m.moved(), 33_830);
    assert_eq!(m.from_removed(), 33_830);
    assert_eq!(m.between_kept(), 0);
    assert_eq!(m.removed_nodes(), ["C"]);
    // "all 33830 of them": the keys that lived on C are exactly the movers.
    let on_c = LoadReport::measure(keys, &full).unwrap().counts()[2];
    assert_eq!(on_c, 33_830);
}

/// 000: "30 different arrangements of the same node names, 3 -> 4 nodes".
#[test]
fn doc000_thirty_arrangements_3_to_4() {
    let keys = users_100k();
    let (abc, abcd) = (letters("ABC"), letters("ABCD"));
    for (v, lo, hi, small, large) in [(1, "0.8%", "71.4%", 213, 71_383), (150, "21.5%", "28.2%", 21_055, 29_917)] {
        let s = ArrangementSweep::measure(keys, &abc, &abcd, v, 30).unwrap();
        assert_eq!(s.rows().len(), 30);
        assert_eq!(s.rows()[0].salt, "0:");
        assert_eq!(s.rows()[29].salt, "29:");
        assert_eq!(pct(s.min_share(), 1), lo, "{v} point(s): least moved");
        assert_eq!(pct(s.max_share(), 1), hi, "{v} point(s): most moved");
        assert_eq!(s.smallest_node(), small, "{v} point(s): smallest node");
        assert_eq!(s.largest_node(), large, "{v} point(s): largest node");
    }
}

/// 000: the same arrangement, built by hand with `Ring::salted`, agrees
/// with the sweep (the document's loop body, spelled out for one salt).
#[test]
fn doc000_sweep_row_is_a_salted_ring() {
    let keys = users_100k();
    let s = ArrangementSweep::measure(keys, &letters("ABC"), &letters("ABCD"), 1, 30).unwrap();
    for (i, row) in s.rows().iter().enumerate().step_by(7) {
        let salt = format!("{i}:");
        let old = Ring::named(letters("ABC")).and_then(|r| r.with_vnodes(1)).and_then(|r| r.with_salt(&salt)).unwrap();
        let new = Ring::named(letters("ABCD")).and_then(|r| r.with_vnodes(1)).and_then(|r| r.with_salt(&salt)).unwrap();
        let m = Movement::measure(keys, &old, &new).unwrap();
        let l = LoadReport::measure(keys, &new).unwrap();
        assert_eq!(row.salt, salt);
        assert_eq!(row.moved, m.moved());
        assert_eq!((row.min_load, row.max_load), (l.min(), l.max()));
    }
}

/// 000: nodes S0..S9 → S0..S10 over 30 arrangements, by points per node.
#[test]
fn doc000_ten_to_eleven_sweeps() {
    let keys = users_100k();
    let (s10, s11) = (prefixed("S", 10).unwrap(), prefixed("S", 11).unwrap());
    assert_eq!(s11.last().map(String::as_str), Some("S10"));
    for (v, lo, hi, mean) in [
        (150, "8.0%", "11.5%", Some("9.1%")),
        (100, "6.8%", "11.0%", None),
        (200, "8.0%", "11.4%", None),
        (1, "0.0%", "22.9%", None),
    ] {
        let s = ArrangementSweep::measure(keys, &s10, &s11, v, 30).unwrap();
        assert_eq!(pct(s.min_share(), 1), lo, "{v} point(s): least moved");
        assert_eq!(pct(s.max_share(), 1), hi, "{v} point(s): most moved");
        if let Some(mean) = mean {
            assert_eq!(pct(s.mean_share(), 1), mean, "{v} point(s): mean moved");
        }
        // "The ideal is 1/11, or 9.09%."
        assert_eq!(pct(s.ideal_share(), 2), "9.09%");
    }
}

// ---------------------------------------------------------------- 002 --

/// 002: hash % N, 10 → 11, 200,000 keys: 181,745 (90.87%), 163,493 between
/// old nodes, 18,252 to node 10.
#[test]
fn doc002_modulo() {
    let keys = plain_200k();
    let m = modulo_move(keys, 10, 11);
    assert_eq!(m.keys(), 200_000);
    assert_eq!(m.moved(), 181_745);
    assert_eq!(pct(m.share(), 2), "90.87%");
    assert_eq!(m.between_kept(), 163_493);
    assert_eq!(m.to_added(), 18_252);
    assert_eq!(m.added_nodes(), ["10"]);
    assert_eq!(m.from_removed(), 0);
}

/// 002: rendezvous 10 → 11: 17,986 (8.99%), 0 between old nodes.
#[test]
fn doc002_rendezvous() {
    let keys = plain_200k();
    let m = Movement::measure(keys, &Rendezvous::new(10).unwrap(), &Rendezvous::new(11).unwrap()).unwrap();
    assert_eq!(m.moved(), 17_986);
    assert_eq!(pct(m.share(), 2), "8.99%");
    assert_eq!(m.between_kept(), 0);
    // "All 17,986 movers ... went to node 10."
    assert_eq!(m.to_added(), 17_986);
    assert_eq!(m.added_nodes(), ["10"]);
}

// ---------------------------------------------------------------- 004 --

/// 004 step 1–2: hash % N 10 → 11 on 1,000,000 keys: 909,138 (90.91%), of
/// which 817,949 land on an old node.
#[test]
fn doc004_modulo() {
    let keys = plain_1m();
    let m = modulo_move(keys, 10, 11);
    assert_eq!(m.keys(), 1_000_000);
    assert_eq!(m.moved(), 909_138);
    assert_eq!(pct(m.share(), 2), "90.91%");
    assert_eq!(m.between_kept(), 817_949);
    assert_eq!(m.moved() - m.to_added(), 817_949);
}

/// 004 steps 3–4: 1000 fixed shards, shard s on node s % 10, grow to 11
/// with seed 42: 90 shards and 89,813 keys (8.98%) move; 91 shards on each
/// old node, 90 on the new one; ratio 10.1×.
#[test]
fn doc004_fixed_shards_and_ratio() {
    let keys = plain_1m();
    let ten = FixedShards::new(10).and_then(|f| f.with_shards(1000)).unwrap();
    assert_eq!(ten.shard_counts(), [100; 10]);
    assert!((0..1000).all(|s| ten.table()[s] as usize == s % 10));
    let eleven = ten.add_node("10").unwrap();
    assert_eq!(ten.moved_shards_to(&eleven).unwrap().len(), 90);
    let counts = eleven.shard_counts();
    assert_eq!(counts[..10], [91; 10]);
    assert_eq!(counts[10], 90);
    assert_eq!(eleven.nodes().len(), 11);

    let f = Movement::measure(keys, &ten, &eleven).unwrap();
    assert_eq!(f.moved(), 89_813);
    assert_eq!(pct(f.share(), 2), "8.98%");
    // Only whole shards move, and only onto the new node.
    assert_eq!(f.to_added(), f.moved());
    assert_eq!(f.between_kept(), 0);

    let m = modulo_move(keys, 10, 11);
    assert_eq!(format!("{:.1}", m.moved() as f64 / f.moved() as f64), "10.1");
}

/// 004 "Go deeper" 1 says doubling 10 → 20 moves "~1/20-ish"; it moves
/// half: a key stays only when h % 20 < 10.
#[test]
fn doc004_doubling_moves_half_not_a_twentieth() {
    let keys = plain_1m();
    let m = modulo_move(keys, 10, 20);
    assert!((m.share() - 0.5).abs() <= 0.005, "10 -> 20 moved {}", m.share());
    assert_eq!(modulo_rule(10, 20), Ok(0.5));
    assert!((m.share() - modulo_rule(10, 20).unwrap()).abs() <= 0.005);
    // Not "~1/20" (5%): ten times that.
    assert!(m.share() > 9.0 / 20.0, "10 -> 20 moved {}", m.share());
    // Every key that stays has h % 20 < 10, every mover has h % 20 >= 10 and
    // lands on node h % 20, one of the ten new nodes.
    assert_eq!(m.between_kept(), 0);
    assert_eq!(m.to_added(), m.moved());
    // Fixed shards doubled: exactly the new nodes' fair share, 500 of 1000
    // shards, and nothing between old nodes.
    let ten = FixedShards::new(10).and_then(|f| f.with_shards(1000)).unwrap();
    let twenty = ten.rebalance_to(numbered(20).unwrap()).unwrap();
    assert_eq!(ten.moved_shards_to(&twenty).unwrap().len(), 500);
    assert_eq!(twenty.shard_counts(), [50; 20]);
    let f = Movement::measure(keys, &ten, &twenty).unwrap();
    assert_eq!(f.between_kept(), 0);
    assert!((f.share() - 0.5).abs() < 0.01);
}
