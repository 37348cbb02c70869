//! A BERT encoder (all-MiniLM-L6-v2's: post-norm layers, absolute positions) on candle's
//! tensors: the encoder of [`super::embedder`] on a GPU, and the loader of the weights
//! [`super::bert_cpu`] packs for the CPU.
//!
//! Model: BERT as Hugging Face's `BertModel` computes it, without pooling: embeddings (word +
//! position + token type, layer-normed), then per layer self-attention — softmax(QKᵀ/√d_h +
//! mask)·V per head, the output projection, a residual and a layer norm — and the feed-forward
//! block (GELU, the second projection, a residual, a layer norm).
//!
//! What differs from candle-transformers' `BertModel` is the arrangement, not the arithmetic:
//! every projection is one matrix product over all the batch's tokens (rows B·L) with its
//! weight transposed once at load, not one product per text with the weight re-laid each call;
//! the query, key and value projections are one product with their weights side by side, the
//! query's scaled by 1/√d_h there; the attention softmax is candle's fused last-dimension kernel
//! (one pass) instead of five tensor operations; layer norms are the fused kernel. The hidden
//! states equal candle's to rounding (tested against sentence-transformers' vectors).
//!
//! Arguments: the weights (a safetensors [`VarBuilder`], with or without a `bert.` prefix) and
//! the model's `config.json`; token ids, token types and the attention mask, (B, L) each.
//!
//! Returns: the last layer's hidden states, (B, L, hidden size).
//!
//! Errors: a missing or misshapen weight; a hidden size the head count does not divide.

use anyhow::bail;
use candle_core::{DType, Tensor};
use candle_nn::{Embedding, Module, VarBuilder};
use candle_transformers::models::bert::{Config, HiddenAct};

/// A layer norm's weight, bias and ε.
pub(super) struct Norm {
    pub(super) weight: Tensor,
    pub(super) bias: Tensor,
    pub(super) eps: f32,
}

impl Norm {
    fn load(vb: &VarBuilder, width: usize, eps: f64) -> anyhow::Result<Self> {
        Ok(Self {
            weight: vb.get(width, "weight")?,
            bias: vb.get(width, "bias")?,
            eps: eps as f32,
        })
    }

    fn forward(&self, x: &Tensor) -> anyhow::Result<Tensor> {
        Ok(candle_nn::ops::layer_norm(
            x,
            &self.weight,
            &self.bias,
            self.eps,
        )?)
    }
}

/// A linear map as a product with its transposed weight, (in, out), and a bias.
pub(super) struct Projection {
    pub(super) weight_t: Tensor,
    pub(super) bias: Tensor,
}

impl Projection {
    fn load(vb: &VarBuilder, inputs: usize, outputs: usize) -> anyhow::Result<Self> {
        Ok(Self {
            weight_t: vb.get((outputs, inputs), "weight")?.t()?.contiguous()?,
            bias: vb.get(outputs, "bias")?,
        })
    }

    /// `x` (rows, in) → (rows, out).
    fn forward(&self, x: &Tensor) -> anyhow::Result<Tensor> {
        Ok(x.matmul(&self.weight_t)?.broadcast_add(&self.bias)?)
    }
}

pub(super) struct Layer {
    /// Query (scaled by 1/√d_h), key and value side by side: (hidden, 3·hidden).
    pub(super) qkv: Projection,
    pub(super) output: Projection,
    pub(super) attention_norm: Norm,
    pub(super) intermediate: Projection,
    pub(super) down: Projection,
    pub(super) output_norm: Norm,
}

impl Layer {
    fn load(vb: &VarBuilder, config: &Config, heads: usize) -> anyhow::Result<Self> {
        let d = config.hidden_size;
        let attention = vb.pp("attention");
        let own = attention.pp("self");
        let scale = 1.0 / ((d / heads) as f64).sqrt();
        let get = |name: &str, factor: f64| -> anyhow::Result<(Tensor, Tensor)> {
            let p = own.pp(name);
            Ok((
                (p.get((d, d), "weight")? * factor)?,
                (p.get(d, "bias")? * factor)?,
            ))
        };
        let (q, qb) = get("query", scale)?;
        let (k, kb) = get("key", 1.0)?;
        let (v, vb_) = get("value", 1.0)?;
        let qkv = Projection {
            weight_t: Tensor::cat(&[q, k, v], 0)?.t()?.contiguous()?,
            bias: Tensor::cat(&[qb, kb, vb_], 0)?,
        };
        Ok(Self {
            qkv,
            output: Projection::load(&attention.pp("output.dense"), d, d)?,
            attention_norm: Norm::load(
                &attention.pp("output.LayerNorm"),
                d,
                config.layer_norm_eps,
            )?,
            intermediate: Projection::load(
                &vb.pp("intermediate.dense"),
                d,
                config.intermediate_size,
            )?,
            down: Projection::load(&vb.pp("output.dense"), config.intermediate_size, d)?,
            output_norm: Norm::load(&vb.pp("output.LayerNorm"), d, config.layer_norm_eps)?,
        })
    }
}

