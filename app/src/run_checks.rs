//! The judge-runs card of the Reliability page (seed 001, Parts IV–VI): is one judge stable
//! against itself? Pick a long-format ratings CSV and a check; a web worker runs its analysis
//! spec (the report its CLI subcommand prints) and the card shows it:
//!
//! - A/A test (`tribunal stats aa`): two runs of one configuration as two raters of the file;
//!   each check's delta against its band with the green/amber/red flag (row class
//!   `flag-green|amber|red`, `data-metric`, `data-delta`, `data-ratio`, `data-flag`) and the
//!   overall flag (`#aa-overall`, `data-flag`).
//! - Self-consistency (`tribunal stats consistency`): per criterion the mean entropy over
//!   repeats, its stability band, the share of consistent items and the flip rate
//!   (`data-mean-entropy`, `data-share`, `data-flip`, `data-stability`), the label flip rate and
//!   the shares of inconsistent items against the guide's review share, and the items whose
//!   repeats disagree most.
//! - Position bias (`tribunal stats position`): the first-position rate with its bootstrap
//!   interval and exact binomial test against the null rate, the flip and reversal rates
//!   between the two orders (`#position-summary` with `data-rate`, `data-lower`, `data-upper`,
//!   `data-p`, `data-flip`, `data-reversal`).
//!
//! Values in data attributes are full precision; a malformed file shows the located error and
//! keeps the previous result.

use crate::analysis_view::KindView;
use crate::examples::{self, ExampleButton};
use crate::fields::{number_field, text_field, Bounds, RatingsFields};
use crate::format::{fixed, given, name, words};
use crate::plain_reports::warning_lines;
use crate::reliability::read_all;
use crate::save_share::SaveAndShare;
use crate::worker_pool::AnalysisRun;
use crate::worker_pool::Computed;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::analysis::{Analysis, Report};
use tribunal::io::readable::p_text;
use tribunal::math::resample::BootstrapParams;
use tribunal::reliability::aa_report::{AaReport, AaReportParams};
use tribunal::reliability::aa_test::{AaTestParams, Flag};
use tribunal::reliability::consistency::ConsistencyParams;
use tribunal::reliability::consistency_report::{ConsistencyReport, ConsistencyReportParams};
use tribunal::reliability::position_bias::PositionBiasParams;
use tribunal::reliability::position_report::{PositionReport, PositionReportParams};
use tribunal_app::stats_worker::RoleFile;

#[component]
pub fn RunChecksCard() -> impl IntoView {
    let form = CheckForm::new();
    let checked = AnalysisRun::spawn(1);
    let input_ref = NodeRef::<leptos::html::Input>::new();
    let run = move |()| {
        let Some(input) = input_ref.get_untracked() else {
            return;
        };
        checked.busy.set(true);
        spawn_local(async move {
            match read_all(&input).await {
                Ok(files) => match files.into_iter().next() {
                    Some(file) => checked.run(form.computed(file)),
                    None => checked.fail("choose a ratings CSV".to_owned()),
                },
                Err(message) => checked.fail(message),
            }
        });
    };

    // The bundled judge's own runs on LLMFAO pairs, one file per check; the A/A test's two
    // runs and gold rater are raters of its file.
    let try_example = move || {
        let aa = form.check.get_untracked() == "aa";
        let file: &'static [&'static str] = match form.check.get_untracked().as_str() {
            "consistency" => &[examples::JUDGE_REPEATS],
            "position" => &[examples::JUDGE_ORDERS],
            _ => &[examples::JUDGE_RUNS],
        };
        examples::try_example(
            vec![(input_ref, file)],
            move || {
                form.fields.observe_chosen(input_ref);
                form.fields.set("item", "rater", "score", true);
                if aa {
                    form.run_a.set("run1".to_owned());
                    form.run_b.set("run2".to_owned());
                    form.gold.set("crowd".to_owned());
                }
                run(());
            },
            move |message| checked.fail(message),
        );
    };

    view! {
        <section id="runs" class="card">
            <h2>"Judge runs: A/A, self-consistency, position bias"</h2>
            <ExampleButton id="example-runs" what="the chosen check on the bundled judge SmolLM2-135M's own runs: sampled twice on 31 pairs with the crowd as gold (A/A, self-consistency), and 62 pairs shown in both orders (position bias)" on_try=Callback::new(move |()| try_example()) />
            <p class="hint">
                "One long-format ratings CSV of your judge's own runs. A/A: two runs of the same configuration as two raters (optionally a gold rater and the pass label). Self-consistency: repeats as the "
                <code>"variant"</code> " column (or as raters), one row per criterion in a " <code>"criterion"</code>
                " column. Position bias: verdicts " <code>"left/right/tie"</code> " by position with the order shown ("
                <code>"ab/ba"</code> ") as the variant. The same numbers as " <code>"tribunal stats aa|consistency|position"</code> "; bands and thresholds are the heuristics of the field guide Building a Trustworthy LLM-as-a-Judge (2025)."
            </p>
            <CheckSettings form />
            <div class="controls">
                <label class="file">"Ratings CSV " <input id="runs-input" type="file" accept=".csv,text/csv" node_ref=input_ref on:change=move |_| form.fields.observe_chosen(input_ref) /></label>
                <button id="runs-run" on:click=move |_| run(())>"Check"</button>
            </div>
            {move || checked.busy.get().then(|| view! { <p class="busy" role="status">"checking the runs…"</p> })}
            {move || checked.error.get().map(|m| view! { <div id="runs-error" class="error" role="alert">{m}</div> })}
            {move || checked.report.get().map(|r| view! { <CheckView report=r /> })}
            <SaveAndShare computed=checked.computed title="Judge runs check" prefix="runs-" busy=checked.busy />
        </section>
    }
}

