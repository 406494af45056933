//! Exercise: the rendezvous owner. Every node scores a key with the hash of
//! `"{key}:{node}"`; the highest score wins, and a tie goes to the node
//! listed first (the lower index, as [`Rendezvous`] breaks it, and as
//! Python's `max` over the list does).
//!
//! The learner writes
//! `fn rendezvous_owner(key: &str, nodes: &[String], hash: fn(&str) -> u128) -> usize`
//! (the index of the owner in `nodes`), and [`rendezvous_owner`] runs it on
//! thousands of keys beside the crate's [`Rendezvous`], edge cases first:
//! one node, scores that tie at 32 bits (md5 mod 2^32) with the names listed
//! both ways round, names whose order as strings ("10" < "9") differs from
//! their order in the list, an empty key and a long one.
//!
//! ```
//! use reshard::tutor::exercises;
//! fn owner(key: &str, nodes: &[String], hash: fn(&str) -> u128) -> usize {
//!     let score = |i: usize| hash(&format!("{key}:{}", nodes[i]));
//!     (0..nodes.len()).fold(0, |best, i| if score(i) > score(best) { i } else { best })
//! }
//! assert!(exercises::rendezvous_owner(owner).passed());
//! ```

use crate::schemes::{Key, Locate, Rendezvous};
use crate::tutor::exercises::Report;
use crate::HashWidth;

/// md5 of the string as one 128-bit big-endian integer (document `002`).
fn md5_full(s: &str) -> u128 {
    HashWidth::Bits128.hash(s.as_bytes())
}

/// md5 of the string mod 2^32: ties between two nodes become findable.
fn md5_low32(s: &str) -> u128 {
    HashWidth::Bits32.hash(s.as_bytes())
}

/// Two node names whose md5 mod 2^32 scores tie for the key `"tie"` (both
/// 0xe4dcae57), found with python3 by hashing `"tie:0"` … `"tie:399999"`.
/// As numbers 4312 < 170468; as strings "170468" < "4312".
const TIE: (&str, &str) = ("4312", "170468");
/// Another tie for `"tie"` (both 0xfa7e9cc3), same search.
const TIE_HIGH: (&str, &str) = ("226970", "355022");
/// A tie for `"tie"` (both 0x0e28995b) that node "10" (0xf744232a) beats.
const TIE_LOW: (&str, &str) = ("9719", "262220");
/// A tie for `"key0"` (both 0x68b4b8f8), found the same way.
const TIE_KEY0: (&str, &str) = ("6542", "43301");

/// One input: a key, the node list in its order, the hash's width.
struct Case {
    key: String,
    nodes: Vec<String>,
    width: HashWidth,
}

impl Case {
    fn new(key: impl Into<String>, nodes: &[&str], width: HashWidth) -> Case {
        Case { key: key.into(), nodes: nodes.iter().map(|n| n.to_string()).collect(), width }
    }

    fn numbered(key: impl Into<String>, n: usize, width: HashWidth) -> Case {
        Case { key: key.into(), nodes: (0..n).map(|i| i.to_string()).collect(), width }
    }

    /// `key "tie" on ["4312" 0xe4dcae57, "170468" 0xe4dcae57] (md5 mod 2^32)`:
    /// a short list at 32 bits shows each score, so a tie can be seen.
    fn describe(&self) -> String {
        let mut key: String = self.key.chars().take(24).collect();
        if key.len() < self.key.len() {
            key.push('…');
        }
        let name = |n: &String| match self.width {
            HashWidth::Bits32 if self.nodes.len() <= 5 => {
                format!("{n:?} {:#010x}", md5_low32(&format!("{}:{n}", self.key)))
            }
            _ => format!("{n:?}"),
        };
        let nodes = if self.nodes.len() <= 5 {
            self.nodes.iter().map(name).collect::<Vec<_>>().join(", ")
        } else {
            let last = &self.nodes[self.nodes.len() - 1];
            format!(
                "{}, {}, …, {} ({} nodes)",
                name(&self.nodes[0]),
                name(&self.nodes[1]),
                name(last),
                self.nodes.len()
            )
        };
        format!("key {key:?} on [{nodes}] ({})", self.width)
    }

