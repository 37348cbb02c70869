//! The study's report: markdown with a section per analysis, its figures (SVG, [`super::svg`])
//! and the `tribunal stats` command of each section; and the bundled judge's gauge as JSON
//! beside it (`smollm2-value.json`), which the app compiles in. Everything is read from the analyses'
//! reports and the runs' records, and nothing from the clock: the same seeds and judgments give
//! the same bytes.

use super::svg::{plot, Axes, Series};
use super::{RunOutcome, Section};
use anyhow::Context;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use tribunal::analysis::Report;
use tribunal::io::readable::p_text;
use tribunal::math::normal::Estimate;
use tribunal::math::resample::Interval;
use tribunal::programs::routing::RoutingSignal;
use tribunal::rankings::judge_study::JudgeStudy;
use tribunal::rankings::leaderboard::{Leaderboard, RowInterval};

/// What the report is about.
pub struct Study<'a> {
    pub pairs_total: usize,
    pub votes_total: usize,
    pub n: usize,
    pub seed: u64,
    /// Pairs with a judge score in the scored battles.
    pub scored_pairs: usize,
    /// The budget, or `None` for `--full`.
    pub minutes: Option<f64>,
    pub seconds_per_judgment: f64,
    pub runs: &'a [RunOutcome],
    pub sections: &'a [Section],
    pub session: &'a str,
    pub report: &'a Path,
}

const CROWD: &str = "#444444";

/// The judge's new-token limit in the study's runs (`max_tokens`).
const MAX_TOKENS: usize = 96;

/// How a run's verdicts were read: the marker written by the model, appended (forced) or no
/// label at all; how many reached the token limit; the median probability mass on the two
/// labels at the verdict.
struct FormatCounts {
    followed: usize,
    forced: usize,
    unparsed: usize,
    at_limit: usize,
    median_mass: Option<f64>,
}

impl FormatCounts {
    fn of(lines: &[String]) -> anyhow::Result<Self> {
        #[derive(serde::Deserialize)]
        struct Line {
            winner: Option<String>,
            #[serde(default)]
            score_position: Option<String>,
            #[serde(default)]
            label_mass: Option<f64>,
            #[serde(default)]
            generated_tokens: usize,
        }
        let (mut followed, mut forced, mut unparsed, mut at_limit) = (0, 0, 0, 0);
        let mut masses = Vec::new();
        for (k, line) in lines.iter().enumerate() {
            let j: Line =
                serde_json::from_str(line).with_context(|| format!("judgment {}", k + 1))?;
            match (j.winner.is_some(), j.score_position.as_deref()) {
                (false, _) => unparsed += 1,
                (true, Some("forced")) => forced += 1,
                (true, _) => followed += 1,
            }
            at_limit += usize::from(j.generated_tokens >= MAX_TOKENS);
            masses.extend(j.label_mass.filter(|m| m.is_finite()));
        }
        masses.sort_by(f64::total_cmp);
        let median_mass = match masses.len() {
            0 => None,
            n if n % 2 == 1 => Some(masses[n / 2]),
            n => Some((masses[n / 2 - 1] + masses[n / 2]) / 2.0),
        };
        Ok(Self {
            followed,
            forced,
            unparsed,
            at_limit,
            median_mass,
        })
    }
}
const GPT4: &str = "#1f77b4";
const SMOL: &str = "#d62728";

/// A number with `digits` decimals, or `—` where it is not a number (JSON's `null`).
fn num(x: f64, digits: usize) -> String {
    if x.is_finite() {
        format!("{x:.digits$}")
    } else {
        "—".to_owned()
    }
}

/// [`num`] of a number that may be missing.
fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "—".to_owned(), |x| num(x, digits))
}

/// `x`, or NaN where it is not finite: a number as a JSON reader would take it.
fn finite(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        f64::NAN
    }
}

/// `estimate [lower, upper]` of an interval, or `—` without one.
fn interval(v: Option<&Interval>, digits: usize) -> String {
    v.map_or_else(
        || "—".to_owned(),
        |v| {
            format!(
                "{} [{}, {}]",
                num(v.estimate, digits),
                num(v.lower, digits),
                num(v.upper, digits)
            )
        },
    )
}

/// The name a report gives a value of one of its enums (`moderate`, `pass_rate_delta`).
fn named<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

/// The report of the study's section `$id` as its kind's type, `Report::$kind`.
macro_rules! report {
    ($study:expr, $id:literal, $kind:ident) => {
        match $study.report($id)? {
            Report::$kind(report) => &**report,
            other => anyhow::bail!(
                "the study's `{}` analysis is {}, not {}",
                $id,
                other.name(),
                stringify!($kind)
            ),
        }
    };
}

impl Study<'_> {
    fn section(&self, id: &str) -> anyhow::Result<&Section> {
        self.sections
            .iter()
            .find(|s| s.id == id)
            .with_context(|| format!("the study has no `{id}` analysis"))
    }

    fn report(&self, id: &str) -> anyhow::Result<&Report> {
        Ok(&self.section(id)?.report)
    }
}

/// A model's Elo and its bootstrap interval.
type Elo = (f64, Option<RowInterval>);

/// Each model's Elo and bootstrap interval in a leaderboard (models without a finite Elo left
/// out).
fn elos(board: &Leaderboard) -> BTreeMap<String, Elo> {
    board
        .ratings
        .iter()
        .filter(|r| r.elo.is_finite())
        .map(|r| (r.model.clone(), (r.elo, r.bootstrap)))
        .collect()
}

/// A side of a bootstrap interval, where the bootstrap bounded it.
fn bound(side: Option<f64>) -> Option<f64> {
    side.filter(|x| x.is_finite())
}

/// Whether the bootstrap bounded neither side of a model's Elo.
fn unbounded(entry: &Elo) -> bool {
    entry
        .1
        .is_some_and(|b| bound(b.lower).is_none() && bound(b.upper).is_none())
}

/// An Elo with its bootstrap interval; a side the bootstrap could not bound (a model that won
/// or lost every battle in some rounds: separation) is open, `−∞` or `∞`, and a model bounded
/// on neither side has no Elo to print: "not identified".
fn elo_cell(entry: Option<&Elo>) -> String {
    match entry {
        None => "—".to_owned(),
        Some(entry) if unbounded(entry) => "not identified (−∞, ∞)".to_owned(),
        Some((elo, None)) => format!("{elo:.0}"),
        Some((elo, Some(boot))) => {
            let side = |v: Option<f64>, open: &str| {
                bound(v).map_or_else(|| open.to_owned(), |x| format!("{x:.0}"))
            };
            let (lo, hi) = (side(boot.lower, "−∞"), side(boot.upper, "∞"));
            let (l, r) = (
                if lo == "−∞" { "(" } else { "[" },
                if hi == "∞" { ")" } else { "]" },
            );
            format!("{elo:.0} {l}{lo}, {hi}{r}")
        }
    }
}

