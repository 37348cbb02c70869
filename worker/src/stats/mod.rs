//! `tribunal stats …`: each subcommand maps its flags and files to a [`Spec`] and its
//! [`Inputs`], runs it with [`tribunal::analysis::run`] (the function the page and saved
//! sessions call) and prints the report as one JSON document on stdout, ending with the `record`
//! of how it was made (tool version and commit, command line, every setting, each input's
//! SHA-256, and the spec itself, which `tribunal stats run` reruns); every warning of the
//! document is also printed on stderr. One module per family of statistics.

mod bt;
mod calibrate;
mod cascade;
mod compare;
mod irt;
mod kind_command;
mod lc;
mod power;
mod ppi;
mod programs;
mod reliability;
mod saved;
mod self_preference;
mod study;
mod style;

use crate::build_info;
use crate::input_file::read_input;
use anyhow::Context;
use clap::{ArgMatches, Subcommand};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use tribunal::analysis::warnings::lines;
use tribunal::analysis::{Analysis, Inputs, Report, Spec};
use tribunal::io::provenance::{InputFile, ToolVersion};
use tribunal::programs::vote_file::VoteOutputs;

pub use kind_command::with_kind_commands;

// Subcommands with many options are boxed to keep the enum small. Each is named as the spec
// names its analysis (kebab-case; the snake_case spelling and the earlier short names are
// aliases).
#[derive(Subcommand)]
pub enum Stats {
    /// Bradley–Terry leaderboard (Elo scale) from a battles CSV, with SEs and bootstrap CIs.
    #[command(alias = "bt")]
    Leaderboard(bt::BtArgs),
    /// A judge against human labels: leaderboards, β, held-out hard/smoothed/soft Elo.
    #[command(aliases = ["soft-elo", "judge_study"])]
    JudgeStudy(Box<study::StudyArgs>),
    /// Split-conformal intervals on the human Elo scale, with their evaluation.
    Conformal(Box<study::StudyArgs>),
    /// Agreement: Krippendorff's α of a group of raters, κ and correlations of rater pairs, and
    /// judges' κ against the group's majority labels, with bootstrap intervals.
    #[command(alias = "agree")]
    Agreement(Box<reliability::AgreeArgs>),
    /// A/A test: two runs of the same judge against green/amber/red acceptance bands.
    Aa(Box<reliability::AaArgs>),
    /// Self-consistency of repeated judgments: entropy, stability and flip rate per criterion.
    Consistency(Box<reliability::ConsistencyArgs>),
    /// Position bias of a pairwise judge: first-position rate, binomial test, AB/BA flip rate.
    Position(Box<reliability::PositionArgs>),
    /// Calibrate a judge: fit an LS, MN, BTL, BTL2 or Plackett–Luce head on rationale
    /// embeddings with cross-validated γ, and compare it with the base judge on test rows.
    #[command(alias = "calibrate")]
    Calibration(Box<calibrate::CalibrateArgs>),
    /// Sample sizes to compare two groups (pass rates or mean scores) at given powers.
    Power(Box<power::PowerArgs>),
    /// Graded response model of a judge under prompt variants: C_V, ρ, θ_ratio and D_W.
    Irt(Box<irt::IrtArgs>),
    /// Programmatic judges: the built-in library on a pairs CSV, thresholds and committee on a
    /// validation split, label model vs majority vote, routing to an LLM judge's verdicts.
    Programs(Box<programs::ProgramsArgs>),
    /// The label model on a vote file, against majority vote on its labelled test rows.
    #[command(alias = "label_model")]
    LabelModel(Box<programs::LabelModelArgs>),
    /// Routing curves of a vote file's committee with an LLM judge's verdicts as fallback.
    #[command(alias = "route")]
    Routing(Box<programs::RouteArgs>),
    /// Prediction-powered win rates and leaderboard: a few human labels and many judge
    /// labels, with the power-tuned λ (PPI++), beside the human-only and judge-only estimates.
    Ppi(Box<ppi::PpiArgs>),
    /// What a judge is worth before labels are spent on it: from a pilot's human labels, its
    /// agreement, ρ with the humans, what PPI makes of one label and the most any debiasing
    /// can save (1 / (1 − ρ²)), with a verdict.
    #[command(alias = "judge_value")]
    JudgeValue(Box<ppi::JudgeValueArgs>),
    /// Style control: the Bradley–Terry leaderboard with the answers' length and markdown held
    /// fixed (contextual Bradley–Terry, as LMArena), beside the raw one, with rank changes.
    Style(Box<style::StyleArgs>),
    /// Self-preference: whether a judge favours its own model family beyond what the humans'
    /// ratings of it predict (β with its interval and test, and the win-rate effect).
    #[command(alias = "self_preference")]
    SelfPreference(Box<self_preference::SelfPreferenceArgs>),
    /// Length-controlled win rates (AlpacaEval 2): each model's win rate against the baseline
    /// at the baseline's answer length, beside the raw one.
    #[command(aliases = ["lc", "length_control"])]
    LengthControl(Box<lc::LcArgs>),
    /// Systems compared on pointwise scores: each system's mean or pass rate per criterion,
    /// paired differences with t, clustered, bootstrap and exact tests (Holm/BH), slices, and
    /// judge-corrected rates where people labelled some answers.
    Compare(Box<compare::CompareArgs>),
    /// Trust or escalate: judges in a cascade, each keeping the items it is confident on with
    /// a guaranteed agreement with humans (≥ 1 − α with probability ≥ 1 − δ), the rest handed
    /// on, humans last; coverage and observed agreement on held-out items, each judge alone.
    Cascade(Box<cascade::CascadeArgs>),
    /// Reruns a saved analysis spec (a session's, a share link's, or the `record.spec` of an
    /// earlier `tribunal stats` report) on files given by role: `--input ROLE=FILE`.
    Run(saved::RunArgs),
}

