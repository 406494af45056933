//! The before/after map of shards (or Redis slots) to nodes.

use super::kit::*;
use super::*;

/// Builder for the before/after shard→node map. Create it with [`shard_map`].
#[derive(Clone, Debug)]
pub struct ShardMap {
    frame: Frame,
    before: Vec<usize>,
    after: Vec<usize>,
    names: Vec<String>,
    /// Shards given, when more than can be drawn (not copied).
    too_many: Option<usize>,
    /// Shards whose node differs, counted from the tables as given.
    moved: usize,
}

/// The shard→node table before and after a rebalance: `before[s]` and `after[s]` are the node
/// indices of shard `s`.
///
/// Shard 0 top left, row by row, coloured by node. Up to about 2,000 shards on up to 24 nodes
/// whose names fit a cell, two grids one above the other: before, with the moved shards
/// outlined, and after, with the moved shards black; every run of cells on one node carries the
/// node's name, so nodes are told apart in greyscale too (at the default size the figure grows
/// taller to make room; with [`size`](ShardMap::size) it must fit, else the next layout is
/// used). Otherwise three grids side by side: before and after coloured by node, and the moved
/// shards in black; where cells are large enough, moved shards are also outlined in the first
/// two grids and node names written in the cells. A caption gives the count, e.g. "90 of 1,000
/// shards moved (9.0%)"; missing entries count as moved. Runs of equal cells are drawn as one
/// rectangle, so 16,384 slots stay small.
///
/// At most [`MAX_SHARDS_DRAWN`] shards are drawn: a longer table is not copied, and the figure
/// says how long it was.
pub fn shard_map<S: AsRef<str>>(title: &str, before: &[usize], after: &[usize], node_names: &[S]) -> ShardMap {
    let n = before.len().max(after.len());
    let fits = n <= MAX_SHARDS_DRAWN;
    ShardMap {
        frame: Frame::new(title),
        before: if fits { before.to_vec() } else { Vec::new() },
        after: if fits { after.to_vec() } else { Vec::new() },
        names: node_names
            .iter()
            .take(usize::try_from(crate::limits::current().max_nodes).unwrap_or(usize::MAX).saturating_add(1))
            .map(|s| s.as_ref().to_string())
            .collect(),
        too_many: (!fits).then_some(n),
        moved: (0..n).filter(|&i| before.get(i) != after.get(i)).count(),
    }
}

/// The most shards a [`shard_map`] draws.
pub const MAX_SHARDS_DRAWN: usize = 100_000;

builder_common!(ShardMap);

type Block<T> = (usize, usize, usize, usize, T);

