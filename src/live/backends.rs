//! The backends a proxy's config lists: names that go into config files
//! as they are, each with an integer weight, in config order. Shared by
//! [`NutcrackerConfig`](super::NutcrackerConfig) and
//! [`NginxConfig`](super::NginxConfig).

use crate::{Error, Result};
use std::ops::Deref;

/// Backends by name, each with a weight ≥ 1, in config order; never empty,
/// no name twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Backends(Vec<(String, u32)>);

impl Backends {
    /// These names, weight 1 each.
    pub(crate) fn named<I, S>(names: I) -> Result<Backends>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut b = Backends(Vec::new());
        for n in crate::live::ports::check_servers(names)? {
            b = b.added(n, 1)?;
        }
        if b.0.is_empty() {
            return Err(Error::NoNodes);
        }
        Ok(b)
    }

    /// The same backends and one more, listed last.
    pub(crate) fn added(&self, name: impl Into<String>, weight: u32) -> Result<Backends> {
        let name = name.into();
        check_name(&name)?;
        crate::live::ports::check_servers(self.0.iter().map(|(n, _)| n.clone()).chain([name.clone()]))?;
        if self.0.iter().any(|(n, _)| *n == name) {
            return Err(Error::DuplicateNode(name));
        }
        if weight == 0 {
            return Err(Error::BadWeight { node: name, weight: "0".into() });
        }
        let mut b = self.clone();
        b.0.push((name, weight));
        Ok(b)
    }

    /// The same backends without `name` (never the last one).
    pub(crate) fn removed(&self, name: &str) -> Result<Backends> {
        let at = self.0.iter().position(|(n, _)| n == name).ok_or_else(|| Error::UnknownNode(name.into()))?;
        if self.0.len() == 1 {
            return Err(Error::LastNode(name.into()));
        }
        let mut b = self.clone();
        b.0.remove(at);
        Ok(b)
    }

    /// The same names with these weights, one each in order, each ≥ 1.
    pub(crate) fn with_weights(mut self, weights: impl IntoIterator<Item = u32>) -> Result<Backends> {
        let w: Vec<u32> = weights.into_iter().collect();
        if w.len() != self.0.len() {
            return Err(Error::LengthMismatch { what: "weights for servers", expected: self.0.len(), given: w.len() });
        }
        for ((name, old), new) in self.0.iter_mut().zip(w) {
            if new == 0 {
                return Err(Error::BadWeight { node: name.clone(), weight: "0".into() });
            }
            *old = new;
        }
        Ok(self)
    }
}

impl Deref for Backends {
    type Target = [(String, u32)];

    fn deref(&self) -> &[(String, u32)] {
        &self.0
    }
}

/// `name` is usable as the name of a proxy's backend: 1 to 64 characters
/// of `A–Z a–z 0–9 _ - .` (it goes into config files and HTTP bodies as is).
pub(crate) fn check_name(name: &str) -> Result<()> {
    let ok = (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(Error::BadBackendName { name: name.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_keeps_its_rules() {
        let b = Backends::named(["A", "B"]).unwrap();
        assert_eq!(&*b.added("C", 2).unwrap(), [("A".into(), 1), ("B".into(), 1), ("C".into(), 2)]);
        assert_eq!(b.added("A", 1), Err(Error::DuplicateNode("A".into())));
        assert!(matches!(b.added("D", 0), Err(Error::BadWeight { .. })));
        assert_eq!(b.added("a b", 1), Err(Error::BadBackendName { name: "a b".into() }));
        assert_eq!(&*b.removed("A").unwrap(), [("B".into(), 1)]);
        assert_eq!(b.removed("A").unwrap().removed("B"), Err(Error::LastNode("B".into())));
        assert_eq!(b.removed("Z"), Err(Error::UnknownNode("Z".into())));
        assert!(matches!(b.clone().with_weights([1]), Err(Error::LengthMismatch { .. })));
        assert_eq!(&*b.with_weights([3, 4]).unwrap(), [("A".into(), 3), ("B".into(), 4)]);
        assert_eq!(Backends::named(Vec::<String>::new()), Err(Error::NoNodes));
    }
}
