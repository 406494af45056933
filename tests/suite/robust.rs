//! "No silent wrong answer": each finding of the hostile sweep (found by
//! calling the public API with values a reader might type, or a program
//! might pass) pinned by a test that failed before its fix. Each returns
//! the right number, or a typed error that says what to change.

use reshard::analysis::workload::zipf_probabilities;
use reshard::notebook::*;

fn keys(n: usize) -> HashedKeys {
    KeySet::plain(n).hashed(HashWidth::Bits128).unwrap()
}

/// Total-variation distance between the draws and the law.
fn tv(w: &Workload) -> f64 {
    let p = zipf_probabilities(w.keys(), w.s()).unwrap();
    (0..w.keys()).map(|i| (w.share(i) - p[i]).abs()).sum::<f64>() / 2.0
}

/// Near s = 1 (0.1 added ten times is 1 − 2⁻⁵³) the draws follow the law,
/// as at s = 1 and far from it: they gave [41285, 20804, 0, 0, 0, 0, 0,
/// 37911, 0, 0] before.
#[test]
fn zipf_near_one_draws_the_law() {
    let ten_tenths = (0..10).fold(0.0, |s, _| s + 0.1);
    for s in [ten_tenths, 1.0, 1.0 + f64::EPSILON, 1.0 - 1e-15, 1.0 + 1e-13, 1.0 - 1e-9, 0.5, 1.1] {
        let w = Workload::zipf(10, s, 200_000, 0).unwrap();
        assert!(tv(&w) < 0.01, "s = {s}: tv {} ({:?})", tv(&w), w.counts());
    }
    // and the labs' exponents draw what they drew (pinned in tests/suite/hot.rs too)
    let at_one = Workload::zipf(10, 1.0, 100_000, 0).unwrap();
    assert_eq!(at_one.counts(), [34149, 17283, 11372, 8509, 6704, 5676, 4813, 4240, 3739, 3515]);
}

/// A key past the end of a key set is not a key.
#[test]
fn a_key_past_the_end_is_none() {
    assert_eq!(KeySet::plain(10).get(usize::MAX), None);
    assert_eq!(KeySet::plain(10).get(10), None);
    assert_eq!(KeySet::plain(10).get(9).as_deref(), Some("key9"));
    let mine = KeySet::from_keys(["a"]).unwrap();
    assert_eq!(mine.get(5), None);
    assert_eq!(mine.iter().collect::<Vec<_>>(), ["a"]);
}

/// Shard tables of different shard counts are not compared shard by shard.
#[test]
fn moved_shards_across_shard_counts_is_refused() {
    let three = FixedShards::new(3).unwrap();
    let ten = three.clone().with_shards(10).unwrap();
    assert_eq!(three.moved_shards_to(&ten), Err(Error::ShardCountsDiffer { left: 1000, right: 10 }));
    assert!(three.moved_shards_to(&ten).unwrap_err().to_string().contains("Movement::measure"));
    assert_eq!(three.moved_shards_to(&three.add_node("3").unwrap()).unwrap().len(), 250);
}

/// Load under skew with nothing to measure is refused, not a fair share of 1.
#[test]
fn load_under_skew_needs_schemes_and_workloads() {
    let k = keys(10);
    let w = Workload::zipf(10, 1.0, 100, 0).unwrap();
    let one = Replicated::lineup(3, 10).unwrap();
    for (schemes, workloads) in [(&[][..], &[w.clone()][..]), (&one[..], &[][..]), (&[][..], &[][..])] {
        let err = LoadUnderSkew::measure(&k, schemes, workloads).unwrap_err();
        assert!(matches!(err, Error::OutOfRange { .. }), "{err:?}");
    }
    assert!(LoadUnderSkew::measure(&k, &one, &[w]).is_ok());
}

