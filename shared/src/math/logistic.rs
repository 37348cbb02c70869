//! The logistic function and its log-partner, evaluated without overflow.
//!
//! - [`sigmoid`]: σ(x) = 1 / (1 + e^(−x)). Only e^(−|x|) ∈ (0, 1] is ever computed, so no
//!   exponential overflows: σ(x) = 1 / (1 + e^(−x)) for x ≥ 0 and e^x / (1 + e^x) for x < 0.
//!   It saturates to exactly 0 or 1 far out (|x| ≳ 745 and x ≳ 37 respectively) and never
//!   returns NaN for a finite x.
//! - [`softplus`]: ln(1 + eˣ) = −log σ(−x), as max(x, 0) + ln_1p(e^(−|x|)): no overflow for large
//!   x (it returns x), full relative accuracy in the tail for very negative x (ln_1p(eˣ) ≈ eˣ, where
//!   ln(1 + eˣ) would round to 0), and ln 2 at 0.
//! - [`softplus_and_sigmoid`]: both from one exponential, for the inner loops of the logistic
//!   fits (binary cross-entropy and its gradient); each value equals the separate function's to
//!   the last bit.

/// σ(x) = 1 / (1 + e^(−x)), evaluated without overflow.
pub fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// ln(1 + eˣ) = −log σ(−x), evaluated without overflow.
pub fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// (softplus(x), σ(x)) from one exponential, equal to the two functions' values.
pub fn softplus_and_sigmoid(x: f64) -> (f64, f64) {
    let e = (-x.abs()).exp();
    let sigma = if x >= 0.0 {
        1.0 / (1.0 + e)
    } else {
        e / (1.0 + e)
    };
    (x.max(0.0) + e.ln_1p(), sigma)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_sigmoid_and_softplus() {
        assert_eq!(sigmoid(-800.0), 0.0);
        assert_eq!(sigmoid(800.0), 1.0);
        assert!((softplus(0.0) - 2f64.ln()).abs() < 1e-16);
        assert_eq!(softplus(800.0), 800.0);
    }
}
