//! `tribunal study`: the LLMFAO study — a local judge (SmolLM2-135M-Instruct) on a budgeted,
//! stratified sample of LLMFAO's 2,139 pairs, set against the crowd's 8,931 votes and GPT-4's
//! verdicts; every section an analysis spec, saved together as a session the app opens by URL,
//! and a report (`docs/llmfao-study.md` with SVG figures) written from the same specs.
//!
//! The steps:
//! 1. **Sample** ([`llmfao`]): `--minutes` at `--seconds-per-judgment` buys a number of
//!    judgments; the study spends them on n pairs stratified by instruction and crowd verdict
//!    (seed `--seed`), judged once each in a random order (the field guide's randomisation),
//!    plus both orders on a seeded quarter of them (position bias) and two sampled runs
//!    (temperature 0.7) on an eighth (the A/A test): n + 2⌈n/4⌉ + 2⌈n/8⌉ judgments. `--full`
//!    takes every pair.
//! 2. **Judge** ([`crate::judge`]): three runs in the store (`--data-dir`/`--store`), each under
//!    a session named after its configuration and items, so an interrupted study resumes. A
//!    run's judgments are kept, gzip-compressed, under `docs/llmfao-study/judgments/` with the
//!    record of the run that made them (code version, model file and prompt hashes, decoding,
//!    design and seeds, times); when they are there and match the run (model file and the
//!    local judge's [`local_judge::REVISION`], items, prompt, decoding and design), the study
//!    loads them into the store instead of judging again
//!    (`--rejudge` judges anyway). `--verify K` re-judges K of the main run's judgments in a
//!    fresh session and says how many verdicts match and how far p_s moved.
//! 3. **Analyse** ([`judged`]): the judgments become the analyses' files
//!    (`target/llmfao-study/`), each analysis is a `tribunal stats` command line turned into its
//!    spec by the command's own planner ([`crate::stats::plan_command`]) and run by
//!    [`tribunal::analysis::run`], the function the page runs.
//! 4. **Share**: the specs and their files become a session archive
//!    (`target/llmfao-study/session.json`), imported into the store under an id made from its
//!    content, so `/s/<id>` on `tribunal serve` with the same store shows every analysis.
//! 5. **Report** ([`report`], [`svg`]): the markdown and figures, with the command of each
//!    section. Nothing in it depends on the time it was made: the same seeds and judgments give
//!    the same bytes.

pub mod judged;
pub mod llmfao;
pub mod report;
pub mod svg;

use crate::build_info;
use crate::engine::local_judge;
use crate::judge::commands::judge_spec;
use crate::judge::record::RunRecord;
use crate::judge::{EngineArgs, RunSpec, WorkArgs};
use crate::store::{JudgmentKey, Store, StoreArgs};
use anyhow::{bail, Context};
use clap::Args;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use judged::Judged;
use llmfao::{Llmfao, SampleFiles};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use tribunal::analysis::{Inputs, Report, Spec};
use tribunal::io::provenance::content_hash;
use tribunal::judging::judge_config::JudgeConfig;
use tribunal::sessions::run_datasets::run_datasets;
use tribunal::sessions::session::{
    check_dataset, Analysis, ArchivedDataset, DatasetMeta, SessionArchive, ARCHIVE_FORMAT,
    ARCHIVE_VERSION,
};

#[derive(Args)]
pub struct StudyArgs {
    /// The LLMFAO files: `pairs.csv`, `crowd-comparisons.csv`, `gpt4-crowd-comparisons.csv`.
    #[arg(long, default_value = "tests/data/llmfao")]
    data: PathBuf,
    /// The judging budget in minutes: the sample is as large as this buys at
    /// `--seconds-per-judgment`.
    #[arg(long, default_value_t = 45.0)]
    minutes: f64,
    /// What one judgment costs, for the budget (SmolLM2 on this project's 2-core CPU, at most
    /// 96 new tokens: BENCHMARKS.md, "The LLMFAO study").
    #[arg(long, default_value_t = 6.2)]
    seconds_per_judgment: f64,
    /// Judge every pair: no budget.
    #[arg(long)]
    full: bool,
    /// Seed of the sample, the orders, the sampled runs and every resampling.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The report; its figures and kept judgments go in the folder of the same name.
    #[arg(long, default_value = "docs/llmfao-study.md")]
    report: PathBuf,
    /// The analyses' files and the session archive.
    #[arg(long, default_value = "target/llmfao-study")]
    work_dir: PathBuf,
    /// Judge again even where kept judgments match.
    #[arg(long)]
    rejudge: bool,
    /// Re-judge this many of the main run's judgments and compare.
    #[arg(long, default_value_t = 0)]
    verify: usize,
    #[command(flatten)]
    store: StoreArgs,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    work: WorkArgs,
}

