//! Removing a node from the middle.
//!
//! [`MiddleRemoval::measure`] removes node `"{remove}"` of `0 … n−1` under the
//! schemes that have named nodes (ring, rendezvous, Maglev, fixed shards,
//! slots, ketama): only the removed node's keys need to move. Jump hash and
//! `hash % N` number their nodes `0 … n−1` and can only lose the last one;
//! removing a middle node means renumbering the nodes after it (old node
//! `i > remove` becomes bucket `i − 1`), and then far more keys move. Both
//! readings get a row: the middle node removed by renumbering (which is
//! what [`Placement::remove_node`] does for them), and the last node
//! removed instead.
//!
//! ```
//! use reshard::analysis::MiddleRemoval;
//! use reshard::{HashWidth, KeySet};
//! let keys = KeySet::plain(10_000).hashed(HashWidth::Bits128)?;
//! let r = MiddleRemoval::measure(&keys, 10, 4)?;
//! let ring = r.rows().iter().find(|x| x.label.starts_with("ring")).unwrap();
//! assert_eq!(ring.between_kept, 0);
//! let renumbered = r.rows().iter().find(|x| x.label.starts_with("jump, node 4")).unwrap();
//! assert!(renumbered.between_kept > 2_000);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::compare::{Scheme, RING_VNODES, SHARDS, SHARD_SEED};
use crate::analysis::Movement;
use crate::keys::HashedKeys;
use crate::schemes::{FixedShards, Jump, Ketama, Maglev, Modulo, Placement, Rendezvous, Ring, Slots};
use crate::{Error, Result};

/// One row of a [`MiddleRemoval`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct RemovalRow {
    /// What was done, e.g. `"jump, node 4 removed (5…9 renumbered 4…8)"`.
    pub label: String,
    /// A short name for charts.
    pub short: String,
    /// The node that left.
    pub removed: String,
    /// Keys whose node changed.
    pub moved: u64,
    /// `moved` over the key count.
    pub share: f64,
    /// Movers that left the removed node.
    pub from_removed: u64,
    /// Movers between two nodes that stayed.
    pub between_kept: u64,
    /// `share` over the ideal `1/n` (the removed node's fair share).
    pub over_ideal: f64,
}

/// Removing one node from the middle of `0 … n−1`: see [`MiddleRemoval::measure`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MiddleRemoval {
    pub(crate) nodes: usize,
    pub(crate) removed: String,
    pub(crate) keys: u64,
    pub(crate) rows: Vec<RemovalRow>,
}

