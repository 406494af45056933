//! Numbers as the documents print them.
//!
//! ```
//! use reshard::present::{fixed, pct, thousands};
//! assert_eq!(thousands(89_813), "89,813");
//! assert_eq!(pct(0.9087, 2), "90.87%");
//! assert_eq!(fixed(12.97, 1), "13.0");
//! assert_eq!(fixed(25_000.0, 1), "25,000.0");
//! ```

use num_format::{Locale, ToFormattedString};

/// An integer with comma thousands separators: `89813` → `"89,813"`.
pub fn thousands(n: u64) -> String {
    n.to_formatted_string(&Locale::en)
}

/// A share as a percentage with `decimals` digits: `pct(0.9087, 2)` is
/// `"90.87%"`.
pub fn pct(share: f64, decimals: usize) -> String {
    format!("{:.*}%", decimals, 100.0 * share)
}

/// A number rounded to `decimals` digits with thousands separators in the
/// integer part: `fixed(25000.0, 1)` is `"25,000.0"`, `fixed(12.97, 1)` is
/// `"13.0"`. Never prints `"-0"`; non-finite numbers print as `"–"`.
pub fn fixed(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    let s = format!("{:.*}", decimals, v.abs());
    let (int, frac) = s.split_once('.').map_or((s.as_str(), None), |(i, f)| (i, Some(f)));
    let negative = v < 0.0 && s.bytes().any(|b| (b'1'..=b'9').contains(&b));
    let int: u64 = int.parse().unwrap_or(0);
    let mut out = if negative { "-".to_string() } else { String::new() };
    out.push_str(&thousands(int));
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// Ascending slot numbers as ranges: `[0, 1, 2, 7, 9, 10]` → `"0–2, 7, 9–10"`.
///
/// ```
/// assert_eq!(reshard::present::slot_ranges(&[0, 1, 2, 7, 9, 10]), "0–2, 7, 9–10");
/// ```
pub fn slot_ranges(slots: &[u16]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < slots.len() {
        let mut j = i;
        while j + 1 < slots.len() && slots[j + 1] == slots[j] + 1 {
            j += 1;
        }
        parts.push(if i == j { slots[i].to_string() } else { format!("{}–{}", slots[i], slots[j]) });
        i = j + 1;
    }
    parts.join(", ")
}
