//! Least-squares (LS) judge, seed 000 §4.1: predicts a human score from the rationale embedding
//! and the base judge's score b,
//!
//! ```text
//! f(e, b; θ) = (φ(e) ⊕ b)ᵀθ + c                                    (Eq. 1)
//! L(θ, c)    = Σ_t (f(e_t, b_t; θ) − s_t)² + γ‖θ‖²                 c unpenalised
//! ```
//!
//! with φ(e) standardised (`features`). At θ = 0_d ⊕ 1, c = 0 the head returns b: the base judge.
//!
//! Exact solve. With X = [Z | b] centred to X_c, and y_c the centred human scores,
//! θ = (X_cᵀX_c + γI)⁻¹X_cᵀy_c, or, when d + 1 > n, the dual (kernel) form
//! θ = X_cᵀ(X_cX_cᵀ + γI)⁻¹y_c; then c = ȳ − x̄ᵀθ. The m × m Gram A (m = min(n, d + 1)) is
//! reduced once by Householder reflections to A = Q T Qᵀ with T tridiagonal (Golub & Van Loan,
//! *Matrix Computations*, §8.3.1), so each γ of a grid costs O(m²):
//! (A + γI)⁻¹r = Q (T + γI)⁻¹ Qᵀr, where T + γI is symmetric positive definite and tridiagonal
//! and is solved by elimination without pivoting. This is what makes a cross-validation grid
//! cheap: one O(m³) reduction per training set, not one per γ. A fit at a single γ (the refit
//! at the chosen γ) factors A + γI by Cholesky instead, a quarter of the reduction's work.
//!
//! Arguments: [`LsData`] (embeddings, base scores b, human scores s) and [`LsParams`] (γ,
//! standardisation). Returns: [`LsHead`] with the feature spec, scaler, θ = weights ⊕
//! base_weight, c, γ and a [`FitReport`]. Errors: [`Error::InvalidParam`] for γ ≤ 0;
//! [`Error::Insufficient`] for no rows; located [`Error::Input`] for ragged or non-finite
//! embeddings, non-finite scores and lists of different lengths.

use crate::calibration::features::{
    self, BaseSignal, Dim, FeatureSpec, Scaler, DEFAULT_PROBABILITY_FLOOR,
};
use crate::calibration::glm::{
    self, check_gamma, dot, outer_gram, transpose_times, FitReport, Loss,
};
use crate::calibration::head::{fold_units, pick, refit_each_fold, Fnv1a, HeadParams, Rows};
use crate::io::error::{Error, Result};
use crate::math::linalg::cholesky_solve;
use crate::math::parallel_rounds::map_rounds;
use ndarray::{s, Array1, Array2, ArrayView1, Axis};
use serde::{Deserialize, Serialize};

/// Training rows of an LS head.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LsData {
    /// Rationale embeddings φ(e), one per row.
    pub embeddings: Vec<Vec<f64>>,
    /// Base judge's scores b.
    pub scores: Vec<f64>,
    /// Human scores s.
    pub labels: Vec<f64>,
}

impl Rows for LsData {
    /// Number of rows.
    fn len(&self) -> usize {
        self.embeddings.len()
    }

    /// The rows at `idx`, in that order.
    fn select(&self, idx: &[usize]) -> Self {
        Self {
            embeddings: pick(&self.embeddings, idx),
            scores: pick(&self.scores, idx),
            labels: pick(&self.labels, idx),
        }
    }

    fn write_canonical(&self, h: &mut Fnv1a) {
        h.write_str("ls");
        h.write_rows(&self.embeddings);
        h.write_f64s(&self.scores);
        h.write_f64s(&self.labels);
    }
}

/// Settings of an LS head.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LsParams {
    /// Ridge penalty γ > 0 (set by cross-validation in practice).
    pub gamma: f64,
    /// Standardise embeddings on the training rows.
    pub standardize: bool,
}

impl Default for LsParams {
    fn default() -> Self {
        Self {
            gamma: 1.0,
            standardize: true,
        }
    }
}

/// A fitted LS head.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LsHead {
    pub spec: FeatureSpec,
    pub scaler: Scaler,
    /// θ on the standardised embedding, d values.
    pub weights: Vec<f64>,
    /// θ on the base score.
    pub base_weight: f64,
    /// c.
    pub intercept: f64,
    pub gamma: f64,
    pub report: FitReport,
}

