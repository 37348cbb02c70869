//! Views of the analyses that have no page of their own — made by `tribunal stats` or the
//! session API and opened by URL: the conformal part of a judge study, a power table, the
//! prediction-powered report, the judge value gauge, style control, a judge's self-preference, length-controlled win
//! rates, transitivity, head-to-head win rates, and the label model or routing of a votes file
//! (the committee view of the Programs page). Cells
//! carry full-precision values in data attributes, as on the pages.

use crate::analysis_view::KindView;
use crate::charts::{ForestPlot, ForestRow, LinePlot, RankSlope, RankSlopes, ShareBar, ShareBars};
use crate::files::data_url;
use crate::format::{fixed, target_words};
use crate::glossary::term;
use leptos::prelude::*;
use tribunal::analysis::Analysis;
use tribunal::math::normal::Estimate;
use tribunal::math::resample::Interval;
use tribunal::ppi::judge_value::JudgeValue;
use tribunal::ppi::label_plan::LabelPlan;
use tribunal::ppi::ppi_ranks::RankSet;
use tribunal::ppi::ppi_report::{PpiReport, PpiWinRate};
use tribunal::rankings::kinds::ConformalReport;
use tribunal::rankings::length_control::LengthControl;
use tribunal::rankings::self_preference::SelfPreference;
use tribunal::rankings::style_control::StyleControl;
use tribunal::rankings::transitivity::Transitivity;
use tribunal::rankings::win_rates::{Ties, WinRates};
use tribunal::reliability::kinds::PowerTable;
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
                    <td>{target_words(&run.target)}</td>
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
        <table tabindex="0" class="ratings" id="conformal-table">
            <thead>
                <tr><th>"Targets"</th><th>"Elo error on unseen models (" {term("held-out", "held-out MAE")} ")"</th><th>"Spearman ρ"</th><th>"New-model interval coverage (" {term("conformal", "split conformal")} ")"</th><th>"Median width"</th><th>"Coverage leaving one model out"</th></tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

impl KindView for ConformalReport {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <ConformalView report=self /> }.into_any()
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
    // The reading: the largest number of items any row needs, and for what.
    let reading = table.rows.iter().max_by_key(|row| row.n1).map(|row| {
        format!(
            "The hardest case here needs {} items per system ({} in all) for {:.0} % power at α = {}: {}.",
            row.n1,
            row.total,
            100.0 * row.settings.power,
            row.settings.alpha,
            match row.effect {
                Effect::Proportions { p1, p2 } => format!("pass rates {p1} against {p2}"),
                Effect::Means { mean1, mean2, sd } => format!("means {mean1} against {mean2} (sd {sd})"),
                Effect::Standardized { effect_size } => format!("an effect size of {effect_size}"),
            }
        )
    });
    view! {
        {reading.map(|r| view! { <p class="reading" id="power-reading">{r}</p> })}
        <table tabindex="0" class="ratings" id="power-table">
            <thead>
                <tr><th>"Effect"</th><th>"Standardised"</th><th>"α"</th><th>"Power"</th><th>"n₁"</th><th>"n₂"</th><th>"Total"</th><th>"Achieved power"</th></tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

impl KindView for PowerTable {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <PowerView table=self /> }.into_any()
    }
}

/// A report's warnings, then its notes, one paragraph each.
fn notes_view(warnings: &[String], notes: &[String]) -> impl IntoView {
    warning_lines(warnings.iter().chain(notes).cloned().collect())
}

