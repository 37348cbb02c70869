//! `tribunal stats calibrate`: fits a quantitative-judge head on a training CSV with γ chosen by
//! k-fold cross-validation, scores it against the base judge on a test CSV, prints the report
//! (CV curve, metrics with bootstrap CIs, the model file) and writes the model file with
//! `--model-out`; optionally after an ablation (`--ablation`) and with a training-size curve
//! (`--train-sizes`). The embeddings come from the `embedding` column, from `.npy` /
//! `.safetensors` files, or — with `--rationale COLUMN` — from embedding that text column of
//! both files with all-MiniLM-L6-v2 (the models under `--models`).

use super::read_input;
use crate::engine::embedder::Embedder;
use crate::judge_run::{embed_texts, read_texts, EngineArgs};
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use tribunal::ablation::{Ablation, TrainingCurveParams};
use tribunal::calibration::CalibrationParams;
use tribunal::calibration_data::{parse_calibration, parse_calibration_with_embeddings, HeadKind};
use tribunal::cross_validation::{CrossValidationParams, GammaGrid};
use tribunal::embedding_file::read_embeddings;
use tribunal::resample::BootstrapParams;

#[derive(Args)]
pub struct CalibrateArgs {
    /// Head: `ls`, `mn`, `btl`, `btl2` or `pl` (Plackett–Luce); the CSV columns follow it.
    #[arg(long, value_parser = str::parse::<HeadKind>)]
    head: HeadKind,
    /// Training CSV (`-` for stdin).
    #[arg(long)]
    train: PathBuf,
    /// Test CSV.
    #[arg(long)]
    test: PathBuf,
    /// The training embeddings as a `.npy` or `.safetensors` array (row i for data row i)
    /// instead of the `embedding` column (ls, mn and btl heads).
    #[arg(long, requires = "test_embeddings")]
    train_embeddings: Option<PathBuf>,
    /// The test embeddings, likewise.
    #[arg(long, requires = "train_embeddings")]
    test_embeddings: Option<PathBuf>,
    /// Embed this text column of both CSVs (the judge's rationale) with all-MiniLM-L6-v2 and
    /// use it as the embedding (ls, mn and btl heads).
    #[arg(long, value_name = "COLUMN", conflicts_with = "train_embeddings")]
    rationale: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
    /// Cross-validation folds.
    #[arg(long, default_value_t = CrossValidationParams::default().folds, allow_negative_numbers = true)]
    folds: usize,
    /// Seed of the fold assignment and of the metrics' bootstrap.
    #[arg(long, default_value_t = CrossValidationParams::default().seed, allow_negative_numbers = true)]
    seed: u64,
    /// Smallest γ of the log grid.
    #[arg(long, default_value_t = GammaGrid::default().min, allow_negative_numbers = true)]
    gamma_min: f64,
    /// Largest γ of the log grid.
    #[arg(long, default_value_t = GammaGrid::default().max, allow_negative_numbers = true)]
    gamma_max: f64,
    /// Points of the log grid.
    #[arg(long, default_value_t = GammaGrid::default().points, allow_negative_numbers = true)]
    gammas: usize,
    /// Bootstrap rounds of the metrics' intervals.
    #[arg(long, default_value_t = BootstrapParams::default().rounds, allow_negative_numbers = true)]
    bootstrap: usize,
    /// Coverage of the metrics' intervals.
    #[arg(long, default_value_t = BootstrapParams::default().level, allow_negative_numbers = true)]
    level: f64,
    /// Use raw embedding coordinates instead of standardising them on the training rows.
    #[arg(long)]
    no_standardize: bool,
    /// Write the model file (versioned JSON) here.
    #[arg(long)]
    model_out: Option<PathBuf>,
    /// Ablate before fitting: `no-score`, `no-embedding`, or `drop:F` (drop a fraction F of the
    /// embedding coordinates, drawn with `--seed`).
    #[arg(long, value_name = "ABLATION")]
    ablation: Option<String>,
    /// Also fit on random training subsets of these sizes (e.g. `100,200,500`) and report the
    /// test metric's mean and sd over `--repeats` subsets per size.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    train_sizes: Vec<usize>,
    /// Random subsets per training size.
    #[arg(long, default_value_t = 5, allow_negative_numbers = true)]
    repeats: usize,
}

