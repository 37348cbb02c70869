//! Judge runs from the page. `/runs` says which judges this worker offers (`/api/health`: its
//! local model, and the OpenAI-compatible fleets its operator allows) and starts a session
//! from an items file — or the bundled LLMFAO items — whose page holds the run form. On a
//! session's page its owner starts runs with [`StartRun`]: the items dataset, the prompt (the
//! default most tokens follows it), the judge (the local model, or a fleet and the model name
//! it serves, with what the bundled judge measured or how to gauge a fleet judge) and whether
//! to embed the rationales, and optionally a cascade: a second fleet judge for the items the
//! first is unsure of, and people after it ([`CascadeFields`]). An upload whose items have an empty
//! response is accepted: the worker's warning is shown, and each such judgment is flagged.

use crate::api::{self, Judges};
use crate::bundled_judge::{BundledJudgeNote, ChosenJudgeNote};
use crate::device::{go, remember};
use crate::examples::{try_example, when_requested, ExampleButton, ITEMS};
use crate::fields::{number_field, Bounds};
use crate::glossary::term;
use crate::new_analysis::datasets_of;
use leptos::html::Input;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::io::dataset_kind::DatasetKind;
use tribunal::judging::escalation::{Escalation, EscalationTier};
use tribunal::judging::judge_config::{
    BackendConfig, DecodingConfig, JudgeConfig, OpenAiParams, RationaleEmbedding, RunRequest,
};
use tribunal::judging::judge_design::{Orders, RunDesign};
use tribunal::judging::judge_prompt::{PromptKind, PromptParams};
use tribunal::sessions::session::SessionView;

/// `/runs`: the judges on offer, and a new session for an items file.
#[component]
pub fn RunsPage() -> impl IntoView {
    let judges = LocalResource::new(api::judges);
    let input = NodeRef::<Input>::new();
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    // The new session's page, and the upload's warnings that the user reads before going on.
    let created = RwSignal::new(None::<(String, Vec<String>)>);
    let start = move |_| {
        busy.set(true);
        spawn_local(async move {
            let outcome = new_session_with_items(input.get_untracked().as_ref()).await;
            busy.set(false);
            match outcome {
                Ok((path, warnings)) if warnings.is_empty() => go(&path),
                Ok(created_session) => {
                    error.set(None);
                    created.set(Some(created_session));
                }
                Err(message) => error.set(Some(message)),
            }
        });
    };
    let on_try = Callback::new(move |()| {
        try_example(
            vec![(input, &[ITEMS])],
            || {},
            move |message| error.set(Some(message)),
        );
    });
    when_requested(input, move || on_try.run(()));
    view! {
        <section id="runs-page" class="card">
            <h2>"Run a judge over your items"</h2>
            <p class="hint">"A judge run reads an items file (" <code>"id,instruction,response[,response_b]"</code> ", with " <code>"model,model_b"</code> " for a leaderboard), asks the judge about each item — pairwise prompts in both orders — and stores every verdict with its rationale and p_s. The run lives in a session: its page shows each judgment as it arrives and a running leaderboard, and when the run ends its verdicts become datasets that the session's analyses read."</p>
            <JudgesOffered judges />
            <BundledJudgeNote />
            <ExampleButton id="runs-example" what="Three LLMFAO pairs with their models (one answer shows nothing)" on_try />
            <div class="controls">
                <label class="file">"Items file " <input id="runs-items-input" type="file" accept=".csv" node_ref=input /></label>
                <button id="runs-new-session" on:click=start prop:disabled=move || busy.get()>"Start a session with these items"</button>
            </div>
            {move || busy.get().then(|| view! { <p class="busy" role="status">"creating the session…"</p> })}
            {move || error.get().map(|m| view! { <div id="runs-error" class="error" role="alert">{m}</div> })}
            {move || created.get().map(|(path, warnings)| view! {
                {warnings.into_iter().map(|w| view! { <p class="warning upload-warning">{w}</p> }).collect_view()}
                <p><a id="runs-open-session" href=path>"Open the session to start the run"</a></p>
            })}
        </section>
    }
}

