//! Seeded votes of programmatic judges from the label model's generative model, for tests,
//! benchmarks and demos: each item has y = +1 with probability `prior`; program j abstains with
//! probability `abstain[j]`, else votes y with probability `accuracies[j]` and −y otherwise,
//! independently. The same seed gives the same votes on every platform (ChaCha8).

use crate::io::error::{Error, Result};
use crate::programs::label_model::VoteMatrix;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Settings of a vote simulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VoteSimulationParams {
    pub items: usize,
    /// Accuracy of each program when it votes, in [0, 1].
    pub accuracies: Vec<f64>,
    /// Probability that each program abstains, in [0, 1].
    pub abstain: Vec<f64>,
    /// P(y = +1), in [0, 1].
    pub prior: f64,
    pub seed: u64,
}

/// Simulates votes; returns them with the true labels (+1/−1).
///
/// # Errors
/// [`Error::InvalidParam`] for no program, accuracies and abstain rates of different lengths,
/// or a probability outside [0, 1].
pub fn simulate_votes(params: &VoteSimulationParams) -> Result<(VoteMatrix, Vec<i8>)> {
    let k = params.accuracies.len();
    if k == 0 || params.abstain.len() != k {
        return Err(Error::param(
            "accuracies",
            format!(
                "expected one accuracy and one abstain rate per program, found {k} and {}",
                params.abstain.len()
            ),
        ));
    }
    let probabilities = params.accuracies.iter().chain(&params.abstain);
    if probabilities
        .chain([&params.prior])
        .any(|p| !(0.0..=1.0).contains(p))
    {
        return Err(Error::param(
            "accuracies",
            "every probability must be in [0, 1]",
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(params.seed);
    let mut truth = Vec::with_capacity(params.items);
    let mut votes = Vec::with_capacity(params.items * k);
    for _ in 0..params.items {
        let y: i8 = if rng.random::<f64>() < params.prior {
            1
        } else {
            -1
        };
        truth.push(y);
        for j in 0..k {
            let abstains = rng.random::<f64>() < params.abstain[j];
            let right = rng.random::<f64>() < params.accuracies[j];
            votes.push(match (abstains, right) {
                (true, _) => 0,
                (false, true) => y,
                (false, false) => -y,
            });
        }
    }
    let programs = (0..k).map(|j| format!("p{j}")).collect();
    Ok((
        VoteMatrix {
            programs,
            items: params.items,
            votes,
        },
        truth,
    ))
}
