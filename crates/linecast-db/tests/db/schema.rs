//! Who changes the schema and what a release tolerates: `schema::migrate`
//! applies what is pending and says so; `schema::check` changes nothing,
//! refuses a pending migration, and lets a database that a newer release
//! migrated (a row this build does not know) be used.

use linecast_core::Accounts;
use linecast_db::schema::{self, SchemaError};
use linecast_db::{SeaAccounts, open_with_timeout};
use sea_orm::{ConnectionTrait, DatabaseConnection};

use crate::accounts::{new_customer, t0};

async fn open(url: &str) -> DatabaseConnection {
    open_with_timeout(url, std::time::Duration::from_secs(30))
        .await
        .unwrap()
}

/// The recorded migration names, sorted, read with plain SQL.
async fn rows(db: &DatabaseConnection) -> Vec<String> {
    let found = db
        .query_all_raw(sea_orm::Statement::from_string(
            db.get_database_backend(),
            "SELECT version FROM seaql_migrations ORDER BY version",
        ))
        .await;
    match found {
        Ok(rows) => rows
            .iter()
            .map(|r| r.try_get::<String>("", "version").unwrap())
            .collect(),
        Err(_) => Vec::new(),
    }
}

async fn record(db: &DatabaseConnection, version: &str) {
    db.execute_unprepared(&format!(
        "INSERT INTO seaql_migrations (version, applied_at) VALUES ('{version}', 0)"
    ))
    .await
    .unwrap();
}

pub async fn a_fresh_database_is_refused_by_check_and_migrated_once_by_migrate(url: String) {
    let db = open(&url).await;
    match schema::check(&db).await {
        Err(SchemaError::Pending { pending, unknown }) => {
            assert_eq!(
                pending.first().map(String::as_str),
                Some("m0001_accounts"),
                "{pending:?}"
            );
            assert!(unknown.is_empty());
        }
        other => panic!("a fresh database is pending: {other:?}"),
    }
    assert!(rows(&db).await.is_empty(), "check created nothing");

    let first = schema::migrate(&db).await.unwrap();
    assert_eq!(first.applied_now.first().map(String::as_str), Some("m0001_accounts"));
    assert!(
        first.already_applied.is_empty() && first.unknown.is_empty(),
        "{first:?}"
    );
    let mut recorded = first.applied_now.clone();
    recorded.sort();
    assert_eq!(rows(&db).await, recorded, "each applied migration is recorded once");
    // The schema is usable.
    let accounts = SeaAccounts::new(db.clone());
    accounts
        .create_customer(new_customer("m@example.com"), t0())
        .await
        .unwrap();

    let again = schema::migrate(&db).await.unwrap();
    assert!(again.applied_now.is_empty(), "{again:?}");
    assert_eq!(again.already_applied, first.applied_now);
    let state = schema::check(&db).await.unwrap();
    assert!(state.pending.is_empty() && state.unknown.is_empty(), "{state:?}");
}

pub async fn a_migration_of_a_newer_release_is_reported_and_tolerated(url: String) {
    let db = open(&url).await;
    schema::migrate(&db).await.unwrap();
    record(&db, "m9999_future").await;

    let state = schema::check(&db).await.unwrap();
    assert!(state.pending.is_empty(), "{state:?}");
    assert_eq!(state.unknown, ["m9999_future"]);
    let migrated = schema::migrate(&db).await.unwrap();
    assert!(migrated.applied_now.is_empty(), "{migrated:?}");
    assert_eq!(migrated.unknown, ["m9999_future"]);
    assert!(
        rows(&db).await.contains(&"m9999_future".to_owned()),
        "the row is left as it is"
    );
    // The convenience connect (tests, embedded use) opens it too, and the
    // accounts are served.
    let accounts = SeaAccounts::connect(&url).await.unwrap();
    accounts
        .create_customer(new_customer("r@example.com"), t0())
        .await
        .unwrap();
    assert_eq!(accounts.list_customers().await.unwrap().len(), 1);
}

pub async fn a_database_with_another_migration_history_is_refused_and_left_alone(url: String) {
    let db = open(&url).await;
    schema::migrate(&db).await.unwrap();
    record(&db, "m9999_future").await;
    db.execute_unprepared("DELETE FROM seaql_migrations WHERE version = 'm0001_accounts'")
        .await
        .unwrap();
    let before = rows(&db).await;

    for refused in [
        schema::check(&db).await.map(|_| ()),
        schema::migrate(&db).await.map(|_| ()),
    ] {
        match refused {
            Err(e @ SchemaError::Diverged { .. }) => {
                let text = e.to_string();
                assert!(
                    text.contains("m9999_future") && text.contains("m0001_accounts"),
                    "{text}"
                );
            }
            other => panic!("another history is refused: {other:?}"),
        }
    }
    assert_eq!(rows(&db).await, before, "nothing applied");
    assert!(SeaAccounts::connect(&url).await.is_err());
}
