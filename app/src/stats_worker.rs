//! The statistics web worker. The page posts a [`Job`]; the worker runs the `tribunal`
//! statistics off the UI thread and answers with [`Reply`] messages tagged with the job's
//! request number (the page ignores replies to requests it has superseded). Trunk builds it as
//! `stats-worker.js` + `stats-worker_bg.wasm` (`data-type="worker"`).
//!
//! Any analysis that runs whole in one worker — a judge study, an agreement report, a check of
//! a judge's runs, a saved analysis of any kind — is an [`Job::Analyse`] of its
//! [`tribunal::analysis::Spec`] on its files, run by [`tribunal::analysis::run`] (what the CLI
//! and `tribunal stats run` call), and comes back as the JSON value the CLI prints (undefined
//! statistics are `null` there, which a typed `f64` could not read back). A programs report
//! with the user's own programs is one too: the page runs them in its sandbox on the texts of
//! [`Job::ProgramTexts`] and sends their scores as the analysis's `user_scores` file.
//!
//! A leaderboard's bootstrap is split across workers, each reading the same
//! [`LeaderboardSpec`]. The worker that fits the point leaderboard
//! ([`Job::Fit`]) answers with it at once, then runs its share of the rounds on the same parsed
//! file and keeps the prepared bootstrap; the other workers each parse the file and run a range
//! of rounds ([`Job::Rounds`]). All report progress every [`ROUNDS_PER_PROGRESS`] rounds, and the
//! fitting worker summarises every replicate with the bootstrap it kept ([`Job::Summarise`]).
//! Round r depends only on (seed, r), so the split does not change the numbers. Files travel as
//! text (a CSV is UTF-8), which JSON carries far more cheaply than a byte array.
//!
//! A calibration's cross-validation is split the same way: each worker parses the training
//! file once, when the page loads it ([`Job::LoadCalibration`], keeping it under the page's
//! version number), computes the validation losses of its share of the folds
//! ([`Job::CvFolds`]), and the page joins them into the curve (the same curve whichever worker
//! computed which fold); one worker then refits the kept rows at the chosen γ and scores the
//! head on the test rows ([`Job::Calibrate`]).

use gloo_worker::{Codec, HandlerId, Spawnable, Worker, WorkerBridge, WorkerScope};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tribunal::analysis::{run, Inputs, Report, Spec};
use tribunal::calibration::calibration_data::{
    parse_calibration, parse_calibration_with_embeddings, CalibrationData, HeadKind,
};
use tribunal::calibration::cross_validation::CvCurve;
use tribunal::calibration::{Calibration, CalibrationParams};
use tribunal::io::cbor::{from_cbor, to_cbor};
use tribunal::io::embedding_file::read_embeddings;
use tribunal::programs::program_pairs::{parse_probes, parse_program_pairs, Probe};
use tribunal::programs::program_user_scores::program_texts;
use tribunal::rankings::battles::Battles;
use tribunal::rankings::bradley_terry::BradleyTerryParams;
use tribunal::rankings::bt_bootstrap::{BtBootstrapParams, BtBootstrapPlan, Replicate};
use tribunal::rankings::kinds::LeaderboardSpec;
use tribunal::rankings::leaderboard::{bradley_terry_leaderboard, Leaderboard};
use wasm_bindgen::JsValue;

/// The script that starts a statistics worker (`public/stats_worker_loader.js`: it loads Trunk's
/// output for the `stats-worker` bin).
pub const WORKER_LOADER_PATH: &str = "/stats_worker_loader.js";

/// Rounds between two progress messages.
pub const ROUNDS_PER_PROGRESS: usize = 25;

/// The message encoding between the page and the worker: CBOR ([`tribunal::io::cbor`]) in a
/// `Uint8Array`. It is self-describing (internally tagged enums such as a [`Spec`] and a
/// [`Report`] decode, which gloo-worker's default, bincode, cannot do) and keeps every f64
/// exactly, NaN and ±∞ included (JSON writes an undefined statistic as `null`, which a typed
/// `f64` cannot read back). Both sides must use it: `spawner().encoding::<Cbor>()` and
/// `registrar().encoding::<Cbor>()`.
pub struct Cbor;

