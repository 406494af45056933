//! Key ranges and hash ranges against definitions written here: lookups
//! against a linear count, `touching` against interval intersection, the
//! add/remove rules against loops over the rule's words, pre-splits against
//! the quantile formula, range queries against a scan; and every error.

use crate::common;
use common::expect_err;
use proptest::prelude::*;
use reshard::analysis::{Boundary, GrowthSettings, RangeGrowth, RangeLayout, RangeQuery};
use reshard::prelude::*;

/// Sorted, distinct, non-empty byte strings over an alphabet that makes
/// prefixes and bytes ≥ 0x80 common.
fn bounds() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let byte = prop::sample::select(vec![0x00u8, b'a', b'b', 0x7f, 0x80, 0xff]);
    prop::collection::vec(prop::collection::vec(byte, 1..4), 0..12).prop_map(|mut v| {
        v.sort();
        v.dedup();
        v
    })
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop::sample::select(vec![0x00u8, b'a', b'b', 0x7f, 0x80, 0xff]);
    prop::collection::vec(byte, 0..5)
}

/// The number of boundaries at or below `key`: its range, by definition.
fn linear(bounds: &[Vec<u8>], key: &[u8]) -> usize {
    bounds.iter().filter(|b| b.as_slice() <= key).count()
}

/// The ranges `[lo, hi)` intersects, by definition: range `i` is `[L, U)`
/// (−∞ is the empty key, the lowest), and two intervals meet when the
/// larger start is below the smaller end.
fn meets(bounds: &[Vec<u8>], lo: Option<&[u8]>, hi: Option<&[u8]>) -> Vec<usize> {
    (0..=bounds.len())
        .filter(|&i| {
            let start = i.checked_sub(1).map_or(&[][..], |j| bounds[j].as_slice()).max(lo.unwrap_or(&[]));
            let end = match (bounds.get(i).map(Vec::as_slice), hi) {
                (Some(u), Some(h)) => Some(u.min(h)),
                (u, h) => u.or(h),
            };
            end.is_none_or(|e| start < e)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn range_of_is_the_count_of_boundaries_at_or_below(b in bounds(), keys in prop::collection::vec(key(), 1..20)) {
        let r = KeyRanges::new(3).unwrap().with_boundaries(&b).unwrap();
        for k in &keys {
            prop_assert_eq!(r.range_of(k), linear(&b, k));
            let owner = r.table()[linear(&b, k)];
            prop_assert_eq!(r.locate(Key::new(k, HashWidth::Bits32)), owner);
        }
    }

    #[test]
    fn touching_is_interval_intersection(b in bounds(), lo in prop::option::of(key()), hi in prop::option::of(key())) {
        let r = KeyRanges::new(2).unwrap().with_boundaries(&b).unwrap();
        let got: Vec<usize> = r.touching(lo.as_deref(), hi.as_deref()).collect();
        prop_assert_eq!(got, meets(&b, lo.as_deref(), hi.as_deref()));
    }

    #[test]
    fn hash_range_of_is_a_count(mut b in prop::collection::vec(1u128..=u32::MAX as u128, 0..10), h in any::<u128>()) {
        b.sort();
        b.dedup();
        let r = HashRanges::new(2).unwrap().with_boundaries(&b).unwrap();
        let reduced = h % (1 << 32);
        prop_assert_eq!(r.range_of(h), b.iter().filter(|&&x| x <= reduced).count());
    }

    #[test]
    fn split_then_merge_is_the_identity(b in bounds(), at in key()) {
        let r = KeyRanges::new(1).unwrap().with_boundaries(&b).unwrap();
        match r.split_at(&at) {
            Ok(s) => {
                let i = s.range_of(&at);
                prop_assert_eq!(&s.boundaries()[i - 1], &at);
                prop_assert_eq!(s.merge(i - 1).unwrap(), r);
            }
            Err(e) => prop_assert!(at.is_empty() || b.contains(&at), "{}", e),
        }
    }
}

/// The add rule in its own words: while the node holding the most ranges
/// (lowest index on ties) holds at least two more than the new node, it
/// gives the new node its highest-numbered range.
fn add_by_the_rule(table: &[u32], nodes: usize) -> Vec<u32> {
    let mut t = table.to_vec();
    let new = nodes as u32;
    loop {
        let count = |n: u32| t.iter().filter(|&&o| o == n).count();
        let donor = (0..nodes as u32).max_by_key(|&n| (count(n), std::cmp::Reverse(n))).unwrap();
        if count(donor) < count(new) + 2 {
            return t;
        }
        let r = t.iter().rposition(|&o| o == donor).unwrap();
        t[r] = new;
    }
}

/// The remove rule in its own words: the node's ranges, in key order, each
/// to the node then holding the fewest (lowest index on ties); renumbered.
fn remove_by_the_rule(table: &[u32], nodes: usize, gone: u32) -> Vec<u32> {
    let mut t = table.to_vec();
    for r in 0..t.len() {
        if t[r] == gone {
            let count = |n: u32, t: &[u32]| t.iter().filter(|&&o| o == n).count();
            let to = (0..nodes as u32).filter(|&n| n != gone).min_by_key(|&n| (count(n, &t), n)).unwrap();
            t[r] = to;
        }
    }
    t.iter().map(|&o| if o > gone { o - 1 } else { o }).collect()
}

#[test]
fn adding_and_removing_follow_the_rules_and_move_keys_only_to_or_from_that_node() {
    let keys = KeySet::plain(3_000).hashed(HashWidth::Bits32).unwrap();
    for nodes in 1..6usize {
        for ranges in [1usize, 2, 5, 17, 40] {
            let names = numbered(nodes).unwrap();
            let mut b: Vec<String> = (1..ranges).map(|i| format!("key{}", i * 3_000 / ranges)).collect();
            b.sort(); // byte order: key1200 < key600
            let owners: Vec<&str> = (0..ranges).map(|i| names[(i * i + 3 * i) % nodes].as_str()).collect();
            let r = KeyRanges::named(names.clone()).unwrap().with_boundaries(&b).unwrap().with_owners(owners).unwrap();
            let grown = r.add_node("new").unwrap();
            assert_eq!(grown.table(), add_by_the_rule(r.table(), nodes), "{nodes} nodes {ranges} ranges");
            let m = Movement::measure(&keys, &r, &grown).unwrap();
            assert_eq!((m.moved(), m.between_kept()), (m.to_added(), 0));
            for (gone, name) in names.iter().enumerate().take(3) {
                let Ok(shrunk) = r.remove_node(name) else {
                    assert_eq!(nodes, 1);
                    continue;
                };
                assert_eq!(shrunk.table(), remove_by_the_rule(r.table(), nodes, gone as u32));
                let m = Movement::measure(&keys, &r, &shrunk).unwrap();
                assert_eq!((m.moved(), m.between_kept()), (m.from_removed(), 0));
            }
            // the same rules for hash ranges
            let h = HashRanges::named(names.clone()).unwrap().with_even_split(ranges).unwrap();
            assert_eq!(h.add_node("new").unwrap().table(), add_by_the_rule(h.table(), nodes));
        }
    }
}

#[test]
fn presplit_cuts_at_the_quantiles() {
    // 1,000 keys in byte order key0, key1, key10, key100, …: sorted here by std
    let sample = KeySet::plain(1_000);
    let mut sorted: Vec<Vec<u8>> = sample.iter().map(String::into_bytes).collect();
    sorted.sort();
    for k in [1usize, 2, 3, 7, 10, 999, 1_000] {
        let r = KeyRanges::new(4).unwrap().presplit(&sample, k).unwrap();
        let want: Vec<Vec<u8>> = (1..k).map(|j| sorted[j * 1_000 / k].clone()).collect();
        assert_eq!(r.boundaries(), want, "k = {k}");
        assert_eq!(
            r.table().iter().map(|&o| o as usize).collect::<Vec<_>>(),
            (0..k).map(|i| i % 4).collect::<Vec<_>>()
        );
    }
    // 1,001 ranges: ⌊j·1000/1001⌋ = j − 1, every key a boundary, range 0 below them all
    assert_eq!(KeyRanges::new(1).unwrap().presplit(&sample, 1_001).unwrap().boundaries(), sorted);
    // 1,002: ⌊501·1000/1002⌋ = ⌊502·1000/1002⌋ = 500, the same key twice
    expect_err(
        "presplit(1,000 keys, 1,002)",
        || KeyRanges::new(1).unwrap().presplit(&sample, 1_002).map(|r| r.table().len()),
        |e| matches!(e, Error::TooFewDistinctKeys { ranges: 1_002, sample: 1_000, distinct: 1_000 }),
        "ask for fewer ranges",
    );
}

#[test]
fn a_range_query_returns_what_a_scan_of_the_keys_finds() {
    let keys = KeySet::new("user", 5_000);
    let by_key =
        KeyRanges::named(letters("ABC")).unwrap().with_boundaries(["user2", "user4", "user6", "user8"]).unwrap();
    let by_hash = HashRanges::named(letters("ABC")).unwrap().with_even_split(9).unwrap();
    type Interval<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);
    let intervals: [Interval; 5] = [
        (Some(b"user3"), Some(b"user5")),
        (None, Some(b"user2")),
        (Some(b"user7"), None),
        (Some(b"user4"), Some(b"user4")),
        (None, None),
    ];
    for (lo, hi) in intervals {
        let inside: Vec<Vec<u8>> = keys
            .iter()
            .map(String::into_bytes)
            .filter(|k| lo.is_none_or(|l| k.as_slice() >= l) && hi.is_none_or(|h| k.as_slice() < h))
            .collect();
        let q = RangeQuery::measure(&keys, &by_key, lo, hi).unwrap();
        assert_eq!(q.rows(), inside.len() as u64);
        let b = by_key.boundaries();
        assert_eq!(q.parts().iter().map(|p| p.range).collect::<Vec<_>>(), meets(b, lo, hi));
        for p in q.parts() {
            assert_eq!(p.rows, inside.iter().filter(|k| linear(b, k) == p.range).count() as u64);
        }
        let h = RangeQuery::measure(&keys, &by_hash, lo, hi).unwrap();
        let mut held = [0u64; 9];
        for k in &inside {
            let hash = HashWidth::Bits32.hash(k);
            held[by_hash.boundaries().iter().filter(|&&x| x <= hash).count()] += 1;
        }
        let want: Vec<(usize, u64)> = (0..9).filter(|&r| held[r] > 0).map(|r| (r, held[r])).collect();
        assert_eq!(h.parts().iter().map(|p| (p.range, p.rows)).collect::<Vec<_>>(), want);
        assert_eq!(h.ranges_total(), 9);
    }
}

/// An empty interval — `[k5, k5)`, `[k9, k1)`, anything below the empty
/// key — holds no key whatever the keys, so a router asks no node: under
/// key ranges and under hash ranges alike (hash ranges asked all four).
#[test]
fn an_empty_interval_asks_no_node() {
    let keys = KeySet::new("k", 100);
    let by_key = KeyRanges::new(4).unwrap().with_boundaries(["k3", "k5", "k7"]).unwrap();
    let by_hash = HashRanges::new(4).unwrap().with_even_split(4).unwrap();
    type Interval<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);
    let empty: [Interval; 4] =
        [(Some(b"k5"), Some(b"k5")), (Some(b"k9"), Some(b"k1")), (None, Some(b"")), (Some(b"zz"), Some(b""))];
    for (lo, hi) in empty {
        for q in [RangeQuery::measure(&keys, &by_key, lo, hi), RangeQuery::measure(&keys, &by_hash, lo, hi)] {
            let q = q.unwrap();
            assert!(q.is_empty_interval(), "{lo:?} {hi:?}");
            assert_eq!((q.rows(), q.parts().len(), q.nodes_routed()), (0, 0, vec![]), "{lo:?} {hi:?}");
            assert!(q.table().to_text().contains("a router asks no range"), "{}", q.table());
        }
    }
    // a one-key interval is not empty: hash ranges ask every node, key ranges the one range
    let one = RangeQuery::measure(&keys, &by_hash, Some(b"k5"), Some(b"k50")).unwrap();
    assert!(!one.is_empty_interval());
    assert_eq!((one.rows(), one.nodes_routed()), (1, vec![0, 1, 2, 3]));
    let one = RangeQuery::measure(&keys, &by_key, Some(b"k5"), Some(b"k50")).unwrap();
    assert_eq!((one.rows(), one.nodes_routed()), (1, vec![2]));
    assert!(!RangeQuery::measure(&keys, &by_key, None, None).unwrap().is_empty_interval());
}

