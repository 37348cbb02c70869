//! Calibrating a judge: fit a head (seed 000 §4) on training rows with γ chosen by k-fold
//! cross-validation, score it against the base judge on test rows, and package the model file.
//! This is the one serialisable result the CLI prints and the app renders.
//!
//! On the test rows, the head and the base judge are compared on the same rows with paired
//! bootstrap intervals ([`crate::calibration::metrics`]):
//!
//! ```text
//! LS    regression of ŷ vs b against the human score (MSE, MAE, r, ρ, τ-b)
//! MN    classes argmax π vs argmax p (accuracy, macro P/R/F1, confusion matrices), and
//!       regression of the expected scores Σ_s s·π_s vs Σ_s s·p_s (p renormalised)
//! BTL   regression of P(first preferred), head vs the judge's p (MSE = Brier score), and
//!       classes [P ≥ ½] against the human preference on rows that are not ties
//! BTL2  the same, with the judge's p = b₁ / (b₁ + b₂)
//! PL    top-1 accuracy: whether the head's (the judge's) most likely response is the
//!       human's best (class 1: right, 0: wrong, against a truth of all 1)
//! ```
//!
//! Arguments: training and test [`CalibrationData`] of one head kind and
//! [`CalibrationParams`]. Returns: [`Calibration`]. Errors: [`Error::InvalidParam`] for invalid
//! settings or files of different head kinds; [`Error::Insufficient`] for fewer training rows
//! than folds, or no test rows with a usable target; and the heads' own errors.
//!
//! The calibration family (seed 000): this module fits a head with cross-validated γ and
//! scores it on test rows; its parts:
//! - [`head`]: what every head provides: its training data as [`head::Rows`] (count, select,
//!   hash, strata) and its settings as [`head::HeadParams`] (fit a γ path, validation loss).
//! - [`features`]: calibration-head features φ(e) ⊕ base signal and the training-row scaler.
//! - [`glm`]: penalised GLM fitting shared by the heads (L-BFGS, row-space reduction, γ paths).
//! - [`ls_head`]: least-squares judge (seed 000 §4.1).
//! - [`mn_head`]: multinomial judge (seed 000 §4.2).
//! - [`btl_head`]: Bradley–Terry–Luce judge (seed 000 §4.3).
//! - [`btl2_head`]: two-headed BTL judge (seed 000 §4.4).
//! - [`plackett_luce_head`]: K-way BTL2 judge via Plackett–Luce (seed 000 App. C.1).
//! - [`cross_validation`]: k-fold cross-validation of a head's γ.
//! - [`metrics`]: head vs base-judge metrics with paired bootstrap intervals.
//! - [`head_file`]: the versioned JSON model file of a fitted head.
//! - [`calibration_data`]: one calibration CSV schema per head kind, embeddings in a column or
//!   from an array file.
//! - [`ablation`]: no-score, no-embedding and dropped-coordinate ablations; training-size curves.
//! - [`kinds`]: the family's analysis kind: a head fitted on `train`, scored on `test`, by role.

pub mod ablation;
pub mod btl2_head;
pub mod btl_head;
pub mod calibration_data;
pub mod cross_validation;
pub mod features;
pub mod glm;
pub mod head;
pub mod head_file;
pub mod kinds;
pub mod ls_head;
pub mod metrics;
pub mod mn_head;
pub mod plackett_luce_head;

use crate::calibration::btl2_head::Btl2Params;
use crate::calibration::btl_head::BtlParams;
use crate::calibration::calibration_data::{CalibrationData, HeadKind};
use crate::calibration::cross_validation::{
    fit_with_cv, fold_losses, refit, CrossValidationParams, CvCurve,
};
use crate::calibration::head::HeadParams;
use crate::calibration::head_file::{Head, HeadFile};
use crate::calibration::ls_head::LsParams;
use crate::calibration::metrics::{
    compare_classification, compare_regression, Averaging, ClassificationComparison,
    RegressionComparison,
};
use crate::calibration::mn_head::MnParams;
use crate::calibration::plackett_luce_head::PlackettLuceParams;
use crate::io::error::{Error, Result};
use crate::math::resample::BootstrapParams;
use serde::{Deserialize, Serialize};

/// Settings of a calibration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CalibrationParams {
    /// Standardise the embedding coordinates on the training rows ([`crate::calibration::features`]).
    /// Not an option of its own: the command's `--no-standardize` clears it.
    #[cfg_attr(feature = "cli", arg(skip = true))]
    pub standardize: bool,
    /// Folds, seed and γ grid of the cross-validation that chooses γ.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub cv: CrossValidationParams,
    /// Rounds, seed and level of the metrics' bootstrap intervals.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub bootstrap: BootstrapParams,
}

