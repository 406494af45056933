//! Integers with thousands separators, as the documents print them: the one
//! place every floor takes them from (ground floor, imports nothing).
//!
//! ```
//! use reshard::present::thousands;
//! assert_eq!(thousands(89_813), "89,813");
//! assert_eq!(thousands(0), "0");
//! assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
//! ```

/// An integer with comma thousands separators: `89813` → `"89,813"`.
pub fn thousands(n: u64) -> String {
    grouped(u128::from(n))
}

/// [`thousands`] for the widest integers (the error messages' counts).
pub(crate) fn grouped(n: u128) -> String {
    group_digits(&n.to_string())
}

/// A string of ASCII digits with a comma before each group of three from
/// the right: `"1234567"` → `"1,234,567"` (any length, so `f64` integer
/// parts past `u128` group too).
pub(crate) fn group_digits(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_of_three_from_the_right() {
        // Python: f"{n:,}"
        for (n, py) in [
            (7u128, "7"),
            (999, "999"),
            (1_000, "1,000"),
            (12_345, "12,345"),
            (123_456, "123,456"),
            (1_234_567, "1,234,567"),
            (u128::MAX, "340,282,366,920,938,463,463,374,607,431,768,211,455"),
        ] {
            assert_eq!(grouped(n), py);
        }
    }
}
