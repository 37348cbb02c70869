//! Number and name formatting shared by the report views.

use serde::Serialize;
use tribunal::math::resample::Interval;

/// `v` with `digits` decimals, or "undefined" for NaN.
pub fn fixed(v: f64, digits: usize) -> String {
    if v.is_nan() {
        "undefined".to_owned()
    } else {
        format!("{v:.digits$}")
    }
}

/// An interval as "estimate [lower, upper]" with `digits` decimals.
pub fn interval(v: &Interval, digits: usize) -> String {
    format!(
        "{} [{}, {}]",
        fixed(v.estimate, digits),
        fixed(v.lower, digits),
        fixed(v.upper, digits)
    )
}

/// The name a report gives a unit enum value (`almost_perfect`), or "—" for none.
pub fn name(v: &impl Serialize) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "—".to_owned())
}

/// The same in words (`almost perfect`).
pub fn words(v: &impl Serialize) -> String {
    name(v).replace('_', " ")
}
