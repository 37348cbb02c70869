//! Text embeddings from any OpenAI-compatible embeddings endpoint (`POST {url}/embeddings`:
//! vLLM, llama.cpp's server started with embeddings on, TEI, or a hosted API), with the URL,
//! key, timeout and retries of [`OpenAiParams`].
//!
//! The request carries the model and the texts (`input`, an array); the answer's
//! `data[i].embedding` belongs to the text at `data[i].index`. A server that pools returns one
//! vector per text; one that does not (llama.cpp's server on a generative model returns the
//! final-layer hidden state of every token) returns a vector per token, which is averaged
//! here: the mean pooling of [`super::llama`]'s embeddings.
//!
//! Errors: those of the request (located by the endpoint), an answer without a vector for
//! some text, vectors of different widths, or non-numeric values.

use super::openai_judge::Client;
use anyhow::{bail, Context};
use serde_json::Value;
use tribunal::judging::judge_config::OpenAiParams;

/// A client of the embeddings endpoint.
pub struct OpenAiEmbedder {
    model: String,
    client: Client,
}

impl OpenAiEmbedder {
    /// Checks `params` and reads the API key; connects lazily.
    pub fn new(params: &OpenAiParams) -> anyhow::Result<Self> {
        Ok(Self {
            model: params.model.clone(),
            client: Client::new(params, "embeddings")?,
        })
    }

    /// The endpoint, for messages and records.
    pub fn endpoint(&self) -> &str {
        &self.client.endpoint
    }

    /// One vector per text of `texts`, in their order, all of one width.
    pub fn embed(&self, texts: &[&str]) -> anyhow::Result<Vec<Vec<f32>>> {
        let answer = self
            .client
            .post(&serde_json::json!({ "model": self.model, "input": texts }))?;
        let endpoint = self.endpoint();
        let data = answer["data"]
            .as_array()
            .with_context(|| format!("{endpoint}: expected a `data` array in the answer"))?;
        let mut rows: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        for (position, entry) in data.iter().enumerate() {
            let index = entry["index"]
                .as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .unwrap_or(position);
            let slot = rows.get_mut(index).with_context(|| {
                format!(
                    "{endpoint}: data[{position}] is for text {index} of {}",
                    texts.len()
                )
            })?;
            *slot = Some(
                pooled(&entry["embedding"])
                    .with_context(|| format!("{endpoint}: data[{position}].embedding"))?,
            );
        }
        let rows = rows
            .into_iter()
            .enumerate()
            .map(|(i, row)| row.with_context(|| format!("{endpoint}: no embedding of text {i}")))
            .collect::<anyhow::Result<Vec<_>>>()?;
        if let Some(first) = rows.first() {
            if let Some((i, row)) = rows
                .iter()
                .enumerate()
                .find(|(_, r)| r.len() != first.len())
            {
                bail!(
                    "{endpoint}: text {i} has {} dimensions, text 0 has {}",
                    row.len(),
                    first.len()
                );
            }
        }
        Ok(rows)
    }
}

/// A vector, or the mean of a non-empty list of vectors of one width.
fn pooled(value: &Value) -> anyhow::Result<Vec<f32>> {
    let items = value
        .as_array()
        .context("expected an array of numbers or of vectors")?;
    if items.first().is_some_and(Value::is_array) {
        let vectors = items
            .iter()
            .map(vector)
            .collect::<anyhow::Result<Vec<_>>>()?;
        let width = vectors[0].len();
        if vectors.iter().any(|v| v.len() != width) {
            bail!("the per-token vectors have different widths");
        }
        let mut sum = vec![0.0_f64; width];
        for v in &vectors {
            for (s, x) in sum.iter_mut().zip(v) {
                *s += f64::from(*x);
            }
        }
        let n = vectors.len() as f64;
        Ok(sum.into_iter().map(|s| (s / n) as f32).collect())
    } else {
        vector(value)
    }
}

fn vector(value: &Value) -> anyhow::Result<Vec<f32>> {
    let items = value.as_array().context("expected an array of numbers")?;
    if items.is_empty() {
        bail!("expected a non-empty vector");
    }
    items
        .iter()
        .map(|x| {
            x.as_f64()
                .map(|x| x as f32)
                .with_context(|| format!("expected a number, found {x}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn per_token_vectors_are_averaged_and_pooled_ones_kept() {
        assert_eq!(pooled(&json!([1.0, -2.0])).unwrap(), vec![1.0, -2.0]);
        assert_eq!(
            pooled(&json!([[1.0, 0.0], [3.0, -4.0]])).unwrap(),
            vec![2.0, -2.0]
        );
        let ragged = pooled(&json!([[1.0, 0.0], [3.0]])).unwrap_err();
        assert!(ragged.to_string().contains("different widths"), "{ragged}");
        let text = pooled(&json!(["a"])).unwrap_err();
        assert!(text.to_string().contains("expected a number"), "{text}");
    }
}
