//! What a check of a learner's router finds: the invariants, the smallest
//! trace that breaks one, and the report a check cell prints.

use super::*;
use crate::present::thousands;
use crate::tutor::exercises::clip;
use crate::tutor::exercises::properties::wrap;

/// What the checks hold a learner's router to, one grade each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RouterInvariant {
    /// Every write the function returns from is at its shard's owner.
    NoLostWrite,
    /// A stale reply only for a move the router had not read; a read only
    /// after a stale reply.
    OneMisroutePerMove,
    /// No epoch below a fence a node has answered with, none made up.
    NeverBelowFence,
    /// The same trace gives the same calls.
    Determinism,
}

impl RouterInvariant {
    /// Its name, as the reports print it.
    pub fn name(self) -> &'static str {
        match self {
            RouterInvariant::NoLostWrite => "no lost write",
            RouterInvariant::OneMisroutePerMove => "one misroute per move",
            RouterInvariant::NeverBelowFence => "never below the fence",
            RouterInvariant::Determinism => "determinism",
        }
    }

    /// What must hold, in one line.
    pub fn rule(self) -> &'static str {
        match self {
            RouterInvariant::NoLostWrite => {
                "every write your function returns from (the client is told it is written) is stored at its \
                 shard's owner"
            }
            RouterInvariant::OneMisroutePerMove => {
                "at most one stale reply per move your router had not read, and a read of the store (an entry or \
                 the map) only after a stale reply"
            }
            RouterInvariant::NeverBelowFence => {
                "once a node has answered that a shard's fence is f, no request for that shard carries an epoch \
                 below f; and no request carries an epoch the map never gave its shard"
            }
            RouterInvariant::Determinism => {
                "the same map, moves and writes give the same requests and reads, whatever ran before"
            }
        }
    }
}

/// The smallest trace found that breaks an invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RouterCounterexample {
    /// The trace, in words, up to the write that broke the invariant.
    pub trace: String,
    /// What the router did on that write, call by call.
    pub calls: Vec<String>,
    /// What is wrong, in one line.
    pub problem: String,
}

/// The outcome of checking one invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouterReport {
    invariant: RouterInvariant,
    traces: usize,
    writes: usize,
    failure: Option<RouterCounterexample>,
}

impl RouterReport {
    pub(super) fn held(invariant: RouterInvariant, traces: usize, writes: usize) -> RouterReport {
        RouterReport { invariant, traces, writes, failure: None }
    }

    pub(super) fn broken(
        invariant: RouterInvariant,
        traces: usize,
        writes: usize,
        case: &Case,
        upto: usize,
        calls: &[Call],
        problem: String,
    ) -> RouterReport {
        let failure = RouterCounterexample { trace: case.describe(upto), calls: runs(calls), problem: clip(problem) };
        RouterReport { invariant, traces, writes, failure: Some(failure) }
    }

    /// True when every trace kept the invariant (and there was at least one).
    pub fn passed(&self) -> bool {
        self.failure.is_none() && self.traces > 0
    }

    /// The invariant checked.
    pub fn invariant(&self) -> RouterInvariant {
        self.invariant
    }

    /// The smallest trace found that breaks it, if any.
    pub fn failure(&self) -> Option<&RouterCounterexample> {
        self.failure.as_ref()
    }

    /// Traces that kept it (before the first failure, if any).
    pub fn traces(&self) -> usize {
        self.traces
    }

    /// Writes in those traces.
    pub fn writes(&self) -> usize {
        self.writes
    }
}

/// The calls as text, a run of the same call shown once with its count.
fn runs(calls: &[Call]) -> Vec<String> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for c in calls {
        let text = clip(c.to_string());
        match out.last_mut() {
            Some((last, n)) if *last == text => *n += 1,
            _ => out.push((text, 1)),
        }
    }
    out.into_iter().map(|(t, n)| if n == 1 { t } else { format!("{t}, {n} times") }).collect()
}

impl fmt::Display for RouterReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.invariant.name();
        match &self.failure {
            None if self.traces == 0 => writeln!(f, "✗ {name}: nothing was checked (no traces)"),
            None => {
                let (traces, writes) = (thousands(self.traces as u64), thousands(self.writes as u64));
                writeln!(f, "✓ {name}: held on all {traces} traces ({writes} writes)")?;
                writeln!(f, "{}", wrap("  ", self.invariant.rule()))
            }
            Some(c) => {
                writeln!(f, "{}", wrap(&format!("✗ {name}: "), self.invariant.rule()))?;
                writeln!(f, "{}", wrap("  the smallest trace that breaks it: ", &c.trace))?;
                let calls = if c.calls.is_empty() { "no call".to_string() } else { c.calls.join("; ") };
                writeln!(f, "{}", wrap("  your router, on that write: ", &calls))?;
                writeln!(f, "{}", wrap("  wrong: ", &c.problem))?;
                writeln!(f, "  ({} traces kept it before this one)", thousands(self.traces as u64))
            }
        }
    }
}
