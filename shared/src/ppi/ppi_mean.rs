//! The prediction-powered mean (PPI++; ppi-python's `ppi_mean_pointestimate` and
//! `ppi_mean_ci`): with human labels `y` and the judge's labels `ŷ` on n items, and the judge's
//! labels `ỹ` on N other items,
//!
//! θ̂_λ = λ · mean(ỹ) + mean(y − λ ŷ),  se² = Var₀(λ ỹ)/N + Var₀(y − λ ŷ)/n
//!
//! (Var₀: the variance divided by the count), and the interval θ̂ ± z₁₋α/₂ · se. λ is
//! [`power_tuned_lambda`] at the λ = 1 estimate unless given. Beside it: the human-only
//! estimate (λ = 0, the classical interval) and the judge-only one (the mean of the judge's
//! labels on all n + N items with its own CLT interval — no coverage guarantee for the human
//! quantity, since the judge's bias is not corrected), and the effective number of human labels
//! the judge's labels are worth, n · (se_human / se_ppi)².
//!
//! Arguments: `y`, `ŷ` (same length n ≥ 2), `ỹ` (N ≥ 1), λ (`None`: tuned) and α in (0, 1).
//! Returns: [`PpiMean`]. Errors: [`Error::InvalidParam`] for lengths that differ, α outside
//! (0, 1), a λ outside [0, 1] or a label that is not finite; [`Error::Insufficient`] for fewer
//! than two human labels or no unlabelled item.

use super::power_tuning::{power_tuned_lambda, TuningMoments};
use crate::io::checks::in_open_unit;
use crate::io::error::{Error, Result};
use crate::math::normal::{normal_quantile, Estimate};
use ndarray::Array2;
use serde::{Deserialize, Serialize};

/// A prediction-powered mean beside the human-only and judge-only ones.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PpiMean {
    /// Human labels.
    pub n: usize,
    /// Items with the judge's label only.
    pub unlabelled: usize,
    pub lambda: f64,
    pub ppi: Estimate,
    pub human_only: Estimate,
    /// No coverage guarantee: the judge's bias is not corrected.
    pub judge_only: Estimate,
    /// n · (se_human / se_ppi)²: how many human labels alone would give the PPI interval.
    pub effective_n: f64,
}

fn mean(v: impl Iterator<Item = f64>) -> (f64, usize) {
    let (s, k) = v.fold((0.0, 0usize), |(s, k), x| (s + x, k + 1));
    (s / k as f64, k)
}

/// Σ (x − x̄)² / count.
fn variance0(v: &[f64]) -> f64 {
    let (m, k) = mean(v.iter().copied());
    v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / k as f64
}

/// Checks α ∈ (0, 1) and returns z₁₋α/₂.
pub(crate) fn two_sided_z(alpha: f64) -> Result<f64> {
    in_open_unit("alpha", alpha)?;
    Ok(normal_quantile(1.0 - alpha / 2.0))
}

/// At least two human labels and one item with the judge's label only (for the estimate named
/// `what`).
pub(crate) fn check_sample(n: usize, unlabelled: usize, what: &str) -> Result<()> {
    if n < 2 || unlabelled == 0 {
        return Err(Error::Insufficient(format!(
            "a prediction-powered {what} needs at least 2 human labels and 1 item with the \
             judge's label only, found {n} and {unlabelled}"
        )));
    }
    Ok(())
}

/// Checks a given λ ∈ [0, 1].
pub(crate) fn check_lambda(lambda: Option<f64>) -> Result<()> {
    match lambda {
        Some(l) if !(0.0..=1.0).contains(&l) => Err(Error::param(
            "lambda",
            format!("expected λ in [0, 1] (0: human labels only, 1: plain PPI), found {l}"),
        )),
        _ => Ok(()),
    }
}

/// λ·mean(ŷ unlabelled) + mean(y − λ·ŷ): the point estimate at a given λ.
pub(super) fn ppi_mean_point(y: &[f64], yhat: &[f64], yhat_unlabelled: &[f64], lambda: f64) -> f64 {
    let (mu, _) = mean(yhat_unlabelled.iter().map(|v| lambda * v));
    let (rect, _) = mean(y.iter().zip(yhat).map(|(y, h)| y - lambda * h));
    mu + rect
}

/// The prediction-powered mean of `y`, `yhat` (labelled) and `yhat_unlabelled`.
///
/// # Errors
/// See the module documentation.
pub fn ppi_mean(
    y: &[f64],
    yhat: &[f64],
    yhat_unlabelled: &[f64],
    lambda: Option<f64>,
    alpha: f64,
) -> Result<PpiMean> {
    let z = two_sided_z(alpha)?;
    check_lambda(lambda)?;
    if y.len() != yhat.len() {
        return Err(Error::param(
            "labels",
            format!(
                "expected one judge label per human label, found {} and {}",
                yhat.len(),
                y.len()
            ),
        ));
    }
    check_sample(y.len(), yhat_unlabelled.len(), "mean")?;
    if y.iter()
        .chain(yhat)
        .chain(yhat_unlabelled)
        .any(|v| !v.is_finite())
    {
        return Err(Error::param("labels", "expected finite labels"));
    }
    let (n, big_n) = (y.len(), yhat_unlabelled.len());
    let at = |l: f64| ppi_mean_point(y, yhat, yhat_unlabelled, l);
    let lambda = lambda.unwrap_or_else(|| {
        let theta = at(1.0);
        let gradients = |v: &[f64]| -> Vec<f64> { v.iter().map(|v| v - theta).collect() };
        let moments =
            TuningMoments::of_values(&gradients(y), &gradients(yhat), &gradients(yhat_unlabelled));
        power_tuned_lambda(&moments, &Array2::eye(1))
    });
    let se_at = |l: f64| {
        let imputed: Vec<f64> = yhat_unlabelled.iter().map(|v| l * v).collect();
        let rectifier: Vec<f64> = y.iter().zip(yhat).map(|(y, h)| y - l * h).collect();
        (variance0(&imputed) / big_n as f64 + variance0(&rectifier) / n as f64).sqrt()
    };
    let ppi = Estimate::normal(at(lambda), se_at(lambda), z);
    let human_only = Estimate::normal(at(0.0), se_at(0.0), z);
    let all: Vec<f64> = yhat.iter().chain(yhat_unlabelled).copied().collect();
    let (judge_mean, k) = mean(all.iter().copied());
    let judge_only = Estimate::normal(judge_mean, (variance0(&all) / k as f64).sqrt(), z);
    Ok(PpiMean {
        n,
        unlabelled: big_n,
        lambda,
        ppi,
        human_only,
        judge_only,
        effective_n: n as f64 * (human_only.se / ppi.se).powi(2),
    })
}
