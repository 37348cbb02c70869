//! `tribunal stats programs|label-model|route`: programmatic judges (seed 004).
//!
//! - `programs`: scores a pairs CSV ([`tribunal::program_pairs`]) with the built-in library,
//!   fits thresholds and the committee on a seeded validation split, and prints
//!   [`ProgramReportParams::fit`]: each program's τ, coverage and accuracy, the label model
//!   against majority vote with bootstrap intervals, and — with `--llm VERDICTS` — the LLM
//!   judge alone and the routing curves; the committee's position flip rate, and with
//!   `--probes FILE` the flip and bias win rates of each perturbation. `--votes-out FILE`
//!   writes the committee's votes. The staged policy: `--budget β --escalate-out ITEMS.csv`
//!   writes the most uncertain share β of the pairs as a judge items CSV; `tribunal judge` on
//!   it, then `--llm RESULTS.jsonl` merges its verdicts into those pairs (`escalation`).
//! - `label-model`: the label model on a vote file ([`tribunal::vote_file`]) against majority
//!   vote on its labelled test rows.
//! - `route`: the same plus the routing curves with the LLM judge's verdicts.

use super::read_input;
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};
use tribunal::label_model::{ClassPrior, LabelModelParams};
use tribunal::program_pairs::{
    judge_items_csv, parse_judgments_jsonl, parse_probes, parse_program_pairs, parse_verdicts,
    Preference, ProgramPair,
};
use tribunal::program_report::{
    builtin_probe_scores, builtin_scores, ProbeScores, ProgramReportParams,
};
use tribunal::program_votes::VoteParams;
use tribunal::resample::BootstrapParams;
use tribunal::routing::RoutingParams;
use tribunal::vote_file::{parse_vote_file, VoteFile, VoteOutputs};

/// Settings shared by the three commands.
#[derive(Args)]
pub struct CommitteeArgs {
    /// P(`a` wins) fixed in the label model; learned by EM when absent.
    #[arg(long, allow_negative_numbers = true)]
    class_prior: Option<f64>,
    /// Bootstrap rounds for the accuracy intervals.
    #[arg(long, default_value_t = 1000, allow_negative_numbers = true)]
    rounds: usize,
    /// Seed of the validation split, the bootstrap and the routing tie order.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    seed: u64,
    /// Interval coverage.
    #[arg(long, default_value_t = 0.95, allow_negative_numbers = true)]
    confidence: f64,
    /// Budget steps of the routing sweep (0, 1/steps, …, 1).
    #[arg(long, default_value_t = 20, allow_negative_numbers = true)]
    steps: usize,
    /// Pairs/s of the program committee, for the routing throughput.
    #[arg(long, allow_negative_numbers = true)]
    program_rate: Option<f64>,
    /// Pairs/s of the LLM judge, for the routing throughput.
    #[arg(long, allow_negative_numbers = true)]
    llm_rate: Option<f64>,
}

impl CommitteeArgs {
    fn params(&self) -> ProgramReportParams {
        ProgramReportParams {
            seed: self.seed,
            label_model: LabelModelParams {
                class_prior: self
                    .class_prior
                    .map_or(ClassPrior::Learned, ClassPrior::Fixed),
                ..LabelModelParams::default()
            },
            bootstrap: BootstrapParams {
                rounds: self.rounds,
                seed: self.seed,
                level: self.confidence,
            },
            routing: RoutingParams {
                steps: self.steps,
                seed: self.seed,
                program_rate: self.program_rate,
                llm_rate: self.llm_rate,
            },
            ..ProgramReportParams::default()
        }
    }
}

#[derive(Args)]
pub struct ProgramsArgs {
    /// Pairs CSV: `id,instruction,response,response_b[,label]`.
    #[arg(long)]
    pairs: PathBuf,
    /// The LLM judge's verdicts on the same pairs (enables routing): a CSV `id,label`, or the
    /// `.jsonl` of a pairwise `tribunal judge` run (majority of each pair's winners).
    #[arg(long)]
    llm: Option<PathBuf>,
    /// Share of the labelled pairs that choose thresholds and the committee.
    #[arg(long, default_value_t = 0.3, allow_negative_numbers = true)]
    validation_share: f64,
    /// Committee size (every program above chance when absent).
    #[arg(long, allow_negative_numbers = true)]
    top_k: Option<usize>,
    /// Dead-zone thresholds to choose from (comma-separated; default 0.00…0.14).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    taus: Vec<f64>,
    /// Bias probes (paired clean/perturbed rows) for flip and bias win rates.
    #[arg(long)]
    probes: Option<PathBuf>,
    /// Write the committee's votes on every pair to this vote file.
    #[arg(long)]
    votes_out: Option<PathBuf>,
    /// Share of all pairs to escalate to the LLM judge (most uncertain first); with `--llm`
    /// its verdicts replace the committee's there.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    budget: f64,
    /// Write the escalated pairs as a judge items CSV (`id,instruction,response,response_b`)
    /// for `tribunal judge`.
    #[arg(long)]
    escalate_out: Option<PathBuf>,
    #[command(flatten)]
    committee: CommitteeArgs,
}

