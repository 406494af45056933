//! `reshard`: what moves when a cluster grows, from the command line.
//!
//! Every subcommand's defaults are the parameters of a source document, so
//! running it with no flags prints that document's figures:
//!
//! * `reshard reproduce` — every figure of documents 000, 002 and 004 beside
//!   the document's value; exit code 1 when one differs.
//! * `reshard modulo` — `hash % N` (document 004: 1,000,000 keys, 10 → 11).
//! * `reshard ring` — consistent-hash ring (document 000: 100,000 `user:` keys,
//!   md5 mod 2^32, A,B,C → A,B,C,D, 150 points per node).
//! * `reshard rendezvous` — rendezvous hashing (document 002: 200,000 keys).
//! * `reshard shards` — 1000 fixed shards, seed 42 (document 004).
//! * `reshard hash KEY…` — the md5 integer of each key.
//! * `reshard slot KEY…` — each key's Redis Cluster slot (hash tags honoured).
//! * `reshard jump KEY BUCKETS` — jump consistent hash of a 64-bit key (and
//!   Guava's `consistentHash` when it differs).
//! * `reshard compare` — every scheme over one workload, side by side
//!   (100,000 keys, 10 → 11 nodes).
//!
//! Errors in the parameters print `error: <message>` and exit with code 2,
//! as clap does for malformed command lines.

use clap::{Args, Parser, Subcommand, ValueEnum};
use reshard::reproduce;
use reshard::slots::hashed_part;
use reshard::sweep::ModuloSweep;
use reshard::table::{pct, thousands, Table};
use reshard::{
    guava_consistent_hash, jump_hash, key_slot, md5_u128, named, numbered, ArrangementSweep, Check, Comparison,
    FixedShards, HashWidth, HashedKeys, KeySet, LoadReport, Modulo, Movement, Placement, Rendezvous, Ring,
};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

/// The most nodes a side of a change may have: the movement matrix holds
/// one count per (before, after) pair of nodes, so it grows as nodes².
const MAX_NODES: usize = 1000;
/// The most keys one run hashes (each costs about 30 bytes of memory).
const MAX_KEYS: u64 = 100_000_000;
/// The most fixed shards.
const MAX_SHARDS: u64 = 10_000_000;

const NODES_HELP: &str = "\
NODES (--from, --to) is either a count or a list of names:
  10          ten nodes named {prefix}0 … {prefix}9 (prefix from --name-prefix)
  A,B,C       the nodes named A, B and C
  7,          one node named \"7\" (a trailing comma makes a lone number a name)
Nodes are matched by name: a name in --to but not in --from was added, a name
in --from but not in --to was removed. At most 1000 nodes per side.";

#[derive(Parser, Debug)]
#[command(
    name = "reshard",
    version,
    about = "What moves when a cluster grows: hash % N, consistent-hash rings, rendezvous hashing and fixed shards, measured exactly.",
    long_about = "What moves when a cluster grows: hash % N, consistent-hash rings, rendezvous \
hashing and fixed shards, measured exactly over md5-hashed keys.\n\n\
Each subcommand's defaults are one source document's parameters, so running it \
without flags prints that document's figures: `reshard ring` is document 000, \
`reshard rendezvous` document 002, `reshard modulo` and `reshard shards` document 004. \
`reshard reproduce` checks every figure of all three.\n\n\
Exit codes: 0 success; 1 `reproduce` found a figure that differs; 2 bad input."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print every figure of the source documents beside the document's value
    Reproduce(ReproduceArgs),
    /// hash % N: the owner of a key is its md5 modulo the node count (defaults: document 004)
    #[command(after_help = NODES_HELP)]
    Modulo(ModuloArgs),
    /// Consistent-hash ring with virtual nodes (defaults: document 000)
    #[command(after_help = NODES_HELP)]
    Ring(RingArgs),
    /// Rendezvous (highest-random-weight) hashing, optionally weighted (defaults: document 002)
    #[command(after_help = NODES_HELP)]
    Rendezvous(RendezvousArgs),
    /// Fixed shards: keys → shards by md5 % S, whole shards → nodes (defaults: document 004)
    #[command(after_help = NODES_HELP)]
    Shards(ShardsArgs),
    /// Print the md5 integer of each key, as the documents compute it
    Hash(HashArgs),
    /// Print each key's Redis Cluster hash slot (CRC16 of the key, or of its {hash tag}, mod 16384)
    Slot(SlotArgs),
    /// Jump consistent hash (Lamping & Veach 2014) of a 64-bit key into BUCKETS buckets
    Jump(JumpArgs),
    /// Every placement scheme over one workload, side by side: keys moved, churn, balance, lookup time, memory
    Compare(CompareArgs),
}

