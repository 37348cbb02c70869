//! The agreement report of seeds 001 and 003 in one result: Krippendorff's α of a group of
//! raters with its bootstrap interval and band, chosen rater pairs (percent agreement, κ and on
//! the numeric scale weighted κ and correlations), and each judge's κ, percent agreement and
//! confusion matrix against the group's majority labels, with the settings and every warning.
//!
//! This is orchestration only: every statistic comes from its own module
//! ([`crate::reliability::ratings`], [`crate::reliability::agreement`], [`crate::reliability::alpha`]). The CLI (`tribunal stats
//! agree`) and the app both call [`AgreementReportParams::fit`] so they show the same numbers.
//!
//! Arguments: the group's ratings CSV and the judges' ratings CSVs as [`RatingsFile`]s (a
//! source name, the bytes and, for a file without the rater column, the rater of its rows).
//! On the nominal scale without declared categories the files are coded together
//! ([`read_together`]): the labels found in all of them, sorted, so a label has one code in
//! every file. The α level defaults to nominal on the nominal scale and interval on the numeric.
//!
//! Returns: [`AgreementReport`]; its JSON is what `tribunal stats agree` prints. Undefined
//! statistics (constant ratings) are NaN, printed as JSON `null`, with a warning; warnings (the
//! nested ones too) write a score as the file did: the label on the nominal scale, the number
//! on the numeric.
//!
//! Errors: [`Error::Input`] (located) for malformed files; [`Error::InvalidParam`] for invalid
//! settings or unknown raters, criteria or variants; [`Error::Insufficient`] when the input has
//! a single rater and nothing else is asked (no judge, no pair), or when a statistic has no
//! data, prefixed with the source and the statistic.

use crate::io::error::{Error, Result};
use crate::math::resample::BootstrapParams;
use crate::reliability::agreement::{
    AgreementParams, GroupAgreement, Majority, MajorityAgreement, PairAgreement,
};
use crate::reliability::alpha::AlphaLevel;
use crate::reliability::ratings::{Columns, Ratings, RatingsParams, ScoreScale, Selection};
use serde::{Deserialize, Serialize};

/// A ratings CSV as read by the caller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingsFile {
    /// The name used in messages: a path or an uploaded file's name.
    pub source: String,
    /// The rater of every row when the file has no rater column.
    pub default_rater: Option<String>,
    pub bytes: Vec<u8>,
}

impl RatingsFile {
    /// A judge's file: without the rater column its rows are rated by the file's name without
    /// folders and extension (`runs/gpt4.csv` → `gpt4`; standard input, `<stdin>`, is `stdin`).
    pub fn judge(source: &str, bytes: Vec<u8>) -> Self {
        let source_name = if source == "<stdin>" { "stdin" } else { source };
        let name = source_name
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(source_name);
        let stem = match name.rsplit_once('.') {
            Some((stem, _)) if !stem.trim().is_empty() => stem,
            _ => name,
        };
        Self {
            source: source.to_owned(),
            default_rater: Some(
                if stem.trim().is_empty() {
                    source_name
                } else {
                    stem
                }
                .to_owned(),
            ),
            bytes,
        }
    }
}

/// Settings of an agreement report.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct AgreementReportParams {
    /// Column names of every file (their `default_rater` is ignored: it is per file).
    #[cfg_attr(feature = "cli", command(flatten))]
    pub columns: Columns,
    /// Scale and, on the nominal scale, the declared labels in order.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub ratings: RatingsParams,
    /// Level of measurement of Krippendorff's α (default: nominal on the nominal scale,
    /// interval on the numeric scale).
    #[cfg_attr(feature = "cli", arg(long, id = "alpha_level", value_enum))]
    pub level: Option<AlphaLevel>,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub bootstrap: BootstrapParams,
    /// Two raters of the input to compare, `A,B` (repeatable).
    #[cfg_attr(
        feature = "cli",
        arg(long = "pair", id = "pair", value_name = "A,B", value_parser = crate::io::cli_values::two_names)
    )]
    pub pairs: Vec<(String, String)>,
    /// The criterion to analyse, when the files hold several.
    #[cfg_attr(feature = "cli", arg(long))]
    pub criterion: Option<String>,
    /// The variant to analyse, when the files hold several.
    #[cfg_attr(feature = "cli", arg(long))]
    pub variant: Option<String>,
    /// Keep only the input's items whose slice column (first) has the value (second).
    #[cfg_attr(feature = "cli", arg(skip))]
    pub slice: Option<(String, String)>,
}

