//! The customer portal: sign-in, sessions and their security rules, the
//! overview and the public status page. Each security rule has a test that
//! fails without it.

use std::sync::Arc;

use chrono::Duration;
use linecast_core::ManualClock;
use linecast_core::SubscriptionStatus;
use reqwest::redirect::Policy;
use sha2::{Digest, Sha256};

use crate::helpers::{TestApp, fixture_now, spawn_app_configured};

const CSP: &str = "default-src 'self'; frame-ancestors 'none'";

/// A client that shows redirects instead of following them, and keeps no
/// cookies of its own (each test passes the cookie it means to).
fn browser() -> reqwest::Client {
    crate::helpers::http_client()
        .redirect(Policy::none())
        .no_gzip()
        .no_brotli()
        .pool_idle_timeout(std::time::Duration::from_secs(1))
        .build()
        .unwrap()
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

async fn get(app: &TestApp, path: &str, cookie: Option<&str>) -> Res {
    let mut req = browser().get(format!("{}{path}", app.address));
    if let Some(c) = cookie {
        req = req.header("Cookie", c);
    }
    to_res(req.send().await.unwrap()).await
}

async fn post(app: &TestApp, path: &str, cookie: Option<&str>, form: &[(&str, &str)]) -> Res {
    post_with(app, path, cookie, form, &[]).await
}

/// `post` with more request headers (`Origin`, `Sec-Fetch-Site`).
async fn post_with(
    app: &TestApp,
    path: &str,
    cookie: Option<&str>,
    form: &[(&str, &str)],
    headers: &[(&str, &str)],
) -> Res {
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
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    to_res(req.send().await.unwrap()).await
}

async fn to_res(res: reqwest::Response) -> Res {
    Res {
        status: res.status().as_u16(),
        headers: res.headers().clone(),
        body: res.text().await.unwrap_or_default(),
    }
}

/// Posts a portal form, which must answer `303 See Other` to a portal
/// page, and follows it with `cookie` (the GET that takes the flash).
async fn post_follow(app: &TestApp, path: &str, cookie: &str, form: &[(&str, &str)]) -> Res {
    let res = post(app, path, Some(cookie), form).await;
    assert_eq!(res.status, 303, "{path}: {}", res.body);
    assert_eq!(
        res.header("cache-control"),
        Some("no-store"),
        "{path}: a redirect is never kept"
    );
    let to = res.header("location").expect("a location").to_owned();
    assert!(to.starts_with("/portal"), "{to}");
    assert_eq!(full_key_in(&to), None, "never a key in a URL");
    get(app, &to, Some(cookie)).await
}

/// Signs in with `key`; returns the `Set-Cookie` value and the `name=value` pair.
async fn sign_in(app: &TestApp, key: &str) -> (String, String) {
    let res = post(app, "/portal/sign-in", None, &[("api_key", key)]).await;
    assert_eq!(res.status, 303, "{}", res.body);
    assert_eq!(res.header("location"), Some("/portal/overview"));
    let set = res.header("set-cookie").expect("a session cookie").to_owned();
    let pair = set.split(';').next().unwrap().to_owned();
    (set, pair)
}

/// The CSRF token in a page's forms.
fn csrf_of(page: &str) -> String {
    let at = page.find("name=\"csrf\" value=\"").expect("a CSRF field") + "name=\"csrf\" value=\"".len();
    page[at..].split('"').next().unwrap().to_owned()
}

async fn app_with_clock() -> (TestApp, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(fixture_now()));
    let for_app = clock.clone();
    let app = spawn_app_configured(fixture_now(), |_| {}, move |s| s.manual_clock = Some(for_app)).await;
    (app, clock)
}

#[tokio::test]
async fn the_sign_in_page_has_its_labelled_field_and_button_and_the_portals_headers() {
    let (app, _) = app_with_clock().await;
    let res = get(&app, "/portal", None).await;
    assert_eq!(res.status, 200);
    assert_eq!(res.header("content-security-policy"), Some(CSP));
    assert_eq!(res.header("cache-control"), Some("no-store"));
    assert!(res.header("content-type").unwrap().starts_with("text/html"));
    assert!(
        res.body.contains("<label for=\"api_key\">API key</label>"),
        "{}",
        res.body
    );
    assert!(res.body.contains(">Sign in</button>"));
    assert!(
        res.body.contains("method=\"post\""),
        "the key travels in a POST body, never a URL"
    );
    for page in ["/portal", "/status"] {
        let body = get(&app, page, None).await.body;
        for inline in ["<script", "<style", " style=", "onclick", "javascript:"] {
            assert!(!body.contains(inline), "{page} has inline {inline}");
        }
    }
    let css = get(&app, "/portal/static/portal.css", None).await;
    assert_eq!(css.status, 200);
    assert!(css.header("content-type").unwrap().starts_with("text/css"));
    // The stylesheet's row keeps it publicly for 30 s; the pages are never kept.
    assert_eq!(css.header("cache-control"), Some("public, max-age=30"));
}

#[tokio::test]
async fn signing_in_starts_a_hashed_session_in_a_strict_http_only_cookie_and_shows_the_quota() {
    let (app, _) = app_with_clock().await;
    let (set, pair) = sign_in(&app, &app.api_key).await;
    // Demo mode on loopback: no Secure, no __Host- prefix, scoped to /portal.
    assert!(set.starts_with("linecast_portal="), "{set}");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/portal"] {
        assert!(set.split("; ").any(|a| a == attribute), "{set} lacks {attribute}");
    }
    let id = pair.split_once('=').unwrap().1.to_owned();
    assert_eq!(id.len(), 64, "256 bits in hex");

    // Stored only as its SHA-256: found by the hash, not by the id, and the
    // id is nowhere in the database files.
    let hash = hex::encode(Sha256::digest(id.as_bytes()));
    assert!(app.ports.sessions.find_session(&hash).await.unwrap().is_some());
    assert!(app.ports.sessions.find_session(&id).await.unwrap().is_none());
    for file in ["linecast.db", "linecast.db-wal"] {
        if let Ok(bytes) = std::fs::read(app.var_dir.join(file)) {
            assert!(
                !bytes.windows(id.len()).any(|w| w == id.as_bytes()),
                "{file} holds the session id"
            );
        }
    }

    let overview = get(&app, "/portal/overview", Some(&pair)).await;
    assert_eq!(overview.status, 200, "{}", overview.body);
    assert_eq!(overview.header("content-security-policy"), Some(CSP));
    assert_eq!(overview.header("cache-control"), Some("no-store"));
    assert!(overview.body.contains("Requests used"));
    assert!(overview.body.contains(">Sign out</button>"));
    // The key is never on a page.
    assert!(!overview.body.contains(&app.api_key));
    // Signed in, the sign-in page sends to the overview.
    assert_eq!(
        get(&app, "/portal", Some(&pair)).await.header("location"),
        Some("/portal/overview")
    );

    // Every sign-in gets a new id.
    let (_, again) = sign_in(&app, &app.api_key).await;
    assert_ne!(again, pair);
}

#[tokio::test]
async fn a_wrong_key_is_refused_and_the_pages_are_closed_without_a_session() {
    let (app, _) = app_with_clock().await;
    let res = post(
        &app,
        "/portal/sign-in",
        None,
        &[("api_key", &format!("sk_service_{}", "x".repeat(40)))],
    )
    .await;
    assert_eq!(res.status, 401);
    assert!(res.header("set-cookie").is_none());
    assert!(res.body.contains("not valid"));
    let res = post(&app, "/portal/sign-in", None, &[("api_key", "")]).await;
    assert_eq!(res.status, 401);
    // No session: a page goes to the sign-in page, a form is refused.
    let res = get(&app, "/portal/overview", None).await;
    assert_eq!(
        (res.status, res.header("location")),
        (303, Some("/portal?next=%2Fportal%2Foverview"))
    );
    let forged = format!("linecast_portal={}", "a".repeat(64));
    let res = get(&app, "/portal/overview", Some(&forged)).await;
    assert_eq!(
        (res.status, res.header("location")),
        (303, Some("/portal?ended=1&next=%2Fportal%2Foverview"))
    );
    let res = post(&app, "/portal/sign-out", None, &[("csrf", "x")]).await;
    assert_eq!((res.status, res.header("location")), (303, Some("/portal")));
    assert_eq!(res.header("content-security-policy"), Some(CSP));
}

#[tokio::test]
async fn the_session_cookie_never_authenticates_the_api() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    for path in [
        "/api/v1/customers/me",
        "/api/v1/sports",
        "/api/v1/predictions/nba/won_on_points",
    ] {
        let res = get(&app, path, Some(&pair)).await;
        assert_eq!(res.status, 401, "{path}: {}", res.body);
    }
}

#[tokio::test]
async fn every_post_needs_the_sessions_csrf_token() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (_, other) = sign_in(&app, &app.api_key).await;
    let page = get(&app, "/portal/overview", Some(&pair)).await.body;
    let token = csrf_of(&page);
    let others_token = csrf_of(&get(&app, "/portal/overview", Some(&other)).await.body);
    assert_ne!(token, others_token, "each session has its own token");
    for form in [vec![], vec![("csrf", "")], vec![("csrf", others_token.as_str())]] {
        let res = post(&app, "/portal/sign-out", Some(&pair), &form).await;
        assert_eq!(res.status, 403, "{form:?}");
        assert_eq!(
            get(&app, "/portal/overview", Some(&pair)).await.status,
            200,
            "still signed in"
        );
    }
    let res = post(&app, "/portal/sign-out", Some(&pair), &[("csrf", &token)]).await;
    assert_eq!((res.status, res.header("location")), (303, Some("/portal")));
    assert!(res.header("set-cookie").unwrap().contains("Max-Age=0"));
    // Signed out on the server: the old cookie opens nothing.
    let res = get(&app, "/portal/overview", Some(&pair)).await;
    assert_eq!(
        (res.status, res.header("location")),
        (303, Some("/portal?ended=1&next=%2Fportal%2Foverview"))
    );
    assert_eq!(get(&app, "/portal/overview", Some(&other)).await.status, 200);
}

#[tokio::test]
async fn a_session_ends_after_thirty_idle_minutes_or_twelve_hours() {
    let (app, clock) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    clock.set(fixture_now() + Duration::minutes(29));
    assert_eq!(get(&app, "/portal/overview", Some(&pair)).await.status, 200);
    clock.set(fixture_now() + Duration::minutes(29 + 31));
    assert_eq!(
        get(&app, "/portal/overview", Some(&pair)).await.status,
        303,
        "idle for 31 minutes"
    );

    let start = fixture_now() + Duration::hours(1);
    clock.set(start);
    let (_, busy) = sign_in(&app, &app.api_key).await;
    let mut at = start;
    while at < start + Duration::hours(12) - Duration::minutes(20) {
        at += Duration::minutes(20);
        clock.set(at);
        assert_eq!(
            get(&app, "/portal/overview", Some(&busy)).await.status,
            200,
            "busy at {at}"
        );
    }
    clock.set(start + Duration::hours(12));
    assert_eq!(
        get(&app, "/portal/overview", Some(&busy)).await.status,
        303,
        "twelve hours in all"
    );
}

