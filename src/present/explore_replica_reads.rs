//! Lab 07's explorable: the busiest node's share of the key copies and of
//! the requests, for each placement of the line-up, when a key's requests
//! are served by its `rf` copies in equal parts, as the workload's Zipf
//! exponent `s` and the replica count `rf` change.
//!
//! ```
//! use reshard::notebook::*;
//! let keys = KeySet::plain(5_000).hashed(HashWidth::Bits128)?;
//! let grid: Vec<Workload> =
//!     [0.0, 0.5, 1.0].iter().map(|&s| Workload::zipf(keys.len(), s, 50_000, 7)).collect::<Result<_, _>>()?;
//! let lineup = Replicated::lineup(10, 150)?;
//! let ex = Replicated::explorable_reads(&lineup, &keys, &grid, &[1, 2, 3], 3, 1.0)?;
//! assert_eq!(ex.defaults(), [("s", 1.0), ("rf", 3.0)]);
//! // one copy per key: the busiest node as RequestLoad measures it
//! let load = RequestLoad::measure(&keys, &grid[2], &lineup[1])?;
//! let busiest = *load.requests().iter().max().unwrap() as f64 / 50_000.0;
//! assert!((ex.value(&[1.0, 1.0], "requests", "rendezvous").unwrap() - busiest).abs() < 1e-12);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::workload::Workload;
use crate::keys::HashedKeys;
use crate::present::explorable::{repeated, Explorable, Format};
use crate::schemes::replicas::{check_rf, replica_sets, Replicas, Replicated};
use crate::schemes::{NodeId, Placement};
use crate::{Error, Result};

/// The first `r` nodes of each key's set, the sets `most` nodes each.
fn set_prefixes(sets: &[NodeId], most: usize, r: usize) -> impl Iterator<Item = &[NodeId]> {
    sets.chunks(most).map(move |set| &set[..r.min(set.len())])
}

impl Replicated {
    /// Bars, one group per scheme of `lineup`: its busiest node's share of
    /// all key copies and of all requests, each key's requests split in
    /// equal parts over its `rf` copies (reads that any copy may serve).
    /// Two sliders: `s`, over the exponents of `workloads` (one per key of
    /// `keys`; a repeated exponent is shown once, its first workload),
    /// starting at `s`; and `rf`, over `rfs`, starting at `rf`.
    ///
    /// Fails when a workload's counts are not one per key, when `s` or
    /// `rf` is not among the slider's values, on an `rf` of 0 or above a
    /// scheme's nodes, on an empty line-up, or on two schemes of one label
    /// (each is a group of bars, e.g. two rings of 150 points).
    pub fn explorable_reads(
        lineup: &[Replicated],
        keys: &HashedKeys,
        workloads: &[Workload],
        rfs: &[usize],
        rf: usize,
        s: f64,
    ) -> Result<Explorable> {
        if lineup.is_empty() {
            return Err(Error::OutOfRange {
                what: "line-up",
                given: "no schemes".into(),
                allowed: "at least one scheme (Replicated::lineup gives five)".into(),
            });
        }
        let mut shown: Vec<&Workload> = Vec::new();
        for w in workloads {
            if w.keys() != keys.len() {
                return Err(Error::LengthMismatch {
                    what: "workload keys (one count per key)",
                    expected: keys.len(),
                    given: w.keys(),
                });
            }
            if !shown.iter().any(|v| v.s() == w.s()) {
                shown.push(w);
            }
        }
        shown.sort_by(|a, b| a.s().total_cmp(&b.s()));
        let title =
            "The busiest node's share of the key copies and of the requests, a key's requests split over its copies";
        let mut ex = Explorable::bars(title, "placement", "busiest node's share")
            .slider("s", shown.iter().map(|w| w.s()), s)?
            .slider("rf", rfs.iter().copied(), rf)?
            .format(Format::Percent(1))
            .size(760, 320);
        let labels: Vec<String> = lineup.iter().map(Replicated::label).collect();
        if let Some(label) = repeated(labels.iter().map(String::as_str)) {
            return Err(Error::OutOfRange {
                what: "line-up",
                given: format!("with two schemes labelled {label:?}"),
                allowed: "each scheme once: each is a group of bars, named by its label".into(),
            });
        }
        let most = rfs.iter().copied().max().unwrap_or(1);
        for (p, label) in lineup.iter().zip(&labels) {
            // A scheme's first r copies of a key are its r copies (the owner, then the next
            // ones in the scheme's order), so the sets are computed once, for the most copies.
            let sets = replica_sets(p, keys, most)?;
            for &r in rfs {
                check_rf(r, p.holders())?;
                let mut copies = vec![0u64; p.nodes().len()];
                set_prefixes(&sets, most, r).for_each(|set| set.iter().for_each(|&n| copies[n as usize] += 1));
                let copies_max = copies.iter().max().map_or(0.0, |&m| m as f64 / (keys.len() * r).max(1) as f64);
                for w in &shown {
                    // every copy serves count/rf: a node's requests × rf, in whole numbers
                    let mut on = vec![0u64; p.nodes().len()];
                    for (set, &c) in set_prefixes(&sets, most, r).zip(w.counts()) {
                        set.iter().for_each(|&n| on[n as usize] += c);
                    }
                    let total = w.counts().iter().sum::<u64>().max(1) as f64;
                    let busiest = on.iter().max().map_or(0.0, |&m| m as f64 / (total * r as f64));
                    ex.series_point("key copies", &[w.s(), r as f64], label.as_str(), copies_max)?;
                    ex.series_point("requests", &[w.s(), r as f64], label.as_str(), busiest)?;
                }
            }
        }
        ex.checked()
    }
}
