//! Single-precision matrix products for the CPU encoder ([`super::bert_cpu`]): C = A·B, plus
//! a bias per column, with B packed once into panels of [`PANEL`] columns.
//!
//! Model: `c[i·ldc + j] = bias[j] + Σ_kk a[i·lda + kk] · B[kk][j]` for the `rows` rows of A and
//! the `n` columns of B, the sum taken over kk in increasing order.
//!
//! Kernels, chosen once at run time ([`Kernel::detect`]): AVX-512 (a tile of 12 rows × 32
//! columns held in 24 registers, fused multiply-adds), AVX2 with FMA (2 × 32, the portable code
//! compiled for those instructions), and the portable code for any other CPU. The first two fuse
//! each multiply-add, the last rounds the product and the sum separately, so results agree to
//! rounding, not bit for bit, across machines.
//!
//! Arguments and errors: the slices must hold every element the strides reach; a product with
//! a slice too short is a bug in the caller and panics before any element is computed.

use std::sync::OnceLock;

/// Columns per packed panel.
pub const PANEL: usize = 32;

/// The instruction set the products run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Avx512,
    Avx2,
    Portable,
}

impl Kernel {
    /// The fastest kernel this CPU runs, detected once.
    pub fn detect() -> Self {
        static DETECTED: OnceLock<Kernel> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                // The element-wise steps are compiled for these AVX-512 subsets too.
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && Self::has_avx2()
                {
                    return Kernel::Avx512;
                }
                if Self::has_avx2() {
                    return Kernel::Avx2;
                }
            }
            Kernel::Portable
        })
    }

    /// Every kernel this CPU can run (the tests compare them).
    pub fn available() -> Vec<Self> {
        let best = Self::detect();
        [Kernel::Avx512, Kernel::Avx2, Kernel::Portable]
            .into_iter()
            .skip_while(|k| *k != best)
            .filter(|k| *k != Kernel::Avx2 || Self::has_avx2())
            .collect()
    }

    fn has_avx2() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }
}

/// B (k × n) in panels of [`PANEL`] columns: panel p holds columns 32p … 32p + 31 row after
/// row, zeros beyond column n. The buffer is kept between packings.
#[derive(Default)]
pub struct Panels {
    k: usize,
    n: usize,
    data: Vec<f32>,
}

impl Panels {
    /// Packs B whose element (row i, column j) is `b[i·row_stride + j·col_stride]`.
    pub fn pack(&mut self, b: &[f32], k: usize, n: usize, row_stride: usize, col_stride: usize) {
        let panels = n.div_ceil(PANEL);
        self.k = k;
        self.n = n;
        self.data.clear();
        self.data.resize(panels * k * PANEL, 0.0);
        for (p, panel) in self.data.chunks_exact_mut(k * PANEL).enumerate() {
            let width = PANEL.min(n - p * PANEL);
            for (i, row) in panel.chunks_exact_mut(PANEL).enumerate() {
                let from = i * row_stride + p * PANEL * col_stride;
                for (c, slot) in row[..width].iter_mut().enumerate() {
                    *slot = b[from + c * col_stride];
                }
            }
        }
    }

    /// Rows of B.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Columns of B.
    pub fn n(&self) -> usize {
        self.n
    }
}

/// `c[i·ldc + j] = bias[j] + (A·B)[i][j]` for i < `rows`, j < `b.n()`, on this thread.
#[allow(clippy::too_many_arguments)]
pub fn product(
    kernel: Kernel,
    a: &[f32],
    lda: usize,
    rows: usize,
    b: &Panels,
    bias: Option<&[f32]>,
    c: &mut [f32],
    ldc: usize,
) {
    if rows == 0 || b.n == 0 {
        return;
    }
    assert!(
        a.len() >= (rows - 1) * lda + b.k
            && c.len() >= (rows - 1) * ldc + b.n
            && bias.is_none_or(|v| v.len() >= b.n),
        "a matrix product's operands are shorter than its strides reach"
    );
    let operands = Operands {
        a,
        lda,
        rows,
        b,
        bias,
    };
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the kernel is Avx512 only where the CPU has AVX-512 (`detect`, `available`),
        // and the assertion above bounds every element the tiles read and write.
        Kernel::Avx512 => unsafe { avx512::product(&operands, c, ldc) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Avx2 only where the CPU has AVX2 and FMA.
        Kernel::Avx2 => unsafe { portable_fma(&operands, c, ldc) },
        _ => portable::<false>(&operands, c, ldc),
    }
}

