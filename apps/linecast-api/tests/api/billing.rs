//! `POST /billing/stripe/webhook`: deliveries signed here with Stripe's
//! scheme (HMAC-SHA256 of `"<t>." + body`, written out in this file and
//! checked once against openssl), refused when the signature is missing,
//! malformed, wrong, stale or the body changed, accepted under either of
//! two secrets, and applied once, in any order, to the customer they name.
//! Runs on SQLite, and on PostgreSQL when `LINECAST_TEST_DATABASE_URL` is set.

use hmac::{Hmac, Mac};
use linecast_api::settings::Settings;
use linecast_core::SubscriptionStatus;
use serde_json::{Value, json};
use sha2::Sha256;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::helpers::{TestApp, assert_error_shape, fixture_now, spawn_app_configured};

pub(crate) const OLD: &str = "whsec_old_endpoint_secret_0001";
pub(crate) const NEW: &str = "whsec_new_endpoint_secret_0002";
const DEMO_EMAIL: &str = linecast_core::services::customers::DEMO_EMAIL;

/// Stripe's `v1`: lower-case hex HMAC-SHA256 of `"<t>." + body`.
fn stripe_v1(secret: &str, t: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

#[test]
fn the_tests_signature_is_stripes_scheme() {
    // printf '1700000000.{"id":"evt_1"}' | openssl dgst -sha256 -hmac whsec_test
    assert_eq!(
        stripe_v1("whsec_test", 1_700_000_000, br#"{"id":"evt_1"}"#),
        "c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925"
    );
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

pub(crate) fn signed(secret: &str, body: &[u8]) -> String {
    let t = now();
    format!("t={t},v1={}", stripe_v1(secret, t, body))
}

pub(crate) fn subscription_event(id: &str, kind: &str, created: i64, status: &str, price: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "id": id, "object": "event", "type": kind, "created": created, "livemode": false,
        "data": {"object": {
            "id": "sub_1", "object": "subscription", "customer": "cus_1", "status": status,
            "items": {"object": "list", "data": [{"id": "si_1", "price": {"id": price, "lookup_key": null}}]}
        }}
    }))
    .unwrap()
}

fn checkout_event(id: &str, created: i64, email: &str, customer: &str, subscription: &str) -> Vec<u8> {
    referenced_checkout(id, created, email, customer, subscription, None)
}

fn referenced_checkout(
    id: &str,
    created: i64,
    email: &str,
    customer: &str,
    subscription: &str,
    reference: Option<&str>,
) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "id": id, "object": "event", "type": "checkout.session.completed", "created": created,
        "livemode": false,
        "data": {"object": {
            "id": "cs_1", "object": "checkout.session", "mode": "subscription",
            "client_reference_id": reference, "customer": customer, "subscription": subscription,
            "customer_details": {"email": email, "name": "Grace H"}
        }}
    }))
    .unwrap()
}

/// A subscribe reference as `linecast-admin customers subscribe-link`
/// makes it, under the test settings' signing key.
fn reference_for(customer_id: i64, key: &str) -> String {
    linecast_stripe::ReferenceKey::new(key.as_bytes()).sign(customer_id, now() + 3600)
}

fn subscription_of(id: &str, kind: &str, created: i64, status: &str, price: &str, cus: &str, sub: &str) -> Vec<u8> {
    let body = String::from_utf8(subscription_event(id, kind, created, status, price)).unwrap();
    body.replace("\"cus_1\"", &format!("\"{cus}\""))
        .replace("\"sub_1\"", &format!("\"{sub}\""))
        .into_bytes()
}

