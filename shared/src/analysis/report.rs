//! [`Report`]: what [`run`](super::run) returns, one variant per analysis kind. Serialised, a
//! report is the JSON document its `tribunal stats` subcommand prints (without the `record`),
//! opening with `"analysis"`: the kind, as the spec names it; every count and warning is a
//! field of the typed report, none is patched in afterwards.
//!
//! A report deserialises back into the same variant from any self-describing format that keeps
//! non-finite numbers (the app's page ↔ web-worker messages, CBOR). JSON writes an undefined
//! statistic (NaN) as `null`, which is what a reader of the CLI's document sees; such a
//! document is for reading, not for decoding back into a `Report`.

use crate::calibration::ablation::{Ablation, TrainingCurve};
use crate::calibration::Calibration;
use crate::compare::comparison::Comparison;
use crate::ppi::ppi_report::PpiReport;
use crate::programs::program_report::{CommitteeReport, ProgramReport};
use crate::rankings::conformal::ConformalEvaluationParams;
use crate::rankings::judge_study::{ConformalRun, JudgeStudy};
use crate::rankings::leaderboard::Leaderboard;
use crate::rankings::length_control::LengthControl;
use crate::rankings::scored_battles::JoinSummary;
use crate::rankings::self_preference::SelfPreference;
use crate::rankings::style_control::StyleControl;
use crate::reliability::aa_report::AaReport;
use crate::reliability::consistency_report::ConsistencyReport;
use crate::reliability::irt::irt_report::{IrtCell, IrtReport};
use crate::reliability::position_report::PositionReport;
use crate::reliability::power::SampleSize;
use crate::reliability::reliability_report::AgreementReport;
use crate::reliability::slices::SliceReport;
use serde::{Deserialize, Serialize};

/// The result of one analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "analysis", rename_all = "snake_case")]
pub enum Report {
    Leaderboard(Box<Leaderboard>),
    JudgeStudy(Box<JudgeStudy>),
    Conformal(Box<ConformalReport>),
    Agreement(Box<AgreementWithSlices>),
    Aa(Box<AaReport>),
    Consistency(Box<ConsistencyReport>),
    Position(Box<PositionReport>),
    Irt(Box<IrtReport>),
    IrtTable(Box<IrtTable>),
    Calibration(Box<CalibrationReport>),
    Power(Box<PowerTable>),
    Programs(Box<ProgramsReport>),
    LabelModel(Box<CommitteeReport>),
    Routing(Box<CommitteeReport>),
    Ppi(Box<PpiReport>),
    Style(Box<StyleControl>),
    SelfPreference(Box<SelfPreference>),
    LengthControl(Box<LengthControl>),
    Compare(Box<Comparison>),
}

/// The conformal part of a judge study: per held-out target kind, its held-out accuracy and
/// its conformal run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConformalReport {
    pub source: String,
    pub settings: ConformalEvaluationParams,
    pub n_models: usize,
    pub n_judge_verdicts: usize,
    pub n_human_battles: usize,
    pub join: Option<JoinSummary>,
    pub runs: Vec<ConformalTarget>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
}

/// One target kind of a [`ConformalReport`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConformalTarget {
    pub target: String,
    pub held_out_mae: f64,
    pub held_out_spearman: Option<f64>,
    /// `None` where too few models for α.
    pub conformal: Option<ConformalRun>,
}

impl ConformalReport {
    /// The conformal part of `study`.
    pub fn of(study: &JudgeStudy) -> Self {
        Self {
            source: study.source.clone(),
            settings: study.settings.conformal,
            n_models: study.held_out.n_models,
            n_judge_verdicts: study.n_judge_verdicts,
            n_human_battles: study.n_human_battles,
            join: study.join.clone(),
            runs: study
                .held_out
                .runs
                .iter()
                .zip(&study.conformal)
                .map(|(run, conformal)| ConformalTarget {
                    target: run.name.clone(),
                    held_out_mae: run.mae,
                    held_out_spearman: run.spearman,
                    conformal: conformal.clone(),
                })
                .collect(),
            notes: study.notes.clone(),
            warnings: study.warnings.clone(),
        }
    }
}

/// The agreement report, with the per-slice table when it was asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgreementWithSlices {
    #[serde(flatten)]
    pub report: AgreementReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slices: Option<SliceReport>,
}

/// The IRT report of every judge × criterion of a ratings file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IrtTable {
    /// Always `irt_table`.
    pub statistic: String,
    /// In the file's order; none for a file without a variant column.
    pub cells: Vec<IrtCell>,
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

/// The sample sizes of every effect at every power.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PowerTable {
    /// Always `sample_size`.
    pub statistic: String,
    pub rows: Vec<SampleSize>,
}

/// The programs report with the pairs it escalates, as the items CSV of a judge run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgramsReport {
    #[serde(flatten)]
    pub report: ProgramReport,
    /// The escalated pairs as a judge items CSV (what `--escalate-out` writes).
    pub escalated_items_csv: String,
}
