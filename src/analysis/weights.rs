//! Weighted placement: does each node get its weight's share of the keys?
//!
//! Give node `i` the weight `wᵢ`; a fair weighted scheme sends it the share
//! `wᵢ / Σw` of the keys. [`WeightedShares::measure`] places one key set on
//! nodes `"0"`, `"1"`, … twice — with weighted rendezvous hashing
//! ([`Rendezvous::with_weights`], the score `−w / ln(h)`) and with
//! libketama's weights ([`Ketama::with_weights`], ⌊40·N·w/Σw⌋ md5 digests
//! of four points each) — and keeps, per node, the weight share beside the
//! share of the keys each scheme gave it.
//!
//! The gap between the two is measured as a share of all the keys
//! ([`WeightedShares::rendezvous_gap`]) and in binomial standard deviations
//! `√(p(1−p)/m)` for a node of weight share `p` and `m` keys
//! ([`WeightedShares::rendezvous_sigmas`]): rendezvous is exact in
//! expectation, so only that sampling noise is left; a ring's share also
//! depends on where its points fall, a noise of about `1/√points` that more
//! keys don't remove.
//!
//! ```
//! use reshard::analysis::WeightedShares;
//! use reshard::prelude::*;
//! let keys = KeySet::plain(20_000).hashed(HashWidth::Bits128)?;
//! let w = WeightedShares::measure(&keys, &[1, 3])?;
//! assert_eq!(w.rows()[1].weight_share, 0.75);
//! assert_eq!(w.ketama_digests(), [20, 60]); // ⌊40·2·¼⌋, ⌊40·2·¾⌋
//! assert!(w.rendezvous_sigmas() < 4.0); // sampling noise only
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! [`Rendezvous::with_weights`]: crate::Rendezvous::with_weights
//! [`Ketama::with_weights`]: crate::Ketama::with_weights

use crate::analysis::LoadReport;
use crate::keys::HashedKeys;
use crate::schemes::{numbered, Ketama, Rendezvous};
use crate::Result;

/// One node of a [`WeightedShares`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct WeightRow {
    /// The node's name (`"0"`, `"1"`, …).
    pub node: String,
    /// Its weight.
    pub weight: u32,
    /// `weight / Σ weights`: the share a fair scheme gives it.
    pub weight_share: f64,
    /// The share of the keys weighted rendezvous gave it.
    pub rendezvous: f64,
    /// The share of the keys libketama gave it.
    pub ketama: f64,
    /// Its points on libketama's ring (4 per md5 digest).
    pub ketama_points: usize,
}

/// Weighted rendezvous and libketama on one key set: see the
/// [module docs](self).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WeightedShares {
    pub(crate) rows: Vec<WeightRow>,
    pub(crate) keys: u64,
}

