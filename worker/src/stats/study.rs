//! `tribunal stats soft-elo` and `tribunal stats conformal`: a judge against human labels
//! (seed 002) — both leaderboards and their agreement, β and the reliability of σ(β·s), the
//! leave-one-model-out protocol for hard, label-smoothed and soft targets, and split-conformal
//! intervals on the human Elo scale ([`tribunal::rankings::judge_study`]).
//!
//! Input: either one scored-battles CSV (`--input`, see [`tribunal::rankings::scored_battles`]) or a
//! human battles CSV and a judge battles CSV joined on a key column (`--human`, `--judge`,
//! `--key`; LLMFAO's pair `id`).

use super::{add_input, Planned};
use anyhow::bail;
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::rankings::bradley_terry::BradleyTerryParams;
use tribunal::rankings::conformal::ConformalEvaluationParams;
use tribunal::rankings::judge_study::JudgeStudyParams;
use tribunal::rankings::kinds::StudySpec;
use tribunal::rankings::soft_targets::TargetKind;

/// A judge's battles with human labels: one scored-battles file, or human and judge battle
/// files joined on a key.
#[derive(Args)]
pub struct JudgedBattles {
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
}

impl JudgedBattles {
    /// The files in their roles (`scored_battles`, or `human` and `judge`), and the key.
    pub(super) fn inputs(self) -> anyhow::Result<(Inputs, Option<String>)> {
        let mut inputs = Inputs::new();
        let key = match (&self.input, &self.human, &self.judge, self.key) {
            (Some(input), None, None, _) => {
                add_input(&mut inputs, "scored_battles", input)?;
                None
            }
            (None, Some(human), Some(judge), Some(key)) => {
                add_input(&mut inputs, "human", human)?;
                add_input(&mut inputs, "judge", judge)?;
                Some(key)
            }
            _ => bail!("give either --input, or --human, --judge and --key"),
        };
        Ok((inputs, key))
    }
}

/// The options of the held-out fits ([`BradleyTerryParams`]) and the conformal evaluation
/// ([`ConformalEvaluationParams`]) are those structs' own (feature `cli` of `tribunal`);
/// `--smoothing` is the c of the label-smoothing target beside the hard and soft ones.
#[derive(Args)]
pub struct StudyArgs {
    #[command(flatten)]
    battles: JudgedBattles,
    /// Label-smoothing constant c (App. H), in (0.5, 1).
    #[arg(long, default_value_t = 0.75, allow_negative_numbers = true)]
    smoothing: f64,
    #[command(flatten)]
    bradley_terry: BradleyTerryParams,
    #[command(flatten)]
    conformal: ConformalEvaluationParams,
}

/// Which part of the study a subcommand prints.
pub enum Part {
    /// Everything (`soft-elo`).
    Whole,
    /// Per target kind, the held-out summary, the evaluation over splits and each model's
    /// interval as a new model (`conformal`).
    Conformal,
}

pub fn plan(args: StudyArgs, part: Part) -> anyhow::Result<Planned> {
    let mut study = JudgeStudyParams::default();
    study.held_out.bradley_terry = args.bradley_terry;
    study.held_out.targets = vec![
        TargetKind::Hard,
        TargetKind::Soft { beta: None },
        TargetKind::LabelSmoothing { c: args.smoothing },
    ];
    study.conformal = args.conformal;
    let (inputs, key) = args.battles.inputs()?;
    let spec = StudySpec { key, study };
    let analysis = match part {
        Part::Whole => Analysis::JudgeStudy(spec),
        Part::Conformal => Analysis::Conformal(spec),
    };
    Ok(Planned::new(analysis, inputs))
}
