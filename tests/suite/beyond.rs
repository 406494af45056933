//! Schemes beyond the documents: jump hash, Redis Cluster slots, Maglev,
//! the libketama ring and bounded loads, each checked against values that
//! someone else computed — published test vectors, the published
//! implementation run locally, or an independent transcription (Python
//! 3.11.7 here) whose snippet is in the comment — plus the movement
//! properties each scheme promises and the errors each gives.

use crate::common;
use common::expect_err;
#[allow(unused_imports)]
use reshard::prelude::*;
use reshard::schemes::jump::jump_input;
use reshard::schemes::slots::{hashed_part, SLOT_COUNT};
use reshard::{
    crc16, guava_consistent_hash, jump_hash, ketama_hash, key_slot, letters, md5_u128, prefixed, Bounded, Error,
    HashWidth, HashedKeys, Jump, Ketama, Key, KeySet, LoadReport, Maglev, Movement, NodeId, Placement, Ring, Slots,
};

fn keys(n: usize) -> HashedKeys {
    KeySet::plain(n).hashed(HashWidth::Bits128).unwrap()
}

/// A parameter out of range, lists of different lengths, or a Maglev
/// permutation that is not one.
fn invalid(e: &Error) -> bool {
    matches!(e, Error::OutOfRange { .. } | Error::LengthMismatch { .. } | Error::NotAPermutation { .. })
}

// ------------------------------------------------------------ jump --

/// Guava's `HashingTest.testConsistentHash_linearCongruentialGeneratorCompatibility`
/// (google/guava, guava-tests/.../hash/HashingTest.java): the golden values
/// of `Hashing.consistentHash(i, 100)` for i = 0..19, and six more pairs.
/// The same values are the "golden" tests of dgryski/go-jump and of C
/// ports of the paper's algorithm.
const GOLDEN_100: [u32; 20] = [0, 55, 62, 8, 45, 59, 86, 97, 82, 59, 73, 37, 17, 56, 86, 21, 90, 37, 38, 83];
const GUAVA_PAIRS: [(u64, u32, u32); 6] = [
    (10863919174838991, 11, 6),
    (2016238256797177309, 11, 3),
    (1673758223894951030, 11, 5),
    (2, 100001, 80343),
    (2201, 100001, 22152),
    (2202, 100001, 15018),
];

#[test]
fn jump_paper_algorithm_matches_guava_golden_values() {
    for (i, &want) in GOLDEN_100.iter().enumerate() {
        assert_eq!(jump_hash(i as u64, 100).unwrap(), want, "jump_hash({i}, 100)");
    }
    for (key, n, want) in GUAVA_PAIRS {
        assert_eq!(jump_hash(key, n).unwrap(), want, "jump_hash({key}, {n})");
    }
}

#[test]
fn guava_form_matches_guava_golden_values() {
    for (i, &want) in GOLDEN_100.iter().enumerate() {
        assert_eq!(guava_consistent_hash(i as u64, 100).unwrap(), want, "guava({i}, 100)");
    }
    for (key, n, want) in GUAVA_PAIRS {
        assert_eq!(guava_consistent_hash(key, n).unwrap(), want, "guava({key}, {n})");
    }
}

