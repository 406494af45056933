//! What a slot plan costs in `MIGRATE` commands, counted before it runs.
//!
//! `redis-cli --cluster rebalance` and `reshard` move a slot's keys one slot
//! at a time (`clusterManagerMigrateKeysInSlot` in `src/redis-cli.c`, Redis
//! 7.0): the source is asked `CLUSTER GETKEYSINSLOT <slot> <pipeline>`, and
//! while that returns keys they go over in one `MIGRATE … KEYS …` and the
//! source is asked again. A slot holding `k` keys therefore costs
//! ⌈k / pipeline⌉ `MIGRATE` commands on its source, an empty slot none, and a
//! `MIGRATE` never carries keys of two slots. The count is the same whatever
//! order the plan's steps run in.
//!
//! ```
//! use reshard::analysis::Migrations;
//! use reshard::{HashWidth, KeySet, Placement, Slots};
//! // 250 keys with the hash tag {x} share one slot; 3 more keys elsewhere.
//! let keys = KeySet::from_keys((0..250).map(|i| format!("{{x}}{i}")).chain(["a", "b", "c"].map(String::from)))?;
//! let hashed = keys.hashed(HashWidth::Bits32)?;
//! let three = Slots::named(["A", "B", "C"])?;
//! let x = reshard::key_slot(b"x") as usize;
//! let owner = three.nodes()[three.table()[x] as usize].clone();
//! let rest: Vec<&String> = three.nodes().iter().filter(|n| **n != owner).collect();
//! let cost = Migrations::of(&three.drain(&owner, &rest)?, &hashed, 100)?;
//! assert_eq!(cost.slots(), 5_461); // the owner's slots, one of them with the 250 tagged keys
//! assert!(cost.calls() >= 3); // ⌈250 / 100⌉ for that slot, one per other slot with a key
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::HashedKeys;
use crate::schemes::slots::{key_slot, SLOT_COUNT};
use crate::schemes::slots_rebalance::SlotPlan;
use crate::{Error, Result};

/// The `MIGRATE` commands a [`SlotPlan`] costs with a given
/// `--cluster-pipeline` (at most that many keys per `MIGRATE`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Migrations {
    pipeline: usize,
    slots: u64,
    empty_slots: u64,
    keys: u64,
    /// (source node, `MIGRATE` commands it runs), in the order the plan
    /// first names each source.
    by_source: Vec<(String, u64)>,
}

impl Migrations {
    /// Count, for every slot `plan` moves, the keys of `keys` in it, and
    /// the `MIGRATE` commands (⌈keys / `pipeline`⌉) its source will run.
    ///
    /// Fails with [`Error::OutOfRange`] for a `pipeline` of 0 (redis-cli's
    /// `--cluster-pipeline` takes 1 or more; its default is 10).
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::analysis::Migrations;
    /// use reshard::{HashWidth, KeySet, Slots};
    /// // 25 keys tagged {somekey}: all in slot 11058 (CLUSTER KEYSLOT's example), which
    /// // redis-cli --cluster create gives the third of three masters (10923–16383)
    /// let keys = KeySet::from_keys((0..25).map(|i| format!("{{somekey}}:{i}")))?.hashed(HashWidth::Bits32)?;
    /// let plan = Slots::named(["A", "B", "C"])?.drain("C", &["A", "B"])?;
    /// for (pipeline, calls) in [(10, 3), (25, 1), (1, 25)] {
    ///     let cost = Migrations::of(&plan, &keys, pipeline)?; // ⌈25 / pipeline⌉
    ///     assert_eq!((cost.calls(), cost.calls_from("C"), cost.keys()), (calls, calls, 25));
    /// }
    /// let cost = Migrations::of(&plan, &keys, 10)?;
    /// assert_eq!((cost.slots(), cost.empty_slots()), (5_461, 5_460)); // 16383 − 10923 + 1 slots
    /// assert!(Migrations::of(&plan, &keys, 0).is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn of(plan: &SlotPlan, keys: &HashedKeys, pipeline: usize) -> Result<Migrations> {
        if pipeline == 0 {
            return Err(Error::OutOfRange {
                what: "keys per MIGRATE (--cluster-pipeline)",
                given: "0".into(),
                allowed: "1 or more (redis-cli's default is 10)".into(),
            });
        }
        let bytes = keys.keys().key_bytes()?;
        let mut per_slot = vec![0u64; SLOT_COUNT];
        for i in 0..keys.len() {
            per_slot[usize::from(key_slot(bytes.get(i)))] += 1;
        }
        let mut cost = Migrations { pipeline, slots: 0, empty_slots: 0, keys: 0, by_source: Vec::new() };
        for m in plan.moves() {
            let mut calls = 0;
            for &s in &m.slots {
                let k = per_slot[usize::from(s)];
                cost.slots += 1;
                cost.keys += k;
                cost.empty_slots += u64::from(k == 0);
                calls += k.div_ceil(pipeline as u64);
            }
            match cost.by_source.iter_mut().find(|(n, _)| *n == m.from) {
                Some((_, c)) => *c += calls,
                None => cost.by_source.push((m.from.clone(), calls)),
            }
        }
        Ok(cost)
    }

    /// Keys per `MIGRATE` at most (`--cluster-pipeline`).
    pub fn pipeline(&self) -> usize {
        self.pipeline
    }

    /// Slots the plan moves.
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// Of those, slots holding none of the keys: they move with no `MIGRATE`.
    pub fn empty_slots(&self) -> u64 {
        self.empty_slots
    }

    /// Keys in the slots the plan moves.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// `MIGRATE` commands in all.
    pub fn calls(&self) -> u64 {
        self.by_source.iter().map(|(_, c)| c).sum()
    }

    /// `MIGRATE` commands node `name` runs as a source (0 if it gives no slot).
    pub fn calls_from(&self, name: &str) -> u64 {
        self.by_source.iter().find(|(n, _)| n == name).map_or(0, |(_, c)| *c)
    }

    /// (source node, `MIGRATE` commands it runs), in the order the plan
    /// first names each source.
    pub fn by_source(&self) -> &[(String, u64)] {
        &self.by_source
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HashWidth, KeySet, Placement, Slots};

    #[test]
    fn a_full_slot_takes_several_an_empty_one_none() {
        // 250 keys of one slot: ⌈250/100⌉ = 3 MIGRATEs at pipeline 100, 25 at 10, 250 at 1.
        // CRC16-XMODEM("x") = 0xFF9F = 65,439 (Python, by hand): slot 65,439 mod 16,384 = 16,287, on C.
        let keys = KeySet::from_keys((0..250).map(|i| format!("{{x}}:{i}"))).unwrap();
        let hashed = keys.hashed(HashWidth::Bits32).unwrap();
        let three = Slots::named(["A", "B", "C"]).unwrap();
        assert_eq!(three.nodes()[three.table()[16_287] as usize], "C");
        let plan = three.drain("C", &["A", "B"]).unwrap();
        for (pipeline, calls) in [(100, 3), (10, 25), (1, 250), (250, 1), (1_000, 1)] {
            let c = Migrations::of(&plan, &hashed, pipeline).unwrap();
            assert_eq!((c.calls(), c.calls_from("C"), c.calls_from("A")), (calls, calls, 0));
            // C's 5,461 slots (10,923–16,383 after create), one of them holding the 250 keys
            assert_eq!((c.slots(), c.empty_slots(), c.keys()), (5_461, 5_460, 250));
        }
        assert!(matches!(Migrations::of(&plan, &hashed, 0), Err(Error::OutOfRange { .. })));
    }
}
