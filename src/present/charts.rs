//! Charts for the notebooks, drawn with [plotters](https://docs.rs/plotters) as SVG: line
//! charts, grouped bars, histograms, heatmaps, the hash ring and shard maps.
//!
//! Each chart function takes plain data and returns a builder: adjust it (`.size(w, h)`,
//! `.subtitle(..)`, the chart's own options) and `.build()` a [`Figure`]. Builders and figures
//! show themselves in an evcxr notebook cell as an `<img src="data:image/svg+xml;base64,…">`,
//! which displays even in an untrusted notebook. The same input gives the same SVG bytes, and
//! series differ in dash and marker shape as well as colour (Okabe–Ito), so charts read in
//! greyscale. Draw charts of your own with [`draw`] and the re-exported [`plotters`].
//!
//! ```
//! use reshard::present::charts::{bar_chart, thousands};
//! let fig = bar_chart("Keys per node", "keys", &["A", "B"], &[("1 point", vec![41_022.0, 9_310.0])])
//!     .reference(25_000.0, "mean load (25,000)")
//!     .build();
//! assert!(fig.to_img_tag().starts_with("<img src=\"data:image/svg+xml;base64,"));
//! assert_eq!(thousands(89_813), "89,813");
//! ```

use std::f64::consts::TAU;
use std::fmt;
use std::path::Path;

use base64::Engine as _;
pub use plotters;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::{CoordTranslate, Shift};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos::{self, Center as Mid, Left, Right};
use plotters::style::text_anchor::Pos;
use plotters::style::text_anchor::VPos::{self, Bottom, Center, Top};

/// Default figure width in pixels.
pub const DEFAULT_WIDTH: u32 = 720;
/// Default figure height in pixels.
pub const DEFAULT_HEIGHT: u32 = 400;

/// The drawing area handed to a [`draw`] closure: the whole figure, in pixels.
pub type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// The error a [`draw`] closure returns; `?` converts plotters' errors into it.
pub type DrawError = Box<dyn std::error::Error>;
type Res = Result<(), DrawError>;
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Axis, Axis>>;

/// Okabe–Ito, then four of Paul Tol's colours: colour-blind-safe, neighbours differ in grey.
const PALETTE: [u32; 12] = [
    0x0072B2, 0xE69F00, 0x009E73, 0xCC79A7, 0x56B4E9, 0xD55E00, 0xF0E442, 0x999999, 0x332288, 0x88CCEE, 0x117733,
    0xAA4499,
];
/// Line inks: colour, dash and gap in pixels (0: solid). Ink `i` has marker shape `i`.
const INKS: [(u32, u32, u32); 8] = [
    (0x0072B2, 0, 0),
    (0xD55E00, 9, 4),
    (0x009E73, 2, 3),
    (0, 14, 4),
    (0xCC79A7, 5, 2),
    (0xE69F00, 1, 3),
    (0x56B4E9, 12, 6),
    (0x666666, 6, 2),
];
const REF_DASH: [(u32, u32); 3] = [(7, 4), (2, 3), (12, 3)];
const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
const MUTED: RGBColor = RGBColor(0x55, 0x55, 0x55);
const TICK: f64 = 11.5;

fn rgb(c: u32) -> RGBColor {
    RGBColor((c >> 16) as u8, (c >> 8) as u8, c as u8)
}

fn color(i: usize) -> RGBColor {
    rgb(PALETTE[i % PALETTE.len()])
}

// ------------------------------------------------------------------ Figure

/// A finished chart: a complete, standalone SVG document plus its title and size.
#[derive(Clone, PartialEq, Eq)]
pub struct Figure {
    title: String,
    width: u32,
    height: u32,
    svg: String,
}

impl Figure {
    /// The SVG document. It starts with `<svg` and has no XML prolog.
    pub fn svg(&self) -> &str {
        &self.svg
    }
    /// The chart title (also the image's `alt` text).
    pub fn title(&self) -> &str {
        &self.title
    }
    /// Width and height in pixels.
    pub fn dimensions(&self) -> (u32, u32) {
        (self.width, self.height)
    }
    /// Writes the SVG document to `path`.
    pub fn save_svg<P: AsRef<Path>>(&self, path: P) -> std::io::Result<()> {
        std::fs::write(path, self.svg.as_bytes())
    }
    /// `<img src="data:image/svg+xml;base64,…" alt="TITLE">`: an image, not inline `<svg>`,
    /// because JupyterLab shows inline SVG as raw text in untrusted notebooks.
    pub fn to_img_tag(&self) -> String {
        let b64 = base64::engine::general_purpose::STANDARD.encode(self.svg.as_bytes());
        format!("<img src=\"data:image/svg+xml;base64,{b64}\" alt=\"{}\">", esc(&self.title))
    }
    /// What [`Figure::evcxr_display`] prints: `EVCXR_BEGIN_CONTENT text/html\n<img …>\nEVCXR_END_CONTENT\n`.
    pub fn evcxr_output(&self) -> String {
        format!("EVCXR_BEGIN_CONTENT text/html\n{}\nEVCXR_END_CONTENT\n", self.to_img_tag())
    }
    /// Shows the figure in an evcxr (Rust Jupyter kernel) cell.
    pub fn evcxr_display(&self) {
        print!("{}", self.evcxr_output());
    }
}

impl fmt::Display for Figure {
    /// A one-line text form: `[figure: TITLE, 720×400 SVG]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[figure: {}, {}×{} SVG]", self.title, self.width, self.height)
    }
}

impl fmt::Debug for Figure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Figure({:?}, {}×{}, {} bytes)", self.title, self.width, self.height, self.svg.len())
    }
}

/// Draws a chart of your own with plotters on a white `width`×`height` SVG, as a [`Figure`]:
/// end a notebook cell with it to see it.
///
/// ```
/// use reshard::present::charts::{self, plotters::prelude::*};
/// let fig = charts::draw(480, 300, |root| {
///     let mut chart = ChartBuilder::on(root)
///         .caption("y = x²", ("sans-serif", 20))
///         .margin(10)
///         .x_label_area_size(30)
///         .y_label_area_size(40)
///         .build_cartesian_2d(0.0..10.0, 0.0..100.0)?;
///     chart.configure_mesh().draw()?;
///     chart.draw_series(LineSeries::new((0..=10).map(|x| (x as f64, (x * x) as f64)), &BLUE))?;
///     Ok(())
/// })?;
/// assert!(fig.to_img_tag().starts_with("<img src=\"data:image/svg+xml;base64,"));
/// # Ok::<(), charts::DrawError>(())
/// ```
pub fn draw<F: FnOnce(&Area<'_>) -> Res>(width: u32, height: u32, f: F) -> Result<Figure, DrawError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE)?;
        f(&root)?;
        root.present()?;
    }
    Ok(Figure { title: String::new(), width, height, svg })
}

// ------------------------------------------------------- number formatting

pub use crate::present::format::thousands;

