//! Key sets: `prefix` followed by the numbers `0..count`.
//!
//! The documents use `user:0 … user:99999` and `key0 … key999999`. A
//! [`KeySet`] names such a set without storing it; [`KeySet::hashed`] hashes
//! every key once (on all cores, no allocation per key) into [`HashedKeys`],
//! which every experiment then reuses.
//!
//! ```
//! use reshard::{HashWidth, KeySet};
//! let keys = KeySet::new("user:", 3);
//! assert_eq!(keys.iter().collect::<Vec<_>>(), ["user:0", "user:1", "user:2"]);
//! let hashed = keys.hashed(HashWidth::Bits32)?;
//! assert_eq!(hashed.len(), 3);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::hash::HashWidth;
use crate::{limits, Error, Result};
use rayon::prelude::*;
use std::sync::OnceLock;

/// A set of keys `"{prefix}{i}"` for `i` in `0..count`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KeySet {
    prefix: String,
    count: usize,
}

/// A reusable buffer that spells one key at a time without allocating.
#[derive(Debug, Clone)]
pub struct KeyWriter {
    buf: Vec<u8>,
    prefix_len: usize,
}

impl KeyWriter {
    /// A writer for keys with this prefix.
    pub fn new(prefix: &str) -> Self {
        let mut buf = Vec::with_capacity(prefix.len() + 24);
        buf.extend_from_slice(prefix.as_bytes());
        KeyWriter { prefix_len: prefix.len(), buf }
    }

    /// The bytes of key number `i`; valid until the next call.
    #[inline]
    pub fn key(&mut self, i: usize) -> &[u8] {
        self.buf.truncate(self.prefix_len);
        push_decimal(&mut self.buf, i as u64);
        &self.buf
    }

    /// The bytes of key `i` followed by `suffix` (rendezvous hashes
    /// `"{key}:{node}"` this way).
    #[inline]
    pub fn key_with(&mut self, i: usize, suffix: &[u8]) -> &[u8] {
        self.buf.truncate(self.prefix_len);
        push_decimal(&mut self.buf, i as u64);
        self.buf.extend_from_slice(suffix);
        &self.buf
    }
}

/// Append the decimal digits of `n` to `buf`.
#[inline]
pub(crate) fn push_decimal(buf: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[at..]);
}

impl KeySet {
    /// The keys `"{prefix}0"` … `"{prefix}{count-1}"`.
    pub fn new(prefix: impl Into<String>, count: usize) -> Self {
        KeySet { prefix: prefix.into(), count }
    }

    /// `user:0 … user:{count-1}`, the keys of document `000`.
    pub fn users(count: usize) -> Self {
        KeySet::new("user:", count)
    }

    /// `key0 … key{count-1}`, the keys of documents `002` and `004`.
    pub fn plain(count: usize) -> Self {
        KeySet::new("key", count)
    }

    /// The prefix before each key's number.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// How many keys.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when there are no keys.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Key number `i` as a `String` (for display, not for hot loops).
    pub fn key(&self, i: usize) -> String {
        format!("{}{}", self.prefix, i)
    }

    /// Every key as a `String`, in order (for display and small sets).
    pub fn iter(&self) -> impl Iterator<Item = String> + '_ {
        (0..self.count).map(move |i| self.key(i))
    }

    /// A buffer that spells these keys without allocating.
    pub fn writer(&self) -> KeyWriter {
        KeyWriter::new(&self.prefix)
    }

    /// Hash every key once with md5 at `width`.
    ///
    /// Fails with [`Error::NoKeys`] on an empty set.
    pub fn hashed(&self, width: HashWidth) -> Result<HashedKeys> {
        if self.count == 0 {
            return Err(Error::NoKeys);
        }
        limits::check_hint(
            "keys hashed in memory",
            self.count as u128,
            limits::current().max_keys,
            "use fewer keys (modulo::count_moved_streaming counts hash % N over any number)",
        )?;
        limits::check_key_bytes(self.prefix.len(), self.count)?;
        const CHUNK: usize = 8192;
        let mut hashes = vec![0u128; self.count];
        hashes.par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
            let mut w = self.writer();
            let base = c * CHUNK;
            for (j, slot) in out.iter_mut().enumerate() {
                *slot = width.hash(w.key(base + j));
            }
        });
        Ok(HashedKeys { keys: self.clone(), width, hashes, sorted: OnceLock::new(), sorted_hashes: OnceLock::new() })
    }
}

/// A key set with every key's hash computed once, in key order.
#[derive(Debug, Clone)]
pub struct HashedKeys {
    keys: KeySet,
    width: HashWidth,
    hashes: Vec<u128>,
    sorted: OnceLock<Vec<u32>>,
    sorted_hashes: OnceLock<Vec<u128>>,
}

impl HashedKeys {
    /// Key indices in ascending order of hash (computed once, on first use).
    /// Walking keys in this order lets a ring assign all keys in one pass.
    pub fn sorted_order(&self) -> &[u32] {
        self.sorted.get_or_init(|| {
            let mut order: Vec<u32> = (0..self.hashes.len() as u32).collect();
            order.par_sort_unstable_by_key(|&i| self.hashes[i as usize]);
            order
        })
    }

    /// Every hash in ascending order (computed once, on first use): sweeps
    /// walk these against sorted ring points.
    pub fn sorted_hashes(&self) -> &[u128] {
        self.sorted_hashes.get_or_init(|| {
            let mut h = self.hashes.clone();
            h.par_sort_unstable();
            h
        })
    }

    /// The key set these hashes belong to.
    pub fn keys(&self) -> &KeySet {
        &self.keys
    }

    /// The hash width used.
    pub fn width(&self) -> HashWidth {
        self.width
    }

    /// The hash of key `i` is `hashes()[i]`.
    pub fn hashes(&self) -> &[u128] {
        &self.hashes
    }

    /// How many keys.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Never true: an empty key set is refused when hashing.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }
}
