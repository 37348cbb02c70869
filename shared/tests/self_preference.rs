//! Self-preference against statsmodels (committed fixture,
//! `fixtures/make_self_preference_reference.py`: the GLM fits of LLMFAO's crowd votes and of the
//! GPT-4 judge's verdicts, and the stacked sandwich in numpy); on simulations, a planted bias
//! recovered within its interval, the intervals' coverage and the test's size; and the edges
//! where β does not exist. Runs natively and in headless Chromium.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use tribunal::io::error::Error;
use tribunal::math::logistic::sigmoid;
use tribunal::rankings::bradley_terry::ELO_PER_THETA;
use tribunal::rankings::scored_battles::{
    join_battle_files, JudgeSignal, ScoredBattle, ScoredBattles,
};
use tribunal::rankings::self_preference::SelfPreferenceParams;

#[derive(Deserialize)]
struct Fixture {
    family: Vec<String>,
    models: Vec<String>,
    theta: Vec<f64>,
    gamma: f64,
    alpha: f64,
    beta: f64,
    se_gamma: f64,
    se_alpha: f64,
    se_beta: f64,
    naive_se_beta: f64,
    p_value: f64,
    win_rate_effect: f64,
    win_rate_effect_se: f64,
    cross_battles: usize,
    judge_win_rate: f64,
    human_predicted_win_rate: f64,
    human_cross_battles: usize,
    human_win_rate: f64,
    judge_battles: usize,
    human_battles: usize,
}

const FIXTURE: &str = include_str!("fixtures/self_preference_reference.json");
const CROWD: &[u8] = include_bytes!("../../tests/data/llmfao/crowd-comparisons.csv");
const GPT4: &[u8] = include_bytes!("../../tests/data/llmfao/gpt4-crowd-comparisons.csv");

