//! Secondary indexes against brute force written here: every row's node by
//! a linear count of the boundaries at or below its key, every posting
//! spelled out as `format!("{t}/{k}")` and placed the same way, a query's
//! ranges as the intervals that meet `[t/, t0)`, its rows by filtering
//! every row; and every error.

use crate::common;
use common::expect_err;
use proptest::prelude::*;
use reshard::analysis::{GlobalIndex, IndexKind, LocalIndex, Rows};
use reshard::prelude::*;

/// The range of `key`: the boundaries at or below it.
fn linear(bounds: &[Vec<u8>], key: &[u8]) -> usize {
    bounds.iter().filter(|b| b.as_slice() <= key).count()
}

/// The ranges whose `[L, U)` meets `[lo, hi)` (−∞ is the empty key).
fn meets(bounds: &[Vec<u8>], lo: &[u8], hi: &[u8]) -> Vec<usize> {
    (0..=bounds.len())
        .filter(|&i| {
            let start = i.checked_sub(1).map_or(&[][..], |j| bounds[j].as_slice()).max(lo);
            let end = bounds.get(i).map_or(hi, |u| u.as_slice().min(hi));
            start < end
        })
        .collect()
}

/// A table of rows, its layouts and the plain data the brute force reads.
#[derive(Debug, Clone)]
struct Case {
    keys: Vec<String>,
    attrs: Vec<(String, Vec<String>)>,
    row_bounds: Vec<Vec<u8>>,
    row_nodes: Vec<String>,
    term_bounds: Vec<Vec<u8>>,
    term_nodes: Vec<String>,
}

impl Case {
    fn rows(&self) -> Rows {
        let mut r = Rows::new(&KeySet::from_keys(&self.keys).unwrap()).unwrap();
        for (a, v) in &self.attrs {
            r = r.with_attribute(a, v).unwrap();
        }
        r
    }
    fn row_layout(&self) -> KeyRanges {
        KeyRanges::named(self.row_nodes.clone()).unwrap().with_boundaries(&self.row_bounds).unwrap()
    }
    fn term_layout(&self) -> KeyRanges {
        KeyRanges::named(self.term_nodes.clone()).unwrap().with_boundaries(&self.term_bounds).unwrap()
    }
    /// The node (name) of row key `k`: range `i` is on node `i % N`.
    fn row_node(&self, k: &str) -> String {
        self.row_nodes[linear(&self.row_bounds, k.as_bytes()) % self.row_nodes.len()].clone()
    }
    fn posting_range(&self, p: &str) -> usize {
        linear(&self.term_bounds, p.as_bytes())
    }
    fn term_node(&self, range: usize) -> String {
        self.term_nodes[range % self.term_nodes.len()].clone()
    }
}

fn sorted_distinct(mut v: Vec<String>) -> Vec<Vec<u8>> {
    v.sort();
    v.dedup();
    v.retain(|b| !b.is_empty());
    v.into_iter().map(String::into_bytes).collect()
}

