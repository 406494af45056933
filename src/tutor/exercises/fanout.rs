//! Exercise (secondary indexes): the tail of a query that asks every shard.
//!
//! A query through a local index asks every node and waits for the
//! slowest, so its latency is the max over the nodes. Given each node's
//! latency samples (milliseconds, in any order), the learner writes
//! `fn fanout_quantile(shards: &[Vec<f64>], q: f64) -> f64`: the smallest
//! `t` with `Π over the nodes of Fᵢ(t) ≥ q`, where `Fᵢ(t)` is the share of
//! node `i`'s samples at or below `t` — the `q`-quantile of the max when the
//! nodes are independent, with no interpolation (for one node, the plain
//! empirical quantile). Which values of `t` need trying is the learner's to
//! find. Where a product lands exactly on `q` the cases use shares that are
//! exact in floating point (halves, quarters), so the order of the product
//! does not matter.
//!
//! [`fanout_quantile`] runs it beside the crate's answer (a fan-out of
//! shards with their own samples, which the crate keeps to itself: nothing
//! public computes it) on the edge cases first (one shard, one sample per
//! shard, ties, `q` = 0.5 / 0.99 / 1.0, a product exactly on `q`, 16 shards
//! each slow one time in a hundred, a slow shard whose samples all exceed
//! the others', shards of different sizes), then thousands of random cases.
//! The answer is always a sample value, so answers are compared exactly. A
//! wrong answer that the check recognises — the largest of the nodes' own
//! quantiles, the quantile of all samples pooled, a value between samples —
//! is named in the report.
//!
//! ```
//! use reshard::tutor::exercises;
//! fn fanout_quantile(shards: &[Vec<f64>], q: f64) -> f64 {
//!     let mut candidates: Vec<f64> = shards.concat(); // Π Fᵢ only steps up at a sample
//!     candidates.sort_by(f64::total_cmp);
//!     for t in candidates {
//!         let share = |s: &Vec<f64>| s.iter().filter(|&&x| x <= t).count() as f64 / s.len() as f64;
//!         if shards.iter().map(share).product::<f64>() >= q {
//!             return t;
//!         }
//!     }
//!     f64::NAN // not reached: at the largest sample every share is 1
//! }
//! let report = exercises::fanout_quantile(fanout_quantile);
//! assert!(report.passed(), "{report}");
//! ```

use super::Report;
use crate::analysis::FanOut;
use crate::PyRandom;

/// How many random cases follow the edge cases.
pub const RANDOM_CASES: usize = 3_000;

/// One input: what it tests, the shards' samples, the level.
struct Case {
    label: &'static str,
    shards: Vec<Vec<f64>>,
    q: f64,
}

fn case(label: &'static str, shards: &[&[f64]], q: f64) -> Case {
    Case { label, shards: shards.iter().map(|s| s.to_vec()).collect(), q }
}

/// `n` samples: `fast` but one in a hundred `slow`.
fn one_in_a_hundred(n: usize, fast: f64, slow: f64) -> Vec<f64> {
    (0..n).map(|i| if i % 100 == 37 { slow } else { fast }).collect()
}

