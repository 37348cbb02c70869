//! The label model over programmatic judges' votes (seed 004 §3.3): a Dawid–Skene generative
//! model, fitted by EM without labels, that learns each program's accuracy from how the
//! programs agree and disagree; and majority vote, reported beside it.
//!
//! Model: each item has a latent preference y ∈ {+1, −1} with P(y = +1) = π. Program j abstains
//! independently of y; when it votes, it votes y with probability a_j (its accuracy) and −y
//! otherwise, independently of the other programs given y. The posterior of item i is
//!   P(y_i = +1 | votes) = σ(logit π + Σ_j v_ij · logit a_j).
//! EM: the E-step computes these posteriors q_i; the M-step sets
//!   a_j = (Σ_{i: v_ij ≠ 0} [v_ij = +1]·q_i + [v_ij = −1]·(1 − q_i) + c) / (n_j + 2c),
//! with n_j the items j votes on and c a Beta(1 + c, 1 + c) pseudo-count keeping a_j inside
//! (0, 1), and π = mean q_i (or fixed). EM starts from a_j = `initial_accuracy` > ½, which picks
//! the mode where programs are better than chance (the model is symmetric under a_j → 1 − a_j,
//! y → −y). It stops when no a_j or π moves more than `tolerance`, or after `max_iterations`.
//!
//! With equal accuracies and π = ½ the posterior's sign is the sign of Σ_j v_ij: the label model
//! is majority vote. With unequal accuracies it weighs each vote by logit a_j.
//!
//! Arguments: a vote matrix (items × programs, values in {−1, 0, +1}). Returns: a [`LabelModel`]
//! (accuracies, π, iterations, log-likelihood) that gives posteriors for any vote matrix over the
//! same programs. Errors: [`Error::InvalidParam`] for settings out of range;
//! [`Error::Insufficient`] for a matrix without items or programs, or a vote outside
//! {−1, 0, +1} (naming its item and program).

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Votes of programs on items: `votes[i·programs + j]` ∈ {−1, 0, +1}.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VoteMatrix {
    pub programs: Vec<String>,
    pub items: usize,
    pub votes: Vec<i8>,
}

impl VoteMatrix {
    /// The votes on item `i`.
    pub fn row(&self, i: usize) -> &[i8] {
        let k = self.programs.len();
        &self.votes[i * k..(i + 1) * k]
    }

    fn check(&self) -> Result<()> {
        let k = self.programs.len();
        if self.items == 0 || k == 0 || self.votes.len() != self.items * k {
            return Err(Error::Insufficient(format!(
                "a label model needs items × programs votes, found {} votes for {} items and {k} \
                 programs",
                self.votes.len(),
                self.items
            )));
        }
        if let Some(at) = self.votes.iter().position(|v| !(-1..=1).contains(v)) {
            return Err(Error::Insufficient(format!(
                "item {} of program `{}`: expected a vote in {{-1, 0, 1}}, found {}",
                at / k,
                self.programs[at % k],
                self.votes[at]
            )));
        }
        Ok(())
    }
}

/// How the class prior π is set.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassPrior {
    /// Estimated by EM.
    Learned,
    /// Fixed at this P(y = +1), in (0, 1).
    Fixed(f64),
}

/// Settings of the label model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LabelModelParams {
    pub class_prior: ClassPrior,
    /// Starting accuracy of every program, in (½, 1).
    pub initial_accuracy: f64,
    /// Beta pseudo-count c ≥ 0 added to each program's agreements and disagreements.
    pub pseudo_count: f64,
    pub max_iterations: usize,
    pub tolerance: f64,
}

impl Default for LabelModelParams {
    fn default() -> Self {
        Self {
            class_prior: ClassPrior::Learned,
            initial_accuracy: 0.7,
            pseudo_count: 1.0,
            max_iterations: 1000,
            tolerance: 1e-10,
        }
    }
}

