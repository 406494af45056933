//! Rows with indexed attributes: the table a secondary index is built on.
//!
//! A [`Rows`] is a key set (one row per key, every key distinct) and, for
//! each indexed attribute, the value of every row (`colour` → `red`,
//! `make` → `ford`). A *term* is `attribute:value` ([`term`]); a global
//! index stores one *posting* per row and attribute, keyed
//! `attribute:value/rowkey` ([`postings_key`]), so that one term's postings
//! sit together in key order, the way the live driver stores them in a
//! key-range table. An attribute name holds neither `:` nor `/`, a value no
//! `/` ([`Error::ReservedChar`]): then the postings of a term `t` are
//! exactly the keys of the interval `[t/, t0)` (`0` is the byte after `/`).
//!
//! ```
//! use reshard::analysis::{postings_key, term, Rows};
//! use reshard::prelude::*;
//! let colours = ["red", "blue", "green"];
//! let rows = Rows::new(&KeySet::new("item:", 6))?
//!     .with_attribute("colour", (0..6).map(|i| colours[i % 3]))?
//!     .with_attribute("make", ["ford", "fiat", "ford", "vw", "ford", "fiat"])?;
//! assert_eq!((rows.len(), rows.attributes(), rows.entries()), (6, vec!["colour", "make"], 12));
//! assert_eq!(rows.value(4, "colour"), Some("blue"));
//! assert_eq!(term("make", "ford"), "make:ford");
//! assert_eq!(postings_key("make:ford", "item:4"), "make:ford/item:4");
//! assert_eq!(rows.terms()[0], ("colour:blue".to_string(), 2)); // items 1 and 4
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::keys::{escape, KeyBytes, KeySet};
use crate::{limits, Error, Result};
use std::collections::HashMap;

/// One indexed attribute: its distinct values and each row's value.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub(crate) struct Attribute {
    pub(crate) name: String,
    /// The distinct values, in the order they first appear.
    pub(crate) values: Vec<String>,
    /// `of_row[i]` is the index in `values` of row `i`'s value.
    pub(crate) of_row: Vec<u32>,
}

/// One attribute being read, a value at a time: its distinct values (each
/// checked once, their bytes counted against the limit) and each row's.
struct Builder {
    attr: Attribute,
    seen: HashMap<String, u32>,
    bytes: u128,
}

impl Builder {
    fn new(name: &str, rows: usize) -> Builder {
        Builder {
            attr: Attribute { name: name.to_string(), values: Vec::new(), of_row: Vec::with_capacity(rows) },
            seen: HashMap::new(),
            bytes: 0,
        }
    }

    /// The next row's value.
    fn push(&mut self, v: &str) -> Result<()> {
        let id = match self.seen.get(v) {
            Some(&id) => id,
            None => {
                check_value(v)?;
                self.bytes += v.len() as u128;
                limits::check_hint(
                    "bytes of distinct attribute values",
                    self.bytes,
                    limits::current().max_key_bytes,
                    "use fewer or shorter values",
                )?;
                let id = self.attr.values.len() as u32;
                self.attr.values.push(v.to_string());
                self.seen.insert(v.to_string(), id);
                id
            }
        };
        self.attr.of_row.push(id);
        Ok(())
    }
}

/// Rows (the keys of a [`KeySet`], each one row) and the value of each
/// indexed attribute on every row.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Rows {
    keys: KeySet,
    attributes: Vec<Attribute>,
}

/// The term of `attribute = value`: `"attribute:value"`.
pub fn term(attribute: &str, value: &str) -> String {
    format!("{attribute}:{value}")
}

/// The key of the posting of row `row_key` under term `term`:
/// `"term/rowkey"`, as the live driver stores it (`format!("{t}/{k}")`).
pub fn postings_key(term: &str, row_key: &str) -> String {
    format!("{term}/{row_key}")
}

/// `attribute:value/key` into `buf` (cleared first), as bytes.
pub(crate) fn write_postings_key(buf: &mut Vec<u8>, attribute: &str, value: &str, key: &[u8]) {
    buf.clear();
    buf.extend_from_slice(attribute.as_bytes());
    buf.push(b':');
    buf.extend_from_slice(value.as_bytes());
    buf.push(b'/');
    buf.extend_from_slice(key);
}

/// The interval of a term's postings keys, `[t/, t0)`.
pub(crate) fn term_interval(term: &str) -> (Vec<u8>, Vec<u8>) {
    let (mut lo, mut hi) = (term.as_bytes().to_vec(), term.as_bytes().to_vec());
    lo.push(b'/');
    hi.push(b'0');
    (lo, hi)
}

/// A value must not hold `/`: it ends the term in a postings key.
pub(crate) fn check_value(value: &str) -> Result<()> {
    if value.contains('/') {
        return Err(Error::ReservedChar { what: "value", text: value.to_string(), ch: '/' });
    }
    Ok(())
}

