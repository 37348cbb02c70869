//! The Calibrate page (seed 000): pick a head kind, a training and a test calibration CSV
//! (columns per head kind, see `tribunal::calibration::calibration_data`). The calibration is
//! an analysis spec with its files, computed like every analysis ([`AnalysisRun`]): two web
//! workers share the cross-validation's folds, and one joins their losses into the curve,
//! refits the training rows at the chosen γ and scores the head on the test rows — the report
//! `tribunal stats calibration` prints, with the same numbers. The page shows the time the
//! folds took, the cross-validation curve with the γ chosen, the metrics of the head next to the
//! base judge's on the same test rows with bootstrap intervals, the confusion matrices of both
//! (classifying heads), the ablation and training-size curve a saved calibration has, and a link
//! that downloads the model file. The embeddings may come from `.npy` / `.safetensors` files
//! instead of the `embedding` column. The files stay in the browser. Cells carry
//! full-precision values in data attributes (`data-head`, `data-base`, `data-difference`,
//! `data-lower`, `data-upper`); a malformed file shows the located error and keeps the previous
//! result. Shared as a link or saved to a session, the calibration reopens through the same
//! path: the same curve (each fold's losses do not depend on which worker computed them), the
//! same numbers.

use crate::analysis_view::KindView;
use crate::charts::CvCurvePlot;
use crate::examples::{self, ExampleButton};
use crate::fields::{number_field, Bounds, StaleNote};
use crate::files::{chosen, chosen_text, data_url};
use crate::format::{interval, name};
use crate::glossary::term;
use crate::save_share::SaveAndShare;
use crate::worker_pool::{AnalysisRun, Computed};
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::analysis::{Analysis, Report};
use tribunal::calibration::ablation::{Ablation, TrainingCurve};
use tribunal::calibration::calibration_data::HeadKind;
use tribunal::calibration::cross_validation::CrossValidationParams;
use tribunal::calibration::kinds::{CalibrationReport, CalibrationSpec};
use tribunal::calibration::metrics::Paired;
use tribunal::calibration::{Calibration, CalibrationParams};
use tribunal::math::resample::BootstrapParams;
use tribunal_app::stats_worker::RoleFile;

/// How many workers share a cross-validation's folds.
const WORKERS: usize = 2;

/// A calibration computed in [`WORKERS`] web workers from the page's settings and file inputs.
/// Copy it into closures.
#[derive(Clone, Copy)]
struct CalibrationRun {
    head: RwSignal<String>,
    folds: RwSignal<usize>,
    seed: RwSignal<u64>,
    run: AnalysisRun,
    train_ref: NodeRef<leptos::html::Input>,
    test_ref: NodeRef<leptos::html::Input>,
    train_emb_ref: NodeRef<leptos::html::Input>,
    test_emb_ref: NodeRef<leptos::html::Input>,
}

impl CalibrationRun {
    fn spawn() -> Self {
        Self {
            head: RwSignal::new("ls".to_owned()),
            folds: RwSignal::new(CrossValidationParams::default().folds),
            seed: RwSignal::new(CrossValidationParams::default().seed),
            run: AnalysisRun::spawn(WORKERS),
            train_ref: NodeRef::new(),
            test_ref: NodeRef::new(),
            train_emb_ref: NodeRef::new(),
            test_emb_ref: NodeRef::new(),
        }
    }

    /// The page's settings.
    fn spec(self) -> Result<CalibrationSpec, String> {
        let head = self.head.get_untracked().parse::<HeadKind>()?;
        let seed = self.seed.get_untracked();
        Ok(CalibrationSpec {
            head,
            calibration: CalibrationParams {
                cv: CrossValidationParams {
                    folds: self.folds.get_untracked(),
                    seed,
                    ..CrossValidationParams::default()
                },
                bootstrap: BootstrapParams {
                    seed,
                    ..BootstrapParams::default()
                },
                ..CalibrationParams::default()
            },
            ablation: None,
            training_curve: None,
        })
    }

