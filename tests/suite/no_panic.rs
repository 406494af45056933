//! No public entry point panics on its arguments: random and extreme
//! arguments (0, 1, `u64::MAX`, `usize::MAX`, empty and long strings, NaN
//! and ±∞) go to every constructor, `from_*`, `measure` and `run` that the
//! crate exports, and each must return `Ok` or a typed `Err` — never panic.
//!
//! Run with overflow checks on, as notebooks build the crate:
//! `[profile.test]` has them in debug; in release use
//! `RUSTFLAGS="-C overflow-checks=on" cargo test --release --test no_panic`.
//! Sizes are capped (at most a few hundred keys, a few dozen nodes) so that
//! a case that is accepted also finishes at once; the limits refuse the
//! rest before allocating.

use proptest::prelude::*;
use reshard::analysis::workload::{zipf_probabilities, ZipfStream};
use reshard::notebook::*;
use reshard::schemes::replicas::{replica_sets, Replicas};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Run `f`; fail the property if it panics (any `Result` it returns is fine:
/// its error type is the crate's typed `Error`).
fn no_panic<T>(what: &str, f: impl FnOnce() -> T) -> Result<(), TestCaseError> {
    let start = std::time::Instant::now();
    let out = catch_unwind(AssertUnwindSafe(f));
    if std::env::var_os("NO_PANIC_TIMES").is_some() && start.elapsed().as_secs_f64() > 0.2 {
        eprintln!("slow: {what} {:.2?}", start.elapsed());
    }
    out.map(drop).map_err(|e| {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        TestCaseError::fail(format!("{what} panicked: {msg}"))
    })
}

/// Counts: small ones, and the extremes.
fn count() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..12,
        1 => Just(usize::MAX),
        1 => Just(usize::MAX / 2 + 1),
        1 => Just(1usize << 40),
        1 => Just(4097usize),
        1 => Just(50_000_000usize),
    ]
}

fn big_u64() -> impl Strategy<Value = u64> {
    prop_oneof![3 => 0u64..100, 1 => Just(u64::MAX), 1 => Just(u64::MAX / 2 + 1), 1 => any::<u64>()]
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => -2.0f64..5.0,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(0.0),
        1 => Just(f64::MAX),
        1 => Just(f64::MIN_POSITIVE),
        1 => Just(5e-324),
        1 => Just(-0.0),
    ]
}

fn float32() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => -2.0f32..5.0,
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::MAX),
        1 => Just(1e-45f32),
        1 => Just(0.0f32),
    ]
}

/// Node names: short ones, empty ones, duplicates, and a long one.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[A-E]{0,2}",
        1 => Just(String::new()),
        1 => Just("x".repeat(100_000)),
        1 => Just("é\u{0}{".to_string()),
    ]
}

fn names() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(name(), 0..6)
}

fn width() -> impl Strategy<Value = HashWidth> {
    prop_oneof![Just(HashWidth::Bits32), Just(HashWidth::Bits128)]
}

fn keys(n: usize, width: HashWidth) -> HashedKeys {
    KeySet::plain(n.max(1)).hashed(width).unwrap()
}

