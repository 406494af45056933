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

use crate::analysis::Movement;
use crate::keys::KeySet;
use crate::schemes::NodeId;
use crate::{Error, Result};

/// The most keys one observation handles (a million keys through a proxy
/// take half a minute or more).
pub const MAX_LIVE_KEYS: usize = 1_000_000;

/// Keys to send through a proxy: a [`KeySet`] or any list of strings.
pub trait Keys {
    /// The keys, in order.
    fn key_list(&self) -> Vec<String>;
}

impl Keys for KeySet {
    fn key_list(&self) -> Vec<String> {
        self.iter().collect()
    }
}

impl<S: AsRef<str>> Keys for [S] {
    fn key_list(&self) -> Vec<String> {
        self.iter().map(|k| k.as_ref().to_string()).collect()
    }
}

impl<S: AsRef<str>> Keys for Vec<S> {
    fn key_list(&self) -> Vec<String> {
        self.as_slice().key_list()
    }
}

impl<S: AsRef<str>, const N: usize> Keys for [S; N] {
    fn key_list(&self) -> Vec<String> {
        self.as_slice().key_list()
    }
}

/// The keys of `keys`, checked: at least one, at most [`MAX_LIVE_KEYS`],
/// none empty and none repeated.
pub(crate) fn key_list<K: Keys + ?Sized>(keys: &K) -> Result<Vec<String>> {
    let list = keys.key_list();
    if list.is_empty() {
        return Err(Error::NoKeys);
    }
    if list.len() > MAX_LIVE_KEYS {
        return Err(Error::TooLarge {
            what: "keys sent through a live proxy",
            asked: list.len() as u128,
            limit: MAX_LIVE_KEYS as u128,
            hint: "use fewer keys (20,000 show every effect)",
        });
    }
    let mut seen = std::collections::HashSet::with_capacity(list.len());
    for k in &list {
        if k.is_empty() {
            return Err(Error::Invalid("an empty key: every key needs at least one character".into()));
        }
        if !seen.insert(k.as_str()) {
            return Err(Error::Invalid(format!("key {k:?} appears twice: give each key once")));
        }
    }
    Ok(list)
}

/// For each key, the backends that hold it (or received it, or answered
/// for it), read from the real servers.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    what: String,
    names: Vec<String>,
    keys: Vec<String>,
    holders: Vec<Vec<NodeId>>,
    errors: u64,
    first_error: Option<String>,
    seconds: f64,
}

impl Observed {
    /// An observation: `holders[i]` lists (as indices into `names`) the
    /// backends found for `keys[i]`. `what` says how it was observed
    /// ("stored", "routed", "answered").
    pub fn from_holders<N: AsRef<str>, K: AsRef<str>>(
        what: impl Into<String>,
        names: &[N],
        keys: &[K],
        holders: Vec<Vec<NodeId>>,
    ) -> Result<Observed> {
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
            keys: keys.iter().map(|k| k.as_ref().to_string()).collect(),
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

    /// The keys, in the order they were given.
    pub fn keys(&self) -> &[String] {
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
                _ => Err(Error::Proxy(format!(
                    "key {:?} was {} on {} backends, not one ({} keys on none, {} on several): \
                     flush the backends and write the keys again, or observe where they are routed",
                    self.keys[i],
                    self.what,
                    h.len(),
                    self.nowhere(),
                    self.on_several()
                ))),
            })
            .collect()
    }

    /// The keys that changed backend between this observation and a later
    /// one of the same keys (every key on exactly one backend in both).
    pub fn movement_to(&self, later: &Observed) -> Result<Movement> {
        if later.keys != self.keys {
            return Err(Error::Invalid("the two observations are of different keys: observe the same keys".into()));
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
        assert!(matches!(o.assignment(), Err(Error::Proxy(m)) if m.contains("\"k2\"")));
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
        assert!(matches!(key_list(&["a", "a"]), Err(Error::Invalid(_))));
        assert!(matches!(key_list(&[""]), Err(Error::Invalid(_))));
        assert_eq!(key_list(&KeySet::users(2)).unwrap(), ["user:0", "user:1"]);
    }
}
