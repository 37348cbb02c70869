//! Soft targets: β's MLE and its SE against statsmodels, ECE and reliability bins against numpy
//! (committed fixture, `fixtures/make_soft_targets_reference.py`), and hand cases for label
//! smoothing, hard targets and ECE. Runs natively and in headless Chromium.

use serde::Deserialize;
use tribunal::io::error::Error;
use tribunal::math::logistic::sigmoid;
use tribunal::rankings::scored_battles::{
    parse_scored_battles, JudgeSignal, ScoredBattle, ScoredBattles,
};
use tribunal::rankings::soft_targets::{
    label_smoothing, BetaParams, Binning, CalibrationParams, Orientation, TargetKind,
};

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    true_beta: f64,
    scores: Vec<f64>,
    labels: Vec<f64>,
    beta: f64,
    se: f64,
    log_likelihood: f64,
    distinct_scores: usize,
    calibration: Vec<CalibrationCase>,
}

#[derive(Deserialize)]
struct CalibrationCase {
    orientation: Orientation,
    binning: Binning,
    bins: usize,
    n: usize,
    ece: f64,
    table: Vec<BinCase>,
}

#[derive(Deserialize)]
struct BinCase {
    count: usize,
    mean_predicted: Option<f64>,
    observed: Option<f64>,
}

fn fixture() -> Fixture {
    serde_json::from_str(include_str!("fixtures/soft_targets_reference.json")).unwrap()
}