#[tokio::test]
async fn revoking_the_key_ends_its_sessions_and_a_lapsed_customer_still_sees_the_account() {
    let (app, _) = app_with_clock().await;
    // A second key to sign in with, made through the API.
    let created: serde_json::Value = app
        .client
        .post(format!("{}/api/v1/customers/me/api-keys", app.address))
        .header("X-API-Key", &app.api_key)
        .json(&serde_json::json!({"name": "portal"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let second = created["api_key"].as_str().unwrap().to_owned();
    let (_, by_second) = sign_in(&app, &second).await;
    let (_, by_demo) = sign_in(&app, &app.api_key).await;

    let demo = crate::helpers::demo_customer(&app).await;
    app.ports
        .accounts
        .set_subscription(&demo.email, SubscriptionStatus::Canceled)
        .await
        .unwrap();
    app.state.gate.keys.invalidate_all();
    let page = get(&app, "/portal/overview", Some(&by_demo)).await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("Your subscription is canceled"), "{}", page.body);

    let res = app
        .client
        .delete(format!("{}/api/v1/customers/me/api-keys/{second}", app.address))
        .header("X-API-Key", &app.api_key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(get(&app, "/portal/overview", Some(&by_second)).await.status, 303);
    assert_eq!(get(&app, "/portal/overview", Some(&by_demo)).await.status, 200);
}

#[tokio::test]
async fn failed_sign_ins_are_throttled_per_address() {
    let clock = Arc::new(ManualClock::new(fixture_now()));
    let for_app = clock.clone();
    let app = spawn_app_configured(
        fixture_now(),
        |_| {},
        move |s| {
            s.manual_clock = Some(for_app);
            s.auth_failure_rate = 1;
            s.auth_failure_burst = 3;
        },
    )
    .await;
    let wrong = format!("sk_service_{}", "w".repeat(40));
    let mut statuses = Vec::new();
    for _ in 0..6 {
        statuses.push(post(&app, "/portal/sign-in", None, &[("api_key", &wrong)]).await.status);
    }
    // The burst of 3 failures is paid, then the address waits (the limiter
    // runs on the real clock, so a refill within the loop is possible).
    assert_eq!(&statuses[..3], [401, 401, 401]);
    assert!(statuses[3..].contains(&429), "{statuses:?}");
}

#[tokio::test]
async fn portal_pages_are_not_counted_against_the_api_quota() {
    let (app, _) = app_with_clock().await;
    let used = |v: serde_json::Value| v["monthly_requests"].as_u64().unwrap();
    let before = used(app.get_authed_json("/api/v1/customers/me/usage").await.1);
    let (_, pair) = sign_in(&app, &app.api_key).await;
    for _ in 0..5 {
        assert_eq!(get(&app, "/portal/overview", Some(&pair)).await.status, 200);
    }
    let after = used(app.get_authed_json("/api/v1/customers/me/usage").await.1);
    assert_eq!(after, before + 1, "only the second usage call counted");
}

#[tokio::test]
async fn the_status_page_is_public_and_lists_every_sport() {
    let (app, _) = app_with_clock().await;
    let before = chrono::Utc::now();
    let res = get(&app, "/status", None).await;
    assert_eq!(res.status, 200, "{}", res.body);
    assert_eq!(res.header("content-security-policy"), Some(CSP));
    for sport in ["nba", "nhl", "mlb", "nfl", "ncaab", "ncaaf"] {
        assert!(res.body.contains(&format!("<td>{sport}</td>")), "{sport}");
    }
    assert!(res.body.contains("Service status"));
    // The test's data clock is 2026-11-15 17:00 UTC, days before the wall
    // clock that times the health check: the page says which instant the
    // data is judged at, and that the clock is set there.
    assert!(
        res.body
            .contains("Judged at 2026-11-15 17:00:00 UTC: this server's clock is set to that instant"),
        "{}",
        res.body
    );
    let checked = |at: chrono::DateTime<chrono::Utc>| at.format("Checked %Y-%m-%d").to_string();
    let after = chrono::Utc::now();
    assert!(
        res.body.contains(&checked(before)) || res.body.contains(&checked(after)),
        "the check is timed by the wall clock: {}",
        res.body
    );
}

/// A new active customer with `monthly_limit` and one key: its id and key.
async fn customer_with_key(app: &TestApp, email: &str, monthly_limit: u64) -> (i64, String) {
    customer_of(app, email, "ai", SubscriptionStatus::Active, monthly_limit).await
}

/// A new customer of `tier` in `status` with `monthly_limit` and one key:
/// its id and key.
async fn customer_of(
    app: &TestApp,
    email: &str,
    tier: &str,
    status: SubscriptionStatus,
    monthly_limit: u64,
) -> (i64, String) {
    let customer = app
        .ports
        .accounts
        .create_customer(
            linecast_core::NewCustomer {
                email: email.into(),
                name: "Small Plan".into(),
                tier: tier.into(),
                api_plan: Some("ai".into()),
                subscription_status: status,
                monthly_limit,
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
            name: "small".into(),
            tier: tier.into(),
            expires_at: None,
        },
        fixture_now(),
    )
    .await;
    (customer.customer_id, key)
}

/// After N API calls (flushed), the day chart's table shows N on the data
/// clock's day (2026-11-15) and 0 on the days before it, and the month
/// table lists the six past months (0 when never counted) and this one.
/// Both charts are inline SVG images with a name, and no inline style.
#[tokio::test]
async fn the_overview_charts_requests_per_day_this_month_and_six_past_months() {
    let (app, _) = app_with_clock().await;
    let (customer, key) = customer_with_key(&app, "charts@example.com", 1_000).await;
    app.ports.usage.add_usage(customer, (2026, 6), 42).await.unwrap();
    app.ports.usage.add_usage(customer, (2026, 4), 99).await.unwrap();
    for _ in 0..5 {
        assert_eq!(app.get_keyed("/api/v1/sports", &key, &[]).await.status().as_u16(), 200);
    }
    app.ports.limiter.flush().await.unwrap();
    let (_, pair) = sign_in(&app, &key).await;
    let page = get(&app, "/portal/overview", Some(&pair)).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let body = &page.body;
    let row = |label: &str, n: u64| format!("<tr><th scope=\"row\">{label}</th><td>{n}</td></tr>");
    assert!(body.contains(&row("2026-11-15", 5)), "{body}");
    for day in 1..15 {
        assert!(body.contains(&row(&format!("2026-11-{day:02}"), 0)), "day {day}");
    }
    assert!(!body.contains("2026-11-16"), "no day after today");
    for (month, n) in [
        ("2026-05", 0),
        ("2026-06", 42),
        ("2026-07", 0),
        ("2026-08", 0),
        ("2026-09", 0),
        ("2026-10", 0),
        ("2026-11", 5),
    ] {
        assert!(body.contains(&row(month, n)), "{month}");
    }
    assert!(!body.contains("2026-04"), "six past months, no more");
    assert!(body.contains("Requests used</dt><dd>5</dd>"));
    // Two charts, each an image with a title and a description.
    assert_eq!(body.matches("<svg ").count(), 2);
    for id in ["per-day-chart", "per-month-chart"] {
        assert!(
            body.contains(&format!("role=\"img\" aria-labelledby=\"{id}-title {id}-desc\"")),
            "{id}"
        );
    }
    assert!(body.contains("5 requests in all; most on 2026-11-15 (5)."));
    assert_eq!(body.matches("<rect ").count(), 15 + 7, "a bar per day and per month");
    for inline in ["<script", "<style", " style=", "onclick", "javascript:"] {
        assert!(!body.contains(inline), "the overview has inline {inline}");
    }
}

/// The `<meter>` of a page: its `value` and `max` attributes.
fn meter_of(page: &str) -> (f64, f64) {
    let at = page.find("<meter ").expect("a meter");
    let tag = &page[at..at + page[at..].find('>').unwrap()];
    let attr = |name: &str| -> f64 {
        let marker = format!(" {name}=\"");
        let from = tag.find(&marker).unwrap_or_else(|| panic!("{name} in {tag}")) + marker.len();
        tag[from..].split('"').next().unwrap().parse().unwrap()
    };
    (attr("value"), attr("max"))
}

#[tokio::test]
async fn the_overview_groups_counts_in_threes_and_shows_a_small_use_on_the_meter() {
    let (app, _) = app_with_clock().await;
    // 422 of 200,000 this month: 0.211%.
    let (light, key) = customer_with_key(&app, "light@example.com", 200_000).await;
    app.ports.usage.add_usage(light, (2026, 11), 422).await.unwrap();
    let (_, pair) = sign_in(&app, &key).await;
    let page = get(&app, "/portal/overview", Some(&pair)).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let body = &page.body;
    assert!(body.contains("Requests used</dt><dd>422</dd>"), "{body}");
    assert!(body.contains("Remaining</dt><dd>199,578 of 200,000</dd>"), "{body}");
    assert!(body.contains("Share used</dt><dd>0.2%</dd>"), "{body}");
    // The bar is a visible sliver (at least 1% of the meter's width), not
    // empty, while the words keep the true share.
    let (value, max) = meter_of(body);
    assert!(value / max >= 0.01, "an empty-looking meter: {value} of {max}");
    assert!(value / max < 0.05, "{value} of {max}");
    assert!(body.contains("aria-valuetext=\"0.2%\""), "{body}");

    // 199,578 of 200,000: every count on the page is grouped.
    let (heavy, key) = customer_with_key(&app, "heavy@example.com", 200_000).await;
    app.ports.usage.add_usage(heavy, (2026, 11), 199_578).await.unwrap();
    app.ports.usage.add_usage(heavy, (2026, 10), 12_345).await.unwrap();
    let (_, pair) = sign_in(&app, &key).await;
    let body = get(&app, "/portal/overview", Some(&pair)).await.body;
    assert!(body.contains("Requests used</dt><dd>199,578</dd>"), "{body}");
    assert!(body.contains("Remaining</dt><dd>422 of 200,000</dd>"), "{body}");
    assert!(
        body.contains("You have used 99% of this month's 200,000 requests."),
        "{body}"
    );
    assert!(body.contains("Share used</dt><dd>99%</dd>"), "rounded down: {body}");
    let row = |label: &str, n: &str| format!("<tr><th scope=\"row\">{label}</th><td>{n}</td></tr>");
    assert!(body.contains(&row("2026-11", "199,578")), "{body}");
    assert!(body.contains(&row("2026-10", "12,345")), "{body}");
    assert!(
        body.contains("211,923 requests in all; most on 2026-11 (199,578)."),
        "{body}"
    );
    for bare in ["199578", "200000", "12345", "211923"] {
        assert!(!body.contains(bare), "{bare} without separators: {body}");
    }
}

#[tokio::test]
async fn the_overview_warns_at_eighty_percent_and_when_the_quota_is_used_up() {
    let (app, _) = app_with_clock().await;
    let (_, key) = customer_with_key(&app, "small@example.com", 10).await;
    let (_, pair) = sign_in(&app, &key).await;
    let overview = || async { get(&app, "/portal/overview", Some(&pair)).await.body };
    for _ in 0..7 {
        assert_eq!(app.get_keyed("/api/v1/sports", &key, &[]).await.status().as_u16(), 200);
    }
    let page = overview().await;
    assert!(
        !page.contains("role=\"status\"") && !page.contains("You have used all"),
        "70%: no banner"
    );
    assert_eq!(app.get_keyed("/api/v1/sports", &key, &[]).await.status().as_u16(), 200);
    let page = overview().await;
    assert!(
        page.contains("You have used 80% of this month's 10 requests."),
        "{page}"
    );
    for _ in 0..2 {
        assert_eq!(app.get_keyed("/api/v1/sports", &key, &[]).await.status().as_u16(), 200);
    }
    assert_eq!(app.get_keyed("/api/v1/sports", &key, &[]).await.status().as_u16(), 429);
    let page = overview().await;
    assert!(page.contains("You have used all 10 requests of this month"), "{page}");
    assert!(page.contains("Requests used</dt><dd>10</dd>"), "{page}");
}

#[tokio::test]
async fn model_quality_shows_the_calibration_use_cases_numbers_and_its_diagram() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let res = get(
        &app,
        "/portal/quality?sport=nba&market=won_on_points&source=all",
        Some(&pair),
    )
    .await;
    assert_eq!(res.status, 200, "{}", res.body);
    assert_eq!(res.header("content-security-policy"), Some(CSP));
    // The same numbers as the API's calibration, rounded to 4 places here.
    let (status, api) = app
        .get_authed_json("/api/v1/models/nba/won_on_points/calibration?source=all")
        .await;
    assert_eq!(status, 200);
    let models = api["models"].as_array().unwrap();
    assert!(!models.is_empty());
    for m in models {
        let row = format!(
            "<tr><td>{}</td><td>{}</td><td>{:.4}</td><td>{:.4}</td>",
            m["model"].as_str().unwrap(),
            m["n"],
            m["brier"].as_f64().unwrap(),
            m["log_loss"].as_f64().unwrap()
        );
        assert!(res.body.contains(&row), "{row} not in the page");
        // Beside the skill, the games it compared (IMPLIED: none to compare).
        let skill = match m["skill_vs_market"]["brier_skill"].as_f64() {
            Some(v) => format!("{v:.4}"),
            None => "–".to_owned(),
        };
        let paired = format!("<td>{skill}</td><td>{}</td>", m["n_paired"]);
        assert!(res.body.contains(&paired), "{paired} not in the page");
        // Each CLV figure with its own n beside it, and its unit or why it is empty.
        let clv_cell = |clv: &serde_json::Value| {
            let mean = clv["mean"]
                .as_f64()
                .map_or_else(|| "–".to_owned(), |v| format!("{v:.3}"));
            let note = match (clv["reason"].as_str(), clv["unit"].as_str()) {
                (Some("fixed_line"), _) => "fixed line: nothing to measure",
                (Some("no_kept_releases"), _) => "no kept releases",
                (Some("no_line_move"), _) => "no recorded line move",
                (Some("no_picks"), _) => "no picks",
                (Some("no_book_closes"), _) => "no book closes",
                (None, Some("probability_points")) => "probability points",
                (None, Some("points")) => "points",
                other => panic!("unexpected CLV {other:?}"),
            };
            format!("<td>{mean} <small class=\"clv-n\">n {} · {note}</small></td>", clv["n"])
        };
        let cells = format!(
            "{}{}{}{}</tr>",
            clv_cell(&m["clv_bases"]["kept_releases"]),
            clv_cell(&m["clv_bases"]["result_rows"]),
            clv_cell(&m["clv_bases"]["sharp_close"]),
            clv_cell(&m["clv_bases"]["consensus_close"])
        );
        assert!(res.body.contains(&cells), "{cells} not in the page");
    }
    // Each figure is said in words, with the way to the API reference.
    for term in [
        "<dt>n</dt>",
        "<dt>Brier</dt>",
        "<dt>Log loss</dt>",
        "<dt>Brier skill vs IMPLIED</dt>",
        "<dt>Mean CLV</dt>",
    ] {
        assert!(res.body.contains(term), "{term} is not explained");
    }
    assert!(
        res.body
            .contains("href=\"/docs/payloads.md#calibration-get-apiv1modelssportmodel_typecalibration-ai-key\"")
    );
    assert!(res.body.contains(&format!("{} graded games", api["games"])));
    let season = api["season"].as_str().unwrap();
    // The diagram's URL, as the page gives it (HTML-escaped).
    let at =
        res.body.find("<img class=\"diagram\" src=\"").expect("the diagram") + "<img class=\"diagram\" src=\"".len();
    let diagram = res.body[at..]
        .split('"')
        .next()
        .unwrap()
        .replace("&#38;", "&")
        .replace("&amp;", "&");
    assert_eq!(
        diagram,
        format!("/portal/quality/diagram.svg?sport=nba&market=won_on_points&season={season}&source=all")
    );
    let svg = get(&app, &diagram, Some(&pair)).await;
    assert_eq!(svg.status, 200);
    assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
    assert!(svg.body.contains("<svg") && svg.body.contains("Reliability"));
    // Closed without a session; a bad choice is a 400 page naming it.
    assert_eq!(get(&app, &diagram, None).await.status, 303);
    let bad = get(&app, "/portal/quality?sport=cricket", Some(&pair)).await;
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("Invalid sport"), "{}", bad.body);
}

/// The page shows the payload's intervals with their n beside each
/// figure, the skill at the forecast's release with its games left out,
/// and, for `source=verified`, the rows left out by archive check.
#[tokio::test]
async fn model_quality_shows_the_intervals_and_the_verified_left_out_count() {
    let app = crate::archive_check::written_with(crate::archive_check::season()).await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let res = get(
        &app,
        "/portal/quality?sport=nba&market=won_on_points&season=2026-27&source=verified",
        Some(&pair),
    )
    .await;
    assert_eq!(res.status, 200, "{}", res.body);
    let (status, api) = app
        .get_authed_json("/api/v1/models/nba/won_on_points/calibration?season=2026-27&source=verified")
        .await;
    assert_eq!(status, 200, "{api}");
    let ci = |c: &serde_json::Value| {
        format!(
            "{:.4}–{:.4} (n {})",
            c["low"].as_f64().unwrap(),
            c["high"].as_f64().unwrap(),
            c["n"]
        )
    };
    for m in api["models"].as_array().unwrap() {
        for cell in [ci(&m["brier_ci"]), ci(&m["log_loss_ci"])] {
            let cell = format!("<td class=\"ci\">{cell}</td>");
            assert!(res.body.contains(&cell), "{cell} not in the page");
        }
        if let Some(at) = m["skill_at_forecast"].as_object() {
            let counted = format!("n {} · {} left out", at["n"], at["left_out"]);
            assert!(res.body.contains(&counted), "{counted} not in the page");
        }
    }
    let left = &api["left_out"];
    let total = ["mismatch", "not_kept", "not_applicable"]
        .iter()
        .map(|k| left[*k].as_u64().unwrap())
        .sum::<u64>();
    let said = format!(
        "Left out: {total} graded games whose archive check is not matched ({} mismatch, {} not kept, {} not applicable).",
        left["mismatch"], left["not_kept"], left["not_applicable"]
    );
    assert!(res.body.contains(&said), "{said} not in the page");
}

/// The portal's diagram is the API's `format=svg` calibration body for the
/// same choice: the same bytes and ETag, no second body in the response
/// cache, and it goes out compressed when the browser asks, as every body.
#[tokio::test]
async fn the_portal_diagram_is_the_apis_cached_svg_not_a_second_drawing() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (status, api) = app
        .get_authed_json("/api/v1/models/nba/won_on_points/calibration?source=all")
        .await;
    assert_eq!(status, 200);
    let season = api["season"].as_str().unwrap().to_owned();
    let from_api = app
        .get_keyed(
            &format!("/api/v1/models/nba/won_on_points/calibration?source=all&season={season}&format=svg"),
            &app.api_key,
            &[],
        )
        .await;
    assert_eq!(from_api.status(), 200);
    let api_etag = from_api.headers()["etag"].to_str().unwrap().to_owned();
    let api_bytes = from_api.bytes().await.unwrap();
    let bodies = app.state.responses.bodies.stats().entries;
    let diagram = format!("/portal/quality/diagram.svg?sport=nba&market=won_on_points&season={season}&source=all");
    let portal = get(&app, &diagram, Some(&pair)).await;
    assert_eq!(portal.status, 200);
    assert_eq!(portal.header("etag"), Some(api_etag.as_str()));
    assert_eq!(portal.body.as_bytes(), &api_bytes[..]);
    assert_eq!(portal.header("content-type"), Some("image/svg+xml"));
    assert_eq!(portal.header("content-security-policy"), Some("default-src 'none'"));
    assert_eq!(
        app.state.responses.bodies.stats().entries,
        bodies,
        "no second body was made"
    );
    let gzip = browser()
        .get(format!("{}{diagram}", app.address))
        .header("Cookie", &pair)
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(
        gzip.headers().get("content-encoding").map(|v| v.to_str().unwrap()),
        Some("gzip")
    );
    assert_eq!(gzip.headers()["cache-control"], "no-store");
}

