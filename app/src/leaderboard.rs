//! The Leaderboard page (`/leaderboard`). Pick a battles CSV (or try the example): the point
//! fit appears first, then a seeded bootstrap runs across web workers with a progress bar and
//! adds intervals and CI-aware ranks. A malformed file shows the located error and keeps the
//! previous leaderboard. The Judge-vs-humans page (`/judge`) compares a judge with human labels
//! (seed 002): both leaderboards, held-out hard vs smoothed (vs soft, with scores) Elo, and
//! split-conformal intervals for new models.

use crate::analysis_view::KindView;
use crate::charts::{ForestPlot, ForestRow, ReliabilityDiagram, ScatterPlot};
use crate::examples::{self, ExampleButton};
use crate::fields::{number_field, Bounds, StaleNote};
use crate::files::chosen_text;
use crate::format::target_words;
use crate::glossary::term;
use crate::plain_reports::warning_lines;
use crate::save_share::SaveAndShare;
use crate::worker_pool::{AnalysisRun, Computed};
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::analysis::{Analysis, Report};
use tribunal::math::resample::BootstrapParams;
use tribunal::rankings::anchor::Anchor;
use tribunal::rankings::bradley_terry::BradleyTerryParams;
use tribunal::rankings::judge_study::{ConformalRun, JudgeStudy};
use tribunal::rankings::kinds::{LeaderboardSpec, StudySpec};
use tribunal::rankings::leaderboard::Leaderboard;
use tribunal_app::stats_worker::{Content, RoleFile, Upload};
use web_sys::HtmlInputElement;

/// How many workers share a bootstrap.
const WORKERS: usize = 2;

/// The text file chosen in `input`, if any.
async fn read(input: &HtmlInputElement) -> Option<Result<Upload, String>> {
    chosen_text(Some(input)).await.transpose()
}

/// Clears `input`'s file, so that picking the same file again is a change.
fn forget_file(input: NodeRef<leptos::html::Input>) {
    if let Some(input) = input.get_untracked() {
        input.set_value("");
    }
}

/// What the leaderboard on screen was fitted from: the file and every setting.
#[derive(Clone)]
pub struct BoardInput {
    pub upload: Upload,
    pub spec: LeaderboardSpec,
}

impl BoardInput {
    /// The analysis: its spec and its file.
    pub fn computed(&self) -> Computed {
        Computed::new(
            Analysis::Leaderboard(self.spec.clone()),
            vec![RoleFile::text("battles", self.upload.clone())],
        )
    }
}

/// A leaderboard fitted in web workers ([`AnalysisRun`]): the point fit first, then the
/// bootstrap's rounds split across [`WORKERS`] workers with progress, then the intervals. A
/// failed fit shows its error and keeps the previous leaderboard on screen. Copy it into
/// closures.
#[derive(Clone, Copy)]
pub struct BoardRun {
    pub run: AnalysisRun,
    /// The leaderboard on screen.
    pub board: Signal<Option<Leaderboard>>,
    /// What is being read or fitted, until its leaderboard (or error) shows.
    status: RwSignal<Option<String>>,
}

impl BoardRun {
    /// Spawns the workers.
    pub fn spawn() -> Self {
        let run = AnalysisRun::spawn(WORKERS);
        let status = RwSignal::new(None);
        Effect::new(move |_| {
            run.report.track();
            run.error.track();
            status.set(None);
        });
        Self {
            run,
            board: Signal::derive(move || {
                run.report.with(|r| match r {
                    Some(Report::Leaderboard(lb)) => Some((**lb).clone()),
                    _ => None,
                })
            }),
            status,
        }
    }

    /// What the leaderboard on screen was fitted from.
    pub fn shown(self) -> Option<BoardInput> {
        self.run.computed.with_untracked(|c| {
            let Computed { spec, files } = c.as_ref()?;
            let Analysis::Leaderboard(spec) = &spec.analysis else {
                return None;
            };
            match files.iter().find(|f| f.role == "battles")? {
                RoleFile {
                    name,
                    content: Content::Text(text),
                    hash,
                    ..
                } => Some(BoardInput {
                    upload: Upload {
                        name: name.clone(),
                        text: text.clone(),
                        hash: hash.clone(),
                    },
                    spec: spec.clone(),
                }),
                _ => None,
            }
        })
    }

