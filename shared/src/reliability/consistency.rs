//! Self-consistency: the judge run N times on the same items (N ≥ 3 at low temperature is the
//! guide's advice). Unstable criteria are under-specified ones.
//!
//! Model (seed 001, Part IV): for each item and criterion, with p_v the share of repeats that
//! gave value v,
//!
//! ```text
//! H = −Σ_v p_v log₂ p_v   (bits; 0 when every repeat agrees)
//! ```
//!
//! and per criterion the mean H over items, the share of perfectly consistent items (H = 0)
//! and its complement, the flip rate. The criterion named as the final label gives the label
//! flip rate. Thresholds, heuristics from the guide:
//!
//! ```text
//! mean H < 0.3 excellent   0.3 ≤ mean H < 0.5 good   mean H ≥ 0.5 unstable
//! label changes across repeats          → high priority review
//! 2+ criteria inconsistent on an item   → criterion definitions need work
//! inconsistency on > 10 % of the items  → metric redesign needed
//! ```
//!
//! Arguments: one [`Criterion`] per criterion, each an item × repeat
//! [`crate::reliability::ratings::RatingMatrix`] (repeats as the rater columns; missing repeats allowed).
//! Items are matched across criteria by name. Returns: [`Consistency`].
//!
//! Degenerate input: an item with fewer than `min_repeats` values has no entropy (`None`) and
//! is counted as skipped; a single category gives H = 0 (consistent by definition). Errors:
//! [`Error::InvalidParam`] for `min_repeats` < 2, thresholds not in 0 < excellent ≤ good,
//! a review share outside (0, 1), no criteria, duplicate criterion names, or a label criterion
//! that is not among them; [`Error::Insufficient`] for a criterion without any item that has
//! `min_repeats` values.

use crate::io::checks::in_open_unit;
use crate::io::error::{Error, Result};
use crate::reliability::ratings::RatingMatrix;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The guide's stability bands for a criterion's mean entropy; a heuristic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stability {
    Excellent,
    Good,
    Unstable,
}

/// Settings of a self-consistency analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ConsistencyParams {
    /// Items with fewer repeats are skipped.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ConsistencyParams::default().min_repeats, allow_negative_numbers = true)
    )]
    pub min_repeats: usize,
    /// Mean entropy H (bits) below this is excellent.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ConsistencyParams::default().excellent_below, allow_negative_numbers = true)
    )]
    pub excellent_below: f64,
    /// Mean H below this (and not excellent) is good; at or above, unstable.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ConsistencyParams::default().good_below, allow_negative_numbers = true)
    )]
    pub good_below: f64,
    /// Share of inconsistent items above which the metric needs a redesign.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = ConsistencyParams::default().review_share, allow_negative_numbers = true)
    )]
    pub review_share: f64,
    /// The criterion that is the final label (pass/fail), if any; without a criterion column
    /// the one criterion is named after the score column.
    #[cfg_attr(feature = "cli", arg(long))]
    pub label: Option<String>,
}

impl Default for ConsistencyParams {
    fn default() -> Self {
        Self {
            min_repeats: 2,
            excellent_below: 0.3,
            good_below: 0.5,
            review_share: 0.10,
            label: None,
        }
    }
}

/// Repeated judgments of one criterion: items × repeats.
#[derive(Debug, Clone, Copy)]
pub struct Criterion<'a> {
    pub name: &'a str,
    pub repeats: &'a RatingMatrix,
}

/// One criterion's consistency.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriterionConsistency {
    pub name: String,
    /// Items with at least `min_repeats` values.
    pub n_items: usize,
    pub skipped_items: usize,
    pub mean_entropy: f64,
    pub stability: Stability,
    /// Share of items whose repeats all agree.
    pub share_consistent: f64,
    /// 1 − `share_consistent`.
    pub flip_rate: f64,
    /// H per item, in the order of the criterion's matrix; `None` for skipped items.
    pub entropy: Vec<Option<f64>>,
}

/// A self-consistency report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Consistency {
    pub settings: ConsistencyParams,
    pub criteria: Vec<CriterionConsistency>,
    /// The label criterion's flip rate.
    pub label_flip_rate: Option<f64>,
    /// Items (judged on at least one criterion) over all criteria.
    pub n_items: usize,
    /// Share of those with an inconsistent criterion or label.
    pub share_items_inconsistent: f64,
    /// Share of those with two or more inconsistent criteria (the label not counted).
    pub share_items_multiple_inconsistent: f64,
    pub warnings: Vec<String>,
}

/// Entropy in bits of the values in `repeats`.
pub fn entropy_bits(repeats: &[f64]) -> f64 {
    let mut sorted = repeats.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    let mut h = 0.0;
    let mut start = 0;
    while start < sorted.len() {
        let end = start + sorted[start..].partition_point(|v| v.total_cmp(&sorted[start]).is_eq());
        let p = (end - start) as f64 / n;
        h -= p * p.log2();
        start = end;
    }
    h
}

