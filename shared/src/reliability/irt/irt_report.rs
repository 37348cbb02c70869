//! The IRT report of seed 003 in one result: the graded response model of a judge under prompt
//! variants, its marginal reliability ρ and prompt consistency C_V against the thresholds, and
//! with human ratings of the same items θ_range, θ_ratio and D_W.
//!
//! This is orchestration only: the statistics come from [`crate::reliability::irt::irt_grm`] and
//! [`crate::reliability::irt::irt_reliability`]. The CLI (`tribunal stats irt`) and the app both call
//! [`IrtReportParams::fit`] (one judge and criterion) or [`IrtReportParams::fit_each`] (every
//! judge × criterion of a file), so they show the same numbers.
//!
//! Arguments: the judge's ratings CSV with a `variant` column and optionally a human ratings
//! CSV (annotators as raters, the same items), as [`RatingsFile`]s read together
//! ([`read_together`]). Scores must be whole numbers ≥ 0 (nominal labels are coded 0, 1, … in
//! category order). The judge's scores for θ_range are those of the `original` variant
//! (default: the first), the human scores those of `human_rater` (default: the first
//! annotator).
//!
//! Returns: [`IrtReport`]; its JSON is what `tribunal stats irt` prints. C_V needs two or more
//! variants that used two or more scores; otherwise it is `None` with a warning. `fit_each`
//! returns an [`IrtCell`] per judge × criterion, none for a file without a variant column.
//!
//! Errors: [`Error::Input`] (located) for malformed files or scores that are not whole numbers;
//! [`Error::InvalidParam`] for invalid settings or unknown raters, variants or criteria;
//! [`Error::Insufficient`] for files without variants or ratings that carry no information,
//! prefixed with the source and the model.

use crate::io::error::{Error, Location, Result};
use crate::reliability::irt::irt_grm::{GrmFit, GrmParams};
use crate::reliability::irt::irt_reliability::{
    marginal_reliability, HumanAlignment, IntrinsicConsistency, ReliabilityParams,
};
use crate::reliability::ratings::{Columns, Rating, Ratings, RatingsParams, ScoreScale, Selection};
use crate::reliability::reliability_report::{read_together, score_name, within, RatingsFile};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Settings of an IRT report.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct IrtReportParams {
    /// Column names of both files (their `default_rater` is ignored: it is per file).
    #[cfg_attr(feature = "cli", command(flatten))]
    pub columns: Columns,
    /// Scale and, on the nominal scale, the declared labels in order.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub ratings: RatingsParams,
    /// The judge, when the file holds several raters.
    #[cfg_attr(feature = "cli", arg(long = "rater-name", id = "rater_name"))]
    pub rater: Option<String>,
    /// The criterion, when the file holds several.
    #[cfg_attr(feature = "cli", arg(long))]
    pub criterion: Option<String>,
    /// The original prompt variant, whose scores give the judge's θ_range (default: the first
    /// variant in the file).
    #[cfg_attr(feature = "cli", arg(long))]
    pub original: Option<String>,
    /// The annotator whose scores group the human θ̂ (default: the first in the human file).
    #[cfg_attr(feature = "cli", arg(long))]
    pub human_rater: Option<String>,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub grm: GrmParams,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub thresholds: ReliabilityParams,
}

/// The settings the report echoes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IrtSettings {
    pub columns: Columns,
    pub scale: ScoreScale,
    pub categories: Vec<String>,
    /// The judge: as chosen, or the file's only rater.
    pub rater: Option<String>,
    pub criterion: Option<String>,
    pub original: Option<String>,
    pub grm: GrmParams,
    pub thresholds: ReliabilityParams,
}

/// The human side: their GRM and the alignment of the judge's θ̂ with theirs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HumanReport {
    pub input: String,
    pub annotators: Vec<String>,
    pub score_rater: Option<String>,
    pub n_items: usize,
    pub n_common_items: usize,
    pub fit: GrmFit,
    pub alignment: HumanAlignment,
}