impl Codec for Cbor {
    fn encode<I: Serialize>(input: I) -> JsValue {
        js_sys::Uint8Array::from(to_cbor(&input).as_slice()).into()
    }

    fn decode<O: DeserializeOwned>(input: JsValue) -> O {
        let bytes = js_sys::Uint8Array::new(&input).to_vec();
        match from_cbor(&bytes) {
            Ok(message) => message,
            // Only this crate's own messages arrive here; a failure is a bug, not bad input.
            Err(error) => panic!("undecodable message between page and stats worker: {error}"),
        }
    }
}

/// A named input file's text.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Upload {
    pub name: String,
    pub text: String,
}

impl Upload {
    /// The file as text, or an error naming the line of the first byte that is not UTF-8.
    pub fn new(name: String, bytes: Vec<u8>) -> Result<Self, String> {
        match String::from_utf8(bytes) {
            Ok(text) => Ok(Self { name, text }),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let bytes = e.as_bytes();
                let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
                Err(format!(
                    "{name}, line {line}: expected UTF-8 text, found the byte 0x{:02x}",
                    bytes[at]
                ))
            }
        }
    }
}

/// A file in a role of an analysis ([`tribunal::analysis::Spec::inputs`]): UTF-8 text travels
/// as text, anything else (an embedding array) as bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoleFile {
    pub role: String,
    pub name: String,
    pub content: Content,
}

/// A file's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Content {
    Text(String),
    Bytes(Vec<u8>),
}

impl RoleFile {
    /// The file `name` with `bytes` in `role`.
    pub fn new(role: impl Into<String>, name: impl Into<String>, bytes: Vec<u8>) -> Self {
        let content = match String::from_utf8(bytes) {
            Ok(text) => Content::Text(text),
            Err(e) => Content::Bytes(e.into_bytes()),
        };
        Self {
            role: role.into(),
            name: name.into(),
            content,
        }
    }

    /// A text file in `role`.
    pub fn text(role: impl Into<String>, upload: Upload) -> Self {
        Self {
            role: role.into(),
            name: upload.name,
            content: Content::Text(upload.text),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        match &self.content {
            Content::Text(text) => text.as_bytes(),
            Content::Bytes(bytes) => bytes,
        }
    }

    /// The files as an analysis's inputs.
    pub fn inputs(files: &[Self]) -> Inputs {
        let mut inputs = Inputs::new();
        for file in files {
            inputs.insert(file.role.clone(), file.name.clone(), file.bytes().to_vec());
        }
        inputs
    }
}

/// A named binary input file (an embedding array).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BinaryUpload {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Work for the statistics worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Job {
    /// Parse a battles CSV and fit the leaderboard of `spec` (point estimates, sandwich SEs,
    /// anchored when it says so); then run bootstrap rounds `start..end` on it and keep the
    /// prepared bootstrap for [`Job::Summarise`].
    Fit {
        request: u64,
        battles: Upload,
        spec: LeaderboardSpec,
        start: usize,
        end: usize,
    },
    /// Bootstrap rounds `start..end` of the battles.
    Rounds {
        request: u64,
        battles: Upload,
        spec: LeaderboardSpec,
        start: usize,
        end: usize,
    },
    /// Intervals and CI-aware ranks from every round's replicates, added to `leaderboard`; sent
    /// to the worker that ran [`Job::Fit`] for the same request.
    Summarise {
        request: u64,
        leaderboard: Box<Leaderboard>,
        replicates: Vec<Replicate>,
    },
    /// The leaderboard (point estimates, sandwich SEs) of a judge run's battles so far:
    /// (model of `response`, model of `response_b`, the judge's preference for `response`).
    Board {
        request: u64,
        battles: Vec<(String, String, f64)>,
    },
    /// An analysis run whole: `spec` on the files of its roles.
    Analyse {
        request: u64,
        spec: Box<Spec>,
        files: Vec<RoleFile>,
    },
    /// Parse a calibration's training file (and its embedding file) and keep it as `version`.
    LoadCalibration {
        version: u64,
        head: HeadKind,
        train: Upload,
        embeddings: Option<BinaryUpload>,
    },
    /// The validation losses of `folds` of the cross-validation of the kept training rows.
    CvFolds {
        request: u64,
        version: u64,
        params: CalibrationParams,
        folds: Vec<usize>,
    },
    /// The head refitted on the kept training rows of `version` at the γ `curve` chose (the
    /// cross-validation of those rows, joined from [`Job::CvFolds`]) and scored on test rows.
    Calibrate {
        request: u64,
        version: u64,
        test: Upload,
        /// The test embeddings as a `.npy` / `.safetensors` file, instead of the CSV's
        /// `embedding` column (when the training rows' came from a file too).
        test_embeddings: Option<BinaryUpload>,
        params: CalibrationParams,
        curve: CvCurve,
    },
    /// The (query, response) texts the user's programs score, in [`program_texts`] order.
    ProgramTexts {
        request: u64,
        pairs: Upload,
        probes: Option<Upload>,
    },
}

