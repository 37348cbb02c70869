//! The PPI family's analysis kinds ([`Kind`]): prediction-powered win rates and leaderboard of
//! a labelled-battles file, and the judge value gauge on one.

use crate::analysis::kind::{File, Files, Kind, Roles};
use crate::io::dataset_kind::DatasetKind;
use crate::io::error::Result;
use crate::ppi::judge_value::{JudgeValue, JudgeValueParams};
use crate::ppi::ppi_report::{PpiParams, PpiReport};

/// Prediction-powered win rates and leaderboard of `battles`: the judge's labels on every
/// battle, human labels on some.
pub struct PpiKind;

impl Kind for PpiKind {
    type Params = PpiParams;
    type Report = PpiReport;

    fn example() -> PpiParams {
        PpiParams::default()
    }

    fn roles(_: &PpiParams) -> Roles {
        Roles::none().required("battles", DatasetKind::LabelledBattles)
    }

    fn validate(params: &PpiParams) -> Result<()> {
        params.validate()
    }

    fn run(params: &PpiParams, files: &Files) -> Result<PpiReport> {
        let File { name, bytes } = files.get("battles")?;
        params.fit(name, bytes)
    }
}

/// The judge value gauge of `battles`: the human-labelled rows are the pilot.
pub struct JudgeValueKind;

impl Kind for JudgeValueKind {
    type Params = JudgeValueParams;
    type Report = JudgeValue;

    fn example() -> JudgeValueParams {
        JudgeValueParams::default()
    }

    fn roles(_: &JudgeValueParams) -> Roles {
        Roles::none().required("battles", DatasetKind::LabelledBattles)
    }

    fn validate(params: &JudgeValueParams) -> Result<()> {
        params.validate()
    }

    fn run(params: &JudgeValueParams, files: &Files) -> Result<JudgeValue> {
        let File { name, bytes } = files.get("battles")?;
        params.fit(name, bytes)
    }
}
