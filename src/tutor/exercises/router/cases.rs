//! The traces a check runs: every short one on small clusters, smallest
//! first, then seeded random ones, and the steps a failure is shrunk by.

use super::*;
use crate::PyRandom;

/// One event of a trace. Nodes are indices (0 is A).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Event {
    /// The controller moves `shard` to node `to`, between two writes.
    Move { shard: usize, to: usize },
    /// The router writes a key of `shard`; with `mid`, the controller moves
    /// `mid.0` to node `mid.1` in the middle of it, right after the
    /// router's first read (or after the write, if it reads nothing).
    Write { shard: usize, mid: Option<(usize, usize)> },
}

/// `shards` shards on `nodes` nodes (shard `s` on node `s % nodes`, the map
/// at revision 1), then `events`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Case {
    pub(super) shards: usize,
    pub(super) nodes: usize,
    pub(super) events: Vec<Event>,
}

impl Case {
    /// Every move goes to another node than the shard's owner, every shard
    /// and node exists, and the trace ends in a write.
    pub(super) fn well_formed(&self) -> bool {
        if self.shards == 0 || !(2..=26).contains(&self.nodes) {
            return false;
        }
        let mut owner: Vec<usize> = (0..self.shards).map(|s| s % self.nodes).collect();
        let moved = |owner: &mut Vec<usize>, s: usize, to: usize| {
            let ok = s < self.shards && to < self.nodes && owner[s] != to;
            if ok {
                owner[s] = to;
            }
            ok
        };
        for e in &self.events {
            let ok = match *e {
                Event::Move { shard, to } => moved(&mut owner, shard, to),
                Event::Write { shard, mid } => {
                    shard < self.shards && mid.is_none_or(|(s, to)| moved(&mut owner, s, to))
                }
            };
            if !ok {
                return false;
            }
        }
        matches!(self.events.last(), Some(Event::Write { .. }))
    }

    /// The cases one step smaller: an event less, a write without its move
    /// in the middle, a shard less, a node less (each may be ill-formed).
    pub(super) fn smaller(&self) -> Vec<Case> {
        let mut out = Vec::new();
        for i in 0..self.events.len() {
            let mut c = self.clone();
            c.events.remove(i);
            out.push(c);
        }
        for i in 0..self.events.len() {
            if let Event::Write { shard, mid: Some(_) } = self.events[i] {
                let mut c = self.clone();
                c.events[i] = Event::Write { shard, mid: None };
                out.push(c);
            }
        }
        if self.shards > 1 {
            out.push(Case { shards: self.shards - 1, ..self.clone() });
        }
        if self.nodes > 2 {
            out.push(Case { nodes: self.nodes - 1, ..self.clone() });
        }
        out
    }

    /// The trace in words: the start, then each event, keys named as the
    /// checker names them (`k0`, `k1`, …).
    pub(super) fn describe(&self, upto: usize) -> String {
        let names: Vec<String> = (0..self.nodes).map(node_name).collect();
        let shards = if self.shards == 1 { "1 shard".to_string() } else { format!("{} shards", self.shards) };
        let start = format!(
            "{shards} on nodes {} (shard s on node s % {}, the map at revision 1, every epoch 1)",
            names.join(", "),
            self.nodes
        );
        let (mut parts, mut writes, mut revision) = (vec![start], 0, 1);
        for e in self.events.iter().take(upto) {
            match *e {
                Event::Move { shard, to } => {
                    revision += 1;
                    parts.push(format!("shard {shard} moves to {} (revision {revision})", names[to]));
                }
                Event::Write { shard, mid } => {
                    let mut w = format!("write k{writes} to shard {shard}");
                    if let Some((s, to)) = mid {
                        revision += 1;
                        w.push_str(&format!(
                            " (shard {s} moves to {} right after the router's first read: revision {revision})",
                            names[to]
                        ));
                    }
                    writes += 1;
                    parts.push(w);
                }
            }
        }
        parts.join("; then ")
    }

    /// The position in `events` of write number `w` (from 0).
    pub(super) fn write_event(&self, w: usize) -> usize {
        let writes = self.events.iter().enumerate().filter(|(_, e)| matches!(e, Event::Write { .. }));
        writes.map(|(i, _)| i).nth(w).unwrap_or(self.events.len().saturating_sub(1))
    }
}

