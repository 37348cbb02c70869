//! `tribunal judge`, `tribunal work` and `tribunal embed`: the judge engine on files.
//!
//! `judge --config judge.toml --input items.csv --out results.jsonl` renders each item with the
//! configured prompt ([`tribunal::judging::judge_prompt`]), runs the judge, parses the answer and
//! writes one JSON line per judgment as it completes: the label (for a pairwise prompt also the
//! winner in the file's orientation), the feedback, p_s over the labels and where it was read,
//! token counts and latency, and with `embed_rationale` the embedding of the rationale: MiniLM's
//! of the feedback (or of the whole answer when it does not parse), or with
//! `rationale_embedding = "judge"` the judge's own mean final-layer hidden state over the
//! answer's tokens up to the score position, a by-product of generating it.
//! An answer that does not parse is written with its raw text and the reason, and counted.
//! The judge is the local GGUF model or an OpenAI-compatible server (`[backend]`).
//!
//! A run is queued in the store (`--data-dir`'s SQLite file, or `--store postgres://…`) as its
//! spec and one unit per planned judgment. The `judge` process and any `tribunal work`
//! processes on the same store claim units in batches (leases renewed by a heartbeat), judge
//! them and store each judgment with its unit's `done` mark in one transaction, under the
//! idempotent key (session, item, order, repeat, variant): whatever is killed when, a rerun of
//! the same session resumes, nothing is judged twice or lost, and a dead worker's units are
//! claimed again once its lease lapses. `--out` is written at the end from the store, in plan
//! order, whichever worker made each judgment. The run's reproducibility record (judge model
//! and hash or endpoint, prompt and its hash, decoding and seed, items hash, code version,
//! timestamps, token counts, throughput) goes to `OUT.run.json`.
//!
//! `embed --input texts.csv --column text --out embeddings.npy` writes the unit-length MiniLM
//! embedding of each row's text as an n × 384 float32 `.npy` (what `stats calibrate
//! --train-embeddings` reads), or as JSON lines for any other extension.
//!
//! Its parts, in the order a run flows through them:
//! - [`config`]: `judge.toml` ([`JudgeConfig`]) and the engine flags ([`EngineArgs`]).
//! - [`spec`]: [`RunSpec`], the config checked against the items, its planned judgments and
//!   store keys, and its queued form.
//! - [`judgment`]: one planned judgment, from the rendered prompt to its stored JSON line.
//! - [`queue`]: claiming, judging and storing units under leases; [`queue_run`],
//!   [`run_judge`] and `tribunal work` ([`work`]).
//! - [`record`]: [`record::RunRecord`], the run's reproducibility record.
//! - [`events`]: a served run's event stream, stored by whichever process does its work.
//! - [`cascade`]: the end of one judge of a cascade (`[escalate]`): the next judge's run on the
//!   items it passes on, or the items left to people.
//! - [`commands`]: `tribunal judge` ([`judge`]) and `tribunal embed` ([`embed`],
//!   [`embed_texts`]) on files.
//!
//! The server's runs ([`crate::runs`]), its sessions API and `tribunal stats calibrate
//! --rationale` use this family through the re-exports below; nothing here imports
//! [`crate::stats`] (the CSV text column both read is [`crate::input_file::read_texts`]).

pub mod cascade;
pub mod commands;
pub mod config;
pub mod events;
pub mod judgment;
pub mod queue;
pub mod record;
pub mod spec;

pub use commands::{embed, embed_texts, judge, EmbedArgs, JudgeArgs};
pub use config::EngineArgs;
pub use queue::{queue_run, run_judge, work, WorkArgs, WorkerArgs};
pub use spec::RunSpec;
