//! Redis Cluster hash slots: 16384 fixed slots, each served by one node.
//!
//! Redis Cluster hashes a key with CRC16 (the XMODEM variant: polynomial
//! 0x1021, initial value 0) and keeps the low 14 bits, giving one of
//! [`SLOT_COUNT`] slots. A key may carry a hash tag: if it has a `{`, a
//! `}` somewhere after that first `{`, and at least one byte between the
//! two, only those bytes are hashed, so `user:{42}:name` and
//! `user:{42}:cart` share a slot. Slots never change; growing the cluster
//! hands whole slots to the new node, exactly like fixed shards, and only
//! the keys inside the handed-over slots move.
//!
//! [`Slots::new`] lays the slots out as `redis-cli --cluster create` does
//! (node `i` gets one contiguous range), and [`Placement::add_node`] (the
//! one way to add a node; [`Slots::reshard`] moves slots between nodes
//! already there) moves slots as `redis-cli --cluster reshard` does
//! with `all` as the source: each source gives a share proportional to its
//! slot count, lowest-numbered slots first. The placement reads the key
//! bytes, not the experiment's md5 hash.
//!
//! ```
//! use reshard::{key_slot, HashWidth, KeySet, Movement, Placement, Slots};
//! assert_eq!(key_slot(b"somekey"), 11058); // the CLUSTER KEYSLOT example
//! assert_eq!(key_slot(b"foo{hash_tag}"), key_slot(b"bar{hash_tag}"));
//! let three = Slots::new(3)?;
//! assert_eq!(three.ranges_of("0")?, [(0, 5460)]);
//! let four = three.add_node("3")?;
//! assert_eq!(four.ranges_of("3")?, [(0, 1364), (5461, 6826), (10923, 12287)]);
//! let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128)?;
//! let m = Movement::measure(&keys, &three, &four)?;
//! assert_eq!(m.to_added(), m.moved()); // only the new node receives keys
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::schemes::{
    assign_each, check_names, check_table, count_per_node, index_of, numbered, without, Key, Locate, NodeId, Placement,
};
use crate::{Error, Result};

/// The number of hash slots in a Redis cluster.
pub const SLOT_COUNT: usize = 16_384;

/// CRC16 lookup table for polynomial 0x1021, MSB first.
const CRC16_TABLE: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = (i as u16) << 8;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

/// CRC16-XMODEM of `bytes` (polynomial 0x1021, initial value 0, no
/// reflection, no final xor), the checksum Redis Cluster uses.
///
/// ```
/// assert_eq!(reshard::crc16(b"123456789"), 0x31C3);
/// ```
#[inline]
pub fn crc16(bytes: &[u8]) -> u16 {
    bytes.iter().fold(0u16, |crc, &b| (crc << 8) ^ CRC16_TABLE[usize::from((crc >> 8) as u8 ^ b)])
}

/// The bytes Redis hashes for a key: the hash tag if there is one (the
/// bytes between the first `{` and the first `}` after it, when there is
/// at least one), else the whole key.
///
/// ```
/// use reshard::schemes::slots::hashed_part;
/// assert_eq!(hashed_part(b"foo{bar}{zap}"), b"bar");
/// assert_eq!(hashed_part(b"foo{}{bar}"), b"foo{}{bar}"); // empty tag: whole key
/// assert_eq!(hashed_part(b"foo{{bar}}zap"), b"{bar");
/// ```
pub fn hashed_part(key: &[u8]) -> &[u8] {
    if let Some(open) = key.iter().position(|&c| c == b'{') {
        if let Some(len) = key[open + 1..].iter().position(|&c| c == b'}') {
            if len > 0 {
                return &key[open + 1..open + 1 + len];
            }
        }
    }
    key
}

/// The Redis Cluster slot of a key: `crc16(hashed_part(key)) & 16383`.
///
/// ```
/// assert_eq!(reshard::key_slot(b"foo{hash_tag}"), 2515);
/// ```
#[inline]
pub fn key_slot(key: &[u8]) -> u16 {
    crc16(hashed_part(key)) & (SLOT_COUNT as u16 - 1)
}

/// A Redis-Cluster-style table: which node serves each of the 16384 slots.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Slots {
    nodes: Vec<String>,
    table: Vec<NodeId>,
}

