//! Penalised GLM fitting shared by the calibration heads (seed 000 §4). Every head minimises
//!
//! ```text
//! L(w) = Σ_t ℓ_t(w) + γ Σ_{j penalised} w_j²
//! ```
//!
//! the seed's regularised loss `Σ_t loss_t + γ‖θ‖²` with the population biases c unpenalised,
//! for a smooth convex data loss ℓ (logistic, softmax or Plackett–Luce; the squared loss is
//! solved in closed form by `ls_head` and only evaluated here).
//!
//! Solver: L-BFGS (Nocedal & Wright, *Numerical Optimization*, Alg. 7.4–7.5) with memory m,
//! deterministic. The line search backtracks by safeguarded quadratic interpolation and accepts
//! a step t along d on the Armijo condition L(w + t d) ≤ L(w) + c₁ t ∇L·d, or, once decreases
//! fall below rounding, on Hager and Zhang's approximate Wolfe condition
//! ∇L(w + t d)·d ≤ (2c₁ − 1) ∇L(w)·d with L(w + t d) ≤ L(w) + 10⁻¹⁰|L(w)|. A fit has converged
//! when max_j |∂L/∂w_j| ≤ tol · n for n training units (rows, pairs or lists), i.e. the gradient
//! of the mean loss is within `tol` of 0.
//!
//! Base-judge start: on a grid of γ, solved from the largest down, each fit starts at the
//! better of the base-judge identity (θ = 0_d ⊕ 1, c = 0) and the previous γ's optimum, and
//! returns its start if rounding ever left it worse (a closed-form fit likewise falls back to
//! the identity), so the fitted objective never exceeds the identity's. [`FitReport`] records
//! both.
//!
//! Row-space reduction (N rows < d columns). Stationarity in an unpenalised intercept gives
//! Σ_t r_t = 0, so 2γθ = −Σ_t r_t φ_t lies in the row space of the centred block E_c. With
//! K = E_c E_cᵀ + 11ᵀ = L Lᵀ (Cholesky; K is positive definite when the rows are affinely
//! independent) and a = L⁻ᵀβ, the map θ = E_cᵀ a gives E_c θ = Lβ − 1·Σa and
//! ‖θ‖² = ‖β‖² − (Σa)². So the N-column design L, with the same free intercept or a loss that
//! ignores a common shift, has the same optimum: at it Σa = 0 and the penalties agree. A loss
//! evaluation then costs O(N) per row instead of O(d), after one O(N²d) Gram. When K is not positive
//! definite (repeated rows) the block is used as it is.
//!
//! Errors: [`Error::InvalidParam`] for invalid [`SolverParams`] or γ ≤ 0 (checked by the heads
//! before fitting).

use crate::io::checks::{at_least_one, positive};
use crate::io::error::{Error, Result};
use crate::math::linalg::cholesky;
use ndarray::{s, Array1, Array2, ArrayBase, ArrayView1, Axis, Data, Ix2};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Settings of the L-BFGS solver.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SolverParams {
    /// Most iterations per γ.
    pub max_iter: usize,
    /// Converged when every |∂(L/n)/∂w_j| ≤ tol.
    pub tol: f64,
    /// Correction pairs kept (m).
    pub memory: usize,
}

impl Default for SolverParams {
    fn default() -> Self {
        Self {
            max_iter: 5000,
            tol: 1e-9,
            memory: 10,
        }
    }
}

impl SolverParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        at_least_one("max_iter", self.max_iter)?;
        positive("tol", self.tol)?;
        at_least_one("memory", self.memory)?;
        Ok(())
    }
}

/// Checks a regularisation strength γ: finite and > 0 (seed 000 §4: γ > 0).
pub fn check_gamma(gamma: f64) -> Result<()> {
    if gamma > 0.0 && gamma.is_finite() {
        Ok(())
    } else {
        Err(Error::param(
            "gamma",
            format!("must be a finite number > 0, found {gamma}"),
        ))
    }
}

