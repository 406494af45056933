//! `reshard slot KEY…`: each key's Redis Cluster hash slot; with no KEY
//! (or `-`), one key per line of standard input.
//!
//! Redis keys are bytes. A key is written with two escapes: `\xHH` is the
//! byte HH and `\\` is a backslash (so `\xff\xfe` is the two bytes ff fe);
//! with `--hex` every key is written as hex digits instead (`fffe`). Keys
//! are printed back with the same escapes.

use crate::output::{Failure, Output, Run};
use clap::Args as ClapArgs;
use reshard::key_slot;
use reshard::keys::{escape, unescape};
use reshard::present::Table;
use reshard::schemes::slots::hashed_part;
use serde::Serialize;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, IsTerminal, Read, Write};

pub const SLOT_HELP: &str = "\
Keys are bytes. Write a byte as \\xHH (exactly two hex digits) and a backslash as \\\\;
every other character stands for itself (UTF-8). With --hex, write each key
as hex digits: --hex fffe is the same key as '\\xff\\xfe'. Standard input is
read the same way, one key per line (a \\r before the newline is dropped:
write \\x0d to keep it). Keys are printed back with the same escapes.

With keys on the command line the text output is a table; from standard
input it is one tab-separated line per key (key, slot, hashed part), printed
as it is read: one line is held at a time, so memory stays small whatever the
input's size, and a key line may be at most 1 MiB (1,048,576 bytes).";

#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Keys, e.g. somekey user:{42}:name '\xff\xfe'; none or - reads standard input
    #[arg(value_name = "KEY")]
    keys: Vec<OsString>,
    /// Every key is hex digits (e.g. fffe for the bytes ff fe)
    #[arg(long)]
    hex: bool,
}

/// One key's slot (the CLI's own output).
#[derive(Serialize)]
struct Row {
    /// The key, written with the escapes.
    key: String,
    slot: u16,
    /// The bytes CRC16 was computed over: the hash tag, or the whole key.
    hashed: String,
    hash_tag: bool,
}

impl Row {
    fn new(key: &[u8]) -> Row {
        let part = hashed_part(key);
        Row { key: escape(key), slot: key_slot(key), hashed: escape(part), hash_tag: part.len() != key.len() }
    }

    fn hashed_text(&self) -> String {
        format!("{} ({})", self.hashed, if self.hash_tag { "hash tag" } else { "whole key" })
    }
}

/// Hex digits to bytes, two digits per byte (no sign, no prefix).
pub fn unhex(s: &[u8]) -> Result<Vec<u8>, String> {
    let text = String::from_utf8_lossy(s);
    if !s.len().is_multiple_of(2) {
        return Err(format!("{text:?} has an odd number of hex digits: write two per byte, e.g. fffe"));
    }
    if !s.iter().all(u8::is_ascii_hexdigit) {
        return Err(format!("{text:?} is not hex: write two hex digits (0-9, a-f) per byte, e.g. fffe"));
    }
    Ok(s.chunks(2).map(|p| (digit(p[0]) << 4) | digit(p[1])).collect())
}

/// The value of one hex digit (checked by the caller).
fn digit(d: u8) -> u8 {
    (d as char).to_digit(16).unwrap_or(0) as u8
}

/// A key as typed: hex digits with `--hex`, else the escapes the library
/// reads (`reshard::keys::unescape`, the parser of `--keys-from` too).
fn decode(hex: bool, text: &[u8]) -> Result<Vec<u8>, String> {
    if hex {
        unhex(text)
    } else {
        unescape(text).map_err(|e| e.to_string())
    }
}

