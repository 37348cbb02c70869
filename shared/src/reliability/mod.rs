//! Reliability (seeds 001, 003): ratings, agreement (κ, α), the A/A test, self-consistency,
//! position bias, slices, power, and the reports that combine them; the IRT family in [`irt`].
//!
//! - [`ratings`]: long-format ratings CSV and the item × rater matrix.
//! - [`kappa`]: Cohen's κ and weighted κ with the confusion matrix.
//! - [`alpha`]: Krippendorff's α (nominal, ordinal, interval, ratio; missing values).
//! - [`agreement`]: two-rater and group agreement with bootstrap intervals and bands.
//! - [`aa_test`]: A/A test of a judge: two identical runs against acceptance bands.
//! - [`consistency`]: self-consistency of repeated judgments (per-criterion entropy).
//! - [`position_bias`]: AB/BA position bias: first-position rate, flip rate, binomial test.
//! - [`slices`]: per-slice agreement of each judge against the rest, with Holm and BH.
//! - [`power`]: power and sample size for two proportions or two means.
//! - [`reliability_report`]: the agreement report (α, rater pairs, judges vs the majority).
//! - [`aa_report`]: the A/A report of two runs in a ratings file.
//! - [`consistency_report`]: the self-consistency report of repeats in a ratings file.
//! - [`position_report`]: the position-bias report of a verdicts file.
//! - [`kinds`]: the family's analysis kinds (agreement, A/A, consistency, position, IRT, power):
//!   each reads its ratings files by role and calls its report.

pub mod aa_report;
pub mod aa_test;
pub mod agreement;
pub mod alpha;
pub mod consistency;
pub mod consistency_report;
pub mod irt;
pub mod kappa;
pub mod kinds;
pub mod position_bias;
pub mod position_report;
pub mod power;
pub mod ratings;
pub mod reliability_report;
pub mod slices;

// The statistic files that register a kind of their own, declared by the build
// (shared/build.rs).
crate::analysis::kind_modules!("reliability");
