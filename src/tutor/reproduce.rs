//! Every figure the three source documents print, computed here and set
//! beside the document's value.
//!
//! Used by `reshard reproduce`, by the tests and by the benchmark; the
//! notebooks compute the same figures step by step.
//!
//! ```
//! let checks = reshard::tutor::reproduce::doc_002().unwrap();
//! assert!(checks.all_match(), "{checks}");
//! ```

use crate::analysis::{ArrangementSweep, LoadReport, ModuloSweep, Movement};
use crate::schemes::{letters, prefixed, FixedShards, Modulo, Placement, Rendezvous, Ring};
use crate::tutor::{Check, Checks};
use crate::{HashWidth, HashedKeys, KeySet, Result};

/// The key set a document hashes (by the number of its file).
fn keys_of(doc: &str) -> Result<HashedKeys> {
    match doc {
        "000" => KeySet::users(100_000).hashed(HashWidth::Bits32),
        "002" => KeySet::plain(200_000).hashed(HashWidth::Bits128),
        "004" => KeySet::plain(1_000_000).hashed(HashWidth::Bits128),
        other => Err(no_such_document(other)),
    }
}

fn no_such_document(doc: &str) -> crate::Error {
    crate::Error::UnknownName { what: "document", given: doc.to_string(), choices: "000, 002 or 004".into() }
}

/// The documents, by the number of their file.
pub const DOCUMENTS: [&str; 3] = ["000", "002", "004"];

/// The title of a document as it gives it.
pub fn title(doc: &str) -> &'static str {
    match doc {
        "000" => "I Added a Fourth Shard in Python and 75% of the Keys Moved",
        "002" => "(untitled) DDIA 2nd ed. ch. 7, \"Consistent hashing\": rendezvous hashing, 10 → 11 nodes",
        "004" => "DDIA Ch. 7: `hash % N` moves 91% of keys to add one node; fixed shards move 9%",
        _ => "unknown document",
    }
}

/// The figures of one document by its number (`"000"`, `"002"`, `"004"`).
pub fn document(doc: &str) -> Result<Checks> {
    figures(doc, &keys_of(doc)?)
}

/// The figures of one document, measured on its key set.
fn figures(doc: &str, keys: &HashedKeys) -> Result<Checks> {
    match doc {
        "000" => figures_000(keys),
        "002" => figures_002(keys),
        "004" => figures_004(keys),
        other => Err(no_such_document(other)),
    }
}

fn list(v: &[u64]) -> String {
    format!("{v:?}")
}

/// "I Added a Fourth Shard in Python and 75% of the Keys Moved":
/// 100,000 `user:{i}`, md5 mod 2^32.
pub fn doc_000() -> Result<Checks> {
    figures_000(&keys_of("000")?)
}

fn figures_000(keys: &HashedKeys) -> Result<Checks> {
    let mut c = Checks::new(format!("000 — {}", title("000")));
    let modulo = ModuloSweep::measure(keys, &[(3, 4), (10, 11), (10, 20), (10, 9)])?;
    for (r, doc) in modulo.rows().iter().zip(["75.0%", "91.0%", "50.0%", "89.9%"]) {
        c.push(Check::percent(format!("hash % N, {} → {}", r.old, r.new), doc, r.measured));
    }
    let (abc, abcd) = (letters("ABC"), letters("ABCD"));
    for (v, doc) in [(1, "28.0%"), (150, "25.3%")] {
        let abc = Ring::named(abc.clone())?.with_vnodes(v)?;
        let m = Movement::measure(keys, &abc, &abc.add_node("D")?)?;
        c.push(Check::percent(format!("ring A,B,C → A,B,C,D, {v} point(s)"), doc, m.share()));
    }
    for (v, doc) in [(1, [31186, 10531, 30259, 28024]), (150, [25136, 24419, 25098, 25347])] {
        let l = LoadReport::measure(keys, &Ring::named(abcd.clone())?.with_vnodes(v)?)?;
        c.push(Check::new(format!("keys on A,B,C,D, {v} point(s)"), list(&doc), list(l.counts())));
    }
    let ring = Ring::named(abc.clone())?.with_vnodes(150)?;
    let m = Movement::measure(keys, &ring, &ring.remove_node("C")?)?;
    c.push(Check::count("remove C (150 points): keys moved", 33_830, m.moved()));
    c.push(Check::count("remove C (150 points): movers that lived on C", 33_830, m.from_removed()));
    for (v, lo, hi, small, large) in [(1, "0.8%", "71.4%", 213, 71_383), (150, "21.5%", "28.2%", 21_055, 29_917)] {
        let s = ArrangementSweep::measure(keys, &abc, &abcd, v, 30)?;
        c.push(Check::percent(format!("30 arrangements, 3 → 4, {v} point(s): least moved"), lo, s.min_share()));
        c.push(Check::percent(format!("30 arrangements, 3 → 4, {v} point(s): most moved"), hi, s.max_share()));
        c.push(Check::count(format!("30 arrangements, 3 → 4, {v} point(s): smallest node"), small, s.smallest_node()));
        c.push(Check::count(format!("30 arrangements, 3 → 4, {v} point(s): largest node"), large, s.largest_node()));
    }
    let (s10, s11) = (prefixed("S", 10)?, prefixed("S", 11)?);
    for (v, lo, hi, mean) in [
        (150, "8.0%", "11.5%", Some("9.1%")),
        (100, "6.8%", "11.0%", None),
        (200, "8.0%", "11.4%", None),
        (1, "0.0%", "22.9%", None),
    ] {
        let s = ArrangementSweep::measure(keys, &s10, &s11, v, 30)?;
        c.push(Check::percent(format!("S0..S9 → S0..S10, {v} point(s): least moved"), lo, s.min_share()));
        c.push(Check::percent(format!("S0..S9 → S0..S10, {v} point(s): most moved"), hi, s.max_share()));
        if let Some(mean) = mean {
            c.push(Check::percent(format!("S0..S9 → S0..S10, {v} point(s): mean moved"), mean, s.mean_share()));
        }
    }
    c.push(Check::new("floor for 10 → 11 (1/11)", "9.09%", format!("{:.2}%", 100.0 / 11.0)));
    Ok(c)
}

