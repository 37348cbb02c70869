//! Storage: one trait, [`Storage`], over two backends with the same schema and the same
//! tests — the embedded SQLite file ([`sqlite`], the default) and PostgreSQL ([`postgres`],
//! for several workers sharing one database). Both apply versioned migrations when opened.
//!
//! Events are written before they are sent, under the idempotent key `(stream, seq)`: writing
//! the same key twice keeps the first row and returns its id, so a replay never duplicates.
//! Judgments are keyed (session, item, order, repeat, variant) the same way.
//!
//! Sessions: a session row keeps the SHA-256 of its owner token, never the token. Dataset
//! contents are stored once per hash in `blobs`, whatever the number of sessions holding them;
//! a session lists its datasets and its saved analyses (spec as JSON). An import writes the
//! whole session in one transaction.
//!
//! Deleting ([`Storage::delete`]): the owner deletes a dataset, an analysis, a run (its events,
//! judgments, record and queue) or the whole session, in one transaction that also removes
//! every blob no session holds any more and leaves a tombstone, so that what was shared
//! answers "gone" rather than "never was" ([`Storage::deleted`]). A run (or a session with one)
//! that a worker holds a unit of — claimed or renewed within the last minute — is not
//! deleted.
//!
//! Work queue: a judge run is queued as its spec and one unit per planned judgment. Workers
//! claim units in batches — PostgreSQL with `FOR UPDATE SKIP LOCKED`, SQLite under its single
//! writer lock — so no unit is claimed by two live workers. A claim is a lease that its worker
//! renews while it lives (a heartbeat): a unit whose worker died is claimed again once the
//! lease has run out. A unit's judgment and its `done`
//! mark are written in one transaction, so a judgment is stored exactly once whatever dies when.

pub mod backup;
pub mod postgres;
pub mod sqlite;

use crate::build_info;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;
use tribunal::analysis::Spec;
use tribunal::sessions::session::{
    spec_from_value, Analysis, DatasetMeta, SessionArchive, SessionView,
};

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

/// A run event to store as the next of its stream.
#[derive(Debug, Clone, Copy)]
pub struct NewEvent<'a> {
    pub stream: &'a str,
    pub body: &'a str,
}

/// Where a stored event landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appended {
    pub id: i64,
    pub seq: u32,
}

/// What [`Storage::complete`] stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completed {
    /// The judgment was new (not stored before under its key).
    pub new: bool,
    /// The event stored with it.
    pub event: Option<Appended>,
}

/// A run this caller ended ([`Storage::end_run`]), with its last event if one was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ended {
    pub event: Option<Appended>,
}

/// How far a queued run has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    pub pending: u64,
    /// Claimed by a worker whose lease has not run out.
    pub claimed: u64,
    pub done: u64,
}

/// A part of a session its owner can delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Session,
    /// A dataset, by hash.
    Dataset(String),
    /// A saved analysis, by id.
    Analysis(String),
    /// A judge run, by its key (`run:<session>:<key>` is its stream).
    Run(String),
}

/// What [`Storage::delete`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deletion {
    Deleted,
    /// There was no such part (or session).
    Missing,
    /// A worker is judging a unit of the run (or of one of the session's runs).
    Busy,
}

/// A statement of a deletion, with the parameters it takes: `$1` the session id and, when
/// `keyed`, `$2` the part's key; `{now}` is the database clock in Unix seconds.
struct Statement {
    sql: &'static str,
    keyed: bool,
}

const fn statement(sql: &'static str, keyed: bool) -> Statement {
    Statement { sql, keyed }
}

/// How to delete one part: a count that is 0 when it does not exist, a count that is not 0
/// while it is being judged, the deletions, and the tombstone's name.
struct DeletionPlan {
    exists: Statement,
    busy: Option<Statement>,
    deletes: Vec<Statement>,
}

impl Part {
    fn key(&self) -> Option<&str> {
        match self {
            Part::Session => None,
            Part::Dataset(k) | Part::Analysis(k) | Part::Run(k) => Some(k),
        }
    }

    /// The tombstone's name: empty for the session, `kind:key` for a part.
    fn tombstone(&self) -> String {
        match self {
            Part::Session => String::new(),
            Part::Dataset(k) => format!("dataset:{k}"),
            Part::Analysis(k) => format!("analysis:{k}"),
            Part::Run(k) => format!("run:{k}"),
        }
    }

