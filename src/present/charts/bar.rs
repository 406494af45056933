//! Grouped bar charts: one group per category, one bar per series.

use super::kit::*;
use super::*;

/// Builder for a grouped bar chart. Create it with [`bar_chart`].
#[derive(Clone, Debug)]
pub struct BarChart {
    frame: Frame,
    labels: [String; 2],
    groups: Vec<String>,
    series: Vec<(String, Vec<f64>)>,
    refs: Vec<(f64, String)>,
    y_percent: bool,
    /// Groups and series given, when more bars than [`MAX_BARS`] were asked for.
    cut: Option<(usize, usize)>,
}

/// The most bars a bar chart draws: of more groups, the first ones that
/// fit are drawn, and the chart says how many it left out.
pub const MAX_BARS: usize = 2_000;

/// A grouped bar chart: one group per category (e.g. nodes A, B, C, D) and one bar per series
/// in each group; `series[j].1[g]` is the height of series `j` in group `g` (missing or
/// non-finite: no bar). Values are written above the bars when they fit.
pub fn bar_chart<G: AsRef<str>, S: AsRef<str>>(
    title: &str,
    y_label: &str,
    groups: &[G],
    series: &[(S, Vec<f64>)],
) -> BarChart {
    let (ng, ns) = (groups.len(), series.len());
    let keep_series = ns.min(MAX_BARS);
    let keep_groups = ng.min((MAX_BARS / keep_series.max(1)).max(1));
    BarChart {
        frame: Frame::new(title),
        labels: [String::new(), y_label.to_string()],
        groups: groups.iter().take(keep_groups).map(|g| g.as_ref().to_string()).collect(),
        series: series
            .iter()
            .take(keep_series)
            .map(|(n, v)| (n.as_ref().to_string(), v.iter().take(keep_groups).copied().collect()))
            .collect(),
        refs: Vec::new(),
        y_percent: false,
        cut: (keep_groups < ng || keep_series < ns).then_some((ng, ns)),
    }
}

/// [`bar_chart`] of counts (rows, keys, writes): each series a name and its
/// counts (a `Vec<u64>`, a slice, an array), one per group.
///
/// ```
/// use reshard::present::charts::counts_chart;
/// let c = counts_chart("rows per shard", "rows", &["A", "B"], &[("rows", &[3u64, 5][..])]);
/// assert!(c.build().svg().contains("rows per shard"));
/// ```
pub fn counts_chart<G: AsRef<str>, S: AsRef<str>, V: AsRef<[u64]>>(
    title: &str,
    y_label: &str,
    groups: &[G],
    series: &[(S, V)],
) -> BarChart {
    let series: Vec<(&str, Vec<f64>)> =
        series.iter().map(|(n, v)| (n.as_ref(), v.as_ref().iter().map(|&c| c as f64).collect())).collect();
    bar_chart(title, y_label, groups, &series)
}

builder_common!(BarChart);

impl BarChart {
    /// Adds a dashed horizontal reference line at `y` (e.g. the fair share), listed in the
    /// legend as `label`.
    pub fn reference(mut self, y: f64, label: &str) -> Self {
        self.refs.push((y, label.to_string()));
        self
    }
    /// A label under the category names.
    pub fn x_label(mut self, label: &str) -> Self {
        self.labels[0] = label.to_string();
        self
    }
    /// Shows the y axis and value labels as percentages (0.25 → "25%").
    pub fn y_percent(mut self, on: bool) -> Self {
        self.y_percent = on;
        self
    }

