//! `reshard rendezvous`: rendezvous (highest-random-weight) hashing,
//! optionally weighted (defaults: document 002).

use crate::change::Change;
use crate::output::{from_flag, Output, Run};
use crate::workload::{self, defaults, Workload};
use clap::Args as ClapArgs;
use reshard::Rendezvous;
use serde::Serialize;

#[derive(ClapArgs, Debug)]
#[command(
    mut_arg("keys", defaults::keys("200000")),
    mut_arg("prefix", defaults::prefix("key")),
    mut_arg("width", defaults::width("128"))
)]
pub struct Args {
    #[command(flatten)]
    work: Workload,
    #[command(flatten)]
    nodes: workload::Change,
    /// Weights of the --to nodes, one each, e.g. 1,1,2 (weighted variant; default: unweighted)
    #[arg(long, value_delimiter = ',', value_name = "W,W,…", value_parser = workload::weight, allow_hyphen_values = true)]
    weights: Option<Vec<f64>>,
    /// Weights of the --from nodes (default with --weights: each node's --weights value, 1 for removed nodes)
    #[arg(long, value_delimiter = ',', value_name = "W,W,…", requires = "weights", value_parser = workload::weight, allow_hyphen_values = true)]
    from_weights: Option<Vec<f64>>,
}

#[derive(Serialize)]
struct Params {
    #[serde(skip_serializing_if = "Option::is_none")]
    weights_before: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    weights_after: Option<Vec<f64>>,
}

pub fn run(a: &Args, json: bool) -> Run {
    let (from, to) = a.nodes.names()?;
    // Names first (before, then after), then the weights.
    let mut before = Rendezvous::named(from.clone()).map_err(from_flag("--from"))?;
    let mut after = Rendezvous::named(to.clone()).map_err(from_flag("--to"))?;
    if let Some(w) = &a.weights {
        after = after.with_weights(w.iter().copied()).map_err(from_flag("--weights"))?;
        // Without --from-weights a kept node keeps its weight, so only the
        // change of node set moves keys.
        let (wb, flag) = match &a.from_weights {
            Some(wb) => (wb.clone(), "--from-weights"),
            None => (from.iter().map(|n| to.iter().position(|m| m == n).map_or(1.0, |i| w[i])).collect(), "--weights"),
        };
        before = before.with_weights(wb).map_err(from_flag(flag))?;
    }
    let keys = a.work.hashed()?;
    let params = Params {
        weights_before: before.weights().map(<[f64]>::to_vec),
        weights_after: after.weights().map(<[f64]>::to_vec),
    };
    let change = Change::measure("rendezvous", &keys, &before, &after, params)?;
    Output::either(json, &change, || {
        let detail = match (&change.params.weights_before, &change.params.weights_after) {
            (Some(b), Some(w)) => format!("weighted: before {} · after {}", list(b), list(w)),
            _ => String::new(),
        };
        change.text("rendezvous hashing", &detail)
    })
}

fn list(w: &[f64]) -> String {
    w.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}
