//! What moves when a placement changes: counts, shares, and where to.
//!
//! [`Movement::measure`] places every key before and after a change and
//! counts the keys whose owner (by node name) differs. The movers are split
//! the way the documents split them: those that land on a node that was
//! not there before ([`to_added`](Movement::to_added)), those that hop
//! between two nodes present both before and after
//! ([`between_kept`](Movement::between_kept), pure churn), and those that
//! leave a node that is gone ([`from_removed`](Movement::from_removed)).
//! The full old→new [`matrix`](Movement::matrix) is kept too.
//!
//! ```
//! use reshard::{HashWidth, KeySet, Modulo, Movement};
//! let keys = KeySet::plain(200_000).hashed(HashWidth::Bits128)?;
//! let m = Movement::measure(&keys, &Modulo::new(10)?, &Modulo::new(11)?)?;
//! assert_eq!(m.moved(), 181_745);            // document 002: 90.87%
//! assert_eq!(m.between_kept(), 163_493);     // old node → old node
//! assert_eq!(m.to_added(), 18_252);          // → node 10
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::limits;
use crate::schemes::{NodeId, Placement, CHUNK};
use crate::{Error, Result};
use rayon::prelude::*;

/// The result of comparing two placements over one key set.
///
/// With the `serde` feature it serializes as `keys`, `moved`, `share`,
/// `to_added`, `between_kept`, `from_removed`, `added_nodes`,
/// `removed_nodes`, `nodes` and `matrix` (`matrix[i][j]`: keys on
/// `nodes[i]` before and on `nodes[j]` after).
#[derive(Debug, Clone, PartialEq)]
pub struct Movement {
    pub(crate) keys: u64,
    pub(crate) moved: u64,
    pub(crate) to_added: u64,
    pub(crate) between_kept: u64,
    pub(crate) from_removed: u64,
    /// Every node name that appears before or after: before's nodes in
    /// order, then the nodes only `after` has.
    pub(crate) nodes: Vec<String>,
    pub(crate) in_before: Vec<bool>,
    pub(crate) in_after: Vec<bool>,
    /// `matrix[i][j]`: keys on `nodes[i]` before and on `nodes[j]` after.
    pub(crate) matrix: Vec<Vec<u64>>,
}

impl Movement {
    /// Place every key with `before` and with `after`, and count.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, KeySet, Modulo, Movement};
    /// let keys = KeySet::plain(3_000).hashed(HashWidth::Bits128)?;
    /// let m = Movement::measure(&keys, &Modulo::new(3)?, &Modulo::new(4)?)?;
    /// // by hand: a key moves when h % 3 ≠ h % 4; it lands on the new node "3" when h % 4 = 3
    /// let moved = keys.hashes().iter().filter(|&&h| h % 3 != h % 4).count() as u64;
    /// let to_new = keys.hashes().iter().filter(|&&h| h % 4 == 3).count() as u64;
    /// assert_eq!((m.moved(), m.to_added(), m.between_kept()), (moved, to_new, moved - to_new));
    /// assert_eq!(m.keys(), 3_000);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    ///
    /// The old→new matrix is dense, so at most
    /// [`Limits::max_nodes`](limits::Limits::max_nodes) distinct node names
    /// may take part, and at most 8,192 however high that limit is raised
    /// ([`MAX_MATRIX_CELLS`](limits::MAX_MATRIX_CELLS)).
    pub fn measure<P: Placement>(keys: &HashedKeys, before: &P, after: &P) -> Result<Movement> {
        let mut names: Vec<&String> = before.nodes().iter().chain(after.nodes()).collect();
        names.sort_unstable();
        names.dedup();
        limits::check_hint("distinct nodes", names.len() as u128, limits::current().max_nodes, "use fewer nodes")?;
        before.check_cost(keys)?;
        after.check_cost(keys)?;
        let (a, b) = before.assign_pair(after, keys);
        Movement::from_assignments(before.nodes(), &a, after.nodes(), &b)
    }

