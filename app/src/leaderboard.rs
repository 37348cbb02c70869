//! The leaderboard page: pick a battles CSV, fit Bradley–Terry on this device, show the table
//! and chart. A malformed file shows the located error and keeps the previous leaderboard.

use crate::charts::EloChart;
use gloo_file::futures::read_as_bytes;
use gloo_worker::Spawnable;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::bradley_terry::BradleyTerryParams;
use tribunal::leaderboard::Leaderboard;
use tribunal_app::stats_worker::{Job, Reply, StatsWorker, WORKER_PATH};
use web_sys::HtmlInputElement;

#[component]
pub fn LeaderboardPage() -> impl IntoView {
    let board = RwSignal::new(None::<Leaderboard>);
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(None::<String>);
    let worker = StoredValue::new_local(
        StatsWorker::spawner()
            .callback(move |reply| match reply {
                Reply::Progress { stage } => busy.set(Some(stage)),
                Reply::Leaderboard(result) => {
                    match result {
                        Ok(lb) => {
                            board.set(Some(lb));
                            error.set(None);
                        }
                        Err(message) => error.set(Some(message)),
                    }
                    busy.set(None);
                }
            })
            .spawn(WORKER_PATH),
    );

    let on_change = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|files| files.get(0)) else {
            return;
        };
        let file = gloo_file::File::from(file);
        busy.set(Some("reading the file".to_owned()));
        spawn_local(async move {
            let source = file.name();
            match read_as_bytes(&file).await {
                Ok(bytes) => worker.with_value(|w| {
                    w.send(Job::Leaderboard {
                        source,
                        bytes,
                        params: BradleyTerryParams::default(),
                    })
                }),
                Err(e) => {
                    error.set(Some(format!("{source}: the file could not be read: {e}")));
                    busy.set(None);
                }
            }
        });
    };

    view! {
        <section id="leaderboard" class="card">
            <h2>"Leaderboard"</h2>
            <p class="hint">
                "Pick a battles CSV (" <code>"model_a,model_b,winner"</code> " or LLMFAO's "
                <code>"left,right,winner"</code>
                "). The Bradley–Terry fit runs in this browser, in a web worker; the file is not uploaded anywhere."
            </p>
            <label class="file">
                "Battles CSV "
                <input id="csv-input" type="file" accept=".csv,text/csv" on:change=on_change />
            </label>
            {move || busy.get().map(|stage| view! { <p class="busy">{stage} "…"</p> })}
            {move || {
                error
                    .get()
                    .map(|message| {
                        view! {
                            <div id="error" class="error" role="alert">
                                {message}
                            </div>
                        }
                    })
            }}
            {move || board.get().map(|lb| view! { <LeaderboardView lb /> })}
        </section>
    }
}

/// A fitted leaderboard: summary line, table and chart.
#[component]
pub fn LeaderboardView(lb: Leaderboard) -> impl IntoView {
    let summary = format!(
        "{} · {} battles ({} ties) · {} models · λ = {} · {} Newton iterations{}",
        lb.source,
        lb.n_battles,
        lb.n_ties,
        lb.n_models,
        lb.settings.lambda,
        lb.iterations,
        if lb.converged { "" } else { " (not converged)" }
    );
    let warnings = lb.warnings.clone();
    let rows = lb
        .ratings
        .iter()
        .map(|r| {
            view! {
                <tr data-model=r.model.clone() data-elo=r.elo.to_string()>
                    <td class="num">{r.rank}</td>
                    <td>{r.model.clone()}</td>
                    <td class="num">{format!("{:.1}", r.elo)}</td>
                    <td class="num">{r.battles}</td>
                    <td class="num">{format!("{:.1}", r.score)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p class="summary">{summary}</p>
        {warnings.into_iter().map(|w| view! { <p class="warning">{w}</p> }).collect_view()}
        <div class="board">
            <table class="ratings">
                <thead>
                    <tr>
                        <th>"Rank"</th>
                        <th>"Model"</th>
                        <th>"Elo"</th>
                        <th>"Battles"</th>
                        <th>"Score"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            <EloChart ratings=lb.ratings />
        </div>
    }
}
