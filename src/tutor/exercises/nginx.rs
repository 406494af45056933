//! Exercise (lab 08): nginx's plain `hash $key;` upstream rule, every
//! server up.
//!
//! nginx's `ngx_http_upstream_hash_module` (without `consistent`) takes
//! the standard CRC-32 of the key, keeps 15 bits of it,
//! `h = (crc32(key) >> 16) & 0x7fff`, and walks the servers in config
//! order with `w = h % Σweight`: the first server covers the values
//! `0 … weight₀ − 1`, the next the following `weight₁` values, and so on.
//! The learner writes `fn nginx_backend(key: &[u8], weights: &[u32]) -> usize`
//! (the crate's CRC-32 is public, [`crc32`](crate::schemes::hashkit::crc32):
//! the 15 bits and the walk are the exercise) and [`nginx_backend`] runs it
//! beside [`NginxHash::server_of`]: the edge cases first (the empty key, one
//! server, the value on a boundary between two servers, a key whose CRC-32
//! has its top bit set), then thousands of keys over several weightings.
//!
//! ```
//! use reshard::schemes::hashkit::crc32;
//! use reshard::tutor::exercises;
//! fn nginx_backend(key: &[u8], weights: &[u32]) -> usize {
//!     let total: u32 = weights.iter().sum();
//!     let mut w = ((crc32(key) >> 16) & 0x7fff) % total;
//!     for (i, &weight) in weights.iter().enumerate() {
//!         if w < weight {
//!             return i;
//!         }
//!         w -= weight;
//!     }
//!     weights.len() - 1
//! }
//! let report = exercises::nginx_backend(nginx_backend);
//! assert!(report.passed(), "{report}");
//! ```

use super::Report;
use crate::schemes::NginxHash;

/// The weightings tried, one `server` line each, in config order.
const WEIGHTS: [&[u32]; 7] = [&[1, 1, 1], &[1], &[1, 2, 3], &[3, 1], &[1, 1, 1, 1], &[5, 1, 1, 2, 7], &[1; 10]];

/// The edge-case keys, tried first with every weighting: the empty key
/// (CRC-32 0), the documentation's `foo` (CRC-32 0x8c736521: the top bit of
/// the upper half set, so forgetting `& 0x7fff` shows), and keys on either
/// side of a boundary between two servers.
const EDGE_KEYS: [&[u8]; 6] = [b"", b"foo", b"key:0", b"key:1", b"\x00", b"\xff\xff"];

/// Generated keys per weighting, after the edge cases.
const GENERATED: usize = 1_000;

/// Check the learner's `nginx_backend` against [`NginxHash::server_of`]
/// (plain `hash`, every server up). A panic in `yours` is reported as the
/// difference (see [`Report::compare`]).
pub fn nginx_backend<F: Fn(&[u8], &[u32]) -> usize>(yours: F) -> Report {
    let mut inputs: Vec<(Vec<u8>, &[u32], usize)> = Vec::new();
    for weights in WEIGHTS {
        let upstream = NginxHash::new(weights.len()).and_then(|u| u.with_weights(weights.iter().copied()));
        let Ok(upstream) = upstream else { continue }; // small constant weightings: always built
        let keys = EDGE_KEYS.iter().map(|k| k.to_vec()).chain((0..GENERATED).map(|i| format!("key:{i}").into_bytes()));
        for key in keys {
            let server = upstream.server_of(&key) as usize;
            inputs.push((key, weights, server));
        }
    }
    let cases = inputs.iter().map(|(k, w, s)| (describe(k, w), *s));
    Report::compare("nginx_backend, plain hash", cases, |i| yours(&inputs[i].0, inputs[i].1))
}

/// An input as a reader would type it: `key "foo", weights [1, 2, 3]`.
fn describe(key: &[u8], weights: &[u32]) -> String {
    let shown: String = key.iter().flat_map(|&b| std::ascii::escape_default(b)).map(char::from).collect();
    format!("key \"{shown}\", weights {weights:?}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schemes::hashkit::crc32;

    /// The rule as Cache::Memcached and nginx's module write it.
    fn model(key: &[u8], weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut w = ((crc32(key) >> 16) & 0x7fff) % total;
        for (i, &weight) in weights.iter().enumerate() {
            if w < weight {
                return i;
            }
            w -= weight;
        }
        weights.len() - 1
    }

    #[test]
    fn the_model_passes() {
        let r = nginx_backend(model);
        assert!(r.passed(), "{r}");
        assert_eq!(r.inputs(), WEIGHTS.len() * (EDGE_KEYS.len() + GENERATED));
    }

    #[test]
    fn the_fifteen_bits_of_the_module() {
        // python3: zlib.crc32(b"foo") = 0x8c736521; (0x8c73 & 0x7fff) = 3187; 3187 % 3 = 1, and
        // 3187 % 6 = 1 falls in the second server's values with weights [1, 2, 3]
        assert_eq!(model(b"foo", &[1, 1, 1]), 1);
        assert_eq!(model(b"foo", &[1, 2, 3]), 1);
        assert_eq!(model(b"", &[1, 2, 3]), 0);
    }

    #[test]
    fn forgetting_the_shift_and_mask_fails_at_foo() {
        let whole = |key: &[u8], weights: &[u32]| -> usize {
            let total: u32 = weights.iter().sum();
            let mut w = crc32(key) % total;
            for (i, &weight) in weights.iter().enumerate() {
                if w < weight {
                    return i;
                }
                w -= weight;
            }
            weights.len() - 1
        };
        let r = nginx_backend(whole);
        let d = r.difference().expect("the whole CRC-32 must be caught");
        // python3: 0x8c736521 % 3 = 2 (nginx: 0x0c73 % 3 = 1)
        assert_eq!(d.input, "key \"foo\", weights [1, 1, 1]");
        assert_eq!((d.yours.as_str(), d.expected.as_str()), ("2", "1"));
        assert_eq!(d.agreed_before, 1);
    }

    #[test]
    fn forgetting_only_the_mask_fails_too() {
        let r = nginx_backend(model_unmasked);
        assert!(!r.passed(), "{r}");
        assert_eq!(r.difference().unwrap().input, "key \"foo\", weights [1, 1, 1]");
    }

    fn model_unmasked(key: &[u8], weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut w = (crc32(key) >> 16) % total; // 0x8c73 = 35955: 35955 % 3 = 0
        for (i, &weight) in weights.iter().enumerate() {
            if w < weight {
                return i;
            }
            w -= weight;
        }
        0
    }

    #[test]
    fn a_walk_off_by_one_at_a_boundary_fails() {
        let r = nginx_backend(|key, weights| {
            let total: u32 = weights.iter().sum();
            let mut w = ((crc32(key) >> 16) & 0x7fff) % total;
            for (i, &weight) in weights.iter().enumerate() {
                if w <= weight {
                    return i;
                }
                w -= weight;
            }
            weights.len() - 1
        });
        assert!(!r.passed(), "{r}");
    }

    #[test]
    fn a_stub_fails_with_its_message() {
        let r = nginx_backend(|_, _| todo!("write nginx_backend"));
        assert!(r.to_string().contains("panicked: not yet implemented: write nginx_backend"), "{r}");
    }
}
