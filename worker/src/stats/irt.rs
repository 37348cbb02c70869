//! `tribunal stats irt`: the graded response model of a judge under prompt variants and the
//! IRT reliability diagnostics of seed 003.
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
//! With `--human FILE` (annotators as raters, the same items) a second GRM is fitted to the
//! human ratings (annotators as the variants), and on the items both rated the command reports
//! θ_range, θ_ratio (Eq. 5–6) and D_W (Eq. 7) with the medians of seed 003's Fig. 1
//! ([`HumanAlignment::compute`]): the judge's scores are those of the `--original` variant
//! (default: the first in the file), the human scores those of `--human-rater` (default: the
//! first annotator in the file).

use super::reliability::{file_rater, read_together, ColumnArgs, ScaleArgs};
use anyhow::Context;
use clap::Args;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tribunal::irt_grm::{GrmParams, RatingScale};
use tribunal::irt_reliability::{marginal_reliability, HumanAlignment, ReliabilityParams};
use tribunal::ratings::Selection;
use tribunal::Error;

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
    #[arg(long, value_name = "MIN,MAX", value_parser = scale_range)]
    range: Option<RatingScale>,
    /// Gauss–Hermite nodes for the integral over θ.
    #[arg(long, default_value_t = GrmParams::default().quadrature_nodes)]
    quadrature_nodes: usize,
    /// Most EM steps.
    #[arg(long, default_value_t = GrmParams::default().max_iter)]
    max_iter: usize,
    /// Converged when an EM step moves no parameter by more than this.
    #[arg(long, default_value_t = GrmParams::default().tol)]
    tol: f64,
    /// Plain marginal maximum likelihood: no priors on ln α and β.
    #[arg(long)]
    flat_priors: bool,
    /// Largest acceptable C_V (exclusive).
    #[arg(long, default_value_t = ReliabilityParams::default().max_c_v)]
    max_c_v: f64,
    /// Smallest acceptable marginal reliability ρ (exclusive).
    #[arg(long, default_value_t = ReliabilityParams::default().min_reliability)]
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

pub fn run(args: IrtArgs) -> anyhow::Result<String> {
    let mut files: Vec<(&Path, Option<String>)> =
        vec![(&args.input, Some(file_rater(&args.input)))];
    if let Some(human) = &args.human {
        files.push((human, Some(file_rater(human))));
    }
    let all = read_together(&files, &args.columns, &args.scale.params())?;
    let (judge, human) = all.split_first().context("no input file was read")?;
    judge.check_whole_scores()?;
    let matrix = judge.variant_matrix(args.rater_name.as_deref(), args.criterion.as_deref())?;
    let grm = matrix.whole_scores()?;
    let defaults = GrmParams::default();
    let params = GrmParams {
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
    };
    let thresholds = ReliabilityParams {
        max_c_v: args.max_c_v,
        min_reliability: args.min_reliability,
    };
    thresholds.validate()?;
    let fit = params
        .fit(&grm)
        .with_context(|| format!("{}: graded response model", judge.source))?;
    let mut warnings = Vec::new();
    if !fit.converged {
        warnings.push(format!(
            "{}: the GRM fit did not converge in {} EM steps (last change {:.3e}); raise \
             --max-iter",
            judge.source, fit.iterations, fit.last_change
        ));
    }
    let rho = marginal_reliability(&fit.theta_mean, &fit.theta_variance)
        .with_context(|| format!("{}: marginal reliability", judge.source))?;
    let intrinsic = match thresholds.intrinsic_consistency(&fit, &grm) {
        Ok(ic) => Some(ic),
        Err(Error::Insufficient(why)) => {
            warnings.push(format!("{}: C_V is not computed: {why}", judge.source));
            None
        }
        Err(e) => return Err(e.into()),
    };

    let original = match &args.original {
        Some(name) => matrix
            .rater_index(name)
            .with_context(|| format!("{}: --original", judge.source))?,
        None => 0,
    };
    let human_report = match human.first() {
        None => Value::Null,
        Some(h) => {
            h.check_whole_scores()?;
            let criterion = if h.criteria.is_empty() {
                None
            } else {
                args.criterion.clone()
            };
            let hm = h.matrix(&Selection {
                criterion,
                ..Default::default()
            })?;
            let hgrm = hm.whole_scores()?;
            let human_fit = params
                .fit(&hgrm)
                .with_context(|| format!("{}: graded response model", h.source))?;
            if !human_fit.converged {
                warnings.push(format!(
                    "{}: the GRM fit did not converge in {} EM steps; raise --max-iter",
                    h.source, human_fit.iterations
                ));
            }
            let score_rater = match &args.human_rater {
                Some(name) => hm
                    .rater_index(name)
                    .with_context(|| format!("{}: --human-rater", h.source))?,
                None => 0,
            };
            let row_of: HashMap<&str, usize> = hm
                .items
                .iter()
                .enumerate()
                .map(|(i, item)| (item.as_str(), i))
                .collect();
            let (mut llm_theta, mut llm_scores, mut human_theta, mut human_scores) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for (i, item) in matrix.items.iter().enumerate() {
                if let Some(&j) = row_of.get(item.as_str()) {
                    llm_theta.push(fit.theta_mean[i]);
                    llm_scores.push(grm.get(i, original));
                    human_theta.push(human_fit.theta_mean[j]);
                    human_scores.push(hgrm.get(j, score_rater));
                }
            }
            let alignment =
                HumanAlignment::compute(&llm_theta, &llm_scores, &human_theta, &human_scores)
                    .with_context(|| {
                        format!(
                            "human alignment of {} with {} on {} common items",
                            judge.source,
                            h.source,
                            llm_theta.len()
                        )
                    })?;
            json!({
                "input": h.source,
                "annotators": hm.raters,
                "score_rater": hm.raters.get(score_rater),
                "n_items": hm.items.len(),
                "n_common_items": llm_theta.len(),
                "fit": human_fit,
                "alignment": alignment,
            })
        }
    };

    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let rater = args.rater_name.clone().or_else(|| {
        judge
            .raters
            .first()
            .filter(|_| judge.raters.len() == 1)
            .cloned()
    });
    Ok(serde_json::to_string_pretty(&json!({
        "statistic": "irt_grm",
        "input": judge.source,
        "settings": {
            "columns": args.columns.columns(None),
            "scale": judge.scale,
            "categories": judge.categories,
            "rater": rater,
            "criterion": args.criterion,
            "original": matrix.raters.get(original),
            "grm": params,
            "thresholds": thresholds,
        },
        "variants": matrix.raters,
        "items": matrix.items,
        "fit": fit,
        "marginal_reliability": rho,
        "intrinsic_consistency": intrinsic,
        "human": human_report,
        "warnings": warnings,
    }))?)
}
