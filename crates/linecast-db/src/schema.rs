//! Who changes the schema, and what a binary checks before it uses it.
//!
//! The schema has one owner: [`migrate`] (run by `linecast-admin migrate`,
//! by a server in demo mode or with `LINECAST_MIGRATE=true`, and by
//! [`crate::connect`] for tests and embedded use). Everything else opens
//! the pool without touching the schema and asks [`check`]: every
//! migration this build knows must be applied; rows of migrations it does
//! not know (a newer release migrated the database, and this one is a
//! rollback) are reported and tolerated, because migrations are additive:
//! a release only adds tables, columns and indexes the previous release
//! ignores, and removes what it no longer reads one release later.

use std::collections::HashSet;

use sea_orm::{ActiveValue, ConnectionTrait, DatabaseConnection, DbBackend, DbErr, EntityTrait};
use sea_orm_migration::{MigratorTrait, SchemaManager, seaql_migrations};

use crate::migration::Migrator;

/// The table sea-orm-migration records applied migrations in.
pub const MIGRATIONS_TABLE: &str = "seaql_migrations";

/// Any constant works; it only has to be the same for every process.
const MIGRATION_LOCK: i64 = 0x6c69_6e65_6361_7374; // "linecast"

/// The schema as this build sees it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SchemaState {
    /// Migrations this build knows that the database has applied, in order.
    pub applied: Vec<String>,
    /// Migrations this build knows that the database lacks, in order.
    pub pending: Vec<String>,
    /// Migrations the database records that this build does not know (a
    /// newer release applied them), sorted by name.
    pub unknown: Vec<String>,
}

/// What [`migrate`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Migrated {
    /// Migrations applied by this call, in order.
    pub applied_now: Vec<String>,
    /// Migrations that were applied before this call.
    pub already_applied: Vec<String>,
    /// Migrations the database records that this build does not know.
    pub unknown: Vec<String>,
}

/// Why the schema cannot be used or changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaError {
    /// The database could not be read or written.
    Database(String),
    /// Migrations this build needs are not applied ([`check`]).
    Pending { pending: Vec<String>, unknown: Vec<String> },
    /// The database records migrations this build does not know *and*
    /// lacks some it knows: it was migrated by a release whose history
    /// is not this one's, so neither order is safe to assume ([`migrate`]
    /// and [`check`] refuse it).
    Diverged { pending: Vec<String>, unknown: Vec<String> },
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Database(cause) => write!(
                f,
                "the accounts database's schema could not be read or changed: {cause}"
            ),
            Self::Pending { pending, .. } => write!(
                f,
                "the accounts database lacks {} migration{} this release needs ({})",
                pending.len(),
                if pending.len() == 1 { "" } else { "s" },
                pending.join(", ")
            ),
            Self::Diverged { pending, unknown } => write!(
                f,
                "the accounts database records migrations this release does not know ({}) and lacks migrations it \
                 needs ({}): it was migrated by a release with another migration history; refusing to use or \
                 migrate it",
                unknown.join(", "),
                pending.join(", ")
            ),
        }
    }
}

impl std::error::Error for SchemaError {}

fn database(e: &DbErr) -> SchemaError {
    SchemaError::Database(e.to_string())
}

/// The names of this build's migrations, in the order they apply.
pub fn known_migrations() -> Vec<String> {
    Migrator::migrations().iter().map(|m| m.name().to_owned()).collect()
}

/// Splits the recorded migration names into applied, pending and unknown.
fn classify(known: &[String], recorded: &[String]) -> SchemaState {
    let recorded_set: HashSet<&str> = recorded.iter().map(String::as_str).collect();
    let known_set: HashSet<&str> = known.iter().map(String::as_str).collect();
    let (applied, pending) = known.iter().cloned().partition(|m| recorded_set.contains(m.as_str()));
    let mut unknown: Vec<String> = recorded
        .iter()
        .filter(|m| !known_set.contains(m.as_str()))
        .cloned()
        .collect();
    unknown.sort();
    unknown.dedup();
    SchemaState {
        applied,
        pending,
        unknown,
    }
}

