//! One measured change of a placement, shared by `modulo`, `ring`,
//! `rendezvous` and `shards`: the library's [`Movement`] and a
//! [`LoadReport`] for each side, with the scheme's own parameters beside
//! them.

use crate::output::Failure;
use reshard::{HashWidth, HashedKeys, KeySet, LoadReport, Movement, Placement};
use serde::Serialize;
use std::fmt::Write as _;

/// A change measured: serialized as the JSON of `modulo`, `ring`,
/// `rendezvous` and `shards` (the scheme's parameters `X` flattened in).
#[derive(Serialize)]
pub struct Change<X: Serialize> {
    /// `"modulo"`, `"ring"`, `"rendezvous"` or `"shards"`.
    pub scheme: &'static str,
    /// The key set, shown in the text header.
    #[serde(skip)]
    pub key_set: KeySet,
    /// How many keys, their prefix (none for `--keys-from`) and their
    /// width (32 or 128), as the library's `Comparison` serializes them.
    pub keys: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    pub width: HashWidth,
    pub before: Vec<String>,
    pub after: Vec<String>,
    #[serde(flatten)]
    pub params: X,
    pub movement: Movement,
    pub load_before: LoadReport,
    pub load_after: LoadReport,
}

impl<X: Serialize> Change<X> {
    /// Place every key before and after, and count.
    pub fn measure<P: Placement>(
        scheme: &'static str,
        keys: &HashedKeys,
        before: &P,
        after: &P,
        params: X,
    ) -> Result<Self, Failure> {
        let movement = Movement::measure(keys, before, after)?;
        let load_on = |names: &[String], load: Vec<u64>| {
            let counts =
                names.iter().map(|n| movement.nodes().iter().position(|x| x == n).map_or(0, |i| load[i])).collect();
            LoadReport::from_counts(names.to_vec(), counts)
        };
        let load_before = load_on(before.nodes(), movement.load_before())?;
        let load_after = load_on(after.nodes(), movement.load_after())?;
        Ok(Change {
            scheme,
            key_set: keys.keys().clone(),
            keys: keys.len() as u64,
            prefix: (!keys.keys().is_listed()).then(|| keys.keys().prefix().to_string()),
            width: keys.width(),
            before: before.nodes().to_vec(),
            after: after.nodes().to_vec(),
            params,
            movement,
            load_before,
            load_after,
        })
    }

    /// `"ring · 100,000 keys (user:0 … user:99999) · md5 mod 2^32 · {detail}"`
    /// and the two node lists.
    pub fn header(&self, name: &str, detail: &str) -> String {
        let mut s = format!("{name} · {} · {}", self.key_set, self.width);
        if !detail.is_empty() {
            let _ = write!(s, " · {detail}");
        }
        let _ = write!(s, "\nbefore: {}\nafter:  {}", describe(&self.before), describe(&self.after));
        s
    }

    /// The header, the movement and both loads, as the library prints them.
    pub fn text(&self, name: &str, detail: &str) -> String {
        format!(
            "{}\n\n{}\n\nbefore — {}\n\nafter — {}",
            self.header(name, detail),
            self.movement,
            self.load_before,
            self.load_after
        )
    }
}

/// `"3 nodes: A, B, C"`, or the first and last few of a long list.
pub fn describe(names: &[String]) -> String {
    let n = names.len();
    let list = if n <= 12 {
        names.join(", ")
    } else {
        format!("{}, … {}", names[..3].join(", "), names[n - 2..].join(", "))
    };
    format!("{n} node{}: {list}", if n == 1 { "" } else { "s" })
}
