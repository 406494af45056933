//! The hash ring drawn as a circle: node arcs, points and keys.

use super::kit::*;
use super::*;

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
/// node and is drawn as a band inside the circle; the legend gives each node's share of the
/// ring and its points. The keys are drawn as a sample (the legend says so): a node's load is
/// its share of the ring, not a count of a few hundred dots.
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
        let (mut share, mut count) = (vec![0.0; nodes.len()], vec![0; nodes.len()]);
        for (i, p) in pts.iter().enumerate() {
            (share[slot(p.1)], count[slot(p.1)]) = (share[slot(p.1)] + p.0 - start(i), count[slot(p.1)] + 1);
        }
        let plural = |n: usize, what: &str| format!("{} {what}{}", thousands(n as u64), if n == 1 { "" } else { "s" });
        let lines: Vec<String> = (0..nodes.len())
            .map(|i| {
                format!(
                    "{}: {:.1}% of ring, {}",
                    node_name(&self.names, nodes[i]),
                    share[i] * 100.0,
                    plural(count[i], "point")
                )
            })
            .collect();
        let mut notes = vec!["A key belongs to the first point".to_string(), "at or after it, going clockwise.".into()];
        if let Some(k) = self.keys.as_ref().filter(|k| !k.is_empty()) {
            notes.push(format!("Dots: a sample of {}, drawn", plural(k.len(), "key")));
            notes.push("to show the rule, not the load.".into());
        }
        render(&self.frame, |a| {
            let (w, h) = (f64::from(a.dim_in_pixel().0), f64::from(a.dim_in_pixel().1));
            let shown = nodes.len().min(((h - 60.0) / 22.0).max(1.0) as usize);
            let texts =
                lines.iter().take(shown).map(|s| text_w(s, 12.0) + 40.0).chain(notes.iter().map(|s| text_w(s, TICK)));
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
                text(a, note.as_str(), (lx, y + 15.0 * i as f64), left(TICK).color(&MUTED))?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_gives_ring_shares_and_calls_the_dots_a_sample() {
        let pts: Vec<(f64, usize)> = (0..8).map(|i| (i as f64 / 8.0, i % 2)).collect();
        let keys: Vec<f64> = (0..300).map(|i| (i as f64 * 0.618) % 1.0).collect();
        let svg = ring_diagram("r", &pts, &["A", "B"], Some(&keys)).build().svg().to_string();
        assert!(svg.contains("A: 50.0% of ring, 4 points"), "{svg}");
        assert!(svg.contains("Dots: a sample of 300 keys, drawn"), "{svg}");
        assert!(!svg.contains("points, "), "no key count per node in the legend");
        let bare = ring_diagram("r", &pts, &["A", "B"], None).build().svg().to_string();
        assert!(!bare.contains("Dots:"));
    }
}
