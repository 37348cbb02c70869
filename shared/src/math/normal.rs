//! The standard normal distribution: Φ and Φ⁻¹, accurate in both tails, and [`Estimate`], an
//! estimate with its normal interval. Used by power analysis, normal intervals (PPI, style
//! control, self-preference) and slice tests. No errors: Φ⁻¹ is ±∞ at 0 and 1 and NaN outside
//! [0, 1].

use serde::{Deserialize, Serialize};

/// An estimate with its standard error and interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub estimate: f64,
    pub se: f64,
    pub lower: f64,
    pub upper: f64,
}

impl Estimate {
    /// `estimate ± z · se`.
    pub fn normal(estimate: f64, se: f64, z: f64) -> Self {
        Self {
            estimate,
            se,
            lower: estimate - z * se,
            upper: estimate + z * se,
        }
    }
}

/// The standard normal distribution function Φ(x), accurate in both tails.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// The standard normal quantile Φ⁻¹(p) for p ∈ (0, 1) (±∞ at 0 and 1, NaN outside): a rational
/// starting value (Abramowitz & Stegun 26.2.23) refined by Halley steps on [`normal_cdf`],
/// computed in the smaller tail so that both tails keep full relative accuracy.
pub fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p > 0.5 {
        return -normal_quantile(1.0 - p);
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 0.5 {
        return 0.0;
    }
    let t = (-2.0 * p.ln()).sqrt();
    let mut x = -(t
        - (2.515517 + 0.802853 * t + 0.010328 * t * t)
            / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t));
    let inv_density = |x: f64| (2.0 * std::f64::consts::PI).sqrt() * (0.5 * x * x).exp();
    for _ in 0..4 {
        let u = (normal_cdf(x) - p) * inv_density(x);
        let step = u / (1.0 + 0.5 * x * u);
        if !step.is_finite() {
            break;
        }
        x -= step;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_functions() {
        // Φ⁻¹(0.975) = 1.959963984540054; Φ(−1) = 0.15865525393145707 (scipy.stats.norm).
        assert!((normal_quantile(0.975) - 1.959963984540054).abs() < 1e-14);
        assert!((normal_cdf(-1.0) - 0.15865525393145707).abs() < 1e-16);
        // Far tail: Φ⁻¹(1e-300) = −37.04710112652...; check the round trip instead.
        let x = normal_quantile(1e-300);
        assert!((normal_cdf(x) / 1e-300 - 1.0).abs() < 1e-12, "{x}");
        assert_eq!(normal_quantile(0.5), 0.0);
        assert!(normal_quantile(1.5).is_nan());
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
    }
}
