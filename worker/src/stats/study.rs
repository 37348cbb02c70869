//! `tribunal stats soft-elo` and `tribunal stats conformal`: a judge against human labels
//! (seed 002) — both leaderboards and their agreement, β and the reliability of σ(β·s), the
//! leave-one-model-out protocol for hard, label-smoothed and soft targets, and split-conformal
//! intervals on the human Elo scale ([`tribunal::judge_study`]).
//!
//! Input: either one scored-battles CSV (`--input`, see [`tribunal::scored_battles`]) or a
//! human battles CSV and a judge battles CSV joined on a key column (`--human`, `--judge`,
//! `--key`; LLMFAO's pair `id`).

use super::read_input;
use anyhow::bail;
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use tribunal::battles::parse_battles_with_column;
use tribunal::bradley_terry::BradleyTerryParams;
use tribunal::conformal::{ConformalEvaluationParams, ConformalParams, Nonconformity};
use tribunal::judge_study::{JudgeStudy, JudgeStudyParams};
use tribunal::scored_battles::{join_verdicts, parse_scored_battles, ScoredBattles};
use tribunal::soft_targets::TargetKind;

#[derive(Args)]
pub struct StudyArgs {
    /// Scored battles CSV (judge scores or verdicts, and human labels).
    #[arg(long, conflicts_with_all = ["human", "judge"])]
    input: Option<PathBuf>,
    /// Human battles CSV (joined with `--judge` on `--key`).
    #[arg(long, requires_all = ["judge", "key"])]
    human: Option<PathBuf>,
    /// Judge battles CSV: one verdict per key.
    #[arg(long, requires_all = ["human", "key"])]
    judge: Option<PathBuf>,
    /// The column that identifies a comparison in both files (e.g. `id`).
    #[arg(long)]
    key: Option<String>,
    /// L2 penalty λ of every Bradley–Terry fit.
    #[arg(long, default_value_t = BradleyTerryParams::default().lambda)]
    lambda: f64,
    /// Label-smoothing constant c (App. H), in (0.5, 1).
    #[arg(long, default_value_t = 0.75)]
    smoothing: f64,
    /// Miscoverage α of the conformal intervals.
    #[arg(long, default_value_t = ConformalParams::default().alpha)]
    alpha: f64,
    /// Nonconformity score.
    #[arg(long, value_enum, default_value_t = Score::Normalised)]
    score: Score,
    /// Random calibration/test splits in the conformal evaluation.
    #[arg(long, default_value_t = ConformalEvaluationParams::default().splits)]
    splits: usize,
    /// Calibration models per split (default: half the models, at least what α needs).
    #[arg(long)]
    n_calibration: Option<usize>,
    /// Seed of the conformal splits.
    #[arg(long, default_value_t = ConformalEvaluationParams::default().seed)]
    seed: u64,
}

#[derive(Clone, Copy, ValueEnum)]
enum Score {
    Normalised,
    Unnormalised,
}

fn load(args: &StudyArgs) -> anyhow::Result<(String, ScoredBattles, usize)> {
    match (&args.input, &args.human, &args.judge, &args.key) {
        (Some(input), None, None, _) => {
            let (source, bytes) = read_input(input)?;
            let data = parse_scored_battles(&source, &bytes)?;
            Ok((source, data, 0))
        }
        (None, Some(human), Some(judge), Some(key)) => {
            let (human_source, human_bytes) = read_input(human)?;
            let (judge_source, judge_bytes) = read_input(judge)?;
            let (h, h_keys) = parse_battles_with_column(&human_source, &human_bytes, key)?;
            let (j, j_keys) = parse_battles_with_column(&judge_source, &judge_bytes, key)?;
            let joined = join_verdicts(&j, &j_keys, &h, &h_keys)?;
            Ok((
                format!("{human_source} ⋈ {judge_source} on `{key}`"),
                joined.data,
                joined.unmatched,
            ))
        }
        _ => bail!("give either --input, or --human, --judge and --key"),
    }
}

fn study(args: &StudyArgs) -> anyhow::Result<(JudgeStudy, usize)> {
    let (source, data, unmatched) = load(args)?;
    let mut params = JudgeStudyParams::default();
    params.held_out.bradley_terry.lambda = args.lambda;
    params.held_out.targets = vec![
        TargetKind::Hard,
        TargetKind::Soft { beta: None },
        TargetKind::LabelSmoothing { c: args.smoothing },
    ];
    params.conformal = ConformalEvaluationParams {
        conformal: ConformalParams {
            alpha: args.alpha,
            score: match args.score {
                Score::Normalised => Nonconformity::Normalised,
                Score::Unnormalised => Nonconformity::Unnormalised,
            },
        },
        n_calibration: args.n_calibration,
        splits: args.splits,
        seed: args.seed,
    };
    Ok((params.fit(&source, &data)?, unmatched))
}

/// The whole study.
pub fn soft_elo(args: StudyArgs) -> anyhow::Result<String> {
    let (study, unmatched) = study(&args)?;
    let mut json = serde_json::to_value(&study)?;
    json["unmatched_human_battles"] = unmatched.into();
    Ok(serde_json::to_string_pretty(&json)?)
}

/// The conformal part: per target kind, the held-out summary, the evaluation over splits and
/// each model's interval as a new model.
pub fn conformal(args: StudyArgs) -> anyhow::Result<String> {
    let (study, unmatched) = study(&args)?;
    let runs: Vec<serde_json::Value> = study
        .held_out
        .runs
        .iter()
        .zip(&study.conformal)
        .map(|(run, conformal)| {
            serde_json::json!({
                "target": run.name,
                "held_out_mae": run.mae,
                "held_out_spearman": run.spearman,
                "conformal": conformal,
            })
        })
        .collect();
    Ok(serde_json::to_string_pretty(&serde_json::json!({
        "source": study.source,
        "settings": study.settings.conformal,
        "n_models": study.held_out.n_models,
        "unmatched_human_battles": unmatched,
        "runs": runs,
        "notes": study.notes,
    }))?)
}
