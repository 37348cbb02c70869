//! A judge's confidence threshold with a guarantee on its agreement with humans (Jung, Brahman
//! & Choi 2025, "Trust or Escalate", §2): the judge keeps an item when its confidence is at
//! least λ and abstains otherwise, and λ is chosen on human-labelled calibration items so that
//! the agreement on the items it keeps is at least 1 − α with probability at least 1 − δ over
//! the draw of those items.
//!
//! Model: for a threshold λ, the n(λ) calibration items with confidence ≥ λ are, given n(λ), an
//! i.i.d. sample of the items the judge keeps at λ, so their disagreements e(λ) are
//! Binomial(n(λ), R(λ)) with R(λ) the disagreement rate on kept items. The null hypothesis
//! H(λ): R(λ) > α has the exact p-value
//!
//! ```text
//! p(λ) = P(Bin(n(λ), α) ≤ e(λ)) = I_{1−α}(n(λ) − e(λ), e(λ) + 1)
//! ```
//!
//! (scipy's `binom.cdf(e, n, α)`). Fixed-sequence testing (Learn-then-Test, Angelopoulos et
//! al. 2021) walks the thresholds from the strictest down — the distinct confidences, in
//! descending order — rejecting H(λ) while p(λ) ≤ δ, and keeps the last λ rejected: the most
//! items with the family-wise error still δ. The walk starts at the first λ that keeps at least
//! `start` items and at least the fewest whose test could reject at all ((1 − α)^{n(λ)} ≤ δ;
//! a stricter λ would stop the walk before it began). The start reads the confidences only,
//! never the labels, so it does not spend the error level; a later start survives a few
//! disagreements among the judge's most confident items that would stop an early one (the
//! authors' code starts at 30 items, on a grid of 5,000 thresholds in [0, 1]; here every
//! distinct confidence is a threshold, so confidences need not lie in [0, 1]).
//!
//! Arguments: each calibration item's confidence and whether the judge agreed with the human,
//! α, δ and the start. Returns: [`Threshold`]: λ (none when no threshold passes: the judge keeps
//! nothing), the items kept and their disagreements, and the risk–coverage curve of every
//! threshold with its p-value. No errors: the caller checks α and δ (in (0, 1)) and that the
//! confidences are finite.

use crate::math::student_t::incomplete_beta;
use serde::{Deserialize, Serialize};

/// P(Bin(n, p) ≤ k), exact: the regularised incomplete beta I_{1−p}(n − k, k + 1); 1 for
/// k ≥ n.
pub fn binomial_cdf(k: usize, n: usize, p: f64) -> f64 {
    if k >= n {
        1.0
    } else {
        incomplete_beta((n - k) as f64, (k + 1) as f64, 1.0 - p)
    }
}

/// Where a threshold stands in the fixed-sequence test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// Fewer items kept than the walk starts at: not tested.
    TooFew,
    /// Tested and rejected: agreement ≥ 1 − α is shown at this threshold.
    Rejected,
    /// Tested and not rejected: the walk stops here.
    NotRejected,
    /// After the walk stopped: not tested.
    Untested,
}

/// One threshold of the risk–coverage curve on the calibration items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// λ: an item is kept when its confidence is at least this.
    pub threshold: f64,
    /// Items kept at λ, and the share of the items judged that they are.
    pub kept: usize,
    pub coverage: f64,
    /// Items kept on which the judge disagreed with the human, and the agreement on the kept.
    pub disagreements: usize,
    pub agreement: f64,
    /// P(Bin(kept, α) ≤ disagreements).
    pub p_value: f64,
    pub test: Test,
}

/// The chosen threshold and the curve it was chosen on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Threshold {
    /// λ̂, or `None` when no threshold passes (the judge keeps nothing).
    pub threshold: Option<f64>,
    /// Calibration items judged (with a confidence), kept at λ̂, and the disagreements among
    /// the kept.
    pub judged: usize,
    pub kept: usize,
    pub disagreements: usize,
    /// The fewest kept items whose test could reject: the smallest n with (1 − α)^n ≤ δ.
    pub fewest_testable: usize,
    /// The walk started at the first threshold keeping at least this many items.
    pub start: usize,
    /// The distinct confidences as thresholds, strictest first: every one up to
    /// [`CURVE_POINTS`], else one per 1/[`CURVE_POINTS`] of coverage with the chosen threshold
    /// and the one that stopped the walk.
    pub curve: Vec<CurvePoint>,
}

