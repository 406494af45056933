//! Tables for secondary indexes: [`Rows`] (each attribute's values), a
//! [`LocalIndex`] or [`GlobalIndex`] per node, a global index's terms, and
//! what one [`IndexQuery`] or [`IndexWrite`] costs.
//!
//! ```
//! use reshard::analysis::{GlobalIndex, Rows};
//! use reshard::notebook::*;
//! let rows = Rows::new(&KeySet::new("item:", 8))?.with_attribute("colour", (0..8).map(|i| ["red", "blue"][i % 2]))?;
//! let by_key = KeyRanges::named(letters("AB"))?.with_boundaries(["item:4"])?;
//! let g = GlobalIndex::build(&rows, &by_key, &KeyRanges::named(letters("AB"))?.with_boundaries(["colour:red/item:4"])?)?;
//! assert!(g.terms_table().to_text().contains("cut by a boundary"), "{}", g.terms_table());
//! let q = g.query("colour", "red")?;
//! assert!(q.to_string().contains("postings"), "{q}");
//! assert!(g.insert("item:9", ["red"])?.to_string().contains("colour:red/item:9"));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::{GlobalIndex, IndexKind, IndexQuery, IndexWrite, LocalIndex, Rows, ShardRead};
use crate::present::ranges::{fill, with_note};
use crate::present::tables::{shows_as_table, Table};
use crate::present::{pct, thousands};
use crate::schemes::Placement;

/// Range indices as a cell: `0, 1, 2`, or `3 … 41 (12 ranges)` when long.
fn range_list(r: &[usize]) -> String {
    match r {
        [] => "–".into(),
        r if r.len() <= 6 => r.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "),
        r => format!("{} … {} ({} ranges)", r[0], r[r.len() - 1], thousands(r.len() as u64)),
    }
}

/// `1 node`, `3 nodes`.
fn count(n: usize, what: &str) -> String {
    format!("{} {what}{}", thousands(n as u64), if n == 1 { "" } else { "s" })
}

fn share(part: u64, all: u64) -> String {
    pct(part as f64 / all.max(1) as f64, 1)
}

impl Rows {
    /// Each attribute: its distinct values and the most common one.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("{} rows, {} indexed attributes", thousands(self.len() as u64), self.attributes().len()),
            ["attribute", "distinct values", "most common", "its rows"],
        );
        let terms = self.terms();
        for a in self.attributes() {
            let prefix = format!("{a}:");
            let mine: Vec<&(String, u64)> = terms.iter().filter(|(term, _)| term.starts_with(&prefix)).collect();
            let top = mine.iter().max_by(|x, y| x.1.cmp(&y.1).then(y.0.cmp(&x.0)));
            t.row([
                a.to_string(),
                thousands(mine.len() as u64),
                top.map_or(String::new(), |(term, _)| term[prefix.len()..].to_string()),
                top.map_or(String::new(), |(_, c)| thousands(*c)),
            ]);
        }
        t.note(format!("{} index entries (one per row and attribute)", thousands(self.entries())));
        t
    }
}
shows_as_table!(Rows);

impl LocalIndex {
    /// Per node: its ranges, rows and index entries.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("a local index over {}", self.layout().describe()),
            ["node", "ranges", "rows", "index entries", "share of entries"],
        );
        let (rows, entries) = (self.rows_per_node(), self.entries_per_node());
        let counts = self.layout().table().iter().fold(vec![0u64; self.nodes().len()], |mut c, &n| {
            c[n as usize] += 1;
            c
        });
        let all: u64 = entries.iter().sum();
        for (i, n) in self.nodes().iter().enumerate() {
            t.row([n.clone(), thousands(counts[i]), thousands(rows[i]), thousands(entries[i]), share(entries[i], all)]);
        }
        let owning = counts.iter().filter(|&&c| c > 0).count();
        t.note(format!(
            "each node indexes its own rows ({} attributes each): a query on an attribute asks the {owning} nodes \
             that own a range; an insert writes one node",
            self.rows().attributes().len()
        ));
        t
    }
}
shows_as_table!(LocalIndex);

