//! The embedded SQLite store (WAL mode): the default [`Storage`] backend. Several processes
//! may share the file; SQLite's single writer lock makes each claim of queued units atomic.

use super::backup::{check_archive, emptiness_query};
use super::{
    is_deleted, run_deletion, Appended, Completed, Deletion, DeletionTx, Ended, JudgmentKey,
    NewEvent, Part, Progress, Storage,
};
use anyhow::{bail, Context, Result};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::sync::Mutex;
use tribunal::io::dataset_kind::DatasetKind;
use tribunal::sessions::session::{Analysis, DatasetMeta, SessionArchive, SessionView};

/// The database clock in Unix seconds (leases are measured on it, not on the workers' clocks).
const NOW: &str = "((julianday('now') - 2440587.5) * 86400.0)";

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
    "CREATE TABLE run_queue (
        stream TEXT PRIMARY KEY,
        spec TEXT NOT NULL,
        units INTEGER NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE TABLE run_units (
        stream TEXT NOT NULL REFERENCES run_queue (stream),
        unit INTEGER NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'claimed', 'done')),
        worker TEXT,
        claimed_at REAL,
        PRIMARY KEY (stream, unit)
    );",
    // The tool version and commit that saved an analysis (JSON; NULL before version 5).
    "ALTER TABLE analyses ADD COLUMN created_with TEXT;",
    // What an owner deleted: '' for the whole session, `kind:key` for a part of it.
    "CREATE TABLE deleted (
        session TEXT NOT NULL,
        part TEXT NOT NULL,
        deleted_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        PRIMARY KEY (session, part)
    );",
    // A run's end (stored once, with its last event) and the store-clock time it was queued or
    // last restarted; runs whose units were all done before version 7 count as ended.
    "ALTER TABLE run_queue ADD COLUMN ended INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE run_queue ADD COLUMN started REAL;
    UPDATE run_queue SET ended = 1 WHERE NOT EXISTS (
        SELECT 1 FROM run_units u WHERE u.stream = run_queue.stream AND u.state <> 'done');",
];

/// Copies every page of `from` into `to` in one step of SQLite's online backup.
fn copy_database(from: &Connection, to: &mut Connection) -> Result<()> {
    let copy = rusqlite::backup::Backup::new(from, to)?;
    match copy.step(-1)? {
        rusqlite::backup::StepResult::Done => Ok(()),
        other => bail!("the SQLite backup did not finish ({other:?}); try again"),
    }
}

impl DeletionTx for rusqlite::Transaction<'_> {
    const NOW: &'static str = NOW;

    fn count(&mut self, sql: &str, params: &[&str]) -> Result<i64> {
        Ok(self.query_row(sql, rusqlite::params_from_iter(params), |r| r.get(0))?)
    }

    fn apply(&mut self, sql: &str, params: &[&str]) -> Result<()> {
        self.execute(sql, rusqlite::params_from_iter(params))?;
        Ok(())
    }
}

