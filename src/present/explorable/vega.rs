//! The Vega-Lite v5 specification of an explorable, built with serde_json:
//! the grid as CSV data, one parameter per slider (bound to a range or a
//! select input, snapped to the nearest computed value), a filter to the
//! setting shown, and the marks with their value labels.

use serde_json::{json, Value};

use super::{ChartKind, Explorable, Format, Input, XValue};

impl Explorable {
    /// The grid as CSV text (one line per point: the sliders' values, the
    /// series when there are several, x, y) and the format that reads it.
    /// A string, not an array of objects: a saved notebook writes a JSON
    /// array one value per indented line, a string on one line, so the
    /// data take about as many bytes in the .ipynb as here. Numbers are
    /// written as Rust prints an `f64` (the shortest form that reads back
    /// exactly), so the chart's values are the crate's to the last bit.
    pub(super) fn csv(&self, several: bool) -> (String, Value) {
        let mut head: Vec<&str> = self.sliders.iter().map(|s| s.name.as_str()).collect();
        let mut parse = serde_json::Map::new();
        for s in &self.sliders {
            parse.insert(s.name.clone(), json!("number"));
        }
        if several {
            head.push("series");
        }
        head.extend(["x", "y"]);
        if self.points.iter().any(|p| matches!(p.x, XValue::Number(_))) {
            parse.insert("x".into(), json!("number"));
        }
        parse.insert("y".into(), json!("number"));
        let mut csv = head.join(",");
        for p in &self.points {
            csv.push('\n');
            for v in &p.setting {
                csv.push_str(&format!("{v},"));
            }
            if several {
                csv.push_str(&csv_field(&p.series));
                csv.push(',');
            }
            match &p.x {
                XValue::Name(n) => csv.push_str(&csv_field(n)),
                XValue::Number(v) => csv.push_str(&v.to_string()),
            }
            csv.push_str(&format!(",{}", p.y));
        }
        (csv, json!({"type": "csv", "parse": parse}))
    }

    /// The d3 format of a value label and of the y axis.
    pub(super) fn d3_formats(&self) -> (String, String) {
        match self.format {
            Format::Percent(d) => (format!(".{d}%"), format!(".{d}~%")),
            Format::Fixed(d) => (format!(".{d}f"), format!(".{d}~f")),
            Format::Count => (",.0f".into(), ",~f".into()),
        }
    }

