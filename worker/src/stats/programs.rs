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
//!
//! The options are the settings structs' own (feature `cli` of `tribunal`): `programs` reads
//! all of [`ProgramReportParams`]; `label-model` and `route` the parts they use (the label
//! model, the bootstrap, the routing sweep), so they list no option that would do nothing. The
//! bootstrap's rounds and coverage keep their flags `--rounds` and `--confidence`, and its
//! `--seed` seeds every part ([`ProgramReportParams::seeded`]).

use super::{add_input, Output, Planned};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::math::resample::BootstrapParams;
use tribunal::programs::label_model::LabelModelParams;
use tribunal::programs::program_report::ProgramReportParams;
use tribunal::programs::routing::RoutingParams;

/// What `label-model` and `route` set: the label model, the bootstrap and the routing sweep.
#[derive(Args)]
pub struct CommitteeArgs {
    #[command(flatten)]
    label_model: LabelModelParams,
    #[command(flatten)]
    bootstrap: BootstrapParams,
    #[command(flatten)]
    routing: RoutingParams,
}

impl CommitteeArgs {
    fn params(self) -> ProgramReportParams {
        let seed = self.bootstrap.seed;
        ProgramReportParams {
            label_model: self.label_model,
            bootstrap: self.bootstrap,
            routing: self.routing,
            ..ProgramReportParams::default()
        }
        .seeded(seed)
    }
}

#[derive(Args)]
#[command(mut_arg("bootstrap", |a| a.long("rounds")), mut_arg("level", |a| a.long("confidence")))]
pub struct ProgramsArgs {
    /// Pairs CSV: `id,instruction,response,response_b[,label]`.
    #[arg(long)]
    pairs: PathBuf,
    /// The LLM judge's verdicts on the same pairs (enables routing): a CSV `id,label`, or the
    /// `.jsonl` of a pairwise `tribunal judge` run (majority of each pair's winners).
    #[arg(long)]
    llm: Option<PathBuf>,
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
    /// Write the escalated pairs as a judge items CSV (`id,instruction,response,response_b`)
    /// for `tribunal judge`.
    #[arg(long)]
    escalate_out: Option<PathBuf>,
    #[command(flatten)]
    params: ProgramReportParams,
}

#[derive(Args)]
#[command(mut_arg("bootstrap", |a| a.long("rounds")), mut_arg("level", |a| a.long("confidence")))]
pub struct LabelModelArgs {
    /// Vote file: `id[,label,split,query_chars,response_chars],<program>…`.
    #[arg(long)]
    votes: PathBuf,
    #[command(flatten)]
    committee: CommitteeArgs,
}

#[derive(Args)]
#[command(mut_arg("bootstrap", |a| a.long("rounds")), mut_arg("level", |a| a.long("confidence")))]
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
    let seed = args.params.bootstrap.seed;
    let params = args.params.seeded(seed);
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
