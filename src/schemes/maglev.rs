//! Maglev hashing (Eisenbud et al., NSDI 2016): a lookup table filled by
//! taking turns.
//!
//! Every backend has its own order of preference over the `M` entries of a
//! lookup table (`M` prime): entry `(offset + j · skip) mod M` is its
//! `j`-th choice. The backends take turns, round-robin; on its turn a
//! backend claims its most preferred entry that is still free, until the
//! table is full. Every backend ends up with `M/N` entries give or take
//! one, and a key's owner is `table[hash mod M]`, one array read. When a
//! backend leaves, the others keep their preferences, so most entries keep
//! their owner — but not all: freed entries change the race, and a few
//! entries change hands between backends that both stay. Maglev trades
//! that small churn for near-perfect balance and an O(1) lookup.
//!
//! Here `offset` and `skip` come from the md5 of the backend's name, read
//! as a big-endian 128-bit integer `h`: `offset = (h >> 64) mod M` (the
//! first 8 bytes) and `skip = (h mod 2^64) mod (M − 1) + 1` (the last 8
//! bytes). The key's hash is the experiment's md5 ([`HashWidth`]).
//!
//! ```
//! use reshard::{prefixed, HashWidth, KeySet, Maglev, Movement, Placement};
//! let keys = KeySet::plain(50_000).hashed(HashWidth::Bits128)?;
//! let ten = Maglev::named(prefixed("B", 10)?)?;            // M = 65537
//! assert!(ten.entry_counts().iter().all(|&c| c == 6553 || c == 6554));
//! let nine = ten.remove_node("B3")?;
//! let m = Movement::measure(&keys, &ten, &nine)?;
//! assert!(m.between_kept() > 0); // not minimally disruptive
//! assert!(m.between_kept() < m.from_removed() / 10); // but nearly
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! [`HashWidth`]: crate::HashWidth

use crate::keys::HashedKeys;
use crate::schemes::{
    assign_each, check_names, count_per_node, index_of, numbered, with_added, without, Key, Locate, NodeId, Placement,
};
use crate::{md5_u128, Error, Result};

/// The table size the paper uses for its examples, and the default here.
pub const DEFAULT_TABLE_SIZE: usize = 65_537;

/// The largest table size accepted (the largest prime below 2^24).
pub const MAX_TABLE_SIZE: usize = 16_777_213;

/// One backend's order of preference over the table entries.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Preference {
    /// `(offset + j · skip) mod M`, from the backend's name.
    Generated { offset: u32, skip: u32 },
    /// Given entry by entry.
    Explicit(Vec<u32>),
}

/// A Maglev lookup table over named backends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Maglev {
    nodes: Vec<String>,
    prefs: Vec<Preference>,
    size: usize,
    table: Vec<NodeId>,
}

impl Maglev {
    /// `n` backends named `"0"` … `"{n-1}"` and a table of
    /// [`DEFAULT_TABLE_SIZE`] (65537) entries.
    pub fn new(n: usize) -> Result<Self> {
        Maglev::named(numbered(n)?)
    }

    /// Backends with these names and a table of [`DEFAULT_TABLE_SIZE`]
    /// entries. Fails on no backends, a repeated name, or more backends
    /// than entries.
    ///
    /// # Examples
    ///
    /// ```
    /// use reshard::{HashWidth, Key, Locate, Maglev};
    /// let m = Maglev::named(["B0", "B1", "B2"])?;
    /// // offset = (md5(name) >> 64) mod 65537 (Python's hashlib): B0 25,062, B1 382,
    /// // B2 31,245 — all different, so on the first turn each claims its own
    /// assert_eq!((m.table()[25_062], m.table()[382], m.table()[31_245]), (0, 1, 2));
    /// // a key's owner is table[hash mod M]: a hash of 65,537 + 382 reads entry 382
    /// assert_eq!(m.owner(Key::from_hash(65_537 + 382, HashWidth::Bits128)), "B1");
    /// assert!(m.entry_counts().iter().all(|&c| c == 21_845 || c == 21_846)); // 65,537 / 3
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn named<I, S>(names: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(names)?;
        let size = DEFAULT_TABLE_SIZE;
        check_size(size, nodes.len())?;
        let prefs = nodes.iter().map(|n| generated(n, size)).collect();
        Ok(Maglev::build(nodes, prefs, size))
    }

    /// The same backends with a table of `size` entries (their preferences
    /// drawn again for the new size).
    ///
    /// Fails on a `size` that is not prime, is larger than
    /// [`MAX_TABLE_SIZE`], or is smaller than the number of backends.
    pub fn with_table_size(self, size: usize) -> Result<Self> {
        check_size(size, self.nodes.len())?;
        let prefs = self.nodes.iter().map(|n| generated(n, size)).collect();
        Ok(Maglev::build(self.nodes, prefs, size))
    }