/// The paper's C++ and Guava's Java differ in two places: the paper
/// computes `(b+1) * (2^31 / x)` and Guava `(b+1) / (x / 2^31)` (two
/// roundings vs one), and Guava adds 1 to `(int)(state >>> 33)` in Java
/// `int`, which wraps to −2^31 when those 31 bits are all ones.
///
/// Keys that hit each case were built by running the generator backwards
/// (its multiplier is odd, so invertible mod 2^64), then checked with
///  * the Guava 31.1 jar (`/usr/share/java/guava-31.1-jre.jar`), a Java
///    `main` printing `Hashing.consistentHash(k, n)` (k as a Java long:
///    18063469494497682072 is −383274579211869544), and
///  * the paper's figure-1 function compiled with g++ (-O0 and -O2),
///
/// and with this independent Python transcription of the paper:
/// ```python
/// def paper(key, n):
///     b, j = -1, 0
///     while j < n:
///         b = j
///         key = (key * 2862933555777941757 + 1) % 2**64
///         j = int((b + 1) * (float(1 << 31) / float((key >> 33) + 1)))
///     return b
/// ```
/// Results (n = 49, 63, 64, 65, 100):
///   1673232497983283878: paper 48 48 63 63 63, Guava 48 48 48 64 64
///   18063469494497682072: paper 17 17 17 17 17, Guava 0 0 0 0 0
#[test]
fn paper_and_guava_part_ways_on_rare_keys() {
    let ns = [49, 63, 64, 65, 100];
    let rounding = 1_673_232_497_983_283_878u64;
    let wrap = 18_063_469_494_497_682_072u64;
    let paper = |k| ns.map(|n| jump_hash(k, n).unwrap());
    let guava = |k| ns.map(|n| guava_consistent_hash(k, n).unwrap());
    assert_eq!(paper(rounding), [48, 48, 63, 63, 63]);
    assert_eq!(guava(rounding), [48, 48, 48, 64, 64]);
    assert_eq!(paper(wrap), [17; 5]);
    assert_eq!(guava(wrap), [0; 5]);
}

#[test]
fn jump_moves_a_key_only_to_the_new_bucket() {
    // The defining property, key by key, for every n up to 300.
    for i in 0..2000u64 {
        let k = (md5_u128(&i.to_le_bytes()) >> 64) as u64;
        let mut prev = jump_hash(k, 1).unwrap();
        assert_eq!(prev, 0);
        for n in 2..=300u32 {
            let b = jump_hash(k, n).unwrap();
            assert!(b == prev || b == n - 1, "key {k}: {prev} at {} buckets, {b} at {n}", n - 1);
            prev = b;
        }
    }
}

#[test]
fn jump_growth_moves_only_to_the_added_bucket() {
    let keys = keys(100_000);
    for n in [1, 2, 7, 10, 31] {
        let m = Movement::measure(&keys, &Jump::new(n).unwrap(), &Jump::new(n + 1).unwrap()).unwrap();
        assert_eq!(m.between_kept(), 0, "{n} → {}", n + 1);
        assert_eq!(m.to_added(), m.moved());
        assert_eq!(m.added_nodes(), [(n).to_string().as_str()]);
        let expect = 1.0 / (n + 1) as f64;
        assert!((m.share() - expect).abs() < 0.01, "{n} → {}: share {}", n + 1, m.share());
        // and back: only the last bucket's keys move
        let back = Movement::measure(&keys, &Jump::new(n + 1).unwrap(), &Jump::new(n).unwrap()).unwrap();
        assert_eq!(back.from_removed(), back.moved());
        assert_eq!(back.moved(), m.moved());
    }
}

#[test]
fn jump_input_is_the_first_eight_md5_bytes() {
    // Python: hashlib.md5(b"key0").hexdigest() = 21f402f25b1a0fd722b83169e10509f8;
    // the jump input is its first 8 bytes, big-endian.
    let h = md5_u128(b"key0");
    assert_eq!(jump_input(h, HashWidth::Bits128), 0x21f4_02f2_5b1a_0fd7);
    assert_eq!(jump_input(0xdead_beef, HashWidth::Bits32), 0xdead_beef);
    let jump = Jump::new(37).unwrap();
    let owners = jump.assign(&keys(1000));
    for (i, &o) in owners.iter().enumerate() {
        let k = (md5_u128(format!("key{i}").as_bytes()) >> 64) as u64;
        assert_eq!(o, jump_hash(k, 37).unwrap());
    }
    assert_eq!(jump.nodes().len(), 37);
    assert_eq!(jump.nodes()[36], "36");
}

#[test]
fn jump_loads_are_even() {
    let keys = keys(100_000);
    let load = LoadReport::measure(&keys, &Jump::new(10).unwrap()).unwrap();
    assert!(load.max_over_mean() < 1.03, "{}", load.max_over_mean());
}

// ----------------------------------------------------- redis slots --

