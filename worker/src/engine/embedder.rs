//! Sentence embeddings with all-MiniLM-L6-v2 (BERT, 6 layers, 384 dimensions), as
//! sentence-transformers computes them: WordPiece tokens truncated at 256, the encoder's last
//! hidden states averaged over each text's tokens (mean pooling), then L2-normalised. The
//! encoder is [`super::bert_cpu`]'s on the CPU and [`super::bert`]'s on a GPU.

use super::bert::Bert;
use super::bert_cpu::{CpuBert, Tokens};
use super::existing;
use anyhow::{anyhow, Context};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::Config;
use std::path::Path;
use tokenizers::{Tokenizer, TruncationParams};

/// sentence-transformers' `max_seq_length` for this model (its tokenizer.json says 128).
pub const MAX_TOKENS: usize = 256;

/// The encoder for the device.
enum Encoder {
    Cpu(CpuBert),
    Device(Bert),
}

/// A loaded embedding model.
pub struct Embedder {
    encoder: Encoder,
    tokenizer: Tokenizer,
    device: Device,
    /// Embedding dimension.
    pub dim: usize,
}

impl Embedder {
    /// Loads the model in `dir` (config.json, tokenizer.json, model.safetensors) on `device`.
    pub fn load(dir: &Path, device: &Device) -> anyhow::Result<Self> {
        Self::load_encoder(dir, device, device.is_cpu())
    }

    /// [`Self::load`] with the CPU encoder or the tensor one.
    fn load_encoder(dir: &Path, device: &Device, cpu: bool) -> anyhow::Result<Self> {
        let read = |name: &str| -> anyhow::Result<Vec<u8>> {
            let path = dir.join(name);
            std::fs::read(existing(&path)?).with_context(|| format!("{}", path.display()))
        };
        let config: Config = serde_json::from_slice(&read("config.json")?)
            .with_context(|| format!("{}: not a BERT config", dir.join("config.json").display()))?;
        let mut tokenizer = Tokenizer::from_bytes(read("tokenizer.json")?)
            .map_err(|e| anyhow!("{}: {e}", dir.join("tokenizer.json").display()))?;
        tokenizer
            .with_padding(None)
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|e| anyhow!("tokenizer settings: {e}"))?;
        let weights =
            VarBuilder::from_buffered_safetensors(read("model.safetensors")?, DType::F32, device)?;
        let model = Bert::load(weights, &config)?;
        let encoder = if cpu {
            Encoder::Cpu(CpuBert::new(&model)?)
        } else {
            Encoder::Device(model)
        };
        Ok(Self {
            encoder,
            tokenizer,
            device: device.clone(),
            dim: config.hidden_size,
        })
    }

    /// The unit-length embedding of each text, in order.
    pub fn embed(&self, texts: &[&str]) -> anyhow::Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| anyhow!("tokenizing: {e}"))?;
        let texts: Vec<Tokens> = encodings
            .iter()
            .map(|e| (e.get_ids(), e.get_type_ids()))
            .collect();
        let d = self.dim;
        let hidden = match &self.encoder {
            Encoder::Cpu(model) => model.forward(&texts)?,
            Encoder::Device(model) => self.forward_padded(model, &texts)?,
        };
        let mut rows = hidden.chunks_exact(d);
        Ok(texts
            .iter()
            .map(|(ids, _)| {
                let mut mean = vec![0.0f32; d];
                for row in rows.by_ref().take(ids.len()) {
                    mean.iter_mut().zip(row).for_each(|(m, v)| *m += v);
                }
                let n = ids.len().max(1) as f32;
                mean.iter_mut().for_each(|m| *m /= n);
                let norm = mean.iter().map(|m| m * m).sum::<f32>().sqrt();
                mean.iter_mut().for_each(|m| *m /= norm);
                mean
            })
            .collect())
    }

    /// [`CpuBert::forward`]'s states from the tensor encoder: the texts padded to the longest
    /// (id 0, masked), the padded rows dropped.
    fn forward_padded(&self, model: &Bert, texts: &[Tokens]) -> anyhow::Result<Vec<f32>> {
        let longest = texts.iter().map(|(ids, _)| ids.len()).max().unwrap_or(0);
        let padded = |pick: &dyn Fn(&Tokens, usize) -> u32| -> anyhow::Result<Tensor> {
            let cells: Vec<u32> = texts
                .iter()
                .flat_map(|t| (0..longest).map(move |p| if p < t.0.len() { pick(t, p) } else { 0 }))
                .collect();
            Ok(Tensor::from_vec(
                cells,
                (texts.len(), longest),
                &self.device,
            )?)
        };
        let ids = padded(&|t, p| t.0[p])?;
        let types = padded(&|t, p| t.1[p])?;
        let mask = padded(&|_, _| 1)?;
        let hidden = model
            .forward(&ids, &types, &mask)?
            .to_dtype(DType::F32)?
            .to_vec3::<f32>()?;
        Ok(texts
            .iter()
            .zip(hidden)
            .flat_map(|((ids, _), rows)| rows.into_iter().take(ids.len()).flatten())
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ModelPaths;

    #[test]
    fn the_cpu_encoder_equals_the_tensor_encoder_and_ignores_batching() {
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        let dir = ModelPaths::under(&models).minilm;
        let cpu = Embedder::load(&dir, &Device::Cpu).expect("MiniLM (run scripts/setup.sh)");
        let tensor = Embedder::load_encoder(&dir, &Device::Cpu, false).unwrap();
        let long = "The committee weighed each answer twice, once in each order, ".repeat(40);
        // Lengths from 3 tokens to the 256-token cap, so the tensor encoder pads most rows.
        let texts = [
            "Yes.",
            "A short answer, with a comma.",
            long.as_str(),
            "Über façade — 東京 42",
        ];
        let (a, b) = (cpu.embed(&texts).unwrap(), tensor.embed(&texts).unwrap());
        for (k, (a, b)) in a.iter().zip(&b).enumerate() {
            let worst = a
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f32::max);
            assert!(worst < 1e-5, "text {k}: max |Δ| = {worst}");
            let norm = a.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-5);
        }
        for (k, text) in texts.iter().enumerate() {
            let alone = &cpu.embed(&[text]).unwrap()[0];
            assert_eq!(alone, &a[k], "text {k} alone and in the batch");
        }
        assert!(cpu.embed(&[]).unwrap().is_empty());
    }
}
