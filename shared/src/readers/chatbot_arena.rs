//! Chatbot Arena's battles (FastChat's `clean_battle_….json`, a JSON array, or the same
//! records as JSON lines): `model_a`, `model_b` and the vote `winner` — `model_a`, `model_b`,
//! `tie`, `tie (bothbad)` (newer releases spell it `both_bad`).
//!
//! Each record becomes one battle with its `question_id` as `prompt`, the voter as `judge`,
//! and `language` and `turn` when given. When every record carries FastChat's `conv_metadata`
//! (answer tokens, markdown header, list and bold counts per side), the battle also gets
//! LMArena's four style features — `length`, `headers`, `lists`, `bold`, each the normalised
//! difference (a − b)/(a + b) of [`crate::rankings::style_features::style_difference`] — ready
//! for style control by columns.
//!
//! Errors: [`Error::Input`] at the record for a missing field, an unknown winner, or a model
//! battling itself.

use super::json_records::{check_models, decode, field_error, id_text, Record};
use super::CsvOut;
use crate::io::error::Result;
use crate::rankings::style_features::style_difference;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
struct ArenaBattle {
    model_a: String,
    model_b: String,
    winner: String,
    #[serde(default)]
    question_id: Option<serde_json::Value>,
    #[serde(default)]
    judge: Option<String>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    turn: Option<u64>,
    #[serde(default)]
    conv_metadata: Option<ConvMetadata>,
}

#[derive(Deserialize)]
struct ConvMetadata {
    sum_assistant_a_tokens: f64,
    sum_assistant_b_tokens: f64,
    header_count_a: BTreeMap<String, f64>,
    header_count_b: BTreeMap<String, f64>,
    list_count_a: BTreeMap<String, f64>,
    list_count_b: BTreeMap<String, f64>,
    bold_count_a: BTreeMap<String, f64>,
    bold_count_b: BTreeMap<String, f64>,
}

impl ConvMetadata {
    /// The four style features of the battle.
    fn features(&self) -> [f64; 4] {
        let total = |m: &BTreeMap<String, f64>| m.values().sum::<f64>();
        let a = [
            self.sum_assistant_a_tokens,
            total(&self.header_count_a),
            total(&self.list_count_a),
            total(&self.bold_count_a),
        ];
        let b = [
            self.sum_assistant_b_tokens,
            total(&self.header_count_b),
            total(&self.list_count_b),
            total(&self.bold_count_b),
        ];
        style_difference(&a, &b)
    }
}

pub(super) fn read(source: &str, records: &[Record], out: &mut CsvOut) -> Result<Vec<String>> {
    let mut battles = Vec::with_capacity(records.len());
    for record in records {
        let battle: ArenaBattle = decode(source, record)?;
        let winner = match battle.winner.trim() {
            w @ ("model_a" | "model_b" | "tie" | "tie (bothbad)") => w.to_owned(),
            "both_bad" => "tie (bothbad)".to_owned(),
            other => {
                return Err(field_error(
                    source,
                    record,
                    "winner",
                    format!(
                        "expected model_a, model_b, tie, tie (bothbad) or both_bad, found `{other}`"
                    ),
                ))
            }
        };
        check_models(source, record, "model_b", &battle.model_a, &battle.model_b)?;
        battles.push((battle, winner));
    }
    let styled = battles.iter().all(|(b, _)| b.conv_metadata.is_some());
    let mut header = vec![
        "model_a", "model_b", "winner", "prompt", "judge", "language", "turn",
    ];
    if styled {
        header.extend(["length", "headers", "lists", "bold"]);
    }
    out.header(&header);
    for (b, winner) in battles {
        let mut row = vec![
            b.model_a,
            b.model_b,
            winner,
            b.question_id.as_ref().map(id_text).unwrap_or_default(),
            b.judge.unwrap_or_default(),
            b.language.unwrap_or_default(),
            b.turn.map(|t| t.to_string()).unwrap_or_default(),
        ];
        if let Some(meta) = b.conv_metadata.as_ref().filter(|_| styled) {
            row.extend(meta.features().iter().map(f64::to_string));
        }
        out.row(row);
    }
    let some_styled = !styled && records.len() > 1;
    Ok(if some_styled {
        vec!["not every battle has FastChat's `conv_metadata`: no style columns written".to_owned()]
    } else {
        Vec::new()
    })
}
