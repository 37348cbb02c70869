//! The power-tuning weight λ of PPI++ (Angelopoulos, Duchi & Zrnic 2023, §6; ppi-python's
//! `_calc_lam_glm`, overall mode, clipped to [0, 1]): with `g` the loss gradients on the human
//! labels, `ĝ` on the judge's labels of the same items and `g̃` on the judge's labels of the
//! unlabelled items, all at the current estimate, and `H⁻¹` the inverse Hessian,
//!
//! λ = tr(H⁻¹ (Cov(g, ĝ) + Cov(ĝ, g)) H⁻¹) / (2 (1 + n/N) tr(H⁻¹ Var(ĝ ∪ g̃) H⁻¹)),
//!
//! the cross-covariance over the n labelled items (divided by n), the variance over all n + N
//! judge gradients (divided by n + N − 1).
//!
//! Arguments: the gradients' moments ([`TuningMoments`]) and `H⁻¹` (d × d). Returns: λ in
//! [0, 1]; 0 when the judge's gradients do not vary (the judge carries no information) or the
//! ratio is not a number.

use ndarray::Array2;

/// The gradients' second moments power tuning reads: `cross` = Cov(g, ĝ) + Cov(ĝ, g) over the
/// n labelled items (divided by n), `judge` = Var(ĝ ∪ g̃) over all n + N judge gradients
/// (divided by n + N − 1).
pub struct TuningMoments {
    pub cross: Array2<f64>,
    pub judge: Array2<f64>,
    /// n: the labelled items.
    pub labelled: usize,
    /// N: the unlabelled items.
    pub unlabelled: usize,
}

impl TuningMoments {
    /// The moments of one-dimensional gradients: `g` and `ĝ` on the labelled items, `g̃` on
    /// the unlabelled ones (a mean's).
    pub fn of_values(g: &[f64], g_hat: &[f64], g_unlabelled: &[f64]) -> Self {
        let mean = |v: &mut dyn Iterator<Item = &f64>| {
            let (sum, count) = v.fold((0.0, 0usize), |(s, c), x| (s + x, c + 1));
            sum / count as f64
        };
        let (mg, mh) = (mean(&mut g.iter()), mean(&mut g_hat.iter()));
        let cross: f64 = g.iter().zip(g_hat).map(|(a, b)| (a - mg) * (b - mh)).sum();
        let all = || g_hat.iter().chain(g_unlabelled);
        let m_all = mean(&mut all());
        let var: f64 = all().map(|v| (v - m_all).powi(2)).sum();
        let (n, big_n) = (g.len(), g_unlabelled.len());
        Self {
            cross: Array2::from_elem((1, 1), 2.0 * cross / n as f64),
            judge: Array2::from_elem((1, 1), var / ((n + big_n) as f64 - 1.0)),
            labelled: n,
            unlabelled: big_n,
        }
    }
}

/// The power-tuned λ.
pub fn power_tuned_lambda(moments: &TuningMoments, inv_hessian: &Array2<f64>) -> f64 {
    let (n, big_n) = (moments.labelled as f64, moments.unlabelled as f64);
    let trace = |m: &Array2<f64>| inv_hessian.dot(m).dot(inv_hessian).diag().sum();
    let lambda = trace(&moments.cross) / (2.0 * (1.0 + n / big_n) * trace(&moments.judge));
    if lambda.is_nan() {
        0.0
    } else {
        lambda.clamp(0.0, 1.0)
    }
}