/// A compact value label: integers with separators, else about three significant digits.
fn fmt_value(v: f64, percent: bool) -> String {
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
fn text_w(s: &str, px: f64) -> f64 {
    let em = |c: char| match c {
        'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | 'I' | ' ' => 0.32,
        '(' | ')' | '[' | ']' | 'f' | 't' | 'r' | '/' | '-' => 0.42,
        'm' | 'w' | 'M' | 'W' | '%' | '@' | '—' => 0.95,
        'A'..='Z' => 0.72,
        _ => 0.62,
    };
    s.chars().map(em).sum::<f64>() * px
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

// ------------------------------------------------------------ drawing kit

/// Text `px` pixels high in the SVG (plotters writes `font-size` as size / 1.24), placed by
/// `h` and `v` relative to its anchor point.
fn font(px: f64, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", px * 1.24).into_font()).color(&INK).pos(Pos::new(h, v))
}

fn bold(px: f64, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", px * 1.24).into_font().style(FontStyle::Bold)).color(&INK).pos(Pos::new(h, v))
}

fn text<S: Into<String>>(a: &Area, s: S, (x, y): (f64, f64), style: TextStyle) -> Res {
    Ok(a.draw(&Text::new(s.into(), (x.round() as i32, y.round() as i32), style))?)
}

fn rect(a: &Area, (x0, y0): (f64, f64), (x1, y1): (f64, f64), c: RGBColor) -> Res {
    let p = |v: f64| v.round() as i32;
    Ok(a.draw(&Rectangle::new([(p(x0), p(y0)), (p(x1), p(y1))], c.filled()))?)
}

/// A polyline in pixels. (SVG `<rect>`s from plotters carry no stroke width: outlines are paths.)
fn path(a: &Area, pts: &[(f64, f64)], style: ShapeStyle) -> Res {
    let pts: Vec<(i32, i32)> = pts.iter().map(|&(x, y)| (x.round() as i32, y.round() as i32)).collect();
    Ok(a.draw(&PathElement::new(pts, style))?)
}

fn outline(a: &Area, (x0, y0): (f64, f64), (x1, y1): (f64, f64), style: ShapeStyle) -> Res {
    path(a, &[(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)], style)
}

/// A marker at `pos` in `a`'s coordinates, of shape 0 ● 1 ■ 2 ▲ 3 ◆ 4 ▼ 5 ✕ 6 + 7 ○.
fn mark<CT: CoordTranslate>(a: &DrawingArea<SVGBackend, CT>, shape: usize, pos: CT::From, r: i32, c: RGBColor) -> Res {
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

/// A line through `pts`, solid or dashed (`dash`, `gap` in pixels).
fn line<CT: CoordTranslate>(a: &DrawingArea<SVGBackend, CT>, pts: Vec<CT::From>, dash: (u32, u32), s: ShapeStyle) -> Res
where
    CT::From: Clone,
{
    match dash {
        (0, _) => a.draw(&PathElement::new(pts, s))?,
        (d, g) => a.draw(&DashedPathElement::new(pts, d, g, s))?,
    }
    Ok(())
}

/// A legend entry's picture.
#[derive(Clone, Debug)]
enum Key {
    /// Series ink, with line, marker, band.
    Series(usize, bool, bool, bool),
    /// A filled box.
    Fill(RGBColor),
    /// Reference line `k`.
    Ref(usize),
}

type Legend = Vec<(Key, String)>;

/// Splits `a` into the chart and a strip under it, where it draws the legend in centred rows.
fn with_legend<'a>(a: &Area<'a>, items: &Legend) -> Result<Area<'a>, DrawError> {
    let (w, h) = a.dim_in_pixel();
    let key_w = |label: &str| 52.0 + text_w(label, 12.0);
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
                        leg.draw(&Rectangle::new([(x0, cy - 6), (x0 + 28, cy + 6)], c(k).mix(0.2).filled()))?;
                    }
                    if ln {
                        line(
                            &leg,
                            vec![(x0, cy), (x0 + 28, cy)],
                            (INKS[k % 8].1, INKS[k % 8].2),
                            c(k).stroke_width(2),
                        )?;
                    }
                    if mk {
                        mark(&leg, k, (x0 + 14, cy), 4, c(k))?;
                    }
                }
                Key::Fill(c) => {
                    leg.draw(&Rectangle::new([(x0 + 6, cy - 7), (x0 + 22, cy + 7)], c.filled()))?;
                    leg.draw(&Rectangle::new([(x0 + 6, cy - 7), (x0 + 22, cy + 7)], INK))?;
                }
                Key::Ref(k) => line(&leg, vec![(x0, cy), (x0 + 28, cy)], REF_DASH[k % 3], INK.stroke_width(2))?,
            }
            text(&leg, label.as_str(), (x + 34.0, f64::from(cy)), font(12.0, Left, Center))?;
            x += key_w(label);
        }
    }
    Ok(chart)
}

fn ref_keys(refs: &[(f64, String)]) -> Legend {
    refs.iter().enumerate().filter(|(_, r)| r.0.is_finite()).map(|(k, r)| (Key::Ref(k), r.1.clone())).collect()
}

