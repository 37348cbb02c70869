//! The Reliability page in headless Chromium: the real worker serves the Trunk-built app;
//! LLMFAO's crowd votes with the GPT-4 and GPT-3.5 judge files show Krippendorff's α of the 124
//! crowd workers and each judge's κ against the crowd majority, with bootstrap intervals, equal
//! to `tribunal stats agree` (same default seed and rounds) to 1e-9, and the same tied-majority
//! count, bands, percent agreement and confusion matrices; a malformed ratings file shows the
//! located error and keeps the previous report; a rater pair on the numeric scale shows every
//! pair statistic (κ, weighted κ, correlations) with the CLI's intervals. A judge under prompt variants with human ratings
//! shows the IRT table with the C_V, ρ, θ_ratio and D_W of `tribunal stats irt` (to 1e-9) and
//! the seed 003 highlight (C_V ≤ 0.10 and ρ ≥ 0.70). The judge-runs card shows the A/A checks
//! with their flags, the self-consistency table and the position-bias rates of `tribunal stats
//! aa|consistency|position` to 1e-12 (LLMFAO's GPT-4 verdicts among them). The drivers are
//! `tests/browser/reliability.mjs` and `tests/browser/run_checks.mjs` (playwright-core).

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
    let numeric = root().join("tests/fixtures/small-ratings.csv");
    let pair = stdout_json(&run_tribunal(&[
        "stats",
        "agree",
        "--input",
        numeric.to_str().unwrap(),
        "--pair",
        "judge,alice",
        "--level",
        "ordinal",
    ]));
    let page = run_browser_driver(
        "reliability.mjs",
        [
            std::ffi::OsStr::new(&format!("{}reliability", worker.url)),
            crowd.as_os_str(),
            gpt4.as_os_str(),
            gpt3.as_os_str(),
            bad.as_os_str(),
            screenshot.as_os_str(),
            irt_judge.as_os_str(),
            irt_human.as_os_str(),
            slice_crowd.as_os_str(),
            slice_judge.as_os_str(),
            numeric.as_os_str(),
        ],
    );

    // A chosen file's header fills the column fields LLMFAO's way, offers every column, and
    // its first three rows are shown.
    let guessed = &page["guessed"];
    assert_eq!(
        guessed["columns"],
        serde_json::json!(["id", "worker", "winner"])
    );
    assert_eq!(
        guessed["offered"],
        serde_json::json!([
            "id", "prompt", "model_x", "model_y", "worker", "winner", "left", "right"
        ])
    );
    assert_eq!(guessed["previewRows"], 3);

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
        .contains("Choi et al., Fig. 1"));

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

    // A rater pair on the numeric scale: every statistic (percent agreement, κ, weighted κ,
    // Pearson, Spearman, Kendall) with the CLI's interval; α at the ordinal level.
    let rows = page["pairs"].as_array().unwrap();
    assert_eq!(rows.len(), 7, "{rows:?}");
    let want = &pair["pairs"][0];
    for row in rows {
        assert_eq!(row["pair"], "judge,alice");
        let stat = row["stat"].as_str().unwrap();
        let interval = &want[stat]["interval"];
        assert_close(&row["estimate"], &interval["estimate"], stat);
        assert_close(&row["lower"], &interval["lower"], stat);
        assert_close(&row["upper"], &interval["upper"], stat);
    }
    let ordinal = &page["ordinal"];
    let want = &pair["group"]["reading"]["interval"];
    assert_close(&ordinal["alpha"], &want["estimate"], "ordinal α");
    assert_close(&ordinal["lower"], &want["lower"], "ordinal α lower");
    assert!(ordinal["text"]
        .as_str()
        .unwrap()
        .contains("(ordinal level)"));
}

/// `value` (a data attribute) equals the CLI's number to 1e-12, or both are undefined.
fn assert_same(page: &Value, cli: &Value, what: &str) {
    let ours = attr_number(page);
    match cli.as_f64() {
        Some(theirs) => assert!(
            (ours - theirs).abs() <= 1e-12,
            "{what}: page {ours} vs CLI {theirs}"
        ),
        None => assert!(ours.is_nan(), "{what}: page {ours}, CLI undefined"),
    }
}

