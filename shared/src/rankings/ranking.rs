//! Ranks that respect uncertainty intervals (DESIGN §3, "CI-aware rank").
//!
//! Model: model *i* with interval [lᵢ, uᵢ] is outranked only by models whose whole interval lies
//! above it, so
//!
//! ```text
//! rankᵢ       = 1 + #{ j : lⱼ > uᵢ }          (best rank the intervals allow)
//! worst_rankᵢ = m − #{ j : uⱼ < lᵢ }          (worst rank the intervals allow)
//! ```
//!
//! Models whose intervals overlap share ranks; a model separated from all others gets a single
//! rank (`rank == worst_rank`). Both counts are taken over sorted bounds, O(m log m).
//!
//! Arguments: lower and upper bounds, one pair per model (any scale, e.g. Elo). Returns: a [`RankRange`] per model, in input order; [`leaderboard_order`] gives
//! the order in which to show the rows. An unbounded side (a separated model,
//! [`crate::rankings::separation`]) is an infinite bound: −∞ below, +∞ above. Errors:
//! [`Error::InvalidParam`] when the slices differ in length, a bound is NaN, or a lower bound
//! exceeds its upper bound.

use crate::io::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The ranks a model can take given everyone's intervals (1 is best).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankRange {
    /// CI-aware rank: 1 + the number of models whose lower bound exceeds this upper bound.
    pub rank: usize,
    /// m − the number of models whose upper bound is below this lower bound.
    pub worst_rank: usize,
}

/// CI-aware ranks, rankᵢ = 1 + #{ j : lⱼ > uᵢ }, in input order.
///
/// # Errors
/// As [`rank_ranges`].
pub fn ci_aware_ranks(lower: &[f64], upper: &[f64]) -> Result<Vec<usize>> {
    Ok(rank_ranges(lower, upper)?
        .into_iter()
        .map(|r| r.rank)
        .collect())
}

/// Best (CI-aware) and worst ranks allowed by the intervals, in input order.
///
/// # Errors
/// [`Error::InvalidParam`] for slices of different lengths, a NaN bound, or a lower bound above
/// its upper bound.
pub fn rank_ranges(lower: &[f64], upper: &[f64]) -> Result<Vec<RankRange>> {
    if lower.len() != upper.len() {
        return Err(Error::param(
            "upper",
            format!(
                "expected one upper bound per lower bound ({}), found {}",
                lower.len(),
                upper.len()
            ),
        ));
    }
    for (k, (&l, &u)) in lower.iter().zip(upper).enumerate() {
        if l.is_nan() || u.is_nan() {
            return Err(Error::param(
                "lower",
                format!("interval {k}: expected numbers as bounds, found [{l}, {u}]"),
            ));
        }
        if l > u {
            return Err(Error::param(
                "lower",
                format!("interval {k}: expected lower ≤ upper, found [{l}, {u}]"),
            ));
        }
    }
    let m = lower.len();
    let mut lows = lower.to_vec();
    lows.sort_by(f64::total_cmp);
    let mut ups = upper.to_vec();
    ups.sort_by(f64::total_cmp);
    Ok(lower
        .iter()
        .zip(upper)
        .map(|(&l, &u)| {
            let above = m - lows.partition_point(|&x| x <= u);
            let below = ups.partition_point(|&x| x < l);
            RankRange {
                rank: 1 + above,
                worst_rank: m - below,
            }
        })
        .collect())
}

/// Row order of a leaderboard: indices sorted by estimate, highest first, ties broken by name
/// (the order of [`crate::rankings::leaderboard`]).
pub fn leaderboard_order(estimates: &[f64], names: &[String]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..estimates.len()).collect();
    order.sort_by(|&i, &j| {
        estimates[j]
            .total_cmp(&estimates[i])
            .then_with(|| names.get(i).cmp(&names.get(j)))
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundary_touching_is_overlap() {
        // [1, 2] and [2, 3] share the point 2: neither lower bound exceeds the other's upper.
        let r = rank_ranges(&[2.0, 1.0], &[3.0, 2.0]).unwrap();
        assert_eq!(
            r[0],
            RankRange {
                rank: 1,
                worst_rank: 2
            }
        );
        assert_eq!(
            r[1],
            RankRange {
                rank: 1,
                worst_rank: 2
            }
        );
    }

    #[test]
    fn order_breaks_ties_by_name() {
        let names: Vec<String> = ["b", "a", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(leaderboard_order(&[1.0, 1.0, 2.0], &names), [2, 1, 0]);
    }
}
