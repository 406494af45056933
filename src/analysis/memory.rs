//! How much memory a scheme's lookup structure takes: an estimate.
//!
//! Every scheme keeps its node names; beyond them, a ring keeps its points,
//! fixed shards and slots their tables, Maglev its lookup table, and
//! `hash % N` or jump hash nothing but a count. [`MemoryEstimate`] counts
//! the bytes a compact implementation would store.

use crate::schemes::{Bounded, FixedShards, Jump, Ketama, Maglev, Modulo, Placement, Rendezvous, Ring, Slots};
use crate::HashWidth;

/// An estimate of the memory a scheme's lookup structure takes, in bytes,
/// beyond the list of node names (which every scheme keeps).
///
/// The estimates count what a compact implementation stores, from the
/// structure's public sizes:
///
/// | scheme | estimate |
/// |---|---|
/// | `hash % N`, jump | 8 (the node count) |
/// | rendezvous | 8 per node (a seed or name hash per node); weighted: 16 (plus an `f64` weight) |
/// | ring | per point, the hash (16 bytes at 128 bits, 4 at 32) + a 4-byte node index |
/// | bounded loads | the ring, plus an 8-byte load counter per node |
/// | ketama | 8 per point (`u32` point + `u32` server) |
/// | fixed shards, slots | 4 per shard/slot (a `u32` node index) |
/// | Maglev | 4 per table entry + 8 per backend (offset, skip) |
///
/// ```
/// use reshard::analysis::MemoryEstimate;
/// use reshard::{HashWidth, Maglev, Ring};
/// let ring = Ring::new(10)?.with_vnodes(150)?;
/// assert_eq!(ring.memory_bytes(HashWidth::Bits128), 1500 * 20);
/// assert_eq!(Maglev::new(10)?.memory_bytes(HashWidth::Bits128), 65_537 * 4 + 80);
/// # Ok::<(), reshard::Error>(())
/// ```
pub trait MemoryEstimate {
    /// Estimated bytes of the lookup structure at this hash width.
    fn memory_bytes(&self, width: HashWidth) -> u64;
}

fn hash_bytes(width: HashWidth) -> u64 {
    match width {
        HashWidth::Bits32 => 4,
        HashWidth::Bits128 => 16,
    }
}

impl MemoryEstimate for Modulo {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        8
    }
}

impl MemoryEstimate for Jump {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        8
    }
}

impl MemoryEstimate for Ring {
    fn memory_bytes(&self, width: HashWidth) -> u64 {
        (self.nodes().len() * self.vnodes()) as u64 * (hash_bytes(width) + 4)
    }
}

impl MemoryEstimate for Rendezvous {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        let per = if self.weights().is_some() { 16 } else { 8 };
        self.nodes().len() as u64 * per
    }
}

impl MemoryEstimate for FixedShards {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        self.table().len() as u64 * 4
    }
}

impl MemoryEstimate for Slots {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        self.table().len() as u64 * 4
    }
}

impl MemoryEstimate for Maglev {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        self.table().len() as u64 * 4 + self.nodes().len() as u64 * 8
    }
}

impl MemoryEstimate for Ketama {
    fn memory_bytes(&self, _: HashWidth) -> u64 {
        self.points().len() as u64 * 8
    }
}

impl MemoryEstimate for Bounded {
    fn memory_bytes(&self, width: HashWidth) -> u64 {
        self.ring().memory_bytes(width) + self.nodes().len() as u64 * 8
    }
}
