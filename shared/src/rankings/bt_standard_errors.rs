//! Analytic standard errors of Bradley–Terry ratings at the fitted θ̂, on the Elo scale.
//!
//! Model: the penalised Bradley–Terry objective of seed 002, Eq. 1. Battle b between models a
//! and b' with target y_b contributes ℓ_b(θ) = y_b log σ(θ_a − θ_b') + (1 − y_b) log σ(θ_b' − θ_a),
//! with score and Hessian of the penalised negative log-likelihood
//!
//! ```text
//! s_b = ∂ℓ_b/∂θ = (y_b − σ(θ_a − θ_b')) (e_a − e_b')
//! H   = Σ_b σ(θ_a − θ_b')(1 − σ(θ_a − θ_b')) (e_a − e_b')(e_a − e_b')ᵀ + 2λ I
//! ```
//!
//! Three covariances of θ̂ are reported:
//!
//! ```text
//! model-based      V = H⁻¹
//! sandwich         V = H⁻¹ B H⁻¹,   B   = Σ_b s_b s_bᵀ
//! cluster-robust   V = H⁻¹ B_C H⁻¹, B_C = Σ_c (Σ_(b∈c) s_b)(Σ_(b∈c) s_b)ᵀ
//! ```
//!
//! H⁻¹ is taken on the subspace where θ̂ lives: the penalty's stationarity condition makes θ̂
//! sum to 0 over each connected component of the comparison graph, and H has eigenvalue 2λ
//! along each component's indicator vector c_k, so H⁻¹ − Σ_k c_k c_kᵀ / (2λ |c_k|) (the
//! Moore–Penrose inverse of H projected onto that subspace) replaces H⁻¹. B is the uncentred
//! sum of outer products (at θ̂, Σ_b s_b = 2λθ̂, negligible for small λ), and B_C has no
//! small-sample factor (CR0). The model-based covariance assumes Var(y_b) = σ(1 − σ), as for
//! binary outcomes; with ties or soft targets the sandwich is the consistent one.
//!
//! H and B are summed per battle type (unordered pair × target value, with its count), B_C per
//! cluster from its pair totals, so the cost is O(types + Σ_c (models in c)² + m³), not
//! O(battles). Standard errors are √diag(V) × 400/ln 10 (Elo points).
//!
//! Arguments: [`Battles`], optionally one cluster label per battle, and the Bradley–Terry
//! settings (λ, and the solver settings when θ̂ is fitted here). Returns:
//! [`BtStandardErrors`]. Errors: [`Error::InvalidParam`] for invalid settings or battles, a θ of
//! the wrong length or not finite, or a cluster list of the wrong length;
//! [`Error::Insufficient`] for fewer than two models or no battles.

use crate::io::error::{Error, Result};
use crate::math::linalg::spd_inverse;
use crate::math::logistic::sigmoid;
use crate::rankings::battles::Battles;
use crate::rankings::bradley_terry::{elo, BradleyTerryParams, ELO_PER_THETA};
use crate::rankings::bt_bootstrap::{BattleTypes, ClusterTotals};
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

/// Settings of the analytic standard errors.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct BtStandardErrorsParams {
    /// The fit (λ enters the Hessian).
    pub bt: BradleyTerryParams,
}

/// A covariance matrix of the ratings on the Elo scale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Covariance {
    /// Standard error of each model's Elo.
    pub se: Vec<f64>,
    /// Covariance of the Elo ratings (Elo points²), one row per model.
    pub matrix: Vec<Vec<f64>>,
}

impl Covariance {
    fn from_theta(v: &Array2<f64>) -> Self {
        let scale = ELO_PER_THETA * ELO_PER_THETA;
        let matrix: Vec<Vec<f64>> = v
            .rows()
            .into_iter()
            .map(|row| row.iter().map(|x| x * scale).collect())
            .collect();
        let se = (0..v.nrows())
            .map(|i| matrix[i][i].max(0.0).sqrt())
            .collect();
        Self { se, matrix }
    }

    /// Standard error of Eloᵢ − Eloⱼ: √(Vᵢᵢ + Vⱼⱼ − 2Vᵢⱼ).
    pub fn se_difference(&self, i: usize, j: usize) -> f64 {
        (self.matrix[i][i] + self.matrix[j][j] - 2.0 * self.matrix[i][j])
            .max(0.0)
            .sqrt()
    }
}

