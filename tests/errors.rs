//! Bad parameters: each gives the typed error, whose message says what to
//! change, and none panics.

use reshard::modulo::count_moved_streaming;
use reshard::{letters, ArrangementSweep, Error, FixedShards, HashWidth, KeySet, Modulo, Rendezvous, Ring, VnodeSweep};
mod common;
use common::expect_err;


#[test]
fn zero_nodes() {
    let hint = "at least 1 node";
    expect_err("Modulo::new(0)", || Modulo::new(0), |e| *e == Error::NoNodes, hint);
    expect_err("Modulo::with_nodes([])", || Modulo::with_nodes(Vec::<String>::new()), |e| *e == Error::NoNodes, hint);
    expect_err("Ring::new([], 150)", || Ring::new(Vec::<String>::new(), 150), |e| *e == Error::NoNodes, hint);
    expect_err("Ring::salted([], 1, s)", || Ring::salted(Vec::<&str>::new(), 1, "0:"), |e| *e == Error::NoNodes, hint);
    expect_err("Rendezvous::new(0)", || Rendezvous::new(0), |e| *e == Error::NoNodes, hint);
    expect_err(
        "Rendezvous::weighted([], [])",
        || Rendezvous::weighted(Vec::<String>::new(), Vec::<f64>::new()),
        |e| *e == Error::NoNodes,
        hint,
    );
    expect_err("FixedShards::new(1000, 0)", || FixedShards::new(1000, 0), |e| *e == Error::NoNodes, hint);
    expect_err(
        "FixedShards::grow_to(0)",
        || FixedShards::new(1000, 10).unwrap().grow_to(0, 42),
        |e| *e == Error::NoNodes,
        hint,
    );
    expect_err(
        "FixedShards::from_table([], ..)",
        || FixedShards::from_table(Vec::<String>::new(), vec![0]),
        |e| *e == Error::NoNodes,
        hint,
    );
    expect_err(
        "FixedShards::remove_node(last one)",
        || FixedShards::new(10, 1).unwrap().remove_node("0", 42),
        |e| *e == Error::NoNodes,
        hint,
    );
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
    expect_err("Ring::new(ABC, 0)", || Ring::new(letters("ABC"), 0), |e| *e == Error::ZeroVnodes, "at least 1 point");
    expect_err(
        "Ring::salted(ABC, 0)",
        || Ring::salted(letters("ABC"), 0, "1:"),
        |e| *e == Error::ZeroVnodes,
        "at least 1 point",
    );
    let keys = KeySet::users(100).hashed(HashWidth::Bits32).unwrap();
    expect_err(
        "ArrangementSweep vnodes 0",
        || ArrangementSweep::run(&keys, &letters("ABC"), &letters("ABCD"), 0, 30),
        |e| *e == Error::ZeroVnodes,
        "vnodes",
    );
    expect_err(
        "VnodeSweep with a 0",
        || VnodeSweep::run(&keys, &letters("ABC"), &letters("ABCD"), &[1, 0], 3),
        |e| *e == Error::ZeroVnodes,
        "vnodes",
    );
}

#[test]
fn zero_shards() {
    let hint = "at least 1 shard";
    expect_err("FixedShards::new(0, 10)", || FixedShards::new(0, 10), |e| *e == Error::ZeroShards, hint);
    expect_err(
        "FixedShards::with_nodes(0, ..)",
        || FixedShards::with_nodes(0, ["a"]),
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
        "FixedShards::relaid(0)",
        || FixedShards::new(10, 2).unwrap().relaid(0),
        |e| *e == Error::ZeroShards,
        hint,
    );
}

#[test]
fn duplicate_node_names() {
    let is_a = |e: &Error| *e == Error::DuplicateNode("A".into());
    let hint = "must be distinct";
    expect_err("Modulo dup", || Modulo::with_nodes(["A", "B", "A"]), is_a, hint);
    expect_err("Ring dup", || Ring::new(["A", "B", "A"], 150), is_a, hint);
    expect_err("Ring salted dup", || Ring::salted(letters("ABA"), 1, "3:"), is_a, hint);
    expect_err("Rendezvous dup", || Rendezvous::with_nodes(["A", "A"]), is_a, hint);
    expect_err("Rendezvous weighted dup", || Rendezvous::weighted(["A", "A"], [1.0, 1.0]), is_a, hint);
    expect_err("FixedShards dup", || FixedShards::with_nodes(100, ["A", "B", "A"]), is_a, hint);
    expect_err(
        "FixedShards rebalance_to dup",
        || FixedShards::with_nodes(100, ["A", "B"]).unwrap().rebalance_to(["A", "A"], 1),
        is_a,
        hint,
    );
    let keys = KeySet::users(100).hashed(HashWidth::Bits32).unwrap();
    expect_err(
        "ArrangementSweep dup",
        || ArrangementSweep::run(&keys, &letters("ABC"), &letters("ABCA"), 5, 3),
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
            || Rendezvous::weighted(["a", "b", "c"], [1.0, w, 2.0]),
            |e| matches!(e, Error::BadWeight { node, .. } if node == "b"),
            "use a weight > 0",
        );
    }
    // the message repeats the weight as given
    let e = Rendezvous::weighted(["a"], [f64::NAN]).unwrap_err();
    assert!(e.to_string().contains("NaN"), "{e}");
    let e = Rendezvous::weighted(["a"], [-1.0]).unwrap_err();
    assert!(e.to_string().contains("-1"), "{e}");
}