/// Writes the report and its figures under `folder/figures`.
pub fn write(study: &Study, folder: &Path) -> anyhow::Result<()> {
    let figures = folder.join("figures");
    std::fs::create_dir_all(&figures).with_context(|| format!("{}", figures.display()))?;
    let rel = folder
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    let mut md = String::new();
    let mut figure = |name: &str, svg: String| -> anyhow::Result<String> {
        std::fs::write(figures.join(name), svg)?;
        Ok(format!("{rel}/figures/{name}"))
    };
    header(study, &mut md)?;
    leaderboards(study, &mut md, &mut figure)?;
    held_out(study, &mut md, &mut figure)?;
    calibration(study, &mut md, &mut figure)?;
    reliability(study, &mut md)?;
    programs(study, &mut md, &mut figure)?;
    ppi(study, &mut md)?;
    judge_value(study, &mut md)?;
    style(study, &mut md)?;
    self_preference(study, &mut md)?;
    failures(study, &mut md)?;
    commands(study, &mut md)?;
    // The bundled judge's gauge, which the app shows where a judge is chosen.
    let gauge = folder.join("smollm2-value.json");
    std::fs::write(
        &gauge,
        serde_json::to_string_pretty(&serde_json::to_value(study.report("smollm2-value")?)?)?
            + "\n",
    )
    .with_context(|| format!("{}", gauge.display()))?;
    std::fs::write(study.report, md).with_context(|| format!("{}", study.report.display()))
}

fn header(study: &Study, md: &mut String) -> anyhow::Result<()> {
    let main = &study.runs[0].record;
    let budget = match study.minutes {
        Some(m) => format!(
            "`--minutes {m}` at {} s a judgment",
            study.seconds_per_judgment
        ),
        None => "`--full`: every pair".to_owned(),
    };
    writeln!(
        md,
        "# The LLMFAO study: SmolLM2-135M as a judge, against the crowd and GPT-4\n\n\
         Written by `tribunal study` (`bash scripts/study.sh`); do not edit — rerun. Every table \
         below is an analysis of one session, which the app shows at `/s/{}` when `tribunal \
         serve` runs on the store the study wrote (`bash scripts/serve.sh` after \
         `bash scripts/study.sh`); the last section gives the command that recomputes each.\n",
        study.session
    )?;
    writeln!(
        md,
        "## What was judged\n\n\
         - **Data**: LLMFAO (Dmitry Ustalov, CC BY 4.0; `tests/data/llmfao`): {} pairs of answers \
         to 13 instructions, {} crowd votes, and GPT-4's verdict on every pair.\n\
         - **Sample**: {} pairs ({budget}), stratified by instruction and crowd verdict, seed {}. \
         Each was judged once, the two answers shown in an order drawn per pair (randomised \
         so that a preference for the first-shown answer cannot favour a model); a seeded \
         quarter also in the other order (position bias); a seeded eighth twice more with \
         sampling at temperature 0.7 (the A/A test: does the judge agree with itself?).\n\
         - **Judge**: {} (file hash `{}`) on the CPU; the Prometheus relative prompt, greedy, \
         at most 96 new tokens, the verdict constrained to `[RESULT] A|B` (prompt hash `{}`). \
         p_s is read at the verdict; the rationale is embedded with {}.\n",
        study.pairs_total,
        study.votes_total,
        study.n,
        study.seed,
        main.judge_model.id,
        main.judge_model.hash.as_deref().unwrap_or("?"),
        main.prompt_hash,
        main.embedding_model
            .as_deref()
            .unwrap_or("all-MiniLM-L6-v2"),
    )?;
    writeln!(
        md,
        "| run | items | judgments | followed the format | forced | unparsed | at the token limit | median label mass | s / judgment | code |\n|---|---|---|---|---|---|---|---|---|---|"
    )?;
    for run in study.runs {
        let r = &run.record;
        let judged = r.judged_now as f64;
        let per = if judged > 0.0 {
            format!("{:.2}", r.seconds / judged)
        } else {
            "—".to_owned()
        };
        let f = FormatCounts::of(&run.lines)?;
        writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {per} | {} |",
            run.name,
            r.items.count,
            r.judgments,
            f.followed,
            f.forced,
            f.unparsed,
            f.at_limit,
            f.median_mass
                .map_or_else(|| "—".to_owned(), |m| format!("{:.2} %", 100.0 * m)),
            r.code_version
        )?;
    }
    let counts = FormatCounts::of(&study.runs[0].lines)?;
    writeln!(
        md,
        "\n**What the verdicts are.** A verdict *followed the format* when SmolLM2 wrote the \
         `[RESULT]` marker itself; it is *forced* when the marker was appended after the \
         model stopped or reached the {max_tokens}-token limit without writing it, and the \
         verdict is then the more probable of the two labels at that appended place; \
         *unparsed* when no label could be read. {} of the main run's {} verdicts are forced \
         ({} reached the token limit). *Label mass* is the probability the model put on the \
         two labels together at the verdict, before p_s renormalises them to sum to 1: a median \
         of {} means p_s compares two tokens the model barely considered. Read a forced \
         verdict's p_s as a forced choice between two unlikely continuations, not as the \
         judge's confidence; every p_s-based number below (soft Elo, β, the calibration head's \
         base) inherits that.",
        counts.forced,
        counts.followed + counts.forced + counts.unparsed,
        counts.at_limit,
        counts
            .median_mass
            .map_or_else(|| "—".to_owned(), |m| format!("{:.2} %", 100.0 * m)),
        max_tokens = MAX_TOKENS,
    )?;
    writeln!(
        md,
        "\nThe judgments and each run's record (model file, prompt, decoding, design, seeds, \
         times) are kept, compressed, in `{rel}/judgments/` beside this report; the study loads \
         them instead of judging again when they match the run, and `--rejudge` or \
         `--verify K` judges anew. The s / judgment column is the recorded process's time.\n",
        rel = study
            .report
            .with_extension("")
            .file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned())
    )?;
    Ok(())
}

