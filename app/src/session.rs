//! Sessions and sharing. The home page's Sessions card starts a session on the worker (or
//! imports an archive) and lists the sessions this device has opened. `/s/<id>` shows a
//! session — datasets, judge runs, saved analyses with their kinds, the share link and the
//! export — and lets its owner add datasets (every [`DatasetKind`], the kind picked for them
//! from the file's columns ([`DatasetKind::recognise`]), each checked by its parser on the
//! worker), start judge runs, and save an analysis of any kind on the session's datasets
//! ([`NewAnalysis`]); the analysis pages save theirs with
//! [`crate::save_share::SaveAndShare`]. `/s/<id>/a/<analysis>` recomputes a saved analysis
//! of any kind here from the stored data and its spec. `/#share=…` recomputes an
//! on-device analysis whose data travel in the link's fragment, which no server sees.
//!
//! Owner tokens stay on this device (local storage): an owner link `/s/<id>#owner=TOKEN`
//! hands one to another device; the share link never carries it.

use crate::analysis_view::AnalysisView;
use crate::api;
use crate::device::{forget, go, origin, owner_token, recent, remember};
use crate::examples;
use crate::judge_runs::StartRun;
use crate::new_analysis::NewAnalysis;
use crate::runs::RunWatch;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::analysis::Spec;
use tribunal::io::dataset_kind::DatasetKind;
use tribunal::readers::{convert, detect, ConvertParams, Format, Output};
use tribunal::sessions::session::{SessionView, MAX_NAME_CHARS};
use tribunal::sessions::share_link::{decode, BundledFile, SharedAnalysis};
use tribunal_app::stats_worker::RoleFile;

/// The home page's card: new session, import, recent sessions on this device.
#[component]
pub fn SessionsCard() -> impl IntoView {
    let title = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let import_ref = NodeRef::<leptos::html::Input>::new();
    let create = move |_| {
        spawn_local(async move {
            match api::create_session(&title.get_untracked()).await {
                Ok(c) => {
                    remember(&c.id, Some(title.get_untracked()), Some(c.owner_token));
                    go(&format!("/s/{}", c.id));
                }
                Err(message) => error.set(Some(message)),
            }
        });
    };
    let import = move |_| {
        spawn_local(async move {
            let file = match crate::files::chosen_text(import_ref.get_untracked().as_ref()).await {
                Ok(Some(file)) => file,
                Ok(None) => return,
                Err(message) => return error.set(Some(message)),
            };
            match api::import_session(file.text).await {
                Ok(c) => {
                    remember(&c.id, None, Some(c.owner_token));
                    go(&format!("/s/{}", c.id));
                }
                Err(message) => error.set(Some(format!("{}: {message}", file.name))),
            }
        });
    };
    let recents = recent()
        .into_iter()
        .map(|r| {
            let label = if r.title.is_empty() {
                r.id.clone()
            } else {
                r.title.clone()
            };
            let owned = r.owner_token.is_some().then_some(" (yours)");
            view! { <li><a href=format!("/s/{}", r.id)>{label}</a>{owned}</li> }
        })
        .collect_view();
    view! {
        <section id="sessions" class="card">
            <h2>"Sessions"</h2>
            <p class="hint">
                "A session on this worker keeps datasets and saved analyses under a link anyone can open read-only; whoever opens an analysis recomputes it in their browser from the stored data, settings and seed. The owner token that allows changes stays on this device."
            </p>
            <div class="controls">
                <label>"Title " <input id="session-title" type="text" maxlength=MAX_NAME_CHARS prop:value=move || title.get()
                    on:change=move |ev| title.set(event_target_value(&ev)) /></label>
                <button id="new-session" on:click=create>"New session"</button>
                <label class="file">"Import an archive " <input id="import-input" type="file" accept=".json" node_ref=import_ref /></label>
                <button id="import-session" on:click=import>"Import"</button>
            </div>
            {move || error.get().map(|m| view! { <div id="session-error" class="error" role="alert">{m}</div> })}
            <h3>"On this device"</h3>
            <ul id="recent-sessions">{recents}</ul>
        </section>
    }
}

