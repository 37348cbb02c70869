//! `tribunal stats calibrate`: fits a quantitative-judge head on a training CSV with γ chosen by
//! k-fold cross-validation, scores it against the base judge on a test CSV, prints the report
//! (CV curve, metrics with bootstrap CIs, the model file) and writes the model file with
//! `--model-out`; optionally after an ablation (`--ablation`) and with a training-size curve
//! (`--train-sizes`). The embeddings come from the `embedding` column, from `.npy` /
//! `.safetensors` files, or — with `--rationale COLUMN` — from embedding that text column of
//! both files with all-MiniLM-L6-v2 (the models under `--models`).

use super::{add_input, Output, Planned};
use crate::engine::embedder::Embedder;
use crate::input_file::read_texts;
use crate::judge::{embed_texts, EngineArgs};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Input, Inputs};
use tribunal::calibration::ablation::{Ablation, TrainingCurveParams};
use tribunal::calibration::calibration_data::HeadKind;
use tribunal::calibration::cross_validation::{CrossValidationParams, GammaGrid};
use tribunal::calibration::kinds::CalibrationSpec;
use tribunal::calibration::CalibrationParams;
use tribunal::io::embedding_file::npy_f32;
use tribunal::math::resample::BootstrapParams;

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
/// The `.npy` of the embeddings of `input`'s `column` (what `tribunal embed` writes for it),
/// with its name.
fn rationale_embeddings(
    embedder: &Embedder,
    input: &Input,
    column: &str,
) -> anyhow::Result<(String, Vec<u8>)> {
    let texts = read_texts(&input.name, &input.bytes, column)?;
    let rows = embed_texts(embedder, &texts, 32)?;
    let dim = rows.first().map_or(0, Vec::len);
    Ok((
        format!("{} `{column}` (all-MiniLM-L6-v2)", input.name),
        npy_f32(&rows, dim),
    ))
}

pub fn plan(args: CalibrateArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "train", &args.train)?;
    add_input(&mut inputs, "test", &args.test)?;
    match (
        &args.rationale,
        &args.train_embeddings,
        &args.test_embeddings,
    ) {
        (Some(column), _, _) => {
            let embedder = args.engine.embedder()?;
            for role in ["train", "test"] {
                let (name, npy) = rationale_embeddings(&embedder, inputs.get(role)?, column)?;
                inputs.insert(format!("{role}_embeddings"), name, npy);
            }
        }
        (None, Some(train), Some(test)) => {
            add_input(&mut inputs, "train_embeddings", train)?;
            add_input(&mut inputs, "test_embeddings", test)?;
        }
        _ => {}
    }
    let ablation = args
        .ablation
        .as_deref()
        .map(|value| parse_ablation(value, args.seed))
        .transpose()?;
    let calibration = CalibrationParams {
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
    let training_curve = (!args.train_sizes.is_empty()).then(|| TrainingCurveParams {
        sizes: args.train_sizes.clone(),
        repeats: args.repeats,
        seed: args.seed,
    });
    let spec = CalibrationSpec {
        head: args.head,
        calibration,
        ablation,
        training_curve,
    };
    let mut planned = Planned::new(Analysis::Calibration(spec), inputs);
    planned.outputs.extend(args.model_out.map(Output::Model));
    Ok(planned)
}
