//! Judge runs: prompts and their parsers, the run design, items, injection flags.
//!
//! - [`judge_prompt`]: the judge prompts (Prometheus absolute and relative, seed 002's six
//!   criteria, seed 001's binary rubric) and their parsers.
//! - [`answer_format`]: the JSON prompts' answers as segments a decoder walks under
//!   constraint (and as a GBNF grammar).
//! - [`judge_design`]: a judge run's judgments (orders, repeats, prompt variations) and how each
//!   prompt is shown (criterion order, blinded names).
//! - [`judge_items`]: the items CSV of a judge run (id, instruction, response[, response_b]).
//! - [`injection`]: prompt-injection flags on judged texts (seed 001 Tip 17).
//! - [`judge_config`]: a run's configuration (`judge.toml`) and the request that starts one.
//! - [`escalation`]: a run as a cascade: item confidences, the items a tier passes on, the
//!   cascade's judgments file.

pub mod answer_format;
pub mod escalation;
pub mod injection;
pub mod judge_config;
pub mod judge_design;
pub mod judge_items;
pub mod judge_prompt;
