//! Agreement between raters with bootstrap intervals and the field guide's interpretation
//! bands: is the judge a reliable stand-in for people?
//!
//! For two raters (a judge and a human, two judges) on the items both scored, the report holds
//! percent agreement, Cohen's κ, and on the numeric scale linearly and quadratically weighted κ
//! ([`crate::reliability::kappa`]) and Pearson r, Spearman ρ and Kendall τ-b ([`crate::math::correlation`]); for
//! any number of raters, Krippendorff's α ([`crate::reliability::alpha`]). Every statistic gets a percentile
//! interval from resampling items with [`crate::math::resample::bootstrap`]: the same seed gives
//! every statistic the same resamples, and the result records the seed.
//!
//! Interpretation (seed 001, Part IV), **heuristics rather than standards**, to be read against
//! human inter-rater reliability on the same task:
//!
//! | κ, weighted κ or α | [`KappaBand`]      |
//! |--------------------|--------------------|
//! | < 0                | worse than chance  |
//! | 0–.20              | slight             |
//! | .21–.40            | fair               |
//! | .41–.60            | moderate           |
//! | .61–.80            | substantial        |
//! | .81–1              | almost perfect     |
//!
//! | [`Adequacy`]       | κ, weighted κ, α | r, ρ  |
//! |--------------------|------------------|-------|
//! | strong             | ≥ .80            |       |
//! | adequate           | ≥ .70            | ≥ .70 |
//! | borderline         | ≥ .60            |       |
//! | needs calibration  | < .60            | < .70 |
//!
//! Band edges are read as upper bounds: (0.20, 0.40] is fair. Each band is also given at the
//! interval's lower bound, the claim the data supports with the interval's confidence.
//!
//! A judge can also be compared with a group's consensus ([`Majority`]): the **majority label**
//! of an item is the score given most often among the group's raters who scored it (one rating
//! suffices); an item whose most frequent scores tie has no majority and is excluded, and the
//! number of such items is reported. [`AgreementParams::against_majority`] pairs a rater with
//! the majority labels on the items both have, in the group's item order; the bootstrap
//! resamples these items and keeps each item's majority label fixed (the group's own sampling
//! variation is not propagated).
//!
//! Degenerate input: statistics that are undefined on the data (κ of two constant raters, a
//! correlation with a constant rater) are NaN with a warning, and have no band; scores in
//! warnings are numbers, and [`PairAgreement::warnings_with`] words them with the caller's
//! names (a nominal code's label). Errors: those
//! of the underlying statistics and of the bootstrap ([`crate::Error::Insufficient`] for fewer
//! than 2 items), and [`crate::Error::InvalidParam`] for an unknown rater name.

use crate::io::error::Result;
use crate::math::correlation::{kendall_tau_b, pearson, spearman};
use crate::math::resample::{bootstrap, BootstrapParams, Interval};
use crate::reliability::alpha::{AlphaBootstrap, AlphaLevel, AlphaParams};
use crate::reliability::kappa::{self, KappaParams, KappaWeights};
use crate::reliability::ratings::{RatingMatrix, ScoreScale};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// Carried in every report so that a reader of the numbers alone sees the bands' status.
pub const HEURISTICS_NOTE: &str = "bands and thresholds are the field guide's rules of thumb \
    (seed 001, Part IV), not universal standards: compare with human inter-rater reliability \
    on the same task";

/// The guide's agreement bands for κ and α (Landis–Koch style); a heuristic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KappaBand {
    WorseThanChance,
    Slight,
    Fair,
    Moderate,
    Substantial,
    AlmostPerfect,
}

impl KappaBand {
    /// The band of `value`; `None` for NaN.
    pub fn of(value: f64) -> Option<Self> {
        Some(match value {
            v if v.is_nan() => return None,
            v if v < 0.0 => Self::WorseThanChance,
            v if v <= 0.20 => Self::Slight,
            v if v <= 0.40 => Self::Fair,
            v if v <= 0.60 => Self::Moderate,
            v if v <= 0.80 => Self::Substantial,
            _ => Self::AlmostPerfect,
        })
    }
}

/// The guide's rules of thumb for whether a judge agrees well enough; a heuristic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Adequacy {
    /// κ or α ≥ 0.80: suitable for high-stakes decisions.
    Strong,
    /// κ or α ≥ 0.70, or r/ρ ≥ 0.70: good enough for most purposes.
    Adequate,
    /// κ or α in [0.60, 0.70): between the guide's thresholds.
    Borderline,
    /// κ or α < 0.60, or r/ρ < 0.70: the judge likely measures something else.
    NeedsCalibration,
}

