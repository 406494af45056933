//! `reshard ring`: the consistent-hash ring (defaults: document 000).

use crate::change::Change;
use crate::output::{from_flag, Output, Run};
use crate::workload::{self, defaults, Nodes, Workload};
use clap::Args as ClapArgs;
use reshard::{ArrangementSweep, Ring};
use serde::Serialize;
use std::fmt::Write as _;

#[derive(ClapArgs, Debug)]
#[command(
    mut_arg("keys", defaults::keys("100000")),
    mut_arg("prefix", defaults::prefix("user:")),
    mut_arg("width", defaults::width("32"))
)]
pub struct Args {
    #[command(flatten)]
    work: Workload,
    /// Nodes before (document 000: A,B,C)
    #[arg(long, value_name = "NODES", default_value = "A,B,C", value_parser = workload::nodes, allow_hyphen_values = true)]
    from: Nodes,
    /// Nodes after (document 000: A,B,C,D)
    #[arg(long, value_name = "NODES", default_value = "A,B,C,D", value_parser = workload::nodes, allow_hyphen_values = true)]
    to: Nodes,
    /// Prefix for nodes given as a count (document 000 names its 10 → 11 ring S0 … S10)
    #[arg(long, default_value = "S")]
    name_prefix: String,
    /// Points per node on the ring (document 000: 150, and 1 for the bare ring)
    #[arg(long, default_value = "150", value_parser = workload::size, allow_negative_numbers = true)]
    vnodes: usize,
    /// Text in front of every point name "{salt}{node}#{i}": another arrangement of the same nodes
    #[arg(long, default_value = "", conflicts_with = "arrangements")]
    salt: String,
    /// Also repeat the change over N arrangements, salts "0:" … "{N-1}:" (document 000: 30)
    #[arg(long, value_name = "N", value_parser = workload::size, allow_negative_numbers = true)]
    arrangements: Option<usize>,
}

#[derive(Serialize)]
struct Params<'a> {
    vnodes: usize,
    salt: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    arrangements: Option<ArrangementSweep>,
}

pub fn run(a: &Args, json: bool) -> Run {
    let (from, to) = (a.from.names(&a.name_prefix)?, a.to.names(&a.name_prefix)?);
    let before = Ring::named(from.clone()).and_then(|r| r.with_vnodes(a.vnodes)).map_err(from_flag("--from"))?;
    let after = Ring::named(to.clone()).and_then(|r| r.with_vnodes(a.vnodes)).map_err(from_flag("--to"))?;
    let (before, after) = (before.with_salt(a.salt.as_str())?, after.with_salt(a.salt.as_str())?);
    if let (Some(n), Some(keys)) = (a.arrangements, a.work.count()) {
        // Refused before the keys are hashed.
        ArrangementSweep::check_cost(keys, from.len(), to.len(), a.vnodes, n).map_err(from_flag("--arrangements"))?;
    }
    let keys = a.work.hashed()?;
    // The sweep first: it refuses too many arrangements before any work.
    let sweep = match a.arrangements {
        Some(n) => {
            Some(ArrangementSweep::measure(&keys, &from, &to, a.vnodes, n).map_err(from_flag("--arrangements"))?)
        }
        None => None,
    };
    let params = Params { vnodes: a.vnodes, salt: &a.salt, arrangements: sweep };
    let change = Change::measure("ring", &keys, &before, &after, params)?;
    Output::either(json, &change, || {
        let mut detail = format!("{} point{} per node", a.vnodes, if a.vnodes == 1 { "" } else { "s" });
        if !a.salt.is_empty() {
            let _ = write!(detail, " · salt {:?}", a.salt);
        }
        let mut text = change.text("consistent-hash ring", &detail);
        if let Some(s) = &change.params.arrangements {
            let _ = write!(text, "\n\n{s}");
        }
        text
    })
}
