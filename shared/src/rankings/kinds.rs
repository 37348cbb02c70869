//! The rankings family's analysis kinds ([`Kind`]): the leaderboard, the judge study and its
//! conformal part, style control, self-preference, and length control — each reading its files
//! by role and calling its statistic.

use crate::analysis::kind::{prepared, register_kind, File, Files, Kind, Roles};
use crate::analysis::partial::Partial;
use crate::io::dataset_kind::DatasetKind;
use crate::io::error::{Error, Result};
use crate::math::resample::{cluster_labels, BootstrapParams};
use crate::rankings::anchor::Anchor;
use crate::rankings::battles::{parse_battles, parse_battles_with_column, Battles};
use crate::rankings::bradley_terry::BradleyTerryParams;
use crate::rankings::bt_bootstrap::{BtBootstrapParams, BtBootstrapPlan};
use crate::rankings::conformal::ConformalEvaluationParams;
use crate::rankings::judge_study::{ConformalRun, JudgeStudy, JudgeStudyParams};
use crate::rankings::leaderboard::{bradley_terry_leaderboard, Leaderboard};
use crate::rankings::length_battles::parse_length_battles;
use crate::rankings::length_control::{LengthControl, LengthControlParams};
use crate::rankings::scored_battles::{join_battle_files, parse_scored_battles, JoinSummary};
use crate::rankings::self_preference::{SelfPreference, SelfPreferenceParams};
use crate::rankings::style_control::{StyleControl, StyleControlParams};
use crate::rankings::styled_battles::{styled_by_answers, styled_by_columns};
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::cell::OnceCell;
use std::ops::Range;

/// The leaderboard's settings (`tribunal stats leaderboard`'s options). No bootstrap when
/// `bootstrap.rounds` is 0.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct LeaderboardSpec {
    #[cfg_attr(feature = "cli", command(flatten))]
    pub bradley_terry: BradleyTerryParams,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub bootstrap: BootstrapParams,
    /// Resample clusters of battles given by this column (e.g. `prompt`) instead of battles.
    #[cfg_attr(feature = "cli", arg(long))]
    pub cluster: Option<String>,
    /// One model's fixed Elo, e.g. `gpt-4=1200`: ratings, SEs and intervals become differences
    /// against it.
    #[cfg_attr(feature = "cli", arg(long, value_name = "MODEL=ELO"))]
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

register_kind! {
    /// The Bradley–Terry leaderboard of `battles` (`tribunal stats leaderboard`).
    1 Leaderboard = "leaderboard": LeaderboardKind
}

impl Kind for LeaderboardKind {
    type Params = LeaderboardSpec;
    type Report = Leaderboard;

    fn example() -> LeaderboardSpec {
        LeaderboardSpec::default()
    }

    fn roles(_: &LeaderboardSpec) -> Roles {
        Roles::none().required("battles", DatasetKind::Battles)
    }

    fn validate(board: &LeaderboardSpec) -> Result<()> {
        board.bradley_terry.validate()?;
        if board.bootstrap.rounds > 0 {
            board.bootstrap.validate()?;
        }
        Ok(())
    }

    fn run(params: &LeaderboardSpec, files: &Files) -> Result<Leaderboard> {
        let (battles, clusters, board) = params.point(files)?;
        if params.bootstrap.rounds == 0 {
            return Ok(board);
        }
        let plan = params.plan(&battles, clusters.as_deref())?;
        board.with_bootstrap(&plan.summarise(&plan.rounds(0..params.bootstrap.rounds)?)?)
    }

    /// One part per bootstrap round.
    fn parts(params: &LeaderboardSpec) -> usize {
        params.bootstrap.rounds
    }

    /// The battles and the bootstrap's plan; the point leaderboard once a preview or the
    /// finish needs it (a worker that only runs rounds never fits it).
    fn prepare(params: &LeaderboardSpec, files: &Files) -> Result<Box<dyn Any>> {
        let input = files.get("battles")?;
        let (battles, clusters) = params.battles(input.name, input.bytes)?;
        let plan = match params.bootstrap.rounds {
            0 => None,
            _ => Some(params.plan(&battles, clusters.as_deref())?),
        };
        Ok(Box::new(PreparedBoard {
            source: input.name.to_owned(),
            battles,
            board: OnceCell::new(),
            plan,
        }))
    }

    /// The point leaderboard, without intervals.
    fn preview(params: &LeaderboardSpec, state: &dyn Any) -> Result<Option<Leaderboard>> {
        Ok(Some(
            prepared::<PreparedBoard>(state)?.board(params)?.clone(),
        ))
    }

