//! twemproxy's key hashes: the twelve values of its `hash:` setting.
//!
//! twemproxy (nutcracker 0.5.0, `src/hashkit/`) hashes a key's bytes to a
//! 32-bit number with the function a pool names in `hash:` (default
//! `fnv1a_64`), then hands that number to the distribution ([`Twemproxy`]).
//! Every function here gives what nutcracker gives on x86-64, quirks
//! included:
//!
//! * the "64-bit" FNV hashes return only the low 32 bits (their state is
//!   kept in 32 bits, which gives the same low half);
//! * `fnv1_64`, `fnv1a_64`, `fnv1_32`, `fnv1a_32`, `one_at_a_time` and
//!   the 3-byte tail of `hsieh` read each byte as a C `char`, signed on
//!   x86-64, so a byte ≥ 0x80 enters as `0xFFFFFFxx`: for non-ASCII keys
//!   they differ from the published FNV / one-at-a-time functions (on an
//!   ARM build of nutcracker, where `char` is unsigned, they would not);
//! * `crc32` is libmemcached's: bits 16–30 of the standard CRC-32, a number
//!   below 32768; `crc32a` is the standard CRC-32;
//! * `crc16` keeps its state in 32 bits, so the value is CRC16-XMODEM in
//!   the low 16 bits with the earlier states' bytes above them;
//! * `murmur` is MurmurHash2 seeded with `0xdeadbeef × length`;
//!   `jenkins` is Bob Jenkins' lookup3 `hashlittle` with initial value 13;
//!   `md5` is the first 4 bytes of md5, little-endian (as libketama).
//!
//! ```
//! use reshard::TwemHash;
//! // FNV-1a 64 of "foobar" is 0x85944171f73967e8 (FNV test suite): low half
//! assert_eq!(TwemHash::Fnv1a64.hash(b"foobar"), 0xf739_67e8);
//! assert_eq!(TwemHash::Crc32a.hash(b"123456789"), 0xcbf4_3926); // CRC-32 check value
//! assert_eq!("one_at_a_time".parse::<TwemHash>()?, TwemHash::OneAtATime);
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! [`Twemproxy`]: crate::schemes::Twemproxy

use crate::schemes::ketama::ketama_hash;
use crate::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// One of twemproxy's key hashes, named as its `hash:` setting spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TwemHash {
    /// `one_at_a_time`: Jenkins' one-at-a-time hash (bytes as signed char).
    OneAtATime,
    /// `md5`: the first 4 bytes of md5, little-endian.
    Md5,
    /// `crc16`: CRC16-XMODEM with a 32-bit state (higher bits kept).
    Crc16,
    /// `crc32`: libmemcached's, `(crc32 >> 16) & 0x7fff`.
    Crc32,
    /// `crc32a`: the standard CRC-32 (IEEE, as zlib).
    Crc32a,
    /// `fnv1_64`: FNV-1 64-bit, low 32 bits (bytes as signed char).
    Fnv1_64,
    /// `fnv1a_64`: FNV-1a 64-bit, low 32 bits (bytes as signed char); the default.
    Fnv1a64,
    /// `fnv1_32`: FNV-1 32-bit (bytes as signed char).
    Fnv1_32,
    /// `fnv1a_32`: FNV-1a 32-bit (bytes as signed char).
    Fnv1a32,
    /// `hsieh`: Paul Hsieh's SuperFastHash.
    Hsieh,
    /// `murmur`: MurmurHash2, seed `0xdeadbeef × length`.
    Murmur,
    /// `jenkins`: lookup3 `hashlittle`, initial value 13.
    Jenkins,
}

impl TwemHash {
    /// All twelve, in the order twemproxy lists them.
    pub const ALL: [TwemHash; 12] = [
        TwemHash::OneAtATime,
        TwemHash::Md5,
        TwemHash::Crc16,
        TwemHash::Crc32,
        TwemHash::Crc32a,
        TwemHash::Fnv1_64,
        TwemHash::Fnv1a64,
        TwemHash::Fnv1_32,
        TwemHash::Fnv1a32,
        TwemHash::Hsieh,
        TwemHash::Murmur,
        TwemHash::Jenkins,
    ];

