//! The same tests on both backends. The PostgreSQL ones need a server: `TRIBUNAL_TEST_POSTGRES`
//! is its URL without a database (`scripts/postgres.sh start` prints it; `scripts/test.sh`
//! starts one on loopback); each test creates a database of its own.

use super::postgres::PgStore;
use super::sqlite::SqliteStore;
use super::*;
use std::collections::HashSet;
use tribunal::analysis::{Analysis as Statistic, Inputs, Spec};
use tribunal::io::dataset_kind::DatasetKind;
use tribunal::rankings::kinds::LeaderboardSpec;
use tribunal::sessions::session::check_dataset;

fn sqlite(name: &str) -> (Store, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("tribunal-store-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.sqlite3");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    (Arc::new(SqliteStore::open(&path).unwrap()), path)
}

/// The URL of a new, empty database on the test server.
pub fn postgres_database(name: &str) -> String {
    let server = std::env::var("TRIBUNAL_TEST_POSTGRES").expect(
        "TRIBUNAL_TEST_POSTGRES: the URL of a PostgreSQL server for the store tests \
         (`eval $(bash scripts/postgres.sh start)` starts one on loopback; scripts/test.sh does)",
    );
    let db = format!("t_{name}_{}", std::process::id());
    let admin = format!("{server}/postgres");
    let name = db.clone();
    // The synchronous client runs its own runtime: keep it off any caller's.
    std::thread::spawn(move || {
        let mut client = ::postgres::Client::connect(&admin, ::postgres::NoTls).unwrap();
        client
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
            .unwrap();
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
    })
    .join()
    .unwrap();
    format!("{server}/{db}")
}

fn postgres(name: &str) -> (Store, String) {
    let url = postgres_database(name);
    (Arc::new(PgStore::connect(&url).unwrap()), url)
}

fn key(item: &str, order: &str) -> JudgmentKey {
    JudgmentKey {
        session: "s".into(),
        item: item.into(),
        order: order.into(),
        repeat: 0,
        variant: String::new(),
    }
}

fn events_append_in_order_and_survive_reopen(store: Store, reopen: &dyn Fn() -> Store) {
    let a = store.append_event("s", "first").unwrap();
    let b = store.append_event("s", "b").unwrap();
    let other = store.append_event("t", "x").unwrap();
    assert_eq!((a.seq, b.seq, other.seq), (1, 2, 1));
    assert!(b.id > a.id);
    drop(store);
    let store = reopen();
    assert_eq!(store.schema_version().unwrap(), 7);
    assert_eq!(
        store.events("s").unwrap(),
        [(1, "first".to_owned()), (2, "b".to_owned())]
    );
    assert_eq!(
        store.events_after("s", a.id).unwrap(),
        [(b.id, 2, "b".to_owned())]
    );
    assert_eq!(store.append_event("s", "c").unwrap().seq, 3);
}

/// Four threads, each with its own connection, append to one stream at once: its seqs are
/// 1..=200 with none missing or repeated, and its ids grow with them.
fn concurrent_appends_are_dense_and_ordered(open: &(dyn Fn() -> Store + Sync)) {
    std::thread::scope(|scope| {
        for t in 0..4 {
            scope.spawn(move || {
                let store = open();
                for i in 0..50 {
                    store.append_event("run:busy", &format!("{t}-{i}")).unwrap();
                }
            });
        }
    });
    let events = open().events_after("run:busy", 0).unwrap();
    let seqs: Vec<u32> = events.iter().map(|e| e.1).collect();
    assert_eq!(seqs, (1..=200).collect::<Vec<u32>>(), "in id order");
}

