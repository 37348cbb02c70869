//! The leaderboard page: pick a battles CSV, fit Bradley–Terry on this device, show the table
//! and chart. A malformed file shows the located error and keeps the previous leaderboard.

use crate::charts::EloChart;
use gloo_file::futures::read_as_bytes;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::battles::parse_battles;
use tribunal::bradley_terry::BradleyTerryParams;
use tribunal::leaderboard::{bradley_terry_leaderboard, Leaderboard};
use web_sys::HtmlInputElement;

#[component]
pub fn LeaderboardPage() -> impl IntoView {
    let board = RwSignal::new(None::<Leaderboard>);
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);

    let on_change = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|files| files.get(0)) else {
            return;
        };
        let file = gloo_file::File::from(file);
        busy.set(true);
        spawn_local(async move {
            let name = file.name();
            let outcome = match read_as_bytes(&file).await {
                Ok(bytes) => parse_battles(&name, &bytes)
                    .and_then(|b| {
                        bradley_terry_leaderboard(&name, &b, &BradleyTerryParams::default())
                    })
                    .map_err(|e| e.to_string()),
                Err(e) => Err(format!("{name}: the file could not be read: {e}")),
            };
            match outcome {
                Ok(lb) => {
                    board.set(Some(lb));
                    error.set(None);
                }
                Err(message) => error.set(Some(message)),
            }
            busy.set(false);
        });
    };

    view! {
        <section id="leaderboard" class="card">
            <h2>"Leaderboard"</h2>
            <p class="hint">
                "Pick a battles CSV (" <code>"model_a,model_b,winner"</code> " or LLMFAO's "
                <code>"left,right,winner"</code>
                "). The Bradley–Terry fit runs in this browser; the file is not uploaded anywhere."
            </p>
            <label class="file">
                "Battles CSV "
                <input id="csv-input" type="file" accept=".csv,text/csv" on:change=on_change />
            </label>
            <Show when=move || busy.get()>
                <p class="busy">"Fitting…"</p>
            </Show>
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
