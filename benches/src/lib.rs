//! The benchmarked workloads, one function each, called by the native timer (`bench-native`)
//! and, compiled to WASM, by the browser timer (`benches/wasm.mjs`). Timing lives in the
//! callers because `std::time::Instant` does not exist in the browser.
//!
//! Every workload returns a number derived from its result so the work cannot be optimised
//! away. The inputs are parsed from the same CSV files the Python references read
//! ([`synthetic`] writes them), with the library's own parsers.

pub mod ppi_study;
pub mod synthetic;

use tribunal::analysis::{Inputs, Spec};
use tribunal::calibration::btl_head::BtlParams;
use tribunal::calibration::calibration_data::{parse_calibration, CalibrationData, HeadKind};
use tribunal::calibration::cross_validation::{fit_with_cv, CrossValidationParams};
use tribunal::calibration::ls_head::LsParams;
use tribunal::compare::comparison::CompareParams;
use tribunal::math::resample::BootstrapParams;
use tribunal::ppi::ppi_bootstrap::Resampling;
use tribunal::ppi::ppi_report::PpiParams;
use tribunal::programs::label_model::{LabelModelParams, VoteMatrix};
use tribunal::programs::program_pairs::{parse_program_pairs, ProgramPair};
use tribunal::programs::program_report::builtin_scores;
use tribunal::programs::vote_file::parse_vote_file;
use tribunal::rankings::battles::{parse_battles, Battles};
use tribunal::rankings::bradley_terry::BradleyTerryParams;
use tribunal::rankings::bt_bootstrap::BtBootstrapParams;
use tribunal::rankings::leaderboard::bradley_terry_leaderboard;
use tribunal::rankings::pairwise::Pairwise;
use tribunal::reliability::alpha::{AlphaLevel, AlphaParams};
use tribunal::reliability::irt::irt_grm::{GrmParams, RatingMatrix as GrmMatrix};
use tribunal::reliability::kappa::KappaParams;
use tribunal::reliability::ratings::{RatingMatrix, RatingsParams, Selection};
use tribunal::Error;

/// Parse a battles CSV and fit the leaderboard: what a user waits for after picking a file.
/// Returns the top rating.
pub fn csv_to_leaderboard(bytes: &[u8]) -> f64 {
    parse_battles("bench.csv", bytes)
        .and_then(|b| bradley_terry_leaderboard("bench.csv", &b, &BradleyTerryParams::default()))
        .map_or(f64::NAN, |lb| lb.ratings[0].elo)
}

/// The Bradley–Terry fit alone, from parsed battles (sufficient statistics + Newton).
/// Returns θ of the first model.
pub fn fit_only(battles: &Battles) -> f64 {
    let data = Pairwise::from_battles(battles.n_models(), &battles.battles);
    BradleyTerryParams::default()
        .fit(&data)
        .map_or(f64::NAN, |fit| fit.theta[0])
}

/// The bootstrap every BT benchmark runs: default settings (1000 rounds, seed 0, level 0.95).
pub fn bt_bootstrap_params() -> BtBootstrapParams {
    BtBootstrapParams::default()
}

/// The Bradley–Terry battle bootstrap ([`bt_bootstrap_params`]) on parsed battles.
/// Returns the upper interval bound of the top model.
pub fn bt_bootstrap(battles: &Battles) -> f64 {
    bt_bootstrap_params()
        .fit(battles, None)
        .map_or(f64::NAN, |b| b.ratings[0].interval.upper)
}

/// Parses a calibration CSV for an LS (`btl` false) or BTL head.
///
/// # Errors
/// Those of [`parse_calibration`].
pub fn parse_calibration_file(bytes: &[u8], btl: bool) -> Result<CalibrationData, Error> {
    let kind = if btl { HeadKind::Btl } else { HeadKind::Ls };
    parse_calibration("bench.csv", bytes, kind, None)
}

/// scikit-learn's stopping rule for `LogisticRegressionCV` (lbfgs): no component of the mean
/// loss's gradient above `tol` = 1e−4 — the BTL head's own rule at that tolerance, for issue
/// 44's comparison at equal tolerance (the head's default is 1e−9).
pub const SKLEARN_TOLERANCE: f64 = 1e-4;

