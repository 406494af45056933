//! Where a live proxy put each key, as read back from the real servers.
//!
//! The drivers ([`Nutcracker`](super::Nutcracker), [`Nginx`](super::Nginx))
//! predict nothing: each observation names, for every key asked about, the
//! backends that hold it (read from each backend directly), received it
//! (seen by each backend) or answered for it. The tutor's
//! `Checks::backends` then lines those names up with a prediction made
//! elsewhere, key for key. It shows
//! itself as a table (keys per backend) in a notebook.
//!
//! ```
//! use reshard::live::Observed;
//! let names = ["A", "B"];
//! let seen = Observed::from_holders("stored", &names, &["k1", "k2", "k3"], vec![vec![0], vec![1], vec![0]])?;
//! assert_eq!(seen.counts(), [("A".to_string(), 2), ("B".to_string(), 1)]);
//! assert_eq!(seen.owner(1), Some("B"));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::{LoadReport, Movement};
use crate::keys::{escape, KeySet};
use crate::schemes::NodeId;
use crate::{Error, Result};

use crate::live::ports::check_live_keys;
pub use crate::live::ports::MAX_LIVE_KEYS;

/// Keys to send through a proxy: a [`KeySet`] (its keys' bytes, as they
/// are) or any list of strings or byte strings. Every key keeps its bytes
/// end to end: sent as they are, read back and matched as they are.
pub trait Keys {
    /// How many keys, known before any is spelled.
    fn key_count(&self) -> usize;
    /// The keys as a listed key set (their bytes in one buffer).
    fn key_set(&self) -> Result<KeySet>;
}

impl Keys for KeySet {
    fn key_count(&self) -> usize {
        self.len()
    }
    fn key_set(&self) -> Result<KeySet> {
        if self.is_listed() {
            return Ok(self.clone());
        }
        // checked against the limits before any key is spelled
        let bytes = self.key_bytes()?;
        KeySet::from_keys((0..bytes.len()).map(|i| bytes.get(i)))
    }
}

impl<S: AsRef<[u8]>> Keys for [S] {
    fn key_count(&self) -> usize {
        self.len()
    }
    fn key_set(&self) -> Result<KeySet> {
        KeySet::from_keys(self.iter())
    }
}

impl<S: AsRef<[u8]>> Keys for Vec<S> {
    fn key_count(&self) -> usize {
        self.len()
    }
    fn key_set(&self) -> Result<KeySet> {
        self.as_slice().key_set()
    }
}

impl<S: AsRef<[u8]>, const N: usize> Keys for [S; N] {
    fn key_count(&self) -> usize {
        N
    }
    fn key_set(&self) -> Result<KeySet> {
        self.as_slice().key_set()
    }
}

/// The keys of `keys` as a listed key set, checked before any is spelled
/// (at least one, at most [`MAX_LIVE_KEYS`]) and then one by one: none
/// empty and none repeated.
pub(crate) fn key_list<K: Keys + ?Sized>(keys: &K) -> Result<KeySet> {
    check_live_keys(keys.key_count())?;
    let set = keys.key_set()?;
    let bytes = set.key_bytes()?;
    let mut seen = std::collections::HashMap::with_capacity(set.len());
    for i in 0..set.len() {
        let k = bytes.get(i);
        if k.is_empty() {
            return Err(Error::EmptyKey { index: i });
        }
        if let Some(first) = seen.insert(k, i) {
            return Err(Error::DuplicateKey { key: escape(k), first, second: i });
        }
    }
    drop(bytes);
    Ok(set)
}

/// For each key, the backends that hold it (or received it, or answered
/// for it), read from the real servers.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    what: String,
    names: Vec<String>,
    keys: KeySet,
    holders: Vec<Vec<NodeId>>,
    errors: u64,
    first_error: Option<String>,
    seconds: f64,
}

