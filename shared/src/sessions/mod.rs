//! Sessions and sharing: content-addressed datasets, saved analysis specs, archives, share links,
//! and the browser ↔ worker wire protocol.
//!
//! - [`session`]: sessions — content-addressed datasets, saved analysis specs, the archive.
//! - [`share_link`]: an analysis spec and its files compressed into a URL fragment, a CSV
//!   column by column ([`column_major`]).
//! - [`run_datasets`]: a judge run's judgments as datasets of its session (verdicts, battles,
//!   ratings, and with [`run_calibration`] the labelled items' calibration files) that
//!   analyses read.
//! - [`protocol`]: the versioned browser ↔ worker wire protocol.

pub mod column_major;
pub mod protocol;
pub mod run_calibration;
pub mod run_datasets;
pub mod session;
pub mod share_link;
