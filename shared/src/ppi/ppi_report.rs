//! The prediction-powered report of a labelled-battles file (`tribunal stats ppi`): each
//! model's win rate over its battles ([`ppi_mean`]) and the Bradley–Terry leaderboard
//! ([`ppi_logistic`], Elo differences from a reference model), each beside the estimate from
//! the human labels alone and the one from the judge's labels alone (which has no coverage
//! guarantee), with the power-tuned λ and the effective number of human labels; and each win
//! rate's label budget ([`label_budget`]): the widths expected with more human labels, with the
//! judge's labels and without, and the labels a target width needs.
//!
//! Arguments: the file's name and bytes ([`parse_labelled_battles`]). Returns: [`PpiReport`];
//! a model whose win rate cannot be estimated (fewer human labels than `min_labels`, or no
//! unlabelled battle) and a leaderboard that is not identified are reported missing, with the reason, in
//! `notes` and `warnings` — never as a number. Errors: the parser's located errors;
//! [`Error::InvalidParam`] for α outside (0, 1), λ outside [0, 1] or a reference model the file
//! does not have.

use super::active_inference::{active_logistic, active_mean, Drawn};
use super::cross_fit::{cross_fitted, CrossFitParams};
use super::label_budget::{label_budget, LabelBudget};
use super::label_plan::{label_plan, LabelPlan, LabelPlanParams, Standing};
use super::labelled_battles::{parse_labelled_battles, LabelledBattle, LabelledBattles};
use super::ppi_bootstrap::{bootstrap_logistic, bootstrap_mean, Resampling};
use super::ppi_logistic::{ppi_logistic, PpiLogistic};
use super::ppi_mean::{ppi_mean, PpiMean};
use super::ppi_ranks::{rank_sets, RankSet};
use crate::io::error::{Error, Result};
use crate::math::normal::Estimate;
use crate::math::resample::Interval;
use crate::math::weighted_logistic::{Design, SparseRows};
use serde::{Deserialize, Serialize};

/// Elo points per unit of log-odds.
const ELO_PER_LOGIT: f64 = 400.0 / std::f64::consts::LN_10;

/// Settings of a prediction-powered report.
///
/// As command-line options (feature `cli`) the bootstrap is the command's (`--bootstrap-rounds
/// 0` is none, and the default is one), and its `--seed` seeds every part
/// ([`PpiParams::seeded`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct PpiParams {
    /// The intervals' error level: coverage 1 − α.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = PpiParams::default().alpha, allow_negative_numbers = true)
    )]
    pub alpha: f64,
    /// The weight of the judge's labels, in [0, 1] (0: human labels only, 1: plain PPI);
    /// `None`: power-tuned from the data (PPI++).
    #[cfg_attr(feature = "cli", arg(long, allow_negative_numbers = true))]
    pub lambda: Option<f64>,
    /// The leaderboard's model at Elo difference 0; `None`: the first in sorted order.
    #[cfg_attr(feature = "cli", arg(long))]
    pub reference: Option<String>,
    /// The interval width each win rate should reach: its label budget says how many human
    /// labels that takes with the judge's labels and without.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, allow_negative_numbers = true))]
    pub target_width: Option<f64>,
    /// The percentile bootstrap beside each asymptotic interval (rounds, seed); `None`: none.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub bootstrap: Option<Resampling>,
    /// The fewest human labels a win rate is reported from (at least 2). The normal interval
    /// from a handful of labels is far too narrow: in the LLMFAO study (BENCHMARKS.md) the
    /// 95 % intervals covered 64 % of the time at 2–4 labels, 85 % at 5–9, 90–93 % at 10–19.
    #[serde(default = "default_min_labels")]
    #[cfg_attr(feature = "cli", arg(long, default_value_t = default_min_labels()))]
    pub min_labels: usize,
    /// Which battles to label next: a seeded draw of about `labels` of them, more likely where
    /// a label shrinks the leaderboard's intervals most; `None`: no plan.
    #[serde(default)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub plan: Option<LabelPlanParams>,
    /// The judge's labels replaced by a BTL calibration head on the rationale embeddings,
    /// cross-fitted on the human labels (K folds, γ, seed); `None`: the judge's own labels.
    #[serde(default)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub cross_fit: Option<CrossFitParams>,
}

