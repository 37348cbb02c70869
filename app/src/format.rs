//! Number formatting shared by the pages that render the CLI's JSON reports.

use serde_json::Value;

/// A JSON number; `null` (an undefined statistic) reads as NaN.
pub fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// `v` with `digits` decimals, or "undefined" for NaN.
pub fn fixed(v: f64, digits: usize) -> String {
    if v.is_nan() {
        "undefined".to_owned()
    } else {
        format!("{v:.digits$}")
    }
}

/// An interval object `{estimate, lower, upper}` as "estimate [lower, upper]" with `digits`
/// decimals.
pub fn interval(v: &Value, digits: usize) -> String {
    format!(
        "{} [{}, {}]",
        fixed(num(&v["estimate"]), digits),
        fixed(num(&v["lower"]), digits),
        fixed(num(&v["upper"]), digits)
    )
}
