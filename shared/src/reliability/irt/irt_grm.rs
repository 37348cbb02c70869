//! Graded response model (GRM) for a judge rated under several prompt variants, fitted by
//! marginal maximum a posteriori estimation with EM over Gauss–Hermite quadrature.
//!
//! Model (seed 003, Eq. 1): item j (an evaluated output) has latent quality θⱼ; prompt variant
//! p (or annotator) gives it a score Y_pj whose cumulative probabilities are
//!
//! ```text
//! P(Y_pj ≥ k | θⱼ) = 1 / (1 + exp(−α_p (θⱼ − β_pk))),   β_p1 < β_p2 < … (ordered thresholds)
//! ```
//!
//! so P(Y_pj = k) = P(Y_pj ≥ k) − P(Y_pj ≥ k + 1). With two categories this is the 2PL model.
//! Priors (seed 003, §3.1): θⱼ ~ N(0, 1), α_p ~ LogNormal(0, 0.5), β_pk ~ N(0, 1) with the
//! ordered constraint.
//!
//! Estimation. θ is integrated out over its N(0, 1) prior with an n-point Gauss–Hermite rule
//! ([`crate::math::quadrature`]), and (α_p, β_p) maximise the marginal log-likelihood plus the log
//! prior by EM: the E-step forms, per variant, the expected number of items in each category
//! at each quadrature node (the sufficient statistics of the M-step, so an M-step costs
//! O(categories × nodes), not O(items)); the M-step runs Newton's method per variant in the
//! unconstrained coordinates (ln α_p, β_p1, ln(β_p2 − β_p1), …), which keep the thresholds
//! ordered. EM's slow linear convergence is accelerated by SQUAREM (Varadhan & Roland 2008:
//! two EM steps, a squared extrapolation, one stabilising EM step, and a fallback to plain EM
//! when the extrapolation lowers the log posterior), which cuts the EM steps three- to
//! five-fold. The α prior enters as ln α_p ~ N(0, 0.5²), so the estimate is the posterior mode
//! in ln α (with no data, α = 1, the prior median). Either prior can be switched off
//! ([`GrmParams::log_alpha_prior`], [`GrmParams::threshold_prior`]) for a plain marginal
//! maximum likelihood fit. After convergence each item gets its expected a posteriori (EAP)
//! mean θ̂ⱼ and posterior variance σⱼ², the inputs of [`crate::reliability::irt::irt_reliability`].
//!
//! Unused categories. Categories are the distinct scores a variant actually gave; a score of
//! the scale that the variant never used is collapsed away (the variant gets fewer thresholds,
//! seed 003 §3.2), and [`VariantFit::unused_categories`] and [`GrmFit::notes`] say so. A variant
//! that gave one score only carries no information on θ and is left out of the likelihood.
//! The notes name variants by column number and scores by number; [`GrmFit::notes_with`] words
//! them with the caller's names (a file's variant names, the labels of nominal codes).
//!
//! Arguments: a [`RatingMatrix`] (items × variants, missing cells allowed) and [`GrmParams`].
//! Returns: [`GrmFit`]. Errors: [`Error::InvalidParam`] for invalid settings;
//! [`Error::Input`] for a score outside the declared [`RatingScale`] (located by item row and
//! variant column of the matrix); [`Error::Insufficient`] when no variant used two or more
//! scores.

use crate::io::checks::{at_least_one, positive};
use crate::io::error::{Error, Location, Result};
use crate::math::linalg::cholesky_solve;
use crate::math::logistic::{sigmoid, softplus};
use crate::math::quadrature::standard_normal;
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

/// Scores of items (rows) under prompt variants or raters (columns); `None` is a missing
/// rating. The invariant `cells.len() == n_items × n_variants` is checked on construction
/// and deserialisation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RatingMatrixData", into = "RatingMatrixData")]
pub struct RatingMatrix {
    n_items: usize,
    n_variants: usize,
    cells: Vec<Option<u32>>,
}

#[derive(Serialize, Deserialize)]
struct RatingMatrixData {
    n_items: usize,
    n_variants: usize,
    cells: Vec<Option<u32>>,
}

impl TryFrom<RatingMatrixData> for RatingMatrix {
    type Error = Error;
    fn try_from(data: RatingMatrixData) -> Result<Self> {
        Self::new(data.n_items, data.n_variants, data.cells)
    }
}

impl From<RatingMatrix> for RatingMatrixData {
    fn from(m: RatingMatrix) -> Self {
        Self {
            n_items: m.n_items,
            n_variants: m.n_variants,
            cells: m.cells,
        }
    }
}

impl RatingMatrix {
    /// A matrix from row-major cells (item 0's variants first).
    ///
    /// # Errors
    /// [`Error::InvalidParam`] when `cells` does not hold `n_items × n_variants` entries.
    pub fn new(n_items: usize, n_variants: usize, cells: Vec<Option<u32>>) -> Result<Self> {
        if n_items.checked_mul(n_variants) != Some(cells.len()) {
            return Err(Error::param(
                "cells",
                format!(
                    "expected {n_items} items × {n_variants} variants = {} cells, found {}",
                    n_items.saturating_mul(n_variants),
                    cells.len()
                ),
            ));
        }
        Ok(Self {
            n_items,
            n_variants,
            cells,
        })
    }

    /// A matrix from one row per item.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] when the rows differ in length.
    pub fn from_rows(rows: &[Vec<Option<u32>>]) -> Result<Self> {
        let n_variants = rows.first().map_or(0, Vec::len);
        if let Some((i, row)) = rows.iter().enumerate().find(|(_, r)| r.len() != n_variants) {
            return Err(Error::param(
                "rows",
                format!(
                    "expected every row to have {n_variants} variants like row 1, row {} has {}",
                    i + 1,
                    row.len()
                ),
            ));
        }
        Self::new(rows.len(), n_variants, rows.concat())
    }

    pub fn n_items(&self) -> usize {
        self.n_items
    }

    pub fn n_variants(&self) -> usize {
        self.n_variants
    }

