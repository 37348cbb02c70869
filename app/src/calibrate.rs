//! The Calibrate page (seed 000): pick a head kind, a training and a test calibration CSV
//! (columns per head kind, see `tribunal::calibration::calibration_data`). Two web workers parse the
//! training file as soon as it is chosen (a malformed one shows its located error at once) and
//! share the cross-validation's folds when the run starts; the page joins their losses into the
//! curve, and one worker refits the training rows it holds at the chosen γ and scores the head
//! ([`CalibrationParams::fit_with_curve`]): the report `tribunal stats calibration` prints, with
//! the same numbers. The page shows the time the cross-validation took, the
//! cross-validation curve with the γ chosen, the metrics of the head next to the base judge's
//! on the same test rows with bootstrap intervals, the confusion matrices of both (classifying
//! heads), and a link that downloads the model file. The embeddings may come from `.npy` /
//! `.safetensors` files instead of the `embedding` column. The files stay in the browser. Cells carry
//! full-precision values in data attributes (`data-head`, `data-base`, `data-difference`,
//! `data-lower`, `data-upper`); a malformed file shows the located error and keeps the previous
//! result. A finished calibration is an analysis spec with its files: shared as a link or saved
//! to a session, it reopens through [`tribunal::analysis::run`] in one worker — the same
//! curve (each fold's losses do not depend on which worker computed them), the same numbers.

use crate::charts::CvCurvePlot;
use crate::examples::{self, ExampleButton};
use crate::fields::{number_field, Bounds, StaleNote};
use crate::files::{chosen, chosen_text, data_url};
use crate::format::{interval, name};
use crate::glossary::term;
use crate::save_share::SaveAndShare;
use crate::worker_pool::Computed;
use crate::worker_pool::WorkerPool;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::analysis::{Analysis, Spec};
use tribunal::calibration::calibration_data::HeadKind;
use tribunal::calibration::cross_validation::{CrossValidationParams, CvCurve};
use tribunal::calibration::kinds::CalibrationSpec;
use tribunal::calibration::metrics::Paired;
use tribunal::calibration::{Calibration, CalibrationParams};
use tribunal::math::resample::BootstrapParams;
use tribunal_app::stats_worker::{BinaryUpload, Job, Reply, RoleFile, Upload};
use web_sys::HtmlInputElement;

/// The CSV chosen in `input`, which is required.
async fn read(input: &HtmlInputElement, what: &str) -> Result<Upload, String> {
    chosen_text(Some(input))
        .await?
        .ok_or_else(|| format!("choose a {what} CSV"))
}

/// The binary file chosen in `input`, if any.
async fn read_binary(input: Option<HtmlInputElement>) -> Result<Option<BinaryUpload>, String> {
    Ok(chosen(input.as_ref())
        .await?
        .map(|(name, bytes)| BinaryUpload { name, bytes }))
}

/// How many workers share a cross-validation's folds.
const WORKERS: usize = 2;

/// The run in flight (the pool's current request): the settings, the folds' losses as
/// they arrive, when it started (`performance.now()`, ms) and the inputs to read again for the
/// refit.
#[derive(Default)]
struct PendingCv {
    head: Option<HeadKind>,
    params: CalibrationParams,
    folds: Vec<Option<Vec<f64>>>,
    units: usize,
    started: f64,
    inputs: Option<Inputs>,
    /// The run's files once all are read: the analysis's inputs.
    files: Vec<RoleFile>,
}

/// The files of a calibration as an analysis's inputs: the training CSV and test CSV, and
/// their embedding files when given.
fn role_files(
    train: &Upload,
    train_embeddings: Option<&BinaryUpload>,
    test: &Upload,
    test_embeddings: Option<&BinaryUpload>,
) -> Vec<RoleFile> {
    let mut files = vec![
        RoleFile::text("train", train.clone()),
        RoleFile::text("test", test.clone()),
    ];
    for (role, file) in [
        ("train_embeddings", train_embeddings),
        ("test_embeddings", test_embeddings),
    ] {
        if let Some(f) = file {
            files.push(RoleFile::new(role, f.name.clone(), f.bytes.clone()));
        }
    }
    files
}

