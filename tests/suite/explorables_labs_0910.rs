//! The explorables of labs 09 and 10, built as their cells build them, and
//! grid points recomputed another way:
//!
//! * lab 09 (splits so far as today's events arrive, slider `threshold`):
//!   in time order by the closed form of a table that only grows at its
//!   end, at random by a naive table of sorted ranges (no Fenwick tree, no
//!   nodes), both against the chart's data;
//! * lab 10 (queries waiting for a slow shard, slider `p_slow`): the
//!   formula against `(1 − p)^N` multiplied out and the lab's printed
//!   figures, the simulation against a fresh `FanOut::simulate` and within
//!   five standard deviations of the formula.
#![cfg(feature = "charts")]

use crate::spec::{check_points, Setting};
use reshard::notebook::*;
use reshard::present::explore_fanout::FORMULA;

use crate::spec;

// ---- lab 09 ---------------------------------------------------------------------------------

/// Lab 09's `stamp`: event `i` of `n`, spread evenly over the day.
fn stamp(day: &str, i: usize, n: usize) -> String {
    let ms = i * 86_400_000 / n;
    let (h, m, s) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60);
    format!("{day} {h:02}:{m:02}:{s:02}.{:03}", ms % 1000)
}

/// Lab 09's explorable cell, with its parameters (20,000 events, threshold 2,000, balance 2, seed 42).
fn lab09() -> (KeySet, Explorable) {
    let n_events = 20_000;
    let today = KeySet::from_keys((0..n_events).map(|i| stamp("2026-12-01", i, n_events))).unwrap();
    let one = KeyRanges::named(letters("ABCD")).unwrap();
    let settings = GrowthSettings::new(2_000).balance(2.0);
    let thresholds: Vec<u64> = (2..=10).map(|i| i * 500).collect();
    let ways = [("time order", Arrival::KeyOrder), ("random", Arrival::Shuffled(42))];
    let title = format!("Splits so far as today's {} events arrive, from one range", thousands(n_events as u64));
    let ex = RangeGrowth::explorable_splits(&title, &today, &one, &settings, &thresholds, &ways).unwrap();
    (today, ex)
}

/// Keys written in order into one range: the range splits at `t + 1` rows, keeps
/// the lower `⌊(t+1)/2⌋` and only the upper part grows again, so a split comes
/// every `⌊(t+1)/2⌋` arrivals after the first at `t + 1`.
fn splits_in_order(t: u64, arrived: u64) -> u64 {
    if arrived <= t {
        0
    } else {
        1 + (arrived - (t + 1)) / t.div_ceil(2) // ⌊(t+1)/2⌋ = ⌈t/2⌉
    }
}

/// A naive table: sorted ranges of keys; a key goes into the range of the last
/// boundary at or below it; a range over `t` rows splits at its row `n/2`.
/// Returns the arrival of every split.
fn naive_splits(keys: &KeySet, order: &[u32], t: usize) -> Vec<usize> {
    let mut ranges: Vec<Vec<String>> = vec![Vec::new()];
    let mut splits = Vec::new();
    for (a, &i) in order.iter().enumerate() {
        let key = keys.key(i as usize);
        let r = ranges.partition_point(|range| range.first().is_some_and(|lo| *lo <= key)).saturating_sub(1);
        let at = ranges[r].binary_search(&key).unwrap_or_else(|p| p);
        ranges[r].insert(at, key);
        if ranges[r].len() > t {
            let half = ranges[r].len() / 2;
            let upper = ranges[r].split_off(half);
            ranges.insert(r + 1, upper);
            splits.push(a + 1);
        }
    }
    splits
}

