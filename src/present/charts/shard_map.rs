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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_merge_runs_down_columns() {
        let cells = [Some(0), Some(0), Some(1), Some(0), Some(0), Some(1), Some(2), Some(2), None];
        assert_eq!(blocks(&cells, 3), vec![(0, 0, 2, 2, 0), (0, 2, 1, 2, 1), (2, 0, 2, 1, 2)]);
    }
}
