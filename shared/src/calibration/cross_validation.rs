//! k-fold cross-validation of the regularisation strength γ of any calibration head (seed 000
//! App. B.1: "set the regularization strength γ automatically based on k-fold
//! cross-validation", k = 5).
//!
//! Units (rows, pairs or lists) are shuffled by a ChaCha8 stream seeded with `seed` and dealt
//! round-robin into k folds, so fold sizes differ by at most one and the assignment is the same
//! on every platform; MN folds are stratified by human class, so that every class with two or
//! more rows appears in every training set. For each fold the head is fitted on the other k − 1 folds at every γ of a
//! log-spaced grid, γ_i = γ_min (γ_max/γ_min)^{i/(m−1)}, by its path fit (scaler refitted on the
//! training folds, one Gram reduction for LS, warm starts for the others), and scored on the
//! held-out fold by its validation loss: mean squared error (LS), mean cross-entropy (MN), mean
//! log-loss (BTL, BTL2) or mean −log P(order) per list (K-way). The curve reports, per γ, the
//! mean and the sample standard deviation (ddof 1) of the k fold losses; the chosen γ has the
//! smallest mean (the smaller γ on a tie).
//!
//! Arguments: a head's settings (any [`HeadParams`]), its data and [`CrossValidationParams`].
//! Returns: [`CvCurve`] (with the seed), or the head refitted on all data at the chosen γ by
//! [`fit_with_cv`]. The folds are independent: [`fold_losses`] computes some of them and
//! [`CvCurve::from_fold_losses`] joins all into the same curve, whichever computed which. Errors: [`Error::InvalidParam`] for fewer than two folds or an invalid grid;
//! [`Error::Insufficient`] for fewer units than folds; the head's own errors.

use crate::calibration::head::{HeadParams, Rows};
use crate::io::error::{Error, Result};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// A log-spaced grid of γ.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct GammaGrid {
    /// Smallest γ of the log grid.
    #[cfg_attr(
        feature = "cli",
        arg(long = "gamma-min", id = "gamma_min", default_value_t = GammaGrid::default().min, allow_negative_numbers = true)
    )]
    pub min: f64,
    /// Largest γ of the log grid.
    #[cfg_attr(
        feature = "cli",
        arg(long = "gamma-max", id = "gamma_max", default_value_t = GammaGrid::default().max, allow_negative_numbers = true)
    )]
    pub max: f64,
    /// Number of grid points (1 uses `min` alone).
    #[cfg_attr(
        feature = "cli",
        arg(long = "gammas", id = "gammas", default_value_t = GammaGrid::default().points, allow_negative_numbers = true)
    )]
    pub points: usize,
}

impl Default for GammaGrid {
    fn default() -> Self {
        Self {
            min: 1e-2,
            max: 1e4,
            points: 10,
        }
    }
}

impl GammaGrid {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        if !(self.min > 0.0 && self.min.is_finite() && self.max.is_finite()) {
            return Err(Error::param(
                "grid",
                format!(
                    "γ bounds must be finite and > 0, found [{}, {}]",
                    self.min, self.max
                ),
            ));
        }
        if self.max < self.min {
            return Err(Error::param(
                "grid",
                format!(
                    "γ max must be at least γ min, found [{}, {}]",
                    self.min, self.max
                ),
            ));
        }
        if self.points == 0 {
            return Err(Error::param("grid", "needs at least one point"));
        }
        Ok(())
    }

    /// The grid values, ascending.
    pub fn values(&self) -> Vec<f64> {
        if self.points == 1 {
            return vec![self.min];
        }
        let ratio = (self.max / self.min).ln() / (self.points - 1) as f64;
        (0..self.points)
            .map(|i| {
                if i + 1 == self.points {
                    self.max
                } else {
                    self.min * (ratio * i as f64).exp()
                }
            })
            .collect()
    }
}

/// Settings of a cross-validation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CrossValidationParams {
    /// Cross-validation folds, k ≥ 2.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = CrossValidationParams::default().folds, allow_negative_numbers = true)
    )]
    pub folds: usize,
    /// Seed of the fold assignment; recorded in the curve. Not an option of its own: a
    /// command's one `--seed` sets it.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub seed: u64,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub grid: GammaGrid,
}

impl Default for CrossValidationParams {
    fn default() -> Self {
        Self {
            folds: 5,
            seed: 0,
            grid: GammaGrid::default(),
        }
    }
}

