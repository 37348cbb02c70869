//! Ranks you can defend: each model's set of plausible ranks, all of them covering at once
//! (prediction-powered ranking; the rank sets of Chatzi et al. 2024 built from pairwise
//! comparisons).
//!
//! For every pair of models (i, j) the interval of θ_i − θ_j at level 1 − α/m, with m = K(K−1)/2
//! the number of pairs (Bonferroni), its standard error from the fit's covariance matrix:
//! √(Σ_ii + Σ_jj − 2Σ_ij). Model j is surely above i when that interval of θ_j − θ_i lies
//! above 0. Model i's rank set is [1 + #{j surely above i}, K − #{j surely below i}] (rank 1
//! the best). With probability at least 1 − α (asymptotically) every pairwise interval covers
//! its difference at once, and then every model's true rank lies in its set: the coverage is
//! simultaneous across models, not per model. Bonferroni is conservative when pairs are many;
//! the sets are wider than a per-pair test would give, never narrower than they should be.
//!
//! Arguments: the coefficients θ (K), their covariance matrix (K × K; a reference model fixed
//! at 0 has a zero row and column) and α. Returns: a [`RankSet`] per model, in θ's order.
//! Errors: [`Error::InvalidParam`] for α outside (0, 1), a covariance matrix of another shape,
//! or a non-finite coefficient or variance.

use crate::io::checks::in_open_unit;
use crate::io::error::{Error, Result};
use crate::math::normal::normal_quantile;
use serde::{Deserialize, Serialize};

/// The ranks a model may hold, best (smallest) to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankSet {
    pub best: usize,
    pub worst: usize,
}

impl RankSet {
    /// Whether `rank` is in the set.
    pub fn contains(&self, rank: usize) -> bool {
        self.best <= rank && rank <= self.worst
    }
}

/// The simultaneous rank sets of `theta`.
///
/// # Errors
/// See the module documentation.
pub fn rank_sets(theta: &[f64], covariance: &[Vec<f64>], alpha: f64) -> Result<Vec<RankSet>> {
    in_open_unit("alpha", alpha)?;
    let k = theta.len();
    if covariance.len() != k || covariance.iter().any(|row| row.len() != k) {
        return Err(Error::param(
            "covariance",
            format!("expected a {k} × {k} covariance matrix"),
        ));
    }
    if theta
        .iter()
        .chain(covariance.iter().flatten())
        .any(|v| !v.is_finite())
    {
        return Err(Error::param(
            "covariance",
            "expected finite coefficients and covariances",
        ));
    }
    let pairs = (k * k.saturating_sub(1) / 2).max(1) as f64;
    let z = normal_quantile(1.0 - alpha / (2.0 * pairs));
    // above[i][j]: j is surely above i.
    let surely_above = |i: usize, j: usize| {
        let var = covariance[i][i] + covariance[j][j] - 2.0 * covariance[i][j];
        theta[j] - theta[i] - z * var.max(0.0).sqrt() > 0.0
    };
    Ok((0..k)
        .map(|i| {
            let above = (0..k).filter(|&j| j != i && surely_above(i, j)).count();
            let below = (0..k).filter(|&j| j != i && surely_above(j, i)).count();
            RankSet {
                best: 1 + above,
                worst: k - below,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_sets_follow_the_bonferroni_pairwise_intervals() {
        // Three models, independent coefficients with variance 0.01 (the difference's standard
        // error √0.02 = 0.1414). Three pairs at α = 0.06: z = Φ⁻¹(1 − 0.01) = 2.3263, so a
        // difference is sure beyond 0.3290. 1.0 − 0.0 and 1.0 − 0.7 = 0.3 are not both sure:
        // B (1.0) is surely above A (0.0) but not above C (0.7); C is surely above A (0.7).
        let cov = vec![
            vec![0.01, 0.0, 0.0],
            vec![0.0, 0.01, 0.0],
            vec![0.0, 0.0, 0.01],
        ];
        let sets = rank_sets(&[0.0, 1.0, 0.7], &cov, 0.06).unwrap();
        assert_eq!(sets[0], RankSet { best: 3, worst: 3 });
        assert_eq!(sets[1], RankSet { best: 1, worst: 2 });
        assert_eq!(sets[2], RankSet { best: 1, worst: 2 });
        // At 0.34 apart B and C separate too.
        let sets = rank_sets(&[0.0, 1.04, 0.7], &cov, 0.06).unwrap();
        assert_eq!(
            sets,
            [
                RankSet { best: 3, worst: 3 },
                RankSet { best: 1, worst: 1 },
                RankSet { best: 2, worst: 2 }
            ]
        );
        // A positive covariance narrows a difference: Var(B − C) = 0.02 − 2 · 0.009 = 0.002.
        let correlated = vec![
            vec![0.01, 0.0, 0.0],
            vec![0.0, 0.01, 0.009],
            vec![0.0, 0.009, 0.01],
        ];
        let sets = rank_sets(&[0.0, 1.0, 0.7], &correlated, 0.06).unwrap();
        assert_eq!(sets[1], RankSet { best: 1, worst: 1 });
        // One model: rank 1. No information (huge variances): every rank possible.
        assert_eq!(
            rank_sets(&[0.3], &[vec![0.0]], 0.05).unwrap(),
            [RankSet { best: 1, worst: 1 }]
        );
        let vague = vec![vec![100.0, 0.0], vec![0.0, 100.0]];
        assert_eq!(
            rank_sets(&[0.0, 1.0], &vague, 0.05).unwrap(),
            [RankSet { best: 1, worst: 2 }; 2]
        );
        assert!(rank_sets(&[0.0, 1.0], &vague, 1.0).is_err());
        assert!(rank_sets(&[0.0, f64::NAN], &vague, 0.05).is_err());
        assert!(rank_sets(&[0.0, 1.0, 2.0], &vague, 0.05).is_err());
    }
}
