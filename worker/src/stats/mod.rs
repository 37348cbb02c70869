//! `tribunal stats …`: each subcommand reads files, calls the `tribunal` statistics and prints
//! one JSON document on stdout. One module per family of statistics.

mod bt;

use anyhow::Context;
use clap::Subcommand;
use std::path::Path;

#[derive(Subcommand)]
pub enum Stats {
    /// Bradley–Terry leaderboard (Elo scale) from a battles CSV.
    Bt(bt::BtArgs),
}

impl Stats {
    /// Runs the subcommand and prints its JSON.
    pub fn run(self) -> anyhow::Result<()> {
        let json = match self {
            Self::Bt(args) => bt::run(args)?,
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
