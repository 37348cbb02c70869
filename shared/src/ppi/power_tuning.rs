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
//! Arguments: the gradients as rows (n × d, n × d, N × d) and `H⁻¹` (d × d). Returns: λ in
//! [0, 1]; 0 when the judge's gradients do not vary (the judge carries no information) or the
//! ratio is not a number.

use ndarray::{Array2, Axis};

/// Rows minus their column means.
fn centred(rows: &Array2<f64>) -> Array2<f64> {
    match rows.mean_axis(Axis(0)) {
        Some(mean) => rows - &mean,
        None => rows.clone(),
    }
}

/// The power-tuned λ.
pub fn power_tuned_lambda(
    grads: &Array2<f64>,
    grads_hat: &Array2<f64>,
    grads_hat_unlabelled: &Array2<f64>,
    inv_hessian: &Array2<f64>,
) -> f64 {
    let n = grads.nrows() as f64;
    let big_n = grads_hat_unlabelled.nrows() as f64;
    let (g, gh) = (centred(grads), centred(grads_hat));
    let cov = (g.t().dot(&gh) + gh.t().dot(&g)) / n;
    let all = ndarray::concatenate(Axis(0), &[grads_hat.view(), grads_hat_unlabelled.view()])
        .unwrap_or_else(|_| grads_hat.clone());
    let all_c = centred(&all);
    let var = all_c.t().dot(&all_c) / (all.nrows() as f64 - 1.0);
    let trace = |m: &Array2<f64>| inv_hessian.dot(m).dot(inv_hessian).diag().sum();
    let lambda = trace(&cov) / (2.0 * (1.0 + n / big_n) * trace(&var));
    if lambda.is_nan() {
        0.0
    } else {
        lambda.clamp(0.0, 1.0)
    }
}
