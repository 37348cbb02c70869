//! The reliability page (seeds 001, 003): pick a long-format ratings CSV (item, rater, score;
//! the column names are fields, LLMFAO's crowd votes are `id,worker,winner`) and optionally
//! judges' ratings CSVs. A web worker runs [`AgreementReportParams::fit`], the report
//! `tribunal stats agreement` prints; the page shows the group's Krippendorff's α with its bootstrap
//! interval and band, each judge's κ against the group's majority with interval, band, percent
//! agreement and confusion matrix, the number of items whose majority is tied, the warnings,
//! and a plot of every interval on the κ scale; for each named rater pair, percent agreement and
//! κ (and on the numeric scale weighted κ and Pearson/Spearman/Kendall) with intervals; α at the
//! chosen level (by default nominal or interval by scale). Cells carry full-precision values in data
//! attributes (`data-alpha`, `data-kappa`, `data-lower`, `data-upper`). When the ratings have a
//! `variant` column, a second worker runs [`IrtReportParams::fit_each`] (what `tribunal stats irt
//! --each` prints, per judge × criterion, with an optional human ratings CSV for θ_ratio and D_W) and
//! the IRT table shows C_V, ρ, θ_ratio and D_W, highlighted where C_V ≤ the C_V threshold (0.10)
//! and ρ ≥ the reliability threshold (0.70) as in seed 003 (`data-cv`, `data-rho`,
//! `data-theta-ratio`, `data-dw`, `data-ok`). A malformed file shows the located error and keeps
//! the previous results.

use crate::analysis_view::KindView;
use crate::charts::{ForestPlot, ForestRow, ScatterPlot};
use crate::examples::{self, ExampleButton};
use crate::fields::{number_field, text_field, Bounds, RatingsFields, StaleNote};
use crate::format::{fixed, name, words};
use crate::glossary::term;
use crate::plain_reports::warning_lines;
use crate::save_share::SaveAndShare;
use crate::worker_pool::AnalysisRun;
use crate::worker_pool::Computed;
use gloo_file::futures::read_as_bytes;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::analysis::{Analysis, Report};
use tribunal::math::resample::BootstrapParams;
use tribunal::reliability::agreement::{PairAgreement, Reading};
use tribunal::reliability::alpha::AlphaLevel;
use tribunal::reliability::irt::irt_reliability::ScoreMedian;
use tribunal::reliability::irt::irt_report::{IrtCell, IrtReport, IrtReportParams};
use tribunal::reliability::kinds::IrtTable as IrtTableReport;
use tribunal::reliability::kinds::{AgreementSpec, AgreementWithSlices};
use tribunal::reliability::reliability_report::{
    AgreementReport, AgreementReportParams, JudgeAgreement, NamedPair,
};
use tribunal::reliability::slices::{SliceParams, SliceReport};
use tribunal_app::stats_worker::RoleFile;
use web_sys::HtmlInputElement;

/// The files chosen in `input`, read.
pub(crate) async fn read_all(input: &HtmlInputElement) -> Result<Vec<(String, Vec<u8>)>, String> {
    let Some(list) = input.files() else {
        return Ok(Vec::new());
    };
    let mut files = Vec::new();
    for k in 0..list.length() {
        let Some(file) = list.get(k) else { continue };
        let file = gloo_file::File::from(file);
        let name = file.name();
        let bytes = read_as_bytes(&file)
            .await
            .map_err(|e| format!("{name}: the file could not be read: {e}"))?;
        files.push((name, bytes));
    }
    Ok(files)
}

