//! The selective-judging family's analysis kind ([`Kind`]): a cascade of judges calibrated and
//! tested on the judgments file `judgments`.

use crate::analysis::kind::{register_kind, Files, Kind, Roles};
use crate::io::dataset_kind::DatasetKind;
use crate::io::error::Result;
use crate::selective::cascade::{CascadeParams, CascadeReport};

register_kind! {
    /// A cascade of judges on `judgments`, each keeping the items it is confident on with a
    /// guaranteed agreement with humans, the rest left to humans (`tribunal stats cascade`).
    21 Cascade = "cascade": CascadeKind
}

impl Kind for CascadeKind {
    type Params = CascadeParams;
    type Report = CascadeReport;

    fn example() -> CascadeParams {
        CascadeParams::default()
    }

    /// One long-format CSV of judgments (a ratings file's layout, with its own columns).
    fn roles(_: &CascadeParams) -> Roles {
        Roles::none().required("judgments", DatasetKind::Ratings)
    }

    fn validate(params: &CascadeParams) -> Result<()> {
        params.validate()
    }

    fn run(params: &CascadeParams, files: &Files) -> Result<CascadeReport> {
        let file = files.get("judgments")?;
        params.fit(file.name, file.bytes)
    }
}
