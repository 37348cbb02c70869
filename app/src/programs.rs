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

use crate::analysis_view::KindView;
use crate::charts::LinePlot;
use crate::examples::{self, ExampleButton};
use crate::fields::{number_field, Bounds, StaleNote};
use crate::files::{chosen_text, data_url};
use crate::format::{fixed, interval, name, words};
use crate::glossary::term;
use crate::save_share::SaveAndShare;
use crate::worker_pool::Computed;
use crate::worker_pool::{AnalysisRun, WorkerPool};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use tribunal::analysis::{Analysis, Report};
use tribunal::math::resample::BootstrapParams;
use tribunal::programs::bias_probe::BiasRow;
use tribunal::programs::kinds::ProgramsReport;
use tribunal::programs::program_report::{
    AggregateRow, CommitteeReport, Escalation, ProgramReportParams, ProgramRow,
};
use tribunal::programs::program_user_scores::{UserProgram, UserScores};
use tribunal::programs::program_votes::VoteParams;
use tribunal::programs::routing::{Routing, RoutingParams};
use tribunal_app::stats_worker::{Job, Reply, RoleFile, Upload};
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

    /// `public/program_sandbox.js`: stops the run in flight at its next call.
    #[wasm_bindgen(js_namespace = window, js_name = tribunalCancelPrograms, catch)]
    fn cancel_programs() -> Result<(), JsValue>;

    /// `public/program_sandbox.js`: '' when `code` compiles and defines `judgingFunction`.
    #[wasm_bindgen(js_namespace = window, js_name = tribunalCheckProgram, catch)]
    fn check_program(code: &str, limit_ms: f64) -> Result<js_sys::Promise, JsValue>;
}

