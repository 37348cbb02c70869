//! `tribunal stats bt` as a user runs it: JSON out, located errors and exit status 1 on bad input.

use tribunal_e2e::{run_tribunal, stdout_json, temp_dir};

const CROWD: &str = "tests/data/llmfao/crowd-comparisons.csv";

#[test]
fn bt_on_llmfao_crowd_prints_the_leaderboard_as_json() {
    let json = stdout_json(&run_tribunal(&["stats", "bt", "--input", CROWD]));
    assert_eq!(json["statistic"], "bradley_terry");
    assert_eq!(json["n_battles"], 8931);
    assert_eq!(json["n_models"], 59);
    assert_eq!(json["converged"], true);
    assert_eq!(json["settings"]["lambda"], 0.01);
    let ratings = json["ratings"].as_array().unwrap();
    assert_eq!(ratings.len(), 59);
    let elo: Vec<f64> = ratings.iter().map(|r| r["elo"].as_f64().unwrap()).collect();
    assert!(elo.windows(2).all(|w| w[0] >= w[1]), "sorted by Elo");
    // Mean θ is 0 at the L2-penalised optimum, so mean Elo is 1500.
    let mean = elo.iter().sum::<f64>() / elo.len() as f64;
    assert!((mean - 1500.0).abs() < 1e-9, "{mean}");
    // Against choix (shared/tests/fixtures/bt_reference.json), top model and its rating.
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("../shared/tests/fixtures/bt_reference.json")).unwrap();
    let case = fixture["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "llmfao-crowd")
        .unwrap();
    let models = case["models"].as_array().unwrap();
    let ref_elo = case["elo"].as_array().unwrap();
    for r in ratings {
        let i = models.iter().position(|m| m == &r["model"]).unwrap();
        let diff = (r["elo"].as_f64().unwrap() - ref_elo[i].as_f64().unwrap()).abs();
        assert!(
            diff < 1e-4,
            "{}: differs from choix by {diff} Elo",
            r["model"]
        );
    }
}

#[test]
fn settings_change_the_fit_and_are_echoed() {
    let json = stdout_json(&run_tribunal(&[
        "stats", "bt", "--input", CROWD, "--lambda", "1",
    ]));
    assert_eq!(json["settings"]["lambda"], 1.0);
    let top = json["ratings"][0]["elo"].as_f64().unwrap();
    let default = stdout_json(&run_tribunal(&["stats", "bt", "--input", CROWD]));
    assert!(
        top < default["ratings"][0]["elo"].as_f64().unwrap(),
        "more shrinkage"
    );
}

#[test]
fn malformed_input_is_located_and_fails() {
    let dir = temp_dir("cli-bad");
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "left,right,winner\nA,B,left\nA,B,maybe\n").unwrap();
    let out = run_tribunal(&["stats", "bt", "--input", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.csv, line 3, column 3 (`winner`): expected `left`, `right` or `tie`, found `maybe`"),
        "{err}"
    );

    let out = run_tribunal(&["stats", "bt", "--input", "no/such/file.csv"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("reading no/such/file.csv"));

    let out = run_tribunal(&["stats", "bt", "--input", CROWD, "--lambda", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid setting `lambda`"));
}
