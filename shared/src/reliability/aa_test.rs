//! A/A test: the same dataset through the same judge configuration twice. The differences
//! between the two runs are noise, and each must stay inside its acceptance band.
//!
//! Bands and flags (seed 001, Part VI, Tip 19), each metric with its own band b:
//!
//! | check                          | delta between runs                               | b     |
//! |--------------------------------|--------------------------------------------------|-------|
//! | pass-rate delta                | \|pass rate₁ − pass rate₂\|                       | 2 pp  |
//! | item disagreement (Tip 19)     | share of items whose pass/fail verdict differs   | 5 %   |
//! | Cohen's κ delta                | \|κ(run₁, gold) − κ(run₂, gold)\|                | 0.03  |
//! | mean absolute score difference | mean \|s₁ − s₂\| on a 0–1 scale                   | 0.1   |
//!
//! ```text
//! green  delta ≤ b          the judge is stable
//! amber  b < delta ≤ 2b     review the rubric for ambiguity
//! red    delta > 2b         too stochastic, or the rubric is under-specified
//! ```
//!
//! (comparisons allow a relative 1e-12 for rounding, so a delta of exactly one band is green).
//! The κ delta needs reference (human gold) labels: κ is computed for each run against them
//! with [`crate::reliability::kappa`]. Scores on another range are rescaled to 0–1 by
//! [`AaTestParams::score_range`] before the mean absolute difference.
//!
//! Arguments: [`AaRuns`] with any of pass/fail verdicts, labels with gold labels, and scores,
//! each paired by item. Returns: [`AaTest`] with one [`AaCheck`] per metric and the worst flag.
//! Degenerate input: when κ is undefined for a run (constant labels), the κ check has no flag
//! and a warning says why, naming the label as a number, or as the caller names it with
//! [`AaTestParams::compute_with`] (a nominal code's label). Errors: [`Error::InvalidParam`]
//! for bands ≤ 0, an empty or reversed score range, runs of different lengths, scores outside
//! the range, or no data at all; [`Error::Insufficient`] for a run without items; those of
//! [`KappaParams::compute`].

use crate::io::error::{Error, Result};
use crate::reliability::kappa::KappaParams;
use serde::{Deserialize, Serialize};

/// Green / amber / red, as the guide flags an A/A delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flag {
    /// Within the band.
    Green,
    /// Between one and two bands.
    Amber,
    /// Beyond two bands.
    Red,
}

impl Flag {
    /// The flag of `delta` against `band`; `None` when `delta` is NaN.
    pub fn of(delta: f64, band: f64) -> Option<Self> {
        let slack = 1.0 + 1e-12;
        match delta {
            d if d.is_nan() => None,
            d if d <= band * slack => Some(Self::Green),
            d if d <= 2.0 * band * slack => Some(Self::Amber),
            _ => Some(Self::Red),
        }
    }
}

/// Which A/A metric a check is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AaMetric {
    PassRateDelta,
    ItemDisagreement,
    KappaDelta,
    MeanAbsoluteScoreDifference,
}

/// Settings of an A/A test: the acceptance bands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct AaTestParams {
    /// Pass-rate delta band, as a proportion (0.02 = 2 pp).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = AaTestParams::default().pass_rate_band, allow_negative_numbers = true)
    )]
    pub pass_rate_band: f64,
    /// Band for the share of items whose verdict differs between runs.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = AaTestParams::default().disagreement_band, allow_negative_numbers = true)
    )]
    pub disagreement_band: f64,
    /// Band for the κ delta.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = AaTestParams::default().kappa_band, allow_negative_numbers = true)
    )]
    pub kappa_band: f64,
    /// Band for the mean absolute score difference on the 0–1 scale.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = AaTestParams::default().score_band, allow_negative_numbers = true)
    )]
    pub score_band: f64,
    /// The score scale's lowest and highest value, `LO,HI`; scores are divided by its width.
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_name = "LO,HI",
            value_parser = crate::io::cli_values::two_numbers,
            default_value = "0,1",
            allow_hyphen_values = true
        )
    )]
    pub score_range: (f64, f64),
    /// How κ against the gold labels is computed.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub kappa: KappaParams,
}

impl Default for AaTestParams {
    fn default() -> Self {
        Self {
            pass_rate_band: 0.02,
            disagreement_band: 0.05,
            kappa_band: 0.03,
            score_band: 0.1,
            score_range: (0.0, 1.0),
            kappa: KappaParams::default(),
        }
    }
}

/// Labels of both runs and the reference labels they are scored against, paired by item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AaLabels {
    pub run_a: Vec<f64>,
    pub run_b: Vec<f64>,
    pub gold: Vec<f64>,
}

/// The two runs, paired by item. Provide any of the three kinds of output.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AaRuns {
    /// Pass (true) / fail verdicts of run A and run B.
    pub pass: Option<(Vec<bool>, Vec<bool>)>,
    pub labels: Option<AaLabels>,
    /// Continuous scores of run A and run B.
    pub scores: Option<(Vec<f64>, Vec<f64>)>,
}

