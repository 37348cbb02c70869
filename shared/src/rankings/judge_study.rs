//! A judge against humans, the whole of seed 002's evaluation in one result: the human and the
//! judge leaderboards and their agreement (Spearman ρ, Kendall τ-b, Elo MAE), β's MLE (Eq. 6)
//! and the reliability of σ(β·s) when the judge gives scores, the leave-one-model-out
//! held-out protocol (App. B, Algorithm 1) for each target kind (hard, label smoothing, soft),
//! and split-conformal intervals on the human Elo scale (§3.3) with their evaluation over
//! repeated random calibration/test splits.
//!
//! This is orchestration only: every statistic comes from its own module
//! ([`crate::rankings::leaderboard`], [`crate::rankings::soft_targets`], [`crate::rankings::held_out`],
//! [`crate::rankings::conformal`]). The CLI and the app both call [`JudgeStudyParams::fit`] so they show
//! the same numbers.
//!
//! Arguments: [`ScoredBattles`] with human labels (and the judge's scores or verdicts).
//! Returns: [`JudgeStudy`]. Soft targets need scores: on verdict-only data they are left out
//! and a note says so. Errors: those of the modules it calls; [`Error::Insufficient`] when no
//! battle carries a human label.

use crate::io::error::{Error, Result};
use crate::rankings::conformal::{
    ConformalEvaluation, ConformalEvaluationParams, ConformalInterval,
};
use crate::rankings::held_out::{HeldOut, HeldOutParams};
use crate::rankings::leaderboard::{
    bradley_terry_leaderboard, compare_leaderboards, Leaderboard, LeaderboardComparison,
};
use crate::rankings::scored_battles::{JoinSummary, JoinedVerdicts, JudgeSignal, ScoredBattles};
use crate::rankings::soft_targets::{
    score_outliers, BetaFit, Calibration, CalibrationParams, ScoreOutlier, TargetKind, OUTLIER_MADS,
};
use serde::{Deserialize, Serialize};

/// Settings of a judge study.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JudgeStudyParams {
    /// BT settings, β settings and the target kinds to compare.
    pub held_out: HeldOutParams,
    /// Reliability bins of σ(β·s).
    pub calibration: CalibrationParams,
    /// Split conformal and its evaluation (α, score, splits, seed).
    pub conformal: ConformalEvaluationParams,
}

/// A model's split-conformal interval when it is the new model: calibrated on every other
/// model's held-out residual.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewModelInterval {
    pub model: String,
    pub human_elo: f64,
    pub interval: ConformalInterval,
    pub covered: bool,
}

/// Split conformal for one target kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConformalRun {
    pub target: String,
    /// Repeated random calibration/test splits: coverage and widths.
    pub evaluation: ConformalEvaluation,
    /// Each model as the new model, calibrated on all the others.
    pub intervals: Vec<NewModelInterval>,
    /// Share of `intervals` that contain the human Elo.
    pub leave_one_out_coverage: f64,
}

/// Everything seed 002 reports for a judge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeStudy {
    pub settings: JudgeStudyParams,
    pub source: String,
    pub signal: JudgeSignal,
    pub n_battles: usize,
    /// The judge's observations: one per judged comparison (`n_battles` less the battles that
    /// repeat a verdict for another human vote, [`crate::rankings::scored_battles::ScoredBattle::judge_repeat`]).
    pub n_judge_verdicts: usize,
    /// Human votes: every one counts on the human side.
    pub n_human_battles: usize,
    /// How the human and judge files were matched, when they came as two files
    /// ([`JudgeStudyParams::fit_joined`]).
    pub join: Option<JoinSummary>,
    /// BT on the human labels (the reference).
    pub human: Leaderboard,
    /// BT on the judge's hard targets.
    pub judge: Leaderboard,
    /// The judge's leaderboard against the human one.
    pub agreement: LeaderboardComparison,
    /// β's MLE on human non-tie battles (scores only).
    pub beta: Option<BetaFit>,
    /// Judge scores far outside the bulk ([`score_outliers`]).
    pub score_outliers: Vec<ScoreOutlier>,
    /// β refitted without the battles of the outlying scores, to show their effect.
    pub beta_without_outliers: Option<BetaFit>,
    /// Reliability of σ(β·s) against human labels (scores only).
    pub calibration: Option<Calibration>,
    pub held_out: HeldOut,
    /// Split conformal per held-out target kind; `None` where too few models for α.
    pub conformal: Vec<Option<ConformalRun>>,
    pub notes: Vec<String>,
    /// What makes these numbers less certain than they look: a join that left battles out,
    /// outlying scores. (Each leaderboard carries its own warnings.)
    pub warnings: Vec<String>,
}

