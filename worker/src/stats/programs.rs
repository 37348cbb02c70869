//! `tribunal stats programs|label-model|route`: programmatic judges (seed 004).
//!
//! - `programs`: scores a pairs CSV ([`tribunal::programs::program_pairs`]) with the built-in library,
//!   fits thresholds and the committee on a seeded validation split, and prints
//!   [`ProgramReportParams::fit`]: each program's τ, coverage and accuracy, the label model
//!   against majority vote with bootstrap intervals, and — with `--llm VERDICTS` — the LLM
//!   judge alone and the routing curves; the committee's position flip rate, and with
//!   `--probes FILE` the flip and bias win rates of each perturbation. `--votes-out FILE`
//!   writes the committee's votes. The staged policy: `--budget β --escalate-out ITEMS.csv`
//!   writes the most uncertain share β of the pairs as a judge items CSV; `tribunal judge` on
//!   it, then `--llm RESULTS.jsonl` merges its verdicts into those pairs (`escalation`).
//! - `label-model`: the label model on a vote file ([`tribunal::programs::vote_file`]) against majority
//!   vote on its labelled test rows.
//! - `route`: the same plus the routing curves with the LLM judge's verdicts.

use super::{add_input, Output, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::math::resample::BootstrapParams;
use tribunal::programs::label_model::{ClassPrior, LabelModelParams};
use tribunal::programs::program_report::ProgramReportParams;
use tribunal::programs::program_votes::VoteParams;
use tribunal::programs::routing::RoutingParams;

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
    /// Your own programs' scores (a column per program, a row per text: each pair's two
    /// responses, then each probe's clean and perturbed pairs; empty: abstained), as the
    /// Programs page computes them in its sandbox.
    #[arg(long)]
    user_scores: Option<PathBuf>,
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

pub fn programs(args: ProgramsArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "pairs", &args.pairs)?;
    if let Some(llm) = &args.llm {
        add_input(&mut inputs, "llm", llm)?;
    }
    if let Some(probes) = &args.probes {
        add_input(&mut inputs, "probes", probes)?;
    }
    if let Some(scores) = &args.user_scores {
        add_input(&mut inputs, "user_scores", scores)?;
    }
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
    let mut planned = Planned::new(Analysis::Programs(params), inputs);
    planned.outputs.extend(args.votes_out.map(Output::Votes));
    planned
        .outputs
        .extend(args.escalate_out.map(Output::Escalated));
    Ok(planned)
}

pub fn label_model(args: LabelModelArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "votes", &args.votes)?;
    Ok(Planned::new(
        Analysis::LabelModel(args.committee.params()),
        inputs,
    ))
}

pub fn route(args: RouteArgs) -> anyhow::Result<Planned> {
    let mut inputs = Inputs::new();
    add_input(&mut inputs, "votes", &args.votes)?;
    add_input(&mut inputs, "llm", &args.llm)?;
    Ok(Planned::new(
        Analysis::Routing(args.committee.params()),
        inputs,
    ))
}
