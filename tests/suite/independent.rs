//! Cross-checks against computations that do not go through the crate:
//! Python's `hashlib` and `random` (values produced with the local
//! python3 3.11.7 and hardcoded here, with the snippet that made them), and
//! brute-force reference implementations written in this file.

use reshard::analysis::modulo::count_moved_streaming;
#[allow(unused_imports)]
use reshard::prelude::*;
use reshard::{
    letters, md5_u128, modulo_rule, numbered, prefixed, FixedShards, HashWidth, HashedKeys, KeySet, LoadReport, Modulo,
    Movement, NodeId, Placement, PyRandom, Rendezvous, Ring,
};

// ------------------------------------------------------------- md5 --

/// Produced with:
/// ```python
/// import hashlib
/// def md5i(s): return int(hashlib.md5(s.encode()).hexdigest(), 16)
/// for k in [...]: print(repr(k), md5i(k), md5i(k) % 2**32)
/// ```
const MD5_VECTORS: [(&str, u128, u128); 12] = [
    ("user:0", 326915952906667198427426287093303219217, 1060639761),
    ("user:1", 252147611454245478552420385162344844498, 3519597778),
    ("user:99999", 164688361089505517767420068668918265095, 786494727),
    ("key0", 45131504060613900271599024054269708792, 3775203832),
    ("key7", 331732374026449982294028574086150004462, 2253954798),
    ("key999999", 302282578912017374091403964383545582840, 3731940600),
    ("", 281949768489412648962353822266799178366, 3975692926),
    ("A#0", 330307766145524440537865738102367803242, 3555415914),
    ("0:A#149", 191247989712569977329412603508210196585, 2098651241),
    ("S10#199", 301783188079342789690178956197290514759, 2525174087),
    ("key7:10", 142481795327043330581575849433703683917, 1329108813),
    ("ключ", 259726384039714788407059515981389908711, 128994023),
];

#[test]
fn md5_matches_python_hashlib() {
    for (key, full, low32) in MD5_VECTORS {
        assert_eq!(md5_u128(key.as_bytes()), full, "md5_u128({key:?})");
        assert_eq!(HashWidth::Bits128.hash(key.as_bytes()), full, "Bits128.hash({key:?})");
        assert_eq!(HashWidth::Bits32.hash(key.as_bytes()), low32, "Bits32.hash({key:?})");
        assert_eq!(HashWidth::Bits32.reduce(full), low32);
    }
}

#[test]
fn hashed_key_sets_use_the_same_md5() {
    // user:0, user:1 and user:99999 sit at indices 0, 1, 99999.
    let u = KeySet::users(100_000).hashed(HashWidth::Bits32).unwrap();
    assert_eq!(u.hashes()[0], 1060639761);
    assert_eq!(u.hashes()[1], 3519597778);
    assert_eq!(u.hashes()[99_999], 786494727);
    let k = KeySet::plain(8).hashed(HashWidth::Bits128).unwrap();
    assert_eq!(k.hashes()[0], 45131504060613900271599024054269708792);
    assert_eq!(k.hashes()[7], 331732374026449982294028574086150004462);
    assert_eq!(KeySet::plain(3).iter().collect::<Vec<_>>(), ["key0", "key1", "key2"]);
    // sorted_order really is ascending by hash
    let order = u.sorted_order();
    assert_eq!(order.len(), u.len());
    assert!(order.windows(2).all(|w| u.hashes()[w[0] as usize] <= u.hashes()[w[1] as usize]));
}

// -------------------------------------------------------- PyRandom --

/// `r = random.Random(42); [r.getrandbits(32) for _ in range(10)]`
#[test]
fn getrandbits32_matches_python_seed_42() {
    let mut r = PyRandom::new(42);
    let got: Vec<u64> = (0..10).map(|_| r.getrandbits(32).unwrap()).collect();
    assert_eq!(
        got,
        [
            2746317213, 478163327, 107420369, 3184935163, 1181241943, 1051802512, 958682846, 599310825, 3163119785,
            440213415
        ]
    );
}

/// `r = random.Random(s); [r.getrandbits(32) for _ in range(5)]`; seeds of
/// one and of two 32-bit words.
/// `random.Random(42).getrandbits(k)` for k above 32 (CPython fills 32-bit
/// words from the least significant): values printed by python3.
#[test]
fn getrandbits_wide_matches_python() {
    let mut r = PyRandom::new(42);
    assert_eq!(r.getrandbits(40).unwrap(), 123_005_401_501);
    assert_eq!(r.getrandbits(64).unwrap(), 13_679_192_365_072_849_617);
    assert_eq!(r.getrandbits(0).unwrap(), 0);
    assert!(r.getrandbits(65).is_err());
    assert!(r.randbelow(0).is_err());
}

#[test]
fn getrandbits32_matches_python_other_seeds() {
    let cases: [(u64, [u64; 5]); 5] = [
        (0, [3626764237, 1654615998, 3255389356, 3823568514, 1806341205]),
        (1, [577090037, 2444712010, 3639700191, 3445702192, 3280387012]),
        ((1 << 40) + 5, [2166296868, 2220160828, 1153647273, 2850991874, 3976222944]),
        (1 << 32, [485306839, 1508871100, 1794561286, 4014597330, 71624475]),
        ((1 << 32) - 1, [2728839433, 2661025012, 872737089, 924893097, 2608619700]),
    ];
    for (seed, want) in cases {
        let mut r = PyRandom::new(seed);
        let got: Vec<u64> = (0..5).map(|_| r.getrandbits(32).unwrap()).collect();
        assert_eq!(got, want, "seed {seed}");
    }
}