    fn run_parts(
        _: &LeaderboardSpec,
        state: &dyn Any,
        range: Range<usize>,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Partial> {
        let mut replicates = Vec::with_capacity(range.len());
        let Some(plan) = &prepared::<PreparedBoard>(state)?.plan else {
            return Ok(Partial::Replicates(replicates));
        };
        let mut from = range.start;
        while from < range.end {
            let to = (from + ROUNDS_PER_PROGRESS).min(range.end);
            replicates.extend(plan.rounds(from..to)?);
            progress(to - from);
            from = to;
        }
        Ok(Partial::Replicates(replicates))
    }

    fn finish(
        params: &LeaderboardSpec,
        _: &Files,
        state: &dyn Any,
        parts: Vec<Partial>,
    ) -> Result<Leaderboard> {
        let state = prepared::<PreparedBoard>(state)?;
        let replicates = Partial::replicates(parts)?;
        if replicates.len() != params.bootstrap.rounds {
            return Err(Error::param(
                "parts",
                format!(
                    "expected {} bootstrap rounds, found {}",
                    params.bootstrap.rounds,
                    replicates.len()
                ),
            ));
        }
        let board = state.board(params)?.clone();
        match &state.plan {
            Some(plan) => board.with_bootstrap(&plan.summarise(&replicates)?),
            None => Ok(board),
        }
    }
}

/// A leaderboard's run read once: its battles, the point leaderboard once fitted and, with
/// rounds, the bootstrap.
struct PreparedBoard {
    source: String,
    battles: Battles,
    board: OnceCell<Leaderboard>,
    plan: Option<BtBootstrapPlan>,
}

impl PreparedBoard {
    /// The point leaderboard (anchored when asked for), fitted on first use.
    fn board(&self, params: &LeaderboardSpec) -> Result<&Leaderboard> {
        if let Some(board) = self.board.get() {
            return Ok(board);
        }
        let board = params.point_of(&self.source, &self.battles)?;
        Ok(self.board.get_or_init(|| board))
    }
}

/// Bootstrap rounds between two progress calls of [`LeaderboardKind::run_parts`].
const ROUNDS_PER_PROGRESS: usize = 25;

impl LeaderboardSpec {
    /// The battles of the `battles` file, their clusters, and the point leaderboard.
    fn point(&self, files: &Files) -> Result<(Battles, Option<Vec<usize>>, Leaderboard)> {
        let input = files.get("battles")?;
        let (battles, clusters) = self.battles(input.name, input.bytes)?;
        let board = self.point_of(input.name, &battles)?;
        Ok((battles, clusters, board))
    }

    /// The point leaderboard of `battles` from `source` (anchored when asked for).
    fn point_of(&self, source: &str, battles: &Battles) -> Result<Leaderboard> {
        let board = bradley_terry_leaderboard(source, battles, &self.bradley_terry)?;
        match &self.anchor {
            Some(anchor) => board.anchored(anchor, battles),
            None => Ok(board),
        }
    }