/// A run's test inputs, read for the scores once the curve is joined, and whether the
/// training embeddings came from a file (then the test embeddings must too).
#[derive(Clone)]
struct Inputs {
    test: HtmlInputElement,
    test_embeddings: Option<HtmlInputElement>,
    train_embedding_file: bool,
}

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// A calibration computed in [`WORKERS`] web workers, with the page's settings and file inputs:
/// choosing a training file (or head) has every worker parse and keep it as a new version;
/// [`CalibrationRun::run`] splits the cross-validation's folds across the workers, joins their
/// losses into the curve, then has one worker refit at the chosen γ and score the head on the
/// test rows. Copy it into closures.
#[derive(Clone, Copy)]
struct CalibrationRun {
    head: RwSignal<String>,
    folds: RwSignal<usize>,
    seed: RwSignal<u64>,
    report: RwSignal<Option<(Box<Calibration>, String)>>,
    computed: RwSignal<Option<Computed>>,
    error: RwSignal<Option<String>>,
    busy: RwSignal<bool>,
    /// The cross-validation of the last run: its γ and how long it took, ms.
    cv_done: RwSignal<Option<(f64, f64)>>,
    /// The training file (and embeddings) of each version, as read.
    train_read: StoredValue<Option<(u64, Upload, Option<BinaryUpload>)>, LocalStorage>,
    /// The version of the training file (and its head and embeddings) last chosen, and the
    /// last version sent to the workers to parse and keep.
    version: StoredValue<u64>,
    loaded: StoredValue<u64>,
    pending: StoredValue<PendingCv, LocalStorage>,
    train_ref: NodeRef<leptos::html::Input>,
    test_ref: NodeRef<leptos::html::Input>,
    train_emb_ref: NodeRef<leptos::html::Input>,
    test_emb_ref: NodeRef<leptos::html::Input>,
    /// Spawned once the run exists (its replies go to [`CalibrationRun::on_reply`]).
    pool: StoredValue<Option<WorkerPool>, LocalStorage>,
}

impl CalibrationRun {
    fn spawn() -> Self {
        let run = Self {
            head: RwSignal::new("ls".to_owned()),
            folds: RwSignal::new(CrossValidationParams::default().folds),
            seed: RwSignal::new(CrossValidationParams::default().seed),
            report: RwSignal::new(None),
            computed: RwSignal::new(None),
            error: RwSignal::new(None),
            busy: RwSignal::new(false),
            cv_done: RwSignal::new(None),
            train_read: StoredValue::new_local(None),
            version: StoredValue::new(0),
            loaded: StoredValue::new(0),
            pending: StoredValue::new_local(PendingCv::default()),
            train_ref: NodeRef::new(),
            test_ref: NodeRef::new(),
            train_emb_ref: NodeRef::new(),
            test_emb_ref: NodeRef::new(),
            pool: StoredValue::new_local(None),
        };
        let pool = WorkerPool::spawn(WORKERS, move |reply| run.on_reply(reply));
        run.pool.set_value(Some(pool));
        run
    }

    fn send(self, k: usize, job: Job) {
        if let Some(pool) = self.pool.get_value() {
            pool.send(k, job);
        }
    }

    /// Whether `r` is the run in flight (no later run has begun).
    fn current(self, r: u64) -> bool {
        self.pool.get_value().is_some_and(|p| p.is_current(r))
    }

    /// Reads the test files and has the worker that holds the training rows of `v` refit them
    /// at the curve's γ and score the head.
    fn score(self, r: u64, v: u64, curve: CvCurve) {
        let Some((inputs, params)) = self
            .pending
            .with_value(|p| Some((p.inputs.clone()?, p.params)))
        else {
            return;
        };
        spawn_local(async move {
            let files = async {
                let test = read(&inputs.test, "test").await?;
                let test_embeddings = read_binary(inputs.test_embeddings).await?;
                if test_embeddings.is_some() != inputs.train_embedding_file {
                    return Err(
                        "choose both embedding files (training and test) or neither".to_owned()
                    );
                }
                Ok::<_, String>((test, test_embeddings))
            };
            match files.await {
                Ok((test, test_embeddings)) if self.current(r) => {
                    let files = self.train_read.with_value(|t| match t {
                        Some((kept, train, train_embeddings)) if *kept == v => role_files(
                            train,
                            train_embeddings.as_ref(),
                            &test,
                            test_embeddings.as_ref(),
                        ),
                        _ => Vec::new(),
                    });
                    self.pending.update_value(|p| p.files = files);
                    self.send(
                        1,
                        Job::Calibrate {
                            request: r,
                            version: v,
                            test,
                            test_embeddings,
                            params,
                            curve,
                        },
                    )
                }
                Ok(_) => {}
                Err(message) => self.fail(r, message),
            }
        });
    }

    /// Ends run `r` with `message` (unless a later run has begun).
    fn fail(self, r: u64, message: String) {
        if self.current(r) {
            if let Some(pool) = self.pool.get_value() {
                pool.cancel();
            }
            self.busy.set(false);
            self.error.set(Some(message));
        }
    }