#[derive(Args, Debug)]
struct ReproduceArgs {
    /// Only this document (default: all three)
    #[arg(long, value_parser = ["000", "002", "004"])]
    doc: Option<String>,
    /// Print JSON instead of tables
    #[arg(long)]
    json: bool,
}

/// The hash width: how many bits of the md5 integer are kept.
#[derive(ValueEnum, Clone, Copy, Debug)]
enum Width {
    /// md5 mod 2^32 (document 000)
    #[value(name = "32")]
    Bits32,
    /// the full 128-bit md5 integer (documents 002 and 004)
    #[value(name = "128")]
    Bits128,
}

impl From<Width> for HashWidth {
    fn from(w: Width) -> HashWidth {
        match w {
            Width::Bits32 => HashWidth::Bits32,
            Width::Bits128 => HashWidth::Bits128,
        }
    }
}

fn bits(w: HashWidth) -> u32 {
    match w {
        HashWidth::Bits32 => 32,
        HashWidth::Bits128 => 128,
    }
}

/// A side of a change as typed: a count or a list of names.
#[derive(Clone, Debug)]
enum Nodes {
    Count(usize),
    Names(Vec<String>),
}

impl Nodes {
    fn names(&self, prefix: &str) -> Vec<String> {
        match self {
            Nodes::Count(n) if prefix.is_empty() => numbered(*n),
            Nodes::Count(n) => named(prefix, *n),
            Nodes::Names(v) => v.clone(),
        }
    }
}

fn parse_nodes(s: &str) -> Result<Nodes, String> {
    let t = s.trim();
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        return match t.parse::<usize>() {
            Ok(n) if n <= MAX_NODES => Ok(Nodes::Count(n)),
            _ => Err(format!("{t} nodes is too many: use at most {MAX_NODES} nodes")),
        };
    }
    let mut parts: Vec<&str> = t.split(',').map(str::trim).collect();
    if parts.len() > 1 && parts.last() == Some(&"") {
        parts.pop();
    }
    if parts.iter().any(|p| p.is_empty()) {
        return Err("empty node name: give a count (10) or names separated by commas (A,B,C)".into());
    }
    if parts.len() > MAX_NODES {
        return Err(format!("{} nodes is too many: use at most {MAX_NODES} nodes", parts.len()));
    }
    Ok(Nodes::Names(parts.into_iter().map(String::from).collect()))
}

/// Node counts for `--sweep` (a newtype: clap would read a bare `Vec` as
/// several values).
#[derive(Clone, Debug)]
struct Counts(Vec<usize>);

/// Node counts for `--sweep`: `A..B` (both ends included) or `A,B,C`.
fn parse_counts(s: &str) -> Result<Counts, String> {
    let bad =
        || format!("{s:?} is not a node-count range: write A..B (e.g. 1..20, both ends included) or a list A,B,C");
    let num = |x: &str| -> Result<usize, String> {
        let n: usize = x.trim().parse().map_err(|_| bad())?;
        if n > MAX_NODES {
            return Err(format!("{n} nodes is too many: use at most {MAX_NODES} nodes"));
        }
        Ok(n)
    };
    let counts: Vec<usize> = if let Some((a, b)) = s.split_once("..") {
        let (a, b) = (num(a)?, num(b.trim_start_matches('='))?);
        if a > b {
            return Err(format!("the range {s} is empty: write the smaller count first (e.g. {b}..{a})"));
        }
        (a..=b).collect()
    } else {
        s.split(',').map(num).collect::<Result<_, _>>()?
    };
    if counts.is_empty() {
        return Err(bad());
    }
    Ok(Counts(counts))
}