#[test]
fn crc16_xmodem_check_value_and_python() {
    // The CRC catalogue's check value for CRC-16/XMODEM, and the one the
    // Redis Cluster spec quotes for its crc16.
    assert_eq!(crc16(b"123456789"), 0x31C3);
    // Python: binascii.crc_hqx(data, 0) is CRC-CCITT with initial value 0,
    // i.e. XMODEM: print(binascii.crc_hqx(k, 0)) for each k.
    for (k, want) in [
        (&b"user:0"[..], 31291),
        (b"key0", 46020),
        (b"{user1000}.following", 28602),
        (b"user1000", 19827),
        (b"foo{}{bar}", 57515),
        (b"\xff\x00", 1023),
        (b"", 0),
    ] {
        assert_eq!(crc16(k), want, "crc16({:?})", String::from_utf8_lossy(k));
    }
}

#[test]
fn redis_keyslot_examples() {
    // redis.io, CLUSTER KEYSLOT: somekey → 11058, foo{hash_tag} and
    // bar{hash_tag} → 2515.
    assert_eq!(key_slot(b"somekey"), 11058);
    assert_eq!(key_slot(b"foo{hash_tag}"), 2515);
    assert_eq!(key_slot(b"bar{hash_tag}"), 2515);
    // Redis Cluster spec, "Hash tags": which part is hashed.
    assert_eq!(hashed_part(b"{user1000}.following"), b"user1000");
    assert_eq!(hashed_part(b"{user1000}.followers"), b"user1000");
    assert_eq!(hashed_part(b"foo{}{bar}"), b"foo{}{bar}");
    assert_eq!(hashed_part(b"foo{{bar}}zap"), b"{bar");
    assert_eq!(hashed_part(b"foo{{bar}}"), b"{bar");
    assert_eq!(hashed_part(b"foo{bar}{zap}"), b"bar");
    assert_eq!(key_slot(b"{user1000}.following"), 3443); // crc_hqx(b"user1000") & 16383
    assert_eq!(key_slot(b"foo{}{bar}"), 8363);
    assert_eq!(key_slot(b"foo{bar}{zap}"), key_slot(b"bar"));
    // No closing brace, or only a closing one: the whole key.
    for k in [&b"foo{bar"[..], b"foo}bar{", b"{", b"}", b"{}", b""] {
        assert_eq!(hashed_part(k), k);
    }
    assert_eq!(hashed_part(b"}{x}"), b"x");
}

#[test]
fn redis_cli_create_ranges() {
    // `redis-cli --cluster create` with 3 masters prints
    // Master[0] -> Slots 0 - 5460, [1] 5461 - 10922, [2] 10923 - 16383.
    let three = Slots::new(3).unwrap();
    assert_eq!(three.ranges_of("0").unwrap(), [(0, 5460)]);
    assert_eq!(three.ranges_of("1").unwrap(), [(5461, 10922)]);
    assert_eq!(three.ranges_of("2").unwrap(), [(10923, 16383)]);
    assert_eq!(three.slot_counts(), [5461, 5462, 5461]);
    // up to the crate's node limit (4,096; Redis allows 16,384 masters)
    for n in [1, 2, 5, 6, 7, 10, 100, 1000, 4096] {
        let s = Slots::new(n).unwrap();
        let c = s.slot_counts();
        assert_eq!(c.iter().sum::<usize>(), SLOT_COUNT);
        assert!(c.iter().max().unwrap() - c.iter().min().unwrap() <= 1, "{n} nodes: {c:?}");
        for i in 0..n {
            assert_eq!(s.ranges_of(&i.to_string()).unwrap().len(), 1, "one contiguous range each");
        }
    }
}

#[test]
fn redis_cli_reshard_all_to_a_fourth_node() {
    // The widely published result of `redis-cli --cluster reshard`, 4096
    // slots from `all` to a new, empty fourth master of a 3-master
    // cluster: new node [0-1364],[5461-6826],[10923-12287] (4096 slots),
    // the others [1365-5460], [6827-10922], [12288-16383].
    let three = Slots::named(["A", "B", "C"]).unwrap();
    let four = three.add_node("D").unwrap();
    assert_eq!(four.ranges_of("D").unwrap(), [(0, 1364), (5461, 6826), (10923, 12287)]);
    assert_eq!(four.ranges_of("A").unwrap(), [(1365, 5460)]);
    assert_eq!(four.ranges_of("B").unwrap(), [(6827, 10922)]);
    assert_eq!(four.ranges_of("C").unwrap(), [(12288, 16383)]);
    assert_eq!(four.slot_counts(), [4096; 4]);
    // reshard moves slots between nodes already there: a new name is refused
    assert_eq!(three.reshard("D", 4096), Err(Error::UnknownNode("D".into())));
    // Every moved slot went to D.
    let moved = three.moved_slots(&four);
    assert_eq!(moved.len(), 4096);
    assert!(moved.iter().all(|&s| four.table()[s] == 3));
}