    /// The score of `item` under `variant`, `None` when missing or out of range.
    pub fn get(&self, item: usize, variant: usize) -> Option<u32> {
        if item < self.n_items && variant < self.n_variants {
            self.cells[item * self.n_variants + variant]
        } else {
            None
        }
    }

    /// The column of `variant`: one entry per item.
    pub fn variant_scores(&self, variant: usize) -> Vec<Option<u32>> {
        (0..self.n_items).map(|i| self.get(i, variant)).collect()
    }
}

/// A normal prior N(mean, sd²).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NormalPrior {
    pub mean: f64,
    pub sd: f64,
}

/// The most values a declared [`RatingScale`] may span.
pub const MAX_SCALE_VALUES: u32 = 1001;

/// The declared rating scale, inclusive (e.g. 1–5). Used to report the scores a variant never
/// used and to reject scores outside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingScale {
    pub min: u32,
    pub max: u32,
}

impl std::str::FromStr for RatingScale {
    type Err = String;

    /// `MIN,MAX`, two whole numbers, e.g. `1,5`.
    fn from_str(text: &str) -> std::result::Result<Self, String> {
        match text.split(',').map(str::trim).collect::<Vec<_>>()[..] {
            [lo, hi] => match (lo.parse::<u32>(), hi.parse::<u32>()) {
                (Ok(min), Ok(max)) => Ok(Self { min, max }),
                _ => Err(format!(
                    "expected two whole numbers `MIN,MAX`, found `{text}`"
                )),
            },
            _ => Err(format!("expected `MIN,MAX`, found `{text}`")),
        }
    }
}

/// Settings of a GRM fit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct GrmParams {
    /// Gauss–Hermite nodes for the integral over θ ~ N(0, 1).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = GrmParams::default().quadrature_nodes, allow_negative_numbers = true)
    )]
    pub quadrature_nodes: usize,
    /// Prior on ln α_p; seed 003 uses α ~ LogNormal(0, 0.5), i.e. N(0, 0.5²). `None`: flat.
    #[cfg_attr(feature = "cli", arg(skip = GrmParams::default().log_alpha_prior))]
    pub log_alpha_prior: Option<NormalPrior>,
    /// Prior on each threshold β_pk; seed 003 uses N(0, 1). `None`: flat.
    #[cfg_attr(feature = "cli", arg(skip = GrmParams::default().threshold_prior))]
    pub threshold_prior: Option<NormalPrior>,
    /// The declared rating scale `MIN,MAX` (whole numbers, at most [`MAX_SCALE_VALUES`]
    /// values): scores of it a variant never gave are reported, scores outside it rejected.
    /// `None`: the scores that any variant gave.
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "range",
            id = "range",
            value_name = "MIN,MAX",
            allow_hyphen_values = true
        )
    )]
    pub scale: Option<RatingScale>,
    /// Most EM steps (each SQUAREM cycle takes three).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = GrmParams::default().max_iter, allow_negative_numbers = true)
    )]
    pub max_iter: usize,
    /// Converged when an EM step moves no α or β by more than this.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = GrmParams::default().tol, allow_negative_numbers = true)
    )]
    pub tol: f64,
}

impl Default for GrmParams {
    fn default() -> Self {
        Self {
            quadrature_nodes: 41,
            log_alpha_prior: Some(NormalPrior { mean: 0.0, sd: 0.5 }),
            threshold_prior: Some(NormalPrior { mean: 0.0, sd: 1.0 }),
            scale: None,
            max_iter: 2000,
            tol: 1e-8,
        }
    }
}

/// The fitted parameters of one prompt variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantFit {
    /// The scores this variant gave, ascending: model category k is score `categories[k]`.
    pub categories: Vec<u32>,
    /// Scores of the scale this variant never gave (collapsed away).
    pub unused_categories: Vec<u32>,
    /// Items this variant rated.
    pub n_ratings: usize,
    /// Discrimination α_p; `None` when the variant gave a single score (no information on θ).
    pub alpha: Option<f64>,
    /// Ordered thresholds: `thresholds[k]` is β for P(Y ≥ `categories[k + 1]`).
    pub thresholds: Vec<f64>,
}

/// A fitted graded response model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GrmFit {
    pub variants: Vec<VariantFit>,
    /// EAP θ̂ⱼ = E[θⱼ | ratings of j], one per item.
    pub theta_mean: Vec<f64>,
    /// Posterior variance σⱼ² = Var[θⱼ | ratings of j], one per item.
    pub theta_variance: Vec<f64>,
    /// Ratings per item that enter the likelihood.
    pub ratings_per_item: Vec<usize>,
    /// Marginal log-likelihood Σⱼ ln ∫ Πₚ P(Y_pj | θ) φ(θ) dθ at the estimate.
    pub log_likelihood: f64,
    /// Log prior density of (ln α, β) at the estimate, up to its constant (0 with flat priors).
    pub log_prior: f64,
    /// EM steps taken.
    pub iterations: usize,
    /// Whether the `tol` criterion was met within `max_iter`.
    pub converged: bool,
    /// The largest α or β change of the last plain EM step.
    pub last_change: f64,
    pub quadrature_nodes: usize,
    /// Plain-language remarks: collapsed categories, uninformative variants, unrated items,
    /// non-convergence.
    pub notes: Vec<String>,
}

impl GrmFit {
    /// [`GrmFit::notes`] with the variant at column p written `variant(p)` (the notes have
    /// `variant 1`, `variant 2`, …) and each score `score(y)` (the notes have the number): e.g.
    /// a file's variant names and the labels nominal codes stand for. This module knows
    /// neither; the notes on items and convergence are kept as they are.
    pub fn notes_with(
        &self,
        variant: &dyn Fn(usize) -> String,
        score: &dyn Fn(u32) -> String,
    ) -> Vec<String> {
        let plain = variant_notes(&self.variants, &|p| format!("variant {}", p + 1), &|y| {
            y.to_string()
        });
        let mut notes = variant_notes(&self.variants, variant, score);
        notes.extend(self.notes.iter().skip(plain.len()).cloned());
        notes
    }

