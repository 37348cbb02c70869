//! Two-headed BTL (BTL2) judge, seed 000 §4.4: the BTL judge of Eq. 3 on two separate absolute
//! evaluations, with
//!
//! ```text
//! φ(e) = φ(e₁) − φ(e₂),   p = b₁/(b₁ + b₂),   so   log(p/(1 − p)) = log b₁ − log b₂
//! π = μ((φ(e₁) − φ(e₂) ⊕ log(b₁/b₂))ᵀθ + c)
//! L(θ, c) = −Σ_t [s_t log π_t + (1 − s_t) log(1 − π_t)] + γ‖θ‖²       c unpenalised
//! ```
//!
//! The scaler is fitted on both sides' training embeddings together and applied to each side,
//! so the feature is z(e₁) − z(e₂) = (φ(e₁) − φ(e₂))/s: the mean cancels and swapping the
//! responses negates it. Scores must be positive (the seed's b₁, b₂ > 0). At θ = 0_d ⊕ 1, c = 0,
//! π = b₁/(b₁ + b₂): the base judge. Fitted by the logistic core of `btl_head`.
//!
//! Arguments: [`Btl2Data`] and [`Btl2Params`]. Returns: [`Btl2Head`]. Errors: [`Error::InvalidParam`] for invalid settings;
//! [`Error::Insufficient`] for no pairs; located [`Error::Input`] for ragged, mismatched or
//! non-finite embeddings, scores ≤ 0, targets outside [0, 1] and lists of different lengths.

use crate::calibration::btl_head::{check_targets, fit_logistic, linear, mean_log_loss};
use crate::calibration::features::{
    self, BaseSignal, Dim, FeatureSpec, Scaler, DEFAULT_PROBABILITY_FLOOR,
};
use crate::calibration::glm::{check_gamma, FitReport, SolverParams};
use crate::calibration::head::{pick, Fnv1a, HeadParams, Rows};
use crate::calibration::ls_head::{check_finite, check_weights};
use crate::io::error::{Error, Result};
use crate::math::logistic::sigmoid;
use ndarray::Array2;
use serde::{Deserialize, Serialize};

/// Training pairs of a BTL2 head: two absolute evaluations per pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Btl2Data {
    /// φ(e₁): embeddings of the absolute judge's rationale for the first response.
    pub first_embeddings: Vec<Vec<f64>>,
    /// φ(e₂), for the second response.
    pub second_embeddings: Vec<Vec<f64>>,
    /// b₁ > 0.
    pub first_scores: Vec<f64>,
    /// b₂ > 0.
    pub second_scores: Vec<f64>,
    /// Human targets s ∈ [0, 1] (1: first preferred).
    pub labels: Vec<f64>,
}

impl Rows for Btl2Data {
    /// Number of pairs.
    fn len(&self) -> usize {
        self.first_embeddings.len()
    }

    /// The pairs at `idx`, in that order.
    fn select(&self, idx: &[usize]) -> Self {
        Self {
            first_embeddings: pick(&self.first_embeddings, idx),
            second_embeddings: pick(&self.second_embeddings, idx),
            first_scores: pick(&self.first_scores, idx),
            second_scores: pick(&self.second_scores, idx),
            labels: pick(&self.labels, idx),
        }
    }

    fn write_canonical(&self, h: &mut Fnv1a) {
        h.write_str("btl2");
        h.write_rows(&self.first_embeddings);
        h.write_rows(&self.second_embeddings);
        h.write_f64s(&self.first_scores);
        h.write_f64s(&self.second_scores);
        h.write_f64s(&self.labels);
    }
}

/// A fitted BTL2 head.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Btl2Head {
    pub spec: FeatureSpec,
    pub scaler: Scaler,
    /// θ on the standardised embedding difference, d values.
    pub weights: Vec<f64>,
    /// θ on log b₁ − log b₂.
    pub base_weight: f64,
    /// c (a bias towards the first position).
    pub intercept: f64,
    pub gamma: f64,
    pub report: FitReport,
}

