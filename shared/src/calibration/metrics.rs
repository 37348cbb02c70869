//! Prediction metrics of a head and of its base judge against human labels on the same rows
//! (seed 000 §5.1), each with a seeded bootstrap interval.
//!
//! ```text
//! MSE = (1/n) Σ_t (ŷ_t − y_t)²        MAE = (1/n) Σ_t |ŷ_t − y_t|      accuracy = (1/n) Σ_t [ŷ_t = y_t]
//! precision = TP/(TP + FP)           recall = TP/(TP + FN)           F1 = 2·precision·recall/(precision + recall)
//! C[i][j] = #{t : y_t = class i, ŷ_t = class j}                       (confusion matrix, App. B.4)
//! ```
//!
//! Precision, recall and F1 are for a positive class ([`Averaging::Binary`], e.g. "first
//! response preferred") or the unweighted mean of the per-class values over the class set
//! ([`Averaging::Macro`], for more than two classes); a ratio with a zero denominator counts 0,
//! as scikit-learn's `zero_division=0`. Pearson r, Spearman ρ and Kendall τ-b are those of
//! [`crate::math::correlation`].
//!
//! Intervals: every metric is bootstrapped by [`crate::math::resample::bootstrap`] over rows. The head,
//! the base judge and the difference head − base are evaluated on the same resampled rows
//! (round r of seed s draws the same rows for all three), so the difference interval is paired:
//! an interval below 0 for MSE means the head's error is lower on resamples of these rows.
//!
//! Arguments: human labels, the head's and the base judge's predictions (equally long), and
//! [`BootstrapParams`]. Returns: [`RegressionComparison`] or [`ClassificationComparison`].
//! Errors: [`Error::InvalidParam`] for lists of different lengths, non-finite values, a positive
//! class outside the class set, or invalid bootstrap settings; located [`Error::Input`] for a
//! label or prediction outside the class set; [`Error::Insufficient`] for fewer than two rows.

use crate::io::error::{Error, Location, Result};
use crate::math::correlation::{kendall_tau_b, pearson, spearman};
use crate::math::parallel_rounds::map_rounds;
use crate::math::resample::{percentile_interval, resample_indices, BootstrapParams, Interval};
use serde::{Deserialize, Serialize};

/// How precision, recall and F1 are summarised over classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Averaging {
    /// Of one positive class.
    Binary { positive: i64 },
    /// Unweighted mean over the class set.
    Macro,
}

/// Precision, recall and F1 of one prediction list.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PrecisionRecallF1 {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// A metric of the head and of the base judge, and their paired difference head − base.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Paired {
    pub head: Interval,
    pub base: Interval,
    pub difference: Interval,
}

/// Regression and correlation metrics of predicted scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegressionComparison {
    pub n: usize,
    pub bootstrap: BootstrapParams,
    pub mse: Paired,
    pub mae: Paired,
    pub pearson: Paired,
    pub spearman: Paired,
    pub kendall_tau_b: Paired,
}

/// Classification metrics of predicted classes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassificationComparison {
    pub n: usize,
    pub bootstrap: BootstrapParams,
    pub classes: Vec<i64>,
    pub averaging: Averaging,
    pub accuracy: Paired,
    pub precision: Paired,
    pub recall: Paired,
    pub f1: Paired,
    /// Rows: human class; columns: predicted class; both in class order.
    pub head_confusion: Vec<Vec<u64>>,
    pub base_confusion: Vec<Vec<u64>>,
}

/// Mean squared error.
pub fn mean_squared_error(truth: &[f64], predicted: &[f64]) -> Result<f64> {
    check_values(truth, predicted)?;
    Ok(mse_at(truth, predicted, &all(truth.len())))
}

/// Mean absolute error.
pub fn mean_absolute_error(truth: &[f64], predicted: &[f64]) -> Result<f64> {
    check_values(truth, predicted)?;
    Ok(mae_at(truth, predicted, &all(truth.len())))
}

/// Share of rows whose predicted class equals the human class.
pub fn accuracy(truth: &[i64], predicted: &[i64]) -> Result<f64> {
    check_lengths(truth.len(), predicted.len())?;
    let hits = truth.iter().zip(predicted).filter(|(a, b)| a == b).count();
    Ok(hits as f64 / truth.len() as f64)
}

