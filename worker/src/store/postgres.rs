//! The PostgreSQL backend of [`Storage`], for several workers sharing one database. Queued
//! units are claimed with `SELECT … FOR UPDATE SKIP LOCKED`: concurrent claims take disjoint
//! units without waiting on each other.
//!
//! The synchronous `postgres` client drives its own runtime, which cannot run inside the
//! server's; so the connection lives on a thread of its own and each call is a job sent to it,
//! answered over a channel (calls block, as the SQLite backend's do).

use super::backup::{check_archive, emptiness_query, Column, Table, TABLES};
use super::{
    is_deleted, run_deletion, Appended, Completed, Deletion, DeletionTx, Ended, JudgmentKey,
    NewEvent, Part, Progress, Storage,
};
use anyhow::{anyhow, bail, Context, Result};
use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, GenericClient, NoTls};
use std::sync::mpsc;
use std::sync::Mutex;
use tribunal::io::dataset_kind::DatasetKind;
use tribunal::sessions::session::{Analysis, DatasetMeta, SessionArchive, SessionView};

/// The database clock in Unix seconds (leases are measured on it, not on the workers' clocks).
const NOW: &str = "extract(epoch from clock_timestamp())::double precision";

/// An ISO 8601 UTC timestamp with milliseconds, as SQLite's `strftime('%Y-%m-%dT%H:%M:%fZ')`.
const STAMP: &str =
    "to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')";

/// Schema migrations, applied in order; the index + 1 is the schema version (the same versions
/// as the SQLite backend's).
fn migrations() -> [String; 7] {
    [
        format!(
            "CREATE TABLE events (
                id BIGSERIAL PRIMARY KEY,
                stream TEXT NOT NULL,
                seq BIGINT NOT NULL,
                body TEXT NOT NULL,
                created_at TEXT NOT NULL DEFAULT {STAMP},
                UNIQUE (stream, seq)
            );"
        ),
        format!(
            "CREATE TABLE judgments (
                id BIGSERIAL UNIQUE,
                session TEXT NOT NULL,
                item TEXT NOT NULL,
                item_order TEXT NOT NULL,
                repeat BIGINT NOT NULL,
                variant TEXT NOT NULL,
                body TEXT NOT NULL,
                created_at TEXT NOT NULL DEFAULT {STAMP},
                PRIMARY KEY (session, item, item_order, repeat, variant)
            );
            CREATE TABLE runs (
                session TEXT NOT NULL,
                started_at TEXT NOT NULL,
                record TEXT NOT NULL,
                PRIMARY KEY (session, started_at)
            );"
        ),
        format!(
            "CREATE TABLE sessions (
                id TEXT PRIMARY KEY,
                owner_hash TEXT NOT NULL,
                title TEXT NOT NULL,
                created_at TEXT NOT NULL DEFAULT {STAMP}
            );
            CREATE TABLE blobs (
                hash TEXT PRIMARY KEY,
                content BYTEA NOT NULL
            );
            CREATE TABLE session_datasets (
                id BIGSERIAL UNIQUE,
                session TEXT NOT NULL REFERENCES sessions (id),
                hash TEXT NOT NULL REFERENCES blobs (hash),
                kind TEXT NOT NULL,
                name TEXT NOT NULL,
                bytes BIGINT NOT NULL,
                rows BIGINT NOT NULL,
                PRIMARY KEY (session, hash)
            );
            CREATE TABLE analyses (
                row_id BIGSERIAL UNIQUE,
                session TEXT NOT NULL REFERENCES sessions (id),
                id TEXT NOT NULL,
                title TEXT NOT NULL,
                spec TEXT NOT NULL,
                PRIMARY KEY (session, id)
            );"
        ),
        format!(
            "CREATE TABLE run_queue (
                id BIGSERIAL UNIQUE,
                stream TEXT PRIMARY KEY,
                spec TEXT NOT NULL,
                units BIGINT NOT NULL,
                created_at TEXT NOT NULL DEFAULT {STAMP}
            );
            CREATE TABLE run_units (
                stream TEXT NOT NULL REFERENCES run_queue (stream),
                unit BIGINT NOT NULL,
                state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'claimed', 'done')),
                worker TEXT,
                claimed_at DOUBLE PRECISION,
                PRIMARY KEY (stream, unit)
            );
            CREATE INDEX run_units_open ON run_units (stream, unit) WHERE state <> 'done';"
        ),
        // The tool version and commit that saved an analysis (JSON; NULL before version 5).
        "ALTER TABLE analyses ADD COLUMN created_with TEXT;".to_owned(),
        // What an owner deleted: '' for the whole session, `kind:key` for a part of it.
        format!(
            "CREATE TABLE deleted (
                session TEXT NOT NULL,
                part TEXT NOT NULL,
                deleted_at TEXT NOT NULL DEFAULT {STAMP},
                PRIMARY KEY (session, part)
            );"
        ),
        // A run's end (stored once, with its last event) and the store-clock time it was
        // queued or last restarted; runs whose units were all done before version 7 count as
        // ended.
        "ALTER TABLE run_queue ADD COLUMN ended BIGINT NOT NULL DEFAULT 0;
        ALTER TABLE run_queue ADD COLUMN started DOUBLE PRECISION;
        UPDATE run_queue SET ended = 1 WHERE NOT EXISTS (
            SELECT 1 FROM run_units u WHERE u.stream = run_queue.stream AND u.state <> 'done');"
            .to_owned(),
    ]
}