/// Small tables over few values, with term boundaries drawn from the
/// postings themselves (so that some cut a term) and from the terms.
fn case() -> impl Strategy<Value = Case> {
    let values = prop::sample::select(vec!["red", "blue", "re", "r", "green"]);
    (1usize..40, 1usize..4, 1usize..5, 1usize..5, prop::collection::vec(0usize..1000, 0..6), any::<u64>())
        .prop_flat_map(move |(n, k, rn, tn, cuts, seed)| {
            (prop::collection::vec(prop::collection::vec(values.clone(), n), k), Just((n, rn, tn, cuts, seed)))
        })
        .prop_map(|(vals, (n, rn, tn, cuts, seed))| {
            let keys: Vec<String> = (0..n).map(|i| format!("item:{}", (i as u64 * 7919 + seed % 97) % 1000)).collect();
            let mut keys = keys;
            keys.sort();
            keys.dedup();
            let names = ["colour", "make", "colour2"];
            let attrs: Vec<(String, Vec<String>)> = vals
                .into_iter()
                .enumerate()
                .map(|(j, v)| (names[j].to_string(), v.into_iter().take(keys.len()).map(String::from).collect()))
                .collect();
            let row_bounds = sorted_distinct(cuts.iter().map(|c| format!("item:{c}")).collect());
            let mut postings: Vec<String> = Vec::new();
            for (a, v) in &attrs {
                for (k, x) in keys.iter().zip(v) {
                    postings.push(format!("{a}:{x}/{k}"));
                }
            }
            let mut tb: Vec<String> = cuts.iter().map(|&c| postings[c % postings.len()].clone()).collect();
            tb.push(format!("colour:{}", ["re", "red/", "green0"][(seed % 3) as usize]));
            let term_bounds = sorted_distinct(tb);
            Case {
                keys,
                attrs,
                row_bounds,
                row_nodes: (0..rn).map(|i| format!("N{i}")).collect(),
                term_bounds,
                term_nodes: (0..tn).map(|i| ["N0", "T1", "T2", "N3"][i].to_string()).collect(),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn local_index_against_brute_force(c in case(), pick in 0usize..5) {
        let (rows, layout) = (c.rows(), c.row_layout());
        let local = LocalIndex::build(&rows, &layout).unwrap();
        for (i, node) in c.row_nodes.iter().enumerate() {
            let mine = c.keys.iter().filter(|k| &c.row_node(k) == node).count() as u64;
            prop_assert_eq!(local.rows_per_node()[i], mine);
            prop_assert_eq!(local.entries_per_node()[i], mine * c.attrs.len() as u64);
        }
        let (attr, vals) = &c.attrs[pick % c.attrs.len()];
        let value = ["red", "blue", "re", "r", "green"][pick];
        let q = local.query(attr, value).unwrap();
        prop_assert_eq!(q.kind(), IndexKind::Local);
        // every node owning a range (range i on node i % N), in node order
        let owning: Vec<&String> =
            c.row_nodes.iter().enumerate().filter(|(i, _)| *i <= c.row_bounds.len()).map(|(_, n)| n).collect();
        prop_assert_eq!(q.index_step().iter().map(|r| &r.node).collect::<Vec<_>>(), owning.clone());
        for r in q.index_step() {
            let hits = c.keys.iter().zip(vals).filter(|(k, v)| *v == value && c.row_node(k) == r.node).count();
            prop_assert_eq!((r.rows, r.entries), (hits as u64, hits as u64));
        }
        prop_assert!(q.fetch_step().is_empty());
        prop_assert_eq!(q.matches(), vals.iter().filter(|v| *v == value).count() as u64);
        // an insert writes its own node only
        let values: Vec<&str> = c.attrs.iter().map(|_| value).collect();
        let w = local.insert("item:new", &values).unwrap();
        prop_assert_eq!(w.nodes(), vec![c.row_node("item:new")]);
        prop_assert_eq!(w.entries(), c.attrs.len());
    }

    #[test]
    fn global_index_against_brute_force(c in case(), pick in 0usize..5) {
        let (rows, layout, terms) = (c.rows(), c.row_layout(), c.term_layout());
        let g = GlobalIndex::build(&rows, &layout, &terms).unwrap();
        // postings per range: every posting spelled out and placed
        let mut per_range = vec![0u64; c.term_bounds.len() + 1];
        for (a, v) in &c.attrs {
            for (k, x) in c.keys.iter().zip(v) {
                per_range[c.posting_range(&format!("{a}:{x}/{k}"))] += 1;
            }
        }
        prop_assert_eq!(g.postings_per_range(), per_range.as_slice());
        let (attr, vals) = &c.attrs[pick % c.attrs.len()];
        let value = ["red", "blue", "re", "r", "green"][pick];
        let t = format!("{attr}:{value}");
        let q = g.query(attr, value).unwrap();
        // the postings step: the ranges meeting [t/, t0), grouped by node
        let touched = meets(&c.term_bounds, format!("{t}/").as_bytes(), format!("{t}0").as_bytes());
        let mut expect: Vec<(String, Vec<usize>, u64)> = Vec::new();
        for n in &c.term_nodes {
            let mine: Vec<usize> = touched.iter().copied().filter(|&r| &c.term_node(r) == n).collect();
            if mine.is_empty() {
                continue;
            }
            let postings = c.keys.iter().zip(vals)
                .filter(|(k, v)| *v == value && mine.contains(&c.posting_range(&format!("{t}/{k}"))))
                .count() as u64;
            expect.push((n.clone(), mine, postings));
        }
        let got: Vec<(String, Vec<usize>, u64)> =
            q.index_step().iter().map(|r| (r.node.clone(), r.ranges.clone(), r.entries)).collect();
        prop_assert_eq!(got, expect);
        // the fetch: each row node holding a matching row, in node order
        let mut fetch: Vec<(String, u64)> = Vec::new();
        for n in &c.row_nodes {
            let hits = c.keys.iter().zip(vals).filter(|(k, v)| *v == value && &c.row_node(k) == n).count() as u64;
            if hits > 0 {
                fetch.push((n.clone(), hits));
            }
        }
        let got: Vec<(String, u64)> = q.fetch_step().iter().map(|r| (r.node.clone(), r.rows)).collect();
        prop_assert_eq!(got, fetch);
        // an insert: its row's node, then each term's postings node, each once
        let values: Vec<&str> = (0..c.attrs.len()).map(|j| ["red", "r", "blue"][(pick + j) % 3]).collect();
        let w = g.insert("item:new", &values).unwrap();
        let mut written = vec![c.row_node("item:new")];
        for ((a, _), v) in c.attrs.iter().zip(&values) {
            let node = c.term_node(c.posting_range(&format!("{a}:{v}/item:new")));
            if !written.contains(&node) {
                written.push(node);
            }
        }
        prop_assert_eq!(w.nodes(), written.iter().map(String::as_str).collect::<Vec<_>>());
        let entries: Vec<String> = w.writes().iter().flat_map(|x| x.entries.clone()).collect();
        let mut want: Vec<String> = c.attrs.iter().zip(&values).map(|((a, _), v)| format!("{a}:{v}/item:new")).collect();
        let mut got = entries;
        want.sort();
        got.sort();
        prop_assert_eq!(got, want);
        prop_assert_eq!(w.writes()[0].row.as_deref(), Some("item:new"));
        prop_assert!(w.writes()[1..].iter().all(|x| x.row.is_none()));
    }
}

#[test]
fn a_term_cut_by_a_boundary_is_read_from_two_shards() {
    let rows = Rows::new(&KeySet::new("item:", 100))
        .unwrap()
        .with_attribute("colour", (0..100).map(|i| if i % 2 == 0 { "red" } else { "blue" }))
        .unwrap();
    let by_key = KeyRanges::named(letters("AB")).unwrap().with_boundaries(["item:5"]).unwrap();
    // "colour:red/item:5" cuts red's postings: item:0 … item:48 below it (by bytes), the rest above
    let by_term = KeyRanges::named(letters("XY")).unwrap().with_boundaries(["colour:red/item:5"]).unwrap();
    let g = GlobalIndex::build(&rows, &by_key, &by_term).unwrap();
    let q = g.query("colour", "red").unwrap();
    let below = (0..100).filter(|i| i % 2 == 0 && format!("item:{i}").as_str() < "item:5").count() as u64;
    let got: Vec<(&str, u64)> = q.index_step().iter().map(|r| (r.node.as_str(), r.entries)).collect();
    assert_eq!(got, [("X", below), ("Y", 50 - below)]);
    assert_eq!(q.requests(), 4);
    let blue = g.query("colour", "blue").unwrap();
    assert_eq!(blue.index_step().len(), 1);
    let cut: Vec<String> = g.terms().into_iter().filter(|t| t.nodes.len() == 2).map(|t| t.term).collect();
    assert_eq!(cut, ["colour:red"]);
    // a boundary between two terms' intervals cuts neither
    let clean = KeyRanges::named(letters("XY")).unwrap().with_boundaries(["colour:red"]).unwrap();
    let g = GlobalIndex::build(&rows, &by_key, &clean).unwrap();
    assert!(g.terms().iter().all(|t| t.ranges.len() == 1));
    assert_eq!(g.postings_per_node(), [50, 50]);
}

#[test]
fn rows_under_hash_ranges_are_placed_by_their_hash() {
    let rows =
        Rows::new(&KeySet::new("k", 500)).unwrap().with_attribute("c", (0..500).map(|i| ["a", "b"][i % 2])).unwrap();
    let h = HashRanges::named(letters("ABC")).unwrap().with_even_split(6).unwrap();
    let local = LocalIndex::build(&rows, &h).unwrap();
    let mut per = [0u64; 3];
    for k in KeySet::new("k", 500).iter() {
        per[h.locate(Key::new(&k, HashWidth::Bits32)) as usize] += 1;
    }
    assert_eq!(local.rows_per_node(), per);
    assert_eq!(local.query("c", "a").unwrap().requests(), 3);
}

#[test]
fn bad_rows_and_inserts_say_what_to_change() {
    let keys = KeySet::from_keys(["a", "b", "a"]).unwrap();
    expect_err(
        "Rows::new(a, b, a)",
        || Rows::new(&keys),
        |e| *e == Error::DuplicateKey { key: "a".into(), first: 0, second: 2 },
        "appears twice",
    );
    expect_err("Rows::new(empty)", || Rows::new(&KeySet::new("k", 0)), |e| *e == Error::NoKeys, "empty");
    // Numbered keys over the 20,000,000 keys a call holds (limits::MAX_KEYS) are refused at once, as
    // the docs say: 2^64 − 1 of them were accepted, and with_attributes then called its closure for each.
    for n in [usize::MAX, 20_000_001] {
        expect_err(
            "Rows::new(KeySet::plain(n))",
            || Rows::new(&KeySet::plain(n)),
            |e| matches!(e, Error::TooLarge { what: "keys held in memory", asked, limit: 20_000_000, .. } if *asked == n as u128),
            "20,000,000",
        );
    }
    // and their bytes: 10,000 keys of a 1 MB prefix are 10 GB, over limits::MAX_KEY_BYTES (1 GB)
    let long = "x".repeat(1 << 20);
    expect_err(
        "Rows::new(KeySet::new(1 MB prefix, 10,000))",
        || Rows::new(&KeySet::new(&long, 10_000)),
        |e| matches!(e, Error::TooLarge { what: "bytes of keys (keys × their length)", .. }),
        "1,000,000,000",
    );
    let rows = || Rows::new(&KeySet::new("k", 3)).unwrap();
    expect_err(
        "with_attribute(2 values)",
        || rows().with_attribute("c", ["x", "y"]),
        |e| *e == Error::LengthMismatch { what: "values for rows", expected: 3, given: 2 },
        "exactly one",
    );
    expect_err(
        "with_attribute(endless)",
        || rows().with_attribute("c", std::iter::repeat("x")),
        |e| *e == Error::LengthMismatch { what: "values for rows", expected: 3, given: 4 },
        "exactly one",
    );
    for (name, ch) in [("a:b", ':'), ("a/b", '/')] {
        expect_err(
            "with_attribute(name with a separator)",
            || rows().with_attribute(name, ["x"; 3]),
            |e| *e == Error::ReservedChar { what: "attribute name", text: name.into(), ch },
            "another character",
        );
    }
    expect_err(
        "with_attribute(value with /)",
        || rows().with_attribute("c", ["x", "y/z", "x"]),
        |e| *e == Error::ReservedChar { what: "value", text: "y/z".into(), ch: '/' },
        "separates",
    );
    expect_err(
        "with_attribute(\"\")",
        || rows().with_attribute("", ["x"; 3]),
        |e| matches!(e, Error::OutOfRange { .. }),
        "colour",
    );
    expect_err(
        "with_attribute twice",
        || rows().with_attribute("c", ["x"; 3]).unwrap().with_attribute("c", ["y"; 3]),
        |e| *e == Error::DuplicateAttribute("c".into()),
        "once",
    );
    let r = rows().with_attribute("c", ["x"; 3]).unwrap();
    let layout = KeyRanges::new(2).unwrap();
    let local = LocalIndex::build(&r, &layout).unwrap();
    let global = GlobalIndex::build(&r, &layout, &layout).unwrap();
    expect_err(
        "query on an attribute not indexed",
        || local.query("size", "x"),
        |e| matches!(e, Error::UnknownName { what: "attribute", .. }),
        "\"c\"",
    );
    expect_err(
        "global query, unknown",
        || global.query("size", "x"),
        |e| matches!(e, Error::UnknownName { .. }),
        "\"c\"",
    );
    expect_err(
        "insert of a key already there",
        || global.insert("k1", ["x"]),
        |e| *e == Error::DuplicateKey { key: "k1".into(), first: 1, second: 3 },
        "twice",
    );
    expect_err(
        "insert with two values for one attribute",
        || local.insert("k9", ["x", "y"]),
        |e| *e == Error::LengthMismatch { what: "values for attributes", expected: 1, given: 2 },
        "exactly one",
    );
    expect_err(
        "insert of a value with /",
        || global.insert("k9", ["a/b"]),
        |e| matches!(e, Error::ReservedChar { .. }),
        "/",
    );
    // a value no row has matches nothing, but the router still asks
    let q = global.query("c", "nothing").unwrap();
    assert_eq!((q.matches(), q.index_step().len(), q.fetch_step().len()), (0, 1, 0));
}