/// The operands of one product (bounded by [`product`]'s assertion).
struct Operands<'a> {
    a: &'a [f32],
    lda: usize,
    rows: usize,
    b: &'a Panels,
    bias: Option<&'a [f32]>,
}

impl Operands<'_> {
    /// Calls `tile(first row, rows, panel index, panel, width)` for the output's tiles of at
    /// most `tile_rows` rows, panel after panel (a panel stays in cache while A's rows pass).
    #[inline(always)]
    fn tiles(&self, tile_rows: usize, mut tile: impl FnMut(usize, usize, usize, &[f32], usize)) {
        for (p, panel) in self.b.data.chunks_exact(self.b.k * PANEL).enumerate() {
            let width = PANEL.min(self.b.n - p * PANEL);
            let mut r = 0;
            while r < self.rows {
                let left = (self.rows - r).min(tile_rows);
                tile(r, left, p, panel, width);
                r += left;
            }
        }
    }
}

/// The portable tile: R rows × one panel, fused (`FMA`) or not, into `c` (the tile's first
/// row and column).
#[inline(always)]
fn portable_tile<const R: usize, const FMA: bool>(
    (a, lda, k): (&[f32], usize, usize),
    panel: &[f32],
    bias: Option<&[f32]>,
    (c, ldc, width): (&mut [f32], usize, usize),
) {
    let mut acc = [[0.0f32; PANEL]; R];
    for (kk, b) in panel.chunks_exact(PANEL).take(k).enumerate() {
        for (r, acc) in acc.iter_mut().enumerate() {
            let x = a[r * lda + kk];
            for (s, &y) in acc.iter_mut().zip(b) {
                *s = if FMA { x.mul_add(y, *s) } else { *s + x * y };
            }
        }
    }
    for (r, acc) in acc.iter().enumerate() {
        let out = &mut c[r * ldc..r * ldc + width];
        for (j, (o, s)) in out.iter_mut().zip(acc).enumerate() {
            *o = bias.map_or(0.0, |v| v[j]) + s;
        }
    }
}

