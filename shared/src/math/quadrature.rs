//! Gauss–Hermite quadrature: nodes xᵢ and weights wᵢ with
//!
//! ```text
//! ∫ e^(−x²) f(x) dx ≈ Σᵢ wᵢ f(xᵢ),   exact for polynomials f of degree ≤ 2n − 1,
//! ```
//!
//! the physicists' convention of `numpy.polynomial.hermite.hermgauss`. The nodes are the
//! eigenvalues of the Golub–Welsch Jacobi matrix of the Hermite polynomials (zero diagonal,
//! off-diagonal √(k/2), k = 1 … n − 1), found one by one by Sturm-sequence bisection and then
//! polished by Newton's method on the orthonormal three-term recurrence
//!
//! ```text
//! p₀ = π^(−1/4),  p₁ = √2 x p₀,  pⱼ = x √(2/j) pⱼ₋₁ − √((j − 1)/j) pⱼ₋₂,   pₙ′ = √(2n) pₙ₋₁.
//! ```
//!
//! The weights are the Christoffel numbers wᵢ = 1 / Σ_{j<n} pⱼ(xᵢ)², a sum of positive terms
//! (no cancellation). Nodes and weights are symmetrised exactly (x₋ᵢ = −xᵢ).
//!
//! [`standard_normal`] rescales the rule to expectations under N(0, 1):
//! E f(θ) ≈ Σᵢ (wᵢ/√π) f(√2 xᵢ).
//!
//! Arguments: the number of nodes n, 1 ≤ n ≤ [`MAX_NODES`]. Returns: [`GaussHermite`], nodes
//! ascending. Errors: [`Error::InvalidParam`] for n outside that range (beyond it the
//! recurrence overflows f64 at the outermost nodes).

use crate::io::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The largest supported number of nodes.
pub const MAX_NODES: usize = 200;

/// A quadrature rule: nodes (ascending) and their weights.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GaussHermite {
    pub nodes: Vec<f64>,
    pub weights: Vec<f64>,
}

/// The n-point Gauss–Hermite rule for the weight e^(−x²).
///
/// # Errors
/// [`Error::InvalidParam`] when n is 0 or larger than [`MAX_NODES`].
pub fn gauss_hermite(n: usize) -> Result<GaussHermite> {
    if n == 0 || n > MAX_NODES {
        return Err(Error::param(
            "quadrature_nodes",
            format!("expected between 1 and {MAX_NODES} nodes, found {n}"),
        ));
    }
    let half = n / 2;
    // The roots of Hₙ lie in |x| < √(2n + 1); the k-th smallest eigenvalue is found by
    // bisection on the Sturm count, then refined by Newton on pₙ.
    let bound = (2.0 * n as f64 + 1.0).sqrt();
    let mut positive = Vec::with_capacity(half);
    for k in (n - half)..n {
        let root = newton_polish(n, bisect_eigenvalue(n, k, bound));
        positive.push(root);
    }
    let mut nodes = Vec::with_capacity(n);
    nodes.extend(positive.iter().rev().map(|x| -x));
    if n % 2 == 1 {
        nodes.push(0.0);
    }
    nodes.extend(positive.iter().copied());
    let weights = nodes.iter().map(|&x| christoffel_weight(n, x)).collect();
    Ok(GaussHermite { nodes, weights })
}

/// The n-point rule for expectations under the standard normal: nodes √2 xᵢ, weights wᵢ/√π
/// (summing to 1).
///
/// # Errors
/// As [`gauss_hermite`].
pub fn standard_normal(n: usize) -> Result<GaussHermite> {
    let rule = gauss_hermite(n)?;
    let scale = std::f64::consts::PI.sqrt();
    Ok(GaussHermite {
        nodes: rule
            .nodes
            .iter()
            .map(|x| x * std::f64::consts::SQRT_2)
            .collect(),
        weights: rule.weights.iter().map(|w| w / scale).collect(),
    })
}