/// Everything `tribunal stats irt` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IrtReport {
    /// Always `irt_grm`.
    pub statistic: String,
    pub input: String,
    pub settings: IrtSettings,
    pub variants: Vec<String>,
    pub items: Vec<String>,
    pub fit: GrmFit,
    pub marginal_reliability: f64,
    pub intrinsic_consistency: Option<IntrinsicConsistency>,
    pub human: Option<HumanReport>,
    pub warnings: Vec<String>,
}

/// One judge × criterion of [`IrtReportParams::fit_each`]: its report or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IrtCell {
    pub rater: String,
    pub criterion: Option<String>,
    pub report: Option<IrtReport>,
    pub error: Option<String>,
}

impl IrtReportParams {
    /// The report of the judge [`Self::rater`] on [`Self::criterion`] in `input`, and its
    /// alignment with `human` when given.
    pub fn fit(&self, input: &RatingsFile, human: Option<&RatingsFile>) -> Result<IrtReport> {
        let (judge, human) = self.read(input, human)?;
        self.fit_read(&judge, human.as_ref())
    }

    /// A report per judge × criterion of `input` (each judge's ratings under its variants), in
    /// the file's order; a judge or criterion that cannot be fitted has its error instead. A
    /// file without a variant column has no cells.
    pub fn fit_each(
        &self,
        input: &RatingsFile,
        human: Option<&RatingsFile>,
    ) -> Result<Vec<IrtCell>> {
        let (judge, human) = self.read(input, human)?;
        if judge.variants.is_empty() {
            return Ok(Vec::new());
        }
        let criteria: Vec<Option<String>> = if judge.criteria.is_empty() {
            vec![None]
        } else {
            judge.criteria.iter().cloned().map(Some).collect()
        };
        let mut cells = Vec::new();
        for rater in &judge.raters {
            for criterion in &criteria {
                let params = Self {
                    rater: Some(rater.clone()),
                    criterion: criterion.clone(),
                    ..self.clone()
                };
                let result = params.fit_read(&judge, human.as_ref());
                cells.push(IrtCell {
                    rater: rater.clone(),
                    criterion: criterion.clone(),
                    error: result.as_ref().err().map(Error::to_string),
                    report: result.ok(),
                });
            }
        }
        Ok(cells)
    }

    fn read(
        &self,
        input: &RatingsFile,
        human: Option<&RatingsFile>,
    ) -> Result<(Ratings, Option<Ratings>)> {
        let files: Vec<RatingsFile> = std::iter::once(input).chain(human).cloned().collect();
        let mut all = read_together(&files, &self.columns, &self.ratings)?.into_iter();
        let judge = all
            .next()
            .ok_or_else(|| Error::Insufficient("no input file was read".into()))?;
        Ok((judge, all.next()))
    }

