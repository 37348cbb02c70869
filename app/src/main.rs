//! The Tribunal browser app. Statistics come from the `tribunal` crate compiled to WASM; this
//! crate only reads files, talks to the worker and renders.

mod analysis_view;
mod api;
mod calibrate;
mod charts;
mod device;
mod fields;
mod files;
mod format;
mod leaderboard;
mod live;
mod new_analysis;
mod plain_reports;
mod programs;
mod reliability;
mod run_checks;
mod runs;
mod save_share;
mod session;
mod worker_pool;

use leptos::prelude::*;
use session::Route;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    let route = session::route();
    let session = match &route {
        Route::Session(id) | Route::Analysis(id, _) => Some(id.clone()),
        Route::Home | Route::Shared(_) => None,
    };
    view! {
        <header class="top">
            <h1>"Tribunal"</h1>
            <p class="tagline">"LLM judges as honest measurement instruments"</p>
        </header>
        <nav class="top">
            <a href="/">"Home"</a>
            {session.map(|id| view! { <a id="nav-session" href=format!("/s/{id}")>"This session"</a> })}
            <a href="/#sessions">"Sessions"</a>
            <a href="/#leaderboard">"Leaderboard"</a>
            <a href="/#reliability">"Reliability"</a>
            <a href="/#calibrate">"Calibrate"</a>
            <a href="/#programs">"Programs"</a>
        </nav>
        <main>
            {match route {
                Route::Home => view! {
                    <session::SessionsCard />
                    <leaderboard::LeaderboardPage />
                    <reliability::ReliabilityPage />
                    <run_checks::RunChecksCard />
                    <calibrate::CalibratePage />
                    <programs::ProgramsPage />
                    <live::LivePanel />
                }
                .into_any(),
                Route::Shared(fragment) => view! { <session::SharedPage fragment /> }.into_any(),
                Route::Session(id) => view! { <session::SessionPage id /> }.into_any(),
                Route::Analysis(id, analysis) => {
                    view! { <session::AnalysisPage id analysis /> }.into_any()
                }
            }}
        </main>
    }
}
