//! Bradley–Terry–Luce (BTL) judge, seed 000 §4.3: the probability that the first of two
//! responses is preferred, from the relative judge's rationale embedding and its probability p
//! of preferring the first,
//!
//! ```text
//! π(e, p; θ) = μ((φ(e) ⊕ log(p/(1 − p)))ᵀθ + c)                     (Eq. 3)
//! L(θ, c)    = −Σ_t [s_t log π_t + (1 − s_t) log(1 − π_t)] + γ‖θ‖²    c unpenalised
//! ```
//!
//! with μ the sigmoid and φ(e) standardised (`features`). Targets s_t ∈ [0, 1]: 1 when the human
//! prefers the first response, 0 the second, ½ a tie (soft targets are allowed). At
//! θ = 0_d ⊕ 1, c = 0, π = μ(logit p) = p: the base judge.
//!
//! Solved by L-BFGS from the base judge (`glm`), with the embedding reduced to its row space
//! when d exceeds the number of rows. The same logistic core fits BTL2 (`btl2_head`).
//!
//! Arguments: [`BtlData`] (embeddings, base probabilities p, targets s) and [`BtlParams`].
//! Returns: [`BtlHead`]. Errors: [`Error::InvalidParam`] for invalid settings;
//! [`Error::Insufficient`] for no rows; located [`Error::Input`] for ragged or non-finite
//! embeddings, probabilities or targets outside [0, 1], and lists of different lengths.

use crate::calibration::features::{
    self, check_probability_floor, BaseSignal, Dim, FeatureSpec, Scaler,
};
use crate::calibration::glm::{self, check_gamma, Block, FitReport, Loss, SolverParams};
use crate::calibration::head::{pick, Fnv1a, HeadParams, Rows};
use crate::calibration::ls_head::{check_finite, check_weights};
use crate::io::error::{Error, Location, Result};
use crate::math::logistic::{sigmoid, softplus, softplus_and_sigmoid};
use ndarray::{Array2, ArrayView1};
use serde::{Deserialize, Serialize};

/// Training rows of a BTL head.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BtlData {
    /// Embeddings of the relative judge's rationales φ(e).
    pub embeddings: Vec<Vec<f64>>,
    /// The base judge's probability p that the first response is preferred.
    pub probabilities: Vec<f64>,
    /// Human targets s ∈ [0, 1] (1: first preferred).
    pub labels: Vec<f64>,
}

impl Rows for BtlData {
    /// Number of rows.
    fn len(&self) -> usize {
        self.embeddings.len()
    }

    /// The rows at `idx`, in that order.
    fn select(&self, idx: &[usize]) -> Self {
        Self {
            embeddings: pick(&self.embeddings, idx),
            probabilities: pick(&self.probabilities, idx),
            labels: pick(&self.labels, idx),
        }
    }

    fn write_canonical(&self, h: &mut Fnv1a) {
        h.write_str("btl");
        h.write_rows(&self.embeddings);
        h.write_f64s(&self.probabilities);
        h.write_f64s(&self.labels);
    }
}

/// Settings of a BTL head.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BtlParams {
    /// L2 penalty γ > 0 (set by cross-validation in practice).
    pub gamma: f64,
    /// Standardise embeddings on the training rows.
    pub standardize: bool,
    /// Base probabilities are clamped to [floor, 1 − floor] before the logit.
    pub probability_floor: f64,
    pub solver: SolverParams,
}

impl Default for BtlParams {
    fn default() -> Self {
        Self {
            gamma: 1.0,
            standardize: true,
            probability_floor: features::DEFAULT_PROBABILITY_FLOOR,
            solver: SolverParams::default(),
        }
    }
}

/// A fitted BTL head.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BtlHead {
    pub spec: FeatureSpec,
    pub scaler: Scaler,
    /// θ on the standardised embedding, d values.
    pub weights: Vec<f64>,
    /// θ on logit p.
    pub base_weight: f64,
    /// c.
    pub intercept: f64,
    pub gamma: f64,
    pub report: FitReport,
}

impl HeadParams for BtlParams {
    type Data = BtlData;
    type Fitted = BtlHead;

    fn gamma(&self) -> f64 {
        self.gamma
    }

