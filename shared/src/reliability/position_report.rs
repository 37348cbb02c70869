//! The position-bias report of the field guide (seed 001) and PAJAMA §4.4: a pairwise judge's
//! verdicts by position, read from one long-format ratings CSV, analysed by
//! [`crate::reliability::position_bias`].
//!
//! This is orchestration only. The CLI (`tribunal stats position`) and the app both call
//! [`PositionReportParams::fit`] so they show the same numbers.
//!
//! Arguments: the verdicts file ([`RatingsFile`]; a file without the rater column is one judge
//! named after the file): the item is the pair, the score the verdict by position (`labels`:
//! first-shown wins, second-shown wins, tie), the variant the order shown (`orders`: the
//! original and the swapped); without a variant column every verdict is in the order shown.
//! `rater` chooses the judge when the file holds several, `criterion` the criterion.
//!
//! Returns: [`PositionReport`]; its JSON is what `tribunal stats position` prints.
//!
//! Errors: [`Error::Input`] (located) for a malformed file or a verdict that is none of the
//! labels; [`Error::InvalidParam`] for labels or orders that are not distinct and non-empty, a
//! variant value that is neither order, a file with several raters and none chosen, or an
//! unknown rater or criterion; [`Error::Insufficient`] when no verdict is a win, prefixed with
//! the source.

use crate::io::error::{Error, Result};
use crate::math::resample::Interval;
use crate::reliability::position_bias::{PairVerdicts, PositionBias, PositionBiasParams, Verdict};
use crate::reliability::ratings::{Columns, RatingsParams, ScoreScale, Selection};
use crate::reliability::reliability_report::{read_together, within, RatingsFile};
use serde::{Deserialize, Serialize};

/// The verdict labels by position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct PositionLabels {
    /// The verdict label for the first-shown answer.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = PositionLabels::default().first))]
    pub first: String,
    /// The verdict label for the second-shown answer.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = PositionLabels::default().second))]
    pub second: String,
    /// The verdict label for a tie.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = PositionLabels::default().tie))]
    pub tie: String,
}

impl Default for PositionLabels {
    fn default() -> Self {
        Self {
            first: "left".to_owned(),
            second: "right".to_owned(),
            tie: "tie".to_owned(),
        }
    }
}

/// The variant values of the two orders.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Orders {
    /// The variant value of the original order.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = Orders::default().ab))]
    pub ab: String,
    /// The variant value of the swapped order.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = Orders::default().ba))]
    pub ba: String,
}

impl Default for Orders {
    fn default() -> Self {
        Self {
            ab: "ab".to_owned(),
            ba: "ba".to_owned(),
        }
    }
}

/// Settings of a position-bias report.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct PositionReportParams {
    #[cfg_attr(feature = "cli", command(flatten))]
    pub columns: Columns,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub labels: PositionLabels,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub orders: Orders,
    /// The judge, when the file holds several raters.
    #[cfg_attr(feature = "cli", arg(long = "rater-name", id = "rater_name"))]
    pub rater: Option<String>,
    /// The criterion to analyse, when the file holds several.
    #[cfg_attr(feature = "cli", arg(long))]
    pub criterion: Option<String>,
    /// Bootstrap, null rate and significance level.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub test: PositionBiasParams,
}

/// The settings the report echoes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PositionReportSettings {
    pub columns: Columns,
    pub scale: ScoreScale,
    pub categories: Vec<String>,
    pub orders: Orders,
    pub rater: Option<String>,
    pub criterion: Option<String>,
    pub test: PositionBiasParams,
}

/// Everything `tribunal stats position` prints: the fields of [`PositionBias`] with the
/// report's settings in place of the test's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PositionReport {
    /// Always `position_bias`.
    pub statistic: String,
    pub input: String,
    pub settings: PositionReportSettings,
    /// Pairs with at least one verdict row.
    pub n_items: usize,
    pub n_pairs: usize,
    pub n_verdicts: u64,
    pub n_first: u64,
    pub n_second: u64,
    pub n_ties: u64,
    pub first_position_rate: Interval,
    pub p_value: f64,
    pub significant: bool,
    pub n_both_orders: usize,
    pub flip_rate: Interval,
    pub reversal_rate: f64,
    pub warnings: Vec<String>,
}

impl PositionReportParams {
    /// Checks that the labels and the orders are distinct and non-empty.
    pub fn validate(&self) -> Result<()> {
        let PositionLabels { first, second, tie } = &self.labels;
        if [first, second, tie].iter().any(|l| l.trim().is_empty())
            || first == second
            || first == tie
            || second == tie
        {
            return Err(Error::param(
                "labels",
                format!(
                    "expected three distinct non-empty verdict labels, found `{first}`, \
                     `{second}`, `{tie}`"
                ),
            ));
        }
        if self.orders.ab.trim().is_empty() || self.orders.ab == self.orders.ba {
            return Err(Error::param(
                "orders",
                format!(
                    "expected two distinct non-empty order names, found `{}` and `{}`",
                    self.orders.ab, self.orders.ba
                ),
            ));
        }
        self.test.validate()
    }

