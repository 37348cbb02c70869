//! [`Spec`]: one analysis with every setting and its inputs by role.

use super::inputs::{InputRef, Inputs};
use crate::calibration::ablation::{Ablation, TrainingCurveParams};
use crate::calibration::calibration_data::HeadKind;
use crate::calibration::CalibrationParams;
use crate::compare::comparison::CompareParams;
use crate::io::error::{Error, Result};
use crate::math::resample::{cluster_labels, BootstrapParams};
use crate::ppi::ppi_report::PpiParams;
use crate::programs::program_report::ProgramReportParams;
use crate::rankings::anchor::Anchor;
use crate::rankings::battles::{parse_battles, parse_battles_with_column, Battles};
use crate::rankings::bradley_terry::BradleyTerryParams;
use crate::rankings::judge_study::JudgeStudyParams;
use crate::rankings::length_control::LengthControlParams;
use crate::rankings::self_preference::SelfPreferenceParams;
use crate::rankings::style_control::StyleControlParams;
use crate::reliability::aa_report::AaReportParams;
use crate::reliability::consistency_report::ConsistencyReportParams;
use crate::reliability::irt::irt_report::IrtReportParams;
use crate::reliability::position_report::PositionReportParams;
use crate::reliability::power::{Alternative, Effect};
use crate::reliability::reliability_report::AgreementReportParams;
use crate::reliability::slices::SliceParams;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The spec layout this crate writes and reads.
pub const SPEC_VERSION: u32 = 1;

/// An analysis with its inputs: what a saved analysis, a share link and `tribunal stats run`
/// recompute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    /// [`SPEC_VERSION`] when written.
    pub version: u32,
    /// The statistic and its settings (`"analysis": "leaderboard", …`).
    #[serde(flatten)]
    pub analysis: Analysis,
    /// Role → the file read in that role.
    pub inputs: BTreeMap<String, InputRef>,
}

impl Spec {
    /// `analysis` on `inputs` (their content hashes and names become the spec's inputs).
    pub fn new(analysis: Analysis, inputs: &Inputs) -> Self {
        Self {
            version: SPEC_VERSION,
            analysis,
            inputs: inputs.refs(),
        }
    }

    /// The spec's version is this crate's, its roles are its analysis's, and `inputs` are the
    /// same files (role for role, content hash for content hash).
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming what differs.
    pub fn check(&self, inputs: &Inputs) -> Result<()> {
        if self.version != SPEC_VERSION {
            return Err(Error::param(
                "version",
                format!(
                    "this build reads analysis specs of version {SPEC_VERSION}, found {}",
                    self.version
                ),
            ));
        }
        self.analysis.roles().check(self.inputs.keys())?;
        inputs.check_against(&self.inputs)
    }
}

/// The roles of an analysis's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roles {
    pub required: Vec<String>,
    pub optional: Vec<String>,
}

impl Roles {
    fn new(required: &[&str], optional: &[&str]) -> Self {
        let owned = |roles: &[&str]| roles.iter().map(|r| (*r).to_owned()).collect();
        Self {
            required: owned(required),
            optional: owned(optional),
        }
    }

    /// Every required role is among `given`, and every given role is a role of the analysis.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming the missing or unknown role.
    pub fn check<'a>(&self, given: impl Iterator<Item = &'a String> + Clone) -> Result<()> {
        let expected = || {
            let mut all: Vec<String> = self.required.clone();
            all.extend(self.optional.iter().map(|r| format!("{r} (optional)")));
            if all.is_empty() {
                "no input files".to_owned()
            } else {
                format!("the roles {}", all.join(", "))
            }
        };
        if let Some(missing) = self
            .required
            .iter()
            .find(|r| !given.clone().any(|g| g == *r))
        {
            return Err(Error::param(
                "inputs",
                format!("no file in the role `{missing}`; expected {}", expected()),
            ));
        }
        if let Some(unknown) = given
            .clone()
            .find(|g| !self.required.contains(g) && !self.optional.contains(g))
        {
            return Err(Error::param(
                "inputs",
                format!("unknown role `{unknown}`; expected {}", expected()),
            ));
        }
        Ok(())
    }
}

