//! The local judge's decoder: a llama-architecture transformer (SmolLM2) over the weights of a
//! GGUF file, written out so that one forward pass gives both the next-token logits and the
//! final-layer hidden states: the rationale's embedding is then a by-product of judging (seed
//! 000 §5.4) rather than a second model run.
//!
//! Model (llama.cpp's `llama` graph, as candle's `quantized_llama` runs it): token embedding;
//! per block h ← h + Attn(RMSNorm(h)), h ← h + W_down(SiLU(W_gate x) ⊙ W_up x) with x =
//! RMSNorm(h); grouped-query causal self-attention with rotary position embeddings (pairs
//! (2i, 2i + 1), as GGUF stores llama's query and key weights) and a key/value cache; the
//! final RMSNorm gives the hidden states H, whose last row the output matrix maps to logits.
//!
//! On the CPU each weight matrix W (out, in) is dequantised once and kept transposed, as
//! Wᵀ (in, out) in row-major order: x·Wᵀ then streams Wᵀ's rows for a decode step's single
//! token (gemm's column-major matrix–vector kernel: ≈ 0.38 s a token for SmolLM2 on the 2-core CI
//! machine, dev profile, against ≈ 0.75 s through candle's dequantised `QMatMul`, whose W is read through a transposed view by
//! gemm's row-major kernel) and is an ordinary product for a prefill. On a GPU the weights
//! stay quantised and candle's kernels run them.
//!
//! The cache is preallocated per block and written in place (doubling when full), so a decode
//! step copies only its own keys and values; each group of query heads attends to its shared
//! key/value head directly (the queries of a group stacked as rows), without repeating the
//! keys and values per head.
//!
//! Arguments: the GGUF content and reader, the device; token ids and the position of the first.
//! Returns: [`Step`] (logits of the last position, H of every position fed). Errors: a GGUF
//! whose architecture is not `llama` or that has experts, missing tensors or metadata, a
//! position past the rotary table.

use anyhow::{bail, Context};
use candle_core::quantized::{gguf_file, QMatMul, QTensor};
use candle_core::{DType, Device, IndexOp, Module, Tensor, D};
use candle_transformers::quantized_nn::RmsNorm;
use candle_transformers::utils::build_causal_mask;

/// Positions the rotary table covers (a judge prompt and answer stay far below it).
const MAX_POSITIONS: usize = 4096;

/// One forward pass.
pub struct Step {
    /// Logits of the token after the last one fed, (vocabulary).
    pub logits: Tensor,
    /// Final-layer hidden states (after the final RMSNorm) of every token fed, (tokens, d).
    pub hidden: Tensor,
}

/// A weight matrix W (out, in) applied as x ↦ x·Wᵀ.
enum Linear {
    /// Wᵀ (in, out), f32, contiguous: the CPU's form.
    Transposed(Tensor),
    /// W as stored, run by candle's quantised kernels: a GPU's form.
    Quantized(QMatMul),
}

impl Linear {
    fn new(weights: QTensor, device: &Device) -> anyhow::Result<Self> {
        Ok(if device.is_cpu() {
            Self::Transposed(weights.dequantize(device)?.t()?.contiguous()?)
        } else {
            Self::Quantized(QMatMul::from_qtensor(weights)?)
        })
    }

    /// x (1, n, in) ↦ x·Wᵀ (1, n, out).
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            Self::Transposed(wt) => x.broadcast_matmul(wt),
            Self::Quantized(w) => w.forward(x),
        }
    }
}

struct Block {
    attn_norm: RmsNorm,
    wq: Linear,
    wk: Linear,
    wv: Linear,
    wo: Linear,
    ffn_norm: RmsNorm,
    gate: Linear,
    up: Linear,
    down: Linear,
    /// Keys and values of the positions fed so far.
    cache: KvCache,
}

/// A block's keys and values: buffers (1, kv heads, capacity, head dim) whose first `len`
/// positions hold the tokens fed so far.
#[derive(Default)]
struct KvCache {
    buffers: Option<(Tensor, Tensor)>,
    len: usize,
}