    /// Backends with explicit preference lists: `permutations[i]` lists
    /// every entry `0..M` once, in backend `i`'s order of preference. `M`
    /// is their common length and need not be prime. This is how the
    /// paper's small example (`M = 7`) is written down.
    ///
    /// ```
    /// use reshard::Maglev;
    /// let m = Maglev::from_permutations(
    ///     ["B0", "B1", "B2"],
    ///     vec![vec![3, 0, 4, 1, 5, 2, 6], vec![0, 2, 4, 6, 1, 3, 5], vec![3, 4, 5, 6, 0, 1, 2]],
    /// )?;
    /// assert_eq!(m.table(), [1, 0, 1, 0, 2, 2, 0]); // B1 B0 B1 B0 B2 B2 B0
    /// # Ok::<(), reshard::Error>(())
    /// ```
    ///
    /// Fails on no backends, a repeated name, a count of lists other than
    /// the count of names, lists of different lengths, a list that is not
    /// a permutation of `0..M`, or fewer entries than backends.
    pub fn from_permutations<I, S>(names: I, permutations: Vec<Vec<u32>>) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let nodes = check_names(names)?;
        if permutations.len() != nodes.len() {
            return Err(Error::LengthMismatch {
                what: "permutations for backends",
                expected: nodes.len(),
                given: permutations.len(),
            });
        }
        let size = permutations[0].len();
        if size < nodes.len() || size > MAX_TABLE_SIZE {
            return Err(Error::OutOfRange {
                what: "permutation length",
                given: size.to_string(),
                allowed: format!("{} (the backends) to {MAX_TABLE_SIZE} entries", nodes.len()),
            });
        }
        let mut seen = vec![false; size];
        for (name, p) in nodes.iter().zip(&permutations) {
            if p.len() != size {
                return Err(Error::LengthMismatch {
                    what: "entries in a later permutation (every backend's must be as long as the first)",
                    expected: size,
                    given: p.len(),
                });
            }
            seen.iter_mut().for_each(|s| *s = false);
            for &e in p {
                match seen.get_mut(e as usize) {
                    Some(s) if !*s => *s = true,
                    _ => return Err(Error::NotAPermutation { node: name.to_string(), size, entry: u64::from(e) }),
                }
            }
        }
        let prefs = permutations.into_iter().map(Preference::Explicit).collect();
        Ok(Maglev::build(nodes, prefs, size))
    }

    /// The lookup table: `table()[e]` is the backend of entry `e`; its
    /// length is the table size M (`table().len()`).
    pub fn table(&self) -> &[NodeId] {
        &self.table
    }

    /// The lookup table by name: `owners()[e]` is the name of entry `e`'s
    /// backend, so two tables over different backends can be compared entry
    /// by entry (a backend's index changes when another one leaves, its
    /// name doesn't). Owned strings, so a notebook can keep the list in a
    /// variable after the table is gone.
    ///
    /// ```
    /// use reshard::{Maglev, Placement};
    /// let m = Maglev::from_permutations(
    ///     ["B0", "B1", "B2"],
    ///     vec![vec![3, 0, 4, 1, 5, 2, 6], vec![0, 2, 4, 6, 1, 3, 5], vec![3, 4, 5, 6, 0, 1, 2]],
    /// )?;
    /// assert_eq!(m.owners(), ["B1", "B0", "B1", "B0", "B2", "B2", "B0"]);
    /// assert_eq!(m.remove_node("B1")?.owners(), ["B0", "B0", "B0", "B0", "B2", "B2", "B2"]);
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn owners(&self) -> Vec<String> {
        self.table.iter().map(|&b| self.nodes[b as usize].clone()).collect()
    }

    /// How many table entries each backend owns, in backend order.
    pub fn entry_counts(&self) -> Vec<usize> {
        count_per_node(&self.table, self.nodes.len())
    }

    /// Backend `name`'s preference list: every entry `0..M` in its order.
    pub fn permutation(&self, name: &str) -> Result<Vec<u32>> {
        let i = index_of(&self.nodes, name)? as usize;
        Ok(match &self.prefs[i] {
            Preference::Explicit(p) => p.clone(),
            &Preference::Generated { offset, skip } => {
                let m = self.size as u64;
                (0..m).map(|j| ((u64::from(offset) + j * u64::from(skip)) % m) as u32).collect()
            }
        })
    }

    /// Fill the table: backends take turns in order, each claiming its
    /// most preferred free entry, until every entry is taken.
    fn build(nodes: Vec<String>, prefs: Vec<Preference>, size: usize) -> Maglev {
        const FREE: NodeId = NodeId::MAX;
        let m = size as u32;
        let mut table = vec![FREE; size];
        // Per backend: how many of its choices it has used, and for the
        // generated ones the entry of its next choice.
        let mut used = vec![0usize; prefs.len()];
        let mut at: Vec<u32> = prefs
            .iter()
            .map(|p| match p {
                Preference::Generated { offset, .. } => *offset,
                Preference::Explicit(_) => 0,
            })
            .collect();
        let mut filled = 0;
        // Every list is a permutation, so while an entry is free each
        // backend still has it ahead of it in its list: the inner loop ends.
        'fill: loop {
            for (i, pref) in prefs.iter().enumerate() {
                loop {
                    let e = match pref {
                        Preference::Explicit(p) => p[used[i]],
                        &Preference::Generated { skip, .. } => {
                            let e = at[i];
                            at[i] = if e >= m - skip { e - (m - skip) } else { e + skip };
                            e
                        }
                    };
                    used[i] += 1;
                    if table[e as usize] == FREE {
                        table[e as usize] = i as NodeId;
                        filled += 1;
                        break;
                    }
                }
                if filled == size {
                    break 'fill;
                }
            }
        }
        Maglev { nodes, prefs, size, table }
    }
}

