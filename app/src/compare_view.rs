//! The comparison of systems on pointwise scores: the reading, each system's score per
//! criterion (forest plot and table), the paired differences (a matrix coloured by the
//! difference, with the interval and adjusted p in each cell, and the full table), each slice
//! column's heatmap, and the judge-corrected rates. Cells carry full-precision values in data
//! attributes, as on the other pages.

use crate::analysis_view::KindView;
use crate::charts::{ForestPlot, ForestRow};
use crate::format::fixed;
use crate::plain_reports::warning_lines;
use leptos::prelude::*;
use tribunal::analysis::Analysis;
use tribunal::compare::comparison::Comparison;
use tribunal::compare::judge_correction::JudgeCorrection;
use tribunal::compare::paired_differences::PairedDifference;
use tribunal::compare::score_slices::SliceTable;
use tribunal::io::readable::p_text;

/// A score in the criterion's units: a pass rate in %, else as it is.
fn shown(v: f64, binary: bool) -> String {
    if binary {
        fixed(100.0 * v, 1)
    } else {
        fixed(v, 3)
    }
}

/// The whole comparison.
#[component]
pub(crate) fn CompareView(report: Comparison) -> impl IntoView {
    let criteria: Vec<(String, bool)> = report
        .criteria
        .iter()
        .cloned()
        .zip(report.binary.iter().copied())
        .collect();
    let sections = criteria
        .into_iter()
        .map(|(criterion, binary)| {
            view! { <CriterionSection report=report.clone() criterion binary /> }
        })
        .collect_view();
    let slices = report
        .slices
        .iter()
        .map(|table| view! { <SliceHeatmap table=table.clone() binary=report.binary.clone() criteria=report.criteria.clone() /> })
        .collect_view();
    let warnings = warning_lines(report.warnings.clone());
    view! {
        <p class="summary" id="compare-reading">{report.reading.clone()}</p>
        {warnings}
        <p class="note">{format!(
            "{} scores of {} systems on {} items{}; intervals at {}% ({}).",
            report.n_scores, report.systems.len(), report.n_items,
            report.clusters.map_or(String::new(), |g| format!(" in {g} clusters")),
            fixed(100.0 * (1.0 - report.settings.alpha), 0),
            if report.settings.bootstrap_rounds > 0 {
                format!("paired bootstrap: {} rounds, seed {}", report.settings.bootstrap_rounds, report.settings.seed)
            } else {
                "no bootstrap".to_owned()
            }
        )}</p>
        {report.gold.map(|g| view! { <p class="note" id="compare-gold-join">{format!(
            "Gold labels from their own file: {} labels, {} answers labelled{}.",
            g.rows, g.labelled,
            if g.unmatched > 0 { format!(", {} naming no answer of the scores file", g.unmatched) } else { String::new() }
        )}</p> })}
        {sections}
        {slices}
    }
}

impl KindView for Comparison {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <CompareView report=self /> }.into_any()
    }
}

/// One criterion: the systems' forest plot and table, the difference matrix and table.
#[component]
fn CriterionSection(report: Comparison, criterion: String, binary: bool) -> impl IntoView {
    let unit = if binary { "pass rate, %" } else { "mean score" };
    let scores: Vec<_> = report
        .scores
        .iter()
        .filter(|s| s.criterion == criterion)
        .cloned()
        .collect();
    let scale = if binary { 100.0 } else { 1.0 };
    let forest = scores
        .iter()
        .map(|s| ForestRow {
            label: s.system.clone(),
            estimate: scale * s.mean,
            ci: Some((scale * s.interval.lower, scale * s.interval.upper)),
            band: s
                .clustered
                .filter(|c| c.interval.se.is_finite())
                .map(|c| (scale * c.interval.lower, scale * c.interval.upper)),
            reference: None,
        })
        .collect::<Vec<_>>();
    let rows = scores
        .iter()
        .map(|s| {
            view! {
                <tr data-system=s.system.clone() data-mean=s.mean.to_string()
                    data-lower=s.interval.lower.to_string() data-upper=s.interval.upper.to_string()>
                    <td>{s.system.clone()}</td>
                    <td class="num">{s.n_items}</td>
                    <td class="num">{shown(s.mean, binary)}</td>
                    <td class="num">{format!("[{}, {}]", shown(s.interval.lower, binary), shown(s.interval.upper, binary))}</td>
                    <td class="num">{s.clustered.map_or("—".to_owned(), |c| format!("[{}, {}]", shown(c.interval.lower, binary), shown(c.interval.upper, binary)))}</td>
                    <td class="num">{s.bootstrap.map_or("—".to_owned(), |b| format!("[{}, {}]", shown(b.lower, binary), shown(b.upper, binary)))}</td>
                </tr>
            }
        })
        .collect_view();
    let differences: Vec<PairedDifference> = report
        .differences
        .iter()
        .filter(|d| d.criterion == criterion)
        .cloned()
        .collect();
    view! {
        <section class="card compare-criterion" data-criterion=criterion.clone()>
            <h3>{format!("{criterion} ({unit})")}</h3>
            <ForestPlot rows=forest axis=unit.to_string() caption=format!("Each system's {unit} with its interval (whisker); the band is the interval with items grouped by cluster") />
            <div class="table-scroll" tabindex="0"><table class="ratings compare-systems">
                <thead><tr><th>"System"</th><th>"Items"</th><th>{unit}</th><th>"Interval"</th><th>"Clustered"</th><th>"Bootstrap"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table></div>
            {report.judge_corrected.iter().find(|j| j.criterion == criterion).cloned().map(|corrected| view! { <CorrectedTable corrected binary /> })}
            <DifferenceMatrix differences=differences.clone() binary />
            <DifferenceTable differences binary />
        </section>
    }
}

