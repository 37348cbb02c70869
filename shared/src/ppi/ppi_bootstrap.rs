//! Bootstrap intervals of the prediction-powered estimates (the percentile bootstrap of
//! ppi-python's `ppboot`, applied to the PPI++ estimators themselves): each round resamples the
//! labelled rows (human label, judge label and design row together) and the unlabelled rows
//! independently, with replacement, and recomputes the estimate at the λ of the whole data
//! (tuned once, not per round); the interval is the replicates' α/2 and 1 − α/2 quantiles.
//! Round r draws from ChaCha8 stream r of the seed ([`BootstrapParams::round_rng`]), so the
//! same seed gives the same interval natively and in WASM, and the seed is recorded with the
//! settings.
//!
//! A round whose resample does not identify the logistic fit (its resampled rows let a model
//! almost never lose, say) has no replicate; [`Interval::valid_rounds`] counts the rounds that
//! did. The interval of the others is too narrow when the failing rounds are the extreme ones,
//! so a caller reports failed rounds and drops the interval when many fail.
//!
//! Arguments: the labelled rows (`y`, `ŷ` and, for the fit, the design `x`), the unlabelled
//! rows (`ŷ` and `x̃`), λ, α and the [`Resampling`]. Returns: an [`Interval`] (the mean) or one
//! per coefficient (the fit). Errors: [`Error::InvalidParam`] for fewer than 2 rounds or α
//! outside (0, 1); [`Error::Insufficient`] when the whole data does not identify the estimate.

use super::ppi_logistic::ppi_logistic_point;
use super::ppi_mean::{check_sample, ppi_mean_point};
use crate::io::error::{Error, Result};
use crate::math::resample::{percentile_interval, resample_indices, BootstrapParams, Interval};
use ndarray::{Array2, Axis};
use serde::{Deserialize, Serialize};

/// How many bootstrap rounds, from which seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resampling {
    pub rounds: usize,
    pub seed: u64,
}

impl Default for Resampling {
    fn default() -> Self {
        Self {
            rounds: 1000,
            seed: 0,
        }
    }
}

impl Resampling {
    /// The bootstrap at coverage 1 − α.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for fewer than 2 rounds or α outside (0, 1).
    pub fn at_level(&self, alpha: f64) -> Result<BootstrapParams> {
        let params = BootstrapParams {
            rounds: self.rounds,
            seed: self.seed,
            level: 1.0 - alpha,
        };
        params.validate()?;
        Ok(params)
    }
}

fn pick(values: &[f64], rows: &[usize]) -> Vec<f64> {
    rows.iter().map(|&i| values[i]).collect()
}

/// The percentile interval of the prediction-powered mean at `lambda`.
///
/// # Errors
/// See the module documentation.
pub fn bootstrap_mean(
    (y, yhat, yhat_unlabelled): (&[f64], &[f64], &[f64]),
    lambda: f64,
    alpha: f64,
    resampling: Resampling,
) -> Result<Interval> {
    let params = resampling.at_level(alpha)?;
    check_sample(y.len(), yhat_unlabelled.len(), "mean")?;
    let (n, big_n) = (y.len(), yhat_unlabelled.len());
    let replicates: Vec<f64> = (0..params.rounds)
        .map(|r| {
            let mut rng = params.round_rng(r);
            let labelled = resample_indices(n, &mut rng);
            let unlabelled = resample_indices(big_n, &mut rng);
            ppi_mean_point(
                &pick(y, &labelled),
                &pick(yhat, &labelled),
                &pick(yhat_unlabelled, &unlabelled),
                lambda,
            )
        })
        .collect();
    let estimate = ppi_mean_point(y, yhat, yhat_unlabelled, lambda);
    Ok(percentile_interval(estimate, &replicates, params.level))
}

/// The percentile interval of each coefficient of the prediction-powered logistic fit at
/// `lambda`.
///
/// # Errors
/// See the module documentation.
pub fn bootstrap_logistic(
    (x, y, yhat): (&Array2<f64>, &[f64], &[f64]),
    (xu, yu): (&Array2<f64>, &[f64]),
    lambda: f64,
    alpha: f64,
    resampling: Resampling,
) -> Result<Vec<Interval>> {
    let params = resampling.at_level(alpha)?;
    check_sample(y.len(), yu.len(), "fit")?;
    let estimate = ppi_logistic_point((x, y, yhat), (xu, yu), lambda, None).ok_or_else(|| {
        Error::Insufficient(
            "not identified: the prediction-powered logistic fit has no unique minimum on the \
             whole data, so there is nothing to bootstrap"
                .to_owned(),
        )
    })?;
    let (n, big_n, d) = (y.len(), yu.len(), x.ncols());
    let mut replicates = vec![Vec::with_capacity(params.rounds); d];
    for r in 0..params.rounds {
        let mut rng = params.round_rng(r);
        let labelled = resample_indices(n, &mut rng);
        let unlabelled = resample_indices(big_n, &mut rng);
        let theta = ppi_logistic_point(
            (
                &x.select(Axis(0), &labelled),
                &pick(y, &labelled),
                &pick(yhat, &labelled),
            ),
            (&xu.select(Axis(0), &unlabelled), &pick(yu, &unlabelled)),
            lambda,
            Some(&estimate),
        );
        for (k, values) in replicates.iter_mut().enumerate() {
            values.push(theta.as_ref().map_or(f64::NAN, |t| t[k]));
        }
    }
    Ok(replicates
        .iter()
        .zip(&estimate)
        .map(|(values, &e)| percentile_interval(e, values, params.level))
        .collect())
}
