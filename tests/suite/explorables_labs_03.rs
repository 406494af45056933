//! Lab 03's explorable (fixed shards at several shard counts, 10 nodes grown
//! to 11 … 20): the chart's data, read back from the emitted spec, are
//! recomputed here another way — every key placed on both tables
//! (`Movement`, `LoadReport`), the floor from its formula — and, at the
//! lab's setting, the article's count (document 004: 89,813 of a million
//! keys move with 1000 shards, 10 → 11).
#![cfg(feature = "charts")]

use crate::spec::{check_points, Setting};
use reshard::analysis::ShardCountSweep;
use reshard::notebook::*;

/// Share moved and the fullest node above the mean, placing every key on
/// both tables (not the sweep's keys-per-shard sums).
fn by_placing(keys: &HashedKeys, shards: usize, to: usize) -> (f64, f64) {
    let before = FixedShards::new(10).unwrap().with_shards(shards).unwrap().with_seed(42);
    let after = before.rebalance_to(numbered(to).unwrap()).unwrap();
    let moved = Movement::measure(keys, &before, &after).unwrap().share();
    let load = LoadReport::measure(keys, &after).unwrap();
    (moved, load.max() as f64 / (keys.len() as f64 / to as f64) - 1.0)
}

#[test]
fn grid_points_are_the_placed_keys() {
    let keys = KeySet::plain(30_000).hashed(HashWidth::Bits128).unwrap();
    let (counts, sizes) = ([20, 50, 1000, 5000], (11..=20).collect::<Vec<usize>>());
    let sweep = ShardCountSweep::measure(&keys, 10, &sizes, &counts, 42).unwrap();
    let out = sweep.explorable("shards", 1000).unwrap().output().unwrap();
    let cases = [(20, 11), (50, 20), (1000, 13), (5000, 17)];
    let xs: Vec<String> = cases.iter().map(|&(_, to)| to.to_string()).collect();
    let settings: Vec<[(&str, f64); 1]> = cases.iter().map(|&(s, _)| [("shards", s as f64)]).collect();
    let mut points: Vec<(Setting, &str, &str, f64)> = Vec::new();
    for (((s, to), setting), x) in cases.into_iter().zip(&settings).zip(&xs) {
        let (moved, fullest) = by_placing(&keys, s, to);
        points.push((setting, "keys moved", x, moved));
        points.push((setting, "fullest node above the mean", x, fullest));
        points.push((setting, "floor |Δ| ÷ nodes after", x, (to - 10) as f64 / to as f64));
    }
    check_points(&out, &points);
    // 20 shards over 11 nodes: one shard moves (⌊20/11⌋), and nine nodes serve 2 where the
    // mean is 20/11: the fullest holds about 10% more than the mean.
    assert_eq!(sweep.row(20, 11).unwrap().moved_shards, 1);
    assert!((by_placing(&keys, 20, 11).1 - 0.1).abs() < 0.05);
    // The default view is the lab's setting.
    assert!(out.text().contains("shards = 1000"), "{}", out.text());
}

#[test]
fn the_articles_count_is_in_the_chart() {
    // Document 004: key0 … key999999, md5 as a 128-bit integer, 1000 shards, seed 42,
    // 10 → 11 nodes: 89,813 keys change node.
    let keys = KeySet::plain(1_000_000).hashed(HashWidth::Bits128).unwrap();
    let sweep = ShardCountSweep::measure(&keys, 10, &[11, 12], &[1000], 42).unwrap();
    let out = sweep.explorable("shards", 1000).unwrap().output().unwrap();
    check_points(&out, &[(&[("shards", 1000.0)], "keys moved", "11", 89_813.0 / 1_000_000.0)]);
    assert_eq!(sweep.row(1000, 11).unwrap().moved_shards, 90);
}

#[test]
fn bad_grids_are_typed_errors() {
    let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128).unwrap();
    assert!(matches!(
        ShardCountSweep::measure(&keys, 10, &[11, 30], &[20], 42),
        Err(Error::MoreNodesThanShards { .. })
    ));
    assert!(ShardCountSweep::measure(&keys, 10, &[], &[20], 42).is_err());
    assert!(matches!(ShardCountSweep::measure(&keys, 10, &[11], &[0], 42), Err(Error::ZeroShards)));
    let sweep = ShardCountSweep::measure(&keys, 10, &[11], &[20, 100], 42).unwrap();
    let err = sweep.explorable("shards", 1000).unwrap_err();
    assert!(err.to_string().contains("1000"), "{err}");
}