/// A statistic with every setting: one variant per analysis kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "analysis", rename_all = "snake_case")]
pub enum Analysis {
    /// The Bradley–Terry leaderboard of `battles` (`tribunal stats bt`).
    Leaderboard(LeaderboardSpec),
    /// A judge against human labels: both leaderboards, β, the held-out protocol and conformal
    /// intervals (`tribunal stats soft-elo`).
    JudgeStudy(StudySpec),
    /// The conformal part of the judge study (`tribunal stats conformal`).
    Conformal(StudySpec),
    /// Agreement of the raters of `ratings` and of judges `judge.1` … against their majority
    /// (`tribunal stats agree`).
    Agreement(AgreementSpec),
    /// The A/A test of two runs of one judge in `ratings` (`tribunal stats aa`).
    Aa(AaReportParams),
    /// Self-consistency of repeated judgments in `ratings` (`tribunal stats consistency`).
    Consistency(ConsistencyReportParams),
    /// Position bias of a pairwise judge in `ratings` (`tribunal stats position`).
    Position(PositionReportParams),
    /// The graded response model of a judge under prompt variants in `ratings`, against the
    /// humans of `human` when given (`tribunal stats irt`).
    Irt(IrtReportParams),
    /// The IRT report of every judge × criterion of `ratings`, each against the humans of
    /// `human` when given (`tribunal stats irt --each`; the Reliability page's IRT table).
    IrtTable(IrtReportParams),
    /// A calibration head fitted on `train` and scored on `test` (`tribunal stats calibrate`).
    Calibration(CalibrationSpec),
    /// Sample sizes to compare two groups (`tribunal stats power`); reads no file.
    Power(PowerSpec),
    /// Programmatic judges on a `pairs` file, with an LLM judge's verdicts (`llm`), bias
    /// probes (`probes`) and the user's own programs' scores (`user_scores`) when given
    /// (`tribunal stats programs`).
    Programs(ProgramReportParams),
    /// The label model on a `votes` file (`tribunal stats label-model`).
    LabelModel(ProgramReportParams),
    /// Routing a `votes` file's committee to the `llm` judge's verdicts (`tribunal stats route`).
    Routing(ProgramReportParams),
    /// Prediction-powered win rates and leaderboard of a labelled-battles file `battles`: the
    /// judge's labels on every battle, human labels on some (`tribunal stats ppi`).
    Ppi(PpiParams),
    /// The leaderboard of `battles` with style held fixed (contextual Bradley–Terry), beside
    /// the raw one; features from the pairs' `answers` or the battles' own columns (`tribunal
    /// stats style`).
    Style(StyleSpec),
    /// Whether a judge favours its own model family beyond the humans' ratings of it: with
    /// `key`, the `human` and `judge` battles files joined on that column; without, one
    /// `scored_battles` file (`tribunal stats self-preference`).
    SelfPreference(SelfPreferenceSpec),
    /// AlpacaEval's length-controlled win rates of `battles` (with answer lengths) against a
    /// baseline (`tribunal stats lc`).
    LengthControl(LengthControlParams),
    /// Systems compared on the pointwise scores of `scores`: each system's mean or pass rate,
    /// paired differences, slices and judge-corrected rates (`tribunal stats compare`).
    Compare(CompareParams),
}

