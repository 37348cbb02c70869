//! Analytic Bradley–Terry standard errors against numpy (committed fixture,
//! `fixtures/make_bt_se_reference.py`: per-battle Hessian and score outer products at choix's
//! optimum on the LLMFAO crowd comparisons) and against hand-derived identities.
//! Runs natively and in headless Chromium.

use serde::Deserialize;
use tribunal::math::logistic::sigmoid;
use tribunal::rankings::battles::{parse_battles, Battle, Battles};
use tribunal::rankings::bradley_terry::BradleyTerryParams;
use tribunal::rankings::bradley_terry::ELO_PER_THETA;
use tribunal::rankings::bt_standard_errors::BtStandardErrorsParams;

#[derive(Deserialize)]
struct Fixture {
    csv: String,
    lambda: f64,
    n_battles: usize,
    n_components: usize,
    models: Vec<String>,
    theta: Vec<f64>,
    max_abs_gradient: f64,
    se_model_based: Vec<f64>,
    se_sandwich: Vec<f64>,
    se_cluster_prompt: Vec<f64>,
    se_cluster_worker: Vec<f64>,
    difference_pair: [usize; 2],
    se_difference: Differences,
    prompt: Vec<usize>,
    worker: Vec<usize>,
}

#[derive(Deserialize)]
struct Differences {
    model_based: f64,
    sandwich: f64,
    cluster_prompt: f64,
}

const FIXTURE: &str = include_str!("fixtures/bt_se_reference.json");

fn crowd() -> (Fixture, Battles) {
    let fixture: Fixture = serde_json::from_str(FIXTURE).unwrap();
    assert_eq!(fixture.csv, "tests/data/llmfao/crowd-comparisons.csv");
    let battles = parse_battles(
        &fixture.csv,
        include_bytes!("../../tests/data/llmfao/crowd-comparisons.csv"),
    )
    .unwrap();
    assert_eq!(battles.battles.len(), fixture.n_battles);
    assert_eq!(battles.models, fixture.models);
    (fixture, battles)
}

fn assert_close(ours: &[f64], numpy: &[f64], tolerance: f64, what: &str) {
    assert_eq!(ours.len(), numpy.len());
    for (i, (o, n)) in ours.iter().zip(numpy).enumerate() {
        assert!(
            (o - n).abs() <= tolerance * n.abs(),
            "{what}, model {i}: ours {o} numpy {n}"
        );
    }
}

