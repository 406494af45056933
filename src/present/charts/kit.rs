//! The drawing kit every chart kind shares: compact number labels, text and shapes in
//! pixels, markers and dashes, the legend strip, nice axes and the cartesian frame.

use super::*;
use crate::present::escape::one_line;

pub(super) type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Axis, Axis>>;

/// Node `i`'s name, or "node i" past the list.
pub(super) fn node_name(names: &[String], i: usize) -> String {
    names.get(i).cloned().unwrap_or_else(|| format!("node {i}"))
}

/// A compact value label: integers with separators, else about three significant digits.
pub(super) fn fmt_value(v: f64, percent: bool) -> String {
    let x = if percent { v * 100.0 } else { v };
    let int = x.abs() >= 100.0 || (x - x.round()).abs() < 1e-9;
    let d = if int { 0 } else { (2.0 - x.abs().log10().floor()).clamp(0.0, 6.0) as usize };
    let s = format!("{:.*}", d, x.abs());
    let (whole, frac) = s.split_once('.').unwrap_or((&s, ""));
    let frac = frac.trim_end_matches('0');
    let sign = if x < 0.0 && s.bytes().any(|b| (b'1'..=b'9').contains(&b)) { "-" } else { "" };
    let whole = crate::numbers::group_digits(whole);
    format!("{sign}{whole}{}{frac}{}", if frac.is_empty() { "" } else { "." }, if percent { "%" } else { "" })
}

/// Rough rendered width of `s` at `px` in a sans-serif font, on the wide side.
pub(super) fn text_w(s: &str, px: f64) -> f64 {
    let em = |c: char| match c {
        'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | 'I' | ' ' => 0.32,
        '(' | ')' | '[' | ']' | 'f' | 't' | 'r' | '/' | '-' => 0.42,
        'm' | 'w' | 'M' | 'W' | '%' | '@' | '—' => 0.95,
        'A'..='Z' => 0.72,
        _ => 0.62,
    };
    s.chars().map(em).sum::<f64>() * px
}

// ------------------------------------------------------------ drawing kit

/// Text `px` pixels high in the SVG (plotters writes `font-size` as size / 1.24), placed by
/// `h` and `v` relative to its anchor point.
pub(super) fn font(px: f64, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", px * 1.24).into_font()).color(&INK).pos(Pos::new(h, v))
}

pub(super) fn bold(px: f64, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", px * 1.24).into_font().style(FontStyle::Bold)).color(&INK).pos(Pos::new(h, v))
}

/// Text `s` at `(x, y)`, on one line (plotters escapes it for SVG, but
/// writes a line break as it is: see [`escape`](crate::present::escape)).
pub(super) fn text<S: Into<String>>(a: &Area, s: S, (x, y): (f64, f64), style: TextStyle) -> Res {
    let s: String = s.into();
    let s = one_line(&s).into_owned();
    Ok(a.draw(&Text::new(s, (x.round() as i32, y.round() as i32), style))?)
}

pub(super) fn rect(a: &Area, (x0, y0): (f64, f64), (x1, y1): (f64, f64), c: RGBColor) -> Res {
    let p = |v: f64| v.round() as i32;
    Ok(a.draw(&Rectangle::new([(p(x0), p(y0)), (p(x1), p(y1))], c.filled()))?)
}

/// A polyline in pixels. (SVG `<rect>`s from plotters carry no stroke width: outlines are paths.)
pub(super) fn path(a: &Area, pts: &[(f64, f64)], style: ShapeStyle) -> Res {
    let pts: Vec<(i32, i32)> = pts.iter().map(|&(x, y)| (x.round() as i32, y.round() as i32)).collect();
    Ok(a.draw(&PathElement::new(pts, style))?)
}

pub(super) fn outline(a: &Area, (x0, y0): (f64, f64), (x1, y1): (f64, f64), style: ShapeStyle) -> Res {
    path(a, &[(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)], style)
}

