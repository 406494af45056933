//! Nodes joining a (weighted) rendezvous placement at several weights at
//! once: every key is scored once per node, and each weight only changes
//! which of those scores is the highest.
//!
//! Placing the key set again for each weight would hash every (key, node)
//! pair once per weight; here it is hashed once, and each placement's owner
//! is chosen from the same scores by the same rule as
//! [`Placement::assign`](crate::schemes::Placement::assign) (the crate's
//! tests compare the two).

use super::{raw_score, unit, Rendezvous};
use crate::keys::HashedKeys;
use crate::schemes::{NodeId, Placement, CHUNK};
use crate::{Error, Result};
use rayon::prelude::*;

/// What one weight of the joining nodes gives: the keys on each node after
/// the join (the old nodes, then the added ones) and how many keys changed
/// node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JoinCounts {
    pub(crate) after: Vec<u64>,
    pub(crate) moved: u64,
}

impl Rendezvous {
    /// The owner among `raw` scores (one per node, node order) with their
    /// `ln u` in `ln`: [`best`](Rendezvous::best)'s rule, with each `ln u`
    /// computed once for every placement that scores the key.
    #[inline]
    fn best_scored(&self, raw: &[u128], ln: &[f64]) -> NodeId {
        let n = self.nodes.len();
        let mut best = 0;
        match &self.scaled {
            None => {
                for (i, &s) in raw.iter().enumerate().take(n) {
                    if s > raw[best] {
                        best = i;
                    }
                }
            }
            Some(w) => {
                let mut top = f64::NEG_INFINITY;
                for (i, &l) in ln.iter().enumerate().take(n) {
                    let score = -w[i] / l;
                    if i == 0 || score > top {
                        (best, top) = (i, score);
                    }
                }
            }
        }
        best as NodeId
    }

    /// The keys on each node before (`self`) and, for each weight of
    /// `weights`, after the nodes `added` join with that weight each, with
    /// the count of keys that changed node. Fails as
    /// [`add_weighted_node`](Rendezvous::add_weighted_node) does (a name
    /// taken, a weight not finite and > 0), on no added node or no weight,
    /// and over the crate's limits.
    pub(crate) fn join_counts(
        &self,
        keys: &HashedKeys,
        added: &[String],
        weights: &[f64],
    ) -> Result<(Vec<u64>, Vec<JoinCounts>)> {
        if added.is_empty() {
            return Err(Error::OutOfRange {
                what: "nodes that join:",
                given: "none".into(),
                allowed: "at least one new node name (e.g. \"10\")".into(),
            });
        }
        if weights.is_empty() {
            return Err(Error::OutOfRange {
                what: "weights of the joining nodes:",
                given: "none".into(),
                allowed: "at least one weight (a finite number > 0)".into(),
            });
        }
        let mut afters = Vec::with_capacity(weights.len());
        for &w in weights {
            let mut after = self.clone();
            for name in added {
                after = after.add_weighted_node(name, w)?;
            }
            afters.push(after);
        }
        afters[0].check_cost(keys)?;
        crate::limits::check_hint(
            "key placements (keys × weights)",
            crate::limits::product(keys.len(), weights.len()),
            crate::limits::current().max_placements,
            "use fewer keys or fewer weights",
        )?;
        let (old, all) = (self.nodes.len(), afters[0].nodes.len());
        let width = keys.width();
        let suffixes = &afters[0].suffixes; // the old nodes, then the added ones
        let empty = || (vec![0u64; old], vec![JoinCounts { after: vec![0; all], moved: 0 }; weights.len()]);
        let chunks = keys.len().div_ceil(CHUNK);
        let (before, rows) = (0..chunks)
            .into_par_iter()
            .map(|c| {
                let (mut before, mut rows) = empty();
                let mut w = keys.keys().writer();
                let (mut raw, mut ln) = (vec![0u128; all], vec![0f64; all]);
                let mut buf = Vec::with_capacity(64);
                for j in c * CHUNK..((c + 1) * CHUNK).min(keys.len()) {
                    buf.clear();
                    buf.extend_from_slice(w.key(j));
                    let klen = buf.len();
                    for ((r, l), s) in raw.iter_mut().zip(ln.iter_mut()).zip(suffixes) {
                        *r = raw_score(&mut buf, klen, s, width);
                        *l = unit(*r, width).ln();
                    }
                    let was = self.best_scored(&raw[..old], &ln[..old]);
                    before[was as usize] += 1;
                    for (row, after) in rows.iter_mut().zip(&afters) {
                        let now = after.best_scored(&raw, &ln);
                        row.after[now as usize] += 1;
                        row.moved += u64::from(now != was);
                    }
                }
                (before, rows)
            })
            .reduce(empty, |(mut b, mut r), (b2, r2)| {
                b.iter_mut().zip(b2).for_each(|(x, y)| *x += y);
                for (row, other) in r.iter_mut().zip(r2) {
                    row.after.iter_mut().zip(other.after).for_each(|(x, y)| *x += y);
                    row.moved += other.moved;
                }
                (b, r)
            });
        Ok((before, rows))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HashWidth, KeySet};

    /// Keys per node among `n` nodes.
    fn loads(owners: &[NodeId], n: usize) -> Vec<u64> {
        let mut l = vec![0u64; n];
        for &o in owners {
            l[o as usize] += 1;
        }
        l
    }

    #[test]
    fn the_counts_are_those_of_placing_the_keys_again() {
        for width in [HashWidth::Bits128, HashWidth::Bits32] {
            let keys = KeySet::plain(5_000).hashed(width).unwrap();
            for before in
                [Rendezvous::new(4).unwrap(), Rendezvous::new(4).unwrap().with_weights([1.0, 2.0, 0.5, 3.0]).unwrap()]
            {
                let added = ["x".to_string(), "y".to_string()];
                let weights = [0.25, 1.0, 3.0, 1e9];
                let (b, rows) = before.join_counts(&keys, &added, &weights).unwrap();
                for (row, &w) in rows.iter().zip(&weights) {
                    let after = before.add_weighted_node("x", w).unwrap().add_weighted_node("y", w).unwrap();
                    // placed again, key by key: the scheme's own `assign` (no analysis: a lower floor)
                    let (old, new) = (before.assign(&keys), after.assign(&keys));
                    let moved = old.iter().zip(&new).filter(|(a, b)| a != b).count() as u64;
                    assert_eq!(row.after, loads(&new, 6), "{width:?} w = {w}");
                    assert_eq!(row.moved, moved, "{width:?} w = {w}");
                    assert_eq!(b, loads(&old, 4));
                }
            }
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        let keys = KeySet::plain(10).hashed(HashWidth::Bits128).unwrap();
        let r = Rendezvous::new(3).unwrap();
        assert!(r.join_counts(&keys, &[], &[1.0]).is_err());
        assert!(r.join_counts(&keys, &["3".into()], &[]).is_err());
        assert!(matches!(r.join_counts(&keys, &["3".into()], &[f64::NAN]), Err(Error::BadWeight { .. })));
        assert!(matches!(r.join_counts(&keys, &["1".into()], &[1.0]), Err(Error::DuplicateNode(_))));
    }
}