/// The moves that apply to a map with `owner` over `nodes` nodes: every
/// shard to every other node.
fn moves(owner: &[usize], nodes: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (s, &o) in owner.iter().enumerate() {
        out.extend((0..nodes).filter(|&n| n != o).map(|n| (s, n)));
    }
    out
}

/// Every trace of one, two and three events on one or two shards and two
/// or three nodes that ends in a write, fewest events first, then fewest
/// shards, then fewest nodes; at each step plain writes first, then moves,
/// then writes with a move in the middle.
pub(super) fn small_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for length in 1..=3 {
        for shards in 1..=2 {
            for nodes in 2..=3 {
                let start: Vec<usize> = (0..shards).map(|s| s % nodes).collect();
                let mut prefixes: Vec<(Vec<Event>, Vec<usize>)> = vec![(Vec::new(), start)];
                for step in 0..length {
                    let last = step + 1 == length;
                    let mut next = Vec::new();
                    for (events, owner) in &prefixes {
                        // plain writes, then moves, then writes with a move in the middle
                        let mut choices: Vec<(Event, Option<(usize, usize)>)> =
                            (0..shards).map(|s| (Event::Write { shard: s, mid: None }, None)).collect();
                        if !last {
                            choices.extend(
                                moves(owner, nodes)
                                    .into_iter()
                                    .map(|(s, to)| (Event::Move { shard: s, to }, Some((s, to)))),
                            );
                        }
                        for s in 0..shards {
                            for m in moves(owner, nodes) {
                                choices.push((Event::Write { shard: s, mid: Some(m) }, Some(m)));
                            }
                        }
                        for (e, m) in choices {
                            let mut owner = owner.clone();
                            if let Some((s, to)) = m {
                                owner[s] = to;
                            }
                            let mut events = events.clone();
                            events.push(e);
                            next.push((events, owner));
                        }
                    }
                    prefixes = next;
                }
                cases.extend(prefixes.into_iter().map(|(events, _)| Case { shards, nodes, events }));
            }
        }
    }
    cases
}

/// Random traces, seeded: 1 to 12·scale shards on 2 to 3 + 2·scale nodes
/// (at most 26), 1 to 30·scale events: writes about half the time (one in
/// five with a move in the middle, mostly of the written shard), moves
/// the rest; the last event a write.
pub(super) fn random_cases(seed: u64, scale: usize) -> Vec<Case> {
    let mut rng = PyRandom::new(seed);
    let count = RANDOM_TRACES / scale;
    let mut cases = Vec::with_capacity(count);
    for _ in 0..count {
        let shards = 1 + below(&mut rng, 12 * scale);
        let nodes = (2 + below(&mut rng, 2 + 2 * scale)).min(26);
        let length = 1 + below(&mut rng, 30 * scale);
        let mut owner: Vec<usize> = (0..shards).map(|s| s % nodes).collect();
        let mut events = Vec::with_capacity(length);
        for k in 0..length {
            let shard = below(&mut rng, shards);
            if k + 1 == length || below(&mut rng, 2) == 0 {
                let mid = if below(&mut rng, 5) == 0 {
                    let s = if below(&mut rng, 4) == 0 { below(&mut rng, shards) } else { shard };
                    Some(pick_move(&mut rng, &mut owner, s, nodes))
                } else {
                    None
                };
                events.push(Event::Write { shard, mid });
            } else {
                let (shard, to) = pick_move(&mut rng, &mut owner, shard, nodes);
                events.push(Event::Move { shard, to });
            }
        }
        cases.push(Case { shards, nodes, events });
    }
    cases
}

/// A number below `n` (0 for `n` of 0).
fn below(rng: &mut PyRandom, n: usize) -> usize {
    rng.randbelow(n.clamp(1, u32::MAX as usize) as u32).unwrap_or(0) as usize
}

/// Shard `s` to another node than its owner, picked at random.
fn pick_move(rng: &mut PyRandom, owner: &mut [usize], s: usize, nodes: usize) -> (usize, usize) {
    let to = (owner[s] + 1 + below(rng, nodes - 1)) % nodes;
    owner[s] = to;
    (s, to)
}
