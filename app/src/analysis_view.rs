//! Any analysis, recomputed here from its spec and files ([`AnalysisView`]), and the two ways an
//! analysis leaves the page ([`SaveAndShare`]): a link that carries its spec and data in the
//! fragment, or a saved analysis in a session this device owns (its files uploaded as the
//! session's datasets, then the spec). The saved analysis and the link open in
//! [`AnalysisView`] on another device with the same numbers: the same spec, the same bytes, the
//! same [`tribunal::analysis::run`].

use crate::api;
use crate::calibrate::CalibrationView;
use crate::files::data_url;
use crate::leaderboard::{BoardRun, BoardRunView, LeaderboardView, StudyView};
use crate::programs::ProgramsView;
use crate::reliability::{IrtTable, ReportView};
use crate::run_checks::CheckView;
use crate::session::{fragment_link, go, owned_sessions};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;
use tribunal::analysis::{Analysis, Spec};
use tribunal::judge_study::JudgeStudy;
use tribunal::leaderboard::Leaderboard;
use tribunal::session::DatasetKind;
use tribunal_app::stats_worker::{spawn_stats_worker, Content, Job, Reply, RoleFile, Upload};

/// A spec and its files, as a page last computed them.
#[derive(Debug, Clone, PartialEq)]
pub struct Computed {
    pub spec: Spec,
    pub files: Vec<RoleFile>,
}

/// `spec` recomputed on `files` in web workers, under `heading` and `note` (`note_id` names the
/// note's element).
#[component]
pub fn AnalysisView(
    spec: Spec,
    files: Vec<RoleFile>,
    #[prop(into)] heading: String,
    #[prop(into)] note: String,
    #[prop(default = "analysis-note")] note_id: &'static str,
) -> impl IntoView {
    let header = view! {
        <h2 id="analysis-title-shown">{heading}</h2>
        <p class="hint" id=note_id>{note}</p>
    };
    match &spec.analysis {
        Analysis::Leaderboard(board) => {
            let run = BoardRun::spawn();
            match files.iter().find(|f| f.role == "battles") {
                Some(RoleFile {
                    name,
                    content: Content::Text(text),
                    ..
                }) => run.fit(
                    Upload {
                        name: name.clone(),
                        text: text.clone(),
                    },
                    board.clone(),
                ),
                _ => run
                    .error
                    .set(Some("the battles file is missing or not text".to_owned())),
            }
            view! {
                <section id="leaderboard" class="card">
                    {header}
                    <BoardRunView run />
                </section>
            }
            .into_any()
        }
        _ => {
            let report = RwSignal::new(None::<Result<serde_json::Value, String>>);
            let worker = spawn_stats_worker(move |reply| {
                if let Reply::Analysed { result, .. } = reply {
                    report.set(Some(result));
                }
            });
            let analysis = spec.analysis.clone();
            let kind = analysis.name();
            worker.send(Job::Analyse {
                request: 0,
                spec: Box::new(spec),
                files,
            });
            // The worker lives as long as the view.
            let worker = StoredValue::new_local(worker);
            view! {
                <section id="analysis" class="card" data-kind=kind>
                    {header}
                    {move || {
                        worker.with_value(|_| ());
                        match report.get() {
                            None => view! { <p class="busy">"computing…"</p> }.into_any(),
                            Some(Err(message)) => view! { <div id="analysis-error" class="error" role="alert">{message}</div> }.into_any(),
                            Some(Ok(value)) => report_view(&analysis, value),
                        }
                    }}
                </section>
            }
            .into_any()
        }
    }
}