/// `/s/<id>`: a session.
#[component]
pub fn SessionPage(id: String) -> impl IntoView {
    let session = RwSignal::new(None::<Result<SessionView, String>>);
    let error = RwSignal::new(None::<String>);
    let token = owner_token(&id);
    let contents_token = token.clone();
    let load = {
        let id = id.clone();
        move || {
            let id = id.clone();
            spawn_local(async move {
                let view = api::fetch_session(&id).await;
                if let Ok(v) = &view {
                    remember(&v.id, Some(v.title.clone()), None);
                }
                session.set(Some(view));
            });
        }
    };
    load();
    let reload = {
        let load = load.clone();
        Callback::new(move |()| load())
    };
    // A run that ends while the page watches it brings its record and datasets: the session is
    // read again, once per run.
    let reloaded = StoredValue::new(std::collections::HashSet::<String>::new());
    let run_ended = Callback::new(move |stream: String| {
        let first = reloaded
            .try_update_value(|seen| seen.insert(stream))
            .unwrap_or(false);
        if first {
            load();
        }
    });
    let owner_form = token.clone().map(|token| {
        let gone = {
            let id = id.clone();
            Callback::new(move |()| {
                forget(&id);
                go("/");
            })
        };
        view! {
            <AddDataset id=id.clone() token=token.clone() error reload />
            <StartRun id=id.clone() token=token.clone() session error reload />
            <NewAnalysis id=id.clone() token=token.clone() session error />
            <p><DeleteButton id=id.clone() token part=String::new() what="this whole session: its datasets, runs and analyses, and every link to it" error done=gone /></p>
        }
    });
    let share = format!("{}/s/{id}", origin());
    let export = format!("/api/sessions/{id}/export");
    let owner_link = token.map(|t| format!("{share}#owner={t}"));
    let missing_id = id.clone();
    // Sharing, exporting and changing a session need one: hidden until it has loaded.
    let loaded = move || matches!(session.get(), Some(Ok(_)));
    view! {
        <section id="session" class="card">
            {move || match session.get() {
                None => view! { <p class="busy" role="status">"loading the session…"</p> }.into_any(),
                Some(Err(message)) if message.starts_with("HTTP 404") => view! {
                    <div id="session-error" class="error" role="alert">
                        {format!("Not found: this worker has no session `{missing_id}`. The link may be mistyped, or the session was on another worker.")}
                        " " <a href="/">"Go to the home page"</a>
                    </div>
                }.into_any(),
                Some(Err(message)) => view! { <div id="session-error" class="error" role="alert">{message}</div> }.into_any(),
                Some(Ok(s)) => view! { <SessionContents session=s token=contents_token.clone() error reload run_ended /> }.into_any(),
            }}
            <div id="session-controls" hidden=move || !loaded()>
            <p class="share"><label>"Share (read-only): " <input id="session-share-url" type="text" readonly prop:value=share /></label></p>
            {owner_link.map(|l| view! {
                <details><summary>"Owner link (lets its holder change the session; do not share)"</summary>
                    <label>"Owner link " <input id="owner-url" type="text" readonly prop:value=l /></label></details>
            })}
            <p><a id="export-session" href=export download="">"Export the session (JSON archive)"</a></p>
            {move || error.get().map(|m| view! { <div id="session-write-error" class="error" role="alert">{m}</div> })}
            {owner_form}
            </div>
        </section>
    }
}

