//! Style control: the contextual Bradley–Terry model of LMArena's leaderboard (the
//! `arena-rank` package's `ContextualBradleyTerry`), a leaderboard with the answers' style held
//! fixed.
//!
//! Model: in battle i, model A beats model B with probability σ(θ_A − θ_B + x_iᵀβ), where x_i
//! are the battle's style features (for answers: the normalised differences of their
//! [`crate::rankings::style_features`], or columns the user gives), each
//! standardised over the battles (mean 0, population standard deviation 1; a constant column is
//! only centred). A tie counts ½. The fit minimises arena-rank's objective
//!
//! ```text
//! −(1/n) Σ_i w_i [ y_i z_i − softplus(z_i) ] + (reg/2) ‖β‖²,   z_i = θ_A − θ_B + x_iᵀβ
//! ```
//!
//! with θ unpenalised and Σθ = 0, by Newton's method with step halving to machine precision.
//! Weights: 1, or arena-rank's inverse pair counts (w_i = 1 / max(battles of the pair, m),
//! scaled to mean 1) so that much-played pairs do not dominate. The raw leaderboard is the same
//! fit without features (same weights), so a model's rank change is style's doing alone.
//!
//! Intervals: the sandwich of the penalised M-estimator, V = M G M / n with H the objective's
//! Hessian, G the covariance of the per-battle scores s_i = w_i (p_i − y_i) x̃_i + reg (0, β)
//! (x̃_i = e_A − e_B ⊕ x_i) and M = (H + u uᵀ)⁻¹, u the direction Σθ leaves free. arena-rank's own
//! sandwich leaves reg out of H (and divides its correction of G by n once more): at reg = 0.001
//! its rating intervals are these within 1.5 % on LLMFAO (tested); at its default reg = 1, up to
//! 1.5 times wider — a heavy penalty pins β, and this sandwich reports the penalised estimator's
//! variance, not its shrinkage bias: one reason the default reg is small.
//!
//! Bootstrap (when asked for): battles resampled with replacement, seeded per round
//! ([`BootstrapParams`]), each round refitted from 0 with the full data's standardisation;
//! percentile intervals of each style-controlled Elo and each coefficient. A round whose resample
//! leaves a rating free (a model that never lost or never won in it) or does not converge
//! counts as invalid; beyond 1 % invalid rounds the bootstrap intervals are withheld with a
//! warning (the remaining rounds would give intervals too narrow).
//!
//! Arguments: [`StyledBattles`] (models, battles, one feature row per battle) and
//! [`StyleControlParams`]. Returns: [`StyleControl`]: θ, β with standard errors, Elo with
//! intervals, the raw leaderboard and each model's rank change. Errors:
//! [`Error::InvalidParam`] for reg < 0, a level outside (0, 1), a minimum pair count below 1;
//! [`Error::Insufficient`] for fewer than two models, a feature row of the wrong length or not
//! finite, a rating the battles do not identify (a model that never lost or never won within
//! its part of the comparison graph, or a graph in pieces: θ is unpenalised, so its estimate
//! would be a number the optimiser stopped at — named, not printed), or a fit that does not
//! converge.

use crate::io::checks::in_open_unit;
use crate::io::error::{Error, Result};
use crate::math::linalg::spd_inverse;
use crate::math::logistic::{sigmoid, softplus};
use crate::math::normal::normal_quantile;
use crate::math::resample::{percentile_interval, resample_counts, BootstrapParams};
use crate::rankings::battles::Battle;
use crate::rankings::bradley_terry::elo;
use crate::rankings::pairwise::Pairwise;
use crate::rankings::separation::separation;
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Battles with one row of style features each.
#[derive(Debug, Clone, PartialEq)]
pub struct StyledBattles {
    pub models: Vec<String>,
    pub battles: Vec<Battle>,
    /// The features' names.
    pub feature_names: Vec<String>,
    /// Battle i's features, before standardising.
    pub features: Vec<Vec<f64>>,
}

/// Settings of a style-controlled fit.
///
/// As command-line options (feature `cli`) the bootstrap is the command's: `--bootstrap N`
/// (0: none, the default) at the intervals' `--level`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct StyleControlParams {
    /// Ridge penalty on β, per battle (arena-rank's `reg`, whose default 1 shrinks LLMFAO's
    /// length coefficient from 0.154 to 0.0036; 0.001 leaves the data in charge).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = StyleControlParams::default().reg, allow_negative_numbers = true)
    )]
    pub reg: f64,
    /// Inverse pair-count weights with this floor (arena-rank's default 50), or none: each
    /// battle weighs 1 / max(battles of its pair, N).
    #[cfg_attr(feature = "cli", arg(long, allow_negative_numbers = true))]
    pub min_pair_count: Option<f64>,
    /// Coverage of the intervals.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = StyleControlParams::default().level, allow_negative_numbers = true)
    )]
    pub level: f64,
    /// Percentile bootstrap intervals beside the sandwich ones (battles resampled, each round
    /// refitted), or none.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub bootstrap: Option<BootstrapParams>,
}