    /// Joins the validation losses of `done` folds; once every fold is in, the curve.
    fn on_cv_folds(
        self,
        r: u64,
        v: u64,
        done: Vec<usize>,
        result: Result<(usize, Vec<Vec<f64>>), String>,
    ) {
        let (units, losses) = match result {
            Ok(found) => found,
            // Both workers may fail alike: the first failure ends the run.
            Err(message) => return self.fail(r, message),
        };
        let joined = self.pending.try_update_value(|p| {
            p.units = units;
            for (f, l) in done.into_iter().zip(losses) {
                if let Some(slot) = p.folds.get_mut(f) {
                    *slot = Some(l);
                }
            }
            let all: Option<Vec<Vec<f64>>> = p.folds.iter().cloned().collect();
            all.map(|all| {
                (
                    CvCurve::from_fold_losses(&p.params.cv, p.units, all),
                    p.started,
                )
            })
        });
        match joined {
            Some(Some((Ok(curve), started))) => {
                self.cv_done
                    .set(Some((curve.chosen_gamma, now() - started)));
                self.score(r, v, curve);
            }
            Some(Some((Err(e), _))) => self.fail(r, e.to_string()),
            _ => {}
        }
    }

    /// The replies to the run in flight, and to the last training file chosen.
    fn on_reply(self, reply: Reply) {
        match reply {
            Reply::CvFolds {
                request: r,
                version: v,
                folds: done,
                result,
            } => self.on_cv_folds(r, v, done, result),
            Reply::CalibrationLoaded {
                version: v,
                result: Err(message),
            } if v == self.version.get_value() => self.error.set(Some(message)),
            Reply::Calibrated { result, .. } => {
                self.busy.set(false);
                match result {
                    Ok(done) => {
                        self.report.set(Some(done));
                        self.error.set(None);
                        self.computed.set(self.pending.with_value(|p| {
                            let spec = CalibrationSpec {
                                head: p.head?,
                                calibration: p.params,
                                ablation: None,
                                training_curve: None,
                            };
                            let spec =
                                Spec::new(Analysis::Calibration(spec), &RoleFile::inputs(&p.files));
                            Some(Computed {
                                spec,
                                files: p.files.clone(),
                            })
                        }));
                    }
                    Err(message) => self.error.set(Some(message)),
                }
            }
            _ => {}
        }
    }

    /// Reads the training file (and its embeddings) and has every worker parse and keep it as
    /// a new version; a file that does not parse shows its located error at once. Then runs
    /// `then` with the version.
    fn load(self, then: Option<Box<dyn FnOnce(u64)>>) {
        let (Some(train), Ok(kind)) = (
            self.train_ref.get(),
            self.head.get_untracked().parse::<HeadKind>(),
        ) else {
            return;
        };
        let embedding = self.train_emb_ref.get();
        let v = self.version.get_value() + 1;
        self.version.set_value(v);
        spawn_local(async move {
            let files = async {
                let upload = read(&train, "training").await?;
                Ok::<_, String>((upload, read_binary(embedding).await?))
            };
            match files.await {
                Ok((upload, embeddings)) if v == self.version.get_value() => {
                    self.loaded.set_value(v);
                    self.train_read
                        .set_value(Some((v, upload.clone(), embeddings.clone())));
                    for k in 0..WORKERS {
                        self.send(
                            k,
                            Job::LoadCalibration {
                                version: v,
                                head: kind,
                                train: upload.clone(),
                                embeddings: embeddings.clone(),
                            },
                        );
                    }
                    if let Some(then) = then {
                        then(v);
                    }
                }
                // Another file (or head) was chosen while this one was read: a run waiting for
                // it stops rather than cross-validate the wrong rows.
                Ok(_) if then.is_some() => {
                    self.busy.set(false);
                    self.error.set(Some(
                        "the training file or head changed while the file was read: calibrate again"
                            .to_owned(),
                    ));
                }
                Ok(_) => {}
                Err(message) => {
                    self.busy.set(false);
                    self.error.set(Some(message));
                }
            }
        });
    }

    /// A new training file or head: parsed at once, so that its errors show before a run.
    fn reload(self) {
        self.error.set(None);
        self.load(None);
    }

    /// [`Self::run`] on files put into the inputs without a change event (the example): the
    /// training rows the workers hold are stale, so they are read again first.
    fn run_new_files(self) {
        self.version.set_value(self.version.get_value() + 1);
        self.run();
    }

