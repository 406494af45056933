//! Exercise (lab 03): a shard controller, graded on what must hold rather
//! than on matching one output.
//!
//! The learner writes `fn rebalance(a: Assignment, op: Op) -> Result<Assignment, String>`:
//! `a.shards[s]` is the node serving shard `s`, `a.nodes` the cluster's
//! nodes, and `op` one change: [`Op::Join`], [`Op::Leave`] or [`Op::Move`]
//! (an operator moves one shard by hand). The answer is the assignment
//! after the change, or `Err` when the change makes no sense. Nothing
//! compares it with an answer of the crate's; four invariants are checked,
//! each on its own (one grade each), in the style of MIT 6.5840's shard
//! controller and UW dslabs' ShardMaster:
//!
//! - **balance**: after every join and leave, any two nodes' shard counts
//!   differ by at most one (max − min ≤ 1);
//! - **minimal movement**: a move moves its one shard and nothing else; from
//!   a balanced assignment a join moves shards only onto the new node and a
//!   leave only the leaver's shards; and no join or leave moves more shards
//!   than the fewest any balanced answer needs;
//! - **determinism**: the same assignment and operation give the same
//!   answer, called twice in a row or again after other calls;
//! - **errors**: a bad operation is refused with `Err` (join a node already
//!   in the cluster, leave an unknown node or the last one, move a shard
//!   that does not exist or onto an unknown node), and a good one is not.
//!
//! Each check runs sequences of operations from a start where shard `s` is
//! on node `s % n`, feeding the learner's answer forward as the next
//! state: every sequence of one and two operations on small clusters
//! first, smallest first, then thousands of random ones (seeded, so every
//! run checks the same). A failure names the invariant, the smallest
//! sequence that breaks it (fewest operations, then fewest shards and
//! nodes: random failures are shrunk), and the assignment before and the
//! learner's answer. A panic in the learner's function is caught and
//! reported as a failure of the invariant being checked.
//!
//! ```
//! use reshard::tutor::exercises::{self, Assignment, Op};
//! fn rebalance(mut a: Assignment, op: Op) -> Result<Assignment, String> {
//!     match op {
//!         Op::Join(n) if !a.has(n) => a.nodes.push(n),
//!         Op::Leave(n) if a.has(n) && a.nodes.len() > 1 => a.nodes.retain(|&m| m != n),
//!         Op::Move(s, n) if s < a.shards.len() && a.has(n) => {
//!             a.shards[s] = n;
//!             return Ok(a);
//!         }
//!         _ => return Err(format!("{op} does not apply to nodes {:?}", a.nodes)),
//!     }
//!     loop { // an orphan first, else one of the fullest node's while 2 ahead, to the emptiest
//!         let (Some(hi), Some(lo)) = (a.fullest(), a.emptiest()) else { return Ok(a) };
//!         let ahead = a.shards.iter().position(|&m| m == hi && a.held(hi) > a.held(lo) + 1);
//!         match a.orphan().or(ahead) {
//!             Some(s) => a.shards[s] = lo,
//!             None => return Ok(a),
//!         }
//!     }
//! }
//! let report = exercises::shard_controller(rebalance).balance();
//! assert!(report.passed(), "{report}");
//! assert!(exercises::shard_controller(rebalance).minimal_movement().passed());
//! ```

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use super::{clip, panic_message};
use crate::present::thousands;
use crate::{limits, Error, PyRandom, Result};

mod cases;
mod report;
mod rules;
use cases::*;
use report::*;
pub use report::{Counterexample, Invariant, InvariantReport};
use rules::*;

/// One change to a cluster's shard assignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// A node joins (its id).
    Join(usize),
    /// A node leaves (its id).
    Leave(usize),
    /// An operator moves shard `.0` onto node `.1`.
    Move(usize, usize),
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Join(n) => write!(f, "Join({n})"),
            Op::Leave(n) => write!(f, "Leave({n})"),
            Op::Move(s, n) => write!(f, "Move(shard {s}, node {n})"),
        }
    }
}

/// Which node serves each shard, and the cluster's nodes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Assignment {
    /// The nodes of the cluster, by id (the checks hand them over ascending;
    /// the order of an answer's list does not matter).
    pub nodes: Vec<usize>,
    /// `shards[s]` is the node that serves shard `s`.
    pub shards: Vec<usize>,
}