/// A streamed run: each new judgment stores its event with it, a repeated one none; the run
/// is offered to workers once drained so someone ends it, and it ends once, with its last
/// event; an ended run gives no more units or events until it is queued again (a restart).
fn a_run_ends_once_with_its_events(a: Store, b: Store) {
    let event = |body| {
        Some(NewEvent {
            stream: "run:e",
            body,
        })
    };
    a.append_event("run:e", "started").unwrap();
    assert_eq!(a.run_ended("judge:e").unwrap(), None);
    a.enqueue("judge:e", "{}", 3).unwrap();
    assert_eq!(b.run_ended("judge:e").unwrap(), Some(false));
    assert_eq!(a.claim("judge:e", "wa", 3, 60.0).unwrap(), [0, 1, 2]);
    let done = a
        .complete("judge:e", 0, &key("e0", "ab"), "{}", event("j0"))
        .unwrap();
    assert!(done.new);
    assert_eq!(done.event.map(|e| e.seq), Some(2));
    let again = b
        .complete("judge:e", 0, &key("e0", "ab"), "{}", event("j0 again"))
        .unwrap();
    assert_eq!(
        again,
        Completed {
            new: false,
            event: None
        }
    );
    // A unit stored without an event (kept from an earlier run) adds none.
    a.complete("judge:e", 1, &key("e1", "ab"), "{}", None)
        .unwrap();
    assert!(a.open_runs(60.0).unwrap().is_empty(), "unit 2 is held");
    a.complete("judge:e", 2, &key("e2", "ab"), "{}", event("j2"))
        .unwrap();
    assert_eq!(
        b.open_runs(60.0).unwrap(),
        ["judge:e"],
        "drained, to be ended"
    );
    let ended = b.end_run("judge:e", event("finished")).unwrap();
    assert_eq!(ended.and_then(|e| e.event).map(|e| e.seq), Some(4));
    assert_eq!(a.end_run("judge:e", event("finished again")).unwrap(), None);
    assert_eq!(a.run_ended("judge:e").unwrap(), Some(true));
    assert!(a.open_runs(0.0).unwrap().is_empty());
    let late = a
        .complete("judge:e", 2, &key("e3", "ab"), "{}", event("late"))
        .unwrap();
    assert_eq!(
        late,
        Completed {
            new: true,
            event: None
        }
    );
    let bodies: Vec<String> = b
        .events("run:e")
        .unwrap()
        .into_iter()
        .map(|e| e.1)
        .collect();
    assert_eq!(bodies, ["started", "j0", "j2", "finished"]);
    let seconds = a.run_seconds("judge:e").unwrap();
    assert!((0.0..60.0).contains(&seconds), "{seconds}");
    // Queued again: open (drained) and ended anew.
    a.enqueue("judge:e", "{}", 3).unwrap();
    assert_eq!(a.open_runs(60.0).unwrap(), ["judge:e"]);
    assert!(a.end_run("judge:e", None).unwrap().is_some());
    // An ended run with units left gives none to claim.
    a.enqueue("judge:f", "{}", 2).unwrap();
    assert!(a.end_run("judge:f", None).unwrap().is_some());
    assert!(b.claim("judge:f", "wb", 2, 60.0).unwrap().is_empty());
    assert!(b.open_runs(60.0).unwrap().is_empty());
}

fn a_judgment_key_is_stored_once(store: Store) {
    let ab = key("p1", "ab");
    assert!(store.put_judgment(&ab, "{\"first\":1}").unwrap());
    assert!(!store.put_judgment(&ab, "{\"second\":2}").unwrap());
    assert!(store.put_judgment(&key("p1", "ba"), "{}").unwrap());
    let rows = store.judgments("s").unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0], (ab, "{\"first\":1}".to_owned()));
    assert!(store.judgments("other").unwrap().is_empty());
}