#[test]
fn slots_add_node_moves_keys_only_to_the_new_node() {
    let keys = keys(100_000);
    let mut before = Slots::new(3).unwrap();
    for n in 3..8 {
        let after = before.add_node(&n.to_string()).unwrap();
        let m = Movement::measure(&keys, &before, &after).unwrap();
        assert_eq!(m.between_kept(), 0);
        assert_eq!(m.to_added(), m.moved());
        let moved = before.moved_slots(&after).len() as f64 / SLOT_COUNT as f64;
        assert!((m.share() - moved).abs() < 0.01, "keys follow slots: {} vs {moved}", m.share());
        before = after;
    }
    let c = before.slot_counts();
    assert!(c.iter().max().unwrap() - c.iter().min().unwrap() <= 8, "{c:?}");
}

#[test]
fn slots_remove_node_moves_only_its_keys() {
    let keys = keys(50_000);
    let four = Slots::new(4).unwrap();
    let three = four.remove_node("1").unwrap();
    assert_eq!(three.nodes(), ["0", "2", "3"]);
    assert_eq!(three.slot_counts(), [5462, 5461, 5461]);
    let m = Movement::measure(&keys, &four, &three).unwrap();
    assert_eq!(m.between_kept(), 0);
    assert_eq!(m.from_removed(), m.moved());
    assert_eq!(m.moved(), m.load_before()[1]);
}

#[test]
fn slots_locate_reads_the_key_bytes() {
    let slots = Slots::new(5).unwrap();
    assert!(!slots.hash_only());
    let keys = keys(2000);
    let owners = slots.assign(&keys);
    for (i, &o) in owners.iter().enumerate() {
        let k = format!("key{i}");
        assert_eq!(o, slots.table()[key_slot(k.as_bytes()) as usize]);
        // one key at a time: the slot of its bytes, whatever its md5
        assert_eq!(slots.locate(Key::new(&k, HashWidth::Bits32)), o);
    }
    // hash tags pin keys together
    let a = slots.locate(Key::new("user:{42}:name", HashWidth::Bits128));
    let b = slots.locate(Key::new("user:{42}:cart", HashWidth::Bits128));
    assert_eq!(a, b);
}

// ----------------------------------------------------------- maglev --

/// Eisenbud et al., "Maglev: A Fast and Reliable Software Network Load
/// Balancer", NSDI 2016, table 1: M = 7, three backends.
fn paper_perms() -> [Vec<u32>; 3] {
    [vec![3, 0, 4, 1, 5, 2, 6], vec![0, 2, 4, 6, 1, 3, 5], vec![3, 4, 5, 6, 0, 1, 2]]
}

#[test]
fn maglev_paper_example() {
    let [b0, b1, b2] = paper_perms();
    let before = Maglev::from_permutations(["B0", "B1", "B2"], vec![b0.clone(), b1, b2.clone()]).unwrap();
    // Before: B1 B0 B1 B0 B2 B2 B0
    assert_eq!(before.table(), [1, 0, 1, 0, 2, 2, 0]);
    // After B1 is removed: B0 B0 B0 B0 B2 B2 B2 (B0 → 0, B2 → 1 here)
    let after = before.remove_node("B1").unwrap();
    assert_eq!(after.nodes(), ["B0", "B2"]);
    assert_eq!(after.table(), [0, 0, 0, 0, 1, 1, 1]);
    assert_eq!(after, Maglev::from_permutations(["B0", "B2"], vec![b0, b2]).unwrap());
    // Entry 6 changed hands between two survivors (B0 → B2): the table-level
    // version of the churn measured below.
    let names = |m: &Maglev| m.table().iter().map(|&t| m.nodes()[t as usize].clone()).collect::<Vec<_>>();
    assert_eq!(names(&before)[6], "B0");
    assert_eq!(names(&after)[6], "B2");
}

