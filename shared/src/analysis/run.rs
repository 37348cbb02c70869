//! [`run`]: a spec on its inputs. The one place where files become reports: each analysis
//! reads its roles, parses them and calls its statistic.

use super::inputs::{InputRef, Inputs};
use super::report::{
    AgreementWithSlices, CalibrationReport, ConformalReport, IrtTable, PowerTable, ProgramsReport,
    Report,
};
use super::spec::StudySpec;
use super::spec::{
    AgreementSpec, Analysis, CalibrationSpec, LeaderboardSpec, PowerSpec, SelfPreferenceSpec, Spec,
    StyleSpec,
};
use crate::calibration::calibration_data::CalibrationData;
use crate::calibration::calibration_data::{parse_calibration, parse_calibration_with_embeddings};
use crate::io::embedding_file::read_embeddings;
use crate::io::error::{Error, Result};
use crate::programs::program_pairs::{
    judge_items_csv, parse_llm_verdicts, parse_probes, parse_program_pairs, Preference, ProgramPair,
};
use crate::programs::program_report::{
    builtin_probe_scores, builtin_scores, ProbeScores, ProgramReportParams,
};
use crate::programs::program_user_scores::UserScores;
use crate::programs::vote_file::{parse_vote_file, VoteFile};
use crate::rankings::bt_bootstrap::BtBootstrapParams;
use crate::rankings::judge_study::JudgeStudy;
use crate::rankings::leaderboard::{bradley_terry_leaderboard, Leaderboard};
use crate::rankings::length_battles::parse_length_battles;
use crate::rankings::scored_battles::{join_battle_files, parse_scored_battles};
use crate::rankings::self_preference::SelfPreference;
use crate::rankings::style_control::StyleControl;
use crate::rankings::styled_battles::{styled_by_answers, styled_by_columns};
use crate::reliability::power::PowerParams;
use crate::reliability::reliability_report::RatingsFile;
use std::collections::BTreeMap;

/// Runs `spec` on `inputs`.
///
/// # Errors
/// See the [module documentation](super).
pub fn run(spec: &Spec, inputs: &Inputs) -> Result<Report> {
    spec.check(inputs)?;
    let files = Files {
        inputs,
        spec: &spec.inputs,
    };
    Ok(match &spec.analysis {
        Analysis::Leaderboard(params) => {
            Report::Leaderboard(Box::new(leaderboard(params, &files)?))
        }
        Analysis::JudgeStudy(params) => Report::JudgeStudy(Box::new(study(params, &files)?)),
        Analysis::Conformal(params) => {
            Report::Conformal(Box::new(ConformalReport::of(&study(params, &files)?)))
        }
        Analysis::Agreement(params) => Report::Agreement(Box::new(agreement(params, &files)?)),
        Analysis::Aa(params) => {
            Report::Aa(Box::new(params.fit(&files.ratings("ratings", false)?)?))
        }
        Analysis::Consistency(params) => {
            Report::Consistency(Box::new(params.fit(&files.ratings("ratings", true)?)?))
        }
        Analysis::Position(params) => {
            Report::Position(Box::new(params.fit(&files.ratings("ratings", true)?)?))
        }
        Analysis::Irt(params) | Analysis::IrtTable(params) => {
            let human = files
                .optional("human")
                .map(|_| files.ratings("human", true))
                .transpose()?;
            let input = files.ratings("ratings", true)?;
            match &spec.analysis {
                Analysis::IrtTable(_) => Report::IrtTable(Box::new(IrtTable {
                    statistic: "irt_table".to_owned(),
                    cells: params.fit_each(&input, human.as_ref())?,
                })),
                _ => Report::Irt(Box::new(params.fit(&input, human.as_ref())?)),
            }
        }
        Analysis::Calibration(params) => {
            Report::Calibration(Box::new(calibration(params, &files)?))
        }
        Analysis::Power(params) => Report::Power(Box::new(power(params)?)),
        Analysis::Programs(params) => Report::Programs(Box::new(programs(params, &files)?)),
        Analysis::LabelModel(params) => {
            Report::LabelModel(Box::new(params.committee(&votes(&files)?, None)?))
        }
        Analysis::Routing(params) => {
            let file = votes(&files)?;
            let ids: Vec<&str> = file.ids.iter().map(String::as_str).collect();
            let llm = verdicts(files.get("llm")?, &ids)?;
            Report::Routing(Box::new(params.committee(&file, Some(&llm))?))
        }
        Analysis::Ppi(params) => {
            let file = files.get("battles")?;
            Report::Ppi(Box::new(params.fit(file.name, file.bytes)?))
        }
        Analysis::Style(spec) => Report::Style(Box::new(style(spec, &files)?)),
        Analysis::SelfPreference(spec) => {
            Report::SelfPreference(Box::new(self_preference(spec, &files)?))
        }
        Analysis::LengthControl(params) => {
            let file = files.get("battles")?;
            Report::LengthControl(Box::new(
                params.fit(&parse_length_battles(file.name, file.bytes)?)?,
            ))
        }
        Analysis::Compare(params) => {
            let file = files.get("scores")?;
            let gold = files.optional("gold").map(|g| (g.name, g.bytes));
            Report::Compare(Box::new(params.fit_with_gold(file.name, file.bytes, gold)?))
        }
    })
}

