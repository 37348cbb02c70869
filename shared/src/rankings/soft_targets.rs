//! Battle targets from an LLM judge: hard labels, label smoothing, and calibrated soft targets
//! σ(β·s) with the temperature β fitted on human labels (seed 002 §3.2, §5.1, App. G, App. H).
//!
//! **Hard** (§3.2, App. A): y = 1, ½ or 0 as the judge's score difference s(x) favours A, is
//! zero, or favours B; a sign change between the two presentation orders is a tie
//! ([`ScoredBattle::hard_target`]). Without scores the judge's verdict is used.
//!
//! **Label smoothing** (App. H.1): each decisive hard label y ∈ {0, 1} becomes the constant
//! ỹ_c ∈ {c, 1 − c} with c ∈ (0.5, 1); ties stay ½. Equivalently ỹ = (1 − c) + (2c − 1)·y, or
//! Eq. 5 with β = logit(c) and s replaced by sgn(s): ỹ_c = σ(logit(c)·sgn(s)).
//!
//! **Soft** (Eq. 5): ỹ(x) = σ(β s(x)), with β the maximum-likelihood temperature on human
//! non-tie battles (Eq. 6):
//!
//! ```text
//! β* = argmax_β Σ_{(i,j,x) ∈ B*} [ y*_ij(x) log σ(β s(x)) + (1 − y*_ij(x)) log(1 − σ(β s(x))) ]
//! ```
//!
//! fitted by Newton's method on the sufficient statistics (per distinct score: count and number
//! of A wins), with standard error 1/√I(β̂) from the observed information
//! I(β) = Σ σ(βs)(1 − σ(βs)) s². The MLE is finite exactly when some label agrees with the sign
//! of its score and some disagrees; otherwise the fit is refused.
//!
//! **Calibration** (§5.1, App. G): expected calibration error and reliability-diagram bins of
//! σ(β·s) against human non-tie labels, ECE = Σ_b (n_b / N)·|mean predicted_b − observed_b|. Either
//! oriented towards model A (p = σ(βs) against 1[human prefers A]) or, as in App. G, towards the
//! judge's choice on decisive judge comparisons (p_corr = σ(β|s|) against 1[human agrees with the
//! judge]); bins of equal width on [0, 1] or of equal mass (App. G uses ten equal-mass deciles).
//!
//! Errors: [`Error::InvalidParam`] for settings out of range or inputs of mismatched length;
//! [`Error::Insufficient`] when soft targets are asked of a file without scores, when there are no
//! human non-tie battles, or when β's MLE is infinite.

use crate::io::checks::{at_least_one, positive};
use crate::io::error::{Error, Result};
use crate::math::logistic::{sigmoid, softplus};
use crate::rankings::scored_battles::{ScoredBattle, ScoredBattles};
use serde::{Deserialize, Serialize};

/// Relative round-off allowed in a line search's sufficient-increase test.
pub(crate) const ROUND_OFF: f64 = 1e-12;

/// How a judge's signal becomes a battle target.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TargetKind {
    /// Hard targets {0, ½, 1} (Hard-Elo).
    Hard,
    /// Hard targets with decisive labels moved to {1 − c, c}, c ∈ (0.5, 1).
    LabelSmoothing { c: f64 },
    /// σ(β·s): with a given β, or (`None`) β fitted on human non-tie battles (Soft-Elo).
    Soft { beta: Option<f64> },
}

impl TargetKind {
    /// Checks the kind's constant.
    pub fn validate(&self) -> Result<()> {
        match *self {
            Self::Hard | Self::Soft { beta: None } => Ok(()),
            Self::LabelSmoothing { c } if c > 0.5 && c < 1.0 => Ok(()),
            Self::LabelSmoothing { c } => Err(Error::param(
                "c",
                format!("label smoothing needs c in (0.5, 1), found {c}"),
            )),
            Self::Soft { beta: Some(beta) } if beta.is_finite() => Ok(()),
            Self::Soft { beta: Some(beta) } => Err(Error::param(
                "beta",
                format!("expected a finite temperature, found {beta}"),
            )),
        }
    }

    /// Whether the targets need β fitted on human labels.
    pub fn fits_beta(&self) -> bool {
        matches!(self, Self::Soft { beta: None })
    }

    /// A short name for tables: `hard`, `label_smoothing(c=0.75)`, `soft`, `soft(beta=0.5)`.
    pub fn name(&self) -> String {
        match self {
            Self::Hard => "hard".to_owned(),
            Self::LabelSmoothing { c } => format!("label_smoothing(c={c})"),
            Self::Soft { beta: None } => "soft".to_owned(),
            Self::Soft { beta: Some(beta) } => format!("soft(beta={beta})"),
        }
    }

