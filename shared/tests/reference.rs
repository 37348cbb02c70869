//! Bradley–Terry against choix (committed fixture, `fixtures/make_bt_reference.py`).
//! Runs natively under `cargo test` and in headless Chromium under
//! `cargo test --target wasm32-unknown-unknown`.

use serde::Deserialize;
use tribunal::rankings::battles::parse_battles;
use tribunal::rankings::bradley_terry::BradleyTerryParams;
use tribunal::rankings::leaderboard::bradley_terry_leaderboard;

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    csv: String,
    lambda: f64,
    n_battles: usize,
    models: Vec<String>,
    theta: Vec<f64>,
}

const FIXTURE: &str = include_str!("fixtures/bt_reference.json");

fn csv_bytes(path: &str) -> &'static [u8] {
    match path {
        "shared/tests/fixtures/small-arena.csv" => include_bytes!("fixtures/small-arena.csv"),
        "tests/data/llmfao/crowd-comparisons.csv" => {
            include_bytes!("../../tests/data/llmfao/crowd-comparisons.csv")
        }
        "tests/data/llmfao/gpt4-crowd-comparisons.csv" => {
            include_bytes!("../../tests/data/llmfao/gpt4-crowd-comparisons.csv")
        }
        other => panic!("fixture names an unknown CSV {other}"),
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn bradley_terry_equals_choix() {
    let fixture: Fixture = serde_json::from_str(FIXTURE).unwrap();
    assert_eq!(fixture.cases.len(), 4);
    for case in &fixture.cases {
        let battles = parse_battles(&case.csv, csv_bytes(&case.csv)).unwrap();
        assert_eq!(battles.battles.len(), case.n_battles, "{}", case.name);
        let params = BradleyTerryParams {
            lambda: case.lambda,
            ..Default::default()
        };
        let lb = bradley_terry_leaderboard(&case.csv, &battles, &params).unwrap();
        assert!(lb.converged, "{}", case.name);
        assert_eq!(lb.n_models, case.models.len());
        for (model, &theta) in case.models.iter().zip(&case.theta) {
            let row = lb.ratings.iter().find(|r| &r.model == model).unwrap();
            let tolerance = 1e-6 * theta.abs().max(1.0);
            assert!(
                (row.theta - theta).abs() <= tolerance,
                "{}: {model}: ours {} choix {theta}",
                case.name,
                row.theta
            );
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn malformed_upload_names_line_and_column() {
    let err = parse_battles("upload.csv", b"left,right,winner\nA,B,left\nA,B,maybe\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "upload.csv, line 3, column 3 (`winner`): expected `left`, `right` or `tie`, found `maybe`"
    );
}
