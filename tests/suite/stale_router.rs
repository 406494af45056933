//! Lab 11's exercise, a router's retry loop: the checker passes a correct
//! router (refreshing one entry, or the whole map, on a stale reply) on
//! every invariant, and fails each planted mistake on the invariant it
//! breaks, with the smallest trace that shows it. The routers are written
//! here, not taken from the crate: the checker has no router of its own.
//! The expected traces are worked out by hand in the comments (the order the
//! checker tries: fewest events, then fewest shards, then fewest nodes; at
//! each step plain writes, then moves, then writes with a move in the
//! middle).

use std::sync::atomic::{AtomicUsize, Ordering};

use reshard::tutor::exercises::router::{Cluster, NodeReply, Route, RouterInvariant, RouterReport};
use reshard::tutor::exercises::stale_router;

/// The notebook's model solution: on a stale reply, read the shard's entry and retry. (The
/// exercise's signature takes the map as a `Vec`, so that a router may replace it whole.)
#[allow(clippy::ptr_arg)]
fn entry_router(map: &mut Vec<Route>, cluster: &mut Cluster, shard: usize, key: &str) {
    loop {
        let route = map[shard].clone();
        match cluster.send(&route.node, shard, route.epoch, key) {
            NodeReply::Stored => return,
            NodeReply::Stale { .. } => map[shard] = cluster.read_entry(shard),
        }
    }
}

/// On a stale reply, read the whole map and retry.
fn map_router(map: &mut Vec<Route>, cluster: &mut Cluster, shard: usize, key: &str) {
    loop {
        let route = map[shard].clone();
        match cluster.send(&route.node, shard, route.epoch, key) {
            NodeReply::Stored => return,
            NodeReply::Stale { .. } => *map = cluster.read_map(),
        }
    }
}

fn all(mut check: impl FnMut(RouterInvariant) -> RouterReport) -> Vec<RouterReport> {
    use RouterInvariant::*;
    [NoLostWrite, OneMisroutePerMove, NeverBelowFence, Determinism].into_iter().map(&mut check).collect()
}

/// The report's failure on one line: trace | calls | problem.
fn failure(r: &RouterReport) -> String {
    let c = r.failure().unwrap_or_else(|| panic!("expected a failure:\n{r}"));
    format!("{} | {} | {}", c.trace, c.calls.join("; "), c.problem)
}

#[test]
fn correct_routers_keep_every_invariant() {
    for r in all(|i| stale_router(entry_router).check(i)) {
        assert!(r.passed(), "{r}");
        assert!(r.traces() > 4_000 && r.writes() > 20_000, "{r}");
    }
    for r in all(|i| stale_router(map_router).check(i)) {
        assert!(r.passed(), "{r}");
    }
    // hidden cases: another seed, longer traces
    for r in all(|i| stale_router(entry_router).seed(31_337).scale(3).check(i)) {
        assert!(r.passed(), "{r}");
    }
    let text = stale_router(entry_router).no_lost_write().to_string();
    assert!(text.starts_with("✓ no lost write: held on all "), "{text}");
}

#[test]
fn a_router_that_gives_up_loses_a_write() {
    let gives_up = |map: &mut Vec<Route>, c: &mut Cluster, s: usize, k: &str| {
        let r = map[s].clone();
        c.send(&r.node, s, r.epoch, k);
    };
    let r = stale_router(gives_up).no_lost_write();
    // the smallest: shard 0 moves A → B, then the router writes to A with epoch 1 and gives up
    assert_eq!(
        failure(&r),
        "1 shard on nodes A, B (shard s on node s % 2, the map at revision 1, every epoch 1); then shard 0 moves \
         to B (revision 2); then write k0 to shard 0 | send(A, shard 0, epoch 1, \"k0\") → stale (epoch 1 < fence \
         2); returned | your function returned, so the client was told \"k0\" is written, but no node stored it"
    );
    // it never learns of the move: the next write to the shard is refused again
    let m = failure(&stale_router(gives_up).one_misroute_per_move());
    assert!(m.contains("then write k1 to shard 0 |") && m.contains("a second misroute for one move"), "{m}");
    // a router that retries once: a move in the middle of the write (after its read) catches it
    let once = |map: &mut Vec<Route>, c: &mut Cluster, s: usize, k: &str| {
        let r = map[s].clone();
        if c.send(&r.node, s, r.epoch, k) != NodeReply::Stored {
            map[s] = c.read_entry(s);
            let r = map[s].clone();
            c.send(&r.node, s, r.epoch, k);
        }
    };
    let text = failure(&stale_router(once).no_lost_write());
    assert!(text.contains("right after the router's first read") && text.contains("no node stored it"), "{text}");
}