/// The standardised differences z(e₁) − z(e₂) and log b₁ − log b₂ of validated pairs.
struct Features {
    difference: Array2<f64>,
    base: Vec<f64>,
}

fn pair_features(
    first: &[Vec<f64>],
    second: &[Vec<f64>],
    first_scores: &[f64],
    second_scores: &[f64],
    dim: Dim,
) -> Result<(Array2<f64>, Array2<f64>, Vec<f64>)> {
    let n = first.len();
    let a = features::embedding_matrix("first_embeddings", first, dim)?;
    let d = a.ncols();
    let second_dim = match dim {
        Dim::FirstRow => Dim::SameAs(d, "the first embeddings"),
        other => other,
    };
    let b = features::embedding_matrix("second_embeddings", second, second_dim)?;
    features::check_length("second_embeddings", second.len(), n)?;
    features::check_length("first_scores", first_scores.len(), n)?;
    features::check_length("second_scores", second_scores.len(), n)?;
    let l1 = features::log_scores("first_scores", first_scores)?;
    let l2 = features::log_scores("second_scores", second_scores)?;
    let base = l1.iter().zip(&l2).map(|(x, y)| x - y).collect();
    Ok((a, b, base))
}

impl Features {
    fn new(mut a: Array2<f64>, mut b: Array2<f64>, base: Vec<f64>, scaler: &Scaler) -> Self {
        scaler.apply(&mut a);
        scaler.apply(&mut b);
        Self {
            difference: a - b,
            base,
        }
    }
}

/// Settings of a BTL2 head.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Btl2Params {
    /// L2 penalty γ > 0 (set by cross-validation in practice).
    pub gamma: f64,
    /// Standardise embeddings on the training pairs (both sides together).
    pub standardize: bool,
    pub solver: SolverParams,
}

impl Default for Btl2Params {
    fn default() -> Self {
        Self {
            gamma: 1.0,
            standardize: true,
            solver: SolverParams::default(),
        }
    }
}

impl HeadParams for Btl2Params {
    type Data = Btl2Data;
    type Fitted = Btl2Head;

    fn gamma(&self) -> f64 {
        self.gamma
    }

    fn validate(&self) -> Result<()> {
        check_gamma(self.gamma)?;
        self.solver.validate()
    }

    /// Fits the head at every γ in `gammas` (in that order), warm-starting down the grid.
    fn fit_path(&self, data: &Btl2Data, gammas: &[f64]) -> Result<Vec<Btl2Head>> {
        self.validate()?;
        let n = data.len();
        if n == 0 {
            return Err(Error::Insufficient(
                "the BTL2 head needs at least one labelled pair, found none".into(),
            ));
        }
        let (a, b, base) = pair_features(
            &data.first_embeddings,
            &data.second_embeddings,
            &data.first_scores,
            &data.second_scores,
            Dim::FirstRow,
        )?;
        features::check_length("labels", data.labels.len(), n)?;
        check_targets("labels", &data.labels)?;
        let scaler = Scaler::fit_blocks(&[&a, &b], self.standardize);
        let f = Features::new(a, b, base, &scaler);
        let spec = FeatureSpec {
            embedding_dim: f.difference.ncols(),
            standardize: self.standardize,
            base: BaseSignal::ScoreLogRatio,
            probability_floor: DEFAULT_PROBABILITY_FLOOR,
        };
        Ok(
            fit_logistic(f.difference, &f.base, &data.labels, gammas, &self.solver)?
                .into_iter()
                .zip(gammas)
                .map(|(fit, &gamma)| Btl2Head {
                    spec: spec.clone(),
                    scaler: scaler.clone(),
                    weights: fit.weights,
                    base_weight: fit.base_weight,
                    intercept: fit.intercept,
                    gamma,
                    report: fit.report,
                })
                .collect(),
        )
    }

    fn validation_loss(fitted: &Btl2Head, data: &Btl2Data) -> Result<f64> {
        fitted.log_loss(data)
    }
}

