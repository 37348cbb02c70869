//! The study's report: markdown with a section per analysis, its figures (SVG, [`super::svg`])
//! and the `tribunal stats` command of each section. Everything is read from the analyses'
//! reports and the runs' records, and nothing from the clock: the same seeds and judgments give
//! the same bytes.

use super::svg::{plot, Axes, Series};
use super::{RunOutcome, Section};
use anyhow::Context;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

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
const GPT4: &str = "#1f77b4";
const SMOL: &str = "#d62728";

/// A number with `digits` decimals, or `—`.
fn num(v: &Value, digits: usize) -> String {
    v.as_f64()
        .map_or_else(|| "—".to_owned(), |x| format!("{x:.digits$}"))
}

/// `estimate [lower, upper]` of an interval object.
fn interval(v: &Value, digits: usize) -> String {
    if v.is_null() {
        return "—".to_owned();
    }
    format!(
        "{} [{}, {}]",
        num(&v["estimate"], digits),
        num(&v["lower"], digits),
        num(&v["upper"], digits)
    )
}

impl Study<'_> {
    fn section(&self, id: &str) -> anyhow::Result<&Section> {
        self.sections
            .iter()
            .find(|s| s.id == id)
            .with_context(|| format!("the study has no `{id}` analysis"))
    }

    fn report(&self, id: &str) -> anyhow::Result<&Value> {
        Ok(&self.section(id)?.report)
    }
}

/// Each model's Elo and bootstrap interval in a leaderboard report.
fn elos(board: &Value) -> BTreeMap<String, (f64, Value)> {
    board["ratings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| {
            Some((
                r["model"].as_str()?.to_owned(),
                (r["elo"].as_f64()?, r["bootstrap"].clone()),
            ))
        })
        .collect()
}