/// Why `code` cannot be a program (it does not compile, defines no `judgingFunction`, or its
/// top level runs past the limit), or `None` when it can.
async fn compile_error(code: &str, limit_ms: f64) -> Option<String> {
    let promise = match check_program(code, limit_ms) {
        Ok(promise) => promise,
        Err(e) => return Some(format!("the program sandbox is not loaded: {e:?}")),
    };
    match wasm_bindgen_futures::JsFuture::from(promise).await {
        Ok(answer) => answer.as_string().filter(|why| !why.is_empty()),
        Err(e) => Some(format!("the program sandbox failed: {e:?}")),
    }
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

/// The settings of a programs report, as the form holds them.
#[derive(Clone, Copy)]
struct ProgramSettings {
    share: RwSignal<f64>,
    top_k: RwSignal<String>,
    seed: RwSignal<u64>,
    /// The sandbox's time limit per call, ms.
    limit: RwSignal<f64>,
    budget: RwSignal<f64>,
}

impl ProgramSettings {
    /// Reads every setting, so that an effect re-runs when one changes.
    fn track(&self) {
        self.share.track();
        self.top_k.track();
        self.seed.track();
        self.limit.track();
        self.budget.track();
    }

    fn new() -> Self {
        Self {
            share: RwSignal::new(ProgramReportParams::default().validation_share),
            top_k: RwSignal::new(String::new()),
            seed: RwSignal::new(0),
            limit: RwSignal::new(200.0),
            budget: RwSignal::new(0.0),
        }
    }

    /// The report's settings, or why the form does not give any.
    fn params(self) -> Result<ProgramReportParams, String> {
        let top_k = match self.top_k.get_untracked().trim() {
            "" => None,
            k => Some(
                k.parse::<usize>()
                    .map_err(|_| format!("committee size: expected a whole number, found `{k}`"))?,
            ),
        };
        let seed = self.seed.get_untracked();
        Ok(ProgramReportParams {
            validation_share: self.share.get_untracked(),
            budget: self.budget.get_untracked(),
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
    }
}

/// A run's files: the pairs, and the LLM's verdicts and the bias probes when chosen.
type ProgramFiles = (Upload, Option<Upload>, Option<Upload>);

/// One programs run at a time: the user's programs score the pairs' texts in the sandbox (a
/// first job gives the texts), then the programs report is fitted with their scores.
#[derive(Clone, Copy)]
struct ProgramsRun {
    settings: ProgramSettings,
    programs: RwSignal<Vec<Program>>,
    fitted: AnalysisRun,
    failures: RwSignal<Vec<SandboxResult>>,
    progress: RwSignal<String>,
    /// The uploads of the request in flight, kept for its second job.
    pending: StoredValue<Option<ProgramFiles>>,
    /// The request of the run in flight.
    latest: StoredValue<u64>,
    texts: StoredValue<Option<WorkerPool>>,
}

impl ProgramsRun {
    fn spawn(settings: ProgramSettings, programs: RwSignal<Vec<Program>>) -> Self {
        let run = Self {
            settings,
            programs,
            fitted: AnalysisRun::spawn(1),
            failures: RwSignal::new(Vec::new()),
            progress: RwSignal::new(String::new()),
            pending: StoredValue::new(None),
            latest: StoredValue::new(0),
            texts: StoredValue::new(None),
        };
        let pool = WorkerPool::spawn(1, move |reply| {
            if let Reply::ProgramTexts { request, result } = reply {
                run.on_texts(request, result);
            }
        });
        run.texts.set_value(Some(pool));
        run
    }

    fn fail(self, message: String) {
        self.fitted.fail(message);
        self.progress.set(String::new());
    }

    /// Stops the run in flight: the sandbox stops at its next call, the replies still to come
    /// are dropped, and the previous report stays.
    fn cancel(self) {
        let _ = cancel_programs();
        if let Some(texts) = self.texts.get_value() {
            texts.cancel();
        }
        // No request has this number: the sandbox's results, when they come, are dropped.
        self.latest.set_value(u64::MAX);
        self.fail(
            "cancelled: the run was stopped; the report shown is the previous one".to_owned(),
        );
    }

    /// The texts to score arrived: the user's programs score them, then the report is fitted.
    fn on_texts(self, request: u64, result: Result<Vec<(String, String)>, String>) {
        let texts_to_score = match result {
            Ok(texts) => texts,
            Err(message) => return self.fail(message),
        };
        let user = self.programs.get_untracked();
        spawn_local(async move {
            let limit = self.settings.limit.get_untracked();
            match sandbox(&user, &texts_to_score, limit, self.progress).await {
                // A newer run replaced this one while its programs ran.
                Ok(_) if request != self.latest.get_value() => {}
                Ok(results) => {
                    let scores = results
                        .iter()
                        .map(|s| UserProgram {
                            name: s.name.clone(),
                            scores: s.scores.clone(),
                        })
                        .collect();
                    self.failures.set(results);
                    self.report(scores);
                }
                Err(message) => self.fail(message),
            }
        });
    }

    /// The programs report on the pairs (and verdicts, probes) of the run in flight, with the
    /// scores of the user's programs.
    fn report(self, user: Vec<UserProgram>) {
        let Some((pairs, llm, probes)) = self.pending.get_value() else {
            return;
        };
        let params = match self.settings.params() {
            Ok(params) => params,
            Err(message) => return self.fail(message),
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
        self.progress.set("fitting…".to_owned());
        self.fitted
            .run(Computed::new(Analysis::Programs(params), files));
    }

    /// Runs on the chosen files: first the texts the user's programs score, if any.
    fn start(self, pairs: Upload, llm: Option<Upload>, probes: Option<Upload>) {
        let Some(texts) = self.texts.get_value() else {
            return;
        };
        let request = texts.begin();
        self.latest.set_value(request);
        self.pending
            .set_value(Some((pairs.clone(), llm, probes.clone())));
        if self.programs.get_untracked().is_empty() {
            self.failures.set(Vec::new());
            self.report(Vec::new());
        } else {
            self.progress.set("parsing pairs…".to_owned());
            let job = Job::ProgramTexts {
                request,
                pairs,
                probes,
            };
            texts.send(0, job);
        }
    }
}

#[component]
pub fn ProgramsPage() -> impl IntoView {
    let settings = ProgramSettings::new();
    let programs = RwSignal::new(Vec::<Program>::new());
    let run = ProgramsRun::spawn(settings, programs);
    let ProgramsRun {
        fitted,
        failures,
        progress,
        ..
    } = run;
    let pairs_ref = NodeRef::<leptos::html::Input>::new();
    let llm_ref = NodeRef::<leptos::html::Input>::new();
    let probes_ref = NodeRef::<leptos::html::Input>::new();
    let start = move || {
        fitted.busy.set(true);
        progress.set("reading files…".to_owned());
        let inputs = (
            pairs_ref.get_untracked(),
            llm_ref.get_untracked(),
            probes_ref.get_untracked(),
        );
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
                Ok((pairs, llm, probes)) => run.start(pairs, llm, probes),
                Err(message) => run.fail(message),
            }
        });
    };

    // LLMFAO's pairs with the crowd's labels, GPT-4's verdicts and the bias probes.
    let try_example = move || {
        examples::try_example(
            vec![
                (pairs_ref, &[examples::PAIRS]),
                (llm_ref, &[examples::GPT4_VERDICTS]),
                (probes_ref, &[examples::PROBES]),
            ],
            start,
            move |message| run.fail(message),
        );
    };
    examples::when_requested(pairs_ref, try_example);

    view! {
        <section id="programs" class="card">
            <h2>"Judging programs: cheap judges, their committee and the judge's biases"</h2>
            <ProgramsHint />
            <ExampleButton id="example-programs" what="2,139 pairs of answers with the crowd's labels, GPT-4's verdicts and bias probes" on_try=Callback::new(move |()| try_example()) />
            <div class="controls">
                <label class="file">"Pairs CSV " <input id="prog-pairs" type="file" accept=".csv" node_ref=pairs_ref /></label>
                <label class="file">"LLM verdicts " <input id="prog-llm" type="file" accept=".csv,.jsonl" node_ref=llm_ref /></label>
                <label class="file">"Bias probes " <input id="prog-probes" type="file" accept=".csv" node_ref=probes_ref /></label>
            </div>
            <ProgramSettingsView settings />
            <ProgramEditor programs error=fitted.error limit=settings.limit />
            <button id="prog-run" on:click=move |_| start()>"Run programs"</button>
            <StaleNote id="prog-stale" shown=Signal::derive(move || fitted.report.with(Option::is_some)) busy=fitted.busy
                track=move || {
                    settings.track();
                    programs.track();
                } />
            {move || fitted.busy.get().then(|| view! {
                <p class="busy" role="status" id="prog-progress">
                    {move || progress.get()} " "
                    <button id="prog-cancel" on:click=move |_| run.cancel()>"Cancel"</button>
                </p>
            })}
            {move || fitted.error.get().map(|m| view! { <div id="prog-error" class="error" role="alert">{m}</div> })}
            {move || (!failures.get().is_empty()).then(|| view! { <FailuresTable results=failures.get() /> })}
            {move || match fitted.report.get() {
                Some(Report::Programs(report)) => Some(view! { <ProgramsView report=*report /> }),
                _ => None,
            }}
            <SaveAndShare computed=fitted.computed title="Programs" prefix="prog-" busy=fitted.busy />
        </section>
    }
}

#[component]
fn ProgramsHint() -> impl IntoView {
    view! {
        <p class="hint">
            "Programmatic judges (Huang, Qiu & Sala, Codifying the Judge, 2026): ten built-in rubric programs and your own JavaScript score both answers of each pair; thresholds and the " {term("committee", "committee")} " are chosen on a seeded validation split, a " {term("label-model", "label model")} " weighs the committee's votes, and uncertain pairs can be " {term("routing", "routed")} " to an LLM judge. Pairs: "
            <code>"id,instruction,response,response_b,label"</code> " (label " <code>"a"</code> ", " <code>"b"</code> ", " <code>"tie"</code> " or empty); LLM verdicts: "
            <code>"id,label"</code> "; probes: " <code>"id,bias,variant,instruction,response,response_b,biased"</code>
            ". Everything runs in this browser; the same numbers as " <code>"tribunal stats programs"</code> "."
        </p>
    }
}

/// The validation share, committee size, seed, escalation share and the sandbox's time limit.
#[component]
fn ProgramSettingsView(settings: ProgramSettings) -> impl IntoView {
    let ProgramSettings {
        share,
        top_k,
        seed,
        limit,
        budget,
    } = settings;
    view! {
        <div class="controls">
            {number_field("prog-share", "Validation share", Bounds { min: "0.05", max: Some("0.95"), step: "0.05" }, share)}
            <label>"Committee size (empty: all above chance) "
                <input id="prog-topk" type="text" size="4" prop:value=move || top_k.get()
                    on:change=move |ev| top_k.set(event_target_value(&ev)) />
            </label>
            {number_field("prog-seed", "Seed", Bounds::from("0", "1"), seed)}
            {number_field("prog-budget", "Escalate to the LLM (share)", Bounds { min: "0", max: Some("1"), step: "0.05" }, budget)}
            {number_field("prog-limit", "Time limit per call (ms)", Bounds::from("10", "any"), limit)}
        </div>
    }
}

/// The user's own programs: a name and JavaScript code to add, and the list to remove from. The
/// code is compiled in the sandbox when it is added, before any pair is scored: a bad name or
/// code that does not compile shows in `error` at once, and the program is not added.
#[component]
fn ProgramEditor(
    programs: RwSignal<Vec<Program>>,
    error: RwSignal<Option<String>>,
    limit: RwSignal<f64>,
) -> impl IntoView {
    let name = RwSignal::new("my_program".to_owned());
    let code = RwSignal::new(EXAMPLE.to_owned());
    let add = move |_| {
        let n = name.get_untracked().trim().to_owned();
        if n.is_empty() || n.contains([',', '"', '\n']) {
            error.set(Some(
                "program name: expected a non-empty name without commas or quotes".to_owned(),
            ));
            return;
        }
        let code = code.get_untracked();
        spawn_local(async move {
            if let Some(why) = compile_error(&code, limit.get_untracked()).await {
                return error.set(Some(format!("program `{n}` {why}; it was not added")));
            }
            error.set(None);
            programs.update(|list| {
                list.retain(|p| p.name != n);
                list.push(Program { name: n, code });
            });
        });
    };

    view! {
        <details open>
            <summary>"Your programs"</summary>
            <label>"Name " <input id="prog-name" type="text" prop:value=move || name.get()
                on:change=move |ev| name.set(event_target_value(&ev)) /></label>
            <label class="block">"Code: " <code>"function judgingFunction(query, response)"</code> " returning a number, higher = better"
                <textarea id="prog-code" class="code" prop:value=move || code.get()
                    on:input=move |ev| code.set(event_target_value(&ev))></textarea>
            </label>
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
        <table tabindex="0" class="ratings" id="prog-failures">
            <thead><tr><th>"Program"</th><th>"Calls"</th><th>"Abstained"</th><th>"Why"</th><th>"Examples"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// The report of one run.
#[component]
pub(crate) fn ProgramsView(report: ProgramsReport) -> impl IntoView {
    let ProgramsReport {
        report,
        escalated_items_csv,
    } = report;
    let c = &report.committee;
    let summary = format!(
        "{} pairs · {} for validation (seed {}) · {} labelled test pairs ({} ties left out) · committee of {}",
        report.pairs,
        report.validation_pairs,
        report.params.seed,
        c.test_labelled,
        c.test_ties,
        c.members.len()
    );
    let vs_llm = c.llm.as_ref().map(|llm| {
        format!(
            ", against the LLM judge's {} alone",
            fixed(llm.accuracy.estimate, 3)
        )
    });
    let reading = format!(
        "The label model over the committee of {} programs is right on {} of the {} labelled test pairs ({} to {}), against {} for their majority vote{}.",
        c.members.len(),
        fixed(c.label_model.accuracy.estimate, 3),
        c.test_labelled,
        fixed(c.label_model.accuracy.lower, 3),
        fixed(c.label_model.accuracy.upper, 3),
        fixed(c.majority_vote.accuracy.estimate, 3),
        vs_llm.unwrap_or_default()
    );
    view! {
        <p class="reading" id="prog-reading">{reading}</p>
        <p class="summary" id="prog-summary">{summary}</p>
        <ProgramTable programs=report.programs.clone() />
        <CommitteeView committee=report.committee.clone() />
        <EscalationView escalation=report.escalation.clone() escalated_items_csv />
        <BiasTable bias=report.bias.clone() />
    }
}

impl KindView for ProgramsReport {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <ProgramsView report=self /> }.into_any()
    }
}

/// Each program's threshold, coverage and accuracy on the validation and test pairs.
#[component]
fn ProgramTable(programs: Vec<ProgramRow>) -> impl IntoView {
    let rows = programs
        .into_iter()
        .map(|p| {
            let test_accuracy = p.test_accuracy.unwrap_or(f64::NAN);
            let fit = p.fit;
            let name = fit.name.clone();
            view! {
                <tr data-name=name data-tau=fit.tau.to_string()
                    data-accuracy=fit.accuracy.to_string()
                    data-test-accuracy=test_accuracy.to_string()
                    data-coverage=p.test_coverage.to_string()
                    data-selected=fit.selected.to_string()
                    class=if fit.selected { "selected" } else { "" }>
                    <td><code>{fit.name}</code></td>
                    <td class="num">{fixed(fit.tau, 2)}</td>
                    <td class="num">{fixed(fit.coverage, 3)}</td>
                    <td class="num">{fixed(fit.accuracy, 3)}</td>
                    <td class="num">{fixed(p.test_coverage, 3)}</td>
                    <td class="num">{fixed(test_accuracy, 3)}</td>
                    <td>{if fit.selected { "yes" } else { "no" }}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h3>"Programs"</h3>
        <table tabindex="0" class="ratings" id="prog-table">
            <caption class="sr-only">"Programs"</caption>
            <thead><tr><th>"Program"</th><th>"τ"</th><th>"Coverage (val.)"</th><th>"Accuracy (val.)"</th><th>"Coverage (test)"</th><th>"Accuracy (test)"</th><th>"In committee"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// An aggregate's accuracy with its interval and the pairs it decided.
fn aggregate_row(key: &'static str, label: &'static str, a: &AggregateRow) -> impl IntoView {
    view! {
        <tr data-aggregate=key data-estimate=a.accuracy.estimate.to_string()
            data-lower=a.accuracy.lower.to_string()
            data-upper=a.accuracy.upper.to_string()
            data-coverage=a.coverage.to_string()>
            <td>{label}</td>
            <td class="num">{interval(&a.accuracy, 3)}</td>
            <td class="num">{fixed(a.coverage, 3)}</td>
        </tr>
    }
}

/// The label model against majority vote (and the LLM judge), the committee's learned
/// accuracies and the routing curves.
#[component]
pub(crate) fn CommitteeView(committee: CommitteeReport) -> impl IntoView {
    let c = committee;
    let members = c
        .members
        .iter()
        .map(|m| {
            view! {
                <tr data-name=m.name.clone() data-learned=m.learned_accuracy.to_string()>
                    <td><code>{m.name.clone()}</code></td>
                    <td class="num">{fixed(m.coverage, 3)}</td>
                    <td class="num">{fixed(m.learned_accuracy, 3)}</td>
                    <td class="num">{fixed(m.test_accuracy.unwrap_or(f64::NAN), 3)}</td>
                </tr>
            }
        })
        .collect_view();
    let routing = c
        .routing
        .clone()
        .map(|routing| view! { <RoutingView routing /> });
    let warnings = c
        .warnings
        .iter()
        .map(|w| view! { <p class="warning committee-warning" role="note">{w.clone()}</p> })
        .collect_view();
    view! {
        <h3>"Label model against majority vote"</h3>
        {warnings}
        <table tabindex="0" class="ratings" id="prog-aggregates">
            <caption class="sr-only">"Label model against majority vote"</caption>
            <thead><tr><th>"Verdict by"</th><th>"Accuracy (95 % CI)"</th><th>"Pairs decided"</th></tr></thead>
            <tbody>
                {aggregate_row("label_model", "label model", &c.label_model)}
                {aggregate_row("majority_vote", "majority vote", &c.majority_vote)}
                {c.llm.as_ref().map(|llm| aggregate_row("llm", "LLM judge alone", llm))}
            </tbody>
        </table>
        <p id="prog-difference" data-estimate=c.difference.estimate.to_string()>
            "Label model − majority vote: " {interval(&c.difference, 3)}
            " (paired bootstrap; an undecided pair counts ½)"
        </p>
        <table tabindex="0" class="ratings" id="prog-members">
            <thead><tr><th>"Committee program"</th><th>"Coverage"</th><th>"Learned accuracy"</th><th>"Test accuracy"</th></tr></thead>
            <tbody>{members}</tbody>
        </table>
        {routing}
    }
}

impl KindView for CommitteeReport {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <CommitteeView committee=self /> }.into_any()
    }
}

/// Accuracy against the share of pairs escalated to the LLM judge, per routing signal.
#[component]
fn RoutingView(routing: Routing) -> impl IntoView {
    let curves: Vec<(String, Vec<(f64, f64)>)> = routing
        .curves
        .iter()
        .map(|curve| {
            let points = curve
                .points
                .iter()
                .map(|p| (p.budget, p.accuracy))
                .collect();
            (name(&curve.signal), points)
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
            view! { <tr data-signal=signal.clone()><td>{term(&format!("signal-{signal}"), signal.replace('_', " "))}</td>{cells}</tr> }
        })
        .collect_view();
    view! {
        <h3>"Routing to the LLM judge"</h3>
        <LinePlot curves=curves.clone()
            x_label="share escalated to the LLM judge (0: programs only, 1: LLM only)"
            label="routing curves"
            caption="Accuracy on the labelled test pairs against the share escalated to the LLM judge, by routing signal" />
        <table tabindex="0" class="ratings" id="prog-routing">
            <thead><tr><th>"Signal \\ share escalated"</th>{budgets.iter().map(|b| view! { <th>{format!("{:.0} %", b * 100.0)}</th> }).collect_view()}</tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// The staged policy at the chosen share, with the escalated pairs to download.
#[component]
fn EscalationView(escalation: Escalation, escalated_items_csv: String) -> impl IntoView {
    let e = escalation;
    view! {
        <h3>"Staged policy"</h3>
        <p id="prog-escalation" data-escalated=e.escalated.to_string()
            data-answered=e.answered.to_string()
            data-estimate=e.merged.accuracy.estimate.to_string()>
            {format!(
                "{} pairs escalated (share {}, most uncertain first), {} of them answered by the LLM verdicts; merged verdict accuracy {}",
                e.escalated,
                e.budget,
                e.answered,
                interval(&e.merged.accuracy, 3)
            )}
        </p>
        {(e.escalated > 0).then(|| view! {
            <p><a id="prog-escalated" download="tribunal-escalated-items.csv"
                href=data_url("text/csv", &escalated_items_csv)>
                "Download the escalated pairs as judge items"</a>
                " — run " <code>"tribunal judge --input tribunal-escalated-items.csv …"</code>
                " and load its " <code>".jsonl"</code> " as the LLM verdicts."</p>
        })}
    }
}

/// Each bias probe's flip rate and bias win rate.
#[component]
fn BiasTable(bias: Vec<BiasRow>) -> impl IntoView {
    let rows = bias
        .iter()
        .map(|b| {
            let win = b.bias_win_rate.as_ref();
            view! {
                <tr data-bias=b.bias.clone()
                    data-flip=b.flip_rate.estimate.to_string()
                    data-win=win.map_or(f64::NAN, |w| w.estimate).to_string()>
                    <td>{words(&b.bias)}</td>
                    <td class="num">{b.probes.to_string()}</td>
                    <td class="num">{interval(&b.flip_rate, 3)}</td>
                    <td class="num">{win.map_or_else(|| "—".to_owned(), |w| interval(w, 3))}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h3>"Bias probes"</h3>
        <table tabindex="0" class="ratings" id="prog-bias">
            <thead><tr><th>"Bias"</th><th>"Probes"</th><th>"Flip rate"</th><th>"Bias win rate"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}
