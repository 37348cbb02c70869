//! The statistics web worker. The page posts a [`Job`]; the worker runs the `tribunal`
//! statistics off the UI thread and answers with [`Reply`] messages tagged with the job's
//! request number (the page ignores replies to requests it has superseded). Trunk builds it as
//! `stats-worker.js` + `stats-worker_bg.wasm` (`data-type="worker"`).
//!
//! Every analysis runs through [`tribunal::analysis::split`] — what the CLI's
//! [`tribunal::analysis::run`] joins — as three generic jobs: [`Job::Preview`] (what to show
//! while the parts compute: a leaderboard's point fit), [`Job::Parts`] (a range of the run's
//! parts — a leaderboard's bootstrap rounds, a calibration's cross-validation folds — with a
//! progress message every few parts) and [`Job::Finish`] (the report from every part's
//! result; for a kind that runs whole, the whole run). The page splits the parts across its
//! workers ([`crate`]'s `worker_pool`); a part depends only on the spec and its index, so the
//! split does not change the numbers. A programs report with the user's own programs is an
//! analysis too: the page runs them in its sandbox on the texts of [`Job::ProgramTexts`] and
//! sends their scores as the analysis's `user_scores` file. Files travel as text where they
//! are UTF-8 (which the message encoding carries far more cheaply than a byte array).
//!
//! Two jobs are not analyses: a judge run's live leaderboard ([`Job::Board`], battles as
//! they are judged, not a file) and [`Job::ProgramTexts`].

use gloo_worker::{Codec, HandlerId, Spawnable, Worker, WorkerBridge, WorkerScope};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tribunal::analysis::partial::Partial;
use tribunal::analysis::split::Prepared;
use tribunal::analysis::{Inputs, Report, Spec};
use tribunal::io::cbor::{from_cbor, to_cbor};
use tribunal::programs::program_pairs::{parse_probes, parse_program_pairs, Probe};
use tribunal::programs::program_user_scores::program_texts;
use tribunal::rankings::battles::Battles;
use tribunal::rankings::bradley_terry::BradleyTerryParams;
use tribunal::rankings::leaderboard::{bradley_terry_leaderboard, Leaderboard};
use wasm_bindgen::JsValue;

/// The script that starts a statistics worker (`public/stats_worker_loader.js`: it loads Trunk's
/// output for the `stats-worker` bin).
pub const WORKER_LOADER_PATH: &str = "/stats_worker_loader.js";

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
    /// The text's [`content_hash`](tribunal::io::provenance::content_hash), when the page
    /// hashed it as it read it.
    #[serde(default)]
    pub hash: Option<String>,
}

impl Upload {
    /// The file as text, or an error naming the line of the first byte that is not UTF-8.
    pub fn new(name: String, bytes: Vec<u8>) -> Result<Self, String> {
        match String::from_utf8(bytes) {
            Ok(text) => Ok(Self {
                name,
                text,
                hash: None,
            }),
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
    /// The content's [`content_hash`], when the page has it: the worker takes it for the spec's
    /// check instead of hashing the file again (a file without it, such as a saved analysis's,
    /// is hashed and checked there).
    #[serde(default)]
    pub hash: Option<String>,
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
            hash: None,
        }
    }

    /// A text file in `role`.
    pub fn text(role: impl Into<String>, upload: Upload) -> Self {
        Self {
            role: role.into(),
            name: upload.name,
            content: Content::Text(upload.text),
            hash: upload.hash,
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
            let (role, name, bytes) = (file.role.clone(), file.name.clone(), file.bytes().to_vec());
            match &file.hash {
                Some(hash) => inputs.insert_hashed(role, name, bytes, hash.clone()),
                None => inputs.insert(role, name, bytes),
            }
        }
        inputs
    }
}

