//! A real Redis Cluster: the crate predicts redis-cli's rebalance and
//! reshard exactly, and leaves no server or directory behind — after a
//! normal drop, a panic, or the owning process being killed.
//!
//! Needs `redis-server` and `redis-cli` on PATH (`apt-get install
//! redis-server`). Without them every test here says so and passes, unless
//! `CI=true`, where a missing Redis fails the run.
#![cfg(feature = "redis")]

#[path = "common/bytes.rs"]
mod bytes;
#[path = "common/holder.rs"]
mod holder;

use reshard::live::{process_alive, redis_version};
use reshard::live::{RedisCluster, Snapshot};
use reshard::{Error, HashWidth, KeySet, Movement, Placement, Slots};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// False (after saying why) when Redis is not installed and this is not CI.
fn redis_here() -> bool {
    holder::installed(redis_version())
}

/// Every server process and directory of a cluster.
fn footprint(c: &RedisCluster) -> Vec<(u32, PathBuf)> {
    c.names().iter().map(|n| (c.pid(n).unwrap(), c.dir(n).unwrap())).collect()
}

use holder::assert_gone;

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
    let migrates = |c: &RedisCluster, n: &str| c.command_calls(n, "MIGRATE").unwrap();
    let ran_before: Vec<u64> = ["A", "B", "C"].iter().map(|n| migrates(&cluster, n)).collect();
    let run = cluster.rebalance(100).unwrap();
    // redis-cli sends one MIGRATE per slot that holds keys (no slot holds 100 here), as the
    // servers' own key counts per slot (CLUSTER COUNTKEYSINSLOT, before) say.
    assert!(before.keys_per_slot().iter().all(|&k| k <= 100));
    let cost = reshard::analysis::Migrations::of(&plan, &hashed, 100).unwrap();
    for (i, n) in ["A", "B", "C"].iter().enumerate() {
        let full = plan.moves().iter().filter(|m| m.from == *n).flat_map(|m| &m.slots);
        let expected = full.filter(|&&s| before.keys_per_slot()[usize::from(s)] > 0).count() as u64;
        assert_eq!(migrates(&cluster, n) - ran_before[i], expected, "MIGRATEs run by {n}");
        assert_eq!(cost.calls_from(n), expected, "MIGRATEs predicted for {n}");
    }
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
    let ran_before = migrates(&cluster, "B");
    for m in drain.moves() {
        cluster.reshard(&m.from, &m.to, m.slots.len(), 1).unwrap(); // one key per MIGRATE
    }
    // At --cluster-pipeline 1, B runs one MIGRATE per key it holds: its DBSIZE before.
    let b_keys = after.keys_per_node()[after.slots().nodes().iter().position(|n| n == "B").unwrap()];
    assert_eq!(migrates(&cluster, "B") - ran_before, b_keys);
    assert_eq!(reshard::analysis::Migrations::of(&drain, &hashed, 1).unwrap().calls(), b_keys);
    cluster.del_node("B").unwrap();
    let again = cluster.del_node("B").unwrap_err().to_string();
    assert!(again.contains("node B is not in the cluster any more: del_node removed it"), "{again}");
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

/// Keys holding every byte value, read from a key dump, go into a Redis
/// Cluster with their own bytes: each lands in the slot the crate computes
/// from those bytes (Redis's CLUSTER KEYSLOT says the same), on the node that
/// serves it, and GET finds it there.
#[test]
fn a_key_keeps_every_byte_in_the_cluster() {
    if !redis_here() {
        return;
    }
    bytes::check_the_file_leg();
    let (keys, raw) = (bytes::keys(), bytes::bytes());
    let cluster = RedisCluster::start(["A", "B", "C"]).unwrap();
    let loaded = cluster.load(&keys).unwrap();
    assert_eq!((loaded.ok, loaded.redirected, loaded.errors), (raw.len() as u64, 0, 0), "{loaded:?}");
    let seen = cluster.snapshot().unwrap();
    assert_eq!(seen.keys(), raw.len() as u64);
    let predicted = reshard::LoadReport::measure(&keys.hashed(HashWidth::Bits32).unwrap(), seen.slots()).unwrap();
    assert_eq!(predicted.counts(), seen.keys_per_node());
    let sample = cluster.sample(&keys, 1, seen.slots()).unwrap();
    assert_eq!(sample.len(), raw.len());
    for (s, k) in sample.iter().zip(&raw) {
        assert_eq!(s.slot, Some(reshard::key_slot(k)), "{}", s.key);
        assert_eq!(s.answered_by, s.asked, "{}", s.key);
        assert_eq!(s.key, reshard::keys::escape(k));
    }
    // a huge key set is refused before anything is sent
    assert!(matches!(cluster.load(&KeySet::plain(usize::MAX)), Err(Error::TooLarge { .. })));
    assert!(matches!(RedisCluster::start(std::iter::repeat("A")), Err(Error::TooLarge { .. })));
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
    holder::print_and_wait(&footprint(&cluster));
}

