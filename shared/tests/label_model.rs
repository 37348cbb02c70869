//! The label model: equal to crowd-kit's one-coin Dawid–Skene on committed simulated votes
//! (`fixtures/make_label_model_reference.py`); recovers known program accuracies from
//! simulated conditionally independent votes; beats majority vote when accuracies differ and
//! is majority vote when they are equal. Runs natively and in headless Chromium.

use serde::Deserialize;
use tribunal::programs::label_model::{majority_vote, ClassPrior, LabelModelParams, VoteMatrix};
use tribunal::programs::routing::{credit, posterior_verdict};
use tribunal::programs::simulate_votes::{simulate_votes, VoteSimulationParams};

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

/// The EM of `LabelModelParams::fit` written as the plain dense loop over items × programs
/// (the implementation before the sparse one): accuracies, π, iterations, converged and the
/// log-likelihood.
fn dense_em(params: &LabelModelParams, votes: &VoteMatrix) -> (Vec<f64>, f64, usize, bool, f64) {
    let logit = |p: f64| (p / (1.0 - p)).ln();
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    let (n, k) = (votes.items, votes.programs.len());
    let c = params.pseudo_count;
    let counts: Vec<usize> = (0..k)
        .map(|j| (0..n).filter(|&i| votes.row(i)[j] != 0).count())
        .collect();
    let mut acc = vec![params.initial_accuracy; k];
    let mut pi = match params.class_prior {
        ClassPrior::Learned => 0.5,
        ClassPrior::Fixed(p) => p,
    };
    let (mut iterations, mut converged) = (0, false);
    while iterations < params.max_iterations {
        iterations += 1;
        let weights: Vec<f64> = acc.iter().map(|&a| logit(a)).collect();
        let mut agree = vec![0.0; k];
        let mut q_sum = 0.0;
        for i in 0..n {
            let row = votes.row(i);
            let score: f64 = row
                .iter()
                .zip(&weights)
                .map(|(&v, w)| f64::from(v) * w)
                .sum();
            let q = sigmoid(logit(pi) + score);
            q_sum += q;
            for (j, &v) in row.iter().enumerate() {
                match v {
                    1 => agree[j] += q,
                    -1 => agree[j] += 1.0 - q,
                    _ => {}
                }
            }
        }
        let mut change: f64 = 0.0;
        for j in 0..k {
            let a = ((agree[j] + c) / (counts[j] as f64 + 2.0 * c)).clamp(1e-6, 1.0 - 1e-6);
            change = change.max((a - acc[j]).abs());
            acc[j] = a;
        }
        if params.class_prior == ClassPrior::Learned {
            let new_pi = (q_sum / n as f64).clamp(1e-6, 1.0 - 1e-6);
            change = change.max((new_pi - pi).abs());
            pi = new_pi;
        }
        if change < params.tolerance {
            converged = true;
            break;
        }
    }
    let log_likelihood = (0..n)
        .map(|i| {
            let (mut pos, mut neg) = (pi.ln(), (1.0 - pi).ln());
            for (&v, &a) in votes.row(i).iter().zip(&acc) {
                match v {
                    1 => {
                        pos += a.ln();
                        neg += (1.0 - a).ln();
                    }
                    -1 => {
                        pos += (1.0 - a).ln();
                        neg += a.ln();
                    }
                    _ => {}
                }
            }
            let m = pos.max(neg);
            m + ((pos - m).exp() + (neg - m).exp()).ln()
        })
        .sum();
    (acc, pi, iterations, converged, log_likelihood)
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn sparse_em_equals_the_dense_loop() {
    // The benchmark's votes (`votes-5k-20.csv`: benches/src/native.rs), small and
    // heavily abstaining matrices (items nobody votes on), a program that never votes, a fixed
    // prior, no pseudo-count, and a fit stopped before it converges.
    let bench = VoteSimulationParams {
        items: 5000,
        accuracies: (0..20).map(|j| 0.55 + 0.02 * f64::from(j)).collect(),
        abstain: (0..20)
            .map(|j| 0.1 + 0.03 * f64::from((j * 7) % 20))
            .collect(),
        prior: 0.5,
        seed: 14,
    };
    let sparse = VoteSimulationParams {
        items: 300,
        accuracies: vec![0.9, 0.7, 0.6, 0.8, 0.55],
        abstain: vec![0.8, 0.9, 0.7, 1.0, 0.85],
        prior: 0.3,
        seed: 5,
    };
    let three = VoteSimulationParams {
        items: 40,
        accuracies: vec![0.8, 0.6, 0.7],
        abstain: vec![0.2, 0.5, 0.3],
        prior: 0.6,
        seed: 9,
    };
    let settings = [
        LabelModelParams::default(),
        LabelModelParams {
            class_prior: ClassPrior::Fixed(0.35),
            pseudo_count: 0.0,
            ..LabelModelParams::default()
        },
        LabelModelParams {
            initial_accuracy: 0.9,
            pseudo_count: 2.5,
            max_iterations: 3,
            ..LabelModelParams::default()
        },
    ];
    for (name, simulation) in [("bench", &bench), ("sparse", &sparse), ("three", &three)] {
        let (votes, _) = simulate_votes(simulation).unwrap();
        assert!(
            name != "sparse" || (0..votes.items).any(|i| votes.row(i).iter().all(|&v| v == 0)),
            "the sparse case has items nobody votes on"
        );
        for params in &settings {
            let model = params.fit(&votes).unwrap();
            if params.pseudo_count == 0.0 && model.coverage.contains(&0.0) {
                // A never-voting program's NaN: `a_program_that_never_votes_adds_nothing`.
                continue;
            }
            let (accuracies, prior, iterations, converged, log_likelihood) =
                dense_em(params, &votes);
            let d = model
                .accuracies
                .iter()
                .zip(&accuracies)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(d <= 1e-12, "{name}, {params:?}: max |Δ accuracy| {d:e}");
            // The sums are added in the dense loop's order: the same numbers to the last bit.
            assert_eq!(model.accuracies, accuracies, "{name}, {params:?}");
            assert_eq!(model.class_prior, prior, "{name}, {params:?}");
            assert_eq!(
                (model.iterations, model.converged),
                (iterations, converged),
                "{name}, {params:?}"
            );
            assert_eq!(model.log_likelihood, log_likelihood, "{name}, {params:?}");
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_program_that_never_votes_adds_nothing() {
    // Without a pseudo-count its accuracy is 0/0 = NaN; the others', π, the log-likelihood and
    // every posterior are those of the matrix without it.
    let (votes, _) = simulate_votes(&VoteSimulationParams {
        items: 400,
        accuracies: vec![0.9, 0.7, 0.6, 0.8],
        abstain: vec![0.3, 0.5, 1.0, 0.4],
        prior: 0.4,
        seed: 3,
    })
    .unwrap();
    let without = VoteMatrix {
        programs: [0, 1, 3].map(|j| votes.programs[j].clone()).to_vec(),
        items: votes.items,
        votes: (0..votes.items)
            .flat_map(|i| [0, 1, 3].map(|j| votes.row(i)[j]))
            .collect(),
    };
    for params in [
        LabelModelParams {
            pseudo_count: 0.0,
            ..LabelModelParams::default()
        },
        LabelModelParams::default(),
    ] {
        let model = params.fit(&votes).unwrap();
        let reference = params.fit(&without).unwrap();
        assert_eq!(model.coverage[2], 0.0);
        if params.pseudo_count == 0.0 {
            assert!(model.accuracies[2].is_nan());
        } else {
            assert_eq!(model.accuracies[2], 0.5);
        }
        let others: Vec<f64> = [0, 1, 3].map(|j| model.accuracies[j]).to_vec();
        assert_eq!(others, reference.accuracies);
        assert_eq!(model.class_prior, reference.class_prior);
        assert_eq!(model.iterations, reference.iterations);
        assert!(model.converged);
        assert_eq!(model.log_likelihood, reference.log_likelihood);
        assert_eq!(model.posteriors(&votes), reference.posteriors(&without));
    }
}
