//! Reads of an asynchronously updated index against computations written
//! here: the chance of a miss by averaging the miss rule
//! `φ + lag < period + d` over a fine grid of phases and drain delays, the
//! edge cases by hand, and the simulation within a tolerance derived from
//! the binomial standard deviation.

use crate::common;
use common::expect_err;
use reshard::analysis::{AsyncIndex, Simulation};
use reshard::Error;

/// The share of a `m × m` grid of (phase, delay) midpoints on which a read
/// `lag` after the write misses it: the model's rule, counted.
fn grid(period: f64, jitter: f64, lag: f64, m: usize) -> f64 {
    let mut misses = 0usize;
    let delays = if jitter > 0.0 { m } else { 1 };
    for i in 0..m {
        let phase = (i as f64 + 0.5) / m as f64 * period;
        for j in 0..delays {
            let d = if jitter > 0.0 { (j as f64 + 0.5) / m as f64 * jitter } else { 0.0 };
            misses += usize::from(phase + lag < period + d);
        }
    }
    misses as f64 / (m * delays) as f64
}

#[test]
fn the_exact_chance_is_the_rule_averaged_over_phases_and_delays() {
    let m = 2_000;
    for (period, jitter) in [(100.0, 0.0), (100.0, 30.0), (100.0, 100.0), (40.0, 250.0), (1.0, 0.5)] {
        let index = AsyncIndex::new(period).unwrap().with_jitter(jitter).unwrap();
        for k in 0..=24 {
            let lag = (period + jitter) * 1.2 * f64::from(k) / 24.0;
            let exact = index.miss_probability(lag).unwrap();
            // the midpoint grid errs by at most a cell's share on each axis
            let g = grid(period, jitter, lag, m);
            assert!((exact - g).abs() <= 2.0 / m as f64, "P {period}, J {jitter}, lag {lag}: {exact} against {g}");
        }
    }
}

#[test]
fn edges_of_the_formula() {
    let i = AsyncIndex::new(100.0).unwrap();
    // no jitter: 1 − lag / period, 1 at once, 0 from a period on
    for (lag, p) in [(0.0, 1.0), (1.0, 0.99), (50.0, 0.5), (99.0, 0.01), (100.0, 0.0), (1e15, 0.0)] {
        assert!((i.miss_probability(lag).unwrap() - p).abs() < 1e-15, "lag {lag}");
    }
    let j = i.with_jitter(40.0).unwrap();
    assert_eq!(j.miss_probability(0.0).unwrap(), 1.0);
    assert_eq!(j.miss_probability(140.0).unwrap(), 0.0);
    // lag = period: the read misses iff φ < d, with chance the mean of d / period, J / (2 period)
    assert!((j.miss_probability(100.0).unwrap() - 40.0 / 200.0).abs() < 1e-15);
    // jitter ≤ lag ≤ period: the mean over d of 1 − (lag − d) / period, d's mean J / 2
    assert!((j.miss_probability(60.0).unwrap() - (1.0 - (60.0 - 20.0) / 100.0)).abs() < 1e-15);
    // more jitter never makes a read more likely to see the write
    let mut last = 0.0;
    for jit in [0.0, 10.0, 50.0, 100.0, 400.0] {
        let p = i.with_jitter(jit).unwrap().miss_probability(70.0).unwrap();
        assert!(p >= last, "jitter {jit}");
        last = p;
    }
}

#[test]
fn the_simulation_agrees_within_five_standard_deviations() {
    // misses are binomial(W, p): σ = √(p(1 − p)/W), at most 0.0016 for W = 100,000. Allow 5σ plus one
    // write's share, plus 2/1,000 for the reference's own error (a 1,000 × 1,000 grid): a correct
    // simulator fails a check with probability below 1e-6.
    let writes = 100_000;
    for (period, jitter) in [(100.0, 0.0), (100.0, 50.0), (10.0, 35.0)] {
        let index = AsyncIndex::new(period).unwrap().with_jitter(jitter).unwrap();
        let lags: Vec<f64> = (0..8).map(|k| (period + jitter) * f64::from(k) / 7.0).collect();
        let s = index.sweep(&lags, &Simulation::new(writes).seed(9)).unwrap();
        for r in s.rows() {
            let p = grid(period, jitter, r.lag_ms, 1_000);
            let tolerance = 5.0 * (p * (1.0 - p) / writes as f64).sqrt() + 1.0 / writes as f64 + 2e-3;
            assert!(
                (r.miss_simulated - p).abs() <= tolerance,
                "P {period}, J {jitter}, lag {}: {}",
                r.lag_ms,
                r.miss_simulated
            );
            assert_eq!(r.misses as f64 / r.reads as f64, r.miss_simulated);
            assert!((r.sd() - (r.miss_exact * (1.0 - r.miss_exact) / writes as f64).sqrt()).abs() < 1e-15);
        }
        // lag 0 always misses, and a read after period + jitter never does
        assert_eq!((s.rows()[0].misses, s.rows()[7].misses), (writes as u64, 0));
    }
    let i = AsyncIndex::new(100.0).unwrap();
    let sim = Simulation::new(1_000).seed(4);
    assert_eq!(i.simulate(30.0, &sim).unwrap(), i.simulate(30.0, &sim).unwrap());
}

