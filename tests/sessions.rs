//! The sessions API of the real worker over HTTP, with its real SQLite store: reads need only
//! the session id, writes need the owner token (a missing or wrong one is 403 and changes
//! nothing), bad uploads are located 422s that store nothing, the same content is stored
//! once, ids cannot be enumerated, and an exported session imports into a second worker
//! with a different data directory as the same session. A session holds datasets of every
//! kind an analysis reads (binary embedding arrays included) and saved analyses of every
//! kind, each checked against the session's datasets; a saved analysis reruns with `tribunal
//! stats run` on the datasets downloaded from the session into the numbers it was made with.
//! The owner deletes an analysis, a dataset or the session (SQLite and PostgreSQL): each then
//! answers 410 Gone, and a blob no session holds is removed.

use std::path::Path;
use std::time::Instant;
use tribunal_e2e::{
    create_session, get_session, http, root, run_tribunal, save_spec, stdout_json, HttpAnswer,
    Worker,
};

fn api_worker(name: &str) -> Worker {
    tribunal_e2e::api_worker(name, &[])
}

fn crowd() -> Vec<u8> {
    std::fs::read(root().join("tests/data/llmfao/crowd-comparisons.csv")).unwrap()
}

fn bearer(token: &str) -> String {
    format!("Authorization: Bearer {token}")
}

fn upload(worker: &Worker, id: &str, token: Option<&str>, name: &str, csv: &[u8]) -> HttpAnswer {
    let auth = token.map(bearer);
    let headers: Vec<&str> = auth.iter().map(String::as_str).collect();
    http(
        worker.authority(),
        "POST",
        &format!("/api/sessions/{id}/datasets?kind=battles&name={name}"),
        &headers,
        csv,
    )
}

fn save_analysis(worker: &Worker, id: &str, token: Option<&str>, dataset: &str) -> HttpAnswer {
    let auth = token.map(bearer);
    let mut headers: Vec<&str> = auth.iter().map(String::as_str).collect();
    headers.push("Content-Type: application/json");
    let body = serde_json::json!({
        "title": "crowd leaderboard",
        "spec": {
            "statistic": "leaderboard",
            "dataset": dataset,
            "bootstrap": { "rounds": 200, "seed": 7, "level": 0.95 },
            "anchor": null
        }
    });
    http(
        worker.authority(),
        "POST",
        &format!("/api/sessions/{id}/analyses"),
        &headers,
        body.to_string().as_bytes(),
    )
}

