//! [`MaglevSizeSweep`] as an explorable: for each backend count, the keys
//! moved between two backends that both stay when one leaves, and how far
//! the fullest backend's entries sit above the mean, with a slider over the
//! table size M.
//!
//! ```
//! use reshard::analysis::MaglevSizeSweep;
//! use reshard::notebook::*;
//! let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128)?;
//! let sweep = MaglevSizeSweep::measure(&keys, &[101, 1009], &[5, 6], 4)?;
//! let ex = sweep.explorable("maglev_m", 1009)?;
//! let row = sweep.row(101, 5).unwrap();
//! assert_eq!(ex.value(&[101], "keys moved between survivors", 5), Some(row.churn_share()));
//! assert!(ex.output()?.text().contains("maglev_m = 1009"));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::MaglevSizeSweep;
use crate::present::{Explorable, Format};
use crate::Result;

/// The two series, in the order drawn.
const CHURN: &str = "keys moved between survivors";
const EXCESS: &str = "fullest backend's entries above M/N";

impl MaglevSizeSweep {
    /// A line over the backend counts N: the churn when the backend leaves
    /// (keys moved between two backends that stay, as a share of the keys)
    /// and the fullest backend's entries above the mean M/N before it
    /// leaves; a slider named `slider` (the lab's parameter, e.g.
    /// `maglev_m`) over the table sizes, starting at `size` (one of them).
    pub fn explorable(&self, slider: &str, size: usize) -> Result<Explorable> {
        let removed = self.rows.first().map_or("", |r| r.removed.as_str());
        let title = format!("Maglev, backend {removed} leaving: churn and the fullest backend");
        let mut ex = Explorable::line(&title, "backends N (before one leaves)", "share")
            .slider(slider, self.sizes(), size)?
            .format(Format::Percent(2));
        for m in self.sizes() {
            let rows: Vec<_> = self.rows.iter().filter(|r| r.size == m).collect();
            let xs: Vec<usize> = rows.iter().map(|r| r.nodes).collect();
            let churn: Vec<f64> = rows.iter().map(|r| r.churn_share()).collect();
            let excess: Vec<f64> = rows.iter().map(|r| r.entry_excess()).collect();
            ex.series_row(CHURN, &[m], &xs, &churn)?;
            ex.series_row(EXCESS, &[m], &xs, &excess)?;
        }
        ex.checked()
    }
}