/// Each warning or note of a report as its own paragraph (`class="warning"`), as every report
/// view shows them.
pub(crate) fn warning_lines(lines: Vec<String>) -> impl IntoView {
    lines
        .into_iter()
        .map(|w| view! { <p class="warning">{w}</p> })
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

/// "lower, upper" of a bootstrap interval, or "—" without one.
fn bootstrap_shown(i: Option<&Interval>, digits: usize) -> String {
    i.map_or("—".to_owned(), |i| {
        format!("[{}, {}]", fixed(i.lower, digits), fixed(i.upper, digits))
    })
}

/// A rank set as "best–worst" (one number when it is one rank), or "—".
fn ranks(set: Option<RankSet>) -> String {
    match set {
        Some(RankSet { best, worst }) if best == worst => best.to_string(),
        Some(RankSet { best, worst }) => format!("{best}–{worst}"),
        None => "—".to_owned(),
    }
}

/// Width against human labels: at each planned n, the median over the models of the win
/// rate's planned interval width, with the judge's labels and without (none when no model has
/// a budget).
fn budget_plot(rates: &[PpiWinRate]) -> Option<impl IntoView> {
    let mut at_n: std::collections::BTreeMap<usize, (Vec<f64>, Vec<f64>)> = Default::default();
    for w in rates
        .iter()
        .filter_map(|r| r.budget.as_ref())
        .flat_map(|b| &b.widths)
    {
        let (with, without) = at_n.entry(w.n).or_default();
        with.push(w.with_judge);
        without.push(w.human_only);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for (n, (w, h)) in &mut at_n {
        with.push((*n as f64, median(w)));
        without.push((*n as f64, median(h)));
    }
    if with.is_empty() {
        return None;
    }
    Some(view! {
        <LinePlot
            curves=vec![("with the judge".to_owned(), with), ("human labels only".to_owned(), without)]
            x_label="human labels (log scale)"
            log_x=true
            label="label budget"
            caption="Label budget: a win rate's expected interval width against the human labels (log scale), the median over the models, with the judge's labels and without" />
    })
}

/// Prediction-powered win rates and leaderboard, each beside the human-only and judge-only
/// estimates.
#[component]
pub(crate) fn PpiView(report: PpiReport) -> impl IntoView {
    let coverage = 100.0 * (1.0 - report.settings.alpha);
    let notes = notes_view(&report.warnings, &report.notes);
    let reading = report.reading();
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
            "Elo with {} at 1500: the prediction-powered interval (band), the human labels' alone (whisker) and the judge's estimate alone (diamond, no guarantee). Ranks (all at once): every model's true rank lies in its set together, with {coverage}% confidence",
            board.reference
        );
        let rows = board
            .ratings
            .iter()
            .enumerate()
            .map(|(k, r)| {
                view! {
                    <tr data-model=r.model.clone() data-elo=r.ppi.estimate.to_string()
                        data-lower=r.ppi.lower.to_string() data-upper=r.ppi.upper.to_string()
                        data-best=r.ranks.best.to_string() data-worst=r.ranks.worst.to_string()>
                        <td>{k + 1}</td><td>{r.model.clone()}</td>
                        <td class="num ppi-ranks">{ranks(Some(r.ranks))}</td>
                        <td class="num">{shown(Some(&r.ppi), 0)}</td>
                        <td class="num ppi-bootstrap">{bootstrap_shown(r.bootstrap.as_ref(), 0)}</td>
                        <td class="num">{shown(r.human_only.as_ref(), 0)}</td>
                        <td class="num">{ranks(r.human_only_ranks)}</td>
                        <td class="num">{shown(r.judge_only.as_ref(), 0)}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <ForestPlot rows=forest axis="Elo rating" caption />
            <div class="table-scroll" tabindex="0"><table class="ratings" id="ppi-leaderboard">
                <caption>{format!(
                    "Bradley–Terry, Elo difference from {} (λ = {}; {} human labels, worth {} alone)",
                    board.reference,
                    fixed(board.lambda, 3),
                    board.labels,
                    fixed(board.effective_n, 0)
                )}</caption>
                <thead><tr><th>"#"</th><th>"Model"</th><th>"Ranks (all at once)"</th><th>"Prediction-powered"</th><th>"Bootstrap"</th><th>"Human labels only"</th><th>"Their ranks"</th><th>"Judge only (no guarantee)"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table></div>
            <div class="table-scroll" tabindex="0"><table class="ratings" id="ppi-neighbours">
                <caption>{format!("Each model against the next one down: Elo difference, {coverage}% interval for that one comparison")}</caption>
                <thead><tr><th>"Model"</th><th>"Next"</th><th>"Difference"</th></tr></thead>
                <tbody>{board.neighbours.iter().map(|d| view! {
                    <tr data-better=d.better.clone() data-worse=d.worse.clone()
                        data-lower=d.ppi.lower.to_string()>
                        <td>{d.better.clone()}</td><td>{d.worse.clone()}</td>
                        <td class="num">{shown(Some(&d.ppi), 0)}</td>
                    </tr>
                }).collect_view()}</tbody>
            </table></div>
            {board.notes.into_iter().map(|n| view! { <p class="warning">{n}</p> }).collect_view()}
        }
    });
    let budget = budget_plot(&report.win_rates);
    let plan = report.plan.map(|plan| view! { <LabelPlanView plan /> });
    let target = report.settings.target_width;
    let needed = |n: Option<usize>| n.map_or("beyond its battles".to_owned(), |n| n.to_string());
    let rates = report
        .win_rates
        .iter()
        .map(|w| {
            let e = w.estimate.as_ref();
            let budget = target.map(|_| {
                let (with, without) = w
                    .budget
                    .as_ref()
                    .map_or(("—".to_owned(), "—".to_owned()), |b| {
                        (needed(b.n_with_judge), needed(b.n_human_only))
                    });
                view! {
                    <td class="num ppi-with-judge">{with}</td>
                    <td class="num ppi-human-only">{without}</td>
                }
            });
            // A withheld win rate says why in the warnings above; its cells say "withheld".
            let missing = if w.note.as_deref().is_some_and(|n| n.contains("min_labels")) {
                "withheld: too few labels"
            } else {
                "not identified"
            };
            let shown = |e: Option<&Estimate>| e.map_or(missing.to_owned(), |e| shown(Some(e), 3));
            view! {
                <tr data-model=w.model.clone()>
                    <td>{w.model.clone()}</td>
                    <td class="num">{w.battles}</td>
                    <td class="num">{w.labels}</td>
                    <td class="num">{shown(e.map(|e| &e.ppi))}</td>
                    <td class="num">{bootstrap_shown(w.bootstrap.as_ref(), 3)}</td>
                    <td class="num">{shown(e.map(|e| &e.human_only))}</td>
                    <td class="num">{shown(e.map(|e| &e.judge_only))}</td>
                    <td class="num">{e.map_or("—".to_owned(), |e| fixed(e.lambda, 2))}</td>
                    <td class="num">{e.map_or("—".to_owned(), |e| fixed(e.effective_n, 0))}</td>
                    {budget}
                </tr>
            }
        })
        .collect_view();
    view! {
        <p class="reading" id="ppi-reading">{reading}</p>
        <p class="summary" id="ppi-summary">{format!(
            "{} · {} battles, {} with a human label · {coverage}% intervals",
            report.source, report.n_battles, report.n_labelled
        )}</p>
        {notes}
        {board}
        {budget}
        <div class="table-scroll" tabindex="0"><table class="ratings" id="ppi-win-rates">
            <caption>"Win rates over each model's battles"</caption>
            <thead><tr><th>"Model"</th><th>"Battles"</th><th>"Human labels"</th><th>"Prediction-powered"</th><th>"Bootstrap"</th><th>"Human labels only"</th><th>"Judge only (no guarantee)"</th><th>"λ"</th><th>"Worth n human labels"</th>
                {target.map(|w| view! {
                    <th>{format!("Labels for width {w} (with the judge)")}</th>
                    <th>"(human labels only)"</th>
                })}
            </tr></thead>
            <tbody>{rates}</tbody>
        </table></div>
        {plan}
    }
}

impl KindView for PpiReport {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <PpiView report=self /> }.into_any()
    }
}