    /// The Vega-Lite v5 specification (built with serde_json).
    pub(super) fn spec(&self) -> Value {
        let series = self.series_names();
        let several = series.len() > 1;
        let (data, format) = self.csv(several);
        let mut params = Vec::new();
        for s in &self.sliders {
            let bind = match s.input {
                Input::Range => {
                    json!({"input": "range", "min": s.values[0], "max": s.values[s.values.len() - 1], "step": step(&s.values)})
                }
                Input::Select => json!({"input": "select", "options": s.values}),
            };
            params.push(json!({"name": s.name, "value": s.default, "bind": bind}));
            params.push(json!({"name": format!("shown_{}", s.name), "expr": nearest(&s.name, &s.values)}));
        }
        let filter: Vec<String> =
            self.sliders.iter().map(|s| format!("datum[{}] == shown_{}", json!(s.name), s.name)).collect();
        let shown: Vec<String> =
            self.sliders.iter().map(|s| format!("{} + shown_{}", json!(format!("{} = ", s.name)), s.name)).collect();
        let title = format!("{} + ' · ' + {}", json!(self.title), shown.join(" + ', ' + "));
        let (label, axis) = self.d3_formats();
        let ys = self.points.iter().map(|p| p.y);
        let (lo, hi) = ys.fold((0.0f64, 0.0f64), |(a, b), y| (a.min(y), b.max(y)));
        let pad = if hi > lo { (hi - lo) * 0.08 } else { 1.0 };
        let y_domain = json!([if lo < 0.0 { lo - pad } else { 0.0 }, hi + pad]);
        let y = json!({"field": "y", "type": "quantitative", "title": self.y_label,
                       "scale": {"domain": y_domain}, "axis": {"format": axis}});
        let colours = json!({"field": "series", "type": "nominal", "title": null, "sort": series,
                             "scale": {"range": ["#0072B2", "#E69F00", "#332288", "#D55E00", "#009E73", "#CC79A7"]},
                             "legend": {"orient": "bottom"}});
        let text = json!({"field": "y", "type": "quantitative", "format": label});
        let layer = match self.kind {
            ChartKind::Bars => {
                let mut enc = json!({"x": {"field": "x", "type": "nominal", "title": self.x_label, "sort": null,
                                           "axis": {"labelAngle": 0}},
                                     "y": y});
                if several {
                    enc["xOffset"] = json!({"field": "series", "type": "nominal", "sort": series});
                    enc["color"] = colours.clone();
                }
                let mut labels = enc.clone();
                labels["text"] = text;
                if let Some(m) = labels.as_object_mut() {
                    m.remove("color");
                }
                json!([{"mark": {"type": "bar", "color": "#0072B2", "stroke": "#222222", "strokeWidth": 0.5},
                        "encoding": enc},
                       {"mark": {"type": "text", "dy": -6, "fontSize": 11}, "encoding": labels}])
            }
            ChartKind::Line => {
                let xs = self.points.iter().filter_map(|p| match p.x {
                    XValue::Number(v) => Some(v),
                    XValue::Name(_) => None,
                });
                let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
                let whole = self.points.iter().all(|p| matches!(p.x, XValue::Number(v) if v.fract() == 0.0));
                let x_axis = if whole { json!({"format": "d", "tickMinStep": 1}) } else { json!({}) };
                let mut enc = json!({"x": {"field": "x", "type": "quantitative", "title": self.x_label,
                                           "scale": {"domain": [x0, x1], "nice": false}, "axis": x_axis},
                                     "y": y});
                if several {
                    enc["color"] = colours.clone();
                    enc["strokeDash"] = json!({"field": "series", "type": "nominal", "sort": series, "legend": null});
                }
                let mut labels = enc.clone();
                labels["text"] = text;
                if let Some(m) = labels.as_object_mut() {
                    m.remove("strokeDash");
                }
                // Values are written on the first series only (the measured one): the others
                // (a floor, a formula) would write over it.
                let first = json!([{"filter": format!("datum.series == {}", json!(series[0]))}]);
                let mut text_layer = json!({"mark": {"type": "text", "dy": -9, "fontSize": 11}, "encoding": labels});
                if several {
                    text_layer["transform"] = first;
                }
                json!([{"mark": {"type": "line", "point": true, "color": "#0072B2", "strokeWidth": 2}, "encoding": enc},
                       text_layer])
            }
        };
        json!({
            "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
            "description": format!("{} · reshard explorable: the crate's values at each slider setting", self.title),
            "usermeta": {"embedOptions": {"renderer": "svg", "actions": false}},
            "width": self.size.0,
            "height": self.size.1,
            "title": {"text": {"expr": title}, "anchor": "start", "fontSize": 14},
            "params": params,
            "data": {"values": data, "format": format},
            "transform": [{"filter": filter.join(" && ")}],
            "layer": layer,
        })
    }
}

/// A CSV field: quoted (quotes doubled) when it holds a comma, a quote, a
/// line break or space at either end.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.trim() != s {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The slider's step: the spacing of evenly spaced values, 1 for integers,
/// else the smallest gap (the chart snaps to the nearest computed value).
fn step(values: &[f64]) -> f64 {
    let gaps: Vec<f64> = values.windows(2).map(|w| w[1] - w[0]).collect();
    let Some(&first) = gaps.first() else { return 1.0 };
    let smallest = gaps.iter().copied().fold(f64::INFINITY, f64::min);
    let even = gaps.iter().all(|g| (g - first).abs() <= 1e-9 * first.abs().max(1.0));
    if even {
        first
    } else if values.iter().all(|v| v.fract() == 0.0) {
        1.0
    } else {
        smallest
    }
}

/// A Vega expression for the computed value nearest to the slider's:
/// `vnodes < 1.5 ? 1 : vnodes < 3.5 ? 2 : … : 200`.
fn nearest(name: &str, values: &[f64]) -> String {
    let mut e = String::new();
    for w in values.windows(2) {
        e.push_str(&format!("{name} < {} ? {} : ", json!(w[0] + (w[1] - w[0]) / 2.0), json!(w[0])));
    }
    e.push_str(&json!(values[values.len() - 1]).to_string());
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_snaps_to_the_grid() {
        assert_eq!(nearest("v", &[1.0, 2.0, 5.0]), "v < 1.5 ? 1.0 : v < 3.5 ? 2.0 : 5.0");
        assert_eq!(nearest("v", &[3.0]), "3.0");
        assert_eq!(step(&[3.0, 4.0, 5.0]), 1.0);
        assert_eq!(step(&[1.0, 2.0, 5.0, 10.0]), 1.0);
        assert_eq!(step(&[0.05, 0.1, 0.25]), 0.05);
        assert_eq!(step(&[0.25, 0.5, 0.75]), 0.25);
    }
}