    /// Fits `upload` as `spec` says.
    pub fn fit(self, upload: Upload, spec: LeaderboardSpec) {
        self.status.set(Some(format!("fitting {}…", upload.name)));
        self.run.run(BoardInput { upload, spec }.computed());
    }

    /// Whether a file is being read or fitted: the leaderboard on screen is about to be
    /// replaced (the bootstrap of the one on screen is not that).
    pub fn loading(self) -> bool {
        self.status.with(Option::is_some)
    }

    /// Shows a message as this run's status.
    pub fn say(self, message: Option<String>) {
        self.status.set(message);
    }

    /// Shows an error (a file that could not be read).
    pub fn fail(self, message: String) {
        self.run.fail(message);
    }
}

/// A run's status, bootstrap progress, error and leaderboard.
#[component]
pub fn BoardRunView(run: BoardRun) -> impl IntoView {
    view! {
        {move || run.status.get().map(|s| view! { <p class="busy" role="status">{s}</p> })}
        {move || run.run.progress.get().map(|(done, total)| view! {
            <p class="busy" role="status" id="bootstrap-progress">
                <progress max=total value=done></progress>
                {format!(" bootstrap {done} / {total} rounds")}
            </p>
        })}
        {move || run.run.error.get().map(|message| view! { <div id="error" class="error" role="alert">{message}</div> })}
        {move || run.board.get().map(|lb| view! { <LeaderboardView lb /> })}
    }
}

#[component]
pub fn LeaderboardPage() -> impl IntoView {
    let run = BoardRun::spawn();
    let form = BoardForm::new();
    let fit = move |upload: Upload| run.fit(upload, form.spec());
    let battles_ref = NodeRef::<leptos::html::Input>::new();
    let fit_chosen = move || {
        let Some(input) = battles_ref.get_untracked() else {
            return;
        };
        run.say(Some("reading the file…".to_owned()));
        spawn_local(async move {
            match read(&input).await {
                Some(Ok(upload)) => fit(upload),
                Some(Err(message)) => {
                    run.fail(message);
                    run.say(None);
                }
                None => run.say(None),
            }
        });
    };
    let try_example = move || {
        examples::try_example(
            vec![(battles_ref, &[examples::CROWD])],
            fit_chosen,
            move |message| run.fail(message),
        );
    };
    examples::when_requested(battles_ref, try_example);
    // A new setting refits the file on screen.
    let refit = Callback::new(move |()| {
        if let Some(shown) = run.shown() {
            fit(shown.upload);
        }
    });

    view! {
        <section id="leaderboard" class="card">
            <h2>"Leaderboard"</h2>
            <p class="hint">
                "Pick a battles CSV (" <code>"model_a,model_b,winner"</code> " or LLMFAO's "
                <code>"left,right,winner"</code>
                "). " {term("bradley-terry", "Bradley–Terry")} " with " {term("sandwich", "sandwich standard errors")} ", then a seeded " {term("bootstrap", "bootstrap")} " with " {term("ci-aware-ranks", "CI-aware ranks")} " (resampling battles, or clusters of battles such as prompts) — all in this browser, in web workers; the file is not uploaded anywhere."
            </p>
            <ExampleButton id="example-leaderboard" what="The crowd's 8,931 votes on 59 models' answers to 13 instructions" on_try=Callback::new(move |()| try_example()) />
            <div class="controls">
                <BoardSettings form run refit />
                <label class="file">"Battles CSV "
                    // The input forgets its file when clicked: choosing the same file again
                    // refits it.
                    <input id="csv-input" type="file" accept=".csv,text/csv" node_ref=battles_ref
                        on:click=move |_| forget_file(battles_ref)
                        on:change=move |_| fit_chosen() />
                </label>
            </div>
            <BoardRunView run />
            <SaveAndShare computed=run.run.computed title="Leaderboard" busy=Signal::derive(move || run.loading()) />
        </section>
    }
}

