//! `tribunal backup` and `tribunal restore`: one archive format for both backends — an SQLite
//! database file with the store's schema, so a backup of either store restores into either.
//!
//! - SQLite store → archive: SQLite's online backup of the live file (a consistent snapshot
//!   while servers and workers keep writing).
//! - PostgreSQL store → archive: every table read in one `REPEATABLE READ` transaction (one
//!   snapshot), in its insertion order, into a new SQLite file.
//! - Archive → store: the target must be empty (no session, event, judgment or queued run);
//!   the archive is checked to be at this schema version, and its rows are written in one
//!   transaction (SQLite: the online backup into a new file; PostgreSQL: the rows in order, the
//!   event ids kept and their sequence moved past them).
//!
//! Both write to a temporary file first and rename it into place, so an archive is whole or
//! absent.

use super::StoreArgs;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};

/// A column of a copied table and how it is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    Text,
    Integer,
    Real,
    Blob,
}

/// A copied table: its columns (those both backends have) and the PostgreSQL column that
/// keeps insertion order.
pub struct Table {
    pub name: &'static str,
    pub columns: &'static [(&'static str, Column)],
    pub order: &'static str,
}

/// The store's tables in an order that satisfies their references.
pub const TABLES: &[Table] = &[
    Table {
        name: "events",
        columns: &[
            ("id", Column::Integer),
            ("stream", Column::Text),
            ("seq", Column::Integer),
            ("body", Column::Text),
            ("created_at", Column::Text),
        ],
        order: "id",
    },
    Table {
        name: "judgments",
        columns: &[
            ("session", Column::Text),
            ("item", Column::Text),
            ("item_order", Column::Text),
            ("repeat", Column::Integer),
            ("variant", Column::Text),
            ("body", Column::Text),
            ("created_at", Column::Text),
        ],
        order: "id",
    },
    Table {
        name: "runs",
        columns: &[
            ("session", Column::Text),
            ("started_at", Column::Text),
            ("record", Column::Text),
        ],
        order: "started_at",
    },
    Table {
        name: "sessions",
        columns: &[
            ("id", Column::Text),
            ("owner_hash", Column::Text),
            ("title", Column::Text),
            ("created_at", Column::Text),
        ],
        order: "created_at",
    },
    Table {
        name: "blobs",
        columns: &[("hash", Column::Text), ("content", Column::Blob)],
        order: "hash",
    },
    Table {
        name: "session_datasets",
        columns: &[
            ("session", Column::Text),
            ("hash", Column::Text),
            ("kind", Column::Text),
            ("name", Column::Text),
            ("bytes", Column::Integer),
            ("rows", Column::Integer),
        ],
        order: "id",
    },
    Table {
        name: "analyses",
        columns: &[
            ("session", Column::Text),
            ("id", Column::Text),
            ("title", Column::Text),
            ("spec", Column::Text),
            ("created_with", Column::Text),
        ],
        order: "row_id",
    },
    Table {
        name: "run_queue",
        columns: &[
            ("stream", Column::Text),
            ("spec", Column::Text),
            ("units", Column::Integer),
            ("created_at", Column::Text),
            ("ended", Column::Integer),
            ("started", Column::Real),
        ],
        order: "id",
    },
    Table {
        name: "run_units",
        columns: &[
            ("stream", Column::Text),
            ("unit", Column::Integer),
            ("state", Column::Text),
            ("worker", Column::Text),
            ("claimed_at", Column::Real),
        ],
        order: "stream, unit",
    },
    Table {
        name: "deleted",
        columns: &[
            ("session", Column::Text),
            ("part", Column::Text),
            ("deleted_at", Column::Text),
        ],
        order: "deleted_at",
    },
];

/// The tables whose rows say whether a store holds anything.
const CONTENT: &[&str] = &["sessions", "events", "judgments", "run_queue"];

