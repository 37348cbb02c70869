//! The LLMFAO study (`tribunal study`) regenerated on a fresh store from the judgments kept
//! beside its report (`docs/llmfao-study/judgments/`): nothing is judged again, the report and
//! its figures equal the committed ones byte for byte — the study is deterministic and the
//! committed report is this code's — and its session, stored in the store a worker serves,
//! opens by the URL the report names in a visitor's browser, which recomputes every analysis
//! to the study's own numbers (driver: `tests/browser/study.mjs`).

use serde_json::Value;
use tribunal_e2e::{
    app_worker, assert_same, root, run_browser_driver, run_tribunal, session_view, temp_dir,
};

/// The analyses of the study, in the order the report and the session list them.
const ANALYSES: [(&str, &str); 18] = [
    ("crowd-leaderboard", "leaderboard"),
    ("gpt4-leaderboard", "leaderboard"),
    ("smollm2-leaderboard", "leaderboard"),
    ("smollm2-study", "judge_study"),
    ("gpt4-study", "judge_study"),
    ("calibration", "calibration"),
    ("agreement", "agreement"),
    ("position", "position"),
    ("aa", "aa"),
    ("programs", "programs"),
    ("gpt4-ppi", "ppi"),
    ("smollm2-ppi", "ppi"),
    ("gpt4-value", "judge_value"),
    ("gpt4-sample-value", "judge_value"),
    ("smollm2-value", "judge_value"),
    ("crowd-style", "style"),
    ("gpt4-style", "style"),
    ("self-preference", "self_preference"),
];

#[test]
fn the_study_regenerates_from_its_kept_judgments_and_its_session_opens_by_url() {
    let worker = app_worker("study");
    let dir = temp_dir("study");
    let committed = root().join("docs/llmfao-study");
    let kept = dir.join("llmfao-study/judgments");
    std::fs::create_dir_all(&kept).unwrap();
    for entry in std::fs::read_dir(committed.join("judgments")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, kept.join(path.file_name().unwrap())).unwrap();
    }
    let report = dir.join("llmfao-study.md");
    let out = run_tribunal(&[
        "study",
        "--report",
        report.to_str().unwrap(),
        "--work-dir",
        "target/llmfao-study",
        "--data-dir",
        worker.data_dir.to_str().unwrap(),
        "--device",
        "cpu",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Every run's judgments came from the kept files; none was judged.
    for run in ["main", "orders", "repeats"] {
        let kept = format!("run `{run}`: the ");
        let line = stderr
            .lines()
            .find(|l| l.contains(&kept))
            .unwrap_or_default();
        assert!(
            line.contains(&format!("judgments/{run}.jsonl.gz match this run")),
            "{stderr}"
        );
    }
    assert!(!stderr.contains("judging anew"), "{stderr}");

    // The report and its figures, byte for byte.
    let text = std::fs::read_to_string(&report).unwrap();
    assert_eq!(
        text,
        std::fs::read_to_string(root().join("docs/llmfao-study.md")).unwrap(),
        "the committed report is not what this code writes from the kept judgments: rerun `bash scripts/study.sh`"
    );
    let figures = std::fs::read_dir(committed.join("figures")).unwrap();
    let mut n_figures = 0;
    for entry in figures {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        assert_eq!(
            std::fs::read(dir.join("llmfao-study/figures").join(name)).unwrap(),
            std::fs::read(&path).unwrap(),
            "{}",
            path.display()
        );
        n_figures += 1;
    }
    assert_eq!(n_figures, 4);
    // The bundled judge's gauge the app compiles in is this study's.
    assert_eq!(
        std::fs::read_to_string(dir.join("llmfao-study/smollm2-value.json")).unwrap(),
        std::fs::read_to_string(committed.join("smollm2-value.json")).unwrap(),
    );

    // The session the report names is in the worker's store.
    let at = text.find("/s/").expect("the report names its session");
    let id = &text[at + 3..at + 35];
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    let view = session_view(&worker, id);
    let saved: Vec<&str> = view["analyses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(saved, ANALYSES.map(|(id, _)| id));
    assert_eq!(view["runs"].as_array().unwrap().len(), 3);

    // A visitor's browser recomputes each analysis from the session to the study's numbers.
    let page = run_browser_driver("study.mjs", [format!("{}s/{id}", worker.url)]);
    assert_eq!(
        page["title"],
        "LLMFAO study: SmolLM2-135M as a judge, against the crowd and GPT-4"
    );
    let reports = page["reports"].as_array().unwrap();
    assert_eq!(reports.len(), ANALYSES.len());
    for ((analysis, kind), shown) in ANALYSES.iter().zip(reports) {
        assert_eq!(shown["kind"], *kind, "{analysis}: {shown}");
        assert!(shown["error"].is_null(), "{analysis}: {}", shown["error"]);
        let ours: Value = serde_json::from_str(
            &std::fs::read_to_string(
                root().join(format!("target/llmfao-study/reports/{analysis}.json")),
            )
            .unwrap(),
        )
        .unwrap();
        if *kind == "leaderboard" {
            assert_same_board(&shown["table"], &ours, analysis);
            continue;
        }
        // The browser's `exp` and `ln` are not the native ones: the BTL head's logistic fits
        // (384 dimensions, each stopping at its tolerance) agree to fewer digits.
        // A PPI bootstrap round near separation leaves θ free in its 8th digit.
        let tol = match *kind {
            "calibration" => 1e-6,
            "ppi" => 1e-7,
            _ => 1e-9,
        };
        assert_same(&shown["report"], &ours, tol, analysis);
    }
}

/// The page's leaderboard rows (model, Elo and bootstrap bounds as text, an open side as
/// `±Infinity`) are the report's ratings in order, to 1e-9.
fn assert_same_board(table: &Value, report: &Value, at: &str) {
    let rows = table.as_array().unwrap();
    let ratings = report["ratings"].as_array().unwrap();
    assert_eq!(rows.len(), ratings.len(), "{at}: rows");
    let close = |page: &Value, ours: &Value, open: f64, what: &str| {
        let shown: f64 = page.as_str().unwrap().parse().unwrap();
        let expected = ours.as_f64().unwrap_or(open);
        assert!(
            shown == expected || (shown - expected).abs() <= 1e-9 * (1.0 + expected.abs()),
            "{at}: {what}: page {shown}, study {expected}"
        );
    };
    for (row, rating) in rows.iter().zip(ratings) {
        assert_eq!(row["model"], rating["model"], "{at}");
        close(&row["elo"], &rating["elo"], f64::NAN, "elo");
        close(
            &row["lower"],
            &rating["bootstrap"]["lower"],
            f64::NEG_INFINITY,
            "lower",
        );
        close(
            &row["upper"],
            &rating["bootstrap"]["upper"],
            f64::INFINITY,
            "upper",
        );
    }
}
