//! The Tribunal browser app. Statistics come from the `tribunal` crate compiled to WASM; this
//! crate only reads files, talks to the worker and renders.

mod analysis_view;
mod api;
mod bundled_judge;
mod calibrate;
mod cascade_view;
mod charts;
mod compare_page;
mod compare_view;
mod device;
mod examples;
mod fields;
mod files;
mod format;
mod glossary;
mod home;
mod judge_runs;
mod kind_page;
mod kind_pages;
mod leaderboard;
mod live;
mod new_analysis;
mod plain_reports;
mod programs;
mod reliability;
mod routes;
mod run_checks;
mod runs;
mod save_share;
mod session;
mod worker_pool;

use leptos::prelude::*;
use routes::{Route, Task};

fn main() {
    console_error_panic_hook::set_once();
    // index.html's loading sign has done its work.
    if let Some(sign) = leptos::prelude::document().get_element_by_id("loading") {
        sign.remove();
    }
    leptos::mount::mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    let route = routes::route();
    let session = match &route {
        Route::Session(id) | Route::Analysis(id, _) => Some(id.clone()),
        Route::Home | Route::Task(_) | Route::Shared(_) | Route::NotFound(_) => None,
    };
    view! {
        <a class="skip" href="#content">"Skip to content"</a>
        <header class="top">
            <h1><a href="/">"Tribunal"</a></h1>
            <p class="tagline">"LLM judges as honest measurement instruments"</p>
        </header>
        <nav class="top" aria-label="Tasks">
            <a href="/">"Home"</a>
            {session.map(|id| view! { <a id="nav-session" href=format!("/s/{id}")>"This session"</a> })}
            {Task::ALL
                .into_iter()
                .map(|task| view! { <a id=format!("nav-{}", task.path()) href=format!("/{}", task.path())>{task.title()}</a> })
                .collect_view()}
            <a href="/#sessions">"Sessions"</a>
        </nav>
        <main id="content">
            {match route {
                Route::Home => view! { <home::HomePage /> }.into_any(),
                Route::Task(task) => task_page(task),
                Route::Shared(fragment) => view! { <session::SharedPage fragment /> }.into_any(),
                Route::Session(id) => view! { <session::SessionPage id /> }.into_any(),
                Route::Analysis(id, analysis) => {
                    view! { <session::AnalysisPage id analysis /> }.into_any()
                }
                Route::NotFound(path) => view! { <home::NotFoundPage path /> }.into_any(),
            }}
        </main>
    }
}

/// A task page's cards, under the task's name as the document's title.
fn task_page(task: Task) -> AnyView {
    document().set_title(&format!("{} · Tribunal", task.title()));
    match task {
        Task::Leaderboard => view! { <leaderboard::LeaderboardPage /> }.into_any(),
        Task::Style => view! { <kind_pages::StylePage /> }.into_any(),
        Task::LengthControl => view! { <kind_pages::LengthControlPage /> }.into_any(),
        Task::Compare => view! { <compare_page::ComparePage /> }.into_any(),
        Task::Power => view! { <kind_pages::PowerPage /> }.into_any(),
        Task::Judge => view! { <leaderboard::StudyPage /> }.into_any(),
        Task::Ppi => view! { <kind_pages::PpiPage /> }.into_any(),
        Task::JudgeValue => view! { <kind_pages::JudgeValuePage /> }.into_any(),
        Task::SelfPreference => view! { <kind_pages::SelfPreferencePage /> }.into_any(),
        Task::Transitivity => view! { <kind_pages::TransitivityPage /> }.into_any(),
        Task::Cascade => view! { <kind_pages::CascadePage /> }.into_any(),
        Task::Reliability => view! {
            <reliability::ReliabilityPage />
            <run_checks::RunChecksCard />
        }
        .into_any(),
        Task::Calibrate => view! { <calibrate::CalibratePage /> }.into_any(),
        Task::Programs => view! { <programs::ProgramsPage /> }.into_any(),
        Task::Runs => view! { <judge_runs::RunsPage /> }.into_any(),
        Task::Live => view! { <live::LivePanel /> }.into_any(),
        Task::Glossary => view! { <glossary::GlossaryPage /> }.into_any(),
    }
}
