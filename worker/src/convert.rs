//! `tribunal convert --from FORMAT FILE`: another tool's result file as a Tribunal battles,
//! ratings or scores CSV (`--to`) on stdout (or `--out`), what was left out on stderr
//! ([`tribunal::readers`]). Without `--from`, the format is recognised from the file's first
//! record.

use crate::input_file::read_input;
use crate::stats::write_stdout;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use tribunal::readers::{convert, detect, ConvertParams, Format, Output};

#[derive(Args)]
pub struct ConvertArgs {
    /// The file (`-` for stdin).
    input: PathBuf,
    /// Its format: alpaca-eval (annotations.json), arena-hard (judgment JSONL), chatbot-arena
    /// (battle JSON) — battles; inspect (eval log .json), promptfoo (results JSON) — ratings;
    /// lm-eval (samples_<task>_….jsonl) — scores. Recognised from the file when left out.
    #[arg(long)]
    from: Option<String>,
    /// What to write: battles, ratings or scores (what `tribunal stats compare` reads; from
    /// alpaca-eval, inspect, promptfoo and lm-eval). Default: the format's own.
    #[arg(long)]
    to: Option<String>,
    /// The system an lm-eval file's scores belong to (default: the folder holding the file).
    #[arg(long)]
    system: Option<String>,
    /// Arena-Hard's baseline model, for files whose records do not name it (v0.1: gpt-4-0314).
    #[arg(long)]
    baseline: Option<String>,
    /// Write the CSV here instead of stdout.
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn run(args: ConvertArgs) -> anyhow::Result<()> {
    let (name, bytes) = read_input(&args.input)?;
    let format = match &args.from {
        Some(text) => Format::parse(text)?,
        None => detect(&bytes).with_context(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
            format!(
                "{name}: not a file of a known tool; give --from ({})",
                names.join(", ")
            )
        })?,
    };
    let params = ConvertParams {
        baseline: args.baseline,
        system: args.system,
        to: args.to.as_deref().map(Output::parse).transpose()?,
    };
    let converted = convert(format, &name, &bytes, &params)?;
    for warning in &converted.warnings {
        eprintln!("warning: {warning}");
    }
    let rows = converted.output.as_str();
    eprintln!(
        "{name}: {} — {} records, {} {rows}",
        format.describe(),
        converted.records,
        converted.rows
    );
    match &args.out {
        Some(path) => std::fs::write(path, &converted.csv)
            .with_context(|| format!("writing {}", path.display())),
        None => write_stdout(&converted.csv),
    }
}
