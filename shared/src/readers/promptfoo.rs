//! promptfoo's results JSON (`promptfoo eval -o results.json`, `promptfoo export`; versions 2
//! and 3): each result's overall score and each of its assertions' scores, as ratings — `item`
//! the provider's answer to one test under one prompt (`provider | test N | prompt M`), `rater`
//! `overall` or the assertion's type (its `metric` when it names one; a type used twice in a
//! result is numbered), with `provider`, `prompt` and `test` as slice columns, so the agreement
//! of an LLM rubric with a deterministic check can be measured.
//!
//! As scores (what `compare` reads): `system` the provider — with the prompt's label when a
//! provider answered under several prompts (provider × prompt) — `item` the test (`test N`), `criterion`
//! `overall` or the assertion, with `provider`, `prompt` and each of the test's `vars` (as
//! text) as slice columns (`vars.<name>` where the name is one of those columns).
//!
//! A result without a score takes 1 or 0 from `success`; an assertion without a score takes it
//! from `pass`; one with neither is left out, counted in a warning.
//!
//! Errors: [`Error::Input`] at the result for a missing provider or a JSON syntax error;
//! [`Error::Insufficient`] for a file without results.

use super::json_records::{decode, located};
use super::json_records::{whole, Record};
use super::{field_cells, field_names, scalar_fields, CsvOut};
use crate::io::error::{Error, Result};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::BTreeSet;

#[derive(Deserialize)]
struct Top<'a> {
    #[serde(borrow)]
    results: &'a RawValue,
}

#[derive(Deserialize)]
struct Summary<'a> {
    #[serde(borrow)]
    results: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Outcome {
    provider: Provider,
    #[serde(default)]
    prompt: Option<Prompt>,
    #[serde(default)]
    test_idx: Option<u64>,
    #[serde(default)]
    prompt_idx: Option<u64>,
    #[serde(default)]
    score: Option<f64>,
    #[serde(default)]
    success: Option<bool>,
    #[serde(default)]
    grading_result: Option<Grading>,
    #[serde(default)]
    vars: Option<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Deserialize)]
struct Provider {
    id: String,
    #[serde(default)]
    label: Option<String>,
}

#[derive(Deserialize)]
struct Prompt {
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    display: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Grading {
    #[serde(default)]
    component_results: Option<Vec<Component>>,
}

#[derive(Deserialize)]
struct Component {
    #[serde(default)]
    score: Option<f64>,
    #[serde(default)]
    pass: Option<bool>,
    #[serde(default)]
    assertion: Option<Assertion>,
}

#[derive(Deserialize)]
struct Assertion {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    metric: Option<String>,
}

/// The results' records: `results.results` (v2, v3), or a top-level `results` array (old v2).
fn outcomes<'a>(source: &str, text: &'a str) -> Result<Vec<Record<'a>>> {
    let top: Top = whole(source, text)?;
    let results = located(text, top.results);
    let raws: Vec<&RawValue> = if top.results.get().trim_start().starts_with('[') {
        decode(source, &results)?
    } else {
        decode::<Summary>(source, &results)?.results
    };
    Ok(raws.into_iter().map(|raw| located(text, raw)).collect())
}

/// One result's scores: its provider, prompt, test and vars, and each (name, score).
struct Graded {
    provider: String,
    prompt: String,
    prompt_idx: u64,
    test: String,
    vars: Vec<(String, String)>,
    scores: Vec<(String, f64)>,
}

