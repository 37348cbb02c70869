//! The Programs page (seed 004): load a pairs CSV (`id,instruction,response,response_b[,label]`),
//! optionally an LLM judge's verdicts (`id,label`) and bias probes, and add JavaScript
//! programs `judgingFunction(query, response)` of your own. The user's programs run in the
//! sandbox (`public/program_sandbox.js`: a Web Worker per program, network APIs removed, a
//! time limit per call; a call that throws, hangs or returns a non-number abstains and is
//! counted); then the statistics web worker runs the programs analysis — the report `tribunal
//! stats programs` prints — on the built-in library plus those scores, which travel as the
//! analysis's `user_scores` file (so a saved or shared report reopens with them). The page shows
//! each program's τ, coverage and accuracy, the label model against majority vote (and the LLM
//! judge), the committee's learned accuracies, the routing curves, the bias probes, and the
//! user programs' failures, and the staged policy at the chosen escalation share (the LLM
//! verdicts may be a `tribunal judge` run's `.jsonl`). Cells carry full-precision values in
//! data attributes. Nothing leaves the browser.

use crate::charts::RoutingPlot;
use crate::files::{chosen_text, data_url};
use crate::format::{fixed, interval, num};
use crate::save_share::{Computed, SaveAndShare};
use gloo_worker::WorkerBridge;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use tribunal::analysis::{Analysis, Spec};
use tribunal::math::resample::BootstrapParams;
use tribunal::programs::program_report::ProgramReportParams;
use tribunal::programs::program_user_scores::{UserProgram, UserScores};
use tribunal::programs::program_votes::VoteParams;
use tribunal::programs::routing::RoutingParams;
use tribunal_app::stats_worker::{spawn_stats_worker, Job, Reply, RoleFile, StatsWorker, Upload};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `public/program_sandbox.js`.
    #[wasm_bindgen(js_namespace = window, js_name = tribunalRunPrograms, catch)]
    fn run_programs(
        programs: &str,
        texts: &str,
        limit_ms: f64,
        on_progress: &js_sys::Function,
    ) -> Result<js_sys::Promise, JsValue>;
}

/// A user program as the editor holds it.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct Program {
    name: String,
    code: String,
}

/// What the sandbox returns per program.
#[derive(Debug, Clone, PartialEq, Deserialize)]
struct SandboxResult {
    name: String,
    scores: Vec<Option<f64>>,
    failures: BTreeMap<String, usize>,
    examples: Vec<String>,
}

const EXAMPLE: &str = "function judgingFunction(query, response) {\n  // Higher = better. Here: answers that mention the query's words, not too long.\n  const words = new Set(query.toLowerCase().match(/[a-z]{4,}/g) || []);\n  const used = (response.toLowerCase().match(/[a-z]{4,}/g) || []).filter((w) => words.has(w));\n  return new Set(used).size - response.length / 2000;\n}";

/// Runs the user's programs on `texts` in the sandbox.
async fn sandbox(
    programs: &[Program],
    texts: &[(String, String)],
    limit_ms: f64,
    progress: RwSignal<String>,
) -> Result<Vec<SandboxResult>, String> {
    let programs = serde_json::to_string(programs).map_err(|e| e.to_string())?;
    let texts = serde_json::to_string(texts).map_err(|e| e.to_string())?;
    let on_progress = Closure::<dyn Fn(String, f64, f64)>::new(move |name: String, done, total| {
        progress.set(format!("running `{name}`: {done} of {total} calls"));
    });
    let promise = run_programs(
        &programs,
        &texts,
        limit_ms,
        on_progress.as_ref().unchecked_ref(),
    )
    .map_err(|e| format!("the program sandbox is not loaded: {e:?}"))?;
    let out = wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(|e| format!("the program sandbox failed: {e:?}"))?;
    drop(on_progress);
    serde_json::from_str(&out.as_string().unwrap_or_default()).map_err(|e| e.to_string())
}