/// The battles to label next: the draw's summary, the most useful battles, and the file to
/// send to the annotators.
#[component]
fn LabelPlanView(plan: LabelPlan) -> impl IntoView {
    let s = plan.settings;
    let rows = plan
        .top
        .iter()
        .map(|b| {
            view! {
                <tr data-line=b.line.to_string() data-probability=b.label_probability.to_string()
                    data-selected=b.selected.to_string()>
                    <td class="num">{b.priority}</td><td class="num">{b.line}</td>
                    <td>{b.model_a.clone()}</td><td>{b.model_b.clone()}</td>
                    <td class="num">{fixed(b.judge, 2)}</td>
                    <td class="num">{fixed(b.label_probability, 3)}</td>
                    <td>{if b.selected { "yes" } else { "" }}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section id="ppi-plan">
            <h3>"Which battles to label next"</h3>
            <p class="summary">{format!(
                "{} of {} unlabelled battles drawn for labelling (about {:.0} expected; {}% of the budget spread uniformly; seed {}). Each battle's chance follows how much its label would shrink the leaderboard's intervals.",
                plan.selected, plan.candidates, plan.expected_labels, 100.0 * s.uniform_share, s.seed
            )}</p>
            {plan.notes.iter().map(|n| view! { <p class="note">{n.clone()}</p> }).collect_view()}
            <p><a id="ppi-plan-download" download="tribunal-label-plan.csv"
                href=data_url("text/csv", &plan.csv)>"Download the plan (CSV, for the annotators)"</a></p>
            <div class="table-scroll" tabindex="0"><table class="ratings" id="ppi-plan-top">
                <caption>"The battles a human label would help most"</caption>
                <thead><tr><th>"Priority"</th><th>"Line"</th><th>"Model A"</th><th>"Model B"</th><th>"Judge p(A)"</th><th>"Chance drawn"</th><th>"Drawn"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table></div>
        </section>
    }
}

/// The leaderboard with style held fixed beside the raw one: each model's style-controlled Elo
/// with its interval (band) and raw Elo (diamond), its rank change, and each style
/// coefficient with its interval.
#[component]
pub(crate) fn StyleView(report: StyleControl) -> impl IntoView {
    let coverage = 100.0 * report.params.level;
    let mut ratings = report.ratings.clone();
    ratings.sort_by_key(|r| r.rank);
    let forest: Vec<ForestRow> = ratings
        .iter()
        .map(|r| ForestRow {
            label: r.model.clone(),
            estimate: r.elo,
            ci: r.bootstrap,
            band: Some((r.lower, r.upper)),
            reference: Some(r.raw_elo),
        })
        .collect();
    let caption =
        format!(
        "Elo with style held fixed ({coverage}% sandwich interval, band{}) and without (diamond)",
        if report.bootstrap_valid_rounds.is_some() { "; bootstrap interval, whisker" } else { "" }
    );
    let slopes: Vec<RankSlope> = ratings
        .iter()
        .map(|r| RankSlope {
            label: r.model.clone(),
            left: r.raw_rank,
            right: r.rank,
        })
        .collect();
    let boot = |b: Option<(f64, f64)>, digits: usize| {
        b.map_or_else(
            || "—".to_owned(),
            |(l, u)| format!("[{}, {}]", fixed(l, digits), fixed(u, digits)),
        )
    };
    let rows = ratings
        .iter()
        .map(|r| {
            let change = match r.rank_change {
                0 => "—".to_owned(),
                d if d > 0 => format!("↑{d}"),
                d => format!("↓{}", -d),
            };
            view! {
                <tr data-model=r.model.clone() data-elo=r.elo.to_string()
                    data-lower=r.lower.to_string() data-upper=r.upper.to_string()
                    data-raw=r.raw_elo.to_string() data-change=r.rank_change.to_string()>
                    <td>{r.rank}</td><td>{r.model.clone()}</td>
                    <td class="num">{format!("{} [{}, {}]", fixed(r.elo, 0), fixed(r.lower, 0), fixed(r.upper, 0))}</td>
                    <td class="num">{boot(r.bootstrap, 0)}</td>
                    <td class="num">{fixed(r.raw_elo, 0)}</td>
                    <td class="num">{r.raw_rank}</td>
                    <td class="num">{change}</td>
                </tr>
            }
        })
        .collect_view();
    let coefficients = report
        .coefficients
        .iter()
        .map(|c| {
            view! {
                <tr data-feature=c.name.clone() data-estimate=c.estimate.to_string()
                    data-lower=c.lower.to_string() data-upper=c.upper.to_string()>
                    <td>{c.name.clone()}</td>
                    <td class="num">{format!("{} [{}, {}]", fixed(c.estimate, 3), fixed(c.lower, 3), fixed(c.upper, 3))}</td>
                    <td class="num">{boot(c.bootstrap, 3)}</td>
                    <td class="num">{fixed(c.sd, 3)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p class="reading" id="style-reading">{report.reading()}</p>
        <p class="summary" id="style-summary">{format!(
            "{} battles · {} models · ridge {} on the style coefficients",
            report.battles, report.ratings.len(), report.params.reg
        )}</p>
        {notes_view(&report.warnings, &[])}
        <ForestPlot rows=forest axis="Elo rating" caption />
        <RankSlopes slopes left="Raw rank" right="Style held fixed"
            caption="Each model's rank without and with style held fixed (green: up, red: down)" />
        <div class="table-scroll" tabindex="0"><table class="ratings" id="style-leaderboard">
            <caption>"Style-controlled leaderboard beside the raw one (same battles, same weights, no style features)"</caption>
            <thead><tr><th>"#"</th><th>"Model"</th><th>"Elo, style held fixed"</th><th>"Bootstrap interval"</th><th>"Raw Elo"</th><th>"Raw rank"</th><th>"Rank change"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table></div>
        <div class="table-scroll" tabindex="0"><table class="ratings" id="style-coefficients">
            <caption>{format!("Style coefficients: log-odds per standard deviation of each feature ({coverage}% interval); positive favours answer A having more of it")}</caption>
            <thead><tr><th>"Feature"</th><th>"Coefficient"</th><th>"Bootstrap interval"</th><th>"Its SD over battles"</th></tr></thead>
            <tbody>{coefficients}</tbody>
        </table></div>
    }
}

impl KindView for StyleControl {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <StyleView report=self /> }.into_any()
    }
}

/// A judge's self-preference: the reading, the family's share of its battles against other
/// models by the judge, by the humans and as the humans' ratings predict (bars), and β in
/// log-odds, Elo points and win rate with the judge's scale and side preference.
#[component]
pub(crate) fn SelfPreferenceView(report: SelfPreference) -> impl IntoView {
    let coverage = 100.0 * report.params.level;
    let effect = report.win_rate_effect;
    let mut bars = vec![ShareBar {
        label: "By the judge".to_owned(),
        share: report.judge_win_rate,
        interval: None,
    }];
    bars.push(ShareBar {
        label: "Judge without self-preference".to_owned(),
        share: report.judge_win_rate - effect.estimate,
        interval: Some((
            report.judge_win_rate - effect.upper,
            report.judge_win_rate - effect.lower,
        )),
    });
    if let Some(share) = report.human_win_rate {
        bars.push(ShareBar {
            label: "By the humans' votes".to_owned(),
            share,
            interval: None,
        });
    }
    bars.push(ShareBar {
        label: "Humans' ratings predict".to_owned(),
        share: report.human_predicted_win_rate,
        interval: None,
    });
    let caption = format!(
        "The family's share of the judge's {} battles against other models ({} of them labelled \
         by humans); the bar without self-preference carries its {coverage}% interval",
        report.cross_battles, report.human_cross_battles
    );
    let row = |id: &'static str, name: &'static str, e: Estimate, digits: usize| {
        view! {
            <tr data-term=id data-estimate=e.estimate.to_string()
                data-lower=e.lower.to_string() data-upper=e.upper.to_string()>
                <td>{name}</td>
                <td class="num">{format!("{} [{}, {}]", fixed(e.estimate, digits), fixed(e.lower, digits), fixed(e.upper, digits))}</td>
                <td class="num">{fixed(e.se, digits + 1)}</td>
            </tr>
        }
    };
    let percent = |e: Estimate| Estimate {
        estimate: 100.0 * e.estimate,
        se: 100.0 * e.se,
        lower: 100.0 * e.lower,
        upper: 100.0 * e.upper,
    };
    view! {
        <p class="summary" id="self-preference-reading" data-p=report.p_value.to_string()>{report.reading.clone()}</p>
        {notes_view(&report.warnings, &[])}
        <ShareBars bars axis="win rate" caption />
        <div class="table-scroll" tabindex="0"><table class="ratings" id="self-preference-terms">
            <caption>
                {format!("The judge's verdicts against the humans' ratings ({} verdicts, {} human labels; {coverage}% ", report.judge_battles, report.human_battles)}
                {term("sandwich", "stacked-sandwich")}
                {format!(" intervals; family: {})", report.params.family.join(", "))}
            </caption>
            <thead><tr><th>"Term"</th><th>"Estimate"</th><th>"SE"</th></tr></thead>
            <tbody>
                {row("elo_points", "Self-preference, Elo points", report.elo_points, 0)}
                {row("win_rate", "Self-preference, points of win rate", percent(effect), 1)}
                {row("bias", "Self-preference β (log-odds)", report.bias, 3)}
                {row("scale", "Judge's scale α (1: as decisive as the humans)", report.scale, 3)}
                {row("position", "Judge's preference for model A γ (log-odds)", report.position, 3)}
            </tbody>
        </table></div>
    }
}

impl KindView for SelfPreference {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <SelfPreferenceView report=self /> }.into_any()
    }
}

/// Length-controlled win rates: per model its raw win rate against the baseline and the one at
/// the baseline's answer length (bars, the latter with its interval), and the table.
#[component]
pub(crate) fn LengthControlView(report: LengthControl) -> impl IntoView {
    let coverage = 100.0 * report.params.level;
    let bars = report
        .models
        .iter()
        .flat_map(|r| {
            let raw = ShareBar {
                label: format!("{} (raw)", r.model),
                share: r.win_rate / 100.0,
                interval: None,
            };
            let lc = r.lc_win_rate.map(|lc| ShareBar {
                label: format!("{} (LC)", r.model),
                share: lc / 100.0,
                interval: r
                    .lc_lower
                    .zip(r.lc_upper)
                    .map(|(l, u)| (l / 100.0, u / 100.0)),
            });
            std::iter::once(raw).chain(lc)
        })
        .collect::<Vec<_>>();
    let caption = format!(
        "Win rate against {} as judged (raw) and at the baseline's answer length (LC, with its \
         {coverage}% interval)",
        report.baseline
    );
    let percent = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), |v| fixed(v, 1));
    let rows = report
        .models
        .iter()
        .map(|r| {
            view! {
                <tr data-model=r.model.clone() data-raw=r.win_rate.to_string()
                    data-lc=r.lc_win_rate.map(|v| v.to_string()).unwrap_or_default()>
                    <td>{r.model.clone()}</td>
                    <td class="num">{format!("{} ± {}", fixed(r.win_rate, 1), fixed(r.win_rate_se, 1))}</td>
                    <td class="num">{format!("{} [{}, {}]", percent(r.lc_win_rate), percent(r.lc_lower), percent(r.lc_upper))}</td>
                    <td class="num">{fixed(r.mean_length, 0)}</td>
                    <td class="num">{r.battles}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p class="reading" id="lc-reading">{report.reading()}</p>
        <p class="summary" id="lc-summary">{format!(
            "{} models against {}: the length-controlled win rate is the judge's win rate at equal answer length (AlpacaEval 2's GLM).",
            report.models.len(), report.baseline
        )}</p>
        {notes_view(&report.warnings, &[])}
        <ShareBars bars axis="win rate" caption />
        <div class="table-scroll" tabindex="0"><table class="ratings" id="lc-table">
            <caption>{format!("Raw win rate (± its standard error) and length-controlled win rate ({coverage}% sandwich interval), in %")}</caption>
            <thead><tr><th>"Model"</th><th>"Win rate"</th><th>"LC win rate"</th><th>"Mean length"</th><th>"Battles"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table></div>
    }
}

impl KindView for LengthControl {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <LengthControlView report=self /> }.into_any()
    }
}

