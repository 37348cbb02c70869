//! The BERT encoder of [`super::bert`] on the CPU, on plain buffers instead of tensors: the
//! encoder [`super::embedder`] runs when its device is the CPU.
//!
//! Model: the same as [`super::bert::Bert::forward`] (embeddings and a layer norm, then per
//! layer self-attention, a residual layer norm, the feed-forward block and a residual layer
//! norm), computed on each text's own tokens only. Padding never enters: a padded position's
//! key gets weight e^{−∞} = 0 in the tensor encoder, so its real tokens' states are the same,
//! and the padded rows themselves are not pooled.
//!
//! How it is fast on a CPU (see BENCHMARKS.md, "Embeddings"):
//! - the weights are packed once, at load, into the panels [`super::sgemm`]'s kernels read;
//! - the tokens of all texts are the rows of each projection, in blocks of [`BLOCK_ROWS`]
//!   rows spread over the threads;
//! - a block's output projection ends in its residual layer norm, and its feed-forward block
//!   (up-projection, activation, down-projection, residual layer norm) runs within the block,
//!   so the 4·hidden-wide activations never leave the core's cache;
//! - attention runs text by text in parallel, head after head, on the text's length only;
//! - the buffers are kept between batches (no fresh pages for each).
//!
//! Arguments: a loaded [`Bert`]; per text its token ids and token types.
//!
//! Returns: the last hidden states of every text's tokens, text after text ((Σ lengths) ×
//! width).
//!
//! Errors: a token id, token type or position beyond the model's tables.

use super::bert::{self, Bert};
use super::sgemm::{product, Kernel, Panels};
use super::vector_math::{gelu, gelu_tanh, residual_norm, softmax};
use anyhow::bail;
use candle_core::Tensor;
use candle_transformers::models::bert::HiddenAct;
use rayon::prelude::*;
use std::sync::Mutex;

/// A text's token ids and token types.
pub type Tokens<'a> = (&'a [u32], &'a [u32]);

/// Token rows one parallel task computes.
const BLOCK_ROWS: usize = 96;

fn values(t: &Tensor) -> anyhow::Result<Vec<f32>> {
    Ok(t.flatten_all()?.to_vec1::<f32>()?)
}

struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
    eps: f32,
}

impl Norm {
    fn new(norm: &bert::Norm) -> anyhow::Result<Self> {
        Ok(Self {
            weight: values(&norm.weight)?,
            bias: values(&norm.bias)?,
            eps: norm.eps,
        })
    }

    /// `x ← LayerNorm(x + residual)`, row by row.
    fn apply(&self, kernel: Kernel, x: &mut [f32], residual: &[f32]) {
        let width = self.weight.len();
        for (x, r) in x.chunks_exact_mut(width).zip(residual.chunks_exact(width)) {
            residual_norm(kernel, x, r, &self.weight, &self.bias, self.eps);
        }
    }
}

struct Linear {
    panels: Panels,
    bias: Vec<f32>,
}

impl Linear {
    fn new(projection: &bert::Projection) -> anyhow::Result<Self> {
        let (inputs, outputs) = projection.weight_t.dims2()?;
        let mut panels = Panels::default();
        panels.pack(&values(&projection.weight_t)?, inputs, outputs, outputs, 1);
        Ok(Self {
            panels,
            bias: values(&projection.bias)?,
        })
    }

    /// `out = x · W + b` for the rows of `x`.
    fn apply(&self, kernel: Kernel, x: &[f32], out: &mut [f32]) {
        let (k, n) = (self.panels.k(), self.panels.n());
        product(
            kernel,
            x,
            k,
            x.len() / k,
            &self.panels,
            Some(&self.bias),
            out,
            n,
        );
    }
}

struct Layer {
    qkv: Linear,
    output: Linear,
    attention_norm: Norm,
    intermediate: Linear,
    down: Linear,
    output_norm: Norm,
}

/// The buffers a forward pass writes, kept between passes.
#[derive(Default)]
struct Buffers {
    x: Vec<f32>,
    qkv: Vec<f32>,
    context: Vec<f32>,
    next: Vec<f32>,
}

/// A BERT encoder packed for the CPU.
pub struct CpuBert {
    kernel: Kernel,
    words: Vec<f32>,
    positions: Vec<f32>,
    types: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
    heads: usize,
    activation: HiddenAct,
    width: usize,
    buffers: Mutex<Buffers>,
}

