//! The reliability family's analysis kinds ([`Kind`]): agreement, the A/A test,
//! self-consistency, position bias, the IRT report and table, and sample sizes — each reading its
//! ratings files by role and calling its report.

use crate::analysis::kind::{register_kind, Files, Kind, Roles};
use crate::io::dataset_kind::DatasetKind;
use crate::io::error::Result;
use crate::reliability::aa_report::{AaReport, AaReportParams};
use crate::reliability::consistency_report::{ConsistencyReport, ConsistencyReportParams};
use crate::reliability::irt::irt_report::{IrtCell, IrtReport, IrtReportParams};
use crate::reliability::position_report::{PositionReport, PositionReportParams};
use crate::reliability::power::{Alternative, Effect, PowerParams, SampleSize};
use crate::reliability::reliability_report::{AgreementReport, AgreementReportParams, RatingsFile};
use crate::reliability::slices::{SliceParams, SliceReport};
use serde::{Deserialize, Serialize};

/// The file in `role` as ratings; without a rater column, its rater is named after the file
/// when `named` holds.
fn ratings(files: &Files, role: &str, named: bool) -> Result<RatingsFile> {
    let file = files.get(role)?;
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

/// One ratings file.
fn one_ratings_file() -> Roles {
    Roles::none().required("ratings", DatasetKind::Ratings)
}

/// The agreement report's settings, the number of judge files (roles `judge.1` … `judge.N`,
/// each file's rater named after the file unless it has a rater column) and the per-slice
/// table's when wanted.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct AgreementSpec {
    #[cfg_attr(feature = "cli", command(flatten))]
    pub report: AgreementReportParams,
    /// How many judge files (roles `judge.1` …): set from the files given, not an option.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub judges: usize,
    /// Each judge's agreement with the majority per slice, when wanted.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub slices: Option<SliceParams>,
}

impl AgreementSpec {
    /// The role of the `i`-th judge file (from 1).
    pub fn judge_role(i: usize) -> String {
        format!("judge.{i}")
    }
}

/// The agreement report, with the per-slice table when it was asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgreementWithSlices {
    #[serde(flatten)]
    pub report: AgreementReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slices: Option<SliceReport>,
}

register_kind! {
    /// Agreement of the raters of `ratings` and of judges `judge.1` … against their majority
    /// (`tribunal stats agreement`).
    4 Agreement = "agreement": AgreementKind
}

impl Kind for AgreementKind {
    type Params = AgreementSpec;
    type Report = AgreementWithSlices;

    fn example() -> AgreementSpec {
        AgreementSpec::default()
    }

    fn roles(spec: &AgreementSpec) -> Roles {
        (1..=spec.judges).fold(one_ratings_file(), |roles, i| {
            roles.required(AgreementSpec::judge_role(i), DatasetKind::Ratings)
        })
    }

    fn run(params: &AgreementSpec, files: &Files) -> Result<AgreementWithSlices> {
        let input = ratings(files, "ratings", false)?;
        let judges = (1..=params.judges)
            .map(|i| ratings(files, &AgreementSpec::judge_role(i), true))
            .collect::<Result<Vec<_>>>()?;
        let report = params.report.fit(&input, &judges)?;
        let slices = params
            .slices
            .as_ref()
            .map(|slices| slices.fit(&params.report, &input, &judges))
            .transpose()?;
        Ok(AgreementWithSlices { report, slices })
    }
}

register_kind! {
    /// The A/A test of two runs of one judge in `ratings` (`tribunal stats aa`).
    5 Aa = "aa": AaKind
}

impl Kind for AaKind {
    type Params = AaReportParams;
    type Report = AaReport;

    /// The runs `run_1` and `run_2` (an A/A test has no default runs).
    fn example() -> AaReportParams {
        AaReportParams {
            columns: Default::default(),
            ratings: Default::default(),
            runs: ("run_1".to_owned(), "run_2".to_owned()),
            gold: None,
            pass: None,
            criterion: None,
            variant: None,
            test: Default::default(),
        }
    }

    fn roles(_: &AaReportParams) -> Roles {
        one_ratings_file()
    }

    fn run(params: &AaReportParams, files: &Files) -> Result<AaReport> {
        params.fit(&ratings(files, "ratings", false)?)
    }
}

register_kind! {
    /// Self-consistency of repeated judgments in `ratings` (`tribunal stats consistency`).
    6 Consistency = "consistency": ConsistencyKind
}

impl Kind for ConsistencyKind {
    type Params = ConsistencyReportParams;
    type Report = ConsistencyReport;

    fn example() -> ConsistencyReportParams {
        ConsistencyReportParams::default()
    }

    fn roles(_: &ConsistencyReportParams) -> Roles {
        one_ratings_file()
    }

    fn run(params: &ConsistencyReportParams, files: &Files) -> Result<ConsistencyReport> {
        params.fit(&ratings(files, "ratings", true)?)
    }
}

register_kind! {
    /// Position bias of a pairwise judge in `ratings` (`tribunal stats position`).
    7 Position = "position": PositionKind
}

impl Kind for PositionKind {
    type Params = PositionReportParams;
    type Report = PositionReport;

    fn example() -> PositionReportParams {
        PositionReportParams::default()
    }