    /// The chosen files in their roles: the training and test CSVs, and both embedding files
    /// or neither.
    async fn files(
        train: Option<web_sys::HtmlInputElement>,
        test: Option<web_sys::HtmlInputElement>,
        train_embeddings: Option<web_sys::HtmlInputElement>,
        test_embeddings: Option<web_sys::HtmlInputElement>,
    ) -> Result<Vec<RoleFile>, String> {
        let mut files = Vec::new();
        for (role, input, what) in [("train", train, "training"), ("test", test, "test")] {
            let upload = chosen_text(input.as_ref())
                .await?
                .ok_or_else(|| format!("choose a {what} CSV"))?;
            files.push(RoleFile::text(role, upload));
        }
        let train_embeddings = chosen(train_embeddings.as_ref()).await?;
        let test_embeddings = chosen(test_embeddings.as_ref()).await?;
        match (train_embeddings, test_embeddings) {
            (Some(train), Some(test)) => {
                files.push(RoleFile::new("train_embeddings", train.0, train.1));
                files.push(RoleFile::new("test_embeddings", test.0, test.1));
            }
            (None, None) => {}
            _ => {
                return Err("choose both embedding files (training and test) or neither".to_owned())
            }
        }
        Ok(files)
    }

    /// Reads the files and calibrates with the page's settings.
    fn run(self) {
        let spec = match self.spec() {
            Ok(spec) => spec,
            Err(message) => return self.run.fail(message),
        };
        let (train, test, train_emb, test_emb) = (
            self.train_ref.get(),
            self.test_ref.get(),
            self.train_emb_ref.get(),
            self.test_emb_ref.get(),
        );
        // The last run's timing goes at once, before the files are read.
        self.run.busy.set(true);
        self.run.error.set(None);
        self.run.parts_ms.set(None);
        spawn_local(async move {
            match Self::files(train, test, train_emb, test_emb).await {
                Ok(files) => self
                    .run
                    .run(Computed::new(Analysis::Calibration(spec), files)),
                Err(message) => self.run.fail(message),
            }
        });
    }

    /// The calibration on screen.
    fn report(self) -> Option<CalibrationReport> {
        self.run.report.with(|r| match r {
            Some(Report::Calibration(report)) => Some((**report).clone()),
            _ => None,
        })
    }
}

#[component]
pub fn CalibratePage() -> impl IntoView {
    let run = CalibrationRun::spawn();
    // A BTL head on LLMFAO: GPT-4's verdicts corrected toward the crowd's vote shares.
    let try_example = move || {
        examples::try_example(
            vec![
                (run.train_ref, &[examples::CALIBRATION_TRAIN]),
                (run.test_ref, &[examples::CALIBRATION_TEST]),
                (run.train_emb_ref, &[examples::CALIBRATION_TRAIN_EMBEDDINGS]),
                (run.test_emb_ref, &[examples::CALIBRATION_TEST_EMBEDDINGS]),
            ],
            move || {
                run.head.set("btl".to_owned());
                run.run();
            },
            move |message| run.run.fail(message),
        );
    };
    examples::when_requested(run.train_ref, try_example);
    view! {
        <section id="calibrate" class="card">
            <h2>"Calibrate a judge to human labels"</h2>
            <CalibrateHint />
            <ExampleButton id="example-calibrate" what="GPT-4's verdicts on 400 + 300 pairs, corrected toward the crowd's vote shares (a BTL head on MiniLM embeddings of the pairs)" on_try=Callback::new(move |()| try_example()) />
            <CalibrateControls run />
            <CalibrationStatus run />
            {move || run.report().map(|report| view! { <CalibrationView report /> })}
            <SaveAndShare computed=run.run.computed title="Calibration" prefix="cal-" busy=run.run.busy />
        </section>
    }
}

