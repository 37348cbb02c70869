//! Bradley–Terry maximum likelihood with an L2 penalty, on the Elo scale.
//!
//! Model (seed 002, Eq. 1): model *i* beats model *j* with probability σ(θᵢ − θⱼ). Given battles
//! with targets y ∈ [0, 1] (hard {0, ½, 1} or soft), the fit maximises
//!
//! ```text
//! Σ_b [ y_b log σ(θ_a − θ_b) + (1 − y_b) log σ(θ_b − θ_a) ] − λ ‖θ‖²
//! ```
//!
//! The penalty makes the optimum unique and finite (also for a model that never loses, or a
//! disconnected comparison graph) and centres it: Σ θᵢ = 0. Ratings are reported as
//! Elo = 1500 + (400 / ln 10) · θ.
//!
//! Arguments: [`Pairwise`] sufficient statistics (one entry per compared pair), so each Newton
//! iteration costs O(pairs + models³). Returns: [`BradleyTerry`] with θ, the objective, the
//! iteration count and the convergence criterion reached. Errors: [`Error::InvalidParam`] for
//! λ ≤ 0, a non-positive tolerance or zero iterations; [`Error::Insufficient`] for fewer than two
//! models.

use crate::io::checks::{at_least_one, positive};
use crate::io::error::{Error, Result};
use crate::math::linalg::cholesky_solve;
use crate::math::logistic::{sigmoid, softplus};
use crate::rankings::pairwise::Pairwise;
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

/// The Elo rating of strength 0.
pub const ELO_BASE: f64 = 1500.0;

/// Elo points per unit of θ: 400 / ln 10.
pub const ELO_PER_THETA: f64 = 400.0 / std::f64::consts::LN_10;

/// Maps a strength θ to the Elo scale.
pub fn elo(theta: f64) -> f64 {
    ELO_BASE + ELO_PER_THETA * theta
}

/// Settings of a Bradley–Terry fit (as CLI options: `--lambda --max-iter --tol`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct BradleyTerryParams {
    /// L2 penalty λ on θ (seed 002 uses 0.01).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = BradleyTerryParams::default().lambda, allow_negative_numbers = true)
    )]
    pub lambda: f64,
    /// Most Newton iterations before giving up.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = BradleyTerryParams::default().max_iter, allow_negative_numbers = true)
    )]
    pub max_iter: usize,
    /// Convergence tolerance on the largest Newton step.
    ///
    /// Converged when the largest (undamped) Newton step in θ is at most this — in the
    /// directions the data identify; shifting a whole connected part is judged by the objective
    /// decrease it still promises (see [`BradleyTerryParams::fit_from`]).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = BradleyTerryParams::default().tol, allow_negative_numbers = true)
    )]
    pub tol: f64,
}

impl Default for BradleyTerryParams {
    fn default() -> Self {
        Self {
            lambda: 0.01,
            max_iter: 100,
            tol: 1e-10,
        }
    }
}

/// A fitted Bradley–Terry model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BradleyTerry {
    /// Strengths θ, one per model, summing to 0.
    pub theta: Vec<f64>,
    /// Newton iterations taken.
    pub iterations: usize,
    /// Whether the step criterion was met within `max_iter`.
    pub converged: bool,
    /// The largest |Newton step| of the last iteration (before any damping).
    pub last_step: f64,
    /// The largest |∂objective/∂θ| at the returned θ.
    pub max_abs_gradient: f64,
    /// Log-likelihood of the data at θ (without the penalty).
    pub log_likelihood: f64,
}

impl BradleyTerry {
    /// Ratings on the Elo scale.
    pub fn elo(&self) -> Vec<f64> {
        self.theta.iter().map(|&t| elo(t)).collect()
    }

    /// P(model `i` beats model `j`).
    pub fn win_probability(&self, i: usize, j: usize) -> f64 {
        sigmoid(self.theta[i] - self.theta[j])
    }
}