/// Column `i` of a PostgreSQL row as an archive (SQLite) value.
fn archive_value(row: &postgres::Row, i: usize, kind: Column) -> Result<rusqlite::types::Value> {
    use rusqlite::types::Value;
    Ok(match kind {
        Column::Text => row
            .try_get::<_, Option<String>>(i)?
            .map_or(Value::Null, Value::Text),
        Column::Integer => row
            .try_get::<_, Option<i64>>(i)?
            .map_or(Value::Null, Value::Integer),
        Column::Real => row
            .try_get::<_, Option<f64>>(i)?
            .map_or(Value::Null, Value::Real),
        Column::Blob => row
            .try_get::<_, Option<Vec<u8>>>(i)?
            .map_or(Value::Null, Value::Blob),
    })
}

/// Column `i` of an archive row as a PostgreSQL parameter.
fn store_value(
    row: &rusqlite::Row<'_>,
    i: usize,
    kind: Column,
) -> Result<Box<dyn postgres::types::ToSql + Sync>> {
    Ok(match kind {
        Column::Text => Box::new(row.get::<_, Option<String>>(i)?),
        Column::Integer => Box::new(row.get::<_, Option<i64>>(i)?),
        Column::Real => Box::new(row.get::<_, Option<f64>>(i)?),
        Column::Blob => Box::new(row.get::<_, Option<Vec<u8>>>(i)?),
    })
}

impl DeletionTx for postgres::Transaction<'_> {
    const NOW: &'static str = NOW;

    fn count(&mut self, sql: &str, params: &[&str]) -> Result<i64> {
        let params: Vec<&(dyn postgres::types::ToSql + Sync)> = params
            .iter()
            .map(|p| p as &(dyn postgres::types::ToSql + Sync))
            .collect();
        Ok(self.query_one(sql, &params)?.get(0))
    }

    fn apply(&mut self, sql: &str, params: &[&str]) -> Result<()> {
        let params: Vec<&(dyn postgres::types::ToSql + Sync)> = params
            .iter()
            .map(|p| p as &(dyn postgres::types::ToSql + Sync))
            .collect();
        self.execute(sql, &params)?;
        Ok(())
    }
}

type Job = Box<dyn FnOnce(&mut Client) + Send>;

/// One PostgreSQL connection on its own thread.
pub struct PgStore {
    jobs: Mutex<mpsc::Sender<Job>>,
}

