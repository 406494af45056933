//! Bad parameters: each gives the typed error, whose message says what to
//! change, and none panics.

use crate::common;
use common::expect_err;
use reshard::analysis::modulo::count_moved_streaming;
#[allow(unused_imports)]
use reshard::notebook::*;
use reshard::{letters, ArrangementSweep, Error, FixedShards, HashWidth, KeySet, Modulo, Rendezvous, Ring, VnodeSweep};

#[test]
fn zero_nodes() {
    let hint = "at least 1 node";
    expect_err("Modulo::new(0)", || Modulo::new(0), |e| *e == Error::NoNodes, hint);
    expect_err("Modulo::named([])", || Modulo::named(Vec::<String>::new()), |e| *e == Error::NoNodes, hint);
    expect_err(
        "Ring::named([]).and_then(|r| r.with_vnodes(150))",
        || Ring::named(Vec::<String>::new()).and_then(|r| r.with_vnodes(150)),
        |e| *e == Error::NoNodes,
        hint,
    );
    expect_err(
        "Ring::named([]).and_then(|r| r.with_vnodes(1)).and_then(|r| r.with_salt(s))",
        || Ring::named(Vec::<&str>::new()).and_then(|r| r.with_vnodes(1)).and_then(|r| r.with_salt("0:")),
        |e| *e == Error::NoNodes,
        hint,
    );
    expect_err("Rendezvous::new(0)", || Rendezvous::new(0), |e| *e == Error::NoNodes, hint);
    expect_err(
        "Rendezvous::named([]).and_then(|r| r.with_weights([]))",
        || Rendezvous::named(Vec::<String>::new()).and_then(|r| r.with_weights(Vec::<f64>::new())),
        |e| *e == Error::NoNodes,
        hint,
    );
    expect_err(
        "FixedShards::new(0).and_then(|f| f.with_shards(1000))",
        || FixedShards::new(0).and_then(|f| f.with_shards(1000)),
        |e| *e == Error::NoNodes,
        hint,
    );
    expect_err(
        "FixedShards::rebalance_to([])",
        || FixedShards::new(10).unwrap().rebalance_to(Vec::<String>::new()),
        |e| *e == Error::NoNodes,
        hint,
    );
    expect_err(
        "FixedShards::from_table([], ..)",
        || FixedShards::from_table(Vec::<String>::new(), vec![0]),
        |e| *e == Error::NoNodes,
        hint,
    );
    for last in [
        FixedShards::new(1).unwrap().remove_node("0"),
        Ring::new(1).unwrap().remove_node("0").map(|_| FixedShards::new(1).unwrap()),
        Jump::new(1).unwrap().remove_node("0").map(|_| FixedShards::new(1).unwrap()),
    ] {
        assert_eq!(last.unwrap_err(), Error::LastNode("0".into()));
    }
    expect_err(
        "count_moved_streaming(.., 0, 4)",
        || count_moved_streaming(&KeySet::users(10), HashWidth::Bits32, 0, 4),
        |e| *e == Error::NoNodes,
        hint,
    );
    expect_err(
        "count_moved_streaming(.., 3, 0)",
        || count_moved_streaming(&KeySet::users(10), HashWidth::Bits32, 3, 0),
        |e| *e == Error::NoNodes,
        hint,
    );
}

#[test]
fn zero_vnodes() {
    expect_err(
        "Ring::named(ABC).and_then(|r| r.with_vnodes(0))",
        || Ring::named(letters("ABC")).and_then(|r| r.with_vnodes(0)),
        |e| *e == Error::ZeroVnodes,
        "at least 1 point",
    );
    expect_err(
        "Ring::salted(ABC, 0)",
        || Ring::named(letters("ABC")).and_then(|r| r.with_vnodes(0)).and_then(|r| r.with_salt("1:")),
        |e| *e == Error::ZeroVnodes,
        "at least 1 point",
    );
    let keys = KeySet::users(100).hashed(HashWidth::Bits32).unwrap();
    expect_err(
        "ArrangementSweep vnodes 0",
        || ArrangementSweep::measure(&keys, &letters("ABC"), &letters("ABCD"), 0, 30),
        |e| *e == Error::ZeroVnodes,
        "vnodes",
    );
    expect_err(
        "VnodeSweep with a 0",
        || VnodeSweep::measure(&keys, &letters("ABC"), &letters("ABCD"), &[1, 0], 3),
        |e| *e == Error::ZeroVnodes,
        "vnodes",
    );
}

