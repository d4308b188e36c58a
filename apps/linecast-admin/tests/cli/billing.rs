//! `customers link-stripe`, `customers show`'s Stripe link and `billing replay`.

use crate::support::Admin;

fn subscription_line(id: &str, kind: &str, created: i64, status: &str) -> String {
    serde_json::json!({
        "id": id, "object": "event", "type": kind, "created": created,
        "data": {"object": {"id": "sub_7", "object": "subscription", "customer": "cus_7", "status": status,
            "items": {"data": [{"price": {"id": "price_x", "lookup_key": "ai_monthly"}}]}}}
    })
    .to_string()
}

#[test]
fn a_replayed_export_after_a_hand_link_sets_the_subscription_once() {
    let admin = Admin::new();
    admin.customer("old@example.com");
    let linked = admin.json(&[
        "customers",
        "link-stripe",
        "--email",
        "OLD@example.com",
        "--stripe-customer",
        "cus_7",
    ]);
    assert_eq!(linked["stripe_customer"], "cus_7");

    let file = admin.dir().join("events.jsonl");
    let lines = [
        subscription_line("evt_a", "customer.subscription.created", 100, "active"),
        String::new(),
        subscription_line("evt_b", "customer.subscription.updated", 200, "past_due"),
        r#"{"id": "evt_c", "type": "invoice.paid", "created": 300, "data": {"object": {}}}"#.to_owned(),
    ];
    std::fs::write(&file, lines.join("\n")).unwrap();
    let path = file.to_str().unwrap();
    let replay = |env_plans: &str| {
        let run = admin.run_with(
            &["billing", "replay", "--file", path, "--json"],
            &[
                ("LINECAST_DATABASE_URL", &admin_url(&admin)),
                ("LINECAST_STRIPE_PLANS", env_plans),
            ],
        );
        assert!(run.ok, "{}", run.stderr);
        run.json()
    };
    let first = replay("ai_monthly=ai:777");
    let outcomes: Vec<&str> = first
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["applied", "applied", "ignored"]);
    assert_eq!(first[1]["line"], 3);

    let shown = admin.json(&["customers", "show", "--email", "old@example.com"]);
    assert_eq!(shown["subscription_status"], "past_due");
    assert_eq!(shown["api_plan"], "ai");
    assert_eq!(shown["monthly_limit"], 777);
    assert_eq!(shown["stripe"]["stripe_subscription"], "sub_7");
    assert_eq!(shown["stripe"]["last_event_id"], "evt_b");
    let audit = shown["audit"].as_array().unwrap();
    assert!(
        audit
            .iter()
            .any(|a| a["detail"].as_str().unwrap().starts_with("actor=stripe event=evt_b "))
    );
    assert!(audit.iter().any(|a| {
        a["detail"]
            .as_str()
            .unwrap()
            .starts_with("actor=operator linked customer=cus_7")
    }));

    // Replayed again: every event is a duplicate, nothing changes.
    let again = replay("ai_monthly=ai:777");
    let outcomes: Vec<&str> = again
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["duplicate", "duplicate", "ignored"]);
    assert_eq!(
        admin.json(&["customers", "show", "--email", "old@example.com"])["audit"]
            .as_array()
            .unwrap()
            .len(),
        audit.len()
    );
}

fn admin_url(admin: &Admin) -> String {
    format!("sqlite://{}?mode=rwc", admin.dir().join("accounts.db").display())
}

#[test]
fn a_malformed_line_is_named_and_nothing_is_applied() {
    let admin = Admin::new();
    admin.customer("old@example.com");
    admin.ok(&[
        "customers",
        "link-stripe",
        "--email",
        "old@example.com",
        "--stripe-customer",
        "cus_7",
    ]);
    let file = admin.dir().join("events.jsonl");
    let lines = [
        subscription_line("evt_a", "customer.subscription.updated", 100, "canceled"),
        "{not json".to_owned(),
    ];
    std::fs::write(&file, lines.join("\n")).unwrap();
    let run = admin.fails(&["billing", "replay", "--file", file.to_str().unwrap()]);
    assert!(run.stderr.contains("line 2"), "{}", run.stderr);
    assert_eq!(
        admin.json(&["customers", "show", "--email", "old@example.com"])["subscription_status"],
        "active"
    );
}

