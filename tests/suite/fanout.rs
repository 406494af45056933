//! The tail of a fan-out against computations written here: `Π Fᵢ(t)` by
//! counting each shard's samples at or below `t` over a grid, quantiles by
//! a linear scan of every sample value, the distribution of the max by
//! enumerating every combination of one sample per shard, the closed form
//! `1 − (1 − p)^N` by repeated multiplication, and the simulation within a
//! tolerance derived from the binomial standard deviation.

use crate::common;
use common::expect_err;
use proptest::prelude::*;
use reshard::analysis::{share_slow, FanOut, FanOutSweep, Latency, Simulation};
use reshard::Error;

/// `Π over shards of (samples ≤ t) / n`, in shard order.
fn product_at(shards: &[Vec<f64>], t: f64) -> f64 {
    let mut p = 1.0;
    for s in shards {
        p *= s.iter().filter(|&&x| x <= t).count() as f64 / s.len() as f64;
    }
    p
}

/// The smallest sample value with `product_at ≥ q`, by a linear scan.
fn scan(shards: &[Vec<f64>], q: f64) -> f64 {
    let mut all: Vec<f64> = shards.concat();
    all.sort_by(f64::total_cmp);
    *all.iter().find(|&&t| product_at(shards, t) >= q).unwrap()
}

fn shards() -> impl Strategy<Value = Vec<Vec<f64>>> {
    let sample = prop_oneof![3 => (0u32..30).prop_map(f64::from), 1 => 0.0f64..500.0];
    prop::collection::vec(prop::collection::vec(sample, 1..15), 1..6)
}

/// The binomial standard deviation of a share `s` over `n` trials.
fn sd(s: f64, n: usize) -> f64 {
    (s * (1.0 - s) / n as f64).sqrt()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_cdf_is_the_product_over_a_grid(s in shards()) {
        let f = FanOut::from_samples(&s).unwrap();
        let mut grid: Vec<f64> = s.concat();
        grid.extend(s.concat().iter().flat_map(|&x| [x - 0.5, x + 1e-9, x + 0.5]));
        grid.extend([-1.0, 0.0, 1e9]);
        for t in grid {
            prop_assert_eq!(f.cdf(t), product_at(&s, t), "t = {}", t);
            prop_assert_eq!(f.share_slower(t), 1.0 - product_at(&s, t));
        }
    }

    #[test]
    fn quantiles_are_the_smallest_sample_with_the_product_at_or_above_q(s in shards(), k in 1u32..=1000) {
        let f = FanOut::from_samples(&s).unwrap();
        for q in [f64::from(k) / 1000.0, 0.5, 0.99, 1.0] {
            let got = f.quantile(q).unwrap();
            prop_assert_eq!(got, scan(&s, q), "q = {}", q);
            prop_assert!(s.iter().flatten().any(|&x| x == got), "{} is not a sample", got);
        }
        prop_assert_eq!(f.quantile(1.0).unwrap(), s.iter().flatten().fold(0.0, |a: f64, &b| a.max(b)));
    }

    #[test]
    fn one_shard_is_the_lower_empirical_quantile(s in prop::collection::vec(0.0f64..100.0, 1..50), k in 1u32..1000) {
        // x_⌈q·n⌉ of the sorted samples, for q·n away from an integer
        let q = f64::from(k) / 1000.0;
        let n = s.len() as f64;
        prop_assume!(((q * n) - (q * n).round()).abs() > 1e-6);
        let mut sorted = s.clone();
        sorted.sort_by(f64::total_cmp);
        let l = Latency::from_samples(&s).unwrap();
        prop_assert_eq!(l.quantile(q).unwrap(), sorted[(q * n).ceil() as usize - 1]);
    }
}

#[test]
fn the_distribution_of_the_max_by_enumerating_every_combination() {
    // every choice of one sample per shard is equally likely; count the
    // choices whose max is ≤ t
    let cases: [&[&[f64]]; 4] = [
        &[&[1.0, 5.0, 3.0], &[2.0, 4.0]],
        &[&[1.0, 1.0, 9.0], &[2.0], &[3.0, 8.0, 8.0]],
        &[&[10.0, 200.0, 10.0, 10.0], &[10.0, 10.0, 10.0, 200.0], &[10.0, 10.0, 10.0, 10.0]],
        &[&[0.0, 7.0], &[7.0, 0.0], &[3.0, 3.0], &[1.0, 6.0, 2.0]],
    ];
    for shards in cases {
        let s: Vec<Vec<f64>> = shards.iter().map(|x| x.to_vec()).collect();
        let mut combos: Vec<Vec<usize>> = vec![vec![]];
        for sh in &s {
            combos =
                combos.into_iter().flat_map(|c| (0..sh.len()).map(move |i| [c.clone(), vec![i]].concat())).collect();
        }
        let maxima: Vec<f64> =
            combos.iter().map(|c| c.iter().zip(&s).map(|(&i, sh)| sh[i]).fold(0.0, f64::max)).collect();
        let f = FanOut::from_samples(&s).unwrap();
        let mut values: Vec<f64> = s.concat();
        values.sort_by(f64::total_cmp);
        values.dedup();
        for &t in &values {
            let share = maxima.iter().filter(|&&m| m <= t).count() as f64 / maxima.len() as f64;
            assert!((f.cdf(t) - share).abs() < 1e-12, "{s:?} at {t}: {} against {share}", f.cdf(t));
        }
        // quantiles at levels no count of combinations lands on
        for q in [0.1, 0.33, 0.5, 0.77, 0.9, 0.999] {
            let total = maxima.len() as f64;
            if (0..=maxima.len()).any(|c| (c as f64 / total - q).abs() < 1e-9) {
                continue;
            }
            let want = values.iter().copied().find(|&t| maxima.iter().filter(|&&m| m <= t).count() as f64 / total >= q);
            assert_eq!(Some(f.quantile(q).unwrap()), want, "{s:?}, q = {q}");
        }
    }
}