/// A weight that leaves a libketama server no point is refused, as
/// documented (it was [120, 0, 0] digests).
#[test]
fn ketama_weights_that_leave_a_server_no_point_are_refused() {
    let err = Ketama::new(3).unwrap().with_weights([u32::MAX, 1, 1]).unwrap_err();
    assert_eq!(err, Error::WeightsTooUneven { node: "1".into(), weight: 1, total: u64::from(u32::MAX) + 2 });
    assert!(err.to_string().contains("closer to each other"), "{err}");
    assert_eq!(Ketama::new(3).unwrap().with_weights([u32::MAX; 3]).unwrap().digests(), [40, 40, 40]);
    assert!(matches!(WeightedShares::measure(&keys(100), &[u32::MAX, 1]), Err(Error::WeightsTooUneven { .. })));
}

/// Equal weights split the keys as no weights do, however large or small
/// (1e308 overflowed every score to ∞, 5e-324 lost its digits).
#[test]
fn equal_rendezvous_weights_split_as_unweighted() {
    let k = keys(3000);
    let counts = |r: &Rendezvous| LoadReport::measure(&k, r).unwrap().counts().to_vec();
    let plain = counts(&Rendezvous::new(3).unwrap().with_weights([1.0; 3]).unwrap());
    assert_eq!(plain, [1005, 976, 1019]);
    for w in [1e308, f64::MAX, 1e300, 1e-300, 5e-324, 2.2250738585072014e-308, 3.0] {
        assert_eq!(counts(&Rendezvous::new(3).unwrap().with_weights([w; 3]).unwrap()), plain, "weights {w}");
    }
    // unequal extremes still give the heavier node its share
    let r = Rendezvous::new(2).unwrap().with_weights([f64::MAX, f64::MAX / 3.0]).unwrap();
    let c = counts(&r);
    assert!((2100..2400).contains(&c[0]), "{c:?}");
}

/// A weighted rendezvous cannot guess a new node's weight.
#[test]
fn a_weighted_rendezvous_asks_for_the_new_weight() {
    let two = Rendezvous::new(2).unwrap().with_weights([1000.0, 1000.0]).unwrap();
    let err = two.add_node("c").unwrap_err();
    assert_eq!(err, Error::WeightNeeded { node: "c".into() });
    assert!(err.to_string().contains("add_weighted_node"), "{err}");
    let three = two.add_weighted_node("c", 1000.0).unwrap();
    assert_eq!(three.weights(), Some(&[1000.0, 1000.0, 1000.0][..]));
    let k = keys(3000);
    let m = Movement::measure(&k, &two, &three).unwrap();
    assert_eq!(m.moved(), m.to_added(), "only keys to the new node");
    assert!(matches!(two.add_weighted_node("d", 0.0), Err(Error::BadWeight { .. })));
    // unweighted placements grow as before
    assert!(Rendezvous::new(2).unwrap().add_node("2").is_ok());
}

/// Refused at once, before any work: `what` returns a TooLarge within a
/// second (debug build).
fn refused_at_once<T: std::fmt::Debug>(what: &str, f: impl FnOnce() -> reshard::Result<T>) -> Error {
    let t0 = std::time::Instant::now();
    let err = f().expect_err(what);
    assert!(matches!(err, Error::TooLarge { .. }), "{what}: {err:?}");
    assert!(t0.elapsed().as_secs_f64() < 1.0, "{what}: refused after {:?}", t0.elapsed());
    err
}

/// The sweeps and loops count the work they do before they start.
#[test]
fn loops_check_their_cost_before_they_start() {
    let k = keys(10);
    let w = Workload::zipf(10, 1.0, 100, 0).unwrap();
    let e = refused_at_once("FailureSweep 4096 × [2441] × 1000", || {
        FailureSweep::measure(&k, &w, 4096, "0", &[2441], 1000)
    });
    assert!(e.to_string().contains("ring points hashed"), "{e}");
    refused_at_once("FailureSweep 100 × [100000] × 200", || FailureSweep::measure(&k, &w, 100, "0", &[100_000], 200));
    let huge = FixedShards::new(1).unwrap().with_shards(10_000_000).unwrap();
    let e = refused_at_once("resized 10M shards 1 → 4096", || resized(&huge, 1, 4096));
    assert!(e.to_string().contains("one node at a time"), "{e}");
    refused_at_once("resized ketama 1 → 4096", || resized(&Ketama::new(1).unwrap(), 1, 4096));
    refused_at_once("BoundedLoads 4096 → 4095 × [2441] × 40 ε", || {
        BoundedLoads::measure(&k, 4096, 4095, &[2441], &[0.1; 40])
    });
    refused_at_once("RequestBounds 4000 × 2441 × 10 ε", || {
        RequestBounds::measure(&k, &w, 4000, 2441, &[0.1; 10], "x")
    });
    let streamed = reshard::limits::MAX_STREAMED as usize + 1;
    refused_at_once("count_moved_streaming over its limit", || {
        reshard::analysis::modulo::count_moved_streaming(&KeySet::plain(streamed), HashWidth::Bits128, 10, 11)
    });
    // and what they accept still runs
    assert_eq!(resized(&FixedShards::new(3).unwrap(), 3, 40).unwrap().nodes().len(), 40);
    assert!(FailureSweep::measure(&k, &w, 10, "0", &[1, 10], 3).is_ok());
}

