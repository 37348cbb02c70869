//! The element-wise steps of the CPU encoder ([`super::bert_cpu`]) written so the compiler
//! turns them into vector instructions: the exponential, GELU, a row's softmax and a residual
//! layer norm. Each is compiled for AVX-512, for AVX2 with FMA and for any CPU, and runs on
//! the [`Kernel`] detected.
//!
//! Model and accuracy:
//! - `exp(x) = 2ⁿ · e^r`, n = round(x / ln 2), r = x − n·ln 2 (ln 2 in two parts), e^r by its
//!   Taylor polynomial of degree 6 (|r| ≤ ln 2 / 2, relative error ≤ 1.2e-7); x is clamped to
//!   [−87.3, 88.3], so exp of a very negative x is 1e-38, not 0.
//! - `erf(x)` by Abramowitz & Stegun 7.1.26 (absolute error ≤ 1.5e-7);
//!   `gelu(x) = x/2 · (1 + erf(x/√2))`, BERT's exact GELU; its tanh approximation with
//!   tanh(y) = 1 − 2 / (e^{2y} + 1).
//! - sums run in 16 interleaved partial sums (the order differs from a plain loop by rounding).

use super::sgemm::Kernel;

const LANES: usize = 16;

/// e^x (see the module's accuracy).
#[inline(always)]
fn exp(x: f32) -> f32 {
    const ROUND: f32 = 12_582_912.0; // 1.5·2²³: adding it rounds to an integer in the low bits
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    let x = x.clamp(-87.3, 88.3);
    let shifted = x * std::f32::consts::LOG2_E + ROUND;
    let n = shifted - ROUND;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    let exponent = (shifted.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    p * f32::from_bits((exponent.wrapping_add(127) as u32) << 23)
}

/// erf(x) (Abramowitz & Stegun 7.1.26).
#[inline(always)]
fn erf(x: f32) -> f32 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_72 + t * (1.421_413_8 + t * (-1.453_152 + t * 1.061_405_4))));
    (1.0 - poly * exp(-z * z)).copysign(x)
}