impl Adequacy {
    /// Thresholds for κ, weighted κ and α. `None` for NaN.
    pub fn of_agreement(value: f64) -> Option<Self> {
        Some(match value {
            v if v.is_nan() => return None,
            v if v >= 0.80 => Self::Strong,
            v if v >= 0.70 => Self::Adequate,
            v if v >= 0.60 => Self::Borderline,
            _ => Self::NeedsCalibration,
        })
    }

    /// Threshold for Pearson r and Spearman ρ. `None` for NaN.
    pub fn of_correlation(value: f64) -> Option<Self> {
        Some(match value {
            v if v.is_nan() => return None,
            v if v >= 0.70 => Self::Adequate,
            _ => Self::NeedsCalibration,
        })
    }
}

/// A statistic with its interval and heuristic reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    pub interval: Interval,
    /// Band of the estimate (κ-type statistics only).
    pub band: Option<KappaBand>,
    /// Band of the interval's lower bound (κ-type statistics only).
    pub band_at_lower: Option<KappaBand>,
    /// Rule of thumb at the estimate (κ, α, r, ρ).
    pub adequacy: Option<Adequacy>,
    /// Rule of thumb at the interval's lower bound.
    pub adequacy_at_lower: Option<Adequacy>,
}

#[derive(Clone, Copy)]
enum Kind {
    Plain,
    Agreement,
    Correlation,
}

impl Kind {
    fn band(self, value: f64) -> Option<KappaBand> {
        match self {
            Self::Agreement => KappaBand::of(value),
            Self::Plain | Self::Correlation => None,
        }
    }

    fn adequacy(self, value: f64) -> Option<Adequacy> {
        match self {
            Self::Plain => None,
            Self::Agreement => Adequacy::of_agreement(value),
            Self::Correlation => Adequacy::of_correlation(value),
        }
    }
}

impl Reading {
    fn new(interval: Interval, kind: Kind) -> Self {
        Self {
            band: kind.band(interval.estimate),
            band_at_lower: kind.band(interval.lower),
            adequacy: kind.adequacy(interval.estimate),
            adequacy_at_lower: kind.adequacy(interval.lower),
            interval,
        }
    }
}

/// Settings of an agreement report.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AgreementParams {
    pub bootstrap: BootstrapParams,
    /// Nominal: only percent agreement and unweighted κ are meaningful.
    pub scale: ScoreScale,
    /// The full ordered scale for κ (see [`KappaParams::categories`]).
    pub categories: Option<Vec<f64>>,
}

/// Two raters' agreement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairAgreement {
    pub n_items: usize,
    pub scale: ScoreScale,
    pub categories: Vec<f64>,
    /// `confusion[i][j]`: items rater *a* put in category i and rater *b* in category j.
    pub confusion: Vec<Vec<u64>>,
    pub percent_agreement: Reading,
    pub kappa: Reading,
    /// Numeric scale only.
    pub linear_kappa: Option<Reading>,
    pub quadratic_kappa: Option<Reading>,
    pub pearson: Option<Reading>,
    pub spearman: Option<Reading>,
    pub kendall_tau_b: Option<Reading>,
    /// The bootstrap settings, seed included.
    pub bootstrap: BootstrapParams,
    /// [`HEURISTICS_NOTE`].
    pub heuristics: String,
    pub warnings: Vec<String>,
}

impl PairAgreement {
    /// The warnings of this result (undefined κ, undefined correlations), each score written by
    /// `score`: e.g. a nominal code as the label it stands for. [`PairAgreement::warnings`]
    /// holds them with `score` = the number.
    pub fn warnings_with(&self, score: &dyn Fn(f64) -> String) -> Vec<String> {
        let mut warnings = kappa::warnings_of(&self.categories, &self.confusion, score);
        for (name, reading) in [
            ("Pearson r", &self.pearson),
            ("Spearman ρ", &self.spearman),
            ("Kendall τ-b", &self.kendall_tau_b),
        ] {
            if reading
                .as_ref()
                .is_some_and(|r| r.interval.estimate.is_nan())
            {
                warnings.push(format!(
                    "{name} is undefined (NaN): a rater gave every item the same score"
                ));
            }
        }
        warnings
    }
}

/// Krippendorff's α of a group of raters with its reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupAgreement {
    pub alpha: AlphaBootstrap,
    pub reading: Reading,
    /// [`HEURISTICS_NOTE`].
    pub heuristics: String,
}

