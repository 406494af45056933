//! Your own keys: `HashedKeys::from_keys` and `from_reader` against the
//! numbered key sets, the escapes, bad lines, and the byte limits.
//!
//! The figure 909,138 (keys of `key0 … key999999` that move under hash % N
//! from 10 to 11 nodes, md5 128-bit) is document 004's; every other
//! expectation is computed in the test.

use crate::common;

use common::expect_err;
use reshard::notebook::*;
use std::io::Write as _;
use std::time::{Duration, Instant};

/// `key0\n … key{n-1}\n`, written by the test.
fn key_lines(n: usize) -> Vec<u8> {
    let mut text = Vec::with_capacity(n * 11);
    for i in 0..n {
        writeln!(text, "key{i}").unwrap();
    }
    text
}

#[test]
fn a_million_lines_give_document_004s_figure() {
    let text = key_lines(1_000_000);
    let t0 = Instant::now();
    let mine = HashedKeys::from_reader(text.as_slice(), HashWidth::Bits128).unwrap();
    eprintln!("1,000,000 lines read and hashed in {:.2} s", t0.elapsed().as_secs_f64());
    let numbered = KeySet::plain(1_000_000).hashed(HashWidth::Bits128).unwrap();
    assert_eq!(mine.len(), 1_000_000);
    assert_eq!(mine.hashes(), numbered.hashes());
    let (m10, m11) = (Modulo::new(10).unwrap(), Modulo::new(11).unwrap());
    // Document 004: hash % N, 10 → 11, moves 909,138 of the 1,000,000 keys.
    assert_eq!(Movement::measure(&mine, &m10, &m11).unwrap().moved(), 909_138);
    assert_eq!(Movement::measure(&numbered, &m10, &m11).unwrap().moved(), 909_138);
}

#[test]
fn schemes_that_read_key_bytes_see_listed_keys() {
    // Rendezvous hashes "{key}:{node}", ketama at 32 bits and Redis slots
    // read the key's bytes: the same keys, listed or numbered, land alike.
    let n = 3000;
    let listed = HashedKeys::from_keys((0..n).map(|i| format!("user:{i}")), HashWidth::Bits32).unwrap();
    let numbered = KeySet::users(n).hashed(HashWidth::Bits32).unwrap();
    let hrw = Rendezvous::new(7).unwrap();
    assert_eq!(hrw.assign(&listed), hrw.assign(&numbered));
    let ketama = Ketama::new(5).unwrap();
    assert_eq!(ketama.assign(&listed), ketama.assign(&numbered));
    let slots = Slots::new(3).unwrap();
    assert_eq!(slots.assign(&listed), slots.assign(&numbered));
    let m = Movement::measure(&listed, &hrw, &hrw.add_node("7").unwrap()).unwrap();
    let m2 = Movement::measure(&numbered, &hrw, &hrw.add_node("7").unwrap()).unwrap();
    assert_eq!((m.moved(), m.to_added()), (m2.moved(), m2.to_added()));
    // Every key moved under rendezvous goes to the added node.
    assert_eq!(m.moved(), m.to_added());
}

#[test]
fn binary_keys_escapes_and_crlf() {
    // Redis: CLUSTER KEYSLOT of the bytes ff fe is 3374; of "somekey" 11058.
    let text = b"\\xff\\xfe\r\nsomekey\na\\\\b\n\n";
    let keys = KeySet::from_reader(&text[..]).unwrap();
    assert_eq!(keys.len(), 4, "the empty line is the empty key");
    let mut w = keys.writer();
    assert_eq!(w.key(0), [0xff, 0xfe]);
    assert_eq!(w.key(1), b"somekey");
    assert_eq!(w.key(2), b"a\\b");
    assert_eq!(w.key(3), b"");
    assert_eq!(key_slot(w.key(0)), 3374);
    assert_eq!(key_slot(w.key(1)), 11058);
    assert_eq!(keys.get(0).as_deref(), Some("\\xff\\xfe"));
    assert!(keys.is_listed() && !KeySet::plain(3).is_listed());
    assert_eq!(keys.to_string(), "4 listed keys (\\xff\\xfe … )");
    // Byte strings come in as they are, without escapes.
    let raw = KeySet::from_keys([&b"\\x41"[..], &[0u8, 1, 2]]).unwrap();
    assert_eq!(raw.writer().key(0), b"\\x41");
    assert_eq!(raw.writer().key_with(1, b":n"), [0, 1, 2, b':', b'n']);
    assert_eq!(raw.writer().key(9), b"", "past the end: the empty key, no panic");
}