fn leaderboards(
    study: &Study,
    md: &mut String,
    figure: &mut dyn FnMut(&str, String) -> anyhow::Result<String>,
) -> anyhow::Result<()> {
    let crowd = elos(report!(study, "crowd-leaderboard", Leaderboard));
    let gpt4 = elos(report!(study, "gpt4-leaderboard", Leaderboard));
    let smol = elos(report!(study, "smollm2-leaderboard", Leaderboard));
    let mut order: Vec<(&String, &Elo)> = crowd.iter().collect();
    order.sort_by(|a, b| b.1 .0.total_cmp(&a.1 .0));
    writeln!(
        md,
        "## 1. Leaderboards\n\n\
         Bradley–Terry on the Elo scale with 95 % bootstrap intervals (200 rounds). The crowd's \
         and GPT-4's use all {} pairs; SmolLM2's only the {} it judged, so its intervals are \
         wider and a model it never saw is missing (—). An interval open on a side (`−∞`, `∞`) \
         is one the bootstrap could not bound: in some rounds the model won or lost every \
         battle it had (separation), so its Elo there is not identified. Where neither side is \
         bounded the point Elo means nothing and is withheld (\"not identified\", as the PPI \
         report withholds such numbers): {} of SmolLM2's {} models, {} of GPT-4's.\n",
        study.pairs_total,
        study.n,
        smol.values().filter(|e| unbounded(e)).count(),
        smol.len(),
        gpt4.values().filter(|e| unbounded(e)).count(),
    )?;
    writeln!(
        md,
        "| # | model | crowd | GPT-4 | SmolLM2-135M |\n|---|---|---|---|---|"
    )?;
    for (k, (model, entry)) in order.iter().enumerate() {
        writeln!(
            md,
            "| {} | {model} | {} | {} | {} |",
            k + 1,
            elo_cell(Some(entry)),
            elo_cell(gpt4.get(*model)),
            elo_cell(smol.get(*model))
        )?;
    }
    let points = |judge: &BTreeMap<String, Elo>| -> Vec<(f64, f64)> {
        crowd
            .iter()
            .filter_map(|(m, (x, _))| {
                let entry = judge.get(m).filter(|e| !unbounded(e))?;
                Some((*x, entry.0))
            })
            .collect()
    };
    let path = figure(
        "leaderboards.svg",
        plot(
            &Axes {
                title: "Each model's Elo: the crowd's against a judge's",
                x: "crowd Elo (all pairs)",
                y: "judge Elo",
            },
            &[
                Series {
                    name: "GPT-4 (all pairs)",
                    colour: GPT4,
                    points: points(&gpt4),
                },
                Series {
                    name: "SmolLM2-135M (the sample)",
                    colour: SMOL,
                    points: points(&smol),
                },
            ],
            false,
            true,
        ),
    )?;
    writeln!(md, "\n![The crowd's Elo against each judge's]({path})\n")?;
    Ok(())
}

/// The held-out runs of a judge study: (target, MAE, Spearman).
fn held_out_rows(report: &JudgeStudy) -> Vec<(&str, f64, Option<f64>)> {
    report
        .held_out
        .runs
        .iter()
        .map(|r| (r.name.as_str(), r.mae, r.spearman))
        .collect()
}

fn held_out(
    study: &Study,
    md: &mut String,
    figure: &mut dyn FnMut(&str, String) -> anyhow::Result<String>,
) -> anyhow::Result<()> {
    let smol = report!(study, "smollm2-study", JudgeStudy);
    let gpt4 = report!(study, "gpt4-study", JudgeStudy);
    writeln!(
        md,
        "## 2. The judges against the crowd, model by model\n\n\
         The method is Kargi & Salinas' conformal Elo estimation (2026). \
         On the {} sampled pairs with a SmolLM2 score ({} crowd votes) and the same pairs' GPT-4 \
         verdicts: the leave-one-model-out protocol fits each judge's Elo for a model from the \
         judge's verdicts on it and the humans' on the others (hard: verdicts; smoothed: \
         verdicts at c = 0.75; soft: σ(β·s) from SmolLM2's p_s — GPT-4 gave verdicts only), and \
         compares it with the humans' own Elo for it.\n",
        study.scored_pairs, smol.n_human_battles,
    )?;
    writeln!(
        md,
        "| judge | targets | held-out MAE (Elo) | Spearman ρ with the crowd |\n|---|---|---|---|"
    )?;
    for (name, report) in [("SmolLM2-135M", smol), ("GPT-4", gpt4)] {
        for (target, mae, rho) in held_out_rows(report) {
            writeln!(
                md,
                "| {name} | {target} | {} | {} |",
                num(mae, 1),
                opt(rho, 3)
            )?;
        }
    }
    if let Some(fit) = &smol.beta {
        let (beta, se) = (finite(fit.beta), finite(fit.se));
        let distinguishable = beta.abs() > 2.0 * se;
        let reading = if !distinguishable {
            "It is within two standard errors of 0: SmolLM2's confidence says nothing measurable about the crowd's odds, and the soft targets σ(β·s) are close to ½ for every battle."
        } else if beta > 0.0 {
            "It is positive: the judge's confidence leans the crowd's way."
        } else {
            "It is negative: the judge's confidence points away from the crowd."
        };
        writeln!(
            md,
            "\nβ, the slope that turns SmolLM2's score into the humans' odds (σ(β·s)): {} (SE {}, {} non-tie votes). {reading}",
            num(fit.beta, 3),
            num(fit.se, 3),
            fit.n_battles,
        )?;
    }
    writeln!(
        md,
        "\nA smaller MAE is not a better judge by itself: a judge whose verdicts carry no \
         information pulls every model's held-out Elo towards the middle, which is close to the \
         crowd's narrow spread, while a decisive judge spreads them out. ρ says whether the \
         order is right."
    )?;
    writeln!(
        md,
        "\n**Conformal intervals** on the humans' Elo from a judge's held-out Elo (split \
         conformal, α = 0.1, normalised scores, 100 random splits of the models into \
         calibration and test):\n\n\
         | judge | targets | coverage, mean [min, max] over splits | median width (Elo) | leave-one-out coverage |\n|---|---|---|---|---|"
    )?;
    for (name, report) in [("SmolLM2-135M", smol), ("GPT-4", gpt4)] {
        for (k, c) in report.conformal.iter().enumerate() {
            let Some(c) = c else {
                writeln!(
                    md,
                    "| {name} | {} | too few models for α | — | — |",
                    report.held_out.runs.get(k).map_or("?", |r| r.name.as_str())
                )?;
                continue;
            };
            let e = &c.evaluation;
            writeln!(
                md,
                "| {name} | {} | {} [{}, {}] | {} | {} |",
                c.target,
                num(e.coverage, 3),
                num(e.coverage_min, 2),
                num(e.coverage_max, 2),
                num(e.median_width, 0),
                num(c.leave_one_out_coverage, 3)
            )?;
        }
    }
    let loo_models = smol
        .conformal
        .first()
        .and_then(Option::as_ref)
        .map_or(0, |c| c.intervals.len());
    let alpha = 0.1;
    let covered_always = ((loo_models as f64) * (1.0 - alpha)).ceil() as usize;
    let human: Vec<f64> = smol
        .held_out
        .runs
        .first()
        .into_iter()
        .flat_map(|r| &r.rows)
        .map(|r| r.human_elo)
        .filter(|x| x.is_finite())
        .collect();
    let range = human.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        - human.iter().copied().fold(f64::INFINITY, f64::min);
    writeln!(
        md,
        "\n**Reading the coverage.** The leave-one-out column is the same in every row by \
         construction, not by luck: leaving out one model of {loo_models}, the interval is \
         calibrated on the other {}, and it covers the left-out model exactly when that \
         model's score is among the ⌈{loo_models}·(1 − α)⌉ = {covered_always} smallest of all \
         {loo_models} — which holds for {covered_always} of the {loo_models} models whatever \
         the judge ({covered_always}/{loo_models} = {:.3}). It checks the method, not the \
         judge. The widths are the judge's verdict: the crowd's Elo on these models spans \
         {range:.0} points, so an interval of several hundred points says that the judge's \
         held-out Elo cannot place a new model within the crowd's range at all — the coverage \
         is kept by making the intervals as wide as the judge is uninformative.",
        loo_models.saturating_sub(1),
        covered_always as f64 / loo_models.max(1) as f64,
    )?;
    let rows = |report: &JudgeStudy, target: &str| -> Vec<(f64, f64)> {
        report
            .held_out
            .runs
            .iter()
            .filter(|r| r.name == target)
            .flat_map(|r| &r.rows)
            .filter(|row| row.human_elo.is_finite() && row.llm_elo.is_finite())
            .map(|row| (row.human_elo, row.llm_elo))
            .collect()
    };
    let path = figure(
        "held-out.svg",
        plot(
            &Axes {
                title: "Held-out judge Elo against the crowd's (the sample)",
                x: "crowd Elo",
                y: "judge's held-out Elo",
            },
            &[
                Series {
                    name: "GPT-4, hard",
                    colour: GPT4,
                    points: rows(gpt4, "hard"),
                },
                Series {
                    name: "SmolLM2-135M, soft",
                    colour: SMOL,
                    points: rows(smol, "soft"),
                },
            ],
            false,
            true,
        ),
    )?;
    writeln!(md, "\n![Held-out Elo against the crowd's]({path})\n")?;
    Ok(())
}