#[tokio::test]
async fn the_data_page_shows_every_sport_and_refresh_signs_links_with_the_csrf_token() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let page = get(&app, "/portal/data", Some(&pair)).await;
    assert_eq!(page.status, 200, "{}", page.body);
    for sport in ["nba", "nhl", "mlb", "nfl", "ncaab", "ncaaf"] {
        assert!(page.body.contains(&format!("<tr><td>{sport}</td>")), "{sport}");
    }
    // The exports as they are: the results file holds every row (graded
    // or not), the history file every kept release; CSV or Parquet; the
    // example names this server's public address, not a placeholder.
    assert!(!page.body.contains("graded row"), "{}", page.body);
    for text in [
        "/api/v1/results/{sport}/{model_type}/export?season=all&amp;format=csv",
        "every result row of every season, graded or not",
        "/api/v1/predictions/{sport}/{model_type}/history/export?format=csv",
        "every kept release of the predictions, one row per game and release",
        "<code>format=parquet</code>",
        "<code>won_on_points</code> (Moneyline)",
        "<code>ncaab</code>",
    ] {
        assert!(page.body.contains(text), "{text}: {}", page.body);
    }
    let example = format!(
        "\"{}/api/v1/results/nba/won_on_points/export?season=all&amp;format=parquet\"",
        app.state.public_url
    );
    assert!(app.state.public_url.starts_with("http"), "{}", app.state.public_url);
    assert!(page.body.contains(&example), "{example}: {}", page.body);
    assert!(!page.body.contains("&lt;host&gt;"));
    assert!(page.body.contains(">Refresh</button>"));
    assert!(page.body.contains("0 of 8 used"), "{}", page.body);
    let token = csrf_of(&page.body);
    // Without the token nothing is consumed.
    assert_eq!(post(&app, "/portal/data/refresh", Some(&pair), &[]).await.status, 403);
    let refreshed = post_follow(&app, "/portal/data/refresh", &pair, &[("csrf", &token)]).await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.body);
    assert!(refreshed.body.contains("Your download links"));
    assert!(refreshed.body.contains("1 of 8 used"), "{}", refreshed.body);
    let (_, status) = app.get_authed_json("/api/v1/service-sports-data/status").await;
    assert_eq!(status["refreshes_used"], 1, "{status}");
    // A link downloads without a key.
    let at = refreshed.body.find("href=\"http").expect("a link") + "href=\"".len();
    let url = refreshed.body[at..].split('"').next().unwrap().replace("&amp;", "&");
    let path = &url[url.find("/api/v1/downloads/").unwrap()..];
    assert_eq!(get(&app, path, None).await.status, 200);
    // Reloading shows no link and spends no refresh.
    let again = get(&app, "/portal/data", Some(&pair)).await;
    assert!(!again.body.contains("Your download links"));
    assert!(again.body.contains("1 of 8 used"), "{}", again.body);
    let (_, status) = app.get_authed_json("/api/v1/service-sports-data/status").await;
    assert_eq!(status["refreshes_used"], 1, "{status}");
}

#[tokio::test]
async fn a_sign_in_link_works_once_for_fifteen_minutes_and_gives_a_new_key_shown_once() {
    let (app, clock) = app_with_clock().await;
    let demo = crate::helpers::demo_customer(&app).await;
    let token = crate::helpers::demo_sign_in_link(&app, fixture_now()).await;
    assert_eq!(token.len(), 64);
    // Stored hashed: known by its hash, not by the token.
    let hash = hex::encode(Sha256::digest(token.as_bytes()));
    assert!(
        app.ports
            .sessions
            .peek_link(&hash, fixture_now())
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        app.ports
            .sessions
            .peek_link(&token, fixture_now())
            .await
            .unwrap()
            .is_none()
    );

    let path = format!("/portal/link/{token}");
    // Asking (a link previewer) does not use it.
    for _ in 0..2 {
        let ask = get(&app, &path, None).await;
        assert_eq!(ask.status, 200);
        assert!(ask.body.contains(&demo.email));
        assert_eq!(ask.header("content-security-policy"), Some(CSP));
    }
    let used = post(&app, &path, None, &[]).await;
    assert_eq!(
        (used.status, used.header("location")),
        (303, Some("/portal/keys")),
        "{}",
        used.body
    );
    let pair = used.header("set-cookie").unwrap().split(';').next().unwrap().to_owned();
    let shown = get(&app, "/portal/keys", Some(&pair)).await;
    assert_eq!(shown.header("cache-control"), Some("no-store"));
    let key = full_key_in(&shown.body).expect("the new key, once");
    assert_eq!(app.get_keyed("/api/v1/sports", &key, &[]).await.status().as_u16(), 200);
    assert_eq!(
        full_key_in(&get(&app, "/portal/keys", Some(&pair)).await.body),
        None,
        "once"
    );
    let overview = get(&app, "/portal/overview", Some(&pair)).await;
    assert_eq!(overview.status, 200);
    assert!(!overview.body.contains(&key), "shown once only");
    // Used: never again.
    assert_eq!(post(&app, &path, None, &[]).await.status, 404);
    assert_eq!(get(&app, &path, None).await.status, 404);

    // Fifteen minutes, then it is spent unused.
    let late = crate::helpers::demo_sign_in_link(&app, fixture_now()).await;
    clock.set(fixture_now() + Duration::minutes(15));
    assert_eq!(post(&app, &format!("/portal/link/{late}"), None, &[]).await.status, 404);
    assert_eq!(get(&app, "/portal/link/not-a-token", None).await.status, 404);
}

