//! `tribunal stats style`: the Bradley–Terry leaderboard with the answers' style held fixed
//! (LMArena's style control: length, markdown headers, list items and bold spans of the two
//! answers as covariates of each battle, or feature columns of the battles file), beside the
//! raw leaderboard, with each model's rank change and each style coefficient's interval.
//! The options are [`StyleSpec`]'s own (feature `cli` of `tribunal`) but for the bootstrap:
//! `--bootstrap N` (0: none) with `--seed`, at the intervals' `--level`.

use super::{add_input, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::math::resample::BootstrapParams;
use tribunal::rankings::kinds::StyleSpec;

#[derive(Args)]
pub struct StyleArgs {
    /// Battles CSV (`model_a,model_b,winner` or LLMFAO's `left,right,winner`; `-` for stdin).
    #[arg(long)]
    input: PathBuf,
    /// The pairs' answers: a CSV `id,instruction,response,response_b` (model A answered
    /// `response`); the battles' --key column names each battle's pair.
    #[arg(long)]
    answers: Option<PathBuf>,
    /// Bootstrap rounds for percentile intervals beside the sandwich ones (0: none; LMArena
    /// uses 100).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    seed: u64,
    #[command(flatten)]
    spec: StyleSpec,
}

pub fn plan(args: StyleArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "battles", &args.input)?;
    if let Some(answers) = &args.answers {
        add_input(&mut inputs, "answers", answers)?;
    }
    let mut spec = args.spec;
    spec.style.bootstrap = (args.bootstrap > 0).then_some(BootstrapParams {
        rounds: args.bootstrap,
        seed: args.seed,
        level: spec.style.level,
    });
    Ok(Planned::new(Analysis::Style(spec), inputs))
}
