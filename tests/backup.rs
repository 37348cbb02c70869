//! `tribunal backup` and `tribunal restore` on real stores: a backup taken while a judge run
//! is writing (SQLite, through the stand-in fleet) restores into a new SQLite store as a
//! consistent snapshot (the run's events a gapless prefix, each judged item's judgment there);
//! after the run, SQLite → archive → PostgreSQL → archive → SQLite keeps the session's export
//! byte for byte; a restore into a store that holds anything, or a backup over an existing
//! file, is refused with nothing changed.

use std::path::Path;
use std::time::{Duration, Instant};
use tribunal_e2e::{
    api_worker, create_session, http, postgres_database, run_tribunal, save_spec, start_run,
    temp_dir, upload_dataset, Fleet, Worker,
};

fn count(db: &Path, sql: &str) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

fn ok(args: &[&str]) {
    let output = run_tribunal(args);
    assert!(
        output.status.success(),
        "tribunal {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn export(worker: &Worker, id: &str) -> Vec<u8> {
    let answer = http(
        worker.authority(),
        "GET",
        &format!("/api/sessions/{id}/export"),
        &[],
        b"",
    );
    assert_eq!(answer.status, 200);
    answer.body
}

#[test]
fn backups_taken_during_a_run_restore_into_either_store() {
    const ITEMS: usize = 150;
    let fleet = Fleet::start(20);
    let dir = temp_dir("backup");
    let worker = api_worker("backup-source", &["--fleet", &fleet.url()]);
    let source_db = worker.data_dir.join("tribunal.sqlite3");
    let (id, token) = create_session(&worker, "backed up");
    let mut items = String::from("id,instruction,response,response_b\n");
    for i in 0..ITEMS {
        items.push_str(&format!("q{i},Question {i}?,First {i},Second {i}\n"));
    }
    let hash = upload_dataset(&worker, &id, &token, "items", "items.csv", items.as_bytes());
    let battles = b"model_a,model_b,winner\nA,B,model_a\nB,C,model_b\nA,C,model_a\n";
    let dataset = upload_dataset(&worker, &id, &token, "battles", "b.csv", battles);
    let spec = serde_json::json!({
        "statistic": "leaderboard", "dataset": dataset,
        "bootstrap": { "rounds": 20, "seed": 1, "level": 0.95 }, "anchor": null,
    });
    assert_eq!(save_spec(&worker, &id, &token, "board", &spec).status, 201);
    let auth = format!("Authorization: Bearer {token}");
    let body = fleet.run_body(&hash);
    let started = start_run(&worker, &id, &[&auth], &body);
    assert_eq!(started.status, 202);
    let stream = started.json()["stream"].as_str().unwrap().to_owned();
    let events_sql = format!("SELECT COUNT(*) FROM events WHERE stream = '{stream}'");

    // Mid-run: the backup is a snapshot.
    let started = Instant::now();
    while count(&source_db, &events_sql) < 20 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the run did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let during = dir.join("during.tribunal");
    ok(&[
        "backup",
        "--data-dir",
        worker.data_dir.to_str().unwrap(),
        "--out",
        during.to_str().unwrap(),
    ]);
    let total = (ITEMS + 2) as i64;
    let restored = dir.join("restored-during");
    ok(&[
        "restore",
        "--from",
        during.to_str().unwrap(),
        "--data-dir",
        restored.to_str().unwrap(),
    ]);
    let restored_db = restored.join("tribunal.sqlite3");
    let events = count(&restored_db, &events_sql);
    assert!(
        (20..total).contains(&events),
        "a mid-run snapshot: {events} events"
    );
    assert_eq!(
        count(
            &restored_db,
            &format!("SELECT MAX(seq) FROM events WHERE stream = '{stream}'")
        ),
        events,
        "the events are 1..{events}, no gap"
    );
    let judgments = count(&restored_db, "SELECT COUNT(*) FROM judgments");
    assert!(
        judgments >= events - 1,
        "{judgments} judgments for {events} events"
    );
    assert_eq!(count(&restored_db, "SELECT COUNT(*) FROM analyses"), 1);
    assert_eq!(count(&restored_db, "SELECT COUNT(*) FROM blobs"), 2);

    // After the run: SQLite → archive → PostgreSQL → archive → SQLite, the same session.
    let started = Instant::now();
    while count(&source_db, &events_sql) < total {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the run did not finish"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let after = dir.join("after.tribunal");
    ok(&[
        "backup",
        "--data-dir",
        worker.data_dir.to_str().unwrap(),
        "--out",
        after.to_str().unwrap(),
    ]);
    let url = postgres_database("restored");
    ok(&[
        "restore",
        "--from",
        after.to_str().unwrap(),
        "--store",
        &url,
    ]);
    let on_postgres = api_worker("backup-postgres", &["--store", &url]);
    let original = export(&worker, &id);
    assert_eq!(export(&on_postgres, &id), original);
    let again = dir.join("again.tribunal");
    ok(&["backup", "--store", &url, "--out", again.to_str().unwrap()]);
    // Into the (empty) store of a running server, which then serves it.
    let on_sqlite = api_worker("backup-back", &[]);
    let back = on_sqlite.data_dir.to_str().unwrap();
    ok(&[
        "restore",
        "--from",
        again.to_str().unwrap(),
        "--data-dir",
        back,
    ]);
    assert_eq!(export(&on_sqlite, &id), original);
    let back_db = on_sqlite.data_dir.join("tribunal.sqlite3");
    assert_eq!(count(&back_db, &events_sql), total);
    assert_eq!(
        count(&back_db, "SELECT COUNT(*) FROM judgments"),
        count(&source_db, "SELECT COUNT(*) FROM judgments")
    );
    // A store that holds anything is not restored into; an archive is not overwritten.
    let refused = run_tribunal(&[
        "restore",
        "--from",
        after.to_str().unwrap(),
        "--store",
        &url,
    ]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not empty"));
    let refused = run_tribunal(&["backup", "--store", &url, "--out", after.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("exists"));
    assert_eq!(export(&on_postgres, &id), original);
}
