//! The LLMFAO files the study reads and the files it derives from them for a sample of pairs.
//!
//! Reads, under the data directory (`tests/data/llmfao`, CC BY 4.0): `pairs.csv`
//! (`id,instruction,response,response_b,label`: the left and right answers and the crowd's
//! plurality `a`/`b`/`tie`), `crowd-comparisons.csv` (one row per crowd vote:
//! `id,prompt,model_x,model_y,worker,winner,left,right`) and `gpt4-crowd-comparisons.csv` (GPT-4's
//! verdict per pair, the same columns without `worker`). Every file names a pair by `id`; the
//! left answer is the pairs file's `response`.
//!
//! Errors: the files' located CSV errors, a pair without crowd votes, and a vote or verdict on
//! a pair the pairs file lacks.

use crate::input_file::read_input;
use anyhow::{bail, Context};
use std::collections::BTreeMap;
use std::path::Path;
use tribunal::math::stratified_sample::stratified_sample;

/// One LLMFAO pair.
#[derive(Debug, Clone)]
pub struct Pair {
    pub id: String,
    pub instruction: String,
    pub left_answer: String,
    pub right_answer: String,
    /// The crowd's plurality: `a` (left), `b` (right) or `tie`.
    pub crowd_label: String,
    pub prompt: String,
    pub left: String,
    pub right: String,
}

/// One crowd vote: its pair, the worker and `left`/`right`/`tie`.
#[derive(Debug, Clone)]
pub struct Vote {
    pub id: String,
    pub worker: String,
    pub winner: String,
}

/// The LLMFAO data set as the study uses it.
pub struct Llmfao {
    /// In the pairs file's order.
    pub pairs: Vec<Pair>,
    /// In the crowd file's order.
    pub votes: Vec<Vote>,
    /// GPT-4's verdict per pair id: `left`, `right` or `tie`.
    pub gpt4: BTreeMap<String, String>,
    /// The three files' bytes, by name: the study's inputs.
    pub crowd_file: (String, Vec<u8>),
    pub gpt4_file: (String, Vec<u8>),
}

/// A CSV's rows as header → value maps.
type Records = Vec<BTreeMap<String, String>>;

/// The source name, the rows and the bytes of the CSV at `path`.
fn records(path: &Path) -> anyhow::Result<(String, Records, Vec<u8>)> {
    let (source, bytes) = read_input(path)?;
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    let header = reader
        .headers()
        .with_context(|| format!("{source}, line 1"))?
        .clone();
    let mut rows = Vec::new();
    for (k, record) in reader.records().enumerate() {
        let record = record.with_context(|| format!("{source}, record {}", k + 1))?;
        rows.push(
            header
                .iter()
                .zip(record.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect(),
        );
    }
    Ok((source, rows, bytes))
}

/// `row[column]`, or an error naming the file, the record and the column.
fn field<'a>(
    source: &str,
    k: usize,
    row: &'a BTreeMap<String, String>,
    column: &str,
) -> anyhow::Result<&'a str> {
    row.get(column).map(String::as_str).with_context(|| {
        format!(
            "{source}, record {}: no `{column}` column (expected the LLMFAO layout)",
            k + 1
        )
    })
}

impl Llmfao {
    /// Reads the three files under `dir`.
    pub fn read(dir: &Path) -> anyhow::Result<Self> {
        let (crowd_source, crowd_rows, crowd_bytes) = records(&dir.join("crowd-comparisons.csv"))?;
        let (gpt4_source, gpt4_rows, gpt4_bytes) =
            records(&dir.join("gpt4-crowd-comparisons.csv"))?;
        let (pairs_source, pair_rows, _) = records(&dir.join("pairs.csv"))?;
        // Each pair's prompt and models, from the crowd's rows.
        let mut shown: BTreeMap<String, (String, String, String)> = BTreeMap::new();
        let mut votes = Vec::with_capacity(crowd_rows.len());
        for (k, row) in crowd_rows.iter().enumerate() {
            let at = |c: &str| field(&crowd_source, k, row, c);
            let id = at("id")?.to_owned();
            shown.entry(id.clone()).or_insert((
                at("prompt")?.to_owned(),
                at("left")?.to_owned(),
                at("right")?.to_owned(),
            ));
            votes.push(Vote {
                id,
                worker: at("worker")?.to_owned(),
                winner: at("winner")?.to_owned(),
            });
        }
        let mut pairs = Vec::with_capacity(pair_rows.len());
        for (k, row) in pair_rows.iter().enumerate() {
            let at = |c: &str| field(&pairs_source, k, row, c);
            let id = at("id")?.to_owned();
            let Some((prompt, left, right)) = shown.get(&id).cloned() else {
                bail!(
                    "{pairs_source}, record {}: pair `{id}` has no crowd vote",
                    k + 1
                );
            };
            pairs.push(Pair {
                instruction: at("instruction")?.to_owned(),
                left_answer: at("response")?.to_owned(),
                right_answer: at("response_b")?.to_owned(),
                crowd_label: at("label")?.to_owned(),
                id,
                prompt,
                left,
                right,
            });
        }
        let known: std::collections::HashSet<&str> = pairs.iter().map(|p| p.id.as_str()).collect();
        if let Some(v) = votes.iter().find(|v| !known.contains(v.id.as_str())) {
            bail!(
                "{crowd_source}: a vote on pair `{}`, which {pairs_source} lacks",
                v.id
            );
        }
        let mut gpt4 = BTreeMap::new();
        for (k, row) in gpt4_rows.iter().enumerate() {
            let at = |c: &str| field(&gpt4_source, k, row, c);
            gpt4.insert(at("id")?.to_owned(), at("winner")?.to_owned());
        }
        Ok(Self {
            pairs,
            votes,
            gpt4,
            crowd_file: (crowd_source, crowd_bytes),
            gpt4_file: (gpt4_source, gpt4_bytes),
        })
    }