/// The worker's answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Reply {
    Fitted {
        request: u64,
        result: Result<Leaderboard, String>,
    },
    /// `done` more rounds finished.
    Progress { request: u64, done: usize },
    Rounds {
        request: u64,
        start: usize,
        result: Result<Vec<Replicate>, String>,
    },
    Summarised {
        request: u64,
        result: Result<Leaderboard, String>,
    },
    /// The report of an [`Job::Analyse`], as the CLI prints it.
    Analysed {
        request: u64,
        result: Result<Report, String>,
    },
    /// The training file of `version` parsed, or why not.
    CalibrationLoaded {
        version: u64,
        result: Result<(), String>,
    },
    /// The training units and each of `folds`' validation losses at every γ, on the training
    /// rows of `version`.
    CvFolds {
        request: u64,
        version: u64,
        folds: Vec<usize>,
        result: Result<(usize, Vec<Vec<f64>>), String>,
    },
    /// The calibration report's JSON, as the CLI prints it, and the model file's JSON.
    Calibrated {
        request: u64,
        result: Result<(Box<Calibration>, String), String>,
    },
    /// The texts to run the user's programs on.
    ProgramTexts {
        request: u64,
        result: Result<Vec<(String, String)>, String>,
    },
}

impl Reply {
    /// The request the reply answers; `None` for a training file parsed (numbered by its
    /// version instead).
    pub fn request(&self) -> Option<u64> {
        match self {
            Self::Fitted { request, .. }
            | Self::Progress { request, .. }
            | Self::Rounds { request, .. }
            | Self::Summarised { request, .. }
            | Self::Analysed { request, .. }
            | Self::CvFolds { request, .. }
            | Self::Calibrated { request, .. }
            | Self::ProgramTexts { request, .. } => Some(*request),
            Self::CalibrationLoaded { .. } => None,
        }
    }
}

/// Starts a statistics worker whose replies go to `on_reply`.
pub fn spawn_stats_worker(on_reply: impl Fn(Reply) + 'static) -> WorkerBridge<StatsWorker> {
    StatsWorker::spawner()
        .encoding::<Cbor>()
        .callback(on_reply)
        .spawn_with_loader(WORKER_LOADER_PATH)
}

/// The worker: one job at a time; it keeps the bootstrap of its last [`Job::Fit`] and the
/// training rows of its last [`Job::LoadCalibration`].
pub struct StatsWorker {
    bootstrap: Option<(u64, BtBootstrapPlan)>,
    calibration: Option<(u64, Result<CalibrationData, String>)>,
}