fn default_min_labels() -> usize {
    10
}

/// Below this many human labels a reported win rate carries a warning.
const FEW_LABELS: usize = 20;

impl Default for PpiParams {
    fn default() -> Self {
        Self {
            alpha: 0.05,
            lambda: None,
            reference: None,
            target_width: None,
            bootstrap: Some(Resampling::default()),
            min_labels: default_min_labels(),
            plan: None,
            cross_fit: None,
        }
    }
}

/// A model's win rate over its battles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PpiWinRate {
    pub model: String,
    pub battles: usize,
    /// Its battles with a human label.
    pub labels: usize,
    /// `None`: not estimable (see `note`).
    pub estimate: Option<PpiMean>,
    /// The percentile bootstrap interval of the prediction-powered win rate (at its λ).
    pub bootstrap: Option<Interval>,
    /// The widths expected with 25, 50, 100, … human labels (fewer than the model's battles),
    /// with the judge's labels and without, from this file's labels as the pilot.
    pub budget: Option<LabelBudget>,
    pub note: Option<String>,
}

/// A model's Elo difference from the reference model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PpiRating {
    pub model: String,
    pub ppi: Estimate,
    /// The ranks this model may hold, covering with every other model's set at once.
    pub ranks: RankSet,
    /// The percentile bootstrap interval of the prediction-powered Elo difference.
    pub bootstrap: Option<Interval>,
    pub human_only: Option<Estimate>,
    /// The rank set from the human labels alone (as wide as they leave it).
    pub human_only_ranks: Option<RankSet>,
    pub judge_only: Option<Estimate>,
}

/// Model A against model B: the Elo difference of their prediction-powered ratings, its
/// standard error from the fit's covariance (Var θ_A + Var θ_B − 2 Cov), and its interval at
/// 1 − α for this one comparison (the rank sets are the ones that hold for all at once).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PpiDifference {
    pub better: String,
    pub worse: String,
    pub ppi: Estimate,
}

/// The prediction-powered Bradley–Terry leaderboard, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PpiLeaderboard {
    pub reference: String,
    pub lambda: f64,
    /// The human labels behind the fit.
    pub labels: usize,
    /// labels · tr(Σ_human) / tr(Σ_PPI): how many human labels alone would give intervals as
    /// narrow, on average over the models (the judge's labels are worth the difference).
    pub effective_n: f64,
    pub ratings: Vec<PpiRating>,
    /// Each model against the next one down.
    pub neighbours: Vec<PpiDifference>,
    pub notes: Vec<String>,
}

impl PpiLeaderboard {
    /// The order the label plan reads: the models best first, and which neighbours' difference
    /// interval reaches zero.
    fn standing(&self) -> Standing<'_> {
        Standing {
            models: self.ratings.iter().map(|r| r.model.as_str()).collect(),
            unresolved: self.neighbours.iter().map(|n| n.ppi.lower <= 0.0).collect(),
        }
    }
}

/// Everything `tribunal stats ppi` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PpiReport {
    /// Always `ppi`.
    pub statistic: String,
    pub source: String,
    pub settings: PpiParams,
    pub n_battles: usize,
    pub n_labelled: usize,
    pub win_rates: Vec<PpiWinRate>,
    /// `None` when not identified (see `warnings`).
    pub leaderboard: Option<PpiLeaderboard>,
    /// The battles to label next, when the settings ask for a plan.
    #[serde(default)]
    pub plan: Option<LabelPlan>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
}

