//! Correlation coefficients: Pearson r, Spearman ρ (Pearson on average ranks) and Kendall τ-b
//! (tie-corrected, O(n log n) by counting discordant pairs with a merge sort); and
//! [`tie_rounding_differences`], which makes fitted ratings equal up to rounding equal before
//! they are ranked.
//!
//! Arguments: two equally long slices. Returns: the coefficient, or NaN when it is undefined
//! (fewer than two pairs, or a constant variable), which callers report as a warning.
//! Errors: [`Error::InvalidParam`] when the lengths differ or a value is not finite.

use crate::io::error::{Error, Result};

fn check(x: &[f64], y: &[f64]) -> Result<()> {
    if x.len() != y.len() {
        return Err(Error::param(
            "y",
            format!("expected {} values like x, found {}", x.len(), y.len()),
        ));
    }
    if x.iter().chain(y).any(|v| !v.is_finite()) {
        return Err(Error::param("x", "every value must be a finite number"));
    }
    Ok(())
}

/// Pearson's product-moment correlation.
pub fn pearson(x: &[f64], y: &[f64]) -> Result<f64> {
    check(x, y)?;
    let n = x.len();
    if n < 2 {
        return Ok(f64::NAN);
    }
    let mx = x.iter().sum::<f64>() / n as f64;
    let my = y.iter().sum::<f64>() / n as f64;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        let (dx, dy) = (a - mx, b - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx == 0.0 || syy == 0.0 {
        return Ok(f64::NAN);
    }
    Ok((sxy / (sxx.sqrt() * syy.sqrt())).clamp(-1.0, 1.0))
}

/// Ranks from 1, ties sharing their average rank.
pub fn average_ranks(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut ranks = vec![0.0; x.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && x[order[end]] == x[order[start]] {
            end += 1;
        }
        let rank = (start + end + 1) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        start = end;
    }
    ranks
}

/// `x` with values equal up to rounding made equal: sorted, each value within `1e-9·(1 + |v|)`
/// of its tie group's first value takes that value. Ratings that should be equal (models with
/// the same record) come out of a fit equal only up to the last bits, and which bits differs
/// between machines (native and WebAssembly `exp`); the rank statistics must count them tied
/// on every machine.
pub fn tie_rounding_differences(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut tied = x.to_vec();
    let mut first = f64::NAN;
    for &i in &order {
        if (x[i] - first).abs() <= 1e-9 * (1.0 + first.abs()) {
            tied[i] = first;
        } else {
            first = x[i];
        }
    }
    tied
}

/// Spearman's rank correlation: Pearson's r of the average ranks.
pub fn spearman(x: &[f64], y: &[f64]) -> Result<f64> {
    check(x, y)?;
    pearson(&average_ranks(x), &average_ranks(y))
}

/// Kendall's τ-b: (concordant − discordant) / √((n₀ − n₁)(n₀ − n₂)), with n₀ = n(n−1)/2 and
/// n₁, n₂ the pairs tied in x and in y.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Result<f64> {
    check(x, y)?;
    let n = x.len();
    if n < 2 {
        return Ok(f64::NAN);
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]).then(y[a].total_cmp(&y[b])));
    let xs: Vec<f64> = order.iter().map(|&i| x[i]).collect();
    let mut ys: Vec<f64> = order.iter().map(|&i| y[i]).collect();

    let tied_pairs = |runs: &mut dyn Iterator<Item = bool>| -> u64 {
        // `runs` yields, for each position after the first, whether it continues a tie run.
        let (mut total, mut run) = (0u64, 1u64);
        for same in runs {
            if same {
                run += 1;
            } else {
                total += run * (run - 1) / 2;
                run = 1;
            }
        }
        total + run * (run - 1) / 2
    };
    let x_ties = tied_pairs(&mut xs.windows(2).map(|w| w[0] == w[1]));
    let joint_ties = tied_pairs(&mut (1..n).map(|i| xs[i] == xs[i - 1] && ys[i] == ys[i - 1]));
    let discordant = count_inversions(&mut ys);
    let y_ties = tied_pairs(&mut ys.windows(2).map(|w| w[0] == w[1]));

    let total = (n as u64) * (n as u64 - 1) / 2;
    let concordant_minus_discordant =
        total as f64 - x_ties as f64 - y_ties as f64 + joint_ties as f64 - 2.0 * discordant as f64;
    let denominator = ((total - x_ties) as f64).sqrt() * ((total - y_ties) as f64).sqrt();
    if denominator == 0.0 {
        return Ok(f64::NAN);
    }
    Ok((concordant_minus_discordant / denominator).clamp(-1.0, 1.0))
}

