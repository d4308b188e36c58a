//! Authentication and limits over HTTP: where a key may be sent, which keys
//! are refused and how (401/403/503), the rate-limit headers, the per-second
//! limit and the monthly quota. Also the seeding helpers the account,
//! dataset and concurrency modules share.

use chrono::{DateTime, Duration, TimeZone, Utc};
use linecast_core::key_material::{display_prefix, generate_key, hash_key};
use linecast_core::{Customer, NewApiKey, NewCustomer, SubscriptionStatus};
use reqwest::Method;
use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::helpers::{TestApp, assert_error_shape, spawn_app};

/// The fixture clock's quota window.
pub const FIXTURE_MONTH: (i32, u32) = (2026, 11);

/// One HTTP exchange: status, headers and the JSON body (`Null` when the
/// body is not JSON).
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Where the key goes on a request.
#[derive(Clone, Copy)]
pub enum Via<'a> {
    Nothing,
    Header(&'a str),
    Bearer(&'a str),
    Query(&'a str),
    /// `X-API-Key` and a Bearer token, both present.
    HeaderAndBearer {
        header: &'a str,
        bearer: &'a str,
    },
}

pub async fn send(app: &TestApp, method: Method, path: &str, via: Via<'_>, body: Option<Value>) -> Reply {
    send_to(&app.client, &app.address, method, path, via, body).await
}

pub async fn send_to(
    client: &reqwest::Client,
    address: &str,
    method: Method,
    path: &str,
    via: Via<'_>,
    body: Option<Value>,
) -> Reply {
    let mut url = format!("{address}{path}");
    if let Via::Query(k) = via {
        url.push(if path.contains('?') { '&' } else { '?' });
        url.push_str("api_key=");
        url.push_str(k);
    }
    let method_name = method.as_str().to_owned();
    let mut req = client.request(method, &url);
    match via {
        Via::Nothing | Via::Query(_) => {}
        Via::Header(k) => req = req.header("X-API-Key", k),
        Via::Bearer(k) => req = req.header("Authorization", format!("Bearer {k}")),
        Via::HeaderAndBearer { header, bearer } => {
            req = req
                .header("X-API-Key", header)
                .header("Authorization", format!("Bearer {bearer}"));
        }
    }
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req.send().await.expect("request failed");
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let bytes = res.bytes().await.unwrap();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let is_json = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        crate::contract::validate(&method_name, path, status, &body);
    }
    Reply { status, headers, body }
}

/// GET with the key in `X-API-Key`.
pub async fn get_with(app: &TestApp, path: &str, key: &str) -> Reply {
    send(app, Method::GET, path, Via::Header(key), None).await
}

/// A customer created straight through the accounts port.
pub async fn seed_customer(app: &TestApp, email: &str, tier: &str, monthly_limit: u64) -> Customer {
    app.ports
        .accounts
        .create_customer(
            NewCustomer {
                email: email.to_owned(),
                name: format!("Customer {email}"),
                tier: tier.to_owned(),
                api_plan: Some(tier.to_owned()),
                subscription_status: SubscriptionStatus::Active,
                monthly_limit,
            },
            app.state.clock.now(),
        )
        .await
        .unwrap()
}

/// Stores `full_key` for the customer and returns it.
pub async fn store_key(
    app: &TestApp,
    customer: &Customer,
    full_key: String,
    expires_at: Option<DateTime<Utc>>,
) -> String {
    crate::helpers::seed_key(
        app.ports.accounts.as_ref(),
        NewApiKey {
            customer_id: customer.customer_id,
            key_hash: hash_key(&full_key),
            display_prefix: display_prefix(&full_key).unwrap().to_owned(),
            name: "seeded".to_owned(),
            tier: customer.tier.clone(),
            expires_at,
        },
        app.state.clock.now(),
    )
    .await;
    full_key
}

/// A fresh key for the customer, issued through the accounts port.
pub async fn issue_key(app: &TestApp, customer: &Customer) -> String {
    store_key(app, customer, generate_key().unwrap(), None).await
}

/// A customer with an active `ai` subscription and one key.
pub async fn seed_ai_customer(app: &TestApp, email: &str) -> (Customer, String) {
    let customer = seed_customer(app, email, "ai", 200_000).await;
    let key = issue_key(app, &customer).await;
    (customer, key)
}

/// The demo customer created on first run.
pub async fn demo_customer(app: &TestApp) -> Customer {
    app.ports
        .accounts
        .find_customer_by_email(linecast_api::demo::DEMO_EMAIL)
        .await
        .unwrap()
        .unwrap()
}

const PROTECTED: &str = "/api/v1/customers/me";

#[tokio::test]
async fn a_request_without_any_key_is_401_api_key_required() {
    let app = spawn_app().await;
    let r = send(&app, Method::GET, PROTECTED, Via::Nothing, None).await;
    assert_eq!(assert_error_shape(r.status, &r.body, 401), "API key required");
    // Empty values in every place count as no key.
    let r = send(
        &app,
        Method::GET,
        "/api/v1/customers/me?api_key=",
        Via::Header(" "),
        None,
    )
    .await;
    assert_eq!(assert_error_shape(r.status, &r.body, 401), "API key required");
}

#[tokio::test]
async fn a_wrong_or_unknown_key_is_401_invalid_or_expired_in_every_place() {
    let app = spawn_app().await;
    let unknown = generate_key().unwrap();
    for via in [
        Via::Header("not-a-key"),
        Via::Header(&unknown),
        Via::Bearer(&unknown),
        Via::Query(&unknown),
    ] {
        let r = send(&app, Method::GET, PROTECTED, via, None).await;
        assert_eq!(assert_error_shape(r.status, &r.body, 401), "Invalid or expired API key");
    }
}

#[tokio::test]
async fn the_key_works_alone_in_the_header_as_a_bearer_token_and_in_the_query() {
    let app = spawn_app().await;
    for via in [
        Via::Header(&app.api_key),
        Via::Bearer(&app.api_key),
        Via::Query(&app.api_key),
    ] {
        let r = send(&app, Method::GET, PROTECTED, via, None).await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.body["email"], linecast_api::demo::DEMO_EMAIL);
    }
}

