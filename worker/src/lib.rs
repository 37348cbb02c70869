//! The Tribunal worker. Bindings only: statistics live in the `tribunal` crate; this crate
//! reads files, stores events, serves HTTP and WebSocket, and prints JSON.
//!
//! - [`cli`]: argument parsing.
//! - [`stats`]: the `tribunal stats …` subcommands, one module per family.
//! - [`engine`]: the local judge engine (candle): device choice, MiniLM embeddings, GGUF judge.
//! - [`judge_run`]: `tribunal judge` and `tribunal embed` on files.
//! - [`runs`]: judge runs inside the server, their event streams and watchers.
//! - [`server`]: `tribunal serve` — the built app, the API and the WebSocket endpoint.
//! - [`sessions`]: the sessions API (share links, owner tokens, export and import).
//! - [`store`]: the embedded SQLite store.
//! - [`demo`]: the demo event stream.

pub mod cli;
pub mod demo;
pub mod engine;
pub mod judge_run;
pub mod runs;
pub mod server;
pub mod sessions;
pub mod stats;
pub mod store;
