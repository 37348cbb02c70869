//! One planned judgment: render its prompt, run the judge, parse the answer, embed the rationale
//! and write the JSON line that is stored (the module documentation of [`crate::judge`] lists
//! its fields).

use crate::engine::embedder::Embedder;
use crate::engine::local_judge::{Decoding, Generation, ScorePosition};
use crate::engine::Judge;
use crate::judge::spec::RunSpec;
use crate::store::JudgmentKey;
use anyhow::{bail, Context};
use serde::Serialize;
use serde_json::json;
use tribunal::judging::injection::ResponseFlag;
use tribunal::judging::judge_config::RationaleEmbedding;
use tribunal::judging::judge_design::Planned;
use tribunal::judging::judge_prompt::{BinaryScores, CriteriaScores};

/// One judgment as written.
#[derive(Debug, Serialize)]
struct Judgment<'a> {
    id: &'a str,
    order: &'static str,
    repeat: u32,
    /// `""` for the original prompt, else the prompt variation.
    variant: &'a str,
    /// The models of the file's `response` and `response_b`, when the items name them.
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_b: Option<&'a str>,
    /// Prompt-injection flags on the item's responses (field guide Tip 17).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    injection: Vec<ResponseFlag>,
    /// The item's responses with no visible text (`response`, `response_b`).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    blank: &'a [String],
    label: Option<String>,
    /// Pairwise: `A` when the file's `response` won, `B` when `response_b` did (`tie` from
    /// the criteria prompt at s(x) = 0).
    winner: Option<String>,
    feedback: Option<String>,
    /// The criteria prompt's scores, A and B as shown.
    criteria: Option<CriteriaScores>,
    /// The criteria prompt's s(x) in the file's orientation (positive: `response` better).
    score_difference: Option<f64>,
    /// The binary prompt's criterion scores and consistency flag.
    binary: Option<BinaryScores>,
    parse_error: Option<String>,
    raw: String,
    label_probs: serde_json::Map<String, serde_json::Value>,
    label_mass: f64,
    score_position: ScorePosition,
    prompt_tokens: usize,
    generated_tokens: usize,
    seconds: f64,
    embedding: Option<Vec<f32>>,
}

/// Judges one planned judgment of `spec`: its key and its JSON.
pub(super) fn judge_one(
    spec: &RunSpec,
    planned: &Planned,
    judge: &mut dyn Judge,
    embedder: Option<&Embedder>,
) -> anyhow::Result<(JudgmentKey, String, Generation)> {
    let config = &spec.config;
    let item = &spec.items[planned.item];
    let order = planned.order.as_str();
    let key = spec.key(planned);
    let rendered = spec.design.render(&item.id, &item.prompt, planned)?;
    let labels = config.prompt.labels();
    let format = spec.design.answer_format(&item.id, planned)?;
    // Each repeat samples with its own seed (greedy decoding ignores it).
    let decoding = Decoding {
        max_tokens: config.decoding.max_tokens,
        min_tokens: config.decoding.min_tokens,
        temperature: config.decoding.temperature,
        seed: config.decoding.seed.wrapping_add(u64::from(planned.repeat)),
        prefix_cache: config.decoding.prefix_cache,
        constrained: config.verdict_constrained(),
    };
    let g: Generation = judge
        .generate(
            &rendered.system,
            &rendered.user,
            &labels,
            config.prompt.marker(),
            format.as_ref(),
            &decoding,
        )
        .with_context(|| format!("{}, line {}: item `{}`", spec.source, item.line, item.id))?;
    let parsed = config.prompt.parse(&g.text);
    let (label, feedback, criteria, binary, parse_error) = match parsed {
        Ok(p) => (Some(p.label), Some(p.feedback), p.criteria, p.binary, None),
        Err(f) => (None, None, None, None, Some(f.message)),
    };
    // s(x) in the file's orientation: positive favours the file's `response`.
    let score_difference = criteria.as_ref().map(|c| {
        if order == "ba" {
            -c.difference
        } else {
            c.difference
        }
    });
    let winner = label
        .as_ref()
        .filter(|_| config.prompt.pairwise())
        .map(|l| match (order, l.as_str()) {
            ("ba", "A") => "B".to_owned(),
            ("ba", "B") => "A".to_owned(),
            (_, l) => l.to_owned(),
        });
    // The rationale: the feedback, or the whole answer when it did not parse.
    let embedding = match (config.embed_rationale, config.rationale_embedding, embedder) {
        (false, _, _) => None,
        (true, RationaleEmbedding::Judge, _) => g.hidden.clone(),
        (true, RationaleEmbedding::Minilm, Some(e)) => e
            .embed(&[feedback.as_deref().unwrap_or(g.text.as_str())])?
            .pop(),
        (true, RationaleEmbedding::Minilm, None) => bail!("MiniLM is not loaded"),
    };
    let record = Judgment {
        id: &item.id,
        order,
        repeat: planned.repeat,
        variant: &planned.variant,
        model: item.models.as_ref().map(|(a, _)| a.as_str()),
        model_b: item.models.as_ref().map(|(_, b)| b.as_str()),
        injection: spec.injection[planned.item].clone(),
        blank: &item.blank,
        label,
        winner,
        feedback,
        criteria,
        score_difference,
        binary,
        parse_error,
        raw: g.text.clone(),
        label_probs: labels
            .iter()
            .zip(&g.label_probs)
            .map(|(l, p)| (l.clone(), json!(p)))
            .collect(),
        label_mass: g.label_mass,
        score_position: g.score_position,
        prompt_tokens: g.prompt_tokens,
        generated_tokens: g.generated_tokens,
        seconds: g.seconds,
        embedding,
    };
    let body = serde_json::to_string(&record)?;
    Ok((key, body, g))
}
