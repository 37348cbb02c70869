//! [`Kind`]: what one analysis kind is — its settings, its report, the files it reads by role
//! and how it runs on them. Each statistic implements it beside its own code; the registry
//! ([`super::registry`]) lists the kinds once, and the spec's [`Analysis`](super::Analysis),
//! the [`Report`](super::Report), the dispatch and the roles follow from that list.

use super::inputs::{InputRef, Inputs};
use super::partial::Partial;
use crate::analysis::warnings::Warned;
use crate::io::dataset_kind::DatasetKind;
use crate::io::error::{Error, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::any::Any;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::ops::Range;

/// One analysis kind.
///
/// Model: settings ([`Kind::Params`]) that a spec records in full, files read by role
/// ([`Kind::roles`]), and a pure run from those files to a typed report ([`Kind::run`]).
pub trait Kind {
    /// Every setting, seeds included: what the spec records after `"analysis": NAME`.
    type Params: Debug + Clone + PartialEq + Serialize + DeserializeOwned;
    /// What a run returns: serialised, the JSON its `tribunal stats` subcommand prints.
    type Report: Debug + Clone + PartialEq + Serialize + DeserializeOwned + Warned;

    /// Settings to start a form from: the defaults, with an example where a setting has none.
    fn example() -> Self::Params;

    /// Files of this repository, by role, that [`Kind::example`]'s settings run on (paths from
    /// the repository's root): the tests that run every kind of the registry in a browser and
    /// from Python run a kind on these unless they list a command line of their own for it
    /// (a subcommand's). None by default; such a test fails, naming the kind, for a kind with
    /// neither.
    fn example_inputs() -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// (Feature `cli`.) The kind's `tribunal stats NAME` when the CLI has no subcommand of its
    /// own for it: its settings' options, derived from its params, as [`KindCli::of`] makes
    /// them. None by default (the kind then runs by `tribunal stats run`).
    #[cfg(feature = "cli")]
    fn cli() -> Option<KindCli> {
        None
    }

    /// The files the analysis reads with `params`, by role, each with its dataset kind.
    fn roles(params: &Self::Params) -> Roles;

    /// The settings that can be checked without the data (a saved analysis is refused up
    /// front rather than failing when opened); the rest are checked when it runs.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for a setting out of range.
    fn validate(params: &Self::Params) -> Result<()> {
        let _ = params;
        Ok(())
    }

    /// The analysis on `files` (their roles already checked against [`Kind::roles`]).
    ///
    /// # Errors
    /// The files' located parse errors, settings out of range, too little data.
    fn run(params: &Self::Params, files: &Files) -> Result<Self::Report>;

    /// How many independent parts the run's heavy work comes in (bootstrap rounds,
    /// cross-validation folds), which [`Kind::run_parts`] computes in any split (one range per
    /// web worker) and [`Kind::finish`] joins; 0 for a kind that runs whole.
    fn parts(params: &Self::Params) -> usize {
        let _ = params;
        0
    }

    /// What every part and the finish share, read from `files` once per worker (the parsed
    /// rows, a fitted point estimate, a bootstrap plan); handed back to [`Kind::preview`],
    /// [`Kind::run_parts`] and [`Kind::finish`] as it was made. Nothing by default.
    ///
    /// # Errors
    /// As [`Kind::run`].
    fn prepare(params: &Self::Params, files: &Files) -> Result<Box<dyn Any>> {
        let _ = (params, files);
        Ok(Box::new(()))
    }

    /// The report to show while the parts compute (the point leaderboard before its
    /// bootstrap); `None` by default.
    ///
    /// # Errors
    /// As [`Kind::run`].
    fn preview(params: &Self::Params, prepared: &dyn Any) -> Result<Option<Self::Report>> {
        let _ = (params, prepared);
        Ok(None)
    }

    /// Parts `range` of `0..parts(params)`, calling `progress` with the number of parts done
    /// since its last call.
    ///
    /// # Errors
    /// As [`Kind::run`]; [`Error::InvalidParam`] for a kind that runs whole.
    fn run_parts(
        params: &Self::Params,
        prepared: &dyn Any,
        range: Range<usize>,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Partial> {
        let _ = (params, prepared, range, progress);
        Err(Error::param("parts", "this analysis runs whole"))
    }

    /// The report from every part's result, the ranges in order and together `0..parts`:
    /// equal to [`Kind::run`]'s. A kind that runs whole runs.
    ///
    /// # Errors
    /// As [`Kind::run`]; [`Error::InvalidParam`] for parts that do not cover the run.
    fn finish(
        params: &Self::Params,
        files: &Files,
        prepared: &dyn Any,
        parts: Vec<Partial>,
    ) -> Result<Self::Report> {
        let _ = (prepared, parts);
        Self::run(params, files)
    }
}

/// The state [`Kind::prepare`] made, as its kind's type.
///
/// # Errors
/// [`Error::InvalidParam`] for the state of another kind (a caller that mixed two runs).
pub fn prepared<T: 'static>(prepared: &dyn Any) -> Result<&T> {
    prepared.downcast_ref::<T>().ok_or_else(|| {
        Error::param(
            "prepared",
            "expected the state of this run, found another's",
        )
    })
}

/// Declares an analysis kind's type (a unit struct with the doc given) and registers it: the
/// build (`shared/build.rs`) reads every such block under `src/` into the registry
/// ([`super::registry`]), ordered by position — 1, 2, … in the order kinds were released, a
/// new kind taking the next. The block's file implements [`Kind`] for the type.
///
/// ```text
/// register_kind! {
///     /// What it measures, on which files (`tribunal stats name`).
///     23 Variant = "name": VariantKind
/// }
/// ```
macro_rules! register_kind {
    ($(#[doc = $doc:literal])+ $position:literal $variant:ident = $name:literal : $kind:ident) => {
        $(#[doc = $doc])+
        pub struct $kind;
    };
}
pub(crate) use register_kind;

/// Declares the statistic files of `family` that register a kind of their own and that its
/// `mod.rs` does not declare (the build lists them: `shared/build.rs`).
macro_rules! kind_modules {
    ($family:literal) => {
        include!(concat!(env!("OUT_DIR"), "/kind_modules/", $family, ".rs"));
    };
}
pub(crate) use kind_modules;

/// (Feature `cli`.) A kind's settings as command-line options ([`Kind::cli`]).
#[cfg(feature = "cli")]
pub struct KindCli {
    /// One line on what the kind computes (the subcommand's help).
    pub about: &'static str,
    /// Adds the settings' options to a command.
    pub options: fn(clap::Command) -> clap::Command,
    /// The analysis with the settings the options parsed.
    pub analysis: Box<ParseAnalysis>,
}

/// The analysis from a kind's parsed options.
#[cfg(feature = "cli")]
pub type ParseAnalysis =
    dyn Fn(&clap::ArgMatches) -> std::result::Result<super::Analysis, clap::Error>;

#[cfg(feature = "cli")]
impl KindCli {
    /// The options params `P` derive (`clap::Args`), made into the analysis by `variant` — for a
    /// kind whose params are `P`: `KindCli::of(about, Analysis::Variant)`.
    pub fn of<P: clap::Args + 'static>(
        about: &'static str,
        variant: fn(P) -> super::Analysis,
    ) -> Self {
        Self {
            about,
            options: P::augment_args,
            analysis: Box::new(move |matches| P::from_arg_matches(matches).map(variant)),
        }
    }
}

/// One file an analysis reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Role {
    /// The role's name in a spec's `inputs` (`battles`, `judge.1`, `train_embeddings`, …).
    pub name: String,
    /// What the file holds: the parser a session checks it with.
    pub kind: DatasetKind,
    pub required: bool,
}

/// The files an analysis reads, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Roles(Vec<Role>);

impl Roles {
    /// No file (an analysis of settings alone).
    pub fn none() -> Self {
        Self::default()
    }

    /// With a required file in `name` holding `kind`.
    pub fn required(mut self, name: impl Into<String>, kind: DatasetKind) -> Self {
        self.0.push(Role {
            name: name.into(),
            kind,
            required: true,
        });
        self
    }

    /// With an optional file in `name` holding `kind`.
    pub fn optional(mut self, name: impl Into<String>, kind: DatasetKind) -> Self {
        self.0.push(Role {
            name: name.into(),
            kind,
            required: false,
        });
        self
    }

    /// Each role, required ones first as declared.
    pub fn iter(&self) -> impl Iterator<Item = &Role> {
        self.0.iter()
    }

    /// The kind of dataset read in `role`, if the analysis reads one there.
    pub fn kind_of(&self, role: &str) -> Option<DatasetKind> {
        self.0.iter().find(|r| r.name == role).map(|r| r.kind)
    }

    /// Every required role is among `given`, and every given role is a role of the analysis.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming the missing or unknown role.
    pub fn check<'a>(&self, given: impl Iterator<Item = &'a String> + Clone) -> Result<()> {
        let expected = || {
            let all: Vec<String> = self
                .0
                .iter()
                .map(|r| match r.required {
                    true => r.name.clone(),
                    false => format!("{} (optional)", r.name),
                })
                .collect();
            if all.is_empty() {
                "no input files".to_owned()
            } else {
                format!("the roles {}", all.join(", "))
            }
        };
        if let Some(missing) = self
            .0
            .iter()
            .find(|r| r.required && !given.clone().any(|g| *g == r.name))
        {
            return Err(Error::param(
                "inputs",
                format!(
                    "no file in the role `{}`; expected {}",
                    missing.name,
                    expected()
                ),
            ));
        }
        if let Some(unknown) = given.clone().find(|g| self.kind_of(g).is_none()) {
            return Err(Error::param(
                "inputs",
                format!("unknown role `{unknown}`; expected {}", expected()),
            ));
        }
        Ok(())
    }
}

