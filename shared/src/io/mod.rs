//! Reading inputs: the strict CSV reader, located errors, embedding arrays, and the provenance of
//! a result (tool version, content hashes).
//!
//! - [`csv_row`]: the strict CSV reader every parser shares: located errors, CRLF, BOM, unclosed
//!   quotes, separator hints.
//! - [`csv_preview`]: a CSV's header and first records as text, for a form mapping its columns.
//! - [`error`]: `Error` and `Location`: every input error names source, line, column and field.
//! - [`embedding_file`]: `.npy` / `.safetensors` embedding arrays (read; `npy_f32` writes what
//!   `tribunal embed` saves).
//! - [`provenance`]: the tool version, git commit and input SHA-256s recorded with every result.
//! - [`dataset_kind`]: what a file holds (battles, ratings, scores, …): a session dataset's kind
//!   and the kind each role of an analysis reads.
//! - [`checks`]: the range checks settings share (a level in (0, 1), a tolerance > 0, an
//!   iteration count ≥ 1), each naming the setting.
//! - `cli_values` (feature `cli`): the command-line forms of pairs (`A,B`, `LO,HI`) that
//!   settings structs' derived options read.
//! - [`first_seen`]: the line where each key of a file was first seen (a repeated id's first
//!   line), indexed by hash.
//! - [`readable`]: numbers as readers see them (`p < 0.001`, never `p = 0.000`).
//! - [`cbor`]: the encoding of the app's page ↔ web-worker messages (tagged enums decode,
//!   NaN and ±∞ kept).

pub mod cbor;
pub mod checks;
#[cfg(feature = "cli")]
pub mod cli_values;
pub mod csv_preview;
pub(crate) mod csv_row;
pub mod dataset_kind;
pub mod embedding_file;
pub mod error;
pub mod first_seen;
pub mod provenance;
pub mod readable;
