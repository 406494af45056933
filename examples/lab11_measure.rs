//! Lab 11's numbers, measured on this machine: etcd's start, racing
//! compare-and-swaps, granted TTLs, the lease expiry window, a killed
//! leader under three timings, and the live routers, zombie and failover
//! beside the crate's predictions.
//!
//!     cargo run --release --features etcd --example lab11_measure -- [trials]
//!
//! Needs etcd, etcdctl and redis-server on PATH. Takes about four minutes
//! with 10 trials.

use reshard::analysis::{EtcdTimings, RefreshPolicy, RequestTrace, ScheduledMove};
use reshard::live::{Cas, Etcd, EventKind, ShardLab};
use reshard::schemes::ShardMove;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

fn summary(xs: &mut [f64]) -> String {
    xs.sort_by(f64::total_cmp);
    let median = if xs.is_empty() { f64::NAN } else { xs[xs.len() / 2] };
    format!(
        "median {median:.3} ({:.3}–{:.3}, n = {})",
        xs.first().unwrap_or(&f64::NAN),
        xs.last().unwrap_or(&f64::NAN),
        xs.len()
    )
}

/// `lab11_measure terms N [pre-vote]`: N leader kills under the default
/// timings, the new leader's raft log printed whenever the term rose by 2
/// or more.
fn terms(n: usize, pre_vote: bool) -> reshard::Result<()> {
    let mut e = Etcd::start_with(3, EtcdTimings::default().with_pre_vote(pre_vote))?;
    let mut rises = Vec::new();
    for _ in 0..n {
        let loss = e.kill_leader()?;
        rises.push(loss.term_rise());
        if loss.term_rise() >= 2 {
            println!("term {} → {}:\n  {}", loss.term_before, loss.term_after, loss.leader_log.join("\n  "));
        }
        e.restart(loss.killed_index)?;
    }
    println!("pre-vote {pre_vote}: term rises {rises:?}");
    Ok(())
}