#[test]
fn two_point_shards_closed_form_product_and_simulation_agree() {
    let queries = 100_000;
    for p in [0.001, 0.01, 0.05] {
        let shard = Latency::two_point(10.0, 200.0, p).unwrap();
        for n in [1usize, 2, 4, 16, 64] {
            let closed = share_slow(p, n as u64).unwrap();
            // (1 − p)^N by repeated multiplication
            let mut fast = 1.0;
            for _ in 0..n {
                fast *= 1.0 - p;
            }
            assert!((closed - (1.0 - fast)).abs() < 1e-12, "p = {p}, N = {n}");
            let f = FanOut::copies(&shard, n).unwrap();
            assert_eq!(f.share_slower(10.0), 1.0 - fast);
            assert_eq!((f.share_slower(9.0), f.share_slower(200.0)), (1.0, 0.0));
            // the simulated share is binomial(Q, s) / Q: σ = √(s(1 − s)/Q), about 0.0011 at s = 0.15
            // and Q = 100,000. Allow 5σ (+ 1/Q for the grid of shares): a correct simulator fails with
            // probability below 1e-6 per check.
            let run = f.simulate(&Simulation::new(queries).seed(n as u64)).unwrap();
            let tolerance = 5.0 * sd(closed, queries) + 1.0 / queries as f64;
            assert!(
                (run.share_slower(10.0) - closed).abs() <= tolerance,
                "p = {p}, N = {n}: simulated {} against {closed} ± {tolerance}",
                run.share_slower(10.0)
            );
            // the simulated quantiles are simulated latencies: fast or slow
            assert!([10.0, 200.0].contains(&run.p99()) && [10.0, 200.0].contains(&run.p50()));
            // the formula's p99 is slow once (1 − p)^N < 0.99
            assert_eq!(f.p99(), if fast >= 0.99 { 10.0 } else { 200.0 }, "p = {p}, N = {n}");
        }
    }
}

#[test]
fn simulated_samples_agree_with_the_product_and_repeat_for_a_seed() {
    let a: Vec<f64> = (0..200).map(|i| f64::from((i * 37) % 101)).collect();
    let b: Vec<f64> = (0..50).map(|i| f64::from(i * 3)).collect();
    let f = FanOut::from_samples(&[a.clone(), b.clone(), a.clone()]).unwrap();
    let sim = Simulation::new(50_000).seed(11);
    let run = f.simulate(&sim).unwrap();
    for t in [20.0, 60.0, 95.0, 140.0] {
        let s = product_at(&[a.clone(), b.clone(), a.clone()], t);
        let tolerance = 5.0 * sd(s, 50_000) + 1.0 / 50_000.0;
        assert!((run.cdf(t) - s).abs() <= tolerance, "t = {t}: {} against {s}", run.cdf(t));
    }
    assert_eq!(run, f.simulate(&sim).unwrap());
    assert_ne!(run.latencies(), f.simulate(&sim.seed(12)).unwrap().latencies());
    let all: Vec<f64> = [a, b].concat();
    assert!(all.contains(&run.p99()) && all.contains(&run.p50()));
}

#[test]
fn a_sweep_sets_formula_beside_simulation() {
    let shard = Latency::two_point(10.0, 200.0, 0.01).unwrap();
    let sweep = FanOutSweep::run(&shard, &[1, 4, 16], 10.0, &Simulation::new(20_000).seed(5)).unwrap();
    let rows = sweep.rows();
    assert_eq!(rows.iter().map(|r| r.shards).collect::<Vec<_>>(), [1, 4, 16]);
    for r in rows {
        let fast = 0.99f64.powi(r.shards as i32);
        assert!((r.share_slower - (1.0 - fast)).abs() < 1e-12);
        assert!((r.share_closed_form.unwrap() - (1.0 - fast)).abs() < 1e-12);
        assert!((r.share_simulated - r.share_slower).abs() <= 5.0 * sd(r.share_slower, 20_000) + 5e-5);
        assert_eq!((r.p50, r.p99), (10.0, if r.shards == 1 { 10.0 } else { 200.0 }));
    }
    // above the slow time nothing is slower, and there is no closed form
    let above = FanOutSweep::run(&shard, &[4], 250.0, &Simulation::new(100)).unwrap();
    assert_eq!((above.rows()[0].share_slower, above.rows()[0].share_closed_form), (0.0, None));
    let measured = Latency::from_samples(&[1.0, 2.0, 3.0]).unwrap();
    let m = FanOutSweep::run(&measured, &[2], 2.0, &Simulation::new(100)).unwrap();
    assert_eq!((m.rows()[0].share_slower, m.rows()[0].share_closed_form), (1.0 - 4.0 / 9.0, None));
}