/// The judge's prompt and decoding, shared by the study's runs.
const JUDGE: &str = r#"[prompt]
kind = "relative"
rubric = "Which response follows the instruction better: correct, complete and concise?"
"#;

/// One of the study's judge runs.
struct StudyRun {
    /// `main`, `orders` or `repeats`.
    name: &'static str,
    config_text: String,
    items: Vec<u8>,
}

/// What a run left: its record (of the process that judged it) and its judgments.
pub struct RunOutcome {
    pub name: &'static str,
    pub record: RunRecord,
    pub lines: Vec<String>,
}

impl StudyRun {
    fn config(&self) -> anyhow::Result<JudgeConfig> {
        toml::from_str(&self.config_text).map_err(|e| anyhow::anyhow!("study config: {e}"))
    }

    fn spec(&self, session: String) -> anyhow::Result<RunSpec> {
        RunSpec::new(
            &format!("study run `{}`", self.name),
            self.config()?,
            format!("{}.csv", self.name),
            self.items.clone(),
            session,
        )
    }

    fn session(&self) -> String {
        // A decoder of another revision judges in a session of its own.
        let revision = local_judge::REVISION.to_le_bytes();
        let digest = content_hash(&[self.config_text.as_bytes(), &self.items, &revision].concat());
        format!(
            "study-{}-{}",
            self.name,
            &digest["sha256:".len().."sha256:".len() + 16]
        )
    }
}

/// The judgments kept for a run: `DIR/judgments/NAME.jsonl.gz` and `NAME.run.json`.
struct Kept {
    lines: PathBuf,
    record: PathBuf,
}

impl Kept {
    fn of(dir: &Path, name: &str) -> Self {
        Self {
            lines: dir.join("judgments").join(format!("{name}.jsonl.gz")),
            record: dir.join("judgments").join(format!("{name}.run.json")),
        }
    }

    /// The kept record and judgments; `None` when there are none, or when the record is not
    /// one this version reads (an older run's: judged anew).
    fn read(&self) -> anyhow::Result<Option<(RunRecord, Vec<String>)>> {
        if !self.lines.is_file() || !self.record.is_file() {
            return Ok(None);
        }
        let record: RunRecord = match serde_json::from_str(&std::fs::read_to_string(&self.record)?)
        {
            Ok(record) => record,
            Err(error) => {
                eprintln!(
                        "tribunal study: {}: not a run record this version reads ({error}); judging anew",
                        self.record.display()
                    );
                return Ok(None);
            }
        };
        let mut text = String::new();
        GzDecoder::new(std::fs::File::open(&self.lines)?)
            .read_to_string(&mut text)
            .with_context(|| format!("{}", self.lines.display()))?;
        Ok(Some((record, text.lines().map(str::to_owned).collect())))
    }

    fn write(&self, record: &RunRecord, lines: &[String]) -> anyhow::Result<()> {
        if let Some(dir) = self.lines.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::best());
        for line in lines {
            gz.write_all(line.as_bytes())?;
            gz.write_all(b"\n")?;
        }
        std::fs::write(&self.lines, gz.finish()?)?;
        std::fs::write(&self.record, record.to_json()? + "\n")?;
        Ok(())
    }
}

