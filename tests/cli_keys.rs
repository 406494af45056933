//! The `reshard` binary with your own keys (`--keys-from`), `slot` on a
//! large standard input, and inputs that must be refused at once.
//!
//! 909,138 and 90.91% are document 004's figures for hash % N over
//! `key0 … key999999`, 10 → 11 nodes; 3374 and 11058 are Redis's CLUSTER
//! KEYSLOT of the bytes ff fe and of "somekey". Everything else is
//! compared between two runs or computed in the test.

#![cfg(feature = "cli")]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn reshard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reshard")).args(args).output().expect("the reshard binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(args: &[&str]) -> String {
    let o = reshard(args);
    assert_eq!(o.status.code(), Some(0), "reshard {args:?}\nstderr:\n{}", stderr(&o));
    stdout(&o)
}

/// Exits 2 with `error: …` containing `hint`, no panic, nothing on stdout.
fn refuses(args: &[&str], hint: &str) {
    let o = reshard(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "reshard {:?}\nstderr:\n{err}", short(args));
    assert!(err.starts_with("error: ") && !err.contains("panicked"), "{err}");
    assert!(err.contains(hint), "reshard {:?}: {hint:?} missing from {err}", short(args));
    assert!(o.stdout.is_empty());
}

/// Arguments with long values cut, for messages.
fn short(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.chars().take(20).collect()).collect()
}

/// A file of this test's own, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, text: &[u8]) -> Self {
        let path = std::env::temp_dir().join(format!("reshard-{}-{name}", std::process::id()));
        std::fs::write(&path, text).expect("write a temporary file");
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temporary path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn key_lines(n: usize) -> Vec<u8> {
    let mut text = Vec::with_capacity(n * 11);
    for i in 0..n {
        writeln!(text, "key{i}").unwrap();
    }
    text
}

/// The output without its first line (the line that describes the keys).
fn figures(out: &str) -> &str {
    out.split_once('\n').map_or("", |(_, rest)| rest)
}

#[test]
fn a_million_line_file_gives_the_same_figures_as_the_prefix() {
    let file = TempFile::new("million.txt", &key_lines(1_000_000));
    let t0 = Instant::now();
    let mine = ok(&["modulo", "--keys-from", file.path(), "--from", "10", "--to", "11"]);
    eprintln!("reshard modulo --keys-from (1,000,000 lines, debug build): {:.2} s", t0.elapsed().as_secs_f64());
    let numbered = ok(&["modulo", "--prefix", "key", "--keys", "1000000", "--from", "10", "--to", "11"]);
    assert!(mine.contains("909,138") && mine.contains("90.91%"), "{mine}");
    assert_eq!(figures(&mine), figures(&numbered));
    assert!(mine.starts_with("hash % N · 1,000,000 listed keys (key0 … key999999)"), "{mine}");
}