/// An Elo with its bootstrap interval; a side the bootstrap could not bound (a model that won
/// or lost every battle in some rounds: separation) is open, `−∞` or `∞`.
fn elo_cell(entry: Option<&(f64, Value)>) -> String {
    match entry {
        None => "—".to_owned(),
        Some((elo, boot)) if boot.is_null() => format!("{elo:.0}"),
        Some((elo, boot)) => {
            let side = |v: &Value, open: &str| {
                v.as_f64()
                    .map_or_else(|| open.to_owned(), |x| format!("{x:.0}"))
            };
            let (lo, hi) = (side(&boot["lower"], "−∞"), side(&boot["upper"], "∞"));
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
    failures(study, &mut md)?;
    commands(study, &mut md)?;
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
         Each was judged once in an order drawn per pair (the field guide's randomisation); a \
         seeded quarter also in the other order (position bias); a seeded eighth twice more with \
         sampling at temperature 0.7 (the A/A test).\n\
         - **Judge**: {} (file hash `{}`) on the CPU; the Prometheus relative prompt, greedy, \
         at most 96 new tokens, the verdict constrained to `[RESULT] A|B` (prompt hash `{}`). \
         p_s is read at the verdict; the rationale is embedded with {}.\n",
        study.pairs_total,
        study.votes_total,
        study.n,
        study.seed,
        main["judge_model"]["id"].as_str().unwrap_or("?"),
        main["judge_model"]["hash"].as_str().unwrap_or("?"),
        main["prompt_hash"].as_str().unwrap_or("?"),
        main["embedding_model"]
            .as_str()
            .unwrap_or("all-MiniLM-L6-v2"),
    )?;
    writeln!(
        md,
        "| run | items | judgments | judged by the recorded process | unparsed | s / judgment | code |\n|---|---|---|---|---|---|---|"
    )?;
    for run in study.runs {
        let r = &run.record;
        let judged = r["judged_now"].as_f64().unwrap_or(0.0);
        let per = if judged > 0.0 {
            format!("{:.2}", r["seconds"].as_f64().unwrap_or(0.0) / judged)
        } else {
            "—".to_owned()
        };
        writeln!(
            md,
            "| {} | {} | {} | {} | {} | {per} | {} |",
            run.name,
            r["items"]["count"],
            r["judgments"],
            r["judged_now"],
            r["parse_failures"],
            r["code_version"].as_str().unwrap_or("?")
        )?;
    }
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
    let crowd = elos(study.report("crowd-leaderboard")?);
    let gpt4 = elos(study.report("gpt4-leaderboard")?);
    let smol = elos(study.report("smollm2-leaderboard")?);
    let mut order: Vec<(&String, &(f64, Value))> = crowd.iter().collect();
    order.sort_by(|a, b| b.1 .0.total_cmp(&a.1 .0));
    writeln!(
        md,
        "## 1. Leaderboards\n\n\
         Bradley–Terry on the Elo scale with 95 % bootstrap intervals (200 rounds). The crowd's \
         and GPT-4's use all {} pairs; SmolLM2's only the {} it judged, so its intervals are \
         wider and a model it never saw is missing (—). An interval open on a side (`−∞`, `∞`) \
         is one the bootstrap could not bound: in some rounds the model won or lost every \
         battle it had (separation), so its Elo there is not identified.\n",
        study.pairs_total, study.n
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
    let points = |judge: &BTreeMap<String, (f64, Value)>| -> Vec<(f64, f64)> {
        crowd
            .iter()
            .filter_map(|(m, (x, _))| Some((*x, judge.get(m)?.0)))
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

/// The held-out rows of a judge study: (target, MAE, Spearman).
fn held_out_rows(report: &Value) -> Vec<(String, Value, Value)> {
    report["held_out"]["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or("?").to_owned(),
                r["mae"].clone(),
                r["spearman"].clone(),
            )
        })
        .collect()
}

fn held_out(
    study: &Study,
    md: &mut String,
    figure: &mut dyn FnMut(&str, String) -> anyhow::Result<String>,
) -> anyhow::Result<()> {
    let smol = study.report("smollm2-study")?;
    let gpt4 = study.report("gpt4-study")?;
    writeln!(
        md,
        "## 2. The judges against the crowd, model by model (seed 002)\n\n\
         On the {} sampled pairs with a SmolLM2 score ({} crowd votes) and the same pairs' GPT-4 \
         verdicts: the leave-one-model-out protocol fits each judge's Elo for a model from the \
         judge's verdicts on it and the humans' on the others (hard: verdicts; smoothed: \
         verdicts at c = 0.75; soft: σ(β·s) from SmolLM2's p_s — GPT-4 gave verdicts only), and \
         compares it with the humans' own Elo for it.\n",
        study.scored_pairs, smol["n_human_battles"],
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
                num(&mae, 1),
                num(&rho, 3)
            )?;
        }
    }
    if !smol["beta"].is_null() {
        let (beta, se) = (
            smol["beta"]["beta"].as_f64().unwrap_or(f64::NAN),
            smol["beta"]["se"].as_f64().unwrap_or(f64::NAN),
        );
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
            num(&smol["beta"]["beta"], 3),
            num(&smol["beta"]["se"], 3),
            smol["beta"]["n_battles"],
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
        for c in report["conformal"].as_array().into_iter().flatten() {
            let e = &c["evaluation"];
            writeln!(
                md,
                "| {name} | {} | {} [{}, {}] | {} | {} |",
                c["target"].as_str().unwrap_or("?"),
                num(&e["coverage"], 3),
                num(&e["coverage_min"], 2),
                num(&e["coverage_max"], 2),
                num(&e["median_width"], 0),
                num(&c["leave_one_out_coverage"], 3)
            )?;
        }
    }
    let rows = |report: &Value, target: &str| -> Vec<(f64, f64)> {
        report["held_out"]["runs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["name"] == target)
            .flat_map(|r| r["rows"].as_array().cloned().unwrap_or_default())
            .filter_map(|row| Some((row["human_elo"].as_f64()?, row["llm_elo"].as_f64()?)))
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

fn calibration(
    study: &Study,
    md: &mut String,
    figure: &mut dyn FnMut(&str, String) -> anyhow::Result<String>,
) -> anyhow::Result<()> {
    let c = study.report("calibration")?;
    writeln!(
        md,
        "## 3. Calibration heads (seed 000)\n\n\
         A BTL head on the MiniLM embedding of SmolLM2's rationale, trained on {} judgments of \
         crowd-labelled pairs (γ by {}-fold cross-validation) and tested on {} others, against \
         the base judge's p_s; the target is the crowd's share of votes for the answer shown \
         first (95 % bootstrap intervals).\n",
        c["n_train"], c["cv"]["folds"], c["n_test"]
    )?;
    writeln!(
        md,
        "| metric | head | base (p_s) | head − base |\n|---|---|---|---|"
    )?;
    for (family, metric) in [
        ("regression", "mse"),
        ("regression", "mae"),
        ("regression", "spearman"),
        ("classification", "accuracy"),
    ] {
        let m = &c[family][metric];
        writeln!(
            md,
            "| {metric} | {} | {} | {} |",
            interval(&m["head"], 3),
            interval(&m["base"], 3),
            interval(&m["difference"], 3)
        )?;
    }
    let points = c["training_curve"]["points"]
        .as_array()
        .cloned()
        .unwrap_or_default();
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
    for p in &points {
        writeln!(
            md,
            "| {} | {} ({}) | {} |",
            p["size"],
            num(&p["head_mean"], 3),
            num(&p["head_sd"], 3),
            num(&p["base_mean"], 3)
        )?;
        if let (Some(s), Some(h), Some(b)) = (
            p["size"].as_f64(),
            p["head_mean"].as_f64(),
            p["base_mean"].as_f64(),
        ) {
            head.push((s, h));
            base.push((s, b));
        }
    }
    if let (Some(n), Some(acc)) = (
        c["n_train"].as_f64(),
        c["classification"]["accuracy"]["head"]["estimate"].as_f64(),
    ) {
        head.push((n, acc));
    }
    let sizes: Vec<String> = points.iter().map(|p| p["size"].to_string()).collect();
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
            c["n_train"],
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
    let a = study.report("agreement")?;
    writeln!(
        md,
        "## 4. Reliability (seed 001)\n\n\
         The crowd on the sample: Krippendorff's α (nominal) = {} ({} raters, {} votes; band \
         \"{}\"). Each judge against the crowd's majority on the {} pairs that have one:\n",
        interval(&a["group"]["alpha"]["interval"], 3),
        a["n_raters"],
        a["n_ratings"],
        a["group"]["reading"]["band"].as_str().unwrap_or("?"),
        a["majority"]["n_items"],
    )?;
    writeln!(
        md,
        "| judge | pairs | agreement | Cohen's κ | band |\n|---|---|---|---|---|"
    )?;
    for j in a["judges"].as_array().into_iter().flatten() {
        let g = &j["agreement"];
        writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            j["rater"].as_str().unwrap_or("?"),
            j["n_paired"],
            interval(&g["percent_agreement"]["interval"], 3),
            interval(&g["kappa"]["interval"], 3),
            g["kappa"]["band"].as_str().unwrap_or("—")
        )?;
    }
    let p = study.report("position")?;
    writeln!(
        md,
        "\n**Position bias** ({} pairs in both orders, {} verdicts): the first-shown answer wins \
         {} of the decided verdicts (binomial test against ½: p = {}); the verdict flips with \
         the order on {} of the pairs.\n",
        p["n_both_orders"],
        p["n_verdicts"],
        interval(&p["first_position_rate"], 3),
        num(&p["p_value"], 4),
        interval(&p["flip_rate"], 3)
    )?;
    let aa = study.report("aa")?;
    writeln!(
        md,
        "**A/A** (two sampled runs on {} pairs, the crowd's plurality as gold): overall \
         **{}**.\n\n| check | run 1 | run 2 | Δ | band | flag |\n|---|---|---|---|---|---|",
        aa["n_items_both_runs"],
        aa["overall"].as_str().unwrap_or("?")
    )?;
    for c in aa["checks"].as_array().into_iter().flatten() {
        writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            c["metric"].as_str().unwrap_or("?"),
            num(&c["run_a"], 3),
            num(&c["run_b"], 3),
            num(&c["delta"], 3),
            num(&c["band"], 3),
            c["flag"].as_str().unwrap_or("?")
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
    let p = study.report("programs")?;
    let c = &p["committee"];
    writeln!(
        md,
        "## 5. Programs, the label model and routing (seed 004)\n\n\
         The built-in programmatic judges on the {} sampled pairs (thresholds and committee \
         chosen on {} of them), scored against the crowd's plurality on the {} decided test \
         pairs:\n\n| verdicts | accuracy | coverage |\n|---|---|---|\n\
         | label model | {} | {} |\n| majority vote | {} | {} |\n| SmolLM2-135M | {} | {} |\n\n\
         Label model − majority vote: {}.\n",
        p["pairs"],
        p["validation_pairs"],
        c["test_labelled"],
        interval(&c["label_model"]["accuracy"], 3),
        num(&c["label_model"]["coverage"], 3),
        interval(&c["majority_vote"]["accuracy"], 3),
        num(&c["majority_vote"]["coverage"], 3),
        interval(&c["llm"]["accuracy"], 3),
        num(&c["llm"]["coverage"], 3),
        interval(&c["difference"], 3),
    )?;
    let curves = c["routing"]["curves"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let series: Vec<Series> = curves
        .iter()
        .filter_map(|curve| {
            let name = curve["signal"].as_str()?;
            let colour = match name {
                "posterior" => SMOL,
                "oracle" => CROWD,
                "random" => "#999999",
                "vote_variance" => GPT4,
                "query_length" => "#2ca02c",
                _ => "#9467bd",
            };
            Some(Series {
                name,
                colour,
                points: curve["points"]
                    .as_array()?
                    .iter()
                    .filter_map(|q| Some((q["budget"].as_f64()?, q["accuracy"].as_f64()?)))
                    .collect(),
            })
        })
        .collect();
    if series.is_empty() {
        writeln!(md, "No routing curve: {}\n", c["routing"])?;
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
        num(&c["routing"]["programs_accuracy"], 3),
        num(&c["routing"]["llm_accuracy"], 3)
    )?;
    Ok(())
}

fn failures(study: &Study, md: &mut String) -> anyhow::Result<()> {
    let a = study.report("agreement")?;
    let kappa = |rater: &str| -> Value {
        a["judges"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|j| j["rater"] == rater)
            .map_or(Value::Null, |j| j["agreement"]["kappa"]["interval"].clone())
    };
    let (smol_kappa, gpt4_kappa) = (kappa("smollm2"), kappa("gpt4"));
    let rho = |id: &str, target: &str| -> anyhow::Result<Value> {
        Ok(held_out_rows(study.report(id)?)
            .into_iter()
            .find(|(t, _, _)| t == target)
            .map_or(Value::Null, |(_, _, rho)| rho))
    };
    let position = study.report("position")?;
    let calibration = study.report("calibration")?;
    let programs = &study.report("programs")?["committee"];
    writeln!(md, "## 6. Where a 135M judge fails\n")?;
    let (lower, upper) = (
        smol_kappa["lower"].as_f64().unwrap_or(f64::NAN),
        smol_kappa["upper"].as_f64().unwrap_or(f64::NAN),
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
        interval(&smol_kappa, 3),
        interval(&gpt4_kappa, 3),
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
        num(&rho("smollm2-study", "hard")?, 3),
        num(&rho("smollm2-study", "soft")?, 3),
        num(&rho("gpt4-study", "hard")?, 3)
    )?;
    writeln!(
        md,
        "- **Order decides most of its verdicts.** The first-shown answer wins {} of its decided \
         verdicts, and {} of the pairs judged both ways change verdict with the order. \
         Randomising the order (as the study does) keeps this bias out of the leaderboard's \
         mean, not out of its noise: a verdict that follows the order is a coin flip.",
        interval(&position["first_position_rate"], 3),
        interval(&position["flip_rate"], 3)
    )?;
    let accuracy = &calibration["classification"]["accuracy"];
    writeln!(
        md,
        "- **Calibration corrects its scale, not its signal.** The BTL head's mean squared \
         error against the crowd's vote shares is {} against the base p_s's {} — it learns \
         where the crowd's shares lie — but its accuracy is {} against {} (difference {}): a \
         head cannot find in the rationale a preference the judge did not express.",
        interval(&calibration["regression"]["mse"]["head"], 3),
        interval(&calibration["regression"]["mse"]["base"], 3),
        interval(&accuracy["head"], 3),
        interval(&accuracy["base"], 3),
        interval(&accuracy["difference"], 3)
    )?;
    let (committee, judge) = (
        programs["routing"]["programs_accuracy"]
            .as_f64()
            .unwrap_or(f64::NAN),
        programs["routing"]["llm_accuracy"]
            .as_f64()
            .unwrap_or(f64::NAN),
    );
    writeln!(
        md,
        "- **{}** The committee of programs alone is right on {committee:.3} of the decided test \
         pairs, the judge alone on {judge:.3}; routing the committee's least sure pairs to the \
         judge moves the accuracy from the first towards the second (figure in section 5).\n",
        if judge < committee {
            "As a fallback it hurts."
        } else {
            "As a fallback it helps."
        }
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