#[test]
fn maglev_preferences_come_from_md5_of_the_name() {
    // Python: h = int(hashlib.md5(name.encode()).hexdigest(), 16)
    //         offset = (h >> 64) % 65537; skip = (h % 2**64) % 65536 + 1
    // B0: 25062, 28902.  B1: 382, 31316.
    let m = Maglev::named(["B0", "B1"]).unwrap();
    assert_eq!(m.table().len(), 65_537);
    for (name, offset, skip) in [("B0", 25062u64, 28902u64), ("B1", 382, 31316)] {
        let p = m.permutation(name).unwrap();
        assert_eq!(p.len(), 65_537);
        assert_eq!(p[0] as u64, offset);
        assert_eq!(p[1] as u64, (offset + skip) % 65_537);
        let mut sorted = p.clone();
        sorted.sort_unstable();
        assert!(sorted.iter().enumerate().all(|(i, &e)| i as u32 == e), "{name}: a permutation");
    }
}

/// The fill as the paper's pseudocode writes it, on explicit permutations.
fn reference_fill(perms: &[Vec<u32>]) -> Vec<NodeId> {
    let m = perms[0].len();
    let mut next = vec![0; perms.len()];
    let mut entry: Vec<Option<NodeId>> = vec![None; m];
    let mut n = 0;
    loop {
        for (i, p) in perms.iter().enumerate() {
            let mut c = p[next[i]];
            while entry[c as usize].is_some() {
                next[i] += 1;
                c = p[next[i]];
            }
            entry[c as usize] = Some(i as NodeId);
            next[i] += 1;
            n += 1;
            if n == m {
                return entry.into_iter().map(Option::unwrap).collect();
            }
        }
    }
}

#[test]
fn maglev_generated_table_matches_the_pseudocode() {
    let names = prefixed("backend-", 13).unwrap();
    let fast = Maglev::named(names.clone()).and_then(|m| m.with_table_size(1009)).unwrap();
    let perms: Vec<Vec<u32>> = names.iter().map(|n| fast.permutation(n).unwrap()).collect();
    assert_eq!(fast.table(), reference_fill(&perms));
    let explicit = Maglev::from_permutations(names, perms).unwrap();
    assert_eq!(explicit.table(), fast.table());
}

#[test]
fn maglev_is_balanced_but_not_minimally_disruptive() {
    let keys = keys(200_000);
    let ten = Maglev::named(prefixed("B", 10).unwrap()).unwrap();
    let counts = ten.entry_counts();
    assert!(counts.iter().all(|&c| c == 6553 || c == 6554), "{counts:?}");
    let nine = ten.remove_node("B4").unwrap();
    let m = Movement::measure(&keys, &ten, &nine).unwrap();
    // Every key of the departing backend moves…
    assert_eq!(m.from_removed(), m.load_before()[4]);
    // …and some keys also move between backends that both stay.
    assert!(m.between_kept() > 0, "between_kept = {}", m.between_kept());
    assert!(m.moved() > m.from_removed());
    // Adding it back is the same churn in reverse.
    let back = Movement::measure(&keys, &nine, &ten).unwrap();
    assert!(back.between_kept() > 0);
    assert_eq!(back.to_added(), m.from_removed());
}

// ----------------------------------------------------------- ketama --

/// dgryski/go-ketama, ketama_test.go (TestKetama): servers "server0" …
/// "server9", weight 1, keys "foo0" … "foo99999"; the counts were made
/// with Perl's Algorithm::ConsistentHash::Ketama (the script is in the
/// test's comment). Server names carry no port.
const GO_KETAMA: [u64; 10] = [9478, 9029, 10863, 10011, 9734, 9444, 10756, 10021, 10762, 9902];

#[test]
fn ketama_matches_go_ketama_test() {
    let ring = Ketama::named(prefixed("server", 10).unwrap()).unwrap();
    assert_eq!(ring.points().len(), 1600);
    assert_eq!(ring.digests(), [40; 10]);
    // No two points coincide here, so tie order does not matter.
    assert!(ring.points().windows(2).all(|w| w[0].0 < w[1].0));
    for width in [HashWidth::Bits128, HashWidth::Bits32] {
        let keys = KeySet::new("foo", 100_000).hashed(width).unwrap();
        assert_eq!(LoadReport::measure(&keys, &ring).unwrap().counts(), GO_KETAMA, "{width}");
    }
}