impl PpiReport {
    /// The report in one sentence: the median, over the models with an estimate, of the win
    /// rate's interval width with the judge's labels and from the human labels alone, and the
    /// human labels the judge's are worth — or, when they do not narrow the intervals, that.
    pub fn reading(&self) -> String {
        let estimates: Vec<&PpiMean> = self
            .win_rates
            .iter()
            .filter_map(|w| w.estimate.as_ref())
            .collect();
        if estimates.is_empty() {
            return "No model's win rate could be estimated from these labels (see the notes)."
                .to_owned();
        }
        let median = |values: Vec<f64>| {
            let mut values = values;
            values.sort_by(f64::total_cmp);
            values[values.len() / 2]
        };
        let width = |e: &Estimate| e.upper - e.lower;
        let with = median(estimates.iter().map(|e| width(&e.ppi)).collect());
        let without = median(estimates.iter().map(|e| width(&e.human_only)).collect());
        let labels = median(estimates.iter().map(|e| e.n as f64).collect());
        let worth = median(estimates.iter().map(|e| e.effective_n).collect());
        if with < 0.99 * without {
            format!(
                "With the judge's labels, the median win-rate interval is {with:.3} wide, against \
                 {without:.3} from the {labels:.0} human labels alone (median per model): as if \
                 people had labelled {worth:.0} battles per model."
            )
        } else {
            format!(
                "The judge's labels do not narrow the intervals here: the median win-rate \
                 interval is {with:.3} wide with them and {without:.3} from the {labels:.0} \
                 human labels alone (median per model), so the estimate rests on the humans."
            )
        }
    }
}

/// `estimate` in Elo points.
fn elo(e: &Estimate) -> Estimate {
    Estimate {
        estimate: e.estimate * ELO_PER_LOGIT,
        se: e.se * ELO_PER_LOGIT,
        lower: e.lower * ELO_PER_LOGIT,
        upper: e.upper * ELO_PER_LOGIT,
    }
}

/// A bootstrap interval in Elo points.
fn elo_interval(i: &Interval) -> Interval {
    Interval {
        estimate: i.estimate * ELO_PER_LOGIT,
        lower: i.lower * ELO_PER_LOGIT,
        upper: i.upper * ELO_PER_LOGIT,
        se: i.se * ELO_PER_LOGIT,
        ..*i
    }
}

/// The share of bootstrap rounds that may fail to identify the fit before the interval of
/// the rest is withheld (the failing rounds are the extreme resamples: leaving many out
/// narrows the interval).
const MOST_FAILED_ROUNDS: f64 = 0.01;

/// The covariance of all K models' coefficients, the reference's row and column zero.
fn full_covariance(covariance: &[Vec<f64>], columns: &[Option<usize>]) -> Vec<Vec<f64>> {
    columns
        .iter()
        .map(|ci| {
            columns
                .iter()
                .map(|cj| match (ci, cj) {
                    (Some(i), Some(j)) => covariance[*i][*j],
                    _ => 0.0,
                })
                .collect()
        })
        .collect()
}

impl PpiParams {
    /// The settings with `seed` as the seed of every part: the bootstrap, the label plan's
    /// draw and the cross-fitting's folds.
    #[must_use]
    pub fn seeded(mut self, seed: u64) -> Self {
        if let Some(bootstrap) = &mut self.bootstrap {
            bootstrap.seed = seed;
        }
        if let Some(plan) = &mut self.plan {
            plan.seed = seed;
        }
        if let Some(cross_fit) = &mut self.cross_fit {
            cross_fit.seed = seed;
        }
        self
    }

    /// Checks α ∈ (0, 1) and a given λ ∈ [0, 1].
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming the setting.
    pub fn validate(&self) -> Result<()> {
        super::ppi_mean::two_sided_z(self.alpha)?;
        super::ppi_mean::check_lambda(self.lambda)?;
        if let Some(resampling) = &self.bootstrap {
            resampling.at_level(self.alpha)?;
        }
        if let Some(plan) = &self.plan {
            plan.validate()?;
        }
        if let Some(cross_fit) = &self.cross_fit {
            cross_fit.validate()?;
        }
        if self.min_labels < 2 {
            return Err(Error::param(
                "min_labels",
                format!(
                    "expected at least 2 (a variance needs two labels), found {}",
                    self.min_labels
                ),
            ));
        }
        match self.target_width {
            Some(w) if w.is_nan() || w <= 0.0 => Err(Error::param(
                "target_width",
                format!("expected a width > 0, found {w}"),
            )),
            _ => Ok(()),
        }
    }

