//! [`ShardCountSweep`] as an explorable: as the cluster grows to each node
//! count, the share of the keys fixed shards move, the floor beside it, and
//! how far the fullest node sits above the mean, with a slider over the
//! shard count S.
//!
//! ```
//! use reshard::analysis::ShardCountSweep;
//! use reshard::notebook::*;
//! let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128)?;
//! let sweep = ShardCountSweep::measure(&keys, 10, &[11, 12, 13], &[20, 1000], 42)?;
//! let ex = sweep.explorable("shards", 1000)?;
//! let row = sweep.row(20, 11).unwrap();
//! assert_eq!(ex.value(&[20], "keys moved", 11), Some(row.share()));
//! assert_eq!(ex.value(&[20], "fullest node above the mean", 11), Some(row.fullest_excess()));
//! assert!(ex.output()?.text().contains("shards = 1000"));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::ShardCountSweep;
use crate::present::{Explorable, Format};
use crate::Result;

/// The three series, in the order drawn.
const MOVED: &str = "keys moved";
const FLOOR: &str = "floor |Δ| ÷ nodes after";
const FULLEST: &str = "fullest node above the mean";

impl ShardCountSweep {
    /// A line over the node counts after: the share of the keys fixed shards
    /// move, the floor, and the fullest node's keys above the mean after
    /// (all shares of the keys), with a slider named `slider` (the lab's
    /// parameter, e.g. `shards`) over the shard counts measured, starting
    /// at `shards` (one of them). Every value is a row of the sweep.
    pub fn explorable(&self, slider: &str, shards: usize) -> Result<Explorable> {
        let title = format!("Fixed shards grown from {} nodes: keys moved, the floor, the fullest node", self.from);
        let mut ex = Explorable::line(&title, "nodes after", "share")
            .slider(slider, self.shard_counts(), shards)?
            .format(Format::Percent(2));
        for s in self.shard_counts() {
            let rows: Vec<_> = self.rows.iter().filter(|r| r.shards == s).collect();
            let xs: Vec<usize> = rows.iter().map(|r| r.to).collect();
            let moved: Vec<f64> = rows.iter().map(|r| r.share()).collect();
            let floor: Vec<f64> = rows.iter().map(|r| r.floor).collect();
            let fullest: Vec<f64> = rows.iter().map(|r| r.fullest_excess()).collect();
            ex.series_row(MOVED, &[s], &xs, &moved)?;
            ex.series_row(FLOOR, &[s], &xs, &floor)?;
            ex.series_row(FULLEST, &[s], &xs, &fullest)?;
        }
        ex.checked()
    }
}
