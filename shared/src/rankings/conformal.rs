//! Split conformal intervals for a new model's human Elo from its LLM-judged Elo (seed 002
//! §3.3, §5.3).
//!
//! Model: for each calibration model i, the residual (Eq. 2) ε_i = Elo_LLM,i − Elo_Human,i and
//! the nonconformity score (Eq. 3) S_i = |ε_i| / SE_i (normalised) or S_i = |ε_i|
//! (unnormalised). With n calibration models and miscoverage α, q̂ is the
//! ⌈(1 − α)(n + 1)⌉-th smallest score, and the interval for a new model is (Eq. 4)
//!
//! ```text
//! C = [Elo_LLM,n+1 − q̂·SE_n+1, Elo_LLM,n+1 + q̂·SE_n+1]      (or ± q̂ unnormalised)
//! ```
//!
//! which covers the new model's human Elo with probability at least 1 − α when calibration and
//! test models are exchangeable (and at most 1 − α + 1/(n + 1) when scores have no ties).
//!
//! Arguments: per-model [`ModelResidual`]s (LLM Elo, human Elo, SE — e.g. from
//! [`crate::rankings::held_out`]) and [`ConformalParams`]. Returns: [`ConformalCalibration`] (q̂ and its
//! rank), which gives [`ConformalInterval`]s. The evaluation harness
//! ([`ConformalEvaluationParams`]) repeats seeded random calibration/test splits of a pool of
//! models and reports empirical coverage and interval widths. Errors: [`Error::InvalidParam`]
//! for α outside (0, 1) or impossible split sizes; [`Error::Insufficient`] when
//! ⌈(1 − α)(n + 1)⌉ > n (too few calibration models for α; the message says how many are
//! needed), or for a non-finite residual or a non-positive SE under normalised scores.

use crate::io::checks::{at_least_one, in_open_unit};
use crate::io::error::{Error, Result};
use crate::math::resample::quantile_sorted;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Products (1 − α)(n + 1) within this of an integer count as that integer, so that decimal
/// α such as 0.1 give the rank exact arithmetic gives.
const RANK_TOLERANCE: f64 = 1e-9;

/// One model's LLM-derived Elo, human Elo, and the standard error of its LLM-derived Elo.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ModelResidual {
    pub llm_elo: f64,
    pub human_elo: f64,
    pub se: f64,
}

impl ModelResidual {
    /// ε = Elo_LLM − Elo_Human (Eq. 2).
    pub fn residual(&self) -> f64 {
        self.llm_elo - self.human_elo
    }
}

/// The nonconformity score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Nonconformity {
    /// S = |ε| / SE (Eq. 3); intervals ± q̂·SE.
    Normalised,
    /// S = |ε|; intervals ± q̂, the same width for every model.
    Unnormalised,
}

/// Settings of split conformal calibration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ConformalParams {
    /// Miscoverage α in (0, 1); intervals aim at coverage 1 − α.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ConformalParams::default().alpha, allow_negative_numbers = true)
    )]
    pub alpha: f64,
    /// Nonconformity score.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = Nonconformity::Normalised))]
    pub score: Nonconformity,
}

impl Default for ConformalParams {
    /// α = 0.1 with normalised scores, as in seed 002 §5.3.
    fn default() -> Self {
        Self {
            alpha: 0.1,
            score: Nonconformity::Normalised,
        }
    }
}

/// ⌈(1 − α)(n + 1)⌉ (at least 1): the rank (1-based) of q̂ among n calibration scores. May
/// exceed `n`.
pub fn conformal_rank(n: usize, alpha: f64) -> usize {
    ((1.0 - alpha) * (n as f64 + 1.0) - RANK_TOLERANCE)
        .ceil()
        .max(1.0) as usize
}

/// The fewest calibration models for which ⌈(1 − α)(n + 1)⌉ ≤ n, i.e. ⌈1/α − 1⌉.
pub fn min_calibration_size(alpha: f64) -> usize {
    ((1.0 - alpha) / alpha - RANK_TOLERANCE).ceil().max(1.0) as usize
}

/// Calibrated split conformal: q̂ and how it was chosen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConformalCalibration {
    pub settings: ConformalParams,
    /// Calibration models.
    pub n: usize,
    /// ⌈(1 − α)(n + 1)⌉.
    pub rank: usize,
    /// The rank-th smallest calibration score.
    pub qhat: f64,
}

/// An interval for one model's human Elo.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ConformalInterval {
    pub estimate: f64,
    pub lower: f64,
    pub upper: f64,
    pub half_width: f64,
}

