//! A real system's state beside the crate's prediction of it, as
//! [`Checks`] with "predicted" as the reference column: slot tables, the
//! slots and keys that moved, the steps of a rebalance, sampled keys.
//!
//! Everything here takes the crate's own types ([`Slots`], [`SlotPlan`],
//! [`Movement`]) or plain data, so the `live` floor only
//! reports what the servers said and knows nothing of this one. A
//! mismatch shows as ≠ with the first differing item, never as an error.
//!
//! ```
//! use reshard::tutor::Checks;
//! use reshard::{HashWidth, KeySet, Movement, Placement, Slots};
//! let keys = KeySet::users(3_000).hashed(HashWidth::Bits32)?;
//! let three = Slots::named(["A", "B", "C"])?;
//! let plan = three.rebalance_joining(&["D"], true)?; // D joins empty, then the plan
//! // what a cluster would report if it did exactly what was planned
//! let checks = Checks::slot_moves("A, B, C → A, B, C, D", &plan, plan.before(), plan.after());
//! assert!(checks.all_match());
//! let predicted = Movement::measure(&keys, plan.before(), plan.after())?;
//! assert!(Checks::movements("keys", &predicted, &predicted).all_match());
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::Movement;
use crate::keys::HashedKeys;
use crate::schemes::slots::{Slots, SLOT_COUNT};
use crate::schemes::slots_rebalance::SlotPlan;
use crate::schemes::Placement;
use crate::tutor::check::{Check, Checks};
use crate::Result;
use std::collections::BTreeMap;

/// Counts per (from, to) pair beside each other: one row per pair either
/// side has, then the total.
fn pair_counts(
    checks: &mut Checks,
    unit: &str,
    predicted: &BTreeMap<(String, String), u64>,
    observed: &BTreeMap<(String, String), u64>,
) {
    let mut pairs: Vec<&(String, String)> = predicted.keys().chain(observed.keys()).collect();
    pairs.sort();
    pairs.dedup();
    for p in pairs {
        checks.push(Check::count(
            format!("{unit} {} → {}", p.0, p.1),
            predicted.get(p).copied().unwrap_or(0),
            observed.get(p).copied().unwrap_or(0),
        ));
    }
}

impl Checks {
    /// An empty list whose reference column is "predicted".
    pub(crate) fn predicted(title: impl Into<String>) -> Checks {
        Checks::new(title)
            .reference_label("predicted")
            .on_mismatch("≠: the system did not do what the crate predicted; the row names the first difference")
    }

    /// The slot table read from a cluster (`observed`, with the keys each
    /// node reports, `DBSIZE`, in `observed.nodes()` order) beside the
    /// predicted one: slots and keys per node, and the owner of every
    /// slot. Fails only when the two tables name different nodes.
    pub fn slot_tables(
        title: impl Into<String>,
        predicted: &Slots,
        observed: &Slots,
        observed_keys_per_node: &[u64],
        keys: &HashedKeys,
    ) -> Result<Checks> {
        let names = observed.nodes().to_vec();
        let predicted = predicted.ordered_as(names.clone())?;
        let mut load = vec![0u64; names.len()];
        for n in predicted.assign(keys) {
            load[n as usize] += 1;
        }
        let (ps, os) = (predicted.slot_counts(), observed.slot_counts());
        let mut c = Checks::predicted(title);
        for (i, n) in names.iter().enumerate() {
            c.push(Check::count(format!("{n}: slots"), ps[i] as u64, os[i] as u64));
        }
        for (i, n) in names.iter().enumerate() {
            let seen = observed_keys_per_node.get(i).copied().unwrap_or(0);
            c.push(Check::count(format!("{n}: keys (DBSIZE)"), load[i], seen));
        }
        let owner = |s: &Slots, x: usize| s.nodes()[s.table()[x] as usize].clone();
        c.push(Check::placements(
            "slots on the predicted node",
            (0..SLOT_COUNT).map(|x| (format!("slot {x}"), owner(&predicted, x), owner(observed, x))),
        ));
        Ok(c)
    }

