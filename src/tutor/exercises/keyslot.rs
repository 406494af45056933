//! Exercise (lab 06): Redis Cluster's `KEYSLOT`, hash tags included.
//!
//! A key's slot is CRC16-XMODEM of the bytes Redis hashes, modulo 16384.
//! Redis hashes the whole key, unless the key holds a *hash tag*: the bytes
//! between the first `{` and the first `}` after it, when there is at least
//! one byte between them. The learner writes `fn key_slot(key: &[u8]) -> u16`
//! (calling the crate's [`crc16`](crate::crc16) is allowed: the tag rule is
//! the exercise) and [`key_slot`] runs it beside the crate's own
//! [`key_slot`](crate::key_slot), the rule of `keyHashSlot` in Redis's
//! `src/cluster.c`: the edge cases first (`{}`, `{}x{a}`, `a{b}c{d}`, `{`,
//! `}{`, the empty key, binary bytes), then thousands of keys.
//!
//! ```
//! use reshard::crc16;
//! use reshard::tutor::exercises;
//! fn key_slot(key: &[u8]) -> u16 {
//!     let mut hashed = key;
//!     if let Some(open) = key.iter().position(|&b| b == b'{') {
//!         if let Some(len) = key[open + 1..].iter().position(|&b| b == b'}') {
//!             if len > 0 {
//!                 hashed = &key[open + 1..open + 1 + len];
//!             }
//!         }
//!     }
//!     crc16(hashed) % 16384
//! }
//! let report = exercises::key_slot(key_slot);
//! assert!(report.passed(), "{report}");
//! ```

use super::Report;
use crate::schemes::slots::key_slot as crate_key_slot;

/// The edge cases, in the order they are tried: no braces, braces with
/// nothing between them, several tags, unmatched braces, binary bytes.
const EDGE_CASES: [&[u8]; 24] = [
    b"",
    b"{",
    b"}",
    b"}{",
    b"{}",
    b"{}x{a}",
    b"a{b}c{d}",
    b"foo{bar}{zap}",
    b"foo{}{bar}",
    b"foo{{bar}}zap",
    b"{{}}",
    b"a{b}c}",
    b"}a{b}",
    b"{a",
    b"user:{42}:cart",
    b"{user1000}.following",
    b"{user1000}.followers",
    b"foo{hash_tag}",
    b"123456789",
    b"\x00",
    b"\xff\xfe{\x00}",
    b"{\xff}",
    b"\x7b\x7d\x7b\x00\x7d",
    b"key\x00with\x00zeros",
];

/// How many generated keys follow the edge cases.
const GENERATED: usize = 5_000;

/// Check the learner's `key_slot` against the crate's on the edge cases,
/// then on 5,000 generated keys: `user:{i}`, tagged `user:{i}:cart`, and keys of
/// random bytes where `{` and `}` are common. A panic in `yours` is reported
/// as the difference (see [`Report::compare`]).
pub fn key_slot<F: Fn(&[u8]) -> u16>(yours: F) -> Report {
    let keys = keys();
    let cases = keys.iter().map(|k| (describe(k), crate_key_slot(k)));
    Report::compare("key_slot with hash tags", cases, |i| yours(&keys[i]))
}

/// Every key tried, in order.
fn keys() -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = EDGE_CASES.iter().map(|k| k.to_vec()).collect();
    let mut state = 0x2545_f491_4f6c_dd1du64; // xorshift64*: the same keys every run
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    for i in 0..GENERATED {
        let key = match i % 4 {
            0 => format!("user:{i}").into_bytes(),
            1 => format!("user:{{{i}}}:cart").into_bytes(),
            _ => {
                let len = (next() % 12) as usize;
                let alphabet = b"{}{}ab:\x00\xff";
                (0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect()
            }
        };
        keys.push(key);
    }
    keys
}

/// A key as a reader would type it: `key "a{b}\xff"`.
fn describe(key: &[u8]) -> String {
    let shown: String = key.iter().flat_map(|&b| std::ascii::escape_default(b)).map(char::from).collect();
    format!("key \"{shown}\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crc16;

    /// The tag rule written from Redis's cluster specification ("Hash tags").
    fn spec(key: &[u8]) -> u16 {
        let Some(open) = key.iter().position(|&b| b == b'{') else { return crc16(key) % 16384 };
        match key[open + 1..].iter().position(|&b| b == b'}') {
            Some(len) if len > 0 => crc16(&key[open + 1..open + 1 + len]) % 16384,
            _ => crc16(key) % 16384,
        }
    }

    #[test]
    fn the_rule_of_the_specification_passes() {
        let r = key_slot(spec);
        assert!(r.passed(), "{r}");
        assert_eq!(r.inputs(), EDGE_CASES.len() + GENERATED);
    }

    #[test]
    fn slots_of_the_specification_and_redis_cli() {
        // somekey 11058 and foo{hash_tag} 2515: Redis's CLUSTER KEYSLOT documentation;
        // {user1000}.following: python3's binascii.crc_hqx(b"user1000", 0) % 16384
        for (key, slot) in [(&b"somekey"[..], 11058), (b"foo{hash_tag}", 2515), (b"{user1000}.following", 3443)] {
            assert_eq!(spec(key), slot, "{}", describe(key));
        }
    }

    #[test]
    fn the_last_closing_brace_fails_at_the_first_key_it_changes() {
        fn last_brace(key: &[u8]) -> u16 {
            let open = key.iter().position(|&b| b == b'{');
            let close = key.iter().rposition(|&b| b == b'}');
            match (open, close) {
                (Some(o), Some(c)) if c > o + 1 => crc16(&key[o + 1..c]) % 16384,
                _ => crc16(key) % 16384,
            }
        }
        let r = key_slot(last_brace);
        assert!(!r.passed());
        let d = r.difference().unwrap();
        // "{}x{a}": the first tag is empty, so Redis hashes the whole key;
        // the last `}` makes "}x{a" a tag
        assert_eq!(d.input, "key \"{}x{a}\"");
        assert_eq!(d.yours, "8830"); // python3: binascii.crc_hqx(b"}x{a", 0) % 16384
        assert_eq!(d.agreed_before, 5);
    }

    #[test]
    fn an_empty_tag_accepted_fails_at_the_empty_tag() {
        fn empty_tag(key: &[u8]) -> u16 {
            if let Some(open) = key.iter().position(|&b| b == b'{') {
                if let Some(len) = key[open + 1..].iter().position(|&b| b == b'}') {
                    return crc16(&key[open + 1..open + 1 + len]) % 16384;
                }
            }
            crc16(key) % 16384
        }
        let r = key_slot(empty_tag);
        let d = r.difference().expect("an empty tag must be caught");
        assert_eq!(d.input, "key \"{}\"");
        assert_eq!(d.yours, "0"); // crc16 of no bytes
    }

    #[test]
    fn a_stub_fails_with_its_message() {
        let r = key_slot(|_| todo!("write key_slot"));
        assert!(!r.passed());
        assert!(r.to_string().contains("panicked: not yet implemented: write key_slot"), "{r}");
    }

    #[test]
    fn binary_keys_are_shown_escaped() {
        assert_eq!(describe(b"\xff{\x00}"), "key \"\\xff{\\x00}\"");
    }
}
