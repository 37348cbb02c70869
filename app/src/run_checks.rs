//! The judge-runs card of the Reliability page (seed 001, Parts IV–VI): is one judge stable
//! against itself? Pick a long-format ratings CSV and a check; a web worker runs its analysis
//! spec (the report its CLI subcommand prints) and the card shows it:
//!
//! - A/A test (`tribunal stats aa`): two runs of one configuration as two raters of the file;
//!   each check's delta against its band with the green/amber/red flag (row class
//!   `flag-green|amber|red`, `data-metric`, `data-delta`, `data-ratio`, `data-flag`) and the
//!   overall flag (`#aa-overall`, `data-flag`).
//! - Self-consistency (`tribunal stats consistency`): per criterion the mean entropy over
//!   repeats, its stability band, the share of consistent items and the flip rate
//!   (`data-mean-entropy`, `data-share`, `data-flip`, `data-stability`), the label flip rate and
//!   the shares of inconsistent items against the guide's review share, and the items whose
//!   repeats disagree most.
//! - Position bias (`tribunal stats position`): the first-position rate with its bootstrap
//!   interval and exact binomial test against the null rate, the flip and reversal rates
//!   between the two orders (`#position-summary` with `data-rate`, `data-lower`, `data-upper`,
//!   `data-p`, `data-flip`, `data-reversal`).
//!
//! Values in data attributes are full precision; a malformed file shows the located error and
//! keeps the previous result.

use crate::fields::{text_field, RatingsFields};
use crate::format::{fixed, num};
use crate::reliability::read_all;
use crate::save_share::{Computed, SaveAndShare};
use gloo_worker::WorkerBridge;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;
use tribunal::analysis::{Analysis, Spec};
use tribunal::math::resample::BootstrapParams;
use tribunal::reliability::aa_report::AaReportParams;
use tribunal::reliability::aa_test::AaTestParams;
use tribunal::reliability::consistency::ConsistencyParams;
use tribunal::reliability::consistency_report::ConsistencyReportParams;
use tribunal::reliability::position_bias::PositionBiasParams;
use tribunal::reliability::position_report::PositionReportParams;
use tribunal_app::stats_worker::{spawn_stats_worker, Job, Reply, RoleFile, StatsWorker};

/// `Some(text)` unless it is blank.
fn given(text: String) -> Option<String> {
    Some(text.trim().to_owned()).filter(|t| !t.is_empty())
}

