use linecast_core::key_material::{display_prefix, hash_key};
use linecast_core::{Accounts, KeyIssue, KeyIssued, NewApiKey};

use crate::support::Admin;

fn is_key(s: &str) -> bool {
    s.strip_prefix("sk_service_")
        .is_some_and(|body| body.len() == 40 && body.bytes().all(|b| b.is_ascii_alphanumeric()))
}

#[tokio::test]
async fn an_issued_key_is_printed_once_and_only_its_hash_is_stored() {
    let admin = Admin::new();
    admin.customer("k@example.com");
    let out = admin
        .ok(&["keys", "issue", "--customer-email", "k@example.com", "--name", "ci"])
        .stdout;
    let keys: Vec<&str> = out.split_whitespace().filter(|w| is_key(w)).collect();
    assert_eq!(keys.len(), 1, "{out}");
    let key = keys[0];
    assert!(out.contains("only time the full key is shown"), "{out}");

    let (record, customer) = admin
        .db()
        .await
        .find_key_by_hash(&hash_key(key))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(customer.email, "k@example.com");
    assert_eq!((record.name.as_str(), record.tier.as_str()), ("ci", "ai"));

    let show = admin.ok(&["customers", "show", "--email", "k@example.com"]).stdout;
    assert!(!show.contains(key), "show leaked the full key:\n{show}");
    assert!(show.contains(&format!("sk_service_{}*****", &key[11..15])), "{show}");
}

#[test]
fn json_issue_carries_the_full_key_and_its_mask() {
    let admin = Admin::new();
    admin.customer("j@example.com");
    let issued = admin.json(&[
        "keys",
        "issue",
        "--customer-email",
        "j@example.com",
        "--expires-at",
        "2999-01-01T00:00:00+01:00",
    ]);
    let key = issued["api_key"].as_str().unwrap();
    assert!(is_key(key), "{key}");
    assert_eq!(issued["masked"], format!("sk_service_{}*****", &key[11..15]));
    assert_eq!(issued["name"], "API key", "the same default name as the API gives");
    assert_eq!(issued["expires_at"], "2998-12-31T23:00:00Z");
    let shown = admin.json(&["customers", "show", "--email", "j@example.com"]);
    assert_eq!(shown["keys"][0]["masked"], issued["masked"]);
    assert!(!shown.to_string().contains(key));
}