/// Style control on the battles, their features from the `answers` file when given, else from
/// the battles file's columns.
fn style(spec: &StyleSpec, files: &Files) -> Result<StyleControl> {
    let battles = files.get("battles")?;
    let battles = (battles.name, battles.bytes);
    let data = match files.optional("answers") {
        Some(answers) => styled_by_answers(battles, (answers.name, answers.bytes), &spec.key)?,
        None => styled_by_columns(battles, &spec.columns)?,
    };
    spec.style.fit(&data)
}

/// Self-preference on one scored-battles file, or on human battles joined with the judge's
/// (the join's warnings first).
fn self_preference(spec: &SelfPreferenceSpec, files: &Files) -> Result<SelfPreference> {
    match &spec.key {
        Some(key) => {
            let (human, judge) = (files.get("human")?, files.get("judge")?);
            let (_, joined) =
                join_battle_files((human.name, human.bytes), (judge.name, judge.bytes), key)?;
            let mut report = spec.self_preference.fit(&joined.data)?;
            report.warnings.splice(0..0, joined.summary.warnings());
            Ok(report)
        }
        None => {
            let input = files.get("scored_battles")?;
            spec.self_preference
                .fit(&parse_scored_battles(input.name, input.bytes)?)
        }
    }
}

/// The inputs of a checked spec, each named as the spec recorded it (the same bytes, so the
/// same report and the same located errors wherever the copy lies).
struct Files<'a> {
    inputs: &'a Inputs,
    spec: &'a BTreeMap<String, InputRef>,
}

/// A file's recorded name and bytes.
#[derive(Clone, Copy)]
struct File<'a> {
    name: &'a str,
    bytes: &'a [u8],
}

impl<'a> Files<'a> {
    fn optional(&self, role: &str) -> Option<File<'a>> {
        let input = self.inputs.optional(role)?;
        // A spec that recorded no name (a version-1 session's) names the file as given.
        let name = match self.spec.get(role) {
            Some(recorded) if !recorded.name.is_empty() => &recorded.name,
            _ => &input.name,
        };
        Some(File {
            name,
            bytes: &input.bytes,
        })
    }

    fn get(&self, role: &str) -> Result<File<'a>> {
        self.optional(role)
            .ok_or_else(|| Error::param("inputs", format!("no file in the role `{role}`")))
    }

    /// The file in `role` as ratings; without a rater column, its rater is named after the
    /// file when `named` holds.
    fn ratings(&self, role: &str, named: bool) -> Result<RatingsFile> {
        let file = self.get(role)?;
        let bytes = file.bytes.to_vec();
        Ok(if named {
            RatingsFile::judge(file.name, bytes)
        } else {
            RatingsFile {
                source: file.name.to_owned(),
                default_rater: None,
                bytes,
            }
        })
    }
}

fn leaderboard(params: &LeaderboardSpec, files: &Files) -> Result<Leaderboard> {
    let input = files.get("battles")?;
    let (battles, clusters) = params.battles(input.name, input.bytes)?;
    let mut board = bradley_terry_leaderboard(input.name, &battles, &params.bradley_terry)?;
    if let Some(anchor) = &params.anchor {
        board = board.anchored(anchor, &battles)?;
    }
    if params.bootstrap.rounds > 0 {
        let mut plan = BtBootstrapParams {
            bt: params.bradley_terry,
            bootstrap: params.bootstrap,
        }
        .plan(&battles, clusters.as_deref())?;
        if let Some(anchor) = &params.anchor {
            plan = plan.anchored(anchor)?;
        }
        let bootstrap = plan.summarise(&plan.rounds(0..params.bootstrap.rounds)?)?;
        board = board.with_bootstrap(&bootstrap)?;
    }
    Ok(board)
}

