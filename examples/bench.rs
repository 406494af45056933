//! Benchmark: how long each document's figures take, beside the floor (one
//! bare md5 pass over the same keys), and the streaming `hash % N` count on
//! 100,000,000 keys with its peak memory.
//!
//! ```text
//! cargo run --release --example bench            # everything
//! cargo run --release --example bench -- --quick # skip the 100M-key run
//! cargo run --release --example bench -- --runs 11
//! cargo run --release --example bench -- --python-doc ../shared/seeds/000_5c3491369a660ef0.txt
//! ```
//!
//! With `--python-doc PATH` (document `000`'s text), the document's own
//! Python code is extracted by `scripts/doc_python.py` and run once in a
//! `python3` process in the same run, and its wall time is set beside
//! document `000`'s median here: the speed-up.

use reshard::analysis::modulo::count_moved_streaming;
#[allow(unused_imports)]
use reshard::prelude::*;
use reshard::tutor::reproduce;
use reshard::{Checks, HashWidth, KeySet};
use std::time::{Duration, Instant};

/// What one measurement took: wall-clock median, and CPU time (all
/// threads, user + system) per run.
struct Timing {
    median: Duration,
    cpu_per_run: Option<f64>,
}

/// Run `f` `runs` times and return the median time, the mean CPU time per
/// run, and the last result.
fn median_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Timing, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    let cpu0 = cpu_seconds();
    for _ in 0..runs {
        let t = Instant::now();
        let out = f();
        times.push(t.elapsed());
        last = Some(out);
    }
    let cpu = cpu_seconds().zip(cpu0).map(|(b, a)| (b - a) / runs as f64);
    times.sort();
    (Timing { median: times[runs / 2], cpu_per_run: cpu }, last.expect("at least one run"))
}

/// CPU time used so far by this process, all threads, from /proc/self/stat
/// (utime + stime, in clock ticks of 1/100 s).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // fields 14 and 15 of stat(5), counted from 1; here the state is index 0
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// The 1-minute load average, to read the timings by.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "n/a".to_string())
}

fn cpu(t: &Timing) -> String {
    t.cpu_per_run.map_or_else(|| "n/a".to_string(), |c| format!("{c:.2} s"))
}

/// A field of /proc/self/status in kB (e.g. "VmHWM", the peak resident set).
fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn mib(kb: Option<u64>) -> String {
    kb.map_or_else(|| "n/a".to_string(), |k| format!("{:.1} MiB", k as f64 / 1024.0))
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

fn verdict(d: Duration, target: f64) -> &'static str {
    if d.as_secs_f64() <= target {
        "ok"
    } else {
        "OVER"
    }
}

/// One line of the report: label, median, and, with a target, the target
/// and whether the median meets it.
fn print_row(label: &str, t: &Timing, target: Option<f64>) {
    let (goal, ok) = match target {
        Some(target) => (format!("≤ {target} s"), verdict(t.median, target)),
        None => (String::new(), ""),
    };
    println!("{label:<44} {:>10} {goal:>10} {ok:>7} {:>10}", secs(t.median), cpu(t));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let python_doc = args.iter().position(|a| a == "--python-doc").and_then(|i| args.get(i + 1)).cloned();
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.parse::<usize>().expect("--runs takes a positive number"))
        .unwrap_or(7)
        .max(1);
    let takes_value = |a: &str| a == "--runs" || a == "--python-doc";
    if let Some(bad) = args
        .iter()
        .enumerate()
        .find(|(i, a)| *a != "--quick" && !takes_value(a) && !(*i > 0 && takes_value(&args[i - 1])))
    {
        eprintln!("unknown argument {:?}: use --quick, --runs N and/or --python-doc PATH", bad.1);
        std::process::exit(2);
    }

    println!(
        "reshard bench — median of {runs} runs, {} threads, load average {} at start",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        load_average()
    );
    println!();
    println!("{:<44} {:>10} {:>10} {:>7} {:>10}", "", "median", "target", "", "CPU/run");

    type Doc = fn() -> reshard::Result<Checks>;
    let docs: [(&str, Doc, KeySet, HashWidth, f64); 3] = [
        ("000", reproduce::doc_000, KeySet::users(100_000), HashWidth::Bits32, 0.1),
        ("002", reproduce::doc_002, KeySet::plain(200_000), HashWidth::Bits128, 0.2),
        ("004", reproduce::doc_004, KeySet::plain(1_000_000), HashWidth::Bits128, 0.12),
    ];
    let mut doc_000 = None;
    for (name, doc, keys, width, target) in docs {
        let (t, checks) = median_of(runs, || doc().expect("document figures"));
        assert!(checks.all_match(), "document {name} does not reproduce:\n{checks}");
        print_row(&format!("document {name}: all {} figures", checks.checks().len()), &t, Some(target));
        let (f, hashed) = median_of(runs, || keys.hashed(width).expect("keys"));
        assert_eq!(hashed.len(), keys.len());
        print_row(&format!("  floor: md5 of {} keys ({width})", keys.len()), &f, None);
        println!("  {:.1}× the floor", t.median.as_secs_f64() / f.median.as_secs_f64());
        if name == "000" {
            doc_000 = Some(t.median);
        }
    }
    if let (Some(path), Some(ours)) = (python_doc, doc_000) {
        println!();
        let start = Instant::now();
        let status = std::process::Command::new("python3")
            .args([concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/doc_python.py"), path.as_str()])
            .stdout(std::process::Stdio::null())
            .status()
            .expect("python3 runs");
        let theirs = start.elapsed();
        assert!(status.success(), "the document's Python failed: {status}");
        println!("document 000's own Python (1 run, one process)   {:>10}", secs(theirs));
        println!(
            "reshard, all of document 000's figures (median)   {:>10}   {:.0}× faster",
            secs(ours),
            theirs.as_secs_f64() / ours.as_secs_f64()
        );
    }

    println!();
    if quick {
        println!("--quick: skipped the 100,000,000-key streaming count");
        println!("load average {} at end", load_average());
        return;
    }
    let keys = KeySet::plain(100_000_000);
    let (old, new, target) = (10, 11, 12.0);
    let hwm_before = status_kb("VmHWM");
    let (t, moved) =
        median_of(1, || count_moved_streaming(&keys, HashWidth::Bits128, old, new).expect("streaming count"));
    let hwm_after = status_kb("VmHWM");
    print_row("hash % N 10 → 11, 100,000,000 keys (1 run)", &t, Some(target));
    println!(
        "  moved {moved} of {} ({:.4}%; 10/11 = {:.4}%)",
        keys.len(),
        100.0 * moved as f64 / keys.len() as f64,
        100.0 * 10.0 / 11.0
    );
    println!(
        "  peak RSS (VmHWM) before {} · after {} · grew {}",
        mib(hwm_before),
        mib(hwm_after),
        match (hwm_before, hwm_after) {
            (Some(b), Some(a)) => mib(Some(a.saturating_sub(b))),
            _ => "n/a".to_string(),
        }
    );
    println!("load average {} at end", load_average());
}
