//! The label model: equal to crowd-kit's one-coin Dawid–Skene on committed simulated votes
//! (`fixtures/make_label_model_reference.py`); recovers known program accuracies from
//! simulated conditionally independent votes; beats majority vote when accuracies differ and
//! is majority vote when they are equal. Runs natively and in headless Chromium.

use serde::Deserialize;
use tribunal::label_model::{majority_vote, LabelModelParams, VoteMatrix};
use tribunal::routing::{credit, posterior_verdict};
use tribunal::simulate::{simulate_votes, VoteSimulationParams};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[derive(Deserialize)]
struct Case {
    name: String,
    programs: Vec<String>,
    votes: Vec<Vec<i8>>,
    accuracies: Vec<f64>,
    class_prior: f64,
    posterior: Vec<Option<f64>>,
}

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn equals_crowd_kit_one_coin_dawid_skene() {
    let fixture: Fixture =
        serde_json::from_str(include_str!("fixtures/label_model_reference.json")).unwrap();
    assert_eq!(fixture.cases.len(), 2);
    let params = LabelModelParams {
        pseudo_count: 0.0,
        max_iterations: 10_000,
        tolerance: 1e-13,
        ..LabelModelParams::default()
    };
    for case in &fixture.cases {
        let votes = VoteMatrix {
            programs: case.programs.clone(),
            items: case.votes.len(),
            votes: case.votes.iter().flatten().copied().collect(),
        };
        let model = params.fit(&votes).unwrap();
        assert!(model.converged, "{}", case.name);
        for (ours, theirs) in model.accuracies.iter().zip(&case.accuracies) {
            assert!(
                (ours - theirs).abs() < 1e-6,
                "{}: {ours} vs {theirs}",
                case.name
            );
        }
        assert!(
            (model.class_prior - case.class_prior).abs() < 1e-6,
            "{}",
            case.name
        );
        let posterior = model.posteriors(&votes);
        for (i, theirs) in case.posterior.iter().enumerate() {
            if let Some(p) = theirs {
                assert!((posterior[i] - p).abs() < 1e-6, "{} item {i}", case.name);
            }
        }
    }
}

fn simulate(accuracies: &[f64], abstain: &[f64], seed: u64) -> (VoteMatrix, Vec<i8>) {
    simulate_votes(&VoteSimulationParams {
        items: 5000,
        accuracies: accuracies.to_vec(),
        abstain: abstain.to_vec(),
        prior: 0.5,
        seed,
    })
    .unwrap()
}

fn accuracy(verdicts: &[i8], truth: &[i8]) -> f64 {
    verdicts
        .iter()
        .zip(truth)
        .map(|(&v, &t)| credit(v, t))
        .sum::<f64>()
        / truth.len() as f64
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn recovers_known_accuracies_and_beats_majority_vote_when_they_differ() {
    let accuracies = [0.95, 0.85, 0.75, 0.65, 0.6, 0.55, 0.55, 0.55];
    let abstain = [0.5, 0.1, 0.2, 0.3, 0.1, 0.2, 0.3, 0.4];
    for seed in 0..3 {
        let (votes, truth) = simulate(&accuracies, &abstain, seed);
        let model = LabelModelParams::default().fit(&votes).unwrap();
        // Each program votes on 2500–4500 items: the accuracy's sampling SE is ≤ 0.01, and
        // the EM estimate (which does not see the labels) must be within 0.03 of the truth.
        for (j, (&learned, &true_a)) in model.accuracies.iter().zip(&accuracies).enumerate() {
            assert!(
                (learned - true_a).abs() < 0.03,
                "seed {seed}, program {j}: learned {learned}, true {true_a}"
            );
            let coverage = 1.0 - abstain[j];
            assert!((model.coverage[j] - coverage).abs() < 0.03);
        }
        assert!((model.class_prior - 0.5).abs() < 0.03);
        let lm: Vec<i8> = model
            .posteriors(&votes)
            .iter()
            .map(|&q| posterior_verdict(q))
            .collect();
        let (lm, mv) = (
            accuracy(&lm, &truth),
            accuracy(&majority_vote(&votes), &truth),
        );
        // Weighting by logit accuracy lets the 0.95 program outvote the 0.55 ones.
        assert!(
            lm > mv + 0.03,
            "seed {seed}: label model {lm}, majority {mv}"
        );
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn is_majority_vote_when_accuracies_are_equal() {
    let (votes, truth) = simulate(&[0.7; 7], &[0.3; 7], 11);
    let model = LabelModelParams::default().fit(&votes).unwrap();
    for a in &model.accuracies {
        assert!((a - 0.7).abs() < 0.03, "{a}");
    }
    let lm: Vec<i8> = model
        .posteriors(&votes)
        .iter()
        .map(|&q| posterior_verdict(q))
        .collect();
    let mv = majority_vote(&votes);
    // Wherever majority vote decides, the label model decides the same; where it is tied, the
    // label model breaks the tie by the slightly different estimated accuracies.
    let decided: Vec<usize> = (0..truth.len()).filter(|&i| mv[i] != 0).collect();
    assert!(decided.len() > 4000);
    assert!(decided.iter().all(|&i| lm[i] == mv[i]));
    let (a_lm, a_mv) = (accuracy(&lm, &truth), accuracy(&mv, &truth));
    assert!(
        (a_lm - a_mv).abs() < 0.01,
        "label model {a_lm}, majority {a_mv}"
    );
}
