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
    reqwest::Client::builder()
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

async fn to_res(res: reqwest::Response) -> Res {
    Res {
        status: res.status().as_u16(),
        headers: res.headers().clone(),
        body: res.text().await.unwrap_or_default(),
    }
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
    assert_eq!((res.status, res.header("location")), (303, Some("/portal")));
    let forged = format!("linecast_portal={}", "a".repeat(64));
    let res = get(&app, "/portal/overview", Some(&forged)).await;
    assert_eq!((res.status, res.header("location")), (303, Some("/portal")));
    let res = post(&app, "/portal/sign-out", None, &[("csrf", "x")]).await;
    assert_eq!(res.status, 403);
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
    assert_eq!((res.status, res.header("location")), (303, Some("/portal")));
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

    let demo = app
        .ports
        .accounts
        .find_customer_by_email(linecast_core::services::customers::DEMO_EMAIL)
        .await
        .unwrap()
        .unwrap();
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
    let res = get(&app, "/status", None).await;
    assert_eq!(res.status, 200, "{}", res.body);
    assert_eq!(res.header("content-security-policy"), Some(CSP));
    for sport in ["nba", "nhl", "mlb", "nfl", "ncaab", "ncaaf"] {
        assert!(res.body.contains(&format!("<td>{sport}</td>")), "{sport}");
    }
    assert!(res.body.contains("Service status"));
}

/// A new active customer with `monthly_limit` and one key: its id and key.
async fn customer_with_key(app: &TestApp, email: &str, monthly_limit: u64) -> (i64, String) {
    let customer = app
        .ports
        .accounts
        .create_customer(
            linecast_core::NewCustomer {
                email: email.into(),
                name: "Small Plan".into(),
                tier: "ai".into(),
                api_plan: Some("ai".into()),
                subscription_status: SubscriptionStatus::Active,
                monthly_limit,
            },
            fixture_now(),
        )
        .await
        .unwrap();
    let key = linecast_core::ports::accounts::generate_key().unwrap();
    crate::helpers::seed_key(
        app.ports.accounts.as_ref(),
        linecast_core::NewApiKey {
            customer_id: customer.customer_id,
            key_hash: linecast_core::ports::accounts::hash_key(&key),
            display_prefix: linecast_core::ports::accounts::display_prefix(&key).unwrap().to_owned(),
            name: "small".into(),
            tier: "ai".into(),
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
    }
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

#[tokio::test]
async fn the_data_page_shows_every_sport_and_refresh_signs_links_with_the_csrf_token() {
    let (app, _) = app_with_clock().await;
    let (_, pair) = sign_in(&app, &app.api_key).await;
    let page = get(&app, "/portal/data", Some(&pair)).await;
    assert_eq!(page.status, 200, "{}", page.body);
    for sport in ["nba", "nhl", "mlb", "nfl", "ncaab", "ncaaf"] {
        assert!(page.body.contains(&format!("<tr><td>{sport}</td>")), "{sport}");
    }
    assert!(
        page.body
            .contains("/api/v1/results/nba/won_on_points/export?season=all&amp;format=csv")
    );
    assert!(page.body.contains(">Refresh</button>"));
    assert!(page.body.contains("0 of 8 used"), "{}", page.body);
    let token = csrf_of(&page.body);
    // Without the token nothing is consumed.
    assert_eq!(post(&app, "/portal/data/refresh", Some(&pair), &[]).await.status, 403);
    let refreshed = post(&app, "/portal/data/refresh", Some(&pair), &[("csrf", &token)]).await;
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
}
