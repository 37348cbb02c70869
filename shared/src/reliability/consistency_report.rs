//! The self-consistency report of the field guide (seed 001, Part IV): a judge run N times on
//! the same items, read from one long-format ratings CSV, every criterion analysed by
//! [`crate::reliability::consistency`].
//!
//! This is orchestration only. The CLI (`tribunal stats consistency`) and the app both call
//! [`ConsistencyReportParams::fit`] so they show the same numbers.
//!
//! Arguments: the ratings file ([`RatingsFile`]; a file without the rater column is one judge
//! named after the file). The repeats are the `variant` values of one rater (`rater`, required
//! when the file has several), or the raters when the file has no variant column. Every
//! criterion of the criterion column is analysed; without that column the one criterion is
//! named after the score column. `consistency.label` names the criterion that is the final label.
//!
//! Returns: [`ConsistencyReport`]; its JSON is what `tribunal stats consistency` prints, each
//! criterion with its items and repeat names beside the per-item entropy.
//!
//! Errors: [`Error::Input`] (located) for a malformed file or a repeated (item, variant) of the
//! rater; [`Error::InvalidParam`] for an unknown rater or label criterion, or invalid
//! thresholds; [`Error::Insufficient`] for a criterion without any item that has
//! `min_repeats` values, prefixed with the source.

use crate::io::error::{Error, Result};
use crate::reliability::consistency::{ConsistencyParams, Criterion, CriterionConsistency};
use crate::reliability::ratings::{Columns, RatingMatrix, RatingsParams, ScoreScale, Selection};
use crate::reliability::reliability_report::{read_together, within, RatingsFile};
use serde::{Deserialize, Serialize};

/// Settings of a self-consistency report.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ConsistencyReportParams {
    #[cfg_attr(feature = "cli", command(flatten))]
    pub columns: Columns,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub ratings: RatingsParams,
    /// The judge, when the file has a variant column and several raters.
    #[cfg_attr(feature = "cli", arg(long = "rater-name", id = "rater_name"))]
    pub rater: Option<String>,
    /// Repeats, thresholds and the label criterion.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub consistency: ConsistencyParams,
}

/// What the repeats of the report are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Repeats {
    /// The `variant` values of one rater.
    Variants,
    /// The raters of a file without a variant column.
    Raters,
}

/// The settings the report echoes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsistencyReportSettings {
    pub columns: Columns,
    pub scale: ScoreScale,
    /// Nominal scale: the label of each code.
    pub categories: Option<Vec<String>>,
    pub repeats_are: Repeats,
    pub rater: Option<String>,
    pub thresholds: ConsistencyParams,
}

/// One criterion's consistency with the names of its items and repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriterionReport {
    #[serde(flatten)]
    pub consistency: CriterionConsistency,
    /// The items, in the order of `entropy`.
    pub items: Vec<String>,
    /// The repeats: variants or raters.
    pub repeats: Vec<String>,
}

/// Everything `tribunal stats consistency` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsistencyReport {
    /// Always `self_consistency`.
    pub statistic: String,
    pub input: String,
    pub settings: ConsistencyReportSettings,
    pub criteria: Vec<CriterionReport>,
    pub label_flip_rate: Option<f64>,
    pub n_items: usize,
    pub share_items_inconsistent: f64,
    pub share_items_multiple_inconsistent: f64,
    pub warnings: Vec<String>,
}

impl ConsistencyReportParams {
    /// The self-consistency report of the repeated judgments in `input`.
    pub fn fit(&self, input: &RatingsFile) -> Result<ConsistencyReport> {
        let ratings = read_together(std::slice::from_ref(input), &self.columns, &self.ratings)?;
        let Some(ratings) = ratings.first() else {
            return Err(Error::Insufficient("no input file was read".into()));
        };
        let criteria: Vec<Option<&str>> = if ratings.criteria.is_empty() {
            vec![None]
        } else {
            ratings.criteria.iter().map(|c| Some(c.as_str())).collect()
        };
        let by_variant = !ratings.variants.is_empty();
        let matrices = criteria
            .iter()
            .map(|&criterion| {
                if by_variant {
                    ratings.variant_matrix(self.rater.as_deref(), criterion)
                } else {
                    ratings.matrix(&Selection {
                        criterion: criterion.map(str::to_owned),
                        ..Selection::default()
                    })
                }
            })
            .collect::<Result<Vec<RatingMatrix>>>()?;
        let names: Vec<&str> = criteria
            .iter()
            .map(|c| c.unwrap_or(&ratings.columns.score))
            .collect();
        let report = self
            .consistency
            .compute(
                &names
                    .iter()
                    .zip(&matrices)
                    .map(|(name, repeats)| Criterion { name, repeats })
                    .collect::<Vec<_>>(),
            )
            .map_err(|e| within(e, || format!("{}: self-consistency", ratings.source)))?;
        Ok(ConsistencyReport {
            statistic: "self_consistency".to_owned(),
            input: ratings.source.clone(),
            settings: ConsistencyReportSettings {
                columns: self.columns.clone(),
                scale: ratings.scale,
                categories: (ratings.scale == ScoreScale::Nominal)
                    .then(|| ratings.categories.clone()),
                repeats_are: if by_variant {
                    Repeats::Variants
                } else {
                    Repeats::Raters
                },
                rater: self.rater.clone(),
                thresholds: report.settings,
            },
            criteria: report
                .criteria
                .into_iter()
                .zip(matrices)
                .map(|(consistency, m)| CriterionReport {
                    consistency,
                    items: m.items,
                    repeats: m.raters,
                })
                .collect(),
            label_flip_rate: report.label_flip_rate,
            n_items: report.n_items,
            share_items_inconsistent: report.share_items_inconsistent,
            share_items_multiple_inconsistent: report.share_items_multiple_inconsistent,
            warnings: report.warnings,
        })
    }
}

crate::analysis::warnings::own_warnings!(ConsistencyReport);
