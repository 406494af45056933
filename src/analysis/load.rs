//! Load: how many keys each node holds, and how even that is.
//!
//! ```
//! use reshard::{letters, HashWidth, KeySet, LoadReport, Ring};
//! let keys = KeySet::users(100_000).hashed(HashWidth::Bits32)?;
//! let one = LoadReport::measure(&keys, &Ring::named(letters("ABCD"))?)?;
//! assert_eq!(one.counts(), [31_186, 10_531, 30_259, 28_024]);   // document 000
//! assert_eq!(one.min(), 10_531);
//! assert!((one.max_over_mean() - 31_186.0 / 25_000.0).abs() < 1e-12);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::schemes::Placement;
use crate::{Error, Result};

/// Keys per node, with the summary numbers that say how even it is.
///
/// With the `serde` feature it serializes as `nodes`, `counts` and the
/// summary: `total`, `min`, `max`, `mean`, `max_over_mean`, `std_dev`,
/// `relative_std_dev`.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadReport {
    pub(crate) nodes: Vec<String>,
    pub(crate) counts: Vec<u64>,
}

impl LoadReport {
    /// Place every key and count per node.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, KeySet, LoadReport, Modulo};
    /// let keys = KeySet::plain(3_000).hashed(HashWidth::Bits128)?;
    /// let load = LoadReport::measure(&keys, &Modulo::new(3)?)?;
    /// // hash % 3, counted by hand
    /// let mut by_hand = [0u64; 3];
    /// for &h in keys.hashes() {
    ///     by_hand[(h % 3) as usize] += 1;
    /// }
    /// assert_eq!(load.counts(), by_hand);
    /// assert_eq!(load.nodes(), ["0", "1", "2"]);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure<P: Placement>(keys: &HashedKeys, placement: &P) -> Result<LoadReport> {
        placement.check_cost(keys)?;
        let owners = placement.assign(keys);
        let mut counts = vec![0u64; placement.nodes().len()];
        for o in owners {
            counts[o as usize] += 1;
        }
        Ok(LoadReport { nodes: placement.nodes().to_vec(), counts })
    }

    /// A report from counts already made, one per node. Fails when the
    /// lengths differ, on no nodes, on a name given twice, on names over the
    /// [`limits`](crate::limits), or when the counts add up to more than
    /// `u64::MAX`.
    ///
    /// ```
    /// use reshard::{Error, LoadReport};
    /// let r = LoadReport::from_counts(vec!["A".into(), "B".into()], vec![3, 1])?;
    /// assert_eq!(r.total(), 4);
    /// let twice = LoadReport::from_counts(vec!["A".into(), "A".into()], vec![3, 1]);
    /// assert_eq!(twice.unwrap_err(), Error::DuplicateNode("A".into()));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn from_counts(nodes: Vec<String>, counts: Vec<u64>) -> Result<LoadReport> {
        if nodes.len() != counts.len() {
            return Err(Error::LengthMismatch { what: "counts for nodes", expected: nodes.len(), given: counts.len() });
        }
        let nodes = crate::schemes::check_names(nodes)?;
        if counts.iter().try_fold(0u64, |a, &c| a.checked_add(c)).is_none() {
            return Err(Error::Overflow {
                what: "the sum of the counts (all keys)",
                hint: "give counts that add up to at most 18,446,744,073,709,551,615",
            });
        }
        Ok(LoadReport { nodes, counts })
    }

    /// Node names, in the placement's order.
    pub fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// Keys per node, in node order.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Total keys (the counts add up within `u64`: every constructor
    /// checks; saturating all the same).
    pub fn total(&self) -> u64 {
        self.counts.iter().fold(0u64, |a, &c| a.saturating_add(c))
    }

    /// The fewest keys on one node.
    pub fn min(&self) -> u64 {
        self.counts.iter().copied().min().unwrap_or(0)
    }

    /// The most keys on one node.
    pub fn max(&self) -> u64 {
        self.counts.iter().copied().max().unwrap_or(0)
    }

    /// The mean keys per node (the fair share).
    pub fn mean(&self) -> f64 {
        self.total() as f64 / self.counts.len().max(1) as f64
    }

    /// The busiest node over the fair share: 1.0 is perfectly even.
    pub fn max_over_mean(&self) -> f64 {
        if self.mean() == 0.0 {
            0.0
        } else {
            self.max() as f64 / self.mean()
        }
    }

    /// Population standard deviation of the counts.
    pub fn std_dev(&self) -> f64 {
        let m = self.mean();
        let n = self.counts.len().max(1) as f64;
        (self.counts.iter().map(|&c| (c as f64 - m).powi(2)).sum::<f64>() / n).sqrt()
    }

    /// Standard deviation over the mean (coefficient of variation).
    pub fn relative_std_dev(&self) -> f64 {
        if self.mean() == 0.0 {
            0.0
        } else {
            self.std_dev() / self.mean()
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for LoadReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("LoadReport", 9)?;
        m.serialize_field("nodes", &self.nodes)?;
        m.serialize_field("counts", &self.counts)?;
        m.serialize_field("total", &self.total())?;
        m.serialize_field("min", &self.min())?;
        m.serialize_field("max", &self.max())?;
        m.serialize_field("mean", &self.mean())?;
        m.serialize_field("max_over_mean", &self.max_over_mean())?;
        m.serialize_field("std_dev", &self.std_dev())?;
        m.serialize_field("relative_std_dev", &self.relative_std_dev())?;
        m.end()
    }
}
