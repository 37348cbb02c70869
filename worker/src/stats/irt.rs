//! `tribunal stats irt`: the graded response model of a judge under prompt variants and the
//! IRT reliability diagnostics of seed 003; prints [`IrtReportParams::fit`].
//!
//! The input is a ratings CSV with a `variant` column: one judge (`--rater-name` when the file
//! holds several) scoring items under prompt variants, on one criterion. The scores must be
//! whole numbers ≥ 0 (nominal labels are coded 0, 1, … in `--categories` order). The command
//! fits one GRM with a discrimination α_p and ordered thresholds β_p per variant
//! ([`GrmParams::fit`]: MML-EM over Gauss–Hermite quadrature, seed 003's priors unless
//! `--flat-priors`), and reports the fit, the items' EAP θ̂ and posterior variances, the marginal
//! reliability ρ (Eq. 4) and the prompt consistency C_V (Eq. 2–3; needs two or more variants
//! that used two or more scores, otherwise null with a warning) against `--max-c-v` and
//! `--min-reliability` ([`ReliabilityParams::intrinsic_consistency`]).
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

use super::reliability::{ColumnArgs, ScaleArgs};
use super::{add_input, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::reliability::irt::irt_grm::{GrmParams, RatingScale};
use tribunal::reliability::irt::irt_reliability::ReliabilityParams;
use tribunal::reliability::irt::irt_report::IrtReportParams;

#[derive(Args)]
pub struct IrtArgs {
    /// Ratings CSV of one judge under prompt variants (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    #[command(flatten)]
    columns: ColumnArgs,
    #[command(flatten)]
    scale: ScaleArgs,
    /// The judge, when the file holds several raters.
    #[arg(long)]
    rater_name: Option<String>,
    /// The criterion to analyse, when the file holds several.
    #[arg(long)]
    criterion: Option<String>,
    /// The original prompt variant, whose scores give the judge's θ_range (default: the first
    /// variant in the file).
    #[arg(long)]
    original: Option<String>,
    /// Human ratings CSV of the same items (annotators as raters), for θ_ratio and D_W.
    #[arg(long, value_name = "FILE")]
    human: Option<PathBuf>,
    /// The annotator whose scores group the human θ̂ (default: the first in the human file).
    #[arg(long)]
    human_rater: Option<String>,
    /// The declared rating scale `MIN,MAX` (whole numbers): scores of it a variant never gave
    /// are reported, scores outside it rejected.
    #[arg(long, value_name = "MIN,MAX", value_parser = scale_range, allow_hyphen_values = true)]
    range: Option<RatingScale>,
    /// Gauss–Hermite nodes for the integral over θ.
    #[arg(long, default_value_t = GrmParams::default().quadrature_nodes, allow_negative_numbers = true)]
    quadrature_nodes: usize,
    /// Most EM steps.
    #[arg(long, default_value_t = GrmParams::default().max_iter, allow_negative_numbers = true)]
    max_iter: usize,
    /// Converged when an EM step moves no parameter by more than this.
    #[arg(long, default_value_t = GrmParams::default().tol, allow_negative_numbers = true)]
    tol: f64,
    /// Plain marginal maximum likelihood: no priors on ln α and β.
    #[arg(long)]
    flat_priors: bool,
    /// Every judge × criterion of the file, each its own report (the Reliability page's IRT
    /// table), instead of one judge on one criterion.
    #[arg(long, conflicts_with_all = ["rater_name", "criterion"])]
    each: bool,
    /// Largest acceptable C_V (exclusive).
    #[arg(long, default_value_t = ReliabilityParams::default().max_c_v, allow_negative_numbers = true)]
    max_c_v: f64,
    /// Smallest acceptable marginal reliability ρ (exclusive).
    #[arg(long, default_value_t = ReliabilityParams::default().min_reliability, allow_negative_numbers = true)]
    min_reliability: f64,
}

/// `MIN,MAX` → a rating scale.
fn scale_range(text: &str) -> Result<RatingScale, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    match parts[..] {
        [lo, hi] => match (lo.parse::<u32>(), hi.parse::<u32>()) {
            (Ok(min), Ok(max)) => Ok(RatingScale { min, max }),
            _ => Err(format!(
                "expected two whole numbers `MIN,MAX`, found `{text}`"
            )),
        },
        _ => Err(format!("expected `MIN,MAX`, found `{text}`")),
    }
}

pub fn plan(args: IrtArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "ratings", &args.input)?;
    if let Some(human) = &args.human {
        add_input(&mut inputs, "human", human)?;
    }
    let defaults = GrmParams::default();
    let params = IrtReportParams {
        columns: args.columns.columns(),
        ratings: args.scale.params(),
        rater: args.rater_name,
        criterion: args.criterion,
        original: args.original,
        human_rater: args.human_rater,
        grm: GrmParams {
            quadrature_nodes: args.quadrature_nodes,
            log_alpha_prior: (!args.flat_priors)
                .then_some(defaults.log_alpha_prior)
                .flatten(),
            threshold_prior: (!args.flat_priors)
                .then_some(defaults.threshold_prior)
                .flatten(),
            scale: args.range,
            max_iter: args.max_iter,
            tol: args.tol,
        },
        thresholds: ReliabilityParams {
            max_c_v: args.max_c_v,
            min_reliability: args.min_reliability,
        },
    };
    let analysis = if args.each {
        Analysis::IrtTable(params)
    } else {
        Analysis::Irt(params)
    };
    Ok(Planned::new(analysis, inputs))
}