impl Stats {
    /// The subcommand's analysis and files, not yet run.
    fn plan(self) -> anyhow::Result<Planned> {
        Ok(match self {
            Self::Leaderboard(args) => bt::plan(args)?,
            Self::JudgeStudy(args) => study::plan(*args, study::Part::Whole)?,
            Self::Conformal(args) => study::plan(*args, study::Part::Conformal)?,
            Self::Agreement(args) => reliability::agree(*args)?,
            Self::Aa(args) => reliability::aa(*args)?,
            Self::Consistency(args) => reliability::consistency(*args)?,
            Self::Position(args) => reliability::position(*args)?,
            Self::Calibration(args) => calibrate::plan(*args)?,
            Self::Power(args) => power::plan(*args)?,
            Self::Irt(args) => irt::plan(*args)?,
            Self::Programs(args) => programs::programs(*args)?,
            Self::LabelModel(args) => programs::label_model(*args)?,
            Self::Routing(args) => programs::route(*args)?,
            Self::Ppi(args) => ppi::plan(*args)?,
            Self::JudgeValue(args) => ppi::judge_value(*args)?,
            Self::Style(args) => style::plan(*args)?,
            Self::SelfPreference(args) => self_preference::plan(*args)?,
            Self::LengthControl(args) => lc::plan(*args)?,
            Self::Compare(args) => compare::plan(*args)?,
            Self::Cascade(args) => cascade::plan(*args)?,
            Self::Run(args) => saved::plan(args)?,
        })
    }

    /// Runs the subcommand and prints its JSON with the [`Record`] of this invocation: each
    /// warning the JSON holds is printed on stderr too, and a reader that goes away early (`|
    /// head`) ends the command quietly.
    pub fn run(self, invocation: Invocation) -> anyhow::Result<()> {
        run_planned(self.plan()?, invocation)
    }
}

/// Runs `tribunal stats NAME …` for a kind whose subcommand the registry gives
/// ([`with_kind_commands`]), as [`Stats::run`] runs the others; `None` for a name that is not
/// one of those.
pub fn run_kind_command(
    name: &str,
    matches: &ArgMatches,
    invocation: Invocation,
) -> Option<anyhow::Result<()>> {
    let planned = kind_command::plan(name, matches)?;
    Some(planned.and_then(|planned| run_planned(planned, invocation)))
}

