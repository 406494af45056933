//! Stable hashing: md5 read as a big-endian integer.
//!
//! Placement must give the same answer on every machine and every restart,
//! so the documents hash with md5, never with a per-process seeded hash.
//! Document `000` keeps the integer mod 2^32 ([`HashWidth::Bits32`]);
//! documents `002` and `004` keep all 128 bits ([`HashWidth::Bits128`]).
//!
//! ```
//! use reshard::{md5_u128, HashWidth};
//! // md5("user:0") = …3f381411 (last four bytes), read big-endian.
//! assert_eq!(HashWidth::Bits32.hash(b"user:0"), 0x3f38_1411);
//! assert_eq!(HashWidth::Bits128.hash(b"user:0"), md5_u128(b"user:0"));
//! assert_eq!(md5_u128(b"user:0") % (1 << 32), 0x3f38_1411);
//! ```

use md5::{Digest, Md5};
use std::fmt;
use std::str::FromStr;

/// The md5 digest of `bytes` as a big-endian 128-bit integer, the value of
/// Python's `int(hashlib.md5(bytes).hexdigest(), 16)`.
#[inline]
pub fn md5_u128(bytes: &[u8]) -> u128 {
    u128::from_be_bytes(Md5::digest(bytes).into())
}

/// How many bits of the md5 integer a document keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
/// With the `serde` feature it serializes as its bit count, `32` or `128`.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(into = "u32", try_from = "u32"))]
pub enum HashWidth {
    /// md5 mod 2^32, as in "I Added a Fourth Shard in Python…" (`000`).
    Bits32,
    /// The full 128-bit md5 integer, as in documents `002` and `004`.
    #[default]
    Bits128,
}

impl HashWidth {
    /// Reduce a full md5 integer to this width.
    #[inline]
    pub fn reduce(self, full: u128) -> u128 {
        match self {
            HashWidth::Bits32 => full & 0xFFFF_FFFF,
            HashWidth::Bits128 => full,
        }
    }

    /// md5 of `bytes`, reduced to this width.
    #[inline]
    pub fn hash(self, bytes: &[u8]) -> u128 {
        self.reduce(md5_u128(bytes))
    }

    /// How many bits are kept: 32 or 128.
    pub fn bits(self) -> u32 {
        match self {
            HashWidth::Bits32 => 32,
            HashWidth::Bits128 => 128,
        }
    }

    /// The size of the hash space, as a float (2^32 or 2^128).
    pub fn space(self) -> f64 {
        match self {
            HashWidth::Bits32 => 4_294_967_296.0,
            HashWidth::Bits128 => 2f64.powi(128),
        }
    }

    /// Where `hash` sits on the circle, as a fraction in [0, 1). A hash
    /// wider than this width is reduced first; the fraction keeps the top
    /// 53 bits (all 32 of a 32-bit hash), so it is exact and never 1.
    ///
    /// ```
    /// use reshard::HashWidth;
    /// assert_eq!(HashWidth::Bits32.position(1 << 31), 0.5);
    /// assert!(HashWidth::Bits32.position(u128::MAX) < 1.0);
    /// assert!(HashWidth::Bits128.position(u128::MAX) < 1.0);
    /// ```
    pub fn position(self, hash: u128) -> f64 {
        match self {
            HashWidth::Bits32 => self.reduce(hash) as f64 / self.space(),
            HashWidth::Bits128 => (hash >> 75) as f64 / 9_007_199_254_740_992.0,
        }
    }
}

impl fmt::Display for HashWidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HashWidth::Bits32 => "md5 mod 2^32",
            HashWidth::Bits128 => "md5 (128-bit)",
        })
    }
}

impl FromStr for HashWidth {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        match s {
            "32" | "bits32" | "Bits32" => Ok(HashWidth::Bits32),
            "128" | "bits128" | "Bits128" => Ok(HashWidth::Bits128),
            other => Err(crate::Error::UnknownName {
                what: "hash width",
                given: other.to_string(),
                choices: "32 or 128".into(),
            }),
        }
    }
}

impl From<HashWidth> for u32 {
    fn from(w: HashWidth) -> u32 {
        w.bits()
    }
}

impl TryFrom<u32> for HashWidth {
    type Error = crate::Error;
    fn try_from(bits: u32) -> crate::Result<Self> {
        bits.to_string().parse()
    }
}
