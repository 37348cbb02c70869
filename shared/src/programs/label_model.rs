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
//! (0, 1) (a program that never votes gets ½, or NaN with c = 0; either way its abstentions add
//! nothing to any posterior), and π = mean q_i (or fixed). EM starts from a_j =
//! `initial_accuracy` > ½, which picks the mode where programs are better than chance (the
//! model is symmetric under a_j → 1 − a_j, y → −y). It stops when no a_j or π moves more than
//! `tolerance`, or after `max_iterations`.
//!
//! With equal accuracies and π = ½ the posterior's sign is the sign of Σ_j v_ij: the label model
//! is majority vote. With unequal accuracies it weighs each vote by logit a_j.
//!
//! EM runs over the non-abstaining votes only, stored program by program, with no branch on a
//! vote's value. Each sum is added in the order of the dense loop over items × programs, whose
//! abstentions add zeros, so the fit is that loop's to the last bit (tested against it); only
//! a NaN weight (a never-voting program with c = 0) is skipped where that loop added 0 · NaN.
//!
//! Arguments: a vote matrix (items × programs, values in {−1, 0, +1}). Returns: a [`LabelModel`]
//! (accuracies, π, iterations, log-likelihood) that gives posteriors for any vote matrix over the
//! same programs. Errors: [`Error::InvalidParam`] for settings out of range;
//! [`Error::Insufficient`] for a matrix without items or programs or with 2³¹ items or more, or
//! a vote outside {−1, 0, +1} (naming its item and program).

use crate::io::checks::in_open_unit;
use crate::io::error::{Error, Result};
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

impl std::str::FromStr for ClassPrior {
    type Err = String;

    /// `learned`, or the fixed P(y = +1) as a number.
    fn from_str(text: &str) -> std::result::Result<Self, String> {
        match text {
            "learned" => Ok(Self::Learned),
            _ => text.parse().map(Self::Fixed).map_err(|_| {
                format!("expected `learned` or a probability P(`a` wins), found `{text}`")
            }),
        }
    }
}

impl std::fmt::Display for ClassPrior {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Learned => f.write_str("learned"),
            Self::Fixed(p) => write!(f, "{p}"),
        }
    }
}

/// Settings of the label model.
///
/// As command-line options (feature `cli`) only the class prior is one; the fit's own settings
/// keep their defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct LabelModelParams {
    /// P(`a` wins) fixed in the label model, or `learned` by EM.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ClassPrior::Learned, allow_negative_numbers = true)
    )]
    pub class_prior: ClassPrior,
    /// Starting accuracy of every program, in (½, 1).
    #[cfg_attr(feature = "cli", arg(skip = LabelModelParams::default().initial_accuracy))]
    pub initial_accuracy: f64,
    /// Beta pseudo-count c ≥ 0 added to each program's agreements and disagreements.
    #[cfg_attr(feature = "cli", arg(skip = LabelModelParams::default().pseudo_count))]
    pub pseudo_count: f64,
    #[cfg_attr(feature = "cli", arg(skip = LabelModelParams::default().max_iterations))]
    pub max_iterations: usize,
    #[cfg_attr(feature = "cli", arg(skip = LabelModelParams::default().tolerance))]
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
    /// Learned accuracy a_j of each program (NaN for one that never votes when the
    /// pseudo-count is 0).
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

/// 1 / (1 + e^(−x)) for every x: not [`crate::math::logistic::sigmoid`], whose e^x / (1 + e^x)
/// for x < 0 differs from this in the last bit for about half of all x; the label model's
/// numbers (pinned to the last bit by `sparse_em_equals_the_dense_loop`) are this form's.
fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// σ(prior + Σ_{j: v_j ≠ 0} v_j · w_j): an abstention adds nothing, whatever its program's
/// weight (even the NaN of a program that never voted, fitted without a pseudo-count).
fn posterior_of(prior: f64, weights: &[f64], votes: &[i8]) -> f64 {
    let score: f64 = votes
        .iter()
        .zip(weights)
        .map(|(&v, &w)| if v == 0 { 0.0 } else { f64::from(v) * w })
        .sum();
    sigmoid(prior + score)
}

