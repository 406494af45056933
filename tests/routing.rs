//! Lab 11's models against counts worked out here: by hand for small
//! traces (the reasoning is in the comments), and by a naive simulator
//! written in this file (whole maps copied at every refresh, times compared
//! as fractions) for thousands of generated ones. Nothing is copied from
//! the crate's output.

use reshard::analysis::{
    AutoFailover, EtcdTimings, Expiry, RefreshPolicy, RequestTrace, ScheduledMove, StaleRouting, ZombieRouter,
};
use reshard::schemes::{ShardMap, ShardMove};
use reshard::{Error, PyRandom};

fn stale(sim: &StaleRouting, p: RefreshPolicy) -> Vec<usize> {
    sim.run(p).unwrap().stale_requests
}

/// 4 shards over A, B (shard s on s % 2); requests at 1 per second to
/// shards 0 1 2 3 0 1 2 3 1 3 (request i at i s); shards 1 and 3 move to A
/// at 2.5 s, shard 2 to B at 6 s.
#[test]
fn misroutes_of_a_small_trace_worked_by_hand() {
    let map = ShardMap::new(4, ["A", "B"]).unwrap();
    let trace = RequestTrace::from_shards(4, &[0, 1, 2, 3, 0, 1, 2, 3, 1, 3], 1).unwrap();
    let moves = [
        ScheduledMove::at(2.5, 1, "A").unwrap(),
        ScheduledMove::at(2.5, 3, "A").unwrap(),
        ScheduledMove::at(6.0, 2, "B").unwrap(),
    ];
    let sim = StaleRouting::new(&map, &moves, &trace).unwrap();
    // Whole map: request 3 (shard 3, at 3 s) is the first after the 2.5 s moves: stale, and the
    // refresh brings both. Request 5 (shard 1) is then fresh. Request 6 (shard 2, at 6 s) comes
    // after the 6 s move (a move at the very time of a request comes first): stale again.
    assert_eq!(stale(&sim, RefreshPolicy::WholeMap), [3, 6]);
    assert_eq!(sim.run(RefreshPolicy::WholeMap).unwrap().map_reads, 1 + 2);
    // One entry: each moved shard once, the first time it is asked for after its move.
    assert_eq!(stale(&sim, RefreshPolicy::Entry), [3, 5, 6]);
    assert_eq!(sim.run(RefreshPolicy::Entry).unwrap().entry_reads, 3);
    // Watch: never stale; three changes pushed.
    let w = sim.run(RefreshPolicy::Watch).unwrap();
    assert_eq!((w.stale, w.watch_events), (0, 3));
    // Poll every 4 s (reads at 4 and 8): request 3 has the map of time 0 (stale), request 6
    // the map of 4 s (shard 2 moved at 6: stale); both fail.
    let p4 = sim.run(RefreshPolicy::poll(4.0).unwrap()).unwrap();
    assert_eq!((p4.stale_requests.as_slice(), p4.failed, p4.map_reads), (&[3usize, 6][..], 2, 1 + 2));
    // Poll every 2.5 s (2.5, 5, 7.5): the read at 2.5 s sees the moves of 2.5 s; only request 6.
    let p25 = sim.run(RefreshPolicy::poll(2.5).unwrap()).unwrap();
    assert_eq!((p25.stale_requests.as_slice(), p25.map_reads), (&[6usize][..], 1 + 3));
    // Poll every 10 s: no read within the trace; every request for a moved shard after its move.
    assert_eq!(stale(&sim, RefreshPolicy::poll(10.0).unwrap()), [3, 5, 6, 7, 8, 9]);
    // The final map: 1 and 3 on A, 2 on B; revision 1 + 3 changes.
    let after = sim.after();
    assert_eq!((after.owner(1).unwrap(), after.owner(2).unwrap(), after.owner(3).unwrap()), ("A", "B", "A"));
    assert_eq!(after.revision(), 4);
}

