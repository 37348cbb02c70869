//! `tribunal stats ppi`: prediction-powered win rates and Bradley–Terry leaderboard from a
//! labelled-battles CSV (the judge's label on every battle, human labels on some), each beside
//! the human-only and judge-only estimates, with the power-tuned λ, a seeded bootstrap and the
//! leaderboard's simultaneous rank sets; and, with `--plan-labels`, which battles to label next
//! (`--plan-out`: the file with each row's `label_probability`, `selected` and `priority`);
//! with `--cross-fit-folds`, the judge's labels replaced by a cross-fitted calibration head.
//! `tribunal stats judge-value`: the judge value gauge on the same kind of file.

use super::{add_input, Output, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::ppi::cross_fit::CrossFitParams;
use tribunal::ppi::judge_value::JudgeValueParams;
use tribunal::ppi::label_plan::LabelPlanParams;
use tribunal::ppi::ppi_bootstrap::Resampling;
use tribunal::ppi::ppi_report::PpiParams;

#[derive(Args)]
pub struct PpiArgs {
    /// Labelled battles CSV: `model_a,model_b,judge,human` (`-` for stdin); `human` empty
    /// where no human labelled the battle.
    #[arg(long)]
    input: PathBuf,
    /// Error level of the intervals (coverage 1 − α).
    #[arg(long, default_value_t = PpiParams::default().alpha, allow_negative_numbers = true)]
    alpha: f64,
    /// Weight of the judge's labels, in [0, 1] (0: human labels only, 1: plain PPI);
    /// omitted: power-tuned (PPI++).
    #[arg(long, allow_negative_numbers = true)]
    lambda: Option<f64>,
    /// The leaderboard's model at Elo difference 0 (default: the first in sorted order).
    #[arg(long)]
    reference: Option<String>,
    /// A win rate's interval width to plan for: each model's label budget then gives the human
    /// labels it takes with the judge's labels and without.
    #[arg(long, allow_negative_numbers = true)]
    target_width: Option<f64>,
    /// Rounds of the percentile bootstrap beside each asymptotic interval (0: none).
    #[arg(long, default_value_t = Resampling::default().rounds)]
    bootstrap_rounds: usize,
    /// The fewest human labels a win rate is reported from (at least 2).
    #[arg(long, default_value_t = PpiParams::default().min_labels)]
    min_labels: usize,
    /// Seed of the bootstrap and of the label plan's draw (recorded in the report's settings).
    #[arg(long, default_value_t = Resampling::default().seed)]
    seed: u64,
    /// Plan this many more human labels: a seeded draw of the unlabelled battles, more likely
    /// where a label would shrink the leaderboard's intervals most (the report's `plan`).
    #[arg(long)]
    plan_labels: Option<usize>,
    /// The share of the planned labels spread uniformly over the unlabelled battles, in (0, 1]
    /// (1: a uniform draw).
    #[arg(long, default_value_t = LabelPlanParams::default().uniform_share)]
    plan_uniform_share: f64,
    /// Write the plan here: the input's rows and columns with `label_probability`, `selected`
    /// (label these) and `priority`; give it back labelled to `tribunal stats ppi`.
    #[arg(long, requires = "plan_labels")]
    plan_out: Option<PathBuf>,
    /// Cross-prediction: replace the judge's labels by a BTL calibration head on the
    /// `embedding` column, fitted in this many folds of the human labels (each label compared
    /// with a head that did not see it; the fold assignment from --seed).
    #[arg(long)]
    cross_fit_folds: Option<usize>,
    /// The cross-fitted heads' L2 penalty γ.
    #[arg(long, default_value_t = CrossFitParams::default().gamma, requires = "cross_fit_folds")]
    cross_fit_gamma: f64,
}

pub fn plan(args: PpiArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "battles", &args.input)?;
    let params = PpiParams {
        alpha: args.alpha,
        lambda: args.lambda,
        reference: args.reference,
        target_width: args.target_width,
        bootstrap: (args.bootstrap_rounds > 0).then_some(Resampling {
            rounds: args.bootstrap_rounds,
            seed: args.seed,
        }),
        min_labels: args.min_labels,
        plan: args.plan_labels.map(|labels| LabelPlanParams {
            labels,
            uniform_share: args.plan_uniform_share,
            seed: args.seed,
        }),
        cross_fit: args.cross_fit_folds.map(|folds| CrossFitParams {
            folds,
            gamma: args.cross_fit_gamma,
            seed: args.seed,
        }),
    };
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
