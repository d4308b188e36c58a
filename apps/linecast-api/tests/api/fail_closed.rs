//! Access is decided by route and fails closed: every operation the schema
//! marks as secured refuses every spelling of its path without a key; the
//! public set is exactly the spec's; tiers follow the route; production mode
//! invents nothing; and the operational guards (body encodings, key cap,
//! per-address limit, request ids, headers, health cache, logs, metrics).

use std::collections::BTreeSet;

use linecast_api::settings::Settings;
use linecast_core::SubscriptionStatus;
use reqwest::Method;
use serde_json::Value;

use crate::access::{Via, get_with, seed_ai_customer, send};
use crate::helpers::{
    TestApp, assert_error_shape, fixture_now, fixtures_dir, raw_request, spawn_app, spawn_app_configured,
    spawn_with_settings,
};

/// A value for each path parameter of the schema.
fn sample(param: &str) -> &'static str {
    match param {
        "sport" => "nba",
        "model_type" => "won_on_points",
        "market" => "moneyline",
        "date" | "date_str" => "2026-11-15",
        "strategy_id" => "edge-pb",
        "api_key" => "sk_service_AbCd*****",
        "token" => "token",
        "game_id" => "nba-20261115-dallas_mavericks-charlotte_hornets",
        "endpoint_id" => "ep_000000000000000000000000",
        "delivery_id" => "1",
        other => panic!("no sample for path parameter {other}"),
    }
}