#[inline(always)]
fn portable<const FMA: bool>(ops: &Operands, c: &mut [f32], ldc: usize) {
    ops.tiles(2, |r, rows, p, panel, width| {
        let a = (&ops.a[r * ops.lda..], ops.lda, ops.b.k);
        let bias = ops.bias.map(|v| &v[p * PANEL..]);
        let c = (&mut c[r * ldc + p * PANEL..], ldc, width);
        if rows == 2 {
            portable_tile::<2, FMA>(a, panel, bias, c)
        } else {
            portable_tile::<1, FMA>(a, panel, bias, c)
        }
    })
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn portable_fma(ops: &Operands, c: &mut [f32], ldc: usize) {
    portable::<true>(ops, c, ldc)
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{Operands, PANEL};
    use std::arch::x86_64::*;

    /// Rows of a tile: 12 × 2 accumulators, 2 panel rows and a broadcast fill 27 of the 32
    /// registers.
    const TILE_ROWS: usize = 12;

    /// # Safety
    /// The CPU has AVX-512F, and the operands and `c` hold every element
    /// [`super::product`]'s model reaches.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn product(ops: &Operands, c: &mut [f32], ldc: usize) {
        ops.tiles(TILE_ROWS, |r, rows, p, panel, width| {
            let bias = ops
                .bias
                .map_or(std::ptr::null(), |v| v[p * PANEL..].as_ptr());
            let args = (
                ops.a[r * ops.lda..].as_ptr(),
                ops.lda,
                panel.as_ptr(),
                ops.b.k,
                bias,
                c[r * ldc + p * PANEL..].as_mut_ptr(),
                ldc,
                width,
            );
            // SAFETY: `rows` rows from row r are within the product's rows, which the caller
            // bounds; the CPU has AVX-512F.
            unsafe {
                match rows {
                    12 => tile::<12>(args),
                    11 => tile::<11>(args),
                    10 => tile::<10>(args),
                    9 => tile::<9>(args),
                    8 => tile::<8>(args),
                    7 => tile::<7>(args),
                    6 => tile::<6>(args),
                    5 => tile::<5>(args),
                    4 => tile::<4>(args),
                    3 => tile::<3>(args),
                    2 => tile::<2>(args),
                    _ => tile::<1>(args),
                }
            }
        })
    }

    type TileArgs = (
        *const f32,
        usize,
        *const f32,
        usize,
        *const f32,
        *mut f32,
        usize,
        usize,
    );

    /// R rows of A times one panel (k rows of 32), plus the bias (null: none), into the
    /// first `width` columns of R rows of C.
    ///
    /// # Safety
    /// AVX-512F; `a` has R rows of k at stride `lda`, `panel` k·32 values, `bias` (if not
    /// null) and each of C's R rows at stride `ldc` at least `width` values.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn tile<const R: usize>((a, lda, panel, k, bias, c, ldc, width): TileArgs) {
        let mut lo = [_mm512_setzero_ps(); R];
        let mut hi = [_mm512_setzero_ps(); R];
        // SAFETY (the block): the reads and writes stay in the bounds the caller states.
        unsafe {
            for kk in 0..k {
                let b0 = _mm512_loadu_ps(panel.add(kk * PANEL));
                let b1 = _mm512_loadu_ps(panel.add(kk * PANEL + 16));
                for r in 0..R {
                    let x = _mm512_set1_ps(*a.add(r * lda + kk));
                    lo[r] = _mm512_fmadd_ps(x, b0, lo[r]);
                    hi[r] = _mm512_fmadd_ps(x, b1, hi[r]);
                }
            }
            let mask = |n: usize| -> __mmask16 { ((1u32 << n.min(16)) - 1) as __mmask16 };
            let (m0, m1) = (mask(width), mask(width.saturating_sub(16)));
            let (b0, b1) = if bias.is_null() {
                (_mm512_setzero_ps(), _mm512_setzero_ps())
            } else {
                (
                    _mm512_maskz_loadu_ps(m0, bias),
                    _mm512_maskz_loadu_ps(m1, bias.add(16)),
                )
            };
            for r in 0..R {
                let out = c.add(r * ldc);
                _mm512_mask_storeu_ps(out, m0, _mm512_add_ps(b0, lo[r]));
                _mm512_mask_storeu_ps(out.add(16), m1, _mm512_add_ps(b1, hi[r]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded sequence of floats in [-1, 1).
    fn floats(n: usize, seed: u64) -> Vec<f32> {
        let mut s = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 40) as f32 / (1u64 << 23) as f32) - 1.0
            })
            .collect()
    }

    #[test]
    fn every_kernel_equals_the_definition_on_ragged_shapes() {
        let kernels = Kernel::available();
        assert_eq!(kernels[0], Kernel::detect());
        assert_eq!(kernels.last(), Some(&Kernel::Portable));
        // Rows below, at and above a tile; columns below, at and across panels; strides wider
        // than the rows; B read transposed.
        for (rows, k, n, seed) in [
            (1, 1, 1, 1),
            (5, 7, 3, 2),
            (12, 32, 32, 3),
            (13, 33, 47, 4),
            (25, 384, 70, 5),
            (100, 20, 96, 6),
        ] {
            let (lda, ldc) = (k + 3, n + 5);
            let a = floats(rows * lda, seed);
            let bt = floats(n * k, seed + 100); // B stored transposed: B[i][j] = bt[j·k + i]
            let bias = floats(n, seed + 200);
            let mut panels = Panels::default();
            panels.pack(&bt, k, n, 1, k);
            for &kernel in &kernels {
                for with_bias in [false, true] {
                    let mut c = vec![f32::NAN; rows * ldc];
                    let bias = with_bias.then_some(bias.as_slice());
                    product(kernel, &a, lda, rows, &panels, bias, &mut c, ldc);
                    for i in 0..rows {
                        for j in 0..ldc {
                            let got = c[i * ldc + j];
                            if j >= n {
                                assert!(got.is_nan(), "{kernel:?} wrote past column {n}");
                                continue;
                            }
                            let want = bias.map_or(0.0, |v| f64::from(v[j]))
                                + (0..k)
                                    .map(|kk| {
                                        f64::from(a[i * lda + kk]) * f64::from(bt[j * k + kk])
                                    })
                                    .sum::<f64>();
                            assert!(
                                (f64::from(got) - want).abs() <= 1e-5 * (1.0 + k as f64),
                                "{kernel:?} {rows}×{k}×{n} at ({i}, {j}): {got} against {want}"
                            );
                        }
                    }
                }
            }
        }
    }
}
