//! Raising the limits: a process-wide setting, so this file is its own test
//! binary and has one test (no other test runs beside it in this process).

use reshard::limits::{self, Limits};
use reshard::prelude::*;

#[test]
fn a_caller_can_raise_and_restore_the_limits() {
    assert_eq!(limits::current(), Limits::default());
    // Redis Cluster has 16,384 slots, so up to 16,384 masters: over the
    // default 4,096 nodes
    let err = Slots::new(5_000).unwrap_err();
    assert!(matches!(err, Error::TooLarge { limit: 4096, .. }), "{err:?}");
    assert!(err.to_string().contains("max_nodes"), "{err}");

    let before = limits::set(Limits::default().with_max_nodes(20_000)).unwrap();
    assert_eq!(before, Limits::default());
    let slots = Slots::new(5_000).unwrap();
    assert_eq!(slots.slot_counts().iter().sum::<usize>(), 16_384);
    assert_eq!(numbered(5_000).unwrap().len(), 5_000);
    // a movement between two such placements is counted (a 5,000² matrix)
    let keys = KeySet::plain(1000).hashed(HashWidth::Bits128).unwrap();
    let m = Movement::measure(&keys, &Modulo::new(5_000).unwrap(), &Modulo::new(5_001).unwrap()).unwrap();
    assert!(m.moved() > 900, "{}", m.moved());

    // limits the machine cannot honour are refused, and nothing changes
    assert!(limits::set(Limits::default().with_max_nodes(1 << 40)).is_err());
    assert!(limits::set(Limits::default().with_max_keys(0)).is_err());
    assert_eq!(limits::current().max_nodes, 20_000);

    // lowering works too, and restoring gives the defaults back
    limits::set(Limits::default().with_max_keys(10)).unwrap();
    assert!(matches!(KeySet::plain(11).hashed(HashWidth::Bits32), Err(Error::TooLarge { limit: 10, .. })));

    // ranges count as shards, and key boundaries' bytes as keys' bytes
    limits::set(Limits::default().with_max_shards(3).with_max_key_bytes(4)).unwrap();
    let kr = KeyRanges::new(2).unwrap();
    assert!(kr.clone().with_boundaries(["a", "b"]).is_ok());
    assert!(matches!(kr.clone().with_boundaries(["a", "b", "c"]), Err(Error::TooLarge { limit: 3, .. })));
    let long = kr.clone().with_boundaries(["abc", "abcde"]).unwrap_err();
    assert!(long.to_string().contains("bytes of range boundaries"), "{long}");
    assert!(kr.with_boundaries(["a", "b"]).unwrap().split_at("c").is_err());
    assert!(matches!(HashRanges::new(2).unwrap().with_even_split(4), Err(Error::TooLarge { limit: 3, .. })));

    // A growth makes at most an eighth of max_shards ranges: with 16, two. Under hash ranges keys
    // sharing a hash make a part smaller than ⌈threshold / 2⌉ rows, past what the check before the
    // run counts on, and the run stops at the limit instead. The 32-bit hashes, by Python's
    // hashlib (int.from_bytes(md5(k).digest(), "big") % 2**32): x1 410,250,349; key51558 and
    // key58741 both 2,387,783,721; y56 2,424,063,674; y69 2,441,957,551. Threshold 3, key order:
    // the 4th row splits [x1 | key51558 key58741 y56] at the median's hash (x1 alone below), the
    // 5th splits [key51558 key58741 | y56 y69]: 3 ranges, where 5 / ⌈3 / 2⌉ − 1 = 1 split was counted.
    use reshard::analysis::{GrowthSettings, RangeGrowth};
    limits::set(Limits::default().with_max_shards(16)).unwrap();
    let keys = KeySet::from_keys(["x1", "key51558", "key58741", "y56", "y69"]).unwrap();
    let one = HashRanges::new(2).unwrap();
    let err = RangeGrowth::run(&keys, &one, &GrowthSettings::new(3)).unwrap_err();
    assert!(matches!(err, Error::TooLarge { asked: 3, limit: 2, .. }), "{err:?}");
    assert!(err.to_string().contains("ranges a growth may make"), "{err}");
    limits::set(Limits::default().with_max_shards(24)).unwrap();
    let g = RangeGrowth::run(&keys, &one, &GrowthSettings::new(3)).unwrap();
    let rows: Vec<u64> = g.ranges().iter().map(|r| r.rows).collect();
    assert_eq!(rows, [1, 2, 2]);
    limits::set(before).unwrap();
    assert_eq!(limits::current(), Limits::default());
    assert!(Slots::new(5_000).is_err());
}