/// `r = random.Random(42); [r.getrandbits(k) for k in [1,2,3,7,8,16,31,32,5,13]]`
#[test]
fn getrandbits_k_matches_python() {
    let mut r = PyRandom::new(42);
    let got: Vec<u64> = [1, 2, 3, 7, 8, 16, 31, 32, 5, 13].iter().map(|&k| r.getrandbits(k).unwrap()).collect();
    assert_eq!(got, [1, 0, 0, 94, 70, 16049, 479341423, 599310825, 23, 839]);
}

/// `r = random.Random(42); [r._randbelow(n) for n in ns]`, every n ≥ 2.
#[test]
fn randbelow_matches_python() {
    let ns: [u32; 13] = [2, 3, 10, 100, 1000, 1 << 31, (1 << 31) + 1, u32::MAX, 7, 6, 5, 17, 65537];
    let mut r = PyRandom::new(42);
    let got: Vec<u32> = ns.iter().map(|&n| r.randbelow(n).unwrap()).collect();
    assert_eq!(got, [0, 0, 4, 31, 228, 599310825, 440213415, 2906402157, 5, 4, 0, 13, 4165]);

    // r = random.Random(7); l = [r._randbelow(1000) for _ in range(1000)]
    // sum(l) == 485863, l[:20] as below
    let mut r = PyRandom::new(7);
    let l: Vec<u32> = (0..1000).map(|_| r.randbelow(1000).unwrap()).collect();
    assert_eq!(l.iter().map(|&x| x as u64).sum::<u64>(), 485_863);
    assert_eq!(l[..20], [331, 970, 154, 404, 666, 49, 74, 840, 548, 96, 374, 596, 59, 931, 519, 219, 38, 88, 444, 428]);
}

/// Python's `_randbelow(1)` is not free: `k = (1).bit_length() = 1`, so it
/// draws `getrandbits(1)` until the draw is 0 and consumes generator
/// output. `r = random.Random(42); [r._randbelow(n) for n in [5,1,5,1,1,5,10,1,100]]`
/// gives `[0, 0, 2, 0, 0, 1, 1, 0, 75]`.
#[test]
fn randbelow_one_consumes_output_like_python() {
    let ns = [5, 1, 5, 1, 1, 5, 10, 1, 100];
    let mut r = PyRandom::new(42);
    let got: Vec<u32> = ns.iter().map(|&n| r.randbelow(n).unwrap()).collect();
    assert_eq!(got, [0, 0, 2, 0, 0, 1, 1, 0, 75]);
}

/// `x = list(range(100)); random.Random(s).shuffle(x)` for s in 42, 0, 1, 2**40+5.
#[test]
fn shuffle_matches_python() {
    let cases: [(u64, [u32; 100]); 4] = [
        (
            42,
            [
                42, 41, 91, 9, 65, 50, 1, 70, 15, 78, 73, 10, 55, 56, 72, 45, 48, 92, 76, 37, 30, 21, 32, 96, 80, 49,
                83, 26, 87, 33, 8, 47, 59, 63, 74, 44, 98, 52, 85, 12, 36, 23, 39, 40, 18, 66, 61, 60, 7, 34, 99, 46,
                2, 51, 16, 38, 58, 68, 22, 62, 24, 5, 6, 67, 82, 19, 79, 43, 90, 20, 0, 95, 57, 93, 53, 89, 25, 71, 84,
                77, 64, 29, 27, 88, 97, 4, 54, 75, 11, 69, 86, 13, 17, 28, 31, 35, 94, 3, 14, 81,
            ],
        ),
        (
            0,
            [
                23, 8, 11, 7, 48, 13, 1, 91, 94, 54, 16, 63, 52, 41, 80, 2, 47, 87, 78, 66, 19, 6, 24, 10, 59, 30, 22,
                29, 83, 37, 93, 81, 43, 99, 86, 28, 34, 88, 44, 14, 84, 70, 4, 20, 15, 21, 31, 76, 57, 67, 73, 50, 69,
                25, 98, 46, 96, 0, 72, 35, 58, 92, 3, 95, 56, 90, 26, 40, 55, 89, 75, 71, 60, 42, 9, 82, 39, 18, 77,
                68, 32, 79, 12, 85, 36, 17, 64, 27, 74, 45, 61, 38, 51, 62, 65, 33, 5, 53, 97, 49,
            ],
        ),
        (
            1,
            [
                53, 37, 65, 51, 4, 20, 38, 9, 10, 81, 44, 36, 84, 50, 96, 90, 66, 16, 80, 33, 24, 52, 91, 99, 64, 5,
                58, 76, 39, 79, 23, 94, 30, 73, 25, 47, 31, 45, 19, 87, 42, 68, 95, 21, 7, 67, 46, 82, 11, 6, 41, 86,
                88, 70, 18, 78, 71, 59, 43, 61, 22, 14, 35, 93, 56, 28, 98, 54, 27, 89, 1, 69, 74, 2, 85, 40, 13, 75,
                29, 34, 92, 0, 77, 55, 49, 3, 62, 12, 26, 48, 83, 60, 57, 63, 15, 32, 8, 97, 72, 17,
            ],
        ),
        (
            (1 << 40) + 5,
            [
                24, 85, 44, 75, 82, 26, 71, 51, 11, 45, 27, 13, 72, 60, 92, 38, 0, 47, 68, 62, 61, 20, 96, 69, 32, 2,
                25, 9, 57, 73, 94, 55, 4, 41, 76, 1, 89, 98, 53, 40, 86, 81, 23, 63, 52, 97, 95, 46, 58, 49, 91, 74,
                18, 33, 6, 80, 37, 65, 8, 39, 99, 35, 50, 19, 77, 79, 28, 78, 43, 22, 12, 16, 36, 56, 42, 93, 54, 14,
                7, 59, 29, 70, 15, 48, 88, 31, 90, 87, 83, 30, 17, 10, 21, 5, 67, 3, 84, 34, 66, 64,
            ],
        ),
    ];
    for (seed, want) in cases {
        let mut x: Vec<u32> = (0..100).collect();
        PyRandom::new(seed).shuffle(&mut x).unwrap();
        assert_eq!(x, want, "seed {seed}");
    }
    // One generator, two shuffles in a row (the state carries over):
    // x = list(range(1000)); r = random.Random(3); r.shuffle(x); r.shuffle(x); x[:20]
    let mut x: Vec<u32> = (0..1000).collect();
    let mut r = PyRandom::new(3);
    r.shuffle(&mut x).unwrap();
    r.shuffle(&mut x).unwrap();
    assert_eq!(x[..20], [561, 560, 239, 853, 988, 252, 579, 906, 557, 80, 715, 70, 379, 772, 0, 83, 871, 532, 437, 49]);
}

