//! # tribunal — statistics for LLM judges as measurement instruments
//!
//! Pure computation, no I/O: every function takes data and settings and returns results or a
//! located [`Error`]. The same code runs natively (the `tribunal` CLI and worker) and in the
//! browser (WASM). One file per method; settings are a params struct validated into a fitted
//! model; randomised computations take an explicit seed.
//!
//! - [`battles`]: battle CSV schemas and parsing.
//! - [`scored_battles`]: the CSV schema of battles with judge scores and human labels.
//! - [`pairwise`]: sufficient statistics of pairwise data.
//! - [`bradley_terry`]: penalised Bradley–Terry MLE and the Elo scale.
//! - [`soft_targets`]: judge targets (hard, label smoothing, σ(β·s) with β's MLE) and ECE.
//! - [`held_out`]: the leave-one-model-out held-out protocol (LLM Elo vs human Elo).
//! - [`conformal`]: split-conformal intervals for a new model's human Elo, and their evaluation.
//! - [`judge_study`]: a judge against humans: both leaderboards, β, held-out protocol, conformal.
//! - [`bt_bootstrap`]: seeded battle / cluster bootstrap intervals for Bradley–Terry ratings.
//! - [`bt_standard_errors`]: model-based, sandwich and cluster-robust SEs of Bradley–Terry ratings.
//! - [`leaderboard`]: a fitted, named, sorted leaderboard (what the CLI prints and the app shows).
//! - [`ranking`]: CI-aware ranks and leaderboard row order.
//! - [`resample`]: seeded bootstrap machinery and percentile intervals.
//! - [`correlation`]: Pearson, Spearman, Kendall τ-b.
//! - [`ratings`]: long-format ratings CSV and the item × rater matrix.
//! - [`kappa`]: Cohen's κ and weighted κ with the confusion matrix.
//! - [`alpha`]: Krippendorff's α (nominal, ordinal, interval, ratio; missing values).
//! - [`agreement`]: two-rater and group agreement with bootstrap intervals and bands.
//! - [`reliability_report`]: the agreement report (α, rater pairs, judges vs the majority).
//! - [`aa_test`]: A/A test of a judge: two identical runs against acceptance bands.
//! - [`analysis`]: every analysis as a spec (settings, seed, inputs by role and hash) and the one
//!   `run` from spec and files to its report, for the CLI, the page and saved sessions.
//! - [`aa_report`]: the A/A report of two runs in a ratings file.
//! - [`consistency`]: self-consistency of repeated judgments (per-criterion entropy).
//! - [`consistency_report`]: the self-consistency report of repeats in a ratings file.
//! - [`position_bias`]: AB/BA position bias: first-position rate, flip rate, binomial test.
//! - [`position_report`]: the position-bias report of a verdicts file.
//! - [`multiple_testing`]: Holm–Bonferroni and Benjamini–Hochberg adjusted p-values.
//! - [`power`]: power and sample size for two proportions or two means.
//! - [`irt_grm`]: graded response model (IRT) of a judge under prompt variants, MML-EM fit.
//! - [`irt_reliability`]: IRT reliability diagnostics C_V, marginal reliability, θ-ratio, D_W.
//! - [`irt_report`]: the IRT report of a judge (GRM, ρ, C_V, θ_ratio, D_W) per judge × criterion.
//! - [`simulate`]: seeded battle simulation.
//! - [`judge_items`]: the items CSV of a judge run (id, instruction, response[, response_b]).
//! - [`judge_prompt`]: the judge prompts (Prometheus absolute and relative, seed 002's six
//!   criteria, seed 001's binary rubric) and their parsers.
//! - [`injection`]: prompt-injection flags on judged texts (seed 001 Tip 17).
//! - [`judge_design`]: a judge run's judgments (orders, repeats, prompt variations) and how each
//!   prompt is shown (criterion order, blinded names).
//! - [`protocol`]: the versioned browser ↔ worker wire protocol.
//! - [`provenance`]: the tool version, git commit and input SHA-256s recorded with every result.
//! - [`linalg`]: Cholesky solves.
//! - [`quadrature`]: Gauss–Hermite nodes and weights.
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
//! - [`program_pairs`]: the pairs CSV of programmatic judges and an LLM judge's verdicts CSV.
//! - [`program_library`]: the ten built-in programmatic judges (seed 004 App. A.2).
//! - [`program_votes`]: min–max normalisation, dead-zone thresholds, votes, top-k committee.
//! - [`label_model`]: Dawid–Skene label model over program votes, and majority vote.
//! - [`routing`]: routing uncertain pairs to an LLM judge: accuracy–throughput curves.
//! - [`program_report`]: the programs report (committee, label model vs majority, routing).
//! - [`program_user_scores`]: the texts user programs score and their scores as a file.
//! - [`vote_file`]: the CSV of a committee's votes on pairs.
//! - [`bias_probe`]: flip rate and bias win rate of a pairwise judge under perturbations.
//! - [`separation`]: where Bradley–Terry ratings are not identified (a model that never loses).
//! - [`session`]: sessions — content-addressed datasets, saved analysis specs, the archive.
//! - [`share_link`]: an analysis spec and its files compressed into a URL fragment.

pub mod aa_report;
pub mod aa_test;
pub mod ablation;
pub mod agreement;
pub mod alpha;
pub mod analysis;
pub mod anchor;
pub mod battles;
pub mod bias_probe;
pub mod bradley_terry;
pub mod bt_bootstrap;
pub mod bt_standard_errors;
pub mod btl2_head;
pub mod btl_head;
pub mod calibration;
pub mod calibration_data;
pub mod conformal;
pub mod consistency;
pub mod consistency_report;
pub mod correlation;
pub mod cross_validation;
mod csv_row;
pub mod embedding_file;
pub mod error;
pub mod features;
pub mod glm;
pub mod head_file;
pub mod held_out;
pub mod injection;
pub mod irt_grm;
pub mod irt_reliability;
pub mod irt_report;
pub mod judge_design;
pub mod judge_items;
pub mod judge_prompt;
pub mod judge_study;
pub mod kappa;
pub mod label_model;
pub mod leaderboard;
pub mod linalg;
pub mod ls_head;
pub mod metrics;
pub mod mn_head;
pub mod multiple_testing;
pub mod pairwise;
pub mod plackett_luce_head;
pub mod position_bias;
pub mod position_report;
pub mod power;
pub mod program_library;
pub mod program_pairs;
pub mod program_report;
pub mod program_user_scores;
pub mod program_votes;
pub mod protocol;
pub mod provenance;
pub mod quadrature;
pub mod ranking;
pub mod ratings;
pub mod reliability_report;
pub mod resample;
pub mod routing;
pub mod scored_battles;
pub mod separation;
pub mod session;
pub mod share_link;
pub mod simulate;
pub mod slices;
pub mod soft_targets;
pub mod vote_file;

pub use error::{Error, Location, Result};
