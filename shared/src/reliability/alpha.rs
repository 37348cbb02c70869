//! Krippendorff's α for nominal, ordinal, interval and ratio data: any number of raters,
//! missing values allowed.
//!
//! Model (seed 001, Part IV): α = 1 − D_o / D_e, observed over chance-expected disagreement.
//! Computed through the coincidence matrix (Krippendorff 2011, "Computing Krippendorff's
//! Alpha-Reliability"): a unit u with m_u ≥ 2 values (a *pairable* unit), n_uc of them equal to
//! c, contributes
//!
//! ```text
//! o_ck = Σ_u n_uc (n_uk − [c = k]) / (m_u − 1),   n_c = Σ_k o_ck,   n = Σ_c n_c
//! α    = 1 − (n − 1) Σ_c Σ_k o_ck δ²_ck / Σ_c Σ_k n_c n_k δ²_ck
//! ```
//!
//! with the metric δ²_ck of the level of measurement:
//!
//! ```text
//! nominal  [c ≠ k]
//! ordinal  (Σ_{g=c..k} n_g − (n_c + n_k)/2)²      (g runs over the values between c and k)
//! interval (c − k)²
//! ratio    ((c − k)/(c + k))²                      (0 when c + k = 0)
//! ```
//!
//! Units with a single value carry no information about agreement and are left out, as are
//! missing values. Arguments: `units[u]` holds the values unit u received (`None` = missing),
//! e.g. the rows of a [`crate::reliability::ratings::RatingMatrix`]. Returns: [`Alpha`] with the coincidence
//! matrix and both disagreements. The bootstrap ([`AlphaParams::bootstrap`]) resamples units
//! with [`crate::math::resample::replicates_by_kind`], summing the precomputed coincidences of
//! each kind of unit drawn.
//!
//! Degenerate input: when every pairable value is the same, D_e = 0 and α is undefined: it is
//! NaN with a warning. [`Alpha::warnings`] write values as numbers; [`Alpha::warnings_with`]
//! words the same warnings with the caller's names for them (a nominal code's label), since
//! this module knows values only. Errors: [`Error::Insufficient`] when no unit has two or more values
//! (e.g. a single rater); [`Error::InvalidParam`] for a non-finite value, or a negative value
//! on the ratio level.

use crate::io::error::{Error, Result};
use crate::math::resample::{
    kinds_of, percentile_interval, replicates_by_kind, BootstrapParams, Interval,
};
use serde::{Deserialize, Serialize};

/// Level of measurement: which differences between values count as disagreement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum AlphaLevel {
    Nominal,
    Ordinal,
    #[default]
    Interval,
    Ratio,
}

/// Settings of Krippendorff's α.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct AlphaParams {
    pub level: AlphaLevel,
}

/// Krippendorff's α with its ingredients.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alpha {
    pub level: AlphaLevel,
    pub alpha: f64,
    /// D_o = Σ o_ck δ²_ck / n.
    pub observed_disagreement: f64,
    /// D_e = Σ n_c n_k δ²_ck / (n (n − 1)).
    pub expected_disagreement: f64,
    /// The distinct values of pairable units, ascending; they index `coincidence`.
    pub values: Vec<f64>,
    pub coincidence: Vec<Vec<f64>>,
    /// n: the number of pairable values.
    pub n_pairable_values: f64,
    pub n_units: usize,
    pub n_pairable_units: usize,
    pub warnings: Vec<String>,
}

impl Alpha {
    /// The warnings of this result, each value written by `value`: e.g. a nominal code as the
    /// label it stands for. [`Alpha::warnings`] holds them with `value` = the number.
    pub fn warnings_with(&self, value: &dyn Fn(f64) -> String) -> Vec<String> {
        match self.values[..] {
            [only] => vec![format!(
                "every pairable rating has the same value ({}): expected disagreement is 0 and α \
                 is undefined (NaN)",
                value(only)
            )],
            _ => Vec::new(),
        }
    }
}

/// α with a bootstrap interval over units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlphaBootstrap {
    pub alpha: Alpha,
    pub interval: Interval,
    /// The bootstrap settings, seed included.
    pub bootstrap: BootstrapParams,
}

/// Each unit's coincidences, as (cell c·V + k, weight) entries (none for an unpairable unit).
struct Units {
    values: Vec<f64>,
    coincidences: Vec<Vec<(usize, f64)>>,
    n_pairable_units: usize,
}

impl AlphaParams {
    /// Checks the settings (every level is valid; kept for the uniform interface).
    pub fn validate(&self) -> Result<()> {
        Ok(())
    }

