//! Deterministic SVG charts for the notebooks: line charts, grouped bars, heatmaps,
//! the hash ring and shard maps.
//!
//! Every chart function takes plain data (`f64`, `u64`, `usize`, strings) and returns a small
//! builder. Adjust it (`.size(w, h)`, `.subtitle(..)` and the chart's own options), then call
//! `.build()` to get a [`Figure`]: a finished, self-contained SVG document. Builders and
//! figures both have an `evcxr_display` method, so in an evcxr notebook either one can be the
//! last expression of a cell and it shows up as a picture.
//!
//! Guarantees:
//! * **Deterministic.** The same inputs give a byte-identical SVG. There are no timestamps,
//!   random ids or hash-map iteration. Element ids come from a hash of the document itself.
//! * **Readable in greyscale.** Series differ in dash pattern and marker shape, and fills differ
//!   in hatching and grey level as well as colour.
//! * **Never panics.** Empty, all-NaN or degenerate input gives a figure that says "no data".
//! * **No dependencies.** The SVG and base64 are written by hand, and text uses the viewer's
//!   `sans-serif` font.
//!
//! ```
//! use reshard::present::charts::{bar_chart, thousands};
//!
//! let fig = bar_chart(
//!     "Keys per node: 150 points per node evens out the load",
//!     "keys",
//!     &["A", "B", "C", "D"],
//!     &[
//!         ("1 point per node", vec![41_022.0, 9_310.0, 30_655.0, 19_013.0]),
//!         ("150 points per node", vec![25_811.0, 24_402.0, 24_950.0, 24_837.0]),
//!     ],
//! )
//! .reference(25_000.0, "fair share (25,000)")
//! .build();
//! assert!(fig.svg().starts_with("<svg"));
//! assert!(fig.to_img_tag().starts_with("<img src=\"data:image/svg+xml;base64,"));
//! assert_eq!(thousands(89_813), "89,813");
//! // fig.evcxr_display();   // in a notebook: shows the chart
//! ```

use std::f64::consts::TAU;
use std::fmt::{self, Write as _};
use std::io;
use std::path::Path;

/// Default figure width in pixels.
pub const DEFAULT_WIDTH: u32 = 720;
/// Default figure height in pixels.
pub const DEFAULT_HEIGHT: u32 = 400;

const MIN_W: u32 = 240;
const MIN_H: u32 = 160;
const MAX_DIM: u32 = 4000;
/// Placeholder for the per-document id prefix; replaced in [`Svg::finish`].
const ID: &str = "@ID@";

const TITLE_FS: f64 = 16.0;
const SUB_FS: f64 = 12.0;
const TICK_FS: f64 = 11.0;
const LABEL_FS: f64 = 13.0;
const LEG_FS: f64 = 12.0;
const LEG_ROW: f64 = 20.0;
const SWATCH_W: f64 = 28.0;

const GRID: &str = r##" stroke="#e3e3e3" stroke-width="1""##;
const GRID_MINOR: &str = r##" stroke="#f0f0f0" stroke-width="1""##;
const AXIS: &str = r##" stroke="#222" stroke-width="1""##;
const MUTED: &str = r##" fill="#555""##;

/// Base colours (colour-blind-safe, adjacent entries differ in grey level).
const COLORS: [&str; 12] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999", "#332288", "#88CCEE",
    "#117733", "#AA4499",
];

/// Dash patterns for reference lines.
const REF_DASH: [&str; 3] = ["7 4", "2 3", "10 3 2 3"];

// ---------------------------------------------------------------------------------------------
// Figure
// ---------------------------------------------------------------------------------------------

/// A finished chart: a complete, standalone SVG document plus its title and size.
///
/// Show it in a notebook with [`Figure::evcxr_display`], embed it in HTML with
/// [`Figure::to_img_tag`] or write it to disk with [`Figure::save_svg`].
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

    /// The chart title (also used as the image's `alt` text).
    pub fn title(&self) -> &str {
        &self.title
    }

    /// Width and height in pixels.
    pub fn dimensions(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Writes the SVG document to `path`.
    pub fn save_svg<P: AsRef<Path>>(&self, path: P) -> io::Result<()> {
        std::fs::write(path, self.svg.as_bytes())
    }

    /// An HTML `<img>` tag that embeds the SVG as a base64 data URI:
    /// `<img src="data:image/svg+xml;base64,…" alt="TITLE">`.
    ///
    /// We use an image rather than inline `<svg>` markup because JupyterLab shows inline SVG
    /// HTML as raw text in untrusted notebooks. Images always render.
    pub fn to_img_tag(&self) -> String {
        format!("<img src=\"data:image/svg+xml;base64,{}\" alt=\"{}\">", base64(self.svg.as_bytes()), esc(&self.title))
    }

    /// The exact text that [`Figure::evcxr_display`] prints:
    /// `EVCXR_BEGIN_CONTENT text/html\n<img …>\nEVCXR_END_CONTENT\n`.
    pub fn evcxr_output(&self) -> String {
        format!("EVCXR_BEGIN_CONTENT text/html\n{}\nEVCXR_END_CONTENT\n", self.to_img_tag())
    }

    /// Shows the figure in an evcxr (Rust Jupyter kernel) cell by printing
    /// [`Figure::evcxr_output`] to stdout.
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
        f.debug_struct("Figure")
            .field("title", &self.title)
            .field("width", &self.width)
            .field("height", &self.height)
            .field("svg_bytes", &self.svg.len())
            .finish()
    }
}

// ---------------------------------------------------------------------------------------------
// Number formatting
// ---------------------------------------------------------------------------------------------

/// Formats an integer with comma thousands separators: `89813` → `"89,813"`.
pub fn thousands(n: u64) -> String {
    group_digits(&n.to_string())
}

fn group_digits(digits: &str) -> String {
    let len = digits.len();
    let mut out = String::with_capacity(len + len / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (len - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Fixed-point with thousands separators in the integer part; never prints "-0".
fn fmt_fixed(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    let s = format!("{:.*}", decimals.min(12), v.abs());
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (s.as_str(), None),
    };
    let nonzero = s.bytes().any(|b| (b'1'..=b'9').contains(&b));
    let mut out = String::new();
    if v < 0.0 && nonzero {
        out.push('-');
    }
    out.push_str(&group_digits(int));
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// A compact value label: integers with separators, else about three significant digits.
fn fmt_value(v: f64, percent: bool) -> String {
    let x = if percent { v * 100.0 } else { v };
    let a = x.abs();
    let s = if !x.is_finite() {
        "–".to_string()
    } else if a >= 100.0 || (x - x.round()).abs() < 1e-9 {
        fmt_fixed(x, 0)
    } else {
        let d = (2.0 - a.log10().floor()).clamp(0.0, 6.0) as usize;
        let s = fmt_fixed(x, d);
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if percent {
        s + "%"
    } else {
        s
    }
}

/// Smallest number of decimals that shows multiples of `step` exactly.
fn decimals_for(step: f64) -> usize {
    let mut s = step.abs();
    for d in 0..=10 {
        if (s - s.round()).abs() < 1e-6 * s.max(1.0) {
            return d;
        }
        s *= 10.0;
    }
    10
}

/// SVG coordinate: at most two decimals, no trailing zeros, never "-0", clamped to ±1e6.
struct N(f64);

impl fmt::Display for N {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = if self.0.is_finite() { self.0.clamp(-1e6, 1e6) } else { 0.0 };
        let r = (v * 100.0).round() / 100.0;
        if r == 0.0 {
            return f.write_str("0");
        }
        if r == r.trunc() {
            return write!(f, "{}", r as i64);
        }
        let s = format!("{r:.2}");
        f.write_str(s.trim_end_matches('0').trim_end_matches('.'))
    }
}

/// Escapes text for XML/HTML content and attributes. `@` is escaped so that user text can never
/// contain the id placeholder. Control characters become spaces.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            '@' => o.push_str("&#64;"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

/// Standard base64 (RFC 4648, with padding).
fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b1 = chunk.get(1).copied().unwrap_or(0);
        let b2 = chunk.get(2).copied().unwrap_or(0);
        let n = (u32::from(chunk[0]) << 16) | (u32::from(b1) << 8) | u32::from(b2);
        out.push(T[(n >> 18) as usize & 63] as char);
        out.push(T[(n >> 12) as usize & 63] as char);
        out.push(if chunk.len() > 1 { T[(n >> 6) as usize & 63] as char } else { '=' });
        out.push(if chunk.len() > 2 { T[n as usize & 63] as char } else { '=' });
    }
    out
}

fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Rough rendered width of `s` in a sans-serif font. It errs on the wide side (DejaVu Sans) so
/// that layouts built on it do not overlap.
fn text_w(s: &str, size: f64) -> f64 {
    let em: f64 = s
        .chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | 'I' | ' ' => 0.32,
            '(' | ')' | '[' | ']' | 'f' | 't' | 'r' | '/' | '-' => 0.42,
            'm' | 'w' | 'M' | 'W' | '%' | '@' | '—' => 0.95,
            'A'..='Z' => 0.72,
            '0'..='9' => 0.64,
            _ => 0.6,
        })
        .sum();
    em * size
}

fn hex_luma(hex: &str) -> f64 {
    let p =
        |i: usize| hex.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).map_or(0.5, |v| f64::from(v) / 255.0);
    0.299 * p(1) + 0.587 * p(3) + 0.114 * p(5)
}

/// `hex` mixed with white: `amount` 0 = unchanged, 1 = white.
fn tint(hex: &str, amount: f64) -> String {
    let ch = |i: usize| {
        let v = hex.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).unwrap_or(0);
        (f64::from(v) + (255.0 - f64::from(v)) * amount.clamp(0.0, 1.0)).round() as u8
    };
    format!("#{:02x}{:02x}{:02x}", ch(1), ch(3), ch(5))
}

fn color(i: usize) -> &'static str {
    COLORS[i % COLORS.len()]
}

// ---------------------------------------------------------------------------------------------
// SVG writer
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn attr(self) -> &'static str {
        match self {
            Anchor::Start => "",
            Anchor::Middle => " text-anchor=\"middle\"",
            Anchor::End => " text-anchor=\"end\"",
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Rect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Rect {
    fn right(&self) -> f64 {
        self.x + self.w
    }
    fn bottom(&self) -> f64 {
        self.y + self.h
    }
    fn cx(&self) -> f64 {
        self.x + self.w / 2.0
    }
    fn cy(&self) -> f64 {
        self.y + self.h / 2.0
    }
}

struct Svg {
    w: u32,
    h: u32,
    title: String,
    body: String,
    fills: Vec<usize>,
    clip: Option<Rect>,
}

impl Svg {
    fn new(frame: &Frame) -> Svg {
        Svg {
            w: frame.width,
            h: frame.height,
            title: frame.title.clone(),
            body: String::new(),
            fills: Vec::new(),
            clip: None,
        }
    }

    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, attrs: &str) {
        let _ = writeln!(
            self.body,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{attrs}/>",
            N(x),
            N(y),
            N(w.max(0.0)),
            N(h.max(0.0))
        );
    }

    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, attrs: &str) {
        let _ =
            writeln!(self.body, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"{attrs}/>", N(x1), N(y1), N(x2), N(y2));
    }

    fn path(&mut self, d: &str, attrs: &str) {
        if !d.is_empty() {
            let _ = writeln!(self.body, "<path d=\"{d}\"{attrs}/>");
        }
    }

    fn circle(&mut self, cx: f64, cy: f64, r: f64, attrs: &str) {
        let _ = writeln!(self.body, "<circle cx=\"{}\" cy=\"{}\" r=\"{}\"{attrs}/>", N(cx), N(cy), N(r));
    }

    fn text(&mut self, x: f64, y: f64, s: &str, size: f64, anchor: Anchor, attrs: &str) {
        if s.is_empty() {
            return;
        }
        let _ = writeln!(
            self.body,
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\"{}{attrs}>{}</text>",
            N(x),
            N(y),
            N(size),
            anchor.attr(),
            esc(s)
        );
    }

    /// Text rotated 90° counter-clockwise, centred on (x, y): for y-axis labels.
    fn vtext(&mut self, x: f64, y: f64, s: &str, size: f64) {
        let rot = format!(" transform=\"rotate(-90 {} {})\"", N(x), N(y));
        self.text(x, y, s, size, Anchor::Middle, &rot);
    }

    /// Fill paint for category `i`: a colour, plus hatching or dots for most indices so that
    /// categories stay distinct in greyscale.
    fn fill(&mut self, i: usize) -> String {
        let k = i % COLORS.len();
        if k.is_multiple_of(6) {
            return COLORS[k].to_string();
        }
        if !self.fills.contains(&k) {
            self.fills.push(k);
        }
        format!("url(#{ID}-f{k})")
    }

    fn begin_clip(&mut self, r: Rect) {
        self.clip = Some(r);
        let _ = writeln!(self.body, "<g clip-path=\"url(#{ID}-clip)\">");
    }

    fn end_clip(&mut self) {
        self.body.push_str("</g>\n");
    }

    fn finish(mut self) -> String {
        let mut defs = String::new();
        self.fills.sort_unstable();
        for &k in &self.fills {
            defs.push_str(&pattern_def(k));
        }
        if let Some(r) = self.clip {
            let _ = writeln!(
                defs,
                "<clipPath id=\"{ID}-clip\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath>",
                N(r.x),
                N(r.y),
                N(r.w),
                N(r.h)
            );
        }
        let mut out = String::with_capacity(self.body.len() + defs.len() + 400);
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\">",
            w = self.w,
            h = self.h
        );
        let _ = writeln!(out, "<title>{}</title>", esc(&self.title));
        if !defs.is_empty() {
            let _ = write!(out, "<defs>\n{defs}</defs>\n");
        }
        out.push_str("<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n");
        out.push_str(&self.body);
        out.push_str("</svg>\n");
        let id = format!("r{:08x}", fnv1a(&out) as u32);
        out.replace(ID, &id)
    }
}

