//! `RangeGrowth` against a naive model written from the rules in its
//! documentation: ranges as lists of rows, found by a linear scan, sorted
//! afresh at every split, node sizes summed afresh at every balancing step.
//! Every split, every move, every final range and the per-node figures
//! must agree, event for event.

use reshard::analysis::{Arrival, Boundary, GrowthSettings, RangeGrowth, RangeLayout};
use reshard::prelude::*;
use reshard::PyRandom;

/// A row's position: its bytes, and its md5 at the layout's width for hash ranges.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Pos {
    hash: u128,
    bytes: Vec<u8>,
}

#[derive(Clone, Debug)]
struct NRange {
    lower: Option<Boundary>,
    owner: u32,
    rows: Vec<Pos>,
    writes: u64,
    created: u64,
}

#[derive(Debug, PartialEq)]
struct Out {
    splits: Vec<(u64, usize, Boundary, u64, u64, u32)>,
    moves: Vec<(u64, usize, u32, u32, u64)>,
    ranges: Vec<(Option<Boundary>, u32, u64, u64, u64)>,
    node_rows: Vec<u64>,
    node_writes: Vec<u64>,
}

/// Does a range with this lower bound start at or below `p`?
fn starts_below(lower: &Option<Boundary>, p: &Pos, hashed: bool) -> bool {
    match lower {
        None => true,
        Some(Boundary::Key(k)) => {
            assert!(!hashed);
            k.as_slice() <= p.bytes.as_slice()
        }
        Some(Boundary::Hash(h)) => *h <= p.hash,
    }
}

/// Where a range over the threshold splits, by the documented rule; `None`
/// when it cannot (hash ranges whose rows share one hash).
fn boundary(rows: &[Pos], hashed: bool) -> Option<Boundary> {
    let mut sorted = rows.to_vec();
    if hashed {
        sorted.sort(); // (hash, bytes)
        let mut h = sorted[sorted.len() / 2].hash;
        if h == sorted[0].hash {
            h = sorted.iter().map(|p| p.hash).find(|&x| x > h)?;
        }
        Some(Boundary::Hash(h))
    } else {
        sorted.sort_by(|a, b| a.bytes.cmp(&b.bytes));
        Some(Boundary::Key(sorted[sorted.len() / 2].bytes.clone()))
    }
}