/// How a head's penalised fit went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitReport {
    /// Training units (rows, pairs or lists).
    pub n_train: usize,
    /// Penalised training loss L at the fitted parameters.
    pub objective: f64,
    /// L at the base-judge identity θ = 0_d ⊕ 1, c = 0; `objective` never exceeds it.
    pub identity_objective: f64,
    /// Solver iterations (0 for a closed-form fit).
    pub iterations: usize,
    pub converged: bool,
    /// max_j |∂(L/n)/∂w_j| at the fitted parameters.
    pub max_abs_gradient: f64,
    /// Whether the embedding block was reduced to its row space (more dimensions than rows).
    pub row_space: bool,
}

/// A data loss Σ_t ℓ_t(w) of a head, without the penalty.
pub(crate) trait Loss {
    /// Training units n (for the tolerance).
    fn units(&self) -> usize;
    /// Whether parameter `j` carries the L2 penalty (population biases do not).
    fn is_penalised(&self, j: usize) -> bool;
    /// The loss at `w`; overwrites `grad` with its gradient.
    fn value_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64;
}

/// The penalised objective L(w) and its gradient.
pub(crate) fn objective(loss: &impl Loss, gamma: f64, w: &[f64], grad: &mut [f64]) -> f64 {
    let mut value = loss.value_gradient(w, grad);
    for (j, (g, &wj)) in grad.iter_mut().zip(w).enumerate() {
        if loss.is_penalised(j) {
            value += gamma * wj * wj;
            *g += 2.0 * gamma * wj;
        }
    }
    value
}

/// The base-judge identity point and its data loss, so that its objective at any γ costs
/// nothing more.
pub(crate) struct Identity {
    pub w: Vec<f64>,
    loss: f64,
    penalty: f64,
}

impl Identity {
    pub(crate) fn new(loss: &impl Loss, w: Vec<f64>) -> Self {
        let mut grad = vec![0.0; w.len()];
        let value = loss.value_gradient(&w, &mut grad);
        let penalty = w
            .iter()
            .enumerate()
            .filter(|&(j, _)| loss.is_penalised(j))
            .map(|(_, v)| v * v)
            .sum();
        Self {
            w,
            loss: value,
            penalty,
        }
    }

    /// L at the identity for this γ.
    pub(crate) fn objective(&self, gamma: f64) -> f64 {
        self.loss + gamma * self.penalty
    }
}

/// The solution for parameters `w` found without iterating (a closed form), or the identity
/// if rounding left `w` worse than it.
pub(crate) fn closed_form(
    loss: &impl Loss,
    gamma: f64,
    w: Vec<f64>,
    identity: &Identity,
    row_space: bool,
) -> Solution {
    let mut grad = vec![0.0; w.len()];
    let mut value = objective(loss, gamma, &w, &mut grad);
    let identity_objective = identity.objective(gamma);
    let w = if value > identity_objective {
        value = objective(loss, gamma, &identity.w, &mut grad);
        identity.w.clone()
    } else {
        w
    };
    let units = loss.units().max(1) as f64;
    Solution {
        w,
        report: FitReport {
            n_train: loss.units(),
            objective: value,
            identity_objective,
            iterations: 0,
            converged: true,
            max_abs_gradient: max_abs(&grad) / units,
            row_space,
        },
    }
}

/// Fitted parameters and their report.
pub(crate) struct Solution {
    pub w: Vec<f64>,
    pub report: FitReport,
}