    /// The name in a twemproxy config (`"fnv1a_64"`, `"md5"`, …).
    ///
    /// ```
    /// assert_eq!(reshard::TwemHash::Fnv1a64.name(), "fnv1a_64");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            TwemHash::OneAtATime => "one_at_a_time",
            TwemHash::Md5 => "md5",
            TwemHash::Crc16 => "crc16",
            TwemHash::Crc32 => "crc32",
            TwemHash::Crc32a => "crc32a",
            TwemHash::Fnv1_64 => "fnv1_64",
            TwemHash::Fnv1a64 => "fnv1a_64",
            TwemHash::Fnv1_32 => "fnv1_32",
            TwemHash::Fnv1a32 => "fnv1a_32",
            TwemHash::Hsieh => "hsieh",
            TwemHash::Murmur => "murmur",
            TwemHash::Jenkins => "jenkins",
        }
    }

    /// The 32-bit hash of `key`, as nutcracker computes it on x86-64.
    ///
    /// ```
    /// use reshard::TwemHash;
    /// // FNV-1 32 of "a" is 0x050c5d7e (FNV test suite)
    /// assert_eq!(TwemHash::Fnv1_32.hash(b"a"), 0x050c_5d7e);
    /// // libmemcached's crc32 keeps bits 16–30 of CRC-32 0xcbf43926
    /// assert_eq!(TwemHash::Crc32.hash(b"123456789"), 0x4bf4);
    /// ```
    pub fn hash(self, key: &[u8]) -> u32 {
        match self {
            TwemHash::OneAtATime => one_at_a_time(key),
            TwemHash::Md5 => ketama_hash(key),
            TwemHash::Crc16 => crc16_wide(key),
            TwemHash::Crc32 => (crc32(key) >> 16) & 0x7fff,
            TwemHash::Crc32a => crc32(key),
            TwemHash::Fnv1_64 => fnv(key, FNV64_INIT_LOW, FNV64_PRIME_LOW, false),
            TwemHash::Fnv1a64 => fnv(key, FNV64_INIT_LOW, FNV64_PRIME_LOW, true),
            TwemHash::Fnv1_32 => fnv(key, FNV32_INIT, FNV32_PRIME, false),
            TwemHash::Fnv1a32 => fnv(key, FNV32_INIT, FNV32_PRIME, true),
            TwemHash::Hsieh => hsieh(key),
            TwemHash::Murmur => murmur2(key),
            TwemHash::Jenkins => lookup3(key, 13),
        }
    }
}

impl fmt::Display for TwemHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TwemHash {
    type Err = Error;

    /// A hash by its config name; an unknown name lists the twelve.
    fn from_str(s: &str) -> Result<Self> {
        TwemHash::ALL.into_iter().find(|h| h.name() == s).ok_or_else(|| {
            let names: Vec<&str> = TwemHash::ALL.iter().map(|h| h.name()).collect();
            Error::UnknownName {
                what: "twemproxy hash",
                given: s.to_string(),
                choices: format!("one of {}", names.join(", ")),
            }
        })
    }
}

/// A byte as C reads a `char` on x86-64 (signed), widened to 32 bits.
#[inline]
fn signed(b: u8) -> u32 {
    b as i8 as i32 as u32
}

// ------------------------------------------------------------------ FNV --

/// The low halves of FNV's 64-bit offset basis and prime: the low 32 bits
/// of a 64-bit product depend on the low 32 bits of its factors only.
const FNV64_INIT_LOW: u32 = 0xcbf2_9ce4_8422_2325_u64 as u32;
const FNV64_PRIME_LOW: u32 = 0x0000_0100_0000_01b3_u64 as u32;
const FNV32_INIT: u32 = 0x811c_9dc5;
const FNV32_PRIME: u32 = 0x0100_0193;

