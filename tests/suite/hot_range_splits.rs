//! A load-based split and a unique constraint under a local index, against
//! counts written here: the recent writes' median by sorting them, the rows
//! above it by filtering; each new row's node by a byte comparison, and a
//! refusal when that node already holds the value.

use reshard::analysis::{LoadSplit, LocalIndex, Rows};
use reshard::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// `t{i:05}` for i in `range`: keys that sort as their numbers do.
fn stamps(range: std::ops::Range<usize>) -> KeySet {
    KeySet::from_keys(range.map(|i| format!("t{i:05}"))).unwrap()
}

#[test]
fn a_load_split_of_growing_keys_moves_the_newest_half_of_the_window() {
    // 10,000 rows in one range, the last 833 written in the window: the cut is the middle of the
    // window, and the rows above it are the window's newest 417, whatever the range holds below
    let rows = stamps(0..10_000);
    let recent = stamps(10_000 - 833..10_000);
    let one = KeyRanges::named(letters("AB")).unwrap();
    let s = LoadSplit::measure(&one, 0, &rows, &recent).unwrap();
    let mut window: Vec<String> = recent.iter().collect();
    window.sort();
    assert_eq!(s.at(), window[833 / 2].as_bytes());
    assert_eq!((s.recent(), s.rows(), s.rows_moved()), (833, 10_000, 417));
    // a size split of the same range moves half of it
    assert_eq!(rows.iter().filter(|k| k.as_str() >= "t05000").count(), 5_000);
    // in a range cut below, only that range's writes count
    let two = one.with_boundaries(["t09500"]).unwrap();
    let upper = LoadSplit::measure(&two, 1, &rows, &recent).unwrap();
    assert_eq!((upper.recent(), upper.rows()), (500, 500));
    assert!(LoadSplit::measure(&two, 2, &rows, &recent).is_err());
    // no recent write in the range, or all at its first key: nothing to cut
    assert!(LoadSplit::measure(&two, 0, &rows, &stamps(9_600..9_700)).is_err());
    assert!(LoadSplit::measure(&two, 1, &rows, &stamps(9_500..9_501)).is_err());
}

#[test]
fn a_local_unique_index_refuses_only_a_value_its_own_node_holds() {
    let keys = stamps(0..2_000);
    let plates: Vec<String> = (0..2_000).map(|i| format!("P{i}")).collect();
    let rows = Rows::new(&keys).unwrap().with_attribute("plate", plates.iter()).unwrap();
    let cuts = ["t00500", "t01000", "t01500"];
    let layout = KeyRanges::named(letters("ABCD")).unwrap().with_boundaries(cuts).unwrap();
    let node = |k: &str| ["A", "B", "C", "D"][cuts.iter().filter(|c| **c <= k).count()];
    // new row j: key t{7j+3}x, the plate of row 13j mod 2000
    let new: Vec<(String, String)> =
        (0..280).map(|j| (format!("t{:05}x", (7 * j + 3) % 2_000), plates[13 * j % 2_000].clone())).collect();
    let local = LocalIndex::build(&rows, &layout).unwrap();
    let u = local.unique_inserts("plate", new.iter().map(|(k, v)| (k.as_str(), v.as_str()))).unwrap();
    // counted here: the values each node holds, growing as rows are taken
    let mut held: BTreeSet<(&str, String)> = keys.iter().zip(&plates).map(|(k, p)| (node(&k), p.clone())).collect();
    let mut want: BTreeMap<&str, (u64, u64)> = ["A", "B", "C", "D"].iter().map(|n| (*n, (0, 0))).collect();
    for (k, v) in &new {
        let n = node(k);
        let e = want.get_mut(n).unwrap();
        if held.insert((n, v.clone())) {
            e.0 += 1
        } else {
            e.1 += 1
        }
    }
    let got: BTreeMap<&str, (u64, u64)> = u.per_node().iter().map(|(n, t, r)| (n.as_str(), (*t, *r))).collect();
    assert_eq!(got, want);
    assert_eq!(u.taken() + u.refused(), 280);
    assert_eq!(u.duplicates_taken(), u.taken()); // every new row reuses a plate some row has
    assert!(u.refused() > 0 && u.taken() > u.refused(), "{u:?}");
    assert!(local.unique_inserts("colour", new.iter().map(|(k, v)| (k.as_str(), v.as_str()))).is_err());
}
