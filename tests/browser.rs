//! The whole slice in headless Chromium: the real worker serves the Trunk-built app; the page
//! receives the demo WebSocket stream; uploading the LLMFAO crowd CSV shows the same ratings
//! and the same seeded bootstrap intervals as `tribunal stats bt` (≤ 1e-9 Elo), computed in web
//! workers with a progress bar; the GPT-4-vs-crowd study shows the same held-out MAEs as
//! `tribunal stats soft-elo`; a malformed upload shows the located error and keeps the previous
//! leaderboard. The driver is `tests/browser/leaderboard.mjs` (playwright-core).

use tribunal_e2e::{
    app_worker, attr_number, root, run_browser_driver, run_tribunal, stdout_json, temp_dir,
};

#[test]
fn upload_fits_in_the_browser_like_the_cli() {
    let worker = app_worker("browser");
    let crowd = root().join("tests/data/llmfao/crowd-comparisons.csv");
    let judge = root().join("tests/data/llmfao/gpt4-crowd-comparisons.csv");
    let (crowd_arg, judge_arg) = (crowd.to_str().unwrap(), judge.to_str().unwrap());
    let cli = stdout_json(&run_tribunal(&["stats", "bt", "--input", crowd_arg]));
    let study = stdout_json(&run_tribunal(&[
        "stats", "soft-elo", "--human", crowd_arg, "--judge", judge_arg, "--key", "id",
    ]));
    let scored = root().join("shared/tests/fixtures/scored-arena.csv");
    let scored_study = stdout_json(&run_tribunal(&[
        "stats",
        "soft-elo",
        "--input",
        scored.to_str().unwrap(),
    ]));

    let dir = temp_dir("browser");
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "left,right,winner\nA,B,left\nA,B,maybe\n").unwrap();
    // Latin-1 "é" (0xe9) on line 3: not UTF-8.
    let latin1 = dir.join("latin1.csv");
    std::fs::write(&latin1, b"left,right,winner\nA,B,left\nA,Caf\xe9,left\n").unwrap();
    // The same malformed row after CRLF line ends: still line 3.
    let crlf_bad = dir.join("crlf-bad.csv");
    std::fs::write(&crlf_bad, "left,right,winner\r\nA,B,left\r\nA,B,maybe\r\n").unwrap();
    let screenshot = root().join("target/e2e/leaderboard.png");
    std::fs::create_dir_all(screenshot.parent().unwrap()).unwrap();
    // a, b, c beat each other around a cycle; `top` never loses.
    let separated = dir.join("separated.csv");
    let mut text = "model_a,model_b,winner\n".to_owned();
    for _ in 0..10 {
        text.push_str(
            "a,b,model_a\nb,c,model_a\nc,a,model_a\nb,a,model_a\ntop,a,model_a\nc,top,model_b\n",
        );
    }
    std::fs::write(&separated, text).unwrap();
    // A judge file with three verdicts: the join with the crowd mostly fails.
    let thin_judge = dir.join("thin-judge.csv");
    let judge_text = std::fs::read_to_string(&judge).unwrap();
    std::fs::write(
        &thin_judge,
        judge_text.lines().take(4).collect::<Vec<_>>().join("\n") + "\n",
    )
    .unwrap();

    let page = run_browser_driver(
        "leaderboard.mjs",
        [
            std::ffi::OsStr::new(&worker.url),
            crowd.as_os_str(),
            judge.as_os_str(),
            scored.as_os_str(),
            bad.as_os_str(),
            latin1.as_os_str(),
            screenshot.as_os_str(),
            separated.as_os_str(),
            thin_judge.as_os_str(),
            crlf_bad.as_os_str(),
        ],
    );

    // The WebSocket demo reached the page: 40 events and the closing message.
    assert_eq!(page["liveCount"], 40);
    assert!(page["liveStatus"]
        .as_str()
        .unwrap()
        .contains("demo finished: 40 events"));

    // Every row equals the CLI's, in the same order, to 1e-9 Elo: rating and bootstrap bounds
    // (same default seed and rounds; the page split the rounds across two web workers).
    let rows = page["rows"].as_array().unwrap();
    let expected = cli["ratings"].as_array().unwrap();
    assert_eq!(rows.len(), expected.len());
    for (row, want) in rows.iter().zip(expected) {
        assert_eq!(row["model"], want["model"]);
        let elo = attr_number(&row["elo"]);
        assert!(
            (elo - want["elo"].as_f64().unwrap()).abs() <= 1e-9,
            "{}: page {elo} vs CLI {}",
            want["model"],
            want["elo"]
        );
        for bound in ["lower", "upper"] {
            let (ours, cli) = (
                attr_number(&row[bound]),
                want["bootstrap"][bound].as_f64().unwrap(),
            );
            assert!(
                (ours - cli).abs() <= 1e-9,
                "{}: {bound} page {ours} vs CLI {cli}",
                want["model"]
            );
        }
    }
    // 3471 ties: counted independently with Python's csv module.
    let summary = page["summary"].as_str().unwrap();
    assert_eq!(
        summary.split(" · ").nth(1),
        Some("8931 battles (3471 ties)")
    );
    assert!(
        summary.contains("bootstrap: 1000 rounds, seed 0, 95% percentile CIs (1000 converged)"),
        "{summary}"
    );
    assert_eq!(
        page["sawProgress"], true,
        "the bootstrap showed its progress"
    );

    // The judge study equals the CLI's: held-out MAE per target kind, and the agreement line.
    let runs = study["held_out"]["runs"].as_array().unwrap();
    let held_out = page["heldOut"].as_array().unwrap();
    assert_eq!(held_out.len(), runs.len());
    for (row, run) in held_out.iter().zip(runs) {
        assert_eq!(row["target"], run["name"]);
        assert!((attr_number(&row["mae"]) - run["mae"].as_f64().unwrap()).abs() <= 1e-9);
    }
    let study_summary = page["studySummary"].as_str().unwrap();
    let rho = format!(
        "Spearman ρ = {:.3}",
        study["agreement"]["spearman"].as_f64().unwrap()
    );
    assert!(study_summary.contains(&rho), "{study_summary} lacks {rho}");
    assert_eq!(page["sideBySide"], 59, "both leaderboards, model by model");

    // With judge scores: β's MLE and the reliability diagram, as the CLI computes them.
    let beta = format!(
        "β = {:.4} ± {:.4}",
        scored_study["beta"]["beta"].as_f64().unwrap(),
        scored_study["beta"]["se"].as_f64().unwrap()
    );
    assert!(
        page["beta"].as_str().unwrap().starts_with(&beta),
        "{} vs {beta}",
        page["beta"]
    );
    let ece = format!(
        "ECE = {:.4}",
        scored_study["calibration"]["ece"].as_f64().unwrap()
    );
    assert!(
        page["reliability"].as_str().unwrap().contains(&ece),
        "{} vs {ece}",
        page["reliability"]
    );

    // The malformed upload is located, and the previous leaderboard (with intervals) stays.
    let error = page["errorText"].as_str().unwrap();
    assert!(
        error.contains("bad.csv, line 3, column 3 (`winner`)") && error.contains("found `maybe`"),
        "{error}"
    );
    assert_eq!(page["rowsAfterError"], page["rows"]);
    // CRLF: the page and the CLI name line 3, the line an editor shows.
    let crlf_error = page["crlfError"].as_str().unwrap();
    assert!(
        crlf_error.contains("crlf-bad.csv, line 3, column 3 (`winner`)"),
        "{crlf_error}"
    );
    let cli_crlf = run_tribunal(&["stats", "bt", "--input", crlf_bad.to_str().unwrap()]);
    let cli_crlf_error = String::from_utf8_lossy(&cli_crlf.stderr);
    assert!(
        !cli_crlf.status.success() && cli_crlf_error.contains("line 3, column 3 (`winner`)"),
        "{cli_crlf_error}"
    );
    assert_eq!(
        page["latin1Error"],
        "latin1.csv, line 3: expected UTF-8 text, found the byte 0xe9"
    );

    // Anchored at Elo 1000, the second model sits at 1000 with a zero-width interval, every
    // other rating keeps its difference to it, and the summary says so.
    let anchor = page["anchorModel"].as_str().unwrap();
    let anchored = page["anchoredRows"].as_array().unwrap();
    assert_eq!(anchored.len(), rows.len());
    let anchor_elo = attr_number(&rows[1]["elo"]);
    for (plain, row) in rows.iter().zip(anchored) {
        assert_eq!(plain["model"], row["model"]);
        let shifted = attr_number(&plain["elo"]) - anchor_elo + 1000.0;
        assert!((attr_number(&row["elo"]) - shifted).abs() <= 1e-6, "{row}");
        if row["model"] == anchor {
            assert_eq!(
                (attr_number(&row["lower"]), attr_number(&row["upper"])),
                (1000.0, 1000.0)
            );
        } else {
            assert!(
                attr_number(&row["lower"]) < attr_number(&row["upper"]),
                "{row}"
            );
        }
    }
    let anchored_summary = page["anchoredSummary"].as_str().unwrap();
    assert!(
        anchored_summary.contains(&format!("anchored: {anchor} at Elo 1000")),
        "{anchored_summary}"
    );
    assert!(screenshot.is_file());

    // The separated model: no SE, an interval open above, and the warning beside the table, as
    // the CLI says it.
    let cli_separated = stdout_json(&run_tribunal(&[
        "stats",
        "bt",
        "--input",
        separated.to_str().unwrap(),
    ]));
    let top = page["separatedRows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["model"] == "top")
        .unwrap();
    assert_eq!(top["se"], "—");
    assert_eq!(top["upper"], "Infinity");
    assert!(top["ci"].as_str().unwrap().ends_with("– ∞"), "{top}");
    let warnings: Vec<&str> = page["separatedWarnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    for w in cli_separated["warnings"].as_array().unwrap() {
        assert!(
            warnings.contains(&w.as_str().unwrap()),
            "{w} not in {warnings:?}"
        );
    }
    assert!(warnings.iter().any(|w| w.contains("`top` is separated")));
    // The thin join: the study shows the CLI's join warnings.
    let cli_thin = stdout_json(&run_tribunal(&[
        "stats",
        "soft-elo",
        "--human",
        crowd_arg,
        "--judge",
        thin_judge.to_str().unwrap(),
        "--key",
        "id",
    ]));
    let shown: Vec<&str> = page["studyWarnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    for w in cli_thin["warnings"].as_array().unwrap() {
        assert!(shown.contains(&w.as_str().unwrap()), "{w} not in {shown:?}");
    }
}
