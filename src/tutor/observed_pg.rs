//! Live PostgreSQL nodes beside the crate's prediction of them, as
//! [`Checks`] whose reference column is "predicted": where every row is,
//! which nodes a query touches, and a growing table's splits and moves
//! ([`PgShards`](crate::live::PgShards)).
//!
//! ```
//! use reshard::tutor::Checks;
//! use reshard::prelude::*;
//! let keys = KeySet::new("k", 4);
//! let ranges = KeyRanges::named(letters("AB"))?.with_boundaries(["k2"])?;
//! // what a cluster would report if it did as predicted: k0, k1 on A, k2, k3 on B
//! let seen: Vec<(String, String)> =
//!     [("k0", "A"), ("k1", "A"), ("k2", "B"), ("k3", "B")].map(|(k, s)| (k.to_string(), s.to_string())).to_vec();
//! assert!(Checks::rows_placed("rows", &ranges, &keys, &seen)?.all_match());
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::{Boundary, IndexQuery, RangeGrowth, RangeQuery};
use crate::keys::KeySet;
use crate::live::{Bound, Plan, Replayed, Step};
use crate::schemes::{Key, Locate};
use crate::tutor::check::{Check, Checks};
use crate::{HashWidth, Result};

impl Checks {
    /// Every row where `layout` puts it, beside where the nodes hold it
    /// (`observed`: each key and its node, as
    /// [`PgShards::node_of_each`](crate::live::PgShards::node_of_each) reads
    /// them): rows per node, then every row on its predicted node, the
    /// first that is not named. A key the nodes hold that is not in `keys`,
    /// or one they lack, counts as misplaced.
    pub fn rows_placed<P: Locate>(
        title: impl Into<String>,
        layout: &P,
        keys: &KeySet,
        observed: &[(String, String)],
    ) -> Result<Checks> {
        crate::limits::check_hint(
            "rows compared (keys)",
            keys.len() as u128,
            crate::live::MAX_LIVE_KEYS as u128,
            "compare fewer keys (the rows a PostgreSQL table holds)",
        )?;
        // each key as its own bytes (PostgreSQL holds their text), not its escaped display
        let mut w = keys.writer();
        let mut predicted: Vec<(String, String)> = (0..keys.len())
            .map(|i| {
                let k = w.key(i);
                (String::from_utf8_lossy(k).into_owned(), layout.owner(Key::new(k, HashWidth::Bits32)).to_string())
            })
            .collect();
        predicted.sort();
        predicted.dedup();
        let mut c = Checks::predicted(title);
        for n in layout.nodes() {
            let want = predicted.iter().filter(|(_, s)| s == n).count() as u64;
            let got = observed.iter().filter(|(_, s)| s == n).count() as u64;
            c.push(Check::count(format!("rows on {n}"), want, got));
        }
        let seen: std::collections::BTreeMap<&str, &str> =
            observed.iter().map(|(k, s)| (k.as_str(), s.as_str())).collect();
        let mut rows: Vec<(String, String, String)> = predicted
            .iter()
            .map(|(k, s)| {
                (format!("{k:?}"), s.clone(), seen.get(k.as_str()).map_or("nowhere".into(), |o| o.to_string()))
            })
            .collect();
        let known: std::collections::BTreeSet<&str> = predicted.iter().map(|(k, _)| k.as_str()).collect();
        rows.extend(
            observed
                .iter()
                .filter(|(k, _)| !known.contains(k.as_str()))
                .map(|(k, s)| (format!("{k:?}"), "nowhere (not a key of the set)".to_string(), s.clone())),
        );
        c.push(Check::placements("rows on their predicted node", rows));
        Ok(c)
    }

    /// The nodes a query touches: the crate's [`RangeQuery`] (the nodes a
    /// router must ask) beside the partitions PostgreSQL's plan scans.
    pub fn query_nodes(title: impl Into<String>, predicted: &RangeQuery, plan: &Plan) -> Checks {
        let names = predicted.nodes();
        let want: Vec<String> = predicted.nodes_routed().iter().map(|&n| names[n as usize].clone()).collect();
        let got = plan.nodes(names);
        let mut c = Checks::predicted(title);
        c.push(Check::count("nodes asked", want.len() as u64, got.len() as u64));
        c.push(Check::new("which", want.join(", "), got.join(", ")));
        c
    }