/// Minimises L for every γ in `gammas` (results in the same order), warm-starting down the
/// grid from the base-judge `identity`.
pub(crate) fn solve_path(
    loss: &impl Loss,
    identity: Vec<f64>,
    gammas: &[f64],
    solver: &SolverParams,
    row_space: bool,
) -> Vec<Solution> {
    let identity = Identity::new(loss, identity);
    let mut order: Vec<usize> = (0..gammas.len()).collect();
    order.sort_by(|&a, &b| gammas[b].total_cmp(&gammas[a]));
    let mut solved: Vec<(usize, Solution)> = Vec::with_capacity(gammas.len());
    let mut previous: Option<Vec<f64>> = None;
    let mut scratch = vec![0.0; identity.w.len()];
    let units = loss.units().max(1) as f64;
    for k in order {
        let gamma = gammas[k];
        let identity_objective = identity.objective(gamma);
        let start = match previous.take() {
            Some(w) if objective(loss, gamma, &w, &mut scratch) < identity_objective => w,
            _ => identity.w.clone(),
        };
        let (point, iterations) = lbfgs(loss, gamma, start, solver);
        let gmax = max_abs(&point.g);
        let report = FitReport {
            n_train: loss.units(),
            objective: point.f,
            identity_objective,
            iterations,
            converged: gmax <= solver.tol * units,
            max_abs_gradient: gmax / units,
            row_space,
        };
        previous = Some(point.x.clone());
        solved.push((k, Solution { w: point.x, report }));
    }
    solved.sort_by_key(|(k, _)| *k);
    solved.into_iter().map(|(_, s)| s).collect()
}

#[derive(Clone)]
struct Point {
    x: Vec<f64>,
    f: f64,
    g: Vec<f64>,
}

/// L-BFGS from `start`; returns the final point (or the start, if rounding left the final
/// point worse) and the iterations taken.
fn lbfgs(loss: &impl Loss, gamma: f64, start: Vec<f64>, solver: &SolverParams) -> (Point, usize) {
    let tol = solver.tol * loss.units().max(1) as f64;
    let mut g = vec![0.0; start.len()];
    let f = objective(loss, gamma, &start, &mut g);
    let first = Point { x: start, f, g };
    let mut current = first.clone();
    let mut pairs: VecDeque<(Vec<f64>, Vec<f64>, f64)> = VecDeque::with_capacity(solver.memory);
    let mut iterations = 0;
    while iterations < solver.max_iter && max_abs(&current.g) > tol {
        let mut d = direction(&current.g, &pairs);
        let mut slope = dot(&current.g, &d);
        if slope >= 0.0 || !slope.is_finite() {
            pairs.clear();
            d = direction(&current.g, &pairs);
            slope = dot(&current.g, &d);
        }
        let Some(next) = line_search(loss, gamma, &current, &d, slope) else {
            break;
        };
        iterations += 1;
        let s: Vec<f64> = next.x.iter().zip(&current.x).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = next.g.iter().zip(&current.g).map(|(a, b)| a - b).collect();
        let sy = dot(&s, &y);
        if sy > 0.0 {
            if pairs.len() == solver.memory {
                pairs.pop_front();
            }
            pairs.push_back((s, y, 1.0 / sy));
        }
        current = next;
    }
    if current.f > first.f {
        (first, iterations)
    } else {
        (current, iterations)
    }
}

/// −H∇L by the two-loop recursion; with no pairs, the steepest-descent step of unit length.
fn direction(g: &[f64], pairs: &VecDeque<(Vec<f64>, Vec<f64>, f64)>) -> Vec<f64> {
    let mut q = g.to_vec();
    let mut alpha = vec![0.0; pairs.len()];
    for (k, (s, y, rho)) in pairs.iter().enumerate().rev() {
        alpha[k] = rho * dot(s, &q);
        axpy(-alpha[k], y, &mut q);
    }
    let scale = match pairs.back() {
        Some((s, y, _)) => dot(s, y) / dot(y, y),
        None => 1.0 / dot(g, g).sqrt(),
    };
    q.iter_mut().for_each(|v| *v *= scale);
    for (k, (s, y, rho)) in pairs.iter().enumerate() {
        let beta = rho * dot(y, &q);
        axpy(alpha[k] - beta, s, &mut q);
    }
    q.iter_mut().for_each(|v| *v = -*v);
    q
}