#[test]
fn a_link_needs_a_stripe_customer_id_and_a_known_customer_and_is_not_shared() {
    let admin = Admin::new();
    admin.customer("a@example.com");
    admin.customer("b@example.com");
    let run = admin.fails(&[
        "customers",
        "link-stripe",
        "--email",
        "a@example.com",
        "--stripe-customer",
        "sub_1",
    ]);
    assert!(run.stderr.contains("--stripe-customer 'sub_1'"), "{}", run.stderr);
    admin.fails(&[
        "customers",
        "link-stripe",
        "--email",
        "nobody@example.com",
        "--stripe-customer",
        "cus_1",
    ]);
    admin.ok(&[
        "customers",
        "link-stripe",
        "--email",
        "a@example.com",
        "--stripe-customer",
        "cus_1",
    ]);
    let run = admin.fails(&[
        "customers",
        "link-stripe",
        "--email",
        "b@example.com",
        "--stripe-customer",
        "cus_1",
    ]);
    assert!(run.stderr.contains("linked to customer"), "{}", run.stderr);
    let shown = admin.run(&["customers", "show", "--email", "b@example.com"]).stdout;
    assert!(shown.contains("stripe: not linked"), "{shown}");
}

#[test]
fn a_sign_in_link_is_printed_once_and_stored_only_hashed() {
    let admin = Admin::new();
    admin.customer("lost@example.com");
    let out = admin.json(&[
        "customers",
        "sign-in-link",
        "--email",
        "lost@example.com",
        "--base-url",
        "https://api.example.com/",
    ]);
    let url = out["url"].as_str().unwrap();
    let token = url.strip_prefix("https://api.example.com/portal/link/").expect(url);
    assert_eq!(token.len(), 64);
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    let db = std::fs::read(admin.dir().join("accounts.db")).unwrap();
    assert!(
        !db.windows(64).any(|w| w == token.as_bytes()),
        "the token is stored only hashed"
    );
    admin.fails(&["customers", "sign-in-link", "--email", "nobody@example.com"]);
}

fn checkout_line(id: &str, created: i64, email: &str, cus: &str, sub: &str, reference: Option<&str>) -> String {
    serde_json::json!({
        "id": id, "object": "event", "type": "checkout.session.completed", "created": created,
        "data": {"object": {"id": "cs_1", "object": "checkout.session", "mode": "subscription",
            "client_reference_id": reference, "customer": cus, "subscription": sub,
            "customer_details": {"email": email, "name": "Buyer"}}}
    })
    .to_string()
}

fn subscription_of(id: &str, created: i64, status: &str, cus: &str, sub: &str) -> String {
    subscription_line(id, "customer.subscription.updated", created, status)
        .replace("cus_7", cus)
        .replace("sub_7", sub)
}