impl Default for StyleControlParams {
    fn default() -> Self {
        Self {
            reg: 0.001,
            min_pair_count: None,
            level: 0.95,
            bootstrap: None,
        }
    }
}

/// One style coefficient, per standard deviation of its feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coefficient {
    pub name: String,
    pub estimate: f64,
    pub se: f64,
    pub lower: f64,
    pub upper: f64,
    /// The feature's mean and standard deviation over the battles (how it was standardised).
    pub mean: f64,
    pub sd: f64,
    /// The percentile bootstrap interval, when asked for and not withheld.
    #[serde(default)]
    pub bootstrap: Option<(f64, f64)>,
}

/// One model on both leaderboards.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StyledRating {
    pub model: String,
    /// Strength with style held fixed (Σθ = 0), its standard error and Elo interval.
    pub theta: f64,
    pub se: f64,
    pub elo: f64,
    pub lower: f64,
    pub upper: f64,
    /// Rank with style held fixed (1 is best; equal ratings share a rank).
    pub rank: usize,
    /// The same fit without features.
    pub raw_elo: f64,
    pub raw_rank: usize,
    /// raw rank − style-controlled rank: positive when holding style fixed moves it up.
    pub rank_change: i64,
    /// The percentile bootstrap interval of the style-controlled Elo, when asked for and not
    /// withheld.
    #[serde(default)]
    pub bootstrap: Option<(f64, f64)>,
}

/// A style-controlled leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StyleControl {
    pub ratings: Vec<StyledRating>,
    pub coefficients: Vec<Coefficient>,
    pub battles: usize,
    pub params: StyleControlParams,
    /// Newton iterations of the style-controlled fit.
    pub iterations: usize,
    /// Bootstrap rounds whose resample identified every rating and converged, when asked for.
    #[serde(default)]
    pub bootstrap_valid_rounds: Option<usize>,
    #[serde(default)]
    pub warnings: Vec<String>,
}

impl StyleControl {
    /// The report in one sentence: how many models' ranks style moves, and the largest style
    /// effect with its interval (said to be indistinguishable from 0 when its interval holds 0).
    pub fn reading(&self) -> String {
        let moved = self.ratings.iter().filter(|r| r.rank_change != 0).count();
        let models = self.ratings.len();
        let strongest = self
            .coefficients
            .iter()
            .max_by(|a, b| a.estimate.abs().total_cmp(&b.estimate.abs()));
        let effect = strongest.map_or_else(String::new, |c| {
            let zero = if c.lower > 0.0 || c.upper < 0.0 {
                ""
            } else {
                ", not distinguishable from 0"
            };
            format!(
                "; the largest style effect is {}: {:+.3} [{:.3}, {:.3}] on the log-odds of winning per standard deviation{zero}",
                c.name, c.estimate, c.lower, c.upper
            )
        });
        format!("Holding style fixed moves {moved} of {models} models' ranks{effect}.")
    }
}

impl StyleControlParams {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming the setting out of range.
    pub fn validate(&self) -> Result<()> {
        if !(self.reg.is_finite() && self.reg >= 0.0) {
            return Err(Error::param(
                "reg",
                format!("expected ≥ 0, found {}", self.reg),
            ));
        }
        in_open_unit("level", self.level)?;
        if let Some(bootstrap) = &self.bootstrap {
            bootstrap.validate()?;
        }
        if let Some(m) = self.min_pair_count {
            if !(m.is_finite() && m >= 1.0) {
                return Err(Error::param(
                    "min_pair_count",
                    format!("expected ≥ 1, found {m}"),
                ));
            }
        }
        Ok(())
    }