/// A predictions file is read up to a mebibyte: /dev/zero is not one, and
/// is neither read to its end (2 GB before) nor written.
#[test]
fn a_predictions_file_is_not_read_without_end() {
    let t0 = std::time::Instant::now();
    let mut book = Predictions::at("lab", "/dev/zero");
    assert_eq!(book.share("x", Guess::percent(1.0), 0.5), "prediction · x: your guess 1% · measured 50.0%\n");
    let note = book.table().to_string();
    assert!(note.contains("not a predictions file"), "{note}");
    assert!(t0.elapsed().as_secs_f64() < 2.0, "{:?}", t0.elapsed());
}

/// Charts draw at most what a reader can see, and say what they left out:
/// a ring of many points in sectors (a ring at the point limit built a
/// 794 MB SVG), a long series thinned, bars cut, a large matrix refused.
#[cfg(feature = "charts")]
#[test]
fn charts_are_capped_and_say_so() {
    use reshard::present::charts::{bar_chart, heatmap, line_chart, Series};
    let k = keys(300);
    let ring = Ring::new(100).unwrap().with_vnodes(1000).unwrap();
    let svg = ring.ring_chart("100,000 points", &k, 300).build().svg().to_string();
    assert!(svg.len() < 200_000 && svg.contains("drawn as 720 sectors"), "{} bytes", svg.len());
    let line: Vec<(f64, f64)> = (0..1_000_000).map(|i| (i as f64, (i % 1000) as f64)).collect();
    let fig = line_chart("t", "x", "y", &[Series::new("s", line)]).build();
    assert!(fig.svg().len() < 500_000 && fig.svg().contains("thinned to 10,000"), "{} bytes", fig.svg().len());
    let groups: Vec<String> = (0..4096).map(|i| i.to_string()).collect();
    let series: Vec<(String, Vec<f64>)> = (0..10).map(|j| (j.to_string(), vec![1.0; 4096])).collect();
    let fig = bar_chart("t", "y", &groups, &series).build();
    assert!(fig.svg().len() < 1_000_000, "{} bytes", fig.svg().len());
    assert!(fig.svg().contains("the first 200 of 4,096 groups"), "{}", &fig.svg()[..2000]);
    let big = vec![vec![1u64; 300]; 300];
    assert!(heatmap("t", &["a"], &["b"], &big, "x", "y").build().svg().contains("more than 40,000 cells"));
    let m = Movement::measure(&k, &Modulo::new(300).unwrap(), &Modulo::new(299).unwrap()).unwrap();
    assert!(m.heatmap_chart("t").build().svg().contains("more than 40,000 cells"));
    // an endless series is cut at the limit, and the chart says so
    let endless = Series::new("s", (0..).map(|i| (f64::from(i % 7), 1.0)).take(30_000_000));
    assert_eq!(endless.points.len() as u128, reshard::limits::current().max_keys + 1);
    assert!(line_chart("t", "x", "y", &[endless]).build().svg().contains("over this crate"));
}

