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
//! - [`simulate`]: seeded battle simulation.
//! - [`protocol`]: the versioned browser ↔ worker wire protocol.
//! - [`linalg`]: Cholesky solves.
//! - [`features`]: calibration-head features φ(e) ⊕ base signal and the training-row scaler.
//! - [`glm`]: penalised GLM fitting shared by the heads (L-BFGS, row-space reduction, γ paths).
//! - [`ls_head`]: least-squares judge (seed 000 §4.1).
//! - [`mn_head`]: multinomial judge (seed 000 §4.2).
//! - [`btl_head`]: Bradley–Terry–Luce judge (seed 000 §4.3).
//! - [`btl2_head`]: two-headed BTL judge (seed 000 §4.4).
//! - [`plackett_luce_head`]: K-way BTL2 judge via Plackett–Luce (seed 000 App. C.1).
//! - [`cross_validation`]: k-fold cross-validation of a head's γ.
//! - [`metrics`]: head vs base-judge metrics with paired bootstrap intervals.
//! - [`head_file`]: the versioned JSON model file of a fitted head.

pub mod battles;
pub mod bradley_terry;
pub mod btl2_head;
pub mod btl_head;
pub mod correlation;
pub mod cross_validation;
pub mod error;
pub mod features;
pub mod glm;
pub mod head_file;
pub mod leaderboard;
pub mod linalg;
pub mod ls_head;
pub mod metrics;
pub mod mn_head;
pub mod pairwise;
pub mod plackett_luce_head;
pub mod protocol;
pub mod resample;
pub mod simulate;

pub use error::{Error, Location, Result};
