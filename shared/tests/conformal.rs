//! Split conformal: hand cases for q̂'s rank and the refusal, q̂ and intervals against numpy's
//! empirical quantile (committed fixture, `fixtures/make_conformal_reference.py`), and coverage on
//! simulated exchangeable pools against its exact value. Runs natively and in headless Chromium.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use tribunal::io::error::Error;
use tribunal::rankings::conformal::{
    conformal_rank, min_calibration_size, ConformalEvaluationParams, ConformalParams,
    ModelResidual, Nonconformity,
};

fn unnormalised(alpha: f64) -> ConformalParams {
    ConformalParams {
        alpha,
        score: Nonconformity::Unnormalised,
    }
}

/// Models with LLM Elo 1500 + residual, human Elo 1500 and the given SE.
fn pool(residuals: &[f64], se: f64) -> Vec<ModelResidual> {
    residuals
        .iter()
        .map(|&e| ModelResidual {
            llm_elo: 1500.0 + e,
            human_elo: 1500.0,
            se,
        })
        .collect()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn rank_of_qhat_by_hand() {
    // ⌈(1 − α)(n + 1)⌉ for small n: 0.9 · 10 = 9; 0.9 · 20 = 18; 0.9 · 28 = 25.2 → 26;
    // 0.8 · 5 = 4; 0.95 · 20 = 19; 0.5 · 4 = 2; 0.9 · 9 = 8.1 → 9 (> n = 8).
    for (n, alpha, rank) in [
        (9, 0.1, 9),
        (19, 0.1, 18),
        (27, 0.1, 26),
        (4, 0.2, 4),
        (19, 0.05, 19),
        (3, 0.5, 2),
        (8, 0.1, 9),
    ] {
        assert_eq!(conformal_rank(n, alpha), rank, "n {n}, alpha {alpha}");
    }
    // ⌈1/α − 1⌉ models are needed: 9 at α = 0.1, 19 at 0.05, 4 at 0.2, 1 at 0.5.
    for (alpha, needed) in [(0.1, 9), (0.05, 19), (0.2, 4), (0.5, 1), (0.3, 3)] {
        assert_eq!(min_calibration_size(alpha), needed, "alpha {alpha}");
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn qhat_and_intervals_by_hand() {
    // Unnormalised scores |ε| = 0.5, 3, 1, 2, 4 (sorted 0.5, 1, 2, 3, 4), n = 5.
    let models = pool(&[0.5, -3.0, 1.0, 2.0, -4.0], 10.0);
    // α = 0.2: ⌈0.8 · 6⌉ = ⌈4.8⌉ = 5 → 4; α = 0.34: ⌈3.96⌉ = 4 → 3; α = 0.5: 3 → 2.
    for (alpha, rank, qhat) in [(0.2, 5, 4.0), (0.34, 4, 3.0), (0.5, 3, 2.0)] {
        let cal = unnormalised(alpha).calibrate(&models).unwrap();
        assert_eq!(
            (cal.n, cal.rank, cal.qhat),
            (5, rank, qhat),
            "alpha {alpha}"
        );
    }
    let cal = unnormalised(0.34).calibrate(&models).unwrap();
    let interval = cal.interval(1600.0, 25.0).unwrap();
    assert_eq!((interval.lower, interval.upper), (1597.0, 1603.0));
    // Normalised with SE 10: scores are |ε|/10 and the half-width is q̂ · SE of the new model.
    let normalised = ConformalParams {
        alpha: 0.34,
        score: Nonconformity::Normalised,
    };
    let cal = normalised.calibrate(&models).unwrap();
    assert!((cal.qhat - 0.3).abs() < 1e-15);
    let interval = cal.interval(1600.0, 25.0).unwrap();
    assert!((interval.half_width - 7.5).abs() < 1e-12);
    assert!((interval.lower - 1592.5).abs() < 1e-12);
    // A zero SE cannot normalise.
    let mut bad = models.clone();
    bad[2].se = 0.0;
    assert!(matches!(
        normalised.calibrate(&bad),
        Err(Error::Insufficient(_))
    ));
    assert!(cal.interval(1600.0, f64::NAN).is_err());
    for alpha in [0.0, 1.0, -0.1, f64::NAN] {
        assert!(matches!(
            unnormalised(alpha).calibrate(&models),
            Err(Error::InvalidParam { name: "alpha", .. })
        ));
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn too_few_calibration_models_are_refused_with_the_number_needed() {
    let models = pool(&[0.5, -3.0, 1.0, 2.0, -4.0], 10.0);
    match unnormalised(0.1).calibrate(&models) {
        Err(Error::Insufficient(msg)) => assert_eq!(
            msg,
            "split conformal at alpha = 0.1 needs at least 9 calibration models (the \
             ceil((1 - alpha)(n + 1)) = 6-th smallest score must exist), found 5"
        ),
        other => panic!("expected Insufficient, got {other:?}"),
    }
    let eight = pool(&[1.0; 8], 1.0);
    assert!(matches!(
        unnormalised(0.1).calibrate(&eight),
        Err(Error::Insufficient(_))
    ));
    let nine = pool(&[1.0; 9], 1.0);
    assert_eq!(unnormalised(0.1).calibrate(&nine).unwrap().rank, 9);
}

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    alpha: f64,
    score: Nonconformity,
    llm_elo: Vec<f64>,
    human_elo: Vec<f64>,
    se: Vec<f64>,
    n_calibration: usize,
    rank: usize,
    qhat: Option<f64>,
    lower: Option<Vec<f64>>,
    upper: Option<Vec<f64>>,
    covered: Option<Vec<bool>>,
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn qhat_and_intervals_equal_numpy() {
    let fixture: Fixture =
        serde_json::from_str(include_str!("fixtures/conformal_reference.json")).unwrap();
    assert_eq!(fixture.cases.len(), 8);
    for c in &fixture.cases {
        let models: Vec<ModelResidual> = (0..c.llm_elo.len())
            .map(|i| ModelResidual {
                llm_elo: c.llm_elo[i],
                human_elo: c.human_elo[i],
                se: c.se[i],
            })
            .collect();
        let params = ConformalParams {
            alpha: c.alpha,
            score: c.score,
        };
        let (calibration, test) = models.split_at(c.n_calibration);
        assert_eq!(conformal_rank(c.n_calibration, c.alpha), c.rank);
        let Some(qhat) = c.qhat else {
            assert!(matches!(
                params.calibrate(calibration),
                Err(Error::Insufficient(_))
            ));
            continue;
        };
        let cal = params.calibrate(calibration).unwrap();
        // serde_json's float parsing may differ from Python's repr in the last bit.
        assert!(
            (cal.qhat - qhat).abs() <= 1e-12 * qhat,
            "n {} alpha {}: {} vs {qhat}",
            c.n_calibration,
            c.alpha,
            cal.qhat
        );
        let (lower, upper, covered) = (
            c.lower.as_ref().unwrap(),
            c.upper.as_ref().unwrap(),
            c.covered.as_ref().unwrap(),
        );
        for (j, m) in test.iter().enumerate() {
            let interval = cal.interval(m.llm_elo, m.se).unwrap();
            assert!((interval.lower - lower[j]).abs() < 1e-9);
            assert!((interval.upper - upper[j]).abs() < 1e-9);
            let inside = interval.lower <= m.human_elo && m.human_elo <= interval.upper;
            assert_eq!(inside, covered[j]);
        }
    }
}

/// An exchangeable pool: SE ~ U(5, 40), ε = SE · t₃-like heavy-tailed noise + N(0, 8²) extra.
fn simulated_pool(n: usize, seed: u64) -> Vec<ModelResidual> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let se = rng.random_range(5.0..40.0);
            let human = 1500.0 + 200.0 * (rng.random::<f64>() - 0.5);
            // Ratio of a normal to √(χ²₃/3) built from uniforms (Box–Muller).
            let mut normal = || {
                let (u, v): (f64, f64) = (rng.random(), rng.random());
                (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos()
            };
            let z = normal();
            let chi = (normal().powi(2) + normal().powi(2) + normal().powi(2)) / 3.0;
            let extra = 8.0 * normal();
            ModelResidual {
                llm_elo: human + se * z / chi.sqrt() + extra,
                human_elo: human,
                se,
            }
        })
        .collect()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn coverage_on_exchangeable_pools_equals_its_exact_value() {
    // Given a pool, a uniformly random split makes calibration and test scores exchangeable,
    // so with distinct scores a test model is covered with probability exactly
    // rank/(n + 1) ≥ 1 − α. Splits are independent given the pool, so the mean coverage over
    // S splits has standard error sd(split coverage)/√S; we allow 4 of them.
    let splits = 2000;
    for (pool_seed, n_models, n_calibration, alpha, score) in [
        (1, 60, 19, 0.1, Nonconformity::Normalised),
        (2, 60, 27, 0.1, Nonconformity::Normalised),
        (3, 80, 27, 0.1, Nonconformity::Unnormalised),
        (4, 55, 27, 0.2, Nonconformity::Normalised),
        (5, 100, 40, 0.05, Nonconformity::Normalised),
    ] {
        let models = simulated_pool(n_models, pool_seed);
        let params = ConformalEvaluationParams {
            conformal: ConformalParams { alpha, score },
            n_calibration: Some(n_calibration),
            splits,
            seed: 100 + pool_seed,
        };
        let eval = params.evaluate(&models).unwrap();
        let exact = eval.rank as f64 / (n_calibration as f64 + 1.0);
        assert!(exact >= 1.0 - alpha && exact <= 1.0 - alpha + 1.0 / (n_calibration as f64 + 1.0));
        let mean = eval.coverage;
        let sd = (eval
            .per_split
            .iter()
            .map(|s| (s.coverage - mean).powi(2))
            .sum::<f64>()
            / (splits - 1) as f64)
            .sqrt();
        let se = sd / (splits as f64).sqrt();
        assert!(
            (mean - exact).abs() <= 4.0 * se,
            "pool {pool_seed}: coverage {mean:.4} vs exact {exact:.4} (se {se:.4})"
        );
        assert!(mean >= 1.0 - alpha - 4.0 * se);
        assert_eq!(eval.n_test, n_models - n_calibration);
        assert_eq!(eval.seed, 100 + pool_seed);
        assert!(eval.coverage_min <= mean && mean <= eval.coverage_max);
        assert!(eval.median_width_min <= eval.median_width);
        if score == Nonconformity::Unnormalised {
            // Every interval has width 2q̂.
            for s in &eval.per_split {
                assert_eq!(s.median_width, 2.0 * s.qhat);
                assert!((s.mean_width - 2.0 * s.qhat).abs() < 1e-12 * s.qhat);
            }
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn evaluation_is_seeded_and_checks_its_split() {
    let models = simulated_pool(30, 9);
    let params = ConformalEvaluationParams {
        splits: 20,
        seed: 5,
        ..Default::default()
    };
    let a = params.evaluate(&models).unwrap();
    assert_eq!(a, params.evaluate(&models).unwrap());
    assert_eq!((a.n_calibration, a.n_test, a.rank), (15, 15, 15));
    let b = ConformalEvaluationParams { seed: 6, ..params }
        .evaluate(&models)
        .unwrap();
    assert_ne!(a.per_split, b.per_split);
    // A longer run repeats the first splits exactly (split r uses stream r).
    let longer = ConformalEvaluationParams {
        splits: 40,
        ..params
    }
    .evaluate(&models)
    .unwrap();
    assert_eq!(longer.per_split[..20], a.per_split[..]);
    for n_calibration in [0, 30, 31] {
        let bad = ConformalEvaluationParams {
            n_calibration: Some(n_calibration),
            ..params
        };
        assert!(matches!(
            bad.evaluate(&models),
            Err(Error::InvalidParam {
                name: "n_calibration",
                ..
            })
        ));
    }
    let too_few = ConformalEvaluationParams {
        n_calibration: Some(5),
        ..params
    };
    assert!(matches!(
        too_few.evaluate(&models),
        Err(Error::Insufficient(_))
    ));
}
