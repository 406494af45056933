//! `reshard shards`: fixed shards, whole shards moved between nodes
//! (defaults: document 004).

use crate::change::Change;
use crate::output::{from_flag, Output, Run};
use crate::workload::{self, defaults, Nodes, Workload};
use clap::Args as ClapArgs;
use reshard::present::{pct, thousands, Table};
use reshard::schemes::shards::{DEFAULT_SEED, DEFAULT_SHARDS};
use reshard::{FixedShards, Placement};
use serde::Serialize;

#[derive(ClapArgs, Debug)]
#[command(
    mut_arg("keys", defaults::keys("1000000")),
    mut_arg("prefix", defaults::prefix("key")),
    mut_arg("width", defaults::width("128"))
)]
pub struct Args {
    #[command(flatten)]
    work: Workload,
    /// Number of fixed shards S; a key's shard is md5 % S (document 004: 1000; at most 10,000,000)
    #[arg(long, default_value_t = DEFAULT_SHARDS, value_parser = workload::size, allow_negative_numbers = true)]
    shards: usize,
    /// Nodes before; shard s starts on node s % N (document 004: 10)
    #[arg(long, value_name = "NODES", default_value = "10", value_parser = workload::nodes, allow_hyphen_values = true)]
    from: Nodes,
    /// Nodes after; shards are rebalanced to within one of even (document 004: 11)
    #[arg(long, value_name = "NODES", default_value = "11", value_parser = workload::nodes, allow_hyphen_values = true)]
    to: Nodes,
    /// Prefix for nodes given as a count (default: none, nodes 0 … N-1)
    #[arg(long, default_value = "")]
    name_prefix: String,
    /// Seed of the Python-compatible shuffle that picks which shards move (document 004: 42)
    #[arg(long, default_value_t = DEFAULT_SEED, value_parser = workload::seed, allow_negative_numbers = true)]
    seed: u64,
}

#[derive(Serialize)]
struct Params {
    shards: usize,
    seed: u64,
    shards_moved: usize,
    /// Shards per node, over `before`'s nodes.
    shards_before: Vec<usize>,
    /// Shards per node, over `after`'s nodes.
    shards_after: Vec<usize>,
}

/// `names` with `shards` shards, shard `s` on node `s % N`.
fn laid_out(names: Vec<String>, shards: usize, seed: u64) -> Result<FixedShards, reshard::Error> {
    // `named` lays out DEFAULT_SHARDS first, which refuses more than 1000
    // nodes before `with_shards` could raise the count: lay out one node
    // first, then check and build the table for all of them.
    FixedShards::new(1)?.with_shards(shards)?;
    if names.len() > shards {
        return Err(reshard::Error::MoreNodesThanShards { nodes: names.len(), shards });
    }
    let n = names.len().max(1);
    let table = (0..shards).map(|s| (s % n) as reshard::NodeId).collect();
    Ok(FixedShards::from_table(names, table)?.with_seed(seed))
}

pub fn run(a: &Args, json: bool) -> Run {
    let before = laid_out(a.from.names(&a.name_prefix), a.shards, a.seed).map_err(from_flag("--from"))?;
    let after = before.rebalance_to(a.to.names(&a.name_prefix)).map_err(from_flag("--to"))?;
    let keys = a.work.hashed()?;
    let params = Params {
        shards: before.shard_count(),
        seed: a.seed,
        shards_moved: before.moved_shards(&after).len(),
        shards_before: before.shard_counts(),
        shards_after: after.shard_counts(),
    };
    let change = Change::measure("shards", &keys, &before, &after, params)?;
    Output::either(json, &change, || {
        let p = &change.params;
        let detail =
            format!("{} fixed shards (shard = md5 % {}) · seed {}", thousands(p.shards as u64), p.shards, p.seed);
        let mut t = Table::new("shards per node", ["node", "before", "after"]);
        for n in change.movement.nodes() {
            let count = |f: &FixedShards, c: &[usize]| {
                f.nodes().iter().position(|x| x == n).map_or("—".to_string(), |i| c[i].to_string())
            };
            t.row([n.clone(), count(&before, &p.shards_before), count(&after, &p.shards_after)]);
        }
        let m = &change.movement;
        format!(
            "{}\n\nshards moved: {} of {} · keys moved: {} ({})\n\n{}\n\n{}\n\nbefore — {}\n\nafter — {}",
            change.header("fixed shards", &detail),
            thousands(p.shards_moved as u64),
            thousands(p.shards as u64),
            thousands(m.moved()),
            pct(m.share(), 2),
            t,
            m,
            change.load_before,
            change.load_after
        )
    })
}
