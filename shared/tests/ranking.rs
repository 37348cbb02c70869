//! CI-aware ranks on hand-made intervals (rank = 1 + #models whose lower bound exceeds this
//! upper bound, DESIGN §3). Runs natively and in headless Chromium.

use tribunal::math::resample::Interval;
use tribunal::rankings::ranking::{ci_aware_ranks, leaderboard_order, rank_ranges, RankRange};
use tribunal::Error;

fn ranges(pairs: &[(usize, usize)]) -> Vec<RankRange> {
    pairs
        .iter()
        .map(|&(rank, worst_rank)| RankRange { rank, worst_rank })
        .collect()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn disjoint_intervals_give_the_plain_ranks() {
    // Three separated intervals, listed out of order: each is outranked only by those above.
    let lower = [10.0, 30.0, 20.0];
    let upper = [15.0, 35.0, 25.0];
    assert_eq!(ci_aware_ranks(&lower, &upper).unwrap(), [3, 1, 2]);
    assert_eq!(
        rank_ranges(&lower, &upper).unwrap(),
        ranges(&[(3, 3), (1, 1), (2, 2)])
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn overlapping_intervals_share_ranks() {
    // A = [90, 110] overlaps B = [80, 100]; C = [50, 95] overlaps both; D = [0, 10] is below all.
    // A: nobody's lower bound exceeds 110 → rank 1; only D's upper bound (10) is below A's
    //    lower (90) → worst 4 − 1 = 3.
    // B: rank 1 (lowers 90, 80, 50, 0 are all ≤ 100); worst 3.
    // C: rank 1 (no lower bound > 95); worst 3 (D's upper 10 < 50).
    // D: lowers 90, 80 and 50 exceed 10 → rank 4; worst 4.
    let lower = [90.0, 80.0, 50.0, 0.0];
    let upper = [110.0, 100.0, 95.0, 10.0];
    assert_eq!(
        rank_ranges(&lower, &upper).unwrap(),
        ranges(&[(1, 3), (1, 3), (1, 3), (4, 4)])
    );
    // A chain: A = [8, 10], B = [5, 9], C = [1, 6]. B overlaps both, A and C are disjoint.
    // C: A's lower 8 > 6 → rank 2; A: C's upper 6 < 8 → worst 2.
    let r = rank_ranges(&[8.0, 5.0, 1.0], &[10.0, 9.0, 6.0]).unwrap();
    assert_eq!(r, ranges(&[(1, 2), (1, 3), (2, 3)]));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn identical_and_touching_intervals_tie() {
    // Identical intervals tie at rank 1; touching at a point (upper = other's lower) is overlap.
    assert_eq!(ci_aware_ranks(&[1.0, 1.0], &[2.0, 2.0]).unwrap(), [1, 1]);
    assert_eq!(ci_aware_ranks(&[2.0, 1.0], &[3.0, 2.0]).unwrap(), [1, 1]);
    // Degenerate point intervals behave like plain ranks with ties sharing the best rank.
    let points = [5.0, 7.0, 5.0, 1.0];
    assert_eq!(ci_aware_ranks(&points, &points).unwrap(), [2, 1, 2, 4]);
    assert_eq!(
        rank_ranges(&points, &points).unwrap(),
        ranges(&[(2, 3), (1, 1), (2, 3), (4, 4)])
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn intervals_and_row_order() {
    let interval = |estimate: f64, lower: f64, upper: f64| Interval {
        estimate,
        lower,
        upper,
        se: 1.0,
        level: 0.95,
        valid_rounds: 100,
    };
    let intervals = [
        interval(1500.0, 1480.0, 1520.0),
        interval(1600.0, 1570.0, 1630.0),
        interval(1510.0, 1490.0, 1530.0),
    ];
    let lower: Vec<f64> = intervals.iter().map(|i| i.lower).collect();
    let upper: Vec<f64> = intervals.iter().map(|i| i.upper).collect();
    assert_eq!(
        rank_ranges(&lower, &upper).unwrap(),
        ranges(&[(2, 3), (1, 1), (2, 3)])
    );
    let names: Vec<String> = ["x", "y", "z"].iter().map(|s| s.to_string()).collect();
    let estimates: Vec<f64> = intervals.iter().map(|i| i.estimate).collect();
    assert_eq!(leaderboard_order(&estimates, &names), [1, 2, 0]);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn invalid_intervals_are_rejected() {
    for (lower, upper) in [
        (vec![1.0, 2.0], vec![3.0]),
        (vec![3.0], vec![1.0]),
        (vec![f64::NAN], vec![1.0]),
        (vec![0.0], vec![f64::NAN]),
    ] {
        assert!(matches!(
            rank_ranges(&lower, &upper),
            Err(Error::InvalidParam { .. })
        ));
    }
    // An unbounded side (a separated model) is an infinite bound: the top model's interval
    // [5, ∞) is above (−∞, 1]; the middle [0, 2] overlaps neither end's open side.
    let ranks = rank_ranges(&[5.0, 0.0, f64::NEG_INFINITY], &[f64::INFINITY, 2.0, 1.0]).unwrap();
    let got: Vec<(usize, usize)> = ranks.iter().map(|r| (r.rank, r.worst_rank)).collect();
    assert_eq!(got, [(1, 1), (2, 3), (2, 3)]);
    assert_eq!(ci_aware_ranks(&[], &[]).unwrap(), Vec::<usize>::new());
}