fn concrete(template: &str) -> String {
    template
        .split('/')
        .map(|seg| match seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(name) => sample(name).to_owned(),
            None => seg.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The path spellings a client might use to reach the same handler.
fn spellings(path: &str) -> Vec<String> {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let encode_first = |upper: bool| {
        let encoded: Vec<String> = segments
            .iter()
            .map(|seg| {
                let mut chars = seg.chars();
                match chars.next() {
                    Some(c) if c.is_ascii() => {
                        let hex = if upper {
                            format!("%{:02X}", c as u32)
                        } else {
                            format!("%{:02x}", c as u32)
                        };
                        format!("{hex}{}", chars.as_str())
                    }
                    _ => (*seg).to_owned(),
                }
            })
            .collect();
        format!("/{}", encoded.join("/"))
    };
    let first = segments[0];
    let rest = segments[1..].join("/");
    vec![
        path.to_owned(),
        encode_first(true),
        encode_first(false),
        path.replace('_', "%5F"),
        path.replace('_', "%5f"),
        format!("/{first}//{rest}"),
        format!("//{first}/{rest}"),
        format!("/{first}/./{rest}"),
        format!("/{first}/x/../{rest}"),
        format!("{path}/"),
        format!("/{first}%2F{rest}"),
        format!("/{first}%2f{rest}"),
        path.replacen("/v1/", "/v1%2F", 1),
    ]
}

fn operations(doc: &Value) -> Vec<(String, String, bool)> {
    let mut ops = Vec::new();
    for (template, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let secured = op["security"].as_array().is_some_and(|s| !s.is_empty());
            ops.push((method.to_ascii_uppercase(), template.clone(), secured));
        }
    }
    ops
}

#[tokio::test]
async fn no_spelling_of_a_secured_path_answers_2xx_or_304_without_a_key() {
    let app = spawn_app().await;
    let (_, doc) = app.get_json("/openapi.json").await;
    let secured: Vec<_> = operations(&doc).into_iter().filter(|(_, _, s)| *s).collect();
    assert!(
        secured.len() >= 24,
        "every data and account operation is secured: {secured:?}"
    );
    for (method, template, _) in &secured {
        let path = concrete(template);
        // The plain path is the spec's 401.
        let (status, text) = raw_request(&app.address, method, &path, &[]).await;
        assert_eq!(status, 401, "{method} {path}: {text}");
        assert!(text.contains("API key required"), "{method} {path}: {text}");
        for spelled in spellings(&path) {
            for query in ["", "?upcoming_only=false"] {
                let target = format!("{spelled}{query}");
                let (status, text) = raw_request(&app.address, method, &target, &[]).await;
                assert!(
                    !(200..300).contains(&status) && status != 304,
                    "{method} {target} answered {status} without a key: {text}"
                );
            }
        }
    }
}

#[tokio::test]
async fn the_public_operations_are_exactly_the_specs_unauthenticated_set() {
    let app = spawn_app().await;
    let (_, doc) = app.get_json("/openapi.json").await;
    let public: BTreeSet<String> = operations(&doc)
        .into_iter()
        .filter(|(_, _, secured)| !secured)
        .map(|(m, t, _)| format!("{m} {t}"))
        .collect();
    let expected: BTreeSet<String> = [
        "GET /",
        "GET /api/v1/health",
        "GET /api/v1/readiness",
        "GET /api/v1/liveness",
        "GET /api/v1/data-status/{sport}",
        "GET /api/v1/public/ml-picks/{sport}/{market}",
        "GET /api/v1/public/ledger",
        "GET /api/v1/public/ledger/{date}",
        "GET /api/v1/public/scorecard/{sport}/{model_type}",
        "GET /api/v1/edge-picks",
        "GET /api/v1/edge-picks/track-record",
        "GET /api/v1/edge-picks/{date_str}",
        "GET /api/v1/downloads/{token}",
        // Stripe's signature, never a key.
        "POST /billing/stripe/webhook",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(public, expected);
    // And each of them really answers without a key.
    for op in &public {
        let (method, template) = op.split_once(' ').unwrap();
        let (status, text) = raw_request(&app.address, method, &concrete(template), &[]).await;
        assert_ne!(status, 401, "{op}: {text}");
    }
}

#[tokio::test]
async fn the_encoded_path_that_used_to_leak_predictions_is_now_401() {
    let app = spawn_app().await;
    for path in [
        "/%61pi/v1/predictions/nba/won_on_points",
        "/api/%761/results/nba/won_on_points",
        "/api/v1/%73ummary/nba/won_on_points",
        "/api/v1/markets/%6Eba",
    ] {
        let (status, text) = raw_request(&app.address, "GET", path, &[]).await;
        assert_eq!(status, 401, "{path}: {text}");
    }
    // With a key, the encoded spelling is the same resource.
    let key = app.api_key.clone();
    let (status, _) = raw_request(
        &app.address,
        "GET",
        "/%61pi/v1/predictions/nba/won_on_points",
        &[("X-API-Key", &key)],
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_lapsed_subscription_keeps_the_any_key_routes_and_loses_the_ai_routes() {
    let app = spawn_app().await;
    for status in [SubscriptionStatus::Canceled, SubscriptionStatus::PastDue] {
        let email = format!("lapsed-{status}@example.com");
        let (_, key) = seed_ai_customer(&app, &email).await;
        app.ports.accounts.set_subscription(&email, status).await.unwrap();
        app.state.gate.keys.invalidate_all();
        for path in [
            "/api/v1/markets/nba",
            "/api/v1/picks/today",
            "/api/v1/picks/2026-11-15",
            "/api/v1/picks/performance",
            "/api/v1/customers/me",
            "/api/v1/customers/me/usage",
            "/api/v1/customers/me/api-keys",
        ] {
            let r = get_with(&app, path, &key).await;
            assert_eq!(r.status, 200, "{status} {path}: {}", r.body);
            assert_eq!(r.header("x-ratelimit-tier"), Some("ai"));
        }
        for path in [
            "/api/v1/sports",
            "/api/v1/predictions/nba/won_on_points",
            "/api/v1/odds/nba",
            "/api/v1/results/nba/won_on_points",
            "/api/v1/summary/nba/won_on_points",
            "/api/v1/strategies/nba/won_on_points",
            "/api/v1/service-sports-data/status",
        ] {
            let r = get_with(&app, path, &key).await;
            let detail = assert_error_shape(r.status, &r.body, 403);
            assert!(detail.contains(status.code()), "{path}: {detail}");
        }
    }
}

#[tokio::test]
async fn production_mode_invents_no_customer_no_key_and_no_data() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    std::fs::create_dir_all(&store_dir).unwrap();
    let mut settings = Settings::for_tests(&format!("file://{}", store_dir.display()), dir.path(), fixture_now());
    settings.demo = false;
    // Production mode checks the schema; this fresh database is migrated
    // at start, as LINECAST_MIGRATE=true asks.
    settings.migrate = true;
    let app = spawn_with_settings(settings, dir, store_dir.clone()).await;
    assert!(app.api_key.is_empty(), "no demo key is written");
    assert!(!app.var_dir.join("demo-key.txt").exists());
    assert!(app.ports.accounts.list_customers().await.unwrap().is_empty());
    assert_eq!(std::fs::read_dir(&store_dir).unwrap().count(), 0, "nothing generated");
    // The empty store is down, never served as data.
    let (status, health) = app.get_json("/api/v1/health").await;
    assert_eq!(status, 200);
    assert_eq!(health["status"], "degraded");
    assert_eq!(health["dependencies"]["object_storage"]["status"], "down");
    let (status, body) = app.get_json("/api/v1/readiness").await;
    assert_error_shape(status, &body, 503);
    let (status, body) = app.get_json("/api/v1/public/ml-picks/nba/moneyline").await;
    assert_error_shape(status, &body, 503);
    let (_, key) = seed_ai_customer(&app, "prod@example.com").await;
    for path in [
        "/api/v1/predictions/nba/won_on_points",
        "/api/v1/odds/nba",
        "/api/v1/results/nba/won_on_points",
    ] {
        let r = get_with(&app, path, &key).await;
        assert_error_shape(r.status, &r.body, 503);
    }
}

#[tokio::test]
async fn production_mode_serves_a_published_store_to_real_customers_only() {
    let app = spawn_app_configured(
        fixture_now(),
        |_| {},
        |s| {
            s.demo = false;
            s.migrate = true;
        },
    )
    .await;
    assert!(app.api_key.is_empty());
    let (status, _) = app.get_json("/api/v1/public/ml-picks/nba/moneyline").await;
    assert_eq!(status, 200);
    let (_, key) = seed_ai_customer(&app, "prod@example.com").await;
    let r = get_with(&app, "/api/v1/predictions/nba/won_on_points", &key).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(app.ports.accounts.list_customers().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_missing_artifact_in_a_published_store_stays_a_404() {
    let app = spawn_app_configured(
        fixture_now(),
        |store| {
            let p = store.join("predictions/nba/won_on_points.csv");
            if p.exists() {
                std::fs::remove_file(p).unwrap();
            }
        },
        |s| {
            s.demo = false;
            s.migrate = true;
        },
    )
    .await;
    let (_, key) = seed_ai_customer(&app, "prod@example.com").await;
    let r = get_with(&app, "/api/v1/predictions/nba/won_on_points", &key).await;
    assert_error_shape(r.status, &r.body, 404);
}

#[tokio::test]
async fn a_request_body_with_a_content_encoding_is_refused_with_415() {
    let app = spawn_app().await;
    let key = app.api_key.clone();
    let (status, text) = raw_request(
        &app.address,
        "POST",
        "/api/v1/customers/me/api-keys",
        &[("X-API-Key", &key), ("Content-Encoding", "gzip")],
    )
    .await;
    assert_eq!(status, 415, "{text}");
    assert!(text.contains("HTTP_415") && text.contains("Content-Encoding"), "{text}");
    // Nothing was created.
    let keys = app
        .ports
        .accounts
        .list_keys(crate::access::demo_customer(&app).await.customer_id)
        .await
        .unwrap();
    assert_eq!(keys.len(), 1);
}

#[tokio::test]
async fn a_customer_holds_at_most_the_configured_number_of_active_keys() {
    let app = spawn_app_configured(fixture_now(), |_| {}, |s| s.max_keys_per_customer = 3).await;
    let create = |name: &'static str| {
        let app = &app;
        async move {
            send(
                app,
                Method::POST,
                "/api/v1/customers/me/api-keys",
                Via::Header(&app.api_key),
                Some(serde_json::json!({ "name": name })),
            )
            .await
        }
    };
    // The demo key is the first of three.
    assert_eq!(create("two").await.status, 200);
    let third = create("three").await;
    assert_eq!(third.status, 200);
    let refused = create("four").await;
    let detail = assert_error_shape(refused.status, &refused.body, 400);
    assert!(detail.contains("at most 3 active API keys"), "{detail}");
    // Revoking one makes room again.
    let full = third.body["api_key"].as_str().unwrap().to_owned();
    let r = send(
        &app,
        Method::DELETE,
        &format!("/api/v1/customers/me/api-keys/{full}"),
        Via::Header(&app.api_key),
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(create("four").await.status, 200);
}

#[tokio::test]
async fn the_response_carrying_a_new_key_is_never_stored_by_a_cache() {
    let app = spawn_app().await;
    let r = send(
        &app,
        Method::POST,
        "/api/v1/customers/me/api-keys",
        Via::Header(&app.api_key),
        Some(serde_json::json!({ "name": "cache test" })),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("cache-control"), Some("no-store"));
}

#[tokio::test]
async fn public_data_routes_are_limited_per_client_address_and_probes_are_not() {
    let app = spawn_app_configured(fixture_now(), |_| {}, |s| s.public_rate_per_second = 3).await;
    let mut refused = 0;
    // Sent at once, so a slow (loaded) machine cannot spread them over
    // enough seconds to refill the bucket.
    let sent =
        futures::future::join_all((0..12).map(|_| send(&app, Method::GET, "/api/v1/edge-picks", Via::Nothing, None)))
            .await;
    for r in sent {
        if r.status == 429 {
            refused += 1;
            let detail = assert_error_shape(r.status, &r.body, 429);
            assert!(detail.contains("per client address"), "{detail}");
            assert!(r.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
        } else {
            assert_eq!(r.status, 200);
        }
    }
    assert!(refused >= 6, "3 per second with a burst of 3: {refused} refused of 12");
    for _ in 0..12 {
        let r = send(&app, Method::GET, "/api/v1/liveness", Via::Nothing, None).await;
        assert_eq!(r.status, 200);
    }
}

#[tokio::test]
async fn every_response_carries_a_request_id_and_nosniff() {
    let app = spawn_app().await;
    for (path, key) in [
        ("/api/v1/liveness", None),
        ("/no-such-route", None),
        ("/api/v1/predictions/nba/won_on_points", None),
        ("/api/v1/predictions/nba/won_on_points", Some(app.api_key.as_str())),
        // A page, and the portal's own 404 page: pages add their security
        // headers, and nosniff is still sent once.
        ("/portal", None),
        ("/portal/no-such-page", None),
    ] {
        let mut req = app.client.get(format!("{}{path}", app.address));
        if let Some(k) = key {
            req = req.header("X-API-Key", k);
        }
        let echoed = req
            .try_clone()
            .unwrap()
            .header("X-Request-Id", "trace-42.a_b:c")
            .send()
            .await
            .unwrap();
        assert_eq!(echoed.headers()["x-request-id"], "trace-42.a_b:c", "{path}");
        let nosniff: Vec<_> = echoed.headers().get_all("x-content-type-options").iter().collect();
        assert_eq!(nosniff, ["nosniff"], "{path}: once");
        let generated = req.header("X-Request-Id", "not sane").send().await.unwrap();
        let id = generated.headers()["x-request-id"].to_str().unwrap().to_owned();
        assert_eq!(id.len(), 32, "{path}: {id}");
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
        assert!(
            !echoed.headers().contains_key("strict-transport-security"),
            "{path}: no HSTS on a plain-http public URL"
        );
    }
}

#[tokio::test]
async fn behind_an_https_public_url_every_answer_asks_browsers_to_keep_to_https_for_a_year() {
    let app = spawn_app_configured(
        fixture_now(),
        |_| {},
        |s| s.public_url = "https://api.example.com".to_owned(),
    )
    .await;
    for (path, want) in [
        ("/api/v1/liveness", 200),
        ("/no-such-route", 404),
        ("/api/v1/predictions/nba/won_on_points", 401),
        ("/portal", 200),
    ] {
        let res = app.get(path).await;
        assert_eq!(res.status(), want, "{path}");
        let hsts: Vec<_> = res.headers().get_all("strict-transport-security").iter().collect();
        assert_eq!(hsts, ["max-age=31536000"], "{path}: once");
    }
}

#[tokio::test]
async fn health_probes_at_most_once_a_second_and_shows_no_location_or_raw_error() {
    let app = spawn_app_configured(
        fixture_now(),
        |store| {
            std::fs::remove_dir_all(store).unwrap();
            std::fs::create_dir_all(store).unwrap();
        },
        |s| {
            s.demo = false;
            s.migrate = true;
        },
    )
    .await;
    let (_, first) = app.get_json("/api/v1/health").await;
    let (_, second) = app.get_json("/api/v1/health").await;
    assert_eq!(
        first["checked_at"], second["checked_at"],
        "the second call reuses the round"
    );
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (_, third) = app.get_json("/api/v1/health").await;
    assert_ne!(first["checked_at"], third["checked_at"]);
    let text = third.to_string();
    let store = app.store_dir.display().to_string();
    assert!(
        !text.contains(&store) && !text.contains("file://") && !text.contains("store is empty"),
        "{text}"
    );
    assert_eq!(third["dependencies"]["object_storage"]["status"], "down");
    assert_eq!(
        third["dependencies"]["object_storage"]["error"],
        "unavailable; the cause is in the server log"
    );
}

/// Only used by the metrics test: the process-wide recorder.
#[tokio::test]
async fn metrics_are_served_on_their_own_listener_by_route_template() {
    let (app, port) = {
        let dir = tempfile::tempdir().unwrap();
        let store_dir = dir.path().join("store");
        crate::helpers::copy_fixture(&fixtures_dir(), &store_dir);
        let mut settings = Settings::for_tests(&format!("file://{}", store_dir.display()), dir.path(), fixture_now());
        settings.metrics_bind = Some("127.0.0.1:0".parse().unwrap());
        let built = linecast_api::startup::Application::build(settings).await.unwrap();
        let port = built.metrics_port().unwrap();
        let app = TestApp::from_built(built, dir, store_dir);
        (app, port)
    };
    assert_eq!(
        app.get_authed("/api/v1/predictions/nba/won_on_points").await.status(),
        200
    );
    assert_eq!(app.get("/api/v1/predictions/nba/won_on_points").await.status(), 401);
    // Not on the public port.
    assert_eq!(app.get("/metrics").await.status(), 404);
    let text = crate::helpers::metrics_text(port).await;
    assert!(
        text.contains(r#"route="/api/v1/predictions/{sport}/{model_type}""#),
        "{text}"
    );
    assert!(!text.contains("/api/v1/predictions/nba"), "never raw paths");
    for name in [
        "linecast_http_requests_total",
        "linecast_http_request_duration_seconds_bucket",
        "linecast_key_cache_total",
        "linecast_limiter_decisions_total",
        "linecast_artifact_cache_hits",
        "linecast_artifact_cache_misses",
    ] {
        assert!(text.contains(name), "{name} missing from\n{text}");
    }
    assert!(text.contains(r#"status="401""#));
    // Every memo reports its size; the key digests of the keys used above
    // are held by some worker thread.
    for memo in ["key_digests", "clock_day", "et_minute", "quota_month", "plan_headers"] {
        assert!(
            text.contains(&format!("linecast_memo_entries{{memo=\"{memo}\"}}")),
            "{memo} missing from\n{text}"
        );
    }
    let digests = text
        .lines()
        .find_map(|l| l.strip_prefix(r#"linecast_memo_entries{memo="key_digests"} "#))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .unwrap_or_default();
    assert!(digests >= 1.0, "{text}");
    // The process's own resources, in Prometheus's standard names.
    let gauge = |name: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} missing from\n{text}"))
            .trim()
            .parse()
            .unwrap()
    };
    assert!(gauge("process_resident_memory_bytes") > 1_000_000.0);
    assert!(gauge("process_open_fds") >= 3.0);
    assert!(gauge("process_max_fds") >= gauge("process_open_fds"));
    assert!(gauge("process_threads") >= 1.0);
    assert!(gauge("process_cpu_seconds_total") > 0.0);
    assert!(gauge("process_start_time_seconds") > 1.7e9);
    // Each decision lands on its own series: the first authenticated request
    // missed the key cache, the second hit it.
    assert_eq!(
        app.get_authed("/api/v1/predictions/nba/won_on_points").await.status(),
        200
    );
    let text = crate::helpers::metrics_text(port).await;
    let count = |name: &str, labels: &[&str]| -> f64 {
        text.lines()
            .filter(|l| l.starts_with(&format!("{name}{{")) && labels.iter().all(|x| l.contains(x)))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    };
    assert!(
        count("linecast_key_cache_total", &[r#"result="miss""#]) >= 1.0,
        "{text}"
    );
    assert!(count("linecast_key_cache_total", &[r#"result="hit""#]) >= 1.0, "{text}");
    assert!(
        count(
            "linecast_limiter_decisions_total",
            &[r#"limiter="second""#, r#"decision="allowed""#]
        ) >= 2.0,
        "{text}"
    );
    assert!(
        count(
            "linecast_limiter_decisions_total",
            &[r#"limiter="month""#, r#"decision="allowed""#]
        ) >= 2.0,
        "{text}"
    );
    // Only pairs the service reports have a series.
    assert!(!text.contains(r#"limiter="auth_failure",decision="allowed""#), "{text}");

    // Made-up methods never become labels: 200 of them, 40 letters each,
    // and one of 7,000 letters, all count as OTHER.
    let address = app.address.clone();
    for i in 0..200 {
        let method = format!("X{i:03}{}", "Q".repeat(36));
        raw_request(&address, &method, "/api/v1/health", &[]).await;
    }
    raw_request(
        &address,
        &"M".repeat(7000),
        "/api/v1/predictions/nba/won_on_points",
        &[],
    )
    .await;
    let text = crate::helpers::metrics_text(port).await;
    assert!(
        !text.contains("QQQQQQ") && !text.contains("MMMMMM"),
        "a made-up method became a label"
    );
    assert!(text.contains(r#"method="OTHER""#), "{text}");
}

#[tokio::test]
async fn no_full_key_reaches_the_log_and_refusals_are_in_the_access_log() {
    crate::helpers::capture_logs();
    let app = spawn_app().await;
    let (_, key) = seed_ai_customer(&app, "logs@example.com").await;
    let body = key.trim_start_matches("sk_service_").to_owned();
    for name in ["api_key", "api%5Fkey", "api%5fkey", "%61pi_key", "API_KEY"] {
        let (status, _) = raw_request(&app.address, "GET", &format!("/api/v1/sports?{name}={key}"), &[]).await;
        assert!(status == 200 || status == 401, "{name}: {status}");
    }
    let encoded = key.replace('_', "%5F");
    raw_request(&app.address, "GET", &format!("/api/v1/sports?x={encoded}"), &[]).await;
    // A revoke names the key in its path.
    let created = send(
        &app,
        Method::POST,
        "/api/v1/customers/me/api-keys",
        Via::Header(&key),
        Some(serde_json::json!({ "name": "to revoke" })),
    )
    .await;
    let second = created.body["api_key"].as_str().unwrap().to_owned();
    let (status, _) = raw_request(
        &app.address,
        "DELETE",
        &format!("/api/v1/customers/me/api-keys/{}", second.replace('_', "%5F")),
        &[("X-API-Key", &key)],
    )
    .await;
    assert_eq!(status, 200);
    // Refusals: 401, 403 and 429, each with its own request id.
    raw_request(
        &app.address,
        "GET",
        "/api/v1/sports",
        &[("X-Request-Id", "refusal-401"), ("X-API-Key", "sk_service_nope")],
    )
    .await;
    let (_, lapsed) = seed_ai_customer(&app, "lapsed-logs@example.com").await;
    app.ports
        .accounts
        .set_subscription("lapsed-logs@example.com", SubscriptionStatus::Canceled)
        .await
        .unwrap();
    raw_request(
        &app.address,
        "GET",
        "/api/v1/sports",
        &[("X-Request-Id", "refusal-403"), ("X-API-Key", &lapsed)],
    )
    .await;
    let one = crate::access::seed_customer(&app, "one-request@example.com", "ai", 1).await;
    let one_key = crate::access::issue_key(&app, &one).await;
    raw_request(&app.address, "GET", "/api/v1/sports", &[("X-API-Key", &one_key)]).await;
    let (status, _) = raw_request(
        &app.address,
        "GET",
        "/api/v1/sports",
        &[("X-Request-Id", "refusal-429"), ("X-API-Key", &one_key)],
    )
    .await;
    assert_eq!(status, 429);
    let logs = crate::helpers::captured_logs();
    for secret in [&body, &second.trim_start_matches("sk_service_").to_owned()] {
        assert!(!logs.contains(secret.as_str()), "a full key reached the log");
        assert!(!logs.contains(&secret[4..]), "a key body reached the log");
    }
    for (id, status) in [("refusal-401", 401), ("refusal-403", 403), ("refusal-429", 429)] {
        assert!(
            logs.lines()
                .any(|l| l.contains(&format!("request_id={id}")) && l.contains(&format!("status={status}"))),
            "no access-log line for {id}"
        );
    }
}