#[test]
fn a_bad_line_is_named_by_its_number() {
    for (text, line, hint) in [
        (&b"ok\nfine\n\\x+f\n"[..], 3, "exactly two hex digits"),
        (b"\\q\n", 1, "not an escape"),
        (b"a\nb\nc\\x4", 3, "byte escape"),
        (b"a\r\n\\xg0\r\n", 2, "two hex digits"),
    ] {
        let err = KeySet::from_reader(text).unwrap_err();
        assert!(matches!(&err, Error::BadKey { line: l, .. } if *l == line), "{err:?}");
        let msg = err.to_string();
        assert!(msg.starts_with(&format!("line {line} of the keys: ")) && msg.contains(hint), "{msg}");
    }
    expect_err("no keys", || HashedKeys::from_reader(&b""[..], HashWidth::Bits32), |e| *e == Error::NoKeys, "empty");
}

#[test]
fn long_keys_are_refused_by_their_bytes_at_once() {
    let t0 = Instant::now();
    // 100,000 keys of a 1 MiB prefix: 100 GiB to hash.
    expect_err(
        "1 MiB prefix",
        || KeySet::new("x".repeat(1 << 20), 100_000).hashed(HashWidth::Bits128),
        |e| matches!(e, Error::TooLarge { what, .. } if what.contains("bytes")),
        "1,000,000,000",
    );
    expect_err(
        "1 MiB prefix, streamed",
        || {
            let keys = KeySet::new("x".repeat(1 << 20), 100_000);
            reshard::analysis::modulo::count_moved_streaming(&keys, HashWidth::Bits128, 10, 11)
        },
        |e| matches!(e, Error::TooLarge { .. }),
        "md5 blocks to stream",
    );
    // The bytes counted: 100,000 × 1,048,576 + the digits of 0 … 99,999.
    let digits: u128 = (0..100_000u32).map(|i| i.to_string().len() as u128).sum();
    let err = KeySet::new("x".repeat(1 << 20), 100_000).hashed(HashWidth::Bits32).unwrap_err();
    assert!(matches!(err, Error::TooLarge { asked, .. } if asked == 100_000 * (1 << 20) + digits), "{err:?}");
    assert_eq!(
        KeySet::new("ab", 1000).byte_len(),
        2000 + (0..1000).map(|i: u32| i.to_string().len() as u128).sum::<u128>()
    );
    // Too many keys, known from the iterator's length before reading it.
    expect_err(
        "30,000,000 keys",
        || KeySet::from_keys((0..30_000_000).map(|i: u32| i.to_be_bytes())),
        |e| matches!(e, Error::TooLarge { .. }),
        "20,000,000",
    );
    // Long keys from an iterator of unknown length stop at the byte limit.
    let big = vec![b'k'; 1 << 20];
    expect_err(
        "1,000 keys of 1 MiB",
        || KeySet::from_keys(std::iter::repeat_n(&big, 1_000).filter(|_| true)),
        |e| matches!(e, Error::TooLarge { .. }),
        "bytes of keys held in memory",
    );
    // Long node names or salt on a ring, long names for rendezvous.
    let long = "n".repeat(100_000);
    let names: Vec<String> = (0..11).map(|i| format!("{long}{i}")).collect();
    expect_err(
        "ring of long names",
        || Ring::named(names.clone())?.with_vnodes(2441),
        |e| matches!(e, Error::TooLarge { .. }),
        "bytes of node names",
    );
    let keys = KeySet::plain(48_000).hashed(HashWidth::Bits128).unwrap();
    expect_err(
        "ring with a long salt",
        // 1 MiB × 24,410 points: 25 GB of md5 input (a 100,000-byte salt, 2.4 GB, is allowed)
        || Ring::new(10)?.with_vnodes(2441)?.with_salt("s".repeat(1 << 20)).map(|r| r.vnodes()),
        |e| matches!(e, Error::TooLarge { .. }),
        "shorter salt",
    );
    expect_err(
        "rendezvous with long names",
        || Movement::measure(&keys, &Rendezvous::named(names[..10].to_vec())?, &Rendezvous::named(names.clone())?),
        |e| matches!(e, Error::TooLarge { .. }),
        "bytes of node names",
    );
    assert!(t0.elapsed() < Duration::from_secs(10), "refused in {:?}", t0.elapsed());
}
