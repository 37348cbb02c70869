//! Share links of every example, in headless Chromium (driver `tests/browser/share_examples.mjs`):
//! each task page's "try it on an example" computed, then "Share as a link" — a link within
//! the 65,536-character limit that states its size, the bundled example files named in it
//! rather than carried — opened in a fresh browser context: the visitor's report equals the
//! page's, and `tribunal stats run` on the spec and files the link decodes to prints the same
//! numbers (1e-9). The visitor's page calls no API. "Save to session" with no session on the
//! device creates one, named after the analysis, listed on the home page. A battles file too
//! large for a link says so and, on one click, shares through a session whose link reopens
//! the same table.

use serde_json::Value;
use tribunal::sessions::share_link::{decode, MAX_FRAGMENT_CHARS};
use tribunal_e2e::{
    app_worker, assert_same, root, run_browser_driver, run_tribunal, stdout_json, temp_dir,
    without_names,
};

/// `tribunal stats run` on what the share link `url` carries (bundled examples read from the
/// served `dist/examples/`), less the report's `record`.
fn cli_of_link(url: &str, dir: &std::path::Path) -> Value {
    let fragment = url.split("#share=").nth(1).expect("a fragment link");
    let decoded = decode(fragment).expect("the link decodes");
    let fetched = decoded
        .bundled
        .iter()
        .map(|b| {
            let bytes = std::fs::read(root().join("dist/examples").join(&b.example)).unwrap();
            (b.role.clone(), bytes)
        })
        .collect();
    let shared = decoded.resolve(fetched).expect("the files are the spec's");
    std::fs::create_dir_all(dir).unwrap();
    let spec = dir.join("spec.json");
    std::fs::write(&spec, serde_json::to_vec(&shared.spec).unwrap()).unwrap();
    let mut args = vec![
        "stats".to_owned(),
        "run".to_owned(),
        spec.display().to_string(),
    ];
    for role in shared.spec.inputs.keys() {
        let path = dir.join(format!("{role}.input"));
        std::fs::write(&path, &shared.inputs.get(role).unwrap().bytes).unwrap();
        args.extend(["--input".to_owned(), format!("{role}={}", path.display())]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut cli = stdout_json(&run_tribunal(&args));
    cli.as_object_mut().unwrap().remove("record");
    cli
}

/// A battles file no link holds: 8,000 battles of 8 models, each with a seeded random
/// 16-hex-digit prompt id (64 bits no codec can shrink).
fn incompressible_battles(dir: &std::path::Path) -> std::path::PathBuf {
    let mut state: u64 = 20_261_129;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state
    };
    let mut text = "model_a,model_b,winner,prompt\n".to_owned();
    for _ in 0..8000 {
        let (a, b) = (next() % 8, next() % 7);
        let b = if b >= a { b + 1 } else { b };
        let winner = ["model_a", "model_b", "tie"][(next() % 3) as usize];
        text.push_str(&format!("m{a},m{b},{winner},{:016x}\n", next()));
    }
    let path = dir.join("random-battles.csv");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn every_examples_share_link_reopens_in_a_fresh_browser_with_the_clis_numbers() {
    let worker = app_worker("share-examples");
    let dir = temp_dir("share-examples");
    let large = incompressible_battles(&dir);
    let page = run_browser_driver(
        "share_examples.mjs",
        [worker.url.as_str(), large.to_str().unwrap()],
    );
    assert_eq!(page["pageErrors"], serde_json::json!([]));

    let tasks = page["tasks"].as_object().unwrap();
    assert_eq!(tasks.len(), 16);
    for (task, seen) in tasks {
        assert!(seen["error"].is_null(), "{task}: {}", seen["error"]);
        let url = seen["url"].as_str().unwrap();
        let fragment = url.split("#share=").nth(1).unwrap();
        assert!(
            fragment.len() <= MAX_FRAGMENT_CHARS,
            "{task}: {}",
            fragment.len()
        );
        // The link states its size.
        let size = seen["size"].as_str().unwrap();
        assert!(
            size.starts_with(&format!("{} characters", url.len())),
            "{task}: {size}"
        );
        eprintln!("{task}: {} characters", url.len());
        // Every example but Compare's (converted on the page) is named, not carried.
        let decoded = decode(fragment).unwrap();
        if task != "compare" {
            assert!(
                !decoded.bundled.is_empty(),
                "{task}: no bundled example named"
            );
            assert!(
                fragment.len() < 4000,
                "{task}: {} characters",
                fragment.len()
            );
            assert!(
                seen["sharedNote"]
                    .as_str()
                    .unwrap()
                    .contains("bundled example"),
                "{task}: {}",
                seen["sharedNote"]
            );
        }
        // The visitor's page asks no API; it fetches the app and the bundled examples.
        for r in seen["requests"].as_array().unwrap() {
            let request = r["url"].as_str().unwrap();
            assert!(!request.contains("/api/"), "{task}: {request}");
            assert_eq!(r["method"], "GET", "{task}: {request}");
        }
        if task == "leaderboard" {
            assert_eq!(seen["sharedTable"], seen["onPageTable"]);
            continue;
        }
        assert!(
            seen["sharedError"].is_null(),
            "{task}: {}",
            seen["sharedError"]
        );
        let shared = &seen["shared"];
        // A page with the analysis view shows the very report the visitor recomputed; the run
        // checks' card shows the very numbers of the visitor's view.
        if !seen["onPage"].is_null() {
            assert_eq!(&seen["onPage"], shared, "{task}");
        }
        if task.starts_with("runs-") {
            let numbers = seen["onPageNumbers"].as_array().unwrap();
            assert!(!numbers.is_empty(), "{task}: no numbers on the card");
            assert_eq!(&seen["sharedNumbers"], &seen["onPageNumbers"], "{task}");
        }
        let cli = cli_of_link(url, &dir.join(task));
        // The browser's `exp` and `ln` are not the native ones: fits that stop at a tolerance
        // on a flat loss agree to fewer digits (the BTL head's cross-validation folds, L-BFGS
        // to 1e-9 in gradient; PPI's bootstrap rounds near separation; the GRM's EM).
        let tol = match task.as_str() {
            "calibrate" => 1e-6,
            "ppi" => 1e-7,
            "reliability" => 1e-8,
            _ => 1e-9,
        };
        assert_same(&without_names(shared), &without_names(&cli), tol, task);
    }

    // Saving with no session of this device's: a new one, named after the analysis, on the
    // home page's list; the saved analysis recomputes the page's report.
    assert_eq!(page["saveOptions"], serde_json::json!([""]));
    assert!(page["savedUrl"]
        .as_str()
        .unwrap()
        .starts_with(&format!("{}s/", worker.url)));
    assert_eq!(page["saved"], page["tasks"]["length-control"]["onPage"]);
    assert!(
        page["homeSessions"].as_array().unwrap().iter().any(|s| s
            .as_str()
            .unwrap()
            .contains("Win rates with answer length controlled")),
        "{}",
        page["homeSessions"]
    );

    // Too long for a link: said with the size and the limit, and shared through a session.
    let too_long = page["tooLong"]["error"].as_str().unwrap();
    assert!(
        too_long.contains("a link holds at most 65536"),
        "{too_long}"
    );
    assert!(too_long.contains("random-battles.csv"), "{too_long}");
    let link = page["sessionLink"]["url"].as_str().unwrap();
    assert!(
        link.starts_with(&format!("{}s/", worker.url)) && link.contains("/a/"),
        "{link}"
    );
    assert!(page["sessionLink"]["size"]
        .as_str()
        .unwrap()
        .contains("stored in a session"));
    assert_eq!(page["sessionTable"], page["largeTable"]);
}