/// Document 004's shard choice, done in Python by the README's procedure:
/// ```python
/// import random
/// rng = random.Random(42); moved = []
/// for node in range(10):
///     lst = sorted(s for s in range(1000) if s % 10 == node)
///     rng.shuffle(lst); moved += lst[:9]
/// print(sorted(moved), sum(moved))
/// ```
#[test]
fn doc004_moved_shards_match_python_procedure() {
    const MOVED: [usize; 90] = [
        10, 17, 23, 36, 51, 74, 78, 90, 102, 113, 119, 123, 131, 138, 150, 168, 186, 192, 208, 219, 221, 227, 228, 234,
        241, 251, 253, 261, 273, 322, 334, 345, 354, 357, 381, 392, 404, 409, 410, 416, 420, 427, 445, 465, 472, 482,
        492, 499, 500, 506, 517, 557, 563, 569, 571, 575, 584, 611, 615, 627, 629, 639, 646, 650, 675, 693, 700, 715,
        764, 772, 773, 774, 775, 778, 787, 798, 815, 892, 896, 903, 908, 910, 916, 929, 948, 966, 974, 976, 997, 999,
    ];
    assert_eq!(MOVED.iter().sum::<usize>(), 43_635);
    let ten = FixedShards::new(10).and_then(|f| f.with_shards(1000)).unwrap();
    let eleven = ten.add_node("10").unwrap();
    let moved = ten.moved_shards_to(&eleven).unwrap();
    assert_eq!(moved, MOVED);
    // every moved shard is on node "10" now, every other one where it was
    for s in 0..1000 {
        let want = if MOVED.contains(&s) { 10 } else { (s % 10) as NodeId };
        assert_eq!(eleven.table()[s], want, "shard {s}");
    }
    assert_eq!(eleven.nodes()[10], "10");
    // the same choice with the public generator, the README's steps in Rust
    let mut rng = PyRandom::new(42);
    let mut by_hand = Vec::new();
    for node in 0..10 {
        let mut list: Vec<usize> = (0..1000).filter(|s| s % 10 == node).collect();
        rng.shuffle(&mut list).unwrap();
        by_hand.extend_from_slice(&list[..9]);
    }
    by_hand.sort_unstable();
    assert_eq!(by_hand, MOVED);
}

// ------------------------------------------------------------ ring --

/// The ring by definition: points sorted by (hash, node name); a key
/// belongs to the first point whose hash is ≥ the key's, wrapping to the
/// first point. Linear scan, no cleverness.
struct BruteRing {
    points: Vec<(u128, String)>,
}

impl BruteRing {
    fn new(nodes: &[String], vnodes: usize, salt: &str, width: HashWidth) -> Self {
        let mut points: Vec<(u128, String)> = nodes
            .iter()
            .flat_map(|n| (0..vnodes).map(move |v| (width.hash(format!("{salt}{n}#{v}").as_bytes()), n.clone())))
            .collect();
        points.sort();
        BruteRing { points }
    }

    fn owner(&self, key_hash: u128) -> &str {
        self.points.iter().find(|p| p.0 >= key_hash).unwrap_or(&self.points[0]).1.as_str()
    }
}

fn names_of<'a>(p: &'a impl Placement, owners: &[NodeId]) -> Vec<&'a str> {
    owners.iter().map(|&o| p.nodes()[o as usize].as_str()).collect()
}