fn study(params: &StudySpec, files: &Files) -> Result<JudgeStudy> {
    match &params.key {
        Some(key) => {
            let (human, judge) = (files.get("human")?, files.get("judge")?);
            let (source, joined) =
                join_battle_files((human.name, human.bytes), (judge.name, judge.bytes), key)?;
            params.study.fit_joined(&source, &joined)
        }
        None => {
            let input = files.get("scored_battles")?;
            let data = parse_scored_battles(input.name, input.bytes)?;
            params.study.fit(input.name, &data)
        }
    }
}

fn agreement(params: &AgreementSpec, files: &Files) -> Result<AgreementWithSlices> {
    let input = files.ratings("ratings", false)?;
    let judges = (1..=params.judges)
        .map(|i| files.ratings(&AgreementSpec::judge_role(i), true))
        .collect::<Result<Vec<_>>>()?;
    let report = params.report.fit(&input, &judges)?;
    let slices = params
        .slices
        .as_ref()
        .map(|slices| slices.fit(&params.report, &input, &judges))
        .transpose()?;
    Ok(AgreementWithSlices { report, slices })
}

fn calibration(params: &CalibrationSpec, files: &Files) -> Result<CalibrationReport> {
    let (train, test) = (files.get("train")?, files.get("test")?);
    let embeddings = match (
        files.optional("train_embeddings"),
        files.optional("test_embeddings"),
    ) {
        (Some(train), Some(test)) => Some((train, test)),
        (None, None) => None,
        _ => {
            return Err(Error::param(
                "inputs",
                "give embedding files for both `train` and `test` (roles `train_embeddings` \
                 and `test_embeddings`), or for neither",
            ))
        }
    };
    let read = |input: File, embedding: Option<File>, dim| -> Result<CalibrationData> {
        match embedding {
            Some(file) => {
                let rows = read_embeddings(file.name, file.bytes)?;
                parse_calibration_with_embeddings(
                    input.name,
                    input.bytes,
                    params.head,
                    dim,
                    (file.name, &rows),
                )
            }
            None => parse_calibration(input.name, input.bytes, params.head, dim),
        }
    };
    let mut train_rows = read(train, embeddings.map(|e| e.0), None)?;
    let mut test_rows = read(test, embeddings.map(|e| e.1), Some(train_rows.dim()))?;
    if let Some(ablation) = &params.ablation {
        train_rows = ablation.apply(&train_rows)?;
        test_rows = ablation.apply(&test_rows)?;
    }
    let calibration = params.calibration.fit(&train_rows, &test_rows)?;
    let training_curve = params
        .training_curve
        .as_ref()
        .map(|curve| curve.fit(&params.calibration, &train_rows, &test_rows))
        .transpose()?;
    Ok(CalibrationReport {
        calibration,
        ablation: params.ablation,
        training_curve,
    })
}

fn power(params: &PowerSpec) -> Result<PowerTable> {
    let mut rows = Vec::with_capacity(params.effects.len() * params.powers.len());
    for effect in &params.effects {
        for &power in &params.powers {
            let test = PowerParams {
                alpha: params.alpha,
                power,
                ratio: params.ratio,
                alternative: params.alternative,
            };
            rows.push(test.sample_size(effect)?);
        }
    }
    Ok(PowerTable {
        statistic: "sample_size".to_owned(),
        rows,
    })
}

fn verdicts(input: File, ids: &[&str]) -> Result<Vec<Option<Preference>>> {
    parse_llm_verdicts(input.name, input.bytes, ids)
}

fn programs(params: &ProgramReportParams, files: &Files) -> Result<ProgramsReport> {
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
    let escalated: Vec<&ProgramPair> = report.escalation.pairs.iter().map(|&i| &pairs[i]).collect();
    let escalated_items_csv = judge_items_csv(&escalated)?;
    Ok(ProgramsReport {
        report,
        escalated_items_csv,
    })
}

fn votes(files: &Files) -> Result<VoteFile> {
    let input = files.get("votes")?;
    parse_vote_file(input.name, input.bytes)
}