fn close(found: f64, expected: f64, tol: f64, what: &str) {
    assert!(
        (found - expected).abs() <= tol * expected.abs().max(1.0),
        "{what}: found {found}, expected {expected}"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn equals_statsmodels_and_the_stacked_sandwich_on_llmfao_gpt4() {
    let fixture: Fixture = serde_json::from_str(FIXTURE).unwrap();
    let (_, joined) = join_battle_files(
        ("crowd-comparisons.csv", CROWD),
        ("gpt4-crowd-comparisons.csv", GPT4),
        "id",
    )
    .unwrap();
    let params = SelfPreferenceParams {
        family: fixture.family.clone(),
        level: 0.95,
    };
    let found = params.fit(&joined.data).unwrap();
    assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    assert_eq!(found.judge_battles, fixture.judge_battles);
    assert_eq!(found.human_battles, fixture.human_battles);
    assert_eq!(found.cross_battles, fixture.cross_battles);
    assert_eq!(found.human_cross_battles, fixture.human_cross_battles);
    let models: Vec<&str> = found.ratings.iter().map(|r| r.model.as_str()).collect();
    assert_eq!(models, fixture.models);
    let base = found.ratings[0].elo;
    for (rating, theta) in found.ratings.iter().zip(&fixture.theta) {
        close(
            (rating.elo - base) / ELO_PER_THETA,
            *theta,
            1e-7,
            &rating.model,
        );
    }
    close(found.position.estimate, fixture.gamma, 1e-7, "γ");
    close(found.scale.estimate, fixture.alpha, 1e-7, "α");
    close(found.bias.estimate, fixture.beta, 1e-7, "β");
    close(found.position.se, fixture.se_gamma, 1e-6, "se γ");
    close(found.scale.se, fixture.se_alpha, 1e-6, "se α");
    close(found.bias.se, fixture.se_beta, 1e-6, "se β");
    close(found.p_value, fixture.p_value, 1e-4, "p");
    close(
        found.win_rate_effect.estimate,
        fixture.win_rate_effect,
        1e-7,
        "effect",
    );
    close(
        found.win_rate_effect.se,
        fixture.win_rate_effect_se,
        1e-4,
        "effect se",
    );
    close(
        found.judge_win_rate,
        fixture.judge_win_rate,
        1e-12,
        "judge win rate",
    );
    close(
        found.human_win_rate.unwrap(),
        fixture.human_win_rate,
        1e-12,
        "human win rate",
    );
    close(
        found.human_predicted_win_rate,
        fixture.human_predicted_win_rate,
        1e-7,
        "predicted",
    );
    // The humans' uncertainty about θ widens β's interval beyond the judge-only GLM's.
    assert!(found.bias.se > fixture.naive_se_beta);
    close(
        found.elo_points.estimate,
        ELO_PER_THETA * fixture.beta,
        1e-7,
        "Elo points",
    );
    assert!(
        found.reading.contains("favours its own family"),
        "{}",
        found.reading
    );
}

/// `n` battles among `theta.len()` models (a ≠ b uniform); every one judged with
/// σ(γ + α Δθ + β ΔF), each labelled by a human with probability `labelled` (σ(Δθ)).
fn simulate(
    theta: &[f64],
    family: &[usize],
    (gamma, alpha, beta): (f64, f64, f64),
    n: usize,
    labelled: f64,
    seed: u64,
) -> ScoredBattles {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let k = theta.len();
    let f = |m: usize| f64::from(u8::from(family.contains(&m)));
    let battles = (0..n)
        .map(|_| {
            let a = rng.random_range(0..k);
            let b = (a + rng.random_range(1..k)) % k;
            let delta = theta[a] - theta[b];
            let judge = sigmoid(gamma + alpha * delta + beta * (f(a) - f(b)));
            let judge = f64::from(u8::from(rng.random::<f64>() < judge));
            let human = (rng.random::<f64>() < labelled)
                .then(|| f64::from(u8::from(rng.random::<f64>() < sigmoid(delta))));
            ScoredBattle {
                a,
                b,
                score: None,
                order_flip: false,
                judge: Some(judge),
                human,
                prompt: None,
                judge_repeat: false,
                line: None,
            }
        })
        .collect();
    ScoredBattles {
        models: (0..k).map(|m| format!("m{m}")).collect(),
        prompts: Vec::new(),
        signal: JudgeSignal::Verdict,
        battles,
    }
}

const THETA: [f64; 8] = [-1.4, -1.0, -0.6, -0.2, 0.2, 0.6, 1.0, 1.4];

fn family_params() -> SelfPreferenceParams {
    SelfPreferenceParams {
        family: vec!["m2".to_owned(), "m6".to_owned()],
        level: 0.95,
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_planted_self_preference_is_recovered_within_its_interval() {
    let data = simulate(&THETA, &[2, 6], (0.3, 1.4, 0.7), 4000, 0.5, 7);
    let found = family_params().fit(&data).unwrap();
    let (bias, scale, position) = (found.bias, found.scale, found.position);
    assert!(bias.lower < 0.7 && 0.7 < bias.upper, "{bias:?}");
    assert!(bias.lower > 0.0 && found.p_value < 1e-6, "{bias:?}");
    assert!(scale.lower < 1.4 && 1.4 < scale.upper, "{scale:?}");
    assert!(position.lower < 0.3 && 0.3 < position.upper, "{position:?}");
    assert!(found.judge_win_rate > found.human_predicted_win_rate);
    assert!(
        found.reading.contains("favours its own family"),
        "{}",
        found.reading
    );
}

/// Over 200 simulations the 95 % intervals cover the planted β about 95 % of the time, and
/// with no planted bias the test rejects about 5 % of the time: an interval that ignored the
/// humans' uncertainty about θ, or a wrong sandwich, would fall outside these bands.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn intervals_cover_the_planted_bias_and_the_test_keeps_its_size() {
    let runs = 200;
    let (mut covered, mut rejected) = (0, 0);
    for seed in 0..runs {
        let planted = simulate(&THETA, &[2, 6], (0.2, 1.5, 0.5), 600, 0.4, 1000 + seed);
        let bias = family_params().fit(&planted).unwrap().bias;
        covered += usize::from(bias.lower < 0.5 && 0.5 < bias.upper);
        let null = simulate(&THETA, &[2, 6], (0.2, 1.5, 0.0), 600, 0.4, 5000 + seed);
        rejected += usize::from(family_params().fit(&null).unwrap().p_value < 0.05);
    }
    let coverage = covered as f64 / runs as f64;
    let size = rejected as f64 / runs as f64;
    assert!((0.91..=0.985).contains(&coverage), "coverage {coverage}");
    eprintln!("coverage {coverage}, size {size}");
    assert!(size <= 0.09, "size {size}");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_judge_that_never_rules_against_its_family_is_refused_not_estimated() {
    let mut data = simulate(&THETA, &[2, 6], (0.0, 1.0, 0.0), 800, 0.5, 3);
    let family = |m: usize| m == 2 || m == 6;
    for b in &mut data.battles {
        match (family(b.a), family(b.b)) {
            (true, false) => b.judge = Some(1.0),
            (false, true) => b.judge = Some(0.0),
            _ => {}
        }
    }
    let err = family_params().fit(&data).unwrap_err();
    assert!(
        matches!(&err, Error::Insufficient(m) if m.contains("not identified") && m.contains("for its family in all")),
        "{err}"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_edges_are_named() {
    let data = simulate(&THETA, &[2, 6], (0.0, 1.0, 0.3), 800, 0.5, 4);
    // A name that is no model.
    let unknown = SelfPreferenceParams {
        family: vec!["m9".to_owned()],
        level: 0.95,
    };
    let err = unknown.fit(&data).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidParam { .. }) && err.to_string().contains("`m9`"),
        "{err}"
    );
    // No family, every model, a bad level.
    for bad in [
        SelfPreferenceParams::default(),
        SelfPreferenceParams {
            family: (0..8).map(|m| format!("m{m}")).collect(),
            level: 0.95,
        },
        SelfPreferenceParams {
            level: 1.0,
            ..family_params()
        },
    ] {
        assert!(matches!(bad.fit(&data), Err(Error::InvalidParam { .. })));
    }
    // The family never meets another model: the humans cannot place it on the others' scale.
    let mut apart = data.clone();
    let family = |m: usize| m == 2 || m == 6;
    apart.battles.retain(|b| family(b.a) == family(b.b));
    let err = family_params().fit(&apart).unwrap_err();
    assert!(
        matches!(&err, Error::Insufficient(m) if m.contains("rate none of the judge's family")),
        "{err}"
    );
    // The humans compared the family with others, the judge never did.
    let mut unjudged = data.clone();
    for b in &mut unjudged.battles {
        if family(b.a) != family(b.b) {
            b.judge = None;
        }
    }
    let err = family_params().fit(&unjudged).unwrap_err();
    assert!(
        matches!(&err, Error::Insufficient(m) if m.contains("never compared")),
        "{err}"
    );
    // A model that only the judge saw is left out with its battles, and said so.
    let mut unlabelled = data.clone();
    for b in &mut unlabelled.battles {
        if b.a == 0 || b.b == 0 {
            b.human = None;
        }
    }
    let found = family_params().fit(&unlabelled).unwrap();
    assert_eq!(found.ratings.len(), 7);
    assert!(
        found
            .warnings
            .iter()
            .any(|w| w.contains("`m0` is left out")),
        "{:?}",
        found.warnings
    );
    // A model that never loses among the human labels is left out too (its rating is unbounded).
    let mut unbeaten = data;
    for b in &mut unbeaten.battles {
        if let Some(y) = b.human.as_mut() {
            if b.a == 7 {
                *y = 1.0;
            } else if b.b == 7 {
                *y = 0.0;
            }
        }
    }
    let found = family_params().fit(&unbeaten).unwrap();
    assert!(
        found
            .warnings
            .iter()
            .any(|w| w.contains("`m7` is left out")),
        "{:?}",
        found.warnings
    );
    assert!(!found.ratings.iter().any(|r| r.model == "m7"));
}
