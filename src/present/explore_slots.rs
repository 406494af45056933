//! Lab 06's explorable: a Redis Cluster of n masters as `redis-cli
//! --cluster create` lays it out, each master's share of the 16,384 slots
//! and of the keys, and the slots each gives a master that joins.
//!
//! ```
//! use reshard::notebook::*;
//! let keys = KeySet::new("user:", 5_000).hashed(HashWidth::Bits32)?;
//! let ex = Slots::explorable_masters(&keys, &letters("ABCDEF"), 3)?;
//! assert_eq!(ex.defaults(), [("masters", 3.0)]);
//! // three masters: A holds slots 0–5460; D joins and takes slots 0–1364 from A
//! assert_eq!(ex.value(&[3], "slots held", "A"), Some(5_461.0 / 16_384.0));
//! assert_eq!(ex.value(&[3], "slots given to the next master", "A"), Some(1_365.0 / 16_384.0));
//! assert_eq!(ex.value(&[5], "keys held", "E").is_some(), true); // up to 5 masters: F joins
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::load::LoadReport;
use crate::keys::HashedKeys;
use crate::limits;
use crate::present::explorable::{Explorable, Format};
use crate::present::thousands;
use crate::schemes::slots::SLOT_COUNT;
use crate::schemes::{Placement, Slots};
use crate::{Error, Result};

/// The fewest masters `redis-cli --cluster create` accepts.
const MIN_MASTERS: usize = 3;
/// The most names [`Slots::explorable_masters`] takes: more masters' bars
/// would not fit one chart.
const MAX_NAMES: usize = 12;

impl Slots {
    /// Bars, one group per master of the cluster `redis-cli --cluster
    /// create` makes of the first n of `names`: its share of the 16,384
    /// slots, its share of `keys` (a key's slot reads its bytes), and the
    /// share of all slots it gives `names[n]` when that one joins and
    /// `rebalance --cluster-use-empty-masters` runs
    /// ([`rebalance_joining`](Slots::rebalance_joining)). A slider
    /// `masters` runs from 3 to `names.len() − 1` and starts at `masters`.
    ///
    /// Fails on fewer than 4 or more than 12 names, a name given twice, or
    /// a `masters` outside 3 … `names.len() − 1`.
    pub fn explorable_masters(keys: &HashedKeys, names: &[String], masters: usize) -> Result<Explorable> {
        limits::check_hint("master names in one chart", names.len() as u128, MAX_NAMES as u128, "name fewer masters")?;
        if names.len() <= MIN_MASTERS {
            return Err(Error::OutOfRange {
                what: "master names",
                given: names.join(", "),
                allowed: format!("at least {} names: 3 masters (redis-cli's fewest) and one to join", MIN_MASTERS + 1),
            });
        }
        let title = "Slots and keys each master holds, and the slots it gives a master that joins";
        let y_label = format!(
            "share of the {} slots or of the {} keys",
            thousands(SLOT_COUNT as u64),
            thousands(keys.len() as u64)
        );
        let mut ex = Explorable::bars(title, "master", &y_label)
            .slider("masters", MIN_MASTERS..names.len(), masters)?
            .format(Format::Percent(1))
            .size(760, 320);
        let all = SLOT_COUNT as f64;
        for n in MIN_MASTERS..names.len() {
            let layout = Slots::named(&names[..n])?;
            let plan = layout.rebalance_joining(&[&names[n]], true)?;
            let held: Vec<f64> = layout.slot_counts().iter().map(|&c| c as f64 / all).collect();
            let load = LoadReport::measure(keys, &layout)?;
            let on: Vec<f64> = load.counts().iter().map(|&c| c as f64 / keys.len().max(1) as f64).collect();
            let given: Vec<f64> = layout
                .nodes()
                .iter()
                .map(|m| {
                    let moved = plan.moves().iter().filter(|mv| mv.from == *m && mv.to == names[n]);
                    moved.map(|mv| mv.slots.len()).sum::<usize>() as f64 / all
                })
                .collect();
            ex.series_row("slots held", &[n], layout.nodes(), &held)?;
            ex.series_row("keys held", &[n], layout.nodes(), &on)?;
            ex.series_row("slots given to the next master", &[n], layout.nodes(), &given)?;
        }
        ex.checked()
    }
}