fn naive(keys: &[Vec<u8>], order: &[usize], start: &RangeLayout, threshold: u64, factor: Option<f64>) -> Out {
    let hashed = start.width().is_some();
    let width = start.width().unwrap_or(HashWidth::Bits32);
    let nodes = start.nodes().len();
    let (lowers, owners): (Vec<Option<Boundary>>, Vec<u32>) = match start {
        RangeLayout::Keys(k) => (
            std::iter::once(None).chain(k.boundaries().iter().map(|b| Some(Boundary::Key(b.clone())))).collect(),
            k.table().to_vec(),
        ),
        RangeLayout::Hashes(h) => (
            std::iter::once(None).chain(h.boundaries().iter().map(|&b| Some(Boundary::Hash(b)))).collect(),
            h.table().to_vec(),
        ),
    };
    let mut ranges: Vec<NRange> = lowers
        .into_iter()
        .zip(owners)
        .map(|(lower, owner)| NRange { lower, owner, rows: Vec::new(), writes: 0, created: 0 })
        .collect();
    let mut out = Out { splits: vec![], moves: vec![], ranges: vec![], node_rows: vec![], node_writes: vec![0; nodes] };
    for (j, &i) in order.iter().enumerate() {
        let t = j as u64 + 1;
        let p = Pos { hash: if hashed { width.hash(&keys[i]) } else { 0 }, bytes: keys[i].clone() };
        let r = ranges.iter().rposition(|x| starts_below(&x.lower, &p, hashed)).unwrap();
        ranges[r].writes += 1;
        out.node_writes[ranges[r].owner as usize] += 1;
        if ranges[r].rows.contains(&p) {
            continue;
        }
        ranges[r].rows.push(p);
        // the first range, in key order, over the threshold that can split
        let over = |ranges: &[NRange]| {
            ranges.iter().enumerate().find_map(|(r, x)| {
                (x.rows.len() as u64 > threshold).then(|| boundary(&x.rows, hashed).map(|b| (r, b))).flatten()
            })
        };
        while let Some((r, b)) = over(&ranges) {
            let old = ranges[r].clone();
            let (left, right): (Vec<Pos>, Vec<Pos>) =
                old.rows.iter().cloned().partition(|p| !starts_below(&Some(b.clone()), p, hashed));
            out.splits.push((t, r, b.clone(), left.len() as u64, right.len() as u64, old.owner));
            ranges[r] = NRange { rows: left, writes: 0, created: t, ..old.clone() };
            ranges.insert(r + 1, NRange { lower: Some(b), owner: old.owner, rows: right, writes: 0, created: t });
            if let Some(f) = factor {
                loop {
                    let mut sizes = vec![0u64; nodes];
                    for x in &ranges {
                        sizes[x.owner as usize] += x.rows.len() as u64;
                    }
                    let max = *sizes.iter().max().unwrap();
                    let min = *sizes.iter().min().unwrap();
                    let full = sizes.iter().position(|&s| s == max).unwrap() as u32;
                    let empty = sizes.iter().position(|&s| s == min).unwrap() as u32;
                    let gap = (max - min) as f64;
                    let mut best: Option<usize> = None;
                    for (k, x) in ranges.iter().enumerate() {
                        let n = x.rows.len();
                        if x.owner == full
                            && n > 0
                            && gap > f * n as f64
                            && best.is_none_or(|b| n > ranges[b].rows.len())
                        {
                            best = Some(k);
                        }
                    }
                    let Some(k) = best else { break };
                    out.moves.push((t, k, full, empty, ranges[k].rows.len() as u64));
                    ranges[k].owner = empty;
                }
            }
        }
    }
    out.node_rows = vec![0; nodes];
    for x in &ranges {
        out.node_rows[x.owner as usize] += x.rows.len() as u64;
    }
    out.ranges = ranges.into_iter().map(|x| (x.lower, x.owner, x.rows.len() as u64, x.writes, x.created)).collect();
    out
}

fn fast(keys: &KeySet, start: &RangeLayout, s: &GrowthSettings) -> (Out, RangeGrowth) {
    let g = RangeGrowth::run(keys, start, s).unwrap();
    let out = Out {
        splits: g
            .splits()
            .iter()
            .map(|x| (x.arrival, x.range, x.boundary.clone(), x.left_rows, x.right_rows, x.node))
            .collect(),
        moves: g.moves().iter().map(|m| (m.arrival, m.range, m.from, m.to, m.rows)).collect(),
        ranges: g.ranges().iter().map(|r| (r.lower.clone(), r.owner, r.rows, r.writes, r.created)).collect(),
        node_rows: g.rows_per_node().to_vec(),
        node_writes: g.writes_per_node().to_vec(),
    };
    (out, g)
}

/// 1,160 keys: `user{i}`, a few written twice, binary keys with bytes ≥ 0x80,
/// the empty key, a triple and pairs of keys whose md5 mod 2^32 is the same (python3:
/// `int(hashlib.md5(k).hexdigest(), 16) % 2**32`; c1466244 and c1968696 both
/// give 1224061).
fn test_keys() -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = (0..1_100).map(|i| format!("user{}", (i * 7919) % 1_100).into_bytes()).collect();
    for i in [5usize, 17, 5, 999] {
        keys.push(format!("user{i}").into_bytes());
    }
    for b in [0x00u8, 0x7f, 0x80, 0xff] {
        for i in 0..10u8 {
            keys.push(vec![b'u', b, i]);
        }
    }
    keys.push(Vec::new());
    // three keys of one md5 mod 2^32, 1357751 (python3, as below)
    keys.extend(["c4856092", "c10750718", "c11194198"].iter().map(|k| k.as_bytes().to_vec()));
    for pair in [
        ["c1466244", "c1968696"],
        ["c1568874", "c2460932"],
        ["c574751", "c2124716"],
        ["c1102140", "c1575725"],
        ["c767132", "c2502731"],
        ["c1084880", "c2720644"],
    ] {
        keys.extend(pair.iter().map(|k| k.as_bytes().to_vec()));
    }
    keys
}

