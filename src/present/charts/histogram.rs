//! Histograms of a list of values.

use super::kit::*;
use super::*;

/// Builder for a histogram. Create it with [`histogram`].
#[derive(Clone, Debug)]
pub struct Histogram {
    frame: Frame,
    x_label: String,
    values: Vec<f64>,
    bins: usize,
    refs: Vec<(f64, String)>,
    over: Option<String>,
}

/// A histogram of `values` in `bins` equal-width bins (`0` = automatic: Sturges' rule, at most
/// 60). Non-finite values are ignored.
/// More values than [`Limits::max_keys`](crate::limits::Limits::max_keys) are not copied: the
/// chart says which limit they are over.
pub fn histogram(title: &str, x_label: &str, values: &[f64], bins: usize) -> Histogram {
    let over = over_limit("values", values.len(), crate::limits::current().max_keys);
    Histogram {
        frame: Frame::new(title),
        x_label: x_label.to_string(),
        values: if over.is_none() { values.to_vec() } else { Vec::new() },
        bins,
        refs: Vec::new(),
        over,
    }
}

builder_common!(Histogram);

impl Histogram {
    /// Adds a dashed vertical reference line at `x` (e.g. the mean), listed in the legend.
    pub fn reference(mut self, x: f64, label: &str) -> Self {
        self.refs.push((x, label.to_string()));
        self
    }

    /// Renders the chart.
    pub fn build(&self) -> Figure {
        if let Some(why) = &self.over {
            return no_data(&self.frame, why);
        }
        let vals: Vec<f64> = self.values.iter().copied().filter(|v| v.is_finite() && v.abs() < 1e300).collect();
        let (mut lo, mut hi) = vals.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        if vals.is_empty() {
            return no_data(&self.frame, "no finite values to count");
        } else if hi <= lo {
            (lo, hi) = (lo - 0.5, hi + 0.5);
        }
        let nb =
            if self.bins == 0 { ((vals.len() as f64).log2().ceil() as usize + 1).min(60) } else { self.bins.min(1000) };
        let width = (hi - lo) / nb as f64;
        let mut counts = vec![0u64; nb];
        for &v in &vals {
            counts[(((v - lo) / width) as usize).min(nb - 1)] += 1;
        }
        let top = counts.iter().copied().max().unwrap_or(1) as f64;
        render(&self.frame, |a| {
            let plot = with_legend(a, &ref_keys(&self.refs))?;
            let f = |v: f64| fmt_value(v, false);
            let xa = Axis(lo, hi, axis(lo, hi, false, false, 8.0).2);
            let mut chart = cartesian(&plot, xa, axis(0.0, top, false, true, 5.0), [&f, &f], [&self.x_label, "count"])?;
            for (b, &c) in counts.iter().enumerate().filter(|c| *c.1 > 0) {
                let r = [(lo + b as f64 * width, 0.0), (lo + (b + 1) as f64 * width, c as f64)];
                chart.draw_series([Rectangle::new(r, color(0).filled()), Rectangle::new(r, WHITE)])?;
            }
            let y1 = chart.y_range().end;
            for (k, (v, _)) in self.refs.iter().enumerate().filter(|r| (lo..=hi).contains(&r.1 .0)) {
                line(chart.plotting_area(), vec![(*v, 0.0), (*v, y1)], REF_DASH[k % 3], INK.stroke_width(2))?;
            }
            Ok(())
        })
    }
}
