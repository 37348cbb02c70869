//! `tribunal stats …`: each subcommand reads files, calls the `tribunal` statistics and prints
//! one JSON document on stdout. One module per family of statistics.

mod bt;
mod calibrate;
mod irt;
mod power;
mod programs;
mod reliability;
mod study;

use anyhow::Context;
use clap::Subcommand;
use std::path::Path;

// Subcommands with many options are boxed to keep the enum small.
#[derive(Subcommand)]
pub enum Stats {
    /// Bradley–Terry leaderboard (Elo scale) from a battles CSV, with SEs and bootstrap CIs.
    Bt(bt::BtArgs),
    /// A judge against human labels: leaderboards, β, held-out hard/smoothed/soft Elo.
    SoftElo(Box<study::StudyArgs>),
    /// Split-conformal intervals on the human Elo scale, with their evaluation.
    Conformal(Box<study::StudyArgs>),
    /// Agreement: Krippendorff's α of a group of raters, κ and correlations of rater pairs, and
    /// judges' κ against the group's majority labels, with bootstrap intervals.
    Agree(Box<reliability::AgreeArgs>),
    /// A/A test: two runs of the same judge against green/amber/red acceptance bands.
    Aa(Box<reliability::AaArgs>),
    /// Self-consistency of repeated judgments: entropy, stability and flip rate per criterion.
    Consistency(Box<reliability::ConsistencyArgs>),
    /// Position bias of a pairwise judge: first-position rate, binomial test, AB/BA flip rate.
    Position(Box<reliability::PositionArgs>),
    /// Calibrate a judge: fit an LS, MN, BTL, BTL2 or Plackett–Luce head on rationale
    /// embeddings with cross-validated γ, and compare it with the base judge on test rows.
    Calibrate(Box<calibrate::CalibrateArgs>),
    /// Sample sizes to compare two groups (pass rates or mean scores) at given powers.
    Power(Box<power::PowerArgs>),
    /// Graded response model of a judge under prompt variants: C_V, ρ, θ_ratio and D_W.
    Irt(Box<irt::IrtArgs>),
    /// Programmatic judges: the built-in library on a pairs CSV, thresholds and committee on a
    /// validation split, label model vs majority vote, routing to an LLM judge's verdicts.
    Programs(Box<programs::ProgramsArgs>),
    /// The label model on a vote file, against majority vote on its labelled test rows.
    LabelModel(Box<programs::LabelModelArgs>),
    /// Routing curves of a vote file's committee with an LLM judge's verdicts as fallback.
    Route(Box<programs::RouteArgs>),
}

impl Stats {
    /// Runs the subcommand and prints its JSON.
    pub fn run(self) -> anyhow::Result<()> {
        let json = match self {
            Self::Bt(args) => bt::run(args)?,
            Self::SoftElo(args) => study::soft_elo(*args)?,
            Self::Conformal(args) => study::conformal(*args)?,
            Self::Agree(args) => reliability::agree(*args)?,
            Self::Aa(args) => reliability::aa(*args)?,
            Self::Consistency(args) => reliability::consistency(*args)?,
            Self::Position(args) => reliability::position(*args)?,
            Self::Calibrate(args) => calibrate::run(*args)?,
            Self::Power(args) => power::run(*args)?,
            Self::Irt(args) => irt::run(*args)?,
            Self::Programs(args) => programs::programs(*args)?,
            Self::LabelModel(args) => programs::label_model(*args)?,
            Self::Route(args) => programs::route(*args)?,
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
