//! Charts for lab 11's live runs (features `etcd` and `charts`): the shard
//! map before and after the controller's moves, each router's misroutes
//! as the requests go by, the lease's deletes against their window, and
//! the zombie's writes with the fence off and on.
//!
//! Every figure is drawn from what the servers and the crate's routers
//! reported, which the tables beside them check against the crate's
//! prediction.

use crate::live::shard_lab::{LeaseWindow, ScriptedMoves, StaleRouters, ZombieSeen};
use crate::present::charts::{self as plot, BarChart, LineChart, Series, Style};
use crate::schemes::shard_map::ShardMap;

/// Each shard's owner as the index of its node.
fn owners(map: &ShardMap) -> Vec<usize> {
    (0..map.shards()).map(|s| map.owner_index(s).map_or(usize::MAX, |i| i as usize)).collect()
}

impl ScriptedMoves {
    /// The map before the moves and as etcd holds it after them, the shards
    /// that changed owner marked.
    pub fn chart(&self) -> plot::ShardMap {
        plot::shard_map(
            "The shard map before and after the controller's moves",
            &owners(&self.before),
            &owners(&self.observed),
            self.before.nodes(),
        )
    }
}

impl StaleRouters {
    /// Misroutes so far against the time of the request, one line per
    /// refresh policy (as the live routers counted them), the moves'
    /// time marked in the subtitle.
    pub fn chart(&self) -> LineChart {
        let rate = f64::from(self.rate.max(1));
        let end = self.requests as f64 / rate;
        let series: Vec<Series> = self
            .runs
            .iter()
            .map(|(run, seen)| {
                // a step up at each stale request: the count just before it, then after it
                let mut points = vec![(0.0, 0.0)];
                for (k, &i) in seen.stale_requests.iter().enumerate() {
                    let t = i as f64 / rate;
                    points.push((t, k as f64));
                    points.push((t, (k + 1) as f64));
                }
                points.push((end, seen.stale_requests.len() as f64));
                Series::new(run.policy.label(), points).style(Style::Line)
            })
            .collect();
        let at: Vec<String> =
            self.moves.iter().map(|m| format!("shard {} to {} at {} s", m.shard(), m.to(), m.seconds())).collect();
        plot::line_chart("Misroutes so far, by refresh policy", "time of the request (s)", "misroutes so far", &series)
            .include_zero(true)
            .subtitle(&format!("{} requests at {} a second; {}", self.requests, self.rate, at.join(", ")))
    }
}

impl LeaseWindow {
    /// When each trial's key was gone, against the window the crate
    /// predicts (the lines at its two ends).
    pub fn chart(&self) -> BarChart {
        let trials: Vec<String> = (1..=self.gone_after.len()).map(|i| format!("trial {i}")).collect();
        let (lo, hi) = self.predicted_window;
        plot::bar_chart(
            &format!("Key gone after the heartbeat stops, a {} s lease granted", self.granted),
            "seconds after the last renewal",
            &trials,
            &[("key gone", self.gone_after.clone())],
        )
        .reference(lo, "the TTL")
        .reference(hi, "TTL + the leader's check")
    }
}

impl ZombieSeen {
    /// The zombie's writes, acknowledged, refused and lost, one bar per run
    /// (`fence off`, `fence on`), as the router and the nodes reported them.
    pub fn chart(runs: &[&ZombieSeen]) -> BarChart {
        let series: Vec<(String, Vec<f64>)> = runs
            .iter()
            .map(|z| {
                let name = if z.predicted.fence { "fence on" } else { "fence off" };
                (name.to_string(), vec![z.acknowledged as f64, z.refused_nodes as f64, z.lost as f64])
            })
            .collect();
        plot::bar_chart(
            "The writes of a router that slept through the moves",
            "writes",
            &["acknowledged", "refused by a node", "lost (absent at the owner)"],
            &series,
        )
    }
}
