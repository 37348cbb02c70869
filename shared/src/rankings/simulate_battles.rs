//! Seeded battles from a Bradley–Terry model, for tests, benchmarks and demos: each battle draws
//! two distinct models uniformly; with probability `tie_rate` it is a tie, otherwise model *a*
//! wins with probability σ(θ_a − θ_b). The same seed gives the same battles on every platform
//! (ChaCha8).

use crate::io::error::{Error, Result};
use crate::math::logistic::sigmoid;
use crate::rankings::battles::Battle;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Settings of a simulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimulationParams {
    /// True strengths, one per model (at least two).
    pub theta: Vec<f64>,
    pub n_battles: usize,
    /// Probability that a battle is a tie, in [0, 1).
    pub tie_rate: f64,
    pub seed: u64,
}

/// Simulates battles.
///
/// # Errors
/// [`Error::InvalidParam`] for fewer than two models, a non-finite strength, or a tie rate
/// outside [0, 1).
pub fn simulate_battles(params: &SimulationParams) -> Result<Vec<Battle>> {
    let m = params.theta.len();
    if m < 2 {
        return Err(Error::param(
            "theta",
            format!("needs at least two models, found {m}"),
        ));
    }
    if params.theta.iter().any(|t| !t.is_finite()) {
        return Err(Error::param("theta", "every strength must be finite"));
    }
    if !(0.0..1.0).contains(&params.tie_rate) {
        return Err(Error::param(
            "tie_rate",
            format!("must be in [0, 1), found {}", params.tie_rate),
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(params.seed);
    Ok((0..params.n_battles)
        .map(|_| {
            let a = rng.random_range(0..m);
            let b = (a + rng.random_range(1..m)) % m;
            let y = if rng.random::<f64>() < params.tie_rate {
                0.5
            } else if rng.random::<f64>() < sigmoid(params.theta[a] - params.theta[b]) {
                1.0
            } else {
                0.0
            };
            Battle { a, b, y }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_and_faithful_to_the_model() {
        let params = SimulationParams {
            theta: vec![1.0, 0.0],
            n_battles: 20_000,
            tie_rate: 0.0,
            seed: 3,
        };
        let battles = simulate_battles(&params).unwrap();
        assert_eq!(battles, simulate_battles(&params).unwrap());
        assert!(battles.iter().all(|b| b.a != b.b));
        let won = battles
            .iter()
            .map(|b| if b.a == 0 { b.y } else { 1.0 - b.y })
            .sum::<f64>();
        // P(0 beats 1) = σ(1) ≈ 0.7311; 4 binomial standard errors at n = 20 000 ≈ 0.0126.
        assert!((won / 20_000.0 - sigmoid(1.0)).abs() < 0.0126);
    }

    #[test]
    fn rejects_bad_settings() {
        let bad = SimulationParams {
            theta: vec![0.0],
            n_battles: 1,
            tie_rate: 0.0,
            seed: 0,
        };
        assert!(simulate_battles(&bad).is_err());
        let bad = SimulationParams {
            theta: vec![0.0, 1.0],
            n_battles: 1,
            tie_rate: 1.0,
            seed: 0,
        };
        assert!(simulate_battles(&bad).is_err());
    }
}