#[test]
fn the_final_layout_is_the_start_with_every_split_and_move_applied() {
    let keys = KeySet::new("order:", 4_000);
    let start = KeyRanges::named(letters("ABCD")).unwrap().with_boundaries(["order:2"]).unwrap();
    let s = GrowthSettings::new(150).arrival(reshard::analysis::Arrival::Shuffled(11)).balance(2.0);
    let g = RangeGrowth::run(&keys, &start, &s).unwrap();
    // replay the log: splits and moves in arrival order, splits of an arrival before its moves
    let mut r = start.clone();
    let (mut si, mut mi) = (0, 0);
    while si < g.splits().len() || mi < g.moves().len() {
        let next_split = g.splits().get(si).map(|x| x.arrival);
        let next_move = g.moves().get(mi).map(|x| x.arrival);
        // a move follows the split of its arrival that triggered the balancer run
        if next_split.is_some() && next_move.is_none_or(|m| next_split.unwrap() <= m) {
            let Boundary::Key(b) = &g.splits()[si].boundary else { panic!("a key boundary") };
            assert_eq!(r.range_of(b), g.splits()[si].range, "split {si}");
            r = r.split_at(b).unwrap();
            si += 1;
        } else {
            let m = &g.moves()[mi];
            assert_eq!(r.table()[m.range], m.from, "move {mi}");
            r = r.move_range(m.range, &r.nodes()[m.to as usize]).unwrap();
            mi += 1;
        }
    }
    assert_eq!(RangeLayout::from(r), *g.final_layout());
    assert!(!g.moves().is_empty());
}