/// Runs `planned` and prints its JSON with the [`Record`] of `invocation`.
fn run_planned(planned: Planned, invocation: Invocation) -> anyhow::Result<()> {
    let report = tribunal::analysis::run(&planned.spec, &planned.inputs)?;
    for output in &planned.outputs {
        output.write(&report)?;
    }
    for line in lines(&report.warnings()) {
        eprintln!("warning: {line}");
    }
    let record = Record {
        tool: build_info::tool_version(),
        command: invocation.command,
        arguments: std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        settings: invocation.settings,
        inputs: planned
            .inputs
            .roles()
            .filter_map(|role| planned.inputs.optional(role))
            .map(|input| InputFile::new(&input.name, &input.bytes))
            .collect(),
        spec: planned.spec,
    };
    print_stdout(&serde_json::to_string_pretty(&Recorded {
        report: &report,
        record: &record,
    })?)
}

/// What `tribunal stats` prints: the report's own fields in their order, then its `record`.
#[derive(serde::Serialize)]
struct Recorded<'a> {
    #[serde(flatten)]
    report: &'a tribunal::analysis::Report,
    record: &'a Record,
}

/// `tribunal stats` as a parser of its own command lines.
#[derive(clap::Parser)]
#[command(name = "tribunal stats")]
struct StatsLine {
    #[command(subcommand)]
    stats: Stats,
}

/// The spec and files of the `tribunal stats` command line `args` (`["bt", "--input", …]`)
/// exactly as the command would run them, without running it: how a caller that writes its
/// analyses as commands (the study) saves each as a spec.
///
/// # Errors
/// The command line's parse errors, the files' read errors and the planner's errors.
pub fn plan_command(args: &[String]) -> anyhow::Result<(Spec, Inputs)> {
    use clap::Parser;
    let line = StatsLine::try_parse_from(
        std::iter::once("tribunal stats".to_owned()).chain(args.iter().cloned()),
    )
    .map_err(|e| anyhow::anyhow!("tribunal stats {}: {e}", args.join(" ")))?;
    let planned = line.stats.plan()?;
    Ok((planned.spec, planned.inputs))
}

/// A subcommand's analysis on its files, and the files it writes from the report.
pub(crate) struct Planned {
    spec: Spec,
    inputs: Inputs,
    outputs: Vec<Output>,
}

impl Planned {
    /// `analysis` on `inputs`, writing nothing else.
    fn new(analysis: Analysis, inputs: Inputs) -> Self {
        Self {
            spec: Spec::new(analysis, &inputs),
            inputs,
            outputs: Vec::new(),
        }
    }
}

/// A file written from a report besides the JSON on stdout.
enum Output {
    /// A calibration's model file (`--model-out`).
    Model(PathBuf),
    /// The programs committee's votes (`--votes-out`).
    Votes(PathBuf),
    /// The escalated pairs as a judge items CSV (`--escalate-out`).
    Escalated(PathBuf),
    /// The battles to label next, as the input's rows with the plan's columns (`--plan-out`).
    LabelPlan(PathBuf),
    /// The unlabelled items a cascade leaves to humans, an `item` CSV (`--to-humans-out`).
    ToHumans(PathBuf),
}

impl Output {
    fn write(&self, report: &Report) -> anyhow::Result<()> {
        let (path, text) = match (self, report) {
            (Self::Model(path), Report::Calibration(c)) => (path, c.calibration.model.to_json()?),
            (Self::Votes(path), Report::Programs(p)) => {
                let report = &p.report;
                let Some(file) = &report.votes else {
                    return Ok(());
                };
                let mut escalated = vec![false; file.ids.len()];
                for &i in &report.escalation.pairs {
                    escalated[i] = true;
                }
                let csv = file.to_csv(&VoteOutputs {
                    posterior: &report.committee.posterior,
                    majority: &report.committee.majority,
                    escalated: &escalated,
                    verdict: &report.escalation.verdicts,
                });
                (path, csv)
            }
            (Self::Escalated(path), Report::Programs(p)) => (path, p.escalated_items_csv.clone()),
            (Self::LabelPlan(path), Report::Ppi(p)) => match &p.plan {
                Some(plan) => (path, plan.csv.clone()),
                None => anyhow::bail!(
                    "no label plan to write to {}: see the report's warnings",
                    path.display()
                ),
            },
            (Self::ToHumans(path), Report::Cascade(c)) => (path, c.unlabelled.to_humans_csv()?),
            _ => anyhow::bail!("this report has no such output"),
        };
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
    }
}

