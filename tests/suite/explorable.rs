//! Explorables (`reshard::present::Explorable`): the chart's data are the
//! crate's values, recomputed here through the public API and, for one
//! setting, document 000's counts; the output keeps its size cap; a bad grid
//! is a typed error, never a panic.
//!
//! A lab's explorable gets its own test here: build it as the lab's cell
//! does, then `check_points(&ex_output, &[(setting, x, value)…])` with
//! values recomputed through the public API (or taken from a document).
#![cfg(feature = "charts")]

use proptest::prelude::*;
use reshard::notebook::*;
use reshard::present::explorable::{MAX_OUTPUT_BYTES, MAX_POINTS, MAX_SLIDERS, MAX_SLIDER_VALUES};
use reshard::present::{ExplorableOutput, XValue};
use serde_json::Value;

/// The rows of an output's chart data, read back from the emitted spec
/// (the CSV text with its header), as (field → text) maps.
fn spec_rows(out: &ExplorableOutput) -> Vec<Vec<(String, String)>> {
    let spec: Value = serde_json::from_str(out.vega_lite()).expect("the spec is JSON");
    assert_eq!(spec["data"]["format"]["type"], "csv");
    let csv = spec["data"]["values"].as_str().expect("CSV text");
    let mut lines = csv.lines();
    let head: Vec<String> = lines.next().expect("a header").split(',').map(str::to_string).collect();
    lines.map(|l| head.iter().cloned().zip(l.split(',').map(str::to_string)).collect()).collect()
}

/// The value the chart holds at `setting` (field = value, as the chart filters)
/// and `x`: exactly one row, its `y` read back as the browser reads it.
fn spec_value(out: &ExplorableOutput, setting: Setting, x: &str) -> f64 {
    let rows = spec_rows(out);
    let hits: Vec<_> = rows
        .iter()
        .filter(|r| {
            let get = |k: &str| r.iter().find(|(f, _)| f == k).map(|(_, v)| v.as_str());
            setting.iter().all(|(k, v)| get(k).and_then(|t| t.parse::<f64>().ok()) == Some(*v)) && get("x") == Some(x)
        })
        .collect();
    assert_eq!(hits.len(), 1, "one row at {setting:?}, x = {x}");
    hits[0].iter().find(|(f, _)| f == "y").unwrap().1.parse().unwrap()
}

