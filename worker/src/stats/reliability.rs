//! `tribunal stats agree|aa|consistency|position`: is the judge a reliable instrument? Each
//! subcommand reads long-format ratings CSVs ([`tribunal::reliability::ratings`]; the column names are
//! options, so LLMFAO's `id,worker,winner` is read with `--item id --rater worker --score
//! winner`) and prints one JSON document with the settings (seed included) and warnings.
//!
//! - `agree`: prints [`AgreementReportParams::fit`]: Krippendorff's α of all the input's raters
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
//! Each subcommand is a binding of one report of `tribunal` ([`AgreementReportParams`],
//! [`AaReportParams`], [`ConsistencyReportParams`], [`PositionReportParams`]), the same the
//! Reliability page runs. On the nominal scale the files of one command are coded together:
//! without `--categories` the labels found in all of them, sorted, so a label has one code in
//! every file.

use super::{add_input, Planned};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::math::resample::BootstrapParams;
use tribunal::reliability::aa_report::AaReportParams;
use tribunal::reliability::aa_test::AaTestParams;
use tribunal::reliability::alpha::AlphaLevel;
use tribunal::reliability::consistency::ConsistencyParams;
use tribunal::reliability::consistency_report::ConsistencyReportParams;
use tribunal::reliability::kappa::KappaParams;
use tribunal::reliability::kinds::AgreementSpec;
use tribunal::reliability::position_bias::PositionBiasParams;
use tribunal::reliability::position_report::{Orders, PositionLabels, PositionReportParams};
use tribunal::reliability::ratings::{Columns, RatingsParams, ScoreScale};
use tribunal::reliability::reliability_report::AgreementReportParams;
use tribunal::reliability::slices::SliceParams;

/// The column names of the ratings files.
#[derive(Args)]
pub struct ColumnArgs {
    /// Column holding the rated item.
    #[arg(long, default_value = "item")]
    item: String,
    /// Column holding the rater.
    #[arg(long, default_value = "rater")]
    rater: String,
    /// Column holding the score.
    #[arg(long, default_value = "score")]
    score: String,
    /// Column holding the prompt variant, order or repeat (optional in the files).
    #[arg(long, default_value = "variant")]
    variant_column: String,
    /// Column holding the rubric criterion (optional in the files).
    #[arg(long, default_value = "criterion")]
    criterion_column: String,
}

