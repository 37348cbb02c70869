//! Inspect eval logs (the `.json` log format): each sample's score by each of the eval's
//! scorers, as ratings — `item` the sample id, `rater` the scorer, `score` the value, with the
//! evaluated `model` and the `task` as slice columns, `variant` the epoch when the eval ran more
//! than one, and `criterion` the key of a dict-valued score (one row per key).
//!
//! As scores (what `compare` reads; one log per evaluated model, joined): `item` the sample id,
//! `system` the model, `criterion` the scorer (`scorer.key` for a dict-valued score), `score`,
//! `epoch`, `task`, and each scalar field of the samples' `metadata` as a slice column
//! (`metadata.<key>` where the key is one of those names).
//!
//! Values are read as Inspect's `value_to_float` reads them: `C` (correct) 1, `I` (incorrect)
//! 0, `P` (partial) ½, `N` (no answer) 0, `yes`/`true` 1, `no`/`false` 0, numbers and booleans
//! as they are. A null value leaves its row out, counted in a warning.
//!
//! Errors: [`Error::Input`] at the sample for a value of none of those kinds (named by its
//! scorer), a missing field, or a JSON syntax error; [`Error::Insufficient`] for a log without
//! samples (written with `--no-log-samples`).

use super::json_records::{decode, field_error, id_text, located, whole, Record};
use super::{field_cells, field_names, scalar_fields, CsvOut};
use crate::io::error::{Error, Result};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Deserialize)]
struct Log<'a> {
    eval: EvalSpec,
    #[serde(borrow, default)]
    samples: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
struct EvalSpec {
    task: String,
    model: String,
}

#[derive(Deserialize)]
struct Sample {
    id: Value,
    #[serde(default = "first_epoch")]
    epoch: u64,
    #[serde(default)]
    scores: Option<BTreeMap<String, Score>>,
    #[serde(default)]
    metadata: Option<serde_json::Map<String, Value>>,
}

fn first_epoch() -> u64 {
    1
}

#[derive(Deserialize)]
struct Score {
    value: Value,
}

/// A scalar score as Inspect's `value_to_float` reads it.
fn scalar(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64().filter(|v| v.is_finite()),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::String(s) => match s.trim() {
            "C" => Some(1.0),
            "I" | "N" => Some(0.0),
            "P" => Some(0.5),
            t if t.eq_ignore_ascii_case("yes") || t.eq_ignore_ascii_case("true") => Some(1.0),
            t if t.eq_ignore_ascii_case("no") || t.eq_ignore_ascii_case("false") => Some(0.0),
            t => t.parse::<f64>().ok().filter(|v| v.is_finite()),
        },
        _ => None,
    }
}

struct Row {
    item: String,
    rater: String,
    score: f64,
    criterion: Option<String>,
    epoch: u64,
    /// The sample's scalar metadata, as text.
    metadata: Vec<(String, String)>,
}

/// A log's scores, row by row.
struct Scored {
    eval: EvalSpec,
    rows: Vec<Row>,
    samples: usize,
    warnings: Vec<String>,
}

/// Reads the log into `out` as ratings; returns the samples read and the warnings.
pub(super) fn read(source: &str, text: &str, out: &mut CsvOut) -> Result<(usize, Vec<String>)> {
    let scored = scored(source, text)?;
    let (eval, rows) = (&scored.eval, &scored.rows);
    let with_criterion = rows.iter().any(|r| r.criterion.is_some());
    let with_epochs = rows.iter().any(|r| r.epoch > 1);
    out.header(&["item", "rater", "score"]);
    if with_criterion {
        out.column("criterion");
    }
    if with_epochs {
        out.column("variant");
    }
    out.column("model");
    out.column("task");
    for r in rows {
        let mut cells = vec![r.item.clone(), r.rater.clone(), r.score.to_string()];
        if with_criterion {
            cells.push(r.criterion.clone().unwrap_or_else(|| "value".to_owned()));
        }
        if with_epochs {
            cells.push(format!("epoch {}", r.epoch));
        }
        cells.push(eval.model.clone());
        cells.push(eval.task.clone());
        out.row(cells);
    }
    Ok((scored.samples, scored.warnings))
}

/// Reads the log into `out` as scores; returns the samples read and the warnings.
pub(super) fn scores(source: &str, text: &str, out: &mut CsvOut) -> Result<(usize, Vec<String>)> {
    let Scored {
        eval,
        rows,
        samples,
        warnings,
    } = scored(source, text)?;
    let names = field_names(rows.iter().map(|r| r.metadata.as_slice()));
    out.header(&["item", "system", "criterion", "score", "epoch", "task"]);
    out.named_columns(&names, "metadata");
    for r in &rows {
        let criterion = match &r.criterion {
            Some(key) => format!("{}.{key}", r.rater),
            None => r.rater.clone(),
        };
        let mut cells = vec![
            r.item.clone(),
            eval.model.clone(),
            criterion,
            r.score.to_string(),
            r.epoch.to_string(),
            eval.task.clone(),
        ];
        cells.extend(field_cells(&r.metadata, &names));
        out.row(cells);
    }
    Ok((samples, warnings))
}

/// Every scored value of the log.
fn scored(source: &str, text: &str) -> Result<Scored> {
    let log: Log = whole(source, text)?;
    let Some(samples) = log.samples else {
        return Err(Error::Insufficient(format!(
            "{source}: the log has no samples (it was written without them: rerun with samples \
             logged)"
        )));
    };
    let mut rows = Vec::new();
    let mut missing = 0;
    for raw in &samples {
        let record = located(text, raw);
        let sample: Sample = decode(source, &record)?;
        let item = id_text(&sample.id);
        let metadata = scalar_fields(sample.metadata);
        if item.trim().is_empty() {
            return Err(field_error(
                source,
                &record,
                "id",
                "expected a sample id, found an empty one".to_owned(),
            ));
        }
        for (scorer, score) in sample.scores.iter().flatten() {
            if scorer.trim().is_empty() {
                return Err(field_error(
                    source,
                    &record,
                    "scores",
                    "expected a scorer's name, found an empty one".to_owned(),
                ));
            }
            let mut push = |criterion: Option<String>, value: &Value| -> Result<()> {
                if value.is_null() {
                    missing += 1;
                    return Ok(());
                }
                let score =
                    scalar(value).ok_or_else(|| bad_value(source, &record, scorer, value))?;
                rows.push(Row {
                    item: item.clone(),
                    rater: scorer.clone(),
                    score,
                    criterion,
                    epoch: sample.epoch,
                    metadata: metadata.clone(),
                });
                Ok(())
            };
            match &score.value {
                Value::Object(map) => {
                    for (key, value) in map {
                        push(Some(key.clone()), value)?;
                    }
                }
                Value::Array(values) => {
                    for (k, value) in values.iter().enumerate() {
                        push(Some(k.to_string()), value)?;
                    }
                }
                value => push(None, value)?,
            }
        }
    }
    let mut warnings = Vec::new();
    if missing > 0 {
        warnings.push(format!("{missing} score(s) have no value and are left out"));
    }
    Ok(Scored {
        eval: log.eval,
        rows,
        samples: samples.len(),
        warnings,
    })
}

fn bad_value(source: &str, record: &Record, scorer: &str, value: &Value) -> Error {
    field_error(
        source,
        record,
        &format!("scores.{scorer}.value"),
        format!("expected C, I, P, N, yes, no, a number or a boolean, found {value}"),
    )
}