/// The confusion matrix over `classes` (rows: human, columns: predicted).
pub fn confusion_matrix(
    truth: &[i64],
    predicted: &[i64],
    classes: &[i64],
) -> Result<Vec<Vec<u64>>> {
    check_lengths(truth.len(), predicted.len())?;
    let t = indices("labels", truth, classes)?;
    let p = indices("predictions", predicted, classes)?;
    Ok(confusion_at(&t, &p, classes.len(), &all(t.len())))
}

/// Precision, recall and F1 over `classes`.
pub fn precision_recall_f1(
    truth: &[i64],
    predicted: &[i64],
    classes: &[i64],
    averaging: Averaging,
) -> Result<PrecisionRecallF1> {
    let c = confusion_matrix(truth, predicted, classes)?;
    Ok(summarise(&c, positive(classes, averaging)?))
}

/// Each value's nearest class (the first in class order on a tie), e.g. to score a
/// least-squares prediction's accuracy.
pub fn nearest_class(values: &[f64], classes: &[i64]) -> Result<Vec<i64>> {
    let Some(&first) = classes.first() else {
        return Err(Error::param(
            "classes",
            "expected at least one class, found none",
        ));
    };
    Ok(values
        .iter()
        .map(|&v| {
            classes.iter().fold(first, |best, &c| {
                if (c as f64 - v).abs() < (best as f64 - v).abs() {
                    c
                } else {
                    best
                }
            })
        })
        .collect())
}

/// MSE, MAE and the three correlations of the head's and the base judge's scores against
/// human scores, with bootstrap intervals.
pub fn compare_regression(
    truth: &[f64],
    head: &[f64],
    base: &[f64],
    params: &BootstrapParams,
) -> Result<RegressionComparison> {
    check_values(truth, head)?;
    check_values(truth, base)?;
    let n = truth.len();
    let correlation = |f: fn(&[f64], &[f64]) -> Result<f64>, p: &[f64], idx: &[usize]| {
        let (a, b): (Vec<f64>, Vec<f64>) = idx.iter().map(|&i| (truth[i], p[i])).unzip();
        f(&a, &b).unwrap_or(f64::NAN)
    };
    let metrics = |p: &[f64], idx: &[usize]| {
        [
            mse_at(truth, p, idx),
            mae_at(truth, p, idx),
            correlation(pearson, p, idx),
            correlation(spearman, p, idx),
            correlation(kendall_tau_b, p, idx),
        ]
    };
    let [mse, mae, pearson, spearman, kendall_tau_b] =
        paired(n, params, |idx| (metrics(head, idx), metrics(base, idx)))?;
    Ok(RegressionComparison {
        n,
        bootstrap: *params,
        mse,
        mae,
        pearson,
        spearman,
        kendall_tau_b,
    })
}

/// Accuracy, precision, recall, F1 and confusion matrices of the head's and the base judge's
/// classes against human classes, with bootstrap intervals.
pub fn compare_classification(
    truth: &[i64],
    head: &[i64],
    base: &[i64],
    classes: &[i64],
    averaging: Averaging,
    params: &BootstrapParams,
) -> Result<ClassificationComparison> {
    check_lengths(truth.len(), head.len())?;
    check_lengths(truth.len(), base.len())?;
    let positive = positive(classes, averaging)?;
    let t = indices("labels", truth, classes)?;
    let h = indices("predictions", head, classes)?;
    let b = indices("base predictions", base, classes)?;
    let (n, k) = (t.len(), classes.len());
    let metrics = |p: &[usize], idx: &[usize]| {
        let accuracy = idx.iter().filter(|&&i| t[i] == p[i]).count() as f64 / idx.len() as f64;
        let m = summarise(&confusion_at(&t, p, k, idx), positive);
        [accuracy, m.precision, m.recall, m.f1]
    };
    let [accuracy, precision, recall, f1] =
        paired(n, params, |idx| (metrics(&h, idx), metrics(&b, idx)))?;
    Ok(ClassificationComparison {
        n,
        bootstrap: *params,
        classes: classes.to_vec(),
        averaging,
        accuracy,
        precision,
        recall,
        f1,
        head_confusion: confusion_at(&t, &h, k, &all(n)),
        base_confusion: confusion_at(&t, &b, k, &all(n)),
    })
}