/// Transitivity: the share of cyclic triads beside coin flips' quarter (bars, with the
/// interval), each model's triads, and the first cycles by name.
#[component]
pub(crate) fn TransitivityView(report: Transitivity) -> impl IntoView {
    // Without a triad there is no share to draw: coin flips' bar alone, under the warning.
    let mut bars: Vec<ShareBar> = report
        .cyclic_share
        .map(|share| ShareBar {
            label: "These verdicts".to_owned(),
            share,
            interval: report.interval.map(|i| (i.lower, i.upper)),
        })
        .into_iter()
        .collect();
    bars.push(ShareBar {
        label: "Coin flips".to_owned(),
        share: report.coin_flip_share,
        interval: None,
    });
    let caption = report.interval.map_or_else(
        || "Share of cyclic triads".to_owned(),
        |i| {
            format!(
                "Share of cyclic triads, with its {}% bootstrap interval",
                100.0 * i.level
            )
        },
    );
    let grouping = report.params.group.as_ref().map_or_else(
        || "all battles as one tournament".to_owned(),
        |column| {
            format!(
                "each {column} its own tournament ({} of {} with a triad)",
                report.groups_with_triads, report.groups
            )
        },
    );
    let rows = report
        .models
        .iter()
        .map(|m| {
            view! {
                <tr data-model=m.model.clone() data-triads=m.triads.to_string() data-cyclic=m.cyclic.to_string()>
                    <td>{m.model.clone()}</td>
                    <td class="num">{m.cyclic}</td>
                    <td class="num">{m.triads}</td>
                    <td class="num">{fixed(100.0 * m.cyclic_share, 1)}</td>
                </tr>
            }
        })
        .collect_view();
    let cycles = report
        .cycles
        .iter()
        .map(|c| {
            let [a, b, x] = &c.models;
            view! {
                <li>{c.group.as_ref().map(|g| format!("{g}: ")).unwrap_or_default()}
                    {format!("{a} beat {b}, {b} beat {x}, {x} beat {a}")}</li>
            }
        })
        .collect_view();
    let listed = (!report.cycles.is_empty()).then(|| {
        view! {
            <p>{format!("The first {} of {} cycles, by name:", report.cycles.len(), report.cyclic)}</p>
            <ul id="transitivity-cycles">{cycles}</ul>
        }
    });
    view! {
        <p class="reading" id="transitivity-reading">{report.reading()}</p>
        <p class="summary" id="transitivity-summary">
            {format!("{} battles, {grouping}: {} pairs met, {} split evenly (undecided); {} ", report.battles, report.pairs, report.undecided_pairs, report.triads)}
            {term("cyclic-triad", "triads")}
            " with all three pairs decided."
        </p>
        {notes_view(&report.warnings, &[])}
        <ShareBars bars axis="cyclic triads" caption />
        <div class="table-scroll" tabindex="0"><table class="ratings" id="transitivity-table">
            <caption>"Each model's triads: most cycles first"</caption>
            <thead><tr><th>"Model"</th><th>"Cyclic"</th><th>"Triads"</th><th>"Cyclic, %"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table></div>
        {listed}
    }
}

