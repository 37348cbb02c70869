//! Position bias of a pairwise judge from AB and BA runs: how often the first-shown answer
//! wins, how often swapping the order changes the verdict, and an exact binomial test.
//!
//! Seed 001 (Part III) asks to measure the position asymmetry (does the judge pick "first" 60 %
//! of the time?) before relying on AB/BA randomisation; seed 004 (§4.4, bias robustness)
//! defines the flip rate as the share of pairs whose verdict the swap alters. For each pair the
//! judge saw the answers as (A, B) and/or as (B, A) and chose a [`Verdict`] by position. Then
//!
//! ```text
//! first-position rate  f = #first / (#first + #second)      over all non-tie verdicts
//! flip rate               = #{winner (A, B or tie) differs between the orders} / #both
//! reversal rate           = #{A wins in one order and B in the other} / #both
//! p-value (two-sided)     = Σ_{i : P(X=i) ≤ P(X=k)} P(X=i),   X ~ Binomial(#first + #second, ½)
//! ```
//!
//! (#both: the pairs judged in both orders. The p-value sums the outcomes no more likely than
//! the observed one, with scipy's `binomtest` relative tolerance 1e-7; the test treats verdicts
//! as independent.) Intervals for f and the flip rate come from the same resamples of pairs
//! ([`crate::math::resample::replicates_by_kind`], a pair's kind being its position counts and
//! whether it flips), which keeps a pair's two orders together.
//!
//! Degenerate input: with no non-tie verdict, f and the p-value are NaN; with no pair judged in
//! both orders, the flip and reversal rates are NaN; each with a warning. Errors:
//! [`Error::Insufficient`] for fewer than 2 pairs (the bootstrap's minimum);
//! [`Error::InvalidParam`] for invalid bootstrap settings, a null rate outside (0, 1) or a
//! significance level outside (0, 1).

use crate::io::checks::in_open_unit;
use crate::io::error::Result;
use crate::math::resample::{
    kinds_of, percentile_interval, replicates_by_kind, BootstrapParams, Interval,
};
use serde::{Deserialize, Serialize};

/// A pairwise verdict by presentation position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    First,
    Second,
    Tie,
}

/// The verdicts on one pair: shown as (A, B) and as (B, A); `None` where that order was not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairVerdicts {
    pub ab: Option<Verdict>,
    pub ba: Option<Verdict>,
}

/// Who won a pair, by identity.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Winner {
    A,
    B,
    Tie,
}

impl PairVerdicts {
    fn winners(&self) -> Option<(Winner, Winner)> {
        let ab = match self.ab? {
            Verdict::First => Winner::A,
            Verdict::Second => Winner::B,
            Verdict::Tie => Winner::Tie,
        };
        let ba = match self.ba? {
            Verdict::First => Winner::B,
            Verdict::Second => Winner::A,
            Verdict::Tie => Winner::Tie,
        };
        Some((ab, ba))
    }

    /// (first-position wins, second-position wins) over the pair's verdicts.
    fn position_counts(&self) -> (u64, u64) {
        [self.ab, self.ba]
            .iter()
            .flatten()
            .fold((0, 0), |(f, s), v| match v {
                Verdict::First => (f + 1, s),
                Verdict::Second => (f, s + 1),
                Verdict::Tie => (f, s),
            })
    }
}

/// Settings of a position-bias analysis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct PositionBiasParams {
    #[cfg_attr(feature = "cli", command(flatten))]
    pub bootstrap: BootstrapParams,
    /// First-position rate under no bias (½).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = PositionBiasParams::default().null_rate, allow_negative_numbers = true)
    )]
    pub null_rate: f64,
    /// Level below which the binomial test calls the asymmetry significant.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = PositionBiasParams::default().significance, allow_negative_numbers = true)
    )]
    pub significance: f64,
}

impl Default for PositionBiasParams {
    fn default() -> Self {
        Self {
            bootstrap: BootstrapParams::default(),
            null_rate: 0.5,
            significance: 0.05,
        }
    }
}

