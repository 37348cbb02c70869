//! The Calibrate page in headless Chromium: the real worker serves the Trunk-built app; an LS
//! head on a miscalibrated judge shows the CV-chosen γ and the head-vs-judge metrics with their
//! intervals equal to `tribunal stats calibrate` (same seed) to 1e-9, and a model-file link
//! whose document is the CLI's; a BTL head on the scikit-learn fixture shows the classification
//! metrics and both confusion matrices as the CLI computes them; a ragged training file shows
//! the located error and keeps the previous report; the LS data with its embeddings uploaded
//! as `.npy` files gives the CLI's numbers again. The driver is `tests/browser/calibrate.mjs`
//! (playwright-core).

use serde_json::Value;
use tribunal_e2e::{
    app_worker, attr_number, btl_fixture_csv, floats, ls_files_with_npy, miscalibrated_ls_files,
    root, run_browser_driver, run_tribunal, stdout_json, temp_dir, write_csv,
};

/// The page's γ and every regression row (head, judge, difference and its interval) equal the
/// CLI's to 1e-9; returns the rows.
fn assert_regression_like_cli<'a>(what: &str, page: &'a Value, cli: &Value) -> &'a Vec<Value> {
    assert_eq!(
        attr_number(&page["gamma"]),
        cli["cv"]["chosen_gamma"].as_f64().unwrap(),
        "{what}"
    );
    let rows = page["regression"].as_array().unwrap();
    assert_eq!(rows.len(), 5, "{what}");
    for row in rows {
        let m = &cli["regression"][row["metric"].as_str().unwrap()];
        for (attr, want) in [
            ("head", &m["head"]["estimate"]),
            ("base", &m["base"]["estimate"]),
            ("difference", &m["difference"]["estimate"]),
            ("lower", &m["difference"]["lower"]),
            ("upper", &m["difference"]["upper"]),
        ] {
            let (ours, theirs) = (attr_number(&row[attr]), want.as_f64().unwrap());
            assert!(
                (ours - theirs).abs() <= 1e-9,
                "{what} {}: {attr} {ours} vs {theirs}",
                row["metric"]
            );
        }
    }
    rows
}

#[test]
fn calibrate_page_fits_like_the_cli() {
    let worker = app_worker("calibrate-browser");
    let dir = temp_dir("calibrate-browser");
    let (ls_train, ls_test) = miscalibrated_ls_files(&dir);
    let btl = btl_fixture_csv(&dir);
    let bad = write_csv(
        &dir,
        "ragged.csv",
        "embedding,score,human",
        &["1 2,3,4".into(), "1,3,4".into()],
    );
    let path = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    let cli_ls = stdout_json(&run_tribunal(&[
        "stats",
        "calibrate",
        "--head",
        "ls",
        "--train",
        &path(&ls_train),
        "--test",
        &path(&ls_test),
        "--seed",
        "3",
    ]));
    let cli_btl = stdout_json(&run_tribunal(&[
        "stats",
        "calibrate",
        "--head",
        "btl",
        "--train",
        &path(&btl),
        "--test",
        &path(&btl),
    ]));
    let npy_files = ls_files_with_npy(&dir, &ls_train, &ls_test);
    let screenshot = root().join("target/e2e/calibrate.png");
    std::fs::create_dir_all(screenshot.parent().unwrap()).unwrap();

    let page = run_browser_driver(
        "calibrate.mjs",
        [
            std::ffi::OsStr::new(&format!("{}calibrate", worker.url)),
            ls_train.as_os_str(),
            ls_test.as_os_str(),
            btl.as_os_str(),
            bad.as_os_str(),
            screenshot.as_os_str(),
            npy_files[0].as_os_str(),
            npy_files[1].as_os_str(),
            npy_files[2].as_os_str(),
            npy_files[3].as_os_str(),
        ],
    );

    // LS: γ, and every regression metric of head, judge and difference with its interval.
    let ls = &page["ls"];
    let rows = assert_regression_like_cli("LS", ls, &cli_ls);
    assert!(
        attr_number(&rows[0]["upper"]) < 0.0,
        "the head cuts the MSE: {}",
        rows[0]
    );
    // The downloaded model file is the CLI's model: same version, seed, γ and training-data
    // hash, and the same weights up to round-off (WASM's libm is not glibc's).
    let model: Value = serde_json::from_str(ls["model"].as_str().unwrap()).unwrap();
    let want = &cli_ls["model"];
    for key in ["format_version", "seed", "training_data_hash"] {
        assert_eq!(model[key], want[key], "{key}");
    }
    assert_eq!(model["head"]["gamma"], want["head"]["gamma"]);
    let coefficients = |m: &Value| {
        let mut c = floats(&m["head"]["weights"]);
        c.extend([&m["head"]["base_weight"], &m["head"]["intercept"]].map(|v| v.as_f64().unwrap()));
        c
    };
    for (ours, cli) in coefficients(&model).iter().zip(coefficients(want)) {
        assert!(
            (ours - cli).abs() <= 1e-9,
            "model coefficient {ours} vs {cli}"
        );
    }
    assert_eq!(ls["download"], "tribunal-ls-head.json");
    assert_eq!(ls["hasCurve"], true);

    // BTL: accuracy etc. and both confusion matrices.
    let btl_page = &page["btl"];
    let classification = &cli_btl["classification"];
    for row in btl_page["classification"].as_array().unwrap() {
        let m = &classification[row["metric"].as_str().unwrap()];
        assert!(
            (attr_number(&row["head"]) - m["head"]["estimate"].as_f64().unwrap()).abs() <= 1e-9
        );
        assert!(
            (attr_number(&row["base"]) - m["base"]["estimate"].as_f64().unwrap()).abs() <= 1e-9
        );
    }
    assert_eq!(btl_page["base"], classification["base_confusion"]);
    assert_eq!(btl_page["head"], classification["head_confusion"]);

    // The ragged file is located; the BTL report stays on screen.
    let error = page["errorText"].as_str().unwrap();
    assert!(
        error.contains("ragged.csv, line 3, column 1 (`embedding`): expected an embedding of 2 numbers (as on line 2), found 1"),
        "{error}"
    );
    assert_eq!(page["summaryAfterError"], btl_page["summary"]);
    assert!(screenshot.is_file());

    // The same LS data with its embeddings uploaded as .npy files: the CLI's γ and metrics
    // from the `embedding` column, to 1e-9.
    let npy = &page["npy"];
    assert!(npy["error"].is_null(), "{}", npy["error"]);
    assert_regression_like_cli("LS from .npy", npy, &cli_ls);
}
