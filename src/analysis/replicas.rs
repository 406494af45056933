//! What moves when every key has `rf` copies: not just the owners, every
//! copy.
//!
//! A key's replica set before and after a change is compared by node name;
//! each node in the new set that was not in the old one needs a fresh copy
//! of the key (and a node dropped from the set deletes one). The floor: a
//! new node of `N + 1` must end up holding its share, `rf · K / (N + 1)`
//! copies, none of which existed, so at least `1/(N + 1)` of all copies
//! are made anew.
//!
//! ```
//! use reshard::prelude::*;
//! let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128)?;
//! let lineup = Replicated::lineup(10, 150)?;
//! let m = CopyMovement::measure(&keys, &lineup, 3, "10")?;
//! let hrw = &m.rows()[1];
//! assert_eq!(hrw.scheme, "rendezvous");
//! assert_eq!(hrw.to_old, 0); // rendezvous only ever makes copies on the new node
//! assert!(hrw.copies_moved as f64 >= 0.9 * m.floor() * 60_000.0);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::limits;
use crate::schemes::replicas::{check_rf, replica_sets, Replicas, Replicated};
use crate::schemes::{NodeId, Placement};
use crate::{Error, Result};

/// Copy movement of one scheme when a node joins.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CopyRow {
    /// The scheme's label.
    pub scheme: String,
    /// How it picks the copies.
    pub rule: String,
    /// Keys whose owner (first copy) changed.
    pub primaries_moved: u64,
    /// Copies that must be made: nodes in a key's new set that were not in
    /// its old one, summed over the keys.
    pub copies_moved: u64,
    /// Of those, copies made on the new node.
    pub to_added: u64,
    /// Of those, copies made on nodes that were there before.
    pub to_old: u64,
    /// Keys whose replica set changed at all.
    pub sets_changed: u64,
}

/// Copy movement for several schemes when the same node joins.
#[derive(Debug, Clone, PartialEq)]
pub struct CopyMovement {
    pub(crate) keys: u64,
    pub(crate) rf: usize,
    pub(crate) nodes: usize,
    pub(crate) new_node: String,
    pub(crate) rows: Vec<CopyRow>,
}

impl CopyMovement {
    /// Each scheme before and after node `new_node` joins, `rf` copies per
    /// key.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::prelude::*;
    /// use reshard::jump_hash;
    /// let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128)?;
    /// let m = CopyMovement::measure(&keys, &[Replicated::Jump(Jump::new(4)?)], 2, "4")?;
    /// // by hand: a key's 2 copies sit on its jump bucket (of the top 64 bits) and the next
    /// let mut made = 0;
    /// for &h in keys.hashes() {
    ///     let (b4, b5) = (jump_hash((h >> 64) as u64, 4)?, jump_hash((h >> 64) as u64, 5)?);
    ///     let old = [b4, (b4 + 1) % 4];
    ///     made += [b5, (b5 + 1) % 5].iter().filter(|b| !old.contains(b)).count() as u64;
    /// }
    /// assert_eq!(m.rows()[0].copies_moved, made);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure(keys: &HashedKeys, schemes: &[Replicated], rf: usize, new_node: &str) -> Result<CopyMovement> {
        let first = schemes.first().ok_or_else(|| Error::OutOfRange {
            what: "schemes to compare (count)",
            given: "0".into(),
            allowed: "at least one".into(),
        })?;
        limits::check_hint(
            "replica placements (keys × rf × 2 × schemes)",
            limits::product(keys.len(), rf).saturating_mul(2 * schemes.len() as u128),
            limits::current().max_placements,
            "use fewer keys, schemes or copies",
        )?;
        let mut rows = Vec::with_capacity(schemes.len());
        for p in schemes {
            let after = p.add_node(new_node)?;
            let mut row = CopyRow::measure(keys, p, &after, rf)?;
            row.scheme = p.label();
            rows.push(row);
        }
        Ok(CopyMovement {
            keys: keys.len() as u64,
            rf,
            nodes: first.nodes().len(),
            new_node: new_node.to_string(),
            rows,
        })
    }
}

impl CopyRow {
    /// Copy movement between any two placements of one scheme (nodes are
    /// compared by name). The row's `scheme` is empty.
    pub fn measure<P: Replicas>(keys: &HashedKeys, before: &P, after: &P, rf: usize) -> Result<CopyRow> {
        check_rf(rf, before.nodes().len().min(after.nodes().len()))?;
        let a = replica_sets(before, keys, rf)?;
        let b = replica_sets(after, keys, rf)?;
        // after's node ids → before's ids, or None for a node before lacks
        let map: Vec<Option<NodeId>> =
            after.nodes().iter().map(|n| before.nodes().iter().position(|m| m == n).map(|i| i as NodeId)).collect();
        let mut row = CopyRow {
            scheme: String::new(),
            rule: before.replica_rule().to_string(),
            primaries_moved: 0,
            copies_moved: 0,
            to_added: 0,
            to_old: 0,
            sets_changed: 0,
        };
        for (old, new) in a.chunks(rf).zip(b.chunks(rf)) {
            if map[new[0] as usize] != Some(old[0]) {
                row.primaries_moved += 1;
            }
            let mut fresh = 0;
            for &n in new {
                match map[n as usize] {
                    None => {
                        row.to_added += 1;
                        fresh += 1;
                    }
                    Some(id) if !old.contains(&id) => {
                        row.to_old += 1;
                        fresh += 1;
                    }
                    Some(_) => {}
                }
            }
            row.copies_moved += fresh;
            row.sets_changed += u64::from(fresh > 0);
        }
        Ok(row)
    }
}

impl CopyMovement {
    /// One row per scheme.
    pub fn rows(&self) -> &[CopyRow] {
        &self.rows
    }

    /// Keys.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// Copies per key.
    pub fn rf(&self) -> usize {
        self.rf
    }

    /// All copies: keys × rf.
    pub fn copies(&self) -> u64 {
        self.keys * self.rf as u64
    }

    /// The least share of the copies any scheme must make: `1/(N + 1)`.
    pub fn floor(&self) -> f64 {
        1.0 / (self.nodes + 1) as f64
    }

    /// The node that joined.
    pub fn new_node(&self) -> &str {
        &self.new_node
    }
}