/// A group's majority labels: per item, the score its raters gave most often.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Majority {
    /// Items with a single most frequent score, in the matrix's item order.
    pub items: Vec<String>,
    /// Each item's majority score.
    pub labels: Vec<f64>,
    /// Each item's number of ratings equal to its majority score.
    pub support: Vec<usize>,
    /// Each item's number of ratings.
    pub votes: Vec<usize>,
    /// Items whose most frequent scores tie: no majority, excluded.
    pub tied_items: Vec<String>,
    /// Items without any rating (rows of `None`), excluded.
    pub unrated_items: usize,
}

impl Majority {
    /// The majority labels of the raters of `matrix`.
    pub fn of(matrix: &RatingMatrix) -> Self {
        let mut majority = Self {
            items: Vec::new(),
            labels: Vec::new(),
            support: Vec::new(),
            votes: Vec::new(),
            tied_items: Vec::new(),
            unrated_items: 0,
        };
        for (item, row) in matrix.items.iter().zip(&matrix.values) {
            let mut scores: Vec<f64> = row.iter().flatten().copied().collect();
            scores.sort_by(f64::total_cmp);
            // (score, count) of the most frequent scores so far, and whether several tie.
            let mut best: Option<(f64, usize)> = None;
            let mut tied = false;
            let mut start = 0;
            while start < scores.len() {
                let value = scores[start];
                let count = scores[start..].partition_point(|v| v.total_cmp(&value).is_eq());
                match best {
                    Some((_, top)) if count < top => {}
                    Some((_, top)) if count == top => tied = true,
                    _ => {
                        best = Some((value, count));
                        tied = false;
                    }
                }
                start += count;
            }
            match best {
                None => majority.unrated_items += 1,
                Some(_) if tied => majority.tied_items.push(item.clone()),
                Some((label, count)) => {
                    majority.items.push(item.clone());
                    majority.labels.push(label);
                    majority.support.push(count);
                    majority.votes.push(scores.len());
                }
            }
        }
        majority
    }
}

/// A rater's agreement with a group's majority labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MajorityAgreement {
    pub rater: String,
    /// Items the rater scored.
    pub n_rated: usize,
    /// Of those, the items with a majority label: the pairs of `agreement`.
    pub n_paired: usize,
    /// Of those, the items whose majority is tied (excluded).
    pub n_tied: usize,
    /// Of those, the items the group did not rate (excluded).
    pub n_not_in_group: usize,
    /// Rater *a* is the rater, rater *b* the majority.
    pub agreement: PairAgreement,
}