impl KindView for Transitivity {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <TransitivityView report=self /> }.into_any()
    }
}

/// Head-to-head win rates: each model's average over the opponents it met, then every pair that
/// met with its Wilson interval.
#[component]
pub(crate) fn WinRatesView(report: WinRates) -> impl IntoView {
    let percent =
        |share: Option<f64>| share.map_or_else(|| "—".to_owned(), |s| fixed(100.0 * s, 1));
    let models = report
        .models
        .iter()
        .map(|m| {
            view! {
                <tr data-model=m.model.clone() data-average=m.average_win_rate.map(|a| a.to_string())>
                    <td>{m.model.clone()}</td>
                    <td class="num">{percent(m.average_win_rate)}</td>
                    <td class="num">{percent(m.share)}</td>
                    <td class="num">{m.battles}</td>
                    <td class="num">{m.opponents}</td>
                </tr>
            }
        })
        .collect_view();
    let pairs = report
        .pairs
        .iter()
        .map(|p| {
            let interval = match (p.lower, p.upper) {
                (Some(l), Some(u)) => format!("{}–{}", fixed(100.0 * l, 1), fixed(100.0 * u, 1)),
                _ => "not identified".to_owned(),
            };
            view! {
                <tr data-share=p.share_a.map(|s| s.to_string())>
                    <td>{p.model_a.clone()}</td>
                    <td>{p.model_b.clone()}</td>
                    <td class="num">{p.battles}</td>
                    <td class="num">{format!("{}–{}–{}", p.a_wins, p.b_wins, p.ties)}</td>
                    <td class="num">{percent(p.share_a)}</td>
                    <td class="num">{interval}</td>
                </tr>
            }
        })
        .collect_view();
    let ties = match report.params.ties {
        Ties::Half => "a tie counts half a win to each side",
        Ties::Excluded => "ties are left out",
    };
    view! {
        <p class="reading" id="win-rates-reading">{report.reading()}</p>
        <p class="summary">
            {format!("A model's average win rate is the mean of its head-to-head shares over the \
                      opponents it met; {ties}. It weighs every opponent alike, so it ranks fairly \
                      only models that met the same opponents — the leaderboard accounts for whom \
                      each met.")}
        </p>
        {notes_view(&report.warnings, &[])}
        <div class="table-scroll" tabindex="0"><table class="ratings" id="win-rates-models">
            <caption>"Each model: highest average win rate first"</caption>
            <thead><tr><th>"Model"</th><th>"Average win rate, %"</th><th>"All battles won, %"</th><th>"Battles"</th><th>"Opponents"</th></tr></thead>
            <tbody>{models}</tbody>
        </table></div>
        <div class="table-scroll" tabindex="0"><table class="ratings" id="win-rates-pairs">
            <caption>{format!("Each pair that met: the first model's share, with its {}% Wilson interval", fixed(100.0 * report.params.level, 0))}</caption>
            <thead><tr><th>"Model A"</th><th>"Model B"</th><th>"Battles"</th><th>"A wins – B wins – ties"</th><th>"A's share, %"</th><th>"Interval, %"</th></tr></thead>
            <tbody>{pairs}</tbody>
        </table></div>
    }
}

