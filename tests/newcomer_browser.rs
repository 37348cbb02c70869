//! A newcomer's walk in headless Chromium (driver `tests/browser/newcomer.mjs`), at 1280 and
//! 390 px: the home page offers the four jobs; each task's "try it on an example" link opens
//! its page — leaderboard, compare systems, judge vs humans, agreement, calibrate, programs —
//! which loads the bundled example files (LLMFAO's; AlpacaEval's annotations for compare) into
//! its own file inputs and computes the report: the numbers equal the
//! CLI's on the same files with the page's default settings, and the report's opening sentence
//! reads the CLI's numbers; judge runs' example puts LLMFAO's items into its file input.
//! No page scrolls sideways and no page error is raised. At 390 px the walk is keyboard-only:
//! Tab from the home page to each task's example link (the skip link the first stop), Enter,
//! and on the finished report Tab reaches every control shown, each with a label (driven by
//! Playwright's key presses). Regressions: a new bootstrap rounds
//! value refits the leaderboard on screen; the conformal selector and its chart name the same
//! target, after picking one and after a second comparison. Screenshots of every page at both
//! widths go to `target/e2e/newcomer/`.

use serde_json::Value;
use tribunal_e2e::{app_worker, attr_number, root, run_browser_driver, run_tribunal, stdout_json};

fn close(what: &str, page: &Value, cli: &Value) {
    let (ours, theirs) = (attr_number(page), cli.as_f64().unwrap_or(f64::NAN));
    assert!(
        (ours - theirs).abs() <= 1e-9 || (ours.is_nan() && theirs.is_nan()),
        "{what}: page {ours} vs CLI {theirs}"
    );
}

/// Every row's Elo and bootstrap bounds equal the CLI's, in the CLI's order.
fn assert_board(what: &str, rows: &Value, cli: &Value) {
    let (rows, want) = (rows.as_array().unwrap(), cli["ratings"].as_array().unwrap());
    assert_eq!(rows.len(), want.len(), "{what}");
    for (row, want) in rows.iter().zip(want) {
        assert_eq!(row["model"], want["model"], "{what}");
        close(what, &row["elo"], &want["elo"]);
        close(what, &row["lower"], &want["bootstrap"]["lower"]);
        close(what, &row["upper"], &want["bootstrap"]["upper"]);
    }
}