    fn fit_read(&self, judge: &Ratings, human: Option<&Ratings>) -> Result<IrtReport> {
        judge.check_whole_scores()?;
        let matrix = judge.variant_matrix(self.rater.as_deref(), self.criterion.as_deref())?;
        let grm = matrix.whole_scores()?;
        self.thresholds.validate()?;
        self.grm.validate()?;
        // The rows of `matrix`: the judge's (given or only) rater on the criterion.
        let rater = chosen(&judge.raters, self.rater.as_deref());
        let criterion = chosen(&judge.criteria, self.criterion.as_deref());
        self.check_scale(
            judge,
            |r| {
                Some(judge.raters[r.rater].as_str()) == rater
                    && r.criterion.map(|c| judge.criteria[c].as_str()) == criterion
                    && r.variant.is_some()
            },
            |r| {
                let variant = r.variant.map_or("", |v| judge.variants[v].as_str());
                format!("variant `{variant}`")
            },
        )?;
        let mut fit = self
            .grm
            .fit(&grm)
            .map_err(|e| within(e, || format!("{}: graded response model", judge.source)))?;
        let judge_score = score_name(judge);
        fit.notes = fit.notes_with(&|p| format!("variant `{}`", matrix.raters[p]), &|y| {
            judge_score(f64::from(y))
        });
        let mut warnings = Vec::new();
        if !fit.converged {
            warnings.push(format!(
                "{}: the GRM fit did not converge in {} EM steps (last change {:.3e}); raise \
                 --max-iter",
                judge.source, fit.iterations, fit.last_change
            ));
        }
        let rho = marginal_reliability(&fit.theta_mean, &fit.theta_variance)
            .map_err(|e| within(e, || format!("{}: marginal reliability", judge.source)))?;
        let intrinsic = match self.thresholds.intrinsic_consistency(&fit, &grm) {
            Ok(ic) => Some(ic),
            Err(Error::Insufficient(why)) => {
                warnings.push(format!("{}: C_V is not computed: {why}", judge.source));
                None
            }
            Err(e) => return Err(e),
        };
        let original = match &self.original {
            Some(name) => matrix.rater_index(name)?,
            None => 0,
        };

        let human_report = match human {
            None => None,
            Some(h) => {
                h.check_whole_scores()?;
                let criterion = if h.criteria.is_empty() {
                    None
                } else {
                    self.criterion.clone()
                };
                let hm = h.matrix(&Selection {
                    criterion: criterion.clone(),
                    ..Default::default()
                })?;
                let hgrm = hm.whole_scores()?;
                // The rows of `hm`: every annotator's on the criterion and the only variant.
                let criterion = chosen(&h.criteria, criterion.as_deref());
                let variant = chosen(&h.variants, None);
                self.check_scale(
                    h,
                    |r| {
                        r.criterion.map(|c| h.criteria[c].as_str()) == criterion
                            && r.variant.map(|v| h.variants[v].as_str()) == variant
                    },
                    |r| format!("annotator `{}`", h.raters[r.rater]),
                )?;
                let mut human_fit = self
                    .grm
                    .fit(&hgrm)
                    .map_err(|e| within(e, || format!("{}: graded response model", h.source)))?;
                let human_score = score_name(h);
                human_fit.notes = human_fit
                    .notes_with(&|p| format!("annotator `{}`", hm.raters[p]), &|y| {
                        human_score(f64::from(y))
                    });
                if !human_fit.converged {
                    warnings.push(format!(
                        "{}: the GRM fit did not converge in {} EM steps; raise --max-iter",
                        h.source, human_fit.iterations
                    ));
                }
                let score_rater = match &self.human_rater {
                    Some(name) => hm.rater_index(name)?,
                    None => 0,
                };
                let row_of: HashMap<&str, usize> = hm
                    .items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| (item.as_str(), i))
                    .collect();
                let (mut llm_theta, mut llm_scores, mut human_theta, mut human_scores) =
                    (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                for (i, item) in matrix.items.iter().enumerate() {
                    if let Some(&j) = row_of.get(item.as_str()) {
                        llm_theta.push(fit.theta_mean[i]);
                        llm_scores.push(grm.get(i, original));
                        human_theta.push(human_fit.theta_mean[j]);
                        human_scores.push(hgrm.get(j, score_rater));
                    }
                }
                let alignment =
                    HumanAlignment::compute(&llm_theta, &llm_scores, &human_theta, &human_scores)
                        .map_err(|e| {
                        within(e, || {
                            format!(
                                "human alignment of {} with {} on {} common items",
                                judge.source,
                                h.source,
                                llm_theta.len()
                            )
                        })
                    })?;
                Some(HumanReport {
                    input: h.source.clone(),
                    annotators: hm.raters.clone(),
                    score_rater: hm.raters.get(score_rater).cloned(),
                    n_items: hm.items.len(),
                    n_common_items: llm_theta.len(),
                    fit: human_fit,
                    alignment,
                })
            }
        };

        let rater = self.rater.clone().or_else(|| {
            judge
                .raters
                .first()
                .filter(|_| judge.raters.len() == 1)
                .cloned()
        });
        Ok(IrtReport {
            statistic: "irt_grm".into(),
            input: judge.source.clone(),
            settings: IrtSettings {
                columns: Columns {
                    default_rater: None,
                    ..self.columns.clone()
                },
                scale: judge.scale,
                categories: judge.categories.clone(),
                rater,
                criterion: self.criterion.clone(),
                original: matrix.raters.get(original).cloned(),
                grm: self.grm,
                thresholds: self.thresholds,
            },
            variants: matrix.raters,
            items: matrix.items,
            fit,
            marginal_reliability: rho,
            intrinsic_consistency: intrinsic,
            human: human_report,
            warnings,
        })
    }
}

