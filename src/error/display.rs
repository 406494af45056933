//! The messages: what is wrong, and what to change.

use super::Error;
use crate::numbers::grouped;
use std::fmt;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoNodes => write!(f, "no nodes: give at least 1 node"),
            Error::ZeroVnodes => write!(
                f,
                "vnodes is 0: every node needs at least 1 point on the ring (use 1 or more; 150 evens the load)"
            ),
            Error::ZeroShards => {
                write!(f, "shards is 0: give at least 1 shard (document 004's fixed sharding uses 1000)")
            }
            Error::DuplicateNode(n) => {
                write!(f, "node name {n:?} appears twice: node names must be distinct, rename one of them")
            }
            Error::NoKeys => write!(f, "the key set is empty: use a key count of at least 1"),
            Error::BadWeight { node, weight } => write!(
                f,
                "weight {weight} of node {node:?} is not a finite positive number: use a weight > 0 (e.g. 1.0)"
            ),
            Error::LengthMismatch { what, expected, given } => {
                write!(f, "{given} {what} where {expected} are needed: give exactly one per item")
            }
            Error::NotEnoughShards { node, has, asked } => {
                write!(f, "node {node:?} owns {has} shards but was asked to give {asked}: ask for at most {has}")
            }
            Error::UnknownNode(n) => write!(f, "there is no node named {n:?}: check the spelling"),
            Error::LastNode(n) => {
                write!(f, "{n:?} is the only node: what it holds would have nowhere to go; add another node first")
            }
            Error::MoreNodesThanShards { nodes, shards } => write!(
                f,
                "{nodes} nodes but only {shards} shards: some node would own nothing; use at least {nodes} shards or fewer nodes"
            ),
            Error::NodeOutOfRange { index, nodes } => write!(
                f,
                "node index {index} names no node: there are {nodes} nodes, so use indices below {nodes}"
            ),
            Error::TooLarge { what, asked, limit, hint } => write!(
                f,
                "{} {what} is over this crate's limit of {}: {hint}",
                grouped(*asked),
                grouped(*limit)
            ),
            Error::BadKey { line, reason } => write!(f, "line {line} of the keys: {reason}"),
            Error::BadNumber { what, value, expected, hint } => {
                // 1e300 prints as 301 digits: a long number is shown as Rust writes it in short
                let short = match value.parse::<f64>() {
                    Ok(x) if value.len() > 24 && x.is_finite() => format!("{x:e}"),
                    _ => value.clone(),
                };
                write!(f, "{what} {short} is not {expected}: {hint}")
            }
            Error::Overflow { what, hint } => write!(f, "{what} overflows the integer that holds it: {hint}"),
            Error::OutOfRange { what, given, allowed } => write!(f, "{what} {given} is out of range: use {allowed}"),
            Error::UnknownName { what, given, choices } => {
                write!(f, "unknown {what} {given:?}: use {choices}")
            }
            Error::SameNode(n) => {
                write!(f, "nothing to move: node {n:?} already holds it; pick another node as the target")
            }
            Error::AllServersDown => {
                write!(f, "every server is down: nginx would answer 502; leave at least one server up")
            }
            Error::WeightsTooUneven { node, weight, total } => write!(
                f,
                "the weights leave server {node:?} (weight {}, of {} in all) no point on the ring: use weights \
                 closer to each other",
                grouped(u128::from(*weight)),
                grouped(u128::from(*total))
            ),
            Error::WeightTooLarge { node, weight, max, program } => write!(
                f,
                "weight {} of server {node:?} is over {}, the most {program} reads: use a smaller weight (only \
                 the weights' ratios matter)",
                grouped(u128::from(*weight)),
                grouped(u128::from(*max))
            ),
            Error::WeightNeeded { node } => write!(
                f,
                "add_node({node:?}) cannot choose a weight for the new node of a weighted placement: use \
                 add_weighted_node({node:?}, weight)"
            ),
            Error::UnsortedBoundaries { index, previous, value } => write!(
                f,
                "boundary {index} ({value}) is not above boundary {} ({previous}): give the boundaries in increasing \
                 order (sort them; keys compare as unsigned bytes)",
                index.saturating_sub(1)
            ),
            Error::DuplicateBoundary { index, value } => write!(
                f,
                "boundary {value} is given twice (at {} and {index}): the range between them would be empty; give \
                 each boundary once",
                index.saturating_sub(1)
            ),
            Error::EmptyBoundary { value } => write!(
                f,
                "{value} cannot be a boundary: every key is at or above it, so range 0 would be empty; drop it \
                 (range 0 already starts at the lowest key)"
            ),
            Error::HashOutOfRange { value, bits } => {
                let top = 1u128.checked_shl(*bits).map_or("2^128".to_string(), grouped);
                write!(
                    f,
                    "hash {} is outside the hash space [0, 2^{bits}): use a value below {top}{}",
                    grouped(*value),
                    if *bits < 128 { " (or with_width(HashWidth::Bits128))" } else { "" }
                )
            }
            Error::AlreadyBoundary { value, range } => write!(
                f,
                "{value} is already a boundary (range {range} starts there): split at a value inside a range"
            ),
            Error::NoSuchRange { index, ranges } => write!(
                f,
                "there is no range {index}: there are {ranges} ranges, numbered 0 to {}",
                ranges.saturating_sub(1)
            ),
            Error::MergeAcrossNodes { index, left, right } => write!(
                f,
                "ranges {index} (on {left:?}) and {} (on {right:?}) are on different nodes: move one first, e.g. \
                 move_range({}, {left:?}), then merge({index})",
                index.saturating_add(1),
                index.saturating_add(1)
            ),
            Error::RangeTooNarrow { index, hash } => write!(
                f,
                "range {index} holds the single hash {} and has no middle to split at: split a wider range",
                grouped(*hash)
            ),
            Error::TooFewDistinctKeys { ranges, sample, distinct } => write!(
                f,
                "the sample's quantiles give fewer than {} distinct boundaries for {ranges} ranges (the sample has {} \
                 keys, {} distinct; the empty key cannot be a boundary): ask for fewer ranges or give a sample with \
                 more distinct keys",
                ranges.saturating_sub(1),
                grouped(*sample as u128),
                grouped(*distinct as u128)
            ),
            Error::DuplicateKey { key, first, second } => write!(
                f,
                "row key \"{key}\" appears twice (rows {first} and {second}): every row needs its own key; drop or \
                 rename one"
            ),
            Error::DuplicateAttribute(a) => {
                write!(f, "attribute {a:?} is indexed twice: give each attribute once")
            }
            Error::ReservedChar { what, text, ch } => write!(
                f,
                "{what} {text:?} holds {ch:?}, which separates the parts of an index key (a term is \
                 attribute:value, a postings key attribute:value/rowkey): use another character"
            ),
            Error::NoSamples { shard } => match shard {
                Some(s) => write!(f, "shard {s} has no latency samples: give each shard at least 1 sample"),
                None => write!(f, "no latency samples: give at least 1"),
            },
            Error::BadSample { shard, index, value } => {
                let of = shard.map_or(String::new(), |s| format!(" of shard {s}"));
                write!(
                    f,
                    "latency sample {index}{of} is {value}: a latency is a finite number of milliseconds ≥ 0; drop it \
                     or fix the measurement"
                )
            }
            Error::BadEscape { text } => {
                if text.starts_with("\\x") {
                    write!(f, "{text:?} is not a byte escape: write \\x and exactly two hex digits, e.g. \\xff")
                } else {
                    write!(f, "{text:?} is not an escape: write \\\\ for a backslash or \\xHH for a byte")
                }
            }
            Error::BadServerLine { line, problem } => write!(
                f,
                "twemproxy server {line:?} {problem}: write \"host:port:weight\" or \"host:port:weight name\", \
                 e.g. \"127.0.0.1:6379:1 alpha\""
            ),
            Error::NotAPermutation { node, size, entry } => write!(
                f,
                "the permutation of {node:?} is not a permutation of 0..{size}: entry {entry} is out of range or \
                 repeated; list every entry exactly once"
            ),
            Error::PlansDoNotJoin { slot, ends_on, starts_on } => write!(
                f,
                "the next plan does not start from this plan's table: slot {slot} is on {ends_on:?} at the end of \
                 this plan but on {starts_on:?} at the start of the next; plan the next step from this plan's after()"
            ),
            Error::NodeStillServes { node, slots } => {
                write!(f, "node {node:?} still serves {slots} slots: move them away (reshard) before removing it")
            }
            Error::RebalanceStuck { over } => write!(
                f,
                "these weights leave every node over its share by {over} slots in all: use simpler weights (e.g. 1.0 \
                 each)"
            ),
            Error::ShardCountsDiffer { left, right } => write!(
                f,
                "the tables have {} and {} shards: compare shard by shard only tables of one shard count (split \
                 one first), or compare the keys with Movement::measure",
                grouped(*left as u128),
                grouped(*right as u128)
            ),
            Error::ProgramMissing { program, install } => {
                let looked = match *program {
                    "postgres" | "initdb" | "psql" => "on PATH nor in /usr/lib/postgresql/<version>/bin",
                    _ => "on PATH nor in /usr/sbin",
                };
                write!(f, "{program} was not found {looked}: install {install}, then restart the kernel so it sees the new PATH")
            }
            Error::RunAsRoot { program, user } => write!(
                f,
                "{program} refuses to run as root, and there is no user {user:?} to run it as: run as a normal \
                 user, or create the account (Debian/Ubuntu's postgresql package does: `sudo apt-get install \
                 postgresql`)"
            ),
            Error::BadBackendName { name } => write!(
                f,
                "backend name {name:?}: use 1 to 64 letters, digits, '_', '-' or '.' (it is written into the \
                 proxy's config file as is)"
            ),
            Error::BadHashTag { tag } => write!(
                f,
                "hash_tag {tag:?}: give two printable ASCII characters other than '\"' and '\\', e.g. \"{{}}\""
            ),
            Error::EmptyKey { index } => {
                write!(f, "key {index} is empty: a live server cannot store or route the empty key; drop it")
            }
            Error::NotOnOneBackend { key, how, backends, nowhere, several } => write!(
                f,
                "key \"{key}\" was {how} on {backends} backends, not one ({nowhere} keys on none, {several} on \
                 several): flush the backends and write the keys again, or observe where they are routed"
            ),
            Error::ObservationsDiffer { keys, other, first } => write!(
                f,
                "the two observations are of different keys ({keys} and {other} keys, the first difference at key \
                 {first}): observe the same keys"
            ),
            Error::UnexpectedReply { node, port, doing, got } => {
                if node.is_empty() {
                    write!(f, "an unexpected reply to {doing}: {got}")
                } else {
                    write!(
                        f,
                        "{node} (127.0.0.1:{port}) answered {doing} with {got}: is another program on its port? drop \
                         the driver and start a new one"
                    )
                }
            }
            Error::NoFreePort { node, tries } => write!(
                f,
                "{node}: no free port on 127.0.0.1 after {tries} tries: stop some servers on this machine, or try \
                 again"
            ),
            Error::ThreadPanicked { task } => write!(
                f,
                "a thread of this crate panicked while {task}: a bug in reshard; the servers were stopped, start \
                 them again (and please report it)"
            ),
            Error::NodeRemoved { node, remaining } => write!(
                f,
                "node {node} is not in the cluster any more: del_node removed it; the cluster has {}",
                remaining.join(", ")
            ),
            Error::StrangerNode { id, seen_by } => write!(
                f,
                "CLUSTER NODES on {seen_by} lists node {id}, which this cluster did not start: drop the cluster and \
                 start a new one"
            ),
            Error::SlotUnserved { slot } => write!(
                f,
                "slot {slot} is served by no node: give it to a node (reshard), or drop the cluster and start a new \
                 one"
            ),
            Error::NotSettled { waited, why } => {
                write!(f, "the cluster did not settle within {} s: {why}", waited.as_secs())
            }
            Error::CliFailed { command, code, output } => {
                let code = code.map_or("killed by a signal".into(), |c| format!("exit code {c}"));
                write!(f, "redis-cli {command} failed ({code}):\n{output}")
            }
            Error::NotInCluster { node, port, seen_by } => write!(
                f,
                "node {node} (127.0.0.1:{port}) is not in the cluster as {seen_by} sees it (redis-cli: “No such \
                 node ID”): it was removed already, or the others flag it failed"
            ),
            Error::NotPgText { what, text } => write!(
                f,
                "{what} \"{text}\" is not text PostgreSQL can store (UTF-8 without a NUL byte): remove the NUL \
                 byte or the bytes that are not UTF-8"
            ),
            Error::NameTaken { what, name, by } => {
                write!(f, "{what} name {name:?} is taken by {by}: choose another name")
            }
            Error::BadRanges { table, problem } => write!(f, "table {table}: {problem}"),
            Error::BadPartition { table, problem } => write!(f, "table {table}: {problem}"),
            Error::NoSuchShard { shard, shards } => write!(
                f,
                "there is no shard {shard}: there are {shards} shards, numbered 0 to {}",
                shards.saturating_sub(1)
            ),
            Error::ServerRefused { node, port, doing, message } => {
                write!(f, "{node} (127.0.0.1:{port}) refused {doing}: \u{201c}{message}\u{201d}")
            }
            Error::NotRunning { node, port, doing } => {
                let at = if *port == 0 { String::new() } else { format!(" (127.0.0.1:{port})") };
                write!(f, "{node}{at} is not running, so it cannot {doing}: restart it first (or ask another one)")
            }
            Error::AlreadyRunning { node, port } => {
                write!(f, "{node} (127.0.0.1:{port}) is running already: kill it first, then restart it")
            }
            Error::ServerFailed { node, port, problem, source } => {
                write!(f, "{node} (127.0.0.1:{port}): {problem}")?;
                match source {
                    Some(e) => write!(f, ": {e}"),
                    None => Ok(()),
                }
            }
            Error::ServerTimeout { node, port, doing, waited } => write!(
                f,
                "{node} (127.0.0.1:{port}) did not answer {doing} within {} s: it may be stopped (SIGSTOP) \
                 or overloaded; resume it (SIGCONT) or drop the driver and start a new one",
                waited.as_secs_f64()
            ),
            Error::System { doing, source } => write!(f, "could not {doing}: {source}"),
        }
    }
}
