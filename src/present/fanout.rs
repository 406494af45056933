//! Tables and charts for tail latency: a [`Latency`], a [`FanOut`] (its
//! quantiles beside one shard's), a simulated [`FanOutRun`] beside the
//! formula, a [`FanOutSweep`] over shard counts, and the [`StaleReadSweep`] of
//! an asynchronously updated index.
//!
//! ```
//! use reshard::analysis::{FanOutSweep, Latency, Simulation};
//! use reshard::notebook::*;
//! let shard = Latency::two_point(10.0, 200.0, 0.01)?;
//! let sweep = FanOutSweep::run(&shard, &[1, 4, 16], 10.0, &Simulation::new(10_000))?;
//! let text = sweep.to_string();
//! assert!(text.contains("1 − (1 − p)^N") && text.contains("14.85%"), "{text}");
//! # #[cfg(feature = "charts")]
//! assert!(sweep.share_chart("share of queries slower than 10 ms, by shards asked").build().svg().contains("shards"));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::{FanOut, FanOutRun, FanOutSweep, Latency, StaleReadSweep};
#[cfg(feature = "charts")]
use crate::present::charts::{self as plot, LineChart, Series, Style};
use crate::present::tables::{shows_as_table, Table};
use crate::present::{fixed, pct, thousands};