/// Chooses γ by 5-fold cross-validation over the default 10-point grid and refits at it (what
/// `tribunal stats calibrate` does before scoring), the BTL head's solver stopped at
/// `btl_tol` (`None`: its default). Returns the chosen γ.
pub fn calibration_cv(data: &CalibrationData, btl_tol: Option<f64>) -> f64 {
    let cv = CrossValidationParams::default();
    match data {
        CalibrationData::Ls(d) => {
            fit_with_cv(&LsParams::default(), d, &cv).map(|(_, c)| c.chosen_gamma)
        }
        CalibrationData::Btl(d) => {
            let mut params = BtlParams::default();
            if let Some(tol) = btl_tol {
                params.solver.tol = tol;
            }
            fit_with_cv(&params, d, &cv).map(|(_, c)| c.chosen_gamma)
        }
        _ => return f64::NAN,
    }
    .unwrap_or(f64::NAN)
}

/// The bootstrap every agreement benchmark runs: 1000 rounds, seed 0, level 0.95.
pub fn agreement_bootstrap_params() -> BootstrapParams {
    BootstrapParams::default()
}

/// Parses a long-format ratings CSV (`item,rater,score`, numeric scores) into the item ×
/// rater matrix, as the app and the CLI read ratings.
///
/// # Errors
/// Those of [`RatingsParams::parse`] and [`tribunal::reliability::ratings::Ratings::matrix`].
pub fn parse_ratings(bytes: &[u8]) -> tribunal::Result<RatingMatrix> {
    RatingsParams::default()
        .parse("bench.csv", bytes)?
        .matrix(&Selection::default())
}

/// Krippendorff's α (nominal) with a bootstrap over units ([`agreement_bootstrap_params`]).
/// Returns the upper interval bound.
pub fn alpha_bootstrap(matrix: &RatingMatrix) -> f64 {
    AlphaParams {
        level: AlphaLevel::Nominal,
    }
    .bootstrap(&matrix.values, &agreement_bootstrap_params())
    .map_or(f64::NAN, |b| b.interval.upper)
}

/// The scores of the first two raters on the items both rated.
pub fn kappa_pair(matrix: &RatingMatrix) -> (Vec<f64>, Vec<f64>) {
    matrix.paired(0, 1)
}

/// Cohen's κ (unweighted) with a bootstrap over items ([`agreement_bootstrap_params`]); the
/// library draws the κ and the percent-agreement intervals, 1000 rounds each. Returns the
/// upper bound of the κ interval.
pub fn kappa_bootstrap(a: &[f64], b: &[f64]) -> f64 {
    KappaParams::default()
        .bootstrap(a, b, &agreement_bootstrap_params())
        .map_or(f64::NAN, |k| k.kappa_interval.upper)
}

/// The item × variant matrix of integer scores that the graded response model takes.
///
/// # Errors
/// [`Error::InvalidParam`] for a score that is not a whole number in `0..=u32::MAX`.
pub fn grm_matrix(matrix: &RatingMatrix) -> tribunal::Result<GrmMatrix> {
    let rows = matrix
        .values
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| cell.map(whole_score).transpose())
                .collect::<tribunal::Result<Vec<Option<u32>>>>()
        })
        .collect::<tribunal::Result<Vec<_>>>()?;
    GrmMatrix::from_rows(&rows)
}

fn whole_score(x: f64) -> tribunal::Result<u32> {
    if x.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&x) {
        Ok(x as u32)
    } else {
        Err(Error::param(
            "score",
            format!("a graded response model needs whole scores ≥ 0, found {x}"),
        ))
    }
}

/// The GRM settings timed, by key: `map` (the library default: MAP with seed 003's priors),
/// `flat` (both priors off: marginal maximum likelihood, the estimator `girth.grm_mml`
/// computes) and `flat_girth_tolerance` (flat, stopped as girth stops: once no parameter moves
/// by 1e−3 — girth looks at the discriminations only —, issue 44's "at equal tolerance").
pub const GRM_SETTINGS: [&str; 3] = ["map", "flat", "flat_girth_tolerance"];

/// The GRM settings of a key of [`GRM_SETTINGS`].
pub fn grm_params(key: &str) -> Option<GrmParams> {
    let flat = GrmParams {
        log_alpha_prior: None,
        threshold_prior: None,
        ..GrmParams::default()
    };
    match key {
        "map" => Some(GrmParams::default()),
        "flat" => Some(flat),
        "flat_girth_tolerance" => Some(GrmParams { tol: 1e-3, ..flat }),
        _ => None,
    }
}

/// The graded response model fit with `params`. Returns the marginal log-likelihood.
pub fn grm_fit(matrix: &GrmMatrix, params: &GrmParams) -> f64 {
    params
        .fit(matrix)
        .map_or(f64::NAN, |fit| fit.log_likelihood)
}