/// Work for the statistics worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Job {
    /// What to show of `spec` while its parts compute ([`tribunal::analysis::split::plan`]).
    /// Without files, the worker's kept run of the same spec.
    Preview {
        request: u64,
        spec: Box<Spec>,
        files: Option<Vec<RoleFile>>,
    },
    /// Parts `start..end` of `spec`'s run, with [`Reply::Progress`] as they finish. Without
    /// files, the worker's kept run of the same spec.
    Parts {
        request: u64,
        spec: Box<Spec>,
        files: Option<Vec<RoleFile>>,
        start: usize,
        end: usize,
    },
    /// The report of `spec` from its parts' results, in order (none for a kind that runs
    /// whole). Without files, the worker's kept run of the same spec.
    Finish {
        request: u64,
        spec: Box<Spec>,
        files: Option<Vec<RoleFile>>,
        parts: Vec<Partial>,
    },
    /// The leaderboard (point estimates, sandwich SEs) of a judge run's battles so far:
    /// (model of `response`, model of `response_b`, the judge's preference for `response`).
    Board {
        request: u64,
        battles: Vec<(String, String, f64)>,
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
    /// The report to show while the parts compute, if the kind has one.
    Previewed {
        request: u64,
        result: Result<Option<Report>, String>,
    },
    /// `done` more parts finished.
    Progress { request: u64, done: usize },
    /// The result of parts `start..`.
    Parts {
        request: u64,
        start: usize,
        result: Result<Partial, String>,
    },
    /// The report of a [`Job::Finish`]: what the CLI prints.
    Analysed {
        request: u64,
        result: Result<Report, String>,
    },
    /// The live leaderboard of a [`Job::Board`].
    Fitted {
        request: u64,
        result: Result<Leaderboard, String>,
    },
    /// The texts to run the user's programs on.
    ProgramTexts {
        request: u64,
        result: Result<Vec<(String, String)>, String>,
    },
}

impl Reply {
    /// The request the reply answers.
    pub fn request(&self) -> u64 {
        match self {
            Self::Previewed { request, .. }
            | Self::Progress { request, .. }
            | Self::Parts { request, .. }
            | Self::Analysed { request, .. }
            | Self::Fitted { request, .. }
            | Self::ProgramTexts { request, .. } => *request,
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

/// The worker: one job at a time; it keeps the last run it prepared (its files read, parsed
/// and fitted once), which the next jobs of the same spec reuse.
pub struct StatsWorker {
    prepared: Option<Prepared>,
}

impl StatsWorker {
    /// The run of `spec`: the one kept, or prepared now on `files`.
    fn prepared(&mut self, spec: &Spec, files: Option<&[RoleFile]>) -> Result<&Prepared, String> {
        if self.prepared.as_ref().is_none_or(|p| p.spec() != spec) {
            self.prepared = None;
            let files = files.ok_or_else(|| {
                "this worker does not hold the analysis's files: run it again".to_owned()
            })?;
            let prepared =
                Prepared::new(spec, RoleFile::inputs(files)).map_err(|e| e.to_string())?;
            self.prepared = Some(prepared);
        }
        self.prepared
            .as_ref()
            .ok_or_else(|| "the run could not be prepared".to_owned())
    }
}

fn parse_probe_upload(probes: Option<&Upload>) -> tribunal::Result<Vec<Probe>> {
    probes.map_or(Ok(Vec::new()), |p| parse_probes(&p.name, p.text.as_bytes()))
}

impl Worker for StatsWorker {
    type Message = ();
    type Input = Job;
    type Output = Reply;

    fn create(_scope: &WorkerScope<Self>) -> Self {
        Self { prepared: None }
    }

    fn update(&mut self, _scope: &WorkerScope<Self>, _message: Self::Message) {}

    fn received(&mut self, scope: &WorkerScope<Self>, job: Self::Input, id: HandlerId) {
        let reply = match job {
            Job::Preview {
                request,
                spec,
                files,
            } => Reply::Previewed {
                request,
                result: self
                    .prepared(&spec, files.as_deref())
                    .and_then(|run| run.preview().map_err(|e| e.to_string())),
            },
            Job::Parts {
                request,
                spec,
                files,
                start,
                end,
            } => Reply::Parts {
                request,
                start,
                result: self.prepared(&spec, files.as_deref()).and_then(|run| {
                    run.run_parts(start..end, &mut |done| {
                        scope.respond(id, Reply::Progress { request, done });
                    })
                    .map_err(|e| e.to_string())
                }),
            },
            Job::Finish {
                request,
                spec,
                files,
                parts,
            } => Reply::Analysed {
                request,
                result: self
                    .prepared(&spec, files.as_deref())
                    .and_then(|run| run.finish(parts).map_err(|e| e.to_string())),
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
