//! Bradley–Terry bootstrap intervals on simulated battles with known strengths
//! (`tribunal::rankings::simulate_battles`), and the multinomial sampler against its known moments.
//! Runs natively and in headless Chromium.

use tribunal::math::resample::BootstrapParams;
use tribunal::rankings::battles::Battles;
use tribunal::rankings::bradley_terry::{elo, BradleyTerryParams};
use tribunal::rankings::bt_bootstrap::{
    multinomial_counts, BtBootstrap, BtBootstrapParams, Resampling,
};
use tribunal::rankings::bt_standard_errors::BtStandardErrorsParams;
use tribunal::rankings::simulate_battles::{simulate_battles, SimulationParams};
use tribunal::Error;

/// Evenly spread strengths summing to 0 (the penalised fit centres θ̂ the same way).
fn spread(m: usize, half_width: f64) -> Vec<f64> {
    (0..m)
        .map(|i| half_width * (2.0 * i as f64 / (m - 1) as f64 - 1.0))
        .collect()
}

fn simulated(theta: &[f64], n_battles: usize, tie_rate: f64, seed: u64) -> Battles {
    let battles = simulate_battles(&SimulationParams {
        theta: theta.to_vec(),
        n_battles,
        tie_rate,
        seed,
    })
    .unwrap();
    Battles {
        models: (0..theta.len()).map(|i| format!("model-{i:02}")).collect(),
        battles,
    }
}

fn params(rounds: usize, seed: u64) -> BtBootstrapParams {
    BtBootstrapParams {
        bt: BradleyTerryParams::default(),
        bootstrap: BootstrapParams {
            rounds,
            seed,
            level: 0.95,
        },
    }
}

