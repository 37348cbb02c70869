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
//! Arguments: the labelled rows `x` (n × d, a [`Design`]) with `y` and `ŷ`, the unlabelled rows
//! `x̃` (N × d) with `ỹ`, λ (`None`: tuned) and α. Returns: [`PpiLogistic`]. Errors:
//! [`Error::InvalidParam`] for shapes that differ, α outside (0, 1), λ outside [0, 1], a label
//! outside [0, 1]; [`Error::Insufficient`] for fewer than two human labels or no unlabelled row;
//! [`Error::Insufficient`] (saying "not identified") when the loss has no minimum (it keeps falling along some
//! direction: too few human labels of a model against a judge that lets it almost never lose or
//! win) or its Hessian is singular (a model in no battle).

use super::power_tuning::{power_tuned_lambda, TuningMoments};
use super::ppi_mean::{check_lambda, check_sample, two_sided_z};
use crate::io::error::{Error, Result};
use crate::math::linalg::spd_inverse;
use crate::math::logistic::sigmoid;
use crate::math::normal::Estimate;
use crate::math::weighted_logistic::{not_identified, Design, RowGroups, WeightedLogistic};
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

/// The labels, and the design rows as their distinct rows (a pair of models) with each row's
/// group: labelled rows first, then unlabelled ones. The loss, its gradients' moments and its
/// Hessian are sums by group, so each costs O(rows + pairs) without a dense n × d matrix.
struct Data<'a> {
    y: &'a [f64],
    yhat: &'a [f64],
    yu: &'a [f64],
    d: usize,
    groups: RowGroups,
}

impl<'a> Data<'a> {
    fn new((x, y, yhat): (&Design, &'a [f64], &'a [f64]), (xu, yu): (&Design, &'a [f64])) -> Self {
        Data {
            y,
            yhat,
            yu,
            d: x.columns,
            groups: RowGroups::of(x.rows.0.iter().chain(&xu.rows.0)),
        }
    }

    /// The labelled rows' groups and the unlabelled rows'.
    fn split(&self) -> (&[usize], &[usize]) {
        self.groups.of.split_at(self.y.len())
    }

    /// θ̂_λ: the rectified loss as a [`WeightedLogistic`] (labelled rows first), minimised from
    /// `start` (`None`: 0).
    fn solve(&self, lambda: f64, start: Option<&Array1<f64>>) -> Result<Array1<f64>> {
        let (n, big_n) = (self.y.len() as f64, self.yu.len() as f64);
        // The loss summed by distinct design row (a pair of models): O(pairs) per Newton step.
        let g = self.groups.rows.0.len();
        let (mut c, mut b) = (vec![0.0; g], vec![0.0; g]);
        let (of_labelled, of_unlabelled) = self.split();
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
            d: self.d,
            fit: crate::ppi::PPI_FIT,
        }
        .solve(start)
    }

    /// σ(x_kᵀθ) of each distinct design row.
    fn probabilities(&self, theta: &Array1<f64>) -> Vec<f64> {
        self.groups
            .rows
            .dot(theta)
            .into_iter()
            .map(sigmoid)
            .collect()
    }

    /// The inverse Hessian of the loss at the probabilities `mu`, averaged over every row or
    /// over the labelled ones.
    fn inv_hessian(&self, mu: &[f64], use_unlabelled: bool) -> Result<Array2<f64>> {
        let (of_labelled, of_unlabelled) = self.split();
        let mut count = vec![0.0; mu.len()];
        let rows = if use_unlabelled {
            &self.groups.of[..]
        } else {
            of_labelled
        };
        for &k in rows {
            count[k] += 1.0;
        }
        let total = (of_labelled.len()
            + if use_unlabelled {
                of_unlabelled.len()
            } else {
                0
            }) as f64;
        let w: Vec<f64> = count
            .iter()
            .zip(mu)
            .map(|(c, m)| c * m * (1.0 - m))
            .collect();
        let hessian = self.groups.rows.gram(&w, self.d) / total;
        spd_inverse(&hessian)
            .ok_or_else(|| not_identified(crate::ppi::PPI_FIT, "its Hessian is singular"))
    }

    /// Σ_i (a_i x_i − ā)(b_i x_i − b̄)ᵀ over the rows of groups `of` (ā, b̄: the means of
    /// a_i x_i and b_i x_i), by sums within each group.
    fn centred_cross(&self, of: &[usize], a: &[f64], b: &[f64]) -> Array2<f64> {
        let g = self.groups.rows.0.len();
        let (mut sa, mut sb, mut sab) = (vec![0.0; g], vec![0.0; g], vec![0.0; g]);
        for ((&k, &ai), &bi) in of.iter().zip(a).zip(b) {
            sa[k] += ai;
            sb[k] += bi;
            sab[k] += ai * bi;
        }
        let rows = &self.groups.rows;
        let (ma, mb) = (
            rows.weighted_sum(&sa, self.d),
            rows.weighted_sum(&sb, self.d),
        );
        let outer = ma.insert_axis(Axis(1)).dot(&mb.insert_axis(Axis(0)));
        rows.gram(&sab, self.d) - outer / of.len() as f64
    }

