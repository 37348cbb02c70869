//! Any analysis, recomputed here from its spec and files: a saved analysis of a session or a
//! shared link's ([`AnalysisView`]), shown with the view of its kind's page. The same spec, the
//! same bytes, the same path as the page that made it ([`AnalysisRun`]: a leaderboard's
//! bootstrap and a calibration's folds shared across two workers, with their progress): the
//! numbers of that page, and of `tribunal stats run`.

use crate::calibrate::CalibrationView;
use crate::cascade_view::CascadeView;
use crate::compare_view::CompareView;
use crate::files::data_url;
use crate::leaderboard::{LeaderboardView, StudyView};
use crate::plain_reports::{
    ConformalView, JudgeValueView, LengthControlView, PowerView, PpiView, SelfPreferenceView,
    StyleView, TransitivityView,
};
use crate::programs::{CommitteeView, ProgramsView};
use crate::reliability::{IrtTable, ReportView};
use crate::run_checks::CheckView;
use crate::worker_pool::AnalysisRun;
use crate::worker_pool::Computed;
use leptos::prelude::*;
use tribunal::analysis::{Analysis, Report, Spec};
use tribunal::reliability::irt::irt_report::IrtCell;
use tribunal_app::stats_worker::RoleFile;

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
    let analysis = spec.analysis.clone();
    let kind = analysis.name();
    let run = AnalysisRun::spawn(WORKERS);
    run.run(Computed { spec, files });
    view! {
        <section id="analysis" class="card" data-kind=kind>
            {header}
            <RunProgress run kind />
            {move || match (run.error.get(), run.report.get()) {
                (Some(message), _) => view! { <div id="analysis-error" class="error" role="alert">{message}</div> }.into_any(),
                (None, Some(report)) => report_view(&analysis, report),
                (None, None) => view! { <p class="busy" role="status">"computing…"</p> }.into_any(),
            }}
        </section>
    }
}

/// How many workers share a saved analysis's parts (a leaderboard's bootstrap rounds, a
/// calibration's folds).
const WORKERS: usize = 2;

/// The parts of a run of `kind` done, while they compute.
#[component]
fn RunProgress(run: AnalysisRun, kind: &'static str) -> impl IntoView {
    let (id, what, parts) = match kind {
        "leaderboard" => ("bootstrap-progress", "bootstrap", "rounds"),
        "calibration" => ("cv-progress", "cross-validation", "folds"),
        _ => ("analysis-progress", "computing", "parts"),
    };
    move || {
        run.progress.get().map(|(done, total)| {
            view! {
                <p class="busy" role="status" id=id>
                    <progress max=total value=done></progress>
                    {format!(" {what} {done} / {total} {parts}")}
                </p>
            }
        })
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
        Report::Calibration(report) => view! { <CalibrationView report=*report /> }.into_any(),
        Report::Power(table) => view! { <PowerView table=*table /> }.into_any(),
        Report::Ppi(report) => view! { <PpiView report=*report /> }.into_any(),
        Report::JudgeValue(report) => view! { <JudgeValueView report=*report /> }.into_any(),
        Report::Style(report) => view! { <StyleView report=*report /> }.into_any(),
        Report::LengthControl(report) => view! { <LengthControlView report=*report /> }.into_any(),
        Report::Compare(report) => view! { <CompareView report=*report /> }.into_any(),
        Report::Cascade(report) => view! { <CascadeView report=*report /> }.into_any(),
        Report::Transitivity(report) => view! { <TransitivityView report=*report /> }.into_any(),
        Report::SelfPreference(report) => {
            view! { <SelfPreferenceView report=*report /> }.into_any()
        }
        Report::Programs(report) => view! { <ProgramsView report=*report /> }.into_any(),
        Report::LabelModel(committee) | Report::Routing(committee) => {
            view! { <CommitteeView committee=*committee /> }.into_any()
        }
        Report::Leaderboard(lb) => {
            view! { <div id="leaderboard"><LeaderboardView lb=*lb /></div> }.into_any()
        }
    };
    view! { {download} {body} }.into_any()
}