    fn validate(&self) -> Result<()> {
        check_gamma(self.gamma)?;
        check_probability_floor(self.probability_floor)?;
        self.solver.validate()
    }

    /// Fits the head at every γ in `gammas` (in that order), warm-starting down the grid.
    fn fit_path(&self, data: &BtlData, gammas: &[f64]) -> Result<Vec<BtlHead>> {
        self.validate()?;
        let n = data.len();
        if n == 0 {
            return Err(Error::Insufficient(
                "the BTL head needs at least one labelled pair, found none".into(),
            ));
        }
        let mut z = features::embedding_matrix("embeddings", &data.embeddings, Dim::FirstRow)?;
        features::check_length("probabilities", data.probabilities.len(), n)?;
        features::check_length("labels", data.labels.len(), n)?;
        let base = features::logits("probabilities", &data.probabilities, self.probability_floor)?;
        check_targets("labels", &data.labels)?;
        let scaler = Scaler::fit(&z, self.standardize);
        scaler.apply(&mut z);
        let spec = FeatureSpec {
            embedding_dim: z.ncols(),
            standardize: self.standardize,
            base: BaseSignal::Logit,
            probability_floor: self.probability_floor,
        };
        Ok(fit_logistic(z, &base, &data.labels, gammas, &self.solver)?
            .into_iter()
            .zip(gammas)
            .map(|(fit, &gamma)| BtlHead {
                spec: spec.clone(),
                scaler: scaler.clone(),
                weights: fit.weights,
                base_weight: fit.base_weight,
                intercept: fit.intercept,
                gamma,
                report: fit.report,
            })
            .collect())
    }

    fn validation_loss(fitted: &BtlHead, data: &BtlData) -> Result<f64> {
        fitted.log_loss(data)
    }
}

impl BtlHead {
    /// π: the probability that the first response is preferred, for new rows.
    ///
    /// # Errors
    /// Located [`Error::Input`] for an embedding whose dimension differs from the training
    /// embeddings', a probability outside [0, 1], or lists of different lengths.
    pub fn predict(&self, embeddings: &[Vec<f64>], probabilities: &[f64]) -> Result<Vec<f64>> {
        Ok(self
            .linear_scores(embeddings, probabilities)?
            .into_iter()
            .map(sigmoid)
            .collect())
    }

    /// Mean log-loss on labelled rows (the CV validation loss).
    pub fn log_loss(&self, data: &BtlData) -> Result<f64> {
        features::check_length("labels", data.labels.len(), data.len())?;
        check_targets("labels", &data.labels)?;
        let u = self.linear_scores(&data.embeddings, &data.probabilities)?;
        Ok(mean_log_loss(&u, &data.labels))
    }