    /// The nodes an index lookup asks first (the [`IndexQuery`]'s index
    /// step: every node under a local index, the term's postings nodes
    /// under a global one) beside the nodes PostgreSQL's plan scans, of
    /// `all` the nodes.
    pub fn index_nodes<S: AsRef<str>>(
        title: impl Into<String>,
        predicted: &IndexQuery,
        plan: &Plan,
        all: &[S],
    ) -> Checks {
        let all: Vec<String> = all.iter().map(|s| s.as_ref().to_string()).collect();
        let want: Vec<&str> = predicted.index_step().iter().map(|s| s.node.as_str()).collect();
        let got = plan.nodes(&all);
        let mut c = Checks::predicted(title);
        c.push(Check::count("nodes asked", want.len() as u64, got.len() as u64));
        c.push(Check::new("which", want.join(", "), got.join(", ")));
        c
    }

    /// A [`RangeGrowth`] run beside its replay on the live nodes
    /// ([`PgShards::replay`](crate::live::PgShards::replay)): the splits,
    /// each split's rows and median key, the moves and the rows they moved,
    /// then the rows of every range and of every node at the end.
    pub fn replayed(title: impl Into<String>, growth: &RangeGrowth, seen: &Replayed) -> Checks {
        let mut c = Checks::predicted(title);
        let splits: Vec<&Step> = seen.splits().collect();
        c.push(Check::count("splits", growth.splits().len() as u64, splits.len() as u64));
        let points = growth.splits().iter().zip(&splits).map(|(want, got)| {
            let Step::Split { rows, at, .. } = got else { unreachable!("splits() holds splits") };
            let shown = match at {
                Bound::Text(t) => format!("{t:?}"),
                Bound::Int(h) => crate::present::thousands(*h as u64),
                b => b.to_string(),
            };
            let same = match (&want.boundary, at) {
                (Boundary::Key(k), Bound::Text(t)) => k == t.as_bytes(),
                (Boundary::Hash(h), Bound::Int(i)) => u128::try_from(*i).is_ok_and(|i| i == *h),
                _ => false,
            };
            let predicted = format!("{} rows, median {}", want.left_rows + want.right_rows, want.boundary);
            let observed = if same && *rows == want.left_rows + want.right_rows {
                predicted.clone()
            } else {
                format!("{rows} rows, median {shown}")
            };
            (format!("arrival {}", want.arrival), predicted, observed)
        });
        c.push(Check::placements("splits at the predicted median, with the predicted rows", points));
        let moved: Vec<u64> = seen.moves().map(|m| if let Step::Move { moved, .. } = m { *moved } else { 0 }).collect();
        c.push(Check::count("balancing moves", growth.moves().len() as u64, moved.len() as u64));
        c.push(Check::count("rows moved by the balancer", growth.rows_moved(), moved.iter().sum()));
        let ranges = growth.ranges().iter().zip(&seen.partitions).map(|(r, (p, n))| {
            let node = &growth.nodes()[r.owner as usize];
            (format!("range {}", r.index), format!("{} rows on {node}", r.rows), format!("{n} rows on {}", p.node))
        });
        c.push(Check::placements("ranges with the predicted rows, on the predicted node", ranges));
        for (i, n) in growth.nodes().iter().enumerate() {
            let got = seen.rows_per_node.iter().find(|(s, _)| s == n).map_or(0, |(_, r)| *r);
            c.push(Check::count(format!("rows on {n}"), growth.rows_per_node()[i], got));
        }
        c
    }

    /// Counts per node, predicted beside observed: one row each, labelled
    /// `"{unit} on {node}"`.
    pub fn per_node<S: AsRef<str>>(
        title: impl Into<String>,
        unit: &str,
        nodes: &[S],
        predicted: &[u64],
        observed: &[(String, u64)],
    ) -> Checks {
        let mut c = Checks::predicted(title);
        for (i, s) in nodes.iter().enumerate() {
            let got = observed.iter().find(|(n, _)| n == s.as_ref()).map_or(0, |(_, v)| *v);
            c.push(Check::count(format!("{unit} on {}", s.as_ref()), predicted.get(i).copied().unwrap_or(0), got));
        }
        c
    }
}