/// Parses a programs pairs CSV (`id,instruction,response,response_b[,label]`).
///
/// # Errors
/// Those of [`parse_program_pairs`].
pub fn parse_pairs_file(bytes: &[u8]) -> Result<Vec<ProgramPair>, Error> {
    parse_program_pairs("bench.csv", bytes)
}

/// The ten built-in programs on both responses of every pair (one thread). Returns the sum of
/// the scores.
pub fn program_library(pairs: &[ProgramPair]) -> f64 {
    builtin_scores(pairs).scores.iter().flatten().sum()
}

/// Parses a vote file.
///
/// # Errors
/// Those of [`parse_vote_file`].
pub fn parse_votes_file(bytes: &[u8]) -> Result<VoteMatrix, Error> {
    parse_vote_file("bench.csv", bytes).map(|f| f.votes)
}

/// The label model's EM fit with default settings. Returns its learned accuracies.
pub fn label_model_fit(votes: &VoteMatrix) -> Vec<f64> {
    LabelModelParams::default()
        .fit(votes)
        .map_or_else(|_| vec![f64::NAN], |m| m.accuracies)
}

/// The prediction-powered report of a labelled-battles file, `rounds` bootstrap rounds (0:
/// none; seed 0), power-tuned λ: the PPI Bradley–Terry fit as the page runs it (the win rates
/// and their label budgets included). Returns the top model's upper bound (the bootstrap's
/// when there is one).
pub fn ppi_report(bytes: &[u8], rounds: usize) -> f64 {
    let params = PpiParams {
        bootstrap: (rounds > 0).then_some(Resampling { rounds, seed: 0 }),
        ..PpiParams::default()
    };
    params
        .fit("bench.csv", bytes)
        .ok()
        .and_then(|r| r.leaderboard)
        .map_or(f64::NAN, |b| {
            let top = &b.ratings[0];
            top.bootstrap.map_or(top.ppi.upper, |i| i.upper)
        })
}

/// The whole comparison of a scores CSV (`tribunal stats compare`'s report) with a paired
/// bootstrap of `rounds` rounds (seed 0), every pair or each system against `baseline`.
/// Returns the first pair's bootstrap upper bound.
pub fn compare(bytes: &[u8], rounds: usize, baseline: Option<String>) -> f64 {
    let params = CompareParams {
        baseline,
        bootstrap_rounds: rounds,
        ..CompareParams::default()
    };
    params.fit("bench.csv", bytes).map_or(f64::NAN, |c| {
        c.differences
            .first()
            .and_then(|d| d.bootstrap)
            .map_or(f64::NAN, |b| b.upper)
    })
}

/// A saved analysis — its spec (JSON, as `tribunal stats` records it) on its files by role —
/// run as the page's web worker runs it ([`tribunal::analysis::run`]): the scaling table's
/// browser column (`benches/scaling_wasm.mjs`). Returns the report's kind.
pub fn run_spec(spec: &Spec, inputs: &Inputs) -> Result<&'static str, Error> {
    tribunal::analysis::run(spec, inputs).map(|report| report.name())
}

#[cfg(target_arch = "wasm32")]
mod wasm {
    use super::*;
    use wasm_bindgen::prelude::*;

    fn js(e: Error) -> JsError {
        JsError::new(&e.to_string())
    }

    /// Parsed battles held on the WASM side between timed calls.
    #[wasm_bindgen]
    pub struct ParsedBattles(Battles);

    /// A parsed ratings file held on the WASM side: the matrix, the first two raters' paired
    /// scores, and the integer matrix for the GRM (when every score is whole).
    #[wasm_bindgen]
    pub struct ParsedRatings {
        matrix: RatingMatrix,
        pair: (Vec<f64>, Vec<f64>),
        grm: Option<GrmMatrix>,
    }

    /// A parsed calibration file held on the WASM side.
    #[wasm_bindgen]
    pub struct ParsedCalibration(CalibrationData);

    /// Parsed programs pairs held on the WASM side.
    #[wasm_bindgen]
    pub struct ParsedPairs(Vec<ProgramPair>);

    /// A parsed vote matrix held on the WASM side.
    #[wasm_bindgen]
    pub struct ParsedVotes(VoteMatrix);

    #[wasm_bindgen]
    pub fn bench_parse_pairs(bytes: &[u8]) -> Result<ParsedPairs, JsError> {
        parse_pairs_file(bytes).map(ParsedPairs).map_err(js)
    }

