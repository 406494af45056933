//! Jump consistent hash (Lamping & Veach, 2014): buckets without a ring.
//!
//! A key's 64-bit value seeds a linear congruential generator, and the key
//! "jumps" forward from bucket 0: from bucket `b` the next candidate is
//! `⌊(b + 1) · 2^31 / (r + 1)⌋` for the generator's next 31-bit output `r`,
//! and the last candidate below the bucket count is the answer. Going from
//! `n` to `n + 1` buckets, a key moves with probability `1/(n + 1)` and only
//! ever to the new bucket `n`; the loads are even without virtual nodes and
//! nothing is stored but the count. The price: buckets are numbers, not
//! names, and only the last one can come or go. [`Jump::named`] gives the
//! buckets names in order; removing a middle name shifts every name after
//! it down one bucket (renumbering), and their keys move with them.
//!
//! Keys here are strings, so the 64-bit input is the first 8 bytes of the
//! key's md5, read big-endian: `(md5_u128 >> 64) as u64` at
//! [`HashWidth::Bits128`]. At [`HashWidth::Bits32`] the experiment kept
//! only md5 mod 2^32, and that 32-bit value is the input.
//!
//! Guava's `Hashing.consistentHash(long, int)` is the same walk with the
//! division written the other way round, `(b + 1) / (2^-31 · (r + 1))`. The
//! two round differently for rare inputs and then disagree
//! ([`guava_consistent_hash`] is the Guava form).
//!
//! ```
//! use reshard::{jump_hash, HashWidth, Jump, KeySet, Movement};
//! // Guava's published golden values for consistentHash(i, 100):
//! let first: Vec<u32> = (0..5).map(|i| jump_hash(i, 100)).collect::<Result<_, _>>()?;
//! assert_eq!(first, [0, 55, 62, 8, 45]);
//! let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128)?;
//! let m = Movement::measure(&keys, &Jump::new(10)?, &Jump::new(11)?)?;
//! assert_eq!(m.to_added(), m.moved()); // every mover goes to bucket "10"
//! assert_eq!(m.between_kept(), 0);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::schemes::{assign_each, check_names, numbered, with_added, without, Key, Locate, NodeId, Placement};
use crate::{Error, HashWidth, Result};

/// The multiplier of the 64-bit linear congruential generator that both
/// the paper and Guava use (the increment is 1).
const LCG_MUL: u64 = 2_862_933_555_777_941_757;

/// The bucket in `0..buckets` of a 64-bit key, by the paper's algorithm
/// (Lamping & Veach 2014, figure 1).
///
/// Fails with [`Error::NoNodes`] on `buckets == 0`, as [`Jump::new(0)`](Jump::new) does.
///
/// ```
/// use reshard::jump_hash;
/// assert_eq!(jump_hash(2201, 100_001).unwrap(), 22_152); // Guava's test value
/// assert!(jump_hash(7, 0).is_err());
/// ```
pub fn jump_hash(key: u64, buckets: u32) -> Result<u32> {
    if buckets == 0 {
        return Err(zero_buckets());
    }
    Ok(jump(key, buckets))
}