/// A marker at `pos` in `a`'s coordinates, of shape 0 ● 1 ■ 2 ▲ 3 ◆ 4 ▼ 5 ✕ 6 + 7 ○.
pub(super) fn mark<CT: CoordTranslate>(
    a: &DrawingArea<SVGBackend, CT>,
    shape: usize,
    pos: CT::From,
    r: i32,
    c: RGBColor,
) -> Res {
    const SHAPES: [&[(i32, i32)]; 5] = [
        &[],
        &[(-4, -4), (4, -4), (4, 4), (-4, 4)],
        &[(0, -5), (5, 4), (-5, 4)],
        &[(0, -5), (4, 0), (0, 5), (-4, 0)],
        &[(0, 5), (5, -4), (-5, -4)],
    ];
    let e = EmptyElement::at(pos);
    let s = c.stroke_width(2);
    let p = |pts: &[(i32, i32)]| pts.iter().map(|&(x, y)| (x * r / 4, y * r / 4)).collect::<Vec<_>>();
    match shape % 8 {
        0 => a.draw(&(e + Circle::new((0, 0), r, c.filled())))?,
        5 => {
            a.draw(&(e + PathElement::new(p(&[(-4, -4), (4, 4)]), s) + PathElement::new(p(&[(-4, 4), (4, -4)]), s)))?
        }
        6 => a.draw(&(e + PathElement::new(p(&[(-5, 0), (5, 0)]), s) + PathElement::new(p(&[(0, -5), (0, 5)]), s)))?,
        7 => a.draw(&(e + Circle::new((0, 0), r, s)))?,
        k => a.draw(&(e + Polygon::new(p(SHAPES[k]), c.filled())))?,
    }
    Ok(())
}

/// A line through `pts`, solid (`dash` empty) or dashed with the pattern `dash` (dash, gap,
/// dash, gap… in pixels). The pattern runs on across the corners of the line.
pub(super) fn line<CT: CoordTranslate>(
    a: &DrawingArea<SVGBackend, CT>,
    pts: Vec<CT::From>,
    dash: &[u32],
    s: ShapeStyle,
) -> Res {
    if dash.len() < 2 {
        a.draw(&PathElement::new(pts, s))?;
        return Ok(());
    }
    let base = a.get_base_pixel();
    let px: Vec<(f64, f64)> =
        pts.iter().map(|p| a.map_coordinate(p)).map(|(x, y)| (f64::from(x - base.0), f64::from(y - base.1))).collect();
    let flat = a.strip_coord_spec();
    for piece in dash_pieces(&px, dash) {
        path(&flat, &piece, s)?;
    }
    Ok(())
}

/// The dashes of the polyline `pts` (pixels) under `pattern` (dash, gap, dash, gap…; an odd
/// length repeats the last gap as the pattern's own), each dash a polyline of its own.
pub(super) fn dash_pieces(pts: &[(f64, f64)], pattern: &[u32]) -> Vec<Vec<(f64, f64)>> {
    let len = |k: usize| f64::from(pattern[k % pattern.len()]).max(0.5);
    let Some(&first) = pts.first() else { return Vec::new() };
    if pattern.len() < 2 {
        return vec![pts.to_vec()];
    }
    let steps = pattern.len() + pattern.len() % 2; // on, off, on, off…
    let (mut out, mut cur, mut k, mut left) = (Vec::new(), vec![first], 0usize, len(0));
    for w in pts.windows(2) {
        let ((ax, ay), (bx, by)) = (w[0], w[1]);
        let d = (bx - ax).hypot(by - ay);
        let mut t = 0.0;
        while d - t > left {
            t += left;
            let p = (ax + (bx - ax) * t / d, ay + (by - ay) * t / d);
            if k % 2 == 0 {
                cur.push(p);
                out.push(std::mem::take(&mut cur));
            } else {
                cur = vec![p];
            }
            k = (k + 1) % steps;
            left = len(k);
        }
        left -= d - t;
        if k % 2 == 0 {
            cur.push((bx, by));
        }
    }
    if k % 2 == 0 && cur.len() > 1 {
        out.push(cur);
    }
    out
}

/// Grey level of a colour as a greyscale print keeps it (luma, 0 black … 255 white).
pub(super) fn grey(c: RGBColor) -> f64 {
    0.299 * f64::from(c.0) + 0.587 * f64::from(c.1) + 0.114 * f64::from(c.2)
}

