//! `tribunal stats lc`: AlpacaEval's length-controlled win rates — each model's win rate
//! against the baseline and what it would be at the baseline's answer length, with sandwich
//! intervals ([`tribunal::rankings::length_control`]). The battles file carries `length_a` and
//! `length_b` (and AlpacaEval's soft `score` when it has one), as `tribunal convert --from
//! alpaca-eval` writes it.

use super::{add_input, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::rankings::length_control::LengthControlParams;

#[derive(Args)]
pub struct LcArgs {
    /// Battles CSV with `length_a`, `length_b` (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    /// The model every other is compared with (default: the one model in every battle).
    #[arg(long)]
    baseline: Option<String>,
    /// Coverage of the intervals.
    #[arg(long, default_value_t = LengthControlParams::default().level, allow_negative_numbers = true)]
    level: f64,
}

pub fn plan(args: LcArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "battles", &args.input)?;
    let params = LengthControlParams {
        baseline: args.baseline,
        level: args.level,
    };
    Ok(Planned::new(Analysis::LengthControl(params), inputs))
}