/// The lab's default: 12 shards over A, B, C, 300 requests at 100 per
/// second round robin (request i to shard i % 12 at i/100 s), shards 7, 3
/// and 10 moving at 1.03 s.
#[test]
fn the_labs_default_trace() {
    let map = ShardMap::new(12, ["A", "B", "C"]).unwrap();
    let moves = [
        ScheduledMove::at(1.03, 7, "C").unwrap(),
        ScheduledMove::at(1.03, 3, "B").unwrap(),
        ScheduledMove::at(1.03, 10, "C").unwrap(),
    ];
    let sim = StaleRouting::new(&map, &moves, &RequestTrace::round_robin(12, 300, 100).unwrap()).unwrap();
    let moved = |i: &usize| [3, 7, 10].contains(&(i % 12));
    // the first request at or after 1.03 s is 103; the first ones for each moved shard after it:
    let first: Vec<usize> = [7, 3, 10].iter().map(|&s| (103..300).find(|i| i % 12 == s).unwrap()).collect();
    assert_eq!(first, [103, 111, 106]);
    assert_eq!(stale(&sim, RefreshPolicy::WholeMap), [103]);
    assert_eq!(stale(&sim, RefreshPolicy::Entry), [103, 106, 111]);
    assert!(stale(&sim, RefreshPolicy::Watch).is_empty());
    for (period, next_poll) in [(0.5, 150), (0.2, 120), (1.0, 200), (0.25, 125)] {
        let expected: Vec<usize> = (103..next_poll).filter(moved).collect();
        assert_eq!(stale(&sim, RefreshPolicy::poll(period).unwrap()), expected, "poll every {period} s");
    }
    assert_eq!(stale(&sim, RefreshPolicy::poll(0.5).unwrap()).len(), 12);
}

/// A naive router, written for this test: every time is a fraction
/// (numerator, denominator); the router keeps a whole copy of the map and
/// copies it again at every refresh.
fn naive(
    owners: &[usize],
    moves: &[(u64, usize, usize)], // (time in µs, shard, to)
    requests: &[usize],
    rate: u64,
    policy: &str,
    period_us: u64,
) -> Vec<usize> {
    // request i is at i/rate s = i·10⁶/rate µs: compare a·10⁶·… as integers
    let req_before_or_at = |i: usize, us: u64| (i as u128) * 1_000_000 >= (us as u128) * (rate as u128);
    let map_at = |count: usize| {
        let mut m: Vec<(usize, u64)> = owners.iter().map(|&o| (o, 0)).collect();
        for (j, &(_, s, to)) in moves.iter().take(count).enumerate() {
            m[s] = (to, j as u64 + 1);
        }
        m
    };
    let done_by = |i: usize| moves.iter().filter(|m| req_before_or_at(i, m.0)).count();
    let mut cache = map_at(moves.iter().filter(|m| m.0 == 0).count());
    let mut out = Vec::new();
    for (i, &s) in requests.iter().enumerate() {
        let now = map_at(done_by(i));
        if policy == "watch" {
            cache = now.clone();
        }
        if policy == "poll" {
            let k = (i as u128 * 1_000_000) / (period_us as u128 * rate as u128);
            let t = k * period_us as u128;
            cache = map_at(moves.iter().filter(|m| (m.0 as u128) <= t).count());
        }
        if cache[s].1 != now[s].1 {
            out.push(i);
            match policy {
                "whole" => cache = now.clone(),
                "entry" => cache[s] = now[s],
                _ => {}
            }
        }
    }
    out
}