impl KvCache {
    /// Writes `k` and `v` (1, kv heads, n, head dim) at position `at` (forgetting what followed
    /// it) and returns the keys and values of positions 0 ..= at + n − 1.
    fn extend(&mut self, k: &Tensor, v: &Tensor, at: usize) -> anyhow::Result<(Tensor, Tensor)> {
        let n = k.dim(2)?;
        let kept = self.len.min(at);
        if kept != at {
            bail!("position {at} follows only {kept} cached positions");
        }
        let needed = at + n;
        let capacity = self.buffers.as_ref().map_or(Ok(0), |(b, _)| b.dim(2))?;
        if needed > capacity {
            let grown = needed.next_power_of_two().clamp(256, MAX_POSITIONS);
            let (batch, heads, _, head_dim) = k.dims4()?;
            let fresh = || Tensor::zeros((batch, heads, grown, head_dim), k.dtype(), k.device());
            let (new_k, new_v) = (fresh()?, fresh()?);
            if let Some((old_k, old_v)) = &self.buffers {
                if kept > 0 {
                    new_k.slice_set(&old_k.narrow(2, 0, kept)?.contiguous()?, 2, 0)?;
                    new_v.slice_set(&old_v.narrow(2, 0, kept)?.contiguous()?, 2, 0)?;
                }
            }
            self.buffers = Some((new_k, new_v));
        }
        let Some((all_k, all_v)) = &self.buffers else {
            bail!("the key/value cache was not allocated");
        };
        all_k.slice_set(&k.contiguous()?, 2, at)?;
        all_v.slice_set(&v.contiguous()?, 2, at)?;
        self.len = needed;
        Ok((all_k.narrow(2, 0, needed)?, all_v.narrow(2, 0, needed)?))
    }
}

/// The decoder.
pub struct Llama {
    embeddings: Tensor,
    blocks: Vec<Block>,
    norm: RmsNorm,
    output: Linear,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    cos: Tensor,
    sin: Tensor,
}

impl Llama {
    /// Reads the weights named by `content` from `reader` onto `device`.
    pub fn from_gguf<R: std::io::Seek + std::io::Read>(
        content: &gguf_file::Content,
        reader: &mut R,
        device: &Device,
    ) -> anyhow::Result<Self> {
        let meta = |key: &str| {
            content
                .metadata
                .get(key)
                .with_context(|| format!("the GGUF metadata lacks `{key}`"))
        };
        let architecture = meta("general.architecture")?.to_string()?;
        if architecture != "llama" {
            bail!("expected a `llama` GGUF, found architecture `{architecture}`");
        }
        if content
            .metadata
            .get("llama.expert_count")
            .and_then(|v| v.to_u32().ok())
            .is_some_and(|n| n > 1)
        {
            bail!("mixture-of-experts GGUF files are not supported");
        }
        let count = |key: &str| -> anyhow::Result<usize> { Ok(meta(key)?.to_u32()? as usize) };
        let heads = count("llama.attention.head_count")?;
        let kv_heads = count("llama.attention.head_count_kv")?;
        let blocks = count("llama.block_count")?;
        let width = count("llama.embedding_length")?;
        let rope_dim = count("llama.rope.dimension_count")?;
        let eps = f64::from(meta("llama.attention.layer_norm_rms_epsilon")?.to_f32()?);
        let base = content
            .metadata
            .get("llama.rope.freq_base")
            .and_then(|v| v.to_f32().ok())
            .unwrap_or(10_000.0);
        if heads == 0 || kv_heads == 0 || heads % kv_heads != 0 || width % heads != 0 {
            bail!("inconsistent GGUF shapes: {heads} heads, {kv_heads} key/value heads, width {width}");
        }
        let mut tensor = |name: &str| {
            content
                .tensor(reader, name, device)
                .with_context(|| format!("the GGUF lacks the tensor `{name}`"))
        };
        let token_embd = tensor("token_embd.weight")?;
        let embeddings = token_embd.dequantize(device)?;
        let norm = RmsNorm::from_qtensor(tensor("output_norm.weight")?, eps)?;
        let output = match tensor("output.weight") {
            Ok(weights) => weights,
            // Tied embeddings (SmolLM2): the output matrix is the token embedding.
            Err(_) => token_embd,
        };
        let mut layers = Vec::with_capacity(blocks);
        for b in 0..blocks {
            let mut matmul = |name: &str| -> anyhow::Result<Linear> {
                Linear::new(tensor(&format!("blk.{b}.{name}.weight"))?, device)
            };
            layers.push(Block {
                wq: matmul("attn_q")?,
                wk: matmul("attn_k")?,
                wv: matmul("attn_v")?,
                wo: matmul("attn_output")?,
                gate: matmul("ffn_gate")?,
                up: matmul("ffn_up")?,
                down: matmul("ffn_down")?,
                attn_norm: RmsNorm::from_qtensor(
                    tensor(&format!("blk.{b}.attn_norm.weight"))?,
                    eps,
                )?,
                ffn_norm: RmsNorm::from_qtensor(tensor(&format!("blk.{b}.ffn_norm.weight"))?, eps)?,
                cache: KvCache::default(),
            });
        }
        let (cos, sin) = rotary_table(rope_dim, base, device)?;
        Ok(Self {
            embeddings,
            blocks: layers,
            norm,
            output: Linear::new(output, device)?,
            heads,
            kv_heads,
            head_dim: width / heads,
            cos,
            sin,
        })
    }

