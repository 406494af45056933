//! What each invariant asks of one step: the nodes after an operation, and
//! whether an answer is well-shaped, balanced and moved no more than it must.

use super::*;

/// The nodes after `op` (ascending), or why `op` does not apply.
pub(super) fn nodes_after(a: &Assignment, op: Op) -> std::result::Result<Vec<usize>, String> {
    let mut nodes = a.nodes.clone();
    match op {
        Op::Join(n) if a.has(n) => return Err(format!("node {n} is already in the cluster")),
        Op::Join(n) => nodes.push(n),
        Op::Leave(n) if !a.has(n) => return Err(format!("there is no node {n} to leave")),
        Op::Leave(n) if a.nodes.len() == 1 => {
            return Err(format!("node {n} is the last node: its shards would have nowhere to go"))
        }
        Op::Leave(n) => nodes.retain(|&m| m != n),
        Op::Move(s, _) if s >= a.shards.len() => {
            return Err(format!("there is no shard {s} (the shards are 0 … {})", a.shards.len().saturating_sub(1)))
        }
        Op::Move(_, n) if !a.has(n) => return Err(format!("there is no node {n} to move it to")),
        Op::Move(..) => {}
    }
    nodes.sort_unstable();
    Ok(nodes)
}

/// Is `answer` an assignment of the cluster after `op` at all?
pub(super) fn shape_problem(before: &Assignment, op: Op, nodes: &[usize], answer: &Assignment) -> Option<String> {
    if answer.shards.len() != before.shards.len() {
        return Some(format!(
            "{} shards in, {} out: the shard count never changes",
            before.shards.len(),
            answer.shards.len()
        ));
    }
    let mut theirs = answer.nodes.clone();
    theirs.sort_unstable();
    if theirs != nodes {
        return Some(format!("after {op} the nodes are {nodes:?}, not {theirs:?}"));
    }
    let stray = answer.shards.iter().enumerate().find(|(_, n)| !nodes.contains(n));
    stray.map(|(s, n)| format!("shard {s} is on node {n}, which is not in the cluster {nodes:?}"))
}

/// Shards per node, in the order of `nodes`.
pub(super) fn counts(nodes: &[usize], shards: &[usize]) -> Vec<usize> {
    nodes.iter().map(|&n| shards.iter().filter(|&&m| m == n).count()).collect()
}

pub(super) fn is_balanced(nodes: &[usize], shards: &[usize]) -> bool {
    let c = counts(nodes, shards);
    c.iter().max().zip(c.iter().min()).is_none_or(|(hi, lo)| hi - lo <= 1)
}

pub(super) fn balance_problem(op: Op, nodes: &[usize], shards: &[usize]) -> Option<String> {
    if let Op::Move(..) = op {
        return None; // a hand-made move may unbalance; the next join or leave evens it out
    }
    let c = counts(nodes, shards);
    let hi = (0..nodes.len()).max_by_key(|&i| (c[i], std::cmp::Reverse(nodes[i])))?;
    let lo = (0..nodes.len()).min_by_key(|&i| (c[i], nodes[i]))?;
    (c[hi] > c[lo] + 1).then(|| {
        format!("node {} serves {} and node {} serves {}: more than one apart", nodes[hi], c[hi], nodes[lo], c[lo])
    })
}

/// The fewest shards that must change node to reach a balanced assignment
/// of `shards` over `nodes`: every shard on a node not in `nodes`, and each
/// node's shards above its target, the targets `S / N` plus one for the
/// `S % N` nodes that hold the most.
pub(super) fn fewest_moves(nodes: &[usize], shards: &[usize]) -> usize {
    let mut c = counts(nodes, shards);
    let orphans = shards.len() - c.iter().sum::<usize>();
    c.sort_unstable_by(|a, b| b.cmp(a));
    let n = nodes.len().max(1);
    let (q, r) = (shards.len() / n, shards.len() % n);
    orphans + c.iter().enumerate().map(|(i, &x)| x.saturating_sub(q + usize::from(i < r))).sum::<usize>()
}

pub(super) fn movement_problem(before: &Assignment, op: Op, nodes: &[usize], after: &[usize]) -> Option<String> {
    let moved: Vec<usize> = (0..after.len()).filter(|&s| before.shards[s] != after[s]).collect();
    let from_to = |s: usize| format!("shard {s} went from node {} to node {}", before.shards[s], after[s]);
    match op {
        Op::Move(s, n) => {
            if after[s] != n {
                return Some(format!("shard {s} is on node {}, not node {n}", after[s]));
            }
            let other = moved.iter().find(|&&t| t != s)?;
            Some(format!("{}: a move moves only its own shard", from_to(*other)))
        }
        Op::Join(n) | Op::Leave(n) => {
            if is_balanced(&before.nodes, &before.shards) {
                let stray = moved.iter().find(|&&s| match op {
                    Op::Join(_) => after[s] != n,
                    _ => before.shards[s] != n,
                });
                if let Some(&s) = stray {
                    let rule = match op {
                        Op::Join(_) => "on a join only the new node gains shards",
                        _ => "on a leave only the leaving node's shards move",
                    };
                    return Some(format!("{}: {rule}", from_to(s)));
                }
            }
            let fewest = fewest_moves(nodes, &before.shards);
            (moved.len() > fewest)
                .then(|| format!("{} shards moved; {fewest} are enough to balance the cluster after {op}", moved.len()))
        }
    }
}