/// The leaderboard form's settings.
#[derive(Clone, Copy)]
struct BoardForm {
    rounds: RwSignal<usize>,
    seed: RwSignal<u64>,
    lambda: RwSignal<f64>,
    cluster: RwSignal<String>,
    anchor_model: RwSignal<String>,
    anchor_elo: RwSignal<f64>,
}

impl BoardForm {
    fn new() -> Self {
        Self {
            rounds: RwSignal::new(BootstrapParams::default().rounds),
            seed: RwSignal::new(BootstrapParams::default().seed),
            lambda: RwSignal::new(BradleyTerryParams::default().lambda),
            cluster: RwSignal::new(String::new()),
            anchor_model: RwSignal::new(String::new()),
            anchor_elo: RwSignal::new(1500.0),
        }
    }

    /// Every setting of the form: what the leaderboard is fitted with, shared and saved.
    fn spec(self) -> LeaderboardSpec {
        let model = self.anchor_model.get_untracked();
        LeaderboardSpec {
            bradley_terry: BradleyTerryParams {
                lambda: self.lambda.get_untracked(),
                ..BradleyTerryParams::default()
            },
            bootstrap: BootstrapParams {
                rounds: self.rounds.get_untracked(),
                seed: self.seed.get_untracked(),
                ..BootstrapParams::default()
            },
            cluster: Some(self.cluster.get_untracked().trim().to_owned()).filter(|c| !c.is_empty()),
            anchor: (!model.is_empty()).then(|| Anchor {
                model,
                elo: self.anchor_elo.get_untracked(),
            }),
        }
    }
}