    fn plan(&self) -> DeletionPlan {
        match self {
            Part::Session => DeletionPlan {
                exists: statement("SELECT COUNT(*) FROM sessions WHERE id = $1", false),
                busy: Some(statement(
                    "SELECT COUNT(*) FROM run_units WHERE (stream LIKE 'serve:' || CAST($1 AS TEXT) || ':%'
                     OR stream LIKE 'judge:' || CAST($1 AS TEXT) || ':%') AND state = 'claimed' AND claimed_at > {now} - 60.0",
                    false,
                )),
                deletes: vec![
                    statement(
                        "DELETE FROM run_units WHERE stream LIKE 'serve:' || CAST($1 AS TEXT) || ':%'
                         OR stream LIKE 'judge:' || CAST($1 AS TEXT) || ':%'",
                        false,
                    ),
                    statement(
                        "DELETE FROM run_queue WHERE stream LIKE 'serve:' || CAST($1 AS TEXT) || ':%'
                         OR stream LIKE 'judge:' || CAST($1 AS TEXT) || ':%'",
                        false,
                    ),
                    statement(
                        "DELETE FROM events WHERE stream LIKE 'run:' || CAST($1 AS TEXT) || ':%'",
                        false,
                    ),
                    statement(
                        "DELETE FROM judgments WHERE session = $1 OR session LIKE CAST($1 AS TEXT) || ':%'",
                        false,
                    ),
                    statement(
                        "DELETE FROM runs WHERE session = $1 OR session LIKE CAST($1 AS TEXT) || ':%'",
                        false,
                    ),
                    statement("DELETE FROM analyses WHERE session = $1", false),
                    statement("DELETE FROM session_datasets WHERE session = $1", false),
                    statement("DELETE FROM sessions WHERE id = $1", false),
                ],
            },
            Part::Dataset(_) => DeletionPlan {
                exists: statement(
                    "SELECT COUNT(*) FROM session_datasets WHERE session = $1 AND hash = $2",
                    true,
                ),
                busy: None,
                deletes: vec![statement(
                    "DELETE FROM session_datasets WHERE session = $1 AND hash = $2",
                    true,
                )],
            },
            Part::Analysis(_) => DeletionPlan {
                exists: statement(
                    "SELECT COUNT(*) FROM analyses WHERE session = $1 AND id = $2",
                    true,
                ),
                busy: None,
                deletes: vec![statement(
                    "DELETE FROM analyses WHERE session = $1 AND id = $2",
                    true,
                )],
            },
            Part::Run(_) => DeletionPlan {
                exists: statement(
                    "SELECT (SELECT COUNT(*) FROM events WHERE stream = 'run:' || CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT))
                     + (SELECT COUNT(*) FROM runs WHERE session = CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT))",
                    true,
                ),
                busy: Some(statement(
                    "SELECT COUNT(*) FROM run_units WHERE (stream LIKE 'serve:' || CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT) || ':%'
                     OR stream LIKE 'judge:' || CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT) || ':%') AND state = 'claimed'
                     AND claimed_at > {now} - 60.0",
                    true,
                )),
                deletes: vec![
                    statement(
                        "DELETE FROM run_units WHERE stream LIKE 'serve:' || CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT) || ':%'
                         OR stream LIKE 'judge:' || CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT) || ':%'",
                        true,
                    ),
                    statement(
                        "DELETE FROM run_queue WHERE stream LIKE 'serve:' || CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT) || ':%'
                         OR stream LIKE 'judge:' || CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT) || ':%'",
                        true,
                    ),
                    statement(
                        "DELETE FROM events WHERE stream = 'run:' || CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT)",
                        true,
                    ),
                    // A cascade's later judges' judgments and records are under `<run>:t<k>`.
                    statement(
                        "DELETE FROM judgments WHERE session = CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT)
                         OR session LIKE CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT) || ':%'",
                        true,
                    ),
                    statement(
                        "DELETE FROM runs WHERE session = CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT)
                         OR session LIKE CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT) || ':%'",
                        true,
                    ),
                ],
            },
        }
    }
}

impl Statement {
    fn params<'a>(&self, session: &'a str, key: Option<&'a str>) -> Vec<&'a str> {
        let mut params = vec![session];
        if self.keyed {
            params.push(key.unwrap_or_default());
        }
        params
    }
}

/// A backend's transaction, as a deletion uses it.
pub trait DeletionTx {
    /// The database clock in Unix seconds, as SQL.
    const NOW: &'static str;
    /// The single integer `sql` selects (its parameters all text).
    fn count(&mut self, sql: &str, params: &[&str]) -> Result<i64>;
    /// Runs `sql` (its parameters all text).
    fn apply(&mut self, sql: &str, params: &[&str]) -> Result<()>;
}

/// Removes the blobs no session holds.
const COLLECT_BLOBS: &str =
    "DELETE FROM blobs WHERE hash NOT IN (SELECT hash FROM session_datasets)";

const TOMBSTONE: &str =
    "INSERT INTO deleted (session, part) VALUES ($1, $2) ON CONFLICT DO NOTHING";

const IS_DELETED: &str =
    "SELECT COUNT(*) FROM deleted WHERE session = $1 AND (part = '' OR part = $2)";

