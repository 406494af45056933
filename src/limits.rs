//! The limits every public entry point checks before it starts.
//!
//! Each experiment must finish within a minute and 2 GiB of memory on a
//! 2-core machine, or be refused at once with [`Error::TooLarge`], which
//! names the limit and what to change. The limits are set from measured
//! costs on such a machine (md5 of a short key ≈ 0.2 µs per core, a ring
//! point ≈ 20 bytes, a hashed key 16 bytes plus 4 for its owner).
//!
//! ```
//! use reshard::{Error, Ring};
//! let err = Ring::new(1000).unwrap().with_vnodes(50_000).unwrap_err();
//! assert!(matches!(err, Error::TooLarge { .. }));
//! assert!(err.to_string().contains("10,000,000"), "{err}");
//! ```
//!
//! # Raising a limit
//!
//! The defaults ([`Limits::default`], the `MAX_*` constants) are the
//! notebooks'. A caller with a bigger machine, or a bigger cluster to model
//! (Redis Cluster has 16,384 slots, so up to 16,384 masters), raises them
//! for the whole process with [`set`]:
//!
//! ```
//! use reshard::limits::{self, Limits};
//! use reshard::Modulo;
//! assert!(Modulo::new(5_000).is_err()); // over the default 4,096 nodes
//! let before = limits::set(Limits::default().with_max_nodes(20_000))?;
//! assert!(Modulo::new(5_000).is_ok());
//! limits::set(before)?; // back to what it was
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! Why one process-wide setting rather than a `Limits` argument: the checks
//! sit in some forty constructors and measurements (`Ring::with_vnodes`,
//! `Movement::measure`, `KeySet::hashed`, every sweep…) that a notebook
//! chains; a parameter on each would change every signature a reader types,
//! and a builder on only the heavy ones would leave the others at the
//! defaults. A limit is a property of the machine the process runs on, so it
//! is set once, in the first cell, and every check reads it
//! ([`current`]). Setting it is rare and cheap to read (a read lock).
//!
//! Limits count what costs: key and node names are counted in bytes too
//! ([`Limits::max_name_bytes`], [`Limits::max_key_bytes`]), since a key
//! set of a thousand keys with a megabyte prefix hashes a gigabyte.

use crate::{Error, Result};
use std::sync::RwLock;

/// The most nodes one placement has (a movement matrix holds nodes² counts).
pub const MAX_NODES: u128 = 4096;
/// The most keys hashed and held in memory at once (16 bytes each, plus
/// their owners and sort order).
pub const MAX_KEYS: u128 = 20_000_000;
/// The most points on one ring (nodes × vnodes).
pub const MAX_RING_POINTS: u128 = 10_000_000;
/// The most md5 computations one call may make beyond hashing the keys
/// (rendezvous scores keys × nodes; sweeps hash every ring's points).
pub const MAX_HASHES: u128 = 200_000_000;
/// The most key placements one call may make (keys × arrangements, keys ×
/// node-count pairs, …).
pub const MAX_PLACEMENTS: u128 = 2_000_000_000;
/// The most fixed shards (4 bytes each in the shard table), and ranges of
/// one range layout (`KeyRanges`, `HashRanges`). A growing table
/// (`analysis::RangeGrowth`) makes at most an eighth of it: each of its
/// ranges takes about 500 bytes.
pub const MAX_SHARDS: u128 = 10_000_000;
/// The most requests drawn for one workload (a Zipf draw costs about
/// 0.1 µs; the counts per key are kept, not the stream).
pub const MAX_REQUESTS: u128 = 50_000_000;
/// The most bytes of node names one placement holds, all names together
/// (4,096 names of 256 bytes).
pub const MAX_NAME_BYTES: u128 = 1 << 20;
/// The most md5 blocks one streaming count hashes (a key of up to 55 bytes
/// is one block): the keys are not kept, so only time limits them. At
/// about 10 s per 100,000,000 blocks on 2 cores (built as a notebook
/// builds the crate, opt-level 2 with overflow checks), 300,000,000 take
/// half a minute, within the minute every call promises on a busy machine.
pub const MAX_STREAMED: u128 = 300_000_000;
/// The most bytes of keys one key set spells and hashes, all keys together
/// (20,000,000 keys of about 50 bytes).
pub const MAX_KEY_BYTES: u128 = 1_000_000_000;

/// The most nodes any setting may allow: node indices are `u32`.
const HARD_MAX_NODES: u128 = 1 << 20;

