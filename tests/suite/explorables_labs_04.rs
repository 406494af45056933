//! Lab 04's explorable (Maglev at several table sizes M, backend 4 of N
//! leaving, a slider over M): the chart's data, read back from the emitted
//! spec, are recomputed here another way — the churn by placing every key on
//! both tables (`Movement`), not the sweep's keys-per-entry sums, and the
//! fullest backend from the paper's rule: backends take turns, so each owns
//! ⌊M/N⌋ or ⌈M/N⌉ entries and the fullest ⌈M/N⌉.
#![cfg(feature = "charts")]

use reshard::analysis::MaglevSizeSweep;
use reshard::notebook::*;

use crate::spec;

#[test]
fn grid_points_are_the_placed_keys_and_the_papers_rule() {
    let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128).unwrap();
    let (sizes, nodes) = ([251, 1009, 65_537], [5, 10, 13, 20]);
    let sweep = MaglevSizeSweep::measure(&keys, &sizes, &nodes, 4).unwrap();
    let out = sweep.explorable("maglev_m", 65_537).unwrap().output().unwrap();
    for m in sizes {
        for n in nodes {
            let before = Maglev::new(n).unwrap().with_table_size(m).unwrap();
            let moved = Movement::measure(&keys, &before, &before.remove_node("4").unwrap()).unwrap();
            let churn = moved.between_kept() as f64 / 20_000.0;
            let x = n.to_string();
            assert_eq!(
                spec::value(&out, &[("maglev_m", m as f64)], "keys moved between survivors", &x).to_bits(),
                churn.to_bits()
            );
            let fullest = m.div_ceil(n) as f64 / (m as f64 / n as f64) - 1.0;
            let got = spec::value(&out, &[("maglev_m", m as f64)], "fullest backend's entries above M/N", &x);
            assert!((got - fullest).abs() < 1e-12, "M = {m}, N = {n}: chart {got}, ⌈M/N⌉ rule {fullest}");
        }
    }
    assert!(out.text().contains("maglev_m = 65537"), "{}", out.text());
}

#[test]
fn the_labs_maglev_churn_is_in_the_chart() {
    // Lab 04, section 6 on its own keys (key0 … key99999, md5 128-bit): M = 65,537, 10 backends,
    // backend 4 leaves. The churned keys are the keys of the entries that changed between two
    // survivors, counted here entry by entry from the two tables.
    let keys = KeySet::plain(100_000).hashed(HashWidth::Bits128).unwrap();
    let sweep = MaglevSizeSweep::measure(&keys, &[65_537], &[10], 4).unwrap();
    let out = sweep.explorable("maglev_m", 65_537).unwrap().output().unwrap();
    let (a, b) = (Maglev::new(10).unwrap().with_table_size(65_537).unwrap(), Maglev::new(10).unwrap());
    let b = b.with_table_size(65_537).unwrap().remove_node("4").unwrap();
    let (was, now) = (a.owners(), b.owners());
    let churned = keys
        .hashes()
        .iter()
        .filter(|&&h| {
            let e = (h % 65_537) as usize;
            was[e] != now[e] && was[e] != "4"
        })
        .count();
    let got = spec::value(&out, &[("maglev_m", 65_537.0)], "keys moved between survivors", "10");
    assert_eq!(got.to_bits(), (churned as f64 / 100_000.0).to_bits());
    assert!(churned > 0, "Maglev's refill moves some keys between survivors");
}

#[test]
fn bad_grids_are_typed_errors() {
    let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128).unwrap();
    assert!(MaglevSizeSweep::measure(&keys, &[], &[10], 4).is_err());
    assert!(MaglevSizeSweep::measure(&keys, &[251], &[4], 4).is_err()); // no backend 4 among 0 … 3
    assert!(MaglevSizeSweep::measure(&keys, &[250], &[10], 4).is_err()); // not prime
    let sweep = MaglevSizeSweep::measure(&keys, &[251], &[10], 4).unwrap();
    let err = sweep.explorable("maglev_m", 65_537).unwrap_err();
    assert!(err.to_string().contains("65537"), "{err}");
}
