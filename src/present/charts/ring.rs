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
    /// Points (or keys) given over the limit, not kept: the figure says so.
    over: Option<(&'static str, usize, u128)>,
}

/// The most arcs drawn one by one; a ring with more points is drawn as
/// [`SECTORS`] sectors, each in the colour of the node that owns most of
/// it, and the figure says so (its shares stay exact).
pub const MAX_ARCS: usize = 4_000;
/// Sectors of a ring with more than [`MAX_ARCS`] points (0.5° each).
pub const SECTORS: usize = 720;

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
///
/// More than [`MAX_ARCS`] points are drawn as [`SECTORS`] sectors, each in the colour of the
/// node owning most of it (the legend says so, and its shares stay exact). More points than
/// [`Limits::max_ring_points`](crate::limits::Limits::max_ring_points), or more keys than
/// [`Limits::max_keys`](crate::limits::Limits::max_keys), are not copied: the figure says
/// which limit they are over.
pub fn ring_diagram<S: AsRef<str>>(
    title: &str,
    points: &[(f64, usize)],
    node_names: &[S],
    keys: Option<&[f64]>,
) -> RingDiagram {
    let limits = crate::limits::current();
    let over = if points.len() as u128 > limits.max_ring_points {
        Some(("points", points.len(), limits.max_ring_points))
    } else if keys.is_some_and(|k| k.len() as u128 > limits.max_keys) {
        Some(("keys", keys.map_or(0, <[f64]>::len), limits.max_keys))
    } else {
        None
    };
    let (points, keys) = if over.is_some() { (&[][..], None) } else { (points, keys) };
    RingDiagram {
        frame: Frame::new(title),
        points: points.iter().filter(|p| p.0.is_finite()).map(|&(p, n)| (p.rem_euclid(1.0) % 1.0, n)).collect(),
        names: node_names
            .iter()
            .take(usize::try_from(crate::limits::current().max_nodes).unwrap_or(usize::MAX).saturating_add(1))
            .map(|s| s.as_ref().to_string())
            .collect(),
        keys: keys.map(|k| k.iter().filter(|k| k.is_finite()).map(|k| k.rem_euclid(1.0) % 1.0).collect()),
        label_points: None,
        over,
    }
}

