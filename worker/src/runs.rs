//! Judge runs inside `tribunal serve`. A run is the engine of [`crate::judge`] on a
//! session's items dataset; runs take turns on the engine (one at a time). Each judgment is
//! stored as it completes, then recorded as the next event of the run's stream
//! `run:<session key>` — stored before it is broadcast — and broadcast to every WebSocket
//! watcher of that stream. A run's first event (started, with the number of judgments) is
//! stored when the run is accepted; its last is the end (finished, or failed with the error). A watcher first gets the stored events after the id it already has, then the
//! live ones, so a reconnecting page resumes without gaps or repeats. A run given a
//! calibration head (an LS or BTL model file) adds the head's output to each judgment event.
//! A run that finishes leaves its judgments in its session as datasets (the `.jsonl`, and its
//! verdicts as battles or its scores as ratings), stored before its last event.

use crate::engine::BackendConfig;
use crate::judge::{run_judge, EngineArgs, RunSpec, WorkArgs};
use crate::store::Store;
use anyhow::{Context, Result};
use std::sync::Arc;
use tokio::sync::{broadcast, Mutex};
use tribunal::calibration::head_file::Head;
use tribunal::judging::judge_prompt::preference;
use tribunal::sessions::protocol::{JudgmentEvent, RunEvent};
use tribunal::sessions::run_datasets::run_datasets;
use tribunal::sessions::session::check_dataset;

/// One event of a run's stream, as stored.
#[derive(Debug, Clone)]
pub struct Live {
    pub stream: String,
    pub event_id: i64,
    pub seq: u32,
    pub event: RunEvent,
}

/// The judge runs of one server. Cheap to clone.
#[derive(Clone)]
pub struct Runs {
    store: Store,
    engine: EngineArgs,
    live: broadcast::Sender<Live>,
    /// Held by the run on the engine.
    turn: Arc<Mutex<()>>,
}

/// The stream of the run that stores its judgments under `session`.
pub fn stream_of(session: &str) -> String {
    format!("run:{session}")
}

impl Runs {
    pub fn new(store: Store, engine: EngineArgs) -> Self {
        Self {
            store,
            engine,
            live: broadcast::channel(1024).0,
            turn: Arc::new(Mutex::new(())),
        }
    }

    /// Whether the judge `backend` names is there to run.
    pub fn engine_ready(&self, backend: &BackendConfig) -> Result<()> {
        self.engine.check_backend(backend)
    }

    /// Records the run's start in its stream, then runs `spec` once the engine is free;
    /// returns the stream at once.
    pub fn start(&self, spec: RunSpec, head: Option<Head>) -> Result<String> {
        let stream = stream_of(&spec.session);
        let first_seq = last_seq(&self.store, &stream) + 1;
        let total = u32::try_from(spec.total())?;
        self.publish(&stream, first_seq, RunEvent::Started { total })?;
        let runs = self.clone();
        let name = stream.clone();
        tokio::spawn(async move {
            let _turn = runs.turn.clone().lock_owned().await;
            let worker = runs.clone();
            let stream = name.clone();
            let outcome = tokio::task::spawn_blocking(move || {
                let mut seq = first_seq;
                let work = WorkArgs::serving();
                let record = run_judge(
                    &spec,
                    &worker.store,
                    &worker.engine,
                    &work,
                    &mut |_, body| {
                        seq += 1;
                        worker.publish(&stream, seq, judgment_event(body, total, head.as_ref())?)
                    },
                )?;
                worker
                    .save_judgments(&spec.session, &spec.source, &spec.bytes)
                    .context("the run's judgments could not be saved as datasets of the session")?;
                Ok::<_, anyhow::Error>((seq, record))
            })
            .await;
            let (seq, end) = match outcome {
                Ok(Ok((seq, record))) => (
                    seq + 1,
                    RunEvent::Finished {
                        judgments: count(&record["judgments"]),
                        parse_failures: count(&record["parse_failures"]),
                        seconds: record["seconds"].as_f64().unwrap_or_default(),
                    },
                ),
                Ok(Err(error)) => (
                    last_seq(&runs.store, &name) + 1,
                    RunEvent::Failed {
                        message: format!("{error:#}"),
                    },
                ),
                Err(panic) => (
                    last_seq(&runs.store, &name) + 1,
                    RunEvent::Failed {
                        message: format!("the run stopped: {panic}"),
                    },
                ),
            };
            if let Err(error) = runs.publish(&name, seq, end) {
                tracing::error!(stream = name, %error, "storing the end of a run");
            }
        });
        Ok(stream)
    }