/// A position-bias report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PositionBias {
    pub settings: PositionBiasParams,
    pub n_pairs: usize,
    /// Verdicts over both orders.
    pub n_verdicts: u64,
    pub n_first: u64,
    pub n_second: u64,
    pub n_ties: u64,
    /// Share of non-tie verdicts won by the first-shown answer, with a bootstrap interval.
    pub first_position_rate: Interval,
    /// Exact two-sided binomial p-value of `n_first` out of `n_first + n_second` at `null_rate`.
    pub p_value: f64,
    pub significant: bool,
    /// Pairs judged in both orders.
    pub n_both_orders: usize,
    /// Share of those whose winner changes with the order (ties included), with an interval.
    pub flip_rate: Interval,
    /// Share of those whose winner reverses (A in one order, B in the other).
    pub reversal_rate: f64,
    pub warnings: Vec<String>,
}

impl PositionBiasParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        self.bootstrap.validate()?;
        in_open_unit("null_rate", self.null_rate)?;
        in_open_unit("significance", self.significance)?;
        Ok(())
    }

    /// Analyses the verdicts of `pairs`.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn compute(&self, pairs: &[PairVerdicts]) -> Result<PositionBias> {
        self.validate()?;
        let counts: Vec<(u64, u64)> = pairs.iter().map(PairVerdicts::position_counts).collect();
        let flips: Vec<Option<(Winner, Winner)>> =
            pairs.iter().map(PairVerdicts::winners).collect();
        // A pair's kind: its first- and second-position counts and whether its two orders
        // flip (when both were judged). Both intervals come from the same resamples.
        let (kinds, first) =
            kinds_of((counts.iter().zip(&flips)).map(|(&c, f)| (c, f.map(|(ab, ba)| ab != ba))));
        let replicates = replicates_by_kind(&kinds, first.len(), &self.bootstrap, |drawn| {
            let (mut f, mut s, mut flipped, mut both) = (0u64, 0u64, 0u64, 0u64);
            for (&n, &pair) in drawn.iter().zip(&first) {
                let n = u64::from(n);
                f += n * counts[pair].0;
                s += n * counts[pair].1;
                if let Some((ab, ba)) = flips[pair] {
                    flipped += n * u64::from(ab != ba);
                    both += n;
                }
            }
            (f as f64 / (f + s) as f64, flipped as f64 / both as f64)
        })?;
        let (rates, flip_rates): (Vec<f64>, Vec<f64>) = replicates.into_iter().unzip();
        let (n_first, n_second) = counts
            .iter()
            .fold((0u64, 0u64), |(f, s), c| (f + c.0, s + c.1));
        let (flipped, judged_both) = flips
            .iter()
            .flatten()
            .fold((0u64, 0u64), |(x, n), (ab, ba)| {
                (x + u64::from(ab != ba), n + 1)
            });
        let first_position_rate = percentile_interval(
            n_first as f64 / (n_first + n_second) as f64,
            &rates,
            self.bootstrap.level,
        );
        let flip_rate = percentile_interval(
            flipped as f64 / judged_both as f64,
            &flip_rates,
            self.bootstrap.level,
        );

        let n_verdicts = pairs
            .iter()
            .map(|p| u64::from(p.ab.is_some()) + u64::from(p.ba.is_some()))
            .sum::<u64>();
        let both: Vec<(Winner, Winner)> = flips.iter().flatten().copied().collect();
        let reversals = both
            .iter()
            .filter(|(ab, ba)| matches!((ab, ba), (Winner::A, Winner::B) | (Winner::B, Winner::A)))
            .count();

        let mut warnings = Vec::new();
        let p_value = if n_first + n_second == 0 {
            warnings.push(
                "no verdict prefers either position (all ties or no verdicts): the \
                 first-position rate and the binomial test are undefined (NaN)"
                    .to_owned(),
            );
            f64::NAN
        } else {
            binomial_test_two_sided(n_first, n_first + n_second, self.null_rate)
        };
        if both.is_empty() {
            warnings.push(
                "no pair was judged in both orders: flip and reversal rates are undefined (NaN)"
                    .to_owned(),
            );
        }
        Ok(PositionBias {
            settings: *self,
            n_pairs: pairs.len(),
            n_verdicts,
            n_first,
            n_second,
            n_ties: n_verdicts - n_first - n_second,
            first_position_rate,
            significant: p_value < self.significance,
            p_value,
            n_both_orders: both.len(),
            flip_rate,
            reversal_rate: reversals as f64 / both.len() as f64,
            warnings,
        })
    }
}

/// ln P(X = k) for X ~ Binomial(n, p), 0 < p < 1.
fn binomial_ln_pmf(k: u64, n: u64, p: f64) -> f64 {
    let (k, n) = (k as f64, n as f64);
    libm::lgamma(n + 1.0) - libm::lgamma(k + 1.0) - libm::lgamma(n - k + 1.0)
        + k * p.ln()
        + (n - k) * (-p).ln_1p()
}

