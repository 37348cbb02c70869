//! `tribunal stats style`: the Bradley–Terry leaderboard with the answers' style held fixed
//! (LMArena's style control: length, markdown headers, list items and bold spans of the two
//! answers as covariates of each battle, or feature columns of the battles file), beside the
//! raw leaderboard, with each model's rank change and each style coefficient's interval.

use super::{add_input, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::math::resample::BootstrapParams;
use tribunal::rankings::kinds::StyleSpec;
use tribunal::rankings::style_control::StyleControlParams;

#[derive(Args)]
pub struct StyleArgs {
    /// Battles CSV (`model_a,model_b,winner` or LLMFAO's `left,right,winner`; `-` for stdin).
    #[arg(long)]
    input: PathBuf,
    /// The pairs' answers: a CSV `id,instruction,response,response_b` (model A answered
    /// `response`); the battles' --key column names each battle's pair.
    #[arg(long)]
    answers: Option<PathBuf>,
    /// The battles' column naming each battle's pair in --answers.
    #[arg(long, default_value = "id")]
    key: String,
    /// Without --answers: the battles' numeric feature columns (comma-separated).
    #[arg(long, value_delimiter = ',')]
    features: Vec<String>,
    /// Ridge penalty on the style coefficients, per battle (arena-rank's default is 1, which
    /// shrinks them hard).
    #[arg(long, default_value_t = StyleControlParams::default().reg, allow_negative_numbers = true)]
    reg: f64,
    /// Weight each battle by 1 / max(battles of its pair, N), as arena-rank does (N = 50).
    #[arg(long, allow_negative_numbers = true)]
    min_pair_count: Option<f64>,
    /// Coverage of the intervals.
    #[arg(long, default_value_t = StyleControlParams::default().level, allow_negative_numbers = true)]
    level: f64,
    /// Bootstrap rounds for percentile intervals beside the sandwich ones (0: none; LMArena
    /// uses 100).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    seed: u64,
}

pub fn plan(args: StyleArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "battles", &args.input)?;
    if let Some(answers) = &args.answers {
        add_input(&mut inputs, "answers", answers)?;
    }
    let spec = StyleSpec {
        style: StyleControlParams {
            reg: args.reg,
            min_pair_count: args.min_pair_count,
            level: args.level,
            bootstrap: (args.bootstrap > 0).then_some(BootstrapParams {
                rounds: args.bootstrap,
                seed: args.seed,
                level: args.level,
            }),
        },
        key: args.key,
        columns: args.features,
    };
    Ok(Planned::new(Analysis::Style(spec), inputs))
}
