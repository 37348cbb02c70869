//! Reliability diagnostics of an LLM judge from graded-response-model estimates (seed 003,
//! §3.4), computed from a [`GrmFit`](crate::reliability::irt::irt_grm::GrmFit)'s θ̂ and the ratings.
//!
//! Phase 1, intrinsic consistency ([`ReliabilityParams::intrinsic_consistency`]):
//!
//! ```text
//! V̄_p = 1/(|K_p| − 1) · Σ_{k ∈ K_p} Var_{j ∼ D_p(k)}(θ_j),  D_p(k) = {j | Y_pj = k},
//!       K_p = {k | D_p(k) ≠ ∅}                                                     (Eq. 2)
//! C_V = σ_V / μ_V   (standard deviation and mean of V̄_p across prompt variants)      (Eq. 3)
//! ρ   = Var(θ̂_j) / (Var(θ̂_j) + E[σ_j²])   (θ̂_j, σ_j²: posterior mean and variance)   (Eq. 4)
//! ```
//!
//! Phase 2, human alignment ([`HumanAlignment::compute`]), from the θ̂ of a fit to the judge's
//! ratings and of a fit to human ratings of the same items:
//!
//! ```text
//! θ_ratio = θ_range^(LLM) / θ_range^(Human)                                          (Eq. 5)
//! θ_range = median(θ_j | Y_j = max Y_j′) − median(θ_j | Y_j = min Y_j′)               (Eq. 6)
//! D_W     = W₁(θ̂^(LLM), θ̂^(Human)) = ∫ |F_LLM(t) − F_Human(t)| dt                    (Eq. 7)
//! ```
//!
//! and the data of seed 003's Fig. 1: the median θ̂ of each fit per human score.
//!
//! Conventions (the seed does not fix them): every variance and the standard deviation σ_V are
//! population moments (divisor n, numpy's default), so a rating value given to one item
//! contributes a within-rating variance of 0; a median of an even count is the mean of the two
//! middle values. In Eq. 6 Y_j is the score of the rater whose θ̂ is ranged (the judge's own
//! scores for θ_range^(LLM), the human scores for θ_range^(Human)); [`theta_range`] accepts any
//! grouping, so the Fig. 1 reading (both grouped by the human score) is
//! `theta_range(llm_theta, human_scores)`. W₁ is between the two empirical distributions of
//! θ̂ (any sizes), as `scipy.stats.wasserstein_distance` computes it.
//!
//! Errors: [`Error::InvalidParam`] for mismatched lengths, non-finite values or invalid
//! thresholds; [`Error::Insufficient`] when a statistic is undefined for the data (fewer than
//! two variants with two or more used scores, a single used score, zero variance).

use crate::io::checks::{in_open_unit, positive};
use crate::io::error::{Error, Result};
use crate::math::resample::quantile_sorted;
use crate::reliability::irt::irt_grm::{GrmFit, RatingMatrix};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Acceptance thresholds of Phase 1 (seed 003 §3.4.1: C_V < 0.1, ρ > 0.7).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ReliabilityParams {
    /// Largest acceptable prompt-consistency C_V (exclusive).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ReliabilityParams::default().max_c_v, allow_negative_numbers = true)
    )]
    pub max_c_v: f64,
    /// Smallest acceptable marginal reliability ρ (exclusive).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ReliabilityParams::default().min_reliability, allow_negative_numbers = true)
    )]
    pub min_reliability: f64,
}

impl Default for ReliabilityParams {
    fn default() -> Self {
        Self {
            max_c_v: 0.1,
            min_reliability: 0.7,
        }
    }
}

/// Phase 1 diagnostics of one judge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntrinsicConsistency {
    /// V̄_p (Eq. 2) per variant; `None` for a variant that used fewer than two scores.
    pub within_rating_variance: Vec<Option<f64>>,
    /// μ_V: mean of the defined V̄_p.
    pub mean_variance: f64,
    /// σ_V: population standard deviation of the defined V̄_p.
    pub sd_variance: f64,
    /// C_V = σ_V / μ_V (Eq. 3).
    pub c_v: f64,
    /// ρ (Eq. 4).
    pub marginal_reliability: f64,
    /// C_V < `max_c_v`.
    pub consistent: bool,
    /// ρ > `min_reliability`.
    pub reliable: bool,
}

/// The median θ̂ of the items given one score (a point of seed 003's Fig. 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScoreMedian {
    pub score: u32,
    pub median_theta: f64,
    pub n_items: usize,
}

/// Phase 2 diagnostics of one judge against humans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HumanAlignment {
    /// θ_range (Eq. 6) of the judge's θ̂ grouped by the judge's scores.
    pub theta_range_llm: f64,
    /// θ_range (Eq. 6) of the human θ̂ grouped by the human scores.
    pub theta_range_human: f64,
    /// θ_ratio (Eq. 5).
    pub theta_ratio: f64,
    /// D_W (Eq. 7).
    pub wasserstein: f64,
    /// Fig. 1: median of the judge's θ̂ per human score.
    pub llm_by_human_score: Vec<ScoreMedian>,
    /// Fig. 1: median of the human θ̂ per human score.
    pub human_by_human_score: Vec<ScoreMedian>,
}