    /// One target per battle of `data`. `fitted_beta` is the temperature used by
    /// `Soft { beta: None }` (ignored by the other kinds).
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for an invalid kind, or `Soft { beta: None }` without
    /// `fitted_beta`; [`Error::Insufficient`] for soft targets without judge scores, or a battle
    /// with neither a score nor a verdict.
    pub fn targets(&self, data: &ScoredBattles, fitted_beta: Option<f64>) -> Result<Vec<f64>> {
        self.validate()?;
        match *self {
            Self::Hard => data.battles.iter().enumerate().map(hard_target).collect(),
            Self::LabelSmoothing { c } => data
                .battles
                .iter()
                .enumerate()
                .map(|ib| hard_target(ib).map(|y| label_smoothing(y, c)))
                .collect(),
            Self::Soft { beta } => {
                let beta = beta.or(fitted_beta).ok_or_else(|| {
                    Error::param("beta", "soft targets need a temperature: give β or fit it")
                })?;
                data.battles
                    .iter()
                    .enumerate()
                    .map(|(i, b)| {
                        b.score.map(|s| soft_target(s, beta)).ok_or_else(|| {
                            Error::Insufficient(format!(
                                "soft targets need judge scores (`score`, or `score_ab` and \
                                 `score_ba`), found none for battle {i} (verdicts only)"
                            ))
                        })
                    })
                    .collect()
            }
        }
    }
}

fn hard_target((i, b): (usize, &ScoredBattle)) -> Result<f64> {
    b.hard_target().ok_or_else(|| {
        Error::Insufficient(format!(
            "battle {i} has neither a judge score nor a verdict: expected one of them"
        ))
    })
}

/// Label smoothing of a hard target: 1 ↦ c, 0 ↦ 1 − c, ½ ↦ ½ (App. H.1).
pub fn label_smoothing(y: f64, c: f64) -> f64 {
    (1.0 - c) + (2.0 * c - 1.0) * y
}

/// The soft target σ(β·s) (Eq. 5).
pub fn soft_target(s: f64, beta: f64) -> f64 {
    sigmoid(beta * s)
}

/// Scores and labels (1: A preferred, 0: B preferred) of the human non-tie battles that have a
/// judge score, leaving out battles of model `exclude` (the held-out model of a fold).
pub fn human_non_ties(data: &ScoredBattles, exclude: Option<usize>) -> (Vec<f64>, Vec<f64>) {
    data.battles
        .iter()
        .filter(|b| exclude.is_none_or(|m| !b.involves(m)))
        .filter_map(|b| match (b.score, b.human) {
            (Some(s), Some(y)) if y == 0.0 || y == 1.0 => Some((s, y)),
            _ => None,
        })
        .unzip()
}

/// How far from the bulk a judge score must lie to be called outlying: this many median
/// absolute deviations from the median score.
pub const OUTLIER_MADS: f64 = 50.0;

/// A judge score far outside the bulk of the scores (a parsing slip, a unit error, an overflow).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScoreOutlier {
    /// The battle's index in [`ScoredBattles::battles`].
    pub battle: usize,
    /// Its line in the file, when known.
    pub line: Option<usize>,
    pub score: f64,
    /// |score − median| in median absolute deviations.
    pub deviations: f64,
}

/// The battles whose judge score lies more than [`OUTLIER_MADS`] median absolute deviations
/// from the median score. When more than half the scores are equal (MAD 0), the mean absolute
/// deviation from the median is the scale; with every score equal there is no outlier.
pub fn score_outliers(data: &ScoredBattles) -> Vec<ScoreOutlier> {
    let scores: Vec<(usize, f64)> = data
        .battles
        .iter()
        .enumerate()
        .filter_map(|(i, b)| b.score.map(|s| (i, s)))
        .collect();
    let median = |mut v: Vec<f64>| -> f64 {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            0.5 * (v[n / 2 - 1] + v[n / 2])
        }
    };
    if scores.is_empty() {
        return Vec::new();
    }
    let centre = median(scores.iter().map(|&(_, s)| s).collect());
    let deviation: Vec<f64> = scores.iter().map(|&(_, s)| (s - centre).abs()).collect();
    let mad = median(deviation.clone());
    let scale = if mad > 0.0 {
        mad
    } else {
        deviation.iter().sum::<f64>() / deviation.len() as f64
    };
    if !(scale > 0.0 && scale.is_finite()) {
        return Vec::new();
    }
    scores
        .iter()
        .zip(&deviation)
        .filter(|(_, &d)| d > OUTLIER_MADS * scale)
        .map(|(&(battle, score), &d)| ScoreOutlier {
            battle,
            line: data.battles[battle].line,
            score,
            deviations: d / scale,
        })
        .collect()
}

