//! Key sets: `prefix` followed by the numbers `0..count`, or your own keys.
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
//!
//! Your own keys (a `redis-cli --scan` dump, a column of a log) come in
//! through [`HashedKeys::from_keys`] (any strings or byte strings) or
//! [`HashedKeys::from_reader`] (one key per line, `\xHH` for a byte and
//! `\\` for a backslash, as `reshard slot` reads them; a `\r` before the
//! newline is dropped). Their bytes are kept in one buffer, so every scheme
//! that reads a key's bytes (rendezvous, ketama, Redis slots) sees them, and
//! the same keys give the same figures whichever way they came in:
//!
//! ```
//! use reshard::prelude::*;
//! let dump = "key0\nkey1\r\nkey2\n"; // a file, standard input: any BufRead
//! let mine = HashedKeys::from_reader(dump.as_bytes(), HashWidth::Bits128)?;
//! let numbered = KeySet::plain(3).hashed(HashWidth::Bits128)?;
//! assert_eq!(mine.hashes(), numbered.hashes());
//! let hrw = Rendezvous::new(2)?;
//! assert_eq!(hrw.assign(&mine), hrw.assign(&numbered));
//! // A bad line is refused with its number.
//! let err = HashedKeys::from_reader("ok\nbad\\q\n".as_bytes(), HashWidth::Bits32).unwrap_err();
//! assert!(matches!(err, Error::BadKey { line: 2, .. }), "{err}");
//! // Keys as bytes work too.
//! let raw = HashedKeys::from_keys([&b"\xff\xfe"[..], b"plain"], HashWidth::Bits32)?;
//! assert_eq!(raw.keys().get(0).as_deref(), Some("\\xff\\xfe"));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::hash::HashWidth;
use crate::{limits, Error, Result};
use rayon::prelude::*;
use std::fmt;
use std::io::BufRead;
use std::sync::{Arc, OnceLock};

mod bytes;
mod escape;
pub(crate) use bytes::KeyBytes;
pub use escape::{escape, unescape, unescape_into};

/// A set of keys: `"{prefix}{i}"` for `i` in `0..count`
/// ([`KeySet::new`]), or a list of your own keys ([`KeySet::from_keys`],
/// [`KeySet::from_reader`]), kept as one buffer of bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KeySet {
    prefix: String,
    count: usize,
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    list: Option<KeyList>,
}

/// Listed keys: every key's bytes one after another in one buffer, and
/// where each ends (no allocation per key). Shared, so a clone is cheap.
#[derive(Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(into = "Vec<Vec<u8>>", from = "Vec<Vec<u8>>")
)]
struct KeyList(Arc<Arena>);

#[derive(PartialEq, Eq)]
struct Arena {
    bytes: Vec<u8>,
    /// `offsets[i]..offsets[i + 1]` is key `i`; `offsets[0] == 0`. The
    /// bytes are limited to [`Limits::max_key_bytes`](crate::limits::Limits::max_key_bytes), so `u32` holds them.
    offsets: Vec<u32>,
}

impl KeyList {
    fn len(&self) -> usize {
        self.0.offsets.len() - 1
    }

    #[inline]
    fn get(&self, i: usize) -> Option<&[u8]> {
        let a = &self.0.offsets;
        let (start, end) = (*a.get(i)? as usize, *a.get(i.checked_add(1)?)? as usize);
        self.0.bytes.get(start..end)
    }
}

impl fmt::Debug for KeyList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyList({} keys, {} bytes)", self.len(), self.0.bytes.len())
    }
}

impl From<KeyList> for Vec<Vec<u8>> {
    fn from(l: KeyList) -> Self {
        (0..l.len()).map(|i| l.get(i).unwrap_or_default().to_vec()).collect()
    }
}

impl From<Vec<Vec<u8>>> for KeyList {
    fn from(keys: Vec<Vec<u8>>) -> Self {
        let mut b = Builder::new();
        for k in keys {
            b.arena.bytes.extend_from_slice(&k);
            b.arena.offsets.push(u32::try_from(b.arena.bytes.len()).unwrap_or(u32::MAX));
        }
        b.finish()
    }
}

/// Collects listed keys, refusing at once what is over the limits.
struct Builder {
    arena: Arena,
}