#[test]
fn every_command_that_takes_keys_reads_them_from_a_file_or_stdin() {
    let file =
        TempFile::new("users.txt", &(0..2000).flat_map(|i| format!("user:{i}\r\n").into_bytes()).collect::<Vec<_>>());
    for (cmd, extra) in [
        ("modulo", &[][..]),
        ("ring", &["--from", "A,B,C", "--to", "A,B,C,D"][..]),
        ("rendezvous", &["--weights", "1,1,1,1,1,1,1,1,1,1,2"][..]),
        ("shards", &["--shards", "100"][..]),
        ("compare", &[][..]),
    ] {
        let listed: Vec<&str> =
            [cmd, "--width", "32", "--keys-from", file.path()].into_iter().chain(extra.iter().copied()).collect();
        let numbered: Vec<&str> = [cmd, "--width", "32", "--prefix", "user:", "--keys", "2000"]
            .into_iter()
            .chain(extra.iter().copied())
            .collect();
        let (a, b) = (ok(&listed), ok(&numbered));
        if cmd == "compare" {
            // Lookup times differ from run to run: compare the keys moved.
            let moved = |s: &str| {
                s.lines()
                    .filter(|l| l.contains('%'))
                    .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
                    .collect::<Vec<_>>()
            };
            assert_eq!(moved(&a), moved(&b), "{cmd}");
        } else {
            assert_eq!(figures(&a), figures(&b), "{cmd}");
        }
        // JSON: the same movement.
        let json = |args: &[&str]| -> serde_json::Value {
            let mut v: Vec<&str> = args.to_vec();
            v.push("--json");
            serde_json::from_str(&ok(&v)).expect("JSON")
        };
        let key = if cmd == "compare" { "rows" } else { "movement" };
        let (ja, jb) = (json(&listed), json(&numbered));
        if cmd != "compare" {
            assert_eq!(ja[key], jb[key], "{cmd}");
            assert_eq!(ja["keys"], 2000);
        }
    }
    // Standard input.
    let mut child = Command::new(env!("CARGO_BIN_EXE_reshard"))
        .args(["modulo", "--keys-from", "-", "--width", "32"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&std::fs::read(&file.0).unwrap()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(figures(&stdout(&o)), figures(&ok(&["modulo", "--width", "32", "--prefix", "user:", "--keys", "2000"])));
}

#[test]
fn keys_from_refuses_what_it_cannot_read() {
    let bad = TempFile::new("bad.txt", b"key0\nkey1\nkey\\x+f\n");
    refuses(&["modulo", "--keys-from", bad.path()], "line 3 of the keys");
    refuses(&["ring", "--keys-from", bad.path()], "exactly two hex digits");
    let empty = TempFile::new("empty.txt", b"");
    refuses(&["rendezvous", "--keys-from", empty.path()], "has no keys");
    refuses(&["modulo", "--keys-from", "/nonexistent/keys.txt"], "cannot open it");
    let good = TempFile::new("good.txt", b"a\nb\n");
    refuses(&["modulo", "--keys-from", good.path(), "--prefix", "k"], "cannot be used with");
    refuses(&["shards", "--keys-from", good.path(), "--keys", "10"], "cannot be used with");
}

#[test]
fn escapes_take_exactly_two_hex_digits() {
    refuses(&["slot", "\\x+f"], "exactly two hex digits");
    refuses(&["slot", "--hex", "+f"], "is not hex");
    assert!(ok(&["slot", "\\xff\\xfe"]).contains("3374"));
}

#[test]
fn hyphen_values_get_a_message_not_unexpected_argument() {
    refuses(&["rendezvous", "--weights", "-1,1,1,1,1,1,1,1,1,1,1"], "weight -1 of node \"0\"");
    refuses(
        &["rendezvous", "--weights", "1,1,1,1,1,1,1,1,1,1,1", "--from-weights", "-1,1,1,1,1,1,1,1,1,1"],
        "(in --from-weights)",
    );
    refuses(&["compare", "--epsilon", "-inf"], "--epsilon: epsilon -inf is not a finite number above 0");
    refuses(&["compare", "--epsilon", "inf"], "not a finite number above 0");
    refuses(&["rendezvous", "--weights", "--json"], "is not a number");
}

#[test]
fn long_prefixes_names_and_salts_are_refused_within_seconds() {
    let p = "x".repeat(100_000);
    let p = p.as_str();
    let t0 = Instant::now();
    refuses(&["modulo", "--prefix", p, "--keys", "20000000"], "bytes of keys");
    // a 100,000-byte salt on 24,410 points is 2.4 GB of md5 input: answered
    // (12 s in a release build); on 220,000 points it is refused
    refuses(&["ring", "--salt", p, "--from", "10", "--to", "11", "--vnodes", "20000"], "the ring's points");
    refuses(&["ring", "--name-prefix", p, "--from", "10", "--to", "11", "--vnodes", "2441"], "bytes of node names");
    refuses(&["rendezvous", "--name-prefix", p, "--keys", "48000"], "bytes of node names");
    refuses(&["rendezvous", "--prefix", p, "--keys", "48000"], "bytes of keys");
    refuses(&["shards", "--prefix", p], "bytes of keys");
    refuses(&["compare", "--prefix", p], "bytes of keys");
    refuses(&["compare", "--prefix", p, "--keys", "1000000"], "bytes of keys");
    let took = t0.elapsed();
    assert!(took < Duration::from_secs(20), "eight refusals took {took:?}");
}

#[test]
fn slot_answers_each_line_before_the_next_is_written() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_reshard"))
        .arg("slot")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    for (key, slot) in [("somekey", "11058"), ("\\xff\\xfe", "3374")] {
        writeln!(input, "{key}").unwrap();
        input.flush().unwrap();
        // Standard input is still open: the answer must come anyway.
        let mut line = String::new();
        output.read_line(&mut line).unwrap();
        assert_eq!(line.split('\t').take(2).collect::<Vec<_>>(), [key, slot], "{line}");
    }
    drop(input);
    assert!(child.wait().unwrap().success());
}

/// Peak RSS in kB of `reshard args` reading `input` (a writer thread),
/// from GNU time, or None without /usr/bin/time.
fn peak_rss(args: &[&str], input: impl FnOnce(&mut dyn Write) + Send + 'static) -> Option<(u64, Output)> {
    let time = std::path::Path::new("/usr/bin/time");
    if !time.exists() {
        eprintln!("/usr/bin/time is missing: peak memory not measured");
        return None;
    }
    let mut child = Command::new(time)
        .arg("-v")
        .arg(env!("CARGO_BIN_EXE_reshard"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || input(&mut stdin));
    let mut counted = 0u64;
    let mut out = child.stdout.take().unwrap();
    let mut buf = vec![0; 1 << 16];
    while let Ok(n) = out.read(&mut buf) {
        if n == 0 {
            break;
        }
        counted += n as u64;
    }
    let o = child.wait_with_output().unwrap();
    let _ = writer.join();
    let err = stderr(&o);
    let kb = err.lines().find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes): "))?.parse().ok()?;
    eprintln!("reshard {args:?}: peak RSS {kb} kB, {counted} bytes out");
    Some((kb, Output { stdout: counted.to_string().into_bytes(), ..o }))
}

#[test]
fn slot_streams_a_large_input_in_small_memory() {
    // 40 MB of keys, about 2,000,000 lines.
    let lines = 2_000_000u64;
    let Some((kb, o)) = peak_rss(&["slot"], move |w| {
        let mut w = std::io::BufWriter::new(w);
        for i in 0..lines {
            if writeln!(w, "user:{{{i}}}:profile").is_err() {
                return;
            }
        }
    }) else {
        return;
    };
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(kb < 30_000, "peak RSS {kb} kB for 40 MB of input");
    // One 200 MB line without a newline: refused after 1 MiB, memory small.
    let Some((kb, o)) = peak_rss(&["slot"], |w| {
        let chunk = vec![0u8; 1 << 20];
        for _ in 0..200 {
            if w.write_all(&chunk).is_err() {
                return;
            }
        }
    }) else {
        return;
    };
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 1: a key line longer than 1048576 bytes"), "{}", stderr(&o));
    assert!(kb < 30_000, "peak RSS {kb} kB for a 200 MB line");
}
