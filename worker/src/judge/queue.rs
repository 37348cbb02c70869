//! The run queue: a process claims a run's units in batches (leases renewed by a heartbeat),
//! judges them on every lane of its engine at once and stores each judgment with its unit's
//! `done` mark (and a served run's event, [`crate::judge::events`]). [`queue_run`] queues a
//! run and [`run_judge`] works it (`tribunal judge`, a served run); [`work`] is `tribunal
//! work`, which works any open run of the store. Whichever process finds a run's units all
//! done ends it, once.

use crate::engine::embedder::Embedder;
use crate::engine::local_judge::Generation;
use crate::engine::{load_judges, select_device, Judge, JudgeModel, ModelPaths};
use crate::judge::config::EngineArgs;
use crate::judge::events::{self, Live};
use crate::judge::judgment::judge_one;
use crate::judge::record::{RunItems, RunRecord};
use crate::judge::spec::RunSpec;
use crate::store::{JudgmentKey, NewEvent, Store, StoreArgs};
use anyhow::{bail, Context};
use candle_core::Device;
use clap::Args;
use std::collections::HashMap;
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use tribunal::io::provenance::content_hash;
use tribunal::judging::judge_config::{BackendConfig, JudgeConfig, RationaleEmbedding};
use tribunal::judging::judge_design::Planned;

fn unix_seconds() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// How a process takes part in queued runs: its name in claims, how many units it claims at a
/// time and how long a claim holds.
#[derive(Args, Clone, Debug)]
pub struct WorkArgs {
    /// This worker's name in its claims (default: `<host>-<process id>`).
    #[arg(long)]
    worker: Option<String>,
    /// Units claimed at a time.
    #[arg(long, default_value_t = 4)]
    batch: u32,
    /// Seconds a claim holds without its worker's heartbeat (sent every fifth of it): the
    /// units of a worker that died are claimed again this long after its last heartbeat.
    #[arg(long, default_value_t = 10.0)]
    lease_seconds: f64,
}

impl WorkArgs {
    /// The settings of a run inside `tribunal serve`.
    pub fn serving() -> Self {
        Self {
            worker: None,
            batch: 4,
            lease_seconds: 10.0,
        }
    }

    fn name(&self) -> String {
        self.worker.clone().unwrap_or_else(|| {
            let host = std::fs::read_to_string("/etc/hostname")
                .map(|h| h.trim().to_owned())
                .unwrap_or_else(|_| "worker".to_owned());
            format!("{host}-{}", std::process::id())
        })
    }

    fn check(&self) -> anyhow::Result<()> {
        if self.batch == 0 {
            bail!("--batch: expected at least 1 unit per claim, found 0");
        }
        if !(self.lease_seconds.is_finite() && self.lease_seconds > 0.0) {
            bail!(
                "--lease-seconds: expected a positive number of seconds, found {}",
                self.lease_seconds
            );
        }
        Ok(())
    }
}

/// What a process judged of a run.
#[derive(Default)]
struct Tally {
    judged: usize,
    prompt_tokens: usize,
    generated_tokens: usize,
}

impl Tally {
    fn add(&mut self, g: &Generation) {
        self.judged += 1;
        self.prompt_tokens += g.prompt_tokens;
        self.generated_tokens += g.generated_tokens;
    }
}

/// The judges and embedder a worker holds, loaded for one backend configuration: one judge
/// per request in flight (`lanes`).
struct Loaded {
    backend: BackendConfig,
    /// MiniLM is loaded.
    embed: bool,
    lanes: Vec<Box<dyn Judge + Send>>,
    embedder: Option<Embedder>,
}

impl Loaded {
    fn load(config: &JudgeConfig, engine: &EngineArgs, device: &Device) -> anyhow::Result<Self> {
        let embed = Self::minilm(config);
        Ok(Self {
            backend: config.backend.clone(),
            embed,
            lanes: load_judges(&config.backend, &engine.models, device)?,
            embedder: embed
                .then(|| Embedder::load(&ModelPaths::under(&engine.models).minilm, device))
                .transpose()?,
        })
    }

