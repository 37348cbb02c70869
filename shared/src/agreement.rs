//! Agreement between raters with bootstrap intervals and the field guide's interpretation
//! bands: is the judge a reliable stand-in for people?
//!
//! For two raters (a judge and a human, two judges) on the items both scored, the report holds
//! percent agreement, Cohen's κ, and on the numeric scale linearly and quadratically weighted κ
//! ([`crate::kappa`]) and Pearson r, Spearman ρ and Kendall τ-b ([`crate::correlation`]); for
//! any number of raters, Krippendorff's α ([`crate::alpha`]). Every statistic gets a percentile
//! interval from resampling items with [`crate::resample::bootstrap`]: the same seed gives
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
//! Degenerate input: statistics that are undefined on the data (κ of two constant raters, a
//! correlation with a constant rater) are NaN with a warning, and have no band. Errors: those
//! of the underlying statistics and of the bootstrap ([`Error::Insufficient`] for fewer than 2
//! items), and [`Error::InvalidParam`] for an unknown rater name.

use crate::alpha::{AlphaBootstrap, AlphaLevel, AlphaParams};
use crate::correlation::{kendall_tau_b, pearson, spearman};
use crate::error::Result;
use crate::kappa::{KappaParams, KappaWeights};
use crate::ratings::{RatingMatrix, ScoreScale};
use crate::resample::{bootstrap, BootstrapParams, Interval};
use serde::{Deserialize, Serialize};

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

/// Krippendorff's α of a group of raters with its reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupAgreement {
    pub alpha: AlphaBootstrap,
    pub reading: Reading,
    /// [`HEURISTICS_NOTE`].
    pub heuristics: String,
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
        let mut warnings = unweighted.kappa.warnings.clone();
        let weighted = |weights| -> Result<Reading> {
            let k = self.kappa(weights).bootstrap(a, b, boot)?;
            Ok(Reading::new(k.kappa_interval, Kind::Agreement))
        };
        type Statistic = fn(&[f64], &[f64]) -> Result<f64>;
        let mut correlation = |name: &str, f: Statistic, kind: Kind| -> Result<Reading> {
            let mut x = Vec::with_capacity(a.len());
            let mut y = Vec::with_capacity(a.len());
            let interval = bootstrap(a.len(), boot, |idx| {
                x.clear();
                y.clear();
                x.extend(idx.iter().map(|&i| a[i]));
                y.extend(idx.iter().map(|&i| b[i]));
                f(&x, &y).unwrap_or(f64::NAN)
            })?;
            if interval.estimate.is_nan() {
                warnings.push(format!(
                    "{name} is undefined (NaN): a rater gave every item the same score"
                ));
            }
            Ok(Reading::new(interval, kind))
        };
        let numeric = self.scale == ScoreScale::Numeric;
        let (pearson_r, spearman_r, kendall_r) = if numeric {
            (
                Some(correlation("Pearson r", pearson, Kind::Correlation)?),
                Some(correlation("Spearman ρ", spearman, Kind::Correlation)?),
                Some(correlation("Kendall τ-b", kendall_tau_b, Kind::Plain)?),
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
        Ok(PairAgreement {
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
            warnings,
        })
    }

    /// Agreement of the raters named `a` and `b` in `matrix`, on the items both scored.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] for an unknown rater, and those of [`pair`](Self::pair).
    pub fn raters(&self, matrix: &RatingMatrix, a: &str, b: &str) -> Result<PairAgreement> {
        let (x, y) = matrix.paired(matrix.rater_index(a)?, matrix.rater_index(b)?);
        self.pair(&x, &y)
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

#[cfg(test)]
mod tests {
    use super::*;

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