impl KindView for WinRates {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <WinRatesView report=self /> }.into_any()
    }
}

/// The judge value gauge: the verdict in words, then what it rests on — agreement beside
/// chance, ρ, what PPI makes of one label here and the most any debiasing could.
#[component]
pub(crate) fn JudgeValueView(report: JudgeValue) -> impl IntoView {
    let coverage = 100.0 * (1.0 - report.settings.alpha);
    let a = report.agreement;
    let rho = report.rho.map_or("not identified".to_owned(), |r| {
        format!(
            "{} [{}, {}]",
            fixed(r.estimate, 3),
            fixed(r.lower, 3),
            fixed(r.upper, 3)
        )
    });
    let share = |s: Option<f64>| s.map_or("—".to_owned(), |s| format!("{:.0} %", 100.0 * s));
    let times = |x: Option<f64>| x.map_or("—".to_owned(), |x| format!("{} ×", fixed(x, 2)));
    let row = |id: &'static str, name: String, value: String| {
        view! { <tr data-term=id><td>{name}</td><td class="num">{value}</td></tr> }
    };
    view! {
        <p class="summary" id="judge-value-verdict" data-worth=report.worth_running.to_string()>
            {format!("Verdict: {}", report.verdict)}</p>
        {notes_view(&report.warnings, &[])}
        <div class="table-scroll" tabindex="0"><table class="ratings" id="judge-value-table">
            <caption>{format!(
                "{}: {} items labelled by people (the pilot), {} judged only; {coverage}% intervals",
                report.source, report.labelled, report.unlabelled
            )}</caption>
            <tbody>
                {row("agreement", "Judge picks the same side as the people".to_owned(),
                    format!("{} of {} = {} [{}, {}]", report.agreed, report.labelled,
                        fixed(a.estimate, 3), fixed(a.lower, 3), fixed(a.upper, 3)))}
                {row("chance", "… two raters picking independently would".to_owned(), fixed(report.chance_agreement, 3))}
                {row("rho", "Correlation ρ of the judge's labels with the people's".to_owned(), rho)}
                {row("labels_per_label", "One human label counts as, with this file's judged-only items (prediction-powered inference)".to_owned(), times(report.labels_per_label))}
                {row("ceiling", "At most, with any correction (1 / (1 − ρ²))".to_owned(), times(report.ceiling))}
                {row("replaceable", "Human labels it can replace, at most (ρ²)".to_owned(), share(report.replaceable_share))}
                {row("replaceable_upper", "… at the top of ρ's interval".to_owned(), share(report.replaceable_share_upper))}
            </tbody>
        </table></div>
    }
}

impl KindView for JudgeValue {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <JudgeValueView report=self /> }.into_any()
    }
}
