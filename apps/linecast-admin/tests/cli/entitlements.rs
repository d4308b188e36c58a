use serde_json::json;

use crate::support::Admin;

#[test]
fn granting_sports_without_products_grants_each_sports_history_dataset() {
    let admin = Admin::new();
    admin.customer("g@example.com");
    let granted = admin.json(&[
        "entitlements",
        "grant",
        "--customer-email",
        "g@example.com",
        "--sports",
        "mlb,nba",
    ]);
    assert_eq!(granted["owned_sports"], json!(["mlb", "nba"]));
    assert_eq!(granted["owned_products"], json!(["mlb_history", "nba_history"]));
    assert_eq!(granted["expires_at"], json!(null));
}

#[test]
fn a_second_grant_adds_to_the_first_and_sets_the_expiry() {
    let admin = Admin::new();
    admin.customer("g@example.com");
    admin.ok(&[
        "entitlements",
        "grant",
        "--customer-email",
        "g@example.com",
        "--sports",
        "mlb",
    ]);
    let out = admin
        .ok(&[
            "entitlements",
            "grant",
            "--customer-email",
            "g@example.com",
            "--sports",
            "nba",
            "--products",
            "nba_closing_lines",
            "--expires-at",
            "2027-12-31T00:00:00Z",
        ])
        .stdout;
    assert!(out.contains("granted nba_closing_lines to g@example.com"), "{out}");
    let shown = admin.json(&["customers", "show", "--email", "g@example.com"]);
    assert_eq!(shown["entitlement"]["owned_sports"], json!(["mlb", "nba"]));
    assert_eq!(
        shown["entitlement"]["owned_products"],
        json!(["mlb_history", "nba_closing_lines"])
    );
    assert_eq!(shown["entitlement"]["expires_at"], "2027-12-31T00:00:00Z");
}

#[test]
fn an_unknown_sport_is_refused_and_nothing_is_granted() {
    let admin = Admin::new();
    admin.customer("g@example.com");
    let run = admin.fails(&[
        "entitlements",
        "grant",
        "--customer-email",
        "g@example.com",
        "--sports",
        "mlb,mls",
    ]);
    assert!(run.stderr.contains("unknown sport 'mls'"), "{}", run.stderr);
    assert_eq!(
        admin.json(&["customers", "show", "--email", "g@example.com"])["entitlement"],
        json!(null)
    );
}