impl HeadParams for LsParams {
    type Data = LsData;
    type Fitted = LsHead;

    fn gamma(&self) -> f64 {
        self.gamma
    }

    fn validate(&self) -> Result<()> {
        check_gamma(self.gamma)
    }

    /// Fits the head at every γ in `gammas` (in that order) from one reduction of the Gram.
    fn fit_path(&self, data: &LsData, gammas: &[f64]) -> Result<Vec<LsHead>> {
        for &gamma in gammas {
            check_gamma(gamma)?;
        }
        let training = Training::new(data, self.standardize)?;
        let gram = training.gram();
        Ok(training.path(gram, gammas))
    }

    /// In WASM the folds' paths come from one Gram of every row ([`losses_from_fold_grams`]):
    /// a fold's training Gram is that Gram less its own rows', so the folds asked cost one Gram
    /// of the data and one of each held-out fold, not one of each training set. There the Gram is the larger part of a fold
    /// (about half of the Calibrate page's LS time at d = 384). Natively a training set's Gram
    /// by matrixmultiply's kernel for the CPU is a small part, and sharing it cost more in
    /// larger allocations than it saved (BENCHMARKS.md), so each fold is refitted.
    fn held_out_losses(
        &self,
        data: &LsData,
        assignment: &[usize],
        folds: &[usize],
        gammas: &[f64],
    ) -> Result<Vec<Vec<f64>>> {
        if cfg!(target_arch = "wasm32") {
            losses_from_fold_grams(self, data, assignment, folds, gammas)
        } else {
            refit_each_fold(self, data, assignment, folds, gammas)
        }
    }

    fn validation_loss(fitted: &LsHead, data: &LsData) -> Result<f64> {
        fitted.mean_squared_error(data)
    }
}

impl LsHead {
    /// Predicted human scores f(e, b; θ) for new rows.
    ///
    /// # Errors
    /// Located [`Error::Input`] for an embedding whose dimension differs from the training
    /// embeddings', non-finite values, or lists of different lengths.
    pub fn predict(&self, embeddings: &[Vec<f64>], scores: &[f64]) -> Result<Vec<f64>> {
        let d = self.spec.embedding_dim;
        let mut z = features::embedding_matrix("embeddings", embeddings, Dim::Training(d))?;
        features::check_length("scores", scores.len(), embeddings.len())?;
        let b = features::scores("scores", scores)?;
        self.scaler.apply(&mut z);
        let theta = ArrayView1::from(&self.weights);
        Ok(z.rows()
            .into_iter()
            .zip(&b)
            .map(|(row, &bi)| row.dot(&theta) + self.base_weight * bi + self.intercept)
            .collect())
    }