// ---- The Keys page ----

/// A full key anywhere in a page.
fn full_key_in(page: &str) -> Option<String> {
    let at = page.find("sk_service_")?;
    let body: String = page[at + "sk_service_".len()..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    (body.len() >= 32).then(|| format!("sk_service_{body}"))
}

/// The keys page and its CSRF token.
async fn keys_page(app: &TestApp, cookie: &str) -> (String, String) {
    let res = get(app, "/portal/keys", Some(cookie)).await;
    assert_eq!(res.status, 200, "{}", res.body);
    let token = csrf_of(&res.body);
    (res.body, token)
}

/// A key made through the API with the demo key; returns the full key and
/// its id.
async fn api_key_named(app: &TestApp, name: &str) -> (String, i64) {
    let created: serde_json::Value = app
        .client
        .post(format!("{}/api/v1/customers/me/api-keys", app.address))
        .header("X-API-Key", &app.api_key)
        .json(&serde_json::json!({ "name": name }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let key = created["api_key"].as_str().unwrap().to_owned();
    let hash = linecast_core::key_material::hash_key(&key);
    let (record, _) = app.ports.accounts.find_key_by_hash(&hash).await.unwrap().unwrap();
    (key, record.id)
}

async fn sports_status(app: &TestApp, key: &str) -> u16 {
    app.get_keyed("/api/v1/sports", key, &[]).await.status().as_u16()
}

async fn demo_keys(app: &TestApp) -> Vec<linecast_core::ApiKeyRecord> {
    let demo = crate::helpers::demo_customer(app).await;
    app.ports.accounts.list_keys(demo.customer_id).await.unwrap()
}

fn assert_no_inline_script_or_style(page: &str) {
    for inline in ["<script>", "<style", " style=", "onclick", "javascript:"] {
        assert!(!page.contains(inline), "inline {inline}: {page}");
    }
}

#[tokio::test]
async fn a_key_created_in_the_portal_is_shown_once_works_and_is_only_ever_listed_masked() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (page, token) = keys_page(&app, &pair).await;
    assert!(page.contains("Create key</button>"), "{page}");
    assert!(
        page.contains("<a href=\"/portal/keys\">Keys</a>"),
        "the nav links the page"
    );
    assert_no_inline_script_or_style(&page);
    assert_eq!(full_key_in(&page), None, "the demo key is listed masked");

    let res = post_follow(
        &app,
        "/portal/keys/create",
        &pair,
        &[("csrf", &token), ("name", "  ci runner "), ("expires", "30d")],
    )
    .await;
    assert_eq!(res.status, 200, "{}", res.body);
    assert_eq!(res.header("cache-control"), Some("no-store"));
    assert_eq!(res.header("content-security-policy"), Some(CSP));
    assert!(res.body.contains("will not be shown again"), "{}", res.body);
    assert_no_inline_script_or_style(&res.body);
    assert!(
        res.body
            .contains("<script src=\"/portal/static/copy.js\" defer></script>")
    );
    let key = full_key_in(&res.body).expect("the new key on the page");
    assert_ne!(key, app.api_key);
    let masked = format!("{}*****", &key[..15]);

    // It works against the API at once.
    assert_eq!(sports_status(&app, &key).await, 200);
    let stored = demo_keys(&app).await.pop().unwrap();
    assert_eq!(stored.name, "ci runner");
    assert_eq!(stored.expires_at, Some(fixture_now() + Duration::days(30)));
    let audit = app.ports.accounts.audit_log(stored.customer_id).await.unwrap();
    assert_eq!(
        audit.last().unwrap().detail,
        format!("issued key 'ci runner' ({masked}) via portal")
    );

    // Listed masked, never in full again, on any page.
    let (page, _) = keys_page(&app, &pair).await;
    assert!(page.contains(&masked), "{page}");
    assert!(page.contains("ci runner"));
    assert!(page.contains(&(fixture_now() + Duration::days(30)).format("%Y-%m-%d").to_string()));
    for path in ["/portal/keys", "/portal/overview", "/status", "/portal"] {
        let body = get(&app, path, Some(&pair)).await.body;
        assert!(!body.contains(&key), "{path} shows the key");
        assert!(!body.contains(&key[15..]), "{path} shows the key's secret part");
    }
    let script = get(&app, "/portal/static/copy.js", None).await;
    assert_eq!(script.status, 200);
    assert!(script.header("content-type").unwrap().starts_with("text/javascript"));
}

#[tokio::test]
async fn a_keys_form_without_the_csrf_token_changes_nothing() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (other_key, other_id) = api_key_named(&app, "other").await;
    // What a form could change (the once-a-second usage flush may still
    // write the demo key's `last_used_at` meanwhile: not a change by a form).
    let keys = || async {
        demo_keys(&app)
            .await
            .into_iter()
            .map(|k| (k.id, k.name, k.is_active, k.expires_at, k.revoked_at))
            .collect::<Vec<_>>()
    };
    let before = keys().await;
    let id = other_id.to_string();
    let forms: [(&str, Vec<(&str, &str)>); 4] = [
        ("/portal/keys/create", vec![("name", "sneaky")]),
        ("/portal/keys/rename", vec![("key_id", &id), ("name", "sneaky")]),
        ("/portal/keys/revoke", vec![("key_id", &id), ("confirm", "yes")]),
        ("/portal/keys/roll", vec![("key_id", &id), ("grace", "now")]),
    ];
    for (path, form) in forms {
        for token in [None, Some("forged")] {
            let mut form = form.clone();
            if let Some(t) = token {
                form.push(("csrf", t));
            }
            let res = post(&app, path, Some(&pair), &form).await;
            assert_eq!(res.status, 403, "{path} {token:?}");
            assert_eq!(full_key_in(&res.body), None);
        }
    }
    assert_eq!(keys().await, before, "nothing changed");
    assert_eq!(sports_status(&app, &other_key).await, 200);
}

#[tokio::test]
async fn a_key_is_renamed_from_the_portal() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (_, id) = api_key_named(&app, "old name").await;
    let (page, token) = keys_page(&app, &pair).await;
    assert!(page.contains(">Rename</button>"));
    let res = post(
        &app,
        "/portal/keys/rename",
        Some(&pair),
        &[("csrf", &token), ("key_id", &id.to_string()), ("name", " build box ")],
    )
    .await;
    assert_eq!((res.status, res.header("location")), (303, Some("/portal/keys")));
    let renamed = demo_keys(&app).await.into_iter().find(|k| k.id == id).unwrap();
    assert_eq!(renamed.name, "build box");
    let (page, _) = keys_page(&app, &pair).await;
    assert!(page.contains("build box") && !page.contains("old name"), "{page}");
    let audit = app.ports.accounts.audit_log(renamed.customer_id).await.unwrap();
    assert!(audit.last().unwrap().detail.ends_with("-> 'build box' via portal"));

    // Another customer's key, or none, is not found; a malformed id is a 400.
    for (key_id, message) in [("999999", "not among your keys"), ("x", "did not say which key")] {
        let res = post_follow(
            &app,
            "/portal/keys/rename",
            &pair,
            &[("csrf", &token), ("key_id", key_id), ("name", "n")],
        )
        .await;
        assert!(res.body.contains(message), "{key_id}: {}", res.body);
        assert_eq!(res.header("content-security-policy"), Some(CSP));
    }
}

/// The rows that create keys and spend refreshes are `Session(Subscriber)`:
/// a customer whose subscription lapsed while signed in is sent back to
/// the form's page with the reason, and nothing is made or spent (counted
/// in the database, not read from the page); renaming and revoking still
/// work.
#[tokio::test]
async fn a_lapsed_customer_cannot_create_roll_or_refresh_but_can_rename_and_revoke() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (_, id) = api_key_named(&app, "second").await;
    let (page, token) = keys_page(&app, &pair).await;
    assert!(page.contains("Create key</button>"), "{page}");
    let before = demo_keys(&app).await.len();
    let demo = crate::helpers::demo_customer(&app).await;
    app.ports
        .accounts
        .set_subscription(&demo.email, SubscriptionStatus::PastDue)
        .await
        .unwrap();
    app.state.gate.keys.invalidate_all();

    let (page, _) = keys_page(&app, &pair).await;
    assert!(
        !page.contains("Create key</button>"),
        "no create form is offered: {page}"
    );
    for (path, form) in [
        ("/portal/keys/create", vec![("name", "lapsed"), ("expires", "never")]),
        ("/portal/keys/roll", vec![("key_id", "ID"), ("grace", "now")]),
    ] {
        let mut form: Vec<(&str, String)> = form
            .into_iter()
            .map(|(k, v)| (k, if v == "ID" { id.to_string() } else { v.to_owned() }))
            .collect();
        form.push(("csrf", token.clone()));
        let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let res = post(&app, path, Some(&pair), &form).await;
        assert_eq!(
            (res.status, res.header("location")),
            (303, Some("/portal/keys")),
            "{path}"
        );
        let shown = get(&app, "/portal/keys", Some(&pair)).await;
        assert!(
            shown
                .body
                .contains("Creating or rolling a key needs an active subscription; yours is past_due."),
            "{path}: {}",
            shown.body
        );
        assert_eq!(full_key_in(&shown.body), None, "{path}");
        assert_eq!(demo_keys(&app).await.len(), before, "{path}: no key was made");
        assert!(
            demo_keys(&app).await.iter().all(|k| k.revoked_at.is_none()),
            "{path}: no key was rolled"
        );
    }
    let data = get(&app, "/portal/data", Some(&pair)).await;
    let res = post(
        &app,
        "/portal/data/refresh",
        Some(&pair),
        &[("csrf", &csrf_of(&data.body))],
    )
    .await;
    assert_eq!((res.status, res.header("location")), (303, Some("/portal/data")));
    let shown = get(&app, "/portal/data", Some(&pair)).await;
    assert!(
        shown
            .body
            .contains("Refreshing datasets needs an active subscription; yours is past_due."),
        "{}",
        shown.body
    );
    assert!(!shown.body.contains("Your download links"));

    // What needs no subscription still works.
    let res = post(
        &app,
        "/portal/keys/rename",
        Some(&pair),
        &[("csrf", &token), ("key_id", &id.to_string()), ("name", "renamed")],
    )
    .await;
    assert_eq!(res.status, 303);
    assert!(demo_keys(&app).await.iter().any(|k| k.id == id && k.name == "renamed"));
    let res = post(
        &app,
        "/portal/keys/revoke",
        Some(&pair),
        &[("csrf", &token), ("key_id", &id.to_string()), ("confirm", "yes")],
    )
    .await;
    assert_eq!(res.status, 303, "{}", res.body);
    assert!(
        demo_keys(&app)
            .await
            .iter()
            .any(|k| k.id == id && k.revoked_at.is_some())
    );

    // Put right, nothing was spent: the month's refreshes are all left.
    app.ports
        .accounts
        .set_subscription(&demo.email, SubscriptionStatus::Active)
        .await
        .unwrap();
    app.state.gate.keys.invalidate_all();
    let (_, status) = app.get_authed_json("/api/v1/service-sports-data/status").await;
    assert_eq!(status["refreshes_used"], 0, "{status}");
}

/// The part of the Keys page that lists key `id` (its `<article>`).
fn key_article(page: &str, id: i64) -> &str {
    let start = page
        .find(&format!("<article class=\"key\" aria-labelledby=\"key-{id}\">"))
        .unwrap_or_else(|| panic!("key {id} is listed: {page}"));
    let len = page[start..].find("</article>").expect("the article ends");
    &page[start..start + len]
}

