//! One chart a learner explores by dragging a slider: a small grid the crate
//! computed exactly, shown as a Vega-Lite chart whose slider switches between
//! the grid's rows.
//!
//! ```
//! use reshard::notebook::*;
//! let keys = KeySet::plain(2_000).hashed(HashWidth::Bits128)?;
//! let (vnodes, grid) = (10, [1, 10, 100]); // the lab's parameter and the values to explore
//! let mut ex = Explorable::bars("Share of the keys on each node of a 4-node ring", "node", "share")
//!     .slider("vnodes", grid, vnodes)?
//!     .format(Format::Percent(1));
//! for v in grid {
//!     let load = LoadReport::measure(&keys, &Ring::new(4)?.with_vnodes(v)?)?;
//!     let shares: Vec<f64> = load.counts().iter().map(|&c| c as f64 / 2_000.0).collect();
//!     ex.row(&[v], load.nodes(), &shares)?;
//! }
//! let out = ex.output()?; // what `ex` as a cell's last line shows
//! assert!(out.vega_lite().contains(r#""name":"vnodes""#));
//! assert!(out.svg().starts_with("<svg"));
//! assert!(out.text().starts_with("Share of the keys on each node of a 4-node ring · vnodes = 10: "));
//! # Ok::<(), reshard::Error>(())
//! ```
//!
//! End a notebook cell with the explorable (alone: evcxr joins every rich
//! output of a cell into one bundle, and JupyterLab prefers a `text/html`
//! part, a table's, to the chart). It shows as one output with three parts:
//!
//! * `application/vnd.vegalite.v5+json`: the chart, its data (every grid
//!   row) and the sliders. JupyterLab draws it, trusted or not, without the
//!   network (Vega ships inside JupyterLab); the HTML edition inlines Vega
//!   (`make handouts`, scripts/vega_inline.py);
//! * `image/svg+xml`: the default view drawn with plotters, for paper (the
//!   PDF edition) and viewers without Vega;
//! * `text/plain`: the default view's numbers on one line.
//!
//! The chart only switches between rows the crate computed: every value a
//! slider shows is the crate's value for that setting (the STYLE's
//! explorables). A range slider over values that are not evenly spaced (1,
//! 2, 5, 10, …) snaps to the nearest computed value, and the title says
//! which value is shown.

mod output;
mod values;
mod vega;
mod view;

use std::collections::BTreeSet;

use crate::{Error, Result};
use values::{list, number};

pub use output::ExplorableOutput;
pub use values::{SliderValue, XValue};

/// The most sliders one explorable has: a chart with more is not explored,
/// it is searched.
pub const MAX_SLIDERS: usize = 2;
/// The most values one slider takes.
pub const MAX_SLIDER_VALUES: usize = 100;
/// The most points (rows × bars or line points) in one explorable.
pub const MAX_POINTS: usize = 5_000;
/// The most bytes one explorable's output takes: the chart with its data,
/// the SVG and the text line together. JupyterLab adds a PNG of the chart
/// when it draws it and saves it beside them (32 KB of base64 for a 560×300
/// chart; the fixture's whole saved output, 600 points of data, is 52
/// KB), so a saved output stays under 200 KB.
pub const MAX_OUTPUT_BYTES: usize = 150_000;

/// Names the chart uses for its own fields and signals, which a slider may
/// not take.
const RESERVED: [&str; 12] =
    ["x", "y", "series", "datum", "event", "item", "parent", "width", "height", "padding", "autosize", "background"];

/// What the chart draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChartKind {
    /// Bars, one per x value (a node, a shard); series side by side.
    Bars,
    /// A line over a numeric x (a parameter), with a marker and its value at each point.
    Line,
}

/// How a slider is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Input {
    /// A range slider the learner drags (`<input type="range">`).
    Range,
    /// A drop-down list of the values (`<select>`).
    Select,
}

/// How the measured values are written (labels, axis, text line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// A share (0.25) as a percentage with this many decimals ("25.0%").
    Percent(u8),
    /// A number with this many decimals ("1.234").
    Fixed(u8),
    /// A whole count with thousands separators ("12,345").
    Count,
}