/// The settings the report echoes: how the files were read and the statistics set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportSettings {
    pub columns: Columns,
    pub scale: ScoreScale,
    /// Nominal scale: the label of each code.
    pub categories: Option<Vec<String>>,
    pub level: AlphaLevel,
    pub criterion: Option<String>,
    pub variant: Option<String>,
    pub bootstrap: BootstrapParams,
}

/// Two raters of the input compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedPair {
    pub a: String,
    pub b: String,
    #[serde(flatten)]
    pub agreement: PairAgreement,
}

/// The majority labels the judges are compared with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MajoritySummary {
    pub definition: String,
    pub n_items: usize,
    pub n_tied: usize,
    pub tied_items: Vec<String>,
}

/// One judge rater against the majority, with the file it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeAgreement {
    pub source: String,
    #[serde(flatten)]
    pub agreement: MajorityAgreement,
}

/// Everything `tribunal stats agree` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgreementReport {
    /// Always `agreement`.
    pub statistic: String,
    pub input: String,
    pub settings: ReportSettings,
    pub n_items: usize,
    pub n_raters: usize,
    pub n_ratings: usize,
    /// α of all the input's raters; `None` when the input has a single rater.
    pub group: Option<GroupAgreement>,
    pub pairs: Vec<NamedPair>,
    /// Present when judges are compared.
    pub majority: Option<MajoritySummary>,
    pub judges: Vec<JudgeAgreement>,
    pub warnings: Vec<String>,
}

/// Reads `files` on one scale. On the nominal scale without declared categories, every file is
/// coded with the sorted labels of all of them.
pub fn read_together(
    files: &[RatingsFile],
    columns: &Columns,
    params: &RatingsParams,
) -> Result<Vec<Ratings>> {
    let parse = |params: &RatingsParams| {
        files
            .iter()
            .map(|f| {
                let columns = Columns {
                    default_rater: f.default_rater.clone(),
                    ..columns.clone()
                };
                params.parse_columns(&columns, &f.source, &f.bytes)
            })
            .collect::<Result<Vec<Ratings>>>()
    };
    let ratings = parse(params)?;
    if params.scale != ScoreScale::Nominal || params.categories.is_some() || ratings.len() < 2 {
        return Ok(ratings);
    }
    let mut labels: Vec<String> = ratings
        .iter()
        .flat_map(|r| r.categories.iter().cloned())
        .collect();
    labels.sort();
    labels.dedup();
    parse(&RatingsParams {
        categories: Some(labels),
        ..params.clone()
    })
}

/// How messages write a score of `ratings`: on the nominal scale the label its code stands
/// for, in backticks (`` `good` ``), on the numeric scale (or for a code that is no
/// category's) the number (`3`).
pub(crate) fn score_name(ratings: &Ratings) -> impl Fn(f64) -> String + '_ {
    move |value| {
        let is_label = ratings.scale == ScoreScale::Nominal
            && value >= 0.0
            && value.fract() == 0.0
            && value < ratings.categories.len() as f64;
        let text = ratings.score_text(value);
        if is_label {
            format!("`{text}`")
        } else {
            text
        }
    }
}

/// `error` with `what` in front when it is not located already.
pub(crate) fn within(error: Error, what: impl FnOnce() -> String) -> Error {
    match error {
        Error::Insufficient(message) => Error::Insufficient(format!("{}: {message}", what())),
        other => other,
    }
}

fn level_name(level: AlphaLevel) -> &'static str {
    match level {
        AlphaLevel::Nominal => "nominal",
        AlphaLevel::Ordinal => "ordinal",
        AlphaLevel::Interval => "interval",
        AlphaLevel::Ratio => "ratio",
    }
}