pub fn run(a: &Args, json: bool) -> Run {
    let stdin = a.keys.is_empty() || (a.keys.len() == 1 && a.keys[0] == "-");
    if stdin {
        return run_stdin(json, a.hex);
    }
    let mut rows = Vec::with_capacity(a.keys.len());
    for k in &a.keys {
        if k == "-" {
            return Err(Failure(
                "- (standard input) must be the only KEY: give keys as arguments or on standard input".into(),
            ));
        }
        let key = decode(a.hex, k.as_encoded_bytes()).map_err(Failure)?;
        rows.push(Row::new(&key));
    }
    Output::either(json, &rows, || {
        let mut t = Table::new("", ["key", "slot", "hashed part"]);
        for r in &rows {
            t.row([r.key.clone(), r.slot.to_string(), r.hashed_text()]);
        }
        t.note("slot = CRC16-XMODEM(hashed part) mod 16384, as CLUSTER KEYSLOT computes it");
        t.to_string()
    })
}

/// One key per line, each answered as it is read (memory stays flat).
fn run_stdin(json: bool, hex: bool) -> Run {
    let input = std::io::stdin();
    if input.is_terminal() {
        eprintln!("reading keys from standard input, one per line (end with Ctrl-D)");
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match stream(input.lock(), &mut out, json, hex).and_then(|()| out.flush().map_err(Stop::Io)) {
        Ok(()) => Ok(Output::ok(String::new())),
        // `reshard slot < keys | head` closes the pipe early: not an error.
        Err(Stop::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Output::ok(String::new())),
        Err(Stop::Io(e)) => Err(e.into()),
        Err(Stop::Bad(e)) => Err(Failure(e)),
    }
}

/// Why reading standard input stopped early.
enum Stop {
    Io(std::io::Error),
    Bad(String),
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Self {
        Stop::Io(e)
    }
}

/// The longest line read: a longer key is refused, so memory stays within
/// a few times this whatever the input.
pub const MAX_LINE: usize = 1 << 20;

/// Each line of `input` answered on `out`: a tab-separated line, or one
/// element of a JSON array. One line is held at a time (at most
/// [`MAX_LINE`] bytes), and `out` is flushed whenever the input has nothing
/// more buffered, so an answer never waits for more input.
fn stream(input: impl Read, out: &mut impl Write, json: bool, hex: bool) -> Result<(), Stop> {
    let mut input = BufReader::with_capacity(1 << 16, input);
    let mut text = Vec::new();
    let mut first = true;
    if json {
        out.write_all(b"[")?;
    }
    for n in 1.. {
        if input.buffer().is_empty() {
            out.flush()?;
        }
        text.clear();
        let limit = MAX_LINE as u64 + 2;
        let read = (&mut input).take(limit).read_until(b'\n', &mut text)?;
        if read == 0 {
            break;
        }
        if text.last() == Some(&b'\n') {
            text.pop();
        } else if read as u64 == limit {
            return Err(Stop::Bad(format!(
                "line {n}: a key line longer than {MAX_LINE} bytes: reshard slot reads keys of at most 1 MiB (split the input into lines)"
            )));
        }
        if text.last() == Some(&b'\r') {
            text.pop();
        }
        let key = decode(hex, &text).map_err(|e| Stop::Bad(format!("line {n}: {e}")))?;
        let row = Row::new(&key);
        if json {
            let row = serde_json::to_string(&row).map_err(|e| Stop::Bad(format!("cannot write JSON: {e}")))?;
            write!(out, "{}\n  {row}", if first { "" } else { "," })?;
        } else {
            writeln!(out, "{}\t{}\t{}", row.key, row.slot, row.hashed_text())?;
        }
        first = false;
    }
    if json {
        out.write_all(if first { b"]\n" } else { b"\n]\n" })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_round_trip() {
        assert_eq!(unescape(br"\xff\xfe").unwrap(), [0xff, 0xfe]);
        assert_eq!(unescape(br"a\\b").unwrap(), b"a\\b");
        assert!(unescape(br"\q").is_err());
        assert!(unescape(br"\xf").is_err());
        assert!(unescape(br"\x+f").is_err());
        assert!(unhex(b"+f").is_err());
        assert_eq!(unhex(b"fffe").unwrap(), [0xff, 0xfe]);
        assert_eq!(escape(&[0xff, 0xfe, b'\\', b'a']), r"\xff\xfe\\a");
    }
}
