//! The registry: every analysis kind, once. From this list follow the spec's [`Analysis`]
//! (the kind's settings), the [`Report`] (its result), their names, the dispatch that runs a
//! spec, the roles a spec reads with their dataset kinds, and the examples a form starts from.
//! A kind's [`Kind`] implementation lives in its family's `kinds.rs`; adding a kind is one line
//! here (see ARCHITECTURE.md, "Adding an analysis kind").

use super::kind::{Files, Kind, Roles};
use super::partial::Partial;
use super::warnings::{Warned, Warning};
use crate::io::error::Result;
use serde::{Deserialize, Serialize};

/// Declares [`Analysis`] and [`Report`] with one variant per kind, tied by the kind's
/// [`Kind::Params`] and [`Kind::Report`], and their dispatch.
macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident = $name:literal : $kind:ty,)+) => {
        /// A statistic with every setting: one variant per analysis kind. Serialised, the
        /// kind's name is the `analysis` field and its settings follow.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "analysis")]
        pub enum Analysis {
            $($(#[$doc])* #[serde(rename = $name)] $variant(<$kind as Kind>::Params),)+
        }

        /// The result of one analysis: the variant of its [`Analysis`]. Serialised, a report is
        /// the JSON document its `tribunal stats` subcommand prints (without the `record`),
        /// opening with `"analysis"`: the kind, as the spec names it.
        ///
        /// A report deserialises back into the same variant from any self-describing format
        /// that keeps non-finite numbers (the app's page ↔ web-worker messages, CBOR). JSON
        /// writes an undefined statistic (NaN) as `null`, which is what a reader of the CLI's
        /// document sees; such a document is for reading, not for decoding back.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "analysis")]
        pub enum Report {
            $(#[serde(rename = $name)] $variant(Box<<$kind as Kind>::Report>),)+
        }

        impl Analysis {
            /// Every kind's name, in the registry's order.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The analysis's name, as the spec's `analysis` field spells it.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => $name,)+
                }
            }

            /// Every analysis kind once, with the settings a form starts from
            /// ([`Kind::example`]).
            pub fn each_kind() -> Vec<Self> {
                vec![$(Self::$variant(<$kind as Kind>::example()),)+]
            }

            /// Checks the settings that can be checked without the data ([`Kind::validate`]).
            ///
            /// # Errors
            /// [`Error::InvalidParam`](crate::Error) for a setting out of range.
            pub fn validate(&self) -> Result<()> {
                match self {
                    $(Self::$variant(params) => <$kind as Kind>::validate(params),)+
                }
            }

            /// The files the analysis reads, by role, with their dataset kinds.
            pub fn roles(&self) -> Roles {
                match self {
                    $(Self::$variant(params) => <$kind as Kind>::roles(params),)+
                }
            }

            /// Runs the analysis on checked `files`.
            pub(super) fn run_on(&self, files: &Files) -> Result<Report> {
                Ok(match self {
                    $(Self::$variant(params) => {
                        Report::$variant(Box::new(<$kind as Kind>::run(params, files)?))
                    })+
                })
            }

            /// The number of parts its run comes in ([`Kind::parts`]).
            pub fn parts(&self) -> usize {
                match self {
                    $(Self::$variant(params) => <$kind as Kind>::parts(params),)+
                }
            }

            /// [`Kind::prepare`] on checked `files`.
            pub(super) fn prepare_on(&self, files: &Files) -> Result<Box<dyn std::any::Any>> {
                match self {
                    $(Self::$variant(params) => <$kind as Kind>::prepare(params, files),)+
                }
            }

            /// [`Kind::preview`] of a run prepared by [`Analysis::prepare_on`].
            pub(super) fn preview_of(&self, prepared: &dyn std::any::Any) -> Result<Option<Report>> {
                Ok(match self {
                    $(Self::$variant(params) => <$kind as Kind>::preview(params, prepared)?
                        .map(|report| Report::$variant(Box::new(report))),)+
                })
            }

            /// [`Kind::run_parts`] of a run prepared by [`Analysis::prepare_on`].
            pub(super) fn run_parts_of(
                &self,
                prepared: &dyn std::any::Any,
                range: std::ops::Range<usize>,
                progress: &mut dyn FnMut(usize),
            ) -> Result<Partial> {
                match self {
                    $(Self::$variant(params) => {
                        <$kind as Kind>::run_parts(params, prepared, range, progress)
                    })+
                }
            }

            /// [`Kind::finish`] of a run prepared by [`Analysis::prepare_on`] on `files`.
            pub(super) fn finish_of(
                &self,
                files: &Files,
                prepared: &dyn std::any::Any,
                parts: Vec<Partial>,
            ) -> Result<Report> {
                Ok(match self {
                    $(Self::$variant(params) => Report::$variant(Box::new(
                        <$kind as Kind>::finish(params, files, prepared, parts)?,
                    )),)+
                })
            }
        }

        impl Report {
            /// The analysis's name, as the report's `analysis` field spells it.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => $name,)+
                }
            }

            /// Every warning of the report and of its parts, each with where it was raised
            /// ([`Warned`]).
            pub fn warnings(&self) -> Vec<Warning> {
                match self {
                    $(Self::$variant(report) => report.warnings(),)+
                }
            }
        }
    };
}

