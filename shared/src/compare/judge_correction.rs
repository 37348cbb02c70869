//! Judge-corrected scores where people labelled some answers (the `human` column): what each
//! system's score would be on the human scale, with intervals that carry the judge's error.
//!
//! Two corrections, both on the cells of one criterion:
//!
//! - **Prediction-powered (PPI++; ppi-python's `ppi_mean_ci`)**: the human mean from the
//!   labelled cells, corrected by the judge's scores on every other cell
//!   ([`ppi_mean`](crate::ppi::ppi_mean::ppi_mean), λ power-tuned). For two systems on the same
//!   items the estimator is applied to the item differences d_i = y_{B,i} − y_{A,i}: the labelled
//!   items are those where both answers have a human label, so the dependence between the two
//!   systems' estimates (same items, same judge) is inside d and its variance is right.
//! - **Misclassification (judgy; Lee et al. 2025, "How to correctly report LLM-as-a-judge
//!   evaluations")**, for pass/fail scores and labels: the judge's sensitivity q₁ and
//!   specificity q₀ on the labelled cells (pooled over systems: a property of the judge), and
//!   each system's observed pass rate p on its unlabelled cells give
//!
//!   ```text
//!   θ = (p + q₀ − 1)/(q₀ + q₁ − 1),   Var θ ≈ [p(1−p)/N + (1−θ)² q₀(1−q₀)/m₀ + θ² q₁(1−q₁)/m₁] / (q₀ + q₁ − 1)²
//!   ```
//!
//!   (the delta method; m₁, m₀ the labelled passes and fails), clipped to [0, 1]. Not
//!   identified when q₀ + q₁ ≤ 1 (the judge is no better than chance).
//!
//! Which is narrower depends on the data: PPI uses the labelled cells of the system itself and
//! shrinks with the judge's correlation with humans; the misclassification correction uses
//! every labelled cell for q₀ and q₁ but only models the judge's errors as the same for every
//! system and as pure label flips. Each system's row says which interval is narrower.

use super::sample_estimates::mean_sd;
use super::score_grid::ScoreGrid;
use crate::math::normal::normal_quantile;
use crate::ppi::ppi_mean::{ppi_mean, PpiMean};
use serde::{Deserialize, Serialize};

/// A rate and the count it is out of.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    pub rate: f64,
    pub n: usize,
}

/// A pass rate corrected for the judge's misclassification.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MisclassificationRate {
    /// The judge's pass rate on the system's unlabelled cells.
    pub observed: Rate,
    pub estimate: f64,
    pub se: f64,
    pub lower: f64,
    pub upper: f64,
}

/// One system's judge-corrected score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorrectedScore {
    pub system: String,
    /// Cells with a human label.
    pub labelled: usize,
    pub ppi: Option<PpiMean>,
    pub misclassification: Option<MisclassificationRate>,
    /// `ppi` or `misclassification`: whose interval is narrower, when both exist.
    pub narrower: Option<String>,
}

/// The judge-corrected scores of one criterion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeCorrection {
    pub criterion: String,
    pub labelled_cells: usize,
    /// The judge's agreement with the labels on the labelled cells: correlation of scores and
    /// labels (NaN when either is constant).
    pub correlation: f64,
    /// Pass/fail scores and labels only: P(judge passes | human passes) and P(judge fails |
    /// human fails), pooled over systems.
    pub sensitivity: Option<Rate>,
    pub specificity: Option<Rate>,
    pub systems: Vec<CorrectedScore>,
    pub warnings: Vec<String>,
}

/// Pearson's correlation of two equally long samples (NaN when either is constant).
fn correlation(x: &[f64], y: &[f64]) -> f64 {
    let (mx, sx) = mean_sd(x);
    let (my, sy) = mean_sd(y);
    let n = x.len() as f64;
    let cov = x
        .iter()
        .zip(y)
        .map(|(a, b)| (a - mx) * (b - my))
        .sum::<f64>()
        / (n - 1.0);
    if sx > 0.0 && sy > 0.0 {
        cov / (sx * sy)
    } else {
        f64::NAN
    }
}

/// The prediction-powered mean of scores `score` with labels `human` (NaN: unlabelled), or
/// why there is none.
pub fn ppi_of(score: &[f64], human: &[f64], alpha: f64) -> Result<PpiMean, String> {
    let (mut y, mut yhat, mut unlabelled) = (Vec::new(), Vec::new(), Vec::new());
    for (&s, &h) in score.iter().zip(human) {
        if !s.is_finite() {
            continue;
        }
        if h.is_finite() {
            y.push(h);
            yhat.push(s);
        } else {
            unlabelled.push(s);
        }
    }
    ppi_mean(&y, &yhat, &unlabelled, None, alpha).map_err(|e| e.to_string())
}

