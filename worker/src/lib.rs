//! The Tribunal worker. Bindings only: statistics live in the `tribunal` crate; this crate
//! reads files, stores events, serves HTTP and WebSocket, and prints JSON.
//!
//! - [`cli`]: argument parsing.
//! - [`stats`]: the `tribunal stats …` subcommands, one module per family.
//! - [`engine`]: the judge engine: device choice, MiniLM embeddings, the local GGUF judge
//!   (candle) and the OpenAI-compatible backend.
//! - [`judge`]: `tribunal judge`, `tribunal work` and `tribunal embed`.
//! - [`runs`]: judge runs inside the server, their event streams and watchers.
//! - [`server`]: `tribunal serve` — the built app, the API and the WebSocket endpoint.
//! - [`install_paths`]: `dist/` and `models/` found from the current directory, else beside the
//!   binary and above (a checkout's `target/release/tribunal` started elsewhere).
//! - [`build_info`]: this build's tool version and git commit, for the records it writes.
//! - [`assets`]: the built app in memory, compressed once, with its caching and security headers.
//! - [`sessions`]: the sessions API (share links, owner tokens, export and import).
//! - [`limits`]: what one client may ask of the server, and the errors past each limit.
//! - [`store`]: the store: embedded SQLite or PostgreSQL, one trait, with the run queue.
//! - [`demo`]: the demo event stream.
//! - [`study`]: `tribunal study`, the LLMFAO study: judge a budgeted sample, analyse, share,
//!   report.

pub mod assets;
pub mod build_info;
pub mod cli;
pub mod convert;
pub mod demo;
pub mod engine;
pub mod input_file;
pub mod install_paths;
pub mod judge;
pub mod limits;
pub mod runs;
pub mod server;
pub mod sessions;
pub mod stats;
pub mod store;
pub mod study;