#[test]
fn ketama_lookup_and_assign_agree() {
    let ring = Ketama::named(prefixed("server", 10).unwrap()).unwrap();
    let keys = KeySet::new("foo", 3000);
    for width in [HashWidth::Bits128, HashWidth::Bits32] {
        let owners = ring.assign(&keys.hashed(width).unwrap());
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(ring.nodes()[owners[i] as usize], ring.owner(Key::new(&k, HashWidth::Bits128)));
            let key = Key::new(k.as_bytes(), width);
            assert_eq!(ring.locate(key), owners[i]);
        }
    }
    // The key hash is the first 4 md5 bytes, little-endian:
    // hashlib.md5(b"foo0").hexdigest() starts 94d805cf.
    assert_eq!(ketama_hash(b"foo0"), 0xcf05_d894);
}

#[test]
fn ketama_weights_and_growth() {
    // ⌊f32(f64(f32(w/Σw))·40·N)⌋ per server, as libketama's C computes it.
    let r = Ketama::named(["a", "b", "c"]).and_then(|k| k.with_weights([1, 1, 2])).unwrap();
    assert_eq!(r.digests(), [30, 30, 60]);
    assert_eq!(r.points().len(), 480);
    let r = Ketama::named(["a", "b", "c"]).and_then(|k| k.with_weights([1, 1, 1])).unwrap();
    assert_eq!(r.digests(), [40, 40, 40]);
    // Adding a server: keys only move to it (equal weights keep 40
    // digests each, so the old points stay).
    let keys = keys(100_000);
    let ten = Ketama::named(prefixed("server", 10).unwrap()).unwrap();
    let eleven = Ketama::named(prefixed("server", 11).unwrap()).unwrap();
    let m = Movement::measure(&keys, &ten, &eleven).unwrap();
    assert_eq!(m.between_kept(), 0);
    assert_eq!(m.to_added(), m.moved());
}

// ---------------------------------------------------------- bounded --

/// Bounded loads the slow way: walk point by point past full nodes.
fn reference_bounded(ring: &Ring, cap: u64, keys: &HashedKeys) -> Vec<NodeId> {
    let pts = ring.points(keys.width());
    let mut load = vec![0u64; ring.nodes().len()];
    keys.hashes()
        .iter()
        .map(|&h| {
            let mut p = pts.iter().position(|p| p.hash >= h).unwrap_or(0);
            while load[pts[p].node as usize] >= cap {
                p = (p + 1) % pts.len();
            }
            load[pts[p].node as usize] += 1;
            pts[p].node
        })
        .collect()
}

#[test]
fn bounded_matches_the_slow_walk() {
    let keys = KeySet::users(20_000).hashed(HashWidth::Bits32).unwrap();
    for (vnodes, eps) in [(1, 0.01), (1, 0.3), (3, 0.05), (20, 0.1), (150, 1e-9)] {
        let b = Bounded::named(letters("ABCDEFG"))
            .and_then(|b| b.with_vnodes(vnodes))
            .and_then(|b| b.with_epsilon(eps))
            .unwrap();
        let cap = b.capacity(keys.len());
        assert_eq!(b.assign(&keys), reference_bounded(b.ring(), cap, &keys), "vnodes {vnodes}, ε {eps}");
    }
}