#[test]
fn a_blind_retry_misroutes_again_and_sends_below_the_fence() {
    let blind = |map: &mut Vec<Route>, c: &mut Cluster, s: usize, k: &str| {
        let r = map[s].clone();
        while c.send(&r.node, s, r.epoch, k) != NodeReply::Stored {}
    };
    let m = failure(&stale_router(blind).one_misroute_per_move());
    assert!(m.contains("a second misroute for one move") && m.contains("shard 0 moves to B (revision 2)"), "{m}");
    let f = failure(&stale_router(blind).never_below_fence());
    assert!(f.contains("carries epoch 1, below the fence 2"), "{f}");
    // and it never returns: the cluster stops it, which is a failure too
    let l = failure(&stale_router(blind).no_lost_write());
    assert!(l.contains("your function panicked: 16 calls for one write"), "{l}");
}

#[test]
fn reading_before_every_request_is_refused() {
    let reads_first = |map: &mut Vec<Route>, c: &mut Cluster, s: usize, k: &str| loop {
        map[s] = c.read_entry(s);
        let r = map[s].clone();
        if c.send(&r.node, s, r.epoch, k) == NodeReply::Stored {
            return;
        }
    };
    // never a stale reply, nothing lost: only the reads give it away, on the first trace
    assert!(stale_router(reads_first).no_lost_write().passed());
    assert!(stale_router(reads_first).never_below_fence().passed());
    assert_eq!(
        failure(&stale_router(reads_first).one_misroute_per_move()),
        "1 shard on nodes A, B (shard s on node s % 2, the map at revision 1, every epoch 1); then write k0 to \
         shard 0 | read_entry(0) → A, epoch 1 | read_entry(0) before any stale reply: a router reads the store \
         only when a node answers that its map is stale (a read per request would cost the store as many reads \
         as the nodes get writes)"
    );
}

#[test]
fn forged_tokens_and_other_nodes_lose_writes() {
    // the cached node, with a token no fence refuses
    let forged = |map: &mut Vec<Route>, c: &mut Cluster, s: usize, k: &str| {
        let r = map[s].clone();
        c.send(&r.node, s, u64::MAX, k);
    };
    let f = failure(&stale_router(forged).never_below_fence());
    assert!(f.contains("then write k0 to shard 0 |") && f.contains("was never shard 0's (it has had 1)"), "{f}");
    let l = failure(&stale_router(forged).no_lost_write());
    assert!(
        l.contains("shard 0 moves to B (revision 2)") && l.contains("is not at B, shard 0's owner: it is at A"),
        "{l}"
    );
    // every node in turn until one stores it: a node that never held the shard has no fence for it
    let any_node = |map: &mut Vec<Route>, c: &mut Cluster, s: usize, k: &str| loop {
        let r = map[s].clone();
        for n in ["A", "B", "C"].iter().take(if map.len() > 100 { 0 } else { 3 }) {
            if c.send(n, s, r.epoch, k) == NodeReply::Stored {
                return;
            }
        }
        map[s] = c.read_entry(s);
    };
    let l = failure(&stale_router(any_node).no_lost_write());
    assert!(l.contains("your function panicked: there is no node \"C\"") || l.contains("it is at"), "{l}");
}

#[test]
fn a_refresh_the_retry_does_not_use_misroutes() {
    let stale_copy = |map: &mut Vec<Route>, c: &mut Cluster, s: usize, k: &str| {
        let r = map[s].clone(); // read once, before the loop: the refresh never reaches it
        loop {
            match c.send(&r.node, s, r.epoch, k) {
                NodeReply::Stored => return,
                NodeReply::Stale { .. } => *map = c.read_map(),
            }
        }
    };
    let m = failure(&stale_router(stale_copy).one_misroute_per_move());
    assert!(m.contains("read_map() → the map at revision 2; send(A, shard 0, epoch 1"), "{m}");
    assert!(m.contains("a second misroute for one move"), "{m}");
}

static CALLS: AtomicUsize = AtomicUsize::new(0);

#[test]
fn a_router_that_changes_with_time_is_not_deterministic() {
    // right on every write, but it refreshes the whole map or one entry by the parity of a counter
    let moody = |map: &mut Vec<Route>, c: &mut Cluster, s: usize, k: &str| loop {
        let r = map[s].clone();
        match c.send(&r.node, s, r.epoch, k) {
            NodeReply::Stored => return,
            NodeReply::Stale { .. } if CALLS.fetch_add(1, Ordering::Relaxed).is_multiple_of(2) => *map = c.read_map(),
            NodeReply::Stale { .. } => map[s] = c.read_entry(s),
        }
    };
    for r in all(|i| stale_router(moody).check(i)).into_iter().take(3) {
        assert!(r.passed(), "{r}");
    }
    let d = failure(&stale_router(moody).determinism());
    assert!(d.contains("the same trace, run twice in a row, made another call here"), "{d}");
}

#[test]
fn a_todo_stub_fails_every_invariant_quietly() {
    for r in all(|i| stale_router(|_: &mut Vec<Route>, _: &mut Cluster, _: usize, _: &str| todo!()).check(i)) {
        assert!(!r.passed());
        assert!(failure(&r).contains("your function panicked: not yet implemented"), "{r}");
        assert!(r.to_string().lines().all(|l| l.chars().count() <= 100), "{r}");
    }
}
