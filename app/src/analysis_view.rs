//! Any analysis, recomputed here from its spec and files: a saved analysis of a session or a
//! shared link's ([`AnalysisView`]), shown with the view of its kind's page. The same spec, the
//! same bytes, the same [`tribunal::analysis::run`]: the numbers of the page that made it.

use crate::calibrate::CalibrationView;
use crate::compare_view::CompareView;
use crate::files::data_url;
use crate::leaderboard::{BoardRun, BoardRunView, StudyView};
use crate::plain_reports::{
    ConformalView, JudgeValueView, LengthControlView, PowerView, PpiView, SelfPreferenceView,
    StyleView,
};
use crate::programs::{CommitteeView, ProgramsView};
use crate::reliability::{IrtTable, ReportView};
use crate::run_checks::CheckView;
use crate::worker_pool::AnalysisRun;
use crate::worker_pool::Computed;
use leptos::prelude::*;
use tribunal::analysis::{Analysis, Report, Spec};
use tribunal::reliability::irt::irt_report::IrtCell;
use tribunal_app::stats_worker::{Content, RoleFile, Upload};

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
            let analysis = spec.analysis.clone();
            let kind = analysis.name();
            let run = AnalysisRun::spawn();
            run.run(Computed { spec, files });
            view! {
                <section id="analysis" class="card" data-kind=kind>
                    {header}
                    {move || match (run.error.get(), run.report.get()) {
                        (Some(message), _) => view! { <div id="analysis-error" class="error" role="alert">{message}</div> }.into_any(),
                        (None, Some(report)) => report_view(&analysis, report),
                        (None, None) => view! { <p class="busy" role="status">"computing…"</p> }.into_any(),
                    }}
                </section>
            }
            .into_any()
        }
    }
}

/// The view of a report of `analysis`, with the report itself to download (the JSON document
/// its CLI subcommand prints, less the `record`).
pub(crate) fn report_view(analysis: &Analysis, report: Report) -> AnyView {
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    let download = view! {
        <p><a id="analysis-download" download="report.json" href=data_url("application/json", &pretty)>
            "Download the report (JSON, as " <code>"tribunal stats run"</code> " prints it)"</a></p>
    };
    let body = match report {
        Report::JudgeStudy(study) => view! { <StudyView study=*study /> }.into_any(),
        Report::Conformal(report) => view! { <ConformalView report=*report /> }.into_any(),
        Report::Agreement(report) => view! { <ReportView report=*report /> }.into_any(),
        report @ (Report::Aa(_) | Report::Consistency(_) | Report::Position(_)) => {
            view! { <CheckView report /> }.into_any()
        }
        Report::Irt(report) => {
            let (rater, criterion) = match analysis {
                Analysis::Irt(params) => (params.rater.clone(), params.criterion.clone()),
                _ => (None, None),
            };
            let cell = IrtCell {
                rater: rater.unwrap_or_else(|| "judge".to_owned()),
                criterion,
                report: Some(*report),
                error: None,
            };
            view! { <IrtTable cells=vec![cell] /> }.into_any()
        }
        Report::IrtTable(table) => view! { <IrtTable cells=table.cells /> }.into_any(),
        Report::Calibration(report) => {
            let model = report.calibration.model.to_json().unwrap_or_default();
            view! { <CalibrationView calibration=report.calibration model /> }.into_any()
        }
        Report::Power(table) => view! { <PowerView table=*table /> }.into_any(),
        Report::Ppi(report) => view! { <PpiView report=*report /> }.into_any(),
        Report::JudgeValue(report) => view! { <JudgeValueView report=*report /> }.into_any(),
        Report::Style(report) => view! { <StyleView report=*report /> }.into_any(),
        Report::LengthControl(report) => view! { <LengthControlView report=*report /> }.into_any(),
        Report::Compare(report) => view! { <CompareView report=*report /> }.into_any(),
        Report::SelfPreference(report) => {
            view! { <SelfPreferenceView report=*report /> }.into_any()
        }
        Report::Programs(report) => view! { <ProgramsView report=*report /> }.into_any(),
        Report::LabelModel(committee) | Report::Routing(committee) => {
            view! { <CommitteeView committee=*committee /> }.into_any()
        }
        // A leaderboard is fitted by `BoardRun` (its bootstrap split across workers), never here.
        Report::Leaderboard(_) => {
            view! { <pre id="analysis-json" class="report">{pretty.clone()}</pre> }.into_any()
        }
    };
    view! { {download} {body} }.into_any()
}