/// The owner's upload of a dataset of any kind. A file another tool wrote (AlpacaEval,
/// Arena-Hard, Chatbot Arena, Inspect, promptfoo) is recognised when picked, said so, and
/// converted here to the battles or ratings CSV `tribunal convert` writes before it is added.
#[component]
fn AddDataset(
    id: String,
    token: String,
    error: RwSignal<Option<String>>,
    reload: Callback<()>,
) -> impl IntoView {
    let dataset_ref = NodeRef::<leptos::html::Input>::new();
    let kind = RwSignal::new(DatasetKind::Battles.as_str().to_owned());
    let detected = RwSignal::new(None::<Format>);
    let baseline = RwSignal::new(String::new());
    let notes = RwSignal::new(Vec::<String>::new());
    let pick = move |_| {
        detected.set(None);
        spawn_local(async move {
            let format = match crate::files::chosen(dataset_ref.get_untracked().as_ref()).await {
                Ok(Some((_, bytes))) => {
                    if let Some(recognised) = DatasetKind::recognise(&bytes) {
                        kind.set(recognised.as_str().to_owned());
                    }
                    detect(&bytes)
                }
                _ => None,
            };
            detected.set(format);
            notes.set(Vec::new());
        });
    };
    let upload = {
        let (id, token) = (id.clone(), token.clone());
        move |_| {
            let (id, token) = (id.clone(), token.clone());
            spawn_local(async move {
                let (name, bytes) =
                    match crate::files::chosen(dataset_ref.get_untracked().as_ref()).await {
                        Ok(Some(file)) => file,
                        Ok(None) => return,
                        Err(message) => return error.set(Some(message)),
                    };
                let (kind, name, bytes) = match detected.get_untracked() {
                    Some(format) => {
                        match converted(format, &name, &bytes, baseline.get_untracked()) {
                            Ok((kind, csv_name, csv, warnings)) => {
                                notes.set(warnings);
                                (kind, csv_name, csv)
                            }
                            Err(message) => return error.set(Some(message)),
                        }
                    }
                    None => match DatasetKind::parse(&kind.get_untracked()) {
                        Ok(kind) => (kind, name, bytes),
                        Err(e) => return error.set(Some(e.to_string())),
                    },
                };
                match api::add_dataset(&id, &token, kind, &name, &bytes).await {
                    Ok(added) => {
                        notes.update(|n| n.extend(added.warnings));
                        // The form starts over: the next file is recognised afresh.
                        detected.set(None);
                        if let Some(input) = dataset_ref.get_untracked() {
                            input.set_value("");
                        }
                        error.set(None);
                        reload.run(());
                    }
                    Err(message) => error.set(Some(message)),
                }
            });
        }
    };
    let detected_view = move || {
        detected.get().map(|format| {
            let output = match format.output() {
                Output::Battles => "battles",
                Output::Ratings => "ratings (each scorer a rater)",
                Output::Scores => "scores (each model a system)",
            };
            view! {
                <p id="detected-format" data-format=format.as_str()>{format!(
                    "This is {}: it will be added as {output}, converted on this device.",
                    format.describe()
                )}</p>
                {(format == Format::ArenaHard).then(|| view! {
                    <label>"Baseline (for records that do not name one) "
                        <input id="convert-baseline" type="text" placeholder="gpt-4-0314"
                            on:change=move |ev| baseline.set(event_target_value(&ev)) /></label>
                })}
            }
        })
    };
    view! {
            <h3>"Add data"</h3>
            <div class="controls">
                <label>"Kind "
                    <select id="dataset-kind" prop:disabled=move || detected.get().is_some()
                        on:change=move |ev| kind.set(event_target_value(&ev))>
                        {DatasetKind::ALL.into_iter().map(|k| view! { <option value=k.as_str() selected=move || kind.get() == k.as_str()>{k.as_str()}</option> }).collect_view()}
                    </select>
                </label>
                <label class="file">"File " <input id="dataset-input" type="file" accept=".csv,.json,.jsonl,.npy,.safetensors" node_ref=dataset_ref on:change=pick /></label>
                <button id="add-dataset" on:click=upload>"Upload to the session"</button>
            </div>
            {detected_view}
            {move || notes.get().into_iter().map(|n| view! { <p class="warning upload-warning">{n}</p> }).collect_view()}
    }
}

/// Another tool's file as the dataset it converts to: its kind, name (`.csv`), bytes and what
/// the conversion left out.
fn converted(
    format: Format,
    name: &str,
    bytes: &[u8],
    baseline: String,
) -> Result<(DatasetKind, String, Vec<u8>, Vec<String>), String> {
    let params = ConvertParams {
        baseline: Some(baseline).filter(|b| !b.trim().is_empty()),
        ..ConvertParams::default()
    };
    let out = convert(format, name, bytes, &params).map_err(|e| e.to_string())?;
    let kind = match out.output {
        Output::Battles => DatasetKind::Battles,
        Output::Ratings => DatasetKind::Ratings,
        Output::Scores => DatasetKind::Scores,
    };
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    Ok((
        kind,
        format!("{stem}.csv"),
        out.csv.into_bytes(),
        out.warnings,
    ))
}

