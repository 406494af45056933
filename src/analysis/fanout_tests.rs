//! `FanOut` of shards with their own samples (crate-only, see the module
//! documentation) against computations written here: `Π Fᵢ(t)` by counting
//! each shard's samples at or below `t` over a grid, quantiles by a linear
//! scan of every sample value, the distribution of the max by enumerating
//! every combination of one sample per shard. (The public side, copies of
//! one distribution, the closed form and the sweeps: tests/suite/fanout.rs.)

use super::*;
use proptest::prelude::*;

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
fn bad_samples_name_their_shard() {
    let negative = FanOut::from_samples(&[vec![1.0], vec![3.0, -1.0]]).unwrap_err();
    assert_eq!(negative, Error::BadSample { shard: Some(1), index: 1, value: "-1".into() });
    assert!(negative.to_string().contains("of shard 1"), "{negative}");
    let empty = FanOut::from_samples(&[vec![1.0], vec![]]).unwrap_err();
    assert_eq!(empty, Error::NoSamples { shard: Some(1) });
    assert!(empty.to_string().contains("shard 1"), "{empty}");
    let none = FanOut::from_samples::<Vec<f64>>(&[]).unwrap_err();
    assert_eq!(none, Error::NoNodes);
    assert!(FanOut::new(Vec::new()).is_err());
}

#[test]
fn two_distributions_multiply() {
    let a = Latency::two_point(10.0, 200.0, 0.01).unwrap(); // 10 ms, or 200 ms one time in 100
    let b = Latency::two_point(5.0, 50.0, 0.1).unwrap(); // 5 ms, or 50 ms one time in 10
    let both = FanOut::new([a, b]).unwrap();
    // P(max ≤ t) = F_a(t) · F_b(t)
    assert_eq!(both.cdf(10.0), (1.0 - 0.01) * (1.0 - 0.1));
    assert_eq!(both.cdf(50.0), 1.0 - 0.01);
    // the median: the first support value (5, 10, 50, 200) where the product reaches ½;
    // p99: at 10 ms it is 0.891, at 50 ms 0.99
    assert_eq!((both.p50(), both.p99()), (10.0, 50.0));
    // measured samples: the answer is one of them
    let f = FanOut::from_samples(&[vec![1.0, 2.0, 3.0, 4.0], vec![2.0, 9.0]]).unwrap();
    assert_eq!((f.cdf(3.0), f.quantile(0.5).unwrap()), (0.375, 4.0)); // 3/4 · 1/2, then 1 · 1/2 at 4
}

#[test]
fn hostile_samples_are_refused_not_panicked_and_endless_shards_at_once() {
    let odd = [f64::NAN, f64::INFINITY, -0.0, -1.0, 0.0, 1e300, f64::MIN_POSITIVE];
    for &x in &odd {
        for &y in &odd {
            for p in [0.0, 0.5, 1.0, 1.5, f64::NAN] {
                let _ = FanOut::from_samples(&[vec![x, y], vec![y]]).and_then(|f| f.quantile(p));
            }
        }
    }
    let l = Latency::two_point(1.0, 2.0, 0.5).unwrap();
    assert!(matches!(FanOut::new(std::iter::repeat(l)), Err(Error::TooLarge { .. })));
}
