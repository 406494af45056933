//! Exercise: fixed shards' rebalance onto one new node, the shard stealing
//! of document `004` ("DDIA Ch. 7: `hash % N` moves 91% of keys to add one
//! node; fixed shards move 9%").
//!
//! The learner writes `rebalance(table, new_node, rng)`: `table[s]` is the
//! node (0 … `new_node − 1`) of shard `s`, and the answer is the table after
//! node `new_node` joins. With S shards and N = `new_node + 1` nodes, every
//! node ends with ⌊S/N⌋ shards, and the S % N lowest-numbered nodes keep one
//! more (in every table checked here they are the nodes holding the most,
//! which is the crate's rule). Each old node, in order 0, 1, …, with more
//! than it keeps shuffles its shard list (ascending) with the one generator
//! `rng` and gives the first shards of the shuffled list to the new node; a
//! node with nothing to give does not shuffle. That is
//! [`FixedShards::rebalance_to`] growing by one node.
//!
//! ```
//! use reshard::tutor::exercises;
//! use reshard::PyRandom;
//! fn rebalance(table: &[usize], new_node: usize, rng: &mut PyRandom) -> Vec<usize> {
//!     let (s, n) = (table.len(), new_node + 1);
//!     let mut out = table.to_vec();
//!     for old in 0..new_node {
//!         let mut mine: Vec<usize> = (0..s).filter(|&x| table[x] == old).collect();
//!         let keep = s / n + usize::from(old < s % n);
//!         if mine.len() > keep {
//!             rng.shuffle(&mut mine);
//!             for &shard in &mine[..mine.len() - keep] {
//!                 out[shard] = new_node;
//!             }
//!         }
//!     }
//!     out
//! }
//! let report = exercises::shard_rebalance(rebalance);
//! assert!(report.passed(), "{report}");
//! ```

use std::fmt;

use super::Report;
use crate::schemes::{numbered, FixedShards, NodeId};
use crate::PyRandom;

/// The tables checked, edge cases first: (shards S, old nodes, seed, grown
/// from the layout by one node first). Every table starts as shard `s` on
/// node `s % old`; "grown" tables are the crate's rebalance of that.
const CASES: [(usize, usize, u64, bool); 14] = [
    (2, 1, 42, false),     // one node; shards == nodes after
    (7, 1, 42, false),     // one node, an odd shard count
    (4, 3, 42, false),     // shards == nodes after
    (11, 10, 42, false),   // shards == nodes after, ten nodes
    (10, 3, 42, false),    // shards not divisible by nodes, before or after
    (13, 5, 42, false),    // node 0 gives nothing yet holds 3 shards: it must not shuffle
    (1000, 10, 42, false), // document 004
    (1000, 10, 42, true),  // 11 → 12 nodes, from document 004's 11-node table
    (100, 7, 7, false),
    (64, 4, 2026, false),
    (500, 8, 1, false),
    (997, 3, 0, false),
    (256, 16, 42, true),
    (60, 6, 5, true),
];

/// One answer to compare: the size of the table, or a shard's node.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Answer {
    /// How many shards the table has.
    Shards(usize),
    /// The node of one shard (`None`: the table has no entry for it).
    Node(Option<usize>),
}

impl fmt::Debug for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Shards(n) => write!(f, "a table of {n} shards"),
            Answer::Node(Some(n)) => write!(f, "node {n}"),
            Answer::Node(None) => write!(f, "no entry"),
        }
    }
}

/// One table to rebalance and the crate's answer.
struct Table {
    before: Vec<usize>,
    after: Vec<usize>,
    seed: u64,
}

fn to_ids(table: &[usize]) -> Vec<NodeId> {
    table.iter().map(|&n| n as NodeId).collect()
}

/// The crate's table after node `nodes` joins `table` (nodes 0 … nodes − 1).
fn grown(table: &[usize], nodes: usize, seed: u64) -> crate::Result<Vec<usize>> {
    let before = FixedShards::from_table(numbered(nodes)?, to_ids(table))?.with_seed(seed);
    let after = before.rebalance_to(numbered(nodes + 1)?)?;
    Ok(after.table().iter().map(|&n| n as usize).collect())
}

