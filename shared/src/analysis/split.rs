//! A run split into parts, for web workers: a [`Prepared`] run (its files read once per
//! worker) says how many independent parts it comes in (a leaderboard's bootstrap rounds, a
//! calibration's cross-validation folds) and what to show meanwhile; it computes any range of
//! the parts, in any worker; and it joins every part's [`Partial`] into the report — the report
//! [`super::run`] makes whole, to the bit (the parts depend only on the spec and their index,
//! not on the split). [`plan`], [`run_parts`] and [`finish`] do one step each from the files.
//!
//! Arguments: the spec and its inputs, as for [`super::run`]; a range of parts; the partials of
//! ranges that together cover `0..parts`, in order.
//!
//! Errors: those of [`super::run`]; [`Error::InvalidParam`] for a range past the parts, for
//! partials of another kind of part, or for partials that do not cover the run.

use super::inputs::Inputs;
use super::kind::Files;
use super::partial::Partial;
use super::registry::Report;
use super::spec::Spec;
use crate::io::error::{Error, Result};
use std::any::Any;
use std::ops::Range;

/// A spec's run with its files read once ([`Kind::prepare`](super::kind::Kind::prepare)):
/// what a web worker keeps between the jobs of one run, so that its preview, its parts and the
/// finish do not parse and fit the same files again.
pub struct Prepared {
    spec: Spec,
    inputs: Inputs,
    state: Box<dyn Any>,
}

impl Prepared {
    /// `spec` on `inputs`, checked and prepared.
    ///
    /// # Errors
    /// See the [module documentation](self).
    pub fn new(spec: &Spec, inputs: Inputs) -> Result<Self> {
        spec.check(&inputs)?;
        let state = spec
            .analysis
            .prepare_on(&Files::new(&inputs, &spec.inputs))?;
        Ok(Self {
            spec: spec.clone(),
            inputs,
            state,
        })
    }

    /// The spec it runs.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// How many parts the run comes in (0: it runs whole, [`Prepared::finish`] with no
    /// partials).
    pub fn parts(&self) -> usize {
        self.spec.analysis.parts()
    }

    /// The report to show while the parts compute, if the kind has one.
    ///
    /// # Errors
    /// See the [module documentation](self).
    pub fn preview(&self) -> Result<Option<Report>> {
        self.spec.analysis.preview_of(self.state.as_ref())
    }

    /// Parts `range` of the run; `progress` hears how many more are done.
    ///
    /// # Errors
    /// See the [module documentation](self).
    pub fn run_parts(
        &self,
        range: Range<usize>,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Partial> {
        let parts = self.parts();
        if range.start > range.end || range.end > parts {
            return Err(Error::param(
                "parts",
                format!(
                    "expected a range within 0..{parts}, found {}..{}",
                    range.start, range.end
                ),
            ));
        }
        self.spec
            .analysis
            .run_parts_of(self.state.as_ref(), range, progress)
    }

    /// The report from the partials of every part, in order.
    ///
    /// # Errors
    /// See the [module documentation](self).
    pub fn finish(&self, parts: Vec<Partial>) -> Result<Report> {
        self.spec.analysis.finish_of(
            &Files::new(&self.inputs, &self.spec.inputs),
            self.state.as_ref(),
            parts,
        )
    }
}

/// The number of parts of `spec` on `inputs` and its preview.
///
/// # Errors
/// See the [module documentation](self).
pub fn plan(spec: &Spec, inputs: &Inputs) -> Result<(usize, Option<Report>)> {
    let prepared = Prepared::new(spec, inputs.clone())?;
    Ok((prepared.parts(), prepared.preview()?))
}

/// Parts `range` of `spec`'s run on `inputs`; `progress` hears how many more are done.
///
/// # Errors
/// See the [module documentation](self).
pub fn run_parts(
    spec: &Spec,
    inputs: &Inputs,
    range: Range<usize>,
    progress: &mut dyn FnMut(usize),
) -> Result<Partial> {
    Prepared::new(spec, inputs.clone())?.run_parts(range, progress)
}

/// The report of `spec` on `inputs` from the partials of its parts.
///
/// # Errors
/// See the [module documentation](self).
pub fn finish(spec: &Spec, inputs: &Inputs, parts: Vec<Partial>) -> Result<Report> {
    Prepared::new(spec, inputs.clone())?.finish(parts)
}
