//! The explorables of labs 06, 07 and 08, built as the labs' cells build
//! them, beside values computed here another way: Redis's slot ranges and
//! redis-cli's rebalance by their formulas with a CRC16 written here,
//! every node's requests added up copy by copy, and twemproxy's `ketama`
//! and `modula` rebuilt from nutcracker 0.5's source. The values are read
//! back from the emitted chart's data, as the browser reads them.
#![cfg(feature = "charts")]

use reshard::notebook::*;
use reshard::present::ExplorableOutput;

use crate::spec;

/// A grid point computed here: the sliders' setting, the series, x and the value.
type Point<'a> = (Vec<(&'a str, f64)>, &'a str, String, f64);

/// Each `(setting, series, x, value)` is in the chart's data, to 1e-12.
fn check_points(out: &ExplorableOutput, points: &[Point]) {
    for (setting, series, x, want) in points {
        let got = spec::value(out, setting, series, x);
        assert!((got - want).abs() < 1e-12, "at {setting:?}, {series}, x = {x}: chart {got}, computed {want}");
    }
}

// ---------------------------------------------------------------- 06 --

/// CRC16-XMODEM (polynomial 0x1021, initial 0), bit by bit, as the Redis
/// cluster specification gives it.
fn crc16_by_hand(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in bytes {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
        }
    }
    crc
}

/// The slot ranges `redis-cli --cluster create` gives n masters
/// (`clusterManagerCommandCreate` in redis-cli.c: a float cursor advanced by
/// 16384/n, each range ending at `lround(cursor + 16384/n − 1)`, the last
/// at 16383).
fn create_ranges(n: usize) -> Vec<(usize, usize)> {
    let per = 16_384f32 / n as f32;
    let (mut first, mut cursor, mut out) = (0usize, 0f32, Vec::new());
    for i in 0..n {
        let mut last = (cursor + per - 1.0).round() as usize;
        if last > 16_383 || i == n - 1 {
            last = 16_383;
        }
        out.push((first, last));
        first = last + 1;
        cursor += per;
    }
    out
}

#[test]
fn lab06_shares_follow_create_and_rebalance_by_formula() {
    assert_eq!(crc16_by_hand(b"123456789"), 0x31C3); // the specification's check value
    assert_eq!(create_ranges(3), [(0, 5_460), (5_461, 10_922), (10_923, 16_383)]); // redis-cli's output
                                                                                   // The lab's cell: 100,000 keys user:i, masters A … K, three to start.
    let n_keys = 100_000;
    let keys = KeySet::new("user:", n_keys).hashed(HashWidth::Bits32).unwrap();
    let names = letters("ABCDEFGHIJK");
    let ex = Slots::explorable_masters(&keys, &names, 3).unwrap();
    assert_eq!(ex.defaults(), [("masters", 3.0)]);
    assert_eq!(ex.points(), (3..=10).sum::<usize>() * 3);
    let out = ex.output().unwrap();
    let slot_of: Vec<usize> =
        (0..n_keys).map(|i| usize::from(crc16_by_hand(format!("user:{i}").as_bytes()) % 16_384)).collect();
    let mut want = Vec::new();
    for n in [3, 4, 7, 10] {
        // rebalance --cluster-use-empty-masters with weights 1: every master expects
        // ⌊16384 / (n + 1)⌋ slots; the joiner, empty, also takes the remainder, so each old
        // master gives exactly what it holds above the expectation.
        let expected = 16_384 / (n + 1);
        for (i, &(first, last)) in create_ranges(n).iter().enumerate() {
            let held = last - first + 1;
            let keys_in = slot_of.iter().filter(|&&s| (first..=last).contains(&s)).count();
            let setting = vec![("masters", n as f64)];
            want.push((setting.clone(), "slots held", names[i].clone(), held as f64 / 16_384.0));
            want.push((setting.clone(), "keys held", names[i].clone(), keys_in as f64 / n_keys as f64));
            want.push((
                setting,
                "slots given to the next master",
                names[i].clone(),
                (held - expected) as f64 / 16_384.0,
            ));
        }
    }
    check_points(&out, &want);
    // Lab 06's live run: Redis counted 33,359 keys on A; D took 1,365, 1,366 and 1,365 slots.
    let three = [("masters", 3.0)];
    assert_eq!(spec::value(&out, &three, "keys held", "A"), 33_359.0 / 100_000.0);
    for (m, given) in [("A", 1_365.0), ("B", 1_366.0), ("C", 1_365.0)] {
        assert_eq!(spec::value(&out, &three, "slots given to the next master", m), given / 16_384.0);
    }
    // Bad input is a typed error, not a panic.
    assert!(Slots::explorable_masters(&keys, &names, 11).is_err()); // no name left to join
    assert!(Slots::explorable_masters(&keys, &names, 2).is_err()); // create needs 3
    assert!(Slots::explorable_masters(&keys, &letters("ABC"), 3).is_err());
    assert!(Slots::explorable_masters(&keys, &letters("ABCDEFGHIJKLM"), 3).is_err());
    assert!(Slots::explorable_masters(&keys, &letters("ABCA"), 3).is_err());
}

