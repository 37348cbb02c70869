//! The Tribunal browser app. Statistics come from the `tribunal` crate compiled to WASM; this
//! crate only reads files, talks to the worker and renders.

mod calibrate;
mod charts;
mod fields;
mod files;
mod format;
mod leaderboard;
mod live;
mod programs;
mod reliability;
mod run_checks;

use leptos::prelude::*;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    view! {
        <header class="top">
            <h1>"Tribunal"</h1>
            <p class="tagline">"LLM judges as honest measurement instruments"</p>
        </header>
        <main>
            <leaderboard::LeaderboardPage />
            <reliability::ReliabilityPage />
            <run_checks::RunChecksCard />
            <calibrate::CalibratePage />
            <programs::ProgramsPage />
            <live::LivePanel />
        </main>
    }
}