impl Assignment {
    /// An assignment from its parts, as they are (nothing is checked).
    pub fn new(nodes: Vec<usize>, shards: Vec<usize>) -> Self {
        Assignment { nodes, shards }
    }

    /// `shards` shards on nodes `0 … nodes − 1`, shard `s` on node `s % nodes`.
    ///
    /// ```
    /// use reshard::tutor::exercises::Assignment;
    /// let a = Assignment::laid_out(7, 3)?;
    /// assert_eq!(a.shards, [0, 1, 2, 0, 1, 2, 0]);
    /// assert_eq!((a.held(0), a.fullest(), a.emptiest()), (3, Some(0), Some(1)));
    /// assert!(Assignment::laid_out(7, 0).is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn laid_out(shards: usize, nodes: usize) -> Result<Self> {
        if nodes == 0 {
            return Err(Error::NoNodes);
        }
        limits::check_nodes(nodes)?;
        limits::check("shards", shards as u128, limits::current().max_shards)?;
        Ok(Assignment { nodes: (0..nodes).collect(), shards: (0..shards).map(|s| s % nodes).collect() })
    }

    /// Is `node` one of the cluster's nodes?
    pub fn has(&self, node: usize) -> bool {
        self.nodes.contains(&node)
    }

    /// How many shards `node` serves.
    pub fn held(&self, node: usize) -> usize {
        self.shards.iter().filter(|&&n| n == node).count()
    }

    /// The lowest shard still on a node that is not in the cluster (one
    /// that has just left), if any.
    pub fn orphan(&self) -> Option<usize> {
        self.shards.iter().position(|&n| !self.has(n))
    }

    /// The node that serves the most shards (the lowest id on ties); `None`
    /// without nodes.
    pub fn fullest(&self) -> Option<usize> {
        self.nodes.iter().copied().max_by_key(|&n| (self.held(n), std::cmp::Reverse(n)))
    }

    /// The node that serves the fewest shards (the lowest id on ties);
    /// `None` without nodes.
    pub fn emptiest(&self) -> Option<usize> {
        self.nodes.iter().copied().min_by_key(|&n| (self.held(n), n))
    }

    /// `"0: 3, 1: 2, 2: 2"`: each node (ascending) and how many shards it serves.
    pub fn per_node(&self) -> String {
        self.per_node_upto(usize::MAX)
    }

    /// [`per_node`](Assignment::per_node) for the first `most` nodes, then
    /// how many there are in all. The shards are counted once, whatever
    /// the number of nodes.
    fn per_node_upto(&self, most: usize) -> String {
        let mut nodes = self.nodes.clone();
        nodes.sort_unstable();
        nodes.dedup();
        let listed = &nodes[..nodes.len().min(most)];
        let mut held = vec![0usize; listed.len()];
        for n in &self.shards {
            if let Ok(i) = listed.binary_search(n) {
                held[i] += 1;
            }
        }
        let mut line: Vec<String> = listed.iter().zip(&held).map(|(n, h)| format!("{n}: {h}")).collect();
        if nodes.len() > most {
            line.push(format!("… ({} nodes in all)", thousands(nodes.len() as u64)));
        }
        line.join(", ")
    }
}

/// The most shards, and nodes, a report's line about an assignment lists
/// (then how many there are in all): a learner's answer of ten million
/// shards would otherwise print megabytes.
const LISTED: usize = 200;

impl Assignment {
    /// `shard → node [0, 1, 2, 0] · shards per node 0: 2, 1: 1, 2: 1`, on one
    /// line, listing at most [`LISTED`] shards and nodes.
    fn one_line(&self) -> String {
        let mut cells: Vec<String> = self.shards.iter().take(LISTED).map(usize::to_string).collect();
        if self.shards.len() > LISTED {
            cells.push(format!("… ({} shards in all)", thousands(self.shards.len() as u64)));
        }
        format!("shard → node [{}] · shards per node {}", cells.join(", "), self.per_node_upto(LISTED))
    }
}

impl fmt::Display for Assignment {
    /// `shard → node [0, 1, 2, 0] · shards per node 0: 2, 1: 1, 2: 1`,
    /// wrapped to stay within 100 columns (the first 200 shards and nodes,
    /// then how many there are in all).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", wrap("", &self.one_line()))
    }
}