    /// Mean squared error of the predictions on labelled rows (the CV validation loss).
    pub fn mean_squared_error(&self, data: &LsData) -> Result<f64> {
        features::check_length("labels", data.labels.len(), data.len())?;
        let predicted = self.predict(&data.embeddings, &data.scores)?;
        let n = predicted.len().max(1) as f64;
        Ok(predicted
            .iter()
            .zip(&data.labels)
            .map(|(f, s)| (f - s).powi(2))
            .sum::<f64>()
            / n)
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

/// Checks a weight vector's length and values.
pub(crate) fn check_weights(weights: &[f64], dim: usize) -> Result<()> {
    if weights.len() != dim {
        return Err(Error::param(
            "weights",
            format!(
                "expected {dim} weights like the embedding dimension, found {}",
                weights.len()
            ),
        ));
    }
    check_finite("weights", weights)
}

pub(crate) fn check_finite(name: &'static str, values: &[f64]) -> Result<()> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Error::param(name, "every value must be a finite number"))
    }
}

/// [`HeadParams::held_out_losses`] from one Gram of every row ([`FoldGrams`]); a
/// design with more columns than a fold's training rows is fitted in its dual form, whose
/// kernel depends on the fold's own standardisation, and is refitted fold by fold.
fn losses_from_fold_grams(
    params: &LsParams,
    data: &LsData,
    assignment: &[usize],
    folds: &[usize],
    gammas: &[f64],
) -> Result<Vec<Vec<f64>>> {
    for &gamma in gammas {
        check_gamma(gamma)?;
    }
    let columns = data.embeddings.first().map_or(0, Vec::len) + 1;
    let fewest_training = folds
        .iter()
        .map(|&f| assignment.iter().filter(|&&a| a != f).count())
        .min();
    if fewest_training.is_none_or(|n| n < columns) {
        return refit_each_fold(params, data, assignment, folds, gammas);
    }
    let grams = FoldGrams::new(data, assignment)?;
    map_rounds(
        folds.len(),
        || (),
        |(), r| {
            let (train, test) = fold_units(assignment, folds[r]);
            let training = Training::new(&data.select(&train), params.standardize)?;
            let gram = grams.training_gram(&train, &test, &training.scaler);
            let held_out = data.select(&test);
            training
                .path(gram, gammas)
                .iter()
                .map(|head| head.mean_squared_error(&held_out))
                .collect()
        },
    )
    .into_iter()
    .collect()
}

/// A training set made ready for the exact solve: the design X = [Z | b] (Z standardised on
/// these rows), its column means and centred copy X_c, and the centred human scores y_c.
struct Training {
    x: Array2<f64>,
    y: Vec<f64>,
    mean: Array1<f64>,
    y_mean: f64,
    xc: Array2<f64>,
    yc: Array1<f64>,
    scaler: Scaler,
    standardize: bool,
}

impl Training {
    fn new(data: &LsData, standardize: bool) -> Result<Self> {
        let n = data.len();
        if n == 0 {
            return Err(Error::Insufficient(
                "the LS head needs at least one labelled row, found none".into(),
            ));
        }
        let mut z = features::embedding_matrix("embeddings", &data.embeddings, Dim::FirstRow)?;
        features::check_length("scores", data.scores.len(), n)?;
        features::check_length("labels", data.labels.len(), n)?;
        let b = features::scores("scores", &data.scores)?;
        let y = features::scores("labels", &data.labels)?;
        let scaler = Scaler::fit(&z, standardize);
        scaler.apply(&mut z);
        let x = design(&z, &b);
        let mean = x
            .mean_axis(Axis(0))
            .unwrap_or_else(|| Array1::zeros(x.ncols()));
        let y_mean = y.iter().sum::<f64>() / n as f64;
        let xc = &x - &mean;
        let yc = y.iter().map(|v| v - y_mean).collect();
        Ok(Self {
            x,
            y,
            mean,
            y_mean,
            xc,
            yc,
            scaler,
            standardize,
        })
    }

    /// The dual (kernel) form, when the design has more columns than rows.
    fn dual(&self) -> bool {
        self.x.ncols() > self.x.nrows()
    }

    /// The Gram the solve reduces: X_cᵀX_c, or X_cX_cᵀ in the dual form.
    fn gram(&self) -> Array2<f64> {
        if self.dual() {
            outer_gram(&self.xc)
        } else {
            outer_gram(&self.xc.t())
        }
    }

