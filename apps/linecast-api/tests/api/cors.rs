//! Cross-origin calls: a page of any origin may call `/api/v1` with its
//! key (preflight answered, limits and ids readable); the portal and the
//! billing webhook answer no CORS header. The headers are spelled here as
//! the Fetch standard names them, not read from the implementation.

use reqwest::Method;

use crate::helpers::spawn_app;

const NOTEBOOK: &str = "https://notebook.example";

#[tokio::test]
async fn a_preflight_to_the_api_is_allowed_from_any_origin_without_a_key() {
    let app = spawn_app().await;
    let res = app
        .client
        .request(
            Method::OPTIONS,
            format!("{}/api/v1/predictions/nba/won_on_points", app.address),
        )
        .header("Origin", NOTEBOOK)
        .header("Access-Control-Request-Method", "GET")
        .header("Access-Control-Request-Headers", "x-api-key")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 204);
    let h = res.headers();
    assert_eq!(h["access-control-allow-origin"], "*");
    assert!(h["access-control-allow-methods"].to_str().unwrap().contains("GET"));
    let allowed = h["access-control-allow-headers"].to_str().unwrap().to_ascii_lowercase();
    for name in ["x-api-key", "authorization"] {
        assert!(allowed.contains(name), "{name} in {allowed}");
    }
    assert!(h.get("access-control-allow-credentials").is_none(), "no credentials");
}

#[tokio::test]
async fn a_cross_origin_answer_exposes_the_limits_the_validator_and_the_request_id() {
    let app = spawn_app().await;
    let res = app
        .get_keyed(
            "/api/v1/predictions/nba/won_on_points",
            &app.api_key,
            &[("Origin", NOTEBOOK)],
        )
        .await;
    assert_eq!(res.status().as_u16(), 200);
    let h = res.headers();
    assert_eq!(h["access-control-allow-origin"], "*");
    let exposed: Vec<String> = h["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .split(',')
        .map(|s| s.trim().to_ascii_lowercase())
        .collect();
    for name in [
        "ratelimit",
        "ratelimit-policy",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
        "x-ratelimit-tier",
        "retry-after",
        "etag",
        "x-request-id",
    ] {
        assert!(exposed.iter().any(|e| e == name), "{name} exposed: {exposed:?}");
        if name != "retry-after" {
            assert!(h.contains_key(name), "{name} sent");
        }
    }
    // A refusal is readable too: a page can tell a bad key from a network error.
    let res = app
        .get_keyed(
            "/api/v1/predictions/nba/won_on_points",
            "sk_service_nope",
            &[("Origin", NOTEBOOK)],
        )
        .await;
    assert_eq!(res.status().as_u16(), 401);
    assert_eq!(res.headers()["access-control-allow-origin"], "*");
    // Without an Origin (a script, not a browser) no CORS header is sent.
    let res = app.get_authed("/api/v1/predictions/nba/won_on_points").await;
    assert!(res.headers().get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn the_portal_and_the_webhook_answer_no_cross_origin_caller() {
    let app = spawn_app().await;
    for (method, path) in [
        ("POST", "/portal/sign-in"),
        ("GET", "/portal/overview"),
        ("POST", "/billing/stripe/webhook"),
    ] {
        let res = app
            .client
            .request(Method::OPTIONS, format!("{}{path}", app.address))
            .header("Origin", NOTEBOOK)
            .header("Access-Control-Request-Method", method)
            .send()
            .await
            .unwrap();
        assert_ne!(res.status().as_u16(), 204, "{path}");
        assert!(res.headers().get("access-control-allow-origin").is_none(), "{path}");
        assert!(res.headers().get("access-control-allow-methods").is_none(), "{path}");
    }
    let res = app
        .client
        .get(format!("{}/portal", app.address))
        .header("Origin", NOTEBOOK)
        .send()
        .await
        .unwrap();
    assert!(res.headers().get("access-control-allow-origin").is_none());
}
