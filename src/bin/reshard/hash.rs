//! `reshard hash KEY…`: the md5 integer of each key, as the documents
//! compute it.

use crate::output::{Output, Run};
use clap::Args as ClapArgs;
use reshard::present::Table;
use reshard::{md5_u128, HashWidth};
use serde::Serialize;

#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Keys to hash, e.g. user:0 key42
    #[arg(required = true, value_name = "KEY")]
    keys: Vec<String>,
    /// Print only this width, 32 or 128 (default: both)
    #[arg(long, value_name = "BITS", value_parser = clap::value_parser!(HashWidth))]
    width: Option<HashWidth>,
}

/// One key's hashes (the CLI's own output: no library type holds this).
#[derive(Serialize)]
struct Row {
    key: String,
    /// The integer as a decimal string: JSON numbers cannot hold 128 bits.
    #[serde(skip_serializing_if = "Option::is_none")]
    md5_128: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    md5_32: Option<u64>,
    md5_hex: String,
}

pub fn run(a: &Args, json: bool) -> Run {
    let show = |w: HashWidth| a.width.is_none_or(|x| x == w);
    let (show128, show32) = (show(HashWidth::Bits128), show(HashWidth::Bits32));
    let rows: Vec<Row> = a
        .keys
        .iter()
        .map(|k| {
            let full = md5_u128(k.as_bytes());
            Row {
                key: k.clone(),
                md5_128: show128.then(|| full.to_string()),
                md5_32: show32.then(|| HashWidth::Bits32.reduce(full) as u64),
                md5_hex: format!("{full:032x}"),
            }
        })
        .collect();
    Output::either(json, &rows, || {
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
        t.note("the integer is Python's int(hashlib.md5(key.encode()).hexdigest(), 16); mod 2^32 keeps its last 8 hex digits");
        t.to_string()
    })
}