    /// The heads at every γ of `gammas`, in that order, from `gram` (= [`Training::gram`]).
    fn path(&self, gram: Array2<f64>, gammas: &[f64]) -> Vec<LsHead> {
        let dual = self.dual();
        let rhs = if dual {
            self.yc.clone()
        } else {
            transpose_times(&self.xc, &self.yc.to_vec())
        };
        let solver = GramSolver::new(gram, gammas.len());
        let rotated = solver.prepare(rhs);
        let p = self.x.ncols();
        let d = p - 1;
        let loss = SquaredLoss {
            x: &self.x,
            y: &self.y,
        };
        let mut identity = vec![0.0; p + 1];
        identity[d] = 1.0;
        let identity = glm::Identity::new(&loss, identity);
        let spec = FeatureSpec {
            embedding_dim: d,
            standardize: self.standardize,
            base: BaseSignal::Score,
            probability_floor: DEFAULT_PROBABILITY_FLOOR,
        };
        gammas
            .iter()
            .map(|&gamma| {
                let solved = solver.solve(gamma, &rotated);
                let theta = if dual {
                    transpose_times(&self.xc, &solved)
                } else {
                    Array1::from(solved)
                };
                let mut w = theta.to_vec();
                w.push(self.y_mean - self.mean.dot(&theta));
                let solution = glm::closed_form(&loss, gamma, w, &identity, dual);
                LsHead {
                    spec: spec.clone(),
                    scaler: self.scaler.clone(),
                    weights: solution.w[..d].to_vec(),
                    base_weight: solution.w[d],
                    intercept: solution.w[p],
                    gamma,
                    report: solution.report,
                }
            })
            .collect()
    }
}

/// Every row's raw [E | b] centred on the mean of all rows, one coordinate per row (so that
/// a Gram entry is the dot of two contiguous rows), and their Gram G = Σ_t r_t r_tᵀ summed
/// fold by fold in fold order: the same G whichever folds are asked, so that a fold's
/// training Gram, G less its own rows', does not depend on them.
struct FoldGrams {
    /// (d + 1) × n.
    coordinates: Array2<f64>,
    all: Array2<f64>,
}

impl FoldGrams {
    fn new(data: &LsData, assignment: &[usize]) -> Result<Self> {
        let e = features::embedding_matrix("embeddings", &data.embeddings, Dim::FirstRow)?;
        features::check_length("scores", data.scores.len(), data.len())?;
        let b = features::scores("scores", &data.scores)?;
        let x = design(&e, &b);
        let mean = x
            .mean_axis(Axis(0))
            .unwrap_or_else(|| Array1::zeros(x.ncols()));
        let coordinates = (&x - &mean)
            .reversed_axes()
            .as_standard_layout()
            .into_owned();
        let p = coordinates.nrows();
        let folds = assignment.iter().max().map_or(0, |&f| f + 1);
        let mut all = Array2::zeros((p, p));
        for f in 0..folds {
            all += &gram_of(&coordinates, &fold_units(assignment, f).1);
        }
        Ok(Self { coordinates, all })
    }

    /// The Gram X_cᵀX_c of the training rows `train` of a fold (`test`: its own rows),
    /// embeddings standardised by `scaler`: with r_t the centred rows and δ the training rows'
    /// mean of them, Σ_train (r_t − δ)(r_t − δ)ᵀ = G − Σ_test r_t r_tᵀ − n δδᵀ, each embedding
    /// coordinate i then divided by its training standard deviation s_i.
    fn training_gram(&self, train: &[usize], test: &[usize], scaler: &Scaler) -> Array2<f64> {
        let mut gram = &self.all - &gram_of(&self.coordinates, test);
        let n = train.len() as f64;
        let delta: Vec<f64> = self
            .coordinates
            .rows()
            .into_iter()
            .map(|c| train.iter().map(|&t| c[t]).sum::<f64>() / n)
            .collect();
        let scale: Vec<f64> = scaler.scale.iter().copied().chain([1.0]).collect();
        for ((i, j), g) in gram.indexed_iter_mut() {
            *g = (*g - n * delta[i] * delta[j]) / (scale[i] * scale[j]);
        }
        gram
    }
}

/// Σ r_t r_tᵀ over the rows `rows` (columns of `coordinates`).
fn gram_of(coordinates: &Array2<f64>, rows: &[usize]) -> Array2<f64> {
    outer_gram(&coordinates.select(Axis(1), rows))
}

/// [Z | b], n × (d + 1).
pub(crate) fn design(z: &Array2<f64>, base: &[f64]) -> Array2<f64> {
    let (n, d) = z.dim();
    let mut x = Array2::zeros((n, d + 1));
    x.slice_mut(s![.., ..d]).assign(z);
    x.column_mut(d).assign(&ArrayView1::from(base));
    x
}

/// Σ_t (xᵀθ + c − y_t)² over w = θ ⊕ c.
struct SquaredLoss<'a> {
    x: &'a Array2<f64>,
    y: &'a [f64],
}

impl Loss for SquaredLoss<'_> {
    fn units(&self) -> usize {
        self.y.len()
    }

    fn is_penalised(&self, j: usize) -> bool {
        j < self.x.ncols()
    }

    fn value_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let p = self.x.ncols();
        grad.fill(0.0);
        let (head, tail) = grad.split_at_mut(p);
        let mut value = 0.0;
        let mut g_intercept = 0.0;
        glm::score_and_gradient(self.x, &w[..p], head, |t, u| {
            let r = u + w[p] - self.y[t];
            value += r * r;
            g_intercept += 2.0 * r;
            2.0 * r
        });
        tail[0] = g_intercept;
        value
    }
}

