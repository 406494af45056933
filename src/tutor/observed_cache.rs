//! A cache read through a live proxy beside the crate's prediction of it
//! ([`CacheCopies`](crate::analysis::CacheCopies)), as [`Checks`] whose
//! reference column is "predicted": reads that were fresh, stale, missed
//! or failed, then every key's outcome.
//!
//! ```
//! use reshard::analysis::{CacheCopies, CacheReads};
//! use reshard::tutor::Checks;
//! use reshard::{HashWidth, KeySet, Placement, Ring};
//! let set = KeySet::users(1_000);
//! let keys = set.hashed(HashWidth::Bits32)?;
//! let (abc, abcd) = (Ring::named(["A", "B", "C"])?, Ring::named(["A", "B", "C", "D"])?);
//! let mut cache = CacheCopies::new(&keys);
//! cache.write(&keys, &abc, 1)?;
//! let predicted = cache.read(&keys, &abcd)?;
//! // what the servers would answer if they did as predicted
//! let seen = CacheReads::from_outcomes(predicted.outcomes().to_vec());
//! assert!(Checks::cache_reads("D joins", &set, &predicted, &seen)?.all_match());
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::{CacheReads, ReadOutcome};
use crate::keys::KeySet;
use crate::tutor::check::{Check, Checks};
use crate::{Error, Result};

impl Checks {
    /// Reads observed (`observed`, e.g. a live proxy's `live::Versions`
    /// against the database, feature `proxies`) beside the
    /// crate's `predicted` ones, over the same `keys` in the same order:
    /// fresh, stale and missed reads (failed reads too, when either side
    /// has some), then every key with its predicted outcome, the first that
    /// differs named.
    pub fn cache_reads(
        title: impl Into<String>,
        keys: &KeySet,
        predicted: &CacheReads,
        observed: &CacheReads,
    ) -> Result<Checks> {
        for (what, n) in
            [("predicted reads, one per key", predicted.len()), ("observed reads, one per key", observed.len())]
        {
            if n != keys.len() {
                return Err(Error::LengthMismatch { what, expected: keys.len(), given: n });
            }
        }
        let mut c = Checks::predicted(title);
        c.push(Check::count("reads of the latest version", predicted.fresh(), observed.fresh()));
        c.push(Check::count("reads of an older version", predicted.stale(), observed.stale()));
        c.push(Check::count("reads that miss", predicted.missed(), observed.missed()));
        if predicted.failed() + observed.failed() > 0 {
            c.push(Check::count("reads that fail", predicted.failed(), observed.failed()));
        }
        let pairs = predicted.outcomes().iter().zip(observed.outcomes());
        c.push(Check::placements(
            "keys read as predicted",
            pairs.enumerate().map(|(i, (p, o)): (usize, (&ReadOutcome, &ReadOutcome))| (keys.key(i), *p, *o)),
        ));
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tutor::Verdict;

    #[test]
    fn the_first_key_read_otherwise_is_named() {
        use ReadOutcome::*;
        let keys = KeySet::new("k", 3);
        let p = CacheReads::from_outcomes(vec![Fresh, Stale, Miss]);
        let o = CacheReads::from_outcomes(vec![Fresh, Miss, Miss]);
        let c = Checks::cache_reads("t", &keys, &p, &o).unwrap();
        assert!(!c.all_match());
        let last = c.checks().last().unwrap();
        assert_eq!(last.verdict(), Verdict::Differs);
        assert!(last.measured.contains("first k1: predicted stale, observed miss"), "{}", last.measured);
        // no failed read either side: no row for them
        assert!(c.checks().iter().all(|k| k.label != "reads that fail"));
        let short = CacheReads::from_outcomes(vec![Fresh]);
        assert!(matches!(Checks::cache_reads("t", &keys, &p, &short), Err(Error::LengthMismatch { .. })));
    }
}