/// What the page does and the columns each head reads.
#[component]
fn CalibrateHint() -> impl IntoView {
    view! {
        <p class="hint">
            "Fit a " {term("calibration-head", "head")} " on the judge's rationale embeddings and scores (the paper Quantitative LLM Judges) with " {term("gamma", "γ")} " chosen by k-fold cross-validation, then compare it with the judge on test rows. Columns — "
            {term("head-ls", view! { <code>"ls"</code> })} ": " <code>"embedding,score,human"</code> "; "
            {term("head-mn", view! { <code>"mn"</code> })} ": " <code>"embedding,p_1…p_K,human"</code> "; "
            {term("head-btl", view! { <code>"btl"</code> })} ": " <code>"embedding,p,human"</code> "; "
            {term("head-btl2", view! { <code>"btl2"</code> })} ": " <code>"embedding_1,embedding_2,score_1,score_2,human"</code> "; "
            {term("head-pl", view! { <code>"pl"</code> })} ": " <code>"list,rank,embedding,score"</code>
            " (an embedding is space-separated numbers, or, for ls, mn and btl, row i of a "
            <code>".npy"</code> " / " <code>".safetensors"</code> " array chosen below). Everything runs in this browser; the same numbers as "
            <code>"tribunal stats calibration"</code> "."
        </p>
    }
}

/// The head, folds, seed and files of a calibration, and its button.
#[component]
fn CalibrateControls(run: CalibrationRun) -> impl IntoView {
    let CalibrationRun {
        head, folds, seed, ..
    } = run;
    view! {
        <div class="controls">
            <label>"Head "
                <select id="cal-head" on:change=move |ev| head.set(event_target_value(&ev))>
                    {["ls", "mn", "btl", "btl2", "pl"].into_iter().map(|k| view! {
                        <option value=k prop:selected=move || head.get() == k>{k}</option>
                    }).collect_view()}
                </select>
            </label>
            {number_field("cal-folds", "Folds", Bounds::from("2", "1"), folds)}
            {number_field("cal-seed", "Seed", Bounds::from("0", "1"), seed)}
            <label class="file">"Training CSV " <input id="cal-train" type="file" accept=".csv" node_ref=run.train_ref /></label>
            <label class="file">"Test CSV " <input id="cal-test" type="file" accept=".csv" node_ref=run.test_ref /></label>
            <label class="file">"Training embeddings (optional) " <input id="cal-train-emb" type="file" accept=".npy,.safetensors" node_ref=run.train_emb_ref /></label>
            <label class="file">"Test embeddings " <input id="cal-test-emb" type="file" accept=".npy,.safetensors" node_ref=run.test_emb_ref /></label>
            <button id="cal-run" on:click=move |_| run.run()>"Calibrate"</button>
        </div>
        <StaleNote id="cal-stale" shown=Signal::derive(move || run.run.report.with(Option::is_some)) busy=run.run.busy
            track=move || {
                head.track();
                folds.track();
                seed.track();
            } />
    }
}

/// How the cross-validation went, whether the run is busy, and its error.
#[component]
fn CalibrationStatus(run: CalibrationRun) -> impl IntoView {
    let AnalysisRun {
        busy,
        error,
        progress,
        parts_ms,
        ..
    } = run.run;
    let cv_done = move || {
        let ms = parts_ms.get()?;
        let cv = run.report()?.calibration.cv;
        Some((cv.folds, cv.chosen_gamma, ms))
    };
    view! {
        {move || cv_done().map(|(folds, gamma, ms)| view! {
            <p id="cal-cv" class="hint" data-gamma=gamma.to_string() data-ms=ms.to_string()>
                {format!("{folds}-fold cross-validation over {} γ in {WORKERS} web workers: {ms:.0} ms, γ = {gamma:.4e}", CrossValidationParams::default().grid.points)}
            </p>
        })}
        {move || busy.get().then(|| view! {
            <p class="busy" role="status">{move || match progress.get() {
                Some((done, total)) if done < total => format!("cross-validating: {done} of {total} folds…"),
                Some(_) => "scoring on the test rows…".to_owned(),
                None => "reading the files…".to_owned(),
            }}</p>
        })}
        {move || error.get().map(|m| view! { <div id="cal-error" class="error" role="alert">{m}</div> })}
    }
}

