//! `tribunal stats agree|aa|consistency|position`: is the judge a reliable instrument? Each
//! subcommand reads long-format ratings CSVs ([`tribunal::ratings`]; the column names are
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
//! On the nominal scale the files of one command are coded together ([`read_together`]):
//! without `--categories` the labels found in all of them, sorted, so a label has one code in
//! every file.

use super::read_input;
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use tribunal::aa_test::{AaLabels, AaRuns, AaTestParams};
use tribunal::alpha::AlphaLevel;
use tribunal::consistency::{ConsistencyParams, Criterion};
use tribunal::kappa::KappaParams;
use tribunal::position_bias::{PairVerdicts, PositionBiasParams, Verdict};
use tribunal::ratings::{Columns, RatingMatrix, Ratings, RatingsParams, ScoreScale, Selection};
use tribunal::reliability_report::{read_together, AgreementReportParams, RatingsFile};
use tribunal::resample::BootstrapParams;
use tribunal::slices::SliceParams;

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
    #[arg(long, default_value_t = BootstrapParams::default().seed)]
    seed: u64,
    /// Bootstrap rounds.
    #[arg(long, default_value_t = BootstrapParams::default().rounds)]
    bootstrap: usize,
    /// Coverage of the percentile intervals, in (0, 1).
    #[arg(long, default_value_t = BootstrapParams::default().level)]
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

/// The name a file gives the rater of its rows when it has no rater column: its stem.
pub(super) fn file_rater(path: &Path) -> String {
    if path == Path::new("-") {
        return "stdin".to_owned();
    }
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| path.display().to_string())
}