/// Reads the file at `path` (`-` for stdin) into `inputs` in `role`.
fn add_input(inputs: &mut Inputs, role: &str, path: &Path) -> anyhow::Result<()> {
    let (name, bytes) = read_input(path)?;
    inputs.insert(role, name, bytes);
    Ok(())
}

/// How a result was made: tool and build, the command line, every setting with its default
/// filled in, and the SHA-256 of every input file read.
#[derive(Serialize)]
struct Record {
    tool: ToolVersion,
    command: String,
    arguments: Vec<String>,
    settings: BTreeMap<String, serde_json::Value>,
    inputs: Vec<InputFile>,
    /// The analysis and its inputs, as `tribunal stats run` reads it back.
    spec: Spec,
}

/// The `tribunal stats` subcommand invoked and all its settings as clap resolved them (given
/// or default), for the record.
pub struct Invocation {
    command: String,
    settings: BTreeMap<String, serde_json::Value>,
}

impl Invocation {
    /// From the matches of `tribunal stats NAME …` parsed by `command` (the subcommand): every
    /// argument, named as the user types it (`--variant-column` → `variant_column`), not clap's
    /// argument groups (one per args struct, named after it, listing the flags given), which
    /// change with the structs' layout rather than with the settings.
    pub fn new(name: &str, matches: &ArgMatches, command: &clap::Command) -> Self {
        let groups: Vec<&str> = command.get_groups().map(|g| g.get_id().as_str()).collect();
        let flag = |id: &clap::Id| {
            command
                .get_arguments()
                .find(|arg| arg.get_id() == id)
                .and_then(clap::Arg::get_long)
                .map_or_else(|| id.to_string(), |long| long.replace('-', "_"))
        };
        let settings = matches
            .ids()
            .filter(|id| !groups.contains(&id.as_str()))
            .filter_map(|id| {
                let raw = matches.try_get_raw(id.as_str()).ok()??;
                let values: Vec<serde_json::Value> = raw
                    .map(|v| v.to_string_lossy().into_owned().into())
                    .collect();
                let value = match values.len() {
                    1 => values.into_iter().next()?,
                    _ => values.into(),
                };
                Some((flag(id), value))
            })
            .collect();
        Self {
            command: format!("stats {name}"),
            settings,
        }
    }
}

/// Writes `text` and a newline to stdout. A closed pipe (the reader stopped reading, as
/// `| head` does) is not an error: the command ends quietly with status 0.
fn print_stdout(text: &str) -> anyhow::Result<()> {
    write_stdout(&format!("{text}\n"))
}