/// `SELECT` of every row of a table: SQL for each count of [`CONTENT`].
pub fn emptiness_query() -> String {
    CONTENT
        .iter()
        .map(|t| format!("(SELECT COUNT(*) FROM {t})"))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// `path` with `.partial` appended: where an archive is written before it is renamed.
pub fn partial(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// Checks that `archive` is a Tribunal store at `version`.
pub fn check_archive(archive: &rusqlite::Connection, path: &Path, version: i64) -> Result<()> {
    let found: i64 = archive
        .query_row(
            "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
            [],
            |r| r.get(0),
        )
        .with_context(|| format!("{}: not a Tribunal backup", path.display()))?;
    if found != version {
        bail!(
            "{}: a backup at schema version {found}; this tribunal restores version {version} \
             (restore it with the version that made it, then back up again)",
            path.display()
        );
    }
    Ok(())
}

/// `tribunal backup`: a snapshot of the store in one file.
#[derive(Args)]
pub struct BackupArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// The archive to write (an SQLite file); it must not exist.
    #[arg(long)]
    out: PathBuf,
}

/// `tribunal restore`: an archive into an empty store.
#[derive(Args)]
pub struct RestoreArgs {
    /// The archive `tribunal backup` wrote.
    #[arg(long = "from")]
    from: PathBuf,
    #[command(flatten)]
    store: StoreArgs,
}

pub fn backup(args: BackupArgs) -> Result<()> {
    if args.out.exists() {
        bail!(
            "--out {}: the file exists; choose a new name",
            args.out.display()
        );
    }
    let store = args.store.open()?;
    let partial = partial(&args.out);
    let _ = std::fs::remove_file(&partial);
    store
        .backup(&partial)
        .with_context(|| format!("backing up {}", args.store.describe()))?;
    std::fs::rename(&partial, &args.out)?;
    eprintln!(
        "backed up {} to {}",
        args.store.describe(),
        args.out.display()
    );
    Ok(())
}

pub fn restore(args: RestoreArgs) -> Result<()> {
    if !args.from.is_file() {
        bail!("--from {}: no such file", args.from.display());
    }
    let store = args.store.open()?;
    store.restore(&args.from).with_context(|| {
        format!(
            "restoring {} into {}",
            args.from.display(),
            args.store.describe()
        )
    })?;
    eprintln!(
        "restored {} into {}",
        args.from.display(),
        args.store.describe()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_of_another_schema_version_or_no_tribunal_file_is_refused() {
        let dir = std::env::temp_dir().join(format!("tribunal-backup-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("old.tribunal");
        let _ = std::fs::remove_file(&path);
        let db = rusqlite::Connection::open(&path).unwrap();
        let error = check_archive(&db, &path, 6).unwrap_err().to_string();
        assert!(error.contains("not a Tribunal backup"), "{error}");
        db.execute_batch(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY);
             INSERT INTO schema_migrations VALUES (1), (5);",
        )
        .unwrap();
        let error = check_archive(&db, &path, 6).unwrap_err().to_string();
        assert!(
            error.contains("schema version 5") && error.contains("restores version 6"),
            "{error}"
        );
        assert!(check_archive(&db, &path, 5).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_tables_copied_are_every_table_of_the_schema() {
        let dir = std::env::temp_dir().join(format!("tribunal-tables-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.sqlite3");
        let _ = std::fs::remove_file(&path);
        drop(super::super::sqlite::SqliteStore::open(&path).unwrap());
        let db = rusqlite::Connection::open(&path).unwrap();
        let mut statement = db
            .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'table'
                 AND name NOT IN ('schema_migrations', 'sqlite_sequence') ORDER BY name",
            )
            .unwrap();
        let mut tables: Vec<String> = statement
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        tables.sort();
        let mut copied: Vec<String> = TABLES.iter().map(|t| t.name.to_owned()).collect();
        copied.sort();
        assert_eq!(copied, tables, "a new table must be added to TABLES");
        for Table {
            name: table,
            columns,
            ..
        } in TABLES
        {
            let mut statement = db
                .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
                .unwrap();
            let names: Vec<String> = statement
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            let listed: Vec<&str> = columns.iter().map(|(c, _)| *c).collect();
            assert_eq!(names, listed, "{table}: every column, in order");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
