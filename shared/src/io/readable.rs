//! Numbers as a reader should see them in readings and reports: a p-value is never printed as
//! `p = 0.000` (it is not zero), but as `p < 0.001`.

/// A p-value as a reader should see it: `p < 0.001` below a thousandth, `p = 0.xyz` above,
/// "p not defined" for NaN.
pub fn p_text(p: f64) -> String {
    if p.is_nan() {
        "p not defined".to_owned()
    } else if p < 0.001 {
        "p < 0.001".to_owned()
    } else {
        format!("p = {p:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::p_text;

    #[test]
    fn small_p_values_are_bounded_not_rounded_to_zero() {
        assert_eq!(p_text(0.0), "p < 0.001");
        assert_eq!(p_text(0.000_999), "p < 0.001");
        assert_eq!(p_text(0.001), "p = 0.001");
        assert_eq!(p_text(0.0456), "p = 0.046");
        assert_eq!(p_text(f64::NAN), "p not defined");
    }
}