impl ConformalParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        in_open_unit("alpha", self.alpha)?;
        Ok(())
    }

    /// Nonconformity scores of `models`, in order.
    ///
    /// # Errors
    /// [`Error::Insufficient`] for a non-finite Elo, or (normalised) an SE that is not a finite
    /// number > 0.
    pub fn scores(&self, models: &[ModelResidual]) -> Result<Vec<f64>> {
        models
            .iter()
            .enumerate()
            .map(|(i, m)| {
                if !(m.llm_elo.is_finite() && m.human_elo.is_finite()) {
                    return Err(Error::Insufficient(format!(
                        "model {i}: expected finite LLM and human Elo, found {} and {}",
                        m.llm_elo, m.human_elo
                    )));
                }
                match self.score {
                    Nonconformity::Unnormalised => Ok(m.residual().abs()),
                    Nonconformity::Normalised if m.se > 0.0 && m.se.is_finite() => {
                        Ok(m.residual().abs() / m.se)
                    }
                    Nonconformity::Normalised => Err(Error::Insufficient(format!(
                        "model {i}: normalised scores |ε|/SE need a finite SE > 0, found {}",
                        m.se
                    ))),
                }
            })
            .collect()
    }

    /// Calibrates q̂ on `calibration` models.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for α outside (0, 1); [`Error::Insufficient`] when
    /// ⌈(1 − α)(n + 1)⌉ > n, and as [`ConformalParams::scores`].
    pub fn calibrate(&self, calibration: &[ModelResidual]) -> Result<ConformalCalibration> {
        self.validate()?;
        let mut scores = self.scores(calibration)?;
        scores.sort_by(f64::total_cmp);
        self.calibrate_sorted(&scores)
    }

    fn calibrate_sorted(&self, sorted: &[f64]) -> Result<ConformalCalibration> {
        let n = sorted.len();
        let rank = conformal_rank(n, self.alpha);
        if rank > n {
            return Err(Error::Insufficient(format!(
                "split conformal at alpha = {} needs at least {} calibration models \
                 (the ceil((1 - alpha)(n + 1)) = {rank}-th smallest score must exist), found {n}",
                self.alpha,
                min_calibration_size(self.alpha)
            )));
        }
        Ok(ConformalCalibration {
            settings: *self,
            n,
            rank,
            qhat: sorted[rank - 1],
        })
    }
}

impl ConformalCalibration {
    /// The half-width of the interval of a model with standard error `se`.
    pub fn half_width(&self, se: f64) -> f64 {
        match self.settings.score {
            Nonconformity::Normalised => self.qhat * se,
            Nonconformity::Unnormalised => self.qhat,
        }
    }

    /// The interval Elo_LLM ± q̂·SE (or ± q̂) for a new model.
    ///
    /// # Errors
    /// [`Error::Insufficient`] for a non-finite LLM Elo, or (normalised) an SE that is not a
    /// finite number > 0.
    pub fn interval(&self, llm_elo: f64, se: f64) -> Result<ConformalInterval> {
        if !llm_elo.is_finite() {
            return Err(Error::Insufficient(format!(
                "expected a finite LLM Elo for the new model, found {llm_elo}"
            )));
        }
        if self.settings.score == Nonconformity::Normalised && !(se > 0.0 && se.is_finite()) {
            return Err(Error::Insufficient(format!(
                "normalised intervals ± q̂·SE need a finite SE > 0 for the new model, found {se}"
            )));
        }
        let half_width = self.half_width(se);
        Ok(ConformalInterval {
            estimate: llm_elo,
            lower: llm_elo - half_width,
            upper: llm_elo + half_width,
            half_width,
        })
    }
}

/// Settings of the evaluation harness: repeated random calibration/test splits of a pool.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ConformalEvaluationParams {
    #[cfg_attr(feature = "cli", command(flatten))]
    pub conformal: ConformalParams,
    /// Calibration models per split; `None` takes half the pool (rounded down), the rest test.
    #[cfg_attr(feature = "cli", arg(long, allow_negative_numbers = true))]
    pub n_calibration: Option<usize>,
    /// Number of random calibration/test splits.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ConformalEvaluationParams::default().splits, allow_negative_numbers = true)
    )]
    pub splits: usize,
    /// Seed of the splits: split `r` permutes the pool with ChaCha8 (this seed, stream `r`).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ConformalEvaluationParams::default().seed, allow_negative_numbers = true)
    )]
    pub seed: u64,
}

impl Default for ConformalEvaluationParams {
    fn default() -> Self {
        Self {
            conformal: ConformalParams::default(),
            n_calibration: None,
            splits: 100,
            seed: 0,
        }
    }
}