impl Slots {
    /// `n` nodes named `"0"` … `"{n-1}"`, slots laid out as
    /// `redis-cli --cluster create` does (see [`Slots::named`]).
    pub fn new(n: usize) -> Result<Self> {
        Slots::named(numbered(n)?)
    }

    /// These nodes, each given one contiguous range of slots as
    /// `redis-cli --cluster create` does: with `s = 16384 / N` (in `f32`),
    /// node `i`'s range ends at `round(i·s + s − 1)` (the last node's at
    /// 16383), so 3 nodes get 0–5460, 5461–10922 and 10923–16383.
    ///
    /// Fails on no nodes, a repeated name, or more nodes than slots.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, Key, Locate, Slots};
    /// let abc = Slots::named(["A", "B", "C"])?;
    /// // what redis-cli --cluster create prints for three masters
    /// assert_eq!((abc.ranges_of("A")?, abc.ranges_of("C")?), (vec![(0, 5460)], vec![(10923, 16383)]));
    /// // CLUSTER KEYSLOT somekey = 11058 (Redis's documentation): in C's range
    /// assert_eq!(abc.owner(Key::new("somekey", HashWidth::Bits32)), "C");
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn named<I, S>(names: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(names)?;
        let n = nodes.len();
        if n > SLOT_COUNT {
            return Err(Error::MoreNodesThanShards { nodes: n, shards: SLOT_COUNT });
        }
        let per_node = SLOT_COUNT as f32 / n as f32;
        let mut table = vec![0 as NodeId; SLOT_COUNT];
        let (mut first, mut cursor) = (0usize, 0f32);
        for i in 0..n {
            let mut last = f64::from(cursor + per_node - 1.0).round() as usize;
            if last > SLOT_COUNT - 1 || i == n - 1 {
                last = SLOT_COUNT - 1;
            }
            last = last.max(first);
            for slot in &mut table[first..=last] {
                *slot = i as NodeId;
            }
            first = last + 1;
            cursor += per_node;
        }
        Ok(Slots { nodes, table })
    }