#[test]
fn a_subscribe_link_is_honoured_and_a_held_checkout_waits_for_a_hand_link() {
    let admin = Admin::new();
    admin.customer("held@example.com");
    admin.customer("sub@example.com");
    let url = admin_url(&admin);
    let key = "the server's signing key";
    let args = [
        "customers",
        "subscribe-link",
        "--email",
        "SUB@example.com",
        "--payment-link",
        "https://buy.stripe.com/test_abc",
        "--json",
    ];
    // Without the server's signing key there is nothing to sign with.
    let run = admin.run_with(&args, &[("LINECAST_DATABASE_URL", &url)]);
    assert!(!run.ok && run.stderr.contains("--signing-key"), "{}", run.stderr);
    let run = admin.run_with(&args, &[("LINECAST_DATABASE_URL", &url), ("LINECAST_SIGNING_KEY", key)]);
    assert!(run.ok, "{}", run.stderr);
    let link = run.json();
    let reference = link["client_reference_id"].as_str().unwrap().to_owned();
    assert!(reference.starts_with("lc1_"), "{reference}");
    let printed = link["url"].as_str().unwrap();
    assert!(
        printed.starts_with("https://buy.stripe.com/test_abc?client_reference_id=lc1_")
            && printed.ends_with("&prefilled_email=sub%40example.com"),
        "{printed}"
    );

    let file = admin.dir().join("events.jsonl");
    let lines = [
        checkout_line("evt_h", 100, "Held@Example.com", "cus_H", "sub_H", None),
        checkout_line(
            "evt_s",
            100,
            "typed@elsewhere.example",
            "cus_S",
            "sub_S",
            Some(&reference),
        ),
        subscription_of("evt_h_s", 101, "active", "cus_H", "sub_H"),
        subscription_of("evt_s_s", 101, "active", "cus_S", "sub_S"),
    ];
    std::fs::write(&file, lines.join("\n")).unwrap();
    let run = admin.run_with(
        &["billing", "replay", "--file", file.to_str().unwrap(), "--json"],
        &[
            ("LINECAST_DATABASE_URL", &url),
            ("LINECAST_STRIPE_PLANS", "ai_monthly=ai:900"),
            ("LINECAST_SIGNING_KEY", key),
        ],
    );
    assert!(run.ok, "{}", run.stderr);
    let outcomes: Vec<String> = run
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(outcomes, ["pending", "linked", "pending", "applied"]);
    assert_eq!(
        admin.json(&["customers", "show", "--email", "sub@example.com"])["monthly_limit"],
        900
    );

    let pending = admin.json(&["billing", "pending"]);
    assert_eq!(pending["held_checkouts"][0]["event_id"], "evt_h");
    assert_eq!(pending["held_checkouts"][0]["customer_email"], "held@example.com");
    assert_eq!(pending["waiting_events"][0]["stripe_customer"], "cus_H");
    let text = admin.ok(&["billing", "pending"]).stdout;
    assert!(
        text.contains("evt_h") && text.contains("customers link-stripe"),
        "{text}"
    );
    assert_eq!(
        admin.json(&["customers", "show", "--email", "held@example.com"])["subscription_status"],
        "active",
        "the operator's own status, untouched"
    );
    let linked = admin.json(&[
        "customers",
        "link-stripe",
        "--email",
        "held@example.com",
        "--stripe-customer",
        "cus_H",
    ]);
    assert_eq!(linked["stripe_subscription"], "sub_H");
    assert_eq!(linked["last_event_id"], "evt_h_s");
    let pending = admin.json(&["billing", "pending"]);
    assert_eq!(pending["held_checkouts"], serde_json::json!([]));
    assert_eq!(pending["waiting_events"], serde_json::json!([]));
}

/// The options the CLI shares with the server (`stripe_plans`,
/// `stripe_livemode`, `signing_key`, `public_url`) are read from the
/// server's config file when neither the flag nor the environment gives
/// them, so a replay acts as the server would on the same file.
#[test]
fn shared_options_come_from_the_servers_config_file_when_not_given() {
    let admin = Admin::new();
    admin.customer("file@example.com");
    admin.ok(&[
        "customers",
        "link-stripe",
        "--email",
        "file@example.com",
        "--stripe-customer",
        "cus_7",
    ]);
    std::fs::write(
        admin.dir().join("linecast.toml"),
        "stripe_plans = \"ai_monthly=ai:321\"\nstripe_livemode = false\n\
         signing_key = \"a-key-from-the-file\"\npublic_url = \"https://file.example.com\"\n",
    )
    .unwrap();
    let events = admin.dir().join("events.jsonl");
    std::fs::write(
        &events,
        subscription_line("evt_f", "customer.subscription.created", 100, "active"),
    )
    .unwrap();
    let replay = admin.json(&["billing", "replay", "--file", events.to_str().unwrap()]);
    assert_eq!(replay[0]["outcome"], "applied", "{replay}");
    let shown = admin.json(&["customers", "show", "--email", "file@example.com"]);
    assert_eq!(shown["monthly_limit"], 321, "the file's plan table was applied");

    let link = admin.json(&[
        "customers",
        "subscribe-link",
        "--email",
        "file@example.com",
        "--payment-link",
        "https://buy.stripe.com/test_abc",
    ]);
    assert!(
        link["client_reference_id"].as_str().unwrap().starts_with("lc1_"),
        "{link}"
    );
    let sign_in = admin.json(&["customers", "sign-in-link", "--email", "file@example.com"]);
    assert!(
        sign_in["url"]
            .as_str()
            .unwrap()
            .starts_with("https://file.example.com/portal/link/"),
        "{sign_in}"
    );
    // The environment still wins over the file.
    let other = admin.run_with(
        &["customers", "sign-in-link", "--email", "file@example.com", "--json"],
        &[
            ("LINECAST_DATABASE_URL", admin.database_url()),
            ("LINECAST_PUBLIC_URL", "https://env.example.com"),
        ],
    );
    assert!(other.ok, "{}", other.stderr);
    assert!(
        other.json()["url"]
            .as_str()
            .unwrap()
            .starts_with("https://env.example.com/")
    );
}
