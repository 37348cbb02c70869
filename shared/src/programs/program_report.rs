//! The programs report (seed 004 as a whole): programmatic judges score every pair, a seeded
//! validation split fits their thresholds and picks the committee, the label model aggregates
//! the committee's votes, and the result is compared — on the held-out labelled pairs — with
//! majority vote, each program alone, and (given an LLM judge's verdicts) the routing curve.
//!
//! Steps: (1) scores: the built-in library ([`builtin_scores`]) or any [`ScoreMatrix`] (user
//! programs); (2) split: the labelled pairs are shuffled with `seed` and the first
//! ⌊share·m + ½⌋ form the validation split, the others and every unlabelled pair the test
//! split; (3) [`VoteParams::fit`] on validation; (4) [`LabelModelParams::fit`] on the
//! committee's votes over all pairs (it uses no labels); (5) on the test pairs labelled `a` or
//! `b`: each program's coverage and accuracy, the label model's and majority vote's accuracy
//! (a verdict-less pair counts ½) with bootstrap intervals and their paired difference, and the
//! learned accuracy of each committee program beside its empirical one; (6) with LLM verdicts,
//! the routing sweep ([`RoutingParams::fit`]) on the same test pairs; (7) bias probes
//! ([`bias_report`]): the committee's position flip rate over every pair (responses swapped),
//! and the flip and bias win rates of each content perturbation in the probes, when given;
//! (8) the staged policy at `budget`: the most uncertain pairs by posterior (of all pairs,
//! labelled or not) go to the LLM judge, whose verdicts replace the committee's there, and the
//! merged verdict's accuracy on the labelled test pairs.
//!
//! Errors: [`Error::InvalidParam`] for a validation share outside (0, 1) and the errors of each
//! step; [`Error::Insufficient`] when a split has no `a`/`b` label.

use crate::io::checks::in_open_unit;
use crate::io::error::{Error, Result};
use crate::math::resample::{bootstrap_mean, bootstrap_means, BootstrapParams, Interval};
use crate::programs::bias_probe::{bias_report, BiasRow, BiasTrial};
use crate::programs::label_model::{majority_vote, LabelModel, LabelModelParams, VoteMatrix};
use crate::programs::program_library::{BuiltinProgram, TextStats};
use crate::programs::program_pairs::{Preference, Probe, ProgramPair};
use crate::programs::program_votes::{ProgramFit, ScoreMatrix, VoteParams};
use crate::programs::routing::{
    credit, escalated_pairs, posterior_verdict, Routing, RoutingInput, RoutingParams,
};
use crate::programs::vote_file::VoteFile;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The scores of every pair under the built-in programs, each text analysed once.
pub fn builtin_scores(pairs: &[ProgramPair]) -> ScoreMatrix {
    scores_of(pairs.iter(), pairs.len())
}

/// The built-in programs' scores of the probes' clean pairs and of their perturbed pairs.
pub fn builtin_probe_scores(probes: &[Probe]) -> (ScoreMatrix, ScoreMatrix) {
    (
        scores_of(probes.iter().map(|p| &p.clean), probes.len()),
        scores_of(probes.iter().map(|p| &p.perturbed), probes.len()),
    )
}

fn scores_of<'a>(pairs: impl Iterator<Item = &'a ProgramPair>, n: usize) -> ScoreMatrix {
    let programs = BuiltinProgram::ALL;
    let mut scores = Vec::with_capacity(n * programs.len());
    for pair in pairs {
        let q = TextStats::of(&pair.query);
        let a = TextStats::of(&pair.response_a);
        let b = TextStats::of(&pair.response_b);
        scores.extend(
            programs
                .iter()
                .map(|p| [p.score_stats(&q, &a), p.score_stats(&q, &b)]),
        );
    }
    ScoreMatrix {
        programs: programs.iter().map(|p| p.name().to_owned()).collect(),
        pairs: n,
        scores,
    }
}

/// The scores of bias probes' clean and perturbed pairs (same programs as the pairs').
#[derive(Debug, Clone, Copy)]
pub struct ProbeScores<'a> {
    pub probes: &'a [Probe],
    pub clean: &'a ScoreMatrix,
    pub perturbed: &'a ScoreMatrix,
}