    #[wasm_bindgen]
    pub fn bench_program_library(parsed: &ParsedPairs) -> f64 {
        program_library(&parsed.0)
    }

    #[wasm_bindgen]
    pub fn bench_parse_votes(bytes: &[u8]) -> Result<ParsedVotes, JsError> {
        parse_votes_file(bytes).map(ParsedVotes).map_err(js)
    }

    #[wasm_bindgen]
    pub fn bench_label_model(parsed: &ParsedVotes) -> f64 {
        label_model_fit(&parsed.0)[0]
    }

    /// [`compare`](super::compare); an empty `baseline` compares every pair.
    #[wasm_bindgen]
    pub fn bench_compare(bytes: &[u8], rounds: usize, baseline: String) -> f64 {
        compare(bytes, rounds, Some(baseline).filter(|b| !b.is_empty()))
    }

    #[wasm_bindgen]
    pub fn bench_parse_calibration(bytes: &[u8], btl: bool) -> Result<ParsedCalibration, JsError> {
        parse_calibration_file(bytes, btl)
            .map(ParsedCalibration)
            .map_err(js)
    }

    #[wasm_bindgen]
    pub fn bench_calibration_cv(parsed: &ParsedCalibration) -> f64 {
        calibration_cv(&parsed.0, None)
    }

    /// A spec and its files, added role by role, to run ([`run_spec`](super::run_spec)).
    #[wasm_bindgen]
    pub struct SpecRun {
        spec: Spec,
        inputs: Inputs,
    }

    #[wasm_bindgen]
    impl SpecRun {
        #[wasm_bindgen(constructor)]
        pub fn new(spec: &str) -> Result<SpecRun, JsError> {
            Ok(SpecRun {
                spec: serde_json::from_str(spec).map_err(|e| JsError::new(&e.to_string()))?,
                inputs: Inputs::new(),
            })
        }

        /// The file read in `role`, under the name the spec gives it.
        pub fn add(&mut self, role: String, bytes: Vec<u8>) {
            let name = self
                .spec
                .inputs
                .get(&role)
                .map_or_else(|| role.clone(), |r| r.name.clone());
            self.inputs.insert(role, name, bytes);
        }

        /// Runs the analysis; returns the report's kind.
        pub fn run(&self) -> Result<String, JsError> {
            run_spec(&self.spec, &self.inputs)
                .map(str::to_owned)
                .map_err(js)
        }
    }

    #[wasm_bindgen]
    pub fn bench_ppi_report(bytes: &[u8], rounds: usize) -> f64 {
        ppi_report(bytes, rounds)
    }

    #[wasm_bindgen]
    pub fn bench_csv_to_leaderboard(bytes: &[u8]) -> f64 {
        csv_to_leaderboard(bytes)
    }

    #[wasm_bindgen]
    pub fn bench_parse(bytes: &[u8]) -> Result<ParsedBattles, JsError> {
        parse_battles("bench.csv", bytes)
            .map(ParsedBattles)
            .map_err(js)
    }

    #[wasm_bindgen]
    pub fn bench_fit_only(parsed: &ParsedBattles) -> f64 {
        fit_only(&parsed.0)
    }

    #[wasm_bindgen]
    pub fn bench_bt_bootstrap(parsed: &ParsedBattles) -> f64 {
        bt_bootstrap(&parsed.0)
    }

    #[wasm_bindgen]
    pub fn bench_parse_ratings(bytes: &[u8]) -> Result<ParsedRatings, JsError> {
        let matrix = parse_ratings(bytes).map_err(js)?;
        Ok(ParsedRatings {
            pair: kappa_pair(&matrix),
            grm: grm_matrix(&matrix).ok(),
            matrix,
        })
    }

    #[wasm_bindgen]
    pub fn bench_alpha_bootstrap(parsed: &ParsedRatings) -> f64 {
        alpha_bootstrap(&parsed.matrix)
    }

    #[wasm_bindgen]
    pub fn bench_kappa_bootstrap(parsed: &ParsedRatings) -> f64 {
        kappa_bootstrap(&parsed.pair.0, &parsed.pair.1)
    }

    #[wasm_bindgen]
    pub fn bench_grm_fit(parsed: &ParsedRatings, setting: &str) -> Result<f64, JsError> {
        let params = grm_params(setting)
            .ok_or_else(|| JsError::new(&format!("no GRM setting `{setting}`")))?;
        parsed
            .grm
            .as_ref()
            .map(|m| grm_fit(m, &params))
            .ok_or_else(|| JsError::new("the ratings file has scores that are not whole numbers"))
    }
}