/// The most cells of one movement matrix (distinct nodes², 8 bytes each:
/// 512 MiB, 8,192 nodes before and after). Not a setting: raising
/// [`Limits::max_nodes`] lets placements grow past 8,192 nodes, but a dense
/// old → new matrix of them would not fit in 2 GiB.
pub const MAX_MATRIX_CELLS: u128 = 1 << 26;

/// The limits in force: how much work and memory one call may ask for.
///
/// `Limits::default()` holds the `MAX_*` constants of this module; raise
/// one with its `with_*` method and put it in force with [`set`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Nodes in one placement ([`MAX_NODES`]).
    pub max_nodes: u128,
    /// Keys hashed and held at once ([`MAX_KEYS`]).
    pub max_keys: u128,
    /// Points on one ring ([`MAX_RING_POINTS`]).
    pub max_ring_points: u128,
    /// md5 computations of one call beyond hashing the keys, counted in
    /// 64-byte md5 blocks ([`MAX_HASHES`]).
    pub max_hashes: u128,
    /// Key placements of one call ([`MAX_PLACEMENTS`]).
    pub max_placements: u128,
    /// Fixed shards, ranges of a layout, and eight times the ranges of a
    /// growing table ([`MAX_SHARDS`]).
    pub max_shards: u128,
    /// Requests drawn for one workload ([`MAX_REQUESTS`]).
    pub max_requests: u128,
    /// Bytes of node names in one placement ([`MAX_NAME_BYTES`]).
    pub max_name_bytes: u128,
    /// Bytes of keys in one key set ([`MAX_KEY_BYTES`]).
    pub max_key_bytes: u128,
    /// md5 blocks hashed by one streaming count ([`MAX_STREAMED`]).
    pub max_streamed: u128,
}

impl Default for Limits {
    fn default() -> Self {
        DEFAULT
    }
}

const DEFAULT: Limits = Limits {
    max_nodes: MAX_NODES,
    max_keys: MAX_KEYS,
    max_ring_points: MAX_RING_POINTS,
    max_hashes: MAX_HASHES,
    max_placements: MAX_PLACEMENTS,
    max_shards: MAX_SHARDS,
    max_requests: MAX_REQUESTS,
    max_name_bytes: MAX_NAME_BYTES,
    max_key_bytes: MAX_KEY_BYTES,
    max_streamed: MAX_STREAMED,
};