impl Observed {
    /// An observation: `holders[i]` lists (as indices into `names`) the
    /// backends found for `keys[i]`. `what` says how it was observed
    /// ("stored", "routed", "answered").
    pub fn from_holders<N: AsRef<str>, K: Keys + ?Sized>(
        what: impl Into<String>,
        names: &[N],
        keys: &K,
        holders: Vec<Vec<NodeId>>,
    ) -> Result<Observed> {
        let keys = keys.key_set()?;
        if holders.len() != keys.len() {
            return Err(Error::LengthMismatch {
                what: "holder lists for keys",
                expected: keys.len(),
                given: holders.len(),
            });
        }
        if let Some(&bad) = holders.iter().flatten().find(|&&n| n as usize >= names.len()) {
            return Err(Error::NodeOutOfRange { index: u64::from(bad), nodes: names.len() });
        }
        Ok(Observed {
            what: what.into(),
            names: names.iter().map(|n| n.as_ref().to_string()).collect(),
            keys,
            holders,
            errors: 0,
            first_error: None,
            seconds: 0.0,
        })
    }

    /// The same, with the error replies met and the seconds it took.
    pub(crate) fn with_errors(mut self, errors: u64, first_error: Option<String>, seconds: f64) -> Observed {
        (self.errors, self.first_error, self.seconds) = (errors, first_error, seconds);
        self
    }

    /// How the keys were observed: `"stored"` (read from each backend),
    /// `"routed"` (seen arriving at each backend) or `"answered"` (the
    /// backend that answered the request).
    pub fn what(&self) -> &str {
        &self.what
    }

    /// The backends, in the driver's order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The keys, in the order they were given, with their bytes as they
    /// are (shown with [`crate::keys::escape`]'s escapes by
    /// [`KeySet::key`]).
    pub fn keys(&self) -> &KeySet {
        &self.keys
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when there are no keys.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The backends found for key number `i` (none past the end).
    pub fn holders(&self, i: usize) -> Vec<&str> {
        self.holders.get(i).map_or(Vec::new(), |h| h.iter().map(|&n| self.names[n as usize].as_str()).collect())
    }

    /// The one backend found for key number `i`, or `None` when there is
    /// none or more than one.
    pub fn owner(&self, i: usize) -> Option<&str> {
        match self.holders.get(i).map(Vec::as_slice) {
            Some(&[n]) => Some(self.names[n as usize].as_str()),
            _ => None,
        }
    }

    /// Every key's [`owner`](Observed::owner), in key order.
    pub fn owners(&self) -> Vec<Option<&str>> {
        (0..self.len()).map(|i| self.owner(i)).collect()
    }

    /// Keys found on each backend (a key on two backends counts on both).
    pub fn counts(&self) -> Vec<(String, u64)> {
        let mut c = vec![0u64; self.names.len()];
        for &n in self.holders.iter().flatten() {
            c[n as usize] += 1;
        }
        self.names.iter().cloned().zip(c).collect()
    }

    /// Keys found on each backend of `names`, in that order, as a
    /// [`LoadReport`] (a key on two backends counts on both). A name that
    /// is no backend of this observation is [`Error::UnknownNode`].
    ///
    /// ```
    /// use reshard::live::Observed;
    /// let seen = Observed::from_holders("stored", &["A", "B", "D"], &["k1", "k2", "k3"], vec![vec![0], vec![1], vec![0]])?;
    /// assert_eq!(seen.load_on(&["B", "A"])?.counts(), [1, 2]);
    /// assert!(seen.load_on(&["C"]).is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn load_on<S: AsRef<str>>(&self, names: &[S]) -> Result<LoadReport> {
        let all = self.counts();
        let counts = names
            .iter()
            .map(|n| {
                all.iter()
                    .find(|c| c.0 == n.as_ref())
                    .map(|c| c.1)
                    .ok_or_else(|| Error::UnknownNode(n.as_ref().to_string()))
            })
            .collect::<Result<Vec<u64>>>()?;
        LoadReport::from_counts(names.iter().map(|n| n.as_ref().to_string()).collect(), counts)
    }

    /// Keys found on no backend.
    pub fn nowhere(&self) -> u64 {
        self.holders.iter().filter(|h| h.is_empty()).count() as u64
    }

    /// Keys found on more than one backend.
    pub fn on_several(&self) -> u64 {
        self.holders.iter().filter(|h| h.len() > 1).count() as u64
    }