#[test]
fn judge_runs_card_shows_the_cli_aa_consistency_and_position_reports() {
    let worker = app_worker("run-checks-browser");
    let dir = temp_dir("run-checks-browser");
    let aa = dir.join("aa.csv");
    // Run 1 passes 2 of 4 and run 2 3 of 4; κ against gold ½ and −⅓ (hand counts as in
    // tests/reliability_cli.rs): every check is red.
    std::fs::write(
        &aa,
        "item,rater,score\n1,run1,pass\n1,run2,pass\n1,gold,pass\n2,run1,fail\n2,run2,pass\n\
         2,gold,fail\n3,run1,pass\n3,run2,pass\n3,gold,pass\n4,run1,fail\n4,run2,fail\n\
         4,gold,pass\n",
    )
    .unwrap();
    let repeats = dir.join("repeats.csv");
    std::fs::write(
        &repeats,
        "item,criterion,variant,score\nq1,coverage,r1,1\nq1,coverage,r2,1\nq1,coverage,r3,1\n\
         q1,label,r1,1\nq1,label,r2,0\nq1,label,r3,1\nq2,coverage,r1,0\nq2,coverage,r2,1\n\
         q2,coverage,r3,0\nq2,label,r1,0\nq2,label,r2,0\nq2,label,r3,0\nq3,coverage,r1,2\n\
         q3,coverage,r2,0\nq3,coverage,r3,1\nq3,label,r1,1\nq3,label,r2,1\nq3,label,r3,1\n",
    )
    .unwrap();
    let gpt4 = root().join("tests/data/llmfao/gpt4-crowd-comparisons.csv");
    let abba = dir.join("abba.csv");
    std::fs::write(
        &abba,
        "item,variant,score\np1,ab,left\np1,ba,right\np2,ab,left\np2,ba,left\np3,ab,tie\n\
         p3,ba,right\np4,ab,right\np5,ab,left\np5,ba,left\n",
    )
    .unwrap();
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "item,variant,score\np1,ab,left\np2,ab,first\n").unwrap();
    let screenshot = root().join("target/e2e/judge-runs.png");
    std::fs::create_dir_all(screenshot.parent().unwrap()).unwrap();

    let path = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    let cli = |args: &[&str]| stdout_json(&run_tribunal(args));
    let aa_cli = cli(&[
        "stats",
        "aa",
        "--input",
        &path(&aa),
        "--scale",
        "nominal",
        "--runs",
        "run1,run2",
        "--gold",
        "gold",
        "--pass",
        "pass",
    ]);
    let consistency_cli = cli(&[
        "stats",
        "consistency",
        "--input",
        &path(&repeats),
        "--label",
        "label",
    ]);
    let gpt4_cli = cli(&[
        "stats",
        "position",
        "--input",
        &path(&gpt4),
        "--item",
        "id",
        "--score",
        "winner",
        "--bootstrap",
        "300",
        "--seed",
        "5",
    ]);
    let abba_cli = cli(&[
        "stats",
        "position",
        "--input",
        &path(&abba),
        "--bootstrap",
        "100",
    ]);

    let page = run_browser_driver(
        "run_checks.mjs",
        [
            std::ffi::OsStr::new(&format!("{}reliability", worker.url)),
            aa.as_os_str(),
            repeats.as_os_str(),
            gpt4.as_os_str(),
            abba.as_os_str(),
            bad.as_os_str(),
            screenshot.as_os_str(),
        ],
    );

    // A/A: every check's delta, ratio and flag, the row's colour, and the overall flag.
    let rows = page["aa"]["checks"].as_array().unwrap();
    let checks = aa_cli["checks"].as_array().unwrap();
    assert_eq!(rows.len(), checks.len());
    assert_eq!(rows.len(), 3, "pass rate, item disagreement, κ delta");
    for (row, check) in rows.iter().zip(checks) {
        assert_eq!(row["metric"], check["metric"]);
        assert_same(&row["delta"], &check["delta"], "A/A delta");
        assert_same(&row["ratio"], &check["ratio"], "A/A delta / band");
        assert_eq!(row["flag"], check["flag"]);
        assert_eq!(
            row["className"].as_str().unwrap(),
            format!("flag-{}", check["flag"].as_str().unwrap())
        );
    }
    assert_eq!(aa_cli["overall"], "red");
    assert_eq!(page["aa"]["overall"]["flag"], aa_cli["overall"]);
    assert!(page["aa"]["overall"]["text"]
        .as_str()
        .unwrap()
        .contains("too stochastic"));

    // Self-consistency: per criterion, and the label flip rate (q1's label flips, q2's and
    // q3's do not: ⅓) and the share of inconsistent items (all three).
    let shown = &page["consistency"];
    let criteria = consistency_cli["criteria"].as_array().unwrap();
    let rows = shown["criteria"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for (row, c) in rows.iter().zip(criteria) {
        assert_eq!(row["name"], c["name"]);
        assert_same(&row["meanEntropy"], &c["mean_entropy"], "mean H");
        assert_same(&row["share"], &c["share_consistent"], "consistent share");
        assert_same(&row["flip"], &c["flip_rate"], "flip rate");
        assert_eq!(row["stability"], c["stability"]);
    }
    assert_same(
        &shown["summary"]["labelFlip"],
        &consistency_cli["label_flip_rate"],
        "label flip",
    );
    assert_eq!(consistency_cli["label_flip_rate"].as_f64(), Some(1.0 / 3.0));
    assert_same(
        &shown["summary"]["inconsistent"],
        &consistency_cli["share_items_inconsistent"],
        "inconsistent share",
    );
    // The most unstable item first: q3's coverage (three different values, H = log₂ 3).
    let first = &shown["items"][0];
    assert_eq!(
        (first[0].as_str(), first[1].as_str()),
        (Some("q3"), Some("coverage"))
    );
    assert_eq!(
        first[2].as_str(),
        Some(format!("{:.3}", 3f64.log2()).as_str())
    );

    // Position bias: LLMFAO's GPT-4 with the CLI's seed and rounds, then the AB/BA file.
    for (shown, want, what) in [
        (&page["gpt4"], &gpt4_cli, "GPT-4"),
        (&page["abba"], &abba_cli, "AB/BA"),
    ] {
        let rate = &want["first_position_rate"];
        assert_same(&shown["rate"], &rate["estimate"], what);
        assert_same(&shown["lower"], &rate["lower"], what);
        assert_same(&shown["upper"], &rate["upper"], what);
        assert_same(&shown["p"], &want["p_value"], what);
        assert_same(&shown["flip"], &want["flip_rate"]["estimate"], what);
        assert_same(&shown["reversal"], &want["reversal_rate"], what);
        assert_eq!(shown["significant"], want["significant"].to_string());
    }
    assert_eq!(gpt4_cli["significant"], true, "GPT-4 prefers a position");
    // Of the four pairs judged in both orders p1 keeps its winner, p2 and p5 reverse (the
    // first-shown wins both times) and p3 goes from a tie to A: flip rate ¾, reversal rate ½.
    assert_eq!(abba_cli["n_both_orders"], 4);
    assert_eq!(abba_cli["flip_rate"]["estimate"].as_f64(), Some(0.75));
    assert_eq!(abba_cli["reversal_rate"].as_f64(), Some(0.5));

    // The malformed verdict is located, and the previous result stays.
    let error = page["errorText"].as_str().unwrap();
    assert!(
        error.contains(
            "bad.csv, line 3, column 3 (`score`): expected one of the categories `left`, \
             `right`, `tie`, found `first`"
        ),
        "{error}"
    );
    assert_eq!(page["after"], page["abba"]);
    assert!(screenshot.is_file());
}