/// Reads `files` (each with the rater of its rows when it has no rater column) on one scale,
/// coded together ([`read_together`]).
pub(super) fn read_files(
    files: &[(&Path, Option<String>)],
    columns: &ColumnArgs,
    params: &RatingsParams,
) -> anyhow::Result<Vec<Ratings>> {
    let files = files
        .iter()
        .map(|(path, default_rater)| {
            let (source, bytes) = read_input(path)?;
            Ok(RatingsFile {
                source,
                default_rater: default_rater.clone(),
                bytes,
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(read_together(&files, &columns.columns(), params)?)
}

/// The settings every subcommand echoes: the columns and the scale it read the files with.
fn read_settings(columns: &ColumnArgs, ratings: &Ratings) -> Value {
    json!({
        "columns": columns.columns(),
        "scale": ratings.scale,
        "categories": (ratings.scale == ScoreScale::Nominal).then_some(&ratings.categories),
    })
}

/// Prints each warning on stderr too, for a person reading the terminal.
fn echo(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
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
    #[arg(long, default_value_t = 0.05)]
    slice_alpha: f64,
}

pub fn agree(args: AgreeArgs) -> anyhow::Result<String> {
    let read = |path: &Path, default_rater: Option<String>| {
        let (source, bytes) = read_input(path)?;
        Ok(RatingsFile {
            source,
            default_rater,
            bytes,
        })
    };
    let input = read(&args.input, None)?;
    let judges = args
        .judge
        .iter()
        .map(|p| read(p, Some(file_rater(p))))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let params = AgreementReportParams {
        columns: args.columns.columns(),
        ratings: args.scale.params(),
        level: args.level.map(|level| match level {
            Level::Nominal => AlphaLevel::Nominal,
            Level::Ordinal => AlphaLevel::Ordinal,
            Level::Interval => AlphaLevel::Interval,
            Level::Ratio => AlphaLevel::Ratio,
        }),
        bootstrap: args.boot.params(),
        pairs: args.pair.clone(),
        criterion: args.criterion.clone(),
        variant: args.variant.clone(),
        slice: None,
    };
    let report = params.fit(&input, &judges)?;
    echo(&report.warnings);
    let mut json = serde_json::to_value(&report)?;
    if let Some(column) = &args.slice {
        let slices = SliceParams {
            column: column.clone(),
            alpha: args.slice_alpha,
        }
        .fit(&params, &input, &judges)?;
        json["slices"] = serde_json::to_value(slices)?;
    }
    Ok(serde_json::to_string_pretty(&json)?)
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
    #[arg(long, value_name = "LO,HI", value_parser = two_numbers)]
    score_range: Option<(f64, f64)>,
    /// Pass-rate delta band, as a proportion.
    #[arg(long, default_value_t = AaTestParams::default().pass_rate_band)]
    pass_rate_band: f64,
    /// Band for the share of items whose pass/fail verdict differs.
    #[arg(long, default_value_t = AaTestParams::default().disagreement_band)]
    disagreement_band: f64,
    /// Band for the κ delta.
    #[arg(long, default_value_t = AaTestParams::default().kappa_band)]
    kappa_band: f64,
    /// Band for the mean absolute score difference on 0–1.
    #[arg(long, default_value_t = AaTestParams::default().score_band)]
    score_band: f64,
    /// The criterion to analyse, when the file holds several.
    #[arg(long)]
    criterion: Option<String>,
    /// The variant to analyse, when the file holds several.
    #[arg(long)]
    variant: Option<String>,
}

pub fn aa(args: AaArgs) -> anyhow::Result<String> {
    let ratings = read_files(&[(&args.input, None)], &args.columns, &args.scale.params())?;
    let ratings = ratings.first().context("no input file was read")?;
    let matrix = ratings.matrix(&Selection {
        criterion: args.criterion.clone(),
        variant: args.variant.clone(),
        slices: Vec::new(),
    })?;
    let (run_a, run_b) = &args.runs;
    let a = matrix.rater_index(run_a)?;
    let b = matrix.rater_index(run_b)?;
    let gold = args
        .gold
        .as_deref()
        .map(|g| matrix.rater_index(g))
        .transpose()?;
    let pass = args
        .pass
        .as_deref()
        .map(|p| pass_value(ratings, p))
        .transpose()?;
    let params = AaTestParams {
        pass_rate_band: args.pass_rate_band,
        disagreement_band: args.disagreement_band,
        kappa_band: args.kappa_band,
        score_band: args.score_band,
        score_range: args
            .score_range
            .unwrap_or(AaTestParams::default().score_range),
        kappa: KappaParams::default(),
    };
    let (xa, xb) = matrix.paired(a, b);
    let labels = gold.map(|g| {
        let (mut ra, mut rb, mut rg) = (Vec::new(), Vec::new(), Vec::new());
        for row in &matrix.values {
            if let (Some(x), Some(y), Some(z)) = (row[a], row[b], row[g]) {
                ra.push(x);
                rb.push(y);
                rg.push(z);
            }
        }
        AaLabels {
            run_a: ra,
            run_b: rb,
            gold: rg,
        }
    });
    let runs = AaRuns {
        pass: pass.map(|p| {
            (
                xa.iter().map(|&x| x == p).collect(),
                xb.iter().map(|&x| x == p).collect(),
            )
        }),
        labels,
        scores: (ratings.scale == ScoreScale::Numeric).then(|| (xa.clone(), xb.clone())),
    };
    let test = params
        .compute(&runs)
        .with_context(|| format!("{}: A/A test of `{run_a}` and `{run_b}`", ratings.source))?;
    echo(&test.warnings);
    let mut settings = read_settings(&args.columns, ratings);
    settings["runs"] = json!([run_a, run_b]);
    settings["gold"] = json!(args.gold);
    settings["pass"] = json!(args.pass);
    settings["criterion"] = json!(args.criterion);
    settings["variant"] = json!(args.variant);
    settings["bands"] = json!(test.settings);
    Ok(serde_json::to_string_pretty(&json!({
        "statistic": "aa_test",
        "input": ratings.source,
        "settings": settings,
        "n_items_both_runs": xa.len(),
        "checks": test.checks,
        "overall": test.overall,
        "warnings": test.warnings,
    }))?)
}

/// The value of the pass label: its code on the nominal scale, the number on the numeric.
fn pass_value(ratings: &Ratings, pass: &str) -> anyhow::Result<f64> {
    match ratings.scale {
        ScoreScale::Nominal => match ratings.categories.iter().position(|c| c == pass) {
            Some(code) => Ok(code as f64),
            None => bail!(
                "--pass: expected one of the labels `{}`, found `{pass}`",
                ratings.categories.join("`, `")
            ),
        },
        ScoreScale::Numeric => pass
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .with_context(|| {
                format!("--pass: expected a number (the scale is numeric), found `{pass}`")
            }),
    }
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
    #[arg(long, default_value_t = ConsistencyParams::default().min_repeats)]
    min_repeats: usize,
    /// Mean entropy (bits) below this is excellent.
    #[arg(long, default_value_t = ConsistencyParams::default().excellent_below)]
    excellent_below: f64,
    /// Mean entropy (bits) below this is good; at or above, unstable.
    #[arg(long, default_value_t = ConsistencyParams::default().good_below)]
    good_below: f64,
    /// Share of inconsistent items above which the metric needs a redesign.
    #[arg(long, default_value_t = ConsistencyParams::default().review_share)]
    review_share: f64,
}

pub fn consistency(args: ConsistencyArgs) -> anyhow::Result<String> {
    let default_rater = Some(file_rater(&args.input));
    let ratings = read_files(
        &[(&args.input, default_rater)],
        &args.columns,
        &args.scale.params(),
    )?;
    let ratings = ratings.first().context("no input file was read")?;
    let criteria: Vec<Option<&str>> = if ratings.criteria.is_empty() {
        vec![None]
    } else {
        ratings.criteria.iter().map(|c| Some(c.as_str())).collect()
    };
    let by_variant = !ratings.variants.is_empty();
    let matrices = criteria
        .iter()
        .map(|&criterion| {
            if by_variant {
                ratings.variant_matrix(args.rater_name.as_deref(), criterion)
            } else {
                ratings.matrix(&Selection {
                    criterion: criterion.map(str::to_owned),
                    ..Default::default()
                })
            }
        })
        .collect::<tribunal::Result<Vec<RatingMatrix>>>()?;
    let names: Vec<&str> = criteria
        .iter()
        .map(|c| c.unwrap_or(&ratings.columns.score))
        .collect();
    let params = ConsistencyParams {
        min_repeats: args.min_repeats,
        excellent_below: args.excellent_below,
        good_below: args.good_below,
        review_share: args.review_share,
        label: args.label.clone(),
    };
    let report = params
        .compute(
            &names
                .iter()
                .zip(&matrices)
                .map(|(name, repeats)| Criterion { name, repeats })
                .collect::<Vec<_>>(),
        )
        .with_context(|| format!("{}: self-consistency", ratings.source))?;
    echo(&report.warnings);
    let criteria_json: Vec<Value> = report
        .criteria
        .iter()
        .zip(&matrices)
        .map(|(c, m)| {
            let mut entry = serde_json::to_value(c)?;
            entry["items"] = json!(m.items);
            entry["repeats"] = json!(m.raters);
            Ok(entry)
        })
        .collect::<anyhow::Result<_>>()?;
    let mut settings = read_settings(&args.columns, ratings);
    settings["repeats_are"] = json!(if by_variant { "variants" } else { "raters" });
    settings["rater"] = json!(args.rater_name);
    settings["thresholds"] = json!(report.settings);
    Ok(serde_json::to_string_pretty(&json!({
        "statistic": "self_consistency",
        "input": ratings.source,
        "settings": settings,
        "criteria": criteria_json,
        "label_flip_rate": report.label_flip_rate,
        "n_items": report.n_items,
        "share_items_inconsistent": report.share_items_inconsistent,
        "share_items_multiple_inconsistent": report.share_items_multiple_inconsistent,
        "warnings": report.warnings,
    }))?)
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
    #[arg(long, default_value_t = PositionBiasParams::default().null_rate)]
    null_rate: f64,
    /// Level below which the binomial test calls the asymmetry significant.
    #[arg(long, default_value_t = PositionBiasParams::default().significance)]
    significance: f64,
}

pub fn position(args: PositionArgs) -> anyhow::Result<String> {
    let labels = vec![args.first.clone(), args.second.clone(), args.tie.clone()];
    let scale = RatingsParams {
        scale: ScoreScale::Nominal,
        categories: Some(labels),
    };
    let default_rater = Some(file_rater(&args.input));
    let ratings = read_files(&[(&args.input, default_rater)], &args.columns, &scale)?;
    let ratings = ratings.first().context("no input file was read")?;
    // Codes follow the categories: 0 first, 1 second, 2 tie.
    let verdict = |code: Option<f64>| {
        code.map(|c| match c as usize {
            0 => Verdict::First,
            1 => Verdict::Second,
            _ => Verdict::Tie,
        })
    };
    let (items, pairs): (Vec<String>, Vec<PairVerdicts>) = if ratings.variants.is_empty() {
        let matrix = ratings.matrix(&Selection {
            criterion: args.criterion.clone(),
            ..Default::default()
        })?;
        let column = match (&args.rater_name, matrix.raters.len()) {
            (Some(name), _) => matrix.rater_index(name)?,
            (None, 1) => 0,
            (None, _) => bail!(
                "{}: the file holds several raters (`{}`): choose one with --rater-name",
                ratings.source,
                matrix.raters.join("`, `")
            ),
        };
        let pairs = matrix
            .values
            .iter()
            .map(|row| PairVerdicts {
                ab: verdict(row[column]),
                ba: None,
            })
            .collect();
        (matrix.items, pairs)
    } else {
        let matrix =
            ratings.variant_matrix(args.rater_name.as_deref(), args.criterion.as_deref())?;
        if let Some(other) = matrix
            .raters
            .iter()
            .find(|v| **v != args.ab && **v != args.ba)
        {
            bail!(
                "{}: expected the orders `{}` and `{}` in the `{}` column, found `{other}`; name \
                 the orders with --ab and --ba",
                ratings.source,
                args.ab,
                args.ba,
                ratings.columns.variant
            );
        }
        let ab = matrix.raters.iter().position(|v| *v == args.ab);
        let ba = matrix.raters.iter().position(|v| *v == args.ba);
        let pairs = matrix
            .values
            .iter()
            .map(|row| PairVerdicts {
                ab: ab.and_then(|c| verdict(row[c])),
                ba: ba.and_then(|c| verdict(row[c])),
            })
            .collect();
        (matrix.items, pairs)
    };
    let params = PositionBiasParams {
        bootstrap: args.boot.params(),
        null_rate: args.null_rate,
        significance: args.significance,
    };
    let report = params
        .compute(&pairs)
        .with_context(|| format!("{}: position bias", ratings.source))?;
    echo(&report.warnings);
    let mut settings = read_settings(&args.columns, ratings);
    settings["orders"] = json!({ "ab": args.ab, "ba": args.ba });
    settings["rater"] = json!(args.rater_name);
    settings["criterion"] = json!(args.criterion);
    settings["test"] = json!(report.settings);
    let mut out = serde_json::to_value(&report)?;
    out["statistic"] = json!("position_bias");
    out["input"] = json!(ratings.source);
    out["settings"] = settings;
    out["n_items"] = json!(items.len());
    Ok(serde_json::to_string_pretty(&out)?)
}