/// The checks of a learner's `rebalance`, one invariant at a time:
/// `exercises::shard_controller(rebalance).balance()`.
pub struct ShardController<F> {
    rebalance: F,
    seed: u64,
    scale: usize,
}

/// Check a learner's `rebalance(assignment, op)`; call one of
/// [`balance`](ShardController::balance),
/// [`minimal_movement`](ShardController::minimal_movement),
/// [`determinism`](ShardController::determinism) or
/// [`errors`](ShardController::errors) on the result.
pub fn shard_controller<F>(rebalance: F) -> ShardController<F>
where
    F: FnMut(Assignment, Op) -> std::result::Result<Assignment, String>,
{
    ShardController { rebalance, seed: DEFAULT_SEED, scale: 1 }
}

/// The random sequences' seed unless [`ShardController::seed`] changes it.
pub const DEFAULT_SEED: u64 = 2026;
/// How many random sequences follow the small ones (at scale 1).
pub const RANDOM_SEQUENCES: usize = 2_000;
/// The largest scale [`ShardController::scale`] takes.
pub const MAX_SCALE: usize = 10;

/// Where a sequence broke: how many of its operations, and what went wrong.
struct Broke {
    upto: usize,
    before: Assignment,
    yours: String,
    problem: String,
}

/// Checks run one at a time in this process, each with the panic hook
/// silenced on its thread (a learner's panic is reported, not printed).
static QUIET: Mutex<()> = Mutex::new(());

