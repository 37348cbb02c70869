//! Rankings (seed 002): battles, Bradley–Terry with its SEs and bootstrap, separation, CI-aware
//! ranks, leaderboards, and a judge against humans (soft targets, held-out protocol, split
//! conformal).
//!
//! - [`battles`]: battle CSV schemas and parsing.
//! - [`pairwise`]: sufficient statistics of pairwise data.
//! - [`bradley_terry`]: penalised Bradley–Terry MLE and the Elo scale.
//! - [`bt_standard_errors`]: model-based, sandwich and cluster-robust SEs of Bradley–Terry
//!   ratings.
//! - [`bt_bootstrap`]: seeded battle / cluster bootstrap intervals for Bradley–Terry ratings.
//! - [`separation`]: where Bradley–Terry ratings are not identified (a model that never loses).
//! - [`ranking`]: CI-aware ranks and leaderboard row order.
//! - [`anchor`]: fix one model's Elo; SEs and replicates become differences to it.
//! - [`leaderboard`]: a fitted, named, sorted leaderboard (what the CLI prints and the app shows).
//! - [`scored_battles`]: the CSV schema of battles with judge scores and human labels.
//! - [`soft_targets`]: judge targets (hard, label smoothing, σ(β·s) with β's MLE) and ECE.
//! - [`held_out`]: the leave-one-model-out held-out protocol (LLM Elo vs human Elo).
//! - [`conformal`]: split-conformal intervals for a new model's human Elo, and their evaluation.
//! - [`judge_study`]: a judge against humans: both leaderboards, β, held-out protocol, conformal.
//! - [`length_control`]: AlpacaEval's length-controlled win rates against a baseline.
//! - [`length_battles`]: battles with both answers' lengths, the input of length control.
//! - [`style_features`]: an answer's length and markdown counts, and a battle's differences.
//! - [`style_control`]: the contextual Bradley–Terry leaderboard with style held fixed.
//! - [`self_preference`]: whether a judge favours its own model family beyond the humans' ratings.
//! - [`styled_battles`]: battles with their style features, from the answers or from columns.
//! - [`transitivity`]: how often pairwise verdicts go round in a circle (cyclic triads).
//! - [`simulate_battles`]: seeded battles from a Bradley–Terry model (tests, benchmarks, demo).
//! - [`kinds`]: the family's analysis kinds (leaderboard, judge study, conformal, style,
//!   self-preference, length control, transitivity): each reads its files by role and calls its statistic.

pub mod anchor;
pub mod battles;
pub mod bradley_terry;
pub mod bt_bootstrap;
pub mod bt_standard_errors;
pub mod conformal;
pub mod held_out;
pub mod judge_study;
pub mod kinds;
pub mod leaderboard;
pub mod length_battles;
pub mod length_control;
pub mod pairwise;
pub mod ranking;
pub mod scored_battles;
pub mod self_preference;
pub mod separation;
pub mod simulate_battles;
pub mod soft_targets;
pub mod style_control;
pub mod style_features;
pub mod styled_battles;

// The statistic files that register a kind of their own (`transitivity`), declared by the
// build (shared/build.rs).
crate::analysis::kind_modules!("rankings");