/// Settings of the report.
///
/// As command-line options (feature `cli`) the bootstrap's `--seed` is the one seed: a caller
/// gives it to every part with [`ProgramReportParams::seeded`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ProgramReportParams {
    /// Share of the labelled pairs that choose thresholds and the committee, in (0, 1).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ProgramReportParams::default().validation_share, allow_negative_numbers = true)
    )]
    pub validation_share: f64,
    /// Seed of the validation split.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub seed: u64,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub votes: VoteParams,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub label_model: LabelModelParams,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub bootstrap: BootstrapParams,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub routing: RoutingParams,
    /// Share of all pairs escalated to the LLM judge, most uncertain (posterior) first; with
    /// the LLM's verdicts they replace the committee's there.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ProgramReportParams::default().budget, allow_negative_numbers = true)
    )]
    pub budget: f64,
}

impl Default for ProgramReportParams {
    fn default() -> Self {
        Self {
            validation_share: 0.3,
            seed: 0,
            votes: VoteParams::default(),
            label_model: LabelModelParams::default(),
            bootstrap: BootstrapParams::default(),
            routing: RoutingParams::default(),
            budget: 0.0,
        }
    }
}

/// One program's thresholds and its record on both splits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgramRow {
    #[serde(flatten)]
    pub fit: ProgramFit,
    /// Share of test pairs it votes on.
    pub test_coverage: f64,
    /// Accuracy on the labelled test pairs it votes on (null when none).
    pub test_accuracy: Option<f64>,
}

/// An aggregator's record on the labelled test pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AggregateRow {
    /// Accuracy, a verdict-less pair counting ½.
    pub accuracy: Interval,
    /// Share of the pairs with a verdict.
    pub coverage: f64,
}

impl AggregateRow {
    /// The row of an aggregator with this accuracy and these verdicts (0: none).
    fn new(accuracy: Interval, verdicts: &[i8]) -> Self {
        let voting = verdicts.iter().filter(|&&v| v != 0).count();
        Self {
            accuracy,
            coverage: voting as f64 / verdicts.len() as f64,
        }
    }
}

/// A committee program as the label model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommitteeMember {
    pub name: String,
    /// Share of all pairs it votes on.
    pub coverage: f64,
    /// Its accuracy as the label model learned it, without labels.
    pub learned_accuracy: f64,
    /// Its accuracy on the labelled test pairs it votes on (null when none).
    pub test_accuracy: Option<f64>,
}

/// Label model vs majority vote (and the LLM judge and routing, when given) on the labelled
/// test pairs of a vote file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommitteeReport {
    pub label_model_params: LabelModelParams,
    pub bootstrap: BootstrapParams,
    /// Test pairs labelled `a` or `b`: the pairs every accuracy is over.
    pub test_labelled: usize,
    /// Test pairs labelled `tie` (left out of accuracies).
    pub test_ties: usize,
    pub members: Vec<CommitteeMember>,
    pub class_prior: f64,
    pub iterations: usize,
    pub converged: bool,
    pub log_likelihood: f64,
    pub label_model: AggregateRow,
    pub majority_vote: AggregateRow,
    /// Label model minus majority vote accuracy, paired over the same resampled pairs.
    pub difference: Interval,
    /// The LLM judge alone on the same pairs, when its verdicts were given.
    pub llm: Option<AggregateRow>,
    pub routing: Option<Routing>,
    /// The fitted label model.
    #[serde(skip)]
    pub model: Option<LabelModel>,
    /// P(`a` wins) of every row of the vote file, in its order.
    #[serde(skip)]
    pub posterior: Vec<f64>,
    /// Majority vote of every row of the vote file.
    #[serde(skip)]
    pub majority: Vec<i8>,
    /// Where the headline misleads: the label model no better than majority vote or chance, a
    /// program whose learned accuracy is far from its test accuracy ([`committee_warnings`]).
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// How far a program's learned accuracy may be from its test accuracy before it is flagged.
pub const LEARNED_ACCURACY_GAP: f64 = 0.25;