#[tokio::test]
async fn a_revoked_or_expired_key_is_listed_without_rename_or_any_other_form() {
    let (app, clock) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (_, gone) = api_key_named(&app, "gone").await;
    let (_, rolled) = api_key_named(&app, "rolled").await;
    let (page, token) = keys_page(&app, &pair).await;
    for id in [gone, rolled] {
        let listed = key_article(&page, id);
        assert!(listed.contains(&format!("id=\"rename-{id}\"")), "{listed}");
        assert!(listed.contains(">Rename</button>") && listed.contains(">Revoke</button>"));
    }
    let res = post(
        &app,
        "/portal/keys/revoke",
        Some(&pair),
        &[("csrf", &token), ("key_id", &gone.to_string()), ("confirm", "yes")],
    )
    .await;
    assert_eq!(res.status, 303, "{}", res.body);
    post_follow(
        &app,
        "/portal/keys/roll",
        &pair,
        &[("csrf", &token), ("key_id", &rolled.to_string()), ("grace", "1h")],
    )
    .await;
    clock.set(fixture_now() + Duration::hours(2));
    // Two idle hours end the session too: a new one.
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (page, _) = keys_page(&app, &pair).await;
    for (id, state) in [(gone, "revoked"), (rolled, "expired")] {
        let listed = key_article(&page, id);
        assert!(listed.contains(&format!(">{state}</dd>")), "{listed}");
        for form in ["/portal/keys/rename", "/portal/keys/roll", "/portal/keys/revoke"] {
            assert!(!listed.contains(form), "a {state} key offers {form}: {listed}");
        }
        assert!(!listed.contains(">Rename</button>"), "{listed}");
        assert!(listed.contains("no longer works"), "{listed}");
    }
    // A key that works keeps its forms.
    let session = demo_keys(&app).await[0].id;
    assert!(key_article(&page, session).contains(">Rename</button>"));
}

#[tokio::test]
async fn revoking_needs_a_confirmation_and_then_the_api_refuses_the_key_at_once() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (key, id) = api_key_named(&app, "doomed").await;
    // Used first, so the key cache holds it.
    assert_eq!(sports_status(&app, &key).await, 200);
    let (page, token) = keys_page(&app, &pair).await;
    assert!(page.contains(">Revoke</button>"));
    let id = id.to_string();

    let ask = post_follow(&app, "/portal/keys/revoke", &pair, &[("csrf", &token), ("key_id", &id)]).await;
    assert_eq!(ask.status, 200, "{}", ask.body);
    assert!(ask.body.contains("name=\"confirm\" value=\"yes\""), "{}", ask.body);
    assert!(ask.body.contains(">Revoke</button>"));
    assert_eq!(
        sports_status(&app, &key).await,
        200,
        "not revoked before the confirmation"
    );

    let res = post(
        &app,
        "/portal/keys/revoke",
        Some(&pair),
        &[("csrf", &token), ("key_id", &id), ("confirm", "yes")],
    )
    .await;
    assert_eq!((res.status, res.header("location")), (303, Some("/portal/keys")));
    assert_eq!(sports_status(&app, &key).await, 401, "refused at once");
    let (page, _) = keys_page(&app, &pair).await;
    assert!(page.contains("revoked"), "{page}");
    let customer = demo_keys(&app).await[0].customer_id;
    let audit = app.ports.accounts.audit_log(customer).await.unwrap();
    assert!(audit.last().unwrap().detail.starts_with("revoked key 'doomed'"));
    assert!(audit.last().unwrap().detail.ends_with("via portal"));

    // Revoking the key the session was started with ends the session.
    let (session_key, own_id) = api_key_named(&app, "signing in").await;
    let own_id = own_id.to_string();
    let (_, own) = sign_in(&app, &session_key).await;
    let (page, own_token) = keys_page(&app, &own).await;
    assert!(page.contains("this session"));
    let res = post(
        &app,
        "/portal/keys/revoke",
        Some(&own),
        &[("csrf", &own_token), ("key_id", &own_id), ("confirm", "yes")],
    )
    .await;
    assert_eq!((res.status, res.header("location")), (303, Some("/portal")));
    assert_eq!(get(&app, "/portal/keys", Some(&own)).await.status, 303, "signed out");
    assert_eq!(get(&app, "/portal/keys", Some(&pair)).await.status, 200);
}

#[tokio::test]
async fn rolling_with_an_hour_of_grace_keeps_the_old_key_working_until_the_hour_ends() {
    let (app, clock) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (old, id) = api_key_named(&app, "deploy").await;
    assert_eq!(sports_status(&app, &old).await, 200);
    let (page, token) = keys_page(&app, &pair).await;
    assert!(page.contains(">Roll</button>"));
    let res = post_follow(
        &app,
        "/portal/keys/roll",
        &pair,
        &[("csrf", &token), ("key_id", &id.to_string()), ("grace", "1h")],
    )
    .await;
    assert_eq!(res.status, 200, "{}", res.body);
    assert_eq!(res.header("cache-control"), Some("no-store"));
    assert!(res.body.contains("will not be shown again"));
    let new = full_key_in(&res.body).expect("the replacement on the page");
    assert_ne!(new, old);
    let replacement = demo_keys(&app).await.pop().unwrap();
    assert_eq!(replacement.name, "deploy");

    assert_eq!(sports_status(&app, &new).await, 200);
    clock.set(fixture_now() + Duration::minutes(59));
    assert_eq!(sports_status(&app, &old).await, 200, "within the grace");
    clock.set(fixture_now() + Duration::minutes(60));
    assert_eq!(sports_status(&app, &old).await, 401, "the hour is over");
    assert_eq!(sports_status(&app, &new).await, 200);
    let audit = app.ports.accounts.audit_log(replacement.customer_id).await.unwrap();
    let line = audit.last().unwrap();
    assert_eq!(line.action, "roll");
    assert!(line.detail.contains("via portal"), "{}", line.detail);
}

#[tokio::test]
async fn rolling_now_stops_the_old_key_at_once() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (old, id) = api_key_named(&app, "leaked").await;
    assert_eq!(sports_status(&app, &old).await, 200);
    let (_, token) = keys_page(&app, &pair).await;
    let res = post_follow(
        &app,
        "/portal/keys/roll",
        &pair,
        &[("csrf", &token), ("key_id", &id.to_string()), ("grace", "now")],
    )
    .await;
    assert_eq!(res.status, 200, "{}", res.body);
    let new = full_key_in(&res.body).unwrap();
    assert_eq!(sports_status(&app, &old).await, 401);
    assert_eq!(sports_status(&app, &new).await, 200);
    // A revoked key cannot be rolled again, and an unknown grace is refused.
    for (grace, message) in [("now", "cannot be rolled"), ("2h", "Choose how long")] {
        let res = post_follow(
            &app,
            "/portal/keys/roll",
            &pair,
            &[("csrf", &token), ("key_id", &id.to_string()), ("grace", grace)],
        )
        .await;
        assert!(res.body.contains(message), "{grace}: {}", res.body);
        if grace == "2h" {
            // The key is revoked: no roll form; the message is at the top.
            assert!(!res.body.contains(&format!("id=\"grace-{id}-error\"")));
        }
        assert_eq!(full_key_in(&res.body), None);
    }
}

#[tokio::test]
async fn the_portal_holds_a_customer_to_the_key_cap() {
    let clock = Arc::new(ManualClock::new(fixture_now()));
    let for_app = clock.clone();
    let app = spawn_app_configured(
        fixture_now(),
        |_| {},
        move |s| {
            s.manual_clock = Some(for_app);
            s.max_keys_per_customer = 2;
        },
    )
    .await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (page, token) = keys_page(&app, &pair).await;
    assert!(page.contains("You hold 1 of at most 2 active keys."), "{page}");
    let create = |name: &'static str| {
        let (app, pair, token) = (&app, pair.clone(), token.clone());
        async move {
            post_follow(
                app,
                "/portal/keys/create",
                &pair,
                &[("csrf", &token), ("name", name), ("expires", "never")],
            )
            .await
        }
    };
    assert!(full_key_in(&create("second").await.body).is_some());
    let refused = create("third").await;
    assert!(
        refused.body.contains("id=\"new-name-error\""),
        "beside the field: {}",
        refused.body
    );
    assert!(refused.body.contains("value=\"third\""), "what was typed is kept");
    assert!(refused.body.contains("at most 2 active API keys"), "{}", refused.body);
    assert_eq!(full_key_in(&refused.body), None);
    assert_eq!(demo_keys(&app).await.len(), 2);
    // A roll replaces a key, so it goes through at the cap.
    let second = demo_keys(&app).await[1].id.to_string();
    let rolled = post_follow(
        &app,
        "/portal/keys/roll",
        &pair,
        &[("csrf", &token), ("key_id", &second), ("grace", "1h")],
    )
    .await;
    assert!(full_key_in(&rolled.body).is_some(), "{}", rolled.body);
    let fourth = create("fourth").await;
    assert!(
        fourth.body.contains("at most 2 active API keys"),
        "still capped for a new key"
    );
}

#[tokio::test]
async fn a_key_name_with_a_control_character_is_refused_by_the_apis_rule() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (_, token) = keys_page(&app, &pair).await;
    let before = demo_keys(&app).await;
    for name in ["bell\u{7}name", "a\nb", "\u{202E}evil", "   "] {
        let res = post_follow(
            &app,
            "/portal/keys/create",
            &pair,
            &[("csrf", &token), ("name", name), ("expires", "never")],
        )
        .await;
        assert!(res.body.contains("id=\"new-name-error\""), "{name:?}: {}", res.body);
        assert!(res.body.contains("1 to 100 printable characters"), "{}", res.body);
        let id = before[0].id;
        let res = post_follow(
            &app,
            "/portal/keys/rename",
            &pair,
            &[("csrf", &token), ("key_id", &id.to_string()), ("name", name)],
        )
        .await;
        assert!(
            res.body.contains(&format!("id=\"rename-{id}-error\"")),
            "{name:?}: {}",
            res.body
        );
    }
    assert_eq!(demo_keys(&app).await, before);
}
#[tokio::test]
async fn no_key_reaches_a_log_line_or_a_url() {
    crate::helpers::capture_logs();
    let (app, _) = app_with_clock().await;
    let wrong = format!("sk_service_{}", "q".repeat(40));
    assert_eq!(
        post(&app, "/portal/sign-in", None, &[("api_key", &wrong)]).await.status,
        401
    );
    let res = post(&app, "/portal/sign-in", None, &[("api_key", &app.api_key)]).await;
    assert_eq!(res.status, 303);
    // Where the browser goes next names no key.
    assert!(!res.header("location").unwrap().contains("sk_service_"));
    let pair = res.header("set-cookie").unwrap().split(';').next().unwrap().to_owned();
    let page = get(&app, "/portal/overview", Some(&pair)).await.body;
    assert!(!page.contains("sk_service_"), "no key on the overview");
    let logs = crate::helpers::captured_logs();
    assert!(logs.contains("/portal/sign-in"), "the sign-ins were logged");
    for key in [&wrong, &app.api_key] {
        assert!(!logs.contains(key.as_str()), "a key reached the log");
    }
}

// ---- Model quality is served as /calibration is ----

const QUALITY: &str = "/portal/quality?sport=nba&market=won_on_points&source=all";

/// The diagram of the default season, as the page for `QUALITY` links it.
async fn diagram_path(app: &TestApp) -> String {
    let (_, api) = app
        .get_authed_json("/api/v1/models/nba/won_on_points/calibration?source=all")
        .await;
    let season = api["season"].as_str().unwrap().to_owned();
    format!("/portal/quality/diagram.svg?sport=nba&market=won_on_points&season={season}&source=all")
}

/// This month's requests of the customer with `key` (the usage call itself
/// counts one).
async fn used(app: &TestApp, key: &str) -> u64 {
    let res = app.get_keyed("/api/v1/customers/me/usage", key, &[]).await;
    assert_eq!(res.status().as_u16(), 200);
    let body: serde_json::Value = res.json().await.unwrap();
    body["monthly_requests"].as_u64().unwrap()
}

