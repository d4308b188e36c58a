//! Historical dataset refresh over HTTP: entitlement status, signed links
//! for owned refreshable products, the signed downloads themselves, the
//! monthly refresh quota (atomic under concurrency) and the compatibility
//! endpoints that need a key.

use chrono::Duration;
use linecast_domain::Sport;
use reqwest::Method;
use serde_json::{Value, json};

use crate::access::{Reply, Via, get_with, seed_ai_customer, send};
use crate::helpers::{TestApp, assert_error_shape, fixtures_dir, spawn_app};

const STATUS: &str = "/api/v1/service-sports-data/status";
const REFRESH: &str = "/api/v1/service-sports-data/refresh";

async fn refresh(app: &TestApp, key: &str) -> Reply {
    send(app, Method::POST, REFRESH, Via::Header(key), None).await
}

/// The path part of a signed link (links carry the configured public
/// origin, not the test server's port).
fn path_of(url: &str) -> &str {
    let at = url.find("/api/v1/downloads/").expect("a download link");
    &url[at..]
}

/// The refreshable products of the fixture catalog: `(product_id, key, filename)`.
fn refreshable_products() -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(fixtures_dir().join("products/catalog.json")).unwrap();
    let catalog: Value = serde_json::from_str(&text).unwrap();
    catalog["products"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["refreshable"] == true)
        .map(|p| {
            let s = |f: &str| p[f].as_str().unwrap().to_owned();
            (s("product_id"), s("key"), s("filename"))
        })
        .collect()
}