/// The committee's misleading headlines, said: the label model's accuracy below majority
/// vote's (its paired difference's interval below 0) or not above it (an estimate below 0); its
/// accuracy below chance (½: a pair without a verdict counts ½) or not distinguishable from it;
/// each program whose accuracy as the label model learnt it (without labels) is more than
/// [`LEARNED_ACCURACY_GAP`] from its accuracy on the labelled test pairs it votes on.
pub fn committee_warnings(
    label_model: &AggregateRow,
    difference: &Interval,
    members: &[CommitteeMember],
) -> Vec<String> {
    let mut warnings = Vec::new();
    let shown = |i: &Interval| format!("{:.3} [{:.3}, {:.3}]", i.estimate, i.lower, i.upper);
    if difference.upper < 0.0 {
        warnings.push(format!(
            "the label model does worse than majority vote on the test pairs (difference {}): \
             its weights do not fit these programs; trust majority vote here",
            shown(difference)
        ));
    } else if difference.estimate < 0.0 {
        warnings.push(format!(
            "the label model is not better than majority vote on the test pairs (difference {}, \
             the interval includes 0)",
            shown(difference)
        ));
    }
    let accuracy = &label_model.accuracy;
    if accuracy.upper < 0.5 {
        warnings.push(format!(
            "the label model's accuracy {} is below chance (0.5, a coin flip)",
            shown(accuracy)
        ));
    } else if accuracy.lower <= 0.5 {
        warnings.push(format!(
            "the label model's accuracy {} is not measurably above chance (0.5, a coin flip)",
            shown(accuracy)
        ));
    }
    for m in members {
        if let Some(test) = m.test_accuracy {
            if (m.learned_accuracy - test).abs() > LEARNED_ACCURACY_GAP {
                warnings.push(format!(
                    "{}: the label model learnt an accuracy of {:.3} for it, but it is {test:.3} \
                     on the labelled test pairs it votes on: its weight in the label model is \
                     misplaced",
                    m.name, m.learned_accuracy
                ));
            }
        }
    }
    warnings
}

/// The staged policy at the chosen budget: which pairs go to the LLM judge, and the merged
/// verdicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Escalation {
    pub budget: f64,
    /// Pairs escalated (of all pairs).
    pub escalated: usize,
    /// Escalated pairs the LLM judge's verdicts cover.
    pub answered: usize,
    /// The merged verdict (the LLM's on escalated pairs it answered, the committee's otherwise)
    /// on the labelled test pairs.
    pub merged: AggregateRow,
    /// Indices of the escalated pairs, most uncertain first.
    #[serde(skip)]
    pub pairs: Vec<usize>,
    /// The merged verdict of every pair (+1 `a`, −1 `b`, 0 none).
    #[serde(skip)]
    pub verdicts: Vec<i8>,
}

/// The report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgramReport {
    pub params: ProgramReportParams,
    pub pairs: usize,
    pub validation_pairs: usize,
    pub test_pairs: usize,
    pub programs: Vec<ProgramRow>,
    pub committee: CommitteeReport,
    /// Flip rate (and bias win rate) of the committee's verdict: `position` over every pair,
    /// then each content bias of the probes.
    pub bias: Vec<BiasRow>,
    pub escalation: Escalation,
    /// Every pair's committee votes, split, label and lengths, in input order.
    #[serde(skip)]
    pub votes: Option<VoteFile>,
}

impl ProgramReportParams {
    /// The settings with `seed` as the seed of every part: the validation split, the
    /// bootstrap and the routing's tie order.
    #[must_use]
    pub fn seeded(mut self, seed: u64) -> Self {
        self.seed = seed;
        self.bootstrap.seed = seed;
        self.routing.seed = seed;
        self
    }

