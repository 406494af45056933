//! An explorable's chart data read back from the Vega-Lite spec it emits,
//! as the browser reads it: the CSV text with its header, one row per
//! point (the sliders' fields, `series` when the chart has several, `x`,
//! `y`). Shared by the tests that compare grid points with values computed
//! another way.
#![allow(dead_code)] // each test file uses its own part

use reshard::present::ExplorableOutput;
use serde_json::Value;

/// A slider setting, as the chart's fields: `[("nodes", 6.0), ("vnodes", 5.0)]`.
pub type Setting<'a> = &'a [(&'a str, f64)];

/// The rows of the chart's data, as (field → text) pairs.
pub fn rows(out: &ExplorableOutput) -> Vec<Vec<(String, String)>> {
    let spec: Value = serde_json::from_str(out.vega_lite()).expect("the spec is JSON");
    assert_eq!(spec["data"]["format"]["type"], "csv");
    let csv = spec["data"]["values"].as_str().expect("CSV text");
    let mut lines = csv.lines();
    let head: Vec<String> = lines.next().expect("a header").split(',').map(str::to_string).collect();
    lines.map(|l| head.iter().cloned().zip(split_csv(l)).collect()).collect()
}

/// One CSV line's fields (a quoted field may hold commas; `""` is a quote).
fn split_csv(line: &str) -> Vec<String> {
    let (mut fields, mut cur, mut quoted, mut chars) = (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}

/// The value the chart holds at `setting`, in `series` (`""` for a chart of
/// one series, which has no `series` field), at `x`: exactly one row must
/// match, its `y` read back as the browser reads it.
pub fn value(out: &ExplorableOutput, setting: Setting, series: &str, x: &str) -> f64 {
    let rows = rows(out);
    let hits: Vec<_> = rows
        .iter()
        .filter(|r| {
            let get = |k: &str| r.iter().find(|(f, _)| f == k).map(|(_, v)| v.as_str());
            setting.iter().all(|(k, v)| get(k).and_then(|t| t.parse::<f64>().ok()) == Some(*v))
                && get("series").unwrap_or("") == series
                && get("x") == Some(x)
        })
        .collect();
    assert_eq!(hits.len(), 1, "one row at {setting:?}, {series}, x = {x}");
    hits[0].iter().find(|(f, _)| f == "y").unwrap().1.parse().unwrap()
}

/// Each `(setting, series, x, value)` must be in the chart's data, bit for bit.
pub fn check_points(out: &ExplorableOutput, points: &[(Setting, &str, &str, f64)]) {
    for (setting, series, x, want) in points {
        let got = value(out, setting, series, x);
        assert_eq!(got.to_bits(), want.to_bits(), "at {setting:?}, {series}, x = {x}: chart {got}, computed {want}");
    }
}
