//! Transitivity against networkx's triad census (committed fixture,
//! `fixtures/make_transitivity_reference.py`): the cyclic triads of LLMFAO's crowd votes and of
//! GPT-4's and GPT-3.5's verdicts on the same pairs, within each prompt and pooled — the counts,
//! each model's and the cycles listed; on simulations, coin flips near a quarter and a
//! Bradley–Terry judge with many battles per pair near none. Runs natively and in headless
//! Chromium.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use std::collections::BTreeMap;
use tribunal::math::resample::BootstrapParams;
use tribunal::rankings::battles::{parse_battles_with_column, Battles};
use tribunal::rankings::simulate_battles::{simulate_battles, SimulationParams};
use tribunal::rankings::transitivity::{Transitivity, TransitivityParams, COIN_FLIP_SHARE};

#[derive(Deserialize)]
struct Census {
    pairs: usize,
    undecided_pairs: usize,
    triads: usize,
    cyclic: usize,
    /// Per model: [triads, cyclic].
    models: BTreeMap<String, [usize; 2]>,
    cycles: Vec<ReferenceCycle>,
}

#[derive(Deserialize)]
struct ReferenceCycle {
    group: Option<String>,
    models: [String; 3],
}

#[derive(Deserialize)]
struct Rater {
    battles: usize,
    by_prompt: Census,
    pooled: Census,
}

#[derive(Deserialize)]
struct Fixture {
    list: usize,
    crowd: Rater,
    gpt4: Rater,
    gpt3: Rater,
}

const FIXTURE: &str = include_str!("fixtures/transitivity_reference.json");
const FILES: [(&str, &[u8]); 3] = [
    (
        "crowd",
        include_bytes!("../../tests/data/llmfao/crowd-comparisons.csv"),
    ),
    (
        "gpt4",
        include_bytes!("../../tests/data/llmfao/gpt4-crowd-comparisons.csv"),
    ),
    (
        "gpt3",
        include_bytes!("../../tests/data/llmfao/gpt3-crowd-comparisons.csv"),
    ),
];

fn no_bootstrap(list: usize) -> TransitivityParams {
    TransitivityParams {
        list,
        bootstrap: BootstrapParams {
            rounds: 0,
            ..BootstrapParams::default()
        },
        ..TransitivityParams::default()
    }
}

/// Within each prompt, with a bootstrap of prompts.
fn by_prompt(rounds: usize, seed: u64) -> TransitivityParams {
    TransitivityParams {
        group: Some("prompt".to_owned()),
        bootstrap: BootstrapParams {
            rounds,
            seed,
            level: 0.95,
        },
        ..TransitivityParams::default()
    }
}

