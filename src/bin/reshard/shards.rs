//! `reshard shards`: fixed shards, whole shards moved between nodes
//! (defaults: document 004).

use crate::change::Change;
use crate::output::{from_flag, Output, Run};
use crate::workload::{self, defaults, Workload};
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
    #[command(flatten)]
    nodes: workload::Change,
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

pub fn run(a: &Args, json: bool) -> Run {
    let (from, to) = a.nodes.names()?;
    let before = FixedShards::named(from)
        .and_then(|f| f.with_shards(a.shards))
        .map(|f| f.with_seed(a.seed))
        .map_err(from_flag("--from"))?;
    let after = before.rebalance_to(to).map_err(from_flag("--to"))?;
    let keys = a.work.hashed()?;
    let params = Params {
        shards: before.table().len(),
        seed: a.seed,
        shards_moved: before.moved_shards_to(&after)?.len(),
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
