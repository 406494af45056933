//! Benchmark: the range-split simulation on 1,000,000 keys, median of a few
//! runs, for key ranges and hash ranges, keys in order and shuffled, with
//! and without TinyKV's balancer.
//!
//! ```text
//! cargo run --release --example range_growth_bench
//! cargo run --release --example range_growth_bench -- --runs 7 --keys 2000000
//! ```

use reshard::analysis::{Arrival, GrowthSettings, RangeGrowth, RangeLayout};
use reshard::prelude::*;
use std::time::{Duration, Instant};

fn median_of(runs: usize, mut f: impl FnMut() -> RangeGrowth) -> (Duration, RangeGrowth) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        last = Some(f());
        times.push(t.elapsed());
    }
    times.sort();
    (times[times.len() / 2], last.expect("at least one run"))
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (runs, n) = (arg("--runs", 5).max(1), arg("--keys", 1_000_000));
    let keys = KeySet::plain(n);
    let nodes = letters("ABCDEFGHIJ");
    let layouts: [(&str, RangeLayout); 2] = [
        ("key ranges", KeyRanges::named(nodes.clone())?.into()),
        ("hash ranges (32-bit)", HashRanges::named(nodes)?.into()),
    ];
    println!("{keys}, 10 nodes, one range to start, threshold 1,000 rows; median of {runs} runs");
    for (name, layout) in &layouts {
        for (order, arrival) in [("key order", Arrival::KeyOrder), ("shuffled", Arrival::Shuffled(42))] {
            for balance in [None, Some(2.0)] {
                let mut s = GrowthSettings::new(1_000).arrival(arrival);
                if let Some(f) = balance {
                    s = s.balance(f);
                }
                let (t, g) = median_of(runs, || RangeGrowth::run(&keys, layout, &s).expect("a valid run"));
                println!(
                    "{name:22} {order:10} balance {:5}: {:>7.1} ms  ({} splits, {} moves, busiest/mean rows {:.3})",
                    balance.map_or("off".to_string(), |f| f.to_string()),
                    t.as_secs_f64() * 1e3,
                    g.splits().len(),
                    g.moves().len(),
                    g.max_over_mean_rows()
                );
            }
        }
    }
    Ok(())
}
