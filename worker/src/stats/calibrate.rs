//! `tribunal stats calibrate`: fits a quantitative-judge head on a training CSV with γ chosen by
//! k-fold cross-validation, scores it against the base judge on a test CSV, prints the report
//! (CV curve, metrics with bootstrap CIs, the model file) and writes the model file with
//! `--model-out`; optionally after an ablation (`--ablation`) and with a training-size curve
//! (`--train-sizes`). The embeddings come from the `embedding` column, from `.npy` /
//! `.safetensors` files, or — with `--rationale COLUMN` — from embedding that text column of
//! both files with all-MiniLM-L6-v2 (the models under `--models`). The settings' options are
//! [`CalibrationSpec`]'s own (feature `cli` of `tribunal`), its bootstrap's `--seed` the seed of
//! every part ([`CalibrationSpec::seeded`]); this module adds the files.

use super::{add_input, Output, Planned};
use crate::engine::embedder::Embedder;
use crate::input_file::read_texts;
use crate::judge::{embed_texts, EngineArgs};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Input, Inputs};
use tribunal::calibration::kinds::CalibrationSpec;
use tribunal::io::embedding_file::npy_f32;

#[derive(Args)]
pub struct CalibrateArgs {
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
    /// Use raw embedding coordinates instead of standardising them on the training rows.
    #[arg(long)]
    no_standardize: bool,
    /// Write the model file (versioned JSON) here.
    #[arg(long)]
    model_out: Option<PathBuf>,
    #[command(flatten)]
    spec: CalibrationSpec,
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
    let seed = args.spec.calibration.bootstrap.seed;
    let mut spec = args.spec.seeded(seed);
    spec.calibration.standardize = !args.no_standardize;
    let mut planned = Planned::new(Analysis::Calibration(spec), inputs);
    planned.outputs.extend(args.model_out.map(Output::Model));
    Ok(planned)
}