    /// Whether `config` embeds rationales with MiniLM.
    fn minilm(config: &JudgeConfig) -> bool {
        config.embed_rationale && config.rationale_embedding == RationaleEmbedding::Minilm
    }

    fn fits(&self, config: &JudgeConfig) -> bool {
        self.backend == config.backend && self.embed == Self::minilm(config)
    }

    fn describe(&self) -> anyhow::Result<JudgeModel> {
        self.lanes.first().context("no judge is loaded")?.describe()
    }
}

/// Runs `f` while a thread renews `worker`'s claims every fifth of the lease.
fn with_heartbeat<T>(
    store: &Store,
    worker: &str,
    lease_seconds: f64,
    f: impl FnOnce() -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let every = std::time::Duration::from_secs_f64(lease_seconds / 5.0);
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every)
            {
                if let Err(error) = store.renew(worker) {
                    tracing::warn!(worker, %error, "renewing claims");
                }
            }
        });
        let result = f();
        drop(stop);
        result
    })
}

/// Claims and judges units of the queued run `queue` until none is left to claim and no other
/// worker holds one; each event this process stores is handed to `each`. A unit whose
/// judgment was stored before the run was queued (an earlier run of the session) is marked
/// done without judging it again.
fn work_through(
    queue: &str,
    spec: &RunSpec,
    store: &Store,
    work: &WorkArgs,
    name: &str,
    loaded: &mut Loaded,
    each: &mut dyn FnMut(Live) -> anyhow::Result<()>,
) -> anyhow::Result<Tally> {
    let stored: HashMap<JudgmentKey, String> =
        store.judgments(&spec.session)?.into_iter().collect();
    let mut tally = Tally::default();
    // At least one unit per lane, so every request slot has work.
    let batch = work.batch.max(u32::try_from(loaded.lanes.len())?);
    loop {
        let units = store.claim(queue, name, batch, work.lease_seconds)?;
        if units.is_empty() {
            let progress = store.progress(queue, work.lease_seconds)?;
            if progress.pending == 0 && progress.claimed == 0 {
                return Ok(tally);
            }
            // Other workers hold the rest: wait for them to finish or for their leases to lapse.
            std::thread::sleep(std::time::Duration::from_millis(100));
            continue;
        }
        let mut todo = Vec::with_capacity(units.len());
        for unit in units {
            let planned = spec
                .unit(unit)
                .with_context(|| format!("{queue}: unit {unit} is not in the run's plan"))?;
            let key = spec.key(planned);
            match stored.get(&key) {
                Some(body) => {
                    store.complete(queue, unit, &key, body, None)?;
                }
                None => todo.push((unit, planned)),
            }
        }
        judge_units(spec, &todo, loaded, &mut |unit, key, body, g| {
            tally.add(g);
            store_judgment(queue, spec, store, (unit, key, body), each)
        })?;
    }
}

/// Stores the judgment of a unit and marks it done; for a streamed run also its event, in the
/// same transaction, handed to `each` when this process stored it.
fn store_judgment(
    queue: &str,
    spec: &RunSpec,
    store: &Store,
    (unit, key, body): (u32, &JudgmentKey, &str),
    each: &mut dyn FnMut(Live) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let Some(stream) = &spec.stream else {
        store.complete(queue, unit, key, body, None)?;
        return Ok(());
    };
    let head = spec.head.as_ref().map(|(_, head)| head);
    let event = events::judgment_event(body, u32::try_from(spec.total())?, head)?;
    let json = serde_json::to_string(&event)?;
    let done = store.complete(
        queue,
        unit,
        key,
        body,
        Some(NewEvent {
            stream,
            body: &json,
        }),
    )?;
    if let Some(stored) = done.event {
        each(Live {
            stream: stream.clone(),
            event_id: stored.id,
            seq: stored.seq,
            event,
        })?;
    }
    Ok(())
}