    /// The report of the labelled battles in `bytes`, named `source`.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn fit(&self, source: &str, bytes: &[u8]) -> Result<PpiReport> {
        self.validate()?;
        let data = parse_labelled_battles(source, bytes)?;
        let data = match &self.cross_fit {
            Some(params) => cross_fitted(&data, params)?,
            None => data,
        };
        let n_labelled = data.battles.iter().filter(|b| b.human.is_some()).count();
        let mut warnings = Vec::new();
        let mut win_rates = Vec::new();
        let drawn = data.drawn();
        // Each model's battles, in one pass over the file.
        let mut of_model: Vec<Vec<&LabelledBattle>> = vec![Vec::new(); data.models.len()];
        for b in &data.battles {
            of_model[b.a].push(b);
            of_model[b.b].push(b);
        }
        for ((m, model), battles) in data.models.iter().enumerate().zip(of_model) {
            let (mut y, mut yhat, mut yu) = (Vec::new(), Vec::new(), Vec::new());
            let (mut judge, mut human, mut probability) = (Vec::new(), Vec::new(), Vec::new());
            for b in battles {
                let own = |v: f64| if b.a == m { v } else { 1.0 - v };
                match b.human {
                    Some(h) => {
                        y.push(own(h));
                        yhat.push(own(b.judge));
                    }
                    None => yu.push(own(b.judge)),
                }
                if drawn {
                    judge.push(own(b.judge));
                    human.push(b.human.map(own));
                    probability.push(b.probability.unwrap_or(1.0));
                }
            }
            let fit = if y.len() < self.min_labels {
                Err(Error::Insufficient(format!(
                    "{} human labels, fewer than min_labels = {}: a normal interval from so few \
                     labels is far too narrow",
                    y.len(),
                    self.min_labels
                )))
            } else if drawn {
                let rows = Drawn {
                    judge: &judge,
                    human: &human,
                    probability: &probability,
                };
                active_mean(rows, self.lambda, self.alpha)
            } else {
                ppi_mean(&y, &yhat, &yu, self.lambda, self.alpha)
            };
            let (estimate, note) = match fit {
                Ok(e) => (Some(e), None),
                Err(e @ Error::Insufficient(_)) => (None, Some(e.to_string())),
                Err(e) => return Err(e),
            };
            // The bootstrap and the budget resample and plan uniform draws: not a drawn file's.
            let bootstrap = match (&estimate, self.bootstrap.filter(|_| !drawn)) {
                (Some(e), Some(resampling)) => Some(bootstrap_mean(
                    (&y, &yhat, &yu),
                    e.lambda,
                    self.alpha,
                    resampling,
                )?),
                _ => None,
            };
            let items = y.len() + yu.len();
            let planned: Vec<usize> = (0..)
                .map(|k| 25usize << k)
                .take_while(|&n| n < items)
                .collect();
            let budget = match (&estimate, planned.is_empty() || drawn) {
                (Some(_), false) => Some(label_budget(
                    (&y, &yhat, &yu),
                    self.alpha,
                    &planned,
                    self.target_width,
                )?),
                _ => None,
            };
            if let Some(note) = &note {
                warnings.push(format!("{model}: no win rate: {note}"));
            }
            win_rates.push(PpiWinRate {
                model: model.clone(),
                battles: y.len() + yu.len(),
                labels: y.len(),
                estimate,
                bootstrap,
                budget,
                note,
            });
        }
        let few: Vec<&str> = win_rates
            .iter()
            .filter(|w| w.estimate.as_ref().is_some_and(|e| e.n < FEW_LABELS))
            .map(|w| w.model.as_str())
            .collect();
        if !few.is_empty() {
            warnings.push(format!(
                "{} win rates rest on fewer than {FEW_LABELS} human labels ({}): read their \
                 intervals as approximate (in the LLMFAO study such 95 % intervals covered \
                 90–93 % of the time)",
                few.len(),
                few.join(", ")
            ));
        }
        let leaderboard = match self.leaderboard(&data, &mut warnings) {
            Ok(board) => Some(board),
            Err(e @ Error::Insufficient(_)) => {
                warnings.push(format!("no leaderboard: {e}"));
                None
            }
            Err(e) => return Err(e),
        };
        let plan = match &self.plan {
            Some(params) => match label_plan(
                &data,
                leaderboard.as_ref().map(PpiLeaderboard::standing).as_ref(),
                params,
            ) {
                Ok(plan) => Some(plan),
                Err(e @ Error::Insufficient(_)) => {
                    warnings.push(format!("no label plan: {e}"));
                    None
                }
                Err(e) => return Err(e),
            },
            None => None,
        };
        let mut notes = vec![
            "The judge-only estimates treat the judge's labels as the truth: they carry no \
             coverage guarantee for the human quantity. The prediction-powered ones do \
             (asymptotically), whatever the judge's bias."
                .to_owned(),
        ];
        if let Some(c) = &self.cross_fit {
            notes.push(format!(
                "The judge's labels are the predictions of a BTL calibration head on the \
                 rationale embeddings, cross-fitted in {} folds (γ = {}, seed {}): each human \
                 label is compared with a prediction from a head that did not see it, each \
                 unlabelled battle gets the mean of the {} heads. The judge-only estimates are \
                 the heads'.",
                c.folds, c.gamma, c.seed, c.folds
            ));
        }
        if drawn {
            notes.push(
                "The human labels were drawn with the probabilities of `label_probability`: \
                 each is weighted by the inverse of its probability (active inference), and \
                 the intervals are the asymptotic ones (no bootstrap or label budget, which \
                 assume uniformly drawn labels)."
                    .to_owned(),
            );
        }
        Ok(PpiReport {
            statistic: "ppi".to_owned(),
            source: source.to_owned(),
            settings: self.clone(),
            n_battles: data.battles.len(),
            n_labelled,
            win_rates,
            leaderboard,
            plan,
            notes,
            warnings,
        })
    }

    /// The Bradley–Terry fit: one column per model but the reference, +1 for `model_a`, −1
    /// for `model_b`; its rank sets and bootstrap (failed rounds said in `warnings`).
    fn leaderboard(
        &self,
        data: &LabelledBattles,
        warnings: &mut Vec<String>,
    ) -> Result<PpiLeaderboard> {
        let mut order: Vec<usize> = (0..data.models.len()).collect();
        order.sort_by(|&i, &j| data.models[i].cmp(&data.models[j]));
        let reference = match &self.reference {
            Some(name) => data.models.iter().position(|m| m == name).ok_or_else(|| {
                Error::param(
                    "reference",
                    format!("expected a model of the file, found `{name}`"),
                )
            })?,
            None => order[0],
        };
        let others: Vec<usize> = order.into_iter().filter(|&m| m != reference).collect();
        let column = |m: usize| others.iter().position(|&o| o == m);
        let columns: Vec<Option<usize>> = (0..data.models.len()).map(column).collect();
        let design = |rows: &[&LabelledBattle]| Design {
            rows: SparseRows(
                rows.iter()
                    .map(|b| {
                        let a = columns[b.a].map(|c| (c, 1.0));
                        a.into_iter()
                            .chain(columns[b.b].map(|c| (c, -1.0)))
                            .collect()
                    })
                    .collect(),
            ),
            columns: others.len(),
        };
        let (labelled, unlabelled): (Vec<&LabelledBattle>, Vec<&LabelledBattle>) =
            data.battles.iter().partition(|b| b.human.is_some());
        let y: Vec<f64> = labelled.iter().filter_map(|b| b.human).collect();
        let yhat: Vec<f64> = labelled.iter().map(|b| b.judge).collect();
        let yu: Vec<f64> = unlabelled.iter().map(|b| b.judge).collect();
        let (x, xu) = (design(&labelled), design(&unlabelled));
        let drawn = data.drawn();
        let fit: PpiLogistic = if drawn {
            let all: Vec<&LabelledBattle> = data.battles.iter().collect();
            let judge: Vec<f64> = all.iter().map(|b| b.judge).collect();
            let human: Vec<Option<f64>> = all.iter().map(|b| b.human).collect();
            let probability: Vec<f64> = all.iter().map(|b| b.probability.unwrap_or(1.0)).collect();
            let rows = Drawn {
                judge: &judge,
                human: &human,
                probability: &probability,
            };
            active_logistic(&design(&all), rows, self.lambda, self.alpha)?
        } else {
            ppi_logistic((&x, &y, &yhat), (&xu, &yu), self.lambda, self.alpha)?
        };
        // The rectifier learns each model's judge bias from its human labels: where those alone
        // do not identify the fit (a model's few labels all one way), its variance is
        // underestimated and the judge fills the gap unchecked. The LLMFAO study: such fits
        // covered 83 % per model and their rank sets held 60 % of the time, at 95 %.
        if fit.human_only.is_none() {
            return Err(Error::Insufficient(format!(
                "not identified by the human labels alone ({}): with the judge's labels the fit \
                 has a minimum, but its intervals would rest on the judge where the humans say \
                 nothing — label more battles of the models with few labels",
                fit.notes.join("; ")
            )));
        }
        // Said only for a leaderboard that is reported.
        let mut labels = vec![0usize; data.models.len()];
        for b in &labelled {
            labels[b.a] += 1;
            labels[b.b] += 1;
        }
        let few: Vec<&str> = (0..data.models.len())
            .filter(|&m| labels[m] < FEW_LABELS)
            .map(|m| data.models[m].as_str())
            .collect();
        if !few.is_empty() {
            warnings.push(format!(
                "the leaderboard intervals of {} models rest on fewer than {FEW_LABELS} human \
                 labels each ({}): read them as approximate{}",
                few.len(),
                few.join(", "),
                if self.bootstrap.is_some() && !drawn {
                    ", beside the bootstrap's"
                } else {
                    ""
                }
            ));
        }
        let bootstrap = match self.bootstrap.filter(|_| !drawn) {
            Some(resampling) => {
                let intervals = bootstrap_logistic(
                    (&x, &y, &yhat),
                    (&xu, &yu),
                    fit.lambda,
                    self.alpha,
                    resampling,
                )?;
                let failed = resampling.rounds
                    - intervals
                        .first()
                        .map_or(resampling.rounds, |i| i.valid_rounds);
                if failed as f64 > MOST_FAILED_ROUNDS * resampling.rounds as f64 {
                    warnings.push(format!(
                        "no bootstrap leaderboard: {failed} of {} rounds resampled battles that \
                         do not identify the fit (too few human labels for some model); the \
                         other rounds' interval would be too narrow",
                        resampling.rounds
                    ));
                    None
                } else {
                    if failed > 0 {
                        warnings.push(format!(
                            "bootstrap leaderboard: {failed} of {} rounds did not identify the \
                             fit and were left out",
                            resampling.rounds
                        ));
                    }
                    Some(intervals)
                }
            }
            None => None,
        };
        // Every model's coefficient in data order, the reference's 0.
        let theta = |estimates: &[Estimate]| -> Vec<f64> {
            columns
                .iter()
                .map(|c| c.map_or(0.0, |k| estimates[k].estimate))
                .collect()
        };
        let ppi_covariance = full_covariance(&fit.ppi_covariance, &columns);
        let ranks = rank_sets(&theta(&fit.ppi), &ppi_covariance, self.alpha)?;
        let human_only_ranks = match (&fit.human_only, &fit.human_only_covariance) {
            (Some(h), Some(cov)) => Some(rank_sets(
                &theta(h),
                &full_covariance(cov, &columns),
                self.alpha,
            )?),
            _ => None,
        };
        let zero = Estimate {
            estimate: 0.0,
            se: 0.0,
            lower: 0.0,
            upper: 0.0,
        };
        let mut ratings: Vec<PpiRating> = columns
            .iter()
            .enumerate()
            .map(|(m, c)| {
                let pick = |estimates: &Vec<Estimate>| c.map_or(zero, |k| elo(&estimates[k]));
                PpiRating {
                    model: data.models[m].clone(),
                    ppi: pick(&fit.ppi),
                    ranks: ranks[m],
                    bootstrap: bootstrap.as_ref().map(|b| match c {
                        Some(k) => elo_interval(&b[*k]),
                        None => Interval {
                            estimate: 0.0,
                            lower: 0.0,
                            upper: 0.0,
                            se: 0.0,
                            level: 1.0 - self.alpha,
                            valid_rounds: b.first().map_or(0, |i| i.valid_rounds),
                        },
                    }),
                    human_only: fit.human_only.as_ref().map(pick),
                    human_only_ranks: human_only_ranks.as_ref().map(|r| r[m]),
                    judge_only: fit.judge_only.as_ref().map(pick),
                }
            })
            .collect();
        ratings.sort_by(|a, b| b.ppi.estimate.total_cmp(&a.ppi.estimate));
        let z = super::ppi_mean::two_sided_z(self.alpha)?;
        let position = |model: &str| data.models.iter().position(|m| m == model).unwrap_or(0);
        let neighbours = ratings
            .windows(2)
            .map(|pair| {
                let (i, j) = (position(&pair[0].model), position(&pair[1].model));
                let c = &ppi_covariance;
                let var = c[i][i] + c[j][j] - 2.0 * c[i][j];
                let diff = pair[0].ppi.estimate - pair[1].ppi.estimate;
                PpiDifference {
                    better: pair[0].model.clone(),
                    worse: pair[1].model.clone(),
                    ppi: Estimate::normal(diff, var.max(0.0).sqrt() * ELO_PER_LOGIT, z),
                }
            })
            .collect();
        let trace = |c: &[Vec<f64>]| (0..c.len()).map(|i| c[i][i]).sum::<f64>();
        // Always there: a leaderboard the human labels alone do not identify is withheld above.
        let effective_n = fit.human_only_covariance.as_ref().map_or(0.0, |h| {
            fit.n as f64 * trace(h) / trace(&fit.ppi_covariance)
        });
        Ok(PpiLeaderboard {
            reference: data.models[reference].clone(),
            lambda: fit.lambda,
            labels: fit.n,
            effective_n,
            ratings,
            neighbours,
            notes: fit.notes,
        })
    }
}