/// Compare the two on one case; the numbers of splits and moves, so that a
/// test can show its cases do split and move.
fn check(keys: &[Vec<u8>], start: RangeLayout, threshold: u64, factor: Option<f64>, arrival: Arrival) -> [usize; 2] {
    let set = KeySet::from_keys(keys).unwrap();
    let mut order: Vec<usize> = (0..keys.len()).collect();
    if let Arrival::Shuffled(seed) = arrival {
        PyRandom::new(seed).shuffle(&mut order).unwrap();
    }
    let mut s = GrowthSettings::new(threshold).arrival(arrival);
    if let Some(f) = factor {
        s = s.balance(f);
    }
    let want = naive(keys, &order, &start, threshold, factor);
    let (got, g) = fast(&set, &start, &s);
    let what = format!("{} threshold {threshold} factor {factor:?} {arrival:?}", start.describe());
    assert_eq!(got.splits, want.splits, "{what}: splits");
    assert_eq!(got.moves, want.moves, "{what}: moves");
    assert_eq!(got.ranges, want.ranges, "{what}: ranges");
    assert_eq!((got.node_rows, got.node_writes), (want.node_rows, want.node_writes), "{what}: per node");
    // the final layout places every key where the final ranges say
    assert_eq!(g.final_layout().ranges(), g.ranges().len(), "{what}");
    assert_eq!(g.samples().last().unwrap().rows, g.rows_per_node(), "{what}");
    [want.splits.len(), want.moves.len()]
}

#[test]
fn key_ranges_agree_with_the_naive_model() {
    let keys = test_keys();
    let one = KeyRanges::named(letters("ABC")).unwrap();
    // pre-split with ranges that hold no key: ["a", "b"), ["zzz", +∞), and one around user1
    let pre = KeyRanges::named(letters("ABCDE"))
        .unwrap()
        .with_boundaries(["a", "b", "user1", "user1\x00", "user5", "zzz"])
        .unwrap();
    let mut seen = [0, 0];
    for start in [RangeLayout::from(&one), RangeLayout::from(&pre)] {
        for threshold in [1, 2, 7, 150] {
            for factor in [None, Some(2.0), Some(1.0), Some(1.5)] {
                for arrival in [Arrival::KeyOrder, Arrival::Shuffled(7)] {
                    let [s, m] = check(&keys, start.clone(), threshold, factor, arrival);
                    seen = [seen[0] + s, seen[1] + m];
                }
            }
        }
    }
    assert!(seen[0] > 10_000 && seen[1] > 1_000, "{seen:?}");
}

#[test]
fn hash_ranges_agree_with_the_naive_model_equal_hashes_included() {
    let keys = test_keys();
    let one = HashRanges::named(letters("ABC")).unwrap();
    let even = HashRanges::named(letters("ABCD")).unwrap().with_even_split(6).unwrap();
    let low = HashRanges::named(letters("AB")).unwrap().with_boundaries(&[1, 2, 1_224_061, 1 << 31]).unwrap();
    let wide = HashRanges::new(3).unwrap().with_width(HashWidth::Bits128).unwrap().with_even_split(2).unwrap();
    let mut seen = [0, 0];
    for start in [&one, &even, &low, &wide] {
        for threshold in [1, 2, 3, 100] {
            for factor in [None, Some(2.0), Some(1.0)] {
                for arrival in [Arrival::KeyOrder, Arrival::Shuffled(2024)] {
                    let [s, m] = check(&keys, start.into(), threshold, factor, arrival);
                    seen = [seen[0] + s, seen[1] + m];
                }
            }
        }
    }
    assert!(seen[0] > 10_000 && seen[1] > 1_000, "{seen:?}");
}