#[test]
fn the_owner_killed_leaves_nothing() {
    if !redis_here() {
        return;
    }
    let (mut child, left) = holder::start_holder("child_holds_a_cluster", "RESHARD_REDIS_CHILD");
    assert_eq!(left.len(), 3, "the child did not start its cluster");
    assert!(left.iter().all(|(p, d)| process_alive(*p) && d.exists()));
    child.kill().unwrap(); // SIGKILL: no destructor runs
    child.wait().unwrap();
    assert_gone(&left);
}

/// Run by `a_missing_redis_says_how_to_install_it` with `PATH` emptied.
#[test]
#[ignore = "run by a_missing_redis_says_how_to_install_it in a child process"]
fn child_without_path() {
    if std::env::var("RESHARD_NO_PATH_CHILD").is_ok() {
        println!("ERROR {:?} {}", redis_version().is_err(), redis_version().unwrap_or_else(|e| e.to_string()));
    }
}

#[test]
fn a_missing_redis_says_how_to_install_it() {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_without_path", "--ignored", "--nocapture", "--test-threads=1"])
        .env("RESHARD_NO_PATH_CHILD", "1")
        .env("PATH", "/reshard-nonexistent")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find_map(|l| l.split_once("ERROR ").map(|x| x.1)).expect("the child printed its error");
    assert!(line.starts_with("true redis-server was not found on PATH"), "{line}");
    assert!(line.contains("apt-get install redis-server") && line.contains("brew install redis"), "{line}");
}

/// Send `signal` (`"STOP"`, `"KILL"`) to a process, with `kill` (outside
/// the crate).
fn signal(pid: u32, signal: &str) {
    assert!(Command::new("kill").args([&format!("-{signal}"), &pid.to_string()]).status().unwrap().success());
}

#[test]
fn a_stopped_node_is_named_within_the_stated_timeout() {
    if !redis_here() {
        return;
    }
    let keys = KeySet::users(3_000);
    let mut cluster = RedisCluster::start(["A", "B", "C"]).unwrap();
    assert_eq!(cluster.reply_timeout(), Duration::from_secs(10));
    cluster.load(&keys).unwrap();
    let left = footprint(&cluster);
    let limit = Duration::from_millis(400);
    cluster.set_reply_timeout(limit).unwrap();
    assert!(matches!(cluster.set_reply_timeout(Duration::ZERO), Err(Error::OutOfRange { what: "reply timeout", .. })));
    let port = cluster.port("B").unwrap();
    signal(cluster.pid("B").unwrap(), "STOP");
    type Call<'a> = (&'a str, Box<dyn Fn() -> Result<(), Error> + 'a>);
    let calls: [Call; 3] = [
        ("load", Box::new(|| cluster.load(&keys).map(drop))),
        ("snapshot", Box::new(|| cluster.snapshot().map(drop))),
        ("command", Box::new(|| cluster.command("B", &["PING"]).map(drop))),
    ];
    for (what, call) in calls {
        let t0 = Instant::now();
        let err = call().unwrap_err();
        let took = t0.elapsed();
        eprintln!("{what} after {took:?}: {err}");
        match &err {
            Error::ServerTimeout { node, port: p, waited, .. } => {
                assert_eq!((node.as_str(), *p, *waited), ("B", port, limit), "{what}: {err}")
            }
            other => panic!("{what}: not a timeout: {other:?}"),
        }
        assert!(err.to_string().contains(&format!("B (127.0.0.1:{port}) did not answer")), "{what}: {err}");
        assert!(err.to_string().contains("within 0.4 s"), "{what}: {err}");
        // The message tells the truth: it waited that long, and not much more.
        assert!(took >= limit && took < limit + Duration::from_secs(3), "{what} took {took:?}");
    }
    // Dropping a cluster with a stopped node stops it too, and fast.
    let t0 = Instant::now();
    drop(cluster);
    assert!(t0.elapsed() < Duration::from_secs(5), "drop took {:?}", t0.elapsed());
    assert_gone(&left);
}