impl BradleyTerryParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        positive("lambda", self.lambda)?;
        positive("tol", self.tol)?;
        at_least_one("max_iter", self.max_iter)?;
        Ok(())
    }

    /// Fits θ starting from 0.
    pub fn fit(&self, data: &Pairwise) -> Result<BradleyTerry> {
        self.fit_from(data, &vec![0.0; data.n_models])
    }

    /// Fits θ starting from `start` (a warm start, e.g. the full-data fit for a bootstrap
    /// replicate). `start` must have one entry per model.
    pub fn fit_from(&self, data: &Pairwise, start: &[f64]) -> Result<BradleyTerry> {
        self.validate()?;
        let m = data.n_models;
        if m < 2 {
            return Err(Error::Insufficient(format!(
                "Bradley–Terry needs at least two models, found {m}"
            )));
        }
        if start.len() != m {
            return Err(Error::param(
                "start",
                format!("expected {m} starting strengths, found {}", start.len()),
            ));
        }
        let mut theta = Array1::from(start.to_vec());
        let parts = data.components();
        let (mut value, mut grad, mut hess) = self.evaluate(data, &theta);
        let mut iterations = 0;
        let mut converged = false;
        let mut last_step = f64::INFINITY;
        while iterations < self.max_iter {
            let Some(step) = cholesky_solve(&hess, &grad) else {
                break;
            };
            let slope = grad.dot(&step);
            // Backtrack until the objective decreases enough; near the optimum its change is
            // round-off, so allow that much slack rather than shrink a good Newton step.
            let slack = 1e-12 * value.abs().max(1.0);
            let sufficient =
                |next_value: f64, t: f64| next_value <= value - 1e-4 * t * slope + slack;
            // The full step is tried with the pass that also gives the next gradient and
            // Hessian, so an accepted full step costs one pass over the pairs.
            let full = &theta - &step;
            let at_full = self.evaluate(data, &full);
            let (next, at_next) = if sufficient(at_full.0, 1.0) {
                (full, at_full)
            } else {
                let mut t = 0.5;
                let mut next = &theta - &(t * &step);
                while !sufficient(self.objective(data, &next), t) && t > 1e-12 {
                    t *= 0.5;
                    next = &theta - &(t * &step);
                }
                let at_next = self.evaluate(data, &next);
                (next, at_next)
            };
            // Convergence is judged on the full Newton step, never on a damped one, and in the
            // directions the data identify: moving a whole connected part up or down changes
            // only the penalty, so with a tiny λ the step along that shift is round-off / λ
            // and never settles. That direction counts as converged when what it could still
            // gain (its share of the Newton decrement) is below the objective's round-off.
            last_step = step.iter().fold(0.0_f64, |acc, s| acc.max(s.abs()));
            let (identified_step, shift_decrement) = split_step(&parts, &step, &grad);
            theta = next;
            (value, grad, hess) = at_next;
            iterations += 1;
            if last_step <= self.tol || (identified_step <= self.tol && shift_decrement <= slack) {
                converged = true;
                break;
            }
        }
        let penalty = self.lambda * theta.dot(&theta);
        Ok(BradleyTerry {
            max_abs_gradient: grad.iter().fold(0.0_f64, |acc, g| acc.max(g.abs())),
            log_likelihood: -(value - penalty),
            theta: theta.to_vec(),
            iterations,
            converged,
            last_step,
        })
    }

    /// Penalised negative log-likelihood. Per pair, with d = θᵢ − θⱼ and softplus(d) =
    /// softplus(−d) + d: wᵢ·softplus(−d) + (n − wᵢ)·softplus(d) = n·softplus(−d) + (n − wᵢ)·d.
    fn objective(&self, data: &Pairwise, theta: &Array1<f64>) -> f64 {
        let nll: f64 = data
            .pairs
            .iter()
            .map(|p| {
                let d = theta[p.i] - theta[p.j];
                p.n * softplus(-d) + (p.n - p.wins_i) * d
            })
            .sum();
        nll + self.lambda * theta.dot(theta)
    }

    /// Objective, gradient and Hessian of the penalised negative log-likelihood, in one pass
    /// with one exponential per pair.
    fn evaluate(&self, data: &Pairwise, theta: &Array1<f64>) -> (f64, Array1<f64>, Array2<f64>) {
        let m = data.n_models;
        let mut grad = 2.0 * self.lambda * theta;
        let mut hess = Array2::from_diag_elem(m, 2.0 * self.lambda);
        let mut nll = 0.0;
        for p in &data.pairs {
            let d = theta[p.i] - theta[p.j];
            // e = e^(−|d|): σ(d) and softplus(−d) both follow from it.
            let e = (-d.abs()).exp();
            let prob = if d >= 0.0 {
                1.0 / (1.0 + e)
            } else {
                e / (1.0 + e)
            };
            nll += p.n * ((-d).max(0.0) + e.ln_1p()) + (p.n - p.wins_i) * d;
            let r = p.wins_i - p.n * prob;
            grad[p.i] -= r;
            grad[p.j] += r;
            let h = p.n * prob * (1.0 - prob);
            hess[[p.i, p.i]] += h;
            hess[[p.j, p.j]] += h;
            hess[[p.i, p.j]] -= h;
            hess[[p.j, p.i]] -= h;
        }
        (nll + self.lambda * theta.dot(theta), grad, hess)
    }
}