/// Bootstrap SE per model index.
fn se_by_model(result: &BtBootstrap) -> Vec<f64> {
    let mut se = vec![0.0; result.ratings.len()];
    for r in &result.ratings {
        se[r.index] = r.interval.se;
    }
    se
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn multinomial_sampler_has_multinomial_moments() {
    // Weights (5, 0, 1, 10, 84) of 100, N = 1000 draws, R = 4000 rounds. Each round sums to N,
    // the zero-weight category never appears, and per category the mean count is N p_k
    // (asserted within 4 standard errors √(N p_k (1 − p_k) / R)) and the variance
    // N p_k (1 − p_k) (asserted within 12 %; the relative SE of a variance over R = 4000
    // rounds is about √(2/R) = 2.2 %).
    let weights = [5u64, 0, 1, 10, 84];
    let (n, rounds) = (1000u64, 4000usize);
    let bootstrap = BootstrapParams {
        rounds,
        seed: 11,
        level: 0.95,
    };
    let mut sum = [0.0f64; 5];
    let mut sum_sq = [0.0f64; 5];
    for r in 0..rounds {
        let counts = multinomial_counts(&weights, n, &mut bootstrap.round_rng(r)).unwrap();
        assert_eq!(counts.iter().sum::<u64>(), n);
        assert_eq!(counts[1], 0);
        for k in 0..5 {
            sum[k] += counts[k] as f64;
            sum_sq[k] += (counts[k] as f64).powi(2);
        }
    }
    for k in [0, 2, 3, 4] {
        let p = weights[k] as f64 / 100.0;
        let expected_var = n as f64 * p * (1.0 - p);
        let mean = sum[k] / rounds as f64;
        let var = sum_sq[k] / rounds as f64 - mean * mean;
        let se = (expected_var / rounds as f64).sqrt();
        assert!((mean - n as f64 * p).abs() < 4.0 * se, "k={k}: mean {mean}");
        assert!(
            (var / expected_var - 1.0).abs() < 0.12,
            "k={k}: var {var} vs {expected_var}"
        );
    }
    // Cost does not depend on the number of draws; no draws give zeros; nothing to draw from
    // is an error.
    let huge = multinomial_counts(&[1, 2, 3], 3_000_000_000, &mut bootstrap.round_rng(0)).unwrap();
    assert_eq!(huge.iter().sum::<u64>(), 3_000_000_000);
    assert!((huge[2] as f64 / 1.5e9 - 1.0).abs() < 1e-3);
    assert_eq!(
        multinomial_counts(&[4, 5], 0, &mut bootstrap.round_rng(0)).unwrap(),
        [0, 0]
    );
    assert!(matches!(
        multinomial_counts(&[0, 0], 1, &mut bootstrap.round_rng(0)),
        Err(Error::Insufficient(_))
    ));
}

/// Pearson's χ² of `draws` first-category counts of `multinomial_counts(&[w0, w1], n)` against
/// the exact Binomial(n, w0 / (w0 + w1)) pmf, C(n, x) computed in integers; bins with an
/// expected count below 5 are pooled into their neighbour (n ≤ 120 keeps C(n, x) in a u128).
/// Returns (χ², degrees of freedom).
fn binomial_chi_square(w0: u64, w1: u64, n: u64, draws: usize, seed: u64) -> (f64, usize) {
    let bootstrap = BootstrapParams {
        rounds: draws,
        seed,
        level: 0.95,
    };
    let mut observed = vec![0.0; n as usize + 1];
    for r in 0..draws {
        observed
            [multinomial_counts(&[w0, w1], n, &mut bootstrap.round_rng(r)).unwrap()[0] as usize] +=
            1.0;
    }
    let p = w0 as f64 / (w0 + w1) as f64;
    let mut choose: u128 = 1;
    let mut bins: Vec<(f64, f64)> = Vec::new();
    let (mut pooled_e, mut pooled_o) = (0.0, 0.0);
    for (x, &o) in observed.iter().enumerate() {
        if x > 0 {
            choose = choose * (n as u128 - x as u128 + 1) / x as u128;
        }
        let pmf = choose as f64 * p.powi(x as i32) * (1.0 - p).powi((n as usize - x) as i32);
        pooled_e += draws as f64 * pmf;
        pooled_o += o;
        if pooled_e >= 5.0 {
            bins.push((pooled_e, pooled_o));
            (pooled_e, pooled_o) = (0.0, 0.0);
        }
    }
    if let Some(last) = bins.last_mut() {
        last.0 += pooled_e;
        last.1 += pooled_o;
    }
    let chi2 = bins.iter().map(|(e, o)| (o - e).powi(2) / e).sum();
    (chi2, bins.len() - 1)
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn binomial_draws_follow_the_exact_pmf() {
    // Small means are drawn by inversion (with p ≤ ½ and with p > ½, which is drawn as n minus
    // a draw with 1 − p), a large one by BTPE. 40 000 draws each; the χ² must stay below
    // df + 6·√(2 df), about a 1e-6 tail, while a sampler off by one in x or using the wrong p
    // lands in the thousands.
    for (w0, w1, n) in [(3, 7, 40), (7, 3, 40), (1, 49, 120), (1, 1, 120)] {
        let (chi2, df) = binomial_chi_square(w0, w1, n, 40_000, 5);
        let bound = df as f64 + 6.0 * (2.0 * df as f64).sqrt();
        assert!(
            chi2 < bound,
            "({w0}, {w1}) of {n}: χ² {chi2} with {df} df ≥ {bound}"
        );
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn same_seed_same_intervals_different_seed_different() {
    let battles = simulated(&spread(6, 1.0), 1500, 0.2, 5);
    let a = params(200, 42).fit(&battles, None).unwrap();
    let b = params(200, 42).fit(&battles, None).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.settings.bootstrap.seed, 42);
    assert_eq!(a.converged_rounds, 200);
    assert!(matches!(
        a.resampling,
        Resampling::Battles {
            n_battles: 1500,
            ..
        }
    ));
    let c = params(200, 43).fit(&battles, None).unwrap();
    for (x, y) in a.ratings.iter().zip(&c.ratings) {
        assert_eq!(x.model, y.model);
        assert_eq!(x.elo, y.elo);
        assert_ne!(
            (x.interval.lower, x.interval.upper),
            (y.interval.lower, y.interval.upper)
        );
    }
    // Clustered rounds are reproducible too, and the result survives a JSON round trip.
    let labels: Vec<usize> = (0..1500).map(|k| k % 97).collect();
    let d = params(100, 7).fit(&battles, Some(&labels)).unwrap();
    assert_eq!(d, params(100, 7).fit(&battles, Some(&labels)).unwrap());
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json["settings"]["bootstrap"]["seed"], 7);
    assert_eq!(json["resampling"]["unit"], "clusters");
    let back: BtBootstrap = serde_json::from_value(json).unwrap();
    for (x, y) in back.ratings.iter().zip(&d.ratings) {
        assert_eq!(
            (&x.model, x.rank, x.worst_rank),
            (&y.model, y.rank, y.worst_rank)
        );
        assert!((x.interval.upper - y.interval.upper).abs() < 1e-9);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn rows_are_sorted_with_ci_aware_ranks() {
    let battles = simulated(&spread(6, 1.5), 3000, 0.0, 9);
    let result = params(200, 1).fit(&battles, None).unwrap();
    let elos: Vec<f64> = result.ratings.iter().map(|r| r.elo).collect();
    assert!(elos.windows(2).all(|w| w[0] >= w[1]));
    for r in &result.ratings {
        assert_eq!(r.elo, elo(r.theta));
        assert_eq!(r.interval.estimate, r.elo);
        assert!(r.interval.lower < r.elo && r.elo < r.interval.upper);
        let above = result
            .ratings
            .iter()
            .filter(|o| o.interval.lower > r.interval.upper)
            .count();
        let below = result
            .ratings
            .iter()
            .filter(|o| o.interval.upper < r.interval.lower)
            .count();
        assert_eq!((r.rank, r.worst_rank), (1 + above, 6 - below));
    }
    // Strengths 0.6 apart with 1000 games per model separate every neighbour: plain ranks.
    let ranks: Vec<usize> = result.ratings.iter().map(|r| r.rank).collect();
    assert_eq!(ranks, [1, 2, 3, 4, 5, 6]);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn percentile_intervals_cover_the_true_elo() {
    // 80 simulated data sets of 2000 battles (no ties, so Eq. 1 is the true model) over 6
    // models with θ spread over [−1.2, 1.2]; 400 rounds each → 480 intervals. λ = 0.01 against
    // ~670 games per model (Fisher information ≈ 120) shrinks θ̂ by about 2λ/120 ≈ 2·10⁻⁴ of
    // itself — negligible against SEs of ≈ 0.1. The binomial SE of a coverage near 0.95 over 480
    // intervals is 0.010; asserted within 0.035 of 0.95. The mean bootstrap SE must also match
    // the spread of θ̂ across data sets (within 15 %; the SD over 80 data sets has ≈ 8 %
    // relative error per model, less when averaged over models).
    let theta = spread(6, 1.2);
    let (sets, m) = (80u64, theta.len());
    let mut covered = 0usize;
    let mut estimates = vec![Vec::new(); m];
    let mut mean_se = vec![0.0; m];
    for s in 0..sets {
        let battles = simulated(&theta, 2000, 0.0, 1000 + s);
        let result = params(400, s).fit(&battles, None).unwrap();
        assert_eq!(result.converged_rounds, 400);
        for r in &result.ratings {
            let truth = elo(theta[r.index]);
            covered += usize::from(r.interval.lower <= truth && truth <= r.interval.upper);
            estimates[r.index].push(r.elo);
            mean_se[r.index] += r.interval.se / sets as f64;
        }
    }
    let coverage = covered as f64 / (sets as usize * m) as f64;
    assert!((coverage - 0.95).abs() < 0.035, "coverage {coverage}");
    let mut ratio_sum = 0.0;
    for (e, se) in estimates.iter().zip(&mean_se) {
        let mean = e.iter().sum::<f64>() / e.len() as f64;
        let sd = (e.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (e.len() - 1) as f64).sqrt();
        ratio_sum += se / sd;
    }
    let ratio = ratio_sum / m as f64;
    assert!(
        (ratio - 1.0).abs() < 0.15,
        "bootstrap SE / empirical SD = {ratio}"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn bootstrap_sandwich_and_model_based_errors_agree() {
    // Well specified (no ties): 20 000 battles over 8 models, 2000 rounds. The bootstrap SE has
    // Monte Carlo error ≈ 1/√(2R) = 1.6 %; sandwich and model-based differ by the sampling noise
    // of Σ(y − p)² against Σ p(1 − p), O(1/√n) per model. Asserted: every model's bootstrap SE
    // within 7 % of its sandwich SE, sandwich within 3 % of model-based.
    let battles = simulated(&spread(8, 1.0), 20_000, 0.0, 77);
    let boot = se_by_model(&params(2000, 3).fit(&battles, None).unwrap());
    let se = BtStandardErrorsParams::default()
        .compute(&battles, None)
        .unwrap();
    for (i, ((b, s), h)) in boot
        .iter()
        .zip(&se.sandwich.se)
        .zip(&se.model_based.se)
        .enumerate()
    {
        assert!(
            (b / s - 1.0).abs() < 0.07,
            "model {i}: bootstrap {b} sandwich {s}"
        );
        assert!(
            (s / h - 1.0).abs() < 0.03,
            "model {i}: sandwich {s} model-based {h}"
        );
    }
    // With 40 % ties the targets vary less than the binary model assumes: the bootstrap still
    // follows the sandwich (within 7 %), and the model-based SE is too large by ≥ 15 %.
    let battles = simulated(&spread(8, 1.0), 20_000, 0.4, 78);
    let boot = se_by_model(&params(2000, 4).fit(&battles, None).unwrap());
    let se = BtStandardErrorsParams::default()
        .compute(&battles, None)
        .unwrap();
    for (i, ((b, s), h)) in boot
        .iter()
        .zip(&se.sandwich.se)
        .zip(&se.model_based.se)
        .enumerate()
    {
        assert!(
            (b / s - 1.0).abs() < 0.07,
            "model {i}: bootstrap {b} sandwich {s}"
        );
        assert!(*h > 1.15 * s, "model {i}: model-based {h} sandwich {s}");
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn cluster_bootstrap_matches_battles_and_grows_with_duplicated_clusters() {
    let theta = spread(6, 1.0);
    let battles = simulated(&theta, 2000, 0.1, 21);
    let n = battles.battles.len();
    // One battle per cluster (labels scattered, not 0..n): the same distribution as the battle
    // bootstrap. Two independent 2000-round estimates of one SE differ by ≈ 2.2 % (1/√R);
    // asserted within 10 % per model.
    let singletons: Vec<usize> = (0..n).map(|k| (k * 7919) % n + 3 * n).collect();
    let by_battle = se_by_model(&params(2000, 5).fit(&battles, None).unwrap());
    let clustered = params(2000, 6).fit(&battles, Some(&singletons)).unwrap();
    assert_eq!(
        clustered.resampling,
        Resampling::Clusters {
            n_battles: n,
            n_clusters: n
        }
    );
    let by_cluster = se_by_model(&clustered);
    for i in 0..6 {
        let ratio = by_cluster[i] / by_battle[i];
        assert!((ratio - 1.0).abs() < 0.1, "model {i}: ratio {ratio}");
    }
    // Every battle twice, both copies in one cluster: resampling battles treats the copies as
    // independent (SE shrinks by √2), resampling clusters does not, so the cluster SE is √2
    // times the battle SE (asserted within 10 % per model).
    let mut doubled = battles.clone();
    doubled.battles.extend_from_slice(&battles.battles);
    let labels: Vec<usize> = (0..2 * n).map(|k| k % n).collect();
    let by_battle = se_by_model(&params(2000, 7).fit(&doubled, None).unwrap());
    let by_cluster = se_by_model(&params(2000, 8).fit(&doubled, Some(&labels)).unwrap());
    for i in 0..6 {
        let ratio = by_cluster[i] / by_battle[i];
        assert!(
            (ratio / 2f64.sqrt() - 1.0).abs() < 0.1,
            "model {i}: ratio {ratio}"
        );
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn invalid_settings_and_inputs_are_rejected() {
    let battles = simulated(&spread(3, 1.0), 50, 0.0, 1);
    assert!(matches!(
        params(1, 0).fit(&battles, None),
        Err(Error::InvalidParam { name: "rounds", .. })
    ));
    let mut bad = params(10, 0);
    bad.bt.lambda = 0.0;
    assert!(matches!(
        bad.fit(&battles, None),
        Err(Error::InvalidParam { name: "lambda", .. })
    ));
    assert!(matches!(
        params(10, 0).fit(&battles, Some(&[0, 1])),
        Err(Error::InvalidParam {
            name: "clusters",
            ..
        })
    ));
    let empty = Battles {
        models: vec!["a".into(), "b".into()],
        battles: vec![],
    };
    assert!(matches!(
        params(10, 0).fit(&empty, None),
        Err(Error::Insufficient(_))
    ));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn rounds_in_chunks_equal_one_run() {
    let sim = tribunal::rankings::simulate_battles::simulate_battles(
        &tribunal::rankings::simulate_battles::SimulationParams {
            theta: vec![0.8, 0.1, -0.2, -0.7],
            n_battles: 600,
            tie_rate: 0.1,
            seed: 11,
        },
    )
    .unwrap();
    let battles = tribunal::rankings::battles::Battles {
        models: ["a", "b", "c", "d"].map(str::to_owned).to_vec(),
        battles: sim,
    };
    let params = tribunal::rankings::bt_bootstrap::BtBootstrapParams {
        bootstrap: tribunal::math::resample::BootstrapParams {
            rounds: 30,
            seed: 4,
            level: 0.9,
        },
        ..Default::default()
    };
    let whole = params.fit(&battles, None).unwrap();
    let plan = params.plan(&battles, None).unwrap();
    let mut chunks = plan.rounds(20..30).unwrap();
    chunks.splice(0..0, plan.rounds(0..20).unwrap());
    assert_eq!(plan.summarise(&chunks).unwrap(), whole);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn anchoring_fixes_one_elo_and_measures_everything_against_it() {
    use tribunal::math::resample::percentile_interval;
    use tribunal::rankings::anchor::Anchor;
    use tribunal::rankings::leaderboard::bradley_terry_leaderboard;
    let battles = simulated(&spread(5, 0.8), 800, 0.1, 21);
    let anchor = Anchor {
        model: "model-01".into(),
        elo: 1114.0,
    };
    let a = 1;
    let bt = BradleyTerryParams::default();
    let plain = bradley_terry_leaderboard("sim", &battles, &bt).unwrap();
    let anchored = plain.clone().anchored(&anchor, &battles).unwrap();
    // Differences are kept, the anchor sits at its Elo, and each SE is the sandwich SE of the
    // difference to the anchor, √(Vᵢᵢ + Vₐₐ − 2Vᵢₐ) from the covariance matrix.
    let v = BtStandardErrorsParams { bt }
        .compute(&battles, None)
        .unwrap()
        .sandwich
        .matrix;
    let anchor_plain = plain
        .ratings
        .iter()
        .find(|r| r.model == anchor.model)
        .unwrap()
        .elo;
    for (p, q) in plain.ratings.iter().zip(&anchored.ratings) {
        assert_eq!((p.model.as_str(), p.rank), (q.model.as_str(), q.rank));
        assert!((q.elo - (p.elo - anchor_plain + 1114.0)).abs() < 1e-9);
        let i: usize = p.model[6..].parse().unwrap();
        let se = (v[i][i] + v[a][a] - 2.0 * v[i][a]).max(0.0).sqrt();
        let q_se = q.se.unwrap();
        assert!((q_se - se).abs() < 1e-9, "{}: {q_se} vs {se}", p.model);
    }
    let top = &anchored
        .ratings
        .iter()
        .find(|r| r.model == anchor.model)
        .unwrap();
    assert_eq!((top.elo, top.se), (1114.0, Some(0.0)));

    // The bootstrap anchors every replicate before taking percentiles.
    let params = params(200, 3);
    let plan = params
        .plan(&battles, None)
        .unwrap()
        .anchored(&anchor)
        .unwrap();
    let replicates = plan.rounds(0..200).unwrap();
    let boot = plan.summarise(&replicates).unwrap();
    for r in &boot.ratings {
        let reps: Vec<f64> = replicates
            .iter()
            .map(|e| e.elo[r.index] - e.elo[a] + 1114.0)
            .collect();
        let expected = percentile_interval(r.elo, &reps, 0.95);
        assert!((r.interval.lower - expected.lower).abs() < 1e-9);
        assert!((r.interval.upper - expected.upper).abs() < 1e-9);
        assert!((r.interval.se - expected.se).abs() < 1e-9);
    }
    let pinned = boot.ratings.iter().find(|r| r.index == a).unwrap();
    assert_eq!(
        (
            pinned.interval.lower,
            pinned.interval.upper,
            pinned.interval.se
        ),
        (1114.0, 1114.0, 0.0)
    );
    // Leaderboard and bootstrap must be anchored alike, and anchoring comes first.
    let unanchored = params.fit(&battles, None).unwrap();
    assert!(anchored.clone().with_bootstrap(&unanchored).is_err());
    assert!(plain.clone().with_bootstrap(&boot).is_err());
    let both = anchored.with_bootstrap(&boot).unwrap();
    assert!(both.anchored(&anchor, &battles).is_err());
    assert!(plain
        .anchored(
            &Anchor {
                model: "nobody".into(),
                elo: 1.0
            },
            &battles
        )
        .is_err());
}

/// The leaderboard of `battles` with a 200-round bootstrap (seed 1).
fn leaderboard_with_bootstrap(battles: &Battles) -> tribunal::rankings::leaderboard::Leaderboard {
    let bt = BradleyTerryParams::default();
    let board =
        tribunal::rankings::leaderboard::bradley_terry_leaderboard("hand", battles, &bt).unwrap();
    let bootstrap = params(200, 1).fit(battles, None).unwrap();
    board.with_bootstrap(&bootstrap).unwrap()
}

fn row<'a>(
    board: &'a tribunal::rankings::leaderboard::Leaderboard,
    model: &str,
) -> &'a tribunal::rankings::leaderboard::RatingRow {
    board.ratings.iter().find(|r| r.model == model).unwrap()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn separated_data_give_no_standard_error_open_intervals_and_wide_ranks() {
    use tribunal::rankings::separation::Side;
    // x beats y ten times; one battle; a chain a > b > c: no rating is identified, so none has
    // an SE, every interval is open both ways and every model may take every rank.
    for (battles, m) in [
        (Battles::from_named([("x", "y", 1.0); 10]), 2),
        (Battles::from_named([("x", "y", 1.0)]), 2),
        (Battles::from_named([("a", "b", 1.0), ("b", "c", 1.0)]), 3),
    ] {
        let board = leaderboard_with_bootstrap(&battles);
        assert_eq!(board.warnings.len(), m, "{:?}", board.warnings);
        for r in &board.ratings {
            assert_eq!(r.separation, Some(Side::Unordered), "{}", r.model);
            assert_eq!(r.se, None);
            let b = r.bootstrap.unwrap();
            assert_eq!((b.lower, b.upper), (None, None));
            assert_eq!((b.rank, b.worst_rank), (1, m));
            assert_eq!(b.separated_rounds, 200);
        }
        assert!(board.warnings[0].contains("separated"));
    }
    // Hand counts: x won 10, lost 0.
    let board = leaderboard_with_bootstrap(&Battles::from_named([("x", "y", 1.0); 10]));
    let x = row(&board, "x");
    assert_eq!((x.wins, x.losses, x.ties, x.battles), (10, 0, 0, 10));
    assert!(board
        .warnings
        .iter()
        .any(|w| w.contains("`x`") && w.contains("wins 10, losses 0")));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_model_that_never_loses_is_open_above_only() {
    use tribunal::rankings::separation::Side;
    // a, b, c beat each other around a cycle (many times); top beats each of them and never
    // loses; bottom loses every battle.
    let mut named = Vec::new();
    for _ in 0..20 {
        named.extend([
            ("a", "b", 1.0),
            ("b", "c", 1.0),
            ("c", "a", 1.0),
            ("b", "a", 1.0),
        ]);
        named.extend([("top", "a", 1.0), ("top", "b", 1.0), ("c", "top", 0.0)]);
        named.extend([("bottom", "a", 0.0), ("c", "bottom", 1.0)]);
    }
    let board = leaderboard_with_bootstrap(&Battles::from_named(named));
    let top = row(&board, "top");
    assert_eq!(top.separation, Some(Side::Above));
    assert_eq!(top.se, None);
    let b = top.bootstrap.unwrap();
    assert_eq!(b.upper, None);
    assert!(b.lower.is_some());
    assert_eq!(b.rank, 1);
    let bottom = row(&board, "bottom");
    assert_eq!(bottom.separation, Some(Side::Below));
    let b = bottom.bootstrap.unwrap();
    assert_eq!((b.lower.is_none(), b.upper.is_some()), (true, true));
    assert_eq!(b.worst_rank, 5);
    for m in ["a", "b", "c"] {
        let r = row(&board, m);
        assert_eq!(r.separation, None);
        assert!(r.se.is_some_and(|se| se > 0.0));
        let b = r.bootstrap.unwrap();
        assert!(b.lower.is_some() && b.upper.is_some());
    }
    assert_eq!(board.warnings.len(), 2, "{:?}", board.warnings);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_model_separated_in_many_rounds_has_an_open_bound() {
    // `rare` beat a once and lost to b once among many battles of a, b, c: resamples that drop
    // its one loss (about e^-1 of them) leave it undefeated, far more than the 2.5 % tail.
    let mut named = vec![("rare", "a", 1.0), ("rare", "b", 0.0)];
    for _ in 0..30 {
        named.extend([
            ("a", "b", 1.0),
            ("b", "c", 1.0),
            ("c", "a", 1.0),
            ("b", "a", 1.0),
        ]);
    }
    let board = leaderboard_with_bootstrap(&Battles::from_named(named));
    let rare = row(&board, "rare");
    assert_eq!(rare.separation, None);
    let b = rare.bootstrap.unwrap();
    assert!(b.separated_rounds > 40, "{b:?}");
    assert_eq!((b.lower, b.upper), (None, None));
    assert!(board
        .warnings
        .iter()
        .any(|w| w.contains("`rare`") && w.contains("bootstrap rounds")));
}
