//! `reshard jump KEY BUCKETS`: jump consistent hash of a 64-bit key, and
//! Guava's `consistentHash` when it differs.

use crate::output::{Failure, Output, Run};
use crate::workload;
use clap::Args as ClapArgs;
use reshard::{guava_consistent_hash, jump_hash};
use serde::Serialize;
use std::fmt::Write as _;

#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The 64-bit key (an unsigned integer, 0 … 18446744073709551615)
    #[arg(value_name = "KEY", value_parser = key, allow_negative_numbers = true)]
    key: u64,
    /// How many buckets (1 … 4294967295)
    #[arg(value_name = "BUCKETS", value_parser = buckets, allow_negative_numbers = true)]
    buckets: u32,
}

fn key(s: &str) -> Result<u64, String> {
    workload::count(s, "an unsigned 64-bit key, 0 … 18446744073709551615")
}

fn buckets(s: &str) -> Result<u32, String> {
    workload::count(s, "a bucket count of at least 1 (at most 4294967295)")
}

#[derive(Serialize)]
struct Answer {
    key: u64,
    buckets: u32,
    /// The paper's algorithm.
    bucket: u32,
    /// Guava's Hashing.consistentHash, when defined (buckets ≤ 2^31 − 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    guava: Option<u32>,
}

pub fn run(a: &Args, json: bool) -> Run {
    let bucket = jump_hash(a.key, a.buckets).map_err(|e| match e {
        reshard::Error::NoNodes => Failure("BUCKETS is 0: jump hash needs at least 1 bucket".into()),
        other => other.into(),
    })?;
    let guava = guava_consistent_hash(a.key, a.buckets).ok();
    Output::either(json, &Answer { key: a.key, buckets: a.buckets, bucket, guava }, || {
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
        text
    })
}