/// Bar series `j`'s hatching: none for the first two (their greys differ), then `/`, `\`,
/// both, and horizontal, in turn.
pub(super) fn hatch_kind(j: usize) -> usize {
    if j < 2 {
        0
    } else {
        1 + (j - 2) % 4
    }
}

/// Hatch lines over the pixel rectangle `(x0, y0)`–`(x1, y1)` of fill `fill`, `gap` pixels
/// apart: kind 1 `/`, 2 `\`, 3 both, 4 horizontal, 0 none. White on a dark fill, dark on a
/// light one. Each direction is one zigzag polyline whose turns run along the rectangle's
/// edges: draw the outline after it.
pub(super) fn hatch(a: &Area, (x0, y0): (f64, f64), (x1, y1): (f64, f64), kind: usize, fill: RGBColor) -> Res {
    let ink = if grey(fill) < 140.0 { WHITE } else { INK };
    let (lo, hi) = ((x0.min(x1), y0.min(y1)), (x0.max(x1), y0.max(y1)));
    let dirs: &[u8] = match kind {
        1 => &[1],
        2 => &[2],
        3 => &[1, 2],
        4 => &[0],
        _ => &[],
    };
    for &d in dirs {
        let z = zigzag(lo, hi, d, 5.0);
        if z.len() > 1 {
            path(a, &z, ink.stroke_width(1))?;
        }
    }
    Ok(())
}

/// Parallel lines across a rectangle, `gap` apart (`dir` 0 horizontal, 1 `/`, 2 `\`), joined
/// into one polyline: every other line is walked backwards, and the join goes round the
/// corner when the two ends lie on different edges.
pub(super) fn zigzag((x0, y0): (f64, f64), (x1, y1): (f64, f64), dir: u8, gap: f64) -> Vec<(f64, f64)> {
    let (w, h) = (x1 - x0, y1 - y0);
    if !(w > 0.0 && h > 0.0 && gap > 0.0) || w + h > 1e5 {
        return Vec::new();
    }
    let mut segs = Vec::new();
    let mut c = gap / 2.0;
    if dir == 0 {
        while c < h {
            segs.push(((0.0, c), (w, c)));
            c += gap;
        }
    } else {
        // `/`: the lines x + y = c (y grows downwards), from the left or bottom edge up to
        // the top or right edge; `\` is its mirror image.
        while c < w + h {
            let (xa, xb) = ((c - h).max(0.0), c.min(w));
            let m = |x: f64| if dir == 2 { w - x } else { x };
            segs.push(((m(xa), c - xa), (m(xb), c - xb)));
            c += gap;
        }
    }
    let edges = |(x, y): (f64, f64)| -> u8 {
        let e = 1e-6;
        u8::from(x <= e) | u8::from(x >= w - e) << 1 | u8::from(y <= e) << 2 | u8::from(y >= h - e) << 3
    };
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(segs.len() * 2 + 2);
    for (i, &(a, b)) in segs.iter().enumerate() {
        let (a, b) = if i % 2 == 0 { (a, b) } else { (b, a) };
        if let Some(&prev) = out.last() {
            let (p, q) = (edges(prev), edges(a));
            if p & q == 0 {
                let u = p | q;
                out.push((if u & 1 != 0 { 0.0 } else { w }, if u & 4 != 0 { 0.0 } else { h }));
            }
        }
        out.push(a);
        out.push(b);
    }
    out.into_iter().map(|(x, y)| (x0 + x, y0 + y)).collect()
}

/// A legend entry's picture.
#[derive(Clone, Debug)]
pub(super) enum Key {
    /// Series ink, with line, marker, band.
    Series(usize, bool, bool, bool),
    /// A filled box.
    Fill(RGBColor),
    /// Bar series `j`: its fill, hatching and outline.
    Bar(usize),
    /// Reference line `k`.
    Ref(usize),
}

pub(super) type Legend = Vec<(Key, String)>;