impl AgreementParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        self.bootstrap.validate()?;
        self.kappa(KappaWeights::Unweighted).validate()
    }

    fn kappa(&self, weights: KappaWeights) -> KappaParams {
        KappaParams {
            weights,
            categories: self.categories.clone(),
        }
    }

    /// Agreement of raters `a` and `b` (scores paired by item).
    ///
    /// # Errors
    /// See the module documentation.
    pub fn pair(&self, a: &[f64], b: &[f64]) -> Result<PairAgreement> {
        self.validate()?;
        let boot = &self.bootstrap;
        let unweighted = self.kappa(KappaWeights::Unweighted).bootstrap(a, b, boot)?;
        let weighted = |weights| -> Result<Reading> {
            let k = self.kappa(weights).bootstrap(a, b, boot)?;
            Ok(Reading::new(k.kappa_interval, Kind::Agreement))
        };
        type Statistic = fn(&[f64], &[f64]) -> Result<f64>;
        let correlation = |f: Statistic, kind: Kind| -> Result<Reading> {
            let mut x = Vec::with_capacity(a.len());
            let mut y = Vec::with_capacity(a.len());
            let interval = bootstrap(a.len(), boot, |idx| {
                x.clear();
                y.clear();
                x.extend(idx.iter().map(|&i| a[i]));
                y.extend(idx.iter().map(|&i| b[i]));
                f(&x, &y).unwrap_or(f64::NAN)
            })?;
            Ok(Reading::new(interval, kind))
        };
        let numeric = self.scale == ScoreScale::Numeric;
        let (pearson_r, spearman_r, kendall_r) = if numeric {
            (
                Some(correlation(pearson, Kind::Correlation)?),
                Some(correlation(spearman, Kind::Correlation)?),
                Some(correlation(kendall_tau_b, Kind::Plain)?),
            )
        } else {
            (None, None, None)
        };
        let (linear, quadratic) = if numeric {
            (
                Some(weighted(KappaWeights::Linear)?),
                Some(weighted(KappaWeights::Quadratic)?),
            )
        } else {
            (None, None)
        };
        let mut agreement = PairAgreement {
            n_items: a.len(),
            scale: self.scale,
            categories: unweighted.kappa.categories,
            confusion: unweighted.kappa.confusion,
            percent_agreement: Reading::new(unweighted.percent_agreement_interval, Kind::Plain),
            kappa: Reading::new(unweighted.kappa_interval, Kind::Agreement),
            linear_kappa: linear,
            quadratic_kappa: quadratic,
            pearson: pearson_r,
            spearman: spearman_r,
            kendall_tau_b: kendall_r,
            bootstrap: *boot,
            heuristics: HEURISTICS_NOTE.to_owned(),
            warnings: Vec::new(),
        };
        agreement.warnings = agreement.warnings_with(&|score| score.to_string());
        Ok(agreement)
    }

    /// Agreement of the raters named `a` and `b` in `matrix`, on the items both scored.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] for an unknown rater, and those of [`pair`](Self::pair).
    pub fn raters(&self, matrix: &RatingMatrix, a: &str, b: &str) -> Result<PairAgreement> {
        let (x, y) = matrix.paired(matrix.rater_index(a)?, matrix.rater_index(b)?);
        self.pair(&x, &y)
    }

    /// Agreement of the rater named `rater` in `matrix` with the `majority` labels, on the items
    /// both have, in the majority's item order.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] for an unknown rater, and those of
    /// [`pair`](Self::pair) ([`crate::Error::Insufficient`] for fewer than 2 paired items).
    pub fn against_majority(
        &self,
        majority: &Majority,
        matrix: &RatingMatrix,
        rater: &str,
    ) -> Result<MajorityAgreement> {
        let column = matrix.rater_index(rater)?;
        let scored: HashMap<&str, f64> = matrix
            .items
            .iter()
            .zip(&matrix.values)
            .filter_map(|(item, row)| Some((item.as_str(), row.get(column).copied().flatten()?)))
            .collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (item, &label) in majority.items.iter().zip(&majority.labels) {
            if let Some(&score) = scored.get(item.as_str()) {
                a.push(score);
                b.push(label);
            }
        }
        let tied: HashSet<&str> = majority.tied_items.iter().map(String::as_str).collect();
        let n_tied = scored.keys().filter(|item| tied.contains(*item)).count();
        Ok(MajorityAgreement {
            rater: rater.to_owned(),
            n_rated: scored.len(),
            n_paired: a.len(),
            n_tied,
            n_not_in_group: scored.len() - a.len() - n_tied,
            agreement: self.pair(&a, &b)?,
        })
    }

    /// Krippendorff's α of all raters in `matrix`, at `level`, resampling items.
    ///
    /// # Errors
    /// Those of [`AlphaParams::bootstrap`].
    pub fn group(&self, matrix: &RatingMatrix, level: AlphaLevel) -> Result<GroupAgreement> {
        self.validate()?;
        let alpha = AlphaParams { level }.bootstrap(&matrix.values, &self.bootstrap)?;
        let reading = Reading::new(alpha.interval, Kind::Agreement);
        Ok(GroupAgreement {
            alpha,
            reading,
            heuristics: HEURISTICS_NOTE.to_owned(),
        })
    }
}

crate::analysis::warnings::own_warnings!(PairAgreement);

crate::analysis::warnings::part_warnings!(GroupAgreement => alpha);