/// Settings of the β fit (Eq. 6).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BetaParams {
    /// Most Newton iterations.
    pub max_iter: usize,
    /// Converged when the full Newton step in β is at most this and the gradient is at
    /// round-off (at most 1e-8 · Σ|s|).
    pub tol: f64,
}

impl Default for BetaParams {
    fn default() -> Self {
        Self {
            max_iter: 100,
            tol: 1e-12,
        }
    }
}

/// A fitted temperature.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BetaFit {
    pub beta: f64,
    /// Standard error 1/√I(β̂) from the observed information.
    pub se: f64,
    /// Human non-tie battles used.
    pub n_battles: usize,
    /// Distinct score values (the size of the sufficient statistics).
    pub distinct_scores: usize,
    pub log_likelihood: f64,
    /// dℓ/dβ at the returned β (0 at the optimum).
    pub gradient: f64,
    pub iterations: usize,
    pub converged: bool,
}

impl BetaParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        positive("tol", self.tol)?;
        at_least_one("max_iter", self.max_iter)?;
        Ok(())
    }

    /// Fits β on the human non-tie battles of `data`, leaving out model `exclude`'s battles.
    ///
    /// # Errors
    /// As [`BetaParams::fit`].
    pub fn fit_battles(&self, data: &ScoredBattles, exclude: Option<usize>) -> Result<BetaFit> {
        let (scores, labels) = human_non_ties(data, exclude);
        self.fit(&scores, &labels)
    }

    /// Fits β by maximum likelihood on score differences `scores` and binary labels `labels`
    /// (1 when the human preferred A, 0 when B).
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for invalid settings, mismatched lengths, a non-finite score or a
    /// label other than 0 or 1; [`Error::Insufficient`] for no battles, or when every label
    /// agrees (or every label disagrees) with the sign of its score, which makes the MLE
    /// infinite.
    pub fn fit(&self, scores: &[f64], labels: &[f64]) -> Result<BetaFit> {
        self.fit_from(scores, labels, 0.0)
    }

    /// As [`BetaParams::fit`], with Newton started at `start` (a warm start, e.g. the pooled β
    /// for a held-out fold). The optimum does not depend on the start.
    ///
    /// # Errors
    /// As [`BetaParams::fit`], and [`Error::InvalidParam`] for a non-finite start.
    pub fn fit_from(&self, scores: &[f64], labels: &[f64], start: f64) -> Result<BetaFit> {
        self.validate()?;
        if !start.is_finite() {
            return Err(Error::param(
                "start",
                format!("expected a finite starting β, found {start}"),
            ));
        }
        if scores.len() != labels.len() {
            return Err(Error::param(
                "labels",
                format!(
                    "expected one label per score ({}), found {}",
                    scores.len(),
                    labels.len()
                ),
            ));
        }
        if let Some(i) = scores.iter().position(|s| !s.is_finite()) {
            return Err(Error::param(
                "scores",
                format!("expected finite scores, found {} at index {i}", scores[i]),
            ));
        }
        if let Some(i) = labels.iter().position(|&y| y != 0.0 && y != 1.0) {
            return Err(Error::param(
                "labels",
                format!(
                    "expected 0 or 1 (human non-tie labels), found {} at index {i}",
                    labels[i]
                ),
            ));
        }
        if scores.is_empty() {
            return Err(Error::Insufficient(
                "fitting β needs human non-tie battles with judge scores, found none".to_owned(),
            ));
        }
        let agree = scores
            .iter()
            .zip(labels)
            .filter(|(&s, &y)| (2.0 * y - 1.0) * s > 0.0)
            .count();
        let disagree = scores
            .iter()
            .zip(labels)
            .filter(|(&s, &y)| (2.0 * y - 1.0) * s < 0.0)
            .count();
        if agree == 0 || disagree == 0 {
            return Err(Error::Insufficient(format!(
                "the β MLE is infinite: of {} human non-tie battles, {agree} agree with the sign of \
                 the judge score and {disagree} disagree; the fit needs at least one of each",
                scores.len()
            )));
        }

        let stats = ScoreStats::new(scores, labels);
        // Each battle adds at most |s| to the gradient: this is round-off on that scale.
        let gradient_tol = 1e-8 * scores.iter().map(|s| s.abs()).sum::<f64>().max(1.0);
        let mut beta = start;
        let mut at = stats.evaluate(beta);
        let mut iterations = 0;
        let mut converged = false;
        while iterations < self.max_iter {
            let step = at.gradient / at.information;
            // Armijo backtracking; the slack lets a step through whose gain is below the
            // round-off of the sum, so the last Newton steps are not mistaken for failures.
            let slack = ROUND_OFF * at.log_likelihood.abs().max(1.0);
            let mut t = 1.0;
            let mut next = stats.evaluate(beta + step);
            while next.log_likelihood < at.log_likelihood + 1e-4 * t * step * at.gradient - slack
                && t > 1e-12
            {
                t *= 0.5;
                next = stats.evaluate(beta + t * step);
            }
            beta += t * step;
            at = next;
            iterations += 1;
            if step.abs() <= self.tol {
                // A tiny step is not enough: a score far out of scale (1e20, say) makes the
                // information huge and every step tiny while the gradient stays far from 0.
                converged = at.gradient.is_finite() && at.gradient.abs() <= gradient_tol;
                break;
            }
        }
        Ok(BetaFit {
            beta,
            se: 1.0 / at.information.sqrt(),
            n_battles: scores.len(),
            distinct_scores: stats.groups.len(),
            log_likelihood: at.log_likelihood,
            gradient: at.gradient,
            iterations,
            converged,
        })
    }
}