impl ColumnArgs {
    /// The columns (the rater of a file without the rater column is set per file).
    pub(super) fn columns(&self) -> Columns {
        Columns {
            item: self.item.clone(),
            rater: self.rater.clone(),
            score: self.score.clone(),
            variant: self.variant_column.clone(),
            criterion: self.criterion_column.clone(),
            default_rater: None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Scale {
    /// Numbers: order and distance are meaningful.
    Numeric,
    /// Labels: only equality is meaningful, unless `--categories` orders them.
    Nominal,
}

/// How scores are read.
#[derive(Args)]
pub struct ScaleArgs {
    /// How scores are read.
    #[arg(long, value_enum, default_value_t = Scale::Numeric)]
    scale: Scale,
    /// Nominal scale: the allowed labels in scale order, comma-separated (default: the labels
    /// found, sorted).
    #[arg(long, value_delimiter = ',')]
    categories: Option<Vec<String>>,
}

impl ScaleArgs {
    pub(super) fn params(&self) -> RatingsParams {
        RatingsParams {
            scale: match self.scale {
                Scale::Numeric => ScoreScale::Numeric,
                Scale::Nominal => ScoreScale::Nominal,
            },
            categories: self.categories.clone(),
        }
    }
}

/// Bootstrap settings.
#[derive(Args)]
pub struct BootArgs {
    /// Seed of the bootstrap (ChaCha8): the same seed gives the same intervals.
    #[arg(long, default_value_t = BootstrapParams::default().seed, allow_negative_numbers = true)]
    seed: u64,
    /// Bootstrap rounds.
    #[arg(long, default_value_t = BootstrapParams::default().rounds, allow_negative_numbers = true)]
    bootstrap: usize,
    /// Coverage of the percentile intervals, in (0, 1).
    #[arg(long, default_value_t = BootstrapParams::default().level, allow_negative_numbers = true)]
    confidence: f64,
}

impl BootArgs {
    fn params(&self) -> BootstrapParams {
        BootstrapParams {
            rounds: self.bootstrap,
            seed: self.seed,
            level: self.confidence,
        }
    }
}

/// `A,B` → two names.
fn two_names(text: &str) -> Result<(String, String), String> {
    match text.split(',').map(str::trim).collect::<Vec<_>>()[..] {
        [a, b] if !a.is_empty() && !b.is_empty() => Ok((a.to_owned(), b.to_owned())),
        _ => Err(format!("expected two names `A,B`, found `{text}`")),
    }
}

/// `LO,HI` → two numbers.
fn two_numbers(text: &str) -> Result<(f64, f64), String> {
    let (a, b) = two_names(text)?;
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        _ => Err(format!("expected two numbers `LO,HI`, found `{text}`")),
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Level {
    Nominal,
    Ordinal,
    Interval,
    Ratio,
}

#[derive(Args)]
pub struct AgreeArgs {
    /// Ratings CSV of a group of raters (people, judges) (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    #[command(flatten)]
    columns: ColumnArgs,
    #[command(flatten)]
    scale: ScaleArgs,
    #[command(flatten)]
    boot: BootArgs,
    /// Level of measurement of Krippendorff's α (default: nominal on the nominal scale,
    /// interval on the numeric scale).
    #[arg(long, value_enum)]
    level: Option<Level>,
    /// Two raters of the input to compare, `A,B` (repeatable).
    #[arg(long, value_name = "A,B", value_parser = two_names)]
    pair: Vec<(String, String)>,
    /// A judge's ratings CSV (repeatable): each of its raters against the input raters'
    /// majority labels. A file without the rater column is one judge named after the file.
    #[arg(long, value_name = "FILE")]
    judge: Vec<PathBuf>,
    /// The criterion to analyse, when the files hold several.
    #[arg(long)]
    criterion: Option<String>,
    /// The variant to analyse, when the files hold several.
    #[arg(long)]
    variant: Option<String>,
    /// A slice column of the input (topic, length bucket, …): each judge's agreement with the
    /// majority per slice, tested against the rest, with Holm and BH adjusted p-values.
    #[arg(long)]
    slice: Option<String>,
    /// Level at which the slices' adjusted p-values reject.
    #[arg(long, default_value_t = 0.05, allow_negative_numbers = true)]
    slice_alpha: f64,
}

pub fn agree(args: AgreeArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "ratings", &args.input)?;
    for (i, path) in args.judge.iter().enumerate() {
        add_input(&mut inputs, &AgreementSpec::judge_role(i + 1), path)?;
    }
    let report = AgreementReportParams {
        columns: args.columns.columns(),
        ratings: args.scale.params(),
        level: args.level.map(|level| match level {
            Level::Nominal => AlphaLevel::Nominal,
            Level::Ordinal => AlphaLevel::Ordinal,
            Level::Interval => AlphaLevel::Interval,
            Level::Ratio => AlphaLevel::Ratio,
        }),
        bootstrap: args.boot.params(),
        pairs: args.pair,
        criterion: args.criterion,
        variant: args.variant,
        slice: None,
    };
    let slices = args.slice.map(|column| SliceParams {
        column,
        alpha: args.slice_alpha,
    });
    let spec = AgreementSpec {
        report,
        judges: args.judge.len(),
        slices,
    };
    Ok(Planned::new(Analysis::Agreement(spec), inputs))
}

#[derive(Args)]
pub struct AaArgs {
    /// Ratings CSV holding both runs as raters (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    #[command(flatten)]
    columns: ColumnArgs,
    #[command(flatten)]
    scale: ScaleArgs,
    /// The two runs: raters of the input, `A,B`.
    #[arg(long, value_name = "A,B", value_parser = two_names)]
    runs: (String, String),
    /// The reference labels: a rater of the input (enables the κ delta).
    #[arg(long)]
    gold: Option<String>,
    /// The score (label or number) that means pass (enables the pass-rate delta and the item
    /// disagreement).
    #[arg(long)]
    pass: Option<String>,
    /// Lowest and highest score of the scale, for the mean absolute score difference on 0–1.
    #[arg(long, value_name = "LO,HI", value_parser = two_numbers, allow_hyphen_values = true)]
    score_range: Option<(f64, f64)>,
    /// Pass-rate delta band, as a proportion.
    #[arg(long, default_value_t = AaTestParams::default().pass_rate_band, allow_negative_numbers = true)]
    pass_rate_band: f64,
    /// Band for the share of items whose pass/fail verdict differs.
    #[arg(long, default_value_t = AaTestParams::default().disagreement_band, allow_negative_numbers = true)]
    disagreement_band: f64,
    /// Band for the κ delta.
    #[arg(long, default_value_t = AaTestParams::default().kappa_band, allow_negative_numbers = true)]
    kappa_band: f64,
    /// Band for the mean absolute score difference on 0–1.
    #[arg(long, default_value_t = AaTestParams::default().score_band, allow_negative_numbers = true)]
    score_band: f64,
    /// The criterion to analyse, when the file holds several.
    #[arg(long)]
    criterion: Option<String>,
    /// The variant to analyse, when the file holds several.
    #[arg(long)]
    variant: Option<String>,
}

pub fn aa(args: AaArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "ratings", &args.input)?;
    let params = AaReportParams {
        columns: args.columns.columns(),
        ratings: args.scale.params(),
        runs: args.runs.clone(),
        gold: args.gold.clone(),
        pass: args.pass.clone(),
        criterion: args.criterion.clone(),
        variant: args.variant.clone(),
        test: AaTestParams {
            pass_rate_band: args.pass_rate_band,
            disagreement_band: args.disagreement_band,
            kappa_band: args.kappa_band,
            score_band: args.score_band,
            score_range: args
                .score_range
                .unwrap_or(AaTestParams::default().score_range),
            kappa: KappaParams::default(),
        },
    };
    Ok(Planned::new(Analysis::Aa(params), inputs))
}

#[derive(Args)]
pub struct ConsistencyArgs {
    /// Ratings CSV of repeated judgments (`-` for stdin): the repeats are the `variant` values
    /// of one rater, or the raters when the file has no variant column.
    #[arg(long)]
    input: PathBuf,
    #[command(flatten)]
    columns: ColumnArgs,
    #[command(flatten)]
    scale: ScaleArgs,
    /// The judge, when the file has a variant column and several raters.
    #[arg(long)]
    rater_name: Option<String>,
    /// The criterion that is the final label; without a criterion column the one criterion is
    /// named after the score column.
    #[arg(long)]
    label: Option<String>,
    /// Items with fewer repeats are skipped.
    #[arg(long, default_value_t = ConsistencyParams::default().min_repeats, allow_negative_numbers = true)]
    min_repeats: usize,
    /// Mean entropy (bits) below this is excellent.
    #[arg(long, default_value_t = ConsistencyParams::default().excellent_below, allow_negative_numbers = true)]
    excellent_below: f64,
    /// Mean entropy (bits) below this is good; at or above, unstable.
    #[arg(long, default_value_t = ConsistencyParams::default().good_below, allow_negative_numbers = true)]
    good_below: f64,
    /// Share of inconsistent items above which the metric needs a redesign.
    #[arg(long, default_value_t = ConsistencyParams::default().review_share, allow_negative_numbers = true)]
    review_share: f64,
}

pub fn consistency(args: ConsistencyArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "ratings", &args.input)?;
    let params = ConsistencyReportParams {
        columns: args.columns.columns(),
        ratings: args.scale.params(),
        rater: args.rater_name.clone(),
        consistency: ConsistencyParams {
            min_repeats: args.min_repeats,
            excellent_below: args.excellent_below,
            good_below: args.good_below,
            review_share: args.review_share,
            label: args.label.clone(),
        },
    };
    Ok(Planned::new(Analysis::Consistency(params), inputs))
}

#[derive(Args)]
pub struct PositionArgs {
    /// Pairwise verdicts CSV (`-` for stdin): the item is the pair, the score the verdict by
    /// position, the variant the order shown (`--ab`/`--ba`); without a variant column every
    /// verdict is in the order shown.
    #[arg(long)]
    input: PathBuf,
    #[command(flatten)]
    columns: ColumnArgs,
    #[command(flatten)]
    boot: BootArgs,
    /// The verdict label for the first-shown answer.
    #[arg(long, default_value = "left")]
    first: String,
    /// The verdict label for the second-shown answer.
    #[arg(long, default_value = "right")]
    second: String,
    /// The verdict label for a tie.
    #[arg(long, default_value = "tie")]
    tie: String,
    /// The variant value of the original order.
    #[arg(long, default_value = "ab")]
    ab: String,
    /// The variant value of the swapped order.
    #[arg(long, default_value = "ba")]
    ba: String,
    /// The judge, when the file holds several raters.
    #[arg(long)]
    rater_name: Option<String>,
    /// The criterion to analyse, when the file holds several.
    #[arg(long)]
    criterion: Option<String>,
    /// First-position rate under no bias.
    #[arg(long, default_value_t = PositionBiasParams::default().null_rate, allow_negative_numbers = true)]
    null_rate: f64,
    /// Level below which the binomial test calls the asymmetry significant.
    #[arg(long, default_value_t = PositionBiasParams::default().significance, allow_negative_numbers = true)]
    significance: f64,
}

pub fn position(args: PositionArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "ratings", &args.input)?;
    let params = PositionReportParams {
        columns: args.columns.columns(),
        labels: PositionLabels {
            first: args.first.clone(),
            second: args.second.clone(),
            tie: args.tie.clone(),
        },
        orders: Orders {
            ab: args.ab.clone(),
            ba: args.ba.clone(),
        },
        rater: args.rater_name.clone(),
        criterion: args.criterion.clone(),
        test: PositionBiasParams {
            bootstrap: args.boot.params(),
            null_rate: args.null_rate,
            significance: args.significance,
        },
    };
    Ok(Planned::new(Analysis::Position(params), inputs))
}