/// The preferences of a backend from its name: offset and skip from md5.
fn generated(name: &str, size: usize) -> Preference {
    let h = md5_u128(name.as_bytes());
    let m = size as u64;
    let offset = ((h >> 64) as u64 % m) as u32;
    let skip = (h as u64 % (m - 1) + 1) as u32;
    Preference::Generated { offset, skip }
}

fn check_size(size: usize, backends: usize) -> Result<()> {
    if size > MAX_TABLE_SIZE {
        return Err(Error::OutOfRange {
            what: "table size",
            given: size.to_string(),
            allowed: format!("a prime of at most {MAX_TABLE_SIZE} (the default is {DEFAULT_TABLE_SIZE})"),
        });
    }
    if !is_prime(size as u64) {
        return Err(Error::OutOfRange {
            what: "table size (not prime)",
            given: size.to_string(),
            allowed: format!(
                "a prime, so that every skip visits every entry: e.g. {} or {DEFAULT_TABLE_SIZE}",
                next_prime(size as u64)
            ),
        });
    }
    if size < backends {
        return Err(Error::OutOfRange {
            what: "table size (smaller than the backends)",
            given: size.to_string(),
            allowed: format!(
                "a prime of at least {} for {backends} backends (the paper uses M ≥ 100·N)",
                next_prime(backends as u64)
            ),
        });
    }
    Ok(())
}

/// Trial division; `n` is at most [`MAX_TABLE_SIZE`] here.
fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    let mut d = 2;
    while d * d <= n {
        if n.is_multiple_of(d) {
            return false;
        }
        d += 1;
    }
    true
}

/// The smallest prime ≥ `n`.
fn next_prime(n: u64) -> u64 {
    (n.max(2)..).find(|&p| is_prime(p)).unwrap_or(2)
}

impl Placement for Maglev {
    fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// The lookup table is filled again: about an eighth of an md5 per
    /// entry (2 ms for M = 65,537), and one permutation per backend.
    fn change_cost(&self, nodes: usize) -> u128 {
        (self.table().len() as u128).div_ceil(8) + nodes as u128
    }

    fn assign(&self, keys: &HashedKeys) -> Vec<NodeId> {
        assign_each(self, keys)
    }

    /// The same table with backend `name` added (its preferences from its
    /// name); the others keep theirs and the table is filled again.
    ///
    /// Fails if the name is taken, the table size is not prime (explicit
    /// permutations), or the table would have fewer entries than backends.
    fn add_node(&self, name: &str) -> Result<Maglev> {
        let nodes = with_added(&self.nodes, name)?;
        check_size(self.size, nodes.len())?;
        let mut prefs = self.prefs.clone();
        prefs.push(generated(name, self.size));
        Ok(Maglev::build(nodes, prefs, self.size))
    }

    /// The same table without backend `name`: the other backends keep
    /// their preference lists and the table is filled again.
    ///
    /// Fails if there is no such backend or it is the only one.
    fn remove_node(&self, name: &str) -> Result<Maglev> {
        let (nodes, gone) = without(&self.nodes, name)?;
        let mut prefs = self.prefs.clone();
        prefs.remove(gone as usize);
        Ok(Maglev::build(nodes, prefs, self.size))
    }
}

impl Locate for Maglev {
    #[inline]
    fn locate(&self, key: Key<'_>) -> NodeId {
        self.table[(key.hash % self.size as u128) as usize]
    }
}