/// The edge cases, in the order they are tried.
fn edge_cases() -> Vec<Case> {
    let mixed: &[f64] = &[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
    let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
    let mut cases = vec![
        case("one node: the plain empirical quantile", &[mixed], 0.5),
        case("one node: the plain empirical quantile", &[mixed], 0.99),
        case("one node, q = 1.0: its largest sample", &[mixed], 1.0),
        case("one node of 100 samples, q = 0.99: the 99th smallest", &[&hundred], 0.99),
        case("ties within one node", &[&[2.0, 2.0, 2.0, 7.0]], 0.5),
        case("one sample per node: the largest of them", &[&[5.0], &[3.0], &[8.0]], 0.5),
        case("one sample per node: the largest of them", &[&[5.0], &[3.0], &[8.0]], 0.99),
    ];
    let slow_ones: Vec<Vec<f64>> = (0..16).map(|_| one_in_a_hundred(100, 10.0, 200.0)).collect();
    for q in [0.99, 0.5] {
        cases.push(Case {
            label: "16 nodes, each slow in 1 sample of 100: the p99 of the max is not the max of the p99s",
            shards: slow_ones.clone(),
            q,
        });
    }
    cases.extend([
        case(
            "two alike nodes, q = 0.5: the median of the max is not the nodes' median",
            &[&[1.0, 2.0], &[1.0, 2.0]],
            0.5,
        ),
        case("a product exactly on q (≥, not >)", &[&[1.0, 2.0], &[1.0, 2.0]], 0.25),
        case("a share exactly on q (≥, not >)", &[&[1.0, 2.0, 3.0, 4.0]], 0.75),
        case("ties across nodes", &[&[1.0, 2.0, 2.0, 3.0], &[2.0, 2.0, 4.0, 4.0]], 0.5),
        case("ties across nodes", &[&[1.0, 2.0, 2.0, 3.0], &[2.0, 2.0, 4.0, 4.0]], 0.99),
        case("ties across nodes, q = 1.0", &[&[1.0, 2.0, 2.0, 3.0], &[2.0, 2.0, 4.0, 4.0]], 1.0),
    ]);
    let slow: &[f64] = &[100.0, 120.0, 150.0, 170.0];
    for q in [0.5, 0.99, 1.0] {
        cases.push(case(
            "a slow node whose samples all exceed the others'",
            &[&[1.0, 2.0, 3.0, 4.0], &[2.0, 3.0, 5.0], slow],
            q,
        ));
    }
    let ten: Vec<f64> = (1..=10).map(f64::from).collect();
    cases.extend([
        case("nodes of different sample counts", &[&[1.0, 2.0], &ten], 0.5),
        case("nodes of different sample counts", &[&[1.0, 2.0], &ten], 0.99),
        case("nodes of different sample counts", &[&[10.0], &[1.0, 2.0, 3.0, 4.0]], 0.5),
        case("samples in any order", &[&[9.0, 1.0, 5.0], &[3.0, 7.0, 2.0]], 0.5),
        case("samples of 0 ms", &[&[0.0, 0.0, 1.0], &[0.0, 2.0]], 0.5),
        case("fractional milliseconds", &[&[0.25, 12.5, 3.75], &[1.5, 0.125]], 0.9),
    ]);
    let big: Vec<Vec<f64>> = (0..16).map(|s| (0..100).map(|i| f64::from((i * 37 + s * 11) % 101)).collect()).collect();
    cases.push(Case { label: "16 nodes of 100 samples", shards: big, q: 0.99 });
    cases
}

/// True when at some sample value the product of shares lies within 1e-9
/// of `q` while it could round differently in another order: shares whose
/// denominators are not all powers of two, and a product short of 1.
fn near_tie(shards: &[Vec<f64>], q: f64) -> bool {
    if shards.iter().all(|s| s.len().is_power_of_two()) {
        return false;
    }
    shards.iter().flatten().any(|&t| {
        let p: f64 = shards.iter().map(|s| s.iter().filter(|&&x| x <= t).count() as f64 / s.len() as f64).product();
        p < 1.0 && (p - q).abs() < 1e-9
    })
}

/// Random shards: 1 to 6 of 1 to 12 samples (now and then 40), over few
/// values so that ties are common, with a level from 0.5, 0.9, 0.99, 1.0
/// or a random thousandth; a case on a near tie ([`near_tie`]) is drawn
/// again.
fn random_cases() -> Vec<Case> {
    let mut rng = PyRandom::new(2026);
    let mut below = |n: u32| rng.randbelow(n).unwrap_or(0);
    let mut cases = Vec::with_capacity(RANDOM_CASES);
    while cases.len() < RANDOM_CASES {
        let n = 1 + below(6) as usize;
        let fractional = below(4) == 0;
        let shards: Vec<Vec<f64>> = (0..n)
            .map(|_| {
                let len = if below(10) == 0 { 40 } else { 1 + below(12) as usize };
                let spread = 2 + below(20);
                (0..len)
                    .map(|_| {
                        let x = f64::from(below(spread));
                        if fractional {
                            x + f64::from(below(4)) * 0.25
                        } else {
                            x
                        }
                    })
                    .collect()
            })
            .collect();
        let q = match below(5) {
            0 => 0.5,
            1 => 0.9,
            2 => 0.99,
            3 => 1.0,
            _ => f64::from(1 + below(1000)) / 1000.0,
        };
        if !near_tie(&shards, q) {
            cases.push(Case { label: "random nodes", shards, q });
        }
    }
    cases
}

fn list(s: &[f64]) -> String {
    format!("[{}]", s.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "))
}

/// An input as the report names it: `shards [[1, 2], [1, 2]], q = 0.5
/// (two alike shards, …)`, or a summary when long.
fn describe(c: &Case) -> String {
    let total: usize = c.shards.iter().map(Vec::len).sum();
    let shards = if total <= 24 {
        format!("nodes [{}]", c.shards.iter().map(|s| list(s)).collect::<Vec<_>>().join(", "))
    } else {
        let all = c.shards.iter().flatten();
        let (lo, hi) = all.clone().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        let sizes: Vec<String> = c.shards.iter().map(|s| s.len().to_string()).collect();
        format!("{} nodes of {} samples ({lo} to {hi} ms)", c.shards.len(), sizes.join("/"))
    };
    format!("{shards}, q = {} ({})", c.q, c.label)
}

/// The answer: the crate's fan-out of the case's shards (crate-only).
fn reference(c: &Case) -> f64 {
    FanOut::from_samples(&c.shards).and_then(|f| f.quantile(c.q)).unwrap_or(f64::NAN)
}

/// One shard's `q`-quantile: its smallest sample with at least a share `q` at or below it.
fn own_quantile(s: &[f64], q: f64) -> f64 {
    let mut sorted = s.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    sorted.iter().copied().find(|&t| sorted.iter().filter(|&&x| x <= t).count() as f64 / n >= q).unwrap_or(f64::NAN)
}

/// What a wrong answer `yours` to case `c` looks like it came from, if the check knows.
fn hint(c: &Case, yours: f64) -> Option<String> {
    let largest = c.shards.iter().map(|s| own_quantile(s, c.q)).fold(f64::NEG_INFINITY, f64::max);
    let pooled = own_quantile(&c.shards.concat(), c.q);
    if yours == largest && c.shards.len() > 1 {
        Some(format!(
            "that is the largest of the nodes' own {}-quantiles: the query waits for every node at once, so it is \
             fast only when all of them are (multiply their shares)",
            c.q
        ))
    } else if yours == pooled && c.shards.len() > 1 {
        Some(format!(
            "that is the {}-quantile of all samples pooled, as if one node answered each query: here every query \
             asks all of them",
            c.q
        ))
    } else if yours.is_finite() && !c.shards.iter().flatten().any(|&x| x == yours) {
        Some(
            "that is no sample's value: the product of the shares only changes at a sample, so the answer is one"
                .into(),
        )
    } else {
        None
    }
}

/// Check the learner's `fanout_quantile` against the crate's on the edge
/// cases, then on [`RANDOM_CASES`] random ones. A panic in `yours` is
/// reported as the difference (see [`Report::compare`]); a wrong answer the
/// check recognises is named ([`Difference::hint`](super::Difference::hint)).
pub fn fanout_quantile<F: Fn(&[Vec<f64>], f64) -> f64>(yours: F) -> Report {
    let cases: Vec<Case> = edge_cases().into_iter().chain(random_cases()).collect();
    let expected = cases.iter().map(|c| (describe(c), reference(c)));
    let mut answers = Vec::new();
    let report = Report::compare("fanout_quantile, the fan-out's quantile", expected, |i| {
        let a = yours(&cases[i].shards, cases[i].q);
        answers.push(a);
        a
    });
    report.with_hint(|i| answers.get(i).and_then(|&a| hint(&cases[i], a)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, by brute force: every sample value, in order.
    fn definition(shards: &[Vec<f64>], q: f64) -> f64 {
        let mut all: Vec<f64> = shards.concat();
        all.sort_by(f64::total_cmp);
        let share = |s: &Vec<f64>, t: f64| s.iter().filter(|&&x| x <= t).count() as f64 / s.len() as f64;
        all.into_iter().find(|&t| shards.iter().map(|s| share(s, t)).product::<f64>() >= q).unwrap_or(f64::NAN)
    }

    /// The `q`-quantile of one shard's samples, the same convention.
    fn one(s: &[f64], q: f64) -> f64 {
        definition(&[s.to_vec()], q)
    }

    #[test]
    fn the_definition_passes_on_every_input() {
        let r = fanout_quantile(definition);
        assert!(r.passed(), "{r}");
        assert_eq!(r.inputs(), edge_cases().len() + RANDOM_CASES);
    }

    #[test]
    fn edge_cases_have_the_answers_worked_out_by_hand() {
        let want = [3.0, 9.0, 9.0, 99.0, 2.0, 8.0, 8.0, 200.0, 10.0, 2.0, 1.0, 3.0, 3.0, 4.0, 4.0, 120.0, 170.0];
        for (c, w) in edge_cases().iter().zip(want) {
            assert_eq!(reference(c), w, "{}", describe(c));
        }
    }

    #[test]
    fn the_max_of_the_shards_quantiles_fails_where_p99_of_the_max_differs() {
        let r = fanout_quantile(|shards, q| shards.iter().map(|s| one(s, q)).fold(f64::NEG_INFINITY, f64::max));
        let d = r.difference().expect("the max of the p99s must be caught");
        assert!(d.input.contains("the p99 of the max is not the max of the p99s"), "{}", d.input);
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("10.0", "200.0"));
        assert!(r.to_string().contains("16 nodes of 100/100/"), "{r}");
    }

    #[test]
    fn the_mean_of_the_shards_quantiles_fails_at_one_sample_per_shard() {
        let r = fanout_quantile(|shards, q| shards.iter().map(|s| one(s, q)).sum::<f64>() / shards.len() as f64);
        let d = r.difference().expect("the mean of the quantiles must be caught");
        assert_eq!(d.input, "nodes [[5], [3], [8]], q = 0.5 (one sample per node: the largest of them)");
        assert_eq!(d.expected, "8.0");
    }

    #[test]
    fn a_strict_inequality_fails_on_a_share_exactly_on_q() {
        let r = fanout_quantile(|shards, q| {
            let mut all: Vec<f64> = shards.concat();
            all.sort_by(f64::total_cmp);
            let share = |s: &Vec<f64>, t: f64| s.iter().filter(|&&x| x <= t).count() as f64 / s.len() as f64;
            all.into_iter().find(|&t| shards.iter().map(|s| share(s, t)).product::<f64>() > q).unwrap_or(f64::NAN)
        });
        let d = r.difference().expect("> instead of ≥ must be caught");
        assert!(d.input.contains("one node: the plain empirical quantile"), "{}", d.input);
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("4.0", "3.0"));
    }

    #[test]
    fn interpolating_between_samples_fails_on_one_shard() {
        // numpy's default: linear interpolation between order statistics
        let r = fanout_quantile(|shards, q| {
            let mut s = shards[0].clone();
            s.sort_by(f64::total_cmp);
            let h = q * (s.len() - 1) as f64;
            let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
            s[lo] + (h - lo as f64) * (s[hi] - s[lo])
        });
        assert!(r.difference().unwrap().input.contains("one node"), "{r}");
    }

    #[test]
    fn the_order_of_the_product_does_not_matter() {
        // shards in reverse order, and the product as one fraction of integers
        let reverse = fanout_quantile(|shards, q| {
            let rev: Vec<Vec<f64>> = shards.iter().rev().cloned().collect();
            definition(&rev, q)
        });
        assert!(reverse.passed(), "{reverse}");
        let fraction = fanout_quantile(|shards, q| {
            let mut all: Vec<f64> = shards.concat();
            all.sort_by(f64::total_cmp);
            let at = |t: f64| -> f64 {
                let (num, den) = shards.iter().fold((1u128, 1u128), |(a, b), s| {
                    (a * s.iter().filter(|&&x| x <= t).count() as u128, b * s.len() as u128)
                });
                num as f64 / den as f64
            };
            all.into_iter().find(|&t| at(t) >= q).unwrap_or(f64::NAN)
        });
        assert!(fraction.passed(), "{fraction}");
    }

    #[test]
    fn the_common_wrong_answers_are_named() {
        let largest = fanout_quantile(|shards, q| shards.iter().map(|s| one(s, q)).fold(f64::NEG_INFINITY, f64::max));
        let flat = |r: &Report| r.to_string().split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat(&largest).contains("the largest of the nodes' own 0.99-quantiles"), "{largest}");
        let pooled = fanout_quantile(|shards, q| one(&shards.concat(), q));
        assert!(flat(&pooled).contains("all samples pooled"), "{pooled}");
        let between = fanout_quantile(|shards, q| definition(shards, q) + 0.5);
        assert!(flat(&between).contains("no sample's value"), "{between}");
    }

    #[test]
    fn the_crate_offers_no_public_fan_out_of_different_shards() {
        // FanOut::new and FanOut::from_samples are pub(crate): a learner's cell cannot call the
        // reference. What is public (copies of one distribution) answers only alike shards.
        let alike = fanout_quantile(|shards, q| {
            let one = crate::analysis::Latency::from_samples(&shards[0]).unwrap();
            crate::analysis::FanOut::copies(&one, shards.len()).unwrap().quantile(q).unwrap()
        });
        assert!(!alike.passed(), "{alike}");
    }

    #[test]
    fn a_panic_is_a_difference_not_a_crash() {
        let r = fanout_quantile(|shards, _| shards[7][0]);
        assert!(r.to_string().contains("panicked"), "{r}");
    }

    #[test]
    fn random_cases_are_valid_and_avoid_near_ties() {
        for c in random_cases() {
            assert!(!c.shards.is_empty() && c.shards.iter().all(|s| !s.is_empty()), "{}", describe(&c));
            assert!(c.q > 0.0 && c.q <= 1.0);
            assert!(!near_tie(&c.shards, c.q));
        }
    }
}
