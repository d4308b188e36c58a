use crate::helpers::{assert_error_shape, spawn_app};

#[tokio::test]
async fn an_unknown_route_is_a_404_in_the_error_shape() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/no-such-thing").await;
    let detail = assert_error_shape(status, &body, 404);
    assert!(detail.contains("/no-such-thing"));
    // Under /api/v1 the access gate answers first (fail closed): without a
    // key it is a 401, with one the 404.
    let (status, body) = app.get_json("/api/v1/no-such-thing").await;
    assert_eq!(assert_error_shape(status, &body, 401), "API key required");
    let (status, body) = app.get_authed_json("/api/v1/no-such-thing").await;
    let detail = assert_error_shape(status, &body, 404);
    assert!(detail.contains("/api/v1/no-such-thing"));
}

#[tokio::test]
async fn a_wrong_method_on_a_known_route_is_a_405_in_the_error_shape() {
    let app = spawn_app().await;
    for method in [
        reqwest::Method::POST,
        reqwest::Method::DELETE,
        reqwest::Method::from_bytes(b"TRACE").unwrap(),
    ] {
        let res = app
            .client
            .request(
                method.clone(),
                format!("{}/api/v1/public/ml-picks/nba/moneyline", app.address),
            )
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        let body: serde_json::Value = res.json().await.unwrap();
        assert_error_shape(status, &body, 405);
    }
}

#[tokio::test]
async fn an_unknown_sport_is_a_400_naming_the_parameter_and_allowed_values() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/api/v1/public/ml-picks/cricket/moneyline").await;
    let detail = assert_error_shape(status, &body, 400);
    assert!(detail.contains("sport") && detail.contains("cricket"), "{detail}");
    assert!(detail.contains("mlb, nba, nfl, nhl, ncaaf, ncaab"), "{detail}");
}

#[tokio::test]
async fn an_unknown_market_is_a_400_naming_the_public_market_names() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/api/v1/public/ml-picks/nba/won_on_points").await;
    let detail = assert_error_shape(status, &body, 400);
    assert!(
        detail.contains("market") && detail.contains("over_under, moneyline, spread"),
        "{detail}"
    );
}

#[tokio::test]
async fn a_malformed_boolean_is_a_400_naming_upcoming_only() {
    let app = spawn_app().await;
    let (status, body) = app
        .get_json("/api/v1/public/ml-picks/nba/moneyline?upcoming_only=perhaps")
        .await;
    let detail = assert_error_shape(status, &body, 400);
    assert!(
        detail.contains("upcoming_only") && detail.contains("perhaps"),
        "{detail}"
    );
}

#[tokio::test]
async fn a_malformed_edge_picks_date_is_a_400_naming_date_str() {
    let app = spawn_app().await;
    for bad in ["2026-13-01", "yesterday", "2026-2-1"] {
        let (status, body) = app.get_json(&format!("/api/v1/edge-picks/{bad}")).await;
        let detail = assert_error_shape(status, &body, 400);
        assert!(detail.contains("date_str"), "{detail}");
    }
}

#[tokio::test]
async fn a_missing_artifact_is_a_404_and_an_unreadable_one_a_503_never_empty_data() {
    let app = crate::helpers::spawn_app_with(crate::helpers::fixture_now(), |dir| {
        std::fs::remove_file(dir.join("predictions/nba/won_on_points.csv")).unwrap();
        // A directory where a file should be: the read fails with an I/O error.
        let odd = dir.join("predictions/nhl/won_on_points.csv");
        std::fs::remove_file(&odd).unwrap();
        std::fs::create_dir_all(odd.join("x")).unwrap();
    })
    .await;
    let (status, body) = app.get_json("/api/v1/public/ml-picks/nba/moneyline").await;
    assert_error_shape(status, &body, 404);
    let (status, body) = app.get_json("/api/v1/public/ml-picks/nhl/moneyline").await;
    assert!(status == 503 || status == 404, "status {status} body {body}");
    assert_ne!(status, 200);
}