    /// Width d of the hidden states.
    pub fn width(&self) -> usize {
        self.heads * self.head_dim
    }

    /// Forgets the cached keys and values: the next pass starts a new sequence at position 0.
    pub fn clear_cache(&mut self) {
        for block in &mut self.blocks {
            block.cache = KvCache::default();
        }
    }

    /// Keeps the cached keys and values of the first `len` positions only: the next pass may
    /// start at position `len`, reusing a prefix it shares with what was fed before.
    pub fn truncate_cache(&mut self, len: usize) -> anyhow::Result<()> {
        for block in &mut self.blocks {
            block.cache.len = block.cache.len.min(len);
        }
        Ok(())
    }

    /// Feeds `tokens` at positions `at`, `at + 1`, … after the cached ones.
    pub fn forward(&mut self, tokens: &[u32], at: usize) -> anyhow::Result<Step> {
        let n = tokens.len();
        if n == 0 {
            bail!("a forward pass needs at least one token");
        }
        if at + n > MAX_POSITIONS {
            bail!(
                "position {} is past the {MAX_POSITIONS} positions the judge covers",
                at + n
            );
        }
        let device = self.embeddings.device().clone();
        let ids = Tensor::new(tokens, &device)?;
        let mask = (n > 1)
            .then(|| build_causal_mask(n, at, &device))
            .transpose()?;
        let cos = self.cos.narrow(0, at, n)?;
        let sin = self.sin.narrow(0, at, n)?;
        let mut h = self.embeddings.index_select(&ids, 0)?.unsqueeze(0)?;
        for b in 0..self.blocks.len() {
            let x = self.blocks[b].attn_norm.forward(&h)?;
            let attended = self.attend(b, &x, mask.as_ref(), &cos, &sin, at)?;
            h = (attended + &h)?;
            let block = &self.blocks[b];
            let x = block.ffn_norm.forward(&h)?;
            let gated =
                (candle_nn::ops::silu(&block.gate.forward(&x)?)? * block.up.forward(&x)?)?;
            h = (block.down.forward(&gated)? + &h)?;
        }
        let hidden = self.norm.forward(&h)?;
        let logits = self
            .output
            .forward(&hidden.i((.., n - 1, ..))?)?
            .squeeze(0)?;
        Ok(Step {
            logits,
            hidden: hidden.squeeze(0)?,
        })
    }

    /// Causal self-attention of block `b` over `x` (1, n, d), extending its cache.
    fn attend(
        &mut self,
        b: usize,
        x: &Tensor,
        mask: Option<&Tensor>,
        cos: &Tensor,
        sin: &Tensor,
        at: usize,
    ) -> anyhow::Result<Tensor> {
        let (_, n, width) = x.dims3()?;
        let (heads, kv_heads, head_dim) = (self.heads, self.kv_heads, self.head_dim);
        let block = &mut self.blocks[b];
        let split = |t: Tensor, count: usize| -> candle_core::Result<Tensor> {
            t.reshape((1, n, count, head_dim))?
                .transpose(1, 2)?
                .contiguous()
        };
        let q = split(block.wq.forward(x)?, heads)?;
        let k = split(block.wk.forward(x)?, kv_heads)?;
        let v = split(block.wv.forward(x)?, kv_heads)?;
        let q = candle_nn::rotary_emb::rope_i(&q, cos, sin)?;
        let k = candle_nn::rotary_emb::rope_i(&k, cos, sin)?;
        let (k, v) = block.cache.extend(&k, &v, at)?;
        // Query head h attends with key/value head h / group: a group's queries are rows of
        // one product with its key/value head, (1, kv heads, group · n, head dim).
        let group = heads / kv_heads;
        let q = q.reshape((1, kv_heads, group * n, head_dim))?;
        let scores = (q.matmul(&k.t()?)? / (head_dim as f64).sqrt())?;
        let scores = match mask {
            Some(mask) => {
                let per_head = scores.reshape((1, heads, n, at + n))?;
                let masked = Tensor::new(f32::NEG_INFINITY, scores.device())?
                    .broadcast_as(per_head.shape())?;
                mask.broadcast_as(per_head.shape())?
                    .where_cond(&masked, &per_head)?
                    .reshape((1, kv_heads, group * n, at + n))?
            }
            None => scores,
        };
        let weights = candle_nn::ops::softmax_last_dim(&scores)?;
        let y = weights
            .matmul(&v)?
            .reshape((1, heads, n, head_dim))?
            .transpose(1, 2)?
            .reshape((1, n, width))?;
        Ok(block.wo.forward(&y)?)
    }
}