impl PgStore {
    /// Connects to `url`, then applies pending migrations (under an advisory lock, so workers
    /// starting together migrate once).
    pub fn connect(url: &str) -> Result<Self> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let (ready, connected) = mpsc::channel();
        let target = url.to_owned();
        std::thread::Builder::new()
            .name("tribunal-postgres".to_owned())
            .spawn(move || match Client::connect(&target, NoTls) {
                Ok(mut client) => {
                    let _ = ready.send(Ok(()));
                    for job in queue {
                        job(&mut client);
                    }
                }
                Err(error) => {
                    let _ = ready.send(Err(error));
                }
            })?;
        connected
            .recv()
            .context("the PostgreSQL thread stopped")?
            .with_context(|| format!("connecting to {}", super::redact(url)))?;
        let store = Self {
            jobs: Mutex::new(jobs),
        };
        store.call(migrate)?;
        Ok(store)
    }

    /// Runs `f` on the connection's thread and waits for its answer.
    fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (reply, answer) = mpsc::sync_channel(1);
        self.jobs
            .lock()
            .map_err(|_| anyhow!("the PostgreSQL job queue lock is poisoned"))?
            .send(Box::new(move |client| {
                let _ = reply.send(f(client));
            }))
            .map_err(|_| anyhow!("the PostgreSQL connection thread has stopped"))?;
        answer
            .recv()
            .map_err(|_| anyhow!("the PostgreSQL connection thread has stopped"))?
    }
}

fn migrate(client: &mut Client) -> Result<()> {
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock(7411)", &[])?;
    tx.batch_execute(&format!(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            version BIGINT PRIMARY KEY,
            applied_at TEXT NOT NULL DEFAULT {STAMP}
        );"
    ))?;
    let current: i64 = tx
        .query_one(
            "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
            &[],
        )?
        .get(0);
    for (i, sql) in migrations().iter().enumerate() {
        let version = i as i64 + 1;
        if version <= current {
            continue;
        }
        tx.batch_execute(sql)
            .with_context(|| format!("applying migration {version}"))?;
        tx.execute(
            "INSERT INTO schema_migrations (version) VALUES ($1)",
            &[&version],
        )?;
    }
    tx.commit()?;
    Ok(())
}

/// Stores `body` as the next event of `stream`, inside the caller's transaction: a
/// transaction-scoped advisory lock on the stream serialises appends to it until commit, so its
/// seqs are dense and its ids grow in commit order.
fn append(tx: &mut impl GenericClient, stream: &str, body: &str) -> Result<Appended> {
    tx.execute(
        "SELECT pg_advisory_xact_lock(7412, hashtext($1))",
        &[&stream],
    )?;
    let row = tx.query_one(
        "INSERT INTO events (stream, seq, body)
         SELECT $1, COALESCE(MAX(seq), 0) + 1, $2 FROM events WHERE stream = $1
         RETURNING id, seq",
        &[&stream, &body],
    )?;
    Ok(Appended {
        id: row.get(0),
        seq: unsigned(row.get(1))?,
    })
}

/// Whether the run `stream` has ended.
fn ended(tx: &mut impl GenericClient, stream: &str) -> Result<bool> {
    Ok(tx
        .query_opt("SELECT ended FROM run_queue WHERE stream = $1", &[&stream])?
        .is_some_and(|r| r.get::<_, i64>(0) != 0))
}

fn insert_judgment(c: &mut impl GenericClient, key: &JudgmentKey, body: &str) -> Result<bool> {
    let inserted = c.execute(
        "INSERT INTO judgments (session, item, item_order, repeat, variant, body)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (session, item, item_order, repeat, variant) DO NOTHING",
        &[
            &key.session,
            &key.item,
            &key.order,
            &i64::from(key.repeat),
            &key.variant,
            &body,
        ],
    )?;
    Ok(inserted == 1)
}

fn insert_dataset(
    c: &mut impl GenericClient,
    session: &str,
    meta: &DatasetMeta,
    content: &[u8],
) -> Result<()> {
    c.execute(
        "INSERT INTO blobs (hash, content) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING",
        &[&meta.hash, &content],
    )?;
    c.execute(
        "INSERT INTO session_datasets (session, hash, kind, name, bytes, rows)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (session, hash) DO NOTHING",
        &[
            &session,
            &meta.hash,
            &meta.kind.as_str(),
            &meta.name,
            &i64::try_from(meta.bytes)?,
            &i64::try_from(meta.rows)?,
        ],
    )?;
    Ok(())
}

