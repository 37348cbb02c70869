//! Each system's score on one criterion: the mean of its item scores (a pass rate for 0/1
//! scores) with the interval that suits the data — Wilson's for a pass rate (never zero width,
//! at 0 % and 100 % included), Student's t otherwise — and, when items are grouped, the
//! cluster-robust interval (CR1, t on G − 1 degrees of freedom; inspect-ai's
//! `stderr(cluster=…)` and statsmodels' clustered OLS give its standard error). With repeated
//! epochs the item score is the epochs' mean and the within-item variance is reported beside
//! it (Miller 2024, "Adding error bars to evals"): it is the part of the spread more epochs
//! would shrink.
//!
//! Arguments: the criterion's [`ScoreGrid`], the table (cells, clusters) and α. Returns one
//! [`SystemScore`] per system with at least one item. A system with one item has a Wilson
//! interval when binary and no t interval (NaN, said in the comparison's warnings); one
//! cluster identifies no clustered interval.

use super::sample_estimates::{cluster_interval, mean_sd, t_interval, wilson, MeanInterval};
use super::score_grid::ScoreGrid;
use super::score_table::ScoreTable;
use crate::math::resample::Interval;
use serde::{Deserialize, Serialize};

/// A clustered interval and the number of clusters it rests on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClusteredInterval {
    pub clusters: usize,
    #[serde(flatten)]
    pub interval: MeanInterval,
}

/// How much repeated epochs of the same item vary.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EpochSpread {
    /// Items scored more than once.
    pub items_with_repeats: usize,
    /// Scores per item, on average.
    pub mean_epochs: f64,
    /// Mean over those items of the sample variance of their epochs' scores.
    pub within_item_variance: f64,
}

/// One system's score on one criterion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemScore {
    pub criterion: String,
    pub system: String,
    pub n_items: usize,
    /// Scores read (epochs included).
    pub n_scores: usize,
    pub mean: f64,
    /// Standard deviation of the item scores (n − 1).
    pub sd: f64,
    /// Wilson's for a pass rate, Student's t otherwise.
    pub interval: MeanInterval,
    pub clustered: Option<ClusteredInterval>,
    /// Percentile bootstrap over items (clusters when given), when rounds were asked for.
    pub bootstrap: Option<Interval>,
    /// When the file has epochs.
    pub epochs: Option<EpochSpread>,
}

/// Each system's score on criterion `c`.
pub fn system_scores(
    table: &ScoreTable,
    grid: &ScoreGrid,
    c: usize,
    alpha: f64,
) -> Vec<SystemScore> {
    (0..grid.n_systems)
        .filter_map(|s| {
            let items = grid.items_of(s);
            if items.is_empty() {
                return None;
            }
            let values: Vec<f64> = items.iter().map(|&i| grid.row(s)[i as usize]).collect();
            let n = values.len();
            let (mean, sd) = mean_sd(&values);
            let interval = if grid.binary {
                wilson(values.iter().sum(), n as f64, alpha)
            } else {
                t_interval(&values, alpha).0
            };
            let clustered = table.cluster_of_item.as_ref().map(|of_item| {
                let labels: Vec<u32> = items.iter().map(|&i| of_item[i as usize]).collect();
                let (interval, _, clusters) = cluster_interval(&values, &labels, alpha);
                ClusteredInterval { clusters, interval }
            });
            let cells = items
                .iter()
                .map(|&i| &table.cells[grid.cell[s * grid.n_items + i as usize] as usize]);
            let n_scores = cells.clone().map(|cell| cell.epochs as usize).sum();
            let epochs = table.has_epochs.then(|| {
                let repeated: Vec<f64> = cells
                    .filter(|cell| cell.epochs > 1)
                    .map(|cell| cell.sum_squares / f64::from(cell.epochs - 1))
                    .collect();
                EpochSpread {
                    items_with_repeats: repeated.len(),
                    mean_epochs: n_scores as f64 / n as f64,
                    within_item_variance: if repeated.is_empty() {
                        0.0
                    } else {
                        repeated.iter().sum::<f64>() / repeated.len() as f64
                    },
                }
            });
            Some(SystemScore {
                criterion: table.criteria[c].clone(),
                system: table.systems[s].clone(),
                n_items: n,
                n_scores,
                mean,
                sd,
                interval,
                clustered,
                bootstrap: None,
                epochs,
            })
        })
        .collect()
}