#[derive(Args, Debug)]
struct ModuloArgs {
    /// How many keys (document 004: 1,000,000; document 002: 200,000; at most 100,000,000)
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(0..=MAX_KEYS))]
    keys: u64,
    /// Key prefix: keys are {prefix}0, {prefix}1, … (document 004: key)
    #[arg(long, default_value = "key")]
    prefix: String,
    /// Bits of md5 kept (document 004: 128)
    #[arg(long, value_enum, default_value = "128")]
    width: Width,
    /// Nodes before (document 004: 10)
    #[arg(long, value_name = "NODES", default_value = "10", value_parser = parse_nodes)]
    from: Nodes,
    /// Nodes after (document 004: 11)
    #[arg(long, value_name = "NODES", default_value = "11", value_parser = parse_nodes)]
    to: Nodes,
    /// Prefix for numbered nodes given as a count (default: none, nodes 0 … N-1)
    #[arg(long, default_value = "")]
    name_prefix: String,
    /// Also print the 1 − min/lcm rule's prediction beside the measured share
    #[arg(long)]
    rule: bool,
    /// Also measure --from → N for each N in a range, e.g. 1..20 (both ends included) or 9,11,20
    #[arg(long, value_name = "RANGE", value_parser = parse_counts)]
    sweep: Option<Counts>,
    /// Print JSON instead of tables
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct RingArgs {
    /// How many keys (document 000: 100,000; at most 100,000,000)
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(0..=MAX_KEYS))]
    keys: u64,
    /// Key prefix: keys are {prefix}0, {prefix}1, … (document 000: user:)
    #[arg(long, default_value = "user:")]
    prefix: String,
    /// Bits of md5 kept, for keys and ring points (document 000: 32)
    #[arg(long, value_enum, default_value = "32")]
    width: Width,
    /// Nodes before (document 000: A,B,C)
    #[arg(long, value_name = "NODES", default_value = "A,B,C", value_parser = parse_nodes)]
    from: Nodes,
    /// Nodes after (document 000: A,B,C,D)
    #[arg(long, value_name = "NODES", default_value = "A,B,C,D", value_parser = parse_nodes)]
    to: Nodes,
    /// Prefix for nodes given as a count (document 000 names its 10 → 11 ring S0 … S10)
    #[arg(long, default_value = "S")]
    name_prefix: String,
    /// Points per node on the ring (document 000: 150, and 1 for the bare ring)
    #[arg(long, default_value_t = 150)]
    vnodes: usize,
    /// Text in front of every point name "{salt}{node}#{i}": another arrangement of the same nodes
    #[arg(long, default_value = "", conflicts_with = "arrangements")]
    salt: String,
    /// Also repeat the change over this many arrangements, salts "0:" … "{N-1}:" (document 000: 30)
    #[arg(long, value_name = "N")]
    arrangements: Option<usize>,
    /// Print JSON instead of tables
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct RendezvousArgs {
    /// How many keys (document 002: 200,000; at most 100,000,000)
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(0..=MAX_KEYS))]
    keys: u64,
    /// Key prefix: keys are {prefix}0, {prefix}1, … (document 002: key)
    #[arg(long, default_value = "key")]
    prefix: String,
    /// Bits of md5 kept, for keys and scores (document 002: 128)
    #[arg(long, value_enum, default_value = "128")]
    width: Width,
    /// Nodes before (document 002: 10)
    #[arg(long, value_name = "NODES", default_value = "10", value_parser = parse_nodes)]
    from: Nodes,
    /// Nodes after (document 002: 11)
    #[arg(long, value_name = "NODES", default_value = "11", value_parser = parse_nodes)]
    to: Nodes,
    /// Prefix for numbered nodes given as a count (default: none, nodes 0 … N-1 as in document 002)
    #[arg(long, default_value = "")]
    name_prefix: String,
    /// Weights of the --to nodes, one each, e.g. 1,1,2 (weighted variant; default: unweighted)
    #[arg(long, value_delimiter = ',', value_name = "W,W,…")]
    weights: Option<Vec<f64>>,
    /// Weights of the --from nodes (default with --weights: each node's --weights value, 1 for removed nodes)
    #[arg(long, value_delimiter = ',', value_name = "W,W,…", requires = "weights")]
    from_weights: Option<Vec<f64>>,
    /// Print JSON instead of tables
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct ShardsArgs {
    /// How many keys (document 004: 1,000,000; at most 100,000,000)
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(0..=MAX_KEYS))]
    keys: u64,
    /// Key prefix: keys are {prefix}0, {prefix}1, … (document 004: key)
    #[arg(long, default_value = "key")]
    prefix: String,
    /// Bits of md5 kept (document 004: 128)
    #[arg(long, value_enum, default_value = "128")]
    width: Width,
    /// Number of fixed shards S; a key's shard is md5 % S (document 004: 1000; at most 10,000,000)
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(0..=MAX_SHARDS))]
    shards: u64,
    /// Nodes before; shard s starts on node s % N (document 004: 10)
    #[arg(long, value_name = "NODES", default_value = "10", value_parser = parse_nodes)]
    from: Nodes,
    /// Nodes after; shards are rebalanced to within one of even (document 004: 11)
    #[arg(long, value_name = "NODES", default_value = "11", value_parser = parse_nodes)]
    to: Nodes,
    /// Prefix for numbered nodes given as a count (default: none, nodes 0 … N-1)
    #[arg(long, default_value = "")]
    name_prefix: String,
    /// Seed of the Python-compatible shuffle that picks which shards move (document 004: 42)
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Print JSON instead of tables
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct HashArgs {
    /// Keys to hash, e.g. user:0 key42
    #[arg(required = true, value_name = "KEY")]
    keys: Vec<String>,
    /// Print only this width (default: both 128-bit and mod 2^32)
    #[arg(long, value_enum)]
    width: Option<Width>,
    /// Print JSON instead of a table
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct SlotArgs {
    /// Keys, e.g. somekey user:{42}:name
    #[arg(required = true, value_name = "KEY")]
    keys: Vec<String>,
    /// Print JSON instead of a table
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct JumpArgs {
    /// The 64-bit key (an unsigned integer, 0 … 18446744073709551615)
    #[arg(value_name = "KEY")]
    key: u64,
    /// How many buckets (at least 1)
    #[arg(value_name = "BUCKETS")]
    buckets: u32,
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct CompareArgs {
    /// How many keys (default 100,000; at most 100,000,000)
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(0..=MAX_KEYS))]
    keys: u64,
    /// Key prefix: keys are {prefix}0, {prefix}1, …
    #[arg(long, default_value = "key")]
    prefix: String,
    /// Bits of md5 kept
    #[arg(long, value_enum, default_value = "128")]
    width: Width,
    /// Nodes before, numbered 0 … N-1 (at most 1000: the fixed shards have 1000 shards)
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=1000))]
    from: u64,
    /// Nodes after, numbered 0 … N-1 (at most 1000)
    #[arg(long, default_value_t = 11, value_parser = clap::value_parser!(u64).range(0..=1000))]
    to: u64,
    /// Ring points per node (the ring and the bounded-load ring)
    #[arg(long, default_value_t = reshard::compare::RING_VNODES)]
    vnodes: usize,
    /// Fixed shards: how many
    #[arg(long, default_value_t = reshard::compare::SHARDS)]
    shards: usize,
    /// Fixed shards: the seed that picks which shards move
    #[arg(long, default_value_t = reshard::compare::SHARD_SEED)]
    seed: u64,
    /// Bounded loads: each node holds at most ⌈(1 + ε)·m/n⌉ keys
    #[arg(long, default_value_t = reshard::compare::EPSILON)]
    epsilon: f64,
    /// Maglev's table size (a prime)
    #[arg(long, default_value_t = reshard::maglev::DEFAULT_TABLE_SIZE)]
    maglev_m: usize,
    /// Print JSON instead of a table
    #[arg(long)]
    json: bool,
}