/// Thousands of generated maps, traces and moves: the crate's counts equal
/// the naive router's, under every policy.
#[test]
fn the_counts_equal_a_naive_routers_on_generated_traces() {
    let mut rng = PyRandom::new(11);
    let mut draw = |n: u32| rng.randbelow(n).unwrap() as usize;
    let mut stale_seen = [0usize; 4];
    for case in 0..2_000 {
        let (shards, nodes) = (1 + draw(8), 1 + draw(4));
        let names: Vec<String> = (0..nodes).map(|n| format!("N{n}")).collect();
        let map = ShardMap::new(shards, names.clone()).unwrap();
        let mut owners: Vec<usize> = (0..shards).map(|s| s % nodes).collect();
        let start = owners.clone();
        let rate = [1u32, 3, 7, 100][draw(4)];
        let requests: Vec<usize> = (0..1 + draw(60)).map(|_| draw(shards as u32)).collect();
        let mut moves = Vec::new();
        let mut t = 0u64;
        for _ in 0..draw(6) {
            t += [0, 1, 250_000, 1_000_000, 333_333][draw(5)] as u64;
            let s = draw(shards as u32);
            if nodes == 1 {
                break;
            }
            let to = (owners[s] + 1 + draw(nodes as u32 - 1)) % nodes;
            owners[s] = to;
            moves.push((t, s, to));
        }
        let scheduled: Vec<ScheduledMove> = moves
            .iter()
            .map(|&(us, s, to)| ScheduledMove::at(us as f64 / 1e6, s, names[to].clone()).unwrap())
            .collect();
        let trace = RequestTrace::from_shards(shards, &requests, rate).unwrap();
        let sim = StaleRouting::new(&map, &scheduled, &trace).unwrap();
        let period_us = [1u64, 100_000, 333_333, 1_000_000, 2_500_000][draw(5)];
        let period = RefreshPolicy::poll(period_us as f64 / 1e6).unwrap();
        for (k, (name, policy)) in [
            ("whole", RefreshPolicy::WholeMap),
            ("entry", RefreshPolicy::Entry),
            ("watch", RefreshPolicy::Watch),
            ("poll", period),
        ]
        .into_iter()
        .enumerate()
        {
            let expected = naive(&start, &moves, &requests, u64::from(rate), name, period_us);
            stale_seen[k] += expected.len();
            assert_eq!(stale(&sim, policy), expected, "case {case}: {name}, moves {moves:?}, requests {requests:?}");
        }
    }
    // the cases do exercise every refreshing policy (watch is never stale)
    assert!(stale_seen[0] > 500 && stale_seen[1] > stale_seen[0] && stale_seen[3] > 500, "{stale_seen:?}");
    assert_eq!(stale_seen[2], 0);
}

/// Moves one after another: the revision rises by 1 per move, each entry's
/// version by 1 per move of its shard, its mod revision is the revision of
/// its last move.
#[test]
fn a_scripted_sequence_of_moves_as_counted_by_hand() {
    let map = ShardMap::new(12, ["A", "B", "C"]).unwrap().created_at(2).unwrap(); // one transaction at 2
    let moves = [ShardMove::new(7, "C"), ShardMove::new(3, "B"), ShardMove::new(7, "A"), ShardMove::new(0, "C")];
    let after = map.apply(&moves).unwrap();
    assert_eq!(after.revision(), 2 + 4);
    // shard 7: written at creation (1), at 3 and at 5 → version 3, mod revision 5
    let e7 = after.entry(7).unwrap();
    assert_eq!((e7.owner.as_str(), e7.version, e7.mod_revision), ("A", 3, 5));
    let e3 = after.entry(3).unwrap();
    assert_eq!((e3.owner.as_str(), e3.version, e3.mod_revision), ("B", 2, 4));
    let e0 = after.entry(0).unwrap();
    assert_eq!((e0.owner.as_str(), e0.version, e0.mod_revision), ("C", 2, 6));
    let untouched = after.entry(11).unwrap();
    assert_eq!((untouched.owner.as_str(), untouched.version, untouched.mod_revision), ("C", 1, 2));
    // a compare-and-swap on a revision read before the last move of the shard loses
    assert!(after.compare_and_move(&ShardMove::new(7, "B"), 3).unwrap().is_err());
    assert_eq!(after.compare_and_move(&ShardMove::new(7, "B"), 5).unwrap().unwrap().revision(), 7);
}

/// The zombie: 12 shards over A, B, C; 7 → C, 3 → B, 10 → C while it is
/// paused; its 10 writes go to shards 7, 3, 10, 7, 3, 10, 7, 3, 10, 7.
#[test]
fn the_zombie_router_by_hand() {
    let map = ShardMap::new(12, ["A", "B", "C"]).unwrap();
    let moves = [ShardMove::new(7, "C"), ShardMove::new(3, "B"), ShardMove::new(10, "C")];
    let z = ZombieRouter::new(&map, &moves, 10).unwrap();
    assert_eq!(z.shards_written(), [7, 3, 10, 7, 3, 10, 7, 3, 10, 7]);
    // fence off: the old owners (B, A, B) take every write; none is at the new owner
    let off = z.run(RefreshPolicy::Entry, false).unwrap();
    assert_eq!((off.acknowledged, off.refused, off.lost), (10, 0, 10));
    // fence on, whole map: the first write is refused, the refresh brings every move
    let whole = z.run(RefreshPolicy::WholeMap, true).unwrap();
    assert_eq!((whole.acknowledged, whole.refused, whole.retried, whole.lost), (10, 1, 1, 0));
    assert_eq!(whole.refused_writes, [0]);
    // fence on, one entry: the first write of each moved shard
    let entry = z.run(RefreshPolicy::Entry, true).unwrap();
    assert_eq!((entry.refused_writes.as_slice(), entry.lost), (&[0usize, 1, 2][..], 0));
}

