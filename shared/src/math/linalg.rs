//! Dense linear algebra the statistics need, in pure Rust so it compiles to WASM:
//! Cholesky factorisation and solves for symmetric positive-definite systems.

use ndarray::{Array1, Array2};

/// Solves `a x = b` for symmetric positive-definite `a` by Cholesky factorisation.
/// Returns `None` when `a` is not positive definite (a pivot ≤ 0 or not finite).
pub fn cholesky_solve(a: &Array2<f64>, b: &Array1<f64>) -> Option<Array1<f64>> {
    let l = cholesky(a)?;
    let n = b.len();
    let mut y = Array1::zeros(n);
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l[[i, k]] * y[k]).sum();
        y[i] = (b[i] - s) / l[[i, i]];
    }
    let mut x = Array1::zeros(n);
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[[k, i]] * x[k]).sum();
        x[i] = (y[i] - s) / l[[i, i]];
    }
    Some(x)
}

/// Inverse of a symmetric positive-definite matrix, or `None` if it is not positive definite.
pub fn spd_inverse(a: &Array2<f64>) -> Option<Array2<f64>> {
    let n = a.nrows();
    let mut inv = Array2::zeros((n, n));
    let mut e = Array1::zeros(n);
    for c in 0..n {
        e.fill(0.0);
        e[c] = 1.0;
        inv.column_mut(c).assign(&cholesky_solve(a, &e)?);
    }
    Some(inv)
}

/// Lower-triangular `l` with `l lᵀ = a`, or `None` if `a` is not positive definite.
pub fn cholesky(a: &Array2<f64>) -> Option<Array2<f64>> {
    let n = a.nrows();
    // Row-major working copy: the inner products below run over contiguous row prefixes.
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let (row_j, below) = l[j * n..].split_at_mut(n);
        let d = a[[j, j]] - dot(&row_j[..j], &row_j[..j]);
        if !(d > 0.0 && d.is_finite()) {
            return None;
        }
        let ljj = d.sqrt();
        row_j[j] = ljj;
        for (k, row_i) in below.chunks_exact_mut(n).enumerate() {
            let s = dot(&row_i[..j], &row_j[..j]);
            row_i[j] = (a[[j + 1 + k, j]] - s) / ljj;
        }
    }
    Array2::from_shape_vec((n, n), l).ok()
}

/// aᵀb with four independent sums, so that it vectorises.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let (a4, a_tail) = a.as_chunks::<4>();
    let (b4, b_tail) = b.as_chunks::<4>();
    let mut acc = [0.0; 4];
    for (x, y) in a4.iter().zip(b4) {
        for l in 0..4 {
            acc[l] += x[l] * y[l];
        }
    }
    let tail: f64 = a_tail.iter().zip(b_tail).map(|(x, y)| x * y).sum();
    (acc[0] + acc[2]) + (acc[1] + acc[3]) + tail
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn solves_a_hand_system() {
        // a = [[4, 2], [2, 3]], b = [2, 1] → x = [0.5, 0].
        let x = cholesky_solve(&array![[4.0, 2.0], [2.0, 3.0]], &array![2.0, 1.0]).unwrap();
        assert!((x[0] - 0.5).abs() < 1e-15 && x[1].abs() < 1e-15);
        let inv = spd_inverse(&array![[4.0, 2.0], [2.0, 3.0]]).unwrap();
        // inverse = [[3, -2], [-2, 4]] / 8
        assert!((inv[[0, 0]] - 0.375).abs() < 1e-15 && (inv[[0, 1]] + 0.25).abs() < 1e-15);
    }

    #[test]
    fn rejects_indefinite() {
        assert!(cholesky(&array![[1.0, 2.0], [2.0, 1.0]]).is_none());
    }
}
