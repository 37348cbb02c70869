//! Comparing systems on pointwise scores (seed 001's report; DESIGN §9): each system's answers
//! scored per item — pass/fail per rubric criterion, a 1–10 grade, a number — and the question
//! "is B better than A, by how much, on which items, and how sure?".
//!
//! - [`score_table`]: the long-format scores file (`item,system,score[,criterion][,epoch]
//!   [,cluster][,human][,slices…]`) and its (criterion, system, item) cells.
//! - [`gold_join`]: a gold file's human labels joined onto the table's answers.
//! - [`score_grid`]: one criterion's cells as a system × item grid.
//! - [`sample_estimates`]: t, Wilson and cluster-robust intervals, exact binomial tests.
//! - [`system_scores`]: each system's mean or pass rate with its intervals.
//! - [`paired_differences`]: B − A on shared items: t, clustered, McNemar, sign test, power.
//! - [`score_bootstrap`]: the seeded paired (cluster) bootstrap of every mean and difference.
//! - [`score_slices`]: the same by slice value, Holm/BH across slices, reversals flagged.
//! - [`judge_correction`]: with human labels on some answers, PPI++ and the misclassification
//!   correction.
//! - [`comparison`]: the report that combines them, with its reading.
//! - [`kinds`]: the family's analysis kind: a comparison of the `scores` file (and `gold`), by
//!   role.

pub mod comparison;
pub mod gold_join;
pub mod judge_correction;
pub mod kinds;
pub mod paired_differences;
pub mod sample_estimates;
pub mod score_bootstrap;
pub mod score_grid;
pub mod score_slices;
pub mod score_table;
pub mod system_scores;

// The statistic files that register a kind of their own, declared by the build
// (shared/build.rs).
crate::analysis::kind_modules!("compare");