/// Solves (A + γI) x = r for the γ of a path: by one Cholesky factorisation when the path has
/// a single γ (m³/3 flops; the refit at the chosen γ), otherwise from one tridiagonal reduction
/// (4m³/3 flops once, then O(m²) per γ).
enum GramSolver {
    Single(Array2<f64>),
    Path(Tridiagonal),
}

impl GramSolver {
    fn new(gram: Array2<f64>, gammas: usize) -> Self {
        if gammas == 1 {
            Self::Single(gram)
        } else {
            Self::Path(Tridiagonal::new(&gram))
        }
    }

    /// What [`GramSolver::solve`] takes for `r`.
    fn prepare(&self, r: Array1<f64>) -> Vec<f64> {
        match self {
            Self::Single(_) => r.to_vec(),
            Self::Path(t) => t.apply_qt(r.to_vec()),
        }
    }

    fn solve(&self, gamma: f64, prepared: &[f64]) -> Vec<f64> {
        match self {
            Self::Single(gram) => {
                let shifted = gram + &(Array2::<f64>::eye(gram.nrows()) * gamma);
                let r = Array1::from(prepared.to_vec());
                match cholesky_solve(&shifted, &r) {
                    Some(x) => x.to_vec(),
                    // A + γI is positive definite, but rounding can hide it when γ is tiny
                    // against A's scale; the tridiagonal solve does not need it.
                    None => {
                        let t = Tridiagonal::new(gram);
                        t.apply_q(t.solve(gamma, &t.apply_qt(r.to_vec())))
                    }
                }
            }
            Self::Path(t) => t.apply_q(t.solve(gamma, prepared)),
        }
    }
}

/// A = Q T Qᵀ for a symmetric A: T tridiagonal (`diag`, `off`), Q = H₀ ⋯ H_{m−3} with
/// H_k = I − β_k v_k v_kᵀ acting on coordinates k + 1 … m − 1. Only A's lower triangle is read
/// and updated.
struct Tridiagonal {
    diag: Vec<f64>,
    off: Vec<f64>,
    reflectors: Vec<(Vec<f64>, f64)>,
}

impl Tridiagonal {
    fn new(a: &Array2<f64>) -> Self {
        let m = a.nrows();
        let mut s: Vec<f64> = a.iter().copied().collect();
        let mut off = vec![0.0; m.saturating_sub(1)];
        let mut reflectors = Vec::with_capacity(m.saturating_sub(2));
        // Step k's rank-2 update S ← S − v wᵀ − w vᵀ (rows and columns ≥ k + 1) is applied
        // lazily, in the same pass over the block that forms step k + 1's product, so each step
        // reads the lower triangle once.
        let mut pending: Option<(Vec<f64>, Vec<f64>)> = None;
        for k in 0..m.saturating_sub(2) {
            let lo = k + 1;
            if let Some((v, w)) = &pending {
                for i in k..m {
                    s[i * m + k] -= v[i - k] * w[0] + w[i - k] * v[0];
                }
            }
            let x: Vec<f64> = (lo..m).map(|i| s[i * m + k]).collect();
            let norm = dot(&x, &x).sqrt();
            let alpha = if x[0] > 0.0 { -norm } else { norm };
            let mut v = x;
            v[0] -= alpha;
            let vv = dot(&v, &v);
            let beta = if vv > 0.0 { 2.0 / vv } else { 0.0 };
            // p = β S v on the lower triangle, by rows: each row gives its dot with v and,
            // through symmetry, its part of the earlier entries.
            let mut p = vec![0.0; m - lo];
            for (ii, i) in (lo..m).enumerate() {
                let row = &mut s[i * m + lo..=i * m + i];
                if let Some((pv, pw)) = &pending {
                    let (vi, wi) = (pv[ii + 1], pw[ii + 1]);
                    for ((sij, &vj), &wj) in row.iter_mut().zip(&pv[1..]).zip(&pw[1..]) {
                        *sij -= vi * wj + wi * vj;
                    }
                }
                let diagonal_and_left = dot(row, &v[..=ii]);
                for (pj, &sij) in p[..ii].iter_mut().zip(row.iter()) {
                    *pj += sij * v[ii];
                }
                p[ii] += diagonal_and_left;
            }
            p.iter_mut().for_each(|pi| *pi *= beta);
            // w = p − (β/2)(pᵀv) v.
            let half = 0.5 * beta * dot(&p, &v);
            let w: Vec<f64> = p.iter().zip(&v).map(|(pi, vi)| pi - half * vi).collect();
            off[k] = if beta > 0.0 { alpha } else { 0.0 };
            pending = Some((v.clone(), w));
            reflectors.push((v, beta));
        }
        if let Some((v, w)) = &pending {
            let start = m - 2;
            for i in start..m {
                for j in start..=i {
                    s[i * m + j] -= v[i - start] * w[j - start] + w[i - start] * v[j - start];
                }
            }
        }
        if m >= 2 {
            off[m - 2] = s[(m - 1) * m + m - 2];
        }
        let diag = (0..m).map(|i| s[i * m + i]).collect();
        Self {
            diag,
            off,
            reflectors,
        }
    }

