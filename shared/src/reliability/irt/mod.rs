//! Item response theory (seed 003): the graded response model, its reliability diagnostics and
//! report.
//!
//! - [`irt_grm`]: graded response model (IRT) of a judge under prompt variants, MML-EM fit.
//! - [`irt_reliability`]: IRT reliability diagnostics C_V, marginal reliability, θ-ratio, D_W.
//! - [`irt_report`]: the IRT report of a judge (GRM, ρ, C_V, θ_ratio, D_W) per judge × criterion.

pub mod irt_grm;
pub mod irt_reliability;
pub mod irt_report;