impl Rows {
    /// One row per key of `keys`, no attributes yet.
    ///
    /// Fails on an empty key set ([`Error::NoKeys`]), a key given twice
    /// ([`Error::DuplicateKey`], naming both rows), and keys or their bytes
    /// over the limits ([`Error::TooLarge`]: every row's key is held in
    /// memory by the indexes built on them), before anything is read.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::analysis::Rows;
    /// use reshard::{Error, KeySet};
    /// let rows = Rows::new(&KeySet::new("item:", 3))?.with_attribute("size", ["S", "M", "S"])?;
    /// assert_eq!((rows.len(), rows.value(2, "size")), (3, Some("S")));
    /// let twice = KeySet::from_keys(["a", "b", "a"])?;
    /// assert!(matches!(Rows::new(&twice), Err(Error::DuplicateKey { first: 0, second: 2, .. })));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn new(keys: &KeySet) -> Result<Rows> {
        if keys.is_empty() {
            return Err(Error::NoKeys);
        }
        keys.check_held()?;
        if keys.is_listed() {
            let kb = keys.key_bytes()?;
            let mut order: Vec<u32> = (0..kb.len() as u32).collect();
            order.sort_by(|&a, &b| kb.get(a as usize).cmp(kb.get(b as usize)).then(a.cmp(&b)));
            let dup = order
                .windows(2)
                .filter(|w| kb.get(w[0] as usize) == kb.get(w[1] as usize))
                .min_by_key(|w| w[1])
                .map(|w| (w[0] as usize, w[1] as usize));
            if let Some((first, second)) = dup {
                return Err(Error::DuplicateKey { key: escape(kb.get(first)), first, second });
            }
        }
        Ok(Rows { keys: keys.clone(), attributes: Vec::new() })
    }

    /// The same rows with several attributes at once: `values(key)` gives
    /// a row's values, one per name in `names`, in that order. Fails as
    /// [`with_attribute`](Rows::with_attribute) does, and when `values`
    /// gives a row another count of values ([`Error::LengthMismatch`]).
    ///
    /// ```
    /// use reshard::analysis::Rows;
    /// use reshard::KeySet;
    /// let rows = Rows::new(&KeySet::new("car", 2))?
    ///     .with_attributes(&["colour", "city"], |key| vec![format!("{key}-red"), "oslo".into()])?;
    /// assert_eq!(rows.value(1, "colour"), Some("car1-red"));
    /// assert_eq!(rows.value(0, "city"), Some("oslo"));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn with_attributes<F>(mut self, names: &[&str], values: F) -> Result<Rows>
    where
        F: Fn(&str) -> Vec<String>,
    {
        // every name and the entries first, then one pass over the keys
        let n = self.keys.len();
        for (i, name) in names.iter().enumerate() {
            self.check_name(name)?;
            if names[..i].contains(name) {
                return Err(Error::DuplicateAttribute(name.to_string()));
            }
        }
        self.check_entries(names.len())?;
        let mut built: Vec<Builder> = names.iter().map(|name| Builder::new(name, n)).collect();
        for key in self.keys().iter() {
            let row = values(&key);
            if row.len() != names.len() {
                return Err(Error::LengthMismatch {
                    what: "attribute values for a row",
                    expected: names.len(),
                    given: row.len(),
                });
            }
            for (b, v) in built.iter_mut().zip(&row) {
                b.push(v)?;
            }
        }
        self.attributes.extend(built.into_iter().map(|b| b.attr));
        Ok(self)
    }

    /// The same rows with one more indexed attribute, `values` holding the
    /// value of each row in key-set order (exactly one per row).
    ///
    /// Fails on an empty name ([`Error::OutOfRange`]), a name holding `:`
    /// or `/` or a value holding `/` ([`Error::ReservedChar`]), a name
    /// already indexed ([`Error::DuplicateAttribute`]), a count of values
    /// other than the rows' ([`Error::LengthMismatch`]; an endless iterator
    /// is read one past the rows), and index entries (rows × attributes) or
    /// value bytes over the limits.
    pub fn with_attribute<I, S>(mut self, name: &str, values: I) -> Result<Rows>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.check_name(name)?;
        self.check_entries(1)?;
        let n = self.keys.len();
        let mut b = Builder::new(name, n);
        for v in values.into_iter().take(n.saturating_add(1)) {
            b.push(v.as_ref())?;
        }
        if b.attr.of_row.len() != n {
            return Err(Error::LengthMismatch { what: "values for rows", expected: n, given: b.attr.of_row.len() });
        }
        self.attributes.push(b.attr);
        Ok(self)
    }

    /// `Ok` when `name` can be a new attribute: not empty, no `:` or `/`,
    /// not indexed already.
    fn check_name(&self, name: &str) -> Result<()> {
        if name.is_empty() {
            return Err(Error::OutOfRange {
                what: "attribute name",
                given: "\"\"".into(),
                allowed: "a name of 1 character or more, e.g. \"colour\"".into(),
            });
        }
        if let Some(ch) = name.chars().find(|c| matches!(c, ':' | '/')) {
            return Err(Error::ReservedChar { what: "attribute name", text: name.to_string(), ch });
        }
        if self.attributes.iter().any(|a| a.name == name) {
            return Err(Error::DuplicateAttribute(name.to_string()));
        }
        Ok(())
    }

    /// `Ok` when `more` attributes more keep the index entries (rows ×
    /// attributes) within [`Limits::max_keys`](limits::Limits::max_keys):
    /// checked before any value is read.
    fn check_entries(&self, more: usize) -> Result<()> {
        limits::check_hint(
            "index entries (rows × attributes)",
            limits::product(self.keys.len(), self.attributes.len().saturating_add(more)),
            limits::current().max_keys,
            "index fewer attributes or use fewer rows",
        )
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Always false: [`Rows::new`] refuses an empty key set.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The row keys.
    pub fn keys(&self) -> &KeySet {
        &self.keys
    }

    /// The indexed attributes, in the order they were added.
    pub fn attributes(&self) -> Vec<&str> {
        self.attributes.iter().map(|a| a.name.as_str()).collect()
    }

    /// Row `row`'s value of `attribute` (`None`: no such row or attribute).
    pub fn value(&self, row: usize, attribute: &str) -> Option<&str> {
        let a = self.attributes.iter().find(|a| a.name == attribute)?;
        a.values.get(*a.of_row.get(row)? as usize).map(String::as_str)
    }

    /// Index entries: one per row and attribute (a local index holds them
    /// beside the rows, a global one as postings).
    pub fn entries(&self) -> u64 {
        self.len() as u64 * self.attributes.len() as u64
    }

    /// Every term that some row has, with its rows, in byte order.
    pub fn terms(&self) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        for a in &self.attributes {
            let mut counts = vec![0u64; a.values.len()];
            for &v in &a.of_row {
                counts[v as usize] += 1;
            }
            out.extend(a.values.iter().zip(counts).map(|(v, c)| (term(&a.name, v), c)));
        }
        out.sort_unstable();
        out
    }

    /// Every posting's key (`attribute:value/rowkey`), row by row, as a key
    /// set: a sample to pre-split a term layout at
    /// ([`KeyRanges::presplit`](crate::KeyRanges::presplit)). Fails when
    /// their bytes are over the limits.
    pub fn postings_keys(&self) -> Result<KeySet> {
        let kb = self.keys.key_bytes()?;
        let mut bytes = 0u128;
        for a in &self.attributes {
            let name = a.name.len() as u128 + 2;
            bytes += a.of_row.iter().map(|&v| name + a.values[v as usize].len() as u128).sum::<u128>();
        }
        bytes += self.keys.byte_len() * self.attributes.len() as u128;
        limits::check_hint(
            "bytes of postings keys",
            bytes,
            limits::current().max_key_bytes,
            "index fewer attributes or use fewer rows",
        )?;
        let mut buf = Vec::new();
        let keys = (0..self.len()).flat_map(|i| (0..self.attributes.len()).map(move |j| (i, j))).map(|(i, j)| {
            let a = &self.attributes[j];
            write_postings_key(&mut buf, &a.name, &a.values[a.of_row[i] as usize], kb.get(i));
            buf.clone()
        });
        KeySet::from_keys(keys)
    }

    pub(crate) fn key_bytes(&self) -> Result<KeyBytes<'_>> {
        self.keys.key_bytes()
    }

    pub(crate) fn attrs(&self) -> &[Attribute] {
        &self.attributes
    }

    /// The index of `attribute`, or [`Error::UnknownName`] listing them.
    pub(crate) fn attribute_index(&self, attribute: &str) -> Result<usize> {
        self.attributes.iter().position(|a| a.name == attribute).ok_or_else(|| Error::UnknownName {
            what: "attribute",
            given: attribute.to_string(),
            choices: if self.attributes.is_empty() {
                "an attribute added with Rows::with_attribute (these rows have none)".into()
            } else {
                self.attributes.iter().map(|a| format!("{:?}", a.name)).collect::<Vec<_>>().join(", ")
            },
        })
    }

    /// The first row whose key is `key`.
    pub(crate) fn find(&self, key: &[u8]) -> Result<Option<usize>> {
        let kb = self.keys.key_bytes()?;
        Ok((0..kb.len()).find(|&i| kb.get(i) == key))
    }
}