fn main() -> reshard::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("terms") {
        let n = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20);
        return terms(n, args.get(3).map(String::as_str) == Some("pre-vote"));
    }
    let trials: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    let defaults = EtcdTimings::default();
    let fast = EtcdTimings::fast();

    // 1. start
    for t in [defaults, fast] {
        let mut s: Vec<f64> = (0..trials.min(5))
            .map(|_| Etcd::start_with(3, t).map(|e| e.start_seconds()))
            .collect::<reshard::Result<_>>()?;
        println!("start, 3 members, {}: {} s", t.label(), summary(&mut s));
    }

    // 2. racing compare-and-swaps
    let etcd = Etcd::start()?;
    for k in [2usize, 5] {
        let mut winners = Vec::new();
        let mut rises = Vec::new();
        for trial in 0..trials {
            let key = format!("/race/{k}/{trial}").into_bytes();
            let rev = etcd.put(&key, b"start")?;
            let barrier = Arc::new(Barrier::new(k));
            let threads: Vec<_> = (0..k)
                .map(|i| {
                    let (c, b, key) = (etcd.client_of(i % 3).unwrap(), barrier.clone(), key.clone());
                    std::thread::spawn(move || {
                        let read = c.get(&key).unwrap().unwrap().mod_revision;
                        b.wait();
                        c.compare_and_swap(&key, read, format!("c{i}").as_bytes()).unwrap()
                    })
                })
                .collect();
            let won = threads.into_iter().map(|t| t.join().unwrap()).filter(Cas::won).count();
            winners.push(won);
            rises.push(etcd.get(&key)?.unwrap().mod_revision - rev);
        }
        println!("race of {k}: winners per trial {winners:?}, revision rise {rises:?}");
    }

    // 3. granted TTLs
    for t in [defaults, fast] {
        let e = Etcd::start_with(1, t)?;
        let granted: Vec<(u64, u64)> =
            [1, 2, 3, 5].iter().map(|&a| e.grant(a).map(|l| (a, l.granted))).collect::<reshard::Result<_>>()?;
        println!("granted TTLs (asked, granted) under {}: {granted:?}; predicted min {}", t.label(), t.min_lease_ttl());
    }

    // 4. the expiry window: paused right after a renewal, and at any moment
    for t in [defaults, fast] {
        let e = Etcd::start_with(3, t)?;
        for after_renewal in [true, false] {
            let mut gone = Vec::new();
            let mut ttl = 0;
            for trial in 0..trials {
                let lease = e.grant(1)?;
                ttl = lease.granted;
                let key = format!("/lease/{trial}").into_bytes();
                let rev = e.client()?.put_lease(&key, b"x", Some(&lease))?;
                let w = e.watch(&key, rev + 1)?;
                let hb = e.keep_alive(&lease)?;
                if !after_renewal {
                    std::thread::sleep(Duration::from_millis(137 * trial as u64 % 1000));
                }
                let t0 = if after_renewal { hb.pause()? } else { hb.pause_now()? };
                loop {
                    let ev = w.next(Duration::from_secs(10))?.expect("deleted");
                    if ev.kind == EventKind::Delete {
                        gone.push(ev.received.duration_since(t0).as_secs_f64());
                        break;
                    }
                }
            }
            let window = t.expiry_window(ttl, after_renewal)?;
            let how = if after_renewal { "right after a renewal" } else { "at any moment" };
            println!(
                "{}: TTL {ttl} s, heartbeat paused {how}: key gone after {} s, predicted {window:?}",
                t.label(),
                summary(&mut gone)
            );
        }
    }

    // 5. kill the leader
    for t in [defaults, defaults.with_pre_vote(true), fast, fast.with_pre_vote(true)] {
        let mut e = Etcd::start_with(3, t)?;
        let (mut elected, mut writable, mut rises) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..trials {
            let loss = e.kill_leader()?;
            elected.push(loss.elected_after);
            writable.push(loss.writable_after);
            rises.push(loss.term_rise());
            e.restart(loss.killed_index)?;
        }
        let by2 = rises.iter().filter(|&&r| r >= 2).count();
        println!(
            "kill the leader, {}: new leader after {} s; writes after {} s; term rose by {rises:?} ({by2} of {} by 2 or more); predicted {:?}",
            t.label(),
            summary(&mut elected),
            summary(&mut writable),
            rises.len(),
            t.leader_loss_window()
        );
    }

    // 6. the lab's live scenarios
    let t0 = Instant::now();
    let mut lab = ShardLab::start(12, ["A", "B", "C"])?;
    println!("lab started in {:.2} s", t0.elapsed().as_secs_f64());
    println!("{}", lab.race(7, &["A", "C"])?);
    println!("{}", lab.race(7, &["A", "B", "C", "A", "B"])?);
    println!("{}", lab.scripted_moves(&[ShardMove::new(7, "C"), ShardMove::new(3, "B"), ShardMove::new(7, "A")])?);
    println!("{}", lab.lease_window(1, 3)?);
    let moves = [ScheduledMove::at(1.03, 7, "C")?, ScheduledMove::at(1.03, 3, "B")?, ScheduledMove::at(1.03, 10, "C")?];
    let trace = RequestTrace::round_robin(12, 300, 100)?;
    let t0 = Instant::now();
    println!("{}", lab.stale_routers(&moves, &trace, &RefreshPolicy::all(&[0.1, 0.2, 0.5, 1.0])?)?);
    println!("(the routers took {:.2} s)", t0.elapsed().as_secs_f64());
    let mv = [ShardMove::new(7, "C"), ShardMove::new(3, "B"), ShardMove::new(10, "C")];
    for (p, f) in [(RefreshPolicy::WholeMap, false), (RefreshPolicy::WholeMap, true), (RefreshPolicy::Entry, true)] {
        println!("{}", lab.zombie(&mv, 10, p, f)?);
    }
    for (p, f) in [(1.0, true), (3.0, true), (3.0, false)] {
        println!("{}", lab.auto_failover("C", p, 2, 10, f, 6)?);
    }
    println!("{}", lab.etcd_mut().kill_leader()?);
    Ok(())
}
