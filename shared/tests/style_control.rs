//! Style control against the `arena-rank` package (committed fixture,
//! `fixtures/make_style_reference.py`: its `ContextualBradleyTerry` on the LLMFAO crowd votes
//! with style features of each pair's two answers, polished by Newton steps in numpy), the
//! feature counts against Python's `re`, and a planted style effect recovered within its
//! interval. Runs natively and in headless Chromium.

use serde::Deserialize;
use std::collections::HashMap;
use tribunal::io::error::Error;
use tribunal::math::logistic::sigmoid;
use tribunal::math::resample::BootstrapParams;
use tribunal::rankings::battles::{parse_battles, Battle};
use tribunal::rankings::style_control::{StyleControlParams, StyledBattles};
use tribunal::rankings::style_features::{style_counts, style_difference, STYLE_FEATURES};

#[derive(Deserialize)]
struct Fixture {
    crowd: String,
    pairs: String,
    features: Vec<String>,
    n_battles: usize,
    answer_counts: HashMap<String, ([f64; 4], [f64; 4])>,
    fits: Vec<Fit>,
}

#[derive(Deserialize)]
struct Fit {
    reweighted: bool,
    reg: f64,
    models: Vec<String>,
    arena_rank_theta: Vec<f64>,
    theta: Vec<f64>,
    beta: Vec<f64>,
    max_abs_gradient: f64,
    se_theta: Vec<f64>,
    se_beta: Vec<f64>,
    rating_lower: Vec<f64>,
    rating_upper: Vec<f64>,
    feature_mean: Vec<f64>,
    feature_std: Vec<f64>,
}

const FIXTURE: &str = include_str!("fixtures/style_reference.json");
const CROWD: &[u8] = include_bytes!("../../tests/data/llmfao/crowd-comparisons.csv");
const PAIRS: &[u8] = include_bytes!("../../tests/data/llmfao/pairs.csv");

/// Each pair's two answers' style counts, by pair id.
fn answer_counts() -> HashMap<String, ([f64; 4], [f64; 4])> {
    let mut reader = csv::Reader::from_reader(PAIRS);
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_owned(), (style_counts(&r[2]), style_counts(&r[3])))
        })
        .collect()
}

/// The crowd's battles with the style differences of their pair's answers.
fn crowd(fixture: &Fixture) -> StyledBattles {
    let battles = parse_battles(&fixture.crowd, CROWD).unwrap();
    assert_eq!(battles.battles.len(), fixture.n_battles);
    let counts = answer_counts();
    let ids: Vec<String> = csv::Reader::from_reader(CROWD)
        .records()
        .map(|r| r.unwrap()[0].to_owned())
        .collect();
    StyledBattles {
        models: battles.models,
        battles: battles.battles,
        feature_names: STYLE_FEATURES.map(str::to_owned).to_vec(),
        features: ids
            .iter()
            .map(|id| {
                let (a, b) = &counts[id];
                style_difference(a, b).to_vec()
            })
            .collect(),
    }
}