    /// Fits the style-controlled and the raw leaderboard of `data`.
    pub fn fit(&self, data: &StyledBattles) -> Result<StyleControl> {
        self.validate()?;
        let k = data.models.len();
        if k < 2 {
            return Err(Error::Insufficient(format!(
                "style control needs at least 2 models, found {k}"
            )));
        }
        check_identified(data)?;
        let (x, means, sds) = standardised(data)?;
        let weights = self.weights(data);
        let styled = Problem {
            battles: &data.battles,
            x: &x,
            weights: &weights,
            k,
            reg: self.reg,
        };
        let fit = styled.newton()?;
        let se = styled.sandwich_se(&fit.params)?;
        let empty = Array2::zeros((data.battles.len(), 0));
        let raw = Problem {
            x: &empty,
            ..styled
        }
        .newton()?;
        let z = normal_quantile(0.5 + self.level / 2.0);
        let theta: Vec<f64> = fit.params.iter().take(k).copied().collect();
        let raw_theta: Vec<f64> = raw.params.iter().take(k).copied().collect();
        let (rank, raw_rank) = (ranks(&theta), ranks(&raw_theta));
        let ratings = (0..k)
            .map(|i| StyledRating {
                model: data.models[i].clone(),
                theta: theta[i],
                se: se[i],
                elo: elo(theta[i]),
                lower: elo(theta[i] - z * se[i]),
                upper: elo(theta[i] + z * se[i]),
                rank: rank[i],
                raw_elo: elo(raw_theta[i]),
                raw_rank: raw_rank[i],
                rank_change: raw_rank[i] as i64 - rank[i] as i64,
                bootstrap: None,
            })
            .collect();
        let mut coefficients: Vec<Coefficient> = data
            .feature_names
            .iter()
            .enumerate()
            .map(|(f, name)| {
                let (estimate, se) = (fit.params[k + f], se[k + f]);
                Coefficient {
                    name: name.clone(),
                    estimate,
                    se,
                    lower: estimate - z * se,
                    upper: estimate + z * se,
                    mean: means[f],
                    sd: sds[f],
                    bootstrap: None,
                }
            })
            .collect();
        let mut ratings: Vec<StyledRating> = ratings;
        let mut warnings = Vec::new();
        let mut bootstrap_valid_rounds = None;
        if let Some(bootstrap) = &self.bootstrap {
            let replicates = styled.bootstrap(bootstrap, data);
            let valid = replicates.iter().flatten().count();
            bootstrap_valid_rounds = Some(valid);
            let invalid = bootstrap.rounds - valid;
            if invalid * 100 > bootstrap.rounds {
                warnings.push(format!(
                    "{invalid} of {} bootstrap rounds left a rating free (a model that never \
                     lost or never won in the resample) or did not converge: the bootstrap \
                     intervals are withheld (the rest would be too narrow)",
                    bootstrap.rounds
                ));
            } else {
                let interval = |j: usize, estimate: f64, scale: &dyn Fn(f64) -> f64| {
                    let values: Vec<f64> =
                        replicates.iter().flatten().map(|p| scale(p[j])).collect();
                    let i = percentile_interval(estimate, &values, bootstrap.level);
                    (i.lower, i.upper)
                };
                for (j, rating) in ratings.iter_mut().enumerate() {
                    rating.bootstrap = Some(interval(j, rating.elo, &elo));
                }
                for (f, c) in coefficients.iter_mut().enumerate() {
                    c.bootstrap = Some(interval(k + f, c.estimate, &|v| v));
                }
            }
        }
        Ok(StyleControl {
            ratings,
            coefficients,
            battles: data.battles.len(),
            params: *self,
            iterations: fit.iterations,
            bootstrap_valid_rounds,
            warnings,
        })
    }

    /// Each battle's weight: 1, or 1 / max(battles of its pair, floor) scaled to mean 1.
    fn weights(&self, data: &StyledBattles) -> Vec<f64> {
        let Some(floor) = self.min_pair_count else {
            return vec![1.0; data.battles.len()];
        };
        let pair = |b: &Battle| (b.a.min(b.b), b.a.max(b.b));
        let mut counts: HashMap<(usize, usize), f64> = HashMap::new();
        for b in &data.battles {
            *counts.entry(pair(b)).or_default() += 1.0;
        }
        let raw: Vec<f64> = data
            .battles
            .iter()
            .map(|b| 1.0 / counts[&pair(b)].max(floor))
            .collect();
        let mean = raw.iter().sum::<f64>() / raw.len() as f64;
        raw.iter().map(|w| w / mean).collect()
    }
}