pub(crate) async fn deliver(app: &TestApp, signature: Option<&str>, body: &[u8]) -> (u16, Value) {
    let mut req = app
        .client
        .post(format!("{}/billing/stripe/webhook", app.address))
        .header("Content-Type", "application/json")
        .body(body.to_vec());
    if let Some(sig) = signature {
        req = req.header("Stripe-Signature", sig);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn outcome(app: &TestApp, secret: &str, body: &[u8]) -> String {
    let (status, ack) = deliver(app, Some(&signed(secret, body)), body).await;
    assert_eq!(status, 200, "{ack}");
    ack["outcome"].as_str().unwrap().to_owned()
}

pub(crate) async fn billing_app(configure: impl FnOnce(&mut Settings)) -> TestApp {
    spawn_app_configured(
        fixture_now(),
        |_| {},
        |s| {
            s.stripe_webhook_secrets =
                linecast_stripe::signature::WebhookSecrets::parse(&format!("{OLD},{NEW}")).unwrap();
            s.stripe_plans = linecast_core::services::billing::PlanTable::parse("price_ai=ai:1000").unwrap();
            configure(s);
        },
    )
    .await
}

async fn demo_status(app: &TestApp) -> (SubscriptionStatus, Option<String>, u64) {
    let c = crate::helpers::demo_customer(app).await;
    (c.api_subscription_status, c.api_plan, c.monthly_limit)
}

/// The whole story on one backend.
async fn webhook_story(app: &TestApp) {
    let before = demo_status(app).await;
    let t = now();
    let cancel = subscription_event("evt_cancel", "customer.subscription.deleted", t, "canceled", "price_ai");

    // Refused deliveries change nothing.
    let (status, body) = deliver(app, None, &cancel).await;
    assert!(assert_error_shape(status, &body, 400).contains("Missing Stripe-Signature"));
    for bad in ["t=abc,v1=00", "v1=00", "garbage"] {
        let (status, body) = deliver(app, Some(bad), &cancel).await;
        assert!(assert_error_shape(status, &body, 400).contains("Malformed"), "{bad}");
    }
    let (status, body) = deliver(
        app,
        Some(&signed("whsec_someone_elses_endpoint_secret", &cancel)),
        &cancel,
    )
    .await;
    assert!(assert_error_shape(status, &body, 400).contains("matches"));
    let stale_t = t - 301;
    let stale = format!("t={stale_t},v1={}", stripe_v1(NEW, stale_t, &cancel));
    let (status, body) = deliver(app, Some(&stale), &cancel).await;
    assert!(assert_error_shape(status, &body, 400).contains("tolerance"));
    let mut tampered = cancel.clone();
    let at = tampered.len() - 3;
    tampered[at] = b' ';
    let (status, _) = deliver(app, Some(&signed(NEW, &cancel)), &tampered).await;
    assert_eq!(status, 400);
    // An API key is never a substitute for the signature.
    let res = app
        .client
        .post(format!("{}/billing/stripe/webhook", app.address))
        .header("X-API-Key", &app.api_key)
        .header("Authorization", format!("Bearer {}", app.api_key))
        .body(cancel.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 400);
    assert_eq!(demo_status(app).await, before);
    assert_eq!(app.get_authed("/api/v1/sports").await.status().as_u16(), 200);

    // A subscription event before its checkout waits for it.
    let active = subscription_event(
        "evt_active",
        "customer.subscription.updated",
        t - 10,
        "active",
        "price_ai",
    );
    assert_eq!(outcome(app, OLD, &active).await, "pending");
    assert_eq!(demo_status(app).await, before);
    // The customer's email, typed at checkout, links nothing: held for an operator.
    let by_email = checkout_event("evt_by_email", t - 25, &DEMO_EMAIL.to_uppercase(), "cus_1", "sub_1");
    assert_eq!(outcome(app, NEW, &by_email).await, "pending");
    assert_eq!(demo_status(app).await, before);
    // The checkout of a subscribe link (a reference linecast signed) links it.
    let demo_id = crate::helpers::demo_customer(app).await.customer_id;
    let reference = reference_for(demo_id, "test-signing-key");
    let checkout = referenced_checkout(
        "evt_checkout",
        t - 20,
        "anything@example.com",
        "cus_1",
        "sub_1",
        Some(&reference),
    );
    assert_eq!(outcome(app, NEW, &checkout).await, "linked");
    assert_eq!(
        demo_status(app).await,
        (SubscriptionStatus::Active, Some("ai".to_owned()), 1000)
    );

    // The cancel, signed with the new secret only: the API turns to 403 at
    // once on this instance; the account stays readable.
    assert_eq!(outcome(app, NEW, &cancel).await, "applied");
    let (status, body) = app.get_authed_json("/api/v1/sports").await;
    assert_error_shape(status, &body, 403);
    let (status, me) = app.get_authed_json("/api/v1/customers/me").await;
    assert_eq!(status, 200);
    assert_eq!(me["api_subscription_status"], "canceled");
    assert_eq!(me["subscription_status"], "canceled");

    // Redelivered: nothing changes. An older update after the cancel: stale.
    assert_eq!(outcome(app, OLD, &cancel).await, "duplicate");
    let late = subscription_event("evt_late", "customer.subscription.updated", t - 5, "active", "price_ai");
    assert_eq!(outcome(app, NEW, &late).await, "stale");
    assert_eq!(demo_status(app).await.0, SubscriptionStatus::Canceled);

    // A newer one at a price nobody mapped changes nothing.
    let unmapped = subscription_event(
        "evt_unmapped",
        "customer.subscription.updated",
        t + 1,
        "active",
        "price_unknown",
    );
    assert_eq!(outcome(app, NEW, &unmapped).await, "ignored");
    assert_eq!(demo_status(app).await.0, SubscriptionStatus::Canceled);
    // A newer mapped one reactivates.
    let back = subscription_event(
        "evt_back",
        "customer.subscription.updated",
        t + 2,
        "trialing",
        "price_ai",
    );
    assert_eq!(outcome(app, NEW, &back).await, "applied");
    assert_eq!(
        demo_status(app).await,
        (SubscriptionStatus::Trialing, Some("ai".to_owned()), 1000)
    );
    assert_eq!(app.get_authed("/api/v1/sports").await.status().as_u16(), 200);

    // Every change has its audit line by actor stripe with the event id.
    let demo = crate::helpers::demo_customer(app).await;
    let audit = app.ports.accounts.audit_log(demo.customer_id).await.unwrap();
    for id in ["evt_by_email", "evt_checkout", "evt_active", "evt_cancel", "evt_back"] {
        assert!(
            audit
                .iter()
                .any(|l| l.detail.starts_with(&format!("actor=stripe event={id}"))),
            "{id}: {audit:?}"
        );
    }
    assert!(
        !audit
            .iter()
            .any(|l| l.detail.contains("evt_late") || l.detail.contains("evt_unmapped"))
    );

    // A plan switch (Stripe's Customer Portal) to a price nobody mapped
    // grants nothing new, but the linked subscription's suspension and end
    // still apply, keeping the plan and quota (2026-11-28 finding 5).
    let unmapped = |id: &str, kind: &str, created: i64, status: &str| {
        subscription_event(
            id,
            &format!("customer.subscription.{kind}"),
            created,
            status,
            "price_unknown",
        )
    };
    assert_eq!(
        outcome(app, NEW, &unmapped("evt_switch", "updated", t + 3, "active")).await,
        "ignored"
    );
    assert_eq!(
        outcome(app, NEW, &unmapped("evt_due", "updated", t + 4, "past_due")).await,
        "applied"
    );
    assert_eq!(
        demo_status(app).await,
        (SubscriptionStatus::PastDue, Some("ai".to_owned()), 1000)
    );
    let (status, body) = app.get_authed_json("/api/v1/sports").await;
    assert_error_shape(status, &body, 403);
    // Paid again at the unmapped price: it does not restore access.
    assert_eq!(
        outcome(app, NEW, &unmapped("evt_paid", "updated", t + 5, "active")).await,
        "ignored"
    );
    assert_eq!(demo_status(app).await.0, SubscriptionStatus::PastDue);
    assert_eq!(
        outcome(app, NEW, &unmapped("evt_gone", "deleted", t + 6, "canceled")).await,
        "applied"
    );
    assert_eq!(
        demo_status(app).await,
        (SubscriptionStatus::Canceled, Some("ai".to_owned()), 1000)
    );
    let (status, body) = app.get_authed_json("/api/v1/sports").await;
    assert_error_shape(status, &body, 403);

    // A buyer nobody knows is created by its checkout, without access yet.
    let buyer = checkout_event("evt_new_buyer", t, "New.Buyer@Example.com", "cus_2", "sub_2");
    assert_eq!(outcome(app, OLD, &buyer).await, "linked");
    let created = app
        .ports
        .accounts
        .find_customer_by_email("new.buyer@example.com")
        .await
        .unwrap()
        .expect("the buyer was created");
    assert_eq!(created.name, "Grace H");
    assert_eq!(created.api_subscription_status, SubscriptionStatus::Incomplete);

    // Any other type is acknowledged and ignored.
    let invoice = serde_json::to_vec(&json!({"id": "evt_inv", "type": "invoice.paid", "created": t,
        "data": {"object": {"id": "in_1"}}}))
    .unwrap();
    assert_eq!(outcome(app, NEW, &invoice).await, "ignored");
    // A signed body that is not an event is a 400, not a 500.
    let (status, body) = deliver(app, Some(&signed(NEW, b"[1,2]")), b"[1,2]").await;
    assert_error_shape(status, &body, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signed_stripe_events_drive_subscriptions_on_sqlite() {
    let app = billing_app(|_| {}).await;
    webhook_story(&app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signed_stripe_events_drive_subscriptions_on_postgres() {
    let Some(schema) = crate::concurrency::PgSchema::create() else {
        return;
    };
    let url = schema.url();
    let app = billing_app(|s| s.database_url = url).await;
    webhook_story(&app).await;
    app.handle.stop(true).await;
    schema.drop_schema();
}

/// The review's reproduction (2026-11-25, finding 1), through the webhook:
/// the victim's email in another case, a sequential customer id and a
/// forged reference each try to take over a paying customer's billing,
/// each followed by a trial and a cancel; the victim is unchanged and their
/// own renewal still applies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkout_cannot_take_over_a_paying_customers_billing() {
    crate::helpers::capture_logs();
    let conflicts = || {
        let text = linecast_api::metrics::handle().expect("a recorder").render();
        text.lines()
            .find_map(|l| l.strip_prefix("linecast_billing_conflicts_total "))
            .map_or(0.0, |v| v.trim().parse::<f64>().unwrap())
    };
    let conflicts_before = conflicts();
    let app = billing_app(|s| {
        s.stripe_plans =
            linecast_core::services::billing::PlanTable::parse("price_pro=ai:500000,price_small=ai:1000").unwrap();
    })
    .await;
    let victim = crate::helpers::demo_customer(&app).await;
    let t = now() - 1000;
    let reference = reference_for(victim.customer_id, "test-signing-key");
    let own = referenced_checkout("evt_v_co", t, DEMO_EMAIL, "cus_VICTIM", "sub_VICTIM", Some(&reference));
    assert_eq!(outcome(&app, NEW, &own).await, "linked");
    let renew = subscription_of(
        "evt_v_s1",
        "customer.subscription.created",
        t + 1,
        "active",
        "price_pro",
        "cus_VICTIM",
        "sub_VICTIM",
    );
    assert_eq!(outcome(&app, NEW, &renew).await, "applied");
    let paying = demo_status(&app).await;
    assert_eq!(paying, (SubscriptionStatus::Active, Some("ai".to_owned()), 500_000));

    let forged = linecast_stripe::ReferenceKey::new(b"not the server's key").sign(victim.customer_id, now() + 3600);
    let id = victim.customer_id.to_string();
    let attacks = [
        ("a", "  DEMO@LINECAST.LOCAL ", None, "pending"),
        ("b", "attacker@evil.example", Some(id.as_str()), "linked"),
        ("c", DEMO_EMAIL, Some(forged.as_str()), "pending"),
    ];
    for (n, (tag, email, reference, expected)) in attacks.into_iter().enumerate() {
        let at = t + 10 * (n as i64 + 1);
        let (cus, sub) = (format!("cus_ATTACKER_{tag}"), format!("sub_ATTACKER_{tag}"));
        let co = referenced_checkout(&format!("evt_{tag}_co"), at, email, &cus, &sub, reference);
        assert_eq!(outcome(&app, NEW, &co).await, expected, "{tag}");
        let trial = subscription_of(
            &format!("evt_{tag}_s1"),
            "customer.subscription.created",
            at + 1,
            "trialing",
            "price_small",
            &cus,
            &sub,
        );
        let cancel = subscription_of(
            &format!("evt_{tag}_s2"),
            "customer.subscription.deleted",
            at + 2,
            "canceled",
            "price_small",
            &cus,
            &sub,
        );
        outcome(&app, NEW, &trial).await;
        outcome(&app, NEW, &cancel).await;
        assert_eq!(demo_status(&app).await, paying, "after attack {tag}");
        assert_eq!(app.get_authed("/api/v1/sports").await.status().as_u16(), 200, "{tag}");
    }
    // The sequential id created the attacker's own account, nothing more.
    let attacker = app
        .ports
        .accounts
        .find_customer_by_email("attacker@evil.example")
        .await
        .unwrap()
        .expect("a new buyer");
    assert_ne!(attacker.customer_id, victim.customer_id);
    // A reference linecast signed for the victim cannot move a link that serves.
    let leaked = referenced_checkout("evt_d_co", t + 50, "x@evil.example", "cus_D", "sub_D", Some(&reference));
    assert_eq!(outcome(&app, NEW, &leaked).await, "conflict");
    assert_eq!(demo_status(&app).await, paying);
    assert!(conflicts() >= conflicts_before + 1.0, "the conflict is counted");
    let logs = crate::helpers::captured_logs();
    assert!(
        logs.lines()
            .any(|l| l.contains("WARN") && l.contains("evt_d_co") && l.contains("would move")),
        "the conflict is a warning"
    );
    assert!(
        logs.lines()
            .any(|l| l.contains("WARN") && l.contains("evt_a_co") && l.contains("held for an operator")),
        "a held checkout is a warning"
    );
    // The victim's own renewal still applies.
    let next = subscription_of(
        "evt_v_s2",
        "customer.subscription.updated",
        t + 60,
        "past_due",
        "price_pro",
        "cus_VICTIM",
        "sub_VICTIM",
    );
    assert_eq!(outcome(&app, NEW, &next).await, "applied");
    assert_eq!(demo_status(&app).await.0, SubscriptionStatus::PastDue);
    // An event of the other mode is acknowledged and ignored.
    let live = String::from_utf8(subscription_of(
        "evt_live",
        "customer.subscription.updated",
        t + 70,
        "active",
        "price_pro",
        "cus_VICTIM",
        "sub_VICTIM",
    ))
    .unwrap()
    .replace("\"livemode\":false", "\"livemode\":true");
    assert_eq!(outcome(&app, NEW, live.as_bytes()).await, "ignored");
    assert_eq!(demo_status(&app).await.0, SubscriptionStatus::PastDue);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_webhook_is_off_without_secrets() {
    let app = spawn_app_configured(fixture_now(), |_| {}, |_| {}).await;
    let body = subscription_event("evt_1", "customer.subscription.deleted", now(), "canceled", "p");
    let (status, err) = deliver(&app, Some(&signed(NEW, &body)), &body).await;
    assert_error_shape(status, &err, 404);
    assert_eq!(app.get("/billing/stripe/webhook").await.status().as_u16(), 404);
    // With secrets, another method is a 405 naming POST.
    let on = billing_app(|_| {}).await;
    let res = on.get("/billing/stripe/webhook").await;
    assert_eq!(res.status().as_u16(), 405);
    assert_eq!(res.headers()["allow"], "POST");
}

/// Sends a POST by hand: `declared` as its Content-Length, or chunked.
async fn raw_post(app: &TestApp, declared: Option<usize>, chunks: usize, chunk: usize) -> u16 {
    let addr = app.address.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let sig = signed(NEW, b"{}");
    let head = match declared {
        Some(len) => format!(
            "POST /billing/stripe/webhook HTTP/1.1\r\nHost: x\r\nStripe-Signature: {sig}\r\nContent-Length: {len}\r\n\r\n"
        ),
        None => format!(
            "POST /billing/stripe/webhook HTTP/1.1\r\nHost: x\r\nStripe-Signature: {sig}\r\nTransfer-Encoding: chunked\r\n\r\n"
        ),
    };
    stream.write_all(head.as_bytes()).await.unwrap();
    let piece = vec![b' '; chunk];
    for _ in 0..chunks {
        let sent = if declared.is_some() {
            stream.write_all(&piece).await
        } else {
            let mut framed = format!("{chunk:x}\r\n").into_bytes();
            framed.extend_from_slice(&piece);
            framed.extend_from_slice(b"\r\n");
            stream.write_all(&framed).await
        };
        // The server may answer and close before the rest is sent.
        if sent.is_err() {
            break;
        }
    }
    if declared.is_none() {
        let _ = stream.write_all(b"0\r\n\r\n").await;
    }
    let mut answer = Vec::new();
    let mut buf = [0_u8; 4096];
    while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&answer);
    text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_256_kib_is_refused_before_it_is_read_whole() {
    let app = billing_app(|_| {}).await;
    // Declared too large: refused on the header, before any body byte.
    assert_eq!(raw_post(&app, Some(256 * 1024 + 1), 0, 0).await, 413);
    // Chunked, no length: refused once the bytes read pass the cap.
    assert_eq!(raw_post(&app, None, 5, 64 * 1024).await, 413);
    // Exactly at the cap is read (and then refused for its signature).
    assert_eq!(raw_post(&app, Some(256 * 1024), 4, 64 * 1024).await, 400);
}

/// Sends a webhook head with `signature` and a declared 200,000-byte body,
/// and no body byte at all; returns the answer's status line, read within
/// 30 s (the app's body timeout is far longer).
async fn head_only_delivery(app: &TestApp, signature: Option<&str>) -> String {
    let addr = app.address.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let header = signature
        .map(|s| format!("Stripe-Signature: {s}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "POST /billing/stripe/webhook HTTP/1.1\r\nHost: x\r\n{header}Content-Type: application/json\r\n\
         Content-Length: 200000\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buf = [0_u8; 4096];
    let read = async {
        while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(30), read)
        .await
        .expect("the header was refused without waiting for the body");
    String::from_utf8_lossy(&answer)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_malformed_or_stale_signature_is_refused_before_any_body_byte_is_read() {
    let app = billing_app(|s| s.heavy.body_timeout = std::time::Duration::from_mins(5)).await;
    let stale = format!("t={},v1={}", now() - 301, "00".repeat(32));
    for signature in [None, Some("garbage"), Some("t=1,v1=00"), Some(stale.as_str())] {
        let status = head_only_delivery(&app, signature).await;
        assert!(status.starts_with("HTTP/1.1 400"), "{signature:?}: {status}");
    }
    // A fresh, well-formed header is read on: its body is waited for (the
    // answer does not come within a second of the head).
    let fresh = format!("t={},v1={}", now(), "00".repeat(32));
    let addr = app.address.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /billing/stripe/webhook HTTP/1.1\r\nHost: x\r\nStripe-Signature: {fresh}\r\n\
         Content-Length: 10\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut buf = [0_u8; 64];
    let early = tokio::time::timeout(std::time::Duration::from_secs(1), stream.read(&mut buf)).await;
    assert!(early.is_err(), "answered before the body came");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_bad_signatures_pays_the_per_address_failed_check_limit_and_signed_deliveries_do_not() {
    let app = billing_app(|s| {
        s.auth_failure_rate = 1;
        s.auth_failure_burst = 5;
    })
    .await;
    // Signed deliveries pay and get the token back: any number pass.
    for i in 0..12 {
        let body = subscription_event(
            &format!("evt_ok_{i}"),
            "customer.subscription.updated",
            now(),
            "active",
            "p",
        );
        let (status, ack) = deliver(&app, Some(&signed(NEW, &body)), &body).await;
        assert_eq!(status, 200, "{i}: {ack}");
    }
    let body = subscription_event("evt_bad", "customer.subscription.deleted", now(), "canceled", "p");
    let (mut refused, mut limited) = (0, 0);
    let started = std::time::Instant::now();
    for _ in 0..30 {
        let (status, err) = deliver(&app, Some(&signed("whsec_not_this_endpoints_secret", &body)), &body).await;
        match status {
            400 => refused += 1,
            429 => {
                limited += 1;
                let detail = assert_error_shape(status, &err, 429);
                assert!(detail.contains("refused webhook deliveries"), "{detail}");
            }
            other => panic!("{other}: {err}"),
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    // A burst of 5, then 1 a second.
    assert!(
        f64::from(refused) <= 5.0 + elapsed + 1.0,
        "{refused} checked in {elapsed:.1} s"
    );
    assert!(limited > 0, "no 429 in 30 bad deliveries");
    // Missing headers pay too.
    let (status, _) = deliver(&app, None, &body).await;
    assert_eq!(status, 429);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_deliveries_are_logged_at_most_once_a_second_per_address_with_the_count_left_unlogged() {
    crate::helpers::capture_logs();
    // This test's deliveries come from their own address (a trusted proxy
    // names it), so its lines are told apart from other tests'.
    let app = billing_app(|s| {
        s.client_ip_header = Some("X-Forwarded-For".into());
        s.trusted_proxy_cidrs = linecast_api::auth::client_address::parse_ranges("127.0.0.1/32").unwrap();
        s.auth_failure_rate = 0;
    })
    .await;
    let send = |n: usize| {
        let app = &app;
        async move {
            for _ in 0..n {
                let res = app
                    .client
                    .post(format!("{}/billing/stripe/webhook", app.address))
                    .header("X-Forwarded-For", "10.45.6.7")
                    .header("Stripe-Signature", "garbage")
                    .body("{}")
                    .send()
                    .await
                    .unwrap();
                assert_eq!(res.status().as_u16(), 400);
            }
        }
    };
    send(50).await;
    // Past the second, the next refusal is logged with the count.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    send(1).await;
    let logs = crate::helpers::captured_logs();
    let lines: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("refused a billing webhook delivery") && l.contains("client=10.45.6.7"))
        .collect();
    let unlogged: u64 = lines
        .iter()
        .map(|l| {
            let at = l.find("unlogged_since_last=").unwrap() + "unlogged_since_last=".len();
            l[at..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    // Every refusal is either a line or counted in the next one.
    assert_eq!(lines.len() as u64 + unlogged, 51, "{lines:#?}");
    assert!(lines.len() < 51, "one line per refusal: {}", lines.len());
}