/// The log-likelihood of Eq. 6, its derivative, and the observed information at one β.
struct Evaluation {
    log_likelihood: f64,
    gradient: f64,
    information: f64,
}

/// Per distinct score s: the number of battles and of A wins.
struct ScoreStats {
    groups: Vec<(f64, f64, f64)>,
}

impl ScoreStats {
    fn new(scores: &[f64], labels: &[f64]) -> Self {
        let mut pairs: Vec<(f64, f64)> =
            scores.iter().copied().zip(labels.iter().copied()).collect();
        pairs.sort_by(|x, y| x.0.total_cmp(&y.0));
        let mut groups: Vec<(f64, f64, f64)> = Vec::new();
        for (s, y) in pairs {
            match groups.last_mut() {
                Some(last) if last.0 == s => {
                    last.1 += 1.0;
                    last.2 += y;
                }
                _ => groups.push((s, 1.0, y)),
            }
        }
        Self { groups }
    }

    /// One pass: with x = βs, log σ(x) = −softplus(−x) and log σ(−x) = −softplus(−x) − x.
    fn evaluate(&self, beta: f64) -> Evaluation {
        self.groups.iter().fold(
            Evaluation {
                log_likelihood: 0.0,
                gradient: 0.0,
                information: 0.0,
            },
            |acc, &(s, n, w)| {
                let x = beta * s;
                let p = sigmoid(x);
                Evaluation {
                    log_likelihood: acc.log_likelihood - n * softplus(-x) - (n - w) * x,
                    gradient: acc.gradient + s * (w - n * p),
                    information: acc.information + n * p * (1.0 - p) * s * s,
                }
            },
        )
    }
}

/// How reliability bins are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Binning {
    /// Bins of equal width on [0, 1].
    EqualWidth,
    /// Bins of (nearly) equal counts in order of the prediction; ties keep input order, and the
    /// first `N mod bins` bins hold one more (as `numpy.array_split`).
    EqualMass,
}

/// Which event the soft target is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Orientation {
    /// p = σ(β s) against 1[the human preferred A], on human non-tie battles with scores.
    ModelA,
    /// App. G: p_corr = σ(β |s|) against 1[the human chose the judge's side], on human non-tie
    /// battles where the judge's hard target is decisive (s ≠ 0, no order flip).
    JudgeChoice,
}

/// Settings of a reliability diagram.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CalibrationParams {
    pub bins: usize,
    pub binning: Binning,
    pub orientation: Orientation,
}

impl Default for CalibrationParams {
    /// Ten equal-mass bins of p_corr, as in seed 002 App. G.
    fn default() -> Self {
        Self {
            bins: 10,
            binning: Binning::EqualMass,
            orientation: Orientation::JudgeChoice,
        }
    }
}

/// One bin of a reliability diagram.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ReliabilityBin {
    /// Equal width: the bin's edges. Equal mass: the smallest and largest prediction in it
    /// (`None` when empty).
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    pub count: usize,
    /// Mean prediction in the bin (`None` when empty).
    pub mean_predicted: Option<f64>,
    /// Observed frequency of the event in the bin (`None` when empty).
    pub observed: Option<f64>,
}

/// Expected calibration error with its reliability diagram.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub settings: CalibrationParams,
    pub n: usize,
    pub ece: f64,
    pub bins: Vec<ReliabilityBin>,
}