#[test]
fn every_error_says_what_to_change() {
    let kr = KeyRanges::named(letters("AB")).unwrap();
    expect_err(
        "unsorted",
        || kr.clone().with_boundaries(["b", "\u{e9}", "a"]),
        |e| matches!(e, Error::UnsortedBoundaries { index: 2, .. }),
        "boundary 2 (\"a\") is not above boundary 1 (\"é\")",
    );
    expect_err(
        "unsorted bytes",
        || kr.clone().with_boundaries([&b"\xff"[..], b"\x80"]),
        |e| matches!(e, Error::UnsortedBoundaries { index: 1, .. }),
        "(\"\\x80\") is not above boundary 0 (\"\\xff\")",
    );
    expect_err(
        "duplicate",
        || kr.clone().with_boundaries(["a", "a"]),
        |e| matches!(e, Error::DuplicateBoundary { index: 1, .. }),
        "give each boundary once",
    );
    expect_err(
        "empty key",
        || kr.clone().with_boundaries([""]),
        |e| matches!(e, Error::EmptyBoundary { .. }),
        "range 0 would be empty",
    );
    expect_err(
        "too many",
        || kr.clone().with_boundaries(std::iter::repeat_n("a", 20_000_000)),
        |e| matches!(e, Error::TooLarge { .. }),
        "fewer ranges",
    );
    expect_err(
        "owners",
        || kr.clone().with_owners(["A", "B"]),
        |e| *e == Error::LengthMismatch { what: "owners for ranges", expected: 1, given: 2 },
        "exactly one per item",
    );
    expect_err("owner", || kr.clone().with_owners(["Z"]), |e| *e == Error::UnknownNode("Z".into()), "no node named");
    let two = kr.clone().with_boundaries(["m"]).unwrap();
    expect_err("merge", || two.merge(0), |e| matches!(e, Error::MergeAcrossNodes { .. }), "move one first");
    expect_err("merge last", || two.merge(1), |e| *e == Error::NoSuchRange { index: 2, ranges: 2 }, "numbered 0 to 1");
    expect_err("move", || two.move_range(2, "A"), |e| matches!(e, Error::NoSuchRange { .. }), "there is no range 2");
    expect_err("move to", || two.move_range(0, "Z"), |e| matches!(e, Error::UnknownNode(_)), "no node named");
    expect_err(
        "split",
        || two.split_at("m"),
        |e| matches!(e, Error::AlreadyBoundary { range: 1, .. }),
        "inside a range",
    );
    expect_err("split empty", || two.split_at(""), |e| matches!(e, Error::EmptyBoundary { .. }), "drop it");
    expect_err(
        "presplit 0",
        || kr.clone().presplit(&KeySet::plain(5), 0),
        |e| matches!(e, Error::OutOfRange { .. }),
        "1 or more",
    );
    expect_err(
        "presplit empty keys",
        || kr.clone().presplit(&KeySet::from_keys(["", "", "a"]).unwrap(), 3),
        |e| matches!(e, Error::TooFewDistinctKeys { distinct: 2, .. }),
        "the empty key cannot be a boundary",
    );
    expect_err("add twice", || kr.add_node("A"), |e| matches!(e, Error::DuplicateNode(_)), "appears twice");
    expect_err(
        "remove last",
        || KeyRanges::new(1).unwrap().remove_node("0"),
        |e| matches!(e, Error::LastNode(_)),
        "only node",
    );

    let hr = HashRanges::named(letters("AB")).unwrap();
    expect_err(
        "hash out of space",
        || hr.clone().with_boundaries(&[5, 1 << 32]),
        |e| *e == Error::HashOutOfRange { value: 1 << 32, bits: 32 },
        "with_width(HashWidth::Bits128)",
    );
    expect_err(
        "hash 0",
        || hr.clone().with_boundaries(&[0]),
        |e| matches!(e, Error::EmptyBoundary { .. }),
        "0 cannot be a boundary",
    );
    expect_err(
        "hash max",
        || hr.split_at(u128::MAX),
        |e| matches!(e, Error::HashOutOfRange { .. }),
        "below 4,294,967,296",
    );
    expect_err(
        "even 0",
        || hr.clone().with_even_split(0),
        |e| matches!(e, Error::OutOfRange { .. }),
        "1 to 4,294,967,296",
    );
    let narrow = hr.clone().with_boundaries(&[7, 8]).unwrap();
    expect_err(
        "narrow",
        || narrow.split_middle(1),
        |e| *e == Error::RangeTooNarrow { index: 1, hash: 7 },
        "a wider range",
    );
    expect_err(
        "no range",
        || narrow.split_middle(3),
        |e| matches!(e, Error::NoSuchRange { .. }),
        "there is no range 3",
    );
    let wide = hr.clone().with_width(HashWidth::Bits128).unwrap().with_boundaries(&[u128::MAX]).unwrap();
    expect_err("narrow", || wide.split_middle(1), |e| matches!(e, Error::RangeTooNarrow { .. }), "single hash");
    expect_err(
        "narrowing",
        || wide.clone().with_width(HashWidth::Bits32),
        |e| matches!(e, Error::HashOutOfRange { .. }),
        "outside",
    );

    let keys = KeySet::plain(10);
    let run = |s: GrowthSettings| RangeGrowth::run(&keys, &kr, &s);
    expect_err(
        "threshold 0",
        || run(GrowthSettings::new(0)),
        |e| matches!(e, Error::OutOfRange { .. }),
        "1 or more rows",
    );
    for f in [0.5, f64::NAN, f64::INFINITY, -2.0] {
        expect_err(
            "factor",
            || run(GrowthSettings::new(5).balance(f)),
            |e| matches!(e, Error::BadNumber { .. }),
            "use 2.0",
        );
    }
    expect_err(
        "samples",
        || run(GrowthSettings::new(5).sample_every(0)),
        |e| matches!(e, Error::OutOfRange { .. }),
        "1 or more",
    );
    expect_err(
        "no keys",
        || RangeGrowth::run(&KeySet::plain(0), &kr, &GrowthSettings::new(5)),
        |e| *e == Error::NoKeys,
        "empty",
    );
    expect_err("no keys", || RangeQuery::measure(&KeySet::plain(0), &kr, None, None), |e| *e == Error::NoKeys, "empty");
}