const CASES: u32 = 40;

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn scheme_constructors(n in count(), m in count(), names in names(), w in float(), eps in float(),
                           seed in big_u64(), salt in name()) {
        no_panic("Modulo::new", || Modulo::new(n))?;
        no_panic("Ring::new", || Ring::new(n))?;
        no_panic("Rendezvous::new", || Rendezvous::new(n))?;
        no_panic("Jump::new", || Jump::new(n))?;
        no_panic("FixedShards::new", || FixedShards::new(n))?;
        no_panic("Slots::new", || Slots::new(n))?;
        no_panic("Maglev::new", || Maglev::new(n))?;
        no_panic("Ketama::new", || Ketama::new(n))?;
        no_panic("Bounded::new", || Bounded::new(n))?;
        no_panic("UnstableShards::new", || UnstableShards::new(n))?;
        no_panic("numbered", || numbered(n))?;
        no_panic("prefixed", || prefixed(&salt, n))?;
        no_panic("letters", || letters(&salt))?;
        no_panic("Modulo::named", || Modulo::named(names.clone()))?;
        no_panic("Jump::named", || Jump::named(names.clone()))?;
        no_panic("Slots::named", || Slots::named(names.clone()))?;
        no_panic("Ketama::named", || Ketama::named(names.clone()))?;
        no_panic("UnstableShards::named", || UnstableShards::named(names.clone()).and_then(|u| u.with_shards(m)))?;
        no_panic("Ring::named/with_vnodes/with_salt", || {
            Ring::named(names.clone()).and_then(|r| r.with_vnodes(m)).and_then(|r| r.with_salt(salt.clone()))
        })?;
        no_panic("Rendezvous::named/with_weights", || {
            Rendezvous::named(names.clone()).and_then(|r| r.with_weights(vec![w; names.len()]))
        })?;
        no_panic("FixedShards::named/with_shards", || {
            FixedShards::named(names.clone()).and_then(|f| f.with_shards(m)).map(|f| f.with_seed(seed))
        })?;
        no_panic("Maglev::named/with_table_size", || Maglev::named(names.clone()).and_then(|x| x.with_table_size(m)))?;
        no_panic("Bounded::named/with_epsilon", || {
            Bounded::named(names.clone()).and_then(|b| b.with_epsilon(eps)).and_then(|b| b.with_vnodes(m))
        })?;
        no_panic("Ketama::with_weights", || {
            Ketama::new(3).and_then(|k| k.with_weights([u32::MAX, 0, n as u32]))
        })?;
        no_panic("PyRandom", || {
            let mut r = PyRandom::new(seed);
            let _ = r.getrandbits(m as u32);
            let _ = r.randbelow(n as u32);
            let mut x = vec![0u8; m.min(64)];
            r.shuffle(&mut x).unwrap();
        })?;
        no_panic("jump_hash", || jump_hash(seed, n as u32))?;
        no_panic("guava_consistent_hash", || guava_consistent_hash(seed, n as u32))?;
        no_panic("modulo_rule", || modulo_rule(n, m))?;
        no_panic("HashWidth::position", || {
            let p = HashWidth::Bits32.position(u128::from(seed) << 64 | u128::MAX >> 64);
            assert!((0.0..1.0).contains(&p), "position {p}");
            let p = HashWidth::Bits128.position(u128::MAX - u128::from(seed));
            assert!((0.0..1.0).contains(&p), "position {p}");
        })?;
    }

    #[test]
    fn tables(names in names(), table in prop::collection::vec(prop_oneof![0u32..4, Just(u32::MAX)], 0..40),
              factor in count(), take in count(), from in name(), to in name()) {
        no_panic("FixedShards::from_table", || {
            if let Ok(f) = FixedShards::from_table(names.clone(), table.clone()) {
                let _ = f.split(factor);
                let _ = f.move_shards(&from, &to, take);
                let _ = f.rebalance_to(names.iter().rev().cloned());
                let k = keys(50, HashWidth::Bits128);
                let _ = replica_sets(&f, &k, take.min(5));
                let _ = f.replicas(Key::new("k", HashWidth::Bits32), take);
            }
        })?;
        no_panic("Slots::from_table", || {
            if let Ok(s) = Slots::from_table(names.clone(), table.clone()) {
                let _ = s.reshard(&to, take);
                let _ = s.reshard_from(&from, &to, take);
                let _ = s.add_node(&to);
                let _ = s.remove_node(&from);
                let _ = s.rebalance_joining(std::slice::from_ref(&to), true);
                let _ = s.drain(&from, std::slice::from_ref(&to));
                let _ = s.rebalance(true);
            }
        })?;
        no_panic("Maglev::from_permutations", || {
            let perms = vec![table.clone(); names.len()];
            Maglev::from_permutations(names.clone(), perms)
        })?;
    }

    #[test]
    fn slots_rebalance(n in 1usize..5, w in float32(), t in float32(), empty in any::<bool>()) {
        let base = Slots::new(n).unwrap();
        let names = base.nodes().iter().cloned().chain(["new".to_string()]);
        let s = Slots::from_table(names, base.table().to_vec()).unwrap(); // "new" has no slots
        let weights = vec![w; n + 1];
        no_panic("Slots::rebalance_with", || s.rebalance_with(&weights, empty, t))?;
        let mut mixed = vec![1.0; n + 1];
        mixed[0] = w;
        no_panic("Slots::rebalance_with (one weight)", || s.rebalance_with(&mixed, empty, t))?;
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn ranges(names in names(), bounds in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..4), 0..8),
              hashes in prop::collection::vec(prop_oneof![Just(0u128), Just(u128::MAX), Just(1u128 << 32), 0u128..99, any::<u128>()], 0..8),
              n in count(), i in count(), at in prop::collection::vec(any::<u8>(), 0..4),
              h in prop_oneof![Just(0u128), Just(u128::MAX), Just(1u128 << 32), any::<u128>()], width in width(),
              threshold in big_u64(), f in float(), every in count(), seed in big_u64(), name in name()) {
        no_panic("KeyRanges::new", || KeyRanges::new(n))?;
        no_panic("HashRanges::new", || HashRanges::new(n))?;
        no_panic("KeyRanges", || {
            if let Ok(r) = KeyRanges::named(names.clone()).and_then(|r| r.with_boundaries(&bounds)) {
                let _ = (r.range_of(&at), r.touching(Some(&at), bounds.first().map(Vec::as_slice)), r.ranges());
                let _ = (r.split_at(&at), r.merge(i), r.move_range(i, &name), r.add_node(&name), r.remove_node(&name));
                let _ = r.clone().with_owners(names.iter().cycle().take(i.min(9)));
                let _ = r.clone().presplit(&KeySet::from_keys(&bounds).unwrap(), n);
                let _ = (r.to_string(), r.locate(Key::new(&at, HashWidth::Bits32)));
            }
        })?;
        no_panic("HashRanges", || {
            let r = HashRanges::named(names.clone()).and_then(|r| r.with_width(width));
            let _ = r.clone().and_then(|r| r.with_even_split(n)).map(|r| r.to_string());
            if let Ok(r) = r.and_then(|r| r.with_boundaries(&hashes)) {
                let _ = (r.range_of(h), r.split_at(h), r.split_middle(i), r.merge(i), r.move_range(i, &name));
                let _ = (r.add_node(&name), r.remove_node(&name), r.clone().with_width(HashWidth::Bits32), r.to_string());
                let _ = r.locate(Key::from_hash(h, HashWidth::Bits128));
            }
        })?;
        no_panic("RangeGrowth::run", || {
            let keys = KeySet::from_keys(&bounds).unwrap();
            let mut s = GrowthSettings::new(threshold).sample_every(every).arrival(Arrival::Shuffled(seed));
            if i % 2 == 0 {
                s = s.balance(f);
            }
            let k = RangeGrowth::run(&keys, KeyRanges::new(3).unwrap(), &s).map(|g| g.table().to_text());
            let h = RangeGrowth::run(&keys, HashRanges::new(2).unwrap().with_even_split(5).unwrap(), &s);
            (k, h.map(|g| (g.ranges_table().to_text(), g.splits_table().to_text(), g.moves_table().to_text())))
        })?;
        no_panic("RangeQuery::measure", || {
            let keys = KeySet::from_keys(&bounds).unwrap();
            let lo = bounds.first().map(Vec::as_slice);
            let q = RangeQuery::measure(&keys, KeyRanges::new(2).unwrap(), lo, Some(&at));
            (q.map(|q| q.table().to_text()), RangeQuery::measure(&keys, HashRanges::new(2).unwrap(), Some(&at), lo))
        })?;
    }
}