#[component]
pub fn ReliabilityPage() -> impl IntoView {
    let agreement = AnalysisRun::spawn(1);
    let form = AgreementForm::new();
    let ratings_ref = NodeRef::<leptos::html::Input>::new();
    let judges_ref = NodeRef::<leptos::html::Input>::new();
    let human_ref = NodeRef::<leptos::html::Input>::new();
    let irt = AnalysisRun::spawn(1);

    let run = move || {
        let (Some(ratings), Some(judges), Some(human)) = (
            ratings_ref.get_untracked(),
            judges_ref.get_untracked(),
            human_ref.get_untracked(),
        ) else {
            return;
        };
        agreement.busy.set(true);
        spawn_local(async move {
            let files = match (
                read_all(&ratings).await,
                read_all(&judges).await,
                read_all(&human).await,
            ) {
                (Ok(r), Ok(j), Ok(h)) => Ok((r, j, h)),
                (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => Err(e),
            };
            let (inputs, judge_files, human_files) = match files {
                Ok(files) => files,
                Err(message) => return agreement.fail(message),
            };
            let Some(ratings) = inputs.into_iter().next() else {
                return agreement.fail("choose a ratings CSV".to_owned());
            };
            irt.run(form.irt_table(&ratings, human_files.into_iter().next()));
            match form.agreement(ratings, judge_files) {
                Ok(computed) => agreement.run(computed),
                Err(message) => agreement.fail(message),
            }
        });
    };

    // LLMFAO's crowd votes (`id,worker,winner`, nominal) with GPT-4 and GPT-3.5 as judges.
    let try_example = move || {
        examples::try_example(
            vec![
                (ratings_ref, &[examples::CROWD]),
                (judges_ref, &[examples::GPT4, examples::GPT3]),
                (human_ref, &[]),
            ],
            move || {
                form.fields.observe_chosen(ratings_ref);
                form.fields.set("id", "worker", "winner", true);
                run();
            },
            move |message| agreement.fail(message),
        );
    };
    examples::when_requested(ratings_ref, try_example);

    view! {
        <section id="reliability" class="card">
            <h2>"Agreement: judges against humans, and humans among themselves"</h2>
            <ExampleButton id="example-reliability" what="124 crowd workers' votes on 2,139 pairs, with GPT-4 and GPT-3.5 as judges" on_try=Callback::new(move |()| try_example()) />
            <AgreementSettings form />
            <div class="controls">
                <label class="file">"Ratings CSV " <input id="rel-input" type="file" accept=".csv,text/csv" node_ref=ratings_ref on:change=move |_| form.fields.observe_chosen(ratings_ref) /></label>
                <label class="file">"Judge CSVs " <input id="rel-judges" type="file" accept=".csv,text/csv" multiple node_ref=judges_ref /></label>
                <label class="file">"Human ratings CSV (IRT) " <input id="rel-human" type="file" accept=".csv,text/csv" node_ref=human_ref /></label>
                <button id="rel-run" on:click=move |_| run()>"Compute"</button>
            </div>
            <StaleNote id="rel-stale" shown=Signal::derive(move || agreement.report.with(Option::is_some)) busy=agreement.busy
                track=move || {
                    form.fields.track();
                    form.slice.track();
                    form.pairs.track();
                    form.level.track();
                    form.rounds.track();
                    form.seed.track();
                } />
            {move || agreement.busy.get().then(|| view! { <p class="busy" role="status" id="rel-busy">"computing agreement and bootstrap intervals…"</p> })}
            {move || agreement.error.get().map(|m| view! { <div id="rel-error" class="error" role="alert">{m}</div> })}
            {move || match agreement.report.get() {
                Some(Report::Agreement(report)) => Some(view! { <ReportView report=*report /> }),
                _ => None,
            }}
            <SaveAndShare computed=agreement.computed title="Agreement" prefix="rel-" busy=agreement.busy />
            {move || irt.busy.get().then(|| view! { <p class="busy" role="status">"fitting the graded response models…"</p> })}
            {move || irt.error.get().map(|m| view! { <div id="irt-error" class="error" role="alert">{m}</div> })}
            // No cells: the file has no variant column, so there is no IRT table to show or save.
            {move || match irt.report.get() {
                Some(Report::IrtTable(table)) if !table.cells.is_empty() => Some(view! {
                    <IrtTable cells=table.cells />
                    <SaveAndShare computed=irt.computed title="IRT table" prefix="irt-" busy=irt.busy />
                }),
                _ => None,
            }}
        </section>
    }
}

/// The agreement form's settings: the file's columns and scale, a slice column, the α level,
/// rater pairs, the bootstrap's rounds and seed.
#[derive(Clone, Copy)]
struct AgreementForm {
    fields: RatingsFields,
    slice: RwSignal<String>,
    pairs: RwSignal<String>,
    level: RwSignal<String>,
    rounds: RwSignal<usize>,
    seed: RwSignal<u64>,
}

impl AgreementForm {
    fn new() -> Self {
        Self {
            fields: RatingsFields::new("rel", false),
            slice: RwSignal::new(String::new()),
            pairs: RwSignal::new(String::new()),
            level: RwSignal::new(String::new()),
            rounds: RwSignal::new(BootstrapParams::default().rounds),
            seed: RwSignal::new(BootstrapParams::default().seed),
        }
    }

    /// The IRT table of the ratings file (name, bytes), against the human ratings when given.
    fn irt_table(self, ratings: &(String, Vec<u8>), human: Option<(String, Vec<u8>)>) -> Computed {
        let (columns, scale) = self.fields.settings();
        let mut files = vec![RoleFile::new(
            "ratings",
            ratings.0.clone(),
            ratings.1.clone(),
        )];
        files.extend(human.map(|(name, bytes)| RoleFile::new("human", name, bytes)));
        let analysis = Analysis::IrtTable(IrtReportParams {
            columns,
            ratings: scale,
            ..IrtReportParams::default()
        });
        Computed::new(analysis, files)
    }

    /// The agreement report of the ratings file and each judge file, or why the form gives none.
    fn agreement(
        self,
        (source, bytes): (String, Vec<u8>),
        judges: Vec<(String, Vec<u8>)>,
    ) -> Result<Computed, String> {
        let (columns, scale) = self.fields.settings();
        let report = AgreementReportParams {
            columns,
            ratings: scale,
            bootstrap: BootstrapParams {
                rounds: self.rounds.get_untracked(),
                seed: self.seed.get_untracked(),
                ..BootstrapParams::default()
            },
            pairs: parse_pairs(&self.pairs.get_untracked())?,
            level: match self.level.get_untracked().as_str() {
                "nominal" => Some(AlphaLevel::Nominal),
                "ordinal" => Some(AlphaLevel::Ordinal),
                "interval" => Some(AlphaLevel::Interval),
                "ratio" => Some(AlphaLevel::Ratio),
                _ => None,
            },
            ..AgreementReportParams::default()
        };
        let mut files = vec![RoleFile::new("ratings", source, bytes)];
        files.extend(judges.into_iter().enumerate().map(|(i, (name, bytes))| {
            RoleFile::new(AgreementSpec::judge_role(i + 1), name, bytes)
        }));
        let analysis = Analysis::Agreement(AgreementSpec {
            report,
            judges: files.len() - 1,
            slices: Some(self.slice.get_untracked().trim().to_owned())
                .filter(|c| !c.is_empty())
                .map(|column| SliceParams {
                    column,
                    alpha: 0.05,
                }),
        });
        Ok(Computed::new(analysis, files))
    }
}

/// What the agreement report reads and its settings ([`AgreementForm`]).
#[component]
fn AgreementSettings(form: AgreementForm) -> impl IntoView {
    let AgreementForm {
        fields,
        slice,
        pairs,
        level,
        rounds,
        seed,
    } = form;
    view! {
        <p class="hint">
            "A long-format ratings CSV (one row per item, rater and score; e.g. LLMFAO's "
            <code>"crowd-comparisons.csv"</code> " with columns " <code>"id,worker,winner"</code>
            ", nominal) gives " {term("alpha", "Krippendorff's α")} " of its raters; each judge's CSV (a file without the rater column is one judge named after the file) is compared with the raters' majority label by " {term("kappa", "Cohen's κ")} ". Intervals resample items with the seed — the same numbers as "
            <code>"tribunal stats agreement"</code> "."
        </p>
        <div class="controls">
            {fields.columns_view()}
            {text_field("rel-slice".to_owned(), "Slice column (optional)", slice)}
            {fields.scale_view()}
            <label>"α level "
                <select id="rel-level" on:change=move |ev| level.set(event_target_value(&ev))>
                    <option value="" prop:selected=move || level.get().is_empty()>"by scale"</option>
                    <option value="nominal">"nominal"</option>
                    <option value="ordinal">"ordinal"</option>
                    <option value="interval">"interval"</option>
                    <option value="ratio">"ratio"</option>
                </select>
            </label>
            {text_field("rel-pairs".to_owned(), "Rater pairs (A,B; C,D)", pairs)}
            {number_field("rel-rounds", "Bootstrap rounds", Bounds::from("2", "100"), rounds)}
            {number_field("rel-seed", "Seed", Bounds::from("0", "1"), seed)}
        </div>
    }
}

/// A row of the agreement plot: an estimate with its interval where both ends are finite.
fn agreement_row(label: String, (estimate, lower, upper): (f64, f64, f64)) -> ForestRow {
    ForestRow {
        label,
        estimate,
        ci: (lower.is_finite() && upper.is_finite()).then_some((lower, upper)),
        band: None,
        reference: None,
    }
}

/// The interval of a reading: (estimate, lower, upper).
fn interval(reading: &Reading) -> (f64, f64, f64) {
    let i = &reading.interval;
    (i.estimate, i.lower, i.upper)
}

/// A report: summary, α, judges against the majority, warnings, plot.
#[component]
pub(crate) fn ReportView(report: AgreementWithSlices) -> impl IntoView {
    let AgreementWithSlices { report, slices } = report;
    let settings = &report.settings;
    let boot = &settings.bootstrap;
    let level = boot.level;
    let labels: Vec<String> = settings.categories.clone().unwrap_or_default();
    let summary = format!(
        "{} · {} items · {} raters · {} ratings · {} scale · bootstrap: {} rounds, seed {}, {:.0}% percentile CIs",
        report.input,
        report.n_items,
        report.n_raters,
        report.n_ratings,
        name(&settings.scale),
        boot.rounds,
        boot.seed,
        100.0 * level
    );
    let mut bars = Vec::new();
    let alpha = report.group.as_ref().map(|group| {
        let (estimate, lower, upper) = interval(&group.reading);
        bars.push(agreement_row("α (group)".to_owned(), (estimate, lower, upper)));
        view! {
            <p id="rel-alpha" data-alpha=estimate.to_string() data-lower=lower.to_string() data-upper=upper.to_string()>
                {format!(
                    "Krippendorff's α ({} level) = {} [{} – {}] · band: {} (at the lower bound: {}) · {}",
                    name(&settings.level),
                    fixed(estimate, 3),
                    fixed(lower, 3),
                    fixed(upper, 3),
                    words(&group.reading.band),
                    words(&group.reading.band_at_lower),
                    words(&group.reading.adequacy),
                )}
            </p>
        }
    });
    let majority = report.majority.as_ref().map(|m| {
        view! {
            <p id="rel-majority" data-tied=m.n_tied.to_string()>
                {format!(
                    "Majority labels: {} items, {} with a tied majority (left out of the judges' comparisons)",
                    m.n_items, m.n_tied
                )}
            </p>
        }
    });
    for j in &report.judges {
        let kappa = interval(&j.agreement.agreement.kappa);
        bars.push(agreement_row(format!("κ {}", j.agreement.rater), kappa));
    }
    let table = (!report.judges.is_empty()).then(|| {
        view! { <JudgeTable judges=report.judges.clone() labels level /> }
    });
    let warnings = warning_lines(report.warnings.clone());
    let plot = (!bars.is_empty()).then(|| {
        view! {
            <ForestPlot rows=bars axis="agreement (κ, α)" caption=format!(
                "α and each judge's κ with {:.0}% bootstrap intervals; the bands: slight, fair, moderate, substantial, almost perfect above 0, 0.2, 0.4, 0.6, 0.8 (rules of thumb, not standards)",
                100.0 * level
            ) />
        }
    });
    let pair_table = (!report.pairs.is_empty())
        .then(|| view! { <PairTable pairs=report.pairs.clone() level /> });
    let slices = slices.map(|slices| view! { <SliceTable slices /> });
    let reading = reading(&report);
    view! {
        {reading.map(|r| view! { <p class="reading" id="rel-reading">{r}</p> })}
        <p class="summary" id="rel-summary">{summary}</p>
        {alpha}
        {majority}
        {table}
        {warnings}
        {pair_table}
        {plot}
        {slices}
    }
}

impl KindView for AgreementWithSlices {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <ReportView report=self /> }.into_any()
    }
}