/// cos and sin of the rotary angles p · base^(−2i/rope_dim), (positions, rope_dim / 2).
fn rotary_table(rope_dim: usize, base: f32, device: &Device) -> anyhow::Result<(Tensor, Tensor)> {
    let inverse: Vec<f32> = (0..rope_dim)
        .step_by(2)
        .map(|i| 1.0 / base.powf(i as f32 / rope_dim as f32))
        .collect();
    let inverse = Tensor::new(inverse.as_slice(), device)?.reshape((1, rope_dim / 2))?;
    let positions = Tensor::arange(0, MAX_POSITIONS as u32, device)?
        .to_dtype(DType::F32)?
        .reshape((MAX_POSITIONS, 1))?;
    let angles = positions.matmul(&inverse)?;
    Ok((angles.cos()?, angles.sin()?))
}

/// The mean of the rows of `hidden` (tokens, d) as a vector.
pub fn mean_row(hidden: &Tensor) -> anyhow::Result<Vec<f32>> {
    Ok(hidden
        .to_dtype(DType::F32)?
        .mean(D::Minus2)?
        .to_vec1::<f32>()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ModelPaths;
    use candle_transformers::models::quantized_llama::ModelWeights;

    fn load() -> (gguf_file::Content, std::fs::File) {
        let path =
            ModelPaths::under(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models"))
                .smollm2;
        let mut file = std::fs::File::open(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run scripts/setup.sh)", path.display()));
        let content = gguf_file::Content::read(&mut file).expect("a GGUF file");
        (content, file)
    }

    fn max_abs_difference(a: &Tensor, b: &Tensor) -> f32 {
        (a - b)
            .and_then(|d| d.abs()?.max_all()?.to_scalar::<f32>())
            .expect("same shapes")
    }

    /// The decoder's logits equal candle's `quantized_llama` on the same weights, through a
    /// prefill, single-token steps and a multi-token step after them (the forced verdict
    /// suffix); the hidden states of single steps equal those of one pass over all tokens.
    /// The weights are dequantised to f32 as the local judge loads them on the CPU (candle's
    /// Q4_1 kernels round differently for different numbers of rows).
    #[test]
    fn logits_equal_candles_quantized_llama_and_steps_equal_one_pass() {
        std::env::set_var("CANDLE_DEQUANTIZE_ALL", "1");
        let (content, mut file) = load();
        let mut ours = Llama::from_gguf(&content, &mut file, &Device::Cpu).unwrap();
        let (content_again, mut file_again) = load();
        let mut reference =
            ModelWeights::from_gguf(content_again, &mut file_again, &Device::Cpu).unwrap();
        let prompt: Vec<u32> = vec![1, 9690, 198, 2683, 359, 253, 5356, 11173, 30, 2, 198, 1];
        let steps: [&[u32]; 4] = [&[504], &[2375], &[314, 2707, 30], &[216]];
        let mut fed = prompt.clone();
        let first = ours.forward(&prompt, 0).unwrap();
        let want = reference
            .forward(
                &Tensor::new(prompt.as_slice(), &Device::Cpu)
                    .unwrap()
                    .unsqueeze(0)
                    .unwrap(),
                0,
            )
            .unwrap()
            .squeeze(0)
            .unwrap();
        assert!(max_abs_difference(&first.logits, &want) < 1e-4);
        let mut hidden = vec![first.hidden];
        for tokens in steps {
            let at = fed.len();
            let step = ours.forward(tokens, at).unwrap();
            let want = reference
                .forward(
                    &Tensor::new(tokens, &Device::Cpu)
                        .unwrap()
                        .unsqueeze(0)
                        .unwrap(),
                    at,
                )
                .unwrap()
                .squeeze(0)
                .unwrap();
            let gap = max_abs_difference(&step.logits, &want);
            assert!(gap < 1e-4, "at {at}: logits differ by {gap}");
            hidden.push(step.hidden);
            fed.extend_from_slice(tokens);
        }
        assert_eq!(ours.width(), 576);
        let stepped = Tensor::cat(&hidden, 0).unwrap();
        ours.clear_cache();
        let whole = ours.forward(&fed, 0).unwrap().hidden;
        assert_eq!(whole.dims(), &[fed.len(), 576]);
        let scale = whole
            .abs()
            .unwrap()
            .max_all()
            .unwrap()
            .to_scalar::<f32>()
            .unwrap();
        let gap = max_abs_difference(&stepped, &whole);
        assert!(
            gap < 1e-4 * scale,
            "stepped vs one pass: {gap} (scale {scale})"
        );
    }
}