/// The MSE on the calibration's test rows of predicting every row's `human` as the training
/// rows' mean (`None` when a file has no `human` column or no rows).
fn mean_baseline(section: &Section) -> anyhow::Result<Option<f64>> {
    let humans = |role: &str| -> anyhow::Result<Vec<f64>> {
        let Some(input) = section.inputs.optional(role) else {
            return Ok(Vec::new());
        };
        let mut reader = csv::Reader::from_reader(input.bytes.as_slice());
        let Some(column) = reader.headers()?.iter().position(|h| h == "human") else {
            return Ok(Vec::new());
        };
        let mut values = Vec::new();
        for record in reader.records() {
            if let Some(v) = record?.get(column).and_then(|v| v.parse::<f64>().ok()) {
                values.push(v);
            }
        }
        Ok(values)
    };
    let (train, test) = (humans("train")?, humans("test")?);
    if train.is_empty() || test.is_empty() {
        return Ok(None);
    }
    let mean = train.iter().sum::<f64>() / train.len() as f64;
    Ok(Some(
        test.iter().map(|y| (y - mean).powi(2)).sum::<f64>() / test.len() as f64,
    ))
}

fn calibration(
    study: &Study,
    md: &mut String,
    figure: &mut dyn FnMut(&str, String) -> anyhow::Result<String>,
) -> anyhow::Result<()> {
    let c = report!(study, "calibration", Calibration);
    let (regression, classification) = (
        c.calibration.regression.as_ref(),
        c.calibration.classification.as_ref(),
    );
    writeln!(
        md,
        "## 3. Calibration heads\n\n\
         A *calibration head* (from the paper *Quantitative LLM Judges*) is a small regression \
         fitted on top of a judge to turn its output into the humans' scale. \
         A BTL head on the MiniLM embedding of SmolLM2's rationale, trained on {} judgments of \
         crowd-labelled pairs (γ by {}-fold cross-validation) and tested on {} others, against \
         the base judge's p_s; the target is the crowd's share of votes for the answer shown \
         first (95 % bootstrap intervals).\n",
        c.calibration.n_train, c.calibration.cv.folds, c.calibration.n_test
    )?;
    let (n_test, n_classified) = (c.calibration.n_test, classification.map_or(0, |c| c.n));
    if n_classified < n_test {
        writeln!(
            md,
            "Accuracy is over the {n_classified} test judgments whose crowd share picks a side; \
             the other {} (a share of ½: a tie) are in the other metrics only.\n",
            n_test - n_classified
        )?;
    }
    writeln!(
        md,
        "| metric | head | base (p_s) | head − base |\n|---|---|---|---|"
    )?;
    for (metric, m) in [
        ("mse", regression.map(|r| &r.mse)),
        ("mae", regression.map(|r| &r.mae)),
        ("spearman", regression.map(|r| &r.spearman)),
        ("accuracy", classification.map(|c| &c.accuracy)),
    ] {
        writeln!(
            md,
            "| {metric} | {} | {} | {} |",
            interval(m.map(|m| &m.head), 3),
            interval(m.map(|m| &m.base), 3),
            interval(m.map(|m| &m.difference), 3)
        )?;
    }
    if let Some(mean_mse) = mean_baseline(study.section("calibration")?)? {
        let head = regression.map_or(f64::NAN, |r| finite(r.mse.head.estimate));
        let reading = if head < mean_mse - 0.005 {
            format!("the head's {head:.3} is below it: it predicts more than the mean")
        } else {
            format!(
                "the head's {head:.3} is not below it: its gain over p_s is the crowd's mean \
                 share learnt, not anything about the pair"
            )
        };
        writeln!(
            md,
            "\nA baseline that knows nothing about the pair — predicting every test pair's \
             crowd share as the training pairs' mean — has MSE {mean_mse:.3}, and {reading}. \
             The base p_s, forced and renormalised, sits near 0 or 1 and is penalised for it."
        )?;
    }
    let points = c
        .training_curve
        .as_ref()
        .map_or(&[][..], |curve| &curve.points);
    if points.is_empty() {
        writeln!(
            md,
            "\nNo training-size curve: the sample left fewer than 25 training judgments.\n"
        )?;
        return Ok(());
    }
    writeln!(
        md,
        "\n**With fewer labels** (5 random training subsets per size):\n\n\
         | crowd-labelled judgments | head accuracy, mean (sd) | base accuracy |\n|---|---|---|"
    )?;
    let mut head = Vec::new();
    let mut base = Vec::new();
    for p in points {
        writeln!(
            md,
            "| {} | {} ({}) | {} |",
            p.size,
            num(p.head_mean, 3),
            num(p.head_sd, 3),
            num(p.base_mean, 3)
        )?;
        if p.head_mean.is_finite() && p.base_mean.is_finite() {
            head.push((p.size as f64, p.head_mean));
            base.push((p.size as f64, p.base_mean));
        }
    }
    if let Some(acc) = classification
        .map(|c| c.accuracy.head.estimate)
        .filter(|x| x.is_finite())
    {
        head.push((c.calibration.n_train as f64, acc));
    }
    let sizes: Vec<String> = points.iter().map(|p| p.size.to_string()).collect();
    let missing: Vec<&str> = ["100", "200", "500"]
        .into_iter()
        .filter(|k| !sizes.iter().any(|s| s == k))
        .collect();
    if !missing.is_empty() {
        writeln!(
            md,
            "\n{} labels do not fit this sample ({} training judgments); a larger `--minutes` \
             or `--full` adds {}.",
            missing.join(" and "),
            c.calibration.n_train,
            if missing.len() == 1 {
                "that point"
            } else {
                "those points"
            }
        )?;
    }
    let path = figure(
        "calibration.svg",
        plot(
            &Axes {
                title: "Test accuracy of the head by training size",
                x: "training judgments",
                y: "accuracy on the test judgments",
            },
            &[
                Series {
                    name: "BTL head",
                    colour: SMOL,
                    points: head,
                },
                Series {
                    name: "base p_s",
                    colour: CROWD,
                    points: base,
                },
            ],
            true,
            false,
        ),
    )?;
    writeln!(md, "\n![Head accuracy by training size]({path})\n")?;
    Ok(())
}