/// The non-abstaining votes of a checked [`VoteMatrix`], program by program (compressed
/// columns): program j's votes are `codes[starts[j]..starts[j + 1]]`, in item order, each coded
/// as `2·i + [v_ij = −1]`. The low bit of a code picks from a per-program pair (for a vote +1,
/// for a vote −1), and the code itself indexes per-item pairs, so that no loop branches on a
/// vote's value. Every sum is taken in the order of the dense loop over items × programs (an
/// item's terms in program order, a program's in item order), so the numbers are that loop's to
/// the last bit: the abstentions it skips add zeros, which change no sum.
struct SparseVotes {
    items: usize,
    starts: Vec<usize>,
    codes: Vec<u32>,
    /// The programs by decreasing number of votes: the M-step sums them four at a time.
    by_votes: Vec<usize>,
}

/// How many programs' sums the M-step adds side by side: independent chains of additions,
/// which the processor overlaps.
const LANES: usize = 4;

impl SparseVotes {
    fn new(votes: &VoteMatrix) -> Result<Self> {
        let (n, k) = (votes.items, votes.programs.len());
        let Some(items) = n.checked_mul(2).and_then(|m| u32::try_from(m).ok()) else {
            return Err(Error::Insufficient(format!(
                "a label model handles fewer than 2^31 items, found {n}"
            )));
        };
        let voted: usize = votes.votes.iter().map(|&v| usize::from(v != 0)).sum();
        // Every vote is written; only a non-abstention moves the end past it (one spare slot).
        let mut codes = vec![0; voted + 1];
        let mut end = 0;
        let mut starts = Vec::with_capacity(k + 1);
        starts.push(0);
        for j in 0..k {
            let column = votes.votes[j..].iter().step_by(k);
            for (code, &v) in (0..items).step_by(2).zip(column) {
                codes[end] = code + u32::from(v < 0);
                end += usize::from(v != 0);
            }
            starts.push(end);
        }
        codes.truncate(end);
        let mut by_votes: Vec<usize> = (0..k).collect();
        by_votes.sort_by_key(|&j| std::cmp::Reverse(starts[j + 1] - starts[j]));
        Ok(Self {
            items: n,
            starts,
            codes,
            by_votes,
        })
    }

    /// Program j's coded votes.
    fn program(&self, j: usize) -> &[u32] {
        &self.codes[self.starts[j]..self.starts[j + 1]]
    }

    /// scores[i] = Σ_j v_ij · weights[j], added in program order.
    fn scores(&self, weights: &[f64], scores: &mut [f64]) {
        scores.iter_mut().for_each(|s| *s = 0.0);
        for (j, &w) in weights.iter().enumerate() {
            let signed = [w, -w];
            for &code in self.program(j) {
                scores[(code >> 1) as usize] += signed[(code & 1) as usize];
            }
        }
    }

    /// sums[j] = Σ_{i: v_ij ≠ 0} terms[2·i + [v_ij = −1]], added in item order.
    fn sums(&self, terms: &[f64], sums: &mut [f64]) {
        let term = |code: &u32| terms[*code as usize];
        for group in self.by_votes.chunks(LANES) {
            let mut lists: [&[u32]; LANES] = [&[]; LANES];
            for (list, &j) in lists.iter_mut().zip(group) {
                *list = self.program(j);
            }
            // The programs' common length side by side, then each one's rest alone.
            let common = lists.iter().map(|l| l.len()).min().unwrap_or(0);
            let [a, b, c, d] = lists.map(|l| l.split_at(common));
            let mut lane = [0.0; LANES];
            for (((x, y), z), w) in a.0.iter().zip(b.0).zip(c.0).zip(d.0) {
                lane[0] += term(x);
                lane[1] += term(y);
                lane[2] += term(z);
                lane[3] += term(w);
            }
            for (sum, rest) in lane.iter_mut().zip([a.1, b.1, c.1, d.1]) {
                *sum = rest.iter().fold(*sum, |s, code| s + term(code));
            }
            for (&j, &sum) in group.iter().zip(&lane) {
                sums[j] = sum;
            }
        }
    }
}

