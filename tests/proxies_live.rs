//! Real proxies on this machine: twemproxy (nutcracker) over redis-server
//! backends, and nginx with a `hash $request_body` upstream. Every key lands on
//! exactly one backend, a fourth server moves some keys, an ejected backend's
//! keys go elsewhere, and nothing is left behind — after a drop, a panic, or
//! the owning process being killed.
//!
//! Needs `nutcracker`, `nginx` and `redis-server` (`apt-get install
//! nutcracker nginx redis-server`). Without them every test here says so and
//! passes, unless `CI=true`, where a missing program fails the run.
#![cfg(feature = "proxies")]

#[path = "common/bytes.rs"]
mod bytes;
#[path = "common/holder.rs"]
mod holder;

use reshard::live::redis::process_alive;
use reshard::live::{nginx_version, nutcracker_version, Nginx, NginxConfig, Observed, RedisCluster};
use reshard::live::{Nutcracker, NutcrackerConfig};
use reshard::{Error, HashWidth, Key, KeySet, Locate, NginxHash, Twemproxy};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// False (after saying why) when a program is missing and this is not CI.
fn proxies_here() -> bool {
    holder::installed(nutcracker_version().and_then(|_| nginx_version()))
}

use holder::assert_gone;

/// `redis-cli -p port args…`, trimmed: an answer from outside the crate.
fn redis_cli(port: u16, args: &[&str]) -> String {
    let out = Command::new("redis-cli").args(["-h", "127.0.0.1", "-p", &port.to_string()]).args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `curl` a URL, POSTing `body` as it is: an answer from outside the crate.
fn curl(url: &str, body: &str) -> String {
    let out = Command::new("curl").args(["-s", "--data-binary", body, url]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every key on exactly one backend, and the counts add up.
fn one_each(o: &Observed, keys: usize) {
    assert_eq!(o.len(), keys);
    assert_eq!((o.nowhere(), o.on_several(), o.errors().0), (0, 0, 0), "{o}");
    assert_eq!(o.counts().iter().map(|c| c.1).sum::<u64>(), keys as u64);
    assert!(o.counts().iter().all(|c| c.1 > 0), "a backend got no key: {o}");
}

#[test]
fn twemproxy_stores_each_key_once_and_a_fourth_server_takes_some() {
    if !proxies_here() {
        return;
    }
    let keys = KeySet::users(2_000);
    let config = NutcrackerConfig::named(["A", "B", "C"]).unwrap();
    let mut proxy = Nutcracker::start(&config).unwrap();
    let written = proxy.set_keys(&keys).unwrap();
    assert_eq!((written.ok, written.errors), (2_000, 0));
    let stored = proxy.where_stored(&keys).unwrap();
    one_each(&stored, 2_000);
    // DBSIZE, asked by redis-cli, agrees with what the driver read.
    for (name, count) in stored.counts() {
        assert_eq!(redis_cli(proxy.backend_port(&name).unwrap(), &["DBSIZE"]), count.to_string(), "{name}");
    }
    // A GET goes where the SET went; redis-cli through the proxy reads it.
    let routed = proxy.where_routed(&keys).unwrap();
    assert_eq!(routed.assignment().unwrap(), stored.assignment().unwrap());
    assert_eq!(redis_cli(proxy.port(), &["GET", "user:1234"]), "1234");

    // D joins: nutcracker restarts, the backends keep their keys.
    proxy.restart_with(&config.add_server("D", 1).unwrap()).unwrap();
    assert_eq!(proxy.backends(), ["A", "B", "C", "D"]);
    let still = proxy.where_stored(&keys).unwrap();
    assert_eq!(still.assignment().unwrap(), stored.assignment().unwrap());
    let now = proxy.where_routed(&keys).unwrap();
    one_each(&now, 2_000);
    let moved = stored.movement_to(&now).unwrap();
    // ketama adds D's points and nothing else: keys move to D only, about a quarter.
    let d = now.counts()[3].1;
    assert_eq!(moved.moved(), d);
    assert!((300..=700).contains(&d), "{d} of 2,000 keys moved to D");
    // Writing again: the moved keys now sit on D as well as their old backend.
    proxy.set_keys(&keys).unwrap();
    assert_eq!(proxy.where_stored(&keys).unwrap().on_several(), d);
    // Flushed and written again, every key is once more on one backend, as routed.
    proxy.flush().unwrap();
    proxy.set_keys(&keys).unwrap();
    assert_eq!(proxy.where_stored(&keys).unwrap().assignment().unwrap(), now.assignment().unwrap());

    let left = proxy.footprint();
    assert_eq!(left.len(), 5);
    drop(proxy);
    assert_gone(&left);
}

#[test]
fn twemproxy_serves_the_old_copy_once_a_joined_server_leaves() {
    if !proxies_here() {
        return;
    }
    let keys = KeySet::users(2_000);
    let config = NutcrackerConfig::named(["A", "B", "C"]).unwrap();
    let mut proxy = Nutcracker::start(&config).unwrap();
    assert_eq!(proxy.write_version(&keys, 1).unwrap().ok, 2_000);
    let before = proxy.where_stored(&keys).unwrap();
    let latest = |v: u32| vec![v; 2_000];
    let all = proxy.read_versions(&keys).unwrap().against(&latest(1)).unwrap();
    assert_eq!((all.fresh(), all.missed(), all.stale()), (2_000, 0, 0));
    // D joins: what it takes misses; version 2 of every key goes where the proxy sends it now.
    proxy.restart_with(&config.add_server("D", 1).unwrap()).unwrap();
    let routed = proxy.where_routed(&keys).unwrap();
    let moved = before.movement_to(&routed).unwrap().moved();
    let joined = proxy.read_versions(&keys).unwrap().against(&latest(1)).unwrap();
    assert_eq!((joined.missed(), joined.fresh()), (moved, 2_000 - moved));
    proxy.write_version(&keys, 2).unwrap();
    // D leaves: the keys it took are read from their old backend, which kept version 1.
    proxy.restart_with(&config).unwrap();
    let left = proxy.read_versions(&keys).unwrap();
    let reads = left.against(&latest(2)).unwrap();
    assert_eq!((reads.stale(), reads.missed(), reads.fresh(), left.errors().0), (moved, 0, 2_000 - moved, 0));
    // redis-cli, through the proxy, reads one moved key's old value
    let i = (0..2_000).find(|&i| routed.owner(i) == Some("D")).unwrap();
    assert_eq!(redis_cli(proxy.port(), &["GET", &keys.key(i)]), "1");
    // a value that is not a version is a failed read, not a hit
    assert_eq!(redis_cli(proxy.port(), &["SET", &keys.key(0), "x"]), "OK");
    assert_eq!(proxy.read_versions(&keys).unwrap().errors().0, 1);
    assert!(proxy.write_version(&keys, 0).is_err());
}

#[test]
fn twemproxy_ejects_a_stopped_backend() {
    if !proxies_here() {
        return;
    }
    let keys = KeySet::users(2_000);
    let config = NutcrackerConfig::named(["A", "B", "C"]).unwrap().with_auto_eject(1, 60_000).unwrap();
    let mut proxy = Nutcracker::start(&config).unwrap();
    let before = proxy.where_routed(&keys).unwrap();
    one_each(&before, 2_000);
    proxy.stop_backend("B").unwrap();
    assert!(!proxy.is_running("B").unwrap());
    // Until B is ejected its keys get errors; then they go elsewhere.
    let mut after = proxy.where_routed(&keys).unwrap();
    for _ in 0..20 {
        if after.errors().0 == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        after = proxy.where_routed(&keys).unwrap();
    }
    assert_eq!(after.errors().0, 0, "B never ejected: {after}\n{}", proxy.log(10));
    assert_eq!(after.counts()[1].1, 0);
    assert_eq!(after.nowhere(), 0);
    for i in 0..keys.len() {
        if before.owner(i) != Some("B") {
            assert_eq!(after.owner(i), before.owner(i), "key {i} moved though its backend is up");
        }
    }
    // nutcracker's own count (its stats refresh every second).
    let ejects = |text: &str| -> u64 {
        let at = text.find("\"server_ejects\":").expect("a server_ejects field") + "\"server_ejects\":".len();
        text[at..].trim_start().split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while ejects(&proxy.stats().unwrap()) == 0 {
        assert!(Instant::now() < deadline, "no ejection counted:\n{}", proxy.stats().unwrap());
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn nginx_answers_each_key_from_one_backend_and_a_fourth_server_takes_some() {
    if !proxies_here() {
        return;
    }
    let keys = KeySet::users(2_000);
    let config = NginxConfig::named(["A", "B", "C"]).unwrap();
    let mut nginx = Nginx::start(&config).unwrap();
    let before = nginx.where_answered(&keys).unwrap();
    one_each(&before, 2_000);
    assert_eq!(nginx.where_answered(&keys).unwrap().assignment().unwrap(), before.assignment().unwrap());
    // curl agrees, key by key, on a sample.
    for i in (0..2_000).step_by(199) {
        let url = format!("http://127.0.0.1:{}/", nginx.port());
        assert_eq!(Some(curl(&url, &format!("user:{i}")).as_str()), before.owner(i), "user:{i}");
    }
    let servers = nginx.upstream_servers();
    assert_eq!(servers[1].2, 1);
    assert_eq!(servers[1].1, format!("127.0.0.1:{}", nginx.backend_port("B").unwrap()));
    let master = nginx.footprint()[0].0;

    nginx.reload_with(&config.add_server("D", 1).unwrap()).unwrap();
    assert_eq!(nginx.footprint()[0].0, master, "a reload keeps the master");
    let after = nginx.where_answered(&keys).unwrap();
    one_each(&after, 2_000);
    let moved = before.movement_to(&after).unwrap();
    let d = after.counts()[3].1;
    assert_eq!(moved.moved(), d, "with a consistent hash keys move to D only");
    assert!((300..=700).contains(&d), "{d} of 2,000 keys moved to D");

    // Without `consistent`, hash % total weight: most keys move.
    let plain = config.clone().consistent(false);
    nginx.reload_with(&plain).unwrap();
    let three = nginx.where_answered(&keys).unwrap();
    nginx.reload_with(&plain.add_server("D", 1).unwrap()).unwrap();
    let four = nginx.where_answered(&keys).unwrap();
    one_each(&four, 2_000);
    let plain_moved = three.movement_to(&four).unwrap().moved();
    assert!(plain_moved > 1_000, "{plain_moved} of 2,000 keys moved");

    let left = nginx.footprint();
    assert!(left.len() >= 2, "a master and a worker: {left:?}");
    drop(nginx);
    assert_gone(&left);
}

/// Keys holding every byte value (NUL, newline, `\\`, bytes that are not
/// UTF-8, text that spells an escape), read from a key dump, go through
/// twemproxy with their own bytes: each is stored, and routed, on the
/// backend the crate's scheme names for those bytes, and no two keys meet.
#[test]
fn twemproxy_keeps_every_byte_of_a_key() {
    if !proxies_here() {
        return;
    }
    bytes::check_the_file_leg();
    let (keys, raw) = (bytes::keys(), bytes::bytes());
    let names = ["A", "B", "C"];
    let scheme = Twemproxy::named(names).unwrap();
    let predicted: Vec<&str> = raw.iter().map(|k| scheme.owner(Key::new(k, HashWidth::Bits32))).collect();
    let proxy = Nutcracker::start(&NutcrackerConfig::from_scheme(&scheme).unwrap()).unwrap();
    let written = proxy.set_keys(&keys).unwrap();
    assert_eq!((written.ok, written.errors), (raw.len() as u64, 0), "{written:?}");
    let stored = proxy.where_stored(&keys).unwrap();
    let routed = proxy.where_routed(&keys).unwrap();
    for (i, want) in predicted.iter().enumerate() {
        let key = reshard::keys::escape(&raw[i]);
        assert_eq!(stored.holders(i), [*want], "stored: {key}");
        assert_eq!(routed.holders(i), [*want], "routed: {key}");
    }
    // back out: the observation holds the same bytes
    assert_eq!(stored.keys(), &keys);
    let mut w = stored.keys().writer();
    assert!((0..raw.len()).all(|i| w.key(i) == raw[i].as_slice()));
    // the backends hold exactly these keys, nothing spelled another way
    let total: u64 = stored.counts().iter().map(|c| c.1).sum();
    assert_eq!(total, raw.len() as u64);
    let dbsize: u64 =
        names.iter().map(|n| redis_cli(proxy.backend_port(n).unwrap(), &["DBSIZE"]).parse::<u64>().unwrap()).sum();
    assert_eq!(dbsize, raw.len() as u64);
}

/// The same keys through nginx: each answered by the server the crate's
/// `NginxHash` names for its bytes, with `consistent` and without.
#[test]
fn nginx_keeps_every_byte_of_a_key() {
    if !proxies_here() {
        return;
    }
    let (keys, raw) = (bytes::keys(), bytes::bytes());
    let config = NginxConfig::named(["A", "B", "C"]).unwrap();
    let mut nginx = Nginx::start(&config).unwrap();
    for consistent in [true, false] {
        if !consistent {
            nginx.reload_with(&config.clone().consistent(false)).unwrap();
        }
        let upstream = nginx.upstream_servers();
        let addresses: Vec<String> = upstream.iter().map(|u| u.1.clone()).collect();
        let ring = NginxHash::named(addresses.clone()).unwrap().with_consistent(consistent);
        let answered = nginx.where_answered(&keys).unwrap();
        assert_eq!(answered.errors().0, 0, "{answered}");
        for (i, k) in raw.iter().enumerate() {
            let at = addresses.iter().position(|a| a == ring.owner(Key::new(k, HashWidth::Bits32))).unwrap();
            let key = reshard::keys::escape(k);
            assert_eq!(answered.owner(i), Some(upstream[at].0.as_str()), "consistent {consistent}: {key}");
        }
    }
    // a key over the body nginx keeps in memory is refused, named
    let long = KeySet::from_keys([vec![b'x'; (1 << 20) + 1]]).unwrap();
    assert!(matches!(nginx.where_answered(&long), Err(Error::TooLarge { .. })));
}

#[test]
fn a_backend_killed_from_outside_is_named() {
    if !proxies_here() {
        return;
    }
    let keys = KeySet::users(500);
    let proxy = Nutcracker::start(&NutcrackerConfig::named(["A", "B", "C"]).unwrap()).unwrap();
    let left = proxy.footprint();
    proxy.set_keys(&keys).unwrap();
    // The backends first, in config order, then nutcracker.
    let (pid, port) = (left[1].0, proxy.backend_port("B").unwrap());
    assert_eq!(
        redis_cli(port, &["INFO", "server"]).lines().find(|l| l.starts_with("process_id:")).map(str::trim),
        Some(format!("process_id:{pid}").as_str())
    );
    assert!(Command::new("kill").args(["-KILL", &pid.to_string()]).status().unwrap().success());
    let deadline = Instant::now() + Duration::from_secs(5);
    while process_alive(pid) {
        assert!(Instant::now() < deadline, "kill -KILL {pid} did not end it");
        std::thread::sleep(Duration::from_millis(10));
    }
    let err = proxy.where_stored(&keys).unwrap_err();
    assert!(
        matches!(&err, Error::ServerFailed { node, port: p, source: Some(_), .. } if node == "backend B" && *p == port),
        "{err:?}"
    );
    assert!(err.to_string().starts_with(&format!("backend B (127.0.0.1:{port})")), "{err}");
    assert!(std::error::Error::source(&err).is_some_and(|s| s.is::<std::io::Error>()));
    drop(proxy);
    assert_gone(&left);
}

#[test]
fn three_drivers_at_once_share_no_port() {
    if !proxies_here() {
        return;
    }
    let (a, b, c) = std::thread::scope(|s| {
        let a = s.spawn(|| Nutcracker::start(&NutcrackerConfig::named(["A", "B"]).unwrap()).unwrap());
        let b = s.spawn(|| Nginx::start(&NginxConfig::named(["A", "B"]).unwrap()).unwrap());
        let c = s.spawn(|| RedisCluster::start(["A", "B", "C"]).unwrap());
        (a.join().unwrap(), b.join().unwrap(), c.join().unwrap())
    });
    let mut ports = vec![a.port(), b.port()];
    for n in ["A", "B"] {
        ports.extend([a.backend_port(n).unwrap(), b.backend_port(n).unwrap()]);
    }
    // A cluster node uses its port and its bus port, port + 10000.
    for n in ["A", "B", "C"] {
        let p = c.port(n).unwrap();
        ports.extend([p, p + 10_000]);
    }
    let mut distinct = ports.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), ports.len(), "{ports:?}");
}

#[test]
fn a_panic_stops_every_process() {
    if !proxies_here() {
        return;
    }
    let left = std::sync::Mutex::new(Vec::new());
    let result = std::panic::catch_unwind(|| {
        let t = Nutcracker::start(&NutcrackerConfig::named(["A", "B", "C"]).unwrap()).unwrap();
        let n = Nginx::start(&NginxConfig::named(["A", "B", "C"]).unwrap()).unwrap();
        left.lock().unwrap().extend(t.footprint().into_iter().chain(n.footprint()));
        panic!("a failing cell");
    });
    assert!(result.is_err());
    let left = left.into_inner().unwrap();
    assert!(left.len() >= 6, "{left:?}");
    assert_gone(&left);
}

#[test]
fn nginx_workers_go_even_when_their_master_was_killed() {
    if !proxies_here() {
        return;
    }
    let nginx = Nginx::start(&NginxConfig::named(["A", "B"]).unwrap()).unwrap();
    let left = nginx.footprint();
    assert!(left.len() >= 2, "a master and a worker: {left:?}");
    // SIGKILL to the master alone: its worker is orphaned, still serving.
    Command::new("kill").args(["-KILL", &left[0].0.to_string()]).status().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert!(left[1..].iter().all(|(p, _)| process_alive(*p)), "the worker outlived its master");
    drop(nginx);
    assert_gone(&left);
}

/// Run by `the_owner_killed_leaves_nothing` in a child process: start both
/// drivers, print their footprint, wait to be killed.
#[test]
#[ignore = "run by the_owner_killed_leaves_nothing in a child process"]
fn child_holds_proxies() {
    if std::env::var("RESHARD_PROXIES_CHILD").is_err() {
        return;
    }
    let t = Nutcracker::start(&NutcrackerConfig::named(["A", "B", "C"]).unwrap()).unwrap();
    let n = Nginx::start(&NginxConfig::named(["A", "B", "C"]).unwrap()).unwrap();
    holder::print_and_wait(&[t.footprint(), n.footprint()].concat());
}

#[test]
fn the_owner_killed_leaves_nothing() {
    if !proxies_here() {
        return;
    }
    let (mut child, left) = holder::start_holder("child_holds_proxies", "RESHARD_PROXIES_CHILD");
    // 3 redis-server, nutcracker, nginx master and worker.
    assert!(left.len() >= 6, "the child did not start its proxies: {left:?}");
    assert!(left.iter().all(|(p, d)| process_alive(*p) && d.exists()));
    child.kill().unwrap(); // SIGKILL: no destructor runs
    child.wait().unwrap();
    let t0 = Instant::now();
    assert_gone(&left);
    eprintln!("everything gone {:.2} s after the SIGKILL", t0.elapsed().as_secs_f64());
}

/// Start times and 20,000 keys, printed (`--nocapture`) and bounded.
#[test]
fn twenty_thousand_keys_in_seconds() {
    if !proxies_here() {
        return;
    }
    let keys = KeySet::users(20_000);
    let mut proxy = Nutcracker::start(&NutcrackerConfig::named(["A", "B", "C"]).unwrap()).unwrap();
    let w = proxy.set_keys(&keys).unwrap();
    let stored = proxy.where_stored(&keys).unwrap();
    let routed = proxy.where_routed(&keys).unwrap();
    one_each(&stored, 20_000);
    assert_eq!(routed.assignment().unwrap(), stored.assignment().unwrap());
    let t0 = Instant::now();
    proxy.restart_with(&proxy.config().add_server("D", 1).unwrap()).unwrap();
    let restart = t0.elapsed().as_secs_f64();
    let mut nginx = Nginx::start(&NginxConfig::named(["A", "B", "C"]).unwrap()).unwrap();
    let answered = nginx.where_answered(&keys).unwrap();
    one_each(&answered, 20_000);
    nginx.reload_with(&nginx.config().add_server("D", 1).unwrap()).unwrap();
    eprintln!(
        "twemproxy {:?}; set 20,000 {:.2} s, stored {:.2} s, routed {:.2} s; restart with D {restart:.2} s",
        proxy.timings(),
        w.seconds,
        stored.seconds(),
        routed.seconds()
    );
    eprintln!("nginx {:?}; 20,000 GETs {:.2} s", nginx.timings(), answered.seconds());
    for s in [w.seconds, stored.seconds(), routed.seconds(), answered.seconds()] {
        assert!(s < 10.0, "{s} s for 20,000 keys");
    }
}

/// Run by `a_missing_program_is_named_with_its_install_command` with
/// `PATH` emptied.
#[test]
#[ignore = "run by a_missing_program_is_named_with_its_install_command in a child process"]
fn child_without_path() {
    if std::env::var("RESHARD_NO_PATH_CHILD").is_ok() {
        println!("ERROR {}", nutcracker_version().unwrap_or_else(|e| e.to_string()));
        println!("NGINX {:?}", nginx_version());
    }
}

#[test]
fn a_missing_program_is_named_with_its_install_command() {
    // redis-server lives in /usr/bin (searched through PATH only), nginx
    // and nutcracker in /usr/sbin (searched always), on Debian.
    if !Path::new("/usr/bin/redis-server").exists() || Path::new("/usr/sbin/redis-server").exists() {
        eprintln!("skipped: redis-server is not where Debian puts it");
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_without_path", "--ignored", "--nocapture", "--test-threads=1"])
        .env("RESHARD_NO_PATH_CHILD", "1")
        .env("PATH", "/reshard-nonexistent")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find_map(|l| l.split_once("ERROR ").map(|x| x.1)).expect("the child printed its error");
    assert!(line.starts_with("redis-server was not found on PATH nor in /usr/sbin"), "{line}");
    assert!(line.contains("apt-get install redis-server") && !line.contains("nginx"), "{line}");
    if Path::new("/usr/sbin/nginx").exists() {
        // Found in /usr/sbin without PATH.
        assert!(text.contains("NGINX Ok("), "{text}");
    }
}