fn reliability(study: &Study, md: &mut String) -> anyhow::Result<()> {
    let a = &report!(study, "agreement", Agreement).report;
    writeln!(
        md,
        "## 4. Reliability\n\n\
         The checks of *Building a Trustworthy LLM-as-a-Judge* (2025): do raters agree beyond \
         chance, does the judge follow the order the answers are shown in, does it agree with \
         itself. \
         The crowd on the sample: Krippendorff's α (nominal) = {} ({} raters, {} votes; band \
         \"{}\"). Each judge against the crowd's majority on the {} pairs that have one:\n",
        interval(a.group.as_ref().map(|g| &g.alpha.interval), 3),
        a.n_raters,
        a.n_ratings,
        a.group
            .as_ref()
            .and_then(|g| g.reading.band)
            .map_or_else(|| "?".to_owned(), |b| named(&b)),
        a.majority
            .as_ref()
            .map_or_else(|| "—".to_owned(), |m| m.n_items.to_string()),
    )?;
    writeln!(
        md,
        "| judge | pairs | agreement | Cohen's κ | band |\n|---|---|---|---|---|"
    )?;
    for j in &a.judges {
        let g = &j.agreement.agreement;
        writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            j.agreement.rater,
            j.agreement.n_paired,
            interval(Some(&g.percent_agreement.interval), 3),
            interval(Some(&g.kappa.interval), 3),
            g.kappa.band.map_or_else(|| "—".to_owned(), |b| named(&b))
        )?;
    }
    let p = report!(study, "position", Position);
    writeln!(
        md,
        "\n**Position bias** ({} pairs in both orders, {} verdicts): the first-shown answer wins \
         {} of the decided verdicts (binomial test against ½: {}); the verdict flips with \
         the order on {} of the pairs.\n",
        p.n_both_orders,
        p.n_verdicts,
        interval(Some(&p.first_position_rate), 3),
        if p.p_value.is_finite() {
            p_text(p.p_value)
        } else {
            "p not defined".to_owned()
        },
        interval(Some(&p.flip_rate), 3)
    )?;
    let aa = report!(study, "aa", Aa);
    writeln!(
        md,
        "**A/A** (two sampled runs on {} pairs, the crowd's plurality as gold): overall \
         **{}**.\n\n| check | run 1 | run 2 | Δ | band | flag |\n|---|---|---|---|---|---|",
        aa.n_items_both_runs,
        aa.overall.map_or_else(|| "?".to_owned(), |f| named(&f))
    )?;
    for c in &aa.checks {
        writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            named(&c.metric),
            opt(c.run_a, 3),
            opt(c.run_b, 3),
            num(c.delta, 3),
            num(c.band, 3),
            c.flag.map_or_else(|| "?".to_owned(), |f| named(&f))
        )?;
    }
    writeln!(md)?;
    Ok(())
}

fn programs(
    study: &Study,
    md: &mut String,
    figure: &mut dyn FnMut(&str, String) -> anyhow::Result<String>,
) -> anyhow::Result<()> {
    let p = &report!(study, "programs", Programs).report;
    let c = &p.committee;
    let majority = report!(study, "agreement", Agreement)
        .report
        .majority
        .as_ref();
    let count = |n: Option<usize>| n.map_or_else(|| "—".to_owned(), |n| n.to_string());
    writeln!(
        md,
        "## 5. Programs, the label model and routing\n\n\
         From Huang, Qiu & Sala's *Codifying the Judge* (2026): cheap programmatic judges \
         (length, overlap, format checks) vote, a *label model* weighs their votes by their \
         estimated accuracy, and *routing* sends the pairs the programs are least sure of to \
         the LLM judge. \
         The built-in programmatic judges on the {} sampled pairs (thresholds and committee \
         chosen on {} of them), scored against the crowd's plurality on the {} decided test \
         pairs:\n\n| verdicts | accuracy | coverage |\n|---|---|---|\n\
         | label model | {} | {} |\n| majority vote | {} | {} |\n| SmolLM2-135M | {} | {} |\n\n\
         Label model − majority vote: {}.\n\n\
         **Counting pairs.** Section 4's {} pairs are the sampled pairs whose votes have one \
         most frequent label (`tie` can be that label; {} pairs have two labels equally \
         frequent). Here the {} pairs left after the {} used to choose thresholds are the test \
         split, and an accuracy needs a side: the {} whose crowd plurality (LLMFAO's `label`) \
         is a or b; its {} ties are left out. Majority vote's coverage is the share of test \
         pairs where the programs do not split evenly.\n",
        p.pairs,
        p.validation_pairs,
        c.test_labelled,
        interval(Some(&c.label_model.accuracy), 3),
        num(c.label_model.coverage, 3),
        interval(Some(&c.majority_vote.accuracy), 3),
        num(c.majority_vote.coverage, 3),
        interval(c.llm.as_ref().map(|l| &l.accuracy), 3),
        opt(c.llm.as_ref().map(|l| l.coverage), 3),
        interval(Some(&c.difference), 3),
        count(majority.map(|m| m.n_items)),
        count(majority.map(|m| m.n_tied)),
        p.test_pairs,
        p.validation_pairs,
        c.test_labelled,
        c.test_ties,
    )?;
    if !c.warnings.is_empty() {
        writeln!(md, "The report warns:\n")?;
        for w in &c.warnings {
            writeln!(md, "- {w}")?;
        }
        writeln!(md)?;
    }
    let Some(routing) = &c.routing else {
        writeln!(md, "No routing curve: the report has no routing.\n")?;
        return Ok(());
    };
    let names: Vec<String> = routing.curves.iter().map(|c| named(&c.signal)).collect();
    let series: Vec<Series> = routing
        .curves
        .iter()
        .zip(&names)
        .map(|(curve, name)| {
            let colour = match curve.signal {
                RoutingSignal::Posterior => SMOL,
                RoutingSignal::Oracle => CROWD,
                RoutingSignal::Random => "#999999",
                RoutingSignal::VoteVariance => GPT4,
                RoutingSignal::QueryLength => "#2ca02c",
                RoutingSignal::ResponseLength => "#9467bd",
            };
            Series {
                name,
                colour,
                points: curve
                    .points
                    .iter()
                    .filter(|q| q.budget.is_finite() && q.accuracy.is_finite())
                    .map(|q| (q.budget, q.accuracy))
                    .collect(),
            }
        })
        .collect();
    if series.is_empty() {
        writeln!(md, "No routing curve: the routing has no curves.\n")?;
        return Ok(());
    }
    let path = figure(
        "routing.svg",
        plot(
            &Axes {
                title: "Routing the committee's least sure pairs to SmolLM2",
                x: "share of pairs sent to the judge",
                y: "accuracy against the crowd",
            },
            &series,
            true,
            false,
        ),
    )?;
    writeln!(
        md,
        "**Routing**: the committee answers and the pairs it is least sure of (by each signal) \
         go to SmolLM2; at budget 0 the accuracy is the committee's ({}), at 1 the judge's ({}).\n\n\
         ![Routing curves]({path})\n",
        num(routing.programs_accuracy, 3),
        num(routing.llm_accuracy, 3)
    )?;
    Ok(())
}