/// The name `wanted`, or the only one of `names`: how [`Ratings::matrix`] and
/// [`Ratings::variant_matrix`] resolve a choice once they have succeeded.
fn chosen<'a>(names: &'a [String], wanted: Option<&'a str>) -> Option<&'a str> {
    wanted.or(match names {
        [only] => Some(only.as_str()),
        _ => None,
    })
}

impl IrtReportParams {
    /// Rejects the first row `keep` selects whose score is outside the declared scale
    /// ([`GrmParams::scale`]), located in the file and with the scores as the file wrote them
    /// (the labels on the nominal scale): the GRM itself only knows matrix cells and codes.
    /// `column` names a row's column of the matrix (its variant, its annotator).
    fn check_scale(
        &self,
        ratings: &Ratings,
        keep: impl Fn(&Rating) -> bool,
        column: impl Fn(&Rating) -> String,
    ) -> Result<()> {
        let Some(scale) = self.grm.scale else {
            return Ok(());
        };
        let (min, max) = (f64::from(scale.min), f64::from(scale.max));
        let Some(r) = ratings
            .ratings
            .iter()
            .filter(|r| keep(r))
            .find(|r| r.value < min || r.value > max)
        else {
            return Ok(());
        };
        let name = score_name(ratings);
        Err(Error::input(
            Location {
                source: ratings.source.clone(),
                line: r.line,
                column: None,
                field: Some(ratings.columns.score.clone()),
                byte: None,
            },
            format!(
                "item `{}`, {}: expected a score of the declared scale, from {} to {}, found {}",
                ratings.items[r.item],
                column(r),
                name(min),
                name(max),
                name(r.value)
            ),
        ))
    }
}

crate::analysis::warnings::own_warnings!(IrtReport);

