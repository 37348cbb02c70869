//! The paired bootstrap of a comparison: each round draws items (or, when items are grouped,
//! whole clusters) with replacement once, and every system's mean and every pair's mean
//! difference on every criterion is recomputed on that one draw — so the pairs' intervals keep
//! the pairing, and the rounds are shared, as a cluster bootstrap of the whole evaluation.
//!
//! Round r draws from the seed's stream r ([`BootstrapParams::round_rng`]): the numbers do not
//! depend on the platform or on how rounds are scheduled. A drawn item counts as many times as
//! it was drawn; a system whose items were not drawn in a round has no replicate that round
//! (counted out of `valid_rounds`). The percentile interval is numpy's linear quantile of the
//! replicates.
//!
//! Cost: per round, one pass over the system × item grid of each criterion, and for pairs whose
//! systems scored the same items nothing more (their difference is the difference of the two
//! means); pairs with different items add a pass over their shared items.

use super::score_grid::ScoreGrid;
use crate::math::resample::{percentile_interval, resample_counts, BootstrapParams, Interval};

/// Σ xᵢ·yᵢ in eight interleaved partial sums (so the loop vectorises; the order is fixed, so
/// the result is the same on every platform).
fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut acc = [0.0; 8];
    let (xc, yc) = (x.chunks_exact(8), y.chunks_exact(8));
    let (xr, yr) = (xc.remainder(), yc.remainder());
    for (a, b) in xc.zip(yc) {
        for ((sum, a), b) in acc.iter_mut().zip(a).zip(b) {
            *sum += a * b;
        }
    }
    let tail: f64 = xr.iter().zip(yr).map(|(a, b)| a * b).sum();
    acc.iter().sum::<f64>() + tail
}

/// One criterion's grid and the pairs to difference on it.
pub struct CriterionDraws<'a> {
    pub grid: &'a ScoreGrid,
    /// (A, B) system indices.
    pub pairs: &'a [(usize, usize)],
}

/// Bootstrap intervals: per criterion, one per system (`None` for a system without items) and
/// one per pair.
pub struct Intervals {
    pub systems: Vec<Vec<Option<Interval>>>,
    pub pairs: Vec<Vec<Interval>>,
}

/// Runs the bootstrap over `criteria` with items grouped into `units` (`unit_of_item`; each
/// item its own unit when `None`).
pub fn bootstrap_intervals(
    criteria: &[CriterionDraws],
    n_items: usize,
    unit_of_item: Option<&[u32]>,
    params: &BootstrapParams,
) -> Intervals {
    let n_units = unit_of_item.map_or(n_items, |u| {
        u.iter().map(|&c| c as usize + 1).max().unwrap_or(0)
    });
    // Per criterion: whether each pair's systems scored the same items, else their shared items.
    let shared: Vec<Vec<Option<Vec<usize>>>> = criteria
        .iter()
        .map(|c| {
            c.pairs
                .iter()
                .map(|&(a, b)| {
                    let (ra, rb) = (c.grid.row(a), c.grid.row(b));
                    let same = ra
                        .iter()
                        .zip(rb)
                        .all(|(x, y)| x.is_finite() == y.is_finite());
                    (!same).then(|| {
                        (0..n_items)
                            .filter(|&i| ra[i].is_finite() && rb[i].is_finite())
                            .collect()
                    })
                })
                .collect()
        })
        .collect();
    // Rows without a missing item are a plain dot product with the weights (vectorised); the
    // others skip their missing items.
    let complete: Vec<Vec<bool>> = criteria
        .iter()
        .map(|c| {
            (0..c.grid.n_systems)
                .map(|s| c.grid.row(s).iter().all(|y| y.is_finite()))
                .collect()
        })
        .collect();
    let estimate_of = |grid: &ScoreGrid, s: usize, complete: bool, weights: &[f64], total: f64| {
        let row = grid.row(s);
        if complete {
            dot(row, weights) / total
        } else {
            let (mut sum, mut kept) = (0.0, 0.0);
            for (y, w) in row.iter().zip(weights) {
                if y.is_finite() {
                    sum += w * y;
                    kept += w;
                }
            }
            sum / kept
        }
    };
    let pair_on = |grid: &ScoreGrid, (a, b): (usize, usize), items: &[usize], weights: &[f64]| {
        let (ra, rb) = (grid.row(a), grid.row(b));
        let (mut sum, mut total) = (0.0, 0.0);
        for &i in items {
            sum += weights[i] * (rb[i] - ra[i]);
            total += weights[i];
        }
        sum / total
    };
    let ones = vec![1.0; n_items];
    let mut system_draws: Vec<Vec<Vec<f64>>> = criteria
        .iter()
        .map(|c| vec![Vec::with_capacity(params.rounds); c.grid.n_systems])
        .collect();
    let mut pair_draws: Vec<Vec<Vec<f64>>> = criteria
        .iter()
        .map(|c| vec![Vec::with_capacity(params.rounds); c.pairs.len()])
        .collect();
    let mut weights = vec![0.0; n_items];
    let mut means: Vec<f64> = Vec::new();
    for round in 0..params.rounds {
        let counts = resample_counts(n_units, &mut params.round_rng(round));
        for (i, w) in weights.iter_mut().enumerate() {
            let unit = unit_of_item.map_or(i, |u| u[i] as usize);
            *w = f64::from(counts[unit]);
        }
        let total: f64 = weights.iter().sum();
        for (k, c) in criteria.iter().enumerate() {
            means.clear();
            means.extend(
                (0..c.grid.n_systems)
                    .map(|s| estimate_of(c.grid, s, complete[k][s], &weights, total)),
            );
            for (s, m) in means.iter().enumerate() {
                system_draws[k][s].push(*m);
            }
            for (p, &(a, b)) in c.pairs.iter().enumerate() {
                let value = match &shared[k][p] {
                    None => means[b] - means[a],
                    Some(items) => pair_on(c.grid, (a, b), items, &weights),
                };
                pair_draws[k][p].push(value);
            }
        }
    }
    let level = params.level;
    Intervals {
        systems: criteria
            .iter()
            .zip(&system_draws)
            .map(|(c, draws)| {
                draws
                    .iter()
                    .enumerate()
                    .map(|(s, d)| {
                        let estimate = estimate_of(c.grid, s, false, &ones, 0.0);
                        estimate
                            .is_finite()
                            .then(|| percentile_interval(estimate, d, level))
                    })
                    .collect()
            })
            .collect(),
        pairs: criteria
            .iter()
            .enumerate()
            .map(|(k, c)| {
                c.pairs
                    .iter()
                    .enumerate()
                    .map(|(p, &(a, b))| {
                        let estimate = match &shared[k][p] {
                            None => {
                                estimate_of(c.grid, b, false, &ones, 0.0)
                                    - estimate_of(c.grid, a, false, &ones, 0.0)
                            }
                            Some(items) => pair_on(c.grid, (a, b), items, &ones),
                        };
                        percentile_interval(estimate, &pair_draws[k][p], level)
                    })
                    .collect()
            })
            .collect(),
    }
}