/// Whether a kept run record was made by the same run: the judge's model file (`model`, its
/// hash) and decoder revision, items, prompt, decoding and design.
fn same_run(kept: &RunRecord, spec: &RunSpec, model: &Path) -> anyhow::Result<bool> {
    let config = &spec.config;
    let bytes = std::fs::read(model).with_context(|| {
        format!(
            "{}: the judge's model file (scripts/setup.sh installs it)",
            model.display()
        )
    })?;
    Ok(kept.judge_model.hash == Some(content_hash(&bytes))
        && kept.judge_model.revision == Some(local_judge::REVISION)
        && kept.items.hash == content_hash(&spec.bytes)
        && kept.prompt_hash == content_hash(serde_json::to_string(&config.prompt)?.as_bytes())
        && kept.decoding == config.decoding
        && kept.design == config.design)
}

/// Stores the kept `lines` under `spec`'s session (those of its plan; a judgment already
/// stored stays).
fn load_kept(store: &Store, spec: &RunSpec, lines: &[String]) -> anyhow::Result<usize> {
    let planned: std::collections::HashSet<JudgmentKey> =
        spec.planned.iter().map(|p| spec.key(p)).collect();
    /// The fields of a judgment line that make its store key.
    #[derive(serde::Deserialize)]
    struct Keyed {
        #[serde(default)]
        id: String,
        #[serde(default)]
        order: String,
        #[serde(default)]
        repeat: u32,
        #[serde(default)]
        variant: String,
    }
    let mut loaded = 0;
    for (k, line) in lines.iter().enumerate() {
        let j: Keyed =
            serde_json::from_str(line).with_context(|| format!("kept judgment {}", k + 1))?;
        let key = JudgmentKey {
            session: spec.session.clone(),
            item: j.id,
            order: j.order,
            repeat: j.repeat,
            variant: j.variant,
        };
        if planned.contains(&key) && store.put_judgment(&key, line)? {
            loaded += 1;
        }
    }
    Ok(loaded)
}

/// Judges `run` (or loads its kept judgments), keeping what a judging process made.
fn judge_run(
    args: &StudyArgs,
    store: &Store,
    dir: &Path,
    run: &StudyRun,
) -> anyhow::Result<RunOutcome> {
    let spec = run.spec(run.session())?;
    let kept = Kept::of(dir, run.name);
    let mut kept_record = None;
    if !args.rejudge {
        if let Some((record, lines)) = kept.read()? {
            let model = crate::engine::ModelPaths::under(&args.engine.models).smollm2;
            if same_run(&record, &spec, &model)? {
                let loaded = load_kept(store, &spec, &lines)?;
                eprintln!(
                    "tribunal study: run `{}`: the {} judgments kept in {} match this run ({loaded} of them new to the store)",
                    run.name,
                    lines.len(),
                    kept.lines.display()
                );
                kept_record = Some(record);
            } else {
                eprintln!(
                    "tribunal study: run `{}`: the kept judgments in {} are of another run (model file, decoder revision, items, prompt, decoding or design differ); judging anew",
                    run.name,
                    kept.lines.display()
                );
            }
        }
    }
    let (record, lines) = judge_spec(&spec, store, &args.engine, &args.work)?;
    if lines.len() != spec.total() {
        bail!(
            "run `{}`: {} of {} judgments stored",
            run.name,
            lines.len(),
            spec.total()
        );
    }
    let record = match kept_record {
        Some(kept_record) if record.judged_now == 0 => kept_record,
        _ => {
            kept.write(&record, &lines)?;
            record
        }
    };
    Ok(RunOutcome {
        name: run.name,
        record,
        lines,
    })
}