/// Runs the deletion of `part` of `session` in `tx`; the caller commits only on
/// [`Deletion::Deleted`].
pub fn run_deletion<T: DeletionTx>(tx: &mut T, session: &str, part: &Part) -> Result<Deletion> {
    let plan = part.plan();
    let key = part.key();
    let params = |st: &Statement| st.params(session, key);
    if tx.count(plan.exists.sql, &params(&plan.exists))? == 0 {
        return Ok(Deletion::Missing);
    }
    if let Some(busy) = &plan.busy {
        let sql = busy.sql.replace("{now}", T::NOW);
        if tx.count(&sql, &params(busy))? > 0 {
            return Ok(Deletion::Busy);
        }
    }
    for st in &plan.deletes {
        tx.apply(st.sql, &params(st))?;
    }
    tx.apply(COLLECT_BLOBS, &[])?;
    let tombstone = part.tombstone();
    tx.apply(TOMBSTONE, &[session, &tombstone])?;
    Ok(Deletion::Deleted)
}

/// Whether `part` of `session` (or the session) has a tombstone.
pub fn is_deleted(tx: &mut impl DeletionTx, session: &str, part: &Part) -> Result<bool> {
    let tombstone = part.tombstone();
    Ok(tx.count(IS_DELETED, &[session, &tombstone])? > 0)
}

/// What every backend stores. Methods block; a failed write leaves nothing half-written.
pub trait Storage: Send + Sync {
    /// The schema version after migrations.
    fn schema_version(&self) -> Result<i64>;
    /// `sqlite` or `postgresql`.
    fn backend(&self) -> &'static str;

    /// Stores `body` as the next event of `stream` (its seq one past the stream's last).
    /// Appends to one stream are serialised, so a stream's ids grow with its seqs in commit
    /// order: a reader that has every event up to id N misses none below it later.
    fn append_event(&self, stream: &str, body: &str) -> Result<Appended>;
    /// The events of `stream` with an id above `after`: (id, seq, body), in id order.
    fn events_after(&self, stream: &str, after: i64) -> Result<Vec<(i64, u32, String)>>;
    /// The (seq, body) of a stream's events in seq order.
    fn events(&self, stream: &str) -> Result<Vec<(u32, String)>>;

    /// Stores a judgment under its key; returns false (and keeps the stored row) when the key
    /// is there already.
    fn put_judgment(&self, key: &JudgmentKey, body: &str) -> Result<bool>;
    /// A session's judgments with their keys, in the order they were stored.
    fn judgments(&self, session: &str) -> Result<Vec<(JudgmentKey, String)>>;
    /// Stores a run's reproducibility record.
    fn put_run(&self, session: &str, started_at: &str, record: &str) -> Result<()>;

