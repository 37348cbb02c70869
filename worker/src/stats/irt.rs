//! `tribunal stats irt`: the graded response model of a judge under prompt variants and the
//! IRT reliability diagnostics of seed 003; prints [`IrtReportParams::fit`].
//!
//! The input is a ratings CSV with a `variant` column: one judge (`--rater-name` when the file
//! holds several) scoring items under prompt variants, on one criterion. The scores must be
//! whole numbers ≥ 0 (nominal labels are coded 0, 1, … in `--categories` order). The command
//! fits one GRM with a discrimination α_p and ordered thresholds β_p per variant
//! ([`GrmParams::fit`](tribunal::reliability::irt::irt_grm::GrmParams::fit): MML-EM over Gauss–Hermite quadrature, seed 003's priors unless
//! `--flat-priors`), and reports the fit, the items' EAP θ̂ and posterior variances, the marginal
//! reliability ρ (Eq. 4) and the prompt consistency C_V (Eq. 2–3; needs two or more variants
//! that used two or more scores, otherwise null with a warning) against `--max-c-v` and
//! `--min-reliability` ([`ReliabilityParams::intrinsic_consistency`](tribunal::reliability::irt::irt_reliability::ReliabilityParams::intrinsic_consistency)).
//!
//! With `--each`, the same for every judge × criterion of the file, one cell each (a cell that
//! cannot be fitted holds its error): the Reliability page's IRT table.
//!
//! With `--human FILE` (annotators as raters, the same items) a second GRM is fitted to the
//! human ratings (annotators as the variants), and on the items both rated the command reports
//! θ_range, θ_ratio (Eq. 5–6) and D_W (Eq. 7) with the medians of seed 003's Fig. 1
//! ([`tribunal::reliability::irt::irt_reliability::HumanAlignment::compute`]): the judge's scores are those of the `--original` variant
//! (default: the first in the file), the human scores those of `--human-rater` (default: the
//! first annotator in the file).

use super::{add_input, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::reliability::irt::irt_report::IrtReportParams;

/// The options are [`IrtReportParams`]'s own (feature `cli` of `tribunal`); this struct adds
/// the files, `--flat-priors` (no value of its own: it clears both priors) and `--each`.
#[derive(Args)]
pub struct IrtArgs {
    /// Ratings CSV of one judge under prompt variants (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    /// Human ratings CSV of the same items (annotators as raters), for θ_ratio and D_W.
    #[arg(long, value_name = "FILE")]
    human: Option<PathBuf>,
    /// Plain marginal maximum likelihood: no priors on ln α and β.
    #[arg(long)]
    flat_priors: bool,
    /// Every judge × criterion of the file, each its own report (the Reliability page's IRT
    /// table), instead of one judge on one criterion.
    #[arg(long, conflicts_with_all = ["rater_name", "criterion"])]
    each: bool,
    #[command(flatten)]
    params: IrtReportParams,
}

pub fn plan(args: IrtArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "ratings", &args.input)?;
    if let Some(human) = &args.human {
        add_input(&mut inputs, "human", human)?;
    }
    let mut params = args.params;
    if args.flat_priors {
        params.grm.log_alpha_prior = None;
        params.grm.threshold_prior = None;
    }
    let analysis = if args.each {
        Analysis::IrtTable(params)
    } else {
        Analysis::Irt(params)
    };
    Ok(Planned::new(analysis, inputs))
}
