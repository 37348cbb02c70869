//! `tribunal stats agree|aa|consistency|position`: is the judge a reliable instrument? Each
//! subcommand reads long-format ratings CSVs ([`tribunal::reliability::ratings`]; the column names are
//! options, so LLMFAO's `id,worker,winner` is read with `--item id --rater worker --score
//! winner`) and prints one JSON document with the settings (seed included) and warnings.
//!
//! - `agree`: prints [`AgreementReportParams::fit`](tribunal::reliability::reliability_report::AgreementReportParams::fit): Krippendorff's α of all the input's raters
//!   at `--level`, with a bootstrap interval; for each `--pair A,B` percent agreement, Cohen's κ
//!   and on the numeric scale weighted κ and Pearson/Spearman/Kendall; for each `--judge FILE`
//!   rater, κ, percent agreement and the confusion matrix against the input raters' majority
//!   labels. Every statistic has a percentile interval from resampling items with `--seed` and
//!   `--bootstrap` rounds at `--confidence`.
//! - `aa`: the A/A test of two runs of one judge ([`AaTestParams`]): pass-rate delta and item
//!   disagreement (`--pass LABEL`), κ delta against `--gold RATER`, mean absolute score
//!   difference (numeric scale), each flagged green/amber/red against its band.
//! - `consistency`: self-consistency of repeated judgments ([`ConsistencyParams`]): per criterion
//!   the entropy across repeats, stability band and flip rate; the repeats are the `variant`
//!   values of one rater, or the raters when the file has no variant column.
//! - `position`: position bias of a pairwise judge ([`PositionBiasParams`]): first-position rate
//!   with an exact binomial test, flip and reversal rates between the `ab` and `ba` orders.
//!
//! Each subcommand is a binding of one report of `tribunal` ([`AgreementSpec`],
//! [`AaReportParams`], [`ConsistencyReportParams`], [`PositionReportParams`]), the same the
//! Reliability page runs, and its options are that settings struct's own (derived with the
//! `cli` feature); only the input files are this module's. The bootstrap's coverage is
//! `--confidence` here (`--level` is α's level of measurement). On the nominal scale the files of one command are coded together:
//! without `--categories` the labels found in all of them, sorted, so a label has one code in
//! every file.

use super::{add_input, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::reliability::aa_report::AaReportParams;
use tribunal::reliability::consistency_report::ConsistencyReportParams;
use tribunal::reliability::kinds::AgreementSpec;
use tribunal::reliability::position_report::PositionReportParams;

#[derive(Args)]
#[command(mut_arg("level", |a| a.long("confidence")))]
pub struct AgreeArgs {
    /// Ratings CSV of a group of raters (people, judges) (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    /// A judge's ratings CSV (repeatable): each of its raters against the input raters'
    /// majority labels. A file without the rater column is one judge named after the file.
    #[arg(long, value_name = "FILE")]
    judge: Vec<PathBuf>,
    #[command(flatten)]
    spec: AgreementSpec,
}

pub fn agree(args: AgreeArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "ratings", &args.input)?;
    for (i, path) in args.judge.iter().enumerate() {
        add_input(&mut inputs, &AgreementSpec::judge_role(i + 1), path)?;
    }
    let spec = AgreementSpec {
        judges: args.judge.len(),
        ..args.spec
    };
    Ok(Planned::new(Analysis::Agreement(spec), inputs))
}

#[derive(Args)]
pub struct AaArgs {
    /// Ratings CSV holding both runs as raters (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    #[command(flatten)]
    params: AaReportParams,
}

pub fn aa(args: AaArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "ratings", &args.input)?;
    Ok(Planned::new(Analysis::Aa(args.params), inputs))
}

#[derive(Args)]
pub struct ConsistencyArgs {
    /// Ratings CSV of repeated judgments (`-` for stdin): the repeats are the `variant` values
    /// of one rater, or the raters when the file has no variant column.
    #[arg(long)]
    input: PathBuf,
    #[command(flatten)]
    params: ConsistencyReportParams,
}

pub fn consistency(args: ConsistencyArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "ratings", &args.input)?;
    Ok(Planned::new(Analysis::Consistency(args.params), inputs))
}

#[derive(Args)]
#[command(mut_arg("level", |a| a.long("confidence")))]
pub struct PositionArgs {
    /// Pairwise verdicts CSV (`-` for stdin): the item is the pair, the score the verdict by
    /// position, the variant the order shown (`--ab`/`--ba`); without a variant column every
    /// verdict is in the order shown.
    #[arg(long)]
    input: PathBuf,
    #[command(flatten)]
    params: PositionReportParams,
}

pub fn position(args: PositionArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "ratings", &args.input)?;
    Ok(Planned::new(Analysis::Position(args.params), inputs))
}
