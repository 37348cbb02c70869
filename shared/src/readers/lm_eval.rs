//! lm-evaluation-harness's per-sample logs (`samples_<task>_<timestamp>.jsonl`, written by
//! `lm_eval --log_samples`): one record per document and filter, with the document's metrics as
//! top-level fields named in its `metrics` list (`"acc": 1.0`, `"exact_match": 0.0`).
//!
//! As scores (what `compare` reads; one file per model and task, joined): `item` the task and
//! `doc_id` (`gsm8k/17`), `system` the model — `ConvertParams::system` when given, else the
//! folder the harness wrote the file into (`<output_path>/<model>/samples_…`), else the file's
//! name — `criterion` the metric (`metric,filter` for a filter other than `none`, as the
//! harness's results name it), `score` its value, and `task` (from the file's name) as a slice
//! column. A metric whose per-sample value is not a number or a boolean (BLEU's pairs, which
//! the harness aggregates over the corpus) is left out, counted in a warning.
//!
//! Errors: [`Error::Input`] at the record for a missing `doc_id` or a JSON syntax error;
//! [`Error::Insufficient`] for a file without records or without any per-sample score.

use super::json_records::{decode, field_error, id_text, Record};
use super::CsvOut;
use crate::io::error::{Error, Result};
use serde::Deserialize;
use serde_json::{Map, Value};

/// Fields of a sample record that are not metrics.
const BOOKKEEPING: [&str; 11] = [
    "doc_id",
    "doc",
    "target",
    "arguments",
    "resps",
    "filtered_resps",
    "filter",
    "metrics",
    "doc_hash",
    "prompt_hash",
    "target_hash",
];

#[derive(Deserialize)]
struct Sample {
    doc_id: Value,
    #[serde(default)]
    filter: Option<String>,
    #[serde(default)]
    metrics: Option<Vec<String>>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

/// The task named by a file `samples_<task>_<timestamp>.jsonl` (the name without its folder,
/// `samples_` and the timestamp), or the file's stem.
pub fn task_of(source: &str) -> String {
    let file = source.rsplit(['/', '\\']).next().unwrap_or(source);
    let stem = file
        .strip_suffix(".jsonl")
        .or_else(|| file.strip_suffix(".json"))
        .unwrap_or(file);
    let stem = stem.strip_prefix("samples_").unwrap_or(stem);
    match stem.rsplit_once('_') {
        Some((task, stamp)) if stamp.starts_with(|c: char| c.is_ascii_digit()) => task.to_owned(),
        _ => stem.to_owned(),
    }
}

/// The model a file belongs to: the folder holding it, else the file's stem.
pub fn system_of(source: &str) -> String {
    let mut parts = source.rsplit(['/', '\\']);
    let file = parts.next().unwrap_or(source);
    match parts.next().filter(|dir| !dir.is_empty() && *dir != ".") {
        Some(dir) => dir.to_owned(),
        None => file.split('.').next().unwrap_or(file).to_owned(),
    }
}

/// Reads the samples into `out` as scores; returns the warnings.
pub(super) fn scores(
    source: &str,
    records: &[Record],
    system: Option<&str>,
    out: &mut CsvOut,
) -> Result<Vec<String>> {
    let system = system.map_or_else(|| system_of(source), str::to_owned);
    let task = task_of(source);
    out.header(&["item", "system", "criterion", "score", "task"]);
    let mut not_scalar = 0;
    for record in records {
        let sample: Sample = decode(source, record)?;
        let doc = id_text(&sample.doc_id);
        if doc.trim().is_empty() {
            return Err(field_error(
                source,
                record,
                "doc_id",
                "expected a document id, found an empty one".to_owned(),
            ));
        }
        let names: Vec<String> = match sample.metrics {
            Some(names) => names,
            None => sample
                .rest
                .keys()
                .filter(|k| !BOOKKEEPING.contains(&k.as_str()))
                .cloned()
                .collect(),
        };
        let filter = sample.filter.filter(|f| f != "none");
        for name in names {
            let score = match sample.rest.get(&name) {
                Some(Value::Number(n)) => n.as_f64().filter(|v| v.is_finite()),
                Some(Value::Bool(b)) => Some(f64::from(u8::from(*b))),
                _ => None,
            };
            let Some(score) = score else {
                not_scalar += 1;
                continue;
            };
            let criterion = match &filter {
                Some(filter) => format!("{name},{filter}"),
                None => name,
            };
            out.row(vec![
                format!("{task}/{doc}"),
                system.clone(),
                criterion,
                score.to_string(),
                task.clone(),
            ]);
        }
    }
    if out.is_empty() {
        return Err(Error::Insufficient(format!(
            "{source}: no per-sample score (expected numeric or boolean metrics in each record, \
             as `lm_eval --log_samples` writes them)"
        )));
    }
    let mut warnings = Vec::new();
    if not_scalar > 0 {
        warnings.push(format!(
            "{not_scalar} metric value(s) are not numbers (corpus-level metrics such as BLEU) and \
             are left out"
        ));
    }
    Ok(warnings)
}