    /// Queues the judge run `stream` (its spec as JSON) with units `0..units` and starts its
    /// clock. A run queued already keeps its spec and units and is opened again (a restart).
    fn enqueue(&self, stream: &str, spec: &str, units: u32) -> Result<()>;
    /// The spec of a queued run.
    fn queued_spec(&self, stream: &str) -> Result<Option<String>>;
    /// Whether the queued run `stream` has ended; `None` when it is not queued.
    fn run_ended(&self, stream: &str) -> Result<Option<bool>>;
    /// The queued runs open to any worker (`judge:` queues) that have not ended and have units
    /// left to claim (pending, or with a lapsed lease) or none left at all (to be ended),
    /// oldest first.
    fn open_runs(&self, lease_seconds: f64) -> Result<Vec<String>>;
    /// Claims up to `limit` units of `stream` for `worker`: pending ones, and claimed ones whose
    /// lease of `lease_seconds` has run out; none once the run has ended. Returns them in unit
    /// order.
    fn claim(&self, stream: &str, worker: &str, limit: u32, lease_seconds: f64)
        -> Result<Vec<u32>>;
    /// Renews the lease of every unit `worker` holds (its heartbeat); returns how many.
    fn renew(&self, worker: &str) -> Result<u64>;
    /// Stores the judgment of `unit` of `stream` and marks the unit done, and — when the
    /// judgment is new and the run has not ended — `event` as its stream's next event, in one
    /// transaction. A judgment whose key was stored already keeps its row and gets no event.
    fn complete(
        &self,
        stream: &str,
        unit: u32,
        key: &JudgmentKey,
        body: &str,
        event: Option<NewEvent<'_>>,
    ) -> Result<Completed>;
    /// The run's unit counts.
    fn progress(&self, stream: &str, lease_seconds: f64) -> Result<Progress>;
    /// Seconds since the run was queued or last restarted, by the store's clock.
    fn run_seconds(&self, stream: &str) -> Result<f64>;
    /// Ends the run `stream` and stores `event` (its last) as the next of its stream, in one
    /// transaction, once: the caller that ends it gets `Some`, any later one `None`.
    fn end_run(&self, stream: &str, event: Option<NewEvent<'_>>) -> Result<Option<Ended>>;

    /// Creates an empty session owned by the token whose hash is `owner_hash`.
    fn create_session(&self, id: &str, owner_hash: &str, title: &str) -> Result<()>;
    /// The owner-token hash of session `id`, or `None` when there is no such session.
    fn owner_hash(&self, id: &str) -> Result<Option<String>>;
    /// Session `id` as a visitor sees it, or `None`.
    fn session(&self, id: &str) -> Result<Option<SessionView>>;
    /// Adds a checked dataset to a session, its content stored once per hash; returns the
    /// session's entry for that hash (the first one when the same content was added before).
    fn add_dataset(&self, session: &str, meta: &DatasetMeta, content: &[u8])
        -> Result<DatasetMeta>;
    /// The content of dataset `hash` of `session`, or `None` when the session does not hold it.
    fn dataset(&self, session: &str, hash: &str) -> Result<Option<Vec<u8>>>;
    /// Saves an analysis in a session.
    fn add_analysis(&self, session: &str, analysis: &Analysis) -> Result<()>;
    /// Writes a validated archive as the new session `id` in one transaction: all of it or,
    /// on any error, nothing.
    fn import(&self, id: &str, owner_hash: &str, archive: &SessionArchive) -> Result<()>;

    /// Deletes `part` of `session` (all of it for [`Part::Session`]), the blobs no session
    /// holds any more, and leaves a tombstone; all or nothing.
    fn delete(&self, session: &str, part: &Part) -> Result<Deletion>;
    /// Whether `part` of `session` (or the session itself) was deleted.
    fn deleted(&self, session: &str, part: &Part) -> Result<bool>;

    /// Writes a consistent snapshot of the whole store to `archive`, a new SQLite file with
    /// this schema ([`backup`]).
    fn backup(&self, archive: &std::path::Path) -> Result<()>;
    /// Fills this store, which must be empty, from the SQLite `archive` (at this schema
    /// version), in one transaction.
    fn restore(&self, archive: &std::path::Path) -> Result<()>;

    /// The archive of session `id`, or `None`.
    fn archive(&self, id: &str) -> Result<Option<SessionArchive>> {
        let Some(view) = self.session(id)? else {
            return Ok(None);
        };
        let contents = view
            .datasets
            .iter()
            .map(|d| {
                self.dataset(id, &d.hash)?
                    .ok_or_else(|| anyhow::anyhow!("the content of {} is missing", d.hash))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(SessionArchive::new(
            view,
            contents,
            build_info::tool_version(),
        )))
    }
}

/// A stored analysis spec, of this version or version 1 ([`spec_from_value`]).
fn stored_spec(text: &str) -> Result<Spec> {
    let value = serde_json::from_str(text).context("a stored analysis spec")?;
    spec_from_value(value).context("a stored analysis spec")
}

/// A handle to the store; cheap to clone.
pub type Store = Arc<dyn Storage>;

/// Where the store is: `--store postgres://…` for PostgreSQL, else the SQLite file
/// `tribunal.sqlite3` under `--data-dir`.
#[derive(Args, Clone, Debug)]
pub struct StoreArgs {
    /// Directory of the embedded SQLite database (used when --store is not given).
    #[arg(long, default_value = "data")]
    pub data_dir: PathBuf,
    /// A PostgreSQL connection URL (`postgres://user@host:port/db`) instead of SQLite.
    #[arg(long)]
    pub store: Option<String>,
}

impl StoreArgs {
    /// Opens the store, creating the SQLite directory when needed, and migrates it.
    pub fn open(&self) -> Result<Store> {
        match &self.store {
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Ok(Arc::new(postgres::PgStore::connect(url)?))
            }
            Some(other) => bail!(
                "--store: expected a postgres:// or postgresql:// URL, found `{other}` \
                 (leave it out for the SQLite file under --data-dir)"
            ),
            None => {
                std::fs::create_dir_all(&self.data_dir).map_err(|e| {
                    anyhow::anyhow!("creating data directory {}: {e}", self.data_dir.display())
                })?;
                Ok(Arc::new(sqlite::SqliteStore::open(
                    &self.data_dir.join("tribunal.sqlite3"),
                )?))
            }
        }
    }

    /// Where the store is, for logs: the SQLite path, or the PostgreSQL URL without its
    /// password.
    pub fn describe(&self) -> String {
        match &self.store {
            Some(url) => redact(url),
            None => self.data_dir.join("tribunal.sqlite3").display().to_string(),
        }
    }
}

/// `url` with the password (between `user:` and `@`) replaced by `***`.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.split_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests;