impl Problem<'_> {
    /// Each round's (θ, β) refitted on battles resampled with replacement (each battle's weight
    /// times the times it was drawn; the features keep the full data's standardisation), or
    /// `None` for a round whose resample leaves a rating free or does not converge.
    fn bootstrap(
        &self,
        params: &BootstrapParams,
        data: &StyledBattles,
    ) -> Vec<Option<Array1<f64>>> {
        (0..params.rounds)
            .map(|round| {
                let counts = resample_counts(self.battles.len(), &mut params.round_rng(round));
                let drawn = self
                    .battles
                    .iter()
                    .zip(&counts)
                    .map(|(b, &c)| (b, f64::from(c)));
                let totals = Pairwise::from_weighted(self.k, drawn);
                if separation(&totals, &data.models)
                    .iter()
                    .any(Option::is_some)
                {
                    return None;
                }
                let weights: Vec<f64> = (self.weights.iter().zip(&counts))
                    .map(|(w, &c)| w * f64::from(c))
                    .collect();
                let round = Problem {
                    weights: &weights,
                    ..*self
                };
                round.newton().ok().map(|fit| fit.params)
            })
            .collect()
    }
}

/// Refuses data whose ratings are not identified without a penalty on θ.
fn check_identified(data: &StyledBattles) -> Result<()> {
    if data.battles.is_empty() {
        return Err(Error::Insufficient(
            "style control needs battles, found none".to_owned(),
        ));
    }
    let totals = Pairwise::from_battles(data.models.len(), &data.battles);
    let open: Vec<String> = separation(&totals, &data.models)
        .iter()
        .zip(&data.models)
        .filter_map(|(side, model)| side.map(|s| format!("{model} ({})", s.describe())))
        .collect();
    if open.is_empty() {
        Ok(())
    } else {
        Err(Error::Insufficient(format!(
            "the battles do not identify every rating, and style control leaves ratings \
             unpenalised: {}; drop these models or add battles where they lose and win",
            open.join(", ")
        )))
    }
}

/// The features standardised per column (population SD; a constant column only centred), with
/// each column's mean and SD.
fn standardised(data: &StyledBattles) -> Result<(Array2<f64>, Vec<f64>, Vec<f64>)> {
    let (n, f) = (data.battles.len(), data.feature_names.len());
    if data.features.len() != n {
        return Err(Error::Insufficient(format!(
            "expected one feature row per battle ({n}), found {}",
            data.features.len()
        )));
    }
    let mut x = Array2::zeros((n, f));
    for (i, row) in data.features.iter().enumerate() {
        if row.len() != f || row.iter().any(|v| !v.is_finite()) {
            return Err(Error::Insufficient(format!(
                "battle {}: expected {f} finite features, found {row:?}",
                i + 1
            )));
        }
        for (j, v) in row.iter().enumerate() {
            x[[i, j]] = *v;
        }
    }
    let (mut means, mut sds) = (Vec::with_capacity(f), Vec::with_capacity(f));
    for mut column in x.columns_mut() {
        let mean = column.sum() / n as f64;
        let sd = (column.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        let scale = if sd > 0.0 { sd } else { 1.0 };
        column.mapv_inplace(|v| (v - mean) / scale);
        means.push(mean);
        sds.push(sd);
    }
    Ok((x, means, sds))
}

/// Competition ranks of `values`, highest first.
fn ranks(values: &[f64]) -> Vec<usize> {
    values
        .iter()
        .map(|v| 1 + values.iter().filter(|&&o| o > *v).count())
        .collect()
}

/// One objective: θ (k models) and β (one per column of `x`).
#[derive(Clone, Copy)]
struct Problem<'a> {
    battles: &'a [Battle],
    x: &'a Array2<f64>,
    weights: &'a [f64],
    k: usize,
    reg: f64,
}

struct Fitted {
    params: Array1<f64>,
    iterations: usize,
}