/// Sorts `v` ascending and returns the number of strict inversions (i < j, v[i] > v[j]).
fn count_inversions(v: &mut [f64]) -> u64 {
    let n = v.len();
    let mut buffer = v.to_vec();
    let mut inversions = 0u64;
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j, mut k) = (lo, mid, lo);
            while i < mid && j < hi {
                if v[j] < v[i] {
                    inversions += (mid - i) as u64;
                    buffer[k] = v[j];
                    j += 1;
                } else {
                    buffer[k] = v[i];
                    i += 1;
                }
                k += 1;
            }
            buffer[k..k + mid - i].copy_from_slice(&v[i..mid]);
            k += mid - i;
            buffer[k..k + hi - j].copy_from_slice(&v[j..hi]);
            lo = hi;
        }
        v.copy_from_slice(&buffer);
        width *= 2;
    }
    inversions
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_tau_b(x: &[f64], y: &[f64]) -> f64 {
        let (mut s, mut tx, mut ty, mut t) = (0.0, 0.0, 0.0, 0.0);
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                let dx = (x[i] - x[j]).signum() * f64::from(u8::from(x[i] != x[j]));
                let dy = (y[i] - y[j]).signum() * f64::from(u8::from(y[i] != y[j]));
                s += dx * dy;
                t += 1.0;
                tx += f64::from(u8::from(x[i] == x[j]));
                ty += f64::from(u8::from(y[i] == y[j]));
            }
        }
        s / ((t - tx) * (t - ty)).sqrt()
    }

    #[test]
    fn hand_cases() {
        assert!((pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]).unwrap() - 1.0).abs() < 1e-15);
        assert_eq!(
            average_ranks(&[10.0, 20.0, 10.0, 5.0]),
            [2.5, 4.0, 2.5, 1.0]
        );
        // Perfectly reversed ranks.
        assert!((spearman(&[1.0, 2.0, 3.0], &[9.0, 4.0, 1.0]).unwrap() + 1.0).abs() < 1e-15);
        assert!(pearson(&[1.0, 1.0], &[1.0, 2.0]).unwrap().is_nan());
        assert!(kendall_tau_b(&[1.0], &[1.0]).unwrap().is_nan());
        assert!(pearson(&[1.0], &[1.0, 2.0]).is_err());
        assert!(spearman(&[f64::NAN, 1.0], &[1.0, 2.0]).is_err());
    }

    /// Ratings a bit apart are one tie, whichever got the larger bits, and a value 1e-5 away
    /// (relative 6e-9) is not: the rank statistics then agree on either machine's bits.
    #[test]
    fn ratings_equal_up_to_rounding_are_tied() {
        let a = 1766.4267584379888_f64;
        let next = f64::from_bits(a.to_bits() + 1);
        assert_eq!(
            tie_rounding_differences(&[next, 1500.0, a, a, a + 1e-5]),
            [a, 1500.0, a, a, a + 1e-5]
        );
        let y = [1.0, 2.0, 3.0];
        let (here, there) = ([a, next, 1500.0], [next, a, 1500.0]);
        // Untied, the last bit turns a concordant pair into a discordant one: −1/3 against −1.
        assert!((kendall_tau_b(&here, &y).unwrap() + 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(kendall_tau_b(&there, &y).unwrap(), -1.0);
        // Tied: −2/√6 on both.
        for x in [here, there] {
            let tau = kendall_tau_b(&tie_rounding_differences(&x), &y).unwrap();
            assert!((tau + 2.0 / 6f64.sqrt()).abs() < 1e-15, "{tau}");
        }
    }

    #[test]
    fn kendall_equals_the_quadratic_definition_with_ties() {
        let x = [1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 4.0, 5.0, 1.0, 3.0];
        let y = [2.0, 1.0, 2.0, 2.0, 5.0, 3.0, 3.0, 1.0, 4.0, 4.0];
        let fast = kendall_tau_b(&x, &y).unwrap();
        assert!((fast - brute_tau_b(&x, &y)).abs() < 1e-15, "{fast}");
    }
}