#[test]
fn a_range_of_one_shared_hash_does_not_split() {
    // two keys with the same md5 mod 2^32 (python3, see test_keys), threshold 1
    let keys = KeySet::from_keys(["c1466244", "c1968696"]).unwrap();
    let g = RangeGrowth::run(&keys, HashRanges::new(1).unwrap(), &GrowthSettings::new(1)).unwrap();
    assert!(g.splits().is_empty());
    assert_eq!(g.ranges()[0].rows, 2);
    // with a third key of another hash it splits, at the higher hash
    let keys = KeySet::from_keys(["c1466244", "c1968696", "a"]).unwrap();
    let g = RangeGrowth::run(&keys, HashRanges::new(1).unwrap(), &GrowthSettings::new(1)).unwrap();
    let a = HashWidth::Bits32.hash(b"a");
    assert!(a > 1_224_061);
    assert_eq!(g.splits()[0].boundary, Boundary::Hash(a));
    assert_eq!((g.splits()[0].left_rows, g.splits()[0].right_rows), (2, 1));
}

#[test]
fn shuffled_arrival_is_pythons_shuffle() {
    // python3: x = list(range(10)); random.Random(7).shuffle(x); x == [8, 3, 1, 4, 7, 0, 9, 6, 2, 5]
    let keys = KeySet::from_keys(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]).unwrap();
    let names: Vec<String> = (0..10).map(|i| format!("n{i}")).collect();
    let each = KeyRanges::named(names).unwrap().with_boundaries(["b", "c", "d", "e", "f", "g", "h", "i", "j"]).unwrap();
    let s = GrowthSettings::new(100).arrival(Arrival::Shuffled(7)).sample_every(1);
    let g = RangeGrowth::run(&keys, &each, &s).unwrap();
    let arrived: Vec<usize> =
        g.samples().windows(2).map(|w| (0..10).find(|&n| w[1].rows[n] > w[0].rows[n]).unwrap()).collect();
    assert_eq!(arrived, [8, 3, 1, 4, 7, 0, 9, 6, 2, 5]);
}

#[test]
fn timestamps_in_order_write_to_one_node() {
    // keys that sort in the order they arrive: every write lands in the last range
    let keys = KeySet::from_keys((0..20_000).map(|i| format!("t{i:08}"))).unwrap();
    let nodes = KeyRanges::named(letters("ABCD")).unwrap();
    let g = RangeGrowth::run(&keys, &nodes, &GrowthSettings::new(1_000)).unwrap();
    assert_eq!(g.writes_per_node(), [20_000, 0, 0, 0]);
    // a split of n = 1,001 rows keeps n/2 = 500 below: at arrivals 1,001, 1,501, …, 19,501
    assert!(g.splits().iter().all(|s| (s.left_rows, s.right_rows) == (500, 501)));
    let at: Vec<u64> = g.splits().iter().map(|s| s.arrival).collect();
    assert_eq!(at, (0..38).map(|k| 1_001 + 500 * k).collect::<Vec<u64>>());
    // writes since creation: only the last range took any
    let writes: Vec<u64> = g.ranges().iter().map(|r| r.writes).collect();
    assert!(writes[..writes.len() - 1].iter().all(|&w| w == 0), "{writes:?}");
}

