//! K-way BTL2 judge via the Plackett–Luce model, seed 000 App. C.1. Each of the K responses of a
//! list has the absolute judge's rationale embedding φ(e_k) and score b_k > 0. Training
//! maximises the probability of the observed permutation; inference is a categorical over the K
//! responses:
//!
//! ```text
//! P(order) = ∏_{k=1}^{K−1} exp[(φ(e_k) ⊕ log b_k)ᵀθ] / Σ_{i=k}^{K} exp[(φ(e_i) ⊕ log b_i)ᵀθ]
//! L(θ)     = −Σ_lists log P(order) + γ‖θ‖²
//! p(k)     = exp[(φ(e_k) ⊕ log b_k)ᵀθ] / Σ_{i=1}^{K} exp[(φ(e_i) ⊕ log b_i)ᵀθ]
//! ```
//!
//! A list is given in the observed (human) order, best first. The seed appends b_k; this head
//! appends log b_k, so that at θ = 0_d ⊕ 1 the categorical is b_k / Σ_i b_i, the K-way form of
//! BTL2's p = b₁/(b₁ + b₂): that point is the base judge, and with K = 2 the likelihood is
//! BTL2's at c = 0, exp(u₁)/(exp(u₁) + exp(u₂)) = μ((φ(e₁) − φ(e₂) ⊕ log(b₁/b₂))ᵀθ). There is
//! no population bias (a common shift cancels in every ratio). The scaler is fitted on every
//! training response's embedding.
//!
//! Solved by L-BFGS from the base judge (`glm`), the embedding reduced to its row space when d
//! exceeds the number of responses.
//!
//! Arguments: [`PlackettLuceData`] (ranked lists) and [`PlackettLuceParams`]. Returns:
//! [`PlackettLuceHead`]. Errors: [`Error::InvalidParam`] for invalid settings;
//! [`Error::Insufficient`] for no lists; located [`Error::Input`] (source `lists[i].…`, 1-based
//! list number, line = response) for a list of fewer than two responses, ragged or non-finite
//! embeddings, scores ≤ 0 and lists of different lengths.

use crate::calibration::features::{
    self, BaseSignal, Dim, FeatureSpec, Scaler, DEFAULT_PROBABILITY_FLOOR,
};
use crate::calibration::glm::{
    self, check_gamma, log_sum_exp, Block, FitReport, Loss, SolverParams,
};
use crate::calibration::head::{pick, Fnv1a, HeadParams, Rows};
use crate::calibration::ls_head::{check_finite, check_weights};
use crate::io::error::{Error, Location, Result};
use ndarray::{s, Array2, ArrayView1, ArrayViewMut1};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// One list of responses with the absolute judge's evaluations, in the human's order (best
/// first) for training; in any order for prediction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankedList {
    /// φ(e_k), one per response.
    pub embeddings: Vec<Vec<f64>>,
    /// b_k > 0, one per response.
    pub scores: Vec<f64>,
}

/// Training lists of a K-way head (K may differ between lists).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlackettLuceData {
    pub lists: Vec<RankedList>,
}

impl Rows for PlackettLuceData {
    /// Number of lists.
    fn len(&self) -> usize {
        self.lists.len()
    }

    /// The lists at `idx`, in that order.
    fn select(&self, idx: &[usize]) -> Self {
        Self {
            lists: pick(&self.lists, idx),
        }
    }

    fn write_canonical(&self, h: &mut Fnv1a) {
        h.write_str("plackett_luce");
        h.write_u64(self.lists.len() as u64);
        for list in &self.lists {
            h.write_rows(&list.embeddings);
            h.write_f64s(&list.scores);
        }
    }
}

/// Settings of a K-way head.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PlackettLuceParams {
    /// L2 penalty γ > 0 (set by cross-validation in practice).
    pub gamma: f64,
    /// Standardise embeddings on the training responses.
    pub standardize: bool,
    pub solver: SolverParams,
}

impl Default for PlackettLuceParams {
    fn default() -> Self {
        Self {
            gamma: 1.0,
            standardize: true,
            solver: SolverParams::default(),
        }
    }
}

/// A fitted K-way head.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlackettLuceHead {
    pub spec: FeatureSpec,
    pub scaler: Scaler,
    /// θ on the standardised embedding, d values.
    pub weights: Vec<f64>,
    /// θ on log b.
    pub base_weight: f64,
    pub gamma: f64,
    pub report: FitReport,
}

/// log P(order) of linear scores `u` listed in the observed order:
/// Σ_{k<K} [u_k − log Σ_{i≥k} exp u_i]. 0 for fewer than two entries.
pub fn log_likelihood(u: &[f64]) -> f64 {
    stage_log_sums(u)
        .iter()
        .zip(u)
        .map(|(lse, uk)| uk - lse)
        .sum()
}