#[test]
fn ring_matches_brute_force() {
    for width in [HashWidth::Bits32, HashWidth::Bits128] {
        let keyset = KeySet::new("k", 1500);
        let keys = keyset.hashed(width).unwrap();
        let configs: Vec<(Vec<String>, usize, &str)> = vec![
            (letters("ABC"), 1, ""),
            (letters("ABCD"), 1, "3:"),
            (letters("DCBA"), 2, ""),
            (prefixed("S", 11).unwrap(), 5, "17:"),
            (prefixed("node-", 4).unwrap(), 17, "x"),
            (vec!["only".into()], 3, ""),
            (vec!["only".into()], 1, "0:"),
            (numbered(7).unwrap(), 150, "29:"),
        ];
        for (nodes, vnodes, salt) in configs {
            let ring =
                Ring::named(nodes.clone()).and_then(|r| r.with_vnodes(vnodes)).and_then(|r| r.with_salt(salt)).unwrap();
            let brute = BruteRing::new(&nodes, vnodes, salt, width);
            // the points in ring order
            let pts = ring.points(width);
            assert_eq!(pts.len(), brute.points.len());
            for (p, (h, n)) in pts.iter().zip(&brute.points) {
                assert_eq!((p.hash, nodes[p.node as usize].as_str()), (*h, n.as_str()));
            }
            let assigned = ring.assign(&keys);
            let assigned = names_of(&ring, &assigned);
            for (i, key) in keyset.iter().enumerate() {
                let want = brute.owner(keys.hashes()[i]);
                assert_eq!(assigned[i], want, "{width} {nodes:?} v={vnodes} salt={salt:?} key {key}");
                assert_eq!(ring.owner(Key::new(&key, width)), want);
                assert_eq!(nodes[ring.locate(Key::from_hash(keys.hashes()[i], width)) as usize], want);
            }
            // boundary hashes: 0, a point's own hash, one past it, the top
            for p in pts.iter().take(5) {
                for h in [p.hash, p.hash.saturating_sub(1), p.hash + 1] {
                    assert_eq!(nodes[ring.locate(Key::from_hash(h, width)) as usize], brute.owner(h));
                }
            }
            let top = match width {
                HashWidth::Bits32 => u32::MAX as u128,
                HashWidth::Bits128 => u128::MAX,
            };
            for h in [0, top] {
                assert_eq!(nodes[ring.locate(Key::from_hash(h, width)) as usize], brute.owner(h));
            }
            // arcs add up to the circle
            let total: f64 = ring.arc_shares(width).iter().sum();
            assert!((total - 1.0).abs() < 1e-9, "{total}");
        }
    }
}

/// Two points at the same place: md5("n75005#0") and md5("n132506#0") agree
/// mod 2^32 (109809875), found with a Python birthday search:
/// ```python
/// seen = {}
/// for i in range(2_000_000):
///     v = h(f"n{i}#0")          # h = md5 mod 2**32, as in document 000
///     if v in seen: print(seen[v], f"n{i}", v); break
///     seen[v] = f"n{i}"
/// ```
/// In (hash, name) order "n132506" < "n75005" comes first, so with one
/// point each it owns the whole circle; document 000's Python `Ring` gives
/// load [0, 100000] for ["n75005", "n132506"].
#[test]
fn ring_tie_between_points_goes_to_the_smaller_name() {
    let w = HashWidth::Bits32;
    assert_eq!(w.hash(b"n75005#0"), 109809875);
    assert_eq!(w.hash(b"n132506#0"), 109809875);
    let keys = KeySet::users(100_000).hashed(w).unwrap();
    for nodes in [["n75005", "n132506"], ["n132506", "n75005"]] {
        let ring = Ring::named(nodes).and_then(|r| r.with_vnodes(1)).unwrap();
        let load = LoadReport::measure(&keys, &ring).unwrap();
        let on_small = load.counts()[nodes.iter().position(|&n| n == "n132506").unwrap()];
        assert_eq!(on_small, 100_000, "{nodes:?}");
        assert_eq!(ring.owner(Key::new("user:0", w)), "n132506");
        assert_eq!(ring.points(w)[0].hash, 109809875);
        assert_eq!(ring.nodes()[ring.points(w)[0].node as usize], "n132506");
    }
    // At 128 bits they do not collide and split the circle.
    let keys = KeySet::users(10_000).hashed(HashWidth::Bits128).unwrap();
    let ring = Ring::named(["n75005", "n132506"]).and_then(|r| r.with_vnodes(1)).unwrap();
    assert!(LoadReport::measure(&keys, &ring).unwrap().min() > 0);
}

/// A key exactly on a point: md5("user:21172") ≡ md5("p69692#0") mod 2^32
/// (2273848988), found by matching the hashes of user:0..99999 against
/// those of "p{j}#0", j < 400,000. The key belongs to that point (≥, not >).
/// Document 000's Python `Ring(["A", "B", "p69692"], 1)` gives
/// lookup("user:21172") == "p69692", users 21171..21173 → A, p69692,
/// p69692, and load [29880, 40790, 29330].
#[test]
fn ring_key_on_a_point_belongs_to_that_point() {
    let w = HashWidth::Bits32;
    assert_eq!(w.hash(b"user:21172"), 2273848988);
    assert_eq!(w.hash(b"p69692#0"), 2273848988);
    let ring = Ring::named(["A", "B", "p69692"]).and_then(|r| r.with_vnodes(1)).unwrap();
    assert_eq!(ring.owner(Key::new("user:21172", w)), "p69692");
    assert_eq!(ring.owner(Key::new("user:21171", w)), "A");
    assert_eq!(ring.owner(Key::new("user:21173", w)), "p69692");
    let keys = KeySet::users(100_000).hashed(w).unwrap();
    let owners = ring.assign(&keys);
    assert_eq!(owners[21172], 2);
    assert_eq!(LoadReport::measure(&keys, &ring).unwrap().counts(), [29880, 40790, 29330]);
}

