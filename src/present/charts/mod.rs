//! Charts for the notebooks, drawn with [plotters](https://docs.rs/plotters) as SVG: line
//! charts, grouped bars, histograms, heatmaps, the hash ring and shard maps.
//!
//! Each chart function takes plain data and returns a builder: adjust it (`.size(w, h)`,
//! `.subtitle(..)`, the chart's own options) and `.build()` a [`Figure`]. Builders and figures
//! show themselves in an evcxr notebook cell as an `<img src="data:image/svg+xml;base64,…">`,
//! which displays even in an untrusted notebook. The same input gives the same SVG bytes, and
//! charts read in greyscale: line series differ in dash pattern and marker shape as well as
//! colour, bar series in lightness (neighbouring colours are far apart in grey) and, from the
//! third series on, in hatching, with an outline round every bar. Draw charts of your own with [`draw`] and the re-exported [`plotters`].
//!
//! ```
//! use reshard::present::{charts::bar_chart, thousands};
//! let fig = bar_chart("Keys per node", "keys", &["A", "B"], &[("1 point", vec![41_022.0, 9_310.0])])
//!     .reference(25_000.0, "mean load (25,000)")
//!     .build();
//! assert!(fig.to_img_tag().starts_with("<img src=\"data:image/svg+xml;base64,"));
//! assert_eq!(thousands(89_813), "89,813");
//! ```

use std::f64::consts::TAU;
use std::fmt;
use std::path::Path;

use crate::present::escape::{attribute, one_line};
use base64::Engine as _;
pub use plotters;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;
use plotters::style::text_anchor::HPos::{self, Center as Mid, Left, Right};
use plotters::style::text_anchor::Pos;
use plotters::style::text_anchor::VPos::{self, Bottom, Center, Top};

mod kit;
use kit::*;

/// Default figure width in pixels.
pub const DEFAULT_WIDTH: u32 = 720;
/// Default figure height in pixels.
pub const DEFAULT_HEIGHT: u32 = 400;

/// The drawing area handed to a [`draw`] closure: the whole figure, in pixels.
pub type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// The error a [`draw`] closure returns; `?` converts plotters' errors into it.
pub type DrawError = Box<dyn std::error::Error>;
type Res = Result<(), DrawError>;

/// Fills for bar series and nodes: Okabe–Ito and Paul Tol's colours, ordered so that
/// neighbours differ in grey (luma 0.299 R + 0.587 G + 0.114 B, what a greyscale print keeps:
/// 87, 162, 51, 213, 119, 188, 70, 199, 106, 151, 81, 158 of 255, neighbours at least 45 apart).
const PALETTE: [u32; 12] = [
    0x0072B2, 0xE69F00, 0x332288, 0xF0E442, 0xD55E00, 0x88CCEE, 0x882255, 0xDDCC77, 0x009E73, 0xCC79A7, 0x117733,
    0x56B4E9,
];
/// Line inks: colour and dash pattern in pixels (dash, gap, dash, gap…; empty: solid). Ink `i`
/// has marker shape `i`, so a series reads in greyscale by its dash and its marker.
const INKS: [(u32, &[u32]); 8] = [
    (0x0072B2, &[]),
    (0xE69F00, &[10, 5]),
    (0x000000, &[2, 4]),
    (0x56B4E9, &[14, 4, 3, 4]),
    (0x882255, &[6, 4]),
    (0xCC79A7, &[18, 4, 3, 4, 3, 4]),
    (0x009E73, &[22, 6]),
    (0x777777, &[3, 3, 10, 3]),
];
/// Reference lines (black, 2 px): dashed, dotted, dash-dot.
const REF_DASH: [&[u32]; 3] = [&[7, 4], &[2, 3], &[12, 3, 2, 3]];
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
        format!("<img src=\"data:image/svg+xml;base64,{b64}\" alt=\"{}\">", attribute(&self.title))
    }
    /// What [`Figure::evcxr_display`] prints: `EVCXR_BEGIN_CONTENT text/html\n<img …>\nEVCXR_END_CONTENT\n`.
    pub fn evcxr_output(&self) -> String {
        crate::present::evcxr::part("text/html", &self.to_img_tag())
    }
    /// Shows the figure in an evcxr (Rust Jupyter kernel) cell.
    pub fn evcxr_display(&self) {
        print!("{}", self.evcxr_output());
    }
}