/// Bootstraps M metrics of the head, of the base judge and of their differences head − base,
/// all on the same resampled rows: `metrics(idx)` gives the head's and the base's metrics on
/// rows `idx`. Round r resamples the rows that [`crate::math::resample::bootstrap`] resamples in
/// its round r, so each interval is the one that a bootstrap of that metric alone gives, to the
/// bit; the draws are made once for all the metrics, and the rounds run on every core natively.
fn paired<const M: usize>(
    n: usize,
    params: &BootstrapParams,
    metrics: impl Fn(&[usize]) -> ([f64; M], [f64; M]) + Sync,
) -> Result<[Paired; M]> {
    params.validate()?;
    if n < 2 {
        return Err(Error::Insufficient(format!(
            "a bootstrap needs at least 2 units, found {n}"
        )));
    }
    let (head, base) = metrics(&all(n));
    let rounds = map_rounds(
        params.rounds,
        || (),
        |_, r| metrics(&resample_indices(n, &mut params.round_rng(r))),
    );
    let interval = |estimate: f64, replicates: Vec<f64>| {
        percentile_interval(estimate, &replicates, params.level)
    };
    Ok(std::array::from_fn(|j| Paired {
        head: interval(head[j], rounds.iter().map(|(h, _)| h[j]).collect()),
        base: interval(base[j], rounds.iter().map(|(_, b)| b[j]).collect()),
        difference: interval(
            head[j] - base[j],
            rounds.iter().map(|(h, b)| h[j] - b[j]).collect(),
        ),
    }))
}

fn all(n: usize) -> Vec<usize> {
    (0..n).collect()
}

fn mse_at(truth: &[f64], p: &[f64], idx: &[usize]) -> f64 {
    idx.iter().map(|&i| (p[i] - truth[i]).powi(2)).sum::<f64>() / idx.len() as f64
}

fn mae_at(truth: &[f64], p: &[f64], idx: &[usize]) -> f64 {
    idx.iter().map(|&i| (p[i] - truth[i]).abs()).sum::<f64>() / idx.len() as f64
}

fn confusion_at(truth: &[usize], p: &[usize], k: usize, idx: &[usize]) -> Vec<Vec<u64>> {
    let mut c = vec![vec![0u64; k]; k];
    for &i in idx {
        c[truth[i]][p[i]] += 1;
    }
    c
}

/// The positive class's index for binary averaging, `None` for macro.
fn positive(classes: &[i64], averaging: Averaging) -> Result<Option<usize>> {
    match averaging {
        Averaging::Macro => Ok(None),
        Averaging::Binary { positive } => classes
            .iter()
            .position(|&c| c == positive)
            .map(Some)
            .ok_or_else(|| {
                Error::param(
                    "averaging",
                    format!("the positive class {positive} is not in the classes {classes:?}"),
                )
            }),
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn per_class(c: &[Vec<u64>], j: usize) -> PrecisionRecallF1 {
    let tp = c[j][j];
    let predicted: u64 = c.iter().map(|row| row[j]).sum();
    let actual: u64 = c[j].iter().sum();
    let (precision, recall) = (ratio(tp, predicted), ratio(tp, actual));
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    PrecisionRecallF1 {
        precision,
        recall,
        f1,
    }
}

fn summarise(c: &[Vec<u64>], positive: Option<usize>) -> PrecisionRecallF1 {
    match positive {
        Some(j) => per_class(c, j),
        None => {
            let k = c.len() as f64;
            let each: Vec<PrecisionRecallF1> = (0..c.len()).map(|j| per_class(c, j)).collect();
            PrecisionRecallF1 {
                precision: each.iter().map(|m| m.precision).sum::<f64>() / k,
                recall: each.iter().map(|m| m.recall).sum::<f64>() / k,
                f1: each.iter().map(|m| m.f1).sum::<f64>() / k,
            }
        }
    }
}

fn indices(source: &str, labels: &[i64], classes: &[i64]) -> Result<Vec<usize>> {
    labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            classes.iter().position(|c| c == label).ok_or_else(|| {
                Error::input(
                    Location::line(source, i as u64 + 1),
                    format!("expected one of the classes {classes:?}, found {label}"),
                )
            })
        })
        .collect()
}

