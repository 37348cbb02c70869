//! The calibration family's analysis kind ([`Kind`]): a head fitted on `train` and scored on
//! `test`, with embeddings from array files when given, an ablation of both files and the
//! training-size curve when asked for.

use crate::analysis::kind::{prepared, register_kind, File, Files, Kind, Roles};
use crate::analysis::partial::Partial;
use crate::calibration::ablation::{Ablation, TrainingCurve, TrainingCurveParams};
use crate::calibration::calibration_data::{
    parse_calibration, parse_calibration_with_embeddings, CalibrationData, HeadKind,
};
use crate::calibration::cross_validation::CvCurve;
use crate::calibration::{Calibration, CalibrationParams};
use crate::io::dataset_kind::DatasetKind;
use crate::io::embedding_file::read_embeddings;
use crate::io::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::ops::Range;

/// A calibration's settings: the head, the fit (cross-validated γ, bootstrap), an ablation of
/// both files before fitting, and the training-size curve when wanted.
///
/// As command-line options (feature `cli`) the bootstrap's `--seed` is the one seed: a caller
/// gives it to every part with [`CalibrationSpec::seeded`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CalibrationSpec {
    /// Head: `ls`, `mn`, `btl`, `btl2` or `pl` (Plackett–Luce); the CSV columns follow it.
    #[cfg_attr(feature = "cli", arg(long))]
    pub head: HeadKind,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub calibration: CalibrationParams,
    /// Ablate before fitting: `no-score`, `no-embedding`, or `drop:F` (drop a fraction F of the
    /// embedding coordinates, drawn with the seed).
    #[cfg_attr(feature = "cli", arg(long, value_name = "ABLATION"))]
    pub ablation: Option<Ablation>,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub training_curve: Option<TrainingCurveParams>,
}

impl CalibrationSpec {
    /// The spec with `seed` as the seed of every part: the folds, the bootstrap, the dropped
    /// coordinates and the training-size subsets.
    #[must_use]
    pub fn seeded(mut self, seed: u64) -> Self {
        self.calibration.cv.seed = seed;
        self.calibration.bootstrap.seed = seed;
        if let Some(Ablation::DropFeatures { seed: s, .. }) = &mut self.ablation {
            *s = seed;
        }
        if let Some(curve) = &mut self.training_curve {
            curve.seed = seed;
        }
        self
    }
}

/// A calibration, the ablation applied to its files (if any) and its training-size curve
/// (when asked for).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationReport {
    #[serde(flatten)]
    pub calibration: Calibration,
    pub ablation: Option<Ablation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub training_curve: Option<TrainingCurve>,
}

register_kind! {
    /// A calibration head fitted on `train` and scored on `test` (`tribunal stats
    /// calibration`).
    10 Calibration = "calibration": CalibrationKind
}

impl CalibrationSpec {
    /// The rows of a calibration file, with its embeddings from `embedding` when given (`dim`:
    /// the training rows' width, which the test rows must have).
    fn read(
        &self,
        input: File,
        embedding: Option<File>,
        dim: Option<usize>,
    ) -> Result<CalibrationData> {
        match embedding {
            Some(file) => {
                let rows = read_embeddings(file.name, file.bytes)?;
                parse_calibration_with_embeddings(
                    input.name,
                    input.bytes,
                    self.head,
                    dim,
                    (file.name, &rows),
                )
            }
            None => parse_calibration(input.name, input.bytes, self.head, dim),
        }
    }
}

impl Kind for CalibrationKind {
    type Params = CalibrationSpec;
    type Report = CalibrationReport;

    /// An LS head with the default fit.
    fn example() -> CalibrationSpec {
        CalibrationSpec {
            head: HeadKind::Ls,
            calibration: CalibrationParams::default(),
            ablation: None,
            training_curve: None,
        }
    }

    fn roles(_: &CalibrationSpec) -> Roles {
        Roles::none()
            .required("train", DatasetKind::Calibration)
            .required("test", DatasetKind::Calibration)
            .optional("train_embeddings", DatasetKind::Embeddings)
            .optional("test_embeddings", DatasetKind::Embeddings)
    }

    fn validate(spec: &CalibrationSpec) -> Result<()> {
        spec.calibration.validate()
    }

    fn run(params: &CalibrationSpec, files: &Files) -> Result<CalibrationReport> {
        let (train, test) = params.rows(files)?;
        let calibration = params.calibration.fit(&train, &test)?;
        params.report(calibration, &train, &test)
    }

    /// One part per cross-validation fold.
    fn parts(params: &CalibrationSpec) -> usize {
        params.calibration.cv.folds
    }

    /// The training and test rows.
    fn prepare(params: &CalibrationSpec, files: &Files) -> Result<Box<dyn Any>> {
        Ok(Box::new(params.rows(files)?))
    }

    fn run_parts(
        params: &CalibrationSpec,
        state: &dyn Any,
        range: Range<usize>,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Partial> {
        let (train, _) = prepared::<(CalibrationData, CalibrationData)>(state)?;
        let mut losses = Vec::with_capacity(range.len());
        for fold in range {
            losses.extend(params.calibration.fold_losses(train, &[fold])?);
            progress(1);
        }
        Ok(Partial::FoldLosses(losses))
    }

    fn finish(
        params: &CalibrationSpec,
        _: &Files,
        state: &dyn Any,
        parts: Vec<Partial>,
    ) -> Result<CalibrationReport> {
        let (train, test) = prepared::<(CalibrationData, CalibrationData)>(state)?;
        let curve = CvCurve::from_fold_losses(
            &params.calibration.cv,
            train.len(),
            Partial::fold_losses(parts)?,
        )?;
        let calibration = params
            .calibration
            .fit_with_curve(train, test, Some(curve))?;
        params.report(calibration, train, test)
    }
}

impl CalibrationSpec {
    /// The training and test rows of `files`, with their embeddings from the array files when
    /// given and the ablation applied.
    fn rows(&self, files: &Files) -> Result<(CalibrationData, CalibrationData)> {
        let (train, test) = (files.get("train")?, files.get("test")?);
        let embeddings =
            match (
                files.optional("train_embeddings"),
                files.optional("test_embeddings"),
            ) {
                (Some(train), Some(test)) => Some((train, test)),
                (None, None) => None,
                _ => return Err(Error::param(
                    "inputs",
                    "give embedding files for both `train` and `test` (roles `train_embeddings` \
                     and `test_embeddings`), or for neither",
                )),
            };
        let mut train_rows = self.read(train, embeddings.map(|e| e.0), None)?;
        let mut test_rows = self.read(test, embeddings.map(|e| e.1), Some(train_rows.dim()))?;
        if let Some(ablation) = &self.ablation {
            train_rows = ablation.apply(&train_rows)?;
            test_rows = ablation.apply(&test_rows)?;
        }
        Ok((train_rows, test_rows))
    }

    /// The report of `calibration`, with the training-size curve when asked for.
    fn report(
        &self,
        calibration: Calibration,
        train: &CalibrationData,
        test: &CalibrationData,
    ) -> Result<CalibrationReport> {
        let training_curve = self
            .training_curve
            .as_ref()
            .map(|curve| curve.fit(&self.calibration, train, test))
            .transpose()?;
        Ok(CalibrationReport {
            calibration,
            ablation: self.ablation,
            training_curve,
        })
    }
}

impl crate::analysis::warnings::Warned for CalibrationReport {
    fn warnings(&self) -> Vec<crate::analysis::warnings::Warning> {
        Vec::new()
    }
}