/// One sentence that reads the report: how far the raters agree among themselves, and which
/// judge agrees best with their majority.
fn reading(report: &AgreementReport) -> Option<String> {
    let group = report.group.as_ref().map(|g| {
        let (estimate, lower, upper) = interval(&g.reading);
        format!(
            "The {} raters agree with each other at α = {} ({} to {}, {}).",
            report.n_raters,
            fixed(estimate, 2),
            fixed(lower, 2),
            fixed(upper, 2),
            words(&g.reading.band)
        )
    });
    let best = report
        .judges
        .iter()
        .map(|j| (j, interval(&j.agreement.agreement.kappa)))
        .filter(|(_, (kappa, _, _))| kappa.is_finite())
        .max_by(|a, b| a.1 .0.total_cmp(&b.1 .0))
        .map(|(j, (kappa, lower, upper))| {
            format!(
                " Of the judges, {} agrees best with their majority: κ = {} ({} to {}).",
                j.agreement.rater,
                fixed(kappa, 2),
                fixed(lower, 2),
                fixed(upper, 2)
            )
        });
    match (group, best) {
        (None, None) => None,
        (group, best) => Some(
            format!("{}{}", group.unwrap_or_default(), best.unwrap_or_default())
                .trim()
                .to_owned(),
        ),
    }
}