    fn hash(&self) -> fn(&str) -> u128 {
        match self.width {
            HashWidth::Bits32 => md5_low32,
            HashWidth::Bits128 => md5_full,
        }
    }
}

/// The inputs, edge cases first, then the bulk.
fn cases() -> Vec<Case> {
    use HashWidth::{Bits128, Bits32};
    let mut cases = vec![
        Case::new("key0", &["0"], Bits128),
        Case::new("tie", &["only"], Bits32),
        Case::new("tie", &[TIE.0, TIE.1], Bits32),
        Case::new("tie", &[TIE.1, TIE.0], Bits32),
        Case::new("tie", &["2", TIE.0, "9", "11", TIE.1], Bits32),
        Case::new("tie", &[TIE_HIGH.0, TIE_HIGH.1], Bits32),
        Case::new("tie", &[TIE_HIGH.1, "0", TIE_HIGH.0], Bits32),
        Case::new("tie", &[TIE_LOW.0, TIE_LOW.1, "10"], Bits32),
        Case::new("key0", &[TIE_KEY0.0, TIE_KEY0.1], Bits32),
        Case::new("key0", &[TIE_KEY0.1, TIE_KEY0.0], Bits32),
        Case::numbered("", 11, Bits128),
        Case::numbered("k".repeat(200), 11, Bits128),
        Case::numbered("ключ", 11, Bits32),
    ];
    for (n, width, count) in [(10, Bits128, 2000), (11, Bits128, 2000), (11, Bits32, 1000)] {
        cases.extend((0..count).map(|i| Case::numbered(format!("key{i}"), n, width)));
    }
    let named = ["A", "B", "C", "D"];
    cases.extend((0..1000).map(|i| Case::new(format!("user:{i}"), &named, Bits32)));
    cases
}

