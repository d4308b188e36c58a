//! Customer account over HTTP: `/me`, `/me/usage` and the API-key
//! lifecycle (create, list masked, rename, revoke), with cross-customer
//! isolation and at-once revocation on the revoking instance.

use chrono::Duration;
use linecast_core::key_material::{generate_key, mask_key};
use reqwest::Method;
use serde_json::{Value, json};

use crate::access::{Via, demo_customer, get_with, issue_key, seed_ai_customer, send, store_key};
use crate::helpers::{TestApp, assert_error_shape, spawn_app};

const KEYS: &str = "/api/v1/customers/me/api-keys";

fn is_masked(s: &str) -> bool {
    s.strip_prefix("sk_service_")
        .and_then(|rest| rest.strip_suffix("*****"))
        .is_some_and(|p| p.len() == 4 && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

async fn list(app: &TestApp, key: &str) -> Vec<Value> {
    let r = get_with(app, KEYS, key).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body.as_array().unwrap().clone()
}

async fn create(app: &TestApp, key: &str, name: &str) -> String {
    let r = send(app, Method::POST, KEYS, Via::Header(key), Some(json!({ "name": name }))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["api_key"].as_str().unwrap().to_owned()
}

async fn rename(app: &TestApp, key: &str, target: &str, new_name: &str) -> crate::access::Reply {
    let body = json!({ "api_key_to_rename": target, "new_name": new_name });
    send(
        app,
        Method::PATCH,
        &format!("{KEYS}/rename"),
        Via::Header(key),
        Some(body),
    )
    .await
}

async fn revoke(app: &TestApp, key: &str, target: &str) -> crate::access::Reply {
    send(app, Method::DELETE, &format!("{KEYS}/{target}"), Via::Header(key), None).await
}

#[tokio::test]
async fn me_reports_the_demo_customer_with_every_spec_field() {
    let app = spawn_app().await;
    let demo = demo_customer(&app).await;
    let r = get_with(&app, "/api/v1/customers/me", &app.api_key).await;
    assert_eq!(r.status, 200);
    let b = &r.body;
    assert_eq!(b.as_object().unwrap().len(), 10, "{b}");
    assert_eq!(b["customer_id"], demo.customer_id);
    assert_eq!(b["email"], "demo@linecast.local");
    assert_eq!(b["name"], "Demo Customer");
    assert_eq!(b["tier"], "ai");
    assert_eq!(b["api_plan"], "ai");
    assert_eq!(b["api_subscription_status"], "active");
    assert_eq!(b["subscription_status"], "active");
    assert_eq!(b["monthly_requests"], 1, "this call is counted");
    assert_eq!(b["monthly_limit"], 200_000);
    assert_eq!(b["created_at"], "2026-11-15T17:00:00Z");
}

#[tokio::test]
async fn usage_reports_the_count_and_resets_on_the_first_of_next_month() {
    let app = spawn_app().await;
    get_with(&app, "/api/v1/sports", &app.api_key).await;
    let r = get_with(&app, "/api/v1/customers/me/usage", &app.api_key).await;
    assert_eq!(r.status, 200);
    let b = &r.body;
    assert_eq!(b.as_object().unwrap().len(), 8, "{b}");
    assert_eq!(b["monthly_requests"], 2);
    assert_eq!(b["monthly_limit"], 200_000);
    assert_eq!(b["requests_remaining"], 199_998);
    assert_eq!(b["tier"], "ai");
    assert_eq!(b["api_plan"], "ai");
    assert_eq!(b["api_subscription_status"], "active");
    assert_eq!(b["subscription_status"], "active");
    assert_eq!(b["reset_date"], "2026-12-01");
}

#[tokio::test]
async fn a_created_key_is_returned_in_full_once_and_listed_only_masked() {
    let app = spawn_app().await;
    let r = send(
        &app,
        Method::POST,
        KEYS,
        Via::Header(&app.api_key),
        Some(json!({ "name": "ci" })),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let full = r.body["api_key"].as_str().unwrap().to_owned();
    assert!(
        full.starts_with("sk_service_") && full.len() >= "sk_service_".len() + 32,
        "{full}"
    );
    assert!(!r.body["message"].as_str().unwrap().is_empty());
    assert!(!r.body["warning"].as_str().unwrap().is_empty());
    // The new key works at once.
    assert_eq!(get_with(&app, "/api/v1/sports", &full).await.status, 200);
    let keys = list(&app, &app.api_key).await;
    assert_eq!(keys.len(), 2);
    let text = serde_json::to_string(&keys).unwrap();
    assert!(
        !text.contains(&full) && !text.contains(&app.api_key),
        "no full key in the list"
    );
    for k in &keys {
        assert!(is_masked(k["api_key"].as_str().unwrap()), "{k}");
        assert_eq!(k["is_active"], true);
        assert_eq!(k["tier"], "ai");
        assert!(k["expires_at"].is_null());
        assert!(k["created_at"].is_string());
    }
    let mine = keys.iter().find(|k| k["name"] == "ci").unwrap();
    assert_eq!(mine["api_key"], mask_key(&full).unwrap());
}

#[tokio::test]
async fn a_key_name_must_be_1_to_100_characters_and_the_body_json() {
    let app = spawn_app().await;
    for body in [
        json!({ "name": "" }),
        json!({ "name": "x".repeat(101) }),
        json!({ "nom": "x" }),
    ] {
        let r = send(&app, Method::POST, KEYS, Via::Header(&app.api_key), Some(body)).await;
        assert_error_shape(r.status, &r.body, 400);
    }
    assert_eq!(list(&app, &app.api_key).await.len(), 1, "nothing was created");
}

#[tokio::test]
async fn a_key_name_with_a_line_break_or_bidi_override_is_refused_with_400_naming_the_parameter() {
    let app = spawn_app().await;
    for name in ["ci\n[audit] forged", "\u{202E}gpj.exe", "tab\there", "x\u{0085}y"] {
        let body = json!({ "name": name });
        let r = send(&app, Method::POST, KEYS, Via::Header(&app.api_key), Some(body)).await;
        let detail = assert_error_shape(r.status, &r.body, 400);
        assert!(
            detail.contains("name") && detail.contains("printable"),
            "{name:?}: {detail}"
        );
    }
    assert_eq!(list(&app, &app.api_key).await.len(), 1, "nothing was created");
    let full = create(&app, &app.api_key, "first").await;
    let r = rename(&app, &app.api_key, &full, "a\r\nb").await;
    let detail = assert_error_shape(r.status, &r.body, 400);
    assert!(detail.contains("new_name"), "{detail}");
    assert!(list(&app, &app.api_key).await.iter().any(|k| k["name"] == "first"));
}

#[tokio::test]
async fn a_key_is_renamed_by_its_full_value_and_by_its_masked_form() {
    let app = spawn_app().await;
    let full = create(&app, &app.api_key, "first").await;
    let r = rename(&app, &app.api_key, &full, "by-full").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body["message"].is_string());
    assert!(list(&app, &app.api_key).await.iter().any(|k| k["name"] == "by-full"));
    let r = rename(&app, &app.api_key, &mask_key(&full).unwrap(), "by-mask").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let names: Vec<Value> = list(&app, &app.api_key)
        .await
        .iter()
        .map(|k| k["name"].clone())
        .collect();
    assert!(
        names.contains(&json!("by-mask")) && !names.contains(&json!("by-full")),
        "{names:?}"
    );
    // The renamed key still authenticates.
    assert_eq!(get_with(&app, "/api/v1/sports", &full).await.status, 200);
    let r = rename(&app, &app.api_key, "garbage", "x").await;
    assert_error_shape(r.status, &r.body, 400);
}

#[tokio::test]
async fn a_key_revoked_by_masked_form_is_refused_at_once_on_the_same_instance() {
    let app = spawn_app().await;
    let full = create(&app, &app.api_key, "short-lived").await;
    // Used first, so the key cache holds it as valid.
    assert_eq!(get_with(&app, "/api/v1/sports", &full).await.status, 200);
    let r = revoke(&app, &app.api_key, &mask_key(&full).unwrap()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body["message"].is_string());
    let r = get_with(&app, "/api/v1/sports", &full).await;
    assert_eq!(assert_error_shape(r.status, &r.body, 401), "Invalid or expired API key");
    let listed = list(&app, &app.api_key).await;
    let gone = listed.iter().find(|k| k["name"] == "short-lived").unwrap();
    assert_eq!(gone["is_active"], false);
}

#[tokio::test]
async fn a_key_revoked_by_full_value_is_refused_at_once_on_the_same_instance() {
    let app = spawn_app().await;
    let full = create(&app, &app.api_key, "other").await;
    assert_eq!(get_with(&app, "/api/v1/customers/me", &full).await.status, 200);
    assert_eq!(revoke(&app, &app.api_key, &full).await.status, 200);
    let r = get_with(&app, "/api/v1/customers/me", &full).await;
    assert_eq!(assert_error_shape(r.status, &r.body, 401), "Invalid or expired API key");
}

#[tokio::test]
async fn revoking_the_key_that_authenticates_the_request_is_400() {
    let app = spawn_app().await;
    for target in [app.api_key.clone(), mask_key(&app.api_key).unwrap()] {
        let r = revoke(&app, &app.api_key, &target).await;
        let detail = assert_error_shape(r.status, &r.body, 400);
        assert_eq!(detail, "Cannot revoke the API key used to authenticate this request");
    }
    assert_eq!(
        get_with(&app, "/api/v1/sports", &app.api_key).await.status,
        200,
        "still usable"
    );
}

#[tokio::test]
async fn a_masked_form_matching_several_of_your_keys_is_400() {
    let app = spawn_app().await;
    let demo = demo_customer(&app).await;
    let a = generate_key().unwrap();
    let b = format!("{}{}", &a[..15], &generate_key().unwrap()[15..]);
    assert_ne!(a, b);
    store_key(&app, &demo, a.clone(), None).await;
    store_key(&app, &demo, b.clone(), None).await;
    let masked = mask_key(&a).unwrap();
    assert_eq!(Some(masked.clone()), mask_key(&b));
    let r = rename(&app, &app.api_key, &masked, "x").await;
    assert!(
        assert_error_shape(r.status, &r.body, 400).contains("full key"),
        "{}",
        r.body
    );
    let r = revoke(&app, &app.api_key, &masked).await;
    assert_error_shape(r.status, &r.body, 400);
    // The full value still picks exactly one.
    assert_eq!(revoke(&app, &app.api_key, &b).await.status, 200);
    assert_eq!(get_with(&app, "/api/v1/sports", &a).await.status, 200);
    assert_eq!(get_with(&app, "/api/v1/sports", &b).await.status, 401);
}

#[tokio::test]
async fn a_customer_can_neither_see_rename_nor_revoke_another_customers_keys() {
    let app = spawn_app().await;
    let (_, b_key) = seed_ai_customer(&app, "b@example.com").await;
    let b_listed = list(&app, &b_key).await;
    assert_eq!(b_listed.len(), 1);
    assert_ne!(b_listed[0]["api_key"], mask_key(&app.api_key).unwrap());
    for target in [app.api_key.clone(), mask_key(&app.api_key).unwrap()] {
        let r = rename(&app, &b_key, &target, "stolen").await;
        assert_error_shape(r.status, &r.body, 404);
        let r = revoke(&app, &b_key, &target).await;
        assert_error_shape(r.status, &r.body, 404);
    }
    assert_eq!(get_with(&app, "/api/v1/sports", &app.api_key).await.status, 200);
    assert!(list(&app, &app.api_key).await.iter().all(|k| k["name"] != "stolen"));
    // An unknown but well-formed key is 404 too.
    let r = revoke(&app, &b_key, &generate_key().unwrap()).await;
    assert_error_shape(r.status, &r.body, 404);
}

#[tokio::test]
async fn an_expired_key_is_listed_inactive_with_its_expiry() {
    let app = spawn_app().await;
    let demo = demo_customer(&app).await;
    let at = app.state.clock.now() - Duration::hours(1);
    let expired = store_key(&app, &demo, generate_key().unwrap(), Some(at)).await;
    let keys = list(&app, &app.api_key).await;
    let k = keys
        .iter()
        .find(|k| k["api_key"] == mask_key(&expired).unwrap())
        .unwrap();
    assert_eq!(k["expires_at"], "2026-11-15T16:00:00Z");
    assert_eq!(k["is_active"], false, "a key that cannot authenticate is not active");
    let r = get_with(&app, "/api/v1/sports", &expired).await;
    assert_eq!(assert_error_shape(r.status, &r.body, 401), "Invalid or expired API key");
}

#[tokio::test]
async fn account_endpoints_need_a_key() {
    let app = spawn_app().await;
    let other = issue_key(&app, &demo_customer(&app).await).await;
    for (method, path) in [
        (Method::GET, "/api/v1/customers/me".to_owned()),
        (Method::GET, "/api/v1/customers/me/usage".to_owned()),
        (Method::GET, KEYS.to_owned()),
        (Method::POST, KEYS.to_owned()),
        (Method::PATCH, format!("{KEYS}/rename")),
        (Method::DELETE, format!("{KEYS}/{other}")),
    ] {
        let r = send(&app, method.clone(), &path, Via::Nothing, Some(json!({}))).await;
        assert_eq!(
            assert_error_shape(r.status, &r.body, 401),
            "API key required",
            "{method} {path}"
        );
    }
}

#[tokio::test]
async fn a_key_is_created_with_a_default_name_from_no_body_or_an_empty_object() {
    let app = spawn_app().await;
    let r = send(&app, Method::POST, KEYS, Via::Header(&app.api_key), None).await;
    assert_eq!(r.status, 200, "no body: {}", r.body);
    assert!(r.body["api_key"].as_str().unwrap().starts_with("sk_service_"));
    let r = send(&app, Method::POST, KEYS, Via::Header(&app.api_key), Some(json!({}))).await;
    assert_eq!(r.status, 200, "{{}}: {}", r.body);
    // A raw POST without Content-Length or Content-Type, as `curl -X POST` sends.
    let res = app
        .client
        .post(format!("{}{KEYS}", app.address))
        .header("X-API-Key", &app.api_key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let keys = list(&app, &app.api_key).await;
    assert_eq!(keys.len(), 4, "{keys:?}");
    assert_eq!(keys.iter().filter(|k| k["name"] == "API key").count(), 3, "{keys:?}");
    // A given name keeps its validation.
    let r = send(
        &app,
        Method::POST,
        KEYS,
        Via::Header(&app.api_key),
        Some(json!({ "name": " " })),
    )
    .await;
    assert_error_shape(r.status, &r.body, 400);
}

#[tokio::test]
async fn legacy_tiers_are_reported_as_ai_in_the_account_payloads() {
    let app = spawn_app().await;
    for tier in ["data", "basic", "premium"] {
        let customer = crate::access::seed_customer(&app, &format!("{tier}-legacy@example.com"), tier, 1000).await;
        let key = store_key(&app, &customer, generate_key().unwrap(), None).await;
        let me = get_with(&app, "/api/v1/customers/me", &key).await;
        assert_eq!(me.status, 200, "{}", me.body);
        assert_eq!(me.body["tier"], "ai", "{tier}: {}", me.body);
        let usage = get_with(&app, "/api/v1/customers/me/usage", &key).await;
        assert_eq!(usage.body["tier"], "ai", "{tier}: {}", usage.body);
        let keys = list(&app, &key).await;
        assert!(keys.iter().all(|k| k["tier"] == "ai"), "{tier}: {keys:?}");
    }
}