/// Loads computed with document 000's Python `Ring`, using the full
/// 128-bit md5 instead of mod 2^32, over key0..key9999:
/// `Counter(Ring(nodes, v, salt, h128).lookup(k) for k in K)`.
#[test]
fn ring_128bit_loads_match_python() {
    let keys = KeySet::plain(10_000).hashed(HashWidth::Bits128).unwrap();
    let cases: [(&str, usize, &str, &[u64]); 3] = [
        ("ABCD", 10, "", &[1198, 4036, 2167, 2599]),
        ("ABCD", 3, "7:", &[832, 1412, 3772, 3984]),
        ("xyz", 1, "", &[6135, 2095, 1770]),
    ];
    for (nodes, v, salt, want) in cases {
        let ring = Ring::named(letters(nodes)).and_then(|r| r.with_vnodes(v)).and_then(|r| r.with_salt(salt)).unwrap();
        assert_eq!(LoadReport::measure(&keys, &ring).unwrap().counts(), want, "{nodes} v={v} salt={salt:?}");
    }
}

// ------------------------------------------------------ rendezvous --

/// Rendezvous by definition: the node with the largest md5("{key}:{name}"),
/// the lowest index on ties.
fn brute_rendezvous(key: &str, nodes: &[String], width: HashWidth) -> usize {
    let mut best = 0;
    let mut best_score = None;
    for (i, n) in nodes.iter().enumerate() {
        let s = width.hash(format!("{key}:{n}").as_bytes());
        if best_score.is_none_or(|b| s > b) {
            best = i;
            best_score = Some(s);
        }
    }
    best
}

#[test]
fn rendezvous_matches_brute_force() {
    for width in [HashWidth::Bits32, HashWidth::Bits128] {
        for keyset in [KeySet::plain(2000), KeySet::new("user:", 1000)] {
            let keys = keyset.hashed(width).unwrap();
            for nodes in [
                numbered(1).unwrap(),
                numbered(3).unwrap(),
                numbered(11).unwrap(),
                letters("QWERTY"),
                prefixed("db-", 6).unwrap(),
            ] {
                let r = Rendezvous::named(nodes.clone()).unwrap();
                let owners = r.assign(&keys);
                for (i, key) in keyset.iter().enumerate() {
                    let want = brute_rendezvous(&key, &nodes, width);
                    assert_eq!(owners[i] as usize, want, "{width} {nodes:?} {key}");
                    assert_eq!(r.owner(Key::new(&key, width)), nodes[want]);
                    for (j, n) in nodes.iter().enumerate() {
                        let _ = j;
                        assert_eq!(
                            r.score(Key::new(&key, width), n).unwrap(),
                            width.hash(format!("{key}:{n}").as_bytes())
                        );
                    }
                }
            }
        }
    }
}

/// Python: `Counter(max(range(5), key=lambda i: H(f"key{k}:{i}")) for k in range(10000))`
/// → [2050, 1987, 2003, 2022, 1938]; with `user:{k}` and `H(...) % 2**32`
/// → [1942, 2078, 2013, 1944, 2023]. (`max` keeps the first maximum: lowest id on ties.)
#[test]
fn rendezvous_loads_match_python() {
    let r = Rendezvous::new(5).unwrap();
    let keys = KeySet::plain(10_000).hashed(HashWidth::Bits128).unwrap();
    assert_eq!(LoadReport::measure(&keys, &r).unwrap().counts(), [2050, 1987, 2003, 2022, 1938]);
    let keys = KeySet::users(10_000).hashed(HashWidth::Bits32).unwrap();
    assert_eq!(LoadReport::measure(&keys, &r).unwrap().counts(), [1942, 2078, 2013, 1944, 2023]);
}

/// A tie: md5("key16838:n913") ≡ md5("key16838:n987") mod 2^32
/// (1961006506), found by a Python search over key0..key39999 × n0..n999.
/// At 32 bits the lower node index wins; at 128 bits n987 is higher.
#[test]
fn rendezvous_tie_goes_to_the_lowest_id() {
    let w = HashWidth::Bits32;
    assert_eq!(w.hash(b"key16838:n913"), 1961006506);
    assert_eq!(w.hash(b"key16838:n987"), 1961006506);
    let keys = KeySet::plain(16_839).hashed(w).unwrap();
    for nodes in [["n913", "n987"], ["n987", "n913"]] {
        let r = Rendezvous::named(nodes).unwrap();
        assert_eq!(r.owner(Key::new("key16838", w)), nodes[0], "{nodes:?}");
        assert_eq!(r.assign(&keys)[16_838], 0);
        // the pair path must break the tie the same way
        let other = Rendezvous::named([nodes[1], nodes[0]]).unwrap();
        let (a, b) = r.assign_pair(&other, &keys);
        assert_eq!((a[16_838], b[16_838]), (0, 0));
    }
    let r = Rendezvous::named(["n913", "n987"]).unwrap();
    assert_eq!(r.owner(Key::new("key16838", HashWidth::Bits128)), "n987");
}

