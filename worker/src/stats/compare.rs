//! `tribunal stats compare`: systems compared on pointwise scores — each system's mean or pass
//! rate per criterion with its intervals, the paired difference of every pair (or of each
//! system against `--baseline`) with t, clustered, bootstrap and exact tests adjusted by Holm
//! and Benjamini–Hochberg, slices, and with a `human` column (or a `--gold` file) the
//! judge-corrected rates
//! ([`tribunal::compare::comparison`]). Other tools' files go straight in: Inspect logs,
//! promptfoo results, AlpacaEval annotations and lm-evaluation-harness samples (one `--input`
//! each, a model per file) are converted to scores and joined ([`tribunal::readers::scores_of`]).

use super::{add_input, Planned};
use crate::input_file::read_input;
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::compare::comparison::CompareParams;
use tribunal::readers::{scores_of, ConvertParams, Format};

#[derive(Args)]
pub struct CompareArgs {
    /// Scores CSV: `item,system,score[,criterion][,epoch][,cluster][,human]` and slice columns
    /// (`-` for stdin); or, repeated, other tools' files: Inspect logs, promptfoo results,
    /// AlpacaEval annotations, lm-evaluation-harness samples (a model each), recognised from
    /// their records and joined.
    #[arg(long, required = true)]
    input: Vec<PathBuf>,
    /// The tools' files' format when it is not recognised: inspect, promptfoo, alpaca-eval or
    /// lm-eval.
    #[arg(long)]
    from: Option<String>,
    /// The system an lm-eval file's scores belong to (default: the folder holding the file).
    #[arg(long)]
    system: Option<String>,
    /// Human gold labels in a file of their own: `item,system[,criterion],human` (the same
    /// column names), joined onto the scores' answers for the judge-corrected rates.
    #[arg(long)]
    gold: Option<PathBuf>,
    #[command(flatten)]
    params: CompareParams,
}

pub fn plan(args: CompareArgs) -> anyhow::Result<Planned> {
    let files = args
        .input
        .iter()
        .map(|path| read_input(path))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let format = args.from.as_deref().map(Format::parse).transpose()?;
    let convert = ConvertParams {
        system: args.system,
        ..ConvertParams::default()
    };
    let (name, bytes, warnings) = scores_of(files, format, &convert)?;
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    let mut inputs = Inputs::new();
    inputs.insert("scores", name, bytes);
    if let Some(gold) = &args.gold {
        add_input(&mut inputs, "gold", gold)?;
    }
    Ok(Planned::new(Analysis::Compare(args.params), inputs))
}