crate::analysis::warnings::part_warnings!(MajorityAgreement => agreement);

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(raters: &[&str], rows: &[&[f64]]) -> RatingMatrix {
        RatingMatrix {
            items: (0..rows.len()).map(|i| format!("q{i}")).collect(),
            raters: raters.iter().map(|r| r.to_string()).collect(),
            values: rows
                .iter()
                .map(|r| r.iter().map(|&x| (!x.is_nan()).then_some(x)).collect())
                .collect(),
        }
    }

    #[test]
    fn majority_labels_exclude_ties() {
        let nan = f64::NAN;
        let crowd = matrix(
            &["w1", "w2", "w3", "w4"],
            &[
                &[0.0, 0.0, 1.0, nan], // 0 wins 2–1
                &[0.0, 1.0, nan, nan], // 1–1 tie
                &[2.0, nan, nan, nan], // a single vote is a majority
                &[nan, nan, nan, nan], // unrated
                &[1.0, 2.0, 2.0, 1.0], // 2–2 tie
                &[2.0, 1.0, 1.0, 0.0], // 1 wins 2–1–1
            ],
        );
        let m = Majority::of(&crowd);
        assert_eq!(m.items, ["q0", "q2", "q5"]);
        assert_eq!(m.labels, [0.0, 2.0, 1.0]);
        assert_eq!(m.support, [2, 1, 2]);
        assert_eq!(m.votes, [3, 1, 4]);
        assert_eq!(m.tied_items, ["q1", "q4"]);
        assert_eq!(m.unrated_items, 1);
    }

    #[test]
    fn rater_against_the_majority() {
        let crowd = matrix(
            &["w1", "w2", "w3"],
            &[
                &[0.0, 0.0, 1.0],
                &[1.0, 1.0, 0.0],
                &[0.0, 1.0, f64::NAN],
                &[1.0, 1.0, 1.0],
                &[0.0, 0.0, 0.0],
            ],
        );
        let majority = Majority::of(&crowd);
        assert_eq!(majority.items, ["q0", "q1", "q3", "q4"]);
        assert_eq!(majority.labels, [0.0, 1.0, 1.0, 0.0]);
        // The judge rated q0–q2 and q4 plus an item the crowd never saw.
        let mut judge = matrix(&["gpt"], &[&[0.0], &[0.0], &[1.0], &[1.0], &[1.0]]);
        judge.items = ["q0", "q1", "q2", "q4", "extra"].map(String::from).to_vec();
        let params = AgreementParams {
            bootstrap: BootstrapParams {
                rounds: 50,
                ..Default::default()
            },
            scale: ScoreScale::Nominal,
            categories: None,
        };
        let r = params.against_majority(&majority, &judge, "gpt").unwrap();
        assert_eq!(
            (r.n_rated, r.n_paired, r.n_tied, r.n_not_in_group),
            (5, 3, 1, 1)
        );
        // Pairs (judge, majority) in crowd order: q0 (0, 0), q1 (0, 1), q4 (1, 0).
        // P_o = 1/3, P_e = (2·2 + 1·1)/9 = 5/9 → κ = (1/3 − 5/9)/(4/9) = −½.
        assert_eq!(r.agreement.confusion, [vec![1, 1], vec![1, 0]]);
        let pa = r.agreement.percent_agreement.interval.estimate;
        assert!((pa - 1.0 / 3.0).abs() < 1e-15);
        assert!((r.agreement.kappa.interval.estimate + 0.5).abs() < 1e-15);
        assert!(params
            .against_majority(&majority, &judge, "nobody")
            .is_err());
    }

    #[test]
    fn pair_warnings_name_scores_as_the_caller_does() {
        let params = AgreementParams {
            bootstrap: BootstrapParams {
                rounds: 20,
                ..Default::default()
            },
            scale: ScoreScale::Nominal,
            categories: Some(vec![0.0, 1.0]),
        };
        let p = params.pair(&[1.0, 1.0, 1.0], &[1.0, 1.0, 1.0]).unwrap();
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].contains("same score (1)"), "{:?}", p.warnings);
        let named = p.warnings_with(&|c| format!("`{}`", ["fail", "pass"][c as usize]));
        assert!(named[0].contains("same score (`pass`)"), "{named:?}");
        // Numeric: the undefined correlations follow κ's warning, in order.
        let numeric = AgreementParams {
            scale: ScoreScale::Numeric,
            categories: None,
            ..params
        };
        let p = numeric.pair(&[3.0, 3.0, 3.0], &[3.0, 3.0, 3.0]).unwrap();
        assert_eq!(p.warnings.len(), 4, "{:?}", p.warnings);
        assert!(p.warnings[0].contains("same score (3)"));
        assert!(p.warnings[1].starts_with("Pearson r is undefined"));
        assert!(p.warnings[3].starts_with("Kendall τ-b is undefined"));
    }

    #[test]
    fn bands_follow_the_guide() {
        let bands: Vec<Option<KappaBand>> = [-0.1, 0.0, 0.2, 0.21, 0.4, 0.6, 0.7, 0.8, 0.81, 1.0]
            .iter()
            .map(|&v| KappaBand::of(v))
            .collect();
        use KappaBand::*;
        assert_eq!(
            bands,
            [
                WorseThanChance,
                Slight,
                Slight,
                Fair,
                Fair,
                Moderate,
                Substantial,
                Substantial,
                AlmostPerfect,
                AlmostPerfect
            ]
            .map(Some)
        );
        assert_eq!(KappaBand::of(f64::NAN), None);
        assert_eq!(Adequacy::of_agreement(0.85), Some(Adequacy::Strong));
        assert_eq!(Adequacy::of_agreement(0.70), Some(Adequacy::Adequate));
        assert_eq!(Adequacy::of_agreement(0.65), Some(Adequacy::Borderline));
        assert_eq!(
            Adequacy::of_agreement(0.59),
            Some(Adequacy::NeedsCalibration)
        );
        assert_eq!(Adequacy::of_correlation(0.75), Some(Adequacy::Adequate));
        assert_eq!(
            Adequacy::of_correlation(0.69),
            Some(Adequacy::NeedsCalibration)
        );
    }
}
