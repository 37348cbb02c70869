//! [`run`]: a spec on its inputs. The spec's roles and files are checked, then its
//! [`Analysis`](super::Analysis) runs the kind's [`Kind::run`](super::kind::Kind::run)
//! (the registry's dispatch).

use super::inputs::Inputs;
use super::kind::Files;
use super::registry::Report;
use super::spec::Spec;
use crate::io::error::Result;

/// Runs `spec` on `inputs`.
///
/// # Errors
/// See the [module documentation](super).
pub fn run(spec: &Spec, inputs: &Inputs) -> Result<Report> {
    spec.check(inputs)?;
    spec.analysis.run_on(&Files::new(inputs, &spec.inputs))
}
