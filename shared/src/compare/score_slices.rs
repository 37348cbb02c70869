//! Scores and differences by slice (topic, difficulty, length bucket): "a 5 % aggregate gain can
//! hide a 15 % regression on hard items" (seed 001, Figure 12). Each value of a slice column
//! gets each system's score and each pair's paired difference computed exactly as the overall
//! ones ([`system_scores`], [`paired_difference`]) on the cells with that value — an item is in
//! a pair's slice when both systems' answers to it are — and the differences' p-values are
//! adjusted (Holm and Benjamini–Hochberg) across every value, pair and criterion of the column.
//! A slice whose difference points the other way from the overall one with an interval that
//! excludes 0 is flagged `reverses`.

use super::paired_differences::{paired_difference, PairSettings, PairedDifference};
use super::sample_estimates::MeanInterval;
use super::score_grid::ScoreGrid;
use super::score_table::{ScoreTable, SliceColumn};
use super::system_scores::system_scores;
use crate::io::error::Result;
use crate::math::multiple_testing::{Correction, MultipleTestingParams};
use serde::{Deserialize, Serialize};

/// One system's score within one slice value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SliceScore {
    pub value: String,
    pub criterion: String,
    pub system: String,
    pub n_items: usize,
    pub mean: f64,
    pub interval: MeanInterval,
}

/// One pair's difference within one slice value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SliceDifference {
    pub value: String,
    pub criterion: String,
    pub a: String,
    pub b: String,
    pub n_shared: usize,
    pub difference: f64,
    /// Clustered when items are grouped, else Student's t (or the discordant bound).
    pub interval: MeanInterval,
    pub p_value: f64,
    pub holm: f64,
    pub bh: f64,
    /// Points against the overall difference with an interval excluding 0.
    pub reverses: bool,
}

/// A slice column's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SliceTable {
    pub column: String,
    pub values: Vec<String>,
    pub scores: Vec<SliceScore>,
    pub differences: Vec<SliceDifference>,
}

/// `grid` keeping only the cells whose value in `column` is `v`.
fn masked(grid: &ScoreGrid, column: &SliceColumn, v: u32) -> ScoreGrid {
    let mut out = grid.clone();
    for (at, &cell) in grid.cell.iter().enumerate() {
        if cell == u32::MAX || column.value_of_cell[cell as usize] != v {
            out.score[at] = f64::NAN;
            out.human[at] = f64::NAN;
        }
    }
    out
}

/// The table of slice column `column` over the criteria's `grids` and `pairs`, each pair's
/// overall difference per criterion in `overall` (same order as `grids` × `pairs`).
///
/// # Errors
/// None in practice: the multiple-testing settings are fixed and valid.
pub fn slice_table(
    table: &ScoreTable,
    column: &SliceColumn,
    grids: &[ScoreGrid],
    pairs: &[(usize, usize)],
    overall: &[PairedDifference],
    settings: &PairSettings,
) -> Result<SliceTable> {
    let mut scores = Vec::new();
    let mut differences: Vec<SliceDifference> = Vec::new();
    for (v, value) in column.values.iter().enumerate() {
        for (c, grid) in grids.iter().enumerate() {
            let sub = masked(grid, column, v as u32);
            for score in system_scores(table, &sub, c, settings.alpha) {
                scores.push(SliceScore {
                    value: value.clone(),
                    criterion: score.criterion,
                    system: score.system,
                    n_items: score.n_items,
                    mean: score.mean,
                    interval: score.interval,
                });
            }
            for (p, &pair) in pairs.iter().enumerate() {
                let d =
                    paired_difference(&sub, pair, (&table.criteria[c], &table.systems), settings);
                if d.n_shared == 0 {
                    continue;
                }
                let interval = d.clustered.map_or(d.interval, |c| c.interval);
                let whole = overall[c * pairs.len() + p].difference;
                let reverses =
                    (whole > 0.0 && interval.upper < 0.0) || (whole < 0.0 && interval.lower > 0.0);
                differences.push(SliceDifference {
                    value: value.clone(),
                    criterion: d.criterion,
                    a: d.a,
                    b: d.b,
                    n_shared: d.n_shared,
                    difference: d.difference,
                    interval,
                    p_value: d.tested_p_value,
                    holm: f64::NAN,
                    bh: f64::NAN,
                    reverses,
                });
            }
        }
    }
    let (holm, bh) = adjust(&differences.iter().map(|d| d.p_value).collect::<Vec<_>>())?;
    for (d, (h, q)) in differences.iter_mut().zip(holm.into_iter().zip(bh)) {
        d.holm = h;
        d.bh = q;
    }
    Ok(SliceTable {
        column: column.name.clone(),
        values: column.values.clone(),
        scores,
        differences,
    })
}

/// Holm's and Benjamini–Hochberg's adjustments of `p` (NaN p-values stay NaN and are left out
/// of the family).
pub fn adjust(p: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    let defined: Vec<usize> = (0..p.len()).filter(|&i| p[i].is_finite()).collect();
    let values: Vec<f64> = defined.iter().map(|&i| p[i]).collect();
    let mut holm = vec![f64::NAN; p.len()];
    let mut bh = vec![f64::NAN; p.len()];
    for (correction, out) in [
        (Correction::Holm, &mut holm),
        (Correction::BenjaminiHochberg, &mut bh),
    ] {
        let adjusted = MultipleTestingParams {
            correction,
            alpha: 0.05,
        }
        .compute(&values)?;
        for (&i, a) in defined.iter().zip(adjusted.adjusted) {
            out[i] = a;
        }
    }
    Ok((holm, bh))
}
