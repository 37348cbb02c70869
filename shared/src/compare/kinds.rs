//! The compare family's analysis kind ([`Kind`]): systems compared on the pointwise scores of
//! `scores`, with human labels from a `gold` file when given.

use crate::analysis::kind::{register_kind, File, Files, Kind, Roles};
use crate::compare::comparison::{CompareParams, Comparison};
use crate::io::dataset_kind::DatasetKind;
use crate::io::error::Result;

register_kind! {
    /// Systems compared on the pointwise scores of `scores`: each system's mean or pass rate,
    /// paired differences, slices and judge-corrected rates (`tribunal stats compare`).
    20 Compare = "compare": CompareKind
}

impl Kind for CompareKind {
    type Params = CompareParams;
    type Report = Comparison;

    fn example() -> CompareParams {
        CompareParams::default()
    }

    fn roles(_: &CompareParams) -> Roles {
        Roles::none()
            .required("scores", DatasetKind::Scores)
            .optional("gold", DatasetKind::Scores)
    }

    fn validate(params: &CompareParams) -> Result<()> {
        params.validate()
    }

    fn run(params: &CompareParams, files: &Files) -> Result<Comparison> {
        let File { name, bytes } = files.get("scores")?;
        let gold = files.optional("gold").map(|g| (g.name, g.bytes));
        params.fit_with_gold(name, bytes, gold)
    }
}