/// An axis `lo..hi` with exactly the given ticks; log axes are drawn in log10 space.
#[derive(Clone, Debug)]
struct Axis(f64, f64, Vec<f64>);

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
fn axis(lo: f64, hi: f64, log: bool, round: bool, n: f64) -> Axis {
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
fn cartesian<'a, 'b>(
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
        .x_desc(labels[0])
        .y_desc(labels[1])
        .draw()?;
    Ok(chart)
}

/// Dashed horizontal reference lines across the chart.
fn ref_lines(chart: &mut Chart, refs: &[(f64, String)], ty: impl Fn(f64) -> f64) -> Res {
    let (x0, x1) = (chart.x_range().start, chart.x_range().end);
    for (k, (v, _)) in refs.iter().enumerate().filter(|(_, r)| r.0.is_finite()) {
        line(chart.plotting_area(), vec![(x0, ty(*v)), (x1, ty(*v))], REF_DASH[k % 3], INK.stroke_width(2))?;
    }
    Ok(())
}

// ------------------------------------------------------ frame and builders

#[derive(Clone, Debug, PartialEq)]
struct Frame {
    title: String,
    subtitle: Option<String>,
    width: u32,
    height: u32,
}

impl Frame {
    fn new(title: &str) -> Frame {
        Frame { title: title.to_string(), subtitle: None, width: DEFAULT_WIDTH, height: DEFAULT_HEIGHT }
    }
}

/// Title (shrunk to fit) and subtitle at the top; `body` draws in the rest. An error becomes
/// a figure that says so.
fn render(fr: &Frame, body: impl FnOnce(&Area) -> Res) -> Figure {
    let paint = |body: &mut dyn FnMut(&Area) -> Res| {
        draw(fr.width, fr.height, |root| {
            let mut y = 8.0;
            for (s, px, b) in [(Some(&fr.title), 16.0, true), (fr.subtitle.as_ref(), 12.5, false)] {
                let Some(s) = s.filter(|s| !s.is_empty()) else { continue };
                let px = ((f64::from(fr.width) - 20.0) / text_w(s, if b { 0.92 } else { 1.0 })).clamp(9.0, px);
                let style = if b { bold(px, Mid, Top) } else { font(px, Mid, Top).color(&MUTED) };
                text(root, s.as_str(), (f64::from(fr.width) / 2.0, y), style)?;
                y += px + 7.0;
            }
            body(&root.split_vertically(y as i32 + 6).1)
        })
    };
    let mut body = Some(body);
    let fig = paint(&mut |a| body.take().map_or(Ok(()), |b| b(a)))
        .or_else(|e| paint(&mut |a| message(a, &format!("could not draw: {e}"))))
        .unwrap_or_else(|_| Figure { title: String::new(), width: fr.width, height: fr.height, svg: String::new() });
    // A <title> for screen readers and tooltips, after the opening <svg> line.
    let (head, rest) = fig.svg.split_once('\n').unwrap_or((&fig.svg, ""));
    let svg = format!("{head}\n<title>{}</title>\n{rest}", esc(&fr.title));
    Figure { title: fr.title.clone(), svg, ..fig }
}

fn message(a: &Area, why: &str) -> Res {
    let (w, h) = a.dim_in_pixel();
    let (cx, cy) = (f64::from(w) / 2.0, f64::from(h) / 2.0);
    text(a, "no data", (cx, cy - 12.0), font(20.0, Mid, Center).color(&MUTED))?;
    text(a, why, (cx, cy + 12.0), font(12.0, Mid, Center).color(&MUTED))
}

/// A figure that says "no data" and why.
fn no_data(fr: &Frame, why: &str) -> Figure {
    render(fr, |a| message(a, why))
}

macro_rules! builder_common {
    ($t:ident) => {
        impl $t {
            /// Sets the figure size in pixels (default 720×400; clamped to 240×160 ..= 4000×4000).
            pub fn size(mut self, width: u32, height: u32) -> Self {
                (self.frame.width, self.frame.height) = (width.clamp(240, 4000), height.clamp(160, 4000));
                self
            }
            /// Adds a smaller second title line, e.g. what the reader should notice.
            pub fn subtitle(mut self, text: &str) -> Self {
                self.frame.subtitle = Some(text.to_string());
                self
            }
            /// Renders the chart and shows it in an evcxr notebook cell.
            pub fn evcxr_display(&self) {
                self.build().evcxr_display();
            }
        }
        impl From<$t> for Figure {
            fn from(chart: $t) -> Figure {
                chart.build()
            }
        }
        impl crate::present::show::Show for $t {
            fn text_form(&self) -> String {
                self.to_string()
            }
            fn html_form(&self) -> String {
                self.build().to_img_tag()
            }
        }
        impl From<&$t> for Figure {
            fn from(chart: &$t) -> Figure {
                chart.build()
            }
        }
        impl fmt::Display for $t {
            /// The same one-line form as the rendered [`Figure`].
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "[figure: {}, {}×{} SVG]", self.frame.title, self.frame.width, self.frame.height)
            }
        }
    };
}

// -------------------------------------------------------------- line chart

/// How a [`Series`] is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    /// A line with a marker at each point (default; thinned to about 30 markers).
    #[default]
    LinePoints,
    /// A line only: good for theoretical curves such as `1/(N+1)`.
    Line,
    /// Markers only: good for raw measurements.
    Points,
}

/// One named series for [`line_chart`]: points, an optional least–most band, and a style.
///
/// A series' ink (colour, dash and marker shape) is its position in the slice unless pinned
/// with [`Series::ink`], so that a quantity keeps its look across charts.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend text; series with an empty name are left out of the legend.
    pub name: String,
    /// `(x, y)` points, joined in order. Non-finite points are skipped, and so are points ≤ 0
    /// on a log axis.
    pub points: Vec<(f64, f64)>,
    /// `(x, lo, hi)` triples, shaded as a band behind the line. Empty means no band.
    pub band: Vec<(f64, f64, f64)>,
    /// Whether to draw the line, the markers, or both.
    pub style: Style,
    /// Ink index (colour, dash and marker). `None` uses the series' position.
    pub ink: Option<usize>,
}