fn insert_analysis(c: &mut impl GenericClient, session: &str, analysis: &Analysis) -> Result<()> {
    c.execute(
        "INSERT INTO analyses (session, id, title, spec, created_with) \
         VALUES ($1, $2, $3, $4, $5)",
        &[
            &session,
            &analysis.id,
            &analysis.title,
            &serde_json::to_string(&analysis.spec)?,
            &analysis
                .created_with
                .as_ref()
                .map(serde_json::to_string)
                .transpose()?,
        ],
    )?;
    Ok(())
}

fn unsigned(v: i64) -> Result<u32> {
    u32::try_from(v).map_err(|_| anyhow!("a stored count or index out of range: {v}"))
}

impl Storage for PgStore {
    fn delete(&self, session: &str, part: &Part) -> Result<Deletion> {
        let (session, part) = (session.to_owned(), part.clone());
        self.call(move |c| {
            let mut tx = c.transaction()?;
            let deletion = run_deletion(&mut tx, &session, &part)?;
            if deletion == Deletion::Deleted {
                tx.commit()?;
            }
            Ok(deletion)
        })
    }

    fn deleted(&self, session: &str, part: &Part) -> Result<bool> {
        let (session, part) = (session.to_owned(), part.clone());
        self.call(move |c| is_deleted(&mut c.transaction()?, &session, &part))
    }