#[component]
pub fn RunChecksCard() -> impl IntoView {
    let check = RwSignal::new("aa".to_owned());
    let fields = RatingsFields::new("runs", true);
    let run_a = RwSignal::new(String::new());
    let run_b = RwSignal::new(String::new());
    let gold = RwSignal::new(String::new());
    let pass = RwSignal::new(String::new());
    let judge = RwSignal::new(String::new());
    let label = RwSignal::new(String::new());
    let rounds = RwSignal::new(BootstrapParams::default().rounds);
    let seed = RwSignal::new(BootstrapParams::default().seed);
    let report = RwSignal::new(None::<Value>);
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let request = StoredValue::new(0_u64);
    let input_ref = NodeRef::<leptos::html::Input>::new();
    let computed = RwSignal::new(None::<Computed>);
    let pending = StoredValue::new_local(None::<Computed>);

    let on_reply = move |reply: Reply| {
        if let Reply::Analysed { request: r, result } = reply {
            if r == request.get_value() {
                busy.set(false);
                match result {
                    Ok(value) => {
                        report.set(Some(value));
                        error.set(None);
                        computed.set(pending.get_value());
                    }
                    Err(message) => error.set(Some(message)),
                }
            }
        }
    };
    let worker = StoredValue::new_local(spawn_stats_worker(on_reply));

    let run = move |_| {
        let Some(input) = input_ref.get() else {
            return;
        };
        busy.set(true);
        spawn_local(async move {
            let file = match read_all(&input).await {
                Ok(mut files) if !files.is_empty() => files.swap_remove(0),
                Ok(_) => {
                    error.set(Some("choose a ratings CSV".to_owned()));
                    busy.set(false);
                    return;
                }
                Err(message) => {
                    error.set(Some(message));
                    busy.set(false);
                    return;
                }
            };
            let (columns, ratings) = fields.settings();
            let (source, bytes) = file;
            let analysis = match check.get_untracked().as_str() {
                "consistency" => Analysis::Consistency(ConsistencyReportParams {
                    columns,
                    ratings,
                    rater: given(judge.get_untracked()),
                    consistency: ConsistencyParams {
                        label: given(label.get_untracked()),
                        ..ConsistencyParams::default()
                    },
                }),
                "position" => Analysis::Position(PositionReportParams {
                    columns,
                    rater: given(judge.get_untracked()),
                    test: PositionBiasParams {
                        bootstrap: BootstrapParams {
                            rounds: rounds.get_untracked(),
                            seed: seed.get_untracked(),
                            ..BootstrapParams::default()
                        },
                        ..PositionBiasParams::default()
                    },
                    ..PositionReportParams::default()
                }),
                _ => Analysis::Aa(AaReportParams {
                    columns,
                    ratings,
                    runs: (run_a.get_untracked(), run_b.get_untracked()),
                    gold: given(gold.get_untracked()),
                    pass: given(pass.get_untracked()),
                    criterion: None,
                    variant: None,
                    test: AaTestParams::default(),
                }),
            };
            let r = request.get_value() + 1;
            request.set_value(r);
            // A file without the rater column is one judge named after the file, as in the CLI.
            let files = vec![RoleFile::new("ratings", source, bytes)];
            let spec = Spec::new(analysis, &RoleFile::inputs(&files));
            pending.set_value(Some(Computed {
                spec: spec.clone(),
                files: files.clone(),
            }));
            worker.with_value(|w: &WorkerBridge<StatsWorker>| {
                w.send(Job::Analyse {
                    request: r,
                    spec: Box::new(spec),
                    files,
                })
            });
        });
    };

    let is = move |name: &'static str| move || check.get() == name;

    view! {
        <section id="runs" class="card">
            <h2>"Judge runs: A/A, self-consistency, position bias"</h2>
            <p class="hint">
                "One long-format ratings CSV of your judge's own runs. A/A: two runs of the same configuration as two raters (optionally a gold rater and the pass label). Self-consistency: repeats as the "
                <code>"variant"</code> " column (or as raters), one row per criterion in a " <code>"criterion"</code>
                " column. Position bias: verdicts " <code>"left/right/tie"</code> " by position with the order shown ("
                <code>"ab/ba"</code> ") as the variant. The same numbers as " <code>"tribunal stats aa|consistency|position"</code> "; bands and thresholds are the field guide's heuristics."
            </p>
            <div class="controls">
                <label>"Check "
                    <select id="runs-check" on:change=move |ev| check.set(event_target_value(&ev))>
                        <option value="aa" selected=is("aa")>"A/A test"</option>
                        <option value="consistency" selected=is("consistency")>"self-consistency"</option>
                        <option value="position" selected=is("position")>"position bias"</option>
                    </select>
                </label>
                {fields.columns_view()}
                {fields.scale_view()}
            </div>
            <div class="controls">
                <Show when=is("aa")>
                    {text_field("runs-a".to_owned(), "Run A", run_a)}
                    {text_field("runs-b".to_owned(), "Run B", run_b)}
                    {text_field("runs-gold".to_owned(), "Gold rater (optional)", gold)}
                    {text_field("runs-pass".to_owned(), "Pass label (optional)", pass)}
                </Show>
                <Show when=move || check.get() != "aa">
                    {text_field("runs-judge".to_owned(), "Judge (when the file has several)", judge)}
                </Show>
                <Show when=is("consistency")>
                    {text_field("runs-label".to_owned(), "Label criterion (optional)", label)}
                </Show>
                <Show when=is("position")>
                    <label>"Bootstrap rounds "
                        <input id="runs-rounds" type="number" min="2" step="100" prop:value=move || rounds.get().to_string()
                            on:change=move |ev| rounds.set(event_target_value(&ev).parse().unwrap_or(0)) />
                    </label>
                    <label>"Seed "
                        <input id="runs-seed" type="number" min="0" prop:value=move || seed.get().to_string()
                            on:change=move |ev| seed.set(event_target_value(&ev).parse().unwrap_or(0)) />
                    </label>
                </Show>
            </div>
            <div class="controls">
                <label class="file">"Ratings CSV " <input id="runs-input" type="file" accept=".csv,text/csv" node_ref=input_ref /></label>
                <button id="runs-run" on:click=run>"Check"</button>
            </div>
            {move || busy.get().then(|| view! { <p class="busy">"checking the runs…"</p> })}
            {move || error.get().map(|m| view! { <div id="runs-error" class="error" role="alert">{m}</div> })}
            {move || report.get().map(|r| view! { <CheckView report=r /> })}
            <SaveAndShare computed title="Judge runs check" prefix="runs-" />
        </section>
    }
}

/// A report by its `statistic`, then its warnings.
#[component]
pub(crate) fn CheckView(report: Value) -> impl IntoView {
    let body = match report["statistic"].as_str() {
        Some("aa_test") => view! { <AaView report=report.clone() /> }.into_any(),
        Some("self_consistency") => view! { <ConsistencyView report=report.clone() /> }.into_any(),
        _ => view! { <PositionView report=report.clone() /> }.into_any(),
    };
    let warnings = report["warnings"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|w| view! { <p class="warning">{w.as_str().unwrap_or_default().to_owned()}</p> })
        .collect_view();
    view! {
        {body}
        {warnings}
    }
}