fn pattern_def(k: usize) -> String {
    let c = COLORS[k];
    let ink = if hex_luma(c) < 0.4 { "#fff" } else { "#000" };
    let line = |d: &str| format!("<path d=\"{d}\" stroke=\"{ink}\" stroke-opacity=\"0.5\" stroke-width=\"1.4\"/>");
    let (transform, inner) = match k % 6 {
        1 => (" patternTransform=\"rotate(45)\"", line("M3 0V6")),
        2 => ("", format!("<circle cx=\"3\" cy=\"3\" r=\"1.3\" fill=\"{ink}\" fill-opacity=\"0.55\"/>")),
        3 => (" patternTransform=\"rotate(-45)\"", line("M3 0V6")),
        4 => (" patternTransform=\"rotate(45)\"", line("M3 0V6M0 3H6")),
        _ => ("", line("M0 3H6")),
    };
    format!(
        "<pattern id=\"{ID}-f{k}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"{transform}><rect width=\"6\" height=\"6\" fill=\"{c}\"/>{inner}</pattern>\n"
    )
}

// ---------------------------------------------------------------------------------------------
// Markers, line inks, legend
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    TriangleDown,
    Cross,
    Plus,
    Ring,
}

const MARKERS: [Marker; 8] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Cross,
    Marker::Plus,
    Marker::Ring,
];

fn draw_marker(svg: &mut Svg, m: Marker, x: f64, y: f64, r: f64, fill: &str, outline: &str) {
    let filled = format!(" fill=\"{fill}\" stroke=\"{outline}\" stroke-width=\"0.9\"");
    let stroked = format!(" fill=\"none\" stroke=\"{fill}\" stroke-width=\"{}\"", N(r * 0.45));
    match m {
        Marker::Circle => svg.circle(x, y, r, &filled),
        Marker::Ring => {
            svg.circle(x, y, r * 0.85, &format!(" fill=\"#fff\" stroke=\"{fill}\" stroke-width=\"{}\"", N(r * 0.4)))
        }
        Marker::Square => {
            let s = r * 0.88;
            svg.rect(x - s, y - s, 2.0 * s, 2.0 * s, &filled);
        }
        Marker::Triangle | Marker::TriangleDown => {
            let s = r * 1.25;
            let k = if m == Marker::Triangle { 1.0 } else { -1.0 };
            let d = format!(
                "M{} {}L{} {}L{} {}Z",
                N(x),
                N(y - k * s),
                N(x + s * 0.95),
                N(y + k * s * 0.7),
                N(x - s * 0.95),
                N(y + k * s * 0.7)
            );
            svg.path(&d, &filled);
        }
        Marker::Diamond => {
            let s = r * 1.25;
            let d = format!(
                "M{} {}L{} {}L{} {}L{} {}Z",
                N(x),
                N(y - s),
                N(x + s * 0.8),
                N(y),
                N(x),
                N(y + s),
                N(x - s * 0.8),
                N(y)
            );
            svg.path(&d, &filled);
        }
        Marker::Cross => {
            let s = r * 0.9;
            let d = format!(
                "M{} {}L{} {}M{} {}L{} {}",
                N(x - s),
                N(y - s),
                N(x + s),
                N(y + s),
                N(x - s),
                N(y + s),
                N(x + s),
                N(y - s)
            );
            svg.path(&d, &stroked);
        }
        Marker::Plus => {
            let s = r * 1.1;
            let d = format!("M{} {}L{} {}M{} {}L{} {}", N(x - s), N(y), N(x + s), N(y), N(x), N(y - s), N(x), N(y + s));
            svg.path(&d, &stroked);
        }
    }
}

struct LineInk {
    color: &'static str,
    dash: &'static str,
    marker: Marker,
}

const LINE_INKS: [LineInk; 8] = [
    LineInk { color: "#0072B2", dash: "", marker: Marker::Circle },
    LineInk { color: "#D55E00", dash: "8 4", marker: Marker::Square },
    LineInk { color: "#009E73", dash: "2 3", marker: Marker::Triangle },
    LineInk { color: "#000000", dash: "10 3 2 3", marker: Marker::Diamond },
    LineInk { color: "#CC79A7", dash: "5 2", marker: Marker::TriangleDown },
    LineInk { color: "#E69F00", dash: "1 2", marker: Marker::Cross },
    LineInk { color: "#56B4E9", dash: "12 4", marker: Marker::Plus },
    LineInk { color: "#666666", dash: "6 2 1 2 1 2", marker: Marker::Ring },
];

fn line_ink(i: usize) -> &'static LineInk {
    &LINE_INKS[i % LINE_INKS.len()]
}

fn dash_attr(dash: &str) -> String {
    if dash.is_empty() {
        String::new()
    } else {
        format!(" stroke-dasharray=\"{dash}\"")
    }
}

#[derive(Clone, Debug)]
enum Swatch {
    /// A line-chart series: ink index, draw line, draw marker, has band.
    Series(usize, bool, bool, bool),
    /// A filled box with fill index `i`.
    Fill(usize),
    /// A plain solid colour box.
    Solid(usize),
    /// A dashed reference line (dash index).
    Reference(usize),
    /// An outlined cell ("moved").
    Outline,
}

fn draw_swatch(svg: &mut Svg, sw: &Swatch, x: f64, cy: f64) {
    match *sw {
        Swatch::Series(ink, line, marker, band) => {
            let li = line_ink(ink);
            if band {
                svg.rect(x, cy - 6.0, SWATCH_W, 12.0, &format!(" fill=\"{}\" fill-opacity=\"0.2\"", li.color));
            }
            if line {
                svg.line(
                    x,
                    cy,
                    x + SWATCH_W,
                    cy,
                    &format!(" stroke=\"{}\" stroke-width=\"2.2\"{}", li.color, dash_attr(li.dash)),
                );
            }
            if marker {
                draw_marker(svg, li.marker, x + SWATCH_W / 2.0, cy, 4.0, li.color, "#fff");
            }
        }
        Swatch::Fill(i) => {
            let p = svg.fill(i);
            svg.rect(
                x + 4.0,
                cy - 7.0,
                SWATCH_W - 8.0,
                14.0,
                &format!(" fill=\"{p}\" stroke=\"#222\" stroke-width=\"0.8\""),
            );
        }
        Swatch::Solid(i) => svg.rect(
            x + 12.0,
            cy - 7.0,
            14.0,
            14.0,
            &format!(" fill=\"{}\" stroke=\"#fff\" stroke-width=\"0.5\"", color(i)),
        ),
        Swatch::Reference(k) => svg.line(
            x,
            cy,
            x + SWATCH_W,
            cy,
            &format!(" stroke=\"#222\" stroke-width=\"1.4\"{}", dash_attr(REF_DASH[k % REF_DASH.len()])),
        ),
        Swatch::Outline => {
            svg.rect(x + 12.0, cy - 7.0, 14.0, 14.0, " fill=\"#ddd\" stroke=\"#000\" stroke-width=\"2.2\"")
        }
    }
}

type LegendItems = Vec<(Swatch, String)>;

fn legend_item_w(label: &str) -> f64 {
    SWATCH_W + 6.0 + text_w(label, LEG_FS) + 20.0
}

/// Flows legend items into rows no wider than `avail`.
fn legend_rows(items: &LegendItems, avail: f64) -> Vec<Vec<usize>> {
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut cur: Vec<usize> = Vec::new();
    let mut used = 0.0;
    for (i, (_, label)) in items.iter().enumerate() {
        let w = legend_item_w(label);
        if !cur.is_empty() && used + w > avail {
            rows.push(std::mem::take(&mut cur));
            used = 0.0;
        }
        cur.push(i);
        used += w;
    }
    if !cur.is_empty() {
        rows.push(cur);
    }
    rows
}