    /// The slots that changed node between two observed tables, per
    /// (from, to) pair, beside a plan's.
    pub fn slot_moves(title: impl Into<String>, plan: &SlotPlan, before: &Slots, after: &Slots) -> Checks {
        let mut predicted: BTreeMap<(String, String), u64> = BTreeMap::new();
        for m in plan.moves() {
            *predicted.entry((m.from.clone(), m.to.clone())).or_default() += m.slots.len() as u64;
        }
        let mut observed: BTreeMap<(String, String), u64> = BTreeMap::new();
        for s in 0..SLOT_COUNT.min(before.table().len()).min(after.table().len()) {
            let a = &before.nodes()[before.table()[s] as usize];
            let b = &after.nodes()[after.table()[s] as usize];
            if a != b {
                *observed.entry((a.clone(), b.clone())).or_default() += 1;
            }
        }
        let mut c = Checks::predicted(title);
        pair_counts(&mut c, "slots", &predicted, &observed);
        c.push(Check::count("slots moved", predicted.values().sum(), observed.values().sum()));
        c
    }

    /// Two movements, figure by figure: keys compared, keys per (from, to)
    /// pair of nodes, keys moved and keys that stayed.
    pub fn movements(title: impl Into<String>, predicted: &Movement, observed: &Movement) -> Checks {
        let cells = |m: &Movement| -> BTreeMap<(String, String), u64> {
            let mut c = BTreeMap::new();
            for (i, row) in m.matrix().iter().enumerate() {
                for (j, &k) in row.iter().enumerate() {
                    if i != j && k > 0 {
                        c.insert((m.nodes()[i].clone(), m.nodes()[j].clone()), k);
                    }
                }
            }
            c
        };
        let mut c = Checks::predicted(title);
        c.push(Check::count("keys compared", predicted.keys(), observed.keys()));
        pair_counts(&mut c, "keys", &cells(predicted), &cells(observed));
        c.push(Check::count("keys moved", predicted.moved(), observed.moved()));
        c.push(Check::count(
            "keys that stayed",
            predicted.keys().saturating_sub(predicted.moved()),
            observed.keys().saturating_sub(observed.moved()),
        ));
        c
    }

    /// A plan's steps beside the moves a tool printed, step by step:
    /// `said` holds (from, to, slots) per step, e.g. `redis-cli`'s
    /// "Moving N slots from A to B" lines (`CliRun::moves` of the live
    /// floor, with the `redis` feature).
    pub fn plan_steps(title: impl Into<String>, plan: &SlotPlan, said: &[(String, String, usize)]) -> Checks {
        let mut c = Checks::predicted(title);
        for k in 0..said.len().max(plan.moves().len()) {
            let p = plan
                .moves()
                .get(k)
                .map_or("–".to_string(), |m| format!("{} from {} to {}", m.slots.len(), m.from, m.to));
            let o = said.get(k).map_or("–".to_string(), |(f, t, n)| format!("{n} from {f} to {t}"));
            c.push(Check::new(format!("step {}", k + 1), p, o));
        }
        c
    }

    /// Sampled keys as a cluster answered them ([`RedisCluster::sample`](crate::live::RedisCluster::sample))
    /// beside the crate: the slot Redis computed is [`key_slot`](crate::key_slot)'s,
    /// and the node the crate named answered with the value written.
    #[cfg(feature = "redis")]
    pub fn sampled(title: impl Into<String>, sample: &[crate::live::Sampled]) -> Checks {
        let slot = |s: &crate::live::Sampled| s.slot.map_or("no slot".to_string(), |x| x.to_string());
        let mut c = Checks::predicted(title);
        c.push(Check::placements(
            "CLUSTER KEYSLOT = the crate's key_slot",
            sample.iter().map(|s| (&s.key, crate::key_slot(s.key.as_bytes()).to_string(), slot(s))),
        ));
        c.push(Check::placements(
            "GET answered by the node the crate names",
            sample.iter().map(|s| (&s.key, &s.asked, &s.answered_by)),
        ));
        c
    }