fn parse_ablation(value: &str, seed: u64) -> anyhow::Result<Ablation> {
    match value {
        "no-score" => Ok(Ablation::NoScore),
        "no-embedding" => Ok(Ablation::NoEmbedding),
        _ => {
            let fraction = value
                .strip_prefix("drop:")
                .and_then(|f| f.parse::<f64>().ok())
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "--ablation: expected `no-score`, `no-embedding` or `drop:F` with F a \
                         fraction, found `{value}`"
                    )
                })?;
            Ok(Ablation::DropFeatures { fraction, seed })
        }
    }
}

/// The MiniLM embeddings of `column` in a CSV, as f64 rows, and their name for messages.
fn rationale_embeddings(
    embedder: &Embedder,
    source: &str,
    bytes: &[u8],
    column: &str,
) -> anyhow::Result<(String, Vec<Vec<f64>>)> {
    let texts = read_texts(source, bytes, column)?;
    let rows = embed_texts(embedder, &texts, 32)?;
    Ok((
        format!("{source} `{column}` (all-MiniLM-L6-v2)"),
        rows.into_iter()
            .map(|r| r.into_iter().map(f64::from).collect())
            .collect(),
    ))
}

pub fn run(args: CalibrateArgs) -> anyhow::Result<String> {
    let (train_source, train_bytes) = read_input(&args.train)?;
    let (test_source, test_bytes) = read_input(&args.test)?;
    // The embeddings of each file, with their name, when they come from outside the CSVs.
    let embeddings = match (
        &args.rationale,
        &args.train_embeddings,
        &args.test_embeddings,
    ) {
        (Some(column), _, _) => {
            let embedder = args.engine.embedder()?;
            Some((
                rationale_embeddings(&embedder, &train_source, &train_bytes, column)?,
                rationale_embeddings(&embedder, &test_source, &test_bytes, column)?,
            ))
        }
        (None, Some(train_file), Some(test_file)) => {
            let file = |path: &PathBuf| -> anyhow::Result<(String, Vec<Vec<f64>>)> {
                let (name, bytes) = read_input(path)?;
                let rows = read_embeddings(&name, &bytes)?;
                Ok((name, rows))
            };
            Some((file(train_file)?, file(test_file)?))
        }
        _ => None,
    };
    let (mut train, mut test) = match &embeddings {
        Some(((train_name, train_rows), (test_name, test_rows))) => {
            let train = parse_calibration_with_embeddings(
                &train_source,
                &train_bytes,
                args.head,
                None,
                (train_name, train_rows),
            )?;
            let test = parse_calibration_with_embeddings(
                &test_source,
                &test_bytes,
                args.head,
                Some(train.dim()),
                (test_name, test_rows),
            )?;
            (train, test)
        }
        None => {
            let train = parse_calibration(&train_source, &train_bytes, args.head, None)?;
            let test = parse_calibration(&test_source, &test_bytes, args.head, Some(train.dim()))?;
            (train, test)
        }
    };
    let ablation = match &args.ablation {
        Some(value) => {
            let ablation = parse_ablation(value, args.seed)?;
            train = ablation.apply(&train)?;
            test = ablation.apply(&test)?;
            Some(ablation)
        }
        None => None,
    };
    let params = CalibrationParams {
        standardize: !args.no_standardize,
        cv: CrossValidationParams {
            folds: args.folds,
            seed: args.seed,
            grid: GammaGrid {
                min: args.gamma_min,
                max: args.gamma_max,
                points: args.gammas,
            },
        },
        bootstrap: BootstrapParams {
            rounds: args.bootstrap,
            seed: args.seed,
            level: args.level,
        },
    };
    let calibration = params.fit(&train, &test)?;
    if let Some(path) = &args.model_out {
        std::fs::write(path, calibration.model.to_json()?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let mut report = serde_json::to_value(&calibration)?;
    report["ablation"] = serde_json::to_value(ablation)?;
    if !args.train_sizes.is_empty() {
        let curve = TrainingCurveParams {
            sizes: args.train_sizes.clone(),
            repeats: args.repeats,
            seed: args.seed,
        }
        .fit(&params, &train, &test)?;
        report["training_curve"] = serde_json::to_value(curve)?;
    }
    Ok(serde_json::to_string_pretty(&report)?)
}