impl crate::present::show::Show for Figure {
    fn text_form(&self) -> String {
        self.to_string()
    }
    fn html_form(&self) -> String {
        self.to_img_tag()
    }
}

impl fmt::Display for Figure {
    /// A one-line text form: `[figure: TITLE, 720×400 SVG]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[figure: {}, {}×{} SVG]", one_line(&self.title), self.width, self.height)
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

use crate::numbers::{grouped, thousands};

// ------------------------------------------------------ frame and builders

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Frame {
    pub(super) title: String,
    pub(super) subtitle: Option<String>,
    pub(super) width: u32,
    pub(super) height: u32,
}

impl Frame {
    pub(super) fn new(title: &str) -> Frame {
        Frame { title: title.to_string(), subtitle: None, width: DEFAULT_WIDTH, height: DEFAULT_HEIGHT }
    }
}

/// Title (shrunk to fit) and subtitle at the top; `body` draws in the rest. An error becomes
/// a figure that says so.
pub(super) fn render(fr: &Frame, body: impl FnOnce(&Area) -> Res) -> Figure {
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
    let svg = format!("{head}\n<title>{}</title>\n{rest}", attribute(&fr.title));
    Figure { title: fr.title.clone(), svg, ..fig }
}

pub(super) fn message(a: &Area, why: &str) -> Res {
    let (w, h) = a.dim_in_pixel();
    let (cx, cy) = (f64::from(w) / 2.0, f64::from(h) / 2.0);
    text(a, "no data", (cx, cy - 12.0), font(20.0, Mid, Center).color(&MUTED))?;
    text(a, why, (cx, cy + 12.0), font(12.0, Mid, Center).color(&MUTED))
}

/// A figure that says "no data" and why.
pub(super) fn no_data(fr: &Frame, why: &str) -> Figure {
    render(fr, |a| message(a, why))
}

/// The frame with `note` (what the chart drew other than as given: binned,
/// thinned, cut) after its subtitle.
pub(super) fn noted(fr: &Frame, note: Option<String>) -> std::borrow::Cow<'_, Frame> {
    match note {
        None => std::borrow::Cow::Borrowed(fr),
        Some(n) => {
            let subtitle = Some(match &fr.subtitle {
                Some(s) if !s.is_empty() => format!("{s} · {n}"),
                _ => n,
            });
            std::borrow::Cow::Owned(Frame { subtitle, ..fr.clone() })
        }
    }
}

/// Why a chart's input is not drawn: more values than the limit, which were
/// not copied. `None` within it.
pub(super) fn over_limit(what: &str, given: usize, limit: u128) -> Option<String> {
    (given as u128 > limit).then(|| {
        format!("{} {what} is over this crate's limit of {}: draw fewer", thousands(given as u64), grouped(limit))
    })
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
                let title = crate::present::escape::one_line(&self.frame.title);
                write!(f, "[figure: {title}, {}×{} SVG]", self.frame.width, self.frame.height)
            }
        }
    };
}

// The chart kinds, one file each (the macro above is in scope in them).
mod bar;
mod heatmap;
mod histogram;
mod line;
mod ring;
mod shard_map;

pub use bar::{bar_chart, counts_chart, BarChart};
pub use heatmap::{heatmap, Heatmap, Scale};
pub use histogram::{histogram, Histogram};
pub use line::{line_chart, LineChart, MAX_LINES, MAX_LINE_POINTS, MAX_SERIES_POINTS};
pub use ring::{ring_diagram, RingDiagram, MAX_ARCS, SECTORS};
pub use shard_map::{shard_map, ShardMap, MAX_SHARDS_DRAWN};