/// log Σ_{i≥k} exp u_i for the K − 1 choice stages k.
fn stage_log_sums(u: &[f64]) -> Vec<f64> {
    (0..u.len().saturating_sub(1))
        .map(|k| log_sum_exp(&u[k..]))
        .collect()
}

/// Every response's raw embedding and log b, stacked, with each list's range.
struct Stacked {
    x: Array2<f64>,
    log_b: Vec<f64>,
    ranges: Vec<Range<usize>>,
}

fn stack(lists: &[RankedList], dim: Option<usize>) -> Result<Stacked> {
    let mut blocks = Vec::with_capacity(lists.len());
    let mut log_b = Vec::new();
    let mut ranges = Vec::with_capacity(lists.len());
    let mut expected = dim;
    for (l, list) in lists.iter().enumerate() {
        let k = list.embeddings.len();
        if dim.is_none() && k < 2 {
            return Err(Error::input(
                Location::line("lists", l as u64 + 1),
                format!("expected a ranked list of at least 2 responses, found {k}"),
            ));
        }
        let rule = match (dim, expected) {
            (Some(d), _) => Dim::Training(d),
            (None, Some(d)) => Dim::SameAs(d, "the first embedding"),
            (None, None) => Dim::FirstRow,
        };
        let block =
            features::embedding_matrix(&format!("lists[{l}].embeddings"), &list.embeddings, rule)?;
        expected = Some(block.ncols());
        let source = format!("lists[{l}].scores");
        features::check_length(&source, list.scores.len(), k)?;
        log_b.extend(features::log_scores(&source, &list.scores)?);
        ranges.push(log_b.len() - k..log_b.len());
        blocks.push(block);
    }
    let d = expected.unwrap_or(0);
    let mut x = Array2::zeros((log_b.len(), d));
    for (block, range) in blocks.iter().zip(&ranges) {
        x.slice_mut(s![range.clone(), ..]).assign(block);
    }
    Ok(Stacked { x, log_b, ranges })
}

impl HeadParams for PlackettLuceParams {
    type Data = PlackettLuceData;
    type Fitted = PlackettLuceHead;

    fn gamma(&self) -> f64 {
        self.gamma
    }

    fn validate(&self) -> Result<()> {
        check_gamma(self.gamma)?;
        self.solver.validate()
    }

    /// Fits the head at every γ in `gammas` (in that order), warm-starting down the grid.
    fn fit_path(&self, data: &PlackettLuceData, gammas: &[f64]) -> Result<Vec<PlackettLuceHead>> {
        self.validate()?;
        for &gamma in gammas {
            check_gamma(gamma)?;
        }
        if data.is_empty() {
            return Err(Error::Insufficient(
                "the K-way head needs at least one ranked list, found none".into(),
            ));
        }
        let Stacked {
            mut x,
            log_b,
            ranges,
        } = stack(&data.lists, None)?;
        let scaler = Scaler::fit(&x, self.standardize);
        scaler.apply(&mut x);
        let d = x.ncols();
        let block = Block::new(x);
        let design = block.design();
        let q = design.ncols();
        let loss = PlackettLuceLoss {
            x: design,
            log_b: &log_b,
            lists: &ranges,
        };
        let mut identity = vec![0.0; q + 1];
        identity[q] = 1.0;
        let spec = FeatureSpec {
            embedding_dim: d,
            standardize: self.standardize,
            base: BaseSignal::LogScore,
            probability_floor: DEFAULT_PROBABILITY_FLOOR,
        };
        Ok(
            glm::solve_path(&loss, identity, gammas, &self.solver, block.is_reduced())
                .into_iter()
                .zip(gammas)
                .map(|(solution, &gamma)| PlackettLuceHead {
                    spec: spec.clone(),
                    scaler: scaler.clone(),
                    weights: block.weights(&solution.w[..q]).0,
                    base_weight: solution.w[q],
                    gamma,
                    report: solution.report,
                })
                .collect(),
        )
    }

    fn validation_loss(fitted: &PlackettLuceHead, data: &PlackettLuceData) -> Result<f64> {
        fitted.log_loss(data)
    }
}