/// A resize from a node count past the limit is refused before any step is
/// costed (from 2⁶³ nodes to 1 summed 2⁶³ step costs: hours).
#[test]
fn resized_from_a_huge_count_is_refused_at_once() {
    let ring = Ring::new(3).unwrap();
    let err = reshard::analysis::resized(&ring, 1usize << 63, 1).unwrap_err();
    assert!(matches!(err, Error::TooLarge { what: "nodes", .. }), "{err}");
    assert!(reshard::analysis::resized(&ring, 3, 1usize << 63).is_err());
}

/// A shuffle draws once per element after the first: 2³³ zero-sized
/// elements cost no memory but 2³³ draws (call 98 of the probes ran for
/// hours). It is refused before any draw, the slice and the generator
/// untouched; within the limit it is still Python's shuffle.
#[test]
fn a_shuffle_past_the_draw_limit_is_refused() {
    let mut nothing = vec![(); 1usize << 33];
    let mut r = PyRandom::new(42);
    refused_at_once("shuffle of 2^33 ()", || r.shuffle(&mut nothing));
    // the generator is untouched: random.Random(42)'s first draw is still to come
    assert_eq!(r.getrandbits(32).unwrap(), 2_746_317_213);
    // max_requests + 2 elements: one draw past the limit
    let mut past = vec![(); reshard::limits::current().max_requests as usize + 2];
    refused_at_once("shuffle one draw past the limit", || PyRandom::new(1).shuffle(&mut past));
    // Python: x = list(range(10)); random.Random(42).shuffle(x)
    let mut x: Vec<u32> = (0..10).collect();
    PyRandom::new(42).shuffle(&mut x).unwrap();
    assert_eq!(x, [7, 3, 2, 8, 5, 6, 9, 4, 0, 1]);
}

/// An arrival order is as long as the key count asked: past the key limit
/// it is refused before anything is allocated (`order(usize::MAX)` built
/// 2³² − 1 indices, 16 GiB, and silently stopped there).
#[test]
fn an_arrival_order_past_the_key_limit_is_refused() {
    for arrival in [Arrival::KeyOrder, Arrival::Shuffled(7)] {
        refused_at_once("order(usize::MAX)", || arrival.order(usize::MAX));
        let over = reshard::limits::current().max_keys as usize + 1;
        refused_at_once("order(max_keys + 1)", || arrival.order(over));
        assert_eq!(arrival.order(0).unwrap(), Vec::<u32>::new());
    }
    // python3: x = list(range(10)); random.Random(7).shuffle(x)
    assert_eq!(Arrival::Shuffled(7).order(10).unwrap(), [8, 3, 1, 4, 7, 0, 9, 6, 2, 5]);
}

/// Several attributes at once are checked against the entry limit (rows ×
/// attributes) before a single value is asked for: 20,000,000 rows × 3
/// attributes first held every row's three values in memory (past 3.8 GB,
/// an abort) and only then was refused.
#[test]
fn attributes_past_the_entry_limit_are_refused_before_any_value() {
    let rows = Rows::new(&KeySet::plain(10_000_000)).unwrap();
    let asked = std::sync::atomic::AtomicUsize::new(0);
    let values = |_: &str| {
        asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        vec!["x".to_string(); 3]
    };
    refused_at_once("3 attributes of 10M rows", || rows.clone().with_attributes(&["a", "b", "c"], values));
    assert_eq!(asked.load(std::sync::atomic::Ordering::Relaxed), 0);
    // a name twice, and a row with too few values, as before
    let small = Rows::new(&KeySet::plain(3)).unwrap();
    let twice = small.clone().with_attributes(&["a", "a"], |_| vec!["x".into(), "y".into()]);
    assert_eq!(twice.unwrap_err(), Error::DuplicateAttribute("a".into()));
    let short =
        small.clone().with_attributes(&["a", "b"], |k| if k == "key2" { vec![] } else { vec!["x".into(), "y".into()] });
    assert!(matches!(short, Err(Error::LengthMismatch { expected: 2, given: 0, .. })), "{short:?}");
    let ok = small.with_attributes(&["a", "b"], |k| vec![k.to_string(), "y".into()]).unwrap();
    assert_eq!((ok.value(2, "a"), ok.value(0, "b")), (Some("key2"), Some("y")));
}
