//! The programs family's analysis kinds ([`Kind`]): programmatic judges on a pairs file, the
//! label model on a vote file, and routing a committee to an LLM judge's verdicts.

use crate::analysis::kind::{register_kind, File, Files, Kind, Roles};
use crate::io::dataset_kind::DatasetKind;
use crate::io::error::Result;
use crate::programs::program_pairs::{
    judge_items_csv, parse_llm_verdicts, parse_probes, parse_program_pairs, Preference, ProgramPair,
};
use crate::programs::program_report::{
    builtin_probe_scores, builtin_scores, CommitteeReport, ProbeScores, ProgramReport,
    ProgramReportParams,
};
use crate::programs::program_user_scores::UserScores;
use crate::programs::vote_file::{parse_vote_file, VoteFile};
use serde::{Deserialize, Serialize};

/// The programs report with the pairs it escalates, as the items CSV of a judge run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgramsReport {
    #[serde(flatten)]
    pub report: ProgramReport,
    /// The escalated pairs as a judge items CSV (what `--escalate-out` writes).
    pub escalated_items_csv: String,
}

/// An LLM judge's verdicts on the pairs `ids`, in their order.
fn verdicts(input: File, ids: &[&str]) -> Result<Vec<Option<Preference>>> {
    parse_llm_verdicts(input.name, input.bytes, ids)
}

/// The committee's vote file.
fn votes(files: &Files) -> Result<VoteFile> {
    let input = files.get("votes")?;
    parse_vote_file(input.name, input.bytes)
}

register_kind! {
    /// Programmatic judges on a `pairs` file, with an LLM judge's verdicts (`llm`), bias
    /// probes (`probes`) and the user's own programs' scores (`user_scores`) when given
    /// (`tribunal stats programs`).
    12 Programs = "programs": ProgramsKind
}

impl Kind for ProgramsKind {
    type Params = ProgramReportParams;
    type Report = ProgramsReport;

    fn example() -> ProgramReportParams {
        ProgramReportParams::default()
    }

    fn roles(_: &ProgramReportParams) -> Roles {
        Roles::none()
            .required("pairs", DatasetKind::Pairs)
            .optional("llm", DatasetKind::Verdicts)
            .optional("probes", DatasetKind::Probes)
            .optional("user_scores", DatasetKind::ProgramScores)
    }

    fn run(params: &ProgramReportParams, files: &Files) -> Result<ProgramsReport> {
        let input = files.get("pairs")?;
        let pairs = parse_program_pairs(input.name, input.bytes)?;
        let ids: Vec<&str> = pairs.iter().map(|p| p.id.as_str()).collect();
        let llm = files
            .optional("llm")
            .map(|file| verdicts(file, &ids))
            .transpose()?;
        let probes = files
            .optional("probes")
            .map(|file| parse_probes(file.name, file.bytes))
            .transpose()?;
        let (n, m) = (pairs.len(), probes.as_ref().map_or(0, Vec::len));
        // The user's own programs beside the built-in ones, when their scores came along.
        let user = files
            .optional("user_scores")
            .map(|file| UserScores::parse(file.name, file.bytes, 2 * n + 4 * m))
            .transpose()?
            .unwrap_or_default();
        let scores = builtin_scores(&pairs).join(&user.pair_scores(n))?;
        let probe_scores = probes
            .as_deref()
            .map(|probes| {
                let (clean, perturbed) = builtin_probe_scores(probes);
                let (user_clean, user_perturbed) = user.probe_scores(n, m);
                Ok::<_, crate::Error>((clean.join(&user_clean)?, perturbed.join(&user_perturbed)?))
            })
            .transpose()?;
        let report = params.fit(
            &pairs,
            &scores,
            llm.as_deref(),
            probes
                .as_deref()
                .zip(probe_scores.as_ref())
                .map(|(probes, (clean, perturbed))| ProbeScores {
                    probes,
                    clean,
                    perturbed,
                }),
        )?;
        let escalated: Vec<&ProgramPair> =
            report.escalation.pairs.iter().map(|&i| &pairs[i]).collect();
        let escalated_items_csv = judge_items_csv(&escalated)?;
        Ok(ProgramsReport {
            report,
            escalated_items_csv,
        })
    }
}

register_kind! {
    /// The label model on a `votes` file (`tribunal stats label-model`).
    13 LabelModel = "label_model": LabelModelKind
}

impl Kind for LabelModelKind {
    type Params = ProgramReportParams;
    type Report = CommitteeReport;

    fn example() -> ProgramReportParams {
        ProgramReportParams::default()
    }

    fn roles(_: &ProgramReportParams) -> Roles {
        Roles::none().required("votes", DatasetKind::Votes)
    }

    fn run(params: &ProgramReportParams, files: &Files) -> Result<CommitteeReport> {
        params.committee(&votes(files)?, None)
    }
}

register_kind! {
    /// Routing a `votes` file's committee to the `llm` judge's verdicts (`tribunal stats
    /// routing`).
    14 Routing = "routing": RoutingKind
}

impl Kind for RoutingKind {
    type Params = ProgramReportParams;
    type Report = CommitteeReport;

    fn example() -> ProgramReportParams {
        ProgramReportParams::default()
    }

    fn roles(_: &ProgramReportParams) -> Roles {
        Roles::none()
            .required("votes", DatasetKind::Votes)
            .required("llm", DatasetKind::Verdicts)
    }

    fn run(params: &ProgramReportParams, files: &Files) -> Result<CommitteeReport> {
        let file = votes(files)?;
        let ids: Vec<&str> = file.ids.iter().map(String::as_str).collect();
        let llm = verdicts(files.get("llm")?, &ids)?;
        params.committee(&file, Some(&llm))
    }
}

impl crate::analysis::warnings::Warned for ProgramsReport {
    fn warnings(&self) -> Vec<crate::analysis::warnings::Warning> {
        // The program report's fields are flattened into this one's.
        self.report.warnings()
    }
}
