//! # tribunal — statistics for LLM judges as measurement instruments
//!
//! Pure computation, no I/O: every function takes data and settings and returns results or a
//! located [`Error`]. The same code runs natively (the `tribunal` CLI and worker) and in the
//! browser (WASM). One file per method; settings are a params struct validated into a fitted
//! model; randomised computations take an explicit seed.
//!
//! - [`battles`]: battle CSV schemas and parsing.
//! - [`pairwise`]: sufficient statistics of pairwise data.
//! - [`bradley_terry`]: penalised Bradley–Terry MLE and the Elo scale.
//! - [`leaderboard`]: a fitted, named, sorted leaderboard (what the CLI prints and the app shows).
//! - [`resample`]: seeded bootstrap machinery and percentile intervals.
//! - [`correlation`]: Pearson, Spearman, Kendall τ-b.
//! - [`irt_grm`]: graded response model (IRT) of a judge under prompt variants, MML-EM fit.
//! - [`irt_reliability`]: IRT reliability diagnostics C_V, marginal reliability, θ-ratio, D_W.
//! - [`simulate`]: seeded battle simulation.
//! - [`protocol`]: the versioned browser ↔ worker wire protocol.
//! - [`linalg`]: Cholesky solves.
//! - [`quadrature`]: Gauss–Hermite nodes and weights.

pub mod battles;
pub mod bradley_terry;
pub mod correlation;
pub mod error;
pub mod irt_grm;
pub mod irt_reliability;
pub mod leaderboard;
pub mod linalg;
pub mod pairwise;
pub mod protocol;
pub mod quadrature;
pub mod resample;
pub mod simulate;

pub use error::{Error, Location, Result};