#[component]
pub fn ProgramsPage() -> impl IntoView {
    let share = RwSignal::new(ProgramReportParams::default().validation_share);
    let top_k = RwSignal::new(String::new());
    let seed = RwSignal::new(0u64);
    let limit = RwSignal::new(200.0f64);
    let budget = RwSignal::new(0.0f64);
    let programs = RwSignal::new(Vec::<Program>::new());
    let name = RwSignal::new("my_program".to_owned());
    let code = RwSignal::new(EXAMPLE.to_owned());
    let report = RwSignal::new(None::<Value>);
    let failures = RwSignal::new(Vec::<SandboxResult>::new());
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let progress = RwSignal::new(String::new());
    let request = StoredValue::new(0u64);
    // The uploads and user scores of the request in flight, kept for its second job.
    let pending = StoredValue::new(None::<(Upload, Option<Upload>, Option<Upload>)>);
    let pairs_ref = NodeRef::<leptos::html::Input>::new();
    let llm_ref = NodeRef::<leptos::html::Input>::new();
    let probes_ref = NodeRef::<leptos::html::Input>::new();

    let params = move || -> Result<ProgramReportParams, String> {
        let top_k = match top_k.get_untracked().trim() {
            "" => None,
            k => Some(
                k.parse::<usize>()
                    .map_err(|_| format!("committee size: expected a whole number, found `{k}`"))?,
            ),
        };
        let seed = seed.get_untracked();
        Ok(ProgramReportParams {
            validation_share: share.get_untracked(),
            budget: budget.get_untracked(),
            seed,
            votes: VoteParams {
                top_k,
                ..VoteParams::default()
            },
            bootstrap: BootstrapParams {
                seed,
                ..BootstrapParams::default()
            },
            routing: RoutingParams {
                seed,
                ..RoutingParams::default()
            },
            ..ProgramReportParams::default()
        })
    };

    let worker = StoredValue::new_local(None::<WorkerBridge<StatsWorker>>);
    let send = move |job: Job| {
        worker.with_value(|w| {
            if let Some(w) = w {
                w.send(job);
            }
        });
    };
    let fail = move |message: String| {
        error.set(Some(message));
        busy.set(false);
        progress.set(String::new());
    };
    let computed = RwSignal::new(None::<Computed>);
    let pending_spec = StoredValue::new_local(None::<Computed>);
    let report_job = move |r: u64, user: Vec<UserProgram>| {
        let Some((pairs, llm, probes)) = pending.get_value() else {
            return;
        };
        let params = match params() {
            Ok(params) => params,
            Err(message) => return fail(message),
        };
        let mut files = vec![RoleFile::text("pairs", pairs)];
        files.extend(llm.map(|l| RoleFile::text("llm", l)));
        files.extend(probes.map(|p| RoleFile::text("probes", p)));
        if !user.is_empty() {
            let csv = UserScores { programs: user }.to_csv();
            files.push(RoleFile::new(
                "user_scores",
                "user-program-scores.csv",
                csv.into_bytes(),
            ));
        }
        let spec = Spec::new(Analysis::Programs(params), &RoleFile::inputs(&files));
        pending_spec.set_value(Some(Computed {
            spec: spec.clone(),
            files: files.clone(),
        }));
        send(Job::Analyse {
            request: r,
            spec: Box::new(spec),
            files,
        });
    };
    let on_reply = move |reply: Reply| match reply {
        Reply::ProgramTexts { request: r, result } if r == request.get_value() => match result {
            Ok(texts) => {
                let user = programs.get_untracked();
                spawn_local(async move {
                    match sandbox(&user, &texts, limit.get_untracked(), progress).await {
                        Ok(results) => {
                            let scores = results
                                .iter()
                                .map(|s| UserProgram {
                                    name: s.name.clone(),
                                    scores: s.scores.clone(),
                                })
                                .collect();
                            failures.set(results);
                            progress.set("fitting…".to_owned());
                            report_job(r, scores);
                        }
                        Err(message) => fail(message),
                    }
                });
            }
            Err(message) => fail(message),
        },
        Reply::Analysed { request: r, result } if r == request.get_value() => {
            busy.set(false);
            progress.set(String::new());
            match result {
                Ok(value) => {
                    report.set(Some(value));
                    error.set(None);
                    computed.set(pending_spec.get_value());
                }
                Err(message) => error.set(Some(message)),
            }
        }
        _ => {}
    };
    worker.set_value(Some(spawn_stats_worker(on_reply)));

    let run = move |_| {
        busy.set(true);
        progress.set("reading files…".to_owned());
        let inputs = (pairs_ref.get(), llm_ref.get(), probes_ref.get());
        spawn_local(async move {
            let files = async {
                let pairs = chosen_text(inputs.0.as_ref())
                    .await?
                    .ok_or_else(|| "choose a pairs CSV".to_owned())?;
                Ok::<_, String>((
                    pairs,
                    chosen_text(inputs.1.as_ref()).await?,
                    chosen_text(inputs.2.as_ref()).await?,
                ))
            };
            match files.await {
                Ok((pairs, llm, probes)) => {
                    let r = request.get_value() + 1;
                    request.set_value(r);
                    pending.set_value(Some((pairs.clone(), llm, probes.clone())));
                    if programs.get_untracked().is_empty() {
                        failures.set(Vec::new());
                        progress.set("fitting…".to_owned());
                        report_job(r, Vec::new());
                    } else {
                        progress.set("parsing pairs…".to_owned());
                        send(Job::ProgramTexts {
                            request: r,
                            pairs,
                            probes,
                        });
                    }
                }
                Err(message) => fail(message),
            }
        });
    };

    let add = move |_| {
        let n = name.get_untracked().trim().to_owned();
        if n.is_empty() || n.contains([',', '"', '\n']) {
            error.set(Some(
                "program name: expected a non-empty name without commas or quotes".to_owned(),
            ));
            return;
        }
        programs.update(|list| {
            list.retain(|p| p.name != n);
            list.push(Program {
                name: n,
                code: code.get_untracked(),
            });
        });
    };

    view! {
        <section id="programs" class="card">
            <h2>"Programs"</h2>
            <p class="hint">
                "Programmatic judges (seed 004): ten built-in rubric programs and your own JavaScript score both answers of each pair; thresholds and the committee are chosen on a seeded validation split, a label model weighs the committee's votes, and uncertain pairs can be routed to an LLM judge. Pairs: "
                <code>"id,instruction,response,response_b,label"</code> " (label " <code>"a"</code> ", " <code>"b"</code> ", " <code>"tie"</code> " or empty); LLM verdicts: "
                <code>"id,label"</code> "; probes: " <code>"id,bias,variant,instruction,response,response_b,biased"</code>
                ". Everything runs in this browser; the same numbers as " <code>"tribunal stats programs"</code> "."
            </p>
            <div class="controls">
                <label class="file">"Pairs CSV " <input id="prog-pairs" type="file" accept=".csv" node_ref=pairs_ref /></label>
                <label class="file">"LLM verdicts " <input id="prog-llm" type="file" accept=".csv,.jsonl" node_ref=llm_ref /></label>
                <label class="file">"Bias probes " <input id="prog-probes" type="file" accept=".csv" node_ref=probes_ref /></label>
            </div>
            <div class="controls">
                <label>"Validation share "
                    <input id="prog-share" type="number" min="0.05" max="0.95" step="0.05" prop:value=move || share.get().to_string()
                        on:change=move |ev| share.set(event_target_value(&ev).parse().unwrap_or(0.3)) />
                </label>
                <label>"Committee size (empty: all above chance) "
                    <input id="prog-topk" type="text" size="4" prop:value=move || top_k.get()
                        on:change=move |ev| top_k.set(event_target_value(&ev)) />
                </label>
                <label>"Seed "
                    <input id="prog-seed" type="number" min="0" prop:value=move || seed.get().to_string()
                        on:change=move |ev| seed.set(event_target_value(&ev).parse().unwrap_or(0)) />
                </label>
                <label>"Escalate to the LLM (share) "
                    <input id="prog-budget" type="number" min="0" max="1" step="0.05" prop:value=move || budget.get().to_string()
                        on:change=move |ev| budget.set(event_target_value(&ev).parse().unwrap_or(0.0)) />
                </label>
                <label>"Time limit per call (ms) "
                    <input id="prog-limit" type="number" min="10" prop:value=move || limit.get().to_string()
                        on:change=move |ev| limit.set(event_target_value(&ev).parse().unwrap_or(200.0)) />
                </label>
            </div>
            <details open>
                <summary>"Your programs"</summary>
                <label>"Name " <input id="prog-name" type="text" prop:value=move || name.get()
                    on:change=move |ev| name.set(event_target_value(&ev)) /></label>
                <textarea id="prog-code" class="code" prop:value=move || code.get()
                    on:input=move |ev| code.set(event_target_value(&ev))></textarea>
                <button id="prog-add" on:click=add>"Add program"</button>
                <ul id="prog-user">
                    {move || programs.get().into_iter().map(|p| {
                        let n = p.name.clone();
                        view! {
                            <li data-name=p.name.clone()><code>{p.name.clone()}</code>" "
                                <button class="remove" on:click=move |_| programs.update(|l| l.retain(|q| q.name != n))>"remove"</button>
                            </li>
                        }
                    }).collect_view()}
                </ul>
            </details>
            <button id="prog-run" on:click=run>"Run programs"</button>
            {move || busy.get().then(|| view! { <p class="busy" id="prog-progress">{move || progress.get()}</p> })}
            {move || error.get().map(|m| view! { <div id="prog-error" class="error" role="alert">{m}</div> })}
            {move || (!failures.get().is_empty()).then(|| view! { <FailuresTable results=failures.get() /> })}
            {move || report.get().map(|r| view! { <ProgramsView report=r /> })}
            <SaveAndShare computed title="Programs" prefix="prog-" />
        </section>
    }
}