impl WeightedShares {
    /// Places `keys` on `weights.len()` nodes named `"0"`, `"1"`, …, node `i`
    /// of weight `weights[i]`, with both schemes.
    ///
    /// Why `u32`: the same weights go to both schemes, and libketama only
    /// takes integers (rendezvous gets them as `f64`).
    ///
    /// Fails on no weights or a weight of 0 ([`Error::BadWeight`]).
    ///
    /// [`Error::BadWeight`]: crate::Error::BadWeight
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, KeySet, WeightedShares};
    /// let keys = KeySet::users(1_000).hashed(HashWidth::Bits32)?;
    /// let w = WeightedShares::measure(&keys, &[1, 3])?;
    /// assert_eq!((w.rows()[0].weight_share, w.rows()[1].weight_share), (0.25, 0.75));
    /// // weighted rendezvous by hand: node i scores −wᵢ / ln(u), with
    /// // u = (md5 mod 2^32 of "{key}:{i}" + ½) / 2^32; the higher score wins
    /// let u = |s: String| (HashWidth::Bits32.hash(s.as_bytes()) as f64 + 0.5) / 4_294_967_296.0;
    /// let on_1 = KeySet::users(1_000).iter().filter(|k| -3.0 / u(format!("{k}:1")).ln() > -1.0 / u(format!("{k}:0")).ln()).count();
    /// assert_eq!(w.rows()[1].rendezvous, on_1 as f64 / 1_000.0);
    /// assert_eq!(w.ketama_digests(), [20, 60]); // ⌊40 · 2 · ¼⌋, ⌊40 · 2 · ¾⌋
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure(keys: &HashedKeys, weights: &[u32]) -> Result<Self> {
        let names = numbered(weights.len())?;
        let rendezvous = Rendezvous::named(names.clone())?.with_weights(weights.iter().map(|&w| f64::from(w)))?;
        let ketama = Ketama::named(names.clone())?.with_weights(weights.iter().copied())?;
        let shares = |l: LoadReport| -> Vec<f64> {
            let total = l.total().max(1) as f64;
            l.counts().iter().map(|&c| c as f64 / total).collect()
        };
        let (by_rendezvous, by_ketama) =
            (shares(LoadReport::measure(keys, &rendezvous)?), shares(LoadReport::measure(keys, &ketama)?));
        let sum: f64 = weights.iter().map(|&w| f64::from(w)).sum();
        let rows = names
            .into_iter()
            .zip(weights)
            .zip(ketama.digests())
            .enumerate()
            .map(|(i, ((node, &weight), digests))| WeightRow {
                node,
                weight,
                weight_share: f64::from(weight) / sum,
                rendezvous: by_rendezvous[i],
                ketama: by_ketama[i],
                ketama_points: 4 * digests,
            })
            .collect();
        Ok(WeightedShares { rows, keys: keys.len() as u64 })
    }

    /// One row per node, in node order.
    pub fn rows(&self) -> &[WeightRow] {
        &self.rows
    }

    /// Keys placed.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// libketama's md5 digests per node, ⌊40·N·w/Σw⌋ (4 points each).
    pub fn ketama_digests(&self) -> Vec<usize> {
        self.rows.iter().map(|r| r.ketama_points / 4).collect()
    }

    /// The largest |share of the keys − weight share| over the nodes, with
    /// weighted rendezvous.
    pub fn rendezvous_gap(&self) -> f64 {
        self.largest(|r| (r.rendezvous - r.weight_share).abs())
    }

    /// The largest |share of the keys − weight share| over the nodes, with
    /// libketama.
    pub fn ketama_gap(&self) -> f64 {
        self.largest(|r| (r.ketama - r.weight_share).abs())
    }

    /// [`rendezvous_gap`](Self::rendezvous_gap) in binomial standard
    /// deviations: the largest |share − p| / √(p(1−p)/m) over the nodes.
    pub fn rendezvous_sigmas(&self) -> f64 {
        self.largest(|r| self.in_sigmas(r.rendezvous, r.weight_share))
    }

    /// [`ketama_gap`](Self::ketama_gap) in binomial standard deviations.
    pub fn ketama_sigmas(&self) -> f64 {
        self.largest(|r| self.in_sigmas(r.ketama, r.weight_share))
    }

    fn in_sigmas(&self, share: f64, p: f64) -> f64 {
        let sd = (p * (1.0 - p) / self.keys.max(1) as f64).sqrt();
        if sd > 0.0 {
            (share - p).abs() / sd
        } else {
            0.0 // one node: it has every key, as its weight says
        }
    }

    fn largest(&self, f: impl Fn(&WeightRow) -> f64) -> f64 {
        self.rows.iter().map(f).fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HashWidth, KeySet};

    #[test]
    fn shares_are_the_load_reports_by_hand() {
        let keys = KeySet::plain(3000).hashed(HashWidth::Bits128).unwrap();
        let w = WeightedShares::measure(&keys, &[2, 1, 5]).unwrap();
        let names = numbered(3).unwrap();
        let hrw = Rendezvous::named(names.clone()).unwrap().with_weights([2.0, 1.0, 5.0]).unwrap();
        let ket = Ketama::named(names).unwrap().with_weights([2, 1, 5]).unwrap();
        let (mut a, mut b) = ([0u64; 3], [0u64; 3]);
        for i in 0..3000 {
            let name = format!("key{i}");
            let key = crate::Key::new(&name, HashWidth::Bits128);
            a[crate::Locate::locate(&hrw, key) as usize] += 1;
            b[crate::Locate::locate(&ket, key) as usize] += 1;
        }
        for (i, r) in w.rows().iter().enumerate() {
            assert_eq!(r.rendezvous, a[i] as f64 / 3000.0);
            assert_eq!(r.ketama, b[i] as f64 / 3000.0);
            assert_eq!(r.weight_share, [2.0, 1.0, 5.0][i] / 8.0);
        }
        // ⌊40·3·w/8⌋ = 30, 15, 75 digests
        assert_eq!(w.ketama_digests(), [30, 15, 75]);
        let gap = (0..3).map(|i| (b[i] as f64 / 3000.0 - [2.0, 1.0, 5.0][i] / 8.0).abs()).fold(0.0, f64::max);
        assert_eq!(w.ketama_gap(), gap);
    }

    #[test]
    fn one_node_has_every_key_and_no_gap() {
        let keys = KeySet::plain(100).hashed(HashWidth::Bits128).unwrap();
        let w = WeightedShares::measure(&keys, &[7]).unwrap();
        assert_eq!((w.rows()[0].rendezvous, w.rendezvous_sigmas(), w.ketama_sigmas()), (1.0, 0.0, 0.0));
    }

    #[test]
    fn bad_weights_are_errors() {
        let keys = KeySet::plain(10).hashed(HashWidth::Bits128).unwrap();
        assert!(WeightedShares::measure(&keys, &[]).is_err());
        assert!(matches!(WeightedShares::measure(&keys, &[1, 0]), Err(crate::Error::BadWeight { .. })));
    }
}