#[test]
fn bounded_never_exceeds_capacity() {
    let keys = keys(100_000);
    for (n, vnodes, eps) in [(4, 1, 0.25), (10, 1, 0.01), (10, 150, 0.05), (7, 10, 0.5), (3, 2, 1e-6)] {
        let b = Bounded::named(prefixed("S", n).unwrap())
            .and_then(|b| b.with_vnodes(vnodes))
            .and_then(|b| b.with_epsilon(eps))
            .unwrap();
        let cap = b.capacity(keys.len());
        let expect = ((1.0 + eps) * 100_000.0 / n as f64).ceil() as u64;
        assert!(cap == expect || cap + 1 == expect, "cap {cap} vs {expect}");
        let load = LoadReport::measure(&keys, &b).unwrap();
        assert_eq!(load.total(), 100_000);
        assert!(load.max() <= cap, "{n} nodes, ε {eps}: max {} > {cap}", load.max());
    }
    // ⌈1.01 · 100000 / 4⌉ is 25250 even though 1.01 is not exact in binary.
    assert_eq!(
        Bounded::named(letters("ABCD"))
            .and_then(|b| b.with_vnodes(1))
            .and_then(|b| b.with_epsilon(0.01))
            .unwrap()
            .capacity(100_000),
        25_250
    );
}

#[test]
fn bounded_with_large_epsilon_is_the_plain_ring() {
    for width in [HashWidth::Bits32, HashWidth::Bits128] {
        let keys = KeySet::users(50_000).hashed(width).unwrap();
        for vnodes in [1, 150] {
            let ring = Ring::named(prefixed("N", 10).unwrap()).and_then(|r| r.with_vnodes(vnodes)).unwrap();
            let b = Bounded::named(prefixed("N", 10).unwrap())
                .unwrap()
                .with_vnodes(vnodes)
                .unwrap()
                .with_epsilon(100.0)
                .unwrap();
            assert_eq!(b.assign(&keys), ring.assign(&keys), "{width}, {vnodes} vnodes");
        }
    }
}

// ----------------------------------------------------------- errors --