// ---------------------------------------------------------------- 07 --

/// The busiest node's share of the requests under `scheme`, each key's
/// requests split evenly over its `rf` copies: every key located on its
/// own through `Replicas::replicas`, its count added to each copy's node
/// (× rf, in whole numbers).
fn busiest_by_hand(scheme: &Replicated, n_keys: usize, w: &Workload, rf: usize) -> f64 {
    let mut on = vec![0u64; scheme.nodes().len()];
    for i in 0..n_keys {
        for node in scheme.replicas(Key::new(&format!("key{i}"), HashWidth::Bits128), rf).unwrap() {
            on[node as usize] += w.counts()[i];
        }
    }
    *on.iter().max().unwrap() as f64 / (w.requests() * rf as u64) as f64
}

#[test]
fn lab07_busiest_nodes_are_added_up_copy_by_copy() {
    // The lab's line-up (10 nodes, 150 points) and seed; fewer keys and requests (a debug build).
    let (n_keys, requests, seed) = (20_000, 200_000, 2026);
    let keys = KeySet::plain(n_keys).hashed(HashWidth::Bits128).unwrap();
    let grid: Vec<Workload> = [0.0, 0.8, 1.1, 1.2, 0.8]
        .iter()
        .map(|&s| Workload::zipf(n_keys, s, requests, seed))
        .collect::<Result<_, _>>()
        .unwrap();
    let lineup = Replicated::lineup(10, 150).unwrap();
    let rfs = [1, 2, 3, 10];
    let ex = Replicated::explorable_reads(&lineup, &keys, &grid, &rfs, 3, 1.1).unwrap();
    assert_eq!(ex.defaults(), [("s", 1.1), ("rf", 3.0)]);
    assert_eq!(ex.points(), 4 * 4 * 5 * 2); // the repeated s = 0.8 shown once
    let out = ex.output().unwrap();
    let mut want = Vec::new();
    for (w, scheme, rf) in [(2, 1, 1), (2, 1, 3), (1, 0, 2), (3, 3, 3), (0, 4, 1)] {
        let setting = vec![("s", grid[w].s()), ("rf", rf as f64)];
        let label = lineup[scheme].label();
        want.push((setting, "requests", label, busiest_by_hand(&lineup[scheme], n_keys, &grid[w], rf)));
    }
    check_points(&out, &want);
    // One copy per key: the busiest node as RequestLoad measures it.
    let load = RequestLoad::measure(&keys, &grid[2], &lineup[1]).unwrap();
    let one = spec::value(&out, &[("s", 1.1), ("rf", 1.0)], "requests", "rendezvous");
    assert_eq!(one, *load.requests().iter().max().unwrap() as f64 / requests as f64);
    // Ten copies on ten nodes: every node holds every key and serves a tenth of everything.
    for scheme in &lineup {
        for series in ["key copies", "requests"] {
            let all = spec::value(&out, &[("s", 1.1), ("rf", 10.0)], series, &scheme.label());
            assert!((all - 0.1).abs() < 1e-12, "{} {series}: {all}", scheme.label());
        }
    }
    // Bad input is a typed error, not a panic.
    assert!(Replicated::explorable_reads(&lineup, &keys, &grid, &rfs, 3, 0.5).is_err()); // no such s
    assert!(Replicated::explorable_reads(&lineup, &keys, &grid, &[0, 1], 1, 1.1).is_err());
    assert!(Replicated::explorable_reads(&lineup, &keys, &grid, &[1, 11], 1, 1.1).is_err());
    assert!(Replicated::explorable_reads(&[], &keys, &grid, &rfs, 3, 1.1).is_err());
    let short = [Workload::zipf(10, 1.0, 100, 1).unwrap()];
    assert!(Replicated::explorable_reads(&lineup, &keys, &short, &[1], 1, 1.0).is_err());
    // Two schemes of one label would be one group of bars: refused, naming the label.
    let twice = [lineup[1].clone(), lineup[1].clone()];
    let err = Replicated::explorable_reads(&twice, &keys, &grid, &rfs, 3, 1.1).unwrap_err();
    assert!(matches!(&err, Error::OutOfRange { what: "line-up", .. }), "{err:?}");
    assert!(err.to_string().contains(&format!("two schemes labelled {:?}", lineup[1].label())), "{err}");
}