    /// A live proxy's [`Observed`](crate::live::Observed) placement beside a
    /// prediction, key for key: `predicted[i]` names the backend predicted
    /// for key `i` of the observation. Rows: keys per backend (predicted,
    /// observed), then every key on exactly its predicted backend, with the
    /// first key that differs named.
    ///
    /// A key observed nowhere or on several backends counts as differing.
    #[cfg(feature = "proxies")]
    pub fn backends<S: AsRef<str>>(
        title: impl Into<String>,
        observed: &crate::live::Observed,
        predicted: &[S],
    ) -> Result<Checks> {
        if predicted.len() != observed.len() {
            return Err(crate::Error::LengthMismatch {
                what: "predicted backends",
                expected: observed.len(),
                given: predicted.len(),
            });
        }
        let mut names: Vec<&str> = observed.names().iter().map(String::as_str).collect();
        for p in predicted {
            if !names.contains(&p.as_ref()) {
                names.push(p.as_ref());
            }
        }
        let seen = observed.counts();
        let mut c = Checks::predicted(title);
        for n in &names {
            let want = predicted.iter().filter(|p| p.as_ref() == *n).count() as u64;
            let got = seen.iter().find(|(m, _)| m == n).map_or(0, |g| g.1);
            c.push(Check::count(format!("keys on {n}"), want, got));
        }
        let shown = |i: usize| {
            let h = observed.holders(i);
            if h.is_empty() {
                "nowhere".to_string()
            } else {
                h.join(" and ")
            }
        };
        c.push(Check::placements(
            "keys on the predicted backend",
            observed.keys().iter().zip(predicted).enumerate().map(|(i, (k, p))| (k, p.as_ref().to_string(), shown(i))),
        ));
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tutor::Verdict;

    #[cfg(feature = "proxies")]
    #[test]
    fn backends_name_the_first_key_that_differs() {
        use crate::live::Observed;
        let keys = ["k0", "k1", "k2"];
        let o = Observed::from_holders("stored", &["A", "B", "C"], &keys, vec![vec![0], vec![1], vec![2]]).unwrap();
        assert!(Checks::backends("t", &o, &["A", "B", "C"]).unwrap().all_match());
        let a = Checks::backends("t", &o, &["A", "C", "C"]).unwrap();
        assert!(!a.all_match());
        let last = a.checks().last().unwrap();
        assert!(last.measured.contains("first k1: predicted C, observed B"), "{}", last.measured);
        let d = Checks::backends("t", &o, &["A", "B", "D"]).unwrap();
        let on_d = d.checks().iter().find(|k| k.label == "keys on D").unwrap();
        assert_eq!((on_d.document.as_str(), on_d.measured.as_str()), ("1", "0"));
        assert!(matches!(Checks::backends("t", &o, &["A"]), Err(crate::Error::LengthMismatch { .. })));
    }

    #[test]
    fn a_wrong_prediction_is_a_row_not_an_error() {
        let three = Slots::named(["A", "B", "C"]).unwrap();
        let plan = three.rebalance_joining(&["D"], true).unwrap();
        // the cluster "did" nothing: every planned move is a ≠ row
        let c = Checks::slot_moves("t", &plan, plan.before(), plan.before());
        assert!(!c.all_match());
        assert!(c.checks().iter().any(|k| k.verdict() == Verdict::Differs));
        let moved: usize = plan.moves().iter().map(|m| m.slots.len()).sum();
        let last = c.checks().last().unwrap();
        assert_eq!(
            (last.document.as_str(), last.measured.as_str()),
            (crate::present::thousands(moved as u64).as_str(), "0")
        );
    }

    #[test]
    fn slot_tables_name_the_first_slot_that_differs() {
        let keys = crate::KeySet::users(500).hashed(crate::HashWidth::Bits32).unwrap();
        let three = Slots::named(["A", "B", "C"]).unwrap();
        let other = Slots::named(["B", "A", "C"]).unwrap().ordered_as(["A", "B", "C"]).unwrap();
        let load = vec![0; 3];
        let c = Checks::slot_tables("t", &three, &other, &load, &keys).unwrap();
        let row = c.checks().last().unwrap();
        // slot 0 is A's in `three` and B's in `other` (each holds a third, in order)
        assert!(row.measured.contains("first slot 0: predicted A, observed B"), "{}", row.measured);
    }
}
