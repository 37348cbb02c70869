//! The embedded SQLite store (WAL mode), with versioned migrations.
//!
//! Events are written before they are sent, under the idempotent key `(stream, seq)`: writing
//! the same key twice keeps the first row and returns its id, so a replay never duplicates.

use anyhow::{Context, Result};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::sync::{Arc, Mutex};

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
}