fn params(lambda: f64) -> BtStandardErrorsParams {
    BtStandardErrorsParams {
        bt: BradleyTerryParams {
            lambda,
            ..Default::default()
        },
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn standard_errors_equal_numpy_at_the_reference_optimum() {
    // At numpy's θ̂ the sufficient-statistic sums must reproduce the per-battle matrices to
    // rounding; asserted ≤ 1e-9 relative.
    let (f, battles) = crowd();
    assert_eq!(f.n_components, 1);
    assert!(f.max_abs_gradient < 1e-10);
    let se = params(f.lambda)
        .compute_at(&battles, &f.theta, Some(&f.prompt))
        .unwrap();
    assert!(se.max_abs_gradient < 1e-9, "{}", se.max_abs_gradient);
    assert_close(&se.model_based.se, &f.se_model_based, 1e-9, "model-based");
    assert_close(&se.sandwich.se, &f.se_sandwich, 1e-9, "sandwich");
    let robust = se.cluster_robust.unwrap();
    assert_eq!(se.n_clusters, Some(13));
    assert_close(&robust.se, &f.se_cluster_prompt, 1e-9, "cluster (prompt)");
    let [i, j] = f.difference_pair;
    for (ours, numpy) in [
        (
            se.model_based.se_difference(i, j),
            f.se_difference.model_based,
        ),
        (se.sandwich.se_difference(i, j), f.se_difference.sandwich),
        (robust.se_difference(i, j), f.se_difference.cluster_prompt),
    ] {
        assert!((ours - numpy).abs() <= 1e-9 * numpy, "{ours} vs {numpy}");
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn standard_errors_of_our_fit_equal_numpy() {
    // Our own Newton fit (θ̂ equal to choix's to ~1e-12) then the SEs there: ≤ 1e-6 relative.
    let (f, battles) = crowd();
    let se = params(f.lambda).compute(&battles, Some(&f.worker)).unwrap();
    for (ours, numpy) in se.theta.iter().zip(&f.theta) {
        assert!((ours - numpy).abs() < 1e-8, "{ours} vs {numpy}");
    }
    assert_close(&se.model_based.se, &f.se_model_based, 1e-6, "model-based");
    assert_close(&se.sandwich.se, &f.se_sandwich, 1e-6, "sandwich");
    assert_eq!(se.n_clusters, Some(124));
    assert_close(
        &se.cluster_robust.unwrap().se,
        &f.se_cluster_worker,
        1e-6,
        "cluster (worker)",
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn duplicated_battles_in_one_cluster_scale_by_root_two() {
    // Every battle twice, both copies in one cluster. At the same θ̂, each cluster's score is
    // 2 s_b, so B_C = Σ 4 s_b s_bᵀ = 2 B (B over the 2N battles): the cluster-robust variance is
    // exactly twice the sandwich, SE ratio √2 (asserted to 1e-12 relative).
    let (_, crowd) = crowd();
    let mut battles = crowd.clone();
    battles.battles.extend_from_slice(&crowd.battles);
    let n = crowd.battles.len();
    let labels: Vec<usize> = (0..2 * n).map(|k| k % n).collect();
    let se = params(0.01).compute(&battles, Some(&labels)).unwrap();
    let robust = se.cluster_robust.unwrap();
    for (r, s) in robust.se.iter().zip(&se.sandwich.se) {
        assert!((r / s - 2f64.sqrt()).abs() < 1e-12, "{r} vs {s}");
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn disconnected_components_are_handled_one_by_one() {
    // Two separate pairs: a beats b 30 of 40, c beats d 5 of 20. The objective splits by
    // component, each θ̂ sums to 0 within its pair, and each pair has the two-model variances
    // (derived in the module tests): model-based ½ / (2 n p(1−p) + 2λ), sandwich
    // Σ(y − p)² / (2 n p(1−p) + 2λ)², with d = θ̂ᵢ − θ̂ⱼ, p = σ(d).
    let mut battles = Vec::new();
    let mut add = |a: usize, b: usize, wins: usize, losses: usize| {
        battles.extend(vec![Battle { a, b, y: 1.0 }; wins]);
        battles.extend(vec![Battle { a, b, y: 0.0 }; losses]);
    };
    add(0, 1, 30, 10);
    add(2, 3, 5, 15);
    let battles = Battles {
        models: ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect(),
        battles,
    };
    let lambda = 0.01;
    let se = params(lambda).compute(&battles, None).unwrap();
    for (i, wins, losses) in [(0usize, 30.0, 10.0), (2, 5.0, 15.0)] {
        let t = &se.theta;
        assert!((t[i] + t[i + 1]).abs() < 1e-12);
        let p = sigmoid(t[i] - t[i + 1]);
        let denom = 2.0 * (wins + losses) * p * (1.0 - p) + 2.0 * lambda;
        let model = (0.5 / denom).sqrt() * ELO_PER_THETA;
        let squares = wins * (1.0 - p).powi(2) + losses * p.powi(2);
        let sandwich = (squares / denom.powi(2)).sqrt() * ELO_PER_THETA;
        for k in [i, i + 1] {
            assert!((se.model_based.se[k] - model).abs() < 1e-9 * model);
            assert!((se.sandwich.se[k] - sandwich).abs() < 1e-9 * sandwich);
        }
        // No covariance across components.
        assert!(se.model_based.matrix[i][(i + 2) % 4].abs() < 1e-9);
    }
}