impl CrossValidationParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        if self.folds < 2 {
            return Err(Error::param(
                "folds",
                format!("k-fold cross-validation needs k ≥ 2, found {}", self.folds),
            ));
        }
        self.grid.validate()
    }
}

/// The cross-validation curve and the chosen γ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CvCurve {
    pub folds: usize,
    pub seed: u64,
    /// Units cross-validated.
    pub units: usize,
    /// The grid, ascending.
    pub gammas: Vec<f64>,
    /// Mean validation loss over folds, per γ.
    pub mean_loss: Vec<f64>,
    /// Sample standard deviation (ddof 1) of the fold losses, per γ.
    pub sd_loss: Vec<f64>,
    /// fold_loss[f][i]: validation loss of fold f at γ_i.
    pub fold_loss: Vec<Vec<f64>>,
    pub chosen_index: usize,
    pub chosen_gamma: f64,
}

/// The fold (0 … k − 1) of each of `n` units.
pub fn fold_assignment(n: usize, folds: usize, seed: u64) -> Vec<usize> {
    stratified_fold_assignment(&vec![0; n], folds, seed)
}

/// The fold of each unit, stratified: units are shuffled, grouped by stratum (keeping the
/// shuffled order within a stratum) and dealt round-robin, so each stratum is spread over the
/// folds as evenly as possible and fold sizes differ by at most one. A stratum with at least
/// two units is then present in every training set.
pub fn stratified_fold_assignment(strata: &[usize], folds: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..strata.len()).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    order.sort_by_key(|&unit| strata[unit]);
    let mut fold = vec![0; strata.len()];
    for (position, &unit) in order.iter().enumerate() {
        fold[unit] = position % folds.max(1);
    }
    fold
}

/// Cross-validates γ of `head` on `data`.
pub fn cross_validate<H: HeadParams>(
    head: &H,
    data: &H::Data,
    params: &CrossValidationParams,
) -> Result<CvCurve> {
    let folds: Vec<usize> = (0..params.folds).collect();
    let fold_loss = fold_losses(head, data, params, &folds)?;
    CvCurve::from_fold_losses(params, data.len(), fold_loss)
}

/// The validation losses of the folds `folds` (each < k), each at every γ of the grid, in the
/// order asked: the per-fold part of [`cross_validate`], so that folds can be computed apart
/// (the app splits them across its web workers) and joined by [`CvCurve::from_fold_losses`]
/// into the very curve `cross_validate` returns.
pub fn fold_losses<H: HeadParams>(
    head: &H,
    data: &H::Data,
    params: &CrossValidationParams,
    folds: &[usize],
) -> Result<Vec<Vec<f64>>> {
    params.validate()?;
    let n = data.len();
    let k = params.folds;
    if n < k {
        return Err(Error::Insufficient(format!(
            "{k}-fold cross-validation needs at least {k} units (one per fold), found {n}"
        )));
    }
    if let Some(&f) = folds.iter().find(|&&f| f >= k) {
        return Err(Error::param(
            "folds",
            format!(
                "fold {f} does not exist in {k}-fold cross-validation (folds 0 to {})",
                k - 1
            ),
        ));
    }
    let gammas = params.grid.values();
    let assignment = match data.strata() {
        Some(strata) => stratified_fold_assignment(&strata, k, params.seed),
        None => fold_assignment(n, k, params.seed),
    };
    head.held_out_losses(data, &assignment, folds, &gammas)
}

impl CvCurve {
    /// The curve of a cross-validation of `units` units from the losses of every fold
    /// (`fold_loss[f]`: fold f at every γ of the grid, as [`fold_losses`] returns them).
    pub fn from_fold_losses(
        params: &CrossValidationParams,
        units: usize,
        fold_loss: Vec<Vec<f64>>,
    ) -> Result<Self> {
        params.validate()?;
        let gammas = params.grid.values();
        let k = params.folds;
        if fold_loss.len() != k || fold_loss.iter().any(|l| l.len() != gammas.len()) {
            return Err(Error::param(
                "fold_loss",
                format!(
                    "expected {k} folds of {} losses each, found {} folds",
                    gammas.len(),
                    fold_loss.len()
                ),
            ));
        }
        let kf = k as f64;
        let mean_loss: Vec<f64> = (0..gammas.len())
            .map(|i| fold_loss.iter().map(|l| l[i]).sum::<f64>() / kf)
            .collect();
        let sd_loss = (0..gammas.len())
            .map(|i| {
                let ss: f64 = fold_loss
                    .iter()
                    .map(|l| (l[i] - mean_loss[i]).powi(2))
                    .sum();
                (ss / (kf - 1.0)).sqrt()
            })
            .collect();
        let chosen_index = (0..gammas.len()).fold(0, |best, i| {
            if mean_loss[i] < mean_loss[best] {
                i
            } else {
                best
            }
        });
        Ok(Self {
            folds: k,
            seed: params.seed,
            units,
            chosen_gamma: gammas[chosen_index],
            gammas,
            mean_loss,
            sd_loss,
            fold_loss,
            chosen_index,
        })
    }

