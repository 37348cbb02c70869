//! Views of the analyses that have no page of their own — made by `tribunal stats` or the
//! session API and opened by URL: the conformal part of a judge study, a power table, the
//! prediction-powered report, and the label model or routing of a votes file (the committee
//! view of the Programs page). Cells
//! carry full-precision values in data attributes, as on the pages.

use crate::charts::{ForestPlot, ForestRow};
use crate::format::fixed;
use leptos::prelude::*;
use tribunal::analysis::{ConformalReport, PowerTable};
use tribunal::ppi::ppi_mean::Estimate;
use tribunal::ppi::ppi_report::PpiReport;
use tribunal::reliability::power::Effect;

/// Per held-out target kind: the judge's held-out error and its split-conformal intervals'
/// coverage, width and leave-one-out coverage.
#[component]
pub(crate) fn ConformalView(report: ConformalReport) -> impl IntoView {
    let rows = report
        .runs
        .iter()
        .map(|run| {
            let c = run.conformal.as_ref();
            let coverage = c.map_or(f64::NAN, |c| c.evaluation.coverage);
            let width = c.map_or(f64::NAN, |c| c.evaluation.median_width);
            let loo = c.map_or(f64::NAN, |c| c.leave_one_out_coverage);
            view! {
                <tr data-target=run.target.clone() data-mae=run.held_out_mae.to_string()
                    data-coverage=coverage.to_string() data-width=width.to_string() data-loo=loo.to_string()>
                    <td>{run.target.clone()}</td>
                    <td class="num">{fixed(run.held_out_mae, 1)}</td>
                    <td class="num">{run.held_out_spearman.map_or("—".to_owned(), |r| fixed(r, 3))}</td>
                    <td class="num">{fixed(coverage, 3)}</td>
                    <td class="num">{fixed(width, 1)}</td>
                    <td class="num">{fixed(loo, 3)}</td>
                </tr>
            }
        })
        .collect_view();
    let notes = notes_view(&report.warnings, &report.notes);
    view! {
        <p class="summary" id="conformal-summary">{format!(
            "{} · {} models · {} judge verdicts · {} human battles · α = {}",
            report.source, report.n_models, report.n_judge_verdicts, report.n_human_battles,
            report.settings.conformal.alpha
        )}</p>
        {notes}
        <table class="ratings" id="conformal-table">
            <thead>
                <tr><th>"Targets"</th><th>"Held-out MAE"</th><th>"Spearman ρ"</th><th>"Conformal coverage"</th><th>"Median width"</th><th>"LOO coverage"</th></tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// The items each group needs to detect each effect at each power.
#[component]
pub(crate) fn PowerView(table: PowerTable) -> impl IntoView {
    let rows = table
        .rows
        .iter()
        .map(|row| {
            let effect = match row.effect {
                Effect::Proportions { p1, p2 } => format!("pass rates {p1} vs {p2}"),
                Effect::Means { mean1, mean2, sd } => format!("means {mean1} vs {mean2} (sd {sd})"),
                Effect::Standardized { effect_size } => format!("effect size {effect_size}"),
            };
            let s = &row.settings;
            view! {
                <tr data-effect-size=row.effect_size.to_string() data-power=s.power.to_string()
                    data-n1=row.n1.to_string() data-n2=row.n2.to_string()
                    data-achieved=row.achieved_power.to_string()>
                    <td>{effect}</td>
                    <td class="num">{fixed(row.effect_size, 4)}</td>
                    <td class="num">{s.alpha}</td>
                    <td class="num">{s.power}</td>
                    <td class="num">{row.n1}</td>
                    <td class="num">{row.n2}</td>
                    <td class="num">{row.total}</td>
                    <td class="num">{fixed(row.achieved_power, 4)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="ratings" id="power-table">
            <thead>
                <tr><th>"Effect"</th><th>"Standardised"</th><th>"α"</th><th>"Power"</th><th>"n₁"</th><th>"n₂"</th><th>"Total"</th><th>"Achieved power"</th></tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// A report's warnings, then its notes, one paragraph each.
fn notes_view(warnings: &[String], notes: &[String]) -> impl IntoView {
    warnings
        .iter()
        .chain(notes)
        .map(|w| view! { <p class="warning">{w.clone()}</p> })
        .collect_view()
}

/// "estimate [lower, upper]" of an optional estimate, or "not identified".
fn shown(e: Option<&Estimate>, digits: usize) -> String {
    e.map_or("not identified".to_owned(), |e| {
        format!(
            "{} [{}, {}]",
            fixed(e.estimate, digits),
            fixed(e.lower, digits),
            fixed(e.upper, digits)
        )
    })
}

/// Prediction-powered win rates and leaderboard, each beside the human-only and judge-only
/// estimates.
#[component]
pub(crate) fn PpiView(report: PpiReport) -> impl IntoView {
    let coverage = 100.0 * (1.0 - report.settings.alpha);
    let notes = notes_view(&report.warnings, &report.notes);
    let board = report.leaderboard.map(|board| {
        // On the Elo scale with the reference model at 1500.
        let at = |v: f64| 1500.0 + v;
        let forest: Vec<ForestRow> = board
            .ratings
            .iter()
            .map(|r| ForestRow {
                label: r.model.clone(),
                estimate: at(r.ppi.estimate),
                ci: r.human_only.map(|h| (at(h.lower), at(h.upper))),
                band: Some((at(r.ppi.lower), at(r.ppi.upper))),
                reference: r.judge_only.map(|j| at(j.estimate)),
            })
            .collect();
        let caption = format!(
            "Elo with {} at 1500: the prediction-powered interval (band), the human labels' alone (whisker) and the judge's estimate alone (diamond, no guarantee)",
            board.reference
        );
        let rows = board
            .ratings
            .iter()
            .enumerate()
            .map(|(k, r)| {
                view! {
                    <tr data-model=r.model.clone() data-elo=r.ppi.estimate.to_string()
                        data-lower=r.ppi.lower.to_string() data-upper=r.ppi.upper.to_string()>
                        <td>{k + 1}</td><td>{r.model.clone()}</td>
                        <td class="num">{shown(Some(&r.ppi), 0)}</td>
                        <td class="num">{shown(r.human_only.as_ref(), 0)}</td>
                        <td class="num">{shown(r.judge_only.as_ref(), 0)}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <ForestPlot rows=forest caption />
            <table class="ratings" id="ppi-leaderboard">
                <caption>{format!(
                    "Bradley–Terry, Elo difference from {} (λ = {})",
                    board.reference,
                    fixed(board.lambda, 3)
                )}</caption>
                <thead><tr><th>"Rank"</th><th>"Model"</th><th>"Prediction-powered"</th><th>"Human labels only"</th><th>"Judge only (no guarantee)"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            {board.notes.into_iter().map(|n| view! { <p class="warning">{n}</p> }).collect_view()}
        }
    });
    let target = report.settings.target_width;
    let needed = |n: Option<usize>| n.map_or("beyond its battles".to_owned(), |n| n.to_string());
    let rates = report
        .win_rates
        .iter()
        .map(|w| {
            let e = w.estimate.as_ref();
            let budget = w.budget.as_ref().filter(|_| target.is_some()).map(|b| {
                view! {
                    <td class="num ppi-with-judge">{needed(b.n_with_judge)}</td>
                    <td class="num ppi-human-only">{needed(b.n_human_only)}</td>
                }
            });
            view! {
                <tr data-model=w.model.clone()>
                    <td>{w.model.clone()}</td>
                    <td class="num">{w.battles}</td>
                    <td class="num">{e.map_or(0, |e| e.n)}</td>
                    <td class="num">{shown(e.map(|e| &e.ppi), 3)}</td>
                    <td class="num">{shown(e.map(|e| &e.human_only), 3)}</td>
                    <td class="num">{shown(e.map(|e| &e.judge_only), 3)}</td>
                    <td class="num">{e.map_or("—".to_owned(), |e| fixed(e.lambda, 2))}</td>
                    <td class="num">{e.map_or("—".to_owned(), |e| fixed(e.effective_n, 0))}</td>
                    {budget}
                </tr>
            }
        })
        .collect_view();
    view! {
        <p class="summary" id="ppi-summary">{format!(
            "{} · {} battles, {} with a human label · {coverage}% intervals",
            report.source, report.n_battles, report.n_labelled
        )}</p>
        {notes}
        {board}
        <table class="ratings" id="ppi-win-rates">
            <caption>"Win rates over each model's battles"</caption>
            <thead><tr><th>"Model"</th><th>"Battles"</th><th>"Human labels"</th><th>"Prediction-powered"</th><th>"Human labels only"</th><th>"Judge only (no guarantee)"</th><th>"λ"</th><th>"Worth n human labels"</th>
                {target.map(|w| view! {
                    <th>{format!("Labels for width {w} (with the judge)")}</th>
                    <th>"(human labels only)"</th>
                })}
            </tr></thead>
            <tbody>{rates}</tbody>
        </table>
    }
}