#[derive(Debug, Clone, PartialEq)]
struct Slider {
    name: String,
    values: Vec<f64>,
    default: f64,
    input: Input,
}

#[derive(Debug, Clone, PartialEq)]
struct Point {
    setting: Vec<f64>,
    series: String,
    x: XValue,
    y: f64,
}

/// One chart a learner explores by dragging a slider (or two): a grid of
/// slider settings → measured values, computed by the crate, and a chart of
/// the values at the setting the sliders show. See the
/// [module](crate::present::explorable) for what a cell shows.
///
/// ```
/// use reshard::notebook::*;
/// let keys = KeySet::plain(1_000).hashed(HashWidth::Bits128)?;
/// let nodes: usize = 4; // the lab's parameter
/// let mut ex = Explorable::line("Share of the keys that move when one node joins", "nodes before", "moved")
///     .slider("vnodes", [1, 10, 100], 10)?
///     .format(Format::Percent(1));
/// for v in [1, 10, 100] {
///     for n in 2..=nodes {
///         let m = Movement::measure(&keys, &Ring::new(n)?.with_vnodes(v)?, &Ring::new(n + 1)?.with_vnodes(v)?)?;
///         ex.point(&[v], n, m.moved() as f64 / 1_000.0)?;
///     }
/// }
/// let moved = ex.value(&[10], "", 4).expect("computed above");
/// assert!(moved > 0.0 && moved < 0.5);
/// assert_eq!(ex.points(), 9);
/// // A bad grid is an error, not a panic:
/// let err = ex.clone().point(&[7], 2, 0.5).unwrap_err();
/// assert!(err.to_string().contains("vnodes 7"));
/// # Ok::<(), reshard::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Explorable {
    kind: ChartKind,
    title: String,
    x_label: String,
    y_label: String,
    format: Format,
    size: (u32, u32),
    sliders: Vec<Slider>,
    points: Vec<Point>,
}

impl Explorable {
    fn new(kind: ChartKind, title: &str, x_label: &str, y_label: &str) -> Explorable {
        Explorable {
            kind,
            title: title.to_string(),
            x_label: x_label.to_string(),
            y_label: y_label.to_string(),
            format: Format::Fixed(3),
            size: (560, 300),
            sliders: Vec::new(),
            points: Vec::new(),
        }
    }

    /// Bars, one per x value (e.g. each node's share); `title` says what is drawn.
    pub fn bars(title: &str, x_label: &str, y_label: &str) -> Explorable {
        Explorable::new(ChartKind::Bars, title, x_label, y_label)
    }

    /// A line over a numeric x (e.g. the share moved as nodes join), its value
    /// written at each point; `title` says what is drawn.
    pub fn line(title: &str, x_label: &str, y_label: &str) -> Explorable {
        Explorable::new(ChartKind::Line, title, x_label, y_label)
    }

    /// Adds a range slider named `name` (the lab's parameter name, e.g.
    /// `vnodes`) over `values`, starting at `default` (the lab's value,
    /// which must be one of them). Sliders come before the first row; at
    /// most [`MAX_SLIDERS`].
    pub fn slider<T: SliderValue>(self, name: &str, values: impl IntoIterator<Item = T>, default: T) -> Result<Self> {
        self.add_slider(name, values, default, Input::Range)
    }

    /// Adds a drop-down list instead of a range slider (otherwise as
    /// [`slider`](Self::slider)).
    pub fn select<T: SliderValue>(self, name: &str, values: impl IntoIterator<Item = T>, default: T) -> Result<Self> {
        self.add_slider(name, values, default, Input::Select)
    }

