//! Arena-Hard-Auto's judgment JSONL: per question, the judge's two games between a model and
//! the baseline — game 1 with the baseline as assistant A, game 2 with the sides swapped.
//!
//! A game's `score` is the judge's verdict label: `A>>B`, `A>B`, `A=B`, `B>A`, `B>>A` (and the
//! mirrored spellings `B<<A`, `B<A`, `B=A`, `A<B`, `A<<B`); a null score or game (the judge's
//! answer had no label) leaves that game out, counted in a warning. Each game becomes one
//! battle with `model_a` the model shown as A, `winner` its verdict, `strong` = true for `>>`
//! (Arena-Hard weighs those three times), `game` 1 or 2 and `prompt` the question id
//! (`question_id` in v0.1, `uid` in v2). The baseline is the record's `baseline` (v2), else the
//! one given ([`super::ConvertParams::baseline`]; v0.1's was `gpt-4-0314`).
//!
//! Errors: [`Error::Input`] at the record for a missing field, more than two games, an unknown
//! verdict label, or no baseline named anywhere.

use super::json_records::{check_models, decode, field_error, id_text, Record};
use super::{ConvertParams, CsvOut};
use crate::io::error::Result;
use serde::Deserialize;

#[derive(Deserialize)]
struct Judgment {
    #[serde(default)]
    question_id: Option<serde_json::Value>,
    #[serde(default)]
    uid: Option<serde_json::Value>,
    model: String,
    #[serde(default)]
    judge: Option<String>,
    #[serde(default)]
    baseline: Option<String>,
    games: Vec<Option<Game>>,
}

#[derive(Deserialize)]
struct Game {
    #[serde(default)]
    score: Option<String>,
}

/// Which side a verdict label favours, and whether strongly.
fn verdict(label: &str) -> Option<(&'static str, bool)> {
    Some(match label.trim() {
        "A>>B" | "B<<A" => ("model_a", true),
        "A>B" | "B<A" => ("model_a", false),
        "A=B" | "B=A" => ("tie", false),
        "B>A" | "A<B" => ("model_b", false),
        "B>>A" | "A<<B" => ("model_b", true),
        _ => return None,
    })
}

pub(super) fn read(
    source: &str,
    records: &[Record],
    params: &ConvertParams,
    out: &mut CsvOut,
) -> Result<Vec<String>> {
    out.header(&[
        "model_a", "model_b", "winner", "strong", "game", "prompt", "judge",
    ]);
    let mut unlabelled = 0;
    for record in records {
        let j: Judgment = decode(source, record)?;
        let Some(baseline) = j.baseline.clone().or_else(|| params.baseline.clone()) else {
            return Err(field_error(
                source,
                record,
                "baseline",
                "the record names no baseline and none was given (Arena-Hard v0.1 judged \
                 against gpt-4-0314: give it as the baseline)"
                    .to_owned(),
            ));
        };
        check_models(source, record, "model", &baseline, &j.model)?;
        if j.games.len() > 2 {
            return Err(field_error(
                source,
                record,
                "games",
                format!(
                    "expected two games (baseline as A, then as B), found {}",
                    j.games.len()
                ),
            ));
        }
        let prompt = j
            .question_id
            .as_ref()
            .or(j.uid.as_ref())
            .map(id_text)
            .unwrap_or_default();
        for (k, game) in j.games.iter().enumerate() {
            let Some(label) = game.as_ref().and_then(|g| g.score.as_deref()) else {
                unlabelled += 1;
                continue;
            };
            let Some((winner, strong)) = verdict(label) else {
                return Err(field_error(
                    source,
                    record,
                    "score",
                    format!(
                        "game {}: expected A>>B, A>B, A=B, B>A or B>>A, found `{label}`",
                        k + 1
                    ),
                ));
            };
            let (a, b) = if k == 0 {
                (&baseline, &j.model)
            } else {
                (&j.model, &baseline)
            };
            out.row(vec![
                a.clone(),
                b.clone(),
                winner.to_owned(),
                strong.to_string(),
                (k + 1).to_string(),
                prompt.clone(),
                j.judge.clone().unwrap_or_default(),
            ]);
        }
    }
    let mut warnings = Vec::new();
    if unlabelled > 0 {
        warnings.push(format!(
            "{unlabelled} game(s) have no verdict (the judge's answer had no label) and are left out"
        ));
    }
    Ok(warnings)
}
