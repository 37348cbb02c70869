//! Student's t distribution with ν degrees of freedom (ν > 0, not necessarily whole): the
//! distribution function, the two-sided tail probability and the quantile, as scipy's
//! `stats.t.cdf`, `2 * stats.t.sf(|t|)` and `stats.t.ppf` compute them. Used by the paired
//! t-test and the t intervals of the system comparison.
//!
//! Model: P(|T| ≥ t) = I_x(ν/2, 1/2) with x = ν/(ν + t²), where I is the regularised
//! incomplete beta function, evaluated by its continued fraction (modified Lentz; Numerical
//! Recipes §6.4) on the side where it converges fast, so the tail keeps full relative accuracy
//! however small it is. The quantile solves F(t) = p by Newton steps inside a bracket that
//! bisection keeps.
//!
//! No errors: ν ≤ 0 or NaN arguments give NaN; p = 0 and 1 give ∓∞.

use super::normal::normal_quantile;

/// The regularised incomplete beta function I_x(a, b) for a, b > 0 and x ∈ [0, 1].
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if !(a > 0.0 && b > 0.0) || x.is_nan() {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front =
        libm::lgamma(a + b) - libm::lgamma(a) - libm::lgamma(b) + a * x.ln() + b * (-x).ln_1p();
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_fraction(a, b, x) / a
    } else {
        1.0 - ln_front.exp() * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of I_x(a, b), by the modified Lentz method.
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let guard = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / guard(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..=1000 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        let even = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 / guard(1.0 + even * d);
        c = guard(1.0 + even / c);
        h *= d * c;
        let odd = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 / guard(1.0 + odd * d);
        c = guard(1.0 + odd / c);
        let step = d * c;
        h *= step;
        if (step - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

/// P(|T| ≥ |t|): the two-sided p-value of a t statistic.
pub fn t_two_sided(t: f64, df: f64) -> f64 {
    if df.is_nan() || df <= 0.0 || t.is_nan() {
        return f64::NAN;
    }
    if t.is_infinite() {
        return 0.0;
    }
    incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
}

/// P(T ≤ t).
pub fn t_cdf(t: f64, df: f64) -> f64 {
    let tail = 0.5 * t_two_sided(t, df);
    if t > 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// The density of T at t.
fn t_density(t: f64, df: f64) -> f64 {
    let ln = libm::lgamma((df + 1.0) / 2.0)
        - libm::lgamma(df / 2.0)
        - 0.5 * (df * std::f64::consts::PI).ln()
        - (df + 1.0) / 2.0 * (t * t / df).ln_1p();
    ln.exp()
}

/// The p-quantile of T.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    if df.is_nan() || df <= 0.0 || p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.5 {
        return 0.0;
    }
    if p < 0.5 {
        return -t_quantile(1.0 - p, df);
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    // Solve on the upper tail q = 1 − p, which keeps its relative accuracy.
    let q = 1.0 - p;
    let upper_tail = |t: f64| 0.5 * t_two_sided(t, df);
    let (mut lo, mut hi) = (0.0_f64, normal_quantile(p).max(1.0));
    while upper_tail(hi) > q {
        lo = hi;
        hi *= 2.0;
        if !hi.is_finite() {
            return f64::INFINITY;
        }
    }
    let mut t = 0.5 * (lo + hi);
    for _ in 0..200 {
        let f = upper_tail(t) - q;
        if f == 0.0 {
            return t;
        }
        if f > 0.0 {
            lo = t;
        } else {
            hi = t;
        }
        // The upper tail falls at the density's rate.
        let newton = t + f / t_density(t, df);
        let next = if newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if (next - t).abs() <= 1e-15 * t.abs() {
            return next;
        }
        t = next;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    /// scipy 1.17.1: stats.t.sf, stats.t.ppf, stats.t.cdf.
    #[test]
    fn equals_scipy() {
        // 2 * t.sf(2.5, 7), 2 * t.sf(0.3, 1.5), 2 * t.sf(12, 30)
        assert!(close(t_two_sided(2.5, 7.0), 0.04099221858575289, 1e-12));
        assert!(close(t_two_sided(-2.5, 7.0), 0.04099221858575289, 1e-12));
        assert!(close(t_two_sided(0.3, 1.5), 0.8004721968035851, 1e-12));
        assert!(close(t_two_sided(12.0, 30.0), 5.580185415199261e-13, 1e-9));
        // t.ppf(0.975, df) for df = 1, 2, 5, 29, 1000
        for (df, expected) in [
            (1.0, 12.706204736174694),
            (2.0, 4.302652729749462),
            (5.0, 2.5705818356363146),
            (29.0, 2.045229642132703),
            (1000.0, 1.9623390808264083),
        ] {
            assert!(close(t_quantile(0.975, df), expected, 1e-11), "df {df}");
            assert!(close(t_quantile(0.025, df), -expected, 1e-11), "df {df}");
        }
        // t.cdf(-1.2, 4)
        assert!(close(t_cdf(-1.2, 4.0), 0.14817569665617666, 1e-12));
        assert_eq!(t_quantile(0.5, 3.0), 0.0);
        assert!(t_quantile(0.0, 3.0) == f64::NEG_INFINITY);
        assert!(t_quantile(0.3, 0.0).is_nan());
    }

    #[test]
    fn the_cauchy_case_is_exact() {
        // ν = 1: F(t) = 1/2 + atan(t)/π.
        for t in [-30.0, -1.0, 0.2, 4.0] {
            let exact = 0.5 + f64::atan(t) / std::f64::consts::PI;
            assert!(close(t_cdf(t, 1.0), exact, 1e-13), "{t}");
        }
        let q = t_quantile(0.9, 1.0);
        assert!(close(q, (0.4 * std::f64::consts::PI).tan(), 1e-12));
    }
}
