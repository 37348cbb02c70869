//! Graded response model and IRT reliability diagnostics (seed 003) against independent
//! references: a direct scipy maximisation of the marginal likelihood and the girth package
//! (committed fixture, `fixtures/make_irt_reference.py`), numpy/scipy for the diagnostics,
//! hand-computed cases, and parameter recovery on data simulated here with a seeded ChaCha8.
//! Runs natively and in headless Chromium.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use tribunal::math::correlation::pearson;
use tribunal::reliability::irt::irt_grm::{GrmFit, GrmParams, RatingMatrix, RatingScale};
use tribunal::reliability::irt::irt_reliability::{
    marginal_reliability, median_theta_by_score, prompt_consistency, theta_range, wasserstein_1,
    HumanAlignment, ReliabilityParams,
};
use tribunal::Error;

#[derive(Deserialize)]
struct RefVariant {
    categories: Vec<u32>,
    alpha: f64,
    thresholds: Vec<f64>,
}

#[derive(Deserialize)]
struct RefFit {
    variants: Vec<RefVariant>,
    theta_mean: Vec<f64>,
    theta_variance: Vec<f64>,
    log_likelihood: f64,
}

#[derive(Deserialize)]
struct GirthFit {
    alpha: Vec<f64>,
    thresholds: Vec<Vec<f64>>,
    theta_mean: Vec<f64>,
    log_likelihood: f64,
}

#[derive(Deserialize)]
struct Diagnostics {
    within_rating_variance: Vec<f64>,
    c_v: f64,
    marginal_reliability: f64,
    theta_range_llm: f64,
    theta_range_human: f64,
    theta_ratio: f64,
    wasserstein: f64,
    llm_by_human_score: Vec<(u32, f64)>,
}

#[derive(Deserialize)]
struct Fixture {
    quadrature_nodes: usize,
    judge: Vec<Vec<u32>>,
    human: Vec<Vec<u32>>,
    binary: Vec<Vec<u32>>,
    judge_mml: RefFit,
    judge_map: RefFit,
    human_map: RefFit,
    binary_map: RefFit,
    judge_girth: GirthFit,
    diagnostics: Diagnostics,
}

fn fixture() -> Fixture {
    serde_json::from_str(include_str!("fixtures/irt_reference.json")).unwrap()
}

/// The fixture codes a missing rating as 0.
fn matrix(rows: &[Vec<u32>]) -> RatingMatrix {
    let rows: Vec<Vec<Option<u32>>> = rows
        .iter()
        .map(|r| r.iter().map(|&y| (y > 0).then_some(y)).collect())
        .collect();
    RatingMatrix::from_rows(&rows).unwrap()
}

fn tight(nodes: usize) -> GrmParams {
    GrmParams {
        quadrature_nodes: nodes,
        tol: 1e-10,
        max_iter: 20_000,
        ..Default::default()
    }
}

fn flat(nodes: usize) -> GrmParams {
    GrmParams {
        log_alpha_prior: None,
        threshold_prior: None,
        ..tight(nodes)
    }
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()))
}