    /// P(Y = `categories[k]` | θ) for each category k of `variant`; `None` for an unknown or
    /// uninformative variant.
    pub fn category_probabilities(&self, variant: usize, theta: f64) -> Option<Vec<f64>> {
        let fit = self.variants.get(variant)?;
        let alpha = fit.alpha?;
        let mut at_least: Vec<f64> = vec![1.0];
        at_least.extend(fit.thresholds.iter().map(|b| sigmoid(alpha * (theta - b))));
        at_least.push(0.0);
        Some(at_least.windows(2).map(|w| w[0] - w[1]).collect())
    }
}

impl GrmParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        if self.quadrature_nodes < 2 || self.quadrature_nodes > crate::math::quadrature::MAX_NODES {
            return Err(Error::param(
                "quadrature_nodes",
                format!(
                    "expected between 2 and {} nodes, found {}",
                    crate::math::quadrature::MAX_NODES,
                    self.quadrature_nodes
                ),
            ));
        }
        for (name, prior) in [
            ("log_alpha_prior", self.log_alpha_prior),
            ("threshold_prior", self.threshold_prior),
        ] {
            if let Some(p) = prior {
                if !(p.mean.is_finite() && p.sd > 0.0 && p.sd.is_finite()) {
                    return Err(Error::param(
                        name,
                        format!(
                            "expected a finite mean and a finite sd > 0, found mean {} sd {}",
                            p.mean, p.sd
                        ),
                    ));
                }
            }
        }
        if let Some(s) = self.scale {
            if s.min >= s.max || s.max - s.min >= MAX_SCALE_VALUES {
                return Err(Error::param(
                    "scale",
                    format!(
                        "expected min < max spanning at most {MAX_SCALE_VALUES} values, found \
                         min {} max {}",
                        s.min, s.max
                    ),
                ));
            }
        }
        at_least_one("max_iter", self.max_iter)?;
        positive("tol", self.tol)?;
        Ok(())
    }

    /// Fits the model to `ratings`.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn fit(&self, ratings: &RatingMatrix) -> Result<GrmFit> {
        self.validate()?;
        let data = Prepared::new(ratings, self.scale)?;
        let rule = standard_normal(self.quadrature_nodes)?;
        let nodes = rule.nodes;
        let log_weights: Vec<f64> = rule.weights.iter().map(|w| w.ln()).collect();

        let em = Em {
            data: &data,
            nodes: &nodes,
            log_weights: &log_weights,
            params: self,
        };
        let mut states: Vec<Option<VariantState>> = data
            .variants
            .iter()
            .map(|v| VariantState::initial(&v.counts))
            .collect();

        // SQUAREM cycles: two EM steps φ₁ = F(φ₀), φ₂ = F(φ₁), the extrapolation
        // φ′ = φ₀ − 2s r + s² v (r = φ₁ − φ₀, v = φ₂ − 2φ₁ + φ₀, s = −‖r‖/‖v‖ ≤ −1), and an EM
        // step from φ′, kept only if φ′ is at least as probable as φ₁ (else φ₂ is kept).
        let mut iterations = 0;
        let mut last_change = f64::INFINITY;
        while iterations < self.max_iter {
            let (first, _) = em.step(&states);
            iterations += 1;
            last_change = max_change(&states, &first);
            if last_change <= self.tol || iterations == self.max_iter {
                states = first;
                break;
            }
            let (second, objective_first) = em.step(&first);
            iterations += 1;
            let change = max_change(&first, &second);
            if change <= self.tol || iterations == self.max_iter {
                last_change = change;
                states = second;
                break;
            }
            let candidate = extrapolate(&states, &first, &second);
            let (stabilised, objective_candidate) = em.step(&candidate);
            iterations += 1;
            states = if objective_candidate >= objective_first {
                stabilised
            } else {
                second
            };
        }
        let converged = last_change <= self.tol;

        let mut tables: Vec<Vec<f64>> = vec![Vec::new(); data.variants.len()];
        for (table, state) in tables.iter_mut().zip(&states) {
            if let Some(s) = state {
                *table = s.log_probability_table(&nodes);
            }
        }
        let n = ratings.n_items();
        let mut theta_mean = vec![0.0; n];
        let mut theta_variance = vec![0.0; n];
        let log_likelihood = data.e_step(&tables, &log_weights, |j, posterior, _| {
            let mean: f64 = posterior.iter().zip(&nodes).map(|(r, t)| r * t).sum();
            theta_mean[j] = mean;
            theta_variance[j] = posterior
                .iter()
                .zip(&nodes)
                .map(|(r, t)| r * (t - mean) * (t - mean))
                .sum();
        });
        let log_prior = states.iter().flatten().map(|s| s.log_prior(self)).sum();

        let variants: Vec<VariantFit> = data
            .variants
            .iter()
            .zip(&states)
            .map(|(v, s)| VariantFit {
                categories: v.categories.clone(),
                unused_categories: v.unused.clone(),
                n_ratings: v.n_ratings,
                alpha: s.as_ref().map(|s| s.a.exp()),
                thresholds: s.as_ref().map(VariantState::thresholds).unwrap_or_default(),
            })
            .collect();
        let mut notes = variant_notes(&variants, &|p| format!("variant {}", p + 1), &|y| {
            y.to_string()
        });
        notes.extend(data.notes.iter().cloned());
        if !converged {
            notes.push(format!(
                "EM stopped after {iterations} steps without meeting tol = {} (last \
                 parameter change {last_change:.3e}); the estimates may be inaccurate",
                self.tol
            ));
        }
        Ok(GrmFit {
            variants,
            theta_mean,
            theta_variance,
            ratings_per_item: data.ratings_per_item(),
            log_likelihood,
            log_prior,
            iterations,
            converged,
            last_change,
            quadrature_nodes: self.quadrature_nodes,
            notes,
        })
    }
}

