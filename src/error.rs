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

mod display;
mod io;
mod problems;
pub use io::IoError;
pub use problems::{PartitionProblem, RangeProblem};

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
    WeightsTooUneven {
        /// The first server left without a point.
        node: String,
        /// Its weight.
        weight: u64,
        /// The total weight of all servers.
        total: u64,
    },
    /// A weight over the most the real program reads (twemproxy keeps a
    /// weight in a C `int`).
    WeightTooLarge {
        /// The server.
        node: String,
        /// Its weight.
        weight: u64,
        /// The most accepted.
        max: u64,
        /// The program whose limit it is, e.g. `"twemproxy"`.
        program: &'static str,
    },
    /// `add_node` on a weighted placement, which cannot choose the new
    /// node's weight (weighted rendezvous).
    WeightNeeded {
        /// The node to add.
        node: String,
    },
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
    /// An escape in a key list that [`crate::keys::unescape`] does not know.
    BadEscape {
        /// The escape as written (at most 4 bytes, shown lossily as UTF-8).
        text: String,
    },
    /// A twemproxy `servers:` line that nutcracker would not read.
    BadServerLine {
        /// The line as given.
        line: String,
        /// What is wrong with it, e.g. "has no weight".
        problem: &'static str,
    },
    /// A Maglev permutation that does not list every table entry once.
    NotAPermutation {
        /// The backend whose permutation it is.
        node: String,
        /// The table size M: a permutation lists `0..M`.
        size: usize,
        /// The first entry out of range or repeated.
        entry: u64,
    },
    /// A slot plan appended to one whose table it does not start from.
    PlansDoNotJoin {
        /// The first slot whose node differs.
        slot: usize,
        /// Its node at the end of the first plan.
        ends_on: String,
        /// Its node at the start of the next.
        starts_on: String,
    },
    /// A node removed (`del-node`) while it still serves slots.
    NodeStillServes {
        /// The node.
        node: String,
        /// The slots it serves.
        slots: usize,
    },
    /// Rebalance weights that leave every node over its share in redis-cli's
    /// `f32` arithmetic, where redis-cli would loop for ever.
    RebalanceStuck {
        /// Slots over their share, in all.
        over: i64,
    },
    /// Two shard tables of different sizes compared shard by shard.
    ShardCountsDiffer {
        /// Shards of the first table.
        left: usize,
        /// Shards of the second.
        right: usize,
    },
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
    /// A proxy backend name that cannot go into a config file as is.
    BadBackendName {
        /// The name as given.
        name: String,
    },
    /// A hash tag nutcracker's YAML cannot hold.
    BadHashTag {
        /// The tag as given.
        tag: String,
    },
    /// The empty key, which a live server cannot store or route.
    EmptyKey {
        /// Its place in the list, from 0.
        index: usize,
    },
    /// An observed key found on no backend or on several, where one was needed.
    NotOnOneBackend {
        /// The key, printed (bytes escaped with [`crate::keys::escape`]).
        key: String,
        /// How it was observed: "stored", "routed" or "answered".
        how: String,
        /// The backends it was found on.
        backends: usize,
        /// Keys of the observation on no backend.
        nowhere: u64,
        /// Keys on several.
        several: u64,
    },
    /// Two observations compared key by key are of different keys.
    ObservationsDiffer {
        /// Keys of the first observation.
        keys: usize,
        /// Keys of the second.
        other: usize,
        /// The first position where they differ.
        first: usize,
    },
    /// A live server answered with a reply of another kind than asked for.
    UnexpectedReply {
        /// The server (empty when the reply's origin is not known).
        node: String,
        /// Its port on 127.0.0.1 (0 when not known).
        port: u16,
        /// What it was asked, e.g. "CLUSTER NODES".
        doing: String,
        /// What it answered, printed.
        got: String,
    },
    /// No free port was found for a server after several tries.
    NoFreePort {
        /// The server.
        node: String,
        /// Ports tried.
        tries: usize,
    },
    /// A worker thread of a live driver panicked (a bug of this crate).
    ThreadPanicked {
        /// What the thread did, e.g. "loading keys into a node".
        task: &'static str,
    },
    /// A Redis Cluster node that `del_node` removed, named again.
    NodeRemoved {
        /// The node.
        node: String,
        /// The nodes the cluster has now.
        remaining: Vec<String>,
    },
    /// `CLUSTER NODES` lists a node this crate did not start.
    StrangerNode {
        /// Its node id.
        id: String,
        /// The node that listed it.
        seen_by: String,
    },
    /// A slot that no node of the cluster serves.
    SlotUnserved {
        /// The slot.
        slot: usize,
    },
    /// The nodes of a Redis Cluster did not agree within the wait.
    NotSettled {
        /// How long the crate waited.
        waited: std::time::Duration,
        /// What was still wrong at the end.
        why: String,
    },
    /// `redis-cli` exited with an error or printed `[ERR]`.
    CliFailed {
        /// The command, ports replaced by node names.
        command: String,
        /// Its exit code (`None`: killed by a signal).
        code: Option<i32>,
        /// The last lines it printed.
        output: String,
    },
    /// A node the cluster no longer lists (`redis-cli`: "No such node ID").
    NotInCluster {
        /// The node.
        node: String,
        /// Its port on 127.0.0.1.
        port: u16,
        /// The node asked.
        seen_by: String,
    },
    /// Text PostgreSQL's `text` cannot store: a NUL byte, or bytes that are
    /// not UTF-8.
    NotPgText {
        /// What the text is, e.g. "a bound".
        what: &'static str,
        /// The text, printed (bytes escaped with [`crate::keys::escape`]).
        text: String,
    },
    /// A name already in use, where names must be told apart: a table the
    /// live servers have, a column every table has or one added before, a
    /// label an explorable draws itself (a node named "keys moved" beside
    /// the keys-moved bars) or another line or bar group of the same chart.
    NameTaken {
        /// What the name is for, e.g. "table", "column".
        what: &'static str,
        /// The name as given.
        name: String,
        /// What holds it, e.g. "one of the columns every table has (key, h and seq)".
        by: &'static str,
    },
    /// A table's ranges that do not cover every key exactly once.
    BadRanges {
        /// The table.
        table: String,
        /// What is wrong.
        problem: Box<RangeProblem>,
    },
    /// A partition operation that the table's partitions do not allow.
    BadPartition {
        /// The table.
        table: String,
        /// What is wrong.
        problem: Box<PartitionProblem>,
    },
    /// A shard number that names no shard of a shard map or a request trace.
    NoSuchShard {
        /// The shard given.
        shard: usize,
        /// How many shards there are.
        shards: usize,
    },
    /// A live server answered a request with an error of its own (etcd's
    /// `{"error": …}`, a Redis error reply): names the server, its port,
    /// what it was asked and its own message.
    ServerRefused {
        /// The server, e.g. `"etcd1"`.
        node: String,
        /// Its port on 127.0.0.1.
        port: u16,
        /// What it was asked, e.g. "put /reshard/shards/07".
        doing: String,
        /// The server's own message, e.g. "etcdserver: requested lease not found".
        message: String,
    },
    /// A server the driver stopped (or that was killed) was asked to do
    /// something only a running server can.
    NotRunning {
        /// The server.
        node: String,
        /// Its port on 127.0.0.1 (0: a process without one, e.g. a heartbeat).
        port: u16,
        /// What it was asked to do.
        doing: String,
    },
    /// A server asked to start while it runs.
    AlreadyRunning {
        /// The server.
        node: String,
        /// Its port on 127.0.0.1.
        port: u16,
    },
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

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::ServerFailed { source: Some(e), .. } | Error::System { source: e, .. } => Some(e.io()),
            _ => None,
        }
    }
}

/// `std::result::Result` with this crate's [`Error`] as the default error,
/// so that `use reshard::*` leaves a reader's own `Result<T, String>` alone.
pub type Result<T, E = Error> = std::result::Result<T, E>;