    /// Krippendorff's α of `units`.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn compute(&self, units: &[Vec<Option<f64>>]) -> Result<Alpha> {
        let data = self.prepare(units)?;
        Ok(self.summarise(&data, units.len()))
    }

    fn summarise(&self, data: &Units, n_units: usize) -> Alpha {
        let v = data.values.len();
        let mut o = vec![0.0; v * v];
        for unit in &data.coincidences {
            for &(cell, w) in unit {
                o[cell] += w;
            }
        }
        let (alpha, d_o, d_e) = alpha_from_coincidence(&o, &data.values, self.level);
        let mut alpha = Alpha {
            level: self.level,
            alpha,
            observed_disagreement: d_o,
            expected_disagreement: d_e,
            n_pairable_values: o.iter().sum(),
            coincidence: o.chunks(v).map(<[f64]>::to_vec).collect(),
            values: data.values.clone(),
            n_units,
            n_pairable_units: data.n_pairable_units,
            warnings: Vec::new(),
        };
        alpha.warnings = alpha.warnings_with(&|value| value.to_string());
        alpha
    }

    /// α with a percentile interval from resampling units (all units, pairable or not).
    ///
    /// # Errors
    /// Those of [`compute`](Self::compute), invalid bootstrap settings, and
    /// [`Error::Insufficient`] for fewer than 2 units.
    pub fn bootstrap(
        &self,
        units: &[Vec<Option<f64>>],
        boot: &BootstrapParams,
    ) -> Result<AlphaBootstrap> {
        let data = self.prepare(units)?;
        let alpha = self.summarise(&data, units.len());
        let v = data.values.len();
        // Units with the same coincidences are one kind: a round sums count × coincidences.
        let (kinds, first) = kinds_of((data.coincidences.iter()).map(|c| {
            c.iter()
                .map(|&(cell, w)| (cell, w.to_bits()))
                .collect::<Vec<_>>()
        }));
        let replicates = replicates_by_kind(&kinds, first.len(), boot, |counts| {
            let mut o = vec![0.0; v * v];
            for (&count, &unit) in counts.iter().zip(&first) {
                if count > 0 {
                    for &(cell, w) in &data.coincidences[unit] {
                        o[cell] += f64::from(count) * w;
                    }
                }
            }
            alpha_from_coincidence(&o, &data.values, self.level).0
        })?;
        let interval = percentile_interval(alpha.alpha, &replicates, boot.level);
        Ok(AlphaBootstrap {
            alpha,
            interval,
            bootstrap: *boot,
        })
    }

    fn prepare(&self, units: &[Vec<Option<f64>>]) -> Result<Units> {
        self.validate()?;
        if let Some(x) = units.iter().flatten().flatten().find(|x| !x.is_finite()) {
            return Err(Error::param(
                "units",
                format!("every value must be a finite number, found {x}"),
            ));
        }
        if self.level == AlphaLevel::Ratio {
            if let Some(x) = units.iter().flatten().flatten().find(|&&x| x < 0.0) {
                return Err(Error::param(
                    "level",
                    format!(
                        "the ratio level needs values ≥ 0 (distances are relative to an absolute \
                         zero), found {x}: use the interval level"
                    ),
                ));
            }
        }
        let present: Vec<Vec<f64>> = units
            .iter()
            .map(|u| u.iter().flatten().copied().collect::<Vec<f64>>())
            .collect();
        let n_pairable_units = present.iter().filter(|u| u.len() >= 2).count();
        if n_pairable_units == 0 {
            let most = units
                .iter()
                .map(|u| u.iter().flatten().count())
                .max()
                .unwrap_or(0);
            return Err(Error::Insufficient(format!(
                "Krippendorff's α needs at least one unit rated by two or more raters; found {} \
                 units with at most {most} rating each",
                units.len()
            )));
        }
        let mut values: Vec<f64> = present
            .iter()
            .filter(|u| u.len() >= 2)
            .flatten()
            .copied()
            .collect();
        values.sort_by(f64::total_cmp);
        values.dedup();
        let v = values.len();
        let coincidences = present
            .iter()
            .map(|unit| {
                if unit.len() < 2 {
                    return Vec::new();
                }
                let mut counts: Vec<(usize, f64)> = Vec::new();
                for x in unit {
                    let c = values.partition_point(|y| y < x);
                    match counts.iter_mut().find(|(i, _)| *i == c) {
                        Some(entry) => entry.1 += 1.0,
                        None => counts.push((c, 1.0)),
                    }
                }
                let scale = 1.0 / (unit.len() - 1) as f64;
                let mut cells = Vec::with_capacity(counts.len() * counts.len());
                for &(c, nc) in &counts {
                    for &(k, nk) in &counts {
                        let pairs = if c == k { nc * (nk - 1.0) } else { nc * nk };
                        if pairs > 0.0 {
                            cells.push((c * v + k, pairs * scale));
                        }
                    }
                }
                cells
            })
            .collect();
        Ok(Units {
            values,
            coincidences,
            n_pairable_units,
        })
    }
}