fn line_search(loss: &impl Loss, gamma: f64, from: &Point, d: &[f64], slope: f64) -> Option<Point> {
    const C1: f64 = 1e-4;
    const ROUNDING: f64 = 1e-10;
    const TRIALS: usize = 60;
    let mut t = 1.0;
    let mut x = from.x.clone();
    let mut g = vec![0.0; x.len()];
    for _ in 0..TRIALS {
        for ((xj, &x0), &dj) in x.iter_mut().zip(&from.x).zip(d) {
            *xj = x0 + t * dj;
        }
        let f = objective(loss, gamma, &x, &mut g);
        if f.is_finite() {
            let armijo = f <= from.f + C1 * t * slope;
            let approximate =
                f <= from.f + ROUNDING * from.f.abs() && dot(&g, d) <= (2.0 * C1 - 1.0) * slope;
            if armijo || approximate {
                return Some(Point { x, f, g });
            }
            // Minimiser of the quadratic through L(0), L'(0) and L(t); positive because the
            // Armijo test failed.
            let curvature = f - from.f - slope * t;
            t = (-slope * t * t / (2.0 * curvature)).clamp(0.1 * t, 0.5 * t);
        } else {
            t *= 0.1;
        }
    }
    None
}

/// The embedding block of a design: kept, or reduced to its row space.
pub(crate) enum Block {
    Full(Array2<f64>),
    RowSpace(RowSpace),
}

/// The reduction of the module documentation: the centred block E_c, its column means and
/// L with L Lᵀ = E_c E_cᵀ + 11ᵀ.
pub(crate) struct RowSpace {
    centred: Array2<f64>,
    mean: Array1<f64>,
    factor: Array2<f64>,
}

impl Block {
    /// Reduces `e` to its row space when it has fewer rows than columns and the reduction
    /// exists; otherwise keeps it.
    pub(crate) fn new(e: Array2<f64>) -> Self {
        let (n, d) = e.dim();
        if n == 0 || n >= d {
            return Self::Full(e);
        }
        let Some(mean) = e.mean_axis(Axis(0)) else {
            return Self::Full(e);
        };
        let centred = &e - &mean;
        let mut k = centred.dot(&centred.t());
        k += 1.0;
        match cholesky(&k) {
            Some(factor) => Self::RowSpace(RowSpace {
                centred,
                mean,
                factor,
            }),
            None => Self::Full(e),
        }
    }

    /// The matrix the solver fits: the block itself, or L.
    pub(crate) fn design(&self) -> &Array2<f64> {
        match self {
            Self::Full(e) => e,
            Self::RowSpace(r) => &r.factor,
        }
    }

    pub(crate) fn is_reduced(&self) -> bool {
        matches!(self, Self::RowSpace(_))
    }

    /// Maps weights fitted on [`Block::design`] to embedding weights θ, with the shift to add
    /// to the intercept so that scores on the original rows are unchanged.
    pub(crate) fn weights(&self, beta: &[f64]) -> (Vec<f64>, f64) {
        match self {
            Self::Full(_) => (beta.to_vec(), 0.0),
            Self::RowSpace(r) => {
                let n = beta.len();
                let mut a = vec![0.0; n];
                for i in (0..n).rev() {
                    let s: f64 = (i + 1..n).map(|k| r.factor[[k, i]] * a[k]).sum();
                    a[i] = (beta[i] - s) / r.factor[[i, i]];
                }
                let theta = transpose_times(&r.centred, &a);
                let shift = a.iter().sum::<f64>() - r.mean.dot(&theta);
                (theta.to_vec(), shift)
            }
        }
    }
}

/// xᵀv = Σ_i v_i x_i, by rows (contiguous, so it vectorises).
pub(crate) fn transpose_times(x: &Array2<f64>, v: &[f64]) -> Array1<f64> {
    let mut out = Array1::zeros(x.ncols());
    for (row, &vi) in x.rows().into_iter().zip(v) {
        out.scaled_add(vi, &row);
    }
    out
}

/// Rows of the kernels below taken together: each value of the vector is loaded once per
/// block of rows instead of once per row, which is what bounds a matrix–vector product.
const ROWS: usize = 4;