impl CpuBert {
    /// Packs `model`'s weights for the CPU this runs on.
    pub fn new(model: &Bert) -> anyhow::Result<Self> {
        let layers = model
            .layers
            .iter()
            .map(|l| {
                Ok(Layer {
                    qkv: Linear::new(&l.qkv)?,
                    output: Linear::new(&l.output)?,
                    attention_norm: Norm::new(&l.attention_norm)?,
                    intermediate: Linear::new(&l.intermediate)?,
                    down: Linear::new(&l.down)?,
                    output_norm: Norm::new(&l.output_norm)?,
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Self {
            kernel: Kernel::detect(),
            words: values(model.words.embeddings())?,
            positions: values(&model.positions)?,
            types: values(model.types.embeddings())?,
            embedding_norm: Norm::new(&model.embedding_norm)?,
            layers,
            heads: model.heads,
            activation: model.activation,
            width: model.width,
            buffers: Mutex::new(Buffers::default()),
        })
    }

    /// The last hidden states of `texts` (each its token ids and token types), text after
    /// text: (Σ lengths) × width.
    pub fn forward(&self, texts: &[Tokens]) -> anyhow::Result<Vec<f32>> {
        let d = self.width;
        let total: usize = texts.iter().map(|(ids, _)| ids.len()).sum();
        let mut guard = self.buffers.lock().unwrap_or_else(|e| e.into_inner());
        let Buffers {
            x,
            qkv,
            context,
            next,
        } = &mut *guard;
        for (buffer, width) in [
            (&mut *x, d),
            (&mut *qkv, 3 * d),
            (&mut *context, d),
            (&mut *next, d),
        ] {
            buffer.clear();
            buffer.resize(total * width, 0.0);
        }
        let mut row = 0;
        for (k, (ids, types)) in texts.iter().enumerate() {
            if ids.len() != types.len() {
                bail!(
                    "text {k}: {} token ids but {} token types",
                    ids.len(),
                    types.len()
                );
            }
            for (p, (&id, &ty)) in ids.iter().zip(*types).enumerate() {
                let table = |t: &[f32], i: usize, what: &str| -> anyhow::Result<usize> {
                    if (i + 1) * d > t.len() {
                        bail!(
                            "text {k}, token {p}: {what} {i} is beyond the model's {}",
                            t.len() / d
                        );
                    }
                    Ok(i * d)
                };
                let (w, t, q) = (
                    table(&self.words, id as usize, "token id")?,
                    table(&self.types, ty as usize, "token type")?,
                    table(&self.positions, p, "position")?,
                );
                for (j, v) in x[row * d..(row + 1) * d].iter_mut().enumerate() {
                    *v = (self.words[w + j] + self.types[t + j]) + self.positions[q + j];
                }
                row += 1;
            }
        }
        let zeros = vec![0.0; d];
        x.par_chunks_mut(d).for_each(|x| {
            residual_norm(
                self.kernel,
                x,
                &zeros,
                &self.embedding_norm.weight,
                &self.embedding_norm.bias,
                self.embedding_norm.eps,
            )
        });
        let spans: Vec<(usize, usize)> = texts
            .iter()
            .scan(0, |start, (ids, _)| {
                let span = (*start, ids.len());
                *start += ids.len();
                Some(span)
            })
            .collect();
        for layer in &self.layers {
            self.project(&layer.qkv, x, qkv);
            self.attend(qkv, &spans, context);
            // next = LayerNorm(context · W_o + b_o + x)
            next.par_chunks_mut(BLOCK_ROWS * d)
                .zip(context.par_chunks(BLOCK_ROWS * d))
                .zip(x.par_chunks(BLOCK_ROWS * d))
                .for_each(|((next, context), x)| {
                    layer.output.apply(self.kernel, context, next);
                    layer.attention_norm.apply(self.kernel, next, x);
                });
            std::mem::swap(x, next);
            // next = LayerNorm(act(x · W_i + b_i) · W_d + b_d + x)
            let inner = layer.intermediate.panels.n();
            next.par_chunks_mut(BLOCK_ROWS * d)
                .zip(x.par_chunks(BLOCK_ROWS * d))
                .for_each_init(Vec::new, |hidden: &mut Vec<f32>, (next, x)| {
                    hidden.clear();
                    hidden.resize(x.len() / d * inner, 0.0);
                    layer.intermediate.apply(self.kernel, x, hidden);
                    match self.activation {
                        HiddenAct::Gelu => gelu(self.kernel, hidden),
                        HiddenAct::GeluApproximate => gelu_tanh(self.kernel, hidden),
                        HiddenAct::Relu => hidden.iter_mut().for_each(|v| *v = v.max(0.0)),
                    }
                    layer.down.apply(self.kernel, hidden, next);
                    layer.output_norm.apply(self.kernel, next, x);
                });
            std::mem::swap(x, next);
        }
        Ok(x.clone())
    }

    /// `out = x · W + b`, blocks of rows in parallel.
    fn project(&self, linear: &Linear, x: &[f32], out: &mut [f32]) {
        let (k, n) = (linear.panels.k(), linear.panels.n());
        out.par_chunks_mut(BLOCK_ROWS * n)
            .zip(x.par_chunks(BLOCK_ROWS * k))
            .for_each(|(out, x)| linear.apply(self.kernel, x, out));
    }

    /// Self-attention of each text's tokens (`spans`: first row, length) from the query (scaled
    /// by 1/√d_h), key and value rows in `qkv`, heads side by side in `context`.
    fn attend(&self, qkv: &[f32], spans: &[(usize, usize)], context: &mut [f32]) {
        let d = self.width;
        let dh = d / self.heads;
        let mut parts = Vec::with_capacity(spans.len());
        let mut rest = context;
        for &(_, n) in spans {
            let (part, tail) = rest.split_at_mut(n * d);
            parts.push(part);
            rest = tail;
        }
        parts.into_par_iter().zip(spans.par_iter()).for_each_init(
            || (Vec::new(), Panels::default(), Panels::default()),
            |(scores, keys, vals), (out, &(start, n))| {
                let rows = &qkv[start * 3 * d..(start + n) * 3 * d];
                scores.clear();
                scores.resize(n * n, 0.0);
                for h in 0..self.heads {
                    // scores = Q_h · K_hᵀ, row-wise softmax, then · V_h.
                    keys.pack(&rows[d + h * dh..], dh, n, 1, 3 * d);
                    product(
                        self.kernel,
                        &rows[h * dh..],
                        3 * d,
                        n,
                        keys,
                        None,
                        scores,
                        n,
                    );
                    for row in scores.chunks_exact_mut(n) {
                        softmax(self.kernel, row);
                    }
                    vals.pack(&rows[2 * d + h * dh..], n, dh, 3 * d, 1);
                    product(self.kernel, scores, n, n, vals, None, &mut out[h * dh..], d);
                }
            },
        );
    }
}