/// Number of eigenvalues of the n × n Hermite Jacobi matrix below `x` (Sturm count of the
/// leading principal minors' ratios).
fn count_below(n: usize, x: f64) -> usize {
    let mut count = 0;
    let mut q = -x;
    for k in 0..n {
        if k > 0 {
            q = -x - (k as f64 / 2.0) / q;
        }
        if q == 0.0 {
            q = -f64::EPSILON * (1.0 + x.abs());
        }
        if q < 0.0 {
            count += 1;
        }
    }
    count
}

/// The k-th smallest (0-based) eigenvalue by bisection on [−bound, bound].
fn bisect_eigenvalue(n: usize, k: usize, bound: f64) -> f64 {
    let (mut lo, mut hi) = (-bound, bound);
    while hi - lo > 4.0 * f64::EPSILON * hi.abs().max(lo.abs()).max(1.0) {
        let mid = 0.5 * (lo + hi);
        if mid == lo || mid == hi {
            break;
        }
        if count_below(n, mid) > k {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Orthonormal pₙ(x) and pₙ₋₁(x).
fn orthonormal_pair(n: usize, x: f64) -> (f64, f64) {
    let mut previous = 0.0;
    let mut current = std::f64::consts::PI.powf(-0.25);
    for j in 1..=n {
        let jf = j as f64;
        let next = x * (2.0 / jf).sqrt() * current - ((jf - 1.0) / jf).sqrt() * previous;
        previous = current;
        current = next;
    }
    (current, previous)
}

/// Two Newton steps on pₙ from a bisection estimate accurate to a few ulps.
fn newton_polish(n: usize, mut x: f64) -> f64 {
    for _ in 0..2 {
        let (p, p_prev) = orthonormal_pair(n, x);
        let derivative = (2.0 * n as f64).sqrt() * p_prev;
        if derivative != 0.0 {
            x -= p / derivative;
        }
    }
    x
}

/// 1 / Σ_{j<n} pⱼ(x)².
fn christoffel_weight(n: usize, x: f64) -> f64 {
    let mut previous = 0.0;
    let mut current = std::f64::consts::PI.powf(-0.25);
    let mut sum = current * current;
    for j in 1..n {
        let jf = j as f64;
        let next = x * (2.0 / jf).sqrt() * current - ((jf - 1.0) / jf).sqrt() * previous;
        previous = current;
        current = next;
        sum += current * current;
    }
    1.0 / sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_and_three_point_rules_by_hand() {
        // H₂ = 4x² − 2: x = ±1/√2, w = √π/2.
        let r = gauss_hermite(2).unwrap();
        let s = std::f64::consts::PI.sqrt();
        assert!((r.nodes[1] - 0.5_f64.sqrt()).abs() < 1e-15);
        assert!((r.nodes[0] + r.nodes[1]).abs() == 0.0);
        assert!((r.weights[0] - s / 2.0).abs() < 1e-15);
        // H₃ = 8x³ − 12x: x ∈ {0, ±√(3/2)}, w = {2√π/3, √π/6}.
        let r = gauss_hermite(3).unwrap();
        assert_eq!(r.nodes[1], 0.0);
        assert!((r.nodes[2] - 1.5_f64.sqrt()).abs() < 1e-15);
        assert!((r.weights[1] - 2.0 * s / 3.0).abs() < 1e-15);
        assert!((r.weights[2] - s / 6.0).abs() < 1e-15);
    }

    #[test]
    fn standard_normal_rule_integrates_moments() {
        // E θ² = 1, E θ⁴ = 3, E θ⁶ = 15 exactly for n ≥ 4.
        let r = standard_normal(41).unwrap();
        let moment = |p: i32| -> f64 {
            r.nodes
                .iter()
                .zip(&r.weights)
                .map(|(x, w)| w * x.powi(p))
                .sum()
        };
        assert!((moment(0) - 1.0).abs() < 1e-13);
        assert!((moment(2) - 1.0).abs() < 1e-13);
        assert!((moment(4) - 3.0).abs() < 1e-12);
        assert!((moment(6) - 15.0).abs() < 1e-11);
    }

    #[test]
    fn rejects_zero_and_too_many_nodes() {
        assert!(gauss_hermite(0).is_err());
        assert!(gauss_hermite(MAX_NODES + 1).is_err());
        assert_eq!(gauss_hermite(1).unwrap().nodes, [0.0]);
    }
}