/// What `/api/health` says this worker can judge with.
#[component]
fn JudgesOffered(judges: LocalResource<Result<Judges, String>>) -> impl IntoView {
    move || {
        judges.get().map(|answer| match answer {
            Ok(j) => {
                let local = if j.local {
                    view! { "the local model (SmolLM2-135M on this worker's CPU or GPU)" }.into_any()
                } else {
                    view! { "no local model (" <code>"bash scripts/setup.sh"</code> " installs it)" }.into_any()
                };
                let fleets = if j.fleets.is_empty() {
                    view! { "no OpenAI-compatible fleet (its operator lists them with " <code>"tribunal serve --fleet URL"</code> ")" }.into_any()
                } else {
                    let plural = if j.fleets.len() == 1 { "" } else { "s" };
                    view! { {format!("the fleet{plural} ")} <code>{j.fleets.join(", ")}</code> }.into_any()
                };
                view! {
                    <p id="runs-judges" data-local=j.local.to_string() data-fleets=j.fleets.len().to_string()>
                        "This worker offers " {local} ", and " {fleets} "."
                    </p>
                }
                .into_any()
            }
            Err(message) => view! { <p id="runs-judges" class="warning">{format!("The worker did not say which judges it has: {message}")}</p> }.into_any(),
        })
    }
}

/// Creates a session named after the items file chosen in `input`, adds the file as its items
/// dataset and keeps the owner token on this device; returns the session's path and the
/// upload's warnings.
async fn new_session_with_items(
    input: Option<&web_sys::HtmlInputElement>,
) -> Result<(String, Vec<String>), String> {
    let Some((name, bytes)) = crate::files::chosen(input).await? else {
        return Err("choose an items file first (or try the example)".to_owned());
    };
    let title = format!("Judge run on {name}");
    let created = api::create_session(&title).await?;
    remember(&created.id, Some(title), Some(created.owner_token.clone()));
    let added = api::add_dataset(
        &created.id,
        &created.owner_token,
        DatasetKind::Items,
        &name,
        &bytes,
    )
    .await
    .map_err(|message| format!("{name}: {message}"))?;
    Ok((format!("/s/{}", created.id), added.warnings))
}

/// The judge a run uses: the worker's local model, or a fleet the operator allows.
#[derive(Debug, Clone, PartialEq)]
enum Backend {
    Local,
    Fleet(String),
}

impl Backend {
    /// The `<option>` value.
    fn value(&self) -> String {
        match self {
            Backend::Local => "local".to_owned(),
            Backend::Fleet(url) => url.clone(),
        }
    }

    /// The judges on offer, the local model first.
    fn offered(judges: &Judges) -> Vec<Backend> {
        judges
            .local
            .then_some(Backend::Local)
            .into_iter()
            .chain(judges.fleets.iter().cloned().map(Backend::Fleet))
            .collect()
    }
}

