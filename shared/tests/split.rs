//! Split runs ([`tribunal::analysis::split`]): a leaderboard's bootstrap and a calibration's
//! cross-validation computed in parts, in any split across workers, join into the report the
//! whole run makes, byte for byte; the plan previews the point leaderboard; a kind that runs
//! whole has no parts; parts that do not cover the run, or are of another kind, are refused.

use tribunal::analysis::partial::Partial;
#[cfg(not(target_arch = "wasm32"))]
use tribunal::analysis::split::Prepared;
use tribunal::analysis::split::{finish, plan, run_parts};
use tribunal::analysis::{run, Analysis, Inputs, Report, Spec};
use tribunal::calibration::ablation::{Ablation, TrainingCurveParams};
use tribunal::calibration::calibration_data::HeadKind;
use tribunal::calibration::kinds::CalibrationSpec;
use tribunal::calibration::CalibrationParams;
use tribunal::math::resample::BootstrapParams;
use tribunal::rankings::kinds::LeaderboardSpec;

const GPT4: &[u8] = include_bytes!("../../tests/data/llmfao/gpt4-crowd-comparisons.csv");
const TRAIN: &[u8] = include_bytes!("../../tests/data/llmfao/calibration-train.csv");
const TEST: &[u8] = include_bytes!("../../tests/data/llmfao/calibration-test.csv");
const TRAIN_NPY: &[u8] = include_bytes!("../../tests/data/llmfao/calibration-train.npy");
const TEST_NPY: &[u8] = include_bytes!("../../tests/data/llmfao/calibration-test.npy");

fn json(report: &Report) -> String {
    serde_json::to_string(report).unwrap()
}

/// `spec` run whole and in the parts `splits` (cut points), each range's progress counted.
#[cfg(not(target_arch = "wasm32"))]
fn whole_and_split(spec: &Spec, inputs: &Inputs, cuts: &[usize]) -> (String, String) {
    let whole = json(&run(spec, inputs).unwrap());
    let n = plan(spec, inputs).unwrap().0;
    let mut bounds = vec![0];
    bounds.extend(cuts.iter().copied().filter(|&c| c < n));
    bounds.push(n);
    let mut partials = Vec::new();
    for w in bounds.windows(2) {
        let mut done = 0;
        partials.push(run_parts(spec, inputs, w[0]..w[1], &mut |k| done += k).unwrap());
        assert_eq!(done, w[1] - w[0], "progress of {}..{}", w[0], w[1]);
    }
    let split = json(&finish(spec, inputs, partials).unwrap());
    // One prepared run, as a web worker keeps it between its jobs: the same report.
    let prepared = Prepared::new(spec, inputs.clone()).unwrap();
    let _ = prepared.preview().unwrap();
    let parts = bounds
        .windows(2)
        .map(|w| prepared.run_parts(w[0]..w[1], &mut |_| {}).unwrap())
        .collect();
    assert_eq!(
        json(&prepared.finish(parts).unwrap()),
        split,
        "prepared once"
    );
    (whole, split)
}

fn leaderboard(rounds: usize, cluster: Option<&str>) -> (Spec, Inputs) {
    let mut inputs = Inputs::new();
    inputs.insert("battles", "gpt4-crowd-comparisons.csv", GPT4.to_vec());
    let spec = Spec::new(
        Analysis::Leaderboard(LeaderboardSpec {
            bootstrap: BootstrapParams {
                rounds,
                seed: 7,
                ..BootstrapParams::default()
            },
            cluster: cluster.map(str::to_owned),
            ..LeaderboardSpec::default()
        }),
        &inputs,
    );
    (spec, inputs)
}

fn calibration(ablation: Option<Ablation>, curve: bool) -> (Spec, Inputs) {
    let mut inputs = Inputs::new();
    inputs.insert("train", "calibration-train.csv", TRAIN.to_vec());
    inputs.insert("test", "calibration-test.csv", TEST.to_vec());
    inputs.insert(
        "train_embeddings",
        "calibration-train.npy",
        TRAIN_NPY.to_vec(),
    );
    inputs.insert("test_embeddings", "calibration-test.npy", TEST_NPY.to_vec());
    let mut params = CalibrationParams::default();
    params.bootstrap.rounds = 20;
    let spec = Spec::new(
        Analysis::Calibration(CalibrationSpec {
            head: HeadKind::Btl,
            calibration: params,
            ablation,
            training_curve: curve.then(|| TrainingCurveParams {
                sizes: vec![100],
                repeats: 1,
                seed: 3,
            }),
        }),
        &inputs,
    );
    (spec, inputs)
}

