//! Who migrates, with the real binary: in production mode a server never
//! changes the schema unless `LINECAST_MIGRATE=true`; against an
//! unmigrated database it stops and says what to run; against a database
//! a newer release migrated (a migration row it does not know) it serves
//! and names that migration in its log. SQLite always, PostgreSQL when
//! `LINECAST_TEST_DATABASE_URL` is set.

use std::sync::Arc;
use std::time::Duration;

use linecast_core::services::customers::{CustomerInput, Customers};
use linecast_core::services::keys::Keys;
use linecast_core::{Accounts, SubscriptionStatus, UsageMeter};
use linecast_db::SeaAccounts;
use sea_orm::ConnectionTrait;

use crate::drain::{client, start_with, until};
use crate::helpers::fixture_now;

fn sqlite_url(dir: &std::path::Path) -> String {
    format!("sqlite://{}?mode=rwc", dir.join("accounts.db").display())
}

/// The migration rows recorded in the database at `url` (none when the
/// table does not exist), read without the crate's own schema module.
async fn recorded(url: &str) -> Vec<String> {
    let db = sea_orm::Database::connect(url).await.unwrap();
    let Ok(rows) = db
        .query_all_raw(sea_orm::Statement::from_string(
            db.get_database_backend(),
            "SELECT version FROM seaql_migrations ORDER BY version",
        ))
        .await
    else {
        return Vec::new();
    };
    rows.iter()
        .map(|r| r.try_get::<String>("", "version").unwrap())
        .collect()
}

#[tokio::test]
async fn without_linecast_migrate_a_server_refuses_an_unmigrated_database_and_says_what_to_run() {
    let db_dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(db_dir.path());
    let mut server = start_with(
        "0",
        &[
            ("LINECAST_DATABASE_URL", url.clone()),
            ("LINECAST_MIGRATE", "false".to_owned()),
        ],
    );
    let exit = server.exit_within(Duration::from_mins(2));
    let log = server.log();
    assert!(!exit.success(), "{exit:?}:\n{log}");
    assert!(log.contains("lacks"), "{log}");
    assert!(log.contains("m0001_accounts"), "names the pending migrations:\n{log}");
    assert!(log.contains("linecast-admin migrate"), "{log}");
    assert!(log.contains("LINECAST_MIGRATE=true"), "{log}");
    assert!(recorded(&url).await.is_empty(), "the server changed nothing");
}

#[tokio::test]
async fn with_linecast_migrate_a_server_migrates_its_database_at_start() {
    let db_dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(db_dir.path());
    let server = start_with(
        "0",
        &[
            ("LINECAST_DATABASE_URL", url.clone()),
            ("LINECAST_MIGRATE", "true".to_owned()),
        ],
    );
    until(&server, "/api/v1/readiness", 200, Duration::from_mins(2)).await;
    let log = server.log();
    assert!(log.contains("accounts schema migrated at start"), "{log}");
    let rows = recorded(&url).await;
    assert!(rows.contains(&"m0001_accounts".to_owned()), "{rows:?}");
    assert!(
        !rows.is_empty() && rows.iter().all(|r| log.contains(r.as_str())),
        "{rows:?}:\n{log}"
    );
}

/// Migrates the database at `url`, records a migration of a later release
/// and issues a key there; the server (not migrating) then starts, serves
/// the key and names the migration it does not know.
async fn serves_a_database_a_newer_release_migrated(url: &str) {
    let accounts = SeaAccounts::connect(url).await.unwrap();
    accounts
        .connection()
        .execute_unprepared("INSERT INTO seaql_migrations (version, applied_at) VALUES ('m9999_future', 0)")
        .await
        .unwrap();
    let accounts = Arc::new(accounts);
    let (as_accounts, as_usage): (Arc<dyn Accounts>, Arc<dyn UsageMeter>) = (accounts.clone(), accounts.clone());
    let customer = Customers::new(as_accounts.clone(), as_usage)
        .create(
            &CustomerInput {
                email: "rollback@example.com".to_owned(),
                name: "Rollback".to_owned(),
                tier: "ai".to_owned(),
                plan: "ai".to_owned(),
                monthly_limit: 1000,
                status: SubscriptionStatus::Active,
            },
            fixture_now(),
        )
        .await
        .unwrap();
    let key = Keys::uncapped(as_accounts)
        .issue(&customer, "rollback", None, "test", fixture_now())
        .await
        .unwrap()
        .key;

    let mut server = start_with(
        "0",
        &[
            ("LINECAST_DATABASE_URL", url.to_owned()),
            ("LINECAST_MIGRATE", "false".to_owned()),
        ],
    );
    until(&server, "/api/v1/readiness", 200, Duration::from_mins(2)).await;
    let res = client()
        .get(format!("{}/api/v1/customers/me", server.base))
        .header("X-API-Key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{}", server.log());
    let log = server.log();
    assert!(log.contains("m9999_future") && log.contains("does not know"), "{log}");
    server.signal("TERM");
    let exit = server.exit_within(Duration::from_mins(1));
    assert!(exit.success(), "{exit:?}:\n{}", server.log());
    let rows = recorded(url).await;
    assert!(rows.contains(&"m9999_future".to_owned()), "left as it was: {rows:?}");
}

#[tokio::test]
async fn a_server_serves_a_sqlite_database_a_newer_release_migrated_and_logs_the_unknown_migration() {
    let db_dir = tempfile::tempdir().unwrap();
    serves_a_database_a_newer_release_migrated(&sqlite_url(db_dir.path())).await;
}

#[tokio::test]
async fn a_server_serves_a_postgresql_database_a_newer_release_migrated_and_logs_the_unknown_migration() {
    let Some(schema) = crate::concurrency::PgSchema::create() else {
        return;
    };
    serves_a_database_a_newer_release_migrated(&schema.url()).await;
    schema.drop_schema();
}