    fn add_slider<T: SliderValue>(
        mut self,
        name: &str,
        values: impl IntoIterator<Item = T>,
        default: T,
        input: Input,
    ) -> Result<Self> {
        if !self.points.is_empty() {
            return Err(Error::OutOfRange {
                what: "slider added after rows:",
                given: name.to_string(),
                allowed: "every .slider(…) or .select(…) before the first .row(…) or .point(…)".into(),
            });
        }
        crate::limits::check_hint(
            "sliders",
            self.sliders.len() as u128 + 1,
            MAX_SLIDERS as u128,
            "explore at most two parameters in one chart",
        )?;
        let ident = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ident || RESERVED.contains(&name) || name.starts_with("shown_") {
            return Err(Error::OutOfRange {
                what: "slider name",
                given: format!("{name:?}"),
                allowed: format!(
                    "the lab's parameter name: ASCII letters, digits and _, starting with a letter (e.g. vnodes), \
                     not {} and not starting with shown_",
                    RESERVED.join(", ")
                ),
            });
        }
        if self.sliders.iter().any(|s| s.name == name) {
            return Err(Error::OutOfRange {
                what: "slider name",
                given: format!("{name:?} (a second time)"),
                allowed: "a name no other slider of this chart has".into(),
            });
        }
        let mut grid = Vec::new();
        for v in values.into_iter().take(MAX_SLIDER_VALUES + 1) {
            grid.push(grid_value(name, v)?);
        }
        crate::limits::check_hint(
            "values on one slider",
            grid.len() as u128,
            MAX_SLIDER_VALUES as u128,
            "give fewer values (a slider of a dozen is plenty)",
        )?;
        grid.sort_by(f64::total_cmp);
        grid.dedup();
        if grid.is_empty() {
            return Err(Error::OutOfRange {
                what: "values on slider",
                given: format!("{name}: none"),
                allowed: "at least one value (the lab's default among them)".into(),
            });
        }
        let default = grid_value(name, default)?;
        if !grid.contains(&default) {
            return Err(Error::OutOfRange {
                what: "default of slider",
                given: format!("{name} = {}", number(default)),
                allowed: format!("one of its values: {}", list(&grid)),
            });
        }
        self.sliders.push(Slider { name: name.to_string(), values: grid, default, input });
        Ok(self)
    }

    /// How the values are written: labels, axis and text line (default
    /// `Format::Fixed(3)`).
    pub fn format(mut self, format: Format) -> Self {
        self.format = format;
        self
    }

    /// The chart's size in pixels (default 560×300; clamped to
    /// 240×160 ..= 1200×800).
    pub fn size(mut self, width: u32, height: u32) -> Self {
        self.size = (width.clamp(240, 1200), height.clamp(160, 800));
        self
    }

    /// Adds one row of the grid: at slider `setting` (one value per slider,
    /// in the order they were added), the measured `ys` at `xs` (e.g. each
    /// node's share). Fails on lengths that differ, a setting not on the
    /// sliders, a value that is not finite, an x given twice for the same
    /// setting, or more than [`MAX_POINTS`] points in all.
    pub fn row<T, X>(&mut self, setting: &[T], xs: impl IntoIterator<Item = X>, ys: &[f64]) -> Result<()>
    where
        T: SliderValue,
        X: Into<XValue>,
    {
        self.series_row("", setting, xs, ys)
    }

    /// [`row`](Self::row) for one of several series (e.g. "measured" and
    /// "floor"), drawn in different colours and dashes, with a legend.
    pub fn series_row<T, X>(
        &mut self,
        series: &str,
        setting: &[T],
        xs: impl IntoIterator<Item = X>,
        ys: &[f64],
    ) -> Result<()>
    where
        T: SliderValue,
        X: Into<XValue>,
    {
        // The xs are read one past the limit: more than that is over it, whatever the ys.
        let xs: Vec<XValue> = xs.into_iter().take(MAX_POINTS.saturating_add(1)).map(Into::into).collect();
        crate::limits::check_hint(
            "points in one explorable",
            self.points.len() as u128 + xs.len().max(ys.len()) as u128,
            MAX_POINTS as u128,
            "use fewer slider values or fewer x values",
        )?;
        if xs.len() != ys.len() {
            return Err(Error::LengthMismatch {
                what: "measured values (ys) for the xs",
                expected: xs.len(),
                given: ys.len(),
            });
        }
        let setting = self.setting(setting)?;
        let mut added = Vec::with_capacity(xs.len());
        for (x, &y) in xs.into_iter().zip(ys) {
            added.push(self.checked_point(series, &setting, x, y, &added)?);
        }
        self.points.extend(added);
        Ok(())
    }

