//! The interval of a mean from one sample of item-level values: Student's t (scipy's
//! `stats.t.interval`), Wilson's score interval for a pass rate (statsmodels'
//! `proportion_confint(method="wilson")`: never zero width, also at 0 % or 100 %), and the
//! cluster-robust (CR1) interval of statsmodels' `OLS(y, 1).fit(cov_type="cluster",
//! use_t=True)`:
//!
//! ```text
//! se_CR1 = √( G/(G−1) · Σ_g (Σ_{i∈g} (y_i − ȳ))² ) / n,   ȳ ± t_{G−1, 1−α/2} · se_CR1
//! ```
//!
//! and exact binomial tails for McNemar's and the sign test (statsmodels' `mcnemar(exact=True)`:
//! p = min(1, 2 · P(X ≤ min(b, c))), X ~ Binomial(b + c, ½)).
//!
//! A quantity the sample cannot identify (a t interval of one value, a clustered interval of
//! one cluster) is NaN — `null` in JSON — and the caller says why in a warning.

use crate::math::normal::normal_quantile;
use crate::math::student_t::{t_quantile, t_two_sided};
use serde::{Deserialize, Serialize};

/// How an interval was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntervalMethod {
    /// Student's t on the item-level values.
    T,
    /// Wilson's score interval on a pass rate.
    Wilson,
    /// Cluster-robust (CR1) standard error with t on G − 1 degrees of freedom.
    Cluster,
    /// Percentile bootstrap over items (or clusters).
    Bootstrap,
    /// Wilson intervals of the two discordant rates, for a paired pass-rate difference whose
    /// items all differ alike (where t has no spread to work with).
    WilsonDiscordant,
}

/// An estimate, its standard error and interval, and how the interval was computed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanInterval {
    pub method: IntervalMethod,
    pub estimate: f64,
    pub se: f64,
    pub lower: f64,
    pub upper: f64,
}

/// Mean and sample standard deviation (n − 1; NaN for fewer than two values).
pub fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let sd = if values.len() > 1 {
        (values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        f64::NAN
    };
    (mean, sd)
}

/// The t interval of the mean of `values` at level 1 − α, and the two-sided p-value of mean
/// = 0.
pub fn t_interval(values: &[f64], alpha: f64) -> (MeanInterval, f64) {
    let n = values.len() as f64;
    let (mean, sd) = mean_sd(values);
    let se = sd / n.sqrt();
    let q = t_quantile(1.0 - alpha / 2.0, n - 1.0);
    let p = if se > 0.0 {
        t_two_sided(mean / se, n - 1.0)
    } else if mean == 0.0 {
        1.0
    } else {
        f64::NAN
    };
    (
        MeanInterval {
            method: IntervalMethod::T,
            estimate: mean,
            se,
            lower: mean - q * se,
            upper: mean + q * se,
        },
        p,
    )
}

/// Wilson's score interval of `successes` (may be fractional: epochs averaged) in `n` trials.
pub fn wilson(successes: f64, n: f64, alpha: f64) -> MeanInterval {
    let z = normal_quantile(1.0 - alpha / 2.0);
    let p = successes / n;
    let z2n = z * z / n;
    let center = (p + z2n / 2.0) / (1.0 + z2n);
    let half = z / (1.0 + z2n) * (p * (1.0 - p) / n + z2n / (4.0 * n)).sqrt();
    MeanInterval {
        method: IntervalMethod::Wilson,
        estimate: p,
        se: (p * (1.0 - p) / n).sqrt(),
        // At 0 or every success the bound is the end itself (not an ulp inside it).
        lower: if successes <= 0.0 {
            0.0
        } else {
            (center - half).max(0.0)
        },
        upper: if successes >= n {
            1.0
        } else {
            (center + half).min(1.0)
        },
    }
}

