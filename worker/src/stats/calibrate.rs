//! `tribunal stats calibrate`: fits a quantitative-judge head on a training CSV with γ chosen by
//! k-fold cross-validation, scores it against the base judge on a test CSV, prints the report
//! (CV curve, metrics with bootstrap CIs, the model file) and writes the model file with
//! `--model-out`.

use super::read_input;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use tribunal::calibration::CalibrationParams;
use tribunal::calibration_data::{parse_calibration, HeadKind};
use tribunal::cross_validation::{CrossValidationParams, GammaGrid};
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
    /// Cross-validation folds.
    #[arg(long, default_value_t = CrossValidationParams::default().folds)]
    folds: usize,
    /// Seed of the fold assignment and of the metrics' bootstrap.
    #[arg(long, default_value_t = CrossValidationParams::default().seed)]
    seed: u64,
    /// Smallest γ of the log grid.
    #[arg(long, default_value_t = GammaGrid::default().min)]
    gamma_min: f64,
    /// Largest γ of the log grid.
    #[arg(long, default_value_t = GammaGrid::default().max)]
    gamma_max: f64,
    /// Points of the log grid.
    #[arg(long, default_value_t = GammaGrid::default().points)]
    gammas: usize,
    /// Bootstrap rounds of the metrics' intervals.
    #[arg(long, default_value_t = BootstrapParams::default().rounds)]
    bootstrap: usize,
    /// Coverage of the metrics' intervals.
    #[arg(long, default_value_t = BootstrapParams::default().level)]
    level: f64,
    /// Use raw embedding coordinates instead of standardising them on the training rows.
    #[arg(long)]
    no_standardize: bool,
    /// Write the model file (versioned JSON) here.
    #[arg(long)]
    model_out: Option<PathBuf>,
}

pub fn run(args: CalibrateArgs) -> anyhow::Result<String> {
    let (train_source, train_bytes) = read_input(&args.train)?;
    let (test_source, test_bytes) = read_input(&args.test)?;
    let train = parse_calibration(&train_source, &train_bytes, args.head, None)?;
    let test = parse_calibration(&test_source, &test_bytes, args.head, Some(train.dim()))?;
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
    }
    .fit(&train, &test)?;
    if let Some(path) = &args.model_out {
        std::fs::write(path, calibration.model.to_json()?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(serde_json::to_string_pretty(&calibration)?)
}