impl Btl2Head {
    /// π: the probability that the first response of each pair is preferred.
    ///
    /// # Errors
    /// Located [`Error::Input`] for embeddings whose dimension differs from the training
    /// embeddings', scores ≤ 0, or lists of different lengths.
    pub fn predict(
        &self,
        first: &[Vec<f64>],
        second: &[Vec<f64>],
        first_scores: &[f64],
        second_scores: &[f64],
    ) -> Result<Vec<f64>> {
        Ok(self
            .linear_scores(first, second, first_scores, second_scores)?
            .into_iter()
            .map(sigmoid)
            .collect())
    }

    /// Mean log-loss on labelled pairs (the CV validation loss).
    pub fn log_loss(&self, data: &Btl2Data) -> Result<f64> {
        features::check_length("labels", data.labels.len(), data.len())?;
        check_targets("labels", &data.labels)?;
        let u = self.linear_scores(
            &data.first_embeddings,
            &data.second_embeddings,
            &data.first_scores,
            &data.second_scores,
        )?;
        Ok(mean_log_loss(&u, &data.labels))
    }

    fn linear_scores(
        &self,
        first: &[Vec<f64>],
        second: &[Vec<f64>],
        first_scores: &[f64],
        second_scores: &[f64],
    ) -> Result<Vec<f64>> {
        let dim = Dim::Training(self.spec.embedding_dim);
        let (a, b, base) = pair_features(first, second, first_scores, second_scores, dim)?;
        let f = Features::new(a, b, base, &self.scaler);
        Ok(linear(
            &f.difference,
            &f.base,
            &self.weights,
            self.base_weight,
            self.intercept,
        ))
    }

    /// Checks the shapes and values of a head read from a file.
    pub fn validate(&self) -> Result<()> {
        self.spec.validate()?;
        self.scaler.validate(self.spec.embedding_dim)?;
        check_weights(&self.weights, self.spec.embedding_dim)?;
        check_finite("base_weight", &[self.base_weight])?;
        check_finite("intercept", &[self.intercept])?;
        check_gamma(self.gamma)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swapping_the_responses_mirrors_the_prediction() {
        let data = Btl2Data {
            first_embeddings: vec![vec![1.0, 0.0], vec![0.0, 2.0], vec![1.5, 1.0]],
            second_embeddings: vec![vec![0.0, 1.0], vec![1.0, 1.0], vec![-1.0, 0.5]],
            first_scores: vec![4.0, 2.0, 5.0],
            second_scores: vec![2.0, 3.0, 1.0],
            labels: vec![1.0, 0.0, 1.0],
        };
        let head = Btl2Params::default().fit(&data).unwrap();
        let forward = head
            .predict(
                &data.first_embeddings,
                &data.second_embeddings,
                &data.first_scores,
                &data.second_scores,
            )
            .unwrap();
        let backward = head
            .predict(
                &data.second_embeddings,
                &data.first_embeddings,
                &data.second_scores,
                &data.first_scores,
            )
            .unwrap();
        // μ(u) + μ(−u + 2c) = 1 only when c = 0; in general logit π₁₂ + logit π₂₁ = 2c.
        for (f, b) in forward.iter().zip(&backward) {
            let logit = |p: f64| (p / (1.0 - p)).ln();
            assert!((logit(*f) + logit(*b) - 2.0 * head.intercept).abs() < 1e-9);
        }
    }

    #[test]
    fn second_embeddings_must_match_the_first() {
        let data = Btl2Data {
            first_embeddings: vec![vec![1.0, 0.0]],
            second_embeddings: vec![vec![0.0]],
            first_scores: vec![1.0],
            second_scores: vec![1.0],
            labels: vec![1.0],
        };
        let err = Btl2Params::default().fit(&data).unwrap_err();
        assert_eq!(
            err.to_string(),
            "second_embeddings, line 1: expected an embedding of 2 numbers like the first \
             embeddings, found 1"
        );
    }
}
