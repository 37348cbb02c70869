//! SVG charts.

use leptos::prelude::*;
use tribunal::leaderboard::RatingRow;

const WIDTH: f64 = 500.0;
const ROW: f64 = 16.0;
const LABEL: f64 = 215.0;
const PAD: f64 = 24.0;

/// A dot plot of Elo ratings, one row per model in leaderboard order, with a line at 1500.
#[component]
pub fn EloChart(ratings: Vec<RatingRow>) -> impl IntoView {
    let (lo, hi) = ratings
        .iter()
        .fold((1500.0_f64, 1500.0_f64), |(lo, hi), r| {
            (lo.min(r.elo), hi.max(r.elo))
        });
    let span = (hi - lo).max(1.0);
    let x = move |elo: f64| LABEL + (elo - lo) / span * (WIDTH - LABEL - PAD);
    let height = ROW * ratings.len() as f64 + 2.0 * PAD;
    let axis = x(1500.0);
    let dots = ratings
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let y = PAD + ROW * (i as f64 + 0.5);
            view! {
                <text x=LABEL - 8.0 y=y + 4.0 text-anchor="end" class="label">
                    {r.model.clone()}
                </text>
                <line x1=LABEL x2=x(r.elo) y1=y y2=y class="stem" />
                <circle cx=x(r.elo) cy=y r="4" class="dot" />
            }
        })
        .collect_view();
    view! {
        <svg
            class="chart"
            role="img"
            aria-label="Elo ratings"
            viewBox=format!("0 0 {WIDTH} {height}")
            width=WIDTH
            height=height
        >
            <line x1=axis x2=axis y1=PAD / 2.0 y2=height - PAD / 2.0 class="axis" />
            <text x=axis y=PAD / 2.0 text-anchor="middle" class="tick">
                "1500"
            </text>
            <text x=LABEL y=height - 4.0 class="tick">
                {format!("{lo:.0}")}
            </text>
            <text x=WIDTH - PAD y=height - 4.0 text-anchor="end" class="tick">
                {format!("{hi:.0}")}
            </text>
            {dots}
        </svg>
    }
}
