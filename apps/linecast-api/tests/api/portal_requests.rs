//! The portal's Requests page: the request log's rows match the API calls
//! made, the log never holds a key, the filters and the CSV narrow the same
//! rows, and the log keeps its retention and its per-day cap.

use std::sync::Arc;

use chrono::Duration;
use linecast_core::ports::request_log::{LoggedRequest, Method, RequestId, RouteTemplate};
use linecast_core::services::request_log::DAILY_CAP;
use linecast_core::{Clock, ManualClock};
use reqwest::redirect::Policy;

use crate::helpers::{TestApp, demo_customer, fixture_now, spawn_app_configured};

fn browser() -> reqwest::Client {
    crate::helpers::http_client()
        .redirect(Policy::none())
        .no_gzip()
        .no_brotli()
        .build()
        .unwrap()
}

async fn app_with(days: u32) -> (TestApp, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(fixture_now()));
    let for_app = clock.clone();
    let app = spawn_app_configured(
        fixture_now(),
        |_| {},
        move |s| {
            s.manual_clock = Some(for_app);
            s.request_log_days = days;
        },
    )
    .await;
    (app, clock)
}

async fn sign_in(app: &TestApp, key: &str) -> String {
    let res = browser()
        .post(format!("{}/portal/sign-in", app.address))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(
            url::form_urlencoded::Serializer::new(String::new())
                .append_pair("api_key", key)
                .finish(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    let set = res.headers()["set-cookie"].to_str().unwrap().to_owned();
    set.split(';').next().unwrap().to_owned()
}

async fn page(app: &TestApp, cookie: &str, path: &str) -> (u16, String, reqwest::header::HeaderMap) {
    let res = browser()
        .get(format!("{}{path}", app.address))
        .header("Cookie", cookie)
        .send()
        .await
        .unwrap();
    let (status, headers) = (res.status().as_u16(), res.headers().clone());
    (status, res.text().await.unwrap(), headers)
}

/// One API call: (method, path, key in a header or in `?api_key=`), with
/// the client's own `X-Request-Id` when `id` is given. Returns the status
/// and the `X-Request-Id` answered.
async fn call(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    key: &str,
    in_query: bool,
    id: Option<&str>,
) -> (u16, String) {
    let url = if in_query {
        format!("{}{path}?api_key={key}", app.address)
    } else {
        format!("{}{path}", app.address)
    };
    let mut req = browser().request(method, url);
    if !in_query {
        req = req.header("X-API-Key", key);
    }
    if let Some(id) = id {
        req = req.header("X-Request-Id", id);
    }
    let res = req.send().await.unwrap();
    let answered = res.headers()["x-request-id"].to_str().unwrap().to_owned();
    (res.status().as_u16(), answered)
}

/// The `X-Request-Id` one call of [`world`] sends itself.
const CLIENT_ID: &str = "client-chosen.id:7";

/// One logged call: (key label, method, route template, status).
type Call = (String, String, String, u16);

/// The CSV's rows as (key, method, route, status), sorted.
fn csv_rows(body: &str) -> Vec<Call> {
    let mut lines = body.lines();
    assert_eq!(
        lines.next(),
        Some("time_utc,key,method,route,status,duration_ms,request_id")
    );
    let mut rows: Vec<_> = lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 7, "{line}");
            assert!(!f[6].is_empty(), "a request id: {line}");
            (f[1].to_owned(), f[2].to_owned(), f[3].to_owned(), f[4].parse().unwrap())
        })
        .collect();
    rows.sort();
    rows
}

/// The requests a per-day table of the page counts: the sum of its rows'
/// last cells (the table headed by the element with id `title`).
fn table_sum(html: &str, title: &str) -> u64 {
    let at = html.find(&format!("id=\"{title}\"")).expect("the table");
    let section = &html[at..];
    let table = &section[..section.find("</table>").unwrap()];
    table
        .split("</tr>")
        .filter_map(|row| row.rsplit("<td>").next()?.strip_suffix("</td>")?.parse::<u64>().ok())
        .sum()
}

fn body_of(key: &str) -> &str {
    key.strip_prefix("sk_service_").unwrap()
}

