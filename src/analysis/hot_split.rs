//! Splitting a hot key into sub-keys (the book's "add a random number to
//! the key"): writes spread over the nodes, reads must ask them all.
//!
//! ```
//! use reshard::analysis::HotKeySplit;
//! use reshard::prelude::*;
//! let keys = KeySet::plain(2_000).hashed(HashWidth::Bits128)?;
//! let hot = Workload::zipf(keys.len(), 1.1, 20_000, 1)?;
//! let split = HotKeySplit::measure(&keys, &hot, &Rendezvous::new(4)?, 1, &[1, 4], 0.5)?;
//! assert_eq!(split.rows().len(), 2);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::requests::{check_workload, RequestLoad};
use crate::analysis::workload::Workload;
use crate::keys::HashedKeys;
use crate::limits;
use crate::schemes::{Key, Locate};
use crate::{Error, Result};

/// One way count of [`HotKeySplit`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SplitRow {
    /// Sub-keys each hot key is split into.
    pub ways: usize,
    /// Distinct nodes holding a sub-key of the hottest key: the nodes one
    /// read of it must ask.
    pub nodes_per_read: usize,
    /// Requests per node after the split.
    pub loads: Vec<u64>,
    /// Requests the split keys now cost the cluster: their writes, plus
    /// each read once per node it must ask.
    pub hot_cost: u64,
}

impl SplitRow {
    /// Requests on the busiest node.
    pub fn busiest(&self) -> u64 {
        self.loads.iter().copied().max().unwrap_or(0)
    }
}

/// The hottest keys, each split into sub-keys `"{key}#0"` … `"{key}#{k-1}"`
/// (the book's "add a random number to the key"): a write picks one
/// sub-key at random (so writes spread evenly), a read must ask every node
/// that holds a sub-key and combine the answers.
#[derive(Debug, Clone, PartialEq)]
pub struct HotKeySplit {
    pub(crate) nodes: Vec<String>,
    pub(crate) key: String,
    pub(crate) split: usize,
    pub(crate) hot: u64,
    pub(crate) reads: u64,
    pub(crate) total: u64,
    pub(crate) before: Vec<u64>,
    pub(crate) rows: Vec<SplitRow>,
}

/// The most sub-keys one key may be split into.
pub const MAX_SPLIT: usize = 100_000;