    /// Renders the chart.
    pub fn build(&self) -> Figure {
        let note = self.cut.map(|(groups, series)| {
            format!(
                "the first {} of {} groups and {} of {} series ({} bars at most)",
                thousands(self.groups.len().max(1) as u64),
                thousands(groups as u64),
                thousands(self.series.len() as u64),
                thousands(series as u64),
                thousands(MAX_BARS as u64)
            )
        });
        let frame = noted(&self.frame, note);
        let frame = frame.as_ref();
        let (ng, ns) = (self.groups.len(), self.series.len());
        let val = |j: usize, g: usize| self.series[j].1.get(g).copied().filter(|v| v.is_finite() && v.abs() < 1e300);
        let bars: Vec<(usize, usize, f64)> =
            (0..ns).flat_map(|j| (0..ng).filter_map(move |g| Some((j, g, val(j, g)?)))).collect();
        if bars.is_empty() {
            return no_data(frame, "no finite values to plot");
        }
        let vals = bars.iter().map(|b| b.2).chain(self.refs.iter().map(|r| r.0).filter(|v| v.is_finite()));
        let (lo, hi) = vals.fold((0.0f64, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
        let named = self.series.iter().enumerate().filter(|s| !s.1 .0.is_empty());
        let mut legend: Legend = named.map(|(j, s)| (Key::Bar(j), s.0.clone())).collect();
        legend.extend(ref_keys(&self.refs));
        render(frame, |a| {
            let plot = with_legend(a, &legend)?;
            let fy = |v: f64| fmt_value(v, self.y_percent);
            let labels = [self.labels[0].as_str(), self.labels[1].as_str()];
            let mut chart =
                cartesian(&plot, Axis(0.0, ng as f64, vec![]), axis(lo, hi, false, true, 5.0), [&fy, &fy], labels)?;
            let (bw, base) = (0.8 / ns as f64, plot.get_base_pixel());
            let x = |g: usize, j: usize| g as f64 + 0.1 + j as f64 * bw;
            let px = |v: f64| f64::from(chart.backend_coord(&(v, 0.0)).0 - base.0);
            let (bar_px, group_px) = (px(bw) - px(0.0), px(1.0) - px(0.0));
            let bottom = f64::from(chart.backend_coord(&(0.0, chart.y_range().start)).1 - base.1);
            let centres: Vec<f64> = (0..ng).map(|g| px(g as f64 + 0.5)).collect();
            let fits = bars.iter().all(|b| text_w(&fy(b.2), 11.0) <= bar_px + 2.0);
            for &(j, g, v) in &bars {
                let r = [(x(g, j) + 0.01 * bw, 0.0), (x(g, j) + 0.99 * bw, v)];
                chart.draw_series([Rectangle::new(r, color(j).filled())])?;
                if hatch_kind(j) > 0 {
                    let at = |p: (f64, f64)| {
                        let (x, y) = chart.backend_coord(&p);
                        (f64::from(x - base.0), f64::from(y - base.1))
                    };
                    hatch(&plot, at(r[0]), at(r[1]), hatch_kind(j), color(j))?;
                }
                chart.draw_series([Rectangle::new(r, INK)])?;
                if fits {
                    let (vp, dy) = if v >= 0.0 { (Bottom, -3) } else { (Top, 3) };
                    let label = Text::new(fy(v), (0, dy), font(11.0, Mid, vp));
                    chart.draw_series([EmptyElement::at((x(g, j) + bw / 2.0, v)) + label])?;
                }
            }
            ref_lines(&mut chart, &self.refs, |v| v)?;
            if lo < 0.0 {
                chart.draw_series([PathElement::new(vec![(0.0, 0.0), (ng as f64, 0.0)], INK)])?;
            }
            // Group names under the axis, on two staggered lines when they would overlap.
            let stagger = self.groups.iter().any(|s| text_w(s, TICK) > group_px - 6.0);
            for (g, s) in self.groups.iter().enumerate() {
                let y = bottom + if stagger && g % 2 == 1 { 19.0 } else { 5.0 };
                text(&plot, s.as_str(), (centres[g], y), font(TICK, Mid, Top))?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_past_u64_max_are_printed_whole() {
        // Python: f"{5e19:,.0f}"
        let big = bar_chart("big", "keys", &["A", "B"], &[("x", vec![1e20, 2e20])]).build();
        assert!(big.svg().contains("\n50,000,000,000,000,000,000\n"), "the ticks of a bar chart of 1e20");
    }
}