/// α, D_o and D_e from a V × V coincidence matrix (row-major) over ascending `values`.
fn alpha_from_coincidence(o: &[f64], values: &[f64], level: AlphaLevel) -> (f64, f64, f64) {
    let v = values.len();
    let totals: Vec<f64> = o.chunks(v).map(|row| row.iter().sum()).collect();
    let n: f64 = totals.iter().sum();
    // cumulative[i] = Σ_{g<i} n_g, for the ordinal metric.
    let mut cumulative = vec![0.0; v + 1];
    for (i, t) in totals.iter().enumerate() {
        cumulative[i + 1] = cumulative[i] + t;
    }
    let delta = |c: usize, k: usize| -> f64 {
        if c == k {
            return 0.0;
        }
        let (x, y) = (values[c], values[k]);
        match level {
            AlphaLevel::Nominal => 1.0,
            AlphaLevel::Ordinal => {
                let (lo, hi) = (c.min(k), c.max(k));
                let between = cumulative[hi + 1] - cumulative[lo] - (totals[c] + totals[k]) / 2.0;
                between * between
            }
            AlphaLevel::Interval => (x - y) * (x - y),
            AlphaLevel::Ratio => {
                let sum = x + y;
                if sum == 0.0 {
                    0.0
                } else {
                    ((x - y) / sum).powi(2)
                }
            }
        }
    };
    let (mut observed, mut expected) = (0.0, 0.0);
    for c in 0..v {
        for k in 0..v {
            let d = delta(c, k);
            if d != 0.0 {
                observed += o[c * v + k] * d;
                expected += totals[c] * totals[k] * d;
            }
        }
    }
    let d_o = observed / n;
    let d_e = expected / (n * (n - 1.0));
    let alpha = if d_e > 0.0 { 1.0 - d_o / d_e } else { f64::NAN };
    (alpha, d_o, d_e)
}

crate::analysis::warnings::own_warnings!(Alpha);

crate::analysis::warnings::part_warnings!(AlphaBootstrap => alpha);

#[cfg(test)]
mod tests {
    use super::*;

    fn units(rows: &[&[f64]]) -> Vec<Vec<Option<f64>>> {
        rows.iter()
            .map(|r| r.iter().map(|&x| (!x.is_nan()).then_some(x)).collect())
            .collect()
    }

    #[test]
    fn two_raters_nominal_hand_case() {
        // Units (a,a), (a,b), (b,b) with a = 0, b = 1: o = [[2,1],[1,2]], n = 6,
        // D_o = 2/6, D_e = 2·3·3/(6·5) = 0.6 → α = 1 − (1/3)/0.6 = 4/9.
        let a = AlphaParams {
            level: AlphaLevel::Nominal,
        }
        .compute(&units(&[&[0.0, 0.0], &[0.0, 1.0], &[1.0, 1.0]]))
        .unwrap();
        assert!((a.alpha - 4.0 / 9.0).abs() < 1e-15, "{}", a.alpha);
        assert_eq!(a.coincidence, [vec![2.0, 1.0], vec![1.0, 2.0]]);
        assert_eq!(a.n_pairable_values, 6.0);
    }

    #[test]
    fn degenerate_units() {
        let p = AlphaParams::default();
        let one_rater = units(&[&[1.0], &[2.0], &[3.0]]);
        assert!(matches!(p.compute(&one_rater), Err(Error::Insufficient(_))));
        let constant = p
            .compute(&units(&[&[2.0, 2.0], &[2.0, 2.0, f64::NAN], &[5.0]]))
            .unwrap();
        assert!(constant.alpha.is_nan());
        assert_eq!(constant.warnings.len(), 1);
        assert_eq!((constant.n_units, constant.n_pairable_units), (3, 2));
        let ratio = AlphaParams {
            level: AlphaLevel::Ratio,
        };
        assert!(ratio.compute(&units(&[&[-1.0, 1.0]])).is_err());
    }

    #[test]
    fn warnings_name_the_constant_value_as_the_caller_does() {
        let a = AlphaParams {
            level: AlphaLevel::Nominal,
        }
        .compute(&units(&[&[1.0, 1.0], &[1.0, 1.0, f64::NAN]]))
        .unwrap();
        assert!(a.warnings[0].starts_with("every pairable rating has the same value (1):"));
        let named = a.warnings_with(&|v| format!("`{}`", ["bad", "good"][v as usize]));
        assert!(named[0].starts_with("every pairable rating has the same value (`good`):"));
        assert_eq!(a.warnings_with(&|v| v.to_string()), a.warnings);
    }

    #[test]
    fn perfect_agreement_is_one_at_every_level() {
        let data = units(&[&[1.0, 1.0, 1.0], &[2.0, 2.0, f64::NAN], &[4.0, 4.0, 4.0]]);
        for level in [
            AlphaLevel::Nominal,
            AlphaLevel::Ordinal,
            AlphaLevel::Interval,
            AlphaLevel::Ratio,
        ] {
            let a = AlphaParams { level }.compute(&data).unwrap();
            assert_eq!(a.alpha, 1.0, "{level:?}");
        }
    }
}
