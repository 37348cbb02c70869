//! Multiple-comparison corrections across slices or variants: Holm–Bonferroni adjusted
//! p-values (family-wise error rate) and Benjamini–Hochberg q-values (false discovery rate),
//! as the field guide asks for when many slices are tested (seed 001, Part V).
//!
//! Model: with m p-values sorted ascending p₍₁₎ ≤ … ≤ p₍ₘ₎,
//!
//! ```text
//! Holm:  p̃₍ᵢ₎ = max_{j ≤ i} min(1, (m − j + 1) p₍ⱼ₎)
//! BH:    q₍ᵢ₎ = min_{j ≥ i} min(1, m p₍ⱼ₎ / j)
//! ```
//!
//! and a hypothesis is rejected when its adjusted value is ≤ α (Holm: step-down, controls
//! the family-wise error rate; BH: step-up, controls the false discovery rate under
//! independence or positive dependence). Ties keep their input order.
//!
//! Arguments: the p-values, in any order. Returns: [`Adjusted`] with adjusted values and
//! decisions in input order. Degenerate input: an empty family gives empty results; a single
//! p-value is its own adjusted value. Errors: [`Error::InvalidParam`] for α outside (0, 1) or a
//! p-value outside [0, 1] (NaN included).

use crate::io::checks::in_open_unit;
use crate::io::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Which error rate to control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Correction {
    /// Holm–Bonferroni: family-wise error rate.
    #[default]
    Holm,
    /// Benjamini–Hochberg: false discovery rate (q-values).
    BenjaminiHochberg,
}

/// Settings of a correction.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MultipleTestingParams {
    pub correction: Correction,
    /// Level at which adjusted values reject.
    pub alpha: f64,
}

impl Default for MultipleTestingParams {
    fn default() -> Self {
        Self {
            correction: Correction::Holm,
            alpha: 0.05,
        }
    }
}

/// Adjusted p-values (Holm) or q-values (BH), in input order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Adjusted {
    pub correction: Correction,
    pub alpha: f64,
    pub adjusted: Vec<f64>,
    pub reject: Vec<bool>,
    pub n_rejected: usize,
}

impl MultipleTestingParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        in_open_unit("alpha", self.alpha)?;
        Ok(())
    }

    /// Adjusts `p_values`.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn compute(&self, p_values: &[f64]) -> Result<Adjusted> {
        self.validate()?;
        if let Some((i, p)) = p_values
            .iter()
            .enumerate()
            .find(|(_, p)| !(0.0..=1.0).contains(*p))
        {
            return Err(Error::param(
                "p_values",
                format!(
                    "expected p-values in [0, 1], found {p} at position {}",
                    i + 1
                ),
            ));
        }
        let m = p_values.len();
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
        let mut adjusted = vec![0.0; m];
        match self.correction {
            Correction::Holm => {
                let mut running = 0.0_f64;
                for (rank, &i) in order.iter().enumerate() {
                    running = running.max(((m - rank) as f64 * p_values[i]).min(1.0));
                    adjusted[i] = running;
                }
            }
            Correction::BenjaminiHochberg => {
                let mut running = 1.0_f64;
                for (rank, &i) in order.iter().enumerate().rev() {
                    running = running.min((m as f64 * p_values[i] / (rank + 1) as f64).min(1.0));
                    adjusted[i] = running;
                }
            }
        }
        let reject: Vec<bool> = adjusted.iter().map(|&q| q <= self.alpha).collect();
        Ok(Adjusted {
            correction: self.correction,
            alpha: self.alpha,
            n_rejected: reject.iter().filter(|&&r| r).count(),
            adjusted,
            reject,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_cases() {
        // p = (0.01, 0.04, 0.03), m = 3. Holm: sorted 0.01·3, 0.03·2, 0.04·1 → 0.03, 0.06, 0.06.
        // BH: 0.04·3/3 = 0.04, 0.03·3/2 = 0.045 → min from the top: 0.04, 0.04; 0.01·3 = 0.03.
        let p = [0.01, 0.04, 0.03];
        let holm = MultipleTestingParams::default().compute(&p).unwrap();
        let want = [0.03, 0.06, 0.06];
        for (a, w) in holm.adjusted.iter().zip(want) {
            assert!((a - w).abs() < 1e-15, "{:?}", holm.adjusted);
        }
        assert_eq!(holm.reject, [true, false, false]);
        let bh = MultipleTestingParams {
            correction: Correction::BenjaminiHochberg,
            alpha: 0.05,
        }
        .compute(&p)
        .unwrap();
        let want = [0.03, 0.04, 0.04];
        for (a, w) in bh.adjusted.iter().zip(want) {
            assert!((a - w).abs() < 1e-15, "{:?}", bh.adjusted);
        }
        assert_eq!(bh.n_rejected, 3);
    }

    #[test]
    fn edge_cases_and_errors() {
        let p = MultipleTestingParams::default();
        assert!(p.compute(&[]).unwrap().adjusted.is_empty());
        assert_eq!(p.compute(&[0.2]).unwrap().adjusted, [0.2]);
        assert!(p.compute(&[0.1, f64::NAN]).is_err());
        assert!(p.compute(&[1.5]).is_err());
        let bad = MultipleTestingParams {
            alpha: 0.0,
            ..Default::default()
        };
        assert!(bad.compute(&[0.1]).is_err());
    }
}