/// FNV-1 (multiply, then xor) or FNV-1a (xor, then multiply) in 32 bits.
#[inline]
fn fnv(key: &[u8], init: u32, prime: u32, xor_first: bool) -> u32 {
    key.iter().fold(init, |h, &b| {
        if xor_first {
            (h ^ signed(b)).wrapping_mul(prime)
        } else {
            h.wrapping_mul(prime) ^ signed(b)
        }
    })
}

// ---------------------------------------------------------------- CRCs --

/// The reflected CRC-32 table (polynomial 0xEDB88320).
const CRC32_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut bit = 0;
        while bit < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ 0xedb8_8320 } else { c >> 1 };
            bit += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

/// The standard CRC-32 (IEEE 802.3, as zlib and nginx compute it): start
/// at `0xFFFFFFFF`, reflected table, final xor with `0xFFFFFFFF`.
///
/// ```
/// assert_eq!(reshard::schemes::hashkit::crc32(b"123456789"), 0xcbf4_3926);
/// assert_eq!(reshard::schemes::hashkit::crc32(b""), 0);
/// ```
#[inline]
pub fn crc32(bytes: &[u8]) -> u32 {
    !crc32_update(!0, bytes)
}

/// CRC-32 continued over more bytes from a running (not yet inverted)
/// state: nginx builds its ring points this way.
#[inline]
pub(crate) fn crc32_update(state: u32, bytes: &[u8]) -> u32 {
    bytes.iter().fold(state, |c, &b| CRC32_TABLE[usize::from(c as u8 ^ b)] ^ (c >> 8))
}

/// The MSB-first CRC16 table for polynomial 0x1021 (XMODEM).
const CRC16_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = (i as u16) << 8;
        let mut bit = 0;
        while bit < 8 {
            c = if c & 0x8000 != 0 { (c << 1) ^ 0x1021 } else { c << 1 };
            bit += 1;
        }
        table[i] = c as u32;
        i += 1;
    }
    table
};

/// twemproxy's `crc16`: the XMODEM step on a 32-bit state that is never
/// cut back to 16 bits.
fn crc16_wide(key: &[u8]) -> u32 {
    key.iter().fold(0u32, |c, &b| (c << 8) ^ CRC16_TABLE[usize::from((c >> 8) as u8 ^ b)])
}

// ------------------------------------------------------- byte-at-a-time --

/// Jenkins' one-at-a-time hash, bytes as signed char.
fn one_at_a_time(key: &[u8]) -> u32 {
    let mut v = key.iter().fold(0u32, |mut v, &b| {
        v = v.wrapping_add(signed(b));
        v = v.wrapping_add(v << 10);
        v ^ (v >> 6)
    });
    v = v.wrapping_add(v << 3);
    v ^= v >> 11;
    v.wrapping_add(v << 15)
}

/// Two bytes, little-endian.
#[inline]
fn le16(b: &[u8]) -> u32 {
    u32::from(b[0]) | (u32::from(b[1]) << 8)
}

/// Paul Hsieh's SuperFastHash as twemproxy has it (0 for the empty key).
fn hsieh(key: &[u8]) -> u32 {
    if key.is_empty() {
        return 0;
    }
    let mut h = 0u32;
    let mut blocks = key.chunks_exact(4);
    for blk in &mut blocks {
        h = h.wrapping_add(le16(blk));
        let tmp = (le16(&blk[2..]) << 11) ^ h;
        h = (h << 16) ^ tmp;
        h = h.wrapping_add(h >> 11);
    }
    let rest = blocks.remainder();
    match rest.len() {
        3 => {
            h = h.wrapping_add(le16(rest));
            h ^= h << 16;
            h ^= signed(rest[2]) << 18;
            h = h.wrapping_add(h >> 11);
        }
        2 => {
            h = h.wrapping_add(le16(rest));
            h ^= h << 11;
            h = h.wrapping_add(h >> 17);
        }
        1 => {
            h = h.wrapping_add(u32::from(rest[0]));
            h ^= h << 10;
            h = h.wrapping_add(h >> 1);
        }
        _ => {}
    }
    h ^= h << 3;
    h = h.wrapping_add(h >> 5);
    h ^= h << 4;
    h = h.wrapping_add(h >> 17);
    h ^= h << 25;
    h.wrapping_add(h >> 6)
}