    fn backup(&self, archive: &std::path::Path) -> Result<()> {
        // The archive's schema, then its rows from one snapshot of this database.
        drop(super::sqlite::SqliteStore::open(archive)?);
        let archive = archive.to_owned();
        self.call(move |c| {
            let mut out = rusqlite::Connection::open(&archive)?;
            let sink = out.transaction()?;
            let mut tx = c
                .build_transaction()
                .isolation_level(postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?;
            for Table {
                name: table,
                columns,
                order,
            } in TABLES
            {
                let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
                let insert = format!(
                    "INSERT INTO {table} ({}) VALUES ({})",
                    names.join(", "),
                    (1..=names.len())
                        .map(|i| format!("?{i}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let select = format!("SELECT {} FROM {table} ORDER BY {order}", names.join(", "));
                let mut rows = tx.query_raw(&select, std::iter::empty::<&str>())?;
                while let Some(row) = rows.next()? {
                    let values: Vec<rusqlite::types::Value> = columns
                        .iter()
                        .enumerate()
                        .map(|(i, (_, kind))| archive_value(&row, i, *kind))
                        .collect::<Result<_>>()?;
                    sink.execute(&insert, rusqlite::params_from_iter(values))?;
                }
            }
            tx.commit()?;
            sink.commit()?;
            Ok(())
        })
    }

    fn restore(&self, archive: &std::path::Path) -> Result<()> {
        let archive = archive.to_owned();
        let version = migrations().len() as i64;
        self.call(move |c| {
            let source = rusqlite::Connection::open_with_flags(
                &archive,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
            )
            .with_context(|| format!("opening {}", archive.display()))?;
            check_archive(&source, &archive, version)?;
            let mut tx = c.transaction()?;
            let held: i64 = tx.query_one(&format!("SELECT {}", emptiness_query()), &[])?.get(0);
            if held > 0 {
                bail!("the store is not empty: restore into an empty database");
            }
            for Table {
                name: table,
                columns,
                ..
            } in TABLES
            {
                let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
                let insert = format!(
                    "INSERT INTO {table} ({}) VALUES ({})",
                    names.join(", "),
                    (1..=names.len()).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ")
                );
                let insert = tx.prepare(&insert)?;
                let select = format!("SELECT {} FROM {table} ORDER BY rowid", names.join(", "));
                let mut statement = source.prepare(&select)?;
                let mut rows = statement.query([])?;
                while let Some(row) = rows.next()? {
                    let values: Vec<Box<dyn postgres::types::ToSql + Sync>> = columns
                        .iter()
                        .enumerate()
                        .map(|(i, (_, kind))| store_value(row, i, *kind))
                        .collect::<Result<_>>()?;
                    let params: Vec<&(dyn postgres::types::ToSql + Sync)> =
                        values.iter().map(|v| v.as_ref()).collect();
                    tx.execute(&insert, &params)?;
                }
            }
            tx.execute(
                "SELECT setval(pg_get_serial_sequence('events', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM events",
                &[],
            )?;
            tx.commit()?;
            Ok(())
        })
    }

    fn backend(&self) -> &'static str {
        "postgresql"
    }

    fn schema_version(&self) -> Result<i64> {
        self.call(|c| {
            Ok(
                c.query_one("SELECT MAX(version) FROM schema_migrations", &[])?
                    .get(0),
            )
        })
    }

    fn append_event(&self, stream: &str, body: &str) -> Result<Appended> {
        let (stream, body) = (stream.to_owned(), body.to_owned());
        self.call(move |c| {
            let mut tx = c.transaction()?;
            let appended = append(&mut tx, &stream, &body)?;
            tx.commit()?;
            Ok(appended)
        })
    }

    fn events_after(&self, stream: &str, after: i64) -> Result<Vec<(i64, u32, String)>> {
        let stream = stream.to_owned();
        self.call(move |c| {
            c.query(
                "SELECT id, seq, body FROM events WHERE stream = $1 AND id > $2 ORDER BY id",
                &[&stream, &after],
            )?
            .iter()
            .map(|r| Ok((r.get(0), unsigned(r.get(1))?, r.get(2))))
            .collect()
        })
    }

    fn events(&self, stream: &str) -> Result<Vec<(u32, String)>> {
        let stream = stream.to_owned();
        self.call(move |c| {
            c.query(
                "SELECT seq, body FROM events WHERE stream = $1 ORDER BY seq",
                &[&stream],
            )?
            .iter()
            .map(|r| Ok((unsigned(r.get(0))?, r.get(1))))
            .collect()
        })
    }

    fn put_judgment(&self, key: &JudgmentKey, body: &str) -> Result<bool> {
        let (key, body) = (key.clone(), body.to_owned());
        self.call(move |c| insert_judgment(c, &key, &body))
    }

    fn judgments(&self, session: &str) -> Result<Vec<(JudgmentKey, String)>> {
        let session = session.to_owned();
        self.call(move |c| {
            c.query(
                "SELECT item, item_order, repeat, variant, body FROM judgments
                 WHERE session = $1 ORDER BY id",
                &[&session],
            )?
            .iter()
            .map(|r| {
                Ok((
                    JudgmentKey {
                        session: session.clone(),
                        item: r.get(0),
                        order: r.get(1),
                        repeat: unsigned(r.get(2))?,
                        variant: r.get(3),
                    },
                    r.get(4),
                ))
            })
            .collect()
        })
    }

    fn put_run(&self, session: &str, started_at: &str, record: &str) -> Result<()> {
        let (session, started_at, record) =
            (session.to_owned(), started_at.to_owned(), record.to_owned());
        self.call(move |c| {
            c.execute(
                "INSERT INTO runs (session, started_at, record) VALUES ($1, $2, $3)",
                &[&session, &started_at, &record],
            )?;
            Ok(())
        })
    }

    fn enqueue(&self, stream: &str, spec: &str, units: u32) -> Result<()> {
        let (stream, spec) = (stream.to_owned(), spec.to_owned());
        self.call(move |c| {
            let mut tx = c.transaction()?;
            let units = i64::from(units);
            let queued = tx.execute(
                &format!(
                    "INSERT INTO run_queue (stream, spec, units, started) VALUES ($1, $2, $3, {NOW})
                     ON CONFLICT (stream) DO NOTHING"
                ),
                &[&stream, &spec, &units],
            )?;
            if queued == 0 {
                tx.execute(
                    &format!("UPDATE run_queue SET ended = 0, started = {NOW} WHERE stream = $1"),
                    &[&stream],
                )?;
            }
            if queued == 1 {
                tx.execute(
                    "INSERT INTO run_units (stream, unit)
                     SELECT $1, unit FROM generate_series(0::bigint, $2::bigint - 1) AS unit",
                    &[&stream, &units],
                )?;
            }
            tx.commit()?;
            Ok(())
        })
    }

    fn queued_spec(&self, stream: &str) -> Result<Option<String>> {
        let stream = stream.to_owned();
        self.call(move |c| {
            Ok(
                c.query_opt("SELECT spec FROM run_queue WHERE stream = $1", &[&stream])?
                    .map(|r| r.get(0)),
            )
        })
    }

    fn run_ended(&self, stream: &str) -> Result<Option<bool>> {
        let stream = stream.to_owned();
        self.call(move |c| {
            Ok(
                c.query_opt("SELECT ended FROM run_queue WHERE stream = $1", &[&stream])?
                    .map(|r| r.get::<_, i64>(0) != 0),
            )
        })
    }

    fn open_runs(&self, lease_seconds: f64) -> Result<Vec<String>> {
        self.call(move |c| {
            Ok(c.query(
                &format!(
                    "SELECT q.stream FROM run_queue q WHERE q.stream LIKE 'judge:%' AND q.ended = 0 AND (
                         EXISTS (SELECT 1 FROM run_units u WHERE u.stream = q.stream
                             AND (u.state = 'pending' OR (u.state = 'claimed' AND u.claimed_at < {NOW} - $1)))
                         OR NOT EXISTS (SELECT 1 FROM run_units u WHERE u.stream = q.stream AND u.state <> 'done'))
                     ORDER BY q.id"
                ),
                &[&lease_seconds],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
        })
    }

    fn claim(
        &self,
        stream: &str,
        worker: &str,
        limit: u32,
        lease_seconds: f64,
    ) -> Result<Vec<u32>> {
        let (stream, worker) = (stream.to_owned(), worker.to_owned());
        self.call(move |c| {
            let mut units = c
                .query(
                    &format!(
                        "UPDATE run_units u SET state = 'claimed', worker = $2, claimed_at = {NOW}
                         FROM (SELECT unit FROM run_units WHERE stream = $1
                               AND (state = 'pending' OR (state = 'claimed' AND claimed_at < {NOW} - $4))
                               AND NOT EXISTS (SELECT 1 FROM run_queue WHERE stream = $1 AND ended = 1)
                               ORDER BY unit LIMIT $3 FOR UPDATE SKIP LOCKED) free
                         WHERE u.stream = $1 AND u.unit = free.unit
                         RETURNING u.unit"
                    ),
                    &[&stream, &worker, &i64::from(limit), &lease_seconds],
                )?
                .iter()
                .map(|r| unsigned(r.get(0)))
                .collect::<Result<Vec<_>>>()?;
            units.sort_unstable();
            Ok(units)
        })
    }

    fn renew(&self, worker: &str) -> Result<u64> {
        let worker = worker.to_owned();
        self.call(move |c| {
            Ok(c.execute(
                &format!(
                    "UPDATE run_units SET claimed_at = {NOW} WHERE worker = $1 AND state = 'claimed'"
                ),
                &[&worker],
            )?)
        })
    }

    fn complete(
        &self,
        stream: &str,
        unit: u32,
        key: &JudgmentKey,
        body: &str,
        event: Option<NewEvent<'_>>,
    ) -> Result<Completed> {
        let (stream, key, body) = (stream.to_owned(), key.clone(), body.to_owned());
        let event = event.map(|e| (e.stream.to_owned(), e.body.to_owned()));
        self.call(move |c| {
            let mut tx = c.transaction()?;
            let new = insert_judgment(&mut tx, &key, &body)?;
            tx.execute(
                "UPDATE run_units SET state = 'done' WHERE stream = $1 AND unit = $2",
                &[&stream, &i64::from(unit)],
            )?;
            let event = match event {
                Some((events, body)) if new && !ended(&mut tx, &stream)? => {
                    Some(append(&mut tx, &events, &body)?)
                }
                _ => None,
            };
            tx.commit()?;
            Ok(Completed { new, event })
        })
    }

    fn run_seconds(&self, stream: &str) -> Result<f64> {
        let stream = stream.to_owned();
        self.call(move |c| {
            let seconds: Option<Option<f64>> = c
                .query_opt(
                    &format!("SELECT {NOW} - started FROM run_queue WHERE stream = $1"),
                    &[&stream],
                )?
                .map(|r| r.get(0));
            Ok(seconds.flatten().unwrap_or(0.0))
        })
    }

    fn end_run(&self, stream: &str, event: Option<NewEvent<'_>>) -> Result<Option<Ended>> {
        let stream = stream.to_owned();
        let event = event.map(|e| (e.stream.to_owned(), e.body.to_owned()));
        self.call(move |c| {
            let mut tx = c.transaction()?;
            let ended = tx.execute(
                "UPDATE run_queue SET ended = 1 WHERE stream = $1 AND ended = 0",
                &[&stream],
            )?;
            if ended == 0 {
                return Ok(None);
            }
            let event = event
                .map(|(events, body)| append(&mut tx, &events, &body))
                .transpose()?;
            tx.commit()?;
            Ok(Some(Ended { event }))
        })
    }

    fn progress(&self, stream: &str, lease_seconds: f64) -> Result<Progress> {
        let stream = stream.to_owned();
        self.call(move |c| {
            let r = c.query_one(
                &format!(
                    "SELECT
                       COUNT(*) FILTER (WHERE state = 'pending' OR (state = 'claimed' AND claimed_at < {NOW} - $2)),
                       COUNT(*) FILTER (WHERE state = 'claimed' AND claimed_at >= {NOW} - $2),
                       COUNT(*) FILTER (WHERE state = 'done')
                     FROM run_units WHERE stream = $1"
                ),
                &[&stream, &lease_seconds],
            )?;
            let count = |i: usize| u64::try_from(r.get::<_, i64>(i)).unwrap_or_default();
            Ok(Progress {
                pending: count(0),
                claimed: count(1),
                done: count(2),
            })
        })
    }

    fn create_session(&self, id: &str, owner_hash: &str, title: &str) -> Result<()> {
        let (id, owner_hash, title) = (id.to_owned(), owner_hash.to_owned(), title.to_owned());
        self.call(move |c| {
            c.execute(
                "INSERT INTO sessions (id, owner_hash, title) VALUES ($1, $2, $3)",
                &[&id, &owner_hash, &title],
            )?;
            Ok(())
        })
    }

    fn owner_hash(&self, id: &str) -> Result<Option<String>> {
        let id = id.to_owned();
        self.call(move |c| {
            Ok(
                c.query_opt("SELECT owner_hash FROM sessions WHERE id = $1", &[&id])?
                    .map(|r| r.get(0)),
            )
        })
    }

    fn session(&self, id: &str) -> Result<Option<SessionView>> {
        let id = id.to_owned();
        self.call(move |c| {
            let Some(row) = c.query_opt(
                "SELECT title, created_at FROM sessions WHERE id = $1",
                &[&id],
            )?
            else {
                return Ok(None);
            };
            let datasets = c
                .query(
                    "SELECT hash, kind, name, bytes, rows FROM session_datasets
                     WHERE session = $1 ORDER BY id",
                    &[&id],
                )?
                .iter()
                .map(|r| {
                    Ok(DatasetMeta {
                        hash: r.get(0),
                        kind: DatasetKind::parse(r.get(1))?,
                        name: r.get(2),
                        bytes: u64::try_from(r.get::<_, i64>(3))?,
                        rows: u64::try_from(r.get::<_, i64>(4))?,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            // A session's runs store their judgments under `<session>:<run key>`.
            let runs = c
                .query(
                    "SELECT record FROM runs WHERE session = $1 OR session LIKE $1 || ':%'
                     ORDER BY started_at",
                    &[&id],
                )?
                .iter()
                .map(|r| serde_json::from_str(r.get::<_, &str>(0)).context("a stored run record"))
                .collect::<Result<Vec<_>>>()?;
            let streams = c
                .query(
                    "SELECT stream FROM events WHERE stream LIKE 'run:' || $1 || ':%'
                     GROUP BY stream ORDER BY MIN(id)",
                    &[&id],
                )?
                .iter()
                .map(|r| r.get(0))
                .collect();
            let analyses = c
                .query(
                    "SELECT id, title, spec, created_with FROM analyses WHERE session = $1 \
                     ORDER BY row_id",
                    &[&id],
                )?
                .iter()
                .map(|r| {
                    Ok(Analysis {
                        id: r.get(0),
                        title: r.get(1),
                        spec: super::stored_spec(r.get::<_, &str>(2))?,
                        created_with: r
                            .get::<_, Option<&str>>(3)
                            .map(serde_json::from_str)
                            .transpose()
                            .context("a stored analysis's tool version")?,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(Some(SessionView {
                id: id.clone(),
                title: row.get(0),
                created_at: row.get(1),
                datasets,
                runs,
                streams,
                analyses,
            }))
        })
    }

    fn add_dataset(
        &self,
        session: &str,
        meta: &DatasetMeta,
        content: &[u8],
    ) -> Result<DatasetMeta> {
        let (session, meta, content) = (session.to_owned(), meta.clone(), content.to_vec());
        self.call(move |c| {
            let mut tx = c.transaction()?;
            insert_dataset(&mut tx, &session, &meta, &content)?;
            let r = tx.query_one(
                "SELECT kind, name, bytes, rows FROM session_datasets
                 WHERE session = $1 AND hash = $2",
                &[&session, &meta.hash],
            )?;
            let stored = DatasetMeta {
                hash: meta.hash.clone(),
                kind: DatasetKind::parse(r.get(0))?,
                name: r.get(1),
                bytes: u64::try_from(r.get::<_, i64>(2))?,
                rows: u64::try_from(r.get::<_, i64>(3))?,
            };
            tx.commit()?;
            Ok(stored)
        })
    }

    fn dataset(&self, session: &str, hash: &str) -> Result<Option<Vec<u8>>> {
        let (session, hash) = (session.to_owned(), hash.to_owned());
        self.call(move |c| {
            Ok(c.query_opt(
                "SELECT b.content FROM session_datasets d JOIN blobs b ON b.hash = d.hash
                 WHERE d.session = $1 AND d.hash = $2",
                &[&session, &hash],
            )?
            .map(|r| r.get(0)))
        })
    }

    fn add_analysis(&self, session: &str, analysis: &Analysis) -> Result<()> {
        let (session, analysis) = (session.to_owned(), analysis.clone());
        self.call(move |c| insert_analysis(c, &session, &analysis))
    }

    fn import(&self, id: &str, owner_hash: &str, archive: &SessionArchive) -> Result<()> {
        let (id, owner_hash, archive) = (id.to_owned(), owner_hash.to_owned(), archive.clone());
        self.call(move |c| {
            let mut tx = c.transaction()?;
            tx.execute(
                "INSERT INTO sessions (id, owner_hash, title, created_at) VALUES ($1, $2, $3, $4)",
                &[&id, &owner_hash, &archive.title, &archive.created_at],
            )?;
            for d in &archive.datasets {
                insert_dataset(&mut tx, &id, &d.meta, &d.bytes("archive", "content")?)?;
            }
            for (k, run) in archive.runs.iter().enumerate() {
                let started_at = run
                    .get("started_at")
                    .and_then(|v| v.as_str())
                    .map_or_else(|| format!("imported-{k:06}"), str::to_owned);
                tx.execute(
                    "INSERT INTO runs (session, started_at, record) VALUES ($1, $2, $3)",
                    &[&id, &started_at, &run.to_string()],
                )?;
            }
            for a in &archive.analyses {
                insert_analysis(&mut tx, &id, a)?;
            }
            tx.commit()?;
            Ok(())
        })
    }
}