impl crate::analysis::warnings::Warned for IrtCell {
    fn warnings(&self) -> Vec<crate::analysis::warnings::Warning> {
        crate::analysis::warnings::gather(
            &[],
            crate::analysis::warnings::some("report", &self.report),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reliability::irt::irt_grm::RatingScale;

    fn file(source: &str, text: &str) -> RatingsFile {
        RatingsFile {
            source: source.into(),
            default_rater: None,
            bytes: text.as_bytes().to_vec(),
        }
    }

    /// `v1` always says `good`; `v3` never says `ok`.
    const LABELLED_JUDGE: &str = "item,rater,score,variant\n\
        1,j,good,v1\n2,j,good,v1\n3,j,good,v1\n\
        1,j,bad,v2\n2,j,ok,v2\n3,j,good,v2\n\
        1,j,bad,v3\n2,j,good,v3\n3,j,good,v3\n";

    fn labelled() -> IrtReportParams {
        IrtReportParams {
            ratings: RatingsParams {
                scale: ScoreScale::Nominal,
                categories: Some(vec!["bad".into(), "ok".into(), "good".into()]),
            },
            ..IrtReportParams::default()
        }
    }

    #[test]
    fn grm_notes_name_variants_and_labels_as_the_file_does() {
        let judge = file("judge.csv", LABELLED_JUDGE);
        let human = file(
            "human.csv",
            "item,rater,score\n1,h1,bad\n2,h1,ok\n3,h1,good\n1,h2,ok\n2,h2,ok\n3,h2,ok\n",
        );
        let params = IrtReportParams {
            original: Some("v2".into()),
            ..labelled()
        };
        let report = params.fit(&judge, Some(&human)).unwrap();
        assert_eq!(
            report.fit.notes[..2],
            [
                "variant `v1` gave the single score `good` to all 3 items it rated; it carries \
                 no information on θ and is left out of the fit",
                "variant `v3` never gave `ok`; those categories are collapsed and it is fitted \
                 with 2 categories (1 thresholds)",
            ]
        );
        let human_notes = &report.human.as_ref().unwrap().fit.notes;
        assert!(
            human_notes[0].starts_with("annotator `h2` gave the single score `ok` to all 3 items"),
            "{human_notes:?}"
        );
        // A declared scale wider than the labels: a code without a label is a number.
        let wide = IrtReportParams {
            grm: GrmParams {
                scale: Some(RatingScale { min: 0, max: 3 }),
                ..GrmParams::default()
            },
            ..params
        };
        let report = wide.fit(&judge, None).unwrap();
        assert!(
            report.fit.notes[2].starts_with("variant `v3` never gave `ok`, 3; those"),
            "{:?}",
            report.fit.notes
        );
        // Numbers on the numeric scale, the variants still by name.
        let numeric = file(
            "n.csv",
            &LABELLED_JUDGE
                .replace("bad", "0")
                .replace("ok", "1")
                .replace("good", "2"),
        );
        let report = IrtReportParams::default().fit(&numeric, None).unwrap();
        assert!(report.fit.notes[0].starts_with("variant `v1` gave the single score 2 to all"));
        assert!(report.fit.notes[1].starts_with("variant `v3` never gave 1;"));
    }

    #[test]
    fn a_score_outside_the_declared_scale_is_located_and_labelled() {
        let judge = file("judge.csv", LABELLED_JUDGE);
        let params = IrtReportParams {
            grm: GrmParams {
                scale: Some(RatingScale { min: 0, max: 1 }),
                ..GrmParams::default()
            },
            ..labelled()
        };
        let err = params.fit(&judge, None).unwrap_err().to_string();
        assert_eq!(
            err,
            "judge.csv, line 2 (`score`): item `1`, variant `v1`: expected a score of the \
             declared scale, from `bad` to `ok`, found `good`"
        );
        // Numeric: the numbers; only the judge's rows count (rater `other` is not fitted).
        let numeric = file(
            "n.csv",
            "item,rater,score,variant\n1,other,9,a\n1,j,1,a\n2,j,2,a\n1,j,5,b\n2,j,1,b\n",
        );
        let params = IrtReportParams {
            rater: Some("j".into()),
            grm: GrmParams {
                scale: Some(RatingScale { min: 1, max: 4 }),
                ..GrmParams::default()
            },
            ..IrtReportParams::default()
        };
        let err = params.fit(&numeric, None).unwrap_err().to_string();
        assert_eq!(
            err,
            "n.csv, line 5 (`score`): item `1`, variant `b`: expected a score of the declared \
             scale, from 1 to 4, found 5"
        );
    }

    #[test]
    fn every_judge_and_criterion_gets_a_cell() {
        let text = "item,rater,score,variant,criterion\n\
            1,j,1,a,x\n1,j,2,b,x\n2,j,3,a,x\n2,j,3,b,x\n3,j,2,a,x\n3,j,1,b,x\n\
            1,j,2,a,y\n1,j,2,b,y\n2,j,2,a,y\n2,j,2,b,y\n";
        let input = RatingsFile {
            source: "judge.csv".into(),
            default_rater: None,
            bytes: text.as_bytes().to_vec(),
        };
        let cells = IrtReportParams::default().fit_each(&input, None).unwrap();
        assert_eq!(cells.len(), 2);
        assert_eq!(cells[0].criterion.as_deref(), Some("x"));
        assert!(cells[0].report.is_some(), "{:?}", cells[0].error);
        // Constant ratings carry no information: an error in that cell only.
        assert!(cells[1].report.is_none());
        let plain = RatingsFile {
            bytes: b"item,rater,score\n1,j,1\n".to_vec(),
            ..input.clone()
        };
        assert!(IrtReportParams::default()
            .fit_each(&plain, None)
            .unwrap()
            .is_empty());
        assert!(cells[1]
            .error
            .as_deref()
            .is_some_and(|e| e.contains("graded response model")));
    }
}