impl Builder {
    fn new() -> Self {
        Builder { arena: Arena { bytes: Vec::new(), offsets: vec![0] } }
    }

    /// Ends the key whose bytes were appended to `arena.bytes` since the last.
    fn end_key(&mut self) -> Result<()> {
        let keys = self.arena.offsets.len() as u128;
        limits::check_hint("keys held in memory", keys, limits::current().max_keys, "use fewer keys")?;
        let bytes = self.arena.bytes.len();
        limits::check_hint("bytes of keys held in memory", bytes as u128, max_held(), KEY_BYTES_HINT)?;
        self.arena.offsets.push(bytes as u32);
        Ok(())
    }

    /// Decode what `pending` holds of line `line` into the current key:
    /// all of it when the line `ends` here (a final `\r` dropped), else all
    /// but an escape it cuts and a final `\r`, which stay in `pending`.
    /// Fails on a bad escape, and as soon as the keys' bytes pass the limit.
    fn decode(&mut self, pending: &mut Vec<u8>, ends: bool, line: usize) -> Result<()> {
        let mut cut = pending.len();
        if ends {
            if pending.last() == Some(&b'\r') {
                pending.pop();
                cut -= 1;
            }
        } else {
            let mut i = 0;
            cut = 0;
            while i < pending.len() {
                let step = match pending[i] {
                    b'\\' => match pending.get(i + 1) {
                        None => break,
                        Some(b'x') => 4,
                        Some(_) => 2,
                    },
                    _ => 1,
                };
                if i + step > pending.len() {
                    break;
                }
                i += step;
                cut = i;
            }
            if cut == pending.len() && pending.last() == Some(&b'\r') {
                cut -= 1;
            }
        }
        unescape_into(&pending[..cut], &mut self.arena.bytes)
            .map_err(|e| Error::BadKey { line, reason: e.to_string() })?;
        pending.drain(..cut);
        limits::check_hint(
            "bytes of keys held in memory (counted until the first read past the limit: a line too long to fit)",
            self.arena.bytes.len() as u128,
            max_held(),
            KEY_BYTES_HINT,
        )
    }

    fn finish(mut self) -> KeyList {
        self.arena.bytes.shrink_to_fit();
        self.arena.offsets.shrink_to_fit();
        KeyList(Arc::new(self.arena))
    }
}

/// The most bytes of keys one key set spells, hashes or holds:
/// [`Limits::max_key_bytes`](crate::limits::Limits::max_key_bytes), and never
/// more than `u32` offsets address.
fn max_held() -> u128 {
    limits::current().max_key_bytes.min(u128::from(u32::MAX))
}

const KEY_BYTES_HINT: &str = "use fewer or shorter keys (a key set's bytes are hashed and held in memory)";

/// A reusable buffer that spells one key at a time without allocating.
#[derive(Debug, Clone)]
pub struct KeyWriter {
    buf: Vec<u8>,
    prefix_len: usize,
    list: Option<KeyList>,
}

impl KeyWriter {
    /// A writer for keys with this prefix.
    pub fn new(prefix: &str) -> Self {
        let mut buf = Vec::with_capacity(prefix.len() + 24);
        buf.extend_from_slice(prefix.as_bytes());
        KeyWriter { prefix_len: prefix.len(), buf, list: None }
    }

    /// The bytes of key number `i`; valid until the next call. For listed
    /// keys, `i` past the end gives the empty key.
    #[inline]
    pub fn key(&mut self, i: usize) -> &[u8] {
        if let Some(list) = &self.list {
            return list.get(i).unwrap_or_default();
        }
        self.buf.truncate(self.prefix_len);
        push_decimal(&mut self.buf, i as u64);
        &self.buf
    }