/// `pass_rate_delta` → `pass rate delta`.
fn words(v: &Value) -> String {
    v.as_str().map_or("—".to_owned(), |s| s.replace('_', " "))
}

/// What a flag asks of the user, in the guide's words.
fn flag_meaning(flag: &Value) -> &'static str {
    match flag.as_str() {
        Some("green") => "within the band: the judge is stable",
        Some("amber") => "between one and two bands: review the rubric for ambiguity",
        Some("red") => "beyond two bands: too stochastic, or the rubric is under-specified",
        _ => "no flag (undefined)",
    }
}

/// A run's own value of a check; "—" for the checks that compare the runs item by item.
fn per_run(v: &Value) -> String {
    if v.is_null() {
        "—".to_owned()
    } else {
        fixed(num(v), 3)
    }
}

#[component]
fn AaView(report: Value) -> impl IntoView {
    let settings = &report["settings"];
    let runs = &settings["runs"];
    let rows = report["checks"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|c| {
            let flag = c["flag"].as_str().unwrap_or("none").to_owned();
            let (class, shown) = (format!("flag-{flag}"), flag.clone());
            view! {
                <tr class=class data-metric=c["metric"].as_str().unwrap_or_default().to_owned()
                    data-delta=num(&c["delta"]).to_string() data-ratio=num(&c["ratio"]).to_string()
                    data-flag=flag>
                    <td>{words(&c["metric"])}</td>
                    <td class="num">{c["n_items"].to_string()}</td>
                    <td class="num">{per_run(&c["run_a"])}</td>
                    <td class="num">{per_run(&c["run_b"])}</td>
                    <td class="num">{fixed(num(&c["delta"]), 4)}</td>
                    <td class="num">{fixed(num(&c["band"]), 3)}</td>
                    <td class="num">{fixed(num(&c["ratio"]), 2)}</td>
                    <td><span class="flag">{shown}</span></td>
                </tr>
            }
        })
        .collect_view();
    let overall = report["overall"].as_str().unwrap_or("none").to_owned();
    view! {
        <p class="summary" id="aa-summary">{format!(
            "{} · runs `{}` and `{}` · {} items rated by both",
            report["input"].as_str().unwrap_or_default(),
            runs[0].as_str().unwrap_or_default(),
            runs[1].as_str().unwrap_or_default(),
            report["n_items_both_runs"],
        )}</p>
        <table class="ratings" id="aa-checks">
            <thead>
                <tr>
                    <th>"Check"</th><th>"Items"</th><th>"Run A"</th><th>"Run B"</th><th>"Delta"</th>
                    <th>"Band"</th><th>"Delta / band"</th><th>"Flag"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <p id="aa-overall" class=format!("flag-{overall}") data-flag=overall.clone()>
            {format!("Overall: {overall} — {}", flag_meaning(&report["overall"]))}
        </p>
    }
}

