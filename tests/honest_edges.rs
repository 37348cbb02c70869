//! The CLI where numbers could look more certain than they are (issue: honest numbers in the
//! hard cases): one judge verdict per key, separation, a join that mostly fails, warnings on
//! stderr, convergence, a closed pipe, the reproducibility record, row order.

use std::collections::HashMap;
use std::process::Command;
use tribunal_e2e::{root, run_tribunal, stdout_json, temp_dir, tribunal_bin};

const CROWD: &str = "tests/data/llmfao/crowd-comparisons.csv";
const GPT4: &str = "tests/data/llmfao/gpt4-crowd-comparisons.csv";

/// The unique-verdict reference: tests/fixtures/llmfao_judge_reference.json, made by
/// make_llmfao_judge_reference.py (numpy Newton and sandwich SEs on 2,139 verdicts).
fn reference() -> serde_json::Value {
    serde_json::from_str(include_str!("fixtures/llmfao_judge_reference.json")).unwrap()
}

fn by_model(board: &serde_json::Value, field: &str) -> HashMap<String, f64> {
    board["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["model"].as_str().unwrap().to_owned(),
                r[field].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_judge_is_fitted_on_one_row_per_verdict_and_humans_on_every_vote() {
    let json = stdout_json(&run_tribunal(&[
        "stats", "soft-elo", "--human", CROWD, "--judge", GPT4, "--key", "id",
    ]));
    assert_eq!(json["n_judge_verdicts"], 2139);
    assert_eq!(json["n_human_battles"], 8931);
    assert_eq!(json["judge"]["n_battles"], 2139);
    assert_eq!(json["human"]["n_battles"], 8931);
    assert_eq!(json["held_out"]["n_judge_verdicts"], 2139);
    let reference = reference();
    let (elo, se) = (
        by_model(&json["judge"], "elo"),
        by_model(&json["judge"], "se"),
    );
    let judge = &reference["judge"];
    for (i, model) in judge["models"].as_array().unwrap().iter().enumerate() {
        let model = model.as_str().unwrap();
        let (e, s) = (
            judge["elo"][i].as_f64().unwrap(),
            judge["se"][i].as_f64().unwrap(),
        );
        assert!(
            (elo[model] - e).abs() < 1e-6,
            "{model}: {} vs {e}",
            elo[model]
        );
        assert!(
            (se[model] - s).abs() < 1e-6,
            "{model}: SE {} vs {s}",
            se[model]
        );
    }
    // GPT-4's SE on 2,139 verdicts (89.3), not on 8,931 copies of them (43.1).
    assert!((se["GPT 4"] - 89.26).abs() < 0.01, "{}", se["GPT 4"]);
    let agreement = &json["agreement"];
    let close = |a: &serde_json::Value, b: &serde_json::Value| {
        (a.as_f64().unwrap() - b.as_f64().unwrap()).abs() < 1e-6
    };
    assert!(close(&agreement["spearman"], &reference["spearman"]));
    assert!(close(&agreement["mae"], &reference["mae"]));
    // Held-out rows count each model's verdicts once.
    let hard = &json["held_out"]["runs"][0]["rows"];
    let total: u64 = hard
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["judge_battles"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 2 * 2139);
}

#[test]
fn a_join_that_mostly_fails_warns_and_leaves_unseen_models_unrated() {
    let dir = temp_dir("thin-judge");
    let judge = dir.join("three-verdicts.csv");
    let text = std::fs::read_to_string(root().join(GPT4)).unwrap();
    let head: Vec<&str> = text.lines().take(4).collect();
    std::fs::write(&judge, head.join("\n") + "\n").unwrap();
    let out = run_tribunal(&[
        "stats",
        "soft-elo",
        "--human",
        CROWD,
        "--judge",
        judge.to_str().unwrap(),
        "--key",
        "id",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = stdout_json(&out);
    let join = &json["join"];
    assert_eq!(join["judge_verdicts"], 3);
    assert_eq!(join["matched_judge_verdicts"], 3);
    assert_eq!(join["human_battles"], 8931);
    let matched = join["matched_human_battles"].as_u64().unwrap();
    assert_eq!(
        join["unmatched_human_battles"].as_u64().unwrap(),
        8931 - matched
    );
    // The three pairs involve five models; the other 54 get no rating, with the reason.
    let models = json["judge"]["n_models"].as_u64().unwrap();
    assert_eq!(json["human"]["n_models"].as_u64().unwrap(), models);
    let unrated = join["unrated_models"].as_array().unwrap();
    assert_eq!(unrated.len() as u64, 59 - models);
    assert!(unrated[0]["reason"]
        .as_str()
        .unwrap()
        .contains("has a judge verdict"));
    assert_eq!(json["agreement"]["n_common"].as_u64().unwrap(), models);
    assert!(json["warnings"][0]
        .as_str()
        .unwrap()
        .starts_with("most of the join failed: matched"));
    assert_eq!(
        stderr.matches("warning: most of the join failed").count(),
        1,
        "{stderr}"
    );
    // No human file model is left at 1500 with an SE of 0.
    let ratings = json["judge"]["ratings"].as_array().unwrap();
    assert!(ratings.iter().all(|r| r["se"] != 0.0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn separated_models_have_no_se_open_intervals_and_say_so_on_stderr() {
    let dir = temp_dir("separation");
    let file = dir.join("ten.csv");
    std::fs::write(
        &file,
        "model_a,model_b,winner\n".to_owned() + &"x,y,model_a\n".repeat(10),
    )
    .unwrap();
    let out = run_tribunal(&["stats", "bt", "--input", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = stdout_json(&out);
    for r in json["ratings"].as_array().unwrap() {
        assert_eq!(r["separation"], "unordered");
        assert!(r["se"].is_null());
        assert!(r["bootstrap"]["lower"].is_null() && r["bootstrap"]["upper"].is_null());
        assert_eq!(
            (
                r["bootstrap"]["rank"].as_u64(),
                r["bootstrap"]["worst_rank"].as_u64()
            ),
            (Some(1), Some(2))
        );
        assert_eq!(r["bootstrap"]["separated_rounds"], 1000);
    }
    assert_eq!(json["ratings"][0]["wins"], 10);
    assert_eq!(json["ratings"][0]["losses"], 0);
    let warnings = json["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2);
    for w in warnings {
        assert!(
            stderr.contains(&format!("warning: {}", w.as_str().unwrap())),
            "{stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_tiny_penalty_converges_and_a_huge_score_does_not_fool_beta() {
    let json = stdout_json(&run_tribunal(&[
        "stats",
        "bt",
        "--input",
        CROWD,
        "--lambda",
        "1e-9",
        "--bootstrap",
        "0",
    ]));
    assert_eq!(json["converged"], true, "{}", json["warnings"]);
    assert!(json["max_abs_gradient"].as_f64().unwrap() < 1e-9);

    // Scored battles with one score of 1e20 on line 5.
    let dir = temp_dir("outlier");
    let file = dir.join("scored.csv");
    let mut text = "model_a,model_b,score,human\n".to_owned();
    let models = ["a", "b", "c", "d"];
    for k in 0..40 {
        let (a, b) = (models[k % 4], models[(k + 1) % 4]);
        let score = if k == 3 { 1e20 } else { (k % 7) as f64 - 3.0 };
        // Labels mostly agree with the score's sign, sometimes not.
        let agree = k % 5 != 0;
        let human = if (score > 0.0) == agree {
            "model_a"
        } else {
            "model_b"
        };
        text.push_str(&format!("{a},{b},{score},{human}\n"));
    }
    std::fs::write(&file, text).unwrap();
    let out = run_tribunal(&["stats", "soft-elo", "--input", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = stdout_json(&out);
    assert_eq!(json["score_outliers"].as_array().unwrap().len(), 1);
    assert_eq!(json["score_outliers"][0]["line"], 5);
    let without = &json["beta_without_outliers"];
    assert_eq!(without["converged"], true);
    assert!(without["beta"].as_f64().unwrap() > 0.0);
    let beta = &json["beta"];
    let gradient = beta["gradient"].as_f64().unwrap();
    assert!(
        beta["converged"] == false || gradient.abs() < 1e-3,
        "converged with gradient {gradient}"
    );
    assert!(stderr.contains("line 5: judge score 1e20"), "{stderr}");
    assert!(stderr.contains("without them"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            // `true` reads nothing and exits at once: the fit's output meets a closed pipe.
            "set -o pipefail; '{}' stats bt --input {CROWD} --bootstrap 0 | true",
            tribunal_bin().display()
        ))
        .current_dir(root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        matches!(out.status.code(), Some(0) | Some(141)),
        "{:?}: {stderr}",
        out.status
    );
}

#[test]
fn every_document_records_version_settings_and_input_hashes() {
    let json = stdout_json(&run_tribunal(&[
        "stats",
        "bt",
        "--input",
        CROWD,
        "--bootstrap",
        "20",
        "--seed",
        "7",
    ]));
    let record = &json["record"];
    assert_eq!(record["tool"]["tool"], "tribunal");
    assert_eq!(record["tool"]["version"], env!("CARGO_PKG_VERSION"));
    // Run as `bt`, the old name: recorded as the spec's name.
    assert_eq!(record["command"], "stats leaderboard");
    assert_eq!(record["settings"]["seed"], "7");
    // Defaults are recorded too.
    assert_eq!(record["settings"]["lambda"], "0.01");
    assert_eq!(record["settings"]["level"], "0.95");
    // The input's SHA-256, as coreutils computes it.
    let sha = Command::new("sha256sum")
        .arg(CROWD)
        .current_dir(root())
        .output()
        .unwrap();
    let digest = String::from_utf8_lossy(&sha.stdout);
    let digest = digest.split_whitespace().next().unwrap();
    assert_eq!(record["inputs"][0]["sha256"], format!("sha256:{digest}"));
    assert_eq!(record["inputs"][0]["path"], CROWD);
    // Built from a checkout: the commit is HEAD's.
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(root())
        .output()
        .unwrap();
    if head.status.success() {
        let head = String::from_utf8_lossy(&head.stdout);
        assert_eq!(record["tool"]["commit"], head.trim());
    }
    // Two files in a study: both recorded.
    let json = stdout_json(&run_tribunal(&[
        "stats",
        "conformal",
        "--human",
        CROWD,
        "--judge",
        GPT4,
        "--key",
        "id",
        "--splits",
        "5",
    ]));
    let paths: Vec<&str> = json["record"]["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, [CROWD, GPT4]);
}

#[test]
fn the_bootstrap_does_not_depend_on_row_order() {
    // The crowd file reversed (so models are numbered in another order): the same intervals.
    let dir = temp_dir("row-order");
    let text = std::fs::read_to_string(root().join(CROWD)).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let header = lines.remove(0);
    lines.reverse();
    let reversed = dir.join("reversed.csv");
    std::fs::write(&reversed, format!("{header}\n{}\n", lines.join("\n"))).unwrap();
    let args = |input: &str| -> serde_json::Value {
        stdout_json(&run_tribunal(&[
            "stats",
            "bt",
            "--input",
            input,
            "--bootstrap",
            "100",
            "--seed",
            "3",
        ]))
    };
    let (a, b) = (args(CROWD), args(reversed.to_str().unwrap()));
    let bounds = |json: &serde_json::Value| -> HashMap<String, (f64, f64)> {
        json["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["model"].as_str().unwrap().to_owned(),
                    (
                        r["bootstrap"]["lower"].as_f64().unwrap(),
                        r["bootstrap"]["upper"].as_f64().unwrap(),
                    ),
                )
            })
            .collect()
    };
    let (a, b) = (bounds(&a), bounds(&b));
    for (model, (lo, hi)) in &a {
        let (lo2, hi2) = b[model];
        assert!(
            (lo - lo2).abs() < 1e-6 && (hi - hi2).abs() < 1e-6,
            "{model}: [{lo}, {hi}] vs [{lo2}, {hi2}]"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
