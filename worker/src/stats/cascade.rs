//! `tribunal stats cascade`: judges in a cascade, each keeping the items it is confident on
//! with a guaranteed agreement with humans (≥ 1 − α with probability ≥ 1 − δ), the rest handed
//! to the next judge and finally to humans ([`tribunal::selective::cascade`]). Its options are
//! the settings struct's own (`CascadeParams`, derived with the `cli` feature), so the flags,
//! their defaults and help cannot drift from the spec.

use super::{add_input, Output, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::selective::cascade::CascadeParams;

#[derive(Args)]
pub struct CascadeArgs {
    /// Judgments CSV: `item,judge,verdict,confidence,human[,cost][,split]`, a row per item and
    /// judge, `human` blank where no person labelled (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    /// Write the unlabelled items the cascade leaves to humans here, as an `item` CSV: what to
    /// label next.
    #[arg(long)]
    to_humans_out: Option<PathBuf>,
    #[command(flatten)]
    params: CascadeParams,
}

pub fn plan(args: CascadeArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "judgments", &args.input)?;
    let mut planned = Planned::new(Analysis::Cascade(args.params), inputs);
    planned
        .outputs
        .extend(args.to_humans_out.map(Output::ToHumans));
    Ok(planned)
}