#[test]
fn zero_shards() {
    let hint = "at least 1 shard";
    expect_err(
        "FixedShards::new(10).and_then(|f| f.with_shards(0))",
        || FixedShards::new(10).and_then(|f| f.with_shards(0)),
        |e| *e == Error::ZeroShards,
        hint,
    );
    expect_err(
        "FixedShards::named(..).and_then(|f| f.with_shards(0))",
        || FixedShards::named(["a"]).and_then(|f| f.with_shards(0)),
        |e| *e == Error::ZeroShards,
        hint,
    );
    expect_err(
        "FixedShards::from_table(.., [])",
        || FixedShards::from_table(["a"], vec![]),
        |e| *e == Error::ZeroShards,
        hint,
    );
    expect_err(
        "FixedShards::with_shards(0)",
        || FixedShards::new(2).and_then(|f| f.with_shards(10)).unwrap().with_shards(0),
        |e| *e == Error::ZeroShards,
        hint,
    );
}

#[test]
fn duplicate_node_names() {
    let is_a = |e: &Error| *e == Error::DuplicateNode("A".into());
    let hint = "must be distinct";
    expect_err("Modulo dup", || Modulo::named(["A", "B", "A"]), is_a, hint);
    expect_err("Ring dup", || Ring::named(["A", "B", "A"]).and_then(|r| r.with_vnodes(150)), is_a, hint);
    expect_err(
        "Ring salted dup",
        || Ring::named(letters("ABA")).and_then(|r| r.with_vnodes(1)).and_then(|r| r.with_salt("3:")),
        is_a,
        hint,
    );
    expect_err("Rendezvous dup", || Rendezvous::named(["A", "A"]), is_a, hint);
    expect_err(
        "Rendezvous weighted dup",
        || Rendezvous::named(["A", "A"]).and_then(|r| r.with_weights([1.0, 1.0])),
        is_a,
        hint,
    );
    expect_err("FixedShards dup", || FixedShards::named(["A", "B", "A"]).and_then(|f| f.with_shards(100)), is_a, hint);
    expect_err(
        "FixedShards rebalance_to dup",
        || FixedShards::named(["A", "B"]).and_then(|f| f.with_shards(100)).unwrap().rebalance_to(["A", "A"]),
        is_a,
        hint,
    );
    let keys = KeySet::users(100).hashed(HashWidth::Bits32).unwrap();
    expect_err(
        "ArrangementSweep dup",
        || ArrangementSweep::measure(&keys, &letters("ABC"), &letters("ABCA"), 5, 3),
        is_a,
        "rename one",
    );
}

#[test]
fn empty_key_set() {
    for width in [HashWidth::Bits32, HashWidth::Bits128] {
        expect_err(
            "KeySet::new(k, 0).hashed",
            || KeySet::new("k", 0).hashed(width),
            |e| *e == Error::NoKeys,
            "at least 1",
        );
        expect_err(
            "count_moved_streaming(empty)",
            || count_moved_streaming(&KeySet::plain(0), width, 10, 11),
            |e| *e == Error::NoKeys,
            "key count of at least 1",
        );
    }
}

#[test]
fn bad_weights() {
    for w in [0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0] {
        expect_err(
            &format!("weight {w}"),
            || Rendezvous::named(["a", "b", "c"]).and_then(|r| r.with_weights([1.0, w, 2.0])),
            |e| matches!(e, Error::BadWeight { node, .. } if node == "b"),
            "use a weight > 0",
        );
    }
    // the message repeats the weight as given
    let e = Rendezvous::named(["a"]).and_then(|r| r.with_weights([f64::NAN])).unwrap_err();
    assert!(e.to_string().contains("NaN"), "{e}");
    let e = Rendezvous::named(["a"]).and_then(|r| r.with_weights([-1.0])).unwrap_err();
    assert!(e.to_string().contains("-1"), "{e}");
}

#[test]
fn wrong_weight_count() {
    for (names, weights) in [(vec!["a", "b", "c"], vec![1.0, 2.0]), (vec!["a"], vec![1.0, 1.0]), (vec!["a"], vec![])] {
        let (n, w) = (names.len(), weights.len());
        expect_err(
            "weight count",
            || Rendezvous::named(names).and_then(|r| r.with_weights(weights)),
            |e| *e == Error::LengthMismatch { what: "weights for nodes", expected: n, given: w },
            "exactly one per item",
        );
    }
}

#[test]
fn moving_more_shards_than_a_node_has() {
    let fs = FixedShards::new(10).and_then(|f| f.with_shards(1000)).unwrap();
    expect_err(
        "move_shards 101",
        || fs.move_shards("3", "4", 101),
        |e| *e == Error::NotEnoughShards { node: "3".into(), has: 100, asked: 101 },
        "ask for at most 100",
    );
    // exactly all of them is fine
    let moved = fs.move_shards("3", "4", 100).unwrap();
    assert_eq!(moved.shard_counts()[3..5], [0, 200]);
    expect_err(
        "move_shards unknown from",
        || fs.move_shards("x", "4", 1),
        |e| *e == Error::UnknownNode("x".into()),
        "check the spelling",
    );
    expect_err(
        "move_shards unknown to",
        || fs.move_shards("3", "y", 1),
        |e| *e == Error::UnknownNode("y".into()),
        "check the spelling",
    );
}