fn assert_close(ours: f64, theirs: f64, tolerance: f64, what: &str) {
    assert!(
        (ours - theirs).abs() <= tolerance,
        "{what}: {ours} vs {theirs} (tolerance {tolerance})"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_counts_equal_pythons_re_on_the_llmfao_answers() {
    let fixture: Fixture = serde_json::from_str(FIXTURE).unwrap();
    assert_eq!(fixture.pairs, "tests/data/llmfao/pairs.csv");
    assert_eq!(fixture.features, STYLE_FEATURES);
    let ours = answer_counts();
    assert_eq!(fixture.answer_counts.len(), 40);
    for (id, counts) in &fixture.answer_counts {
        assert_eq!(&ours[id], counts, "pair {id}");
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_fit_equals_arena_rank_on_llmfao() {
    let fixture: Fixture = serde_json::from_str(FIXTURE).unwrap();
    let data = crowd(&fixture);
    for fit in &fixture.fits {
        let what = format!("reweighted {} reg {}", fit.reweighted, fit.reg);
        assert!(
            fit.max_abs_gradient < 1e-15,
            "{what}: the fixture is at the optimum"
        );
        let params = StyleControlParams {
            reg: fit.reg,
            min_pair_count: fit.reweighted.then_some(50.0),
            level: 0.95,
            bootstrap: None,
        };
        let ours = params.fit(&data).unwrap();
        let by_name: HashMap<&str, usize> = ours
            .ratings
            .iter()
            .enumerate()
            .map(|(i, r)| (r.model.as_str(), i))
            .collect();
        assert_eq!(fit.models.len(), ours.ratings.len());
        for (j, model) in fit.models.iter().enumerate() {
            let rating = &ours.ratings[by_name[model.as_str()]];
            assert_close(
                rating.theta,
                fit.theta[j],
                1e-9,
                &format!("{what}: θ {model}"),
            );
            assert_close(
                rating.theta,
                fit.arena_rank_theta[j],
                1e-6,
                &format!("{what}: θ {model} (arena-rank's own)"),
            );
            assert_close(
                rating.se,
                fit.se_theta[j],
                1e-9 * fit.se_theta[j],
                &format!("{what}: se {model}"),
            );
            // arena-rank's sandwich leaves reg out of its Hessian: with a small reg its
            // intervals are ours within 1.5 %; at its default reg = 1 up to 1.5 times wider.
            if fit.reg < 0.01 {
                let theirs = (fit.rating_upper[j] - fit.rating_lower[j]) / 2.0;
                let ours_half = (rating.upper - rating.lower) / 2.0;
                assert_close(
                    ours_half / theirs,
                    1.0,
                    0.015,
                    &format!("{what}: interval half-width of {model} vs arena-rank's"),
                );
            }
        }
        for (f, c) in ours.coefficients.iter().enumerate() {
            assert_close(
                c.estimate,
                fit.beta[f],
                1e-9,
                &format!("{what}: β {}", c.name),
            );
            assert_close(
                c.se,
                fit.se_beta[f],
                1e-9 * fit.se_beta[f],
                &format!("{what}: se β"),
            );
            assert_close(c.mean, fit.feature_mean[f], 1e-14, "feature mean");
            assert_close(c.sd, fit.feature_std[f], 1e-12 * c.sd, "feature sd");
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn ranks_change_only_through_style() {
    let fixture: Fixture = serde_json::from_str(FIXTURE).unwrap();
    let mut data = crowd(&fixture);
    // With every feature zero the two leaderboards are one.
    for row in &mut data.features {
        row.fill(0.0);
    }
    let fit = StyleControlParams::default().fit(&data).unwrap();
    for r in &fit.ratings {
        assert_eq!(r.rank_change, 0, "{}", r.model);
        assert_close(r.elo, r.raw_elo, 1e-9, &r.model);
    }
    assert!(fit
        .coefficients
        .iter()
        .all(|c| c.estimate == 0.0 && c.sd == 0.0));
}

/// A deterministic stream in [0, 1) (splitmix64), so the planted data need no RNG crate.
fn uniform(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_planted_length_effect_is_recovered_and_moves_the_verbose_model_down() {
    // Model 0 is the weakest but writes longer answers, which win votes: raw, it leads; with
    // length held fixed, it is last. Lengths also vary within each model, which identifies β.
    let (theta, beta) = ([-0.3, 0.3, 0.0], 0.8);
    let mut state = 7;
    let mut battles = Vec::new();
    let mut features = Vec::new();
    for _ in 0..6000 {
        let a = (uniform(&mut state) * 3.0) as usize;
        let b = (a + 1 + (uniform(&mut state) * 2.0) as usize) % 3;
        let verbose = |m: usize| if m == 0 { 1.0 } else { 0.0 };
        let length = verbose(a) - verbose(b) + 2.0 * (uniform(&mut state) - 0.5);
        let p = sigmoid(theta[a] - theta[b] + beta * length);
        battles.push(Battle {
            a,
            b,
            y: f64::from(u8::from(uniform(&mut state) < p)),
        });
        features.push(vec![length]);
    }
    let data = StyledBattles {
        models: ["verbose", "strong", "plain"].map(str::to_owned).to_vec(),
        battles,
        feature_names: vec!["length".to_owned()],
        features,
    };
    let fit = StyleControlParams::default().fit(&data).unwrap();
    let c = &fit.coefficients[0];
    let planted = beta * c.sd; // per standard deviation of the feature
    assert!(c.lower < planted && planted < c.upper, "{c:?} vs {planted}");
    for (r, planted) in fit.ratings.iter().zip(theta) {
        let (lower, upper) = (r.theta - 1.96 * r.se, r.theta + 1.96 * r.se);
        assert!(lower < planted && planted < upper, "{r:?} vs {planted}");
    }
    let verbose = &fit.ratings[0];
    assert_eq!(
        (verbose.raw_rank, verbose.rank),
        (1, 3),
        "{:?}",
        fit.ratings
    );
    assert_eq!(verbose.rank_change, -2);
    // The reading: raw, the verbose model leads (1, 2, 3 by θ + the length it writes); with
    // length fixed the order is strong, plain, verbose — every rank moves; the one style
    // effect, length, is read with its interval and is not 0.
    let c = &fit.coefficients[0];
    assert_eq!(
        fit.reading(),
        format!(
            "Holding style fixed moves 3 of 3 models' ranks; the largest style effect is length: \
             {:+.3} [{:.3}, {:.3}] on the log-odds of winning per standard deviation.",
            c.estimate, c.lower, c.upper
        )
    );

    // The percentile bootstrap (200 rounds, seeded) agrees with the sandwich: it covers the
    // planted β, its width is within a fifth of the sandwich interval's, and the same seed
    // gives the same intervals.
    let params = StyleControlParams {
        bootstrap: Some(BootstrapParams {
            rounds: 200,
            seed: 3,
            level: 0.95,
        }),
        ..StyleControlParams::default()
    };
    let booted = params.fit(&data).unwrap();
    assert_eq!(booted.bootstrap_valid_rounds, Some(200));
    let c = &booted.coefficients[0];
    let (lower, upper) = c.bootstrap.unwrap();
    assert!(
        lower < planted && planted < upper,
        "[{lower}, {upper}] vs {planted}"
    );
    let ratio = (upper - lower) / (c.upper - c.lower);
    assert!(
        (0.8..1.25).contains(&ratio),
        "bootstrap / sandwich width {ratio}"
    );
    for r in &booted.ratings {
        let (lower, upper) = r.bootstrap.unwrap();
        assert!(lower < r.elo && r.elo < upper, "{r:?}");
    }
    assert_eq!(params.fit(&data).unwrap(), booted);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_model_that_never_loses_is_named_not_rated() {
    let data = StyledBattles {
        models: ["a", "b", "c"].map(str::to_owned).to_vec(),
        battles: vec![
            Battle { a: 0, b: 1, y: 1.0 },
            Battle { a: 0, b: 2, y: 1.0 },
            Battle { a: 1, b: 2, y: 1.0 },
            Battle { a: 2, b: 1, y: 1.0 },
        ],
        feature_names: vec!["length".to_owned()],
        features: vec![vec![0.1], vec![-0.2], vec![0.0], vec![0.3]],
    };
    let error = StyleControlParams::default().fit(&data).unwrap_err();
    let Error::Insufficient(message) = error else {
        panic!("{error:?}");
    };
    assert!(
        message.contains("a (") && !message.contains("b ("),
        "{message}"
    );
    let bad = StyleControlParams {
        reg: -1.0,
        ..StyleControlParams::default()
    };
    assert!(matches!(
        bad.fit(&data),
        Err(Error::InvalidParam { name: "reg", .. })
    ));
}

/// A model with one loss among three battles: many resamples leave it unbeaten, so its rating
/// is free there; the bootstrap intervals are withheld and said so, not printed too narrow.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn bootstrap_intervals_are_withheld_when_resamples_free_a_rating() {
    let mut state = 5;
    let mut battles = Vec::new();
    let mut features = Vec::new();
    for i in 0..400 {
        let (a, b) = if i % 2 == 0 { (0, 1) } else { (1, 0) };
        battles.push(Battle {
            a,
            b,
            y: f64::from(u8::from(uniform(&mut state) < 0.5)),
        });
        features.push(vec![uniform(&mut state)]);
    }
    for y in [1.0, 1.0, 0.0] {
        battles.push(Battle { a: 2, b: 0, y });
        features.push(vec![uniform(&mut state)]);
    }
    let data = StyledBattles {
        models: ["a", "b", "rare"].map(str::to_owned).to_vec(),
        battles,
        feature_names: vec!["length".to_owned()],
        features,
    };
    let params = StyleControlParams {
        bootstrap: Some(BootstrapParams {
            rounds: 100,
            seed: 1,
            level: 0.95,
        }),
        ..StyleControlParams::default()
    };
    let fit = params.fit(&data).unwrap();
    assert!(
        fit.bootstrap_valid_rounds < Some(99),
        "{:?}",
        fit.bootstrap_valid_rounds
    );
    assert!(fit.ratings.iter().all(|r| r.bootstrap.is_none()));
    assert!(
        fit.warnings[0].contains("bootstrap intervals are withheld"),
        "{:?}",
        fit.warnings
    );
}