/// A page that shows none of the calibration's numbers or its diagram.
fn assert_no_quality_data(page: &str) {
    assert!(!page.contains("graded games"), "{page}");
    assert!(!page.contains("<img class=\"diagram\""), "{page}");
    assert!(!page.contains("<td>BLEND</td>"), "{page}");
    assert!(!page.contains("<svg"), "{page}");
}

#[tokio::test]
async fn a_lapsed_customer_signs_in_but_gets_no_model_quality_and_no_diagram() {
    let (app, _) = app_with_clock().await;
    let diagram = diagram_path(&app).await;
    let (_, key) = customer_of(&app, "lapsed@example.com", "ai", SubscriptionStatus::Canceled, 1_000).await;
    // As the API: /calibration is refused.
    assert_eq!(
        app.get_keyed("/api/v1/models/nba/won_on_points/calibration", &key, &[])
            .await
            .status()
            .as_u16(),
        403
    );
    let before = used(&app, &key).await;
    let (_, pair) = sign_in(&app, &key).await;
    let page = get(&app, QUALITY, Some(&pair)).await;
    assert_eq!(page.status, 403, "{}", page.body);
    assert_eq!(page.header("content-security-policy"), Some(CSP));
    assert!(
        page.body
            .contains("Your subscription is canceled: model quality is part of the API subscription"),
        "{}",
        page.body
    );
    assert!(page.body.contains(">Show</button>"), "the choices stay");
    assert_no_quality_data(&page.body);
    let svg = get(&app, &diagram, Some(&pair)).await;
    assert_eq!(svg.status, 403, "{}", svg.body);
    assert_ne!(svg.header("content-type"), Some("image/svg+xml"));
    assert_no_quality_data(&svg.body);
    assert_eq!(used(&app, &key).await, before + 1, "refusals count nothing");
}

/// Portal views are not API requests: the page and its diagram count
/// nothing against the monthly quota, and a customer past the quota (the
/// API refuses their /calibration) still sees model quality in the portal.
#[tokio::test]
async fn model_quality_views_count_nothing_and_stay_open_past_the_api_quota() {
    let (app, _) = app_with_clock().await;
    let diagram = diagram_path(&app).await;
    let (_, key) = customer_with_key(&app, "quality@example.com", 3).await;
    let (_, pair) = sign_in(&app, &key).await;
    assert_eq!(used(&app, &key).await, 1);
    for _ in 0..3 {
        let page = get(&app, QUALITY, Some(&pair)).await;
        assert_eq!(page.status, 200, "{}", page.body);
        assert!(page.body.contains("graded games"));
        assert!(page.body.contains("not counted against your API quota"));
        let svg = get(&app, &diagram, Some(&pair)).await;
        assert_eq!(svg.status, 200);
        assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
    }
    assert_eq!(
        used(&app, &key).await,
        2,
        "six views counted nothing; the usage calls did"
    );
    assert_eq!(used(&app, &key).await, 3, "the quota of 3 is used up");

    // The API refuses /calibration now; the portal still shows it.
    assert_eq!(
        app.get_keyed("/api/v1/models/nba/won_on_points/calibration", &key, &[])
            .await
            .status()
            .as_u16(),
        429
    );
    let page = get(&app, QUALITY, Some(&pair)).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("graded games"));
    assert_eq!(get(&app, &diagram, Some(&pair)).await.status, 200);
}

// ---- Sign-ins from another site ----

#[tokio::test]
async fn a_sign_in_posted_from_another_site_is_a_403_page_without_a_session() {
    let (app, _) = app_with_clock().await;
    let own = app.address.clone();
    let token = crate::helpers::demo_sign_in_link(&app, fixture_now()).await;
    let link = format!("/portal/link/{token}");
    let keys_before = demo_keys(&app).await.len();
    for headers in [
        vec![("Origin", "https://evil.example")],
        vec![("Origin", "null")],
        vec![("Sec-Fetch-Site", "cross-site")],
        vec![("Origin", own.as_str()), ("Sec-Fetch-Site", "cross-site")],
        vec![("Origin", "http://127.0.0.1:1")],
    ] {
        let res = post_with(&app, "/portal/sign-in", None, &[("api_key", &app.api_key)], &headers).await;
        assert_eq!(res.status, 403, "{headers:?}: {}", res.body);
        assert!(res.header("set-cookie").is_none());
        assert!(res.header("content-type").unwrap().starts_with("text/html"));
        assert_eq!(res.header("content-security-policy"), Some(CSP));
        assert_eq!(res.header("x-frame-options"), Some("DENY"));
        assert!(res.body.contains("sent from another site"), "{}", res.body);
        let res = post_with(&app, &link, None, &[], &headers).await;
        assert_eq!(res.status, 403, "{headers:?}");
        assert!(res.header("set-cookie").is_none());
    }
    assert_eq!(demo_keys(&app).await.len(), keys_before, "no key was issued");
    assert_eq!(get(&app, &link, None).await.status, 200, "the link is unused");

    // From the server's own host (LINECAST_PUBLIC_URL unset), or with no
    // header at all (not a browser), a sign-in goes through.
    for headers in [
        vec![("Origin", own.as_str()), ("Sec-Fetch-Site", "same-origin")],
        vec![],
    ] {
        let res = post_with(&app, "/portal/sign-in", None, &[("api_key", &app.api_key)], &headers).await;
        assert_eq!(res.status, 303, "{headers:?}: {}", res.body);
    }
    let res = post_with(&app, &link, None, &[], &[("Origin", own.as_str())]).await;
    assert_eq!(res.status, 303, "{}", res.body);
}

#[tokio::test]
async fn with_a_public_url_a_sign_in_must_come_from_its_origin() {
    let app = spawn_app_configured(
        fixture_now(),
        |_| {},
        |s| s.portal_origin = Some("https://portal.example.com".to_owned()),
    )
    .await;
    let own = app.address.clone();
    // The request's own host is not enough once the public URL is set.
    for origin in [own.as_str(), "http://portal.example.com", "https://evil.example"] {
        let res = post_with(
            &app,
            "/portal/sign-in",
            None,
            &[("api_key", &app.api_key)],
            &[("Origin", origin)],
        )
        .await;
        assert_eq!(res.status, 403, "{origin}");
    }
    let res = post_with(
        &app,
        "/portal/sign-in",
        None,
        &[("api_key", &app.api_key)],
        &[
            ("Origin", "https://portal.example.com"),
            ("Sec-Fetch-Site", "same-origin"),
        ],
    )
    .await;
    assert_eq!(res.status, 303, "{}", res.body);
}

// ---- The sign-in throttle pays first ----

/// 64 failed sign-ins at once from one address pass no more than the
/// failed-key limit lets through: its burst, plus the tokens it refills
/// while they are answered (measured, so a slow machine widens the bound
/// by exactly what it adds), plus one.
#[tokio::test]
async fn sixty_four_concurrent_failed_sign_ins_stay_within_the_failed_key_limit() {
    const RATE: u32 = 2;
    const BURST: u32 = 5;
    let app = spawn_app_configured(
        fixture_now(),
        |_| {},
        |s| {
            s.auth_failure_rate = RATE;
            s.auth_failure_burst = BURST;
        },
    )
    .await;
    let wrong = format!("sk_service_{}", "w".repeat(40));
    let body = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("api_key", &wrong)
        .finish();
    // One client made before the clock starts (making one per request
    // would space the requests out), so the 64 go out together.
    let client = browser();
    let url = format!("{}/portal/sign-in", app.address);
    let started = std::time::Instant::now();
    let statuses = futures::future::join_all((0..64).map(|_| async {
        client
            .post(&url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body.clone())
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }))
    .await;
    let elapsed = started.elapsed().as_secs_f64();
    let checked = statuses.iter().filter(|&&s| s == 401).count();
    let refused = statuses.iter().filter(|&&s| s == 429).count();
    assert_eq!(checked + refused, 64, "{statuses:?}");
    let bound = BURST as usize + (f64::from(RATE) * elapsed).ceil() as usize + 1;
    assert!(
        checked <= bound,
        "{checked} failed checks in {elapsed:.2}s; the limit allows {bound}"
    );
    assert!(checked >= BURST as usize, "the burst is checked: {statuses:?}");
}

#[tokio::test]
async fn a_good_sign_in_gives_its_token_back() {
    let app = spawn_app_configured(
        fixture_now(),
        |_| {},
        |s| {
            // A burst of 2 and one token a second: 20 sign-ins in a row
            // pass only if each good one gives its token back (or if they
            // take over 18 s, which no machine here does).
            s.auth_failure_rate = 1;
            s.auth_failure_burst = 2;
        },
    )
    .await;
    for _ in 0..20 {
        let res = post(&app, "/portal/sign-in", None, &[("api_key", &app.api_key)]).await;
        assert_eq!(res.status, 303, "{}", res.body);
    }
    let wrong = format!("sk_service_{}", "w".repeat(40));
    assert_eq!(
        post(&app, "/portal/sign-in", None, &[("api_key", &wrong)]).await.status,
        401
    );
}

// ---- A sign-in ends the browser's session ----

#[tokio::test]
async fn signing_in_with_a_key_or_a_link_ends_the_session_the_browser_presented() {
    let (app, _) = app_with_clock().await;
    let (_, first) = sign_in(&app, &app.api_key).await;
    let (_, bystander) = sign_in(&app, &app.api_key).await;
    // A failed sign-in leaves the session as it was.
    let wrong = format!("sk_service_{}", "w".repeat(40));
    assert_eq!(
        post(&app, "/portal/sign-in", Some(&first), &[("api_key", &wrong)])
            .await
            .status,
        401
    );
    assert_eq!(get(&app, "/portal/overview", Some(&first)).await.status, 200);

    let res = post(&app, "/portal/sign-in", Some(&first), &[("api_key", &app.api_key)]).await;
    assert_eq!(res.status, 303);
    let second = res.header("set-cookie").unwrap().split(';').next().unwrap().to_owned();
    assert_ne!(second, first);
    let old = get(&app, "/portal/overview", Some(&first)).await;
    assert_eq!(
        (old.status, old.header("location")),
        (303, Some("/portal?ended=1&next=%2Fportal%2Foverview"))
    );
    assert_eq!(get(&app, "/portal/overview", Some(&second)).await.status, 200);

    let token = crate::helpers::demo_sign_in_link(&app, fixture_now()).await;
    let used = post(&app, &format!("/portal/link/{token}"), Some(&second), &[]).await;
    assert_eq!(used.status, 303, "{}", used.body);
    let third = used.header("set-cookie").unwrap().split(';').next().unwrap().to_owned();
    assert_eq!(get(&app, "/portal/overview", Some(&second)).await.status, 303);
    assert_eq!(get(&app, "/portal/overview", Some(&third)).await.status, 200);
    // Another browser's session is not touched.
    assert_eq!(get(&app, "/portal/overview", Some(&bystander)).await.status, 200);
}

// ---- A link for an account it cannot sign in stays unused ----

