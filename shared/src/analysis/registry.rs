//! The registry: every analysis kind, once. From this list follow the spec's [`Analysis`]
//! (the kind's settings), the [`Report`] (its result), their names, the dispatch that runs a
//! spec, the roles a spec reads with their dataset kinds, and the examples a form starts from.
//! The list is the kinds' `register_kind!` blocks, gathered by the build (`shared/build.rs`)
//! into `every_kind!`; a kind's [`Kind`] implementation sits beside its block, in its family's
//! `kinds.rs` or in its statistic's own file (see ARCHITECTURE.md, "Adding an analysis kind").

use super::kind::{Files, Kind, Roles};
use super::partial::Partial;
use super::warnings::{Warned, Warning};
use crate::io::error::Result;
use serde::{Deserialize, Serialize};

/// Declares [`Analysis`] and [`Report`] with one variant per kind, tied by the kind's
/// [`Kind::Params`] and [`Kind::Report`], and their dispatch.
macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident = $name:literal : $kind:ty,)+) => {
        /// A statistic with every setting: one variant per analysis kind. Serialised, the
        /// kind's name is the `analysis` field and its settings follow.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "analysis")]
        pub enum Analysis {
            $($(#[$doc])* #[serde(rename = $name)] $variant(<$kind as Kind>::Params),)+
        }

        /// The result of one analysis: the variant of its [`Analysis`]. Serialised, a report is
        /// the JSON document its `tribunal stats` subcommand prints (without the `record`),
        /// opening with `"analysis"`: the kind, as the spec names it.
        ///
        /// A report deserialises back into the same variant from any self-describing format
        /// that keeps non-finite numbers (the app's page ↔ web-worker messages, CBOR). JSON
        /// writes an undefined statistic (NaN) as `null`, which is what a reader of the CLI's
        /// document sees; such a document is for reading, not for decoding back.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "analysis")]
        pub enum Report {
            $(#[serde(rename = $name)] $variant(Box<<$kind as Kind>::Report>),)+
        }

        impl Analysis {
            /// Every kind's name, in the registry's order.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The analysis's name, as the spec's `analysis` field spells it.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => $name,)+
                }
            }

            /// Every analysis kind once, with the settings a form starts from
            /// ([`Kind::example`]).
            pub fn each_kind() -> Vec<Self> {
                vec![$(Self::$variant(<$kind as Kind>::example()),)+]
            }

            /// The files of this repository, by role, that [`Analysis::each_kind`]'s settings
            /// of this kind run on ([`Kind::example_inputs`]).
            pub fn example_inputs(&self) -> &'static [(&'static str, &'static str)] {
                match self {
                    $(Self::$variant(_) => <$kind as Kind>::example_inputs(),)+
                }
            }

            /// (Feature `cli`.) The options of kind `name` ([`Kind::cli`]), if it has them.
            #[cfg(feature = "cli")]
            pub fn cli_of(name: &str) -> Option<super::kind::KindCli> {
                match name {
                    $($name => <$kind as Kind>::cli(),)+
                    _ => None,
                }
            }

            /// Checks the settings that can be checked without the data ([`Kind::validate`]).
            ///
            /// # Errors
            /// [`Error::InvalidParam`](crate::Error) for a setting out of range.
            pub fn validate(&self) -> Result<()> {
                match self {
                    $(Self::$variant(params) => <$kind as Kind>::validate(params),)+
                }
            }

            /// The files the analysis reads, by role, with their dataset kinds.
            pub fn roles(&self) -> Roles {
                match self {
                    $(Self::$variant(params) => <$kind as Kind>::roles(params),)+
                }
            }

            /// Runs the analysis on checked `files`.
            pub(super) fn run_on(&self, files: &Files) -> Result<Report> {
                Ok(match self {
                    $(Self::$variant(params) => {
                        Report::$variant(Box::new(<$kind as Kind>::run(params, files)?))
                    })+
                })
            }

            /// The number of parts its run comes in ([`Kind::parts`]).
            pub fn parts(&self) -> usize {
                match self {
                    $(Self::$variant(params) => <$kind as Kind>::parts(params),)+
                }
            }

            /// [`Kind::prepare`] on checked `files`.
            pub(super) fn prepare_on(&self, files: &Files) -> Result<Box<dyn std::any::Any>> {
                match self {
                    $(Self::$variant(params) => <$kind as Kind>::prepare(params, files),)+
                }
            }

            /// [`Kind::preview`] of a run prepared by [`Analysis::prepare_on`].
            pub(super) fn preview_of(&self, prepared: &dyn std::any::Any) -> Result<Option<Report>> {
                Ok(match self {
                    $(Self::$variant(params) => <$kind as Kind>::preview(params, prepared)?
                        .map(|report| Report::$variant(Box::new(report))),)+
                })
            }

            /// [`Kind::run_parts`] of a run prepared by [`Analysis::prepare_on`].
            pub(super) fn run_parts_of(
                &self,
                prepared: &dyn std::any::Any,
                range: std::ops::Range<usize>,
                progress: &mut dyn FnMut(usize),
            ) -> Result<Partial> {
                match self {
                    $(Self::$variant(params) => {
                        <$kind as Kind>::run_parts(params, prepared, range, progress)
                    })+
                }
            }

            /// [`Kind::finish`] of a run prepared by [`Analysis::prepare_on`] on `files`.
            pub(super) fn finish_of(
                &self,
                files: &Files,
                prepared: &dyn std::any::Any,
                parts: Vec<Partial>,
            ) -> Result<Report> {
                Ok(match self {
                    $(Self::$variant(params) => Report::$variant(Box::new(
                        <$kind as Kind>::finish(params, files, prepared, parts)?,
                    )),)+
                })
            }
        }

        impl Report {
            /// The analysis's name, as the report's `analysis` field spells it.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => $name,)+
                }
            }

            /// Every warning of the report and of its parts, each with where it was raised
            /// ([`Warned`]).
            pub fn warnings(&self) -> Vec<Warning> {
                match self {
                    $(Self::$variant(report) => report.warnings(),)+
                }
            }
        }
    };
}

// The kinds, as the build gathered them from their `register_kind!` blocks: `every_kind!`.
include!(concat!(env!("OUT_DIR"), "/every_kind.rs"));

every_kind!(registry);