/// Battles between two models with the given scores and human labels.
fn scored(scores: &[f64], labels: &[f64]) -> ScoredBattles {
    ScoredBattles {
        models: vec!["a".into(), "b".into()],
        prompts: vec![],
        signal: JudgeSignal::Score,
        battles: scores
            .iter()
            .zip(labels)
            .map(|(&s, &y)| ScoredBattle {
                a: 0,
                b: 1,
                score: Some(s),
                order_flip: false,
                judge: None,
                human: Some(y),
                prompt: None,
                judge_repeat: false,
                line: None,
            })
            .collect(),
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn beta_equals_statsmodels_and_recovers_the_true_temperature() {
    let fixture = fixture();
    assert_eq!(fixture.cases.len(), 2);
    for c in &fixture.cases {
        let fit = BetaParams::default().fit(&c.scores, &c.labels).unwrap();
        assert!(
            fit.converged && fit.gradient.abs() < 1e-9,
            "{}: {fit:?}",
            c.name
        );
        assert!(
            (fit.beta - c.beta).abs() <= 1e-9,
            "{}: {} vs {}",
            c.name,
            fit.beta,
            c.beta
        );
        assert!(
            (fit.se - c.se).abs() <= 1e-9 * c.se,
            "{}: {} vs {}",
            c.name,
            fit.se,
            c.se
        );
        assert!((fit.log_likelihood - c.log_likelihood).abs() <= 1e-8);
        assert_eq!(fit.distinct_scores, c.distinct_scores);
        assert_eq!(fit.n_battles, c.scores.len());
        // The simulated temperature lies within 3 standard errors of the estimate.
        assert!((fit.beta - c.true_beta).abs() <= 3.0 * fit.se, "{}", c.name);
        // A warm start reaches the same optimum.
        for start in [-2.0, 3.0] {
            let warm = BetaParams::default()
                .fit_from(&c.scores, &c.labels, start)
                .unwrap();
            assert!((warm.beta - fit.beta).abs() < 1e-12, "{}", c.name);
        }
        // The same fit through the battle interface.
        let via_battles = BetaParams::default()
            .fit_battles(&scored(&c.scores, &c.labels), None)
            .unwrap();
        assert_eq!(via_battles, fit);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn ece_and_bins_equal_numpy() {
    for c in &fixture().cases {
        let data = scored(&c.scores, &c.labels);
        for cal in &c.calibration {
            let params = CalibrationParams {
                bins: cal.bins,
                binning: cal.binning,
                orientation: cal.orientation,
            };
            let got = params.of_soft_targets(&data, c.beta).unwrap();
            let what = format!("{} {:?} {:?}", c.name, cal.orientation, cal.binning);
            assert_eq!(got.n, cal.n, "{what}");
            assert!(
                (got.ece - cal.ece).abs() <= 1e-6,
                "{what}: {} vs {}",
                got.ece,
                cal.ece
            );
            for (bin, want) in got.bins.iter().zip(&cal.table) {
                assert_eq!(bin.count, want.count, "{what}");
                for (g, w) in [
                    (bin.mean_predicted, want.mean_predicted),
                    (bin.observed, want.observed),
                ] {
                    match (g, w) {
                        (Some(g), Some(w)) => assert!((g - w).abs() <= 1e-12, "{what}"),
                        (None, None) => {}
                        other => panic!("{what}: {other:?}"),
                    }
                }
            }
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn ece_hand_case() {
    // Two equal-width bins: [0, ½) holds 0.1 and 0.2 (outcomes 0, 1): mean 0.15, observed ½;
    // [½, 1] holds 0.7, 0.8, 0.9 (outcomes 1, 1, 0): mean 0.8, observed ⅔.
    // ECE = 2/5 · 0.35 + 3/5 · (0.8 − ⅔) = 0.14 + 0.08 = 0.22.
    let params = CalibrationParams {
        bins: 2,
        binning: Binning::EqualWidth,
        orientation: Orientation::ModelA,
    };
    let cal = params
        .compute(&[0.1, 0.2, 0.7, 0.8, 0.9], &[0.0, 1.0, 1.0, 1.0, 0.0])
        .unwrap();
    assert!((cal.ece - 0.22).abs() < 1e-15, "{}", cal.ece);
    assert_eq!(cal.bins[0].count, 2);
    assert!((cal.bins[0].mean_predicted.unwrap() - 0.15).abs() < 1e-15);
    assert_eq!(cal.bins[0].observed, Some(0.5));
    assert!((cal.bins[1].observed.unwrap() - 2.0 / 3.0).abs() < 1e-15);
    assert_eq!(
        (cal.bins[1].lower, cal.bins[1].upper),
        (Some(0.5), Some(1.0))
    );
    // Equal mass with 3 bins of 5: sizes 2, 2, 1 in order of prediction; an empty bin (6 bins
    // of 5) has no means.
    let mass = CalibrationParams {
        bins: 3,
        binning: Binning::EqualMass,
        ..params
    };
    let cal = mass
        .compute(&[0.9, 0.1, 0.8, 0.2, 0.7], &[0.0, 0.0, 1.0, 1.0, 1.0])
        .unwrap();
    let counts: Vec<usize> = cal.bins.iter().map(|b| b.count).collect();
    assert_eq!(counts, [2, 2, 1]);
    // Bins {0.1, 0.2}, {0.7, 0.8}, {0.9}: |0.15 − ½|·2 + |0.75 − 1|·2 + |0.9 − 0|·1, over 5.
    assert!(
        (cal.ece - (0.7 + 0.5 + 0.9) / 5.0).abs() < 1e-15,
        "{}",
        cal.ece
    );
    let six = CalibrationParams { bins: 6, ..mass };
    let cal = six.compute(&[0.5; 5], &[1.0; 5]).unwrap();
    assert_eq!(cal.bins[5].count, 0);
    assert_eq!(cal.bins[5].mean_predicted, None);
    assert!((cal.ece - 0.5).abs() < 1e-15);
    assert!(params.compute(&[1.5], &[1.0]).is_err());
    assert!(params.compute(&[0.5], &[0.5]).is_err());
    assert!(matches!(
        params.compute(&[], &[]),
        Err(Error::Insufficient(_))
    ));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn hard_smoothed_and_soft_targets_by_hand() {
    // Rows: A clearly better; B better; a sign flip between orders (mean +0.5); both zero.
    let data = parse_scored_battles(
        "t.csv",
        b"model_a,model_b,score_ab,score_ba\nx,y,1.5,0.5\nx,y,-1,-3\nx,y,1.5,-0.5\nx,y,0,0\n",
    )
    .unwrap();
    let hard = TargetKind::Hard.targets(&data, None).unwrap();
    assert_eq!(hard, [1.0, 0.0, 0.5, 0.5]);
    let smooth = TargetKind::LabelSmoothing { c: 0.75 }
        .targets(&data, None)
        .unwrap();
    assert_eq!(smooth, [0.75, 0.25, 0.5, 0.5]);
    assert_eq!(label_smoothing(1.0, 0.9), 0.9);
    assert!((label_smoothing(0.0, 0.9) - 0.1).abs() < 1e-15);
    // App. H.1: label smoothing is σ(logit(c)·sgn(s)) on decisive battles.
    let c: f64 = 0.75;
    let logit = (c / (1.0 - c)).ln();
    for (y, s) in [(1.0, 1.5), (0.0, -2.0)] {
        assert!((label_smoothing(y, c) - sigmoid(logit * f64::signum(s))).abs() < 1e-15);
    }
    // Soft: σ(β s) on the mean of both orders, with β = ln 3 so σ(β) = ¾; a flip is not a tie.
    let beta = 3f64.ln();
    let soft = TargetKind::Soft { beta: Some(beta) }
        .targets(&data, None)
        .unwrap();
    let want = [0.75, 1.0 / (1.0 + 9.0), sigmoid(0.5 * beta), 0.5];
    for (g, w) in soft.iter().zip(want) {
        assert!((g - w).abs() < 1e-15, "{soft:?}");
    }
    // β fitted elsewhere and passed in.
    let fitted = TargetKind::Soft { beta: None }
        .targets(&data, Some(beta))
        .unwrap();
    assert_eq!(fitted, soft);
    assert!(TargetKind::Soft { beta: None }
        .targets(&data, None)
        .is_err());
    for c in [0.5, 1.0, 0.2] {
        assert!(matches!(
            TargetKind::LabelSmoothing { c }.targets(&data, None),
            Err(Error::InvalidParam { name: "c", .. })
        ));
    }
    // Verdicts only: hard targets yes, soft targets no.
    let verdicts =
        parse_scored_battles("v.csv", b"model_a,model_b,judge\nx,y,model_b\nx,y,tie\n").unwrap();
    assert_eq!(
        TargetKind::Hard.targets(&verdicts, None).unwrap(),
        [0.0, 0.5]
    );
    let soft = TargetKind::Soft { beta: Some(1.0) };
    match soft.targets(&verdicts, None) {
        Err(Error::Insufficient(msg)) => assert!(msg.contains("verdicts only"), "{msg}"),
        other => panic!("expected Insufficient, got {other:?}"),
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn separable_labels_are_refused() {
    // Every label agrees with its score's sign: the likelihood increases without bound in β.
    match BetaParams::default().fit(&[1.0, -2.0, 0.5], &[1.0, 0.0, 1.0]) {
        Err(Error::Insufficient(msg)) => assert_eq!(
            msg,
            "the β MLE is infinite: of 3 human non-tie battles, 3 agree with the sign of the \
             judge score and 0 disagree; the fit needs at least one of each"
        ),
        other => panic!("expected Insufficient, got {other:?}"),
    }
    assert!(matches!(
        BetaParams::default().fit(&[0.0, 0.0], &[1.0, 0.0]),
        Err(Error::Insufficient(_))
    ));
    assert!(matches!(
        BetaParams::default().fit(&[], &[]),
        Err(Error::Insufficient(_))
    ));
    assert!(matches!(
        BetaParams::default().fit(&[1.0], &[0.5]),
        Err(Error::InvalidParam { name: "labels", .. })
    ));
    // Two battles, one agreeing with s = 1 and one disagreeing with s = 1: the MLE is β = 0
    // (σ(β) = ½ fits one win in two), with information 2 · ¼ · 1² and SE √2.
    let fit = BetaParams::default().fit(&[1.0, 1.0], &[1.0, 0.0]).unwrap();
    assert!(fit.beta.abs() < 1e-15 && (fit.se - 2f64.sqrt()).abs() < 1e-15);
    // Three wins in four at s = 2: σ(2β) = ¾, so β = ln(3)/2.
    let fit = BetaParams::default()
        .fit(&[2.0, 2.0, 2.0, 2.0], &[1.0, 1.0, 1.0, 0.0])
        .unwrap();
    assert!((fit.beta - 3f64.ln() / 2.0).abs() < 1e-12, "{}", fit.beta);
}
