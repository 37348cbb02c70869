//! Slices and multiple comparisons (seed 001, Part V): each judge's agreement with the input
//! raters' majority, per value of a slice column (topic, length bucket, …), every slice tested
//! against the rest of the items, with Holm–Bonferroni and Benjamini–Hochberg adjusted p-values
//! across the slices (per judge).
//!
//! Model: in slice s a judge agrees with the majority on a_s of n_s compared items; on the other
//! slices together on a_r of n_r. The two-proportion z-test (pooled) of "agreement in s equals
//! agreement elsewhere":
//!
//! ```text
//! p̂ = (a_s + a_r) / (n_s + n_r)      z = (a_s/n_s − a_r/n_r) / √(p̂ (1 − p̂) (1/n_s + 1/n_r))
//! p = 2 (1 − Φ(|z|))                  (p = 1 when p̂ is 0 or 1: nothing differs)
//! ```
//!
//! Each slice also carries the report's own per-slice κ and percent agreement with their seeded
//! bootstrap intervals (the agreement report run on the slice's items,
//! [`AgreementReportParams::slice`]). The adjusted values come from
//! [`crate::math::multiple_testing`].
//!
//! Arguments: the agreement report's settings, the input and judge files, and
//! [`SliceParams`]. Returns: [`SliceReport`]. Errors: [`Error::InvalidParam`] for a column the
//! input does not have or an α outside (0, 1); [`Error::Insufficient`] for fewer than two slice
//! values, or a slice where a judge has no compared item; the report's own errors.

use crate::io::error::{Error, Result};
use crate::math::multiple_testing::{Correction, MultipleTestingParams};
use crate::math::normal::normal_cdf;
use crate::reliability::agreement::Reading;
use crate::reliability::reliability_report::{read_together, AgreementReportParams, RatingsFile};
use serde::{Deserialize, Serialize};

/// Settings of a slice table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct SliceParams {
    /// A slice column of the input (topic, length bucket, …): each judge's agreement with the
    /// majority per slice, tested against the rest, with Holm and BH adjusted p-values.
    #[cfg_attr(
        feature = "cli",
        arg(long = "slice", id = "slice", value_name = "COLUMN", required = false)
    )]
    pub column: String,
    /// Level at which the slices' adjusted p-values reject.
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "slice-alpha",
            id = "slice_alpha",
            requires = "slice",
            default_value_t = 0.05,
            allow_negative_numbers = true
        )
    )]
    pub alpha: f64,
}

/// One judge in one slice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SliceCell {
    pub value: String,
    /// Items compared with the majority, and of those, items where the judge agrees.
    pub n_compared: usize,
    pub n_agreeing: u64,
    pub kappa: Reading,
    pub percent_agreement: Reading,
    /// Agreement on the other slices' items.
    pub rest_agreement: f64,
    pub z: f64,
    pub p_value: f64,
    pub holm: f64,
    pub holm_reject: bool,
    pub bh_q: f64,
    pub bh_reject: bool,
}

/// One judge across the slices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeSlices {
    pub source: String,
    pub rater: String,
    pub slices: Vec<SliceCell>,
}

/// The slice table of every judge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SliceReport {
    pub settings: SliceParams,
    pub values: Vec<String>,
    pub judges: Vec<JudgeSlices>,
}

/// Two-sided two-proportion z-test (pooled): (z, p).
pub fn two_proportion_test(a1: f64, n1: f64, a2: f64, n2: f64) -> (f64, f64) {
    let pooled = (a1 + a2) / (n1 + n2);
    let var = pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2);
    if var <= 0.0 {
        return (0.0, 1.0);
    }
    let z = (a1 / n1 - a2 / n2) / var.sqrt();
    (z, (2.0 * (1.0 - normal_cdf(z.abs()))).min(1.0))
}