fn check_lengths(truth: usize, predicted: usize) -> Result<()> {
    if truth != predicted {
        return Err(Error::param(
            "predictions",
            format!("expected {truth} predictions, one per label, found {predicted}"),
        ));
    }
    if truth == 0 {
        return Err(Error::Insufficient("no rows to score".into()));
    }
    Ok(())
}

fn check_values(truth: &[f64], predicted: &[f64]) -> Result<()> {
    check_lengths(truth.len(), predicted.len())?;
    if truth.iter().chain(predicted).any(|v| !v.is_finite()) {
        return Err(Error::param(
            "predictions",
            "every label and prediction must be a finite number",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_metrics_equal_a_bootstrap_of_each_metric_alone() {
        use crate::math::resample::bootstrap;
        let truth: Vec<f64> = (0..97).map(|i| f64::from((i * 7 % 11) as u8)).collect();
        let head: Vec<f64> = truth.iter().map(|t| t + 0.5).collect();
        let base: Vec<f64> = (0..97).map(|i| f64::from((i * 5 % 13) as u8)).collect();
        let params = BootstrapParams {
            rounds: 50,
            seed: 3,
            level: 0.9,
        };
        let comparison = compare_regression(&truth, &head, &base, &params).unwrap();
        let alone = |p: &[f64], f: fn(&[f64], &[f64]) -> Result<f64>| {
            bootstrap(truth.len(), &params, |idx| {
                let (a, b): (Vec<f64>, Vec<f64>) = idx.iter().map(|&i| (truth[i], p[i])).unzip();
                f(&a, &b).unwrap_or(f64::NAN)
            })
            .unwrap()
        };
        assert_eq!(comparison.kendall_tau_b.head, alone(&head, kendall_tau_b));
        assert_eq!(comparison.spearman.base, alone(&base, spearman));
        let difference = bootstrap(truth.len(), &params, |idx| {
            mse_at(&truth, &head, idx) - mse_at(&truth, &base, idx)
        })
        .unwrap();
        assert_eq!(comparison.mse.difference, difference);
        assert!(compare_regression(&truth[..1], &head[..1], &base[..1], &params).is_err());
    }

    #[test]
    fn hand_computed_classification() {
        // truth 0 0 1 1 2, predicted 0 1 1 1 0.
        let (t, p, classes) = ([0, 0, 1, 1, 2], [0, 1, 1, 1, 0], [0, 1, 2]);
        assert_eq!(
            confusion_matrix(&t, &p, &classes).unwrap(),
            [[1, 1, 0], [0, 2, 0], [1, 0, 0]]
        );
        assert!((accuracy(&t, &p).unwrap() - 0.6).abs() < 1e-15);
        // Class 1: precision 2/3, recall 1, F1 0.8.
        let b = precision_recall_f1(&t, &p, &classes, Averaging::Binary { positive: 1 }).unwrap();
        assert!((b.precision - 2.0 / 3.0).abs() < 1e-15 && (b.f1 - 0.8).abs() < 1e-15);
        // Macro: class 0 (1/2, 1/2, 1/2), class 1 (2/3, 1, 4/5), class 2 (0, 0, 0).
        let m = precision_recall_f1(&t, &p, &classes, Averaging::Macro).unwrap();
        assert!((m.precision - (0.5 + 2.0 / 3.0) / 3.0).abs() < 1e-15);
        assert!((m.recall - 0.5).abs() < 1e-15);
        assert!((m.f1 - (0.5 + 0.8) / 3.0).abs() < 1e-15);
    }

    #[test]
    fn nearest_class_rounds_to_the_scale() {
        assert_eq!(
            nearest_class(&[0.2, 2.5, 7.0, -3.0], &[1, 2, 3, 4, 5]).unwrap(),
            [1, 2, 5, 1]
        );
        assert!(nearest_class(&[1.0], &[]).is_err());
    }

    #[test]
    fn predictions_outside_the_class_set_are_located() {
        let err = confusion_matrix(&[1, 2], &[1, 9], &[1, 2]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "predictions, line 2: expected one of the classes [1, 2], found 9"
        );
        assert!(
            precision_recall_f1(&[1], &[1], &[1, 2], Averaging::Binary { positive: 3 }).is_err()
        );
        assert!(mean_squared_error(&[1.0], &[1.0, 2.0]).is_err());
    }
}