    /// Runs every step on `pairs` with their `scores`, `llm` verdicts and bias `probes` when
    /// given.
    pub fn fit(
        &self,
        pairs: &[ProgramPair],
        scores: &ScoreMatrix,
        llm: Option<&[Option<Preference>]>,
        probes: Option<ProbeScores>,
    ) -> Result<ProgramReport> {
        in_open_unit("validation_share", self.validation_share)?;
        let n = pairs.len();
        let labels: Vec<Option<Preference>> = pairs.iter().map(|p| p.label).collect();
        let mut labelled: Vec<usize> = (0..n).filter(|&i| labels[i].is_some()).collect();
        labelled.shuffle(&mut ChaCha8Rng::seed_from_u64(self.seed));
        let cut = ((self.validation_share * labelled.len() as f64) + 0.5).floor() as usize;
        let mut validation = labelled[..cut].to_vec();
        validation.sort_unstable();
        let mut in_validation = vec![false; n];
        validation.iter().for_each(|&i| in_validation[i] = true);
        let test: Vec<usize> = (0..n).filter(|&i| !in_validation[i]).collect();

        let model = self.votes.fit(scores, &validation, &labels)?;
        let file = VoteFile {
            ids: pairs.iter().map(|p| p.id.clone()).collect(),
            labels: labels.clone(),
            validation: in_validation,
            lengths: Some((
                pairs.iter().map(|p| p.query.chars().count()).collect(),
                pairs
                    .iter()
                    .map(|p| p.response_a.chars().count() + p.response_b.chars().count())
                    .collect(),
            )),
            votes: model.votes(scores, &(0..n).collect::<Vec<_>>()),
        };
        let committee = self.committee(&file, llm)?;
        let truth = test_truth(&file);
        let Some(label_model) = committee.model.as_ref() else {
            unreachable!("committee() always returns its model")
        };
        let verdict = |votes: &[i8]| posterior_verdict(label_model.posterior(votes));
        let mut trials: Vec<BiasTrial> = (0..n)
            .map(|i| {
                let votes = file.votes.row(i);
                let swapped: Vec<i8> = votes.iter().map(|v| -v).collect();
                BiasTrial {
                    bias: "position".to_owned(),
                    clean: verdict(votes),
                    perturbed: -verdict(&swapped),
                    biased_side: None,
                }
            })
            .collect();
        if let Some(p) = probes {
            let rows: Vec<usize> = (0..p.probes.len()).collect();
            let (clean, perturbed) = (model.votes(p.clean, &rows), model.votes(p.perturbed, &rows));
            trials.extend(p.probes.iter().enumerate().map(|(i, probe)| BiasTrial {
                bias: probe.bias.clone(),
                clean: verdict(clean.row(i)),
                perturbed: verdict(perturbed.row(i)),
                biased_side: Some(probe.biased_side),
            }));
        }
        let bias = bias_report(&trials, &self.bootstrap)?;
        let escalated = escalated_pairs(&committee.posterior, self.budget, self.routing.seed);
        let mut verdicts: Vec<i8> = committee
            .posterior
            .iter()
            .map(|&q| posterior_verdict(q))
            .collect();
        let mut answered = 0;
        for &i in &escalated {
            if let Some(v) = llm.and_then(|l| l[i]) {
                verdicts[i] = v.vote();
                answered += 1;
            }
        }
        let merged: Vec<i8> = truth.iter().map(|&(i, _)| verdicts[i]).collect();
        let merged_credit: Vec<f64> = merged
            .iter()
            .zip(&truth)
            .map(|(&v, &(_, t))| credit(v, t))
            .collect();
        let escalation = Escalation {
            budget: self.budget,
            escalated: escalated.len(),
            answered,
            merged: AggregateRow::new(bootstrap_mean(&merged_credit, &self.bootstrap)?, &merged),
            pairs: escalated,
            verdicts,
        };
        Ok(ProgramReport {
            params: self.clone(),
            pairs: n,
            validation_pairs: validation.len(),
            test_pairs: test.len(),
            programs: model
                .programs
                .iter()
                .enumerate()
                .map(|(j, fit)| {
                    let votes: Vec<i8> = (0..n).map(|i| fit.vote(scores.get(i, j))).collect();
                    ProgramRow {
                        fit: fit.clone(),
                        test_coverage: test.iter().filter(|&&i| votes[i] != 0).count() as f64
                            / test.len().max(1) as f64,
                        test_accuracy: accuracy_where_voting(&votes, &truth),
                    }
                })
                .collect(),
            committee,
            bias,
            escalation,
            votes: Some(file),
        })
    }

