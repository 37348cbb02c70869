//! Number and name formatting shared by the report views.

use serde::Serialize;
use tribunal::math::resample::Interval;

/// `v` with `digits` decimals, or "—" for NaN (not defined: a program with no votes, a
/// constant rater's κ).
pub fn fixed(v: f64, digits: usize) -> String {
    if v.is_nan() {
        "—".to_owned()
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

/// A judge-study target kind in words, its short name second: `hard` → "verdicts as they are
/// (hard)", `label_smoothing(c=0.75)` → "verdicts smoothed toward a tie
/// (label_smoothing(c=0.75))", `soft…` → "the judge's scores (soft…)".
pub fn target_words(name: &str) -> String {
    let plain = if name == "hard" {
        "verdicts as they are"
    } else if name.starts_with("label_smoothing") {
        "verdicts smoothed toward a tie"
    } else if name.starts_with("soft") {
        "the judge's scores"
    } else {
        return name.to_owned();
    };
    format!("{plain} ({name})")
}

/// A form field's text trimmed, or `None` when it is blank.
pub fn given(text: &str) -> Option<String> {
    Some(text.trim().to_owned()).filter(|t| !t.is_empty())
}
