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

/// The battles file and the settings, whose options `LengthControlParams` derives.
#[derive(Args)]
pub struct LcArgs {
    /// Battles CSV with `length_a`, `length_b` (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    #[command(flatten)]
    params: LengthControlParams,
}

pub fn plan(args: LcArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "battles", &args.input)?;
    Ok(Planned::new(Analysis::LengthControl(args.params), inputs))
}