/// The check and its settings, as the form holds them.
#[derive(Clone, Copy)]
struct CheckForm {
    check: RwSignal<String>,
    fields: RatingsFields,
    run_a: RwSignal<String>,
    run_b: RwSignal<String>,
    gold: RwSignal<String>,
    pass: RwSignal<String>,
    judge: RwSignal<String>,
    label: RwSignal<String>,
    rounds: RwSignal<usize>,
    seed: RwSignal<u64>,
}

impl CheckForm {
    fn new() -> Self {
        let text = || RwSignal::new(String::new());
        Self {
            check: RwSignal::new("aa".to_owned()),
            fields: RatingsFields::new("runs", true),
            run_a: text(),
            run_b: text(),
            gold: text(),
            pass: text(),
            judge: text(),
            label: text(),
            rounds: RwSignal::new(BootstrapParams::default().rounds),
            seed: RwSignal::new(BootstrapParams::default().seed),
        }
    }

    /// The chosen check of the ratings file (name, bytes).
    fn computed(self, (source, bytes): (String, Vec<u8>)) -> Computed {
        let (columns, ratings) = self.fields.settings();
        let judge = given(&self.judge.get_untracked());
        let analysis = match self.check.get_untracked().as_str() {
            "consistency" => Analysis::Consistency(ConsistencyReportParams {
                columns,
                ratings,
                rater: judge,
                consistency: ConsistencyParams {
                    label: given(&self.label.get_untracked()),
                    ..ConsistencyParams::default()
                },
            }),
            "position" => Analysis::Position(PositionReportParams {
                columns,
                rater: judge,
                test: PositionBiasParams {
                    bootstrap: BootstrapParams {
                        rounds: self.rounds.get_untracked(),
                        seed: self.seed.get_untracked(),
                        ..BootstrapParams::default()
                    },
                    ..PositionBiasParams::default()
                },
                ..PositionReportParams::default()
            }),
            _ => Analysis::Aa(AaReportParams {
                columns,
                ratings,
                runs: (self.run_a.get_untracked(), self.run_b.get_untracked()),
                gold: given(&self.gold.get_untracked()),
                pass: given(&self.pass.get_untracked()),
                criterion: None,
                variant: None,
                test: AaTestParams::default(),
            }),
        };
        // A file without the rater column is one judge named after the file, as in the CLI.
        let files = vec![RoleFile::new("ratings", source, bytes)];
        Computed::new(analysis, files)
    }
}

/// The check to run and the settings it reads.
#[component]
fn CheckSettings(form: CheckForm) -> impl IntoView {
    let CheckForm {
        check,
        fields,
        run_a,
        run_b,
        gold,
        pass,
        judge,
        label,
        rounds,
        seed,
    } = form;
    let is = move |name: &'static str| move || check.get() == name;
    view! {
        <div class="controls">
            <label>"Check "
                <select id="runs-check" on:change=move |ev| check.set(event_target_value(&ev))>
                    <option value="aa" prop:selected=is("aa")>"A/A test"</option>
                    <option value="consistency" prop:selected=is("consistency")>"self-consistency"</option>
                    <option value="position" prop:selected=is("position")>"position bias"</option>
                </select>
            </label>
            {fields.columns_view()}
            {fields.scale_view()}
        </div>
        <div class="controls">
            <Show when=is("aa")>
                {text_field("runs-a".to_owned(), "Run A", run_a)}
                {text_field("runs-b".to_owned(), "Run B", run_b)}
                {text_field("runs-gold".to_owned(), "Gold rater (optional)", gold)}
                {text_field("runs-pass".to_owned(), "Pass label (optional)", pass)}
            </Show>
            <Show when=move || check.get() != "aa">
                {text_field("runs-judge".to_owned(), "Judge (when the file has several)", judge)}
            </Show>
            <Show when=is("consistency")>
                {text_field("runs-label".to_owned(), "Label criterion (optional)", label)}
            </Show>
            <Show when=is("position")>
                {number_field("runs-rounds", "Bootstrap rounds", Bounds::from("2", "100"), rounds)}
                {number_field("runs-seed", "Seed", Bounds::from("0", "1"), seed)}
            </Show>
        </div>
    }
}

