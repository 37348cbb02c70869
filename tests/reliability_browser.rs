//! The Reliability page in headless Chromium: the real worker serves the Trunk-built app;
//! LLMFAO's crowd votes with the GPT-4 and GPT-3.5 judge files show Krippendorff's α of the 124
//! crowd workers and each judge's κ against the crowd majority, with bootstrap intervals, equal
//! to `tribunal stats agree` (same default seed and rounds) to 1e-9, and the same tied-majority
//! count, bands, percent agreement and confusion matrices; a malformed ratings file shows the
//! located error and keeps the previous report. A judge under prompt variants with human ratings
//! shows the IRT table with the C_V, ρ, θ_ratio and D_W of `tribunal stats irt` (to 1e-9) and
//! the seed 003 highlight (C_V ≤ 0.10 and ρ ≥ 0.70). The driver is `tests/browser/reliability.mjs`
//! (playwright-core).

use serde_json::Value;
use tribunal_e2e::{
    app_worker, attr_number, root, run_browser_driver, run_tribunal, sliced_agreement_files,
    stdout_json, temp_dir,
};

fn assert_close(page: &Value, cli: &Value, what: &str) {
    let (ours, theirs) = (attr_number(page), cli.as_f64().expect("a CLI number"));
    assert!(
        (ours - theirs).abs() <= 1e-9,
        "{what}: page {ours} vs CLI {theirs}"
    );
}