/// Splits `a` into the chart and a strip under it, where it draws the legend in centred rows.
pub(super) fn with_legend<'a>(a: &Area<'a>, items: &Legend) -> Result<Area<'a>, DrawError> {
    let (w, h) = a.dim_in_pixel();
    let key_w = |label: &str| 60.0 + text_w(label, 12.0);
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = f64::INFINITY;
    for (i, (_, label)) in items.iter().enumerate() {
        if used + key_w(label) > f64::from(w) - 24.0 {
            rows.push(Vec::new());
            used = 0.0;
        }
        used += key_w(label);
        rows.last_mut().into_iter().for_each(|r| r.push(i));
    }
    let (chart, leg) = a.split_vertically(h as i32 - 20 * rows.len() as i32 - if rows.is_empty() { 0 } else { 6 });
    for (r, row) in rows.iter().enumerate() {
        let mut x = (f64::from(w) + 18.0 - row.iter().map(|&i| key_w(&items[i].1)).sum::<f64>()) / 2.0;
        let cy = 12 + 20 * r as i32;
        for (key, label) in row.iter().map(|&i| &items[i]) {
            let (x0, c) = (x as i32, |k: usize| rgb(INKS[k % 8].0));
            match *key {
                Key::Series(k, ln, mk, band) => {
                    if band {
                        leg.draw(&Rectangle::new([(x0, cy - 6), (x0 + 36, cy + 6)], c(k).mix(0.2).filled()))?;
                    }
                    if ln {
                        line(&leg, vec![(x0, cy), (x0 + 36, cy)], INKS[k % 8].1, c(k).stroke_width(2))?;
                    }
                    if mk {
                        mark(&leg, k, (x0 + 18, cy), 4, c(k))?;
                    }
                }
                Key::Fill(c) => {
                    leg.draw(&Rectangle::new([(x0 + 10, cy - 7), (x0 + 26, cy + 7)], c.filled()))?;
                    leg.draw(&Rectangle::new([(x0 + 10, cy - 7), (x0 + 26, cy + 7)], INK))?;
                }
                Key::Bar(j) => {
                    let (p, q) =
                        ((f64::from(x0) + 4.0, f64::from(cy) - 8.0), (f64::from(x0) + 32.0, f64::from(cy) + 8.0));
                    rect(&leg, p, q, color(j))?;
                    hatch(&leg, p, q, hatch_kind(j), color(j))?;
                    outline(&leg, p, q, INK.into())?;
                }
                Key::Ref(k) => line(&leg, vec![(x0, cy), (x0 + 36, cy)], REF_DASH[k % 3], INK.stroke_width(2))?,
            }
            text(&leg, label.as_str(), (x + 42.0, f64::from(cy)), font(12.0, Left, Center))?;
            x += key_w(label);
        }
    }
    Ok(chart)
}

pub(super) fn ref_keys(refs: &[(f64, String)]) -> Legend {
    refs.iter().enumerate().filter(|(_, r)| r.0.is_finite()).map(|(k, r)| (Key::Ref(k), r.1.clone())).collect()
}

/// An axis `lo..hi` with exactly the given ticks; log axes are drawn in log10 space.
#[derive(Clone, Debug)]
pub(super) struct Axis(pub(super) f64, pub(super) f64, pub(super) Vec<f64>);

impl Ranged for Axis {
    type ValueType = f64;
    type FormatOption = DefaultFormatting;
    fn map(&self, v: &f64, (a, b): (i32, i32)) -> i32 {
        a + (f64::from(b - a) * (v - self.0) / (self.1 - self.0) + 1e-3).floor() as i32
    }
    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.2.clone()
        }
    }
    fn range(&self) -> std::ops::Range<f64> {
        self.0..self.1
    }
}