/// `estimate [lower, upper]` of a normal estimate with `digits` decimals.
fn estimate(e: &Estimate, digits: usize) -> String {
    format!(
        "{:.digits$} [{:.digits$}, {:.digits$}]",
        e.estimate, e.lower, e.upper
    )
}

fn ppi(study: &Study, md: &mut String) -> anyhow::Result<()> {
    let gpt4 = report!(study, "gpt4-ppi", Ppi);
    let smol = report!(study, "smollm2-ppi", Ppi);
    writeln!(
        md,
        "## 6. Prediction-powered leaderboards: many judge labels, a few of the crowd's\n\n\
         Prediction-powered inference (PPI++, Angelopoulos, Duchi & Zrnic 2023) takes the \
         crowd's labels on a share of the pairs as the truth and the judge's verdicts on every \
         pair to narrow the intervals: the labelled pairs measure the judge's bias and correct \
         it, and λ weighs the judge (0: the crowd's labels alone; tuned to the data). A pair's \
         label is the crowd's mean vote for its left answer. GPT-4 judged all {} pairs and the \
         crowd's labels are kept on a seeded half; SmolLM2 judged the {}-pair sample and the \
         crowd's labels are kept on a seeded half of it.\n",
        gpt4.n_battles, smol.n_battles
    )?;
    writeln!(
        md,
        "| judge | pairs | crowd-labelled | models with a win rate | median crowd labels one label is worth (win rates) | leaderboard λ | leaderboard worth, in crowd labels |\n|---|---|---|---|---|---|---|"
    )?;
    for (name, r) in [("GPT-4", gpt4), ("SmolLM2-135M", smol)] {
        let mut worth: Vec<f64> = r
            .win_rates
            .iter()
            .filter_map(|w| w.estimate.map(|e| e.effective_n / e.n as f64))
            .collect();
        worth.sort_by(f64::total_cmp);
        let median = match worth.len() {
            0 => "—".to_owned(),
            n => format!("{:.2}", (worth[(n - 1) / 2] + worth[n / 2]) / 2.0),
        };
        let (lambda, board) = r.leaderboard.as_ref().map_or_else(
            || ("—".to_owned(), "not identified".to_owned()),
            |b| {
                (
                    format!("{:.3}", b.lambda),
                    format!("{:.0} (from {})", b.effective_n, b.labels),
                )
            },
        );
        writeln!(
            md,
            "| {name} | {} | {} | {} of {} | {median} | {lambda} | {board} |",
            r.n_battles,
            r.n_labelled,
            worth.len(),
            r.win_rates.len(),
        )?;
    }
    if let Some(board) = &gpt4.leaderboard {
        let extra = board.effective_n - board.labels as f64;
        writeln!(
            md,
            "\nPPI tunes λ to what the judge's labels are worth: for GPT-4's leaderboard λ = \
             {:.3}, and its {} verdicts on unlabelled pairs add the worth of {extra:.0} crowd \
             labels to the {} ({:.1} %). Where a judge's leaderboard differs from the crowd's, \
             as GPT-4's does (sections 1 and 9), PPI keeps to the crowd's estimate and λ near 0: \
             the correction is what keeps the intervals honest, and the judge's labels then do \
             little.",
            board.lambda,
            gpt4.n_battles - gpt4.n_labelled,
            board.labels,
            100.0 * extra / board.labels as f64,
        )?;
        let mut ratings: Vec<_> = board.ratings.iter().collect();
        ratings.sort_by(|a, b| b.ppi.estimate.total_cmp(&a.ppi.estimate));
        writeln!(
            md,
            "\nGPT-4's prediction-powered leaderboard: Elo differences from {} with {} % \
             intervals, beside the crowd's labels alone and GPT-4's verdicts alone (no \
             correction: nothing guarantees that interval covers the crowd's), and the ranks \
             each model may hold, all at once.\n\n\
             | model | PPI | crowd labels only | GPT-4 alone (uncorrected) | ranks |\n|---|---|---|---|---|",
            board.reference,
            100.0 * (1.0 - gpt4.settings.alpha),
        )?;
        let shown = |e: Option<&Estimate>| {
            e.map_or_else(|| "not identified".to_owned(), |e| estimate(e, 0))
        };
        for r in ratings {
            writeln!(
                md,
                "| {} | {} | {} | {} | {}–{} |",
                r.model,
                estimate(&r.ppi, 0),
                shown(r.human_only.as_ref()),
                shown(r.judge_only.as_ref()),
                r.ranks.best,
                r.ranks.worst
            )?;
        }
    }
    for (name, r) in [("GPT-4", gpt4), ("SmolLM2-135M", smol)] {
        if let Some(first) = r.warnings.first() {
            writeln!(
                md,
                "\n{name}'s report warns {} time{} (all in the session); the first: {first}",
                r.warnings.len(),
                if r.warnings.len() == 1 { "" } else { "s" }
            )?;
        }
    }
    writeln!(md)?;
    Ok(())
}