#[test]
fn bad_times_say_what_to_change() {
    for period in [0.0, -1.0, f64::NAN, f64::INFINITY, 2e15] {
        expect_err(
            "AsyncIndex::new",
            || AsyncIndex::new(period),
            |e| matches!(e, Error::BadNumber { what: "period_ms", .. }),
            "> 0",
        );
    }
    let i = AsyncIndex::new(100.0).unwrap();
    for jitter in [-0.1, f64::NAN, f64::NEG_INFINITY] {
        expect_err(
            "with_jitter",
            || i.with_jitter(jitter),
            |e| matches!(e, Error::BadNumber { what: "jitter_ms", .. }),
            "≥ 0",
        );
    }
    for lag in [-5.0, f64::NAN, f64::INFINITY] {
        expect_err(
            "miss_probability",
            || i.miss_probability(lag),
            |e| matches!(e, Error::BadNumber { what: "lag_ms", .. }),
            "≥ 0",
        );
        expect_err(
            "simulate",
            || i.simulate(lag, &Simulation::new(10)),
            |e| matches!(e, Error::BadNumber { .. }),
            "≥ 0",
        );
    }
    expect_err(
        "simulate(0 writes)",
        || i.simulate(1.0, &Simulation::new(0)),
        |e| matches!(e, Error::OutOfRange { .. }),
        "1 or more",
    );
    expect_err("sweep([])", || i.sweep(&[], &Simulation::new(10)), |e| matches!(e, Error::OutOfRange { .. }), "25.0");
    expect_err(
        "sweep over the limit",
        || i.with_jitter(1.0).unwrap().sweep(&[1.0; 10], &Simulation::new(10_000_000)),
        |e| matches!(e, Error::TooLarge { asked: 200_000_000, .. }),
        "fewer trials",
    );
}

/// A period below a picosecond is refused: at 5e-324 ms (period, jitter
/// and lag alike) the formula's products lost their digits and gave 0, not
/// the ½ that any other scale gives.
#[test]
fn a_period_near_the_smallest_floats_is_refused() {
    for period in [5e-324, 1e-300, 1e-10] {
        expect_err(
            "AsyncIndex::new(tiny)",
            || AsyncIndex::new(period),
            |e| matches!(e, Error::BadNumber { what: "period_ms", .. }),
            "1e-9",
        );
    }
    // the same shape at the smallest period and at 1 ms: a read one period
    // late, with a period of jitter, misses half the time
    for p in [reshard::analysis::stale_reads::MIN_PERIOD_MS, 1.0] {
        let i = AsyncIndex::new(p).unwrap().with_jitter(p).unwrap();
        assert_eq!(i.miss_probability(p).unwrap(), 0.5, "period {p}");
    }
}

/// A sweep's lags are runs, each seeding a generator: forty million lags
/// of one trial each passed the draw limit (forty million draws) and ran
/// for minutes. Each run now counts at least 624 draws.
#[test]
fn many_runs_of_few_trials_count_their_seeding() {
    let i = AsyncIndex::new(100.0).unwrap();
    let lags = vec![10.0; 100_000];
    let t0 = std::time::Instant::now();
    expect_err(
        "sweep of 100,000 one-trial runs",
        || i.sweep(&lags, &Simulation::new(1)),
        |e| matches!(e, Error::TooLarge { asked: 62_400_000, .. }),
        "at least 624",
    );
    assert!(t0.elapsed().as_secs_f64() < 1.0);
    assert_eq!(i.sweep(&lags[..1_000], &Simulation::new(1)).unwrap().rows().len(), 1_000);
    let shard = reshard::analysis::Latency::two_point(10.0, 200.0, 0.01).unwrap();
    let counts = vec![1; 100_000];
    expect_err(
        "fan-out sweep of 100,000 one-trial runs",
        || reshard::analysis::FanOutSweep::run(&shard, &counts, 10.0, &Simulation::new(1)),
        |e| matches!(e, Error::TooLarge { asked: 62_400_000, .. }),
        "at least 624",
    );
}