/// Standard errors of every model's rating at θ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BtStandardErrors {
    pub models: Vec<String>,
    pub lambda: f64,
    /// The strengths the errors are evaluated at (the fitted θ̂ unless given).
    pub theta: Vec<f64>,
    pub elo: Vec<f64>,
    /// Largest |∂objective/∂θ| at θ: near 0 when θ is the optimum the formulas assume.
    pub max_abs_gradient: f64,
    /// Inverse Hessian of the penalised objective.
    pub model_based: Covariance,
    /// H⁻¹ B H⁻¹ with per-battle scores.
    pub sandwich: Covariance,
    /// H⁻¹ B_C H⁻¹ with scores summed within clusters, when cluster labels were given.
    pub cluster_robust: Option<Covariance>,
    pub n_clusters: Option<usize>,
}

impl BtStandardErrorsParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        self.bt.validate()
    }

    /// Fits θ̂ and computes the standard errors there.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn compute(
        &self,
        battles: &Battles,
        clusters: Option<&[usize]>,
    ) -> Result<BtStandardErrors> {
        self.validate()?;
        let types = BattleTypes::from_battles(battles)?;
        let fit = self
            .bt
            .fit(&types.pairwise(types.types.iter().map(|t| t.count)))?;
        self.at(battles, &types, &fit.theta, clusters)
    }

    /// Computes the standard errors at a given θ (e.g. a fit made elsewhere); only λ of the
    /// settings is used.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn compute_at(
        &self,
        battles: &Battles,
        theta: &[f64],
        clusters: Option<&[usize]>,
    ) -> Result<BtStandardErrors> {
        self.validate()?;
        let types = BattleTypes::from_battles(battles)?;
        if theta.len() != types.n_models || theta.iter().any(|t| !t.is_finite()) {
            return Err(Error::param(
                "theta",
                format!(
                    "expected {} finite strengths, found {} values{}",
                    types.n_models,
                    theta.len(),
                    if theta.iter().all(|t| t.is_finite()) {
                        ""
                    } else {
                        " with a non-finite one"
                    }
                ),
            ));
        }
        self.at(battles, &types, theta, clusters)
    }

    fn at(
        &self,
        battles: &Battles,
        types: &BattleTypes,
        theta: &[f64],
        clusters: Option<&[usize]>,
    ) -> Result<BtStandardErrors> {
        let m = types.n_models;
        let lambda = self.bt.lambda;
        let mut h = Array2::from_diag_elem(m, 2.0 * lambda);
        let mut b = Array2::zeros((m, m));
        let mut grad = Array1::from_iter(theta.iter().map(|t| 2.0 * lambda * t));
        for t in &types.types {
            let p = sigmoid(theta[t.i] - theta[t.j]);
            let c = t.count as f64;
            add_edge(&mut h, t.i, t.j, c * p * (1.0 - p));
            add_edge(&mut b, t.i, t.j, c * (t.target - p).powi(2));
            grad[t.i] -= c * (t.target - p);
            grad[t.j] += c * (t.target - p);
        }
        let mut v = spd_inverse(&h).ok_or_else(|| {
            Error::Insufficient(
                "the Hessian is not positive definite (λ too small for the data's scale)"
                    .to_owned(),
            )
        })?;
        let labels = types
            .pairwise(types.types.iter().map(|t| t.count))
            .components();
        let n_components = labels.iter().max().map_or(0, |c| c + 1);
        for k in 0..n_components {
            let members: Vec<usize> = (0..m).filter(|&i| labels[i] == k).collect();
            let share = 1.0 / (2.0 * lambda * members.len() as f64);
            for &i in &members {
                for &j in &members {
                    v[[i, j]] -= share;
                }
            }
        }
        let sandwich = v.dot(&b).dot(&v);
        let (cluster_robust, n_clusters) = match clusters {
            None => (None, None),
            Some(labels) => {
                let totals = ClusterTotals::new(battles, labels)?;
                let bc = cluster_meat(&totals, theta);
                (
                    Some(Covariance::from_theta(&v.dot(&bc).dot(&v))),
                    Some(totals.clusters.len()),
                )
            }
        };
        Ok(BtStandardErrors {
            models: battles.models.clone(),
            lambda,
            theta: theta.to_vec(),
            elo: theta.iter().map(|&t| elo(t)).collect(),
            max_abs_gradient: grad.iter().fold(0.0_f64, |acc, g| acc.max(g.abs())),
            model_based: Covariance::from_theta(&v),
            sandwich: Covariance::from_theta(&sandwich),
            cluster_robust,
            n_clusters,
        })
    }
}

