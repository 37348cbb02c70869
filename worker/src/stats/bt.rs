//! `tribunal stats bt`: the Bradley–Terry leaderboard of a battles CSV.

use super::read_input;
use clap::Args;
use std::path::PathBuf;
use tribunal::battles::parse_battles;
use tribunal::bradley_terry::BradleyTerryParams;
use tribunal::leaderboard::bradley_terry_leaderboard;

#[derive(Args)]
pub struct BtArgs {
    /// Battles CSV: `model_a,model_b,winner` or `left,right,winner` (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    /// L2 penalty λ.
    #[arg(long, default_value_t = BradleyTerryParams::default().lambda)]
    lambda: f64,
    /// Most Newton iterations.
    #[arg(long, default_value_t = BradleyTerryParams::default().max_iter)]
    max_iter: usize,
    /// Convergence tolerance on the largest Newton step.
    #[arg(long, default_value_t = BradleyTerryParams::default().tol)]
    tol: f64,
}

pub fn run(args: BtArgs) -> anyhow::Result<String> {
    let (source, bytes) = read_input(&args.input)?;
    let battles = parse_battles(&source, &bytes)?;
    let params = BradleyTerryParams {
        lambda: args.lambda,
        max_iter: args.max_iter,
        tol: args.tol,
    };
    Ok(serde_json::to_string_pretty(&bradley_terry_leaderboard(
        &source, &battles, &params,
    )?)?)
}