/// A growth on many nodes charts in a bounded size (4,096 nodes sampled at
/// every arrival made a 294 MB SVG): past `MAX_LINES` nodes only the first
/// lines are drawn, and the chart says how many there were; the points of
/// all lines together are thinned to `MAX_LINE_POINTS`, each line to that
/// over the lines drawn.
#[cfg(feature = "charts")]
#[test]
fn a_rows_chart_of_many_nodes_stays_small() {
    use reshard::present::charts::{MAX_LINES, MAX_LINE_POINTS};
    let names = reshard::numbered(4096).unwrap();
    let s = GrowthSettings::new(2).sample_every(1).balance(2.0);
    let g = RangeGrowth::run(&KeySet::plain(2_000), KeyRanges::named(names).unwrap(), &s).unwrap();
    assert_eq!(g.samples().len(), 2_001); // arrival 0, then every arrival
    let svg = g.rows_chart("t").build().svg().to_string();
    assert!(svg.len() < 2_000_000, "{} bytes", svg.len());
    assert!(svg.contains(&format!("the first {MAX_LINES} of 4,096 series")), "{}", &svg[..3000]);
    // 64 lines of 2,001 points are 128,064 points, over 100,000: each thinned to 100,000 / 64
    let most = MAX_LINE_POINTS / MAX_LINES;
    assert_eq!(most, 1_562);
    assert!(svg.contains("series of up to 2,001 points thinned to 1,562"), "{}", &svg[..3000]);
}

/// A growth that may make more ranges than it holds is refused before any
/// work (20,000,000 keys at threshold 1 ran out of memory at 3.5 GB after
/// 17 s). A range splits at threshold + 1 rows into parts of ⌈threshold / 2⌉
/// rows or more, so n keys make at most n / ⌈threshold / 2⌉ − 1 splits; a
/// growth makes at most an eighth of `limits::MAX_SHARDS` (10,000,000)
/// ranges, 1,250,000.
#[test]
fn a_growth_past_the_range_limit_is_refused_at_once() {
    let t0 = std::time::Instant::now();
    let one = KeyRanges::new(3).unwrap();
    let err = RangeGrowth::run(&KeySet::plain(20_000_000), &one, &GrowthSettings::new(1)).unwrap_err();
    // 1 start range + 20,000,000 / 1 − 1 splits
    assert!(matches!(err, Error::TooLarge { asked: 20_000_000, limit: 1_250_000, .. }), "{err}");
    assert!(err.to_string().contains("raise the split threshold"), "{err}");
    // threshold 2: parts of 1 row or more, the same count; 3 and 4: parts of 2
    let two = RangeGrowth::run(&KeySet::plain(20_000_000), &one, &GrowthSettings::new(2)).unwrap_err();
    assert!(matches!(two, Error::TooLarge { asked: 20_000_000, .. }), "{two}");
    let four = RangeGrowth::run(&KeySet::plain(20_000_000), &one, &GrowthSettings::new(4)).unwrap_err();
    assert!(matches!(four, Error::TooLarge { asked: 10_000_000, .. }), "{four}");
    assert!(t0.elapsed() < std::time::Duration::from_secs(2), "{:?}", t0.elapsed());
    // the limit itself: 1,250,000 start ranges and one key (no split) run; two keys at threshold 1
    // (one split more) do not
    let wide = HashRanges::new(3).unwrap().with_even_split(1_250_000).unwrap();
    let g = RangeGrowth::run(&KeySet::plain(1), &wide, &GrowthSettings::new(1)).unwrap();
    assert_eq!(g.ranges().len(), 1_250_000);
    let over = RangeGrowth::run(&KeySet::plain(2), &wide, &GrowthSettings::new(1)).unwrap_err();
    assert!(matches!(over, Error::TooLarge { asked: 1_250_001, limit: 1_250_000, .. }), "{over}");
    // and the splits explorable refuses its smallest threshold's run before any run
    #[cfg(feature = "charts")]
    {
        let ways = [("in order", Arrival::KeyOrder)];
        let keys = KeySet::plain(20_000_000);
        let ex = RangeGrowth::explorable_splits("t", &keys, &one, &GrowthSettings::new(64), &[1, 64], &ways);
        assert!(matches!(ex, Err(Error::TooLarge { asked: 20_000_000, .. })), "{ex:?}");
    }
}