    /// Checks that this curve is a cross-validation of `units` units with `params` (so its
    /// chosen γ may stand for one run here).
    pub fn check(&self, params: &CrossValidationParams, units: usize) -> Result<()> {
        if self.folds != params.folds
            || self.seed != params.seed
            || self.gammas != params.grid.values()
            || self.units != units
        {
            return Err(Error::param(
                "cv",
                format!(
                    "the curve is of {}-fold cross-validation (seed {}) of {} units over {} γ; \
                     expected {}-fold (seed {}) of {units} units over {} γ",
                    self.folds,
                    self.seed,
                    self.units,
                    self.gammas.len(),
                    params.folds,
                    params.seed,
                    params.grid.points
                ),
            ));
        }
        Ok(())
    }
}

/// Cross-validates γ, then fits the head on all of `data` at the chosen γ.
pub fn fit_with_cv<H: HeadParams>(
    head: &H,
    data: &H::Data,
    params: &CrossValidationParams,
) -> Result<(H::Fitted, CvCurve)> {
    let curve = cross_validate(head, data, params)?;
    refit(head, data, params, curve)
}

/// Fits the head on all of `data` at the γ `curve` chose, after checking that the curve is of
/// this data and these settings (computed elsewhere, e.g. by folds in parallel).
pub fn refit<H: HeadParams>(
    head: &H,
    data: &H::Data,
    params: &CrossValidationParams,
    curve: CvCurve,
) -> Result<(H::Fitted, CvCurve)> {
    curve.check(params, data.len())?;
    let fitted = head.fit_at(data, curve.chosen_gamma)?;
    Ok((fitted, curve))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_are_balanced_seeded_and_reproducible() {
        let a = fold_assignment(23, 5, 7);
        assert_eq!(a, fold_assignment(23, 5, 7));
        assert_ne!(a, fold_assignment(23, 5, 8));
        let mut sizes = [0; 5];
        a.iter().for_each(|&f| sizes[f] += 1);
        assert_eq!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap(), 1);
        assert_eq!(sizes.iter().sum::<usize>(), 23);
    }

    #[test]
    fn stratified_folds_spread_every_class() {
        // 3 rows of class 0, 7 of class 1, 2 of class 2 over 3 folds.
        let strata: Vec<usize> = [vec![0; 3], vec![1; 7], vec![2; 2]].concat();
        let a = stratified_fold_assignment(&strata, 3, 4);
        for class in 0..3 {
            let mut seen = [0; 3];
            for (i, &f) in a.iter().enumerate() {
                if strata[i] == class {
                    seen[f] += 1;
                }
            }
            let count = strata.iter().filter(|&&s| s == class).count();
            assert!(
                seen.iter().all(|&c| c <= count.div_ceil(3)),
                "{class}: {seen:?}"
            );
            assert!(seen.iter().filter(|&&c| c > 0).count() == count.min(3));
        }
        assert_eq!(
            fold_assignment(12, 3, 4),
            stratified_fold_assignment(&[5; 12], 3, 4)
        );
    }

    #[test]
    fn grid_is_log_spaced_and_checked() {
        let g = GammaGrid {
            min: 0.01,
            max: 100.0,
            points: 5,
        }
        .values();
        for (v, w) in g.iter().zip([0.01, 0.1, 1.0, 10.0, 100.0]) {
            assert!((v / w - 1.0).abs() < 1e-14, "{g:?}");
        }
        let one = GammaGrid {
            min: 2.0,
            max: 2.0,
            points: 1,
        };
        assert_eq!(one.values(), [2.0]);
        assert!(GammaGrid {
            min: 0.0,
            ..Default::default()
        }
        .validate()
        .is_err());
        assert!(CrossValidationParams {
            folds: 1,
            ..Default::default()
        }
        .validate()
        .is_err());
    }
}