    /// Count from two assignments already made (`a[i]` indexes
    /// `before_nodes`, `b[i]` indexes `after_nodes`). Fails when the two
    /// have different lengths or name a node index out of range, when
    /// either list of names is empty or names a node twice, or when more
    /// distinct names than [`Limits::max_nodes`](limits::Limits::max_nodes)
    /// take part (checked before the matrix is allocated).
    ///
    /// ```
    /// use reshard::{Error, Movement};
    /// let ab = ["A".to_string(), "B".to_string()];
    /// let m = Movement::from_assignments(&ab, &[0, 1, 1], &ab[..1], &[0, 0, 0])?;
    /// assert_eq!(m.moved(), 2);
    /// assert_eq!(Movement::from_assignments(&[], &[], &[], &[]).unwrap_err(), Error::NoNodes);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn from_assignments(
        before_nodes: &[String],
        a: &[NodeId],
        after_nodes: &[String],
        b: &[NodeId],
    ) -> Result<Movement> {
        if a.len() != b.len() {
            return Err(Error::LengthMismatch {
                what: "owners after (one per key before)",
                expected: a.len(),
                given: b.len(),
            });
        }
        // count and bytes first, then distinct: nothing is copied before
        limits::check_names(before_nodes)?;
        limits::check_names(after_nodes)?;
        let before_nodes = crate::schemes::check_names(before_nodes.iter().map(String::as_str))?;
        let after_nodes = crate::schemes::check_names(after_nodes.iter().map(String::as_str))?;
        crate::schemes::check_table(a, before_nodes.len())?;
        crate::schemes::check_table(b, after_nodes.len())?;
        let index: std::collections::HashMap<&str, usize> =
            before_nodes.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
        let added = after_nodes.iter().filter(|n| !index.contains_key(n.as_str())).count();
        limits::check_hint(
            "distinct nodes",
            (before_nodes.len() + added) as u128,
            limits::current().max_nodes,
            "use fewer nodes",
        )?;
        let mut nodes: Vec<String> = before_nodes.clone();
        let after_map: Vec<usize> = after_nodes
            .iter()
            .map(|n| match index.get(n.as_str()) {
                Some(&i) => i,
                None => {
                    nodes.push(n.clone());
                    nodes.len() - 1
                }
            })
            .collect();
        let u = nodes.len();
        limits::check_hint(
            "cells of the old → new movement matrix (distinct nodes²)",
            limits::product(u, u),
            limits::MAX_MATRIX_CELLS,
            "compare fewer distinct nodes (at most 8,192)",
        )?;
        let in_before: Vec<bool> = (0..u).map(|i| i < before_nodes.len()).collect();
        let mut in_after = vec![false; u];
        for &j in &after_map {
            in_after[j] = true;
        }
        // One u×u accumulator per split, and at most as many splits as
        // threads and as 512 MiB of accumulators allow (at 4,096 nodes each
        // is 134 MB; at 8,192, 512 MB: one, counted on one core).
        let room = usize::try_from((limits::MAX_MATRIX_CELLS / limits::product(u, u).max(1)).max(1)).unwrap_or(1);
        let splits = rayon::current_num_threads().min(room).max(1);
        let count = |m: &mut Vec<u64>, ca: &[NodeId], cb: &[NodeId]| {
            for (&x, &y) in ca.iter().zip(cb) {
                m[x as usize * u + after_map[y as usize]] += 1;
            }
        };
        let flat = if splits == 1 {
            let mut m = vec![0u64; u * u];
            count(&mut m, a, b);
            m
        } else {
            a.par_chunks(CHUNK)
                .zip(b.par_chunks(CHUNK))
                .with_min_len(a.len().div_ceil(CHUNK).div_ceil(splits).max(1))
                .fold(
                    || vec![0u64; u * u],
                    |mut m, (ca, cb)| {
                        count(&mut m, ca, cb);
                        m
                    },
                )
                .reduce_with(|mut m, o| {
                    m.iter_mut().zip(o).for_each(|(x, y)| *x += y);
                    m
                })
                .unwrap_or_else(|| vec![0u64; u * u])
        };
        let matrix: Vec<Vec<u64>> = flat.chunks(u).map(<[u64]>::to_vec).collect();
        let (mut moved, mut to_added, mut between_kept, mut from_removed) = (0, 0, 0, 0);
        for i in 0..u {
            for j in 0..u {
                let c = matrix[i][j];
                if i == j || c == 0 {
                    continue;
                }
                moved += c;
                if !in_before[j] {
                    to_added += c;
                }
                if !in_after[i] {
                    from_removed += c;
                }
                if in_after[i] && in_before[j] {
                    between_kept += c;
                }
            }
        }
        Ok(Movement {
            keys: a.len() as u64,
            moved,
            to_added,
            between_kept,
            from_removed,
            nodes,
            in_before,
            in_after,
            matrix,
        })
    }

    /// How many keys were compared.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// Keys whose node changed.
    pub fn moved(&self) -> u64 {
        self.moved
    }

    /// The share of keys whose node changed, in [0, 1].
    pub fn share(&self) -> f64 {
        self.moved as f64 / self.keys.max(1) as f64
    }

    /// Movers that landed on a node that did not exist before.
    pub fn to_added(&self) -> u64 {
        self.to_added
    }

    /// Movers that went from a node that stayed to another node that was
    /// there before: churn that buys no capacity.
    pub fn between_kept(&self) -> u64 {
        self.between_kept
    }

    /// Movers that left a node that is gone.
    pub fn from_removed(&self) -> u64 {
        self.from_removed
    }

    /// Every node name seen, before's first, then added ones.
    pub fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// The nodes only `after` has.
    pub fn added_nodes(&self) -> Vec<&str> {
        (0..self.nodes.len()).filter(|&i| !self.in_before[i]).map(|i| self.nodes[i].as_str()).collect()
    }

    /// The nodes only `before` has.
    pub fn removed_nodes(&self) -> Vec<&str> {
        (0..self.nodes.len()).filter(|&i| !self.in_after[i]).map(|i| self.nodes[i].as_str()).collect()
    }

    /// `matrix()[i][j]`: keys on `nodes()[i]` before and `nodes()[j]` after.
    pub fn matrix(&self) -> &[Vec<u64>] {
        &self.matrix
    }

    /// Keys per node before (over `nodes()`; 0 for added nodes).
    pub fn load_before(&self) -> Vec<u64> {
        self.matrix.iter().map(|r| r.iter().sum()).collect()
    }

    /// Keys per node after (over `nodes()`; 0 for removed nodes).
    pub fn load_after(&self) -> Vec<u64> {
        (0..self.nodes.len()).map(|j| self.matrix.iter().map(|r| r[j]).sum()).collect()
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Movement {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("Movement", 10)?;
        m.serialize_field("keys", &self.keys)?;
        m.serialize_field("moved", &self.moved)?;
        m.serialize_field("share", &self.share())?;
        m.serialize_field("to_added", &self.to_added)?;
        m.serialize_field("between_kept", &self.between_kept)?;
        m.serialize_field("from_removed", &self.from_removed)?;
        m.serialize_field("added_nodes", &self.added_nodes())?;
        m.serialize_field("removed_nodes", &self.removed_nodes())?;
        m.serialize_field("nodes", &self.nodes)?;
        m.serialize_field("matrix", &self.matrix)?;
        m.end()
    }
}
