//! Shared numerical machinery: the logistic function, linear algebra, quadrature, seeded
//! resampling, correlations, multiple testing.
//!
//! - [`logistic`]: σ, softplus and both at once, without overflow.
//! - [`linalg`]: Cholesky solves.
//! - [`quadrature`]: Gauss–Hermite nodes and weights.
//! - [`resample`]: seeded bootstrap machinery and percentile intervals.
//! - [`correlation`]: Pearson, Spearman, Kendall τ-b.
//! - [`multiple_testing`]: Holm–Bonferroni and Benjamini–Hochberg adjusted p-values.
//! - [`normal`]: the standard normal Φ and Φ⁻¹.
//! - [`student_t`]: Student's t distribution function, tail and quantile.
//! - [`stratified_sample`]: a seeded sample with each stratum in proportion.
//! - [`weighted_logistic`]: the weighted logistic loss and its Newton solver (sparse rows).
//! - [`parallel_rounds`]: independent rounds over the machine's threads (natively), in order.

pub mod correlation;
pub mod linalg;
pub mod logistic;
pub mod multiple_testing;
pub mod normal;
pub mod parallel_rounds;
pub mod quadrature;
pub mod resample;
pub mod stratified_sample;
pub mod student_t;
pub mod weighted_logistic;