    /// A table given slot by slot: `table[s]` is the index in `names` of
    /// the node serving slot `s`. Fails unless there are exactly 16384
    /// entries, each naming an existing node.
    pub fn from_table<I, S>(names: I, table: Vec<NodeId>) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(names)?;
        if table.len() != SLOT_COUNT {
            return Err(Error::LengthMismatch { what: "slot table entries", expected: SLOT_COUNT, given: table.len() });
        }
        check_table(&table, nodes.len())?;
        Ok(Slots { nodes, table })
    }

    /// `table()[s]` is the node serving slot `s`.
    pub fn table(&self) -> &[NodeId] {
        &self.table
    }

    /// How many slots each node serves, in node order.
    pub fn slot_counts(&self) -> Vec<usize> {
        count_per_node(&self.table, self.nodes.len())
    }

    /// The slots of node `name` as inclusive ranges `(first, last)`,
    /// ascending, the way `redis-cli --cluster check` prints them.
    pub fn ranges_of(&self, name: &str) -> Result<Vec<(u16, u16)>> {
        let id = index_of(&self.nodes, name)?;
        let mut ranges: Vec<(u16, u16)> = Vec::new();
        for (s, &t) in self.table.iter().enumerate() {
            if t != id {
                continue;
            }
            let s = s as u16;
            match ranges.last_mut() {
                Some(r) if r.1 + 1 == s => r.1 = s,
                _ => ranges.push((s, s)),
            }
        }
        Ok(ranges)
    }

    /// The slots whose node (by name) differs between `self` and `other`.
    pub fn moved_slots(&self, other: &Slots) -> Vec<usize> {
        (0..SLOT_COUNT)
            .filter(|&s| self.nodes[self.table[s] as usize] != other.nodes[other.table[s] as usize])
            .collect()
    }

    /// Move `count` slots to node `to` from every other node, as
    /// `redis-cli --cluster reshard` does with `all` as the source. `to`
    /// must already be in the table (to add a node, use
    /// [`Placement::add_node`], which asks this for the new node's share).
    ///
    /// The sources are the other nodes that own slots, sorted by slot
    /// count, most first (ties: lower node index first). Source `k` gives
    /// `count / total · own` slots computed in `f32`, rounded up for the
    /// first source and down for the rest, and never more than `count` in
    /// all; each gives its lowest-numbered slots.
    ///
    /// Fails on an unknown node ([`Error::UnknownNode`]), or if `count` is
    /// 0 or more than the other nodes own together ([`Error::OutOfRange`]).
    pub fn reshard(&self, to: &str, count: usize) -> Result<Slots> {
        let mut out = self.clone();
        let dst = index_of(&self.nodes, to)?;
        let counts = out.slot_counts();
        let mut sources: Vec<usize> = (0..out.nodes.len()).filter(|&i| i != dst as usize && counts[i] > 0).collect();
        let total: usize = sources.iter().map(|&i| counts[i]).sum();
        if count == 0 || count > total {
            return Err(Error::OutOfRange {
                what: "slots to move",
                given: count.to_string(),
                allowed: format!("1 to {total} (what the nodes other than {to:?} own)"),
            });
        }
        sources.sort_by_key(|&i| (std::cmp::Reverse(counts[i]), i));
        let mut moved = 0;
        for (k, &src) in sources.iter().enumerate() {
            let share = count as f32 / total as f32 * counts[src] as f32;
            let max = (if k == 0 { share.ceil() } else { share.floor() }) as usize;
            let mut given = 0;
            for slot in 0..SLOT_COUNT {
                if given >= max || moved >= count {
                    break;
                }
                if self.table[slot] == src as NodeId {
                    out.table[slot] = dst;
                    given += 1;
                    moved += 1;
                }
            }
        }
        Ok(out)
    }

    fn removed(&self, name: &str) -> Result<Slots> {
        let (nodes, gone) = without(&self.nodes, name)?;
        let keep = nodes.len();
        let own: Vec<usize> = (0..SLOT_COUNT).filter(|&s| self.table[s] == gone).collect();
        let (base, extra) = (own.len() / keep, own.len() % keep);
        let mut table = self.table.clone();
        let mut slots = own.into_iter();
        for k in 0..keep {
            let to = if (k as NodeId) < gone { k as NodeId } else { k as NodeId + 1 };
            for s in slots.by_ref().take(base + usize::from(k < extra)) {
                table[s] = to;
            }
        }
        // Renumber: nodes after the removed one shift down by one.
        for t in &mut table {
            if *t > gone {
                *t -= 1;
            }
        }
        Ok(Slots { nodes, table })
    }
}

impl Placement for Slots {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// The 16,384 slots are walked.
    fn change_cost(&self, nodes: usize) -> u128 {
        (SLOT_COUNT / 8 + nodes) as u128
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        assign_each(self, keys)
    }

    /// Add node `name` (as `redis-cli --cluster add-node` does: it joins
    /// with no slots), then ask [`Slots::reshard`] for `16384 / (N + 1)`
    /// slots from all the others: 3 → 4 nodes moves 4096 slots. As in
    /// redis-cli, each source gives a share proportional to its slots, the
    /// first rounded up and the rest down, so the new node can receive a
    /// few less than asked (1,481 of 1,489 at 10 → 11). Only the new node
    /// receives slots. Fails if `name` is taken.
    fn add_node(&self, name: &str) -> Result<Slots> {
        self.joined(name)?.reshard(name, SLOT_COUNT / (self.nodes.len() + 1))
    }

    /// Remove node `name`: its slots, lowest first, go to the remaining
    /// nodes in node order in contiguous batches as even as possible (the
    /// first `own % (N − 1)` nodes take one more). This split is this
    /// crate's choice: redis-cli leaves it to the operator, who must empty
    /// a node with `reshard` before `del-node`. Only its slots move.
    ///
    /// Fails if there is no such node or it is the only one.
    fn remove_node(&self, name: &str) -> Result<Slots> {
        self.removed(name)
    }
}

impl Locate for Slots {
    fn hash_only(&self) -> bool {
        false
    }

    #[inline]
    fn locate(&self, key: Key<'_>) -> NodeId {
        self.table[usize::from(key_slot(&key.spelling()))]
    }
}
