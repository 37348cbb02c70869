//! `tribunal stats ppi`: prediction-powered win rates and Bradley–Terry leaderboard from a
//! labelled-battles CSV (the judge's label on every battle, human labels on some), each beside
//! the human-only and judge-only estimates, with the power-tuned λ, a seeded bootstrap and the
//! leaderboard's simultaneous rank sets; and, with `--plan-labels`, which battles to label next
//! (`--plan-out`: the file with each row's `label_probability`, `selected` and `priority`);
//! with `--cross-fit-folds`, the judge's labels replaced by a cross-fitted calibration head.
//! `tribunal stats judge-value`: the judge value gauge on the same kind of file.
//!
//! The options are [`PpiParams`]'s own (feature `cli` of `tribunal`) but for the bootstrap:
//! `--bootstrap-rounds N` (0: none; without it, the default rounds) and `--seed`, which also
//! seeds the plan's draw and the folds ([`PpiParams::seeded`]).

use super::{add_input, Output, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::ppi::judge_value::JudgeValueParams;
use tribunal::ppi::ppi_bootstrap::Resampling;
use tribunal::ppi::ppi_report::PpiParams;

#[derive(Args)]
pub struct PpiArgs {
    /// Labelled battles CSV: `model_a,model_b,judge,human` (`-` for stdin); `human` empty
    /// where no human labelled the battle.
    #[arg(long)]
    input: PathBuf,
    /// Rounds of the percentile bootstrap beside each asymptotic interval (0: none).
    #[arg(long, default_value_t = Resampling::default().rounds)]
    bootstrap_rounds: usize,
    /// Seed of the bootstrap, the label plan's draw and the cross-fitting's folds (recorded in
    /// the report's settings).
    #[arg(long, default_value_t = Resampling::default().seed)]
    seed: u64,
    /// Write the plan here: the input's rows and columns with `label_probability`, `selected`
    /// (label these) and `priority`; give it back labelled to `tribunal stats ppi`.
    #[arg(long, requires = "plan_labels")]
    plan_out: Option<PathBuf>,
    #[command(flatten)]
    params: PpiParams,
}

pub fn plan(args: PpiArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "battles", &args.input)?;
    let params = PpiParams {
        bootstrap: (args.bootstrap_rounds > 0).then_some(Resampling {
            rounds: args.bootstrap_rounds,
            seed: args.seed,
        }),
        ..args.params
    }
    .seeded(args.seed);
    let mut planned = Planned::new(Analysis::Ppi(params), inputs);
    planned.outputs.extend(args.plan_out.map(Output::LabelPlan));
    Ok(planned)
}

/// The labelled battles and the settings, whose options `JudgeValueParams` derives.
#[derive(Args)]
pub struct JudgeValueArgs {
    /// Labelled battles CSV: `model_a,model_b,judge,human` (`-` for stdin); the rows with a
    /// human label are the pilot, the others the judge's alone.
    #[arg(long)]
    input: PathBuf,
    #[command(flatten)]
    params: JudgeValueParams,
}

pub fn judge_value(args: JudgeValueArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "battles", &args.input)?;
    Ok(Planned::new(Analysis::JudgeValue(args.params), inputs))
}
