//! [`BoundedLoads`] as an explorable: for each count of points per node, how
//! far the busiest node sits above the mean and what share of the keys
//! moved (and moved between old nodes), with a slider over ε.
//!
//! ```
//! use reshard::notebook::*;
//! let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128)?;
//! let b = BoundedLoads::measure(&keys, 10, 11, &[1, 20], &[0.05, 0.25])?;
//! let ex = b.explorable("epsilon", 0.25)?;
//! let row = b.row(1, Some(0.05)).unwrap();
//! assert_eq!(ex.value(&[0.05], "keys moved", "1 point/node"), Some(row.share()));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::BoundedLoads;
use crate::present::{Explorable, Format};
use crate::{Error, Result};

impl BoundedLoads {
    /// Bars per count of points per node ("1 point/node", "150 points/node"):
    /// the busiest node above the mean (max/mean − 1), the share of the keys
    /// moved and the share moved between two old nodes, after growing; a
    /// slider named `slider` (the lab's parameter, e.g. `epsilon`) over the
    /// ε values measured, starting at `epsilon` (one of them). The plain
    /// ring's rows (no ε) are not on the slider; an ε measured twice is drawn
    /// once. Fails when no ε was measured, or when `epsilon` is not one of them.
    pub fn explorable(&self, slider: &str, epsilon: f64) -> Result<Explorable> {
        let mut eps: Vec<f64> = self.rows.iter().filter_map(|r| r.epsilon).collect();
        eps.sort_by(f64::total_cmp);
        eps.dedup();
        if eps.is_empty() {
            return Err(Error::OutOfRange {
                what: "ε values measured",
                given: "none".into(),
                allowed: "at least one ε in BoundedLoads::measure(…, &[ε, …])".into(),
            });
        }
        let (from, to) = self.nodes();
        let title = format!("Bounded loads, {from} → {to} nodes: busiest node and keys moved");
        let mut ex = Explorable::bars(&title, "points per node", "share").slider(slider, eps, epsilon)?;
        let mut seen: Vec<(usize, f64)> = Vec::new(); // an ε given twice was measured twice: draw it once
        for r in self.rows.iter().filter(|r| r.epsilon.is_some()) {
            let e = [r.epsilon.unwrap_or(0.0)];
            if seen.contains(&(r.points, e[0])) {
                continue;
            }
            seen.push((r.points, e[0]));
            let x = if r.points == 1 { "1 point/node".to_string() } else { format!("{} points/node", r.points) };
            let keys = r.keys.max(1) as f64;
            ex.series_point("busiest above the mean", &e, x.as_str(), r.max_over_mean - 1.0)?;
            ex.series_point("keys moved", &e, x.as_str(), r.share())?;
            ex.series_point("moved between old nodes", &e, x.as_str(), r.between_kept as f64 / keys)?;
        }
        ex.format(Format::Percent(2)).checked()
    }
}