/// The node owning most of each of `sectors` equal sectors of the ring
/// whose arcs end at the sorted points `pts` (arc `i` from point `i − 1`,
/// exclusive, to point `i`; arc 0 wraps past 1), as slots of `slot`.
fn sector_owners(pts: &[(f64, usize)], sectors: usize, slot: impl Fn(usize) -> usize, nodes: usize) -> Vec<usize> {
    let m = pts.len();
    // the arcs as pieces (lo, hi, node) from 0 to 1, arc 0 in two
    let pieces = std::iter::once((0.0, pts[0].0, pts[0].1))
        .chain((1..m).map(|i| (pts[i - 1].0, pts[i].0, pts[i].1)))
        .chain(std::iter::once((pts[m - 1].0, 1.0, pts[0].1)));
    let mut owned = vec![0.0f64; nodes];
    let mut touched: Vec<usize> = Vec::new();
    let mut out = Vec::with_capacity(sectors);
    let width = 1.0 / sectors as f64;
    let close = |owned: &mut Vec<f64>, touched: &mut Vec<usize>, out: &mut Vec<usize>| {
        let best = touched.iter().copied().max_by(|&a, &b| owned[a].total_cmp(&owned[b]).then(b.cmp(&a)));
        out.push(best.unwrap_or_else(|| out.last().copied().unwrap_or(0)));
        touched.iter().for_each(|&t| owned[t] = 0.0);
        touched.clear();
    };
    for (mut lo, hi, node) in pieces {
        let k = slot(node);
        while lo < hi && out.len() < sectors {
            let end = (out.len() + 1) as f64 * width;
            let piece = hi.min(end) - lo;
            if piece > 0.0 {
                if owned[k] == 0.0 {
                    touched.push(k);
                }
                owned[k] += piece;
            }
            if hi < end {
                break;
            }
            lo = end;
            close(&mut owned, &mut touched, &mut out);
        }
    }
    while out.len() < sectors {
        close(&mut owned, &mut touched, &mut out);
    }
    out
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
        if let Some((what, given, limit)) = self.over {
            let why = format!(
                "{} {what} is over this crate's limit of {}: draw fewer",
                thousands(given as u64),
                crate::numbers::grouped(limit)
            );
            return no_data(&self.frame, &why);
        }
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
        // Too many arcs to draw one by one: each sector in its largest owner's colour.
        let sectors = (m > MAX_ARCS).then(|| sector_owners(&pts, SECTORS, slot, nodes.len()));
        if sectors.is_some() {
            notes.push(format!("{} points: drawn as {SECTORS} sectors", thousands(m as u64)));
            notes.push(format!("of {}°, each in the colour of the", 360.0 / SECTORS as f64));
            notes.push("node owning most of it (shares exact).".into());
        }
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
            let band = |s: f64, e: f64, fill: RGBColor| {
                let steps = ((e - s) * 180.0).ceil() as usize;
                let arc = |rad: f64| (0..=steps).map(move |j| px(rad, s + (e - s) * j as f64 / steps as f64));
                let poly: Vec<(i32, i32)> = arc(r_out).chain(arc(r_in).rev()).collect();
                a.draw(&Polygon::new(poly, fill.filled()))
            };
            match &sectors {
                None => {
                    for (i, &(e, n)) in pts.iter().enumerate().filter(|&(i, p)| p.0 > start(i)) {
                        band(start(i), e, color(slot(n)))?;
                        if m <= 60 {
                            path(a, &[at(r_in, e), at(r_out, e)], WHITE.into())?;
                        }
                    }
                }
                Some(owners) => {
                    // runs of sectors of one owner, each one band
                    let mut first = 0;
                    for k in 1..=owners.len() {
                        if k == owners.len() || owners[k] != owners[first] {
                            band(first as f64 / SECTORS as f64, k as f64 / SECTORS as f64, color(owners[first]))?;
                            first = k;
                        }
                    }
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
    fn a_ring_of_many_points_is_drawn_in_sectors_and_says_so() {
        // 100,000 points, nodes 0 and 1 alternating in runs of 1,000: half
        // the ring each, drawn in 720 sectors instead of 100,000 arcs
        let pts: Vec<(f64, usize)> = (0..100_000).map(|i| (i as f64 / 100_000.0, (i / 1000) % 2)).collect();
        let svg = ring_diagram("r", &pts, &["A", "B"], None).build().svg().to_string();
        assert!(svg.len() < 100_000, "{} bytes", svg.len());
        assert!(svg.contains("100,000 points: drawn as 720 sectors") && svg.contains("(shares exact)"), "{svg}");
        assert!(svg.contains("A: 50.0% of ring, 50,000 points"), "{svg}");
        let polygons = svg.matches("<polygon").count();
        assert!((100..=102).contains(&polygons), "a band per run of 1,000 points (and legend marks): {polygons}");
        let owners = sector_owners(&pts, 720, |n| n, 2);
        assert_eq!((owners[0], owners[8], owners[719]), (0, 1, 1), "{:?}", &owners[..20]);
        // few points: arcs one by one, no note
        let few: Vec<(f64, usize)> = (0..8).map(|i| (i as f64 / 8.0, i % 2)).collect();
        assert!(!ring_diagram("r", &few, &["A", "B"], None).build().svg().contains("sectors"));
        // over the limit: not copied, and said
        let over = crate::limits::current().max_ring_points as usize + 1;
        let big = vec![(0.5, 0usize); over];
        let fig = ring_diagram("r", &big, &["A"], None).build();
        assert!(fig.svg().contains("over this crate&apos;s limit") || fig.svg().contains("over this crate's limit"));
    }

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
