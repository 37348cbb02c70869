//! `tribunal stats transitivity`: how often the majority verdicts of a battles file go round in
//! a circle — cyclic triads within each group of `--group` (a prompt column) or over all
//! battles, with a bootstrap interval, each model's share and the first cycles by name
//! ([`tribunal::rankings::transitivity`]).

use super::{add_input, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::rankings::transitivity::TransitivityParams;

/// The battles file and the settings, whose options `TransitivityParams` derives.
#[derive(Args)]
pub struct TransitivityArgs {
    /// Battles CSV (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    #[command(flatten)]
    params: TransitivityParams,
}

pub fn plan(args: TransitivityArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "battles", &args.input)?;
    Ok(Planned::new(Analysis::Transitivity(args.params), inputs))
}