/// Document `002`: 200,000 `key{i}`, md5 128-bit, 10 → 11 nodes.
pub fn doc_002() -> Result<Checks> {
    figures_002(&keys_of("002")?)
}

fn figures_002(keys: &HashedKeys) -> Result<Checks> {
    let mut c = Checks::new(format!("002 — {}", title("002")));
    let m = Movement::measure(keys, &Modulo::new(10)?, &Modulo::new(11)?)?;
    c.push(Check::count("hash % N: keys moved", 181_745, m.moved()));
    c.push(Check::percent("hash % N: share moved", "90.87%", m.share()));
    c.push(Check::count("hash % N: movers between old nodes", 163_493, m.between_kept()));
    c.push(Check::count("hash % N: movers to node 10", 18_252, m.to_added()));
    let r = Movement::measure(keys, &Rendezvous::new(10)?, &Rendezvous::new(11)?)?;
    c.push(Check::count("rendezvous: keys moved", 17_986, r.moved()));
    c.push(Check::percent("rendezvous: share moved", "8.99%", r.share()));
    c.push(Check::count("rendezvous: movers between old nodes", 0, r.between_kept()));
    c.push(Check::count("rendezvous: movers to node 10", 17_986, r.to_added()));
    Ok(c)
}

/// Document `004`: 1,000,000 `key{i}`, md5 128-bit, 10 → 11 nodes, 1000
/// fixed shards rebalanced with seed 42.
pub fn doc_004() -> Result<Checks> {
    figures_004(&keys_of("004")?)
}

fn figures_004(keys: &HashedKeys) -> Result<Checks> {
    let mut c = Checks::new(format!("004 — {}", title("004")));
    let m = Movement::measure(keys, &Modulo::new(10)?, &Modulo::new(11)?)?;
    c.push(Check::count("hash % N: keys moved", 909_138, m.moved()));
    c.push(Check::percent("hash % N: share moved", "90.91%", m.share()));
    c.push(Check::count("hash % N: movers landing on an old node", 817_949, m.between_kept()));
    let ten = FixedShards::new(10)?.with_shards(1000)?.with_seed(42);
    let eleven = ten.add_node("10")?;
    let f = Movement::measure(keys, &ten, &eleven)?;
    c.push(Check::count("fixed shards: shards moved", 90, ten.moved_shards_to(&eleven)?.len() as u64));
    c.push(Check::count("fixed shards: keys moved", 89_813, f.moved()));
    c.push(Check::percent("fixed shards: share moved", "8.98%", f.share()));
    let counts = eleven.shard_counts();
    let old_all_91 = counts[..10].iter().all(|&n| n == 91);
    c.push(Check::new(
        "fixed shards: shards per old node",
        "91 each",
        if old_all_91 { "91 each".to_string() } else { format!("{:?}", &counts[..10]) },
    ));
    c.push(Check::count("fixed shards: shards on the new node", 90, counts[10] as u64));
    c.push(Check::ratio("hash % N ships this many times more", "10.1×", m.moved() as f64 / f.moved() as f64));
    Ok(c)
}