/// A check's report (A/A, self-consistency or position bias), then its warnings.
#[component]
pub(crate) fn CheckView(report: Report) -> impl IntoView {
    let (body, warnings) = match report {
        Report::Aa(report) => (
            view! { <AaView report=*report.clone() /> }.into_any(),
            report.warnings,
        ),
        Report::Consistency(report) => (
            view! { <ConsistencyView report=*report.clone() /> }.into_any(),
            report.warnings,
        ),
        Report::Position(report) => (
            view! { <PositionView report=*report.clone() /> }.into_any(),
            report.warnings,
        ),
        _ => (
            view! { <div class="error" role="alert">"not a check of a judge's runs"</div> }
                .into_any(),
            Vec::new(),
        ),
    };
    let warnings = warning_lines(warnings);
    view! {
        {body}
        {warnings}
    }
}

impl KindView for AaReport {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <CheckView report=Report::Aa(Box::new(self)) /> }.into_any()
    }
}

impl KindView for ConsistencyReport {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <CheckView report=Report::Consistency(Box::new(self)) /> }.into_any()
    }
}

impl KindView for PositionReport {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <CheckView report=Report::Position(Box::new(self)) /> }.into_any()
    }
}

/// What a flag asks of the user, in the guide's words.
fn flag_meaning(flag: Option<Flag>) -> &'static str {
    match flag {
        Some(Flag::Green) => "within the band: the judge is stable",
        Some(Flag::Amber) => "between one and two bands: review the rubric for ambiguity",
        Some(Flag::Red) => "beyond two bands: too stochastic, or the rubric is under-specified",
        None => "no flag (undefined)",
    }
}

/// A flag's name, "none" for no flag.
fn flag_name(flag: Option<Flag>) -> String {
    flag.map_or("none".to_owned(), |f| name(&f))
}

/// A run's own value of a check; "—" for the checks that compare the runs item by item.
fn per_run(v: Option<f64>) -> String {
    v.map_or("—".to_owned(), |v| fixed(v, 3))
}

#[component]
fn AaView(report: AaReport) -> impl IntoView {
    let runs = &report.settings.runs;
    let rows = report
        .checks
        .iter()
        .map(|c| {
            let flag = flag_name(c.flag);
            let (class, shown) = (format!("flag-{flag}"), flag.clone());
            view! {
                <tr class=class data-metric=name(&c.metric)
                    data-delta=c.delta.to_string() data-ratio=c.ratio.to_string()
                    data-flag=flag>
                    <td>{words(&c.metric)}</td>
                    <td class="num">{c.n_items.to_string()}</td>
                    <td class="num">{per_run(c.run_a)}</td>
                    <td class="num">{per_run(c.run_b)}</td>
                    <td class="num">{fixed(c.delta, 4)}</td>
                    <td class="num">{fixed(c.band, 3)}</td>
                    <td class="num">{fixed(c.ratio, 2)}</td>
                    <td><span class="flag">{shown}</span></td>
                </tr>
            }
        })
        .collect_view();
    let overall = flag_name(report.overall);
    view! {
        <p class="summary" id="aa-summary">{format!(
            "{} · runs `{}` and `{}` · {} items rated by both",
            report.input, runs.0, runs.1, report.n_items_both_runs,
        )}</p>
        <table tabindex="0" class="ratings" id="aa-checks">
            <thead>
                <tr>
                    <th>"Check"</th><th>"Items"</th><th>"Run A"</th><th>"Run B"</th><th>"Delta"</th>
                    <th>"Band"</th><th>"Delta / band"</th><th>"Flag"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <p id="aa-overall" class=format!("flag-{overall}") data-flag=overall.clone()>
            {format!("Overall: {overall} — {}", flag_meaning(report.overall))}
        </p>
    }
}

