//! The `reshard` binary: document figures, JSON output, bad input and the
//! limits.
//!
//! Every number asserted here comes from outside this crate: a source
//! document (000, 002 or 004), the Redis CLUSTER KEYSLOT documentation, or
//! Guava's tests — not from a run of this crate.

#![cfg(feature = "cli")]

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

fn reshard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reshard")).args(args).output().expect("the reshard binary runs")
}

/// Runs with `input` on standard input.
fn reshard_with_input(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_reshard"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the reshard binary runs");
    child.stdin.take().expect("stdin").write_all(input).expect("write stdin");
    child.wait_with_output().expect("reshard finishes")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    assert_eq!(o.status.code(), Some(0), "stderr:\n{}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", stdout(o)))
}

/// Runs, succeeds, and returns stdout.
fn ok(args: &[&str]) -> String {
    let o = reshard(args);
    assert_eq!(o.status.code(), Some(0), "reshard {args:?}\nstdout:\n{}\nstderr:\n{}", stdout(&o), stderr(&o));
    stdout(&o)
}

/// A share as the documents print it, with one decimal.
fn pct1(v: &serde_json::Value) -> String {
    format!("{:.1}%", 100.0 * v.as_f64().unwrap_or_else(|| panic!("{v} is not a number")))
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
    let v = json(&reshard(&["reproduce", "--json"]));
    assert_eq!(v["all_match"], true);
    let docs = v["documents"].as_array().expect("documents array");
    let numbers: Vec<&str> = docs.iter().map(|d| d["doc"].as_str().unwrap()).collect();
    assert_eq!(numbers, ["000", "002", "004"]);
    for d in docs {
        assert!(d["title"].as_str().unwrap().contains("—"), "{}", d["title"]);
        assert_eq!(d["all_match"], true);
        let checks = d["checks"].as_array().expect("checks array");
        assert!(!checks.is_empty());
        for c in checks {
            assert_eq!(c["document"], c["measured"], "document {}: {c}", d["doc"]);
            assert_eq!(c["matches"], true, "{c}");
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
    assert_eq!(v["scheme"], "shards");
    assert_eq!(v["movement"]["moved"], 89_813);
    assert_eq!(v["shards_moved"], 90);
    assert_eq!(v["movement"]["between_kept"], 0);
    let after: Vec<u64> = v["shards_after"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    assert_eq!(after, [91, 91, 91, 91, 91, 91, 91, 91, 91, 91, 90]);
}

#[test]
fn modulo_defaults_are_document_004() {
    let out = ok(&["modulo", "--rule"]);
    for figure in ["909,138", "90.91%", "817,949", "min/lcm", "lcm(10, 11) = 1 − 10 / 110"] {
        assert!(out.contains(figure), "{figure} missing from:\n{out}");
    }
    let v = json(&reshard(&["modulo", "--json"]));
    assert_eq!((v["movement"]["moved"].as_u64(), v["movement"]["keys"].as_u64()), (Some(909_138), Some(1_000_000)));
    assert_eq!(v["movement"]["between_kept"], 817_949);
}

#[test]
fn modulo_document_002_json() {
    let v = json(&reshard(&["modulo", "--keys", "200000", "--json"]));
    let m = &v["movement"];
    assert_eq!(m["moved"], 181_745);
    assert_eq!(m["between_kept"], 163_493);
    assert_eq!(m["to_added"], 18_252);
    assert_eq!(m["added_nodes"], serde_json::json!(["10"]));
}

#[test]
fn modulo_document_000_figures() {
    for (from, to, share) in [("3", "4", "75.0%"), ("10", "11", "91.0%"), ("10", "20", "50.0%"), ("10", "9", "89.9%")] {
        let args = ["modulo", "--keys", "100000", "--prefix", "user:", "--width", "32", "--from", from, "--to", to];
        let v = json(&reshard(&[&args[..], &["--json"]].concat()));
        assert_eq!(pct1(&v["movement"]["share"]), share, "{from} → {to}");
    }
    // The same four through --sweep, beside the 1 − min/lcm rule.
    let v = json(&reshard(&[
        "modulo", "--keys", "100000", "--prefix", "user:", "--width", "32", "--sweep", "9,11,20", "--json",
    ]));
    let rows = v["sweep"]["rows"].as_array().unwrap();
    let shares: Vec<String> = rows.iter().map(|r| pct1(&r["measured"])).collect();
    assert_eq!(shares, ["89.9%", "91.0%", "50.0%"]);
    assert_eq!(pct1(&rows[2]["rule"]), "50.0%");
}

#[test]
fn rendezvous_defaults_are_document_002() {
    let out = ok(&["rendezvous"]);
    assert!(out.contains("17,986"), "{out}");
    assert!(out.contains("8.99%"), "{out}");
    let v = json(&reshard(&["rendezvous", "--json"]));
    let m = &v["movement"];
    assert_eq!((m["moved"].as_u64(), m["keys"].as_u64()), (Some(17_986), Some(200_000)));
    assert_eq!(m["between_kept"], 0);
    assert_eq!(m["to_added"], 17_986);
}

#[test]
fn ring_defaults_are_document_000() {
    let share = |args: &[&str]| pct1(&json(&reshard(args))["movement"]["share"]);
    assert_eq!(share(&["ring", "--json"]), "25.3%");
    assert_eq!(share(&["ring", "--vnodes", "1", "--json"]), "28.0%");
    let out = ok(&["ring"]);
    assert!(out.contains("A, B, C, D"), "{out}");
    assert!(out.contains("100,000 keys (user:0 … user:99999) · md5 mod 2^32"), "{out}");
    // Document 000's loads on A,B,C,D with one point each.
    let v = json(&reshard(&["ring", "--vnodes", "1", "--json"]));
    assert_eq!(v["load_after"]["counts"], serde_json::json!([31_186, 10_531, 30_259, 28_024]));
    assert_eq!(
        (v["keys"].as_u64(), v["prefix"].as_str(), v["width"].as_u64()),
        (Some(100_000), Some("user:"), Some(32))
    );
}

#[test]
fn ring_arrangements_document_000() {
    let v = json(&reshard(&["ring", "--from", "10", "--to", "11", "--arrangements", "30", "--json"]));
    let a = &v["arrangements"];
    assert_eq!(a["rows"].as_array().unwrap().len(), 30);
    assert_eq!(format!("{}–{}", pct1(&a["min_share"]), pct1(&a["max_share"])), "8.0%–11.5%");
    assert_eq!(pct1(&a["mean_share"]), "9.1%");
    let v = json(&reshard(&["ring", "--arrangements", "30", "--json"]));
    let a = &v["arrangements"];
    assert_eq!((a["smallest_node"].as_u64(), a["largest_node"].as_u64()), (Some(21_055), Some(29_917)));
}

#[test]
fn hash_prints_the_md5_integer() {
    let out = ok(&["hash", "user:0"]);
    // md5("user:0") ends in 3f381411 = 1,060,639,761.
    assert!(out.contains("3f381411"), "{out}");
    assert!(out.contains("1060639761"), "{out}");
    let v = json(&reshard(&["hash", "--width", "32", "--json", "user:0"]));
    assert_eq!(v[0]["md5_32"], 0x3f38_1411u64);
    assert!(v[0].get("md5_128").is_none(), "{v}");
}

#[test]
fn every_json_output_parses() {
    for args in [
        &["modulo", "--keys", "1000", "--rule", "--sweep", "1..12", "--json"][..],
        &["--json", "modulo", "--keys", "1000"],
        &["ring", "--keys", "1000", "--arrangements", "3", "--json"],
        &["rendezvous", "--keys", "1000", "--weights", "1,1,1,1,1,1,1,1,1,1,2", "--json"],
        &["shards", "--keys", "1000", "--json"],
        &["hash", "a", "b", "--json"],
        &["slot", "a{b}", "--json"],
        &["jump", "1", "2", "--json"],
        &["compare", "--keys", "1000", "--width", "32", "--json"],
        &["reproduce", "--doc", "002", "--json"],
    ] {
        json(&reshard(args));
    }
}

/// Exits 2 with `error: …` naming the problem, and does not panic.
fn refuses(args: &[&str], hint: &str) {
    let o = reshard(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "reshard {args:?}\nstderr:\n{err}\nstdout:\n{}", stdout(&o));
    assert!(err.starts_with("error: "), "reshard {args:?}: {err}");
    assert!(err.to_lowercase().contains(&hint.to_lowercase()), "reshard {args:?}: hint {hint:?} missing from {err}");
    assert!(!err.contains("panicked"), "reshard {args:?}: {err}");
    assert!(stdout(&o).is_empty(), "reshard {args:?} printed to stdout on error");
}

#[test]
fn bad_input_exits_2_with_a_hint() {
    refuses(&["ring", "--vnodes", "0"], "vnodes");
    refuses(&["modulo", "--from", "0"], "at least 1 node (in --from)");
    refuses(&["rendezvous", "--to", "0"], "at least 1 node (in --to)");
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
    refuses(&["rendezvous", "--weights", "1,1,1,1,1,1,1,1,1,1,-2"], "weight -2");
    refuses(&["rendezvous", "--weights", "1,1,1,1,1,1,1,1,1,1,1", "--from-weights", "1"], "(in --from-weights)");
    refuses(&["shards", "--shards", "10"], "only 10 shards");
    refuses(&["shards", "--shards", "5", "--from", "10"], "only 5 shards");
    refuses(&["ring", "--arrangements", "0"], "arrangements");
    refuses(&["modulo", "--sweep", "0..3"], "at least 1 node");
    refuses(&["modulo", "--sweep", "5..2"], "empty");
    refuses(&["modulo", "--width", "64"], "error: --width: unknown hash width \"64\": use 32 or 128");
    refuses(&["modulo", "--from", "A,,B"], "empty node name");
    refuses(&["reproduce", "--doc", "001"], "possible values");
    refuses(&["hash"], "required");
    refuses(&["jump", "7", "0"], "at least 1 bucket");
    refuses(&["jump", "x", "10"], "not a whole number");
    refuses(&["jump", "18446744073709551616", "10"], "too large");
    refuses(&["jump", "7"], "required");
    refuses(&["compare", "--from", "0"], "at least 1 node (in --from)");
    refuses(&["compare", "--to", "0"], "at least 1 node (in --to)");
    refuses(&["compare", "--from", "1001"], "1001 nodes but only 1000 shards");
    refuses(&["compare", "--keys", "0"], "key count");
    refuses(&["compare", "--from", "A,B,C"], "give a count, e.g. --from 3");
    refuses(&["slot", "a", "-"], "must be the only key");
}

#[test]
fn negative_numbers_say_what_to_change() {
    refuses(
        &["modulo", "--from", "-1"],
        "error: --from: -1 is negative: give a count of at least 1 or a list of names",
    );
    refuses(&["ring", "--to", "-4"], "error: --to: -4 is negative");
    refuses(&["compare", "--to", "-2"], "error: --to: -2 is negative");
    refuses(&["modulo", "--keys", "-3"], "error: --keys: -3 is negative: give a key count");
    refuses(&["ring", "--vnodes", "-5"], "error: --vnodes: -5 is negative");
    refuses(&["ring", "--arrangements", "-30"], "error: --arrangements: -30 is negative");
    refuses(&["shards", "--shards", "-1000"], "error: --shards: -1000 is negative");
    refuses(&["shards", "--seed", "-42"], "error: --seed: -42 is negative");
    refuses(&["modulo", "--sweep", "-1..3"], "error: --sweep: -1 is negative");
    refuses(&["compare", "--maglev-m", "-7"], "error: --maglev-m: -7 is negative");
    refuses(&["compare", "--epsilon", "-0.5"], "epsilon -0.5 is not a finite number above 0");
    refuses(&["rendezvous", "--weights", "-1"], "weight");
    refuses(&["jump", "-1", "10"], "-1 is negative: give an unsigned 64-bit key");
    refuses(&["jump", "7", "-3"], "-3 is negative: give a bucket count");
    for args in [&["modulo", "--from", "-1"][..], &["jump", "-1", "10"]] {
        assert!(!stderr(&reshard(args)).contains("unexpected argument"), "{args:?}");
    }
}

#[test]
fn limits_refuse_at_once_naming_the_limit() {
    // Each was found to hang or exhaust memory before the limits.
    refuses(&["ring", "--arrangements", "1000000000", "--keys", "1000"], "limit of 2,000,000,000");
    refuses(&["compare", "--vnodes", "50000", "--from", "1000", "--to", "999"], "ring points (nodes × vnodes)");
    // rendezvous scores keys × nodes: 200,000 × 1001 is over 200,000,000.
    refuses(&["rendezvous", "--keys", "200000", "--from", "1001", "--to", "1000"], "limit of 200,000,000");
    // hash % N over 4096 node counts: 500,000 × 4096 placements.
    refuses(&["modulo", "--sweep", "1..4096", "--keys", "500000"], "key placements");
    // Refused while parsing, before a list of nodes or keys is built.
    refuses(&["modulo", "--to", "100000"], "100,000 nodes is over this crate's limit of 4,096");
    refuses(&["ring", "--from", "99999999999999999999999"], "limit of 4,096");
    refuses(&["modulo", "--keys", "1000000000"], "limit of 20,000,000");
    refuses(&["modulo", "--sweep", "1..100000"], "limit of 4,096");
    refuses(&["ring", "--vnodes", "5000000", "--from", "1,2,3"], "ring points");
    refuses(&["shards", "--shards", "100000000"], "limit of 10,000,000");
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
fn slot_reads_standard_input_and_binary_keys() {
    // Redis: CLUSTER KEYSLOT of the two bytes ff fe is 3374.
    assert_eq!(reshard::key_slot(&[0xff, 0xfe]), 3374);
    let o = reshard_with_input(&["slot"], b"somekey\nfoo{hash_tag}\n\\xff\\xfe\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let slots: Vec<String> = stdout(&o).lines().map(|l| l.split('\t').nth(1).unwrap_or("").to_string()).collect();
    assert_eq!(slots, ["11058", "2515", "3374"]);
    // Raw bytes on standard input, `-`, and JSON.
    let v = json(&reshard_with_input(&["slot", "-", "--json"], b"\xff\xfe\r\nsomekey"));
    assert_eq!((v[0]["slot"].as_u64(), v[0]["key"].as_str()), (Some(3374), Some("\\xff\\xfe")));
    assert_eq!(v[1]["slot"], 11058);
    // The escapes and --hex on the command line.
    assert_eq!(json(&reshard(&["slot", "--json", "\\xff\\xfe"]))[0]["slot"], 3374);
    assert_eq!(json(&reshard(&["slot", "--json", "--hex", "fffe", "736f6d656b6579"]))[1]["slot"], 11058);
    assert_eq!(json(&reshard(&["slot", "--json", "a\\\\{hash_tag}"]))[0]["slot"], 2515);
    refuses(&["slot", "\\q"], "not an escape");
    refuses(&["slot", "\\xzz"], "not a byte escape");
    refuses(&["slot", "--hex", "fff"], "odd number of hex digits");
    let o = reshard_with_input(&["slot"], b"ok\n\\xg0\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 2"), "{}", stderr(&o));
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
    // A key where Guava's rounding parts from the paper's (see src/schemes/jump.rs).
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
    let v = json(&reshard(&["compare", "--keys", "20000", "--from", "4", "--to", "0,1,2,3,4", "--json"]));
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
