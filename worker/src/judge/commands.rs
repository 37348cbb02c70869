//! The `tribunal judge` and `tribunal embed` commands on files: read the config and the inputs,
//! run, and write the output atomically (a temporary file renamed over it).

use crate::engine::embedder::Embedder;
use crate::engine::local_judge::LocalJudge;
use crate::engine::openai_embedder::OpenAiEmbedder;
use crate::engine::{select_device, ModelPaths};
use crate::input_file::{read_input, read_texts};
use crate::judge::cascade;
use crate::judge::config::EngineArgs;
use crate::judge::queue::{queue_run, run_judge, WorkArgs};
use crate::judge::record::RunRecord;
use crate::judge::spec::RunSpec;
use crate::store::{JudgmentKey, Store, StoreArgs};
use anyhow::{bail, Context};
use clap::Args;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tribunal::io::embedding_file::npy_f32;
use tribunal::io::provenance::content_hash;
use tribunal::judging::judge_config::{JudgeConfig, OpenAiParams};
use tribunal::judging::judge_items::blank_summary;

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

pub fn judge(args: JudgeArgs) -> anyhow::Result<()> {
    let config_text = std::fs::read_to_string(&args.config)
        .with_context(|| format!("{}", args.config.display()))?;
    let config: JudgeConfig = toml::from_str(&config_text)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.config.display()))?;
    if let Some(escalation) = &config.escalate {
        escalation
            .check_judges(&config.backend)
            .with_context(|| args.config.display().to_string())?;
    }
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
    if let Some(warning) = blank_summary(&spec.source, &spec.items) {
        eprintln!("tribunal: warning: {warning}");
    }
    let store = args.store.open()?;
    let (record, lines) = judge_spec(&spec, &store, &args.engine, &args.work)?;
    let mut text = String::new();
    for line in lines {
        text.push_str(&line);
        text.push('\n');
    }
    write_atomically(&args.out, text.as_bytes())?;
    let record_path = PathBuf::from(format!("{}.run.json", args.out.display()));
    std::fs::write(&record_path, record.to_json()?)
        .with_context(|| format!("{}", record_path.display()))?;
    if spec.cascade.is_some() {
        write_cascade(&spec, &store, &args.out)?;
    }
    eprintln!(
        "tribunal: {} judgments ({} now, {} parse failures) in {:.1} s; record in {}",
        record.judgments,
        record.judged_now,
        record.parse_failures,
        record.seconds,
        record_path.display()
    );
    Ok(())
}

/// Writes the files of the cascade `spec` began (its later judges' runs are stored): each
/// later judge's judgments as `OUT.tier<k>.jsonl` (their records come with the first run's
/// in the store), the cascade's judgments file `OUT.cascade.csv` (the `cascade` analysis's
/// input, human labels blank) and the items left to people, `OUT.to-people.csv`.
fn write_cascade(spec: &RunSpec, store: &Store, out: &Path) -> anyhow::Result<()> {
    let with = |suffix: &str| PathBuf::from(format!("{}.{suffix}", out.display()));
    let mut last: Option<RunSpec> = None;
    while let Some(next) = cascade::next_run(store, last.as_ref().unwrap_or(spec))? {
        let tier = next.cascade.as_ref().map_or(0, |c| c.tier + 1);
        let mut text = String::new();
        for (_, body) in store.judgments(&next.session)? {
            text.push_str(&body);
            text.push('\n');
        }
        write_atomically(&with(&format!("tier{tier}.jsonl")), text.as_bytes())?;
        last = Some(next);
    }
    let last = last.as_ref().unwrap_or(spec);
    let tier = last.cascade.as_ref().context("a cascade's run")?;
    let (file, people) = cascade::outputs(store, last, tier)?;
    write_atomically(&with("cascade.csv"), &file)?;
    let people_path = with("to-people.csv");
    match people {
        Some(people) => write_atomically(&people_path, &people)?,
        None if people_path.exists() => std::fs::remove_file(&people_path)
            .with_context(|| format!("{}", people_path.display()))?,
        None => {}
    }
    eprintln!(
        "tribunal: the cascade's judgments in {}, the items left to people in {}",
        with("cascade.csv").display(),
        people_path.display()
    );
    Ok(())
}

/// Judges the run `spec` in `store` (queued there, so `tribunal work` processes may help, and
/// resumed where an earlier process stopped): its record, and every judgment stored under its
/// session — the run's in plan order, then any others in the order they were stored.
pub fn judge_spec(
    spec: &RunSpec,
    store: &Store,
    engine: &EngineArgs,
    work: &WorkArgs,
) -> anyhow::Result<(RunRecord, Vec<String>)> {
    eprintln!(
        "tribunal: session {}: {} judgments stored already",
        spec.session,
        store.judgments(&spec.session)?.len()
    );
    let queue = queue_run(spec, store)?;
    let record = run_judge(&queue, spec, store, engine, work, &mut |_| Ok(()))?.swap_remove(0);
    let mut others: HashMap<JudgmentKey, String> =
        store.judgments(&spec.session)?.into_iter().collect();
    let mut lines = Vec::new();
    for planned in &spec.planned {
        if let Some(body) = others.remove(&spec.key(planned)) {
            lines.push(body);
        }
    }
    for (key, body) in store.judgments(&spec.session)? {
        if others.contains_key(&key) {
            lines.push(body);
        }
    }
    Ok((record, lines))
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

/// Writes `data` to a temporary file beside `path`, then renames it over `path`.
fn write_atomically(path: &Path, data: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, data).with_context(|| format!("{}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("{}", path.display()))
}
