//! `tribunal stats …`: each subcommand reads files, calls the `tribunal` statistics and prints
//! one JSON document on stdout. One module per family of statistics.

mod bt;
mod study;

use anyhow::Context;
use clap::Subcommand;
use std::path::Path;

#[derive(Subcommand)]
pub enum Stats {
    /// Bradley–Terry leaderboard (Elo scale) from a battles CSV, with SEs and bootstrap CIs.
    Bt(bt::BtArgs),
    /// A judge against human labels: leaderboards, β, held-out hard/smoothed/soft Elo.
    SoftElo(study::StudyArgs),
    /// Split-conformal intervals on the human Elo scale, with their evaluation.
    Conformal(study::StudyArgs),
}

impl Stats {
    /// Runs the subcommand and prints its JSON.
    pub fn run(self) -> anyhow::Result<()> {
        let json = match self {
            Self::Bt(args) => bt::run(args)?,
            Self::SoftElo(args) => study::soft_elo(args)?,
            Self::Conformal(args) => study::conformal(args)?,
        };
        println!("{json}");
        Ok(())
    }
}

/// Reads an input file (`-` for stdin) and returns its name for messages and its bytes.
pub(crate) fn read_input(path: &Path) -> anyhow::Result<(String, Vec<u8>)> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
        return Ok(("<stdin>".to_owned(), bytes));
    }
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok((path.display().to_string(), bytes))
}