    /// Steps (4)–(6) on a vote file: the label model fitted on all its rows, then label model,
    /// majority vote, each member and (with `llm` verdicts, in the file's row order) the LLM
    /// judge and the routing curves on its labelled test rows.
    pub fn committee(
        &self,
        file: &VoteFile,
        llm: Option<&[Option<Preference>]>,
    ) -> Result<CommitteeReport> {
        self.bootstrap.validate()?;
        let label_model = self.label_model.fit(&file.votes)?;
        let posterior = label_model.posteriors(&file.votes);
        let majority = majority_vote(&file.votes);
        let truth = test_truth(file);
        if truth.is_empty() {
            return Err(Error::Insufficient(
                "the test pairs hold no `a` or `b` label to measure accuracy on".to_owned(),
            ));
        }
        let t: Vec<i8> = truth.iter().map(|&(_, t)| t).collect();
        let lm: Vec<i8> = truth
            .iter()
            .map(|&(i, _)| posterior_verdict(posterior[i]))
            .collect();
        let mv: Vec<i8> = truth.iter().map(|&(i, _)| majority[i]).collect();
        let credits =
            |v: &[i8]| -> Vec<f64> { v.iter().zip(&t).map(|(&v, &t)| credit(v, t)).collect() };
        let (lm_credit, mv_credit) = (credits(&lm), credits(&mv));
        let llm_verdicts: Option<Vec<i8>> = llm.map(|l| {
            truth
                .iter()
                .map(|&(i, _)| l[i].map_or(0, Preference::vote))
                .collect()
        });
        let routing = match (&llm_verdicts, &file.lengths) {
            (Some(llm_v), Some((q, r))) => {
                let rows: Vec<usize> = truth.iter().map(|&(i, _)| i).collect();
                let votes = VoteMatrix {
                    programs: file.votes.programs.clone(),
                    items: rows.len(),
                    votes: rows
                        .iter()
                        .flat_map(|&i| file.votes.row(i))
                        .copied()
                        .collect(),
                };
                Some(self.routing.fit(&RoutingInput {
                    posterior: &rows.iter().map(|&i| posterior[i]).collect::<Vec<_>>(),
                    votes: &votes,
                    query_chars: &rows.iter().map(|&i| q[i]).collect::<Vec<_>>(),
                    response_chars: &rows.iter().map(|&i| r[i]).collect::<Vec<_>>(),
                    llm: llm_v,
                    truth: &t,
                })?)
            }
            (Some(_), None) => {
                return Err(Error::Insufficient(
                    "routing needs the `query_chars` and `response_chars` columns of the vote \
                     file"
                        .to_owned(),
                ))
            }
            _ => None,
        };
        let members: Vec<CommitteeMember> = file
            .votes
            .programs
            .iter()
            .enumerate()
            .map(|(j, name)| {
                let votes: Vec<i8> = (0..file.votes.items)
                    .map(|i| file.votes.row(i)[j])
                    .collect();
                CommitteeMember {
                    name: name.clone(),
                    coverage: label_model.coverage[j],
                    learned_accuracy: label_model.accuracies[j],
                    test_accuracy: accuracy_where_voting(&votes, &truth),
                }
            })
            .collect();
        // One set of draws for every interval: the label model's, majority vote's, their
        // paired difference and the LLM judge's accuracy on the same resampled test pairs.
        let gains: Vec<f64> = lm_credit
            .iter()
            .zip(&mv_credit)
            .map(|(l, m)| l - m)
            .collect();
        let llm_credit = llm_verdicts.as_deref().map(credits);
        let mut columns = vec![lm_credit.as_slice(), &mv_credit, &gains];
        columns.extend(llm_credit.as_deref());
        let intervals = bootstrap_means(&columns, &self.bootstrap)?;
        let row = |j: usize, verdicts: &[i8]| AggregateRow::new(intervals[j], verdicts);
        let label_model_row = row(0, &lm);
        let difference = intervals[2];
        let warnings = committee_warnings(&label_model_row, &difference, &members);
        Ok(CommitteeReport {
            label_model_params: self.label_model,
            bootstrap: self.bootstrap,
            test_labelled: truth.len(),
            test_ties: (0..file.ids.len())
                .filter(|&i| !file.validation[i] && file.labels[i] == Some(Preference::Tie))
                .count(),
            members,
            class_prior: label_model.class_prior,
            iterations: label_model.iterations,
            converged: label_model.converged,
            log_likelihood: label_model.log_likelihood,
            label_model: label_model_row,
            majority_vote: row(1, &mv),
            difference,
            llm: llm_verdicts.as_deref().map(|v| row(3, v)),
            routing,
            model: Some(label_model),
            posterior,
            majority,
            warnings,
        })
    }
}