struct World {
    app: TestApp,
    cookie: String,
    keys: Vec<String>,
    /// (key label, method, route, status) of every call made.
    made: Vec<Call>,
    /// The `X-Request-Id` each call was answered with, sorted.
    ids: Vec<String>,
    second_id: i64,
}

/// Calls the API with three keys (in a header, in `?api_key=`, in a path),
/// plus one without a key, then flushes.
async fn world() -> World {
    let (app, _) = app_with(7).await;
    let customer = demo_customer(&app).await;
    let now = app.state.clock.now();
    let issue = |name: &'static str| {
        let (app, customer) = (&app, &customer);
        async move {
            app.state
                .api_keys
                .issue(customer, name, None, "test", now)
                .await
                .unwrap()
        }
    };
    let second = issue("second key").await;
    let third = issue("third key").await;
    let listed = app.state.api_keys.list(customer.customer_id).await.unwrap();
    let label = |key: &str| {
        let hash = linecast_core::key_material::hash_key(key);
        let k = listed.iter().find(|k| k.key_hash == hash).unwrap();
        format!("{} (key {})", k.name, k.id)
    };
    let (first, first_label) = (app.api_key.clone(), label(&app.api_key));
    let second_label = label(&second.key);
    let (mut made, mut ids) = (Vec::new(), Vec::new());
    let get = reqwest::Method::GET;
    for (path, route, key, key_label, in_query) in [
        (
            "/api/v1/predictions/nba/won_on_points",
            "/api/v1/predictions/{sport}/{model_type}",
            &first,
            &first_label,
            false,
        ),
        (
            "/api/v1/predictions/nba/won_on_points",
            "/api/v1/predictions/{sport}/{model_type}",
            &first,
            &first_label,
            true,
        ),
        ("/api/v1/odds/nope", "/api/v1/odds/{sport}", &first, &first_label, false),
        (
            "/api/v1/odds/nba",
            "/api/v1/odds/{sport}",
            &second.key,
            &second_label,
            true,
        ),
        (
            "/api/v1/customers/me/api-keys",
            "/api/v1/customers/me/api-keys",
            &second.key,
            &second_label,
            false,
        ),
    ] {
        // One call names its own id; the server makes the others'.
        let own = (route == "/api/v1/odds/{sport}" && in_query).then_some(CLIENT_ID);
        let (status, id) = call(&app, get.clone(), path, key, in_query, own).await;
        made.push((key_label.clone(), "GET".to_owned(), route.to_owned(), status));
        ids.push(id);
    }
    // The third key, revoked through a path that holds it.
    let (status, id) = call(
        &app,
        reqwest::Method::DELETE,
        &format!("/api/v1/customers/me/api-keys/{}", third.key),
        &second.key,
        false,
        None,
    )
    .await;
    ids.push(id);
    assert!(status < 300, "revoked: {status}");
    made.push((
        second_label.clone(),
        "DELETE".to_owned(),
        "/api/v1/customers/me/api-keys/{api_key}".to_owned(),
        status,
    ));
    // Without a key: refused before any key is known, not logged.
    assert_eq!(call(&app, get, "/api/v1/odds/nba", "", false, None).await.0, 401);
    made.sort();
    ids.sort();
    let cookie = sign_in(&app, &first).await;
    linecast_api::accounting::flush_all(&app.state).await;
    World {
        app,
        cookie,
        keys: vec![first, second.key, third.key],
        made,
        ids,
        second_id: second.record.id,
    }
}