/// A variant's categories and counts after collapsing unused scores.
struct PreparedVariant {
    categories: Vec<u32>,
    unused: Vec<u32>,
    n_ratings: usize,
    /// Items per category.
    counts: Vec<usize>,
}

/// The ratings as category codes, item by item (only informative variants).
struct Prepared {
    variants: Vec<PreparedVariant>,
    /// `cells[offsets[j]..offsets[j + 1]]`: (variant, category) pairs of item j.
    offsets: Vec<usize>,
    cells: Vec<(usize, usize)>,
    /// Notes on the items (the variants' notes come from [`variant_notes`]).
    notes: Vec<String>,
}

impl Prepared {
    fn new(ratings: &RatingMatrix, scale: Option<RatingScale>) -> Result<Self> {
        if let Some(s) = scale {
            for item in 0..ratings.n_items() {
                for variant in 0..ratings.n_variants() {
                    match ratings.get(item, variant) {
                        Some(y) if y < s.min || y > s.max => {
                            return Err(Error::input(
                                Location::field("ratings", item as u64 + 1, variant + 1, "score"),
                                format!("expected a score from {} to {}, found {y}", s.min, s.max),
                            ));
                        }
                        _ => {}
                    }
                }
            }
        }
        let scale: Vec<u32> = match scale {
            Some(s) => (s.min..=s.max).collect(),
            None => {
                let mut seen: Vec<u32> = ratings.cells.iter().flatten().copied().collect();
                seen.sort_unstable();
                seen.dedup();
                seen
            }
        };
        let mut variants = Vec::with_capacity(ratings.n_variants());
        for p in 0..ratings.n_variants() {
            let column = ratings.variant_scores(p);
            let mut categories: Vec<u32> = column.iter().flatten().copied().collect();
            categories.sort_unstable();
            categories.dedup();
            let unused: Vec<u32> = scale
                .iter()
                .copied()
                .filter(|y| categories.binary_search(y).is_err())
                .collect();
            let mut counts = vec![0; categories.len()];
            for y in column.iter().flatten() {
                if let Ok(k) = categories.binary_search(y) {
                    counts[k] += 1;
                }
            }
            let n_ratings = counts.iter().sum();
            variants.push(PreparedVariant {
                categories,
                unused,
                n_ratings,
                counts,
            });
        }
        if variants.iter().all(|v| v.categories.len() < 2) {
            return Err(Error::Insufficient(format!(
                "the graded response model needs at least one variant that gave two or more \
                 different scores; none of the {} variants did",
                ratings.n_variants()
            )));
        }
        let mut offsets = vec![0];
        let mut cells = Vec::new();
        for item in 0..ratings.n_items() {
            for (p, v) in variants.iter().enumerate() {
                if v.categories.len() < 2 {
                    continue;
                }
                if let Some(k) = ratings
                    .get(item, p)
                    .and_then(|y| v.categories.binary_search(&y).ok())
                {
                    cells.push((p, k));
                }
            }
            offsets.push(cells.len());
        }
        let mut notes = Vec::new();
        let unrated = offsets.windows(2).filter(|w| w[0] == w[1]).count();
        if unrated > 0 {
            notes.push(format!(
                "{unrated} of {} items have no informative rating; their θ posterior is the \
                 N(0, 1) prior",
                ratings.n_items()
            ));
        }
        Ok(Self {
            variants,
            offsets,
            cells,
            notes,
        })
    }

    fn ratings_per_item(&self) -> Vec<usize> {
        self.offsets.windows(2).map(|w| w[1] - w[0]).collect()
    }

    /// Posterior over the nodes for each item, passed to `visit(item, posterior, cells)`.
    /// Returns the marginal log-likelihood.
    fn e_step(
        &self,
        tables: &[Vec<f64>],
        log_weights: &[f64],
        mut visit: impl FnMut(usize, &[f64], &[(usize, usize)]),
    ) -> f64 {
        let q = log_weights.len();
        let mut log_post = vec![0.0; q];
        let mut log_likelihood = 0.0;
        for (j, w) in self.offsets.windows(2).enumerate() {
            let cells = &self.cells[w[0]..w[1]];
            log_post.copy_from_slice(log_weights);
            for &(p, k) in cells {
                for (acc, lp) in log_post.iter_mut().zip(&tables[p][k * q..(k + 1) * q]) {
                    *acc += lp;
                }
            }
            let top = log_post.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
            let mut total = 0.0;
            for v in &mut log_post {
                *v = (*v - top).exp();
                total += *v;
            }
            for v in &mut log_post {
                *v /= total;
            }
            log_likelihood += top + total.ln();
            visit(j, &log_post, cells);
        }
        log_likelihood
    }
}

/// The note on each variant that has one (no ratings, a single score, unused scores), in
/// variant order: the variant at column p written `variant(p)`, each score `score(y)`.
fn variant_notes(
    variants: &[VariantFit],
    variant: &dyn Fn(usize) -> String,
    score: &dyn Fn(u32) -> String,
) -> Vec<String> {
    let mut notes = Vec::new();
    for (p, v) in variants.iter().enumerate() {
        match v.categories[..] {
            [] => notes.push(format!("{} rated no item", variant(p))),
            [only] => notes.push(format!(
                "{} gave the single score {} to all {} items it rated; it carries no \
                 information on θ and is left out of the fit",
                variant(p),
                score(only),
                v.n_ratings
            )),
            _ if !v.unused_categories.is_empty() => notes.push(format!(
                "{} never gave {}; those categories are collapsed and it is fitted with {} \
                 categories ({} thresholds)",
                variant(p),
                v.unused_categories
                    .iter()
                    .map(|&y| score(y))
                    .collect::<Vec<_>>()
                    .join(", "),
                v.categories.len(),
                v.categories.len() - 1
            )),
            _ => {}
        }
    }
    notes
}

/// One EM step of a fit.
struct Em<'a> {
    data: &'a Prepared,
    nodes: &'a [f64],
    log_weights: &'a [f64],
    params: &'a GrmParams,
}