#[tokio::test]
async fn the_demo_customer_owns_every_sports_history_and_status_consumes_nothing() {
    let app = spawn_app().await;
    for _ in 0..2 {
        let r = get_with(&app, STATUS, &app.api_key).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let b = &r.body;
        assert_eq!(b.as_object().unwrap().len(), 8, "{b}");
        assert_eq!(b["has_service_sports_data"], true);
        assert!(b["expires_at"].is_null());
        let products: Vec<&str> = b["owned_products"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let sports: Vec<&str> = b["owned_sports"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for sport in Sport::ALL {
            assert!(
                products.contains(&format!("{}_history", sport.code()).as_str()),
                "{products:?}"
            );
            assert!(sports.contains(&sport.code()), "{sports:?}");
        }
        assert_eq!(b["refreshes_used"], 0);
        assert_eq!(b["refreshes_remaining"], 8);
        assert_eq!(b["refresh_limit"], 8);
        assert_eq!(b["next_reset_at"], "2026-12-01T00:00:00Z");
    }
}

#[tokio::test]
async fn a_refresh_signs_every_owned_refreshable_dataset_for_15_minutes_and_each_link_downloads_it() {
    let app = spawn_app().await;
    let r = refresh(&app, &app.api_key).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["refreshes_remaining"], 7);
    assert_eq!(r.body["next_reset_at"], "2026-12-01T00:00:00Z");
    let downloads = r.body["downloads"].as_array().unwrap();
    let expected = refreshable_products();
    assert_eq!(downloads.len(), expected.len(), "{downloads:?}");
    for (product, key, filename) in &expected {
        let item = downloads
            .iter()
            .find(|d| d["filename"] == filename.as_str())
            .unwrap_or_else(|| panic!("{product}"));
        assert_eq!(item["expires_at"], "2026-11-15T17:15:00Z");
        assert_eq!(item["sport"], product.trim_end_matches("_history"));
        let res = app.get(path_of(item["url"].as_str().unwrap())).await;
        assert_eq!(res.status(), 200);
        assert!(
            res.headers()["content-disposition"]
                .to_str()
                .unwrap()
                .contains(filename.as_str())
        );
        assert_eq!(res.headers()["accept-ranges"], "bytes");
        let bytes = res.bytes().await.unwrap();
        let stored = std::fs::read(fixtures_dir().join(key)).unwrap();
        assert_eq!(bytes.as_ref(), stored.as_slice(), "{key}");
        // A download cut at 100 bytes resumes with the rest of the file.
        let url = format!("{}{}", app.address, path_of(item["url"].as_str().unwrap()));
        let rest = app.client.get(&url).header("Range", "bytes=100-").send().await.unwrap();
        assert_eq!(rest.status(), 206, "{key}");
        assert_eq!(
            rest.headers()["content-range"],
            format!("bytes 100-{}/{}", stored.len() - 1, stored.len()).as_str()
        );
        assert_eq!(rest.bytes().await.unwrap().as_ref(), &stored[100..], "{key}");
    }
    assert!(
        downloads.iter().all(|d| d["filename"] != "nba_closing_lines.csv"),
        "not owned, not refreshable"
    );
    let s = get_with(&app, STATUS, &app.api_key).await;
    assert_eq!(s.body["refreshes_used"], 1);
    assert_eq!(s.body["refreshes_remaining"], 7);
}

#[tokio::test]
async fn a_tampered_or_expired_download_token_is_403() {
    let app = spawn_app().await;
    let r = refresh(&app, &app.api_key).await;
    let url = r.body["downloads"][0]["url"].as_str().unwrap().to_owned();
    let path = path_of(&url);
    let last = path.chars().last().unwrap();
    let tampered = format!("{}{}", &path[..path.len() - 1], if last == 'A' { 'B' } else { 'A' });
    let (status, body) = app.get_json(&tampered).await;
    assert_error_shape(status, &body, 403);
    let past = app.state.clock.now() - Duration::seconds(1);
    let token = app
        .ports
        .signer
        .token("datasets/mlb/mlb_history.csv", "mlb_history.csv", past);
    let (status, body) = app.get_json(&format!("/api/v1/downloads/{token}")).await;
    assert_error_shape(status, &body, 403);
    let fresh = app.ports.signer.token(
        "datasets/mlb/mlb_history.csv",
        "mlb_history.csv",
        app.state.clock.now() + Duration::minutes(15),
    );
    assert_eq!(
        app.get(&format!("/api/v1/downloads/{fresh}")).await.status(),
        200,
        "downloads need no key"
    );
}

#[tokio::test]
async fn eight_refreshes_succeed_and_the_ninth_is_429_naming_the_refresh_limit() {
    let app = spawn_app().await;
    for i in 1..=8u32 {
        let r = refresh(&app, &app.api_key).await;
        assert_eq!(r.status, 200, "refresh {i}: {}", r.body);
        assert_eq!(r.body["refreshes_remaining"], 8 - i);
    }
    let r = refresh(&app, &app.api_key).await;
    let detail = assert_error_shape(r.status, &r.body, 429);
    assert!(detail.contains("Refresh limit") && detail.contains('8'), "{detail}");
    let s = get_with(&app, STATUS, &app.api_key).await;
    assert_eq!(s.body["refreshes_used"], 8);
    assert_eq!(s.body["refreshes_remaining"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twelve_concurrent_refreshes_on_a_fresh_customer_take_exactly_eight() {
    let app = spawn_app().await;
    let (customer, key) = seed_ai_customer(&app, "buyer@example.com").await;
    app.ports
        .accounts
        .grant_entitlement(customer.customer_id, &["mlb_history".to_owned()], &[Sport::Mlb], None)
        .await
        .unwrap();
    let replies = futures::future::join_all((0..12).map(|_| refresh(&app, &key))).await;
    let ok: Vec<&Reply> = replies.iter().filter(|r| r.status == 200).collect();
    assert_eq!(
        ok.len(),
        8,
        "{:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    for r in replies.iter().filter(|r| r.status != 200) {
        assert_error_shape(r.status, &r.body, 429);
    }
    let mut remaining: Vec<u64> = ok
        .iter()
        .map(|r| r.body["refreshes_remaining"].as_u64().unwrap())
        .collect();
    remaining.sort_unstable();
    assert_eq!(
        remaining,
        (0..8).collect::<Vec<_>>(),
        "each success took a distinct refresh"
    );
    assert_eq!(
        ok[0].body["downloads"].as_array().unwrap().len(),
        1,
        "only the owned product"
    );
    assert_eq!(get_with(&app, STATUS, &key).await.body["refreshes_used"], 8);
}

#[tokio::test]
async fn a_customer_without_a_dataset_product_gets_403_and_consumes_nothing() {
    let app = spawn_app().await;
    let (customer, key) = seed_ai_customer(&app, "nodata@example.com").await;
    let s = get_with(&app, STATUS, &key).await;
    assert_eq!(s.status, 200);
    assert_eq!(s.body["has_service_sports_data"], false);
    assert_eq!(s.body["owned_products"], json!([]));
    let r = refresh(&app, &key).await;
    assert_error_shape(r.status, &r.body, 403);
    // Owning only a non-refreshable product is no better.
    app.ports
        .accounts
        .grant_entitlement(
            customer.customer_id,
            &["nba_closing_lines".to_owned()],
            &[Sport::Nba],
            None,
        )
        .await
        .unwrap();
    let r = refresh(&app, &key).await;
    assert_error_shape(r.status, &r.body, 403);
    assert_eq!(get_with(&app, STATUS, &key).await.body["refreshes_used"], 0);
    let r = send(&app, Method::POST, REFRESH, Via::Nothing, None).await;
    assert_eq!(assert_error_shape(r.status, &r.body, 401), "API key required");
}

#[tokio::test]
async fn picks_today_and_picks_for_a_date_are_explicitly_empty() {
    let app = spawn_app().await;
    for (path, date) in [
        ("/api/v1/picks/today", "2026-11-15"),
        ("/api/v1/picks/2026-11-10", "2026-11-10"),
    ] {
        let r = get_with(&app, path, &app.api_key).await;
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        assert_eq!(r.body["date"], date);
        assert_eq!(r.body["picks"], json!([]));
        assert_eq!(r.body["summary"], json!({ "total_picks": 0, "by_sport": {} }));
        assert!(r.body["note"].as_str().is_some_and(|n| !n.is_empty()));
    }
    for bad in ["2026-13-45", "yesterday", "20261110"] {
        let r = get_with(&app, &format!("/api/v1/picks/{bad}"), &app.api_key).await;
        assert!(assert_error_shape(r.status, &r.body, 400).contains("date"), "{bad}");
    }
}

#[tokio::test]
async fn picks_performance_checks_sport_and_market_and_is_zeroed() {
    let app = spawn_app().await;
    let r = get_with(&app, "/api/v1/picks/performance", &app.api_key).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body["sport"].is_null() && r.body["market"].is_null());
    let windows = r.body["windows"].as_object().unwrap();
    assert!(!windows.is_empty());
    for (name, w) in windows {
        assert_eq!(w["picks"], 0, "{name}");
        assert_eq!(w["wins"], 0, "{name}");
    }
    assert!(r.body["note"].is_string());
    for sport in ["MLB", "NBA", "NFL", "NHL", "NCAAF", "NCAAB"] {
        for market in ["spread", "total", "moneyline"] {
            let r = get_with(
                &app,
                &format!("/api/v1/picks/performance?sport={sport}&market={market}"),
                &app.api_key,
            )
            .await;
            assert_eq!(r.status, 200, "{sport} {market}: {}", r.body);
            assert_eq!(r.body["sport"], sport);
            assert_eq!(r.body["market"], market);
        }
    }
    for (query, param) in [
        ("sport=XFL", "sport"),
        ("market=parlay", "market"),
        ("sport=NBA&market=props", "market"),
    ] {
        let r = get_with(&app, &format!("/api/v1/picks/performance?{query}"), &app.api_key).await;
        assert!(assert_error_shape(r.status, &r.body, 400).contains(param), "{query}");
    }
}

#[tokio::test]
async fn sports_discovery_lists_every_sport_and_model_type() {
    let app = spawn_app().await;
    let r = get_with(&app, "/api/v1/sports", &app.api_key).await;
    assert_eq!(r.status, 200);
    let sports = r.body["sports"].as_array().unwrap();
    assert_eq!(sports.len(), Sport::ALL.len());
    for s in sports {
        assert!(s["code"].is_string() && s["name"].is_string(), "{s}");
    }
    let models: Vec<&str> = r.body["model_types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["code"].as_str().unwrap())
        .collect();
    assert_eq!(models.len(), 3, "{models:?}");
    assert!(models.contains(&"over_under"), "{models:?}");
}

#[tokio::test]
async fn compatibility_endpoints_need_a_key() {
    let app = spawn_app().await;
    for path in [
        "/api/v1/picks/today",
        "/api/v1/picks/2026-11-10",
        "/api/v1/picks/performance",
        "/api/v1/sports",
        STATUS,
    ] {
        let (status, body) = app.get_json(path).await;
        assert_eq!(assert_error_shape(status, &body, 401), "API key required", "{path}");
    }
}