/// What a command produced: its text and its exit code.
struct Output {
    text: String,
    code: u8,
}

impl Output {
    fn ok(text: String) -> Self {
        Output { text, code: 0 }
    }
}

/// An error to print as `error: <message>` with exit code 2.
#[derive(Debug)]
struct Failure(String);

impl From<reshard::Error> for Failure {
    fn from(e: reshard::Error) -> Self {
        Failure(e.to_string())
    }
}

/// Name the flag a library error came from, for the errors where it is not
/// obvious (node lists, weights): `"<message> (in --to)"`.
fn from_flag(flag: &'static str) -> impl Fn(reshard::Error) -> Failure {
    use reshard::Error as E;
    move |e| match e {
        E::NoNodes
        | E::DuplicateNode(_)
        | E::MoreNodesThanShards { .. }
        | E::BadWeight { .. }
        | E::WeightCount { .. } => Failure(format!("{e} (in {flag})")),
        other => Failure::from(other),
    }
}

type Run = Result<Output, Failure>;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Reproduce(a) => run_reproduce(&a),
        Command::Modulo(a) => run_modulo(&a),
        Command::Ring(a) => run_ring(&a),
        Command::Rendezvous(a) => run_rendezvous(&a),
        Command::Shards(a) => run_shards(&a),
        Command::Hash(a) => run_hash(&a),
        Command::Slot(a) => run_slot(&a),
        Command::Jump(a) => run_jump(&a),
        Command::Compare(a) => run_compare(&a),
    };
    match result {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            let mut text = out.text;
            if !text.ends_with('\n') {
                text.push('\n');
            }
            match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
                Ok(()) => ExitCode::from(out.code),
                // `reshard … | head` closes the pipe early: not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(out.code),
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "error: cannot write the output: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Err(Failure(e)) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            ExitCode::from(2)
        }
    }
}

fn to_json<T: Serialize>(value: &T) -> Result<String, Failure> {
    serde_json::to_string_pretty(value).map_err(|e| Failure(format!("cannot write JSON: {e}")))
}

// ---------------------------------------------------------------- reproduce

#[derive(Serialize)]
struct ReproduceJson {
    all_match: bool,
    documents: Vec<DocJson>,
}

#[derive(Serialize)]
struct DocJson {
    doc: String,
    title: String,
    all_match: bool,
    checks: Vec<CheckJson>,
}

#[derive(Serialize)]
struct CheckJson {
    label: String,
    document: String,
    measured: String,
    matches: bool,
}

impl From<&Check> for CheckJson {
    fn from(c: &Check) -> Self {
        CheckJson {
            label: c.label.clone(),
            document: c.document.clone(),
            measured: c.measured.clone(),
            matches: c.matches(),
        }
    }
}