impl<F> ShardController<F>
where
    F: FnMut(Assignment, Op) -> std::result::Result<Assignment, String>,
{
    /// Another seed for the random sequences (a grader's hidden cases).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Random sequences up to `scale` times longer, with up to `scale`
    /// times the shards and nodes (and `1/scale` as many of them); 1 is
    /// the default, values are kept within 1 … [`MAX_SCALE`].
    pub fn scale(mut self, scale: usize) -> Self {
        self.scale = scale.clamp(1, MAX_SCALE);
        self
    }

    /// Max − min ≤ 1 shards per node after every join and leave.
    pub fn balance(self) -> InvariantReport {
        self.check(Invariant::Balance)
    }

    /// Only what must move moves.
    pub fn minimal_movement(self) -> InvariantReport {
        self.check(Invariant::MinimalMovement)
    }

    /// The same input gives the same answer.
    pub fn determinism(self) -> InvariantReport {
        self.check(Invariant::Determinism)
    }

    /// Bad operations are refused, good ones are not.
    pub fn errors(self) -> InvariantReport {
        self.check(Invariant::Errors)
    }

    /// Check one invariant on the small sequences, then the random ones.
    pub fn check(mut self, invariant: Invariant) -> InvariantReport {
        let _one_at_a_time = QUIET.lock().unwrap_or_else(|e| e.into_inner());
        // Panics on this thread are the learner's, caught and reported; other threads' still
        // reach the hook in place, which is put back as it was afterwards.
        let before = Arc::new(std::panic::take_hook());
        let (others, here) = (Arc::clone(&before), std::thread::current().id());
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().id() != here {
                others(info)
            }
        }));
        let report = self.run_all(invariant);
        drop(std::panic::take_hook());
        if let Ok(hook) = Arc::try_unwrap(before) {
            std::panic::set_hook(hook);
        }
        report
    }

    fn run_all(&mut self, invariant: Invariant) -> InvariantReport {
        let (mut sequences, mut operations) = (0, 0);
        let with_bad = invariant == Invariant::Errors;
        let small = small_cases(with_bad);
        let random = random_cases(self.seed, self.scale, with_bad);
        for (i, case) in small.iter().chain(random.iter()).enumerate() {
            match self.run(case, invariant) {
                Ok(n) => {
                    sequences += 1;
                    operations += n;
                }
                Err(broke) => {
                    let (case, broke) = if i < small.len() {
                        (case.clone(), broke)
                    } else {
                        self.shrink(case.clone(), broke, invariant)
                    };
                    let failure = Counterexample {
                        shards: case.shards,
                        nodes: case.nodes,
                        ops: case.ops[..broke.upto].to_vec(),
                        before: broke.before,
                        yours: clip(broke.yours),
                        problem: clip(broke.problem),
                    };
                    return InvariantReport { invariant, sequences, operations, failure: Some(failure) };
                }
            }
        }
        InvariantReport { invariant, sequences, operations, failure: None }
    }

    /// The learner's answer, a panic caught.
    fn call(&mut self, a: &Assignment, op: Op) -> std::result::Result<std::result::Result<Assignment, String>, String> {
        let f = &mut self.rebalance;
        catch_unwind(AssertUnwindSafe(|| f(a.clone(), op))).map_err(|p| panic_message(&*p))
    }

    /// Run one sequence; `Ok(operations checked)` or where it broke.
    fn run(&mut self, case: &Case, invariant: Invariant) -> std::result::Result<usize, Broke> {
        let mut state = start(case.shards, case.nodes);
        let mut seen: Vec<(usize, Assignment, Op, Assignment)> = Vec::new();
        let mut checked = 0;
        for (k, &op) in case.ops.iter().enumerate() {
            let broke = |before: &Assignment, yours: String, problem: String| Broke {
                upto: k + 1,
                before: before.clone(),
                yours,
                problem,
            };
            checked += 1;
            let after_nodes = match nodes_after(&state, op) {
                Ok(nodes) => nodes,
                Err(why) => {
                    // only the errors check has bad operations
                    match self.call(&state, op) {
                        Ok(Err(_)) => continue,
                        Ok(Ok(a)) => {
                            return Err(broke(
                                &state,
                                format!("Ok: {}", a.one_line()),
                                format!("{op} must be refused: {why}"),
                            ))
                        }
                        Err(msg) => {
                            let problem = format!("{op} must be refused with Err ({why}), not a panic");
                            return Err(broke(&state, format!("panicked: {msg}"), problem));
                        }
                    }
                }
            };
            let answer = match self.call(&state, op) {
                Err(msg) => return Err(broke(&state, format!("panicked: {msg}"), format!("{op} applies here"))),
                Ok(Err(e)) => {
                    let problem = format!("{op} applies here: it must not be refused");
                    return Err(broke(&state, format!("Err({e:?})"), problem));
                }
                Ok(Ok(a)) => a,
            };
            if let Some(problem) = shape_problem(&state, op, &after_nodes, &answer) {
                if invariant == Invariant::Errors {
                    return Ok(checked); // not this check's business; nothing to go on from
                }
                return Err(broke(&state, format!("Ok: {}", answer.one_line()), problem));
            }
            let problem = match invariant {
                Invariant::Balance => balance_problem(op, &after_nodes, &answer.shards),
                Invariant::MinimalMovement => movement_problem(&state, op, &after_nodes, &answer.shards),
                Invariant::Determinism => match self.call(&state, op) {
                    Ok(Ok(again)) if again == answer => None,
                    again => {
                        let yours = format!("first Ok: {}; then {}", answer.one_line(), shown(&again));
                        return Err(broke(&state, yours, format!("{op} twice in a row gave two answers")));
                    }
                },
                Invariant::Errors => None,
            };
            if let Some(problem) = problem {
                return Err(broke(&state, format!("Ok: {}", answer.one_line()), problem));
            }
            let next = Assignment { nodes: after_nodes, shards: answer.shards.clone() };
            if invariant == Invariant::Determinism {
                seen.push((k, state, op, answer));
            }
            state = next;
        }
        // Determinism again: the same inputs, now in the reverse order.
        for (k, before, op, first) in seen.into_iter().rev() {
            match self.call(&before, op) {
                Ok(Ok(again)) if again == first => {}
                again => {
                    return Err(Broke {
                        upto: k + 1,
                        yours: format!("first Ok: {}; later {}", first.one_line(), shown(&again)),
                        problem: format!("{op} gave another answer when asked again after other calls"),
                        before,
                    })
                }
            }
        }
        Ok(checked)
    }

    /// A smaller case that still breaks `invariant`: fewer operations first,
    /// then fewer shards, then fewer nodes, then an operation earlier in
    /// [`op_key`]'s order in the place of one, until none of them helps.
    /// Every step makes the case smaller in that order, so it ends.
    fn shrink(&mut self, mut case: Case, mut broke: Broke, invariant: Invariant) -> (Case, Broke) {
        case.ops.truncate(broke.upto);
        loop {
            let mut candidates: Vec<Case> = (0..case.ops.len().saturating_sub(1))
                .map(|i| {
                    let mut c = case.clone();
                    c.ops.remove(i);
                    c
                })
                .collect();
            if case.shards > 1 {
                candidates.push(Case { shards: case.shards - 1, ..case.clone() });
            }
            if case.nodes > 1 {
                candidates.push(Case { nodes: case.nodes - 1, ..case.clone() });
            }
            let ids = case.nodes + case.ops.len() + 1;
            for (i, &op) in case.ops.iter().enumerate() {
                for smaller in smaller_ops(op, ids, case.shards) {
                    let mut c = case.clone();
                    c.ops[i] = smaller;
                    candidates.push(c);
                }
            }
            let mut better = None;
            for c in candidates {
                if !well_formed(&c, invariant) {
                    continue;
                }
                if let Err(b) = self.run(&c, invariant) {
                    better = Some((c, b));
                    break;
                }
            }
            match better {
                Some((mut c, b)) => {
                    c.ops.truncate(b.upto);
                    case = c;
                    broke = b;
                }
                None => return (case, broke),
            }
        }
    }
}

