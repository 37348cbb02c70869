//! Sessions and sharing in headless Chromium against two real workers (driver:
//! `tests/browser/sessions.mjs`): a saved leaderboard analysis opened by its share link in a
//! fresh browser context shows the owner's table to the last printed digit — and the CLI's
//! numbers for the same rounds and seed; the share link cannot write (403, data unchanged); a
//! fragment-shared analysis reproduces without any request carrying its data; a session
//! exported from one worker and imported into another (different data directory) recomputes
//! the same table; and a browser that loaded the analysis shows it again once worker A is
//! gone (the service worker's cache).

use tribunal_e2e::{
    app_worker, attr_number, http, root, run_browser_driver, run_tribunal, stdout_json, temp_dir,
};

/// The model whose Elo the saved leaderboard fixes at 1000.
const ANCHOR: &str = "Airoboros L2 70B";

#[test]
fn shared_sessions_and_links_reproduce_the_same_numbers() {
    let a = app_worker("sessions-browser-a");
    let b = app_worker("sessions-browser-b");
    let crowd = root().join("tests/data/llmfao/crowd-comparisons.csv");
    let dir = temp_dir("sessions-browser");
    // The first 600 crowd battles: small enough for a link.
    let text = std::fs::read_to_string(&crowd).unwrap();
    let small_text: String = text.lines().take(601).map(|l| format!("{l}\n")).collect();
    let small = dir.join("crowd-small.csv");
    std::fs::write(&small, &small_text).unwrap();
    let archive = dir.join("archive.json");

    let page = run_browser_driver(
        "sessions.mjs",
        [
            std::ffi::OsStr::new(&a.url),
            std::ffi::OsStr::new(&b.url),
            crowd.as_os_str(),
            small.as_os_str(),
            archive.as_os_str(),
            std::ffi::OsStr::new(ANCHOR),
        ],
    );

    // The saved analysis equals the CLI on the same data, rounds, seed, clusters and anchor
    // (≤ 1e-9 Elo): every setting the form's text holds reaches the spec.
    let cli = stdout_json(&run_tribunal(&[
        "stats",
        "bt",
        "--input",
        crowd.to_str().unwrap(),
        "--bootstrap",
        "200",
        "--seed",
        "7",
        "--cluster",
        "prompt",
        "--anchor",
        &format!("{ANCHOR}=1000"),
    ]));
    let owner = page["ownerTable"].as_array().unwrap();
    let expected = cli["ratings"].as_array().unwrap();
    assert_eq!(owner.len(), expected.len());
    for (row, want) in owner.iter().zip(expected) {
        assert_eq!(row["model"], want["model"]);
        for (ours, theirs) in [
            (&row["elo"], &want["elo"]),
            (&row["lower"], &want["bootstrap"]["lower"]),
            (&row["upper"], &want["bootstrap"]["upper"]),
        ] {
            assert!((attr_number(ours) - theirs.as_f64().unwrap()).abs() <= 1e-9);
        }
    }
    assert!(page["ownerSummary"]
        .as_str()
        .unwrap()
        .contains("200 rounds, seed 7"));

    // The visitor's table is the owner's, every printed cell and every bit behind it.
    assert_eq!(page["visitorTable"], page["ownerTable"]);
    assert_eq!(page["visitorSummary"], page["ownerSummary"]);

    // The share link cannot write; the visitor sees no upload form; the data are unchanged.
    assert_eq!(page["writeStatus"], 403);
    assert_eq!(page["analysisWriteStatus"], 403);
    assert_eq!(page["visitorSeesUpload"], false);
    let session_url = page["sessionUrl"].as_str().unwrap();
    let id = session_url.rsplit('/').next().unwrap();
    let session = http(
        a.authority(),
        "GET",
        &format!("/api/sessions/{id}"),
        &[],
        b"",
    )
    .json();
    assert_eq!(session["datasets"].as_array().unwrap().len(), 1);
    assert_eq!(session["datasets"][0]["name"], "crowd-comparisons.csv");
    assert_eq!(session["analyses"].as_array().unwrap().len(), 1);
    assert_eq!(page["visitorAnalyses"].as_array().unwrap().len(), 1);
    assert!(
        !page["analysisUrl"].as_str().unwrap().contains('#'),
        "no token in the share link"
    );

    // The fragment link reproduces the local table; no request carried the data: no request
    // has a body, and none names the file, a model or the fragment.
    assert_eq!(page["sharedTable"], page["localTable"]);
    let share_url = page["shareUrl"].as_str().unwrap();
    let fragment = share_url.split("#share=").nth(1).unwrap();
    assert!(fragment.len() < small_text.len());
    assert!(page["sharedNote"]
        .as_str()
        .unwrap()
        .contains("crowd-small.csv"));
    let requests = page["requests"].as_array().unwrap();
    assert!(!requests.is_empty());
    let first_model = page["localTable"][0]["model"].as_str().unwrap();
    for r in requests {
        let url = r["url"].as_str().unwrap();
        assert_eq!(r["method"], "GET", "{url}");
        assert_eq!(r["postData"], serde_json::Value::Null, "{url}");
        assert!(
            !url.contains("share=")
                && !url.contains(&fragment[..40])
                && !url.contains("crowd")
                && !url.contains(&first_model.replace(' ', "%20")),
            "{url}"
        );
        assert!(
            !url.contains("/api/"),
            "a fragment-shared page calls no API: {url}"
        );
    }
    eprintln!(
        "fragment link: {} characters for {} bytes of CSV; {} requests while opening it: {:?}",
        share_url.len(),
        small_text.len(),
        requests.len(),
        requests
            .iter()
            .map(|r| r["url"].as_str().unwrap_or_default())
            .collect::<Vec<_>>()
    );
    // The whole crowd file (498 kB, picked by the user, so carried) fits a link too: column
    // by column and Brotli-compressed it takes about 36,000 characters (the DEFLATE links of
    // version 2 needed 70,346, past the limit).
    let crowd_link = page["crowdLink"].as_str().unwrap();
    eprintln!(
        "the whole crowd file: a {}-character link",
        crowd_link.len()
    );
    assert!(crowd_link.len() < 45_000, "{}", crowd_link.len());

    // Export → import into worker B: a new session owned by the importing device, the same
    // analysis id, the same table.
    assert_ne!(a.data_dir, b.data_dir);
    assert!(page["importedSessionUrl"]
        .as_str()
        .unwrap()
        .starts_with(&b.url));
    assert_eq!(page["importerOwns"], true);
    let analysis_id = page["analysisUrl"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap();
    assert!(page["importedHref"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/a/{analysis_id}")));
    assert_eq!(page["importedTable"], page["ownerTable"]);
    let archive: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&archive).unwrap()).unwrap();
    assert_eq!(archive["format"], "tribunal-session");

    // Offline: a profile that loaded the analysis once shows it again after worker A stopped.
    let profile = dir.join("profile");
    let analysis_url = page["analysisUrl"].as_str().unwrap();
    let online = run_browser_driver(
        "offline.mjs",
        ["load", profile.to_str().unwrap(), analysis_url],
    );
    assert_eq!(online["table"], page["ownerTable"]);
    assert_eq!(
        online["controlled"], true,
        "the reload runs under the service worker"
    );
    let authority = a.authority().to_owned();
    drop(a);
    assert!(
        std::net::TcpStream::connect(&authority).is_err(),
        "worker A is gone"
    );
    let offline = run_browser_driver(
        "offline.mjs",
        ["reopen", profile.to_str().unwrap(), analysis_url],
    );
    assert_eq!(offline["table"], page["ownerTable"]);
}

#[test]
fn the_owner_deletes_from_the_page_after_confirming_and_links_then_answer_gone() {
    let worker = app_worker("sessions-browser-delete");
    let (id, token) = tribunal_e2e::create_session(&worker, "to delete");
    let small = b"model_a,model_b,winner\nA,B,model_a\nB,A,model_b\nA,B,model_a\n";
    let hash = tribunal_e2e::upload_dataset(&worker, &id, &token, "battles", "small.csv", small);
    let spec = serde_json::json!({
        "statistic": "leaderboard", "dataset": hash,
        "bootstrap": { "rounds": 20, "seed": 1, "level": 0.95 }, "anchor": null,
    });
    let saved = tribunal_e2e::save_spec(&worker, &id, &token, "board", &spec);
    assert_eq!(saved.status, 201);
    let analysis = saved.json()["id"].as_str().unwrap().to_owned();
    let share = format!("{}s/{id}", worker.url);
    let page = run_browser_driver(
        "delete.mjs",
        [
            format!("{share}#owner={token}"),
            share.clone(),
            format!("{share}/a/{analysis}"),
        ],
    );
    let lists = |analyses: u64, datasets: u64| serde_json::json!({ "analyses": analyses, "datasets": datasets });
    assert_eq!(page["before"], lists(1, 1), "{page}");
    assert_eq!(
        page["afterDismiss"],
        lists(1, 1),
        "a dismissed confirmation deletes nothing"
    );
    assert_eq!(page["afterParts"], lists(0, 0), "{page}");
    let questions = page["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 4, "{page}");
    assert!(questions[0]
        .as_str()
        .unwrap()
        .contains("the analysis board"));
    assert!(questions[3]
        .as_str()
        .unwrap()
        .contains("this whole session"));
    assert_eq!(page["sessionStatus"], 410);
    assert!(
        page["sessionMessage"]
            .as_str()
            .unwrap()
            .contains("deleted by its owner"),
        "{page}"
    );
    // A deleted or missing session offers nothing to share or export.
    assert_eq!(page["sessionControlsHidden"], true, "{page}");
    assert_eq!(page["analysisShareHidden"], true, "{page}");
    let missing = &page["missing"];
    assert!(
        missing["text"].as_str().unwrap().starts_with(
            "Not found: this worker has no session `00000000000000000000000000000000`"
        ),
        "{missing}"
    );
    assert_eq!(missing["controlsHidden"], true);
    assert_eq!(missing["exportHidden"], true);
    // A path that is no page says so and links every page there is.
    let not_found = &page["notFound"];
    assert!(not_found["text"]
        .as_str()
        .unwrap()
        .contains("Tribunal has no page at /no-such-page"));
    let links: Vec<&str> = not_found["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    // Home, every task page (the kinds' pages and the glossary among them) and the sessions.
    assert_eq!(links.len(), 19, "{links:?}");
    assert!(links.contains(&"/") && links.contains(&"/leaderboard") && links.contains(&"/runs"));
    assert!(links.contains(&"/ppi") && links.contains(&"/power") && links.contains(&"/glossary"));
    assert_eq!(page["analysisStatus"], 410);
    assert_eq!(
        http(
            worker.authority(),
            "GET",
            &format!("/api/sessions/{id}"),
            &[],
            b""
        )
        .status,
        410
    );
}
