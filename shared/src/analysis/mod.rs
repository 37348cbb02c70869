//! Analyses as specs: every statistic Tribunal computes, with its settings and the datasets it
//! reads, as one serialisable [`Spec`] that anyone recomputes with [`run`].
//!
//! Model: a [`Spec`] is an [`Analysis`] (which statistic, with every setting, seeds included)
//! and its inputs by role — `battles`, `ratings`, `judge.1`, `train`, … — each named by the
//! [`content_hash`](crate::io::provenance::content_hash) of the file's bytes and the file's name.
//! It
//! holds no numbers: the CLI (`tribunal stats <name>` builds one from its flags; `tribunal stats
//! run SPEC.json --input ROLE=FILE` runs a saved one), the page and a saved session all call
//! [`run`] on the same spec and the same bytes and get the same [`Report`].
//!
//! Split runs: [`split`] runs a spec in parts (bootstrap rounds, cross-validation folds) that
//! web workers share, and joins them into the same report.
//!
//! Kinds: each analysis kind implements [`kind::Kind`] (its settings, report, roles with
//! their dataset kinds, validation and run) beside its `register_kind!` block, in its family's
//! `kinds.rs` or its statistic's own file; the build gathers the blocks into the registry, and
//! [`Analysis`], [`Report`], their names, the roles and the dispatch of [`run`] follow from it.
//!
//! Arguments: the spec and the [`Inputs`] (role → file name and bytes).
//!
//! Returns: the typed [`Report`] of the analysis; serialised, each report is the JSON its
//! `tribunal stats` subcommand prints (without the `record`).
//!
//! Errors: a spec of another [`SPEC_VERSION`], inputs whose roles are not the analysis's, or a
//! file whose content hash is not the spec's are [`Error::InvalidParam`](crate::Error); then the
//! statistic's own errors (located parse errors, settings out of range, too little data).

mod inputs;
pub mod kind;
pub mod partial;
mod registry;
mod run;
mod spec;
pub mod split;
pub mod warnings;

pub use inputs::{Input, InputRef, Inputs};
pub(crate) use kind::kind_modules;
pub use registry::{Analysis, Report};
pub use run::run;
pub use spec::{Spec, SPEC_VERSION};