#[test]
fn more_nodes_than_shards() {
    let hint = "use at least 11 shards or fewer nodes";
    expect_err(
        "FixedShards::new(11).and_then(|f| f.with_shards(10))",
        || FixedShards::new(11).and_then(|f| f.with_shards(10)),
        |e| *e == Error::MoreNodesThanShards { nodes: 11, shards: 10 },
        hint,
    );
    expect_err(
        "add_node with 10 shards on 10 nodes",
        || FixedShards::new(10).and_then(|f| f.with_shards(10)).unwrap().add_node("10"),
        |e| *e == Error::MoreNodesThanShards { nodes: 11, shards: 10 },
        hint,
    );
    // as many nodes as shards is fine
    assert_eq!(FixedShards::new(10).and_then(|f| f.with_shards(10)).unwrap().shard_counts(), [1; 10]);
}

#[test]
fn unknown_node_in_remove_node() {
    let fs = FixedShards::new(10).and_then(|f| f.with_shards(1000)).unwrap();
    expect_err(
        "remove_node(\"10\")",
        || fs.remove_node("10"),
        |e| *e == Error::UnknownNode("10".into()),
        "no node named \"10\"",
    );
    expect_err(
        "remove_node(\"\")",
        || fs.remove_node(""),
        |e| *e == Error::UnknownNode(String::new()),
        "check the spelling",
    );
}

#[test]
fn arrangement_sweep_with_no_arrangements() {
    let keys = KeySet::users(100).hashed(HashWidth::Bits32).unwrap();
    let is_invalid = |e: &Error| matches!(e, Error::OutOfRange { .. });
    expect_err(
        "ArrangementSweep::measure(.., 0)",
        || ArrangementSweep::measure(&keys, &letters("ABC"), &letters("ABCD"), 150, 0),
        is_invalid,
        "at least 1",
    );
    expect_err(
        "ArrangementSweep::measure_salted(.., [])",
        || ArrangementSweep::measure_salted(&keys, &letters("ABC"), &letters("ABCD"), 150, vec![]),
        is_invalid,
        "at least 1",
    );
    expect_err(
        "VnodeSweep::measure(.., 0)",
        || VnodeSweep::measure(&keys, &letters("ABC"), &letters("ABCD"), &[1, 150], 0),
        is_invalid,
        "at least 1",
    );
    expect_err(
        "ArrangementSweep no old nodes",
        || ArrangementSweep::measure(&keys, &[], &letters("ABCD"), 150, 3),
        |e| *e == Error::NoNodes,
        "at least 1 node",
    );
}

#[test]
fn other_invalid_parameters() {
    let is_invalid = |e: &Error| matches!(e, Error::OutOfRange { .. });
    expect_err(
        "split(0)",
        || FixedShards::new(2).and_then(|f| f.with_shards(10)).unwrap().split(0),
        is_invalid,
        "use 1 or more",
    );
    expect_err(
        "from_table bad index",
        || FixedShards::from_table(["a", "b"], vec![0, 2]),
        |e| *e == Error::NodeOutOfRange { index: 2, nodes: 2 },
        "use indices below 2",
    );
    let unknown = |e: &Error| matches!(e, Error::UnknownName { .. });
    expect_err("hash width 64", || "64".parse::<HashWidth>(), unknown, "use 32 or 128");
    expect_err("document 007", || reshard::tutor::reproduce::document("007"), unknown, "use 000, 002 or 004");
    expect_err(
        "Movement over 5,001 nodes",
        || Modulo::new(5000),
        |e| matches!(e, Error::TooLarge { what: "nodes", asked: 5000, limit: 4096, .. }),
        "limit of 4,096",
    );
    expect_err(
        "too many ring points",
        || Ring::named(letters("AB")).and_then(|r| r.with_vnodes(30_000_000)),
        |e| matches!(e, Error::TooLarge { asked: 60_000_000, limit: 10_000_000, .. }),
        "limit of 10,000,000",
    );
}