#[test]
fn lab09_time_order_is_the_closed_form() {
    let (_, ex) = lab09();
    let out = ex.output().unwrap();
    assert_eq!(spec::rows(&out).len(), 9 * 2 * 21);
    let mut points = Vec::new();
    let settings: Vec<[(&str, f64); 1]> = (2..=10).map(|i| [("threshold", i as f64 * 500.0)]).collect();
    for (i, s) in settings.iter().enumerate() {
        let t = (i as u64 + 2) * 500;
        for arrived in [0u64, 1_000, 2_000, 3_000, 7_000, 20_000] {
            points.push((&s[..], "time order", arrived.to_string(), splits_in_order(t, arrived) as f64));
        }
    }
    let points: Vec<(Setting, &str, &str, f64)> = points.iter().map(|(s, n, x, y)| (*s, *n, x.as_str(), *y)).collect();
    check_points(&out, &points);
    // Lab 09's Why: 18 splits in time order at the threshold of 2,000.
    assert_eq!(splits_in_order(2_000, 20_000), 18);
    assert_eq!(ex.defaults(), vec![("threshold", 2_000.0)]);
}

#[test]
fn lab09_random_order_is_a_naive_tables() {
    let (today, ex) = lab09();
    let out = ex.output().unwrap();
    let order = Arrival::Shuffled(42).order(today.len()).unwrap();
    for t in [1_000usize, 2_000, 5_000] {
        let splits = naive_splits(&today, &order, t);
        let setting = [("threshold", t as f64)];
        for arrived in [1_000usize, 5_000, 12_000, 20_000] {
            let want = splits.iter().filter(|&&a| a <= arrived).count() as f64;
            check_points(&out, &[(&setting, "random", &arrived.to_string(), want)]);
        }
        if t == 2_000 {
            assert_eq!(splits.len(), 15, "lab 09's Why: 15 splits at random");
        }
    }
    // The default view's line starts with the title and the lab's setting.
    assert!(out.text().starts_with("Splits so far as today's 20,000 events arrive, from one range · threshold = 2"));
    assert!(out.bytes() < 60_000, "{} bytes", out.bytes());
}

// ---- lab 10 ---------------------------------------------------------------------------------

/// Lab 10's explorable cell, with its parameters (slow_ms 50, p_slow 0.01, seed 42).
fn lab10() -> Explorable {
    let ps: Vec<f64> = (1..=10).map(|i| i as f64 / 200.0).collect();
    let counts = [1, 4, 8, 12, 16, 20, 24, 28, 32];
    let title = "Share of fan-out queries that wait for a slow shard, by shards asked";
    FanOutSweep::explorable_p_slow(title, 50.0, &ps, 0.01, &counts, &Simulation::new(10_000).seed(42)).unwrap()
}

#[test]
fn lab10_formula_is_one_minus_the_chance_all_are_fast() {
    let ex = lab10();
    let out = ex.output().unwrap();
    assert_eq!(spec::rows(&out).len(), 10 * 9 * 2);
    for i in 1..=10 {
        let p = i as f64 / 200.0;
        for n in [1i32, 4, 8, 16, 32] {
            let all_fast: f64 = (0..n).map(|_| 1.0 - p).product();
            let got = spec::value(&out, &[("p_slow", p)], FORMULA, &n.to_string());
            assert!(
                (got - (1.0 - all_fast)).abs() < 1e-12,
                "p {p}, N {n}: chart {got}, multiplied out {}",
                1.0 - all_fast
            );
        }
    }
    // Lab 10's Why, at p = 1%: 1.00% of one-shard queries, 3.94% of four-shard, 14.85% of 16-shard.
    for (n, want) in [("1", "1.00%"), ("4", "3.94%"), ("16", "14.85%")] {
        assert_eq!(pct(spec::value(&out, &[("p_slow", 0.01)], FORMULA, n), 2), want);
    }
    assert_eq!(ex.defaults(), vec![("p_slow", 0.01)]);
}

