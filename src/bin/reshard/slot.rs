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
use reshard::present::Table;
use reshard::schemes::slots::hashed_part;
use serde::Serialize;
use std::ffi::OsString;
use std::io::{BufRead, IsTerminal, Write};

pub const SLOT_HELP: &str = "\
Keys are bytes. Write a byte as \\xHH (two hex digits) and a backslash as \\\\;
every other character stands for itself (UTF-8). With --hex, write each key
as hex digits: --hex fffe is the same key as '\\xff\\xfe'. Standard input is
read the same way, one key per line (a \\r before the newline is dropped:
write \\x0d to keep it). Keys are printed back with the same escapes.

With keys on the command line the text output is a table; from standard
input it is one tab-separated line per key (key, slot, hashed part), printed
as it is read.";

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

/// `\xHH` and `\\` decoded; every other byte stands for itself.
pub fn unescape(s: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'\\' {
            out.push(s[i]);
            i += 1;
            continue;
        }
        match s.get(i + 1) {
            Some(b'\\') => {
                out.push(b'\\');
                i += 2;
            }
            Some(b'x') => {
                let hex = s.get(i + 2..i + 4).and_then(|h| std::str::from_utf8(h).ok());
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => out.push(b),
                    None => {
                        let bad = String::from_utf8_lossy(&s[i..(i + 4).min(s.len())]);
                        return Err(format!("{bad:?} is not a byte escape: write \\x and two hex digits, e.g. \\xff"));
                    }
                }
                i += 4;
            }
            _ => {
                let bad = String::from_utf8_lossy(&s[i..(i + 2).min(s.len())]);
                return Err(format!("{bad:?} is not an escape: write \\\\ for a backslash or \\xHH for a byte"));
            }
        }
    }
    Ok(out)
}

/// Hex digits to bytes.
pub fn unhex(s: &[u8]) -> Result<Vec<u8>, String> {
    let text = String::from_utf8_lossy(s);
    if !s.len().is_multiple_of(2) {
        return Err(format!("{text:?} has an odd number of hex digits: write two per byte, e.g. fffe"));
    }
    s.chunks(2)
        .map(|p| std::str::from_utf8(p).ok().and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| format!("{text:?} is not hex: write two hex digits (0-9, a-f) per byte, e.g. fffe"))
}

/// Bytes written with the escapes: printable text as is, `\` as `\\`,
/// control characters and bytes that are not UTF-8 as `\xHH`.
pub fn escape(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    for chunk in b.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                c if c.is_control() => {
                    let mut buf = [0; 4];
                    for byte in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("\\x{byte:02x}"));
                    }
                }
                c => out.push(c),
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

pub fn run(a: &Args, json: bool) -> Run {
    let decode = |k: &[u8]| if a.hex { unhex(k) } else { unescape(k) };
    let stdin = a.keys.is_empty() || (a.keys.len() == 1 && a.keys[0] == "-");
    if stdin {
        return run_stdin(json, decode);
    }
    let mut rows = Vec::with_capacity(a.keys.len());
    for k in &a.keys {
        if k == "-" {
            return Err(Failure(
                "- (standard input) must be the only KEY: give keys as arguments or on standard input".into(),
            ));
        }
        let key = decode(k.as_encoded_bytes()).map_err(Failure)?;
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
fn run_stdin(json: bool, decode: impl Fn(&[u8]) -> Result<Vec<u8>, String>) -> Run {
    let input = std::io::stdin();
    if input.is_terminal() {
        eprintln!("reading keys from standard input, one per line (end with Ctrl-D)");
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match stream(input.lock(), &mut out, json, decode).and_then(|()| out.flush().map_err(Stop::Io)) {
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

/// Each line of `input` answered on `out`: a tab-separated line, or one
/// element of a JSON array.
fn stream(
    input: impl BufRead,
    out: &mut impl Write,
    json: bool,
    decode: impl Fn(&[u8]) -> Result<Vec<u8>, String>,
) -> Result<(), Stop> {
    let mut first = true;
    if json {
        out.write_all(b"[")?;
    }
    for (n, line) in input.split(b'\n').enumerate() {
        let mut line = line?;
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        let key = decode(&line).map_err(|e| Stop::Bad(format!("line {}: {e}", n + 1)))?;
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
        assert_eq!(unhex(b"fffe").unwrap(), [0xff, 0xfe]);
        assert_eq!(escape(&[0xff, 0xfe, b'\\', b'a']), r"\xff\xfe\\a");
    }
}