/// The products x_kᵀw of a block of rows, with four independent sums per row that the compiler
/// keeps in vector registers.
fn block_dots(rows: [&[f64]; ROWS], w: &[f64]) -> [f64; ROWS] {
    let mut acc = [[0.0; 4]; ROWS];
    let (w4, w_tail) = w.as_chunks::<4>();
    let chunks = rows.map(|r| r.as_chunks::<4>().0);
    for (j, wj) in w4.iter().enumerate() {
        for (a, row) in acc.iter_mut().zip(&chunks) {
            let x = &row[j];
            for l in 0..4 {
                a[l] += x[l] * wj[l];
            }
        }
    }
    let start = w.len() - w_tail.len();
    let mut out = [0.0; ROWS];
    for ((o, a), row) in out.iter_mut().zip(&acc).zip(rows) {
        let tail: f64 = row[start..].iter().zip(w_tail).map(|(x, y)| x * y).sum();
        *o = (a[0] + a[2]) + (a[1] + a[3]) + tail;
    }
    out
}

/// A Aᵀ for a matrix A of m rows (the Gram of its rows), m × m and symmetric: the lower
/// triangle is computed and the upper is its mirror, about half the multiply-adds of a
/// general product. Natively by panels of rows through ndarray's general product
/// (matrixmultiply, vectorised for the CPU it runs on); in WASM, where that product runs a
/// scalar kernel, each entry is the dot of two rows, four rows at a time ([`block_dots`]),
/// which is several times faster there. The two differ only in the order of additions.
pub(crate) fn outer_gram<S: Data<Elem = f64>>(a: &ArrayBase<S, Ix2>) -> Array2<f64> {
    let m = a.nrows();
    let mut g = Array2::zeros((m, m));
    if cfg!(target_arch = "wasm32") {
        lower_gram_by_rows(a, &mut g);
    } else {
        lower_gram_by_panels(a, &mut g);
    }
    for i in 0..m {
        for j in 0..i {
            g[[j, i]] = g[[i, j]];
        }
    }
    g
}

/// Fills at least the lower triangle of `g` with A Aᵀ: panels of rows, each by ndarray's
/// general product with the rows up to its last.
fn lower_gram_by_panels<S: Data<Elem = f64>>(a: &ArrayBase<S, Ix2>, g: &mut Array2<f64>) {
    const PANEL: usize = 64;
    let m = a.nrows();
    for start in (0..m).step_by(PANEL) {
        let end = (start + PANEL).min(m);
        let panel = a.slice(s![start..end, ..]).dot(&a.slice(s![..end, ..]).t());
        g.slice_mut(s![start..end, ..end]).assign(&panel);
    }
}

/// Fills the lower triangle of `g` with A Aᵀ: dots of rows, four at a time.
fn lower_gram_by_rows<S: Data<Elem = f64>>(a: &ArrayBase<S, Ix2>, g: &mut Array2<f64>) {
    let (m, k) = a.dim();
    let standard = a.as_standard_layout();
    let data = standard
        .as_slice()
        .expect("an array in standard layout is one contiguous slice");
    let row = |i: usize| &data[i * k..(i + 1) * k];
    for i in 0..m {
        let ri = row(i);
        let mut j = 0;
        while j + ROWS <= i + 1 {
            let u = block_dots([row(j), row(j + 1), row(j + 2), row(j + 3)], ri);
            for (l, ul) in u.into_iter().enumerate() {
                g[[i, j + l]] = ul;
            }
            j += ROWS;
        }
        for j in j..=i {
            g[[i, j]] = dot(row(j), ri);
        }
    }
}

/// g += Σ_k c_k x_k over a block of rows.
fn block_axpy(c: [f64; ROWS], rows: [&[f64]; ROWS], g: &mut [f64]) {
    let [r0, r1, r2, r3] = rows;
    for ((((gj, a), b), e), f) in g.iter_mut().zip(r0).zip(r1).zip(r2).zip(r3) {
        *gj += c[0] * a + c[1] * b + c[2] * e + c[3] * f;
    }
}

