//! The accounts schema at start. `linecast-admin migrate` owns it: a
//! server migrates only in demo mode (its own database) or with
//! `LINECAST_MIGRATE=true`; otherwise it checks that every migration it
//! knows is applied and refuses to start if one is pending. Migrations a
//! newer release applied (a rollback) are logged and tolerated: they only
//! add what this release ignores (docs/operations.md, "Migrations").

use anyhow::anyhow;
use linecast_db::DatabaseConnection;
use linecast_db::schema::{self, SchemaError};

/// What an operator does about a pending migration.
pub const REMEDY: &str = "run `linecast-admin migrate` against this database first (docs/operations.md, \
                          \"Migrations\"), or set LINECAST_MIGRATE=true on one instance to migrate at start";

/// Migrates (`migrate`) or checks the schema, logging what it did and any
/// migration this release does not know.
pub async fn prepare(db: &DatabaseConnection, migrate: bool) -> anyhow::Result<()> {
    let unknown = if migrate {
        let migrated = schema::migrate(db)
            .await
            .map_err(|e| anyhow!("migrating the accounts database: {e}"))?;
        if migrated.applied_now.is_empty() {
            tracing::info!(
                applied = migrated.already_applied.len(),
                "accounts schema up to date: no migration pending"
            );
        } else {
            tracing::info!(
                migrations = %migrated.applied_now.join(", "),
                "accounts schema migrated at start"
            );
        }
        migrated.unknown
    } else {
        match schema::check(db).await {
            Ok(state) => state.unknown,
            Err(e @ SchemaError::Pending { .. }) => return Err(anyhow!("{e}: {REMEDY}")),
            Err(e) => return Err(anyhow!("{e}")),
        }
    };
    if !unknown.is_empty() {
        tracing::warn!(
            unknown = %unknown.join(", "),
            "the accounts database records migrations this release does not know (a newer release applied them); \
             every migration this release needs is applied, so it carries on"
        );
    }
    Ok(())
}