impl Em<'_> {
    /// F(φ): the E-step's expected counts per variant, category and node, then the M-step.
    /// Also returns the log posterior (marginal log-likelihood + log prior) at φ, −∞ when it
    /// is not finite.
    fn step(&self, states: &[Option<VariantState>]) -> (Vec<Option<VariantState>>, f64) {
        let q = self.nodes.len();
        let tables: Vec<Vec<f64>> = states
            .iter()
            .map(|s| {
                s.as_ref()
                    .map_or_else(Vec::new, |s| s.log_probability_table(self.nodes))
            })
            .collect();
        let mut counts: Vec<Vec<f64>> = self
            .data
            .variants
            .iter()
            .map(|v| vec![0.0; v.categories.len() * q])
            .collect();
        let log_likelihood = self
            .data
            .e_step(&tables, self.log_weights, |_, posterior, cells| {
                for &(p, k) in cells {
                    let row = &mut counts[p][k * q..(k + 1) * q];
                    for (acc, r) in row.iter_mut().zip(posterior) {
                        *acc += r;
                    }
                }
            });
        let log_prior: f64 = states
            .iter()
            .flatten()
            .map(|s| s.log_prior(self.params))
            .sum();
        let objective = log_likelihood + log_prior;
        let next = states
            .iter()
            .zip(&counts)
            .map(|(s, c)| s.as_ref().map(|s| s.m_step(c, self.nodes, self.params)))
            .collect();
        let objective = if objective.is_finite() {
            objective
        } else {
            f64::NEG_INFINITY
        };
        (next, objective)
    }
}

/// The largest change of any α or β between two parameter sets.
fn max_change(a: &[Option<VariantState>], b: &[Option<VariantState>]) -> f64 {
    a.iter()
        .zip(b)
        .filter_map(|(x, y)| Some(x.as_ref()?.max_change(y.as_ref()?)))
        .fold(0.0, f64::max)
}

/// The SQUAREM extrapolation φ₀ − 2s r + s² v with s = −‖r‖/‖v‖, at most −1 (s = −1 gives
/// φ₂), in the unconstrained coordinates of every informative variant.
fn extrapolate(
    x0: &[Option<VariantState>],
    x1: &[Option<VariantState>],
    x2: &[Option<VariantState>],
) -> Vec<Option<VariantState>> {
    let triples = || {
        x0.iter()
            .zip(x1)
            .zip(x2)
            .filter_map(|((a, b), c)| Some((a.as_ref()?, b.as_ref()?, c.as_ref()?)))
            .flat_map(|(a, b, c)| {
                std::iter::once((a.a, b.a, c.a)).chain(
                    a.b.iter()
                        .zip(&b.b)
                        .zip(&c.b)
                        .map(|((p, q), r)| (*p, *q, *r)),
                )
            })
    };
    let r2: f64 = triples().map(|(p, q, _)| (q - p) * (q - p)).sum();
    let v2: f64 = triples()
        .map(|(p, q, r)| (r - 2.0 * q + p) * (r - 2.0 * q + p))
        .sum();
    let s = if v2 > 0.0 {
        (-(r2 / v2).sqrt()).min(-1.0)
    } else {
        -1.0
    };
    let point = |p: f64, q: f64, r: f64| p - 2.0 * s * (q - p) + s * s * (r - 2.0 * q + p);
    x0.iter()
        .zip(x1)
        .zip(x2)
        .map(|((a, b), c)| {
            let (a, b, c) = (a.as_ref()?, b.as_ref()?, c.as_ref()?);
            Some(VariantState {
                a: point(a.a, b.a, c.a),
                b: a.b
                    .iter()
                    .zip(&b.b)
                    .zip(&c.b)
                    .map(|((p, q), r)| point(*p, *q, *r))
                    .collect(),
            })
        })
        .collect()
}

/// Parameters of one informative variant in unconstrained coordinates:
/// `a` = ln α, `b[0]` = β₁, `b[i]` = ln(β_{i+1} − β_i).
#[derive(Debug, Clone)]
struct VariantState {
    a: f64,
    b: Vec<f64>,
}

/// Value, gradient and Hessian of the M-step objective in (ln α, β₁, ln gaps).
struct Derivatives {
    value: f64,
    gradient: Array1<f64>,
    hessian: Array2<f64>,
}

impl VariantState {
    /// Start: α = 1 and thresholds from the cumulative proportions, using
    /// E σ(θ − β) ≈ σ(−β / √(1 + π/8)) for θ ~ N(0, 1). `None` for fewer than two categories.
    fn initial(counts: &[usize]) -> Option<Self> {
        if counts.len() < 2 {
            return None;
        }
        let total: usize = counts.iter().sum();
        let scale = (1.0 + std::f64::consts::PI / 8.0).sqrt();
        let mut above = total;
        let thresholds: Vec<f64> = counts[..counts.len() - 1]
            .iter()
            .map(|&c| {
                above -= c;
                let p = above as f64 / total as f64;
                -scale * (p / (1.0 - p)).ln()
            })
            .collect();
        Some(Self::from_thresholds(0.0, &thresholds))
    }

    fn from_thresholds(a: f64, thresholds: &[f64]) -> Self {
        let mut b = Vec::with_capacity(thresholds.len());
        b.push(thresholds[0]);
        b.extend(thresholds.windows(2).map(|w| (w[1] - w[0]).ln()));
        Self { a, b }
    }