fn tables() -> Vec<Table> {
    let build = |&(shards, old, seed, twice): &(usize, usize, u64, bool)| -> crate::Result<Table> {
        let mut before: Vec<usize> = (0..shards).map(|s| s % old).collect();
        let mut nodes = old;
        if twice {
            before = grown(&before, nodes, seed)?;
            nodes += 1;
        }
        let after = grown(&before, nodes, seed)?;
        Ok(Table { before, after, seed })
    };
    // The cases are fixed and valid, so every one builds.
    CASES.iter().filter_map(|c| build(c).ok()).collect()
}

/// Check a learner's `rebalance(table, new_node, rng)` against
/// [`FixedShards::rebalance_to`] on thousands of shards: tables of 1 to 17
/// nodes, edge cases first (one node, as many shards as nodes after,
/// shard counts not divisible by the node count, an old node that holds
/// more than one shard and gives none), then document `004`'s 1000 shards,
/// 10 → 11 and on to 12. `rng` is a fresh `PyRandom::new(seed)` for each
/// table. The report names the first shard whose node differs (or a table
/// of the wrong size), with both answers; a panic in the learner's function
/// is reported, not raised.
pub fn shard_rebalance<F>(mut rebalance: F) -> Report
where
    F: FnMut(&[usize], usize, &mut PyRandom) -> Vec<usize>,
{
    let tables = tables();
    // (table, None: the size check, Some(s): shard s), in order.
    let items: Vec<(usize, Option<usize>)> = tables
        .iter()
        .enumerate()
        .flat_map(|(t, tb)| std::iter::once((t, None)).chain((0..tb.before.len()).map(move |s| (t, Some(s)))))
        .collect();
    let describe = |t: usize, what: Option<usize>| {
        let tb = &tables[t];
        let old = tb.before.iter().max().map_or(0, |&m| m + 1);
        let case = format!("{} shards, {old} → {} nodes, seed {}", tb.before.len(), old + 1, tb.seed);
        match what {
            None => format!("{case}: the size of the table"),
            Some(s) => format!("{case}: shard {s} (on node {} before)", tb.before[s]),
        }
    };
    let cases: Vec<(String, Answer)> = items
        .iter()
        .map(|&(t, what)| {
            let expected = match what {
                None => Answer::Shards(tables[t].after.len()),
                Some(s) => Answer::Node(Some(tables[t].after[s])),
            };
            (describe(t, what), expected)
        })
        .collect();
    let mut answers: Vec<Option<Vec<usize>>> = vec![None; tables.len()];
    Report::compare("fixed shards' rebalance onto a new node", cases, |i| {
        let (t, what) = items[i];
        let tb = &tables[t];
        let yours = answers[t].get_or_insert_with(|| {
            let new_node = tb.before.iter().max().map_or(0, |&m| m + 1);
            rebalance(&tb.before, new_node, &mut PyRandom::new(tb.seed))
        });
        match what {
            None => Answer::Shards(yours.len()),
            Some(s) => Answer::Node(yours.get(s).copied()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document's loop, in the learner's words (not the crate's code): each old node in
    /// order, with its shards ascending, hands to the new node the shards `give` picks, given how
    /// many it keeps. The model and each wrong version below differ only in `give`.
    fn stealing(
        give: impl Fn(Vec<usize>, usize, &mut PyRandom) -> Vec<usize>,
    ) -> impl Fn(&[usize], usize, &mut PyRandom) -> Vec<usize> {
        move |table: &[usize], new_node: usize, rng: &mut PyRandom| {
            let (s, n) = (table.len(), new_node + 1);
            let mut out = table.to_vec();
            for old in 0..new_node {
                let mine: Vec<usize> = (0..s).filter(|&x| table[x] == old).collect();
                let keep = s / n + usize::from(old < s % n);
                for shard in give(mine, keep, rng) {
                    out[shard] = new_node;
                }
            }
            out
        }
    }

    /// The rule: a node with shards to spare shuffles them and gives the first ones.
    fn model(table: &[usize], new_node: usize, rng: &mut PyRandom) -> Vec<usize> {
        stealing(|mut mine, keep, rng| {
            if mine.len() <= keep {
                return Vec::new();
            }
            rng.shuffle(&mut mine);
            mine.truncate(mine.len() - keep);
            mine
        })(table, new_node, rng)
    }

    #[test]
    fn the_model_passes_on_thousands_of_shards() {
        let r = shard_rebalance(model);
        assert!(r.passed(), "{r}");
        // 14 tables: their shards plus one size check each, counted by hand
        let shards = 2 + 7 + 4 + 11 + 10 + 13 + 1000 + 1000 + 100 + 64 + 500 + 997 + 256 + 60;
        assert_eq!(r.inputs(), shards + 14);
    }

    #[test]
    fn the_checked_answers_are_pythons() {
        // python3: the document's procedure with random.Random(42) (shuffle each
        // old node's ascending list, give the first ones to the new node)
        let t = tables();
        assert_eq!(t[0].after, [0, 1]);
        assert_eq!(t[1].after, [0, 1, 0, 1, 1, 0, 0]);
        assert_eq!(t[2].after, [0, 1, 2, 3]);
        assert_eq!(t[4].after, [0, 1, 2, 0, 1, 3, 3, 1, 2, 0]);
        assert_eq!(t[5].after, [0, 1, 2, 3, 4, 0, 5, 2, 3, 4, 0, 1, 5]);
        let node_0: Vec<usize> = (0..1000).filter(|&s| s % 10 == 0 && t[6].after[s] == 10).collect();
        assert_eq!(node_0, [10, 90, 150, 410, 420, 500, 650, 700, 910]);
        // python3: 11 → 12 from that table moves 83 shards, the first of them these
        let to_12: Vec<usize> = (0..1000).filter(|&s| t[7].after[s] == 11).collect();
        assert_eq!(to_12.len(), 83);
        assert_eq!(to_12[..6], [15, 18, 20, 21, 28, 52]);
    }

    #[test]
    fn taking_from_the_wrong_end_fails_at_the_first_shard() {
        let wrong = stealing(|mut mine, keep, rng| {
            if mine.len() <= keep {
                return Vec::new();
            }
            rng.shuffle(&mut mine);
            mine.split_off(keep) // the last ones instead of the first
        });
        let r = shard_rebalance(wrong);
        assert!(!r.passed());
        // python3: random.Random(42) shuffles [0, 1] to [1, 0]: shard 1 moves, shard 0 stays
        let d = r.difference().cloned().unwrap_or_else(|| panic!("no difference in {r}"));
        assert_eq!(d.input, "2 shards, 1 → 2 nodes, seed 42: shard 0 (on node 0 before)");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("node 1", "node 0"));
        assert_eq!(d.agreed_before, 1);
    }

    #[test]
    fn taking_one_too_many_fails() {
        let wrong = stealing(|mut mine, keep, rng| {
            if mine.len() <= keep {
                return Vec::new();
            }
            rng.shuffle(&mut mine);
            mine.truncate(mine.len() - keep + 1); // one more than it spares
            mine
        });
        let r = shard_rebalance(wrong);
        // [1, 0] both go: shard 0 is the first difference
        let d = r.difference().cloned().unwrap_or_else(|| panic!("no difference in {r}"));
        assert_eq!(d.input, "2 shards, 1 → 2 nodes, seed 42: shard 0 (on node 0 before)");
        assert!(r.to_string().contains("yours node 1, the crate's node 0"), "{r}");
    }

    #[test]
    fn shuffling_a_node_that_gives_nothing_fails_where_python_says() {
        let wrong = stealing(|mut mine, keep, rng| {
            rng.shuffle(&mut mine); // even when it has nothing to give
            mine.truncate(mine.len().saturating_sub(keep));
            mine
        });
        let r = shard_rebalance(wrong);
        // python3, shuffling every node: [0, 1, 2, 3, 4, 0, 1, 5, 3, 4, 0, 5, 2]
        // against the document's rule:    [0, 1, 2, 3, 4, 0, 5, 2, 3, 4, 0, 1, 5]
        let d = r.difference().cloned().unwrap_or_else(|| panic!("no difference in {r}"));
        assert_eq!(d.input, "13 shards, 5 → 6 nodes, seed 42: shard 6 (on node 1 before)");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("node 1", "node 5"));
    }

    #[test]
    fn a_table_of_the_wrong_size_or_a_stub_is_reported() {
        let r = shard_rebalance(|table: &[usize], _, _: &mut PyRandom| table[1..].to_vec());
        assert!(r.to_string().contains("the size of the table: yours a table of 1 shards"), "{r}");
        let r = shard_rebalance(|_: &[usize], _, _: &mut PyRandom| -> Vec<usize> { todo!("write rebalance") });
        assert!(!r.passed());
        assert!(r.to_string().contains("panicked: not yet implemented: write rebalance"), "{r}");
    }
}