/// Every result's scores; the results read and how many scores were missing.
fn graded(source: &str, text: &str) -> Result<(Vec<Graded>, usize)> {
    let records = outcomes(source, text)?;
    if records.is_empty() {
        return Err(Error::Insufficient(format!("{source}: no results")));
    }
    let mut unscored = 0;
    let mut all = Vec::with_capacity(records.len());
    for (k, record) in records.iter().enumerate() {
        let o: Outcome = decode(source, record)?;
        let provider = match o.provider.label.as_deref() {
            Some(label) if !label.trim().is_empty() => label.to_owned(),
            _ => o.provider.id.clone(),
        };
        let test = o.test_idx.map_or_else(|| k.to_string(), |t| t.to_string());
        let prompt = o
            .prompt
            .as_ref()
            .and_then(|p| p.label.clone().or_else(|| p.display.clone()))
            .unwrap_or_default();
        let mut scores = Vec::new();
        match o.score.or(o.success.map(|s| f64::from(u8::from(s)))) {
            Some(score) => scores.push(("overall".to_owned(), score)),
            None => unscored += 1,
        }
        let mut seen: Vec<String> = Vec::new();
        let components = o.grading_result.and_then(|g| g.component_results);
        for c in components.into_iter().flatten() {
            let Some(score) = c.score.or(c.pass.map(|p| f64::from(u8::from(p)))) else {
                unscored += 1;
                continue;
            };
            let name = c
                .assertion
                .map(|a| a.metric.unwrap_or(a.kind))
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| "assertion".to_owned());
            let times = seen.iter().filter(|s| **s == name).count();
            seen.push(name.clone());
            let rater = if times == 0 {
                name
            } else {
                format!("{name} ({})", times + 1)
            };
            scores.push((rater, score));
        }
        let vars = scalar_fields(o.vars);
        all.push(Graded {
            provider,
            prompt,
            prompt_idx: o.prompt_idx.unwrap_or(0),
            test,
            vars,
            scores,
        });
    }
    Ok((all, unscored))
}

/// Reads the results into `out` as ratings; returns the results read and the warnings.
pub(super) fn read(source: &str, text: &str, out: &mut CsvOut) -> Result<(usize, Vec<String>)> {
    let (results, unscored) = graded(source, text)?;
    out.header(&["item", "rater", "score", "provider", "prompt", "test"]);
    for g in &results {
        let item = format!("{} | test {} | prompt {}", g.provider, g.test, g.prompt_idx);
        for (rater, score) in &g.scores {
            out.row(vec![
                item.clone(),
                rater.clone(),
                score.to_string(),
                g.provider.clone(),
                g.prompt.clone(),
                g.test.clone(),
            ]);
        }
    }
    Ok((results.len(), warnings(unscored)))
}

/// Reads the results into `out` as scores; returns the results read and the warnings.
pub(super) fn scores(source: &str, text: &str, out: &mut CsvOut) -> Result<(usize, Vec<String>)> {
    let (results, unscored) = graded(source, text)?;
    let pairs: BTreeSet<(&str, u64)> = results
        .iter()
        .map(|g| (g.provider.as_str(), g.prompt_idx))
        .collect();
    let providers: BTreeSet<&str> = pairs.iter().map(|(p, _)| *p).collect();
    let by_prompt = pairs.len() > providers.len();
    let names = field_names(results.iter().map(|g| g.vars.as_slice()));
    out.header(&["item", "system", "criterion", "score", "provider", "prompt"]);
    out.named_columns(&names, "vars");
    for g in &results {
        let prompt = if g.prompt.trim().is_empty() {
            format!("prompt {}", g.prompt_idx)
        } else {
            g.prompt.clone()
        };
        let system = if by_prompt {
            format!("{} × {prompt}", g.provider)
        } else {
            g.provider.clone()
        };
        for (criterion, score) in &g.scores {
            let mut cells = vec![
                format!("test {}", g.test),
                system.clone(),
                criterion.clone(),
                score.to_string(),
                g.provider.clone(),
                prompt.clone(),
            ];
            cells.extend(field_cells(&g.vars, &names));
            out.row(cells);
        }
    }
    Ok((results.len(), warnings(unscored)))
}

fn warnings(unscored: usize) -> Vec<String> {
    let mut warnings = Vec::new();
    if unscored > 0 {
        warnings.push(format!(
            "{unscored} result(s) or assertion(s) have neither a score nor a pass/fail and are left out"
        ));
    }
    warnings
}