    fn reflect(&self, k: usize, u: &mut [f64]) {
        let (v, beta) = &self.reflectors[k];
        let tail = &mut u[k + 1..];
        let c = beta * dot(v, tail);
        for (t, vi) in tail.iter_mut().zip(v) {
            *t -= c * vi;
        }
    }

    fn apply_qt(&self, mut u: Vec<f64>) -> Vec<f64> {
        for k in 0..self.reflectors.len() {
            self.reflect(k, &mut u);
        }
        u
    }

    fn apply_q(&self, mut u: Vec<f64>) -> Vec<f64> {
        for k in (0..self.reflectors.len()).rev() {
            self.reflect(k, &mut u);
        }
        u
    }

    /// (T + γI)⁻¹ r by elimination without pivoting (stable: T + γI is positive definite).
    fn solve(&self, gamma: f64, r: &[f64]) -> Vec<f64> {
        let m = r.len();
        let mut upper = vec![0.0; m];
        let mut z = vec![0.0; m];
        for i in 0..m {
            let (sub, prev_upper, prev_z) = if i > 0 {
                (self.off[i - 1], upper[i - 1], z[i - 1])
            } else {
                (0.0, 0.0, 0.0)
            };
            let pivot = self.diag[i] + gamma - sub * prev_upper;
            if i + 1 < m {
                upper[i] = self.off[i] / pivot;
            }
            z[i] = (r[i] - sub * prev_z) / pivot;
        }
        for i in (0..m.saturating_sub(1)).rev() {
            z[i] -= upper[i] * z[i + 1];
        }
        z
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn tridiagonal_ridge_solve_equals_cholesky() {
        let a = array![
            [4.0, 1.0, -2.0, 0.5],
            [1.0, 3.0, 0.0, 1.0],
            [-2.0, 0.0, 5.0, -1.0],
            [0.5, 1.0, -1.0, 2.0]
        ];
        let r = array![1.0, -2.0, 0.5, 3.0];
        let t = Tridiagonal::new(&a);
        let rotated = t.apply_qt(r.to_vec());
        for gamma in [0.1, 1.0, 10.0] {
            let ours = t.apply_q(t.solve(gamma, &rotated));
            let shifted = &a + &(Array2::<f64>::eye(4) * gamma);
            let want = cholesky_solve(&shifted, &r).unwrap();
            for (o, w) in ours.iter().zip(&want) {
                assert!((o - w).abs() < 1e-13, "{ours:?} vs {want}");
            }
        }
    }

    #[test]
    fn tridiagonal_ridge_solve_equals_cholesky_on_a_larger_gram() {
        // A = BᵀB for a deterministic 40 × 30 B, with a zero column (a rank-deficient Gram).
        let b = Array2::from_shape_fn((40, 30), |(i, j)| {
            if j == 7 {
                0.0
            } else {
                ((i * 31 + j * 17) % 23) as f64 / 7.0 - 1.5
            }
        });
        let a = b.t().dot(&b);
        let r = Array1::from_shape_fn(30, |j| (j as f64).sin());
        let t = Tridiagonal::new(&a);
        let rotated = t.apply_qt(r.to_vec());
        for gamma in [0.01, 3.0] {
            let ours = t.apply_q(t.solve(gamma, &rotated));
            let shifted = &a + &(Array2::<f64>::eye(30) * gamma);
            let want = cholesky_solve(&shifted, &r).unwrap();
            let scale = want.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
            for (o, w) in ours.iter().zip(&want) {
                assert!((o - w).abs() < 1e-10 * scale, "γ {gamma}: {o} vs {w}");
            }
        }
    }

    /// Cross-validation from the folds' Grams equals a refit on each fold's training
    /// rows: standardised or not, with a constant coordinate, with coordinates far from zero
    /// (1000 ± 1: what centring on all rows' mean must keep from cancelling), and for any set
    /// of folds asked, each fold's losses the same bits in every set; a design wider than a
    /// fold's training rows is refitted (the dual form).
    #[test]
    fn folds_from_one_gram_equal_a_refit_of_each_fold() {
        let rows = |n: usize, d: usize, offset: f64| LsData {
            embeddings: (0..n)
                .map(|i| {
                    (0..d)
                        .map(|j| match j {
                            1 => 2.5,
                            _ => offset + (((i * 37 + j * 11) % 29) as f64 / 14.0 - 1.0),
                        })
                        .collect()
                })
                .collect(),
            scores: (0..n).map(|i| ((i * 13) % 7) as f64).collect(),
            labels: (0..n)
                .map(|i| ((i * 13) % 7) as f64 * 0.5 + ((i * 5) % 3) as f64)
                .collect(),
        };
        let gammas = [0.01, 0.3, 10.0, 1e4];
        let assignment: Vec<usize> = (0..60).map(|i| (i * 7) % 5).collect();
        for (data, standardize) in [
            (rows(60, 9, 0.0), true),
            (rows(60, 9, 0.0), false),
            (rows(60, 9, 1000.0), true),
            (rows(60, 9, 1000.0), false),
            (rows(60, 50, 0.0), true),
        ] {
            let params = LsParams {
                standardize,
                ..Default::default()
            };
            let every =
                losses_from_fold_grams(&params, &data, &assignment, &[0, 1, 2, 3, 4], &gammas)
                    .unwrap();
            for folds in [vec![0, 1, 2, 3, 4], vec![3, 1], vec![2, 2, 4]] {
                let shared =
                    losses_from_fold_grams(&params, &data, &assignment, &folds, &gammas).unwrap();
                // A fold's losses are the same bits whichever other folds were asked with it.
                for (losses, &f) in shared.iter().zip(&folds) {
                    assert_eq!(losses, &every[f]);
                }
                let refitted =
                    refit_each_fold(&params, &data, &assignment, &folds, &gammas).unwrap();
                assert_eq!(shared.len(), folds.len());
                for (a, b) in shared.iter().flatten().zip(refitted.iter().flatten()) {
                    assert!((a - b).abs() <= 1e-9 * b, "{a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn one_feature_ridge_by_hand() {
        // d = 0: f = θ b + c. b = (0, 1, 2), s = (1, 3, 5): centred Σb² = 2, Σbs = 4, so
        // θ = 4 / (2 + γ) and c = 3 − θ.
        let data = LsData {
            embeddings: vec![vec![]; 3],
            scores: vec![0.0, 1.0, 2.0],
            labels: vec![1.0, 3.0, 5.0],
        };
        let head = LsParams {
            gamma: 2.0,
            ..Default::default()
        }
        .fit(&data)
        .unwrap();
        assert!((head.base_weight - 1.0).abs() < 1e-15);
        assert!((head.intercept - 2.0).abs() < 1e-15);
        // Identity: Σ(b − s)² + γ = 1 + 4 + 9 + 2.
        assert_eq!(head.report.identity_objective, 16.0);
        // Fitted: f = b + 2 = (2, 3, 4), residuals (1, 0, −1), so 2 + γ·1².
        assert!((head.report.objective - 4.0).abs() < 1e-13);
        assert!(head.report.max_abs_gradient < 1e-14);
    }
}