/// The SQLite file, one connection behind a lock.
pub struct SqliteStore {
    conn: Mutex<Connection>,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    pub fn open(path: &Path) -> Result<Self> {
        let conn = Connection::open(path)
            .with_context(|| format!("opening SQLite database {}", path.display()))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let store = Self {
            conn: Mutex::new(conn),
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
}

impl Storage for SqliteStore {
    fn delete(&self, session: &str, part: &Part) -> Result<Deletion> {
        let mut conn = self.lock()?;
        let mut tx = conn.transaction()?;
        let deletion = run_deletion(&mut tx, session, part)?;
        if deletion == Deletion::Deleted {
            tx.commit()?;
        }
        Ok(deletion)
    }

    fn deleted(&self, session: &str, part: &Part) -> Result<bool> {
        let mut conn = self.lock()?;
        let mut tx = conn.transaction()?;
        is_deleted(&mut tx, session, part)
    }

    fn backup(&self, archive: &Path) -> Result<()> {
        let conn = self.lock()?;
        let mut out = Connection::open(archive)?;
        // All pages in one step: one read snapshot, whatever other processes write meanwhile.
        copy_database(&conn, &mut out)
    }

    fn restore(&self, archive: &Path) -> Result<()> {
        let mut conn = self.lock()?;
        let held: i64 =
            conn.query_row(&format!("SELECT {}", emptiness_query()), [], |r| r.get(0))?;
        if held > 0 {
            bail!("the store is not empty: restore into a new --data-dir (or an empty database)");
        }
        let source =
            Connection::open_with_flags(archive, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .with_context(|| format!("opening {}", archive.display()))?;
        check_archive(&source, archive, MIGRATIONS.len() as i64)?;
        copy_database(&source, &mut conn)?;
        Ok(())
    }

    fn backend(&self) -> &'static str {
        "sqlite"
    }

    /// The schema version after migrations.
    fn schema_version(&self) -> Result<i64> {
        Ok(self
            .lock()?
            .query_row("SELECT MAX(version) FROM schema_migrations", [], |r| {
                r.get(0)
            })?)
    }

    /// Stores an event under `(stream, seq)` and returns its id; an existing key keeps its row.
    fn append_event(&self, stream: &str, body: &str) -> Result<Appended> {
        append(&*self.lock()?, stream, body)
    }

    /// Stores a judgment under its key; returns false (and keeps the stored row) when the key
    /// is there already.
    fn put_judgment(&self, key: &JudgmentKey, body: &str) -> Result<bool> {
        insert_judgment(&*self.lock()?, key, body)
    }

    /// A session's judgments with their keys, in insertion order.
    fn judgments(&self, session: &str) -> Result<Vec<(JudgmentKey, String)>> {
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
    fn put_run(&self, session: &str, started_at: &str, record: &str) -> Result<()> {
        self.lock()?.execute(
            "INSERT INTO runs (session, started_at, record) VALUES (?1, ?2, ?3)",
            params![session, started_at, record],
        )?;
        Ok(())
    }

    /// Creates an empty session owned by the token whose hash is `owner_hash`.
    fn create_session(&self, id: &str, owner_hash: &str, title: &str) -> Result<()> {
        self.lock()?.execute(
            "INSERT INTO sessions (id, owner_hash, title) VALUES (?1, ?2, ?3)",
            params![id, owner_hash, title],
        )?;
        Ok(())
    }

    /// The owner-token hash of session `id`, or `None` when there is no such session.
    fn owner_hash(&self, id: &str) -> Result<Option<String>> {
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
    fn session(&self, id: &str) -> Result<Option<SessionView>> {
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
        let mut stmt = conn.prepare(
            "SELECT id, title, spec, created_with FROM analyses WHERE session = ?1 ORDER BY rowid",
        )?;
        let analyses = stmt
            .query_map(params![id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?
            .into_iter()
            .map(|(id, title, spec, created_with)| {
                Ok(Analysis {
                    id,
                    title,
                    spec: super::stored_spec(&spec)?,
                    created_with: created_with
                        .map(|v| serde_json::from_str(&v))
                        .transpose()
                        .context("a stored analysis's tool version")?,
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
    fn add_dataset(
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
    fn dataset(&self, session: &str, hash: &str) -> Result<Option<Vec<u8>>> {
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
    fn add_analysis(&self, session: &str, analysis: &Analysis) -> Result<()> {
        let conn = self.lock()?;
        insert_analysis(&conn, session, analysis)
    }

    /// Writes a validated archive as the new session `id` in one transaction: all of it or,
    /// on any error, nothing.
    fn import(&self, id: &str, owner_hash: &str, archive: &SessionArchive) -> Result<()> {
        let mut conn = self.lock()?;
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO sessions (id, owner_hash, title, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![id, owner_hash, archive.title, archive.created_at],
        )?;
        for d in &archive.datasets {
            insert_dataset(&tx, id, &d.meta, &d.bytes("archive", "content")?)?;
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
    fn events_after(&self, stream: &str, after: i64) -> Result<Vec<(i64, u32, String)>> {
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
    fn events(&self, stream: &str) -> Result<Vec<(u32, String)>> {
        let conn = self.lock()?;
        let mut stmt =
            conn.prepare("SELECT seq, body FROM events WHERE stream = ?1 ORDER BY seq")?;
        let rows = stmt
            .query_map(params![stream], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    fn enqueue(&self, stream: &str, spec: &str, units: u32) -> Result<()> {
        let mut conn = self.lock()?;
        let tx = conn.transaction()?;
        let queued = tx.execute(
            &format!(
                "INSERT INTO run_queue (stream, spec, units, started) VALUES (?1, ?2, ?3, {NOW})
                 ON CONFLICT (stream) DO NOTHING"
            ),
            params![stream, spec, units],
        )?;
        if queued == 0 {
            tx.execute(
                &format!("UPDATE run_queue SET ended = 0, started = {NOW} WHERE stream = ?1"),
                params![stream],
            )?;
        }
        if queued == 1 && units > 0 {
            tx.execute(
                "WITH RECURSIVE n(unit) AS (SELECT 0 UNION ALL SELECT unit + 1 FROM n WHERE unit + 1 < ?2)
                 INSERT INTO run_units (stream, unit) SELECT ?1, unit FROM n",
                params![stream, units],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    fn queued_spec(&self, stream: &str) -> Result<Option<String>> {
        Ok(self
            .lock()?
            .query_row(
                "SELECT spec FROM run_queue WHERE stream = ?1",
                params![stream],
                |r| r.get(0),
            )
            .optional()?)
    }

    fn run_ended(&self, stream: &str) -> Result<Option<bool>> {
        Ok(self
            .lock()?
            .query_row(
                "SELECT ended FROM run_queue WHERE stream = ?1",
                params![stream],
                |r| r.get::<_, i64>(0),
            )
            .optional()?
            .map(|ended| ended != 0))
    }

    fn open_runs(&self, lease_seconds: f64) -> Result<Vec<String>> {
        let conn = self.lock()?;
        let mut stmt = conn.prepare(&format!(
            "SELECT q.stream FROM run_queue q WHERE q.stream LIKE 'judge:%' AND q.ended = 0 AND (
                 EXISTS (SELECT 1 FROM run_units u WHERE u.stream = q.stream
                     AND (u.state = 'pending' OR (u.state = 'claimed' AND u.claimed_at < {NOW} - ?1)))
                 OR NOT EXISTS (SELECT 1 FROM run_units u WHERE u.stream = q.stream AND u.state <> 'done'))
             ORDER BY q.rowid"
        ))?;
        let rows = stmt
            .query_map(params![lease_seconds], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    fn claim(
        &self,
        stream: &str,
        worker: &str,
        limit: u32,
        lease_seconds: f64,
    ) -> Result<Vec<u32>> {
        let conn = self.lock()?;
        let mut stmt = conn.prepare(&format!(
            "UPDATE run_units SET state = 'claimed', worker = ?2, claimed_at = {NOW}
             WHERE stream = ?1 AND unit IN (
                 SELECT unit FROM run_units WHERE stream = ?1
                 AND (state = 'pending' OR (state = 'claimed' AND claimed_at < {NOW} - ?4))
                 AND NOT EXISTS (SELECT 1 FROM run_queue WHERE stream = ?1 AND ended = 1)
                 ORDER BY unit LIMIT ?3)
             RETURNING unit"
        ))?;
        let mut units = stmt
            .query_map(params![stream, worker, limit, lease_seconds], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<u32>>>()?;
        units.sort_unstable();
        Ok(units)
    }

    fn renew(&self, worker: &str) -> Result<u64> {
        let renewed = self.lock()?.execute(
            &format!(
                "UPDATE run_units SET claimed_at = {NOW} WHERE worker = ?1 AND state = 'claimed'"
            ),
            params![worker],
        )?;
        Ok(renewed as u64)
    }

    fn complete(
        &self,
        stream: &str,
        unit: u32,
        key: &JudgmentKey,
        body: &str,
        event: Option<NewEvent<'_>>,
    ) -> Result<Completed> {
        let mut conn = self.lock()?;
        let tx = conn.transaction()?;
        let new = insert_judgment(&tx, key, body)?;
        tx.execute(
            "UPDATE run_units SET state = 'done' WHERE stream = ?1 AND unit = ?2",
            params![stream, unit],
        )?;
        let event = match event {
            Some(event) if new && !ended(&tx, stream)? => {
                Some(append(&tx, event.stream, event.body)?)
            }
            _ => None,
        };
        tx.commit()?;
        Ok(Completed { new, event })
    }

    fn run_seconds(&self, stream: &str) -> Result<f64> {
        let seconds: Option<f64> = self
            .lock()?
            .query_row(
                &format!("SELECT {NOW} - started FROM run_queue WHERE stream = ?1"),
                params![stream],
                |r| r.get(0),
            )
            .optional()?
            .flatten();
        Ok(seconds.unwrap_or(0.0))
    }

    fn end_run(&self, stream: &str, event: Option<NewEvent<'_>>) -> Result<Option<Ended>> {
        let mut conn = self.lock()?;
        let tx = conn.transaction()?;
        let ended = tx.execute(
            "UPDATE run_queue SET ended = 1 WHERE stream = ?1 AND ended = 0",
            params![stream],
        )?;
        if ended == 0 {
            return Ok(None);
        }
        let event = event
            .map(|event| append(&tx, event.stream, event.body))
            .transpose()?;
        tx.commit()?;
        Ok(Some(Ended { event }))
    }

    fn progress(&self, stream: &str, lease_seconds: f64) -> Result<Progress> {
        Ok(self.lock()?.query_row(
            &format!(
                "SELECT
                   COALESCE(SUM(state = 'pending' OR (state = 'claimed' AND claimed_at < {NOW} - ?2)), 0),
                   COALESCE(SUM(state = 'claimed' AND claimed_at >= {NOW} - ?2), 0),
                   COALESCE(SUM(state = 'done'), 0)
                 FROM run_units WHERE stream = ?1"
            ),
            params![stream, lease_seconds],
            |r| {
                Ok(Progress {
                    pending: r.get(0)?,
                    claimed: r.get(1)?,
                    done: r.get(2)?,
                })
            },
        )?)
    }
}

/// Stores `body` as the next event of `stream` (one statement: SQLite serialises writers).
fn append(conn: &Connection, stream: &str, body: &str) -> Result<Appended> {
    let (id, seq) = conn.query_row(
        "INSERT INTO events (stream, seq, body)
         SELECT ?1, COALESCE(MAX(seq), 0) + 1, ?2 FROM events WHERE stream = ?1
         RETURNING id, seq",
        params![stream, body],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok(Appended { id, seq })
}

/// Whether the run `stream` has ended.
fn ended(conn: &Connection, stream: &str) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT ended FROM run_queue WHERE stream = ?1",
            params![stream],
            |r| r.get::<_, i64>(0),
        )
        .optional()?
        .is_some_and(|ended| ended != 0))
}

fn insert_judgment(conn: &Connection, key: &JudgmentKey, body: &str) -> Result<bool> {
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
        "INSERT INTO analyses (session, id, title, spec, created_with) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            session,
            analysis.id,
            analysis.title,
            serde_json::to_string(&analysis.spec)?,
            analysis
                .created_with
                .as_ref()
                .map(serde_json::to_string)
                .transpose()?
        ],
    )?;
    Ok(())
}