#[test]
fn rendezvous_assign_pair_equals_two_assigns() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let pairs: Vec<(Vec<String>, Vec<String>)> = vec![
        (numbered(10).unwrap(), numbered(11).unwrap()),
        (numbered(11).unwrap(), numbered(10).unwrap()),
        (s(&["a", "b", "c", "d"]), s(&["d", "c", "b", "a"])),
        (s(&["a", "b", "c", "d"]), s(&["a", "c", "e"])),
        (s(&["a"]), s(&["x", "y", "z"])),
        (letters("ABC"), letters("ABC")),
    ];
    for width in [HashWidth::Bits32, HashWidth::Bits128] {
        let keys = KeySet::plain(5000).hashed(width).unwrap();
        for (before, after) in &pairs {
            let (b, a) = (Rendezvous::named(before.clone()).unwrap(), Rendezvous::named(after.clone()).unwrap());
            let pair = b.assign_pair(&a, &keys);
            assert_eq!(pair.0, b.assign(&keys), "{before:?} -> {after:?}");
            assert_eq!(pair.1, a.assign(&keys), "{before:?} -> {after:?}");
            // weighted too
            let wb: Vec<f64> = (0..before.len()).map(|i| 1.0 + i as f64).collect();
            let wa: Vec<f64> = (0..after.len()).map(|i| 0.5 + 2.0 * i as f64).collect();
            let (b, a) = (
                Rendezvous::named(before.clone()).and_then(|r| r.with_weights(wb)).unwrap(),
                Rendezvous::named(after.clone()).and_then(|r| r.with_weights(wa)).unwrap(),
            );
            let pair = b.assign_pair(&a, &keys);
            assert_eq!(pair.0, b.assign(&keys));
            assert_eq!(pair.1, a.assign(&keys));
        }
    }
}

// ------------------------------------------------------- movement --

/// A small deterministic generator for test configurations (splitmix64).
struct Mix(u64);
impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The counts every `Movement` must satisfy, checked from its matrix.
fn check_movement_consistent(m: &Movement, total: u64) {
    let u = m.nodes().len();
    let matrix = m.matrix();
    assert_eq!(matrix.len(), u);
    let all: u64 = matrix.iter().flatten().sum();
    assert_eq!(all, total);
    assert_eq!(m.keys(), total);
    let off: u64 =
        (0..u).flat_map(|i| (0..u).map(move |j| (i, j))).filter(|(i, j)| i != j).map(|(i, j)| matrix[i][j]).sum();
    assert_eq!(m.moved(), off, "moved = off-diagonal sum");
    assert!(m.to_added() + m.between_kept() + m.from_removed() >= m.moved());
    assert!(m.to_added() <= m.moved() && m.between_kept() <= m.moved() && m.from_removed() <= m.moved());
    let added = m.added_nodes();
    let removed = m.removed_nodes();
    let is = |list: &[&str], j: usize| list.contains(&m.nodes()[j].as_str());
    // recount the split from the matrix
    let (mut to_added, mut from_removed, mut between) = (0, 0, 0);
    for (i, row) in matrix.iter().enumerate() {
        for (j, &c) in row.iter().enumerate() {
            if i == j {
                continue;
            }
            if is(&added, j) {
                to_added += c;
            }
            if is(&removed, i) {
                from_removed += c;
            }
            if !is(&removed, i) && !is(&added, j) {
                between += c;
            }
            // nobody is on an added node before, or on a removed node after
            if is(&added, i) || is(&removed, j) {
                assert_eq!(c, 0);
            }
        }
    }
    assert_eq!((m.to_added(), m.from_removed(), m.between_kept()), (to_added, from_removed, between));
    assert_eq!(m.load_before().iter().sum::<u64>(), total);
    assert_eq!(m.load_after().iter().sum::<u64>(), total);
}

#[test]
fn movement_invariants_on_random_configs() {
    let mut rng = Mix(2026);
    for width in [HashWidth::Bits32, HashWidth::Bits128] {
        let keys = KeySet::plain(4000).hashed(width).unwrap();
        let total = keys.len() as u64;
        for round in 0..6 {
            let n = 1 + rng.below(9) as usize;
            let nodes: Vec<String> = (0..n).map(|i| format!("n{}-{}", rng.below(1000), i)).collect();
            let mut grown = nodes.clone();
            grown.push(format!("new{round}"));
            let gone = rng.below(n as u64) as usize;
            let shrunk: Vec<String> =
                nodes.iter().enumerate().filter(|&(i, _)| i != gone).map(|(_, x)| x.clone()).collect();

            // hash % N
            let m = Movement::measure(
                &keys,
                &Modulo::named(nodes.clone()).unwrap(),
                &Modulo::named(grown.clone()).unwrap(),
            )
            .unwrap();
            check_movement_consistent(&m, total);

            // ring: growth moves only to the new node, removal only from the removed one
            let vnodes = [1, 2, 10, 150][rng.below(4) as usize];
            let salt = format!("{}:", rng.below(30));
            let before = Ring::named(nodes.clone())
                .and_then(|r| r.with_vnodes(vnodes))
                .and_then(|r| r.with_salt(&salt))
                .unwrap();
            let after = Ring::named(grown.clone())
                .and_then(|r| r.with_vnodes(vnodes))
                .and_then(|r| r.with_salt(&salt))
                .unwrap();
            let m = Movement::measure(&keys, &before, &after).unwrap();
            check_movement_consistent(&m, total);
            assert_eq!(m.between_kept(), 0, "ring growth {nodes:?} v={vnodes}");
            assert_eq!(m.to_added(), m.moved());
            if shrunk.is_empty() {
                continue;
            }
            let after = Ring::named(shrunk.clone())
                .and_then(|r| r.with_vnodes(vnodes))
                .and_then(|r| r.with_salt(&salt))
                .unwrap();
            let m = Movement::measure(&keys, &before, &after).unwrap();
            check_movement_consistent(&m, total);
            assert_eq!(m.from_removed(), m.moved(), "ring removal");
            assert_eq!(m.between_kept(), 0);
            assert_eq!(m.moved(), LoadReport::measure(&keys, &before).unwrap().counts()[gone]);

            // rendezvous
            let before = Rendezvous::named(nodes.clone()).unwrap();
            let m = Movement::measure(&keys, &before, &Rendezvous::named(grown.clone()).unwrap()).unwrap();
            check_movement_consistent(&m, total);
            assert_eq!(m.between_kept(), 0, "rendezvous growth");
            assert_eq!(m.to_added(), m.moved());
            let m = Movement::measure(&keys, &before, &Rendezvous::named(shrunk.clone()).unwrap()).unwrap();
            check_movement_consistent(&m, total);
            assert_eq!(m.from_removed(), m.moved(), "rendezvous removal");
            assert_eq!(m.between_kept(), 0);
        }
    }
}