    /// The position-bias report of the verdicts in `input`.
    pub fn fit(&self, input: &RatingsFile) -> Result<PositionReport> {
        self.validate()?;
        let labels = &self.labels;
        let scale = RatingsParams {
            scale: ScoreScale::Nominal,
            categories: Some(vec![
                labels.first.clone(),
                labels.second.clone(),
                labels.tie.clone(),
            ]),
        };
        let ratings = read_together(std::slice::from_ref(input), &self.columns, &scale)?;
        let Some(ratings) = ratings.first() else {
            return Err(Error::Insufficient("no input file was read".into()));
        };
        // Codes follow the categories: 0 first, 1 second, 2 tie.
        let verdict = |code: Option<f64>| {
            code.map(|c| match c as usize {
                0 => Verdict::First,
                1 => Verdict::Second,
                _ => Verdict::Tie,
            })
        };
        let pairs: Vec<PairVerdicts> = if ratings.variants.is_empty() {
            let matrix = ratings.matrix(&Selection {
                criterion: self.criterion.clone(),
                ..Selection::default()
            })?;
            let column = match (&self.rater, matrix.raters.len()) {
                (Some(name), _) => matrix.rater_index(name)?,
                (None, 1) => 0,
                (None, _) => {
                    return Err(Error::param(
                        "rater",
                        format!(
                            "{}: the file holds several raters (`{}`): choose one",
                            ratings.source,
                            matrix.raters.join("`, `")
                        ),
                    ))
                }
            };
            matrix
                .values
                .iter()
                .map(|row| PairVerdicts {
                    ab: verdict(row[column]),
                    ba: None,
                })
                .collect()
        } else {
            let matrix =
                ratings.variant_matrix(self.rater.as_deref(), self.criterion.as_deref())?;
            let Orders { ab, ba } = &self.orders;
            if let Some(other) = matrix.raters.iter().find(|v| *v != ab && *v != ba) {
                return Err(Error::param(
                    "orders",
                    format!(
                        "{}: expected the orders `{ab}` and `{ba}` in the `{}` column, found \
                         `{other}`",
                        ratings.source, ratings.columns.variant
                    ),
                ));
            }
            let ab = matrix.raters.iter().position(|v| v == ab);
            let ba = matrix.raters.iter().position(|v| v == ba);
            matrix
                .values
                .iter()
                .map(|row| PairVerdicts {
                    ab: ab.and_then(|c| verdict(row[c])),
                    ba: ba.and_then(|c| verdict(row[c])),
                })
                .collect()
        };
        let PositionBias {
            settings: test,
            n_pairs,
            n_verdicts,
            n_first,
            n_second,
            n_ties,
            first_position_rate,
            p_value,
            significant,
            n_both_orders,
            flip_rate,
            reversal_rate,
            warnings,
        } = self
            .test
            .compute(&pairs)
            .map_err(|e| within(e, || format!("{}: position bias", ratings.source)))?;
        Ok(PositionReport {
            statistic: "position_bias".to_owned(),
            input: ratings.source.clone(),
            settings: PositionReportSettings {
                columns: self.columns.clone(),
                scale: ScoreScale::Nominal,
                categories: ratings.categories.clone(),
                orders: self.orders.clone(),
                rater: self.rater.clone(),
                criterion: self.criterion.clone(),
                test,
            },
            n_items: pairs.len(),
            n_pairs,
            n_verdicts,
            n_first,
            n_second,
            n_ties,
            first_position_rate,
            p_value,
            significant,
            n_both_orders,
            flip_rate,
            reversal_rate,
            warnings,
        })
    }
}

crate::analysis::warnings::own_warnings!(PositionReport);

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> RatingsFile {
        RatingsFile::judge("judge.csv", text.as_bytes().to_vec())
    }

    #[test]
    fn labels_and_orders_must_be_distinct() {
        let params = PositionReportParams {
            labels: PositionLabels {
                first: "A".into(),
                second: "A".into(),
                tie: "tie".into(),
            },
            ..PositionReportParams::default()
        };
        let err = params.fit(&file("item,score\np1,A\n")).unwrap_err();
        assert!(
            matches!(err, Error::InvalidParam { name: "labels", .. }),
            "{err}"
        );
        let params = PositionReportParams {
            orders: Orders {
                ab: "x".into(),
                ba: "x".into(),
            },
            ..PositionReportParams::default()
        };
        let err = params.fit(&file("item,score\np1,left\n")).unwrap_err();
        assert!(
            matches!(err, Error::InvalidParam { name: "orders", .. }),
            "{err}"
        );
    }

    #[test]
    fn counts_verdicts_by_position_over_both_orders() {
        // p1: A wins in both orders (left, then right); p2: the first-shown wins both times.
        let report = PositionReportParams {
            test: PositionBiasParams {
                bootstrap: crate::math::resample::BootstrapParams {
                    rounds: 20,
                    ..Default::default()
                },
                ..PositionBiasParams::default()
            },
            ..PositionReportParams::default()
        }
        .fit(&file(
            "item,variant,score\np1,ab,left\np1,ba,right\np2,ab,left\np2,ba,left\n",
        ))
        .unwrap();
        assert_eq!((report.n_first, report.n_second, report.n_ties), (3, 1, 0));
        assert_eq!(report.n_items, 2);
        assert_eq!(report.n_both_orders, 2);
        assert_eq!(report.reversal_rate, 0.5);
        assert_eq!(report.settings.rater, None);
        assert_eq!(report.input, "judge.csv");
    }
}
