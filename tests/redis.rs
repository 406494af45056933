//! A real Redis Cluster: the crate predicts redis-cli's rebalance and
//! reshard exactly, and leaves no server or directory behind — after a
//! normal drop, a panic, or the owning process being killed.
//!
//! Needs `redis-server` and `redis-cli` on PATH (`apt-get install
//! redis-server`). Without them every test here says so and passes, unless
//! `CI=true`, where a missing Redis fails the run.
#![cfg(feature = "redis")]

use reshard::live::{process_alive, redis_version};
use reshard::live::{RedisCluster, Snapshot};
use reshard::{Error, HashWidth, KeySet, Movement, Placement, Slots};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// False (after saying why) when Redis is not installed and this is not CI.
fn redis_here() -> bool {
    match redis_version() {
        Ok(_) => true,
        Err(e @ Error::RedisMissing { .. }) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI=true but {e}");
            }
            eprintln!("skipped: {e}");
            false
        }
        Err(e) => panic!("{e}"),
    }
}

/// Every server process and directory of a cluster.
fn footprint(c: &RedisCluster) -> Vec<(u32, PathBuf)> {
    c.names().iter().map(|n| (c.pid(n).unwrap(), c.dir(n).unwrap())).collect()
}

/// Wait (up to 10 s) until none of these processes or directories exists.
fn assert_gone(left: &[(u32, PathBuf)]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let alive: Vec<&(u32, PathBuf)> =
            left.iter().filter(|(pid, dir)| process_alive(*pid) || dir.exists()).collect();
        if alive.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "left behind: {alive:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn grow_and_shrink_exactly_as_predicted() {
    if !redis_here() {
        return;
    }
    let keys = KeySet::users(20_000);
    let hashed = keys.hashed(HashWidth::Bits32).unwrap();
    let mut cluster = RedisCluster::start(["A", "B", "C"]).unwrap();
    let mut left = footprint(&cluster);
    assert_eq!(cluster.slots().unwrap().ordered_as(cluster.names()).unwrap(), Slots::named(["A", "B", "C"]).unwrap());

    let loaded = cluster.load(&keys).unwrap();
    assert_eq!((loaded.ok, loaded.redirected, loaded.errors), (20_000, 0, 0));
    let before = cluster.snapshot().unwrap();
    assert_eq!(before.keys(), 20_000);
    assert_eq!(
        before.keys_per_node(),
        Movement::measure(&hashed, before.slots(), before.slots()).unwrap().load_after()
    );

    // Grow: D joins empty, then rebalance. Predict from the live table.
    cluster.add_node("D").unwrap();
    let new: Vec<_> = footprint(&cluster).into_iter().filter(|f| !left.contains(f)).collect();
    left.extend(new);
    let table = cluster.slots().unwrap();
    let plan = table.rebalance(true).unwrap();
    let run = cluster.rebalance(100).unwrap();
    let said: Vec<(String, String, usize)> =
        plan.moves().iter().map(|m| (m.from.clone(), m.to.clone(), m.slots.len())).collect();
    assert_eq!(run.moves(), said, "redis-cli printed other moves:\n{}", run.output);
    let after = cluster.snapshot().unwrap();
    let names = cluster.names();
    assert_eq!(after.slots(), &plan.after().ordered_as(names.clone()).unwrap());
    assert_eq!(plan.before().remove_node("D").unwrap().ordered_as(["A", "B", "C"]).unwrap(), *before.slots());
    check(&hashed, &before, &after, plan.after(), &names);
    let sample = cluster.sample(&keys, 97, after.slots()).unwrap();
    assert_eq!(sample.len(), 20_000usize.div_ceil(97));
    let tables =
        reshard::tutor::Checks::slot_tables("tables", plan.after(), after.slots(), after.keys_per_node(), &hashed)
            .unwrap();
    assert!(tables.all_match(), "{}", tables.table());
    let moves = reshard::tutor::Checks::slot_moves("moves", &plan, before.slots(), after.slots());
    assert!(moves.all_match(), "{}", moves.table());
    let checks = reshard::tutor::Checks::sampled("sampled keys", &sample);
    assert!(checks.all_match(), "{}", checks.table());
    let steps = reshard::tutor::Checks::plan_steps("steps", &plan, &run.moves());
    assert!(steps.all_match(), "{}", steps.table());

    // Shrink: B's slots go to the others, then B leaves.
    let table = cluster.slots().unwrap();
    let drain = table.drain("B", &["A", "C", "D"]).unwrap();
    for m in drain.moves() {
        cluster.reshard(&m.from, &m.to, m.slots.len(), 100).unwrap();
    }
    cluster.del_node("B").unwrap();
    let gone = cluster.snapshot().unwrap();
    let names = cluster.names();
    assert_eq!(gone.slots(), &drain.after().ordered_as(names.clone()).unwrap());
    check(&hashed, &after, &gone, drain.after(), &names);
    assert_eq!(gone.keys(), 20_000);

    drop(cluster);
    assert_gone(&left);
}