impl JudgeStudyParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        self.held_out.validate()?;
        self.calibration.validate()?;
        self.conformal.conformal.validate()
    }

    /// Runs the study.
    pub fn fit(&self, source: &str, data: &ScoredBattles) -> Result<JudgeStudy> {
        self.validate()?;
        let human_battles = data.human_battles();
        if human_battles.battles.is_empty() {
            return Err(Error::Insufficient(format!(
                "{source}: no battle has a human label: a judge study needs human labels"
            )));
        }
        let mut notes = Vec::new();
        let mut held_out = self.held_out.clone();
        if data.signal == JudgeSignal::Verdict {
            let before = held_out.targets.len();
            held_out
                .targets
                .retain(|t| !t.fits_beta() && !matches!(t, TargetKind::Soft { .. }));
            if held_out.targets.len() < before {
                notes.push(
                    "soft targets σ(β·s) need judge scores (`score` or `score_ab`/`score_ba`); \
                     this input has verdicts only, so Soft-Elo is left out"
                        .to_owned(),
                );
            }
            if held_out.targets.is_empty() {
                return Err(Error::param(
                    "targets",
                    "every requested target kind needs judge scores, and the input has verdicts only",
                ));
            }
        }
        let bt = &self.held_out.bradley_terry;
        let human = bradley_terry_leaderboard(source, &human_battles, bt)?;
        let hard = TargetKind::Hard.targets(data, None)?;
        let judge = bradley_terry_leaderboard(source, &data.judge_battles(&hard)?, bt)?;
        let agreement = compare_leaderboards(&human, &judge)?;

        let mut warnings = Vec::new();
        let score_outliers = score_outliers(data);
        let (beta, calibration, beta_without_outliers) = if data.signal == JudgeSignal::Verdict {
            (None, None, None)
        } else {
            let beta = self.held_out.beta.fit_battles(data, None)?;
            let calibration = self.calibration.of_soft_targets(data, beta.beta)?;
            let without = self.beta_without(data, &score_outliers, &beta, &mut warnings);
            (Some(beta), Some(calibration), without)
        };

        let held_out = held_out.fit(data)?;
        let conformal = held_out
            .runs
            .iter()
            .map(|run| self.conformal_run(run))
            .collect::<Result<Vec<_>>>()?;
        if conformal.iter().any(Option::is_none) {
            notes.push(format!(
                "split conformal at alpha = {} needs at least {} calibration models; some target \
                 kinds have fewer held-out models and get no intervals",
                self.conformal.conformal.alpha,
                crate::rankings::conformal::min_calibration_size(self.conformal.conformal.alpha)
            ));
        }
        Ok(JudgeStudy {
            settings: self.clone(),
            source: source.to_owned(),
            signal: data.signal,
            n_battles: data.battles.len(),
            n_judge_verdicts: data.n_judge_verdicts(),
            n_human_battles: human_battles.battles.len(),
            join: None,
            human,
            judge,
            agreement,
            beta,
            score_outliers,
            beta_without_outliers,
            calibration,
            held_out,
            conformal,
            notes,
            warnings,
        })
    }

    /// Runs the study on human and judge files joined on a key ([`join_verdicts`]); the join's
    /// counts and warnings come first in the study's.
    ///
    /// [`join_verdicts`]: crate::rankings::scored_battles::join_verdicts
    pub fn fit_joined(&self, source: &str, joined: &JoinedVerdicts) -> Result<JudgeStudy> {
        let mut study = self.fit(source, &joined.data)?;
        study.warnings.splice(0..0, joined.summary.warnings());
        study.join = Some(joined.summary.clone());
        Ok(study)
    }

    /// β without the outlying scores' battles, with a warning per outlier naming its line (the
    /// first ten) and both β's.
    fn beta_without(
        &self,
        data: &ScoredBattles,
        outliers: &[ScoreOutlier],
        beta: &BetaFit,
        warnings: &mut Vec<String>,
    ) -> Option<BetaFit> {
        if outliers.is_empty() {
            return None;
        }
        let mut kept = data.clone();
        let out: std::collections::HashSet<usize> = outliers.iter().map(|o| o.battle).collect();
        kept.battles = data
            .battles
            .iter()
            .enumerate()
            .filter(|(i, _)| !out.contains(i))
            .map(|(_, b)| *b)
            .collect();
        let without = self.held_out.beta.fit_battles(&kept, None);
        let effect = match &without {
            Ok(w) => format!("β = {:.6} with them, {:.6} without them", beta.beta, w.beta),
            Err(e) => format!(
                "β = {:.6} with them; without them β cannot be fitted: {e}",
                beta.beta
            ),
        };
        for o in outliers.iter().take(10) {
            let place = o.line.map_or_else(
                || format!("battle {}", o.battle + 1),
                |line| format!("line {line}"),
            );
            warnings.push(format!(
                "{place}: judge score {:e} lies {:.3e} median absolute deviations from the median \
                 score (more than {OUTLIER_MADS})",
                o.score, o.deviations
            ));
        }
        warnings.push(format!(
            "{} outlying judge score(s): {effect}",
            outliers.len()
        ));
        without.ok()
    }

    fn conformal_run(
        &self,
        run: &crate::rankings::held_out::HeldOutRun,
    ) -> Result<Option<ConformalRun>> {
        let pool = run.residuals();
        let needed =
            crate::rankings::conformal::min_calibration_size(self.conformal.conformal.alpha);
        if pool.len() < needed + 1 {
            return Ok(None);
        }
        // Calibrate on half the models by default, but never on fewer than α needs.
        let evaluation = ConformalEvaluationParams {
            n_calibration: Some(
                self.conformal
                    .n_calibration
                    .unwrap_or((pool.len() / 2).max(needed))
                    .min(pool.len() - 1),
            ),
            ..self.conformal
        }
        .evaluate(&pool)?;
        let intervals = run
            .rows
            .iter()
            .enumerate()
            .map(|(m, row)| {
                let others: Vec<_> = pool
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != m)
                    .map(|(_, r)| *r)
                    .collect();
                let calibration = self.conformal.conformal.calibrate(&others)?;
                let interval = calibration.interval(row.llm_elo, row.se)?;
                Ok(NewModelInterval {
                    model: row.model.clone(),
                    human_elo: row.human_elo,
                    covered: interval.lower <= row.human_elo && row.human_elo <= interval.upper,
                    interval,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let covered = intervals.iter().filter(|i| i.covered).count();
        Ok(Some(ConformalRun {
            target: run.name.clone(),
            evaluation,
            leave_one_out_coverage: covered as f64 / intervals.len() as f64,
            intervals,
        }))
    }
}

impl crate::analysis::warnings::Warned for JudgeStudy {
    fn warnings(&self) -> Vec<crate::analysis::warnings::Warning> {
        let parts: [(String, &dyn crate::analysis::warnings::Warned); 2] = [
            ("human".to_owned(), &self.human),
            ("judge".to_owned(), &self.judge),
        ];
        crate::analysis::warnings::gather(&self.warnings, parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rankings::battles::Battles;
    use crate::rankings::scored_battles::join_verdicts;
    use crate::rankings::simulate_battles::{simulate_battles, SimulationParams};

    /// Human votes simulated from known strengths; the judge agrees with the human on every
    /// key, so its leaderboard equals the human one.
    fn perfect_judge(n_models: usize) -> ScoredBattles {
        let theta: Vec<f64> = (0..n_models)
            .map(|i| 1.5 - 3.0 * i as f64 / n_models as f64)
            .collect();
        let sim = simulate_battles(&SimulationParams {
            theta,
            n_battles: 3000,
            tie_rate: 0.1,
            seed: 5,
        })
        .unwrap();
        let names: Vec<String> = (0..n_models).map(|i| format!("m{i:02}")).collect();
        let human = Battles::from_named(
            sim.iter()
                .map(|b| (names[b.a].as_str(), names[b.b].as_str(), b.y)),
        );
        let keys: Vec<String> = (0..human.battles.len()).map(|i| i.to_string()).collect();
        join_verdicts(&human, &keys, &human, &keys).unwrap().data
    }

    #[test]
    fn a_judge_equal_to_the_humans_agrees_perfectly_and_soft_is_left_out() {
        let data = perfect_judge(12);
        let study = JudgeStudyParams::default().fit("sim", &data).unwrap();
        assert_eq!(study.agreement.n_common, 12);
        assert!(study.agreement.mae < 1e-9, "{}", study.agreement.mae);
        assert!((study.agreement.spearman - 1.0).abs() < 1e-12);
        assert!(study.beta.is_none() && study.calibration.is_none());
        assert!(study.notes[0].contains("verdicts only"));
        let names: Vec<&str> = study
            .held_out
            .runs
            .iter()
            .map(|r| r.name.as_str())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // Hard targets equal to the human labels: held-out residuals vanish.
        assert!(
            study.held_out.runs[0].mae < 1e-6,
            "{}",
            study.held_out.runs[0].mae
        );
        // 12 models ≥ 9 + 1 needed at α = 0.1: intervals exist and cover.
        let run = study.conformal[0].as_ref().unwrap();
        assert_eq!(run.intervals.len(), 12);
        assert_eq!(run.leave_one_out_coverage, 1.0);
    }

    #[test]
    fn too_few_models_for_alpha_give_no_intervals_and_a_note() {
        let study = JudgeStudyParams::default()
            .fit("sim", &perfect_judge(6))
            .unwrap();
        assert!(study.conformal.iter().all(Option::is_none));
        assert!(study
            .notes
            .iter()
            .any(|n| n.contains("at least 9 calibration models")));
    }
}