#[tokio::test]
async fn the_request_logs_rows_match_the_api_calls_the_test_made() {
    let w = world().await;
    assert!(w.made.iter().any(|m| m.3 >= 400), "a failing call too: {:?}", w.made);
    let (status, csv, headers) = page(&w.app, &w.cookie, "/portal/requests.csv").await;
    assert_eq!(status, 200, "{csv}");
    assert!(headers["content-type"].to_str().unwrap().starts_with("text/csv"));
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(csv_rows(&csv), w.made);
    // Each row keeps the id its call was answered with: the server's own
    // (32 hex digits) and the one a client sent.
    let mut logged: Vec<String> = csv
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap().to_owned())
        .collect();
    logged.sort();
    assert_eq!(logged, w.ids);
    assert!(logged.iter().any(|id| id == CLIENT_ID));
    assert!(
        logged
            .iter()
            .filter(|id| id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()))
            .count()
            >= 5
    );

    let (status, html, _) = page(&w.app, &w.cookie, "/portal/requests").await;
    assert_eq!(status, 200, "{html}");
    // A route may break after each slash (`<wbr>`); its text is the same.
    assert!(html.contains("<code>/<wbr>api/<wbr>v1/<wbr>"), "{html}");
    let html = html.replace("<wbr>", "");
    assert!(html.contains(&format!("{} matching requests", w.made.len())), "{html}");
    for (key, method, route, status) in &w.made {
        assert!(html.contains(&format!(
            "<td>{key}</td><td>{method}</td><td><code>{route}</code></td><td>{status}</td>"
        )));
    }
    // The per-day tables: by key and by endpoint.
    let second_calls = w.made.iter().filter(|m| m.0.starts_with("second key")).count();
    assert!(
        html.contains(&format!(
            "<td>second key (key {})</td><td>{second_calls}</td>",
            w.second_id
        )),
        "{html}"
    );
    assert!(
        html.contains("<td><code>/api/v1/odds/{sport}</code></td><td>2</td>"),
        "{html}"
    );
    for inline in ["<script", "<style", " style="] {
        assert!(!html.contains(inline), "inline {inline}");
    }
}