/// About `n` nice ticks over `lo..hi` (1-2-5 steps; on a log axis powers of ten and their 2×, 5×).
/// `round` widens a linear range out to whole ticks, else it gets 3% each side.
pub(super) fn axis(lo: f64, hi: f64, log: bool, round: bool, n: f64) -> Axis {
    let (mut a, mut b) = if log { (lo.log10(), hi.log10()) } else { (lo, hi) };
    if b - a <= 1e-12 * a.abs().max(b.abs()) {
        let pad = if log || a == 0.0 { 0.5 } else { a.abs() * 0.1 };
        (a, b) = (a - pad, b + pad);
    }
    if log {
        let (a, b) = (a - (b - a) * 0.05, b + (b - a) * 0.05);
        let mants: &[f64] = match b - a {
            s if s > 3.6 => &[1.0],
            s if s > 0.9 => &[1.0, 2.0, 5.0],
            _ => &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        };
        let every = ((b - a) / 7.0).ceil().max(1.0) as i32;
        let decades = (a.floor() as i32..=b.ceil() as i32).filter(|k| mants.len() > 1 || k.rem_euclid(every) == 0);
        let t: Vec<f64> = decades.flat_map(|k| mants.iter().map(move |m| (m * 10f64.powi(k)).log10())).collect();
        let t: Vec<f64> = t.into_iter().filter(|v| (a..=b).contains(v)).collect();
        return Axis(a, b, if t.len() < 2 { vec![a + (b - a) * 0.1, b - (b - a) * 0.1] } else { t });
    }
    let raw = (b - a) / n;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * p).find(|s| *s >= raw * 0.999).unwrap_or(10.0 * p);
    if round {
        (a, b) = ((a / step + 1e-9).floor() * step, (b / step - 1e-9).ceil() * step);
    } else {
        let pad = (b - a) * 0.03;
        (a, b) = (if a >= 0.0 { (a - pad).max(0.0) } else { a - pad }, b + pad);
    }
    let first = (a / step - 1e-9).ceil() as i64;
    Axis(a, b, (first..).map(|k| k as f64 * step).take_while(|v| *v <= b + step * 1e-9).take(50).collect())
}

/// A cartesian chart on `a` with grid lines, tick labels and axis labels.
pub(super) fn cartesian<'a, 'b>(
    a: &'a Area<'b>,
    x: Axis,
    y: Axis,
    fmt: [&dyn Fn(f64) -> String; 2],
    labels: [&str; 2],
) -> Result<Chart<'a, 'b>, DrawError> {
    let yw = y.2.iter().map(|&v| text_w(&fmt[1](v), TICK)).fold(0.0, f64::max);
    let mut chart = ChartBuilder::on(a)
        .margin_top(6)
        .margin_right(18)
        .x_label_area_size(if labels[0].is_empty() { 26 } else { 48 })
        .y_label_area_size(yw as i32 + if labels[1].is_empty() { 14 } else { 36 })
        .build_cartesian_2d(x, y)?;
    let (fx, fy) = (|v: &f64| fmt[0](*v), |v: &f64| fmt[1](*v));
    chart
        .configure_mesh()
        .bold_line_style(RGBColor(0xE3, 0xE3, 0xE3))
        .axis_style(INK)
        .label_style(font(TICK, Mid, Center))
        .axis_desc_style(font(12.5, Mid, Center))
        .x_label_formatter(&fx)
        .y_label_formatter(&fy)
        .x_desc(one_line(labels[0]))
        .y_desc(one_line(labels[1]))
        .draw()?;
    Ok(chart)
}