/// A session's datasets, runs and analyses.
#[component]
fn SessionContents(
    session: SessionView,
    token: Option<String>,
    error: RwSignal<Option<String>>,
    reload: Callback<()>,
    run_ended: Callback<String>,
) -> impl IntoView {
    // The records the session holds per run stream: one per judge that had ended when it was
    // read (a cascade's later judges store theirs under `<run key>:t2`, `:t3`, …).
    let mut recorded = std::collections::HashMap::<String, usize>::new();
    for record in &session.runs {
        if let Some(key) = record["session"].as_str() {
            let run = match key.rsplit_once(":t") {
                Some((run, tier)) if tier.parse::<u32>().is_ok() => run,
                _ => key,
            };
            *recorded.entry(format!("run:{run}")).or_default() += 1;
        }
    }
    let id = session.id.clone();
    // The owner's delete button for `part` (e.g. `/datasets/HASH`).
    let delete = move |part: String, what: String| {
        token.clone().map(|token| {
            view! { <DeleteButton id=id.clone() token part what error done=reload /> }
        })
    };
    let id = session.id.clone();
    let datasets = session
        .datasets
        .iter()
        .map(|d| {
            let remove = delete(format!("/datasets/{}", d.hash), format!("the dataset {}", d.name));
            view! {
                <tr data-hash=d.hash.clone()>
                    <td>{d.name.clone()}</td>
                    <td>{d.kind.as_str()}</td>
                    <td class="num">{d.rows.to_string()}</td>
                    <td class="num">{d.bytes.to_string()}</td>
                    <td><code>{d.hash.chars().take(19).collect::<String>()}"…"</code></td>
                    <td><a href=format!("/api/sessions/{id}/datasets/{}", d.hash) download=d.name.clone()>"download"</a></td>
                    <td>{remove}</td>
                </tr>
            }
        })
        .collect_view();
    let analyses = session
        .analyses
        .iter()
        .map(|a| {
            let kind = a.spec.analysis.name().replace('_', " ");
            let remove = delete(format!("/analyses/{}", a.id), format!("the analysis {}", a.title));
            view! {
                <li data-kind=a.spec.analysis.name()>
                    <a class="analysis-link" href=format!("/s/{id}/a/{}", a.id)>{a.title.clone()}</a>
                    <span class="hint">{format!(" — {kind} ")}</span>
                    {remove}
                </li>
            }
        })
        .collect_view();
    view! {
        <h2 id="session-title-shown">{session.title.clone()}</h2>
        <p class="hint">{format!("created {}", session.created_at)}</p>
        <h3>"Datasets"</h3>
        <table tabindex="0" class="ratings" id="datasets">
            <thead><tr><th>"Name"</th><th>"Kind"</th><th>"Rows"</th><th>"Bytes"</th><th>"Content hash"</th><th>"Actions"</th></tr></thead>
            <tbody>{datasets}</tbody>
        </table>
        <h3>"Judge runs"</h3>
        <p id="runs-finished" data-count=session.runs.len().to_string()>{match session.runs.len() {
            0 => "No run has finished yet.".to_owned(),
            1 => "1 run has finished: its record is in the session's export.".to_owned(),
            n => format!("{n} runs have finished: their records are in the session's export."),
        }}</p>
        <div id="runs">
            {session.streams.iter().map(|stream| {
                let run = stream.rsplit(':').next().unwrap_or_default();
                let remove = delete(format!("/runs/{run}"), "this judge run (its judgments and events)".to_owned());
                let records = recorded.get(stream).copied().unwrap_or_default();
                view! { <RunWatch stream=stream.clone() records on_end=run_ended /> {remove} }
            }).collect_view()}
        </div>
        <h3>"Analyses"</h3>
        <ul id="analyses">{analyses}</ul>
    }
}

/// The owner's button that deletes `part` of session `id` (`""` for the whole session) once
/// they confirm deleting `what`; then `done`.
#[component]
fn DeleteButton(
    id: String,
    token: String,
    part: String,
    #[prop(into)] what: String,
    error: RwSignal<Option<String>>,
    done: Callback<()>,
) -> impl IntoView {
    let question = format!("Delete {what}? Links to it will answer “gone”. This cannot be undone.");
    let data_part = part.clone();
    let click = move |_| {
        let confirmed = web_sys::window()
            .and_then(|w| w.confirm_with_message(&question).ok())
            .unwrap_or(false);
        if !confirmed {
            return;
        }
        let (id, token, part) = (id.clone(), token.clone(), part.clone());
        spawn_local(async move {
            match api::delete(&id, &token, &part).await {
                Ok(()) => {
                    error.set(None);
                    done.run(());
                }
                Err(message) => error.set(Some(message)),
            }
        });
    };
    view! { <button class="delete" data-part=data_part on:click=click>"Delete"</button> }
}