/// Check a learner's rendezvous owner against the crate's [`Rendezvous`] on
/// 6,013 inputs, edge cases first (see the module docs). The learner's
/// function gets the key, the nodes in their order and the hash to score
/// `"{key}:{node}"` with, and returns the owner's index in `nodes`.
pub fn rendezvous_owner<F>(mut learner: F) -> Report
where
    F: FnMut(&str, &[String], fn(&str) -> u128) -> usize,
{
    let cases = cases();
    let expected = cases.iter().filter_map(|c| {
        let r = Rendezvous::named(c.nodes.iter().cloned()).ok()?;
        Some((c.describe(), r.locate(Key::new(&c.key, c.width)) as usize))
    });
    Report::compare("rendezvous owner", expected, |i| {
        let c = &cases[i];
        learner(&c.key, &c.nodes, c.hash())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model: the highest score wins; strictly greater, so the first
    /// listed keeps a tie.
    fn model(key: &str, nodes: &[String], hash: fn(&str) -> u128) -> usize {
        let score = |node: &String| hash(&format!("{key}:{node}"));
        let mut best = 0;
        for (i, node) in nodes.iter().enumerate().skip(1) {
            if score(node) > score(&nodes[best]) {
                best = i;
            }
        }
        best
    }

    #[test]
    fn the_model_passes_every_input() {
        let r = rendezvous_owner(model);
        assert!(r.passed(), "{r}");
        assert_eq!(r.inputs(), 13 + 2000 + 2000 + 1000 + 1000);
    }

    #[test]
    fn the_tied_scores_tie_in_the_crate_too() {
        // 0xe4dcae57 and 0xfa7e9cc3 are python3's int(md5(...).hexdigest(), 16) % 2**32
        let r = Rendezvous::named(["4312", "170468", "226970", "355022"]).unwrap();
        let key = Key::new("tie", HashWidth::Bits32);
        for (node, want) in
            [("4312", 0xe4dc_ae57), ("170468", 0xe4dc_ae57), ("226970", 0xfa7e_9cc3), ("355022", 0xfa7e_9cc3)]
        {
            assert_eq!(r.score(key, node).unwrap(), want, "{node}");
        }
        let key0 = Key::new("key0", HashWidth::Bits32);
        let r = Rendezvous::named([TIE_KEY0.0, TIE_KEY0.1]).unwrap();
        assert_eq!(r.score(key0, TIE_KEY0.0).unwrap(), 0x68b4_b8f8);
        assert_eq!(r.score(key0, TIE_KEY0.1).unwrap(), 0x68b4_b8f8);
    }

    #[test]
    fn a_tie_goes_to_the_node_listed_first_whatever_the_names() {
        // python3: max(range(5), key=lambda i: md5 mod 2**32 of "tie:" + nodes[i]) == 1
        let nodes = ["2", "4312", "9", "11", "170468"];
        let r = Rendezvous::named(nodes).unwrap();
        assert_eq!(r.locate(Key::new("tie", HashWidth::Bits32)), 1);
        let r = Rendezvous::named(["170468", "4312"]).unwrap();
        assert_eq!(r.locate(Key::new("tie", HashWidth::Bits32)), 0);
    }

    #[test]
    fn lowest_score_wins_fails_at_the_five_node_tie() {
        fn lowest(key: &str, nodes: &[String], hash: fn(&str) -> u128) -> usize {
            (0..nodes.len()).min_by_key(|&i| hash(&format!("{key}:{}", nodes[i]))).unwrap_or(0)
        }
        // one node, and two tied nodes, give the same answer either way; the
        // five-node tie is the first to tell (python3: the lowest is "2", index 0)
        let r = rendezvous_owner(lowest);
        let d = r.difference().expect("lowest score wins must fail");
        assert_eq!(d.agreed_before, 4, "{r}");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("0", "1"));
    }

    #[test]
    fn a_tie_to_the_later_node_fails_at_the_first_tie() {
        fn later(key: &str, nodes: &[String], hash: fn(&str) -> u128) -> usize {
            let score = |node: &String| hash(&format!("{key}:{node}"));
            let mut best = 0;
            for (i, node) in nodes.iter().enumerate().skip(1) {
                if score(node) >= score(&nodes[best]) {
                    best = i;
                }
            }
            best
        }
        let r = rendezvous_owner(later);
        let d = r.difference().expect("a tie to the later node must fail");
        assert_eq!(d.agreed_before, 2, "{r}");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("1", "0"));
        assert!(d.input.contains(r#"["4312" 0xe4dcae57, "170468" 0xe4dcae57]"#), "{r}");
    }

    #[test]
    fn a_tie_to_the_smaller_name_fails_where_string_order_differs() {
        fn by_name(key: &str, nodes: &[String], hash: fn(&str) -> u128) -> usize {
            let score = |i: usize| hash(&format!("{key}:{}", nodes[i]));
            // highest score, then the smaller name as a string
            (0..nodes.len()).max_by(|&a, &b| score(a).cmp(&score(b)).then(nodes[b].cmp(&nodes[a]))).unwrap_or(0)
        }
        let r = rendezvous_owner(by_name);
        let d = r.difference().expect("ties by name must fail");
        assert_eq!(d.agreed_before, 2, "{r}");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("1", "0"));
    }

    #[test]
    fn an_index_into_the_names_sorted_as_strings_fails() {
        // sorts the names as strings ("11" before "2") and answers the
        // position in that order: the five-node tie agrees by chance (the
        // tied pair sorts as "170468", "4312", and the first listed wins
        // either way); the three-node tie after it tells
        fn sorted(key: &str, nodes: &[String], hash: fn(&str) -> u128) -> usize {
            let mut names = nodes.to_vec();
            names.sort();
            model(key, &names, hash)
        }
        let r = rendezvous_owner(sorted);
        let d = r.difference().expect("an index into sorted names must fail");
        assert_eq!(d.agreed_before, 6, "{r}");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("1", "0"));
    }

    #[test]
    fn a_todo_stub_fails_on_the_first_input() {
        let r = rendezvous_owner(|_, _, _| todo!());
        let d = r.difference().unwrap();
        assert_eq!(d.agreed_before, 0);
        assert!(d.yours.contains("not yet implemented"), "{r}");
    }
}
