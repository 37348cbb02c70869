//! A cascade of judges with a guaranteed agreement ("Trust or Escalate"): the reading in plain
//! words, each tier's threshold and share, each judge alone against the cascade, the
//! risk–coverage curve each threshold was chosen on, and the unlabelled items left to humans
//! (to download as a CSV). Values carry full precision in data attributes, as on the other
//! pages.

use crate::analysis_view::KindView;
use crate::charts::LinePlot;
use crate::files::data_url;
use crate::format::fixed;
use crate::glossary::term;
use crate::plain_reports::warning_lines;
use leptos::prelude::*;
use tribunal::analysis::Analysis;
use tribunal::selective::cascade::{Alone, CascadeReport, Outcome, Tier};

/// A share as a percentage, or a dash when undefined.
fn percent(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_owned(), |v| format!("{} %", fixed(100.0 * v, 1)))
}

/// The whole report.
#[component]
pub(crate) fn CascadeView(report: CascadeReport) -> impl IntoView {
    let warnings = warning_lines(report.warnings.clone());
    view! {
        <CascadeReading report=report.clone() />
        {warnings}
        <TierTable tiers=report.tiers.clone() />
        <AloneTable alone=report.alone.clone() cascade=report.cascade.clone() />
        <CurvePlot tiers=report.tiers.clone() guaranteed=report.guaranteed_agreement />
        <ToHumans report />
    }
}

impl KindView for CascadeReport {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <CascadeView report=self /> }.into_any()
    }
}

/// The headline: what the judges decide, how often they agree with people, what is
/// guaranteed, what goes to humans.
#[component]
fn CascadeReading(report: CascadeReport) -> impl IntoView {
    let c = &report.cascade;
    let reading = format!(
        "On {} held-out items the judges decided {} and agreed with people on {} of those; \
         the rest go to humans. Guaranteed: at least {} agreement on the items the judges \
         keep, with probability {} (calibrated on {} labelled items).",
        c.items,
        percent(c.coverage),
        percent(c.agreement),
        percent(Some(report.guaranteed_agreement)),
        percent(Some(report.guarantee_probability)),
        report.items.calibration,
    );
    view! {
        <p class="summary" id="cascade-reading" data-coverage=c.coverage data-agreement=c.agreement>
            {reading}
        </p>
        <p class="note">
            {term("cascade", "Selective judging")}
            ": each judge keeps the items it is at least as confident on as its threshold, \
             chosen so that the agreement holds; the items it is less sure of go to the next."
        </p>
    }
}

/// Each tier: threshold, calibration items reaching it and kept, test items, agreement, cost.
#[component]
fn TierTable(tiers: Vec<Tier>) -> impl IntoView {
    let rows = tiers
        .into_iter()
        .map(|t| {
            view! {
                <tr data-judge=t.judge.clone() data-threshold=t.calibration.threshold>
                    <td>{t.judge.clone()}</td>
                    <td>{t.calibration.threshold.map_or_else(|| "keeps nothing".to_owned(), |v| fixed(v, 3))}</td>
                    <td>{format!("{} of {}", t.calibration.kept, t.reached)}</td>
                    <td>{format!("{} of {}", t.test.kept, t.test.items)}</td>
                    <td data-value=t.test.agreement>{percent(t.test.agreement)}</td>
                    <td>{t.cost.map_or_else(|| "–".to_owned(), |v| fixed(v, 2))}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h3>"Tiers, in order"</h3>
        <div class="table-scroll" tabindex="0"><table id="cascade-tiers" class="ratings">
            <thead><tr><th>"Judge"</th><th>"Threshold"</th><th>"Calibration: kept of reached"</th>
                <th>"Test: kept of reached"</th><th>"Agreement on kept"</th><th>"Cost per judgment"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table></div>
    }
}

/// The cascade beside each judge alone at the same guarantee and each judge never abstaining.
#[component]
fn AloneTable(alone: Vec<Alone>, cascade: Outcome) -> impl IntoView {
    let row = |name: String, o: &Outcome, id: &'static str| {
        view! {
            <tr data-row=id data-coverage=o.coverage>
                <td>{name}</td><td>{percent(o.coverage)}</td><td>{percent(o.agreement)}</td>
                <td>{o.cost_per_item.map_or_else(|| "–".to_owned(), |v| fixed(v, 2))}</td>
            </tr>
        }
    };
    let judges = alone
        .iter()
        .map(|a| {
            view! {
                {row(format!("{} alone, same guarantee", a.judge), &a.selective, "alone")}
                {row(format!("{} on every item", a.judge), &a.no_abstention, "no-abstention")}
            }
        })
        .collect_view();
    view! {
        <h3>"Against each judge alone (held-out items)"</h3>
        <div class="table-scroll" tabindex="0"><table id="cascade-baselines" class="ratings">
            <thead><tr><th>"Who decides"</th><th>"Decided"</th><th>"Agreement"</th><th>"Cost per item"</th></tr></thead>
            <tbody>{row("The cascade".to_owned(), &cascade, "cascade")}{judges}</tbody>
        </table></div>
    }
}

/// Each tier's calibration curve: agreement on the kept items against the share kept.
#[component]
fn CurvePlot(tiers: Vec<Tier>, guaranteed: f64) -> impl IntoView {
    let curves: Vec<(String, Vec<(f64, f64)>)> = tiers
        .iter()
        .map(|t| {
            let points = t
                .calibration
                .curve
                .iter()
                .map(|p| (p.coverage, p.agreement));
            (t.judge.clone(), points.collect())
        })
        .filter(|(_, points): &(String, Vec<_>)| !points.is_empty())
        .collect();
    let caption = format!(
        "Each tier's agreement with people on the calibration items it would keep, against the \
         share kept, one point per threshold; a threshold is kept only where the data show \
         agreement ≥ {} (exact binomial test, fixed sequence from the strictest).",
        percent(Some(guaranteed))
    );
    (!curves.is_empty()).then(|| {
        view! { <LinePlot curves x_label="share of the items reaching the tier kept" label="agreement on kept" caption /> }
    })
}

/// The unlabelled items the cascade leaves to humans, to download.
#[component]
fn ToHumans(report: CascadeReport) -> impl IntoView {
    let routing = report.unlabelled;
    (report.items.unlabelled > 0).then(|| {
        let decided: Vec<String> = report
            .tiers
            .iter()
            .zip(&routing.decided)
            .map(|(t, n)| format!("{} by {}", n, t.judge))
            .collect();
        let csv = routing.to_humans_csv().unwrap_or_default();
        view! {
            <p id="cascade-unlabelled">{format!(
                "Of the {} unlabelled items, {} are decided ({}) and {} go to humans. ",
                report.items.unlabelled,
                routing.decided.iter().sum::<usize>(),
                decided.join(", "),
                routing.to_humans.len(),
            )}
            <a id="cascade-to-humans" download="to-humans.csv" href=data_url("text/csv", &csv)>
                "Download the items to label (CSV)"</a></p>
        }
    })
}