#[tokio::test]
async fn a_sign_in_link_for_an_account_without_api_access_is_refused_before_it_is_used() {
    let (app, _) = app_with_clock().await;
    for (email, tier, status, why) in [
        (
            "free@example.com",
            "free",
            SubscriptionStatus::Active,
            "plan has no API access",
        ),
        (
            "canceled@example.com",
            "ai",
            SubscriptionStatus::Canceled,
            "subscription is canceled",
        ),
    ] {
        let (customer, _) = customer_of(&app, email, tier, status, 1_000).await;
        let token =
            linecast_core::services::portal::create_sign_in_link(app.ports.sessions.as_ref(), customer, fixture_now())
                .await
                .unwrap();
        let path = format!("/portal/link/{token}");
        let ask = get(&app, &path, None).await;
        assert_eq!(ask.status, 403, "{}", ask.body);
        assert!(ask.body.contains(why), "{}", ask.body);
        assert!(!ask.body.contains(">Sign in</button>"));
        let res = post(&app, &path, None, &[]).await;
        assert_eq!(res.status, 403, "{email}: {}", res.body);
        assert!(res.body.contains(why), "{}", res.body);
        assert!(res.body.contains("has not been used"));
        assert!(res.header("set-cookie").is_none());
        assert_eq!(full_key_in(&res.body), None);
        let keys = app.ports.accounts.list_keys(customer).await.unwrap();
        assert_eq!(keys.len(), 1, "{email}: no key was issued");
        let hash = hex::encode(Sha256::digest(token.as_bytes()));
        assert_eq!(
            app.ports.sessions.peek_link(&hash, fixture_now()).await.unwrap(),
            Some(customer),
            "{email}: the link is unused"
        );
    }
    // Put right, the same link works.
    app.ports
        .accounts
        .set_subscription("canceled@example.com", SubscriptionStatus::Active)
        .await
        .unwrap();
    let customer = app
        .ports
        .accounts
        .find_customer_by_email("canceled@example.com")
        .await
        .unwrap()
        .unwrap();
    let token = linecast_core::services::portal::create_sign_in_link(
        app.ports.sessions.as_ref(),
        customer.customer_id,
        fixture_now(),
    )
    .await
    .unwrap();
    let used = post(&app, &format!("/portal/link/{token}"), None, &[]).await;
    assert_eq!(used.status, 303, "{}", used.body);
    let pair = used.header("set-cookie").unwrap().split(';').next().unwrap().to_owned();
    assert!(full_key_in(&get(&app, "/portal/keys", Some(&pair)).await.body).is_some());
}

// ---- The portal's 404 and 405 are pages ----

/// Pages go out as API bodies do: a strong ETag answered with 304 (with the
/// security headers still on), and gzip when the client asks, whose bytes
/// inflate to the page itself.
#[tokio::test]
async fn pages_have_an_etag_answer_304_and_come_compressed_when_asked() {
    use std::io::Read as _;
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    for path in [
        "/portal/overview",
        "/portal/keys",
        "/portal/data",
        "/portal/static/portal.css",
        "/status",
    ] {
        let send = |extra: Vec<(&'static str, String)>| {
            let mut req = browser().get(format!("{}{path}", app.address)).header("Cookie", &pair);
            for (name, value) in extra {
                req = req.header(name, value);
            }
            req
        };
        let first = to_res(send(vec![]).send().await.unwrap()).await;
        assert_eq!(first.status, 200, "{path}");
        let tag = first
            .header("etag")
            .unwrap_or_else(|| panic!("{path}: no ETag"))
            .to_owned();
        assert!(tag.starts_with('"') && tag.ends_with('"'), "{path}: {tag}");
        assert_eq!(first.header("vary"), Some("Accept-Encoding"), "{path}");
        assert_eq!(first.header("content-security-policy"), Some(CSP), "{path}");
        let again = to_res(send(vec![("If-None-Match", tag.clone())]).send().await.unwrap()).await;
        assert_eq!(again.status, 304, "{path}");
        assert!(again.body.is_empty(), "{path}");
        assert_eq!(again.header("content-security-policy"), Some(CSP), "{path}");
        let other = to_res(
            send(vec![("If-None-Match", "\"other\"".to_owned())])
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(other.status, 200, "{path}");
        let zipped = send(vec![("Accept-Encoding", "gzip".to_owned())]).send().await.unwrap();
        assert_eq!(zipped.status().as_u16(), 200, "{path}");
        assert_eq!(
            zipped.headers().get("content-encoding").and_then(|v| v.to_str().ok()),
            Some("gzip"),
            "{path}"
        );
        let bytes = zipped.bytes().await.unwrap();
        let mut inflated = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut inflated)
            .unwrap();
        assert_eq!(inflated, first.body, "{path}: the same page");
    }
}

fn assert_portal_page_headers(res: &Res, what: &str) {
    assert!(
        res.header("content-type").is_some_and(|t| t.starts_with("text/html")),
        "{what}: {:?}",
        res.headers
    );
    assert_eq!(res.header("content-security-policy"), Some(CSP), "{what}");
    assert_eq!(res.header("x-frame-options"), Some("DENY"), "{what}");
    assert_eq!(res.header("referrer-policy"), Some("no-referrer"), "{what}");
    assert_eq!(res.header("cache-control"), Some("no-store"), "{what}");
}

async fn send(app: &TestApp, method: &str, path: &str, cookie: Option<&str>) -> Res {
    let mut req = browser().request(method.parse().unwrap(), format!("{}{path}", app.address));
    if let Some(c) = cookie {
        req = req.header("Cookie", c);
    }
    to_res(req.send().await.unwrap()).await
}

#[tokio::test]
async fn unknown_portal_paths_and_wrong_methods_are_portal_pages() {
    let (app, _) = app_with_clock().await;
    for path in [
        "/portal/nothing",
        "/portal/",
        "/portal/keys/nothing",
        "/portal/static/x.css",
    ] {
        let res = get(&app, path, None).await;
        assert_eq!(res.status, 404, "{path}");
        assert_portal_page_headers(&res, path);
        assert!(res.body.contains("There is no such page."), "{}", res.body);
        assert!(!res.body.contains("HTTP_404"));
        assert!(
            res.body.contains("<nav aria-label=\"Portal\"") && res.body.contains("<a href=\"/portal/keys\">Keys</a>"),
            "the portal's navigation: {}",
            res.body
        );
    }
    // An extractor's refusal (a malformed query) is a portal page too.
    let (_, early) = sign_in(&app, &app.api_key).await;
    let res = get(&app, "/portal/keys/revoke?key_id=1&key_id=2", Some(&early)).await;
    assert_eq!(res.status, 400, "{}", res.body);
    assert_portal_page_headers(&res, "a malformed query");
    assert!(res.body.contains("could not be read"), "{}", res.body);
    let (_, pair) = sign_in(&app, &app.api_key).await;
    for (method, path, cookie, allow) in [
        ("PUT", "/portal/sign-in", None, "POST"),
        ("GET", "/portal/sign-in", None, "POST"),
        ("HEAD", "/portal", None, "GET"),
        ("OPTIONS", "/portal", None, "GET"),
        ("DELETE", "/status", None, "GET"),
        ("PUT", "/portal/overview", Some(pair.as_str()), "GET"),
        ("HEAD", "/portal/quality", Some(pair.as_str()), "GET"),
    ] {
        let res = send(&app, method, path, cookie).await;
        let what = format!("{method} {path}");
        assert_eq!(res.status, 405, "{what}: {}", res.body);
        assert_eq!(res.header("allow"), Some(allow), "{what}");
        assert_portal_page_headers(&res, &what);
        if method != "HEAD" {
            assert!(res.body.contains(&format!("does not answer {method}")), "{}", res.body);
        }
    }
    // The API's own stay JSON.
    let res = get(&app, "/portalx", None).await;
    assert_eq!(res.status, 404);
    assert!(res.header("content-type").unwrap().starts_with("application/json"));
    let res = send(&app, "PUT", "/api/v1/health", None).await;
    assert_eq!(res.status, 405);
    assert!(res.header("content-type").unwrap().starts_with("application/json"));
}

#[tokio::test]
async fn reloading_after_a_form_repeats_nothing_and_shows_a_new_key_once() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (_, token) = keys_page(&app, &pair).await;
    let before = demo_keys(&app).await.len();
    let res = post(
        &app,
        "/portal/keys/create",
        Some(&pair),
        &[("csrf", &token), ("name", "reload"), ("expires", "never")],
    )
    .await;
    assert_eq!((res.status, res.header("location")), (303, Some("/portal/keys")));
    assert_eq!(full_key_in(&res.body), None, "the POST's answer holds no key");
    assert!(res.header("set-cookie").is_none(), "no key in a cookie");
    // The flash is stored sealed: the key is nowhere in the database file.
    let first = get(&app, "/portal/keys", Some(&pair)).await;
    let key = full_key_in(&first.body).expect("shown by the first GET");
    assert_eq!(demo_keys(&app).await.len(), before + 1);
    // Reloading (the same GET) and going back show it no more and create nothing.
    for _ in 0..3 {
        let again = get(&app, "/portal/keys", Some(&pair)).await;
        assert_eq!(again.status, 200);
        assert_eq!(full_key_in(&again.body), None);
    }
    assert_eq!(demo_keys(&app).await.len(), before + 1);
    assert_eq!(sports_status(&app, &key).await, 200);
    // A flash is the session's and its page's: another session, or the
    // Data page, never takes it.
    let res = post(
        &app,
        "/portal/keys/create",
        Some(&pair),
        &[("csrf", &token), ("name", "other"), ("expires", "never")],
    )
    .await;
    assert_eq!(res.status, 303);
    let (_, other) = sign_in(&app, &app.api_key).await;
    assert_eq!(full_key_in(&get(&app, "/portal/keys", Some(&other)).await.body), None);
    assert_eq!(full_key_in(&get(&app, "/portal/data", Some(&pair)).await.body), None);
    assert!(full_key_in(&get(&app, "/portal/keys", Some(&pair)).await.body).is_some());
}

#[tokio::test]
async fn an_ended_session_signs_in_again_and_returns_to_the_page_asked_for_on_this_site_only() {
    let (app, clock) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    clock.set(fixture_now() + Duration::minutes(31));
    let res = get(&app, "/portal/keys", Some(&pair)).await;
    assert_eq!(
        (res.status, res.header("location")),
        (303, Some("/portal?ended=1&next=%2Fportal%2Fkeys"))
    );
    let page = get(&app, "/portal?ended=1&next=%2Fportal%2Fkeys", None).await;
    assert!(
        page.body.contains("Your session ended; sign in again."),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("name=\"next\" value=\"/portal/keys\""),
        "{}",
        page.body
    );
    let res = post(
        &app,
        "/portal/sign-in",
        None,
        &[("api_key", &app.api_key), ("next", "/portal/keys")],
    )
    .await;
    assert_eq!((res.status, res.header("location")), (303, Some("/portal/keys")));
    // A form posted after the session ended returns to its page, repeating nothing.
    let res = post(
        &app,
        "/portal/keys/create",
        Some(&pair),
        &[("csrf", "x"), ("name", "n")],
    )
    .await;
    assert_eq!(
        (res.status, res.header("location")),
        (303, Some("/portal?ended=1&next=%2Fportal%2Fkeys"))
    );
    // Never another site, whatever `next` says.
    for next in [
        "https://evil.example/",
        "//evil.example/portal",
        "/portal/../x",
        "/\\evil.example",
    ] {
        let page = get(&app, &format!("/portal?next={}", urlencode(next)), None).await;
        assert!(!page.body.contains("name=\"next\""), "{next}: {}", page.body);
        let res = post(
            &app,
            "/portal/sign-in",
            None,
            &[("api_key", &app.api_key), ("next", next)],
        )
        .await;
        assert_eq!(res.header("location"), Some("/portal/overview"), "{next}");
    }
    // A refused sign-in keeps `next`, never the key, and says why beside the field.
    let wrong = format!("sk_service_{}", "q".repeat(40));
    let res = post(
        &app,
        "/portal/sign-in",
        None,
        &[("api_key", &wrong), ("next", "/portal/data")],
    )
    .await;
    assert_eq!(res.status, 401);
    assert!(res.body.contains("id=\"api_key-error\""), "{}", res.body);
    assert!(res.body.contains("value=\"/portal/data\""));
    assert!(!res.body.contains(&wrong));
}

fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

// ---- Model quality: the season list follows the sport ----

/// The options of the `<select id="{id}">` of a page: (value, label,
/// selected, data-seasons).
fn select_options(page: &str, id: &str) -> Vec<(String, String, bool, String)> {
    let open = format!("<select id=\"{id}\"");
    let at = page.find(&open).unwrap_or_else(|| panic!("no {id} select in {page}"));
    let select = &page[at..at + page[at..].find("</select>").unwrap()];
    select
        .split("<option ")
        .skip(1)
        .map(|option| {
            let attr = |name: &str| {
                let needle = format!("{name}=\"");
                option
                    .find(&needle)
                    .map(|i| option[i + needle.len()..].split('"').next().unwrap().to_owned())
                    .unwrap_or_default()
            };
            let tag_end = option.find('>').unwrap();
            let label = option[tag_end + 1..].split('<').next().unwrap().to_owned();
            (
                attr("value"),
                label,
                option[..tag_end].contains(" selected"),
                attr("data-seasons"),
            )
        })
        .collect()
}

