//! The A/A report of the field guide (seed 001): two runs of one judge configuration, read from
//! one long-format ratings CSV in which each run is a rater, checked against the acceptance
//! bands of [`crate::reliability::aa_test`].
//!
//! This is orchestration only: the file is read by [`crate::reliability::ratings`] and every check comes
//! from [`AaTestParams::compute`]. The CLI (`tribunal stats aa`) and the app both call
//! [`AaReportParams::fit`] so they show the same numbers.
//!
//! Arguments: the ratings file ([`RatingsFile`]), the two runs (raters of the file), and
//! optionally the reference rater (`gold`, enables the κ delta), the pass label or number
//! (`pass`, enables the pass-rate delta and the item disagreement) and the criterion or variant
//! when the file holds several. On the numeric scale the mean absolute score difference on 0–1
//! is checked too.
//!
//! Returns: [`AaReport`]; its JSON is what `tribunal stats aa` prints. Its warnings write a
//! label as the file did (the label on the nominal scale, the number on the numeric).
//!
//! Errors: [`Error::Input`] (located) for a malformed file; [`Error::InvalidParam`] for an
//! unknown run, gold rater, criterion or variant, a pass value that is not one of the labels
//! (nominal) or not a number (numeric), or invalid bands; [`Error::Insufficient`] when the runs
//! share no item, prefixed with the source.

use crate::io::error::{Error, Result};
use crate::reliability::aa_test::{AaCheck, AaLabels, AaRuns, AaTestParams, Flag};
use crate::reliability::ratings::{Columns, Ratings, RatingsParams, ScoreScale, Selection};
use crate::reliability::reliability_report::{read_together, score_name, within, RatingsFile};
use serde::{Deserialize, Serialize};

/// Settings of an A/A report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct AaReportParams {
    #[cfg_attr(feature = "cli", command(flatten))]
    pub columns: Columns,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub ratings: RatingsParams,
    /// The two runs: raters of the file, `A,B`.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "A,B", value_parser = crate::io::cli_values::two_names)
    )]
    pub runs: (String, String),
    /// The reference labels: a rater of the file (enables the κ delta).
    #[cfg_attr(feature = "cli", arg(long))]
    pub gold: Option<String>,
    /// The score (label, or number on the numeric scale) that means pass (enables the
    /// pass-rate delta and the item disagreement).
    #[cfg_attr(feature = "cli", arg(long))]
    pub pass: Option<String>,
    /// The criterion to analyse, when the file holds several.
    #[cfg_attr(feature = "cli", arg(long))]
    pub criterion: Option<String>,
    /// The variant to analyse, when the file holds several.
    #[cfg_attr(feature = "cli", arg(long))]
    pub variant: Option<String>,
    /// Acceptance bands and the score range.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub test: AaTestParams,
}

/// The settings the report echoes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AaReportSettings {
    pub columns: Columns,
    pub scale: ScoreScale,
    /// Nominal scale: the label of each code.
    pub categories: Option<Vec<String>>,
    pub runs: (String, String),
    pub gold: Option<String>,
    pub pass: Option<String>,
    pub criterion: Option<String>,
    pub variant: Option<String>,
    pub bands: AaTestParams,
}

/// Everything `tribunal stats aa` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AaReport {
    /// Always `aa_test`.
    pub statistic: String,
    pub input: String,
    pub settings: AaReportSettings,
    /// Items rated by both runs.
    pub n_items_both_runs: usize,
    pub checks: Vec<AaCheck>,
    /// The worst flag of the checks.
    pub overall: Option<Flag>,
    pub warnings: Vec<String>,
}

/// The value of the pass label: its code on the nominal scale, the number on the numeric.
fn pass_value(ratings: &Ratings, pass: &str) -> Result<f64> {
    match ratings.scale {
        ScoreScale::Nominal => ratings
            .categories
            .iter()
            .position(|c| c == pass)
            .map(|code| code as f64)
            .ok_or_else(|| {
                Error::param(
                    "pass",
                    format!(
                        "expected one of the labels `{}`, found `{pass}`",
                        ratings.categories.join("`, `")
                    ),
                )
            }),
        ScoreScale::Numeric => pass
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| {
                Error::param(
                    "pass",
                    format!("expected a number (the scale is numeric), found `{pass}`"),
                )
            }),
    }
}

