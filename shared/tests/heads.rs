//! Calibration heads (seed 000 §4, App. C.1) against scikit-learn and scipy (committed fixture,
//! `fixtures/make_heads_reference.py`), the base-judge identity of every head, the K-way head's
//! hand case and its K = 2 reduction to BTL2, and located errors. Runs natively and in headless
//! Chromium.
//!
//! Tolerance: all coefficients of a head (θ, θ_b, intercepts) as one vector, and its
//! predictions, agree with the reference to 1e-5 relative, ‖ours − reference‖∞ ≤
//! 1e-5 ‖reference‖∞ (1e-9 for the exact LS solve). scikit-learn's lbfgs stops at a gradient of
//! about 1e-7 here, so tighter tolerances would test it rather than us.

use serde::Deserialize;
use tribunal::calibration::btl2_head::{Btl2Data, Btl2Params};
use tribunal::calibration::btl_head::{BtlData, BtlParams};
use tribunal::calibration::cross_validation::{cross_validate, CrossValidationParams};
use tribunal::calibration::features::{BaseSignal, FeatureSpec, Scaler, DEFAULT_PROBABILITY_FLOOR};
use tribunal::calibration::glm::FitReport;
use tribunal::calibration::head::HeadParams;
use tribunal::calibration::ls_head::{LsData, LsParams};
use tribunal::calibration::mn_head::{MnData, MnParams};
use tribunal::calibration::plackett_luce_head::{
    PlackettLuceData, PlackettLuceHead, PlackettLuceParams, RankedList,
};
use tribunal::io::error::Error;

const FIXTURE: &str = include_str!("fixtures/heads_reference.json");

#[derive(Deserialize)]
struct Fixture {
    ls: Vec<LsCase>,
    btl: Vec<BtlCase>,
    btl2: Vec<Btl2Case>,
    mn: Vec<MnCase>,
    plackett_luce: Vec<PlCase>,
}

#[derive(Deserialize)]
struct LsCase {
    name: String,
    gamma: f64,
    embeddings: Vec<Vec<f64>>,
    scores: Vec<f64>,
    labels: Vec<f64>,
    test_embeddings: Vec<Vec<f64>>,
    test_scores: Vec<f64>,
    weights: Vec<f64>,
    base_weight: f64,
    intercept: f64,
    predictions: Vec<f64>,
}

#[derive(Deserialize)]
struct BtlCase {
    name: String,
    gamma: f64,
    embeddings: Vec<Vec<f64>>,
    probabilities: Vec<f64>,
    labels: Vec<f64>,
    test_embeddings: Vec<Vec<f64>>,
    test_probabilities: Vec<f64>,
    weights: Vec<f64>,
    base_weight: f64,
    intercept: f64,
    predictions: Vec<f64>,
}

#[derive(Deserialize)]
struct Btl2Case {
    name: String,
    gamma: f64,
    first_embeddings: Vec<Vec<f64>>,
    second_embeddings: Vec<Vec<f64>>,
    first_scores: Vec<f64>,
    second_scores: Vec<f64>,
    labels: Vec<f64>,
    test_first_embeddings: Vec<Vec<f64>>,
    test_second_embeddings: Vec<Vec<f64>>,
    test_first_scores: Vec<f64>,
    test_second_scores: Vec<f64>,
    weights: Vec<f64>,
    base_weight: f64,
    intercept: f64,
    predictions: Vec<f64>,
}

#[derive(Deserialize)]
struct MnCase {
    name: String,
    gamma: f64,
    classes: Vec<i64>,
    embeddings: Vec<Vec<f64>>,
    probabilities: Vec<Vec<f64>>,
    labels: Vec<i64>,
    test_embeddings: Vec<Vec<f64>>,
    test_probabilities: Vec<Vec<f64>>,
    weights: Vec<Vec<f64>>,
    base_weights: Vec<f64>,
    intercepts: Vec<f64>,
    predictions: Vec<Vec<f64>>,
}