#[test]
fn bad_input_gives_typed_errors() {
    // zero buckets / nodes
    let none = Vec::<String>::new;
    let nonodes = |e: &Error| *e == Error::NoNodes;
    // one condition, one variant: no buckets is no nodes, however it is asked
    expect_err("jump_hash(k, 0)", || jump_hash(7, 0), nonodes, "at least 1 node");
    expect_err("guava(k, 0)", || guava_consistent_hash(7, 0), nonodes, "at least 1 node");
    expect_err("guava(k, 2^31)", || guava_consistent_hash(7, 1 << 31), invalid, "2147483647");
    expect_err("Jump::new(0)", || Jump::new(0), nonodes, "at least 1 node");
    expect_err("Slots::new(0)", || Slots::new(0), nonodes, "at least 1 node");
    expect_err("Maglev::named([])", move || Maglev::named(none()), nonodes, "at least 1 node");
    expect_err("Ketama::named([])", move || Ketama::named(none()), nonodes, "at least 1 node");
    expect_err(
        "Bounded::new([])",
        move || Bounded::named(none()).and_then(|b| b.with_vnodes(10)).and_then(|b| b.with_epsilon(0.1)),
        nonodes,
        "at least 1 node",
    );
    // duplicate names
    let dup = |e: &Error| *e == Error::DuplicateNode("a".into());
    expect_err("Slots dup", || Slots::named(["a", "b", "a"]), dup, "appears twice");
    expect_err("Maglev dup", || Maglev::named(["a", "a"]), dup, "appears twice");
    expect_err("Ketama dup", || Ketama::named(["a", "a"]), dup, "appears twice");
    expect_err(
        "Bounded dup",
        || Bounded::named(["a", "a"]).and_then(|b| b.with_vnodes(3)).and_then(|b| b.with_epsilon(0.1)),
        dup,
        "appears twice",
    );
    expect_err("Slots::add_node dup", || Slots::named(["a"]).unwrap().add_node("a"), dup, "appears twice");
    expect_err("Maglev::add_node dup", || Maglev::named(["a"]).unwrap().add_node("a"), dup, "appears twice");
    // Maglev table size
    expect_err("M = 65536", || Maglev::named(["a"]).and_then(|m| m.with_table_size(65_536)), invalid, "not prime");
    expect_err("M = 1", || Maglev::named(["a"]).and_then(|m| m.with_table_size(1)), invalid, "not prime");
    expect_err("M = 0", || Maglev::named(["a"]).and_then(|m| m.with_table_size(0)), invalid, "not prime");
    expect_err(
        "M < N",
        || Maglev::named(prefixed("B", 10).unwrap()).and_then(|m| m.with_table_size(7)),
        invalid,
        "at least 11",
    );
    expect_err("M huge", || Maglev::named(["a"]).and_then(|m| m.with_table_size(1 << 30)), invalid, "at most 16777213");
    let [b0, b1, _] = paper_perms();
    expect_err(
        "perm count",
        || Maglev::from_permutations(["B0", "B1", "B2"], vec![b0.clone(), b1.clone()]),
        invalid,
        "permutations for backends where 3 are needed",
    );
    expect_err(
        "not a permutation",
        || Maglev::from_permutations(["B0", "B1"], vec![b0.clone(), vec![0, 0, 1, 2, 3, 4, 5]]),
        invalid,
        "list every entry exactly once",
    );
    expect_err(
        "out of range",
        || Maglev::from_permutations(["B0", "B1"], vec![b0.clone(), vec![0, 1, 2, 3, 4, 5, 7]]),
        invalid,
        "list every entry exactly once",
    );
    expect_err(
        "lengths differ",
        || Maglev::from_permutations(["B0", "B1"], vec![b0.clone(), vec![0, 1, 2]]),
        invalid,
        "as long as the first",
    );
    expect_err("empty perms", || Maglev::from_permutations(["B0"], vec![vec![]]), invalid, "use 1 (the backends) to");
    expect_err(
        "remove unknown",
        || Maglev::named(["a"]).unwrap().remove_node("z"),
        |e| *e == Error::UnknownNode("z".into()),
        "no node",
    );
    let last = |e: &Error| matches!(e, Error::LastNode(_));
    expect_err("remove last", || Maglev::named(["a"]).unwrap().remove_node("a"), last, "only node");
    // bounded ε
    for eps in [0.0, -0.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        expect_err(
            &format!("ε = {eps}"),
            move || Bounded::named(letters("AB")).and_then(|b| b.with_vnodes(3)).and_then(|b| b.with_epsilon(eps)),
            |e: &Error| matches!(e, Error::BadNumber { what: "epsilon", .. }),
            "above 0",
        );
    }
    expect_err(
        "vnodes 0",
        || Bounded::named(letters("AB")).and_then(|b| b.with_vnodes(0)).and_then(|b| b.with_epsilon(0.1)),
        |e| *e == Error::ZeroVnodes,
        "at least 1",
    );
    // ketama weights
    expect_err(
        "weight 0",
        || Ketama::named(["a", "b"]).and_then(|k| k.with_weights([1, 0])),
        |e| matches!(e, Error::BadWeight { .. }),
        "weight > 0",
    );
    expect_err(
        "weight count",
        || Ketama::named(["a", "b"]).and_then(|k| k.with_weights([1])),
        |e| matches!(e, Error::LengthMismatch { .. }),
        "exactly one per item",
    );
    // slots
    expect_err("16385 nodes", || Slots::new(SLOT_COUNT + 1), |e| matches!(e, Error::TooLarge { .. }), "limit of 4,096");
    expect_err(
        "table length",
        || Slots::from_table(["a"], vec![0; 10]),
        |e| *e == Error::LengthMismatch { what: "slot table entries", expected: SLOT_COUNT, given: 10 },
        "where 16384 are needed",
    );
    expect_err(
        "table index",
        || Slots::from_table(["a"], vec![1; SLOT_COUNT]),
        |e| *e == Error::NodeOutOfRange { index: 1, nodes: 1 },
        "indices below 1",
    );
    let three = Slots::new(3).unwrap();
    let out_of_range = |e: &Error| matches!(e, Error::OutOfRange { what: "slots to move", .. });
    expect_err("reshard 0", || three.reshard("2", 0), out_of_range, "use 1 to 10923"); // 5,461 + 5,462 slots
    expect_err("reshard too many", || three.reshard("0", 20_000), out_of_range, "use 1 to 10923");
    expect_err(
        "ranges unknown",
        || three.ranges_of("x"),
        |e| *e == Error::UnknownNode("x".into()),
        "check the spelling",
    );
    expect_err(
        "remove unknown",
        || three.remove_node("x"),
        |e| *e == Error::UnknownNode("x".into()),
        "check the spelling",
    );
    expect_err("remove last", || Slots::new(1).unwrap().remove_node("0"), last, "only node");
}
