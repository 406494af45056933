//! What a check finds: the invariants, the smallest counterexample, and
//! the report a check cell prints.

use super::*;

pub(super) use crate::tutor::exercises::properties::wrap;

/// What the checks hold a learner's `rebalance` to, one grade each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Invariant {
    /// After every join and leave, max − min ≤ 1 shards per node.
    Balance,
    /// Only what must move moves.
    MinimalMovement,
    /// The same input gives the same answer.
    Determinism,
    /// A bad operation is refused with `Err`, a good one is not.
    Errors,
}

impl Invariant {
    /// Its name, as the reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Invariant::Balance => "balance",
            Invariant::MinimalMovement => "minimal movement",
            Invariant::Determinism => "determinism",
            Invariant::Errors => "errors",
        }
    }

    /// What must hold, in one line.
    pub fn rule(self) -> &'static str {
        match self {
            Invariant::Balance => "after every join and leave, shard counts differ by at most one (max − min ≤ 1)",
            Invariant::MinimalMovement => {
                "a join moves shards only to the new node, a leave only the leaver's, a move only its \
                 shard; never more than balance needs"
            }
            Invariant::Determinism => "the same assignment and operation give the same answer, whatever came before",
            Invariant::Errors => {
                "Err for a bad operation (join a node already in, leave an unknown or the last node, move \
                 an unknown shard or to an unknown node), Ok for a good one"
            }
        }
    }
}

/// The smallest sequence found that breaks an invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counterexample {
    /// Shards in the cluster.
    pub shards: usize,
    /// Nodes at the start (`0 … nodes − 1`, shard `s` on node `s % nodes`).
    pub nodes: usize,
    /// The operations, in order; the last one broke the invariant.
    pub ops: Vec<Op>,
    /// The assignment the last operation was given.
    pub before: Assignment,
    /// What the learner's function answered: an assignment, `Err(…)`, or a panic.
    pub yours: String,
    /// What is wrong with it, in one line.
    pub problem: String,
}

impl Counterexample {
    /// `"4 shards on nodes 0, 1 (shard s on node s % 2), then Join(2)"`.
    pub fn sequence(&self) -> String {
        let start = if self.nodes == 1 {
            format!("{} on node 0", shards_word(self.shards))
        } else {
            let ids: Vec<String> = (0..self.nodes).map(|n| n.to_string()).collect();
            format!("{} on nodes {} (shard s on node s % {})", shards_word(self.shards), ids.join(", "), self.nodes)
        };
        let ops: Vec<String> = self.ops.iter().map(Op::to_string).collect();
        format!("{start}, then {}", ops.join(", "))
    }
}

pub(super) fn shards_word(n: usize) -> String {
    if n == 1 {
        "1 shard".into()
    } else {
        format!("{} shards", thousands(n as u64))
    }
}

/// The outcome of checking one invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvariantReport {
    pub(super) invariant: Invariant,
    pub(super) sequences: usize,
    pub(super) operations: usize,
    pub(super) failure: Option<Counterexample>,
}

impl InvariantReport {
    /// True when every sequence kept the invariant (and there was at least one).
    pub fn passed(&self) -> bool {
        self.failure.is_none() && self.sequences > 0
    }

    /// The invariant checked.
    pub fn invariant(&self) -> Invariant {
        self.invariant
    }

    /// The smallest sequence found that breaks it, if any.
    pub fn failure(&self) -> Option<&Counterexample> {
        self.failure.as_ref()
    }

    /// Sequences that kept it (before the first failure, if any).
    pub fn sequences(&self) -> usize {
        self.sequences
    }

    /// Operations checked in those sequences.
    pub fn operations(&self) -> usize {
        self.operations
    }
}

impl fmt::Display for InvariantReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.invariant.name();
        match &self.failure {
            None if self.sequences == 0 => writeln!(f, "✗ {name}: nothing was checked (no sequences)"),
            None => {
                let (sequences, operations) = (thousands(self.sequences as u64), thousands(self.operations as u64));
                writeln!(f, "✓ {name}: held on all {sequences} sequences ({operations} operations)")?;
                writeln!(f, "{}", wrap("  ", self.invariant.rule()))
            }
            Some(c) => {
                let last = c.ops.last().map_or(String::new(), Op::to_string);
                writeln!(f, "{}", wrap(&format!("✗ {name}: "), self.invariant.rule()))?;
                writeln!(f, "{}", wrap("  the smallest sequence that breaks it: ", &c.sequence()))?;
                writeln!(f, "{}", wrap(&format!("  before {last}: "), &c.before.one_line()))?;
                writeln!(f, "{}", wrap("  yours: ", &c.yours))?;
                writeln!(f, "{}", wrap("  wrong: ", &c.problem))?;
                writeln!(f, "  ({} sequences kept it before this one)", thousands(self.sequences as u64))
            }
        }
    }
}