impl Problem<'_> {
    fn dim(&self) -> usize {
        self.k + self.x.ncols()
    }

    fn logit(&self, params: &Array1<f64>, i: usize, b: &Battle) -> f64 {
        let style: f64 = (0..self.x.ncols())
            .map(|f| self.x[[i, f]] * params[self.k + f])
            .sum();
        params[b.a] - params[b.b] + style
    }

    fn beta_norm2(&self, params: &Array1<f64>) -> f64 {
        params.iter().skip(self.k).map(|v| v * v).sum()
    }

    fn objective(&self, params: &Array1<f64>) -> f64 {
        let n = self.battles.len() as f64;
        let loss: f64 = self
            .battles
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let z = self.logit(params, i, b);
                self.weights[i] * (softplus(z) - b.y * z)
            })
            .sum();
        loss / n + 0.5 * self.reg * self.beta_norm2(params)
    }

    /// Adds `scale · (e_A − e_B ⊕ x_i)` to `v`.
    fn add_row(&self, v: &mut Array1<f64>, i: usize, b: &Battle, scale: f64) {
        v[b.a] += scale;
        v[b.b] -= scale;
        for f in 0..self.x.ncols() {
            v[self.k + f] += scale * self.x[[i, f]];
        }
    }

    /// The gradient and the Hessian (plus u uᵀ, u the free direction of Σθ) at `params`.
    fn derivatives(&self, params: &Array1<f64>) -> (Array1<f64>, Array2<f64>) {
        let (d, n) = (self.dim(), self.battles.len() as f64);
        let mut grad = Array1::zeros(d);
        let mut hess = Array2::zeros((d, d));
        let mut row = Array1::zeros(d);
        for (i, b) in self.battles.iter().enumerate() {
            let p = sigmoid(self.logit(params, i, b));
            let w = self.weights[i] / n;
            self.add_row(&mut grad, i, b, w * (p - b.y));
            row.fill(0.0);
            self.add_row(&mut row, i, b, 1.0);
            let h = w * p * (1.0 - p);
            let nonzero: Vec<usize> = [b.a, b.b].into_iter().chain(self.k..d).collect();
            for &r in &nonzero {
                for &c in &nonzero {
                    hess[[r, c]] += h * row[r] * row[c];
                }
            }
        }
        for f in self.k..d {
            hess[[f, f]] += self.reg;
        }
        for (g, p) in grad.iter_mut().zip(params).skip(self.k) {
            *g += self.reg * p;
        }
        for r in 0..self.k {
            for c in 0..self.k {
                hess[[r, c]] += 1.0;
            }
        }
        (grad, hess)
    }

    /// Newton's method from 0 with step halving, until the largest step is below 1e-12 or the
    /// decrease it promises (its Newton decrement) below 1e-24.
    fn newton(&self) -> Result<Fitted> {
        const MAX_ITER: usize = 100;
        let mut params = Array1::zeros(self.dim());
        let mut value = self.objective(&params);
        for iteration in 1..=MAX_ITER {
            let (grad, hess) = self.derivatives(&params);
            let inverse = spd_inverse(&hess).ok_or_else(|| {
                Error::Insufficient(
                    "style control: the Hessian is singular (a feature column repeats another \
                     or the battles leave a rating free)"
                        .to_owned(),
                )
            })?;
            let step = inverse.dot(&grad);
            let largest = step.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
            // Converged when the step is negligible, or when what it still promises is: with
            // a feature nearly collinear with a model's battles the step stalls at ~1e-11 in
            // that direction (rounding), while the objective it would gain is below 1e-24.
            if largest <= 1e-12 || grad.dot(&step) <= 1e-24 {
                return Ok(Fitted {
                    params,
                    iterations: iteration,
                });
            }
            // Close to the optimum the objective cannot resolve the decrease a step promises
            // (it is below its rounding): take the full Newton step there.
            if grad.dot(&step) < 1e-12 {
                params = &params - &step;
                value = self.objective(&params);
                continue;
            }
            let mut t = 1.0;
            loop {
                let next = &params - &(&step * t);
                let next_value = self.objective(&next);
                if next_value <= value || t < 1e-10 {
                    params = next;
                    value = next_value;
                    break;
                }
                t *= 0.5;
            }
        }
        Err(Error::Insufficient(format!(
            "style control did not converge in {MAX_ITER} Newton steps"
        )))
    }

    /// Sandwich standard errors of θ and β at the optimum `params`.
    fn sandwich_se(&self, params: &Array1<f64>) -> Result<Vec<f64>> {
        let (d, n) = (self.dim(), self.battles.len() as f64);
        let (_, hess) = self.derivatives(params);
        let m = spd_inverse(&hess).ok_or_else(|| {
            Error::Insufficient("style control: the Hessian is singular at the optimum".to_owned())
        })?;
        let mut g = Array2::zeros((d, d));
        let mut score = Array1::zeros(d);
        for (i, b) in self.battles.iter().enumerate() {
            let p = sigmoid(self.logit(params, i, b));
            score.fill(0.0);
            self.add_row(&mut score, i, b, self.weights[i] * (p - b.y));
            for (s, p) in score.iter_mut().zip(params).skip(self.k) {
                *s += self.reg * p;
            }
            for (r, &sr) in score.iter().enumerate() {
                if sr != 0.0 {
                    for (c, &sc) in score.iter().enumerate() {
                        g[[r, c]] += sr * sc / n;
                    }
                }
            }
        }
        let v = m.dot(&g).dot(&m) / n;
        Ok((0..d).map(|j| v[[j, j]].max(0.0).sqrt()).collect())
    }
}

crate::analysis::warnings::own_warnings!(StyleControl);