#[test]
fn modulo_moves_are_counted_exactly() {
    // hash % N from scratch: count keys with h % old != h % new.
    let keys = KeySet::users(50_000).hashed(HashWidth::Bits32).unwrap();
    for (o, n) in [(3, 4), (10, 11), (10, 9), (7, 7), (1, 5), (12, 18)] {
        let want = keys.hashes().iter().filter(|&&h| h % o != h % n).count() as u64;
        let m = Movement::measure(&keys, &Modulo::new(o as usize).unwrap(), &Modulo::new(n as usize).unwrap()).unwrap();
        check_movement_consistent(&m, 50_000);
        assert_eq!(m.moved(), want, "{o} -> {n}");
    }
}

#[test]
fn fixed_shards_growth_moves_only_to_the_new_node() {
    let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128).unwrap();
    let mut rng = Mix(4);
    for _ in 0..8 {
        let shards = 50 + rng.below(2000) as usize;
        let n = 1 + rng.below(12) as usize;
        let seed = rng.next();
        let mut fs = FixedShards::new(n).and_then(|f| f.with_shards(shards)).unwrap().with_seed(seed);
        // grow a few times in a row; each step starts from the last
        for next in n + 1..(n + 4).min(shards + 1) {
            let grown = fs.add_node(&(next - 1).to_string()).unwrap();
            let m = Movement::measure(&keys, &fs, &grown).unwrap();
            check_movement_consistent(&m, 20_000);
            assert_eq!(m.between_kept(), 0, "S={shards} {}->{next}", next - 1);
            assert_eq!(m.to_added(), m.moved());
            let counts = grown.shard_counts();
            let (lo, hi) = (*counts.iter().min().unwrap(), *counts.iter().max().unwrap());
            assert!(hi - lo <= 1, "{counts:?}");
            // whole shards move: a key moves iff its shard moved
            let moved_shards = fs.moved_shards_to(&grown).unwrap();
            let want = keys
                .hashes()
                .iter()
                .filter(|&&h| moved_shards.binary_search(&((h % shards as u128) as usize)).is_ok())
                .count();
            assert_eq!(m.moved(), want as u64);
            // the fewest possible shard moves: what the new node ends with
            assert_eq!(moved_shards.len(), counts[next - 1]);
            fs = grown;
        }
    }
}

#[test]
fn fixed_shards_remove_node_moves_only_its_shards_from_even_tables() {
    let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128).unwrap();
    let mut rng = Mix(9);
    for _ in 0..8 {
        let shards = 50 + rng.below(2000) as usize;
        let n = 2 + rng.below(12) as usize;
        let fs = FixedShards::new(n).and_then(|f| f.with_shards(shards)).unwrap().with_seed(rng.next());
        let fs = fs.add_node(&n.to_string()).unwrap();
        let gone = rng.below(n as u64 + 1).to_string();
        let after = fs.clone().with_seed(42).remove_node(&gone).unwrap();
        let m = Movement::measure(&keys, &fs, &after).unwrap();
        check_movement_consistent(&m, 20_000);
        assert_eq!(m.removed_nodes(), [gone.as_str()]);
        assert_eq!(m.from_removed(), m.moved(), "remove {gone} of {n}+1, S={shards}");
        assert_eq!(m.between_kept(), 0);
        assert_eq!(fs.moved_shards_to(&after).unwrap().len(), fs.shard_counts()[gone.parse::<usize>().unwrap()]);
    }
}

/// `remove_node` is documented as "Remove one node; only its shards move".
/// After an uneven `move_shards` it also moves shards between the nodes
/// that stay (it rebalances everything to within one shard of even).
#[test]
fn fixed_shards_remove_node_moves_only_its_shards_from_uneven_tables() {
    let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128).unwrap();
    // nodes 0..9 own 100 shards each; move 50 of node 0's to node 1:
    // node 0 has 50, node 1 has 150, the rest 100.
    let fs =
        FixedShards::new(10).and_then(|f| f.with_shards(1000)).unwrap().with_seed(7).move_shards("0", "1", 50).unwrap();
    assert_eq!(fs.shard_counts(), [50, 150, 100, 100, 100, 100, 100, 100, 100, 100]);
    let after = fs.clone().with_seed(42).remove_node("2").unwrap();
    let moved_shards = fs.moved_shards_to(&after).unwrap();
    let of_node_2 = fs.shards_of("2").unwrap();
    assert_eq!(moved_shards, of_node_2, "only node 2's shards should move");
    let m = Movement::measure(&keys, &fs, &after).unwrap();
    assert_eq!(m.between_kept(), 0);
    assert_eq!(m.from_removed(), m.moved());
}