    /// Error replies met while observing (e.g. a stopped backend not yet
    /// ejected), and the first one's text.
    pub fn errors(&self) -> (u64, Option<&str>) {
        (self.errors, self.first_error.as_deref())
    }

    /// Wall-clock seconds the observation took.
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// Each key's backend as an index into [`names`](Observed::names), for
    /// [`Movement::from_assignments`]; an error names the first key that
    /// is on no backend or on several.
    pub fn assignment(&self) -> Result<Vec<NodeId>> {
        self.holders
            .iter()
            .enumerate()
            .map(|(i, h)| match h.as_slice() {
                &[n] => Ok(n),
                _ => Err(Error::NotOnOneBackend {
                    key: self.keys.get(i).unwrap_or_default(),
                    how: self.what.clone(),
                    backends: h.len(),
                    nowhere: self.nowhere(),
                    several: self.on_several(),
                }),
            })
            .collect()
    }

    /// The keys that changed backend between this observation and a later
    /// one of the same keys (every key on exactly one backend in both).
    pub fn movement_to(&self, later: &Observed) -> Result<Movement> {
        if later.keys != self.keys {
            let (a, b) = (self.keys.key_bytes()?, later.keys.key_bytes()?);
            let first = (0..a.len().max(b.len())).find(|&i| i >= a.len() || i >= b.len() || a.get(i) != b.get(i));
            return Err(Error::ObservationsDiffer {
                keys: self.keys.len(),
                other: later.keys.len(),
                first: first.unwrap_or(0),
            });
        }
        Movement::from_assignments(&self.names, &self.assignment()?, &later.names, &later.assignment()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(holders: Vec<Vec<NodeId>>) -> Observed {
        let keys: Vec<String> = (0..holders.len()).map(|i| format!("k{i}")).collect();
        Observed::from_holders("stored", &["A", "B", "C"], &keys, holders).unwrap()
    }

    #[test]
    fn counts_owners_and_assignment() {
        let o = seen(vec![vec![0], vec![2], vec![], vec![1, 2]]);
        assert_eq!(o.counts(), [("A".into(), 1), ("B".into(), 1), ("C".into(), 2)]);
        assert_eq!(o.owners(), [Some("A"), Some("C"), None, None]);
        assert_eq!((o.nowhere(), o.on_several()), (1, 1));
        assert_eq!(o.holders(3), ["B", "C"]);
        assert!(matches!(o.assignment(), Err(Error::NotOnOneBackend { key, backends: 0, .. }) if key == "k2"));
        assert_eq!(seen(vec![vec![1], vec![0]]).assignment().unwrap(), [1, 0]);
    }

    #[test]
    fn movement_between_observations() {
        let a = seen(vec![vec![0], vec![1], vec![2], vec![0]]);
        let b = seen(vec![vec![0], vec![2], vec![2], vec![1]]);
        let m = a.movement_to(&b).unwrap();
        assert_eq!((m.keys(), m.moved()), (4, 2));
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        assert!(matches!(
            Observed::from_holders("x", &["A"], &["k"], vec![vec![1]]),
            Err(Error::NodeOutOfRange { index: 1, nodes: 1 })
        ));
        assert_eq!(key_list(&Vec::<String>::new()), Err(Error::NoKeys));
        assert_eq!(key_list(&["a", "b", "a"]), Err(Error::DuplicateKey { key: "a".into(), first: 0, second: 2 }));
        assert_eq!(key_list(&["a", ""]), Err(Error::EmptyKey { index: 1 }));
        assert_eq!(key_list(&KeySet::users(2)).unwrap().iter().collect::<Vec<_>>(), ["user:0", "user:1"]);
        // bytes stay bytes: a backslash, a newline, a byte that is not UTF-8
        let raw: [&[u8]; 3] = [b"a\\b", b"\n", b"\xff"];
        let set = key_list(&raw).unwrap();
        assert_eq!((0..3).map(|i| set.writer().key(i).to_vec()).collect::<Vec<_>>(), raw.map(<[u8]>::to_vec));
        // a key set too large is refused before any key is spelled
        assert!(matches!(key_list(&KeySet::plain(usize::MAX)), Err(Error::TooLarge { .. })));
    }
}