/// A fitted label model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelModel {
    pub params: LabelModelParams,
    pub programs: Vec<String>,
    /// Learned accuracy a_j of each program.
    pub accuracies: Vec<f64>,
    /// Share of items each program votes on.
    pub coverage: Vec<f64>,
    /// P(y = +1).
    pub class_prior: f64,
    pub iterations: usize,
    pub converged: bool,
    /// Marginal log-likelihood of the votes at the fitted parameters.
    pub log_likelihood: f64,
}

fn logit(p: f64) -> f64 {
    (p / (1.0 - p)).ln()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// σ(prior + Σ_j v_j · w_j).
fn posterior_of(prior: f64, weights: &[f64], votes: &[i8]) -> f64 {
    let score: f64 = votes
        .iter()
        .zip(weights)
        .map(|(&v, w)| f64::from(v) * w)
        .sum();
    sigmoid(prior + score)
}

impl LabelModelParams {
    fn validate(&self) -> Result<()> {
        if let ClassPrior::Fixed(p) = self.class_prior {
            if !(p > 0.0 && p < 1.0) {
                return Err(Error::param(
                    "class_prior",
                    format!("expected a probability in (0, 1), found {p}"),
                ));
            }
        }
        if !(self.initial_accuracy > 0.5 && self.initial_accuracy < 1.0) {
            return Err(Error::param(
                "initial_accuracy",
                format!(
                    "expected a value in (0.5, 1), found {}",
                    self.initial_accuracy
                ),
            ));
        }
        if !(self.pseudo_count >= 0.0 && self.pseudo_count.is_finite()) {
            return Err(Error::param(
                "pseudo_count",
                format!("expected a finite value ≥ 0, found {}", self.pseudo_count),
            ));
        }
        if self.max_iterations == 0 || self.tolerance.is_nan() || self.tolerance <= 0.0 {
            return Err(Error::param(
                "max_iterations",
                "expected at least one iteration and a positive tolerance",
            ));
        }
        Ok(())
    }

    /// Fits the model to `votes` by EM.
    pub fn fit(&self, votes: &VoteMatrix) -> Result<LabelModel> {
        self.validate()?;
        votes.check()?;
        let (n, k) = (votes.items, votes.programs.len());
        let c = self.pseudo_count;
        let counts: Vec<usize> = (0..k)
            .map(|j| (0..n).filter(|&i| votes.row(i)[j] != 0).count())
            .collect();
        let mut model = LabelModel {
            params: *self,
            programs: votes.programs.clone(),
            accuracies: vec![self.initial_accuracy; k],
            coverage: counts.iter().map(|&m| m as f64 / n as f64).collect(),
            class_prior: match self.class_prior {
                ClassPrior::Learned => 0.5,
                ClassPrior::Fixed(p) => p,
            },
            iterations: 0,
            converged: false,
            log_likelihood: f64::NAN,
        };
        let mut agree = vec![0.0; k];
        let mut weights = vec![0.0; k];
        while model.iterations < self.max_iterations {
            model.iterations += 1;
            // E-step fused with the M-step's sums: one pass over the votes.
            weights
                .iter_mut()
                .zip(&model.accuracies)
                .for_each(|(w, &a)| *w = logit(a));
            let prior = logit(model.class_prior);
            agree.iter_mut().for_each(|a| *a = 0.0);
            let mut q_sum = 0.0;
            for i in 0..n {
                let row = votes.row(i);
                let q = posterior_of(prior, &weights, row);
                q_sum += q;
                for (j, &v) in row.iter().enumerate() {
                    match v {
                        1 => agree[j] += q,
                        -1 => agree[j] += 1.0 - q,
                        _ => {}
                    }
                }
            }
            let mut change: f64 = 0.0;
            for j in 0..k {
                let a = ((agree[j] + c) / (counts[j] as f64 + 2.0 * c)).clamp(1e-6, 1.0 - 1e-6);
                change = change.max((a - model.accuracies[j]).abs());
                model.accuracies[j] = a;
            }
            if self.class_prior == ClassPrior::Learned {
                let pi = (q_sum / n as f64).clamp(1e-6, 1.0 - 1e-6);
                change = change.max((pi - model.class_prior).abs());
                model.class_prior = pi;
            }
            if change < self.tolerance {
                model.converged = true;
                break;
            }
        }
        model.log_likelihood = model.log_likelihood(votes);
        Ok(model)
    }
}

impl LabelModel {
    /// The posterior P(y = +1 | votes) of each item of `votes` (same programs, same order).
    pub fn posteriors(&self, votes: &VoteMatrix) -> Vec<f64> {
        (0..votes.items)
            .map(|i| self.posterior(votes.row(i)))
            .collect()
    }

    /// The posterior of one item's votes (one per program, in order).
    pub fn posterior(&self, votes: &[i8]) -> f64 {
        let score: f64 = votes
            .iter()
            .zip(&self.accuracies)
            .map(|(&v, &a)| f64::from(v) * logit(a))
            .sum();
        sigmoid(logit(self.class_prior) + score)
    }

    fn log_likelihood(&self, votes: &VoteMatrix) -> f64 {
        (0..votes.items)
            .map(|i| {
                let (mut pos, mut neg) = (self.class_prior.ln(), (1.0 - self.class_prior).ln());
                for (&v, &a) in votes.row(i).iter().zip(&self.accuracies) {
                    match v {
                        1 => {
                            pos += a.ln();
                            neg += (1.0 - a).ln();
                        }
                        -1 => {
                            pos += (1.0 - a).ln();
                            neg += a.ln();
                        }
                        _ => {}
                    }
                }
                let m = pos.max(neg);
                m + ((pos - m).exp() + (neg - m).exp()).ln()
            })
            .sum()
    }
}

/// Majority vote of each item: the sign of the sum of its votes (0 when it is a tie or every
/// program abstains).
pub fn majority_vote(votes: &VoteMatrix) -> Vec<i8> {
    (0..votes.items)
        .map(|i| {
            let sum: i32 = votes.row(i).iter().map(|&v| i32::from(v)).sum();
            sum.signum() as i8
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: &[[i8; 3]]) -> VoteMatrix {
        VoteMatrix {
            programs: vec!["a".into(), "b".into(), "c".into()],
            items: rows.len(),
            votes: rows.iter().flatten().copied().collect(),
        }
    }

    #[test]
    fn posterior_is_the_weighted_vote() {
        let model = LabelModel {
            params: LabelModelParams::default(),
            programs: vec!["a".into(), "b".into(), "c".into()],
            accuracies: vec![0.9, 0.6, 0.6],
            coverage: vec![1.0; 3],
            class_prior: 0.5,
            iterations: 0,
            converged: true,
            log_likelihood: f64::NAN,
        };
        // logit 0.9 = ln 9 > 2·logit 0.6 = 2 ln 1.5: the accurate program outvotes the others.
        let votes = matrix(&[[1, -1, -1], [0, 1, -1], [0, 0, 0]]);
        let q = model.posteriors(&votes);
        let expected = 1.0 / (1.0 + (1.5f64.powi(2) / 9.0));
        assert!((q[0] - expected).abs() < 1e-15, "{} vs {expected}", q[0]);
        assert_eq!(q[1], 0.5);
        assert_eq!(q[2], 0.5);
        assert_eq!(majority_vote(&votes), [-1, 0, 0]);
    }

    #[test]
    fn rejects_bad_votes_and_settings() {
        let err = LabelModelParams::default()
            .fit(&matrix(&[[1, 2, 0]]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "item 0 of program `b`: expected a vote in {-1, 0, 1}, found 2"
        );
        let err = LabelModelParams {
            initial_accuracy: 0.4,
            ..LabelModelParams::default()
        }
        .fit(&matrix(&[[1, 1, 0]]))
        .unwrap_err();
        assert!(err
            .to_string()
            .starts_with("invalid setting `initial_accuracy`"));
    }
}
