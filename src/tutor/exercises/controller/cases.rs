//! The sequences a check runs: every short one on small clusters, smallest
//! first, then seeded random ones, and the steps a failure is shrunk by.

use super::*;

/// One sequence: `shards` shards on nodes `0 … nodes − 1` (shard `s` on
/// node `s % nodes`), then `ops`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Case {
    pub(super) shards: usize,
    pub(super) nodes: usize,
    pub(super) ops: Vec<Op>,
}

pub(super) fn start(shards: usize, nodes: usize) -> Assignment {
    let nodes = nodes.max(1);
    Assignment { nodes: (0..nodes).collect(), shards: (0..shards).map(|s| s % nodes).collect() }
}

/// The order the shrinking follows among operations: joins, then leaves,
/// then moves, each by its ids.
pub(super) fn op_key(op: Op) -> (u8, usize, usize) {
    match op {
        Op::Join(n) => (0, n, 0),
        Op::Leave(n) => (1, n, 0),
        Op::Move(s, n) => (2, s, n),
    }
}

/// The operations before `op` in [`op_key`]'s order with ids below `ids`
/// and shards below `shards` (a shrink step tries each in its place).
pub(super) fn smaller_ops(op: Op, ids: usize, shards: usize) -> Vec<Op> {
    let every = (0..ids)
        .map(Op::Join)
        .chain((0..ids).map(Op::Leave))
        .chain((0..shards).flat_map(|s| (0..ids).map(move |n| Op::Move(s, n))));
    every.filter(|&o| op_key(o) < op_key(op)).collect()
}

/// The operations that apply to `a`, in a fixed order: joins (the smallest
/// unused id, then one past the largest), leaves, moves.
pub(super) fn valid_ops(a: &Assignment) -> Vec<Op> {
    let mut ops = Vec::new();
    for n in new_ids(a) {
        ops.push(Op::Join(n));
    }
    if a.nodes.len() > 1 {
        ops.extend(a.nodes.iter().map(|&n| Op::Leave(n)));
    }
    for s in 0..a.shards.len() {
        ops.extend(a.nodes.iter().map(|&n| Op::Move(s, n)));
    }
    ops
}

/// Operations that must be refused on `a`, one of each kind.
pub(super) fn bad_ops(a: &Assignment) -> Vec<Op> {
    let unused = new_ids(a);
    let mut ops: Vec<Op> = a.nodes.iter().map(|&n| Op::Join(n)).collect();
    ops.extend(unused.iter().map(|&n| Op::Leave(n)));
    if a.nodes.len() == 1 {
        ops.push(Op::Leave(a.nodes[0]));
    }
    if let Some(&n) = a.nodes.first() {
        ops.push(Op::Move(a.shards.len(), n));
    }
    if !a.shards.is_empty() {
        ops.push(Op::Move(0, unused[0]));
    }
    ops
}

/// Ids a new node could take: the smallest unused one and one past the largest.
pub(super) fn new_ids(a: &Assignment) -> Vec<usize> {
    let smallest = (0..).find(|n| !a.has(*n)).unwrap_or(0);
    let past = a.nodes.iter().max().map_or(0, |&m| m + 1);
    if smallest == past {
        vec![smallest]
    } else {
        vec![smallest, past]
    }
}

/// Does `case` fit the check: every operation but the last applies (the
/// last one too, unless the check is of errors)?
pub(super) fn well_formed(case: &Case, invariant: Invariant) -> bool {
    let mut a = start(case.shards, case.nodes);
    for (k, &op) in case.ops.iter().enumerate() {
        match nodes_after(&a, op) {
            Ok(nodes) => {
                if let Op::Move(s, n) = op {
                    a.shards[s] = n;
                }
                a.nodes = nodes;
            }
            Err(_) if invariant == Invariant::Errors && k + 1 == case.ops.len() => {}
            Err(_) => return false,
        }
    }
    !case.ops.is_empty()
}

/// Every sequence of one operation (up to 8 shards, 5 nodes) and of two
/// (up to 6 shards, 4 nodes), fewest operations first, then fewest shards,
/// then fewest nodes. With `bad`, each ends in a bad operation as well as
/// in every good one.
pub(super) fn small_cases(bad: bool) -> Vec<Case> {
    let mut cases = Vec::new();
    for (length, most_shards, most_nodes) in [(1, 8, 5), (2, 6, 4)] {
        for shards in 1..=most_shards {
            for nodes in 1..=most_nodes {
                let a = start(shards, nodes);
                let mut prefixes: Vec<(Vec<Op>, Assignment)> = vec![(Vec::new(), a)];
                for step in 0..length {
                    let last = step + 1 == length;
                    let mut next = Vec::new();
                    for (ops, a) in &prefixes {
                        let mut choices = valid_ops(a);
                        if bad && last {
                            choices.extend(bad_ops(a));
                        }
                        for op in choices {
                            let mut b = a.clone();
                            if let Ok(nodes) = nodes_after(a, op) {
                                if let Op::Move(s, n) = op {
                                    b.shards[s] = n;
                                }
                                b.nodes = nodes;
                            }
                            let mut ops = ops.clone();
                            ops.push(op);
                            next.push((ops, b));
                        }
                    }
                    prefixes = next;
                }
                cases.extend(prefixes.into_iter().map(|(ops, _)| Case { shards, nodes, ops }));
            }
        }
    }
    cases
}

/// Random sequences, seeded: up to 40·scale shards, 1 to 8·scale nodes at
/// the start (never more than 12·scale), 1 to 12·scale operations (joins
/// and leaves about as often, moves a little less; with `bad`, one in four
/// a bad operation).
pub(super) fn random_cases(seed: u64, scale: usize, bad: bool) -> Vec<Case> {
    let mut rng = PyRandom::new(seed);
    let mut below = |n: usize| rng.randbelow(n.clamp(1, u32::MAX as usize) as u32).unwrap_or(0) as usize;
    let count = RANDOM_SEQUENCES / scale;
    let mut cases = Vec::with_capacity(count);
    for _ in 0..count {
        let shards = 1 + below(40 * scale);
        let nodes = 1 + below(8 * scale);
        let length = 1 + below(12 * scale);
        let mut a = start(shards, nodes);
        let mut ops = Vec::with_capacity(length);
        while ops.len() < length {
            let op = if bad && below(4) == 0 {
                let choices = bad_ops(&a);
                choices[below(choices.len())]
            } else {
                match below(10) {
                    0..=3 if a.nodes.len() < 12 * scale => {
                        let ids = new_ids(&a);
                        Op::Join(if below(2) == 0 { ids[0] } else { ids[ids.len() - 1] + below(3) })
                    }
                    0..=6 if a.nodes.len() > 1 => Op::Leave(a.nodes[below(a.nodes.len())]),
                    _ => Op::Move(below(shards), a.nodes[below(a.nodes.len())]),
                }
            };
            if let Ok(nodes) = nodes_after(&a, op) {
                if let Op::Move(s, n) = op {
                    a.shards[s] = n;
                }
                a.nodes = nodes;
            }
            ops.push(op);
        }
        cases.push(Case { shards, nodes, ops });
    }
    cases
}
