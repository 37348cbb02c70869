//! Sentence embeddings with all-MiniLM-L6-v2 (BERT, 6 layers, 384 dimensions), as
//! sentence-transformers computes them: WordPiece tokens truncated at 256, the encoder's last
//! hidden states averaged over the attention mask (mean pooling), then L2-normalised. The
//! encoder is [`super::bert`]'s.

use super::bert::Bert;
use super::existing;
use anyhow::{anyhow, Context};
use candle_core::{DType, Device, Tensor, D};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::Config;
use std::path::Path;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

/// sentence-transformers' `max_seq_length` for this model (its tokenizer.json says 128).
pub const MAX_TOKENS: usize = 256;

/// A loaded embedding model.
pub struct Embedder {
    model: Bert,
    tokenizer: Tokenizer,
    device: Device,
    /// Embedding dimension.
    pub dim: usize,
}

impl Embedder {
    /// Loads the model in `dir` (config.json, tokenizer.json, model.safetensors) on `device`.
    pub fn load(dir: &Path, device: &Device) -> anyhow::Result<Self> {
        let read = |name: &str| -> anyhow::Result<Vec<u8>> {
            let path = dir.join(name);
            std::fs::read(existing(&path)?).with_context(|| format!("{}", path.display()))
        };
        let config: Config = serde_json::from_slice(&read("config.json")?)
            .with_context(|| format!("{}: not a BERT config", dir.join("config.json").display()))?;
        let mut tokenizer = Tokenizer::from_bytes(read("tokenizer.json")?)
            .map_err(|e| anyhow!("{}: {e}", dir.join("tokenizer.json").display()))?;
        tokenizer
            .with_padding(Some(PaddingParams {
                strategy: PaddingStrategy::BatchLongest,
                ..PaddingParams::default()
            }))
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|e| anyhow!("tokenizer settings: {e}"))?;
        let weights =
            VarBuilder::from_buffered_safetensors(read("model.safetensors")?, DType::F32, device)?;
        let model = Bert::load(weights, &config)?;
        Ok(Self {
            model,
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
        let rows = |f: &dyn Fn(&tokenizers::Encoding) -> Vec<u32>| -> anyhow::Result<Tensor> {
            let rows = encodings
                .iter()
                .map(|e| Tensor::new(f(e).as_slice(), &self.device))
                .collect::<candle_core::Result<Vec<_>>>()?;
            Ok(Tensor::stack(&rows, 0)?)
        };
        let ids = rows(&|e| e.get_ids().to_vec())?;
        let types = rows(&|e| e.get_type_ids().to_vec())?;
        let mask = rows(&|e| e.get_attention_mask().to_vec())?;
        let hidden = self.model.forward(&ids, &types, &mask)?;
        let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
        let counts = mask.sum(1)?;
        let mean = summed.broadcast_div(&counts)?;
        let norm = mean.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?;
        Ok(mean.broadcast_div(&norm)?.to_vec2::<f32>()?)
    }
}