/// Adds w (e_i − e_j)(e_i − e_j)ᵀ to `a`.
fn add_edge(a: &mut Array2<f64>, i: usize, j: usize, w: f64) {
    a[[i, i]] += w;
    a[[j, j]] += w;
    a[[i, j]] -= w;
    a[[j, i]] -= w;
}

/// B_C = Σ_c g_c g_cᵀ with g_c = Σ_(pairs in c) (wins_i − n σ(θᵢ − θⱼ)) (e_i − e_j).
fn cluster_meat(totals: &ClusterTotals, theta: &[f64]) -> Array2<f64> {
    let m = totals.n_models;
    let p: Vec<f64> = totals
        .pairs
        .iter()
        .map(|&(i, j)| sigmoid(theta[i] - theta[j]))
        .collect();
    let mut bc = Array2::zeros((m, m));
    let mut g = vec![0.0; m];
    let mut touched: Vec<usize> = Vec::new();
    for cluster in &totals.clusters {
        for &(k, n, wins) in cluster {
            let (i, j) = totals.pairs[k];
            let r = wins - n * p[k];
            g[i] += r;
            g[j] -= r;
            touched.extend([i, j]);
        }
        touched.sort_unstable();
        touched.dedup();
        for &x in &touched {
            for &y in &touched {
                bc[[x, y]] += g[x] * g[y];
            }
        }
        for &x in &touched {
            g[x] = 0.0;
        }
        touched.clear();
    }
    bc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rankings::battles::Battle;

    fn two_models(wins: usize, losses: usize) -> Battles {
        let mut battles = vec![Battle { a: 0, b: 1, y: 1.0 }; wins];
        battles.extend(vec![Battle { a: 0, b: 1, y: 0.0 }; losses]);
        Battles {
            models: vec!["a".into(), "b".into()],
            battles,
        }
    }

    #[test]
    fn two_models_by_hand() {
        // Two models, θ = (t, −t), d = 2t, p = σ(d), n battles. H = n p(1−p) [[1,−1],[−1,1]]
        // + 2λI; on the sum-zero direction u = (1,−1)/√2, H u = (2 n p(1−p) + 2λ) u, so
        // Var θ₀ = ½ / (2 n p(1−p) + 2λ). B = (Σ (y − p)²) [[1,−1],[−1,1]], so the sandwich
        // Var θ₀ = ½ · 2 Σ(y − p)² / (2 n p(1−p) + 2λ)².
        let battles = two_models(30, 10);
        let params = BtStandardErrorsParams::default();
        let se = params.compute(&battles, None).unwrap();
        let (t, lambda) = (se.theta[0], params.bt.lambda);
        let p = sigmoid(2.0 * t);
        let denom = 2.0 * 40.0 * p * (1.0 - p) + 2.0 * lambda;
        let model = (0.5 / denom).sqrt() * ELO_PER_THETA;
        let ss = 30.0 * (1.0 - p).powi(2) + 10.0 * p.powi(2);
        let sandwich = (ss / denom.powi(2)).sqrt() * ELO_PER_THETA;
        for i in 0..2 {
            assert!((se.model_based.se[i] - model).abs() < 1e-10 * model);
            assert!((se.sandwich.se[i] - sandwich).abs() < 1e-10 * sandwich);
        }
        // Eloᵢ − Eloⱼ = 2 Elo₀ here, so its SE is twice the per-model SE.
        assert!((se.sandwich.se_difference(0, 1) - 2.0 * sandwich).abs() < 1e-9);
        assert!(se.max_abs_gradient < 1e-9);
    }

    #[test]
    fn one_cluster_per_battle_equals_the_sandwich() {
        let battles = two_models(7, 3);
        let labels: Vec<usize> = (0..10).rev().collect();
        let se = BtStandardErrorsParams::default()
            .compute(&battles, Some(&labels))
            .unwrap();
        let robust = se.cluster_robust.unwrap();
        assert_eq!(se.n_clusters, Some(10));
        for i in 0..2 {
            assert!((robust.se[i] - se.sandwich.se[i]).abs() < 1e-12 * se.sandwich.se[i]);
        }
    }

    #[test]
    fn rejects_a_theta_of_the_wrong_length() {
        let err = BtStandardErrorsParams::default().compute_at(&two_models(1, 1), &[0.0], None);
        assert!(matches!(
            err,
            Err(Error::InvalidParam { name: "theta", .. })
        ));
    }
}