    /// Adds one point: at slider `setting`, the value `y` at `x`.
    pub fn point<T: SliderValue>(&mut self, setting: &[T], x: impl Into<XValue>, y: f64) -> Result<()> {
        self.series_row("", setting, [x.into()], &[y])
    }

    /// [`point`](Self::point) for one of several series.
    pub fn series_point<T: SliderValue>(
        &mut self,
        series: &str,
        setting: &[T],
        x: impl Into<XValue>,
        y: f64,
    ) -> Result<()> {
        self.series_row(series, setting, [x.into()], &[y])
    }

    fn setting<T: SliderValue>(&self, setting: &[T]) -> Result<Vec<f64>> {
        if self.sliders.is_empty() {
            return Err(Error::OutOfRange {
                what: "sliders:",
                given: "none".into(),
                allowed: "at least one .slider(…) before the first row".into(),
            });
        }
        if setting.len() != self.sliders.len() {
            return Err(Error::LengthMismatch {
                what: "slider values in a row's setting",
                expected: self.sliders.len(),
                given: setting.len(),
            });
        }
        let mut out = Vec::with_capacity(setting.len());
        for (s, &v) in self.sliders.iter().zip(setting) {
            let v = grid_value(&s.name, v)?;
            if !s.values.contains(&v) {
                return Err(Error::OutOfRange {
                    what: "setting",
                    given: format!("{} {}", s.name, number(v)),
                    allowed: format!("one of the slider's values: {}", list(&s.values)),
                });
            }
            out.push(v);
        }
        Ok(out)
    }

    fn checked_point(&self, series: &str, setting: &[f64], x: XValue, y: f64, added: &[Point]) -> Result<Point> {
        if !y.is_finite() {
            return Err(Error::BadNumber {
                what: "measured value at",
                value: format!("{x}: {y}"),
                expected: "a finite number",
                hint: "give only values the crate measured",
            });
        }
        match (&x, self.kind) {
            (XValue::Name(n), ChartKind::Line) => {
                return Err(Error::OutOfRange {
                    what: "x of a line chart",
                    given: format!("{n:?}"),
                    allowed: "a number (or use Explorable::bars for names)".into(),
                })
            }
            (XValue::Number(v), _) if !v.is_finite() => {
                return Err(Error::BadNumber {
                    what: "x",
                    value: v.to_string(),
                    expected: "a finite number",
                    hint: "give the x of a computed point",
                })
            }
            _ => {}
        }
        // 0.0, never −0.0: a point's x is found by its bits in the chart's data.
        let x = match x {
            XValue::Number(v) => XValue::Number(v + 0.0),
            name => name,
        };
        // The first x of the chart, or of this row when it is the first.
        if let Some(first) = self.points.first().or(added.first()) {
            if std::mem::discriminant(&first.x) != std::mem::discriminant(&x) {
                return Err(Error::OutOfRange {
                    what: "x",
                    given: kind(&x),
                    allowed: format!("the same kind as the first x, the {}: all names or all numbers", kind(&first.x)),
                });
            }
        }
        let same = |p: &&Point| p.series == series && p.setting == setting && p.x == x;
        if let Some(p) = self.points.iter().chain(added).find(same) {
            return Err(Error::OutOfRange {
                what: "point given twice:",
                given: format!(
                    "{}{} at {}",
                    if series.is_empty() { String::new() } else { format!("{series} ") },
                    p.x,
                    self.describe(setting)
                ),
                allowed: "each x once per series and slider setting".into(),
            });
        }
        Ok(Point { setting: setting.to_vec(), series: series.to_string(), x, y })
    }

    /// The value at `setting`, in `series` ("" for a single series), at `x`:
    /// what the chart shows when the sliders are there. `None` if that point
    /// was not added.
    pub fn value<T: SliderValue>(&self, setting: &[T], series: &str, x: impl Into<XValue>) -> Option<f64> {
        let setting: Vec<f64> = setting.iter().map(|v| v.slider_value()).collect::<Option<_>>()?;
        let x = x.into();
        self.points.iter().find(|p| p.setting == setting && p.series == series && p.x == x).map(|p| p.y)
    }