impl Analysis {
    /// The analysis's name, as the spec's `analysis` field spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Leaderboard(_) => "leaderboard",
            Self::JudgeStudy(_) => "judge_study",
            Self::Conformal(_) => "conformal",
            Self::Agreement(_) => "agreement",
            Self::Aa(_) => "aa",
            Self::Consistency(_) => "consistency",
            Self::Position(_) => "position",
            Self::Irt(_) => "irt",
            Self::IrtTable(_) => "irt_table",
            Self::Calibration(_) => "calibration",
            Self::Power(_) => "power",
            Self::Programs(_) => "programs",
            Self::LabelModel(_) => "label_model",
            Self::Routing(_) => "routing",
            Self::Ppi(_) => "ppi",
            Self::Style(_) => "style",
            Self::SelfPreference(_) => "self_preference",
            Self::LengthControl(_) => "length_control",
            Self::Compare(_) => "compare",
        }
    }

    /// Every analysis kind once, with its default settings: the starting point of a form that
    /// edits a spec. The settings that have no default are filled with an example to edit: the
    /// A/A test's two runs `run_1` and `run_2`, a calibration's LS head, and a power table for a
    /// pass rate of 0.7 against 0.8 at 80 % power.
    pub fn each_kind() -> Vec<Self> {
        let program = ProgramReportParams::default;
        vec![
            Self::Leaderboard(LeaderboardSpec::default()),
            Self::JudgeStudy(StudySpec {
                key: Some("id".to_owned()),
                ..StudySpec::default()
            }),
            Self::Conformal(StudySpec {
                key: Some("id".to_owned()),
                ..StudySpec::default()
            }),
            Self::Agreement(AgreementSpec::default()),
            Self::Aa(AaReportParams {
                columns: Default::default(),
                ratings: Default::default(),
                runs: ("run_1".to_owned(), "run_2".to_owned()),
                gold: None,
                pass: None,
                criterion: None,
                variant: None,
                test: Default::default(),
            }),
            Self::Consistency(ConsistencyReportParams::default()),
            Self::Position(PositionReportParams::default()),
            Self::Irt(IrtReportParams::default()),
            Self::IrtTable(IrtReportParams::default()),
            Self::Calibration(CalibrationSpec {
                head: HeadKind::Ls,
                calibration: CalibrationParams::default(),
                ablation: None,
                training_curve: None,
            }),
            Self::Power(PowerSpec {
                effects: vec![Effect::Proportions { p1: 0.7, p2: 0.8 }],
                powers: vec![0.8],
                alpha: 0.05,
                ratio: 1.0,
                alternative: Alternative::TwoSided,
            }),
            Self::Programs(program()),
            Self::LabelModel(program()),
            Self::Routing(program()),
            Self::Ppi(PpiParams::default()),
            Self::Style(StyleSpec::default()),
            Self::SelfPreference(SelfPreferenceSpec {
                key: Some("id".to_owned()),
                self_preference: SelfPreferenceParams {
                    family: ["GPT 4", "GPT 3.5 Turbo", "GPT 3.5 Turbo (16k)"]
                        .map(str::to_owned)
                        .to_vec(),
                    ..SelfPreferenceParams::default()
                },
            }),
            Self::LengthControl(LengthControlParams::default()),
            Self::Compare(CompareParams::default()),
        ]
    }

    /// Checks the settings that can be checked without the data (a saved analysis is refused
    /// up front rather than failing when opened); the rest are checked when it runs.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for a setting out of range.
    pub fn validate(&self) -> Result<()> {
        match self {
            Self::Leaderboard(board) => {
                board.bradley_terry.validate()?;
                if board.bootstrap.rounds > 0 {
                    board.bootstrap.validate()?;
                }
                Ok(())
            }
            Self::JudgeStudy(study) | Self::Conformal(study) => study.study.validate(),
            Self::Calibration(calibration) => calibration.calibration.validate(),
            Self::Ppi(params) => params.validate(),
            Self::Style(spec) => spec.style.validate(),
            Self::SelfPreference(spec) => spec.self_preference.validate(),
            Self::LengthControl(params) => params.validate(),
            Self::Compare(params) => params.validate(),
            Self::Agreement(_)
            | Self::Aa(_)
            | Self::Consistency(_)
            | Self::Position(_)
            | Self::Irt(_)
            | Self::IrtTable(_)
            | Self::Power(_)
            | Self::Programs(_)
            | Self::LabelModel(_)
            | Self::Routing(_) => Ok(()),
        }
    }

    /// The roles of the files the analysis reads.
    pub fn roles(&self) -> Roles {
        match self {
            Self::Leaderboard(_) => Roles::new(&["battles"], &[]),
            Self::JudgeStudy(study) | Self::Conformal(study) => match study.key {
                Some(_) => Roles::new(&["human", "judge"], &[]),
                None => Roles::new(&["scored_battles"], &[]),
            },
            Self::Agreement(agreement) => {
                let mut roles = Roles::new(&["ratings"], &[]);
                roles
                    .required
                    .extend((1..=agreement.judges).map(AgreementSpec::judge_role));
                roles
            }
            Self::Aa(_) | Self::Consistency(_) | Self::Position(_) => Roles::new(&["ratings"], &[]),
            Self::Irt(_) | Self::IrtTable(_) => Roles::new(&["ratings"], &["human"]),
            Self::Calibration(_) => {
                Roles::new(&["train", "test"], &["train_embeddings", "test_embeddings"])
            }
            Self::Power(_) => Roles::new(&[], &[]),
            Self::Programs(_) => Roles::new(&["pairs"], &["llm", "probes", "user_scores"]),
            Self::LabelModel(_) => Roles::new(&["votes"], &[]),
            Self::Routing(_) => Roles::new(&["votes", "llm"], &[]),
            Self::Ppi(_) => Roles::new(&["battles"], &[]),
            Self::Style(_) => Roles::new(&["battles"], &["answers"]),
            Self::SelfPreference(spec) => match spec.key {
                Some(_) => Roles::new(&["human", "judge"], &[]),
                None => Roles::new(&["scored_battles"], &[]),
            },
            Self::LengthControl(_) => Roles::new(&["battles"], &[]),
            Self::Compare(_) => Roles::new(&["scores"], &["gold"]),
        }
    }
}