/// Draws a flowed legend centred on `cx`, its first row's centre line at `y`.
fn draw_legend(svg: &mut Svg, items: &LegendItems, rows: &[Vec<usize>], cx: f64, y: f64) {
    for (r, row) in rows.iter().enumerate() {
        let total: f64 = row.iter().map(|&i| legend_item_w(&items[i].1)).sum::<f64>() - 20.0;
        let mut x = cx - total / 2.0;
        let cy = y + r as f64 * LEG_ROW;
        for &i in row {
            let (sw, label) = &items[i];
            draw_swatch(svg, sw, x, cy);
            svg.text(x + SWATCH_W + 6.0, cy + 4.0, label, LEG_FS, Anchor::Start, "");
            x += legend_item_w(label);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Frame (title, subtitle, size) and builder plumbing
// ---------------------------------------------------------------------------------------------

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

    fn w(&self) -> f64 {
        f64::from(self.width)
    }

    fn h(&self) -> f64 {
        f64::from(self.height)
    }

    fn figure(&self, svg: Svg) -> Figure {
        Figure { title: self.title.clone(), width: self.width, height: self.height, svg: svg.finish() }
    }
}

/// Draws the title and subtitle. Returns the y where the content may start.
fn draw_titles(svg: &mut Svg, frame: &Frame) -> f64 {
    let w = frame.w();
    let mut y = 10.0;
    if !frame.title.is_empty() {
        let mut fs = TITLE_FS;
        while fs > 10.0 && text_w(&frame.title, fs) * 0.92 > w - 20.0 {
            fs -= 1.0;
        }
        svg.text(w / 2.0, 24.0, &frame.title, fs, Anchor::Middle, " font-weight=\"bold\"");
        y = 32.0;
    }
    if let Some(sub) = frame.subtitle.as_deref().filter(|s| !s.is_empty()) {
        let mut fs = SUB_FS;
        while fs > 8.0 && text_w(sub, fs) > w - 20.0 {
            fs -= 0.5;
        }
        svg.text(w / 2.0, y + 13.0, sub, fs, Anchor::Middle, r##" fill="#444""##);
        y += 18.0;
    }
    y + 8.0
}

/// A figure that says "no data" (and why) in its middle.
fn no_data(frame: &Frame, why: &str) -> Figure {
    let mut svg = Svg::new(frame);
    let top = draw_titles(&mut svg, frame);
    let (w, h) = (frame.w(), frame.h());
    svg.rect(12.0, top, w - 24.0, h - top - 12.0, r##" fill="none" stroke="#bbb" stroke-dasharray="4 4""##);
    let cy = (top + h) / 2.0;
    svg.text(w / 2.0, cy, "no data", 20.0, Anchor::Middle, r##" fill="#666""##);
    svg.text(w / 2.0, cy + 22.0, why, 12.0, Anchor::Middle, r##" fill="#888""##);
    frame.figure(svg)
}

macro_rules! builder_common {
    ($t:ident) => {
        impl $t {
            /// Sets the figure size in pixels (default 720×400; clamped to 240×160 ..= 4000×4000).
            pub fn size(mut self, width: u32, height: u32) -> Self {
                self.frame.width = width.clamp(MIN_W, MAX_DIM);
                self.frame.height = height.clamp(MIN_H, MAX_DIM);
                self
            }

            /// Adds a smaller second title line, e.g. what the reader should notice.
            pub fn subtitle(mut self, text: &str) -> Self {
                self.frame.subtitle = Some(text.to_string());
                self
            }

            /// Renders the chart and shows it in an evcxr notebook cell
            /// (see [`Figure::evcxr_display`]).
            pub fn evcxr_display(&self) {
                self.build().evcxr_display();
            }
        }

        impl From<$t> for Figure {
            fn from(chart: $t) -> Figure {
                chart.build()
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

// ---------------------------------------------------------------------------------------------
// Axes
// ---------------------------------------------------------------------------------------------

struct Tick {
    v: f64,
    label: String,
    /// Lower is more important; used when labels must be thinned.
    prio: u8,
}

struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    ticks: Vec<Tick>,
    minor: Vec<f64>,
}

impl Axis {
    /// Position of `v` as a fraction of the axis (0 = lo, 1 = hi), clamped to a sane range.
    fn frac(&self, v: f64) -> f64 {
        let f = if self.log {
            (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        if f.is_finite() {
            f.clamp(-5.0, 6.0)
        } else {
            0.0
        }
    }

    fn inside(&self, v: f64) -> bool {
        let f = self.frac(v);
        (-1e-9..=1.0 + 1e-9).contains(&f)
    }
}

fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 0.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nf = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 2.5 {
        2.5
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nf * mag
}

/// `r` if it is a usable axis range (finite, increasing, positive on a log axis).
fn valid_range(r: Option<(f64, f64)>, log: bool) -> Option<(f64, f64)> {
    r.filter(|&(a, b)| a.is_finite() && b.is_finite() && a < b && (!log || a > 0.0))
}

/// `fixed` (if valid) is used as the exact range; otherwise the range is [min, max] widened to
/// nice round numbers. A linear axis gets about `target` tick intervals.
fn build_axis(min: f64, max: f64, log: bool, percent: bool, fixed: Option<(f64, f64)>, target: f64) -> Axis {
    let fixed = valid_range(fixed, log);
    if log {
        log_axis(min, max, percent, fixed)
    } else {
        lin_axis(min, max, percent, fixed, target)
    }
}

fn lin_axis(min: f64, max: f64, percent: bool, fixed: Option<(f64, f64)>, target: f64) -> Axis {
    let (mut lo, mut hi) = fixed.unwrap_or((min, max));
    if !(lo.is_finite() && hi.is_finite()) {
        lo = 0.0;
        hi = 1.0;
    }
    if hi <= lo {
        if lo == 0.0 {
            hi = 1.0;
        } else {
            let pad = lo.abs() * 0.1;
            lo -= pad;
            hi += pad;
        }
    }
    let step = nice_step((hi - lo) / target);
    let label = |v: f64, dec: usize| {
        let x = if percent { v * 100.0 } else { v };
        let s = fmt_fixed(x, dec);
        if percent {
            s + "%"
        } else {
            s
        }
    };
    if step <= 0.0 || !((hi - lo) / step).is_finite() || (hi - lo) / step > 100.0 {
        let ticks = vec![
            Tick { v: lo, label: fmt_value(lo, percent), prio: 0 },
            Tick { v: hi, label: fmt_value(hi, percent), prio: 0 },
        ];
        return Axis { lo, hi, log: false, ticks, minor: Vec::new() };
    }
    if fixed.is_none() {
        lo = (lo / step).floor() * step;
        hi = (hi / step).ceil() * step;
        if hi <= lo {
            hi = lo + step;
        }
    }
    let dec = decimals_for(if percent { step * 100.0 } else { step });
    let k0 = (lo / step - 1e-9).ceil() as i64;
    let k1 = (hi / step + 1e-9).floor() as i64;
    let ticks = (k0..=k1)
        .take(101)
        .map(|k| {
            let v = k as f64 * step;
            Tick { v, label: label(v, dec), prio: 0 }
        })
        .collect();
    Axis { lo, hi, log: false, ticks, minor: Vec::new() }
}

/// Largest of {1, 2, 5}×10^k that is ≤ v (`up = false`), or smallest that is ≥ v (`up = true`).
fn nice_125(v: f64, up: bool) -> f64 {
    let e = v.log10().floor();
    let p = 10f64.powf(e);
    let m = v / p;
    let cands = [1.0, 2.0, 5.0, 10.0];
    if up {
        cands.iter().map(|c| c * p).find(|&c| c >= v * (1.0 - 1e-12)).unwrap_or(10.0 * p)
    } else {
        cands.iter().rev().map(|c| c * p).find(|&c| c <= v * (1.0 + 1e-12)).unwrap_or(p.min(m * p))
    }
}

fn log_axis(min: f64, max: f64, percent: bool, fixed: Option<(f64, f64)>) -> Axis {
    let (mut lo, mut hi) = fixed.unwrap_or_else(|| (nice_125(min, false), nice_125(max, true)));
    if !(lo.is_finite() && lo > 0.0) {
        lo = 1.0;
    }
    if !(hi.is_finite() && hi > lo) {
        hi = lo * 10.0;
    }
    let decades = (hi / lo).log10();
    let e0 = (lo.log10().floor() as i32).clamp(-300, 300);
    let e1 = (hi.log10().ceil() as i32).clamp(-300, 300);
    let every = ((e1 - e0) / 10).max(1);
    let mut ticks = Vec::new();
    let mut minor = Vec::new();
    for e in e0..=e1 {
        let p = 10f64.powi(e);
        for m in 1..=9u8 {
            let v = f64::from(m) * p;
            if v < lo * (1.0 - 1e-9) || v > hi * (1.0 + 1e-9) {
                continue;
            }
            let major = (m == 1 && (e - e0) % every == 0) || (decades <= 3.5 && (m == 2 || m == 5)) || decades <= 0.7;
            if major {
                let prio = match m {
                    1 => 0,
                    2 | 5 => 1,
                    _ => 2,
                };
                let x = if percent { v * 100.0 } else { v };
                let dec = if x >= 1.0 { 0 } else { (-x.log10()).ceil().clamp(0.0, 12.0) as usize };
                let mut label = fmt_fixed(x, dec);
                if percent {
                    label.push('%');
                }
                ticks.push(Tick { v, label, prio });
            } else if decades <= 12.0 {
                minor.push(v);
            }
        }
    }
    if ticks.is_empty() {
        ticks.push(Tick { v: lo, label: fmt_value(lo, percent), prio: 0 });
        ticks.push(Tick { v: hi, label: fmt_value(hi, percent), prio: 0 });
    }
    Axis { lo, hi, log: true, ticks, minor }
}

/// Chooses which labels to draw so that none overlap: the most important first, then the
/// others if they fit. `items` = (centre position, extent, priority).
fn thin_labels(items: &[(f64, f64, u8)], gap: f64) -> Vec<bool> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| (items[i].2, i));
    let mut keep = vec![false; items.len()];
    let mut spans: Vec<(f64, f64)> = Vec::new();
    for i in order {
        let (c, e, _) = items[i];
        let (a, b) = (c - e / 2.0 - gap / 2.0, c + e / 2.0 + gap / 2.0);
        if spans.iter().all(|&(x, y)| b <= x || a >= y) {
            spans.push((a, b));
            keep[i] = true;
        }
    }
    keep
}

fn grid_x(svg: &mut Svg, p: &Rect, xa: &Axis) {
    for &v in &xa.minor {
        if xa.inside(v) {
            let x = p.x + xa.frac(v) * p.w;
            svg.line(x, p.y, x, p.bottom(), GRID_MINOR);
        }
    }
    for t in &xa.ticks {
        if xa.inside(t.v) {
            let x = p.x + xa.frac(t.v) * p.w;
            svg.line(x, p.y, x, p.bottom(), GRID);
        }
    }
}

fn grid_y(svg: &mut Svg, p: &Rect, ya: &Axis) {
    for &v in &ya.minor {
        if ya.inside(v) {
            let y = p.bottom() - ya.frac(v) * p.h;
            svg.line(p.x, y, p.right(), y, GRID_MINOR);
        }
    }
    for t in &ya.ticks {
        if ya.inside(t.v) {
            let y = p.bottom() - ya.frac(t.v) * p.h;
            svg.line(p.x, y, p.right(), y, GRID);
        }
    }
}

fn labels_x(svg: &mut Svg, p: &Rect, xa: &Axis, label: &str) {
    let shown: Vec<&Tick> = xa.ticks.iter().filter(|t| xa.inside(t.v)).collect();
    let items: Vec<(f64, f64, u8)> =
        shown.iter().map(|t| (p.x + xa.frac(t.v) * p.w, text_w(&t.label, TICK_FS), t.prio)).collect();
    let keep = thin_labels(&items, 8.0);
    for (i, t) in shown.iter().enumerate() {
        let x = items[i].0;
        svg.line(x, p.bottom(), x, p.bottom() + 4.0, AXIS);
        if keep[i] {
            svg.text(x, p.bottom() + 16.0, &t.label, TICK_FS, Anchor::Middle, "");
        }
    }
    svg.text(p.cx(), p.bottom() + 36.0, label, LABEL_FS, Anchor::Middle, "");
}

fn labels_y(svg: &mut Svg, p: &Rect, ya: &Axis, label: &str) {
    let shown: Vec<&Tick> = ya.ticks.iter().filter(|t| ya.inside(t.v)).collect();
    let items: Vec<(f64, f64, u8)> =
        shown.iter().map(|t| (p.bottom() - ya.frac(t.v) * p.h, TICK_FS + 2.0, t.prio)).collect();
    let keep = thin_labels(&items, 2.0);
    for (i, t) in shown.iter().enumerate() {
        let y = items[i].0;
        svg.line(p.x - 4.0, y, p.x, y, AXIS);
        if keep[i] {
            svg.text(p.x - 7.0, y + 4.0, &t.label, TICK_FS, Anchor::End, "");
        }
    }
    svg.vtext(21.0, p.cy(), label, LABEL_FS);
}

fn y_labels_width(ya: &Axis) -> f64 {
    ya.ticks.iter().map(|t| text_w(&t.label, TICK_FS)).fold(0.0, f64::max)
}

fn axis_lines(svg: &mut Svg, p: &Rect) {
    svg.line(p.x, p.y, p.x, p.bottom(), AXIS);
    svg.line(p.x, p.bottom(), p.right(), p.bottom(), AXIS);
}

/// The plot rectangle for charts with a numeric or categorical x axis, a y axis and a legend
/// flowed under the x label.
fn xy_layout(frame: &Frame, top: f64, y_tick_w: f64, has_xlabel: bool, legend_rows: usize) -> Rect {
    let (w, h) = (frame.w(), frame.h());
    let left = 12.0 + 18.0 + y_tick_w + 10.0;
    let right = 28.0;
    let mut bottom = 24.0 + if has_xlabel { 22.0 } else { 0.0 };
    if legend_rows > 0 {
        bottom += 10.0 + legend_rows as f64 * LEG_ROW;
    }
    bottom += 6.0;
    Rect { x: left, y: top + 4.0, w: (w - left - right).max(20.0), h: (h - top - 4.0 - bottom).max(20.0) }
}

fn legend_y(p: &Rect, has_xlabel: bool) -> f64 {
    p.bottom() + 24.0 + if has_xlabel { 22.0 } else { 0.0 } + 12.0
}

fn draw_refs_h(svg: &mut Svg, p: &Rect, ya: &Axis, refs: &[(f64, String)]) {
    for (k, (v, _)) in refs.iter().enumerate() {
        if v.is_finite() && ya.inside(*v) {
            let y = p.bottom() - ya.frac(*v) * p.h;
            let attrs = format!(" stroke=\"#222\" stroke-width=\"1.4\"{}", dash_attr(REF_DASH[k % REF_DASH.len()]));
            svg.line(p.x, y, p.right(), y, &attrs);
        }
    }
}

fn ref_legend(refs: &[(f64, String)]) -> LegendItems {
    refs.iter()
        .enumerate()
        .filter(|(_, (v, l))| v.is_finite() && !l.is_empty())
        .map(|(k, (_, l))| (Swatch::Reference(k), l.clone()))
        .collect()
}

#[derive(Clone, Copy)]
struct Extent {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
    any: bool,
}

impl Extent {
    fn new() -> Extent {
        Extent { x0: f64::INFINITY, x1: f64::NEG_INFINITY, y0: f64::INFINITY, y1: f64::NEG_INFINITY, any: false }
    }
    fn add(&mut self, x: f64, y: f64) {
        self.x0 = self.x0.min(x);
        self.x1 = self.x1.max(x);
        self.add_y(y);
        self.any = true;
    }
    fn add_y(&mut self, y: f64) {
        self.y0 = self.y0.min(y);
        self.y1 = self.y1.max(y);
    }
}

// ---------------------------------------------------------------------------------------------
// Line chart
// ---------------------------------------------------------------------------------------------

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

/// One named series for [`line_chart`]: points, an optional min..max band, and a style.
///
/// Each series gets an "ink" (colour, dash pattern and marker shape) from its position in the
/// slice. Use [`Series::ink`] to pin one, so that a quantity keeps its look across charts.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend text. Series with an empty name are left out of the legend.
    pub name: String,
    /// `(x, y)` points, joined in the order given. Non-finite points are skipped, and so are
    /// points ≤ 0 on a log axis.
    pub points: Vec<(f64, f64)>,
    /// `(x, lo, hi)` triples, shaded as a band behind the line (for example, the min–max over
    /// 30 arrangements). Empty means no band.
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

    /// Pins the ink (colour, dash pattern, marker): 0 blue solid ●, 1 vermillion dashed ■,
    /// 2 green dotted ▲, 3 black dash-dot ◆, 4 pink ▼, 5 orange ✕, 6 sky +, 7 grey ○.
    pub fn ink(mut self, ink: usize) -> Series {
        self.ink = Some(ink);
        self
    }
}

/// Builder for a line chart. Create it with [`line_chart`].
#[derive(Clone, Debug)]
pub struct LineChart {
    frame: Frame,
    x_label: String,
    y_label: String,
    series: Vec<Series>,
    log_x: bool,
    log_y: bool,
    x_range: Option<(f64, f64)>,
    y_range: Option<(f64, f64)>,
    y_percent: bool,
    include_zero: bool,
    refs: Vec<(f64, String)>,
}

/// A line chart of one or more [`Series`], with optional min..max bands, log axes, horizontal
/// reference lines and a legend under the chart.
///
/// ```
/// use reshard::present::charts::{line_chart, Series, Style};
/// let ns: Vec<f64> = (2..=10).map(f64::from).collect();
/// let fig = line_chart(
///     "Share of keys moved when a node is added",
///     "nodes after adding one (N+1)",
///     "share of keys moved",
///     &[
///         Series::new("hash % N", ns.iter().map(|&n| (n, 1.0 - 1.0 / n))),
///         Series::new("1/(N+1) floor", ns.iter().map(|&n| (n, 1.0 / n))).style(Style::Line).ink(3),
///     ],
/// )
/// .y_percent(true)
/// .build();
/// assert!(fig.svg().contains("hash % N"));
/// ```
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> LineChart {
    LineChart {
        frame: Frame::new(title),
        x_label: x_label.to_string(),
        y_label: y_label.to_string(),
        series: series.to_vec(),
        log_x: false,
        log_y: false,
        x_range: None,
        y_range: None,
        y_percent: false,
        include_zero: true,
        refs: Vec::new(),
    }
}

builder_common!(LineChart);

impl LineChart {
    /// Logarithmic x axis (points with x ≤ 0 are skipped).
    pub fn log_x(mut self, on: bool) -> Self {
        self.log_x = on;
        self
    }

    /// Logarithmic y axis (points with y ≤ 0 are skipped).
    pub fn log_y(mut self, on: bool) -> Self {
        self.log_y = on;
        self
    }

    /// Fixes the x range instead of fitting it to the data (ignored if invalid).
    pub fn x_range(mut self, lo: f64, hi: f64) -> Self {
        self.x_range = Some((lo, hi));
        self
    }

    /// Fixes the y range instead of fitting it to the data (ignored if invalid).
    pub fn y_range(mut self, lo: f64, hi: f64) -> Self {
        self.y_range = Some((lo, hi));
        self
    }

    /// Shows y tick labels as percentages (0.25 → "25%").
    pub fn y_percent(mut self, on: bool) -> Self {
        self.y_percent = on;
        self
    }

    /// Whether the fitted y range must include 0 (default true; has no effect on a log axis).
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
        let fr = &self.frame;
        let (lx, ly) = (self.log_x, self.log_y);
        let okx = |x: f64| x.is_finite() && (!lx || x > 0.0);
        let oky = |y: f64| y.is_finite() && (!ly || y > 0.0);
        struct Prep<'a> {
            s: &'a Series,
            ink: usize,
            pts: Vec<(f64, f64)>,
            band: Vec<(f64, f64, f64)>,
        }
        let prep: Vec<Prep> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| Prep {
                s,
                ink: s.ink.unwrap_or(i),
                pts: s.points.iter().copied().filter(|&(x, y)| okx(x) && oky(y)).collect(),
                band: s.band.iter().copied().filter(|&(x, a, b)| okx(x) && oky(a) && oky(b)).collect(),
            })
            .collect();
        let mut ext = Extent::new();
        for p in &prep {
            for &(x, y) in &p.pts {
                ext.add(x, y);
            }
            for &(x, a, b) in &p.band {
                ext.add(x, a);
                ext.add_y(b);
            }
        }
        if !ext.any {
            return no_data(fr, "no finite points to plot");
        }
        for (v, _) in &self.refs {
            if oky(*v) {
                ext.add_y(*v);
            }
        }
        if self.include_zero && !ly {
            ext.add_y(0.0);
        }
        // x: the data range plus 3% each side (not rounded out), so lines use the full width.
        let x_fit = if ext.x1 > ext.x0 {
            if lx {
                let f = (ext.x1 / ext.x0).powf(0.03);
                Some((ext.x0 / f, ext.x1 * f))
            } else {
                let pad = (ext.x1 - ext.x0) * 0.03;
                let lo = if ext.x0 >= 0.0 { (ext.x0 - pad).max(0.0) } else { ext.x0 - pad };
                Some((lo, ext.x1 + pad))
            }
        } else {
            None
        };
        let x_fixed = valid_range(self.x_range, lx).or(valid_range(x_fit, lx));
        let xa = build_axis(ext.x0, ext.x1, lx, false, x_fixed, 8.0);
        let ya = build_axis(ext.y0, ext.y1, ly, self.y_percent, self.y_range, 5.0);

        let mut legend: LegendItems = prep
            .iter()
            .filter(|p| !p.s.name.is_empty())
            .map(|p| {
                let sw =
                    Swatch::Series(p.ink, p.s.style != Style::Points, p.s.style != Style::Line, !p.band.is_empty());
                (sw, p.s.name.clone())
            })
            .collect();
        legend.extend(ref_legend(&self.refs));

        let mut svg = Svg::new(fr);
        let top = draw_titles(&mut svg, fr);
        let rows = legend_rows(&legend, fr.w() - 32.0);
        let has_xl = !self.x_label.is_empty();
        let p = xy_layout(fr, top, y_labels_width(&ya), has_xl, rows.len());
        let px = |x: f64| p.x + xa.frac(x) * p.w;
        let py = |y: f64| p.bottom() - ya.frac(y) * p.h;

        grid_x(&mut svg, &p, &xa);
        grid_y(&mut svg, &p, &ya);
        svg.begin_clip(p);
        for pr in &prep {
            if pr.band.is_empty() {
                continue;
            }
            let li = line_ink(pr.ink);
            let mut d = String::new();
            for (i, &(x, lo, _)) in pr.band.iter().enumerate() {
                let _ = write!(d, "{}{} {}", if i == 0 { "M" } else { "L" }, N(px(x)), N(py(lo)));
            }
            for &(x, _, hi) in pr.band.iter().rev() {
                let _ = write!(d, "L{} {}", N(px(x)), N(py(hi)));
            }
            d.push('Z');
            svg.path(&d, &format!(" fill=\"{}\" fill-opacity=\"0.18\" stroke=\"none\"", li.color));
            for edge in [1, 2] {
                let mut d = String::new();
                for (i, &(x, lo, hi)) in pr.band.iter().enumerate() {
                    let y = if edge == 1 { lo } else { hi };
                    let _ = write!(d, "{}{} {}", if i == 0 { "M" } else { "L" }, N(px(x)), N(py(y)));
                }
                svg.path(
                    &d,
                    &format!(" fill=\"none\" stroke=\"{}\" stroke-width=\"0.8\" stroke-opacity=\"0.7\"", li.color),
                );
            }
        }
        draw_refs_h(&mut svg, &p, &ya, &self.refs);
        for pr in &prep {
            let li = line_ink(pr.ink);
            if pr.s.style != Style::Points && pr.pts.len() > 1 {
                let mut d = String::new();
                for (i, &(x, y)) in pr.pts.iter().enumerate() {
                    let _ = write!(d, "{}{} {}", if i == 0 { "M" } else { "L" }, N(px(x)), N(py(y)));
                }
                svg.path(
                    &d,
                    &format!(
                        " fill=\"none\" stroke=\"{}\" stroke-width=\"2.2\" stroke-linejoin=\"round\"{}",
                        li.color,
                        dash_attr(li.dash)
                    ),
                );
            }
        }
        svg.end_clip();
        for pr in &prep {
            let li = line_ink(pr.ink);
            let n = pr.pts.len();
            let show_all = pr.s.style == Style::Points || n == 1;
            if pr.s.style == Style::Line && !show_all {
                continue;
            }
            let every = if pr.s.style == Style::Points { 1 } else { n.div_ceil(30).max(1) };
            for (i, &(x, y)) in pr.pts.iter().enumerate() {
                let visible = xa.inside(x) && ya.inside(y);
                if visible && (i % every == 0 || i + 1 == n) {
                    draw_marker(&mut svg, li.marker, px(x), py(y), 4.0, li.color, "#fff");
                }
            }
        }
        axis_lines(&mut svg, &p);
        labels_x(&mut svg, &p, &xa, &self.x_label);
        labels_y(&mut svg, &p, &ya, &self.y_label);
        draw_legend(&mut svg, &legend, &rows, fr.w() / 2.0, legend_y(&p, has_xl));
        fr.figure(svg)
    }
}

// ---------------------------------------------------------------------------------------------
// Bar chart
// ---------------------------------------------------------------------------------------------

/// Builder for a grouped bar chart. Create it with [`bar_chart`].
#[derive(Clone, Debug)]
pub struct BarChart {
    frame: Frame,
    y_label: String,
    x_label: String,
    groups: Vec<String>,
    series: Vec<(String, Vec<f64>)>,
    refs: Vec<(f64, String)>,
    value_labels: Option<bool>,
    y_percent: bool,
}

/// A grouped bar chart: one group per category (e.g. nodes A, B, C, D) and one bar per series in
/// each group. `series[j].1[g]` is the height of series `j` in group `g`. Missing or non-finite
/// values draw no bar. Each series gets a colour and a hatching. Values are written above the
/// bars when they fit.
pub fn bar_chart<G: AsRef<str>, S: AsRef<str>>(
    title: &str,
    y_label: &str,
    groups: &[G],
    series: &[(S, Vec<f64>)],
) -> BarChart {
    BarChart {
        frame: Frame::new(title),
        y_label: y_label.to_string(),
        x_label: String::new(),
        groups: groups.iter().map(|g| g.as_ref().to_string()).collect(),
        series: series.iter().map(|(n, v)| (n.as_ref().to_string(), v.clone())).collect(),
        refs: Vec::new(),
        value_labels: None,
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
        self.x_label = label.to_string();
        self
    }

    /// Forces value labels above the bars on or off (default: on when they fit).
    pub fn value_labels(mut self, on: bool) -> Self {
        self.value_labels = Some(on);
        self
    }

    /// Shows the y axis and value labels as percentages (0.25 → "25%").
    pub fn y_percent(mut self, on: bool) -> Self {
        self.y_percent = on;
        self
    }

    /// Renders the chart.
    pub fn build(&self) -> Figure {
        let fr = &self.frame;
        let ng = self.groups.len();
        let ns = self.series.len();
        let val = |j: usize, g: usize| self.series[j].1.get(g).copied().filter(|v| v.is_finite());
        let mut lo: f64 = 0.0;
        let mut hi: f64 = 0.0;
        let mut any = false;
        for j in 0..ns {
            for g in 0..ng {
                if let Some(v) = val(j, g) {
                    lo = lo.min(v);
                    hi = hi.max(v);
                    any = true;
                }
            }
        }
        if ng == 0 || ns == 0 || !any {
            return no_data(fr, "no finite values to plot");
        }
        for (v, _) in &self.refs {
            if v.is_finite() {
                lo = lo.min(*v);
                hi = hi.max(*v);
            }
        }
        let ya = build_axis(lo, hi, false, self.y_percent, None, 5.0);
        let mut legend: LegendItems = self
            .series
            .iter()
            .enumerate()
            .filter(|(_, (n, _))| !n.is_empty())
            .map(|(j, (n, _))| (Swatch::Fill(j), n.clone()))
            .collect();
        legend.extend(ref_legend(&self.refs));

        let mut svg = Svg::new(fr);
        let top = draw_titles(&mut svg, fr);
        let rows = legend_rows(&legend, fr.w() - 32.0);
        let has_xl = !self.x_label.is_empty();
        let p = xy_layout(fr, top, y_labels_width(&ya), has_xl, rows.len());
        let py = |y: f64| p.bottom() - ya.frac(y) * p.h;
        grid_y(&mut svg, &p, &ya);

        let gw = p.w / ng as f64;
        let bw = gw * 0.8 / ns as f64;
        let bar_x = |g: usize, j: usize| p.x + g as f64 * gw + gw * 0.1 + j as f64 * bw;
        let y0 = py(0.0);
        for j in 0..ns {
            let paint = svg.fill(j);
            let stroke = if bw >= 4.0 { " stroke=\"#222\" stroke-width=\"0.8\"" } else { "" };
            for g in 0..ng {
                if let Some(v) = val(j, g) {
                    let y = py(v);
                    let inset = if bw >= 6.0 { 1.0 } else { 0.0 };
                    svg.rect(
                        bar_x(g, j) + inset,
                        y.min(y0),
                        bw - 2.0 * inset,
                        (y - y0).abs(),
                        &format!(" fill=\"{paint}\"{stroke}"),
                    );
                }
            }
        }
        draw_refs_h(&mut svg, &p, &ya, &self.refs);
        if lo < 0.0 {
            svg.line(p.x, y0, p.right(), y0, AXIS);
        }
        // Value labels: shown if every one fits over its bar.
        let vfs = 10.0;
        let labels: Vec<(usize, usize, f64, String)> = (0..ns)
            .flat_map(|j| (0..ng).map(move |g| (j, g)))
            .filter_map(|(j, g)| val(j, g).map(|v| (j, g, v, fmt_value(v, self.y_percent))))
            .collect();
        let fits = labels.iter().all(|(_, _, _, s)| text_w(s, vfs) <= bw + 2.0);
        if self.value_labels.unwrap_or(fits) {
            for (j, g, v, s) in &labels {
                let y = py(*v);
                let ty = if *v >= 0.0 { y - 4.0 } else { y + vfs + 2.0 };
                svg.text(
                    bar_x(*g, *j) + bw / 2.0,
                    ty,
                    s,
                    vfs,
                    Anchor::Middle,
                    r##" fill="#111" stroke="#fff" stroke-width="3" stroke-linejoin="round" paint-order="stroke""##,
                );
            }
        }
        axis_lines(&mut svg, &p);
        let items: Vec<(f64, f64, u8)> =
            self.groups.iter().enumerate().map(|(g, s)| (p.x + (g as f64 + 0.5) * gw, text_w(s, 12.0), 0)).collect();
        let keep = thin_labels(&items, 6.0);
        for (g, s) in self.groups.iter().enumerate() {
            if keep[g] {
                svg.text(items[g].0, p.bottom() + 17.0, s, 12.0, Anchor::Middle, "");
            }
        }
        svg.text(p.cx(), p.bottom() + 38.0, &self.x_label, LABEL_FS, Anchor::Middle, "");
        labels_y(&mut svg, &p, &ya, &self.y_label);
        draw_legend(&mut svg, &legend, &rows, fr.w() / 2.0, legend_y(&p, has_xl));
        fr.figure(svg)
    }
}

// ---------------------------------------------------------------------------------------------
// Histogram
// ---------------------------------------------------------------------------------------------

/// Builder for a histogram. Create it with [`histogram`].
#[derive(Clone, Debug)]
pub struct Histogram {
    frame: Frame,
    x_label: String,
    y_label: String,
    values: Vec<f64>,
    bins: usize,
    x_range: Option<(f64, f64)>,
    refs: Vec<(f64, String)>,
}

/// A histogram of `values` in `bins` equal-width bins (`0` = automatic: Sturges' rule, at most
/// 60). Non-finite values are ignored.
pub fn histogram(title: &str, x_label: &str, values: &[f64], bins: usize) -> Histogram {
    Histogram {
        frame: Frame::new(title),
        x_label: x_label.to_string(),
        y_label: "count".to_string(),
        values: values.to_vec(),
        bins,
        x_range: None,
        refs: Vec::new(),
    }
}

builder_common!(Histogram);

impl Histogram {
    /// Fixes the binned range (values outside it are not counted; ignored if invalid).
    pub fn x_range(mut self, lo: f64, hi: f64) -> Self {
        self.x_range = Some((lo, hi));
        self
    }

    /// The y-axis label (default "count").
    pub fn y_label(mut self, label: &str) -> Self {
        self.y_label = label.to_string();
        self
    }

    /// Adds a dashed vertical reference line at `x` (e.g. the mean or the fair share), listed in
    /// the legend as `label`.
    pub fn reference(mut self, x: f64, label: &str) -> Self {
        self.refs.push((x, label.to_string()));
        self
    }

    /// Renders the chart.
    pub fn build(&self) -> Figure {
        let fr = &self.frame;
        let vals: Vec<f64> = self.values.iter().copied().filter(|v| v.is_finite()).collect();
        if vals.is_empty() {
            return no_data(fr, "no finite values to count");
        }
        let (mut lo, mut hi) =
            self.x_range.filter(|&(a, b)| a.is_finite() && b.is_finite() && a < b).unwrap_or_else(|| {
                (
                    vals.iter().copied().fold(f64::INFINITY, f64::min),
                    vals.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                )
            });
        if hi - lo <= 0.0 || !(hi - lo).is_finite() {
            let pad = if lo == 0.0 || !lo.is_finite() { 0.5 } else { lo.abs() * 0.05 };
            lo -= pad;
            hi += pad;
        }
        if !(lo.is_finite() && hi.is_finite() && hi > lo) {
            return no_data(fr, "values too large to bin");
        }
        let nb = if self.bins == 0 {
            ((vals.len() as f64).log2().ceil() as usize + 1).clamp(1, 60)
        } else {
            self.bins.min(1000)
        };
        let width = (hi - lo) / nb as f64;
        let mut counts = vec![0u64; nb];
        for &v in &vals {
            if v < lo || v > hi {
                continue;
            }
            let b = (((v - lo) / width) as usize).min(nb - 1);
            counts[b] += 1;
        }
        let cmax = counts.iter().copied().max().unwrap_or(0) as f64;
        let xa = build_axis(lo, hi, false, false, Some((lo, hi)), 8.0);
        let ya = build_axis(0.0, cmax.max(1.0), false, false, None, 5.0);
        let legend = ref_legend(&self.refs);

        let mut svg = Svg::new(fr);
        let top = draw_titles(&mut svg, fr);
        let rows = legend_rows(&legend, fr.w() - 32.0);
        let has_xl = !self.x_label.is_empty();
        let p = xy_layout(fr, top, y_labels_width(&ya), has_xl, rows.len());
        grid_y(&mut svg, &p, &ya);
        let paint = svg.fill(0);
        let bw = p.w / nb as f64;
        let stroke = if bw >= 4.0 { " stroke=\"#fff\" stroke-width=\"0.8\"" } else { "" };
        for (b, &c) in counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let y = p.bottom() - ya.frac(c as f64) * p.h;
            svg.rect(p.x + b as f64 * bw, y, bw, p.bottom() - y, &format!(" fill=\"{paint}\"{stroke}"));
        }
        for (k, (v, _)) in self.refs.iter().enumerate() {
            if v.is_finite() && xa.inside(*v) {
                let x = p.x + xa.frac(*v) * p.w;
                let attrs = format!(" stroke=\"#222\" stroke-width=\"1.6\"{}", dash_attr(REF_DASH[k % REF_DASH.len()]));
                svg.line(x, p.y, x, p.bottom(), &attrs);
            }
        }
        axis_lines(&mut svg, &p);
        labels_x(&mut svg, &p, &xa, &self.x_label);
        labels_y(&mut svg, &p, &ya, &self.y_label);
        draw_legend(&mut svg, &legend, &rows, fr.w() / 2.0, legend_y(&p, has_xl));
        fr.figure(svg)
    }
}

// ---------------------------------------------------------------------------------------------
// Heatmap
// ---------------------------------------------------------------------------------------------

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
    fn t(self, v: f64, max: f64) -> f64 {
        if max <= 0.0 || v <= 0.0 {
            return 0.0;
        }
        let t = match self {
            Scale::Linear => v / max,
            Scale::Sqrt => (v / max).sqrt(),
            Scale::Log => v.ln_1p() / max.ln_1p(),
        };
        t.clamp(0.0, 1.0)
    }

    fn inv(self, t: f64, max: f64) -> f64 {
        match self {
            Scale::Linear => t * max,
            Scale::Sqrt => t * t * max,
            Scale::Log => (t * max.ln_1p()).exp_m1(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Scale::Linear => "linear",
            Scale::Sqrt => "√ scale",
            Scale::Log => "log scale",
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
    x_label: String,
    y_label: String,
    scale: Scale,
    counts: Option<bool>,
    diagonal: bool,
    unit: String,
}

/// A heatmap of counts, e.g. the old→new transition matrix (rows = old node, columns = new
/// node). Cells run from white (0) to near-black (the largest count) in grey. Counts are written
/// in the cells, with thousands separators, when the grid is at most 12×12. Ragged or
/// short rows count as zeros.
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
        x_label: x_label.to_string(),
        y_label: y_label.to_string(),
        scale: Scale::Sqrt,
        counts: None,
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

    /// Forces the numbers in the cells on or off (default: on for grids up to 12×12 when they
    /// fit).
    pub fn show_counts(mut self, on: bool) -> Self {
        self.counts = Some(on);
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
        let fr = &self.frame;
        let nr = self.matrix.len().max(self.rows.len());
        let nc = self.matrix.iter().map(Vec::len).max().unwrap_or(0).max(self.cols.len());
        if nr == 0 || nc == 0 {
            return no_data(fr, "empty matrix");
        }
        if nr * nc > 40_000 {
            return no_data(fr, &format!("matrix too large to draw ({nr}×{nc})"));
        }
        let cell = |r: usize, c: usize| self.matrix.get(r).and_then(|row| row.get(c)).copied().unwrap_or(0);
        let rlabel = |r: usize| self.rows.get(r).cloned().unwrap_or_else(|| r.to_string());
        let clabel = |c: usize| self.cols.get(c).cloned().unwrap_or_else(|| c.to_string());
        let max = (0..nr).flat_map(|r| (0..nc).map(move |c| (r, c))).map(|(r, c)| cell(r, c)).max().unwrap_or(0);
        let maxf = max as f64;

        let mut svg = Svg::new(fr);
        let top = draw_titles(&mut svg, fr) + 4.0;
        let (w, h) = (fr.w(), fr.h());
        let rlw = (0..nr).map(|r| text_w(&rlabel(r), TICK_FS)).fold(0.0, f64::max);
        let left = 12.0 + if self.y_label.is_empty() { 0.0 } else { 20.0 } + rlw + 8.0;
        let bar_area =
            16.0 + 14.0 + 6.0 + text_w(&thousands(max), TICK_FS).max(text_w(&self.unit, TICK_FS) - 20.0) + 12.0;
        let bottom = 20.0 + if self.x_label.is_empty() { 0.0 } else { 22.0 } + 8.0;
        let avail_w = (w - left - bar_area).max(10.0);
        let avail_h = (h - top - bottom).max(10.0);
        let cw = (avail_w / nc as f64).min(90.0);
        let ch = (avail_h / nr as f64).min(44.0);
        let gw = cw * nc as f64;
        let gh = ch * nr as f64;
        let gx = left + (avail_w - gw) / 2.0;
        let gy = top;

        for r in 0..nr {
            for c in 0..nc {
                let t = self.scale.t(cell(r, c) as f64, maxf);
                let g = (255.0 - t * 225.0).round() as u8;
                svg.rect(
                    gx + c as f64 * cw,
                    gy + r as f64 * ch,
                    cw,
                    ch,
                    &format!(" fill=\"#{g:02x}{g:02x}{g:02x}\" stroke=\"#ccc\" stroke-width=\"0.5\""),
                );
            }
        }
        svg.rect(gx, gy, gw, gh, r##" fill="none" stroke="#222" stroke-width="1""##);
        if self.diagonal {
            for i in 0..nr.min(nc) {
                svg.rect(
                    gx + i as f64 * cw + 1.5,
                    gy + i as f64 * ch + 1.5,
                    cw - 3.0,
                    ch - 3.0,
                    r##" fill="none" stroke="#D55E00" stroke-width="2.5""##,
                );
            }
        }
        // Numbers in the cells.
        let widest = (0..nr)
            .flat_map(|r| (0..nc).map(move |c| (r, c)))
            .map(|(r, c)| text_w(&thousands(cell(r, c)), 1.0))
            .fold(0.0, f64::max);
        let fs = (ch * 0.42).min(12.0).min((cw - 4.0) / widest.max(0.1));
        if self.counts.unwrap_or(nr <= 12 && nc <= 12) && fs >= 6.0 {
            for r in 0..nr {
                for c in 0..nc {
                    let v = cell(r, c);
                    let t = self.scale.t(v as f64, maxf);
                    let fill = if v == 0 {
                        "#aaa"
                    } else if t > 0.55 {
                        "#fff"
                    } else {
                        "#111"
                    };
                    svg.text(
                        gx + (c as f64 + 0.5) * cw,
                        gy + (r as f64 + 0.5) * ch + fs * 0.36,
                        &thousands(v),
                        fs,
                        Anchor::Middle,
                        &format!(" fill=\"{fill}\""),
                    );
                }
            }
        }
        // Row and column labels.
        let rows: Vec<(f64, f64, u8)> = (0..nr).map(|r| (gy + (r as f64 + 0.5) * ch, TICK_FS, 0)).collect();
        let keep = thin_labels(&rows, 1.0);
        for r in 0..nr {
            if keep[r] {
                svg.text(gx - 6.0, rows[r].0 + 4.0, &rlabel(r), TICK_FS, Anchor::End, "");
            }
        }
        let cols: Vec<(f64, f64, u8)> =
            (0..nc).map(|c| (gx + (c as f64 + 0.5) * cw, text_w(&clabel(c), TICK_FS), 0)).collect();
        let keep = thin_labels(&cols, 4.0);
        for c in 0..nc {
            if keep[c] {
                svg.text(cols[c].0, gy + gh + 15.0, &clabel(c), TICK_FS, Anchor::Middle, "");
            }
        }
        svg.text(gx + gw / 2.0, gy + gh + 36.0, &self.x_label, LABEL_FS, Anchor::Middle, "");
        svg.vtext(21.0, gy + gh / 2.0, &self.y_label, LABEL_FS);

        // Grey scale bar.
        let bx = gx + gw + 16.0;
        let bh = gh.clamp(40.0, 220.0);
        let by = gy + 14.0;
        let bh = bh.min(gh - 14.0).max(20.0);
        let steps = 40;
        for i in 0..steps {
            let t = (f64::from(i) + 0.5) / f64::from(steps);
            let g = (255.0 - t * 225.0).round() as u8;
            svg.rect(
                bx,
                by + bh - (f64::from(i) + 1.0) * bh / f64::from(steps),
                14.0,
                bh / f64::from(steps) + 0.3,
                &format!(" fill=\"#{g:02x}{g:02x}{g:02x}\""),
            );
        }
        svg.rect(bx, by, 14.0, bh, r##" fill="none" stroke="#222" stroke-width="0.8""##);
        svg.text(bx, gy + 6.0, &self.unit, TICK_FS, Anchor::Start, MUTED);
        svg.text(bx, by + bh + 14.0, self.scale.name(), 10.0, Anchor::Start, MUTED);
        let mut marks: Vec<u64> = Vec::new();
        for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let v = round_2sig(self.scale.inv(t, maxf));
            let v = if t == 1.0 { max } else { v.min(max) };
            if !marks.contains(&v) {
                marks.push(v);
            }
        }
        let items: Vec<(f64, f64, u8)> = marks
            .iter()
            .map(|&v| (by + bh - self.scale.t(v as f64, maxf) * bh, TICK_FS, if v == max || v == 0 { 0 } else { 1 }))
            .collect();
        let keep = thin_labels(&items, 1.0);
        for (i, &v) in marks.iter().enumerate() {
            let y = items[i].0;
            svg.line(bx + 14.0, y, bx + 18.0, y, AXIS);
            if keep[i] {
                svg.text(bx + 21.0, y + 4.0, &thousands(v), TICK_FS, Anchor::Start, "");
            }
        }
        fr.figure(svg)
    }
}

fn round_2sig(v: f64) -> u64 {
    if !(v.is_finite() && v > 0.0) {
        return 0;
    }
    if v < 100.0 {
        return v.round() as u64;
    }
    let p = 10f64.powf(v.log10().floor() - 1.0);
    ((v / p).round() * p) as u64
}

// ---------------------------------------------------------------------------------------------
// Ring diagram
// ---------------------------------------------------------------------------------------------

/// Builder for the hash-ring picture. Create it with [`ring_diagram`].
#[derive(Clone, Debug)]
pub struct RingDiagram {
    frame: Frame,
    points: Vec<(f64, usize)>,
    names: Vec<String>,
    keys: Option<Vec<f64>>,
    label_points: Option<bool>,
}

/// The hash ring as a circle, with 0 at the top and positions increasing clockwise.
///
/// * `points`: `(position in [0, 1), node index)` for every point (vnode) on the ring.
///   Positions outside [0, 1) are wrapped and NaN points are dropped.
/// * `node_names[i]` names node `i` (missing names print as `node i`).
/// * `keys`: optional key positions, drawn as small marks inside the ring, shaped and coloured
///   by the node that owns them.
///
/// Each point gets a mark on the circle in its node's shape and colour. The arcs each node owns
/// are drawn as a thick band just inside the circle: the arc from the previous point
/// (exclusive) to a point (inclusive) belongs to that point's node, because a key goes to the
/// first point at or after its position, wrapping around. The legend gives each node's share of
/// the circle.
pub fn ring_diagram<S: AsRef<str>>(
    title: &str,
    points: &[(f64, usize)],
    node_names: &[S],
    keys: Option<&[f64]>,
) -> RingDiagram {
    RingDiagram {
        frame: Frame::new(title),
        points: points.to_vec(),
        names: node_names.iter().map(|s| s.as_ref().to_string()).collect(),
        keys: keys.map(<[f64]>::to_vec),
        label_points: None,
    }
}

builder_common!(RingDiagram);

fn node_name(names: &[String], i: usize) -> String {
    names.get(i).cloned().unwrap_or_else(|| format!("node {i}"))
}

fn wrap01(p: f64) -> f64 {
    let w = p.rem_euclid(1.0);
    if (0.0..1.0).contains(&w) {
        w
    } else {
        0.0
    }
}

/// Sorted ring points and each node's share of the circle.
struct Ring {
    pts: Vec<(f64, usize)>,
}

impl Ring {
    fn new(points: &[(f64, usize)]) -> Ring {
        let mut pts: Vec<(f64, usize)> =
            points.iter().filter(|(p, _)| p.is_finite()).map(|&(p, n)| (wrap01(p), n)).collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        Ring { pts }
    }

    /// Arcs `(start, end, node)`: the arc (start, end] belongs to `node`; start may be negative
    /// for the arc that wraps past 0.
    fn arcs(&self) -> Vec<(f64, f64, usize)> {
        let m = self.pts.len();
        (0..m)
            .map(|i| {
                let start = if i == 0 { self.pts[m - 1].0 - 1.0 } else { self.pts[i - 1].0 };
                (start, self.pts[i].0, self.pts[i].1)
            })
            .collect()
    }

    /// Consecutive arcs of the same node merged (including across the wrap).
    fn merged_arcs(&self) -> Vec<(f64, f64, usize)> {
        let mut out: Vec<(f64, f64, usize)> = Vec::new();
        for (s, e, n) in self.arcs() {
            match out.last_mut() {
                Some(last) if last.2 == n => last.1 = e,
                _ => out.push((s, e, n)),
            }
        }
        if out.len() > 1 && out[0].2 == out[out.len() - 1].2 {
            if let Some(last) = out.pop() {
                out[0].0 = last.0 - 1.0;
            }
        }
        out
    }

    /// `(node, share of circle, number of points)`, sorted by node index.
    fn shares(&self) -> Vec<(usize, f64, usize)> {
        let mut v: Vec<(usize, f64, usize)> = Vec::new();
        for (s, e, n) in self.arcs() {
            match v.iter_mut().find(|x| x.0 == n) {
                Some(x) => {
                    x.1 += e - s;
                    x.2 += 1;
                }
                None => v.push((n, e - s, 1)),
            }
        }
        v.sort_by_key(|x| x.0);
        v
    }

    /// Index into `pts` of the point that owns a key at position `k`.
    fn owner(&self, k: f64) -> usize {
        let i = self.pts.partition_point(|p| p.0 < k);
        if i == self.pts.len() {
            0
        } else {
            i
        }
    }
}

fn polar(cx: f64, cy: f64, r: f64, t: f64) -> (f64, f64) {
    let a = t * TAU;
    (cx + r * a.sin(), cy - r * a.cos())
}

/// Path of the annular sector between radii `r0 < r1` from fraction `t0` to `t1` (clockwise).
fn sector(cx: f64, cy: f64, r0: f64, r1: f64, t0: f64, t1: f64) -> String {
    let len = t1 - t0;
    if len >= 1.0 - 1e-9 {
        return sector(cx, cy, r0, r1, t0, t0 + 0.5) + &sector(cx, cy, r0, r1, t0 + 0.5, t0 + 1.0);
    }
    let large = u8::from(len > 0.5);
    let (x0, y0) = polar(cx, cy, r1, t0);
    let (x1, y1) = polar(cx, cy, r1, t1);
    let (x2, y2) = polar(cx, cy, r0, t1);
    let (x3, y3) = polar(cx, cy, r0, t0);
    format!(
        "M{} {}A{} {} 0 {large} 1 {} {}L{} {}A{} {} 0 {large} 0 {} {}Z",
        N(x0),
        N(y0),
        N(r1),
        N(r1),
        N(x1),
        N(y1),
        N(x2),
        N(y2),
        N(r0),
        N(r0),
        N(x3),
        N(y3)
    )
}

impl RingDiagram {
    /// Forces the node-name labels next to each point on or off (default: on for ≤ 16 points).
    pub fn label_points(mut self, on: bool) -> Self {
        self.label_points = Some(on);
        self
    }

    /// Renders the diagram.
    pub fn build(&self) -> Figure {
        const MAX_KEYS: usize = 600;
        let fr = &self.frame;
        let ring = Ring::new(&self.points);
        let m = ring.pts.len();
        if m == 0 {
            return no_data(fr, "no points on the ring");
        }
        let shares = ring.shares();
        let keys: Vec<f64> = self.keys.iter().flatten().copied().filter(|k| k.is_finite()).map(wrap01).collect();
        let mut key_counts: Vec<usize> = vec![0; shares.len()];
        for &k in &keys {
            let node = ring.pts[ring.owner(k)].1;
            if let Some(i) = shares.iter().position(|s| s.0 == node) {
                key_counts[i] += 1;
            }
        }
        let style_of = |node: usize| shares.iter().position(|s| s.0 == node).unwrap_or(0);

        let mut svg = Svg::new(fr);
        let top = draw_titles(&mut svg, fr);
        let (w, h) = (fr.w(), fr.h());

        // Legend text, to size the legend column.
        let shown = shares.len().min(((h - top - 70.0) / 22.0).max(1.0) as usize);
        let lines: Vec<String> = shares
            .iter()
            .enumerate()
            .map(|(i, &(n, share, cnt))| {
                let mut s = format!(
                    "{}: {:.1}% of ring, {} point{}",
                    node_name(&self.names, n),
                    share * 100.0,
                    thousands(cnt as u64),
                    if cnt == 1 { "" } else { "s" }
                );
                if self.keys.is_some() {
                    let _ = write!(
                        s,
                        ", {} key{}",
                        thousands(key_counts[i] as u64),
                        if key_counts[i] == 1 { "" } else { "s" }
                    );
                }
                s
            })
            .collect();
        let notes = ["A key belongs to the first point", "at or after it, going clockwise."];
        let leg_w = lines
            .iter()
            .take(shown)
            .map(|s| text_w(s, LEG_FS) + 62.0)
            .chain(notes.iter().map(|s| text_w(s, 10.5)))
            .fold(0.0, f64::max)
            .min(w * 0.5);
        let area = Rect { x: 10.0, y: top, w: (w - leg_w - 30.0).max(60.0), h: (h - top - 10.0).max(60.0) };
        let r = (area.w.min(area.h) / 2.0 - 30.0).max(20.0);
        let (cx, cy) = (area.cx(), area.cy());
        let band = (r * 0.14).clamp(6.0, 22.0);
        let (r_out, r_in) = (r - 3.0, r - 3.0 - band);

        // Owned arcs.
        let arcs = ring.merged_arcs();
        let sep = if arcs.len() <= 60 { " stroke=\"#fff\" stroke-width=\"1\"" } else { "" };
        for &(s, e, n) in &arcs {
            if e - s <= 0.0 {
                continue;
            }
            let paint = svg.fill(style_of(n));
            svg.path(&sector(cx, cy, r_in, r_out, s, e), &format!(" fill=\"{paint}\"{sep}"));
        }
        svg.circle(cx, cy, r, r##" fill="none" stroke="#555" stroke-width="1.2""##);

        // Compass positions.
        for (t, label) in [(0.0, "0"), (0.25, "0.25"), (0.5, "0.5"), (0.75, "0.75")] {
            // Inside the ring, clear of the key marks just inside the band.
            let inset = 22.0 + (t * 4.0 % 2.0) * text_w(label, 10.0) / 2.0;
            let (lx, ly) = polar(cx, cy, r_in - inset, t);
            svg.text(lx, ly + 3.5, label, 10.0, Anchor::Middle, r##" fill="#777""##);
        }
        svg.text(cx, cy - 4.0, "position", 10.5, Anchor::Middle, r##" fill="#777""##);
        svg.text(cx, cy + 10.0, "0 → 1 clockwise", 10.5, Anchor::Middle, r##" fill="#777""##);

        // Keys.
        if !keys.is_empty() {
            let every = keys.len().div_ceil(MAX_KEYS).max(1);
            let big = keys.len() <= 60;
            let kr = if big { 3.2 } else { 1.6 };
            for (i, &k) in keys.iter().enumerate() {
                if i % every != 0 {
                    continue;
                }
                let st = style_of(ring.pts[ring.owner(k)].1);
                let (x, y) = polar(cx, cy, r_in - if big { 9.0 } else { 6.0 }, k);
                if big {
                    draw_marker(&mut svg, MARKERS[st % MARKERS.len()], x, y, kr, color(st), "#222");
                } else {
                    svg.circle(x, y, kr, &format!(" fill=\"{}\"", color(st)));
                }
            }
            if every > 1 {
                let shown_keys = keys.len().div_ceil(every);
                svg.text(
                    cx,
                    cy + 24.0,
                    &format!("{} of {} keys shown", thousands(shown_keys as u64), thousands(keys.len() as u64)),
                    10.0,
                    Anchor::Middle,
                    r##" fill="#777""##,
                );
            }
        }

        // Point marks.
        if m <= 80 {
            let mr = if m <= 16 { 5.5 } else { 3.5 };
            for &(p, n) in &ring.pts {
                let st = style_of(n);
                let (x, y) = polar(cx, cy, r, p);
                draw_marker(&mut svg, MARKERS[st % MARKERS.len()], x, y, mr, color(st), "#000");
            }
        } else if m <= 5000 {
            // Many points: a short radial tick per point, one path per node.
            for st in 0..shares.len() {
                let mut d = String::new();
                for &(p, n) in &ring.pts {
                    if style_of(n) == st {
                        let (x0, y0) = polar(cx, cy, r, p);
                        let (x1, y1) = polar(cx, cy, r + 7.0, p);
                        let _ = write!(d, "M{} {}L{} {}", N(x0), N(y0), N(x1), N(y1));
                    }
                }
                svg.path(&d, &format!(" stroke=\"{}\" stroke-width=\"0.9\"", color(st)));
            }
        }
        if self.label_points.unwrap_or(m <= 16) {
            for &(p, n) in &ring.pts {
                let (x, y) = polar(cx, cy, r + 15.0, p);
                let name = node_name(&self.names, n);
                let anchor = if x > cx + 4.0 {
                    Anchor::Start
                } else if x < cx - 4.0 {
                    Anchor::End
                } else {
                    Anchor::Middle
                };
                let dx = match anchor {
                    Anchor::Start => -4.0,
                    Anchor::End => 4.0,
                    Anchor::Middle => 0.0,
                };
                svg.text(x + dx, y + 4.0, &name, 11.0, anchor, "");
            }
        }

        // Legend.
        let lx = area.right() + 16.0;
        let rows_h = shown as f64 * 22.0;
        let mut y = (cy - (rows_h + 44.0) / 2.0).max(top + 10.0);
        for (i, line) in lines.iter().take(shown).enumerate() {
            let paint = svg.fill(i);
            svg.rect(lx, y - 7.0, 18.0, 14.0, &format!(" fill=\"{paint}\" stroke=\"#222\" stroke-width=\"0.6\""));
            draw_marker(&mut svg, MARKERS[i % MARKERS.len()], lx + 29.0, y, 4.5, color(i), "#000");
            svg.text(lx + 40.0, y + 4.0, line, LEG_FS, Anchor::Start, "");
            y += 22.0;
        }
        if shown < shares.len() {
            svg.text(lx, y + 4.0, &format!("… and {} more nodes", shares.len() - shown), LEG_FS, Anchor::Start, MUTED);
            y += 22.0;
        }
        y += 6.0;
        for note in notes {
            svg.text(lx, y + 4.0, note, 10.5, Anchor::Start, MUTED);
            y += 14.0;
        }
        fr.figure(svg)
    }
}

// ---------------------------------------------------------------------------------------------
// Shard map
// ---------------------------------------------------------------------------------------------

/// Builder for the before/after shard→node map. Create it with [`shard_map`].
#[derive(Clone, Debug)]
pub struct ShardMap {
    frame: Frame,
    before: Vec<usize>,
    after: Vec<usize>,
    names: Vec<String>,
}

/// The shard→node table before and after a rebalance. `before[s]` and `after[s]` are the node
/// indices of shard `s`.
///
/// Up to 48 shards are drawn as two labelled rows. More are drawn as two grids side by side
/// (shard 0 top-left, row by row), with cells coloured by node. Shards whose node changed get
/// a thick black outline in both, and a caption gives the count, e.g.
/// "90 of 1,000 shards moved (9.0%)". If the slices differ in length, the missing entries
/// count as "unassigned" and as moved.
pub fn shard_map<S: AsRef<str>>(title: &str, before: &[usize], after: &[usize], node_names: &[S]) -> ShardMap {
    ShardMap {
        frame: Frame::new(title),
        before: before.to_vec(),
        after: after.to_vec(),
        names: node_names.iter().map(|s| s.as_ref().to_string()).collect(),
    }
}

builder_common!(ShardMap);

impl ShardMap {
    /// Number of shards whose node differs between `before` and `after`.
    pub fn moved(&self) -> usize {
        let n = self.before.len().max(self.after.len());
        (0..n).filter(|&i| self.before.get(i) != self.after.get(i)).count()
    }

    /// Renders the map.
    pub fn build(&self) -> Figure {
        let fr = &self.frame;
        let n = self.before.len().max(self.after.len());
        if n == 0 {
            return no_data(fr, "no shards");
        }
        if n > 100_000 {
            return no_data(fr, &format!("too many shards to draw ({})", thousands(n as u64)));
        }
        let moved = self.moved();
        let mut nodes: Vec<usize> = self.before.iter().chain(self.after.iter()).copied().collect();
        nodes.sort_unstable();
        nodes.dedup();
        let caption = format!(
            "{} of {} shards moved ({:.1}%)",
            thousands(moved as u64),
            thousands(n as u64),
            moved as f64 * 100.0 / n as f64
        );

        let mut legend: LegendItems =
            nodes.iter().take(24).map(|&i| (Swatch::Solid(i), node_name(&self.names, i))).collect();
        if nodes.len() > 24 {
            legend.push((Swatch::Solid(0), format!("… {} more", nodes.len() - 24)));
        }
        legend.push((Swatch::Outline, "moved".to_string()));

        let mut svg = Svg::new(fr);
        let top = draw_titles(&mut svg, fr);
        let (w, h) = (fr.w(), fr.h());
        let rows = legend_rows(&legend, w - 32.0);
        let bottom = 10.0 + 24.0 + rows.len() as f64 * LEG_ROW + 4.0;
        let area = Rect { x: 16.0, y: top + 4.0, w: w - 32.0, h: (h - top - 4.0 - bottom).max(30.0) };

        let get = |v: &[usize], i: usize| v.get(i).copied();
        let draw_cell = |svg: &mut Svg, x: f64, y: f64, cw: f64, chh: f64, node: Option<usize>, mv: bool| {
            let gap = if cw >= 5.0 { 1.0 } else { 0.0 };
            let fill = node.map_or("#fff", color);
            svg.rect(x + gap / 2.0, y + gap / 2.0, cw - gap, chh - gap, &format!(" fill=\"{fill}\""));
            if mv {
                let sw = (cw.min(chh) * 0.22).clamp(1.0, 2.6);
                svg.rect(
                    x + gap / 2.0 + sw / 2.0,
                    y + gap / 2.0 + sw / 2.0,
                    cw - gap - sw,
                    chh - gap - sw,
                    &format!(" fill=\"none\" stroke=\"#000\" stroke-width=\"{}\"", N(sw)),
                );
            }
        };

        let cap_y = if n <= 48 {
            // Two labelled rows.
            let lab_w = text_w("before", LABEL_FS) + 12.0;
            let cw = ((area.w - lab_w) / n as f64).min(56.0);
            let chh = ((area.h - 60.0) / 2.0).clamp(12.0, 34.0);
            let gx = area.x + lab_w + (area.w - lab_w - cw * n as f64) / 2.0;
            // Centre the whole block (header, rows, caption, legend) vertically.
            let block = 18.0 + 2.0 * chh + 6.0 + 26.0 + 20.0 + rows.len() as f64 * LEG_ROW;
            let gy = top + 18.0 + ((h - top - block) / 2.0).max(0.0);
            let heads: Vec<(f64, f64, u8)> = (0..n)
                .map(|i| (gx + (i as f64 + 0.5) * cw, text_w(&i.to_string(), 10.0), u8::from(i % 5 != 0)))
                .collect();
            let keep = thin_labels(&heads, 3.0);
            svg.text(gx - 8.0, gy - 6.0, "shard", 10.0, Anchor::End, MUTED);
            for i in 0..n {
                if keep[i] {
                    svg.text(heads[i].0, gy - 6.0, &i.to_string(), 10.0, Anchor::Middle, MUTED);
                }
            }
            for (row, (label, v)) in [("before", &self.before), ("after", &self.after)].into_iter().enumerate() {
                let y = gy + row as f64 * (chh + 6.0);
                svg.text(gx - 8.0, y + chh / 2.0 + 4.5, label, LABEL_FS, Anchor::End, " font-weight=\"bold\"");
                for i in 0..n {
                    let node = get(v, i);
                    let mv = get(&self.before, i) != get(&self.after, i);
                    let x = gx + i as f64 * cw;
                    draw_cell(&mut svg, x, y, cw, chh, node, mv);
                    if let Some(nd) = node {
                        let name = node_name(&self.names, nd);
                        let fs = 11.0f64.min(chh * 0.45);
                        if text_w(&name, fs) <= cw - 6.0 {
                            let fill = if hex_luma(color(nd)) < 0.45 { "#fff" } else { "#000" };
                            let weight = if mv { " font-weight=\"bold\"" } else { "" };
                            svg.text(
                                x + cw / 2.0,
                                y + chh / 2.0 + fs * 0.36,
                                &name,
                                fs,
                                Anchor::Middle,
                                &format!(" fill=\"{fill}\"{weight}"),
                            );
                        }
                    }
                }
            }
            gy + 2.0 * chh + 6.0 + 26.0
        } else {
            // Two grids side by side. Stayed shards are pale; moved ones are full colour and
            // outlined. Cells are batched into one path per fill to keep the SVG small.
            let gap = 36.0;
            let pw = (area.w - gap) / 2.0;
            let ph = area.h - 22.0;
            let cols = ((n as f64 * pw / ph).sqrt().ceil() as usize).clamp(1, n);
            let nrows = n.div_ceil(cols);
            let cell = (pw / cols as f64).min(ph / nrows as f64).min(24.0);
            let gw = cell * cols as f64;
            let gh = cell * nrows as f64;
            let total = 2.0 * gw + gap;
            let x0 = area.x + (area.w - total) / 2.0;
            let gy = area.y + 20.0;
            let cgap = if cell >= 5.0 { 1.0 } else { 0.0 };
            let sw = (cell * 0.22).clamp(1.0, 2.6);
            let mut fills: Vec<(String, String)> = Vec::new();
            let mut outline = String::new();
            for (panel, (label, v)) in [("before", &self.before), ("after", &self.after)].into_iter().enumerate() {
                let gx = x0 + panel as f64 * (gw + gap);
                svg.text(gx + gw / 2.0, gy - 7.0, label, LABEL_FS, Anchor::Middle, " font-weight=\"bold\"");
                for i in 0..n {
                    let (r, c) = (i / cols, i % cols);
                    let mv = get(&self.before, i) != get(&self.after, i);
                    let x = gx + c as f64 * cell + cgap / 2.0;
                    let y = gy + r as f64 * cell + cgap / 2.0;
                    let side = cell - cgap;
                    let fill = match get(v, i) {
                        None => "#fff".to_string(),
                        Some(nd) if mv => color(nd).to_string(),
                        Some(nd) => tint(color(nd), 0.6),
                    };
                    let d = format!("M{} {}h{}v{}h-{}z", N(x), N(y), N(side), N(side), N(side));
                    match fills.iter_mut().find(|(f, _)| *f == fill) {
                        Some((_, path)) => path.push_str(&d),
                        None => fills.push((fill, d)),
                    }
                    // tiny cells: the outline would hide the colour, so moved
                    // shards are told apart by full colour alone
                    if mv && cell >= 4.0 {
                        let (a, b) = (x + sw / 2.0, side - sw);
                        let _ = write!(outline, "M{} {}h{}v{}h-{}z", N(a), N(y + sw / 2.0), N(b), N(b), N(b));
                    }
                }
            }
            for (fill, d) in &fills {
                svg.path(d, &format!(" fill=\"{fill}\""));
            }
            svg.path(&outline, &format!(" fill=\"none\" stroke=\"#000\" stroke-width=\"{}\"", N(sw)));
            svg.text(
                x0 + total / 2.0,
                gy + gh + 13.0,
                &format!(
                    "{} × {} grid, shard 0 at top left, row by row; pale = stayed, {} = moved",
                    thousands(cols as u64),
                    thousands(nrows as u64),
                    if cell >= 4.0 { "outlined" } else { "full colour" }
                ),
                10.0,
                Anchor::Middle,
                MUTED,
            );
            gy + gh + 32.0
        };
        svg.text(w / 2.0, cap_y, &caption, LABEL_FS, Anchor::Middle, " font-weight=\"bold\"");
        draw_legend(&mut svg, &legend, &rows, w / 2.0, cap_y + 20.0);
        fr.figure(svg)
    }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_b64(s: &str) -> Vec<u8> {
        let val = |c: u8| -> u32 {
            match c {
                b'A'..=b'Z' => u32::from(c - b'A'),
                b'a'..=b'z' => u32::from(c - b'a') + 26,
                b'0'..=b'9' => u32::from(c - b'0') + 52,
                b'+' => 62,
                b'/' => 63,
                _ => 0,
            }
        };
        let mut out = Vec::new();
        for chunk in s.as_bytes().chunks(4) {
            let n = chunk.iter().fold(0u32, |acc, &c| (acc << 6) | val(c));
            let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            let pad = chunk.iter().filter(|&&c| c == b'=').count();
            out.extend_from_slice(&bytes[..3 - pad]);
        }
        out
    }

    /// Minimal XML check: tags balance and nest, and every `&` starts an entity.
    fn assert_well_formed(svg: &str, what: &str) {
        let mut stack: Vec<&str> = Vec::new();
        let mut rest = svg;
        while let Some(i) = rest.find('<') {
            let Some(j) = rest[i..].find('>') else {
                panic!("{what}: unterminated tag");
            };
            let tag = &rest[i + 1..i + j];
            if let Some(closing) = tag.strip_prefix('/') {
                assert_eq!(stack.pop(), Some(closing), "{what}: bad nesting");
            } else if !tag.ends_with('/') {
                stack.push(tag.split_whitespace().next().unwrap_or(""));
            }
            rest = &rest[i + j + 1..];
        }
        assert!(stack.is_empty(), "{what}: unclosed {stack:?}");
        for (i, _) in svg.match_indices('&') {
            let ent = &svg[i..svg.len().min(i + 8)];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#64;"].iter().any(|e| ent.starts_with(e)),
                "{what}: bare & in {ent}"
            );
        }
    }

    fn ring_pts() -> Vec<(f64, usize)> {
        let mut v = Vec::new();
        for node in 0..4usize {
            for j in 0..150u64 {
                let h = fnv1a(&format!("{node}-{j}"));
                v.push(((h >> 11) as f64 / (1u64 << 53) as f64, node));
            }
        }
        v
    }

    fn names() -> Vec<String> {
        ["A", "B", "C", "D"].iter().map(|s| s.to_string()).collect()
    }

    fn all_figures() -> Vec<Figure> {
        let ns: Vec<f64> = (2..=12).map(f64::from).collect();
        let before: Vec<usize> = (0..1000).map(|i| i % 10).collect();
        let after: Vec<usize> = (0..1000).map(|i| if i % 11 == 0 { 10 } else { i % 10 }).collect();
        let m: Vec<Vec<u64>> =
            (0..11).map(|r| (0..11).map(|c| if r == c { 9000 } else { (r * 7 + c) as u64 }).collect()).collect();
        let labels: Vec<String> = (0..11).map(|i| format!("n{i}")).collect();
        vec![
            line_chart(
                "moved",
                "N",
                "share",
                &[
                    Series::new("hash % N", ns.iter().map(|&n| (n, 1.0 - 1.0 / n)))
                        .band(ns.iter().map(|&n| (n, 0.9 - 1.0 / n, 1.0 - 0.5 / n))),
                    Series::new("1/(N+1)", ns.iter().map(|&n| (n, 1.0 / n))).style(Style::Line).ink(3),
                ],
            )
            .y_percent(true)
            .build(),
            line_chart(
                "spread",
                "points per node",
                "spread",
                &[Series::new("1/√v", [(1.0, 1.0), (10.0, 0.31), (150.0, 0.08)])],
            )
            .log_x(true)
            .build(),
            bar_chart("bars", "keys", &["A", "B"], &[("one", vec![1.0, 2.0])]).reference(1.5, "fair").build(),
            histogram("h", "x", &[1.0, 2.0, 2.5, 3.0], 0).build(),
            heatmap("hm", &labels, &labels, &m, "new", "old").mark_diagonal(true).build(),
            ring_diagram("ring", &ring_pts(), &names(), Some(&[0.1, 0.5, 0.9][..])).build(),
            shard_map("shards", &before, &after, &labels).build(),
            shard_map("small", &[0, 1, 2, 3], &[0, 1, 2, 0], &names()).build(),
        ]
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(89_813), "89,813");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
        assert_eq!(fmt_fixed(-1234.5, 1), "-1,234.5");
        assert_eq!(fmt_fixed(-0.0001, 2), "0.00");
        assert_eq!(fmt_value(0.254, true), "25.4%");
        assert_eq!(fmt_value(25_000.0, false), "25,000");
    }

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (plain, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), enc);
        }
    }

    #[test]
    fn img_tag_embeds_the_svg_as_base64() {
        let fig = bar_chart("Keys \"per\" node <A&B>", "keys", &["A", "B"], &[("x", vec![3.0, 4.0])]).build();
        let tag = fig.to_img_tag();
        let prefix = "<img src=\"data:image/svg+xml;base64,";
        assert!(tag.starts_with(prefix));
        assert!(tag.ends_with("\" alt=\"Keys &quot;per&quot; node &lt;A&amp;B&gt;\">"));
        let b64 = &tag[prefix.len()..tag.find("\" alt=").unwrap()];
        assert_eq!(decode_b64(b64), fig.svg().as_bytes());
    }

    #[test]
    fn evcxr_output_format() {
        let fig = bar_chart("t", "y", &["A"], &[("s", vec![1.0])]).build();
        let out = fig.evcxr_output();
        assert_eq!(out, format!("EVCXR_BEGIN_CONTENT text/html\n{}\nEVCXR_END_CONTENT\n", fig.to_img_tag()));
        assert!(!out.contains("<svg"), "must be an <img>, not inline svg");
        assert_eq!(fig.to_string(), "[figure: t, 720×400 SVG]");
        assert_eq!(fig.dimensions(), (720, 400));
    }

    #[test]
    fn output_is_deterministic() {
        let a = all_figures();
        let b = all_figures();
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.svg(), y.svg(), "{}", x.title());
            assert!(x.svg().starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
            assert!(x.svg().ends_with("</svg>\n"));
            assert!(!x.svg().contains(ID), "placeholder left in {}", x.title());
            assert!(!x.svg().contains("NaN") && !x.svg().contains("inf"), "{}", x.title());
            assert!(!x.svg().contains("no data"), "{}", x.title());
            assert_well_formed(x.svg(), x.title());
        }
    }

    #[test]
    fn empty_and_degenerate_input_never_panics() {
        let none: &[&str] = &[];
        let nan = f64::NAN;
        let figs = vec![
            line_chart("a", "x", "y", &[]).build(),
            line_chart("b", "x", "y", &[Series::new("s", Vec::new())]).build(),
            line_chart("c", "x", "y", &[Series::new("s", [(nan, nan), (f64::INFINITY, 1.0)])]).build(),
            line_chart("d", "x", "y", &[Series::new("s", [(0.0, 1.0), (-1.0, 2.0)])]).log_x(true).build(),
            bar_chart("e", "y", none, &[("s", vec![])]).build(),
            bar_chart("f", "y", &["A"], &[("s", vec![nan])]).build(),
            bar_chart::<&str, &str>("g", "y", &["A"], &[]).build(),
            histogram("h", "x", &[], 10).build(),
            histogram("i", "x", &[nan, nan], 0).build(),
            heatmap("j", none, none, &[], "x", "y").build(),
            heatmap("k", none, none, &[vec![]], "x", "y").build(),
            ring_diagram("l", &[], none, None).build(),
            ring_diagram("m", &[(nan, 0)], none, Some(&[nan][..])).build(),
            shard_map("n", &[], &[], none).build(),
        ];
        for f in &figs {
            assert_well_formed(f.svg(), f.title());
            assert!(f.svg().contains("no data"), "{} should say no data", f.title());
            assert!(f.svg().ends_with("</svg>\n"));
        }
        // Degenerate but drawable: these must render normally.
        let ok = vec![
            line_chart("p", "x", "y", &[Series::new("s", [(1.0, 0.0), (2.0, 0.0)])]).build(),
            line_chart("q", "x", "y", &[Series::new("s", [(5.0, 5.0)])]).build(),
            line_chart("r", "x", "y", &[Series::new("s", [(1.0, 1e300), (2.0, -1e300)])]).build(),
            line_chart("r2", "x", "y", &[Series::new("s", [(1.0, 1.0), (2.0, 2.0)])])
                .x_range(5.0, 1.0)
                .y_range(nan, 1.0)
                .log_y(true)
                .build(),
            bar_chart("s", "y", &["A", "B"], &[("z", vec![0.0, 0.0])]).build(),
            bar_chart("t", "y", &["A", "B"], &[("neg", vec![-3.0]), ("", vec![1.0, 2.0, 99.0])]).build(),
            histogram("u", "x", &[7.0, 7.0, 7.0], 0).build(),
            histogram("u2", "x", &[1e308, -1e308], 3).build(),
            heatmap("v", &["a"], &["b", "c"], &[vec![0, 0]], "x", "y").scale(Scale::Log).build(),
            heatmap("w", none, none, &[vec![1], vec![2, 3, 4]], "", "").build(),
            ring_diagram("x", &[(0.3, 7)], none, Some(&[0.1, 0.9, -0.5, 2.0][..])).build(),
            ring_diagram("y", &[(0.5, 0), (0.5, 1), (1.0, 2), (-0.25, 3)], &names(), None).build(),
            shard_map("z", &[0, 1, usize::MAX], &[1], none).build(),
        ];
        for f in &ok {
            assert_well_formed(f.svg(), f.title());
            assert!(!f.svg().contains("no data"), "{} should render", f.title());
            assert!(!f.svg().contains("NaN") && !f.svg().contains("inf"), "{}", f.title());
        }
        let tiny = bar_chart("tiny", "y", &["A"], &[("s", vec![1.0])]).size(0, 0).build();
        assert_eq!(tiny.dimensions(), (MIN_W, MIN_H));
    }

    #[test]
    fn shard_map_counts_moved_shards() {
        let before: Vec<usize> = (0..1000).map(|i| i % 10).collect();
        let mut after = before.clone();
        for s in after.iter_mut().take(900).step_by(10) {
            *s = 10;
        }
        let names: Vec<String> = (0..11).map(|i| format!("n{i}")).collect();
        let sm = shard_map("rebalance", &before, &after, &names);
        assert_eq!(sm.moved(), 90);
        assert!(sm.build().svg().contains("90 of 1,000 shards moved (9.0%)"));
    }

    #[test]
    fn ring_shares_follow_successor_rule() {
        let ring = Ring::new(&[(0.1, 0), (0.35, 1), (0.6, 2), (0.85, 3)]);
        for (node, share, count) in ring.shares() {
            assert!((share - 0.25).abs() < 1e-12, "node {node}: {share}");
            assert_eq!(count, 1);
        }
        // Key at 0.2 goes to the point at 0.35 (node 1); 0.9 wraps to 0.1 (node 0);
        // a key exactly at a point belongs to that point.
        assert_eq!(ring.pts[ring.owner(0.2)].1, 1);
        assert_eq!(ring.pts[ring.owner(0.9)].1, 0);
        assert_eq!(ring.pts[ring.owner(0.6)].1, 2);
        let ring = Ring::new(&[(0.1, 0), (0.2, 0), (0.5, 1)]);
        assert_eq!(ring.merged_arcs().len(), 2);
        let shares = ring.shares();
        assert!((shares[0].1 - 0.7).abs() < 1e-12 && (shares[1].1 - 0.3).abs() < 1e-12);
        let fig = ring_diagram("r", &[(0.1, 0), (0.35, 1), (0.6, 2), (0.85, 3)], &names(), None).build();
        assert!(fig.svg().contains("A: 25.0% of ring, 1 point"));
    }

    #[test]
    fn user_text_is_escaped() {
        let fig = line_chart("<b>@ID@ & co</b>", "x<", "y>", &[Series::new("a\"b", [(1.0, 1.0), (2.0, 2.0)])]).build();
        let svg = fig.svg();
        assert!(svg.contains("&lt;b&gt;&#64;ID&#64; &amp; co&lt;/b&gt;"));
        assert!(svg.contains("a&quot;b"));
        assert!(!svg.contains("<b>"));
    }

    #[test]
    fn heatmap_writes_counts_with_separators() {
        let fig = heatmap("t", &["A", "B"], &["A", "B"], &[vec![25_000, 12], vec![0, 89_813]], "new", "old").build();
        assert!(fig.svg().contains(">89,813<"));
        assert!(fig.svg().contains(">25,000<"));
        let big: Vec<Vec<u64>> = vec![vec![1; 20]; 20];
        let fig = heatmap("t", &[] as &[&str], &[] as &[&str], &big, "", "").build();
        assert!(!fig.svg().contains("fill=\"#fff\">1<"), "no counts in a 20×20 grid");
    }
}
