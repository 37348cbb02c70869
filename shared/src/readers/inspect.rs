//! Inspect eval logs (the `.json` log format): each sample's score by each of the eval's
//! scorers, as ratings — `item` the sample id, `rater` the scorer, `score` the value, with the
//! evaluated `model` and the `task` as slice columns, `variant` the epoch when the eval ran more
//! than one, and `criterion` the key of a dict-valued score (one row per key).
//!
//! Values are read as Inspect's `value_to_float` reads them: `C` (correct) 1, `I` (incorrect)
//! 0, `P` (partial) ½, `N` (no answer) 0, `yes`/`true` 1, `no`/`false` 0, numbers and booleans
//! as they are. A null value leaves its row out, counted in a warning.
//!
//! Errors: [`Error::Input`] at the sample for a value of none of those kinds (named by its
//! scorer), a missing field, or a JSON syntax error; [`Error::Insufficient`] for a log without
//! samples (written with `--no-log-samples`).

use super::json_records::{decode, field_error, id_text, located, whole, Record};
use super::CsvOut;
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
}

/// Reads the log into `out`; returns the samples read and the warnings.
pub(super) fn read(source: &str, text: &str, out: &mut CsvOut) -> Result<(usize, Vec<String>)> {
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
        let mut cells = vec![r.item, r.rater, r.score.to_string()];
        if with_criterion {
            cells.push(r.criterion.unwrap_or_else(|| "value".to_owned()));
        }
        if with_epochs {
            cells.push(format!("epoch {}", r.epoch));
        }
        cells.push(log.eval.model.clone());
        cells.push(log.eval.task.clone());
        out.row(cells);
    }
    let mut warnings = Vec::new();
    if missing > 0 {
        warnings.push(format!("{missing} score(s) have no value and are left out"));
    }
    Ok((samples.len(), warnings))
}

fn bad_value(source: &str, record: &Record, scorer: &str, value: &Value) -> Error {
    field_error(
        source,
        record,
        &format!("scores.{scorer}.value"),
        format!("expected C, I, P, N, yes, no, a number or a boolean, found {value}"),
    )
}
