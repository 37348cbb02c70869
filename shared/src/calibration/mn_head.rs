//! Multinomial (MN) judge, seed 000 §4.2: a categorical score (a Likert point) from the
//! rationale embedding and the base judge's probability p_s of each score s,
//!
//! ```text
//! π(s | e, p; Θ) = exp[(φ(e) ⊕ log p_s)ᵀθ_s + c_s] / Σ_{s'} exp[(φ(e) ⊕ log p_{s'})ᵀθ_{s'} + c_{s'}]
//!                                                                          (Eq. 2)
//! L(Θ) = −Σ_t log π(s_t | e_t, p_t; Θ) + γ Σ_s ‖θ_s‖²                      c_s unpenalised
//! ```
//!
//! with φ(e) standardised and p clamped and renormalised (`features`). At θ_s = 0_d ⊕ 1,
//! c_s = 0 for every s, π(s) = p_s: the base judge. The log-probability feature is specific to
//! its class, so this is not a plain multinomial regression on shared features; with a uniform
//! p it is one (θ_s's base weight is then 0 at the optimum, its constant absorbed by c_s).
//!
//! Solved by L-BFGS from the base judge (`glm`), the embedding reduced to its row space when d
//! exceeds the number of rows. The softmax ignores a common shift of the c_s, and the gradient
//! in that direction is 0, so the fit reports intercepts centred to Σ_s c_s = 0.
//!
//! Arguments: [`MnData`] (the class set, embeddings, p per class, human classes) and
//! [`MnParams`]. Returns: [`MnHead`]; predictions as [`MnPrediction`]. Errors:
//! [`Error::InvalidParam`] for invalid settings or fewer than two distinct classes;
//! [`Error::Insufficient`] for no rows or a class without a labelled row; located [`Error::Input`] for ragged or non-finite
//! embeddings, probability rows of the wrong length or outside [0, 1], a label outside the class
//! set and lists of different lengths.

use crate::calibration::features::{
    self, check_probability_floor, BaseSignal, Dim, FeatureSpec, Scaler,
};
use crate::calibration::glm::{
    self, check_gamma, log_sum_exp, Block, FitReport, Loss, SolverParams,
};
use crate::calibration::head::{pick, Fnv1a, HeadParams, Rows};
use crate::calibration::ls_head::{check_finite, check_weights};
use crate::io::error::{Error, Location, Result};
use ndarray::{Array2, ArrayView1};
use serde::{Deserialize, Serialize};

/// Training rows of an MN head.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MnData {
    /// The class set 𝒮 (e.g. Likert points 1…5); its order is the order of `probabilities`.
    pub classes: Vec<i64>,
    /// Rationale embeddings φ(e).
    pub embeddings: Vec<Vec<f64>>,
    /// The base judge's probability of each class, one row per embedding.
    pub probabilities: Vec<Vec<f64>>,
    /// Human classes, each in `classes`.
    pub labels: Vec<i64>,
}

impl Rows for MnData {
    /// Number of rows.
    fn len(&self) -> usize {
        self.embeddings.len()
    }

    /// The rows at `idx`, in that order (the class set whole).
    fn select(&self, idx: &[usize]) -> Self {
        Self {
            classes: self.classes.clone(),
            embeddings: pick(&self.embeddings, idx),
            probabilities: pick(&self.probabilities, idx),
            labels: pick(&self.labels, idx),
        }
    }

    fn write_canonical(&self, h: &mut Fnv1a) {
        h.write_str("mn");
        h.write_i64s(&self.classes);
        h.write_rows(&self.embeddings);
        h.write_rows(&self.probabilities);
        h.write_i64s(&self.labels);
    }

    /// The human class of each row (its index in `classes`; one past the last for a label
    /// outside them), so that every class with two or more rows is in every training set.
    fn strata(&self) -> Option<Vec<usize>> {
        let k = self.classes.len();
        Some(
            self.labels
                .iter()
                .map(|label| self.classes.iter().position(|c| c == label).unwrap_or(k))
                .collect(),
        )
    }
}

/// Settings of an MN head.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MnParams {
    /// L2 penalty γ > 0 (set by cross-validation in practice).
    pub gamma: f64,
    /// Standardise embeddings on the training rows.
    pub standardize: bool,
    /// Base probabilities are clamped below at this floor and renormalised before the log.
    pub probability_floor: f64,
    pub solver: SolverParams,
}

