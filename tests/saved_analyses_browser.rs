//! Analyses of several kinds saved from their pages and opened by link (driver:
//! `tests/browser/saved_analyses.mjs`): a judge study (LLMFAO crowd vs GPT-4), an agreement
//! report, an IRT table (a judge under prompt variants, with human ratings), a
//! self-consistency check, an LS calibration whose embeddings come in `.npy` files (binary
//! datasets of the session) and a programs report with a JavaScript program of the user's own
//! (its sandbox scores saved as a dataset), each saved to a session from its page's "Save to
//! session" button, then opened by the analysis URL in a second browser context without the
//! owner token. The report the visitor's browser recomputes equals `tribunal stats run` on the
//! spec and the datasets downloaded from the session (every number to 1e-9 — the IRT fit's
//! parameters to 1e-8, see below — every other value exactly), and the visitor cannot write to
//! the session.

use serde_json::Value;
use tribunal_e2e::{
    app_worker, http, ls_files_with_npy, miscalibrated_ls_files, root, run_browser_driver,
    run_tribunal, stdout_json, temp_dir,
};

/// `ours` and `theirs` hold the same values: numbers to `tol` (relative to their size), the
/// rest exactly; `at` names the place for the message.
fn assert_same(ours: &Value, theirs: &Value, tol: f64, at: &str) {
    match (ours, theirs) {
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            assert!(
                (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs())),
                "{at}: {a} vs {b}"
            );
        }
        (Value::Object(a), Value::Object(b)) => {
            let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(a), keys(b), "{at}: fields");
            for (k, v) in a {
                assert_same(v, &b[k], tol, &format!("{at}.{k}"));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{at}: length");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert_same(x, y, tol, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(ours, theirs, "{at}"),
    }
}

#[test]
fn saved_analyses_of_every_page_reopen_with_the_clis_numbers() {
    let worker = app_worker("saved-analyses-browser");
    let dir = temp_dir("saved-analyses-browser");
    let repeats = dir.join("repeats.csv");
    std::fs::write(
        &repeats,
        "item,criterion,variant,score\nq1,coverage,r1,1\nq1,coverage,r2,1\nq1,coverage,r3,0\n\
         q2,coverage,r1,0\nq2,coverage,r2,1\nq2,coverage,r3,0\nq3,coverage,r1,1\n\
         q3,coverage,r2,1\nq3,coverage,r3,1\n",
    )
    .unwrap();
    let (train, test) = miscalibrated_ls_files(&dir);
    let [train_scores, test_scores, train_npy, test_npy] = ls_files_with_npy(&dir, &train, &test);
    let data = |name: &str| root().join(name);
    let page = run_browser_driver(
        "saved_analyses.mjs",
        [
            worker.url.as_str().as_ref(),
            data("tests/data/llmfao/crowd-comparisons.csv").as_os_str(),
            data("tests/data/llmfao/gpt4-crowd-comparisons.csv").as_os_str(),
            data("tests/fixtures/small-ratings.csv").as_os_str(),
            repeats.as_os_str(),
            train_scores.as_os_str(),
            test_scores.as_os_str(),
            train_npy.as_os_str(),
            test_npy.as_os_str(),
            data("tests/fixtures/small-irt-judge.csv").as_os_str(),
            data("tests/fixtures/small-irt-human.csv").as_os_str(),
            data("tests/data/llmfao/pairs.csv").as_os_str(),
        ],
    );
    assert_eq!(
        page["kinds"],
        serde_json::json!([
            "judge_study",
            "agreement",
            "irt_table",
            "consistency",
            "calibration",
            "programs"
        ])
    );
    assert_eq!(page["visitorWrite"], 403);

    let session_url = page["sessionUrl"].as_str().unwrap();
    let id = session_url.rsplit('/').next().unwrap();
    let session = http(
        worker.authority(),
        "GET",
        &format!("/api/sessions/{id}"),
        &[],
        b"",
    )
    .json();
    for (name, url_key) in [
        ("study", "studyUrl"),
        ("agreement", "agreementUrl"),
        ("irt", "irtUrl"),
        ("consistency", "consistencyUrl"),
        ("calibration", "calibrationUrl"),
        ("programs", "programsUrl"),
    ] {
        let analysis_id = page[url_key].as_str().unwrap().rsplit('/').next().unwrap();
        let saved = session["analyses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == analysis_id)
            .unwrap_or_else(|| panic!("{name}: not in the session"));
        // The spec as the session serves it, and each of its datasets downloaded.
        let spec_path = dir.join(format!("{name}.json"));
        std::fs::write(&spec_path, saved.to_string()).unwrap();
        let mut args = vec![
            "stats".to_owned(),
            "run".to_owned(),
            spec_path.to_str().unwrap().to_owned(),
        ];
        for (role, input) in saved["spec"]["inputs"].as_object().unwrap() {
            let hash = input["hash"].as_str().unwrap();
            let body = http(
                worker.authority(),
                "GET",
                &format!("/api/sessions/{id}/datasets/{hash}"),
                &[],
                b"",
            )
            .body;
            let path = dir.join(format!("{name}-{role}.download"));
            std::fs::write(&path, body).unwrap();
            args.extend(["--input".to_owned(), format!("{role}={}", path.display())]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut cli = stdout_json(&run_tribunal(&args));
        cli.as_object_mut().unwrap().remove("record");
        let visitor = &page["reports"][name];
        assert!(visitor["error"].is_null(), "{name}: {}", visitor["error"]);
        // The GRM's EM stops at its tolerance after many rounds of exp and ln, whose last bits
        // differ between the browser's math library and the system's: its fitted parameters
        // agree to 1e-8 (its reported C_V, ρ, θ_ratio and D_W to 1e-9, reliability_browser.rs);
        // every other analysis to 1e-9.
        let tol = if name == "irt" { 1e-8 } else { 1e-9 };
        assert_same(visitor, &cli, tol, name);
    }
    // The user's program sits among the programs.
    assert!(page["reports"]["programs"]["programs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == "length_ratio"));
    // The study joined the judge with the crowd on the shared `id`s.
    assert!(page["reports"]["study"]["join"]["matched_human_battles"].as_u64() > Some(0));
}
