//! The portal's Billing page: plan, status and the ledger's billing events;
//! Subscribe (a Stripe Checkout session) and Manage billing (a Stripe
//! Customer Portal session), made against a local stub that speaks Stripe's
//! wire format for those two endpoints. The expectations are Stripe's
//! (form fields in bracket notation, Bearer key, Idempotency-Key) and the
//! webhook's: the reference a checkout carries is delivered back through
//! `POST /billing/stripe/webhook` and must link this customer there.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use linecast_core::SubscriptionStatus;
use reqwest::redirect::Policy;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::billing::{OLD, deliver, signed};
use crate::helpers::{TestApp, fixture_now, spawn_app_configured};

const STRIPE_KEY: &str = "sk_test_51PortalBillingStubKey00";
const CSP: &str = "default-src 'self'; frame-ancestors 'none'";

#[derive(Debug, Clone)]
struct Seen {
    path: String,
    headers: HashMap<String, String>,
    form: Vec<(String, String)>,
}

impl Seen {
    fn field(&self, name: &str) -> Option<&str> {
        self.form.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Stripe for two endpoints: a session for a good request; Stripe's error
/// object for the price `price_gone`; a 500 for the customer `cus_down`; a
/// checkout on another site for `phished@example.com` and a script URL for
/// `scripted@example.com`.
async fn stripe_stub() -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let record = record.clone();
            tokio::spawn(async move {
                let mut data = Vec::new();
                let mut buf = [0u8; 4096];
                let end = loop {
                    if let Some(at) = data.windows(4).position(|w| w == b"\r\n\r\n") {
                        break at + 4;
                    }
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => data.extend_from_slice(&buf[..n]),
                    }
                };
                let head = String::from_utf8_lossy(&data[..end]).into_owned();
                let mut lines = head.split("\r\n");
                let path = lines
                    .next()
                    .unwrap_or_default()
                    .split(' ')
                    .nth(1)
                    .unwrap_or_default()
                    .to_owned();
                let headers: HashMap<String, String> = lines
                    .filter_map(|l| l.split_once(':'))
                    .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                    .collect();
                let length: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
                while data.len() < end + length {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => data.extend_from_slice(&buf[..n]),
                    }
                }
                let form: Vec<(String, String)> = url::form_urlencoded::parse(&data[end..end + length])
                    .into_owned()
                    .collect();
                let seen = Seen {
                    path: path.clone(),
                    headers,
                    form,
                };
                let n = {
                    let mut all = record.lock().unwrap();
                    all.push(seen.clone());
                    all.len()
                };
                let authorized =
                    seen.headers.get("authorization").map(String::as_str) == Some(&*format!("Bearer {STRIPE_KEY}"));
                let (status, body) = if !authorized {
                    (
                        401,
                        json!({"error": {"type": "invalid_request_error", "message": "Invalid API Key provided"}}),
                    )
                } else if seen.field("line_items[0][price]") == Some("price_gone") {
                    (
                        400,
                        json!({"error": {"type": "invalid_request_error", "code": "resource_missing",
                            "param": "line_items[0][price]", "message": "No such price: 'price_gone'"}}),
                    )
                } else if seen.field("customer") == Some("cus_down") {
                    (
                        500,
                        json!({"error": {"type": "api_error", "message": "An unknown error occurred"}}),
                    )
                } else if path == "/v1/checkout/sessions" && seen.field("customer_email") == Some("phished@example.com")
                {
                    (
                        200,
                        json!({"id": format!("cs_test_{n}"), "object": "checkout.session", "url": "https://evil.example/phish"}),
                    )
                } else if path == "/v1/checkout/sessions"
                    && seen.field("customer_email") == Some("scripted@example.com")
                {
                    (
                        200,
                        json!({"id": format!("cs_test_{n}"), "object": "checkout.session", "url": "javascript:alert(1)"}),
                    )
                } else if path == "/v1/checkout/sessions" {
                    (
                        200,
                        json!({"id": format!("cs_test_{n}"), "object": "checkout.session", "mode": "subscription",
                            "url": format!("https://checkout.stripe.com/c/pay/cs_test_{n}")}),
                    )
                } else if path == "/v1/billing_portal/sessions" {
                    (
                        200,
                        json!({"id": format!("bps_{n}"), "object": "billing_portal.session",
                            "url": format!("https://billing.stripe.com/p/session/test_{n}")}),
                    )
                } else {
                    (
                        404,
                        json!({"error": {"type": "invalid_request_error", "message": "Unrecognized request URL"}}),
                    )
                };
                let body = body.to_string();
                let response = format!(
                    "HTTP/1.1 {status} Stub\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    (base, seen)
}

fn browser() -> reqwest::Client {
    crate::helpers::http_client().redirect(Policy::none()).build().unwrap()
}

struct Res {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

impl Res {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

async fn to_res(res: reqwest::Response) -> Res {
    Res {
        status: res.status().as_u16(),
        headers: res.headers().clone(),
        body: res.text().await.unwrap_or_default(),
    }
}

async fn get(app: &TestApp, path: &str, cookie: &str) -> Res {
    to_res(
        browser()
            .get(format!("{}{path}", app.address))
            .header("Cookie", cookie)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn post(app: &TestApp, path: &str, cookie: Option<&str>, form: &[(&str, &str)]) -> Res {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let mut req = browser()
        .post(format!("{}{path}", app.address))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(body);
    if let Some(c) = cookie {
        req = req.header("Cookie", c);
    }
    to_res(req.send().await.unwrap()).await
}

/// A hidden field's value in a page.
fn field(page: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let at = page.find(&marker).unwrap_or_else(|| panic!("no {name} in {page}")) + marker.len();
    page[at..].split('"').next().unwrap().to_owned()
}

/// A customer of tier `ai` in `status`, signed in: its id and cookie.
async fn signed_in(app: &TestApp, email: &str, status: SubscriptionStatus) -> (i64, String) {
    let customer = app
        .ports
        .accounts
        .create_customer(
            linecast_core::NewCustomer {
                email: email.into(),
                name: "Billing Test".into(),
                tier: "ai".into(),
                api_plan: None,
                subscription_status: status,
                monthly_limit: 1000,
            },
            fixture_now(),
        )
        .await
        .unwrap();
    let key = linecast_core::key_material::generate_key().unwrap();
    crate::helpers::seed_key(
        app.ports.accounts.as_ref(),
        linecast_core::NewApiKey {
            customer_id: customer.customer_id,
            key_hash: linecast_core::key_material::hash_key(&key),
            display_prefix: linecast_core::key_material::display_prefix(&key).unwrap().to_owned(),
            name: "billing".into(),
            tier: "ai".into(),
            expires_at: None,
        },
        fixture_now(),
    )
    .await;
    let res = post(app, "/portal/sign-in", None, &[("api_key", &key)]).await;
    assert_eq!(res.status, 303, "{}", res.body);
    let cookie = res.header("set-cookie").unwrap().split(';').next().unwrap().to_owned();
    (customer.customer_id, cookie)
}

async fn app_with(stripe: Option<&str>, plans: &str) -> TestApp {
    app_priced(stripe, plans, None).await
}

/// `app_with`, with `LINECAST_STRIPE_PRICE_TEXT`.
async fn app_priced(stripe: Option<&str>, plans: &str, price_text: Option<&str>) -> TestApp {
    let base = stripe.map(str::to_owned);
    let plans = plans.to_owned();
    let price_text = price_text.map(str::to_owned);
    spawn_app_configured(
        fixture_now(),
        |_| {},
        move |s| {
            s.stripe_webhook_secrets = linecast_stripe::signature::WebhookSecrets::parse(OLD).unwrap();
            s.stripe_plans = linecast_core::services::billing::PlanTable::parse(&plans).unwrap();
            s.public_url = "https://portal.example.com".into();
            s.stripe_price_text = price_text;
            if let Some(base) = base {
                s.stripe_api_key = Some(linecast_stripe::ApiKey::parse(STRIPE_KEY).unwrap());
                s.stripe_api_base = Some(base);
            }
        },
    )
    .await
}

const SUBSCRIBE_FORM: &str = "action=\"/portal/billing/subscribe\"";
const MANAGE_FORM: &str = "action=\"/portal/billing/manage\"";

#[tokio::test]
async fn without_a_stripe_key_the_page_has_no_buttons_and_says_how_to_subscribe() {
    let app = app_with(None, "ai_monthly=ai,price_ai=ai:1000").await;
    let (_, cookie) = signed_in(&app, "nokey@example.com", SubscriptionStatus::Incomplete).await;
    let page = get(&app, "/portal/billing", &cookie).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(page.header("content-security-policy"), Some(CSP));
    assert_eq!(page.header("cache-control"), Some("no-store"));
    assert!(page.body.contains("<h1>Billing</h1>"));
    assert!(page.body.contains("incomplete"), "the status is shown");
    assert!(
        page.body.contains("ask your linecast contact for a subscribe link"),
        "{}",
        page.body
    );
    assert!(!page.body.contains(SUBSCRIBE_FORM) && !page.body.contains(MANAGE_FORM));
    assert!(!page.body.contains("<button type=\"submit\">Subscribe"));
    // The account's own limits are shown, grouped; there is no plan on sale.
    assert!(
        page.body.contains("<dt>Monthly requests</dt><dd>1,000 "),
        "{}",
        page.body
    );
    assert!(page.body.contains(&rate_shown(&app)), "{}", page.body);
    assert!(!page.body.contains("The plan sold online"), "{}", page.body);
    // Every page links it.
    let overview = get(&app, "/portal/overview", &cookie).await;
    assert!(overview.body.contains("href=\"/portal/billing\""));
    // And a hand-made POST opens nothing.
    let csrf = field(&page.body, "csrf");
    let res = post(
        &app,
        "/portal/billing/subscribe",
        Some(&cookie),
        &[("csrf", &csrf), ("attempt", "00112233445566778899aabbccddeeff")],
    )
    .await;
    assert_eq!(res.status, 404, "{}", res.body);
    assert_eq!(res.header("content-type"), Some("text/html; charset=utf-8"));
}

#[tokio::test]
async fn subscribe_opens_a_checkout_whose_reference_the_webhook_links_and_then_manage_opens_stripes_portal() {
    let (base, seen) = stripe_stub().await;
    // The first price id is on sale; a lookup key before it is skipped.
    let app = app_with(Some(&base), "ai_monthly=ai,price_ai=ai:5000,price_old=ai").await;
    let (customer_id, cookie) = signed_in(&app, "Buyer+1@Example.com", SubscriptionStatus::Incomplete).await;
    let page = get(&app, "/portal/billing", &cookie).await;
    assert!(page.body.contains(SUBSCRIBE_FORM), "{}", page.body);
    assert!(
        !page.body.contains(MANAGE_FORM),
        "nothing to manage before a Stripe customer exists"
    );
    assert!(page.body.contains("No billing event"), "{}", page.body);
    let (csrf, attempt) = (field(&page.body, "csrf"), field(&page.body, "attempt"));

    // The portal's POST rules: no CSRF token, no session: nothing reaches Stripe.
    let res = post(
        &app,
        "/portal/billing/subscribe",
        Some(&cookie),
        &[("attempt", &attempt)],
    )
    .await;
    assert_eq!(res.status, 403);
    let res = post(
        &app,
        "/portal/billing/subscribe",
        None,
        &[("csrf", &csrf), ("attempt", &attempt)],
    )
    .await;
    // Without a session the form goes to sign-in; Stripe is not called.
    assert_eq!(res.status, 303);
    assert!(
        res.header("location")
            .is_some_and(|l| l == "/portal" || l.starts_with("/portal?")),
        "{:?}",
        res.header("location")
    );
    assert!(seen.lock().unwrap().is_empty());

    let form = [("csrf", csrf.as_str()), ("attempt", attempt.as_str())];
    let res = post(&app, "/portal/billing/subscribe", Some(&cookie), &form).await;
    assert_eq!(res.status, 303, "{}", res.body);
    assert_eq!(
        res.header("location"),
        Some("https://checkout.stripe.com/c/pay/cs_test_1")
    );
    assert_eq!(res.header("cache-control"), Some("no-store"));
    let checkout = seen.lock().unwrap()[0].clone();
    assert_eq!(checkout.path, "/v1/checkout/sessions");
    assert_eq!(checkout.headers["content-type"], "application/x-www-form-urlencoded");
    assert_eq!(checkout.field("mode"), Some("subscription"));
    assert_eq!(checkout.field("line_items[0][price]"), Some("price_ai"));
    assert_eq!(checkout.field("line_items[0][quantity]"), Some("1"));
    // The account's email, as stored (lower-cased).
    assert_eq!(checkout.field("customer_email"), Some("buyer+1@example.com"));
    assert_eq!(checkout.field("customer"), None);
    assert_eq!(
        checkout.field("success_url"),
        Some("https://portal.example.com/portal/billing?checkout=done")
    );
    assert_eq!(
        checkout.field("cancel_url"),
        Some("https://portal.example.com/portal/billing")
    );
    let key = checkout.headers["idempotency-key"].clone();
    assert!(!key.is_empty());

    // The same form again (a double click): the same idempotency key and
    // the same parameters, so Stripe answers the same session.
    post(&app, "/portal/billing/subscribe", Some(&cookie), &form).await;
    let again = seen.lock().unwrap()[1].clone();
    assert_eq!(again.headers["idempotency-key"], key);
    assert_eq!(again.form, checkout.form);
    // A new view of the page is a new attempt.
    let page = get(&app, "/portal/billing", &cookie).await;
    let fresh = [("csrf", csrf.as_str()), ("attempt", &*field(&page.body, "attempt"))];
    post(&app, "/portal/billing/subscribe", Some(&cookie), &fresh).await;
    assert_ne!(seen.lock().unwrap()[2].headers["idempotency-key"], key);

    // Stripe hands the reference back in the checkout's completion event:
    // the webhook must find this customer by it (the email alone would be
    // held for an operator, since it belongs to an existing customer).
    let reference = checkout.field("client_reference_id").unwrap().to_owned();
    let created = chrono::Utc::now().timestamp();
    let completed = serde_json::to_vec(&json!({
        "id": "evt_portal_checkout", "object": "event", "type": "checkout.session.completed",
        "created": created, "livemode": false,
        "data": {"object": {"id": "cs_test_1", "object": "checkout.session", "mode": "subscription",
            "client_reference_id": reference, "customer": "cus_portal", "subscription": "sub_portal",
            "customer_details": {"email": "Buyer+1@Example.com", "name": "Billing Test"}}}
    }))
    .unwrap();
    let (status, ack) = deliver(&app, Some(&signed(OLD, &completed)), &completed).await;
    assert_eq!((status, ack["outcome"].as_str()), (200, Some("linked")), "{ack}");
    let mut active: serde_json::Value = serde_json::from_slice(&crate::billing::subscription_event(
        "evt_portal_active",
        "customer.subscription.created",
        created + 1,
        "active",
        "price_ai",
    ))
    .unwrap();
    // Where Stripe's current API versions put the period's end: on the item.
    // 1798761600 is 2027-01-01T00:00:00Z.
    active["data"]["object"]["items"]["data"][0]["current_period_end"] = serde_json::json!(1_798_761_600_i64);
    let active = active
        .to_string()
        .replace("\"cus_1\"", "\"cus_portal\"")
        .replace("\"sub_1\"", "\"sub_portal\"");
    let (status, ack) = deliver(&app, Some(&signed(OLD, active.as_bytes())), active.as_bytes()).await;
    assert_eq!((status, ack["outcome"].as_str()), (200, Some("applied")), "{ack}");
    let customer = app.ports.accounts.get_customer(customer_id).await.unwrap();
    assert_eq!(customer.api_subscription_status, SubscriptionStatus::Active);

    // Now: the plan and status, the ledger's events, Manage and no Subscribe.
    let page = get(&app, "/portal/billing", &cookie).await;
    assert!(page.body.contains("active"), "{}", page.body);
    assert!(
        page.body
            .contains("<dt>Current period ends</dt><dd>2027-01-01 00:00 UTC</dd>"),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("evt_portal_active") && page.body.contains("evt_portal_checkout"),
        "{}",
        page.body
    );
    assert!(
        page.body.find("evt_portal_active") < page.body.find("evt_portal_checkout"),
        "newest first"
    );
    assert!(
        page.body.contains(MANAGE_FORM) && !page.body.contains(SUBSCRIBE_FORM),
        "{}",
        page.body
    );
    let form = [("csrf", csrf.as_str()), ("attempt", &*field(&page.body, "attempt"))];
    let before = seen.lock().unwrap().len();
    // A paying customer is not sold a second subscription, even by hand.
    let res = post(&app, "/portal/billing/subscribe", Some(&cookie), &form).await;
    assert_eq!(res.status, 409, "{}", res.body);
    assert_eq!(seen.lock().unwrap().len(), before);

    let res = post(&app, "/portal/billing/manage", Some(&cookie), &form).await;
    assert_eq!(res.status, 303, "{}", res.body);
    assert_eq!(
        res.header("location"),
        Some(&*format!("https://billing.stripe.com/p/session/test_{}", before + 1))
    );
    let manage = seen.lock().unwrap()[before].clone();
    assert_eq!(manage.path, "/v1/billing_portal/sessions");
    assert_eq!(manage.headers["authorization"], format!("Bearer {STRIPE_KEY}"));
    assert!(!manage.headers["idempotency-key"].is_empty());
    assert_ne!(manage.headers["idempotency-key"], key);
    assert_eq!(manage.field("customer"), Some("cus_portal"));
    assert_eq!(
        manage.field("return_url"),
        Some("https://portal.example.com/portal/billing")
    );
}

#[tokio::test]
async fn stripes_refusal_or_outage_is_a_portal_page_never_a_500() {
    let (base, seen) = stripe_stub().await;
    // The price on sale no longer exists at Stripe.
    let app = app_with(Some(&base), "price_gone=ai").await;
    let (_, cookie) = signed_in(&app, "refused@example.com", SubscriptionStatus::Canceled).await;
    let page = get(&app, "/portal/billing", &cookie).await;
    let form = [
        ("csrf", &*field(&page.body, "csrf")),
        ("attempt", &*field(&page.body, "attempt")),
    ];
    let res = post(&app, "/portal/billing/subscribe", Some(&cookie), &form).await;
    assert_eq!(res.status, 502, "{}", res.body);
    assert_eq!(res.header("content-security-policy"), Some(CSP));
    assert!(res.body.contains("Stripe refused"), "{}", res.body);
    assert!(res.body.contains("resource_missing"), "{}", res.body);
    assert!(res.body.contains("Nothing was charged"), "{}", res.body);
    assert_eq!(seen.lock().unwrap().len(), 1);

    // A form without its attempt is refused before Stripe is asked.
    let res = post(&app, "/portal/billing/subscribe", Some(&cookie), &form[..1]).await;
    assert_eq!(res.status, 400, "{}", res.body);
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn stripe_down_is_a_503_page() {
    let (base, _seen) = stripe_stub().await;
    let app = app_with(Some(&base), "price_ai=ai").await;
    let (customer_id, cookie) = signed_in(&app, "down@example.com", SubscriptionStatus::PastDue).await;
    // Linked, by a checkout it signed up with, to a Stripe customer the
    // stub fails for.
    let reference = linecast_stripe::ReferenceKey::new(b"test-signing-key")
        .sign(customer_id, chrono::Utc::now().timestamp() + 3600);
    let completed = serde_json::to_vec(&json!({
        "id": "evt_down_checkout", "object": "event", "type": "checkout.session.completed",
        "created": chrono::Utc::now().timestamp(), "livemode": false,
        "data": {"object": {"id": "cs_down", "object": "checkout.session", "mode": "subscription",
            "client_reference_id": reference, "customer": "cus_down", "subscription": "sub_down",
            "customer_details": {"email": "down@example.com"}}}
    }))
    .unwrap();
    let (status, ack) = deliver(&app, Some(&signed(OLD, &completed)), &completed).await;
    assert_eq!((status, ack["outcome"].as_str()), (200, Some("linked")), "{ack}");
    let page = get(&app, "/portal/billing", &cookie).await;
    assert!(page.body.contains(MANAGE_FORM), "{}", page.body);
    let form = [
        ("csrf", &*field(&page.body, "csrf")),
        ("attempt", &*field(&page.body, "attempt")),
    ];
    let res = post(&app, "/portal/billing/manage", Some(&cookie), &form).await;
    assert_eq!(res.status, 503, "{}", res.body);
    assert!(res.body.contains("Stripe did not answer"), "{}", res.body);
    assert_eq!(res.header("content-security-policy"), Some(CSP));
}

/// The per-key rate as the Billing page should state it: the gate's own
/// configured rate (`LINECAST_RATE_BURST`, 50 a second).
fn rate_shown(app: &TestApp) -> String {
    let rate = app.state.gate.access.as_ref().expect("auth is on").rate();
    format!(
        "<dt>Rate</dt><dd>{} requests a second per key, in bursts of up to {}</dd>",
        rate.per_second, rate.burst
    )
}

/// The `<section>` of a page whose heading has `id`.
fn section<'a>(page: &'a str, id: &str) -> &'a str {
    let heading = page
        .find(&format!("aria-labelledby=\"{id}\""))
        .unwrap_or_else(|| panic!("no section {id}: {page}"));
    let end = page[heading..].find("</section>").unwrap();
    &page[heading..heading + end]
}

#[tokio::test]
async fn the_billing_page_shows_the_limits_and_the_plan_on_sale_with_its_price_and_how_to_get_it() {
    let (base, seen) = stripe_stub().await;
    let app = app_priced(
        Some(&base),
        "ai_monthly=ai,price_ai=ai:250000,price_old=ai",
        Some("USD 49.00 a month"),
    )
    .await;
    let (_, cookie) = signed_in(&app, "prospect@example.com", SubscriptionStatus::Incomplete).await;
    let page = get(&app, "/portal/billing", &cookie).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let mine = section(&page.body, "plan-title");
    assert!(mine.contains("<dt>Monthly requests</dt><dd>1,000 "), "{mine}");
    assert!(mine.contains(&rate_shown(&app)), "{mine}");
    // The plan on sale: the first price id's entry of LINECAST_STRIPE_PLANS
    // (plan ai, 250,000 a month), its configured price, and Subscribe.
    let offer = section(&page.body, "offer-title");
    assert!(offer.contains("<dt>Plan</dt><dd>ai</dd>"), "{offer}");
    assert!(offer.contains("<dt>Monthly requests</dt><dd>250,000</dd>"), "{offer}");
    assert!(offer.contains(&rate_shown(&app)), "{offer}");
    assert!(
        offer.contains("<dt>Price</dt><dd>USD 49.00 a month, billed by Stripe."),
        "{offer}"
    );
    assert!(offer.contains(SUBSCRIBE_FORM), "{offer}");
    assert!(seen.lock().unwrap().is_empty(), "showing the page calls nothing");

    // An account linecast keeps active without Stripe sees the plan and
    // why it is not sold a second subscription, and whom to ask.
    let (_, cookie) = signed_in(&app, "manual@example.com", SubscriptionStatus::Active).await;
    let page = get(&app, "/portal/billing", &cookie).await;
    let offer = section(&page.body, "offer-title");
    assert!(offer.contains("<dd>250,000</dd>"), "{offer}");
    assert!(!page.body.contains(SUBSCRIBE_FORM), "{}", page.body);
    assert!(offer.contains("would bill you twice"), "{offer}");
    assert!(offer.contains("ask your linecast contact"), "{offer}");

    // Without a configured price text no amount is made up: Stripe's
    // checkout shows it. An entry without a limit keeps the account's.
    let app = app_with(Some(&base), "price_ai=ai").await;
    let (_, cookie) = signed_in(&app, "unpriced@example.com", SubscriptionStatus::Canceled).await;
    let page = get(&app, "/portal/billing", &cookie).await;
    let offer = section(&page.body, "offer-title");
    assert!(
        offer.contains("<dt>Price</dt><dd>Stripe's checkout page shows the amount"),
        "{offer}"
    );
    assert!(!offer.contains("billed by Stripe."), "{offer}");
    assert!(offer.contains("<dt>Monthly requests</dt><dd>1,000</dd>"), "{offer}");
    for money in ["$", "USD", "EUR"] {
        assert!(!offer.contains(money), "{money}: {offer}");
    }
}

#[tokio::test]
async fn with_a_stub_api_root_the_browser_follows_its_page_but_never_a_script_url() {
    let (base, _seen) = stripe_stub().await;
    let app = app_with(Some(&base), "price_ai=ai").await;
    // The stub is the operator's own API root (a test's, stripe-mock's), so
    // the page it answers is followed wherever it is; with Stripe's own
    // root only checkout.stripe.com and billing.stripe.com are
    // (linecast-stripe's `page_url_allowed`, unit-tested there).
    assert!(!linecast_stripe::api::is_stripes_api(&base));
    assert!(!linecast_stripe::api::page_url_allowed(
        "https://api.stripe.com",
        "https://evil.example/phish"
    ));
    let (_, cookie) = signed_in(&app, "phished@example.com", SubscriptionStatus::Incomplete).await;
    let page = get(&app, "/portal/billing", &cookie).await;
    let form = [
        ("csrf", &*field(&page.body, "csrf")),
        ("attempt", &*field(&page.body, "attempt")),
    ];
    let res = post(&app, "/portal/billing/subscribe", Some(&cookie), &form).await;
    assert_eq!(res.status, 303, "{}", res.body);
    assert_eq!(res.header("location"), Some("https://evil.example/phish"));

    // A script URL is never followed, whatever the root: a 502 page.
    let (_, cookie) = signed_in(&app, "scripted@example.com", SubscriptionStatus::Incomplete).await;
    let page = get(&app, "/portal/billing", &cookie).await;
    let form = [
        ("csrf", &*field(&page.body, "csrf")),
        ("attempt", &*field(&page.body, "attempt")),
    ];
    let res = post(&app, "/portal/billing/subscribe", Some(&cookie), &form).await;
    assert_eq!(res.status, 502, "{}", res.body);
    assert_eq!(res.header("location"), None);
    assert!(res.body.contains("Stripe answered something unusable"), "{}", res.body);
    assert!(res.body.contains("Nothing was charged"), "{}", res.body);
    assert!(!res.body.contains("javascript:"), "{}", res.body);
}