/// Public functions that once panicked or answered garbage on bad
/// arguments now refuse them with a typed error.
#[test]
fn no_panics_from_arguments() {
    let names = |n: usize| numbered(n).unwrap();
    expect_err(
        "from_assignments lengths",
        || Movement::from_assignments(&names(2), &[0, 1, 0], &names(2), &[0, 1]),
        |e| *e == Error::LengthMismatch { what: "owners after (one per key before)", expected: 3, given: 2 },
        "exactly one per item",
    );
    expect_err(
        "from_assignments before index",
        || Movement::from_assignments(&names(2), &[0, 2], &names(3), &[0, 1]),
        |e| *e == Error::NodeOutOfRange { index: 2, nodes: 2 },
        "indices below 2",
    );
    expect_err(
        "from_assignments after index",
        || Movement::from_assignments(&names(2), &[0, 1], &names(3), &[7, 1]),
        |e| *e == Error::NodeOutOfRange { index: 7, nodes: 3 },
        "indices below 3",
    );
    expect_err(
        "from_counts",
        || LoadReport::from_counts(names(3), vec![1, 2]),
        |e| *e == Error::LengthMismatch { what: "counts for nodes", expected: 3, given: 2 },
        "exactly one per item",
    );
    let r = Rendezvous::new(3).unwrap();
    expect_err(
        "score of an unknown node",
        || r.score(Key::new("key0", HashWidth::Bits128), "7"),
        |e| *e == Error::UnknownNode("7".into()),
        "check the spelling",
    );
    let py = || reshard::PyRandom::new(42);
    expect_err("getrandbits(65)", || py().getrandbits(65), |e| matches!(e, Error::OutOfRange { .. }), "0 to 64");
    expect_err("randbelow(0)", || py().randbelow(0), |e| matches!(e, Error::OutOfRange { .. }), "n ≥ 1");
    assert_eq!(reshard::present::fixed(12.97, 1), "13.0");
}

/// Check rows stay honest when a reader edits the parameters: the verdict
/// names the parameter that differs, the document's figure keeps the
/// document's conditions, and a corrected document error is not a ≠.
#[test]
fn check_rows_name_their_conditions() {
    use reshard::tutor::{Params, Verdict};
    let same = Params::new().param("points per node", 150, 150).param("keys", 100_000, 100_000);
    let edited = Params::new().param("points per node", 150, 40).param("keys", 100_000, 100_000);
    let row = |p: &Params, share: f64| {
        Check::percent("share moved", "25.3%", share).under(p, &["points per node", "keys"]).theory("1/4", 0.25, 0.03)
    };
    assert_eq!(row(&same, 0.2531).verdict(), Verdict::Match);
    assert_eq!(row(&same, 0.2431).verdict(), Verdict::Differs);
    let other = row(&edited, 0.2401);
    assert_eq!(other.verdict(), Verdict::OtherParameters);
    assert_eq!(other.mark(), "≠ (points per node differs)");
    assert_eq!(other.within_theory(), Some(true));
    // only the parameter that differs is named as a condition
    assert!(other.line().contains("reference (points per node 150): 25.3%"), "{}", other.line());
    assert!(other.line().contains("this run (points per node 40): 24.0%"), "{}", other.line());
    let wrong = Check::percent("10 → 20, share moved", "95%", 0.5).corrected("a key stays when h % 20 < 10");
    assert_eq!(wrong.verdict(), Verdict::Corrected);
    let checks = Checks::new("t").with(wrong).with(row(&same, 0.2531));
    assert!(checks.sound() && !checks.all_match());
    assert!(checks.to_string().contains("corrected: a key stays when h % 20 < 10"));
    assert!(!Checks::new("t").with(row(&same, 0.2431)).sound());
    // A corrected row keeps its correction when the reader's parameters differ.
    let other = Params::new().param("keys", 100_000, 20_000);
    let moved = Check::percent("10 → 20, share moved", "95%", 0.5).under(&other, &["keys"]).corrected("h % 20 < 10");
    let shown = Checks::new("t").with(moved).to_string();
    assert!(shown.contains("≠ (keys differs) · the reference figure is corrected: h % 20 < 10"), "{shown}");
    assert!(edited.to_string().contains("points per node 40 (text 150)"));
}

/// Lab 11's shard map and its models speak of shards and nodes, never of another driver's
/// slots or of a document's fixed shards, and a huge number is shown short (probes 395–413).
#[test]
fn routing_messages_name_what_was_asked() {
    use reshard::analysis::{AutoFailover, ScheduledMove};
    use reshard::schemes::{ShardMap, ShardMove};
    let map = ShardMap::new(3, ["A", "B", "C"]).unwrap();
    let same = map.moved(&ShardMove::new(0, "A")).unwrap_err().to_string();
    assert!(same.contains("\"A\" already holds it") && !same.contains("slots"), "{same}");
    let zero = ShardMap::new(0, ["A"]).unwrap_err().to_string();
    assert!(zero.starts_with("shards is 0: give at least 1 shard"), "{zero}");
    let one = ShardMap::new(4, ["A"]).unwrap();
    let last = AutoFailover::new(&one, "A", 10, 2).unwrap_err().to_string();
    assert!(last.contains("only node") && !last.contains("at least 1 node"), "{last}");
    let far = ScheduledMove::at(1e300, 0, "B").unwrap_err().to_string();
    assert!(far.starts_with("move time (s) 1e300 is not"), "{far}");
    assert!(far.len() < 200, "{far}");
}
