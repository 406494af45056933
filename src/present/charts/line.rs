//! Line charts of [`Series`]: log axes, percentages, bands and reference lines.

use super::kit::*;
use super::*;

/// Builder for a line chart. Create it with [`line_chart`].
#[derive(Clone, Debug)]
pub struct LineChart {
    frame: Frame,
    labels: [String; 2],
    series: Vec<Series>,
    log: [bool; 2],
    y_percent: bool,
    include_zero: bool,
    refs: Vec<(f64, String)>,
    /// The most points a series had when it was thinned, and to how many
    /// (see [`MAX_SERIES_POINTS`] and [`MAX_LINE_POINTS`]).
    thinned: Option<(usize, usize)>,
    /// How many series were given when only the first [`MAX_LINES`] are drawn.
    cut: Option<usize>,
    /// Why nothing is drawn: the points were over the limit and not copied.
    over: Option<String>,
}

/// The most points of one series drawn as given; a longer series is
/// thinned to at most that many, keeping of every run of consecutive points
/// the first, the lowest, the highest and the last (so the line's envelope
/// is drawn as it is), and the chart says so.
pub const MAX_SERIES_POINTS: usize = 10_000;

/// The most points of all series together drawn as given: each series is
/// thinned to at most this many over the number of series (and at most
/// [`MAX_SERIES_POINTS`]), so a chart of many lines stays as small as one
/// of a few (4,096 lines of 4,882 points each made a 294 MB SVG).
pub const MAX_LINE_POINTS: usize = 100_000;

/// The most series one line chart draws: the first this many are drawn,
/// and the chart says how many there were. (Past a few dozen lines in one
/// chart, neither the lines nor the legend can be told apart.)
pub const MAX_LINES: usize = 64;

/// `points` thinned to at most `most` (4 or more): in runs of consecutive
/// points, the first, lowest, highest and last of each, in order.
fn thin<T: Copy>(points: &[T], most: usize, y_lo: impl Fn(&T) -> f64, y_hi: impl Fn(&T) -> f64) -> Vec<T> {
    if points.len() <= most {
        return points.to_vec();
    }
    let run = points.len().div_ceil((most / 4).max(1));
    let mut out = Vec::with_capacity(most);
    for chunk in points.chunks(run) {
        let by = |f: &dyn Fn(&T) -> f64, low: bool| {
            let key = |i: &usize| f(&chunk[*i]);
            let pick = (0..chunk.len()).filter(|i| key(i).is_finite());
            if low {
                pick.min_by(|a, b| key(a).total_cmp(&key(b)))
            } else {
                pick.max_by(|a, b| key(a).total_cmp(&key(b)))
            }
        };
        let mut keep = vec![0, chunk.len() - 1];
        keep.extend(by(&y_lo, true));
        keep.extend(by(&y_hi, false));
        keep.sort_unstable();
        keep.dedup();
        out.extend(keep.into_iter().map(|i| chunk[i]));
    }
    out
}

/// A line chart of [`Series`], with optional bands, log axes, reference lines and a legend
/// under the chart.
///
/// ```
/// use reshard::present::charts::{line_chart, Series, Style};
/// let ns: Vec<f64> = (2..=10).map(f64::from).collect();
/// let fig = line_chart("Share of keys moved", "nodes after (N+1)", "share of keys moved", &[
///     Series::new("hash % N", ns.iter().map(|&n| (n, 1.0 - 1.0 / n))),
///     Series::new("1/(N+1) floor", ns.iter().map(|&n| (n, 1.0 / n))).style(Style::Line).ink(3),
/// ])
/// .y_percent(true)
/// .build();
/// assert!(fig.svg().contains("hash % N"));
/// ```
///
/// A series of more than [`MAX_SERIES_POINTS`] points is thinned, and so are series of more
/// than [`MAX_LINE_POINTS`] in all; only the first [`MAX_LINES`] series are drawn (the chart
/// says so in each case). Series of more points in all than
/// [`Limits::max_keys`](crate::limits::Limits::max_keys) are not copied: the chart says which
/// limit they are over.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> LineChart {
    let total = series.iter().map(|s| s.points.len().saturating_add(s.band.len())).fold(0, usize::saturating_add);
    let over = over_limit("points", total, crate::limits::current().max_keys);
    let given = if over.is_some() { &[][..] } else { series };
    let series = &given[..given.len().min(MAX_LINES)];
    let longest = series.iter().map(|s| s.points.len().max(s.band.len())).max().unwrap_or(0);
    let most = MAX_SERIES_POINTS.min(MAX_LINE_POINTS / series.len().max(1));
    let copied = series
        .iter()
        .map(|s| Series {
            name: s.name.clone(),
            points: thin(&s.points, most, |p| p.1, |p| p.1),
            band: thin(&s.band, most, |b| b.1, |b| b.2),
            style: s.style,
            ink: s.ink,
        })
        .collect();
    LineChart {
        frame: Frame::new(title),
        labels: [x_label.to_string(), y_label.to_string()],
        series: copied,
        log: [false; 2],
        y_percent: false,
        include_zero: true,
        refs: Vec::new(),
        thinned: (longest > most).then_some((longest, most)),
        cut: (given.len() > MAX_LINES).then_some(given.len()),
        over,
    }
}

builder_common!(LineChart);