    /// Cross-validates, refits and scores with the page's settings and files.
    fn run(self) {
        let (Some(_), Some(test)) = (self.train_ref.get(), self.test_ref.get()) else {
            return;
        };
        let kind = match self.head.get_untracked().parse::<HeadKind>() {
            Ok(kind) => kind,
            Err(message) => return self.error.set(Some(message)),
        };
        let Some(r) = self.pool.get_value().map(WorkerPool::begin) else {
            return;
        };
        self.busy.set(true);
        self.error.set(None);
        self.cv_done.set(None);
        let seed = self.seed.get_untracked();
        let params = CalibrationParams {
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
        };
        self.pending.set_value(PendingCv {
            head: Some(kind),
            params,
            folds: vec![None; params.cv.folds],
            units: 0,
            started: now(),
            inputs: Some(Inputs {
                test,
                test_embeddings: self.test_emb_ref.get(),
                train_embedding_file: self
                    .train_emb_ref
                    .get()
                    .and_then(|input| input.files())
                    .is_some_and(|files| files.length() > 0),
            }),
            files: Vec::new(),
        });
        // The folds start at once on the training rows the workers hold (parsed when the file
        // was chosen); the test files are read once the curve is joined.
        let start_folds = move |v: u64| {
            for k in 0..WORKERS {
                self.send(
                    k,
                    Job::CvFolds {
                        request: r,
                        version: v,
                        params,
                        folds: (k..params.cv.folds).step_by(WORKERS).collect(),
                    },
                );
            }
        };
        let version = self.version.get_value();
        if self.loaded.get_value() == version && version > 0 {
            start_folds(version);
        } else {
            self.load(Some(Box::new(start_folds)));
        }
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
                run.run_new_files();
            },
            move |message| run.error.set(Some(message)),
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
            {move || run.report.get().map(|(r, model)| view! { <CalibrationView calibration=*r model /> })}
            <SaveAndShare computed=run.computed title="Calibration" prefix="cal-" busy=run.busy />
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
                <select id="cal-head" on:change=move |ev| { head.set(event_target_value(&ev)); run.reload(); }>
                    {["ls", "mn", "btl", "btl2", "pl"].into_iter().map(|k| view! {
                        <option value=k prop:selected=move || head.get() == k>{k}</option>
                    }).collect_view()}
                </select>
            </label>
            {number_field("cal-folds", "Folds", Bounds::from("2", "1"), folds)}
            {number_field("cal-seed", "Seed", Bounds::from("0", "1"), seed)}
            <label class="file">"Training CSV " <input id="cal-train" type="file" accept=".csv" node_ref=run.train_ref on:change=move |_| run.reload() /></label>
            <label class="file">"Test CSV " <input id="cal-test" type="file" accept=".csv" node_ref=run.test_ref /></label>
            <label class="file">"Training embeddings (optional) " <input id="cal-train-emb" type="file" accept=".npy,.safetensors" node_ref=run.train_emb_ref on:change=move |_| run.reload() /></label>
            <label class="file">"Test embeddings " <input id="cal-test-emb" type="file" accept=".npy,.safetensors" node_ref=run.test_emb_ref /></label>
            <button id="cal-run" on:click=move |_| run.run()>"Calibrate"</button>
        </div>
        <StaleNote id="cal-stale" shown=Signal::derive(move || run.report.with(Option::is_some)) busy=run.busy
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
    let CalibrationRun {
        folds,
        cv_done,
        busy,
        error,
        ..
    } = run;
    view! {
        {move || cv_done.get().map(|(gamma, ms)| view! {
            <p id="cal-cv" class="hint" data-gamma=gamma.to_string() data-ms=ms.to_string()>
                {format!("{}-fold cross-validation over {} γ in {WORKERS} web workers: {ms:.0} ms, γ = {gamma:.4e}", folds.get_untracked(), CrossValidationParams::default().grid.points)}
            </p>
        })}
        {move || busy.get().then(|| view! { <p class="busy" role="status">{move || if cv_done.get().is_some() { "scoring on the test rows…" } else { "cross-validating…" }}</p> })}
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

/// The report of one calibration.
#[component]
pub(crate) fn CalibrationView(calibration: Calibration, model: String) -> impl IntoView {
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
        {reading.map(|r| view! { <p class="reading" id="cal-reading">{r}</p> })}
        <p class="summary" id="cal-summary" data-gamma=cv.chosen_gamma.to_string()>{summary}</p>
        <CvCurvePlot gammas=cv.gammas.clone() mean=cv.mean_loss.clone() sd=cv.sd_loss.clone() chosen=cv.chosen_index />
        {regression}
        {classification}
        <p><a id="cal-download" href=data_url("application/json", &model) download=file_name>"Download the model file"</a></p>
    }
}