    fn thresholds(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.b.len());
        let mut beta = self.b[0];
        out.push(beta);
        for d in &self.b[1..] {
            beta += d.exp();
            out.push(beta);
        }
        out
    }

    fn max_change(&self, other: &Self) -> f64 {
        let d_alpha = (self.a.exp() - other.a.exp()).abs();
        self.thresholds()
            .iter()
            .zip(other.thresholds())
            .fold(d_alpha, |m, (x, y)| m.max((x - y).abs()))
    }

    fn log_prior(&self, params: &GrmParams) -> f64 {
        let mut value = 0.0;
        if let Some(p) = params.log_alpha_prior {
            value -= 0.5 * ((self.a - p.mean) / p.sd).powi(2);
        }
        if let Some(p) = params.threshold_prior {
            value -= self
                .thresholds()
                .iter()
                .map(|b| 0.5 * ((b - p.mean) / p.sd).powi(2))
                .sum::<f64>();
        }
        value
    }

    /// ln P(Y = k | θ_q), category-major: entry `k * nodes.len() + q`.
    fn log_probability_table(&self, nodes: &[f64]) -> Vec<f64> {
        let curve = Curve::new(self.a.exp(), self.thresholds());
        let (t_len, q) = (curve.beta.len(), nodes.len());
        let mut terms = NodeTerms::new(t_len);
        let mut table = vec![0.0; (t_len + 1) * q];
        for (qi, &theta) in nodes.iter().enumerate() {
            curve.at(theta, &mut terms);
            for (c, lp) in terms.log_p.iter().enumerate() {
                table[c * q + qi] = *lp;
            }
        }
        table
    }

    /// One M-step: Newton's method with a backtracking line search on the expected complete
    /// log posterior, from the current values; damped when the Hessian is not negative
    /// definite.
    fn m_step(&self, counts: &[f64], nodes: &[f64], params: &GrmParams) -> Self {
        let mut current = self.clone();
        let Some(mut d) = current.derivatives(counts, nodes, params) else {
            return current;
        };
        for _ in 0..100 {
            let Some(step) = newton_step(&d) else {
                break;
            };
            let slope = d.gradient.dot(&step);
            let mut t = 1.0;
            let mut accepted = None;
            while t > 1e-10 {
                let trial = current.moved(&step, t);
                if let Some(dt) = trial.derivatives(counts, nodes, params) {
                    if dt.value >= d.value + 1e-4 * t * slope {
                        accepted = Some((trial, dt));
                        break;
                    }
                }
                t *= 0.5;
            }
            let Some((next, dn)) = accepted else {
                break;
            };
            let size = step.iter().fold(0.0_f64, |m, s| m.max((t * s).abs()));
            current = next;
            d = dn;
            if size < 1e-12 {
                break;
            }
        }
        current
    }

    fn moved(&self, step: &Array1<f64>, t: f64) -> Self {
        Self {
            a: self.a + t * step[0],
            b: self
                .b
                .iter()
                .enumerate()
                .map(|(i, b)| b + t * step[i + 1])
                .collect(),
        }
    }

    /// Objective Σ_{k,q} n_kq ln P(k | θ_q) + log prior with its gradient and Hessian in the
    /// unconstrained coordinates; `None` when not finite.
    fn derivatives(
        &self,
        counts: &[f64],
        nodes: &[f64],
        params: &GrmParams,
    ) -> Option<Derivatives> {
        let alpha = self.a.exp();
        let beta = self.thresholds();
        let t_len = beta.len();
        let q = nodes.len();
        let curve = Curve::new(alpha, beta.clone());
        let mut terms = NodeTerms::new(t_len);
        let mut value = 0.0;
        // Derivatives with respect to ψ = (a, β₁ … β_T).
        let mut g_a = 0.0;
        let mut g_beta = vec![0.0; t_len];
        let mut h_aa = 0.0;
        let mut h_ab = vec![0.0; t_len];
        let mut h_bb = Array2::<f64>::zeros((t_len, t_len));
        let mut f = vec![0.0; t_len];
        let mut lg = vec![0.0; t_len];
        let mut l = vec![0.0; t_len];
        let mut m_diag = vec![0.0; t_len];
        let mut m_off = vec![0.0; t_len.saturating_sub(1)];
        for (qi, &theta) in nodes.iter().enumerate() {
            curve.at(theta, &mut terms);
            let eta = &terms.eta;
            for t in 0..t_len {
                // σ(η) = e^(−softplus(−η)); ln σ′(η) = −softplus(η) − softplus(−η).
                f[t] = (-terms.softplus_neg[t]).exp();
                lg[t] = -terms.softplus[t] - terms.softplus_neg[t];
            }
            l.fill(0.0);
            m_diag.fill(0.0);
            m_off.fill(0.0);
            for c in 0..=t_len {
                let n = counts[c * q + qi];
                if n == 0.0 {
                    continue;
                }
                let lp = terms.log_p[c];
                value += n * lp;
                // u = g_{c−1}/P_c for the upper threshold, v = g_c/P_c for the lower one.
                let u = (c > 0).then(|| (lg[c - 1] - lp).exp());
                let v = (c < t_len).then(|| (lg[c] - lp).exp());
                if let Some(u) = u {
                    l[c - 1] += n * u;
                    m_diag[c - 1] += n * (u * (1.0 - 2.0 * f[c - 1]) - u * u);
                }
                if let Some(v) = v {
                    l[c] -= n * v;
                    m_diag[c] += n * (-v * (1.0 - 2.0 * f[c]) - v * v);
                }
                if let (Some(u), Some(v)) = (u, v) {
                    m_off[c - 1] += n * u * v;
                }
            }
            for t in 0..t_len {
                g_a += l[t] * eta[t];
                g_beta[t] -= alpha * l[t];
                let mut m_eta = m_diag[t] * eta[t];
                if t > 0 {
                    m_eta += m_off[t - 1] * eta[t - 1];
                }
                if t + 1 < t_len {
                    m_eta += m_off[t] * eta[t + 1];
                }
                h_aa += m_eta * eta[t] + l[t] * eta[t];
                h_ab[t] -= alpha * (m_eta + l[t]);
                h_bb[[t, t]] += alpha * alpha * m_diag[t];
                if t + 1 < t_len {
                    h_bb[[t, t + 1]] += alpha * alpha * m_off[t];
                    h_bb[[t + 1, t]] += alpha * alpha * m_off[t];
                }
            }
        }
        if let Some(p) = params.log_alpha_prior {
            let z = (self.a - p.mean) / p.sd;
            value -= 0.5 * z * z;
            g_a -= z / p.sd;
            h_aa -= 1.0 / (p.sd * p.sd);
        }
        if let Some(p) = params.threshold_prior {
            for t in 0..t_len {
                let z = (beta[t] - p.mean) / p.sd;
                value -= 0.5 * z * z;
                g_beta[t] -= z / p.sd;
                h_bb[[t, t]] -= 1.0 / (p.sd * p.sd);
            }
        }
        // Chain rule to φ = (a, β₁, ln gaps): β_t = β₁ + Σ_{i=1}^{t} e^{φ_i}.
        let mut jac = Array2::<f64>::zeros((t_len, t_len));
        for t in 0..t_len {
            jac[[t, 0]] = 1.0;
            for i in 1..=t {
                jac[[t, i]] = self.b[i].exp();
            }
        }
        let m = t_len + 1;
        let g_phi_beta = jac.t().dot(&Array1::from(g_beta.clone()));
        let h_phi_beta = jac.t().dot(&h_bb).dot(&jac);
        let h_a_phi = jac.t().dot(&Array1::from(h_ab));
        let mut gradient = Array1::zeros(m);
        let mut hessian = Array2::zeros((m, m));
        gradient[0] = g_a;
        hessian[[0, 0]] = h_aa;
        for i in 0..t_len {
            gradient[i + 1] = g_phi_beta[i];
            hessian[[0, i + 1]] = h_a_phi[i];
            hessian[[i + 1, 0]] = h_a_phi[i];
            for k in 0..t_len {
                hessian[[i + 1, k + 1]] = h_phi_beta[[i, k]];
            }
        }
        for i in 1..t_len {
            let tail: f64 = g_beta[i..].iter().sum();
            hessian[[i + 1, i + 1]] += self.b[i].exp() * tail;
        }
        let finite = value.is_finite()
            && gradient.iter().all(|g| g.is_finite())
            && hessian.iter().all(|h| h.is_finite());
        finite.then_some(Derivatives {
            value,
            gradient,
            hessian,
        })
    }
}

