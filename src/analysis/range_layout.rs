//! A range-sharded layout of either kind, as the range analyses take it:
//! ranges of keys ([`KeyRanges`]) or of their hashes ([`HashRanges`]), and
//! a range boundary of either kind ([`Boundary`]).
//!
//! ```
//! use reshard::analysis::{Boundary, RangeLayout};
//! use reshard::prelude::*;
//! let keys: RangeLayout = KeyRanges::new(2)?.with_boundaries(["m"])?.into();
//! assert_eq!((keys.ranges(), keys.width()), (2, None));
//! let hashes = RangeLayout::from(HashRanges::new(2)?.with_even_split(4)?);
//! assert_eq!((hashes.ranges(), hashes.width()), (4, Some(HashWidth::Bits32)));
//! assert_eq!(Boundary::Key(b"a\xff".to_vec()).to_string(), "\"a\\xff\"");
//! assert_eq!(Boundary::Hash(1 << 31).to_string(), "2,147,483,648");
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::escape;
use crate::numbers::grouped;
use crate::schemes::{HashRanges, KeyRanges, Placement};
use crate::HashWidth;
use std::fmt;

/// A table of ranges: of key bytes, or of md5 hashes at a width.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum RangeLayout {
    /// Ranges of keys, compared as unsigned bytes.
    Keys(KeyRanges),
    /// Ranges of the keys' md5 hashes.
    Hashes(HashRanges),
}

impl RangeLayout {
    /// The node names.
    pub fn nodes(&self) -> &[String] {
        match self {
            RangeLayout::Keys(k) => k.nodes(),
            RangeLayout::Hashes(h) => h.nodes(),
        }
    }

    /// How many ranges.
    pub fn ranges(&self) -> usize {
        self.table().len()
    }

    /// The node of each range, in range order.
    pub fn table(&self) -> &[crate::NodeId] {
        match self {
            RangeLayout::Keys(k) => k.table(),
            RangeLayout::Hashes(h) => h.table(),
        }
    }

    /// The hash width of a hash-range layout (`None` for key ranges).
    pub fn width(&self) -> Option<HashWidth> {
        match self {
            RangeLayout::Keys(_) => None,
            RangeLayout::Hashes(h) => Some(h.width()),
        }
    }

    /// "key ranges" or "hash ranges (md5 mod 2^32)", for titles.
    pub fn describe(&self) -> String {
        match self {
            RangeLayout::Keys(_) => "key ranges".to_string(),
            RangeLayout::Hashes(h) => format!("hash ranges ({})", h.width()),
        }
    }
}

impl From<KeyRanges> for RangeLayout {
    fn from(k: KeyRanges) -> Self {
        RangeLayout::Keys(k)
    }
}

impl From<&KeyRanges> for RangeLayout {
    fn from(k: &KeyRanges) -> Self {
        RangeLayout::Keys(k.clone())
    }
}

impl From<HashRanges> for RangeLayout {
    fn from(h: HashRanges) -> Self {
        RangeLayout::Hashes(h)
    }
}

impl From<&HashRanges> for RangeLayout {
    fn from(h: &HashRanges) -> Self {
        RangeLayout::Hashes(h.clone())
    }
}

impl From<&RangeLayout> for RangeLayout {
    fn from(l: &RangeLayout) -> Self {
        l.clone()
    }
}

/// A range boundary: a key's bytes, or a hash.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Boundary {
    /// A key (key ranges).
    Key(Vec<u8>),
    /// A hash value (hash ranges).
    Hash(u128),
}

impl fmt::Display for Boundary {
    /// A key escaped and quoted (`"a\xff"`), a hash in decimal with
    /// thousands separators.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Boundary::Key(k) => write!(f, "\"{}\"", escape(k)),
            Boundary::Hash(h) => f.write_str(&grouped(*h)),
        }
    }
}
