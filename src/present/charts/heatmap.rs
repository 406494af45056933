//! Heatmaps of a count matrix (e.g. keys from old node to new node).

use super::kit::*;
use super::*;

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
    /// Rows × columns of a matrix too large to draw (not copied).
    too_large: Option<(usize, usize)>,
}

/// The most cells a heatmap draws (200 × 200): a larger matrix is not
/// copied, and the figure says how large it was.
pub const MAX_CELLS: usize = 40_000;

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
    let nr = matrix.len().max(row_labels.len());
    let nc = matrix.iter().map(Vec::len).max().unwrap_or(0).max(col_labels.len());
    let too_large = (nr.saturating_mul(nc) > MAX_CELLS).then_some((nr, nc));
    let fits = too_large.is_none();
    Heatmap {
        frame: Frame::new(title),
        rows: row_labels.iter().filter(|_| fits).map(|s| s.as_ref().to_string()).collect(),
        cols: col_labels.iter().filter(|_| fits).map(|s| s.as_ref().to_string()).collect(),
        matrix: if fits { matrix.to_vec() } else { Vec::new() },
        labels: [x_label.to_string(), y_label.to_string()],
        scale: Scale::Sqrt,
        diagonal: false,
        unit: "count".to_string(),
        too_large,
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
        if let Some((nr, nc)) = self.too_large {
            let why = format!(
                "a {}×{} matrix has more than {} cells to draw: draw fewer nodes",
                thousands(nr as u64),
                thousands(nc as u64),
                thousands(MAX_CELLS as u64)
            );
            return no_data(&self.frame, &why);
        }
        let nr = self.matrix.len().max(self.rows.len());
        let nc = self.matrix.iter().map(Vec::len).max().unwrap_or(0).max(self.cols.len());
        if nr == 0 || nc == 0 {
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