/// One calibration/test split.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SplitOutcome {
    pub qhat: f64,
    /// Share of test models whose human Elo lies in its interval.
    pub coverage: f64,
    /// Median and mean interval width (2 × half-width) over the test models.
    pub median_width: f64,
    pub mean_width: f64,
}

/// Empirical coverage and widths over repeated splits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConformalEvaluation {
    pub settings: ConformalEvaluationParams,
    pub seed: u64,
    pub n_models: usize,
    pub n_calibration: usize,
    pub n_test: usize,
    /// ⌈(1 − α)(n_calibration + 1)⌉.
    pub rank: usize,
    /// Mean over splits of the test coverage, with its smallest and largest split.
    pub coverage: f64,
    pub coverage_min: f64,
    pub coverage_max: f64,
    /// Mean over splits of the per-split median width, with its smallest and largest split.
    pub median_width: f64,
    pub median_width_min: f64,
    pub median_width_max: f64,
    /// Mean over splits of the per-split mean width.
    pub mean_width: f64,
    pub per_split: Vec<SplitOutcome>,
}

impl ConformalEvaluationParams {
    /// Checks the settings against a pool of `n_models`; returns the calibration size.
    fn calibration_size(&self, n_models: usize) -> Result<usize> {
        self.conformal.validate()?;
        at_least_one("splits", self.splits)?;
        let n_calibration = self.n_calibration.unwrap_or(n_models / 2);
        if n_calibration == 0 || n_calibration >= n_models {
            return Err(Error::param(
                "n_calibration",
                format!(
                    "expected between 1 and {} calibration models (at least one model must be \
                     left to test) in a pool of {n_models}, found {n_calibration}",
                    n_models.saturating_sub(1)
                ),
            ));
        }
        Ok(n_calibration)
    }

    /// Evaluates split conformal on `pool` by repeated seeded random splits.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for invalid settings or a calibration size that leaves no test
    /// model; [`Error::Insufficient`] when the calibration size is too small for α, and as
    /// [`ConformalParams::scores`].
    pub fn evaluate(&self, pool: &[ModelResidual]) -> Result<ConformalEvaluation> {
        let n_models = pool.len();
        let n_calibration = self.calibration_size(n_models)?;
        let scores = self.conformal.scores(pool)?;
        let n_test = n_models - n_calibration;
        let mut per_split = Vec::with_capacity(self.splits);
        let mut order: Vec<usize> = (0..n_models).collect();
        for split in 0..self.splits {
            let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
            rng.set_stream(split as u64);
            order.sort_unstable();
            order.shuffle(&mut rng);
            let (calibration, test) = order.split_at(n_calibration);
            let mut cal_scores: Vec<f64> = calibration.iter().map(|&i| scores[i]).collect();
            cal_scores.sort_by(f64::total_cmp);
            let fit = self.conformal.calibrate_sorted(&cal_scores)?;
            let covered = test.iter().filter(|&&i| scores[i] <= fit.qhat).count();
            let mut widths: Vec<f64> = test
                .iter()
                .map(|&i| 2.0 * fit.half_width(pool[i].se))
                .collect();
            widths.sort_by(f64::total_cmp);
            per_split.push(SplitOutcome {
                qhat: fit.qhat,
                coverage: covered as f64 / n_test as f64,
                median_width: quantile_sorted(&widths, 0.5),
                mean_width: widths.iter().sum::<f64>() / n_test as f64,
            });
        }
        let mean = |f: fn(&SplitOutcome) -> f64| {
            per_split.iter().map(f).sum::<f64>() / per_split.len() as f64
        };
        let min =
            |f: fn(&SplitOutcome) -> f64| per_split.iter().map(f).fold(f64::INFINITY, f64::min);
        let max =
            |f: fn(&SplitOutcome) -> f64| per_split.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
        Ok(ConformalEvaluation {
            settings: *self,
            seed: self.seed,
            n_models,
            n_calibration,
            n_test,
            rank: conformal_rank(n_calibration, self.conformal.alpha),
            coverage: mean(|s| s.coverage),
            coverage_min: min(|s| s.coverage),
            coverage_max: max(|s| s.coverage),
            median_width: mean(|s| s.median_width),
            median_width_min: min(|s| s.median_width),
            median_width_max: max(|s| s.median_width),
            mean_width: mean(|s| s.mean_width),
            per_split,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_and_minimum_size_agree() {
        for alpha in [0.5, 0.3, 0.2, 0.1, 0.05, 0.01, 0.37] {
            let smallest = (1..10_000)
                .find(|&n| conformal_rank(n, alpha) <= n)
                .unwrap();
            assert_eq!(min_calibration_size(alpha), smallest, "alpha {alpha}");
        }
    }
}
