//! The whole slice in headless Chromium: the real worker serves the Trunk-built app; the page
//! receives the demo WebSocket stream; uploading the LLMFAO crowd CSV shows the same ratings as
//! `tribunal stats bt` (≤ 1e-9 Elo); a malformed upload shows the located error and keeps the
//! previous leaderboard. The driver is `tests/browser/leaderboard.mjs` (playwright-core).

use std::process::Command;
use tribunal_e2e::{root, run_tribunal, stdout_json, temp_dir, Worker};

#[test]
fn upload_fits_in_the_browser_like_the_cli() {
    let dist = root().join("dist");
    assert!(
        dist.join("index.html").is_file(),
        "the app is not built: run `trunk build --release` at the repository root first"
    );
    let worker = Worker::start("browser", &dist);
    let crowd = root().join("tests/data/llmfao/crowd-comparisons.csv");
    let cli = stdout_json(&run_tribunal(&[
        "stats",
        "bt",
        "--input",
        crowd.to_str().unwrap(),
    ]));

    let dir = temp_dir("browser");
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "left,right,winner\nA,B,left\nA,B,maybe\n").unwrap();
    let screenshot = root().join("target/e2e/leaderboard.png");
    std::fs::create_dir_all(screenshot.parent().unwrap()).unwrap();

    let output = Command::new("node")
        .arg(root().join("tests/browser/leaderboard.mjs"))
        .arg(&worker.url)
        .arg(&crowd)
        .arg(&bad)
        .arg(&screenshot)
        .current_dir(root())
        .output()
        .expect("running node (is Node.js installed? run scripts/setup.sh)");
    assert!(
        output.status.success(),
        "browser driver failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let page: serde_json::Value = serde_json::from_slice(&output.stdout).expect("driver JSON");
    assert_eq!(
        page["pageErrors"],
        serde_json::json!([]),
        "no uncaught page errors"
    );

    // The WebSocket demo reached the page: 40 events and the closing message.
    assert_eq!(page["liveCount"], 40);
    assert!(page["liveStatus"]
        .as_str()
        .unwrap()
        .contains("demo finished: 40 events"));

    // Every row equals the CLI's, in the same order, to 1e-9 Elo.
    let rows = page["rows"].as_array().unwrap();
    let expected = cli["ratings"].as_array().unwrap();
    assert_eq!(rows.len(), expected.len());
    for (row, want) in rows.iter().zip(expected) {
        assert_eq!(row["model"], want["model"]);
        let elo: f64 = row["elo"].as_str().unwrap().parse().unwrap();
        let diff = (elo - want["elo"].as_f64().unwrap()).abs();
        assert!(
            diff <= 1e-9,
            "{}: page {elo} vs CLI {}",
            want["model"],
            want["elo"]
        );
    }
    // 3471 ties: counted independently with Python's csv module.
    assert_eq!(
        page["summary"].as_str().unwrap().split(" · ").nth(1),
        Some("8931 battles (3471 ties)")
    );

    // The malformed upload is located, and the previous leaderboard stays.
    let error = page["errorText"].as_str().unwrap();
    assert!(
        error.contains("bad.csv, line 3, column 3 (`winner`)") && error.contains("found `maybe`"),
        "{error}"
    );
    assert_eq!(page["rowsAfterError"], page["rows"]);
    assert!(screenshot.is_file());
}