impl LabelModelParams {
    fn validate(&self) -> Result<()> {
        if let ClassPrior::Fixed(p) = self.class_prior {
            in_open_unit("class_prior", p)?;
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
        let sparse = SparseVotes::new(votes)?;
        let (n, k) = (votes.items, votes.programs.len());
        let c = self.pseudo_count;
        let counts: Vec<usize> = (0..k).map(|j| sparse.program(j).len()).collect();
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
        let mut scores = vec![0.0; n];
        // terms[2i] = q_i, terms[2i + 1] = 1 − q_i: what a vote +1 or −1 on item i adds to its
        // program's expected agreements.
        let mut terms = vec![0.0; 2 * n];
        while model.iterations < self.max_iterations {
            model.iterations += 1;
            // E-step: the posteriors q_i.
            weights
                .iter_mut()
                .zip(&model.accuracies)
                .for_each(|(w, &a)| *w = logit(a));
            let prior = logit(model.class_prior);
            sparse.scores(&weights, &mut scores);
            let mut q_sum = 0.0;
            for (pair, &score) in terms.chunks_exact_mut(2).zip(&scores) {
                let q = sigmoid(prior + score);
                q_sum += q;
                pair[0] = q;
                pair[1] = 1.0 - q;
            }
            // M-step's sums: each program's expected agreements.
            sparse.sums(&terms, &mut agree);
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
        model.log_likelihood = model.log_likelihood(&sparse);
        Ok(model)
    }
}

impl LabelModel {
    /// The posterior P(y = +1 | votes) of each item of `votes` (same programs, same order).
    pub fn posteriors(&self, votes: &VoteMatrix) -> Vec<f64> {
        let (prior, weights) = self.logits();
        (0..votes.items)
            .map(|i| posterior_of(prior, &weights, votes.row(i)))
            .collect()
    }

    /// The posterior of one item's votes (one per program, in order).
    pub fn posterior(&self, votes: &[i8]) -> f64 {
        let (prior, weights) = self.logits();
        posterior_of(prior, &weights, votes)
    }

    /// logit π and each program's weight logit a_j.
    fn logits(&self) -> (f64, Vec<f64>) {
        let weights = self.accuracies.iter().map(|&a| logit(a)).collect();
        (logit(self.class_prior), weights)
    }

    /// The marginal log-likelihood of the votes.
    fn log_likelihood(&self, sparse: &SparseVotes) -> f64 {
        let n = sparse.items;
        // ln P(votes, y = +1) and ln P(votes, y = −1) of every item, added in program order.
        let mut pos = vec![self.class_prior.ln(); n];
        let mut neg = vec![(1.0 - self.class_prior).ln(); n];
        for (j, &a) in self.accuracies.iter().enumerate() {
            let (right, wrong) = (a.ln(), (1.0 - a).ln());
            let (if_pos, if_neg) = ([right, wrong], [wrong, right]);
            for &code in sparse.program(j) {
                let (i, sign) = ((code >> 1) as usize, (code & 1) as usize);
                pos[i] += if_pos[sign];
                neg[i] += if_neg[sign];
            }
        }
        pos.iter()
            .zip(&neg)
            .map(|(&pos, &neg)| {
                // ln(e^pos + e^neg) = m + ln(1 + e^−|pos − neg|), m = max(pos, neg): the larger
                // of (pos − m).exp() and (neg − m).exp() is e^0 = 1 exactly.
                let m = pos.max(neg);
                m + (1.0 + (-(pos - neg).abs()).exp()).ln()
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