/// Each judge against the majority: κ with interval, band, rule of thumb, percent agreement
/// and the confusion matrix (rows: majority, columns: judge).
#[component]
fn JudgeTable(judges: Vec<JudgeAgreement>, labels: Vec<String>, level: f64) -> impl IntoView {
    let rows = judges
        .into_iter()
        .map(|j| {
            let rater = j.agreement.rater;
            let rater_attr = rater.clone();
            let a = j.agreement.agreement;
            let (kappa, lower, upper) = interval(&a.kappa);
            let (pa, pa_lower, pa_upper) = interval(&a.percent_agreement);
            let header = labels.iter().map(|l| view! { <th>{l.clone()}</th> }).collect_view();
            let confusion = a
                .confusion
                .iter()
                .enumerate()
                .map(|(r, row)| {
                    let cells = row
                        .iter()
                        .map(|c| view! { <td class="num">{c.to_string()}</td> })
                        .collect_view();
                    view! { <tr><th>{labels.get(r).cloned().unwrap_or_else(|| r.to_string())}</th>{cells}</tr> }
                })
                .collect_view();
            view! {
                <tr data-rater=rater_attr
                    data-kappa=kappa.to_string() data-lower=lower.to_string() data-upper=upper.to_string()
                    data-agreement=pa.to_string()>
                    <td>{rater}</td>
                    <td>{j.source}</td>
                    <td class="num">{j.agreement.n_paired.to_string()}</td>
                    <td class="num">{fixed(kappa, 3)}</td>
                    <td class="num">{format!("{} – {}", fixed(lower, 3), fixed(upper, 3))}</td>
                    <td>{words(&a.kappa.band)}</td>
                    <td>{words(&a.kappa.adequacy)}</td>
                    <td class="num">{format!("{} [{} – {}]", fixed(pa, 3), fixed(pa_lower, 3), fixed(pa_upper, 3))}</td>
                    <td>
                        <details>
                            <summary>"rows: majority, columns: judge"</summary>
                            <table tabindex="0" class="ratings confusion">
                                <thead><tr><th>"Majority \\ judge"</th>{header}</tr></thead>
                                <tbody>{confusion}</tbody>
                            </table>
                        </details>
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table tabindex="0" class="ratings" id="rel-judges-table">
            <caption>"Each judge against the raters' majority"</caption>
            <thead>
                <tr>
                    <th>"Judge"</th><th>"File"</th><th>"Items"</th><th>"κ vs majority"</th>
                    <th>{format!("{:.0}% CI", 100.0 * level)}</th><th>"Band"</th><th>"Rule of thumb"</th>
                    <th>"Percent agreement"</th><th>"Confusion"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// `A,B; C,D` → the rater pairs.
fn parse_pairs(text: &str) -> Result<Vec<(String, String)>, String> {
    text.split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(
            |p| match p.split(',').map(str::trim).collect::<Vec<_>>()[..] {
                [a, b] if !a.is_empty() && !b.is_empty() => Ok((a.to_owned(), b.to_owned())),
                _ => Err(format!(
                    "rater pairs: expected `A,B` pairs separated by `;`, found `{p}`"
                )),
            },
        )
        .collect()
}

/// The readings of a rater pair, in the order shown: (key, label, reading); the numeric
/// scale adds weighted κ and the correlations.
fn pair_readings(p: &PairAgreement) -> Vec<(&'static str, &'static str, &Reading)> {
    [
        (
            "percent_agreement",
            "percent agreement",
            Some(&p.percent_agreement),
        ),
        ("kappa", "Cohen's κ", Some(&p.kappa)),
        (
            "linear_kappa",
            "weighted κ (linear)",
            p.linear_kappa.as_ref(),
        ),
        (
            "quadratic_kappa",
            "weighted κ (quadratic)",
            p.quadratic_kappa.as_ref(),
        ),
        ("pearson", "Pearson r", p.pearson.as_ref()),
        ("spearman", "Spearman ρ", p.spearman.as_ref()),
        ("kendall_tau_b", "Kendall τ-b", p.kendall_tau_b.as_ref()),
    ]
    .into_iter()
    .filter_map(|(key, label, reading)| reading.map(|r| (key, label, r)))
    .collect()
}

/// Each rater pair: every statistic with its interval, band and rule of thumb.
#[component]
fn PairTable(pairs: Vec<NamedPair>, level: f64) -> impl IntoView {
    let rows = pairs
        .iter()
        .flat_map(|p| {
            let name = format!("{},{}", p.a, p.b);
            let n = p.agreement.n_items.to_string();
            pair_readings(&p.agreement)
                .into_iter()
                .map(|(key, label, reading)| {
                    let (estimate, lower, upper) = interval(reading);
                    view! {
                        <tr data-pair=name.clone() data-stat=key data-estimate=estimate.to_string()
                            data-lower=lower.to_string() data-upper=upper.to_string()>
                            <td>{name.clone()}</td>
                            <td class="num">{n.clone()}</td>
                            <td>{label}</td>
                            <td class="num">{format!("{} [{} – {}]", fixed(estimate, 3), fixed(lower, 3), fixed(upper, 3))}</td>
                            <td>{words(&reading.band)}</td>
                            <td>{words(&reading.adequacy)}</td>
                        </tr>
                    }
                })
                .collect::<Vec<_>>()
        })
        .collect_view();
    view! {
        <h3>"Rater pairs"</h3>
        <table tabindex="0" class="ratings" id="rel-pairs-table">
            <thead>
                <tr>
                    <th>"Pair"</th><th>"Items"</th><th>"Statistic"</th>
                    <th>{format!("Estimate [{:.0}% CI]", 100.0 * level)}</th><th>"Band"</th><th>"Rule of thumb"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// Each judge's agreement with the majority per slice, tested against the other slices, with
/// Holm and BH adjusted p-values; rejected rows highlighted.
#[component]
fn SliceTable(slices: SliceReport) -> impl IntoView {
    let column = slices.settings.column.clone();
    let alpha = slices.settings.alpha;
    let rows = slices
        .judges
        .into_iter()
        .flat_map(|judge| {
            let rater = judge.rater;
            judge
                .slices
                .into_iter()
                .map(move |c| {
                    let (pa, pa_lower, pa_upper) = interval(&c.percent_agreement);
                    let (kappa, lower, upper) = interval(&c.kappa);
                    let flagged = c.holm_reject || c.bh_reject;
                    view! {
                        <tr class:flagged=flagged data-rater=rater.clone()
                            data-value=c.value.clone()
                            data-p=c.p_value.to_string() data-holm=c.holm.to_string()
                            data-bh=c.bh_q.to_string()>
                            <td>{rater.clone()}</td>
                            <td>{c.value.clone()}</td>
                            <td class="num">{c.n_compared.to_string()}</td>
                            <td class="num">{format!("{} [{} – {}]", fixed(pa, 3), fixed(pa_lower, 3), fixed(pa_upper, 3))}</td>
                            <td class="num">{fixed(c.rest_agreement, 3)}</td>
                            <td class="num">{format!("{} [{} – {}]", fixed(kappa, 3), fixed(lower, 3), fixed(upper, 3))}</td>
                            <td class="num">{fixed(c.p_value, 4)}</td>
                            <td class="num">{fixed(c.holm, 4)}</td>
                            <td class="num">{fixed(c.bh_q, 4)}</td>
                        </tr>
                    }
                })
                .collect::<Vec<_>>()
        })
        .collect_view();
    view! {
        <h3>{format!("Slices by `{column}`: each slice against the rest")}</h3>
        <table tabindex="0" class="ratings" id="rel-slices">
            <thead>
                <tr>
                    <th>"Judge"</th><th>"Slice"</th><th>"Items"</th><th>"Agreement"</th><th>"Rest"</th>
                    <th>"κ vs majority"</th><th>"p (z-test)"</th><th>"Holm"</th><th>"BH q"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <p class="hint">{format!("Two-proportion z-test of each slice's agreement against the other slices'; Holm–Bonferroni and Benjamini–Hochberg across the slices of a judge; highlighted: adjusted p ≤ {alpha}.")}</p>
    }
}

/// The IRT table: one row per judge × criterion.
#[component]
pub(crate) fn IrtTable(cells: Vec<IrtCell>) -> impl IntoView {
    let rows = cells.iter().map(irt_row).collect_view();
    let warnings = warning_lines(
        cells
            .iter()
            .filter_map(|c| c.report.as_ref())
            .flat_map(|r| r.warnings.clone())
            .collect(),
    );
    // Seed 003's Fig. 1 per cell with human ratings: the median θ̂ of the judge's fit and of the
    // humans' fit, per human score.
    let medians = |v: &[ScoreMedian]| -> Vec<(f64, f64)> {
        v.iter()
            .map(|m| (f64::from(m.score), m.median_theta))
            .collect()
    };
    let figures = cells
        .iter()
        .filter_map(|c| {
            let human = c.report.as_ref()?.human.as_ref()?;
            let who = format!(
                "{}{}",
                c.rater,
                c.criterion
                    .as_ref()
                    .map(|k| format!(" · {k}"))
                    .unwrap_or_default()
            );
            let alignment = &human.alignment;
            Some(view! {
                <div class="irt-fig1" data-rater=c.rater.clone()>
                    <ScatterPlot
                        series=vec![
                            ("judge θ̂".to_owned(), medians(&alignment.llm_by_human_score)),
                            ("human θ̂".to_owned(), medians(&alignment.human_by_human_score)),
                        ]
                        x_label="the human score"
                        y_label=format!("median θ̂ ({who}, Choi et al., Fig. 1)") />
                </div>
            })
        })
        .collect_view();
    view! {
        <h3>"IRT (graded response model per judge × criterion)"</h3>
        <table tabindex="0" class="ratings" id="irt-table">
            <thead>
                <tr>
                    <th>"Judge"</th><th>"Criterion"</th><th>"Variants × items"</th><th>"C_V"</th>
                    <th>"ρ"</th><th>"θ_ratio"</th><th>"D_W"</th><th>"Seed 003 (C_V ≤ 0.10, ρ ≥ 0.70)"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        {warnings}
        {figures}
    }
}

impl KindView for IrtTableReport {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <IrtTable cells=self.cells /> }.into_any()
    }
}

/// One IRT report: the table's row of the judge (`rater`) and criterion its spec names.
impl KindView for IrtReport {
    fn view(self, analysis: &Analysis) -> AnyView {
        let (rater, criterion) = match analysis {
            Analysis::Irt(params) => (params.rater.clone(), params.criterion.clone()),
            _ => (None, None),
        };
        let cell = IrtCell {
            rater: rater.unwrap_or_else(|| "judge".to_owned()),
            criterion,
            report: Some(self),
            error: None,
        };
        view! { <IrtTable cells=vec![cell] /> }.into_any()
    }
}

/// A judge × criterion of the IRT table: C_V, ρ, θ_ratio, D_W and whether seed 003's
/// thresholds hold, or why the cell could not be fitted.
fn irt_row(cell: &IrtCell) -> AnyView {
    let rater = cell.rater.clone();
    let criterion = cell.criterion.clone().unwrap_or_else(|| "—".to_owned());
    let (rater_attr, criterion_attr) = (rater.clone(), criterion.clone());
    let Some(r) = &cell.report else {
        let why = cell.error.clone().unwrap_or_default();
        return view! {
            <tr data-rater=rater_attr data-criterion=criterion_attr>
                <td>{rater}</td><td>{criterion}</td><td colspan="6" class="warning">{why}</td>
            </tr>
        }
        .into_any();
    };
    let c_v = r.intrinsic_consistency.as_ref().map_or(f64::NAN, |c| c.c_v);
    let rho = r.marginal_reliability;
    let alignment = r.human.as_ref().map(|h| &h.alignment);
    let theta_ratio = alignment.map_or(f64::NAN, |a| a.theta_ratio);
    let d_w = alignment.map_or(f64::NAN, |a| a.wasserstein);
    let thresholds = &r.settings.thresholds;
    let ok = c_v <= thresholds.max_c_v && rho >= thresholds.min_reliability;
    let shown = |v: f64| alignment.map_or("—".to_owned(), |_| fixed(v, 3));
    view! {
        <tr class:ok=ok data-ok=ok.to_string() data-rater=rater_attr data-criterion=criterion_attr
            data-cv=c_v.to_string() data-rho=rho.to_string()
            data-theta-ratio=theta_ratio.to_string() data-dw=d_w.to_string()>
            <td>{rater}</td>
            <td>{criterion}</td>
            <td class="num">{format!("{} × {}", r.variants.len(), r.items.len())}</td>
            <td class="num">{fixed(c_v, 3)}</td>
            <td class="num">{fixed(rho, 3)}</td>
            <td class="num">{shown(theta_ratio)}</td>
            <td class="num">{shown(d_w)}</td>
            <td>{if ok { "consistent and reliable" } else { "below the IRT paper's thresholds (C_V ≤ 0.10, ρ ≥ 0.70)" }}</td>
        </tr>
    }
    .into_any()
}