impl ReliabilityParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        positive("max_c_v", self.max_c_v)?;
        in_open_unit("min_reliability", self.min_reliability)?;
        Ok(())
    }

    /// Phase 1 of a fit to `ratings` (the matrix the fit was made from).
    ///
    /// # Errors
    /// See the module documentation.
    pub fn intrinsic_consistency(
        &self,
        fit: &GrmFit,
        ratings: &RatingMatrix,
    ) -> Result<IntrinsicConsistency> {
        self.validate()?;
        let pc = prompt_consistency(&fit.theta_mean, ratings)?;
        let rho = marginal_reliability(&fit.theta_mean, &fit.theta_variance)?;
        Ok(IntrinsicConsistency {
            within_rating_variance: pc.within_rating_variance,
            mean_variance: pc.mean_variance,
            sd_variance: pc.sd_variance,
            c_v: pc.c_v,
            marginal_reliability: rho,
            consistent: pc.c_v < self.max_c_v,
            reliable: rho > self.min_reliability,
        })
    }
}

/// Eq. 2–3 without the thresholds: V̄_p per variant, μ_V, σ_V and C_V.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptConsistency {
    pub within_rating_variance: Vec<Option<f64>>,
    pub mean_variance: f64,
    pub sd_variance: f64,
    pub c_v: f64,
}

/// C_V (Eq. 2–3) of θ̂ (one per item) grouped by each variant's scores.
///
/// # Errors
/// [`Error::InvalidParam`] when `theta` does not have one finite value per item;
/// [`Error::Insufficient`] when fewer than two variants used two or more scores, or μ_V = 0.
pub fn prompt_consistency(theta: &[f64], ratings: &RatingMatrix) -> Result<PromptConsistency> {
    check_theta("theta", theta, ratings.n_items())?;
    let within: Vec<Option<f64>> = (0..ratings.n_variants())
        .map(|p| within_rating_variance(theta, &ratings.variant_scores(p)))
        .collect();
    let defined: Vec<f64> = within.iter().flatten().copied().collect();
    if defined.len() < 2 {
        return Err(Error::Insufficient(format!(
            "C_V compares prompt variants: it needs at least two variants that used two or \
             more scores, found {}",
            defined.len()
        )));
    }
    let (mean, var) = mean_and_variance(&defined);
    if mean <= 0.0 {
        return Err(Error::Insufficient(
            "C_V is undefined: θ̂ does not vary within any rating value of any variant (μ_V = 0)"
                .into(),
        ));
    }
    let sd = var.sqrt();
    Ok(PromptConsistency {
        within_rating_variance: within,
        mean_variance: mean,
        sd_variance: sd,
        c_v: sd / mean,
    })
}

/// V̄_p (Eq. 2) of one variant: the summed within-score variances of θ̂ over the |K_p| used
/// scores, divided by |K_p| − 1. `None` when fewer than two scores were used. `theta` and
/// `scores` are aligned by item (the caller checks the lengths).
fn within_rating_variance(theta: &[f64], scores: &[Option<u32>]) -> Option<f64> {
    let groups = group_by_score(theta, scores);
    if groups.len() < 2 {
        return None;
    }
    let total: f64 = groups.values().map(|g| mean_and_variance(g).1).sum();
    Some(total / (groups.len() - 1) as f64)
}

/// ρ (Eq. 4) from posterior means θ̂ⱼ and variances σⱼ².
///
/// # Errors
/// [`Error::InvalidParam`] for different lengths, non-finite or negative variances;
/// [`Error::Insufficient`] for fewer than two items or when Var(θ̂) + E[σ²] = 0.
pub fn marginal_reliability(mean: &[f64], variance: &[f64]) -> Result<f64> {
    check_theta("variance", variance, mean.len())?;
    check_theta("mean", mean, mean.len())?;
    if variance.iter().any(|v| *v < 0.0) {
        return Err(Error::param(
            "variance",
            "expected posterior variances ≥ 0, found a negative one",
        ));
    }
    if mean.len() < 2 {
        return Err(Error::Insufficient(format!(
            "marginal reliability needs at least two items, found {}",
            mean.len()
        )));
    }
    let (_, var_mean) = mean_and_variance(mean);
    let expected_error = variance.iter().sum::<f64>() / variance.len() as f64;
    let total = var_mean + expected_error;
    if total <= 0.0 {
        return Err(Error::Insufficient(
            "marginal reliability is undefined: θ̂ is constant and every posterior variance \
             is 0"
                .into(),
        ));
    }
    Ok(var_mean / total)
}

/// θ_range (Eq. 6): median θ̂ of the items with the highest score minus that of the items
/// with the lowest score.
///
/// # Errors
/// [`Error::InvalidParam`] when the lengths differ or a θ̂ is not finite;
/// [`Error::Insufficient`] when fewer than two different scores were given.
pub fn theta_range(theta: &[f64], scores: &[Option<u32>]) -> Result<f64> {
    check_theta("theta", theta, scores.len())?;
    let groups = group_by_score(theta, scores);
    match (groups.first_key_value(), groups.last_key_value()) {
        (Some((lo, low)), Some((hi, high))) if lo < hi => Ok(median(high) - median(low)),
        _ => Err(Error::Insufficient(format!(
            "θ_range needs items with at least two different scores, found {}",
            groups.len()
        ))),
    }
}

