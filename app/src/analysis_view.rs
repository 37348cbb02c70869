//! Any analysis, recomputed here from its spec and files: a saved analysis of a session or a
//! shared link's ([`AnalysisView`]), shown with the view of its kind's page. The same spec, the
//! same bytes, the same [`tribunal::analysis::run`]: the numbers of the page that made it.

use crate::calibrate::CalibrationView;
use crate::files::data_url;
use crate::leaderboard::{BoardRun, BoardRunView, StudyView};
use crate::programs::ProgramsView;
use crate::reliability::{IrtTable, ReportView};
use crate::run_checks::CheckView;
use leptos::prelude::*;
use serde_json::Value;
use tribunal::analysis::{Analysis, Spec};
use tribunal::rankings::judge_study::JudgeStudy;
use tribunal_app::stats_worker::{spawn_stats_worker, Content, Job, Reply, RoleFile, Upload};

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

/// The view of a report of `analysis` (the JSON its CLI subcommand prints), with the report
/// itself to download.
fn report_view(analysis: &Analysis, report: Value) -> AnyView {
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    let download = view! {
        <p><a id="analysis-download" download="report.json" href=data_url("application/json", &pretty)>
            "Download the report (JSON, as " <code>"tribunal stats run"</code> " prints it)"</a></p>
    };
    let body = match analysis {
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
        // A leaderboard is fitted by `BoardRun` (its bootstrap split across workers), never here.
        Analysis::Leaderboard(_)
        | Analysis::Conformal(_)
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