impl CalibrationParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        at_least_one("bins", self.bins)?;
        Ok(())
    }

    /// Calibration of soft targets σ(β·s) against the human non-tie labels of `data`.
    ///
    /// # Errors
    /// As [`CalibrationParams::compute`]; [`Error::InvalidParam`] for a non-finite β.
    pub fn of_soft_targets(&self, data: &ScoredBattles, beta: f64) -> Result<Calibration> {
        if !beta.is_finite() {
            return Err(Error::param(
                "beta",
                format!("expected a finite temperature, found {beta}"),
            ));
        }
        let (predicted, outcome): (Vec<f64>, Vec<f64>) = match self.orientation {
            Orientation::ModelA => {
                let (scores, labels) = human_non_ties(data, None);
                (
                    scores.iter().map(|&s| soft_target(s, beta)).collect(),
                    labels,
                )
            }
            Orientation::JudgeChoice => data
                .battles
                .iter()
                .filter_map(|b| match (b.score, b.hard_target(), b.human) {
                    (Some(s), Some(judge), Some(human))
                        if (judge == 0.0 || judge == 1.0) && (human == 0.0 || human == 1.0) =>
                    {
                        Some((
                            soft_target(s.abs(), beta),
                            f64::from(u8::from(judge == human)),
                        ))
                    }
                    _ => None,
                })
                .unzip(),
        };
        self.compute(&predicted, &outcome)
    }

    /// ECE and reliability bins of probabilities `predicted` against 0/1 `outcome`s.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for invalid settings, mismatched lengths, a prediction outside
    /// [0, 1] or an outcome other than 0 or 1; [`Error::Insufficient`] for no predictions.
    pub fn compute(&self, predicted: &[f64], outcome: &[f64]) -> Result<Calibration> {
        self.validate()?;
        if predicted.len() != outcome.len() {
            return Err(Error::param(
                "outcome",
                format!(
                    "expected one outcome per prediction ({}), found {}",
                    predicted.len(),
                    outcome.len()
                ),
            ));
        }
        if let Some(i) = predicted.iter().position(|p| !(0.0..=1.0).contains(p)) {
            return Err(Error::param(
                "predicted",
                format!(
                    "expected probabilities in [0, 1], found {} at index {i}",
                    predicted[i]
                ),
            ));
        }
        if let Some(i) = outcome.iter().position(|&y| y != 0.0 && y != 1.0) {
            return Err(Error::param(
                "outcome",
                format!("expected 0 or 1, found {} at index {i}", outcome[i]),
            ));
        }
        let n = predicted.len();
        if n == 0 {
            return Err(Error::Insufficient(
                "calibration needs at least one labelled prediction, found none".to_owned(),
            ));
        }
        let members: Vec<Vec<usize>> = match self.binning {
            Binning::EqualWidth => {
                let mut members = vec![Vec::new(); self.bins];
                for (i, &p) in predicted.iter().enumerate() {
                    let bin = ((p * self.bins as f64) as usize).min(self.bins - 1);
                    members[bin].push(i);
                }
                members
            }
            Binning::EqualMass => {
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by(|&i, &j| predicted[i].total_cmp(&predicted[j]));
                let (base, extra) = (n / self.bins, n % self.bins);
                let mut start = 0;
                (0..self.bins)
                    .map(|b| {
                        let len = base + usize::from(b < extra);
                        let bin = order[start..start + len].to_vec();
                        start += len;
                        bin
                    })
                    .collect()
            }
        };
        let mut ece = 0.0;
        let bins = members
            .iter()
            .enumerate()
            .map(|(b, idx)| {
                let count = idx.len();
                let mean = |v: &[f64]| idx.iter().map(|&i| v[i]).sum::<f64>() / count as f64;
                let (mean_predicted, observed) = if count == 0 {
                    (None, None)
                } else {
                    let (p, o) = (mean(predicted), mean(outcome));
                    ece += count as f64 / n as f64 * (p - o).abs();
                    (Some(p), Some(o))
                };
                let (lower, upper) = match self.binning {
                    Binning::EqualWidth => (
                        Some(b as f64 / self.bins as f64),
                        Some((b + 1) as f64 / self.bins as f64),
                    ),
                    Binning::EqualMass => (
                        idx.iter().map(|&i| predicted[i]).reduce(f64::min),
                        idx.iter().map(|&i| predicted[i]).reduce(f64::max),
                    ),
                };
                ReliabilityBin {
                    lower,
                    upper,
                    count,
                    mean_predicted,
                    observed,
                }
            })
            .collect();
        Ok(Calibration {
            settings: *self,
            n,
            ece,
            bins,
        })
    }
}