/// Re-judges `k` of the main run's judgments in a fresh session; prints how many verdicts
/// match and how far p_s moved.
fn verify(args: &StudyArgs, store: &Store, run: &StudyRun, main: &[Judged]) -> anyhow::Result<()> {
    let ids: Vec<usize> = tribunal::math::stratified_sample::stratified_sample(
        &vec![0; main.len()],
        args.verify,
        args.seed.wrapping_add(3),
    );
    let chosen: std::collections::HashSet<String> =
        ids.iter().map(|&i| main[i].id.clone()).collect();
    let (source, items) = (format!("{}.csv", run.name), subset(&run.items, &chosen)?);
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs();
    let spec = RunSpec::new(
        "study verification",
        run.config()?,
        source,
        items,
        format!("study-verify-{unix}"),
    )?;
    let (_, lines) = judge_spec(&spec, store, &args.engine, &args.work)?;
    let again = Judged::parse_all(&lines)?;
    let before: BTreeMap<(&str, &str), &Judged> = main
        .iter()
        .map(|j| ((j.id.as_str(), j.order.as_str()), j))
        .collect();
    let (mut same, mut compared, mut moved) = (0, 0, 0f64);
    for j in &again {
        if let Some(old) = before.get(&(j.id.as_str(), j.order.as_str())) {
            compared += 1;
            same += usize::from(old.winner == j.winner);
            for (label, p) in &j.label_probs {
                let q = old.label_probs.get(label).copied().unwrap_or(f64::NAN);
                moved = moved.max((p - q).abs());
            }
        }
    }
    eprintln!(
        "tribunal study: verify: {same} of {compared} re-judged verdicts match the kept ones; p_s moved at most {moved:.2e}"
    );
    Ok(())
}

/// The pairs a budget of `minutes` buys at `seconds` a judgment, each pair judged once, a
/// quarter of them in the other order too and an eighth twice more (n + 2⌈n/4⌉ + 2⌈n/8⌉
/// judgments), at most `total`; `None` for no budget (every pair).
///
/// # Errors
/// A budget that is not positive, or one that buys fewer than 40 pairs.
fn sample_size(minutes: Option<f64>, seconds: f64, total: usize) -> anyhow::Result<usize> {
    let Some(minutes) = minutes else {
        return Ok(total);
    };
    if !(minutes > 0.0 && seconds > 0.0 && minutes.is_finite() && seconds.is_finite()) {
        bail!("--minutes and --seconds-per-judgment: expected positive numbers, found {minutes} and {seconds}");
    }
    let judgments = (minutes * 60.0 / seconds).floor();
    let cost = |n: usize| n + 2 * n.div_ceil(4) + 2 * n.div_ceil(8);
    let mut n = ((judgments / 1.75) as usize + 1).min(total);
    while n > 0 && cost(n) as f64 > judgments {
        n -= 1;
    }
    if n < 40 {
        bail!(
            "--minutes {minutes}: buys {judgments} judgments at {seconds} s each, fewer than a study of 40 pairs needs ({})",
            cost(40)
        );
    }
    Ok(n)
}

