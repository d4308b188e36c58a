//! `migrate` is the one command that changes the schema: it applies what is
//! pending and says what; every other command checks the schema, stops on
//! a pending migration naming `migrate`, and works on a database that a
//! newer release migrated, naming the migration it does not know.

use sea_orm::ConnectionTrait;

use crate::support::Admin;

/// The recorded migration names, read with plain SQL (none before the
/// table exists).
async fn recorded(url: &str) -> Vec<String> {
    let db = sea_orm::Database::connect(url).await.unwrap();
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

async fn execute(url: &str, sql: &str) {
    let db = sea_orm::Database::connect(url).await.unwrap();
    db.execute_unprepared(sql).await.unwrap();
}

#[tokio::test]
async fn migrate_reports_what_it_applied_and_then_that_nothing_is_pending() {
    let admin = Admin::unmigrated();
    let first = admin.json(&["migrate"]);
    let applied: Vec<String> = first["applied"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(applied.first().map(String::as_str), Some("m0001_accounts"), "{first}");
    assert_eq!(first["already_applied"], serde_json::json!([]));
    assert_eq!(first["unknown"], serde_json::json!([]));
    let mut sorted = applied.clone();
    sorted.sort();
    assert_eq!(recorded(admin.database_url()).await, sorted);

    let text = admin.ok(&["migrate"]).stdout;
    assert!(
        text.contains("is up to date") && text.contains(&format!("{} migrations applied, none pending", applied.len())),
        "{text}"
    );
    let again = admin.json(&["migrate"]);
    assert_eq!(again["applied"], serde_json::json!([]));
    assert_eq!(again["already_applied"].as_array().unwrap().len(), applied.len());
}

#[tokio::test]
async fn the_text_of_migrate_names_each_migration_it_applied() {
    let admin = Admin::unmigrated();
    let text = admin.ok(&["migrate"]).stdout;
    assert!(text.starts_with("applied "), "{text}");
    for name in recorded(admin.database_url()).await {
        assert!(text.contains(&format!("  {name}\n")), "{name}: {text}");
    }
}

#[tokio::test]
async fn other_commands_refuse_an_unmigrated_database_naming_migrate_and_change_nothing() {
    let admin = Admin::unmigrated();
    for args in [
        &["customers", "list"][..],
        &["customers", "create", "--email", "a@example.com", "--name", "A"],
        &["billing", "pending"],
    ] {
        let run = admin.fails(args);
        assert!(
            run.stderr.contains("lacks") && run.stderr.contains("m0001_accounts"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("linecast-admin migrate"),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert!(recorded(admin.database_url()).await.is_empty(), "no command migrated");
    admin.ok(&["migrate"]);
    admin.ok(&["customers", "create", "--email", "a@example.com", "--name", "A"]);
}

#[tokio::test]
async fn a_database_a_newer_release_migrated_is_used_and_the_unknown_migration_named() {
    let admin = Admin::new();
    execute(
        admin.database_url(),
        "INSERT INTO seaql_migrations (version, applied_at) VALUES ('m9999_future', 0)",
    )
    .await;
    let created = admin.ok(&["customers", "create", "--email", "r@example.com", "--name", "R"]);
    assert!(
        created.stderr.contains("warning:") && created.stderr.contains("m9999_future"),
        "{}",
        created.stderr
    );
    let issued = admin.json(&["keys", "issue", "--customer-email", "r@example.com"]);
    assert!(issued["api_key"].as_str().unwrap().starts_with("sk_service_"));
    let migrate = admin.run(&["migrate", "--json"]);
    assert!(migrate.ok, "{}", migrate.stderr);
    assert!(migrate.stderr.contains("m9999_future"), "{}", migrate.stderr);
    let report = migrate.json();
    assert_eq!(report["applied"], serde_json::json!([]));
    assert_eq!(report["unknown"], serde_json::json!(["m9999_future"]));
    assert!(
        recorded(admin.database_url())
            .await
            .contains(&"m9999_future".to_owned())
    );
}

#[tokio::test]
async fn a_database_with_another_migration_history_is_refused_by_every_command() {
    let admin = Admin::new();
    let url = admin.database_url().to_owned();
    execute(
        &url,
        "INSERT INTO seaql_migrations (version, applied_at) VALUES ('m9999_future', 0)",
    )
    .await;
    execute(&url, "DELETE FROM seaql_migrations WHERE version = 'm0001_accounts'").await;
    let before = recorded(&url).await;
    for args in [&["migrate"][..], &["customers", "list"]] {
        let run = admin.fails(args);
        assert!(
            run.stderr.contains("another migration history")
                && run.stderr.contains("m9999_future")
                && run.stderr.contains("m0001_accounts"),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert_eq!(recorded(&url).await, before);
}