/// The kept items at which a judge whose disagreement rate is α/2 — twice as good as asked —
/// passes the test half the time: the smallest n with P(Bin(n, α) ≤ ⌊nα/2⌋) ≤ δ. A walk that
/// starts there is not stopped by the chance disagreements of a good judge's few most
/// confident items, and the start depends on α and δ alone. The search stops after `most`
/// (the items there are): a start beyond them is `most + 1`, a test that cannot begin (a tiny
/// α would otherwise search billions).
pub fn powered_start(alpha: f64, delta: f64, most: usize) -> usize {
    let mut n = fewest_testable(alpha, delta);
    while n <= most && binomial_cdf((n as f64 * alpha / 2.0).floor() as usize, n, alpha) > delta {
        n += 1;
    }
    n.min(most + 1)
}

/// The most points a curve keeps.
pub const CURVE_POINTS: usize = 200;

/// The smallest n with (1 − α)^n ≤ δ: below it even a judge that never disagrees cannot show
/// agreement ≥ 1 − α at level δ.
pub fn fewest_testable(alpha: f64, delta: f64) -> usize {
    let mut n = (delta.ln() / (-alpha).ln_1p()).floor().max(0.0) as usize;
    while binomial_cdf(0, n, alpha) > delta {
        n += 1;
    }
    n
}

/// λ̂ from `items`: (confidence, agreed with the human) of each calibration item the judge
/// judged, the walk starting where at least `start` items are kept. See the module
/// documentation.
pub fn calibrate_threshold(
    items: &[(f64, bool)],
    alpha: f64,
    delta: f64,
    start: usize,
) -> Threshold {
    let mut sorted: Vec<(f64, bool)> = items.to_vec();
    sorted.sort_by(|a, b| b.0.total_cmp(&a.0));
    let judged = sorted.len();
    let fewest = fewest_testable(alpha, delta);
    let start = start.max(fewest);
    let mut curve = Vec::new();
    let (mut kept, mut disagreements) = (0, 0);
    let mut walking = true;
    let mut chosen: Option<usize> = None;
    let mut i = 0;
    while i < sorted.len() {
        let threshold = sorted[i].0;
        while i < sorted.len() && sorted[i].0 == threshold {
            kept += 1;
            disagreements += usize::from(!sorted[i].1);
            i += 1;
        }
        let p_value = binomial_cdf(disagreements, kept, alpha);
        let test = if kept < start {
            Test::TooFew
        } else if !walking {
            Test::Untested
        } else if p_value <= delta {
            chosen = Some(curve.len());
            Test::Rejected
        } else {
            walking = false;
            Test::NotRejected
        };
        curve.push(CurvePoint {
            threshold,
            kept,
            coverage: kept as f64 / judged as f64,
            disagreements,
            agreement: 1.0 - disagreements as f64 / kept as f64,
            p_value,
            test,
        });
    }
    let at = chosen.map(|c| curve[c].clone());
    Threshold {
        threshold: at.as_ref().map(|p| p.threshold),
        judged,
        kept: at.as_ref().map_or(0, |p| p.kept),
        disagreements: at.as_ref().map_or(0, |p| p.disagreements),
        fewest_testable: fewest,
        start,
        curve: thinned(curve, chosen, judged),
    }
}