/// `/s/<id>/a/<analysis>`: a saved analysis, recomputed here from the session's datasets.
#[component]
pub fn AnalysisPage(id: String, analysis: String) -> impl IntoView {
    let loaded = RwSignal::new(None::<Result<(String, Spec, Vec<RoleFile>), String>>);
    {
        let (id, analysis) = (id.clone(), analysis.clone());
        spawn_local(async move {
            let outcome = async {
                let session = api::fetch_session(&id).await?;
                remember(&session.id, Some(session.title.clone()), None);
                let a = session
                    .analyses
                    .iter()
                    .find(|a| a.id == analysis)
                    .ok_or_else(|| {
                        format!("the session has no analysis {analysis}: its owner deleted it, or it never was")
                    })?
                    .clone();
                let mut files = Vec::new();
                for (role, input) in &a.spec.inputs {
                    let meta = session
                        .datasets
                        .iter()
                        .find(|d| d.hash == input.hash)
                        .ok_or_else(|| format!("the dataset of `{role}` is not in the session"))?;
                    let bytes = api::fetch_dataset(&id, meta).await?;
                    files.push(RoleFile::new(role.clone(), meta.name.clone(), bytes));
                }
                Ok::<_, String>((format!("{} — {}", session.title, a.title), a.spec, files))
            };
            loaded.set(Some(outcome.await));
        });
    }
    let share = format!("{}/s/{id}/a/{analysis}", origin());
    view! {
        <p><a id="back-to-session" href=format!("/s/{id}")>"← session"</a></p>
        <p class="share" hidden=move || !matches!(loaded.get(), Some(Ok(_)))><label>"Share (read-only): " <input id="analysis-share-url" type="text" readonly prop:value=share /></label></p>
        {move || match loaded.get() {
            None => view! { <p class="busy" role="status">"loading the analysis…"</p> }.into_any(),
            Some(Err(message)) => view! { <div id="analysis-error" class="error" role="alert">{message}</div> }.into_any(),
            Some(Ok((heading, spec, files))) => view! {
                <AnalysisView spec files heading note="Recomputed in this browser from the session's stored data, settings and seed." />
            }.into_any(),
        }}
    }
}

/// `/#share=…`: an analysis whose data came in the link, with the app's bundled examples it
/// names fetched from this origin ([`examples::fetch`]).
#[component]
pub fn SharedPage(fragment: String) -> impl IntoView {
    let opened = LocalResource::new(move || open_link(fragment.clone()));
    view! {
        <p><a href="/">"← home"</a></p>
        {move || match opened.get() {
            None => view! { <p class="busy" role="status">"opening the link…"</p> }.into_any(),
            Some(Ok((shared, bundled))) => shared_view(shared, &bundled),
            Some(Err(message)) => view! {
                <section id="leaderboard" class="card">
                    <div id="shared-error" class="error" role="alert">{message}</div>
                </section>
            }
            .into_any(),
        }}
    }
}

/// The analysis of a link, and the bundled examples it named.
async fn open_link(fragment: String) -> Result<(SharedAnalysis, Vec<BundledFile>), String> {
    let decoded = decode(&fragment).map_err(|e| e.to_string())?;
    let bundled = decoded.bundled.clone();
    let mut fetched = Vec::new();
    for file in &bundled {
        fetched.push((file.role.clone(), examples::fetch(&file.example).await?));
    }
    let shared = decoded.resolve(fetched).map_err(|e| e.to_string())?;
    Ok((shared, bundled))
}

/// A link's analysis recomputed, with where its files came from.
fn shared_view(shared: SharedAnalysis, bundled: &[BundledFile]) -> AnyView {
    let files: Vec<RoleFile> = shared
        .spec
        .inputs
        .keys()
        .filter_map(|role| {
            let input = shared.inputs.optional(role)?;
            Some(RoleFile::new(
                role.clone(),
                input.name.clone(),
                input.bytes.clone(),
            ))
        })
        .collect();
    let sizes = |from_example: bool| {
        files
            .iter()
            .filter(|f| bundled.iter().any(|b| b.role == f.role) == from_example)
            .map(|f| format!("{} ({} bytes)", f.name, f.bytes().len()))
            .collect::<Vec<_>>()
    };
    let mut note = match sizes(false) {
        carried if carried.is_empty() => String::new(),
        carried => format!(
            "{} came inside this link and was not sent to any server. ",
            carried.join(", ")
        ),
    };
    if !bundled.is_empty() {
        note.push_str(&format!(
            "{} is this app's bundled example, fetched from it and checked against the link's content hash. ",
            sizes(true).join(", ")
        ));
    }
    note.push_str("The analysis is recomputed here with the shared settings and seed.");
    let heading = format!("Shared {}", shared.spec.analysis.name().replace('_', " "));
    view! { <AnalysisView spec=shared.spec files heading note note_id="shared-note" /> }.into_any()
}