impl Default for CalibrationParams {
    fn default() -> Self {
        Self {
            standardize: true,
            cv: CrossValidationParams::default(),
            bootstrap: BootstrapParams::default(),
        }
    }
}

/// A fitted, cross-validated head scored against its base judge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub head: HeadKind,
    pub settings: CalibrationParams,
    /// Training rows (lists for Plackett–Luce) and test rows.
    pub n_train: usize,
    pub n_test: usize,
    /// Embedding dimension.
    pub dim: usize,
    /// Mean ± sd of the validation loss per γ, and the γ chosen.
    pub cv: CvCurve,
    pub regression: Option<RegressionComparison>,
    pub classification: Option<ClassificationComparison>,
    /// The model file of the head refitted on all training rows at the chosen γ.
    pub model: HeadFile,
}

/// Class 1 when a probability favours the first response, else 0.
fn preferred(p: f64) -> i64 {
    i64::from(p >= 0.5)
}

/// Classification of pairwise preferences on the rows whose human target is not a tie.
fn preferences(
    human: &[f64],
    head: &[f64],
    base: &[f64],
    bootstrap: &BootstrapParams,
) -> Result<Option<ClassificationComparison>> {
    let rows: Vec<usize> = (0..human.len()).filter(|&i| human[i] != 0.5).collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let pick = |v: &[f64]| rows.iter().map(|&i| preferred(v[i])).collect::<Vec<i64>>();
    compare_classification(
        &pick(human),
        &pick(head),
        &pick(base),
        &[0, 1],
        Averaging::Binary { positive: 1 },
        bootstrap,
    )
    .map(Some)
}

/// The head cross-validated on `data` (or refitted at the chosen γ of a curve given).
fn cross_validated<H: HeadParams>(
    head: &H,
    data: &H::Data,
    cv: &CrossValidationParams,
    curve: Option<CvCurve>,
) -> Result<(H::Fitted, CvCurve)> {
    match curve {
        Some(curve) => refit(head, data, cv, curve),
        None => fit_with_cv(head, data, cv),
    }
}

/// Index of the largest value (the first on a tie).
fn argmax(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, i| if v[i] > v[best] { i } else { best })
}