fn assert_census(found: &Transitivity, expected: &Census, what: &str) {
    assert_eq!(
        (
            found.pairs,
            found.undecided_pairs,
            found.triads,
            found.cyclic
        ),
        (
            expected.pairs,
            expected.undecided_pairs,
            expected.triads,
            expected.cyclic
        ),
        "{what}: pairs, undecided, triads, cyclic"
    );
    let models: BTreeMap<String, [usize; 2]> = found
        .models
        .iter()
        .map(|m| (m.model.clone(), [m.triads, m.cyclic]))
        .collect();
    assert_eq!(models, expected.models, "{what}: per model");
    let cycles: Vec<(Option<String>, [String; 3])> = found
        .cycles
        .iter()
        .map(|c| (c.group.clone(), c.models.clone()))
        .collect();
    let reference: Vec<(Option<String>, [String; 3])> = expected
        .cycles
        .iter()
        .map(|c| (c.group.clone(), c.models.clone()))
        .collect();
    assert_eq!(cycles, reference, "{what}: cycles listed");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn llmfao_crowd_and_judges_match_networkx_within_prompts_and_pooled() {
    let fixture: Fixture = serde_json::from_str(FIXTURE).unwrap();
    for (rater, bytes) in FILES {
        let expected = match rater {
            "crowd" => &fixture.crowd,
            "gpt4" => &fixture.gpt4,
            _ => &fixture.gpt3,
        };
        let (battles, prompts) = parse_battles_with_column(rater, bytes, "prompt").unwrap();
        assert_eq!(battles.battles.len(), expected.battles);
        let grouped = TransitivityParams {
            group: Some("prompt".to_owned()),
            ..no_bootstrap(fixture.list)
        };
        let by_prompt = grouped.measure(&battles, Some(&prompts)).unwrap();
        assert_census(
            &by_prompt,
            &expected.by_prompt,
            &format!("{rater} by prompt"),
        );
        let pooled = no_bootstrap(fixture.list).measure(&battles, None).unwrap();
        assert_census(&pooled, &expected.pooled, &format!("{rater} pooled"));
    }
}

/// The finding the page reports: GPT-4's verdicts are more transitive than the crowd's
/// majorities, GPT-3.5's far less — each interval (a cluster bootstrap of prompts) apart from
/// the other judge's share.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn gpt4_is_more_transitive_than_gpt35_on_the_same_pairs() {
    let params = by_prompt(500, 1);
    let share = |bytes: &[u8]| {
        let (battles, prompts) = parse_battles_with_column("f", bytes, "prompt").unwrap();
        params.measure(&battles, Some(&prompts)).unwrap()
    };
    let (gpt4, gpt3) = (share(FILES[1].1), share(FILES[2].1));
    let (i4, i3) = (gpt4.interval.unwrap(), gpt3.interval.unwrap());
    assert!(i4.upper < gpt3.cyclic_share.unwrap(), "{i4:?}");
    assert!(i3.lower > gpt4.cyclic_share.unwrap(), "{i3:?}");
    assert_eq!(i4.valid_rounds, 500);
}

/// A group's name and its battles `(a, b, y)` by model number.
type Group = (String, Vec<(usize, usize, f64)>);

fn grouped(groups: &[Group], names: &[String]) -> Transitivity {
    let mut rows = Vec::new();
    let mut labels = Vec::new();
    for (group, battles) in groups {
        for &(a, b, y) in battles {
            rows.push((names[a].as_str(), names[b].as_str(), y));
            labels.push(group.clone());
        }
    }
    by_prompt(400, 5)
        .measure(&Battles::from_named(rows), Some(&labels))
        .unwrap()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn coin_flips_make_a_quarter_of_triads_cyclic_and_a_bradley_terry_judge_almost_none() {
    let names: Vec<String> = (0..8).map(|m| format!("model {m}")).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    // 60 prompts, each a complete tournament of 8 models, one coin flip per pair.
    let coin: Vec<Group> = (0..60)
        .map(|p| {
            let mut battles = Vec::new();
            for i in 0..8 {
                for j in i + 1..8 {
                    battles.push((i, j, f64::from(u8::from(rng.random_bool(0.5)))));
                }
            }
            (format!("p{p:02}"), battles)
        })
        .collect();
    let report = grouped(&coin, &names);
    let interval = report.interval.unwrap();
    assert_eq!(report.triads, 60 * 56);
    assert!(interval.lower <= COIN_FLIP_SHARE && COIN_FLIP_SHARE <= interval.upper);
    assert!((report.cyclic_share.unwrap() - COIN_FLIP_SHARE).abs() < 0.03);
    // Coin flips are said to be no better than chance: by the share itself, or by its interval.
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("no better than chance")
                || w.contains("not shown to order the models better than chance")),
        "{:?}",
        report.warnings
    );

    // A judge that follows one strength per model (1 apart on the logit scale), 25 battles
    // per pair: its majorities are a total order but for rare upsets.
    let theta: Vec<f64> = (0..8).map(f64::from).collect();
    let judged: Vec<Group> = (0..20)
        .map(|p| {
            let battles = simulate_battles(&SimulationParams {
                theta: theta.clone(),
                n_battles: 28 * 25,
                tie_rate: 0.0,
                seed: 100 + p,
            })
            .unwrap();
            let battles = battles.iter().map(|b| (b.a, b.b, b.y)).collect();
            (format!("p{p:02}"), battles)
        })
        .collect();
    let report = grouped(&judged, &names);
    assert!(
        report.cyclic_share.unwrap() < 0.01,
        "{:?}",
        report.cyclic_share
    );
    assert!(report.interval.unwrap().upper < 0.05);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
}