/// The user programs' abstentions and their reasons.
#[component]
fn FailuresTable(results: Vec<SandboxResult>) -> impl IntoView {
    let rows = results
        .into_iter()
        .map(|r| {
            let abstained: usize = r.failures.values().sum();
            let reasons = r
                .failures
                .iter()
                .map(|(k, v)| format!("{k} ×{v}"))
                .collect::<Vec<_>>()
                .join("; ");
            view! {
                <tr data-name=r.name.clone() data-calls=r.scores.len().to_string() data-abstained=abstained.to_string()>
                    <td><code>{r.name.clone()}</code></td>
                    <td class="num">{r.scores.len()}</td>
                    <td class="num">{abstained}</td>
                    <td>{reasons}</td>
                    <td>{r.examples.join(" | ")}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h3>"Your programs in the sandbox"</h3>
        <table class="ratings" id="prog-failures">
            <thead><tr><th>"Program"</th><th>"Calls"</th><th>"Abstained"</th><th>"Why"</th><th>"Examples"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// The report of one run.
#[component]
pub(crate) fn ProgramsView(report: Value) -> impl IntoView {
    let c = &report["committee"];
    let summary = format!(
        "{} pairs · {} for validation (seed {}) · {} labelled test pairs ({} ties left out) · committee of {}",
        report["pairs"],
        report["validation_pairs"],
        report["params"]["seed"],
        c["test_labelled"],
        c["test_ties"],
        c["members"].as_array().map_or(0, Vec::len)
    );
    let program_rows = report["programs"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            let name = p["name"].as_str().unwrap_or("").to_owned();
            let label = name.clone();
            view! {
                <tr data-name=name data-tau=num(&p["tau"]).to_string()
                    data-accuracy=num(&p["accuracy"]).to_string()
                    data-test-accuracy=num(&p["test_accuracy"]).to_string()
                    data-coverage=num(&p["test_coverage"]).to_string()
                    data-selected=p["selected"].to_string()
                    class=if p["selected"].as_bool() == Some(true) { "selected" } else { "" }>
                    <td><code>{label}</code></td>
                    <td class="num">{fixed(num(&p["tau"]), 2)}</td>
                    <td class="num">{fixed(num(&p["coverage"]), 3)}</td>
                    <td class="num">{fixed(num(&p["accuracy"]), 3)}</td>
                    <td class="num">{fixed(num(&p["test_coverage"]), 3)}</td>
                    <td class="num">{fixed(num(&p["test_accuracy"]), 3)}</td>
                    <td>{if p["selected"].as_bool() == Some(true) { "yes" } else { "no" }}</td>
                </tr>
            }
        })
        .collect_view();
    let aggregate = |key: &'static str, label: &'static str| {
        let a = &c[key];
        (!a.is_null()).then(|| {
            view! {
                <tr data-aggregate=key data-estimate=num(&a["accuracy"]["estimate"]).to_string()
                    data-lower=num(&a["accuracy"]["lower"]).to_string()
                    data-upper=num(&a["accuracy"]["upper"]).to_string()
                    data-coverage=num(&a["coverage"]).to_string()>
                    <td>{label}</td>
                    <td class="num">{interval(&a["accuracy"], 3)}</td>
                    <td class="num">{fixed(num(&a["coverage"]), 3)}</td>
                </tr>
            }
        })
    };
    let members = c["members"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|m| {
            view! {
                <tr data-name=m["name"].as_str().unwrap_or("").to_owned()
                    data-learned=num(&m["learned_accuracy"]).to_string()>
                    <td><code>{m["name"].as_str().unwrap_or("").to_owned()}</code></td>
                    <td class="num">{fixed(num(&m["coverage"]), 3)}</td>
                    <td class="num">{fixed(num(&m["learned_accuracy"]), 3)}</td>
                    <td class="num">{fixed(num(&m["test_accuracy"]), 3)}</td>
                </tr>
            }
        })
        .collect_view();
    let routing = (!c["routing"].is_null()).then(|| {
        let curves: Vec<(String, Vec<(f64, f64)>)> = c["routing"]["curves"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .map(|curve| {
                let points = curve["points"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .iter()
                    .map(|p| (num(&p["budget"]), num(&p["accuracy"])))
                    .collect();
                (curve["signal"].as_str().unwrap_or("").to_owned(), points)
            })
            .collect();
        let budgets = [0.0, 0.1, 0.2, 0.3, 0.5, 1.0];
        let rows = curves
            .iter()
            .map(|(signal, points)| {
                let cells = budgets
                    .iter()
                    .map(|b| {
                        let a = points
                            .iter()
                            .find(|p| (p.0 - b).abs() < 1e-9)
                            .map_or(f64::NAN, |p| p.1);
                        view! { <td class="num" data-budget=b.to_string() data-accuracy=a.to_string()>{fixed(a, 3)}</td> }
                    })
                    .collect_view();
                view! { <tr data-signal=signal.clone()><td>{signal.replace('_', " ")}</td>{cells}</tr> }
            })
            .collect_view();
        view! {
            <h3>"Routing to the LLM judge"</h3>
            <RoutingPlot curves=curves.clone() />
            <table class="ratings" id="prog-routing">
                <thead><tr><th>"Signal \\ share escalated"</th>{budgets.iter().map(|b| view! { <th>{format!("{:.0} %", b * 100.0)}</th> }).collect_view()}</tr></thead>
                <tbody>{rows}</tbody>
            </table>
        }
    });
    let bias_rows = report["bias"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|b| {
            let win = (!b["bias_win_rate"].is_null()).then(|| interval(&b["bias_win_rate"], 3));
            view! {
                <tr data-bias=b["bias"].as_str().unwrap_or("").to_owned()
                    data-flip=num(&b["flip_rate"]["estimate"]).to_string()
                    data-win=num(&b["bias_win_rate"]["estimate"]).to_string()>
                    <td>{b["bias"].as_str().unwrap_or("").replace('_', " ")}</td>
                    <td class="num">{b["probes"].to_string()}</td>
                    <td class="num">{interval(&b["flip_rate"], 3)}</td>
                    <td class="num">{win.unwrap_or_else(|| "—".to_owned())}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p class="summary" id="prog-summary">{summary}</p>
        <h3>"Programs"</h3>
        <table class="ratings" id="prog-table">
            <thead><tr><th>"Program"</th><th>"τ"</th><th>"Coverage (val.)"</th><th>"Accuracy (val.)"</th><th>"Coverage (test)"</th><th>"Accuracy (test)"</th><th>"In committee"</th></tr></thead>
            <tbody>{program_rows}</tbody>
        </table>
        <h3>"Label model against majority vote"</h3>
        <table class="ratings" id="prog-aggregates">
            <thead><tr><th>"Verdict by"</th><th>"Accuracy (95 % CI)"</th><th>"Pairs decided"</th></tr></thead>
            <tbody>
                {aggregate("label_model", "label model")}
                {aggregate("majority_vote", "majority vote")}
                {aggregate("llm", "LLM judge alone")}
            </tbody>
        </table>
        <p id="prog-difference" data-estimate=num(&c["difference"]["estimate"]).to_string()>
            "Label model − majority vote: " {interval(&c["difference"], 3)}
            " (paired bootstrap; an undecided pair counts ½)"
        </p>
        <table class="ratings" id="prog-members">
            <thead><tr><th>"Committee program"</th><th>"Coverage"</th><th>"Learned accuracy"</th><th>"Test accuracy"</th></tr></thead>
            <tbody>{members}</tbody>
        </table>
        {routing}
        <h3>"Staged policy"</h3>
        <p id="prog-escalation" data-escalated=report["escalation"]["escalated"].to_string()
            data-answered=report["escalation"]["answered"].to_string()
            data-estimate=num(&report["escalation"]["merged"]["accuracy"]["estimate"]).to_string()>
            {format!(
                "{} pairs escalated (share {}, most uncertain first), {} of them answered by the LLM verdicts; merged verdict accuracy {}",
                report["escalation"]["escalated"],
                report["escalation"]["budget"],
                report["escalation"]["answered"],
                interval(&report["escalation"]["merged"]["accuracy"], 3)
            )}
        </p>
        {(report["escalation"]["escalated"].as_u64().unwrap_or(0) > 0).then(|| view! {
            <p><a id="prog-escalated" download="tribunal-escalated-items.csv"
                href=data_url("text/csv", report["escalated_items_csv"].as_str().unwrap_or(""))>
                "Download the escalated pairs as judge items"</a>
                " — run " <code>"tribunal judge --input tribunal-escalated-items.csv …"</code>
                " and load its " <code>".jsonl"</code> " as the LLM verdicts."</p>
        })}
        <h3>"Bias probes"</h3>
        <table class="ratings" id="prog-bias">
            <thead><tr><th>"Bias"</th><th>"Probes"</th><th>"Flip rate"</th><th>"Bias win rate"</th></tr></thead>
            <tbody>{bias_rows}</tbody>
        </table>
    }
}