/// Judges `todo` (units and their planned judgments) with every lane of `loaded` at once, each
/// lane taking the next unit when it is free; `done` gets each result on this thread as it
/// arrives. The first error stops the lanes taking more units and is returned.
fn judge_units(
    spec: &RunSpec,
    todo: &[(u32, &Planned)],
    loaded: &mut Loaded,
    done: &mut dyn FnMut(u32, &JudgmentKey, &str, &Generation) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let embedder = loaded.embedder.as_ref();
    let (sender, results) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        for judge in loaded.lanes.iter_mut().take(todo.len()) {
            let (sender, next) = (sender.clone(), &next);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(unit, planned)) = todo.get(i) else {
                    break;
                };
                let result = judge_one(spec, planned, judge.as_mut(), embedder);
                let failed = result.is_err();
                if sender.send((unit, result)).is_err() || failed {
                    // Stop the other lanes too.
                    next.store(todo.len(), std::sync::atomic::Ordering::Relaxed);
                    break;
                }
            });
        }
        drop(sender);
        for (unit, result) in results {
            let (key, body, g) = result?;
            done(unit, &key, &body, &g)?;
        }
        Ok(())
    })
}

/// Queues `spec`; a run queued before is opened again (a restart resumes it). Returns its
/// queue.
pub fn queue_run(spec: &RunSpec, store: &Store) -> anyhow::Result<String> {
    let (queue, queued) = spec.queued()?;
    store.enqueue(&queue, &queued, u32::try_from(spec.total())?)?;
    Ok(queue)
}