/// A self-preference test's settings: with `key`, the `human` and `judge` battles files joined
/// on that column; without, one `scored_battles` file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SelfPreferenceSpec {
    pub key: Option<String>,
    #[serde(flatten)]
    pub self_preference: SelfPreferenceParams,
}

/// Style control's settings: the fit, and where each battle's features come from — with an
/// `answers` file, the style differences of the pair its `key` column names; without, the
/// battles file's numeric `columns`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StyleSpec {
    #[serde(flatten)]
    pub style: StyleControlParams,
    /// The battles file's column naming each battle's pair in `answers`.
    pub key: String,
    /// The battles file's feature columns, read when no `answers` file is given.
    pub columns: Vec<String>,
}

impl Default for StyleSpec {
    fn default() -> Self {
        Self {
            style: StyleControlParams::default(),
            key: "id".to_owned(),
            columns: Vec::new(),
        }
    }
}

/// The leaderboard's settings. No bootstrap when `bootstrap.rounds` is 0.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LeaderboardSpec {
    pub bradley_terry: BradleyTerryParams,
    pub bootstrap: BootstrapParams,
    /// Resample clusters of battles given by this column (e.g. `prompt`) instead of battles.
    pub cluster: Option<String>,
    /// One model's fixed Elo: ratings, SEs and intervals become differences against it.
    pub anchor: Option<Anchor>,
}

impl LeaderboardSpec {
    /// The battles of a battles file, and with [`LeaderboardSpec::cluster`] each battle's
    /// cluster (the column's values, numbered in sorted order) for the bootstrap.
    ///
    /// # Errors
    /// The file's located parse errors; a missing cluster column.
    pub fn battles(&self, source: &str, bytes: &[u8]) -> Result<(Battles, Option<Vec<usize>>)> {
        match &self.cluster {
            Some(column) => {
                let (battles, values) = parse_battles_with_column(source, bytes, column)?;
                Ok((battles, Some(cluster_labels(&values))))
            }
            None => Ok((parse_battles(source, bytes)?, None)),
        }
    }
}

/// A judge study's settings: with `key`, the `human` and `judge` battles files joined on that
/// column; without, one `scored_battles` file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StudySpec {
    pub key: Option<String>,
    pub study: JudgeStudyParams,
}

/// The agreement report's settings, the number of judge files (roles `judge.1` … `judge.N`,
/// each file's rater named after the file unless it has a rater column) and the per-slice
/// table's when wanted.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AgreementSpec {
    pub report: AgreementReportParams,
    pub judges: usize,
    pub slices: Option<SliceParams>,
}

impl AgreementSpec {
    /// The role of the `i`-th judge file (from 1).
    pub fn judge_role(i: usize) -> String {
        format!("judge.{i}")
    }
}

/// A calibration's settings: the head, the fit (cross-validated γ, bootstrap), an ablation of
/// both files before fitting, and the training-size curve when wanted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationSpec {
    pub head: HeadKind,
    pub calibration: CalibrationParams,
    pub ablation: Option<Ablation>,
    pub training_curve: Option<TrainingCurveParams>,
}

/// A sample-size table: every effect at every wanted power.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PowerSpec {
    pub effects: Vec<Effect>,
    pub powers: Vec<f64>,
    /// Significance level of the test.
    pub alpha: f64,
    /// Size of the second group over the first.
    pub ratio: f64,
    pub alternative: Alternative,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_names_every_analysis_once_with_settings_that_validate_and_round_trip() {
        let kinds = Analysis::each_kind();
        let names: Vec<&str> = kinds.iter().map(Analysis::name).collect();
        assert_eq!(
            names,
            [
                "leaderboard",
                "judge_study",
                "conformal",
                "agreement",
                "aa",
                "consistency",
                "position",
                "irt",
                "irt_table",
                "calibration",
                "power",
                "programs",
                "label_model",
                "routing",
                "ppi",
                "style",
                "self_preference",
                "length_control",
                "compare"
            ]
        );
        for analysis in &kinds {
            analysis.validate().unwrap();
            let json = serde_json::to_string(analysis).unwrap();
            assert!(json.starts_with(&format!("{{\"analysis\":\"{}\"", analysis.name())));
            let back: Analysis = serde_json::from_str(&json).unwrap();
            assert_eq!(&back, analysis);
        }
        // The study reads two battles files joined on `id`, as a judge run's battles are.
        assert_eq!(kinds[1].roles().required, ["human", "judge"]);
    }
}
