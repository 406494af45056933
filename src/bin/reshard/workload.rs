//! What every measuring subcommand shares: the keys (`--keys`, `--prefix`,
//! or your own with `--keys-from`; `--width`), the NODES syntax of `--from`/`--to`, and the parsers that
//! turn a negative or oversized number into a message saying what to type.
//!
//! One [`Workload`] struct is flattened into every subcommand. Its fields
//! carry no default of their own: each subcommand sets its source
//! document's defaults with [`defaults`] (clap's `mut_arg`), so
//! `reshard ring --help` shows `[default: 100000]` and `reshard modulo
//! --help` shows `[default: 1000000]`.

use crate::output::Failure;
use clap::Args;
use reshard::limits::{MAX_KEYS, MAX_NODES};
use reshard::{numbered, prefixed, Error, HashWidth, HashedKeys, KeySet};
use std::io::BufReader;
use std::path::PathBuf;

/// The keys of an experiment: `{prefix}0 … {prefix}{keys-1}`, or one key per
/// line of a file (`--keys-from`); md5 at `width` bits.
#[derive(Args, Debug, Clone)]
pub struct Workload {
    /// How many keys: {prefix}0 … {prefix}{N-1} (at most 20,000,000)
    #[arg(long, value_name = "N", required = false, value_parser = key_count, allow_negative_numbers = true)]
    pub keys: usize,
    /// Key prefix: keys are {prefix}0, {prefix}1, …
    #[arg(long, required = false)]
    pub prefix: String,
    /// Your own keys instead, one per line (\xHH for a byte, \\ for a backslash; - is standard input)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["keys", "prefix"])]
    pub keys_from: Option<PathBuf>,
    /// Bits of md5 kept, for keys and everything the scheme hashes: 32 (md5 mod 2^32) or 128
    #[arg(long, value_name = "BITS", required = false, value_parser = clap::value_parser!(HashWidth))]
    pub width: HashWidth,
}

impl Workload {
    /// The key count, when known before reading `--keys-from`.
    pub fn count(&self) -> Option<usize> {
        self.keys_from.is_none().then_some(self.keys)
    }

    /// Every key hashed once (refused over the library's limits, a bad
    /// line of `--keys-from` named by its number).
    pub fn hashed(&self) -> Result<HashedKeys, Failure> {
        let Some(path) = &self.keys_from else {
            return Ok(KeySet::new(self.prefix.as_str(), self.keys).hashed(self.width)?);
        };
        const BUFFER: usize = 1 << 20;
        let named = |e: Error| match e {
            Error::BadKey { .. } | Error::TooLarge { .. } => Failure(format!("--keys-from {}: {e}", path.display())),
            other => Failure::from(other),
        };
        let keys = if path.as_os_str() == "-" {
            KeySet::from_reader(BufReader::with_capacity(BUFFER, std::io::stdin().lock()))
        } else {
            let file = std::fs::File::open(path)
                .map_err(|e| Failure(format!("--keys-from {}: cannot open it: {e}", path.display())))?;
            KeySet::from_reader(BufReader::with_capacity(BUFFER, file))
        };
        keys.and_then(|k| k.hashed(self.width)).map_err(|e| match e {
            Error::NoKeys => {
                Failure(format!("--keys-from {}: the file has no keys: give one key per line", path.display()))
            }
            e => named(e),
        })
    }
}

/// A subcommand's source-document defaults for the flattened [`Workload`]:
/// `#[command(mut_arg("keys", defaults::keys("100000")), …)]`.
pub mod defaults {
    use clap::Arg;

    /// `--keys`' default.
    pub fn keys(v: &'static str) -> impl FnOnce(Arg) -> Arg {
        move |a| a.default_value(v)
    }

    /// `--prefix`' default.
    pub fn prefix(v: &'static str) -> impl FnOnce(Arg) -> Arg {
        move |a| a.default_value(v)
    }

    /// `--width`' default.
    pub fn width(v: &'static str) -> impl FnOnce(Arg) -> Arg {
        move |a| a.default_value(v)
    }
}

/// How NODES is written, shown under every subcommand that takes it.
pub const NODES_HELP: &str = "\
NODES (--from, --to) is either a count or a list of names:
  10          ten nodes named {name-prefix}0 … {name-prefix}9
  A,B,C       the nodes named A, B and C
  7,          one node named \"7\" (a trailing comma makes a lone number a name)
Nodes are matched by name: a name in --to but not in --from was added, a name
in --from but not in --to was removed. At most 4,096 nodes.";

/// The nodes before and after a change, as typed (`--from`, `--to`, and the
/// prefix of numbered nodes). Defaults 10 → 11, the documents' growth step.
#[derive(Args, Debug)]
pub struct Change {
    /// Nodes before (documents 002 and 004: 10)
    #[arg(long, value_name = "NODES", default_value = "10", value_parser = nodes, allow_hyphen_values = true)]
    pub from: Nodes,
    /// Nodes after (documents 002 and 004: 11)
    #[arg(long, value_name = "NODES", default_value = "11", value_parser = nodes, allow_hyphen_values = true)]
    pub to: Nodes,
    /// Prefix for nodes given as a count (default: none, nodes 0 … N-1)
    #[arg(long, default_value = "")]
    pub name_prefix: String,
}

impl Change {
    /// The names before and after.
    pub fn names(&self) -> reshard::Result<(Vec<String>, Vec<String>)> {
        Ok((self.from.names(&self.name_prefix)?, self.to.names(&self.name_prefix)?))
    }
}

/// A side of a change as typed: a count or a list of names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Nodes {
    /// `10`: numbered nodes.
    Count(usize),
    /// `A,B,C`.
    Names(Vec<String>),
}

