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
//! - [`bt_bootstrap`]: seeded battle / cluster bootstrap intervals for Bradley–Terry ratings.
//! - [`bt_standard_errors`]: model-based, sandwich and cluster-robust SEs of Bradley–Terry ratings.
//! - [`leaderboard`]: a fitted, named, sorted leaderboard (what the CLI prints and the app shows).
//! - [`ranking`]: CI-aware ranks and leaderboard row order.
//! - [`resample`]: seeded bootstrap machinery and percentile intervals.
//! - [`correlation`]: Pearson, Spearman, Kendall τ-b.
//! - [`simulate`]: seeded battle simulation.
//! - [`protocol`]: the versioned browser ↔ worker wire protocol.
//! - [`linalg`]: Cholesky solves.

pub mod battles;
pub mod bradley_terry;
pub mod bt_bootstrap;
pub mod bt_standard_errors;
pub mod correlation;
pub mod error;
pub mod leaderboard;
pub mod linalg;
pub mod pairwise;
pub mod protocol;
pub mod ranking;
pub mod resample;
pub mod simulate;

pub use error::{Error, Location, Result};
