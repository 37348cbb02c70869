//! The home page. It says in three lines what Tribunal is for and
//! offers the four jobs — publish a leaderboard with intervals, compare systems on scored
//! answers, check a judge against humans, calibrate or audit a judge — each with links to its task pages, plain and with the bundled
//! example (`?example`, see [`crate::examples`]); then what the bundled judge is for
//! ([`crate::bundled_judge`]) and the sessions on this device. Also the page of a path that is
//! no page ([`NotFoundPage`]).

use crate::bundled_judge::BundledJudgeNote;
use crate::routes::Task;
use crate::session::SessionsCard;
use leptos::prelude::*;

#[component]
pub fn HomePage() -> impl IntoView {
    view! {
        <section id="about" class="card">
            <h2>"What Tribunal is for"</h2>
            <p>"An LLM judge is a measuring instrument: Tribunal runs one over your data, checks it against a few hundred human labels, and publishes leaderboards whose intervals you can defend."</p>
            <p>"Every number is computed in this browser; your files stay on this device unless you save them to a session."</p>
            <p>"A saved session is a link: whoever opens it recomputes the same numbers from the same data, settings and seeds."</p>
        </section>
        <div class="jobs">
            <Job id="job-leaderboard" title="Publish a leaderboard with intervals"
                what="Ratings of models from pairwise battles (human votes or a judge's verdicts), with bootstrap intervals and the ranks they allow."
                tasks=vec![(Task::Leaderboard, "Leaderboard with intervals"), (Task::Style, "Leaderboard with style held fixed"), (Task::LengthControl, "Win rates with length controlled")] />
            <Job id="job-compare" title="Compare systems on scored answers"
                what="Which system scores higher per rubric criterion, by how much, on which kinds of items, and how sure — from pass/fail or graded scores of each system's answers."
                tasks=vec![(Task::Compare, "Compare systems with paired intervals"), (Task::Power, "How many items a comparison needs")] />
            <Job id="job-judge" title="Check a judge against humans"
                what="How far a judge's leaderboard is from the humans' on models it has not seen, and how often it agrees with them item by item."
                tasks=vec![(Task::Runs, "Run a judge over your items"), (Task::Judge, "Judge's leaderboard vs the humans'"), (Task::Reliability, "Agreement with humans (κ, α)"), (Task::Ppi, "A leaderboard from the judge and a few human labels"), (Task::JudgeValue, "What the judge is worth"), (Task::SelfPreference, "Does the judge favour its own family?"), (Task::Transitivity, "Do the judge's verdicts go in circles?"), (Task::Cascade, "Trust the judge only where it is reliable")] />
            <Job id="job-audit" title="Calibrate or audit a judge"
                what="Fit a small correction of the judge to human labels, or test cheap judging programs and the judge's biases."
                tasks=vec![(Task::Calibrate, "Calibrate a judge to human labels"), (Task::Programs, "Judging programs and bias probes")] />
        </div>
        <section id="which-judge" class="card">
            <h2>"Which judge?"</h2>
            <BundledJudgeNote />
        </section>
        <SessionsCard />
    }
}

/// One job: what it answers, and for each of its task pages a plain link and an example link.
#[component]
fn Job(
    id: &'static str,
    title: &'static str,
    what: &'static str,
    tasks: Vec<(Task, &'static str)>,
) -> impl IntoView {
    view! {
        <section id=id class="card job">
            <h2>{title}</h2>
            <p class="hint">{what}</p>
            <ul>
                {tasks
                    .into_iter()
                    .map(|(task, label)| view! {
                        <li>
                            <a href=format!("/{}", task.path())>{label}</a>
                            " · "
                            <a class="try" id=format!("try-{}", task.path()) href=format!("/{}?example", task.path())>"try it on an example"</a>
                        </li>
                    })
                    .collect_view()}
            </ul>
        </section>
    }
}

/// A path that is no page: said plainly, with the pages that exist.
#[component]
pub fn NotFoundPage(path: String) -> impl IntoView {
    document().set_title("Not found · Tribunal");
    view! {
        <section id="not-found" class="card">
            <h2>"Page not found"</h2>
            <p>{format!("Tribunal has no page at {path}. The pages it has:")}</p>
            <ul>
                <li><a href="/">"Home"</a></li>
                {Task::ALL
                    .into_iter()
                    .map(|task| view! { <li><a href=format!("/{}", task.path())>{task.title()}</a></li> })
                    .collect_view()}
                <li><a href="/#sessions">"The sessions on this device"</a></li>
            </ul>
        </section>
    }
}