/// The quantile levels the tables show.
const LEVELS: [(f64, &str); 4] = [(0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (0.999, "p99.9")];

/// Milliseconds: up to 3 decimals, trailing zeros dropped (`10`, `12.5`).
fn ms(x: f64) -> String {
    let s = fixed(x, 3);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn q_ms(l: &Latency, q: f64) -> String {
    l.quantile(q).map_or("–".into(), ms)
}

impl Latency {
    /// Its mean and quantiles.
    pub fn table(&self) -> Table {
        let mut t = Table::new(format!("latency of one shard: {}", self.describe()), ["", "ms"]);
        t.row(["mean".to_string(), ms(self.mean())]);
        for (q, name) in LEVELS {
            t.row([name.to_string(), q_ms(self, q)]);
        }
        t.row(["max".to_string(), q_ms(self, 1.0)]);
        t.note("quantile q: the smallest value t with P(latency ≤ t) ≥ q (no interpolation)");
        t
    }
}
shows_as_table!(Latency);

impl FanOut {
    /// Its quantiles, beside each shard's own when the shards are alike.
    pub fn table(&self) -> Table {
        let first = &self.shards()[0];
        let alike = self.shards().iter().all(|s| s == first);
        let n = self.shards().len();
        let mut headers = vec!["quantile".to_string(), format!("fan-out over {n} shards (ms)")];
        if alike {
            headers.push("one shard (ms)".into());
        }
        let mut t = Table::new(format!("a query that waits for {}", self.describe()), headers);
        for (q, name) in LEVELS {
            let mut row = vec![name.to_string(), self.quantile(q).map_or("–".into(), ms)];
            if alike {
                row.push(q_ms(first, q));
            }
            t.row(row);
        }
        t.note("the fan-out latency is the slowest shard's: P(max ≤ t) = Π Fᵢ(t); quantile q is the smallest t with Π Fᵢ(t) ≥ q");
        t
    }
}
shows_as_table!(FanOut);

impl FanOutRun {
    /// Its quantiles beside the formula's.
    pub fn table(&self) -> Table {
        let s = self.simulation();
        let mut t = Table::new(
            format!("{} simulated queries over {}", thousands(s.trials() as u64), self.fan_out().describe()),
            ["quantile", "formula (ms)", "simulated (ms)"],
        );
        for (q, name) in LEVELS {
            t.row([
                name.to_string(),
                self.fan_out().quantile(q).map_or("–".into(), ms),
                self.quantile(q).map_or("–".into(), ms),
            ]);
        }
        t.note(format!("seed {}: each query draws one latency per shard and waits for the largest", s.seed_value()));
        t
    }
}
shows_as_table!(FanOutRun);

/// True when `Π F(t) = q` at the formula's quantile `t` (to 1e-12): the
/// quantile sits on a step, and a simulated share falls on either side.
fn on_edge(latency: &Latency, n: usize, q: f64, t: f64) -> bool {
    let one = latency.cdf(t);
    ((0..n).fold(1.0, |p, _| p * one) - q).abs() < 1e-12
}

impl FanOutSweep {
    /// One row per shard count: the share slower than `t`, p50 and p99,
    /// formula beside simulation.
    pub fn table(&self) -> Table {
        let t_ms = ms(self.slower_than());
        let closed = self.rows().iter().any(|r| r.share_closed_form.is_some());
        let mut headers = vec!["shards".to_string(), format!("slower than {t_ms} ms: Π Fᵢ")];
        if closed {
            headers.push("1 − (1 − p)^N".into());
        }
        headers.extend(["simulated", "p50", "p50 simulated", "p99", "p99 simulated"].map(String::from));
        let mut t = Table::new(format!("fan-out queries, each shard {}", self.latency().describe()), headers);
        for r in self.rows() {
            let mut row = vec![thousands(r.shards as u64), pct(r.share_slower, 2)];
            if closed {
                row.push(r.share_closed_form.map_or("–".into(), |c| pct(c, 2)));
            }
            row.extend([pct(r.share_simulated, 2), ms(r.p50), ms(r.p50_simulated), ms(r.p99), ms(r.p99_simulated)]);
            t.row(row);
        }
        let s = self.simulation();
        let mut note = format!(
            "formula: P(max ≤ t) = Π Fᵢ(t), quantile q the smallest t with Π Fᵢ(t) ≥ q; simulated: {} queries per \
             row, seed {}",
            thousands(s.trials() as u64),
            s.seed_value()
        );
        for r in self.rows() {
            for (q, name, v) in [(0.5, "p50", r.p50), (0.99, "p99", r.p99)] {
                if on_edge(self.latency(), r.shards, q, v) {
                    note.push_str(&format!(
                        "; {name} at N = {}: exactly {} of queries take at most {} ms, so a simulation lands on \
                         either side of the step",
                        r.shards,
                        pct(q, 0),
                        ms(v)
                    ));
                }
            }
        }
        t.note(note);
        t
    }

    /// The share of queries slower than `t` against the shards asked: the
    /// formula as a line over every count up to the largest (at most 2,000
    /// points), the simulation as markers.
    #[cfg(feature = "charts")]
    #[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
    pub fn share_chart(&self, title: &str) -> LineChart {
        let t = self.slower_than();
        let max = self.rows().iter().map(|r| r.shards).max().unwrap_or(1);
        let step = max.div_ceil(2_000).max(1);
        let mut ns: Vec<usize> = (1..=max).step_by(step).collect();
        ns.extend(self.rows().iter().map(|r| r.shards));
        ns.sort_unstable();
        ns.dedup();
        let one = self.latency().cdf(t);
        let formula = ns.iter().map(|&n| (n as f64, 1.0 - (0..n).fold(1.0, |p, _| p * one)));
        let simulated = self.rows().iter().map(|r| (r.shards as f64, r.share_simulated));
        plot::line_chart(
            title,
            "shards the query waits for (N)",
            &format!("share of queries slower than {} ms", ms(t)),
            &[
                Series::new("formula 1 − F(t)^N", formula).style(Style::Line),
                Series::new("simulated", simulated).style(Style::Points),
            ],
        )
        .y_percent(true)
        .subtitle(&format!("each shard {}", self.latency().describe()))
    }
}
shows_as_table!(FanOutSweep);

impl StaleReadSweep {
    /// One row per lag: the exact chance of a miss beside the simulated
    /// share and its binomial standard deviation.
    pub fn table(&self) -> Table {
        let i = self.index();
        let jitter =
            if i.jitter_ms() > 0.0 { format!(", visible 0–{} ms later", ms(i.jitter_ms())) } else { String::new() };
        let mut t = Table::new(
            format!("reads of an index drained every {} ms{jitter}", ms(i.period_ms())),
            ["lag after the write (ms)", "P(miss), exact", "simulated", "misses", "± 1 sd"],
        );
        for r in self.rows() {
            t.row([
                ms(r.lag_ms),
                pct(r.miss_exact, 2),
                pct(r.miss_simulated, 2),
                format!("{} of {}", thousands(r.misses), thousands(r.reads)),
                pct(r.sd(), 2),
            ]);
        }
        let s = self.simulation();
        t.note(format!(
            "a write at a uniformly random phase of the period; the read misses it until the next drain is visible; \
             {} writes per lag, seed {}",
            thousands(s.trials() as u64),
            s.seed_value()
        ));
        t
    }

    /// The chance of a miss against the lag: exact as a line (0 to past
    /// the last lag or `period + jitter`), simulated as markers.
    #[cfg(feature = "charts")]
    #[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
    pub fn miss_chart(&self, title: &str) -> LineChart {
        let i = self.index();
        let end = self.rows().iter().map(|r| r.lag_ms).fold(i.period_ms() + i.jitter_ms(), f64::max) * 1.05;
        let exact = (0..=200).map(|k| {
            let lag = end * k as f64 / 200.0;
            (lag, i.miss_probability(lag).unwrap_or(f64::NAN))
        });
        let simulated = self.rows().iter().map(|r| (r.lag_ms, r.miss_simulated));
        plot::line_chart(
            title,
            "lag from the write to the read (ms)",
            "share of reads that miss the write",
            &[Series::new("exact", exact).style(Style::Line), Series::new("simulated", simulated).style(Style::Points)],
        )
        .y_percent(true)
        .subtitle(&format!("drained every {} ms, jitter {} ms", ms(i.period_ms()), ms(i.jitter_ms())))
    }
}
shows_as_table!(StaleReadSweep);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{AsyncIndex, Simulation};

    #[test]
    fn milliseconds_drop_trailing_zeros() {
        assert_eq!(
            (ms(10.0), ms(12.5), ms(0.001), ms(1234.0)),
            ("10".into(), "12.5".into(), "0.001".into(), "1,234".into())
        );
    }

    #[test]
    fn tables_say_what_they_compare() {
        let l = Latency::from_samples(&[1.0, 2.0, 30.0]).unwrap();
        assert!(l.to_string().contains("p99") && l.to_string().contains("30"), "{l}");
        let f = FanOut::copies(&l, 3).unwrap();
        assert!(f.to_string().contains("one shard (ms)"), "{f}");
        let run = f.simulate(&Simulation::new(100).seed(1)).unwrap();
        assert!(run.to_string().contains("100 simulated queries"), "{run}");
        let s = AsyncIndex::new(100.0).unwrap().sweep(&[0.0, 50.0], &Simulation::new(1_000)).unwrap();
        let text = s.to_string();
        assert!(text.contains("100.00%") && text.contains("50.00%") && text.contains("of 1,000"), "{text}");
    }
}
