//! Any analysis, recomputed here from its spec and files: a saved analysis of a session or a
//! shared link's ([`AnalysisView`]), shown with the view of its kind's page. The same spec, the
//! same bytes, the same path as the page that made it ([`AnalysisRun`]: a leaderboard's
//! bootstrap and a calibration's folds shared across two workers, with their progress): the
//! numbers of that page, and of `tribunal stats run`.

use crate::files::data_url;
use crate::worker_pool::AnalysisRun;
use crate::worker_pool::Computed;
use leptos::prelude::*;
use tribunal::analysis::{Analysis, Report, Spec};
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
    let body = kind_view(analysis, report);
    view! { {download} {body} }.into_any()
}

/// A report's view: one implementation per report type, beside the component that shows it
/// (the components of the kinds without a page of their own are in `plain_reports.rs`).
/// Every kind of the registry gets its arm in [`report_view`] from this (`every_kind!`): a kind
/// whose report has no view does not compile.
pub(crate) trait KindView {
    /// The view of `self`, the report of `analysis`.
    fn view(self, analysis: &Analysis) -> AnyView;
}

/// `kind_view`: each kind's report shown by its [`KindView`].
macro_rules! kind_views {
    ($($(#[$doc:meta])* $variant:ident = $name:literal : $kind:ty,)+) => {
        fn kind_view(analysis: &Analysis, report: Report) -> AnyView {
            match report {
                $(Report::$variant(report) => KindView::view(*report, analysis),)+
            }
        }
    };
}
tribunal::every_kind!(kind_views);