macro_rules! with {
    ($($(#[$doc:meta])* $name:ident => $field:ident;)*) => {
        impl Limits {
            $(
                $(#[$doc])*
                pub fn $name(mut self, limit: u128) -> Self {
                    self.$field = limit;
                    self
                }
            )*
        }
    };
}

with! {
    /// The same limits with another [`Limits::max_nodes`].
    with_max_nodes => max_nodes;
    /// The same limits with another [`Limits::max_keys`].
    with_max_keys => max_keys;
    /// The same limits with another [`Limits::max_ring_points`].
    with_max_ring_points => max_ring_points;
    /// The same limits with another [`Limits::max_hashes`].
    with_max_hashes => max_hashes;
    /// The same limits with another [`Limits::max_placements`].
    with_max_placements => max_placements;
    /// The same limits with another [`Limits::max_shards`].
    with_max_shards => max_shards;
    /// The same limits with another [`Limits::max_requests`].
    with_max_requests => max_requests;
    /// The same limits with another [`Limits::max_name_bytes`].
    with_max_name_bytes => max_name_bytes;
    /// The same limits with another [`Limits::max_key_bytes`].
    with_max_key_bytes => max_key_bytes;
    /// The same limits with another [`Limits::max_streamed`].
    with_max_streamed => max_streamed;
}

static CURRENT: RwLock<Limits> = RwLock::new(DEFAULT);

/// The limits in force now (the defaults unless [`set`] changed them).
pub fn current() -> Limits {
    *CURRENT.read().unwrap_or_else(|e| e.into_inner())
}

/// Put `limits` in force for the whole process and return the ones they
/// replace. (In the evcxr Jupyter kernel every cell links its own copy of
/// this crate, with its own limits: call `set` in the cell that does the
/// work it allows.) Fails, changing nothing, when a limit is 0, `max_nodes`
/// is over 1,048,576 (node indices are 32-bit) or `max_keys` over
/// 4,294,967,295 (a key set's sort order holds 32-bit indices). Every limit
/// may be raised to these caps without a call aborting: what would not fit
/// is still refused ([`MAX_MATRIX_CELLS`] for a movement matrix).
pub fn set(limits: Limits) -> Result<Limits> {
    check_hint(
        "nodes allowed by Limits::max_nodes",
        limits.max_nodes,
        HARD_MAX_NODES,
        "set max_nodes to at most 1,048,576",
    )?;
    check_hint(
        "keys allowed by Limits::max_keys",
        limits.max_keys,
        u128::from(u32::MAX),
        "set max_keys to at most 4,294,967,295",
    )?;
    let l = limits;
    let all = [
        l.max_nodes,
        l.max_keys,
        l.max_ring_points,
        l.max_hashes,
        l.max_placements,
        l.max_shards,
        l.max_requests,
        l.max_name_bytes,
        l.max_key_bytes,
        l.max_streamed,
    ];
    if all.contains(&0) {
        return Err(Error::OutOfRange {
            what: "limit",
            given: "0".into(),
            allowed: "1 or more (a limit of 0 would refuse everything)".into(),
        });
    }
    let mut cur = CURRENT.write().unwrap_or_else(|e| e.into_inner());
    Ok(std::mem::replace(&mut *cur, limits))
}

/// `Ok` when `asked ≤ limit`, else [`Error::TooLarge`].
pub(crate) fn check(what: &'static str, asked: u128, limit: u128) -> Result<()> {
    check_hint(what, asked, limit, "use smaller parameters")
}

/// The same, with a hint saying which parameter to lower.
pub(crate) fn check_hint(what: &'static str, asked: u128, limit: u128, hint: &'static str) -> Result<()> {
    if asked > limit {
        Err(Error::TooLarge { what, asked, limit, hint })
    } else {
        Ok(())
    }
}

/// Check a count of node names against [`Limits::max_nodes`] before any
/// name is built.
pub(crate) fn check_nodes(n: usize) -> Result<()> {
    check_hint("nodes", n as u128, current().max_nodes, "use fewer nodes (or raise limits::Limits::max_nodes)")
}

/// Check node names: their count and their bytes together.
pub(crate) fn check_names<S: AsRef<str>>(names: &[S]) -> Result<()> {
    check_nodes(names.len())?;
    let bytes = names.iter().map(|n| n.as_ref().len() as u128).sum();
    check_hint(
        "bytes of node names",
        bytes,
        current().max_name_bytes,
        "use shorter node names (or raise limits::Limits::max_name_bytes)",
    )
}

/// Check a streaming count of `count` keys of `bytes` bytes in all against
/// [`Limits::max_streamed`], in md5 blocks.
pub(crate) fn check_streamed(count: usize, bytes: u128) -> Result<()> {
    // each key is at least one block; long keys cost their bytes (+ 9 of padding each)
    let blocks = (count as u128).max(bytes.saturating_add(9 * count as u128).div_ceil(64));
    check_hint(
        "md5 blocks to stream (keys × blocks per key)",
        blocks,
        current().max_streamed,
        "use fewer or shorter keys (or raise limits::Limits::max_streamed)",
    )
}

/// md5 blocks (64 bytes each, after 9 bytes of padding) to hash `bytes`
/// bytes: the cost of one md5 relative to a short key's.
pub(crate) fn md5_blocks(bytes: usize) -> u128 {
    (bytes as u128 + 9).div_ceil(64)
}

/// `a × b` without overflow (saturating at `u128::MAX`).
pub(crate) fn product(a: usize, b: usize) -> u128 {
    (a as u128).saturating_mul(b as u128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_blocks_follow_padding() {
        // md5 pads with 1 byte 0x80 and an 8-byte length: 55 bytes fit one
        // 64-byte block, 56 need two (RFC 1321 §3.1–3.2).
        assert_eq!(md5_blocks(0), 1);
        assert_eq!(md5_blocks(55), 1);
        assert_eq!(md5_blocks(56), 2);
        assert_eq!(md5_blocks(119), 2);
        assert_eq!(md5_blocks(120), 3);
    }

    #[test]
    fn defaults_are_the_constants() {
        let d = Limits::default();
        assert_eq!((d.max_nodes, d.max_keys, d.max_shards), (4096, 20_000_000, 10_000_000));
        assert_eq!(Limits::default().with_max_nodes(20_000).max_nodes, 20_000);
    }
}