    fn roles(_: &PositionReportParams) -> Roles {
        one_ratings_file()
    }

    fn run(params: &PositionReportParams, files: &Files) -> Result<PositionReport> {
        params.fit(&ratings(files, "ratings", true)?)
    }
}

/// The judges' ratings and, when given, the humans' (named after their files without a rater
/// column).
fn irt_files(files: &Files) -> Result<(RatingsFile, Option<RatingsFile>)> {
    let human = files
        .optional("human")
        .map(|_| ratings(files, "human", true))
        .transpose()?;
    Ok((ratings(files, "ratings", true)?, human))
}

/// The files of an IRT report: the ratings, and the humans' when given.
fn irt_roles() -> Roles {
    one_ratings_file().optional("human", DatasetKind::Ratings)
}

register_kind! {
    /// The graded response model of a judge under prompt variants in `ratings`, against the
    /// humans of `human` when given (`tribunal stats irt`).
    8 Irt = "irt": IrtKind
}

impl Kind for IrtKind {
    type Params = IrtReportParams;
    type Report = IrtReport;

    fn example() -> IrtReportParams {
        IrtReportParams::default()
    }

    fn roles(_: &IrtReportParams) -> Roles {
        irt_roles()
    }

    fn run(params: &IrtReportParams, files: &Files) -> Result<IrtReport> {
        let (input, human) = irt_files(files)?;
        params.fit(&input, human.as_ref())
    }
}

/// The IRT report of every judge × criterion of a ratings file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IrtTable {
    /// Always `irt_table`.
    pub statistic: String,
    /// In the file's order; none for a file without a variant column.
    pub cells: Vec<IrtCell>,
}

register_kind! {
    /// The IRT report of every judge × criterion of `ratings`, each against the humans of
    /// `human` when given (`tribunal stats irt --each`; the Reliability page's IRT table).
    9 IrtTable = "irt_table": IrtTableKind
}

impl Kind for IrtTableKind {
    type Params = IrtReportParams;
    type Report = IrtTable;

    fn example() -> IrtReportParams {
        IrtReportParams::default()
    }

    fn roles(_: &IrtReportParams) -> Roles {
        irt_roles()
    }

    fn run(params: &IrtReportParams, files: &Files) -> Result<IrtTable> {
        let (input, human) = irt_files(files)?;
        Ok(IrtTable {
            statistic: "irt_table".to_owned(),
            cells: params.fit_each(&input, human.as_ref())?,
        })
    }
}

/// A sample-size table: every effect at every wanted power.
///
/// As command-line options (feature `cli`) the effects are the command's: `--p1` with `--p2`,
/// `--mean1` with `--mean2` and `--sd`, or `--effect-size`, each list building one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct PowerSpec {
    #[cfg_attr(feature = "cli", arg(skip))]
    pub effects: Vec<Effect>,
    /// Wanted powers (comma-separated).
    #[cfg_attr(
        feature = "cli",
        arg(long = "power", id = "power", value_delimiter = ',', default_values_t = [0.8, 0.9], allow_hyphen_values = true)
    )]
    pub powers: Vec<f64>,
    /// Significance level α of the test.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = crate::reliability::power::PowerParams::default().alpha, allow_negative_numbers = true)
    )]
    pub alpha: f64,
    /// Size of the second group over the first, n₂ / n₁.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = crate::reliability::power::PowerParams::default().ratio, allow_negative_numbers = true)
    )]
    pub ratio: f64,
    /// `two-sided`, `larger` (group 1 above group 2) or `smaller`.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = Alternative::TwoSided))]
    pub alternative: Alternative,
}

/// The sample sizes of every effect at every power.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PowerTable {
    /// Always `sample_size`.
    pub statistic: String,
    pub rows: Vec<SampleSize>,
}

register_kind! {
    /// Sample sizes to compare two groups (`tribunal stats power`); reads no file.
    11 Power = "power": PowerKind
}

impl Kind for PowerKind {
    type Params = PowerSpec;
    type Report = PowerTable;

    /// A pass rate of 0.7 against 0.8 at 80 % power.
    fn example() -> PowerSpec {
        PowerSpec {
            effects: vec![Effect::Proportions { p1: 0.7, p2: 0.8 }],
            powers: vec![0.8],
            alpha: 0.05,
            ratio: 1.0,
            alternative: Alternative::TwoSided,
        }
    }

    fn roles(_: &PowerSpec) -> Roles {
        Roles::none()
    }

    fn run(params: &PowerSpec, _: &Files) -> Result<PowerTable> {
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
}

impl crate::analysis::warnings::Warned for AgreementWithSlices {
    fn warnings(&self) -> Vec<crate::analysis::warnings::Warning> {
        self.report.warnings()
    }
}

impl crate::analysis::warnings::Warned for IrtTable {
    fn warnings(&self) -> Vec<crate::analysis::warnings::Warning> {
        crate::analysis::warnings::gather(
            &[],
            crate::analysis::warnings::each("cells", &self.cells),
        )
    }
}

impl crate::analysis::warnings::Warned for PowerTable {
    fn warnings(&self) -> Vec<crate::analysis::warnings::Warning> {
        Vec::new()
    }
}
