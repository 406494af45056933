//! What a slider and the x axis hold: [`SliderValue`] (any number, read
//! as an `f64`) and [`XValue`] (a name or a number), and how a number is
//! written in messages and titles.

use std::fmt;

use crate::present::thousands;

/// A value on a slider: any integer or float type, read as an `f64`
/// (integers up to 2^53, exactly).
pub trait SliderValue: Copy {
    /// The value as an `f64`, or `None` when it is not finite or not held
    /// exactly by an `f64`.
    fn slider_value(self) -> Option<f64>;
}

macro_rules! slider_value_lossless {
    ($($t:ty),*) => {$(
        impl SliderValue for $t {
            fn slider_value(self) -> Option<f64> {
                Some(f64::from(self)).filter(|v| v.is_finite())
            }
        }
    )*};
}
slider_value_lossless!(u8, u16, u32, i8, i16, i32, f32);

macro_rules! slider_value_wide {
    ($($t:ty),*) => {$(
        impl SliderValue for $t {
            fn slider_value(self) -> Option<f64> {
                let v = self as f64;
                // Exactly held: within ±2^53 (every integer there is an f64).
                (v.abs() <= 9_007_199_254_740_992.0).then_some(v)
            }
        }
    )*};
}
slider_value_wide!(u64, i64, usize, isize);

impl SliderValue for f64 {
    fn slider_value(self) -> Option<f64> {
        self.is_finite().then_some(self)
    }
}

/// A place on the x axis: a name (a node) for bars, a number for a line.

#[derive(Debug, Clone, PartialEq)]
pub enum XValue {
    /// A category, e.g. a node's name.
    Name(String),
    /// A number, e.g. a node count.
    Number(f64),
}

impl From<&str> for XValue {
    fn from(s: &str) -> Self {
        XValue::Name(s.to_string())
    }
}
impl From<String> for XValue {
    fn from(s: String) -> Self {
        XValue::Name(s)
    }
}
impl From<&String> for XValue {
    fn from(s: &String) -> Self {
        XValue::Name(s.clone())
    }
}
macro_rules! xvalue_number {
    ($($t:ty),*) => {$(
        impl From<$t> for XValue {
            fn from(v: $t) -> Self {
                XValue::Number(v as f64)
            }
        }
        impl From<&$t> for XValue {
            fn from(v: &$t) -> Self {
                XValue::Number(*v as f64)
            }
        }
    )*};
}
xvalue_number!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64);

impl fmt::Display for XValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            XValue::Name(s) => f.write_str(s),
            XValue::Number(v) => write!(f, "{}", number(*v)),
        }
    }
}

/// A number as JavaScript prints it: 150, 0.15, 1e-7.
pub(super) fn number(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

pub(super) fn list(values: &[f64]) -> String {
    let shown: Vec<String> = values.iter().take(12).map(|&v| number(v)).collect();
    let more =
        if values.len() > 12 { format!(" … ({} values)", thousands(values.len() as u64)) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}
