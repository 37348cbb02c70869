//! `tribunal stats bt`: the Bradley–Terry leaderboard of a battles CSV, with sandwich standard
//! errors and (unless `--bootstrap 0`) seeded bootstrap intervals and CI-aware ranks, optionally
//! anchored to one model's Elo (`--anchor MODEL=ELO`).

use super::{add_input, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::math::resample::BootstrapParams;
use tribunal::rankings::anchor::Anchor;
use tribunal::rankings::bradley_terry::BradleyTerryParams;
use tribunal::rankings::kinds::LeaderboardSpec;

#[derive(Args)]
pub struct BtArgs {
    /// Battles CSV: `model_a,model_b,winner` or `left,right,winner` (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    /// L2 penalty λ.
    #[arg(long, default_value_t = BradleyTerryParams::default().lambda, allow_negative_numbers = true)]
    lambda: f64,
    /// Most Newton iterations.
    #[arg(long, default_value_t = BradleyTerryParams::default().max_iter, allow_negative_numbers = true)]
    max_iter: usize,
    /// Convergence tolerance on the largest Newton step.
    #[arg(long, default_value_t = BradleyTerryParams::default().tol, allow_negative_numbers = true)]
    tol: f64,
    /// Bootstrap rounds (0: no bootstrap).
    #[arg(long, default_value_t = BootstrapParams::default().rounds, allow_negative_numbers = true)]
    bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = BootstrapParams::default().seed, allow_negative_numbers = true)]
    seed: u64,
    /// Coverage of the bootstrap intervals.
    #[arg(long, default_value_t = BootstrapParams::default().level, allow_negative_numbers = true)]
    level: f64,
    /// Resample clusters given by this column (e.g. `prompt`) instead of battles.
    #[arg(long)]
    cluster: Option<String>,
    /// Fix one model's Elo, e.g. `gpt-4=1200`: ratings, SEs and intervals become differences
    /// against it.
    #[arg(long, value_name = "MODEL=ELO", value_parser = parse_anchor)]
    anchor: Option<Anchor>,
}

fn parse_anchor(value: &str) -> Result<Anchor, String> {
    let (model, elo) = value
        .rsplit_once('=')
        .ok_or_else(|| format!("expected MODEL=ELO, found `{value}`"))?;
    let elo: f64 = elo
        .parse()
        .map_err(|_| format!("expected a number after `=` in `{value}`, found `{elo}`"))?;
    Ok(Anchor {
        model: model.to_owned(),
        elo,
    })
}

pub fn plan(args: BtArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "battles", &args.input)?;
    let spec = LeaderboardSpec {
        bradley_terry: BradleyTerryParams {
            lambda: args.lambda,
            max_iter: args.max_iter,
            tol: args.tol,
        },
        bootstrap: BootstrapParams {
            rounds: args.bootstrap,
            seed: args.seed,
            level: args.level,
        },
        cluster: args.cluster,
        anchor: args.anchor,
    };
    Ok(Planned::new(Analysis::Leaderboard(spec), inputs))
}