/// The Newton ascent step: solves (−H + λI) s = g, raising λ from 0 until −H + λI is positive
/// definite.
fn newton_step(d: &Derivatives) -> Option<Array1<f64>> {
    let neg = -&d.hessian;
    if let Some(step) = cholesky_solve(&neg, &d.gradient) {
        return Some(step);
    }
    let scale = neg.diag().iter().fold(1e-8_f64, |m, v| m.max(v.abs()));
    let mut lambda = 1e-6 * scale;
    for _ in 0..40 {
        let damped = &neg + &Array2::from_diag_elem(neg.nrows(), lambda);
        if let Some(step) = cholesky_solve(&damped, &d.gradient) {
            return Some(step);
        }
        lambda *= 10.0;
    }
    None
}

/// One variant's category curves: α, ascending thresholds β₁ … β_T, and the θ-free terms
/// ln(1 − e^(−α (β_c − β_{c−1}))), c = 2 … T.
struct Curve {
    alpha: f64,
    beta: Vec<f64>,
    log_gap: Vec<f64>,
}

/// Per-θ quantities of a [`Curve`]: η_t = α (θ − β_t), softplus(±η_t) and ln P(Y = c | θ).
struct NodeTerms {
    eta: Vec<f64>,
    softplus: Vec<f64>,
    softplus_neg: Vec<f64>,
    log_p: Vec<f64>,
}

impl NodeTerms {
    fn new(thresholds: usize) -> Self {
        Self {
            eta: vec![0.0; thresholds],
            softplus: vec![0.0; thresholds],
            softplus_neg: vec![0.0; thresholds],
            log_p: vec![0.0; thresholds + 1],
        }
    }
}

impl Curve {
    fn new(alpha: f64, beta: Vec<f64>) -> Self {
        let log_gap = beta
            .windows(2)
            .map(|w| (-(-alpha * (w[1] - w[0])).exp_m1()).ln())
            .collect();
        Self {
            alpha,
            beta,
            log_gap,
        }
    }