/// The leaderboard's settings; every change — rounds, seed, λ, cluster column, anchor — refits
/// the file on screen (`refit`). The anchor's choices are the models of `run`'s board.
#[component]
fn BoardSettings(form: BoardForm, run: BoardRun, refit: Callback<()>) -> impl IntoView {
    let BoardForm {
        rounds,
        seed,
        lambda,
        cluster,
        anchor_model,
        anchor_elo,
    } = form;
    // Only a new value refits: a field that says `change` again on blur with the same value
    // (as it does when a button is pressed next) must not restart the fit.
    let bootstrap = Memo::new(move |_| (rounds.get(), seed.get()));
    Effect::watch(move || bootstrap.get(), move |_, _, _| refit.run(()), false);
    let models = move || {
        run.board
            .get()
            .map(|lb| lb.ratings.into_iter().map(|r| r.model).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    view! {
        {number_field("rounds", "Bootstrap rounds", Bounds::from("0", "100"), rounds)}
        {number_field("seed", "Seed", Bounds::from("0", "1"), seed)}
        <label>"L2 penalty λ "
            <input id="lambda" type="number" min="0" step="any" prop:value=move || lambda.get().to_string()
                on:change=move |ev| {
                    if let Ok(value) = event_target_value(&ev).parse() {
                        lambda.set(value);
                        refit.run(());
                    }
                } />
        </label>
        <label>"Resample clusters by column "
            <input id="cluster" type="text" placeholder="none: resample battles (e.g. prompt)"
                prop:value=move || cluster.get()
                on:change=move |ev| { cluster.set(event_target_value(&ev).trim().to_owned()); refit.run(()); } />
        </label>
        <label>"Anchor model "
            <input id="anchor-model" type="text" list="anchor-models" placeholder="none: mean at 1500"
                prop:value=move || anchor_model.get()
                on:change=move |ev| { anchor_model.set(event_target_value(&ev).trim().to_owned()); refit.run(()); } />
            <datalist id="anchor-models">
                {move || models().into_iter().map(|m| view! { <option value=m></option> }).collect_view()}
            </datalist>
        </label>
        <label>"at Elo "
            <input id="anchor-elo" type="number" step="any" prop:value=move || anchor_elo.get().to_string()
                on:change=move |ev| {
                    if let Ok(elo) = event_target_value(&ev).parse() {
                        anchor_elo.set(elo);
                        refit.run(());
                    }
                } />
        </label>
    }
}

/// One sentence that reads the leaderboard: who leads, and how many models its intervals
/// allow to be first.
fn reading(lb: &Leaderboard) -> Option<String> {
    let top = lb.ratings.first()?;
    let Some(ci) = top.bootstrap else {
        return Some(format!(
            "{} has the highest rating (Elo {:.0}); without the bootstrap there are no intervals to say how sure that is.",
            top.model, top.elo
        ));
    };
    let could_lead = lb
        .ratings
        .iter()
        .filter(|r| r.bootstrap.is_some_and(|b| b.rank == 1))
        .count();
    let bound =
        |b: Option<f64>, open: &str| b.map_or_else(|| open.to_owned(), |v| format!("{v:.0}"));
    let interval = format!("{}–{}", bound(ci.lower, "−∞"), bound(ci.upper, "∞"));
    Some(if could_lead <= 1 {
        format!(
            "{} leads at Elo {:.0} ({interval}), and its interval is clear of every other model's: it is first.",
            top.model, top.elo
        )
    } else {
        format!(
            "{} leads at Elo {:.0} ({interval}), but {} models' intervals reach the top: any of them could be first.",
            top.model, top.elo, could_lead
        )
    })
}

/// A fitted leaderboard: a reading of it, summary line, table and forest plot.
#[component]
pub fn LeaderboardView(lb: Leaderboard) -> impl IntoView {
    let reading = reading(&lb);
    let boot = lb.bootstrap.map(|b| {
        format!(
            " · bootstrap: {} rounds, seed {}, {:.0}% percentile CIs ({} converged)",
            b.settings.rounds,
            b.settings.seed,
            100.0 * b.settings.level,
            b.converged_rounds
        )
    });
    let anchored = lb
        .anchor
        .as_ref()
        .map(|a| format!(" · anchored: {} at Elo {}", a.model, a.elo));
    let summary = format!(
        "{} · {} battles ({} ties) · {} models · λ = {} · {} Newton iterations{}{}{}",
        lb.source,
        lb.n_battles,
        lb.n_ties,
        lb.n_models,
        lb.settings.lambda,
        lb.iterations,
        if lb.converged { "" } else { " (not converged)" },
        anchored.unwrap_or_default(),
        boot.unwrap_or_default()
    );
    let has_ci = lb.bootstrap.is_some();
    let caption = match lb.bootstrap {
        Some(b) => format!(
            "Elo with {:.0}% bootstrap CIs (whiskers)",
            100.0 * b.settings.level
        ),
        None => "Elo (point estimates; no bootstrap)".to_owned(),
    };
    let rows = lb
        .ratings
        .iter()
        .map(|r| {
            let ci = r.bootstrap.map(|b| {
                // An open side (a separated model) is unbounded: ±Infinity for scripts, ∞ on
                // screen.
                let bound = |v: Option<f64>, open: &str| v.map_or(open.to_owned(), |v| v.to_string());
                let shown = |v: Option<f64>, open: &str| v.map_or(open.to_owned(), |v| format!("{v:.1}"));
                view! {
                    <td class="num" data-lower=bound(b.lower, "-Infinity") data-upper=bound(b.upper, "Infinity")>
                        {format!("{} – {}", shown(b.lower, "−∞"), shown(b.upper, "∞"))}
                    </td>
                    <td class="num">{if b.rank == b.worst_rank { b.rank.to_string() } else { format!("{}–{}", b.rank, b.worst_rank) }}</td>
                }
            });
            view! {
                <tr data-model=r.model.clone() data-elo=r.elo.to_string()>
                    <td class="num">{r.rank}</td>
                    <td>{r.model.clone()}</td>
                    <td class="num">{format!("{:.1}", r.elo)}</td>
                    <td class="num">{r.se.map_or_else(|| "—".to_owned(), |se| format!("{se:.1}"))}</td>
                    {ci}
                    <td class="num">{r.battles}</td>
                    <td class="num">{format!("{:.1}", r.score)}</td>
                </tr>
            }
        })
        .collect_view();
    let forest: Vec<ForestRow> = lb
        .ratings
        .iter()
        .map(|r| ForestRow {
            label: r.model.clone(),
            estimate: r.elo,
            ci: r.bootstrap.and_then(|b| Some((b.lower?, b.upper?))),
            band: None,
            reference: None,
        })
        .collect();
    view! {
        {reading.map(|r| view! { <p class="reading" id="leaderboard-reading">{r}</p> })}
        <p class="summary">{summary}</p>
        {warning_lines(lb.warnings.clone())}
        <div class="board">
            <table tabindex="0" class="ratings">
                <caption>"Models by rating, best first"</caption>
                <thead>
                    <tr>
                        <th>"Rank"</th><th>"Model"</th><th>"Elo"</th><th>"SE"</th>
                        {has_ci.then(|| view! { <th>"95% CI"</th><th>"CI rank"</th> })}
                        <th>"Battles"</th><th>"Score"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            <ForestPlot rows=forest axis="Elo rating" caption=caption />
        </div>
    }
}

impl KindView for Leaderboard {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <div id="leaderboard"><LeaderboardView lb=self /></div> }.into_any()
    }
}