impl Default for MnParams {
    fn default() -> Self {
        Self {
            gamma: 1.0,
            standardize: true,
            probability_floor: features::DEFAULT_PROBABILITY_FLOOR,
            solver: SolverParams::default(),
        }
    }
}

/// A fitted MN head.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MnHead {
    pub spec: FeatureSpec,
    pub scaler: Scaler,
    pub classes: Vec<i64>,
    /// θ_s on the standardised embedding: one row of d values per class.
    pub weights: Vec<Vec<f64>>,
    /// θ_s on log p_s, one per class.
    pub base_weights: Vec<f64>,
    /// c_s, one per class, summing to 0.
    pub intercepts: Vec<f64>,
    pub gamma: f64,
    pub report: FitReport,
}

/// Predicted class probabilities and the most probable class of each row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MnPrediction {
    /// π(s | e, p), one row per input, columns in the head's class order.
    pub probabilities: Vec<Vec<f64>>,
    /// The most probable class (the first in class order on a tie).
    pub labels: Vec<i64>,
}

impl HeadParams for MnParams {
    type Data = MnData;
    type Fitted = MnHead;

    fn gamma(&self) -> f64 {
        self.gamma
    }

    fn validate(&self) -> Result<()> {
        check_gamma(self.gamma)?;
        check_probability_floor(self.probability_floor)?;
        self.solver.validate()
    }

    /// Fits the head at every γ in `gammas` (in that order), warm-starting down the grid.
    fn fit_path(&self, data: &MnData, gammas: &[f64]) -> Result<Vec<MnHead>> {
        self.validate()?;
        for &gamma in gammas {
            check_gamma(gamma)?;
        }
        check_classes(&data.classes)?;
        let n = data.len();
        if n == 0 {
            return Err(Error::Insufficient(
                "the MN head needs at least one labelled row, found none".into(),
            ));
        }
        let mut z = features::embedding_matrix("embeddings", &data.embeddings, Dim::FirstRow)?;
        features::check_length("probabilities", data.probabilities.len(), n)?;
        features::check_length("labels", data.labels.len(), n)?;
        let k = data.classes.len();
        let log_p = features::log_probabilities(
            "probabilities",
            &data.probabilities,
            k,
            self.probability_floor,
        )?;
        let y = class_indices(&data.classes, &data.labels)?;
        if let Some(s) = (0..k).find(|s| !y.contains(s)) {
            return Err(Error::Insufficient(format!(
                "class {} has no labelled row, so its bias c_s cannot be estimated (its \
                 likelihood keeps growing as c_s → −∞); label rows of that class or drop it from \
                 the class set",
                data.classes[s]
            )));
        }
        let scaler = Scaler::fit(&z, self.standardize);
        scaler.apply(&mut z);
        let d = z.ncols();
        let block = Block::new(z);
        let x = block.design();
        let q = x.ncols();
        let loss = SoftmaxLoss {
            x,
            log_p: &log_p,
            y: &y,
        };
        let mut identity = vec![0.0; k * (q + 2)];
        for s in 0..k {
            identity[s * (q + 2) + q] = 1.0;
        }
        let spec = FeatureSpec {
            embedding_dim: d,
            standardize: self.standardize,
            base: BaseSignal::LogProbability,
            probability_floor: self.probability_floor,
        };
        Ok(
            glm::solve_path(&loss, identity, gammas, &self.solver, block.is_reduced())
                .into_iter()
                .zip(gammas)
                .map(|(solution, &gamma)| {
                    let mut weights = Vec::with_capacity(k);
                    let mut base_weights = Vec::with_capacity(k);
                    let mut intercepts = Vec::with_capacity(k);
                    for class in solution.w.chunks(q + 2) {
                        let (theta, shift) = block.weights(&class[..q]);
                        weights.push(theta);
                        base_weights.push(class[q]);
                        intercepts.push(class[q + 1] + shift);
                    }
                    let mean = intercepts.iter().sum::<f64>() / k as f64;
                    intercepts.iter_mut().for_each(|c| *c -= mean);
                    MnHead {
                        spec: spec.clone(),
                        scaler: scaler.clone(),
                        classes: data.classes.clone(),
                        weights,
                        base_weights,
                        intercepts,
                        gamma,
                        report: solution.report,
                    }
                })
                .collect(),
        )
    }