/// Automation meets failure detection: C owns shards 2, 5, 8, 11 (s % 3
/// == 2); with 10 keys each, 40 keys move when its lease expires.
#[test]
fn a_paused_heartbeat_by_hand() {
    let map = ShardMap::new(12, ["A", "B", "C"]).unwrap();
    let ttl = EtcdTimings::default().granted_ttl(1).unwrap();
    assert_eq!(ttl, 2); // ⌈(3·10/2)·100 ms⌉ = ⌈1.5 s⌉
    let model = AutoFailover::new(&map, "C", 10, ttl).unwrap();
    let plan: Vec<(usize, String)> = model.plan().unwrap().into_iter().map(|m| (m.shard, m.to)).collect();
    assert_eq!(plan, [(2, "A".into()), (5, "B".into()), (8, "A".into()), (11, "B".into())]);
    let short = model.run(1.0, true, 6).unwrap();
    assert_eq!(
        (short.expiry, short.shards_moved, short.keys_moved, short.lost),
        (Expiry::Kept, Some(0), Some(0), Some(0))
    );
    let long = model.run(3.0, true, 6).unwrap();
    assert_eq!((long.expiry, long.shards_moved, long.keys_moved), (Expiry::Expired, Some(4), Some(40)));
    assert_eq!((long.acknowledged, long.refused, long.lost), (Some(0), Some(6), Some(0)));
    assert_eq!(long.moved_back_on_rejoin, Some(4)); // 12 / 3
    let unfenced = model.run(3.0, false, 6).unwrap();
    assert_eq!((unfenced.acknowledged, unfenced.lost), (Some(6), Some(6)));
    assert_eq!(model.run(2.05, true, 6).unwrap().shards_moved, None); // too close to call
}

/// Hostile calls into the pure API: each a typed error or a right value,
/// never a panic.
#[test]
fn hostile_calls_are_typed_errors() {
    let map = ShardMap::new(3, ["A", "B"]).unwrap();
    assert_eq!(ShardMap::new(0, ["A"]), Err(Error::ZeroShards));
    assert!(matches!(ShardMap::new(usize::MAX, ["A"]), Err(Error::TooLarge { .. })));
    assert_eq!(ShardMap::new(3, [""; 0]), Err(Error::NoNodes));
    assert_eq!(ShardMap::new(3, ["A", "A"]), Err(Error::DuplicateNode("A".into())));
    assert!(ShardMap::from_owners(["A"], ["B"]).is_err());
    assert!(ShardMap::from_owners(["A"], Vec::<&str>::new()).is_err());
    assert!(map.clone().created_at(u64::MAX).is_err() && map.clone().created_at(0).is_err());
    assert!(map.clone().with_revision(u64::MAX).is_err());
    assert_eq!(map.owner(usize::MAX), Err(Error::NoSuchShard { shard: usize::MAX, shards: 3 }));
    assert!(map.moved(&ShardMove::new(usize::MAX, "A")).is_err());
    assert!(map.moved(&ShardMove::new(0, "")).is_err());
    assert!(map.compare_and_move(&ShardMove::new(1, "A"), u64::MAX).unwrap().is_err()); // lost, not a panic
    let top = map.clone().created_at(i64::MAX as u64).unwrap();
    assert!(matches!(top.moved(&ShardMove::new(1, "A")), Err(Error::Overflow { .. })));
    let _ = map.with_node(""); // a name like any other, or an error: never a panic
                               // traces
    assert!(RequestTrace::round_robin(3, usize::MAX, 100).is_err());
    assert!(RequestTrace::round_robin(usize::MAX, 10, 100).is_err());
    assert!(RequestTrace::round_robin(3, 10, u32::MAX).is_err());
    assert!(RequestTrace::seeded(0, 10, 100, u64::MAX).is_err());
    assert!(RequestTrace::round_robin(3, 10, 1).unwrap().shard(10).is_err());
    // times
    for bad in [f64::NAN, f64::INFINITY, -0.5, 0.0, 1e-9, 1e12] {
        assert!(RefreshPolicy::poll(bad).is_err(), "poll {bad}");
    }
    for bad in [f64::NAN, f64::NEG_INFINITY, -1.0, 1e12] {
        assert!(ScheduledMove::at(bad, 0, "A").is_err(), "move at {bad}");
    }
    // models
    let trace = RequestTrace::round_robin(3, 10, 1).unwrap();
    assert!(StaleRouting::new(&map, &[], &RequestTrace::round_robin(4, 10, 1).unwrap()).is_err());
    assert!(StaleRouting::new(&map, &[ScheduledMove::at(1.0, 0, "A").unwrap()], &trace).is_err()); // 0 is on A
    assert_eq!(StaleRouting::new(&map, &[], &trace).unwrap().run(RefreshPolicy::WholeMap).unwrap().stale, 0);
    assert!(ZombieRouter::new(&map, &[ShardMove::new(0, "B")], usize::MAX).is_err());
    assert!(ZombieRouter::new(&map, &[ShardMove::new(0, "B")], 1)
        .unwrap()
        .run(RefreshPolicy::poll(1.0).unwrap(), true)
        .is_err());
    assert!(AutoFailover::new(&map, "A", u64::MAX, 2).is_err());
    assert!(AutoFailover::new(&map, "A", 1, u64::MAX).is_err());
    let model = AutoFailover::new(&map, "A", 1, 2).unwrap();
    assert!(model.run(f64::NAN, true, 1).is_err() && model.run(1.0, true, u64::MAX).is_err());
    // timings
    assert!(EtcdTimings::new(0, 0).is_err() && EtcdTimings::new(u64::MAX, 1).is_err());
    assert!(EtcdTimings::default().granted_ttl(0).is_err());
    assert!(EtcdTimings::default().keepalive_period(u64::MAX).is_err());
    assert!(EtcdTimings::default().expiry_window(0, true).is_err());
}