/// A slider setting, as the chart's fields: `[("nodes", 6.0), ("vnodes", 5.0)]`.
type Setting<'a> = &'a [(&'a str, f64)];

/// Check grid points against values computed elsewhere: each `(setting, x, value)`
/// must be in the chart's data, bit for bit.
fn check_points(out: &ExplorableOutput, points: &[(Setting, &str, f64)]) {
    for (setting, x, want) in points {
        let got = spec_value(out, setting, x);
        assert_eq!(got.to_bits(), want.to_bits(), "at {setting:?}, x = {x}: chart {got}, computed {want}");
    }
}

/// The fixture notebook's explorable (tests/notebooks/fixtures/explorable.ipynb), on fewer keys.
fn ring_shares(n_keys: usize, sizes: &[usize], points: &[usize], nodes: usize, vnodes: usize) -> Explorable {
    let keys = KeySet::plain(n_keys).hashed(HashWidth::Bits128).unwrap();
    let mut ex = Explorable::bars("Share of the keys on each node of a ring", "node", "share of the keys")
        .slider("nodes", sizes.iter().copied(), nodes)
        .unwrap()
        .slider("vnodes", points.iter().copied(), vnodes)
        .unwrap()
        .format(Format::Percent(1));
    for &n in sizes {
        for &v in points {
            let load = LoadReport::measure(&keys, &Ring::new(n).unwrap().with_vnodes(v).unwrap()).unwrap();
            let shares: Vec<f64> = load.counts().iter().map(|&c| c as f64 / n_keys as f64).collect();
            ex.row(&[n, v], load.nodes(), &shares).unwrap();
        }
    }
    ex
}

/// One node's share on a ring, recomputed through the public API another
/// way: each key `key0`, `key1`, … hashed on its own and located on the ring.
fn share_by_locate(n_keys: usize, nodes: usize, vnodes: usize, node: usize) -> f64 {
    let ring = Ring::new(nodes).unwrap().with_vnodes(vnodes).unwrap();
    let name = ring.nodes()[node].clone();
    let mine = (0..n_keys).filter(|i| ring.owner(Key::new(&format!("key{i}"), HashWidth::Bits128)) == name).count();
    mine as f64 / n_keys as f64
}

#[test]
fn grid_points_are_the_crates_values() {
    let ex = ring_shares(3_000, &[3, 6, 12], &[1, 5, 100], 6, 5);
    let out = ex.output().unwrap();
    assert_eq!(spec_rows(&out).len(), 3 * (3 + 6 + 12));
    let at = |n: usize, v: usize, node: usize| share_by_locate(3_000, n, v, node);
    check_points(
        &out,
        &[
            (&[("nodes", 3.0), ("vnodes", 1.0)], "0", at(3, 1, 0)),
            (&[("nodes", 6.0), ("vnodes", 5.0)], "4", at(6, 5, 4)),
            (&[("nodes", 12.0), ("vnodes", 100.0)], "11", at(12, 100, 11)),
            (&[("nodes", 12.0), ("vnodes", 1.0)], "7", at(12, 1, 7)),
        ],
    );
    // The default view's line says the same numbers, rounded as written.
    let six: Vec<String> = (0..6).map(|i| format!("{i} {}", pct(at(6, 5, i), 1))).collect();
    assert_eq!(
        out.text(),
        format!("Share of the keys on each node of a ring · nodes = 6, vnodes = 5: {}", six.join(", "))
    );
    assert_eq!(ex.value(&[6, 5], "", "4"), Some(at(6, 5, 4)));
}

#[test]
fn document_000_counts_are_in_the_chart() {
    // Document 000: 100,000 keys user:0 … user:99999, md5 mod 2^32, ring A, B, C, D with one
    // point per node: 31,186 · 10,531 · 30,259 · 28,024 keys.
    let keys = KeySet::users(100_000).hashed(HashWidth::Bits32).unwrap();
    let mut ex = Explorable::bars("Keys on each node of the ring A, B, C, D", "node", "keys")
        .select("vnodes", [1usize, 150], 150)
        .unwrap()
        .format(Format::Count);
    for v in [1, 150] {
        let load = LoadReport::measure(&keys, &Ring::named(letters("ABCD")).unwrap().with_vnodes(v).unwrap()).unwrap();
        let counts: Vec<f64> = load.counts().iter().map(|&c| c as f64).collect();
        ex.row(&[v], load.nodes(), &counts).unwrap();
    }
    let out = ex.output().unwrap();
    check_points(
        &out,
        &[
            (&[("vnodes", 1.0)], "A", 31_186.0),
            (&[("vnodes", 1.0)], "B", 10_531.0),
            (&[("vnodes", 1.0)], "C", 30_259.0),
            (&[("vnodes", 1.0)], "D", 28_024.0),
        ],
    );
    let spec: Value = serde_json::from_str(out.vega_lite()).unwrap();
    assert_eq!(spec["params"][0]["bind"]["input"], "select");
    assert_eq!(spec["params"][0]["bind"]["options"], serde_json::json!([1.0, 150.0]));
}

#[test]
fn one_output_with_three_parts_and_no_html() {
    let ex = ring_shares(500, &[3, 4], &[1, 2, 5], 4, 2);
    let out = ex.output().unwrap();
    let printed = out.evcxr_output();
    let mimes: Vec<&str> = printed.lines().filter_map(|l| l.strip_prefix("EVCXR_BEGIN_CONTENT ")).collect();
    assert_eq!(mimes, ["application/vnd.vegalite.v5+json", "image/svg+xml", "text/plain"]);
    assert_eq!(printed.matches("EVCXR_END_CONTENT").count(), 3);
    assert!(!printed.contains("text/html"));
    // evcxr parses a "json" MIME type's block (its lines joined) as JSON: it must be valid.
    let block = printed.split("EVCXR_BEGIN_CONTENT application/vnd.vegalite.v5+json\n").nth(1).unwrap();
    let json = block.split("\nEVCXR_END_CONTENT").next().unwrap();
    let spec: Value = serde_json::from_str(json).unwrap();
    assert_eq!(spec["$schema"], "https://vega.github.io/schema/vega-lite/v5.json");
    assert_eq!(spec["usermeta"]["embedOptions"]["renderer"], "svg");
    // The sliders: named as the lab names them, at the lab's default, bound to range inputs.
    let params = spec["params"].as_array().unwrap();
    let bound: Vec<(&str, f64, &str)> = params
        .iter()
        .filter(|p| p.get("bind").is_some())
        .map(|p| (p["name"].as_str().unwrap(), p["value"].as_f64().unwrap(), p["bind"]["input"].as_str().unwrap()))
        .collect();
    assert_eq!(bound, [("nodes", 4.0, "range"), ("vnodes", 2.0, "range")]);
    let vnodes = params.iter().find(|p| p["name"] == "vnodes").unwrap();
    assert_eq!((vnodes["bind"]["min"].as_f64(), vnodes["bind"]["max"].as_f64()), (Some(1.0), Some(5.0)));
    // The uneven 1, 2, 5 snaps to the nearest computed value.
    let snap = params.iter().find(|p| p["name"] == "shown_vnodes").unwrap();
    assert_eq!(snap["expr"], "vnodes < 1.5 ? 1.0 : vnodes < 3.5 ? 2.0 : 5.0");
    assert!(out.svg().starts_with("<svg") && out.svg().contains("nodes = 4, vnodes = 2"));
    assert!(!out.text().contains('\n'));
    assert_eq!(ex.to_string(), out.text());
}

#[test]
fn the_output_keeps_its_size_cap() {
    // A lab-sized grid (the fixture's: 8 point counts × nodes 3…12 at 100 keys) is far below it …
    let ex = ring_shares(100, &(3..=12).collect::<Vec<_>>(), &[1, 2, 5, 10, 20, 50, 100, 200], 10, 100);
    let bytes = ex.output().unwrap().bytes();
    assert!(bytes < MAX_OUTPUT_BYTES / 3, "{bytes} bytes");
    // … and one that would write more is refused, saying so.
    let mut big = Explorable::bars("long names", "node", "share").slider("k", 0..50usize, 0).unwrap();
    let names: Vec<String> = (0..90).map(|i| format!("{i:0>40}")).collect();
    for k in 0..50usize {
        big.row(&[k], &names, &[0.123_456_789; 90]).unwrap();
    }
    match big.output().unwrap_err() {
        Error::TooLarge { what, asked, limit, .. } => {
            assert_eq!((what, limit), ("bytes of an explorable's output", MAX_OUTPUT_BYTES as u128));
            assert!(asked > MAX_OUTPUT_BYTES as u128);
        }
        e => panic!("{e}"),
    }
    // Too many points is refused before they are stored.
    let mut many = Explorable::line("many", "x", "y").slider("k", [0usize], 0).unwrap();
    let xs: Vec<usize> = (0..=MAX_POINTS).collect();
    let err = many.row(&[0usize], xs.iter().copied(), &vec![0.5; xs.len()]).unwrap_err();
    assert!(matches!(err, Error::TooLarge { what: "points in one explorable", .. }), "{err}");
    assert_eq!(many.points(), 0);
}

#[test]
fn bad_grids_are_typed_errors() {
    let bars = || Explorable::bars("t", "node", "share");
    // Empty: no slider, no rows.
    let empty = bars().output().unwrap_err();
    assert!(matches!(empty, Error::OutOfRange { what: "grid:", .. }), "{empty}");
    let no_rows = bars().slider("vnodes", [1usize, 2], 1).unwrap().output().unwrap_err();
    assert!(no_rows.to_string().contains("0 point(s)"), "{no_rows}");
    // A setting with no row.
    let mut gap = bars().slider("vnodes", [1usize, 2], 1).unwrap();
    gap.row(&[1usize], ["A", "B"], &[0.5, 0.5]).unwrap();
    let missing = gap.output().unwrap_err();
    assert!(missing.to_string().contains("no row at vnodes = 2"), "{missing}");
    // Lengths that differ.
    let mut ex = bars().slider("vnodes", [1usize, 2], 1).unwrap();
    assert_eq!(
        ex.row(&[1usize], ["A", "B"], &[0.5]).unwrap_err(),
        Error::LengthMismatch { what: "measured values (ys) for the xs", expected: 2, given: 1 }
    );
    assert!(matches!(
        ex.row(&[1usize, 2], ["A"], &[0.5]).unwrap_err(),
        Error::LengthMismatch { expected: 1, given: 2, .. }
    ));
    // Values off the slider, not finite, given twice; names the chart cannot take.
    assert!(ex.row(&[3usize], ["A"], &[0.5]).unwrap_err().to_string().contains("vnodes 3"));
    assert!(matches!(ex.row(&[1usize], ["A"], &[f64::NAN]).unwrap_err(), Error::BadNumber { .. }));
    ex.row(&[1usize], ["A"], &[0.5]).unwrap();
    assert!(ex.row(&[1usize], ["A"], &[0.5]).unwrap_err().to_string().contains("given twice"));
    assert!(ex.row(&[2usize], ["B", "B"], &[0.5, 0.5]).unwrap_err().to_string().contains("given twice"));
    assert!(ex.row(&[2usize], [3usize], &[0.5]).unwrap_err().to_string().contains("all names or all numbers"));
    assert!(ex.clone().slider("nodes", [3usize], 3).unwrap_err().to_string().contains("before the first"));
    for name in ["", "2x", "x", "datum", "shown_vnodes", "a-b", "vnödes"] {
        let err = bars().slider(name, [1usize], 1).unwrap_err();
        assert!(matches!(err, Error::OutOfRange { what: "slider name", .. }), "slider name {name:?}: {err}");
    }
    let twice = bars().slider("vnodes", [1usize], 1).unwrap().slider("vnodes", [2usize], 2).unwrap_err();
    assert!(twice.to_string().contains("vnodes"), "{twice}");
    // Sliders: at most two, at most MAX_SLIDER_VALUES values, a default among them.
    let three = bars().slider("a", [1usize], 1).unwrap().slider("b", [1usize], 1).unwrap().slider("c", [1usize], 1);
    assert!(
        matches!(three.unwrap_err(), Error::TooLarge { what: "sliders", limit, .. } if limit == MAX_SLIDERS as u128)
    );
    let long = bars().slider("k", 0..=MAX_SLIDER_VALUES, 0).unwrap_err();
    assert!(matches!(long, Error::TooLarge { what: "values on one slider", .. }), "{long}");
    assert!(bars().slider("k", Vec::<usize>::new(), 0).unwrap_err().to_string().contains("none"));
    assert!(bars().slider("k", [1usize, 2], 3).unwrap_err().to_string().contains("default of slider k = 3"));
    assert!(matches!(bars().slider("k", [1.0, f64::INFINITY], 1.0).unwrap_err(), Error::BadNumber { .. }));
    assert!(matches!(bars().slider("k", [u64::MAX], u64::MAX).unwrap_err(), Error::BadNumber { .. }));
    // A line needs numbers on x.
    let mut line = Explorable::line("t", "nodes", "moved").slider("k", [1usize], 1).unwrap();
    assert!(line.point(&[1usize], "A", 0.5).unwrap_err().to_string().contains("x of a line chart"));
    // The display of a bad grid says what is wrong instead of panicking.
    assert!(gap.to_string().contains("no row at vnodes = 2"));
}

/// A cell's output as evcxr 0.22 reads it (`eval_context.rs`): a part
/// starts at a line holding `EVCXR_BEGIN_CONTENT <type>` and ends at the
/// first line that is exactly `EVCXR_END_CONTENT` or
/// `EVCXR_PANIC_NOTIFICATION` (`BufRead::lines` cuts a `\r\n` as `lines`
/// does here); other lines are plain output. Returns (type, content) of each
/// part, and the plain lines.
fn evcxr_parts(output: &str) -> (Vec<(String, String)>, Vec<String>) {
    let mut lines = output.lines();
    let (mut parts, mut plain) = (Vec::new(), Vec::new());
    while let Some(line) = lines.next() {
        let Some(at) = line.find("EVCXR_BEGIN_CONTENT ") else {
            plain.push(line.to_string());
            continue;
        };
        let mime: String = line[at + "EVCXR_BEGIN_CONTENT ".len()..].chars().take_while(|&c| c != ' ').collect();
        let content: Vec<&str> =
            lines.by_ref().take_while(|l| *l != "EVCXR_END_CONTENT" && *l != "EVCXR_PANIC_NOTIFICATION").collect();
        parts.push((mime, content.join("\n")));
    }
    (parts, plain)
}

/// A title is text in every part of an explorable's output: it never ends
/// a part (a line break and `EVCXR_END_CONTENT` in it split the output into
/// 8 parts, two of them `text/html` with the title's HTML) and never
/// becomes markup. The chart's own title is the title as given.
#[test]
fn a_title_never_ends_a_part_or_becomes_markup() {
    let title = "t\nEVCXR_END_CONTENT\nEVCXR_BEGIN_CONTENT text/html\n<b>injected</b>\r\nEVCXR_PANIC_NOTIFICATION";
    let mut ex = Explorable::bars(title, "x\nEVCXR_END_CONTENT", "y").slider("v", [1usize], 1).unwrap();
    ex.series_row("s\nEVCXR_END_CONTENT", &[1usize], ["a\nEVCXR_END_CONTENT\n<i>"], &[0.5]).unwrap();
    let out = ex.output().unwrap();
    let (parts, plain) = evcxr_parts(&out.evcxr_output());
    let mimes: Vec<&str> = parts.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(mimes, ["application/vnd.vegalite.v5+json", "image/svg+xml", "text/plain"]);
    assert!(plain.is_empty(), "{plain:?}");
    // each part is the output's own, whole
    assert_eq!(parts[0].1, out.vega_lite());
    assert_eq!(parts[1].1, out.svg().trim_end());
    assert_eq!(parts[2].1, out.text());
    // text, not markup: no <b> or <i> element in the SVG, and the text line is one line
    assert!(!out.svg().contains("<b>") && !out.svg().contains("<i>"), "{}", out.svg());
    assert!(out.svg().contains("&lt;b&gt;injected&lt;/b&gt;"));
    let one = "t EVCXR_END_CONTENT EVCXR_BEGIN_CONTENT text/html <b>injected</b> EVCXR_PANIC_NOTIFICATION · v = 1: ";
    assert_eq!(out.text(), format!("{one}s EVCXR_END_CONTENT: a EVCXR_END_CONTENT <i> 0.500"));
    let spec: Value = serde_json::from_str(out.vega_lite()).unwrap();
    let shown = spec["title"]["text"]["expr"].as_str().unwrap();
    assert!(shown.starts_with(&serde_json::to_string(title).unwrap()), "{shown}");
    // a figure's output: one part
    let (parts, plain) =
        evcxr_parts(&charts::bar_chart(title, "y", &["a"], &[("s", vec![1.0])]).build().evcxr_output());
    assert_eq!((parts.len(), parts[0].0.as_str(), plain.len()), (1, "text/html", 0));
    assert!(!parts[0].1.contains('\n') && !parts[0].1.contains("<b>"), "{}", parts[0].1);
}

/// A table's title, cells and note are text in its HTML form (no line
/// break, no markup) and stay on their line in its text form.
#[test]
fn a_table_keeps_its_text_as_text() {
    let mut t = Table::new("keys\nEVCXR_END_CONTENT\n<b>x</b>", ["node\nEVCXR_END_CONTENT", "keys"]);
    t.row(["A\r\nEVCXR_END_CONTENT", "<i>1</i>"]).note("a\nEVCXR_PANIC_NOTIFICATION");
    let html = t.to_html();
    assert!(!html.contains('\n') && !html.contains('\r') && !html.contains("<b>") && !html.contains("<i>"), "{html}");
    assert!(html.contains("keys&#10;EVCXR_END_CONTENT&#10;&lt;b&gt;x&lt;/b&gt;"), "{html}");
    let text = t.to_text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}"); // title, headers, one row, note
    assert_eq!(lines[0], "keys EVCXR_END_CONTENT <b>x</b>");
    // the first column as wide as "node EVCXR_END_CONTENT" (22), then two spaces
    assert_eq!(lines[2], format!("  {:<22}  <i>1</i>", "A EVCXR_END_CONTENT"));
    assert_eq!(lines[3], "  a EVCXR_PANIC_NOTIFICATION");
}

/// A row of a million points is over the limit of 5,000 (`MAX_POINTS`, its
/// documentation), and the error names that limit: the xs are read only one
/// past it, so their count is no measure of the row's length.
#[test]
fn a_row_over_the_point_limit_names_the_limit() {
    let mut ex = Explorable::line("t", "x", "y").slider("v", [1usize], 1).unwrap();
    let million = vec![0.5; 1_000_000];
    let err = ex.row(&[1usize], 0..1_000_000usize, &million).unwrap_err();
    assert!(
        matches!(err, Error::TooLarge { what: "points in one explorable", asked: 1_000_000, limit: 5_000, .. }),
        "{err}"
    );
    // more xs than the limit and a few ys, or the reverse: still the limit
    let few = ex.row(&[1usize], 0..1_000_000usize, &[0.5; 3]).unwrap_err();
    assert!(matches!(few, Error::TooLarge { limit: 5_000, .. }), "{few}");
    let short = ex.row(&[1usize], 0..3usize, &million).unwrap_err();
    assert!(matches!(short, Error::TooLarge { asked: 1_000_000, .. }), "{short}");
    // within the limit, lengths that differ are still that
    let differ = ex.row(&[1usize], 0..3usize, &[0.5; 2]).unwrap_err();
    assert_eq!(differ, Error::LengthMismatch { what: "measured values (ys) for the xs", expected: 3, given: 2 });
    assert_eq!(ex.points(), 0);
}

/// Names and numbers never mix on one axis, in the first row too: a name
/// "1" and the number 1 would be two bars both labelled 1.
#[test]
fn a_first_row_of_names_and_numbers_is_refused() {
    let mut ex = Explorable::bars("t", "x", "y").slider("v", [1usize], 1).unwrap();
    let mixed = [XValue::Name("1".into()), XValue::Number(1.0)];
    let err = ex.row(&[1usize], mixed, &[0.25, 0.75]).unwrap_err();
    assert!(matches!(err, Error::OutOfRange { what: "x", .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("number 1") && text.contains("name \"1\"") && text.contains("all names or all numbers"),
        "{text}"
    );
    assert_eq!(ex.points(), 0);
    // numbers first, then a name: the same
    let back = ex.row(&[1usize], [XValue::Number(1.0), XValue::Name("1".into())], &[0.25, 0.75]).unwrap_err();
    assert!(back.to_string().contains("the same kind as the first x, the number 1"), "{back}");
}

/// −0.0 equals 0.0: a row at −0.0 on a slider of 0.0 is that slider value's
/// row, in the output's checks and in the chart's data.
#[test]
fn a_row_at_minus_zero_is_the_row_at_zero() {
    let mut ex = Explorable::bars("t", "x", "y").slider("v", [0.0, 1.0], 1.0).unwrap();
    ex.row(&[-0.0], ["a"], &[0.25]).unwrap();
    ex.row(&[1.0], ["a"], &[0.75]).unwrap();
    assert!(ex.row(&[0.0], ["a"], &[0.5]).unwrap_err().to_string().contains("given twice"));
    let out = ex.output().unwrap();
    assert_eq!(ex.value(&[0.0], "", "a"), Some(0.25));
    let rows = spec_rows(&out);
    let v: Vec<&str> = rows.iter().map(|r| r.iter().find(|(f, _)| f == "v").unwrap().1.as_str()).collect();
    assert_eq!(v, ["0", "1"]);
    // a slider of −0.0 and 0.0 holds one value, and a line's x of −0.0 is 0
    let one = Explorable::bars("t", "x", "y").slider("v", [-0.0, 0.0], 0.0).unwrap();
    assert_eq!(one.defaults(), vec![("v", 0.0)]);
    let mut line = Explorable::line("t", "x", "y").slider("v", [1usize], 1).unwrap();
    line.point(&[1usize], -0.0, 0.5).unwrap();
    assert!(line.point(&[1usize], 0.0, 0.5).unwrap_err().to_string().contains("given twice"));
    let x = spec_rows(&line.output().unwrap())[0].iter().find(|(f, _)| f == "x").unwrap().1.clone();
    assert_eq!(x, "0");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn no_grid_panics(
        values in proptest::collection::vec(prop_oneof![Just(f64::NAN), Just(f64::INFINITY), -1e6f64..1e6], 0..6),
        default in -3.0f64..3.0,
        setting in proptest::collection::vec(-3.0f64..3.0, 0..3),
        xs in proptest::collection::vec(0usize..5, 0..6),
        ys in proptest::collection::vec(prop_oneof![Just(f64::NAN), Just(1e308), -1e308f64..1e308], 0..6),
        line in any::<bool>(),
    ) {
        let result = std::panic::catch_unwind(|| {
            let ex = if line { Explorable::line("t", "x", "y") } else { Explorable::bars("t", "x", "y") };
            if let Ok(mut ex) = ex.slider("k", values.clone(), default) {
                let _ = ex.row(&setting, xs.iter().copied(), &ys);
                let _ = ex.point(&setting, 1usize, 0.5);
                let _ = ex.output();
                let _ = ex.to_string();
            }
        });
        prop_assert!(result.is_ok());
    }
}