/// The CR1 interval of the mean of `values` grouped by `clusters` (one label per value: the
/// table's cluster indices, dense from 0, so one slot per label is kept), and
/// the two-sided p-value of mean = 0; with fewer than two clusters every number but the mean is
/// NaN. Returns also the number of clusters.
pub fn cluster_interval(
    values: &[f64],
    clusters: &[u32],
    alpha: f64,
) -> (MeanInterval, f64, usize) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    // Each cluster's residual total, in cluster order, each summed in the values' order.
    let slots = clusters.iter().max().map_or(0, |&c| c as usize + 1);
    let mut by_cluster: Vec<Option<f64>> = vec![None; slots];
    for (&c, &v) in clusters.iter().zip(values) {
        let total = by_cluster[c as usize].get_or_insert(0.0);
        *total += v - mean;
    }
    let totals: Vec<f64> = by_cluster.into_iter().flatten().collect();
    let g = totals.len();
    let gf = g as f64;
    let se = if g > 1 {
        (gf / (gf - 1.0) * totals.iter().map(|t| t * t).sum::<f64>()).sqrt() / n
    } else {
        f64::NAN
    };
    let q = t_quantile(1.0 - alpha / 2.0, gf - 1.0);
    let p = if se > 0.0 {
        t_two_sided(mean / se, gf - 1.0)
    } else if se == 0.0 && mean == 0.0 {
        1.0
    } else {
        f64::NAN
    };
    (
        MeanInterval {
            method: IntervalMethod::Cluster,
            estimate: mean,
            se,
            lower: mean - q * se,
            upper: mean + q * se,
        },
        p,
        g,
    )
}

/// P(X ≤ k) for X ~ Binomial(n, ½).
fn binomial_half_cdf(k: u64, n: u64) -> f64 {
    let k = k.min(n);
    let (nf, kf) = (n as f64, k as f64);
    // P(X = k) from the log of its binomial coefficient, then each smaller i's term from the
    // last by the ratio i / (n − i + 1): below the mode (k ≤ n/2 here) they only shrink, so the
    // sum stops once a term no longer changes it — O(√n) steps, not O(k) log-gammas.
    let mut term = (libm::lgamma(nf + 1.0)
        - libm::lgamma(kf + 1.0)
        - libm::lgamma(nf - kf + 1.0)
        - std::f64::consts::LN_2 * nf)
        .exp();
    let mut sum = 0.0;
    let mut i = k;
    loop {
        sum += term;
        if i == 0 || term < sum * f64::EPSILON * 0.01 {
            return sum;
        }
        term *= i as f64 / (n - i + 1) as f64;
        i -= 1;
    }
}

/// The exact two-sided test of `a` against `b` successes at rate ½ (McNemar's exact test on
/// the discordant counts; the sign test on positive and negative differences): 1 when both are
/// 0.
pub fn exact_half_test(a: u64, b: u64) -> f64 {
    let n = a + b;
    if n == 0 {
        return 1.0;
    }
    (2.0 * binomial_half_cdf(a.min(b), n)).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_is_never_zero_width() {
        // statsmodels proportion_confint(10, 10, method="wilson") = (0.7224672001371106, 1.0)
        let all = wilson(10.0, 10.0, 0.05);
        assert!((all.lower - 0.7224672001371106).abs() < 1e-12, "{all:?}");
        assert_eq!(all.upper, 1.0);
        // proportion_confint(3, 10, method="wilson") = (0.10779126740630104, 0.6032218525388546)
        let some = wilson(3.0, 10.0, 0.05);
        assert!((some.lower - 0.10779126740630104).abs() < 1e-12, "{some:?}");
        assert!((some.upper - 0.6032218525388546).abs() < 1e-12, "{some:?}");
    }

    #[test]
    fn exact_tests_equal_hand_counts() {
        // 2 · P(X ≤ 1), X ~ Bin(6, ½) = 2 · 7/64.
        assert!((exact_half_test(1, 5) - 14.0 / 64.0).abs() < 1e-15);
        assert_eq!(exact_half_test(3, 3), 1.0);
        assert_eq!(exact_half_test(0, 0), 1.0);
        // 2 · (1/2)^10
        assert!((exact_half_test(0, 10) - 2.0 / 1024.0).abs() < 1e-15);
    }

    #[test]
    fn one_cluster_identifies_no_interval() {
        let (interval, p, g) = cluster_interval(&[1.0, 2.0, 4.0], &[7, 7, 7], 0.05);
        assert_eq!(g, 1);
        assert!((interval.estimate - 7.0 / 3.0).abs() < 1e-15);
        assert!(interval.se.is_nan() && interval.lower.is_nan() && p.is_nan());
        // Two clusters {1, 2}, {4}: residuals sum to −1.667 and 1.667;
        // se = √(2 · 2 · 1.667²) / 3.
        let (interval, _, g) = cluster_interval(&[1.0, 2.0, 4.0], &[1, 1, 2], 0.05);
        assert_eq!(g, 2);
        let r: f64 = 5.0 / 3.0;
        assert!((interval.se - (4.0 * r * r).sqrt() / 3.0).abs() < 1e-12);
    }
}
