use crate::support::Admin;

#[test]
fn setting_the_subscription_changes_both_statuses() {
    let admin = Admin::new();
    admin.customer("s@example.com");
    let out = admin
        .ok(&[
            "subscription",
            "set",
            "--customer-email",
            "s@example.com",
            "--status",
            "canceled",
        ])
        .stdout;
    assert!(out.contains("subscription of s@example.com is now canceled"), "{out}");
    let set = admin.json(&[
        "subscription",
        "set",
        "--customer-email",
        "s@example.com",
        "--status",
        "past_due",
    ]);
    assert_eq!(
        (
            set["subscription_status"].as_str(),
            set["api_subscription_status"].as_str()
        ),
        (Some("past_due"), Some("past_due"))
    );
    assert_eq!(
        admin.json(&["customers", "show", "--email", "s@example.com"])["subscription_status"],
        "past_due"
    );
}

#[test]
fn an_unknown_status_is_refused_naming_the_allowed_ones() {
    let admin = Admin::new();
    admin.customer("s@example.com");
    let run = admin.fails(&[
        "subscription",
        "set",
        "--customer-email",
        "s@example.com",
        "--status",
        "suspended",
    ]);
    assert!(
        run.stderr.contains("allowed: active, trialing, past_due"),
        "{}",
        run.stderr
    );
    assert_eq!(
        admin.json(&["customers", "show", "--email", "s@example.com"])["subscription_status"],
        "active"
    );
}

#[test]
fn setting_the_subscription_of_an_unknown_customer_fails() {
    let admin = Admin::new();
    let run = admin.fails(&[
        "subscription",
        "set",
        "--customer-email",
        "x@example.com",
        "--status",
        "active",
    ]);
    assert!(
        run.stderr.contains("no customer with email 'x@example.com'"),
        "{}",
        run.stderr
    );
}
