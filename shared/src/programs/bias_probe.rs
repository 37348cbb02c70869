//! Bias probes of a pairwise judge (seed 004 §4.4): flip rate and bias win rate.
//!
//! Model: a probe is one pair judged twice — clean, and after a controlled change (for
//! `position`, the two responses swapped; for a content bias such as rich formatting, fake
//! references, gendered framing or padding, one response perturbed). The verdicts are read in
//! the clean pair's orientation (+1 `a`, −1 `b`, 0 none). Flip rate (FR) = share of probes whose
//! verdict changes; bias win rate (BWR) = share whose perturbed trial is won by the perturbed
//! response (content biases only). Lower is better for both. Each has a percentile bootstrap
//! interval over probes.
//!
//! Arguments: the trials and bootstrap settings. Returns: one row per bias, in order of first
//! appearance. Errors: [`Error::InvalidParam`] for bad bootstrap settings;
//! [`Error::Insufficient`] for a bias with fewer than two probes.

use crate::io::error::{Error, Result};
use crate::math::resample::{bootstrap_mean, BootstrapParams, Interval};
use serde::{Deserialize, Serialize};

/// One probe's two verdicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BiasTrial {
    pub bias: String,
    pub clean: i8,
    pub perturbed: i8,
    /// The perturbed response (+1 `a`, −1 `b`); `None` for position probes.
    pub biased_side: Option<i8>,
}

/// Flip rate and bias win rate of one bias.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BiasRow {
    pub bias: String,
    pub probes: usize,
    pub flip_rate: Interval,
    pub bias_win_rate: Option<Interval>,
}

/// Every bias's row.
pub fn bias_report(trials: &[BiasTrial], params: &BootstrapParams) -> Result<Vec<BiasRow>> {
    params.validate()?;
    let mut biases: Vec<&str> = Vec::new();
    for t in trials {
        if !biases.contains(&t.bias.as_str()) {
            biases.push(&t.bias);
        }
    }
    biases
        .into_iter()
        .map(|bias| {
            let group: Vec<&BiasTrial> = trials.iter().filter(|t| t.bias == bias).collect();
            if group.len() < 2 {
                return Err(Error::Insufficient(format!(
                    "bias `{bias}` needs at least 2 probes, found {}",
                    group.len()
                )));
            }
            let flips: Vec<f64> = group
                .iter()
                .map(|t| f64::from(u8::from(t.clean != t.perturbed)))
                .collect();
            let wins: Option<Vec<f64>> = group
                .iter()
                .map(|t| t.biased_side.map(|s| f64::from(u8::from(t.perturbed == s))))
                .collect();
            Ok(BiasRow {
                bias: bias.to_owned(),
                probes: group.len(),
                flip_rate: bootstrap_mean(&flips, params)?,
                bias_win_rate: wins.map(|w| bootstrap_mean(&w, params)).transpose()?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_flips_and_biased_wins() {
        let trial = |bias: &str, clean, perturbed, side| BiasTrial {
            bias: bias.to_owned(),
            clean,
            perturbed,
            biased_side: side,
        };
        let trials = [
            trial("padding", 1, 1, Some(1)),
            trial("padding", -1, 1, Some(1)),
            trial("padding", 0, -1, Some(1)),
            trial("padding", 1, -1, Some(-1)),
            trial("position", 1, 1, None),
            trial("position", 1, 0, None),
        ];
        let params = BootstrapParams {
            rounds: 50,
            ..BootstrapParams::default()
        };
        let rows = bias_report(&trials, &params).unwrap();
        assert_eq!(rows.len(), 2);
        // Padding: flips on probes 2, 3, 4 → ¾; the padded side wins on 1, 2, 4 → ¾.
        assert_eq!(rows[0].flip_rate.estimate, 0.75);
        assert_eq!(rows[0].bias_win_rate.unwrap().estimate, 0.75);
        assert_eq!(rows[1].flip_rate.estimate, 0.5);
        assert!(rows[1].bias_win_rate.is_none());
        let err = bias_report(&trials[..5], &params).unwrap_err();
        assert_eq!(
            err.to_string(),
            "bias `position` needs at least 2 probes, found 1"
        );
    }
}
