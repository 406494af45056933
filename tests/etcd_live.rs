//! A real etcd cluster and fenced redis nodes: etcd's own replies checked
//! against counts computed here (one compare-and-swap winner of k, the
//! revision rising by exactly the successful puts, the granted TTL, the
//! key gone within the lease window, a stale write refused and the value
//! kept), the live routers' stale replies against the counts worked out by
//! hand, and no server or directory left behind — after a drop, a panic, or
//! the owner killed with SIGKILL.
//!
//! Needs etcd 3.4+ with etcdctl (`apt-get install etcd-server
//! etcd-client`) and redis-server. Without them every test here says so and
//! passes, unless `CI=true`, where a missing program fails the run. Tests
//! that kill a leader or wait for a lease use 20/200 ms elections (leases of
//! 1 s), so each takes a few seconds.
#![cfg(feature = "etcd")]

#[path = "common/holder.rs"]
mod holder;

use holder::assert_gone;
use reshard::analysis::{EtcdTimings, RefreshPolicy, RequestTrace, ScheduledMove};
use reshard::live::{etcd_version, process_alive, redis_version, Cas, Etcd, EventKind, Fenced, FencedNodes, ShardLab};
use reshard::schemes::ShardMove;
use reshard::Error;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// False (after saying why) when etcd or redis is missing and this is not CI.
fn here() -> bool {
    holder::installed(etcd_version()) && holder::installed(redis_version())
}

/// A fast cluster: elections of 200 ms, leases of at least 1 s.
fn fast() -> Etcd {
    Etcd::start_with(3, EtcdTimings::fast()).unwrap()
}

