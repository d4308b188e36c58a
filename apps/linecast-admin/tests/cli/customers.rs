use linecast_core::UsageMeter;

use crate::support::Admin;

#[test]
fn a_created_customer_is_printed_and_then_listed() {
    let admin = Admin::new();
    let out = admin.ok(&["customers", "create", "--email", "ops@example.com", "--name", "Ops"]);
    assert!(
        out.stdout.contains("created customer Ops <ops@example.com>"),
        "{}",
        out.stdout
    );
    let list = admin.ok(&["customers", "list"]).stdout;
    assert!(list.lines().next().unwrap().starts_with("id  email"), "{list}");
    assert!(list.contains("ops@example.com"), "{list}");
}

#[test]
fn json_create_and_list_carry_every_customer_field() {
    let admin = Admin::new();
    let created = admin.json(&[
        "customers",
        "create",
        "--email",
        "Big@Example.com",
        "--name",
        "Big",
        "--tier",
        "premium",
        "--plan",
        "enterprise",
        "--monthly-limit",
        "5000000",
        "--status",
        "past_due",
    ]);
    assert_eq!(created["email"], "big@example.com");
    assert_eq!(created["tier"], "premium");
    assert_eq!(created["api_plan"], "enterprise");
    assert_eq!(created["monthly_limit"], 5_000_000);
    assert_eq!(created["subscription_status"], "past_due");
    let list = admin.json(&["customers", "list"]);
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0], created);
}

#[test]
fn a_second_customer_with_the_same_email_in_any_case_is_refused() {
    let admin = Admin::new();
    admin.customer("dup@example.com");
    let run = admin.fails(&["customers", "create", "--email", "DUP@example.com", "--name", "Again"]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr
            .contains("a customer with email 'DUP@example.com' already exists"),
        "{}",
        run.stderr
    );
    assert_eq!(admin.json(&["customers", "list"]).as_array().unwrap().len(), 1);
}

#[test]
fn an_invalid_email_or_tier_is_refused_before_anything_is_written() {
    let admin = Admin::new();
    assert!(
        admin
            .fails(&["customers", "create", "--email", "nobody", "--name", "X"])
            .stderr
            .contains("not an email")
    );
    let tier = admin.fails(&[
        "customers",
        "create",
        "--email",
        "a@b.io",
        "--name",
        "X",
        "--tier",
        "gold",
    ]);
    assert!(
        tier.stderr.contains("allowed: ai, data, basic, premium"),
        "{}",
        tier.stderr
    );
    assert_eq!(admin.json(&["customers", "list"]), serde_json::json!([]));
}

#[test]
fn showing_an_unknown_customer_fails_naming_the_email() {
    let admin = Admin::new();
    let run = admin.fails(&["customers", "show", "--email", "ghost@example.com"]);
    assert!(
        run.stderr.contains("no customer with email 'ghost@example.com'"),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn show_reports_the_current_months_usage_from_the_usage_meter() {
    let admin = Admin::new();
    let id = admin.customer("meter@example.com");
    let db = admin.db().await;
    db.add_usage(id, (2026, 11), 42).await.unwrap();
    db.add_usage(id, (2026, 10), 999).await.unwrap();
    let url = format!("sqlite://{}?mode=rwc", admin.dir().join("accounts.db").display());
    let env = [
        ("LINECAST_DATABASE_URL", url.as_str()),
        ("LINECAST_NOW", "2026-11-15T12:00:00Z"),
    ];
    let run = admin.run_with(&["customers", "show", "--email", "meter@example.com", "--json"], &env);
    assert!(run.ok, "{}", run.stderr);
    let usage = &run.json()["usage"];
    assert_eq!(usage["month"], "2026-11");
    assert_eq!(usage["monthly_requests"], 42);
    assert_eq!(usage["monthly_limit"], 200_000);
    let text = admin
        .run_with(&["customers", "show", "--email", "meter@example.com"], &env)
        .stdout;
    assert!(text.contains("usage 2026-11: 42 of 200000 requests"), "{text}");
}

#[test]
fn with_no_database_configured_the_servers_default_file_under_var_is_used() {
    let admin = Admin::new();
    let migrate = admin.run_with(&["migrate"], &[]);
    assert!(migrate.ok, "{}", migrate.stderr);
    let run = admin.run_with(&["customers", "create", "--email", "d@example.com", "--name", "D"], &[]);
    assert!(run.ok, "{}", run.stderr);
    assert!(admin.dir().join("var/linecast.db").exists());
}

#[test]
fn the_database_url_flag_beats_the_environment() {
    let admin = Admin::new();
    let other = format!("sqlite://{}?mode=rwc", admin.dir().join("other.db").display());
    admin.ok(&["migrate", "--database-url", &other]);
    admin.ok(&[
        "customers",
        "create",
        "--email",
        "f@example.com",
        "--name",
        "F",
        "--database-url",
        &other,
    ]);
    assert!(admin.dir().join("other.db").exists());
    assert_eq!(admin.json(&["customers", "list"]), serde_json::json!([]));
}

#[test]
fn a_database_url_in_linecast_toml_is_used_like_the_server_uses_it() {
    let admin = Admin::new();
    let path = admin.dir().join("from-toml.db");
    std::fs::write(
        admin.dir().join("linecast.toml"),
        format!(
            "database_url = \"sqlite://{}?mode=rwc\"\nbind = \"0.0.0.0:1\"\n",
            path.display()
        ),
    )
    .unwrap();
    let migrate = admin.run_with(&["migrate"], &[]);
    assert!(migrate.ok, "{}", migrate.stderr);
    let run = admin.run_with(&["customers", "create", "--email", "t@example.com", "--name", "T"], &[]);
    assert!(run.ok, "{}", run.stderr);
    assert!(path.exists());
    assert!(!admin.dir().join("var/linecast.db").exists());
}
