//! Power and sample size for comparing two groups (two judges, two prompt versions, two
//! models): a binary effect (two pass rates) or a continuous effect (two mean scores), with the
//! normal approximation of a two-sample z-test. Computed, not tabulated (seed 001, Part IV
//! gives a rough table and points to `statsmodels.stats.power`, which this reproduces).
//!
//! Model: a standardised effect size e, n₁ and n₂ = r·n₁ items per group, the effective size
//! n = (1/n₁ + 1/n₂)⁻¹ and z_q the standard normal q-quantile; the power of the test at level α
//! is
//!
//! ```text
//! two-sided:  1 − Φ(z_{1−α/2} − e√n) + Φ(z_{α/2} − e√n)
//! larger:     1 − Φ(z_{1−α} − e√n)
//! smaller:    Φ(z_α − e√n)
//! ```
//!
//! with e = Cohen's h = 2 asin √p₁ − 2 asin √p₂ for two proportions, and Cohen's
//! d = (μ₁ − μ₂)/σ for two means. The sample size is the smallest n₁ (solved to 1e-10 by
//! bisection on the monotone power curve, then rounded up) reaching the wanted power.
//!
//! Arguments: [`PowerParams`] (α, power, ratio, alternative) and an [`Effect`]. Returns:
//! [`SampleSize`] with the exact solution, whole group sizes, and the power they achieve.
//! Errors: [`Error::InvalidParam`] for α or power outside (0, 1), power ≤ the test's level
//! (any sample reaches it), ratio ≤ 0, proportions outside [0, 1], a standard deviation ≤ 0,
//! a zero effect, an effect too small for any finite sample, or an effect in the direction a
//! one-sided alternative cannot detect.

use crate::io::checks::{in_open_unit, positive};
use crate::io::error::{Error, Result};
use crate::math::normal::{normal_cdf, normal_quantile};
use serde::{Deserialize, Serialize};

/// The direction the test looks in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Alternative {
    #[default]
    TwoSided,
    /// Effect > 0 (group 1 above group 2).
    Larger,
    /// Effect < 0.
    Smaller,
}

/// The effect to detect.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Two proportions (pass rates), compared through Cohen's h.
    Proportions { p1: f64, p2: f64 },
    /// Two means with a common standard deviation, compared through Cohen's d.
    Means { mean1: f64, mean2: f64, sd: f64 },
    /// A standardised effect size (Cohen's d or h) given directly.
    Standardized { effect_size: f64 },
}

impl Effect {
    /// The standardised effect size e.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for proportions outside [0, 1], sd ≤ 0, or non-finite values.
    pub fn size(&self) -> Result<f64> {
        match *self {
            Self::Proportions { p1, p2 } => {
                for (name, p) in [("p1", p1), ("p2", p2)] {
                    if !(0.0..=1.0).contains(&p) {
                        return Err(Error::param(
                            "effect",
                            format!("expected a proportion in [0, 1] for {name}, found {p}"),
                        ));
                    }
                }
                Ok(proportion_effect_size(p1, p2))
            }
            Self::Means { mean1, mean2, sd } => {
                if !(sd > 0.0 && sd.is_finite() && (mean1 - mean2).is_finite()) {
                    return Err(Error::param(
                        "effect",
                        format!(
                            "expected finite means and a standard deviation > 0, found \
                             {mean1}, {mean2}, sd {sd}"
                        ),
                    ));
                }
                Ok((mean1 - mean2) / sd)
            }
            Self::Standardized { effect_size } => {
                if !effect_size.is_finite() {
                    return Err(Error::param(
                        "effect",
                        format!("expected a finite effect size, found {effect_size}"),
                    ));
                }
                Ok(effect_size)
            }
        }
    }
}

/// Cohen's h between two proportions: 2 asin √p₁ − 2 asin √p₂.
pub fn proportion_effect_size(p1: f64, p2: f64) -> f64 {
    2.0 * (p1.sqrt().asin() - p2.sqrt().asin())
}

/// Settings of a power analysis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PowerParams {
    /// Significance level α.
    pub alpha: f64,
    /// Wanted power 1 − β (used by [`PowerParams::sample_size`]).
    pub power: f64,
    /// n₂ / n₁.
    pub ratio: f64,
    pub alternative: Alternative,
}

impl Default for PowerParams {
    fn default() -> Self {
        Self {
            alpha: 0.05,
            power: 0.8,
            ratio: 1.0,
            alternative: Alternative::TwoSided,
        }
    }
}

/// The sample size a comparison needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleSize {
    pub settings: PowerParams,
    pub effect: Effect,
    /// The standardised effect size e (Cohen's h or d).
    pub effect_size: f64,
    /// The real-valued n₁ at which the power equals the wanted power.
    pub nobs1: f64,
    /// Items in group 1: ⌈nobs1⌉.
    pub n1: u64,
    /// Items in group 2: ⌈ratio · nobs1⌉.
    pub n2: u64,
    pub total: u64,
    /// The power with `n1` and `n2` items (≥ the wanted power).
    pub achieved_power: f64,
}