/// The API's season list of a sport and market: (seasons newest first,
/// current season).
async fn api_seasons(app: &TestApp, sport: &str, market: &str) -> (Vec<String>, String) {
    let (status, body) = app
        .get_authed_json(&format!("/api/v1/results/{sport}/{market}/seasons"))
        .await;
    assert_eq!(status, 200, "{body}");
    let seasons = body["seasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect();
    (seasons, body["current_season"].as_str().unwrap().to_owned())
}

/// The `<h2>` over the diagram: "SPORT Market season (source): n graded games".
fn quality_heading(page: &str) -> String {
    let at = page.find("<h2 id=\"diagram-title\">").expect("the figures") + "<h2 id=\"diagram-title\">".len();
    page[at..].split('<').next().unwrap().to_owned()
}

/// What the form sends when the sport is changed without the script: the
/// season list of the sport before. MLB with an NBA season and NBA with an
/// MLB season each show the sport's current season, with a note saying
/// so; the season list is the chosen sport's, and each sport's option
/// carries its own list for the script. No page is a bare error.
#[tokio::test]
async fn model_quality_falls_back_to_the_sports_current_season_when_the_season_is_another_sports() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let (nba_seasons, nba_current) = api_seasons(&app, "nba", "won_on_spread").await;
    let (mlb_seasons, mlb_current) = api_seasons(&app, "mlb", "won_on_spread").await;
    assert!(nba_current.contains('-') && !mlb_current.contains('-'));

    for (sport, asked, seasons, current) in [
        ("mlb", nba_current.as_str(), &mlb_seasons, &mlb_current),
        ("nba", mlb_current.as_str(), &nba_seasons, &nba_current),
    ] {
        let path = format!("/portal/quality?sport={sport}&market=won_on_spread&season={asked}&source=all");
        let res = get(&app, &path, Some(&pair)).await;
        assert_eq!(res.status, 200, "{path}: {}", res.body);
        let upper = sport.to_uppercase();
        assert!(
            res.body.contains(&format!(
                "{asked} is not a season of {upper} Point Spread; showing {current}, its current season."
            )),
            "{path}: {}",
            res.body
        );
        assert!(
            quality_heading(&res.body).starts_with(&format!("{upper} Point Spread {current} (all)")),
            "{}",
            quality_heading(&res.body)
        );
        // The season list is the sport's: its current season first, then
        // its seasons, the current one chosen.
        let listed = select_options(&res.body, "season");
        let mut expected = vec![(String::new(), "Current season".to_owned(), true, String::new())];
        expected.extend(seasons.iter().map(|s| (s.clone(), s.clone(), false, String::new())));
        assert_eq!(listed, expected, "{path}");
        // Every sport's option carries its seasons for the script.
        for (value, _, selected, carried) in select_options(&res.body, "sport") {
            let (theirs, _) = api_seasons(&app, &value, "won_on_spread").await;
            assert_eq!(carried, theirs.join(" "), "{value}");
            assert_eq!(selected, value == sport);
        }
        assert!(
            res.body
                .contains("<script src=\"/portal/static/quality.js\" defer></script>")
        );
        assert!(res.body.contains(">Sign out</button>"));
    }

    // A season of the sport is shown as asked, chosen in the list, with no note.
    let older = mlb_seasons.last().unwrap();
    let res = get(
        &app,
        &format!("/portal/quality?sport=mlb&market=won_on_spread&season={older}&source=all"),
        Some(&pair),
    )
    .await;
    assert_eq!(res.status, 200, "{}", res.body);
    assert!(!res.body.contains("is not a season of"), "{}", res.body);
    assert!(quality_heading(&res.body).starts_with(&format!("MLB Point Spread {older} (all)")));
    let chosen: Vec<_> = select_options(&res.body, "season")
        .into_iter()
        .filter(|o| o.2)
        .map(|o| o.0)
        .collect();
    assert_eq!(chosen, vec![older.clone()]);
    // A well-formed season without data falls back too.
    let res = get(
        &app,
        "/portal/quality?sport=mlb&market=won_on_spread&season=1999",
        Some(&pair),
    )
    .await;
    assert_eq!(res.status, 200, "{}", res.body);
    assert!(res.body.contains(&format!(
        "1999 is not a season of MLB Point Spread; showing {mlb_current}, its current season."
    )));

    // The script is served, as a script, and reads each option's seasons.
    let script = get(&app, "/portal/static/quality.js", None).await;
    assert_eq!(script.status, 200);
    assert!(script.header("content-type").unwrap().starts_with("text/javascript"));
    assert!(script.body.contains("data-seasons"));
}

/// A choice the form does not offer is the page again, its choices and
/// navigation with it, saying what was wrong; so is any error in the
/// portal shown to a signed-in customer: never a page without Sign out.
#[tokio::test]
async fn portal_errors_are_pages_with_the_customers_navigation_and_sign_out() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let bad = get(&app, "/portal/quality?sport=cricket&season=2026-27", Some(&pair)).await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert!(bad.body.contains("Invalid sport"), "{}", bad.body);
    assert!(bad.body.contains(">Show</button>"), "the choices stay: {}", bad.body);
    let csrf = csrf_of(&bad.body);
    // Error pages made by handlers (a diagram of a season that is not the
    // sport's, a sport there is not) and by the dispatcher (a
    // method the page does not answer).
    for (method, path) in [
        (
            "GET",
            "/portal/quality/diagram.svg?sport=mlb&market=won_on_points&season=2026-27",
        ),
        ("GET", "/portal/quality/diagram.svg?sport=cricket"),
        ("DELETE", "/portal/overview"),
    ] {
        let res = send(&app, method, path, Some(&pair)).await;
        assert!(res.status >= 400, "{path}: {}", res.status);
        assert_portal_page_headers(&res, path);
        assert!(res.body.contains(">Sign out</button>"), "{path}: {}", res.body);
        assert_eq!(csrf_of(&res.body), csrf, "{path}: the session's own token");
        assert!(res.body.contains("aria-label=\"Portal\""), "{path}");
        // The sign-out form works from the error page.
        assert_no_inline_script_or_style(&res.body);
    }
    // Signed out, an error page has the navigation but no Sign out.
    let res = get(&app, "/portal/no-such-page", None).await;
    assert_eq!(res.status, 404);
    assert!(res.body.contains("aria-label=\"Portal\""));
    assert!(!res.body.contains("Sign out"), "{}", res.body);
    let out = post(&app, "/portal/sign-out", Some(&pair), &[("csrf", &csrf)]).await;
    assert_eq!(out.status, 303);
}

/// The Webhooks page: every form needs the session's CSRF token; a refused
/// URL comes back with its message and what was typed; a created
/// endpoint's secret is shown once; a test event's attempt is listed;
/// disable, enable and a confirmed delete do what they say.
#[tokio::test]
async fn the_webhooks_page_manages_endpoints_shows_a_secret_once_and_every_form_needs_the_csrf_token() {
    let app = spawn_app_configured(
        fixture_now(),
        |_| {},
        |s| {
            s.webhooks.allow_loopback = true;
            s.webhooks.interval = std::time::Duration::from_millis(50);
        },
    )
    .await;
    let customer = crate::helpers::demo_customer(&app).await.customer_id;
    let store = app.state.webhooks.store().clone();
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let page = get(&app, "/portal/webhooks", Some(&pair)).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("You have no endpoints."), "{}", page.body);
    let token = csrf_of(&page.body);
    for path in ["create", "test", "rotate", "enable", "delete", "recover", "resend"] {
        for forged in [None, Some("forged")] {
            let mut form = vec![("url", "http://127.0.0.1:9/hook"), ("event_type", "release.published")];
            if let Some(t) = forged {
                form.push(("csrf", t));
            }
            let res = post(&app, &format!("/portal/webhooks/{path}"), Some(&pair), &form).await;
            assert_eq!(res.status, 403, "{path} {forged:?}");
        }
    }
    assert!(
        store.endpoints(customer).await.unwrap().is_empty(),
        "no form changed anything"
    );

    let refused = post_follow(
        &app,
        "/portal/webhooks/create",
        &pair,
        &[
            ("csrf", &token),
            ("url", "ftp://127.0.0.1/x"),
            ("event_type", "release.published"),
        ],
    )
    .await;
    assert!(
        refused.body.contains("That URL is refused (scheme)"),
        "{}",
        refused.body
    );
    assert!(
        refused.body.contains("value=\"ftp://127.0.0.1/x\""),
        "what was typed is kept"
    );

    let created = post_follow(
        &app,
        "/portal/webhooks/create",
        &pair,
        &[
            ("csrf", &token),
            ("url", "http://127.0.0.1:9/hook"),
            ("event_type", "release.published"),
            ("event_type", "quota.threshold"),
            ("sport", "nba"),
        ],
    )
    .await;
    let at = created.body.find("whsec_").expect("the secret is shown");
    let secret: String = created.body[at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '/' | '='))
        .collect();
    let endpoints = store.endpoints(customer).await.unwrap();
    assert_eq!(endpoints.len(), 1);
    let endpoint = &endpoints[0];
    assert_eq!(endpoint.secret, secret, "the secret shown is the endpoint's");
    assert_eq!(endpoint.event_types, vec!["release.published", "quota.threshold"]);
    assert_eq!(endpoint.sports, vec!["nba"]);
    let again = get(&app, "/portal/webhooks", Some(&pair)).await;
    assert!(!again.body.contains(&secret), "a reload does not show the secret again");
    assert!(again.body.contains(&endpoint.id));

    let id = endpoint.id.clone();
    let tested = post_follow(
        &app,
        "/portal/webhooks/test",
        &pair,
        &[("csrf", &token), ("endpoint_id", &id)],
    )
    .await;
    assert!(tested.body.contains("A test event"), "{}", tested.body);
    let deadline = std::time::Instant::now() + std::time::Duration::from_mins(2);
    while store.attempts(customer, &id, 10).await.unwrap().is_empty() {
        assert!(std::time::Instant::now() < deadline, "no attempt logged");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let listed = get(&app, "/portal/webhooks", Some(&pair)).await;
    assert!(
        listed.body.contains("connect:"),
        "the failed attempt is listed: {}",
        listed.body
    );
    assert!(listed.body.contains("Resend delivery"), "{}", listed.body);

    let disabled = post_follow(
        &app,
        "/portal/webhooks/enable",
        &pair,
        &[("csrf", &token), ("endpoint_id", &id), ("enabled", "false")],
    )
    .await;
    assert!(disabled.body.contains(&format!("Disabled {id}.")), "{}", disabled.body);
    assert!(!store.endpoint(customer, &id).await.unwrap().unwrap().enabled);
    post_follow(
        &app,
        "/portal/webhooks/enable",
        &pair,
        &[("csrf", &token), ("endpoint_id", &id), ("enabled", "true")],
    )
    .await;
    assert!(store.endpoint(customer, &id).await.unwrap().unwrap().enabled);

    let unconfirmed = post_follow(
        &app,
        "/portal/webhooks/delete",
        &pair,
        &[("csrf", &token), ("endpoint_id", &id)],
    )
    .await;
    assert!(unconfirmed.body.contains("Tick the box"), "{}", unconfirmed.body);
    assert_eq!(store.endpoints(customer).await.unwrap().len(), 1);
    let deleted = post_follow(
        &app,
        "/portal/webhooks/delete",
        &pair,
        &[("csrf", &token), ("endpoint_id", &id), ("confirm", "yes")],
    )
    .await;
    assert!(deleted.body.contains(&format!("Deleted {id}")), "{}", deleted.body);
    assert!(store.endpoints(customer).await.unwrap().is_empty());
}
