//! Selective judging (Jung, Brahman & Choi 2025, "Trust or Escalate"): a judge keeps the items
//! it is confident on, with a threshold chosen so that its agreement with humans on them is at
//! least 1 − α with probability at least 1 − δ, and cascades of judges that hand what they
//! abstain on to the next, humans last.
//! - [`guarantee`]: one judge's threshold by fixed-sequence testing with exact binomial
//!   p-values, and its risk–coverage curve.
//! - [`cascade`]: a judgments file read, split into calibration and test items, each tier
//!   calibrated on what reaches it, the cascade tested against each judge alone, the unlabelled
//!   items routed.
//! - [`kinds`]: the family's analysis kind.

pub mod cascade;
pub mod guarantee;
pub mod kinds;

// The statistic files that register a kind of their own, declared by the build
// (shared/build.rs).
crate::analysis::kind_modules!("selective");