    /// The residuals μ − t of rows of groups `of` with targets `t`.
    fn residuals(of: &[usize], mu: &[f64], t: &[f64]) -> Vec<f64> {
        of.iter().zip(t).map(|(&k, t)| mu[k] - t).collect()
    }

    /// θ̂_λ with its intervals and covariance.
    fn interval(&self, lambda: f64, z: f64) -> Result<Fitted> {
        let theta = self.solve(lambda, None)?;
        let mu = self.probabilities(&theta);
        let inv_hessian = self.inv_hessian(&mu, lambda != 0.0)?;
        let (n, big_n) = (self.y.len() as f64, self.yu.len() as f64);
        let (of_labelled, of_unlabelled) = self.split();
        // Each labelled row's gradient of the rectified loss, g − λ ĝ, and each unlabelled
        // row's λ g̃.
        let rectified: Vec<f64> = (of_labelled.iter().zip(self.y).zip(self.yhat))
            .map(|((&k, y), h)| (mu[k] - y) - lambda * (mu[k] - h))
            .collect();
        let var = self.centred_cross(of_labelled, &rectified, &rectified) / (n - 1.0);
        let var_unlabelled = if big_n > 1.0 && lambda != 0.0 {
            let imputed: Vec<f64> = Self::residuals(of_unlabelled, &mu, self.yu)
                .into_iter()
                .map(|r| lambda * r)
                .collect();
            self.centred_cross(of_unlabelled, &imputed, &imputed) / (big_n - 1.0)
        } else {
            Array2::zeros((self.d, self.d))
        };
        let sigma = inv_hessian
            .dot(&(var_unlabelled * (n / big_n) + var))
            .dot(&inv_hessian);
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
        let mu = self.probabilities(&theta);
        let inv_hessian = self.inv_hessian(&mu, true)?;
        let (of_labelled, of_unlabelled) = self.split();
        let g = Self::residuals(of_labelled, &mu, self.y);
        let g_hat = Self::residuals(of_labelled, &mu, self.yhat);
        let cross = self.centred_cross(of_labelled, &g, &g_hat);
        let judge: Vec<f64> = g_hat
            .into_iter()
            .chain(Self::residuals(of_unlabelled, &mu, self.yu))
            .collect();
        let all = self.groups.of.len();
        let moments = TuningMoments {
            cross: (&cross + &cross.t()) / self.y.len() as f64,
            judge: self.centred_cross(&self.groups.of, &judge, &judge) / (all as f64 - 1.0),
            labelled: self.y.len(),
            unlabelled: self.yu.len(),
        };
        Ok(power_tuned_lambda(&moments, &inv_hessian))
    }

    /// The judge-only fit's data: the judge's labels on every row as if they were the truth
    /// (labelled rows then unlabelled ones), the unlabelled rows beside them as here.
    fn judge_only(&self, all_judge: &'a [f64]) -> Self {
        let (_, of_unlabelled) = self.split();
        Data {
            y: all_judge,
            yhat: all_judge,
            yu: self.yu,
            d: self.d,
            groups: RowGroups {
                rows: self.groups.rows.clone(),
                of: self
                    .groups
                    .of
                    .iter()
                    .chain(of_unlabelled)
                    .copied()
                    .collect(),
            },
        }
    }
}

/// The prediction-powered logistic fit.
///
/// # Errors
/// See the module documentation.
pub fn ppi_logistic(
    (x, y, yhat): (&Design, &[f64], &[f64]),
    (xu, yu): (&Design, &[f64]),
    lambda: Option<f64>,
    alpha: f64,
) -> Result<PpiLogistic> {
    let z = two_sided_z(alpha)?;
    check_lambda(lambda)?;
    if x.len() != y.len()
        || y.len() != yhat.len()
        || xu.len() != yu.len()
        || x.columns != xu.columns
        || !x.is_consistent()
        || !xu.is_consistent()
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
    let all_judge: Vec<f64> = yhat.iter().chain(yu).copied().collect();
    let judge_only = beside(
        data.judge_only(&all_judge).interval(0.0, z),
        "judge labels only",
    );
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
    labelled: (&Design, &[f64], &[f64]),
    unlabelled: (&Design, &[f64]),
    lambda: f64,
    start: Option<&Array1<f64>>,
) -> Option<Array1<f64>> {
    Data::new(labelled, unlabelled).solve(lambda, start).ok()
}