/// `sql` runs one statement on the store's database: a `SELECT COUNT(*)`'s count, or the rows
/// another statement changed.
fn an_import_is_written_whole_or_not_at_all(store: Store, sql: &dyn Fn(&str) -> i64) {
    let csv = "model_a,model_b,winner\nA,B,model_a\nB,C,tie\n";
    let meta = check_dataset(DatasetKind::Battles, "b.csv", csv.as_bytes())
        .unwrap()
        .meta;
    let mut inputs = Inputs::new();
    inputs.insert("battles", "b.csv", csv.as_bytes().to_vec());
    let analysis = Analysis {
        id: "a1".to_owned(),
        title: "board".to_owned(),
        spec: Spec::new(Statistic::Leaderboard(LeaderboardSpec::default()), &inputs),
        created_with: Some(crate::build_info::tool_version()),
    };
    store.create_session("s1", "h", "first").unwrap();
    assert_eq!(
        store.add_dataset("s1", &meta, csv.as_bytes()).unwrap(),
        meta
    );
    store.add_analysis("s1", &analysis).unwrap();
    let mut archive = store.archive("s1").unwrap().unwrap();
    archive.validate("archive").unwrap();
    // The record of who made it survives the store: the analysis's tool version, and the
    // export's own.
    let current = Some(crate::build_info::tool_version());
    assert_eq!(archive.analyses[0].created_with, current);
    assert_eq!(archive.created_with, current);
    store.import("s2", "h2", &archive).unwrap();
    let mut copy = store.session("s2").unwrap().unwrap();
    copy.id = "s1".to_owned();
    assert_eq!(Some(copy), store.session("s1").unwrap());
    assert_eq!(store.owner_hash("s2").unwrap().as_deref(), Some("h2"));
    // An archive that fails half-way (a duplicate analysis id) leaves no trace.
    archive.analyses.push(analysis);
    assert!(store.import("s3", "h3", &archive).is_err());
    assert_eq!(store.session("s3").unwrap(), None);
    assert_eq!(store.owner_hash("s3").unwrap(), None);
    assert_eq!(
        sql("SELECT COUNT(*) FROM blobs"),
        1,
        "one content, three sessions' worth of references"
    );
    // A spec stored by the previous release (version 1, leaderboard-only) reads as the
    // leaderboard spec it meant.
    let v1 = format!(
        r#"{{"statistic":"leaderboard","dataset":"{}","bootstrap":{{"rounds":300,"seed":7,"level":0.9}},"anchor":null}}"#,
        meta.hash
    );
    let changed = sql(&format!(
        "UPDATE analyses SET spec = '{v1}' WHERE session = 's1' AND id = 'a1'"
    ));
    assert_eq!(changed, 1);
    let read = store.session("s1").unwrap().unwrap().analyses[0]
        .spec
        .clone();
    let Statistic::Leaderboard(board) = &read.analysis else {
        panic!("expected a leaderboard, found {read:?}");
    };
    assert_eq!((board.bootstrap.rounds, board.bootstrap.seed), (300, 7));
    assert_eq!(read.inputs["battles"].hash, meta.hash);
    store
        .archive("s1")
        .unwrap()
        .unwrap()
        .validate("archive")
        .unwrap();
}

/// Two stores on one database stand for two workers.
fn claims_are_disjoint_and_leases_lapse(a: Store, b: Store) {
    a.enqueue("judge:q", "{\"spec\":1}", 10).unwrap();
    // Queuing again keeps the first spec and units.
    b.enqueue("judge:q", "{\"spec\":2}", 99).unwrap();
    assert_eq!(
        b.queued_spec("judge:q").unwrap().as_deref(),
        Some("{\"spec\":1}")
    );
    assert_eq!(a.open_runs(60.0).unwrap(), ["judge:q"]);
    let first = a.claim("judge:q", "wa", 4, 60.0).unwrap();
    let second = b.claim("judge:q", "wb", 4, 60.0).unwrap();
    assert_eq!(first, [0, 1, 2, 3]);
    assert_eq!(second, [4, 5, 6, 7]);
    let progress = a.progress("judge:q", 60.0).unwrap();
    assert_eq!(
        (progress.pending, progress.claimed, progress.done),
        (2, 8, 0)
    );
    assert!(
        a.complete("judge:q", 0, &key("i0", "ab"), "{}", None)
            .unwrap()
            .new
    );
    // A second completion of the same judgment (a lapsed lease judged twice) stores nothing.
    assert!(
        !b.complete("judge:q", 0, &key("i0", "ab"), "{\"again\":1}", None)
            .unwrap()
            .new
    );
    assert_eq!(b.judgments("s").unwrap()[0].1, "{}");
    assert_eq!(b.claim("judge:q", "wb", 10, 60.0).unwrap(), [8, 9]);
    assert!(a.claim("judge:q", "wa", 10, 60.0).unwrap().is_empty());
    assert!(a.open_runs(60.0).unwrap().is_empty());
    // Queues other than `judge:` ones (servers' own runs, in stores made before version 7)
    // are not offered to workers.
    a.enqueue("serve:private", "{}", 3).unwrap();
    assert_eq!(a.open_runs(60.0).unwrap(), Vec::<String>::new());
    assert_eq!(a.claim("serve:private", "wa", 1, 60.0).unwrap(), [0]);
    // A heartbeat renews the worker's own claims only.
    assert_eq!(a.renew("wa").unwrap(), 4);
    assert_eq!(b.renew("wb").unwrap(), 6);
    assert_eq!(a.renew("nobody").unwrap(), 0);
    // With a zero lease every claimed unit is free again; done ones never are.
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(a.open_runs(0.0).unwrap(), ["judge:q"]);
    assert_eq!(a.claim("serve:private", "wa", 9, 0.0).unwrap(), [0, 1, 2]);
    assert_eq!(
        a.claim("judge:q", "wa", 20, 0.0).unwrap(),
        [1, 2, 3, 4, 5, 6, 7, 8, 9]
    );
    let progress = b.progress("judge:q", 60.0).unwrap();
    assert_eq!(
        (progress.pending, progress.claimed, progress.done),
        (0, 9, 1)
    );
}