impl CalibrationParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        self.cv.validate()?;
        self.bootstrap.validate()
    }

    fn ls(&self) -> LsParams {
        LsParams {
            standardize: self.standardize,
            ..LsParams::default()
        }
    }

    fn mn(&self) -> MnParams {
        MnParams {
            standardize: self.standardize,
            ..MnParams::default()
        }
    }

    fn btl(&self) -> BtlParams {
        BtlParams {
            standardize: self.standardize,
            ..BtlParams::default()
        }
    }

    fn btl2(&self) -> Btl2Params {
        Btl2Params {
            standardize: self.standardize,
            ..Btl2Params::default()
        }
    }

    fn plackett_luce(&self) -> PlackettLuceParams {
        PlackettLuceParams {
            standardize: self.standardize,
            ..PlackettLuceParams::default()
        }
    }

    /// The validation losses of the cross-validation folds `folds` of `train` at every γ of
    /// the grid ([`crate::calibration::cross_validation::fold_losses`] with this calibration's head).
    ///
    /// # Errors
    /// Those of the cross-validation and the head.
    pub fn fold_losses(&self, train: &CalibrationData, folds: &[usize]) -> Result<Vec<Vec<f64>>> {
        self.validate()?;
        let cv = &self.cv;
        match train {
            CalibrationData::Ls(d) => fold_losses(&self.ls(), d, cv, folds),
            CalibrationData::Mn(d) => fold_losses(&self.mn(), d, cv, folds),
            CalibrationData::Btl(d) => fold_losses(&self.btl(), d, cv, folds),
            CalibrationData::Btl2(d) => fold_losses(&self.btl2(), d, cv, folds),
            CalibrationData::PlackettLuce(d) => fold_losses(&self.plackett_luce(), d, cv, folds),
        }
    }

    /// Fits the head on `train` with γ chosen by cross-validation and scores it on `test`.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn fit(&self, train: &CalibrationData, test: &CalibrationData) -> Result<Calibration> {
        self.fit_with_curve(train, test, None)
    }

    /// [`CalibrationParams::fit`], with the cross-validation curve of `train` given when it
    /// was computed already (by [`CalibrationParams::fold_losses`] on each fold, joined by
    /// [`CvCurve::from_fold_losses`]); it must be of these settings and rows.
    ///
    /// # Errors
    /// See the module documentation; [`Error::InvalidParam`] for a curve of other settings.
    pub fn fit_with_curve(
        &self,
        train: &CalibrationData,
        test: &CalibrationData,
        curve: Option<CvCurve>,
    ) -> Result<Calibration> {
        self.validate()?;
        let mut curve = curve;
        let (cv, boot) = (&self.cv, &self.bootstrap);
        let seed = Some(cv.seed);
        let (curve, model, regression, classification) = match (train, test) {
            (CalibrationData::Ls(tr), CalibrationData::Ls(te)) => {
                let (head, curve) = cross_validated(&self.ls(), tr, cv, curve.take())?;
                let predicted = head.predict(&te.embeddings, &te.scores)?;
                let regression = compare_regression(&te.labels, &predicted, &te.scores, boot)?;
                let model = HeadFile::new(Head::Ls(head), seed, tr);
                (curve, model, Some(regression), None)
            }
            (CalibrationData::Mn(tr), CalibrationData::Mn(te)) => {
                let (head, curve) = cross_validated(&self.mn(), tr, cv, curve.take())?;
                let predicted = head.predict(&te.embeddings, &te.probabilities)?;
                let base: Vec<i64> = te
                    .probabilities
                    .iter()
                    .map(|p| te.classes[argmax(p)])
                    .collect();
                let expected = |p: &[f64]| {
                    let total: f64 = p.iter().sum();
                    p.iter()
                        .zip(&te.classes)
                        .map(|(p, &c)| p * c as f64)
                        .sum::<f64>()
                        / total
                };
                let truth: Vec<f64> = te.labels.iter().map(|&c| c as f64).collect();
                let head_expected: Vec<f64> = predicted
                    .probabilities
                    .iter()
                    .map(|p| expected(p))
                    .collect();
                let base_expected: Vec<f64> =
                    te.probabilities.iter().map(|p| expected(p)).collect();
                let regression = compare_regression(&truth, &head_expected, &base_expected, boot)?;
                let classification = compare_classification(
                    &te.labels,
                    &predicted.labels,
                    &base,
                    &te.classes,
                    Averaging::Macro,
                    boot,
                )?;
                let model = HeadFile::new(Head::Mn(head), seed, tr);
                (curve, model, Some(regression), Some(classification))
            }
            (CalibrationData::Btl(tr), CalibrationData::Btl(te)) => {
                let (head, curve) = cross_validated(&self.btl(), tr, cv, curve.take())?;
                let predicted = head.predict(&te.embeddings, &te.probabilities)?;
                let regression =
                    compare_regression(&te.labels, &predicted, &te.probabilities, boot)?;
                let classification = preferences(&te.labels, &predicted, &te.probabilities, boot)?;
                let model = HeadFile::new(Head::Btl(head), seed, tr);
                (curve, model, Some(regression), classification)
            }
            (CalibrationData::Btl2(tr), CalibrationData::Btl2(te)) => {
                let (head, curve) = cross_validated(&self.btl2(), tr, cv, curve.take())?;
                let predicted = head.predict(
                    &te.first_embeddings,
                    &te.second_embeddings,
                    &te.first_scores,
                    &te.second_scores,
                )?;
                let base: Vec<f64> = te
                    .first_scores
                    .iter()
                    .zip(&te.second_scores)
                    .map(|(b1, b2)| b1 / (b1 + b2))
                    .collect();
                let regression = compare_regression(&te.labels, &predicted, &base, boot)?;
                let classification = preferences(&te.labels, &predicted, &base, boot)?;
                let model = HeadFile::new(Head::Btl2(head), seed, tr);
                (curve, model, Some(regression), classification)
            }
            (CalibrationData::PlackettLuce(tr), CalibrationData::PlackettLuce(te)) => {
                let (head, curve) = cross_validated(&self.plackett_luce(), tr, cv, curve.take())?;
                let predicted = head.predict(&te.lists)?;
                let right = |best: usize| i64::from(best == 0);
                let head_top: Vec<i64> = predicted.iter().map(|p| right(argmax(p))).collect();
                let base_top: Vec<i64> =
                    te.lists.iter().map(|l| right(argmax(&l.scores))).collect();
                let classification = compare_classification(
                    &vec![1; te.lists.len()],
                    &head_top,
                    &base_top,
                    &[0, 1],
                    Averaging::Binary { positive: 1 },
                    boot,
                )?;
                let model = HeadFile::new(Head::PlackettLuce(head), seed, tr);
                (curve, model, None, Some(classification))
            }
            _ => {
                return Err(Error::param(
                    "test",
                    format!(
                        "expected test rows for the {:?} head, found rows for {:?}",
                        train.kind(),
                        test.kind()
                    ),
                ))
            }
        };
        Ok(Calibration {
            head: train.kind(),
            settings: *self,
            n_train: train.len(),
            n_test: test.len(),
            dim: train.dim(),
            cv: curve,
            regression,
            classification,
            model,
        })
    }
}

// The statistic files that register a kind of their own, declared by the build
// (shared/build.rs).
crate::analysis::kind_modules!("calibration");