/// Judges the units of the queued run `queue` of `spec` with this process's engine, beside any
/// `tribunal work` processes on the same store, until every unit is done, then ends the run
/// ([`events::finish`]) unless another process did; a cascade's later judges' runs follow in
/// turn. Each event this process stores is handed to `each`; a streamed run that fails here is
/// ended as failed. Returns each run's reproducibility record (one per judge of a cascade),
/// also stored.
pub fn run_judge(
    queue: &str,
    spec: &RunSpec,
    store: &Store,
    engine: &EngineArgs,
    work: &WorkArgs,
    each: &mut dyn FnMut(Live) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<RunRecord>> {
    let mut records = Vec::new();
    let mut next: Option<(String, RunSpec)> = None;
    loop {
        let (queue, spec) = next
            .as_ref()
            .map_or((queue, spec), |(q, s)| (q.as_str(), s));
        let outcome = judge_queued(queue, spec, store, engine, work, each);
        if let (Err(error), Some(stream)) = (&outcome, &spec.stream) {
            if let Some(end) = events::fail(store, queue, stream, format!("{error:#}"))? {
                each(end)?;
            }
        }
        let (record, after) = outcome?;
        records.push(record);
        match after {
            Some(after) => next = Some(after),
            None => return Ok(records),
        }
    }
}

fn judge_queued(
    queue: &str,
    spec: &RunSpec,
    store: &Store,
    engine: &EngineArgs,
    work: &WorkArgs,
    each: &mut dyn FnMut(Live) -> anyhow::Result<()>,
) -> anyhow::Result<(RunRecord, Option<(String, RunSpec)>)> {
    work.check()?;
    let (config, session, source) = (&spec.config, &spec.session, &spec.source);
    let resumed_from = store.judgments(session)?.len();
    tracing::info!(session, queue, stored = resumed_from, "judge run");
    let device = select_device(engine.device)?;
    let mut loaded = Loaded::load(config, engine, &device)?;
    let started = (unix_seconds(), Instant::now());
    let name = work.name();
    let tally = with_heartbeat(store, &name, work.lease_seconds, || {
        work_through(queue, spec, store, work, &name, &mut loaded, each)
    })?;
    let (judgments, failures) = events::stored_counts(store, session)?;
    let elapsed = started.1.elapsed().as_secs_f64();
    let record = RunRecord {
        code_version: env!("CARGO_PKG_VERSION").to_owned(),
        judge_model: loaded.describe()?,
        embedding_model: config
            .embed_rationale
            .then(|| config.rationale_embedding.model().to_owned()),
        device: format!("{device:?}"),
        prompt: config.prompt.clone(),
        prompt_hash: content_hash(serde_json::to_string(&config.prompt)?.as_bytes()),
        decoding: config.decoding,
        verdict_constrained: config.verdict_constrained(),
        design: config.design.clone(),
        variations: spec.design.variants.clone(),
        items: RunItems {
            source: source.clone(),
            hash: content_hash(&spec.bytes),
            count: spec.items.len(),
        },
        started_unix: started.0,
        finished_unix: unix_seconds(),
        session: session.clone(),
        queue: queue.to_owned(),
        store: store.backend().to_owned(),
        judged_now: tally.judged,
        resumed_from,
        judgments,
        parse_failures: failures,
        injection_flagged_items: spec.injection.iter().filter(|f| !f.is_empty()).count(),
        blank_response_items: spec.items.iter().filter(|i| !i.blank.is_empty()).count(),
        prompt_tokens: tally.prompt_tokens,
        generated_tokens: tally.generated_tokens,
        seconds: elapsed,
        generated_tokens_per_second: tally.generated_tokens as f64 / elapsed,
    };
    let finish = events::finish(
        store,
        queue,
        spec,
        Some(events::Record {
            started_at: &started.0.to_string(),
            json: &record.to_json()?,
        }),
    )?;
    if let Some(end) = finish.event {
        each(end)?;
    }
    Ok((record, finish.next))
}

/// `tribunal work`: judges the queued runs of the store (PostgreSQL, for several of these on
/// several machines) with this process's engine, oldest run first; with `--idle-exit`, stops
/// once no run has had a unit to claim for that many seconds.
#[derive(Args)]
pub struct WorkerArgs {
    #[command(flatten)]
    store: StoreArgs,
    #[command(flatten)]
    work: WorkArgs,
    #[command(flatten)]
    engine: EngineArgs,
    /// Stop after this many seconds without a unit to claim (default: keep polling).
    #[arg(long)]
    idle_exit: Option<f64>,
}

pub fn work(args: WorkerArgs) -> anyhow::Result<()> {
    args.work.check()?;
    let store = args.store.open()?;
    let device = select_device(args.engine.device)?;
    let name = args.work.name();
    eprintln!(
        "tribunal: worker {name} on {} ({})",
        args.store.describe(),
        store.backend()
    );
    with_heartbeat(&store, &name, args.work.lease_seconds, || {
        work_loop(&args, &store, &device, &name)
    })
}

/// `tribunal work`'s loop over the open runs.
fn work_loop(args: &WorkerArgs, store: &Store, device: &Device, name: &str) -> anyhow::Result<()> {
    let mut loaded: Option<Loaded> = None;
    let mut idle_since = Instant::now();
    let mut judged = 0;
    loop {
        let open = store.open_runs(args.work.lease_seconds)?;
        if open.is_empty() {
            if args
                .idle_exit
                .is_some_and(|limit| idle_since.elapsed().as_secs_f64() >= limit)
            {
                eprintln!("tribunal: worker idle; {judged} judgments made");
                return Ok(());
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
            continue;
        }
        for queue in open {
            let Some(json) = store.queued_spec(&queue)? else {
                continue;
            };
            let spec = RunSpec::from_queued(&queue, &json)?;
            let progress = store.progress(&queue, args.work.lease_seconds)?;
            if progress.pending > 0 {
                if !loaded.as_ref().is_some_and(|l| l.fits(&spec.config)) {
                    loaded = Some(Loaded::load(&spec.config, &args.engine, device)?);
                }
                if let Some(l) = loaded.as_mut() {
                    // The events this process stores reach watchers through the store.
                    let mut stored = |_: Live| Ok(());
                    judged += work_through(&queue, &spec, store, &args.work, name, l, &mut stored)?
                        .judged;
                }
            } else if progress.claimed > 0 {
                // Its last units are being judged by their workers, who will end it.
                continue;
            }
            // Every unit is done: end the run (its process may have died before it could); a
            // cascade's next judge's run is open to this loop from now on.
            events::finish(store, &queue, &spec, None)?;
        }
        idle_since = Instant::now();
    }
}