    /// How many points (grid rows × x values) there are.
    pub fn points(&self) -> usize {
        self.points.len()
    }

    /// The title (the chart's, before the slider setting is added to it).
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The sliders' names and defaults, in order.
    pub fn defaults(&self) -> Vec<(&str, f64)> {
        self.sliders.iter().map(|s| (s.name.as_str(), s.default)).collect()
    }

    /// Checks the grid (see [`output`](Self::output)) and gives it back: end a
    /// cell with `ex.checked()?` to see a bad grid as the cell's error.
    pub fn checked(self) -> Result<Self> {
        self.output()?;
        Ok(self)
    }

    fn check_grid(&self) -> Result<()> {
        if self.sliders.is_empty() || self.points.is_empty() {
            return Err(Error::OutOfRange {
                what: "grid:",
                given: format!("{} slider(s), {} point(s)", self.sliders.len(), self.points.len()),
                allowed: "at least one .slider(…) and a .row(…) for each of its values".into(),
            });
        }
        // Every combination of slider values has a row (the sliders reach no empty chart).
        let have: BTreeSet<Vec<u64>> =
            self.points.iter().map(|p| p.setting.iter().map(|v| v.to_bits()).collect()).collect();
        let mut combo = vec![0usize; self.sliders.len()];
        loop {
            let setting: Vec<f64> = combo.iter().zip(&self.sliders).map(|(&i, s)| s.values[i]).collect();
            if !have.contains(&setting.iter().map(|v| v.to_bits()).collect::<Vec<_>>()) {
                return Err(Error::OutOfRange {
                    what: "grid: no row at",
                    given: self.describe(&setting),
                    allowed:
                        "a row for every combination of slider values (add it, or drop that value from the slider)"
                            .into(),
                });
            }
            let mut k = 0;
            while k < combo.len() {
                combo[k] += 1;
                if combo[k] < self.sliders[k].values.len() {
                    break;
                }
                combo[k] = 0;
                k += 1;
            }
            if k == combo.len() {
                return Ok(());
            }
        }
    }

    fn default_setting(&self) -> Vec<f64> {
        self.sliders.iter().map(|s| s.default).collect()
    }

    /// "vnodes = 150, nodes = 10".
    fn describe(&self, setting: &[f64]) -> String {
        let parts: Vec<String> =
            self.sliders.iter().zip(setting).map(|(s, v)| format!("{} = {}", s.name, number(*v))).collect();
        parts.join(", ")
    }

    /// The series in the order first added.
    fn series_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for p in &self.points {
            if !names.contains(&p.series.as_str()) {
                names.push(&p.series);
            }
        }
        names
    }

    fn default_points(&self) -> Vec<&Point> {
        let d = self.default_setting();
        self.points.iter().filter(|p| p.setting == d).collect()
    }
}

/// The first name `names` gives twice: the lines or bar groups a lab's
/// explorable draws for a caller's names must be told apart.
pub(crate) fn repeated<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut seen = std::collections::HashSet::new();
    names.into_iter().find(|n| !seen.insert(*n))
}

/// An x with its kind, for messages: `name "1"`, `number 1`.
fn kind(x: &XValue) -> String {
    match x {
        XValue::Name(n) => format!("name {n:?}"),
        XValue::Number(v) => format!("number {}", number(*v)),
    }
}

/// `v` as a value of slider `name`: a finite `f64`, and 0.0 for −0.0 (the two
/// are equal, but a row is found by its setting's bits).
fn grid_value<T: SliderValue>(name: &str, v: T) -> Result<f64> {
    v.slider_value().map(|v| v + 0.0).ok_or_else(|| Error::BadNumber {
        what: "slider value of",
        value: name.to_string(),
        expected: "a finite number that an f64 holds exactly (integers up to 2^53)",
        hint: "give the values the lab's parameter takes",
    })
}