/// Rectangles `(row, col, width, height, value)` covering the cells (row-major, `cols` wide)
/// that hold a value: runs along a row, merged with the same run in the rows below.
fn blocks<T: Copy + PartialEq>(cells: &[Option<T>], cols: usize) -> Vec<Block<T>> {
    let (mut out, mut open): (Vec<Block<T>>, Vec<usize>) = (Vec::new(), Vec::new());
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

/// The size of node names written in the cells of the labelled layout.
const NAME_PX: f64 = 9.0;
/// A tall run of cells on one node carries its name once every this many rows.
const LABEL_EVERY: usize = 5;

/// The labelled layout of [`shard_map`]: cell size in pixels, columns, rows, figure height.
#[derive(Clone, Copy, Debug)]
struct Labelled {
    cell: f64,
    cols: usize,
    rows: usize,
    height: u32,
}

/// Text on a node's fill: black on light colours, white on dark ones and on black.
fn ink_on(fill: RGBColor) -> RGBColor {
    let RGBColor(r, g, b) = fill;
    let luma = 0.299 * f64::from(r) + 0.587 * f64::from(g) + 0.114 * f64::from(b);
    if luma > 135.0 {
        BLACK
    } else {
        WHITE
    }
}

/// How many rows the legend strip takes at width `w` (as [`with_legend`] lays it out).
fn legend_rows(items: &Legend, w: f64) -> usize {
    let (mut rows, mut used) = (0, f64::INFINITY);
    for (_, label) in items {
        let key_w = 52.0 + text_w(label, 12.0);
        if used + key_w > w - 24.0 {
            (rows, used) = (rows + 1, 0.0);
        }
        used += key_w;
    }
    rows
}

impl ShardMap {
    /// The labelled layout, when the names fit and the figure can hold two grids of them.
    fn labelled(&self, n: usize, nodes: &[usize], legend: &Legend) -> Option<Labelled> {
        if n <= 48 || n > 2_000 || nodes.len() > 24 {
            return None;
        }
        let widest = nodes.iter().map(|&i| text_w(&node_name(&self.names, i), NAME_PX)).fold(0.0, f64::max);
        let cell = (widest + 2.0).max(12.0);
        let w = f64::from(self.frame.width);
        let mut cols = ((w - 24.0) / cell).floor() as usize;
        // A multiple of the node count before, so a table laid out s % N reads in stripes.
        let mut before: Vec<usize> = self.before.clone();
        before.sort_unstable();
        before.dedup();
        let k = before.len();
        if k >= 2 && cols >= k {
            cols -= cols % k;
        }
        if cols == 0 {
            return None;
        }
        let rows = n.div_ceil(cols);
        let top = if self.frame.subtitle.is_some() { 57.0 } else { 37.0 };
        let legend_h = legend_rows(legend, w) as f64 * 20.0 + 6.0;
        let need = top + legend_h + 2.0 * (24.0 + rows as f64 * cell) + 56.0;
        let default = (self.frame.width, self.frame.height) == (DEFAULT_WIDTH, DEFAULT_HEIGHT);
        let height = if default { need.ceil().max(f64::from(DEFAULT_HEIGHT)) } else { f64::from(self.frame.height) };
        (need <= height && height <= 2_000.0).then_some(Labelled { cell, cols, rows, height: height as u32 })
    }

    /// Two grids, before above after, each run of cells on one node named.
    fn build_labelled(&self, lay: Labelled, moved: &[bool], legend: &Legend) -> Figure {
        let n = moved.len();
        let frame = Frame { height: lay.height, ..self.frame.clone() };
        render(&frame, |a| {
            let a = with_legend(a, legend)?;
            let (cell, cols) = (lay.cell, lay.cols);
            let (gw, gh) = (cell * cols as f64, cell * lay.rows as f64);
            let x0 = ((f64::from(a.dim_in_pixel().0) - gw) / 2.0).round();
            let xy = |i: usize, y0: f64| (x0 + (i % cols) as f64 * cell, y0 + (i / cols) as f64 * cell);
            let mut y0 = 24.0;
            for (p, label) in ["before", "after"].into_iter().enumerate() {
                let table = if p == 0 { &self.before } else { &self.after };
                // (node, drawn black): in after, a moved shard is black
                let cells: Vec<Option<(usize, bool)>> =
                    (0..n).map(|i| table.get(i).map(|&v| (v, p == 1 && moved[i]))).collect();
                text(&a, label, (x0, y0 - 5.0), bold(12.5, Left, Bottom))?;
                rect(&a, (x0, y0), (x0 + gw, y0 + gh), RGBColor(0xF2, 0xF2, 0xF2))?;
                let spans = blocks(&cells, cols);
                for &(r, c, bw, bh, (v, black)) in &spans {
                    let (x, y) = xy(r * cols + c, y0);
                    let fill = if black { BLACK } else { color(v) };
                    rect(&a, (x, y), (x + bw as f64 * cell, y + bh as f64 * cell), fill)?;
                }
                for i in 0..=lay.rows {
                    path(&a, &[(x0, y0 + i as f64 * cell), (x0 + gw, y0 + i as f64 * cell)], WHITE.into())?;
                }
                for i in 0..=cols {
                    path(&a, &[(x0 + i as f64 * cell, y0), (x0 + i as f64 * cell, y0 + gh)], WHITE.into())?;
                }
                for i in (0..n).filter(|&i| p == 0 && moved[i]) {
                    let (x, y) = xy(i, y0);
                    outline(&a, (x + 1.5, y + 1.5), (x + cell - 1.5, y + cell - 1.5), BLACK.stroke_width(3))?;
                    outline(&a, (x + 3.5, y + 3.5), (x + cell - 3.5, y + cell - 3.5), WHITE.stroke_width(1))?;
                }
                for &(r, c, bw, bh, (v, black)) in &spans {
                    let name = node_name(&self.names, v);
                    if text_w(&name, NAME_PX) > bw as f64 * cell - 1.0 || cell < NAME_PX + 2.0 {
                        continue;
                    }
                    let ink = ink_on(if black { BLACK } else { color(v) });
                    // The name in the middle column, once every LABEL_EVERY rows of a tall block,
                    // never on an outlined cell.
                    let mid = c + bw / 2;
                    let (x, _) = xy(r * cols + c, y0);
                    let rows = (0..bh).filter(|k| bh < LABEL_EVERY || k % LABEL_EVERY == LABEL_EVERY / 2);
                    for k in rows.map(|k| if bh < LABEL_EVERY { bh / 2 } else { k } + r) {
                        let i = k * cols + mid;
                        if i < n && !(p == 0 && moved[i]) {
                            let (cx, cy) = (x + bw as f64 * cell / 2.0, xy(i, y0).1 + cell / 2.0);
                            text(&a, name.as_str(), (cx, cy), font(NAME_PX, Mid, Center).color(&ink))?;
                        }
                        if bh < LABEL_EVERY {
                            break;
                        }
                    }
                }
                y0 += gh + 30.0;
            }
            let y = y0 - 22.0;
            let note = format!("{cols} × {} grid, shard 0 at top left, row by row", lay.rows);
            text(&a, note, (x0 + gw / 2.0, y), font(TICK, Mid, Top).color(&MUTED))?;
            let count = moved.iter().filter(|&&m| m).count();
            let pct = count as f64 * 100.0 / n as f64;
            let cap = format!("{} of {} shards moved ({pct:.1}%)", thousands(count as u64), thousands(n as u64));
            text(&a, cap, (x0 + gw / 2.0, y + 18.0), bold(12.5, Mid, Top))
        })
    }

    /// Number of shards whose node differs between `before` and `after`.
    pub fn moved(&self) -> usize {
        self.moved
    }

    /// Renders the map.
    pub fn build(&self) -> Figure {
        let n = self.too_many.unwrap_or(self.before.len().max(self.after.len()));
        if n == 0 || n > MAX_SHARDS_DRAWN {
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
        let mut named = legend.clone();
        named.push((Key::Fill(BLACK), "moved: black in after, outlined in before".into()));
        if let Some(lay) = self.labelled(n, &nodes, &named) {
            return self.build_labelled(lay, &moved, &named);
        }
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
                // Cells too small for names: each node's name in its largest block, so the
                // grids read without colour (a greyscale print).
                if p < 2 && cell < 20.0 {
                    let mut largest: Vec<(usize, (usize, usize, usize, usize))> = Vec::new();
                    for (r, c, bw, bh, v) in blocks(cells, cols).into_iter().filter(|b| b.4 != usize::MAX) {
                        match largest.iter_mut().find(|e| e.0 == v) {
                            Some(e) if e.1 .2 * e.1 .3 >= bw * bh => {}
                            Some(e) => e.1 = (r, c, bw, bh),
                            None => largest.push((v, (r, c, bw, bh))),
                        }
                    }
                    for (v, (r, c, bw, bh)) in largest {
                        let name = node_name(&self.names, v);
                        let (bx, by) = (bw as f64 * cell, bh as f64 * cell);
                        if text_w(&name, 12.0) <= bx - 6.0 && by >= 16.0 {
                            let (x, y) = xy(r * cols + c);
                            let at = (x + bx / 2.0, y + by / 2.0);
                            text(&a, name, at, bold(12.0, Mid, Center).color(&ink_on(color(v))))?;
                        }
                    }
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
                        let ink = v.map_or(WHITE, |v| ink_on(color(v)));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Shard `s` on node `s % 10`, then nine shards of each old node (the last nine of each
    /// hundred) on node 10.
    fn ten_to_eleven() -> (Vec<usize>, Vec<usize>) {
        let before: Vec<usize> = (0..1000).map(|s| s % 10).collect();
        let after = before.iter().enumerate().map(|(s, &n)| if s >= 910 { 10 } else { n }).collect();
        (before, after)
    }

    /// How many cell labels (9 px text) read `name`, in `fill`.
    fn labels(svg: &str, name: &str, fill: &str) -> usize {
        svg.matches(&format!("font-size=\"9\" opacity=\"1\" fill=\"{fill}\">\n{name}\n</text>")).count()
    }

    #[test]
    fn a_thousand_shards_on_eleven_named_nodes_carry_their_names() {
        let (before, after) = ten_to_eleven();
        let names: Vec<String> = (0..11).map(|i| i.to_string()).collect();
        let fig = shard_map("m", &before, &after, &names).build();
        let svg = fig.svg();
        assert!(svg.contains("black in after, outlined in before") && svg.contains("90 of 1,000 shards moved"));
        // grown taller than the default to hold two labelled grids
        assert!(fig.dimensions().1 > DEFAULT_HEIGHT, "{:?}", fig.dimensions());
        // 50 columns (a multiple of 10), so each column is one node before; 20 rows
        assert!(svg.contains("50 × 20 grid"), "no 50 × 20 grid");
        // the 90 moved shards, s = 910 … 999: a run of 40 on row 18 (from column 10) and one of 50
        // on row 19, each named once in white on black
        assert_eq!(labels(svg, "10", "#FFFFFF"), 2);
        for name in &names[..10] {
            let dark = labels(svg, name, "#FFFFFF") + labels(svg, name, "#000000");
            assert!(dark >= 2, "node {name} is named {dark} times");
        }
        let few = shard_map("m", &before, &after, &names).size(720, 500).build();
        assert!(few.svg().contains("black on the right"), "too small for names: the three grids");
    }

    #[test]
    fn sixteen_thousand_slots_name_each_node_in_its_largest_block() {
        // Redis Cluster's 16,384 slots: A, B, C in thirds, then 1,365/1,366/1,365 to D (the
        // lowest-numbered of each), as lab 06 draws them: cells far too small for names.
        let before: Vec<usize> =
            (0..16_384).map(|s| [5461, 10923, 16384].iter().position(|&e| s < e).unwrap_or(2)).collect();
        let after: Vec<usize> = (0..16_384)
            .map(|s| {
                if s < 1365 || (5461..5461 + 1366).contains(&s) || (10923..10923 + 1365).contains(&s) {
                    3
                } else {
                    before[s]
                }
            })
            .collect();
        let fig = shard_map("m", &before, &after, &["A", "B", "C", "D"]).build();
        let svg = fig.svg();
        let named = |n: &str| svg.matches(&format!(">\n{n}\n</text>")).count();
        // each of A, B and C: once in before, once in after, once in the legend; D: after, legend
        for (n, times) in [("A", 3), ("B", 3), ("C", 3), ("D", 2)] {
            assert_eq!(named(n), times, "{n}");
        }
    }

    #[test]
    fn blocks_merge_runs_down_columns() {
        let cells = [Some(0), Some(0), Some(1), Some(0), Some(0), Some(1), Some(2), Some(2), None];
        assert_eq!(blocks(&cells, 3), vec![(0, 0, 2, 2, 0), (0, 2, 1, 2, 1), (2, 0, 2, 1, 2)]);
    }
}