/// "Share as a link" and "Save to session" for what a page computed last (`computed`); the
/// elements' ids start with `prefix` (`{prefix}share-link`, `{prefix}share-url`,
/// `{prefix}save-session`, `{prefix}save-title`, `{prefix}save`).
#[component]
pub fn SaveAndShare(
    computed: RwSignal<Option<Computed>>,
    #[prop(into)] title: String,
    #[prop(default = "")] prefix: &'static str,
) -> impl IntoView {
    let link = RwSignal::new(None::<Result<String, String>>);
    let saving = RwSignal::new(None::<Result<String, String>>);
    let sessions = StoredValue::new(owned_sessions());
    let session =
        RwSignal::new(sessions.with_value(|s| s.first().map(|s| s.0.clone()).unwrap_or_default()));
    let title = RwSignal::new(title);
    // A new result makes the old link and save message stale.
    Effect::new(move |_| {
        computed.track();
        link.set(None);
        saving.set(None);
    });
    let share = move |_| {
        if let Some(c) = computed.get_untracked() {
            link.set(Some(fragment_link(&c.spec, &c.files)));
        }
    };
    let save = move |_| {
        let Some(c) = computed.get_untracked() else {
            return;
        };
        let id = session.get_untracked();
        let token = owned_sessions()
            .into_iter()
            .find(|s| s.0 == id)
            .map(|s| s.2);
        let Some(token) = token else {
            return saving.set(Some(Err(
                "start a session (Sessions, above) to save analyses in it".to_owned(),
            )));
        };
        let title = title.get_untracked();
        saving.set(Some(Ok("saving…".to_owned())));
        spawn_local(async move {
            let outcome = async {
                for file in &c.files {
                    let kind = DatasetKind::of_role(&c.spec.analysis, &file.role);
                    api::add_dataset(&id, &token, kind, &file.name, file.bytes()).await?;
                }
                api::add_analysis(&id, &token, &title, &c.spec).await
            };
            match outcome.await {
                Ok(saved) => go(&format!("/s/{id}/a/{}", saved.id)),
                Err(message) => saving.set(Some(Err(message))),
            }
        });
    };
    let options = move || {
        sessions.with_value(|list| {
            list.iter()
                .map(|(id, title, _)| {
                    let label = if title.is_empty() {
                        id.clone()
                    } else {
                        title.clone()
                    };
                    view! { <option value=id.clone()>{label}</option> }
                })
                .collect_view()
        })
    };
    let id = move |name: &str| format!("{prefix}{name}");
    view! {
        <Show when=move || computed.with(Option::is_some)>
            <p class="controls">
                <button id=id("share-link") on:click=share>"Share as a link (data in the link, not uploaded)"</button>
                <label>"Session "
                    <select id=id("save-session") on:change=move |ev| session.set(event_target_value(&ev))>{options}</select>
                </label>
                <label>"Title " <input id=id("save-title") type="text" prop:value=move || title.get()
                    on:change=move |ev| title.set(event_target_value(&ev)) /></label>
                <button id=id("save") on:click=save>"Save to session"</button>
            </p>
        </Show>
        {move || link.get().map(|l| match l {
            Ok(url) => view! { <p class="share">"Link: " <input id=id("share-url") type="text" readonly prop:value=url /></p> }.into_any(),
            Err(message) => view! { <div id=id("share-error") class="error" role="alert">{message}</div> }.into_any(),
        })}
        {move || saving.get().map(|s| match s {
            Ok(message) => view! { <p class="busy">{message}</p> }.into_any(),
            Err(message) => view! { <div id=id("save-error") class="error" role="alert">{message}</div> }.into_any(),
        })}
    }
}

/// The view of a report of `analysis` (the JSON its CLI subcommand prints), with the report
/// itself to download.
fn report_view(analysis: &Analysis, report: Value) -> AnyView {
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    let download = view! {
        <p><a id="analysis-download" download="report.json" href=data_url("application/json", &pretty)>
            "Download the report (JSON, as " <code>"tribunal stats run"</code> " prints it)"</a></p>
    };
    let body = match analysis {
        Analysis::Leaderboard(_) => {
            typed::<Leaderboard>(report, |lb| view! { <LeaderboardView lb /> }.into_any())
        }
        Analysis::JudgeStudy(_) => {
            typed::<JudgeStudy>(report, |study| view! { <StudyView study /> }.into_any())
        }
        Analysis::Agreement(_) => view! { <ReportView report /> }.into_any(),
        Analysis::Aa(_) | Analysis::Consistency(_) | Analysis::Position(_) => {
            view! { <CheckView report /> }.into_any()
        }
        Analysis::Irt(params) => {
            let cell = serde_json::json!({
                "rater": params.rater.clone().unwrap_or_else(|| "judge".to_owned()),
                "criterion": params.criterion,
                "report": report,
            });
            view! { <IrtTable cells=vec![cell] /> }.into_any()
        }
        Analysis::IrtTable(_) => {
            let cells = report["cells"].as_array().cloned().unwrap_or_default();
            view! { <IrtTable cells /> }.into_any()
        }
        Analysis::Calibration(_) => {
            let model = serde_json::to_string_pretty(&report["model"]).unwrap_or_default();
            view! { <CalibrationView report model /> }.into_any()
        }
        Analysis::Programs(_) => view! { <ProgramsView report /> }.into_any(),
        Analysis::Conformal(_)
        | Analysis::Power(_)
        | Analysis::LabelModel(_)
        | Analysis::Routing(_) => {
            view! { <pre id="analysis-json" class="report">{pretty.clone()}</pre> }.into_any()
        }
    };
    view! { {download} {body} }.into_any()
}

/// `report` read as `T` and shown by `show`, or why it could not be read.
fn typed<T: serde::de::DeserializeOwned>(report: Value, show: impl Fn(T) -> AnyView) -> AnyView {
    match serde_json::from_value::<T>(report) {
        Ok(value) => show(value),
        Err(e) => view! { <div id="analysis-error" class="error" role="alert">{format!("the report could not be read: {e}")}</div> }.into_any(),
    }
}
