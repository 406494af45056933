//! Limits raised to their hard caps, and lowered: a process-wide setting,
//! so this file is its own test binary with one test (as tests/limits.rs).
//! Nothing aborts at a cap: what would not fit is refused at once.

use reshard::limits::{self, Limits};
use reshard::prelude::*;
use std::io::{BufReader, Read};
use std::time::Instant;

/// A reader of `n` bytes of `b` that counts what was read.
struct Counted<R> {
    inner: R,
    read: std::rc::Rc<std::cell::Cell<u64>>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

#[test]
fn limits_at_their_caps_refuse_rather_than_abort() {
    let keys = KeySet::plain(10).hashed(HashWidth::Bits128).unwrap();
    // max_nodes at its cap, 2^20: a movement matrix of a million nodes
    // squared (8.8 TB) is refused before it is allocated
    let before = limits::set(Limits::default().with_max_nodes(1 << 20).with_max_name_bytes(1 << 30)).unwrap();
    let (a, b) = (Modulo::new(1 << 20).unwrap(), Modulo::new((1 << 20) - 1).unwrap());
    let t0 = Instant::now();
    let err = Movement::measure(&keys, &a, &b).unwrap_err();
    assert!(matches!(err, Error::TooLarge { limit, .. } if limit == limits::MAX_MATRIX_CELLS), "{err:?}");
    assert!(err.to_string().contains("movement matrix"), "{err}");
    assert!(t0.elapsed().as_secs_f64() < 10.0, "{:?}", t0.elapsed());
    let err = Movement::measure(&keys, &Modulo::new(8193).unwrap(), &Modulo::new(8192).unwrap()).unwrap_err();
    assert!(matches!(err, Error::TooLarge { .. }), "{err:?}");
    // what fits still runs, at any setting
    let placed = LoadReport::measure(&keys, &Modulo::new(1 << 20).unwrap()).unwrap();
    assert_eq!(placed.total(), 10);
    // a key count past what 32-bit sort indices hold is not a setting
    assert!(matches!(limits::set(Limits::default().with_max_keys(1 << 32)), Err(Error::TooLarge { .. })));
    assert!(limits::set(Limits::default().with_max_keys(u128::from(u32::MAX))).is_ok());

    // a key line longer than the bytes allowed is refused once the bytes
    // read pass the limit, with the bytes it had: not after reading four
    // times the limit, not with a count below the limit
    limits::set(Limits::default().with_max_key_bytes(1 << 20)).unwrap();
    let read = std::rc::Rc::new(std::cell::Cell::new(0));
    let line = Counted { inner: std::io::repeat(b'a').take(3 << 20), read: read.clone() };
    let err = KeySet::from_reader(BufReader::new(line)).unwrap_err();
    let Error::TooLarge { asked, limit, .. } = err.clone() else { panic!("{err:?}") };
    assert_eq!(limit, 1 << 20);
    assert!(asked > limit && asked <= limit + (64 << 10), "{asked} bytes");
    assert!(read.get() <= (1 << 20) + (64 << 10), "read {} bytes", read.get());
    // escapes count as the bytes they stand for
    let escaped = "\\xff".repeat(300_000) + "\n";
    assert_eq!(KeySet::from_reader(escaped.as_bytes()).unwrap().byte_len(), 300_000);
    let err = KeySet::from_reader(("\\xff".repeat(300_000) + "\n" + &"\\x41".repeat(800_000)).as_bytes());
    assert!(matches!(err, Err(Error::TooLarge { asked, .. }) if asked > 1 << 20), "{err:?}");

    limits::set(before).unwrap();
    assert_eq!(limits::current(), Limits::default());
}