#[tokio::test]
async fn x_api_key_wins_over_a_valid_bearer_token_of_another_customer() {
    let app = spawn_app().await;
    let (other, other_key) = seed_ai_customer(&app, "other@example.com").await;
    let r = send(
        &app,
        Method::GET,
        PROTECTED,
        Via::HeaderAndBearer {
            header: &other_key,
            bearer: &app.api_key,
        },
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["email"], "other@example.com");
    assert_eq!(r.body["customer_id"], other.customer_id);
    let r = send(
        &app,
        Method::GET,
        PROTECTED,
        Via::HeaderAndBearer {
            header: &app.api_key,
            bearer: &other_key,
        },
        None,
    )
    .await;
    assert_eq!(r.body["email"], linecast_api::demo::DEMO_EMAIL);
    // A bad X-API-Key is not rescued by a good Bearer token.
    let r = send(
        &app,
        Method::GET,
        PROTECTED,
        Via::HeaderAndBearer {
            header: "sk_service_nope",
            bearer: &app.api_key,
        },
        None,
    )
    .await;
    assert_eq!(assert_error_shape(r.status, &r.body, 401), "Invalid or expired API key");
}

#[tokio::test]
async fn an_expired_key_is_401_invalid_or_expired() {
    let app = spawn_app().await;
    let demo = demo_customer(&app).await;
    let past = app.state.clock.now() - Duration::seconds(1);
    let expired = store_key(&app, &demo, generate_key().unwrap(), Some(past)).await;
    let r = get_with(&app, PROTECTED, &expired).await;
    assert_eq!(assert_error_shape(r.status, &r.body, 401), "Invalid or expired API key");
    let future = app.state.clock.now() + Duration::days(1);
    let later = store_key(&app, &demo, generate_key().unwrap(), Some(future)).await;
    assert_eq!(get_with(&app, PROTECTED, &later).await.status, 200);
}

#[tokio::test]
async fn a_key_revoked_in_the_database_is_401_invalid_or_expired() {
    let app = spawn_app().await;
    let (customer, key) = seed_ai_customer(&app, "revoked@example.com").await;
    let id = app.ports.accounts.list_keys(customer.customer_id).await.unwrap()[0].id;
    app.ports.accounts.revoke_key(id, app.state.clock.now()).await.unwrap();
    let r = get_with(&app, PROTECTED, &key).await;
    assert_eq!(assert_error_shape(r.status, &r.body, 401), "Invalid or expired API key");
}