/// One metric's A/A comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AaCheck {
    pub metric: AaMetric,
    pub n_items: usize,
    /// The metric in each run, where it is a per-run quantity (pass rate, κ).
    pub run_a: Option<f64>,
    pub run_b: Option<f64>,
    pub delta: f64,
    pub band: f64,
    /// delta / band.
    pub ratio: f64,
    pub flag: Option<Flag>,
}

impl AaCheck {
    fn new(
        metric: AaMetric,
        n_items: usize,
        runs: Option<(f64, f64)>,
        delta: f64,
        band: f64,
    ) -> Self {
        Self {
            metric,
            n_items,
            run_a: runs.map(|r| r.0),
            run_b: runs.map(|r| r.1),
            delta,
            band,
            ratio: delta / band,
            flag: Flag::of(delta, band),
        }
    }
}

/// An A/A test report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AaTest {
    pub settings: AaTestParams,
    pub checks: Vec<AaCheck>,
    /// The worst flag among the checks that have one.
    pub overall: Option<Flag>,
    pub warnings: Vec<String>,
}

fn same_length(what: &'static str, a: usize, b: usize) -> Result<()> {
    if a != b {
        return Err(Error::param(
            what,
            format!("expected both runs to cover the same items: run A has {a}, run B has {b}"),
        ));
    }
    if a == 0 {
        return Err(Error::Insufficient(format!(
            "an A/A test needs at least one item in `{what}`, found none"
        )));
    }
    Ok(())
}