impl ConsistencyParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        if self.min_repeats < 2 {
            return Err(Error::param(
                "min_repeats",
                format!(
                    "consistency needs at least 2 repeats per item, found {}",
                    self.min_repeats
                ),
            ));
        }
        if !(self.excellent_below > 0.0 && self.excellent_below <= self.good_below) {
            return Err(Error::param(
                "excellent_below",
                format!(
                    "expected 0 < excellent_below ≤ good_below, found {} and {}",
                    self.excellent_below, self.good_below
                ),
            ));
        }
        in_open_unit("review_share", self.review_share)?;
        Ok(())
    }

    fn stability(&self, mean_entropy: f64) -> Stability {
        if mean_entropy < self.excellent_below {
            Stability::Excellent
        } else if mean_entropy < self.good_below {
            Stability::Good
        } else {
            Stability::Unstable
        }
    }

    /// Analyses repeated judgments of `criteria`.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn compute(&self, criteria: &[Criterion<'_>]) -> Result<Consistency> {
        self.validate()?;
        if criteria.is_empty() {
            return Err(Error::param(
                "criteria",
                "expected at least one criterion, found none",
            ));
        }
        for (i, c) in criteria.iter().enumerate() {
            if criteria[..i].iter().any(|d| d.name == c.name) {
                return Err(Error::param(
                    "criteria",
                    format!("the criterion `{}` is given twice", c.name),
                ));
            }
        }
        if let Some(label) = &self.label {
            if !criteria.iter().any(|c| c.name == label) {
                return Err(Error::param(
                    "label",
                    format!(
                        "expected one of the criteria `{}`, found `{label}`",
                        criteria
                            .iter()
                            .map(|c| c.name)
                            .collect::<Vec<_>>()
                            .join("`, `")
                    ),
                ));
            }
        }

        // Per item judged on any criterion: (inconsistent criteria, label inconsistent).
        let mut items: HashMap<&str, (usize, bool)> = HashMap::new();
        let mut results = Vec::with_capacity(criteria.len());
        let mut warnings = Vec::new();
        for c in criteria {
            let is_label = self.label.as_deref() == Some(c.name);
            let entropy: Vec<Option<f64>> = c
                .repeats
                .values
                .iter()
                .map(|row| {
                    let values: Vec<f64> = row.iter().flatten().copied().collect();
                    (values.len() >= self.min_repeats).then(|| entropy_bits(&values))
                })
                .collect();
            let judged: Vec<f64> = entropy.iter().flatten().copied().collect();
            if judged.is_empty() {
                return Err(Error::Insufficient(format!(
                    "criterion `{}`: no item has {} or more repeats",
                    c.name, self.min_repeats
                )));
            }
            for (name, h) in c.repeats.items.iter().zip(&entropy) {
                if let Some(h) = h {
                    let entry = items.entry(name.as_str()).or_insert((0, false));
                    if *h > 0.0 {
                        if is_label {
                            entry.1 = true;
                        } else {
                            entry.0 += 1;
                        }
                    }
                }
            }
            let n = judged.len();
            let consistent = judged.iter().filter(|&&h| h == 0.0).count();
            let mean_entropy = judged.iter().sum::<f64>() / n as f64;
            let stability = self.stability(mean_entropy);
            if stability == Stability::Unstable {
                warnings.push(format!(
                    "criterion `{}` is unstable (mean entropy {mean_entropy:.3} bits ≥ {}): \
                     tighten its definition",
                    c.name, self.good_below
                ));
            }
            results.push(CriterionConsistency {
                name: c.name.to_owned(),
                n_items: n,
                skipped_items: entropy.len() - n,
                mean_entropy,
                stability,
                share_consistent: consistent as f64 / n as f64,
                flip_rate: (n - consistent) as f64 / n as f64,
                entropy,
            });
        }

        let label_flip_rate = self.label.as_ref().and_then(|label| {
            results
                .iter()
                .find(|r| &r.name == label)
                .map(|r| r.flip_rate)
        });
        if let Some(rate) = label_flip_rate.filter(|&r| r > 0.0) {
            warnings.push(format!(
                "the label changes across repeats on {:.1} % of the items: high-priority review",
                100.0 * rate
            ));
        }
        let n_items = items.len();
        let inconsistent = items
            .values()
            .filter(|(criteria, label)| *criteria > 0 || *label)
            .count();
        let multiple = items
            .values()
            .filter(|(criteria, _)| *criteria >= 2)
            .count();
        let share_items_inconsistent = inconsistent as f64 / n_items as f64;
        let share_items_multiple_inconsistent = multiple as f64 / n_items as f64;
        if share_items_multiple_inconsistent > 0.0 {
            warnings.push(format!(
                "{multiple} items have two or more inconsistent criteria: criterion definitions \
                 need work"
            ));
        }
        if share_items_inconsistent > self.review_share {
            warnings.push(format!(
                "{:.1} % of the items are inconsistent across repeats (more than {:.0} %): the \
                 metric needs a redesign",
                100.0 * share_items_inconsistent,
                100.0 * self.review_share
            ));
        }
        Ok(Consistency {
            settings: self.clone(),
            criteria: results,
            label_flip_rate,
            n_items,
            share_items_inconsistent,
            share_items_multiple_inconsistent,
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: &[&[f64]]) -> RatingMatrix {
        RatingMatrix {
            items: (0..rows.len()).map(|i| format!("q{i}")).collect(),
            raters: (0..rows[0].len()).map(|r| format!("run{r}")).collect(),
            values: rows
                .iter()
                .map(|r| r.iter().map(|&x| (!x.is_nan()).then_some(x)).collect())
                .collect(),
        }
    }

    #[test]
    fn guide_example_entropies() {
        // Seed 001's five runs: coverage 5 × 1 → 0 bits; format 4 × 1, 1 × 0 → 0.7219 bits.
        assert_eq!(entropy_bits(&[1.0; 5]), 0.0);
        let h = entropy_bits(&[1.0, 1.0, 0.0, 1.0, 1.0]);
        let want = -(0.8_f64 * 0.8_f64.log2() + 0.2 * 0.2_f64.log2());
        assert!((h - want).abs() < 1e-15);
        assert!((h - 0.7219).abs() < 1e-4);
        // Three values equally often: log₂ 3.
        assert!((entropy_bits(&[1.0, 2.0, 3.0]) - 3f64.log2()).abs() < 1e-15);
    }

    #[test]
    fn hand_counted_report() {
        // 4 items × 5 repeats. Coverage stable; format flips on q1 and q2; label flips on q1.
        let nan = f64::NAN;
        let coverage = matrix(&[
            &[1.0, 1.0, 1.0, 1.0, 1.0],
            &[1.0, 1.0, 1.0, 1.0, 1.0],
            &[0.0, 0.0, 0.0, 0.0, 0.0],
            &[1.0, 1.0, 1.0, nan, nan],
        ]);
        let format = matrix(&[
            &[1.0, 1.0, 1.0, 1.0, 1.0],
            &[1.0, 1.0, 0.0, 1.0, 1.0],
            &[1.0, 0.0, 1.0, 0.0, 1.0],
            &[1.0, nan, nan, nan, nan],
        ]);
        let label = matrix(&[
            &[1.0, 1.0, 1.0, 1.0, 1.0],
            &[0.0, 0.0, 0.0, 1.0, 0.0],
            &[0.0, 0.0, 0.0, 0.0, 0.0],
            &[0.0, 0.0, 0.0, 0.0, 0.0],
        ]);
        let params = ConsistencyParams {
            label: Some("label".into()),
            ..Default::default()
        };
        let r = params
            .compute(&[
                Criterion {
                    name: "coverage",
                    repeats: &coverage,
                },
                Criterion {
                    name: "format",
                    repeats: &format,
                },
                Criterion {
                    name: "label",
                    repeats: &label,
                },
            ])
            .unwrap();
        let cov = &r.criteria[0];
        assert_eq!((cov.n_items, cov.mean_entropy), (4, 0.0));
        assert_eq!(cov.stability, Stability::Excellent);
        let fmt = &r.criteria[1];
        assert_eq!((fmt.n_items, fmt.skipped_items), (3, 1));
        assert_eq!(fmt.entropy[3], None);
        let h1 = entropy_bits(&[1.0, 1.0, 0.0, 1.0, 1.0]);
        let h2 = entropy_bits(&[1.0, 0.0, 1.0, 0.0, 1.0]);
        assert!((fmt.mean_entropy - (h1 + h2) / 3.0).abs() < 1e-15);
        assert_eq!(fmt.stability, Stability::Unstable);
        assert!((fmt.share_consistent - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(r.label_flip_rate, Some(0.25));
        // q1 (format, label) and q2 (format) are inconsistent; none has two criteria.
        assert_eq!(r.n_items, 4);
        assert_eq!(r.share_items_inconsistent, 0.5);
        assert_eq!(r.share_items_multiple_inconsistent, 0.0);
        assert_eq!(r.warnings.len(), 3, "{:?}", r.warnings);
    }

    #[test]
    fn invalid_and_degenerate() {
        let single = matrix(&[&[1.0, f64::NAN]]);
        let c = [Criterion {
            name: "x",
            repeats: &single,
        }];
        assert!(matches!(
            ConsistencyParams::default().compute(&c),
            Err(Error::Insufficient(_))
        ));
        let bad = ConsistencyParams {
            min_repeats: 1,
            ..Default::default()
        };
        assert!(bad.compute(&c).is_err());
        let unknown = ConsistencyParams {
            label: Some("y".into()),
            ..Default::default()
        };
        assert!(unknown.compute(&c).is_err());
        assert!(ConsistencyParams::default().compute(&[]).is_err());
    }
}
