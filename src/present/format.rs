//! Numbers as the documents print them.
//!
//! ```
//! use reshard::present::{fixed, pct, thousands};
//! assert_eq!(thousands(89_813), "89,813");
//! assert_eq!(pct(0.9087, 2), "90.87%");
//! assert_eq!(fixed(12.97, 1), "13.0");
//! assert_eq!(fixed(25_000.0, 1), "25,000.0");
//! ```

use crate::numbers::group_digits;

/// The most decimals [`fixed`] and [`pct`] print: an `f64` holds about 17
/// significant digits, so further ones are noise. More are printed as this
/// many.
pub const MAX_DECIMALS: usize = 20;

/// A share as a percentage with `decimals` digits (at most
/// [`MAX_DECIMALS`]): `pct(0.9087, 2)` is `"90.87%"`. Like [`fixed`] it
/// never prints `"-0"` and shows non-finite numbers as `"–"`.
///
/// ```
/// use reshard::present::pct;
/// assert_eq!(pct(-0.00001, 1), "0.0%");
/// assert_eq!(pct(0.5, 70_000), format!("50.{}%", "0".repeat(20)));
/// ```
pub fn pct(share: f64, decimals: usize) -> String {
    let v = 100.0 * share;
    if !v.is_finite() {
        return "–".to_string();
    }
    format!("{}%", signed(v, rounded(v.abs(), decimals.min(MAX_DECIMALS))))
}

/// `v` (≥ 0) with `decimals` digits, an exact decimal half rounded up as a
/// person rounds it: 10,990 of 20,000 keys is 54.95%, which an `f64` holds
/// as 54.9499999…, and prints as 55.0%, not 54.9%. A value within a
/// billionth of a half (relative) is taken for that half.
///
/// ```
/// use reshard::present::pct;
/// assert_eq!(pct(10_990.0 / 20_000.0, 1), "55.0%");
/// assert_eq!(pct(0.54949, 1), "54.9%");
/// assert_eq!(pct(0.125, 1), "12.5%");
/// assert_eq!(pct(0.12345, 2), "12.35%");
/// ```
fn rounded(v: f64, decimals: usize) -> String {
    if decimals <= 15 {
        let scale = 10f64.powi(decimals as i32);
        let scaled = v * scale;
        let below = scaled.floor();
        if scaled < 1e15 && ((scaled - below) - 0.5).abs() <= 1e-9 * scaled.max(1.0) {
            return format!("{:.*}", decimals, (below + 1.0) / scale);
        }
    }
    format!("{:.*}", decimals, v)
}

/// `digits` (of `|v|`) with a minus sign when `v` is negative and the
/// digits are not all zero.
fn signed(v: f64, digits: String) -> String {
    if v < 0.0 && digits.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
        format!("-{digits}")
    } else {
        digits
    }
}

/// A number rounded to `decimals` digits (at most [`MAX_DECIMALS`]) with
/// thousands separators in the integer part: `fixed(25000.0, 1)` is
/// `"25,000.0"`, `fixed(12.97, 1)` is `"13.0"`. Never prints `"-0"`;
/// non-finite numbers print as `"–"`.
///
/// ```
/// use reshard::present::fixed;
/// assert_eq!(fixed(2e19, 0), "20,000,000,000,000,000,000");
/// assert_eq!(fixed(-3e20, 1), "-300,000,000,000,000,000,000.0");
/// assert_eq!(fixed(-0.04, 1), "0.0");
/// ```
pub fn fixed(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    let s = rounded(v.abs(), decimals.min(MAX_DECIMALS));
    let (int, frac) = s.split_once('.').map_or((s.as_str(), None), |(i, f)| (i, Some(f)));
    let mut out = group_digits(int);
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    signed(v, out)
}

/// Slot numbers as ranges of consecutive ones, in ascending order (the
/// input may come in any order and repeat): `[0, 1, 2, 7, 9, 10]` →
/// `"0–2, 7, 9–10"`.
///
/// ```
/// use reshard::present::slot_ranges;
/// assert_eq!(slot_ranges(&[0, 1, 2, 7, 9, 10]), "0–2, 7, 9–10");
/// assert_eq!(slot_ranges(&[65535, 0]), "0, 65535");
/// assert_eq!(slot_ranges(&[3, 2, 2, 4]), "2–4");
/// ```
pub fn slot_ranges(slots: &[u16]) -> String {
    let mut slots = slots.to_vec();
    slots.sort_unstable();
    slots.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < slots.len() {
        let mut j = i;
        while j + 1 < slots.len() && slots[j].checked_add(1) == Some(slots[j + 1]) {
            j += 1;
        }
        parts.push(if i == j { slots[i].to_string() } else { format!("{}–{}", slots[i], slots[j]) });
        i = j + 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_and_tiny_numbers_print_honestly() {
        // Python: f"{2e19:,.0f}", f"{-3e20:,.1f}", f"{1.5:,.20f}"
        assert_eq!(fixed(2e19, 0), "20,000,000,000,000,000,000");
        assert_eq!(fixed(-3e20, 1), "-300,000,000,000,000,000,000.0");
        assert_eq!(fixed(1.5, 70_000), "1.50000000000000000000");
        assert_eq!(fixed(-0.0, 2), "0.00");
        assert_eq!(fixed(-0.004, 2), "0.00");
        assert_eq!(fixed(-1234.5, 1), "-1,234.5");
        assert_eq!(fixed(f64::NAN, 1), "–");
        assert_eq!(pct(0.5, 70_000), "50.00000000000000000000%");
        assert_eq!(pct(f64::INFINITY, 1), "–");
    }

    #[test]
    fn slot_ranges_take_any_order() {
        assert_eq!(slot_ranges(&[65535, 0]), "0, 65535");
        assert_eq!(slot_ranges(&[65534, 65535]), "65534–65535");
        assert_eq!(slot_ranges(&[]), "");
    }
}