impl PlackettLuceHead {
    /// The categorical p(k) over each list's responses.
    ///
    /// # Errors
    /// Located [`Error::Input`] for an embedding whose dimension differs from the training
    /// embeddings', scores ≤ 0, or lists of different lengths.
    pub fn predict(&self, lists: &[RankedList]) -> Result<Vec<Vec<f64>>> {
        let (u, ranges) = self.linear_scores(lists)?;
        Ok(ranges
            .into_iter()
            .map(|r| {
                let lse = log_sum_exp(&u[r.clone()]);
                u[r].iter().map(|v| (v - lse).exp()).collect()
            })
            .collect())
    }

    /// Mean −log P(order) over lists in the observed order (the CV validation loss).
    pub fn log_loss(&self, data: &PlackettLuceData) -> Result<f64> {
        let (u, ranges) = self.linear_scores(&data.lists)?;
        let total: f64 = ranges.into_iter().map(|r| -log_likelihood(&u[r])).sum();
        Ok(total / data.len().max(1) as f64)
    }

    fn linear_scores(&self, lists: &[RankedList]) -> Result<(Vec<f64>, Vec<Range<usize>>)> {
        let Stacked {
            mut x,
            log_b,
            ranges,
        } = stack(lists, Some(self.spec.embedding_dim))?;
        self.scaler.apply(&mut x);
        let theta = ArrayView1::from(&self.weights);
        let u = x
            .rows()
            .into_iter()
            .zip(&log_b)
            .map(|(row, &lb)| row.dot(&theta) + self.base_weight * lb)
            .collect();
        Ok((u, ranges))
    }

    /// Checks the shapes and values of a head read from a file.
    pub fn validate(&self) -> Result<()> {
        self.spec.validate()?;
        self.scaler.validate(self.spec.embedding_dim)?;
        check_weights(&self.weights, self.spec.embedding_dim)?;
        check_finite("base_weight", &[self.base_weight])?;
        check_gamma(self.gamma)
    }
}

/// −Σ_lists log P(order) with u = xᵀθ + θ_b log b, over w = θ ⊕ θ_b.
struct PlackettLuceLoss<'a> {
    x: &'a Array2<f64>,
    log_b: &'a [f64],
    lists: &'a [Range<usize>],
}

impl Loss for PlackettLuceLoss<'_> {
    fn units(&self) -> usize {
        self.lists.len()
    }

    fn is_penalised(&self, _: usize) -> bool {
        true
    }

    fn value_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let q = self.x.ncols();
        let theta = ArrayView1::from(&w[..q]);
        let u: Vec<f64> = self
            .x
            .rows()
            .into_iter()
            .zip(self.log_b)
            .map(|(row, &lb)| row.dot(&theta) + w[q] * lb)
            .collect();
        // ∂(−log P)/∂u_i = Σ_{stages k ≤ i} exp(u_i − lse_k) − [i is chosen at a stage].
        let mut r = vec![0.0; u.len()];
        let mut value = 0.0;
        for range in self.lists {
            let ul = &u[range.clone()];
            let rl = &mut r[range.clone()];
            for (k, lse) in stage_log_sums(ul).into_iter().enumerate() {
                value += lse - ul[k];
                for (ri, ui) in rl[k..].iter_mut().zip(&ul[k..]) {
                    *ri += (ui - lse).exp();
                }
                rl[k] -= 1.0;
            }
        }
        grad.fill(0.0);
        let (head, tail) = grad.split_at_mut(q);
        let mut g_theta = ArrayViewMut1::from(head);
        for ((row, &ri), &lb) in self.x.rows().into_iter().zip(&r).zip(self.log_b) {
            g_theta.scaled_add(ri, &row);
            tail[0] += ri * lb;
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_way_likelihood_by_hand() {
        // Strengths 3, 2, 1 in the observed order: P = 3/6 · 2/3 = 1/3.
        let u = [3f64.ln(), 2f64.ln(), 0.0];
        assert!((log_likelihood(&u) - (1.0f64 / 3.0).ln()).abs() < 1e-15);
        // The reverse order: 1/6 · 2/5.
        let v = [0.0, 2f64.ln(), 3f64.ln()];
        assert!((log_likelihood(&v) - (1.0f64 / 15.0).ln()).abs() < 1e-15);
        assert_eq!(log_likelihood(&[1.0]), 0.0);
    }

    #[test]
    fn short_lists_are_located() {
        let data = PlackettLuceData {
            lists: vec![
                RankedList {
                    embeddings: vec![vec![1.0], vec![0.0]],
                    scores: vec![1.0, 2.0],
                },
                RankedList {
                    embeddings: vec![vec![1.0]],
                    scores: vec![1.0],
                },
            ],
        };
        let err = PlackettLuceParams::default().fit(&data).unwrap_err();
        assert_eq!(
            err.to_string(),
            "lists, line 2: expected a ranked list of at least 2 responses, found 1"
        );
    }
}