/// A Newton step split into its identified part and the shifts of whole connected parts: the
/// largest |step| after removing each part's mean step, and Σ_parts (mean step)·(Σ gradient)
/// — the objective decrease the shifts still promise.
fn split_step(parts: &[usize], step: &Array1<f64>, grad: &Array1<f64>) -> (f64, f64) {
    let n_parts = parts.iter().max().map_or(0, |p| p + 1);
    let mut sum = vec![0.0; n_parts];
    let mut size = vec![0.0; n_parts];
    let mut gradient = vec![0.0; n_parts];
    for (v, &p) in parts.iter().enumerate() {
        sum[p] += step[v];
        size[p] += 1.0;
        gradient[p] += grad[v];
    }
    let mean: Vec<f64> = sum.iter().zip(&size).map(|(s, n)| s / n).collect();
    let identified = parts
        .iter()
        .enumerate()
        .fold(0.0_f64, |acc, (v, &p)| acc.max((step[v] - mean[p]).abs()));
    let decrement = mean.iter().zip(&gradient).map(|(m, g)| (m * g).abs()).sum();
    (identified, decrement)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rankings::battles::Battle;

    fn pairwise(m: usize, battles: &[(usize, usize, f64)]) -> Pairwise {
        let b: Vec<Battle> = battles
            .iter()
            .map(|&(a, b, y)| Battle { a, b, y })
            .collect();
        Pairwise::from_battles(m, &b)
    }

    fn repeat(a: usize, b: usize, y: f64, times: usize) -> Vec<(usize, usize, f64)> {
        vec![(a, b, y); times]
    }

    #[test]
    fn two_models_satisfy_the_stationarity_equation() {
        // A beats B 3 times of 4. By symmetry θ_A = −θ_B = t, and the optimum solves
        // w − n σ(2t) = 2 λ t  (w = 3, n = 4).
        let mut battles = repeat(0, 1, 1.0, 3);
        battles.push((0, 1, 0.0));
        let lambda = 0.01;
        let fit = BradleyTerryParams {
            lambda,
            ..Default::default()
        }
        .fit(&pairwise(2, &battles))
        .unwrap();
        let t = fit.theta[0];
        assert!(fit.converged);
        assert!((fit.theta[0] + fit.theta[1]).abs() < 1e-14);
        assert!((3.0 - 4.0 * sigmoid(2.0 * t) - 2.0 * lambda * t).abs() < 1e-12);
        // Unpenalised limit: σ(2t) = 3/4, so t = ln(3)/2.
        assert!(t < 3f64.ln() / 2.0 && t > 3f64.ln() / 2.0 - 0.01);
    }

    #[test]
    fn ten_to_one_odds_are_400_elo() {
        // With λ → 0, winning 10 of 11 means odds 10:1, which is 400 Elo points by definition.
        let mut battles = repeat(0, 1, 1.0, 10);
        battles.push((1, 0, 1.0));
        let fit = BradleyTerryParams {
            lambda: 1e-12,
            ..Default::default()
        }
        .fit(&pairwise(2, &battles))
        .unwrap();
        let elo = fit.elo();
        assert!((elo[0] - elo[1] - 400.0).abs() < 1e-6, "{elo:?}");
        assert!((elo[0] + elo[1] - 3000.0).abs() < 1e-9);
    }

    #[test]
    fn ties_count_half_and_all_ties_give_equal_ratings() {
        let fit = BradleyTerryParams::default()
            .fit(&pairwise(3, &[(0, 1, 0.5), (1, 2, 0.5), (2, 0, 0.5)]))
            .unwrap();
        assert!(fit.theta.iter().all(|t| t.abs() < 1e-15));
        // One tie plus one win equals "1.5 of 2": σ(2t) → 3/4 as λ → 0.
        let fit = BradleyTerryParams {
            lambda: 1e-12,
            ..Default::default()
        }
        .fit(&pairwise(2, &[(0, 1, 0.5), (0, 1, 1.0)]))
        .unwrap();
        assert!((sigmoid(fit.theta[0] - fit.theta[1]) - 0.75).abs() < 1e-9);
    }

    #[test]
    fn undefeated_model_stays_finite_and_ranks_first() {
        let fit = BradleyTerryParams::default()
            .fit(&pairwise(
                3,
                &[(0, 1, 1.0), (0, 2, 1.0), (1, 2, 1.0), (2, 1, 1.0)],
            ))
            .unwrap();
        assert!(fit.converged);
        assert!(fit.theta.iter().all(|t| t.is_finite()));
        assert!(fit.theta[0] > fit.theta[1] && (fit.theta[1] - fit.theta[2]).abs() < 1e-12);
        assert!(fit.theta.iter().sum::<f64>().abs() < 1e-13);
    }

    #[test]
    fn warm_start_reaches_the_same_optimum() {
        let data = pairwise(3, &[(0, 1, 1.0), (1, 2, 0.0), (2, 0, 0.5), (0, 2, 1.0)]);
        let params = BradleyTerryParams::default();
        let cold = params.fit(&data).unwrap();
        let warm = params.fit_from(&data, &[1.0, -2.0, 0.5]).unwrap();
        for (c, w) in cold.theta.iter().zip(&warm.theta) {
            assert!((c - w).abs() < 1e-12);
        }
    }

    #[test]
    fn a_tiny_penalty_converges_on_the_identified_directions() {
        // λ = 1e-9: shifting every θ together changes the objective by λ‖θ‖² only, so the
        // Newton step along that direction is round-off / λ. The fit must still converge, with
        // the gradient at round-off.
        let battles = [
            (0, 1, 1.0),
            (1, 0, 1.0),
            (1, 2, 1.0),
            (2, 1, 1.0),
            (0, 2, 1.0),
            (2, 0, 1.0),
            (0, 1, 1.0),
            (3, 2, 1.0),
            (2, 3, 0.5),
            (3, 0, 0.0),
            (1, 3, 1.0),
            (3, 1, 1.0),
        ];
        let mut many = Vec::new();
        for _ in 0..40 {
            many.extend_from_slice(&battles);
        }
        let fit = BradleyTerryParams {
            lambda: 1e-9,
            ..Default::default()
        }
        .fit(&pairwise(4, &many))
        .unwrap();
        assert!(fit.converged, "{fit:?}");
        assert!(fit.iterations < 20, "{fit:?}");
        assert!(fit.max_abs_gradient < 1e-9, "{fit:?}");
    }

    #[test]
    fn rejects_bad_settings_and_too_few_models() {
        let data = pairwise(2, &[(0, 1, 1.0)]);
        for lambda in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let err = BradleyTerryParams {
                lambda,
                ..Default::default()
            }
            .fit(&data);
            assert!(matches!(
                err,
                Err(Error::InvalidParam { name: "lambda", .. })
            ));
        }
        let err = BradleyTerryParams::default().fit(&Pairwise {
            n_models: 1,
            pairs: vec![],
        });
        assert!(matches!(err, Err(Error::Insufficient(_))));
    }
}