/// One pass over the rows of `x` (standard layout, or copied to it) for a loss of the linear
/// scores u_i = x_iᵀw: `residual(i, u_i)` returns ∂ℓ_i/∂u_i (and may accumulate the loss),
/// and g += Σ_i residual_i x_i. Each block of rows is read once, for both products.
pub(crate) fn score_and_gradient(
    x: &Array2<f64>,
    w: &[f64],
    g: &mut [f64],
    mut residual: impl FnMut(usize, f64) -> f64,
) {
    let (n, d) = x.dim();
    if d == 0 {
        for i in 0..n {
            residual(i, 0.0);
        }
        return;
    }
    let standard = x.as_standard_layout();
    let data = standard
        .as_slice()
        .expect("an array in standard layout is one contiguous slice");
    let mut blocks = data.chunks_exact(ROWS * d);
    for (b, block) in (&mut blocks).enumerate() {
        let (r0, rest) = block.split_at(d);
        let (r1, rest) = rest.split_at(d);
        let (r2, r3) = rest.split_at(d);
        let rows = [r0, r1, r2, r3];
        let u = block_dots(rows, w);
        let mut c = [0.0; ROWS];
        for (k, (ck, uk)) in c.iter_mut().zip(u).enumerate() {
            *ck = residual(b * ROWS + k, uk);
        }
        block_axpy(c, rows, g);
    }
    let done = n - n % ROWS;
    for (k, row) in blocks.remainder().chunks_exact(d).enumerate() {
        let c = residual(done + k, dot(row, w));
        axpy(c, row, g);
    }
}

/// aᵀb of equally long slices (ndarray's unrolled dot: several accumulators, so it
/// vectorises).
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    ArrayView1::from(a).dot(&ArrayView1::from(b))
}

fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

pub(crate) fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
}