    /// `n` pairs (indices into [`Llmfao::pairs`], increasing) stratified by instruction and
    /// crowd verdict, drawn with `seed`.
    pub fn sample(&self, n: usize, seed: u64) -> Vec<usize> {
        let mut strata: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        let labels: Vec<usize> = self
            .pairs
            .iter()
            .map(|p| {
                let next = strata.len();
                *strata
                    .entry((p.prompt.as_str(), p.crowd_label.as_str()))
                    .or_insert(next)
            })
            .collect();
        stratified_sample(&labels, n, seed)
    }

    /// The crowd's preference for each pair's left answer in [0, 1] (a tie vote counts ½).
    pub fn crowd_share(&self) -> BTreeMap<&str, f64> {
        let mut tally: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
        for v in &self.votes {
            let y = match v.winner.as_str() {
                "left" => 1.0,
                "right" => 0.0,
                _ => 0.5,
            };
            let t = tally.entry(v.id.as_str()).or_default();
            t.0 += y;
            t.1 += 1.0;
        }
        tally.into_iter().map(|(id, (s, n))| (id, s / n)).collect()
    }
}

/// Writes `rows` under `header` as CSV bytes.
pub fn csv_bytes<R: AsRef<[String]>>(header: &[&str], rows: &[R]) -> anyhow::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header)?;
    for row in rows {
        w.write_record(row.as_ref())?;
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

/// The study's files of the pairs `chosen` (indices into `data.pairs`).
pub struct SampleFiles {
    /// The judge's items: `id,instruction,response,response_b,model,model_b,human`.
    pub items: Vec<u8>,
    /// The pairs for the programs report: `id,instruction,response,response_b,label`.
    pub pairs: Vec<u8>,
    /// The crowd's votes on them, in LLMFAO's layout (a human battles file).
    pub crowd_battles: Vec<u8>,
    /// GPT-4's verdicts on them, in LLMFAO's layout (a judge battles file).
    pub gpt4_battles: Vec<u8>,
    /// The crowd's votes as ratings: `id,worker,winner`.
    pub crowd_ratings: Vec<u8>,
    /// GPT-4's verdicts as ratings: `id,winner`.
    pub gpt4_ratings: Vec<u8>,
}

impl SampleFiles {
    pub fn new(data: &Llmfao, chosen: &[usize]) -> anyhow::Result<Self> {
        let share = data.crowd_share();
        let picked: Vec<&Pair> = chosen.iter().map(|&i| &data.pairs[i]).collect();
        let ids: std::collections::HashSet<&str> = picked.iter().map(|p| p.id.as_str()).collect();
        // The pair's texts, which the items and the pairs files both start with.
        let texts = |p: &Pair| {
            vec![
                p.id.clone(),
                p.instruction.clone(),
                p.left_answer.clone(),
                p.right_answer.clone(),
            ]
        };
        let mut items = Vec::with_capacity(picked.len());
        let mut pairs = Vec::with_capacity(picked.len());
        for p in &picked {
            let human = share
                .get(p.id.as_str())
                .map_or_else(String::new, ToString::to_string);
            items.push([texts(p), vec![p.left.clone(), p.right.clone(), human]].concat());
            pairs.push([texts(p), vec![p.crowd_label.clone()]].concat());
        }
        let by_id: BTreeMap<&str, &Pair> = picked.iter().map(|p| (p.id.as_str(), *p)).collect();
        let mut crowd_battles = Vec::new();
        let mut crowd_ratings = Vec::new();
        for v in data.votes.iter().filter(|v| ids.contains(v.id.as_str())) {
            let p = by_id[v.id.as_str()];
            crowd_battles.push([
                v.id.clone(),
                p.prompt.clone(),
                v.worker.clone(),
                v.winner.clone(),
                p.left.clone(),
                p.right.clone(),
            ]);
            crowd_ratings.push([v.id.clone(), v.worker.clone(), v.winner.clone()]);
        }
        let mut gpt4_battles = Vec::new();
        let mut gpt4_ratings = Vec::new();
        for p in &picked {
            if let Some(w) = data.gpt4.get(&p.id) {
                gpt4_battles.push([
                    p.id.clone(),
                    p.prompt.clone(),
                    w.clone(),
                    p.left.clone(),
                    p.right.clone(),
                ]);
                gpt4_ratings.push([p.id.clone(), w.clone()]);
            }
        }
        Ok(Self {
            items: csv_bytes(
                &[
                    "id",
                    "instruction",
                    "response",
                    "response_b",
                    "model",
                    "model_b",
                    "human",
                ],
                &items,
            )?,
            pairs: csv_bytes(
                &["id", "instruction", "response", "response_b", "label"],
                &pairs,
            )?,
            crowd_battles: csv_bytes(
                &["id", "prompt", "worker", "winner", "left", "right"],
                &crowd_battles,
            )?,
            gpt4_battles: csv_bytes(&["id", "prompt", "winner", "left", "right"], &gpt4_battles)?,
            crowd_ratings: csv_bytes(&["id", "worker", "winner"], &crowd_ratings)?,
            gpt4_ratings: csv_bytes(&["id", "winner"], &gpt4_ratings)?,
        })
    }
}