/// Every claim of the three documents in one table: the figures each one
/// printed (all reproduce, ✓) and the claims they make loosely or that the
/// lesson of document 000 got wrong, each marked corrected with one line
/// why. The index notebook ends with this table.
///
/// ```
/// let claims = reshard::tutor::reproduce::claims().unwrap();
/// assert!(claims.sound()); // ✓ or corrected, never ≠
/// assert!(claims.checks().iter().any(|c| c.label.contains("movers landing on old nodes")));
/// ```
pub fn claims() -> Result<Checks> {
    let mut all = Checks::new("every claim of the three documents, measured by this crate");
    for doc in DOCUMENTS {
        let keys = keys_of(doc)?;
        for c in figures(doc, &keys)?.checks() {
            all.push(Check { label: format!("{doc} · {}", c.label), ..c.clone() });
        }
        for c in loose(doc, &keys)? {
            all.push(Check { label: format!("{doc} · {}", c.label), ..c });
        }
    }
    Ok(all)
}

/// The claims a document states loosely (or quotes from elsewhere) beside
/// this crate's measurement.
fn loose(doc: &str, keys: &HashedKeys) -> Result<Vec<Check>> {
    use crate::present::pct;
    let mut rows = Vec::new();
    match doc {
        "000" => {
            let m = ModuloSweep::measure(keys, &[(10, 11), (3, 4), (10, 9)])?;
            let share = |i: usize| m.rows()[i].measured;
            rows.push(Check::new("the lesson: hash % N, 10 → 11 moves", "~9%", pct(share(0), 1)).corrected(
                "the lesson put the ring's figure on the modulo line: only 10 hashes in 110 keep h % 10 = h % 11",
            ));
            rows.push(
                Check::new("the lesson's formula 1 − 1/old for 3 → 4", "66.7%", pct(share(1), 1))
                    .corrected("a key stays when h % 3 = h % 4, 3 hashes in lcm(3, 4) = 12: 1 − min/lcm = 75% move"),
            );
            rows.push(
                Check::new("the lesson's table: hash % N, 10 → 9 moves", "~10%", pct(share(2), 1))
                    .corrected("removing a node re-addresses keys as adding one does: 1 − 9/90 = 90% move"),
            );
            let s = ArrangementSweep::measure(keys, &prefixed("S", 10)?, &prefixed("S", 11)?, 150, 30)?;
            rows.push(
                Check::new("the lesson's table: ring (150 points), 10 → 11 moves", "~10%", pct(s.mean_share(), 1))
                    .corrected(format!(
                        "~10% overstates it a little: 1/11 = 9.1% on average; one arrangement moves {}–{}",
                        pct(s.min_share(), 1),
                        pct(s.max_share(), 1)
                    )),
            );
        }
        "002" => {
            let m = Movement::measure(keys, &Modulo::new(10)?, &Modulo::new(11)?)?;
            rows.push(Check::new("hash % N moves ~10/11", "90.9%", pct(m.share(), 1)));
        }
        "004" => {
            let m = Movement::measure(keys, &Modulo::new(10)?, &Modulo::new(11)?)?;
            let old = m.between_kept() as f64 / m.moved() as f64;
            rows.push(
                Check::new(
                    "hash % N: movers landing on old nodes",
                    "~10/11 (90.9%)",
                    format!("{} ≈ 9/10", pct(old, 2)),
                )
                .corrected("node 10 receives every key with h % 11 = 10, 1/11 of all, and 10/11 move: 1/10 of movers"),
            );
            let ten = FixedShards::new(10)?.with_shards(1000)?.with_seed(42);
            let eleven = ten.add_node("10")?;
            let on_new = eleven.shard_counts()[10];
            rows.push(
                Check::new("fixed shards: the new node takes", "~91 shards", format!("{on_new} shards"))
                    .corrected("1000 = 10 × 91 + 90: the old nodes keep 91 each and the new node gets the 90 left"),
            );
            let d = Movement::measure(keys, &Modulo::new(10)?, &Modulo::new(20)?)?;
            rows.push(
                Check::new("go deeper 1: hash % N, 10 → 20 keeps", "~1/20", pct(1.0 - d.share(), 1))
                    .corrected("h % 20 = h % 10 exactly when h % 20 < 10: half the keys stay"),
            );
        }
        _ => {}
    }
    Ok(rows)
}