fn run_reproduce(a: &ReproduceArgs) -> Run {
    let docs: Vec<&str> = match &a.doc {
        Some(d) => vec![d.as_str()],
        None => reproduce::DOCUMENTS.to_vec(),
    };
    let mut text = String::new();
    let mut json = ReproduceJson { all_match: true, documents: Vec::new() };
    let mut mismatches = Vec::new();
    for doc in docs {
        let checks = reproduce::document(doc)?;
        let all = checks.all_match();
        json.all_match &= all;
        for c in checks.checks().iter().filter(|c| !c.matches()) {
            mismatches.push(format!("{doc} {c}"));
        }
        let _ = writeln!(text, "{checks}");
        let n = checks.checks().len();
        let bad = checks.checks().iter().filter(|c| !c.matches()).count();
        if all {
            let _ = writeln!(text, "document {doc}: all {n} figures match\n");
        } else {
            let _ = writeln!(text, "document {doc}: {bad} of {n} figures differ\n");
        }
        json.documents.push(DocJson {
            doc: doc.to_string(),
            title: reproduce::title(doc).to_string(),
            all_match: all,
            checks: checks.checks().iter().map(CheckJson::from).collect(),
        });
    }
    if !mismatches.is_empty() {
        let mut err = std::io::stderr().lock();
        for m in &mismatches {
            let _ = writeln!(err, "differs: {m}");
        }
    }
    let text = if a.json { to_json(&json)? } else { text.trim_end().to_string() };
    Ok(Output { text, code: if json.all_match { 0 } else { 1 } })
}

// ------------------------------------------------------- shared: the change

#[derive(Serialize)]
struct KeysJson {
    count: u64,
    prefix: String,
    width: u32,
}

#[derive(Serialize)]
struct MovementJson {
    keys: u64,
    moved: u64,
    share: f64,
    to_added: u64,
    between_kept: u64,
    from_removed: u64,
    added_nodes: Vec<String>,
    removed_nodes: Vec<String>,
    /// Every node seen: before's in order, then the added ones.
    nodes: Vec<String>,
    /// `matrix[i][j]`: keys on `nodes[i]` before and on `nodes[j]` after.
    matrix: Vec<Vec<u64>>,
}

#[derive(Serialize)]
struct LoadJson {
    nodes: Vec<String>,
    counts: Vec<u64>,
    min: u64,
    max: u64,
    mean: f64,
    max_over_mean: f64,
    std_dev: f64,
}

#[derive(Serialize)]
struct SchemeJson<X: Serialize> {
    scheme: &'static str,
    keys: KeysJson,
    before: Vec<String>,
    after: Vec<String>,
    #[serde(flatten)]
    params: X,
    movement: MovementJson,
    load_before: LoadJson,
    load_after: LoadJson,
}

/// One measured change: the movement and the loads on each side.
struct Change {
    keys: HashedKeys,
    before: Vec<String>,
    after: Vec<String>,
    movement: Movement,
    load_before: LoadReport,
    load_after: LoadReport,
}

impl Change {
    fn measure<P: Placement>(keys: HashedKeys, before: &P, after: &P) -> Result<Change, Failure> {
        let movement = Movement::measure(&keys, before, after)?;
        let load_on = |names: &[String], load: Vec<u64>| {
            let counts =
                names.iter().map(|n| movement.nodes().iter().position(|x| x == n).map_or(0, |i| load[i])).collect();
            LoadReport::from_counts(names.to_vec(), counts)
        };
        let load_before = load_on(before.nodes(), movement.load_before());
        let load_after = load_on(after.nodes(), movement.load_after());
        Ok(Change {
            before: before.nodes().to_vec(),
            after: after.nodes().to_vec(),
            keys,
            movement,
            load_before,
            load_after,
        })
    }

    fn header(&self, scheme: &str, detail: &str) -> String {
        let k = self.keys.keys();
        let n = k.len();
        let keys = if n == 1 {
            format!("1 key ({}0)", k.prefix())
        } else {
            format!("{} keys ({}0 … {}{})", thousands(n as u64), k.prefix(), k.prefix(), n - 1)
        };
        let mut s = format!("{scheme} · {keys} · {}", self.keys.width());
        if !detail.is_empty() {
            let _ = write!(s, " · {detail}");
        }
        let _ = write!(s, "\nbefore: {}\nafter:  {}", describe(&self.before), describe(&self.after));
        s
    }

    fn text(&self, scheme: &str, detail: &str) -> String {
        format!(
            "{}\n\n{}\n\nbefore — {}\n\nafter — {}",
            self.header(scheme, detail),
            self.movement,
            self.load_before,
            self.load_after
        )
    }