/// `curve` with at most about [`CURVE_POINTS`] points: the first point of each
/// 1/[`CURVE_POINTS`] of coverage, the last, the chosen one and the one that stopped the walk.
fn thinned(curve: Vec<CurvePoint>, chosen: Option<usize>, judged: usize) -> Vec<CurvePoint> {
    if curve.len() <= CURVE_POINTS {
        return curve;
    }
    let last = curve.len() - 1;
    let bucket = |p: &CurvePoint| p.kept * CURVE_POINTS / judged.max(1);
    let mut previous = None;
    curve
        .into_iter()
        .enumerate()
        .filter(|(i, p)| {
            let new_bucket = previous != Some(bucket(p));
            previous = Some(bucket(p));
            new_bucket || *i == last || Some(*i) == chosen || p.test == Test::NotRejected
        })
        .map(|(_, p)| p)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_cdf_equals_hand_sums() {
        // P(Bin(4, 0.25) ≤ 1) = 0.75⁴ + 4·0.25·0.75³ = 0.31640625 + 0.421875
        assert!((binomial_cdf(1, 4, 0.25) - 0.738_281_25).abs() < 1e-14);
        assert!((binomial_cdf(0, 10, 0.1) - 0.9_f64.powi(10)).abs() < 1e-14);
        assert_eq!(binomial_cdf(5, 5, 0.3), 1.0);
    }

    #[test]
    fn fewest_testable_is_the_first_n_a_perfect_judge_passes() {
        // (0.9)^21 = 0.1094 > 0.1, (0.9)^22 = 0.0985 ≤ 0.1
        assert_eq!(fewest_testable(0.1, 0.1), 22);
        // (0.85)^14 = 0.1028, (0.85)^15 = 0.0874
        assert_eq!(fewest_testable(0.15, 0.1), 15);
    }

    #[test]
    fn the_walk_keeps_the_last_rejected_threshold_and_stops_at_the_first_failure() {
        // 30 right answers at confidence 0.9, then 10 wrong at 0.8, then 200 right at 0.7:
        // λ = 0.9 passes (0.9^30 = 0.042 ≤ 0.1); λ = 0.8 keeps 40 with 10 wrong (fails);
        // λ = 0.7 would pass again (240 kept, 10 wrong) but the walk has stopped.
        let mut items = vec![(0.9, true); 30];
        items.extend(vec![(0.8, false); 10]);
        items.extend(vec![(0.7, true); 200]);
        let t = calibrate_threshold(&items, 0.1, 0.1, 0);
        assert_eq!(t.threshold, Some(0.9));
        assert_eq!((t.kept, t.disagreements, t.judged), (30, 0, 240));
        let tests: Vec<Test> = t.curve.iter().map(|p| p.test).collect();
        assert_eq!(tests, [Test::Rejected, Test::NotRejected, Test::Untested]);
        assert!(t.curve[2].p_value <= 0.1);
    }

    #[test]
    fn the_powered_start_lets_a_judge_twice_as_good_pass_half_the_time() {
        let n = powered_start(0.15, 0.1, 10_000);
        let median = (n as f64 * 0.075).floor() as usize;
        assert!(binomial_cdf(median, n, 0.15) <= 0.1);
        let earlier = ((n - 1) as f64 * 0.075).floor() as usize;
        assert!(binomial_cdf(earlier, n - 1, 0.15) > 0.1);
        assert!(n > fewest_testable(0.15, 0.1));
        // A tiny α: the search stops at the items there are.
        assert_eq!(powered_start(1e-9, 0.1, 500), 501);
        assert_eq!(powered_start(0.15, 0.1, 10), 11);
    }

    #[test]
    fn too_few_items_keep_nothing_and_ties_move_together() {
        let t = calibrate_threshold(&[(0.99, true); 21], 0.1, 0.1, 0);
        assert_eq!(t.threshold, None);
        assert_eq!(t.kept, 0);
        assert_eq!(t.curve[0].test, Test::TooFew);
        // 22 items tied at one confidence: one threshold, kept together.
        let t = calibrate_threshold(&[(0.5, true); 22], 0.1, 0.1, 0);
        assert_eq!((t.threshold, t.kept, t.curve.len()), (Some(0.5), 22, 1));
        assert!(calibrate_threshold(&[], 0.1, 0.1, 0).curve.is_empty());
    }

    #[test]
    fn a_long_curve_is_thinned_but_keeps_the_choice_and_the_stop() {
        // 1,000 distinct confidences, right down to 0.4, then wrong.
        let items: Vec<(f64, bool)> = (0..1000)
            .map(|i| (1.0 - f64::from(i) / 1000.0, i < 600))
            .collect();
        let t = calibrate_threshold(&items, 0.1, 0.1, 0);
        assert!(t.curve.len() <= CURVE_POINTS + 3, "{}", t.curve.len());
        assert!(t.curve.iter().any(|p| Some(p.threshold) == t.threshold));
        assert!(t.curve.iter().any(|p| p.test == Test::NotRejected));
        assert_eq!(t.curve.last().map(|p| p.kept), Some(1000));
        // Chosen: the last λ where P(Bin(n, 0.1) ≤ n − 600) ≤ 0.1.
        let n = t.kept;
        assert!(binomial_cdf(n - 600, n, 0.1) <= 0.1);
        assert!(binomial_cdf(n + 1 - 600, n + 1, 0.1) > 0.1);
    }
}