/// A judge against human labels (`tribunal stats judge-study`): a human and a judge battles CSV
/// joined on a key column, or one scored-battles CSV.
#[component]
pub fn StudyPage() -> impl IntoView {
    let study = AnalysisRun::spawn(1);
    let human_ref = NodeRef::<leptos::html::Input>::new();
    let judge_ref = NodeRef::<leptos::html::Input>::new();
    let scored_ref = NodeRef::<leptos::html::Input>::new();
    let key = RwSignal::new("id".to_owned());
    let run_study = move || {
        let (Some(h), Some(j), Some(sc)) = (
            human_ref.get_untracked(),
            judge_ref.get_untracked(),
            scored_ref.get_untracked(),
        ) else {
            return;
        };
        study.busy.set(true);
        spawn_local(async move {
            let files = match (read(&h).await, read(&j).await, read(&sc).await) {
                (_, _, Some(Ok(scored))) => {
                    Ok((None, vec![RoleFile::text("scored_battles", scored)]))
                }
                (Some(Ok(human)), Some(Ok(judge)), _) => Ok((
                    Some(key.get_untracked()),
                    vec![
                        RoleFile::text("human", human),
                        RoleFile::text("judge", judge),
                    ],
                )),
                (Some(Err(e)), _, _) | (_, Some(Err(e)), _) | (_, _, Some(Err(e))) => Err(e),
                _ => Err(
                    "choose a scored-battles CSV, or both a human and a judge battles CSV"
                        .to_owned(),
                ),
            };
            match files {
                Ok((key, files)) => {
                    let analysis = Analysis::JudgeStudy(StudySpec {
                        key,
                        ..StudySpec::default()
                    });
                    study.run(Computed::new(analysis, files));
                }
                Err(message) => study.fail(message),
            }
        });
    };

    let try_example = move || {
        examples::try_example(
            vec![
                (human_ref, &[examples::CROWD]),
                (judge_ref, &[examples::GPT4]),
            ],
            move || {
                key.set("id".to_owned());
                run_study();
            },
            move |message| study.fail(message),
        );
    };
    examples::when_requested(human_ref, try_example);

    view! {
        <section id="judge" class="card">
            <h2>"Judge against humans"</h2>
            <p class="hint">
                "Either a human battles CSV and a judge battles CSV that share a key column (LLMFAO: "
                <code>"crowd-comparisons.csv"</code> " and " <code>"gpt4-crowd-comparisons.csv"</code> " on " <code>"id"</code>
                "), or one scored-battles CSV with " <code>"score"</code> " or " <code>"score_ab,score_ba"</code>
                " and " <code>"human"</code> " columns. " {term("soft-elo", "Soft-Elo")} " needs judge scores; with verdicts only, hard and label-smoothed targets are compared."
            </p>
            <ExampleButton id="example-judge" what="The crowd's votes against GPT-4's verdicts on the same 2,139 pairs, joined on id" on_try=Callback::new(move |()| try_example()) />
            <div class="controls">
                <label class="file">"Human battles " <input id="human-input" type="file" accept=".csv" node_ref=human_ref /></label>
                <label class="file">"Judge battles " <input id="judge-input" type="file" accept=".csv" node_ref=judge_ref /></label>
                <label>"Key column " <input id="key" type="text" prop:value=move || key.get() on:change=move |ev| key.set(event_target_value(&ev)) /></label>
                <label class="file">"or scored battles " <input id="scored-input" type="file" accept=".csv" node_ref=scored_ref /></label>
                <button id="run-study" on:click=move |_| run_study()>"Compare"</button>
            </div>
            <StaleNote id="study-stale" shown=Signal::derive(move || study.report.with(Option::is_some)) busy=study.busy
                track=move || key.track() />
            {move || study.busy.get().then(|| view! { <p class="busy" role="status">"fitting the held-out protocol…"</p> })}
            {move || study.error.get().map(|m| view! { <div id="study-error" class="error" role="alert">{m}</div> })}
            {move || match study.report.get() {
                Some(Report::JudgeStudy(s)) => Some(view! { <StudyView study=*s /> }),
                _ => None,
            }}
            <SaveAndShare computed=study.computed title="Judge against humans" prefix="study-" busy=study.busy />
        </section>
    }
}