/// A 128-bit hash range table refuses keys hashed at 32 bits, whose hashes
/// all sit below 2^32, in its first range (they loaded [1000, 0, 0, 0]);
/// keys hashed at 128 bits under a 32-bit table are read at 32 bits, the
/// same owners as the 32-bit key set.
#[test]
fn a_wide_hash_range_table_refuses_narrow_keys() {
    let narrow = KeySet::plain(1_000).hashed(HashWidth::Bits32).unwrap();
    let wide = KeySet::plain(1_000).hashed(HashWidth::Bits128).unwrap();
    let t128 = HashRanges::new(4).unwrap().with_width(HashWidth::Bits128).unwrap().with_even_split(4).unwrap();
    let is_width = |e: &Error| matches!(e, Error::OutOfRange { what: "hash width of the keys", .. });
    expect_err("LoadReport, 32-bit keys", || LoadReport::measure(&narrow, &t128), is_width, "HashWidth::Bits128");
    let grown = t128.add_node("4").unwrap();
    expect_err("Movement, 32-bit keys", || Movement::measure(&narrow, &t128, &grown), is_width, "first range");
    let counts = LoadReport::measure(&wide, &t128).unwrap().counts().to_vec();
    assert!(counts.iter().all(|&c| c > 150), "{counts:?}");
    let t32 = HashRanges::new(4).unwrap().with_even_split(4).unwrap();
    assert_eq!(t32.assign(&wide), t32.assign(&narrow));
}