    fn validation_loss(fitted: &MnHead, data: &MnData) -> Result<f64> {
        fitted.log_loss(data)
    }
}

impl MnHead {
    /// Class probabilities π(s | e, p) and the most probable class for new rows.
    ///
    /// # Errors
    /// Located [`Error::Input`] for an embedding whose dimension differs from the training
    /// embeddings', a probability row of the wrong length or outside [0, 1], or lists of
    /// different lengths.
    pub fn predict(
        &self,
        embeddings: &[Vec<f64>],
        probabilities: &[Vec<f64>],
    ) -> Result<MnPrediction> {
        let scores = self.linear_scores(embeddings, probabilities)?;
        let mut out = MnPrediction {
            probabilities: Vec::with_capacity(scores.nrows()),
            labels: Vec::with_capacity(scores.nrows()),
        };
        for u in scores.rows() {
            let u = u.to_vec();
            let lse = log_sum_exp(&u);
            let pi: Vec<f64> = u.iter().map(|v| (v - lse).exp()).collect();
            let best = (0..pi.len()).fold(0, |b, s| if pi[s] > pi[b] { s } else { b });
            out.labels.push(self.classes[best]);
            out.probabilities.push(pi);
        }
        Ok(out)
    }

    /// Mean cross-entropy −log π(s_t) on labelled rows (the CV validation loss).
    pub fn log_loss(&self, data: &MnData) -> Result<f64> {
        features::check_length("labels", data.labels.len(), data.len())?;
        let y = class_indices(&self.classes, &data.labels)?;
        let scores = self.linear_scores(&data.embeddings, &data.probabilities)?;
        let total: f64 = scores
            .rows()
            .into_iter()
            .zip(&y)
            .map(|(u, &s)| log_sum_exp(&u.to_vec()) - u[s])
            .sum();
        Ok(total / y.len().max(1) as f64)
    }

    /// (φ(e) ⊕ log p_s)ᵀθ_s + c_s, one row per input, one column per class.
    fn linear_scores(
        &self,
        embeddings: &[Vec<f64>],
        probabilities: &[Vec<f64>],
    ) -> Result<Array2<f64>> {
        let mut z = features::embedding_matrix(
            "embeddings",
            embeddings,
            Dim::Training(self.spec.embedding_dim),
        )?;
        features::check_length("probabilities", probabilities.len(), embeddings.len())?;
        let k = self.classes.len();
        let log_p = features::log_probabilities(
            "probabilities",
            probabilities,
            k,
            self.spec.probability_floor,
        )?;
        self.scaler.apply(&mut z);
        let mut u = log_p;
        for (s, mut column) in u.columns_mut().into_iter().enumerate() {
            let theta = ArrayView1::from(&self.weights[s]);
            for (v, row) in column.iter_mut().zip(z.rows()) {
                *v = row.dot(&theta) + self.base_weights[s] * *v + self.intercepts[s];
            }
        }
        Ok(u)
    }

    /// Checks the shapes and values of a head read from a file.
    pub fn validate(&self) -> Result<()> {
        self.spec.validate()?;
        check_classes(&self.classes)?;
        self.scaler.validate(self.spec.embedding_dim)?;
        let k = self.classes.len();
        if self.weights.len() != k || self.base_weights.len() != k || self.intercepts.len() != k {
            return Err(Error::param(
                "weights",
                format!(
                    "expected weights, base weights and intercepts for {k} classes, found {}, \
                     {} and {}",
                    self.weights.len(),
                    self.base_weights.len(),
                    self.intercepts.len()
                ),
            ));
        }
        for w in &self.weights {
            check_weights(w, self.spec.embedding_dim)?;
        }
        check_finite("base_weights", &self.base_weights)?;
        check_finite("intercepts", &self.intercepts)?;
        check_gamma(self.gamma)
    }
}

fn check_classes(classes: &[i64]) -> Result<()> {
    let mut sorted = classes.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    if classes.len() < 2 || sorted.len() != classes.len() {
        return Err(Error::param(
            "classes",
            format!("expected at least two distinct classes, found {classes:?}"),
        ));
    }
    Ok(())
}