    /// Fills `terms` at θ. ln P avoids overflow and cancellation: P(Y = 0) = σ(−η₁),
    /// P(Y = T) = σ(η_T), and in between P(Y = c) = σ(η_c) σ(−η_{c+1}) (1 − e^(η_{c+1} − η_c))
    /// (thresholds numbered from 1).
    fn at(&self, theta: f64, terms: &mut NodeTerms) {
        let t_len = self.beta.len();
        for t in 0..t_len {
            let eta = self.alpha * (theta - self.beta[t]);
            terms.eta[t] = eta;
            terms.softplus[t] = softplus(eta);
            terms.softplus_neg[t] = softplus(-eta);
        }
        terms.log_p[0] = -terms.softplus[0];
        for c in 1..t_len {
            terms.log_p[c] = -terms.softplus_neg[c - 1] - terms.softplus[c] + self.log_gap[c - 1];
        }
        terms.log_p[t_len] = -terms.softplus_neg[t_len - 1];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn objective(state: &VariantState, counts: &[f64], nodes: &[f64], p: &GrmParams) -> f64 {
        state.derivatives(counts, nodes, p).unwrap().value
    }

    #[test]
    fn analytic_derivatives_match_finite_differences() {
        let nodes = [-2.0, -0.7, 0.1, 0.9, 2.2];
        let counts: Vec<f64> = (0..25).map(|i| f64::from(i % 7) + 0.5).collect();
        let params = GrmParams::default();
        let state = VariantState::from_thresholds(0.3, &[-1.1, -0.2, 0.4, 1.5]);
        let d = state.derivatives(&counts, &nodes, &params).unwrap();
        let h = 1e-5;
        for i in 0..5 {
            let mut e = Array1::zeros(5);
            e[i] = 1.0;
            let plus = state.moved(&e, h);
            let minus = state.moved(&e, -h);
            let numeric = (objective(&plus, &counts, &nodes, &params)
                - objective(&minus, &counts, &nodes, &params))
                / (2.0 * h);
            assert!((numeric - d.gradient[i]).abs() < 1e-6, "gradient {i}");
            let dp = plus.derivatives(&counts, &nodes, &params).unwrap();
            let dm = minus.derivatives(&counts, &nodes, &params).unwrap();
            for k in 0..5 {
                let numeric = (dp.gradient[k] - dm.gradient[k]) / (2.0 * h);
                assert!(
                    (numeric - d.hessian[[i, k]]).abs() < 1e-5,
                    "hessian {i},{k}: {numeric} vs {}",
                    d.hessian[[i, k]]
                );
            }
        }
    }

    #[test]
    fn category_probabilities_are_stable_and_sum_to_one() {
        let curve = Curve::new(3.0, vec![-1.0, 0.5, 2.0]);
        let mut terms = NodeTerms::new(3);
        for theta in [-40.0, -1.0, 0.3, 40.0] {
            curve.at(theta, &mut terms);
            let total: f64 = terms.log_p.iter().map(|lp| lp.exp()).sum();
            assert!((total - 1.0).abs() < 1e-14, "{theta}");
        }
        // P(Y = 1 | θ = 0.5) = σ(2 · 1.5) − σ(0) with α = 2, β = (−1, 0.5, 2).
        let want = sigmoid(3.0) - 0.5;
        Curve::new(2.0, vec![-1.0, 0.5, 2.0]).at(0.5, &mut terms);
        assert!((terms.log_p[1].exp() - want).abs() < 1e-15);
    }

    #[test]
    fn rejects_bad_settings_and_shapes() {
        let bad = GrmParams {
            quadrature_nodes: 1,
            ..Default::default()
        };
        assert!(bad.validate().is_err());
        let bad = GrmParams {
            log_alpha_prior: Some(NormalPrior { mean: 0.0, sd: 0.0 }),
            ..Default::default()
        };
        assert!(bad.validate().is_err());
        for (min, max) in [(3, 3), (1, 1 + MAX_SCALE_VALUES)] {
            let bad = GrmParams {
                scale: Some(RatingScale { min, max }),
                ..Default::default()
            };
            assert!(bad.validate().is_err(), "{min}..={max}");
        }
        assert!(RatingMatrix::new(2, 2, vec![Some(1); 3]).is_err());
        assert!(RatingMatrix::from_rows(&[vec![Some(1)], vec![Some(1), None]]).is_err());
    }

    #[test]
    fn rating_matrix_round_trips_and_checks_its_shape_when_deserialised() {
        let m = RatingMatrix::from_rows(&[vec![Some(1), None], vec![Some(3), Some(2)]]).unwrap();
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(json, r#"{"n_items":2,"n_variants":2,"cells":[1,null,3,2]}"#);
        assert_eq!(serde_json::from_str::<RatingMatrix>(&json).unwrap(), m);
        let err =
            serde_json::from_str::<RatingMatrix>(r#"{"n_items":2,"n_variants":2,"cells":[1]}"#)
                .unwrap_err();
        assert!(err
            .to_string()
            .contains("expected 2 items × 2 variants = 4 cells, found 1"));
    }

    #[test]
    fn notes_name_variants_and_scores_as_the_caller_does() {
        // Variant 1 always 2; variant 2 uses 0–2; variant 3 never 1; item 4 is rated by the
        // uninformative variant only.
        let rows = [
            [Some(2), Some(0), Some(0)],
            [Some(2), Some(1), Some(2)],
            [Some(2), Some(2), Some(2)],
            [Some(2), None, None],
        ];
        let rows: Vec<Vec<Option<u32>>> = rows.iter().map(|r| r.to_vec()).collect();
        let fit = GrmParams {
            max_iter: 1,
            ..GrmParams::default()
        }
        .fit(&RatingMatrix::from_rows(&rows).unwrap())
        .unwrap();
        assert_eq!(fit.notes.len(), 4, "{:?}", fit.notes);
        assert!(fit.notes[0].starts_with("variant 1 gave the single score 2 to all 4 items"));
        assert!(fit.notes[1].starts_with("variant 3 never gave 1; those categories"));
        let labels = ["bad", "ok", "good"];
        let names = ["plain", "typo", "para"];
        let named = fit.notes_with(&|p| format!("variant `{}`", names[p]), &|y| {
            format!("`{}`", labels[y as usize])
        });
        assert!(named[0].starts_with("variant `plain` gave the single score `good` to all 4"));
        assert!(named[1].starts_with("variant `para` never gave `ok`; those categories"));
        // The notes on items and convergence are kept.
        assert_eq!(named[2..], fit.notes[2..]);
        assert!(named[2].starts_with("1 of 4 items have no informative rating"));
        assert!(named[3].starts_with("EM stopped after 1 steps"));
        let plain = fit.notes_with(&|p| format!("variant {}", p + 1), &|y| y.to_string());
        assert_eq!(plain, fit.notes);
    }

    #[test]
    fn category_probabilities_of_a_fit() {
        // At θ = β_k the curve P(Y ≥ k) is ½; the probabilities sum to 1.
        let fit = GrmFit {
            variants: vec![VariantFit {
                categories: vec![1, 2, 3],
                unused_categories: vec![],
                n_ratings: 0,
                alpha: Some(1.7),
                thresholds: vec![-0.4, 0.9],
            }],
            theta_mean: vec![],
            theta_variance: vec![],
            ratings_per_item: vec![],
            log_likelihood: 0.0,
            log_prior: 0.0,
            iterations: 0,
            converged: true,
            last_change: 0.0,
            quadrature_nodes: 41,
            notes: vec![],
        };
        let p = fit.category_probabilities(0, -0.4).unwrap();
        assert!((p[0] - 0.5).abs() < 1e-15);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        let p = fit.category_probabilities(0, 0.9).unwrap();
        assert!((p[2] - 0.5).abs() < 1e-15);
        assert!(fit.category_probabilities(1, 0.0).is_none());
    }
}