/// log Σ exp(u), evaluated without overflow (−∞ for no terms).
pub(crate) fn log_sum_exp(u: &[f64]) -> f64 {
    let m = u.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x));
    if !m.is_finite() {
        return m;
    }
    m + u.iter().map(|&x| (x - m).exp()).sum::<f64>().ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{array, OwnedRepr};

    /// One blocked pass equals the row-by-row products, for row counts and widths with and
    /// without remainders (blocks of four rows, lanes of four columns).
    #[test]
    fn score_and_gradient_equals_row_by_row_products() {
        for (n, d) in [(0, 3), (3, 5), (4, 4), (7, 6), (9, 9), (8, 0)] {
            let x = Array2::from_shape_fn((n, d), |(i, j)| ((i * 7 + j * 3) % 11) as f64 - 4.5);
            let w: Vec<f64> = (0..d).map(|j| 0.25 * j as f64 - 0.6).collect();
            let mut g = vec![0.5; d];
            let mut seen = Vec::new();
            score_and_gradient(&x, &w, &mut g, |i, u| {
                seen.push((i, u));
                u * u - 1.0
            });
            let mut want = vec![0.5; d];
            for (i, row) in x.rows().into_iter().enumerate() {
                let u: f64 = row.iter().zip(&w).map(|(a, b)| a * b).sum();
                assert_eq!(seen[i].0, i);
                assert!((seen[i].1 - u).abs() < 1e-12, "n {n} d {d} row {i}");
                for (wj, xj) in want.iter_mut().zip(row) {
                    *wj += (u * u - 1.0) * xj;
                }
            }
            assert_eq!(seen.len(), n);
            for (a, b) in g.iter().zip(&want) {
                assert!(
                    (a - b).abs() < 1e-9 * b.abs().max(1.0),
                    "n {n} d {d}: {a} vs {b}"
                );
            }
        }
    }

    /// A Aᵀ equals ndarray's general product, and each of its two ways (the WASM one by rows,
    /// the native one by panels) its lower triangle, for row counts and widths with and without
    /// remainders of blocks of four rows, of four lanes and of 64-row panels, a transposed
    /// (column-major) view among them; integer entries, so every sum is exact.
    #[test]
    fn outer_gram_equals_the_general_product() {
        for (m, k) in [
            (0, 3),
            (1, 0),
            (3, 5),
            (4, 4),
            (7, 6),
            (9, 13),
            (12, 1),
            (150, 9),
        ] {
            let a = Array2::from_shape_fn((m, k), |(i, j)| ((i * 7 + j * 3) % 11) as f64 - 4.0);
            assert_eq!(outer_gram(&a), a.dot(&a.t()), "m {m} k {k}");
            for fill in [lower_gram_by_rows::<OwnedRepr<f64>>, lower_gram_by_panels] {
                let mut g = Array2::zeros((m, m));
                fill(&a, &mut g);
                for i in 0..m {
                    for j in 0..=i {
                        assert_eq!(g[[i, j]], a.row(i).dot(&a.row(j)), "m {m} k {k} ({i}, {j})");
                    }
                }
            }
            assert_eq!(
                outer_gram(&a.t().to_owned()),
                a.t().dot(&a),
                "m {m} k {k}, Aᵀ"
            );
            assert_eq!(outer_gram(&a.t()), a.t().dot(&a), "m {m} k {k}, a view");
        }
    }

    /// (w₀ − 3)² + 10 (w₁ + 1)² with w₁ unpenalised, n = 1.
    struct Quadratic;

    impl Loss for Quadratic {
        fn units(&self) -> usize {
            1
        }
        fn is_penalised(&self, j: usize) -> bool {
            j == 0
        }
        fn value_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
            grad[0] = 2.0 * (w[0] - 3.0);
            grad[1] = 20.0 * (w[1] + 1.0);
            (w[0] - 3.0).powi(2) + 10.0 * (w[1] + 1.0).powi(2)
        }
    }

    #[test]
    fn lbfgs_reaches_the_hand_optimum_of_a_penalised_quadratic() {
        // ∂/∂w₀: 2(w₀ − 3) + 2γw₀ = 0 → w₀ = 3/(1 + γ); w₁ = −1 (unpenalised).
        let gammas = [0.5, 2.0];
        let path = solve_path(
            &Quadratic,
            vec![0.0, 1.0],
            &gammas,
            &SolverParams::default(),
            false,
        );
        for (s, g) in path.iter().zip(gammas) {
            assert!((s.w[0] - 3.0 / (1.0 + g)).abs() < 1e-10, "{:?}", s.w);
            assert!((s.w[1] + 1.0).abs() < 1e-10);
            assert!(s.report.converged);
            assert!(s.report.objective <= s.report.identity_objective);
        }
        // At the identity (0, 1): 9 + 10·4 + γ·0.
        assert_eq!(path[0].report.identity_objective, 49.0);
    }

    #[test]
    fn row_space_weights_reproduce_scores_and_norm() {
        // Three rows in four dimensions; β arbitrary.
        let e = array![
            [1.0, 0.0, 2.0, -1.0],
            [0.5, 1.5, -1.0, 0.0],
            [2.0, -1.0, 0.0, 1.0]
        ];
        let block = Block::new(e.clone());
        assert!(block.is_reduced());
        let beta = [0.3, -0.7, 0.2];
        let (theta, shift) = block.weights(&beta);
        let reduced = block.design().dot(&Array1::from(beta.to_vec()));
        let original = e.dot(&Array1::from(theta.clone()));
        // Scores agree up to the common shift that the intercept absorbs.
        for i in 0..3 {
            assert!((reduced[i] - (original[i] + shift)).abs() < 1e-12);
        }
        // ‖θ‖² = ‖β‖² − (Σa)² ≤ ‖β‖².
        let norm_theta: f64 = theta.iter().map(|t| t * t).sum();
        assert!(norm_theta <= beta.iter().map(|b| b * b).sum::<f64>() + 1e-12);
        assert!(!Block::new(e.t().to_owned()).is_reduced());
        // Repeated rows: K is singular, the block is kept.
        assert!(!Block::new(array![[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]).is_reduced());
    }

    #[test]
    fn log_sum_exp_is_stable() {
        assert!((log_sum_exp(&[1000.0, 1000.0]) - (1000.0 + 2f64.ln())).abs() < 1e-12);
        assert_eq!(log_sum_exp(&[]), f64::NEG_INFINITY);
    }

    #[test]
    fn rejects_bad_settings() {
        assert!(check_gamma(0.0).is_err());
        assert!(check_gamma(f64::NAN).is_err());
        let bad = SolverParams {
            tol: 0.0,
            ..Default::default()
        };
        assert!(bad.validate().is_err());
    }
}