/// Every stored byte of the database (every column of every row, the log's
/// included), the page and the CSV: no key, with or without its prefix,
/// though keys went in a header, in `?api_key=` and in a path.
#[tokio::test]
async fn the_request_log_never_contains_a_key() {
    let w = world().await;
    let (_, csv, _) = page(&w.app, &w.cookie, "/portal/requests.csv").await;
    let (_, html, _) = page(&w.app, &w.cookie, "/portal/requests").await;
    assert_eq!(csv_rows(&csv).len(), w.made.len(), "the log has the rows");
    let mut files = Vec::new();
    for file in ["linecast.db", "linecast.db-wal"] {
        if let Ok(bytes) = std::fs::read(w.app.var_dir.join(file)) {
            files.push((file, bytes));
        }
    }
    assert!(!files.is_empty());
    let stored = |needle: &str| {
        files
            .iter()
            .any(|(_, bytes)| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
    };
    // The search works: a route template the log stored is found.
    assert!(stored("/api/v1/customers/me/api-keys/{api_key}"));
    for key in &w.keys {
        for needle in [key.as_str(), body_of(key)] {
            assert!(!stored(needle), "the database holds {needle}");
            assert!(!csv.contains(needle) && !html.contains(needle), "a page shows {needle}");
        }
    }
    assert!(!csv.contains("api_key=") && !csv.contains('?'), "{csv}");
}

#[tokio::test]
async fn the_filters_and_the_csv_narrow_the_same_rows() {
    let w = world().await;
    let only = |keep: &dyn Fn(&Call) -> bool| w.made.iter().filter(|m| keep(m)).cloned().collect::<Vec<_>>();
    let cases: Vec<(String, Vec<_>)> = vec![
        ("status=2xx".to_owned(), only(&|m| m.3 / 100 == 2)),
        ("status=4xx".to_owned(), only(&|m| m.3 / 100 == 4)),
        (format!("key={}", w.second_id), only(&|m| m.0.starts_with("second key"))),
        (
            "endpoint=%2Fapi%2Fv1%2Fodds%2F%7Bsport%7D".to_owned(),
            only(&|m| m.2 == "/api/v1/odds/{sport}"),
        ),
        (
            format!(
                "key={}&status=2xx&endpoint=%2Fapi%2Fv1%2Fodds%2F%7Bsport%7D",
                w.second_id
            ),
            only(&|m| m.0.starts_with("second key") && m.3 / 100 == 2 && m.2 == "/api/v1/odds/{sport}"),
        ),
    ];
    for (query, expected) in cases {
        assert!(!expected.is_empty() || query.contains("4xx"), "{query}");
        let (_, csv, _) = page(&w.app, &w.cookie, &format!("/portal/requests.csv?{query}")).await;
        assert_eq!(csv_rows(&csv), expected, "{query}");
        let (_, html, _) = page(&w.app, &w.cookie, &format!("/portal/requests?{query}")).await;
        let n = expected.len();
        // The tables by key and by endpoint, and the chart, count the same
        // requests as the log: the filter applies to all of them.
        for table in ["per-key-title", "per-endpoint-title"] {
            assert_eq!(table_sum(&html, table), n as u64, "{query}: {table}");
        }
        let chart = if n == 1 {
            "1 request in all".to_owned()
        } else {
            format!("{n} requests in all")
        };
        assert!(
            html.contains(&chart) || n == 0,
            "{query}: the chart says {chart}: {html}"
        );
        assert!(
            html.contains(&format!("{n} matching request{}", if n == 1 { "" } else { "s" })),
            "{query}: {html}"
        );
        // The page's CSV link carries the same filters.
        let unescaped = html.replace("&#38;", "&").replace("&amp;", "&");
        assert!(
            unescaped.contains(&format!("href=\"/portal/requests.csv?{query}\"")),
            "{query}: {html}"
        );
    }
    // Without a session the page and the CSV are closed.
    let res = browser()
        .get(format!("{}/portal/requests.csv", w.app.address))
        .send()
        .await
        .unwrap();
    assert_ne!(res.status(), 200);
    assert!(!res.text().await.unwrap().contains("time_utc"));
}

/// The flush round stores at most the day's cap and the page says how many
/// more were counted; rows older than `LINECAST_REQUEST_LOG_DAYS` are
/// deleted by the round.
#[tokio::test]
async fn the_log_keeps_the_daily_cap_and_its_retention() {
    let (app, clock) = app_with(1).await;
    let customer = demo_customer(&app).await;
    let key_id = app.state.api_keys.list(customer.customer_id).await.unwrap()[0].id;
    let now = clock.now();
    let request = |at: chrono::DateTime<chrono::Utc>| LoggedRequest {
        customer_id: customer.customer_id,
        key_id,
        at_ms: at.timestamp_millis(),
        method: Method::Get,
        route: RouteTemplate::new(&"/api/v1/odds/{sport}"),
        status: 200,
        duration_us: 900,
        request_id: RequestId::new("seeded"),
    };
    let over = 5;
    for _ in 0..DAILY_CAP + over {
        assert!(app.state.request_log.record(request(now)));
    }
    // Older than the retention: stored, then pruned by the same round.
    app.state.request_log.record(request(now - Duration::hours(30)));
    linecast_api::accounting::flush_all(&app.state).await;
    let cookie = sign_in(&app, &app.api_key).await;
    let (_, html, _) = page(&app, &cookie, "/portal/requests").await;
    // Counts are printed grouped in threes.
    assert_eq!(DAILY_CAP, 10_000);
    assert!(html.contains("10,000 matching requests"), "{html}");
    assert!(
        html.contains(&format!("10,000 listed, {over} more not listed")),
        "{html}"
    );
    let (_, csv, _) = page(&app, &cookie, "/portal/requests.csv").await;
    assert_eq!(csv.lines().count() as u64, DAILY_CAP + 1);

    // Two days on, the round deletes them all.
    clock.set(now + Duration::days(2));
    linecast_api::accounting::flush_all(&app.state).await;
    let cookie = sign_in(&app, &app.api_key).await;
    let (_, html, _) = page(&app, &cookie, "/portal/requests").await;
    assert!(html.contains("0 matching requests"), "{html}");
    assert!(!html.contains("more not listed"), "{html}");
}

/// Every request counted against the month is listed in the log, and
/// portal views are neither: after API calls answered 200, 400, 404 (an
/// unknown game, a path no route has), a 405 (a wrong method is answered
/// before the gate: neither counted nor listed), and Model quality views
/// with their diagrams in the portal, the log lists as many requests as
/// the month counts.
#[tokio::test]
async fn every_counted_request_is_listed_and_portal_views_are_neither() {
    let (app, _) = app_with(7).await;
    let key = app.api_key.clone();
    let cookie = sign_in(&app, &key).await;
    let get = reqwest::Method::GET;
    for (method, path) in [
        (get.clone(), "/api/v1/predictions/nba/won_on_points"),
        (get.clone(), "/api/v1/odds/nope"),
        (get.clone(), "/api/v1/games/nba-20261127-nobody-nowhere/history"),
        (get.clone(), "/api/v1/no/such/route"),
        (reqwest::Method::DELETE, "/api/v1/odds/nba"),
    ] {
        call(&app, method, path, &key, false, None).await;
    }
    for _ in 0..2 {
        let (status, html, _) = page(&app, &cookie, "/portal/quality?sport=nba").await;
        assert_eq!(status, 200, "{html}");
        let at = html.find("src=\"/portal/quality/diagram.svg?").unwrap() + "src=\"".len();
        let diagram = html[at..]
            .split('"')
            .next()
            .unwrap()
            .replace("&#38;", "&")
            .replace("&amp;", "&");
        assert_eq!(page(&app, &cookie, &diagram).await.0, 200);
    }
    let usage = browser()
        .get(format!("{}/api/v1/customers/me/usage", app.address))
        .header("X-API-Key", &key)
        .send()
        .await
        .unwrap();
    let counted = usage.json::<serde_json::Value>().await.unwrap()["monthly_requests"]
        .as_u64()
        .unwrap();
    assert_eq!(
        counted, 5,
        "four API calls, the usage call; neither the 405 nor a portal view"
    );
    linecast_api::accounting::flush_all(&app.state).await;
    let (_, csv, _) = page(&app, &cookie, "/portal/requests.csv").await;
    let rows = csv_rows(&csv);
    assert_eq!(rows.len() as u64, counted, "{csv}");
    let routes: Vec<&str> = rows.iter().map(|r| r.2.as_str()).collect();
    assert!(routes.contains(&"(no such route)"), "{routes:?}");
    assert!(!routes.iter().any(|r| r.contains("calibration")), "{routes:?}");
    assert!(rows.iter().all(|r| r.3 != 405), "a 405 is not listed: {rows:?}");
    let (_, html, _) = page(&app, &cookie, "/portal/requests").await;
    assert!(html.contains(&format!("{counted} matching requests")), "{html}");
}

/// The Requests page and its CSV are throttled per session: 80 views sent
/// at once (twice the page, twice the CSV: more than the burst of 20 the
/// four working pages share) are admitted at most the burst plus what the
/// rate gave back while they ran; the rest are 429 pages with
/// `Retry-After` and the navigation. Another session is not held back.
#[tokio::test]
async fn the_requests_page_and_its_csv_are_throttled_per_session() {
    use linecast_api::portal::throttle::{VIEW_BURST, VIEW_RATE};
    let (app, _) = app_with(7).await;
    let cookie = sign_in(&app, &app.api_key).await;
    let started = std::time::Instant::now();
    let views = (0..80).map(|i| {
        let path = if i % 2 == 0 {
            "/portal/requests"
        } else {
            "/portal/requests.csv"
        };
        page(&app, &cookie, path)
    });
    let answers = futures::future::join_all(views).await;
    let elapsed = started.elapsed().as_secs() + 1;
    let served = answers.iter().filter(|a| a.0 == 200).count() as u64;
    let refused: Vec<_> = answers.iter().filter(|a| a.0 == 429).collect();
    assert_eq!(served + refused.len() as u64, 80, "only 200s and 429s");
    assert!(
        served <= u64::from(VIEW_BURST) + u64::from(VIEW_RATE) * elapsed,
        "{served} served in {elapsed} s"
    );
    assert!(served >= 1);
    for (_, body, headers) in &refused {
        let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
        assert!(retry >= 1);
        assert!(headers["content-type"].to_str().unwrap().starts_with("text/html"));
        assert!(body.contains("Too many views of this page"), "{body}");
        assert!(body.contains(">Sign out</button>"), "{body}");
    }
    // Another session of the same customer has its own views.
    let other = sign_in(&app, &app.api_key).await;
    assert_eq!(page(&app, &other, "/portal/requests").await.0, 200);
    assert_eq!(page(&app, &other, "/portal/requests.csv").await.0, 200);
}