impl StatsWorker {
    /// The training rows kept as `version`, or why there are none.
    fn kept(&self, version: u64) -> Result<&CalibrationData, String> {
        match &self.calibration {
            Some((kept, data)) if *kept == version => data.as_ref().map_err(Clone::clone),
            _ => Err(format!(
                "this worker does not hold version {version} of the training file"
            )),
        }
    }
}

/// The bootstrap of `spec` on `battles` (clustered and anchored as it says).
fn plan(
    spec: &LeaderboardSpec,
    battles: &Battles,
    clusters: Option<&[usize]>,
) -> tribunal::Result<BtBootstrapPlan> {
    let plan = BtBootstrapParams {
        bt: spec.bradley_terry,
        bootstrap: spec.bootstrap,
    }
    .plan(battles, clusters)?;
    match &spec.anchor {
        Some(anchor) => plan.anchored(anchor),
        None => Ok(plan),
    }
}

fn parse_probe_upload(probes: Option<&Upload>) -> tribunal::Result<Vec<Probe>> {
    probes.map_or(Ok(Vec::new()), |p| parse_probes(&p.name, p.text.as_bytes()))
}

/// Calibration rows of `head` from a CSV, with the embeddings of `file` instead of its
/// `embedding` column when given; `dim`: the embedding dimension they must have.
fn read_calibration(
    head: HeadKind,
    upload: &Upload,
    file: Option<&BinaryUpload>,
    dim: Option<usize>,
) -> tribunal::Result<CalibrationData> {
    match file {
        Some(f) => read_embeddings(&f.name, &f.bytes).and_then(|rows| {
            parse_calibration_with_embeddings(
                &upload.name,
                upload.text.as_bytes(),
                head,
                dim,
                (&f.name, &rows),
            )
        }),
        None => parse_calibration(&upload.name, upload.text.as_bytes(), head, dim),
    }
}

/// What `tribunal stats calibration` prints, and the model file: the head refitted on `train` at
/// the γ of `curve` and scored on `test`.
fn calibrate(
    train: &CalibrationData,
    test: &Upload,
    test_embeddings: Option<&BinaryUpload>,
    params: &CalibrationParams,
    curve: CvCurve,
) -> Result<(Box<Calibration>, String), String> {
    read_calibration(train.kind(), test, test_embeddings, Some(train.dim()))
        .and_then(|te| params.fit_with_curve(train, &te, Some(curve)))
        .and_then(|c| {
            let model = c.model.to_json()?;
            Ok((Box::new(c), model))
        })
        .map_err(|e| e.to_string())
}

/// Runs rounds `start..end` of `plan`, reporting progress to `id`.
fn rounds(
    scope: &WorkerScope<StatsWorker>,
    id: HandlerId,
    request: u64,
    plan: &BtBootstrapPlan,
    start: usize,
    end: usize,
) -> tribunal::Result<Vec<Replicate>> {
    let mut replicates = Vec::with_capacity(end.saturating_sub(start));
    let mut from = start;
    while from < end {
        let to = (from + ROUNDS_PER_PROGRESS).min(end);
        replicates.extend(plan.rounds(from..to)?);
        scope.respond(
            id,
            Reply::Progress {
                request,
                done: to - from,
            },
        );
        from = to;
    }
    Ok(replicates)
}

impl Worker for StatsWorker {
    type Message = ();
    type Input = Job;
    type Output = Reply;

    fn create(_scope: &WorkerScope<Self>) -> Self {
        Self {
            bootstrap: None,
            calibration: None,
        }
    }

    fn update(&mut self, _scope: &WorkerScope<Self>, _message: Self::Message) {}

