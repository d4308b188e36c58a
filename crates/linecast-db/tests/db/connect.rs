//! Backend-specific connection behaviour that the shared suite cannot cover.

use linecast_core::{Accounts, AccountsError, UsageMeter};
use linecast_db::SeaAccounts;

use crate::accounts::{new_customer, t0};

#[tokio::test]
async fn an_in_memory_sqlite_database_keeps_its_rows_across_calls() {
    let db = SeaAccounts::connect("sqlite::memory:").await.unwrap();
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    db.add_usage(ada.customer_id, (2026, 3), 3).await.unwrap();
    assert_eq!(db.get_usage(ada.customer_id, (2026, 3)).await.unwrap(), 3);
    assert_eq!(db.list_customers().await.unwrap(), [ada]);
}

#[tokio::test]
async fn a_sqlite_path_that_cannot_be_created_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, b"x").unwrap();
    let url = format!("sqlite://{}/linecast.db?mode=rwc", file.display());
    let result = SeaAccounts::connect(&url).await;
    assert!(
        matches!(result, Err(AccountsError::Unavailable(_))),
        "{:?}",
        result.err()
    );
}

#[tokio::test]
async fn a_sqlite_url_without_mode_still_creates_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("var").join("linecast.db").display());
    SeaAccounts::connect(&url).await.unwrap().ping().await.unwrap();
    assert!(dir.path().join("var").join("linecast.db").exists());
}