/// Dashed horizontal reference lines across the chart.
pub(super) fn ref_lines(chart: &mut Chart, refs: &[(f64, String)], ty: impl Fn(f64) -> f64) -> Res {
    let (x0, x1) = (chart.x_range().start, chart.x_range().end);
    for (k, (v, _)) in refs.iter().enumerate().filter(|(_, r)| r.0.is_finite()) {
        line(chart.plotting_area(), vec![(x0, ty(*v)), (x1, ty(*v))], REF_DASH[k % 3], INK.stroke_width(2))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers() {
        assert_eq!([thousands(0), thousands(1000), thousands(u64::MAX)], ["0", "1,000", "18,446,744,073,709,551,615"]);
        let v = [fmt_value(0.254, true), fmt_value(25_000.0, false), fmt_value(-1234.5, false), fmt_value(1e-4, true)];
        assert_eq!(v, ["25.4%", "25,000", "-1,234", "0.01%"]);
        // past u64::MAX the whole part is still printed (Python: f"{1e20:,.0f}")
        assert_eq!(fmt_value(1e20, false), "100,000,000,000,000,000,000");
    }

    #[test]
    fn neighbouring_palette_colours_differ_in_grey() {
        // Luma of each hex colour, worked out with python3: round(0.299 R + 0.587 G + 0.114 B).
        let want = [87.0, 162.0, 51.0, 213.0, 119.0, 188.0, 70.0, 199.0, 106.0, 151.0, 81.0, 158.0];
        let got: Vec<f64> = (0..12).map(|i| grey(color(i)).round()).collect();
        assert_eq!(got, want);
        for i in 0..12 {
            assert!((want[i] - want[(i + 1) % 12]).abs() >= 45.0, "colours {i} and {}", i + 1);
        }
        // the first four bar series: at least 35 grey levels apart two by two
        for i in 0..4 {
            for j in 0..i {
                assert!((want[i] - want[j]).abs() >= 35.0, "bar series {j} and {i}");
            }
        }
    }

    #[test]
    fn line_inks_differ_in_dash_pattern() {
        for (i, a) in INKS.iter().enumerate() {
            for (j, b) in INKS.iter().enumerate().take(i) {
                assert_ne!(a.1, b.1, "inks {j} and {i} have one dash pattern");
            }
        }
    }

    #[test]
    fn dashes_follow_the_pattern_and_turn_corners() {
        let straight = dash_pieces(&[(0.0, 0.0), (100.0, 0.0)], &[10, 5]);
        let spans: Vec<(f64, f64)> = straight.iter().map(|p| (p[0].0, p[p.len() - 1].0)).collect();
        let want: Vec<(f64, f64)> = (0..7).map(|k| (15.0 * k as f64, (15.0 * k as f64 + 10.0).min(100.0))).collect();
        assert_eq!(spans, want);
        // An L of 6 then 8 pixels: the first dash is 6 across and 4 down, then the gap ends it.
        let l = dash_pieces(&[(0.0, 0.0), (6.0, 0.0), (6.0, 8.0)], &[10, 5]);
        assert_eq!(l, vec![vec![(0.0, 0.0), (6.0, 0.0), (6.0, 4.0)]]);
        assert_eq!(dash_pieces(&[(0.0, 0.0), (3.0, 4.0)], &[]), vec![vec![(0.0, 0.0), (3.0, 4.0)]]);
        assert!(dash_pieces(&[], &[2, 2]).is_empty());
    }

    #[test]
    fn hatching_stays_in_its_rectangle_at_45_degrees() {
        for dir in [1u8, 2] {
            let z = zigzag((10.0, 20.0), (20.0, 40.0), dir, 5.0);
            let on_edge = |&(x, y): &(f64, f64)| x == 10.0 || x == 20.0 || y == 20.0 || y == 40.0;
            assert!(z.iter().all(on_edge), "{z:?}");
            // lines x ± y = c for c = 2.5, 7.5, … 27.5 across a 10 × 20 box: 6 of them
            let diagonal = z.windows(2).filter(|w| (w[1].0 - w[0].0).abs() == (w[1].1 - w[0].1).abs()).count();
            assert_eq!(diagonal, 6, "{z:?}");
            // the joins run along an edge (a straight edge or round one corner), never inside
            for w in z.windows(2) {
                let (dx, dy) = ((w[1].0 - w[0].0).abs(), (w[1].1 - w[0].1).abs());
                assert!(dx == dy || dx == 0.0 || dy == 0.0, "{w:?}");
            }
        }
        let flat = zigzag((0.0, 0.0), (8.0, 12.0), 0, 5.0);
        assert_eq!(flat, vec![(0.0, 2.5), (8.0, 2.5), (8.0, 7.5), (0.0, 7.5)]);
        assert!(zigzag((0.0, 0.0), (0.0, 9.0), 1, 5.0).is_empty());
        assert_eq!(hatch_kind(0) + hatch_kind(1), 0);
        assert_eq!([hatch_kind(2), hatch_kind(3), hatch_kind(4), hatch_kind(5)], [1, 2, 3, 4]);
    }
}
