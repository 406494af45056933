//! What a learner's function does to the report that checks it: a panic is
//! reported, not also printed (evcxr prints a panic message late, under the
//! next cell, and the notebook runner fails a run whose output holds one),
//! and an answer of millions of items is shown cut, not printed whole (a
//! report of 32 MB before, from a controller that answered ten million
//! shards). One test in its own binary: it puts a panic hook in place before
//! any exercise runs.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use reshard::tutor::exercises::{self, Assignment, MAX_SHOWN};

/// The text on one line (reports wrap at spaces).
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn learners_panics_stay_quiet_and_long_answers_are_cut() {
    // count the panics that reach the hook from this thread
    let here = std::thread::current().id();
    let printed = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&printed);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == here {
            seen.fetch_add(1, Ordering::SeqCst);
        }
        previous(info)
    }));

    // a todo!() in each kind of exercise: reported, never printed
    let fanout = exercises::fanout_quantile(|_, _| todo!());
    let ranges = exercises::range_of(|_, _| todo!());
    assert!(!ranges.passed() && ranges.to_string().contains("panicked: not yet implemented"), "{ranges}");
    assert!(!fanout.passed() && fanout.to_string().contains("panicked: not yet implemented"), "{fanout}");
    let ring = exercises::ring_owner(|_, _| todo!());
    assert!(!ring.passed() && ring.to_string().contains("panicked"), "{ring}");
    let bucket = exercises::consistent_bucket(|_, _| todo!());
    assert!(!bucket.passed());
    let controller = exercises::shard_controller(|_, _| todo!()).balance();
    assert!(!controller.passed() && controller.to_string().contains("panicked"), "{controller}");
    assert_eq!(printed.load(Ordering::SeqCst), 0, "a learner's panic reached the panic hook");

    // a million copies in the answer: the report cuts it and says how long it was
    let replicas = exercises::replica_set(|_, _, _| vec![7; 1 << 20]).to_string();
    assert!(replicas.len() < 3 * MAX_SHOWN, "{} bytes", replicas.len());
    assert!(replicas.contains("characters in all"), "{replicas}");
    // two million shards from the controller, then 200,000 nodes
    let shards = exercises::shard_controller(|a: Assignment, _| Ok(Assignment::new(a.nodes, vec![0; 2_000_000])));
    let text = flat(&shards.balance().to_string());
    assert!(text.len() < 10_000 && text.contains("2,000,000 shards in all"), "{} bytes: {}", text.len(), &text[..500]);
    let nodes = exercises::shard_controller(|a: Assignment, _| Ok(Assignment::new((0..200_000).collect(), a.shards)));
    let text = flat(&nodes.balance().to_string());
    assert!(text.len() < 10_000 && text.contains("characters in all"), "{} bytes: {}", text.len(), &text[..500]);
    // a learner's own Assignment prints its first shards and nodes, then how many
    let big = Assignment::laid_out(100_000, 1_000).unwrap();
    let shown = flat(&big.to_string());
    assert!(shown.len() < 10_000 && shown.contains("100,000 shards in all") && shown.contains("1,000 nodes in all"));
    assert_eq!(big.per_node().matches(": 100").count(), 1_000); // per_node lists every node
}