/// The position of each label in `classes`.
fn class_indices(classes: &[i64], labels: &[i64]) -> Result<Vec<usize>> {
    labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            classes.iter().position(|c| c == label).ok_or_else(|| {
                Error::input(
                    Location::line("labels", i as u64 + 1),
                    format!("expected one of the classes {classes:?}, found {label}"),
                )
            })
        })
        .collect()
}

/// −Σ_t log softmax(u_t)[y_t] with u_ts = xᵀθ_s + θ_s^b log p_ts + c_s, over w = the classes'
/// blocks θ_s ⊕ θ_s^b ⊕ c_s.
struct SoftmaxLoss<'a> {
    x: &'a Array2<f64>,
    log_p: &'a Array2<f64>,
    y: &'a [usize],
}

impl Loss for SoftmaxLoss<'_> {
    fn units(&self) -> usize {
        self.y.len()
    }

    fn is_penalised(&self, j: usize) -> bool {
        let q = self.x.ncols();
        j % (q + 2) != q + 1
    }

    fn value_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let q = self.x.ncols();
        let k = self.log_p.ncols();
        let mut theta = Array2::zeros((k, q));
        for (mut row, class) in theta.rows_mut().into_iter().zip(w.chunks(q + 2)) {
            row.assign(&ArrayView1::from(&class[..q]));
        }
        // U = X Θᵀ + log p ∘ θ_b + c, then R = softmax(U) − onehot(y), row by row.
        let mut u = self.x.dot(&theta.t());
        let mut value = 0.0;
        for ((mut ui, lp), &y) in u.rows_mut().into_iter().zip(self.log_p.rows()).zip(self.y) {
            for ((v, &l), class) in ui.iter_mut().zip(lp).zip(w.chunks(q + 2)) {
                *v += class[q] * l + class[q + 1];
            }
            let lse = log_sum_exp(&ui.to_vec());
            value += lse - ui[y];
            ui.mapv_inplace(|v| (v - lse).exp());
            ui[y] -= 1.0;
        }
        let g_theta = u.t().dot(self.x);
        for (s, g) in grad.chunks_mut(q + 2).enumerate() {
            for (gj, &v) in g[..q].iter_mut().zip(g_theta.row(s)) {
                *gj = v;
            }
            g[q] = u.column(s).dot(&self.log_p.column(s));
            g[q + 1] = u.column(s).sum();
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> MnData {
        MnData {
            classes: vec![1, 2, 3],
            embeddings: vec![
                vec![0.5, 1.0],
                vec![-1.0, 0.2],
                vec![0.3, -0.7],
                vec![1.1, 0.4],
            ],
            probabilities: vec![
                vec![0.7, 0.2, 0.1],
                vec![0.1, 0.8, 0.1],
                vec![0.2, 0.2, 0.6],
                vec![0.3, 0.3, 0.4],
            ],
            labels: vec![1, 2, 3, 1],
        }
    }

    #[test]
    fn identity_objective_is_the_base_judges_cross_entropy() {
        let d = data();
        let gamma = 0.5;
        let head = MnParams {
            gamma,
            ..Default::default()
        }
        .fit(&d)
        .unwrap();
        // −Σ log p_{s_t} + γ · (one unit base weight per class).
        let want = -(0.7f64.ln() + 0.8f64.ln() + 0.6f64.ln() + 0.3f64.ln()) + gamma * 3.0;
        assert!((head.report.identity_objective - want).abs() < 1e-12);
        assert!(head.report.objective <= head.report.identity_objective);
        assert!(head.report.converged);
        assert!(head.intercepts.iter().sum::<f64>().abs() < 1e-12);
        let p = head.predict(&d.embeddings, &d.probabilities).unwrap();
        for row in &p.probabilities {
            assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn labels_outside_the_class_set_are_located() {
        let mut d = data();
        d.labels[2] = 7;
        let err = MnParams::default().fit(&d).unwrap_err();
        assert_eq!(
            err.to_string(),
            "labels, line 3: expected one of the classes [1, 2, 3], found 7"
        );
        d.classes = vec![1, 1];
        assert!(matches!(
            MnParams::default().fit(&d),
            Err(Error::InvalidParam {
                name: "classes",
                ..
            })
        ));
    }
}