#[test]
fn lab10_simulation_is_the_crates_and_near_the_formula() {
    let out = lab10().output().unwrap();
    let sim = Simulation::new(10_000).seed(42);
    let series = "simulated, 10,000 queries";
    for i in [1, 2, 7, 10] {
        let p = i as f64 / 200.0;
        let shard = Latency::two_point(0.0, 50.0, p).unwrap();
        for n in [1usize, 4, 16, 32] {
            let run = FanOut::copies(&shard, n).unwrap().simulate(&sim).unwrap();
            check_points(&out, &[(&[("p_slow", p)], series, &n.to_string(), run.share_slower(25.0))]);
        }
    }
    for i in 1..=10 {
        let p = i as f64 / 200.0;
        for n in [1, 4, 8, 12, 16, 20, 24, 28, 32] {
            let q = 1.0 - (1.0 - p).powi(n);
            let sd = (q * (1.0 - q) / 10_000.0).sqrt();
            let got = spec::value(&out, &[("p_slow", p)], series, &n.to_string());
            assert!((got - q).abs() <= 5.0 * sd, "p {p}, N {n}: simulated {got}, formula {q} (σ {sd})");
        }
    }
    assert!(out
        .text()
        .starts_with("Share of fan-out queries that wait for a slow shard, by shards asked · p_slow = 0.01"));
    assert!(out.bytes() < 60_000, "{} bytes", out.bytes());
}

#[test]
fn bad_settings_are_errors() {
    let keys = KeySet::new("k", 100);
    let one = KeyRanges::named(letters("AB")).unwrap();
    let ways = [("in order", Arrival::KeyOrder)];
    let s = GrowthSettings::new(10);
    assert!(RangeGrowth::explorable_splits("t", &keys, &one, &s, &[0, 10], &ways).is_err());
    assert!(RangeGrowth::explorable_splits("t", &keys, &one, &s, &[10], &[]).is_err());
    let many: Vec<u64> = (1..=101).collect();
    assert!(RangeGrowth::explorable_splits("t", &keys, &one, &s, &many, &ways).is_err());
    assert!(
        RangeGrowth::explorable_splits("t", &keys, &one, &GrowthSettings::new(10).balance(0.5), &[10], &ways).is_err()
    );
    // More keys than a run takes (limits::MAX_KEYS, 20,000,000) are refused before any work: 2^64 − 1
    // of them overflowed k · n (a panic).
    let huge = RangeGrowth::explorable_splits("t", &KeySet::plain(usize::MAX), &one, &s, &[10], &ways).unwrap_err();
    assert!(matches!(huge, Error::TooLarge { limit: 20_000_000, .. }), "{huge}");
    // Two arrival orders named alike would be one line: refused, naming the name (it said "point given twice").
    let twice = [("a", Arrival::KeyOrder), ("a", Arrival::Shuffled(1))];
    let err = RangeGrowth::explorable_splits("t", &keys, &one, &s, &[10], &twice).unwrap_err();
    assert!(matches!(&err, Error::NameTaken { what: "arrival order", name, .. } if name == "a"), "{err:?}");
    assert!(!err.to_string().contains("point given twice"), "{err}");
    let sim = Simulation::new(100);
    for (slow, ps, counts) in [
        (0.0, vec![0.01], vec![4]),
        (f64::NAN, vec![0.01], vec![4]),
        (50.0, vec![0.01, -0.1], vec![4]),
        (50.0, vec![0.01, f64::INFINITY], vec![4]),
        (50.0, vec![0.01], vec![0, 4]),
        (50.0, vec![0.01], vec![]),
    ] {
        assert!(
            FanOutSweep::explorable_p_slow("t", slow, &ps, 0.01, &counts, &sim).is_err(),
            "{slow} {ps:?} {counts:?}"
        );
    }
    assert!(FanOutSweep::explorable_p_slow("t", 50.0, &[0.01], 0.01, &[4], &Simulation::new(0)).is_err());
    assert!(FanOutSweep::explorable_p_slow("t", 50.0, &[0.01], 0.01, &[usize::MAX], &sim).is_err());
}