impl SliceParams {
    /// The slice table of `judges` against `input`'s majority.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn fit(
        &self,
        report: &AgreementReportParams,
        input: &RatingsFile,
        judges: &[RatingsFile],
    ) -> Result<SliceReport> {
        let holm = MultipleTestingParams {
            correction: Correction::Holm,
            alpha: self.alpha,
        };
        let bh = MultipleTestingParams {
            correction: Correction::BenjaminiHochberg,
            alpha: self.alpha,
        };
        holm.validate()?;
        let ratings = read_together(
            std::slice::from_ref(input),
            &report.columns,
            &report.ratings,
        )?;
        let values = ratings
            .first()
            .ok_or_else(|| Error::Insufficient("no input file was read".into()))?
            .slice_values(&self.column)?;
        if values.len() < 2 {
            return Err(Error::Insufficient(format!(
                "{}: the slice column `{}` has {} value(s): comparing slices needs at least two",
                input.source,
                self.column,
                values.len()
            )));
        }
        // Per slice, the report on the slice's items: per judge rater, its κ, percent
        // agreement, and the agreeing / compared counts.
        let mut per_slice = Vec::with_capacity(values.len());
        for value in &values {
            let sliced = AgreementReportParams {
                slice: Some((self.column.clone(), value.clone())),
                ..report.clone()
            }
            .fit(input, judges)?;
            per_slice.push(sliced.judges);
        }
        let n_judges = per_slice[0].len();
        let mut out = Vec::with_capacity(n_judges);
        for j in 0..n_judges {
            let counts: Vec<(f64, f64)> = per_slice
                .iter()
                .map(|judges| {
                    let a = &judges[j].agreement.agreement;
                    let agreeing: u64 = (0..a.confusion.len()).map(|k| a.confusion[k][k]).sum();
                    (agreeing as f64, a.n_items as f64)
                })
                .collect();
            let (all_a, all_n) = counts
                .iter()
                .fold((0.0, 0.0), |(a, n), &(x, m)| (a + x, n + m));
            let mut cells = Vec::with_capacity(values.len());
            for (s, value) in values.iter().enumerate() {
                let judge = &per_slice[s][j];
                let (a, n) = counts[s];
                if n == 0.0 {
                    return Err(Error::Insufficient(format!(
                        "{}: `{}` has no item compared with the majority in slice `{value}`",
                        judge.source, judge.agreement.rater
                    )));
                }
                let (rest_a, rest_n) = (all_a - a, all_n - n);
                let (z, p) = if rest_n > 0.0 {
                    two_proportion_test(a, n, rest_a, rest_n)
                } else {
                    (0.0, 1.0)
                };
                let agreement = &judge.agreement.agreement;
                cells.push(SliceCell {
                    value: value.clone(),
                    n_compared: agreement.n_items,
                    n_agreeing: a as u64,
                    kappa: agreement.kappa.clone(),
                    percent_agreement: agreement.percent_agreement.clone(),
                    rest_agreement: if rest_n > 0.0 {
                        rest_a / rest_n
                    } else {
                        f64::NAN
                    },
                    z,
                    p_value: p,
                    holm: f64::NAN,
                    holm_reject: false,
                    bh_q: f64::NAN,
                    bh_reject: false,
                });
            }
            let p: Vec<f64> = cells.iter().map(|c| c.p_value).collect();
            let (h, b) = (holm.compute(&p)?, bh.compute(&p)?);
            for (k, cell) in cells.iter_mut().enumerate() {
                (cell.holm, cell.holm_reject) = (h.adjusted[k], h.reject[k]);
                (cell.bh_q, cell.bh_reject) = (b.adjusted[k], b.reject[k]);
            }
            out.push(JudgeSlices {
                source: per_slice[0][j].source.clone(),
                rater: per_slice[0][j].agreement.rater.clone(),
                slices: cells,
            });
        }
        Ok(SliceReport {
            settings: self.clone(),
            values,
            judges: out,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_proportion_test_by_hand() {
        // 40/50 vs 30/50: p̂ = 0.7, SE = √(0.7·0.3·(2/50)) = 0.0916515, z = 0.2/SE = 2.1821789,
        // p = 2(1 − Φ(2.1821789)) = 0.0290963 (scipy: 2·norm.sf(z) = 0.029096331741252188).
        let (z, p) = two_proportion_test(40.0, 50.0, 30.0, 50.0);
        assert!((z - 2.182_178_902_359_924).abs() < 1e-9, "{z}");
        assert!((p - 0.029_096_331_741_252_5).abs() < 1e-7, "{p}");
        assert_eq!(two_proportion_test(5.0, 5.0, 7.0, 7.0), (0.0, 1.0));
    }
}