#[tokio::test]
async fn a_customer_without_an_active_subscription_is_403() {
    let app = spawn_app().await;
    for status in [SubscriptionStatus::Canceled, SubscriptionStatus::PastDue] {
        let email = format!("{status}@example.com");
        let (_, key) = seed_ai_customer(&app, &email).await;
        app.ports.accounts.set_subscription(&email, status).await.unwrap();
        let r = get_with(&app, "/api/v1/predictions/nba/won_on_points", &key).await;
        let detail = assert_error_shape(r.status, &r.body, 403);
        assert!(detail.contains(status.code()), "{detail}");
        // Their own account and usage stay readable, showing the status.
        let r = get_with(&app, PROTECTED, &key).await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.body["api_subscription_status"], status.code());
        let r = get_with(&app, "/api/v1/customers/me/usage", &key).await;
        assert_eq!(r.status, 200, "{}", r.body);
        // And so do their keys (list, rename, revoke; see limits.rs).
        let r = get_with(&app, "/api/v1/customers/me/api-keys", &key).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
}

#[tokio::test]
async fn a_key_on_a_plan_without_api_access_is_403_and_legacy_tiers_pass() {
    let app = spawn_app().await;
    let free = seed_customer(&app, "free@example.com", "free", 1000).await;
    let key = issue_key(&app, &free).await;
    let r = get_with(&app, PROTECTED, &key).await;
    let detail = assert_error_shape(r.status, &r.body, 403);
    assert!(detail.contains("free"), "{detail}");
    for tier in ["data", "basic", "premium"] {
        let c = seed_customer(&app, &format!("{tier}@example.com"), tier, 1000).await;
        let key = issue_key(&app, &c).await;
        let r = get_with(&app, "/api/v1/sports", &key).await;
        assert_eq!(r.status, 200, "{tier}: {}", r.body);
        assert_eq!(r.header("x-ratelimit-tier"), Some("ai"), "{tier}");
    }
}

