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
use tribunal::compare::score_table::{ScoreColumns, TableParams};
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
    /// Compare each system with this one (default: every pair).
    #[arg(long)]
    baseline: Option<String>,
    /// A slice column (repeatable): a system × value table and each value's differences.
    #[arg(long = "slice")]
    slices: Vec<String>,
    /// A numeric column (an answer's length) cut into quartile buckets as a slice.
    #[arg(long)]
    length: Option<String>,
    /// Error level of the intervals and tests (coverage 1 − α).
    #[arg(long, default_value_t = CompareParams::default().alpha, allow_negative_numbers = true)]
    alpha: f64,
    /// Power at which each pair's minimum detectable difference is given.
    #[arg(long, default_value_t = CompareParams::default().power, allow_negative_numbers = true)]
    power: f64,
    /// A difference worth detecting (score units; 0.05 = 5 points of pass rate): each pair
    /// says how many items it needs.
    #[arg(long, allow_negative_numbers = true)]
    target_difference: Option<f64>,
    /// Rounds of the paired bootstrap (0: none).
    #[arg(long, default_value_t = CompareParams::default().bootstrap_rounds)]
    bootstrap_rounds: usize,
    /// Seed of the bootstrap (recorded in the report's settings).
    #[arg(long, default_value_t = CompareParams::default().seed)]
    seed: u64,
    /// The column naming the item.
    #[arg(long, default_value_t = ScoreColumns::default().item)]
    item_column: String,
    /// The column naming the system.
    #[arg(long, default_value_t = ScoreColumns::default().system)]
    system_column: String,
    /// The column holding the score.
    #[arg(long, default_value_t = ScoreColumns::default().score)]
    score_column: String,
    /// The column naming the criterion (read when present).
    #[arg(long, default_value_t = ScoreColumns::default().criterion)]
    criterion_column: String,
    /// The column naming the epoch (read when present).
    #[arg(long, default_value_t = ScoreColumns::default().epoch)]
    epoch_column: String,
    /// The column naming the item's cluster (read when present).
    #[arg(long, default_value_t = ScoreColumns::default().cluster)]
    cluster_column: String,
    /// The column holding a human label (read when present; empty where none).
    #[arg(long, default_value_t = ScoreColumns::default().human)]
    human_column: String,
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
    let params = CompareParams {
        table: TableParams {
            columns: ScoreColumns {
                item: args.item_column,
                system: args.system_column,
                score: args.score_column,
                criterion: args.criterion_column,
                epoch: args.epoch_column,
                cluster: args.cluster_column,
                human: args.human_column,
            },
            slices: args.slices,
            length: args.length,
        },
        baseline: args.baseline,
        alpha: args.alpha,
        power: args.power,
        target_difference: args.target_difference,
        bootstrap_rounds: args.bootstrap_rounds,
        seed: args.seed,
    };
    Ok(Planned::new(Analysis::Compare(params), inputs))
}