/// The test rows labelled `a` (+1) or `b` (−1).
fn test_truth(file: &VoteFile) -> Vec<(usize, i8)> {
    (0..file.ids.len())
        .filter(|&i| !file.validation[i])
        .filter_map(|i| match file.labels[i] {
            Some(Preference::A) => Some((i, 1)),
            Some(Preference::B) => Some((i, -1)),
            _ => None,
        })
        .collect()
}

/// Accuracy of `votes` over the `truth` rows where it votes (None when it never does).
fn accuracy_where_voting(votes: &[i8], truth: &[(usize, i8)]) -> Option<f64> {
    let (mut covered, mut correct) = (0usize, 0usize);
    for &(i, t) in truth {
        if votes[i] != 0 {
            covered += 1;
            correct += usize::from(votes[i] == t);
        }
    }
    (covered > 0).then(|| correct as f64 / covered as f64)
}

crate::analysis::warnings::own_warnings!(CommitteeReport);

crate::analysis::warnings::part_warnings!(ProgramReport => committee);

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(estimate: f64, lower: f64, upper: f64) -> Interval {
        Interval {
            estimate,
            lower,
            upper,
            se: 0.0,
            level: 0.95,
            valid_rounds: 100,
        }
    }

    fn member(name: &str, learned: f64, test: Option<f64>) -> CommitteeMember {
        CommitteeMember {
            name: name.to_owned(),
            coverage: 1.0,
            learned_accuracy: learned,
            test_accuracy: test,
        }
    }

    #[test]
    fn a_label_model_below_majority_vote_or_chance_and_misplaced_weights_are_said() {
        // The bundled Programs example's numbers: 0.478 [0.442, 0.514] against majority vote's
        // 0.530, difference −0.051 [−0.076, −0.028]; `relevance` learnt 0.995, tests 0.506.
        let lm = AggregateRow {
            accuracy: interval(0.478, 0.442, 0.514),
            coverage: 1.0,
        };
        let warnings = committee_warnings(
            &lm,
            &interval(-0.051, -0.076, -0.028),
            &[
                member("relevance", 0.995, Some(0.506)),
                member("coherence", 0.647, Some(0.789)),
                member("silent", 0.9, None),
            ],
        );
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings[0].starts_with("the label model does worse than majority vote"));
        assert!(warnings[1].contains("not measurably above chance"));
        assert!(warnings[2].starts_with("relevance: the label model learnt an accuracy of 0.995"));
        // Below chance, and a difference whose interval holds 0 but leans negative.
        let below = AggregateRow {
            accuracy: interval(0.42, 0.35, 0.49),
            coverage: 1.0,
        };
        let warnings = committee_warnings(&below, &interval(-0.01, -0.05, 0.03), &[]);
        assert!(warnings[0].contains("not better than majority vote"));
        assert!(warnings[1].contains("below chance"));
        // A label model that beats both says nothing.
        let good = AggregateRow {
            accuracy: interval(0.7, 0.65, 0.75),
            coverage: 1.0,
        };
        assert!(committee_warnings(&good, &interval(0.05, 0.01, 0.09), &[]).is_empty());
    }
}