#[derive(Deserialize)]
struct PlCase {
    name: String,
    gamma: f64,
    lists: Vec<RankedList>,
    test_lists: Vec<RankedList>,
    weights: Vec<f64>,
    base_weight: f64,
    predictions: Vec<Vec<f64>>,
}

fn fixture() -> Fixture {
    serde_json::from_str(FIXTURE).unwrap()
}

/// ‖ours − reference‖∞ ≤ tol ‖reference‖∞.
fn assert_close(what: &str, ours: &[f64], reference: &[f64], tol: f64) {
    assert_eq!(ours.len(), reference.len(), "{what}: lengths");
    let scale = reference.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let err = ours
        .iter()
        .zip(reference)
        .fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(
        err <= tol * scale,
        "{what}: max error {err:e} > {tol:e} × {scale:e}\nours {ours:?}\nreference {reference:?}"
    );
}

/// All coefficients of a head in one vector: θ, θ_b and the intercepts.
fn coefficients(weights: &[f64], base: &[f64], intercepts: &[f64]) -> Vec<f64> {
    [weights, base, intercepts].concat()
}

fn check_report(what: &str, report: &FitReport) {
    assert!(report.converged, "{what}: {report:?}");
    assert!(
        report.objective <= report.identity_objective,
        "{what}: {report:?}"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn ls_head_equals_sklearn_ridge() {
    let cases = fixture().ls;
    assert_eq!(cases.len(), 2);
    for c in &cases {
        let data = LsData {
            embeddings: c.embeddings.clone(),
            scores: c.scores.clone(),
            labels: c.labels.clone(),
        };
        let head = LsParams {
            gamma: c.gamma,
            ..Default::default()
        }
        .fit(&data)
        .unwrap();
        check_report(&c.name, &head.report);
        assert_eq!(head.report.row_space, c.name.contains("dual"), "{}", c.name);
        let what = format!("LS {}", c.name);
        assert_close(
            &what,
            &coefficients(&head.weights, &[head.base_weight], &[head.intercept]),
            &coefficients(&c.weights, &[c.base_weight], &[c.intercept]),
            1e-9,
        );
        let predicted = head.predict(&c.test_embeddings, &c.test_scores).unwrap();
        assert_close(&what, &predicted, &c.predictions, 1e-9);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn btl_head_equals_sklearn_logistic_regression() {
    let cases = fixture().btl;
    assert_eq!(cases.len(), 2);
    for c in &cases {
        let data = BtlData {
            embeddings: c.embeddings.clone(),
            probabilities: c.probabilities.clone(),
            labels: c.labels.clone(),
        };
        let head = BtlParams {
            gamma: c.gamma,
            ..Default::default()
        }
        .fit(&data)
        .unwrap();
        check_report(&c.name, &head.report);
        assert_eq!(head.report.row_space, c.name.contains("dual"), "{}", c.name);
        let what = format!("BTL {}", c.name);
        assert_close(
            &what,
            &coefficients(&head.weights, &[head.base_weight], &[head.intercept]),
            &coefficients(&c.weights, &[c.base_weight], &[c.intercept]),
            1e-5,
        );
        let predicted = head
            .predict(&c.test_embeddings, &c.test_probabilities)
            .unwrap();
        assert_close(&what, &predicted, &c.predictions, 1e-5);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn btl2_head_equals_sklearn_logistic_regression_on_differences() {
    let cases = fixture().btl2;
    assert_eq!(cases.len(), 2);
    for c in &cases {
        let data = Btl2Data {
            first_embeddings: c.first_embeddings.clone(),
            second_embeddings: c.second_embeddings.clone(),
            first_scores: c.first_scores.clone(),
            second_scores: c.second_scores.clone(),
            labels: c.labels.clone(),
        };
        let head = Btl2Params {
            gamma: c.gamma,
            ..Default::default()
        }
        .fit(&data)
        .unwrap();
        check_report(&c.name, &head.report);
        assert_eq!(head.report.row_space, c.name.contains("dual"), "{}", c.name);
        let what = format!("BTL2 {}", c.name);
        assert_close(
            &what,
            &coefficients(&head.weights, &[head.base_weight], &[head.intercept]),
            &coefficients(&c.weights, &[c.base_weight], &[c.intercept]),
            1e-5,
        );
        let predicted = head
            .predict(
                &c.test_first_embeddings,
                &c.test_second_embeddings,
                &c.test_first_scores,
                &c.test_second_scores,
            )
            .unwrap();
        assert_close(&what, &predicted, &c.predictions, 1e-5);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn mn_head_equals_sklearn_and_scipy() {
    let cases = fixture().mn;
    assert_eq!(cases.len(), 3);
    for c in &cases {
        let data = MnData {
            classes: c.classes.clone(),
            embeddings: c.embeddings.clone(),
            probabilities: c.probabilities.clone(),
            labels: c.labels.clone(),
        };
        let head = MnParams {
            gamma: c.gamma,
            ..Default::default()
        }
        .fit(&data)
        .unwrap();
        check_report(&c.name, &head.report);
        assert_eq!(head.report.row_space, c.name.contains("dual"), "{}", c.name);
        let what = format!("MN {}", c.name);
        // With a uniform base judge the reference base weights are 0: a constant log p_s is
        // absorbed by the unpenalised c_s.
        assert_close(
            &what,
            &coefficients(&head.weights.concat(), &head.base_weights, &head.intercepts),
            &coefficients(&c.weights.concat(), &c.base_weights, &c.intercepts),
            1e-5,
        );
        let predicted = head
            .predict(&c.test_embeddings, &c.test_probabilities)
            .unwrap();
        assert_close(
            &what,
            &predicted.probabilities.concat(),
            &c.predictions.concat(),
            1e-5,
        );
        for (label, row) in predicted.labels.iter().zip(&c.predictions) {
            let best = (0..row.len()).fold(0, |b, s| if row[s] > row[b] { s } else { b });
            assert_eq!(*label, c.classes[best], "{what}");
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn plackett_luce_head_equals_scipy() {
    let cases = fixture().plackett_luce;
    assert_eq!(cases.len(), 2);
    for c in &cases {
        let data = PlackettLuceData {
            lists: c.lists.clone(),
        };
        let head = PlackettLuceParams {
            gamma: c.gamma,
            ..Default::default()
        }
        .fit(&data)
        .unwrap();
        check_report(&c.name, &head.report);
        assert_eq!(head.report.row_space, c.name.contains("dual"), "{}", c.name);
        let what = format!("Plackett–Luce {}", c.name);
        assert_close(
            &what,
            &coefficients(&head.weights, &[head.base_weight], &[]),
            &coefficients(&c.weights, &[c.base_weight], &[]),
            1e-5,
        );
        let predicted = head.predict(&c.test_lists).unwrap();
        assert_close(&what, &predicted.concat(), &c.predictions.concat(), 1e-5);
    }
}

/// Base-judge identity: every head's reported identity objective is the base judge's own loss
/// plus γ per unit base weight (computed here from the data alone), and the fit never exceeds
/// it.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn every_head_starts_from_and_never_loses_to_the_base_judge() {
    let f = fixture();
    let gammas = [0.05, 1.0, 30.0];
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();

    let c = &f.ls[0];
    let data = LsData {
        embeddings: c.embeddings.clone(),
        scores: c.scores.clone(),
        labels: c.labels.clone(),
    };
    let base_sse: f64 = c
        .scores
        .iter()
        .zip(&c.labels)
        .map(|(b, s)| (b - s).powi(2))
        .sum();
    for head in LsParams::default().fit_path(&data, &gammas).unwrap() {
        assert!(close(head.report.identity_objective, base_sse + head.gamma));
        assert!(head.report.objective < head.report.identity_objective);
    }

    let log_loss = |p: &[f64], y: &[f64]| -> f64 {
        p.iter()
            .zip(y)
            .map(|(&p, &s)| {
                let p = p.clamp(DEFAULT_PROBABILITY_FLOOR, 1.0 - DEFAULT_PROBABILITY_FLOOR);
                -(s * p.ln() + (1.0 - s) * (1.0 - p).ln())
            })
            .sum()
    };
    let c = &f.btl[0];
    let data = BtlData {
        embeddings: c.embeddings.clone(),
        probabilities: c.probabilities.clone(),
        labels: c.labels.clone(),
    };
    let base = log_loss(&c.probabilities, &c.labels);
    for head in BtlParams::default().fit_path(&data, &gammas).unwrap() {
        assert!(close(head.report.identity_objective, base + head.gamma));
        assert!(head.report.objective < head.report.identity_objective);
    }

    let c = &f.btl2[0];
    let data = Btl2Data {
        first_embeddings: c.first_embeddings.clone(),
        second_embeddings: c.second_embeddings.clone(),
        first_scores: c.first_scores.clone(),
        second_scores: c.second_scores.clone(),
        labels: c.labels.clone(),
    };
    let p: Vec<f64> = c
        .first_scores
        .iter()
        .zip(&c.second_scores)
        .map(|(b1, b2)| b1 / (b1 + b2))
        .collect();
    let base = log_loss(&p, &c.labels);
    for head in Btl2Params::default().fit_path(&data, &gammas).unwrap() {
        assert!(close(head.report.identity_objective, base + head.gamma));
        assert!(head.report.objective < head.report.identity_objective);
    }

    let c = &f.mn[1];
    let data = MnData {
        classes: c.classes.clone(),
        embeddings: c.embeddings.clone(),
        probabilities: c.probabilities.clone(),
        labels: c.labels.clone(),
    };
    let base: f64 = c
        .probabilities
        .iter()
        .zip(&c.labels)
        .map(|(row, label)| {
            let total: f64 = row.iter().map(|p| p.max(DEFAULT_PROBABILITY_FLOOR)).sum();
            let s = c.classes.iter().position(|k| k == label).unwrap();
            -(row[s].max(DEFAULT_PROBABILITY_FLOOR) / total).ln()
        })
        .sum();
    let k = c.classes.len() as f64;
    for head in MnParams::default().fit_path(&data, &gammas).unwrap() {
        assert!(close(head.report.identity_objective, base + k * head.gamma));
        assert!(head.report.objective < head.report.identity_objective);
    }

    let c = &f.plackett_luce[0];
    let data = PlackettLuceData {
        lists: c.lists.clone(),
    };
    // −log ∏_k b_k / Σ_{i≥k} b_i over the observed orders.
    let base: f64 = c
        .lists
        .iter()
        .map(|l| {
            let b = &l.scores;
            (0..b.len() - 1)
                .map(|k| (b[k..].iter().sum::<f64>() / b[k]).ln())
                .sum::<f64>()
        })
        .sum();
    for head in PlackettLuceParams::default()
        .fit_path(&data, &gammas)
        .unwrap()
    {
        assert!(close(head.report.identity_objective, base + head.gamma));
        assert!(head.report.objective < head.report.identity_objective);
    }
}

/// The identity head θ = 0 ⊕ 1 of the K-way judge on a list with scores 3, 2, 1:
/// P(order) = 3/6 · 2/3 = 1/3 and the categorical is (1/2, 1/3, 1/6).
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn plackett_luce_three_way_hand_case() {
    let head = PlackettLuceHead {
        spec: FeatureSpec {
            embedding_dim: 2,
            standardize: false,
            base: BaseSignal::LogScore,
            probability_floor: DEFAULT_PROBABILITY_FLOOR,
        },
        scaler: Scaler::identity(2),
        weights: vec![0.0, 0.0],
        base_weight: 1.0,
        gamma: 1.0,
        report: FitReport {
            n_train: 0,
            objective: 0.0,
            identity_objective: 0.0,
            iterations: 0,
            converged: true,
            max_abs_gradient: 0.0,
            row_space: false,
        },
    };
    let list = RankedList {
        embeddings: vec![vec![0.3, 1.0], vec![-2.0, 0.5], vec![1.0, 1.0]],
        scores: vec![3.0, 2.0, 1.0],
    };
    let data = PlackettLuceData {
        lists: vec![list.clone()],
    };
    assert!((head.log_loss(&data).unwrap() - 3f64.ln()).abs() < 1e-15);
    let p = head.predict(&[list]).unwrap();
    assert_close("categorical", &p[0], &[0.5, 1.0 / 3.0, 1.0 / 6.0], 1e-15);
    // With θ = (1, 0) ⊕ 0 the scores are the first coordinates 0.3, −2, 1:
    // log P = (0.3 − log(e^0.3 + e^−2 + e)) + (−2 − log(e^−2 + e)).
    let tilted = PlackettLuceHead {
        weights: vec![1.0, 0.0],
        base_weight: 0.0,
        ..head
    };
    let e = f64::exp;
    let want = -((0.3 - (e(0.3) + e(-2.0) + e(1.0)).ln()) + (-2.0 - (e(-2.0) + e(1.0)).ln()));
    assert!((tilted.log_loss(&data).unwrap() - want).abs() < 1e-14);
}

/// With K = 2 the Plackett–Luce likelihood of "winner first" is BTL2's at c = 0. BTL2 on every
/// pair in both orders (labels 1 and 0) has c = 0 by symmetry and twice the loss, so BTL2 at
/// 2γ on the symmetrised pairs equals Plackett–Luce at γ on the lists.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn plackett_luce_with_two_responses_is_btl2() {
    let c = &fixture().btl2[0];
    let gamma = 0.7;
    let mut pairs = Btl2Data {
        first_embeddings: vec![],
        second_embeddings: vec![],
        first_scores: vec![],
        second_scores: vec![],
        labels: vec![],
    };
    let mut lists = vec![];
    for t in 0..c.labels.len() {
        let (e1, e2) = (&c.first_embeddings[t], &c.second_embeddings[t]);
        let (b1, b2) = (c.first_scores[t], c.second_scores[t]);
        let ((we, wb), (le, lb)) = if c.labels[t] == 1.0 {
            ((e1, b1), (e2, b2))
        } else {
            ((e2, b2), (e1, b1))
        };
        lists.push(RankedList {
            embeddings: vec![we.clone(), le.clone()],
            scores: vec![wb, lb],
        });
        for (first, second, bf, bs, y) in [(we, le, wb, lb, 1.0), (le, we, lb, wb, 0.0)] {
            pairs.first_embeddings.push(first.clone());
            pairs.second_embeddings.push(second.clone());
            pairs.first_scores.push(bf);
            pairs.second_scores.push(bs);
            pairs.labels.push(y);
        }
    }
    let pl = PlackettLuceParams {
        gamma,
        ..Default::default()
    }
    .fit(&PlackettLuceData { lists })
    .unwrap();
    let btl2 = Btl2Params {
        gamma: 2.0 * gamma,
        ..Default::default()
    }
    .fit(&pairs)
    .unwrap();
    assert!(btl2.intercept.abs() < 1e-8, "{}", btl2.intercept);
    assert_close(
        "K = 2",
        &coefficients(&pl.weights, &[pl.base_weight], &[]),
        &coefficients(&btl2.weights, &[btl2.base_weight], &[]),
        1e-6,
    );
    assert!((2.0 * pl.report.objective - btl2.report.objective).abs() < 1e-8);
    let test: Vec<RankedList> = (0..c.test_first_scores.len())
        .map(|t| RankedList {
            embeddings: vec![
                c.test_first_embeddings[t].clone(),
                c.test_second_embeddings[t].clone(),
            ],
            scores: vec![c.test_first_scores[t], c.test_second_scores[t]],
        })
        .collect();
    let first_wins: Vec<f64> = pl.predict(&test).unwrap().iter().map(|p| p[0]).collect();
    let pi = btl2
        .predict(
            &c.test_first_embeddings,
            &c.test_second_embeddings,
            &c.test_first_scores,
            &c.test_second_scores,
        )
        .unwrap();
    assert_close("K = 2 predictions", &first_wins, &pi, 1e-6);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn input_errors_are_located_and_explicit() {
    let ls = LsData {
        embeddings: vec![vec![1.0, 2.0, 3.0], vec![0.0, 1.0], vec![1.0, 1.0, 1.0]],
        scores: vec![1.0, 2.0, 3.0],
        labels: vec![1.0, 2.0, 3.0],
    };
    let err = LsParams::default().fit(&ls).unwrap_err();
    assert_eq!(
        err.to_string(),
        "embeddings, line 2: expected an embedding of 3 numbers like the first embedding, \
         found 2"
    );

    let mut ls = ls;
    ls.embeddings[1] = vec![0.0, 1.0, 5.0];
    let head = LsParams::default().fit(&ls).unwrap();
    let err = head.predict(&[vec![1.0; 4]], &[2.0]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "embeddings, line 1: expected an embedding of 3 numbers like the training embeddings, \
         found 4"
    );
    let err = head.predict(&[vec![1.0; 3]], &[2.0, 3.0]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "scores, line 2: expected one value per embedding (1), found 2"
    );

    let mn = MnData {
        classes: vec![1, 2, 3],
        embeddings: vec![vec![0.0]; 3],
        probabilities: vec![vec![0.2, 0.3, 0.5]; 3],
        labels: vec![1, 2, 9],
    };
    let err = MnParams::default().fit(&mn).unwrap_err();
    assert_eq!(
        err.to_string(),
        "labels, line 3: expected one of the classes [1, 2, 3], found 9"
    );
    let mn = MnData {
        labels: vec![1, 2, 1],
        ..mn
    };
    let err = MnParams::default().fit(&mn).unwrap_err();
    assert!(matches!(err, Error::Insufficient(_)));
    assert!(
        err.to_string().starts_with("class 3 has no labelled row"),
        "{err}"
    );

    let err =
        cross_validate(&LsParams::default(), &ls, &CrossValidationParams::default()).unwrap_err();
    assert!(matches!(err, Error::Insufficient(_)));
    assert_eq!(
        err.to_string(),
        "5-fold cross-validation needs at least 5 units (one per fold), found 3"
    );

    let btl = BtlData {
        embeddings: vec![vec![0.0]; 2],
        probabilities: vec![0.5, 1.2],
        labels: vec![1.0, 0.0],
    };
    let err = BtlParams::default().fit(&btl).unwrap_err();
    assert_eq!(
        err.to_string(),
        "probabilities, line 2: expected a probability in [0, 1], found 1.2"
    );

    let btl2 = Btl2Data {
        first_embeddings: vec![vec![0.0]; 2],
        second_embeddings: vec![vec![1.0]; 2],
        first_scores: vec![1.0, 2.0],
        second_scores: vec![0.0, 2.0],
        labels: vec![1.0, 0.0],
    };
    let err = Btl2Params::default().fit(&btl2).unwrap_err();
    assert_eq!(
        err.to_string(),
        "second_scores, line 1: expected a finite score > 0 (the base probability is a ratio \
         of scores; shift the scale so that scores are positive), found 0"
    );

    let pl = PlackettLuceData {
        lists: vec![
            RankedList {
                embeddings: vec![vec![0.0, 1.0], vec![1.0, 0.0]],
                scores: vec![1.0, 2.0],
            },
            RankedList {
                embeddings: vec![vec![0.0, 1.0], vec![1.0]],
                scores: vec![1.0, 2.0],
            },
        ],
    };
    let err = PlackettLuceParams::default().fit(&pl).unwrap_err();
    assert_eq!(
        err.to_string(),
        "lists[1].embeddings, line 2: expected an embedding of 2 numbers like the first \
         embedding, found 1"
    );

    let err = LsParams {
        gamma: 0.0,
        ..Default::default()
    }
    .fit(&ls)
    .unwrap_err();
    assert!(matches!(err, Error::InvalidParam { name: "gamma", .. }));
    let empty = LsData {
        embeddings: vec![],
        scores: vec![],
        labels: vec![],
    };
    assert!(matches!(
        LsParams::default().fit(&empty),
        Err(Error::Insufficient(_))
    ));
}