#[inline(always)]
fn gelu_body(xs: &mut [f32]) {
    for x in xs {
        *x = 0.5 * *x * (1.0 + erf(*x * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// GELU's tanh approximation, tanh(y) = 1 − 2 / (e^{2y} + 1).
#[inline(always)]
fn gelu_tanh_body(xs: &mut [f32]) {
    const C: f32 = 0.797_884_6; // √(2/π)
    for x in xs {
        let y = C * (*x + 0.044_715 * *x * *x * *x);
        *x = 0.5 * *x * (2.0 - 2.0 / (exp(2.0 * y) + 1.0));
    }
}

/// Σ xs in [`LANES`] partial sums.
#[inline(always)]
fn sum(xs: &[f32]) -> f32 {
    let mut lanes = [0.0f32; LANES];
    let chunks = xs.chunks_exact(LANES);
    let rest: f32 = chunks.remainder().iter().sum();
    for chunk in chunks {
        for (s, x) in lanes.iter_mut().zip(chunk) {
            *s += x;
        }
    }
    lanes.iter().sum::<f32>() + rest
}

#[inline(always)]
fn softmax_body(row: &mut [f32]) {
    let mut lanes = [f32::NEG_INFINITY; LANES];
    let chunks = row.chunks_exact(LANES);
    let rest = chunks
        .remainder()
        .iter()
        .fold(f32::NEG_INFINITY, |m, &x| m.max(x));
    for chunk in chunks {
        for (m, &x) in lanes.iter_mut().zip(chunk) {
            *m = m.max(x);
        }
    }
    let max = lanes.iter().fold(rest, |m, &x| m.max(x));
    for x in row.iter_mut() {
        *x = exp(*x - max);
    }
    let scale = 1.0 / sum(row);
    for x in row.iter_mut() {
        *x *= scale;
    }
}

#[inline(always)]
fn residual_norm_body(x: &mut [f32], residual: &[f32], weight: &[f32], bias: &[f32], eps: f32) {
    for (x, r) in x.iter_mut().zip(residual) {
        *x += r;
    }
    let mean = sum(x) / x.len() as f32;
    for v in x.iter_mut() {
        *v -= mean;
    }
    let mut lanes = [0.0f32; LANES];
    let chunks = x.chunks_exact(LANES);
    let rest: f32 = chunks.remainder().iter().map(|v| v * v).sum();
    for chunk in chunks {
        for (s, v) in lanes.iter_mut().zip(chunk) {
            *s += v * v;
        }
    }
    let variance = (lanes.iter().sum::<f32>() + rest) / x.len() as f32;
    let scale = 1.0 / (variance + eps).sqrt();
    for ((v, w), b) in x.iter_mut().zip(weight).zip(bias) {
        *v = *v * scale * w + b;
    }
}

/// Defines `$name(kernel, args…)`, running `$body` compiled for the kernel's instructions.
macro_rules! dispatched {
    ($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) => $body:ident) => {
        $(#[$doc])*
        pub fn $name(kernel: Kernel, $($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")]
                fn avx512($($arg: $ty),*) {
                    $body($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                fn avx2($($arg: $ty),*) {
                    $body($($arg),*)
                }
                match kernel {
                    // SAFETY: `Kernel::detect` names a kernel only where the CPU has its
                    // instructions.
                    Kernel::Avx512 => return unsafe { avx512($($arg),*) },
                    Kernel::Avx2 => return unsafe { avx2($($arg),*) },
                    Kernel::Portable => {}
                }
            }
            let _ = kernel;
            $body($($arg),*)
        }
    };
}

dispatched!(
    /// GELU (erf form) of each value, in place.
    gelu(xs: &mut [f32]) => gelu_body
);

dispatched!(
    /// GELU's tanh approximation of each value, in place.
    gelu_tanh(xs: &mut [f32]) => gelu_tanh_body
);

dispatched!(
    /// The softmax of a row, in place.
    softmax(row: &mut [f32]) => softmax_body
);

dispatched!(
    /// `x ← LayerNorm(x + residual)` with the norm's weight, bias and ε.
    residual_norm(x: &mut [f32], residual: &[f32], weight: &[f32], bias: &[f32], eps: f32)
        => residual_norm_body
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_within_two_ulps_from_minus_87_to_88() {
        for k in -87_000..=88_000 {
            let x = k as f32 / 1000.0;
            let got = f64::from(exp(x));
            let want = f64::from(x).exp();
            assert!(
                ((got - want) / want).abs() < 2.4e-7,
                "exp({x}) = {got}, not {want}"
            );
        }
        assert!(exp(-1000.0) < 1.3e-38 && exp(-1000.0) > 1.1e-38);
        assert_eq!(exp(0.0), 1.0);
    }

    #[test]
    fn erf_and_gelu_match_tabulated_values() {
        // erf from Abramowitz & Stegun's table 7.1 (ten digits).
        for (x, want) in [
            (0.1f32, 0.112_462_916_0f64),
            (0.5, 0.520_499_877_8),
            (1.0, 0.842_700_792_9),
            (1.5, 0.966_105_146_5),
            (2.0, 0.995_322_265_0),
            (3.0, 0.999_977_909_5),
        ] {
            for (x, want) in [(x, want), (-x, -want)] {
                assert!(
                    (f64::from(erf(x)) - want).abs() < 3e-7,
                    "erf({x}) = {}",
                    erf(x)
                );
            }
        }
        assert!(erf(0.0).abs() < 2e-7);
        for kernel in Kernel::available() {
            let mut xs = vec![-3.0f32, -1.0, 0.0, 0.5, 1.0, 2.0, 10.0];
            gelu(kernel, &mut xs);
            // x·Φ(x) with Φ from the normal table.
            let want = [
                -0.004_049_9,
                -0.158_655_3,
                0.0,
                0.345_731_4,
                0.841_344_7,
                1.954_5,
                10.0,
            ];
            for (g, w) in xs.iter().zip(want) {
                assert!((g - w).abs() < 1e-6, "{kernel:?}: gelu {g}, not {w}");
            }
            let xs = [-3.0f32, -1.0, 0.0, 0.5, 1.0, 2.0, 10.0];
            let mut got = xs;
            gelu_tanh(kernel, &mut got);
            for (g, x) in got.iter().zip(xs) {
                let x = f64::from(x);
                let want = 0.5
                    * x
                    * (1.0
                        + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x.powi(3)))
                            .tanh());
                assert!(
                    (f64::from(*g) - want).abs() < 1e-6,
                    "{kernel:?}: gelu_tanh {g}, not {want}"
                );
            }
        }
    }

    #[test]
    fn softmax_and_the_residual_norm_equal_their_definitions() {
        for kernel in Kernel::available() {
            let row: Vec<f32> = (0..37).map(|i| ((i * 7) % 11) as f32 * 0.9 - 3.0).collect();
            let mut got = row.clone();
            softmax(kernel, &mut got);
            let max = row.iter().fold(f64::MIN, |m, &x| m.max(f64::from(x)));
            let total: f64 = row.iter().map(|&x| (f64::from(x) - max).exp()).sum();
            for (g, &x) in got.iter().zip(&row) {
                let want = (f64::from(x) - max).exp() / total;
                assert!((f64::from(*g) - want).abs() < 1e-7, "{kernel:?}");
            }

            let x: Vec<f32> = (0..40).map(|i| (i as f32 * 0.37).sin()).collect();
            let residual: Vec<f32> = (0..40).map(|i| (i as f32 * 0.11).cos()).collect();
            let weight: Vec<f32> = (0..40).map(|i| 1.0 + i as f32 / 40.0).collect();
            let bias: Vec<f32> = (0..40).map(|i| i as f32 / 100.0).collect();
            let mut got = x.clone();
            residual_norm(kernel, &mut got, &residual, &weight, &bias, 1e-12);
            let sum: Vec<f64> = x
                .iter()
                .zip(&residual)
                .map(|(a, b)| f64::from(*a) + f64::from(*b))
                .collect();
            let mean = sum.iter().sum::<f64>() / 40.0;
            let var = sum.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 40.0;
            for i in 0..40 {
                let want = (sum[i] - mean) / (var + 1e-12).sqrt() * f64::from(weight[i])
                    + f64::from(bias[i]);
                assert!((f64::from(got[i]) - want).abs() < 1e-5, "{kernel:?} at {i}");
            }
        }
    }
}