fn assert_close_to(fit: &GrmFit, reference: &RefFit, tol: f64, name: &str) {
    assert!(fit.converged, "{name}: {:?}", fit.notes);
    assert_eq!(fit.variants.len(), reference.variants.len());
    for (p, (ours, theirs)) in fit.variants.iter().zip(&reference.variants).enumerate() {
        assert_eq!(ours.categories, theirs.categories, "{name}: variant {p}");
        let alpha = ours.alpha.unwrap();
        assert!(
            (alpha - theirs.alpha).abs() <= tol,
            "{name}: α{p} ours {alpha} reference {}",
            theirs.alpha
        );
        let d = max_abs_diff(&ours.thresholds, &theirs.thresholds);
        assert!(d <= tol, "{name}: β{p} differ by {d}");
    }
    let d = max_abs_diff(&fit.theta_mean, &reference.theta_mean);
    assert!(d <= tol, "{name}: EAP θ differ by {d}");
    let d = max_abs_diff(&fit.theta_variance, &reference.theta_variance);
    assert!(d <= tol, "{name}: posterior variances differ by {d}");
    assert!(
        (fit.log_likelihood - reference.log_likelihood).abs() <= 1e-6,
        "{name}: log-likelihood ours {} reference {}",
        fit.log_likelihood,
        reference.log_likelihood
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn grm_equals_direct_marginal_likelihood_maximisation() {
    let f = fixture();
    let judge = matrix(&f.judge);
    let nodes = f.quadrature_nodes;
    assert_close_to(&flat(nodes).fit(&judge).unwrap(), &f.judge_mml, 1e-6, "MML");
    let map = tight(nodes).fit(&judge).unwrap();
    assert_close_to(&map, &f.judge_map, 1e-6, "MAP");
    // Variant 3 never gave a 1: collapsed to 4 categories, and the result says so.
    assert_eq!(map.variants[2].unused_categories, [1]);
    assert_eq!(map.variants[2].thresholds.len(), 3);
    assert!(map
        .notes
        .iter()
        .any(|n| n.contains("variant 3 never gave 1")));
    let human = tight(nodes).fit(&matrix(&f.human)).unwrap();
    assert_close_to(&human, &f.human_map, 1e-6, "human MAP");
    let binary = tight(nodes).fit(&matrix(&f.binary)).unwrap();
    assert_close_to(&binary, &f.binary_map, 1e-6, "2PL MAP");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn grm_agrees_with_girth() {
    // girth has no priors, so it is compared with the flat-prior fit. girth solves each
    // threshold from a marginal-proportion equation (∫ σ(α(θ − β)) φ(θ) dθ = observed share)
    // instead of the likelihood equations, so it does not reach the likelihood maximum: the
    // exact optimum (fixture `judge_mml`, which we equal to 1e-6) differs from girth by at most
    // 0.0051 in α, 0.029 in β and 0.0053 in EAP θ, whether or not girth's lookup table, a wider
    // quadrature or more iterations are used, and girth's estimate has a marginal
    // log-likelihood 0.069 below the optimum. The tolerances sit just above those gaps.
    let f = fixture();
    let fit = flat(f.quadrature_nodes).fit(&matrix(&f.judge)).unwrap();
    let g = &f.judge_girth;
    for (p, v) in fit.variants.iter().enumerate() {
        let alpha = v.alpha.unwrap();
        assert!(
            (alpha - g.alpha[p]).abs() <= 0.006,
            "α{p}: ours {alpha} girth {}",
            g.alpha[p]
        );
        let d = max_abs_diff(&v.thresholds, &g.thresholds[p]);
        assert!(d <= 0.035, "β{p}: differ from girth by {d}");
    }
    let d = max_abs_diff(&fit.theta_mean, &g.theta_mean);
    assert!(d <= 0.006, "EAP θ differ from girth by {d}");
    let gain = fit.log_likelihood - g.log_likelihood;
    assert!(
        (0.05..0.09).contains(&gain),
        "log-likelihood above girth's: {gain}"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn diagnostics_equal_numpy_and_scipy() {
    let f = fixture();
    let d = &f.diagnostics;
    let judge = matrix(&f.judge);
    let human_scores: Vec<Option<u32>> = f.human.iter().map(|r| Some(r[0])).collect();
    let llm_scores = judge.variant_scores(0);

    // On the reference θ̂: the formulas alone, to rounding.
    let theta = &f.judge_map.theta_mean;
    let pc = prompt_consistency(theta, &judge).unwrap();
    let vbar: Vec<f64> = pc
        .within_rating_variance
        .iter()
        .map(|v| v.unwrap())
        .collect();
    assert!(max_abs_diff(&vbar, &d.within_rating_variance) < 1e-12);
    assert!((pc.c_v - d.c_v).abs() < 1e-12);
    let rho = marginal_reliability(theta, &f.judge_map.theta_variance).unwrap();
    assert!((rho - d.marginal_reliability).abs() < 1e-12);
    let ha = HumanAlignment::compute(theta, &llm_scores, &f.human_map.theta_mean, &human_scores)
        .unwrap();
    assert!((ha.theta_range_llm - d.theta_range_llm).abs() < 1e-12);
    assert!((ha.theta_range_human - d.theta_range_human).abs() < 1e-12);
    assert!((ha.theta_ratio - d.theta_ratio).abs() < 1e-12);
    assert!((ha.wasserstein - d.wasserstein).abs() < 1e-12);
    assert_eq!(ha.llm_by_human_score.len(), d.llm_by_human_score.len());
    for (ours, (score, median)) in ha.llm_by_human_score.iter().zip(&d.llm_by_human_score) {
        assert_eq!(ours.score, *score);
        assert!((ours.median_theta - median).abs() < 1e-12);
    }

    // End to end from our own fits.
    let nodes = f.quadrature_nodes;
    let fit = tight(nodes).fit(&judge).unwrap();
    let human = tight(nodes).fit(&matrix(&f.human)).unwrap();
    let phase1 = ReliabilityParams::default()
        .intrinsic_consistency(&fit, &judge)
        .unwrap();
    assert!((phase1.c_v - d.c_v).abs() < 1e-5, "{}", phase1.c_v);
    assert!((phase1.marginal_reliability - d.marginal_reliability).abs() < 1e-6);
    // The simulated judge is not consistent across prompts (C_V ≈ 0.33) nor reliable (ρ ≈ 0.66).
    assert!(!phase1.consistent && !phase1.reliable);
    let ha = HumanAlignment::compute(
        &fit.theta_mean,
        &llm_scores,
        &human.theta_mean,
        &human_scores,
    )
    .unwrap();
    assert!((ha.theta_ratio - d.theta_ratio).abs() < 1e-5);
    assert!((ha.wasserstein - d.wasserstein).abs() < 1e-6);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn diagnostics_by_hand() {
    // C_V. θ = (0, 1, 2, 4). Variant A scores (1, 1, 2, 2): Var{0, 1} = 1/4, Var{2, 4} = 1,
    // V̄_A = (1/4 + 1)/(2 − 1) = 5/4. Variant B scores (1, 2, 2, 3): Var{0} = 0,
    // Var{1, 2} = 1/4, Var{4} = 0, V̄_B = (1/4)/(3 − 1) = 1/8. μ_V = 11/16, σ_V = 9/16,
    // C_V = 9/11. Variant C gave one score only: V̄_C undefined and skipped.
    let ratings = RatingMatrix::from_rows(&[
        vec![Some(1), Some(1), Some(3)],
        vec![Some(1), Some(2), Some(3)],
        vec![Some(2), Some(2), None],
        vec![Some(2), Some(3), Some(3)],
    ])
    .unwrap();
    let pc = prompt_consistency(&[0.0, 1.0, 2.0, 4.0], &ratings).unwrap();
    assert_eq!(pc.within_rating_variance, [Some(1.25), Some(0.125), None]);
    assert!((pc.mean_variance - 11.0 / 16.0).abs() < 1e-15);
    assert!((pc.sd_variance - 9.0 / 16.0).abs() < 1e-15);
    assert!((pc.c_v - 9.0 / 11.0).abs() < 1e-15);
    let one = RatingMatrix::from_rows(&[vec![Some(1)], vec![Some(2)]]).unwrap();
    assert!(matches!(
        prompt_consistency(&[0.0, 1.0], &one),
        Err(Error::Insufficient(_))
    ));

    // ρ. Means (−1, 1): Var = 1; variances (1/2, 3/2): E = 1; ρ = 1/2.
    // Means (0, 1, 2): Var = 2/3; variances 1/3 each; ρ = (2/3)/(2/3 + 1/3) = 2/3.
    assert!((marginal_reliability(&[-1.0, 1.0], &[0.5, 1.5]).unwrap() - 0.5).abs() < 1e-15);
    let rho = marginal_reliability(&[0.0, 1.0, 2.0], &[1.0 / 3.0; 3]).unwrap();
    assert!((rho - 2.0 / 3.0).abs() < 1e-15);
    assert!(marginal_reliability(&[0.0, 1.0], &[0.5]).is_err());

    // θ_range. Judge: θ̂ (−1, −½, 0, ½, 2), scores (1, 1, 3, 5, 5): median at 5 is 5/4,
    // at 1 is −3/4, range 2. Humans: θ̂ (−½, −½, 0, ¼, ¾), scores 1…5: range 5/4.
    // θ_ratio = 2 / (5/4) = 8/5. D_W of the two θ̂ samples (equal sizes: mean |sorted
    // difference|) = (½ + 0 + 0 + ¼ + 5/4)/5 = 2/5.
    let llm = [-1.0, -0.5, 0.0, 0.5, 2.0];
    let llm_scores = [Some(1), Some(1), Some(3), Some(5), Some(5)];
    let human = [-0.5, -0.5, 0.0, 0.25, 0.75];
    let human_scores = [Some(1), Some(2), Some(3), Some(4), Some(5)];
    assert_eq!(theta_range(&llm, &llm_scores).unwrap(), 2.0);
    let ha = HumanAlignment::compute(&llm, &llm_scores, &human, &human_scores).unwrap();
    assert_eq!(ha.theta_range_human, 1.25);
    assert!((ha.theta_ratio - 1.6).abs() < 1e-15);
    assert!((ha.wasserstein - 0.4).abs() < 1e-15);
    let medians: Vec<(u32, f64, usize)> = ha
        .llm_by_human_score
        .iter()
        .map(|m| (m.score, m.median_theta, m.n_items))
        .collect();
    assert_eq!(
        medians,
        [
            (1, -1.0, 1),
            (2, -0.5, 1),
            (3, 0.0, 1),
            (4, 0.5, 1),
            (5, 2.0, 1)
        ]
    );
    assert!(theta_range(&[1.0, 2.0], &[Some(3), Some(3)]).is_err());
    let m = median_theta_by_score(&[3.0, 1.0, 2.0, 7.0], &[Some(2), Some(2), None, Some(2)]);
    assert_eq!(m.unwrap()[0].median_theta, 3.0);

    // D_W. A shift by 5 costs 5; x = {0} against y = {0, 1}: |F_x − F_y| = ½ on [0, 1).
    assert_eq!(
        wasserstein_1(&[0.0, 1.0, 3.0], &[5.0, 6.0, 8.0]).unwrap(),
        5.0
    );
    assert_eq!(wasserstein_1(&[0.0], &[0.0, 1.0]).unwrap(), 0.5);
    assert!(wasserstein_1(&[], &[1.0]).is_err());
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn unused_categories_are_collapsed_without_failing() {
    // On a 1–5 scale variant 1 uses {1, 3, 5}, variant 2 uses {2, 3, 4, 5}, variant 3 only 4.
    let rows: Vec<Vec<Option<u32>>> = [
        [1, 2, 4],
        [1, 3, 4],
        [3, 2, 4],
        [3, 4, 4],
        [3, 3, 4],
        [5, 4, 4],
        [5, 5, 4],
        [1, 3, 4],
        [5, 5, 4],
    ]
    .iter()
    .map(|r| r.iter().map(|&y| Some(y)).collect())
    .collect();
    let params = GrmParams {
        scale: Some(RatingScale { min: 1, max: 5 }),
        tol: 1e-10,
        ..Default::default()
    };
    let fit = params
        .fit(&RatingMatrix::from_rows(&rows).unwrap())
        .unwrap();
    assert!(fit.converged);
    let v = &fit.variants;
    assert_eq!(
        (v[0].categories.clone(), v[0].unused_categories.clone()),
        (vec![1, 3, 5], vec![2, 4])
    );
    assert_eq!(v[0].thresholds.len(), 2);
    assert_eq!(v[1].unused_categories, [1]);
    assert_eq!(v[1].thresholds.len(), 3);
    assert!(v
        .iter()
        .take(2)
        .all(|v| v.thresholds.windows(2).all(|w| w[0] < w[1])));
    assert_eq!((v[2].alpha, v[2].thresholds.len()), (None, 0));
    assert_eq!(fit.notes.len(), 3, "{:?}", fit.notes);
    assert!(fit.notes[0].contains("never gave 2, 4"));
    assert!(fit.notes[2].contains("single score 4"));
    assert_eq!(fit.ratings_per_item, [2; 9]);

    // Collapsing is a relabelling: scores 1, 3, 5 → 1, 2, 3 and 2…5 → 1…4 (dropping the
    // constant variant) give the same fit.
    let relabelled: Vec<Vec<Option<u32>>> = rows
        .iter()
        .map(|r| vec![r[0].map(|y| y.div_ceil(2)), r[1].map(|y| y - 1)])
        .collect();
    let same = GrmParams {
        tol: 1e-10,
        ..Default::default()
    }
    .fit(&RatingMatrix::from_rows(&relabelled).unwrap())
    .unwrap();
    for (a, b) in fit.variants.iter().zip(&same.variants) {
        assert!((a.alpha.unwrap() - b.alpha.unwrap()).abs() < 1e-9);
        assert!(max_abs_diff(&a.thresholds, &b.thresholds) < 1e-9);
    }
    assert!(max_abs_diff(&fit.theta_mean, &same.theta_mean) < 1e-9);

    // A score outside the declared scale is located; a matrix without information is refused.
    let mut bad = rows.clone();
    bad[3][1] = Some(7);
    let err = params
        .fit(&RatingMatrix::from_rows(&bad).unwrap())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "ratings, line 4, column 2 (`score`): expected a score from 1 to 5, found 7"
    );
    let constant = RatingMatrix::from_rows(&[vec![Some(3), None], vec![Some(3), Some(2)]]).unwrap();
    assert!(matches!(
        GrmParams::default().fit(&constant),
        Err(Error::Insufficient(_))
    ));
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u: f64 = 1.0 - rng.random::<f64>();
    let v: f64 = rng.random();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn recovers_simulated_parameters() {
    // 1000 items × 4 variants × 5 categories from known θ, α, β: a judge whose prompt
    // variants discriminate well (for α = 1.2 … 2.4 the attainable corr(θ̂, θ) is only about
    // 0.89, since corr² ≈ ρ, the marginal reliability).
    let alphas = [2.0, 2.5, 3.0, 3.5];
    let betas = [
        [-1.8, -0.7, 0.3, 1.4],
        [-1.5, -0.5, 0.5, 1.5],
        [-1.2, -0.4, 0.6, 1.8],
        [-2.0, -0.9, 0.1, 1.2],
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(20261123);
    let theta: Vec<f64> = (0..1000).map(|_| normal(&mut rng)).collect();
    let rows: Vec<Vec<Option<u32>>> = theta
        .iter()
        .map(|&t| {
            (0..4)
                .map(|p| {
                    let u: f64 = rng.random();
                    let above = betas[p]
                        .iter()
                        .filter(|&&b| u < 1.0 / (1.0 + (-alphas[p] * (t - b)).exp()))
                        .count();
                    Some(1 + above as u32)
                })
                .collect()
        })
        .collect();
    let fit = GrmParams::default()
        .fit(&RatingMatrix::from_rows(&rows).unwrap())
        .unwrap();
    assert!(fit.converged);
    let r = pearson(&fit.theta_mean, &theta).unwrap();
    assert!(r >= 0.9, "corr(θ̂, θ) = {r}");
    // The fit's own reliability predicts the realised correlation: corr² ≈ ρ.
    let rho = marginal_reliability(&fit.theta_mean, &fit.theta_variance).unwrap();
    assert!((r - rho.sqrt()).abs() < 0.01, "corr {r}, √ρ {}", rho.sqrt());
    for (p, v) in fit.variants.iter().enumerate() {
        let alpha = v.alpha.unwrap();
        assert!(
            (alpha - alphas[p]).abs() <= 0.08 * alphas[p],
            "α{p}: {alpha} vs {}",
            alphas[p]
        );
        let d = max_abs_diff(&v.thresholds, &betas[p]);
        assert!(d <= 0.12, "β{p}: off by {d}");
    }
}