proptest! {
    // each case places keys under every scheme: fewer cases
    #![proptest_config(ProptestConfig { cases: CASES / 3, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn analysis(n_keys in 1usize..300, width in width(), from in count(), to in count(), rf in count(),
                eps in float(), points in prop::collection::vec(count(), 0..3), name in name()) {
        let k = keys(n_keys, width);
        let small = |x: usize| x.min(40);
        no_panic("Movement::measure", || {
            Movement::measure(&k, &Modulo::new(small(from).max(1)).unwrap(), &Modulo::new(small(to).max(1)).unwrap())
        })?;
        no_panic("LoadReport::measure", || LoadReport::measure(&k, &Rendezvous::new(small(from).max(1)).unwrap()))?;
        no_panic("Comparison::measure", || {
            let untimed = CompareSettings { timed_keys: 0, ..Default::default() };
            Comparison::measure(&k, small(from).min(12), small(to).min(12), &untimed)
        })?;
        no_panic("resized", || resized(&Ring::new(3).unwrap(), from, to))?;
        no_panic("MiddleRemoval::measure", || MiddleRemoval::measure(&k, small(from), to))?;
        no_panic("ModuloSweep::measure", || ModuloSweep::measure(&k, &[(small(from), small(to)), (from, to)]))?;
        no_panic("ArrangementSweep::measure", || {
            ArrangementSweep::measure(&k, &numbered(small(from)).unwrap_or_default(), &numbered(small(to)).unwrap_or_default(), small(rf), 2)
        })?;
        no_panic("VnodeSweep::measure", || {
            let (old, new) = (numbered(small(from)).unwrap_or_default(), numbered(small(to)).unwrap_or_default());
            VnodeSweep::measure(&k, &old, &new, &points, 2)
        })?;
        no_panic("ArrangementSweep::measure (huge count)", || {
            ArrangementSweep::measure(&k, &numbered(3).unwrap(), &numbered(4).unwrap(), 1, from)
        })?;
        no_panic("LoadSpread::measure", || LoadSpread::measure(&k, small(from), &points, 2))?;
        no_panic("LoadSpread::measure_jump", || LoadSpread::measure_jump(&k, from))?;
        no_panic("ring_share_sd", || ring_share_sd(from, to, rf))?;
        no_panic("BoundedLoads::measure", || BoundedLoads::measure(&k, small(from), small(to), &points, &[eps, 0.25]))?;
        no_panic("WeightedShares::measure", || {
            WeightedShares::measure(&k, &[from as u32, to as u32, u32::MAX, 0])
        })?;
        no_panic("CopyMovement::measure", || {
            let lineup = Replicated::lineup(small(from).max(1), small(to).max(1)).unwrap_or_default();
            CopyMovement::measure(&k, &lineup, rf, &name)
        })?;
        no_panic("replica_sets", || replica_sets(&Ring::new(small(from).max(1)).unwrap(), &k, rf))?;
        no_panic("Bounded::assign_weighted", || {
            let b = Bounded::new(small(from).max(1)).unwrap();
            let mut w = vec![1u64; n_keys];
            w[0] = u64::MAX;
            b.assign_weighted(&k, &w)
        })?;
        no_panic("Quiz::ask_modulo", || Quiz::new("q").ask_modulo(&k, from, to))?;
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn from_parts(names in names(), counts in prop::collection::vec(big_u64(), 0..6),
                  a in prop::collection::vec(0u32..6, 0..30), b in prop::collection::vec(0u32..6, 0..30),
                  s in float(), seed in big_u64(), n in count(), req in big_u64()) {
        no_panic("LoadReport::from_counts", || {
            if let Ok(r) = LoadReport::from_counts(names.clone(), counts.clone()) {
                let _ = (r.total(), r.mean(), r.max_over_mean(), r.std_dev(), r.relative_std_dev());
            }
        })?;
        no_panic("Movement::from_assignments", || {
            if let Ok(m) = Movement::from_assignments(&names, &a, &names[names.len().min(1)..], &b) {
                let _ = (m.moved(), m.share(), m.load_before(), m.load_after());
            }
        })?;
        no_panic("Workload::from_counts", || {
            if let Ok(w) = Workload::from_counts(counts.clone(), s, seed) {
                let _ = (w.share(0), w.hottest(), w.hottest_share());
            }
        })?;
        no_panic("Workload::zipf", || Workload::zipf(n.min(1000), s, req.min(1000), seed))?;
        no_panic("Workload::zipf (big)", || Workload::zipf(n, s, req, seed))?;
        no_panic("ZipfStream::new", || ZipfStream::new(n, s, seed).map(|mut z| z.draw()))?;
        no_panic("zipf_probabilities", || zipf_probabilities(n.min(1000), s))?;
        no_panic("zipf_probabilities (big)", || zipf_probabilities(n, s))?;
    }

    #[test]
    fn tutor(x in float(), label in name(), doc in prop_oneof![Just("90.91%".to_string()), name()],
             n in big_u64(), tol in float()) {
        no_panic("Guess", || {
            for g in [Guess::percent(x), Guess::count(n), Guess::none()] {
                let line = g.versus_share(x);
                assert!(!line.contains("NaN%") && !line.contains("inf%"), "{line}");
                let _ = g.versus_count(n);
            }
        })?;
        no_panic("Check", || {
            let c = Check::percent(label.clone(), &doc, x);
            assert!(!c.measured.contains("NaN%"), "{}", c.measured);
            let _ = (c.line(), c.verdict());
            let c = Check::ratio(label.clone(), &doc, x).theory("f", x, tol);
            let _ = c.line();
            let _ = Check::count(label.clone(), n, n / 2).line();
            let _ = Checks::new("t").with(c).to_string();
        })?;
        no_panic("Quiz", || {
            let q = Quiz::new("q").ask("?", x, tol);
            let _ = q.grade(&[Guess::percent(x), Guess::count(n)]).table().to_string();
            let _ = q.table().to_string();
        })?;
        no_panic("Params", || Params::new().param(&label, x, n).param(&label, &doc[..], n as f64))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn indexes_and_tails(names in names(), values in prop::collection::vec(name(), 0..8), attr in name(),
                         key in name(), samples in prop::collection::vec(float(), 0..12), x in float(),
                         y in float(), p in float(), n in count(), trials in count(), seed in big_u64()) {
        no_panic("Rows", || {
            let keys = KeySet::from_keys(&values).unwrap();
            let rows = Rows::new(&keys).and_then(|r| r.with_attribute(&attr, values.iter().rev()));
            let layout = KeyRanges::named(names.clone()).and_then(|r| r.with_boundaries(&values));
            if let (Ok(rows), Ok(layout)) = (rows, layout) {
                let _ = (rows.to_string(), rows.postings_keys(), rows.value(n, &attr), rows.terms());
                if let Ok(l) = LocalIndex::build(&rows, &layout) {
                    let _ = (l.query(&attr, &key).map(|q| q.to_string()), l.insert(&key, [&key]).map(|w| w.to_string()));
                    let _ = (l.insert(&key, std::iter::repeat("v")), l.to_string());
                }
                if let Ok(g) = GlobalIndex::build(&rows, &layout, &layout) {
                    let _ = (g.query(&attr, &key).map(|q| q.to_string()), g.insert(&key, [&key]).map(|w| w.to_string()));
                    let _ = (g.to_string(), g.terms_table().to_string(), g.query(&key, &attr));
                }
            }
        })?;
        no_panic("Latency", || {
            for l in [Latency::from_samples(&samples), Latency::two_point(x, y, p)].into_iter().flatten() {
                let _ = (l.cdf(x), l.share_slower(y), l.quantile(p), l.mean(), l.to_string());
                if let Ok(f) = FanOut::copies(&l, n.min(50)) {
                    let _ = (f.cdf(x), f.quantile(p), f.p99(), f.to_string());
                    let _ = f.simulate(&Simulation::new(trials.min(200)).seed(seed)).map(|r| (r.p50(), r.to_string()));
                }
                let _ = FanOutSweep::run(&l, &[n.min(9), 1], x, &Simulation::new(trials.min(100))).map(|s| s.to_string());
            }
            let _ = share_slow(p, seed);
        })?;
        no_panic("AsyncIndex", || {
            if let Ok(i) = AsyncIndex::new(x).and_then(|i| i.with_jitter(y)) {
                let _ = (i.miss_probability(p), i.miss_probability(x), i.simulate(p, &Simulation::new(trials.min(200))));
                let _ = i.sweep(&[p, x, y], &Simulation::new(trials.min(100)).seed(seed)).map(|s| s.to_string());
                let m = i.miss_probability(p.abs()).unwrap_or(0.5);
                assert!((0.0..=1.0).contains(&m), "{m}");
            }
        })?;
    }
}

#[test]
fn tails_are_refused_at_once_when_over_the_limits() {
    let start = std::time::Instant::now();
    let l = Latency::two_point(1.0, 2.0, 0.5).unwrap();
    assert!(matches!(FanOut::copies(&l, usize::MAX), Err(Error::TooLarge { .. })));
    // (an endless iterator of shards, FanOut::new, is crate-only: src/analysis/fanout_tests.rs)
    let f = FanOut::copies(&l, 4096).unwrap();
    assert!(matches!(f.simulate(&Simulation::new(usize::MAX)), Err(Error::TooLarge { .. })));
    let sweep = FanOutSweep::run(&l, &[usize::MAX, 1], 1.0, &Simulation::new(usize::MAX));
    assert!(matches!(sweep, Err(Error::TooLarge { .. })));
    // a period below a picosecond is refused (its products lose their digits); the smallest allowed works
    assert!(matches!(AsyncIndex::new(f64::MIN_POSITIVE), Err(Error::BadNumber { .. })));
    let i = AsyncIndex::new(1e-9).unwrap().with_jitter(1e15).unwrap();
    assert_eq!(i.miss_probability(0.0).unwrap(), 1.0);
    assert!(matches!(i.simulate(1.0, &Simulation::new(usize::MAX)), Err(Error::TooLarge { .. })));
    // one row over the limit of keys held: refused by Rows::new, before a key is spelled
    let over = Rows::new(&KeySet::plain(20_000_001));
    assert!(matches!(over, Err(Error::TooLarge { what: "keys held in memory", asked: 20_000_001, .. })));
    // index entries (rows × attributes) over the limit: refused before a value is read
    let rows = Rows::new(&KeySet::plain(10_000_001)).unwrap();
    let two = rows.with_attributes(&["a", "b"], |_| unreachable!("no value is read"));
    assert!(matches!(two, Err(Error::TooLarge { what: "index entries (rows × attributes)", asked: 20_000_002, .. })));
    assert!(start.elapsed().as_secs() < 5);
}

// One plain test per case a reviewer found: each gives a typed error or the
// right answer at once.

#[test]
fn workload_from_counts_overflow_and_nan() {
    let nan = Workload::from_counts(vec![u64::MAX, 1], f64::NAN, 0).unwrap_err();
    assert!(matches!(nan, Error::BadNumber { .. }), "{nan:?}");
    assert!(nan.to_string().contains("≥ 0"), "{nan}");
    let over = Workload::from_counts(vec![u64::MAX, 1], 1.0, 0).unwrap_err();
    assert!(matches!(over, Error::Overflow { .. }), "{over:?}");
    assert_eq!(Workload::from_counts(vec![u64::MAX, 0], 1.0, 0).unwrap().requests(), u64::MAX);
}

#[test]
fn load_report_from_counts() {
    let twice = LoadReport::from_counts(vec!["A".into(), "A".into()], vec![u64::MAX, 1]).unwrap_err();
    assert_eq!(twice, Error::DuplicateNode("A".into()));
    let over = LoadReport::from_counts(vec!["A".into(), "B".into()], vec![u64::MAX, 1]).unwrap_err();
    assert!(matches!(over, Error::Overflow { .. }), "{over:?}");
    assert_eq!(LoadReport::from_counts(vec![], vec![]).unwrap_err(), Error::NoNodes);
}

#[test]
fn movement_from_assignments() {
    let aa = ["A".to_string(), "A".to_string()];
    assert_eq!(
        Movement::from_assignments(&aa, &[0, 1], &aa[..1], &[0, 0]).unwrap_err(),
        Error::DuplicateNode("A".into())
    );
    assert_eq!(Movement::from_assignments(&[], &[], &[], &[]).unwrap_err(), Error::NoNodes);
    // 70,000 names: refused before the 70,000² matrix is allocated
    let many: Vec<String> = (0..70_000).map(|i| i.to_string()).collect();
    let start = std::time::Instant::now();
    let err = Movement::from_assignments(&many, &[0], &many, &[1]).unwrap_err();
    assert!(matches!(err, Error::TooLarge { asked: 70_000, limit: 4096, .. }), "{err:?}");
    assert!(start.elapsed().as_secs() < 5);
    // before and after together over the limit
    let a: Vec<String> = (0..3000).map(|i| format!("a{i}")).collect();
    let b: Vec<String> = (0..3000).map(|i| format!("b{i}")).collect();
    let err = Movement::from_assignments(&a, &[0], &b, &[0]).unwrap_err();
    assert!(matches!(err, Error::TooLarge { asked: 6000, .. }), "{err:?}");
}

#[test]
fn bounded_assign_weighted_with_a_huge_weight() {
    let keys = KeySet::plain(4).hashed(HashWidth::Bits128).unwrap();
    let b = Bounded::new(4).unwrap();
    let owners = b.assign_weighted(&keys, &[u64::MAX, 1, 1, 1]).unwrap();
    // the bound is ⌈1.25 · (2^64 + 2) / 4⌉ < u64::MAX: no node has room for
    // key 0, so it goes to the least loaded node, the lowest id (0); the
    // others then go clockwise to the first node with room, never node 0
    assert_eq!(owners[0], 0);
    let ring = b.ring();
    for (i, &owner) in owners.iter().enumerate().skip(1) {
        assert_ne!(owner, 0, "key {i}");
        let plain = ring.locate(Key::new(&format!("key{i}"), HashWidth::Bits128));
        if plain != 0 {
            assert_eq!(owner, plain, "key {i} has room on its own node");
        }
    }
}

#[test]
fn key_from_hash_is_not_one_key() {
    // a key known by its hash alone: rendezvous must not send every such key
    // to one node (it hashes the hash's bytes in place of the key's)
    let r = Rendezvous::new(10).unwrap();
    let owners: std::collections::HashSet<u32> =
        (0..20u128).map(|h| r.locate(Key::from_hash(h * 0x1234_5678_9abc_def1, HashWidth::Bits128))).collect();
    assert!(owners.len() > 3, "{owners:?}");
    // and the hash-only schemes give a from_hash key the owner of the key
    let k = Key::new("user:7", HashWidth::Bits32);
    let h = Key::from_hash(k.hash(), HashWidth::Bits32);
    let ring = Ring::new(5).unwrap().with_vnodes(40).unwrap();
    assert_eq!(ring.locate(h), ring.locate(k));
    assert_eq!((h.hash(), h.width(), h.bytes()), (k.hash(), k.width(), &b""[..]));
    // a 32-bit key's hash is reduced to 32 bits
    assert_eq!(Key::from_hash(u128::MAX, HashWidth::Bits32).hash(), 0xFFFF_FFFF);
}

#[test]
fn slots_rebalance_with_bad_numbers() {
    let s = Slots::new(3).unwrap();
    for t in [f32::NAN, -1.0, f32::INFINITY] {
        assert!(matches!(s.rebalance_with(&[1.0; 3], true, t), Err(Error::BadNumber { .. })), "threshold {t}");
    }
    let start = std::time::Instant::now();
    assert!(matches!(s.rebalance_with(&[f32::MAX; 3], true, 2.0), Err(Error::BadNumber { .. })));
    assert!(matches!(s.rebalance_with(&[1e-45; 3], true, 2.0), Err(Error::BadNumber { .. })));
    assert!(start.elapsed().as_secs() < 5);
    // equal large weights are as good as equal small ones
    let a = s.rebalance_with(&[1e30; 3], true, 2.0).unwrap();
    assert_eq!(a.after(), s.rebalance_with(&[1.0; 3], true, 2.0).unwrap().after());
}

#[test]
fn replica_sets_when_a_node_owns_no_shard() {
    let f = FixedShards::from_table(["A", "B", "C"], vec![0; 10]).unwrap();
    let keys = KeySet::plain(20).hashed(HashWidth::Bits128).unwrap();
    let err = replica_sets(&f, &keys, 2).unwrap_err();
    assert!(err.to_string().contains("at most 1"), "{err}");
    assert!(f.replicas(Key::new("k", HashWidth::Bits128), 2).is_err());
    assert_eq!(replica_sets(&f, &keys, 1).unwrap(), vec![0; 20]);
}

#[test]
fn node_counts_are_checked_before_names_are_built() {
    let start = std::time::Instant::now();
    let too_many = |r: Result<(), Error>| matches!(r, Err(Error::TooLarge { .. }));
    assert!(too_many(Ring::new(usize::MAX).map(drop)));
    assert!(too_many(Modulo::new(usize::MAX).map(drop)));
    assert!(too_many(Jump::new(usize::MAX).map(drop)));
    assert!(too_many(numbered(usize::MAX).map(drop)));
    assert!(too_many(prefixed("S", usize::MAX).map(drop)));
    assert!(too_many(Rendezvous::new(1 << 40).map(drop)));
    assert!(too_many(Modulo::new(50_000_000).map(drop)));
    // a long prefix counts in bytes
    assert!(too_many(prefixed(&"x".repeat(1 << 20), 2).map(drop)));
    assert!(too_many(Ring::named(["y".repeat(2 << 20)]).map(drop)));
    assert!(start.elapsed().as_secs() < 2);
}

#[test]
fn position_lies_in_the_unit_interval() {
    // 2^32 − 1 over 2^32, exactly
    assert_eq!(HashWidth::Bits32.position(u128::MAX), 4_294_967_295.0 / 4_294_967_296.0);
    assert!(HashWidth::Bits128.position(u128::MAX) < 1.0);
    assert_eq!(HashWidth::Bits128.position(1 << 127), 0.5);
}

#[test]
fn nan_guesses_and_measurements_say_so() {
    let g = Guess::percent(f64::NAN).versus_share(0.5);
    assert!(!g.contains("NaN%") && g.contains("not a percentage"), "{g}");
    let c = Check::percent("share", "9.09%", f64::NAN);
    assert!(!c.line().contains("NaN%"), "{}", c.line());
    assert!(!c.matches());
}

#[test]
fn key_sets_count_their_bytes() {
    let err = KeySet::new("k".repeat(10_000), 200_000).hashed(HashWidth::Bits128).unwrap_err();
    assert!(matches!(err, Error::TooLarge { .. }), "{err:?}");
    assert!(err.to_string().contains("bytes of keys"), "{err}");
}

#[test]
fn streaming_counts_are_bounded_in_time() {
    use reshard::analysis::modulo::count_moved_streaming;
    let err = count_moved_streaming(&KeySet::plain(usize::MAX), HashWidth::Bits32, 10, 11).unwrap_err();
    assert!(matches!(err, Error::TooLarge { .. }), "{err:?}");
    // a long prefix makes every key several md5 blocks
    let long = KeySet::new("p".repeat(1000), 100_000_000);
    assert!(count_moved_streaming(&long, HashWidth::Bits32, 10, 11).is_err());
}

#[test]
fn long_salts_are_refused_before_hashing() {
    let start = std::time::Instant::now();
    let ring = Ring::new(1000).unwrap().with_vnodes(10_000).unwrap();
    assert!(matches!(ring.with_salt("s".repeat(1 << 20)), Err(Error::TooLarge { .. })));
    let keys = KeySet::plain(10).hashed(HashWidth::Bits32).unwrap();
    let (old, new) = (numbered(100).unwrap(), numbered(101).unwrap());
    let sweep = ArrangementSweep::measure_salted(&keys, &old, &new, 1000, vec!["s".repeat(1 << 20); 3]);
    assert!(matches!(sweep, Err(Error::TooLarge { .. })));
    assert!(start.elapsed().as_secs() < 5);
}

#[test]
fn range_boundaries_from_endless_iterators_are_refused_at_once() {
    let r = KeyRanges::new(2).unwrap();
    // an endless iterator that says so, one that repeats itself, one that counts up
    assert!(matches!(r.clone().with_boundaries(std::iter::repeat("a")), Err(Error::TooLarge { .. })));
    assert!(matches!(
        r.clone().with_boundaries(std::iter::from_fn(|| Some("a"))),
        Err(Error::DuplicateBoundary { .. })
    ));
    let down = std::iter::successors(Some(u64::MAX), |&i| Some(i - 1)).map(|i| format!("{i:020}"));
    assert!(matches!(r.with_boundaries(down), Err(Error::UnsortedBoundaries { index: 1, .. })));
    let owners = std::iter::repeat("0");
    assert!(matches!(KeyRanges::new(2).unwrap().with_owners(owners), Err(Error::LengthMismatch { .. })));
}

#[test]
fn range_growth_with_extreme_thresholds() {
    let keys = KeySet::plain(200);
    for t in [1, 2, u64::MAX] {
        for f in [1.0, 2.0, f64::MAX] {
            let s = GrowthSettings::new(t).balance(f).sample_every(1);
            let g = RangeGrowth::run(&keys, HashRanges::named(["A", "B"]).unwrap(), &s).unwrap();
            assert_eq!(g.rows(), 200);
        }
    }
    let wide =
        HashRanges::new(3).unwrap().with_width(HashWidth::Bits128).unwrap().with_boundaries(&[u128::MAX]).unwrap();
    assert_eq!(RangeGrowth::run(&keys, &wide, &GrowthSettings::new(1)).unwrap().rows(), 200);
}
