//! The `reshard` binary: document figures, JSON output, and bad input.
//!
//! Every number asserted here is printed by a source document (000, 002
//! or 004), not taken from a run of this crate.

use std::process::{Command, Output};

fn reshard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reshard")).args(args).output().expect("the reshard binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", stdout(o)))
}

/// Runs, succeeds, and returns stdout.
fn ok(args: &[&str]) -> String {
    let o = reshard(args);
    assert_eq!(o.status.code(), Some(0), "reshard {args:?}\nstdout:\n{}\nstderr:\n{}", stdout(&o), stderr(&o));
    stdout(&o)
}

#[test]
fn reproduce_002_matches_and_prints_its_figures() {
    let out = ok(&["reproduce", "--doc", "002"]);
    for figure in ["181,745", "90.87%", "163,493", "18,252", "17,986", "8.99%"] {
        assert!(out.contains(figure), "{figure} missing from:\n{out}");
    }
    assert!(!out.contains('≠'), "{out}");
}

#[test]
fn reproduce_json_every_check_matches_its_document() {
    let o = reshard(&["reproduce", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["all_match"], true);
    let docs = v["documents"].as_array().expect("documents array");
    let numbers: Vec<&str> = docs.iter().map(|d| d["doc"].as_str().unwrap()).collect();
    assert_eq!(numbers, ["000", "002", "004"]);
    for d in docs {
        assert!(!d["title"].as_str().unwrap().is_empty());
        let checks = d["checks"].as_array().expect("checks array");
        assert!(!checks.is_empty());
        for c in checks {
            assert_eq!(c["document"], c["measured"], "document {}: {c}", d["doc"]);
        }
    }
    // A few of the documents' own figures, found where they belong.
    let all = v.to_string();
    for figure in ["25.3%", "28.0%", "181,745", "17,986", "909,138", "817,949", "89,813", "8.98%"] {
        assert!(all.contains(&format!("\"document\":\"{figure}\"")), "{figure}");
    }
}

#[test]
fn shards_defaults_are_document_004() {
    let out = ok(&["shards"]);
    assert!(out.contains("89,813"), "{out}");
    assert!(out.contains("8.98%"), "{out}");
    assert!(out.contains("shards moved: 90 of 1,000"), "{out}");
}

#[test]
fn shards_json() {
    let v = json(&reshard(&["shards", "--json"]));
    assert_eq!(v["movement"]["moved"], 89_813);
    assert_eq!(v["shards_moved"], 90);
    assert_eq!(v["movement"]["between_kept"], 0);
    let after: Vec<u64> = v["shards_after"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    assert_eq!(after, [91, 91, 91, 91, 91, 91, 91, 91, 91, 91, 90]);
}

#[test]
fn modulo_defaults_are_document_004() {
    let out = ok(&["modulo", "--rule"]);
    for figure in ["909,138", "90.91%", "817,949", "min/lcm"] {
        assert!(out.contains(figure), "{figure} missing from:\n{out}");
    }
}

#[test]
fn modulo_document_002_json() {
    let o = reshard(&["modulo", "--keys", "200000", "--json"]);
    let m = &json(&o)["movement"];
    assert_eq!(m["moved"], 181_745);
    assert_eq!(m["between_kept"], 163_493);
    assert_eq!(m["to_added"], 18_252);
}

#[test]
fn modulo_document_000_figures() {
    for (from, to, share) in [("3", "4", "75.0%"), ("10", "11", "91.0%"), ("10", "20", "50.0%"), ("10", "9", "89.9%")] {
        let args =
            ["modulo", "--keys", "100000", "--prefix", "user:", "--width", "32", "--from", from, "--to", to, "--json"];
        let v = json(&reshard(&args));
        let measured = format!("{:.1}%", 100.0 * v["movement"]["share"].as_f64().unwrap());
        assert_eq!(measured, share, "{from} → {to}");
    }
}

#[test]
fn rendezvous_defaults_are_document_002() {
    let out = ok(&["rendezvous"]);
    assert!(out.contains("17,986"), "{out}");
    assert!(out.contains("8.99%"), "{out}");
    let m = &json(&reshard(&["rendezvous", "--json"]))["movement"];
    assert_eq!(m["moved"], 17_986);
    assert_eq!(m["between_kept"], 0);
    assert_eq!(m["to_added"], 17_986);
}

#[test]
fn ring_defaults_are_document_000() {
    let share = |args: &[&str]| {
        let v = json(&reshard(args));
        format!("{:.1}%", 100.0 * v["movement"]["share"].as_f64().unwrap())
    };
    assert_eq!(share(&["ring", "--json"]), "25.3%");
    assert_eq!(share(&["ring", "--vnodes", "1", "--json"]), "28.0%");
    let out = ok(&["ring"]);
    assert!(out.contains("A, B, C, D"), "{out}");
}

#[test]
fn ring_arrangements_document_000() {
    let v = json(&reshard(&["ring", "--from", "10", "--to", "11", "--arrangements", "30", "--json"]));
    let rows = v["arrangements"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 30);
    let shares: Vec<f64> = rows.iter().map(|r| r["moved_share"].as_f64().unwrap()).collect();
    let lo = shares.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = shares.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(format!("{:.1}%–{:.1}%", 100.0 * lo, 100.0 * hi), "8.0%–11.5%");
}

#[test]
fn hash_prints_the_md5_integer() {
    let out = ok(&["hash", "user:0"]);
    // md5("user:0") ends in 3f381411 = 1,060,639,761.
    assert!(out.contains("3f381411"), "{out}");
    assert!(out.contains("1060639761"), "{out}");
    let v = json(&reshard(&["hash", "--width", "32", "--json", "user:0"]));
    assert_eq!(v[0]["md5_32"], 0x3f38_1411u64);
}

#[test]
fn every_json_output_parses() {
    for args in [
        &["modulo", "--keys", "1000", "--rule", "--sweep", "1..12", "--json"][..],
        &["ring", "--keys", "1000", "--arrangements", "3", "--json"],
        &["rendezvous", "--keys", "1000", "--weights", "1,1,1,1,1,1,1,1,1,1,2", "--json"],
        &["shards", "--keys", "1000", "--json"],
        &["hash", "a", "b", "--json"],
        &["slot", "a{b}", "--json"],
        &["jump", "1", "2", "--json"],
        &["compare", "--keys", "1000", "--width", "32", "--json"],
    ] {
        let o = reshard(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        json(&o);
    }
}

/// Exits 2 with `error: …` naming the problem, and does not panic.
fn refuses(args: &[&str], hint: &str) {
    let o = reshard(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "reshard {args:?}\nstderr:\n{err}\nstdout:\n{}", stdout(&o));
    assert!(err.starts_with("error: "), "reshard {args:?}: {err}");
    assert!(err.to_lowercase().contains(hint), "reshard {args:?}: hint {hint:?} missing from {err}");
    assert!(!err.contains("panicked"), "reshard {args:?}: {err}");
    assert!(stdout(&o).is_empty(), "reshard {args:?} printed to stdout on error");
}

#[test]
fn bad_input_exits_2_with_a_hint() {
    refuses(&["ring", "--vnodes", "0"], "vnodes");
    refuses(&["modulo", "--from", "0"], "at least 1 node");
    refuses(&["rendezvous", "--to", "0"], "at least 1 node");
    refuses(&["ring", "--from", "0"], "at least 1 node");
    refuses(&["shards", "--from", "0"], "at least 1 node");
    refuses(&["shards", "--shards", "0"], "shards");
    refuses(&["modulo", "--keys", "0"], "key count");
    refuses(&["ring", "--keys", "0"], "key count");
    refuses(&["ring", "--to", "A,A"], "twice");
    refuses(&["modulo", "--to", "x,y,x"], "twice");
    refuses(&["rendezvous", "--weights", "0"], "weight");
    refuses(&["rendezvous", "--weights", "1,1,1,1,1,1,1,1,1,1,0"], "weight 0");
    refuses(&["rendezvous", "--weights", "1,1,1,1,1,1,1,1,1,1,nan"], "weight nan");
    refuses(&["rendezvous", "--weights", "1,1,1,1,1,1,1,1,1,1,-2"], "weight");
    refuses(&["rendezvous", "--weights", "1,1,1,1,1,1,1,1,1,1,1", "--from-weights", "1"], "one weight per node");
    refuses(&["shards", "--shards", "10"], "only 10 shards");
    refuses(&["shards", "--shards", "5", "--from", "10"], "only 5 shards");
    refuses(&["ring", "--arrangements", "0"], "arrangements");
    refuses(&["modulo", "--sweep", "0..3"], "at least 1 node");
    // Parse errors, reported by clap with the same exit code.
    refuses(&["modulo", "--sweep", "5..2"], "empty");
    refuses(&["modulo", "--width", "64"], "possible values");
    refuses(&["modulo", "--from", "A,,B"], "empty node name");
    refuses(&["modulo", "--to", "100000"], "at most 1000");
    refuses(&["modulo", "--keys", "1000000000"], "keys");
    refuses(&["reproduce", "--doc", "001"], "possible values");
    refuses(&["hash"], "required");
    refuses(&["jump", "7", "0"], "at least 1 bucket");
    refuses(&["jump", "x", "10"], "invalid value");
    refuses(&["jump", "18446744073709551616", "10"], "invalid value");
    refuses(&["jump", "7"], "required");
    refuses(&["slot"], "required");
    refuses(&["compare", "--from", "0"], "at least 1 node (in --from)");
    refuses(&["compare", "--to", "0"], "at least 1 node (in --to)");
    refuses(&["compare", "--from", "1001"], "1001");
    refuses(&["compare", "--keys", "0"], "key count");
}

#[test]
fn slot_prints_the_redis_cluster_slot() {
    // The examples of the Redis CLUSTER KEYSLOT documentation.
    let out = ok(&["slot", "somekey", "foo{hash_tag}"]);
    let row = |key: &str| -> Vec<String> {
        let line = out.lines().find(|l| l.trim_start().starts_with(key)).unwrap_or_else(|| panic!("{key}:\n{out}"));
        line.split_whitespace().map(String::from).collect()
    };
    assert_eq!(row("somekey")[1], "11058", "{out}");
    assert_eq!(row("foo{hash_tag}")[1], "2515", "{out}");
    assert_eq!(row("foo{hash_tag}")[2], "hash_tag", "{out}");
    let v = json(&reshard(&["slot", "--json", "bar{hash_tag}", "somekey"]));
    assert_eq!(v[0]["slot"], 2515);
    assert_eq!(v[0]["hashed"], "hash_tag");
    assert_eq!(v[0]["hash_tag"], true);
    assert_eq!(v[1]["slot"], 11058);
    assert_eq!(v[1]["hash_tag"], false);
}

#[test]
fn jump_matches_guava_golden_values() {
    // Guava's HashingTest: Hashing.consistentHash(i, 100) for i = 0..19.
    let golden = [0, 55, 62, 8, 45, 59, 86, 97, 82, 59, 73, 37, 17, 56, 86, 21, 90, 37, 38, 83];
    for (i, want) in golden.iter().enumerate() {
        let out = ok(&["jump", &i.to_string(), "100"]);
        assert_eq!(out.trim(), want.to_string(), "jump {i} 100");
    }
    let v = json(&reshard(&["jump", "2201", "100001", "--json"]));
    assert_eq!((v["bucket"].as_u64(), v["guava"].as_u64()), (Some(22_152), Some(22_152)));
}

#[test]
fn jump_shows_guava_when_it_differs() {
    // A key where Guava's rounding parts from the paper's (see src/jump.rs).
    let out = ok(&["jump", "1673232497983283878", "64"]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("63"), "{out}");
    assert!(lines.next().unwrap_or("").contains("gives 48"), "{out}");
}

#[test]
fn compare_lists_every_scheme() {
    let out = ok(&["compare", "--keys", "20000"]);
    for scheme in reshard::Scheme::ALL {
        assert!(out.contains(scheme.label()), "{scheme} missing from:\n{out}");
    }
    assert!(out.contains("machine-dependent"), "{out}");
    assert!(out.contains("10 → 11 nodes"), "{out}");
    let v = json(&reshard(&["compare", "--keys", "20000", "--from", "4", "--to", "5", "--json"]));
    assert_eq!((v["keys"].as_u64(), v["prefix"].as_str(), v["width"].as_u64()), (Some(20_000), Some("key"), Some(128)));
    assert_eq!((v["from"].as_u64(), v["to"].as_u64()), (Some(4), Some(5)));
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), reshard::Scheme::ALL.len());
    let jump = rows.iter().find(|r| r["scheme"] == "jump").unwrap();
    assert_eq!(jump["between_kept"], 0);
}

#[test]
fn compare_settings_flags() {
    let out = ok(&["compare", "--keys", "2000", "--vnodes", "40", "--maglev-m", "101", "--epsilon", "0.1"]);
    assert!(out.contains("ring (40 points/node)"), "{out}");
    assert!(out.contains("Maglev (M = 101)"), "{out}");
    assert!(out.contains("bounded loads (ε = 0.1)"), "{out}");
    refuses(&["compare", "--keys", "2000", "--vnodes", "0"], "vnodes");
    refuses(&["compare", "--keys", "2000", "--maglev-m", "100"], "prime");
    refuses(&["compare", "--keys", "2000", "--epsilon", "0"], "epsilon");
}