crate::analysis::warnings::own_warnings!(PpiReport);

#[cfg(test)]
mod tests {
    use super::*;

    /// Three models in a round robin of 600 battles: the human label (on battle k when 3 or 5
    /// divides k: all 200 of m0–m1, 40 of m1–m2 and 40 of m2–m0, so 240, 240 and 80 labels per
    /// model) is a seeded coin with P(model_a) from their strengths; the judge's label is the human's
    /// own coin where there is one (`agreeing`), else an independent coin.
    fn battles(agreeing: bool) -> String {
        let mut state: u64 = 11;
        let mut coin = |p: f64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) < p
        };
        let mut text = "model_a,model_b,judge,human\n".to_owned();
        for k in 0..600 {
            let (a, b) = [(0, 1), (1, 2), (2, 0)][k % 3];
            let p = [0.5, 0.65, 0.35][k % 3];
            let truth = f64::from(u8::from(coin(p)));
            let judge = if agreeing {
                truth
            } else {
                f64::from(u8::from(coin(0.5)))
            };
            let human = if k % 3 == 0 || k % 5 == 0 {
                format!("{truth}")
            } else {
                String::new()
            };
            text.push_str(&format!("m{a},m{b},{judge},{human}\n"));
        }
        text
    }

    /// The medians the reading prints, recomputed from the report's win rates.
    fn medians(report: &PpiReport) -> (String, String, String) {
        let median = |f: &dyn Fn(&PpiMean) -> f64| {
            let mut v: Vec<f64> = report
                .win_rates
                .iter()
                .filter_map(|w| w.estimate.as_ref().map(f))
                .collect();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        (
            format!("{:.3}", median(&|e| e.ppi.upper - e.ppi.lower)),
            format!(
                "{:.3}",
                median(&|e| e.human_only.upper - e.human_only.lower)
            ),
            format!("{:.0}", median(&|e| e.effective_n)),
        )
    }

    #[test]
    fn the_reading_says_what_a_judge_saves_and_when_it_saves_nothing() {
        let good = PpiParams::default()
            .fit("good.csv", battles(true).as_bytes())
            .unwrap();
        let (with, without, worth) = medians(&good);
        assert_eq!(
            good.reading(),
            format!(
                "With the judge's labels, the median win-rate interval is {with} wide, against \
                 {without} from the 240 human labels alone (median per model): as if people had \
                 labelled {worth} battles per model."
            )
        );
        let noise = PpiParams::default()
            .fit("noise.csv", battles(false).as_bytes())
            .unwrap();
        let (with, without, _) = medians(&noise);
        assert!(
            noise.reading().starts_with(&format!(
                "The judge's labels do not narrow the intervals here: the median win-rate \
                 interval is {with} wide with them and {without}"
            )),
            "{}",
            noise.reading()
        );
    }
}
