//! Splitting a range by load rather than by size (DDIA 2nd ed. ch. 7,
//! "Skewed Workloads and Relieving Hot Spots"; TiKV's load-based split,
//! DynamoDB's split for heat): cut a hot range at the key that halves its
//! recent writes, instead of at the median of the rows it holds.
//!
//! A size split moves half a range's rows; a load split moves only the
//! rows above the middle of the recent writes. Under keys that only grow
//! (timestamps) the recent writes are the newest keys, so the rows above
//! their middle are the newest half of them, and every later write sorts
//! above the cut as well: the split makes the hot range smaller and leaves
//! it as hot.
//!
//! ```
//! use reshard::analysis::LoadSplit;
//! use reshard::prelude::*;
//! let rows = KeySet::new("t", 1_000); // one range, on A
//! let one = KeyRanges::named(letters("AB"))?;
//! // the last 10 writes: t990 … t999 (in byte order t990 < t991 < …)
//! let recent = KeySet::from_keys((990..1000).map(|i| format!("t{i}")))?;
//! let split = LoadSplit::measure(&one, 0, &rows, &recent)?;
//! assert_eq!(split.at(), b"t995"); // 5 of the 10 recent writes below it, 5 at or above
//! assert_eq!(split.rows_moved(), 5); // t995 … t999: nothing older sorts above t995
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::KeySet;
use crate::schemes::KeyRanges;
use crate::{Error, Result};

/// Where a load-based split cuts one range, and what it moves.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LoadSplit {
    range: usize,
    at: Vec<u8>,
    recent: u64,
    rows: u64,
    moved: u64,
}

impl LoadSplit {
    /// Split range `range` of `layout` by load: `recent` are the writes of
    /// the window the split looks at (TiKV samples the last seconds' keys;
    /// a lab, the last hour's), `rows` every row of the table now. The cut
    /// is the recent writes' median key among those in the range (with `n`
    /// of them in key order, the one at offset `n / 2`, as a size split
    /// takes the median row), and the rows at or above it move. Fails when
    /// the range does not exist, when no recent write falls in it, and when
    /// the cut would be the range's own lower bound (nothing would stay).
    pub fn measure(layout: &KeyRanges, range: usize, rows: &KeySet, recent: &KeySet) -> Result<LoadSplit> {
        let bounds = layout.boundaries();
        if range > bounds.len() {
            return Err(Error::OutOfRange {
                what: "range to split",
                given: range.to_string(),
                allowed: format!("a range of the layout, 0 to {}", bounds.len()),
            });
        }
        let mut hot: Vec<Vec<u8>> =
            recent.iter().map(String::into_bytes).filter(|k| layout.range_of(k) == range).collect();
        hot.sort_unstable();
        hot.dedup();
        let Some(at) = hot.get(hot.len() / 2).cloned() else {
            return Err(Error::NoKeys);
        };
        if range > 0 && bounds[range - 1] == at {
            return Err(Error::OutOfRange {
                what: "load split point",
                given: crate::keys::escape(&at),
                allowed: "a key above the range's lower bound (the recent writes all sit at its first key)".into(),
            });
        }
        let mut held: Vec<Vec<u8>> =
            rows.iter().map(String::into_bytes).filter(|k| layout.range_of(k) == range).collect();
        held.sort_unstable();
        held.dedup();
        let moved = held.iter().filter(|k| **k >= at).count() as u64;
        Ok(LoadSplit { range, at, recent: hot.len() as u64, rows: held.len() as u64, moved })
    }

    /// The range split.
    pub fn range(&self) -> usize {
        self.range
    }

    /// The cut: the new upper range's first key.
    pub fn at(&self) -> &[u8] {
        &self.at
    }

    /// The recent writes that fell in the range (distinct keys).
    pub fn recent(&self) -> u64 {
        self.recent
    }

    /// The rows the range held.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The rows at or above the cut: what moves to the upper range's node.
    pub fn rows_moved(&self) -> u64 {
        self.moved
    }
}