impl LineChart {
    /// Logarithmic x axis (points with x ≤ 0 are skipped).
    pub fn log_x(mut self, on: bool) -> Self {
        self.log[0] = on;
        self
    }
    /// Logarithmic y axis (points with y ≤ 0 are skipped).
    pub fn log_y(mut self, on: bool) -> Self {
        self.log[1] = on;
        self
    }
    /// Shows y tick labels as percentages (0.25 → "25%").
    pub fn y_percent(mut self, on: bool) -> Self {
        self.y_percent = on;
        self
    }
    /// Whether the y range must include 0 (default true; no effect on a log axis).
    pub fn include_zero(mut self, on: bool) -> Self {
        self.include_zero = on;
        self
    }
    /// Adds a dashed horizontal reference line at `y`, listed in the legend as `label`.
    pub fn reference(mut self, y: f64, label: &str) -> Self {
        self.refs.push((y, label.to_string()));
        self
    }

    /// Renders the chart.
    pub fn build(&self) -> Figure {
        if let Some(why) = &self.over {
            return no_data(&self.frame, why);
        }
        let cut = self.cut.map(|n| format!("the first {MAX_LINES} of {} series", thousands(n as u64)));
        let thinned = self.thinned.map(|(n, most)| {
            format!(
                "series of up to {} points thinned to {}: each run's first, lowest, highest and last",
                thousands(n as u64),
                thousands(most as u64)
            )
        });
        let note = match (cut, thinned) {
            (Some(c), Some(t)) => Some(format!("{c}; {t}")),
            (c, t) => c.or(t),
        };
        let frame = noted(&self.frame, note);
        let frame = frame.as_ref();
        let [lx, ly] = self.log;
        let ok = |v: f64, log: bool| v.is_finite() && v.abs() < 1e300 && (!log || v > 0.0);
        let t = |v: f64, log: bool| if log { v.log10() } else { v };
        let pts = |s: &Series| -> Vec<(f64, f64)> {
            s.points.iter().filter(|p| ok(p.0, lx) && ok(p.1, ly)).map(|p| (t(p.0, lx), t(p.1, ly))).collect()
        };
        let band = |s: &Series| -> Vec<(f64, f64, f64)> {
            let ok = |b: &&(f64, f64, f64)| ok(b.0, lx) && ok(b.1, ly) && ok(b.2, ly);
            s.band.iter().filter(ok).map(|b| (t(b.0, lx), t(b.1, ly), t(b.2, ly))).collect()
        };
        let prep: Vec<_> =
            self.series.iter().enumerate().map(|(i, s)| (s.ink.unwrap_or(i) % 8, s, pts(s), band(s))).collect();
        let xs = prep.iter().flat_map(|p| p.2.iter().map(|q| q.0).chain(p.3.iter().map(|q| q.0)));
        let ys = prep.iter().flat_map(|p| p.2.iter().map(|q| q.1).chain(p.3.iter().flat_map(|q| [q.1, q.2])));
        let refs = self.refs.iter().filter(|r| ok(r.0, ly)).map(|r| t(r.0, ly));
        let ys = ys.chain(refs).chain((self.include_zero && !ly).then_some(0.0));
        let span = |it: &mut dyn Iterator<Item = f64>| {
            it.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)))
        };
        let ((x0, x1), (y0, y1)) = (span(&mut xs.into_iter()), span(&mut ys.into_iter()));
        if x0 > x1 {
            return no_data(frame, "no finite points to plot");
        }
        let key = |p: &(usize, &Series, _, Vec<_>)| {
            Key::Series(p.0, p.1.style != Style::Points, p.1.style != Style::Line, !p.3.is_empty())
        };
        let mut legend: Legend =
            prep.iter().filter(|p| !p.1.name.is_empty()).map(|p| (key(p), p.1.name.clone())).collect();
        legend.extend(ref_keys(&self.refs));
        // The data are in log10 space already; `axis` wants them back for a log axis.
        let un = |v: f64, log: bool| if log { 10f64.powf(v) } else { v };
        let (xa, ya) = (axis(un(x0, lx), un(x1, lx), lx, false, 8.0), axis(un(y0, ly), un(y1, ly), ly, !ly, 5.0));
        render(frame, |a| {
            let plot = with_legend(a, &legend)?;
            let fx = |v: f64| fmt_value(un(v, lx), false);
            let fy = |v: f64| fmt_value(un(v, ly), self.y_percent);
            let [xl, yl] = [self.labels[0].as_str(), self.labels[1].as_str()];
            let mut chart = cartesian(&plot, xa, ya, [&fx, &fy], [xl, yl])?;
            for (ink, _, _, band) in prep.iter().filter(|p| !p.3.is_empty()) {
                let c = rgb(INKS[*ink].0);
                let lo: Vec<(f64, f64)> = band.iter().map(|b| (b.0, b.1)).collect();
                let hi: Vec<(f64, f64)> = band.iter().rev().map(|b| (b.0, b.2)).collect();
                let poly: Vec<(f64, f64)> = lo.iter().chain(&hi).copied().collect();
                chart.draw_series([Polygon::new(poly, c.mix(0.18).filled())])?;
                chart.draw_series([PathElement::new(lo, c.mix(0.6)), PathElement::new(hi, c.mix(0.6))])?;
            }
            ref_lines(&mut chart, &self.refs, |v| t(v, ly))?;
            for (ink, s, xy, _) in &prep {
                let (c, dash) = INKS[*ink];
                if s.style != Style::Points && xy.len() > 1 {
                    line(chart.plotting_area(), xy.clone(), dash, rgb(c).stroke_width(2))?;
                }
                let every = if s.style == Style::Points { 1 } else { xy.len().div_ceil(30) };
                for (i, p) in xy.iter().enumerate() {
                    if (s.style != Style::Line || xy.len() == 1) && (i % every == 0 || i + 1 == xy.len()) {
                        mark(chart.plotting_area(), *ink, *p, 4, rgb(c))?;
                    }
                }
            }
            Ok(())
        })
    }
}