    fn json<X: Serialize>(&self, scheme: &'static str, params: X) -> SchemeJson<X> {
        let m = &self.movement;
        let own = |v: Vec<&str>| v.into_iter().map(String::from).collect();
        SchemeJson {
            scheme,
            keys: KeysJson {
                count: self.keys.len() as u64,
                prefix: self.keys.keys().prefix().to_string(),
                width: bits(self.keys.width()),
            },
            before: self.before.clone(),
            after: self.after.clone(),
            params,
            movement: MovementJson {
                keys: m.keys(),
                moved: m.moved(),
                share: m.share(),
                to_added: m.to_added(),
                between_kept: m.between_kept(),
                from_removed: m.from_removed(),
                added_nodes: own(m.added_nodes()),
                removed_nodes: own(m.removed_nodes()),
                nodes: m.nodes().to_vec(),
                matrix: m.matrix().to_vec(),
            },
            load_before: load_json(&self.load_before),
            load_after: load_json(&self.load_after),
        }
    }
}

fn load_json(l: &LoadReport) -> LoadJson {
    LoadJson {
        nodes: l.nodes().to_vec(),
        counts: l.counts().to_vec(),
        min: l.min(),
        max: l.max(),
        mean: l.mean(),
        max_over_mean: l.max_over_mean(),
        std_dev: l.std_dev(),
    }
}

/// `"3 nodes: A, B, C"`, or the first and last few of a long list.
fn describe(names: &[String]) -> String {
    let n = names.len();
    let list = if n <= 12 {
        names.join(", ")
    } else {
        format!("{}, … {}", names[..3].join(", "), names[n - 2..].join(", "))
    };
    format!("{n} node{}: {list}", if n == 1 { "" } else { "s" })
}

fn hashed(keys: u64, prefix: &str, width: Width) -> Result<HashedKeys, reshard::Error> {
    KeySet::new(prefix, keys as usize).hashed(width.into())
}

// ------------------------------------------------------------------ modulo

#[derive(Serialize)]
struct ModuloParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<RuleJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sweep: Option<ModuloSweep>,
}

#[derive(Serialize)]
struct RuleJson {
    old: usize,
    new: usize,
    min: usize,
    lcm: u128,
    predicted: f64,
    measured: f64,
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn run_modulo(a: &ModuloArgs) -> Run {
    let before = Modulo::with_nodes(a.from.names(&a.name_prefix)).map_err(from_flag("--from"))?;
    let after = Modulo::with_nodes(a.to.names(&a.name_prefix)).map_err(from_flag("--to"))?;
    let keys = hashed(a.keys, &a.prefix, a.width)?;
    let sweep = match &a.sweep {
        Some(Counts(counts)) => {
            let pairs: Vec<(usize, usize)> = counts.iter().map(|&n| (before.len(), n)).collect();
            Some(ModuloSweep::run(&keys, &pairs).map_err(from_flag("--sweep"))?)
        }
        None => None,
    };
    let change = Change::measure(keys, &before, &after)?;
    let (old, new) = (before.len(), after.len());
    let lcm = old as u128 / gcd(old as u128, new as u128) * new as u128;
    let rule = a.rule.then(|| RuleJson {
        old,
        new,
        min: old.min(new),
        lcm,
        predicted: reshard::modulo_rule(old, new),
        measured: change.movement.share(),
    });
    if a.json {
        return Ok(Output::ok(to_json(&change.json("modulo", ModuloParams { rule, sweep }))?));
    }
    let mut text = change.text("hash % N", "");
    if let Some(r) = rule {
        let _ = write!(
            text,
            "\n\nthe min/lcm rule: 1 − min({old}, {new}) / lcm({old}, {new}) = 1 − {} / {} = {} · measured {}",
            r.min,
            thousands(r.lcm as u64),
            pct(r.predicted, 2),
            pct(r.measured, 2)
        );
    }
    if let Some(s) = sweep {
        let _ = write!(text, "\n\n{s}");
    }
    Ok(Output::ok(text))
}

// -------------------------------------------------------------------- ring

#[derive(Serialize)]
struct RingParams<'a> {
    vnodes: usize,
    salt: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    arrangements: Option<ArrangementSweep>,
}

fn run_ring(a: &RingArgs) -> Run {
    let (from, to) = (a.from.names(&a.name_prefix), a.to.names(&a.name_prefix));
    let before = Ring::salted(from.clone(), a.vnodes, &a.salt).map_err(from_flag("--from"))?;
    let after = Ring::salted(to.clone(), a.vnodes, &a.salt).map_err(from_flag("--to"))?;
    let keys = hashed(a.keys, &a.prefix, a.width)?;
    let sweep = match a.arrangements {
        Some(n) => Some(ArrangementSweep::run(&keys, &from, &to, a.vnodes, n)?),
        None => None,
    };
    let change = Change::measure(keys, &before, &after)?;
    if a.json {
        let params = RingParams { vnodes: a.vnodes, salt: &a.salt, arrangements: sweep };
        return Ok(Output::ok(to_json(&change.json("ring", params))?));
    }
    let mut detail = format!("{} point{} per node", a.vnodes, if a.vnodes == 1 { "" } else { "s" });
    if !a.salt.is_empty() {
        let _ = write!(detail, " · salt {:?}", a.salt);
    }
    let mut text = change.text("consistent-hash ring", &detail);
    if let Some(s) = sweep {
        let _ = write!(text, "\n\n{s}");
    }
    Ok(Output::ok(text))
}