fn count(data_dir: &Path, table: &str) -> i64 {
    let conn = rusqlite::Connection::open(data_dir.join("tribunal.sqlite3")).unwrap();
    conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

#[test]
fn writes_need_the_owner_token_and_bad_input_stores_nothing() {
    let worker = api_worker("sessions-owner");
    let (id, token) = create_session(&worker, "LLMFAO");
    assert_eq!(id.len(), 32, "128 bits as hex: {id}");
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(token.len(), 64, "256 bits as hex");
    let empty = get_session(&worker, &id).json();
    assert_eq!(empty["title"], "LLMFAO");
    assert_eq!(empty["datasets"], serde_json::json!([]));
    assert!(
        !empty.to_string().contains(&token),
        "the view never shows the owner token"
    );

    // Without a token, with a wrong one, and with the token of another session: 403, no change.
    let (_, other_token) = create_session(&worker, "other");
    for attempt in [None, Some("0".repeat(64)), Some(other_token)] {
        let answer = upload(&worker, &id, attempt.as_deref(), "crowd.csv", &crowd());
        assert_eq!(
            answer.status,
            403,
            "{}",
            String::from_utf8_lossy(&answer.body)
        );
        assert!(answer.json()["error"]
            .as_str()
            .unwrap()
            .contains("owner token"));
    }
    assert_eq!(get_session(&worker, &id).json(), empty);
    assert_eq!(count(&worker.data_dir, "blobs"), 0);

    // A malformed file: 422 naming file, line and field; nothing stored.
    let bad = upload(
        &worker,
        &id,
        Some(&token),
        "bad.csv",
        b"left,right,winner\nA,B,left\nA,B,maybe\n",
    );
    assert_eq!(bad.status, 422);
    let message = bad.json()["error"].as_str().unwrap().to_owned();
    assert!(message.contains("bad.csv, line 3"), "{message}");
    assert!(message.contains("winner"), "{message}");
    assert_eq!(get_session(&worker, &id).json(), empty);
    assert_eq!(count(&worker.data_dir, "blobs"), 0);

    // A kind that does not exist, and a file that is not of its kind: 422, nothing stored.
    for (kind, expected) in [
        (
            "labels",
            "expected one of battles, items, ratings, pairs, scored_battles",
        ),
        ("items", "instruction"),
    ] {
        let auth = bearer(&token);
        let answer = http(
            worker.authority(),
            "POST",
            &format!("/api/sessions/{id}/datasets?kind={kind}&name=crowd.csv"),
            &[&auth],
            &crowd(),
        );
        assert_eq!(answer.status, 422, "{kind}");
        let message = answer.json()["error"].as_str().unwrap().to_owned();
        assert!(message.contains(expected), "{kind}: {message}");
    }
    assert_eq!(get_session(&worker, &id).json(), empty);

    // The owner uploads: the dataset is the parsed battles, addressed by SHA-256.
    let cli = stdout_json(&run_tribunal(&[
        "stats",
        "bt",
        "--input",
        root()
            .join("tests/data/llmfao/crowd-comparisons.csv")
            .to_str()
            .unwrap(),
        "--bootstrap",
        "0",
    ]));
    let stored = upload(&worker, &id, Some(&token), "crowd.csv", &crowd());
    assert_eq!(stored.status, 201);
    let meta = stored.json();
    assert_eq!(meta["rows"], cli["n_battles"]);
    let hash = meta["hash"].as_str().unwrap().to_owned();
    assert!(hash.starts_with("sha256:") && hash.len() == 71);
    // The same content again (another name, another session): stored once.
    let (id2, token2) = create_session(&worker, "second");
    assert_eq!(
        upload(&worker, &id, Some(&token), "again.csv", &crowd()).json()["name"],
        "crowd.csv"
    );
    assert_eq!(
        upload(&worker, &id2, Some(&token2), "copy.csv", &crowd()).status,
        201
    );
    assert_eq!(count(&worker.data_dir, "blobs"), 1);
    let content = http(
        worker.authority(),
        "GET",
        &format!("/api/sessions/{id}/datasets/{hash}"),
        &[],
        b"",
    );
    assert_eq!(content.status, 200);
    assert_eq!(content.body, crowd());

    // Analyses: the token is needed, the dataset must be in the session, the settings valid.
    assert_eq!(save_analysis(&worker, &id, None, &hash).status, 403);
    let missing = save_analysis(&worker, &id, Some(&token), "sha256:00");
    assert_eq!(missing.status, 422);
    assert!(missing.json()["error"]
        .as_str()
        .unwrap()
        .contains("not in this session"));
    let saved = save_analysis(&worker, &id, Some(&token), &hash);
    assert_eq!(saved.status, 201);
    let analysis = saved.json();
    let session = get_session(&worker, &id).json();
    assert_eq!(session["analyses"], serde_json::json!([analysis]));
    assert_eq!(session["datasets"].as_array().unwrap().len(), 1);
    assert_eq!(count(&worker.data_dir, "analyses"), 1);
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[test]
fn session_ids_are_not_enumerable() {
    let worker = api_worker("sessions-enum");
    let ids: Vec<String> = (0..20)
        .map(|k| create_session(&worker, &format!("s{k}")).0)
        .collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len());

    // No listing: neither the collection nor an unknown API path answers with sessions.
    for path in ["/api/sessions", "/api/sessions/", "/api/session-list"] {
        let answer = http(worker.authority(), "GET", path, &[], b"");
        assert!(
            answer.status == 404 || answer.status == 405,
            "{path}: {}",
            answer.status
        );
        let text = String::from_utf8_lossy(&answer.body);
        assert!(
            ids.iter().all(|id| !text.contains(id.as_str())),
            "{path}: {text}"
        );
    }

    // Sequential probing from a real id: every neighbour is a 404, in about the time of a hit.
    let first = u128::from_str_radix(&ids[0], 16).unwrap();
    let mut misses = Vec::new();
    let mut hits = Vec::new();
    for k in 1..=200u128 {
        let probe = format!("{:032x}", first.wrapping_add(k));
        let t = Instant::now();
        let answer = get_session(&worker, &probe);
        misses.push(t.elapsed().as_secs_f64());
        assert_eq!(answer.status, 404, "{probe}");
        assert_eq!(answer.json()["error"], "no such session");
        let t = Instant::now();
        assert_eq!(
            get_session(&worker, &ids[k as usize % ids.len()]).status,
            200
        );
        hits.push(t.elapsed().as_secs_f64());
    }
    let (miss, hit) = (median(misses), median(hits));
    eprintln!(
        "median GET /api/sessions/ID: hit {:.3} ms, miss {:.3} ms",
        hit * 1e3,
        miss * 1e3
    );
    assert!(
        miss < 5.0 * hit && hit < 5.0 * miss,
        "a miss ({miss} s) should take about as long as a hit ({hit} s)"
    );
}

#[test]
fn an_exported_session_imports_into_another_worker_unchanged() {
    let a = api_worker("sessions-export-a");
    let b = api_worker("sessions-export-b");
    assert_ne!(a.data_dir, b.data_dir);
    let (id, token) = create_session(&a, "LLMFAO crowd");
    let hash = upload(&a, &id, Some(&token), "crowd.csv", &crowd()).json()["hash"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(save_analysis(&a, &id, Some(&token), &hash).status, 201);
    let original = get_session(&a, &id).json();

    let export = http(
        a.authority(),
        "GET",
        &format!("/api/sessions/{id}/export"),
        &[],
        b"",
    );
    assert_eq!(export.status, 200);
    let archive = export.json();
    assert_eq!(archive["format"], "tribunal-session");
    assert_eq!(archive["version"], 2);
    assert!(!String::from_utf8_lossy(&export.body).contains(&token));

    // A damaged archive is refused whole: nothing is written on B.
    let mut tampered = archive.clone();
    tampered["datasets"][0]["content"] = serde_json::json!("left,right,winner\nA,B,left\n");
    let refused = http(
        b.authority(),
        "POST",
        "/api/sessions/import",
        &[],
        tampered.to_string().as_bytes(),
    );
    assert_eq!(refused.status, 422);
    assert!(refused.json()["error"]
        .as_str()
        .unwrap()
        .contains("datasets[0].hash"));
    assert_eq!(count(&b.data_dir, "sessions"), 0);
    assert_eq!(count(&b.data_dir, "blobs"), 0);

    let imported = http(
        b.authority(),
        "POST",
        "/api/sessions/import",
        &[],
        &export.body,
    );
    assert_eq!(imported.status, 201);
    let created = imported.json();
    let new_id = created["id"].as_str().unwrap();
    assert_ne!(new_id, id);
    assert_ne!(created["owner_token"].as_str().unwrap(), token);
    // Everything but the id is the same: title, creation time, datasets, analyses (same ids).
    let mut copy = get_session(&b, new_id).json();
    copy["id"] = original["id"].clone();
    assert_eq!(copy, original);
    let content = http(
        b.authority(),
        "GET",
        &format!("/api/sessions/{new_id}/datasets/{hash}"),
        &[],
        b"",
    );
    assert_eq!(content.body, crowd());
    // The new owner's token writes on B; A's token does not.
    let new_token = created["owner_token"].as_str().unwrap();
    assert_eq!(save_analysis(&b, new_id, Some(&token), &hash).status, 403);
    assert_eq!(
        save_analysis(&b, new_id, Some(new_token), &hash).status,
        201
    );
}

#[test]
fn analyses_of_any_kind_are_checked_saved_exported_and_rerun() {
    let a = api_worker("sessions-kinds-a");
    let b = api_worker("sessions-kinds-b");
    let (id, token) = create_session(&a, "kinds");
    let ratings = std::fs::read(root().join("tests/fixtures/small-ratings.csv")).unwrap();
    let upload_kind = |kind: &str, name: &str, bytes: &[u8]| {
        let auth = bearer(&token);
        http(
            a.authority(),
            "POST",
            &format!("/api/sessions/{id}/datasets?kind={kind}&name={name}"),
            &[&auth],
            bytes,
        )
    };
    let stored = upload_kind("ratings", "small-ratings.csv", &ratings);
    assert_eq!(
        stored.status,
        201,
        "{}",
        String::from_utf8_lossy(&stored.body)
    );
    let ratings_hash = stored.json()["hash"].as_str().unwrap().to_owned();
    // A binary dataset: an embedding array, stored and served byte for byte.
    let npy = tribunal::io::embedding_file::npy_f32(&[vec![0.25, -1.5], vec![3.0, 0.0]], 2);
    let stored = upload_kind("embeddings", "e.npy", &npy);
    assert_eq!(
        stored.status,
        201,
        "{}",
        String::from_utf8_lossy(&stored.body)
    );
    assert_eq!(stored.json()["rows"], 2);
    let npy_hash = stored.json()["hash"].as_str().unwrap().to_owned();
    let served = http(
        a.authority(),
        "GET",
        &format!("/api/sessions/{id}/datasets/{npy_hash}"),
        &[],
        b"",
    );
    assert_eq!(served.body, npy);
    let refused = upload_kind("embeddings", "bad.npy", b"not an array");
    assert_eq!(refused.status, 422);

    // The CLI's agreement report and the spec it records.
    let cli = stdout_json(&run_tribunal(&[
        "stats",
        "agree",
        "--input",
        "tests/fixtures/small-ratings.csv",
        "--bootstrap",
        "60",
        "--seed",
        "4",
        "--pair",
        "judge,alice",
    ]));
    let spec = cli["record"]["spec"].clone();
    assert_eq!(spec["inputs"]["ratings"]["hash"], ratings_hash.as_str());
    let saved = save_spec(&a, &id, &token, "agreement", &spec);
    assert_eq!(
        saved.status,
        201,
        "{}",
        String::from_utf8_lossy(&saved.body)
    );
    let analysis_id = saved.json()["id"].as_str().unwrap().to_owned();
    // A role read from a dataset of another kind, or from none of the session's, is refused.
    let mut wrong = spec.clone();
    wrong["inputs"]["ratings"]["hash"] = npy_hash.clone().into();
    let answer = save_spec(&a, &id, &token, "wrong", &wrong);
    assert_eq!(answer.status, 422);
    assert!(
        answer.json()["error"]
            .as_str()
            .unwrap()
            .contains("reads a ratings dataset in the role `ratings`; e.npy is embeddings"),
        "{}",
        answer.json()
    );
    wrong["inputs"]["ratings"]["hash"] = "sha256:00".into();
    let answer = save_spec(&a, &id, &token, "wrong", &wrong);
    assert_eq!(answer.status, 422);
    assert!(answer.json()["error"]
        .as_str()
        .unwrap()
        .contains("not in this session"));
    let mut unknown = spec.clone();
    unknown["analysis"] = "nonsense".into();
    let answer = save_spec(&a, &id, &token, "wrong", &unknown);
    assert_eq!(answer.status, 422);
    assert!(answer.json()["error"]
        .as_str()
        .unwrap()
        .contains("not an analysis spec"));

    // Exported (the array as base64) and imported on B: the same session, the same analyses.
    let original = get_session(&a, &id).json();
    assert_eq!(original["analyses"][0]["spec"], spec);
    let (export, new_id) = tribunal_e2e::exported_and_imported(&a, &id, &b);
    let archive = export.json();
    assert_eq!(archive["version"], 2);
    let array = archive["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "embeddings")
        .unwrap();
    assert!(array["content"].as_str().unwrap().is_ascii());
    let mut copy = get_session(&b, &new_id).json();
    copy["id"] = original["id"].clone();
    assert_eq!(copy, original);
    let served = http(
        b.authority(),
        "GET",
        &format!("/api/sessions/{new_id}/datasets/{npy_hash}"),
        &[],
        b"",
    );
    assert_eq!(served.body, npy);

    // The saved analysis, downloaded from B with its dataset, reruns into the CLI's numbers.
    let dir = tribunal_e2e::temp_dir("sessions-kinds");
    let saved_spec = &copy["analyses"][0];
    assert_eq!(saved_spec["id"], analysis_id.as_str());
    let spec_path = dir.join("analysis.json");
    std::fs::write(&spec_path, saved_spec.to_string()).unwrap();
    let data = http(
        b.authority(),
        "GET",
        &format!("/api/sessions/{new_id}/datasets/{ratings_hash}"),
        &[],
        b"",
    );
    let data_path = dir.join("downloaded.csv");
    std::fs::write(&data_path, &data.body).unwrap();
    let mut rerun = stdout_json(&run_tribunal(&[
        "stats",
        "run",
        spec_path.to_str().unwrap(),
        "--input",
        &format!("ratings={}", data_path.to_str().unwrap()),
    ]));
    let mut cli = cli;
    cli["record"].take();
    rerun["record"].take();
    assert_eq!(rerun, cli);
}

/// The owner deletes an analysis, a dataset and the session, on `worker` (whose store is
/// SQLite or PostgreSQL); each is then 410 Gone — API routes and the app's share links — and
/// the blob no session holds is gone from the store (`blobs` counts the store's blobs).
fn deleting_answers_gone_and_removes_orphaned_blobs(worker: &Worker, blobs: &dyn Fn() -> i64) {
    let (id, token) = create_session(worker, "to delete");
    let (other, other_token) = create_session(worker, "keeps the crowd file");
    let small = b"model_a,model_b,winner\nA,B,model_a\nB,A,model_b\n".to_vec();
    let hash = upload(worker, &id, Some(&token), "small.csv", &small).json()["hash"]
        .as_str()
        .unwrap()
        .to_owned();
    let crowd_hash = upload(worker, &id, Some(&token), "crowd.csv", &crowd()).json()["hash"]
        .as_str()
        .unwrap()
        .to_owned();
    upload(worker, &other, Some(&other_token), "crowd.csv", &crowd());
    let saved = save_analysis(worker, &id, Some(&token), &hash);
    assert_eq!(saved.status, 201);
    let analysis = saved.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(blobs(), 2);
    let delete = |path: &str, token: Option<&str>| {
        let auth = token.map(bearer);
        let headers: Vec<&str> = auth.iter().map(String::as_str).collect();
        http(worker.authority(), "DELETE", path, &headers, b"")
    };
    let session_path = format!("/api/sessions/{id}");
    let dataset_path = format!("{session_path}/datasets/{hash}");
    let analysis_path = format!("{session_path}/analyses/{analysis}");
    let get = |path: &str| http(worker.authority(), "GET", path, &[], b"");

    // Only the owner deletes; a dataset an analysis reads is kept, naming the analysis.
    assert_eq!(delete(&session_path, None).status, 403);
    assert_eq!(delete(&session_path, Some(&other_token)).status, 403);
    let refused = delete(&dataset_path, Some(&token));
    assert_eq!(refused.status, 409);
    let error = refused.json()["error"].as_str().unwrap().to_owned();
    assert!(error.contains("\"crowd leaderboard\""), "{error}");

    let share = format!("/s/{id}/a/{analysis}");
    assert_eq!(get(&share).status, 200);
    assert_eq!(delete(&analysis_path, Some(&token)).status, 200);
    assert_eq!(delete(&analysis_path, Some(&token)).status, 404);
    let gone = get(&share);
    assert_eq!(gone.status, 410, "the analysis's share link");
    assert!(String::from_utf8_lossy(&gone.body).contains("<title>app</title>"));
    assert_eq!(get(&format!("/s/{id}/a/never")).status, 200);

    assert_eq!(delete(&dataset_path, Some(&token)).status, 200);
    let gone = get(&dataset_path);
    assert_eq!(gone.status, 410);
    assert!(gone.json()["error"].as_str().unwrap().contains("deleted"));
    assert_eq!(
        blobs(),
        1,
        "the small file's blob went; the crowd file's stays"
    );

    assert_eq!(delete(&session_path, Some(&token)).status, 200);
    for path in [
        session_path.clone(),
        format!("{session_path}/export"),
        format!("{session_path}/datasets/{crowd_hash}"),
    ] {
        let gone = get(&path);
        assert_eq!(gone.status, 410, "{path}");
        assert_eq!(
            gone.json()["error"],
            "this session was deleted by its owner",
            "{path}"
        );
    }
    assert_eq!(get(&format!("/s/{id}")).status, 410);
    assert_eq!(delete(&session_path, Some(&token)).status, 410);
    assert_eq!(
        get("/api/sessions/0123456789abcdef0123456789abcdef").status,
        404
    );
    assert_eq!(blobs(), 1, "the other session still holds the crowd file");
    assert_eq!(get(&format!("/api/sessions/{other}")).status, 200);
}

#[test]
fn deleting_answers_gone_and_removes_orphaned_blobs_on_sqlite() {
    let worker = api_worker("sessions-delete");
    let db = worker.data_dir.join("tribunal.sqlite3");
    deleting_answers_gone_and_removes_orphaned_blobs(&worker, &|| {
        rusqlite::Connection::open(&db)
            .unwrap()
            .query_row("SELECT COUNT(*) FROM blobs", [], |r| r.get(0))
            .unwrap()
    });
}

#[test]
fn deleting_answers_gone_and_removes_orphaned_blobs_on_postgres() {
    let url = tribunal_e2e::postgres_database("delete");
    let worker = tribunal_e2e::api_worker("sessions-delete-pg", &["--store", &url]);
    deleting_answers_gone_and_removes_orphaned_blobs(&worker, &|| {
        let output = std::process::Command::new("psql")
            .args(["-qtA", &url, "-c", "SELECT COUNT(*) FROM blobs"])
            .output()
            .expect("running psql");
        String::from_utf8_lossy(&output.stdout)
            .trim()
            .parse()
            .unwrap()
    });
}
