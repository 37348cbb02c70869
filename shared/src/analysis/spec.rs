//! [`Spec`]: one analysis with every setting and its inputs by role.

use super::inputs::{InputRef, Inputs};
use super::registry::Analysis;
use crate::io::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The spec layout this crate writes and reads.
pub const SPEC_VERSION: u32 = 1;

/// An analysis with its inputs: what a saved analysis, a share link and `tribunal stats run`
/// recompute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    /// [`SPEC_VERSION`] when written.
    pub version: u32,
    /// The statistic and its settings (`"analysis": "leaderboard", …`).
    #[serde(flatten)]
    pub analysis: Analysis,
    /// Role → the file read in that role.
    pub inputs: BTreeMap<String, InputRef>,
}

impl Spec {
    /// `analysis` on `inputs` (their content hashes and names become the spec's inputs).
    pub fn new(analysis: Analysis, inputs: &Inputs) -> Self {
        Self {
            version: SPEC_VERSION,
            analysis,
            inputs: inputs.refs(),
        }
    }

    /// The spec's version is this crate's, its roles are its analysis's, and `inputs` are the
    /// same files (role for role, content hash for content hash).
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming what differs.
    pub fn check(&self, inputs: &Inputs) -> Result<()> {
        if self.version != SPEC_VERSION {
            return Err(Error::param(
                "version",
                format!(
                    "this build reads analysis specs of version {SPEC_VERSION}, found {}",
                    self.version
                ),
            ));
        }
        self.analysis.roles().check(self.inputs.keys())?;
        inputs.check_against(&self.inputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_names_every_analysis_once_with_settings_that_validate_and_round_trip() {
        let kinds = Analysis::each_kind();
        let names: Vec<&str> = kinds.iter().map(Analysis::name).collect();
        // Saved specs name their kind: every name released stays, in its place; a new kind
        // comes after them (and needs no line here).
        let released = [
            "leaderboard",
            "judge_study",
            "conformal",
            "agreement",
            "aa",
            "consistency",
            "position",
            "irt",
            "irt_table",
            "calibration",
            "power",
            "programs",
            "label_model",
            "routing",
            "ppi",
            "judge_value",
            "style",
            "self_preference",
            "length_control",
            "compare",
            "cascade",
        ];
        assert_eq!(names[..released.len()], released);
        let mut distinct = names.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), names.len(), "a name twice in {names:?}");
        for analysis in &kinds {
            analysis.validate().unwrap();
            let json = serde_json::to_string(analysis).unwrap();
            assert!(json.starts_with(&format!("{{\"analysis\":\"{}\"", analysis.name())));
            let back: Analysis = serde_json::from_str(&json).unwrap();
            assert_eq!(&back, analysis);
        }
        // The study reads two battles files joined on `id`, as a judge run's battles are.
        let roles: Vec<String> = kinds[1].roles().iter().map(|r| r.name.clone()).collect();
        assert_eq!(roles, ["human", "judge"]);
        assert_eq!(Analysis::NAMES, names.as_slice());
    }

    #[test]
    fn each_role_names_the_kind_of_dataset_a_session_checks_it_as() {
        use crate::io::dataset_kind::DatasetKind;
        let kinds = Analysis::each_kind();
        let of = |name: &str, role: &str| {
            let analysis = kinds.iter().find(|a| a.name() == name).unwrap();
            analysis.roles().kind_of(role)
        };
        assert_eq!(of("leaderboard", "battles"), Some(DatasetKind::Battles));
        assert_eq!(of("ppi", "battles"), Some(DatasetKind::LabelledBattles));
        assert_eq!(
            of("programs", "user_scores"),
            Some(DatasetKind::ProgramScores)
        );
        assert_eq!(of("programs", "llm"), Some(DatasetKind::Verdicts));
        assert_eq!(of("style", "answers"), Some(DatasetKind::Pairs));
        assert_eq!(
            of("calibration", "test_embeddings"),
            Some(DatasetKind::Embeddings)
        );
        assert_eq!(of("compare", "gold"), Some(DatasetKind::Scores));
        assert_eq!(of("leaderboard", "judge"), None);
        assert!(kinds
            .iter()
            .find(|a| a.name() == "power")
            .unwrap()
            .roles()
            .iter()
            .next()
            .is_none());
        // Required roles must be given, unknown ones are refused.
        let board = &kinds[0];
        let given = ["judge".to_owned()];
        let message = board.roles().check(given.iter()).unwrap_err().to_string();
        assert!(
            message.contains("no file in the role `battles`"),
            "{message}"
        );
        let given = ["battles".to_owned(), "judge".to_owned()];
        let message = board.roles().check(given.iter()).unwrap_err().to_string();
        assert!(message.contains("unknown role `judge`"), "{message}");
    }
}
