//! Prediction-powered logistic regression without intercept (PPI++; ppi-python's
//! `ppi_logistic_pointestimate` and `ppi_logistic_ci`): the Bradley–Terry leaderboard when each
//! row is a battle (+1 for `model_a`'s column, −1 for `model_b`'s, one model's column left out
//! so that its θ is 0) and the label is `model_a`'s outcome (1 win, 0 loss, ½ tie or a mean of
//! votes).
//!
//! θ̂_λ minimises the rectified loss
//!
//! λ/N Σ_unlabelled ℓ(ỹ, xᵀθ) + 1/n Σ_labelled [ℓ(y, xᵀθ) − λ ℓ(ŷ, xᵀθ)],
//! ℓ(t, η) = −t η + log(1 + e^η),
//!
//! convex for λ ∈ [0, 1] (solved by Newton's method with a backtracking line search from 0).
//! Its covariance is H⁻¹ (n/N · Cov(λ g̃) + Cov(g − λ ĝ)) H⁻¹ / n, with g, ĝ, g̃ the loss
//! gradients at θ̂ on the human labels, the judge's labels of the same rows and the judge's
//! labels of the unlabelled rows, H the Hessian over all n + N rows (over the n labelled ones
//! for λ = 0), covariances divided by count − 1. Tuned (λ not given), λ follows ppi-python's
//! sequence exactly: λ₁ tuned at θ̂₁, then λ₂ tuned at θ̂_λ₁, and the interval is that of
//! θ̂_λ₂. Beside it, as for the mean: the human-only fit (λ = 0) and the judge-only fit (the
//! judge's labels on all rows as if they were the truth: no coverage guarantee), each missing,
//! with a note that says why, when it is not identified on its own (few human labels per model
//! often separate).
//!
//! Arguments: the labelled rows `x` (n × d) with `y` and `ŷ`, the unlabelled rows `x̃`
//! (N × d) with `ỹ`, λ (`None`: tuned) and α. Returns: [`PpiLogistic`]. Errors:
//! [`Error::InvalidParam`] for shapes that differ, α outside (0, 1), λ outside [0, 1], a label
//! outside [0, 1]; [`Error::Insufficient`] for fewer than two human labels or no unlabelled row;
//! [`Error::Insufficient`] (saying "not identified") when the loss has no minimum (it keeps falling along some
//! direction: too few human labels of a model against a judge that lets it almost never lose or
//! win) or its Hessian is singular (a model in no battle).

use super::power_tuning::power_tuned_lambda;
use super::ppi_mean::{check_lambda, check_sample, two_sided_z};
use crate::io::error::{Error, Result};
use crate::math::linalg::spd_inverse;
use crate::math::logistic::sigmoid;
use crate::math::normal::Estimate;
use crate::math::weighted_logistic::{not_identified, RowGroups, SparseRows, WeightedLogistic};
use ndarray::{Array1, Array2, Axis};
use serde::{Deserialize, Serialize};

/// Prediction-powered coefficients beside the human-only and judge-only ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PpiLogistic {
    pub n: usize,
    pub unlabelled: usize,
    pub lambda: f64,
    pub ppi: Vec<Estimate>,
    /// The covariance matrix of the prediction-powered coefficients (for differences and
    /// ranks).
    pub ppi_covariance: Vec<Vec<f64>>,
    /// `None` when the human labels alone do not identify the fit (see `notes`).
    pub human_only: Option<Vec<Estimate>>,
    /// No coverage guarantee: the judge's bias is not corrected. `None` when the judge's labels
    /// alone do not identify the fit (see `notes`).
    pub judge_only: Option<Vec<Estimate>>,
    /// The covariance matrix of the human-only coefficients, when they are identified.
    pub human_only_covariance: Option<Vec<Vec<f64>>>,
    /// Why a comparison fit is missing.
    pub notes: Vec<String>,
}

/// Coefficients with their intervals and covariance matrix.
struct Fitted {
    estimates: Vec<Estimate>,
    covariance: Vec<Vec<f64>>,
}

/// The labelled and unlabelled rows, each design row also kept as its non-zero entries (a
/// Bradley–Terry row has two: the loss, its gradient and Hessian cost O(rows), not
/// O(rows · d²)).
struct Data<'a> {
    x: &'a Array2<f64>,
    y: &'a [f64],
    yhat: &'a [f64],
    xu: &'a Array2<f64>,
    yu: &'a [f64],
    rows: SparseRows,
    rows_u: SparseRows,
    /// The distinct rows of the labelled rows, then the unlabelled ones.
    groups: RowGroups,
}