/// MurmurHash2 with twemproxy's seed, `0xdeadbeef × length`.
fn murmur2(key: &[u8]) -> u32 {
    const M: u32 = 0x5bd1_e995;
    let len = key.len() as u32;
    let mut h = 0xdead_beef_u32.wrapping_mul(len) ^ len;
    let mut blocks = key.chunks_exact(4);
    for blk in &mut blocks {
        let mut k = u32::from_le_bytes([blk[0], blk[1], blk[2], blk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> 24;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M) ^ k;
    }
    let rest = blocks.remainder();
    if !rest.is_empty() {
        for (i, &b) in rest.iter().enumerate().rev() {
            h ^= u32::from(b) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^ (h >> 15)
}

/// Bob Jenkins' lookup3 `hashlittle` (2006), read byte by byte (the same
/// value as its aligned paths on a little-endian machine).
fn lookup3(key: &[u8], initval: u32) -> u32 {
    let start = 0xdead_beef_u32.wrapping_add(key.len() as u32).wrapping_add(initval);
    let (mut a, mut b, mut c) = (start, start, start);
    if key.is_empty() {
        return c;
    }
    let word = |s: &[u8]| -> u32 { s.iter().rev().fold(0u32, |w, &x| (w << 8) | u32::from(x)) };
    let mut rest = key;
    while rest.len() > 12 {
        a = a.wrapping_add(word(&rest[0..4]));
        b = b.wrapping_add(word(&rest[4..8]));
        c = c.wrapping_add(word(&rest[8..12]));
        // mix
        a = a.wrapping_sub(c) ^ c.rotate_left(4);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a) ^ a.rotate_left(6);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b) ^ b.rotate_left(8);
        b = b.wrapping_add(a);
        a = a.wrapping_sub(c) ^ c.rotate_left(16);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a) ^ a.rotate_left(19);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b) ^ b.rotate_left(4);
        b = b.wrapping_add(a);
        rest = &rest[12..];
    }
    // the last 1..=12 bytes, zero-padded into a, b, c
    a = a.wrapping_add(word(&rest[..rest.len().min(4)]));
    if rest.len() > 4 {
        b = b.wrapping_add(word(&rest[4..rest.len().min(8)]));
    }
    if rest.len() > 8 {
        c = c.wrapping_add(word(&rest[8..]));
    }
    // final
    c = (c ^ b).wrapping_sub(b.rotate_left(14));
    a = (a ^ c).wrapping_sub(c.rotate_left(11));
    b = (b ^ a).wrapping_sub(a.rotate_left(25));
    c = (c ^ b).wrapping_sub(b.rotate_left(16));
    a = (a ^ c).wrapping_sub(c.rotate_left(4));
    b = (b ^ a).wrapping_sub(a.rotate_left(14));
    (c ^ b).wrapping_sub(b.rotate_left(24))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// lookup3.c's own self-test: hashlittle("", 0) = 0xdeadbeef and
    /// "Four score and seven years ago" with initval 0 and 1.
    #[test]
    fn lookup3_matches_its_published_driver_values() {
        assert_eq!(lookup3(b"", 0), 0xdead_beef);
        assert_eq!(lookup3(b"Four score and seven years ago", 0), 0x1777_0551);
        assert_eq!(lookup3(b"Four score and seven years ago", 1), 0xcd62_8161);
    }

    #[test]
    fn unknown_names_are_refused_with_the_list() {
        let err = "fnv1a64".parse::<TwemHash>().unwrap_err();
        assert!(err.to_string().contains("fnv1a_64"), "{err}");
        for h in TwemHash::ALL {
            assert_eq!(h.name().parse::<TwemHash>().unwrap(), h);
        }
    }
}
