//! Win rates against evalica and statsmodels (committed fixture,
//! `fixtures/make_win_rates_reference.py`): every pair's battles, wins, ties, share and Wilson
//! interval and every model's share and average win rate, on LLMFAO's GPT-4 verdicts and on a
//! small file of edges (a model that never loses, a pair that met only in ties, a model that met
//! one opponent), ties as half a win and left out; through the registry's `win_rates` kind as
//! the page and the CLI run it; the settings and files it refuses. Runs natively and in headless
//! Chromium.

use serde::Deserialize;
use std::collections::BTreeMap;
use tribunal::analysis::{run, Analysis, Inputs, Report, Spec};
use tribunal::rankings::battles::{parse_battles, Battles};
use tribunal::rankings::win_rates::{Ties, WinRates, WinRatesParams};
use tribunal::Error;

#[derive(Deserialize)]
struct Pair {
    battles: usize,
    a_wins: usize,
    b_wins: usize,
    ties: usize,
    share_a: Option<f64>,
    lower: Option<f64>,
    upper: Option<f64>,
}

#[derive(Deserialize)]
struct Model {
    battles: usize,
    opponents: usize,
    share: Option<f64>,
    average_win_rate: Option<f64>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    ties: Ties,
    level: f64,
    csv: Option<String>,
    pairs: BTreeMap<String, Pair>,
    models: BTreeMap<String, Model>,
}

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

const FIXTURE: &str = include_str!("fixtures/win_rates_reference.json");
const GPT4: &[u8] = include_bytes!("../../tests/data/llmfao/gpt4-crowd-comparisons.csv");

fn close(found: Option<f64>, expected: Option<f64>, what: &str) {
    match (found, expected) {
        (Some(f), Some(e)) => assert!((f - e).abs() < 1e-12, "{what}: {f} vs {e}"),
        (f, e) => assert_eq!(f, e, "{what}"),
    }
}

fn battles_of(case: &Case) -> Battles {
    match &case.csv {
        Some(text) => parse_battles("edges.csv", text.as_bytes()).unwrap(),
        None => parse_battles("gpt4-crowd-comparisons.csv", GPT4).unwrap(),
    }
}