/// The median θ̂ per score, ascending by score (seed 003, Fig. 1).
///
/// # Errors
/// [`Error::InvalidParam`] when the lengths differ or a θ̂ is not finite.
pub fn median_theta_by_score(theta: &[f64], scores: &[Option<u32>]) -> Result<Vec<ScoreMedian>> {
    check_theta("theta", theta, scores.len())?;
    Ok(group_by_score(theta, scores)
        .into_iter()
        .map(|(score, g)| ScoreMedian {
            score,
            median_theta: median(&g),
            n_items: g.len(),
        })
        .collect())
}

/// W₁ between the empirical distributions of `x` and `y` (Eq. 7): ∫ |F_x − F_y|, summed
/// exactly over the gaps between the pooled sorted values. For equal sizes this is the mean
/// |x₍ᵢ₎ − y₍ᵢ₎| of the sorted samples.
///
/// # Errors
/// [`Error::InvalidParam`] for an empty sample or a non-finite value.
pub fn wasserstein_1(x: &[f64], y: &[f64]) -> Result<f64> {
    for (name, v) in [("x", x), ("y", y)] {
        if v.is_empty() {
            return Err(Error::param(
                name,
                "expected at least one value, found none",
            ));
        }
        check_theta(name, v, v.len())?;
    }
    let mut xs = x.to_vec();
    let mut ys = y.to_vec();
    xs.sort_by(f64::total_cmp);
    ys.sort_by(f64::total_cmp);
    let mut pooled: Vec<f64> = xs.iter().chain(&ys).copied().collect();
    pooled.sort_by(f64::total_cmp);
    let (nx, ny) = (xs.len() as f64, ys.len() as f64);
    let (mut ix, mut iy) = (0, 0);
    let mut total = 0.0;
    for w in pooled.windows(2) {
        while ix < xs.len() && xs[ix] <= w[0] {
            ix += 1;
        }
        while iy < ys.len() && ys[iy] <= w[0] {
            iy += 1;
        }
        total += (ix as f64 / nx - iy as f64 / ny).abs() * (w[1] - w[0]);
    }
    Ok(total)
}

impl HumanAlignment {
    /// Phase 2 for items aligned across the four slices: the judge's θ̂ and scores (original
    /// prompt) and the human θ̂ and scores (one human score per item, e.g. the annotators'
    /// median).
    ///
    /// # Errors
    /// See the module documentation; also [`Error::Insufficient`] when θ_range^(Human) = 0.
    pub fn compute(
        llm_theta: &[f64],
        llm_scores: &[Option<u32>],
        human_theta: &[f64],
        human_scores: &[Option<u32>],
    ) -> Result<Self> {
        let n = human_scores.len();
        check_theta("llm_theta", llm_theta, n)?;
        check_theta("human_theta", human_theta, n)?;
        if llm_scores.len() != n {
            return Err(Error::param(
                "llm_scores",
                format!(
                    "expected {n} scores like human_scores, found {}",
                    llm_scores.len()
                ),
            ));
        }
        let theta_range_llm = theta_range(llm_theta, llm_scores)?;
        let theta_range_human = theta_range(human_theta, human_scores)?;
        if theta_range_human == 0.0 {
            return Err(Error::Insufficient(
                "θ_ratio is undefined: the human θ̂ has the same median at the lowest and the \
                 highest human score"
                    .into(),
            ));
        }
        Ok(Self {
            theta_range_llm,
            theta_range_human,
            theta_ratio: theta_range_llm / theta_range_human,
            wasserstein: wasserstein_1(llm_theta, human_theta)?,
            llm_by_human_score: median_theta_by_score(llm_theta, human_scores)?,
            human_by_human_score: median_theta_by_score(human_theta, human_scores)?,
        })
    }
}

fn check_theta(name: &'static str, values: &[f64], expected: usize) -> Result<()> {
    if values.len() != expected {
        return Err(Error::param(
            name,
            format!(
                "expected {expected} values (one per item), found {}",
                values.len()
            ),
        ));
    }
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(Error::param(
            name,
            format!(
                "expected finite numbers, found {} at item {}",
                values[i],
                i + 1
            ),
        ));
    }
    Ok(())
}

/// θ̂ of the scored items, by score.
fn group_by_score(theta: &[f64], scores: &[Option<u32>]) -> BTreeMap<u32, Vec<f64>> {
    let mut groups: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for (t, s) in theta.iter().zip(scores) {
        if let Some(s) = s {
            groups.entry(*s).or_default().push(*t);
        }
    }
    groups
}

/// Mean and population variance (divisor n) of a non-empty slice.
fn mean_and_variance(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    (mean, v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n)
}

fn median(v: &[f64]) -> f64 {
    let mut sorted = v.to_vec();
    sorted.sort_by(f64::total_cmp);
    quantile_sorted(&sorted, 0.5)
}
