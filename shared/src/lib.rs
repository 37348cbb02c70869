//! # tribunal — statistics for LLM judges as measurement instruments
//!
//! Pure computation, no I/O: every function takes data and settings and returns results or a
//! located [`Error`]. The same code runs natively (the `tribunal` CLI and worker) and in the
//! browser (WASM). One file per method; settings are a params struct validated into a fitted
//! model; randomised computations take an explicit seed.
//!
//! - [`analysis`]: every analysis as a spec (settings, seed, inputs by role and hash) and the one
//!   `run` from spec and files to its report, for the CLI, the page and saved sessions.
//! - [`rankings`]: Rankings (seed 002): battles, Bradley–Terry with its SEs and bootstrap,
//!   separation, CI-aware ranks, leaderboards, and a judge against humans (soft targets, held-out
//!   protocol, split conformal).
//! - [`calibration`]: Calibration heads (seed 000): features, the GLM machinery, the LS, MN, BTL,
//!   BTL2 and Plackett–Luce heads, cross-validation, metrics, model files, ablations.
//! - [`reliability`]: Reliability (seeds 001, 003): ratings, agreement (κ, α), the A/A test,
//!   self-consistency, position bias, slices, power, and the reports that combine them; the IRT
//!   family in [`reliability::irt`].
//! - [`programs`]: Programmatic judges (seed 004): pairs and verdicts, the built-in programs and
//!   the user's scores, votes, the label model, routing, bias probes, the report.
//! - [`compare`]: Comparing systems on pointwise scores (seed 001): per-system scores, paired
//!   differences with t, clustered, bootstrap and exact tests, slices, judge-corrected rates.
//! - [`ppi`]: Prediction-powered inference (PPI++): means and the Bradley–Terry leaderboard from
//!   a few human labels and many judge labels, with the power-tuned λ.
//! - [`selective`]: Selective judging ("Trust or Escalate"): a judge's confidence threshold
//!   with a guaranteed agreement with humans, and cascades of judges that hand the rest on.
//! - [`judging`]: Judge runs: prompts and their parsers, the run design, items, injection flags.
//! - [`sessions`]: Sessions and sharing: content-addressed datasets, saved analysis specs,
//!   archives, share links, and the browser ↔ worker wire protocol.
//! - [`io`]: Reading inputs: the strict CSV reader, located errors, embedding arrays, and the
//!   provenance of a result (tool version, content hashes).
//! - [`math`]: Shared numerical machinery: linear algebra, quadrature, seeded resampling,
//!   correlations, multiple testing, simulated data.

pub use io::error::{Error, Location, Result};

pub mod analysis;
pub mod calibration;
pub mod compare;
pub mod io;
pub mod judging;
pub mod math;
pub mod ppi;
pub mod programs;
pub mod rankings;
pub mod readers;
pub mod reliability;
pub mod selective;
pub mod sessions;