/// The owner's judge run on an items dataset of the session.
#[component]
pub fn StartRun(
    id: String,
    token: String,
    session: RwSignal<Option<Result<SessionView, String>>>,
    error: RwSignal<Option<String>>,
    reload: Callback<()>,
) -> impl IntoView {
    let run_items = RwSignal::new(String::new());
    let run_prompt = RwSignal::new("relative".to_owned());
    let run_rubric = RwSignal::new(
        "Which response follows the instruction better: correct, complete and concise?".to_owned(),
    );
    let run_tokens = RwSignal::new(max_tokens("relative"));
    let run_embed = RwSignal::new(false);
    let judges = LocalResource::new(api::judges);
    let offered = move || {
        judges
            .get()
            .and_then(Result::ok)
            .map(|j| Backend::offered(&j))
            .unwrap_or_default()
    };
    // The judge picked, or the first on offer.
    let picked = RwSignal::new(None::<Backend>);
    let backend = move || picked.get().or_else(|| offered().into_iter().next());
    let run_model = RwSignal::new(String::new());
    let run_concurrency = RwSignal::new(4usize);
    let fleets = move || {
        judges
            .get()
            .and_then(Result::ok)
            .map(|j| j.fleets)
            .unwrap_or_default()
    };
    let cascade = CascadeSettings::new();
    let ready = move || {
        let judge_ready = match backend() {
            None => false,
            Some(Backend::Local) => true,
            Some(Backend::Fleet(_)) => !run_model.get().trim().is_empty(),
        };
        judge_ready && (!cascade.on.get() || !cascade.model.get().trim().is_empty())
    };
    let start_run = {
        let (id, token) = (id.clone(), token.clone());
        move |_| {
            let (id, token) = (id.clone(), token.clone());
            let Some(backend) = backend() else {
                return;
            };
            let items = run_items.get_untracked();
            let items = if items.is_empty() {
                session.with_untracked(|s| {
                    datasets_of(s, DatasetKind::Items)
                        .first()
                        .map(|d| d.hash.clone())
                        .unwrap_or_default()
                })
            } else {
                items
            };
            let kind = match run_prompt.get_untracked().as_str() {
                "criteria" => PromptKind::Criteria,
                "binary" => PromptKind::Binary,
                "absolute" => PromptKind::Absolute {
                    min_score: 1,
                    max_score: 5,
                },
                _ => PromptKind::Relative,
            };
            let pairwise = matches!(kind, PromptKind::Relative | PromptKind::Criteria);
            let rubric = match kind {
                PromptKind::Absolute { .. } | PromptKind::Relative => run_rubric.get_untracked(),
                _ => String::new(),
            };
            let backend = match backend {
                Backend::Local => BackendConfig::Local,
                Backend::Fleet(url) => BackendConfig::Openai(OpenAiParams {
                    url,
                    model: run_model.get_untracked().trim().to_owned(),
                    concurrency: run_concurrency.get_untracked(),
                    ..OpenAiParams::defaults()
                }),
            };
            let request = RunRequest {
                items,
                config: JudgeConfig {
                    prompt: PromptParams {
                        kind,
                        rubric,
                        template: None,
                    },
                    backend,
                    decoding: DecodingConfig {
                        max_tokens: run_tokens.get_untracked(),
                        seed: 0,
                        ..DecodingConfig::default()
                    },
                    design: RunDesign {
                        orders: if pairwise { Orders::Both } else { Orders::Ab },
                        ..RunDesign::default()
                    },
                    embed_rationale: run_embed.get_untracked(),
                    rationale_embedding: RationaleEmbedding::default(),
                    escalate: cascade.escalation(&fleets()),
                },
                head: None,
            };
            spawn_local(async move {
                match api::start_run(&id, &token, &request).await {
                    Ok(_) => {
                        error.set(None);
                        reload.run(());
                    }
                    Err(message) => error.set(Some(message)),
                }
            });
        }
    };
    let pick_judge = move |ev| {
        let value = event_target_value(&ev);
        picked.set(offered().into_iter().find(|b| b.value() == value));
    };
    view! {
            <h3>"Run a judge"</h3>
            <p class="hint">"The judge reads an items dataset (" <code>"id,instruction,response[,response_b]"</code> "); each judgment appears above as it is stored, and when the run finishes its judgments become datasets of the session (the " <code>".jsonl"</code> ", and its verdicts as battles or its scores as ratings) that the analyses below read. With the rationales embedded and a " <code>"human"</code> " column in the items (and optionally " <code>"split"</code> ": train/test), it also leaves calibration files for a calibration below."</p>
            <div class="controls">
                <label>"Items "
                    <select id="run-items" on:change=move |ev| run_items.set(event_target_value(&ev))>
                        {move || session.with(|s| datasets_of(s, DatasetKind::Items)).into_iter().map(|d| view! { <option value=d.hash.clone()>{d.name.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Judge "
                    <select id="run-judge" on:change=pick_judge>
                        {move || {
                            let chosen = backend();
                            offered().into_iter().map(|b| {
                                let selected = chosen.as_ref() == Some(&b);
                                let label = match &b {
                                    Backend::Local => "the local model (SmolLM2)".to_owned(),
                                    Backend::Fleet(url) => format!("fleet {url}"),
                                };
                                view! { <option value=b.value() prop:selected=selected>{label}</option> }
                            }).collect_view()
                        }}
                    </select>
                </label>
                {move || matches!(backend(), Some(Backend::Fleet(_))).then(|| view! {
                    <label>"Model name on the fleet " <input id="run-model" type="text" placeholder="e.g. Qwen/Qwen2.5-7B-Instruct"
                        prop:value=move || run_model.get() on:input=move |ev| run_model.set(event_target_value(&ev)) /></label>
                    {number_field("run-concurrency", "Requests at once", Bounds { min: "1", max: Some("256"), step: "1" }, run_concurrency)}
                })}
                <label>"Prompt "
                    <select id="run-prompt" on:change=move |ev| {
                        let kind = event_target_value(&ev);
                        run_tokens.set(max_tokens(&kind));
                        run_prompt.set(kind);
                    }>
                        <option value="relative">"pairwise (both orders)"</option>
                        <option value="criteria">"six criteria, JSON (both orders)"</option>
                        <option value="absolute">"absolute 1–5"</option>
                        <option value="binary">"binary rubric: prompt adherence (pass/fail)"</option>
                    </select>
                </label>
                <label>"Rubric " <input id="run-rubric" type="text" prop:value=move || run_rubric.get()
                    on:change=move |ev| run_rubric.set(event_target_value(&ev)) /></label>
                {number_field("run-tokens", "Max tokens", Bounds::from("1", "1"), run_tokens)}
                <label>"Embed each rationale (MiniLM) " <input id="run-embed" type="checkbox" prop:checked=move || run_embed.get()
                    on:change=move |ev| run_embed.set(event_target_checked(&ev)) /></label>
                {move || (!fleets().is_empty()).then(|| view! { <CascadeFields cascade fleets=fleets() /> })}
                <button id="start-run" on:click=start_run disabled=move || !ready()>"Start the run"</button>
            </div>
            {move || backend().map(|b| view! { <ChosenJudgeNote local=matches!(b, Backend::Local) /> })}
            {move || judges.get().map(|j| match j {
                Ok(j) if j.local || !j.fleets.is_empty() => None,
                Ok(_) => Some(view! {
                    <p id="run-unavailable" class="warning">"This worker has no local judge model installed ("<code>"bash scripts/setup.sh"</code>" installs it) and its operator allows no fleet ("<code>"--fleet URL"</code>"): runs cannot start here."</p>
                }.into_any()),
                Err(message) => Some(view! { <p id="run-unavailable" class="warning">{format!("The worker did not say which judges it has: {message}")}</p> }.into_any()),
            })}
    }
}

/// A run's cascade from the form (`[escalate]`): the run's judge keeps the items it is at
/// least `threshold` confident on, a fleet model judges the rest and keeps those it is at least
/// `next_threshold` confident on, and people get what is left.
#[derive(Clone, Copy)]
struct CascadeSettings {
    on: RwSignal<bool>,
    threshold: RwSignal<f64>,
    /// The later judge's fleet (empty: the first offered) and model name.
    url: RwSignal<String>,
    model: RwSignal<String>,
    next_threshold: RwSignal<f64>,
}

impl CascadeSettings {
    fn new() -> Self {
        Self {
            on: RwSignal::new(false),
            threshold: RwSignal::new(0.8),
            url: RwSignal::new(String::new()),
            model: RwSignal::new(String::new()),
            next_threshold: RwSignal::new(0.7),
        }
    }

    /// The `[escalate]` settings, when the cascade is on; `fleets` are the fleets on offer.
    fn escalation(&self, fleets: &[String]) -> Option<Escalation> {
        if !self.on.get_untracked() {
            return None;
        }
        let url = Some(self.url.get_untracked())
            .filter(|u| !u.is_empty())
            .or_else(|| fleets.first().cloned())?;
        Some(Escalation {
            threshold: self.threshold.get_untracked(),
            tiers: vec![EscalationTier {
                url,
                model: self.model.get_untracked().trim().to_owned(),
                threshold: self.next_threshold.get_untracked(),
                api_key_env: None,
            }],
        })
    }
}

/// The form's cascade fields: on or off, the thresholds, the later judge.
#[component]
fn CascadeFields(cascade: CascadeSettings, fleets: Vec<String>) -> impl IntoView {
    let confidence = || Bounds {
        min: "0",
        max: Some("1"),
        step: "0.01",
    };
    view! {
        <label>"Pass the items the judge is unsure of to a second judge, then to people "
            <input id="run-escalate" type="checkbox" prop:checked=move || cascade.on.get()
                on:change=move |ev| cascade.on.set(event_target_checked(&ev)) /></label>
        {move || {
            let fleets = fleets.clone();
            cascade.on.get().then(move || view! {
                {number_field("run-threshold", "Keep a verdict at confidence ≥", confidence(), cascade.threshold)}
                <label>"Second judge "
                    <select id="run-next-judge" on:change=move |ev| cascade.url.set(event_target_value(&ev))>
                        {fleets.into_iter().map(|url| view! { <option value=url.clone()>{format!("fleet {url}")}</option> }).collect_view()}
                    </select>
                </label>
                <label>"its model name " <input id="run-next-model" type="text" prop:value=move || cascade.model.get()
                    on:input=move |ev| cascade.model.set(event_target_value(&ev)) /></label>
                {number_field("run-next-threshold", "it keeps a verdict at confidence ≥", confidence(), cascade.next_threshold)}
                <p class="hint">"An item's confidence is the judge's p_s of its verdict, averaged over the item's judgments (both orders). The thresholds that guarantee an agreement with people come from a " {term("cascade", "trust-or-escalate")} " analysis on labelled items; the items left to people become the session's " <code>".to-people.csv"</code> "."</p>
            })
        }}
    }
}

/// The default most tokens of a prompt kind: room for a short rationale and the verdict, and
/// for the six-criteria JSON (six scores and their reasons).
fn max_tokens(prompt: &str) -> usize {
    match prompt {
        "criteria" => 384,
        "binary" => 160,
        _ => 128,
    }
}
