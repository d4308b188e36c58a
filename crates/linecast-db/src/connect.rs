//! Opening the pool (and, for tests and embedded use, applying migrations),
//! for SQLite files, SQLite in memory and PostgreSQL.

use std::path::Path;
use std::time::Duration;

use linecast_core::AccountsError;
use sea_orm::sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous};
use sea_orm::{ConnectOptions, Database, DatabaseConnection};

/// How long a SQLite writer waits for another writer's lock before failing.
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(30);
/// WAL lets readers run beside the single writer, so a few connections help.
const SQLITE_FILE_POOL: u32 = 8;
const POSTGRES_POOL: u32 = 16;

/// Connects to `url` and applies every pending migration
/// ([`crate::schema::migrate`]): for tests and embedded use. The server and
/// the operator CLI open the pool with [`open_with_timeout`] and migrate
/// only when asked (`linecast-admin migrate`, `LINECAST_MIGRATE`).
///
/// - `sqlite://path/to/file.db` (with or without `?mode=rwc`): the file and
///   its parent folder are created when missing; WAL journal, a busy
///   timeout and foreign keys are enabled on every connection.
/// - `sqlite::memory:`: one connection that is never closed, since each
///   SQLite connection to `:memory:` would otherwise see its own database.
/// - `postgres://...`: a schema other than `public` can be chosen with
///   `?options[search_path]=name` (the schema must already exist).
pub async fn connect(url: &str) -> Result<DatabaseConnection, AccountsError> {
    connect_with_timeout(url, Duration::from_secs(30)).await
}

/// `connect`, waiting at most `acquire_timeout` for a pooled connection (a
/// partitioned database then fails fast instead of after sqlx's 30 s).
async fn connect_with_timeout(url: &str, acquire_timeout: Duration) -> Result<DatabaseConnection, AccountsError> {
    let db = open_with_timeout(url, acquire_timeout).await?;
    let migrated = crate::schema::migrate(&db)
        .await
        .map_err(|e| AccountsError::Unavailable(e.to_string()))?;
    if !migrated.unknown.is_empty() {
        tracing::warn!(
            unknown = %migrated.unknown.join(", "),
            "the accounts database records migrations this release does not know (a newer release applied them); carrying on"
        );
    }
    Ok(db)
}

/// Opens the pool for `url` (as [`connect`] describes) without reading or
/// changing the schema.
pub async fn open_with_timeout(url: &str, acquire_timeout: Duration) -> Result<DatabaseConnection, AccountsError> {
    let mut opts = ConnectOptions::new(url.to_owned());
    opts.sqlx_logging(false)
        .acquire_timeout(acquire_timeout)
        .connect_timeout(acquire_timeout);
    if url.starts_with("sqlite:") {
        if is_sqlite_memory(url) {
            opts.max_connections(1)
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None);
            opts.map_sqlx_sqlite_opts(|o| o.foreign_keys(true).busy_timeout(SQLITE_BUSY_TIMEOUT));
        } else {
            create_parent_dir(url)?;
            opts.max_connections(SQLITE_FILE_POOL);
            opts.map_sqlx_sqlite_opts(|o| {
                o.create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .synchronous(SqliteSynchronous::Normal)
                    .busy_timeout(SQLITE_BUSY_TIMEOUT)
                    .foreign_keys(true)
            });
        }
    } else {
        opts.max_connections(POSTGRES_POOL);
    }
    // Two processes opening a new SQLite file at once race to switch it to
    // WAL; the loser gets SQLITE_BUSY at once (the busy handler does not
    // cover the journal-mode switch). Retry that case briefly. A first
    // connection slower than `acquire_timeout` (a loaded host, a database
    // still starting) is tried again until `OPEN_PATIENCE` has passed: the
    // bound is the request path's, and a start can wait longer.
    let started = std::time::Instant::now();
    let mut attempt = 0;
    loop {
        match Database::connect(opts.clone()).await {
            Ok(db) => return Ok(db),
            Err(e) if attempt < 50 && e.to_string().contains("database is locked") => {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(20 * attempt.min(10))).await;
            }
            Err(e)
                if e.to_string().contains("pool timed out") && started.elapsed() + acquire_timeout < OPEN_PATIENCE =>
            {
                tracing::warn!(
                    timeout_ms = acquire_timeout.as_millis() as u64,
                    "the accounts database gave no connection in time; trying again"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => return Err(AccountsError::Unavailable(e.to_string())),
        }
    }
}

/// How long opening the pool may keep trying while the first connection
/// times out.
const OPEN_PATIENCE: Duration = Duration::from_secs(30);

fn is_sqlite_memory(url: &str) -> bool {
    url.contains(":memory:") || url.contains("mode=memory")
}

/// The file path of a `sqlite:` URL: after `sqlite://` or `sqlite:`, before `?`.
fn sqlite_path(url: &str) -> &str {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    rest.split('?').next().unwrap_or(rest)
}

fn create_parent_dir(url: &str) -> Result<(), AccountsError> {
    match Path::new(sqlite_path(url)).parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir)
            .map_err(|e| AccountsError::Unavailable(format!("cannot create {}: {e}", dir.display()))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sqlite_path_drops_the_scheme_and_the_query() {
        assert_eq!(sqlite_path("sqlite://var/linecast.db?mode=rwc"), "var/linecast.db");
        assert_eq!(sqlite_path("sqlite:///abs/x.db"), "/abs/x.db");
        assert_eq!(sqlite_path("sqlite:x.db"), "x.db");
    }

    #[test]
    fn memory_urls_are_recognised() {
        assert!(is_sqlite_memory("sqlite::memory:"));
        assert!(is_sqlite_memory("sqlite://?mode=memory"));
        assert!(!is_sqlite_memory("sqlite://var/linecast.db?mode=rwc"));
    }
}
