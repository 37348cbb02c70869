//! The weighted logistic loss that every prediction-powered fit and the self-preference fit
//! minimise: with design rows x_i, weights c_i ≥ 0 and targets b_i,
//!
//! L(θ) = Σ_i c_i log(1 + e^{x_iᵀθ}) − b_i x_iᵀθ,
//!
//! convex (c_i ≥ 0), solved by Newton's method with a backtracking line search. The PPI++ loss
//! of [`super::ppi_logistic`] is the case c = (1 − λ)/n, b = (y − λŷ)/n on labelled rows and
//! c = λ/N, b = λỹ/N on unlabelled ones; the active-labelling loss of
//! [`super::active_inference`] weights each human label by the inverse of the probability it
//! was drawn with. The design is kept as each row's non-zero entries (a Bradley–Terry row has
//! two): the loss, its gradient and Hessian cost O(rows), not O(rows · d²). Rows that repeat
//! (every battle of one pair of models) fold into one with their c and b summed
//! ([`SparseRows::grouped`]): the same loss, at O(distinct rows) per Newton step.
//!
//! Arguments: the rows, `c`, `b` (one per row), the fit's name for messages and a start
//! (`None`: 0). Returns: θ̂. Errors: [`Error::Insufficient`] (saying "not identified") when the loss has no finite minimum (it
//! keeps falling along some direction: a model that never loses or never wins among the rows
//! that carry weight) or its Hessian is singular (a model in no weighted row).

use crate::io::error::{Error, Result};
use crate::math::linalg::cholesky_solve;
use crate::math::logistic::{sigmoid, softplus};
use ndarray::{Array1, Array2};
use std::collections::HashMap;

/// A matrix as the non-zero entries of each row.
#[derive(Debug, Clone)]
pub struct SparseRows(pub Vec<Vec<(usize, f64)>>);

/// A design matrix: its rows' non-zero entries and its number of columns (a Bradley–Terry
/// design row has two entries whatever the number of models).
#[derive(Debug, Clone)]
pub struct Design {
    pub rows: SparseRows,
    pub columns: usize,
}

impl Design {
    /// The non-zero entries of a dense matrix.
    pub fn from_dense(x: &Array2<f64>) -> Self {
        Self {
            rows: SparseRows::new(x),
            columns: x.ncols(),
        }
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows.0.len()
    }

    /// No rows.
    pub fn is_empty(&self) -> bool {
        self.rows.0.is_empty()
    }

    /// Every entry is in a column below `columns`.
    pub fn is_consistent(&self) -> bool {
        self.rows.0.iter().flatten().all(|&(j, _)| j < self.columns)
    }
}

impl SparseRows {
    /// The non-zero entries of each row of `x`.
    pub fn new(x: &Array2<f64>) -> Self {
        Self(
            x.outer_iter()
                .map(|row| {
                    row.iter()
                        .enumerate()
                        .filter(|(_, v)| **v != 0.0)
                        .map(|(j, &v)| (j, v))
                        .collect()
                })
                .collect(),
        )
    }

    /// x_i · θ of each row.
    pub(crate) fn dot(&self, theta: &Array1<f64>) -> Vec<f64> {
        self.0
            .iter()
            .map(|row| row.iter().map(|&(j, v)| v * theta[j]).sum())
            .collect()
    }

    /// Σ_i w_i x_i x_iᵀ (d × d).
    pub(crate) fn gram(&self, w: &[f64], d: usize) -> Array2<f64> {
        let (mut grad, mut gram) = (Array1::zeros(d), Array2::zeros((d, d)));
        self.accumulate(&vec![0.0; w.len()], w, &mut grad, &mut gram);
        gram
    }

    /// Σ_i r_i x_i (d).
    pub(crate) fn weighted_sum(&self, r: &[f64], d: usize) -> Array1<f64> {
        let mut sum = Array1::zeros(d);
        for (row, &ri) in self.0.iter().zip(r) {
            for &(j, v) in row {
                sum[j] += ri * v;
            }
        }
        sum
    }

    /// The rows r_i x_i (n × d): each row's loss gradient when r_i is its residual.
    pub(crate) fn scaled(&self, r: &[f64], d: usize) -> Array2<f64> {
        let mut out = Array2::zeros((self.0.len(), d));
        for (i, (row, &ri)) in self.0.iter().zip(r).enumerate() {
            for &(j, v) in row {
                out[[i, j]] = ri * v;
            }
        }
        out
    }

    /// Adds Σ_i r_i x_i to `grad` and Σ_i w_i x_i x_iᵀ to `hess`.
    fn accumulate(&self, r: &[f64], w: &[f64], grad: &mut Array1<f64>, hess: &mut Array2<f64>) {
        for ((row, &ri), &wi) in self.0.iter().zip(r).zip(w) {
            for &(j, vj) in row {
                grad[j] += ri * vj;
                for &(k, vk) in row {
                    hess[[j, k]] += wi * vj * vk;
                }
            }
        }
    }
}