fn judge_value(study: &Study, md: &mut String) -> anyhow::Result<()> {
    writeln!(
        md,
        "## 7. What a judge is worth, before labels are spent on it\n\n\
         The judge value gauge (`tribunal stats judge-value`) reads a pilot: pairs with both \
         the judge's verdict and the crowd's label. From it: how often the judge picks the \
         crowd's side (beside what two independent raters with the same habits would reach by \
         chance), the correlation ρ of the judge's labels with the crowd's, what PPI makes of \
         one crowd label with the file's judge-only pairs, and the most any correction of the \
         judge can make of it — about 1 / (1 − ρ²) labels (Dorner, Nastl & Hardt, ICLR 2025), \
         so a judge can replace at most a share ρ² of the human labels. Below ρ = 0.3 that is \
         at most 9 %, and the gauge calls the judge not worth running.\n\n\
         | judge, pilot | pilot pairs | judge-only pairs | picks the crowd's side | chance | ρ | one label worth (PPI) | at most | labels it can replace, at most | verdict |\n|---|---|---|---|---|---|---|---|---|---|"
    )?;
    for (g, name) in [
        (
            report!(study, "gpt4-value", JudgeValue),
            "GPT-4, half of all pairs",
        ),
        (
            report!(study, "gpt4-sample-value", JudgeValue),
            "GPT-4, half the sample",
        ),
        (
            report!(study, "smollm2-value", JudgeValue),
            "SmolLM2-135M, half the sample",
        ),
    ] {
        let a = &g.agreement;
        let times = |x: Option<f64>| x.map_or_else(|| "—".to_owned(), |x| format!("{x:.2}"));
        let share =
            |x: Option<f64>| x.map_or_else(|| "—".to_owned(), |x| format!("{:.0} %", 100.0 * x));
        writeln!(
            md,
            "| {name} | {} | {} | {:.3} [{:.3}, {:.3}] | {:.3} | {} | {} | {} | {} (≤ {} at ρ's upper end) | {} |",
            g.labelled,
            g.unlabelled,
            a.estimate,
            a.lower,
            a.upper,
            g.chance_agreement,
            g.rho.map_or_else(
                || "not identified".to_owned(),
                |r| format!("{:.3} [{:.3}, {:.3}]", r.estimate, r.lower, r.upper)
            ),
            times(g.labels_per_label),
            times(g.ceiling),
            share(g.replaceable_share),
            share(g.replaceable_share_upper),
            g.verdict.split(':').next().unwrap_or_default(),
        )?;
    }
    let smol = report!(study, "smollm2-value", JudgeValue);
    writeln!(
        md,
        "\nOn SmolLM2 the gauge says: {}. A gauge on a pilot of about a hundred pairs is \
         itself uncertain — ρ's interval is what to plan with, and the last column's upper \
         figure is the most the data allow.\n",
        smol.verdict
    )?;
    Ok(())
}

fn style(study: &Study, md: &mut String) -> anyhow::Result<()> {
    let crowd = report!(study, "crowd-style", Style);
    let gpt4 = report!(study, "gpt4-style", Style);
    writeln!(
        md,
        "## 8. Style: the leaderboards with length and markdown held fixed\n\n\
         LMArena's style control (a Bradley–Terry model with the two answers' differences in \
         length and markdown as extra terms) separates what a rater rewards in the form of an \
         answer from the model's strength. A positive coefficient: the rater prefers the \
         answer with more of that feature, per standard deviation of the difference.\n\n\
         | rater | feature | coefficient, {} % interval |\n|---|---|---|",
        100.0 * crowd.params.level
    )?;
    for (name, r) in [("crowd", crowd), ("GPT-4", gpt4)] {
        for c in &r.coefficients {
            writeln!(
                md,
                "| {name} | {} | {:.3} [{:.3}, {:.3}] |",
                c.name, c.estimate, c.lower, c.upper
            )?;
        }
    }
    for (name, r) in [("crowd", crowd), ("GPT-4", gpt4)] {
        let mut moved: Vec<_> = r.ratings.iter().filter(|x| x.rank_change != 0).collect();
        moved.sort_by_key(|x| (std::cmp::Reverse(x.rank_change.abs()), x.model.clone()));
        let top: Vec<String> = moved
            .iter()
            .take(5)
            .map(|x| format!("{} ({} → {})", x.model, x.raw_rank, x.rank))
            .collect();
        writeln!(
            md,
            "\n{name}: {} of {} models change rank with style held fixed{}",
            moved.len(),
            r.ratings.len(),
            if top.is_empty() {
                ".".to_owned()
            } else {
                format!("; the largest moves: {}.", top.join(", "))
            }
        )?;
    }
    writeln!(md)?;
    Ok(())
}

fn self_preference(study: &Study, md: &mut String) -> anyhow::Result<()> {
    let r = report!(study, "self-preference", SelfPreference);
    writeln!(
        md,
        "## 9. Self-preference: does GPT-4 favour its own family?\n\n\
         GPT-4's verdicts against the crowd's ratings of the same models: at equal strength by \
         the crowd, how much more often does GPT-4 pick a model of the GPT family ({})? {}\n\n\
         | term | estimate, {} % interval |\n|---|---|\n\
         | self-preference, Elo points | {} |\n\
         | self-preference, points of win rate | {} |\n\
         | GPT-4's share of wins for the family in its {} battles against other models | {:.3} |\n\
         | the share the crowd's ratings predict | {:.3} |\n\
         | the share by the crowd's own votes ({} battles) | {} |\n",
        r.params.family.join(", "),
        r.reading,
        100.0 * r.params.level,
        estimate(&r.elo_points, 0),
        estimate(
            &Estimate {
                estimate: 100.0 * r.win_rate_effect.estimate,
                se: 100.0 * r.win_rate_effect.se,
                lower: 100.0 * r.win_rate_effect.lower,
                upper: 100.0 * r.win_rate_effect.upper,
            },
            1
        ),
        r.cross_battles,
        r.judge_win_rate,
        r.human_predicted_win_rate,
        r.human_cross_battles,
        r.human_win_rate
            .map_or_else(|| "—".to_owned(), |w| format!("{w:.3}")),
    )?;
    let rank = |board: &BTreeMap<String, Elo>, model: &str| -> Option<usize> {
        let elo = board.get(model)?.0;
        Some(1 + board.values().filter(|(e, _)| *e > elo).count())
    };
    let (crowd, gpt4) = (
        elos(report!(study, "crowd-leaderboard", Leaderboard)),
        elos(report!(study, "gpt4-leaderboard", Leaderboard)),
    );
    let places: Vec<String> = r
        .params
        .family
        .iter()
        .filter_map(|m| {
            Some(format!(
                "{m} #{} by GPT-4, #{} by the crowd",
                rank(&gpt4, m)?,
                rank(&crowd, m)?
            ))
        })
        .collect();
    writeln!(
        md,
        "What it does to a leaderboard (section 1, of {} models): {}.\n",
        crowd.len(),
        places.join("; ")
    )?;
    Ok(())
}