/// The explorable counts what [`StaleRouting`] counts, and refuses bad grids.
#[cfg(feature = "charts")]
#[test]
fn the_explorable_is_the_models_counts() {
    use reshard::present::explore_routing::{ENTRY, POLL, WATCH};
    let map = ShardMap::new(12, ["A", "B", "C"]).unwrap();
    let moves = [ScheduledMove::at(1.03, 7, "C").unwrap(), ScheduledMove::at(1.03, 3, "B").unwrap()];
    let ex = StaleRouting::explorable(&map, &moves, 3.0, &[50, 100], 100, &[0.1, 0.5, 1.0]).unwrap();
    // at 50 per second request i is at i/50 s: the first after 1.03 s is 52 (1.04 s); poll 0.5 s
    // reads at 1.5 s, request 75: requests 52 … 74 for shards 3 or 7
    let expected = (52..75).filter(|i| [3, 7].contains(&(i % 12))).count() as f64;
    assert_eq!(ex.value(&[50], POLL, 0.5), Some(expected));
    assert_eq!((ex.value(&[50], ENTRY, 1.0), ex.value(&[100], WATCH, 0.1)), (Some(2.0), Some(0.0)));
    // the lab's grid fits one output, the live points beside it
    let periods = [0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0];
    let mut lab = StaleRouting::explorable(&map, &moves, 3.0, &[25, 50, 100, 200], 100, &periods).unwrap();
    reshard::present::explore_routing::add_live(&mut lab, 100, 0.5, 8).unwrap();
    let out = lab.output().unwrap();
    eprintln!("{}", out.text());
    assert!(out.vega_lite().len() + out.svg().len() < reshard::present::explorable::MAX_OUTPUT_BYTES);
    assert!(reshard::present::explore_routing::add_live(&mut lab, 7, 0.5, 8).is_err()); // not a slider value
    for bad in [
        StaleRouting::explorable(&map, &moves, f64::NAN, &[50], 50, &[0.5]),
        StaleRouting::explorable(&map, &moves, 3.0, &[0], 50, &[0.5]),
        StaleRouting::explorable(&map, &moves, 3.0, &[50], 50, &[]),
        StaleRouting::explorable(&map, &moves, 3.0, &[50], 50, &[f64::NAN]),
        StaleRouting::explorable(&map, &moves, 1e6, &[1_000_000], 1_000_000, &[0.5]),
    ] {
        assert!(bad.is_err());
    }
}