// -------------------------------------------------------------- rendezvous

#[derive(Serialize)]
struct RendezvousParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    weights_before: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    weights_after: Option<Vec<f64>>,
}

fn run_rendezvous(a: &RendezvousArgs) -> Run {
    let (from, to) = (a.from.names(&a.name_prefix), a.to.names(&a.name_prefix));
    // Names first (before, then after), then the weights.
    let plain_before = Rendezvous::with_nodes(from.clone()).map_err(from_flag("--from"))?;
    let plain_after = Rendezvous::with_nodes(to.clone()).map_err(from_flag("--to"))?;
    let (before, after) = match &a.weights {
        None => (plain_before, plain_after),
        Some(w) => {
            let after = Rendezvous::weighted(to.clone(), w.iter().copied()).map_err(from_flag("--weights"))?;
            // Without --from-weights a kept node keeps its weight, so only
            // the change of node set moves keys.
            let (wb, flag) = match &a.from_weights {
                Some(wb) => (wb.clone(), "--from-weights"),
                None => {
                    (from.iter().map(|n| to.iter().position(|m| m == n).map_or(1.0, |i| w[i])).collect(), "--weights")
                }
            };
            (Rendezvous::weighted(from, wb).map_err(from_flag(flag))?, after)
        }
    };
    let keys = hashed(a.keys, &a.prefix, a.width)?;
    let change = Change::measure(keys, &before, &after)?;
    let params = RendezvousParams {
        weights_before: before.weights().map(<[f64]>::to_vec),
        weights_after: after.weights().map(<[f64]>::to_vec),
    };
    if a.json {
        return Ok(Output::ok(to_json(&change.json("rendezvous", params))?));
    }
    let detail = match (&params.weights_before, &params.weights_after) {
        (Some(b), Some(w)) => format!("weighted: before {} · after {}", weight_list(b), weight_list(w)),
        _ => String::new(),
    };
    Ok(Output::ok(change.text("rendezvous hashing", &detail)))
}

