//! `reshard`: what moves when a cluster grows, from the command line.
//!
//! Every subcommand's defaults are the parameters of a source document, so
//! running it with no flags prints that document's figures (see each
//! subcommand's module). `--json` (anywhere on the line) prints the
//! library's result types as JSON instead of their tables.
//!
//! Errors in the parameters print `error: <message>` and exit with code 2,
//! as clap does for malformed command lines; a value clap rejects is
//! reported as `error: --flag: <what is wrong and what to type>`.

mod change;
mod compare;
mod hash;
mod jump;
mod modulo;
mod output;
mod rendezvous;
mod reproduce;
mod ring;
mod shards;
mod slot;
mod workload;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Parser, Subcommand};
use output::{Failure, Run};
use std::io::Write as _;
use std::process::ExitCode;
use workload::NODES_HELP;

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
Every experiment finishes within a minute and 2 GiB on two cores, or is refused at once \
with a message naming the limit (see the library's `limits` module).\n\n\
Exit codes: 0 success; 1 `reproduce` found a figure that differs; 2 bad input."
)]
struct Cli {
    /// Print JSON instead of tables
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print every figure of the source documents beside the document's value
    Reproduce(reproduce::Args),
    /// hash % N: the owner of a key is its md5 modulo the node count (defaults: document 004)
    #[command(after_help = NODES_HELP)]
    Modulo(modulo::Args),
    /// Consistent-hash ring with virtual nodes (defaults: document 000)
    #[command(after_help = NODES_HELP)]
    Ring(ring::Args),
    /// Rendezvous (highest-random-weight) hashing, optionally weighted (defaults: document 002)
    #[command(after_help = NODES_HELP)]
    Rendezvous(rendezvous::Args),
    /// Fixed shards: keys → shards by md5 % S, whole shards → nodes (defaults: document 004)
    #[command(after_help = NODES_HELP)]
    Shards(shards::Args),
    /// Print the md5 integer of each key, as the documents compute it
    Hash(hash::Args),
    /// Print each key's Redis Cluster hash slot (CRC16 of the key, or of its {hash tag}, mod 16384)
    #[command(after_help = slot::SLOT_HELP)]
    Slot(slot::Args),
    /// Jump consistent hash (Lamping & Veach 2014) of a 64-bit key into BUCKETS buckets
    Jump(jump::Args),
    /// Every placement scheme over one workload, side by side: keys moved, churn, balance, lookup time, memory
    Compare(compare::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_error(e),
    };
    let json = cli.json;
    let result: Run = match &cli.command {
        Command::Reproduce(a) => reproduce::run(a, json),
        Command::Modulo(a) => modulo::run(a, json),
        Command::Ring(a) => ring::run(a, json),
        Command::Rendezvous(a) => rendezvous::run(a, json),
        Command::Shards(a) => shards::run(a, json),
        Command::Hash(a) => hash::run(a, json),
        Command::Slot(a) => slot::run(a, json),
        Command::Jump(a) => jump::run(a, json),
        Command::Compare(a) => compare::run(a, json),
    };
    match result {
        Ok(out) => {
            let mut text = out.text;
            if text.is_empty() {
                return ExitCode::from(out.code);
            }
            if !text.ends_with('\n') {
                text.push('\n');
            }
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
                Ok(()) => ExitCode::from(out.code),
                // `reshard … | head` closes the pipe early: not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(out.code),
                Err(e) => fail(Failure(format!("cannot write the output: {e}"))),
            }
        }
        Err(f) => fail(f),
    }
}

fn fail(Failure(e): Failure) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "error: {e}");
    ExitCode::from(2)
}

/// A value our parsers rejected: `error: --from: <message>`; anything else
/// as clap prints it (help and version exit 0, usage errors 2).
fn clap_error(e: clap::Error) -> ExitCode {
    if e.kind() == ErrorKind::ValueValidation {
        let flag = match e.get(ContextKind::InvalidArg) {
            Some(ContextValue::String(s)) => s.split_whitespace().next().unwrap_or(s).to_string(),
            _ => String::new(),
        };
        if let Some(source) = std::error::Error::source(&e) {
            let _ = writeln!(std::io::stderr(), "error: {flag}: {source}\n\nFor more information, try '--help'.");
            return ExitCode::from(2);
        }
    }
    let code = e.exit_code();
    let _ = e.print();
    ExitCode::from(code.clamp(0, 255) as u8)
}