    /// The bytes of key `i` followed by `suffix` (rendezvous hashes
    /// `"{key}:{node}"` this way).
    #[inline]
    pub fn key_with(&mut self, i: usize, suffix: &[u8]) -> &[u8] {
        if let Some(list) = &self.list {
            self.buf.clear();
            self.buf.extend_from_slice(list.get(i).unwrap_or_default());
        } else {
            self.buf.truncate(self.prefix_len);
            push_decimal(&mut self.buf, i as u64);
        }
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

/// The bytes of `"{prefix}0"` … `"{prefix}{count-1}"` together.
fn numbered_bytes(prefix_len: usize, count: usize) -> u128 {
    let count = count as u128;
    let mut total = (prefix_len as u128).saturating_mul(count);
    let (mut low, mut high, mut digits) = (0u128, 10u128, 1u128);
    while low < count {
        total = total.saturating_add((high.min(count) - low) * digits);
        (low, high, digits) = (high, high.saturating_mul(10), digits + 1);
    }
    total
}

impl KeySet {
    /// The keys `"{prefix}0"` … `"{prefix}{count-1}"`.
    pub fn new(prefix: impl Into<String>, count: usize) -> Self {
        KeySet { prefix: prefix.into(), count, list: None }
    }

    /// `user:0 … user:{count-1}`, the keys of document `000`.
    pub fn users(count: usize) -> Self {
        KeySet::new("user:", count)
    }

    /// `key0 … key{count-1}`, the keys of documents `002` and `004`.
    pub fn plain(count: usize) -> Self {
        KeySet::new("key", count)
    }

    /// Your own keys, in this order: strings (`&str`, `String`) or byte
    /// strings (`&[u8]`, `Vec<u8>`), taken as they are (no escapes).
    ///
    /// Fails with [`Error::TooLarge`] as soon as the keys or their bytes
    /// pass [`Limits::max_keys`](crate::limits::Limits::max_keys) or [`Limits::max_key_bytes`](crate::limits::Limits::max_key_bytes).
    ///
    /// ```
    /// use reshard::KeySet;
    /// let keys = KeySet::from_keys(["user:{42}:name", "cart:7"])?;
    /// assert_eq!((keys.len(), keys.get(1).as_deref()), (2, Some("cart:7")));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn from_keys<I>(keys: I) -> Result<Self>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let keys = keys.into_iter();
        limits::check_hint(
            "keys held in memory",
            keys.size_hint().0 as u128,
            limits::current().max_keys,
            "use fewer keys",
        )?;
        let mut b = Builder::new();
        for k in keys {
            let k = k.as_ref();
            let bytes = b.arena.bytes.len() as u128 + k.len() as u128;
            limits::check_hint("bytes of keys held in memory", bytes, max_held(), KEY_BYTES_HINT)?;
            b.arena.bytes.extend_from_slice(k);
            b.end_key()?;
        }
        Ok(KeySet::listed(b.finish()))
    }

    /// Your own keys from a key dump, one per line: `\xHH` (two hex
    /// digits) is the byte HH and `\\` a backslash, every other byte stands
    /// for itself (see [`unescape`]); a `\r` before the newline is dropped,
    /// and every line is a key (an empty line is the empty key).
    ///
    /// Fails with [`Error::BadKey`] naming the first bad line (or the line
    /// where reading failed), and with [`Error::TooLarge`] as soon as the
    /// keys or their bytes pass the limits, without reading further.
    ///
    /// ```
    /// use reshard::KeySet;
    /// let keys = KeySet::from_reader("a\r\n\\xff{x}\n".as_bytes())?;
    /// assert_eq!(keys.writer().key(1), b"\xff{x}");
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn from_reader(mut reader: impl BufRead) -> Result<Self> {
        let mut b = Builder::new();
        // The current line's bytes not decoded yet: at most an escape cut by
        // the end of a read and a `\r` (a line is decoded as it is read, so
        // a line too long to fit is refused once its decoded bytes pass the
        // limit, after reading no more than that).
        let mut pending: Vec<u8> = Vec::new();
        let (mut line, mut in_line) = (1usize, false);
        loop {
            let buf = match reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::BadKey { line, reason: format!("cannot read it: {e}") }),
            };
            if buf.is_empty() {
                if in_line {
                    b.decode(&mut pending, true, line)?;
                    b.end_key()?;
                }
                break;
            }
            let (chunk, ends_line) = match buf.iter().position(|&c| c == b'\n') {
                Some(at) => (&buf[..at], true),
                None => (buf, false),
            };
            pending.extend_from_slice(chunk);
            let used = chunk.len() + usize::from(ends_line);
            reader.consume(used);
            in_line = true;
            b.decode(&mut pending, ends_line, line)?;
            if ends_line {
                b.end_key()?;
                (line, in_line) = (line + 1, false);
            }
        }
        Ok(KeySet::listed(b.finish()))
    }

    fn listed(list: KeyList) -> Self {
        KeySet { prefix: String::new(), count: list.len(), list: Some(list) }
    }

    /// True for your own keys ([`from_keys`](KeySet::from_keys),
    /// [`from_reader`](KeySet::from_reader)), false for `"{prefix}{i}"`.
    pub fn is_listed(&self) -> bool {
        self.list.is_some()
    }

    /// The prefix before each key's number (`""` for listed keys).
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

    /// Key number `i` as a `String` (for display, not for hot loops), or
    /// `None` past the end; a listed key is written with the escapes of
    /// [`escape`].
    ///
    /// ```
    /// use reshard::KeySet;
    /// assert_eq!(KeySet::plain(10).get(9).as_deref(), Some("key9"));
    /// assert_eq!(KeySet::plain(10).get(10), None);
    /// let mine = KeySet::from_keys([&b"a\\b\xff"[..]])?;
    /// assert_eq!(mine.get(0).as_deref(), Some(r"a\\b\xff"));
    /// assert_eq!(mine.get(1), None);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn get(&self, i: usize) -> Option<String> {
        match &self.list {
            Some(list) => list.get(i).map(escape),
            None => (i < self.count).then(|| format!("{}{}", self.prefix, i)),
        }
    }

    /// Key `i` as text to show, for a key known to be there (a table row, a
    /// worked example): past the end it is the note `(no key i: the key set
    /// has n)`, never a key. Use [`get`](KeySet::get) to test.
    ///
    /// ```
    /// use reshard::KeySet;
    /// assert_eq!(KeySet::plain(10).key(3), "key3");
    /// assert_eq!(KeySet::plain(10).key(10), "(no key 10: the key set has 10)");
    /// ```
    pub fn key(&self, i: usize) -> String {
        self.get(i).unwrap_or_else(|| format!("(no key {i}: the key set has {})", self.count))
    }

    /// Every key as a `String`, in order (for display and small sets).
    pub fn iter(&self) -> impl Iterator<Item = String> + '_ {
        (0..self.count).filter_map(move |i| self.get(i))
    }

    /// A buffer that spells these keys without allocating.
    pub fn writer(&self) -> KeyWriter {
        let mut w = KeyWriter::new(&self.prefix);
        w.list = self.list.clone();
        w
    }

    /// The bytes of every key together (keys × their length).
    pub fn byte_len(&self) -> u128 {
        match &self.list {
            Some(list) => list.0.bytes.len() as u128,
            None => numbered_bytes(self.prefix.len(), self.count),
        }
    }

    /// Hash every key once with md5 at `width`.
    ///
    /// Fails with [`Error::NoKeys`] on an empty set, and with
    /// [`Error::TooLarge`] at once when the keys or their bytes are over
    /// [`Limits::max_keys`](crate::limits::Limits::max_keys) or [`Limits::max_key_bytes`](crate::limits::Limits::max_key_bytes).
    pub fn hashed(&self, width: HashWidth) -> Result<HashedKeys> {
        if self.count == 0 {
            return Err(Error::NoKeys);
        }
        limits::check_hint(
            "keys hashed in memory",
            self.count as u128,
            limits::current().max_keys,
            "use fewer keys (analysis::modulo::count_moved_streaming counts hash % N over any number)",
        )?;
        limits::check_hint("bytes of keys (keys × their length)", self.byte_len(), max_held(), KEY_BYTES_HINT)?;
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
    /// Your own keys (strings or byte strings, no escapes), hashed once:
    /// [`KeySet::from_keys`] then [`KeySet::hashed`].
    ///
    /// ```
    /// use reshard::{HashWidth, HashedKeys, KeySet};
    /// let mine = HashedKeys::from_keys(["key0", "key1"], HashWidth::Bits128)?;
    /// assert_eq!(mine.hashes(), KeySet::plain(2).hashed(HashWidth::Bits128)?.hashes());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn from_keys<I>(keys: I, width: HashWidth) -> Result<Self>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        KeySet::from_keys(keys)?.hashed(width)
    }

    /// Keys read one per line, hashed once: [`KeySet::from_reader`] then
    /// [`KeySet::hashed`] (see the [module](self) example).
    pub fn from_reader(reader: impl BufRead, width: HashWidth) -> Result<Self> {
        KeySet::from_reader(reader)?.hashed(width)
    }

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