#[tokio::test]
async fn a_corrupt_artifact_is_a_503_that_does_not_leak_its_cause() {
    let app = crate::helpers::spawn_app_with(crate::helpers::fixture_now(), |dir| {
        let path = dir.join("predictions/nba/over_under.csv");
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("not-a-date,19:00:00,a,b\n");
        std::fs::write(path, text).unwrap();
    })
    .await;
    let (status, body) = app.get_json("/api/v1/public/ml-picks/nba/over_under").await;
    let detail = assert_error_shape(status, &body, 503);
    assert!(!detail.contains("not-a-date"), "{detail}");
    // Other artifacts keep working.
    let (status, _) = app.get_json("/api/v1/public/ml-picks/nba/moneyline").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn an_oversized_body_is_a_413_and_bad_json_a_400_in_the_error_shape() {
    let app = spawn_app().await;
    let url = format!("{}/api/v1/customers/me/api-keys", app.address);
    let big = format!("{{\"name\":\"{}\"}}", "x".repeat(200 * 1024));
    let res = app
        .client
        .post(&url)
        .header("X-API-Key", &app.api_key)
        .header("Content-Type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let body: serde_json::Value = res.json().await.unwrap();
    assert_error_shape(status, &body, 413);
    for bad in ["{\"name\":", "[]", "{\"nom\":\"x\"}"] {
        let res = app
            .client
            .post(&url)
            .header("X-API-Key", &app.api_key)
            .header("Content-Type", "application/json")
            .body(bad)
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        let body: serde_json::Value = res.json().await.unwrap();
        assert_error_shape(status, &body, 400);
    }
}

#[tokio::test]
async fn delete_on_the_rename_resource_is_a_405_allowing_patch_not_a_key_lookup() {
    let app = spawn_app().await;
    let res = app
        .client
        .delete(format!("{}/api/v1/customers/me/api-keys/rename", app.address))
        .header("X-API-Key", &app.api_key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["allow"], "PATCH");
    let status = res.status().as_u16();
    let body: serde_json::Value = res.json().await.unwrap();
    assert_error_shape(status, &body, 405);
}

/// `code` tells a program what went wrong without reading `detail`; the
/// codes are spelled here as docs/payloads.md lists them.
#[tokio::test]
async fn each_error_carries_its_code_its_parameter_and_the_request_id() {
    let app = spawn_app().await;
    let cases: [(&str, bool, u16, &str, Option<&str>); 9] = [
        (
            "/api/v1/predictions/cricket/won_on_points",
            true,
            400,
            "unknown_sport",
            Some("sport"),
        ),
        (
            "/api/v1/predictions/nba/won_on_goals",
            true,
            400,
            "unknown_model_type",
            Some("model_type"),
        ),
        (
            "/api/v1/predictions/nba/won_on_points?upcoming_only=perhaps",
            true,
            400,
            "invalid_parameter",
            Some("upcoming_only"),
        ),
        (
            "/api/v1/results/nba/won_on_points?limit=0",
            true,
            400,
            "invalid_parameter",
            Some("limit"),
        ),
        (
            "/api/v1/results/nba/won_on_points?season=2025-26&offset=0&snapshot=xyz",
            true,
            400,
            "invalid_snapshot",
            Some("snapshot"),
        ),
        // Well-formed, but never issued: its check fails (a 400, not the 409 of a replaced season).
        (
            "/api/v1/results/nba/won_on_points?season=2025-26&offset=0&snapshot=0000000000000000000000000000000000000000000000000000000000000000",
            true,
            400,
            "invalid_snapshot",
            Some("snapshot"),
        ),
        ("/api/v1/predictions/nba/won_on_points", false, 401, "missing_key", None),
        ("/api/v1/no-such-thing", true, 404, "not_found", None),
        ("/no-such-thing", false, 404, "not_found", None),
    ];
    for (path, keyed, status, code, parameter) in cases {
        let res = if keyed {
            app.get_authed(path).await
        } else {
            app.get(path).await
        };
        let header_id = res.headers()["x-request-id"].to_str().unwrap().to_owned();
        let got = res.status().as_u16();
        let body: serde_json::Value = res.json().await.unwrap();
        assert_error_shape(got, &body, status);
        assert_eq!(body["code"], code, "{path}: {body}");
        assert_eq!(body["parameter"].as_str(), parameter, "{path}: {body}");
        assert_eq!(
            body["request_id"],
            header_id.as_str(),
            "{path}: the body quotes X-Request-Id"
        );
    }
    // A key that does not exist: invalid_key, and a 401 names its scheme.
    let res = app
        .get_keyed("/api/v1/predictions/nba/won_on_points", "sk_service_nope", &[])
        .await;
    assert_eq!(res.status().as_u16(), 401);
    assert_eq!(res.headers()["www-authenticate"], r#"Bearer realm="linecast""#);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["code"], "invalid_key");
    let res = app.get("/api/v1/predictions/nba/won_on_points").await;
    assert!(
        res.headers().contains_key("www-authenticate"),
        "missing key: 401 with a challenge"
    );
    // A wrong method: method_not_allowed.
    let res = app
        .client
        .delete(format!("{}/api/v1/public/ml-picks/nba/moneyline", app.address))
        .send()
        .await
        .unwrap();
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["code"], "method_not_allowed");
}

/// Every code the document declares is listed in docs/payloads.md with its
/// status, and the document's error schema carries the new fields.
#[tokio::test]
async fn the_error_codes_of_the_document_are_the_ones_payloads_md_lists() {
    let app = spawn_app().await;
    let (status, doc) = app.get_json("/openapi.json").await;
    assert_eq!(status, 200);
    let schema = &doc["components"]["schemas"]["ErrorBody"];
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for field in ["error", "code", "detail", "timestamp"] {
        assert!(required.contains(&field), "{field} required: {required:?}");
    }
    let code = &doc["components"]["schemas"]["ErrorCode"];
    let declared: Vec<&str> = code["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(declared.len() >= 13, "{declared:?}");
    let payloads = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/payloads.md")).unwrap();
    let section = payloads
        .split("\n## Errors")
        .nth(1)
        .expect("payloads.md has an Errors section")
        .split("\n## ")
        .next()
        .unwrap();
    let listed: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .collect();
    assert_eq!(declared, listed, "payloads.md lists the document's codes, in its order");
}