impl GlobalIndex {
    /// Per node (of either layout): its rows and its postings.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("a global index: rows by {}, postings by key ranges of term/rowkey", self.layout().describe()),
            ["node", "rows", "share of rows", "postings", "share of postings"],
        );
        let (row_nodes, term_nodes) = (self.layout().nodes(), self.term_layout().nodes());
        let mut names: Vec<&String> = row_nodes.iter().collect();
        names.extend(term_nodes.iter().filter(|n| !row_nodes.contains(n)));
        let (rows, postings) = (self.rows_per_node(), self.postings_per_node());
        let (all_rows, all_postings): (u64, u64) = (rows.iter().sum(), postings.iter().sum());
        for n in names {
            let r = row_nodes.iter().position(|x| x == n).map(|i| rows[i]);
            let p = term_nodes.iter().position(|x| x == n).map(|i| postings[i]);
            t.row([
                n.clone(),
                r.map_or("–".into(), thousands),
                r.map_or("–".into(), |r| share(r, all_rows)),
                p.map_or("–".into(), thousands),
                p.map_or("–".into(), |p| share(p, all_postings)),
            ]);
        }
        let cut = self.terms().iter().filter(|t| t.ranges.len() > 1).count();
        t.note(format!(
            "{} postings of {} terms in {} ranges; {} terms cut by a boundary (a query on one reads two ranges or \
             more)",
            thousands(all_postings),
            thousands(self.rows().terms().len() as u64),
            thousands(self.term_layout().table().len() as u64),
            thousands(cut as u64)
        ));
        t
    }

    /// Each term: its postings, the ranges its interval meets and their
    /// nodes.
    pub fn terms_table(&self) -> Table {
        let mut t = Table::new("terms and where their postings lie", ["term", "postings", "ranges", "nodes", ""]);
        let terms = self.terms();
        let cut = fill(&mut t, terms.len(), "terms", 5, |i| {
            let x = &terms[i];
            vec![
                x.term.clone(),
                thousands(x.postings),
                range_list(&x.ranges),
                x.nodes.join(", "),
                if x.ranges.len() > 1 { "cut by a boundary".into() } else { String::new() },
            ]
        });
        with_note(t, vec![cut])
    }
}
shows_as_table!(GlobalIndex);

impl IndexQuery {
    /// Each step's shards, with the entries and rows each returns.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("{} = {} through {}", attribute(self.term()), value(self.term()), self.describe()),
            ["step", "node", "ranges", "index entries read", "rows returned"],
        );
        let first = match self.kind() {
            IndexKind::Local => "local lookup",
            IndexKind::Global => "postings",
        };
        let global = self.kind() == IndexKind::Global;
        let mut add = |step: &str, reads: &[ShardRead], entries: bool, rows: bool| {
            for r in reads {
                let cell = |on: bool, x: u64| if on { thousands(x) } else { "–".into() };
                t.row([
                    step.to_string(),
                    r.node.clone(),
                    range_list(&r.ranges),
                    cell(entries, r.entries),
                    cell(rows, r.rows),
                ]);
            }
        };
        add(first, self.index_step(), true, !global);
        add("fetch rows", self.fetch_step(), false, true);
        let (asked, of) = (self.index_step().len(), self.shards_total());
        let steps = match (global, self.fetch_step().is_empty()) {
            (false, _) => format!("one step to {asked} of {}", count(of, "node")),
            (true, true) => format!("postings from {asked} of {}, no row to fetch", count(of, "node")),
            (true, false) => format!(
                "postings from {asked} of {}, then rows from {}",
                count(of, "node"),
                count(self.fetch_step().len(), "node")
            ),
        };
        t.note(format!(
            "{steps}: {}; {} match",
            count(self.requests(), "request"),
            count(self.matches() as usize, "row")
        ));
        t
    }
}
shows_as_table!(IndexQuery);

fn attribute(term: &str) -> &str {
    term.split_once(':').map_or(term, |(a, _)| a)
}

fn value(term: &str) -> &str {
    term.split_once(':').map_or("", |(_, v)| v)
}

impl IndexWrite {
    /// Each shard written, with the row and the index entries written there.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("an insert of {} through a {}", self.key(), self.kind()),
            ["node", "row", "index entries written"],
        );
        for w in self.writes() {
            t.row([w.node.clone(), w.row.clone().unwrap_or_else(|| "–".into()), w.entries.join(", ")]);
        }
        let entries =
            if self.entries() == 1 { "1 index entry".to_string() } else { format!("{} index entries", self.entries()) };
        t.note(format!("{} written, {entries}", count(self.writes().len(), "node")));
        t
    }
}
shows_as_table!(IndexWrite);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{letters, KeyRanges, KeySet};

    #[test]
    fn local_tables_name_every_node() {
        let rows = Rows::new(&KeySet::new("k", 10)).unwrap().with_attribute("c", ["x"; 10]).unwrap();
        let l = LocalIndex::build(&rows, KeyRanges::named(letters("ABC")).unwrap().with_boundaries(["k5"]).unwrap())
            .unwrap();
        let text = l.to_string();
        assert!(text.contains("asks the 2 nodes that own a range"), "{text}");
        assert!(rows.to_string().contains("10 index entries"), "{rows}");
        let q = l.query("c", "x").unwrap().to_string();
        assert!(q.contains("c = x") && q.contains("2 requests; 10 rows match"), "{q}");
        let w = l.insert("k9x", ["y"]).unwrap().to_string();
        assert!(w.contains("1 node written, 1 index entry") && w.contains("c:y/k9x"), "{w}");
        assert_eq!(range_list(&(0..10).collect::<Vec<_>>()), "0 … 9 (10 ranges)");
    }
}