// Natively only: a debug WASM build runs these whole runs past the test runner's 20-second
// poll. In the browser, the pages' own tests check the split runs against the CLI
// (`tests/browser.rs`, `tests/calibrate_browser.rs`, `tests/saved_analyses_browser.rs`).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_leaderboard_s_bootstrap_in_any_split_equals_the_whole_run() {
    for cluster in [None, Some("prompt")] {
        let (spec, inputs) = leaderboard(60, cluster);
        let (parts, preview) = plan(&spec, &inputs).unwrap();
        assert_eq!(parts, 60);
        // The preview is the point leaderboard: the whole run's ratings without intervals.
        let Some(Report::Leaderboard(preview)) = preview else {
            panic!("a leaderboard previews its point fit")
        };
        let Report::Leaderboard(whole) = run(&spec, &inputs).unwrap() else {
            panic!("a leaderboard")
        };
        assert!(preview.bootstrap.is_none() && whole.bootstrap.is_some());
        for (p, w) in preview.ratings.iter().zip(&whole.ratings) {
            assert_eq!((&p.model, p.elo), (&w.model, w.elo));
        }
        for cuts in [vec![], vec![30], vec![1, 17, 59]] {
            let (whole, split) = whole_and_split(&spec, &inputs, &cuts);
            assert_eq!(whole, split, "cluster {cluster:?}, cuts {cuts:?}");
        }
    }
    // No bootstrap: no parts, and finishing with none is the point fit.
    let (spec, inputs) = leaderboard(0, None);
    assert_eq!(plan(&spec, &inputs).unwrap().0, 0);
    assert_eq!(
        json(&finish(&spec, &inputs, Vec::new()).unwrap()),
        json(&run(&spec, &inputs).unwrap())
    );
}

// Natively only: a debug WASM build runs these whole runs past the test runner's 20-second
// poll. In the browser, the pages' own tests check the split runs against the CLI
// (`tests/browser.rs`, `tests/calibrate_browser.rs`, `tests/saved_analyses_browser.rs`).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_calibration_s_folds_in_any_split_equal_the_whole_run() {
    for (ablation, curve, splits) in [
        (None, false, vec![vec![2], vec![1, 2, 3, 4]]),
        (None, true, vec![vec![3]]),
        (
            Some(Ablation::DropFeatures {
                fraction: 0.5,
                seed: 1,
            }),
            false,
            vec![vec![1]],
        ),
    ] {
        let (spec, inputs) = calibration(ablation, curve);
        assert_eq!(plan(&spec, &inputs).unwrap(), (5, None));
        for cuts in splits {
            let (whole, split) = whole_and_split(&spec, &inputs, &cuts);
            assert_eq!(whole, split, "{ablation:?}, curve {curve}, cuts {cuts:?}");
        }
        let report: serde_json::Value =
            serde_json::from_str(&json(&run(&spec, &inputs).unwrap())).unwrap();
        assert_eq!(report["training_curve"].is_object(), curve);
        assert_eq!(report["ablation"].is_object(), ablation.is_some());
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn parts_that_do_not_cover_the_run_are_refused() {
    let (spec, inputs) = leaderboard(40, None);
    let past = run_parts(&spec, &inputs, 30..41, &mut |_| {}).unwrap_err();
    assert!(
        past.to_string()
            .contains("expected a range within 0..40, found 30..41"),
        "{past}"
    );
    let some = run_parts(&spec, &inputs, 0..30, &mut |_| {}).unwrap();
    let short = finish(&spec, &inputs, vec![some]).unwrap_err();
    assert!(
        short
            .to_string()
            .contains("expected 40 bootstrap rounds, found 30"),
        "{short}"
    );
    let folds = finish(&spec, &inputs, vec![Partial::FoldLosses(vec![vec![0.0]])]).unwrap_err();
    assert!(
        folds.to_string().contains("expected bootstrap replicates"),
        "{folds}"
    );
    let (spec, inputs) = calibration(None, false);
    let few = finish(&spec, &inputs, vec![Partial::FoldLosses(Vec::new())]).unwrap_err();
    assert!(few.to_string().contains("expected 5 folds"), "{few}");
    let rounds = finish(&spec, &inputs, vec![Partial::Replicates(Vec::new())]).unwrap_err();
    assert!(
        rounds
            .to_string()
            .contains("expected cross-validation fold losses"),
        "{rounds}"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_kind_that_runs_whole_has_no_parts() {
    let power = Analysis::each_kind()
        .into_iter()
        .find(|a| a.name() == "power")
        .unwrap();
    let spec = Spec::new(power, &Inputs::new());
    assert_eq!(plan(&spec, &Inputs::new()).unwrap(), (0, None));
    assert_eq!(
        json(&finish(&spec, &Inputs::new(), Vec::new()).unwrap()),
        json(&run(&spec, &Inputs::new()).unwrap())
    );
    let refused = run_parts(&spec, &Inputs::new(), 0..1, &mut |_| {}).unwrap_err();
    assert!(refused.to_string().contains("0..0"), "{refused}");
}