fn weight_list(w: &[f64]) -> String {
    w.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

// ------------------------------------------------------------------ shards

#[derive(Serialize)]
struct ShardsParams {
    shards: usize,
    seed: u64,
    shards_moved: usize,
    shards_before: Vec<usize>,
    shards_after: Vec<usize>,
    /// `table_after[s]`: the node (name) serving shard `s` after the change.
    table_after: Vec<String>,
}

fn run_shards(a: &ShardsArgs) -> Run {
    let before =
        FixedShards::with_nodes(a.shards as usize, a.from.names(&a.name_prefix)).map_err(from_flag("--from"))?;
    let after = before.rebalance_to(a.to.names(&a.name_prefix), a.seed).map_err(from_flag("--to"))?;
    let keys = hashed(a.keys, &a.prefix, a.width)?;
    let moved_shards = before.moved_shards(&after).len();
    let change = Change::measure(keys, &before, &after)?;
    let params = ShardsParams {
        shards: before.shard_count(),
        seed: a.seed,
        shards_moved: moved_shards,
        shards_before: before.shard_counts(),
        shards_after: after.shard_counts(),
        table_after: after.table().iter().map(|&i| after.nodes()[i as usize].clone()).collect(),
    };
    if a.json {
        return Ok(Output::ok(to_json(&change.json("shards", params))?));
    }
    let detail =
        format!("{} fixed shards (shard = md5 % {}) · seed {}", thousands(params.shards as u64), params.shards, a.seed);
    let mut t = Table::new("shards per node", ["node", "before", "after"]);
    for n in change.movement.nodes() {
        let count = |f: &FixedShards, c: &[usize]| {
            f.nodes().iter().position(|x| x == n).map_or("—".to_string(), |i| c[i].to_string())
        };
        t.row([n.clone(), count(&before, &params.shards_before), count(&after, &params.shards_after)]);
    }
    let m = &change.movement;
    let text = format!(
        "{}\n\nshards moved: {} of {} · keys moved: {} ({})\n\n{}\n\n{}\n\nbefore — {}\n\nafter — {}",
        change.header("fixed shards", &detail),
        thousands(moved_shards as u64),
        thousands(params.shards as u64),
        thousands(m.moved()),
        pct(m.share(), 2),
        t,
        m,
        change.load_before,
        change.load_after
    );
    Ok(Output::ok(text))
}

// -------------------------------------------------------------------- hash

#[derive(Serialize)]
struct HashJson {
    key: String,
    /// The integer as a decimal string: JSON numbers cannot hold 128 bits.
    #[serde(skip_serializing_if = "Option::is_none")]
    md5_128: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    md5_32: Option<u64>,
    md5_hex: String,
}

fn run_hash(a: &HashArgs) -> Run {
    let (show128, show32) = match a.width {
        None => (true, true),
        Some(Width::Bits128) => (true, false),
        Some(Width::Bits32) => (false, true),
    };
    let rows: Vec<HashJson> = a
        .keys
        .iter()
        .map(|k| {
            let full = md5_u128(k.as_bytes());
            HashJson {
                key: k.clone(),
                md5_128: show128.then(|| full.to_string()),
                md5_32: show32.then(|| HashWidth::Bits32.reduce(full) as u64),
                md5_hex: format!("{full:032x}"),
            }
        })
        .collect();
    if a.json {
        return Ok(Output::ok(to_json(&rows)?));
    }
    let mut headers = vec!["key", "md5 (hex)"];
    if show128 {
        headers.push("md5 (128-bit integer)");
    }
    if show32 {
        headers.push("md5 mod 2^32");
    }
    let mut t = Table::new("", headers);
    for r in &rows {
        let mut row = vec![r.key.clone(), r.md5_hex.clone()];
        row.extend(r.md5_128.clone());
        row.extend(r.md5_32.map(|x| x.to_string()));
        t.row(row);
    }
    t.note(
        "the integer is Python's int(hashlib.md5(key.encode()).hexdigest(), 16); mod 2^32 keeps its last 8 hex digits",
    );
    Ok(Output::ok(t.to_string()))
}

// -------------------------------------------------------------------- slot

#[derive(Serialize)]
struct SlotJson {
    key: String,
    slot: u16,
    /// The bytes CRC16 was computed over: the hash tag, or the whole key.
    hashed: String,
    hash_tag: bool,
}

fn run_slot(a: &SlotArgs) -> Run {
    let rows: Vec<SlotJson> = a
        .keys
        .iter()
        .map(|k| {
            let part = hashed_part(k.as_bytes());
            SlotJson {
                key: k.clone(),
                slot: key_slot(k.as_bytes()),
                hashed: String::from_utf8_lossy(part).into_owned(),
                hash_tag: part.len() != k.len(),
            }
        })
        .collect();
    if a.json {
        return Ok(Output::ok(to_json(&rows)?));
    }
    let mut t = Table::new("", ["key", "slot", "hashed part"]);
    for r in &rows {
        let hashed = if r.hash_tag { format!("{} (hash tag)", r.hashed) } else { format!("{} (whole key)", r.hashed) };
        t.row([r.key.clone(), r.slot.to_string(), hashed]);
    }
    t.note("slot = CRC16-XMODEM(hashed part) mod 16384, as CLUSTER KEYSLOT computes it");
    Ok(Output::ok(t.to_string()))
}

// -------------------------------------------------------------------- jump

#[derive(Serialize)]
struct JumpJson {
    key: u64,
    buckets: u32,
    /// The paper's algorithm.
    bucket: u32,
    /// Guava's Hashing.consistentHash, when defined (buckets ≤ 2^31 − 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    guava: Option<u32>,
}

fn run_jump(a: &JumpArgs) -> Run {
    let bucket = jump_hash(a.key, a.buckets)?;
    let guava = guava_consistent_hash(a.key, a.buckets).ok();
    if a.json {
        return Ok(Output::ok(to_json(&JumpJson { key: a.key, buckets: a.buckets, bucket, guava })?));
    }
    let mut text = bucket.to_string();
    match guava {
        Some(g) if g != bucket => {
            let _ = write!(
                text,
                "\nGuava's Hashing.consistentHash({}, {}) gives {g}: it rounds the jump division differently",
                a.key, a.buckets
            );
        }
        Some(_) => {}
        None => {
            let _ = write!(text, "\n(Guava's consistentHash takes at most {} buckets)", i32::MAX);
        }
    }
    Ok(Output::ok(text))
}

// ----------------------------------------------------------------- compare

fn run_compare(a: &CompareArgs) -> Run {
    let (from, to) = (a.from as usize, a.to as usize);
    // Node counts first, with the flag named, before any hashing.
    Modulo::new(from).map_err(from_flag("--from"))?;
    Modulo::new(to).map_err(from_flag("--to"))?;
    let keys = hashed(a.keys, &a.prefix, a.width)?;
    let settings = reshard::CompareSettings {
        vnodes: a.vnodes,
        shards: a.shards,
        seed: a.seed,
        epsilon: a.epsilon,
        maglev_m: a.maglev_m,
        ..Default::default()
    };
    let c = Comparison::run_with(&keys, from, to, &settings)?;
    if a.json {
        return Ok(Output::ok(to_json(&c)?));
    }
    Ok(Output::ok(c.table().to_string()))
}