impl AgreementReportParams {
    /// The report of `input`'s raters, their `pairs`, and each rater of `judges` against the
    /// input's majority labels.
    pub fn fit(&self, input: &RatingsFile, judges: &[RatingsFile]) -> Result<AgreementReport> {
        let files: Vec<RatingsFile> = std::iter::once(input).chain(judges).cloned().collect();
        let all = read_together(&files, &self.columns, &self.ratings)?;
        let Some((input, judges)) = all.split_first() else {
            return Err(Error::Insufficient("no input file was read".into()));
        };
        let selection = Selection {
            criterion: self.criterion.clone(),
            variant: self.variant.clone(),
            slices: self.slice.iter().cloned().collect(),
        };
        let matrix = input.matrix(&selection)?;
        let params = AgreementParams {
            bootstrap: self.bootstrap,
            scale: input.scale,
            // Nominal: the full label list, so confusion matrices have a row per label.
            categories: (input.scale == ScoreScale::Nominal)
                .then(|| (0..input.categories.len()).map(|c| c as f64).collect()),
        };
        params.validate()?;
        let level = self.level.unwrap_or(match input.scale {
            ScoreScale::Nominal => AlphaLevel::Nominal,
            ScoreScale::Numeric => AlphaLevel::Interval,
        });
        let mut warnings = Vec::new();
        if input.scale == ScoreScale::Nominal
            && self.ratings.categories.is_none()
            && level != AlphaLevel::Nominal
        {
            warnings.push(format!(
                "α at the {} level on nominal labels treats their sorted order `{}` as a scale; \
                 declare the order with --categories",
                level_name(level),
                input.categories.join("`, `")
            ));
        }

        let input_score = score_name(input);
        let group = if matrix.raters.len() >= 2 {
            let mut g = params
                .group(&matrix, level)
                .map_err(|e| within(e, || format!("{}: Krippendorff's α", input.source)))?;
            g.alpha.alpha.warnings = g.alpha.alpha.warnings_with(&input_score);
            warnings.extend(
                g.alpha
                    .alpha
                    .warnings
                    .iter()
                    .map(|w| format!("{}: α: {w}", input.source)),
            );
            Some(g)
        } else if judges.is_empty() && self.pairs.is_empty() {
            return Err(Error::Insufficient(format!(
                "{}: the input has a single rater (`{}`): Krippendorff's α needs two or more \
                 raters; to compare a judge with this rater, give the judge's file with --judge \
                 FILE",
                input.source,
                matrix.raters.join("`, `")
            )));
        } else {
            warnings.push(format!(
                "{}: α is not computed: the input has a single rater (`{}`)",
                input.source,
                matrix.raters.join("`, `")
            ));
            None
        };

        let mut pairs = Vec::new();
        for (a, b) in &self.pairs {
            let mut p = params
                .raters(&matrix, a, b)
                .map_err(|e| within(e, || format!("{}: raters `{a}` and `{b}`", input.source)))?;
            p.warnings = p.warnings_with(&input_score);
            warnings.extend(
                p.warnings
                    .iter()
                    .map(|w| format!("{}: `{a}` vs `{b}`: {w}", input.source)),
            );
            pairs.push(NamedPair {
                a: a.clone(),
                b: b.clone(),
                agreement: p,
            });
        }

        let majority = (!judges.is_empty()).then(|| Majority::of(&matrix));
        let mut judge_reports = Vec::new();
        if let Some(majority) = &majority {
            if !majority.tied_items.is_empty() {
                warnings.push(format!(
                    "{} of {} items have no majority label (their most frequent labels tie) and \
                     are left out of the comparisons with the majority",
                    majority.tied_items.len(),
                    matrix.items.len()
                ));
            }
            for judge in judges {
                // A judge file without a criterion or variant column holds just the one compared.
                let judge_selection = Selection {
                    criterion: selection
                        .criterion
                        .clone()
                        .filter(|_| !judge.criteria.is_empty()),
                    variant: selection
                        .variant
                        .clone()
                        .filter(|_| !judge.variants.is_empty()),
                    slices: Vec::new(),
                };
                let judge_matrix = judge.matrix(&judge_selection)?;
                for rater in &judge_matrix.raters {
                    let mut r = params
                        .against_majority(majority, &judge_matrix, rater)
                        .map_err(|e| {
                            within(e, || {
                                format!(
                                    "{}: `{rater}` against the majority of {}",
                                    judge.source, input.source
                                )
                            })
                        })?;
                    r.agreement.warnings = r.agreement.warnings_with(&score_name(judge));
                    warnings.extend(
                        r.agreement
                            .warnings
                            .iter()
                            .map(|w| format!("{}: `{rater}` vs the majority: {w}", judge.source)),
                    );
                    judge_reports.push(JudgeAgreement {
                        source: judge.source.clone(),
                        agreement: r,
                    });
                }
            }
        }

        Ok(AgreementReport {
            statistic: "agreement".into(),
            input: input.source.clone(),
            settings: ReportSettings {
                columns: Columns {
                    default_rater: None,
                    ..self.columns.clone()
                },
                scale: input.scale,
                categories: (input.scale == ScoreScale::Nominal).then(|| input.categories.clone()),
                level,
                criterion: self.criterion.clone(),
                variant: self.variant.clone(),
                bootstrap: params.bootstrap,
            },
            n_items: matrix.items.len(),
            n_raters: matrix.raters.len(),
            n_ratings: matrix.n_ratings(),
            group,
            pairs,
            majority: majority.as_ref().map(|m| MajoritySummary {
                definition: "per item, the score given most often by the input's raters who \
                    scored it; items whose most frequent scores tie have no majority and are \
                    excluded"
                    .into(),
                n_items: m.items.len(),
                n_tied: m.tied_items.len(),
                tied_items: m.tied_items.clone(),
            }),
            judges: judge_reports,
            warnings,
        })
    }
}

