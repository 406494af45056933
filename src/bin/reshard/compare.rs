//! `reshard compare`: every placement scheme over one workload, side by
//! side (defaults: 100,000 keys, 128 bits, 10 → 11 nodes).

use crate::output::{Failure, Output, Run};
use crate::workload::{self, defaults, Nodes, Workload};
use clap::Args as ClapArgs;
use reshard::analysis::compare::{EPSILON, RING_VNODES, SHARDS, SHARD_SEED};
use reshard::schemes::maglev::DEFAULT_TABLE_SIZE;
use reshard::{numbered, CompareSettings, Comparison};

#[derive(ClapArgs, Debug)]
#[command(
    mut_arg("keys", defaults::keys("100000")),
    mut_arg("prefix", defaults::prefix("key")),
    mut_arg("width", defaults::width("128"))
)]
pub struct Args {
    #[command(flatten)]
    work: Workload,
    /// Nodes before: a count N (nodes 0 … N-1; the fixed shards need N ≤ --shards)
    #[arg(long, value_name = "NODES", default_value = "10", value_parser = workload::nodes, allow_hyphen_values = true)]
    from: Nodes,
    /// Nodes after: a count (nodes 0 … N-1)
    #[arg(long, value_name = "NODES", default_value = "11", value_parser = workload::nodes, allow_hyphen_values = true)]
    to: Nodes,
    /// Ring points per node (the ring and the bounded-load ring)
    #[arg(long, default_value_t = RING_VNODES, value_parser = workload::size, allow_negative_numbers = true)]
    vnodes: usize,
    /// Fixed shards: how many
    #[arg(long, default_value_t = SHARDS, value_parser = workload::size, allow_negative_numbers = true)]
    shards: usize,
    /// Fixed shards: the seed that picks which shards move
    #[arg(long, default_value_t = SHARD_SEED, value_parser = workload::seed, allow_negative_numbers = true)]
    seed: u64,
    /// Bounded loads: each node holds at most ⌈(1 + ε)·m/n⌉ keys
    #[arg(long, default_value_t = EPSILON, value_parser = epsilon, allow_hyphen_values = true)]
    epsilon: f64,
    /// Maglev's table size (a prime)
    #[arg(long, default_value_t = DEFAULT_TABLE_SIZE, value_parser = workload::size, allow_negative_numbers = true)]
    maglev_m: usize,
}

/// `--epsilon`: a finite number above 0, refused at once otherwise.
fn epsilon(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(e) if e.is_finite() && e > 0.0 => Ok(e),
        Ok(e) => Err(format!(
            "epsilon {e} is not a finite number above 0: use e.g. 0.25 (each node holds at most 1 + epsilon times the fair share)"
        )),
        Err(_) => Err(format!("{s:?} is not a number: use e.g. 0.25")),
    }
}

/// The node count of one side. Every scheme of a comparison is built with
/// `new(n)`, nodes `"0"` … `"{n-1}"`, so a list is taken only when it
/// names exactly those nodes.
fn count(nodes: &Nodes, flag: &str) -> Result<usize, Failure> {
    match nodes {
        Nodes::Count(n) => Ok(*n),
        Nodes::Names(v) if numbered(v.len()).is_ok_and(|n| *v == n) => Ok(v.len()),
        Nodes::Names(v) => Err(Failure(format!(
            "{flag}: compare numbers its nodes 0 … N-1 (every scheme is built with new(N)), so it cannot place nodes named {}: give a count, e.g. {flag} {}",
            v.join(","),
            v.len()
        ))),
    }
}

pub fn run(a: &Args, json: bool) -> Run {
    let (from, to) = (count(&a.from, "--from")?, count(&a.to, "--to")?);
    // Node counts first, with the flag named, before any hashing.
    for (n, flag) in [(from, "--from"), (to, "--to")] {
        if n == 0 {
            return Err(Failure(format!("{} (in {flag})", reshard::Error::NoNodes)));
        }
    }
    let keys = a.work.hashed()?;
    let settings = CompareSettings {
        vnodes: a.vnodes,
        shards: a.shards,
        seed: a.seed,
        epsilon: a.epsilon,
        maglev_m: a.maglev_m,
        ..Default::default()
    };
    let c = Comparison::measure(&keys, from, to, &settings)?;
    Output::either(json, &c, || c.to_string())
}