/// A loaded BERT encoder.
pub struct Bert {
    pub(super) words: Embedding,
    pub(super) positions: Tensor,
    pub(super) types: Embedding,
    pub(super) embedding_norm: Norm,
    pub(super) layers: Vec<Layer>,
    pub(super) heads: usize,
    pub(super) activation: HiddenAct,
    /// Width of the hidden states.
    pub width: usize,
}

impl Bert {
    /// The encoder of `config` from the weights in `vb`.
    pub fn load(vb: VarBuilder, config: &Config) -> anyhow::Result<Self> {
        let (d, heads) = (config.hidden_size, config.num_attention_heads);
        if heads == 0 || d % heads != 0 {
            bail!("a hidden size of {d} does not split into {heads} attention heads");
        }
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let e = vb.pp("embeddings");
        let table = |name: &str, rows: usize| -> anyhow::Result<Tensor> {
            Ok(e.pp(name).get((rows, d), "weight")?)
        };
        let layers = (0..config.num_hidden_layers)
            .map(|k| Layer::load(&vb.pp(format!("encoder.layer.{k}")), config, heads))
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Self {
            words: Embedding::new(table("word_embeddings", config.vocab_size)?, d),
            positions: table("position_embeddings", config.max_position_embeddings)?,
            types: Embedding::new(table("token_type_embeddings", config.type_vocab_size)?, d),
            embedding_norm: Norm::load(&e.pp("LayerNorm"), d, config.layer_norm_eps)?,
            layers,
            heads,
            activation: config.hidden_act,
            width: d,
        })
    }

    /// The last hidden states of the texts `ids` (B, L), with token types `types` and the
    /// attention `mask` (1 for a token, 0 for padding): (B, L, width).
    pub fn forward(&self, ids: &Tensor, types: &Tensor, mask: &Tensor) -> anyhow::Result<Tensor> {
        let (b, l) = ids.dims2()?;
        let (d, h) = (self.width, self.heads);
        let positions = self.positions.narrow(0, 0, l)?;
        let x = (self.words.forward(ids)? + self.types.forward(types)?)?
            .broadcast_add(&positions)?
            .reshape((b * l, d))?;
        let mut x = self.embedding_norm.forward(&x)?;
        // 0 where a token is, the most negative float where padding is: (B, 1, 1, L).
        let padding = (1.0 - mask.to_dtype(DType::F32)?)?;
        let bias = (padding * f64::from(f32::MIN))?.reshape((b, 1, 1, l))?;
        for layer in &self.layers {
            let qkv = layer
                .qkv
                .forward(&x)?
                .reshape((b, l, 3, h, d / h))?
                .permute((2, 0, 3, 1, 4))?;
            let (q, k, v) = (
                qkv.get(0)?.contiguous()?,
                qkv.get(1)?.contiguous()?,
                qkv.get(2)?.contiguous()?,
            );
            let scores = q.matmul(&k.t()?)?.broadcast_add(&bias)?;
            let probs = candle_nn::ops::softmax_last_dim(&scores)?;
            let context = probs
                .matmul(&v)?
                .transpose(1, 2)?
                .contiguous()?
                .reshape((b * l, d))?;
            let attended = layer.output.forward(&context)?;
            x = layer.attention_norm.forward(&(attended + &x)?)?;
            let inner = layer.intermediate.forward(&x)?;
            let inner = match self.activation {
                HiddenAct::Gelu => inner.gelu_erf()?,
                HiddenAct::GeluApproximate => inner.gelu()?,
                HiddenAct::Relu => inner.relu()?,
            };
            let out = layer.down.forward(&inner)?;
            x = layer.output_norm.forward(&(out + &x)?)?;
        }
        Ok(x.reshape((b, l, d))?)
    }
}