#[derive(Args)]
pub struct LabelModelArgs {
    /// Vote file: `id[,label,split,query_chars,response_chars],<program>…`.
    #[arg(long)]
    votes: PathBuf,
    #[command(flatten)]
    committee: CommitteeArgs,
}

#[derive(Args)]
pub struct RouteArgs {
    /// Vote file with `label`, `query_chars` and `response_chars` (`stats programs --votes-out`).
    #[arg(long)]
    votes: PathBuf,
    /// The LLM judge's verdicts `id,label` on the same pairs.
    #[arg(long)]
    llm: PathBuf,
    #[command(flatten)]
    committee: CommitteeArgs,
}

fn verdicts(path: &Path, ids: &[&str]) -> anyhow::Result<Vec<Option<Preference>>> {
    let (source, bytes) = read_input(path)?;
    if path.extension().is_some_and(|e| e == "jsonl") {
        Ok(parse_judgments_jsonl(&source, &bytes, ids)?)
    } else {
        Ok(parse_verdicts(&source, &bytes, ids)?)
    }
}

pub fn programs(args: ProgramsArgs) -> anyhow::Result<String> {
    let (source, bytes) = read_input(&args.pairs)?;
    let pairs = parse_program_pairs(&source, &bytes)?;
    let ids: Vec<&str> = pairs.iter().map(|p| p.id.as_str()).collect();
    let llm = args.llm.as_ref().map(|p| verdicts(p, &ids)).transpose()?;
    let defaults = VoteParams::default();
    let params = ProgramReportParams {
        validation_share: args.validation_share,
        budget: args.budget,
        votes: VoteParams {
            taus: if args.taus.is_empty() {
                defaults.taus
            } else {
                args.taus
            },
            top_k: args.top_k,
            ..defaults
        },
        ..args.committee.params()
    };
    let probes = args
        .probes
        .as_ref()
        .map(|path| {
            let (source, bytes) = read_input(path)?;
            anyhow::Ok(parse_probes(&source, &bytes)?)
        })
        .transpose()?;
    let probe_scores = probes.as_deref().map(builtin_probe_scores);
    let report = params.fit(
        &pairs,
        &builtin_scores(&pairs),
        llm.as_deref(),
        probes
            .as_deref()
            .zip(probe_scores.as_ref())
            .map(|(probes, (clean, perturbed))| ProbeScores {
                probes,
                clean,
                perturbed,
            }),
    )?;
    if let (Some(path), Some(file)) = (&args.votes_out, &report.votes) {
        let mut escalated = vec![false; pairs.len()];
        report
            .escalation
            .pairs
            .iter()
            .for_each(|&i| escalated[i] = true);
        let csv = file.to_csv(&VoteOutputs {
            posterior: &report.committee.posterior,
            majority: &report.committee.majority,
            escalated: &escalated,
            verdict: &report.escalation.verdicts,
        });
        std::fs::write(path, csv).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.escalate_out {
        let chosen: Vec<&ProgramPair> =
            report.escalation.pairs.iter().map(|&i| &pairs[i]).collect();
        std::fs::write(path, judge_items_csv(&chosen)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(serde_json::to_string_pretty(&report)?)
}

fn vote_file(path: &Path) -> anyhow::Result<VoteFile> {
    let (source, bytes) = read_input(path)?;
    Ok(parse_vote_file(&source, &bytes)?)
}

pub fn label_model(args: LabelModelArgs) -> anyhow::Result<String> {
    let file = vote_file(&args.votes)?;
    let report = args.committee.params().committee(&file, None)?;
    Ok(serde_json::to_string_pretty(&report)?)
}

pub fn route(args: RouteArgs) -> anyhow::Result<String> {
    let file = vote_file(&args.votes)?;
    let ids: Vec<&str> = file.ids.iter().map(String::as_str).collect();
    let llm = verdicts(&args.llm, &ids)?;
    let report = args.committee.params().committee(&file, Some(&llm))?;
    Ok(serde_json::to_string_pretty(&report)?)
}