#[test]
fn a_killed_node_is_named_by_every_call() {
    if !redis_here() {
        return;
    }
    let keys = KeySet::users(3_000);
    let mut cluster = RedisCluster::start(["A", "B", "C"]).unwrap();
    let left = footprint(&cluster);
    let (pid, port) = (cluster.pid("C").unwrap(), cluster.port("C").unwrap());
    signal(pid, "KILL");
    let deadline = Instant::now() + Duration::from_secs(5);
    while process_alive(pid) {
        assert!(Instant::now() < deadline, "kill -KILL {pid} did not end it");
        std::thread::sleep(Duration::from_millis(10));
    }
    let named = |what: &str, e: Error| {
        let text = e.to_string();
        eprintln!("{what}: {text}");
        assert!(matches!(&e, Error::ServerFailed { node, port: p, .. } if node == "C" && *p == port), "{what}: {e:?}");
        assert!(text.starts_with(&format!("C (127.0.0.1:{port})")), "{what}: {text}");
        text
    };
    let t0 = Instant::now();
    named("load", cluster.load(&keys).unwrap_err());
    named("snapshot", cluster.snapshot().unwrap_err());
    assert!(named("slots", cluster.slots().unwrap_err()).contains("its 5461 slots have no running node"));
    assert!(named("del_node", cluster.del_node("C").unwrap_err()).contains("has exited"));
    assert!(t0.elapsed() < Duration::from_secs(5), "the errors took {:?}", t0.elapsed());
    // An I/O error keeps its source.
    let refused = cluster.command("C", &["PING"]).unwrap_err();
    named("command", refused.clone());
    let source = std::error::Error::source(&refused).expect("a source");
    let io = source.downcast_ref::<std::io::Error>().expect("an io::Error");
    use std::io::ErrorKind::{ConnectionRefused, ConnectionReset};
    assert!(matches!(io.kind(), ConnectionRefused | ConnectionReset), "{io:?}");
    drop(cluster);
    assert_gone(&left);
}

/// The `redis-cli` processes (pid) whose command line has `--cluster` and
/// that descend from process `ancestor`, read from `/proc`.
fn redis_cli_under(ancestor: u32) -> Vec<u32> {
    let parent = |pid: u32| -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat.rsplit(')').next()?.split_whitespace().nth(1)?.parse().ok()
    };
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if !cmd.contains("redis-cli") || !cmd.contains("--cluster") || cmd.starts_with("sh ") {
            continue;
        }
        let mut p = Some(pid);
        for _ in 0..6 {
            p = p.and_then(parent);
            if p == Some(ancestor) {
                out.push(pid);
                break;
            }
        }
    }
    out
}

/// Run by `the_owner_killed_stops_its_redis_cli` in a child process.
#[test]
#[ignore = "run by the_owner_killed_stops_its_redis_cli in a child process"]
fn child_forms_a_cluster() {
    if std::env::var("RESHARD_REDIS_CHILD").is_err() {
        return;
    }
    println!("STARTING");
    let _cluster = RedisCluster::start(["A", "B", "C"]).unwrap();
    std::thread::sleep(Duration::from_secs(120));
}

#[test]
fn the_owner_killed_stops_its_redis_cli() {
    if !redis_here() {
        return;
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_forms_a_cluster", "--ignored", "--nocapture", "--test-threads=1"])
        .env("RESHARD_REDIS_CHILD", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Catch `redis-cli --cluster create` while it runs.
    let deadline = Instant::now() + Duration::from_secs(30);
    let cli = loop {
        if let Some(&p) = redis_cli_under(child.id()).first() {
            break p;
        }
        assert!(Instant::now() < deadline, "no redis-cli --cluster create seen");
        std::thread::sleep(Duration::from_millis(2));
    };
    child.kill().unwrap(); // SIGKILL: no destructor runs
    child.wait().unwrap();
    let t0 = Instant::now();
    while process_alive(cli) {
        assert!(t0.elapsed() < Duration::from_secs(1), "redis-cli {cli} outlived its owner by 1 s");
        std::thread::sleep(Duration::from_millis(5));
    }
}