/// With human labels on some answers: each system's judge-only score beside the
/// prediction-powered one and (pass/fail) the misclassification-corrected rate, and which
/// interval is narrower.
#[component]
fn CorrectedTable(corrected: JudgeCorrection, binary: bool) -> impl IntoView {
    let interval =
        |lower: f64, upper: f64| format!("[{}, {}]", shown(lower, binary), shown(upper, binary));
    let rows = corrected
        .systems
        .iter()
        .map(|s| {
            let ppi = s.ppi.as_ref();
            view! {
                <tr data-system=s.system.clone()>
                    <td>{s.system.clone()}</td>
                    <td class="num">{s.labelled}</td>
                    <td class="num">{ppi.map_or("—".to_owned(), |p| format!("{} {}", shown(p.judge_only.estimate, binary), interval(p.judge_only.lower, p.judge_only.upper)))}</td>
                    <td class="num">{ppi.map_or("—".to_owned(), |p| format!("{} {}", shown(p.ppi.estimate, binary), interval(p.ppi.lower, p.ppi.upper)))}</td>
                    <td class="num">{s.misclassification.map_or("—".to_owned(), |m| format!("{} {}", shown(m.estimate, binary), interval(m.lower, m.upper)))}</td>
                    <td>{s.narrower.clone().unwrap_or_else(|| "—".to_owned())}</td>
                </tr>
            }
        })
        .collect_view();
    let warnings = warning_lines(corrected.warnings.clone());
    view! {
        <h4>"Corrected with the human labels"</h4>
        <p class="hint">{format!(
            "{} answers carry a person's label; the judge's scores correlate {} with them. The judge alone has no guarantee: its bias is not corrected. The prediction-powered score corrects it with each system's own labelled answers and narrows as the judge agrees with people; the misclassification correction (pass/fail) uses every labelled answer for the judge's error rates but assumes they are the same for every system.",
            corrected.labelled_cells,
            fixed(corrected.correlation, 2)
        )}</p>
        {warnings}
        <div class="table-scroll" tabindex="0"><table class="ratings compare-corrected">
            <thead><tr><th>"System"</th><th>"Labelled"</th><th>"Judge alone"</th><th>"Prediction-powered"</th><th>"Misclassification-corrected"</th><th>"Narrower"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table></div>
    }
}

/// The pairs' differences as a matrix: row B, column A, coloured by B − A, with the interval
/// and the Holm-adjusted p in the cell.
#[component]
fn DifferenceMatrix(differences: Vec<PairedDifference>, binary: bool) -> impl IntoView {
    let mut columns: Vec<String> = differences.iter().map(|d| d.a.clone()).collect();
    columns.dedup();
    columns.sort();
    columns.dedup();
    let mut rows: Vec<String> = differences.iter().map(|d| d.b.clone()).collect();
    rows.sort();
    rows.dedup();
    let largest = differences
        .iter()
        .map(|d| d.difference.abs())
        .filter(|v| v.is_finite())
        .fold(0.0_f64, f64::max)
        .max(1e-12);
    let header = columns
        .iter()
        .map(|a| view! { <th>{format!("− {a}")}</th> })
        .collect_view();
    let body = rows
        .iter()
        .map(|b| {
            let cells = columns
                .iter()
                .map(|a| match differences.iter().find(|d| &d.a == a && &d.b == b) {
                    Some(d) => {
                        // Five shades each way, as classes: the page's policy allows no
                        // inline style.
                        let share = (d.difference / largest).clamp(-1.0, 1.0);
                        let shade = (share.abs() * 5.0).ceil().clamp(0.0, 5.0) as u8;
                        let colour = if share >= 0.0 {
                            format!("num diff-up-{shade}")
                        } else {
                            format!("num diff-down-{shade}")
                        };
                        let interval = d.clustered.map_or(d.interval, |c| c.interval);
                        view! {
                            <td class=colour data-difference=d.difference.to_string() data-holm=d.holm.to_string()>
                                <strong>{shown(d.difference, binary)}</strong><br />
                                {format!("[{}, {}]", shown(interval.lower, binary), shown(interval.upper, binary))}<br />
                                {p_text(d.holm)}
                            </td>
                        }
                        .into_any()
                    }
                    None => view! { <td></td> }.into_any(),
                })
                .collect_view();
            view! { <tr><th>{b.clone()}</th>{cells}</tr> }
        })
        .collect_view();
    view! {
        <div class="table-scroll" tabindex="0"><table class="ratings compare-matrix">
            <caption>"Row minus column on the items both have: blue where the row scores higher, red where lower; the interval and the Holm-adjusted p below"</caption>
            <thead><tr><th>"Row − column"</th>{header}</tr></thead>
            <tbody>{body}</tbody>
        </table></div>
    }
}

