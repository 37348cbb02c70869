//! AlpacaEval's `annotations.json`: per instruction, an annotator's preference between the
//! baseline's output (`output_1`, `generator_1`) and the evaluated model's (`output_2`,
//! `generator_2`).
//!
//! `preference` is 1 when the baseline's output wins and 2 when the model's does; AlpacaEval 2's
//! weighted annotators give a probability-weighted value in [1, 2]; 0 and 1.5 are draws; null
//! (an annotation that failed) leaves the record out, counted in a warning. Each record becomes
//! one battle: `model_a` the baseline, `model_b` the model, `winner` by the side of 1.5, and
//! `score` = 3 − 2·preference = P(a) − P(b) ∈ [−1, 1] (the judge's signal, positive for `model_a`,
//! as [`crate::rankings::scored_battles`] reads it). `prompt` numbers the instructions in order
//! of first appearance (or is the record's `id`), both outputs' lengths in characters are
//! `length_a` and `length_b` (what length-controlled win rates read), and the instruction, both
//! outputs, the dataset and the annotator are kept as columns.
//!
//! As scores (what `compare` reads; one file per model, joined): `item` the instruction itself
//! (what ties the models' files together: some annotators' files number the instructions,
//! others do not), `system` the model
//! (`generator_2`), `criterion` `win`, `score` = preference − 1 ∈ [0, 1] (the probability that
//! the model's output beats the baseline's; ½ for a draw — AlpacaEval's win rate is its mean),
//! with `baseline`, `dataset` and `length` (the model's output in characters, for length
//! buckets) as columns.
//!
//! Errors: [`Error::Input`] at the record for a missing field or a preference outside
//! {0} ∪ [1, 2].

use super::json_records::{check_models, decode, field_error, id_text, Record};
use super::CsvOut;
use crate::io::error::{Error, Result};
use serde::Deserialize;
use std::collections::HashMap;

#[derive(Deserialize)]
struct Annotation {
    instruction: String,
    output_1: String,
    generator_1: String,
    output_2: String,
    generator_2: String,
    preference: Option<f64>,
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    dataset: Option<String>,
    #[serde(default)]
    annotator: Option<String>,
}

pub(super) fn read(source: &str, records: &[Record], out: &mut CsvOut) -> Result<Vec<String>> {
    out.header(&[
        "model_a",
        "model_b",
        "winner",
        "score",
        "prompt",
        "dataset",
        "annotator",
        "length_a",
        "length_b",
        "instruction",
        "answer_a",
        "answer_b",
    ]);
    let mut prompts: HashMap<String, usize> = HashMap::new();
    let mut unannotated = 0;
    for record in records {
        let Some((a, preference)) = annotated(source, record)? else {
            unannotated += 1;
            continue;
        };
        let winner = match preference {
            p if p == 0.0 || p == 1.5 => "tie",
            p if (1.0..1.5).contains(&p) => "model_a",
            p if p > 1.5 && p <= 2.0 => "model_b",
            p => return Err(preference_error(source, record, p)),
        };
        let score = if preference == 0.0 {
            0.0
        } else {
            3.0 - 2.0 * preference
        };
        let next = prompts.len();
        let prompt = match &a.id {
            Some(id) => id_text(id),
            None => prompts
                .entry(a.instruction.clone())
                .or_insert(next)
                .to_string(),
        };
        out.row(vec![
            a.generator_1,
            a.generator_2,
            winner.to_owned(),
            score.to_string(),
            prompt,
            a.dataset.unwrap_or_default(),
            a.annotator.unwrap_or_default(),
            a.output_1.chars().count().to_string(),
            a.output_2.chars().count().to_string(),
            a.instruction,
            a.output_1,
            a.output_2,
        ]);
    }
    Ok(unannotated_warning(unannotated))
}

/// Reads the annotations into `out` as scores; returns the warnings.
pub(super) fn scores(source: &str, records: &[Record], out: &mut CsvOut) -> Result<Vec<String>> {
    out.header(&[
        "item",
        "system",
        "criterion",
        "score",
        "baseline",
        "dataset",
        "length",
    ]);
    let mut unannotated = 0;
    for record in records {
        let Some((a, preference)) = annotated(source, record)? else {
            unannotated += 1;
            continue;
        };
        let score = match preference {
            0.0 => 0.5,
            p if (1.0..=2.0).contains(&p) => p - 1.0,
            p => return Err(preference_error(source, record, p)),
        };
        out.row(vec![
            a.instruction,
            a.generator_2,
            "win".to_owned(),
            score.to_string(),
            a.generator_1,
            a.dataset.unwrap_or_default(),
            a.output_2.chars().count().to_string(),
        ]);
    }
    Ok(unannotated_warning(unannotated))
}

/// The record's annotation and its preference; `None` when the annotator failed (null).
fn annotated(source: &str, record: &Record) -> Result<Option<(Annotation, f64)>> {
    let a: Annotation = decode(source, record)?;
    check_models(
        source,
        record,
        "generator_2",
        &a.generator_1,
        &a.generator_2,
    )?;
    Ok(a.preference.map(|p| (a, p)))
}

fn unannotated_warning(unannotated: usize) -> Vec<String> {
    let mut warnings = Vec::new();
    if unannotated > 0 {
        warnings.push(format!(
            "{unannotated} record(s) have no preference (the annotator failed) and are left out"
        ));
    }
    warnings
}

fn preference_error(source: &str, record: &Record, found: f64) -> Error {
    field_error(
        source,
        record,
        "preference",
        format!(
            "expected 1 (the baseline's output wins) to 2 (the model's wins), or 0 for a draw, \
             found {found}"
        ),
    )
}