    /// Adds the judgments of the run stored under `run_key` (`<session id>:<run>`) on the
    /// items file `items` to the session as datasets ([`run_datasets`]): what its analyses
    /// read. Done before the run's last event, so a page that sees the run finish finds them.
    fn save_judgments(&self, run_key: &str, items: &str, items_bytes: &[u8]) -> Result<()> {
        let session = run_key.split(':').next().unwrap_or(run_key);
        let judgments: Vec<String> = self
            .store
            .judgments(run_key)?
            .into_iter()
            .map(|(_, body)| body)
            .collect();
        for dataset in run_datasets(&judgments, items, items_bytes)? {
            let meta = check_dataset(dataset.kind, &dataset.name, &dataset.bytes)?;
            self.store.add_dataset(session, &meta, &dataset.bytes)?;
        }
        Ok(())
    }

    /// Stores `event` as `seq` of `stream`, then broadcasts it.
    fn publish(&self, stream: &str, seq: u32, event: RunEvent) -> Result<()> {
        let event_id = self
            .store
            .put_event(stream, seq, &serde_json::to_string(&event)?)?;
        // No watcher is not an error: the event is stored for later ones.
        let _ = self.live.send(Live {
            stream: stream.to_owned(),
            event_id,
            seq,
            event,
        });
        Ok(())
    }

    /// A receiver of every event published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Live> {
        self.live.subscribe()
    }

    /// The stored events of `stream` with an id above `after`, in order.
    pub fn replay(&self, stream: &str, after: i64) -> Result<Vec<Live>> {
        self.store
            .events_after(stream, after)?
            .into_iter()
            .map(|(event_id, seq, body)| {
                Ok(Live {
                    stream: stream.to_owned(),
                    event_id,
                    seq,
                    event: serde_json::from_str(&body)
                        .with_context(|| format!("stored event {event_id} of {stream}"))?,
                })
            })
            .collect()
    }
}

fn count(v: &serde_json::Value) -> u32 {
    v.as_u64().and_then(|n| u32::try_from(n).ok()).unwrap_or(0)
}

fn last_seq(store: &Store, stream: &str) -> u32 {
    store
        .events(stream)
        .ok()
        .and_then(|events| events.last().map(|e| e.0))
        .unwrap_or(0)
}

/// The event of one stored judgment (its JSON as `tribunal judge` writes it: the verdict, the
/// rationale, p_s and the judge's preference for the file's `response`, the models), with `head`'s
/// output when the judgment has what the head reads: the rationale's embedding, and p(`A`)
/// for a BTL head or a parsed score for an LS head.
fn judgment_event(body: &str, total: u32, head: Option<&Head>) -> Result<RunEvent> {
    let v: serde_json::Value = serde_json::from_str(body)?;
    let text = |key: &str| v[key].as_str().map(str::to_owned);
    let calibrated = match head {
        Some(head) => {
            let embedding: Option<Vec<f64>> = v["embedding"]
                .as_array()
                .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect());
            let signal = match head {
                Head::Btl(_) => v["label_probs"]["A"].as_f64(),
                _ => v["label"].as_str().and_then(|l| l.parse().ok()),
            };
            match (embedding, signal) {
                (Some(e), Some(signal)) => {
                    let out = head.predict_one(&e, signal)?;
                    let swapped = matches!(head, Head::Btl(_)) && v["order"] == "ba";
                    Some(if swapped { 1.0 - out } else { out })
                }
                _ => None,
            }
        }
        None => None,
    };
    let label_probs: Vec<(String, f64)> = v["label_probs"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(l, p)| p.as_f64().map(|p| (l.clone(), p)))
                .collect()
        })
        .unwrap_or_default();
    let models = match (text("model"), text("model_b")) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => None,
    };
    Ok(RunEvent::Judgment(Box::new(JudgmentEvent {
        calibrated,
        total,
        generated_tokens: v["generated_tokens"]
            .as_u64()
            .and_then(|t| u32::try_from(t).ok())
            .unwrap_or_default(),
        rationale: text("feedback").or_else(|| text("raw")).unwrap_or_default(),
        preference: preference(&label_probs, v["order"] == "ba"),
        label_probs,
        models,
        injection: v["injection"]
            .as_array()
            .map(|flags| {
                flags
                    .iter()
                    .map(|f| {
                        format!(
                            "{}: {}",
                            f["field"].as_str().unwrap_or_default(),
                            f["kind"].as_str().unwrap_or_default()
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
        item: text("id").unwrap_or_default(),
        order: text("order").unwrap_or_default(),
        repeat: v["repeat"]
            .as_u64()
            .and_then(|r| u32::try_from(r).ok())
            .unwrap_or_default(),
        variant: text("variant").unwrap_or_default(),
        label: text("label"),
        winner: text("winner"),
        parse_error: text("parse_error"),
        seconds: v["seconds"].as_f64().unwrap_or_default(),
    })))
}