impl PowerParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        in_open_unit("alpha", self.alpha)?;
        in_open_unit("power", self.power)?;
        positive("ratio", self.ratio)?;
        Ok(())
    }

    /// The power of the test with `n1` and `n2` items in the two groups.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for invalid settings, an invalid effect, or group sizes ≤ 0.
    pub fn achieved_power(&self, effect: &Effect, n1: f64, n2: f64) -> Result<f64> {
        self.validate()?;
        let e = effect.size()?;
        if !(n1 > 0.0 && n2 > 0.0) {
            return Err(Error::param(
                "n1",
                format!("group sizes must be > 0, found {n1} and {n2}"),
            ));
        }
        Ok(self.power_at(e, 1.0 / (1.0 / n1 + 1.0 / n2)))
    }

    /// Power at effective size `nobs` = (1/n₁ + 1/n₂)⁻¹.
    fn power_at(&self, e: f64, nobs: f64) -> f64 {
        let shift = e * nobs.sqrt();
        match self.alternative {
            Alternative::TwoSided => {
                let crit = -normal_quantile(self.alpha / 2.0);
                normal_cdf(shift - crit) + normal_cdf(-crit - shift)
            }
            Alternative::Larger => normal_cdf(shift + normal_quantile(self.alpha)),
            Alternative::Smaller => normal_cdf(normal_quantile(self.alpha) - shift),
        }
    }

    /// The items per group needed to detect `effect` with the wanted power.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn sample_size(&self, effect: &Effect) -> Result<SampleSize> {
        self.validate()?;
        let e = effect.size()?;
        let detectable = match self.alternative {
            Alternative::TwoSided => e != 0.0,
            Alternative::Larger => e > 0.0,
            Alternative::Smaller => e < 0.0,
        };
        if !detectable {
            return Err(Error::param(
                "effect",
                format!(
                    "an effect size of {e} cannot be detected by a {:?} test: expected a \
                     non-zero effect in the tested direction",
                    self.alternative
                ),
            ));
        }
        // The power as n → 0 is the test's level: the rejection probability under the null.
        if self.power <= self.power_at(e, 0.0) {
            return Err(Error::param(
                "power",
                format!(
                    "the wanted power {} does not exceed the test's level {}: any sample size \
                     reaches it",
                    self.power, self.alpha
                ),
            ));
        }
        let per_nobs1 = self.ratio / (1.0 + self.ratio);
        let power_n1 = |n1: f64| self.power_at(e, n1 * per_nobs1);
        let mut hi = 1.0;
        while power_n1(hi) < self.power && hi.is_finite() {
            hi *= 2.0;
        }
        if !hi.is_finite() {
            return Err(Error::param(
                "effect",
                format!("an effect size of {e} is too small to detect with any finite sample"),
            ));
        }
        let mut lo = 0.0;
        while hi - lo > 1e-10 * hi.max(1.0) {
            let mid = 0.5 * (lo + hi);
            if power_n1(mid) < self.power {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let nobs1 = 0.5 * (lo + hi);
        let n1 = nobs1.ceil();
        let n2 = (self.ratio * nobs1).ceil();
        Ok(SampleSize {
            settings: *self,
            effect: *effect,
            effect_size: e,
            nobs1,
            n1: n1 as u64,
            n2: n2 as u64,
            total: (n1 + n2) as u64,
            achieved_power: self.power_at(e, 1.0 / (1.0 / n1 + 1.0 / n2)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_sample_size() {
        // d = 0.5, α = 0.05 two-sided, power 0.8: 2 (z_.975 + z_.8)² / d² ≈ 62.8 → 63 per group.
        let s = PowerParams::default()
            .sample_size(&Effect::Standardized { effect_size: 0.5 })
            .unwrap();
        assert_eq!((s.n1, s.n2, s.total), (63, 63, 126));
        assert!(s.achieved_power >= 0.8);
        let approx = 2.0 * (1.959963984540054 + 0.8416212335729143_f64).powi(2) / 0.25;
        assert!((s.nobs1 - approx).abs() < 0.01, "{} vs {approx}", s.nobs1);
    }

    #[test]
    fn invalid_settings() {
        let p = PowerParams::default();
        let zero = Effect::Proportions { p1: 0.5, p2: 0.5 };
        assert!(p.sample_size(&zero).is_err());
        let larger = PowerParams {
            alternative: Alternative::Larger,
            ..p
        };
        assert!(larger
            .sample_size(&Effect::Standardized { effect_size: -0.3 })
            .is_err());
        let weak = PowerParams { power: 0.01, ..p };
        assert!(weak
            .sample_size(&Effect::Standardized { effect_size: 0.3 })
            .is_err());
        assert!(p
            .sample_size(&Effect::Proportions { p1: 1.2, p2: 0.5 })
            .is_err());
        assert!(p
            .sample_size(&Effect::Means {
                mean1: 1.0,
                mean2: 0.0,
                sd: 0.0
            })
            .is_err());
        assert!(PowerParams { ratio: 0.0, ..p }.validate().is_err());
        assert!(p
            .sample_size(&Effect::Standardized {
                effect_size: 1e-300
            })
            .is_err());
    }
}