/// Writes `text` to stdout; a reader that went away (`| head`) is not an error.
pub(crate) fn write_stdout(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_subcommand_named_as_the_spec_names_it_and_the_old_names_still_work() {
        use clap::CommandFactory;
        // A subcommand of this crate's, or one the registry gives (its kind's `Kind::cli`).
        let command = with_kind_commands(StatsLine::command());
        let names: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
        for kind in tribunal::analysis::Analysis::NAMES {
            // The IRT table is `irt --each`.
            if *kind == "irt_table" {
                continue;
            }
            let cli = kind.replace('_', "-");
            assert!(
                names.contains(&cli.as_str()),
                "no `stats {cli}` among {names:?}"
            );
        }
        for (old, new) in [
            ("bt", "leaderboard"),
            ("soft-elo", "judge-study"),
            ("agree", "agreement"),
            ("calibrate", "calibration"),
            ("lc", "length-control"),
            ("route", "routing"),
            ("judge_study", "judge-study"),
        ] {
            let found = command.find_subcommand(old).map(|c| c.get_name());
            assert_eq!(found, Some(new), "`stats {old}`");
        }
    }

    #[test]
    fn derived_options_never_collide_and_keep_their_flags_as_typed() {
        use clap::CommandFactory;
        // clap's own checks of every subcommand: two settings structs flattened into one
        // command that want the same flag or id fail here, not at a user's first run.
        // The subcommands the registry gives included.
        with_kind_commands(StatsLine::command()).debug_assert();
        let mut command = with_kind_commands(StatsLine::command());
        command.build();
        let flags = |name: &str| -> Vec<String> {
            command
                .find_subcommand(name)
                .unwrap()
                .get_arguments()
                .filter_map(|a| a.get_long().map(str::to_owned))
                .collect()
        };
        // `--level` is α's level of measurement; the bootstrap's coverage is `--confidence`.
        let agreement = flags("agreement");
        for flag in [
            "level",
            "confidence",
            "bootstrap",
            "seed",
            "variant-column",
            "slice",
        ] {
            assert!(
                agreement.iter().any(|f| f == flag),
                "--{flag} in {agreement:?}"
            );
        }
        assert!(flags("position").iter().any(|f| f == "confidence"));
        assert!(flags("irt").iter().any(|f| f == "range"));
        // The bootstrap's rounds are `--rounds` where the committee reads them; `label-model`
        // and `routing` list none of `programs`' split and committee options.
        for name in ["programs", "label-model", "routing"] {
            let listed = flags(name);
            assert!(
                listed.iter().any(|f| f == "rounds") && !listed.iter().any(|f| f == "bootstrap"),
                "{name}: {listed:?}"
            );
            let committee = listed.iter().any(|f| f == "taus" || f == "budget");
            assert_eq!(committee, name == "programs", "{name}: {listed:?}");
        }
        // Keyed as typed: `--variant-column` is `variant_column` in the record, `--slice` is
        // `slice` (its field is `column`).
        let line = [
            "tribunal stats",
            "agreement",
            "--input",
            "x.csv",
            "--slice",
            "topic",
        ];
        let matches = command.clone().try_get_matches_from(line).unwrap();
        let (name, sub) = matches.subcommand().unwrap();
        let invocation = Invocation::new(name, sub, command.find_subcommand(name).unwrap());
        let keys: Vec<&str> = invocation.settings.keys().map(String::as_str).collect();
        for key in [
            "variant_column",
            "slice",
            "slice_alpha",
            "confidence",
            "bootstrap",
        ] {
            assert!(keys.contains(&key), "{key} in {keys:?}");
        }
        assert!(
            !keys.contains(&"column") && !keys.contains(&"alpha_level"),
            "{keys:?}"
        );
    }

    #[test]
    fn the_record_is_the_last_field_and_warnings_are_found_everywhere() {
        let power = Analysis::each_kind()
            .into_iter()
            .find(|a| a.name() == "power")
            .unwrap();
        let record = Record {
            tool: build_info::tool_version(),
            command: "stats power".to_owned(),
            arguments: vec![],
            settings: BTreeMap::new(),
            inputs: vec![InputFile::new("a.csv", b"abc")],
            spec: Spec::new(power, &Inputs::new()),
        };
        let report = tribunal::analysis::run(&record.spec, &Inputs::new()).unwrap();
        let alone = serde_json::to_string_pretty(&report).unwrap();
        let out = serde_json::to_string_pretty(&Recorded {
            report: &report,
            record: &record,
        })
        .unwrap();
        // The report's own text, unchanged, then the record as the last field.
        let opening = alone.trim_end().strip_suffix("\n}").unwrap();
        assert!(out.starts_with(opening), "{out}");
        let value: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(value["analysis"], "power");
        assert_eq!(value["record"]["inputs"][0]["bytes"], 3);
        assert!(
            out[opening.len()..].starts_with(",\n  \"record\": {"),
            "{out}"
        );
        // Nested and top-level: the top's first; a nested copy of a top-level warning once.
        let warning = |place: &str, text: &str| tribunal::analysis::warnings::Warning {
            place: place.to_owned(),
            text: text.to_owned(),
        };
        let gathered = [
            warning("a", "same"),
            warning("a", "own"),
            warning("", "file: same"),
        ];
        assert_eq!(lines(&gathered), ["file: same", "a: own"]);
    }
}
