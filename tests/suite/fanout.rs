//! The tail of a fan-out over copies of one shard against computations
//! written here: the closed form `1 − (1 − p)^N` by repeated multiplication,
//! one shard's empirical quantile, and the simulation within a tolerance
//! derived from the binomial standard deviation. (Shards with their own
//! samples are crate-only, the answer of lab 10's exercise: their tests are
//! src/analysis/fanout_tests.rs.)

use crate::common;
use common::expect_err;
use proptest::prelude::*;
use reshard::analysis::{share_slow, FanOut, FanOutSweep, Latency, Simulation};
use reshard::Error;

/// The binomial standard deviation of a share `s` over `n` trials.
fn sd(s: f64, n: usize) -> f64 {
    (s * (1.0 - s) / n as f64).sqrt()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

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