/// The items file's rows whose ids are `ids`.
fn subset(items: &[u8], ids: &std::collections::HashSet<String>) -> anyhow::Result<Vec<u8>> {
    let mut reader = csv::Reader::from_reader(items);
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(reader.headers()?)?;
    for record in reader.records() {
        let record = record?;
        if ids.contains(record.get(0).unwrap_or_default()) {
            w.write_record(&record)?;
        }
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

/// One section's analysis: its id, title and `tribunal stats` command line.
pub struct Section {
    pub id: &'static str,
    pub title: &'static str,
    pub command: Vec<String>,
    pub spec: Spec,
    pub inputs: Inputs,
    pub report: Report,
}

impl Section {
    fn new(id: &'static str, title: &'static str, command: Vec<String>) -> anyhow::Result<Self> {
        let (spec, inputs) = crate::stats::plan_command(&command)?;
        eprintln!("tribunal study: {id}: tribunal stats {}", command.join(" "));
        let report = tribunal::analysis::run(&spec, &inputs)?;
        Ok(Self {
            id,
            title,
            command,
            spec,
            inputs,
            report,
        })
    }
}

/// The session archive of the sections, their files and the runs' records.
fn archive(sections: &[Section], runs: &[RunOutcome]) -> anyhow::Result<SessionArchive> {
    let mut datasets: Vec<ArchivedDataset> = Vec::new();
    for section in sections {
        for role in section.inputs.roles() {
            let Some(input) = section.inputs.optional(role) else {
                continue;
            };
            let kind = section
                .spec
                .analysis
                .roles()
                .kind_of(role)
                .with_context(|| {
                    format!(
                        "the role `{role}` is not read by {}",
                        section.spec.analysis.name()
                    )
                })?;
            let hash = content_hash(&input.bytes);
            match datasets.iter().find(|d| d.meta.hash == hash) {
                Some(d) if d.meta.kind == kind => continue,
                Some(d) => bail!(
                    "{}: read as {} in one analysis and {} in another; a session holds one kind per file",
                    input.name,
                    d.meta.kind.as_str(),
                    kind.as_str()
                ),
                None => {}
            }
            let meta: DatasetMeta = check_dataset(kind, &input.name, &input.bytes)?.meta;
            datasets.push(ArchivedDataset::new(meta, &input.bytes));
        }
    }
    let created_at = runs
        .iter()
        .map(|r| r.record.finished_unix)
        .fold(None, |latest: Option<f64>, t| {
            Some(latest.map_or(t, |l| l.max(t)))
        })
        .map_or_else(|| "1970-01-01T00:00:00Z".to_owned(), |t| utc(t as u64));
    Ok(SessionArchive {
        format: ARCHIVE_FORMAT.to_owned(),
        version: ARCHIVE_VERSION,
        created_with: Some(build_info::tool_version()),
        title: "LLMFAO study: SmolLM2-135M as a judge, against the crowd and GPT-4".to_owned(),
        created_at,
        datasets,
        runs: runs
            .iter()
            .map(|r| r.record.to_value())
            .collect::<serde_json::Result<_>>()?,
        analyses: sections
            .iter()
            .map(|s| Analysis {
                id: s.id.to_owned(),
                title: s.title.to_owned(),
                spec: s.spec.clone(),
                created_with: Some(build_info::tool_version()),
            })
            .collect(),
    })
}

/// `unix` seconds as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian, UTC).
fn utc(unix: u64) -> String {
    let days = (unix / 86_400) as i64;
    let rest = unix % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Writes `bytes` to `dir/name` and returns the path as a command-line argument.
fn put(dir: &Path, name: &str, bytes: &[u8]) -> anyhow::Result<String> {
    let path = dir.join(name);
    std::fs::write(&path, bytes).with_context(|| format!("{}", path.display()))?;
    Ok(path.display().to_string())
}

fn args_of(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| (*s).to_owned()).collect()
}

/// Runs the study.
pub fn study(args: StudyArgs) -> anyhow::Result<()> {
    let data = Llmfao::read(&args.data)?;
    let budget = (!args.full).then_some(args.minutes);
    let n = sample_size(budget, args.seconds_per_judgment, data.pairs.len())?;
    let chosen = data.sample(n, args.seed);
    let files = SampleFiles::new(&data, &chosen)?;
    // The subsets: the sample in a seeded order (by the hash of seed and id), its first
    // quarter judged in both orders, its first eighth twice with sampling.
    let mut permuted: Vec<(String, String)> = chosen
        .iter()
        .map(|&i| {
            let id = data.pairs[i].id.clone();
            (content_hash(format!("{}:{id}", args.seed).as_bytes()), id)
        })
        .collect();
    permuted.sort();
    let first = |k: usize| -> std::collections::HashSet<String> {
        permuted[..k].iter().map(|(_, id)| id.clone()).collect()
    };
    let (both, twice) = (first(n.div_ceil(4)), first(n.div_ceil(8)));
    let seed = args.seed;
    let runs = [
        StudyRun {
            name: "main",
            config_text: format!(
                "embed_rationale = true\n{JUDGE}[decoding]\nmax_tokens = 96\n[design]\norders = \"random\"\nseed = {seed}\n"
            ),
            items: files.items.clone(),
        },
        StudyRun {
            name: "orders",
            config_text: format!(
                "{JUDGE}[decoding]\nmax_tokens = 96\n[design]\norders = \"both\"\nseed = {seed}\n"
            ),
            items: subset(&files.items, &both)?,
        },
        StudyRun {
            name: "repeats",
            config_text: format!(
                "{JUDGE}[decoding]\nmax_tokens = 96\ntemperature = 0.7\nseed = {seed}\n[design]\nrepeats = 2\nseed = {seed}\n"
            ),
            items: subset(&files.items, &twice)?,
        },
    ];
    let total: usize = runs
        .iter()
        .map(|r| r.spec(r.session()).map(|s| s.total()))
        .sum::<anyhow::Result<usize>>()?;
    eprintln!(
        "tribunal study: {n} of {} pairs (seed {seed}), {total} judgments",
        data.pairs.len()
    );
    let folder = args.report.with_extension("");
    let store = args.store.open()?;
    let mut outcomes = Vec::new();
    for run in &runs {
        outcomes.push(judge_run(&args, &store, &folder, run)?);
    }
    let main = Judged::parse_all(&outcomes[0].lines)?;
    if args.verify > 0 {
        verify(&args, &store, &runs[0], &main)?;
    }
    // The analyses' files.
    let work = &args.work_dir;
    std::fs::create_dir_all(work).with_context(|| format!("{}", work.display()))?;
    let made = run_datasets(&outcomes[0].lines, "smollm2.csv", &files.items)?;
    let made_file = |suffix: &str| -> anyhow::Result<String> {
        let d = made
            .iter()
            .find(|d| d.name.ends_with(suffix))
            .with_context(|| format!("the main run left no `{suffix}` file"))?;
        put(work, &d.name, &d.bytes)
    };
    let (scored, scored_pairs) = judged::scored_battles(&data, &main)?;
    let crowd_all = args
        .data
        .join("crowd-comparisons.csv")
        .display()
        .to_string();
    let gpt4_all = args
        .data
        .join("gpt4-crowd-comparisons.csv")
        .display()
        .to_string();
    let crowd = put(work, "crowd-sample.csv", &files.crowd_battles)?;
    let gpt4 = put(work, "gpt4-sample.csv", &files.gpt4_battles)?;
    let crowd_ratings = put(work, "crowd.csv", &files.crowd_ratings)?;
    let gpt4_ratings = put(work, "gpt4.csv", &files.gpt4_ratings)?;
    let smollm2_ratings = put(work, "smollm2.csv", &judged::verdict_ratings(&main)?)?;
    let scored = put(work, "smollm2-scored-battles.csv", &scored)?;
    let battles = made_file("-judge-battles.csv")?;
    let jsonl = made_file(".jsonl")?;
    let train = made_file("-calibration-train.csv")?;
    let test = made_file("-calibration-test.csv")?;
    let pairs = put(work, "pairs-sample.csv", &files.pairs)?;
    let orders = put(
        work,
        "smollm2-orders.csv",
        &judged::position_ratings(&Judged::parse_all(&outcomes[1].lines)?)?,
    )?;
    let repeats = put(
        work,
        "smollm2-repeats.csv",
        &judged::aa_ratings(&data, &Judged::parse_all(&outcomes[2].lines)?)?,
    )?;
    let s = seed.to_string();
    let n_train = made
        .iter()
        .find(|d| d.name.ends_with("-calibration-train.csv"))
        .map_or(0, |d| {
            d.bytes
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                .saturating_sub(1)
        });
    let sizes: Vec<String> = [25, 50, 100, 200, 500]
        .iter()
        .filter(|&&k| k < n_train)
        .map(ToString::to_string)
        .collect();
    let mut calibrate = args_of(&[
        "calibration",
        "--head",
        "btl",
        "--train",
        &train,
        "--test",
        &test,
        "--seed",
        &s,
    ]);
    if !sizes.is_empty() {
        calibrate.extend(args_of(&[
            "--train-sizes",
            &sizes.join(","),
            "--repeats",
            "5",
        ]));
    }
    // The labelled-battles files of PPI and the judge value gauge: a judge's verdicts with the
    // crowd's mean vote kept as gold on a seeded share of the pairs (by the hash of seed and id).
    let gold = |ids: Vec<&String>, share: usize| -> std::collections::HashSet<String> {
        let mut ranked: Vec<(String, &String)> = ids
            .into_iter()
            .map(|id| (content_hash(format!("{seed}:gold:{id}").as_bytes()), id))
            .collect();
        ranked.sort();
        let keep = ranked.len().div_ceil(share);
        ranked[..keep].iter().map(|(_, id)| (*id).clone()).collect()
    };
    let smol_verdicts = judged::first_verdicts(&main);
    let gpt4_verdicts: BTreeMap<String, &str> = data
        .gpt4
        .iter()
        .map(|(id, v)| (id.clone(), v.as_str()))
        .collect();
    let gpt4_on_sample: BTreeMap<String, &str> = gpt4_verdicts
        .iter()
        .filter(|(id, _)| smol_verdicts.contains_key(*id))
        .map(|(id, v)| (id.clone(), *v))
        .collect();
    let half_all = gold(gpt4_verdicts.keys().collect(), 2);
    let half = gold(smol_verdicts.keys().collect(), 2);
    let gpt4_ppi = put(
        work,
        "gpt4-ppi-battles.csv",
        &judged::labelled_battles(&data, &gpt4_verdicts, &half_all)?,
    )?;
    let smol_ppi = put(
        work,
        "smollm2-ppi-battles.csv",
        &judged::labelled_battles(&data, &smol_verdicts, &half)?,
    )?;
    let gpt4_sample_ppi = put(
        work,
        "gpt4-sample-ppi-battles.csv",
        &judged::labelled_battles(&data, &gpt4_on_sample, &half)?,
    )?;
    let pairs_all = args.data.join("pairs.csv").display().to_string();
    let sections = vec![
        Section::new("crowd-leaderboard", "The crowd's leaderboard (all 2,139 pairs, 8,931 votes)",
            args_of(&["leaderboard", "--input", &crowd_all, "--bootstrap", "200", "--seed", &s]))?,
        Section::new("gpt4-leaderboard", "GPT-4's leaderboard (all 2,139 pairs)",
            args_of(&["leaderboard", "--input", &gpt4_all, "--bootstrap", "200", "--seed", &s]))?,
        Section::new("smollm2-leaderboard", "SmolLM2-135M's leaderboard (the sample)",
            args_of(&["leaderboard", "--input", &battles, "--bootstrap", "200", "--seed", &s]))?,
        Section::new("smollm2-study", "SmolLM2-135M against the crowd: held-out hard, smoothed and soft Elo, conformal intervals",
            args_of(&["judge-study", "--input", &scored, "--splits", "100", "--seed", &s]))?,
        Section::new("gpt4-study", "GPT-4 against the crowd on the same pairs",
            args_of(&["judge-study", "--human", &crowd, "--judge", &gpt4, "--key", "id", "--splits", "100", "--seed", &s]))?,
        Section::new("calibration", "A BTL head on SmolLM2's rationale embeddings against its p_s", calibrate)?,
        Section::new("agreement", "Agreement: the crowd's α, and GPT-4's and SmolLM2's κ with the crowd's majority",
            args_of(&["agreement", "--input", &crowd_ratings, "--item", "id", "--rater", "worker", "--score", "winner", "--scale", "nominal",
                "--judge", &gpt4_ratings, "--judge", &smollm2_ratings, "--bootstrap", "200", "--seed", &s]))?,
        Section::new("position", "SmolLM2's position bias (both orders)",
            args_of(&["position", "--input", &orders, "--bootstrap", "200", "--seed", &s]))?,
        Section::new("aa", "A/A: two sampled runs of SmolLM2",
            args_of(&["aa", "--input", &repeats, "--scale", "nominal", "--runs", "run1,run2", "--gold", "crowd"]))?,
        Section::new("programs", "Programs and the label model against the crowd, and routing to SmolLM2",
            args_of(&["programs", "--pairs", &pairs, "--llm", &jsonl, "--seed", &s]))?,
        Section::new("gpt4-ppi", "Prediction-powered leaderboard: GPT-4's verdicts on every pair, the crowd's on half",
            args_of(&["ppi", "--input", &gpt4_ppi, "--seed", &s]))?,
        Section::new("smollm2-ppi", "Prediction-powered win rates: SmolLM2's verdicts on the sample, the crowd's on half of it",
            args_of(&["ppi", "--input", &smol_ppi, "--seed", &s]))?,
        Section::new("gpt4-value", "What GPT-4 is worth: the crowd's half as the pilot",
            args_of(&["judge-value", "--input", &gpt4_ppi]))?,
        Section::new("gpt4-sample-value", "What GPT-4 is worth on SmolLM2's sample and pilot",
            args_of(&["judge-value", "--input", &gpt4_sample_ppi]))?,
        Section::new("smollm2-value", "What SmolLM2-135M is worth: the crowd's half of the sample as the pilot",
            args_of(&["judge-value", "--input", &smol_ppi]))?,
        Section::new("crowd-style", "The crowd's leaderboard with the answers' length and markdown held fixed",
            args_of(&["style", "--input", &crowd_all, "--answers", &pairs_all]))?,
        Section::new("gpt4-style", "GPT-4's leaderboard with the answers' length and markdown held fixed",
            args_of(&["style", "--input", &gpt4_all, "--answers", &pairs_all]))?,
        Section::new("self-preference", "Does GPT-4 favour the GPT family beyond the crowd's ratings of it?",
            args_of(&["self-preference", "--human", &crowd_all, "--judge", &gpt4_all, "--key", "id",
                "--family", "GPT 4,GPT 3.5 Turbo,GPT 3.5 Turbo (16k)"]))?,
    ];
    let reports = work.join("reports");
    std::fs::create_dir_all(&reports)?;
    for section in &sections {
        std::fs::write(
            reports.join(format!("{}.json", section.id)),
            serde_json::to_string_pretty(&serde_json::to_value(&section.report)?)? + "\n",
        )?;
    }
    let archive = archive(&sections, &outcomes)?;
    let archive_json = serde_json::to_string_pretty(&archive)?;
    std::fs::write(work.join("session.json"), &archive_json)?;
    // The id is the content's, whichever build made it.
    let mut content = archive.clone();
    content.created_with = None;
    for analysis in &mut content.analyses {
        analysis.created_with = None;
    }
    let digest = content_hash(serde_json::to_string(&content)?.as_bytes());
    let id = digest["sha256:".len().."sha256:".len() + 32].to_owned();
    if store.session(&id)?.is_none() {
        let mut token = [0u8; 32];
        getrandom::fill(&mut token)
            .map_err(|e| anyhow::anyhow!("no randomness from the OS: {e}"))?;
        let token: String = token.iter().map(|b| format!("{b:02x}")).collect();
        store.import(&id, &content_hash(token.as_bytes()), &archive)?;
        eprintln!("tribunal study: session {id} stored (its owner token, to delete it: {token})");
    }
    let study = report::Study {
        pairs_total: data.pairs.len(),
        votes_total: data.votes.len(),
        n,
        seed,
        scored_pairs,
        minutes: budget,
        seconds_per_judgment: args.seconds_per_judgment,
        runs: &outcomes,
        sections: &sections,
        session: &id,
        report: &args.report,
    };
    report::write(&study, &folder)?;
    eprintln!(
        "tribunal study: {} and its figures written; open http://127.0.0.1:8080/s/{id} with `tribunal serve` on this store",
        args.report.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_795_000_000), "2026-11-18T11:06:40Z");
    }

    #[test]
    fn the_budget_buys_the_largest_sample_that_fits() {
        // 30 minutes at 3.7 s: 486 judgments; 276 pairs cost 276 + 2·69 + 2·35 = 484, and
        // 277 would cost 277 + 2·70 + 2·35 = 487.
        assert_eq!(sample_size(Some(30.0), 3.7, 2139).unwrap(), 276);
        assert_eq!(sample_size(None, 3.7, 2139).unwrap(), 2139);
        assert_eq!(sample_size(Some(1e6), 3.7, 2139).unwrap(), 2139);
        // 40 pairs cost 40 + 20 + 10 = 70 judgments.
        assert_eq!(
            sample_size(Some(70.0 * 3.7 / 60.0 + 1e-9), 3.7, 2139).unwrap(),
            40
        );
        let few = sample_size(Some(69.0 * 3.7 / 60.0), 3.7, 2139).unwrap_err();
        assert!(
            few.to_string()
                .contains("fewer than a study of 40 pairs needs (70)"),
            "{few}"
        );
        assert!(sample_size(Some(0.0), 3.7, 2139).is_err());
        assert!(sample_size(Some(10.0), f64::NAN, 2139).is_err());
    }
}