#[test]
fn a_shard_slower_than_the_rest_sets_the_tail() {
    let fast: Vec<f64> = (1..=100).map(f64::from).collect();
    let slow: Vec<f64> = (1..=10).map(|i| 1000.0 + f64::from(i)).collect();
    let f = FanOut::from_samples(&[fast.clone(), fast.clone(), slow.clone()]).unwrap();
    let alone = Latency::from_samples(&slow).unwrap();
    for q in [0.1, 0.5, 0.9, 1.0] {
        assert_eq!(f.quantile(q).unwrap(), alone.quantile(q).unwrap(), "q = {q}");
    }
    assert_eq!(f.cdf(999.0), 0.0);
}

#[test]
fn bad_latencies_say_what_to_change() {
    expect_err(
        "from_samples([])",
        || Latency::from_samples(&[]),
        |e| *e == Error::NoSamples { shard: None },
        "at least 1",
    );
    expect_err(
        "from_samples with NaN",
        || Latency::from_samples(&[1.0, 2.0, f64::NAN]),
        |e| *e == Error::BadSample { shard: None, index: 2, value: "NaN".into() },
        "finite number of milliseconds",
    );
    expect_err(
        "FanOut::from_samples with a negative sample in shard 1",
        || FanOut::from_samples(&[vec![1.0], vec![3.0, -1.0]]),
        |e| *e == Error::BadSample { shard: Some(1), index: 1, value: "-1".into() },
        "of shard 1",
    );
    expect_err(
        "FanOut::from_samples with an empty shard",
        || FanOut::from_samples(&[vec![1.0], vec![]]),
        |e| *e == Error::NoSamples { shard: Some(1) },
        "shard 1",
    );
    expect_err("FanOut of no shards", || FanOut::from_samples::<Vec<f64>>(&[]), |e| *e == Error::NoNodes, "at least 1");
    expect_err(
        "copies(.., 0)",
        || FanOut::copies(&Latency::two_point(1.0, 2.0, 0.5).unwrap(), 0),
        |e| *e == Error::NoNodes,
        "node",
    );
    for (fast, slow, p) in
        [(f64::NAN, 1.0, 0.1), (1.0, f64::INFINITY, 0.1), (-1.0, 1.0, 0.1), (5.0, 1.0, 0.1), (1.0, 2.0, 1.5)]
    {
        expect_err(
            "two_point",
            || Latency::two_point(fast, slow, p),
            |e| matches!(e, Error::BadNumber { .. }),
            "is not",
        );
    }
    let l = Latency::two_point(1.0, 2.0, 0.5).unwrap();
    for q in [0.0, -0.5, 1.0000001, f64::NAN] {
        expect_err(
            "quantile",
            || l.quantile(q),
            |e| matches!(e, Error::BadNumber { what: "quantile q =", .. }),
            "0.99",
        );
    }
    expect_err(
        "share_slow(1.5, 3)",
        || share_slow(1.5, 3),
        |e| matches!(e, Error::BadNumber { what: "p", .. }),
        "0.01",
    );
    assert_eq!(
        (share_slow(0.5, 0).unwrap(), share_slow(1.0, 3).unwrap(), share_slow(0.0, u64::MAX).unwrap()),
        (0.0, 1.0, 0.0)
    );
    let f = FanOut::copies(&l, 1000).unwrap();
    expect_err(
        "simulate(0)",
        || f.simulate(&Simulation::new(0)),
        |e| matches!(e, Error::OutOfRange { .. }),
        "1 or more",
    );
    expect_err(
        "simulate(queries × shards over the limit)",
        || f.simulate(&Simulation::new(1_000_000)),
        |e| matches!(e, Error::TooLarge { asked: 1_000_000_000, .. }),
        "fewer trials",
    );
    expect_err(
        "sweep of []",
        || FanOutSweep::run(&l, &[], 1.0, &Simulation::new(10)),
        |e| matches!(e, Error::OutOfRange { .. }),
        "[1, 4, 16]",
    );
    expect_err(
        "sweep with N = 0",
        || FanOutSweep::run(&l, &[0], 1.0, &Simulation::new(10)),
        |e| *e == Error::NoNodes,
        "node",
    );
    expect_err(
        "sweep slower than NaN",
        || FanOutSweep::run(&l, &[1], f64::NAN, &Simulation::new(10)),
        |e| matches!(e, Error::BadNumber { what: "slower_than_ms", .. }),
        "milliseconds",
    );
}