#[test]
fn reliability_page_shows_the_cli_agreement_report() {
    let worker = app_worker("reliability-browser");
    let data = root().join("tests/data/llmfao");
    let crowd = data.join("crowd-comparisons.csv");
    let gpt4 = data.join("gpt4-crowd-comparisons.csv");
    let gpt3 = data.join("gpt3-crowd-comparisons.csv");
    let cli = stdout_json(&run_tribunal(&[
        "stats",
        "agree",
        "--input",
        crowd.to_str().unwrap(),
        "--item",
        "id",
        "--rater",
        "worker",
        "--score",
        "winner",
        "--scale",
        "nominal",
        "--judge",
        gpt4.to_str().unwrap(),
        "--judge",
        gpt3.to_str().unwrap(),
    ]));
    assert_eq!(cli["n_raters"], 124, "the 124 crowd workers");

    let irt_judge = root().join("tests/fixtures/small-irt-judge.csv");
    let irt_human = root().join("tests/fixtures/small-irt-human.csv");
    let irt = stdout_json(&run_tribunal(&[
        "stats",
        "irt",
        "--input",
        irt_judge.to_str().unwrap(),
        "--human",
        irt_human.to_str().unwrap(),
    ]));

    let dir = temp_dir("reliability-browser");
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "id,worker,winner\n1,a,left\n2,b\n").unwrap();
    let screenshot = root().join("target/e2e/reliability.png");
    std::fs::create_dir_all(screenshot.parent().unwrap()).unwrap();

    let (slice_crowd, slice_judge) = sliced_agreement_files(&dir);
    let sliced = stdout_json(&run_tribunal(&[
        "stats",
        "agree",
        "--input",
        slice_crowd.to_str().unwrap(),
        "--scale",
        "nominal",
        "--judge",
        slice_judge.to_str().unwrap(),
        "--slice",
        "topic",
    ]));
    let page = run_browser_driver(
        "reliability.mjs",
        [
            std::ffi::OsStr::new(&worker.url),
            crowd.as_os_str(),
            gpt4.as_os_str(),
            gpt3.as_os_str(),
            bad.as_os_str(),
            screenshot.as_os_str(),
            irt_judge.as_os_str(),
            irt_human.as_os_str(),
            slice_crowd.as_os_str(),
            slice_judge.as_os_str(),
        ],
    );

    // α of the crowd: estimate and bootstrap bounds equal the CLI's.
    let before = &page["before"];
    let alpha = &before["alpha"];
    let want = &cli["group"]["reading"]["interval"];
    assert_close(&alpha["alpha"], &want["estimate"], "α");
    assert_close(&alpha["lower"], &want["lower"], "α lower");
    assert_close(&alpha["upper"], &want["upper"], "α upper");
    let band = cli["group"]["reading"]["band"]
        .as_str()
        .unwrap()
        .replace('_', " ");
    assert!(
        alpha["text"]
            .as_str()
            .unwrap()
            .contains(&format!("band: {band}")),
        "{}",
        alpha["text"]
    );

    // Each judge's κ against the crowd majority, its bounds, percent agreement, band, confusion.
    let judges = before["judges"].as_array().unwrap();
    let expected = cli["judges"].as_array().unwrap();
    assert_eq!(judges.len(), 2);
    assert_eq!(judges.len(), expected.len());
    for want in expected {
        let rater = want["rater"].as_str().unwrap();
        let row = judges
            .iter()
            .find(|j| j["rater"] == rater)
            .unwrap_or_else(|| panic!("the page lacks judge {rater}"));
        let kappa = &want["agreement"]["kappa"];
        assert_close(&row["kappa"], &kappa["interval"]["estimate"], rater);
        assert_close(&row["lower"], &kappa["interval"]["lower"], rater);
        assert_close(&row["upper"], &kappa["interval"]["upper"], rater);
        assert_close(
            &row["agreement"],
            &want["agreement"]["percent_agreement"]["interval"]["estimate"],
            rater,
        );
        assert_eq!(
            row["band"].as_str().unwrap(),
            kappa["band"].as_str().unwrap().replace('_', " ")
        );
        assert_eq!(row["confusion"], want["agreement"]["confusion"], "{rater}");
    }
    assert_eq!(
        before["tied"].as_str().unwrap(),
        cli["majority"]["n_tied"].to_string()
    );
    assert_eq!(
        before["warnings"], cli["warnings"],
        "the page shows the CLI's warnings"
    );
    assert_eq!(page["hasPlot"], true);

    // The malformed file is located, and the previous report stays.
    let error = page["errorText"].as_str().unwrap();
    assert!(
        error.contains("bad.csv, line 3: expected 3 fields as in the header, found 2"),
        "{error}"
    );
    assert_eq!(page["after"], page["before"]);
    assert!(screenshot.is_file());

    // The IRT table: one judge, no criterion column, the CLI's statistics.
    let rows = page["irt"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(row["rater"], irt["settings"]["rater"]);
    let c_v = &irt["intrinsic_consistency"]["c_v"];
    let rho = &irt["marginal_reliability"];
    assert_close(&row["cv"], c_v, "C_V");
    assert_close(&row["rho"], rho, "ρ");
    let alignment = &irt["human"]["alignment"];
    assert_close(&row["thetaRatio"], &alignment["theta_ratio"], "θ_ratio");
    assert_close(&row["dw"], &alignment["wasserstein"], "D_W");
    let ok = c_v.as_f64().unwrap() <= 0.10 && rho.as_f64().unwrap() >= 0.70;
    assert_eq!(row["ok"], ok.to_string());
    assert_eq!(row["highlighted"], ok);

    // Seed 003's Fig. 1: one point per human score for the judge's and the humans' θ̂ (plus
    // each series' legend mark).
    let fig1 = page["fig1"].as_array().unwrap();
    assert_eq!(fig1.len(), 1, "{fig1:?}");
    let points = |key: &str| alignment[key].as_array().unwrap().len() as u64 + 1;
    assert_eq!(
        fig1[0]["judgePoints"].as_u64(),
        Some(points("llm_by_human_score"))
    );
    assert_eq!(
        fig1[0]["humanPoints"].as_u64(),
        Some(points("human_by_human_score"))
    );
    assert!(fig1[0]["caption"]
        .as_str()
        .unwrap()
        .contains("seed 003 Fig. 1"));

    // Slices: the CLI's p-values, Holm and BH values per topic (to 1e-12).
    let rows = page["slices"].as_array().unwrap();
    let cells = sliced["slices"]["judges"][0]["slices"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for (row, cell) in rows.iter().zip(cells) {
        assert_eq!(row["value"], cell["value"]);
        for (attr, key) in [("p", "p_value"), ("holm", "holm"), ("bh", "bh_q")] {
            let (ours, cli) = (attr_number(&row[attr]), cell[key].as_f64().unwrap());
            assert!(
                (ours - cli).abs() <= 1e-12,
                "{}: {attr} {ours} vs {cli}",
                row["value"]
            );
        }
        let flagged =
            cell["holm_reject"].as_bool().unwrap() || cell["bh_reject"].as_bool().unwrap();
        assert_eq!(row["flagged"], flagged);
    }
}