/// Gradients and inverse Hessian at an estimate.
struct Stats {
    grads: Array2<f64>,
    grads_hat: Array2<f64>,
    grads_unlabelled: Array2<f64>,
    inv_hessian: Array2<f64>,
}

impl<'a> Data<'a> {
    fn new(
        (x, y, yhat): (&'a Array2<f64>, &'a [f64], &'a [f64]),
        (xu, yu): (&'a Array2<f64>, &'a [f64]),
    ) -> Self {
        let (rows, rows_u) = (SparseRows::new(x), SparseRows::new(xu));
        let groups = rows.chain(&rows_u).grouped();
        Data {
            x,
            y,
            yhat,
            xu,
            yu,
            rows,
            rows_u,
            groups,
        }
    }

    /// θ̂_λ: the rectified loss as a [`WeightedLogistic`] (labelled rows first), minimised from
    /// `start` (`None`: 0).
    fn solve(&self, lambda: f64, start: Option<&Array1<f64>>) -> Result<Array1<f64>> {
        let (n, big_n) = (self.y.len() as f64, self.yu.len() as f64);
        // The loss summed by distinct design row (a pair of models): O(pairs) per Newton step.
        let g = self.groups.rows.0.len();
        let (mut c, mut b) = (vec![0.0; g], vec![0.0; g]);
        let (of_labelled, of_unlabelled) = self.groups.of.split_at(self.y.len());
        for ((&k, y), h) in of_labelled.iter().zip(self.y).zip(self.yhat) {
            c[k] += (1.0 - lambda) / n;
            b[k] += (y - lambda * h) / n;
        }
        for (&k, u) in of_unlabelled.iter().zip(self.yu) {
            c[k] += lambda / big_n;
            b[k] += lambda * u / big_n;
        }
        WeightedLogistic {
            rows: &self.groups.rows,
            c,
            b,
            d: self.x.ncols(),
            fit: crate::ppi::PPI_FIT,
        }
        .solve(start)
    }

    /// Gradients and inverse Hessian at θ (the Hessian over all rows, or the labelled ones).
    fn stats(&self, theta: &Array1<f64>, use_unlabelled: bool) -> Result<Stats> {
        let (n, big_n, d) = (self.y.len(), self.yu.len(), theta.len());
        let mu = self.x.dot(theta).mapv(sigmoid);
        let mu_u = self.xu.dot(theta).mapv(sigmoid);
        let scale = |v: &Array1<f64>| v.view().insert_axis(Axis(1)).to_owned();
        let grads = self.x * &scale(&(&mu - &Array1::from(self.y.to_vec())));
        let grads_hat = self.x * &scale(&(&mu - &Array1::from(self.yhat.to_vec())));
        let (hessian, grads_unlabelled) = if use_unlabelled {
            let total = (n + big_n) as f64;
            let h = (self.rows_u.gram(&mu_u.mapv(|m| m * (1.0 - m)).to_vec(), d)
                + self.rows.gram(&mu.mapv(|m| m * (1.0 - m)).to_vec(), d))
                / total;
            let gu = self.xu * &scale(&(&mu_u - &Array1::from(self.yu.to_vec())));
            (h, gu)
        } else {
            let h = self.rows.gram(&mu.mapv(|m| m * (1.0 - m)).to_vec(), d) / n as f64;
            (h, Array2::zeros(self.xu.raw_dim()))
        };
        let inv_hessian = spd_inverse(&hessian)
            .ok_or_else(|| not_identified(crate::ppi::PPI_FIT, "its Hessian is singular"))?;
        Ok(Stats {
            grads,
            grads_hat,
            grads_unlabelled,
            inv_hessian,
        })
    }

    /// θ̂_λ with its intervals and covariance.
    fn interval(&self, lambda: f64, z: f64) -> Result<Fitted> {
        let theta = self.solve(lambda, None)?;
        let s = self.stats(&theta, lambda != 0.0)?;
        let (n, big_n) = (self.y.len() as f64, self.yu.len() as f64);
        let cov = |rows: &Array2<f64>| {
            let c = match rows.mean_axis(Axis(0)) {
                Some(m) => rows - &m,
                None => rows.clone(),
            };
            c.t().dot(&c) / (rows.nrows() as f64 - 1.0)
        };
        let var_unlabelled = if big_n > 1.0 {
            cov(&(&s.grads_unlabelled * lambda))
        } else {
            Array2::zeros((theta.len(), theta.len()))
        };
        let var = cov(&(&s.grads - &(&s.grads_hat * lambda)));
        let sigma = s
            .inv_hessian
            .dot(&(var_unlabelled * (n / big_n) + var))
            .dot(&s.inv_hessian);
        Ok(Fitted {
            estimates: theta
                .iter()
                .zip(sigma.diag())
                .map(|(&t, &v)| Estimate::normal(t, (v / n).sqrt(), z))
                .collect(),
            covariance: sigma
                .outer_iter()
                .map(|r| r.iter().map(|v| v / n).collect())
                .collect(),
        })
    }

    /// λ tuned at θ̂_λ.
    fn tuned_at(&self, lambda: f64) -> Result<f64> {
        let theta = self.solve(lambda, None)?;
        let s = self.stats(&theta, true)?;
        Ok(power_tuned_lambda(
            &s.grads,
            &s.grads_hat,
            &s.grads_unlabelled,
            &s.inv_hessian,
        ))
    }
}

/// The prediction-powered logistic fit.
///
/// # Errors
/// See the module documentation.
pub fn ppi_logistic(
    (x, y, yhat): (&Array2<f64>, &[f64], &[f64]),
    (xu, yu): (&Array2<f64>, &[f64]),
    lambda: Option<f64>,
    alpha: f64,
) -> Result<PpiLogistic> {
    let z = two_sided_z(alpha)?;
    check_lambda(lambda)?;
    if x.nrows() != y.len()
        || y.len() != yhat.len()
        || xu.nrows() != yu.len()
        || x.ncols() != xu.ncols()
    {
        return Err(Error::param(
            "rows",
            "expected one label and one judge label per labelled row, one judge label per \
             unlabelled row, and as many columns in both",
        ));
    }
    check_sample(y.len(), yu.len(), "fit")?;
    if y.iter()
        .chain(yhat)
        .chain(yu)
        .any(|v| !(0.0..=1.0).contains(v))
    {
        return Err(Error::param("labels", "expected labels in [0, 1]"));
    }
    let data = Data::new((x, y, yhat), (xu, yu));
    let lambda = match lambda {
        Some(l) => l,
        None => {
            let first = data.tuned_at(1.0)?;
            data.tuned_at(first)?
        }
    };
    let ppi = data.interval(lambda, z)?;
    let mut notes = Vec::new();
    let mut beside = |fit: Result<Fitted>, what: &str| match fit {
        Ok(fitted) => Some(fitted),
        Err(e) => {
            notes.push(format!("{what}: {e}"));
            None
        }
    };
    let human_only = beside(data.interval(0.0, z), "human labels only");
    let all_x = ndarray::concatenate(Axis(0), &[x.view(), xu.view()])
        .map_err(|e| Error::param("rows", e.to_string()))?;
    let all_y: Vec<f64> = yhat.iter().chain(yu).copied().collect();
    let judge = Data::new((&all_x, &all_y, &all_y), (xu, yu));
    let judge_only = beside(judge.interval(0.0, z), "judge labels only");
    Ok(PpiLogistic {
        n: y.len(),
        unlabelled: yu.len(),
        lambda,
        ppi: ppi.estimates,
        ppi_covariance: ppi.covariance,
        human_only_covariance: human_only.as_ref().map(|h| h.covariance.clone()),
        human_only: human_only.map(|h| h.estimates),
        judge_only: judge_only.map(|j| j.estimates),
        notes,
    })
}

/// θ̂_λ alone, for a bootstrap round, Newton's method started at `start` (the whole data's
/// estimate: the optimum is unique, only the steps to it are fewer): `None` where the round's
/// rows do not identify it.
pub(super) fn ppi_logistic_point(
    labelled: (&Array2<f64>, &[f64], &[f64]),
    unlabelled: (&Array2<f64>, &[f64]),
    lambda: f64,
    start: Option<&Array1<f64>>,
) -> Option<Array1<f64>> {
    Data::new(labelled, unlabelled).solve(lambda, start).ok()
}