    fn linear_scores(&self, embeddings: &[Vec<f64>], probabilities: &[f64]) -> Result<Vec<f64>> {
        let mut z = features::embedding_matrix(
            "embeddings",
            embeddings,
            Dim::Training(self.spec.embedding_dim),
        )?;
        features::check_length("probabilities", probabilities.len(), embeddings.len())?;
        let base = features::logits("probabilities", probabilities, self.spec.probability_floor)?;
        self.scaler.apply(&mut z);
        Ok(linear(
            &z,
            &base,
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

/// Checks targets: each in [0, 1].
pub(crate) fn check_targets(source: &str, y: &[f64]) -> Result<()> {
    for (i, &v) in y.iter().enumerate() {
        if !(0.0..=1.0).contains(&v) {
            return Err(Error::input(
                Location::line(source, i as u64 + 1),
                format!(
                    "expected a preference in [0, 1] (1: first preferred, 0: second, ½: tie), \
                     found {v}"
                ),
            ));
        }
    }
    Ok(())
}

/// Z θ + b θ_b + c.
pub(crate) fn linear(
    z: &Array2<f64>,
    base: &[f64],
    weights: &[f64],
    base_weight: f64,
    intercept: f64,
) -> Vec<f64> {
    let theta = ArrayView1::from(weights);
    z.rows()
        .into_iter()
        .zip(base)
        .map(|(row, &b)| row.dot(&theta) + base_weight * b + intercept)
        .collect()
}

/// Mean of −[s log μ(u) + (1 − s) log(1 − μ(u))] = softplus(u) − s u.
pub(crate) fn mean_log_loss(u: &[f64], y: &[f64]) -> f64 {
    let total: f64 = u.iter().zip(y).map(|(&u, &s)| softplus(u) - s * u).sum();
    total / u.len().max(1) as f64
}

/// A fitted logistic core: θ on the (standardised) block, θ_b, c.
pub(crate) struct LogisticFit {
    pub weights: Vec<f64>,
    pub base_weight: f64,
    pub intercept: f64,
    pub report: FitReport,
}

/// Fits μ(zᵀθ + θ_b·base + c) to targets `y` at every γ in `gammas`.
pub(crate) fn fit_logistic(
    z: Array2<f64>,
    base: &[f64],
    y: &[f64],
    gammas: &[f64],
    solver: &SolverParams,
) -> Result<Vec<LogisticFit>> {
    for &gamma in gammas {
        check_gamma(gamma)?;
    }
    let block = Block::new(z);
    let x = block.design();
    let q = x.ncols();
    let loss = LogisticLoss { x, base, y };
    let mut identity = vec![0.0; q + 2];
    identity[q] = 1.0;
    Ok(
        glm::solve_path(&loss, identity, gammas, solver, block.is_reduced())
            .into_iter()
            .map(|s| {
                let (weights, shift) = block.weights(&s.w[..q]);
                LogisticFit {
                    weights,
                    base_weight: s.w[q],
                    intercept: s.w[q + 1] + shift,
                    report: s.report,
                }
            })
            .collect(),
    )
}

/// Σ_t softplus(u_t) − s_t u_t with u = xᵀθ + θ_b·base + c, over w = θ ⊕ θ_b ⊕ c.
struct LogisticLoss<'a> {
    x: &'a Array2<f64>,
    base: &'a [f64],
    y: &'a [f64],
}

impl Loss for LogisticLoss<'_> {
    fn units(&self) -> usize {
        self.y.len()
    }

    fn is_penalised(&self, j: usize) -> bool {
        j <= self.x.ncols()
    }

    fn value_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let q = self.x.ncols();
        let (base_weight, intercept) = (w[q], w[q + 1]);
        grad.fill(0.0);
        let (head, tail) = grad.split_at_mut(q);
        let mut value = 0.0;
        let (mut g_base, mut g_intercept) = (0.0, 0.0);
        glm::score_and_gradient(self.x, &w[..q], head, |t, u| {
            let (b, s) = (self.base[t], self.y[t]);
            let u = u + base_weight * b + intercept;
            let (loss, p) = softplus_and_sigmoid(u);
            value += loss - s * u;
            let r = p - s;
            g_base += r * b;
            g_intercept += r;
            r
        });
        tail[0] = g_base;
        tail[1] = g_intercept;
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soft_targets_equal_to_the_judge_make_the_identity_optimal() {
        // With s_t = p_t the unpenalised optimum is θ = 0 ⊕ 1, c = 0 exactly; a tiny γ stays
        // there.
        let data = BtlData {
            embeddings: vec![
                vec![0.3, -1.0],
                vec![1.2, 0.4],
                vec![-0.5, 0.9],
                vec![0.1, 0.1],
            ],
            probabilities: vec![0.2, 0.7, 0.9, 0.4],
            labels: vec![0.2, 0.7, 0.9, 0.4],
        };
        let head = BtlParams {
            gamma: 1e-9,
            ..Default::default()
        }
        .fit(&data)
        .unwrap();
        assert!((head.base_weight - 1.0).abs() < 1e-6, "{head:?}");
        assert!(head.weights.iter().all(|w| w.abs() < 1e-6));
        assert!(head.intercept.abs() < 1e-6);
        let p = head.predict(&data.embeddings, &data.probabilities).unwrap();
        for (a, b) in p.iter().zip(&data.probabilities) {
            assert!((a - b).abs() < 1e-6);
        }
    }

    #[test]
    fn targets_outside_the_unit_interval_are_located() {
        let err = check_targets("labels", &[1.0, 0.0, 2.0]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "labels, line 3: expected a preference in [0, 1] (1: first preferred, 0: second, \
             ½: tie), found 2"
        );
    }
}
