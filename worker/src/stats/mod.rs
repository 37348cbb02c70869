//! `tribunal stats …`: each subcommand reads files, calls the `tribunal` statistics and prints
//! one JSON document on stdout, ending with the `record` of how it was made (tool version and
//! commit, command line, every setting, each input's SHA-256); every warning of the document is
//! also printed on stderr. One module per family of statistics.

mod bt;
mod calibrate;
mod irt;
mod power;
mod programs;
mod reliability;
mod study;

use anyhow::Context;
use clap::{ArgMatches, Subcommand};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use tribunal::provenance::{InputFile, ToolVersion};

// Subcommands with many options are boxed to keep the enum small.
#[derive(Subcommand)]
pub enum Stats {
    /// Bradley–Terry leaderboard (Elo scale) from a battles CSV, with SEs and bootstrap CIs.
    Bt(bt::BtArgs),
    /// A judge against human labels: leaderboards, β, held-out hard/smoothed/soft Elo.
    SoftElo(Box<study::StudyArgs>),
    /// Split-conformal intervals on the human Elo scale, with their evaluation.
    Conformal(Box<study::StudyArgs>),
    /// Agreement: Krippendorff's α of a group of raters, κ and correlations of rater pairs, and
    /// judges' κ against the group's majority labels, with bootstrap intervals.
    Agree(Box<reliability::AgreeArgs>),
    /// A/A test: two runs of the same judge against green/amber/red acceptance bands.
    Aa(Box<reliability::AaArgs>),
    /// Self-consistency of repeated judgments: entropy, stability and flip rate per criterion.
    Consistency(Box<reliability::ConsistencyArgs>),
    /// Position bias of a pairwise judge: first-position rate, binomial test, AB/BA flip rate.
    Position(Box<reliability::PositionArgs>),
    /// Calibrate a judge: fit an LS, MN, BTL, BTL2 or Plackett–Luce head on rationale
    /// embeddings with cross-validated γ, and compare it with the base judge on test rows.
    Calibrate(Box<calibrate::CalibrateArgs>),
    /// Sample sizes to compare two groups (pass rates or mean scores) at given powers.
    Power(Box<power::PowerArgs>),
    /// Graded response model of a judge under prompt variants: C_V, ρ, θ_ratio and D_W.
    Irt(Box<irt::IrtArgs>),
    /// Programmatic judges: the built-in library on a pairs CSV, thresholds and committee on a
    /// validation split, label model vs majority vote, routing to an LLM judge's verdicts.
    Programs(Box<programs::ProgramsArgs>),
    /// The label model on a vote file, against majority vote on its labelled test rows.
    LabelModel(Box<programs::LabelModelArgs>),
    /// Routing curves of a vote file's committee with an LLM judge's verdicts as fallback.
    Route(Box<programs::RouteArgs>),
}

impl Stats {
    /// Runs the subcommand and prints its JSON with the [`Record`] of this invocation: each
    /// warning the JSON holds is printed on stderr too, and a reader that goes away early (`|
    /// head`) ends the command quietly.
    pub fn run(self, invocation: Invocation) -> anyhow::Result<()> {
        let json = match self {
            Self::Bt(args) => bt::run(args)?,
            Self::SoftElo(args) => study::soft_elo(*args)?,
            Self::Conformal(args) => study::conformal(*args)?,
            Self::Agree(args) => reliability::agree(*args)?,
            Self::Aa(args) => reliability::aa(*args)?,
            Self::Consistency(args) => reliability::consistency(*args)?,
            Self::Position(args) => reliability::position(*args)?,
            Self::Calibrate(args) => calibrate::run(*args)?,
            Self::Power(args) => power::run(*args)?,
            Self::Irt(args) => irt::run(*args)?,
            Self::Programs(args) => programs::programs(*args)?,
            Self::LabelModel(args) => programs::label_model(*args)?,
            Self::Route(args) => programs::route(*args)?,
        };
        let report: serde_json::Value = serde_json::from_str(&json)?;
        for line in warning_lines(&report) {
            eprintln!("{line}");
        }
        let record = Record {
            tool: ToolVersion::current(),
            command: invocation.command,
            arguments: std::env::args_os()
                .skip(1)
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            settings: invocation.settings,
            inputs: take_inputs(),
        };
        print_stdout(&with_record(&json, &record)?)
    }
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
}

/// The `tribunal stats` subcommand invoked and all its settings as clap resolved them (given
/// or default), for the record.
pub struct Invocation {
    command: String,
    settings: BTreeMap<String, serde_json::Value>,
}

impl Invocation {
    /// From the matches of `tribunal stats NAME …`.
    pub fn new(name: &str, matches: &ArgMatches) -> Self {
        let settings = matches
            .ids()
            .filter_map(|id| {
                let raw = matches.try_get_raw(id.as_str()).ok()??;
                let values: Vec<serde_json::Value> = raw
                    .map(|v| v.to_string_lossy().into_owned().into())
                    .collect();
                let value = match values.len() {
                    1 => values.into_iter().next()?,
                    _ => values.into(),
                };
                Some((id.as_str().to_owned(), value))
            })
            .collect();
        Self {
            command: format!("stats {name}"),
            settings,
        }
    }
}