/// The split-conformal intervals of one target kind at a time (chosen in a selector) as a
/// forest plot beside the human Elo.
#[component]
fn ConformalForest(conformal: Vec<Option<ConformalRun>>, alpha: f64) -> impl IntoView {
    let targets: Vec<String> = conformal
        .iter()
        .flatten()
        .map(|c| c.target.clone())
        .collect();
    let chosen = RwSignal::new(targets.last().cloned().unwrap_or_default());
    let forest = move || {
        let c = conformal
            .iter()
            .flatten()
            .find(|c| c.target == chosen.get())?
            .clone();
        let mut intervals = c.intervals.clone();
        intervals.sort_by(|a, b| b.human_elo.total_cmp(&a.human_elo));
        let rows: Vec<ForestRow> = intervals
            .iter()
            .map(|i| ForestRow {
                label: i.model.clone(),
                estimate: i.interval.estimate,
                ci: None,
                band: Some((i.interval.lower, i.interval.upper)),
                reference: Some(i.human_elo),
            })
            .collect();
        let caption = format!(
            "{}: held-out judge Elo (dot), split-conformal interval for a new model (band, α = {alpha}), human Elo (diamond); by human Elo",
            target_words(&c.target)
        );
        Some(view! { <ForestPlot rows axis="Elo rating" caption /> })
    };
    let selector = (!targets.is_empty()).then(|| {
        view! {
            <label>"Intervals for a new model (split conformal), judge targets: "
                <select id="conformal-target" on:change=move |ev| chosen.set(event_target_value(&ev))>
                    {targets
                        .iter()
                        .map(|t| {
                            let target = t.clone();
                            // A property, not the attribute: it keeps following `chosen` after
                            // the user has picked an option, so the selector and the chart agree.
                            view! { <option value=t.clone() prop:selected=move || chosen.with(|c| *c == target)>{target_words(t)}</option> }
                        })
                        .collect_view()}
                </select>
            </label>
        }
    });
    view! {
        {selector}
        {forest}
    }
}