impl Series {
    /// A series drawn as a line with markers.
    pub fn new<S: Into<String>, I: IntoIterator<Item = (f64, f64)>>(name: S, points: I) -> Series {
        Series {
            name: name.into(),
            points: points.into_iter().collect(),
            band: Vec::new(),
            style: Style::LinePoints,
            ink: None,
        }
    }
    /// Sets the drawing style.
    pub fn style(mut self, style: Style) -> Series {
        self.style = style;
        self
    }
    /// Adds a shaded band from `(x, lo, hi)` triples.
    pub fn band<I: IntoIterator<Item = (f64, f64, f64)>>(mut self, band: I) -> Series {
        self.band = band.into_iter().collect();
        self
    }
    /// Pins the ink: 0 blue solid ●, 1 vermillion dashed ■, 2 green dotted ▲, 3 black long
    /// dash ◆, 4 pink ▼, 5 orange ✕, 6 sky blue +, 7 grey ○.
    pub fn ink(mut self, ink: usize) -> Series {
        self.ink = Some(ink);
        self
    }
}

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
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> LineChart {
    LineChart {
        frame: Frame::new(title),
        labels: [x_label.to_string(), y_label.to_string()],
        series: series.to_vec(),
        log: [false; 2],
        y_percent: false,
        include_zero: true,
        refs: Vec::new(),
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
            return no_data(&self.frame, "no finite points to plot");
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
        render(&self.frame, |a| {
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
                let (c, dash, gap) = INKS[*ink];
                if s.style != Style::Points && xy.len() > 1 {
                    line(chart.plotting_area(), xy.clone(), (dash, gap), rgb(c).stroke_width(2))?;
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

// --------------------------------------------------------------- bar chart

/// Builder for a grouped bar chart. Create it with [`bar_chart`].
#[derive(Clone, Debug)]
pub struct BarChart {
    frame: Frame,
    labels: [String; 2],
    groups: Vec<String>,
    series: Vec<(String, Vec<f64>)>,
    refs: Vec<(f64, String)>,
    y_percent: bool,
}

/// A grouped bar chart: one group per category (e.g. nodes A, B, C, D) and one bar per series
/// in each group; `series[j].1[g]` is the height of series `j` in group `g` (missing or
/// non-finite: no bar). Values are written above the bars when they fit.
pub fn bar_chart<G: AsRef<str>, S: AsRef<str>>(
    title: &str,
    y_label: &str,
    groups: &[G],
    series: &[(S, Vec<f64>)],
) -> BarChart {
    BarChart {
        frame: Frame::new(title),
        labels: [String::new(), y_label.to_string()],
        groups: groups.iter().map(|g| g.as_ref().to_string()).collect(),
        series: series.iter().map(|(n, v)| (n.as_ref().to_string(), v.clone())).collect(),
        refs: Vec::new(),
        y_percent: false,
    }
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
        let (ng, ns) = (self.groups.len(), self.series.len());
        let val = |j: usize, g: usize| self.series[j].1.get(g).copied().filter(|v| v.is_finite() && v.abs() < 1e300);
        let bars: Vec<(usize, usize, f64)> =
            (0..ns).flat_map(|j| (0..ng).filter_map(move |g| Some((j, g, val(j, g)?)))).collect();
        if bars.is_empty() {
            return no_data(&self.frame, "no finite values to plot");
        }
        let vals = bars.iter().map(|b| b.2).chain(self.refs.iter().map(|r| r.0).filter(|v| v.is_finite()));
        let (lo, hi) = vals.fold((0.0f64, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
        let named = self.series.iter().enumerate().filter(|s| !s.1 .0.is_empty());
        let mut legend: Legend = named.map(|(j, s)| (Key::Fill(color(j)), s.0.clone())).collect();
        legend.extend(ref_keys(&self.refs));
        render(&self.frame, |a| {
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
                chart.draw_series([Rectangle::new(r, color(j).filled()), Rectangle::new(r, INK)])?;
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

// --------------------------------------------------------------- histogram

/// Builder for a histogram. Create it with [`histogram`].
#[derive(Clone, Debug)]
pub struct Histogram {
    frame: Frame,
    x_label: String,
    values: Vec<f64>,
    bins: usize,
    refs: Vec<(f64, String)>,
}

/// A histogram of `values` in `bins` equal-width bins (`0` = automatic: Sturges' rule, at most
/// 60). Non-finite values are ignored.
pub fn histogram(title: &str, x_label: &str, values: &[f64], bins: usize) -> Histogram {
    Histogram {
        frame: Frame::new(title),
        x_label: x_label.to_string(),
        values: values.to_vec(),
        bins,
        refs: Vec::new(),
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

// ----------------------------------------------------------------- heatmap

/// How [`heatmap`] maps counts to grey levels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scale {
    /// Intensity proportional to the count.
    Linear,
    /// Intensity proportional to √count (default): small counts stay visible next to large ones.
    #[default]
    Sqrt,
    /// Intensity proportional to ln(1 + count): shows single stray keys.
    Log,
}

impl Scale {
    /// Where `v` falls between 0 and `max`, in 0..=1, and back.
    fn t(self, v: f64, max: f64) -> f64 {
        let t = match self {
            Scale::Linear => v / max,
            Scale::Sqrt => (v / max).sqrt(),
            Scale::Log => v.ln_1p() / max.ln_1p(),
        };
        if t.is_finite() {
            t.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
    fn inv(self, t: f64, max: f64) -> f64 {
        match self {
            Scale::Linear => t * max,
            Scale::Sqrt => t * t * max,
            Scale::Log => (t * max.ln_1p()).exp_m1(),
        }
    }
}

/// Builder for a count heatmap. Create it with [`heatmap`].
#[derive(Clone, Debug)]
pub struct Heatmap {
    frame: Frame,
    rows: Vec<String>,
    cols: Vec<String>,
    matrix: Vec<Vec<u64>>,
    labels: [String; 2],
    scale: Scale,
    diagonal: bool,
    unit: String,
}

/// A heatmap of counts, e.g. the old→new transition matrix (rows: the node before, columns:
/// the node after), from white (0) to near-black (the largest count), with the counts written
/// in the cells when they fit. Ragged or short rows count as zeros.
pub fn heatmap<R: AsRef<str>, C: AsRef<str>>(
    title: &str,
    row_labels: &[R],
    col_labels: &[C],
    matrix: &[Vec<u64>],
    x_label: &str,
    y_label: &str,
) -> Heatmap {
    Heatmap {
        frame: Frame::new(title),
        rows: row_labels.iter().map(|s| s.as_ref().to_string()).collect(),
        cols: col_labels.iter().map(|s| s.as_ref().to_string()).collect(),
        matrix: matrix.to_vec(),
        labels: [x_label.to_string(), y_label.to_string()],
        scale: Scale::Sqrt,
        diagonal: false,
        unit: "count".to_string(),
    }
}

builder_common!(Heatmap);

impl Heatmap {
    /// How counts map to grey (default [`Scale::Sqrt`]).
    pub fn scale(mut self, scale: Scale) -> Self {
        self.scale = scale;
        self
    }
    /// Outlines the diagonal cells (row i, column i): for "stayed on the same node".
    pub fn mark_diagonal(mut self, on: bool) -> Self {
        self.diagonal = on;
        self
    }
    /// The word above the grey scale bar (default "count", e.g. "keys").
    pub fn unit(mut self, unit: &str) -> Self {
        self.unit = unit.to_string();
        self
    }

    /// Renders the chart.
    pub fn build(&self) -> Figure {
        let nr = self.matrix.len().max(self.rows.len());
        let nc = self.matrix.iter().map(Vec::len).max().unwrap_or(0).max(self.cols.len());
        if nr == 0 || nc == 0 || nr * nc > 40_000 {
            return no_data(&self.frame, &format!("cannot draw a {nr}×{nc} matrix"));
        }
        let cell = |r: usize, c: usize| self.matrix.get(r).and_then(|row| row.get(c)).copied().unwrap_or(0);
        let name = |v: &[String], i: usize| v.get(i).cloned().unwrap_or_else(|| i.to_string());
        let max = (0..nr * nc).map(|i| cell(i / nc, i % nc)).max().unwrap_or(0) as f64;
        let grey = |t: f64| RGBColor((255.0 - t * 225.0) as u8, (255.0 - t * 225.0) as u8, (255.0 - t * 225.0) as u8);
        render(&self.frame, |a| {
            let (w, h) = a.dim_in_pixel();
            let rlw = (0..nr).map(|r| text_w(&name(&self.rows, r), TICK)).fold(0.0, f64::max);
            let right = 50.0 + text_w(&thousands(max as u64), TICK).max(text_w(&self.unit, TICK) - 20.0);
            let (aw, ah) = ((f64::from(w) - 34.0 - rlw - right).max(10.0), (f64::from(h) - 50.0).max(10.0));
            let (cw, ch) = ((aw / nc as f64).min(90.0), (ah / nr as f64).min(44.0));
            let (gw, gh) = (cw * nc as f64, ch * nr as f64);
            let (gx, gy) = (34.0 + rlw + (aw - gw) / 2.0, 4.0);
            let widest = (0..nr * nc).map(|i| text_w(&thousands(cell(i / nc, i % nc)), 1.0)).fold(0.0, f64::max);
            let fs = (ch * 0.42).min(12.0).min((cw - 4.0) / widest.max(0.1));
            for (r, c) in (0..nr).flat_map(|r| (0..nc).map(move |c| (r, c))) {
                let (x, y, v) = (gx + c as f64 * cw, gy + r as f64 * ch, cell(r, c));
                let t = self.scale.t(v as f64, max);
                rect(a, (x, y), (x + cw, y + ch), grey(t))?;
                let ink = if v == 0 {
                    RGBColor(0xAA, 0xAA, 0xAA)
                } else if t > 0.55 {
                    WHITE
                } else {
                    INK
                };
                if fs >= 7.0 {
                    text(a, thousands(v), (x + cw / 2.0, y + ch / 2.0), font(fs, Mid, Center).color(&ink))?;
                }
            }
            let light = RGBColor(0xCC, 0xCC, 0xCC);
            for i in 1..nr {
                path(a, &[(gx, gy + i as f64 * ch), (gx + gw, gy + i as f64 * ch)], light.into())?;
            }
            for i in 1..nc {
                path(a, &[(gx + i as f64 * cw, gy), (gx + i as f64 * cw, gy + gh)], light.into())?;
            }
            outline(a, (gx, gy), (gx + gw, gy + gh), INK.into())?;
            for i in (0..nr.min(nc)).filter(|_| self.diagonal) {
                let (x, y) = (gx + i as f64 * cw, gy + i as f64 * ch);
                outline(a, (x + 2.5, y + 2.5), (x + cw - 2.5, y + ch - 2.5), color(5).stroke_width(3))?;
            }
            let step = |room: f64, need: f64| ((need / room).ceil() as usize).max(1);
            for r in (0..nr).step_by(step(ch, TICK + 2.0)) {
                text(a, name(&self.rows, r), (gx - 6.0, gy + (r as f64 + 0.5) * ch), font(TICK, Right, Center))?;
            }
            let cwid = (0..nc).map(|c| text_w(&name(&self.cols, c), TICK)).fold(0.0, f64::max);
            for c in (0..nc).step_by(step(cw, cwid + 4.0)) {
                text(a, name(&self.cols, c), (gx + (c as f64 + 0.5) * cw, gy + gh + 4.0), font(TICK, Mid, Top))?;
            }
            let desc = font(12.5, Mid, Center);
            text(a, self.labels[0].as_str(), (gx + gw / 2.0, gy + gh + 30.0), desc.clone())?;
            text(a, self.labels[1].as_str(), (12.0, gy + gh / 2.0), desc.transform(FontTransform::Rotate270))?;
            // The grey scale: 0, the largest count and three round numbers between.
            let (bx, by, bh) = (gx + gw + 16.0, gy + 18.0, (gh - 36.0).clamp(30.0, 220.0));
            for i in 0..40 {
                let y = by + bh - f64::from(i + 1) * bh / 40.0;
                rect(a, (bx, y), (bx + 14.0, y + bh / 40.0 + 1.0), grey((f64::from(i) + 0.5) / 40.0))?;
            }
            outline(a, (bx, by), (bx + 14.0, by + bh), INK.into())?;
            let muted = |v| font(TICK, Left, v).color(&MUTED);
            text(a, self.unit.as_str(), (bx, by - 6.0), muted(Bottom))?;
            let scale = ["linear", "√ scale", "log scale"][self.scale as usize];
            text(a, scale, (bx, by + bh + 6.0), muted(Top))?;
            for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
                let v = self.scale.inv(t, max);
                let p = 10f64.powf((v.log10().floor() - 1.0).max(0.0));
                let v = if t < 1.0 { (v / p).round() * p } else { max };
                let y = by + bh - self.scale.t(v, max) * bh;
                path(a, &[(bx + 14.0, y), (bx + 18.0, y)], INK.into())?;
                text(a, thousands(v as u64), (bx + 21.0, y), font(TICK, Left, Center))?;
            }
            Ok(())
        })
    }
}

// ------------------------------------------------------------ ring diagram

/// Builder for the hash-ring picture. Create it with [`ring_diagram`].
#[derive(Clone, Debug)]
pub struct RingDiagram {
    frame: Frame,
    points: Vec<(f64, usize)>,
    names: Vec<String>,
    keys: Option<Vec<f64>>,
    label_points: Option<bool>,
}

/// The hash ring as a circle, 0 at the top and positions increasing clockwise.
///
/// * `points`: `(position in [0, 1), node index)` for every point (vnode) on the ring;
///   positions are wrapped into [0, 1) and NaN points dropped.
/// * `node_names[i]` names node `i` (missing names print as `node i`).
/// * `keys`: optional key positions, drawn inside the ring in their owner's colour and shape.
///
/// The arc from the previous point (exclusive) to a point (inclusive) belongs to that point's
/// node and is drawn as a band inside the circle; the legend gives each node's share.
pub fn ring_diagram<S: AsRef<str>>(
    title: &str,
    points: &[(f64, usize)],
    node_names: &[S],
    keys: Option<&[f64]>,
) -> RingDiagram {
    RingDiagram {
        frame: Frame::new(title),
        points: points.iter().filter(|p| p.0.is_finite()).map(|&(p, n)| (p.rem_euclid(1.0) % 1.0, n)).collect(),
        names: node_names.iter().map(|s| s.as_ref().to_string()).collect(),
        keys: keys.map(|k| k.iter().filter(|k| k.is_finite()).map(|k| k.rem_euclid(1.0) % 1.0).collect()),
        label_points: None,
    }
}

builder_common!(RingDiagram);

fn node_name(names: &[String], i: usize) -> String {
    names.get(i).cloned().unwrap_or_else(|| format!("node {i}"))
}

impl RingDiagram {
    /// Forces the node-name labels next to each point on or off (default: on for ≤ 16 points).
    pub fn label_points(mut self, on: bool) -> Self {
        self.label_points = Some(on);
        self
    }

    /// Renders the diagram.
    pub fn build(&self) -> Figure {
        let mut pts = self.points.clone();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let m = pts.len();
        if m == 0 {
            return no_data(&self.frame, "no points on the ring");
        }
        // Arc i runs from point i − 1 (exclusive) to point i; a key belongs to the next point.
        let start = |i: usize| if i == 0 { pts[m - 1].0 - 1.0 } else { pts[i - 1].0 };
        let owner = |k: f64| pts[Some(pts.partition_point(|p| p.0 < k)).filter(|&i| i < m).unwrap_or(0)].1;
        let mut nodes: Vec<usize> = pts.iter().map(|p| p.1).collect();
        nodes.sort_unstable();
        nodes.dedup();
        let slot = |node: usize| nodes.binary_search(&node).unwrap_or(0);
        let (mut share, mut count, mut keys) = (vec![0.0; nodes.len()], vec![0; nodes.len()], vec![0; nodes.len()]);
        for (i, p) in pts.iter().enumerate() {
            (share[slot(p.1)], count[slot(p.1)]) = (share[slot(p.1)] + p.0 - start(i), count[slot(p.1)] + 1);
        }
        self.keys.iter().flatten().for_each(|&k| keys[slot(owner(k))] += 1);
        let plural = |n: usize, what: &str| format!("{} {what}{}", thousands(n as u64), if n == 1 { "" } else { "s" });
        let lines: Vec<String> = (0..nodes.len())
            .map(|i| {
                let k = if self.keys.is_some() { format!(", {}", plural(keys[i], "key")) } else { String::new() };
                format!(
                    "{}: {:.1}% of ring, {}{k}",
                    node_name(&self.names, nodes[i]),
                    share[i] * 100.0,
                    plural(count[i], "point")
                )
            })
            .collect();
        let notes = ["A key belongs to the first point", "at or after it, going clockwise."];
        render(&self.frame, |a| {
            let (w, h) = (f64::from(a.dim_in_pixel().0), f64::from(a.dim_in_pixel().1));
            let shown = nodes.len().min(((h - 60.0) / 22.0).max(1.0) as usize);
            let texts = lines.iter().take(shown).map(|s| text_w(s, 12.0) + 40.0).chain(notes.map(|s| text_w(s, TICK)));
            let aw = (w - texts.fold(0.0, f64::max).min(w * 0.55) - 30.0).max(60.0);
            let (cx, cy, r) = (aw / 2.0 + 10.0, h / 2.0, (aw.min(h - 10.0) / 2.0 - 28.0).max(20.0));
            let (r_out, r_in) = (r - 3.0, r - 3.0 - (r * 0.14).clamp(6.0, 22.0));
            let at = |rad: f64, t: f64| (cx + rad * (t * TAU).sin(), cy - rad * (t * TAU).cos());
            let px = |rad: f64, t: f64| (at(rad, t).0.round() as i32, at(rad, t).1.round() as i32);
            for (i, &(e, n)) in pts.iter().enumerate().filter(|&(i, p)| p.0 > start(i)) {
                let (s, steps) = (start(i), ((e - start(i)) * 180.0).ceil() as usize);
                let arc = |rad: f64| (0..=steps).map(move |j| px(rad, s + (e - s) * j as f64 / steps as f64));
                let poly: Vec<(i32, i32)> = arc(r_out).chain(arc(r_in).rev()).collect();
                a.draw(&Polygon::new(poly, color(slot(n)).filled()))?;
                if m <= 60 {
                    path(a, &[at(r_in, e), at(r_out, e)], WHITE.into())?;
                }
            }
            a.draw(&Circle::new((cx.round() as i32, cy.round() as i32), r as i32, MUTED))?;
            let faint = font(TICK, Mid, Center).color(&RGBColor(0x66, 0x66, 0x66));
            for (t, s) in [(0.0, "0"), (0.25, "0.25"), (0.5, "0.5"), (0.75, "0.75")] {
                text(a, s, at(r_in - 20.0 - (t * 4.0 % 2.0) * text_w(s, TICK) / 2.0, t), faint.clone())?;
            }
            text(a, "position", (cx, cy - 8.0), faint.clone())?;
            text(a, "0 → 1 clockwise", (cx, cy + 8.0), faint.clone())?;
            let keys = self.keys.as_deref().unwrap_or_default();
            let every = keys.len().div_ceil(600).max(1);
            for &k in keys.iter().step_by(every) {
                mark(
                    a,
                    slot(owner(k)),
                    px(r_in - 7.0, k),
                    if keys.len() <= 60 { 3 } else { 2 },
                    color(slot(owner(k))),
                )?;
            }
            if every > 1 {
                let s = format!(
                    "{} of {} keys shown",
                    thousands(keys.len().div_ceil(every) as u64),
                    thousands(keys.len() as u64)
                );
                text(a, s, (cx, cy + 26.0), faint)?;
            }
            for &(p, n) in pts.iter().filter(|_| m <= 5000) {
                if m <= 80 {
                    mark(a, slot(n), px(r, p), if m <= 16 { 6 } else { 4 }, color(slot(n)))?;
                } else {
                    path(a, &[at(r, p), at(r + 7.0, p)], color(slot(n)).into())?;
                }
            }
            for &(p, n) in pts.iter().filter(|_| self.label_points.unwrap_or(m <= 16)) {
                let (x, y) = at(r + 16.0, p);
                let hp = if x > cx + 4.0 {
                    Left
                } else if x < cx - 4.0 {
                    Right
                } else {
                    Mid
                };
                text(a, node_name(&self.names, n), (x, y), font(12.0, hp, Center))?;
            }
            let lx = aw + 26.0;
            let mut y = (cy - (shown as f64 * 22.0 + 44.0) / 2.0).max(10.0);
            let left = |px: f64| font(px, Left, Center);
            for (i, line) in lines.iter().take(shown).enumerate() {
                rect(a, (lx, y - 7.0), (lx + 16.0, y + 7.0), color(i))?;
                mark(a, i, (lx as i32 + 26, y as i32), 5, color(i))?;
                text(a, line.as_str(), (lx + 38.0, y), left(12.0))?;
                y += 22.0;
            }
            if shown < nodes.len() {
                text(a, format!("… and {} more nodes", nodes.len() - shown), (lx, y), left(12.0).color(&MUTED))?;
                y += 22.0;
            }
            for (i, note) in notes.iter().enumerate() {
                text(a, *note, (lx, y + 15.0 * i as f64), left(TICK).color(&MUTED))?;
            }
            Ok(())
        })
    }
}

// --------------------------------------------------------------- shard map

/// Builder for the before/after shard→node map. Create it with [`shard_map`].
#[derive(Clone, Debug)]
pub struct ShardMap {
    frame: Frame,
    before: Vec<usize>,
    after: Vec<usize>,
    names: Vec<String>,
}

/// The shard→node table before and after a rebalance: `before[s]` and `after[s]` are the node
/// indices of shard `s`.
///
/// Three grids side by side, shard 0 top left, row by row: before and after coloured by node,
/// and the moved shards in black, so the change reads in greyscale too. Where cells are large
/// enough, moved shards are also outlined in the first two grids and node names written in the
/// cells. A caption gives the count, e.g. "90 of 1,000 shards moved (9.0%)"; missing entries
/// count as moved. Runs of equal cells are drawn as one rectangle, so 16,384 slots stay small.
pub fn shard_map<S: AsRef<str>>(title: &str, before: &[usize], after: &[usize], node_names: &[S]) -> ShardMap {
    ShardMap {
        frame: Frame::new(title),
        before: before.to_vec(),
        after: after.to_vec(),
        names: node_names.iter().map(|s| s.as_ref().to_string()).collect(),
    }
}

builder_common!(ShardMap);

type Block = (usize, usize, usize, usize, usize);

/// Rectangles `(row, col, width, height, value)` covering the cells (row-major, `cols` wide)
/// that hold a value: runs along a row, merged with the same run in the rows below.
fn blocks(cells: &[Option<usize>], cols: usize) -> Vec<Block> {
    let (mut out, mut open): (Vec<Block>, Vec<usize>) = (Vec::new(), Vec::new());
    for (r, row) in cells.chunks(cols).enumerate() {
        let (mut next, mut c) = (Vec::new(), 0);
        while c < row.len() {
            let len = row[c..].iter().take_while(|v| **v == row[c]).count();
            if let Some(v) = row[c] {
                match open.iter().find(|&&i| (out[i].1, out[i].2, out[i].4) == (c, len, v)) {
                    Some(&i) => out[i].3 += 1,
                    None => out.push((r, c, len, 1, v)),
                }
                next.push(
                    open.iter()
                        .copied()
                        .find(|&i| (out[i].1, out[i].2, out[i].4) == (c, len, v))
                        .unwrap_or(out.len() - 1),
                );
            }
            c += len;
        }
        open = next;
    }
    out
}

impl ShardMap {
    /// Number of shards whose node differs between `before` and `after`.
    pub fn moved(&self) -> usize {
        (0..self.before.len().max(self.after.len())).filter(|&i| self.before.get(i) != self.after.get(i)).count()
    }

    /// Renders the map.
    pub fn build(&self) -> Figure {
        let n = self.before.len().max(self.after.len());
        if n == 0 || n > 100_000 {
            return no_data(&self.frame, &format!("cannot draw {} shards", thousands(n as u64)));
        }
        let moved: Vec<bool> = (0..n).map(|i| self.before.get(i) != self.after.get(i)).collect();
        let count = self.moved();
        let mut nodes: Vec<usize> = self.before.iter().chain(&self.after).copied().collect();
        nodes.sort_unstable();
        nodes.dedup();
        let panels: [(&str, Vec<Option<usize>>); 3] = [
            ("before", (0..n).map(|i| self.before.get(i).copied()).collect()),
            ("after", (0..n).map(|i| self.after.get(i).copied()).collect()),
            ("moved", moved.iter().map(|&m| m.then_some(usize::MAX)).collect()),
        ];
        let mut legend: Legend =
            nodes.iter().take(24).map(|&i| (Key::Fill(color(i)), node_name(&self.names, i))).collect();
        render(&self.frame, |a| {
            let (w, h) = (f64::from(a.dim_in_pixel().0), f64::from(a.dim_in_pixel().1) - 66.0);
            let (gap, pw, ph) = (24.0, (w - 80.0) / 3.0, h - 52.0);
            // Columns near the panels' shape: the count that draws the fewest rectangles.
            let ideal = (n as f64 * pw / ph).sqrt();
            let (lo, hi) = (((ideal * 0.75) as usize).max(1), ((ideal * 1.3).ceil() as usize).clamp(1, n));
            let cost = |c: usize| panels.iter().map(|p| blocks(&p.1, c).len()).sum::<usize>();
            let cols = (lo..=hi.max(lo)).step_by((hi.max(lo) - lo) / 48 + 1).min_by_key(|&c| cost(c)).unwrap_or(1);
            // Up to 48 shards: three labelled rows instead, numbered.
            let (stacked, cols) = if n <= 48 { (true, n) } else { (false, cols) };
            let rows = n.div_ceil(cols);
            let cell = if stacked {
                ((w - 120.0) / n as f64).min(40.0)
            } else {
                (pw / cols as f64).min(ph / rows as f64).min(48.0)
            };
            let what = match (stacked, cell >= 6.0) {
                (true, _) => "moved: black in the bottom row, outlined above",
                (false, true) => "moved: black on the right, outlined in before and after",
                (false, false) => "moved: black on the right",
            };
            legend.push((Key::Fill(BLACK), what.into()));
            let a = with_legend(a, &legend)?;
            let (gw, gh) = (cell * cols as f64, cell * rows as f64);
            // Three stacked rows sit in the middle of the space; grids start at the top.
            let y0 = if stacked { ((f64::from(a.dim_in_pixel().1) - 3.0 * gh - 70.0) / 2.0).max(22.0) } else { 22.0 };
            let x0 = if stacked { (w - gw) / 2.0 + 24.0 } else { (w - 3.0 * gw - 2.0 * gap) / 2.0 };
            for i in (0..n).filter(|i| stacked && (cell >= 22.0 || i % 5 == 0)) {
                text(&a, i.to_string(), (x0 + (i as f64 + 0.5) * cell, y0 - 4.0), font(11.0, Mid, Bottom))?;
            }
            for (p, (label, cells)) in panels.iter().enumerate() {
                let (gx, gy) =
                    if stacked { (x0, y0 + p as f64 * (gh + 10.0)) } else { (x0 + p as f64 * (gw + gap), y0) };
                let xy = |i: usize| (gx + (i % cols) as f64 * cell, gy + (i / cols) as f64 * cell);
                if stacked {
                    text(&a, *label, (gx - 8.0, gy + cell / 2.0), bold(12.5, Right, Center))?;
                } else {
                    text(&a, *label, (gx + gw / 2.0, y0 - 5.0), bold(12.5, Mid, Bottom))?;
                }
                rect(&a, (gx, gy), (gx + gw, gy + gh), RGBColor(0xF2, 0xF2, 0xF2))?;
                for (r, c, bw, bh, v) in blocks(cells, cols) {
                    let (x, y) = xy(r * cols + c);
                    rect(
                        &a,
                        (x, y),
                        (x + bw as f64 * cell, y + bh as f64 * cell),
                        if v == usize::MAX { BLACK } else { color(v) },
                    )?;
                }
                for i in (0..=rows).filter(|_| cell >= 6.0) {
                    path(&a, &[(gx, gy + i as f64 * cell), (gx + gw, gy + i as f64 * cell)], WHITE.into())?;
                }
                for i in (0..=cols).filter(|_| cell >= 6.0) {
                    path(&a, &[(gx + i as f64 * cell, gy), (gx + i as f64 * cell, gy + gh)], WHITE.into())?;
                }
                for (i, v) in cells.iter().enumerate() {
                    let (x, y) = xy(i);
                    if cell >= 6.0 && p < 2 && moved[i] {
                        outline(&a, (x + 2.0, y + 2.0), (x + cell - 2.0, y + cell - 2.0), BLACK.stroke_width(2))?;
                    }
                    let name = v.filter(|&v| v < usize::MAX).map(|v| node_name(&self.names, v)).unwrap_or_default();
                    if cell >= 20.0 && text_w(&name, 11.0) <= cell - 6.0 {
                        let ink = if v.is_some_and(|v| [1, 4, 6, 7, 9].contains(&(v % 12))) { BLACK } else { WHITE };
                        text(&a, name, (x + cell / 2.0, y + cell / 2.0), font(11.0, Mid, Center).color(&ink))?;
                    }
                }
            }
            let y = if stacked { y0 + 3.0 * gh + 28.0 } else { y0 + gh + 8.0 };
            if !stacked {
                let note = format!("{cols} × {rows} grid, shard 0 at top left, row by row");
                text(&a, note, (w / 2.0, y), font(TICK, Mid, Top).color(&MUTED))?;
            }
            let pct = count as f64 * 100.0 / n as f64;
            let cap = format!("{} of {} shards moved ({pct:.1}%)", thousands(count as u64), thousands(n as u64));
            text(&a, cap, (w / 2.0, y + 18.0), bold(12.5, Mid, Top))
        })
    }
}

// ------------------------------------------------------------------- tests

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Placement;

    /// One chart of every kind, on the notebooks' data where the crate has it.
    fn all_figures() -> Vec<Figure> {
        let ns: Vec<f64> = (2..=12).map(f64::from).collect();
        let ring: Vec<(f64, usize)> = (0..600).map(|i| (((i * 7919) % 1000) as f64 / 1000.0, i % 4)).collect();
        let table = |s: &[crate::NodeId]| s.iter().map(|&t| t as usize).collect::<Vec<_>>();
        let slots = crate::Slots::new(3).unwrap();
        let shards = crate::FixedShards::new(10).unwrap();
        let band = ns.iter().map(|&n| (n, 0.8 / n, 1.2 / n));
        let series = [Series::new("a", ns.iter().map(|&n| (n, 1.0 / n))).band(band), Series::new("b", [(3.0, 0.2)])];
        let none: &[&str] = &[];
        vec![
            line_chart("lines", "N", "share", &series).y_percent(true).log_x(true).reference(0.1, "ten").build(),
            line_chart("loglog", "N", "share", &series).log_x(true).log_y(true).subtitle("s").build(),
            bar_chart("bars", "keys", &["A", "B"], &[("x", vec![1.0, 2.0]), ("y", vec![3.0, -1.0])])
                .reference(1.5, "m")
                .build(),
            histogram("hist", "keys", &ns, 0).reference(5.0, "five").build(),
            heatmap("heat", &["A", "B"], &["A", "B"], &[vec![25_000, 12], vec![0, 89_813]], "new", "old").build(),
            ring_diagram("ring", &ring, &["A", "B", "C", "D"], Some(&[0.1, 0.5, 0.7])).build(),
            ring_diagram("ring1", &[(0.1, 0), (0.35, 1), (0.6, 2), (0.85, 3)], &["A", "B", "C", "D"], None).build(),
            shard_map("shards", &table(shards.table()), &table(shards.add_node("10").unwrap().table()), none).build(),
            shard_map("slots", &table(slots.table()), &table(slots.add_node("3").unwrap().table()), none).build(),
            shard_map("few", &[0, 1, 2, 0], &[0, 1, 3, 0], &["A", "B", "C", "D"]).build(),
        ]
    }

    #[test]
    fn every_chart_kind_is_byte_deterministic_small_and_drawn() {
        for (x, y) in all_figures().iter().zip(all_figures()) {
            assert_eq!(x.svg(), y.svg(), "{}", x.title());
            assert!(x.svg().starts_with("<svg") && x.svg().ends_with("</svg>\n"), "{}", x.title());
            assert!(!x.svg().contains("no data") && !x.svg().contains("NaN"), "{}", x.title());
            assert!(x.svg().len() <= 300_000, "{}: {} bytes", x.title(), x.svg().len());
        }
        let figs = all_figures();
        let svg = |t: &str| figs.iter().find(|f| f.title() == t).unwrap().svg().to_string();
        assert!(svg("slots").len() < 60_000, "16,384 slots: {} bytes", svg("slots").len());
        assert!(
            svg("slots").contains("4,096 of 16,384 shards moved (25.0%)")
                && svg("slots").contains("black on the right")
        );
        assert!(
            svg("shards").contains("90 of 1,000 shards moved (9.0%)") && svg("shards").contains("outlined in before")
        );
        assert!(svg("few").contains("black in the bottom row"));
        assert!(svg("heat").contains("\n89,813\n") && svg("heat").contains("\n25,000\n"));
        assert!(svg("ring1").contains("A: 25.0% of ring, 1 point"));
    }

    #[test]
    fn blocks_merge_runs_down_columns() {
        let cells = [Some(0), Some(0), Some(1), Some(0), Some(0), Some(1), Some(2), Some(2), None];
        assert_eq!(blocks(&cells, 3), vec![(0, 0, 2, 2, 0), (0, 2, 1, 2, 1), (2, 0, 2, 1, 2)]);
    }

    #[test]
    fn formats_numbers() {
        assert_eq!([thousands(0), thousands(1000), thousands(u64::MAX)], ["0", "1,000", "18,446,744,073,709,551,615"]);
        let v = [fmt_value(0.254, true), fmt_value(25_000.0, false), fmt_value(-1234.5, false), fmt_value(1e-4, true)];
        assert_eq!(v, ["25.4%", "25,000", "-1,234", "0.01%"]);
        // past u64::MAX the whole part is still printed (Python: f"{1e20:,.0f}")
        assert_eq!(fmt_value(1e20, false), "100,000,000,000,000,000,000");
        let big = bar_chart("big", "keys", &["A", "B"], &[("x", vec![1e20, 2e20])]).build();
        assert!(big.svg().contains("\n50,000,000,000,000,000,000\n"), "the ticks of a bar chart of 1e20");
    }

    #[test]
    fn img_tag_and_evcxr_output() {
        let fig = bar_chart("Keys \"per\" node <A&B>", "keys", &["A"], &[("s", vec![1.0])]).build();
        let tag = fig.to_img_tag();
        let b64 = tag.strip_prefix("<img src=\"data:image/svg+xml;base64,").unwrap().split('"').next().unwrap();
        assert_eq!(base64::engine::general_purpose::STANDARD.decode(b64).unwrap(), fig.svg().as_bytes());
        assert!(tag.ends_with("\" alt=\"Keys &quot;per&quot; node &lt;A&amp;B&gt;\">"));
        assert!(fig.svg().contains("<title>Keys &quot;per&quot; node &lt;A&amp;B&gt;</title>"));
        let out = fig.evcxr_output();
        assert!(out.starts_with("EVCXR_BEGIN_CONTENT text/html\n<img ") && out.ends_with("\nEVCXR_END_CONTENT\n"));
        assert_eq!(fig.to_string(), "[figure: Keys \"per\" node <A&B>, 720×400 SVG]");
    }

    #[test]
    fn empty_input_says_no_data_and_odd_input_draws() {
        let (none, nan): (&[&str], f64) = (&[], f64::NAN);
        for f in [
            line_chart("a", "x", "y", &[Series::new("s", [(nan, nan), (-1.0, 2.0)])]).log_x(true).build(),
            bar_chart("c", "y", &["A"], &[("s", vec![nan])]).build(),
            histogram("d", "x", &[nan], 0).build(),
            heatmap("e", none, none, &[], "x", "y").build(),
            ring_diagram("f", &[(nan, 0)], none, None).build(),
            shard_map("g", &[], &[], none).build(),
        ] {
            assert!(f.svg().contains("no data"), "{}", f.title());
        }
        for f in [
            line_chart("p", "x", "y", &[Series::new("s", [(1.0, 0.0), (2.0, 0.0)])]).build(),
            line_chart("q", "x", "y", &[Series::new("s", [(5.0, 5.0)])]).log_y(true).build(),
            bar_chart("s", "y", &["A", "B"], &[("z", vec![0.0, 0.0])]).size(0, 0).build(),
            histogram("u", "x", &[7.0, 7.0], 0).build(),
            heatmap("v", &["a"], &["b", "c"], &[vec![0, 0]], "x", "y").scale(Scale::Log).build(),
            ring_diagram("x", &[(0.3, 7), (1.0, 2)], none, Some(&[0.1, 2.0][..])).build(),
            shard_map("z", &[0, 1, usize::MAX], &[1], none).build(),
        ] {
            assert!(!f.svg().contains("no data") && !f.svg().contains("NaN"), "{}", f.title());
        }
    }
}