/// The report `json` (a pretty-printed object) with `"record"` added as its last field, so the
/// report's own fields keep their order.
fn with_record(json: &str, record: &Record) -> anyhow::Result<String> {
    let body = json.trim_end();
    let Some(open) = body.strip_suffix('}') else {
        anyhow::bail!("a statistic printed something other than a JSON object");
    };
    let record = serde_json::to_string_pretty(record)?.replace('\n', "\n  ");
    let separator = if open.trim_end().ends_with('{') {
        ""
    } else {
        ","
    };
    Ok(format!(
        "{}{separator}\n  \"record\": {record}\n}}",
        open.trim_end()
    ))
}

/// The stderr lines for `report`'s warnings: the top level's first, then each nested one unless
/// a line already printed says it (reports that gather their parts' warnings at the top keep
/// the parts' copies too).
fn warning_lines(report: &serde_json::Value) -> Vec<String> {
    let (mut top, nested): (Vec<_>, Vec<_>) = warnings(report, "")
        .into_iter()
        .partition(|(place, _)| place.is_empty());
    top.extend(nested);
    let mut printed: Vec<String> = Vec::new();
    for (place, warning) in top {
        if !printed.iter().any(|line| line.contains(&warning)) {
            printed.push(format!("warning: {place}{warning}"));
        }
    }
    printed
}

/// Every string in a `warnings` array anywhere in `report`, with the place of its array
/// (`human: `, `runs[1].…: `; empty at the top).
fn warnings(report: &serde_json::Value, at: &str) -> Vec<(String, String)> {
    let place = |key: &str| {
        if at.is_empty() {
            key.to_owned()
        } else {
            format!("{at}.{key}")
        }
    };
    match report {
        serde_json::Value::Object(map) => map
            .iter()
            .flat_map(|(key, value)| match (key.as_str(), value) {
                ("warnings", serde_json::Value::Array(items)) => items
                    .iter()
                    .filter_map(|w| w.as_str())
                    .map(|w| {
                        let prefix = if at.is_empty() {
                            String::new()
                        } else {
                            format!("{at}: ")
                        };
                        (prefix, w.to_owned())
                    })
                    .collect(),
                _ => warnings(value, &place(key)),
            })
            .collect(),
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .flat_map(|(i, v)| warnings(v, &format!("{at}[{i}]")))
            .collect(),
        _ => Vec::new(),
    }
}

/// Writes `text` and a newline to stdout. A closed pipe (the reader stopped reading, as
/// `| head` does) is not an error: the command ends quietly with status 0.
fn print_stdout(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// The input files read so far by this process (one `tribunal stats` command).
static INPUTS: Mutex<Vec<InputFile>> = Mutex::new(Vec::new());

fn take_inputs() -> Vec<InputFile> {
    INPUTS
        .lock()
        .map(|mut inputs| std::mem::take(&mut *inputs))
        .unwrap_or_default()
}

/// Reads an input file (`-` for stdin) and returns its name for messages and its bytes; its
/// SHA-256 goes into the command's [`Record`].
pub(crate) fn read_input(path: &Path) -> anyhow::Result<(String, Vec<u8>)> {
    let (name, bytes) = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
        ("<stdin>".to_owned(), bytes)
    } else {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        (path.display().to_string(), bytes)
    };
    if let Ok(mut inputs) = INPUTS.lock() {
        inputs.push(InputFile::new(&name, &bytes));
    }
    Ok((name, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_is_the_last_field_and_warnings_are_found_everywhere() {
        let record = Record {
            tool: ToolVersion::current(),
            command: "stats bt".to_owned(),
            arguments: vec![],
            settings: BTreeMap::new(),
            inputs: vec![InputFile::new("a.csv", b"abc")],
        };
        let json = "{\n  \"b\": 1,\n  \"a\": {\n    \"warnings\": [\"deep\"]\n  },\n  \"warnings\": [\"top\"]\n}";
        let out = with_record(json, &record).unwrap();
        let value: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(value["b"], 1);
        assert_eq!(value["record"]["inputs"][0]["bytes"], 3);
        assert!(out.find("\"b\"").unwrap() < out.find("\"record\"").unwrap());
        assert_eq!(
            warnings(&value, ""),
            [
                ("a: ".to_owned(), "deep".to_owned()),
                (String::new(), "top".to_owned())
            ]
        );
        // Nested and top-level: the top's first; a nested copy of a top-level warning once.
        let gathered = serde_json::json!({
            "a": { "warnings": ["same", "own"] },
            "warnings": ["file: same"],
        });
        assert_eq!(
            warning_lines(&gathered),
            ["warning: file: same", "warning: a: own"]
        );
        assert!(with_record("{}", &record).is_ok());
        assert!(with_record("[1]", &record).is_err());
    }
}