fn check(case: &Case, report: &WinRates) {
    let what = format!("{} ({:?}, {})", case.name, case.ties, case.level);
    assert_eq!(report.pairs.len(), case.pairs.len(), "{what}: pairs");
    for pair in &report.pairs {
        let key = format!("{}\t{}", pair.model_a, pair.model_b);
        let expected = case
            .pairs
            .get(&key)
            .unwrap_or_else(|| panic!("{what}: {key:?} not in the reference"));
        let at = format!("{what} {key:?}");
        assert_eq!(
            (pair.battles, pair.a_wins, pair.b_wins, pair.ties),
            (
                expected.battles,
                expected.a_wins,
                expected.b_wins,
                expected.ties
            ),
            "{at}"
        );
        close(pair.share_a, expected.share_a, &format!("{at} share"));
        close(pair.lower, expected.lower, &format!("{at} lower"));
        close(pair.upper, expected.upper, &format!("{at} upper"));
    }
    assert_eq!(report.models.len(), case.models.len(), "{what}: models");
    for model in &report.models {
        let expected = &case.models[&model.model];
        let at = format!("{what} {}", model.model);
        assert_eq!(
            (model.battles, model.opponents),
            (expected.battles, expected.opponents),
            "{at}"
        );
        close(model.share, expected.share, &format!("{at} share"));
        close(
            model.average_win_rate,
            expected.average_win_rate,
            &format!("{at} average"),
        );
    }
    // Highest average first, those without one last.
    let averages: Vec<f64> = report
        .models
        .iter()
        .map(|m| m.average_win_rate.unwrap_or(f64::NEG_INFINITY))
        .collect();
    assert!(averages.windows(2).all(|w| w[0] >= w[1]), "{what}: order");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn every_pair_and_model_equals_evalica_and_statsmodels() {
    let fixture: Fixture = serde_json::from_str(FIXTURE).unwrap();
    assert_eq!(fixture.cases.len(), 6);
    for case in &fixture.cases {
        let params = WinRatesParams {
            ties: case.ties,
            level: case.level,
        };
        let report = params.tabulate(&battles_of(case)).unwrap();
        check(case, &report);
        assert_eq!(report.battles, battles_of(case).battles.len());
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_edges_are_said_not_printed_as_confident_numbers() {
    let fixture: Fixture = serde_json::from_str(FIXTURE).unwrap();
    let edges = |ties| {
        let case = fixture
            .cases
            .iter()
            .find(|c| c.name == "edges" && c.ties == ties && c.level == 0.95)
            .unwrap();
        let params = WinRatesParams { ties, level: 0.95 };
        params.tabulate(&battles_of(case)).unwrap()
    };
    // A never lost to B: its share is 1, its interval not a point (Wilson, not Wald).
    let half = edges(Ties::Half);
    let ab = half
        .pairs
        .iter()
        .find(|p| p.model_a == "A" && p.model_b == "B")
        .unwrap();
    assert_eq!(ab.share_a, Some(1.0));
    assert!(ab.lower.unwrap() < 0.5 && ab.upper == Some(1.0));
    // D met A only: the design is incomplete, and the report says averages do not compare.
    assert!(!half.complete);
    assert!(
        half.warnings[0].starts_with("3 of 4 models met fewer than all the others"),
        "{:?}",
        half.warnings
    );
    // Ties left out: B and C met only in ties, so their pair has no share, said so; ties as
    // half, the pair is even.
    let excluded = edges(Ties::Excluded);
    let bc = |report: &WinRates| {
        report
            .pairs
            .iter()
            .find(|p| p.model_a == "B" && p.model_b == "C")
            .cloned()
            .unwrap()
    };
    assert_eq!(bc(&excluded).share_a, None);
    assert_eq!(bc(&excluded).counted, 0);
    assert!(excluded.warnings.iter().any(|w| w.starts_with(
        "1 pair(s) met only in ties, which are excluded: their share is not identified"
    )));
    assert_eq!(bc(&half).share_a, Some(0.5));
    assert_eq!(bc(&half).counted, 2);
    assert_eq!(half.warnings.len(), 1);
    assert!(half
        .reading()
        .starts_with("9 battles between 4 models in 4 pairs"));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_registry_kind_runs_the_statistic_on_its_example_and_refuses_bad_settings() {
    let example = Analysis::each_kind()
        .into_iter()
        .find(|a| a.name() == "win_rates")
        .unwrap();
    assert_eq!(
        example.example_inputs(),
        [("battles", "tests/data/llmfao/gpt4-crowd-comparisons.csv")]
    );
    let mut inputs = Inputs::new();
    inputs.insert("battles", "gpt4-crowd-comparisons.csv", GPT4.to_vec());
    let spec = Spec::new(example, &inputs);
    let Report::WinRates(report) = run(&spec, &inputs).unwrap() else {
        panic!("another report");
    };
    let direct = WinRatesParams::default()
        .tabulate(&parse_battles("gpt4-crowd-comparisons.csv", GPT4).unwrap())
        .unwrap();
    assert_eq!(*report, direct);
    // The spec names the kind and its settings in full.
    let json = serde_json::to_value(&spec).unwrap();
    assert_eq!(json["analysis"], "win_rates");
    assert_eq!(json["ties"], "half");
    assert_eq!(json["level"], 0.95);

    for level in [0.0, 1.0, f64::NAN] {
        let params = WinRatesParams {
            ties: Ties::Half,
            level,
        };
        let error = Analysis::WinRates(params).validate().unwrap_err();
        assert!(
            matches!(&error, Error::InvalidParam { name, .. } if *name == "level"),
            "{error}"
        );
    }
    let header_only = parse_battles("empty.csv", b"left,right,winner\n");
    assert!(matches!(header_only, Err(Error::Insufficient(_))));
    let none = Battles {
        models: vec![],
        battles: vec![],
    };
    let error = WinRatesParams::default().tabulate(&none).unwrap_err();
    assert!(matches!(error, Error::Insufficient(_)), "{error}");
}
