//! Views of the analyses that have no page of their own — made by `tribunal stats` or the
//! session API and opened by URL: the conformal part of a judge study, a power table, and the
//! label model or routing of a votes file (the committee view of the Programs page). Cells
//! carry full-precision values in data attributes, as on the pages.

use crate::format::fixed;
use leptos::prelude::*;
use tribunal::analysis::{ConformalReport, PowerTable};
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
    let notes = report
        .warnings
        .iter()
        .chain(&report.notes)
        .map(|w| view! { <p class="warning">{w.clone()}</p> })
        .collect_view();
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