impl Nodes {
    /// The node names: a count is numbered `{prefix}0 …`.
    /// Fails when the names are over the crate's limits (long prefixes).
    pub fn names(&self, prefix: &str) -> reshard::Result<Vec<String>> {
        match self {
            Nodes::Count(n) if prefix.is_empty() => numbered(*n),
            Nodes::Count(n) => prefixed(prefix, *n),
            Nodes::Names(v) => Ok(v.clone()),
        }
    }
}

/// "-1 is negative" when `s` is a negative number.
fn negative(s: &str, what: &str) -> Option<String> {
    let t = s.trim();
    let digits = t.strip_prefix('-')?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        .then(|| format!("{t} is negative: {what}"))
}

/// A node count or a list of names (see [`NODES_HELP`]).
pub fn nodes(s: &str) -> Result<Nodes, String> {
    if let Some(msg) = negative(s, "give a count of at least 1 or a list of names") {
        return Err(msg);
    }
    let t = s.trim();
    if t.starts_with('-') {
        return Err(format!("{t:?} looks like a flag: give a count (10) or names separated by commas (A,B,C)"));
    }
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        let n: u128 = t.parse().unwrap_or(u128::MAX);
        return match usize::try_from(n) {
            Ok(n) if n as u128 <= MAX_NODES => Ok(Nodes::Count(n)),
            _ => Err(too_large("nodes", n, MAX_NODES, "use fewer nodes")),
        };
    }
    let mut parts: Vec<&str> = t.split(',').map(str::trim).collect();
    if parts.len() > 1 && parts.last() == Some(&"") {
        parts.pop();
    }
    if parts.iter().any(|p| p.is_empty()) {
        return Err("empty node name: give a count (10) or names separated by commas (A,B,C)".into());
    }
    if parts.len() as u128 > MAX_NODES {
        return Err(too_large("nodes", parts.len() as u128, MAX_NODES, "use fewer nodes"));
    }
    Ok(Nodes::Names(parts.into_iter().map(String::from).collect()))
}

/// The library's limit message, for limits checked while parsing (before
/// a huge count is turned into a list).
fn too_large(what: &'static str, asked: u128, limit: u128, hint: &'static str) -> String {
    Error::TooLarge { what, asked, limit, hint }.to_string()
}

/// A non-negative integer, with a message for negative and non-numbers.
pub fn count<T: std::str::FromStr>(s: &str, what: &str) -> Result<T, String> {
    if let Some(msg) = negative(s, &format!("give {what}")) {
        return Err(msg);
    }
    let t = s.trim();
    t.parse().map_err(|_| {
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            format!("{t} is too large: give {what}")
        } else {
            format!("{s:?} is not a whole number: give {what}")
        }
    })
}

/// `--keys`: a count, checked against the library's key limit at once.
pub fn key_count(s: &str) -> Result<usize, String> {
    let n: u128 = count(s, "a key count of at least 1")?;
    match usize::try_from(n) {
        Ok(k) if n <= MAX_KEYS => Ok(k),
        _ => Err(too_large(
            "keys hashed in memory",
            n,
            MAX_KEYS,
            "use fewer keys (each costs about 20 bytes while the experiment runs)",
        )),
    }
}

/// A count of points, shards, arrangements… (`usize`).
pub fn size(s: &str) -> Result<usize, String> {
    count(s, "a whole number of at least 1")
}

/// One weight of `--weights`: any number; a weight that is not above 0 is
/// refused by the library, which names its node.
pub fn weight(s: &str) -> Result<f64, String> {
    s.trim().parse().map_err(|_| format!("{s:?} is not a number: give one weight per node, e.g. 1,1,2"))
}

/// A seed (`u64`).
pub fn seed(s: &str) -> Result<u64, String> {
    count(s, "a seed between 0 and 18446744073709551615")
}

/// Node counts for `--sweep` (a newtype: clap would read a bare `Vec` as
/// several values).
#[derive(Clone, Debug)]
pub struct Counts(pub Vec<usize>);

/// Node counts for `--sweep`: `A..B` (both ends included) or `A,B,C`.
pub fn counts(s: &str) -> Result<Counts, String> {
    let bad =
        || format!("{s:?} is not a node-count range: write A..B (e.g. 1..20, both ends included) or a list A,B,C");
    let num = |x: &str| -> Result<usize, String> {
        let x = x.trim();
        if let Some(msg) = negative(x, "node counts start at 1 (write e.g. 1..20)") {
            return Err(msg);
        }
        let n: u128 = x.parse().map_err(|_| bad())?;
        if n > MAX_NODES {
            return Err(too_large("nodes", n, MAX_NODES, "use fewer nodes"));
        }
        Ok(n as usize)
    };
    let counts: Vec<usize> = if let Some((a, b)) = s.split_once("..") {
        let (a, b) = (num(a)?, num(b.trim_start_matches('='))?);
        if a > b {
            return Err(format!("the range {s} is empty: write the smaller count first (e.g. {b}..{a})"));
        }
        (a..=b).collect()
    } else {
        s.split(',').map(num).collect::<Result<_, _>>()?
    };
    if counts.is_empty() {
        return Err(bad());
    }
    Ok(Counts(counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_syntax() {
        assert_eq!(nodes("3"), Ok(Nodes::Count(3)));
        assert_eq!(nodes("A,B"), Ok(Nodes::Names(vec!["A".into(), "B".into()])));
        assert_eq!(nodes("7,"), Ok(Nodes::Names(vec!["7".into()])));
        assert!(nodes("-1").unwrap_err().contains("negative"));
        assert!(nodes("99999999999999999999999999").unwrap_err().contains("limit"));
    }
}
