//! An explorable's default view (the lab's setting) for paper and plain
//! text: the plotters picture and the numbers on one line.

use super::{ChartKind, Explorable, Format, XValue};
use crate::present::charts::{bar_chart, line_chart, Figure, Series};
use crate::present::escape::one_line;
use crate::present::{fixed, pct};

impl Explorable {
    pub(super) fn written(&self, y: f64) -> String {
        match self.format {
            Format::Percent(d) => pct(y, d.into()),
            Format::Fixed(d) => fixed(y, d.into()),
            Format::Count => fixed(y, 0),
        }
    }

    /// The default view's numbers on one line.
    pub(super) fn text_line(&self) -> String {
        let points = self.default_points();
        let series = self.series_names();
        let parts: Vec<String> = series
            .iter()
            .map(|s| {
                let vals: Vec<String> = points
                    .iter()
                    .filter(|p| p.series == *s)
                    .map(|p| format!("{} {}", p.x, self.written(p.y)))
                    .collect();
                if s.is_empty() {
                    vals.join(", ")
                } else {
                    format!("{s}: {}", vals.join(", "))
                }
            })
            .collect();
        let line = format!("{} · {}: {}", self.title, self.describe(&self.default_setting()), parts.join("; "));
        one_line(&line).into_owned()
    }

    /// The default view drawn with plotters.
    pub(super) fn figure(&self) -> Figure {
        let points = self.default_points();
        let series = self.series_names();
        let percent = matches!(self.format, Format::Percent(_));
        let subtitle = format!(
            "{} (the lab's setting; the notebook's slider shows the others)",
            self.describe(&self.default_setting())
        );
        let (w, h) = self.size;
        match self.kind {
            ChartKind::Bars => {
                let mut groups: Vec<String> = Vec::new();
                for p in &points {
                    let g = p.x.to_string();
                    if !groups.contains(&g) {
                        groups.push(g);
                    }
                }
                let bars: Vec<(&str, Vec<f64>)> = series
                    .iter()
                    .map(|s| {
                        let ys = groups
                            .iter()
                            .map(|g| {
                                points
                                    .iter()
                                    .find(|p| p.series == *s && p.x.to_string() == *g)
                                    .map_or(f64::NAN, |p| p.y)
                            })
                            .collect();
                        (*s, ys)
                    })
                    .collect();
                bar_chart(&self.title, &self.y_label, &groups, &bars)
                    .x_label(&self.x_label)
                    .y_percent(percent)
                    .subtitle(&subtitle)
                    .size(w.max(480), h.max(300))
                    .build()
            }
            ChartKind::Line => {
                let lines: Vec<Series> = series
                    .iter()
                    .map(|s| {
                        Series::new(
                            *s,
                            points.iter().filter(|p| p.series == *s).filter_map(|p| match p.x {
                                XValue::Number(x) => Some((x, p.y)),
                                XValue::Name(_) => None,
                            }),
                        )
                    })
                    .collect();
                line_chart(&self.title, &self.x_label, &self.y_label, &lines)
                    .y_percent(percent)
                    .subtitle(&subtitle)
                    .size(w.max(480), h.max(300))
                    .build()
            }
        }
    }
}