/// The migration names recorded in the database (none when the table does
/// not exist yet). Creates nothing.
async fn recorded(manager: &SchemaManager<'_>) -> Result<Vec<String>, DbErr> {
    if !manager.has_table(MIGRATIONS_TABLE).await? {
        return Ok(Vec::new());
    }
    Ok(seaql_migrations::Entity::find()
        .all(manager.get_connection())
        .await?
        .into_iter()
        .map(|row| row.version)
        .collect())
}

/// The schema as this build sees it, read without changing anything (a
/// database user without DDL rights may call it).
pub async fn state(db: &DatabaseConnection) -> Result<SchemaState, SchemaError> {
    let recorded = recorded(&SchemaManager::new(db)).await.map_err(|e| database(&e))?;
    Ok(classify(&known_migrations(), &recorded))
}

/// [`state`], refused when a migration this build knows is not applied
/// ([`SchemaError::Pending`], or [`SchemaError::Diverged`] when unknown
/// ones are recorded too). The caller reports `unknown` when it is not
/// empty.
pub async fn check(db: &DatabaseConnection) -> Result<SchemaState, SchemaError> {
    let state = state(db).await?;
    if state.pending.is_empty() {
        Ok(state)
    } else if state.unknown.is_empty() {
        Err(SchemaError::Pending {
            pending: state.pending,
            unknown: state.unknown,
        })
    } else {
        Err(SchemaError::Diverged {
            pending: state.pending,
            unknown: state.unknown,
        })
    }
}

/// Applies every migration this build knows that the database lacks, in
/// order, in one transaction holding a database-wide write lock (so
/// processes migrating at once do not both apply one): PostgreSQL takes a
/// transaction-scoped advisory lock, SQLite a write transaction. Rows of
/// migrations this build does not know are left as they are and reported;
/// if the database also lacks a migration this build knows, nothing is
/// applied ([`SchemaError::Diverged`]).
pub async fn migrate(db: &DatabaseConnection) -> Result<Migrated, SchemaError> {
    let txn = crate::sql::begin_write(db).await.map_err(|e| database(&e))?;
    if db.get_database_backend() == DbBackend::Postgres {
        txn.execute_unprepared(&format!("SELECT pg_advisory_xact_lock({MIGRATION_LOCK})"))
            .await
            .map_err(|e| database(&e))?;
    }
    Migrator::install(&txn).await.map_err(|e| database(&e))?;
    let manager = SchemaManager::new(&txn);
    let recorded = recorded(&manager).await.map_err(|e| database(&e))?;
    let state = classify(&known_migrations(), &recorded);
    if !state.pending.is_empty() && !state.unknown.is_empty() {
        return Err(SchemaError::Diverged {
            pending: state.pending,
            unknown: state.unknown,
        });
    }
    let mut applied_now = Vec::new();
    for migration in Migrator::migrations() {
        let name = migration.name().to_owned();
        if !state.pending.contains(&name) {
            continue;
        }
        tracing::info!(migration = %name, "applying migration");
        migration
            .up(&manager)
            .await
            .map_err(|e| SchemaError::Database(format!("migration {name}: {e}")))?;
        seaql_migrations::Entity::insert(seaql_migrations::ActiveModel {
            version: ActiveValue::Set(name.clone()),
            applied_at: ActiveValue::Set(chrono::Utc::now().timestamp()),
        })
        .exec(&txn)
        .await
        .map_err(|e| database(&e))?;
        applied_now.push(name);
    }
    txn.commit().await.map_err(|e| database(&e))?;
    Ok(Migrated {
        applied_now,
        already_applied: state.applied,
        unknown: state.unknown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn recorded_names_are_split_into_applied_pending_and_unknown() {
        let known = names(&["m1", "m2", "m3"]);
        let state = classify(&known, &names(&["m9_future", "m1", "m2", "m8_future"]));
        assert_eq!(state.applied, names(&["m1", "m2"]));
        assert_eq!(state.pending, names(&["m3"]));
        assert_eq!(state.unknown, names(&["m8_future", "m9_future"]));
        let fresh = classify(&known, &[]);
        assert_eq!((fresh.applied.len(), fresh.pending, fresh.unknown.len()), (0, known, 0));
    }

    #[test]
    fn this_builds_migrations_have_unique_names_in_order() {
        let known = known_migrations();
        let mut sorted = known.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(known, sorted, "names are unique and in the order they apply");
        assert!(known.first().is_some_and(|m| m.starts_with("m0001_")), "{known:?}");
    }
}
