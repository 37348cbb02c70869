//! The embedded SQLite store (WAL mode), with versioned migrations.
//!
//! Events are written before they are sent, under the idempotent key `(stream, seq)`: writing
//! the same key twice keeps the first row and returns its id, so a replay never duplicates.
//!
//! Sessions: a session row keeps the SHA-256 of its owner token, never the token. Dataset
//! contents are stored once per hash in `blobs`, whatever the number of sessions holding them;
//! a session lists its datasets and its saved analyses (spec as JSON). An import writes the
//! whole session in one transaction.

use anyhow::{Context, Result};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::sync::{Arc, Mutex};
use tribunal::session::{Analysis, DatasetKind, DatasetMeta, SessionArchive, SessionView};

/// Schema migrations, applied in order; the index + 1 is the schema version.
const MIGRATIONS: &[&str] = &[
    "CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        stream TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        UNIQUE (stream, seq)
    );",
    "CREATE TABLE judgments (
        session TEXT NOT NULL,
        item TEXT NOT NULL,
        item_order TEXT NOT NULL,
        repeat INTEGER NOT NULL,
        variant TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        PRIMARY KEY (session, item, item_order, repeat, variant)
    );
    CREATE TABLE runs (
        session TEXT NOT NULL,
        started_at TEXT NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (session, started_at)
    );",
    "CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        owner_hash TEXT NOT NULL,
        title TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE TABLE blobs (
        hash TEXT PRIMARY KEY,
        content BLOB NOT NULL
    );
    CREATE TABLE session_datasets (
        session TEXT NOT NULL REFERENCES sessions (id),
        hash TEXT NOT NULL REFERENCES blobs (hash),
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        rows INTEGER NOT NULL,
        PRIMARY KEY (session, hash)
    );
    CREATE TABLE analyses (
        session TEXT NOT NULL REFERENCES sessions (id),
        id TEXT NOT NULL,
        title TEXT NOT NULL,
        spec TEXT NOT NULL,
        PRIMARY KEY (session, id)
    );",
];

/// The idempotent key of one judgment.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JudgmentKey {
    pub session: String,
    pub item: String,
    /// `ab` or `ba`.
    pub order: String,
    pub repeat: u32,
    /// The prompt variant (empty for the unperturbed prompt).
    pub variant: String,
}