fn middle_removal(keys: &HashedKeys, n: usize, remove: usize) -> Result<MiddleRemoval> {
    if n < 2 {
        return Err(Error::OutOfRange {
            what: "node count",
            given: n.to_string(),
            allowed: "2 or more: removing one needs at least 2 nodes".into(),
        });
    }
    if remove >= n {
        return Err(Error::UnknownNode(remove.to_string()));
    }
    let name = remove.to_string();
    let last = (n - 1).to_string();
    let ideal = 1.0 / n as f64;
    let mut rows = Vec::new();
    let mut push = |label: String, short: &str, removed: &str, m: Movement| {
        rows.push(RemovalRow {
            label,
            short: short.to_string(),
            removed: removed.to_string(),
            moved: m.moved(),
            share: m.share(),
            from_removed: m.from_removed(),
            between_kept: m.between_kept(),
            over_ideal: m.share() / ideal,
        });
    };
    let mut named_row = |scheme: Scheme, short: &str, measure: &dyn Fn() -> Result<Movement>| -> Result<()> {
        push(scheme.label().to_string(), short, &name, measure()?);
        Ok(())
    };
    let ring = Ring::new(n)?.with_vnodes(RING_VNODES)?;
    named_row(Scheme::Ring, "ring", &|| Movement::measure(keys, &ring, &ring.remove_node(&name)?))?;
    let hrw = Rendezvous::new(n)?;
    named_row(Scheme::Rendezvous, "HRW", &|| Movement::measure(keys, &hrw, &hrw.remove_node(&name)?))?;
    let maglev = Maglev::new(n)?;
    named_row(Scheme::Maglev, "Maglev", &|| Movement::measure(keys, &maglev, &maglev.remove_node(&name)?))?;
    let shards = FixedShards::new(n)?.with_shards(SHARDS)?.with_seed(SHARD_SEED);
    named_row(Scheme::FixedShards, "shards", &|| Movement::measure(keys, &shards, &shards.remove_node(&name)?))?;
    let slots = Slots::new(n)?;
    named_row(Scheme::Slots, "slots", &|| Movement::measure(keys, &slots, &slots.remove_node(&name)?))?;
    let ketama = Ketama::new(n)?;
    named_row(Scheme::Ketama, "ketama", &|| Movement::measure(keys, &ketama, &ketama.remove_node(&name)?))?;
    let renumbered = if remove + 1 < n {
        format!("{}…{} renumbered {}…{}", remove + 1, n - 1, remove, n - 2)
    } else {
        "no node after it to renumber".to_string()
    };
    let jump = Jump::new(n)?;
    push(
        format!("jump, node {name} removed ({renumbered})"),
        "jump ren.",
        &name,
        Movement::measure(keys, &jump, &jump.remove_node(&name)?)?,
    );
    push(
        format!("jump, last node ({last}) removed instead"),
        "jump last",
        &last,
        Movement::measure(keys, &jump, &jump.remove_node(&last)?)?,
    );
    let modulo = Modulo::new(n)?;
    push(
        format!("hash % N, node {name} removed ({renumbered})"),
        "mod ren.",
        &name,
        Movement::measure(keys, &modulo, &modulo.remove_node(&name)?)?,
    );
    push(
        format!("hash % N, last node ({last}) removed instead"),
        "mod last",
        &last,
        Movement::measure(keys, &modulo, &modulo.remove_node(&last)?)?,
    );
    Ok(MiddleRemoval { nodes: n, removed: name, keys: keys.len() as u64, rows })
}

impl MiddleRemoval {
    /// Remove node `"{remove}"` of `n` nodes `"0"` … `"{n-1}"` under the ring
    /// (150 points), rendezvous, Maglev, fixed shards (1000, seed 42), slots and
    /// ketama, and under jump hash and `hash % N` both by renumbering the nodes
    /// after it and by removing the last node instead: see the
    /// [module docs](self#removing-a-node-from-the-middle).
    ///
    /// Fails when `n < 2`, `remove ≥ n`, or `n` is more than a scheme takes
    /// (1000 for the fixed shards).
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, KeySet, MiddleRemoval};
    /// let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128)?;
    /// let r = MiddleRemoval::measure(&keys, 5, 2)?;
    /// let row = |short: &str| r.rows().iter().find(|x| x.short == short).unwrap();
    /// // hash % N by hand: node 2 of 0…4 removed, 3 and 4 renumbered 2 and 3 …
    /// let name_after = |j: u128| if j < 2 { j } else { j + 1 };
    /// let renumbered = keys.hashes().iter().filter(|&&h| h % 5 != name_after(h % 4)).count();
    /// // … or the last node, 4, removed instead
    /// let last = keys.hashes().iter().filter(|&&h| h % 5 != h % 4).count();
    /// assert_eq!((row("mod ren.").moved, row("mod last").moved), (renumbered as u64, last as u64));
    /// // the ring moves node 2's keys and nothing else
    /// assert_eq!((row("ring").between_kept, row("ring").from_removed), (0, row("ring").moved));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure(keys: &HashedKeys, n: usize, remove: usize) -> Result<MiddleRemoval> {
        middle_removal(keys, n, remove)
    }
}

impl MiddleRemoval {
    /// The rows, named-node schemes first, then jump and `hash % N`.
    pub fn rows(&self) -> &[RemovalRow] {
        &self.rows
    }

    /// The row whose label starts with `prefix`.
    pub fn row(&self, prefix: &str) -> Option<&RemovalRow> {
        self.rows.iter().find(|r| r.label.starts_with(prefix))
    }
}
