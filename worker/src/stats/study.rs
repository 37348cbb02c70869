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
use tribunal::bradley_terry::BradleyTerryParams;
use tribunal::conformal::{ConformalEvaluationParams, ConformalParams, Nonconformity};
use tribunal::judge_study::JudgeStudy;
use tribunal::judge_study::JudgeStudyParams;
use tribunal::scored_battles::{join_battle_files, parse_scored_battles};
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
    #[arg(long, default_value_t = BradleyTerryParams::default().lambda, allow_negative_numbers = true)]
    lambda: f64,
    /// Label-smoothing constant c (App. H), in (0.5, 1).
    #[arg(long, default_value_t = 0.75, allow_negative_numbers = true)]
    smoothing: f64,
    /// Miscoverage α of the conformal intervals.
    #[arg(long, default_value_t = ConformalParams::default().alpha, allow_negative_numbers = true)]
    alpha: f64,
    /// Nonconformity score.
    #[arg(long, value_enum, default_value_t = Score::Normalised)]
    score: Score,
    /// Random calibration/test splits in the conformal evaluation.
    #[arg(long, default_value_t = ConformalEvaluationParams::default().splits, allow_negative_numbers = true)]
    splits: usize,
    /// Calibration models per split (default: half the models, at least what α needs).
    #[arg(long, allow_negative_numbers = true)]
    n_calibration: Option<usize>,
    /// Seed of the conformal splits.
    #[arg(long, default_value_t = ConformalEvaluationParams::default().seed, allow_negative_numbers = true)]
    seed: u64,
}

#[derive(Clone, Copy, ValueEnum)]
enum Score {
    Normalised,
    Unnormalised,
}

fn study(args: &StudyArgs) -> anyhow::Result<JudgeStudy> {
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
    match (&args.input, &args.human, &args.judge, &args.key) {
        (Some(input), None, None, _) => {
            let (source, bytes) = read_input(input)?;
            Ok(params.fit(&source, &parse_scored_battles(&source, &bytes)?)?)
        }
        (None, Some(human), Some(judge), Some(key)) => {
            let (human_source, human_bytes) = read_input(human)?;
            let (judge_source, judge_bytes) = read_input(judge)?;
            let (source, joined) = join_battle_files(
                (&human_source, &human_bytes),
                (&judge_source, &judge_bytes),
                key,
            )?;
            Ok(params.fit_joined(&source, &joined)?)
        }
        _ => bail!("give either --input, or --human, --judge and --key"),
    }
}

/// The whole study.
pub fn soft_elo(args: StudyArgs) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(&study(&args)?)?)
}

/// The conformal part: per target kind, the held-out summary, the evaluation over splits and
/// each model's interval as a new model.
pub fn conformal(args: StudyArgs) -> anyhow::Result<String> {
    let study = study(&args)?;
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
        "n_judge_verdicts": study.n_judge_verdicts,
        "n_human_battles": study.n_human_battles,
        "join": study.join,
        "runs": runs,
        "notes": study.notes,
        "warnings": study.warnings,
    }))?)
}
