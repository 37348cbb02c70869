//! `tribunal stats leaderboard` (alias `bt`): the Bradley–Terry leaderboard of a battles CSV,
//! with sandwich standard errors and (unless `--bootstrap 0`) seeded bootstrap intervals and
//! CI-aware ranks, optionally anchored to one model's Elo (`--anchor MODEL=ELO`). Its options
//! are [`LeaderboardSpec`]'s own (feature `cli` of `tribunal`).

use super::{add_input, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::rankings::kinds::LeaderboardSpec;

#[derive(Args)]
pub struct BtArgs {
    /// Battles CSV: `model_a,model_b,winner` or `left,right,winner` (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    #[command(flatten)]
    spec: LeaderboardSpec,
}

pub fn plan(args: BtArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "battles", &args.input)?;
    Ok(Planned::new(Analysis::Leaderboard(args.spec), inputs))
}