/// The observed movement between two snapshots equals the predicted one.
/// `a` is the table read before the change, `pb` the predicted one after.
fn check(keys: &reshard::HashedKeys, a: &Snapshot, b: &Snapshot, pb: &Slots, names_after: &[String]) {
    let predicted = Movement::measure(keys, a.slots(), &pb.ordered_as(names_after.to_vec()).unwrap()).unwrap();
    let observed = a.movement_to(b).unwrap();
    assert_eq!(predicted, observed);
    // DBSIZE of every node = the keys the crate places there.
    let load = predicted.load_after();
    for (name, &dbsize) in b.slots().nodes().iter().zip(b.keys_per_node()) {
        let i = predicted.nodes().iter().position(|n| n == name).unwrap();
        assert_eq!(dbsize, load[i], "keys on {name}");
    }
}

#[test]
fn a_panic_stops_every_server() {
    if !redis_here() {
        return;
    }
    let left = std::sync::Mutex::new(Vec::new());
    let result = std::panic::catch_unwind(|| {
        let cluster = RedisCluster::start(["A", "B", "C"]).unwrap();
        left.lock().unwrap().extend(footprint(&cluster));
        panic!("a failing cell");
    });
    assert!(result.is_err());
    let left = left.into_inner().unwrap();
    assert_eq!(left.len(), 3);
    assert_gone(&left);
}

/// Run by `the_owner_killed_leaves_nothing` in a child process: start a
/// cluster, print its footprint, wait to be killed.
#[test]
#[ignore = "run by the_owner_killed_leaves_nothing in a child process"]
fn child_holds_a_cluster() {
    if std::env::var("RESHARD_REDIS_CHILD").is_err() {
        return;
    }
    let cluster = RedisCluster::start(["A", "B", "C"]).unwrap();
    let parts: Vec<String> = footprint(&cluster).iter().map(|(p, d)| format!("{p}={}", d.display())).collect();
    println!("FOOTPRINT {}", parts.join(" "));
    std::thread::sleep(Duration::from_secs(120));
}

#[test]
fn the_owner_killed_leaves_nothing() {
    if !redis_here() {
        return;
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_holds_a_cluster", "--ignored", "--nocapture", "--test-threads=1"])
        .env("RESHARD_REDIS_CHILD", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut left = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        // libtest prints "test child_holds_a_cluster ... " before it.
        if let Some((_, rest)) = line.split_once("FOOTPRINT ") {
            for part in rest.split_whitespace() {
                let (pid, dir) = part.split_once('=').unwrap();
                left.push((pid.parse::<u32>().unwrap(), PathBuf::from(dir)));
            }
            break;
        }
    }
    assert_eq!(left.len(), 3, "the child did not start its cluster");
    assert!(left.iter().all(|(p, d)| process_alive(*p) && d.exists()));
    child.kill().unwrap(); // SIGKILL: no destructor runs
    child.wait().unwrap();
    assert_gone(&left);
}

#[test]
fn a_missing_redis_says_how_to_install_it() {
    let e = Error::RedisMissing { program: "redis-server" };
    let text = e.to_string();
    assert!(text.contains("apt-get install redis-server") && text.contains("brew install redis"), "{text}");
}