#[component]
fn ConsistencyView(report: ConsistencyReport) -> impl IntoView {
    let thresholds = &report.settings.thresholds;
    let rows = report
        .criteria
        .iter()
        .map(|c| {
            let (criterion, repeats) = (&c.consistency, c.repeats.len());
            view! {
                <tr data-name=criterion.name.clone()
                    data-mean-entropy=criterion.mean_entropy.to_string()
                    data-share=criterion.share_consistent.to_string()
                    data-flip=criterion.flip_rate.to_string()
                    data-stability=name(&criterion.stability)>
                    <td>{criterion.name.clone()}</td>
                    <td class="num">{criterion.n_items.to_string()}</td>
                    <td class="num">{criterion.skipped_items.to_string()}</td>
                    <td class="num">{repeats}</td>
                    <td class="num">{fixed(criterion.mean_entropy, 3)}</td>
                    <td>{words(&criterion.stability)}</td>
                    <td class="num">{fixed(criterion.share_consistent, 3)}</td>
                    <td class="num">{fixed(criterion.flip_rate, 3)}</td>
                </tr>
            }
        })
        .collect_view();
    // The items whose repeats disagree most, over every criterion.
    let mut unstable: Vec<(f64, String, String)> = report
        .criteria
        .iter()
        .flat_map(|c| {
            let name = &c.consistency.name;
            c.items
                .iter()
                .zip(&c.consistency.entropy)
                .filter_map(move |(item, h)| {
                    let h = h.filter(|&h| h > 0.0)?;
                    Some((h, name.clone(), item.clone()))
                })
        })
        .collect();
    unstable.sort_by(|a, b| b.0.total_cmp(&a.0));
    let worst = unstable
        .into_iter()
        .take(10)
        .map(|(h, criterion, item)| {
            view! { <tr><td>{item}</td><td>{criterion}</td><td class="num">{fixed(h, 3)}</td></tr> }
        })
        .collect_view();
    let label_flip = report.label_flip_rate.unwrap_or(f64::NAN);
    let inconsistent = report.share_items_inconsistent;
    let multiple = report.share_items_multiple_inconsistent;
    let review = thresholds.review_share;
    view! {
        <p class="summary" id="consistency-summary" data-label-flip=label_flip.to_string()
            data-inconsistent=inconsistent.to_string()
            data-multiple=multiple.to_string()>
            {format!(
                "{} · {} items · repeats are {} · label flip rate {} · items with an inconsistent criterion {} ({}) · with two or more {}",
                report.input,
                report.n_items,
                words(&report.settings.repeats_are),
                if label_flip.is_nan() { "— (no label criterion)".to_owned() } else { fixed(label_flip, 3) },
                fixed(inconsistent, 3),
                if inconsistent > review { format!("above {review}: the metric needs a redesign") } else { format!("at most {review}") },
                fixed(multiple, 3),
            )}
        </p>
        <table tabindex="0" class="ratings" id="consistency-table">
            <thead>
                <tr>
                    <th>"Criterion"</th><th>"Items"</th><th>"Skipped"</th><th>"Repeats"</th>
                    <th>"Mean H (bits)"</th><th>"Stability"</th><th>"Consistent share"</th><th>"Flip rate"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <p class="hint">{format!(
            "Stability (heuristic): mean H < {} excellent, < {} good, else unstable.",
            thresholds.excellent_below, thresholds.good_below
        )}</p>
        <details>
            <summary>"Items whose repeats disagree most"</summary>
            <table tabindex="0" class="ratings" id="consistency-items">
                <thead><tr><th>"Item"</th><th>"Criterion"</th><th>"H (bits)"</th></tr></thead>
                <tbody>{worst}</tbody>
            </table>
        </details>
    }
}

#[component]
fn PositionView(report: PositionReport) -> impl IntoView {
    let rate = &report.first_position_rate;
    let flip = &report.flip_rate;
    let test = &report.settings.test;
    let boot = &test.bootstrap;
    let level = 100.0 * boot.level;
    let significant = report.significant;
    view! {
        <p class="summary">{format!(
            "{} · {} pairs · {} verdicts ({} first, {} second, {} ties) · bootstrap: {} rounds, seed {}, {level:.0}% percentile CIs",
            report.input,
            report.n_pairs,
            report.n_verdicts,
            report.n_first,
            report.n_second,
            report.n_ties,
            boot.rounds,
            boot.seed,
        )}</p>
        <p id="position-summary" class:flagged=significant
            data-rate=rate.estimate.to_string() data-lower=rate.lower.to_string()
            data-upper=rate.upper.to_string() data-p=report.p_value.to_string()
            data-flip=flip.estimate.to_string() data-reversal=report.reversal_rate.to_string()
            data-significant=significant.to_string()>
            {format!(
                "First-position rate {} [{} – {}] · exact binomial test against {}: {} ({}) · {} pairs in both orders: flip rate {} [{} – {}], reversal rate {}",
                fixed(rate.estimate, 3),
                fixed(rate.lower, 3),
                fixed(rate.upper, 3),
                test.null_rate,
                p_text(report.p_value),
                if significant { format!("position bias at level {}", test.significance) } else { "no significant bias".to_owned() },
                report.n_both_orders,
                fixed(flip.estimate, 3),
                fixed(flip.lower, 3),
                fixed(flip.upper, 3),
                fixed(report.reversal_rate, 3),
            )}
        </p>
    }
}