/// Exact two-sided binomial test of `k` successes in `n` trials against rate `p` ∈ (0, 1): the
/// probability of the outcomes no more likely than `k` (relative tolerance 1e-7, as scipy's
/// `binomtest`). Returns NaN for `n` = 0, `k` > `n` or `p` outside (0, 1).
pub fn binomial_test_two_sided(k: u64, n: u64, p: f64) -> f64 {
    if n == 0 || k > n || !(p > 0.0 && p < 1.0) {
        return f64::NAN;
    }
    let pmf = |i: u64| binomial_ln_pmf(i, n, p).exp();
    let expected = p * n as f64;
    let kf = k as f64;
    if kf == expected {
        return 1.0;
    }
    let threshold = pmf(k) * (1.0 + 1e-7);
    // The tail beyond k on its own side, plus the outcomes on the far side of the mode that
    // are no more likely than k, walking in from the far end while the pmf stays below.
    let (near, far): (f64, f64) = if kf < expected {
        let near = (0..=k).map(pmf).sum();
        let start = expected.ceil() as u64;
        let far = (start..=n)
            .rev()
            .map(pmf)
            .take_while(|&q| q <= threshold)
            .sum();
        (near, far)
    } else {
        let near = (k..=n).map(pmf).sum();
        let end = expected.floor() as u64;
        let far = (0..=end).map(pmf).take_while(|&q| q <= threshold).sum();
        (near, far)
    };
    (near + far).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::error::Error;

    fn pair(ab: Option<Verdict>, ba: Option<Verdict>) -> PairVerdicts {
        PairVerdicts { ab, ba }
    }

    #[test]
    fn binomial_hand_cases() {
        // k = 0 of n = 3 at ½: P = 2 · 1/8 = 0.25. k = 2 of 4: the mode → 1.
        assert!((binomial_test_two_sided(0, 3, 0.5) - 0.25).abs() < 1e-15);
        assert_eq!(binomial_test_two_sided(2, 4, 0.5), 1.0);
        // k = 9 of 10: 2 · (10 + 1)/1024.
        assert!((binomial_test_two_sided(9, 10, 0.5) - 22.0 / 1024.0).abs() < 1e-14);
        assert!(binomial_test_two_sided(1, 0, 0.5).is_nan());
    }

    #[test]
    fn hand_counted_pairs() {
        use Verdict::*;
        let pairs = [
            pair(Some(First), Some(First)), // A then B: position wins twice, a flip and reversal
            pair(Some(First), Some(Second)), // A both times: consistent
            pair(Some(Tie), Some(First)),   // tie then B: a flip, not a reversal
            pair(Some(Second), None),       // one order only
        ];
        let r = PositionBiasParams::default().compute(&pairs).unwrap();
        assert_eq!((r.n_pairs, r.n_verdicts), (4, 7));
        assert_eq!((r.n_first, r.n_second, r.n_ties), (4, 2, 1));
        assert!((r.first_position_rate.estimate - 4.0 / 6.0).abs() < 1e-15);
        assert_eq!(r.n_both_orders, 3);
        assert!((r.flip_rate.estimate - 2.0 / 3.0).abs() < 1e-15);
        assert!((r.reversal_rate - 1.0 / 3.0).abs() < 1e-15);
        // 4 of 6 at ½: outcomes with pmf ≤ C(6,4)/64 are all but k = 3 → 1 − 20/64.
        assert!((r.p_value - 44.0 / 64.0).abs() < 1e-14, "{}", r.p_value);
        assert!(!r.significant);
        assert!(r.warnings.is_empty());
    }

    #[test]
    fn degenerate_inputs() {
        use Verdict::*;
        let p = PositionBiasParams::default();
        let ties = [pair(Some(Tie), None), pair(None, Some(Tie))];
        let r = p.compute(&ties).unwrap();
        assert!(r.p_value.is_nan() && r.first_position_rate.estimate.is_nan());
        assert!(r.flip_rate.estimate.is_nan());
        assert_eq!(r.warnings.len(), 2);
        assert!(matches!(p.compute(&ties[..1]), Err(Error::Insufficient(_))));
        let bad = PositionBiasParams {
            null_rate: 1.0,
            ..p
        };
        assert!(bad.compute(&ties).is_err());
    }
}