/// Renames a table with the `sqlite3` command-line tool, which stands in for
/// an accounts database that fails every query. (`chmod` does not stop root,
/// and open SQLite handles survive deleting the file.)
pub fn sqlite_rename_table(db: &std::path::Path, from: &str, to: &str) {
    let out = std::process::Command::new("sqlite3")
        .arg("-cmd")
        .arg(".timeout 10000")
        .arg(db)
        .arg(format!("ALTER TABLE {from} RENAME TO {to};"))
        .output()
        .expect("the sqlite3 command-line tool is installed");
    assert!(
        out.status.success(),
        "sqlite3 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn a_valid_key_gets_503_never_401_while_the_accounts_database_fails() {
    let app = spawn_app().await;
    let demo = demo_customer(&app).await;
    // Never used before the outage, so the key cache cannot answer for it.
    let key = issue_key(&app, &demo).await;
    let db = app.var_dir.join("linecast.db");
    sqlite_rename_table(&db, "api_keys", "api_keys_away");
    for via in [Via::Header(&key), Via::Bearer(&key), Via::Query(&key)] {
        let r = send(&app, Method::GET, PROTECTED, via, None).await;
        let detail = assert_error_shape(r.status, &r.body, 503);
        assert!(!detail.contains("api_keys"), "the cause stays in the logs: {detail}");
    }
    // An unknown key cannot be told from a valid one either: 503, not 401.
    let r = get_with(&app, PROTECTED, &generate_key().unwrap()).await;
    assert_error_shape(r.status, &r.body, 503);
    sqlite_rename_table(&db, "api_keys_away", "api_keys");
    // The failure was not cached: the same key works once the database is
    // back, as soon as the key cache's once-a-second check has seen it.
    let mut r = get_with(&app, PROTECTED, &key).await;
    for _ in 0..100 {
        if r.status == 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        r = get_with(&app, PROTECTED, &key).await;
    }
    assert_eq!(r.status, 200, "{}", r.body);
}

#[tokio::test]
async fn a_successful_call_carries_the_rate_limit_headers() {
    let app = spawn_app().await;
    let first = get_with(&app, "/api/v1/sports", &app.api_key).await;
    let second = get_with(&app, "/api/v1/sports", &app.api_key).await;
    assert_eq!(first.status, 200);
    let reset = Utc
        .with_ymd_and_hms(2026, 12, 1, 0, 0, 0)
        .unwrap()
        .timestamp()
        .to_string();
    // The fixture clock is 2026-11-15T17:00Z: the quota resets 15 days and
    // 7 hours later (1,321,200 s).
    for (r, remaining, burst) in [(&first, "199999", 99), (&second, "199998", 98)] {
        assert_eq!(r.header("x-ratelimit-limit"), Some("200000"));
        assert_eq!(r.header("x-ratelimit-remaining"), Some(remaining));
        assert_eq!(r.header("x-ratelimit-reset"), Some(reset.as_str()));
        assert_eq!(r.header("x-ratelimit-tier"), Some("ai"));
        assert_eq!(
            r.header("ratelimit-policy"),
            Some(r#""burst";q=100;w=1, "monthly";q=200000;w=2592000"#)
        );
        assert_eq!(
            r.header("ratelimit"),
            Some(format!(r#""burst";r={burst};t=1, "monthly";r={remaining};t=1321200"#).as_str())
        );
    }
    // Unauthenticated routes carry none.
    let r = send(&app, Method::GET, "/api/v1/health", Via::Nothing, None).await;
    assert_eq!(r.header("x-ratelimit-limit"), None);
    assert_eq!(r.header("ratelimit-policy"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn more_than_the_burst_of_100_at_one_instant_get_429_with_retry_after_and_the_standard_headers_and_are_not_counted()
 {
    let app = spawn_app().await;
    let demo = demo_customer(&app).await;
    let replies = futures::future::join_all((0..140).map(|_| get_with(&app, "/api/v1/sports", &app.api_key))).await;
    let ok = replies.iter().filter(|r| r.status == 200).count();
    assert_eq!(ok, 100, "exactly the burst passes at the frozen instant");
    for r in replies.iter().filter(|r| r.status != 200) {
        let detail = assert_error_shape(r.status, &r.body, 429);
        // Both figures of RateLimit-Policy's bucket: 50 a second, bursts of 100.
        assert_eq!(
            detail,
            r#"Rate limit exceeded. Limit: 50 requests per second sustained, in bursts of up to 100 (RateLimit-Policy "burst")"#
        );
        assert_eq!(r.body["code"], "rate_limited");
        // The next token is 20 ms away: Retry-After rounds up to 1 s.
        assert_eq!(r.header("retry-after"), Some("1"));
        assert_eq!(r.header("ratelimit-policy"), Some(r#""burst";q=100;w=1"#));
        assert_eq!(r.header("ratelimit"), Some(r#""burst";r=0;t=1"#));
        // The legacy headers describe a counted call: a refusal has none.
        assert_eq!(r.header("x-ratelimit-remaining"), None);
    }
    // Another key of the same customer has its own bucket, and the usage
    // shows the 100 served plus this call: the 40 refusals are not counted.
    let other = issue_key(&app, &demo).await;
    let r = get_with(&app, "/api/v1/customers/me/usage", &other).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["monthly_requests"], 101);
}

#[tokio::test]
async fn a_monthly_limit_of_5_serves_exactly_5_requests_then_429_without_counting() {
    let app = spawn_app().await;
    let small = seed_customer(&app, "small@example.com", "ai", 5).await;
    let key = issue_key(&app, &small).await;
    for i in 1..=4 {
        let r = get_with(&app, "/api/v1/sports", &key).await;
        assert_eq!(r.status, 200, "request {i}: {}", r.body);
        assert_eq!(r.header("x-ratelimit-remaining"), Some((5 - i).to_string().as_str()));
    }
    let usage = get_with(&app, "/api/v1/customers/me/usage", &key).await;
    assert_eq!(usage.status, 200);
    assert_eq!(usage.body["monthly_requests"], 5);
    assert_eq!(usage.body["monthly_limit"], 5);
    assert_eq!(usage.body["requests_remaining"], 0);
    for path in ["/api/v1/sports", "/api/v1/customers/me/usage", "/api/v1/customers/me"] {
        let r = get_with(&app, path, &key).await;
        let detail = assert_error_shape(r.status, &r.body, 429);
        assert_eq!(detail, "Rate limit exceeded. Limit: 5 requests per month");
        assert_eq!(r.body["code"], "monthly_quota_exceeded");
        assert_eq!(r.header("retry-after"), Some("1321200"));
        assert_eq!(
            r.header("ratelimit-policy"),
            Some(r#""burst";q=100;w=1, "monthly";q=5;w=2592000"#)
        );
        assert_eq!(r.header("ratelimit"), Some(r#""monthly";r=0;t=1321200"#));
    }
    assert_eq!(
        app.ports
            .limiter
            .month_usage(small.customer_id, FIXTURE_MONTH)
            .await
            .unwrap(),
        5
    );
    app.ports.limiter.flush().await.unwrap();
    assert_eq!(
        app.ports
            .usage
            .get_usage(small.customer_id, FIXTURE_MONTH)
            .await
            .unwrap(),
        5
    );
}

#[tokio::test]
async fn every_counted_request_counts_once_whatever_its_outcome() {
    let app = spawn_app().await;
    let (customer, key) = seed_ai_customer(&app, "outcomes@example.com").await;
    assert_eq!(get_with(&app, "/api/v1/picks/not-a-date", &key).await.status, 400);
    assert_eq!(get_with(&app, "/api/v1/sports", &key).await.status, 200);
    // 401s never reach the meter.
    assert_eq!(get_with(&app, "/api/v1/sports", "sk_service_unknown").await.status, 401);
    let r = get_with(&app, "/api/v1/customers/me", &key).await;
    assert_eq!(r.body["monthly_requests"], 3, "{}", r.body);
    assert_eq!(
        app.ports
            .limiter
            .month_usage(customer.customer_id, FIXTURE_MONTH)
            .await
            .unwrap(),
        3
    );
}

#[tokio::test]
async fn a_query_key_authenticates_beside_a_platform_bearer_token() {
    let app = spawn_app().await;
    let url = format!("{}/api/v1/customers/me?api_key={}", app.address, app.api_key);
    let res = app
        .client
        .get(&url)
        .header("Authorization", "Bearer eyJhbGciOiJSUzI1NiJ9.platform-identity.sig")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    // A linecast key in Authorization is still the one used.
    let res = app
        .client
        .get(&url)
        .header("Authorization", "Bearer sk_service_notarealkey000000000000000000000000")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 401);
}

#[tokio::test]
async fn a_repeated_query_name_is_read_from_its_first_occurrence_everywhere() {
    let app = spawn_app().await;
    let bogus = "sk_service_notarealkey000000000000000000000000";
    let first_valid = send(
        &app,
        Method::GET,
        &format!("/api/v1/customers/me?api_key={}&api_key={bogus}", app.api_key),
        Via::Nothing,
        None,
    )
    .await;
    assert_eq!(first_valid.status, 200, "{}", first_valid.body);
    let first_bogus = send(
        &app,
        Method::GET,
        &format!("/api/v1/customers/me?api_key={bogus}&api_key={}", app.api_key),
        Via::Nothing,
        None,
    )
    .await;
    assert_eq!(first_bogus.status, 401, "{}", first_bogus.body);
    // The same rule for every other parameter: `upcoming_only=false` first serves the whole artifact.
    let path = "/api/v1/predictions/nba/won_on_points";
    let all = get_with(&app, &format!("{path}?upcoming_only=false"), &app.api_key).await;
    let first_false = get_with(
        &app,
        &format!("{path}?upcoming_only=false&upcoming_only=true"),
        &app.api_key,
    )
    .await;
    let first_true = get_with(
        &app,
        &format!("{path}?upcoming_only=true&upcoming_only=false"),
        &app.api_key,
    )
    .await;
    let upcoming = get_with(&app, path, &app.api_key).await;
    assert_eq!(first_false.body["games"], all.body["games"]);
    assert_eq!(first_true.body["games"], upcoming.body["games"]);
    assert_ne!(
        all.body["games"], upcoming.body["games"],
        "the fixture has earlier games"
    );
    // And a bad first value is a 400 naming the parameter, whatever follows.
    let bad = get_with(
        &app,
        &format!("{path}?upcoming_only=maybe&upcoming_only=true"),
        &app.api_key,
    )
    .await;
    assert!(assert_error_shape(bad.status, &bad.body, 400).contains("upcoming_only"));
    let season = get_with(
        &app,
        "/api/v1/results/nba/won_on_points?season=2025-26&season=2024-25&limit=1",
        &app.api_key,
    )
    .await;
    assert_eq!(season.body["season"], "2025-26");
}
