//! Programmatic judges (seed 004): pairs and verdicts, the built-in programs and the user's
//! scores, votes, the label model, routing, bias probes, the report.
//!
//! - [`program_pairs`]: the pairs CSV of programmatic judges and an LLM judge's verdicts CSV.
//! - [`program_library`]: the ten built-in programmatic judges (seed 004 App. A.2).
//! - [`program_votes`]: min–max normalisation, dead-zone thresholds, votes, top-k committee.
//! - [`program_report`]: the programs report (committee, label model vs majority, routing).
//! - [`program_user_scores`]: the texts user programs score and their scores as a file.
//! - [`label_model`]: Dawid–Skene label model over program votes, and majority vote.
//! - [`routing`]: routing uncertain pairs to an LLM judge: accuracy–throughput curves.
//! - [`bias_probe`]: flip rate and bias win rate of a pairwise judge under perturbations.
//! - [`vote_file`]: the CSV of a committee's votes on pairs.
//! - [`simulate_votes`]: seeded votes from the label model's generative model (tests, benches).
//! - [`kinds`]: the family's analysis kinds (programs, label model, routing): each reads its
//!   files by role and calls its report.

pub mod bias_probe;
pub mod kinds;
pub mod label_model;
pub mod program_library;
pub mod program_pairs;
pub mod program_report;
pub mod program_user_scores;
pub mod program_votes;
pub mod routing;
pub mod simulate_votes;
pub mod vote_file;

// The statistic files that register a kind of their own, declared by the build
// (shared/build.rs).
crate::analysis::kind_modules!("programs");
