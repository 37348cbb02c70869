//! Routing uncertain pairs from the program committee to an LLM judge (seed 004 §3.4, §4.2):
//! the accuracy–throughput curve of a staged policy over an escalation budget.
//!
//! Model: every pair gets the committee's verdict (the label model's posterior q: `a` when
//! q > ½, `b` when q < ½, none at ½). A routing signal orders the pairs from most to least
//! uncertain; at budget β the first ⌊β·n + ½⌋ pairs take the LLM judge's verdict instead. The
//! signals: `posterior` (|q − ½|, smallest first), `vote_variance` (1 − v̄² over the programs
//! that vote, 1 when all abstain; largest first), the baselines `query_length` and
//! `response_length` (longest first) and `random`, and the `oracle`, which knows the labels and
//! escalates in order of what escalation gains (credit of the LLM's verdict minus the
//! committee's): first the pairs the committee gets wrong and the LLM right — the upper bound
//! of any router with this committee and this LLM at every budget. Ties in a signal are broken by one seeded random order, the
//! same for every signal, so file order never decides.
//!
//! Accuracy counts a right verdict 1, a missing one (no verdict, or the LLM gave none or a
//! tie) ½ — a coin flip's expectation — and a wrong one 0, over the pairs with an `a`/`b` label.
//! With the two judges' rates (pairs/s) the point's throughput is
//! n / (n/program_rate + escalated/llm_rate).
//!
//! Arguments: per pair the posterior, the committee's votes, query and response lengths, the
//! LLM's verdict and the label (+1 `a`, −1 `b`). Returns: one curve per signal, each point with
//! budget, escalated count, accuracy and throughput (when rates are given).
//!
//! Errors: [`Error::InvalidParam`] for fewer than 1 step or a rate ≤ 0;
//! [`Error::Insufficient`] for no pairs or inputs of different lengths.

use crate::io::error::{Error, Result};
use crate::programs::label_model::VoteMatrix;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// What orders the pairs for escalation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoutingSignal {
    Posterior,
    VoteVariance,
    QueryLength,
    ResponseLength,
    Random,
    Oracle,
}

impl RoutingSignal {
    pub const ALL: [Self; 6] = [
        Self::Posterior,
        Self::VoteVariance,
        Self::QueryLength,
        Self::ResponseLength,
        Self::Random,
        Self::Oracle,
    ];
}

/// Settings of the routing sweep.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct RoutingParams {
    /// Budget steps of the routing sweep: the grid is 0, 1/steps, …, 1.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = RoutingParams::default().steps, allow_negative_numbers = true)
    )]
    pub steps: usize,
    /// Seed of the tie-breaking order (and of the `random` signal). Not an option of its own:
    /// the command's one `--seed` sets it.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub seed: u64,
    /// Pairs per second of the program committee, for the routing throughput.
    #[cfg_attr(feature = "cli", arg(long, allow_negative_numbers = true))]
    pub program_rate: Option<f64>,
    /// Pairs per second of the LLM judge, for the routing throughput.
    #[cfg_attr(feature = "cli", arg(long, allow_negative_numbers = true))]
    pub llm_rate: Option<f64>,
}

impl Default for RoutingParams {
    fn default() -> Self {
        Self {
            steps: 20,
            seed: 0,
            program_rate: None,
            llm_rate: None,
        }
    }
}

/// The pairs to route, all slices in the same pair order.
#[derive(Debug, Clone, Copy)]
pub struct RoutingInput<'a> {
    pub posterior: &'a [f64],
    pub votes: &'a VoteMatrix,
    pub query_chars: &'a [usize],
    pub response_chars: &'a [usize],
    /// The LLM judge's verdict: +1 `a`, −1 `b`, 0 tie or none.
    pub llm: &'a [i8],
    /// The label: +1 `a`, −1 `b`.
    pub truth: &'a [i8],
}

/// One budget of one curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RoutingPoint {
    pub budget: f64,
    pub escalated: usize,
    pub accuracy: f64,
    pub throughput: Option<f64>,
}

/// The curve of one signal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoutingCurve {
    pub signal: RoutingSignal,
    pub points: Vec<RoutingPoint>,
}

