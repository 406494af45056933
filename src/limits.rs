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

use crate::{Error, Result};

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
/// The most fixed shards (4 bytes each in the shard table).
pub const MAX_SHARDS: u128 = 10_000_000;
/// The most bytes of keys hashed or held at once (keys × their length:
/// a 100,000-byte prefix allows 5,368 keys). Listed keys are held in one
/// buffer of this many bytes at most.
pub const MAX_KEY_BYTES: u128 = 1 << 29;
/// The most bytes of long md5 inputs one call may hash beyond the keys,
/// counting what each input has past its first 55 bytes (md5 reads up to
/// 55 in one block, counted by [`MAX_HASHES`]): ring points
/// `"{salt}{node}#{v}"` and rendezvous scores `"{key}:{node}"` with long
/// names. md5 reads about 300 MB a second on one core.
pub const MAX_HASHED_BYTES: u128 = 1_000_000_000;
/// The most requests drawn for one workload (a Zipf draw costs about
/// 0.1 µs; the counts per key are kept, not the stream).
pub const MAX_REQUESTS: u128 = 50_000_000;

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

/// `a × b` without overflow (saturating at `u128::MAX`).
pub(crate) fn product(a: usize, b: usize) -> u128 {
    (a as u128).saturating_mul(b as u128)
}