impl HotKeySplit {
    /// Split the workload's `hot` hottest keys `ways[j]` ways each under
    /// `placement`. A share `read_share` of their requests are reads (each
    /// asks every node that holds a sub-key of its key once), the rest
    /// writes (each goes to one sub-key). One way is the keys unsplit.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::prelude::*;
    /// use reshard::HotKeySplit;
    /// use std::collections::HashSet;
    /// let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128)?;
    /// let hot = Workload::zipf(keys.len(), 1.0, 10_000, 1)?;
    /// let hrw = Rendezvous::new(4)?;
    /// let s = HotKeySplit::measure(&keys, &hot, &hrw, 1, &[1, 8], 0.25)?;
    /// let (unsplit, eight) = (&s.rows()[0], &s.rows()[1]);
    /// assert_eq!(unsplit.loads, s.before()); // one way: nothing changes
    /// // key0's requests, a quarter of them reads
    /// let (c, key) = (hot.counts()[0], s.key());
    /// assert_eq!((key, s.reads()), ("key0", (c as f64 * 0.25).round() as u64));
    /// // a read asks every node that holds one of "key0#0" … "key0#7", found by hand
    /// let holders: HashSet<&str> = (0..8).map(|j| hrw.owner(Key::new(&format!("{key}#{j}"), HashWidth::Bits128))).collect();
    /// assert_eq!(eight.nodes_per_read, holders.len());
    /// // each write costs one request, each read one per node it asks
    /// let writes = c - s.reads();
    /// assert_eq!(eight.hot_cost, writes + s.reads() * holders.len() as u64);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn measure<P: Locate + ?Sized>(
        keys: &HashedKeys,
        workload: &Workload,
        placement: &P,
        hot: usize,
        ways: &[usize],
        read_share: f64,
    ) -> Result<HotKeySplit> {
        check_workload(keys, workload)?;
        if !(0.0..=1.0).contains(&read_share) {
            return Err(Error::OutOfRange {
                what: "read share",
                given: read_share.to_string(),
                allowed: "a number between 0 and 1, e.g. 0.5".into(),
            });
        }
        if hot == 0 || hot > keys.len() {
            return Err(Error::OutOfRange {
                what: "hot keys to split",
                given: hot.to_string(),
                allowed: format!("1 to {} (the key count)", keys.len()),
            });
        }
        if let Some(&bad) = ways.iter().find(|&&k| k == 0 || k > MAX_SPLIT) {
            return Err(Error::OutOfRange {
                what: "sub-keys per hot key",
                given: bad.to_string(),
                allowed: format!("1 to {MAX_SPLIT} (1 is unsplit)"),
            });
        }
        limits::check_hint(
            "sub-key lookups (hot keys × sum of ways)",
            limits::product(hot, ways.iter().sum()),
            limits::current().max_hashes,
            "split fewer keys or into fewer sub-keys",
        )?;
        let base = RequestLoad::measure(keys, workload, placement)?;
        let counts = workload.counts();
        let mut order: Vec<usize> = (0..counts.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(counts[i]), i));
        order.truncate(hot);
        let width = keys.width();
        let mut w = keys.keys().writer();
        let names: Vec<Vec<u8>> = order.iter().map(|&i| w.key(i).to_vec()).collect();
        let mut rest = base.requests.clone();
        for (&i, name) in order.iter().zip(&names) {
            rest[placement.locate(Key::new(name, width)) as usize] -= counts[i];
        }
        let reads_of = |c: u64| (c as f64 * read_share).round() as u64;
        let rows = ways
            .iter()
            .map(|&k| {
                let mut loads = rest.clone();
                let (mut cost, mut first_d) = (0, 0);
                for (n, (&i, name)) in order.iter().zip(&names).enumerate() {
                    let (reads, writes) = (reads_of(counts[i]), counts[i] - reads_of(counts[i]));
                    let mut holds = vec![false; loads.len()];
                    for j in 0..k {
                        let sub = if k == 1 { name.clone() } else { [name, format!("#{j}").as_bytes()].concat() };
                        let o = placement.locate(Key::new(&sub, width)) as usize;
                        loads[o] += writes / k as u64 + u64::from((j as u64) < writes % k as u64);
                        holds[o] = true;
                    }
                    let d = holds.iter().filter(|&&x| x).count();
                    for (l, _) in loads.iter_mut().zip(&holds).filter(|&(_, &x)| x) {
                        *l += reads;
                    }
                    cost += writes + reads * d as u64;
                    if n == 0 {
                        first_d = d;
                    }
                }
                SplitRow { ways: k, nodes_per_read: first_d, loads, hot_cost: cost }
            })
            .collect();
        let hot_total: u64 = order.iter().map(|&i| counts[i]).sum();
        Ok(HotKeySplit {
            nodes: placement.nodes().to_vec(),
            key: keys.keys().get(order[0]).unwrap_or_default(),
            split: hot,
            hot: hot_total,
            reads: order.iter().map(|&i| reads_of(counts[i])).sum(),
            total: workload.requests(),
            before: base.requests,
            rows,
        })
    }

    /// The hottest key's name.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// How many of the hottest keys are split.
    pub fn split_keys(&self) -> usize {
        self.split
    }

    /// The split keys' requests before splitting.
    pub fn hot_requests(&self) -> u64 {
        self.hot
    }

    /// Of those, the reads.
    pub fn reads(&self) -> u64 {
        self.reads
    }

    /// A node's fair share of the requests before splitting.
    pub fn fair(&self) -> f64 {
        self.total as f64 / self.nodes.len() as f64
    }

    /// Requests per node before splitting.
    pub fn before(&self) -> &[u64] {
        &self.before
    }

    /// One row per way count.
    pub fn rows(&self) -> &[SplitRow] {
        &self.rows
    }

    /// Node names.
    pub fn nodes(&self) -> &[String] {
        &self.nodes
    }
}
