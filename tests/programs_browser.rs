//! The Programs page in headless Chromium (driver `tests/browser/programs.mjs`): on LLMFAO with
//! GPT-4's verdicts and the bias probes, every program's τ and accuracies, the label model,
//! majority vote and GPT-4 with their intervals, the committee's learned accuracies, the
//! routing table and the bias rates equal `tribunal stats programs` (same seed) to 1e-12; then
//! hostile user programs — an infinite loop, a 1 TiB allocation, a throw, a sometimes-string
//! result, a network probe — abstain with their reasons counted while the page keeps drawing
//! frames, and a well-behaved user program joins the report.

use serde_json::Value;
use tribunal_e2e::{
    app_worker, attr_number, root, run_browser_driver, run_tribunal, stdout_json, temp_dir,
};

fn close(what: &str, ours: &Value, cli: &Value) {
    let (a, b) = (attr_number(ours), cli.as_f64().unwrap_or(f64::NAN));
    assert!(
        (a - b).abs() <= 1e-12 || (a.is_nan() && b.is_nan()),
        "{what}: page {a} vs CLI {b}"
    );
}

#[test]
fn programs_page_equals_the_cli_and_survives_hostile_programs() {
    let worker = app_worker("programs-browser");
    let dir = temp_dir("programs-browser");
    let data = root().join("tests/data/llmfao");
    let (pairs, gpt4, probes) = (
        data.join("pairs.csv"),
        data.join("gpt4-verdicts.csv"),
        data.join("probes.csv"),
    );
    let escalated = dir.join("escalated.csv");
    let cli = stdout_json(&run_tribunal(&[
        "stats",
        "programs",
        "--pairs",
        pairs.to_str().unwrap(),
        "--llm",
        gpt4.to_str().unwrap(),
        "--probes",
        probes.to_str().unwrap(),
        "--seed",
        "7",
        "--budget",
        "0.2",
        "--escalate-out",
        escalated.to_str().unwrap(),
    ]));
    // The small file: the first 150 pairs.
    let mut reader = csv::Reader::from_path(&pairs).unwrap();
    let small = dir.join("small-pairs.csv");
    let mut writer = csv::Writer::from_path(&small).unwrap();
    writer.write_record(reader.headers().unwrap()).unwrap();
    let mut long_responses = 0;
    for record in reader.records().take(150) {
        let record = record.unwrap();
        long_responses += [2, 3]
            .iter()
            .filter(|&&c| record[c].chars().count() > 500)
            .count();
        writer.write_record(&record).unwrap();
    }
    writer.flush().unwrap();
    let screenshot = root().join("target/e2e/programs.png");
    std::fs::create_dir_all(screenshot.parent().unwrap()).unwrap();

    let page = run_browser_driver(
        "programs.mjs",
        [
            std::ffi::OsStr::new(&format!("{}programs", worker.url)),
            pairs.as_os_str(),
            gpt4.as_os_str(),
            probes.as_os_str(),
            small.as_os_str(),
            screenshot.as_os_str(),
        ],
    );

    // 1. LLMFAO, built-in programs: the CLI's numbers.
    let llmfao = &page["llmfao"];
    assert!(llmfao["error"].is_null(), "{}", llmfao["error"]);
    let rows = llmfao["programs"].as_array().unwrap();
    assert_eq!(rows.len(), 10);
    for (row, want) in rows.iter().zip(cli["programs"].as_array().unwrap()) {
        assert_eq!(row["name"], want["name"]);
        close("tau", &row["tau"], &want["tau"]);
        close("accuracy", &row["accuracy"], &want["accuracy"]);
        close(
            "test accuracy",
            &row["testAccuracy"],
            &want["test_accuracy"],
        );
        close("coverage", &row["coverage"], &want["test_coverage"]);
        assert_eq!(row["selected"], want["selected"].to_string());
    }
    let committee = &cli["committee"];
    let aggregates = llmfao["aggregates"].as_array().unwrap();
    assert_eq!(aggregates.len(), 3);
    for row in aggregates {
        let want = &committee[row["aggregate"].as_str().unwrap()];
        for (attr, key) in [
            ("estimate", "estimate"),
            ("lower", "lower"),
            ("upper", "upper"),
        ] {
            close(attr, &row[attr], &want["accuracy"][key]);
        }
        close("coverage", &row["coverage"], &want["coverage"]);
    }
    for (row, want) in llmfao["members"]
        .as_array()
        .unwrap()
        .iter()
        .zip(committee["members"].as_array().unwrap())
    {
        assert_eq!(row["name"], want["name"]);
        close(
            "learned accuracy",
            &row["learned"],
            &want["learned_accuracy"],
        );
    }
    // The misleading headline is said on the page as in the CLI: this label model does worse
    // than majority vote, is not measurably above a coin flip, and weighs programs by
    // accuracies their test pairs contradict.
    let warnings = committee["warnings"].as_array().unwrap();
    assert_eq!(llmfao["committeeWarnings"], committee["warnings"]);
    assert!(warnings[0]
        .as_str()
        .unwrap()
        .starts_with("the label model does worse than majority vote"));
    assert!(warnings.iter().any(|w| w
        .as_str()
        .unwrap()
        .contains(": the label model learnt an accuracy of")));
    let routing = llmfao["routing"].as_array().unwrap();
    assert_eq!(routing.len(), 6);
    for row in routing {
        let curve = committee["routing"]["curves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["signal"] == row["signal"])
            .unwrap();
        for cell in row["cells"].as_array().unwrap() {
            let budget = attr_number(&cell[0]);
            let point = curve["points"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| (p["budget"].as_f64().unwrap() - budget).abs() < 1e-9)
                .unwrap();
            close("routing accuracy", &cell[1], &point["accuracy"]);
        }
    }
    for (row, want) in llmfao["bias"]
        .as_array()
        .unwrap()
        .iter()
        .zip(cli["bias"].as_array().unwrap())
    {
        assert_eq!(row["bias"], want["bias"]);
        close("flip rate", &row["flip"], &want["flip_rate"]["estimate"]);
        if !want["bias_win_rate"].is_null() {
            close(
                "bias win rate",
                &row["win"],
                &want["bias_win_rate"]["estimate"],
            );
        }
    }
    assert_eq!(llmfao["hasPlot"], true);
    // The staged policy at 0.2: the same escalated pairs, offered as the CLI's items CSV.
    assert_eq!(llmfao["escalation"]["escalated"], "428");
    close(
        "merged accuracy",
        &llmfao["escalation"]["estimate"],
        &cli["escalation"]["merged"]["accuracy"]["estimate"],
    );
    assert_eq!(
        llmfao["escalatedCsv"].as_str().unwrap(),
        std::fs::read_to_string(&escalated).unwrap()
    );

    // 2. The cancelled run stopped at once, said so, and left the LLMFAO report on screen.
    let cancelled = &page["cancelled"];
    assert!(cancelled["seconds"].as_f64().unwrap() < 5.0, "{cancelled}");
    assert!(
        cancelled["error"]
            .as_str()
            .unwrap()
            .starts_with("cancelled"),
        "{cancelled}"
    );
    assert_eq!(cancelled["busy"], false);
    assert_eq!(cancelled["summary"], llmfao["summary"]);

    // 3. Hostile programs abstain with reasons; the page keeps drawing frames.
    let hostile = &page["hostile"];
    assert!(hostile["error"].is_null(), "{}", hostile["error"]);
    assert_eq!(
        hostile["userPrograms"],
        serde_json::json!([
            "loops",
            "allocates",
            "throws",
            "sometimes_text",
            "fetches",
            "length"
        ])
    );
    let delays: Vec<f64> = hostile["frameDelays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_f64().unwrap())
        .collect();
    assert!(!delays.is_empty(), "the run was probed while busy");
    let worst = delays.iter().fold(0.0_f64, |m, &d| m.max(d));
    assert!(worst < 1000.0, "a frame took {worst} ms: the page froze");
    let failures = hostile["failures"].as_array().unwrap();
    let failure = |name: &str| failures.iter().find(|f| f["name"] == name).unwrap();
    for f in failures {
        assert_eq!(f["calls"], "300", "{f}");
    }
    let loops = failure("loops");
    assert_eq!(loops["abstained"], "300");
    let why = loops["why"].as_str().unwrap();
    assert!(why.contains("ran past the 200 ms limit ×3"), "{why}");
    assert!(
        why.contains("not run: three timeouts in a row ×297"),
        "{why}"
    );
    let allocates = failure("allocates");
    assert_eq!(allocates["abstained"], "300");
    assert!(
        allocates["why"]
            .as_str()
            .unwrap()
            .contains("threw RangeError ×300"),
        "{allocates}"
    );
    let throws = failure("throws");
    assert!(
        throws["why"].as_str().unwrap().contains("threw Error ×300"),
        "{throws}"
    );
    assert!(throws["examples"].as_str().unwrap().contains("boom"));
    let text = failure("sometimes_text");
    assert_eq!(attr_number(&text["abstained"]), long_responses as f64);
    assert!(text["why"]
        .as_str()
        .unwrap()
        .contains("returned string, not a finite number"));
    // The network APIs are gone: the probe returns 0 everywhere and never abstains.
    assert_eq!(failure("fetches")["abstained"], "0");
    assert_eq!(failure("length")["abstained"], "0");
    let programs = hostile["programs"].as_array().unwrap();
    assert_eq!(programs.len(), 16, "ten built-in and six user programs");
    let length = programs.iter().find(|p| p["name"] == "length").unwrap();
    assert!(attr_number(&length["coverage"]) > 0.0, "{length}");
    let loops_row = programs.iter().find(|p| p["name"] == "loops").unwrap();
    assert_eq!(loops_row["selected"], "false");
    assert_eq!(attr_number(&loops_row["coverage"]), 0.0);
    // A program with no votes has no accuracy: the table says "—", never "undefined".
    let throws_cells = hostile["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "throws")
        .unwrap();
    let shown: Vec<&str> = throws_cells["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(shown.contains(&"—"), "{shown:?}");
    assert!(!shown.iter().any(|c| c.contains("undefined")), "{shown:?}");
    // Code that does not compile was refused when added, before any pair was scored.
    let compile_error = hostile["compileError"].as_str().unwrap();
    assert!(
        compile_error.starts_with("program `broken` does not compile: ")
            && compile_error.ends_with("it was not added"),
        "{compile_error}"
    );
}