fn failures(study: &Study, md: &mut String) -> anyhow::Result<()> {
    let a = &report!(study, "agreement", Agreement).report;
    let kappa = |rater: &str| -> Option<&Interval> {
        a.judges
            .iter()
            .find(|j| j.agreement.rater == rater)
            .map(|j| &j.agreement.agreement.kappa.interval)
    };
    let (smol_kappa, gpt4_kappa) = (kappa("smollm2"), kappa("gpt4"));
    let rho = |report: &JudgeStudy, target: &str| -> Option<f64> {
        held_out_rows(report)
            .into_iter()
            .find(|(t, _, _)| *t == target)
            .and_then(|(_, _, rho)| rho)
    };
    let (smol_study, gpt4_study) = (
        report!(study, "smollm2-study", JudgeStudy),
        report!(study, "gpt4-study", JudgeStudy),
    );
    let position = report!(study, "position", Position);
    let calibration = &report!(study, "calibration", Calibration).calibration;
    let programs = &report!(study, "programs", Programs).report.committee;
    writeln!(md, "## 10. Where a 135M judge fails\n")?;
    let (lower, upper) = (
        smol_kappa.map_or(f64::NAN, |k| finite(k.lower)),
        smol_kappa.map_or(f64::NAN, |k| finite(k.upper)),
    );
    let agreement = if upper < 0.0 {
        "**It agrees with people less than chance would.**"
    } else if lower <= 0.0 {
        "**It does not measurably agree with people.**"
    } else {
        "**It agrees with people, weakly.**"
    };
    writeln!(
        md,
        "- {agreement} κ with the crowd's majority is {} for SmolLM2 against {} for GPT-4{}.",
        interval(smol_kappa, 3),
        interval(gpt4_kappa, 3),
        if lower <= 0.0 && upper >= 0.0 {
            "; its interval contains 0, so on this sample it is not distinguishable from chance"
        } else {
            ""
        }
    )?;
    writeln!(
        md,
        "- **Its leaderboard is not the crowd's.** Held out model by model, SmolLM2's hard Elo \
         ranks the models with Spearman ρ = {} against the crowd's (soft: {}); GPT-4's on the \
         same pairs: {}.",
        opt(rho(smol_study, "hard"), 3),
        opt(rho(smol_study, "soft"), 3),
        opt(rho(gpt4_study, "hard"), 3)
    )?;
    writeln!(
        md,
        "- **Order decides most of its verdicts.** The first-shown answer wins {} of its decided \
         verdicts, and {} of the pairs judged both ways change verdict with the order. \
         Randomising the order (as the study does) keeps this bias out of the leaderboard's \
         mean, not out of its noise: a verdict that follows the order is a coin flip.",
        interval(Some(&position.first_position_rate), 3),
        interval(Some(&position.flip_rate), 3)
    )?;
    let accuracy = calibration.classification.as_ref().map(|c| &c.accuracy);
    let mse = calibration.regression.as_ref().map(|r| &r.mse);
    writeln!(
        md,
        "- **Calibration corrects its scale, not its signal.** The BTL head's mean squared \
         error against the crowd's vote shares is {} against the base p_s's {} — it learns \
         where the crowd's shares lie{} — but its accuracy is {} against {} (difference {}): a \
         head cannot find in the rationale a preference the judge did not express.",
        interval(mse.map(|m| &m.head), 3),
        interval(mse.map(|m| &m.base), 3),
        match mean_baseline(study.section("calibration")?)? {
            Some(mean)
                if mse
                    .map(|m| m.head.estimate)
                    .is_some_and(|head| head.is_finite() && head >= mean - 0.005) =>
                format!(" (predicting the mean share does as well, MSE {mean:.3}: section 3)"),
            _ => String::new(),
        },
        interval(accuracy.map(|a| &a.head), 3),
        interval(accuracy.map(|a| &a.base), 3),
        interval(accuracy.map(|a| &a.difference), 3)
    )?;
    let (label_model, judge, majority) = (
        Some(&programs.label_model.accuracy),
        programs.llm.as_ref().map(|l| &l.accuracy),
        Some(&programs.majority_vote.accuracy),
    );
    // (lower, estimate, upper), NaN where missing.
    let sides = |v: Option<&Interval>| {
        v.map_or((f64::NAN, f64::NAN, f64::NAN), |v| {
            (finite(v.lower), finite(v.estimate), finite(v.upper))
        })
    };
    let (lm, jd, mv) = (sides(label_model), sides(judge), sides(majority));
    let fallback = if jd.0 > lm.2 {
        "As a fallback it helps."
    } else if jd.2 < lm.0 {
        "As a fallback it hurts."
    } else {
        "As a fallback it does not measurably help."
    };
    let best = if mv.1 >= jd.1.max(lm.1) {
        format!(
            " Plain majority vote over the programs ({}, on the pairs where they vote) does at \
             least as well as either.",
            interval(majority, 3)
        )
    } else {
        String::new()
    };
    writeln!(
        md,
        "- **{fallback}** The label model over the programs is right on {} of the decided test \
         pairs and the judge alone on {}: the intervals overlap, so routing the committee's \
         least sure pairs to the judge (figure in section 5) moves the accuracy between two \
         numbers this sample cannot tell apart.{best}",
        interval(label_model, 3),
        interval(judge, 3),
    )?;
    let counts = FormatCounts::of(&study.runs[0].lines)?;
    writeln!(
        md,
        "- **It rarely gives a verdict of its own.** {} of its {} main-run verdicts were forced \
         (the `[RESULT]` marker appended for it), at a median {} of its probability on the two \
         labels.",
        counts.forced,
        counts.followed + counts.forced + counts.unparsed,
        counts
            .median_mass
            .map_or_else(|| "—".to_owned(), |m| format!("{:.2} %", 100.0 * m)),
    )?;
    let gauge = report!(study, "smollm2-value", JudgeValue);
    writeln!(
        md,
        "- **{}** The judge value gauge (section 7): {}.\n",
        if gauge.worth_running {
            "The gauge finds it worth running."
        } else {
            "It is not worth running for labels."
        },
        gauge.verdict
    )?;
    writeln!(
        md,
        "These are properties of a 135M model on open-ended answers, measured with intervals; \
         the same commands with a larger judge (`[backend]` in the run's configuration: any \
         OpenAI-compatible server) measure it the same way.\n"
    )?;
    Ok(())
}

fn commands(study: &Study, md: &mut String) -> anyhow::Result<()> {
    writeln!(
        md,
        "## How each number was made\n\n\
         `bash scripts/study.sh` runs `tribunal study` (`--minutes`, `--seed`, `--full`, \
         `--rejudge`, `--verify K`); it writes the analyses' files to `target/llmfao-study/`, \
         where each command below reads them (run from the repository root, after the study). \
         Each is also the saved analysis of the same id in the session.\n"
    )?;
    for s in study.sections {
        writeln!(
            md,
            "- `{}` — {}:\n  `tribunal stats {}`",
            s.id,
            s.title,
            s.command.join(" ")
        )?;
    }
    Ok(())
}