    /// The bootstrap of `battles` (clustered and anchored as the spec says).
    fn plan(&self, battles: &Battles, clusters: Option<&[usize]>) -> Result<BtBootstrapPlan> {
        let plan = BtBootstrapParams {
            bt: self.bradley_terry,
            bootstrap: self.bootstrap,
        }
        .plan(battles, clusters)?;
        match &self.anchor {
            Some(anchor) => plan.anchored(anchor),
            None => Ok(plan),
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

/// The files of a study or a self-preference test: two battles files joined on `key`, or one
/// scored-battles file.
fn joined_or_scored(key: &Option<String>) -> Roles {
    match key {
        Some(_) => Roles::none()
            .required("human", DatasetKind::Battles)
            .required("judge", DatasetKind::Battles),
        None => Roles::none().required("scored_battles", DatasetKind::ScoredBattles),
    }
}

/// The study with `params` on its files.
fn study(params: &StudySpec, files: &Files) -> Result<JudgeStudy> {
    match &params.key {
        Some(key) => {
            let (human, judge) = (files.get("human")?, files.get("judge")?);
            let (source, joined) =
                join_battle_files((human.name, human.bytes), (judge.name, judge.bytes), key)?;
            params.study.fit_joined(&source, &joined)
        }
        None => {
            let input = files.get("scored_battles")?;
            let data = parse_scored_battles(input.name, input.bytes)?;
            params.study.fit(input.name, &data)
        }
    }
}

/// A judge study's example: two battles files joined on `id`, as a judge run's battles are.
fn study_example() -> StudySpec {
    StudySpec {
        key: Some("id".to_owned()),
        ..StudySpec::default()
    }
}

register_kind! {
    /// A judge against human labels: both leaderboards, β, the held-out protocol and conformal
    /// intervals (`tribunal stats judge-study`).
    2 JudgeStudy = "judge_study": JudgeStudyKind
}

impl Kind for JudgeStudyKind {
    type Params = StudySpec;
    type Report = JudgeStudy;

    fn example() -> StudySpec {
        study_example()
    }

    fn roles(params: &StudySpec) -> Roles {
        joined_or_scored(&params.key)
    }

    fn validate(params: &StudySpec) -> Result<()> {
        params.study.validate()
    }

    fn run(params: &StudySpec, files: &Files) -> Result<JudgeStudy> {
        study(params, files)
    }
}

register_kind! {
    /// The conformal part of the judge study (`tribunal stats conformal`).
    3 Conformal = "conformal": ConformalKind
}

impl Kind for ConformalKind {
    type Params = StudySpec;
    type Report = ConformalReport;

    fn example() -> StudySpec {
        study_example()
    }

    fn roles(params: &StudySpec) -> Roles {
        joined_or_scored(&params.key)
    }

    fn validate(params: &StudySpec) -> Result<()> {
        params.study.validate()
    }

    fn run(params: &StudySpec, files: &Files) -> Result<ConformalReport> {
        Ok(ConformalReport::of(&study(params, files)?))
    }
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

/// Style control's settings: the fit, and where each battle's features come from — with an
/// `answers` file, the style differences of the pair its `key` column names; without, the
/// battles file's numeric `columns`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct StyleSpec {
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub style: StyleControlParams,
    /// The battles file's column naming each battle's pair in `answers`.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = StyleSpec::default().key))]
    pub key: String,
    /// The battles file's numeric feature columns (comma-separated), read when no `answers`
    /// file is given.
    #[cfg_attr(
        feature = "cli",
        arg(long = "features", id = "features", value_delimiter = ',')
    )]
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

register_kind! {
    /// The leaderboard of `battles` with style held fixed (contextual Bradley–Terry), beside
    /// the raw one; features from the pairs' `answers` or the battles' own columns (`tribunal
    /// stats style`).
    17 Style = "style": StyleKind
}

impl Kind for StyleKind {
    type Params = StyleSpec;
    type Report = StyleControl;

    fn example() -> StyleSpec {
        StyleSpec::default()
    }

    fn roles(_: &StyleSpec) -> Roles {
        Roles::none()
            .required("battles", DatasetKind::Battles)
            .optional("answers", DatasetKind::Pairs)
    }

    fn validate(spec: &StyleSpec) -> Result<()> {
        spec.style.validate()
    }

    /// Style control on the battles, their features from the `answers` file when given, else
    /// from the battles file's columns.
    fn run(spec: &StyleSpec, files: &Files) -> Result<StyleControl> {
        let battles = files.get("battles")?;
        let battles = (battles.name, battles.bytes);
        let data = match files.optional("answers") {
            Some(answers) => styled_by_answers(battles, (answers.name, answers.bytes), &spec.key)?,
            None => styled_by_columns(battles, &spec.columns)?,
        };
        spec.style.fit(&data)
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

register_kind! {
    /// Whether a judge favours its own model family beyond the humans' ratings of it: with
    /// `key`, the `human` and `judge` battles files joined on that column; without, one
    /// `scored_battles` file (`tribunal stats self-preference`).
    18 SelfPreference = "self_preference": SelfPreferenceKind
}

impl Kind for SelfPreferenceKind {
    type Params = SelfPreferenceSpec;
    type Report = SelfPreference;

    /// The LLMFAO study's GPT family.
    fn example() -> SelfPreferenceSpec {
        SelfPreferenceSpec {
            key: Some("id".to_owned()),
            self_preference: SelfPreferenceParams {
                family: ["GPT 4", "GPT 3.5 Turbo", "GPT 3.5 Turbo (16k)"]
                    .map(str::to_owned)
                    .to_vec(),
                ..SelfPreferenceParams::default()
            },
        }
    }

    fn roles(spec: &SelfPreferenceSpec) -> Roles {
        joined_or_scored(&spec.key)
    }

    fn validate(spec: &SelfPreferenceSpec) -> Result<()> {
        spec.self_preference.validate()
    }

    /// Self-preference on one scored-battles file, or on human battles joined with the
    /// judge's (the join's warnings first).
    fn run(spec: &SelfPreferenceSpec, files: &Files) -> Result<SelfPreference> {
        match &spec.key {
            Some(key) => {
                let (human, judge) = (files.get("human")?, files.get("judge")?);
                let (_, joined) =
                    join_battle_files((human.name, human.bytes), (judge.name, judge.bytes), key)?;
                let mut report = spec.self_preference.fit(&joined.data)?;
                report.warnings.splice(0..0, joined.summary.warnings());
                Ok(report)
            }
            None => {
                let input = files.get("scored_battles")?;
                spec.self_preference
                    .fit(&parse_scored_battles(input.name, input.bytes)?)
            }
        }
    }
}

register_kind! {
    /// AlpacaEval's length-controlled win rates of `battles` (with answer lengths) against a
    /// baseline (`tribunal stats length-control`).
    19 LengthControl = "length_control": LengthControlKind
}

impl Kind for LengthControlKind {
    type Params = LengthControlParams;
    type Report = LengthControl;

    fn example() -> LengthControlParams {
        LengthControlParams::default()
    }

    fn roles(_: &LengthControlParams) -> Roles {
        Roles::none().required("battles", DatasetKind::Battles)
    }

    fn validate(params: &LengthControlParams) -> Result<()> {
        params.validate()
    }

    fn run(params: &LengthControlParams, files: &Files) -> Result<LengthControl> {
        let File { name, bytes } = files.get("battles")?;
        params.fit(&parse_length_battles(name, bytes)?)
    }
}

crate::analysis::warnings::own_warnings!(ConformalReport);