/// Every signal's curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Routing {
    pub params: RoutingParams,
    pub pairs: usize,
    /// Accuracy of the committee alone (budget 0).
    pub programs_accuracy: f64,
    /// Accuracy of the LLM judge alone (budget 1).
    pub llm_accuracy: f64,
    pub curves: Vec<RoutingCurve>,
}

/// 1 for a right verdict, ½ for none, 0 for a wrong one.
pub fn credit(verdict: i8, truth: i8) -> f64 {
    if verdict == 0 {
        0.5
    } else if verdict == truth {
        1.0
    } else {
        0.0
    }
}

/// The committee's verdict of a posterior.
pub fn posterior_verdict(q: f64) -> i8 {
    if q > 0.5 {
        1
    } else if q < 0.5 {
        -1
    } else {
        0
    }
}

impl RoutingParams {
    fn validate(&self) -> Result<()> {
        if self.steps == 0 {
            return Err(Error::param("steps", "expected at least 1 step, found 0"));
        }
        for (name, rate) in [
            ("program_rate", self.program_rate),
            ("llm_rate", self.llm_rate),
        ] {
            if let Some(r) = rate {
                if !(r > 0.0 && r.is_finite()) {
                    return Err(Error::param(
                        name,
                        format!("expected pairs/s > 0, found {r}"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Sweeps the budget for every signal.
    pub fn fit(&self, input: &RoutingInput) -> Result<Routing> {
        self.validate()?;
        let n = input.truth.len();
        let lengths = [
            input.posterior.len(),
            input.votes.items,
            input.query_chars.len(),
            input.response_chars.len(),
            input.llm.len(),
        ];
        if n == 0 || lengths.iter().any(|&l| l != n) {
            return Err(Error::Insufficient(format!(
                "routing needs the same number of pairs in every input, found {n} labels and \
                 {lengths:?}"
            )));
        }
        let program: Vec<i8> = input
            .posterior
            .iter()
            .map(|&q| posterior_verdict(q))
            .collect();
        let rank = tie_ranks(n, self.seed);
        let curves = RoutingSignal::ALL
            .iter()
            .map(|&signal| {
                // Larger key = escalated earlier.
                let key: Vec<f64> = (0..n)
                    .map(|i| match signal {
                        RoutingSignal::Posterior => -(input.posterior[i] - 0.5).abs(),
                        RoutingSignal::VoteVariance => vote_variance(input.votes.row(i)),
                        RoutingSignal::QueryLength => input.query_chars[i] as f64,
                        RoutingSignal::ResponseLength => input.response_chars[i] as f64,
                        RoutingSignal::Random => 0.0,
                        RoutingSignal::Oracle => {
                            credit(input.llm[i], input.truth[i])
                                - credit(program[i], input.truth[i])
                        }
                    })
                    .collect();
                RoutingCurve {
                    signal,
                    points: self.sweep(&order_by(&key, &rank), &program, input),
                }
            })
            .collect();
        let mean = |v: &[i8]| {
            v.iter()
                .zip(input.truth)
                .map(|(&v, &t)| credit(v, t))
                .sum::<f64>()
                / n as f64
        };
        Ok(Routing {
            params: *self,
            pairs: n,
            programs_accuracy: mean(&program),
            llm_accuracy: mean(input.llm),
            curves,
        })
    }

    fn sweep(&self, order: &[usize], program: &[i8], input: &RoutingInput) -> Vec<RoutingPoint> {
        let n = order.len();
        let base: f64 = (0..n).map(|i| credit(program[i], input.truth[i])).sum();
        // gain[m] = the change in total credit from escalating the first m pairs.
        let mut gain = vec![0.0; n + 1];
        for (m, &i) in order.iter().enumerate() {
            gain[m + 1] =
                gain[m] + credit(input.llm[i], input.truth[i]) - credit(program[i], input.truth[i]);
        }
        (0..=self.steps)
            .map(|s| {
                let budget = s as f64 / self.steps as f64;
                let escalated = ((budget * n as f64) + 0.5).floor() as usize;
                let throughput = match (self.program_rate, self.llm_rate) {
                    (Some(p), Some(l)) => Some(n as f64 / (n as f64 / p + escalated as f64 / l)),
                    _ => None,
                };
                RoutingPoint {
                    budget,
                    escalated,
                    accuracy: (base + gain[escalated]) / n as f64,
                    throughput,
                }
            })
            .collect()
    }
}

/// A seeded random rank of each of `n` pairs, to break ties in a signal.
fn tie_ranks(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let mut rank = vec![0usize; n];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    rank
}

/// Pair indices by `key`, largest first, ties by `rank`.
fn order_by(key: &[f64], rank: &[usize]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..key.len()).collect();
    order.sort_by(|&x, &y| key[y].total_cmp(&key[x]).then(rank[x].cmp(&rank[y])));
    order
}

/// The first ⌊budget·n + ½⌋ pairs by the `posterior` signal (most uncertain first, ties in
/// the seeded order): the pairs a staged policy escalates to the LLM judge.
pub fn escalated_pairs(posterior: &[f64], budget: f64, seed: u64) -> Vec<usize> {
    let key: Vec<f64> = posterior.iter().map(|q| -(q - 0.5).abs()).collect();
    let take = ((budget.clamp(0.0, 1.0) * key.len() as f64) + 0.5).floor() as usize;
    let mut order = order_by(&key, &tie_ranks(key.len(), seed));
    order.truncate(take);
    order
}

/// 1 − (mean vote)² over the programs that vote; 1 when all abstain.
pub fn vote_variance(votes: &[i8]) -> f64 {
    let cast: Vec<f64> = votes
        .iter()
        .filter(|&&v| v != 0)
        .map(|&v| f64::from(v))
        .collect();
    if cast.is_empty() {
        return 1.0;
    }
    let mean = cast.iter().sum::<f64>() / cast.len() as f64;
    1.0 - mean * mean
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curves_start_at_the_programs_and_end_at_the_llm() {
        // Four pairs, truth a,a,b,b. Committee: right, wrong, undecided, right (q = .9, .4,
        // .5, .2). LLM: right on all but the last.
        let votes = VoteMatrix {
            programs: vec!["p".into(), "q".into()],
            items: 4,
            votes: vec![1, 1, -1, 1, 0, 0, -1, -1],
        };
        let input = RoutingInput {
            posterior: &[0.9, 0.4, 0.5, 0.2],
            votes: &votes,
            query_chars: &[10, 40, 20, 30],
            response_chars: &[1, 2, 3, 4],
            llm: &[1, 1, -1, 1],
            truth: &[1, 1, -1, -1],
        };
        let params = RoutingParams {
            steps: 4,
            program_rate: Some(1000.0),
            llm_rate: Some(1.0),
            ..RoutingParams::default()
        };
        let routing = params.fit(&input).unwrap();
        // Programs: 1 + 0 + ½ + 1 = 2.5 of 4; LLM: 3 of 4.
        assert_eq!(routing.programs_accuracy, 0.625);
        assert_eq!(routing.llm_accuracy, 0.75);
        let curve = |s| {
            routing
                .curves
                .iter()
                .find(|c| c.signal == s)
                .unwrap()
                .points
                .iter()
                .map(|p| p.accuracy)
                .collect::<Vec<_>>()
        };
        // Posterior order: pair 2 (|q−½| = 0), 1 (.1), 3 (.3), 0 (.4).
        assert_eq!(
            curve(RoutingSignal::Posterior),
            [0.625, 0.75, 1.0, 0.75, 0.75]
        );
        // Oracle by gain: pair 1 (+1), 2 (+½), 0 (0), 3 (−1).
        assert_eq!(curve(RoutingSignal::Oracle), [0.625, 0.875, 1.0, 1.0, 0.75]);
        // Query length: 1, 3, 2, 0.
        assert_eq!(
            curve(RoutingSignal::QueryLength),
            [0.625, 0.875, 0.625, 0.75, 0.75]
        );
        // Vote variance: pair 1 (votes −1, +1: 1) and pair 2 (abstain: 1) first.
        let variance = curve(RoutingSignal::VoteVariance);
        assert_eq!(variance[2], 1.0);
        let points = &routing.curves[0].points;
        assert_eq!(points[0].throughput, Some(1000.0));
        assert!((points[4].throughput.unwrap() - 4.0 / (4.0 / 1000.0 + 4.0)).abs() < 1e-12);
        assert_eq!(vote_variance(&[1, 1, 0]), 0.0);
        assert_eq!(escalated_pairs(&[0.9, 0.4, 0.5, 0.2], 0.5, 0), [2, 1]);
    }
}