/// Guava's `Hashing.consistentHash(long input, int buckets)`: the same
/// generator as [`jump_hash`], but the next candidate is computed as
/// `(b + 1) / ((r + 1) / 2^31)` and cast to a Java `int`. It agrees with
/// the paper on Guava's golden values and almost everywhere else.
///
/// Fails on `buckets == 0` and on `buckets > 2^31 − 1` (Java's `int`).
///
/// ```
/// use reshard::{guava_consistent_hash, jump_hash};
/// assert_eq!(guava_consistent_hash(2202, 100_001).unwrap(), 15_018);
/// // A key on which the two roundings part ways (checked against the
/// // Guava 31.1 jar and the paper's C++ compiled with g++):
/// assert_eq!(guava_consistent_hash(1_673_232_497_983_283_878, 64).unwrap(), 48);
/// assert_eq!(jump_hash(1_673_232_497_983_283_878, 64).unwrap(), 63);
/// ```
pub fn guava_consistent_hash(input: u64, buckets: u32) -> Result<u32> {
    if buckets == 0 {
        return Err(zero_buckets());
    }
    if buckets > i32::MAX as u32 {
        return Err(Error::OutOfRange {
            what: "buckets (Guava keeps them in an int)",
            given: buckets.to_string(),
            allowed: format!("at most {} (or jump_hash, which takes any u32)", i32::MAX),
        });
    }
    let buckets = buckets as i32;
    let mut state = input;
    let mut candidate: i32 = 0;
    loop {
        state = state.wrapping_mul(LCG_MUL).wrapping_add(1);
        // ((int)(state >>> 33) + 1) / 2^31, with Java's int addition: when
        // the 31 bits are all ones it wraps to −2^31 and the walk stops.
        let next_double = f64::from(((state >> 33) as i32).wrapping_add(1)) / 2_147_483_648.0;
        // Java's (int) cast saturates, as Rust's `as` does.
        let next = ((candidate + 1) as f64 / next_double) as i32;
        if next >= 0 && next < buckets {
            candidate = next;
        } else {
            return Ok(candidate as u32);
        }
    }
}

/// The paper's loop; `buckets` is at least 1.
#[inline]
fn jump(mut key: u64, buckets: u32) -> u32 {
    let n = i64::from(buckets);
    let (mut b, mut j): (i64, i64) = (-1, 0);
    while j < n {
        b = j;
        key = key.wrapping_mul(LCG_MUL).wrapping_add(1);
        j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
    }
    b as u32
}

fn zero_buckets() -> Error {
    Error::NoNodes
}

/// The 64-bit jump input of a key hash: the first 8 md5 bytes (big-endian)
/// at 128 bits, the kept 32-bit value at 32 bits.
#[inline]
pub fn jump_input(hash: u128, width: HashWidth) -> u64 {
    match width {
        HashWidth::Bits128 => (hash >> 64) as u64,
        HashWidth::Bits32 => hash as u64,
    }
}

/// Jump consistent hash over buckets `0` … `n−1`, bucket `i` named
/// `nodes()[i]`.
///
/// Growing adds bucket `n`; removing node `name` leaves `n − 1` buckets,
/// and every node after `name` moves down one bucket — which moves its keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jump {
    nodes: Vec<String>,
}

impl Jump {
    /// `n` buckets named `"0"` … `"{n-1}"`. Fails on `n == 0`.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, Jump, Key, Locate};
    /// let hundred = Jump::new(100)?;
    /// // At 128 bits jump reads a hash's top 64 bits: i << 64 is the 64-bit key i.
    /// let owners: Vec<&str> = (0..5u128).map(|i| hundred.owner(Key::from_hash(i << 64, HashWidth::Bits128))).collect();
    /// assert_eq!(owners, ["0", "55", "62", "8", "45"]); // Guava's golden values, consistentHash(i, 100)
    /// assert!(Jump::new(0).is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn new(n: usize) -> Result<Self> {
        Jump::named(numbered(n)?)
    }

    /// Buckets `0 … n−1` named in this order. Fails on no names or a
    /// repeated name.
    pub fn named<I, S>(names: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Ok(Jump { nodes: check_names(names)? })
    }
}

impl Placement for Jump {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        assign_each(self, keys)
    }

    /// A new last bucket: each key moves to it with probability `1/(n+1)`.
    fn add_node(&self, name: &str) -> Result<Self> {
        Ok(Jump { nodes: with_added(&self.nodes, name)? })
    }

    /// One bucket fewer; the names after `name` shift down a bucket.
    fn remove_node(&self, name: &str) -> Result<Self> {
        Ok(Jump { nodes: without(&self.nodes, name)?.0 })
    }
}

impl Locate for Jump {
    #[inline]
    fn locate(&self, key: Key<'_>) -> NodeId {
        jump(jump_input(key.hash, key.width), self.nodes.len() as u32)
    }
}