/// Eight threads, each with its own connection, claim one unit at a time until none is left:
/// every unit is claimed exactly once.
fn concurrent_claims_never_overlap(open: &(dyn Fn() -> Store + Sync)) {
    open().enqueue("judge:c", "{}", 400).unwrap();
    let claimed: Vec<Vec<u32>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..8)
            .map(|w| {
                scope.spawn(move || {
                    let store = open();
                    let mut mine = Vec::new();
                    loop {
                        let units = store.claim("judge:c", &format!("w{w}"), 3, 600.0).unwrap();
                        if units.is_empty() {
                            break mine;
                        }
                        for unit in units {
                            let judgment = JudgmentKey {
                                item: format!("i{unit}"),
                                ..key("", "ab")
                            };
                            assert!(
                                store
                                    .complete("judge:c", unit, &judgment, "{}", None)
                                    .unwrap()
                                    .new
                            );
                            mine.push(unit);
                        }
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let all: Vec<u32> = claimed.iter().flatten().copied().collect();
    assert_eq!(all.len(), 400, "a unit was claimed twice or lost");
    assert_eq!(all.iter().collect::<HashSet<_>>().len(), 400);
    let progress = open().progress("judge:c", 600.0).unwrap();
    assert_eq!(progress.done, 400);
}

/// Deleting each part: what it removes, what it keeps, the blobs no session holds, the
/// tombstones, and a run that a worker holds is not deleted.
fn deletion_removes_the_part_and_its_orphaned_blobs(store: Store, sql: &dyn Fn(&str) -> i64) {
    let shared = "model_a,model_b,winner\nA,B,model_a\n";
    let own = "model_a,model_b,winner\nA,B,model_b\nB,C,model_a\n";
    let dataset = |csv: &str| {
        check_dataset(DatasetKind::Battles, "b.csv", csv.as_bytes())
            .unwrap()
            .meta
    };
    store.create_session("s1", "h", "first").unwrap();
    store.create_session("s2", "h", "second").unwrap();
    store
        .add_dataset("s1", &dataset(shared), shared.as_bytes())
        .unwrap();
    store
        .add_dataset("s1", &dataset(own), own.as_bytes())
        .unwrap();
    store
        .add_dataset("s2", &dataset(shared), shared.as_bytes())
        .unwrap();
    let mut inputs = Inputs::new();
    inputs.insert("battles", "b.csv", own.as_bytes().to_vec());
    let analysis = Analysis {
        id: "a1".to_owned(),
        title: "board".to_owned(),
        spec: Spec::new(Statistic::Leaderboard(LeaderboardSpec::default()), &inputs),
        created_with: None,
    };
    store.add_analysis("s1", &analysis).unwrap();
    // A run "k1" of s1: its stream, judgments, record and queue.
    store.append_event("run:s1:k1", "{}").unwrap();
    let other = JudgmentKey {
        session: "s2:k9".to_owned(),
        ..key("i1", "ab")
    };
    store.put_judgment(&other, "{}").unwrap();
    let run_key = JudgmentKey {
        session: "s1:k1".to_owned(),
        ..key("i1", "ab")
    };
    store.put_judgment(&run_key, "{}").unwrap();
    store.put_run("s1:k1", "1", "{}").unwrap();
    store.enqueue("serve:s1:k1:abcd", "{}", 2).unwrap();
    assert_eq!(
        store.claim("serve:s1:k1:abcd", "w", 1, 600.0).unwrap(),
        vec![0]
    );
    assert_eq!(sql("SELECT COUNT(*) FROM blobs"), 2);

    let hash_own = dataset(own).hash;
    let hash_shared = dataset(shared).hash;
    let deletion = |part: &Part| store.delete("s1", part).unwrap();
    assert_eq!(
        deletion(&Part::Analysis("a1".to_owned())),
        Deletion::Deleted
    );
    assert_eq!(
        deletion(&Part::Analysis("a1".to_owned())),
        Deletion::Missing
    );
    assert!(store
        .deleted("s1", &Part::Analysis("a1".to_owned()))
        .unwrap());
    assert!(!store
        .deleted("s1", &Part::Analysis("a2".to_owned()))
        .unwrap());
    assert_eq!(store.session("s1").unwrap().unwrap().analyses, vec![]);

    // The only holder of `own` lets it go; `shared` stays while s2 holds it.
    assert_eq!(
        deletion(&Part::Dataset(hash_own.clone())),
        Deletion::Deleted
    );
    assert_eq!(store.dataset("s1", &hash_own).unwrap(), None);
    assert_eq!(sql("SELECT COUNT(*) FROM blobs"), 1);
    assert_eq!(
        deletion(&Part::Dataset(hash_shared.clone())),
        Deletion::Deleted
    );
    assert_eq!(sql("SELECT COUNT(*) FROM blobs"), 1);
    assert_eq!(
        store.dataset("s2", &hash_shared).unwrap().as_deref(),
        Some(shared.as_bytes())
    );

    // A run a worker holds a unit of is kept, and so is its session; once the unit is done,
    // both go, leaving the other session's judgments alone.
    assert_eq!(deletion(&Part::Run("k1".to_owned())), Deletion::Busy);
    assert_eq!(deletion(&Part::Session), Deletion::Busy);
    assert_eq!(store.events("run:s1:k1").unwrap().len(), 1);
    assert!(store
        .complete("serve:s1:k1:abcd", 0, &run_key, "{}", None)
        .is_ok());
    assert_eq!(deletion(&Part::Run("k1".to_owned())), Deletion::Deleted);
    assert_eq!(store.events("run:s1:k1").unwrap(), vec![]);
    assert_eq!(store.judgments("s1:k1").unwrap(), vec![]);
    assert_eq!(store.judgments("s2:k9").unwrap().len(), 1);
    assert_eq!(sql("SELECT COUNT(*) FROM run_units"), 0);
    assert_eq!(sql("SELECT COUNT(*) FROM runs"), 0);

    assert_eq!(deletion(&Part::Session), Deletion::Deleted);
    assert_eq!(store.session("s1").unwrap(), None);
    assert_eq!(store.owner_hash("s1").unwrap(), None);
    assert!(store.deleted("s1", &Part::Session).unwrap());
    assert!(store
        .deleted("s1", &Part::Dataset("anything".to_owned()))
        .unwrap());
    assert_eq!(deletion(&Part::Session), Deletion::Missing);
    assert!(store.session("s2").unwrap().is_some());
    assert!(!store.deleted("s2", &Part::Session).unwrap());
    // Deleting s2 too leaves no blob.
    assert_eq!(
        store.delete("s2", &Part::Session).unwrap(),
        Deletion::Deleted
    );
    assert_eq!(sql("SELECT COUNT(*) FROM blobs"), 0);
}

#[test]
fn sqlite_events_append_in_order_and_survive_reopen() {
    let (store, path) = sqlite("idem");
    events_append_in_order_and_survive_reopen(store, &|| {
        Arc::new(SqliteStore::open(&path).unwrap())
    });
}

#[test]
fn postgres_events_append_in_order_and_survive_reopen() {
    let (store, url) = postgres("idem");
    events_append_in_order_and_survive_reopen(store, &|| Arc::new(PgStore::connect(&url).unwrap()));
}

#[test]
fn sqlite_concurrent_appends_are_dense_and_ordered() {
    let (_, path) = sqlite("appends");
    concurrent_appends_are_dense_and_ordered(&|| Arc::new(SqliteStore::open(&path).unwrap()));
}

#[test]
fn postgres_concurrent_appends_are_dense_and_ordered() {
    let (_, url) = postgres("appends");
    concurrent_appends_are_dense_and_ordered(&|| Arc::new(PgStore::connect(&url).unwrap()));
}

#[test]
fn sqlite_a_run_ends_once_with_its_events() {
    let (a, path) = sqlite("ending");
    a_run_ends_once_with_its_events(a, Arc::new(SqliteStore::open(&path).unwrap()));
}

#[test]
fn postgres_a_run_ends_once_with_its_events() {
    let (a, url) = postgres("ending");
    a_run_ends_once_with_its_events(a, Arc::new(PgStore::connect(&url).unwrap()));
}

#[test]
fn sqlite_a_judgment_key_is_stored_once() {
    a_judgment_key_is_stored_once(sqlite("judgments").0);
}

#[test]
fn postgres_a_judgment_key_is_stored_once() {
    a_judgment_key_is_stored_once(postgres("judgments").0);
}

#[test]
fn sqlite_an_import_is_written_whole_or_not_at_all() {
    let (store, path) = sqlite("import");
    an_import_is_written_whole_or_not_at_all(store, &|statement| {
        let conn = rusqlite::Connection::open(&path).unwrap();
        if statement.starts_with("SELECT") {
            conn.query_row(statement, [], |r| r.get(0)).unwrap()
        } else {
            conn.execute(statement, []).unwrap() as i64
        }
    });
}

#[test]
fn postgres_an_import_is_written_whole_or_not_at_all() {
    let (store, url) = postgres("import");
    an_import_is_written_whole_or_not_at_all(store, &|statement| {
        let (url, statement) = (url.clone(), statement.to_owned());
        std::thread::spawn(move || {
            let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
            if statement.starts_with("SELECT") {
                client.query_one(&statement, &[]).unwrap().get(0)
            } else {
                client.execute(&statement, &[]).unwrap() as i64
            }
        })
        .join()
        .unwrap()
    });
}

#[test]
fn sqlite_deletion_removes_the_part_and_its_orphaned_blobs() {
    let (store, path) = sqlite("deletion");
    deletion_removes_the_part_and_its_orphaned_blobs(store, &|statement| {
        rusqlite::Connection::open(&path)
            .unwrap()
            .query_row(statement, [], |r| r.get(0))
            .unwrap()
    });
}

#[test]
fn postgres_deletion_removes_the_part_and_its_orphaned_blobs() {
    let (store, url) = postgres("deletion");
    deletion_removes_the_part_and_its_orphaned_blobs(store, &|statement| {
        let (url, statement) = (url.clone(), statement.to_owned());
        std::thread::spawn(move || {
            let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
            client.query_one(&statement, &[]).unwrap().get(0)
        })
        .join()
        .unwrap()
    });
}

#[test]
fn sqlite_claims_are_disjoint_and_leases_lapse() {
    let (a, path) = sqlite("claims");
    claims_are_disjoint_and_leases_lapse(a, Arc::new(SqliteStore::open(&path).unwrap()));
}

#[test]
fn postgres_claims_are_disjoint_and_leases_lapse() {
    let (a, url) = postgres("claims");
    claims_are_disjoint_and_leases_lapse(a, Arc::new(PgStore::connect(&url).unwrap()));
}

#[test]
fn sqlite_concurrent_claims_never_overlap() {
    let (_, path) = sqlite("concurrent");
    concurrent_claims_never_overlap(&|| Arc::new(SqliteStore::open(&path).unwrap()));
}

#[test]
fn postgres_concurrent_claims_never_overlap() {
    let (_, url) = postgres("concurrent");
    concurrent_claims_never_overlap(&|| Arc::new(PgStore::connect(&url).unwrap()));
}

#[test]
fn a_password_never_reaches_the_logs() {
    assert_eq!(
        redact("postgres://tribunal:s3cret@db.internal:5432/runs"),
        "postgres://tribunal:***@db.internal:5432/runs"
    );
    assert_eq!(
        redact("postgres://tribunal@127.0.0.1/t"),
        "postgres://tribunal@127.0.0.1/t"
    );
}