/// Every pair's tests in full.
#[component]
fn DifferenceTable(differences: Vec<PairedDifference>, binary: bool) -> impl IntoView {
    let rows = differences
        .iter()
        .map(|d| {
            view! {
                <tr data-a=d.a.clone() data-b=d.b.clone() data-difference=d.difference.to_string()
                    data-p=d.tested_p_value.to_string() data-holm=d.holm.to_string() data-bh=d.bh.to_string()>
                    <td>{format!("{} − {}", d.b, d.a)}</td>
                    <td class="num">{format!("{} ({}/{})", d.n_shared, d.only_a, d.only_b)}</td>
                    <td class="num">{shown(d.difference, binary)}</td>
                    <td class="num">{format!("[{}, {}]", shown(d.interval.lower, binary), shown(d.interval.upper, binary))}</td>
                    <td class="num">{d.bootstrap.map_or("—".to_owned(), |b| format!("[{}, {}]", shown(b.lower, binary), shown(b.upper, binary)))}</td>
                    <td class="num">{p_text(d.tested_p_value)}</td>
                    <td class="num">{p_text(d.holm)}</td>
                    <td class="num">{p_text(d.bh)}</td>
                    <td class="num">{d.mcnemar.map_or("—".to_owned(), |m| p_text(m.p_value))}</td>
                    <td class="num">{shown(d.minimum_detectable, binary)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll" tabindex="0"><table class="ratings compare-differences">
            <caption>"B − A on shared items (in brackets: items only A has / only B has); p from the paired t-test (clustered when items are grouped), adjusted across all pairs by Holm (family-wise) and Benjamini–Hochberg (false discovery rate); McNemar's exact test for pass/fail; the smallest difference detectable at the chosen power"</caption>
            <thead><tr><th>"Pair"</th><th>"Items"</th><th>"Difference"</th><th>"Interval"</th><th>"Bootstrap"</th><th>"p"</th><th>"Holm"</th><th>"BH q"</th><th>"McNemar"</th><th>"Detectable"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table></div>
    }
}

/// A slice column: systems × values, each cell the system's score there, and the reversals.
#[component]
fn SliceHeatmap(table: SliceTable, binary: Vec<bool>, criteria: Vec<String>) -> impl IntoView {
    let sections = criteria
        .iter()
        .enumerate()
        .map(|(c, criterion)| {
            let binary = binary.get(c).copied().unwrap_or(false);
            let mut systems: Vec<String> = table
                .scores
                .iter()
                .filter(|s| &s.criterion == criterion)
                .map(|s| s.system.clone())
                .collect();
            systems.sort();
            systems.dedup();
            let header = table.values.iter().map(|v| view! { <th>{v.clone()}</th> }).collect_view();
            let body = systems
                .iter()
                .map(|system| {
                    let cells = table
                        .values
                        .iter()
                        .map(|value| {
                            match table.scores.iter().find(|s| &s.system == system && &s.value == value && &s.criterion == criterion) {
                                Some(s) => view! {
                                    <td class="num" data-mean=s.mean.to_string() title=format!("{} items, interval [{}, {}]", s.n_items, shown(s.interval.lower, binary), shown(s.interval.upper, binary))>
                                        {shown(s.mean, binary)}
                                    </td>
                                }
                                .into_any(),
                                None => view! { <td>"—"</td> }.into_any(),
                            }
                        })
                        .collect_view();
                    view! { <tr><th>{system.clone()}</th>{cells}</tr> }
                })
                .collect_view();
            let reversals = table
                .differences
                .iter()
                .filter(|d| d.reverses && &d.criterion == criterion)
                .map(|d| {
                    view! {
                        <p class="warning">{format!(
                            "On {} = {}, {} − {} is {} [{}, {}] ({} items, Holm {}): the opposite of the overall difference.",
                            table.column, d.value, d.b, d.a, shown(d.difference, binary),
                            shown(d.interval.lower, binary), shown(d.interval.upper, binary), d.n_shared, p_text(d.holm)
                        )}</p>
                    }
                })
                .collect_view();
            view! {
                {reversals}
                <div class="table-scroll" tabindex="0"><table class="ratings compare-slices" data-column=table.column.clone() data-criterion=criterion.clone()>
                    <caption>{format!("{criterion} by {}", table.column)}</caption>
                    <thead><tr><th>{table.column.clone()}</th>{header}</tr></thead>
                    <tbody>{body}</tbody>
                </table></div>
            }
        })
        .collect_view();
    view! { <section class="card"><h3>{format!("By {}", table.column)}</h3>{sections}</section> }
}