#[test]
fn revoking_by_the_masked_form_deactivates_the_key_and_both_changes_are_audited() {
    let admin = Admin::new();
    admin.customer("r@example.com");
    let masked = admin.json(&["keys", "issue", "--customer-email", "r@example.com"])["masked"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = admin
        .ok(&["keys", "revoke", "--customer-email", "r@example.com", "--key", &masked])
        .stdout;
    assert!(out.contains(&format!("revoked key 'API key' ({masked})")), "{out}");
    let shown = admin.json(&["customers", "show", "--email", "r@example.com"]);
    assert_eq!(shown["keys"][0]["is_active"], false);
    assert!(shown["keys"][0]["revoked_at"].is_string());
    let actions: Vec<&str> = shown["audit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["issue", "revoke"]);
}

#[test]
fn revoking_an_already_revoked_key_succeeds_without_a_second_audit_line() {
    let admin = Admin::new();
    admin.customer("twice@example.com");
    let key = admin.json(&["keys", "issue", "--customer-email", "twice@example.com"])["api_key"]
        .as_str()
        .unwrap()
        .to_owned();
    let first = admin.json(&["keys", "revoke", "--customer-email", "twice@example.com", "--key", &key]);
    let second = admin.json(&["keys", "revoke", "--customer-email", "twice@example.com", "--key", &key]);
    assert_eq!(
        (first["already_revoked"].as_bool(), second["already_revoked"].as_bool()),
        (Some(false), Some(true))
    );
    assert_eq!(first["revoked_at"], second["revoked_at"]);
    let shown = admin.json(&["customers", "show", "--email", "twice@example.com"]);
    assert_eq!(shown["audit"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_masked_form_shared_by_two_keys_is_refused_asking_for_the_full_key() {
    let admin = Admin::new();
    let id = admin.customer("m@example.com");
    let db = admin.db().await;
    let full = |fill: &str| format!("sk_service_SaMe{}", fill.repeat(36));
    for (i, key) in [full("a"), full("b")].iter().enumerate() {
        let new = NewApiKey {
            customer_id: id,
            key_hash: hash_key(key),
            display_prefix: display_prefix(key).unwrap().to_owned(),
            name: format!("k{i}"),
            tier: "ai".into(),
            expires_at: None,
        };
        let issue = KeyIssue {
            key: new,
            max_active: None,
            audit_action: "issue".into(),
            audit_detail: "seeded by a test".into(),
        };
        assert!(matches!(
            db.issue_key(issue, chrono::Utc::now()).await.unwrap(),
            KeyIssued::Stored(_)
        ));
    }
    let run = admin.fails(&[
        "keys",
        "revoke",
        "--customer-email",
        "m@example.com",
        "--key",
        "sk_service_SaMe*****",
    ]);
    assert!(
        run.stderr
            .contains("matches 2 keys of m@example.com; pass the full key"),
        "{}",
        run.stderr
    );
    let revoked = admin.json(&[
        "keys",
        "revoke",
        "--customer-email",
        "m@example.com",
        "--key",
        &full("b"),
    ]);
    assert_eq!(revoked["name"], "k1");
}

#[test]
fn a_key_of_another_customer_or_a_malformed_key_cannot_be_revoked() {
    let admin = Admin::new();
    admin.customer("a@example.com");
    admin.customer("b@example.com");
    let key = admin.json(&["keys", "issue", "--customer-email", "a@example.com"])["api_key"]
        .as_str()
        .unwrap()
        .to_owned();
    let other = admin.fails(&["keys", "revoke", "--customer-email", "b@example.com", "--key", &key]);
    assert!(
        other.stderr.contains("among the keys of b@example.com"),
        "{}",
        other.stderr
    );
    let bad = admin.fails(&[
        "keys",
        "revoke",
        "--customer-email",
        "a@example.com",
        "--key",
        "sk_live_123",
    ]);
    assert!(
        bad.stderr.contains("full key (sk_service_...) or its masked form"),
        "{}",
        bad.stderr
    );
}

#[test]
fn an_expiry_in_the_past_or_not_in_rfc_3339_is_refused() {
    let admin = Admin::new();
    admin.customer("e@example.com");
    let past = admin.fails(&[
        "keys",
        "issue",
        "--customer-email",
        "e@example.com",
        "--expires-at",
        "2001-01-01T00:00:00Z",
    ]);
    assert!(past.stderr.contains("is not in the future"), "{}", past.stderr);
    let bad = admin.fails(&[
        "keys",
        "issue",
        "--customer-email",
        "e@example.com",
        "--expires-at",
        "tomorrow",
    ]);
    assert!(bad.stderr.contains("not an RFC 3339 instant"), "{}", bad.stderr);
    assert_eq!(
        admin.json(&["customers", "show", "--email", "e@example.com"])["keys"],
        serde_json::json!([])
    );
}

#[test]
fn issuing_for_an_unknown_customer_fails() {
    let admin = Admin::new();
    let run = admin.fails(&["keys", "issue", "--customer-email", "nobody@example.com"]);
    assert!(
        run.stderr.contains("no customer with email 'nobody@example.com'"),
        "{}",
        run.stderr
    );
}

/// A key name stored before names were held to printable characters (the
/// port stores whatever it is given) is printed escaped: it cannot add a
/// line to `customers show` or `keys revoke`, nor reorder what follows it.
#[tokio::test]
async fn a_stored_name_with_a_line_break_or_bidi_override_prints_escaped_on_its_own_line() {
    let admin = Admin::new();
    let id = admin.customer("old@example.com");
    let full = format!("sk_service_OlDn{}", "q".repeat(36));
    let name = "laptop\n[audit] forged\u{202E}txt.exe";
    let issue = KeyIssue {
        key: NewApiKey {
            customer_id: id,
            key_hash: hash_key(&full),
            display_prefix: display_prefix(&full).unwrap().to_owned(),
            name: name.to_owned(),
            tier: "ai".into(),
            expires_at: None,
        },
        max_active: None,
        audit_action: "issue".into(),
        audit_detail: format!("issued key '{name}' (sk_service_OlDn*****) via an old release"),
    };
    let db = admin.db().await;
    assert!(matches!(
        db.issue_key(issue, chrono::Utc::now()).await.unwrap(),
        KeyIssued::Stored(_)
    ));

    let shown = admin.ok(&["customers", "show", "--email", "old@example.com"]).stdout;
    let escaped = r"laptop\u{a}[audit] forged\u{202e}txt.exe";
    assert!(shown.contains(escaped), "{shown}");
    assert!(!shown.lines().any(|l| l.starts_with("[audit]")), "{shown}");
    assert!(!shown.contains('\u{202E}'), "{shown}");

    let json = admin
        .ok(&["customers", "show", "--email", "old@example.com", "--json"])
        .stdout;
    assert!(!json.contains('\u{202E}'), "{json}");
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["keys"][0]["name"], name, "JSON carries the exact name");
    assert!(value["audit"][0]["detail"].as_str().unwrap().contains(name));

    let revoked = admin
        .ok(&["keys", "revoke", "--customer-email", "old@example.com", "--key", &full])
        .stdout;
    assert_eq!(revoked.trim_end().lines().count(), 1, "{revoked}");
    assert!(revoked.contains(escaped), "{revoked}");
}