impl AaTestParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        for (name, band) in [
            ("pass_rate_band", self.pass_rate_band),
            ("disagreement_band", self.disagreement_band),
            ("kappa_band", self.kappa_band),
            ("score_band", self.score_band),
        ] {
            if !(band > 0.0 && band.is_finite()) {
                return Err(Error::param(
                    name,
                    format!("an acceptance band must be a finite number > 0, found {band}"),
                ));
            }
        }
        let (lo, hi) = self.score_range;
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(Error::param(
                "score_range",
                format!("expected (lowest, highest) with lowest < highest, found ({lo}, {hi})"),
            ));
        }
        self.kappa.validate()
    }

    /// Compares the two runs.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn compute(&self, runs: &AaRuns) -> Result<AaTest> {
        self.compute_with(runs, &|label| label.to_string())
    }

    /// [`compute`](Self::compute) with each label in a warning written by `label`: e.g. a
    /// nominal code as the label it stands for.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn compute_with(&self, runs: &AaRuns, label: &dyn Fn(f64) -> String) -> Result<AaTest> {
        self.validate()?;
        if runs.pass.is_none() && runs.labels.is_none() && runs.scores.is_none() {
            return Err(Error::param(
                "runs",
                "expected pass/fail verdicts, labels with gold labels, or scores; found none",
            ));
        }
        let mut checks = Vec::new();
        let mut warnings = Vec::new();
        if let Some((a, b)) = &runs.pass {
            same_length("pass", a.len(), b.len())?;
            let n = a.len();
            let passes = |run: &[bool]| run.iter().filter(|&&p| p).count();
            let (pa, pb) = (passes(a), passes(b));
            // Deltas from counts, so that 2 of 100 is exactly the 0.02 band.
            checks.push(AaCheck::new(
                AaMetric::PassRateDelta,
                n,
                Some((pa as f64 / n as f64, pb as f64 / n as f64)),
                pa.abs_diff(pb) as f64 / n as f64,
                self.pass_rate_band,
            ));
            let differ = a.iter().zip(b).filter(|(x, y)| x != y).count();
            checks.push(AaCheck::new(
                AaMetric::ItemDisagreement,
                n,
                None,
                differ as f64 / n as f64,
                self.disagreement_band,
            ));
        }
        if let Some(labels) = &runs.labels {
            same_length("labels", labels.run_a.len(), labels.run_b.len())?;
            same_length("labels", labels.run_a.len(), labels.gold.len())?;
            let ka = self.kappa.compute(&labels.run_a, &labels.gold)?;
            let kb = self.kappa.compute(&labels.run_b, &labels.gold)?;
            for (run, k) in [("A", &ka), ("B", &kb)] {
                for w in k.warnings_with(label) {
                    warnings.push(format!("κ of run {run} against the gold labels: {w}"));
                }
            }
            checks.push(AaCheck::new(
                AaMetric::KappaDelta,
                labels.gold.len(),
                Some((ka.kappa, kb.kappa)),
                (ka.kappa - kb.kappa).abs(),
                self.kappa_band,
            ));
        }
        if let Some((a, b)) = &runs.scores {
            same_length("scores", a.len(), b.len())?;
            let (lo, hi) = self.score_range;
            if let Some(s) = a.iter().chain(b).find(|s| !(lo..=hi).contains(*s)) {
                return Err(Error::param(
                    "scores",
                    format!(
                        "expected scores within score_range [{lo}, {hi}], found {s}: set \
                         score_range to the scale's lowest and highest value"
                    ),
                ));
            }
            let width = hi - lo;
            let mad = a
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs() / width)
                .sum::<f64>()
                / a.len() as f64;
            checks.push(AaCheck::new(
                AaMetric::MeanAbsoluteScoreDifference,
                a.len(),
                None,
                mad,
                self.score_band,
            ));
        }
        Ok(AaTest {
            settings: self.clone(),
            overall: checks.iter().filter_map(|c| c.flag).max(),
            checks,
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(test: &AaTest, metric: AaMetric) -> &AaCheck {
        test.checks.iter().find(|c| c.metric == metric).unwrap()
    }

    #[test]
    fn flags_at_the_band_edges() {
        assert_eq!(Flag::of(0.02, 0.02), Some(Flag::Green));
        assert_eq!(Flag::of(0.03, 0.02), Some(Flag::Amber));
        assert_eq!(Flag::of(0.04, 0.02), Some(Flag::Amber));
        assert_eq!(Flag::of(0.0401, 0.02), Some(Flag::Red));
        assert_eq!(Flag::of(f64::NAN, 0.02), None);
    }

    #[test]
    fn hand_computed_runs() {
        // 100 items: run A passes items 0..50, run B passes items 3..50 and 90..92 → pass
        // rates 0.50 and 0.49 (delta 1 pp, green); 5 items differ (5 %, green).
        let a: Vec<bool> = (0..100).map(|i| i < 50).collect();
        let b: Vec<bool> = (0..100)
            .map(|i| (3..50).contains(&i) || (90..92).contains(&i))
            .collect();
        // Scores on 1–5: four of ten items differ by 2 points = 0.5 on 0–1 → MAD 0.2 (amber).
        let sa = vec![1.0, 2.0, 3.0, 4.0, 5.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let sb = vec![3.0, 4.0, 1.0, 2.0, 5.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let runs = AaRuns {
            pass: Some((a, b)),
            labels: None,
            scores: Some((sa, sb)),
        };
        let params = AaTestParams {
            score_range: (1.0, 5.0),
            ..Default::default()
        };
        let t = params.compute(&runs).unwrap();
        let pr = check(&t, AaMetric::PassRateDelta);
        assert_eq!((pr.run_a, pr.run_b), (Some(0.5), Some(0.49)));
        assert!((pr.delta - 0.01).abs() < 1e-15);
        assert_eq!(pr.flag, Some(Flag::Green));
        let dis = check(&t, AaMetric::ItemDisagreement);
        assert_eq!((dis.delta, dis.flag), (0.05, Some(Flag::Green)));
        let mad = check(&t, AaMetric::MeanAbsoluteScoreDifference);
        assert!((mad.delta - 0.2).abs() < 1e-15);
        assert_eq!(mad.flag, Some(Flag::Amber));
        assert_eq!(t.overall, Some(Flag::Amber));
    }

    #[test]
    fn kappa_delta_against_gold() {
        // Gold (1,1,0,0). Run A equals gold: κ = 1. Run B = (1,0,0,0): P_o = 3/4,
        // P_e = ½·¼ + ½·¾ = ½ → κ = ½. Delta ½ ≫ 2 × 0.03 → red.
        let labels = AaLabels {
            run_a: vec![1.0, 1.0, 0.0, 0.0],
            run_b: vec![1.0, 0.0, 0.0, 0.0],
            gold: vec![1.0, 1.0, 0.0, 0.0],
        };
        let t = AaTestParams::default()
            .compute(&AaRuns {
                labels: Some(labels),
                ..Default::default()
            })
            .unwrap();
        let k = check(&t, AaMetric::KappaDelta);
        assert_eq!((k.run_a, k.run_b), (Some(1.0), Some(0.5)));
        assert_eq!(k.flag, Some(Flag::Red));
        assert_eq!(t.overall, Some(Flag::Red));
    }

    #[test]
    fn degenerate_and_invalid() {
        let p = AaTestParams::default();
        assert!(p.compute(&AaRuns::default()).is_err());
        let constant = AaRuns {
            labels: Some(AaLabels {
                run_a: vec![1.0, 1.0],
                run_b: vec![1.0, 1.0],
                gold: vec![1.0, 1.0],
            }),
            ..Default::default()
        };
        let t = p.compute(&constant).unwrap();
        assert_eq!(t.checks[0].flag, None);
        assert_eq!(t.overall, None);
        assert_eq!(t.warnings.len(), 2);
        assert!(t.warnings[0].contains("same score (1)"), "{:?}", t.warnings);
        // The caller's names for the labels: code 1 is `pass`.
        let named = p
            .compute_with(&constant, &|c| {
                format!("`{}`", ["fail", "pass"][c as usize])
            })
            .unwrap();
        assert!(named.warnings[1].starts_with(
            "κ of run B against the gold labels: both raters gave every item the same score \
             (`pass`)"
        ));
        let ragged = AaRuns {
            pass: Some((vec![true], vec![true, false])),
            ..Default::default()
        };
        assert!(p.compute(&ragged).is_err());
        let empty = AaRuns {
            pass: Some((vec![], vec![])),
            ..Default::default()
        };
        assert!(matches!(p.compute(&empty), Err(Error::Insufficient(_))));
        let outside = AaRuns {
            scores: Some((vec![2.0], vec![1.0])),
            ..Default::default()
        };
        assert!(p.compute(&outside).is_err());
    }
}
