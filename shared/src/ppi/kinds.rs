//! The PPI family's analysis kinds ([`Kind`]): prediction-powered win rates and leaderboard of
//! a labelled-battles file, and the judge value gauge on one.

use crate::analysis::kind::{register_kind, File, Files, Kind, Roles};
use crate::io::dataset_kind::DatasetKind;
use crate::io::error::Result;
use crate::ppi::judge_value::{JudgeValue, JudgeValueParams};
use crate::ppi::ppi_report::{PpiParams, PpiReport};

register_kind! {
    /// Prediction-powered win rates and leaderboard of a labelled-battles file `battles`: the
    /// judge's labels on every battle, human labels on some (`tribunal stats ppi`).
    15 Ppi = "ppi": PpiKind
}

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

register_kind! {
    /// What a judge is worth, from the human-labelled rows of a labelled-battles file
    /// `battles`: agreement, ρ, PPI's labels per label and the most any debiasing can save
    /// (`tribunal stats judge-value`).
    16 JudgeValue = "judge_value": JudgeValueKind
}

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