#[test]
fn a_newcomer_walks_every_example_from_the_home_page_to_the_clis_numbers() {
    let worker = app_worker("newcomer");
    let data = root().join("tests/data/llmfao");
    let path = |name: &str| data.join(name).to_str().unwrap().to_owned();
    let (crowd, gpt4, gpt3) = (
        path("crowd-comparisons.csv"),
        path("gpt4-crowd-comparisons.csv"),
        path("gpt3-crowd-comparisons.csv"),
    );
    let board = stdout_json(&run_tribunal(&["stats", "bt", "--input", &crowd]));
    let board200 = stdout_json(&run_tribunal(&[
        "stats",
        "bt",
        "--input",
        &crowd,
        "--bootstrap",
        "200",
    ]));
    let study = stdout_json(&run_tribunal(&[
        "stats", "soft-elo", "--human", &crowd, "--judge", &gpt4, "--key", "id",
    ]));
    let agreement = stdout_json(&run_tribunal(&[
        "stats", "agree", "--input", &crowd, "--item", "id", "--rater", "worker", "--score",
        "winner", "--scale", "nominal", "--judge", &gpt4, "--judge", &gpt3,
    ]));
    let programs = stdout_json(&run_tribunal(&[
        "stats",
        "programs",
        "--pairs",
        &path("pairs.csv"),
        "--llm",
        &path("gpt4-verdicts.csv"),
        "--probes",
        &path("probes.csv"),
    ]));
    let calibration = stdout_json(&run_tribunal(&[
        "stats",
        "calibrate",
        "--head",
        "btl",
        "--train",
        &path("calibration-train.csv"),
        "--test",
        &path("calibration-test.csv"),
        "--train-embeddings",
        &path("calibration-train.npy"),
        "--test-embeddings",
        &path("calibration-test.npy"),
    ]));
    let screenshots = root().join("target/e2e/newcomer");
    std::fs::create_dir_all(&screenshots).unwrap();

    let page = run_browser_driver(
        "newcomer.mjs",
        [std::ffi::OsStr::new(&worker.url), screenshots.as_os_str()],
    );

    for width in ["1280", "390"] {
        let seen = &page["widths"][width];
        let what = |task: &str| format!("{task} at {width} px");
        assert_eq!(
            seen["jobs"],
            serde_json::json!([
                "Publish a leaderboard with intervals",
                "Compare systems on scored answers",
                "Check a judge against humans",
                "Calibrate or audit a judge"
            ]),
            "{width} px"
        );
        for (name, measured) in seen["pageWidths"].as_object().unwrap() {
            assert!(
                measured["page"].as_u64() <= measured["window"].as_u64(),
                "{name} at {width} px scrolls sideways: {measured}"
            );
        }
        assert_eq!(seen["pageWidths"].as_object().unwrap().len(), 8);
        // Compare: AlpacaEval's five models, every pair on both criteria, sliced by source
        // and by length, read out in a sentence.
        let compare = &seen["compare"];
        assert_eq!(
            compare["differences"].as_array().map(Vec::len),
            Some(20),
            "{width} px"
        );
        assert_eq!(
            compare["slices"].as_array().map(Vec::len),
            Some(4),
            "{width} px"
        );
        assert!(
            compare["reading"]
                .as_str()
                .is_some_and(|r| r.contains("shared items")),
            "{width} px: {}",
            compare["reading"]
        );
        // Judge runs: the example's items are in the page's file input, and the page says
        // which judges the worker offers.
        assert_eq!(seen["runs"]["file"], "llmfao-items.csv", "{width} px");
        assert!(seen["runs"]["judges"]["local"].is_string(), "{width} px");

        // Leaderboard: the CLI's ratings and intervals; the reading names the CLI's leader.
        assert_board(&what("leaderboard"), &seen["leaderboard"]["rows"], &board);
        let leader = board["ratings"][0]["model"].as_str().unwrap();
        let reading = seen["leaderboard"]["reading"].as_str().unwrap();
        assert!(reading.starts_with(&format!("{leader} leads")), "{reading}");
        let could_lead = board["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["bootstrap"]["rank"] == 1)
            .count();
        if could_lead > 1 {
            assert!(
                reading.contains(&format!("but {could_lead} models' intervals reach the top")),
                "{reading}"
            );
        }

        // Judge vs humans: the held-out MAE of every target kind; the reading's ρ.
        let runs = study["held_out"]["runs"].as_array().unwrap();
        let held_out = seen["judge"]["heldOut"].as_array().unwrap();
        assert_eq!(held_out.len(), runs.len(), "{}", what("judge"));
        for (row, run) in held_out.iter().zip(runs) {
            assert_eq!(row["target"], run["name"]);
            close(&what("judge"), &row["mae"], &run["mae"]);
        }
        let rho = format!(
            "Spearman ρ = {:.2}",
            study["agreement"]["spearman"].as_f64().unwrap()
        );
        let reading = seen["judge"]["reading"].as_str().unwrap();
        assert!(reading.contains(&rho), "{reading} lacks {rho}");
        // The selector and the chart agree: at first, for each pick, and after a second
        // comparison started from a picked target.
        let shown = seen["judge"]["conformal"].as_array().unwrap();
        assert_eq!(shown.len(), runs.len() + 2, "{}", what("judge"));
        for s in shown {
            let (selected, caption) = (
                s["selected"].as_str().unwrap(),
                s["caption"].as_str().unwrap(),
            );
            assert!(
                caption.starts_with(&format!("{selected}: ")),
                "{}: the selector says {selected}, the chart {caption}",
                what("judge")
            );
        }

        // Agreement: the example set the LLMFAO columns; α and each judge's κ equal the CLI's.
        let rel = &seen["reliability"];
        assert_eq!(
            rel["columns"],
            serde_json::json!(["id", "worker", "winner"])
        );
        let alpha = &agreement["group"]["reading"]["interval"];
        close(&what("α"), &rel["alpha"]["alpha"], &alpha["estimate"]);
        close(&what("α lower"), &rel["alpha"]["lower"], &alpha["lower"]);
        close(&what("α upper"), &rel["alpha"]["upper"], &alpha["upper"]);
        let reading = rel["reading"].as_str().unwrap();
        let alpha_words = format!(
            "The {} raters agree with each other at α = {:.2}",
            agreement["n_raters"],
            alpha["estimate"].as_f64().unwrap()
        );
        assert!(reading.starts_with(&alpha_words), "{reading}");
        let judges = rel["judges"].as_array().unwrap();
        assert_eq!(judges.len(), 2);
        for want in agreement["judges"].as_array().unwrap() {
            let row = judges
                .iter()
                .find(|j| j["rater"] == want["rater"])
                .unwrap_or_else(|| panic!("{} lacks {}", what("agreement"), want["rater"]));
            let kappa = &want["agreement"]["kappa"]["interval"];
            close(&what("κ"), &row["kappa"], &kappa["estimate"]);
            close(&what("κ lower"), &row["lower"], &kappa["lower"]);
            close(&what("κ upper"), &row["upper"], &kappa["upper"]);
        }

        // Calibrate: a BTL head; the CLI's γ and every metric of the head and the judge.
        let cal = &seen["calibrate"];
        assert!(cal["error"].is_null(), "{}", cal["error"]);
        assert_eq!(cal["head"], "btl");
        close(
            &what("γ"),
            &cal["gamma"],
            &calibration["cv"]["chosen_gamma"],
        );
        let mut metrics = 0;
        for table in ["regression", "classification"] {
            for row in cal[table].as_array().unwrap() {
                let m = &calibration[table][row["metric"].as_str().unwrap()];
                close(&what("head"), &row["head"], &m["head"]["estimate"]);
                close(&what("base"), &row["base"], &m["base"]["estimate"]);
                metrics += 1;
            }
        }
        assert!(metrics > 0, "{}: no metrics shown", what("calibrate"));
        let mse = &calibration["regression"]["mse"];
        let reading = cal["reading"].as_str().unwrap();
        let expected = format!(
            "On the 300 test rows the head's mean squared error is {:.3} against the judge's {:.3}",
            mse["head"]["estimate"].as_f64().unwrap(),
            mse["base"]["estimate"].as_f64().unwrap()
        );
        assert!(reading.starts_with(&expected), "{reading}");
        // The head is better than GPT-4's hard verdicts, clearly: its interval is below 0.
        assert!(mse["difference"]["upper"].as_f64().unwrap() < 0.0);
        assert!(
            reading.contains("the difference is clear of zero"),
            "{reading}"
        );

        // Programs: every built-in program's τ and accuracies; the committee's aggregates.
        let prog = &seen["programs"];
        assert!(prog["error"].is_null(), "{}", prog["error"]);
        let rows = prog["programs"].as_array().unwrap();
        let want_rows = programs["programs"].as_array().unwrap();
        assert_eq!(rows.len(), want_rows.len(), "{}", what("programs"));
        for (row, want) in rows.iter().zip(want_rows) {
            assert_eq!(row["name"], want["name"]);
            close(&what("τ"), &row["tau"], &want["tau"]);
            close(&what("accuracy"), &row["accuracy"], &want["accuracy"]);
            close(
                &what("test accuracy"),
                &row["testAccuracy"],
                &want["test_accuracy"],
            );
        }
        let reading = prog["reading"].as_str().unwrap();
        let label_model = format!(
            "is right on {:.3} of the {} labelled test pairs",
            programs["committee"]["label_model"]["accuracy"]["estimate"]
                .as_f64()
                .unwrap(),
            programs["committee"]["test_labelled"]
        );
        assert!(reading.contains(&label_model), "{reading}");
        let aggregates = prog["aggregates"].as_array().unwrap();
        assert_eq!(aggregates.len(), 3, "{}", what("programs"));
        for row in aggregates {
            let want = &programs["committee"][row["aggregate"].as_str().unwrap()];
            for bound in ["estimate", "lower", "upper"] {
                close(
                    &what("aggregate accuracy"),
                    &row[bound],
                    &want["accuracy"][bound],
                );
            }
        }
    }

    // A changed setting under the agreement report: flagged stale, then recomputed with it.
    let rel = &page["widths"]["1280"]["reliability"];
    assert_eq!(rel["staleShown"], true);
    assert_eq!(rel["staleAfterCompute"], false);
    let after = rel["summaryAfter"].as_str().unwrap();
    assert!(after.contains("bootstrap: 50 rounds"), "{after}");

    // Keyboard only: the skip link first, then Tab to the example and Enter to its leaderboard.
    let desktop = &page["widths"]["1280"];
    assert_eq!(desktop["firstTabStop"], "Skip to content");
    assert_eq!(desktop["keyboardReachedExample"], true);
    assert_eq!(
        desktop["keyboardRows"],
        board["ratings"].as_array().unwrap().len()
    );

    // Keyboard only at 390 px, each task from the home page: Tab reached the example link, and
    // on the finished report every control shown was reached by Tab and has a label.
    let tasks = page["keyboard"].as_object().unwrap();
    assert_eq!(tasks.len(), 7, "{tasks:?}");
    for (task, reach) in tasks {
        assert!(reach["controls"].as_u64().unwrap() > 0, "{task}: {reach}");
        assert_eq!(
            reach["missed"],
            serde_json::json!([]),
            "{task}: Tab never reached these"
        );
        assert_eq!(
            reach["unlabelled"],
            serde_json::json!([]),
            "{task}: controls without a label"
        );
    }

    // A new rounds value refitted the leaderboard: the CLI's numbers with 200 rounds.
    assert_board(
        "leaderboard after 200 rounds",
        &page["widths"]["1280"]["leaderboard"]["rounds200"],
        &board200,
    );
}