/// A design's distinct rows ([`RowGroups::of`]).
pub(crate) struct RowGroups {
    pub(crate) rows: SparseRows,
    /// Each original row's index in `rows`.
    pub(crate) of: Vec<usize>,
}

impl RowGroups {
    /// The distinct rows of `rows`, and each row's index among them. A loss
    /// Σ_i c_i softplus(x_iᵀθ) − b_i x_iᵀθ is the same loss over the distinct rows with `c` and
    /// `b` summed within each: a Bradley–Terry design has at most K(K − 1) distinct rows
    /// whatever the number of battles, so a fit on the sums costs O(pairs) per Newton step.
    pub(crate) fn of<'r>(rows: impl Iterator<Item = &'r Vec<(usize, f64)>>) -> Self {
        let mut index: HashMap<Vec<(usize, u64)>, usize> = HashMap::new();
        let mut distinct = Vec::new();
        let mut key = Vec::new();
        let of = rows
            .map(|row| {
                key.clear();
                key.extend(row.iter().map(|&(j, v)| (j, v.to_bits())));
                match index.get(&key) {
                    Some(&k) => k,
                    None => {
                        distinct.push(row.clone());
                        index.insert(key.clone(), distinct.len() - 1);
                        distinct.len() - 1
                    }
                }
            })
            .collect();
        RowGroups {
            rows: SparseRows(distinct),
            of,
        }
    }
}

/// The error of a fit (named as in a message: "the self-preference fit") with no unique
/// minimum, and why.
pub(crate) fn not_identified(fit: &str, detail: &str) -> Error {
    Error::Insufficient(format!(
        "not identified: {fit} has no unique minimum: {detail}"
    ))
}

/// The largest coefficient taken for a finite optimum: odds of e¹⁵ ≈ 3·10⁶ to 1 (2,600 Elo
/// points). A fit that ends beyond it has run off along a direction where the loss keeps
/// falling (the gradient vanishes there only numerically).
const LARGEST_COEFFICIENT: f64 = 15.0;

fn finite_optimum(fit: &str, theta: Array1<f64>) -> Result<Array1<f64>> {
    if theta.iter().all(|v| v.abs() <= LARGEST_COEFFICIENT) {
        Ok(theta)
    } else {
        Err(not_identified(
            fit,
            "the loss keeps falling as a coefficient grows",
        ))
    }
}

/// The loss Σ c_i softplus(x_iᵀθ) − b_i x_iᵀθ over `rows`.
pub(crate) struct WeightedLogistic<'a> {
    pub rows: &'a SparseRows,
    pub c: Vec<f64>,
    pub b: Vec<f64>,
    pub d: usize,
    /// The fit as messages name it.
    pub fit: &'a str,
}

impl WeightedLogistic<'_> {
    fn value(&self, theta: &Array1<f64>) -> f64 {
        self.rows
            .dot(theta)
            .into_iter()
            .enumerate()
            .filter(|&(i, _)| self.c[i] != 0.0 || self.b[i] != 0.0)
            .map(|(i, e)| self.c[i] * softplus(e) - self.b[i] * e)
            .sum()
    }

    fn derivatives(&self, theta: &Array1<f64>) -> (Array1<f64>, Array2<f64>) {
        let (resid, curv): (Vec<f64>, Vec<f64>) = self
            .rows
            .dot(theta)
            .into_iter()
            .enumerate()
            .map(|(i, e)| {
                let s = sigmoid(e);
                (self.c[i] * s - self.b[i], self.c[i] * s * (1.0 - s))
            })
            .unzip();
        let (mut grad, mut hess) = (Array1::zeros(self.d), Array2::zeros((self.d, self.d)));
        self.rows.accumulate(&resid, &curv, &mut grad, &mut hess);
        (grad, hess)
    }

    /// θ̂ by Newton's method with backtracking, from `start` (`None`: 0).
    ///
    /// # Errors
    /// See the module documentation.
    pub fn solve(&self, start: Option<&Array1<f64>>) -> Result<Array1<f64>> {
        let mut theta = start.cloned().unwrap_or_else(|| Array1::zeros(self.d));
        for _ in 0..200 {
            let value = self.value(&theta);
            let (grad, hess) = self.derivatives(&theta);
            if grad.iter().all(|g| g.abs() < 1e-13) {
                return finite_optimum(self.fit, theta);
            }
            let step = cholesky_solve(&hess, &grad)
                .ok_or_else(|| not_identified(self.fit, "its Hessian is singular"))?;
            let mut t = 1.0;
            loop {
                let next = &theta - &(&step * t);
                if self.value(&next) <= value - 1e-4 * t * grad.dot(&step) || t < 1e-10 {
                    theta = next;
                    break;
                }
                t /= 2.0;
            }
            if theta.iter().any(|v| v.abs() > 40.0 || !v.is_finite()) {
                return Err(not_identified(
                    self.fit,
                    "the loss keeps falling as a coefficient grows",
                ));
            }
            if step.iter().all(|s| (s * t).abs() < 1e-12) {
                return finite_optimum(self.fit, theta);
            }
        }
        Err(not_identified(
            self.fit,
            "Newton's method did not converge in 200 steps",
        ))
    }
}