// ---------------------------------------------------------------- series

/// The most values one chart takes in ([`Limits::max_keys`](crate::limits::Limits::max_keys)).
fn max_points() -> usize {
    usize::try_from(crate::limits::current().max_keys).unwrap_or(usize::MAX)
}

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
#[non_exhaustive]
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
    /// A series drawn as a line with markers. At most one point past
    /// [`Limits::max_keys`](crate::limits::Limits::max_keys) is taken from
    /// `points` (an endless iterator included): a chart of a series over
    /// that limit says so instead of drawing it.
    pub fn new<S: Into<String>, I: IntoIterator<Item = (f64, f64)>>(name: S, points: I) -> Series {
        Series {
            name: name.into(),
            points: points.into_iter().take(max_points().saturating_add(1)).collect(),
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
    /// Adds a shaded band from `(x, lo, hi)` triples (at most one past
    /// [`Limits::max_keys`](crate::limits::Limits::max_keys) taken, as for
    /// the points).
    pub fn band<I: IntoIterator<Item = (f64, f64, f64)>>(mut self, band: I) -> Series {
        self.band = band.into_iter().take(max_points().saturating_add(1)).collect();
        self
    }
    /// Pins the ink: 0 blue solid ●, 1 orange dashed ■, 2 black dotted ▲, 3 sky blue
    /// dash-dot ◆, 4 wine short dash ▼, 5 pink dash-dot-dot ✕, 6 green long dash +, 7 grey
    /// dot-dash ○.
    pub fn ink(mut self, ink: usize) -> Series {
        self.ink = Some(ink);
        self
    }
}

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
        let names10: Vec<String> = (0..10).map(|i| i.to_string()).collect();
        let bar = |j: usize| (format!("s{j}"), (0..10).map(|g| 0.5 + ((g * 7 + j * 3) % 10) as f64 / 4.0).collect());
        let four: Vec<(String, Vec<f64>)> = (0..4).map(bar).collect();
        let lines4: Vec<Series> =
            (0..4).map(|j| Series::new(format!("l{j}"), ns.iter().map(|&n| (n, n + j as f64)))).collect();
        vec![
            line_chart("lines", "N", "share", &series).y_percent(true).log_x(true).reference(0.1, "ten").build(),
            line_chart("loglog", "N", "share", &series).log_x(true).log_y(true).subtitle("s").build(),
            bar_chart("bars", "keys", &["A", "B"], &[("x", vec![1.0, 2.0]), ("y", vec![3.0, -1.0])])
                .reference(1.5, "m")
                .build(),
            bar_chart("bars4", "× mean", &names10, &four).reference(1.0, "mean").build(),
            line_chart("lines4", "x", "y", &lines4).build(),
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
        // greyscale: bar series 3 and 4 are hatched (white on the dark third, dark on the light
        // fourth), and every line series but the first is drawn in dashes
        let polylines = |t: &str, stroke: &str| svg(t).matches(&format!("stroke=\"{stroke}\"")).count();
        assert!(polylines("bars4", "#FFFFFF") >= 11 && polylines("bars4", "#222222") >= 11);
        assert_eq!(polylines("bars", "#FFFFFF"), 0, "two series: no hatching");
        assert_eq!(polylines("lines4", "#0072B2"), 2, "one solid line and its legend (the dots are filled)");
        for c in ["#E69F00", "#000000", "#56B4E9"] {
            assert!(polylines("lines4", c) > 20, "{c}: dashes");
        }
    }

    #[test]
    fn a_chart_shows_as_an_image_and_a_line_of_text() {
        let fig = line_chart("a line", "x", "y", &[]).build();
        let s = crate::present::Shown::new().and(&fig);
        assert!(s.to_html().contains("<img src=\"data:image/svg+xml;base64,"));
        assert!(s.to_text().starts_with("[figure: a line"));
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