impl crate::analysis::warnings::Warned for AgreementReport {
    fn warnings(&self) -> Vec<crate::analysis::warnings::Warning> {
        let parts = crate::analysis::warnings::some("group", &self.group)
            .into_iter()
            .chain(crate::analysis::warnings::each("pairs", &self.pairs))
            .chain(crate::analysis::warnings::each("judges", &self.judges));
        crate::analysis::warnings::gather(&self.warnings, parts)
    }
}

crate::analysis::warnings::part_warnings!(NamedPair => agreement);

impl crate::analysis::warnings::Warned for JudgeAgreement {
    fn warnings(&self) -> Vec<crate::analysis::warnings::Warning> {
        // The majority agreement's fields are flattened into the judge's.
        self.agreement.warnings()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(source: &str, text: &str) -> RatingsFile {
        RatingsFile {
            source: source.into(),
            default_rater: None,
            bytes: text.as_bytes().to_vec(),
        }
    }

    #[test]
    fn judge_is_named_after_its_file() {
        let j = RatingsFile::judge("runs/gpt4.csv", Vec::new());
        assert_eq!(j.default_rater.as_deref(), Some("gpt4"));
        let j = RatingsFile::judge("C:\\x\\judge", Vec::new());
        assert_eq!(j.default_rater.as_deref(), Some("judge"));
        let j = RatingsFile::judge("runs/judge.v2.csv", Vec::new());
        assert_eq!(j.default_rater.as_deref(), Some("judge.v2"));
        let j = RatingsFile::judge("<stdin>", Vec::new());
        assert_eq!(j.default_rater.as_deref(), Some("stdin"));
        assert_eq!(j.source, "<stdin>");
    }

    #[test]
    fn labels_are_coded_together_and_judges_compared_with_the_majority() {
        let params = AgreementReportParams {
            ratings: RatingsParams {
                scale: ScoreScale::Nominal,
                categories: None,
            },
            bootstrap: BootstrapParams {
                rounds: 50,
                ..BootstrapParams::default()
            },
            ..AgreementReportParams::default()
        };
        let crowd = file(
            "crowd.csv",
            "item,rater,score\n1,a,x\n1,b,x\n2,a,y\n2,b,y\n3,a,x\n3,b,y\n",
        );
        let judge = RatingsFile::judge("j.csv", b"item,score\n1,x\n2,z\n".to_vec());
        let report = params.fit(&crowd, &[judge]).unwrap();
        assert_eq!(
            report.settings.categories,
            Some(vec!["x".into(), "y".into(), "z".into()])
        );
        assert_eq!(report.settings.level, AlphaLevel::Nominal);
        assert!(report.group.is_some());
        assert_eq!(report.majority.as_ref().map(|m| m.n_tied), Some(1));
        assert_eq!(report.judges.len(), 1);
        assert_eq!(report.judges[0].agreement.rater, "j");
        assert_eq!(report.judges[0].agreement.agreement.confusion.len(), 3);
    }

    fn nominal(categories: Option<&[&str]>) -> AgreementReportParams {
        AgreementReportParams {
            ratings: RatingsParams {
                scale: ScoreScale::Nominal,
                categories: categories.map(|c| c.iter().map(|&l| l.to_owned()).collect()),
            },
            bootstrap: BootstrapParams {
                rounds: 20,
                ..BootstrapParams::default()
            },
            ..AgreementReportParams::default()
        }
    }

    /// Every warning of the report, nested ones included (the CLI prints them all).
    fn all_warnings(report: &AgreementReport) -> Vec<String> {
        let mut all = report.warnings.clone();
        if let Some(g) = &report.group {
            all.extend(g.alpha.alpha.warnings.iter().cloned());
        }
        for p in &report.pairs {
            all.extend(p.agreement.warnings.iter().cloned());
        }
        for j in &report.judges {
            all.extend(j.agreement.agreement.warnings.iter().cloned());
        }
        all
    }

    #[test]
    fn constant_label_is_named_in_alpha_and_kappa_warnings() {
        let crowd = file(
            "crowd.csv",
            "item,rater,score\n1,a,good\n1,b,good\n2,a,good\n2,b,good\n3,a,good\n3,b,good\n",
        );
        let params = AgreementReportParams {
            pairs: vec![("a".into(), "b".into())],
            ..nominal(None)
        };
        let report = params.fit(&crowd, &[]).unwrap();
        let all = all_warnings(&report);
        // α (top level and nested), κ of the pair (top level and nested).
        assert_eq!(all.len(), 4, "{all:?}");
        for w in &all {
            assert!(w.contains("(`good`)"), "{w}");
            assert!(!w.contains("(0)"), "{w}");
        }
        assert!(report.warnings[0]
            .starts_with("crowd.csv: α: every pairable rating has the same value (`good`)"));
        assert!(report.warnings[1].starts_with(
            "crowd.csv: `a` vs `b`: both raters gave every item the same score (`good`)"
        ));
    }

    #[test]
    fn judge_against_majority_names_the_label_both_always_gave() {
        // Declared scale `bad`, `good`: everyone says `good` (code 1, not the first category).
        let crowd = file(
            "crowd.csv",
            "item,rater,score\n1,a,good\n1,b,good\n2,a,good\n2,b,good\n",
        );
        let judge = RatingsFile::judge("gpt.csv", b"item,score\n1,good\n2,good\n".to_vec());
        let report = nominal(Some(&["bad", "good"]))
            .fit(&crowd, &[judge])
            .unwrap();
        let kappa: Vec<&String> = report.warnings.iter().filter(|w| w.contains("κ")).collect();
        assert_eq!(kappa.len(), 1, "{:?}", report.warnings);
        assert!(
            kappa[0].starts_with(
                "gpt.csv: `gpt` vs the majority: both raters gave every item the same score \
                 (`good`)"
            ),
            "{}",
            kappa[0]
        );
        for w in all_warnings(&report) {
            assert!(
                !w.contains("`bad`") && !w.contains("(0)") && !w.contains("(1)"),
                "{w}"
            );
        }
    }

    #[test]
    fn numeric_scores_stay_numbers_in_warnings() {
        let crowd = file("c.csv", "item,rater,score\n1,a,3\n1,b,3\n2,a,3\n2,b,3\n");
        let params = AgreementReportParams {
            pairs: vec![("a".into(), "b".into())],
            bootstrap: BootstrapParams {
                rounds: 20,
                ..BootstrapParams::default()
            },
            ..AgreementReportParams::default()
        };
        let report = params.fit(&crowd, &[]).unwrap();
        assert!(
            report.warnings[0].contains("same value (3)"),
            "{:?}",
            report.warnings
        );
        assert!(
            report.warnings[1].contains("same score (3)"),
            "{:?}",
            report.warnings
        );
        assert!(all_warnings(&report).iter().all(|w| !w.contains("`3`")));
    }

    #[test]
    fn a_single_rater_alone_is_insufficient() {
        let one = file("one.csv", "item,rater,score\n1,a,3\n2,a,4\n");
        let err = AgreementReportParams::default().fit(&one, &[]).unwrap_err();
        assert!(matches!(err, Error::Insufficient(m) if m.contains("single rater (`a`)")));
    }
}