#[component]
fn ConsistencyView(report: Value) -> impl IntoView {
    let thresholds = &report["settings"]["thresholds"];
    let criteria: Vec<Value> = report["criteria"].as_array().cloned().unwrap_or_default();
    let rows = criteria
        .iter()
        .map(|c| {
            view! {
                <tr data-name=c["name"].as_str().unwrap_or_default().to_owned()
                    data-mean-entropy=num(&c["mean_entropy"]).to_string()
                    data-share=num(&c["share_consistent"]).to_string()
                    data-flip=num(&c["flip_rate"]).to_string()
                    data-stability=c["stability"].as_str().unwrap_or_default().to_owned()>
                    <td>{c["name"].as_str().unwrap_or_default().to_owned()}</td>
                    <td class="num">{c["n_items"].to_string()}</td>
                    <td class="num">{c["skipped_items"].to_string()}</td>
                    <td class="num">{c["repeats"].as_array().map_or(0, Vec::len)}</td>
                    <td class="num">{fixed(num(&c["mean_entropy"]), 3)}</td>
                    <td>{words(&c["stability"])}</td>
                    <td class="num">{fixed(num(&c["share_consistent"]), 3)}</td>
                    <td class="num">{fixed(num(&c["flip_rate"]), 3)}</td>
                </tr>
            }
        })
        .collect_view();
    // The items whose repeats disagree most, over every criterion.
    let mut unstable: Vec<(f64, String, String)> = criteria
        .iter()
        .flat_map(|c| {
            let name = c["name"].as_str().unwrap_or_default().to_owned();
            let items = c["items"].as_array().cloned().unwrap_or_default();
            let entropy = c["entropy"].as_array().cloned().unwrap_or_default();
            items.into_iter().zip(entropy).filter_map(move |(item, h)| {
                let h = h.as_f64().filter(|&h| h > 0.0)?;
                Some((
                    h,
                    name.clone(),
                    item.as_str().unwrap_or_default().to_owned(),
                ))
            })
        })
        .collect();
    unstable.sort_by(|a, b| b.0.total_cmp(&a.0));
    let worst = unstable
        .into_iter()
        .take(10)
        .map(|(h, criterion, item)| {
            view! { <tr><td>{item}</td><td>{criterion}</td><td class="num">{fixed(h, 3)}</td></tr> }
        })
        .collect_view();
    let label_flip = num(&report["label_flip_rate"]);
    let inconsistent = num(&report["share_items_inconsistent"]);
    let review = num(&thresholds["review_share"]);
    view! {
        <p class="summary" id="consistency-summary" data-label-flip=label_flip.to_string()
            data-inconsistent=inconsistent.to_string()
            data-multiple=num(&report["share_items_multiple_inconsistent"]).to_string()>
            {format!(
                "{} · {} items · repeats are {} · label flip rate {} · items with an inconsistent criterion {} ({}) · with two or more {}",
                report["input"].as_str().unwrap_or_default(),
                report["n_items"],
                words(&report["settings"]["repeats_are"]),
                if label_flip.is_nan() { "— (no label criterion)".to_owned() } else { fixed(label_flip, 3) },
                fixed(inconsistent, 3),
                if inconsistent > review { format!("above {review}: the metric needs a redesign") } else { format!("at most {review}") },
                fixed(num(&report["share_items_multiple_inconsistent"]), 3),
            )}
        </p>
        <table class="ratings" id="consistency-table">
            <thead>
                <tr>
                    <th>"Criterion"</th><th>"Items"</th><th>"Skipped"</th><th>"Repeats"</th>
                    <th>"Mean H (bits)"</th><th>"Stability"</th><th>"Consistent share"</th><th>"Flip rate"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <p class="hint">{format!(
            "Stability (heuristic): mean H < {} excellent, < {} good, else unstable.",
            num(&thresholds["excellent_below"]),
            num(&thresholds["good_below"])
        )}</p>
        <details>
            <summary>"Items whose repeats disagree most"</summary>
            <table class="ratings" id="consistency-items">
                <thead><tr><th>"Item"</th><th>"Criterion"</th><th>"H (bits)"</th></tr></thead>
                <tbody>{worst}</tbody>
            </table>
        </details>
    }
}

#[component]
fn PositionView(report: Value) -> impl IntoView {
    let rate = &report["first_position_rate"];
    let flip = &report["flip_rate"];
    let test = &report["settings"]["test"];
    let boot = &test["bootstrap"];
    let level = 100.0 * num(&boot["level"]);
    let significant = report["significant"].as_bool().unwrap_or(false);
    view! {
        <p class="summary">{format!(
            "{} · {} pairs · {} verdicts ({} first, {} second, {} ties) · bootstrap: {} rounds, seed {}, {level:.0}% percentile CIs",
            report["input"].as_str().unwrap_or_default(),
            report["n_pairs"],
            report["n_verdicts"],
            report["n_first"],
            report["n_second"],
            report["n_ties"],
            boot["rounds"],
            boot["seed"],
        )}</p>
        <p id="position-summary" class:flagged=significant
            data-rate=num(&rate["estimate"]).to_string() data-lower=num(&rate["lower"]).to_string()
            data-upper=num(&rate["upper"]).to_string() data-p=num(&report["p_value"]).to_string()
            data-flip=num(&flip["estimate"]).to_string() data-reversal=num(&report["reversal_rate"]).to_string()
            data-significant=significant.to_string()>
            {format!(
                "First-position rate {} [{} – {}] · exact binomial test against {}: p = {} ({}) · {} pairs in both orders: flip rate {} [{} – {}], reversal rate {}",
                fixed(num(&rate["estimate"]), 3),
                fixed(num(&rate["lower"]), 3),
                fixed(num(&rate["upper"]), 3),
                num(&test["null_rate"]),
                fixed(num(&report["p_value"]), 4),
                if significant { format!("position bias at level {}", num(&test["significance"])) } else { "no significant bias".to_owned() },
                report["n_both_orders"],
                fixed(num(&flip["estimate"]), 3),
                fixed(num(&flip["lower"]), 3),
                fixed(num(&flip["upper"]), 3),
                fixed(num(&report["reversal_rate"]), 3),
            )}
        </p>
    }
}
