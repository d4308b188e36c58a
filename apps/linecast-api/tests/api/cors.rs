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
}

/// The answer does not depend on the `Origin`: a request without one (a
/// script, or a shared cache filling its copy) gets the same CORS headers,
/// so a CDN's copy of the public feed serves browser pages too. Bodies,
/// 304s, refusals, 404s and 405s alike.
#[tokio::test]
async fn every_api_answer_is_readable_cross_origin_whether_or_not_an_origin_came() {
    let app = spawn_app().await;
    let readable = |res: &reqwest::Response, what: &str| {
        let h = res.headers();
        assert_eq!(
            h.get("access-control-allow-origin").map(|v| v.to_str().unwrap()),
            Some("*"),
            "{what}: {}",
            res.status()
        );
        let exposed = h["access-control-expose-headers"]
            .to_str()
            .unwrap()
            .to_ascii_lowercase();
        assert!(
            exposed.contains("x-ratelimit-remaining") && exposed.contains("etag"),
            "{what}: {exposed}"
        );
        assert!(h.get("access-control-allow-credentials").is_none(), "{what}");
        assert!(
            h.get("vary")
                .is_none_or(|v| !v.to_str().unwrap().to_ascii_lowercase().contains("origin"))
        );
    };
    // The public feed (a shared cache may keep it) and its 304.
    let feed = "/api/v1/public/ml-picks/nba/moneyline";
    let res = app.get(feed).await;
    assert_eq!(res.status(), 200);
    assert!(res.headers()["cache-control"].to_str().unwrap().starts_with("public"));
    readable(&res, "the public feed");
    let etag = res.headers()["etag"].to_str().unwrap().to_owned();
    let res = app
        .client
        .get(format!("{}{feed}", app.address))
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 304);
    readable(&res, "the feed's 304");
    // A keyed body, twice (the second from the cached bytes), and its 304.
    let path = "/api/v1/predictions/nba/won_on_points";
    for _ in 0..2 {
        let res = app.get_authed(path).await;
        assert_eq!(res.status(), 200);
        readable(&res, "predictions");
    }
    let etag = app.get_authed(path).await.headers()["etag"]
        .to_str()
        .unwrap()
        .to_owned();
    let res = app.get_keyed(path, &app.api_key, &[("If-None-Match", &etag)]).await;
    assert_eq!(res.status(), 304);
    readable(&res, "the predictions' 304");
    // Refusals: no key, a bad key, an unknown path, a wrong method.
    readable(&app.get(path).await, "no key");
    readable(&app.get_keyed(path, "sk_service_nope", &[]).await, "a bad key");
    readable(&app.get_authed("/api/v1/no-such-thing").await, "an unknown path");
    readable(&app.get("/api/v1/no-such-thing").await, "an unknown path without a key");
    let res = app
        .client
        .delete(format!("{}{feed}", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 405);
    readable(&res, "a wrong method");
    // The portal and the webhook answer none, with or without an Origin.
    for path in ["/portal", "/portal/overview", "/billing/stripe/webhook"] {
        for origin in [None, Some(NOTEBOOK)] {
            let mut req = app.client.get(format!("{}{path}", app.address));
            if let Some(origin) = origin {
                req = req.header("Origin", origin);
            }
            let res = req.send().await.unwrap();
            assert!(
                res.headers().get("access-control-allow-origin").is_none(),
                "{path} {origin:?}: {}",
                res.status()
            );
        }
    }
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