// ------------------------------------------------------ modulo rule --

#[test]
fn modulo_rule_matches_exact_count_over_one_period() {
    for old in 1..=24u64 {
        for new in 1..=24u64 {
            let lcm = (1..).map(|k| old * k).find(|m| m % new == 0).unwrap();
            let stay = (0..lcm).filter(|h| h % old == h % new).count() as u64;
            assert_eq!(stay, old.min(new), "{old} -> {new}");
            let exact = 1.0 - stay as f64 / lcm as f64;
            assert!((modulo_rule(old as usize, new as usize).unwrap() - exact).abs() < 1e-12, "{old} -> {new}");
        }
    }
    assert_eq!(modulo_rule(10, 10), Ok(0.0));
}

// -------------------------------------------- weighted rendezvous --

#[test]
fn weighted_rendezvous_shares_follow_weights() {
    let keys = KeySet::plain(200_000).hashed(HashWidth::Bits128).unwrap();
    let weights = [1.0, 2.0, 3.0, 4.0];
    let r = Rendezvous::named(letters("abcd")).and_then(|r| r.with_weights(weights)).unwrap();
    assert_eq!(r.weights(), Some(&weights[..]));
    let load = LoadReport::measure(&keys, &r).unwrap();
    let sum: f64 = weights.iter().sum();
    for (i, &c) in load.counts().iter().enumerate() {
        let share = c as f64 / 200_000.0;
        assert!((share - weights[i] / sum).abs() < 0.01, "node {i}: share {share}, weight share {}", weights[i] / sum);
    }
    // Bits32 too
    let keys = KeySet::users(100_000).hashed(HashWidth::Bits32).unwrap();
    let load =
        LoadReport::measure(&keys, &Rendezvous::named(["x", "y"]).and_then(|r| r.with_weights([1.0, 9.0])).unwrap())
            .unwrap();
    assert!((load.counts()[1] as f64 / 100_000.0 - 0.9).abs() < 0.01, "{:?}", load.counts());
}

#[test]
fn weighted_rendezvous_growth_moves_only_to_the_new_node() {
    let keys = KeySet::plain(100_000).hashed(HashWidth::Bits128).unwrap();
    let before = Rendezvous::named(letters("abcd")).and_then(|r| r.with_weights([1.0, 2.0, 3.0, 4.0])).unwrap();
    let after = Rendezvous::named(letters("abcde")).and_then(|r| r.with_weights([1.0, 2.0, 3.0, 4.0, 5.0])).unwrap();
    let m = Movement::measure(&keys, &before, &after).unwrap();
    check_movement_consistent(&m, 100_000);
    assert_eq!(m.between_kept(), 0);
    assert_eq!(m.to_added(), m.moved());
    // the new node takes its weight share, 5/15
    assert!((m.share() - 5.0 / 15.0).abs() < 0.01, "{}", m.share());
    // removing a weighted node moves only its keys
    let fewer = Rendezvous::named(["a", "b", "d"]).and_then(|r| r.with_weights([1.0, 2.0, 4.0])).unwrap();
    let m = Movement::measure(&keys, &before, &fewer).unwrap();
    check_movement_consistent(&m, 100_000);
    assert_eq!(m.between_kept(), 0);
    assert_eq!(m.from_removed(), m.moved());
}

#[test]
fn equal_weights_are_plain_rendezvous() {
    for width in [HashWidth::Bits32, HashWidth::Bits128] {
        let keys = KeySet::plain(20_000).hashed(width).unwrap();
        let plain = Rendezvous::new(7).unwrap();
        let weighted = Rendezvous::named(numbered(7).unwrap()).and_then(|r| r.with_weights([2.5; 7])).unwrap();
        assert_eq!(plain.assign(&keys), weighted.assign(&keys), "{width}");
    }
}

// ------------------------------------------------------- streaming --

#[test]
fn streaming_count_equals_movement() {
    for (keyset, width) in [
        (KeySet::users(100_000), HashWidth::Bits32),
        (KeySet::plain(200_000), HashWidth::Bits128),
        (KeySet::new("k", 70_001), HashWidth::Bits128),
    ] {
        let keys: HashedKeys = keyset.hashed(width).unwrap();
        for (o, n) in [(3, 4), (10, 11), (10, 20), (10, 9), (1, 1), (16, 1)] {
            let streamed = count_moved_streaming(&keyset, width, o, n).unwrap();
            let m = Movement::measure(&keys, &Modulo::new(o).unwrap(), &Modulo::new(n).unwrap()).unwrap();
            assert_eq!(streamed, m.moved(), "{keyset} {width} {o} -> {n}");
        }
    }
    // document 002's figure, streamed
    assert_eq!(count_moved_streaming(&KeySet::plain(200_000), HashWidth::Bits128, 10, 11).unwrap(), 181_745);
}