#[test]
fn wrong_weight_count() {
    for (names, weights) in [(vec!["a", "b", "c"], vec![1.0, 2.0]), (vec!["a"], vec![1.0, 1.0]), (vec!["a"], vec![])] {
        let (n, w) = (names.len(), weights.len());
        expect_err(
            "weight count",
            || Rendezvous::weighted(names, weights),
            |e| *e == Error::WeightCount { nodes: n, weights: w },
            "exactly one weight per node",
        );
    }
}

#[test]
fn moving_more_shards_than_a_node_has() {
    let fs = FixedShards::new(1000, 10).unwrap();
    expect_err(
        "move_shards 101",
        || fs.move_shards("3", "4", 101, 42),
        |e| *e == Error::NotEnoughShards { node: "3".into(), has: 100, asked: 101 },
        "ask for at most 100",
    );
    // exactly all of them is fine
    let moved = fs.move_shards("3", "4", 100, 42).unwrap();
    assert_eq!(moved.shard_counts()[3..5], [0, 200]);
    expect_err(
        "move_shards unknown from",
        || fs.move_shards("x", "4", 1, 42),
        |e| *e == Error::UnknownNode("x".into()),
        "check the spelling",
    );
    expect_err(
        "move_shards unknown to",
        || fs.move_shards("3", "y", 1, 42),
        |e| *e == Error::UnknownNode("y".into()),
        "check the spelling",
    );
}

#[test]
fn more_nodes_than_shards() {
    let hint = "use at least 11 shards or fewer nodes";
    expect_err(
        "FixedShards::new(10, 11)",
        || FixedShards::new(10, 11),
        |e| *e == Error::MoreNodesThanShards { nodes: 11, shards: 10 },
        hint,
    );
    expect_err(
        "grow_to(11) with 10 shards",
        || FixedShards::new(10, 10).unwrap().grow_to(11, 42),
        |e| *e == Error::MoreNodesThanShards { nodes: 11, shards: 10 },
        hint,
    );
    // as many nodes as shards is fine
    assert_eq!(FixedShards::new(10, 10).unwrap().shard_counts(), [1; 10]);
}

#[test]
fn unknown_node_in_remove_node() {
    let fs = FixedShards::new(1000, 10).unwrap();
    expect_err(
        "remove_node(\"10\")",
        || fs.remove_node("10", 42),
        |e| *e == Error::UnknownNode("10".into()),
        "no node named \"10\"",
    );
    expect_err(
        "remove_node(\"\")",
        || fs.remove_node("", 42),
        |e| *e == Error::UnknownNode(String::new()),
        "check the spelling",
    );
}

#[test]
fn arrangement_sweep_with_no_arrangements() {
    let keys = KeySet::users(100).hashed(HashWidth::Bits32).unwrap();
    let is_invalid = |e: &Error| matches!(e, Error::Invalid(_));
    expect_err(
        "ArrangementSweep::run(.., 0)",
        || ArrangementSweep::run(&keys, &letters("ABC"), &letters("ABCD"), 150, 0),
        is_invalid,
        "at least 1",
    );
    expect_err(
        "ArrangementSweep::with_salts(.., [])",
        || ArrangementSweep::with_salts(&keys, &letters("ABC"), &letters("ABCD"), 150, vec![]),
        is_invalid,
        "at least 1",
    );
    expect_err(
        "VnodeSweep::run(.., 0)",
        || VnodeSweep::run(&keys, &letters("ABC"), &letters("ABCD"), &[1, 150], 0),
        is_invalid,
        "at least 1",
    );
    expect_err(
        "ArrangementSweep no old nodes",
        || ArrangementSweep::run(&keys, &[], &letters("ABCD"), 150, 3),
        |e| *e == Error::NoNodes,
        "at least 1 node",
    );
}

#[test]
fn other_invalid_parameters() {
    let is_invalid = |e: &Error| matches!(e, Error::Invalid(_));
    expect_err("split(0)", || FixedShards::new(10, 2).unwrap().split(0), is_invalid, "use 1 or more");
    expect_err(
        "from_table bad index",
        || FixedShards::from_table(["a", "b"], vec![0, 2]),
        is_invalid,
        "use indices below 2",
    );
    expect_err("hash width 64", || "64".parse::<HashWidth>(), is_invalid, "use 32 or 128");
    expect_err("document 007", || reshard::reproduce::document("007"), is_invalid, "use 000, 002 or 004");
    let keys = KeySet::plain(10).hashed(HashWidth::Bits128).unwrap();
    expect_err(
        "Movement over 5,001 nodes",
        || reshard::Movement::measure(&keys, &Modulo::new(5000).unwrap(), &Modulo::new(5001).unwrap()),
        is_invalid,
        "use fewer nodes",
    );
    expect_err("too many ring points", || Ring::new(letters("AB"), 30_000_000), is_invalid, "at most 50,000,000");
}