/// The inputs of a checked spec, each named as the spec recorded it (the same bytes, so the
/// same report and the same located errors wherever the copy lies).
pub struct Files<'a> {
    inputs: &'a Inputs,
    recorded: &'a BTreeMap<String, InputRef>,
}

/// A file's recorded name and bytes.
#[derive(Debug, Clone, Copy)]
pub struct File<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
}

impl<'a> Files<'a> {
    /// `inputs` named as `recorded` names them.
    pub(super) fn new(inputs: &'a Inputs, recorded: &'a BTreeMap<String, InputRef>) -> Self {
        Self { inputs, recorded }
    }

    /// The file in `role`, if one was given.
    pub fn optional(&self, role: &str) -> Option<File<'a>> {
        let input = self.inputs.optional(role)?;
        // A spec that recorded no name (a version-1 session's) names the file as given.
        let name = match self.recorded.get(role) {
            Some(recorded) if !recorded.name.is_empty() => &recorded.name,
            _ => &input.name,
        };
        Some(File {
            name,
            bytes: &input.bytes,
        })
    }

    /// The file in `role`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] when none was given.
    pub fn get(&self, role: &str) -> Result<File<'a>> {
        self.optional(role)
            .ok_or_else(|| Error::param("inputs", format!("no file in the role `{role}`")))
    }
}