// ---------------------------------------------------------------- 08 --

/// nutcracker 0.5's `hash_fnv1a_64` (hashkit/nc_fnv.c): FNV-1a with the
/// 64-bit offset basis and prime, kept in a `uint32_t`.
fn fnv1a_64_by_hand(key: &[u8]) -> u32 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 as u32;
    for &b in key {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3u64 as u32);
    }
    h
}

/// nutcracker 0.5's `ketama_update` (hashkit/nc_ketama.c) for servers of
/// weight 1: 160 points per server, four per md5 digest of `"{name}-{i}"`,
/// each the digest's bytes 4k … 4k+3 read little-endian; sorted by value.
fn ketama_points_by_hand(names: &[String]) -> Vec<(u32, usize)> {
    let mut points = Vec::new();
    for (server, name) in names.iter().enumerate() {
        for i in 0..40 {
            let digest = md5_u128(format!("{name}-{i}").as_bytes()).to_be_bytes();
            for k in 0..4 {
                let b = &digest[4 * k..4 * k + 4];
                points.push((u32::from_le_bytes([b[0], b[1], b[2], b[3]]), server));
            }
        }
    }
    points.sort();
    points
}

/// Each key's server, `key:0 … key:{n-1}`: `ketama_dispatch` (the first
/// point at or after the hash, wrapping) or `modula_dispatch` (hash %
/// servers, servers of weight 1 in name order).
fn twemproxy_servers_by_hand(names: &[String], n_keys: usize, ketama: bool) -> Vec<usize> {
    let points = ketama_points_by_hand(names);
    (0..n_keys)
        .map(|i| {
            let h = fnv1a_64_by_hand(format!("key:{i}").as_bytes());
            if ketama {
                points.get(points.partition_point(|p| p.0 < h)).unwrap_or(&points[0]).1
            } else {
                (h % names.len() as u32) as usize
            }
        })
        .collect()
}

#[test]
fn lab08_remapped_shares_follow_nutcrackers_source() {
    let n_keys = 20_000;
    let keys = KeySet::new("key:", n_keys).hashed(HashWidth::Bits32).unwrap();
    let names = letters("ABCDEFGHIJKLM");
    let ex = Twemproxy::named(letters("ABC")).unwrap().explorable_remap(&keys, &names).unwrap();
    assert_eq!(ex.defaults(), [("servers", 3.0)]);
    assert_eq!(ex.points(), 11 * 3);
    let out = ex.output().unwrap();
    let mut want = Vec::new();
    for (n, ketama) in [(3, true), (3, false), (2, false), (5, true), (8, false), (12, true), (12, false)] {
        let (before, after) = (
            twemproxy_servers_by_hand(&names[..n], n_keys, ketama),
            twemproxy_servers_by_hand(&names[..=n], n_keys, ketama),
        );
        let moved = before.iter().zip(&after).filter(|(b, a)| b != a).count(); // same index, same name
        let x = if ketama { "ketama" } else { "modula" };
        want.push((vec![("servers", n as f64)], "", x.to_string(), moved as f64 / n_keys as f64));
    }
    for n in [2, 7] {
        want.push((vec![("servers", n as f64)], "", "floor 1/(N + 1)".to_string(), 1.0 / (n + 1) as f64));
    }
    check_points(&out, &want);
    // Lab 08's live run: D's 160 points took 4,952 of the 20,000 keys from A, B and C.
    assert_eq!(spec::value(&out, &[("servers", 3.0)], "", "ketama"), 4_952.0 / 20_000.0);
    // Bad input is a typed error, not a panic.
    let pool = Twemproxy::named(letters("ABC")).unwrap();
    assert!(pool.explorable_remap(&keys, &letters("BCDE")).is_err()); // not the pool's servers first
    assert!(pool.explorable_remap(&keys, &letters("ABC")).is_err()); // none to join
    assert!(pool.explorable_remap(&keys, &letters("ABCDA")).is_err()); // A twice
    assert!(Twemproxy::named(letters("A")).unwrap().explorable_remap(&keys, &letters("AB")).is_err());
    let many: Vec<String> = (0..33).map(|i| format!("s{i}")).collect();
    assert!(Twemproxy::named(&many[..3]).unwrap().explorable_remap(&keys, &many).is_err());
}