/// A judge study: agreement, held-out runs, conformal intervals, residuals, reliability.
#[component]
pub(crate) fn StudyView(study: JudgeStudy) -> impl IntoView {
    let a = &study.agreement;
    let agreement = format!(
        "{} · {} human votes, {} judge verdicts · judge vs human leaderboard on {} models: Spearman ρ = {:.3}, Kendall τ-b = {:.3}, Elo MAE = {:.1}",
        study.source, study.n_human_battles, study.n_judge_verdicts, a.n_common, a.spearman, a.kendall_tau_b, a.mae
    );
    let runs = study
        .held_out
        .runs
        .iter()
        .zip(&study.conformal)
        .map(|(run, c)| {
            let (cov, width, loo) = c.as_ref().map_or(("—".to_owned(), "—".to_owned(), "—".to_owned()), |c| {
                (
                    format!("{:.3}", c.evaluation.coverage),
                    format!("{:.1}", c.evaluation.median_width),
                    format!("{:.3}", c.leave_one_out_coverage),
                )
            });
            view! {
                <tr data-target=run.name.clone() data-mae=run.mae.to_string()>
                    <td>{target_words(&run.name)}</td>
                    <td class="num">{format!("{:.1}", run.mae)}</td>
                    <td class="num">{run.spearman.map_or("—".to_owned(), |r| format!("{r:.3}"))}</td>
                    <td class="num">{cov}</td>
                    <td class="num">{width}</td>
                    <td class="num">{loo}</td>
                </tr>
            }
        })
        .collect_view();
    let series: Vec<(String, Vec<(f64, f64)>)> = study
        .held_out
        .runs
        .iter()
        .map(|run| {
            (
                target_words(&run.name),
                run.rows.iter().map(|r| (r.human_elo, r.residual)).collect(),
            )
        })
        .collect();
    let side_by_side = a
        .rows
        .iter()
        .map(|r| {
            view! {
                <tr data-model=r.model.clone()>
                    <td>{r.model.clone()}</td>
                    <td class="num">{format!("{:.1}", r.reference_elo)}</td>
                    <td class="num">{format!("{:.1}", r.candidate_elo)}</td>
                    <td class="num">{format!("{:+.1}", r.difference)}</td>
                </tr>
            }
        })
        .collect_view();
    let reliability = study.calibration.as_ref().map(|c| {
        let bins = c
            .bins
            .iter()
            .filter_map(|b| Some((b.mean_predicted?, b.observed?, b.count)))
            .collect();
        view! { <ReliabilityDiagram bins ece=c.ece /> }
    });
    let best = study
        .held_out
        .runs
        .iter()
        .min_by(|x, y| x.mae.total_cmp(&y.mae))
        .map(|run| {
            format!(
                " On models it had not seen, its Elo is off from the humans' by {:.0} points on average (best targets: {}).",
                run.mae, target_words(&run.name)
            )
        });
    let reading = format!(
        "On the {} models both rated, the judge's leaderboard orders them with Spearman ρ = {:.2} against the humans'.{}",
        a.n_common,
        a.spearman,
        best.unwrap_or_default()
    );
    let beta = study.beta.as_ref().map(|b| view! { <p>{format!("β = {:.4} ± {:.4} (MLE on {} human non-tie battles)", b.beta, b.se, b.n_battles)}</p> });
    view! {
        <p class="reading" id="study-reading">{reading}</p>
        <p class="summary" id="study-summary">{agreement}</p>
        {study.warnings.iter().map(|w| view! { <p class="warning study-warning">{w.clone()}</p> }).collect_view()}
        {study.notes.iter().map(|n| view! { <p class="warning">{n.clone()}</p> }).collect_view()}
        {[("human", &study.human), ("judge", &study.judge)].into_iter().flat_map(|(side, board)| {
            board.warnings.iter().map(move |w| view! { <p class="warning study-warning">{format!("{side} leaderboard: {w}")}</p> })
        }).collect_view()}
        {beta}
        <table tabindex="0" class="ratings" id="held-out">
            <caption>"The judge's leaderboard on models it did not see, by kind of target"</caption>
            <thead>
                <tr><th>"Targets"</th><th>"Elo error on unseen models (" {term("held-out", "held-out MAE")} ")"</th><th>"Spearman ρ"</th><th>"New-model interval coverage (" {term("conformal", "split conformal")} ")"</th><th>"Median width"</th><th>"Coverage leaving one model out"</th></tr>
            </thead>
            <tbody>{runs}</tbody>
        </table>
        <div class="board">
            <ScatterPlot series x_label="human Elo" y_label="held-out residual (judge − human Elo)" />
            {reliability}
        </div>
        <ConformalForest conformal=study.conformal.clone() alpha=study.settings.conformal.conformal.alpha />
        <details>
            <summary>"Human and judge leaderboards side by side (all battles, hard targets)"</summary>
            <table tabindex="0" class="ratings" id="side-by-side">
                <thead><tr><th>"Model"</th><th>"Human Elo"</th><th>"Judge Elo"</th><th>"Judge − human"</th></tr></thead>
                <tbody>{side_by_side}</tbody>
            </table>
        </details>
    }
}

impl KindView for JudgeStudy {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <StudyView study=self /> }.into_any()
    }
}
