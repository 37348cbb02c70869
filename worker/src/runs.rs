//! Judge runs inside `tribunal serve`. A run is the engine of [`crate::judge`] on a
//! session's items dataset, queued in the store so that `tribunal work` processes on it judge
//! beside the server; the server's runs take turns on its engine (one at a time). Its events
//! ([`crate::judge::events`]: started, one per stored judgment, the end) are stored as they
//! happen — by whichever process makes them — and the ones this process stores are also
//! broadcast to its WebSocket watchers, who read the others back from the store. A run given
//! a calibration head (an LS or BTL model file) adds the head's output to each judgment event.
//! A run that finishes leaves its judgments in its session as datasets (the `.jsonl`, and its
//! verdicts as battles or its scores as ratings), stored before its last event.

use crate::judge::events::{self, Live};
use crate::judge::{queue_run, run_judge, EngineArgs, RunSpec, WorkArgs};
use crate::store::Store;
use anyhow::{Context, Result};
use std::sync::Arc;
use tokio::sync::{broadcast, Mutex};
use tribunal::sessions::protocol::RunEvent;

/// The judge runs of one server. Cheap to clone.
#[derive(Clone)]
pub struct Runs {
    store: Store,
    engine: EngineArgs,
    live: broadcast::Sender<Live>,
    /// Held by the run on the engine.
    turn: Arc<Mutex<()>>,
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
    pub fn engine_ready(
        &self,
        backend: &tribunal::judging::judge_config::BackendConfig,
    ) -> Result<()> {
        self.engine.check_backend(backend)
    }

    /// Records the start of the streamed run `spec` and queues it (other processes may judge
    /// it from now on), then judges it here once the engine is free; returns its stream at once.
    pub fn start(&self, spec: RunSpec) -> Result<String> {
        let stream = spec
            .stream
            .clone()
            .context("a served run has an event stream")?;
        let total = u32::try_from(spec.total())?;
        self.broadcast(events::append(
            &self.store,
            &stream,
            RunEvent::Started { total },
        )?);
        let queue = queue_run(&spec, &self.store)?;
        let runs = self.clone();
        let name = stream.clone();
        tokio::spawn(async move {
            let _turn = runs.turn.clone().lock_owned().await;
            let worker = runs.clone();
            let queue_name = queue.clone();
            let outcome = tokio::task::spawn_blocking(move || {
                let work = WorkArgs::serving();
                run_judge(
                    &queue_name,
                    &spec,
                    &worker.store,
                    &worker.engine,
                    &work,
                    &mut |event| {
                        worker.broadcast(event);
                        Ok(())
                    },
                )
            })
            .await;
            // A failed run was ended by `run_judge`; a panic ends it here.
            let ended = match outcome {
                Ok(Ok(_)) => Ok(None),
                Ok(Err(error)) => {
                    tracing::warn!(
                        stream = name,
                        error = format!("{error:#}"),
                        "a judge run failed"
                    );
                    Ok(None)
                }
                Err(panic) => events::fail(
                    &runs.store,
                    &queue,
                    &name,
                    format!("the run stopped: {panic}"),
                ),
            };
            match ended {
                Ok(Some(end)) => runs.broadcast(end),
                Ok(None) => {}
                Err(error) => tracing::error!(stream = name, %error, "storing the end of a run"),
            }
        });
        Ok(stream)
    }

    /// Sends a stored event to this process's watchers (none listening is not an error: the
    /// event is stored for later ones).
    fn broadcast(&self, event: Live) {
        let _ = self.live.send(event);
    }

    /// A receiver of every event this process stores from now on.
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