    fn received(&mut self, scope: &WorkerScope<Self>, job: Self::Input, id: HandlerId) {
        let reply = match job {
            Job::Fit {
                request,
                battles,
                spec,
                start,
                end,
            } => {
                self.bootstrap = None;
                let fitted = spec
                    .battles(&battles.name, battles.text.as_bytes())
                    .and_then(|(b, clusters)| {
                        let leaderboard =
                            bradley_terry_leaderboard(&battles.name, &b, &spec.bradley_terry)?;
                        let leaderboard = match &spec.anchor {
                            Some(anchor) => leaderboard.anchored(anchor, &b)?,
                            None => leaderboard,
                        };
                        Ok((b, clusters, leaderboard))
                    })
                    .map_err(|e| e.to_string());
                scope.respond(
                    id,
                    Reply::Fitted {
                        request,
                        result: fitted
                            .as_ref()
                            .map(|(_, _, lb)| lb.clone())
                            .map_err(Clone::clone),
                    },
                );
                let (Ok((b, clusters, _)), true) = (fitted, start < end) else {
                    return;
                };
                let result = plan(&spec, &b, clusters.as_deref())
                    .and_then(|plan| {
                        let replicates = rounds(scope, id, request, &plan, start, end)?;
                        self.bootstrap = Some((request, plan));
                        Ok(replicates)
                    })
                    .map_err(|e| e.to_string());
                Reply::Rounds {
                    request,
                    start,
                    result,
                }
            }
            Job::Rounds {
                request,
                battles,
                spec,
                start,
                end,
            } => Reply::Rounds {
                request,
                start,
                result: spec
                    .battles(&battles.name, battles.text.as_bytes())
                    .and_then(|(b, clusters)| plan(&spec, &b, clusters.as_deref()))
                    .and_then(|plan| rounds(scope, id, request, &plan, start, end))
                    .map_err(|e| e.to_string()),
            },
            Job::Summarise {
                request,
                leaderboard,
                replicates,
            } => Reply::Summarised {
                request,
                result: match &self.bootstrap {
                    Some((fitted, plan)) if *fitted == request => plan
                        .summarise(&replicates)
                        .and_then(|bootstrap| leaderboard.with_bootstrap(&bootstrap))
                        .map_err(|e| e.to_string()),
                    _ => Err(format!(
                        "this worker no longer holds the bootstrap of request {request}"
                    )),
                },
            },
            Job::Board { request, battles } => Reply::Fitted {
                request,
                result: bradley_terry_leaderboard(
                    "the judge run",
                    &Battles::from_named(
                        battles.iter().map(|(a, b, y)| (a.as_str(), b.as_str(), *y)),
                    ),
                    &BradleyTerryParams::default(),
                )
                .map_err(|e| e.to_string()),
            },
            Job::Analyse {
                request,
                spec,
                files,
            } => Reply::Analysed {
                request,
                result: run(&spec, &RoleFile::inputs(&files)).map_err(|e| e.to_string()),
            },
            Job::LoadCalibration {
                version,
                head,
                train,
                embeddings,
            } => {
                let data = read_calibration(head, &train, embeddings.as_ref(), None)
                    .map_err(|e| e.to_string());
                let result = data.as_ref().map(|_| ()).map_err(Clone::clone);
                self.calibration = Some((version, data));
                Reply::CalibrationLoaded { version, result }
            }
            Job::CvFolds {
                request,
                version,
                params,
                folds,
            } => Reply::CvFolds {
                request,
                version,
                result: self.kept(version).and_then(|data| {
                    params
                        .fold_losses(data, &folds)
                        .map(|losses| (data.len(), losses))
                        .map_err(|e| e.to_string())
                }),
                folds,
            },
            Job::Calibrate {
                request,
                version,
                test,
                test_embeddings,
                params,
                curve,
            } => Reply::Calibrated {
                request,
                result: self.kept(version).and_then(|train| {
                    calibrate(train, &test, test_embeddings.as_ref(), &params, curve)
                }),
            },
            Job::ProgramTexts {
                request,
                pairs,
                probes,
            } => Reply::ProgramTexts {
                request,
                result: parse_program_pairs(&pairs.name, pairs.text.as_bytes())
                    .and_then(|p| Ok(program_texts(&p, &parse_probe_upload(probes.as_ref())?)))
                    .map_err(|e| e.to_string()),
            },
        };
        scope.respond(id, reply);
    }
}