/// The judge-corrected scores of `grid` (criterion `criterion`, systems `systems`), or `None`
/// when no cell has a human label.
pub fn judge_correction(
    grid: &ScoreGrid,
    criterion: &str,
    systems: &[String],
    alpha: f64,
) -> Option<JudgeCorrection> {
    if !grid.has_human() {
        return None;
    }
    let mut warnings = Vec::new();
    let labelled: Vec<(f64, f64)> = grid
        .score
        .iter()
        .zip(&grid.human)
        .filter(|(s, h)| s.is_finite() && h.is_finite())
        .map(|(&s, &h)| (s, h))
        .collect();
    let (scores, labels): (Vec<f64>, Vec<f64>) = labelled.iter().copied().unzip();
    let binary = grid.binary && grid.human_binary;
    let (sensitivity, specificity) = if binary {
        let count = |label: f64, judge: f64| {
            labelled
                .iter()
                .filter(|(s, h)| *h == label && *s == judge)
                .count()
        };
        let (positives, negatives) = (
            count(1.0, 1.0) + count(1.0, 0.0),
            count(0.0, 0.0) + count(0.0, 1.0),
        );
        let rate = |k: usize, n: usize| Rate {
            rate: k as f64 / n as f64,
            n,
        };
        (
            Some(rate(count(1.0, 1.0), positives)),
            Some(rate(count(0.0, 0.0), negatives)),
        )
    } else {
        (None, None)
    };
    let z = normal_quantile(1.0 - alpha / 2.0);
    let youden = match (sensitivity, specificity) {
        (Some(q1), Some(q0)) => {
            let j = q1.rate + q0.rate - 1.0;
            if j.is_nan() || j <= 0.0 {
                warnings.push(format!(
                    "criterion `{criterion}`: the judge's sensitivity ({:.3}) and specificity \
                     ({:.3}) add up to no more than 1 — it is no better than chance on the \
                     labelled answers, so no misclassification-corrected rate is identified",
                    q1.rate, q0.rate
                ));
                None
            } else {
                Some((q1, q0, j))
            }
        }
        _ => None,
    };
    let rows = (0..grid.n_systems)
        .filter(|&s| grid.row(s).iter().any(|v| v.is_finite()))
        .map(|s| {
            let (row, human) = (grid.row(s), grid.human_row(s));
            let labelled = row
                .iter()
                .zip(human)
                .filter(|(v, h)| v.is_finite() && h.is_finite())
                .count();
            let ppi = match ppi_of(row, human, alpha) {
                Ok(ppi) => Some(ppi),
                Err(why) => {
                    warnings.push(format!(
                        "criterion `{criterion}`, `{}`: no prediction-powered score: {why}",
                        systems[s]
                    ));
                    None
                }
            };
            let misclassification = youden.and_then(|(q1, q0, j)| {
                let unlabelled: Vec<f64> = row
                    .iter()
                    .zip(human)
                    .filter(|(v, h)| v.is_finite() && !h.is_finite())
                    .map(|(v, _)| *v)
                    .collect();
                if unlabelled.is_empty() {
                    return None;
                }
                let n = unlabelled.len() as f64;
                let p = unlabelled.iter().sum::<f64>() / n;
                let theta = (p + q0.rate - 1.0) / j;
                let variance = (p * (1.0 - p) / n
                    + (1.0 - theta).powi(2) * q0.rate * (1.0 - q0.rate) / q0.n as f64
                    + theta.powi(2) * q1.rate * (1.0 - q1.rate) / q1.n as f64)
                    / (j * j);
                let se = variance.sqrt();
                Some(MisclassificationRate {
                    observed: Rate {
                        rate: p,
                        n: unlabelled.len(),
                    },
                    estimate: theta.clamp(0.0, 1.0),
                    se,
                    lower: (theta - z * se).clamp(0.0, 1.0),
                    upper: (theta + z * se).clamp(0.0, 1.0),
                })
            });
            let narrower = match (&ppi, &misclassification) {
                (Some(p), Some(m)) => Some(
                    if p.ppi.upper - p.ppi.lower <= m.upper - m.lower {
                        "ppi"
                    } else {
                        "misclassification"
                    }
                    .to_owned(),
                ),
                _ => None,
            };
            CorrectedScore {
                system: systems[s].clone(),
                labelled,
                ppi,
                misclassification,
                narrower,
            }
        })
        .collect();
    Some(JudgeCorrection {
        criterion: criterion.to_owned(),
        labelled_cells: labelled.len(),
        correlation: correlation(&scores, &labels),
        sensitivity,
        specificity,
        systems: rows,
        warnings,
    })
}

crate::analysis::warnings::own_warnings!(JudgeCorrection);