#[test]
fn every_byte_round_trips_and_errors_name_the_member() {
    if !here() {
        return;
    }
    let t0 = Instant::now();
    let mut etcd = fast();
    let started = t0.elapsed().as_secs_f64();
    eprintln!("3 members healthy in {started:.2} s (the driver says {:.2})", etcd.start_seconds());
    assert!(started < 10.0);
    // every byte value as a one-byte key, its value that byte repeated; then read them all back
    for b in 0..=255u8 {
        etcd.put(&[b], &[b; 3]).unwrap();
    }
    let (all, _) = etcd.get_prefix(b"").unwrap();
    assert_eq!(all.len(), 256);
    for (kv, b) in all.iter().zip(0..=255u8) {
        assert_eq!((kv.key.as_slice(), kv.value.as_slice()), (&[b][..], &[b; 3][..]));
        // in byte order
    }
    // one key holding every byte, an empty value, a long value
    let every: Vec<u8> = (0..=255u8).collect();
    let long: Vec<u8> = (0..reshard::live::etcd::MAX_VALUE_BYTES).map(|i| (i * 7 % 251) as u8).collect();
    for value in [every.clone(), Vec::new(), long] {
        etcd.put(&every, &value).unwrap();
        assert_eq!(etcd.get(&every).unwrap().unwrap().value, value);
    }
    // a prefix of 0xff bytes ends at "every key from it on"
    etcd.put(b"\xff\xff", b"top").unwrap();
    assert_eq!(etcd.get_prefix(b"\xff").unwrap().0.len(), 2); // [0xff] and [0xff, 0xff]
                                                              // limits checked before anything is sent (or started)
    for members in [0, 8, usize::MAX] {
        assert!(matches!(Etcd::start_with(members, EtcdTimings::fast()), Err(Error::OutOfRange { .. })));
    }
    assert!(etcd.compare_and_swap(b"k", u64::MAX, b"v").is_err() && etcd.get_prefix(&[b'p'; 5_000]).is_err());
    assert!(etcd.client().unwrap().put_all(&[]).is_err());
    assert!(etcd.client().unwrap().put_all(&vec![(b"k".to_vec(), b"v".to_vec()); 129]).is_err());
    assert!(matches!(
        etcd.client().unwrap().put_all(&[(b"k".to_vec(), b"1".to_vec()), (b"k".to_vec(), b"2".to_vec())]),
        Err(Error::DuplicateKey { .. })
    ));
    assert_eq!(etcd.put(b"", b"x"), Err(Error::EmptyKey { index: 0 }));
    assert!(matches!(etcd.put(b"k", &vec![0; reshard::live::etcd::MAX_VALUE_BYTES + 1]), Err(Error::TooLarge { .. })));
    assert!(matches!(etcd.put(&vec![b'k'; 5_000], b""), Err(Error::TooLarge { .. })));
    // etcd's own refusal, naming the member and its port
    let victim = (0..3).find(|&i| i != etcd.leader().unwrap()).unwrap(); // a follower: writes go on
    let name = format!("etcd{victim}");
    let c = etcd.client_of(victim).unwrap();
    let lease = c.grant(5).unwrap();
    c.revoke(&lease).unwrap();
    match c.revoke(&lease).unwrap_err() {
        Error::ServerRefused { node, port, message, .. } => {
            assert_eq!((&node, port), (&name, etcd.port(victim).unwrap()));
            assert!(message.contains("requested lease not found"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(c.watch(b"/", u64::MAX).is_err()); // over etcd's signed 64-bit revisions
                                               // a member killed: its client fails naming it; killing it again is refused; restarted, it serves
    etcd.kill(victim).unwrap();
    let e = c.put(b"/k", b"v").unwrap_err();
    assert!(
        matches!(&e, Error::ServerFailed { node, port, .. } if *node == name && *port == etcd.port(victim).unwrap()),
        "{e:?}"
    );
    assert!(e.to_string().contains(&format!("{name} (127.0.0.1:")), "{e}");
    assert!(matches!(etcd.kill(victim), Err(Error::NotRunning { .. })));
    assert!(matches!(etcd.status(victim), Err(Error::NotRunning { .. })));
    assert_eq!(etcd.kill(3), Err(Error::NodeOutOfRange { index: 3, nodes: 3 }));
    assert_eq!(etcd.restart(usize::MAX).unwrap_err(), Error::NodeOutOfRange { index: usize::MAX as u64, nodes: 3 });
    assert!(etcd.port(7).is_err() && etcd.dir(7).is_err() && etcd.pid(7).is_err() && etcd.client_of(7).is_err());
    etcd.put(b"/while-down", b"2 of 3").unwrap(); // a quorum is left
    etcd.restart(victim).unwrap();
    assert!(matches!(etcd.restart(victim), Err(Error::AlreadyRunning { .. })));
    assert_eq!(c.get(b"/while-down").unwrap().unwrap().value, b"2 of 3"); // it caught up
    let left = etcd.footprint();
    drop(etcd);
    assert_gone(&left);
}

/// k controllers read one mod revision, then compare-and-swap at once:
/// exactly one wins, the losers get its value back, and the revision rises
/// by exactly the number of successful puts.
#[test]
fn racing_compare_and_swaps_one_winner() {
    if !here() {
        return;
    }
    let etcd = Etcd::start().unwrap();
    let key = b"/reshard/shards/07".to_vec();
    let mut rev = etcd.put(&key, b"B").unwrap();
    for k in [2usize, 5] {
        let clients: Vec<_> = (0..k).map(|i| etcd.client_of(i % 3).unwrap()).collect();
        let barrier = Arc::new(Barrier::new(k));
        let threads: Vec<_> = clients
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                let (barrier, key) = (barrier.clone(), key.clone());
                std::thread::spawn(move || {
                    let read = c.get(&key).unwrap().unwrap().mod_revision;
                    barrier.wait();
                    (read, c.compare_and_swap(&key, read, format!("node{i}").as_bytes()).unwrap())
                })
            })
            .collect();
        let results: Vec<(u64, Cas)> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert!(results.iter().all(|(read, _)| *read == rev), "every controller read revision {rev}");
        let winners: Vec<usize> = (0..k).filter(|&i| results[i].1.won()).collect();
        assert_eq!(winners.len(), 1, "{results:?}");
        let value = format!("node{}", winners[0]).into_bytes();
        for (_, r) in &results {
            if let Cas::Lost { current, .. } = r {
                assert_eq!(current.as_ref().unwrap().value, value); // the loser sees the winner's value
            }
        }
        let now = etcd.get(&key).unwrap().unwrap();
        assert_eq!((now.value, now.mod_revision), (value, rev + 1));
        rev = now.mod_revision;
    }
    // A sequence of puts and compare-and-swaps, some stale: the store's revision rises by the successes.
    let (_, start) = etcd.get_prefix(b"/").unwrap();
    let mut successes = 0;
    let mut last = etcd.get(&key).unwrap().unwrap().mod_revision;
    for i in 0..10u64 {
        let expected = if i % 3 == 0 { last - 1 } else { last }; // every third one is stale
        match etcd.compare_and_swap(&key, expected, format!("v{i}").as_bytes()).unwrap() {
            Cas::Won { revision } => {
                successes += 1;
                last = revision;
            }
            Cas::Lost { .. } => {}
        }
        etcd.put(b"/other", b"x").unwrap();
        successes += 1;
    }
    let (_, end) = etcd.get_prefix(b"/").unwrap();
    assert_eq!(successes, 10 + 6); // 10 puts, 6 of 10 swaps on the current revision
    assert_eq!(end - start, successes);
}

/// The granted TTL as etcd reports it, and the key gone within [TTL − 0.05
/// s, TTL + 0.5 s + 0.3 s] after the heartbeat paused right after a
/// renewal: the lease runs TTL from the renewal (the pause comes a few
/// milliseconds after it), the leader looks for expired leases every 0.5 s,
/// and 0.3 s covers the revoke's commit, the watch and a busy 2-core
/// machine.
#[test]
fn the_lease_window() {
    if !here() {
        return;
    }
    let etcd = fast();
    // minimum TTL: ⌈(3 × (200/20) / 2) × 20 ms⌉ = ⌈0.3 s⌉ = 1 s
    let lease = etcd.grant(1).unwrap();
    assert_eq!((lease.asked, lease.granted), (1, 1));
    assert_eq!(etcd.grant(7).unwrap().granted, 7);
    for trial in 0..2 {
        let lease = etcd.grant(1).unwrap();
        let key = format!("/node/{trial}").into_bytes();
        let rev = etcd.client().unwrap().put_lease(&key, b"alive", Some(&lease)).unwrap();
        let watch = etcd.watch(&key, rev + 1).unwrap();
        let hb = etcd.keep_alive(&lease).unwrap();
        if trial == 0 {
            std::thread::sleep(Duration::from_millis(1_200)); // kept alive past its TTL
            assert!(etcd.get(&key).unwrap().is_some() && hb.renewals() >= 2);
        }
        let paused = hb.pause().unwrap();
        let gone = loop {
            let e = watch.next(Duration::from_secs(5)).unwrap().expect("the key goes within 5 s");
            if e.kind == EventKind::Delete {
                break e.received.duration_since(paused).as_secs_f64();
            }
        };
        eprintln!("trial {trial}: key gone {gone:.3} s after the pause");
        assert!((0.95..=1.8).contains(&gone), "{gone}");
        hb.resume().unwrap();
        let deadline = Instant::now() + Duration::from_secs(3);
        while hb.running() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(hb.expired() && !hb.running(), "{}", hb.output(3)); // etcdctl learns it and exits
    }
    // the default timings grant 2 s for 1 asked: ⌈(3 × 10 / 2) × 100 ms⌉
    let defaults = Etcd::start_with(1, EtcdTimings::default()).unwrap();
    assert_eq!(defaults.grant(1).unwrap().granted, 2);
    assert!(defaults.grant(0).is_err() && defaults.grant(u64::MAX).is_err());
}

/// Kill the leader (20/200 ms): a new one within the predicted window
/// [0.18 s, 0.6 s] give or take 0.3 s (a busy 2-core machine), the term up
/// by 1 (or 2: see `EtcdTimings::term_rise`), with and without pre-vote.
#[test]
fn kill_the_leader() {
    if !here() {
        return;
    }
    for pre_vote in [false, true] {
        let mut etcd = Etcd::start_with(3, EtcdTimings::fast().with_pre_vote(pre_vote)).unwrap();
        let loss = etcd.kill_leader().unwrap();
        eprintln!(
            "pre-vote {pre_vote}: new leader after {:.3} s, writes after {:.3} s, term {} → {}",
            loss.elected_after, loss.writable_after, loss.term_before, loss.term_after
        );
        assert!(loss.elected_after > 0.1 && loss.elected_after < 1.5, "{loss:?}");
        assert!(loss.writable_after >= loss.elected_after - 0.05 && loss.writable_after < 2.0, "{loss:?}");
        // 1, or 2 after an ignored vote (without pre-vote) or a split vote (rare, either way)
        assert!((1..=3).contains(&loss.term_rise()), "{loss:?}");
        assert!(loss.as_predicted(0.3), "{loss:?}");
        assert_ne!(loss.new_leader, loss.killed);
        assert!(loss.leader_log.iter().any(|l| l.contains("became leader")), "{:?}", loss.leader_log);
        assert_eq!(etcd.names()[loss.killed_index], loss.killed);
        assert!(!etcd.running(loss.killed_index).unwrap());
        etcd.restart(loss.killed_index).unwrap();
        assert!(etcd.leader().is_ok()); // the restarted member follows a leader again
    }
}

/// A fenced node refuses a write whose epoch is below the fence and keeps
/// the value; epochs compare as whole numbers of any size.
#[test]
fn the_fence_refuses_a_stale_write() {
    if !here() {
        return;
    }
    let nodes = FencedNodes::start(["A", "B"]).unwrap();
    let every: Vec<u8> = (0..=255u8).collect();
    assert_eq!(nodes.write("A", 7, 5, &every, &every).unwrap(), Fenced::Ok);
    assert_eq!(nodes.raise_fence("A", 7, 9).unwrap(), 9);
    assert_eq!(nodes.raise_fence("A", 7, 3).unwrap(), 9); // never lowered
    assert_eq!(nodes.write("A", 7, 5, &every, b"stale").unwrap(), Fenced::Stale { epoch: 5, fence: 9 });
    assert_eq!(nodes.get("A", 7, &every).unwrap().unwrap(), every); // unchanged
    assert_eq!(nodes.write("A", 7, 9, b"k", b"").unwrap(), Fenced::Ok); // at the fence: taken
    assert_eq!(nodes.get("A", 7, b"k").unwrap().unwrap(), b"");
    assert_eq!(nodes.write("A", 8, 1, b"k", b"other shard").unwrap(), Fenced::Ok); // fences are per shard
                                                                                   // 10 is above 9 as a number (not as text); u64::MAX is above everything
    assert_eq!(nodes.raise_fence("A", 7, 10).unwrap(), 10);
    assert_eq!(nodes.write("A", 7, 9, b"k", b"x").unwrap(), Fenced::Stale { epoch: 9, fence: 10 });
    assert_eq!(nodes.raise_fence("A", 7, u64::MAX).unwrap(), u64::MAX);
    assert_eq!(
        nodes.write("A", 7, u64::MAX - 1, b"k", b"x").unwrap(),
        Fenced::Stale { epoch: u64::MAX - 1, fence: u64::MAX }
    );
    assert_eq!(nodes.stale_replies("A").unwrap(), 3);
    assert_eq!(nodes.stale_by_shard("A").unwrap().into_iter().collect::<Vec<_>>(), [(7, 3)]);
    assert_eq!(nodes.stale_replies("B").unwrap(), 0);
    // the fence off: a plain SET whatever the epoch
    nodes.write_unfenced("A", 7, b"k", b"zombie").unwrap();
    assert_eq!(nodes.get("A", 7, b"k").unwrap().unwrap(), b"zombie");
    // a shard's keys move whole
    assert_eq!(nodes.move_shard(7, "A", "B").unwrap(), 2);
    assert_eq!(nodes.keys("B", 7).unwrap(), [every.clone(), b"k".to_vec()]); // in byte order
    assert!(nodes.keys("A", 7).unwrap().is_empty() && nodes.keys("A", 8).unwrap().len() == 1);
    // hostile calls
    assert_eq!(nodes.write("Z", 7, 1, b"k", b"v"), Err(Error::UnknownNode("Z".into())));
    assert!(matches!(nodes.move_shard(7, "A", "A"), Err(Error::SameNode(_))));
    assert!(FencedNodes::start(Vec::<String>::new()).is_err());
    assert!(FencedNodes::start(["A", "A"]).is_err() && FencedNodes::start([""]).is_err());
    assert!(FencedNodes::start(["a b"]).is_err());
    assert!(matches!(FencedNodes::start((0..100).map(|i| format!("n{i}"))), Err(Error::TooLarge { .. })));
}

/// The lab's routers against the counts worked out by hand in
/// tests/routing.rs: 12 shards over A, B, C, 300 requests at 100 per second
/// round robin, 7, 3, 10 moving at 1.03 s.
#[test]
fn stale_routers_and_the_zombie_live() {
    if !here() {
        return;
    }
    let mut lab = ShardLab::start_with(12, ["A", "B", "C"], EtcdTimings::fast()).unwrap();
    let map = lab.read_map().unwrap();
    assert_eq!(map.revision(), lab.map().revision()); // created in one transaction
    assert!((0..12).all(|s| map.entry(s).unwrap().version == 1));
    let race = lab.race(7, &["A", "C", "A"]).unwrap();
    assert_eq!((race.winners(), race.revision_rise(), race.version_after), (1, 1, 2));
    assert!(race.losers_saw_winner());
    let moves = [
        ScheduledMove::at(1.03, 7, "C").unwrap(),
        ScheduledMove::at(1.03, 3, "B").unwrap(),
        ScheduledMove::at(1.03, 10, "C").unwrap(),
    ];
    let trace = RequestTrace::round_robin(12, 300, 100).unwrap();
    let policies = RefreshPolicy::all(&[0.5]).unwrap();
    let t0 = Instant::now();
    let seen = lab.stale_routers(&moves, &trace, &policies).unwrap();
    eprintln!("4 routers × 300 requests in {:.2} s\n{seen}", t0.elapsed().as_secs_f64());
    let poll: Vec<usize> = (103..150).filter(|i| [3, 7, 10].contains(&(i % 12))).collect();
    let by_hand: [Vec<usize>; 4] = [vec![103], vec![103, 106, 111], vec![], poll];
    for ((_, o), expected) in seen.runs.iter().zip(&by_hand) {
        assert_eq!(o.stale_requests, *expected, "{:?}", o.policy);
        assert_eq!((o.stale_router, o.stale_nodes), (expected.len() as u64, expected.len() as u64));
    }
    assert_eq!(seen.runs[3].1.failed, 12);
    assert_eq!(seen.runs[2].1.watch_events, 3);
    assert!(seen.all_match(), "{seen}");
    // the zombie: fence off, every write acknowledged and lost; on, one refused (whole map)
    let mv = [ShardMove::new(7, "C"), ShardMove::new(3, "B"), ShardMove::new(10, "C")];
    let off = lab.zombie(&mv, 10, RefreshPolicy::WholeMap, false).unwrap();
    assert_eq!((off.acknowledged, off.refused_nodes, off.lost), (10, 0, 10), "{off}");
    let on = lab.zombie(&mv, 10, RefreshPolicy::WholeMap, true).unwrap();
    assert_eq!((on.acknowledged, on.refused_nodes, on.retried, on.lost), (10, 1, 1, 0), "{on}");
    let entry = lab.zombie(&mv, 10, RefreshPolicy::Entry, true).unwrap();
    assert_eq!((entry.refused_nodes, entry.lost), (3, 0), "{entry}");
    assert!(off.all_match() && on.all_match() && entry.all_match());
    // scripted moves: the map etcd holds beside the crate's
    let s = lab.scripted_moves(&[ShardMove::new(7, "A"), ShardMove::new(3, "C"), ShardMove::new(7, "B")]).unwrap();
    assert!(s.all_match(), "{s}");
    assert_eq!(s.observed.entry(7).unwrap().version, s.before.entry(7).unwrap().version + 2);
    assert_eq!(s.observed.revision(), s.before.revision() + 3);
    #[cfg(feature = "charts")]
    {
        // the charts are drawn from what was seen: a line per policy, the zombie's bars with the
        // fence off and on, the map with shards 3 (to C) and 7 (to B, whichever racer won) moved
        let lines = seen.chart().build();
        assert!(lines.svg().contains("poll the map every 0.5 s"), "a line per policy");
        assert!(lines.svg().contains("shard 7 to C at 1.03 s"), "the moves in the subtitle");
        let bars = reshard::live::ZombieSeen::chart(&[&off, &on]).build();
        assert!(bars.svg().contains("fence off") && bars.svg().contains("lost (absent at the owner)"));
        assert_eq!(s.chart().moved(), 2);
    }
}

/// Automation meets failure detection (leases of 1 s): a pause of 0.4 s
/// moves nothing; one of 1.8 s moves C's four shards (2, 5, 8, 11) and
/// their keys, and C's writes on waking are refused (fenced) or lost.
#[test]
fn automation_meets_failure_detection() {
    if !here() {
        return;
    }
    let mut lab = ShardLab::start_with(12, ["A", "B", "C"], EtcdTimings::fast()).unwrap();
    let short = lab.auto_failover("C", 0.4, 1, 5, true, 6).unwrap();
    assert!(!short.expired && short.shards_moved == 0 && short.acknowledged == 6, "{short}");
    let long = lab.auto_failover("C", 1.8, 1, 5, true, 6).unwrap();
    eprintln!("{long}");
    assert!(long.expired, "{long}");
    let gone = long.gone_after.unwrap();
    assert!((0.95..=1.8).contains(&gone), "{gone}");
    assert_eq!((long.shards_moved, long.keys_moved), (4, 4 * 5));
    assert_eq!((long.acknowledged, long.refused, long.lost), (0, 6, 0));
    let unfenced = lab.auto_failover("C", 1.8, 1, 5, false, 6).unwrap();
    assert_eq!((unfenced.acknowledged, unfenced.refused, unfenced.lost), (6, 0, 6), "{unfenced}");
    assert!(short.all_match() && long.all_match() && unfenced.all_match());
    let after = lab.read_map().unwrap();
    assert!(after.shards_of("C").unwrap().is_empty());
    // hostile calls
    assert!(lab.auto_failover("Z", 1.0, 1, 5, true, 1).is_err());
    assert!(lab.auto_failover("C", f64::NAN, 1, 5, true, 1).is_err());
    assert!(lab.auto_failover("C", 1.0, 0, 5, true, 1).is_err());
    assert!(lab.auto_failover("C", 1.0, 1, u64::MAX, true, 1).is_err());
    assert!(lab.lease_window(0, 1).is_err() && lab.lease_window(1, 0).is_err());
    assert!(lab.race(7, &["A"]).is_err() && lab.race(99, &["A", "B"]).is_err() && lab.race(7, &["A", "Z"]).is_err());
    assert!(lab.stale_routers(&[], &RequestTrace::round_robin(12, 10, 1).unwrap(), &[]).is_err());
    let long = RequestTrace::round_robin(12, 20_001, 100).unwrap(); // over the live limit of 20,000
    assert!(matches!(lab.stale_routers(&[], &long, &[RefreshPolicy::Watch]), Err(Error::TooLarge { .. })));
    assert!(lab.zombie(&[ShardMove::new(7, "C")], 20_001, RefreshPolicy::Entry, true).is_err());
    assert!(
        lab.scripted_moves(&[ShardMove::new(99, "A")]).is_err()
            && lab.scripted_moves(&[ShardMove::new(0, "Z")]).is_err()
    );
    let tiny = RefreshPolicy::poll(0.000_001).unwrap();
    assert!(lab.stale_routers(&[], &RequestTrace::round_robin(12, 100, 1).unwrap(), &[tiny]).is_err()); // 99 million polls
    assert!(ShardLab::start(0, ["A"]).is_err() && ShardLab::start(129, ["A"]).is_err());
}

#[test]
fn a_panic_stops_every_process() {
    if !here() {
        return;
    }
    let left = std::sync::Mutex::new(Vec::new());
    let result = std::panic::catch_unwind(|| {
        let lab = ShardLab::start_with(4, ["A", "B"], EtcdTimings::fast()).unwrap();
        let lease = lab.etcd().grant(5).unwrap();
        let hb = lab.etcd().keep_alive(&lease).unwrap();
        hb.pause_now().unwrap(); // a stopped heartbeat goes too
        let mut f = lab.footprint();
        f.push((hb.pid(), hb.dir().to_path_buf()));
        left.lock().unwrap().extend(f);
        panic!("a failing cell");
    });
    assert!(result.is_err());
    let left = left.into_inner().unwrap();
    assert_eq!(left.len(), 3 * 2 + 2 + 1, "3 runners, 3 etcd, 2 redis-server, 1 etcdctl: {left:?}");
    assert_gone(&left);
}

/// Run by `the_owner_killed_leaves_nothing` in a child process.
#[test]
#[ignore = "run by the_owner_killed_leaves_nothing in a child process"]
fn child_holds_a_lab() {
    if std::env::var("RESHARD_ETCD_CHILD").is_err() {
        return;
    }
    let lab = ShardLab::start_with(4, ["A", "B"], EtcdTimings::fast()).unwrap();
    let lease = lab.etcd().grant(5).unwrap();
    let hb = lab.etcd().keep_alive(&lease).unwrap();
    let mut f = lab.footprint();
    f.push((hb.pid(), hb.dir().to_path_buf()));
    holder::print_and_wait(&f);
}

#[test]
fn the_owner_killed_leaves_nothing() {
    if !here() {
        return;
    }
    let (mut child, left) = holder::start_holder("child_holds_a_lab", "RESHARD_ETCD_CHILD");
    // 3 runners and 3 etcd, 2 redis-server, 1 etcdctl
    assert!(left.len() >= 9, "the child did not start its lab: {left:?}");
    assert!(left.iter().all(|(p, d)| process_alive(*p) && d.exists()));
    child.kill().unwrap(); // SIGKILL: no destructor runs
    child.wait().unwrap();
    let t0 = Instant::now();
    assert_gone(&left);
    eprintln!("everything gone {:.2} s after the SIGKILL", t0.elapsed().as_secs_f64());
}
