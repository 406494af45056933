//! `reshard modulo`: `hash % N` (defaults: document 004).

use crate::change::Change;
use crate::output::{from_flag, Output, Run};
use crate::workload::{self, defaults, Counts, Workload};
use clap::Args as ClapArgs;
use reshard::analysis::modulo::modulo_period;
use reshard::present::{pct, thousands};
use reshard::{modulo_rule, Modulo, ModuloSweep, Placement};
use serde::Serialize;
use std::fmt::Write as _;

#[derive(ClapArgs, Debug)]
#[command(
    mut_arg("keys", defaults::keys("1000000")),
    mut_arg("prefix", defaults::prefix("key")),
    mut_arg("width", defaults::width("128"))
)]
pub struct Args {
    #[command(flatten)]
    work: Workload,
    #[command(flatten)]
    nodes: workload::Change,
    /// Also print the 1 − min/lcm rule's prediction beside the measured share
    #[arg(long)]
    rule: bool,
    /// Also measure --from → N for each node count N of RANGE: A..B (both ends included) or A,B,C
    #[arg(long, value_name = "RANGE", value_parser = workload::counts, allow_hyphen_values = true)]
    sweep: Option<Counts>,
}

#[derive(Serialize)]
struct Params {
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<Rule>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sweep: Option<ModuloSweep>,
}

/// The min/lcm rule for this change, from the library's `modulo_period` and `modulo_rule`.
#[derive(Serialize)]
struct Rule {
    min: usize,
    lcm: u128,
    predicted: f64,
}

pub fn run(a: &Args, json: bool) -> Run {
    let (from, to) = a.nodes.names()?;
    let before = Modulo::named(from).map_err(from_flag("--from"))?;
    let after = Modulo::named(to).map_err(from_flag("--to"))?;
    if let (Some(Counts(counts)), Some(n)) = (&a.sweep, a.work.count()) {
        // Refused before the keys are hashed (10,000,000 keys take seconds).
        ModuloSweep::check_cost(n, counts.len()).map_err(from_flag("--sweep"))?;
    }
    let keys = a.work.hashed()?;
    let sweep = match &a.sweep {
        Some(Counts(counts)) => {
            let pairs: Vec<(usize, usize)> = counts.iter().map(|&n| (before.nodes().len(), n)).collect();
            Some(ModuloSweep::measure(&keys, &pairs).map_err(from_flag("--sweep"))?)
        }
        None => None,
    };
    let (old, new) = (before.nodes().len(), after.nodes().len());
    let rule = match a.rule {
        true => Some(Rule { min: old.min(new), lcm: modulo_period(old, new)?, predicted: modulo_rule(old, new)? }),
        false => None,
    };
    let change = Change::measure("modulo", &keys, &before, &after, Params { rule, sweep })?;
    Output::either(json, &change, || {
        let mut text = change.text("hash % N", "");
        if let Some(r) = &change.params.rule {
            let _ = write!(
                text,
                "\n\nthe min/lcm rule: 1 − min({old}, {new}) / lcm({old}, {new}) = 1 − {} / {} = {} · measured {}",
                r.min,
                thousands(r.lcm as u64),
                pct(r.predicted, 2),
                pct(change.movement.share(), 2)
            );
        }
        if let Some(s) = &change.params.sweep {
            let _ = write!(text, "\n\n{s}");
        }
        text
    })
}