/// A handle to the store; cheap to clone.
#[derive(Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    pub fn open(path: &Path) -> Result<Self> {
        let conn = Connection::open(path)
            .with_context(|| format!("opening SQLite database {}", path.display()))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let store = Self {
            conn: Arc::new(Mutex::new(conn)),
        };
        store.migrate()?;
        Ok(store)
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Connection>> {
        self.conn
            .lock()
            .map_err(|_| anyhow::anyhow!("the store's connection lock is poisoned"))
    }

    fn migrate(&self) -> Result<()> {
        let mut conn = self.lock()?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY,
                applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
            );",
        )?;
        let current: i64 = conn.query_row(
            "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
            [],
            |r| r.get(0),
        )?;
        for (i, sql) in MIGRATIONS.iter().enumerate() {
            let version = i as i64 + 1;
            if version <= current {
                continue;
            }
            let tx = conn.transaction()?;
            tx.execute_batch(sql)
                .with_context(|| format!("applying migration {version}"))?;
            tx.execute(
                "INSERT INTO schema_migrations (version) VALUES (?1)",
                params![version],
            )?;
            tx.commit()?;
        }
        Ok(())
    }

    /// The schema version after migrations.
    pub fn schema_version(&self) -> Result<i64> {
        Ok(self
            .lock()?
            .query_row("SELECT MAX(version) FROM schema_migrations", [], |r| {
                r.get(0)
            })?)
    }

    /// Stores an event under `(stream, seq)` and returns its id; an existing key keeps its row.
    pub fn put_event(&self, stream: &str, seq: u32, body: &str) -> Result<i64> {
        let conn = self.lock()?;
        conn.execute(
            "INSERT INTO events (stream, seq, body) VALUES (?1, ?2, ?3)
             ON CONFLICT (stream, seq) DO NOTHING",
            params![stream, seq, body],
        )?;
        let id = conn
            .query_row(
                "SELECT id FROM events WHERE stream = ?1 AND seq = ?2",
                params![stream, seq],
                |r| r.get(0),
            )
            .optional()?;
        id.context("event row missing right after insert")
    }

    /// Stores a judgment under its key; returns false (and keeps the stored row) when the key
    /// is there already.
    pub fn put_judgment(&self, key: &JudgmentKey, body: &str) -> Result<bool> {
        let conn = self.lock()?;
        let inserted = conn.execute(
            "INSERT INTO judgments (session, item, item_order, repeat, variant, body)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (session, item, item_order, repeat, variant) DO NOTHING",
            params![
                key.session,
                key.item,
                key.order,
                key.repeat,
                key.variant,
                body
            ],
        )?;
        Ok(inserted == 1)
    }

    /// A session's judgments with their keys, in insertion order.
    pub fn judgments(&self, session: &str) -> Result<Vec<(JudgmentKey, String)>> {
        let conn = self.lock()?;
        let mut stmt = conn.prepare(
            "SELECT item, item_order, repeat, variant, body FROM judgments WHERE session = ?1
             ORDER BY rowid",
        )?;
        let rows = stmt
            .query_map(params![session], |r| {
                Ok((
                    JudgmentKey {
                        session: session.to_owned(),
                        item: r.get(0)?,
                        order: r.get(1)?,
                        repeat: r.get(2)?,
                        variant: r.get(3)?,
                    },
                    r.get(4)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Stores a run's reproducibility record.
    pub fn put_run(&self, session: &str, started_at: &str, record: &str) -> Result<()> {
        self.lock()?.execute(
            "INSERT INTO runs (session, started_at, record) VALUES (?1, ?2, ?3)",
            params![session, started_at, record],
        )?;
        Ok(())
    }

    /// Creates an empty session owned by the token whose hash is `owner_hash`.
    pub fn create_session(&self, id: &str, owner_hash: &str, title: &str) -> Result<()> {
        self.lock()?.execute(
            "INSERT INTO sessions (id, owner_hash, title) VALUES (?1, ?2, ?3)",
            params![id, owner_hash, title],
        )?;
        Ok(())
    }

    /// The owner-token hash of session `id`, or `None` when there is no such session.
    pub fn owner_hash(&self, id: &str) -> Result<Option<String>> {
        Ok(self
            .lock()?
            .query_row(
                "SELECT owner_hash FROM sessions WHERE id = ?1",
                params![id],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Session `id` as a visitor sees it, or `None`.
    pub fn session(&self, id: &str) -> Result<Option<SessionView>> {
        let conn = self.lock()?;
        let Some((title, created_at)) = conn
            .query_row(
                "SELECT title, created_at FROM sessions WHERE id = ?1",
                params![id],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
            )
            .optional()?
        else {
            return Ok(None);
        };
        let mut stmt = conn.prepare(
            "SELECT hash, kind, name, bytes, rows FROM session_datasets WHERE session = ?1
             ORDER BY rowid",
        )?;
        let datasets = stmt
            .query_map(params![id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, u64>(3)?,
                    r.get::<_, u64>(4)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?
            .into_iter()
            .map(|(hash, kind, name, bytes, rows)| {
                Ok(DatasetMeta {
                    hash,
                    kind: DatasetKind::parse(&kind)?,
                    name,
                    bytes,
                    rows,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        // A session's runs store their judgments under `<session>:<run key>`.
        let mut stmt = conn.prepare(
            "SELECT record FROM runs WHERE session = ?1 OR session LIKE ?1 || ':%'
             ORDER BY started_at",
        )?;
        let runs = stmt
            .query_map(params![id], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?
            .iter()
            .map(|record| serde_json::from_str(record).context("a stored run record"))
            .collect::<Result<Vec<_>>>()?;
        let mut stmt = conn.prepare(
            "SELECT stream FROM events WHERE stream LIKE 'run:' || ?1 || ':%'
             GROUP BY stream ORDER BY MIN(id)",
        )?;
        let streams = stmt
            .query_map(params![id], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut stmt =
            conn.prepare("SELECT id, title, spec FROM analyses WHERE session = ?1 ORDER BY rowid")?;
        let analyses = stmt
            .query_map(params![id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?
            .into_iter()
            .map(|(id, title, spec)| {
                Ok(Analysis {
                    id,
                    title,
                    spec: serde_json::from_str(&spec).context("a stored analysis spec")?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(SessionView {
            id: id.to_owned(),
            title,
            created_at,
            datasets,
            runs,
            streams,
            analyses,
        }))
    }

    /// Adds a checked dataset to a session, its content stored once per hash; returns the
    /// session's entry for that hash (the first one when the same content was added before).
    pub fn add_dataset(
        &self,
        session: &str,
        meta: &DatasetMeta,
        content: &[u8],
    ) -> Result<DatasetMeta> {
        let mut conn = self.lock()?;
        let tx = conn.transaction()?;
        insert_dataset(&tx, session, meta, content)?;
        let stored = tx.query_row(
            "SELECT kind, name, bytes, rows FROM session_datasets WHERE session = ?1 AND hash = ?2",
            params![session, meta.hash],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, u64>(2)?,
                    r.get::<_, u64>(3)?,
                ))
            },
        )?;
        tx.commit()?;
        Ok(DatasetMeta {
            hash: meta.hash.clone(),
            kind: DatasetKind::parse(&stored.0)?,
            name: stored.1,
            bytes: stored.2,
            rows: stored.3,
        })
    }

    /// The content of dataset `hash` of `session`, or `None` when the session does not hold it.
    pub fn dataset(&self, session: &str, hash: &str) -> Result<Option<Vec<u8>>> {
        Ok(self
            .lock()?
            .query_row(
                "SELECT b.content FROM session_datasets d JOIN blobs b ON b.hash = d.hash
                 WHERE d.session = ?1 AND d.hash = ?2",
                params![session, hash],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Saves an analysis in a session.
    pub fn add_analysis(&self, session: &str, analysis: &Analysis) -> Result<()> {
        let conn = self.lock()?;
        insert_analysis(&conn, session, analysis)
    }

    /// The archive of session `id`, or `None`.
    pub fn archive(&self, id: &str) -> Result<Option<SessionArchive>> {
        let Some(view) = self.session(id)? else {
            return Ok(None);
        };
        let contents = view
            .datasets
            .iter()
            .map(|d| {
                let bytes = self
                    .dataset(id, &d.hash)?
                    .with_context(|| format!("the content of {} is missing", d.hash))?;
                String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8", d.name))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(SessionArchive::new(view, contents)))
    }

    /// Writes a validated archive as the new session `id` in one transaction: all of it or,
    /// on any error, nothing.
    pub fn import(&self, id: &str, owner_hash: &str, archive: &SessionArchive) -> Result<()> {
        let mut conn = self.lock()?;
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO sessions (id, owner_hash, title, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![id, owner_hash, archive.title, archive.created_at],
        )?;
        for d in &archive.datasets {
            insert_dataset(&tx, id, &d.meta, d.content.as_bytes())?;
        }
        for (k, run) in archive.runs.iter().enumerate() {
            tx.execute(
                "INSERT INTO runs (session, started_at, record) VALUES (?1, ?2, ?3)",
                params![
                    id,
                    run.get("started_at")
                        .and_then(|v| v.as_str())
                        .map_or_else(|| format!("imported-{k:06}"), str::to_owned),
                    run.to_string()
                ],
            )?;
        }
        for a in &archive.analyses {
            insert_analysis(&tx, id, a)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The events of `stream` with an id above `after`: (id, seq, body), in id order.
    pub fn events_after(&self, stream: &str, after: i64) -> Result<Vec<(i64, u32, String)>> {
        let conn = self.lock()?;
        let mut stmt = conn.prepare(
            "SELECT id, seq, body FROM events WHERE stream = ?1 AND id > ?2 ORDER BY id",
        )?;
        let rows = stmt
            .query_map(params![stream, after], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// The bodies of a stream's events in order.
    pub fn events(&self, stream: &str) -> Result<Vec<(u32, String)>> {
        let conn = self.lock()?;
        let mut stmt =
            conn.prepare("SELECT seq, body FROM events WHERE stream = ?1 ORDER BY seq")?;
        let rows = stmt
            .query_map(params![stream], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }
}

fn insert_dataset(
    tx: &Connection,
    session: &str,
    meta: &DatasetMeta,
    content: &[u8],
) -> Result<()> {
    tx.execute(
        "INSERT INTO blobs (hash, content) VALUES (?1, ?2) ON CONFLICT (hash) DO NOTHING",
        params![meta.hash, content],
    )?;
    tx.execute(
        "INSERT INTO session_datasets (session, hash, kind, name, bytes, rows)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (session, hash) DO NOTHING",
        params![
            session,
            meta.hash,
            meta.kind.as_str(),
            meta.name,
            meta.bytes,
            meta.rows
        ],
    )?;
    Ok(())
}

fn insert_analysis(conn: &Connection, session: &str, analysis: &Analysis) -> Result<()> {
    conn.execute(
        "INSERT INTO analyses (session, id, title, spec) VALUES (?1, ?2, ?3, ?4)",
        params![
            session,
            analysis.id,
            analysis.title,
            serde_json::to_string(&analysis.spec)?
        ],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_db(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("tribunal-store-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.sqlite3");
        let _ = std::fs::remove_file(&path);
        path
    }

    #[test]
    fn events_are_idempotent_and_survive_reopen() {
        let path = temp_db("idem");
        let store = Store::open(&path).unwrap();
        let a = store.put_event("s", 1, "first").unwrap();
        let again = store.put_event("s", 1, "second").unwrap();
        assert_eq!(a, again);
        store.put_event("s", 2, "b").unwrap();
        drop(store);
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        assert_eq!(
            store.events("s").unwrap(),
            [(1, "first".to_owned()), (2, "b".to_owned())]
        );
    }

    #[test]
    fn a_judgment_key_is_stored_once() {
        let store = Store::open(&temp_db("judgments")).unwrap();
        let key = JudgmentKey {
            session: "s".into(),
            item: "p1".into(),
            order: "ab".into(),
            repeat: 0,
            variant: String::new(),
        };
        assert!(store.put_judgment(&key, "{\"first\":1}").unwrap());
        assert!(!store.put_judgment(&key, "{\"second\":2}").unwrap());
        let ba = JudgmentKey {
            order: "ba".into(),
            ..key.clone()
        };
        assert!(store.put_judgment(&ba, "{}").unwrap());
        let rows = store.judgments("s").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0], (key, "{\"first\":1}".to_owned()));
        assert!(store.judgments("other").unwrap().is_empty());
    }

    #[test]
    fn an_import_is_written_whole_or_not_at_all() {
        use tribunal::resample::BootstrapParams;
        use tribunal::session::{check_dataset, AnalysisSpec};
        let store = Store::open(&temp_db("import")).unwrap();
        let csv = "model_a,model_b,winner\nA,B,model_a\nB,C,tie\n";
        let meta = check_dataset(DatasetKind::Battles, "b.csv", csv.as_bytes()).unwrap();
        let analysis = Analysis {
            id: "a1".to_owned(),
            title: "board".to_owned(),
            spec: AnalysisSpec::Leaderboard {
                dataset: meta.hash.clone(),
                bootstrap: BootstrapParams::default(),
                anchor: None,
            },
        };
        store.create_session("s1", "h", "first").unwrap();
        store.add_dataset("s1", &meta, csv.as_bytes()).unwrap();
        store.add_analysis("s1", &analysis).unwrap();
        let mut archive = store.archive("s1").unwrap().unwrap();
        archive.validate("archive").unwrap();
        store.import("s2", "h2", &archive).unwrap();
        let mut copy = store.session("s2").unwrap().unwrap();
        copy.id = "s1".to_owned();
        assert_eq!(Some(copy), store.session("s1").unwrap());
        // An archive that fails half-way (a duplicate analysis id) leaves no trace.
        archive.analyses.push(analysis);
        assert!(store.import("s3", "h3", &archive).is_err());
        assert_eq!(store.session("s3").unwrap(), None);
        assert_eq!(store.owner_hash("s3").unwrap(), None);
        let blobs: i64 = store
            .lock()
            .unwrap()
            .query_row("SELECT COUNT(*) FROM blobs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(blobs, 1, "one content, three sessions' worth of references");
    }
}