registry! {
    /// The Bradley–Terry leaderboard of `battles` (`tribunal stats leaderboard`).
    Leaderboard = "leaderboard": crate::rankings::kinds::LeaderboardKind,
    /// A judge against human labels: both leaderboards, β, the held-out protocol and conformal
    /// intervals (`tribunal stats judge-study`).
    JudgeStudy = "judge_study": crate::rankings::kinds::JudgeStudyKind,
    /// The conformal part of the judge study (`tribunal stats conformal`).
    Conformal = "conformal": crate::rankings::kinds::ConformalKind,
    /// Agreement of the raters of `ratings` and of judges `judge.1` … against their majority
    /// (`tribunal stats agreement`).
    Agreement = "agreement": crate::reliability::kinds::AgreementKind,
    /// The A/A test of two runs of one judge in `ratings` (`tribunal stats aa`).
    Aa = "aa": crate::reliability::kinds::AaKind,
    /// Self-consistency of repeated judgments in `ratings` (`tribunal stats consistency`).
    Consistency = "consistency": crate::reliability::kinds::ConsistencyKind,
    /// Position bias of a pairwise judge in `ratings` (`tribunal stats position`).
    Position = "position": crate::reliability::kinds::PositionKind,
    /// The graded response model of a judge under prompt variants in `ratings`, against the
    /// humans of `human` when given (`tribunal stats irt`).
    Irt = "irt": crate::reliability::kinds::IrtKind,
    /// The IRT report of every judge × criterion of `ratings`, each against the humans of
    /// `human` when given (`tribunal stats irt --each`; the Reliability page's IRT table).
    IrtTable = "irt_table": crate::reliability::kinds::IrtTableKind,
    /// A calibration head fitted on `train` and scored on `test` (`tribunal stats
    /// calibration`).
    Calibration = "calibration": crate::calibration::kinds::CalibrationKind,
    /// Sample sizes to compare two groups (`tribunal stats power`); reads no file.
    Power = "power": crate::reliability::kinds::PowerKind,
    /// Programmatic judges on a `pairs` file, with an LLM judge's verdicts (`llm`), bias
    /// probes (`probes`) and the user's own programs' scores (`user_scores`) when given
    /// (`tribunal stats programs`).
    Programs = "programs": crate::programs::kinds::ProgramsKind,
    /// The label model on a `votes` file (`tribunal stats label-model`).
    LabelModel = "label_model": crate::programs::kinds::LabelModelKind,
    /// Routing a `votes` file's committee to the `llm` judge's verdicts (`tribunal stats
    /// routing`).
    Routing = "routing": crate::programs::kinds::RoutingKind,
    /// Prediction-powered win rates and leaderboard of a labelled-battles file `battles`: the
    /// judge's labels on every battle, human labels on some (`tribunal stats ppi`).
    Ppi = "ppi": crate::ppi::kinds::PpiKind,
    /// What a judge is worth, from the human-labelled rows of a labelled-battles file
    /// `battles`: agreement, ρ, PPI's labels per label and the most any debiasing can save
    /// (`tribunal stats judge-value`).
    JudgeValue = "judge_value": crate::ppi::kinds::JudgeValueKind,
    /// The leaderboard of `battles` with style held fixed (contextual Bradley–Terry), beside
    /// the raw one; features from the pairs' `answers` or the battles' own columns (`tribunal
    /// stats style`).
    Style = "style": crate::rankings::kinds::StyleKind,
    /// Whether a judge favours its own model family beyond the humans' ratings of it: with
    /// `key`, the `human` and `judge` battles files joined on that column; without, one
    /// `scored_battles` file (`tribunal stats self-preference`).
    SelfPreference = "self_preference": crate::rankings::kinds::SelfPreferenceKind,
    /// AlpacaEval's length-controlled win rates of `battles` (with answer lengths) against a
    /// baseline (`tribunal stats length-control`).
    LengthControl = "length_control": crate::rankings::kinds::LengthControlKind,
    /// Systems compared on the pointwise scores of `scores`: each system's mean or pass rate,
    /// paired differences, slices and judge-corrected rates (`tribunal stats compare`).
    Compare = "compare": crate::compare::kinds::CompareKind,
    /// A cascade of judges on `judgments`, each keeping the items it is confident on with a
    /// guaranteed agreement with humans, the rest left to humans (`tribunal stats cascade`).
    Cascade = "cascade": crate::selective::kinds::CascadeKind,
    /// How often the majority verdicts of `battles` go round in a circle (cyclic triads),
    /// within each group of a column when given (`tribunal stats transitivity`).
    Transitivity = "transitivity": crate::rankings::kinds::TransitivityKind,
}