/// A metrics table: one row per metric, head, base judge and their difference with intervals.
fn metrics_table(
    id: &'static str,
    title: &'static str,
    metrics: &[(&'static str, &Paired)],
) -> impl IntoView {
    let rows = metrics
        .iter()
        .map(|&(m, v)| {
            let label = m.replace('_', " ");
            view! {
                <tr data-metric=m data-head=v.head.estimate.to_string()
                    data-base=v.base.estimate.to_string()
                    data-difference=v.difference.estimate.to_string()
                    data-lower=v.difference.lower.to_string()
                    data-upper=v.difference.upper.to_string()>
                    <td>{label}</td>
                    <td class="num">{interval(&v.head, 4)}</td>
                    <td class="num">{interval(&v.base, 4)}</td>
                    <td class="num">{interval(&v.difference, 4)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h3>{title}</h3>
        <table tabindex="0" class="ratings" id=id>
            <caption class="sr-only">{title}</caption>
            <thead><tr><th>"Metric"</th><th>"Head"</th><th>"Base judge"</th><th>"Head − base"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

fn confusion(
    id: &'static str,
    title: String,
    classes: &[i64],
    matrix: &[Vec<u64>],
) -> impl IntoView {
    let header = classes
        .iter()
        .map(|c| view! { <th>{c.to_string()}</th> })
        .collect_view();
    let rows = matrix
        .iter()
        .zip(classes)
        .map(|(row, class)| {
            let cells = row
                .iter()
                .map(|n| view! { <td class="num">{n.to_string()}</td> })
                .collect_view();
            view! { <tr><th>{class.to_string()}</th>{cells}</tr> }
        })
        .collect_view();
    view! {
        <table tabindex="0" class="ratings confusion" id=id>
            <caption>{title}</caption>
            <thead><tr><th>"human \\ predicted"</th>{header}</tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// One sentence that reads the calibration: the head against the judge on the test rows, in
/// mean squared error (scores) or accuracy (classes), and whether the difference is clear of 0.
fn reading(calibration: &Calibration) -> Option<String> {
    let (metric, paired, better) = match (&calibration.regression, &calibration.classification) {
        (Some(r), _) => ("mean squared error", &r.mse, "lower"),
        (None, Some(c)) => ("accuracy", &c.accuracy, "higher"),
        (None, None) => return None,
    };
    let d = &paired.difference;
    let verdict = if d.lower > 0.0 || d.upper < 0.0 {
        "the difference is clear of zero"
    } else {
        "the difference could be zero"
    };
    // A pairwise head's class metrics leave out the rows whose human label is ½: say so, so
    // that the counts add up.
    let left_out = calibration
        .classification
        .as_ref()
        .map_or(0, |c| calibration.n_test.saturating_sub(c.n));
    let classes = match &calibration.classification {
        Some(c) if left_out > 0 => format!(
            " The class metrics (accuracy, precision, recall, F1) cover {} of the {} test rows: the other {left_out} have a human label of ½ (a tie), which picks no side, and are left out of them.",
            c.n, calibration.n_test
        ),
        _ => String::new(),
    };
    Some(format!(
        "On the {} test rows the head's {metric} is {:.3} against the judge's {:.3} ({better} is better): {verdict} ({:+.3}, {:+.3} to {:+.3}).{classes}",
        calibration.n_test, paired.head.estimate, paired.base.estimate, d.estimate, d.lower, d.upper
    ))
}

/// What an ablation took away, in words.
fn ablation_words(ablation: &Ablation) -> String {
    match ablation {
        Ablation::NoScore => {
            "the judge's score left out (the head sees the embedding only)".to_owned()
        }
        Ablation::NoEmbedding => {
            "the embedding left out (the head sees the judge's score only)".to_owned()
        }
        Ablation::DropFeatures { fraction, seed } => format!(
            "{:.0} % of the embedding's coordinates dropped at random (seed {seed})",
            100.0 * fraction
        ),
    }
}

/// The head's test metric by training-set size, against the base judge's.
#[component]
fn TrainingCurveView(curve: TrainingCurve) -> impl IntoView {
    let metric = curve
        .points
        .first()
        .map_or_else(String::new, |p| p.metric.replace('_', " "));
    let rows = curve
        .points
        .into_iter()
        .map(|p| {
            view! {
                <tr data-size=p.size.to_string() data-head=p.head_mean.to_string() data-base=p.base_mean.to_string()>
                    <td class="num">{p.size.to_string()}</td>
                    <td class="num">{format!("{:.4} ({:.4})", p.head_mean, p.head_sd)}</td>
                    <td class="num">{format!("{:.4}", p.base_mean)}</td>
                </tr>
            }
        })
        .collect_view();
    let title = format!(
        "With fewer labels: the test {metric} of heads fitted on {} random training subsets per size (seed {})",
        curve.settings.repeats, curve.settings.seed
    );
    view! {
        <h3>"Training-size curve"</h3>
        <table tabindex="0" class="ratings" id="cal-training-curve">
            <caption>{title}</caption>
            <thead><tr><th>"Training rows"</th><th>"Head, mean (sd)"</th><th>"Base judge"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// The report of one calibration, with its ablation and training-size curve when it has them.
#[component]
pub(crate) fn CalibrationView(report: CalibrationReport) -> impl IntoView {
    let CalibrationReport {
        calibration,
        ablation,
        training_curve,
    } = report;
    let model = calibration.model.to_json().unwrap_or_default();
    let cv = &calibration.cv;
    let head = name(&calibration.head);
    let summary = format!(
        "{head} head · {} training and {} test rows · embedding dimension {} · {}-fold CV (seed {}) chose γ = {:.4e}",
        calibration.n_train, calibration.n_test, calibration.dim, cv.folds, cv.seed, cv.chosen_gamma
    );
    let regression = calibration.regression.as_ref().map(|r| {
        metrics_table(
            "cal-regression",
            "Scores against human labels",
            &[
                ("mse", &r.mse),
                ("mae", &r.mae),
                ("pearson", &r.pearson),
                ("spearman", &r.spearman),
                ("kendall_tau_b", &r.kendall_tau_b),
            ],
        )
    });
    let classification = calibration.classification.as_ref().map(|c| {
        view! {
            {metrics_table("cal-classification", "Classes against human labels", &[
                ("accuracy", &c.accuracy),
                ("precision", &c.precision),
                ("recall", &c.recall),
                ("f1", &c.f1),
            ])}
            <div class="board">
                {confusion("cal-confusion-base", "Base judge".to_owned(), &c.classes, &c.base_confusion)}
                {confusion("cal-confusion-head", format!("{head} head"), &c.classes, &c.head_confusion)}
            </div>
        }
    });
    let file_name = format!("tribunal-{head}-head.json");
    let reading = reading(&calibration);
    view! {
        {ablation.map(|a| view! { <p class="hint" id="cal-ablation">{format!("Ablation: {}, in both files.", ablation_words(&a))}</p> })}
        {reading.map(|r| view! { <p class="reading" id="cal-reading">{r}</p> })}
        <p class="summary" id="cal-summary" data-gamma=cv.chosen_gamma.to_string()>{summary}</p>
        <CvCurvePlot gammas=cv.gammas.clone() mean=cv.mean_loss.clone() sd=cv.sd_loss.clone() chosen=cv.chosen_index />
        {regression}
        {classification}
        {training_curve.map(|curve| view! { <TrainingCurveView curve /> })}
        <p><a id="cal-download" href=data_url("application/json", &model) download=file_name>"Download the model file"</a></p>
    }
}

impl KindView for CalibrationReport {
    fn view(self, _: &Analysis) -> AnyView {
        view! { <CalibrationView report=self /> }.into_any()
    }
}