impl AaReportParams {
    /// The A/A report of the two runs in `input`.
    pub fn fit(&self, input: &RatingsFile) -> Result<AaReport> {
        let ratings = read_together(std::slice::from_ref(input), &self.columns, &self.ratings)?;
        let Some(ratings) = ratings.first() else {
            return Err(Error::Insufficient("no input file was read".into()));
        };
        let matrix = ratings.matrix(&Selection {
            criterion: self.criterion.clone(),
            variant: self.variant.clone(),
            slices: Vec::new(),
        })?;
        let (run_a, run_b) = &self.runs;
        let a = matrix.rater_index(run_a)?;
        let b = matrix.rater_index(run_b)?;
        let gold = self
            .gold
            .as_deref()
            .map(|g| matrix.rater_index(g))
            .transpose()?;
        let pass = self
            .pass
            .as_deref()
            .map(|p| pass_value(ratings, p))
            .transpose()?;
        let (xa, xb) = matrix.paired(a, b);
        let labels = gold.map(|g| {
            let (mut ra, mut rb, mut rg) = (Vec::new(), Vec::new(), Vec::new());
            for row in &matrix.values {
                if let (Some(x), Some(y), Some(z)) = (row[a], row[b], row[g]) {
                    ra.push(x);
                    rb.push(y);
                    rg.push(z);
                }
            }
            AaLabels {
                run_a: ra,
                run_b: rb,
                gold: rg,
            }
        });
        let runs = AaRuns {
            pass: pass.map(|p| {
                (
                    xa.iter().map(|&x| x == p).collect(),
                    xb.iter().map(|&x| x == p).collect(),
                )
            }),
            labels,
            scores: (ratings.scale == ScoreScale::Numeric).then(|| (xa.clone(), xb.clone())),
        };
        let test = self
            .test
            .compute_with(&runs, &score_name(ratings))
            .map_err(|e| {
                within(e, || {
                    format!("{}: A/A test of `{run_a}` and `{run_b}`", ratings.source)
                })
            })?;
        Ok(AaReport {
            statistic: "aa_test".to_owned(),
            input: ratings.source.clone(),
            settings: AaReportSettings {
                columns: self.columns.clone(),
                scale: ratings.scale,
                categories: (ratings.scale == ScoreScale::Nominal)
                    .then(|| ratings.categories.clone()),
                runs: self.runs.clone(),
                gold: self.gold.clone(),
                pass: self.pass.clone(),
                criterion: self.criterion.clone(),
                variant: self.variant.clone(),
                bands: test.settings,
            },
            n_items_both_runs: xa.len(),
            checks: test.checks,
            overall: test.overall,
            warnings: test.warnings,
        })
    }
}

crate::analysis::warnings::own_warnings!(AaReport);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reliability::aa_test::AaMetric;

    fn params(scale: ScoreScale) -> AaReportParams {
        AaReportParams {
            columns: Columns::default(),
            ratings: RatingsParams {
                scale,
                categories: None,
            },
            runs: ("run1".into(), "run2".into()),
            gold: Some("gold".into()),
            pass: None,
            criterion: None,
            variant: None,
            test: AaTestParams::default(),
        }
    }

    fn constant(score: &str) -> RatingsFile {
        let mut text = String::from("item,rater,score\n");
        for item in 1..=3 {
            for rater in ["run1", "run2", "gold"] {
                text.push_str(&format!("{item},{rater},{score}\n"));
            }
        }
        RatingsFile {
            source: "aa.csv".into(),
            default_rater: None,
            bytes: text.into_bytes(),
        }
    }

    #[test]
    fn undefined_kappa_names_the_label_the_runs_and_gold_all_gave() {
        let report = params(ScoreScale::Nominal).fit(&constant("good")).unwrap();
        assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
        for (w, run) in report.warnings.iter().zip(["A", "B"]) {
            assert!(
                w.starts_with(&format!(
                    "κ of run {run} against the gold labels: both raters gave every item the \
                     same score (`good`)"
                )),
                "{w}"
            );
            assert!(!w.contains("(0)"), "{w}");
        }
        let kappa = report
            .checks
            .iter()
            .find(|c| c.metric == AaMetric::KappaDelta);
        assert_eq!(kappa.and_then(|c| c.flag), None);
    }

    #[test]
    fn numeric_labels_stay_numbers() {
        let report = params(ScoreScale::Numeric).fit(&constant("1")).unwrap();
        assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
        assert!(
            report.warnings[0].contains("same score (1)"),
            "{:?}",
            report.warnings
        );
    }
}