fn shown(r: &std::result::Result<std::result::Result<Assignment, String>, String>) -> String {
    match r {
        Ok(Ok(a)) => format!("Ok: {}", a.one_line()),
        Ok(Err(e)) => format!("Err({e:?})"),
        Err(msg) => format!("panicked: {msg}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fewest_moves_by_hand() {
        // 4 shards on 0, 1 (2 each), 2 joins: targets 2, 1, 1 → one shard moves
        assert_eq!(fewest_moves(&[0, 1, 2], &[0, 1, 0, 1]), 1);
        // node 2 (1 shard) leaves 0, 1, 2 with 3 shards: its shard moves
        assert_eq!(fewest_moves(&[0, 1], &[0, 1, 2]), 1);
        // after a hand move 0 holds all 4: 2 must go
        assert_eq!(fewest_moves(&[0, 1], &[0, 0, 0, 0]), 2);
        // 5 shards: 3, 2 on 0, 1; 2 joins: targets 2, 2, 1, and 0 keeps 2 of its 3
        assert_eq!(fewest_moves(&[0, 1, 2], &[0, 1, 0, 1, 0]), 1);
    }

    #[test]
    fn small_cases_start_small_and_are_well_formed() {
        let good = small_cases(false);
        assert_eq!(good[0], Case { shards: 1, nodes: 1, ops: vec![Op::Join(1)] });
        assert!(good.iter().all(|c| well_formed(c, Invariant::Balance)));
        let with_bad = small_cases(true);
        assert!(with_bad.len() > good.len());
        // one shard on node 0: join 1 and move it where it is (good), then the bad ones: join 0,
        // leave 1, leave 0, move shard 1, move to node 1
        let first: Vec<Op> = with_bad.iter().take(7).map(|c| c.ops[0]).collect();
        let bad = [Op::Join(0), Op::Leave(1), Op::Leave(0), Op::Move(1, 0), Op::Move(0, 1)];
        assert_eq!(first[..2], [Op::Join(1), Op::Move(0, 0)]);
        assert_eq!(first[2..], bad);
    }

    #[test]
    fn random_cases_are_seeded_and_well_formed() {
        let a = random_cases(7, 1, false);
        assert_eq!(a, random_cases(7, 1, false));
        assert_ne!(a, random_cases(8, 1, false));
        assert_eq!(a.len(), RANDOM_SEQUENCES);
        assert!(a.iter().all(|c| well_formed(c, Invariant::Balance)));
        assert!(a.iter().all(|c| c.shards <= 40 && c.nodes <= 8 && c.ops.len() <= 12));
        let big = random_cases(7, 3, false);
        assert!(big.iter().any(|c| c.shards > 40) && big.len() == RANDOM_SEQUENCES / 3);
        let bad = random_cases(7, 1, true);
        let refused = bad.iter().flat_map(|c| {
            let mut a = start(c.shards, c.nodes);
            c.ops
                .iter()
                .map(|&op| match nodes_after(&a, op) {
                    Ok(nodes) => {
                        if let Op::Move(s, n) = op {
                            a.shards[s] = n;
                        }
                        a.nodes = nodes;
                        false
                    }
                    Err(_) => true,
                })
                .collect::<Vec<_>>()
        });
        assert!(refused.filter(|&b| b).count() > 1000);
    }

    #[test]
    fn wrap_keeps_lines_short() {
        let a = start(200, 7);
        for line in a.to_string().lines() {
            assert!(line.chars().count() <= 100, "{line}");
        }
    }
}
