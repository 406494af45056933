//! The one error type of the crate.
//!
//! Every constructor that can be handed an unusable parameter returns
//! [`Error`]; its message names the parameter and says what to change, so a
//! notebook reader who typed `vnodes = 0` learns what to type instead. Each
//! condition a caller could act on has its own variant.
//!
//! ```
//! use reshard::{Error, Ring};
//! let err = Ring::new(2).unwrap().with_vnodes(0).unwrap_err();
//! assert_eq!(err, Error::ZeroVnodes);
//! assert!(err.to_string().contains("at least 1"));
//! ```

use crate::numbers::grouped;
use std::fmt;

/// Everything that can be wrong with the parameters of an experiment.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A placement needs at least one node (jump hash: one bucket).
    NoNodes,
    /// A ring needs at least one point per node.
    ZeroVnodes,
    /// Fixed sharding needs at least one shard.
    ZeroShards,
    /// The same node name was given twice.
    DuplicateNode(String),
    /// The key set is empty.
    NoKeys,
    /// A weight is zero, negative, infinite or NaN.
    BadWeight {
        /// The node the weight belongs to.
        node: String,
        /// The weight as given, printed.
        weight: String,
    },
    /// Two lists that must have one entry each per item have different lengths.
    LengthMismatch {
        /// What the lists are, e.g. "weights for nodes".
        what: &'static str,
        /// How many entries were expected.
        expected: usize,
        /// How many were given.
        given: usize,
    },
    /// A node was asked to give away more shards than it owns.
    NotEnoughShards {
        /// The node asked to give.
        node: String,
        /// How many shards it owns.
        has: usize,
        /// How many it was asked for.
        asked: usize,
    },
    /// A node name that the placement does not have.
    UnknownNode(String),
    /// The only node cannot be removed.
    LastNode(String),
    /// More nodes than shards: some node would own nothing.
    MoreNodesThanShards {
        /// Nodes requested.
        nodes: usize,
        /// Shards available.
        shards: usize,
    },
    /// A node index (in an assignment or a table) that names no node.
    NodeOutOfRange {
        /// The index given.
        index: u64,
        /// How many nodes there are.
        nodes: usize,
    },
    /// An input is over one of the crate's limits (see [`crate::limits`]):
    /// the work or memory it needs would not finish in a minute and 2 GiB.
    TooLarge {
        /// What was counted, e.g. "ring points (nodes × vnodes)".
        what: &'static str,
        /// How many were asked for.
        asked: u128,
        /// The most accepted.
        limit: u128,
        /// What to change.
        hint: &'static str,
    },
    /// A line of a key list that cannot be read as a key (see
    /// [`crate::keys::unescape`]), or where reading failed.
    BadKey {
        /// The line, counted from 1.
        line: usize,
        /// What is wrong and what to write instead.
        reason: String,
    },
    /// A number that must be finite is NaN or infinite, or one that must be
    /// positive (or at least 0) is not.
    BadNumber {
        /// What the number is, e.g. "epsilon".
        what: &'static str,
        /// The number as given, printed.
        value: String,
        /// What it must be, e.g. "a finite number ≥ 0".
        expected: &'static str,
        /// What to give instead, e.g. "use 0 for uniform requests".
        hint: &'static str,
    },
    /// A total (of counts, of weights) does not fit the integer that holds it.
    Overflow {
        /// What was computed, e.g. "the sum of the counts".
        what: &'static str,
        /// What to change.
        hint: &'static str,
    },
    /// A count, size or share is outside the range the operation accepts
    /// (0 replicas, a table size that is not prime, more slots than the
    /// sources own, …).
    OutOfRange {
        /// What the number is, e.g. "replication factor".
        what: &'static str,
        /// The value as given, printed.
        given: String,
        /// What to give instead, e.g. "1 to 10 (3 is common)".
        allowed: String,
    },
    /// A name from a fixed list (a hash function, a hash width, a document)
    /// that is not on the list.
    UnknownName {
        /// What was named, e.g. "twemproxy hash".
        what: &'static str,
        /// The name as given.
        given: String,
        /// What to give instead, e.g. "32 or 128".
        choices: String,
    },
    /// A node was asked to give slots or shards to itself.
    SameNode(String),
    /// Every server is marked down (or would be, after a removal): nginx
    /// answers 502 to every request.
    AllServersDown,
    /// Weights so far apart that some server would get no point at all on
    /// the ring (ketama, twemproxy).
    WeightsTooUneven,
    /// Range boundaries out of order: each must be above the one before
    /// it (key ranges compare bytes unsigned, as `memcmp` does).
    UnsortedBoundaries {
        /// The index of the boundary that is not above its predecessor.
        index: usize,
        /// The boundary before it, printed (a key with [`crate::keys::escape`]).
        previous: String,
        /// The boundary at `index`, printed.
        value: String,
    },
    /// The same range boundary twice: the range between them would be empty.
    DuplicateBoundary {
        /// The index of the second copy.
        index: usize,
        /// The boundary, printed.
        value: String,
    },
    /// A boundary at the lowest possible value (the empty key, hash 0):
    /// range 0 would be empty, since every key is at or above it.
    EmptyBoundary {
        /// The boundary, printed (`""` or `0`).
        value: String,
    },
    /// A hash-range boundary (or a hash to split at) outside the hash space.
    HashOutOfRange {
        /// The value given.
        value: u128,
        /// The bits of the hash space it is outside (32 or 128).
        bits: u32,
    },
    /// A split at a value that is already a range boundary.
    AlreadyBoundary {
        /// The value, printed.
        value: String,
        /// The range that starts there.
        range: usize,
    },
    /// A range index that names no range.
    NoSuchRange {
        /// The index given (for a merge, the second of the two ranges).
        index: usize,
        /// How many ranges there are.
        ranges: usize,
    },
    /// Two neighbouring ranges on different nodes cannot be merged.
    MergeAcrossNodes {
        /// The first range of the two.
        index: usize,
        /// The node of range `index`.
        left: String,
        /// The node of range `index + 1`.
        right: String,
    },
    /// A hash range holding a single hash value has no middle to split at.
    RangeTooNarrow {
        /// The range.
        index: usize,
        /// Its only hash value.
        hash: u128,
    },
    /// A pre-split at a sample's quantiles found fewer distinct boundaries
    /// than it needs.
    TooFewDistinctKeys {
        /// Ranges asked for.
        ranges: usize,
        /// Keys in the sample.
        sample: usize,
        /// Distinct keys in the sample.
        distinct: usize,
    },
    /// A row key given twice: each row of a table has its own key.
    DuplicateKey {
        /// The key, printed (bytes escaped with [`crate::keys::escape`]).
        key: String,
        /// The first row with it, counted from 0.
        first: usize,
        /// The second row with it.
        second: usize,
    },
    /// The same indexed attribute twice.
    DuplicateAttribute(String),
    /// An attribute name or value holds a character the index keys use as
    /// a separator: a term is `attribute:value`, a postings key
    /// `attribute:value/rowkey`.
    ReservedChar {
        /// What the text is: "attribute name" or "value".
        what: &'static str,
        /// The text as given.
        text: String,
        /// The character it must not hold.
        ch: char,
    },
    /// A latency distribution with no samples.
    NoSamples {
        /// The shard whose list is empty (`None`: a single distribution).
        shard: Option<usize>,
    },
    /// A latency sample that is NaN, infinite or negative.
    BadSample {
        /// The shard it belongs to (`None`: a single distribution).
        shard: Option<usize>,
        /// Its position in the list, counted from 0.
        index: usize,
        /// The sample as given, printed.
        value: String,
    },
    /// A parameter is wrong in a way no other variant names (text that
    /// does not parse, plans that do not join up); the message says what to
    /// change.
    Invalid(String),
    /// A program a live driver needs (`redis-server`, `redis-cli`,
    /// `nutcracker`, `nginx`) is not installed; the message names it and
    /// says how to install it.
    ProgramMissing {
        /// The program looked for.
        program: &'static str,
        /// What to install, and how (e.g. "Redis 7 (Debian/Ubuntu: …)").
        install: &'static str,
    },
    /// A program refuses to run as root (`postgres`) and the unprivileged
    /// account the crate would run it as does not exist.
    RunAsRoot {
        /// The program, e.g. `"postgres"`.
        program: &'static str,
        /// The account looked for, e.g. `"postgres"`.
        user: &'static str,
    },
    /// A Redis Cluster or `redis-cli` failed, or the live cluster disagreed
    /// with the prediction; the message says what happened.
    Redis(String),
    /// A live proxy failed as a whole (its config, its reload); the
    /// message says what happened.
    Proxy(String),
    /// A live server (a Redis Cluster node, a proxy, a proxy's backend)
    /// failed: it refused or closed a connection, its process exited, or it
    /// did not start. Names the server and its port on 127.0.0.1.
    ServerFailed {
        /// The server's name, e.g. `"B"`, `"backend A"`, `"nutcracker"`.
        node: String,
        /// Its port on 127.0.0.1.
        port: u16,
        /// What failed, e.g. "CLUSTER NODES: connection refused".
        problem: String,
        /// The I/O error behind it, if any (also [`std::error::Error::source`]).
        source: Option<IoError>,
    },
    /// A live server did not answer within the time the crate waits for it
    /// (a stopped or overloaded process). Names it, its port and the wait.
    ServerTimeout {
        /// The server's name.
        node: String,
        /// Its port on 127.0.0.1.
        port: u16,
        /// What it was asked, e.g. "SET (pipelined)".
        doing: String,
        /// How long the crate waited.
        waited: std::time::Duration,
    },
    /// The machine refused something a live driver needs (a directory, a
    /// port, a process).
    System {
        /// What was being done, e.g. "create /tmp/reshard-redis-7-0".
        doing: String,
        /// The I/O error.
        source: IoError,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoNodes => write!(f, "no nodes: give at least 1 node"),
            Error::ZeroVnodes => write!(
                f,
                "vnodes is 0: every node needs at least 1 point on the ring (use 1 or more; 150 evens the load)"
            ),
            Error::ZeroShards => {
                write!(f, "shards is 0: fixed sharding needs at least 1 shard (use 1 or more; document 004 uses 1000)")
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
                write!(f, "{n:?} is the only node: a cluster needs at least 1 node, add another before removing it")
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
                write!(f, "{what} {value} is not {expected}: {hint}")
            }
            Error::Overflow { what, hint } => write!(f, "{what} overflows the integer that holds it: {hint}"),
            Error::OutOfRange { what, given, allowed } => write!(f, "{what} {given} is out of range: use {allowed}"),
            Error::UnknownName { what, given, choices } => {
                write!(f, "unknown {what} {given:?}: use {choices}")
            }
            Error::SameNode(n) => {
                write!(f, "node {n:?} cannot give its slots to itself: pick another node as the target")
            }
            Error::AllServersDown => {
                write!(f, "every server is down: nginx would answer 502; leave at least one server up")
            }
            Error::WeightsTooUneven => {
                write!(f, "the weights leave some server no point on the ring: use weights closer to each other")
            }
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
            Error::Invalid(msg) => f.write_str(msg),
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
            Error::Redis(msg) | Error::Proxy(msg) => f.write_str(msg),
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

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::ServerFailed { source: Some(e), .. } | Error::System { source: e, .. } => Some(e.io()),
            _ => None,
        }
    }
}

/// An I/O error inside an [`Error`], shared so that `Error` stays `Clone`;
/// two are equal when their kind and text are.
#[derive(Debug, Clone)]
pub struct IoError(std::sync::Arc<std::io::Error>);

impl IoError {
    /// The I/O error itself.
    pub fn io(&self) -> &std::io::Error {
        &self.0
    }
}

impl From<std::io::Error> for IoError {
    fn from(e: std::io::Error) -> IoError {
        IoError(std::sync::Arc::new(e))
    }
}

impl PartialEq for IoError {
    fn eq(&self, other: &IoError) -> bool {
        self.0.kind() == other.0.kind() && self.0.to_string() == other.0.to_string()
    }
}

impl Eq for IoError {}

impl fmt::Display for IoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// `std::result::Result` with this crate's [`Error`] as the default error,
/// so that `use reshard::*` leaves a reader's own `Result<T, String>` alone.
pub type Result<T, E = Error> = std::result::Result<T, E>;
